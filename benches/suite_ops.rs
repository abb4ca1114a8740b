//! `cargo bench --bench suite_ops`: latencies of the hybrid KEMs and the composite signature
//! (decapsulation both with the key kept expanded, as an unlocked vault has it, and from the
//! seed, expanding it each time), and the throughput of file encryption on 100 MiB, in the library (file to file) and end to
//! end through the release binary. Alternating rounds; median and p95 of the pooled samples.
//! The operations and the sampling are `nexusq_core::tools::bench` (shared with `nexusq bench`); only the
//! end-to-end runs of the binary are here.

use nexusq_core::secret::SecretBytes;
use nexusq_core::suite::Backend;
use nexusq_core::suite::hybrid_kem::{self, KemLevel};
use nexusq_core::suite::native::Native;
use nexusq_core::suite::rustcrypto::RustCrypto;
use nexusq_core::tools::bench::ops::{self, Op};
use nexusq_core::tools::bench::stats::{Summary, pool, summarize};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

const ROUNDS: u32 = 5;
const PER_ROUND: u32 = 40;
const FILE_MIB: usize = 100;
const FILE_ROUNDS: u32 = 3;

fn latency_row(name: &str, s: &Summary) {
    println!(
        "| {name:<38} | {:>5} | {:>9.1} | {:>9.1} |",
        s.count,
        s.median_ns / 1e3,
        s.p95_ns / 1e3
    );
}

fn throughput_row(name: &str, bytes: usize, s: &Summary) {
    let gbps = |ns: f64| bytes as f64 / ns; // bytes per ns = GB/s
    println!(
        "| {name:<40} | {:>5} | {:>9.1} | {:>7.2} | {:>7.2} |",
        s.count,
        s.median_ns / 1e6,
        gbps(s.median_ns),
        gbps(s.p95_ns)
    );
}

