//! Operation-by-operation tests of a SIMD implementation against the portable one, on random
//! inputs at the edges of each operation's stated input range. The known-answer and
//! differential tests (tests/) then check the assembled algorithms.

use crate::portable::Portable;
use crate::simd::{KeccakLanes, KeccakX4, N, Poly, Q, Simd};

/// xorshift64*: reproducible test inputs, no dependency.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u32) -> i16 {
        (self.next() % n as u64) as i16
    }
    /// |c| < q, or, every fourth call, the extreme values ±(q - 1).
    fn reduced(&mut self) -> Poly {
        let extreme = self.next().is_multiple_of(4);
        let mut p = Poly::ZERO;
        for c in p.c.iter_mut() {
            *c = if extreme {
                if self.next() & 1 == 0 { Q - 1 } else { 1 - Q }
            } else {
                self.below(2 * Q as u32 - 1) - (Q - 1)
            };
        }
        p
    }
    fn bytes(&mut self, out: &mut [u8]) {
        for b in out {
            *b = self.next() as u8;
        }
    }
}

fn canonical(p: &Poly) -> [i16; N] {
    p.c.map(|c| c.rem_euclid(Q))
}

fn assert_reduced(p: &Poly, what: &str) {
    for (i, &c) in p.c.iter().enumerate() {
        assert!(c.abs() < Q, "{what}: coefficient {i} = {c} is not reduced");
    }
}

fn ntt_bytes<S: Simd>(p: &Poly) -> [u8; 384] {
    let mut out = [0u8; 384];
    S::ntt_to_bytes(p, &mut out);
    out
}

/// Runs every check for `S`; call from a test that has checked the CPU supports `S`.
pub(crate) fn check<S: Simd>() {
    let mut rng = Rng::new(0x6e65_7875_7371);
    for round in 0..200 {
        keccak::<S>(&mut rng);
        ntt::<S>(&mut rng, round);
        arithmetic::<S>(&mut rng);
        encoding::<S>(&mut rng);
        sampling::<S>(&mut rng);
    }
}

fn keccak<S: Simd>(rng: &mut Rng) {
    let mut one: [u64; 25] = core::array::from_fn(|_| rng.next());
    let mut expected = one;
    S::keccak_f1600(&mut one);
    Portable::keccak_f1600(&mut expected);
    assert_eq!(one, expected, "keccak_f1600");

    let mut four = KeccakX4::ZERO;
    for lane in four.lanes.iter_mut() {
        *lane = core::array::from_fn(|_| rng.next());
    }
    let mut expected = four.clone();
    S::keccak_f1600_x4(&mut four);
    Portable::keccak_f1600_x4(&mut expected);
    assert_eq!(four.lanes, expected.lanes, "keccak_f1600_x4");

    // Two-way: the implementation's own or the default four-way call with two lanes idle.
    against_single(rng, S::keccak_f1600_x2, false, "keccak_f1600_x2");

    // The output block of four states, for every lane count (rates are 17 and 21 lanes; odd
    // and even counts take different paths), against the generic extraction.
    for lanes in 1..=25 {
        let (mut got, mut want) = ([[0u8; 200]; 4], [[0u8; 200]; 4]);
        S::keccak_x4_extract(&four, lanes, got.each_mut().map(|o| &mut o[..8 * lanes]));
        crate::simd::extract_lanes(&four, lanes, want.each_mut().map(|o| &mut o[..8 * lanes]));
        assert_eq!(got, want, "keccak_x4_extract of {lanes} lanes");
    }

    // Eight-way: the implementation's own or the default pair of four-way calls.
    against_single(rng, S::keccak_f1600_x8, false, "keccak_f1600_x8");

    // SLH-DSA's one-block permutations: lanes 17 to 24 are read as zero whatever they hold,
    // and only lanes 0 and 1 of the result are defined.
    let mut one: [u64; 25] = core::array::from_fn(|_| rng.next());
    let mut expected = one;
    expected[17..].fill(0);
    Portable::keccak_f1600(&mut expected);
    S::keccak_f1600_out2(&mut one);
    assert_eq!(one[..2], expected[..2], "keccak_f1600_out2");
    against_single(rng, S::keccak_f1600_x4_out2, true, "keccak_f1600_x4_out2");
    against_single(rng, S::keccak_f1600_x8_out2, true, "keccak_f1600_x8_out2");
}

