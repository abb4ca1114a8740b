//! N hybrid decapsulations, for counting instructions (noise-free, unlike timings):
//!
//! ```sh
//! cargo build --release -p nexusq-core --example decaps_count
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
//!     target/release/examples/decaps_count rustcrypto kept 768 200
//! ```
//!
//! Arguments: backend (`rustcrypto` | `native`), key form (`kept`: expanded once, as an
//! unlocked vault holds it; `seed`: expanded at every call, as nexusq did before), ML-KEM set
//! (`768` = X-Wing | `1024`), N. The setup is the same for every N, so
//! (count(N) - count(0)) / N is the cost of one decapsulation.

use nexusq_core::secret::SecretBytes;
use nexusq_core::suite::hybrid_kem::{self, DecapsulationKey, KemLevel};
use nexusq_core::suite::{Backend, BackendChoice};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [backend, form, set, n] = &args[..] else {
        eprintln!("usage: decaps_count rustcrypto|native kept|seed 768|1024 N");
        std::process::exit(2);
    };
    let backend: &dyn Backend = match backend.as_str() {
        "rustcrypto" => BackendChoice::RustCrypto,
        "native" => BackendChoice::Native,
        other => panic!("unknown backend {other}"),
    }
    .backend()
    .expect("backend");
    let level = match set.as_str() {
        "768" => KemLevel::MlKem768,
        "1024" => KemLevel::MlKem1024,
        other => panic!("unknown set {other}"),
    };
    let n: usize = n.parse().expect("N");
    // Fixed inputs, so every run does the same setup.
    let seed = SecretBytes::<32>::from_slice(&[7; 32]).expect("32 bytes");
    let eseed = SecretBytes::<64>::from_slice(&[9; 64]).expect("64 bytes");
    let key = DecapsulationKey::from_seed(backend, level, &seed);
    let (ct, ss) = hybrid_kem::encapsulate_derand(backend, level, key.public_key(), &eseed)
        .expect("encapsulate");
    for _ in 0..n {
        let got = match form.as_str() {
            "kept" => key.decapsulate(&ct),
            "seed" => hybrid_kem::decapsulate(backend, level, &seed, &ct),
            other => panic!("unknown key form {other}"),
        }
        .expect("decapsulate");
        assert_eq!(got.expose(), ss.expose());
    }
}
