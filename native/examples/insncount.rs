//! Runs one ML-KEM or ML-DSA operation N times between the two markers of the QEMU `insncount`
//! plugin (../shared/tools/insncount), so instruction counts per operation can be compared
//! without a phone. benches/insncount.sh builds and runs it; elsewhere the markers are no-ops.
//!
//! Usage: insncount IMPLEMENTATION (portable|neon|neon-sha3|avx2) 768|1024 keygen|encaps|decaps N
//!        insncount IMPLEMENTATION mldsa65|slhdsa keygen|sign|verify N
//!        insncount rustcrypto slhdsa keygen|sign|verify N    (RustCrypto's slh-dsa, the reference)
//!
//! ML-DSA signing takes a varying number of attempts: each of the N signatures is of a
//! different message, so the average over N is comparable with other libraries' averages.
//! SLH-DSA-SHAKE-128f's cost does not depend on the message; its signatures are of N messages
//! too, with fixed optional randomness.

use nexusq_native::{
    available, mldsa65, mlkem768, mlkem1024, slhdsa_shake128f as slh, with_implementation,
};
use std::hint::black_box;
use std::process::ExitCode;

/// Marker 1 starts counting, 2 stops. An unused system call number that Linux and QEMU answer
/// with ENOSYS; the plugin watches for it.
#[inline(never)]
fn marker(kind: u64) {
    #[cfg(target_arch = "aarch64")]
    // SAFETY: a system call that changes no state; x0 is declared clobbered.
    unsafe {
        core::arch::asm!("svc 0", in("x8") 0x1eaf_u64, inout("x0") kind => _)
    }
    #[cfg(not(target_arch = "aarch64"))]
    let _ = kind;
}

macro_rules! measure {
    ($set:ident, $op:expr, $n:expr) => {{
        let z = [9u8; 32];
        let (ek, dk) = $set::keygen_internal(&[7u8; 32], &z);
        let (ct, _) = $set::encapsulate_internal(&ek, &[3u8; 32]);
        match $op {
            "keygen" => {
                marker(1);
                for i in 0..$n {
                    black_box($set::keygen_internal(black_box(&[i as u8; 32]), &z));
                }
                marker(2);
            }
            "encaps" => {
                marker(1);
                for i in 0..$n {
                    black_box($set::encapsulate_internal(black_box(&ek), &[i as u8; 32]));
                }
                marker(2);
            }
            "decaps" => {
                marker(1);
                for _ in 0..$n {
                    black_box($set::decapsulate(black_box(&dk), black_box(&ct)));
                }
                marker(2);
            }
            other => return Err(format!("unknown operation {other:?}")),
        }
        Ok(())
    }};
}

fn measure_mldsa65(op: &str, n: usize) -> Result<(), String> {
    let (vk, sk) = mldsa65::keygen_internal(&[7u8; 32]);
    let sig = mldsa65::sign(&sk, b"message", b"", &[3u8; 32]).map_err(|e| e.to_string())?;
    match op {
        "keygen" => {
            marker(1);
            for i in 0..n {
                black_box(mldsa65::keygen_internal(black_box(&[i as u8; 32])));
            }
            marker(2);
        }
        "sign" => {
            marker(1);
            for i in 0..n {
                let msg = (i as u64).to_le_bytes();
                black_box(mldsa65::sign(black_box(&sk), &msg, b"", &[3u8; 32]).ok());
            }
            marker(2);
        }
        "verify" => {
            marker(1);
            for _ in 0..n {
                black_box(mldsa65::verify(
                    black_box(&vk),
                    b"message",
                    b"",
                    black_box(&sig),
                ));
            }
            marker(2);
        }
        other => return Err(format!("unknown operation {other:?}")),
    }
    Ok(())
}

const SK_SEED: [u8; 16] = [7; 16];
const SK_PRF: [u8; 16] = [8; 16];
const PK_SEED: [u8; 16] = [9; 16];
const ADDRND: [u8; 16] = [3; 16];

