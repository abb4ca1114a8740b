//! Every SLH-DSA-SHAKE-128f known-answer vector in ../shared/vectors (NIST ACVP keyGen and
//! sigVer, and the third-party FIPS 205 sigGen file; SOURCES.md there describes each), on
//! every implementation this CPU has.

use nexusq_native::slhdsa_shake128f::*;
use nexusq_native::{Error, available, with_implementation};
use serde_json::Value;
use sha3::Digest as _;

fn json(path: &str) -> Value {
    let p = nexusq_testkit::vector_path(path);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).expect("valid JSON")
}

fn hex(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).expect("valid hex")
}

fn b16(v: &[u8]) -> [u8; 16] {
    v.try_into().expect("16 bytes")
}

fn for_each_implementation(f: impl Fn()) {
    for imp in available() {
        with_implementation(imp, &f);
    }
}

#[test]
fn acvp_keygen() {
    nexusq_testkit::skip_without_vectors!();
    let doc = json("acvp/v1.1.0.43/SLH-DSA-keyGen-FIPS205/internalProjection.json");
    for_each_implementation(|| {
        let mut n = 0;
        for g in doc["testGroups"].as_array().unwrap() {
            assert_eq!(g["parameterSet"], "SLH-DSA-SHAKE-128f");
            for t in g["tests"].as_array().unwrap() {
                let (vk, sk) = keygen_internal(
                    &b16(&hex(&t["skSeed"])),
                    &b16(&hex(&t["skPrf"])),
                    &b16(&hex(&t["pkSeed"])),
                );
                assert_eq!(&vk.as_bytes()[..], &hex(&t["pk"])[..], "tcId {}", t["tcId"]);
                assert_eq!(&sk.as_bytes()[..], &hex(&t["sk"])[..], "tcId {}", t["tcId"]);
                assert_eq!(sk.verifying_key(), vk);
                n += 1;
            }
        }
        assert_eq!(n, 10);
    });
}

/// slh_verify_internal on the message as M' (v1.1.0.35 format, internal interface); the
/// wrong-length signatures are refused by `Signature::from_bytes`.
#[test]
fn acvp_sigver_internal() {
    nexusq_testkit::skip_without_vectors!();
    let doc = json("acvp/v1.1.0.35/SLH-DSA-sigVer-FIPS205/internalProjection.json");
    for_each_implementation(|| {
        let (mut passed, mut failed) = (0, 0);
        for g in doc["testGroups"].as_array().unwrap() {
            assert_eq!(g["parameterSet"], "SLH-DSA-SHAKE-128f");
            for t in g["tests"].as_array().unwrap() {
                let id = &t["tcId"];
                let vk = VerifyingKey::from_bytes(&hex(&t["pk"])).unwrap();
                let msg = hex(&t["message"]);
                assert_eq!(msg.len() * 8, t["messageLength"].as_u64().unwrap() as usize);
                let sig_bytes = hex(&t["signature"]);
                let verdict = match Signature::from_bytes(&sig_bytes) {
                    Ok(sig) => verify_internal(&vk, &msg, &sig),
                    Err(e) => {
                        assert_eq!(
                            e,
                            Error::Length {
                                what: "an SLH-DSA-SHAKE-128f signature",
                                expected: SIGNATURE_LEN,
                                got: sig_bytes.len()
                            }
                        );
                        false
                    }
                };
                assert_eq!(
                    verdict,
                    t["testPassed"] == true,
                    "tcId {id}: {}",
                    t["reason"]
                );
                // The vectors' signing keys belong to their public keys.
                let sk = SigningKey::from_bytes(&hex(&t["sk"])).unwrap();
                assert_eq!(sk.verifying_key(), vk, "tcId {id}");
                if verdict { passed += 1 } else { failed += 1 }
            }
        }
        assert_eq!((passed, failed), (3, 6));
    });
}

