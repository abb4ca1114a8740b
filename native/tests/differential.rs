//! Differential tests against RustCrypto's `ml-kem`: keygen, encaps and decaps (of the valid
//! ciphertext and of a corrupted one) from seeds drawn from a SHAKE128 stream, on every
//! implementation this CPU has. `NEXUSQ_DIFF_SEEDS` sets the number of seeds per parameter
//! set and implementation: by default 10 000 in release builds (`.ci/run` runs
//! `cargo test -p nexusq-native --release`) and 2 000 in the quicker debug-assertion builds;
//! fewer under qemu.

use ml_kem::{Decapsulate as _, DecapsulationKey, KeyExport as _, MlKem768, MlKem1024, Seed};
use nexusq_native::{available, mlkem768, mlkem1024, with_implementation};
use sha3::digest::{ExtendableOutput, Update, XofReader};

fn seeds() -> usize {
    std::env::var("NEXUSQ_DIFF_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) {
            2_000
        } else {
            10_000
        })
}

struct Stream(Box<dyn XofReader>);

impl Stream {
    fn new(label: &str) -> Self {
        let mut h = shake::Shake128::default();
        h.update(label.as_bytes());
        Stream(Box::new(h.finalize_xof()))
    }
    fn bytes<const L: usize>(&mut self) -> [u8; L] {
        let mut b = [0u8; L];
        self.0.read(&mut b);
        b
    }
}

macro_rules! differential {
    ($test:ident, $native:ident, $P:ty) => {
        #[test]
        fn $test() {
            for imp in available() {
                let mut rng = Stream::new(concat!("nexusq differential ", stringify!($native)));
                with_implementation(imp, || {
                    for n in 0..seeds() {
                        let (d, z, m) = (rng.bytes::<32>(), rng.bytes::<32>(), rng.bytes::<32>());
                        let flip: [u8; 4] = rng.bytes();

                        let mut seed = Seed::default();
                        seed[..32].copy_from_slice(&d);
                        seed[32..].copy_from_slice(&z);
                        let theirs_dk = DecapsulationKey::<$P>::from_seed(seed);
                        let theirs_ek = theirs_dk.encapsulation_key();
                        let (ek, dk) = $native::keygen_internal(&d, &z);
                        assert_eq!(
                            &ek.as_bytes()[..],
                            &theirs_ek.to_bytes()[..],
                            "{imp:?} keygen, seed {n}"
                        );

                        let (theirs_ct, theirs_ss) = theirs_ek.encapsulate_deterministic(&m.into());
                        let (ct, ss) = $native::encapsulate_internal(&ek, &m);
                        assert_eq!(
                            &ct.as_bytes()[..],
                            &theirs_ct[..],
                            "{imp:?} encaps ct, seed {n}"
                        );
                        assert_eq!(
                            &ss.as_bytes()[..],
                            &theirs_ss[..],
                            "{imp:?} encaps ss, seed {n}"
                        );
                        assert_eq!(
                            $native::decapsulate(&dk, &ct).as_bytes(),
                            ss.as_bytes(),
                            "{imp:?} decaps, seed {n}"
                        );

                        // A corrupted ciphertext: both must return the same rejection key.
                        let mut bad = *ct.as_bytes();
                        let at = u16::from_le_bytes([flip[0], flip[1]]) as usize % bad.len();
                        bad[at] ^= flip[2] | 1;
                        let bad_ct = $native::Ciphertext::from_bytes(&bad).unwrap();
                        let theirs = theirs_dk.decapsulate(&bad[..].try_into().unwrap());
                        let ours = $native::decapsulate(&dk, &bad_ct);
                        assert_eq!(
                            &ours.as_bytes()[..],
                            &theirs[..],
                            "{imp:?} rejection, seed {n}"
                        );
                        assert_ne!(ours.as_bytes(), ss.as_bytes());
                    }
                });
            }
        }
    };
}

differential!(mlkem768_matches_ml_kem, mlkem768, MlKem768);
differential!(mlkem1024_matches_ml_kem, mlkem1024, MlKem1024);
