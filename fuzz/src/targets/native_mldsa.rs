//! nexusq-native ML-DSA-65 verification on arbitrary keys, signatures, contexts and messages,
//! with the verdict checked against the `ml-dsa` crate (through nexusq's RustCrypto backend).
//!
//! Input: mode, context length, context, then for mode 1 a verifying key (1952 bytes), then the
//! signature (3309 bytes, or what is left), then the message. Mode 0 uses a fixed key.

use nexusq_core::suite::Backend;
use nexusq_core::suite::rustcrypto::RustCrypto;
use nexusq_native::mldsa65;
use std::sync::OnceLock;

fn fixed_key() -> &'static mldsa65::VerifyingKey {
    static VK: OnceLock<mldsa65::VerifyingKey> = OnceLock::new();
    VK.get_or_init(|| mldsa65::keygen_internal(&[1; 32]).0)
}

fn take<'a>(data: &mut &'a [u8], n: usize) -> &'a [u8] {
    let (head, tail) = data.split_at(n.min(data.len()));
    *data = tail;
    head
}

pub fn run(data: &[u8]) {
    let mut data = data;
    let header = take(&mut data, 2);
    let &[mode, ctx_len] = header else {
        return;
    };
    let ctx = take(&mut data, usize::from(ctx_len));
    let vk_bytes = if mode % 2 == 1 {
        take(&mut data, mldsa65::VERIFYING_KEY_LEN).to_vec()
    } else {
        fixed_key().to_bytes().to_vec()
    };
    let sig_bytes = take(&mut data, mldsa65::SIGNATURE_LEN);
    let msg = data;

    let vk = mldsa65::VerifyingKey::from_bytes(&vk_bytes);
    assert_eq!(vk.is_ok(), vk_bytes.len() == mldsa65::VERIFYING_KEY_LEN);
    let sig = mldsa65::Signature::from_bytes(sig_bytes);
    assert_eq!(sig.is_ok(), sig_bytes.len() == mldsa65::SIGNATURE_LEN);
    let native = match (&vk, &sig) {
        (Ok(vk), Ok(sig)) => mldsa65::verify(vk, msg, ctx, sig),
        _ => false,
    };
    let reference = RustCrypto.mldsa65_verify(&vk_bytes, msg, ctx, sig_bytes);
    assert_eq!(native, reference, "verdicts differ");
    if let (Ok(vk), Ok(sig)) = (&vk, &sig) {
        // The external-mu path must give the same verdict.
        let mu = mldsa65::message_representative(vk, msg, ctx).expect("ctx is at most 255");
        assert_eq!(
            mldsa65::verify_mu(vk, &mu, sig),
            native,
            "verify_mu differs"
        );
    }
}
