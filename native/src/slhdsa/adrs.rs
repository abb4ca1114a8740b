//! The 32-byte hash address ADRS (FIPS 205 section 4.2), kept as the four little-endian 64-bit
//! words it occupies in the Keccak state (lanes 2 to 5 of every tweakable hash input), so a
//! hash's input is assembled from words without byte shuffling. Every field is big-endian in
//! the bytes, hence the byte swaps.
//!
//! ```text
//! bytes  0..4   layer address         word 0, low half
//! bytes  4..16  tree address          word 0 high half (always 0: trees < 2^64), word 1
//! bytes 16..20  type                  word 2, low half
//! bytes 20..24  key pair address      word 2, high half
//! bytes 24..28  chain address / tree height   word 3, low half
//! bytes 28..32  hash address / tree index     word 3, high half
//! ```

pub(crate) type Adrs = [u64; 4];

pub(crate) const WOTS_HASH: u32 = 0;
pub(crate) const WOTS_PK: u32 = 1;
pub(crate) const TREE: u32 = 2;
pub(crate) const FORS_TREE: u32 = 3;
pub(crate) const FORS_ROOTS: u32 = 4;
pub(crate) const WOTS_PRF: u32 = 5;
pub(crate) const FORS_PRF: u32 = 6;

/// The low or high half of a word holding the big-endian 32-bit field `v`.
#[inline(always)]
const fn be32(v: u32) -> u64 {
    v.swap_bytes() as u64
}

/// Words 0 and 1: layer and tree address.
#[inline(always)]
pub(crate) const fn layer_tree(layer: u32, tree: u64) -> [u64; 2] {
    [be32(layer), tree.swap_bytes()]
}

/// Word 2: type and key pair address (setTypeAndClear then setKeyPairAddress).
#[inline(always)]
pub(crate) const fn type_keypair(kind: u32, keypair: u32) -> u64 {
    be32(kind) | be32(keypair) << 32
}

/// Word 3: chain address and hash address, or tree height and tree index (same positions).
#[inline(always)]
pub(crate) const fn pair(chain_or_height: u32, hash_or_index: u32) -> u64 {
    be32(chain_or_height) | be32(hash_or_index) << 32
}

/// The whole address from its parts.
#[inline(always)]
pub(crate) const fn adrs(lt: [u64; 2], word2: u64, word3: u64) -> Adrs {
    [lt[0], lt[1], word2, word3]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(a: &Adrs) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (o, w) in out.chunks_exact_mut(8).zip(a) {
            o.copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// The word layout against the byte layout of FIPS 205 section 4.2.
    #[test]
    fn words_are_the_fips205_bytes() {
        let a = adrs(
            layer_tree(0x0102_0304, 0x1112_1314_1516_1718),
            type_keypair(0x2122_2324, 0x2526_2728),
            pair(0x3132_3334, 0x3536_3738),
        );
        let mut want = [0u8; 32];
        want[0..4].copy_from_slice(&0x0102_0304u32.to_be_bytes());
        want[8..16].copy_from_slice(&0x1112_1314_1516_1718u64.to_be_bytes());
        want[16..20].copy_from_slice(&0x2122_2324u32.to_be_bytes());
        want[20..24].copy_from_slice(&0x2526_2728u32.to_be_bytes());
        want[24..28].copy_from_slice(&0x3132_3334u32.to_be_bytes());
        want[28..32].copy_from_slice(&0x3536_3738u32.to_be_bytes());
        assert_eq!(bytes(&a), want);
    }
}
