//! XMSS trees of height h' = 3 (FIPS 205 section 6) and the hypertree made of them (section 7).
//! Signing builds the whole tree of 8 leaves (W key pairs at a time), which gives the root and
//! the authentication path together, so ht_sign needs no xmss_pkFromSig.

use super::adrs::{TREE, adrs, layer_tree, pair, type_keypair};
use super::hash::{Lanes, Node, Seeds, node_from_bytes, node_of, node_to_bytes};
use super::params::{HP, LEAVES, LEN, N};
use super::wots::{self, Signing};
use crate::keccak::Permute;
use crate::simd::{KeccakLanes, Simd};

/// The root of the tree at `lt` (xmss_node(SK.seed, 0, h')), and with `sign` the
/// authentication path of its leaf and its WOTS+ signature (into `sign.out`).
#[inline(always)]
pub(crate) fn root<S: Simd, const W: usize>(
    h: &mut Lanes<S, W>,
    seeds: &Seeds,
    lt: [u64; 2],
    mut sign: Option<&mut Signing>,
) -> (Node, [Node; HP])
where
    KeccakLanes<W>: Permute<S>,
{
    const { assert!(LEAVES.is_multiple_of(W)) };
    let mut nodes = [[0u64; 2]; LEAVES];
    for base in (0..LEAVES).step_by(W) {
        let pks = wots::public_keys(h, seeds, lt, base, sign.as_deref_mut());
        for j in 0..W {
            nodes[base + j] = node_of(&pks, j);
        }
    }
    let leaf = sign.map_or(0, |s| s.leaf);
    let mut auth = [[0u64; 2]; HP];
    let word2 = type_keypair(TREE, 0);
    for z in 0..HP {
        auth[z] = nodes[(leaf >> z) ^ 1];
        let below = nodes;
        h.many::<4>(
            &seeds.pk,
            LEAVES >> (z + 1),
            |t| adrs(lt, word2, pair(z as u32 + 1, t as u32)),
            |t| {
                let (l, r) = (below[2 * t], below[2 * t + 1]);
                [l[0], l[1], r[0], r[1]]
            },
            |t, v| nodes[t] = v,
        );
    }
    (nodes[0], auth)
}

/// xmss_sign (Algorithm 10) of `m` by leaf `leaf` of tree `tree` in layer `layer`, into `out`
/// (the WOTS+ signature, then the authentication path); returns the tree's root.
#[inline(always)]
pub(crate) fn sign<S: Simd, const W: usize>(
    h: &mut Lanes<S, W>,
    seeds: &Seeds,
    layer: u32,
    tree: u64,
    leaf: usize,
    m: &Node,
    out: &mut [u8],
) -> Node
where
    KeccakLanes<W>: Permute<S>,
{
    let mut chains = [[0u64; 2]; LEN];
    let mut signing = Signing {
        leaf,
        lengths: wots::chain_lengths(m),
        out: &mut chains,
    };
    let (root, auth) = root(h, seeds, layer_tree(layer, tree), Some(&mut signing));
    for (o, v) in out.chunks_exact_mut(N).zip(chains.iter().chain(&auth)) {
        node_to_bytes(v, o);
    }
    root
}

/// xmss_pkFromSig (Algorithm 11): the root that the XMSS signature `sig` of `m` by leaf
/// `leaf` of tree `tree` in layer `layer` leads to.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn root_from_sig<S: Simd, const W: usize>(
    h: &mut Lanes<S, W>,
    pk_seed: &Node,
    layer: u32,
    tree: u64,
    leaf: u32,
    sig: &[u8],
    m: &Node,
) -> Node
where
    KeccakLanes<W>: Permute<S>,
{
    let lt = layer_tree(layer, tree);
    let mut node = wots::public_key_from_sig(h, pk_seed, lt, leaf, &sig[..LEN * N], m);
    let word2 = type_keypair(TREE, 0);
    for z in 0..HP {
        let auth = node_from_bytes(&sig[(LEN + z) * N..]);
        // The leaf index bits are public (they come from the message digest).
        let (l, r) = if (leaf >> z) & 1 == 0 {
            (node, auth)
        } else {
            (auth, node)
        };
        let a = adrs(lt, word2, pair(z as u32 + 1, leaf >> (z + 1)));
        node = h.one().short::<4>(pk_seed, &a, &[l[0], l[1], r[0], r[1]]);
    }
    node
}
