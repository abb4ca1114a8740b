//! SLH-DSA's tweakable hash functions over SHAKE256 (FIPS 205 section 11.1): F, H, T_l and PRF
//! are all SHAKE256(PK.seed || ADRS || input, 8n), so every one is "absorb words, permute,
//! read two lanes". [`Lanes`] computes W of them at once on the implementation's W-way Keccak;
//! [`One`] computes one on its single-state Keccak. H_msg and PRF_msg, which take the message,
//! go through the byte sponge of `crate::keccak`.
//!
//! Values are little-endian 64-bit words: a 16-byte node is `[u64; 2]`, and W nodes are
//! `[[u64; W]; 2]` (word 0 of every node, then word 1), the layout of two Keccak lanes of W
//! interleaved states, so batches move in and out of the states without transposing.
//!
//! The states absorb secrets (SK.seed, WOTS+ and FORS secret values), and Keccak-f is a
//! permutation, so a state left in memory would give them back: both hashers are reused across
//! calls and wiped when dropped.

use super::adrs::Adrs;
use crate::keccak::Permute;
use crate::simd::{KeccakLanes, Simd};
use core::marker::PhantomData;
use zeroize::Zeroize;

/// SHAKE256's rate in 64-bit words.
pub(crate) const RATE_WORDS: usize = 17;
/// The first padding byte of SHAKE (domain bits 1111 and the first pad bit).
const PAD_FIRST: u64 = 0x1f;
/// The last padding bit, in the last byte of the block.
const PAD_LAST: u64 = 0x80 << 56;

pub(crate) type Node = [u64; 2];

/// W nodes: word 0 of each, then word 1 of each.
pub(crate) type Nodes<const W: usize> = [[u64; W]; 2];

/// Node `j` of a batch.
#[inline(always)]
pub(crate) fn node_of<const W: usize>(v: &Nodes<W>, j: usize) -> Node {
    [v[0][j], v[1][j]]
}

/// W copies of a word.
#[inline(always)]
pub(crate) fn splat<const W: usize>(w: u64) -> [u64; W] {
    [w; W]
}

/// W independent hashes at once.
pub(crate) struct Lanes<S: Simd, const W: usize>
where
    KeccakLanes<W>: Permute<S>,
{
    st: KeccakLanes<W>,
    /// The single-state hasher beside the W-way one: the verifier's sequential steps, T_l
    /// of a single input, and a lone last input of [`Lanes::many`].
    single: One<S>,
    _simd: PhantomData<S>,
}

impl<S: Simd, const W: usize> Lanes<S, W>
where
    KeccakLanes<W>: Permute<S>,
{
    #[inline(always)]
    pub(crate) fn new() -> Self {
        Lanes {
            st: KeccakLanes::ZERO,
            single: One::new(),
            _simd: PhantomData,
        }
    }

    /// The single-state hasher, for hashes that come one at a time.
    #[inline(always)]
    pub(crate) fn one(&mut self) -> &mut One<S> {
        &mut self.single
    }

    /// F (`L` = 2), H (`L` = 4) or PRF (`L` = 2, the input is SK.seed) of W inputs:
    /// SHAKE256(PK.seed || ADRS_j || input_j) for each lane j. One permutation.
    #[inline(always)]
    pub(crate) fn short<const L: usize>(
        &mut self,
        pk_seed: &Node,
        adrs: &[[u64; W]; 4],
        input: &[[u64; W]; L],
    ) -> Nodes<W> {
        const { assert!(6 + L < 16) };
        // Lanes 17 to 24 are taken as zero by the out2 permutation.
        let lanes = &mut self.st.lanes;
        lanes[..RATE_WORDS].fill([0; W]);
        lanes[0] = splat(pk_seed[0]);
        lanes[1] = splat(pk_seed[1]);
        lanes[2..6].copy_from_slice(adrs);
        lanes[6..6 + L].copy_from_slice(input);
        lanes[6 + L] = splat(PAD_FIRST);
        lanes[RATE_WORDS - 1] = splat(PAD_LAST);
        self.st.permute_out2();
        [self.st.lanes[0], self.st.lanes[1]]
    }

    /// SHAKE256 of W inputs of `words.len()` words each (word k of input j is `words[k][j]`),
    /// 16 bytes out: T_l, whose input spans several blocks.
    #[inline(always)]
    pub(crate) fn long(&mut self, words: &[[u64; W]]) -> Nodes<W> {
        self.st.lanes = [[0; W]; 25];
        let mut rest = words;
        loop {
            let take = rest.len().min(RATE_WORDS);
            for (lane, w) in self.st.lanes.iter_mut().zip(&rest[..take]) {
                for j in 0..W {
                    lane[j] ^= w[j];
                }
            }
            rest = &rest[take..];
            if take < RATE_WORDS {
                for j in 0..W {
                    self.st.lanes[take][j] ^= PAD_FIRST;
                    self.st.lanes[RATE_WORDS - 1][j] ^= PAD_LAST;
                }
                self.st.permute();
                return [self.st.lanes[0], self.st.lanes[1]];
            }
            self.st.permute();
        }
    }
}

