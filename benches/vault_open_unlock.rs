//! `cargo bench --bench vault_open_unlock`: `vault open` on a fresh vault, and `vault unlock`
//! against bare Argon2id at the same (default) parameters, in alternating rounds.
//! Reported as median / p95 and the unlock / Argon2id ratio from this one run.

use nexusq::bench::stats::{Summary, summarize};
use nexusq::secret::Password;
use nexusq::suite::rustcrypto::RustCrypto;
use nexusq::vault::kdf::{Argon2id, KdfParams, KeyDerivation};
use nexusq::vault::{self, SaveOptions};
use std::time::{Duration, Instant};
use zeroize::Zeroizing;

const ROUNDS: usize = 5;
const OPEN_PER_ROUND: usize = 200;
const KDF_PER_ROUND: usize = 4;

fn time<T>(f: impl FnOnce() -> T) -> Duration {
    let start = Instant::now();
    std::hint::black_box(f());
    start.elapsed()
}

fn row(name: &str, s: &Summary) {
    println!(
        "| {name:<14} | {:>6} | {:>12.1} | {:>12.1} | {:>12.1} |",
        s.count,
        s.median_ns / 1e3,
        s.p95_ns / 1e3,
        s.mean_ns / 1e3
    );
}

fn main() {
    let params = KdfParams::DEFAULT;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bench.nxq");
    let pw = Password::new(Zeroizing::new("benchmark password".into()));
    vault::create(
        &path,
        &pw,
        params,
        &SaveOptions::default(),
        &RustCrypto,
        1_800_000_000,
        |_| Ok(()),
    )
    .expect("create bench vault");
    let salt = vault::open(&path).unwrap().header.salt;

    // Warm-up: page cache, allocator, CPU frequency.
    for _ in 0..20 {
        vault::open(&path).unwrap();
    }
    vault::open(&path)
        .unwrap()
        .unlock(&pw, &Argon2id, &RustCrypto)
        .unwrap();

    let (mut open, mut unlock, mut argon) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        for _ in 0..OPEN_PER_ROUND {
            open.push(time(|| vault::open(&path).unwrap()));
        }
        // Alternate unlock and bare Argon2id so drift hits both alike.
        for _ in 0..KDF_PER_ROUND {
            unlock.push(time(|| {
                vault::open(&path)
                    .unwrap()
                    .unlock(&pw, &Argon2id, &RustCrypto)
                    .unwrap()
            }));
            argon.push(time(|| Argon2id.derive(&pw, &salt, &params).unwrap()));
        }
    }
    let (o, u, a) = (summarize(&open), summarize(&unlock), summarize(&argon));
    println!("KDF: {}; {ROUNDS} alternating rounds", params.describe());
    println!(
        "vault open = read + checksum + parse; vault unlock = open + Argon2id + AEAD + parse + key check"
    );
    println!("| operation      | n      | median (µs)  | p95 (µs)     | mean (µs)    |");
    println!("|----------------|-------:|-------------:|-------------:|-------------:|");
    row("vault open", &o);
    row("vault unlock", &u);
    row("bare Argon2id", &a);
    println!(
        "unlock / Argon2id: median {:.3}, p95 {:.3}",
        u.median_ns / a.median_ns,
        u.p95_ns / a.p95_ns
    );
}
