//! SHA-3 and SHAKE sponges (FIPS 202) over an implementation's Keccak-f[1600], one at a time
//! and four at a time (matrix expansion and noise sampling).

use crate::simd::{KeccakX4, Simd};
use core::marker::PhantomData;
use zeroize::Zeroize;

pub(crate) const SHAKE128_RATE: usize = 168;
pub(crate) const SHAKE256_RATE: usize = 136;
const SHA3_256_RATE: usize = 136;
const SHA3_512_RATE: usize = 72;
const SHA3_DOMAIN: u8 = 0x06;
const SHAKE_DOMAIN: u8 = 0x1f;

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

    #[inline(always)]
    fn absorb(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            if self.pos == 0 && self.pos + 8 <= self.rate {
                // Whole blocks, a lane at a time.
                while data.len() >= self.rate {
                    for (lane, word) in self.state.iter_mut().zip(data[..self.rate].chunks_exact(8))
                    {
                        *lane ^= u64::from_le_bytes(word.try_into().expect("8 bytes"));
                    }
                    S::keccak_f1600(&mut self.state);
                    data = &data[self.rate..];
                }
                if data.is_empty() {
                    break;
                }
            }
            let take = (self.rate - self.pos).min(data.len());
            for (k, &b) in data[..take].iter().enumerate() {
                xor_byte(&mut self.state, self.pos + k, b);
            }
            self.pos += take;
            data = &data[take..];
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

    #[inline(always)]
    fn squeeze(&mut self, out: &mut [u8]) {
        for b in out {
            if self.pos == self.rate {
                S::keccak_f1600(&mut self.state);
                self.pos = 0;
            }
            *b = get_byte(&self.state, self.pos);
            self.pos += 1;
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

/// Four SHAKE sponges that each absorb one short input (less than a block) and are then
/// squeezed a block at a time, all four per permutation.
pub(crate) struct ShakeX4<S: Simd> {
    state: KeccakX4,
    rate: usize,
    _simd: PhantomData<S>,
}

impl<S: Simd> ShakeX4<S> {
    /// SHAKE128 (rate 168) or SHAKE256 (rate 136) of four inputs, each shorter than the rate.
    #[inline(always)]
    pub(crate) fn absorb(rate: usize, inputs: [&[u8]; 4]) -> Self {
        let mut state = KeccakX4::ZERO;
        for (j, input) in inputs.iter().enumerate() {
            debug_assert!(input.len() < rate);
            for (i, &b) in input.iter().enumerate() {
                state.lanes[i / 8][j] ^= (b as u64) << (8 * (i % 8));
            }
            let end = input.len();
            state.lanes[end / 8][j] ^= (SHAKE_DOMAIN as u64) << (8 * (end % 8));
            state.lanes[(rate - 1) / 8][j] ^= 0x80u64 << (8 * ((rate - 1) % 8));
        }
        ShakeX4 {
            state,
            rate,
            _simd: PhantomData,
        }
    }

    /// Squeezes `out[j].len() / rate` blocks into each output (all the same length).
    #[inline(always)]
    pub(crate) fn squeeze_blocks(&mut self, mut out: [&mut [u8]; 4]) {
        let blocks = out[0].len() / self.rate;
        for block in 0..blocks {
            S::keccak_f1600_x4(&mut self.state);
            for (j, o) in out.iter_mut().enumerate() {
                let dst = &mut o[block * self.rate..(block + 1) * self.rate];
                for (lane, word) in self.state.lanes.iter().zip(dst.chunks_exact_mut(8)) {
                    word.copy_from_slice(&lane[j].to_le_bytes());
                }
            }
        }
    }
}

impl<S: Simd> Drop for ShakeX4<S> {
    fn drop(&mut self) {
        self.state.zeroize();
    }
}
