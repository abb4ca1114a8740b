//! The vector-operations trait that the ML-KEM algorithms are written over, and the data it
//! works on. One zero-sized type per implementation implements it: `portable::Portable`,
//! `avx2::Avx2`, `avx512::Avx512` (AVX2 polynomial code, AVX-512VL Keccak), `neon::Neon` and
//! `neon::NeonSha3` (NEON polynomial code, SHA-3 instruction Keccak).
//!
//! The operations work on whole polynomials (256 coefficients) so that each call does enough
//! work for a call to be cheap, and each SIMD implementation can keep its whole hot loop
//! inside one function compiled with its target features.
//!
//! # Conventions (those of the CRYSTALS-Kyber reference code)
//!
//! - Coefficients are `i16`, q = 3329, Montgomery factor R = 2^16.
//! - "Reduced" means |c| < q (any sign); serialisation and compression map to [0, q) themselves.
//! - The order of coefficients in the NTT domain belongs to the implementation: only
//!   [`Simd::ntt`], [`Simd::ntt_unpack`] and [`Simd::ntt_from_bytes`] create NTT-domain
//!   polynomials, only [`Simd::basemul_acc_montgomery`], [`Simd::invntt_tomont`] and
//!   [`Simd::ntt_to_bytes`] read them, and the bytes are always in the FIPS 203 order.
//!   Element-wise operations (add, sub, reduce, tomont) work in either domain.
//! - Nothing may branch on or index memory by a coefficient value, except
//!   [`Simd::rej_uniform`], whose input is public (the matrix seed).

use crate::dispatch::Implementation;
use zeroize::Zeroize;

pub(crate) const N: usize = 256;
pub(crate) const Q: i16 = 3329;

/// One polynomial, aligned for 256-bit loads.
#[derive(Clone)]
#[repr(C, align(32))]
pub(crate) struct Poly {
    pub(crate) c: [i16; N],
}

impl Poly {
    pub(crate) const ZERO: Poly = Poly { c: [0; N] };
}

/// `W` Keccak-f[1600] states, lane-interleaved: `lanes[i][j]` is lane i (x + 5y) of state j,
/// so lane i of all the states is one vector load (256 bits for four, 512 for eight).
#[derive(Clone)]
#[repr(C, align(64))]
pub(crate) struct KeccakLanes<const W: usize> {
    pub(crate) lanes: [[u64; W]; 25],
}

pub(crate) type KeccakX2 = KeccakLanes<2>;
pub(crate) type KeccakX4 = KeccakLanes<4>;
pub(crate) type KeccakX8 = KeccakLanes<8>;

impl<const W: usize> KeccakLanes<W> {
    pub(crate) const ZERO: Self = KeccakLanes {
        lanes: [[0; W]; 25],
    };
}

