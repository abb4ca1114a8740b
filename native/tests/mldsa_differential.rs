//! Differential tests of ML-DSA-65 against RustCrypto's `ml-dsa`: keys (verifying and
//! expanded signing key), hedged and deterministic pure signatures with contexts, and
//! verification of valid, bit-flipped and mismatched signatures, from inputs drawn from a
//! SHAKE128 stream, on every implementation this CPU has. `NEXUSQ_DSA_DIFF_SEEDS` sets the
//! number of seeds per implementation: by default 2 000 in release builds and 300 in
//! debug-assertion builds.

use ml_dsa::{KeyExport as _, MlDsa65, signature::Keypair as _};
use nexusq_native::{available, mldsa65, with_implementation};
use sha3::digest::{ExtendableOutput, Update, XofReader};

fn seeds() -> usize {
    std::env::var("NEXUSQ_DSA_DIFF_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 300 } else { 2_000 })
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
    fn vec(&mut self, max: usize) -> Vec<u8> {
        let len = u16::from_le_bytes(self.bytes()) as usize % (max + 1);
        let mut v = vec![0u8; len];
        self.0.read(&mut v);
        v
    }
}

fn theirs_sign(
    sk: &ml_dsa::SigningKey<MlDsa65>,
    msg: &[u8],
    ctx: &[u8],
    rnd: &[u8; 32],
) -> Vec<u8> {
    sk.expanded_key()
        .sign_internal(&[&[0], &[ctx.len() as u8], ctx, msg], &(*rnd).into())
        .encode()
        .to_vec()
}

fn theirs_verify(vk: &ml_dsa::VerifyingKey<MlDsa65>, msg: &[u8], ctx: &[u8], sig: &[u8]) -> bool {
    ml_dsa::Signature::<MlDsa65>::try_from(sig).is_ok_and(|s| vk.verify_with_context(msg, ctx, &s))
}

#[test]
fn matches_rustcrypto_ml_dsa() {
    for imp in available() {
        let mut rng = Stream::new("nexusq differential mldsa65");
        with_implementation(imp, || {
            for n in 0..seeds() {
                let xi: [u8; 32] = rng.bytes();
                let rnd: [u8; 32] = rng.bytes();
                // Mostly short messages, every 16th one up to 5000 bytes (several blocks of μ).
                let msg = rng.vec(if n % 16 == 0 { 5000 } else { 100 });
                let ctx = rng.vec(255);
                let flip = u32::from_le_bytes(rng.bytes()) as usize;

                let theirs = ml_dsa::SigningKey::<MlDsa65>::from_seed(&xi.into());
                let theirs_vk = theirs.verifying_key();
                let (vk, sk) = mldsa65::keygen_internal(&xi);
                assert_eq!(
                    &vk.as_bytes()[..],
                    &theirs_vk.to_bytes()[..],
                    "{imp:?} vk, seed {n}"
                );
                #[allow(deprecated)]
                let theirs_sk = theirs.expanded_key().to_expanded();
                assert_eq!(&sk.as_bytes()[..], &theirs_sk[..], "{imp:?} sk, seed {n}");

                // The expanded key (kept by an unlocked vault) signs the same bytes.
                let expanded = mldsa65::ExpandedSigningKey::new(&sk);
                assert_eq!(expanded.implementation(), imp);
                for rnd in [rnd, [0u8; 32]] {
                    let sig = mldsa65::sign(&sk, &msg, &ctx, &rnd).unwrap();
                    let want = theirs_sign(&theirs, &msg, &ctx, &rnd);
                    assert_eq!(&sig.as_bytes()[..], &want[..], "{imp:?} sign, seed {n}");
                    let again = expanded.sign(&msg, &ctx, &rnd).unwrap();
                    assert_eq!(again, sig, "{imp:?} expanded sign, seed {n}");
                    assert!(mldsa65::verify(&vk, &msg, &ctx, &sig), "{imp:?} seed {n}");
                    assert!(theirs_verify(&theirs_vk, &msg, &ctx, &want));
                }

                // Sign_internal over M' directly (no prefix), and the same through μ.
                let sig = mldsa65::sign_internal(&sk, &msg, &rnd);
                let want = theirs.expanded_key().sign_internal(&[&msg], &rnd.into());
                assert_eq!(
                    &sig.as_bytes()[..],
                    &want.encode()[..],
                    "{imp:?} sign_internal, seed {n}"
                );
                assert!(mldsa65::verify_internal(&vk, &msg, &sig));
                assert_eq!(expanded.sign_internal(&msg, &rnd), sig, "{imp:?} seed {n}");

                // Corrupted and mismatched signatures: both must give the same answer.
                let good = mldsa65::sign(&sk, &msg, &ctx, &rnd).unwrap();
                let mut bad = *good.as_bytes();
                let bit = flip % (8 * bad.len());
                bad[bit / 8] ^= 1 << (bit % 8);
                let bad = mldsa65::Signature::from_bytes(&bad).unwrap();
                let ours = mldsa65::verify(&vk, &msg, &ctx, &bad);
                let want = theirs_verify(&theirs_vk, &msg, &ctx, bad.as_bytes());
                assert_eq!(ours, want, "{imp:?} corrupted bit {bit}, seed {n}");
                let mut other = msg.clone();
                other.push(n as u8);
                assert!(!mldsa65::verify(&vk, &other, &ctx, &good));
                assert!(!theirs_verify(&theirs_vk, &other, &ctx, good.as_bytes()));
                if !ctx.is_empty() {
                    assert!(!mldsa65::verify(&vk, &msg, &ctx[1..], &good));
                }
            }
        });
    }
}

/// An expanded key keeps its implementation's NTT order: made under one implementation, it
/// signs the same bytes while any other is forced (the suite expands once per unlock).
#[test]
fn expanded_key_signs_alike_under_every_forced_implementation() {
    let (_, sk) = mldsa65::keygen_internal(&[7; 32]);
    let want = mldsa65::sign(&sk, b"message", b"ctx", &[9; 32]).unwrap();
    for made in available() {
        let expanded = with_implementation(made, || mldsa65::ExpandedSigningKey::new(&sk));
        assert!(format!("{expanded:?}").contains("<secret>"));
        for forced in available() {
            let sig = with_implementation(forced, || expanded.sign(b"message", b"ctx", &[9; 32]));
            assert_eq!(sig.unwrap(), want, "made {made:?}, forced {forced:?}");
        }
        assert!(expanded.sign(b"m", &[0; 256], &[0; 32]).is_err());
    }
}