impl<S: Simd, const W: usize> Drop for Lanes<S, W>
where
    KeccakLanes<W>: Permute<S>,
{
    fn drop(&mut self) {
        self.st.zeroize();
    }
}

/// One hash at a time, on the single-state permutation (the verifier's sequential steps).
pub(crate) struct One<S: Simd> {
    st: [u64; 25],
    _simd: PhantomData<S>,
}

impl<S: Simd> One<S> {
    #[inline(always)]
    pub(crate) fn new() -> Self {
        One {
            st: [0; 25],
            _simd: PhantomData,
        }
    }

    /// F (`L` = 2) or H (`L` = 4) of one input.
    #[inline(always)]
    pub(crate) fn short<const L: usize>(
        &mut self,
        pk_seed: &Node,
        adrs: &Adrs,
        input: &[u64; L],
    ) -> Node {
        let st = &mut self.st;
        st[..RATE_WORDS].fill(0);
        st[0] = pk_seed[0];
        st[1] = pk_seed[1];
        st[2..6].copy_from_slice(adrs);
        st[6..6 + L].copy_from_slice(input);
        st[6 + L] = PAD_FIRST;
        st[RATE_WORDS - 1] = PAD_LAST;
        S::keccak_f1600_out2(st);
        [st[0], st[1]]
    }

    /// SHAKE256 of `words`, 16 bytes out (T_l).
    #[inline(always)]
    pub(crate) fn long(&mut self, words: &[u64]) -> Node {
        self.st = [0; 25];
        let mut rest = words;
        loop {
            let take = rest.len().min(RATE_WORDS);
            for (lane, w) in self.st.iter_mut().zip(&rest[..take]) {
                *lane ^= w;
            }
            rest = &rest[take..];
            if take < RATE_WORDS {
                self.st[take] ^= PAD_FIRST;
                self.st[RATE_WORDS - 1] ^= PAD_LAST;
                S::keccak_f1600(&mut self.st);
                return [self.st[0], self.st[1]];
            }
            S::keccak_f1600(&mut self.st);
        }
    }
}

impl<S: Simd> Drop for One<S> {
    fn drop(&mut self) {
        self.st.zeroize();
    }
}

/// A 16-byte value as two little-endian words.
#[inline(always)]
pub(crate) fn node_from_bytes(b: &[u8]) -> Node {
    [
        u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
        u64::from_le_bytes(b[8..16].try_into().expect("8 bytes")),
    ]
}

/// The 16 bytes of a node.
#[inline(always)]
pub(crate) fn node_to_bytes(v: &Node, out: &mut [u8]) {
    out[..8].copy_from_slice(&v[0].to_le_bytes());
    out[8..16].copy_from_slice(&v[1].to_le_bytes());
}

/// PK.seed and, when signing, SK.seed, as words. SK.seed is wiped on drop.
pub(crate) struct Seeds {
    pub(crate) pk: Node,
    pub(crate) sk: Node,
}

impl Drop for Seeds {
    fn drop(&mut self) {
        self.sk.zeroize();
    }
}

impl<S: Simd, const W: usize> Lanes<S, W>
where
    KeccakLanes<W>: Permute<S>,
{
    /// `out(t, SHAKE256(PK.seed || adrs(t) || input(t)))` for every t below `n`, W at a time;
    /// the idle lanes of a last, partial batch repeat its final input, and a lone last input
    /// (FORS's 33 trees, an XMSS root) goes to the single-state permutation, which costs less
    /// than a W-way one on every implementation (on NEON, half as much as two two-state calls).
    #[inline(always)]
    pub(crate) fn many<const L: usize>(
        &mut self,
        pk_seed: &Node,
        n: usize,
        adrs: impl Fn(usize) -> Adrs,
        input: impl Fn(usize) -> [u64; L],
        mut out: impl FnMut(usize, Node),
    ) {
        let mut t0 = 0;
        while t0 < n {
            if n - t0 == 1 {
                out(t0, self.single.short::<L>(pk_seed, &adrs(t0), &input(t0)));
                return;
            }
            let mut a = [[0u64; W]; 4];
            let mut m = [[0u64; W]; L];
            for j in 0..W {
                let t = (t0 + j).min(n - 1);
                let ad = adrs(t);
                let inp = input(t);
                for k in 0..4 {
                    a[k][j] = ad[k];
                }
                for k in 0..L {
                    m[k][j] = inp[k];
                }
            }
            let r = self.short::<L>(pk_seed, &a, &m);
            for j in 0..W.min(n - t0) {
                out(t0 + j, node_of(&r, j));
            }
            t0 += W;
        }
    }
}
