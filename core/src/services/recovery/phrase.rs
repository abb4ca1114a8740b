//! The recovery phrase: the 32-byte master secret as a standard 24-word BIP39 English mnemonic
//! (256 bits of entropy and the first 8 bits of its SHA-256 as checksum, 11 bits a word).
//!
//! It is the entropy itself, not a BIP39 seed: no passphrase, no PBKDF2. Any BIP39 tool reads
//! the same 32 bytes back from it.

use super::{shares, words};
use crate::error::Error;
use crate::identity::MasterSecret;
use crate::identity::master::MASTER_LEN;
use crate::secret::SecretBytes;
use bip39::{Language, Mnemonic};
use std::fmt;
use zeroize::Zeroizing;

/// Words in a recovery phrase.
pub const WORDS: usize = 24;

/// A master secret's phrase, held as word indices. Zeroized on drop; `Debug` hides the words.
pub struct Phrase {
    indices: Zeroizing<Vec<u16>>,
}

impl Phrase {
    /// The phrase of `master`.
    pub fn of(master: &MasterSecret) -> Phrase {
        // `Mnemonic` zeroizes itself on drop (bip39's `zeroize` feature).
        let mnemonic = Mnemonic::from_entropy_in(Language::English, master.expose())
            .expect("32 bytes are valid BIP39 entropy");
        let mut indices = Zeroizing::new(Vec::with_capacity(WORDS));
        indices.extend(mnemonic.word_indices().map(|i| i as u16));
        Phrase { indices }
    }

    /// The words in order.
    pub fn words(&self) -> impl Iterator<Item = &'static str> + Clone + '_ {
        self.indices.iter().map(|&i| words::word(i))
    }

    /// Word `position`, counted from 1 as people number them. Panics outside `1..=len()`.
    pub fn word(&self, position: usize) -> &'static str {
        words::word(self.indices[position - 1])
    }

    /// How many words: [`WORDS`].
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// Never: a phrase has [`WORDS`] words.
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// The words joined by single spaces and a final newline (the `-o FILE` format).
    pub fn to_text(&self) -> Zeroizing<String> {
        join(self.words())
    }
}

impl fmt::Debug for Phrase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Phrase({} words, redacted)", self.len())
    }
}

/// Words joined by spaces, ending in a newline, in storage sized once (no stray copies).
pub(crate) fn join<'a>(words: impl Iterator<Item = &'a str> + Clone) -> Zeroizing<String> {
    let len: usize = words.clone().map(|w| w.len() + 1).sum();
    let mut text = Zeroizing::new(String::with_capacity(len));
    for (i, w) in words.enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(w);
    }
    text.push('\n');
    text
}

/// The master secret of a typed or read phrase: 24 words (any case, numbered or not, full or
/// their first letters) whose BIP39 checksum holds.
pub fn parse(text: &str) -> Result<MasterSecret, Error> {
    let count = words::tokens(text).count();
    if count != WORDS {
        return Err(count_error(count));
    }
    let indices = words::indices(text)?;
    entropy(&indices).map(MasterSecret::from_bytes)
}

fn count_error(count: usize) -> Error {
    let hint = if count == shares::WORDS {
        "this looks like a recovery share: give it as one of the shares"
    } else {
        "write all 24 words in order; numbers before the words are skipped"
    };
    let e = Error::check(
        format!("a recovery phrase has {WORDS} words; this has {count}"),
        hint,
    );
    if count == shares::WORDS {
        e.suggests(crate::error::Step::GiveShares)
    } else {
        e
    }
}

