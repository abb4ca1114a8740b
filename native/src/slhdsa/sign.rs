//! slh_keygen_internal, slh_sign_internal and slh_verify_internal (FIPS 205 Algorithms 18-20),
//! with the hypertree's ht_sign and ht_verify (Algorithms 12 and 13) written into them.
//! `W` is how many hashes run at once: 4, or 8 where the implementation has a native
//! eight-way Keccak.

use super::adrs::layer_tree;
use super::fors;
use super::hash::{Lanes, Node, Seeds, node_from_bytes, node_to_bytes};
use super::params::{D, FORS_BYTES, HP, M, MD_BYTES, N, PK_BYTES, SIG_BYTES, SK_BYTES, XMSS_BYTES};
use super::xmss;
use crate::ct::{declassified, declassify};
use crate::keccak::{Permute, shake256};
use crate::simd::{KeccakLanes, Simd};

/// At most this many parts make up M (0 || len(ctx), ctx, message).
const MAX_PARTS: usize = 3;

/// SHAKE256(a || b || c || M, out.len()): H_msg and PRF_msg.
#[inline(always)]
fn shake_with_message<S: Simd>(head: &[&[u8]], m: &[&[u8]], out: &mut [u8]) {
    assert!(m.len() <= MAX_PARTS);
    let mut parts: [&[u8]; 3 + MAX_PARTS] = [&[]; 3 + MAX_PARTS];
    parts[..head.len()].copy_from_slice(head);
    parts[head.len()..head.len() + m.len()].copy_from_slice(m);
    shake256::<S>(&parts[..head.len() + m.len()], out);
}

/// H_msg's output split as slh_sign_internal lines 7-12 say: the FORS digest's leaf indices,
/// idx_tree (63 bits) and idx_leaf (3 bits).
#[inline(always)]
fn digest<S: Simd>(r: &[u8], pk: &[u8], m: &[&[u8]]) -> ([u32; super::params::K], u64, u32) {
    let mut d = [0u8; M];
    shake_with_message::<S>(&[r, pk], m, &mut d);
    let tree = u64::from_be_bytes(d[MD_BYTES..MD_BYTES + 8].try_into().expect("8 bytes"));
    let leaf = d[MD_BYTES + 8];
    (
        fors::indices(&d[..MD_BYTES]),
        tree & ((1 << 63) - 1),
        u32::from(leaf) & ((1 << HP) - 1),
    )
}

/// slh_keygen_internal: PK.root for the seeds, the root of the top layer's only tree.
#[inline(always)]
pub(crate) fn keygen<S: Simd, const W: usize>(sk_seed: &[u8; N], pk_seed: &[u8; N]) -> Node
where
    KeccakLanes<W>: Permute<S>,
{
    let seeds = Seeds {
        pk: node_from_bytes(pk_seed),
        sk: node_from_bytes(sk_seed),
    };
    let mut h = Lanes::<S, W>::new();
    // PK.root is the public key.
    declassified(xmss::root(&mut h, &seeds, layer_tree(D as u32 - 1, 0), None).0)
}

/// slh_sign_internal(M, SK, addrnd) with M given in parts; `addrnd` = PK.seed is the
/// deterministic variant.
#[inline(always)]
pub(crate) fn sign<S: Simd, const W: usize>(
    sk: &[u8; SK_BYTES],
    m: &[&[u8]],
    addrnd: &[u8; N],
    sig: &mut [u8; SIG_BYTES],
) where
    KeccakLanes<W>: Permute<S>,
{
    let (sk_seed, rest) = sk.split_at(N);
    let (sk_prf, pk) = rest.split_at(N);
    let (r, rest) = sig.split_at_mut(N);
    let (sig_fors, sig_ht) = rest.split_at_mut(FORS_BYTES);
    shake_with_message::<S>(&[sk_prf, addrnd], m, r);
    // R is the signature's first part, and with it the digest and the indices are public.
    declassify(r);
    let (idx, mut tree, mut leaf) = digest::<S>(r, pk, m);

    let seeds = Seeds {
        pk: node_from_bytes(&pk[..N]),
        sk: node_from_bytes(sk_seed),
    };
    let mut h = Lanes::<S, W>::new();
    // Each root a layer signs is public: the verifier computes it from the signature.
    let mut root = declassified(fors::sign(
        &mut h,
        &seeds,
        layer_tree(0, tree),
        leaf,
        &idx,
        sig_fors,
    ));
    for (layer, out) in sig_ht.chunks_exact_mut(XMSS_BYTES).enumerate() {
        root = declassified(xmss::sign(
            &mut h,
            &seeds,
            layer as u32,
            tree,
            leaf as usize,
            &root,
            out,
        ));
        leaf = (tree & ((1 << HP) - 1)) as u32;
        tree >>= HP;
    }
    debug_assert_eq!(node_from_bytes(&pk[N..]), root, "the top root is PK.root");
}

/// slh_verify_internal(M, SIG, PK) for a signature of the right length.
#[inline(always)]
pub(crate) fn verify<S: Simd, const W: usize>(
    pk: &[u8; PK_BYTES],
    m: &[&[u8]],
    sig: &[u8; SIG_BYTES],
) -> bool
where
    KeccakLanes<W>: Permute<S>,
{
    let (r, rest) = sig.split_at(N);
    let (sig_fors, sig_ht) = rest.split_at(FORS_BYTES);
    let (idx, mut tree, mut leaf) = digest::<S>(r, pk, m);
    let pk_seed = node_from_bytes(&pk[..N]);
    let mut h = Lanes::<S, W>::new();
    let lt = layer_tree(0, tree);
    let mut root = fors::public_key_from_sig(&mut h, &pk_seed, lt, leaf, &idx, sig_fors);
    for (layer, part) in sig_ht.chunks_exact(XMSS_BYTES).enumerate() {
        root = xmss::root_from_sig(&mut h, &pk_seed, layer as u32, tree, leaf, part, &root);
        leaf = (tree & ((1 << HP) - 1)) as u32;
        tree >>= HP;
    }
    let mut got = [0u8; N];
    node_to_bytes(&root, &mut got);
    got[..] == pk[N..]
}
