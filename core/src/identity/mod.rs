//! The identity model (docs/identity-format.md): an SLH-DSA root key that never changes, and key
//! generations it certifies.

pub mod certificate;
pub mod decryption;
pub mod envelope;
pub mod generation;
pub mod master;
mod openpgp;
pub mod peer;
pub mod public;
pub mod revocation;
pub mod root_id;
pub mod rotation;
pub mod signature;
pub mod state;

pub use certificate::{Certificate, GenerationKeys};
pub use decryption::{DecryptionKey, DecryptionKeys, MissingKey};
pub use generation::{GenerationSecrets, SecretSection};
pub use master::{MasterSecret, RootKeys};
pub use public::PublicIdentity;
pub use revocation::{Revocation, RevocationScope};
pub use root_id::{Fingerprint, RootId};

use crate::suite::Backend;

/// Default certificate validity: created + 180 days.
pub const DEFAULT_VALIDITY_DAYS: u32 = 180;
/// Seconds in a day, for certificate validity (`not_after = created + days x 86 400`).
pub(crate) const SECONDS_PER_DAY: u64 = 86_400;

/// Everything `init` makes: the root, generation 1 and its certificate, and the revocation
/// statement for the whole identity.
pub struct NewIdentity {
    /// The master secret and the root derived from it; the master is sealed in the vault's
    /// root section.
    pub keys: RootKeys,
    /// The public identity: root public key and generation 1's certificate.
    pub public: PublicIdentity,
    /// Generation 1's seeds, for the vault's secret section.
    pub secrets: SecretSection,
    /// A root-signed revocation of the whole identity, made now so it can be published if the
    /// vault is lost (docs/security.md, "What to do when the phone is gone").
    pub revocation: Revocation,
}

impl NewIdentity {
    /// Draw a fresh master secret and derive the root and generation 1 from it, certified
    /// from `now` (Unix seconds) for [`DEFAULT_VALIDITY_DAYS`]. Slow: the root signs with
    /// SLH-DSA twice.
    pub fn generate(backend: &dyn Backend, now: u64) -> Self {
        Self::from_master(MasterSecret::generate(), backend, now)
    }

    /// The identity of a given master secret: its root and generation 1, with a new
    /// certificate and revocation statement (both signatures are randomized).
    pub(crate) fn from_master(master: MasterSecret, backend: &dyn Backend, now: u64) -> Self {
        let root_keys = RootKeys::derived(master);
        let root = root_keys.root();
        let root_pk = root.public_key(backend);
        let root_id = RootId::of(&root_pk);
        let gen1 = root_keys.new_generation(1);
        let keys = gen1
            .public_keys(backend)
            .expect("a new generation holds every key");
        let cert = Certificate::issue(
            root,
            backend,
            root_id,
            1,
            now,
            now + u64::from(DEFAULT_VALIDITY_DAYS) * SECONDS_PER_DAY,
            keys,
            [0u8; 32],
            String::new(),
        );
        let revocation = Revocation::issue(
            root,
            backend,
            root_id,
            RevocationScope::Identity,
            now,
            "revocation statement written at init".into(),
        );
        NewIdentity {
            public: PublicIdentity {
                root_pk,
                certificates: vec![cert],
                revocations: Vec::new(),
            },
            secrets: SecretSection {
                generations: vec![gen1],
            },
            keys: root_keys,
            revocation,
        }
    }
}
