//! SHA-3 and SHAKE sponges (FIPS 202) over an implementation's Keccak-f[1600], one at a time
//! and four or eight at a time (matrix expansion and noise sampling).

use crate::simd::{KeccakLanes, KeccakX2, KeccakX4, KeccakX8, Simd, extract_lanes};
use core::marker::PhantomData;
use zeroize::Zeroize;

pub(crate) const SHAKE128_RATE: usize = 168;
pub(crate) const SHAKE256_RATE: usize = 136;
const SHA3_256_RATE: usize = 136;
const SHA3_512_RATE: usize = 72;
const SHA3_DOMAIN: u8 = 0x06;
const SHAKE_DOMAIN: u8 = 0x1f;

/// XORs a whole block (a multiple of 8 bytes) into the state, lane by lane.
#[inline(always)]
fn xor_block(lanes: &mut [u64; 25], block: &[u8]) {
    for (lane, word) in lanes.iter_mut().zip(block.chunks_exact(8)) {
        *lane ^= u64::from_le_bytes(word.try_into().expect("8 bytes"));
    }
}

/// Absorbs `input`, shorter than a block, with SHAKE's padding into a zero state, a word at a
/// time: `xor(i, w)` XORs word `w` into lane `i` (of whichever state or column the caller
/// means). The permutation follows.
#[inline(always)]
pub(crate) fn absorb_short(rate: usize, input: &[u8], mut xor: impl FnMut(usize, u64)) {
    debug_assert!(input.len() < rate);
    let words = input.chunks_exact(8);
    let rest = words.remainder();
    let full = input.len() / 8;
    for (i, w) in words.enumerate() {
        xor(i, u64::from_le_bytes(w.try_into().expect("8 bytes")));
    }
    let mut last = [0u8; 8];
    last[..rest.len()].copy_from_slice(rest);
    last[rest.len()] = SHAKE_DOMAIN;
    xor(full, u64::from_le_bytes(last));
    xor((rate - 1) / 8, 0x80u64 << (8 * ((rate - 1) % 8)));
    crate::simd::wipe_bytes(&mut last);
}

#[inline(always)]
fn xor_byte(lanes: &mut [u64; 25], i: usize, b: u8) {
    lanes[i / 8] ^= (b as u64) << (8 * (i % 8));
}

#[inline(always)]
fn get_byte(lanes: &[u64; 25], i: usize) -> u8 {
    (lanes[i / 8] >> (8 * (i % 8))) as u8
}

/// One sponge: absorb any number of parts, then squeeze.
pub(crate) struct Sponge<S: Simd> {
    state: [u64; 25],
    rate: usize,
    pos: usize,
    _simd: PhantomData<S>,
}

impl<S: Simd> Sponge<S> {
    #[inline(always)]
    fn new(rate: usize) -> Self {
        Sponge {
            state: [0; 25],
            rate,
            pos: 0,
            _simd: PhantomData,
        }
    }

    /// Absorbs `data`: whole lanes where aligned, single bytes at the edges.
    #[inline(always)]
    fn absorb(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            if self.pos == 0 && data.len() >= self.rate {
                // A whole block, lane by lane: no per-word alignment and length tests
                // (H(ek) and J(z || c) absorb kilobytes).
                let (block, rest) = data.split_at(self.rate);
                xor_block(&mut self.state, block);
                S::keccak_f1600(&mut self.state);
                data = rest;
            } else if self.pos.is_multiple_of(8) && data.len() >= 8 {
                let word = u64::from_le_bytes(data[..8].try_into().expect("8 bytes"));
                self.state[self.pos / 8] ^= word;
                self.pos += 8;
                data = &data[8..];
            } else {
                xor_byte(&mut self.state, self.pos, data[0]);
                self.pos += 1;
                data = &data[1..];
            }
            if self.pos == self.rate {
                S::keccak_f1600(&mut self.state);
                self.pos = 0;
            }
        }
    }

    #[inline(always)]
    fn finish(&mut self, domain: u8) {
        xor_byte(&mut self.state, self.pos, domain);
        xor_byte(&mut self.state, self.rate - 1, 0x80);
        S::keccak_f1600(&mut self.state);
        self.pos = 0;
    }

    /// Squeezes into `out`: whole lanes where aligned, single bytes at the edges.
    #[inline(always)]
    pub(crate) fn squeeze(&mut self, mut out: &mut [u8]) {
        while !out.is_empty() {
            if self.pos == self.rate {
                S::keccak_f1600(&mut self.state);
                self.pos = 0;
            }
            if self.pos.is_multiple_of(8) && out.len() >= 8 {
                out[..8].copy_from_slice(&self.state[self.pos / 8].to_le_bytes());
                self.pos += 8;
                out = &mut out[8..];
            } else {
                out[0] = get_byte(&self.state, self.pos);
                self.pos += 1;
                out = &mut out[1..];
            }
        }
    }
}

