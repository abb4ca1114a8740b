//! The secret-taint test (ctgrind): run under valgrind's memcheck by `native/ctgrind.sh`.
//!
//! Marks the secret inputs of every operation undefined (`nexusq_native::classify`) and runs
//! the operation on one implementation; memcheck then reports each conditional branch and each
//! memory address that depends on a secret, except on the values the library declassifies
//! because FIPS 203-205 let them show (native/src/ct.rs, docs/security.md). A clean run
//! (the script's `--error-exitcode` not taken) means no secret reaches control flow or
//! addressing.
//!
//! Usage: ctgrind IMPLEMENTATION [ROUNDS]   (whatever `available()` offers under valgrind:
//! portable and avx2 on x86-64, where valgrind has no AVX-512; portable and neon on aarch64,
//! where it hides SHA-3). Each round uses fresh keys and inputs. Outside valgrind it just
//! runs the operations.
//!        ctgrind canary   branches on a classified byte once: memcheck must report it, which
//!                         shows the client requests reach valgrind (a run that marks nothing
//!                         would pass everything).

use nexusq_native::{
    available, classify, mldsa65, mlkem768, mlkem1024, slhdsa_shake128f as slh, with_implementation,
};
use std::hint::black_box;
use std::process::ExitCode;

/// Deterministic inputs, different per round and per use (the test is about data flow, not
/// randomness).
fn bytes<const N: usize>(round: u32, tag: u8) -> [u8; N] {
    core::array::from_fn(|i| (i as u32 * 131 + round * 29 + u32::from(tag) * 7) as u8)
}

macro_rules! kem {
    ($set:ident, $k:expr, $round:expr) => {{
        let (d, z, m): ([u8; 32], [u8; 32], [u8; 32]) =
            (bytes($round, 1), bytes($round, 2), bytes($round, 3));
        classify(&d);
        classify(&z);
        let (ek, dk) = $set::keygen_internal(&d, &z);
        classify(&m);
        let (ct, _) = black_box($set::encapsulate_internal(&ek, &m));
        // dk = dk_PKE (384 k bytes) || ek || H(ek) || z: the first and last parts are secret.
        let dk_bytes = dk.as_bytes();
        classify(&dk_bytes[..384 * $k]);
        classify(&dk_bytes[dk_bytes.len() - 32..]);
        black_box($set::decapsulate(&dk, &ct));
        // An invalid ciphertext takes implicit rejection, which must not show either.
        let mut bad = *ct.as_bytes();
        bad[0] ^= 1;
        let bad = $set::Ciphertext::from_bytes(&bad).expect("length");
        black_box($set::decapsulate(&dk, &bad));
    }};
}

fn mldsa(round: u32) {
    let xi: [u8; 32] = bytes(round, 4);
    classify(&xi);
    let (_, sk) = mldsa65::keygen_internal(&xi);
    // sk = ρ || K || tr || s1 || s2 || t0: ρ and tr are public.
    let sk_bytes = sk.as_bytes();
    classify(&sk_bytes[32..64]);
    classify(&sk_bytes[128..]);
    let (mu, rnd): ([u8; 64], [u8; 32]) = (bytes(round, 5), bytes(round, 6));
    classify(&rnd);
    black_box(mldsa65::sign_mu(&sk, &mu, &rnd));
}

fn slhdsa(round: u32) {
    let (sk_seed, sk_prf, pk_seed): ([u8; 16], [u8; 16], [u8; 16]) =
        (bytes(round, 7), bytes(round, 8), bytes(round, 9));
    classify(&sk_seed);
    classify(&sk_prf);
    let (_, sk) = slh::keygen_internal(&sk_seed, &sk_prf, &pk_seed);
    // sk = SK.seed || SK.prf || PK.seed || PK.root.
    classify(&sk.as_bytes()[..32]);
    let addrnd: [u8; 16] = bytes(round, 10);
    classify(&addrnd);
    let msg: [u8; 40] = bytes(round, 11);
    black_box(slh::sign(&sk, &msg, b"ctgrind", Some(&addrnd)).expect("short context"));
}

/// One branch on a secret, for `canary`.
fn canary() {
    let secret = [1u8];
    classify(&secret);
    if black_box(secret[0]) == 1 {
        eprintln!("ctgrind canary: branched on a secret byte");
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(name), rounds) = (args.next(), args.next()) else {
        eprintln!("usage: ctgrind IMPLEMENTATION [ROUNDS]");
        return ExitCode::from(2);
    };
    if name == "canary" {
        canary();
        return ExitCode::SUCCESS;
    }
    let Some(imp) = available().into_iter().find(|i| i.name() == name) else {
        eprintln!(
            "ctgrind: implementation {name} is not available on this CPU (or under valgrind)"
        );
        return ExitCode::from(2);
    };
    let rounds: u32 = match rounds.as_deref().map(str::parse).unwrap_or(Ok(2)) {
        Ok(n) => n,
        Err(_) => {
            eprintln!("ctgrind: ROUNDS must be a number");
            return ExitCode::from(2);
        }
    };
    with_implementation(imp, || {
        for round in 0..rounds {
            kem!(mlkem768, 3, round);
            kem!(mlkem1024, 4, round);
            mldsa(round);
            slhdsa(round);
        }
    });
    eprintln!("ctgrind: {rounds} rounds on {name} done");
    ExitCode::SUCCESS
}
