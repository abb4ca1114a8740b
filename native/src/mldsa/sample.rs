//! ExpandA, ExpandS and ExpandMask, four polynomials per batched Keccak call, and
//! SampleInBall (FIPS 204 section 7.3).

use super::ops::{DsaPoly, DsaSimd, N, Z_BYTES};
use super::params::{K, L, TAU};
use crate::keccak::{SHAKE128_RATE, SHAKE256_RATE, ShakeX4, shake};
use crate::simd::wipe_bytes;
use zeroize::Zeroize;

/// Five SHAKE128 blocks (840 bytes) give 256 coefficients of A but with probability about
/// 2^-150 short; ExpandS's two SHAKE256 blocks (544 half-bytes, 306 expected accepted) are
/// short about once in 10^5 polynomials. Either way one more block at a time follows.
const MATRIX_BLOCKS: usize = 5;
const ETA_BLOCKS: usize = 2;
const MAX_FIRST: usize = MATRIX_BLOCKS * SHAKE128_RATE;
/// ExpandMask takes 640 bytes per polynomial: five SHAKE256 blocks.
const MASK_BLOCKS: usize = Z_BYTES.div_ceil(SHAKE256_RATE);

/// One rejection sampler over SHAKE (rate `rate`) of each of up to four `inputs`, into the
/// polynomials `out`. `first` blocks are squeezed at once, then one block at a time while
/// any polynomial is short. The buffers are zeroized (ExpandS output is secret).
fn rejection_x4<S: DsaSimd>(
    rate: usize,
    first: usize,
    inputs: &[&[u8]],
    out: &mut [DsaPoly],
    rej: impl Fn(&mut DsaPoly, usize, &[u8]) -> usize,
) {
    debug_assert!(!out.is_empty() && out.len() <= 4 && inputs.len() == out.len());
    let mut buf = [[0u8; MAX_FIRST]; 4];
    if let [poly] = out {
        // A lone polynomial: one scalar sponge, not a four-way one with three lanes wasted.
        let mut xof = shake::<S>(rate, inputs[0]);
        xof.squeeze(&mut buf[0][..first * rate]);
        let mut filled = rej(poly, 0, &buf[0][..first * rate]);
        while filled < N {
            xof.squeeze(&mut buf[0][..rate]);
            filled = rej(poly, filled, &buf[0][..rate]);
        }
        buf.iter_mut().for_each(|b| wipe_bytes(b));
        return;
    }
    // A short group repeats its first input; the extra lanes are discarded.
    let pick = |l: usize| inputs[l.min(inputs.len() - 1)];
    let mut xof = ShakeX4::<S>::absorb(rate, [pick(0), pick(1), pick(2), pick(3)]);
    let n = first * rate;
    {
        let [b0, b1, b2, b3] = &mut buf;
        xof.squeeze_blocks([&mut b0[..n], &mut b1[..n], &mut b2[..n], &mut b3[..n]]);
    }
    let mut filled = [0usize; 4];
    for (l, poly) in out.iter_mut().enumerate() {
        filled[l] = rej(poly, 0, &buf[l][..n]);
    }
    while filled[..out.len()].iter().any(|&f| f < N) {
        {
            let [b0, b1, b2, b3] = &mut buf;
            xof.squeeze_blocks([
                &mut b0[..rate],
                &mut b1[..rate],
                &mut b2[..rate],
                &mut b3[..rate],
            ]);
        }
        for (l, poly) in out.iter_mut().enumerate() {
            filled[l] = rej(poly, filled[l], &buf[l][..rate]);
        }
    }
    buf.iter_mut().for_each(|b| wipe_bytes(b));
}