impl<S: Simd> Drop for Sponge<S> {
    fn drop(&mut self) {
        self.state.zeroize();
    }
}

#[inline(always)]
fn hash<S: Simd>(rate: usize, domain: u8, parts: &[&[u8]], out: &mut [u8]) {
    let mut sponge = Sponge::<S>::new(rate);
    for part in parts {
        sponge.absorb(part);
    }
    sponge.finish(domain);
    sponge.squeeze(out);
}

/// SHAKE128 (rate 168) or SHAKE256 (rate 136) of `input`, ready to squeeze.
#[inline(always)]
pub(crate) fn shake<S: Simd>(rate: usize, input: &[u8]) -> Sponge<S> {
    let mut sponge = Sponge::<S>::new(rate);
    sponge.absorb(input);
    sponge.finish(SHAKE_DOMAIN);
    sponge
}

/// SHA3-256 of the concatenation of `parts` (ML-KEM's H).
#[inline(always)]
pub(crate) fn sha3_256<S: Simd>(parts: &[&[u8]]) -> [u8; 32] {
    let mut out = [0; 32];
    hash::<S>(SHA3_256_RATE, SHA3_DOMAIN, parts, &mut out);
    out
}

/// SHA3-512 of the concatenation of `parts` (ML-KEM's G).
#[inline(always)]
pub(crate) fn sha3_512<S: Simd>(parts: &[&[u8]]) -> [u8; 64] {
    let mut out = [0; 64];
    hash::<S>(SHA3_512_RATE, SHA3_DOMAIN, parts, &mut out);
    out
}

/// SHAKE256 of the concatenation of `parts` (ML-KEM's J).
#[inline(always)]
pub(crate) fn shake256<S: Simd>(parts: &[&[u8]], out: &mut [u8]) {
    hash::<S>(SHAKE256_RATE, SHAKE_DOMAIN, parts, out);
}

/// The permutation of `W` interleaved states, by the width's method of the implementation.
pub(crate) trait Permute<S: Simd> {
    fn permute(&mut self);
    /// [`Simd::keccak_f1600_x4_out2`] or its eight-way form: lanes 17 to 24 taken as zero,
    /// only lanes 0 and 1 meaningful afterwards.
    fn permute_out2(&mut self);
    /// [`Simd::keccak_x4_extract`] or its eight-way form (`out` has one entry per state).
    fn extract(&self, lanes: usize, out: &mut [&mut [u8]]);
}

impl<S: Simd> Permute<S> for KeccakX2 {
    #[inline(always)]
    fn permute(&mut self) {
        S::keccak_f1600_x2(self)
    }
    #[inline(always)]
    fn permute_out2(&mut self) {
        self.lanes[17..].fill([0; 2]);
        S::keccak_f1600_x2(self)
    }
    #[inline(always)]
    fn extract(&self, lanes: usize, out: &mut [&mut [u8]]) {
        let out: &mut [&mut [u8]; 2] = out.try_into().expect("two outputs for two states");
        extract_lanes(self, lanes, out.each_mut().map(|o| &mut **o))
    }
}

impl<S: Simd> Permute<S> for KeccakX4 {
    #[inline(always)]
    fn permute(&mut self) {
        S::keccak_f1600_x4(self)
    }
    #[inline(always)]
    fn permute_out2(&mut self) {
        S::keccak_f1600_x4_out2(self)
    }
    #[inline(always)]
    fn extract(&self, lanes: usize, out: &mut [&mut [u8]]) {
        match out {
            [a, b, c, d] => S::keccak_x4_extract(self, lanes, [a, b, c, d]),
            _ => unreachable!("four outputs for four states"),
        }
    }
}

impl<S: Simd> Permute<S> for KeccakX8 {
    #[inline(always)]
    fn permute(&mut self) {
        S::keccak_f1600_x8(self)
    }
    #[inline(always)]
    fn permute_out2(&mut self) {
        S::keccak_f1600_x8_out2(self)
    }
    #[inline(always)]
    fn extract(&self, lanes: usize, out: &mut [&mut [u8]]) {
        let out: &mut [&mut [u8]; 8] = out.try_into().expect("eight outputs for eight states");
        extract_lanes(self, lanes, out.each_mut().map(|o| &mut **o))
    }
}

