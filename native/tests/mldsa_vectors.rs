//! Every ML-DSA-65 known-answer vector in ../shared/vectors (NIST ACVP, Wycheproof and
//! C2SP/CCTV; SOURCES.md there describes each file), on every implementation this CPU has.

use nexusq_native::mldsa65::*;
use nexusq_native::{Error, available, with_implementation};
use serde_json::Value;
use sha2::Digest as _;
use sha3::digest::{ExtendableOutput, Update, XofReader};
use std::collections::HashMap;

fn json(path: &str) -> Value {
    let p = nexusq_testkit::vector_path(path);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).expect("valid JSON")
}

fn hex(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).expect("valid hex")
}

/// A field that may be missing (empty then).
fn hex_or_empty(v: &Value) -> Vec<u8> {
    if v.is_null() { Vec::new() } else { hex(v) }
}

fn b32(v: &[u8]) -> [u8; 32] {
    v.try_into().expect("32 bytes")
}

fn b64(v: &[u8]) -> [u8; 64] {
    v.try_into().expect("64 bytes")
}

fn groups(doc: &Value) -> impl Iterator<Item = &Value> {
    doc["testGroups"].as_array().unwrap().iter()
}

fn tests(g: &Value) -> impl Iterator<Item = &Value> {
    g["tests"].as_array().unwrap().iter()
}

fn for_each_implementation(f: impl Fn()) {
    for imp in available() {
        with_implementation(imp, &f);
    }
}

#[test]
fn acvp_keygen() {
    nexusq_testkit::skip_without_vectors!();
    let doc = json("acvp/v1.1.0.43/ML-DSA-keyGen-FIPS204/internalProjection.json");
    for_each_implementation(|| {
        let mut n = 0;
        for g in groups(&doc) {
            assert_eq!(g["parameterSet"], "ML-DSA-65");
            for t in tests(g) {
                let (vk, sk) = keygen_internal(&b32(&hex(&t["seed"])));
                assert_eq!(&vk.as_bytes()[..], &hex(&t["pk"])[..], "tcId {}", t["tcId"]);
                assert_eq!(&sk.as_bytes()[..], &hex(&t["sk"])[..], "tcId {}", t["tcId"]);
                n += 1;
            }
        }
        assert_eq!(n, 25);
    });
}

/// Sign_internal with the message as M' (no prefix), deterministic and hedged.
#[test]
fn acvp_siggen_internal() {
    nexusq_testkit::skip_without_vectors!();
    let doc = json("acvp/v1.1.0.37/ML-DSA-sigGen-FIPS204/internalProjection.json");
    for_each_implementation(|| {
        let mut n = 0;
        for g in groups(&doc) {
            for t in tests(g) {
                let sk = SigningKey::from_bytes(&hex(&t["sk"])).unwrap();
                let rnd = if g["deterministic"] == true {
                    assert!(t["rnd"].is_null());
                    [0u8; 32]
                } else {
                    b32(&hex(&t["rnd"]))
                };
                let sig = sign_internal(&sk, &hex(&t["message"]), &rnd);
                assert_eq!(
                    &sig.as_bytes()[..],
                    &hex(&t["signature"])[..],
                    "tcId {}",
                    t["tcId"]
                );
                n += 1;
            }
        }
        assert_eq!(n, 20);
    });
}

#[test]
fn acvp_sigver_internal_v1_1_0_37() {
    nexusq_testkit::skip_without_vectors!();
    let doc = json("acvp/v1.1.0.37/ML-DSA-sigVer-FIPS204/internalProjection.json");
    for_each_implementation(|| {
        let (mut pass, mut fail) = (0, 0);
        for g in groups(&doc) {
            let vk = VerifyingKey::from_bytes(&hex(&g["pk"])).unwrap();
            for t in tests(g) {
                let want = t["testPassed"].as_bool().unwrap();
                let ok = Signature::from_bytes(&hex(&t["signature"]))
                    .is_ok_and(|sig| verify_internal(&vk, &hex(&t["message"]), &sig));
                assert_eq!(ok, want, "tcId {} ({})", t["tcId"], t["reason"]);
                if want { pass += 1 } else { fail += 1 }
            }
        }
        assert_eq!((pass, fail), (3, 12));
    });
}

