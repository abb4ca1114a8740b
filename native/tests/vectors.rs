//! Every ML-KEM-768/1024 known-answer vector in ../shared/vectors (NIST ACVP, Wycheproof and
//! C2SP/CCTV; SOURCES.md there describes each file), on every implementation this CPU has.

use nexusq_native::{Error, available, with_implementation};
use serde_json::Value;
use std::io::Read as _;
use std::path::PathBuf;

fn vectors() -> PathBuf {
    nexusq_testkit::vectors_dir()
}

fn json(path: &str) -> Value {
    let p = vectors().join(path);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).expect("valid JSON")
}

fn hex(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).expect("valid hex")
}

fn b32(v: &[u8]) -> [u8; 32] {
    v.try_into().expect("32 bytes")
}

/// `name = hex` records from a CCTV text file.
fn cctv(path: &str) -> Vec<std::collections::HashMap<String, Vec<u8>>> {
    let text = std::fs::read_to_string(vectors().join(path)).expect("CCTV file");
    let mut records = vec![std::collections::HashMap::new()];
    for line in text.lines().filter(|l| l.contains(" = ")) {
        let (k, v) = line.split_once(" = ").expect("name = value");
        if records.last().unwrap().contains_key(k) {
            records.push(Default::default());
        }
        records
            .last_mut()
            .unwrap()
            .insert(k.to_string(), hex::decode(v.trim()).expect("hex"));
    }
    records
}

