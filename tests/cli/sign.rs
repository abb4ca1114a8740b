//! Detached signatures end to end (docs/signature-format.md):
//! the library's sign/verify policy, exhaustive defect sweeps at library level, and the real
//! binary (`nexusq sign` / `nexusq verify`) with a sample of the same defects.
//!
//! CLI tests: each has its own temporary folder, passes `--vault <tmp>/v.nxq`, creates vaults
//! with small Argon2 parameters, and removes NEXUSQ_VAULT / NEXUSQ_BACKEND from the environment.
//! SLH-DSA signing costs ~0.2 s, so the library fixture issues few certificates, once.

use crate::common;
use crate::common::{SMALL_KDF, private_file};
use assert_cmd::Command;
use nexusq_core::error::ErrorKind;
use nexusq_core::identity::signature::{self, DetachedSignature, Trust, Verified};
use nexusq_core::identity::{
    Certificate, GenerationSecrets, NewIdentity, PublicIdentity, Revocation, RevocationScope,
    RootId,
};
use nexusq_core::suite::root_sig::RootSecret;
use nexusq_core::suite::rustcrypto::RustCrypto;
use nexusq_core::suite::{Backend, BackendChoice, hybrid_sig};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;
use tempfile::TempDir;

const PASSWORD: &str = "correct horse battery staple";
const TIMEOUT: Duration = Duration::from_secs(60);
const DATA: &[u8] = b"the quick brown fox signs a detached file\n";
const T0: u64 = 1_800_000_000;

// ---------------------------------------------------------------------------------------------
// Library fixture: one victim identity with two generations, revocations, a fork and an attacker.

struct Fixture {
    victim: NewIdentity,
    /// Generation 2 of the victim (its certificate chains to generation 1).
    cert2: Certificate,
    /// Root-signed: the signing keys of every generation before 2 are revoked.
    revoke_before_2: Revocation,
    /// A second, different root-signed certificate for generation 1 (a fork), and a signature
    /// over DATA made with its key.
    forked1: Certificate,
    forked_sig: DetachedSignature,
    /// Generation 1 signature over DATA at T0 + 10 with rnd pinned to 7s.
    sig1: DetachedSignature,
    /// Generation 2 signature over DATA.
    sig2: DetachedSignature,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let victim = NewIdentity::generate(&RustCrypto, T0);
        let root_id = victim.public.root_id();
        let cert1 = victim.public.newest().clone();
        let gen2 = GenerationSecrets::generate(2);
        let cert2 = Certificate::issue(
            victim.keys.root(),
            &RustCrypto,
            root_id,
            2,
            T0 + 100,
            T0 + 1_000,
            gen2.public_keys(&RustCrypto).unwrap(),
            cert1.hash(),
            "rotation".into(),
        );
        let revoke_before_2 = Revocation::issue(
            victim.keys.root(),
            &RustCrypto,
            root_id,
            RevocationScope::SigningKeysBefore(2),
            T0 + 100,
            "phone stolen".into(),
        );
        let fork_secrets = GenerationSecrets::generate(1);
        let forked1 = Certificate::issue(
            victim.keys.root(),
            &RustCrypto,
            root_id,
            1,
            T0,
            T0 + 1_000,
            fork_secrets.public_keys(&RustCrypto).unwrap(),
            [0; 32],
            String::new(),
        );
        let forked_sig = signature::sign(
            &RustCrypto,
            &victim.public.root_pk,
            &forked1,
            fork_secrets.sig.as_ref().unwrap(),
            &signature::digest(DATA),
            T0 + 20,
            &[9; 32],
        )
        .unwrap();
        let sig1 = signature::sign_newest(
            &RustCrypto,
            &victim.public,
            &victim.secrets,
            &signature::digest(DATA),
            T0 + 10,
            &[7; 32],
        )
        .unwrap();
        let sig2 = signature::sign(
            &RustCrypto,
            &victim.public.root_pk,
            &cert2,
            gen2.sig.as_ref().unwrap(),
            &signature::digest(DATA),
            T0 + 200,
            &[8; 32],
        )
        .unwrap();
        Fixture {
            victim,
            cert2,
            revoke_before_2,
            forked1,
            forked_sig,
            sig1,
            sig2,
        }
    })
}

fn with_certs(
    f: &Fixture,
    certs: Vec<Certificate>,
    revocations: Vec<Revocation>,
) -> PublicIdentity {
    PublicIdentity {
        root_pk: f.victim.public.root_pk,
        certificates: certs,
        revocations,
    }
}

fn trust(identity: &PublicIdentity) -> Trust<'_> {
    Trust::Identity {
        identity,
        expected: None,
    }
}

fn verify_data(
    trust: Trust<'_>,
    sig: &DetachedSignature,
    data: &[u8],
) -> nexusq_core::error::Result<Verified> {
    signature::verify(&RustCrypto, trust, sig, &signature::digest(data))
}

#[track_caller]
fn refused(r: nexusq_core::error::Result<Verified>, needle: &str) {
    let e = r.expect_err("must be refused");
    assert_eq!(e.kind(), ErrorKind::CheckFailed, "{e:?}");
    assert!(
        e.message().contains(needle),
        "expected {needle:?} in {:?}",
        e.message()
    );
    assert!(!e.hint().is_empty());
}

/// Every backend this build has (the native one joins when it exists).
fn backends() -> Vec<&'static dyn Backend> {
    [BackendChoice::RustCrypto, BackendChoice::Native]
        .into_iter()
        .filter_map(|c| c.backend().ok())
        .collect()
}

