//! The file formats nexusq reads and writes whole: its own encrypted file (`"NXQF"`,
//! [`nexusq`], docs/file-encryption.md), age v1 ([`age`], docs/age.md), the strict ASCII
//! armor both can be wrapped in ([`armor`]), and OpenPGP's RFC 9980 certificates, messages and
//! signatures ([`openpgp`], docs/openpgp.md). Nothing here touches files or prints: callers
//! pass any `Read` and `Write`.

pub mod age;
pub mod armor;
pub mod nexusq;
pub mod openpgp;

use std::io::{BufRead, Read};

/// Which envelope an encrypted input is, from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Envelope {
    /// nexusq's own file ("NXQF"), binary or armored.
    Nexusq {
        /// In nexusq's armor (`-----BEGIN NEXUSQ ENCRYPTED FILE-----`).
        armored: bool,
    },
    /// An age v1 file, binary or armored.
    Age {
        /// In age's armor (`-----BEGIN AGE ENCRYPTED FILE-----`).
        armored: bool,
    },
    /// An OpenPGP message, binary or armored.
    OpenPgp {
        /// In OpenPGP's armor (`-----BEGIN PGP MESSAGE-----`).
        armored: bool,
    },
}

/// How many leading bytes [`sniff`] needs: enough to see past the whitespace age's armor
/// may start with.
pub const SNIFF_LEN: usize = age::SNIFF_LEN;

/// Tell the envelope from the first bytes of an input (up to [`SNIFF_LEN`] of them; fewer
/// only when the input is that short). `None`: neither format; the caller says so, and
/// nexusq's own reader gives the precise reason (see docs/file-encryption.md).
pub fn sniff(prefix: &[u8]) -> Option<Envelope> {
    if openpgp::looks_like_message(prefix) {
        Some(Envelope::OpenPgp {
            armored: openpgp::starts_armor(prefix, openpgp::MESSAGE_ARMOR),
        })
    } else if prefix.starts_with(&nexusq::MAGIC) {
        Some(Envelope::Nexusq { armored: false })
    } else if armor::looks_armored(prefix) {
        Some(Envelope::Nexusq { armored: true })
    } else {
        match age::sniff(prefix)? {
            age::Format::Binary => Some(Envelope::Age { armored: false }),
            age::Format::Armored => Some(Envelope::Age { armored: true }),
        }
    }
}

/// An encrypted input with its envelope told and its reader chosen (see [`open`]).
pub enum Encrypted<'a> {
    /// nexusq's own file, its armor already taken off when it was armored; also an input that
    /// is neither format, whose header read then says precisely what is wrong with it.
    Nexusq {
        /// The binary file.
        reader: Box<dyn Read + 'a>,
        /// It came armored.
        armored: bool,
    },
    /// An age v1 file, its armor already taken off when it was armored.
    Age {
        /// The binary file, buffered as age's reader wants it.
        reader: Box<dyn BufRead + 'a>,
        /// It came armored.
        armored: bool,
    },
    /// An OpenPGP message as it came (Sequoia takes off its armor itself).
    OpenPgp {
        /// The message.
        reader: Box<dyn Read + Send + Sync + 'a>,
        /// It came armored.
        armored: bool,
    },
}

