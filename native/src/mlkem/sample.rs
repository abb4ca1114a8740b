//! Matrix expansion (SampleNTT) and noise sampling (SamplePolyCBD over PRF), four polynomials
//! per batched Keccak call.

use crate::keccak::{Rider, SHAKE128_RATE, SHAKE256_RATE, ShakeX4, absorb_short, shake};
use crate::simd::{N, Poly, Simd, wipe_bytes};

/// Three SHAKE128 blocks: enough for 256 coefficients in all but about 1 in 2^14 cases
/// (expected yield 3·168·2/3·(q/4096) ≈ 273), after which one more block at a time.
const MATRIX_BLOCKS: usize = 3;
// Key generation's schedule (kpke::keygen) counts on three seats per batch for the noise.
const _: () = assert!(MATRIX_BLOCKS >= 3);

/// Fills `a[i][j]` with SampleNTT(ρ || j || i), or SampleNTT(ρ || i || j) when `transposed`,
/// in the implementation's NTT-domain order. The first `seated` entries go three per
/// four-way batch and the `rider` takes lane 3 at each of their permutations (decapsulation's
/// J, noise polynomials); the rest go four per batch, a lone last one on one state. With
/// `seated` = 9 for K = 3 every batch has a seat; K = 4 seats 12 entries when the rider is
/// decapsulation's J (twelve blocks: three more four-way permutations instead of twelve
/// single ones) and none otherwise (its noise alone is cheaper in batches of its own).
#[inline(always)]
pub(crate) fn matrix<S: Simd, const K: usize, R: Rider>(
    rho: &[u8; 32],
    transposed: bool,
    a: &mut [[Poly; K]; K],
    mut rider: Option<&mut R>,
    seated: usize,
) {
    debug_assert!(seated.is_multiple_of(3) && seated <= K * K && (seated == 0 || rider.is_some()));
    let mut coords = [(0u8, 0u8); 16];
    for i in 0..K {
        for j in 0..K {
            coords[i * K + j] = (i as u8, j as u8);
        }
    }
    let (with_seat, rest) = coords[..K * K].split_at(seated);
    let groups = with_seat
        .chunks(3)
        .map(|g| (g, true))
        .chain(rest.chunks(4).map(|g| (g, false)));
    for (group, seat) in groups {
        let mut polys = [Poly::ZERO, Poly::ZERO, Poly::ZERO, Poly::ZERO];
        let seat = if seat { rider.as_deref_mut() } else { None };
        entries::<S, R>(rho, transposed, group, &mut polys[..group.len()], seat);
        for (&(i, j), poly) in group.iter().zip(&polys) {
            a[i as usize][j as usize] = poly.clone();
        }
    }
}

/// SampleNTT of up to four matrix entries `(i, j)` (seeded as in [`matrix`]) into `out`, in
/// one four-way batch: with a `rider`, at most three entries and lane 3 lent to it at each
/// permutation. A lone entry without a rider goes on one state instead (cheaper than a
/// four-way permutation with three lanes wasted).
#[inline(always)]
pub(crate) fn entries<S: Simd, R: Rider>(
    rho: &[u8; 32],
    transposed: bool,
    group: &[(u8, u8)],
    out: &mut [Poly],
    mut rider: Option<&mut R>,
) {
    debug_assert!(group.len() == out.len() && !group.is_empty());
    debug_assert!(group.len() <= if rider.is_some() { 3 } else { 4 });
    let seed = |(i, j): (u8, u8)| {
        let mut s = [0u8; 34];
        s[..32].copy_from_slice(rho);
        (s[32], s[33]) = if transposed { (i, j) } else { (j, i) };
        s
    };
    if let ([entry], [poly], None) = (group, &mut *out, &rider) {
        let mut xof = shake::<S>(SHAKE128_RATE, &seed(*entry));
        let mut buf = [0u8; MATRIX_BLOCKS * SHAKE128_RATE];
        xof.squeeze(&mut buf);
        let mut filled = S::rej_uniform(poly, 0, &buf);
        while filled < N {
            let mut more = [0u8; SHAKE128_RATE];
            xof.squeeze(&mut more);
            filled = S::rej_uniform(poly, filled, &more);
        }
        S::ntt_unpack(poly);
        return;
    }
    let mut squeeze = |xof: &mut ShakeX4<S>, out: [&mut [u8]; 4]| match rider.as_deref_mut() {
        Some(r) => xof.squeeze_blocks_riding(out, r),
        None => xof.squeeze_blocks(out),
    };
    // A short group repeats its first entry; the extra lanes are discarded.
    let pick = |l: usize| group[l.min(group.len() - 1)];
    let seeds: [[u8; 34]; 4] = core::array::from_fn(|l| seed(pick(l)));
    let mut xof = ShakeX4::<S>::absorb(SHAKE128_RATE, [&seeds[0], &seeds[1], &seeds[2], &seeds[3]]);
    let mut buf = [[0u8; MATRIX_BLOCKS * SHAKE128_RATE]; 4];
    {
        let [b0, b1, b2, b3] = &mut buf;
        squeeze(&mut xof, [b0, b1, b2, b3]);
    }
    let mut filled = [0usize; 4];
    for (l, poly) in out.iter_mut().enumerate() {
        filled[l] = S::rej_uniform(poly, 0, &buf[l]);
    }
    while filled[..out.len()].iter().any(|&f| f < N) {
        let mut more = [[0u8; SHAKE128_RATE]; 4];
        {
            let [b0, b1, b2, b3] = &mut more;
            squeeze(&mut xof, [b0, b1, b2, b3]);
        }
        for (l, poly) in out.iter_mut().enumerate() {
            filled[l] = S::rej_uniform(poly, filled[l], &more[l]);
        }
    }
    for poly in out.iter_mut() {
        S::ntt_unpack(poly);
    }
}

