//! `cargo bench --bench suite_ops`: latencies of the hybrid KEMs and the composite signature,
//! and the throughput of file encryption on 100 MiB, in the library (file to file) and end to
//! end through the release binary. Alternating rounds; median and p95 of the pooled samples.

use nexusq::bench::stats::{Summary, summarize};
use nexusq::identity::GenerationSecrets;
use nexusq::suite::file_encryption;
use nexusq::suite::hybrid_kem::{self, KemLevel};
use nexusq::suite::hybrid_sig;
use nexusq::suite::rustcrypto::RustCrypto;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ROUNDS: usize = 5;
const PER_ROUND: usize = 40;
const FILE_MIB: usize = 100;
const FILE_ROUNDS: usize = 3;

fn time<T>(f: impl FnOnce() -> T) -> Duration {
    let start = Instant::now();
    std::hint::black_box(f());
    start.elapsed()
}

fn latency_row(name: &str, s: &Summary) {
    println!(
        "| {name:<34} | {:>5} | {:>9.1} | {:>9.1} |",
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
    let backend = &RustCrypto;
    let g = GenerationSecrets::generate(1);
    let kem = g.kem.as_ref().unwrap();
    let sig = g.sig.as_ref().unwrap();
    let keys = g.public_keys(backend).unwrap();
    let digest = hybrid_sig::prehash(&[0x5a; 32]);
    let ctx = b"nexusq/sig/v1 benchmark context".to_vec();
    let levels = [
        (
            "X-Wing (ML-KEM-768 + X25519)",
            KemLevel::MlKem768,
            &kem.xwing,
            &keys.xwing,
        ),
        (
            "ML-KEM-1024 + X25519",
            KemLevel::MlKem1024,
            &kem.mlkem1024_x25519,
            &keys.mlkem1024_x25519,
        ),
    ];
    let cts: Vec<Vec<u8>> = levels
        .iter()
        .map(|(_, l, _, pk)| hybrid_kem::encapsulate(backend, *l, pk).unwrap().0)
        .collect();
    let signature = hybrid_sig::sign_prehashed(
        backend,
        &sig.mldsa_xi,
        &sig.ed25519,
        &digest,
        &ctx,
        &[1; 32],
    )
    .unwrap();

    // Latencies, alternating operations within each round.
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); 6];
    for _ in 0..ROUNDS {
        for _ in 0..PER_ROUND {
            for (i, (_, level, seed, pk)) in levels.iter().enumerate() {
                samples[2 * i].push(time(|| {
                    hybrid_kem::encapsulate(backend, *level, pk).unwrap()
                }));
                samples[2 * i + 1].push(time(|| {
                    hybrid_kem::decapsulate(backend, *level, seed, &cts[i]).unwrap()
                }));
            }
            let rnd: [u8; 32] = nexusq::secret::random_array();
            samples[4].push(time(|| {
                hybrid_sig::sign_prehashed(
                    backend,
                    &sig.mldsa_xi,
                    &sig.ed25519,
                    &digest,
                    &ctx,
                    &rnd,
                )
                .unwrap()
            }));
            samples[5].push(time(|| {
                assert!(hybrid_sig::verify_prehashed(
                    backend,
                    &keys.mldsa65_ed25519,
                    &digest,
                    &ctx,
                    &signature
                ))
            }));
        }
    }
    println!("Latency, {ROUNDS} alternating rounds x {PER_ROUND}; backend rustcrypto");
    println!("| operation                          |     n | median µs |   p95 µs |");
    println!("|------------------------------------|------:|----------:|---------:|");
    let names = [
        "X-Wing encapsulate",
        "X-Wing decapsulate",
        "ML-KEM-1024 + X25519 encapsulate",
        "ML-KEM-1024 + X25519 decapsulate",
        "ML-DSA-65 + Ed25519 sign (hedged)",
        "ML-DSA-65 + Ed25519 verify",
    ];
    for (name, s) in names.iter().zip(&samples) {
        latency_row(name, &summarize(s));
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
            nexusq::secret::fill_random(&mut block);
            f.write_all(&block).unwrap();
        }
        f.sync_all().unwrap();
    }
    let recipients: Vec<file_encryption::Recipient<'_>> = vec![(KemLevel::MlKem768, &keys.xwing)];
    let candidates: Vec<file_encryption::Candidate<'_>> = vec![(KemLevel::MlKem768, &kem.xwing)];
    let aead_alone = {
        use aes_gcm::aead::{AeadInOut, KeyInit};
        let cipher = aes_gcm::Aes256Gcm::new_from_slice(&[7u8; 32]).unwrap();
        let mut buf = vec![0u8; 1 << 20];
        let mut v = Vec::new();
        for i in 0..(FILE_MIB as u32) {
            let mut nonce = [0u8; 12];
            nonce[..4].copy_from_slice(&i.to_be_bytes());
            v.push(time(|| {
                cipher
                    .encrypt_inout_detached(&nonce.into(), b"", (&mut buf[..]).into())
                    .unwrap()
            }));
        }
        summarize(&v)
    };

    let bin = env!("CARGO_BIN_EXE_nexusq");
    let e2e = E2e::new(dir.path(), bin);
    let (mut lib_enc, mut lib_dec, mut cli_enc, mut cli_dec) = (vec![], vec![], vec![], vec![]);
    for _ in 0..FILE_ROUNDS {
        lib_enc.push(time(|| {
            let mut input = std::fs::File::open(&plain).unwrap();
            let mut out = std::fs::File::create(&enc).unwrap();
            file_encryption::encrypt(backend, &recipients, &mut input, &mut out).unwrap();
            out.sync_all().unwrap();
        }));
        lib_dec.push(time(|| {
            let mut input = std::fs::File::open(&enc).unwrap();
            let mut out = std::fs::File::create(&dec).unwrap();
            file_encryption::decrypt(backend, &candidates, &mut input, &mut out).unwrap();
            out.sync_all().unwrap();
        }));
        cli_enc.push(time(|| {
            e2e.run(&["encrypt", "--to"], &[&e2e.export], &plain, &enc)
        }));
        cli_dec.push(time(|| {
            e2e.run(&["decrypt", "--password-file"], &[&e2e.pw], &enc, &dec)
        }));
    }
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
    throughput_row(
        "library encrypt, file to file (fsync)",
        bytes,
        &summarize(&lib_enc),
    );
    throughput_row(
        "library decrypt, file to file (fsync)",
        bytes,
        &summarize(&lib_dec),
    );
    throughput_row(
        "nexusq encrypt -o (whole process)",
        bytes,
        &summarize(&cli_enc),
    );
    throughput_row(
        "nexusq decrypt -o (whole process, 8 MiB KDF)",
        bytes,
        &summarize(&cli_dec),
    );
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

    fn run(
        &self,
        args: &[&str],
        paths: &[&std::path::Path],
        input: &std::path::Path,
        out: &std::path::Path,
    ) {
        let status = self
            .cmd(args)
            .args(paths)
            .arg("-o")
            .arg(out)
            .arg(input)
            .status()
            .unwrap();
        assert!(status.success());
    }
}
