//! HPKE base mode (RFC 9180, section 6.1) with exactly one suite: KEM MLKEM768-X25519 (X-Wing,
//! 0x647a, draft-ietf-hpke-pq), KDF HKDF-SHA256 (0x0001), AEAD ChaCha20Poly1305 (0x0003).
//!
//! The KEM is [`crate::suite::hybrid_kem`]'s X-Wing, computed through the [`Backend`], so
//! `--backend native` applies; its shared secret enters the RFC 9180 key schedule as is (the
//! hpke-pq KEMs have no extra ExtractAndExpand). The `hpke` crate is the test oracle.

use crate::secret::SecretBytes;
use crate::suite::backend::Backend;
use crate::suite::hybrid_kem::{self, KemError, KemLevel};
use chacha20poly1305::aead::{AeadInOut, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Nonce, Tag};
use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::Zeroizing;

/// "HPKE" || kem_id || kdf_id || aead_id.
const SUITE_ID: [u8; 10] = *b"HPKE\x64\x7a\x00\x01\x00\x03";
const VERSION_LABEL: &[u8] = b"HPKE-v1";
/// ChaCha20-Poly1305 tag length.
pub(crate) const TAG_LEN: usize = 16;
/// The encapsulated key: an X-Wing ciphertext.
pub(crate) const ENC_LEN: usize = 1120;

fn labeled_extract(salt: &[u8], label: &[u8], ikm: &[u8]) -> Hkdf<Sha256> {
    let mut input = Zeroizing::new(Vec::with_capacity(
        VERSION_LABEL.len() + SUITE_ID.len() + label.len() + ikm.len(),
    ));
    input.extend_from_slice(VERSION_LABEL);
    input.extend_from_slice(&SUITE_ID);
    input.extend_from_slice(label);
    input.extend_from_slice(ikm);
    Hkdf::<Sha256>::new(Some(salt), &input)
}

fn labeled_expand(prk: &Hkdf<Sha256>, label: &[u8], info: &[u8], out: &mut [u8]) {
    let len = u16::try_from(out.len())
        .expect("short output")
        .to_be_bytes();
    prk.expand_multi_info(&[&len, VERSION_LABEL, &SUITE_ID, label, info], out)
        .expect("32 or 12 bytes are valid HKDF-SHA-256 lengths");
}

/// The AEAD key and base nonce of a base-mode context (no PSK).
struct Context {
    key: SecretBytes<32>,
    nonce: [u8; 12],
}

fn key_schedule(shared_secret: &SecretBytes<32>, info: &[u8]) -> Context {
    let mut psk_id_hash = [0u8; 32];
    let mut info_hash = [0u8; 32];
    // LabeledExtract("", label, x): the extract step's output is what we need, i.e. the PRK.
    labeled_extract_prk(b"psk_id_hash", b"", &mut psk_id_hash);
    labeled_extract_prk(b"info_hash", info, &mut info_hash);
    let mut ctx = [0u8; 65];
    ctx[0] = 0x00; // mode_base
    ctx[1..33].copy_from_slice(&psk_id_hash);
    ctx[33..].copy_from_slice(&info_hash);
    let secret = labeled_extract(shared_secret.expose(), b"secret", b"");
    let mut key = SecretBytes::<32>::zero();
    labeled_expand(&secret, b"key", &ctx, key.expose_mut());
    let mut nonce = [0u8; 12];
    labeled_expand(&secret, b"base_nonce", &ctx, &mut nonce);
    Context { key, nonce }
}

/// The PRK of LabeledExtract with an empty salt (for the two public hashes).
fn labeled_extract_prk(label: &[u8], ikm: &[u8], out: &mut [u8; 32]) {
    let mut input =
        Vec::with_capacity(VERSION_LABEL.len() + SUITE_ID.len() + label.len() + ikm.len());
    input.extend_from_slice(VERSION_LABEL);
    input.extend_from_slice(&SUITE_ID);
    input.extend_from_slice(label);
    input.extend_from_slice(ikm);
    let (prk, _) = Hkdf::<Sha256>::extract(Some(&[]), &input);
    out.copy_from_slice(&prk);
}

/// SealBase(pkR, info, aad, pt) with pinned X-Wing randomness: (enc, ciphertext || tag).
pub(crate) fn seal_base_derand(
    backend: &dyn Backend,
    pk: &[u8],
    info: &[u8],
    aad: &[u8],
    plaintext: &[u8],
    eseed: &SecretBytes<64>,
) -> Result<(Vec<u8>, Vec<u8>), KemError> {
    let (enc, ss) = hybrid_kem::encapsulate_derand(backend, KemLevel::MlKem768, pk, eseed)?;
    let ctx = key_schedule(&ss, info);
    let mut ct = plaintext.to_vec();
    let tag = ChaCha20Poly1305::new_from_slice(ctx.key.expose())
        .expect("32-byte key")
        .encrypt_inout_detached(&Nonce::from(ctx.nonce), aad, ct.as_mut_slice().into())
        .expect("a short message is within ChaCha20-Poly1305's limit");
    ct.extend_from_slice(&tag);
    Ok((enc, ct))
}