/// HashML-DSA's M' = 1 || len(ctx) || ctx || OID || PH(msg) (FIPS 204 algorithm 4), built
/// here so the pre-hash cases can be checked through `verify_internal`.
fn prehash_m_prime(hash_alg: &str, ctx: &[u8], msg: &[u8]) -> Vec<u8> {
    fn xof<H: Default + Update + ExtendableOutput>(msg: &[u8], len: usize) -> Vec<u8> {
        let mut h = H::default();
        h.update(msg);
        let mut out = vec![0u8; len];
        h.finalize_xof().read(&mut out);
        out
    }
    // The last byte of the NIST hash-algorithm OIDs 2.16.840.1.101.3.4.2.x.
    let (arc, ph): (u8, Vec<u8>) = match hash_alg {
        "SHA2-256" => (1, sha2::Sha256::digest(msg).to_vec()),
        "SHA2-384" => (2, sha2::Sha384::digest(msg).to_vec()),
        "SHA2-512" => (3, sha2::Sha512::digest(msg).to_vec()),
        "SHA2-224" => (4, sha2::Sha224::digest(msg).to_vec()),
        "SHA2-512/224" => (5, sha2::Sha512_224::digest(msg).to_vec()),
        "SHA2-512/256" => (6, sha2::Sha512_256::digest(msg).to_vec()),
        "SHA3-224" => (7, sha3::Sha3_224::digest(msg).to_vec()),
        "SHA3-256" => (8, sha3::Sha3_256::digest(msg).to_vec()),
        "SHA3-384" => (9, sha3::Sha3_384::digest(msg).to_vec()),
        "SHA3-512" => (10, sha3::Sha3_512::digest(msg).to_vec()),
        "SHAKE-128" => (11, xof::<shake::Shake128>(msg, 32)),
        "SHAKE-256" => (12, xof::<shake::Shake256>(msg, 64)),
        other => panic!("unknown hash {other}"),
    };
    let oid = [
        0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, arc,
    ];
    let mut m = vec![1u8, ctx.len() as u8];
    m.extend_from_slice(ctx);
    m.extend_from_slice(&oid);
    m.extend_from_slice(&ph);
    m
}

/// All four interfaces of the final-format sigVer: pure with context, HashML-DSA (M' built
/// by the test), internal with M', and external μ.
#[test]
fn acvp_sigver_all_interfaces_v1_1_0_43() {
    nexusq_testkit::skip_without_vectors!();
    let prompt = json("acvp/v1.1.0.43/ML-DSA-sigVer-FIPS204/prompt.json");
    let results = json("acvp/v1.1.0.43/ML-DSA-sigVer-FIPS204/expectedResults.json");
    let expected: HashMap<u64, bool> = groups(&results)
        .flat_map(tests)
        .map(|t| {
            (
                t["tcId"].as_u64().unwrap(),
                t["testPassed"].as_bool().unwrap(),
            )
        })
        .collect();
    for_each_implementation(|| {
        let mut seen: HashMap<String, (usize, usize)> = HashMap::new();
        for g in groups(&prompt) {
            let kind = format!(
                "{}/{}{}",
                g["signatureInterface"].as_str().unwrap(),
                g["preHash"].as_str().unwrap_or(""),
                g["externalMu"]
                    .as_bool()
                    .map_or("", |m| if m { "mu" } else { "message" })
            );
            for t in tests(g) {
                let id = t["tcId"].as_u64().unwrap();
                let want = expected[&id];
                let vk = VerifyingKey::from_bytes(&hex(&t["pk"])).unwrap();
                let sig = Signature::from_bytes(&hex(&t["signature"]));
                let ok = sig.is_ok_and(|sig| match kind.as_str() {
                    "external/pure" => verify(&vk, &hex(&t["message"]), &hex(&t["context"]), &sig),
                    "external/preHash" => {
                        let m = prehash_m_prime(
                            t["hashAlg"].as_str().unwrap(),
                            &hex(&t["context"]),
                            &hex(&t["message"]),
                        );
                        verify_internal(&vk, &m, &sig)
                    }
                    "internal/message" => verify_internal(&vk, &hex(&t["message"]), &sig),
                    "internal/mu" => verify_mu(&vk, &b64(&hex(&t["mu"])), &sig),
                    other => panic!("unknown interface {other}"),
                });
                assert_eq!(ok, want, "{kind} tcId {id}");
                let e = seen.entry(kind.clone()).or_default();
                if want { e.0 += 1 } else { e.1 += 1 }
            }
        }
        assert_eq!(seen.len(), 4, "{seen:?}");
        assert!(seen.values().all(|&c| c == (3, 12)), "{seen:?}");
    });
}