/// SamplePolyCBD_2(PRF_2(σ, nonce + l)) into `out[l]`, one polynomial per ride (one
/// SHAKE256 block each), and [`NoiseRider::finish`] for those that found no seat.
pub(crate) struct NoiseRider<'a, S: Simd> {
    sigma: &'a [u8; 32],
    nonce: u8,
    out: &'a mut [Poly],
    next: usize,
    _simd: core::marker::PhantomData<S>,
}

impl<'a, S: Simd> NoiseRider<'a, S> {
    pub(crate) fn new(sigma: &'a [u8; 32], nonce: u8, out: &'a mut [Poly]) -> Self {
        NoiseRider {
            sigma,
            nonce,
            out,
            next: 0,
            _simd: core::marker::PhantomData,
        }
    }

    /// How many polynomials have ridden so far.
    pub(crate) fn taken(&self) -> usize {
        self.next
    }

    /// The polynomials that did not ride, four per batched call.
    pub(crate) fn finish(self) {
        let start = self.next;
        for (c, chunk) in self.out[start..].chunks_mut(4).enumerate() {
            cbd2_x4::<S>(self.sigma, self.nonce + (start + 4 * c) as u8, chunk);
        }
    }
}

impl<S: Simd> Rider for NoiseRider<'_, S> {
    fn board(&mut self, lane: &mut [u64; 25]) -> bool {
        if self.next == self.out.len() {
            return false;
        }
        let mut seed = [0u8; 33];
        seed[..32].copy_from_slice(self.sigma);
        seed[32] = self.nonce + self.next as u8;
        *lane = [0; 25];
        absorb_short(SHAKE256_RATE, &seed, |i, w| lane[i] ^= w);
        wipe_bytes(&mut seed);
        true
    }
    fn alight(&mut self, lane: &[u64; 25]) {
        let mut bytes = [0u8; 128];
        for (b, w) in bytes.chunks_exact_mut(8).zip(lane) {
            b.copy_from_slice(&w.to_le_bytes());
        }
        S::cbd2(&mut self.out[self.next], &bytes);
        wipe_bytes(&mut bytes);
        self.next += 1;
    }
}

/// SamplePolyCBD_2(PRF_2(σ, nonce + l)) for up to four consecutive nonces, into `out`.
#[inline(always)]
pub(crate) fn cbd2_x4<S: Simd>(sigma: &[u8; 32], nonce: u8, out: &mut [Poly]) {
    debug_assert!(!out.is_empty() && out.len() <= 4);
    if let [poly] = out {
        // A lone polynomial (e2 of ML-KEM-1024): one scalar sponge, not a wasted four-way one.
        let mut seed = [0u8; 33];
        seed[..32].copy_from_slice(sigma);
        seed[32] = nonce;
        let mut bytes = [0u8; 128];
        shake::<S>(SHAKE256_RATE, &seed).squeeze(&mut bytes);
        S::cbd2(poly, &bytes);
        wipe_bytes(&mut seed);
        wipe_bytes(&mut bytes);
        return;
    }
    let mut seeds: [[u8; 33]; 4] = core::array::from_fn(|l| {
        let mut s = [0u8; 33];
        s[..32].copy_from_slice(sigma);
        s[32] = nonce.wrapping_add(l as u8);
        s
    });
    let mut prf = ShakeX4::<S>::absorb(SHAKE256_RATE, [&seeds[0], &seeds[1], &seeds[2], &seeds[3]]);
    let mut buf = [[0u8; SHAKE256_RATE]; 4];
    {
        let [b0, b1, b2, b3] = &mut buf;
        prf.squeeze_blocks([b0, b1, b2, b3]);
    }
    for (l, poly) in out.iter_mut().enumerate() {
        let bytes: &[u8; 128] = buf[l][..128].try_into().expect("128 bytes");
        S::cbd2(poly, bytes);
    }
    wipe_bytes(seeds.as_flattened_mut());
    wipe_bytes(buf.as_flattened_mut());
}