/// A rate-136 hash (SHAKE256 or SHA3-256) of a long input, absorbed one block per
/// permutation of a four-way sponge whose lane 3 is spare ([`ShakeX4::squeeze_blocks_riding`]):
/// J(z ‖ c) in ML-KEM-768's decapsulation, H(ek) in key generation while the rows of t̂ are
/// still being computed, ML-DSA's tr = H(pk) in key generation once most rows of t are known.
/// The input may arrive in parts ([`RidingSponge::push`]); a block boards once it is whole.
/// Whatever is left when the rides end is absorbed by [`RidingSponge::finish`].
pub(crate) struct RidingSponge {
    state: [u64; 25],
    /// The input so far, with the padding once sealed (secret for J: z).
    padded: [u8; RIDING_MAX],
    len: usize,
    domain: u8,
    /// The number of blocks, once the padding is in.
    sealed: Option<usize>,
    next: usize,
}

/// Work that takes single-state permutations in a four-way sponge's spare lane
/// ([`ShakeX4::squeeze_blocks_riding`]).
pub(crate) trait Rider {
    /// Writes the next state to permute into `lane` and returns true, or returns false when
    /// it has nothing more to permute.
    fn board(&mut self, lane: &mut [u64; 25]) -> bool;
    /// Takes back the state it boarded, permuted.
    fn alight(&mut self, lane: &[u64; 25]);
}

/// No rider: the type for a call that lends no lane.
pub(crate) enum NoRider {}

impl Rider for NoRider {
    fn board(&mut self, _: &mut [u64; 25]) -> bool {
        match *self {}
    }
    fn alight(&mut self, _: &[u64; 25]) {
        match *self {}
    }
}

/// Two riders, the first until it has nothing more to permute.
pub(crate) struct Chain<'a, A: Rider, B: Rider>(&'a mut A, &'a mut B, bool);

impl<'a, A: Rider, B: Rider> Chain<'a, A, B> {
    pub(crate) fn new(a: &'a mut A, b: &'a mut B) -> Self {
        Chain(a, b, true)
    }
}

impl<A: Rider, B: Rider> Rider for Chain<'_, A, B> {
    fn board(&mut self, lane: &mut [u64; 25]) -> bool {
        self.2 = self.0.board(lane);
        self.2 || self.1.board(lane)
    }
    fn alight(&mut self, lane: &[u64; 25]) {
        if self.2 {
            self.0.alight(lane)
        } else {
            self.1.alight(lane)
        }
    }
}

/// Room for ML-DSA-65's pk (1952 bytes) padded: fifteen blocks (z ‖ c of ML-KEM-1024, 1600
/// bytes, takes twelve).
const RIDING_MAX: usize = 15 * SHAKE256_RATE;

impl RidingSponge {
    /// SHAKE256 of the concatenation of `parts` (at most `RIDING_MAX` - 1 bytes), to come.
    pub(crate) fn shake256(parts: &[&[u8]]) -> Self {
        let mut sponge = Self::new(SHAKE_DOMAIN);
        for part in parts {
            sponge.push(part);
        }
        sponge.seal();
        sponge
    }

    /// SHA3-256 of what [`RidingSponge::push`] appends, to come.
    pub(crate) fn sha3_256() -> Self {
        Self::new(SHA3_DOMAIN)
    }

    /// SHAKE256 of what [`RidingSponge::push`] appends, to come.
    pub(crate) fn shake256_open() -> Self {
        Self::new(SHAKE_DOMAIN)
    }

    fn new(domain: u8) -> Self {
        RidingSponge {
            state: [0; 25],
            padded: [0; RIDING_MAX],
            len: 0,
            domain,
            sealed: None,
            next: 0,
        }
    }

    /// Appends `part` to the input (not after [`RidingSponge::finish`]).
    pub(crate) fn push(&mut self, part: &[u8]) {
        debug_assert!(self.sealed.is_none() && self.len + part.len() < RIDING_MAX);
        self.padded[self.len..self.len + part.len()].copy_from_slice(part);
        self.len += part.len();
    }

    /// Ends the input: the padding goes in and the last blocks become whole.
    fn seal(&mut self) {
        if self.sealed.is_none() {
            let blocks = self.len / SHAKE256_RATE + 1;
            self.padded[self.len] ^= self.domain;
            self.padded[blocks * SHAKE256_RATE - 1] ^= 0x80;
            self.sealed = Some(blocks);
        }
    }

