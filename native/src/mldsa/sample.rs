//! ExpandA, ExpandS and ExpandMask, four or eight polynomials per batched Keccak call, and
//! SampleInBall (FIPS 204 section 7.3).

use super::ops::{DsaPoly, DsaSimd, N, Z_BYTES};
use super::params::{K, L, TAU};
use crate::keccak::{NoRider, Permute, Rider, SHAKE128_RATE, SHAKE256_RATE, ShakeLanes, shake};
use crate::simd::{KeccakLanes, wipe_bytes};
use core::ops::Range;
use zeroize::Zeroize;

/// Five SHAKE128 blocks (840 bytes) give 256 coefficients of A but with probability about
/// 2^-150 short; ExpandS's two SHAKE256 blocks (544 half-bytes, 306 expected accepted) are
/// short about once in 10^5 polynomials. Either way one more block at a time follows.
const MATRIX_BLOCKS: usize = 5;
const ETA_BLOCKS: usize = 2;
const MAX_FIRST: usize = MATRIX_BLOCKS * SHAKE128_RATE;
/// ExpandMask takes 640 bytes per polynomial: five SHAKE256 blocks.
const MASK_BYTES: usize = Z_BYTES.div_ceil(SHAKE256_RATE) * SHAKE256_RATE;

/// Splits polynomials 0..n into consecutive batches for the multi-way sponges: up to eight
/// where the implementation has a native eight-way Keccak and more than four remain (one
/// eight-way permutation costs less than two four-way ones), else up to four.
fn batches<S: DsaSimd>(n: usize, mut f: impl FnMut(Range<usize>)) {
    let mut start = 0;
    while start < n {
        let width = if S::KECCAK_X8 && n - start > 4 { 8 } else { 4 };
        let end = n.min(start + width);
        f(start..end);
        start = end;
    }
}

/// One rejection sampler over SHAKE (rate `rate`) of each of `inputs`, into the polynomials
/// `out` (as many, at most eight). `first` blocks are squeezed at once, then one block at a
/// time while any polynomial is short. With `SECRET` (ExpandS) the buffers are wiped; ExpandA's
/// output is public and is not. A four-way batch of at most three lends lane 3 to `rider`
/// for its first blocks; elsewhere the rider is not taken.
fn rejection<S: DsaSimd, const SECRET: bool, R: Rider>(
    rate: usize,
    first: usize,
    inputs: &[impl AsRef<[u8]>],
    out: &mut [DsaPoly],
    rej: impl Fn(&mut DsaPoly, usize, &[u8]) -> usize,
    rider: Option<&mut R>,
) {
    debug_assert!(inputs.len() == out.len());
    match (out, rider) {
        ([poly], None) => {
            // A lone polynomial: one scalar sponge, not a four-way one with lanes wasted.
            let mut buf = [0u8; MAX_FIRST];
            let mut xof = shake::<S>(rate, inputs[0].as_ref());
            xof.squeeze(&mut buf[..first * rate]);
            let mut filled = rej(poly, 0, &buf[..first * rate]);
            while filled < N {
                xof.squeeze(&mut buf[..rate]);
                filled = rej(poly, filled, &buf[..rate]);
            }
            if SECRET {
                wipe_bytes(&mut buf);
            }
        }
        // Two on a native two-way permutation (NEON), not on four lanes with two idle (with
        // a rider in one of them it would cost as much as the rider's own permutations).
        (out @ [_, _], _) if S::KECCAK_X2 => {
            rejection_lanes::<S, 2, SECRET>(rate, first, inputs, out, rej, |x, b| {
                x.squeeze_blocks(b)
            })
        }
        (out, Some(r)) if lends_lane::<S>(out.len()) => {
            rejection_lanes::<S, 4, SECRET>(rate, first, inputs, out, rej, |x, b| {
                x.squeeze_blocks_riding(b, r)
            })
        }
        (out, _) if out.len() <= 4 => {
            rejection_lanes::<S, 4, SECRET>(rate, first, inputs, out, rej, |x, b| {
                x.squeeze_blocks(b)
            })
        }
        (out, _) => rejection_lanes::<S, 8, SECRET>(rate, first, inputs, out, rej, |x, b| {
            x.squeeze_blocks(b)
        }),
    }
}