/// Run `f` over `items` on every core (the sweeps are embarrassingly parallel).
fn par_for<T: Sync>(items: &[T], f: impl Fn(&T) + Sync) {
    let n = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = items.len().div_ceil(n).max(1);
    std::thread::scope(|s| {
        for part in items.chunks(chunk) {
            let f = &f;
            s.spawn(move || part.iter().for_each(f));
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Library: policy

#[test]
fn library_round_trip_and_trust_sources() {
    let f = fixture();
    let id = &f.victim.public;
    let fp = id.root_id().fingerprint();
    let ok = verify_data(trust(id), &f.sig1, DATA).unwrap();
    assert_eq!(ok.fingerprint(), fp);
    assert_eq!(
        (ok.generation, ok.signed_at, ok.superseded),
        (1, T0 + 10, false)
    );
    assert_eq!(ok.not_after, id.newest().not_after);

    // Through the armor and back.
    let parsed = DetachedSignature::parse(f.sig1.to_armor().as_bytes(), "sig").unwrap();
    assert_eq!(parsed, f.sig1);

    // The fingerprint alone: the root key in the signature, because it matches.
    assert_eq!(
        verify_data(Trust::Fingerprint(fp), &f.sig1, DATA).unwrap(),
        ok
    );
    let other = RootId([0x55; 32]).fingerprint();
    refused(
        verify_data(Trust::Fingerprint(other), &f.sig1, DATA),
        "not the expected",
    );
    // An identity plus a fingerprint: both must agree.
    let with_fp = |expected| Trust::Identity {
        identity: id,
        expected: Some(expected),
    };
    assert!(verify_data(with_fp(fp), &f.sig1, DATA).is_ok());
    refused(
        verify_data(with_fp(other), &f.sig1, DATA),
        "not the expected",
    );

    // Modified data, empty data, another signed_at: bad signature.
    refused(
        verify_data(
            trust(id),
            &f.sig1,
            b"the quick brown fox signs a detached filE\n",
        ),
        "BAD signature",
    );
    refused(verify_data(trust(id), &f.sig1, b""), "BAD signature");
    let mut later = f.sig1.clone();
    later.signed_at += 1;
    refused(verify_data(trust(id), &later, DATA), "BAD signature");

    // Expiry alone is not a reason to refuse: verify does not look at today's date, so a signature
    // made inside the validity stays good after it. But a signing time claimed outside the validity
    // is refused (docs/signature-format.md, section 4), and `sign` does not make one.
    let (created, not_after) = (id.newest().created, id.newest().not_after);
    assert!(
        verify_data(trust(id), &claimed_at(f, not_after), DATA).is_ok(),
        "the last second of the validity"
    );
    refused(
        verify_data(
            trust(id),
            &claimed_at(f, not_after + 10 * 365 * 86_400),
            DATA,
        ),
        "after generation 1",
    );
    refused(
        verify_data(trust(id), &claimed_at(f, created - 3_600), DATA),
        "(claimed), before generation 1",
    );
    let e = signature::sign_newest(
        &RustCrypto,
        id,
        &f.victim.secrets,
        &signature::digest(DATA),
        not_after + 10 * 365 * 86_400,
        &[1; 32],
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Usage);
}

/// A generation 1 signature over DATA claiming any time, made with the key directly (what the
/// holder of the key can do; `sign` refuses times outside the validity).
fn claimed_at(f: &Fixture, signed_at: u64) -> DetachedSignature {
    let cert = f.victim.public.newest();
    let seeds = f.victim.secrets.generations[0].sig.as_ref().unwrap();
    let ctx = signature::context(&f.victim.public.root_id(), 1, signed_at);
    DetachedSignature {
        root_pk: f.victim.public.root_pk,
        signed_at,
        certificate: cert.clone(),
        signature: hybrid_sig::sign_prehashed(
            &RustCrypto,
            &seeds.mldsa_xi,
            &seeds.ed25519,
            &signature::digest(DATA),
            &ctx,
            &[1; 32],
        )
        .unwrap(),
    }
}

#[test]
fn another_identity_cannot_verify_and_is_named() {
    let f = fixture();
    let stranger = NewIdentity::generate(&RustCrypto, T0);
    let e = verify_data(trust(&stranger.public), &f.sig1, DATA).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::CheckFailed);
    let signer = f.victim.public.root_id().fingerprint().to_string();
    assert!(e.message().contains(&signer), "{}", e.message());
    assert!(
        e.message()
            .contains(&stranger.public.root_id().fingerprint().to_string())
    );
}

#[test]
fn generations_supersession_revocation_and_forks() {
    let f = fixture();
    let cert1 = f.victim.public.newest().clone();

    // Knowing generation 2, a generation 1 signature is good but superseded.
    let both = with_certs(f, vec![cert1.clone(), f.cert2.clone()], vec![]);
    both.check_structure().unwrap();
    let ok = verify_data(trust(&both), &f.sig1, DATA).unwrap();
    assert_eq!(
        (ok.generation, ok.superseded, ok.newest_known),
        (1, true, 2)
    );
    let ok = verify_data(trust(&both), &f.sig2, DATA).unwrap();
    assert_eq!(
        (ok.generation, ok.superseded, ok.newest_known),
        (2, false, 2)
    );
    // An older export (generation 1 only) accepts the generation 2 signature: its certificate
    // chains to the known generation 1.
    let ok = verify_data(trust(&f.victim.public), &f.sig2, DATA).unwrap();
    assert_eq!((ok.generation, ok.superseded), (2, false));
    // The fingerprint alone knows nothing newer.
    let fp = f.victim.public.root_id().fingerprint();
    assert!(
        !verify_data(Trust::Fingerprint(fp), &f.sig1, DATA)
            .unwrap()
            .superseded
    );

    // SigningKeysBefore(2): generation 1 is refused, generation 2 is fine.
    let revoked = with_certs(
        f,
        vec![cert1.clone(), f.cert2.clone()],
        vec![f.revoke_before_2.clone()],
    );
    refused(verify_data(trust(&revoked), &f.sig1, DATA), "revoked");
    refused(verify_data(trust(&revoked), &f.sig1, DATA), "generation 1");
    assert!(verify_data(trust(&revoked), &f.sig2, DATA).is_ok());
    // Also when the verifier only knows the newest certificate (a plain export).
    let export = with_certs(f, vec![f.cert2.clone()], vec![f.revoke_before_2.clone()]);
    refused(verify_data(trust(&export), &f.sig1, DATA), "revoked");

    // The whole identity revoked: every generation is refused.
    let gone = with_certs(
        f,
        vec![cert1.clone(), f.cert2.clone()],
        vec![f.victim.revocation.clone()],
    );
    refused(
        verify_data(trust(&gone), &f.sig1, DATA),
        "revoked by its owner",
    );
    refused(
        verify_data(trust(&gone), &f.sig2, DATA),
        "revoked by its owner",
    );

    // A revocation that is not the root's (its signature broken) is ignored, not obeyed.
    let mut fake = f.revoke_before_2.clone();
    fake.signature[100] ^= 1;
    let ignored = with_certs(f, vec![cert1.clone()], vec![fake]);
    assert!(verify_data(trust(&ignored), &f.sig1, DATA).is_ok());

    // Fork: a valid signature whose valid, root-signed certificate differs from the one the
    // verifier knows for that generation.
    let fork = &f.forked_sig;
    assert_eq!(fork.certificate, f.forked1);
    refused(
        verify_data(trust(&f.victim.public), fork, DATA),
        "the root key may have been compromised",
    );
    // Knowing only generation 2: the forked generation 1 does not chain to it.
    let only2 = with_certs(f, vec![f.cert2.clone()], vec![]);
    refused(verify_data(trust(&only2), fork, DATA), "fork");
    // And a generation 2 certificate that does not chain to the known generation 1.
    let forked_history = with_certs(f, vec![f.forked1.clone()], vec![]);
    refused(verify_data(trust(&forked_history), &f.sig2, DATA), "fork");
    // With no history (the fingerprint alone) a fork cannot be seen: that is why an export is
    // the better trust source, and the docs say so.
    assert!(verify_data(Trust::Fingerprint(fp), fork, DATA).is_ok());
}

/// RE-ATTRIBUTION: an attacker certifies the victim's public signing key under the attacker's
/// own root and swaps that certificate (and root key) into the victim's signature. The
/// composite context names root_id, so the signature does not verify for the attacker.
#[test]
fn a_signature_cannot_be_reattributed_to_another_root() {
    let f = fixture();
    let attacker = RootSecret::generate();
    let attacker_pk = attacker.public_key(&RustCrypto);
    let attacker_id = RootId::of(&attacker_pk);
    let victim_cert = f.victim.public.newest();
    // Same generation, same keys (all three, the victim's), a plausible validity.
    let stolen = Certificate::issue(
        &attacker,
        &RustCrypto,
        attacker_id,
        victim_cert.generation,
        victim_cert.created,
        victim_cert.not_after,
        victim_cert.keys.clone(),
        [0; 32],
        String::new(),
    );
    let attacker_identity = PublicIdentity {
        root_pk: attacker_pk,
        certificates: vec![stolen.clone()],
        revocations: vec![],
    };
    attacker_identity.verify_signatures(&RustCrypto).unwrap();
    let mut forged = f.sig1.clone();
    forged.root_pk = attacker_pk;
    forged.certificate = stolen;
    // Structurally a perfect signature file...
    let forged = DetachedSignature::decode(&forged.encode()).unwrap();
    // ...whose root and certificate are valid, but the signature is not the attacker's.
    refused(
        verify_data(trust(&attacker_identity), &forged, DATA),
        "BAD signature",
    );
    refused(
        verify_data(Trust::Fingerprint(attacker_id.fingerprint()), &forged, DATA),
        "BAD signature",
    );
    // Nor does the victim's identity accept it (it names another root).
    refused(
        verify_data(trust(&f.victim.public), &forged, DATA),
        "made by identity",
    );
    // It is the context that stops it: over the victim's context the same bytes verify.
    let victim_ctx = signature::context(&f.victim.public.root_id(), 1, T0 + 10);
    assert!(hybrid_sig::verify_prehashed(
        &RustCrypto,
        &forged.certificate.keys.mldsa65_ed25519,
        &signature::digest(DATA),
        &victim_ctx,
        &forged.signature
    ));
    // And a bare signature over a ctx naming the attacker cannot be produced without the key:
    // the victim's other generation's signature does not help either.
    let mut swapped = f.sig2.clone();
    swapped.root_pk = attacker_pk;
    swapped.certificate = forged.certificate.clone();
    refused(
        verify_data(trust(&attacker_identity), &swapped, DATA),
        "BAD signature",
    );
}

#[test]
fn backends_give_identical_bytes_with_pinned_rnd() {
    let f = fixture();
    let d = signature::digest(DATA);
    let sign = |b: &dyn Backend, rnd: &[u8; 32]| {
        signature::sign_newest(b, &f.victim.public, &f.victim.secrets, &d, T0 + 10, rnd)
            .unwrap()
            .encode()
    };
    let reference = sign(&RustCrypto, &[7; 32]);
    assert_eq!(reference, f.sig1.encode(), "same inputs, same bytes");
    for b in backends() {
        assert_eq!(sign(b, &[7; 32]), reference, "backend {}", b.name());
        assert_eq!(sign(b, &[7; 32]), sign(b, &[7; 32]), "backend {}", b.name());
        // The ML-DSA half depends on rnd (hedged), the Ed25519 half does not.
        let other = sign(b, &[9; 32]);
        let n = reference.len();
        assert_ne!(other[..n - 64], reference[..n - 64]);
        assert_eq!(other[n - 64..], reference[n - 64..]);
        assert!(
            signature::verify(
                b,
                trust(&f.victim.public),
                &DetachedSignature::decode(&other).unwrap(),
                &d
            )
            .is_ok()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Library: exhaustive defect sweeps

/// Decode, then verify against the victim: the whole path a signature file takes.
fn accepts(bytes: &[u8], id: &PublicIdentity) -> bool {
    match DetachedSignature::decode(bytes) {
        Ok(sig) => verify_data(trust(id), &sig, DATA).is_ok(),
        Err(_) => false,
    }
}

#[test]
fn every_truncation_is_refused() {
    let f = fixture();
    let raw = f.sig1.encode();
    let cuts: Vec<usize> = (0..raw.len()).collect();
    par_for(&cuts, |&cut| {
        assert!(
            DetachedSignature::decode(&raw[..cut]).is_err(),
            "truncation to {cut} bytes accepted"
        );
    });
    // Extension by any byte is refused too.
    for extra in [0u8, 0xff] {
        let mut longer = raw.clone();
        longer.push(extra);
        assert!(DetachedSignature::decode(&longer).is_err());
    }
    // Every truncation of the armored text, as the CLI reads it: exit 1.
    let armored = f.sig1.to_armor();
    // Only the final line ending may go (docs/cli.md, "Armor as people paste it").
    assert!(DetachedSignature::parse(&armored.as_bytes()[..armored.len() - 1], "sig").is_ok());
    let cuts: Vec<usize> = (0..armored.len() - 1).collect();
    par_for(&cuts, |&cut| {
        let e = DetachedSignature::parse(&armored.as_bytes()[..cut], "sig").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CheckFailed, "cut {cut}");
    });
}

/// Where a flip is only caught by the root's SLH-DSA signature on the certificate (~15 ms a
/// check): the certificate's dates, its two KEM keys, prev_hash, reason and root signature.
/// Everything else (headers, lengths, root_id, generation, the signing key, both halves of the
/// composite signature) is caught by structure or by the composite signature (<1 ms).
fn slow_region(raw: &[u8], f: &Fixture) -> std::ops::Range<usize> {
    let cert = f.victim.public.newest();
    let cert_start = 53;
    let created = cert_start + 4 + 1 + 32 + 4;
    let cert_end = cert_start + cert.encode().len();
    assert_eq!(&raw[created..created + 8], &cert.created.to_be_bytes());
    created..cert_end
}

#[test]
fn byte_flips_in_the_decoded_signature_are_refused() {
    let f = fixture();
    let id = &f.victim.public;
    let raw = f.sig1.encode();
    let slow = slow_region(&raw, f);
    let key = &id.newest().keys.mldsa65_ed25519;
    let key_at = raw
        .windows(key.len())
        .position(|w| w == &key[..])
        .expect("the signing key is in the certificate");
    assert!(slow.contains(&key_at));
    // Every byte outside the slow region, every byte of the signing key (it is verified by the
    // composite signature), and a stride through the rest of the slow region. The bit flipped
    // varies with the position.
    let positions: Vec<usize> = (0..raw.len())
        .filter(|&p| {
            !slow.contains(&p) || (key_at..key_at + key.len()).contains(&p) || p % 211 == 0
        })
        .collect();
    assert!(positions.len() > 5_000, "{}", positions.len());
    par_for(&positions, |&pos| {
        let mut b = raw.clone();
        b[pos] ^= 1 << (pos % 8);
        assert!(!accepts(&b, id), "flip at {pos} accepted");
        // Through the armor, as the CLI reads it: re-armored, so only the inner checks see it.
        if pos % 197 == 0 {
            let text = nexusq_core::format::armor::encode("SIGNATURE", &b);
            if let Ok(sig) = DetachedSignature::parse(text.as_bytes(), "sig") {
                let e = verify_data(trust(id), &sig, DATA).unwrap_err();
                assert_eq!(e.kind(), ErrorKind::CheckFailed);
            }
        }
    });
}

#[test]
fn byte_flips_in_the_armored_text_are_refused() {
    let f = fixture();
    let id = &f.victim.public;
    let armored = f.sig1.to_armor().into_bytes();
    let raw = f.sig1.encode();
    let slow = slow_region(&raw, f);
    // Base64 position of a decoded byte: 4 characters per 3 bytes, 65 per 64-character line,
    // after the 33-byte BEGIN line.
    let decoded_at = |p: usize| {
        let in_b64 = p.saturating_sub(33);
        (in_b64 - in_b64 / 65) * 3 / 4
    };
    let positions: Vec<usize> = (0..armored.len())
        .filter(|&p| {
            p < 33 + 65 * 3
                || p + 200 > armored.len()
                || (!slow.contains(&decoded_at(p)) && p % 7 == 0)
                || p % 211 == 0
        })
        .collect();
    par_for(&positions, |&pos| {
        let mut t = armored.clone();
        t[pos] ^= [0x01, 0x02, 0x20, 0x40][pos % 4];
        if let Ok(sig) = DetachedSignature::parse(&t, "sig") {
            let e = verify_data(trust(id), &sig, DATA).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::CheckFailed, "flip at {pos}");
        }
    });
}

#[test]
fn hostile_lengths_and_versions_are_refused_without_panic() {
    let f = fixture();
    let raw = f.sig1.encode();
    let cert_len = f.victim.public.newest().encode().len();
    let set = |pos: usize, bytes: &[u8]| {
        let mut b = raw.clone();
        b[pos..pos + bytes.len()].copy_from_slice(bytes);
        b
    };
    let cases = [
        ("magic", set(0, b"NXQC")),
        ("version", set(4, &[2])),
        ("suite", set(5, &[0x00, 0x21])),
        ("root key length", set(7, &[0, 31])),
        ("root key length", set(7, &[0xff, 0xff])),
        ("certificate length", set(49, &[0xff, 0xff, 0xff, 0xff])),
        (
            "certificate length",
            set(49, &(cert_len as u32 - 1).to_be_bytes()),
        ),
        ("signature length", set(53 + cert_len, &[0xff, 0xff])),
        (
            "signature length",
            set(53 + cert_len, &3372u16.to_be_bytes()),
        ),
    ];
    for (what, b) in cases {
        let text = nexusq_core::format::armor::encode("SIGNATURE", &b);
        let e = DetachedSignature::parse(text.as_bytes(), "sig").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CheckFailed, "{what}");
    }
    let e = DetachedSignature::parse(
        nexusq_core::format::armor::encode("SIGNATURE", &set(4, &[2])).as_bytes(),
        "sig",
    )
    .unwrap_err();
    assert!(e.message().contains("newer nexusq"), "{}", e.message());
    // The wrong kind of armored file.
    let e = DetachedSignature::parse(f.victim.public.to_armor().as_bytes(), "sig").unwrap_err();
    assert!(e.message().contains("PUBLIC IDENTITY"), "{}", e.message());
    // A certificate naming another root than the signature's root key.
    let mut other = f.sig1.clone();
    other.root_pk = RootSecret::generate().public_key(&RustCrypto);
    assert!(DetachedSignature::decode(&other.encode()).is_err());
}

// ---------------------------------------------------------------------------------------------
// CLI helpers

fn nexusq() -> Command {
    let mut c = common::bin();
    c.timeout(TIMEOUT);
    c
}

struct Env {
    dir: TempDir,
    vault: PathBuf,
    pw: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().expect("tempdir");
        let vault = dir.path().join("v.nxq");
        let pw = private_file(&dir.path().join("pw"), format!("{PASSWORD}\n"));
        Env { dir, vault, pw }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, data: &[u8]) -> PathBuf {
        let p = self.path(name);
        fs::write(&p, data).unwrap();
        p
    }

    fn cmd(&self) -> Command {
        self.cmd_for(&self.vault)
    }

    fn cmd_for(&self, vault: &Path) -> Command {
        let mut c = nexusq();
        c.arg("--vault").arg(vault);
        c
    }

    /// `init` a vault (this test's, or another path); returns its fingerprint.
    fn init_at(&self, vault: &Path) -> String {
        let out = self
            .cmd_for(vault)
            .arg("init")
            .args(SMALL_KDF)
            .arg("--password-file")
            .arg(&self.pw)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        self.cmd_for(vault)
            .args(["vault", "open", "--json"])
            .output()
            .map(|o| json(&o.stdout)["fingerprint"].as_str().unwrap().to_string())
            .unwrap()
    }

    fn init(&self) -> String {
        self.init_at(&self.vault)
    }

    /// `sign FILE -o SIG` with the password file; asserts success.
    fn sign(&self, file: &Path, sig: &Path) {
        let out = self
            .cmd()
            .arg("sign")
            .arg(file)
            .arg("-o")
            .arg(sig)
            .arg("--password-file")
            .arg(&self.pw)
            .output()
            .unwrap();
        assert!(out.status.success(), "sign: {}", text(&out.stderr));
    }

    /// `verify FILE --sig SIG [extra]`: the process output.
    fn verify(&self, file: &Path, sig: &Path, extra: &[&str]) -> std::process::Output {
        self.cmd()
            .arg("verify")
            .arg(file)
            .arg("--sig")
            .arg(sig)
            .args(extra)
            .output()
            .unwrap()
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn json(b: &[u8]) -> Value {
    serde_json::from_slice(b).unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(b)))
}

#[track_caller]
fn exit_code(out: &std::process::Output, code: i32) {
    let err = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout: {}\nstderr: {err}",
        text(&out.stdout)
    );
    assert!(!err.contains("panicked"), "{err}");
    if code != 0 {
        assert!(err.contains("error:") && err.contains("hint:"), "{err}");
    }
}

fn pseudo_random(len: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// CLI

#[test]
fn cli_sign_and_verify_files_stdin_empty_and_large() {
    let env = Env::new();
    let fp = env.init();

    // A file, verified with the vault's own identity (the default).
    let file = env.write("data.txt", DATA);
    let sig = env.path("data.sig");
    env.sign(&file, &sig);
    let armored = fs::read_to_string(&sig).unwrap();
    assert!(armored.starts_with("-----BEGIN NEXUSQ SIGNATURE-----\n"));
    assert!(armored.ends_with("-----END NEXUSQ SIGNATURE-----\n"));
    let out = env.verify(&file, &sig, &[]);
    exit_code(&out, 0);
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert!(
        stdout.contains("good signature") && stdout.contains(&fp),
        "{stdout}"
    );
    assert!(
        stdout.contains("generation 1") && stdout.contains("(claimed)"),
        "{stdout}"
    );
    assert!(!stdout.contains("superseded"));
    assert!(
        stderr.contains(&format!("verifying with identity {fp}")),
        "{stderr}"
    );

    // --json: one object.
    let out = env.verify(&file, &sig, &["--json"]);
    exit_code(&out, 0);
    let v = json(&out.stdout);
    assert_eq!(v["valid"], true);
    assert_eq!(v["fingerprint"], fp.as_str());
    assert_eq!(v["generation"], 1);
    assert_eq!(v["superseded"], false);
    assert!(v["signed_at"].as_str().unwrap().starts_with("20"), "{v}");

    // A modified message fails with exit 1, a clear message and a hint.
    let modified = env.write(
        "modified.txt",
        b"the quick brown fox signs a detached filE\n",
    );
    let out = env.verify(&modified, &sig, &[]);
    exit_code(&out, 1);
    assert!(text(&out.stderr).contains("BAD signature"));
    assert!(out.stdout.is_empty());
    let out = env.verify(&modified, &sig, &["--json"]);
    exit_code(&out, 1);
    assert_eq!(json(&out.stdout)["valid"], false);

    // stdin in, signature on stdout; verified from stdin.
    let out = env
        .cmd()
        .args(["sign", "-", "--password-file"])
        .arg(&env.pw)
        .write_stdin(DATA)
        .output()
        .unwrap();
    exit_code(&out, 0);
    let stdin_sig = env.write("stdin.sig", &out.stdout);
    exit_code(&env.verify(&file, &stdin_sig, &[]), 0);
    let out = env
        .cmd()
        .arg("verify")
        .arg("--sig")
        .arg(&stdin_sig)
        .write_stdin(DATA)
        .output()
        .unwrap();
    exit_code(&out, 0);
    let out = env
        .cmd()
        .args(["verify", "-", "--sig"])
        .arg(&stdin_sig)
        .write_stdin(&b"other"[..])
        .output()
        .unwrap();
    exit_code(&out, 1);

    // Empty input, from a file and from stdin (no FILE argument at all).
    let empty = env.write("empty", b"");
    let empty_sig = env.path("empty.sig");
    env.sign(&empty, &empty_sig);
    exit_code(&env.verify(&empty, &empty_sig, &[]), 0);
    let out = env
        .cmd()
        .args(["sign", "--password-file"])
        .arg(&env.pw)
        .write_stdin(&b""[..])
        .output()
        .unwrap();
    exit_code(&out, 0);
    let sig_of_nothing = env.write("nothing.sig", &out.stdout);
    exit_code(&env.verify(&empty, &sig_of_nothing, &[]), 0);
    exit_code(&env.verify(&file, &sig_of_nothing, &[]), 1);

    // Several MiB, streamed (from the file, then through stdin).
    let big = pseudo_random(5 * 1024 * 1024 + 17);
    let big_file = env.write("big.bin", &big);
    let big_sig = env.path("big.sig");
    env.sign(&big_file, &big_sig);
    exit_code(&env.verify(&big_file, &big_sig, &[]), 0);
    let out = env
        .cmd()
        .args(["verify", "--sig"])
        .arg(&big_sig)
        .write_stdin(big.clone())
        .output()
        .unwrap();
    exit_code(&out, 0);
    let mut flipped = big;
    flipped[3 * 1024 * 1024] ^= 1;
    let flipped_file = env.write("big2.bin", &flipped);
    exit_code(&env.verify(&flipped_file, &big_sig, &[]), 1);

    // sign --json with -o: one object naming the output.
    let sig2 = env.path("json.sig");
    let out = env
        .cmd()
        .arg("sign")
        .arg(&file)
        .arg("-o")
        .arg(&sig2)
        .args(["--json", "--password-file"])
        .arg(&env.pw)
        .output()
        .unwrap();
    exit_code(&out, 0);
    let v = json(&out.stdout);
    assert_eq!(v["fingerprint"], fp.as_str());
    assert_eq!(v["generation"], 1);
    assert_eq!(v["output"], sig2.display().to_string());
    assert!(v["signed_at"].as_str().unwrap().ends_with('Z'), "{v}");
    exit_code(&env.verify(&file, &sig2, &[]), 0);
}

#[test]
fn cli_trust_sources_identity_file_and_fingerprint() {
    let env = Env::new();
    let fp = env.init();
    let file = env.write("data.txt", DATA);
    let sig = env.path("data.sig");
    env.sign(&file, &sig);
    let export = env.path("export.asc");
    let out = env
        .cmd()
        .args(["identity", "export", "-o"])
        .arg(&export)
        .arg("--password-file")
        .arg(&env.pw)
        .output()
        .unwrap();
    exit_code(&out, 0);

    // Elsewhere, with no vault at all: --identity, and --expect-fingerprint alone.
    let nowhere = env.path("no-such-vault.nxq");
    let verify_elsewhere = |extra: &[&str]| {
        env.cmd_for(&nowhere)
            .arg("verify")
            .arg(&file)
            .arg("--sig")
            .arg(&sig)
            .args(extra)
            .output()
            .unwrap()
    };
    let export_s = export.to_str().unwrap();
    let out = verify_elsewhere(&["--identity", export_s]);
    exit_code(&out, 0);
    assert!(text(&out.stderr).contains(export_s));
    assert!(text(&out.stdout).contains(&fp));

    let typed = fp.replace('-', "").to_uppercase();
    let out = verify_elsewhere(&["--expect-fingerprint", &typed]);
    exit_code(&out, 0);
    assert!(text(&out.stderr).contains("--expect-fingerprint"));
    assert!(text(&out.stdout).contains("good signature"));

    // A mismatching fingerprint is exit 1; a malformed one is a usage error.
    let other_fp = RootId([0x42; 32]).fingerprint().to_string();
    let out = verify_elsewhere(&["--expect-fingerprint", &other_fp]);
    exit_code(&out, 1);
    assert!(
        text(&out.stderr).contains(&fp),
        "the message names the real signer"
    );
    let out = verify_elsewhere(&["--identity", export_s, "--expect-fingerprint", &other_fp]);
    exit_code(&out, 1);
    let out = verify_elsewhere(&["--identity", export_s, "--expect-fingerprint", &fp]);
    exit_code(&out, 0);
    exit_code(&verify_elsewhere(&["--expect-fingerprint", "abcd"]), 2);

    // No vault and no other source: the vault is missing (exit 4), with a hint.
    let out = verify_elsewhere(&[]);
    exit_code(&out, 4);
    assert!(text(&out.stderr).contains("--identity"));

    // Another identity's vault (the default) refuses and names the signer.
    let other_vault = env.path("other.nxq");
    let other_fp = env.init_at(&other_vault);
    let out = env
        .cmd_for(&other_vault)
        .arg("verify")
        .arg(&file)
        .arg("--sig")
        .arg(&sig)
        .output()
        .unwrap();
    exit_code(&out, 1);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&other_fp) && stderr.contains(&fp),
        "{stderr}"
    );
    // And the other identity's export, too.
    let other_export = env.path("other.asc");
    exit_code(
        &env.cmd_for(&other_vault)
            .args(["identity", "export", "-o"])
            .arg(&other_export)
            .arg("--password-file")
            .arg(&env.pw)
            .output()
            .unwrap(),
        0,
    );
    exit_code(
        &verify_elsewhere(&["--identity", other_export.to_str().unwrap()]),
        1,
    );
    // A damaged identity file is exit 1 as well.
    let broken = env.write("broken.asc", b"-----BEGIN NEXUSQ PUBLIC IDENTITY-----\n");
    exit_code(
        &verify_elsewhere(&["--identity", broken.to_str().unwrap()]),
        1,
    );
}