/// A `W`-way permutation of random states against the portable one-state permutation of each.
/// With `out2`, lanes 17 to 24 of the input (random here) are taken as zero and only lanes 0
/// and 1 of the result are compared.
fn against_single<const W: usize>(
    rng: &mut Rng,
    permute: impl Fn(&mut KeccakLanes<W>),
    out2: bool,
    name: &str,
) {
    let mut states = KeccakLanes::<W>::ZERO;
    for lane in states.lanes.iter_mut() {
        *lane = core::array::from_fn(|_| rng.next());
    }
    let mut expected = states.clone();
    permute(&mut states);
    for j in 0..W {
        let mut one: [u64; 25] = core::array::from_fn(|i| expected.lanes[i][j]);
        if out2 {
            one[17..].fill(0);
        }
        Portable::keccak_f1600(&mut one);
        for (lane, v) in expected.lanes.iter_mut().zip(one) {
            lane[j] = v;
        }
    }
    let compared = if out2 { 2 } else { 25 };
    assert_eq!(
        states.lanes[..compared],
        expected.lanes[..compared],
        "{name}"
    );
}

fn ntt<S: Simd>(rng: &mut Rng, round: usize) {
    // Forward NTT, observed through the FIPS-order bytes.
    let p = rng.reduced();
    let (mut a, mut b) = (p.clone(), p);
    S::ntt(&mut a);
    Portable::ntt(&mut b);
    assert_reduced(&a, "ntt");
    assert_eq!(ntt_bytes::<S>(&a), ntt_bytes::<Portable>(&b), "ntt");

    // Bytes round trip, modulus flag, unpack.
    let mut bytes = [0u8; 384];
    rng.bytes(&mut bytes);
    let (mut a, mut b) = (Poly::ZERO, Poly::ZERO);
    assert_eq!(
        S::ntt_from_bytes(&mut a, &bytes),
        Portable::ntt_from_bytes(&mut b, &bytes),
        "ntt_from_bytes flag"
    );
    let mut canonical_bytes = [0u8; 384];
    Portable::reduce(&mut b);
    Portable::ntt_to_bytes(&b, &mut canonical_bytes);
    let mut a2 = Poly::ZERO;
    assert!(S::ntt_from_bytes(&mut a2, &canonical_bytes));
    assert_eq!(ntt_bytes::<S>(&a2), canonical_bytes, "ntt bytes round trip");

    let mut sampled = Poly::ZERO;
    for c in sampled.c.iter_mut() {
        *c = rng.below(Q as u32);
    }
    let mut unpacked = sampled.clone();
    S::ntt_unpack(&mut unpacked);
    assert_eq!(
        ntt_bytes::<S>(&unpacked),
        ntt_bytes::<Portable>(&sampled),
        "ntt_unpack"
    );

    // Base multiplication of unreduced (< 4096) NTT-domain inputs, then the inverse NTT.
    let k = 1 + round % 4;
    let mut xs: Vec<(Poly, Poly)> = Vec::new();
    let mut ys: Vec<(Poly, Poly)> = Vec::new();
    for _ in 0..k {
        for v in [&mut xs, &mut ys] {
            rng.bytes(&mut bytes);
            let (mut s, mut p) = (Poly::ZERO, Poly::ZERO);
            S::ntt_from_bytes(&mut s, &bytes);
            Portable::ntt_from_bytes(&mut p, &bytes);
            v.push((s, p));
        }
    }
    let sx: Vec<Poly> = xs.iter().map(|x| x.0.clone()).collect();
    let sy: Vec<Poly> = ys.iter().map(|x| x.0.clone()).collect();
    let px: Vec<Poly> = xs.iter().map(|x| x.1.clone()).collect();
    let py: Vec<Poly> = ys.iter().map(|x| x.1.clone()).collect();
    let (mut r, mut e) = (Poly::ZERO, Poly::ZERO);
    S::basemul_acc_montgomery(&mut r, &sx, &sy);
    Portable::basemul_acc_montgomery(&mut e, &px, &py);
    assert_reduced(&r, "basemul_acc_montgomery");
    assert_eq!(
        ntt_bytes::<S>(&r),
        ntt_bytes::<Portable>(&e),
        "basemul_acc_montgomery (k = {k})"
    );
    S::invntt_tomont(&mut r);
    Portable::invntt_tomont(&mut e);
    assert_reduced(&r, "invntt_tomont");
    assert_eq!(canonical(&r), canonical(&e), "invntt_tomont");
}