/// The Wycheproof signing rule (SOURCES.md): pure signing with a context; cases with only
/// μ go through the external-μ interface. Returns the number of valid cases.
fn wycheproof_sign_case(
    t: &Value,
    keys: Option<&(VerifyingKey, SigningKey)>,
    pk: Option<&[u8]>,
) -> bool {
    let id = &t["tcId"];
    let valid = t["result"] == "valid";
    let Some((vk, sk)) = keys else {
        assert!(
            !valid,
            "tcId {id}: a case without a usable key must be invalid"
        );
        return false;
    };
    if let Some(pk) = pk {
        assert_eq!(&vk.as_bytes()[..], pk, "tcId {id}");
    }
    let ctx = hex_or_empty(&t["ctx"]);
    let rnd = if t["rnd"].is_null() {
        [0u8; 32]
    } else {
        b32(&hex(&t["rnd"]))
    };
    let sig = if t["msg"].is_null() {
        Ok(sign_mu(sk, &b64(&hex(&t["mu"])), &rnd))
    } else {
        let msg = hex(&t["msg"]);
        if !t["mu"].is_null() && ctx.len() <= 255 {
            let mu = message_representative(vk, &msg, &ctx).unwrap();
            assert_eq!(&mu[..], &hex(&t["mu"])[..], "tcId {id} μ");
        }
        sign(sk, &msg, &ctx, &rnd)
    };
    if !valid {
        assert_eq!(
            sig.unwrap_err(),
            Error::ContextTooLong { got: ctx.len() },
            "tcId {id}"
        );
        return false;
    }
    let sig = sig.unwrap();
    assert_eq!(&sig.as_bytes()[..], &hex(&t["sig"])[..], "tcId {id}");
    if !t["msg"].is_null() {
        assert!(verify(vk, &hex(&t["msg"]), &ctx, &sig), "tcId {id}");
    }
    true
}

#[test]
fn wycheproof_sign_from_seed() {
    nexusq_testkit::skip_without_vectors!();
    let doc = json("wycheproof/mldsa_65_sign_seed_test.json");
    for_each_implementation(|| {
        let (mut valid, mut all) = (0, 0);
        for g in groups(&doc) {
            let seed = hex(&g["privateSeed"]);
            let keys = (seed.len() == 32).then(|| keygen_internal(&b32(&seed)));
            let pk = (!g["publicKey"].is_null()).then(|| hex(&g["publicKey"]));
            for t in tests(g) {
                all += 1;
                valid += wycheproof_sign_case(t, keys.as_ref(), pk.as_deref()) as usize;
            }
        }
        assert_eq!((valid, all), (101, 105));
    });
}

#[test]
fn wycheproof_sign_expanded_key() {
    nexusq_testkit::skip_without_vectors!();
    let doc = json("wycheproof/mldsa_65_sign_noseed_test.json");
    for_each_implementation(|| {
        let (mut valid, mut all, mut refused) = (0, 0, 0);
        for g in groups(&doc) {
            let sk = SigningKey::from_bytes(&hex(&g["privateKey"]));
            let vk = VerifyingKey::from_bytes(&hex_or_empty(&g["publicKey"]));
            let keys = match (vk, sk) {
                (Ok(vk), Ok(sk)) => Some((vk, sk)),
                (_, Err(e)) => {
                    assert!(
                        matches!(e, Error::Length { .. } | Error::SecretRange),
                        "{e}"
                    );
                    refused += 1;
                    None
                }
                (Err(e), Ok(_)) => panic!("{e}"),
            };
            for t in tests(g) {
                all += 1;
                valid += wycheproof_sign_case(t, keys.as_ref(), None) as usize;
            }
        }
        assert_eq!((valid, all, refused), (73, 78, 4));
    });
}

