//! Detached OpenPGP signatures (docs/openpgp.md, "Signatures"): made by the current
//! generation's ML-DSA-65 + Ed25519 subkey over SHA-512 (v6, 32-byte salt), and verified
//! against someone's RFC 9980 certificate. Only post-quantum signatures count: a good
//! signature by a classical key is refused, so nobody is told "good" on a classical key's word.

use super::cert::PeerCert;
use super::keys::{OpenPgpGeneration, SubkeySigner};
use super::{MAX_CERT_LEN, is_post_quantum, pgp_error, system_time, unix_time};
use crate::error::{Error, Result};
use crate::secret::random_array;
use pgp::KeyHandle;
use pgp::packet::signature::SignatureBuilder;
use pgp::parse::Parse;
use pgp::parse::stream::{
    DetachedVerifierBuilder, MessageLayer, MessageStructure, VerificationError, VerificationHelper,
};
use pgp::policy::StandardPolicy;
use pgp::serialize::Serialize;
use pgp::types::{HashAlgorithm, PublicKeyAlgorithm, SignatureType};
use sequoia_openpgp as pgp;
use std::io::{self, Read};

/// An armored detached v6 signature of `input` by generation `newest`'s signing subkey, made
/// at `signed_at`; `sign` signs the digest (the agent or the vault).
pub fn sign(
    input: &mut dyn Read,
    newest: &impl OpenPgpGeneration,
    signed_at: u64,
    sign: impl FnMut(&[u8]) -> Result<Vec<u8>>,
) -> Result<String> {
    let failed = |e: anyhow::Error| {
        pgp_error(
            "could not make the OpenPGP signature",
            &e,
            "check the vault with nexusq doctor",
        )
    };
    let salt: [u8; 32] = random_array();
    let mut hash = HashAlgorithm::SHA512
        .context()
        .map_err(failed)?
        .for_signature(6);
    hash.update(&salt);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(Error::io(
                    format!("could not read the data to sign: {e}"),
                    "check the file",
                ));
            }
        };
        hash.update(&buf[..n]);
    }
    let mut signer = SubkeySigner::new(newest, sign);
    let sig = SignatureBuilder::new(SignatureType::Binary)
        .set_hash_algo(HashAlgorithm::SHA512)
        .set_prefix_salt(salt.to_vec())
        .0
        .set_signature_creation_time(system_time(signed_at))
        .and_then(|b| b.sign_hash(&mut signer, hash))
        .map_err(failed)?;
    let mut out = Vec::new();
    {
        let mut w = pgp::armor::Writer::new(&mut out, pgp::armor::Kind::Signature)
            .map_err(|e| Error::io(e.to_string(), "a bug"))?;
        pgp::Packet::from(sig).serialize(&mut w).map_err(failed)?;
        w.finalize()
            .map_err(|e| Error::io(e.to_string(), "a bug"))?;
    }
    String::from_utf8(out).map_err(|_| Error::check("armor that is not UTF-8", "a bug"))
}

/// A good post-quantum signature: who made it and when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// The certificate's (primary key's) fingerprint.
    pub fingerprint: pgp::Fingerprint,
    /// The fingerprint of the key that signed (a subkey, or the primary).
    pub key: pgp::Fingerprint,
    /// Its algorithm.
    pub algorithm: PublicKeyAlgorithm,
    /// When the signature says it was made (Unix seconds).
    pub signed_at: u64,
}

/// Verify a detached signature (`sig`, armored or binary) of `data` by `cert`: at least one
/// signature in it must be good, by a post-quantum key of the certificate that was valid
/// and signing-capable when it signed. Exit-code-1 errors say why not.
pub fn verify<R: Read + Send + Sync>(
    data: R,
    sig: &[u8],
    cert: &PeerCert,
    what: &str,
    now: u64,
) -> Result<Verified> {
    if sig.len() > MAX_CERT_LEN {
        return Err(Error::check(
            format!("{what}: larger than {} KiB", MAX_CERT_LEN / 1024),
            "an OpenPGP signature is far smaller; check the file",
        ));
    }
    let policy = StandardPolicy::new();
    let helper = Checker {
        cert: cert.cert.clone(),
        verified: None,
        refusal: None,
    };
    let mut verifier = DetachedVerifierBuilder::from_bytes(sig)
        .and_then(|b| b.with_policy(&policy, Some(system_time(now)), helper))
        .map_err(|e| {
            pgp_error(
                &format!("{what}: not a readable OpenPGP signature"),
                &e,
                "give the detached signature (-----BEGIN PGP SIGNATURE-----)",
            )
        })?;
    let result = verifier.verify_reader(data);
    let helper = verifier.into_helper();
    match (result, helper.verified, helper.refusal) {
        (Ok(()), Some(v), _) => Ok(v),
        (_, _, Some(refusal)) => Err(refusal),
        (Err(e), _, None) => Err(pgp_error(
            &format!("{what}: BAD signature"),
            &e,
            "the data or the signature was changed, or it was made by another key",
        )),
        (Ok(()), None, None) => Err(Error::check(
            format!("{what}: holds no signature"),
            "give the detached signature",
        )),
    }
}

struct Checker {
    cert: pgp::Cert,
    verified: Option<Verified>,
    refusal: Option<Error>,
}

impl VerificationHelper for Checker {
    fn get_certs(&mut self, _ids: &[KeyHandle]) -> pgp::Result<Vec<pgp::Cert>> {
        Ok(vec![self.cert.clone()])
    }

    fn check(&mut self, structure: MessageStructure) -> pgp::Result<()> {
        for layer in structure.into_iter() {
            let MessageLayer::SignatureGroup { results } = layer else {
                continue;
            };
            for result in results {
                match result {
                    Ok(good) => {
                        let algo = good.ka.key().pk_algo();
                        if !is_post_quantum(algo) {
                            self.refusal.get_or_insert(Error::check(
                                format!(
                                    "the signature is good but made by a classical key ({algo})"
                                ),
                                "nexusq accepts only post-quantum (RFC 9980) signatures",
                            ));
                            continue;
                        }
                        if self.verified.is_none() {
                            self.verified = Some(Verified {
                                fingerprint: self.cert.fingerprint(),
                                key: good.ka.key().fingerprint(),
                                algorithm: algo,
                                signed_at: good
                                    .sig
                                    .signature_creation_time()
                                    .map(unix_time)
                                    .unwrap_or(0),
                            });
                        }
                    }
                    Err(e) => {
                        let why = match e {
                            VerificationError::MissingKey { .. } => {
                                "made by a key that is not in this certificate".to_string()
                            }
                            VerificationError::UnboundKey { error, .. } => {
                                format!("made by a key the certificate does not bind now: {error}")
                            }
                            VerificationError::BadKey { error, .. } => {
                                format!("made by a key not valid for signing then: {error}")
                            }
                            VerificationError::BadSignature { error, .. } => {
                                format!("BAD signature: {error}")
                            }
                            VerificationError::MalformedSignature { error, .. } => {
                                format!("a malformed signature: {error}")
                            }
                            VerificationError::UnknownSignature { sig, .. } => {
                                format!("a signature nexusq cannot read ({})", sig.error())
                            }
                            _ => "a signature that cannot be checked".to_string(),
                        };
                        self.refusal.get_or_insert(Error::check(
                            why,
                            "the data or the signature was changed, or it was made by another key",
                        ));
                    }
                }
            }
        }
        if self.verified.is_some() {
            Ok(())
        } else {
            Err(pgp::Error::InvalidOperation("no good post-quantum signature".into()).into())
        }
    }
}