/// [`rejection`] on a `W`-way sponge, its first blocks by `squeeze_first`; a short batch
/// repeats its first input in the spare lanes, whose output is discarded.
fn rejection_lanes<S: DsaSimd, const W: usize, const SECRET: bool>(
    rate: usize,
    first: usize,
    inputs: &[impl AsRef<[u8]>],
    out: &mut [DsaPoly],
    rej: impl Fn(&mut DsaPoly, usize, &[u8]) -> usize,
    squeeze_first: impl FnOnce(&mut ShakeLanes<S, W>, [&mut [u8]; W]),
) where
    KeccakLanes<W>: Permute<S>,
{
    debug_assert!(out.len() <= W);
    let mut buf = [[0u8; MAX_FIRST]; W];
    let mut xof = ShakeLanes::<S, W>::absorb(
        rate,
        core::array::from_fn(|l| inputs[l.min(inputs.len() - 1)].as_ref()),
    );
    let n = first * rate;
    squeeze_first(&mut xof, buf.each_mut().map(|b| &mut b[..n]));
    let mut filled = [0usize; W];
    for (l, poly) in out.iter_mut().enumerate() {
        filled[l] = rej(poly, 0, &buf[l][..n]);
    }
    while filled[..out.len()].iter().any(|&f| f < N) {
        xof.squeeze_blocks(buf.each_mut().map(|b| &mut b[..rate]));
        for (l, poly) in out.iter_mut().enumerate() {
            filled[l] = rej(poly, filled[l], &buf[l][..rate]);
        }
    }
    if SECRET {
        buf.iter_mut().for_each(|b| wipe_bytes(b));
    }
}

/// ExpandA(ρ): `a[r·L + s]` = RejNTTPoly(ρ || s || r), in the implementation's NTT order.
pub(crate) fn expand_a<S: DsaSimd>(rho: &[u8; 32], a: &mut [DsaPoly; K * L]) {
    matrix_batches::<S>(|r| matrix_entries::<S, NoRider>(rho, r.clone(), &mut a[r], None));
}

/// ExpandA's batches in order: the ranges of entries (r·L + s) sampled together.
pub(crate) fn matrix_batches<S: DsaSimd>(f: impl FnMut(Range<usize>)) {
    batches::<S>(K * L, f)
}

/// Whether [`rejection`] lends a rider lane 3 of a batch of `n`: a four-way batch of at most
/// three, unless two go on a native two-way Keccak.
fn lends_lane<S: DsaSimd>(n: usize) -> bool {
    n <= 3 && !(n == 2 && S::KECCAK_X2)
}

/// Whether some batch of [`matrix_batches`] lends [`matrix_entries`]'s rider a lane (for
/// ML-DSA-65's 30 entries: the last two, where the Keccak is four-way only).
pub(crate) fn matrix_lends_lane<S: DsaSimd>() -> bool {
    let mut lends = false;
    matrix_batches::<S>(|r| lends |= lends_lane::<S>(r.len()));
    lends
}

/// Entries `range` (one batch of [`matrix_batches`]) of ExpandA(ρ) into `out`, in the
/// implementation's NTT order. A batch that leaves a four-way sponge's lane spare lends it
/// to `rider` (ML-DSA-65's last batch, two entries, on implementations without a two-way
/// Keccak).
pub(crate) fn matrix_entries<S: DsaSimd, R: Rider>(
    rho: &[u8; 32],
    range: Range<usize>,
    out: &mut [DsaPoly],
    rider: Option<&mut R>,
) {
    debug_assert!(out.len() == range.len() && range.len() <= 8);
    let mut seeds = [[0u8; 34]; 8];
    for (s, idx) in seeds.iter_mut().zip(range) {
        s[..32].copy_from_slice(rho);
        s[32] = (idx % L) as u8;
        s[33] = (idx / L) as u8;
    }
    let n = out.len();
    rejection::<S, false, R>(
        SHAKE128_RATE,
        MATRIX_BLOCKS,
        &seeds[..n],
        out,
        S::dsa_rej_uniform,
        rider,
    );
    for poly in out.iter_mut() {
        S::dsa_ntt_unpack(poly);
    }
}

