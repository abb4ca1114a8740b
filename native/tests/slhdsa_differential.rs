//! Differential tests of SLH-DSA-SHAKE-128f against RustCrypto's `slh-dsa`: keys from random
//! seeds; hedged and deterministic pure signatures of random messages with random contexts
//! (and slh_sign_internal of random M'); and verification of those signatures, of copies with
//! a flipped bit in the randomizer, the FORS part and the hypertree part, and of other
//! messages and contexts — on every implementation this CPU has. Inputs come from a SHAKE128
//! stream. `NEXUSQ_SLH_DIFF_SEEDS` sets the number of signing seeds (each also checks 5 keys):
//! by default 150 in release builds and 6 in debug-assertion builds (RustCrypto's signing
//! takes about 50 ms optimised).

use nexusq_native::{available, slhdsa_shake128f as ours, with_implementation};
use sha3::digest::{ExtendableOutput, Update, XofReader};
use slh_dsa::Shake128f;

fn seeds() -> usize {
    std::env::var("NEXUSQ_SLH_DIFF_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 6 } else { 150 })
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
    fn below(&mut self, n: usize) -> usize {
        u32::from_le_bytes(self.bytes()) as usize % n
    }
    fn vec(&mut self, max: usize) -> Vec<u8> {
        let mut v = vec![0u8; self.below(max + 1)];
        self.0.read(&mut v);
        v
    }
}

type TheirSk = slh_dsa::SigningKey<Shake128f>;
type TheirVk = slh_dsa::VerifyingKey<Shake128f>;

fn their_verify(vk: &TheirVk, msg: &[u8], ctx: &[u8], sig: &[u8]) -> bool {
    slh_dsa::Signature::<Shake128f>::try_from(sig)
        .is_ok_and(|s| vk.try_verify_with_context(msg, ctx, &s).is_ok())
}

fn our_verify(vk: &ours::VerifyingKey, msg: &[u8], ctx: &[u8], sig: &[u8]) -> bool {
    ours::Signature::from_bytes(sig).is_ok_and(|s| ours::verify(vk, msg, ctx, &s))
}

/// Keygen of `n` random seed triples on every implementation, against slh-dsa.
fn check_keys(rng: &mut Stream, n: usize) {
    for _ in 0..n {
        let (a, b, c) = (rng.bytes::<16>(), rng.bytes::<16>(), rng.bytes::<16>());
        let theirs = TheirSk::slh_keygen_internal(&a, &b, &c);
        for imp in available() {
            let (vk, sk) = with_implementation(imp, || ours::keygen_internal(&a, &b, &c));
            assert_eq!(&sk.as_bytes()[..], &theirs.to_bytes()[..], "{imp:?} sk");
            assert_eq!(
                &vk.as_bytes()[..],
                &theirs.as_ref().to_bytes()[..],
                "{imp:?} vk"
            );
        }
    }
}

#[test]
fn matches_rustcrypto_slh_dsa() {
    let mut rng = Stream::new("nexusq differential slh-dsa-shake-128f");
    let n = seeds();
    check_keys(&mut rng, 5 * n);
    for case in 0..n {
        let (a, b, c) = (rng.bytes::<16>(), rng.bytes::<16>(), rng.bytes::<16>());
        let their_sk = TheirSk::slh_keygen_internal(&a, &b, &c);
        let their_vk: &TheirVk = their_sk.as_ref();
        let msg = rng.vec(if case % 4 == 0 { 3000 } else { 200 });
        let ctx = rng.vec(255);
        let addrnd = rng.bytes::<16>();
        let hedged = case % 2 == 0;
        let opt = hedged.then_some(&addrnd);
        let theirs = their_sk
            .try_sign_with_context(&msg, &ctx, opt.map(|r| &r[..]))
            .unwrap()
            .to_vec();
        let theirs_internal = their_sk
            .slh_sign_internal(&[&msg], opt.map(|r| &r[..]))
            .to_vec();
        // Bit flips in R, SIG_FORS and SIG_HT, and a random one.
        let flips = [
            rng.below(16 * 8),
            16 * 8 + rng.below(3696 * 8),
            (16 + 3696) * 8 + rng.below(13376 * 8),
            rng.below(ours::SIGNATURE_LEN * 8),
        ];
        let other_ctx = {
            let mut o = ctx.clone();
            o.push(case as u8);
            o
        };
        let mut verdicts = Vec::new();
        for &bit in &flips {
            let mut bad = theirs.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            verdicts.push((bad.clone(), their_verify(their_vk, &msg, &ctx, &bad)));
        }
        assert!(their_verify(their_vk, &msg, &ctx, &theirs));
        assert!(!their_verify(their_vk, &msg, &other_ctx, &theirs));
        for imp in available() {
            with_implementation(imp, || {
                let (vk, sk) = ours::keygen_internal(&a, &b, &c);
                let sig = ours::sign(&sk, &msg, &ctx, opt).unwrap();
                assert_eq!(&sig.as_bytes()[..], &theirs[..], "{imp:?} case {case} sign");
                let internal = ours::sign_internal(&sk, &msg, opt);
                assert_eq!(
                    &internal.as_bytes()[..],
                    &theirs_internal[..],
                    "{imp:?} case {case} sign_internal"
                );
                assert!(ours::verify_internal(&vk, &msg, &internal));
                assert!(our_verify(&vk, &msg, &ctx, &theirs), "{imp:?} case {case}");
                assert!(!our_verify(&vk, &msg, &other_ctx, &theirs), "{imp:?} ctx");
                let mut other_msg = msg.clone();
                other_msg.push(1);
                assert!(!our_verify(&vk, &other_msg, &ctx, &theirs), "{imp:?} msg");
                for (bad, verdict) in &verdicts {
                    assert_eq!(
                        our_verify(&vk, &msg, &ctx, bad),
                        *verdict,
                        "{imp:?} case {case} flipped signature"
                    );
                }
            });
        }
    }
}
