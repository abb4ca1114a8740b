//! Detached signatures and the policy for verifying them (docs/signature-format.md), in three
//! parts:
//!
//! - `format`: the wire format of full (version 1) and compact (version 2) signatures, their
//!   strict decoding and armor;
//! - `sign`: making a signature with a generation's key;
//! - `verify`: the trust policy (where the trusted root comes from, forks, revocations, the
//!   signing-time window) and the classes of refusal.
//!
//! Their items are re-exported here, so callers name them `signature::X`. Shared here: the
//! composite signature's context and the digest of the signed data.
//!
//! The composite signature (ML-DSA-65 + Ed25519, `suite::hybrid_sig`) covers SHA-512 of the
//! signed data with the context `"nexusq/sig/v1" || root_id(32) || u32be(g) || u64be(signed_at)`.
//! The verifier rebuilds the context from the certificate it validated under the root it
//! trusts, so a signature cannot be re-attributed to another identity, generation or time.
//! The claimed `signed_at` must lie inside the certificate's validity (created..=not_after,
//! with [`CLOCK_SKEW_SECS`](super::certificate::CLOCK_SKEW_SECS) either side); `sign` refuses
//! to make one that does not.

mod format;
mod sign;
mod verify;

pub use format::{
    ARMOR_KIND, COMPACT_LEN, COMPACT_VERSION, CompactSignature, DetachedSignature, Signature,
    VERSION,
};
pub use sign::{SigningKey, sign, sign_newest, sign_openpgp, signing_key};
pub use verify::{
    Refusal, Refused, Trust, Verified, check_any_signer, check_signer, verify, verify_classified,
    verify_signature,
};

use super::root_id::RootId;
use crate::suite::hybrid_sig;
use crate::wire::Writer;
use sha2::Sha512;
use std::io::Read;

/// First part of the composite context.
pub(crate) const CONTEXT_LABEL: &[u8] = b"nexusq/sig/v1";
/// Length of the signed digest: SHA-512, 64 bytes.
pub(crate) const DIGEST_LEN: usize = hybrid_sig::DIGEST_LEN;

/// The composite signature's context: `"nexusq/sig/v1" || root_id || u32be(g) || u64be(t)`.
pub fn context(root_id: &RootId, generation: u32, signed_at: u64) -> Vec<u8> {
    let mut w = Writer::new();
    w.bytes(CONTEXT_LABEL)
        .bytes(&root_id.0)
        .u32(generation)
        .u64(signed_at);
    w.into_inner()
}

/// SHA-512 of a stream, read in 64 KiB pieces (constant memory).
pub fn digest_reader(input: impl Read) -> std::io::Result<[u8; DIGEST_LEN]> {
    Ok(stream_hash::<Sha512>(input)?.into())
}

/// Any hash of a stream, read in 64 KiB pieces (constant memory): signatures' SHA-512 and
/// manifests' SHA-256.
pub(crate) fn stream_hash<H: sha2::Digest>(
    mut input: impl Read,
) -> std::io::Result<sha2::digest::Output<H>> {
    let mut h = H::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => h.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(h.finalize())
}

/// SHA-512 of data in memory.
pub fn digest(data: &[u8]) -> [u8; DIGEST_LEN] {
    hybrid_sig::prehash(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::NewIdentity;
    use crate::suite::rustcrypto::RustCrypto;
    use std::sync::OnceLock;

    /// One identity and its signature of `b"data"` at 2000, shared by the tests of every part.
    pub(super) fn fixture() -> &'static (NewIdentity, DetachedSignature) {
        static F: OnceLock<(NewIdentity, DetachedSignature)> = OnceLock::new();
        F.get_or_init(|| {
            let id = NewIdentity::generate(&RustCrypto, 1_000);
            let sig = sign_newest(
                &RustCrypto,
                &id.public,
                &id.secrets,
                &digest(b"data"),
                2_000,
                &[3; 32],
            )
            .unwrap();
            (id, sig)
        })
    }

    #[test]
    fn context_layout() {
        let c = context(&RootId([9; 32]), 0x01020304, 0x05);
        assert_eq!(
            c,
            [
                b"nexusq/sig/v1".as_slice(),
                &[9; 32],
                &[1, 2, 3, 4],
                &[0, 0, 0, 0, 0, 0, 0, 5]
            ]
            .concat()
        );
    }

    #[test]
    fn streaming_digest_matches() {
        let data = vec![0xabu8; 200_000];
        assert_eq!(digest_reader(&data[..]).unwrap(), digest(&data));
    }
}