/// The 32 bytes of entropy of 24 word indices, if their checksum holds.
fn entropy(indices: &[u16]) -> Result<SecretBytes<MASTER_LEN>, Error> {
    // 24 words are 264 bits: the entropy, then its 8-bit checksum.
    let bits = words::from_indices(indices);
    let entropy = SecretBytes::from_slice(&bits[..MASTER_LEN]).expect("33 bytes");
    // bip39 rebuilds the phrase from the entropy; the checksum holds if it is the one given.
    let rebuilt = Phrase::of(&MasterSecret::from_bytes(entropy.clone()));
    if rebuilt.indices[..] != *indices {
        return Err(Error::check(
            "the phrase's checksum does not hold: a word is wrong, missing or two are swapped",
            "compare each word with the paper, in order (docs/recovery.md)",
        ));
    }
    Ok(entropy)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn master(byte: u8) -> MasterSecret {
        MasterSecret::from_bytes(SecretBytes::from_slice(&[byte; 32]).unwrap())
    }

    fn repeat(word: &str, n: usize, last: &str) -> String {
        let mut words = vec![word; n];
        words.push(last);
        words.join(" ")
    }

    const LEGAL: &str = "legal winner thank year wave sausage worth useful legal winner \
        thank year wave sausage worth useful legal winner thank year wave sausage worth title";

    #[test]
    fn official_vectors_round_trip() {
        let vectors = [
            (0x00, repeat("abandon", 23, "art")),
            (0x7f, LEGAL.to_string()),
            (0xff, repeat("zoo", 23, "vote")),
        ];
        for (byte, text) in vectors {
            let phrase = Phrase::of(&master(byte));
            assert_eq!(phrase.len(), WORDS);
            assert_eq!(*phrase.to_text(), format!("{text}\n"));
            assert_eq!(phrase.words().collect::<Vec<_>>().join(" "), text);
            assert_eq!(parse(&text).unwrap().expose(), &[byte; 32]);
        }
        let phrase = Phrase::of(&master(0x7f));
        assert_eq!((phrase.word(1), phrase.word(24)), ("legal", "title"));
    }

    #[test]
    fn typed_forms_parse() {
        let upper = LEGAL.to_uppercase();
        let numbered: String = LEGAL
            .split(' ')
            .enumerate()
            .map(|(i, w)| format!("{}. {w}\n", i + 1))
            .collect();
        let prefixes: Vec<&str> = LEGAL.split(' ').map(|w| &w[..4]).collect();
        for text in [upper, numbered, prefixes.join("  ")] {
            assert_eq!(parse(&text).unwrap().expose(), &[0x7f; 32]);
        }
    }

    #[test]
    fn a_changed_word_breaks_the_checksum() {
        let text = LEGAL.replacen("wave", "wage", 1);
        let e = parse(&text).unwrap_err();
        assert!(e.message().contains("checksum does not hold"), "{e:?}");
        assert_no_word_of(&text, &e);
    }

    #[test]
    fn counts_are_checked() {
        let short = repeat("abandon", 22, "art");
        let e = parse(&short).unwrap_err();
        assert_eq!(e.message(), "a recovery phrase has 24 words; this has 23");
        assert_no_word_of(&short, &e);
        let share_sized = repeat("abandon", 29, "art");
        let e = parse(&share_sized).unwrap_err();
        assert_eq!(e.step(), Some(&crate::error::Step::GiveShares), "{e:?}");
    }

    #[test]
    fn an_unknown_word_is_named_by_position() {
        let text = LEGAL.replacen("thank", "thenk", 1);
        let e = parse(&text).unwrap_err();
        assert_eq!(
            e.message(),
            "word 3 is not a word of the BIP39 English list"
        );
        assert_no_word_of(&text, &e);
    }

    #[test]
    fn debug_hides_the_words() {
        let d = format!("{:?}", Phrase::of(&master(0x7f)));
        assert_eq!(d, "Phrase(24 words, redacted)");
    }

    fn assert_no_word_of(text: &str, e: &Error) {
        let shown = format!("{} {}", e.message(), e.hint()).to_lowercase();
        for w in text.split_whitespace() {
            let w = w.to_lowercase();
            assert!(
                !shown.split(|c: char| !c.is_alphanumeric()).any(|s| s == w),
                "{w} in {shown}"
            );
        }
    }
}