/// Zeroization here is plain stores of the whole value followed by this: an opaque use
/// (`black_box`) that keeps the compiler from dropping the stores as dead, and a fence. The
/// derive would make one volatile store per coefficient, 256 per polynomial: about a sixth of
/// decapsulation; `Zeroize` for `[u8]` one per byte. (A single volatile store of the whole
/// value would need `unsafe`, which this crate keeps for SIMD intrinsics.)
pub(crate) fn keep_wiped<T: ?Sized>(wiped: &mut T) {
    core::hint::black_box(wiped);
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

impl Zeroize for Poly {
    fn zeroize(&mut self) {
        *self = Poly::ZERO;
        keep_wiped(self);
    }
}

impl<const W: usize> Zeroize for KeccakLanes<W> {
    fn zeroize(&mut self) {
        *self = Self::ZERO;
        keep_wiped(self);
    }
}

/// Zeroizes a byte buffer (the samplers wipe kilobytes of XOF output per call).
pub(crate) fn wipe_bytes(bytes: &mut [u8]) {
    bytes.fill(0);
    keep_wiped(bytes);
}

/// The lanes of `W` interleaved states to one byte string per state (see
/// [`Simd::keccak_x4_extract`]).
#[inline(always)]
pub(crate) fn extract_lanes<const W: usize>(
    state: &KeccakLanes<W>,
    lanes: usize,
    out: [&mut [u8]; W],
) {
    for (j, o) in out.into_iter().enumerate() {
        for (lane, word) in state.lanes[..lanes].iter().zip(o.chunks_exact_mut(8)) {
            word.copy_from_slice(&lane[j].to_le_bytes());
        }
    }
}

pub(crate) trait Simd: Copy + 'static {
    #[allow(dead_code)]
    const IMPLEMENTATION: Implementation;

    /// Keccak-f[1600] on one state (lane i = x + 5y, little-endian lanes as in FIPS 202).
    fn keccak_f1600(state: &mut [u64; 25]);

    /// Keccak-f[1600] on four independent states.
    fn keccak_f1600_x4(state: &mut KeccakX4);

    /// Whether [`Simd::keccak_f1600_x8`] is a native eight-way permutation (AVX-512: about
    /// one and a half four-way ones), so that samplers batch eight polynomials, not four.
    const KECCAK_X8: bool = false;

    /// Writes the first `lanes` lanes of each of the four states to `out[j]` (8 bytes per
    /// lane, little-endian; each `out[j]` is `8 · lanes` bytes): one squeezed block per state.
    fn keccak_x4_extract(state: &KeccakX4, lanes: usize, out: [&mut [u8]; 4]) {
        extract_lanes(state, lanes, out);
    }

    /// Whether [`Simd::keccak_f1600_x2`] is a native two-way permutation costing about half a
    /// four-way one (NEON, whose four-way permutation is two two-way ones), so that a
    /// sampler's batch of two polynomials runs on it rather than on four lanes, two idle.
    const KECCAK_X2: bool = false;

    /// Keccak-f[1600] on two independent states. The default runs the four-way permutation
    /// with the other two lanes idle.
    fn keccak_f1600_x2(state: &mut KeccakX2) {
        let mut four = KeccakX4::ZERO;
        for (d, s) in four.lanes.iter_mut().zip(&state.lanes) {
            d[..2].copy_from_slice(s);
        }
        Self::keccak_f1600_x4(&mut four);
        for (s, d) in state.lanes.iter_mut().zip(&four.lanes) {
            s.copy_from_slice(&d[..2]);
        }
        four.zeroize();
    }

    /// Keccak-f[1600] on eight independent states. The default runs the four-way permutation
    /// on each half.
    fn keccak_f1600_x8(state: &mut KeccakX8) {
        let mut four = KeccakX4::ZERO;
        for half in [0..4, 4..8] {
            for (d, s) in four.lanes.iter_mut().zip(&state.lanes) {
                d.copy_from_slice(&s[half.clone()]);
            }
            Self::keccak_f1600_x4(&mut four);
            for (s, d) in state.lanes.iter_mut().zip(&four.lanes) {
                s[half.clone()].copy_from_slice(d);
            }
        }
        four.zeroize();
    }

    /// Keccak-f[1600] of one block of SHAKE256 absorbed into the zero state (SLH-DSA's F, H
    /// and PRF): of the state whose lanes 0 to 16 are `state`'s and whose lanes 17 to 24 are
    /// zero (whatever `state` holds there), when only lanes 0 and 1 of the result are read.
    /// Afterwards lanes 0 and 1 hold the result and the others are unspecified, so an
    /// implementation may skip most of the last round. The default zeroes lanes 17 to 24 and
    /// runs the whole permutation.
    fn keccak_f1600_out2(state: &mut [u64; 25]) {
        state[17..].fill(0);
        Self::keccak_f1600(state)
    }

    /// [`Simd::keccak_f1600_out2`] on four states.
    fn keccak_f1600_x4_out2(state: &mut KeccakX4) {
        state.lanes[17..].fill([0; 4]);
        Self::keccak_f1600_x4(state)
    }

    /// [`Simd::keccak_f1600_out2`] on eight states.
    fn keccak_f1600_x8_out2(state: &mut KeccakX8) {
        state.lanes[17..].fill([0; 8]);
        Self::keccak_f1600_x8(state)
    }

    /// Forward NTT. Input: standard order, |c| < q. Output: NTT domain, reduced.
    fn ntt(p: &mut Poly);

    /// Inverse NTT times R. Input: NTT domain, reduced. Output: standard order, reduced.
    /// So `invntt_tomont(basemul_acc_montgomery(a, b))` is the product a·b.
    fn invntt_tomont(p: &mut Poly);

    /// `r = (a[0]∘b[0] + ... + a[k-1]∘b[k-1]) · R^-1`, NTT domain, reduced.
    /// Inputs: NTT domain, |c| < 4096 (coefficients from bytes need not be below q).
    fn basemul_acc_montgomery(r: &mut Poly, a: &[Poly], b: &[Poly]);

    /// `p = p · R mod q`, reduced.
    fn tomont(p: &mut Poly);

    /// Barrett reduction of every coefficient to |c| < q. Input: any i16.
    fn reduce(p: &mut Poly);

    /// `r = r + a`, no reduction.
    fn add(r: &mut Poly, a: &Poly);

    /// `r = r - a`, no reduction.
    fn sub(r: &mut Poly, a: &Poly);

    /// Reorders a polynomial whose coefficients are in the FIPS 203 NTT order (as sampled by
    /// SampleNTT) into this implementation's NTT-domain order.
    fn ntt_unpack(p: &mut Poly);

    /// ByteEncode_12 of an NTT-domain, reduced polynomial, in FIPS 203 order.
    fn ntt_to_bytes(p: &Poly, out: &mut [u8; 384]);

    /// ByteDecode_12 into this implementation's NTT-domain order (values < 4096, unreduced).
    /// Returns whether every coefficient is below q (the FIPS 203 modulus check); not secret.
    fn ntt_from_bytes(p: &mut Poly, bytes: &[u8; 384]) -> bool;

    /// SampleNTT's rejection step: parses `bytes` (a multiple of 3 long) as 12-bit values and
    /// appends those below q to `p.c[filled..]`, stopping when full. Returns the new count.
    /// Output in FIPS 203 order; call [`Simd::ntt_unpack`] when the polynomial is full.
    fn rej_uniform(p: &mut Poly, filled: usize, bytes: &[u8]) -> usize;

    /// SamplePolyCBD_2 from 128 bytes: standard order, coefficients in [-2, 2].
    fn cbd2(p: &mut Poly, bytes: &[u8; 128]);

    /// Decompress_1(ByteDecode_1(m)): 0 or (q+1)/2 per bit.
    fn from_msg(p: &mut Poly, m: &[u8; 32]);

    /// ByteEncode_1(Compress_1(p)) of a reduced polynomial.
    fn to_msg(p: &Poly, m: &mut [u8; 32]);

    /// ByteEncode_d(Compress_d(p)) of a reduced polynomial, d in {4, 5, 10, 11};
    /// `out` is 32·d bytes.
    fn compress(p: &Poly, d: u32, out: &mut [u8]);

    /// Decompress_d(ByteDecode_d(bytes)), d in {4, 5, 10, 11}; `bytes` is 32·d bytes.
    /// Output in [0, q).
    fn decompress(p: &mut Poly, d: u32, bytes: &[u8]);
}
