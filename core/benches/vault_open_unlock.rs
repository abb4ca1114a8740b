//! `cargo bench --bench vault_open_unlock`: `vault open` on a fresh vault, and `vault unlock`
//! against bare Argon2id at the same (default) parameters, in alternating rounds.
//! Reported as median / p95 and the unlock / Argon2id ratio from this one run. The operations
//! and the sampling are `nexusq_core::tools::bench` (shared with `nexusq bench`).

use nexusq_core::suite::rustcrypto::RustCrypto;
use nexusq_core::tools::bench::ops;
use nexusq_core::tools::bench::scratch::ThrowawayVault;
use nexusq_core::tools::bench::stats::{Summary, summarize};
use nexusq_core::vault::kdf::KdfParams;

const ROUNDS: usize = 5;
const OPEN_PER_ROUND: u32 = 200;
const KDF_PER_ROUND: u32 = 4;

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
    let vault = ThrowawayVault::create(params, &RustCrypto).expect("create bench vault");
    let mut open = ops::vault_open(&vault);
    let mut kdf = [
        ops::vault_unlock(&vault, &RustCrypto),
        ops::argon2id(&vault).expect("read the salt"),
    ];

    // Warm-up: page cache, allocator, CPU frequency.
    ops::measure(&mut open, 20, 0).unwrap();
    ops::alternate(&mut kdf, 0, 0, 1).unwrap();

    let (mut o, mut u, mut a) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        o.extend(ops::measure(&mut open, 0, OPEN_PER_ROUND).unwrap());
        // Alternate unlock and bare Argon2id sample by sample, so drift hits both alike.
        let s = ops::alternate(&mut kdf, KDF_PER_ROUND, 1, 0).unwrap();
        u.extend(s[0].iter().flatten());
        a.extend(s[1].iter().flatten());
    }
    let (o, u, a) = (summarize(&o), summarize(&u), summarize(&a));
    println!("KDF: {}; {ROUNDS} alternating rounds", params.describe());
    println!(
        "vault open = read + checksum + parse; vault unlock = Argon2id + AEAD + parse + key check \
         (file already read)"
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