    /// Whether a whole block is waiting to be absorbed.
    fn pending(&self) -> bool {
        self.next < self.sealed.unwrap_or(self.len / SHAKE256_RATE)
    }

    /// XORs the next block into the state (the permutation follows, in whoever's lane).
    fn absorb_next(&mut self) {
        let block = &self.padded[self.next * SHAKE256_RATE..(self.next + 1) * SHAKE256_RATE];
        xor_block(&mut self.state, block);
        self.next += 1;
    }

    /// The first `out.len()` bytes of output (a multiple of 8, at most a block), after the
    /// input's end: absorbs what the rides left on a single state.
    pub(crate) fn finish<S: Simd>(&mut self, out: &mut [u8]) {
        debug_assert!(out.len().is_multiple_of(8) && out.len() <= SHAKE256_RATE);
        self.seal();
        while self.pending() {
            self.absorb_next();
            S::keccak_f1600(&mut self.state);
        }
        for (o, lane) in out.chunks_exact_mut(8).zip(&self.state) {
            o.copy_from_slice(&lane.to_le_bytes());
        }
    }
}

impl Rider for RidingSponge {
    fn board(&mut self, lane: &mut [u64; 25]) -> bool {
        if !self.pending() {
            return false;
        }
        self.absorb_next();
        *lane = self.state;
        true
    }
    fn alight(&mut self, lane: &[u64; 25]) {
        self.state = *lane;
    }
}

impl Drop for RidingSponge {
    fn drop(&mut self) {
        self.state.zeroize();
        // 2 040 bytes: plain stores, not Zeroize's one volatile store per byte.
        crate::simd::wipe_bytes(&mut self.padded);
    }
}

/// `W` SHAKE sponges that each absorb one short input (less than a block) and are then
/// squeezed a block at a time, all `W` per permutation.
pub(crate) struct ShakeLanes<S: Simd, const W: usize>
where
    KeccakLanes<W>: Permute<S>,
{
    state: KeccakLanes<W>,
    rate: usize,
    _simd: PhantomData<S>,
}

/// Four sponges (every implementation has a four-way Keccak).
pub(crate) type ShakeX4<S> = ShakeLanes<S, 4>;

impl<S: Simd, const W: usize> ShakeLanes<S, W>
where
    KeccakLanes<W>: Permute<S>,
{
    /// SHAKE128 (rate 168) or SHAKE256 (rate 136) of `W` inputs, each shorter than the rate.
    #[inline(always)]
    pub(crate) fn absorb(rate: usize, inputs: [&[u8]; W]) -> Self {
        let mut state = KeccakLanes::<W>::ZERO;
        for (j, input) in inputs.iter().enumerate() {
            absorb_short(rate, input, |i, w| state.lanes[i][j] ^= w);
        }
        ShakeLanes {
            state,
            rate,
            _simd: PhantomData,
        }
    }

    /// Squeezes `out[j].len() / rate` blocks into each output (all the same length).
    #[inline(always)]
    pub(crate) fn squeeze_blocks(&mut self, mut out: [&mut [u8]; W]) {
        let blocks = out[0].len() / self.rate;
        for block in 0..blocks {
            self.state.permute();
            self.extract_block(block, &mut out);
        }
    }

    /// The state's output block into block number `block` of each output.
    #[inline(always)]
    fn extract_block(&self, block: usize, out: &mut [&mut [u8]; W]) {
        let range = block * self.rate..(block + 1) * self.rate;
        self.state.extract(
            self.rate / 8,
            &mut out.each_mut().map(|o| &mut o[range.clone()]),
        );
    }
}

impl<S: Simd> ShakeX4<S> {
    /// [`ShakeLanes::squeeze_blocks`] with lane 3 lent to `rider` for each permutation while
    /// it has something to permute: lane 3's own output (`out[3]`) is then meaningless.
    #[inline(always)]
    pub(crate) fn squeeze_blocks_riding(
        &mut self,
        mut out: [&mut [u8]; 4],
        rider: &mut impl Rider,
    ) {
        let blocks = out[0].len() / self.rate;
        let mut seat = [0u64; 25];
        for block in 0..blocks {
            let ride = rider.board(&mut seat);
            if ride {
                for (lane, &r) in self.state.lanes.iter_mut().zip(&seat) {
                    lane[3] = r;
                }
            }
            Permute::<S>::permute(&mut self.state);
            if ride {
                for (r, lane) in seat.iter_mut().zip(&self.state.lanes) {
                    *r = lane[3];
                }
                rider.alight(&seat);
            }
            self.extract_block(block, &mut out);
        }
        // The seat held secret states (z ‖ c, noise seeds).
        seat.zeroize();
    }
}