/// ExpandS(ρ'): `s[r]` = RejBoundedPoly(ρ' || r as 2 bytes) for r in 0..L+K; s1 = s[..L],
/// s2 = s[L..].
///
/// Not inlined: inlined into key generation it cost aarch64 1.7 k instructions more.
#[inline(never)]
pub(crate) fn expand_s<S: DsaSimd>(rho_prime: &[u8; 64], s: &mut [DsaPoly; L + K]) {
    let mut seeds: [[u8; 66]; L + K] = core::array::from_fn(|r| {
        let mut x = [0u8; 66];
        x[..64].copy_from_slice(rho_prime);
        x[64..].copy_from_slice(&(r as u16).to_le_bytes());
        x
    });
    batches::<S>(L + K, |r| {
        rejection::<S, true, NoRider>(
            SHAKE256_RATE,
            ETA_BLOCKS,
            &seeds[r.clone()],
            &mut s[r],
            S::dsa_rej_eta,
            None,
        )
    });
    wipe_bytes(seeds.as_flattened_mut());
}

/// ExpandMask(ρ'', κ) for κ = 0, L, 2L, … in turn: polynomial n of the stream is
/// BitUnpack(H(ρ'' || n as 2 bytes, 640 bytes)), and each attempt of the signing loop takes
/// the next L. They are made a whole batch at a time (four, or eight with a native eight-way
/// Keccak) across attempts, so no attempt leaves a lone fifth polynomial on one state; the
/// polynomials the final attempt did not take are wiped unused.
pub(crate) struct MaskStream<'a, S: DsaSimd> {
    rho_pp: &'a [u8; 64],
    /// The nonce of `ready[0]`.
    nonce: u16,
    ready: [DsaPoly; 8],
    used: usize,
    _simd: core::marker::PhantomData<S>,
}

impl<'a, S: DsaSimd> MaskStream<'a, S> {
    pub(crate) fn new(rho_pp: &'a [u8; 64]) -> Self {
        let width = Self::width() as u16;
        MaskStream {
            rho_pp,
            // So that the first take starts a batch at nonce 0.
            nonce: 0u16.wrapping_sub(width),
            ready: core::array::from_fn(|_| DsaPoly::ZERO),
            used: Self::width(),
            _simd: core::marker::PhantomData,
        }
    }

    fn width() -> usize {
        if S::KECCAK_X8 { 8 } else { 4 }
    }

    /// The next attempt's y (ExpandMask(ρ'', κ) for the next κ).
    pub(crate) fn take(&mut self, y: &mut [DsaPoly; L]) {
        let width = Self::width();
        for poly in y.iter_mut() {
            if self.used == width {
                self.nonce = self.nonce.wrapping_add(width as u16);
                let mut seeds = [[0u8; 66]; 8];
                for (r, x) in seeds[..width].iter_mut().enumerate() {
                    x[..64].copy_from_slice(self.rho_pp);
                    x[64..].copy_from_slice(&self.nonce.wrapping_add(r as u16).to_le_bytes());
                }
                if width == 8 {
                    mask_lanes::<S, 8>(&seeds, &mut self.ready);
                } else {
                    mask_lanes::<S, 4>(&seeds[..4], &mut self.ready[..4]);
                }
                wipe_bytes(seeds[..width].as_flattened_mut());
                self.used = 0;
            }
            poly.clone_from(&self.ready[self.used]);
            self.used += 1;
        }
    }
}