#[test]
fn wycheproof_verify() {
    nexusq_testkit::skip_without_vectors!();
    let doc = json("wycheproof/mldsa_65_verify_test.json");
    for_each_implementation(|| {
        let (mut valid, mut all) = (0, 0);
        for g in groups(&doc) {
            let vk = VerifyingKey::from_bytes(&hex(&g["publicKey"]));
            for t in tests(g) {
                all += 1;
                let id = &t["tcId"];
                let want = t["result"] == "valid";
                let ok = match (&vk, Signature::from_bytes(&hex(&t["sig"]))) {
                    (Ok(vk), Ok(sig)) => {
                        verify(vk, &hex(&t["msg"]), &hex_or_empty(&t["ctx"]), &sig)
                    }
                    _ => false,
                };
                assert_eq!(ok, want, "tcId {id}: {}", t["comment"]);
                valid += want as usize;
            }
        }
        assert_eq!((valid, all), (79, 210));
    });
}

/// C2SP/CCTV accumulated keygen + deterministic sign over SHAKE128 streams (the procedure is
/// in cctv/ML-DSA/accumulated.json). 100 iterations in debug builds, 10 000 in release.
#[test]
fn cctv_accumulated() {
    nexusq_testkit::skip_without_vectors!();
    let doc = json("cctv/ML-DSA/accumulated.json");
    let n = if cfg!(debug_assertions) { 100 } else { 10_000 };
    let want = doc["keygenSignAccumulated"]["results"]["ML-DSA-65"][n.to_string()]
        .as_str()
        .unwrap()
        .to_string();
    for_each_implementation(|| {
        let mut stream = shake::Shake128::default().finalize_xof();
        let mut acc = shake::Shake128::default();
        for _ in 0..n {
            let mut seed = [0u8; 32];
            stream.read(&mut seed);
            let (vk, sk) = keygen_internal(&seed);
            acc.update(vk.as_bytes());
            let sig = sign(&sk, b"", b"", &[0u8; 32]).unwrap();
            acc.update(sig.as_bytes());
            assert!(verify(&vk, b"", b"", &sig));
        }
        let mut out = [0u8; 32];
        acc.finalize_xof().read(&mut out);
        assert_eq!(hex::encode(out), want, "{n} iterations");
    });
}

#[test]
fn lengths_and_context_are_checked() {
    assert!(matches!(
        VerifyingKey::from_bytes(&[0; 1951]),
        Err(Error::Length {
            expected: 1952,
            got: 1951,
            ..
        })
    ));
    assert!(matches!(
        SigningKey::from_bytes(&[0; 4033]),
        Err(Error::Length {
            expected: 4032,
            got: 4033,
            ..
        })
    ));
    assert!(matches!(
        Signature::from_bytes(&[0; 3308]),
        Err(Error::Length {
            expected: 3309,
            got: 3308,
            ..
        })
    ));
    let (vk, sk) = keygen_internal(&[7; 32]);
    assert_eq!(
        sign(&sk, b"m", &[0; 256], &[0; 32]).unwrap_err(),
        Error::ContextTooLong { got: 256 }
    );
    let sig = sign(&sk, b"m", &[1; 255], &[0; 32]).unwrap();
    assert!(verify(&vk, b"m", &[1; 255], &sig));
    assert!(!verify(&vk, b"m", &[1; 254], &sig));
    assert_eq!(format!("{sk:?}"), "mldsa65::SigningKey(<secret>)");
    assert_eq!(
        SigningKey::from_bytes(sk.as_bytes()).unwrap().as_bytes(),
        sk.as_bytes()
    );
}

/// The timing tests' counting variant signs exactly as `sign_mu` does, and counts at least one
/// attempt; over many messages some take more than one (about 5 on average for ML-DSA-65).
#[test]
fn sign_mu_counting_matches_sign_mu() {
    let (_, sk) = keygen_internal(&[1u8; 32]);
    let mut counts = Vec::new();
    for i in 0..40u8 {
        let mu = [i; 64];
        let (sig, attempts) = sign_mu_counting(&sk, &mu, &[2u8; 32]);
        assert_eq!(sig, sign_mu(&sk, &mu, &[2u8; 32]));
        assert!(attempts >= 1);
        counts.push(attempts);
    }
    assert!(counts.iter().any(|&a| a > 1), "{counts:?}");
}