fn arithmetic<S: Simd>(rng: &mut Rng) {
    let mut any = Poly::ZERO;
    for c in any.c.iter_mut() {
        *c = rng.next() as i16;
    }
    let (mut a, mut b) = (any.clone(), any);
    S::reduce(&mut a);
    Portable::reduce(&mut b);
    assert_reduced(&a, "reduce");
    assert_eq!(canonical(&a), canonical(&b), "reduce");

    let p = rng.reduced();
    let (mut a, mut b) = (p.clone(), p);
    S::tomont(&mut a);
    Portable::tomont(&mut b);
    assert_reduced(&a, "tomont");
    assert_eq!(canonical(&a), canonical(&b), "tomont");

    let (x, y) = (rng.reduced(), rng.reduced());
    let (mut a, mut b) = (x.clone(), x.clone());
    S::add(&mut a, &y);
    Portable::add(&mut b, &y);
    assert_eq!(a.c, b.c, "add");
    let (mut a, mut b) = (x.clone(), x);
    S::sub(&mut a, &y);
    Portable::sub(&mut b, &y);
    assert_eq!(a.c, b.c, "sub");
}

fn encoding<S: Simd>(rng: &mut Rng) {
    let p = rng.reduced();
    for d in [4u32, 5, 10, 11] {
        let len = 32 * d as usize;
        let (mut a, mut b) = (vec![0u8; len], vec![0u8; len]);
        S::compress(&p, d, &mut a);
        Portable::compress(&p, d, &mut b);
        assert_eq!(a, b, "compress d = {d}");

        rng.bytes(&mut a);
        let (mut x, mut y) = (Poly::ZERO, Poly::ZERO);
        S::decompress(&mut x, d, &a);
        Portable::decompress(&mut y, d, &a);
        assert_eq!(x.c, y.c, "decompress d = {d}");
    }
    let (mut a, mut b) = ([0u8; 32], [0u8; 32]);
    S::to_msg(&p, &mut a);
    Portable::to_msg(&p, &mut b);
    assert_eq!(a, b, "to_msg");

    rng.bytes(&mut a);
    let (mut x, mut y) = (Poly::ZERO, Poly::ZERO);
    S::from_msg(&mut x, &a);
    Portable::from_msg(&mut y, &a);
    assert_eq!(x.c, y.c, "from_msg");
}

fn sampling<S: Simd>(rng: &mut Rng) {
    let mut bytes = [0u8; 128];
    rng.bytes(&mut bytes);
    let (mut x, mut y) = (Poly::ZERO, Poly::ZERO);
    S::cbd2(&mut x, &bytes);
    Portable::cbd2(&mut y, &bytes);
    assert_eq!(x.c, y.c, "cbd2");

    // Rejection sampling: a start offset, lengths that end mid-way and that overfill, and
    // biased bytes so that many values are rejected.
    let len = 3 * (1 + (rng.next() % 200) as usize);
    let mut buf = vec![0u8; len];
    rng.bytes(&mut buf);
    if rng.next() & 1 == 0 {
        for b in buf.iter_mut().skip(1).step_by(3) {
            *b |= 0xd0;
        }
    }
    let filled = (rng.next() % 257) as usize;
    let (mut x, mut y) = (Poly::ZERO, Poly::ZERO);
    for i in 0..filled {
        x.c[i] = i as i16;
        y.c[i] = i as i16;
    }
    let nx = S::rej_uniform(&mut x, filled, &buf);
    let ny = Portable::rej_uniform(&mut y, filled, &buf);
    assert_eq!(nx, ny, "rej_uniform count");
    assert_eq!(x.c, y.c, "rej_uniform values");
}

#[test]
fn portable_passes_its_own_checks() {
    check::<Portable>();
}

#[cfg(target_arch = "x86_64")]
#[test]
fn avx2_matches_portable() {
    if !std::arch::is_x86_feature_detected!("avx2") {
        eprintln!("SKIPPED: this CPU has no AVX2");
        return;
    }
    // Forced through the dispatcher's target-feature entry, as in real use.
    crate::dispatch::with_implementation(crate::Implementation::Avx2, || {
        crate::dispatch::run!(|S| check::<S>())
    });
}

#[cfg(target_arch = "x86_64")]
#[test]
fn avx512_matches_portable() {
    if !crate::available().contains(&crate::Implementation::Avx512) {
        eprintln!("SKIPPED: this CPU has no AVX-512F + AVX-512VL (or no AVX2)");
        return;
    }
    // Forced through the dispatcher's target-feature entry, as in real use.
    crate::dispatch::with_implementation(crate::Implementation::Avx512, || {
        crate::dispatch::run!(|S| check::<S>())
    });
}

#[cfg(target_arch = "aarch64")]
#[test]
fn neon_matches_portable() {
    for imp in crate::available() {
        crate::dispatch::with_implementation(imp, || crate::dispatch::run!(|S| check::<S>()));
    }
}