/// ExpandA(ρ): `a[r·L + s]` = RejNTTPoly(ρ || s || r), in the implementation's NTT order.
pub(crate) fn expand_a<S: DsaSimd>(rho: &[u8; 32], a: &mut [DsaPoly; K * L]) {
    let seeds: [[u8; 34]; K * L] = core::array::from_fn(|idx| {
        let mut s = [0u8; 34];
        s[..32].copy_from_slice(rho);
        s[32] = (idx % L) as u8;
        s[33] = (idx / L) as u8;
        s
    });
    for (group, polys) in seeds.chunks(4).zip(a.chunks_mut(4)) {
        let inputs: [&[u8]; 4] = core::array::from_fn(|l| &group[l.min(group.len() - 1)][..]);
        rejection_x4::<S>(
            SHAKE128_RATE,
            MATRIX_BLOCKS,
            &inputs[..group.len()],
            polys,
            S::dsa_rej_uniform,
        );
    }
    for poly in a.iter_mut() {
        S::dsa_ntt_unpack(poly);
    }
}

/// ExpandS(ρ'): `s[r]` = RejBoundedPoly(ρ' || r as 2 bytes) for r in 0..L+K; s1 = s[..L],
/// s2 = s[L..].
pub(crate) fn expand_s<S: DsaSimd>(rho_prime: &[u8; 64], s: &mut [DsaPoly; L + K]) {
    let mut seeds: [[u8; 66]; L + K] = core::array::from_fn(|r| {
        let mut x = [0u8; 66];
        x[..64].copy_from_slice(rho_prime);
        x[64..].copy_from_slice(&(r as u16).to_le_bytes());
        x
    });
    for (group, polys) in seeds.chunks(4).zip(s.chunks_mut(4)) {
        let inputs: [&[u8]; 4] = core::array::from_fn(|l| &group[l.min(group.len() - 1)][..]);
        rejection_x4::<S>(
            SHAKE256_RATE,
            ETA_BLOCKS,
            &inputs[..group.len()],
            polys,
            S::dsa_rej_eta,
        );
    }
    seeds.zeroize();
}

/// ExpandMask(ρ'', κ): `y[r]` = BitUnpack(H(ρ'' || (κ + r) as 2 bytes, 640 bytes)).
pub(crate) fn expand_mask<S: DsaSimd>(rho_pp: &[u8; 64], kappa: u16, y: &mut [DsaPoly; L]) {
    let mut seeds: [[u8; 66]; L] = core::array::from_fn(|r| {
        let mut x = [0u8; 66];
        x[..64].copy_from_slice(rho_pp);
        x[64..].copy_from_slice(&kappa.wrapping_add(r as u16).to_le_bytes());
        x
    });
    let mut buf = [[0u8; MASK_BLOCKS * SHAKE256_RATE]; 4];
    for (group, polys) in seeds.chunks(4).zip(y.chunks_mut(4)) {
        if let [poly] = polys {
            shake::<S>(SHAKE256_RATE, &group[0]).squeeze(&mut buf[0][..Z_BYTES]);
            S::dsa_unpack_z(poly, buf[0][..Z_BYTES].try_into().expect("640 bytes"));
            continue;
        }
        let pick = |l: usize| &group[l.min(group.len() - 1)][..];
        let mut xof = ShakeX4::<S>::absorb(SHAKE256_RATE, [pick(0), pick(1), pick(2), pick(3)]);
        {
            let [b0, b1, b2, b3] = &mut buf;
            xof.squeeze_blocks([b0, b1, b2, b3]);
        }
        for (l, poly) in polys.iter_mut().enumerate() {
            S::dsa_unpack_z(poly, buf[l][..Z_BYTES].try_into().expect("640 bytes"));
        }
    }
    seeds.zeroize();
    buf.iter_mut().for_each(|b| wipe_bytes(b));
}

/// SampleInBall(c̃): τ coefficients ±1, the rest 0. The positions j come from the XOF by
/// rejection (j <= i). The c̃ of a rejected attempt is secret, so no memory address may depend
/// on j: c is built as two 256-bit masks (which coefficients are nonzero, which of those are
/// −1), where "move c[j] to c[i], then set c[j] = ±1" is a few word operations selected by
/// masks and shifts by j (constant-time on the CPUs we target), then expanded to coefficients.
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
