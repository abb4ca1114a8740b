//! The detached-signature parser (armored and binary) and verification against a fixed signer.

use crate::SIGNED_MESSAGE;
use nexusq_core::identity::PublicIdentity;
use nexusq_core::identity::signature::{self, DetachedSignature, Trust};
use nexusq_core::suite::rustcrypto::RustCrypto;
use std::sync::OnceLock;

/// The signer's identity and its signature of SIGNED_MESSAGE (examples/make_seeds.rs).
const IDENTITY: &[u8] = include_bytes!("../../fixtures/identity.bin");
const SIGNATURE: &[u8] = include_bytes!("../../fixtures/signature.bin");

fn signer() -> &'static PublicIdentity {
    static ID: OnceLock<PublicIdentity> = OnceLock::new();
    ID.get_or_init(|| PublicIdentity::decode(IDENTITY).expect("fixture identity"))
}

fn check(sig: &DetachedSignature, raw: &[u8]) {
    assert_eq!(sig.encode(), raw, "signature does not round-trip");
    let digest = signature::digest(SIGNED_MESSAGE);
    let id = signer();
    let trusts = [
        Trust::Identity {
            identity: id,
            expected: None,
        },
        Trust::Fingerprint(id.root_id().fingerprint()),
    ];
    for trust in trusts {
        if signature::verify(&RustCrypto, trust, sig, &digest).is_ok() {
            // Nobody but the signer can make another valid signature: anything accepted must
            // be the fixture itself.
            assert_eq!(raw, SIGNATURE, "a changed signature verified");
        }
    }
}

pub fn run(data: &[u8]) {
    if let Ok(sig) = DetachedSignature::decode(data) {
        check(&sig, data);
    }
    if let Ok(sig) = DetachedSignature::parse(data, "fuzz input") {
        check(&sig, &sig.encode());
    }
}
