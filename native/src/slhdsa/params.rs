//! SLH-DSA-SHAKE-128f's parameters (FIPS 205 Table 2) and the sizes they imply.

/// n: bytes in a hash value (and in each seed).
pub(crate) const N: usize = 16;
/// h: total height of the hypertree.
pub(crate) const H: usize = 66;
/// d: layers of the hypertree.
pub(crate) const D: usize = 22;
/// h': height of one XMSS tree.
pub(crate) const HP: usize = 3;
/// Leaves of one XMSS tree.
pub(crate) const LEAVES: usize = 1 << HP;
/// a: height of one FORS tree.
pub(crate) const A: usize = 6;
/// k: FORS trees.
pub(crate) const K: usize = 33;
/// w = 2^lg_w with lg_w = 4: steps in a WOTS+ chain are 0..=15.
pub(crate) const W: usize = 16;
/// len1 = 8n / lg_w message chains.
pub(crate) const LEN1: usize = 32;
/// len2 = 3 checksum chains.
pub(crate) const LEN2: usize = 3;
/// len: WOTS+ chains per key.
pub(crate) const LEN: usize = LEN1 + LEN2;
/// m: bytes of H_msg output: ceil(k·a / 8) + ceil((h - h/d) / 8) + ceil(h / 8d) = 25 + 8 + 1.
pub(crate) const M: usize = 34;
/// Bytes of the FORS message digest inside H_msg's output.
pub(crate) const MD_BYTES: usize = (K * A).div_ceil(8);

/// PK.seed || PK.root.
pub(crate) const PK_BYTES: usize = 2 * N;
/// SK.seed || SK.prf || PK.seed || PK.root.
pub(crate) const SK_BYTES: usize = 4 * N;
/// One FORS tree in a signature: its secret leaf, then a authentication nodes.
pub(crate) const FORS_TREE_BYTES: usize = (1 + A) * N;
/// SIG_FORS.
pub(crate) const FORS_BYTES: usize = K * FORS_TREE_BYTES;
/// One XMSS signature: len WOTS+ chain values, then h' authentication nodes.
pub(crate) const XMSS_BYTES: usize = (LEN + HP) * N;
/// R || SIG_FORS || SIG_HT: 17 088 bytes.
pub(crate) const SIG_BYTES: usize = N + FORS_BYTES + D * XMSS_BYTES;

const _: () = assert!(SIG_BYTES == 17_088);
const _: () = assert!(M == MD_BYTES + (H - H / D).div_ceil(8) + (H / D).div_ceil(8));
