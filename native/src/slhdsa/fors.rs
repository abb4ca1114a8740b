//! FORS with k = 33 trees of height a = 6 (FIPS 205 section 8). Signing computes the
//! 33 · 64 = 2112 leaves of all trees W at a time, then each level of all trees together, so
//! every batch is full up to the last levels; verification climbs the 33 paths together.

use super::adrs::{FORS_PRF, FORS_ROOTS, FORS_TREE, adrs, pair, type_keypair};
use super::hash::{Lanes, Node, One, Seeds, node_from_bytes, node_of, node_to_bytes, splat};
use super::params::{A, FORS_TREE_BYTES, K, N};
use crate::keccak::Permute;
use crate::simd::{KeccakLanes, Simd};

/// Leaves of all FORS trees together.
const ALL_LEAVES: usize = K << A;
/// Words of T_k's input: PK.seed, ADRS, the k roots.
const ROOTS_WORDS: usize = 6 + 2 * K;

/// base_2^b(md, a, k) (Algorithm 4): the leaf each tree reveals.
pub(crate) fn indices(md: &[u8]) -> [u32; K] {
    let mut out = [0u32; K];
    let (mut acc, mut bits, mut at) = (0u32, 0usize, 0usize);
    for o in out.iter_mut() {
        while bits < A {
            acc = (acc << 8 | u32::from(md[at])) & 0xffff;
            at += 1;
            bits += 8;
        }
        bits -= A;
        *o = (acc >> bits) & ((1 << A) - 1);
    }
    out
}

/// T_k of the roots: the FORS public key.
#[inline(always)]
fn public_key<S: Simd>(
    one: &mut One<S>,
    pk_seed: &Node,
    lt: [u64; 2],
    kp: u32,
    roots: &[Node],
) -> Node {
    let mut words = [0u64; ROOTS_WORDS];
    words[..2].copy_from_slice(pk_seed);
    words[2..4].copy_from_slice(&lt);
    words[4] = type_keypair(FORS_ROOTS, kp);
    for (w, v) in words[6..].chunks_exact_mut(2).zip(roots) {
        w.copy_from_slice(v);
    }
    one.long(&words)
}

/// fors_sign (Algorithm 16) of the digest whose leaves are `idx`, into `out` (per tree: the
/// secret value, then the authentication path), with ADRS = FORS_TREE, key pair `kp`, in the
/// tree at `lt`; returns the FORS public key (what fors_pkFromSig would compute).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn sign<S: Simd, const W: usize>(
    h: &mut Lanes<S, W>,
    seeds: &Seeds,
    lt: [u64; 2],
    kp: u32,
    idx: &[u32; K],
    out: &mut [u8],
) -> Node
where
    KeccakLanes<W>: Permute<S>,
{
    const { assert!(ALL_LEAVES.is_multiple_of(W)) };
    let mut cur = vec![[0u64; 2]; ALL_LEAVES];
    let mut next = vec![[0u64; 2]; ALL_LEAVES / 2];
    let prf_word2 = splat(type_keypair(FORS_PRF, kp));
    let tree_word2 = type_keypair(FORS_TREE, kp);
    let sk = [splat(seeds.sk[0]), splat(seeds.sk[1])];
    for t0 in (0..ALL_LEAVES).step_by(W) {
        let index: [u64; W] = core::array::from_fn(|j| pair(0, (t0 + j) as u32));
        let secret = h.short::<2>(
            &seeds.pk,
            &[splat(lt[0]), splat(lt[1]), prf_word2, index],
            &sk,
        );
        for j in 0..W {
            let t = t0 + j;
            let tree = t >> A;
            // The revealed leaves are public (they are in the signature).
            if (t & ((1 << A) - 1)) as u32 == idx[tree] {
                node_to_bytes(&node_of(&secret, j), &mut out[tree * FORS_TREE_BYTES..]);
            }
        }
        let adrs = [splat(lt[0]), splat(lt[1]), splat(tree_word2), index];
        let leaves = h.short::<2>(&seeds.pk, &adrs, &secret);
        for j in 0..W {
            cur[t0 + j] = node_of(&leaves, j);
        }
    }
    for z in 0..A {
        for (i, &leaf) in idx.iter().enumerate() {
            let sibling = (i << (A - z)) + ((leaf >> z) ^ 1) as usize;
            node_to_bytes(&cur[sibling], &mut out[i * FORS_TREE_BYTES + (1 + z) * N..]);
        }
        h.many::<4>(
            &seeds.pk,
            K << (A - z - 1),
            |t| adrs(lt, tree_word2, pair(z as u32 + 1, t as u32)),
            |t| {
                let (l, r) = (cur[2 * t], cur[2 * t + 1]);
                [l[0], l[1], r[0], r[1]]
            },
            |t, v| next[t] = v,
        );
        core::mem::swap(&mut cur, &mut next);
    }
    public_key(h.one(), &seeds.pk, lt, kp, &cur[..K])
}

/// fors_pkFromSig (Algorithm 17).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn public_key_from_sig<S: Simd, const W: usize>(
    h: &mut Lanes<S, W>,
    pk_seed: &Node,
    lt: [u64; 2],
    kp: u32,
    idx: &[u32; K],
    sig: &[u8],
) -> Node
where
    KeccakLanes<W>: Permute<S>,
{
    let tree_word2 = type_keypair(FORS_TREE, kp);
    let leaf_index = |i: usize| ((i << A) as u32) + idx[i];
    let mut nodes = [[0u64; 2]; K];
    h.many::<2>(
        pk_seed,
        K,
        |i| adrs(lt, tree_word2, pair(0, leaf_index(i))),
        |i| node_from_bytes(&sig[i * FORS_TREE_BYTES..]),
        |i, v| nodes[i] = v,
    );
    for z in 0..A {
        let below = nodes;
        h.many::<4>(
            pk_seed,
            K,
            |i| adrs(lt, tree_word2, pair(z as u32 + 1, leaf_index(i) >> (z + 1))),
            |i| {
                let auth = node_from_bytes(&sig[i * FORS_TREE_BYTES + (1 + z) * N..]);
                // The leaf index bits are public (they come from the message digest).
                let (l, r) = if (idx[i] >> z) & 1 == 0 {
                    (below[i], auth)
                } else {
                    (auth, below[i])
                };
                [l[0], l[1], r[0], r[1]]
            },
            |i, v| nodes[i] = v,
        );
    }
    public_key(h.one(), pk_seed, lt, kp, &nodes)
}