fn main() {
    // `NEXUSQ_BACKEND=native cargo bench --bench suite_ops` measures the native backend (the
    // end-to-end runs of the binary inherit the variable).
    let backend: &dyn Backend = match std::env::var("NEXUSQ_BACKEND").as_deref() {
        Ok("native") => &Native,
        Ok("rustcrypto" | "") | Err(_) => &RustCrypto,
        Ok(other) => panic!("NEXUSQ_BACKEND={other:?}: use rustcrypto or native"),
    };

    // Latencies, alternating operations sample by sample.
    let mut latency = vec![
        ops::hybrid_encaps(backend, KemLevel::MlKem768).named("X-Wing encapsulate"),
        ops::hybrid_decaps(backend, KemLevel::MlKem768)
            .unwrap()
            .named("X-Wing decapsulate"),
        ops::hybrid_decaps_from_seed(backend, KemLevel::MlKem768)
            .unwrap()
            .named("X-Wing decapsulate from seed"),
        ops::hybrid_encaps(backend, KemLevel::MlKem1024).named("ML-KEM-1024 + X25519 encapsulate"),
        ops::hybrid_decaps(backend, KemLevel::MlKem1024)
            .unwrap()
            .named("ML-KEM-1024 + X25519 decapsulate"),
        ops::hybrid_decaps_from_seed(backend, KemLevel::MlKem1024)
            .unwrap()
            .named("ML-KEM-1024 + X25519 decaps from seed"),
        ops::composite_sign(backend).named("ML-DSA-65 + Ed25519 sign from seeds"),
        ops::composite_sign_kept(backend).named("ML-DSA-65 + Ed25519 sign, key kept"),
        ops::composite_verify(backend)
            .unwrap()
            .named("ML-DSA-65 + Ed25519 verify"),
    ];
    let samples = ops::alternate(&mut latency, ROUNDS * PER_ROUND, 1, 0).unwrap();
    println!(
        "Latency, {ROUNDS} alternating rounds x {PER_ROUND}; backend {}",
        backend.name()
    );
    println!("| operation                              |     n | median µs |   p95 µs |");
    println!("|----------------------------------------|------:|----------:|---------:|");
    for (op, rounds) in latency.iter().zip(&samples) {
        latency_row(op.name(), &summarize(&pool(rounds)));
    }

    // File encryption, file to file, 100 MiB.
    let dir = tempfile::tempdir().expect("temp dir");
    let plain = dir.path().join("plain");
    let enc = dir.path().join("plain.nxq");
    let dec = dir.path().join("plain.out");
    let bytes = FILE_MIB << 20;
    {
        let mut f = std::fs::File::create(&plain).unwrap();
        let mut block = vec![0u8; 1 << 20];
        for _ in 0..FILE_MIB {
            nexusq_core::secret::fill_random(&mut block);
            f.write_all(&block).unwrap();
        }
        f.sync_all().unwrap();
    }
    let seed = SecretBytes::<32>::random();
    let pk = hybrid_kem::public_key(backend, KemLevel::MlKem768, &seed);
    let aead_alone = {
        let mut op = ops::aes_gcm_encrypt(1 << 20);
        summarize(&ops::measure(&mut op, 0, FILE_MIB as u32).unwrap())
    };

    let bin = env!("CARGO_BIN_EXE_nexusq");
    let e2e = E2e::new(dir.path(), bin);
    let mut files = [
        ops::file_encrypt(backend, KemLevel::MlKem768, &pk, &plain, &enc),
        ops::file_decrypt(backend, KemLevel::MlKem768, &seed, &enc, &dec),
        Op::new("nexusq encrypt", || {
            Ok(e2e.run(&["encrypt", "--to"], &[&e2e.export], &plain, &enc))
        }),
        Op::new("nexusq decrypt", || {
            Ok(e2e.run(&["decrypt", "--password-file"], &[&e2e.pw], &enc, &dec))
        }),
    ];
    let s = ops::alternate(&mut files, FILE_ROUNDS, 1, 0).unwrap();
    let s: Vec<Summary> = s.iter().map(|rounds| summarize(&pool(rounds))).collect();
    assert_eq!(std::fs::metadata(&dec).unwrap().len() as usize, bytes);
    println!();
    println!(
        "File encryption of {FILE_MIB} MiB (random data), {FILE_ROUNDS} alternating rounds; GB/s = 10^9 bytes/s"
    );
    println!(
        "| operation                                |     n | median ms | med GB/s | p95 GB/s |"
    );
    println!(
        "|------------------------------------------|------:|----------:|---------:|---------:|"
    );
    throughput_row("AES-256-GCM alone, 1 MiB buffers", 1 << 20, &aead_alone);
    throughput_row("library encrypt, file to file (fsync)", bytes, &s[0]);
    throughput_row("library decrypt, file to file (fsync)", bytes, &s[1]);
    throughput_row("nexusq encrypt -o (whole process)", bytes, &s[2]);
    throughput_row("nexusq decrypt -o (whole process, 8 MiB KDF)", bytes, &s[3]);
}

/// A throwaway vault and its export for the end-to-end runs.
struct E2e {
    bin: &'static str,
    vault: std::path::PathBuf,
    pw: std::path::PathBuf,
    export: std::path::PathBuf,
}

impl E2e {
    fn new(dir: &std::path::Path, bin: &'static str) -> Self {
        use std::os::unix::fs::PermissionsExt;
        let pw = dir.join("pw");
        std::fs::write(&pw, "benchmark\n").unwrap();
        std::fs::set_permissions(&pw, std::fs::Permissions::from_mode(0o600)).unwrap();
        let e = E2e {
            bin,
            vault: dir.join("v.nxq"),
            export: dir.join("v.pub"),
            pw,
        };
        e.cmd(&[
            "init",
            "--kdf-memory-mib",
            "8",
            "--kdf-iterations",
            "1",
            "--password-file",
        ])
        .arg(&e.pw)
        .status()
        .unwrap();
        e.cmd(&["identity", "export", "-o"])
            .arg(&e.export)
            .status()
            .unwrap();
        e
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(self.bin);
        c.arg("--vault").arg(&self.vault).args(args);
        c.stdout(Stdio::null()).stderr(Stdio::null());
        c
    }

    /// Run the binary on `input` to `out`; its wall-clock time.
    fn run(
        &self,
        args: &[&str],
        paths: &[&std::path::Path],
        input: &std::path::Path,
        out: &std::path::Path,
    ) -> std::time::Duration {
        let start = Instant::now();
        let status = self
            .cmd(args)
            .args(paths)
            .arg("-o")
            .arg(out)
            .arg(input)
            .status()
            .unwrap();
        let elapsed = start.elapsed();
        assert!(status.success());
        elapsed
    }
}
