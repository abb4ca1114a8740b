//! The file formats nexusq reads and writes whole: its own encrypted file (`"NXQF"`,
//! [`nexusq`], docs/file-encryption.md), age v1 ([`age`], docs/age.md), and the strict ASCII
//! armor both can be wrapped in ([`armor`]). Nothing here touches files or prints: callers
//! pass any `Read` and `Write`.

pub mod age;
pub mod armor;
pub mod nexusq;

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
}

/// How many leading bytes [`sniff`] needs: enough to see past the whitespace age's armor
/// may start with.
pub const SNIFF_LEN: usize = age::SNIFF_LEN;

/// Tell the envelope from the first bytes of an input (up to [`SNIFF_LEN`] of them; fewer
/// only when the input is that short). `None`: neither format; the caller says so, and
/// nexusq's own reader gives the precise reason (see docs/file-encryption.md).
pub fn sniff(prefix: &[u8]) -> Option<Envelope> {
    if prefix.starts_with(&nexusq::MAGIC) {
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
        assert_eq!(sniff(b"hello"), None);
        assert_eq!(sniff(b""), None);
    }
}
