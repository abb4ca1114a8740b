//! The public types and functions, stamped out once per parameter set.

macro_rules! parameter_set {
    ($module:ident, $name:literal, $k:literal, $ct_len:literal) => {
        #[doc = concat!("ML-KEM-", $name, " (FIPS 203).")]
        pub mod $module {
            use super::super::kem;
            use crate::dispatch::run;
            use crate::error::Error;
            use crate::secret::SecretBytes;
            use core::fmt;
            use zeroize::{Zeroize, ZeroizeOnDrop};

            const K: usize = $k;
            /// Bytes in an encapsulation key.
            pub const ENCAPSULATION_KEY_LEN: usize = 384 * K + 32;
            /// Bytes in an expanded decapsulation key (dk_PKE || ek || H(ek) || z).
            pub const DECAPSULATION_KEY_LEN: usize = 768 * K + 96;
            /// Bytes in a ciphertext.
            pub const CIPHERTEXT_LEN: usize = $ct_len;
            /// Bytes in a shared secret.
            pub const SHARED_SECRET_LEN: usize = 32;

            /// An encapsulation key that passed the FIPS 203 input check, with H(ek) cached.
            #[derive(Clone, PartialEq, Eq)]
            pub struct EncapsulationKey {
                bytes: [u8; ENCAPSULATION_KEY_LEN],
                hash: [u8; 32],
            }

            impl EncapsulationKey {
                /// Checks the length and that every coefficient is below q (FIPS 203 7.2).
                pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
                    Error::check_len(
                        concat!("an ML-KEM-", $name, " encapsulation key"),
                        bytes,
                        ENCAPSULATION_KEY_LEN,
                    )?;
                    let bytes: [u8; ENCAPSULATION_KEY_LEN] =
                        bytes.try_into().expect("checked length");
                    if !run!(|S| super::super::check::modulus::<S, K>(&bytes)) {
                        return Err(Error::Modulus);
                    }
                    let hash = run!(|S| kem::hash_ek::<S>(&bytes));
                    Ok(EncapsulationKey { bytes, hash })
                }

                pub fn as_bytes(&self) -> &[u8; ENCAPSULATION_KEY_LEN] {
                    &self.bytes
                }
            }

            impl fmt::Debug for EncapsulationKey {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    write!(f, concat!("mlkem", $name, "::EncapsulationKey(H(ek) = "))?;
                    for b in &self.hash[..8] {
                        write!(f, "{b:02x}")?;
                    }
                    f.write_str("…)")
                }
            }

            /// An expanded decapsulation key. Zeroized on drop; `Debug` shows nothing of it.
            #[derive(Clone, Zeroize, ZeroizeOnDrop)]
            pub struct DecapsulationKey {
                bytes: SecretBytes<DECAPSULATION_KEY_LEN>,
            }

            impl DecapsulationKey {
                /// Checks the length and that the stored H(ek) matches the embedded ek
                /// (FIPS 203 7.3).
                pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
                    Error::check_len(
                        concat!("an ML-KEM-", $name, " decapsulation key"),
                        bytes,
                        DECAPSULATION_KEY_LEN,
                    )?;
                    let ek = &bytes[384 * K..384 * K + ENCAPSULATION_KEY_LEN];
                    let stored = &bytes[384 * K + ENCAPSULATION_KEY_LEN..][..32];
                    if run!(|S| kem::hash_ek::<S>(ek)) != stored {
                        return Err(Error::KeyHash);
                    }
                    let mut boxed = SecretBytes::zero();
                    boxed.copy_from_slice(bytes);
                    Ok(DecapsulationKey { bytes: boxed })
                }

                pub fn as_bytes(&self) -> &[u8; DECAPSULATION_KEY_LEN] {
                    &self.bytes
                }

                /// The encapsulation key embedded in this key.
                pub fn encapsulation_key(&self) -> EncapsulationKey {
                    let ek = &self.bytes[384 * K..384 * K + ENCAPSULATION_KEY_LEN];
                    let hash = self.bytes[384 * K + ENCAPSULATION_KEY_LEN..][..32]
                        .try_into()
                        .expect("32 bytes");
                    EncapsulationKey {
                        bytes: ek.try_into().expect("ek length"),
                        hash,
                    }
                }
            }

            impl fmt::Debug for DecapsulationKey {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str(concat!("mlkem", $name, "::DecapsulationKey(<secret>)"))
                }
            }

            /// A ciphertext (any bytes of the right length are a ciphertext).
            #[derive(Clone, PartialEq, Eq)]
            pub struct Ciphertext {
                bytes: [u8; CIPHERTEXT_LEN],
            }

            impl Ciphertext {
                pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
                    Error::check_len(
                        concat!("an ML-KEM-", $name, " ciphertext"),
                        bytes,
                        CIPHERTEXT_LEN,
                    )?;
                    Ok(Ciphertext {
                        bytes: bytes.try_into().expect("checked length"),
                    })
                }

                pub fn as_bytes(&self) -> &[u8; CIPHERTEXT_LEN] {
                    &self.bytes
                }
            }

            impl fmt::Debug for Ciphertext {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    write!(
                        f,
                        concat!("mlkem", $name, "::Ciphertext({} bytes)"),
                        CIPHERTEXT_LEN
                    )
                }
            }

            /// The 32-byte shared secret. Zeroized on drop; `Debug` shows nothing of it.
            #[derive(Clone, PartialEq, Eq, Zeroize, ZeroizeOnDrop)]
            pub struct SharedSecret([u8; SHARED_SECRET_LEN]);

            impl SharedSecret {
                pub fn as_bytes(&self) -> &[u8; SHARED_SECRET_LEN] {
                    &self.0
                }
            }

            impl fmt::Debug for SharedSecret {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str(concat!("mlkem", $name, "::SharedSecret(<secret>)"))
                }
            }

            /// ML-KEM.KeyGen_internal(d, z).
            pub fn keygen_internal(
                d: &[u8; 32],
                z: &[u8; 32],
            ) -> (EncapsulationKey, DecapsulationKey) {
                let mut ek = [0u8; ENCAPSULATION_KEY_LEN];
                let mut dk = SecretBytes::<DECAPSULATION_KEY_LEN>::zero();
                run!(|S| kem::keygen::<S, K>(d, z, &mut ek, &mut dk[..]));
                let hash = dk[384 * K + ENCAPSULATION_KEY_LEN..][..32]
                    .try_into()
                    .expect("32 bytes");
                (
                    EncapsulationKey { bytes: ek, hash },
                    DecapsulationKey { bytes: dk },
                )
            }

            /// ML-KEM.Encaps_internal(ek, m): deterministic given m (use 32 random bytes).
            pub fn encapsulate_internal(
                ek: &EncapsulationKey,
                m: &[u8; 32],
            ) -> (Ciphertext, SharedSecret) {
                let mut ct = [0u8; CIPHERTEXT_LEN];
                let key = run!(|S| kem::encaps::<S, K>(&ek.bytes, &ek.hash, m, &mut ct));
                (Ciphertext { bytes: ct }, SharedSecret(key))
            }

            /// ML-KEM.Decaps: the shared secret, or the implicit-rejection value J(z || c) for a
            /// ciphertext that does not re-encrypt; no error either way.
            pub fn decapsulate(dk: &DecapsulationKey, ct: &Ciphertext) -> SharedSecret {
                let mut scratch = [0u8; CIPHERTEXT_LEN];
                let key = run!(|S| kem::decaps::<S, K>(&dk.bytes[..], &ct.bytes, &mut scratch));
                crate::simd::wipe_bytes(&mut scratch);
                SharedSecret(key)
            }
        }
    };
}

parameter_set!(mlkem768, "768", 3, 1088);
parameter_set!(mlkem1024, "1024", 4, 1568);