#[test]
fn cli_errors_exit_codes_and_nothing_left_behind() {
    let env = Env::new();
    env.init();
    let file = env.write("data.txt", DATA);
    let sig = env.path("data.sig");
    env.sign(&file, &sig);

    // A missing SIG is an I/O error naming the path; so is missing data.
    let missing = env.path("missing.sig");
    let out = env.verify(&file, &missing, &[]);
    exit_code(&out, 5);
    assert!(text(&out.stderr).contains("missing.sig"));
    exit_code(&env.verify(&env.path("missing.txt"), &sig, &[]), 5);
    exit_code(
        &env.cmd()
            .args(["sign", "--password-file"])
            .arg(&env.pw)
            .arg(env.path("missing.txt"))
            .output()
            .unwrap(),
        5,
    );

    // --password-fd 0 while the data comes on stdin: usage error, before anything is read.
    for args in [
        &["sign", "--password-fd", "0"][..],
        &["sign", "-", "--password-fd", "0"],
    ] {
        let out = env.cmd().args(args).write_stdin(DATA).output().unwrap();
        exit_code(&out, 2);
    }

    // A wrong password: exit 3 and no signature file.
    let wrong = env.write("wrong", b"not the password\n");
    fs::set_permissions(&wrong, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let target = env.path("never.sig");
    let out = env
        .cmd()
        .arg("sign")
        .arg(&file)
        .arg("-o")
        .arg(&target)
        .arg("--password-file")
        .arg(&wrong)
        .output()
        .unwrap();
    exit_code(&out, 3);
    assert!(!target.exists());

    // An output folder that does not exist: I/O error.
    let out = env
        .cmd()
        .arg("sign")
        .arg(&file)
        .arg("-o")
        .arg(env.path("no/such/dir.sig"))
        .arg("--password-file")
        .arg(&env.pw)
        .output()
        .unwrap();
    exit_code(&out, 5);

    // Nothing but what the test wrote is left in the folder (no temporary files).
    let mut names: Vec<String> = fs::read_dir(env.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.iter().all(|n| !n.contains(".tmp.")), "{names:?}");
}

#[test]
fn cli_defective_signature_files_are_exit_1() {
    let env = Env::new();
    env.init();
    let file = env.write("data.txt", DATA);
    let sig = env.path("data.sig");
    env.sign(&file, &sig);
    let armored = fs::read(&sig).unwrap();
    let raw = nexusq_core::format::armor::decode("SIGNATURE", &armored).unwrap();

    let mut variants: Vec<(String, Vec<u8>)> = vec![
        ("empty".into(), vec![]),
        ("garbage".into(), b"hello\n".to_vec()),
        ("binary".into(), raw.clone()),
        // (A missing final newline is forgiven: docs/cli.md, "Armor as people paste it".)
        ("END line cut".into(), armored[..armored.len() - 2].to_vec()),
        (
            "wrong kind".into(),
            nexusq_core::format::armor::encode("PUBLIC IDENTITY", &raw).into_bytes(),
        ),
    ];
    for cut in [1, 40, armored.len() / 2, armored.len() - 30] {
        variants.push((format!("armor cut {cut}"), armored[..cut].to_vec()));
    }
    for pos in [40, 100, 2_000, armored.len() / 2, armored.len() - 100] {
        let mut t = armored.clone();
        t[pos] ^= 0x01;
        variants.push((format!("armor flip {pos}"), t));
    }
    let mut reencode = |name: &str, b: Vec<u8>| {
        variants.push((
            name.into(),
            nexusq_core::format::armor::encode("SIGNATURE", &b).into_bytes(),
        ));
    };
    reencode("bad magic", [b"NXQX".as_slice(), &raw[4..]].concat());
    reencode("unknown version", [&raw[..4], &[9], &raw[5..]].concat());
    reencode("truncated", raw[..raw.len() - 1].to_vec());
    reencode("trailing byte", [raw.as_slice(), &[0]].concat());
    for pos in [20, 60, 5_000, raw.len() - 3_000, raw.len() - 10] {
        let mut b = raw.clone();
        b[pos] ^= 0x10;
        reencode(&format!("inner flip {pos}"), b);
    }
    for (name, bytes) in variants {
        let bad = env.write("bad.sig", &bytes);
        let out = env.verify(&file, &bad, &[]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", text(&out.stderr));
        assert!(!text(&out.stderr).contains("panicked"), "{name}");
        let out = env.verify(&file, &bad, &["--json"]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert_eq!(json(&out.stdout)["valid"], false, "{name}");
    }
    // The unchanged file still verifies.
    exit_code(&env.verify(&file, &sig, &[]), 0);
}

/// Re-attribution through the binary: the attacker certifies the victim's keys under the
/// attacker's root, exports that identity and swaps the certificate into the victim's
/// signature. `verify --identity attacker.asc` must refuse it.
#[test]
fn cli_reattribution_is_refused() {
    let env = Env::new();
    let victim_fp = env.init();
    let file = env.write("data.txt", DATA);
    let sig_path = env.path("data.sig");
    env.sign(&file, &sig_path);
    let sig = DetachedSignature::parse(&fs::read(&sig_path).unwrap(), "sig").unwrap();
    let victim_cert = nexusq_core::vault::open(&env.vault)
        .unwrap()
        .public
        .newest()
        .clone();
    assert_eq!(sig.certificate, victim_cert);

    let attacker = RootSecret::generate();
    let attacker_pk = attacker.public_key(&RustCrypto);
    let attacker_id = RootId::of(&attacker_pk);
    let stolen = Certificate::issue(
        &attacker,
        &RustCrypto,
        attacker_id,
        victim_cert.generation,
        victim_cert.created,
        victim_cert.not_after,
        victim_cert.keys.clone(),
        [0; 32],
        String::new(),
    );
    let attacker_identity = PublicIdentity {
        root_pk: attacker_pk,
        certificates: vec![stolen.clone()],
        revocations: vec![],
    };
    let attacker_export = env.write("attacker.asc", attacker_identity.to_armor().as_bytes());
    let mut forged = sig.clone();
    forged.root_pk = attacker_pk;
    forged.certificate = stolen;
    let forged_path = env.write("forged.sig", forged.to_armor().as_bytes());

    let attacker_fp = attacker_id.fingerprint().to_string();
    for extra in [
        vec!["--identity", attacker_export.to_str().unwrap()],
        vec!["--expect-fingerprint", attacker_fp.as_str()],
    ] {
        let out = env.verify(&file, &forged_path, &extra);
        exit_code(&out, 1);
        assert!(
            text(&out.stderr).contains("BAD signature"),
            "{}",
            text(&out.stderr)
        );
        assert!(!text(&out.stdout).contains("good signature"));
    }
    // The victim's own vault refuses it too, and the original still verifies for the victim.
    exit_code(&env.verify(&file, &forged_path, &[]), 1);
    let out = env.verify(&file, &sig_path, &["--expect-fingerprint", &victim_fp]);
    exit_code(&out, 0);
}

/// After `rotate`, a generation 1 signature still verifies and says "superseded"; an export
/// from before the rotation accepts the new generation's signatures (the certificate chains);
/// after `rotate --compromised`, the vault (and a fresh export) refuse generation 1 and 2
/// signatures as revoked, while generation 3 signs and verifies.
#[test]
fn cli_rotation_supersedes_and_compromise_revokes() {
    let env = Env::new();
    env.init();
    let file = env.write("data.txt", DATA);
    let export = |name: &str| {
        let p = env.path(name);
        let out = env
            .cmd()
            .args(["identity", "export", "-o"])
            .arg(&p)
            .arg("--password-file")
            .arg(&env.pw)
            .output()
            .unwrap();
        exit_code(&out, 0);
        p
    };
    let rotate = |extra: &[&str]| {
        let out = env
            .cmd()
            .arg("rotate")
            .args(extra)
            .arg("--password-file")
            .arg(&env.pw)
            .output()
            .unwrap();
        exit_code(&out, 0);
    };
    let old_export = export("gen1.asc");
    let sig1 = env.path("g1.sig");
    env.sign(&file, &sig1);
    rotate(&[]);
    let sig2 = env.path("g2.sig");
    env.sign(&file, &sig2);

    let out = env.verify(&file, &sig1, &[]);
    exit_code(&out, 0);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("generation 1") && stdout.contains("superseded"),
        "{stdout}"
    );
    let v = json(&env.verify(&file, &sig1, &["--json"]).stdout);
    assert_eq!(
        (v["superseded"].clone(), v["generation"].clone()),
        (true.into(), 1.into())
    );
    let out = env.verify(&file, &sig2, &["--identity", old_export.to_str().unwrap()]);
    exit_code(&out, 0);
    assert!(text(&out.stdout).contains("generation 2"));

    rotate(&["--compromised", "--reason", "phone lost"]);
    let sig3 = env.path("g3.sig");
    env.sign(&file, &sig3);
    let new_export = export("gen3.asc");
    for sig in [&sig1, &sig2] {
        for extra in [vec![], vec!["--identity", new_export.to_str().unwrap()]] {
            let out = env.verify(&file, sig, &extra);
            exit_code(&out, 1);
            assert!(
                text(&out.stderr).contains("revoked"),
                "{}",
                text(&out.stderr)
            );
        }
    }
    exit_code(&env.verify(&file, &sig3, &[]), 0);
    exit_code(
        &env.verify(&file, &sig3, &["--identity", new_export.to_str().unwrap()]),
        0,
    );
}

/// `nexusq ARGS` at a terminal (stdout included), in `v`'s folder; what it showed and how it
/// ended.
fn at_terminal(v: &common::TestVault, args: &[&str]) -> (std::process::ExitStatus, String) {
    let mut c = std::process::Command::new(common::BIN);
    c.arg("--vault")
        .arg(&v.path)
        .args(args)
        .current_dir(&v.dir)
        .env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .env("NO_COLOR", "1");
    let (status, shown) = crate::pty::Terminal::spawn(c).finish();
    (status, String::from_utf8_lossy(&shown).into_owned())
}

/// One file signed at a terminal gets FILE.sig beside it, as several files do: no armor block
/// on the screen unasked. Stdin has no name to put a signature beside, so it is refused with
/// the way out; `-o -` prints the armor when asked.
#[test]
fn a_lone_file_at_a_terminal_gets_its_sig_beside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let v = common::TestVault::new(tmp.path(), "v");
    let pw = v.pw.to_str().unwrap().to_string();
    fs::write(v.dir.join("one.tar.gz"), b"one file\n").unwrap();
    let (status, shown) = at_terminal(&v, &["sign", "--password-file", &pw, "one.tar.gz"]);
    assert!(status.success(), "{shown}");
    assert!(!shown.contains("BEGIN"), "armor on the terminal: {shown}");
    assert!(
        shown.contains("signed one.tar.gz -> one.tar.gz.sig"),
        "{shown}"
    );
    assert!(shown.len() < 600, "{} bytes shown: {shown}", shown.len());
    v.cmd()
        .args(["verify", "one.tar.gz"])
        .current_dir(&v.dir)
        .assert()
        .success();

    // OpenPGP: FILE.asc, as gpg --armor --detach-sign names it.
    let (status, shown) = at_terminal(
        &v,
        &["sign", "--openpgp", "--password-file", &pw, "one.tar.gz"],
    );
    assert!(status.success(), "{shown}");
    assert!(!shown.contains("BEGIN"), "armor on the terminal: {shown}");
    assert!(shown.contains("one.tar.gz.asc"), "{shown}");
    assert!(
        fs::read_to_string(v.dir.join("one.tar.gz.asc"))
            .unwrap()
            .starts_with("-----BEGIN PGP SIGNATURE-----")
    );

    // Stdin: refused before anything is read, with the way to write it.
    let (status, shown) = at_terminal(&v, &["sign", "--password-file", &pw]);
    assert_eq!(status.code(), Some(2), "{shown}");
    assert!(
        shown.contains("-o SIG") && shown.contains("-o -"),
        "{shown}"
    );

    // Asked for: the armor.
    let (status, shown) = at_terminal(
        &v,
        &["sign", "--password-file", &pw, "-o", "-", "one.tar.gz"],
    );
    assert!(status.success(), "{shown}");
    assert!(
        shown.contains("-----BEGIN NEXUSQ SIGNATURE-----"),
        "{shown}"
    );

    // Not a terminal: stdout, as scripts (`nexusq sign f > f.sig`) expect.
    fs::remove_file(v.dir.join("one.tar.gz.sig")).unwrap();
    let out = v
        .cmd()
        .args(["sign", "--password-file", &pw, "one.tar.gz"])
        .current_dir(&v.dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("-----BEGIN NEXUSQ SIGNATURE-----"));
    assert!(!v.dir.join("one.tar.gz.sig").exists());
}