/// Tell the envelope of an encrypted input from its first bytes ([`sniff`]) and hand back the
/// reader of its format: the one place that chooses between nexusq's file and age's, binary or
/// armored. Nothing is lost: the bytes looked at are read again. Fails only when reading fails.
pub fn open<'a, R: Read + Send + Sync + 'a>(input: R) -> std::io::Result<Encrypted<'a>> {
    let (peeked, input) = armor::peek(input, SNIFF_LEN)?;
    Ok(match sniff(&peeked) {
        Some(Envelope::OpenPgp { armored }) => Encrypted::OpenPgp {
            reader: Box::new(input),
            armored,
        },
        Some(Envelope::Age { armored }) => {
            let format = if armored {
                age::Format::Armored
            } else {
                age::Format::Binary
            };
            Encrypted::Age {
                reader: age::reader(input, format),
                armored,
            }
        }
        Some(Envelope::Nexusq { armored: true }) => Encrypted::Nexusq {
            reader: Box::new(armor::ArmorReader::new(
                input,
                armor::Profile::nexusq(armor::ENCRYPTED_FILE_KIND),
            )),
            armored: true,
        },
        Some(Envelope::Nexusq { armored: false }) | None => Encrypted::Nexusq {
            reader: Box::new(input),
            armored: false,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniff_tells_each_envelope_apart() {
        assert_eq!(
            sniff(b"NXQF\x00\x01"),
            Some(Envelope::Nexusq { armored: false })
        );
        assert_eq!(
            sniff(b"-----BEGIN NEXUSQ ENCRYPTED FILE-----\n"),
            Some(Envelope::Nexusq { armored: true })
        );
        assert_eq!(
            sniff(b"age-encryption.org/v1\n"),
            Some(Envelope::Age { armored: false })
        );
        assert_eq!(
            sniff(b" \n-----BEGIN AGE ENCRYPTED FILE-----\n"),
            Some(Envelope::Age { armored: true })
        );
        assert_eq!(
            sniff(b"\n-----BEGIN PGP MESSAGE-----\n"),
            Some(Envelope::OpenPgp { armored: true })
        );
        // A PKESK in the new packet format, and in the old one.
        assert_eq!(
            sniff(b"\xc1\x20"),
            Some(Envelope::OpenPgp { armored: false })
        );
        assert_eq!(
            sniff(b"\x85\x01"),
            Some(Envelope::OpenPgp { armored: false })
        );
        assert_eq!(sniff(b"hello"), None);
        assert_eq!(sniff(b""), None);
    }

    /// Each envelope gets its format's reader, which yields the binary file whole.
    #[test]
    fn open_chooses_the_reader_and_loses_nothing() {
        let read_all = |mut r: Box<dyn Read + '_>| {
            let mut v = Vec::new();
            r.read_to_end(&mut v).unwrap();
            v
        };
        let binary = b"NXQF\x00\x01 and the rest".to_vec();
        match open(&binary[..]).unwrap() {
            Encrypted::Nexusq { reader, armored } => {
                assert!(!armored);
                assert_eq!(read_all(reader), binary);
            }
            _ => panic!("a nexusq file read as another format"),
        }
        let mut armored = Vec::new();
        {
            let mut w = armor::ArmorWriter::new(
                &mut armored,
                &armor::Profile::nexusq(armor::ENCRYPTED_FILE_KIND),
            )
            .unwrap();
            std::io::Write::write_all(&mut w, &binary).unwrap();
            w.finish().unwrap();
        }
        match open(&armored[..]).unwrap() {
            Encrypted::Nexusq { reader, armored } => {
                assert!(armored);
                assert_eq!(read_all(reader), binary);
            }
            _ => panic!("nexusq armor read as another format"),
        }
        let age_file = b"age-encryption.org/v1\n-> X25519 abc\n".to_vec();
        match open(&age_file[..]).unwrap() {
            Encrypted::Age { reader, armored } => {
                assert!(!armored);
                assert_eq!(read_all(Box::new(reader)), age_file);
            }
            _ => panic!("an age file read as another format"),
        }
        let pgp = b"-----BEGIN PGP MESSAGE-----\n\nwcPtBiEG\n".to_vec();
        match open(&pgp[..]).unwrap() {
            Encrypted::OpenPgp { reader, armored } => {
                assert!(armored);
                assert_eq!(read_all(reader), pgp);
            }
            _ => panic!("an OpenPGP message read as another format"),
        }
        // Neither: nexusq's reader, which names what is wrong.
        assert!(matches!(
            open(&b"hello"[..]).unwrap(),
            Encrypted::Nexusq { armored: false, .. }
        ));
    }
}
