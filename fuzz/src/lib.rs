//! The fuzz targets' bodies ([`targets`]), and the fixed keys and helpers they share with
//! `examples/make_seeds.rs`, which writes the seed corpora and the fixtures the targets compare
//! against.

pub mod targets;

use nexusq_core::identity::RootId;
use nexusq_core::secret::{Password, SecretBytes};
use nexusq_core::vault::KeyDerivation;
use nexusq_core::vault::kdf::{KdfParams, SALT_LEN};

/// Seeds of the fixed recipient keys: fixed so a fuzzed file or envelope made for them reaches
/// the AEAD and the tag checks instead of stopping at "not a recipient".
pub const XWING_SEED: [u8; 32] = [0x11; 32];
pub const MLKEM1024_SEED: [u8; 32] = [0x22; 32];

/// The password of the fixture vault (a test value, sealed with [`FastKdf`], not Argon2id).
pub const VAULT_PASSWORD: &str = "fuzz-test-password";

/// The message the fixture signature signs.
pub const SIGNED_MESSAGE: &[u8] = b"nexusq fuzz fixture: the signed message\n";

/// Every seed file encrypts a prefix of this sequence, so a decryption that yields any byte
/// off it has produced plaintext that no authentic file holds.
pub fn plaintext_byte(i: u64) -> u8 {
    (i.wrapping_mul(31).wrapping_add(i >> 8) % 251) as u8
}

pub fn seed(bytes: [u8; 32]) -> SecretBytes<32> {
    SecretBytes::from_slice(&bytes).expect("32 bytes")
}

/// A stand-in for Argon2id: a run unlocks thousands of times, and Argon2id even at its
/// smallest allowed cost would leave no time for anything else. It still binds the password,
/// the salt and the parameters, so a changed header gives another key.
pub struct FastKdf;

impl KeyDerivation for FastKdf {
    fn derive(
        &self,
        password: &Password,
        salt: &[u8; SALT_LEN],
        params: &KdfParams,
    ) -> nexusq_core::error::Result<SecretBytes<32>> {
        let mut input = Vec::with_capacity(password.as_bytes().len() + SALT_LEN + 12);
        input.extend_from_slice(password.as_bytes());
        input.extend_from_slice(salt);
        input.extend_from_slice(&params.memory_kib.to_be_bytes());
        input.extend_from_slice(&params.iterations.to_be_bytes());
        input.extend_from_slice(&params.parallelism.to_be_bytes());
        // RootId::of is a SHA3-256 with a fixed prefix: any collision-resistant hash will do.
        Ok(SecretBytes::from_slice(&RootId::of(&input).0).expect("32 bytes"))
    }
}

pub fn password(text: &str) -> Password {
    Password::new(zeroize::Zeroizing::new(text.to_owned()))
}
