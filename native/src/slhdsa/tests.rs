//! The batch widths against each other on every implementation: the public API runs W = 8
//! only where the implementation has a native eight-way Keccak (AVX-512), so here both widths
//! run everywhere, and must give the same keys, signatures and verdicts. (tests/ checks the
//! public API against the known-answer vectors and the `slh-dsa` crate.)

use super::params::{N, SIG_BYTES, SK_BYTES};
use super::sign;
use crate::conformance::Rng;
use crate::dispatch::{available, run, with_implementation};

fn bytes<const L: usize>(rng: &mut Rng) -> [u8; L] {
    core::array::from_fn(|_| rng.next() as u8)
}

#[test]
fn widths_4_and_8_agree_on_every_implementation() {
    let mut rng = Rng::new(0x5eed_2205);
    for imp in available() {
        for round in 0..2 {
            let sk_seed = bytes::<N>(&mut rng);
            let sk_prf = bytes::<N>(&mut rng);
            let pk_seed = bytes::<N>(&mut rng);
            let msg: Vec<u8> = (0..(rng.next() % 300) as usize)
                .map(|_| rng.next() as u8)
                .collect();
            let addrnd = bytes::<N>(&mut rng);
            with_implementation(imp, || {
                let root4 = run!(|S| sign::keygen::<S, 4>(&sk_seed, &pk_seed));
                let root8 = run!(|S| sign::keygen::<S, 8>(&sk_seed, &pk_seed));
                assert_eq!(root4, root8, "{imp:?} keygen");
                let mut sk = [0u8; SK_BYTES];
                sk[..N].copy_from_slice(&sk_seed);
                sk[N..2 * N].copy_from_slice(&sk_prf);
                sk[2 * N..3 * N].copy_from_slice(&pk_seed);
                super::hash::node_to_bytes(&root4, &mut sk[3 * N..]);
                let pk: [u8; 2 * N] = sk[2 * N..].try_into().unwrap();
                let mut sig4 = Box::new([0u8; SIG_BYTES]);
                let mut sig8 = Box::new([0u8; SIG_BYTES]);
                run!(|S| sign::sign::<S, 4>(&sk, &[&msg], &addrnd, &mut sig4));
                run!(|S| sign::sign::<S, 8>(&sk, &[&msg], &addrnd, &mut sig8));
                assert!(sig4 == sig8, "{imp:?} sign");
                for width_8 in [false, true] {
                    let verify = |sig: &[u8; SIG_BYTES], m: &[u8]| {
                        if width_8 {
                            run!(|S| sign::verify::<S, 8>(&pk, &[m], sig))
                        } else {
                            run!(|S| sign::verify::<S, 4>(&pk, &[m], sig))
                        }
                    };
                    assert!(verify(&sig4, &msg), "{imp:?} verify");
                    let mut bad = sig4.clone();
                    let at = (rng.next() as usize) % SIG_BYTES;
                    bad[at] ^= 1 << (round % 8);
                    assert!(!verify(&bad, &msg), "{imp:?} flipped byte {at}");
                    assert!(!verify(&sig4, b"other"), "{imp:?} other message");
                }
            });
        }
    }
}