fn measure_slhdsa(op: &str, n: usize) -> Result<(), String> {
    let (vk, sk) = slh::keygen_internal(&SK_SEED, &SK_PRF, &PK_SEED);
    let sig = slh::sign(&sk, b"message", b"", Some(&ADDRND)).map_err(|e| e.to_string())?;
    match op {
        "keygen" => {
            marker(1);
            for i in 0..n {
                black_box(slh::keygen_internal(
                    black_box(&[i as u8; 16]),
                    &SK_PRF,
                    &PK_SEED,
                ));
            }
            marker(2);
        }
        "sign" => {
            marker(1);
            for i in 0..n {
                let msg = (i as u64).to_le_bytes();
                black_box(slh::sign(black_box(&sk), &msg, b"", Some(&ADDRND)).ok());
            }
            marker(2);
        }
        "verify" => {
            marker(1);
            for _ in 0..n {
                black_box(slh::verify(
                    black_box(&vk),
                    b"message",
                    b"",
                    black_box(&sig),
                ));
            }
            marker(2);
        }
        other => return Err(format!("unknown operation {other:?}")),
    }
    Ok(())
}

/// The same operations on RustCrypto's `slh-dsa`, the reference the instruction-count goal
/// is set against.
fn measure_rustcrypto_slhdsa(op: &str, n: usize) -> Result<(), String> {
    type Sk = slh_dsa::SigningKey<slh_dsa::Shake128f>;
    let sk = Sk::slh_keygen_internal(&SK_SEED, &SK_PRF, &PK_SEED);
    let vk = sk.as_ref().clone();
    let sig = sk
        .try_sign_with_context(b"message", b"", Some(&ADDRND))
        .map_err(|e| e.to_string())?;
    match op {
        "keygen" => {
            marker(1);
            for i in 0..n {
                black_box(Sk::slh_keygen_internal(
                    black_box(&[i as u8; 16]),
                    &SK_PRF,
                    &PK_SEED,
                ));
            }
            marker(2);
        }
        "sign" => {
            marker(1);
            for i in 0..n {
                let msg = (i as u64).to_le_bytes();
                black_box(
                    sk.try_sign_with_context(black_box(&msg), b"", Some(&ADDRND))
                        .ok(),
                );
            }
            marker(2);
        }
        "verify" => {
            marker(1);
            for _ in 0..n {
                let ok = vk.try_verify_with_context(black_box(b"message"), b"", black_box(&sig));
                black_box(ok.is_ok());
            }
            marker(2);
        }
        other => return Err(format!("unknown operation {other:?}")),
    }
    Ok(())
}

fn run(args: &[String]) -> Result<(), String> {
    let [imp, set, op, n] = args else {
        return Err(
            "usage: insncount IMPLEMENTATION|rustcrypto 768|1024|mldsa65|slhdsa keygen|encaps|decaps|sign|verify N"
                .into(),
        );
    };
    if imp == "rustcrypto" {
        let n: usize = n
            .parse()
            .map_err(|_| format!("N must be a number, got {n:?}"))?;
        return match set.as_str() {
            "slhdsa" => measure_rustcrypto_slhdsa(op, n),
            other => Err(format!("no RustCrypto reference for {other:?} here")),
        };
    }
    let imp = available()
        .into_iter()
        .find(|i| i.name() == imp)
        .ok_or_else(|| {
            format!(
                "implementation {imp:?} is not available here: {:?}",
                available()
            )
        })?;
    let n: usize = n
        .parse()
        .map_err(|_| format!("N must be a number, got {n:?}"))?;
    with_implementation(imp, || match set.as_str() {
        "768" => measure!(mlkem768, op.as_str(), n),
        "1024" => measure!(mlkem1024, op.as_str(), n),
        "mldsa65" => measure_mldsa65(op, n),
        "slhdsa" => measure_slhdsa(op, n),
        other => Err(format!("unknown parameter set {other:?}")),
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("insncount: {e}");
            ExitCode::from(2)
        }
    }
}