/// SealBase with fresh randomness.
pub(crate) fn seal_base(
    backend: &dyn Backend,
    pk: &[u8],
    info: &[u8],
    aad: &[u8],
    plaintext: &[u8],
) -> Result<(Vec<u8>, Vec<u8>), KemError> {
    seal_base_derand(backend, pk, info, aad, plaintext, &SecretBytes::random())
}

/// OpenBase(enc, skR, info, aad, ct) with the X-Wing key from `seed`. `Ok(None)` when the
/// AEAD does not open (another recipient's stanza, or a damaged one); `Err` when the KEM
/// refuses the input (wrong length, or an all-zero X25519 secret).
pub(crate) fn open_base(
    key: &dyn hybrid_kem::Decapsulate,
    enc: &[u8],
    info: &[u8],
    aad: &[u8],
    ciphertext: &[u8],
) -> Result<Option<Zeroizing<Vec<u8>>>, KemError> {
    let Some(body_len) = ciphertext.len().checked_sub(TAG_LEN) else {
        return Ok(None);
    };
    // X-Wing is the only KEM here; a key of another suite opens nothing.
    if key.kem_level() != KemLevel::MlKem768 {
        return Ok(None);
    }
    let ss = key.decapsulate_ct(enc)?;
    let ctx = key_schedule(&ss, info);
    let mut pt = Zeroizing::new(ciphertext[..body_len].to_vec());
    let tag = Tag::try_from(&ciphertext[body_len..]).expect("16 bytes");
    let opened = ChaCha20Poly1305::new_from_slice(ctx.key.expose())
        .expect("32-byte key")
        .decrypt_inout_detached(&Nonce::from(ctx.nonce), aad, pt.as_mut_slice().into(), &tag);
    Ok(opened.is_ok().then_some(pt))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::hybrid_kem::DecapsulationKey;
    use crate::suite::native::Native;
    use crate::suite::rustcrypto::RustCrypto;
    use hpke::{Deserializable as _, Serializable as _};

    type Kem = hpke::kem::XWing;
    type Kdf = hpke::kdf::HkdfSha256;
    type Aead = hpke::aead::ChaCha20Poly1305;
    const BACKENDS: [&dyn Backend; 2] = [&RustCrypto, &Native];

    #[test]
    fn round_trip_and_refusals() {
        for backend in BACKENDS {
            let seed = DecapsulationKey::from_seed(
                backend,
                KemLevel::MlKem768,
                &SecretBytes::<32>::random(),
            );
            let pk = seed.public_key().to_vec();
            let (enc, ct) = seal_base(backend, &pk, b"info", b"aad", b"0123456789abcdef").unwrap();
            assert_eq!((enc.len(), ct.len()), (ENC_LEN, 32));
            let pt = open_base(&seed, &enc, b"info", b"aad", &ct)
                .unwrap()
                .unwrap();
            assert_eq!(&pt[..], b"0123456789abcdef");
            assert!(
                open_base(&seed, &enc, b"other", b"aad", &ct)
                    .unwrap()
                    .is_none()
            );
            assert!(open_base(&seed, &enc, b"info", b"", &ct).unwrap().is_none());
            let other = DecapsulationKey::from_seed(
                backend,
                KemLevel::MlKem768,
                &SecretBytes::<32>::random(),
            );
            assert!(
                open_base(&other, &enc, b"info", b"aad", &ct)
                    .unwrap()
                    .is_none()
            );
            assert!(open_base(&seed, &enc[1..], b"info", b"aad", &ct).is_err());
        }
    }

    /// The `hpke` crate (its own X-Wing over `x-wing`, its own key schedule) opens what we
    /// seal, and we open what it seals, over random keys and both backends.
    #[test]
    fn hpke_crate_is_an_oracle_both_ways() {
        for backend in BACKENDS.into_iter().cycle().take(20) {
            let seed = SecretBytes::<32>::random();
            let pk = hybrid_kem::public_key(backend, KemLevel::MlKem768, &seed);
            let sk_o = <Kem as hpke::Kem>::PrivateKey::from_bytes(seed.expose()).unwrap();
            let pk_o = <Kem as hpke::Kem>::PublicKey::from_bytes(&pk).unwrap();
            let info = b"age-encryption.org/mlkem768x25519";
            let msg = crate::secret::random_array::<16>();

            let (enc, ct) = seal_base(backend, &pk, info, b"", &msg).unwrap();
            let enc_o = <Kem as hpke::Kem>::EncappedKey::from_bytes(&enc).unwrap();
            let pt = hpke::single_shot_open::<Aead, Kdf, Kem>(
                &hpke::OpModeR::Base,
                &sk_o,
                &enc_o,
                info,
                &ct,
                b"",
            )
            .unwrap();
            assert_eq!(pt, msg);

            let (enc_o, ct_o) = hpke::single_shot_seal::<Aead, Kdf, Kem>(
                &hpke::OpModeS::Base,
                &pk_o,
                info,
                &msg,
                b"",
            )
            .unwrap();
            let enc_bytes = enc_o.to_bytes();
            let key = DecapsulationKey::from_seed(backend, KemLevel::MlKem768, &seed);
            let pt = open_base(&key, &enc_bytes, info, b"", &ct_o)
                .unwrap()
                .unwrap();
            assert_eq!(&pt[..], &msg);
        }
    }
}