impl<S: DsaSimd> Drop for MaskStream<'_, S> {
    fn drop(&mut self) {
        self.ready.zeroize();
    }
}

/// ExpandMask's polynomials for up to `W` seeds on a `W`-way sponge.
fn mask_lanes<S: DsaSimd, const W: usize>(seeds: &[[u8; 66]], y: &mut [DsaPoly])
where
    KeccakLanes<W>: Permute<S>,
{
    let mut buf = [[0u8; MASK_BYTES]; W];
    let mut xof = ShakeLanes::<S, W>::absorb(
        SHAKE256_RATE,
        core::array::from_fn(|l| &seeds[l.min(seeds.len() - 1)][..]),
    );
    xof.squeeze_blocks(buf.each_mut().map(|b| &mut b[..]));
    for (poly, b) in y.iter_mut().zip(&buf) {
        S::dsa_unpack_z(poly, b[..Z_BYTES].try_into().expect("640 bytes"));
    }
    buf.iter_mut().for_each(|b| wipe_bytes(b));
}

/// SampleInBall(c̃): τ coefficients ±1, the rest 0. The positions j come from the XOF by
/// rejection (j <= i). The c̃ of a rejected attempt is secret, so no memory address may depend
/// on j: c is built as two 256-bit masks (which coefficients are nonzero, which of those are
/// −1), where "move c[j] to c[i], then set c[j] = ±1" is a few word operations selected by
/// masks and shifts by j (constant-time on the CPUs we target), then expanded to coefficients.
#[inline(always)]
pub(crate) fn sample_in_ball<S: DsaSimd>(c: &mut DsaPoly, ctilde: &[u8]) {
    let mut xof = shake::<S>(SHAKE256_RATE, ctilde);
    let mut block = [0u8; SHAKE256_RATE];
    xof.squeeze(&mut block);
    let mut signs = u64::from_le_bytes(block[..8].try_into().expect("8 bytes"));
    let mut pos = 8;
    let (mut nonzero, mut negative) = ([0u64; N / 64], [0u64; N / 64]);
    for i in N - TAU..N {
        let j = loop {
            if pos == SHAKE256_RATE {
                xof.squeeze(&mut block);
                pos = 0;
            }
            let j = block[pos] as usize;
            pos += 1;
            if j <= i {
                break j;
            }
        };
        let (word, bit) = (j / 64, j % 64);
        // c[i] = c[j]: position i (public) is still zero, so OR the bits of position j in.
        let (mut was_nonzero, mut was_negative) = (0, 0);
        for w in 0..N / 64 {
            let m = eq_mask(w, word) as i64 as u64;
            was_nonzero |= (nonzero[w] >> bit) & 1 & m;
            was_negative |= (negative[w] >> bit) & 1 & m;
        }
        nonzero[i / 64] |= was_nonzero << (i % 64);
        negative[i / 64] |= was_negative << (i % 64);
        // c[j] = (−1)^sign.
        let sign = 0u64.wrapping_sub(signs & 1);
        signs >>= 1;
        for w in 0..N / 64 {
            let m = (eq_mask(w, word) as i64 as u64) & (1 << bit);
            nonzero[w] |= m;
            negative[w] = (negative[w] & !m) | (sign & m);
        }
    }
    // A negative bit is only ever set where the nonzero bit is: c[k] = nonzero − 2·negative.
    for (k, x) in c.c.iter_mut().enumerate() {
        let nz = ((nonzero[k / 64] >> (k % 64)) & 1) as i32;
        let neg = ((negative[k / 64] >> (k % 64)) & 1) as i32;
        *x = nz - 2 * neg;
    }
    wipe_bytes(&mut block);
    nonzero.zeroize();
    negative.zeroize();
}

/// All ones when a == b, else zero, without a branch.
#[inline(always)]
fn eq_mask(a: usize, b: usize) -> i32 {
    let d = (a ^ b) as u32;
    // (d | -d) has its top bit set exactly when d != 0.
    (((d | d.wrapping_neg()) >> 31) as i32) - 1
}