impl<S: Simd, const W: usize> Drop for ShakeLanes<S, W>
where
    KeccakLanes<W>: Permute<S>,
{
    fn drop(&mut self) {
        self.state.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::{available, run, with_implementation};
    use sha3::Digest as _;
    use sha3::digest::{ExtendableOutput, Update, XofReader};

    /// The out2 permutations (one block absorbed, lanes 0 and 1 read) give the lanes of the
    /// whole portable permutation, on every implementation, one, four and eight at a time.
    #[test]
    fn out2_permutations_match_the_whole_permutation() {
        use crate::portable::keccak::keccak_f1600 as reference;
        let mut rng = crate::conformance::Rng::new(0x0b10c);
        for imp in available() {
            with_implementation(imp, || {
                for _ in 0..20 {
                    let mut one = [0u64; 25];
                    one[..17].iter_mut().for_each(|l| *l = rng.next());
                    let mut x4 = KeccakX4::ZERO;
                    let mut x8 = KeccakX8::ZERO;
                    for i in 0..17 {
                        x4.lanes[i].iter_mut().for_each(|l| *l = rng.next());
                        x8.lanes[i].iter_mut().for_each(|l| *l = rng.next());
                    }
                    let (o1, o4, o8) = (one, x4.clone(), x8.clone());
                    run!(|S| {
                        S::keccak_f1600_out2(&mut one);
                        S::keccak_f1600_x4_out2(&mut x4);
                        S::keccak_f1600_x8_out2(&mut x8);
                    });
                    let mut want = o1;
                    reference(&mut want);
                    assert_eq!(one[..2], want[..2], "{imp:?} x1");
                    let whole = |lane: &dyn Fn(usize) -> u64| {
                        let mut st: [u64; 25] = core::array::from_fn(lane);
                        reference(&mut st);
                        [st[0], st[1]]
                    };
                    for j in 0..4 {
                        let want = whole(&|i| o4.lanes[i][j]);
                        assert_eq!([x4.lanes[0][j], x4.lanes[1][j]], want, "{imp:?} x4");
                    }
                    for j in 0..8 {
                        let want = whole(&|i| o8.lanes[i][j]);
                        assert_eq!([x8.lanes[0][j], x8.lanes[1][j]], want, "{imp:?} x8");
                    }
                }
            });
        }
    }

    /// Every sponge against the `sha3` and `shake` crates, for input lengths across block
    /// boundaries and in two parts, on every implementation.
    #[test]
    fn sponges_match_fips202_crates() {
        let data: Vec<u8> = (0..700u32).map(|i| (i * 7 + 3) as u8).collect();
        for imp in available() {
            with_implementation(imp, || {
                for len in (0..300).chain([407, 543, 680]) {
                    let input = &data[..len];
                    let (a, b) = input.split_at(len / 3);
                    let ours = run!(|S| sha3_256::<S>(&[a, b]));
                    assert_eq!(ours[..], sha3::Sha3_256::digest(input)[..], "{imp:?} {len}");
                    let ours = run!(|S| sha3_512::<S>(&[a, b]));
                    assert_eq!(ours[..], sha3::Sha3_512::digest(input)[..], "{imp:?} {len}");

                    let mut ours = [0u8; 300];
                    run!(|S| shake256::<S>(&[a, b], &mut ours));
                    let mut theirs = [0u8; 300];
                    let mut h = shake::Shake256::default();
                    h.update(input);
                    h.finalize_xof().read(&mut theirs);
                    assert_eq!(ours, theirs, "{imp:?} shake256 {len}");
                }
                for rate in [SHAKE128_RATE, SHAKE256_RATE] {
                    let inputs: [&[u8]; 4] = [&data[..34], &data[1..35], &data[2..35], &data[..0]];
                    let mut out = [[0u8; 2 * SHAKE128_RATE]; 4];
                    let n = 2 * rate;
                    run!(|S| {
                        let mut x = ShakeX4::<S>::absorb(rate, inputs);
                        let [o0, o1, o2, o3] = &mut out;
                        x.squeeze_blocks([&mut o0[..n], &mut o1[..n], &mut o2[..n], &mut o3[..n]]);
                    });
                    for (input, o) in inputs.iter().zip(&out) {
                        let mut theirs = vec![0u8; n];
                        if rate == SHAKE128_RATE {
                            let mut h = shake::Shake128::default();
                            h.update(input);
                            h.finalize_xof().read(&mut theirs);
                        } else {
                            let mut h = shake::Shake256::default();
                            h.update(input);
                            h.finalize_xof().read(&mut theirs);
                        }
                        assert_eq!(&o[..n], &theirs[..], "{imp:?} x4 rate {rate}");
                    }
                }
            });
        }
    }

    /// The riding sponge, its input pushed in parts between rides, gives SHA3-256 and SHAKE256
    /// on every implementation, whether its blocks ride in a four-way sponge's lane 3 or are
    /// left to `finish`; the other three lanes squeeze what they would have without a rider.
    #[test]
    fn riding_sponge_matches_fips202_crates() {
        let data: Vec<u8> = (0..2039u32).map(|i| (i * 13 + 5) as u8).collect();
        for imp in available() {
            with_implementation(imp, || {
                for len in [0, 1, 135, 136, 137, 271, 272, 384, 1184, 1568, 1952, 2039] {
                    let input = &data[..len];
                    for rides in [0usize, 1, 3, 20] {
                        let (hash, lanes, alone) = run!(|S| {
                            let mut h = RidingSponge::sha3_256();
                            let seeds: [&[u8]; 4] = [b"a", b"bc", b"def", b"unused"];
                            let mut lanes = [[0u8; 2 * SHAKE128_RATE]; 4];
                            let mut alone = [[0u8; 2 * SHAKE128_RATE]; 4];
                            let mut x = ShakeX4::<S>::absorb(SHAKE128_RATE, seeds);
                            let mut y = ShakeX4::<S>::absorb(SHAKE128_RATE, seeds);
                            // A third of the input, then rides, then the rest, then more rides.
                            h.push(&input[..len / 3]);
                            for r in 0..rides {
                                let [a, b, c, d] = &mut lanes;
                                let n = (r % 2 + 1) * SHAKE128_RATE;
                                if r == 0 {
                                    x.squeeze_blocks_riding(
                                        [&mut a[..n], &mut b[..n], &mut c[..n], &mut d[..n]],
                                        &mut h,
                                    );
                                    let [a, b, c, d] = &mut alone;
                                    y.squeeze_blocks([
                                        &mut a[..n],
                                        &mut b[..n],
                                        &mut c[..n],
                                        &mut d[..n],
                                    ]);
                                } else {
                                    let mut more = [[0u8; 2 * SHAKE128_RATE]; 4];
                                    let [a, b, c, d] = &mut more;
                                    x.squeeze_blocks_riding(
                                        [&mut a[..n], &mut b[..n], &mut c[..n], &mut d[..n]],
                                        &mut h,
                                    );
                                }
                                if r == rides / 2 {
                                    h.push(&input[len / 3..]);
                                }
                            }
                            if rides == 0 {
                                h.push(&input[len / 3..]);
                            }
                            let mut out = [0u8; 32];
                            h.finish::<S>(&mut out);
                            (out, lanes, alone)
                        });
                        assert_eq!(
                            hash[..],
                            sha3::Sha3_256::digest(input)[..],
                            "{imp:?} {len} {rides}"
                        );
                        if rides > 0 {
                            let n = SHAKE128_RATE;
                            for l in 0..3 {
                                assert_eq!(lanes[l][..n], alone[l][..n], "{imp:?} lane {l}");
                            }
                        }
                    }
                    let parts: [&[u8]; 2] = [&input[..len.min(32)], &input[len.min(32)..]];
                    let ours = run!(|S| {
                        let mut j = RidingSponge::shake256(&parts);
                        let mut out = [0u8; 32];
                        j.finish::<S>(&mut out);
                        out
                    });
                    let mut theirs = [0u8; 64];
                    let mut h = shake::Shake256::default();
                    h.update(input);
                    h.finalize_xof().read(&mut theirs);
                    assert_eq!(ours[..], theirs[..32], "{imp:?} shake256 {len}");
                    // Pushed in two parts, 64 bytes out (ML-DSA's tr).
                    let open = run!(|S| {
                        let mut h = RidingSponge::shake256_open();
                        h.push(parts[0]);
                        h.push(parts[1]);
                        let mut out = [0u8; 64];
                        h.finish::<S>(&mut out);
                        out
                    });
                    assert_eq!(open, theirs, "{imp:?} shake256 open {len}");
                }
            });
        }
    }
}
