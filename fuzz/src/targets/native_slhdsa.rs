//! nexusq-native SLH-DSA-SHAKE-128f: the key and signature parsers and verification on
//! arbitrary keys, signatures, contexts and messages, with the verdict checked against the
//! `slh-dsa` crate (through nexusq's RustCrypto backend).
//!
//! Input: mode, context length, context, then
//! - mode bit 1 clear: for mode bit 0 a verifying key (32 bytes, else the fixed key), the
//!   signature (17 088 bytes, or what is left), then the message;
//! - mode bit 1 set: a u16 offset and up to 64 bytes XORed into the fixed key's valid
//!   signature of `MESSAGE` (empty context) at that offset, so that verification runs deep
//!   into the hypertree instead of failing at the first WOTS+ key; the context as given.
//!
//! Every input is also parsed as a signing key (its first 64 bytes), whose verifying key must
//! be its last 32 bytes.

use nexusq_core::suite::Backend;
use nexusq_core::suite::rustcrypto::RustCrypto;
use nexusq_native::slhdsa_shake128f as slh;
use std::sync::OnceLock;

const MESSAGE: &[u8] = b"nexusq fuzz: the SLH-DSA message";

struct Fixed {
    vk: slh::VerifyingKey,
    sig: Box<[u8; slh::SIGNATURE_LEN]>,
}

fn fixed() -> &'static Fixed {
    static F: OnceLock<Fixed> = OnceLock::new();
    F.get_or_init(|| {
        let (vk, sk) = slh::keygen_internal(&[1; 16], &[2; 16], &[3; 16]);
        let sig = slh::sign(&sk, MESSAGE, b"", None).expect("empty context");
        Fixed {
            vk,
            sig: sig.to_bytes(),
        }
    })
}

fn take<'a>(data: &mut &'a [u8], n: usize) -> &'a [u8] {
    let (head, tail) = data.split_at(n.min(data.len()));
    *data = tail;
    head
}

pub fn run(data: &[u8]) {
    let sk_bytes = &data[..data.len().min(slh::SIGNING_KEY_LEN)];
    match slh::SigningKey::from_bytes(sk_bytes) {
        Ok(sk) => {
            assert_eq!(sk_bytes.len(), slh::SIGNING_KEY_LEN);
            assert_eq!(&sk.verifying_key().as_bytes()[..], &sk_bytes[32..]);
            assert_eq!(&sk.as_bytes()[..], sk_bytes);
        }
        Err(_) => assert_ne!(sk_bytes.len(), slh::SIGNING_KEY_LEN),
    }

    let mut data = data;
    let header = take(&mut data, 2);
    let &[mode, ctx_len] = header else {
        return;
    };
    let ctx = take(&mut data, usize::from(ctx_len));
    let (vk_bytes, sig_bytes, msg): (Vec<u8>, Vec<u8>, &[u8]) = if mode & 2 == 0 {
        let vk_bytes = if mode & 1 == 1 {
            take(&mut data, slh::VERIFYING_KEY_LEN).to_vec()
        } else {
            fixed().vk.to_bytes().to_vec()
        };
        let sig_bytes = take(&mut data, slh::SIGNATURE_LEN).to_vec();
        (vk_bytes, sig_bytes, data)
    } else {
        let at = take(&mut data, 2);
        // The input may end inside the offset: missing bytes count as zero.
        let byte = |i: usize| at.get(i).copied().unwrap_or(0);
        let at = usize::from(u16::from_le_bytes([byte(0), byte(1)]));
        let mut sig = fixed().sig.to_vec();
        for (i, b) in take(&mut data, 64).iter().enumerate() {
            sig[(at + i) % slh::SIGNATURE_LEN] ^= b;
        }
        (fixed().vk.to_bytes().to_vec(), sig, MESSAGE)
    };

    let vk = slh::VerifyingKey::from_bytes(&vk_bytes);
    assert_eq!(vk.is_ok(), vk_bytes.len() == slh::VERIFYING_KEY_LEN);
    let sig = slh::Signature::from_bytes(&sig_bytes);
    assert_eq!(sig.is_ok(), sig_bytes.len() == slh::SIGNATURE_LEN);
    let native = match (&vk, &sig) {
        (Ok(vk), Ok(sig)) => {
            assert_eq!(&sig.as_bytes()[..], &sig_bytes[..]);
            slh::verify(vk, msg, ctx, sig)
        }
        _ => false,
    };
    let reference = RustCrypto.slhdsa_verify(&vk_bytes, msg, ctx, &sig_bytes);
    assert_eq!(native, reference, "verdicts differ");
}