/// The parameter-set-specific calls, so each test is written once for both sets.
macro_rules! suite {
    ($set:ident, $name:literal, $ct_len:expr) => {
        mod $set {
            use super::*;
            use nexusq_native::$set::*;

            const SET: &str = $name;

            fn tests_of(doc: &Value) -> Vec<(&Value, &Value)> {
                doc["testGroups"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|g| g["parameterSet"] == SET)
                    .flat_map(|g| g["tests"].as_array().unwrap().iter().map(move |t| (g, t)))
                    .collect()
            }

            fn for_each_implementation(f: impl Fn()) {
                for imp in available() {
                    with_implementation(imp, &f);
                }
            }

            #[test]
            fn acvp_keygen() {
                nexusq_testkit::skip_without_vectors!();
                let doc = json("acvp/v1.1.0.43/ML-KEM-keyGen-FIPS203/internalProjection.json");
                for_each_implementation(|| {
                    let tests = tests_of(&doc);
                    assert_eq!(tests.len(), 25);
                    for (_, t) in tests {
                        let (ek, dk) = keygen_internal(&b32(&hex(&t["d"])), &b32(&hex(&t["z"])));
                        assert_eq!(&ek.as_bytes()[..], &hex(&t["ek"])[..], "tcId {}", t["tcId"]);
                        assert_eq!(&dk.as_bytes()[..], &hex(&t["dk"])[..], "tcId {}", t["tcId"]);
                    }
                });
            }

            #[test]
            fn acvp_encap_decap_and_key_checks() {
                nexusq_testkit::skip_without_vectors!();
                let doc = json("acvp/v1.1.0.43/ML-KEM-encapDecap-FIPS203/internalProjection.json");
                for_each_implementation(|| {
                    let mut seen = [0usize; 4];
                    for (g, t) in tests_of(&doc) {
                        let id = &t["tcId"];
                        match g["function"].as_str().unwrap() {
                            "encapsulation" => {
                                seen[0] += 1;
                                let ek = EncapsulationKey::from_bytes(&hex(&t["ek"])).unwrap();
                                let (ct, k) = encapsulate_internal(&ek, &b32(&hex(&t["m"])));
                                assert_eq!(&ct.as_bytes()[..], &hex(&t["c"])[..], "tcId {id}");
                                assert_eq!(&k.as_bytes()[..], &hex(&t["k"])[..], "tcId {id}");
                                let dk = DecapsulationKey::from_bytes(&hex(&t["dk"])).unwrap();
                                assert_eq!(
                                    decapsulate(&dk, &ct).as_bytes(),
                                    k.as_bytes(),
                                    "tcId {id}"
                                );
                            }
                            "decapsulation" => {
                                seen[1] += 1;
                                let dk = if g["keyFormat"] == "seed" {
                                    let (_, dk) =
                                        keygen_internal(&b32(&hex(&t["d"])), &b32(&hex(&t["z"])));
                                    assert_eq!(&dk.as_bytes()[..], &hex(&t["dk"])[..], "tcId {id}");
                                    dk
                                } else {
                                    DecapsulationKey::from_bytes(&hex(&t["dk"])).unwrap()
                                };
                                let ct = Ciphertext::from_bytes(&hex(&t["c"])).unwrap();
                                assert_eq!(
                                    &decapsulate(&dk, &ct).as_bytes()[..],
                                    &hex(&t["k"])[..],
                                    "tcId {id}"
                                );
                            }
                            "encapsulationKeyCheck" => {
                                seen[2] += 1;
                                let ok = EncapsulationKey::from_bytes(&hex(&t["ek"])).is_ok();
                                assert_eq!(ok, t["testPassed"].as_bool().unwrap(), "tcId {id}");
                            }
                            "decapsulationKeyCheck" => {
                                seen[3] += 1;
                                let r = DecapsulationKey::from_bytes(&hex(&t["dk"]));
                                assert_eq!(
                                    r.is_ok(),
                                    t["testPassed"].as_bool().unwrap(),
                                    "tcId {id}"
                                );
                                if let Err(e) = r {
                                    assert_eq!(e, Error::KeyHash, "tcId {id}");
                                }
                            }
                            other => panic!("unknown function {other}"),
                        }
                    }
                    assert_eq!(seen, [25, 20, 10, 10]);
                });
            }

            #[test]
            fn wycheproof_keygen_and_decaps() {
                nexusq_testkit::skip_without_vectors!();
                let doc = json(&format!("wycheproof/mlkem_{}_test.json", &SET[7..]));
                for_each_implementation(|| {
                    let mut valid = 0;
                    for (_, t) in tests_of(&doc) {
                        let id = &t["tcId"];
                        let seed = hex(&t["seed"]);
                        let ct = hex(&t["c"]);
                        if t["result"] == "invalid" {
                            // Only a wrong seed or ciphertext length makes a case invalid.
                            assert!(
                                seed.len() != 64 || Ciphertext::from_bytes(&ct).is_err(),
                                "tcId {id}"
                            );
                            continue;
                        }
                        valid += 1;
                        let (ek, dk) = keygen_internal(&b32(&seed[..32]), &b32(&seed[32..]));
                        assert_eq!(&ek.as_bytes()[..], &hex(&t["ek"])[..], "tcId {id}");
                        let ct = Ciphertext::from_bytes(&ct).unwrap();
                        assert_eq!(
                            &decapsulate(&dk, &ct).as_bytes()[..],
                            &hex(&t["K"])[..],
                            "tcId {id}"
                        );
                    }
                    assert_eq!(valid, 153);
                });
            }

            #[test]
            fn wycheproof_encaps_including_unreduced_keys() {
                nexusq_testkit::skip_without_vectors!();
                let doc = json(&format!("wycheproof/mlkem_{}_encaps_test.json", &SET[7..]));
                for_each_implementation(|| {
                    let (mut valid, mut modulus) = (0, 0);
                    for (_, t) in tests_of(&doc) {
                        let id = &t["tcId"];
                        let ek = EncapsulationKey::from_bytes(&hex(&t["ek"]));
                        if t["result"] == "invalid" {
                            let e = ek.expect_err(&format!("tcId {id} must be refused"));
                            if e == Error::Modulus {
                                modulus += 1;
                            } else {
                                assert!(matches!(e, Error::Length { .. }), "tcId {id}: {e}");
                            }
                            continue;
                        }
                        valid += 1;
                        let (ct, k) = encapsulate_internal(&ek.unwrap(), &b32(&hex(&t["m"])));
                        assert_eq!(&ct.as_bytes()[..], &hex(&t["c"])[..], "tcId {id}");
                        assert_eq!(&k.as_bytes()[..], &hex(&t["K"])[..], "tcId {id}");
                    }
                    assert_eq!(valid, 133);
                    assert!(modulus >= 100, "{modulus} modulus failures");
                });
            }

            #[test]
            fn wycheproof_keygen_from_seed() {
                nexusq_testkit::skip_without_vectors!();
                let doc = json(&format!(
                    "wycheproof/mlkem_{}_keygen_seed_test.json",
                    &SET[7..]
                ));
                for_each_implementation(|| {
                    let tests = tests_of(&doc);
                    assert_eq!(tests.len(), 100);
                    for (_, t) in tests {
                        let seed = hex(&t["seed"]);
                        let (ek, dk) = keygen_internal(&b32(&seed[..32]), &b32(&seed[32..]));
                        assert_eq!(&ek.as_bytes()[..], &hex(&t["ek"])[..], "tcId {}", t["tcId"]);
                        assert_eq!(&dk.as_bytes()[..], &hex(&t["dk"])[..], "tcId {}", t["tcId"]);
                    }
                });
            }

            #[test]
            fn wycheproof_expanded_key_decaps_and_checks() {
                nexusq_testkit::skip_without_vectors!();
                let doc = json(&format!(
                    "wycheproof/mlkem_{}_semi_expanded_decaps_test.json",
                    &SET[7..]
                ));
                for_each_implementation(|| {
                    for (_, t) in tests_of(&doc) {
                        let id = &t["tcId"];
                        let dk = DecapsulationKey::from_bytes(&hex(&t["dk"]));
                        let ct = Ciphertext::from_bytes(&hex(&t["c"]));
                        match (dk, ct) {
                            (Ok(dk), Ok(ct)) => {
                                assert_eq!(t["result"], "valid", "tcId {id} must be refused");
                                assert_eq!(
                                    &decapsulate(&dk, &ct).as_bytes()[..],
                                    &hex(&t["K"])[..],
                                    "tcId {id}"
                                );
                            }
                            _ => assert_eq!(t["result"], "invalid", "tcId {id} must be accepted"),
                        }
                    }
                });
            }

            #[test]
            fn cctv_strcmp_unlucky_and_modulus() {
                nexusq_testkit::skip_without_vectors!();
                for_each_implementation(|| {
                    for r in cctv(&format!("cctv/ML-KEM/strcmp/{SET}.txt")) {
                        let dk = DecapsulationKey::from_bytes(&r["dk"]).unwrap();
                        let ct = Ciphertext::from_bytes(&r["c"]).unwrap();
                        assert_eq!(&decapsulate(&dk, &ct).as_bytes()[..], &r["K"][..]);
                    }
                    for r in cctv(&format!("cctv/ML-KEM/unluckysample/{SET}.txt")) {
                        let (ek, dk) = keygen_internal(&b32(&r["d"]), &b32(&r["z"]));
                        assert_eq!(&ek.as_bytes()[..], &r["ek"][..]);
                        assert_eq!(&dk.as_bytes()[..], &r["dk"][..]);
                        let (ct, k) = encapsulate_internal(&ek, &b32(&r["m"]));
                        assert_eq!(&ct.as_bytes()[..], &r["c"][..]);
                        assert_eq!(&k.as_bytes()[..], &r["K"][..]);
                    }
                    let gz = std::fs::File::open(
                        vectors().join(format!("cctv/ML-KEM/modulus/{SET}.txt.gz")),
                    )
                    .expect("modulus vectors");
                    let mut text = String::new();
                    flate2::read::GzDecoder::new(gz)
                        .read_to_string(&mut text)
                        .unwrap();
                    let keys: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
                    assert!(keys.len() >= 780);
                    for line in keys {
                        let e =
                            EncapsulationKey::from_bytes(&hex::decode(line).unwrap()).unwrap_err();
                        assert_eq!(e, Error::Modulus);
                    }
                });
            }

            /// The accumulated pq-crystals test (C2SP/CCTV): 10 000 keygen / encaps / decaps /
            /// rejection rounds hashed together.
            #[test]
            fn cctv_accumulated_10000() {
                nexusq_testkit::skip_without_vectors!();
                use sha3::digest::{ExtendableOutput, Update, XofReader};
                let expected = json("cctv/ML-KEM/accumulated.json")["results"][SET]["10000"]
                    .as_str()
                    .unwrap()
                    .to_string();
                for_each_implementation(|| {
                    let mut rng = shake::Shake128::default().finalize_xof();
                    let mut acc = shake::Shake128::default();
                    let mut read = |n: usize| {
                        let mut b = vec![0u8; n];
                        rng.read(&mut b);
                        b
                    };
                    for _ in 0..10_000 {
                        let (d, z, m) = (read(32), read(32), read(32));
                        let ct_random = read($ct_len);
                        let (ek, dk) = keygen_internal(&b32(&d), &b32(&z));
                        let (ct, k) = encapsulate_internal(&ek, &b32(&m));
                        assert_eq!(decapsulate(&dk, &ct).as_bytes(), k.as_bytes());
                        let k2 = decapsulate(&dk, &Ciphertext::from_bytes(&ct_random).unwrap());
                        for part in [
                            &ek.as_bytes()[..],
                            &dk.as_bytes()[..],
                            &ct.as_bytes()[..],
                            &k.as_bytes()[..],
                            &k2.as_bytes()[..],
                        ] {
                            acc.update(part);
                        }
                    }
                    let mut out = [0u8; 32];
                    acc.clone().finalize_xof().read(&mut out);
                    assert_eq!(hex::encode(out), expected);
                });
            }
        }
    };
}

suite!(mlkem768, "ML-KEM-768", 1088);
suite!(mlkem1024, "ML-KEM-1024", 1568);

#[test]
fn errors_say_what_is_wrong() {
    let e = nexusq_native::mlkem768::EncapsulationKey::from_bytes(&[0u8; 10]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "an ML-KEM-768 encapsulation key must be 1184 bytes, got 10"
    );
    let e = nexusq_native::mlkem1024::Ciphertext::from_bytes(&[]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "an ML-KEM-1024 ciphertext must be 1568 bytes, got 0"
    );
    assert!(Error::Modulus.to_string().contains("modulus check"));
    assert!(Error::KeyHash.to_string().contains("hash check"));
}