/// The DER encoding of a hash function's OID and the hash of `msg` (FIPS 205 Algorithm 23).
fn prehash(alg: &str, msg: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let oid = |last: u8| {
        vec![
            0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, last,
        ]
    };
    match alg {
        "SHA3-256" => (oid(0x08), sha3::Sha3_256::digest(msg).to_vec()),
        "SHA3-384" => (oid(0x09), sha3::Sha3_384::digest(msg).to_vec()),
        other => panic!("no pre-hash {other} in the vectors, add it here"),
    }
}

/// The third-party sigGen vectors (external interface, pure and pre-hash, deterministic and
/// hedged): pure signing through `sign`, pre-hash signing through `sign_internal` of the
/// HashSLH-DSA M'; every signature must be the vector's bytes and must verify.
#[test]
fn fips205_siggen_external() {
    nexusq_testkit::skip_without_vectors!();
    let doc = json("third-party/pslhdsa/siggen_fips205_mini.SLH-DSA-SHAKE-128f.json");
    for_each_implementation(|| {
        let mut n = 0;
        for g in doc["testgroups"].as_array().unwrap() {
            assert_eq!(g["parameterset"], "SLH-DSA-SHAKE-128f");
            assert_eq!(g["signatureinterface"], "external");
            let deterministic = g["deterministic"] == true;
            for t in g["tests"].as_array().unwrap() {
                let id = &t["tcid"];
                let sk = SigningKey::from_bytes(&hex(&t["sk"])).unwrap();
                let vk = VerifyingKey::from_bytes(&hex(&t["pk"])).unwrap();
                assert_eq!(sk.verifying_key(), vk);
                let (msg, ctx) = (hex(&t["message"]), hex(&t["context"]));
                let addrnd = (!deterministic).then(|| b16(&hex(&t["additionalrandomness"])));
                let want = hex(&t["signature"]);
                let (sig, m_prime) = if g["prehash"] == "pure" {
                    let sig = sign(&sk, &msg, &ctx, addrnd.as_ref()).unwrap();
                    assert!(verify(&vk, &msg, &ctx, &sig), "tcid {id}");
                    let mut m_prime = vec![0, ctx.len() as u8];
                    m_prime.extend_from_slice(&ctx);
                    m_prime.extend_from_slice(&msg);
                    (sig, m_prime)
                } else {
                    let (oid, ph) = prehash(t["hashalg"].as_str().unwrap(), &msg);
                    let mut m_prime = vec![1, ctx.len() as u8];
                    m_prime.extend_from_slice(&ctx);
                    m_prime.extend_from_slice(&oid);
                    m_prime.extend_from_slice(&ph);
                    (sign_internal(&sk, &m_prime, addrnd.as_ref()), m_prime)
                };
                assert_eq!(&sig.as_bytes()[..], &want[..], "tcid {id}");
                assert!(verify_internal(&vk, &m_prime, &sig), "tcid {id}");
                n += 1;
            }
        }
        assert_eq!(n, 4);
    });
}

#[test]
fn long_contexts_are_refused() {
    let (vk, sk) = keygen_internal(&[1; 16], &[2; 16], &[3; 16]);
    let ctx = [0u8; 256];
    assert_eq!(
        sign(&sk, b"m", &ctx, None).unwrap_err(),
        Error::ContextTooLong { got: 256 }
    );
    let sig = sign(&sk, b"m", &ctx[..255], None).unwrap();
    assert!(verify(&vk, b"m", &ctx[..255], &sig));
    assert!(!verify(&vk, b"m", &ctx, &sig));
    assert!(!verify(&vk, b"m", &ctx[..254], &sig));
}

#[test]
fn lengths_are_checked() {
    for len in [0, 31, 33] {
        assert!(VerifyingKey::from_bytes(&vec![0; len]).is_err());
    }
    for len in [0, 63, 65] {
        assert!(SigningKey::from_bytes(&vec![0; len]).is_err());
    }
    for len in [0, SIGNATURE_LEN - 1, SIGNATURE_LEN + 1] {
        assert!(Signature::from_bytes(&vec![0; len]).is_err());
    }
    assert!(format!("{:?}", SigningKey::from_bytes(&[7; 64]).unwrap()).contains("<secret>"));
}
