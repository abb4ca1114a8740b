//! The BIP39 English word list as an alphabet of 2048 symbols, 11 bits each.
//!
//! People copy words onto paper and type them back, so reading is forgiving: any case, extra
//! spaces and line breaks, the numbers they write before words ("1." "12)" "3:" "7"), and a
//! word's first letters when they name one word (the first 4 letters always do).

use crate::error::Error;
use bip39::Language;
use zeroize::Zeroizing;

/// Bits carried by one word: the list has 2^11 words.
pub const BITS: usize = 11;

const LIST: Language = Language::English;

const LIST_HINT: &str =
    "check it against the BIP39 English word list, a word at a time (docs/recovery.md)";

/// The word at `index` in the list. Panics unless `index < 2048`.
pub fn word(index: u16) -> &'static str {
    LIST.word_list()[usize::from(index)]
}

/// What a typed word names. No `Debug`: the index is part of a secret.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// The word at this index: typed in full, or a prefix of exactly one word.
    Word(u16),
    /// A prefix of this many words.
    Ambiguous(usize),
    /// Neither a word nor a prefix of one.
    Unknown,
}

/// Resolve a typed word: trimmed, ASCII lowercased; an exact word wins over a prefix ("act"
/// is a word and the start of "action").
pub fn complete(typed: &str) -> Completion {
    let typed = typed.trim();
    if typed.is_empty() {
        return Completion::Unknown;
    }
    let lower = Zeroizing::new(typed.to_ascii_lowercase());
    if let Some(index) = LIST.find_word(&lower) {
        return Completion::Word(index);
    }
    let mut matches = LIST.words_by_prefix_iter(&lower);
    match (matches.next(), matches.count()) {
        (None, _) => Completion::Unknown,
        (Some(only), 0) => Completion::Word(LIST.find_word(only).expect("a word of the list")),
        (Some(_), more) => Completion::Ambiguous(more + 1),
    }
}

/// The words of `text`, split on whitespace, without the numbers written before them.
pub fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace().filter(|t| !is_numbering(t))
}

/// "7", "1.", "12)", "3:".
fn is_numbering(token: &str) -> bool {
    let digits = token
        .strip_suffix(|c| matches!(c, '.' | ')' | ':'))
        .unwrap_or(token);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// The list index of every word of `text` ([`tokens`], each [`complete`]d).
pub fn indices(text: &str) -> Result<Zeroizing<Vec<u16>>, Error> {
    // Sized up front so the vector never reallocates and leaves copies behind.
    let mut out = Zeroizing::new(Vec::with_capacity(tokens(text).count()));
    for (i, token) in tokens(text).enumerate() {
        out.push(resolve(i + 1, token)?);
    }
    Ok(out)
}

/// Word `position` (1-based) of a text; the error names the position, never the word.
fn resolve(position: usize, token: &str) -> Result<u16, Error> {
    match complete(token) {
        Completion::Word(index) => Ok(index),
        Completion::Ambiguous(n) => Err(Error::check(
            format!("word {position} (first letters only) matches {n} words"),
            "write more of it: the first 4 letters name one word (docs/recovery.md)",
        )),
        Completion::Unknown => Err(Error::check(
            format!("word {position} is not a word of the BIP39 English list"),
            LIST_HINT,
        )),
    }
}

/// The first `nbits` bits of `bytes` (MSB first, as BIP39), 11 to a word index.
pub(crate) fn to_indices(bytes: &[u8], nbits: usize) -> Zeroizing<Vec<u16>> {
    assert!(nbits.is_multiple_of(BITS) && nbits <= bytes.len() * 8);
    let bit = |i: usize| u16::from((bytes[i / 8] >> (7 - i % 8)) & 1);
    let mut out = Zeroizing::new(Vec::with_capacity(nbits / BITS));
    for w in 0..nbits / BITS {
        let mut index = 0u16;
        for b in 0..BITS {
            index = (index << 1) | bit(w * BITS + b);
        }
        out.push(index);
    }
    out
}

/// The bits of `indices` (11 each, MSB first) as bytes, the last one padded with zero bits.
pub(crate) fn from_indices(indices: &[u16]) -> Zeroizing<Vec<u8>> {
    let nbits = indices.len() * BITS;
    let mut out = Zeroizing::new(vec![0u8; nbits.div_ceil(8)]);
    for i in 0..nbits {
        let bit = ((indices[i / BITS] >> (BITS - 1 - i % BITS)) & 1) as u8;
        out[i / 8] |= bit << (7 - i % 8);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn index_of(typed: &str) -> Option<u16> {
        match complete(typed) {
            Completion::Word(i) => Some(i),
            _ => None,
        }
    }

    #[test]
    fn words_and_prefixes_complete() {
        assert_eq!(word(0), "abandon");
        assert_eq!(word(2047), "zoo");
        assert_eq!(index_of("  ZOO\n"), Some(2047));
        assert_eq!(index_of("aban"), Some(0));
        assert_eq!(index_of("Abando"), Some(0));
        // "act" is a word and the start of "action", "actor"...: the word wins.
        assert_eq!(index_of("act").map(word), Some("act"));
        assert!(complete("acti") == Completion::Word(LIST.find_word("action").unwrap()));
        assert!(matches!(complete("ab"), Completion::Ambiguous(n) if n > 2));
        assert!(complete("xyzzy") == Completion::Unknown);
        assert!(complete("abandonx") == Completion::Unknown);
        assert!(complete("") == Completion::Unknown);
        assert!(complete("   ") == Completion::Unknown);
        assert!(complete("ñ") == Completion::Unknown);
    }

    #[test]
    fn four_letters_always_name_one_word() {
        for w in LIST.word_list() {
            let prefix = &w[..w.len().min(4)];
            assert_eq!(index_of(prefix).map(word), Some(*w));
        }
    }

    #[test]
    fn numbering_is_skipped() {
        let text = "1. abandon 2) ability\n3: able 12 about x1. 1.5 a1";
        let got: Vec<&str> = tokens(text).collect();
        assert_eq!(
            got,
            ["abandon", "ability", "able", "about", "x1.", "1.5", "a1"]
        );
    }

    #[test]
    fn errors_name_the_position_not_the_word() {
        let e = indices("abandon ability secretword able").unwrap_err();
        assert!(e.message().contains("word 3"), "{}", e.message());
        assert!(!e.message().contains("secretword") && !e.hint().contains("secretword"));
        let e = indices("abandon ab").unwrap_err();
        assert!(
            e.message()
                .starts_with("word 2 (first letters only) matches")
        );
        assert!(!e.message().contains("ab ") && !e.message().ends_with("ab"));
        assert_eq!(&indices("1. Abandon 2. ZOO").unwrap()[..], &[0, 2047]);
    }

    #[test]
    fn packing_agrees_with_bip39() {
        let entropy = [0x7fu8; 32];
        let m = bip39::Mnemonic::from_entropy_in(LIST, &entropy).unwrap();
        let want: Vec<u16> = m.word_indices().map(|i| i as u16).collect();
        let mut bytes = entropy.to_vec();
        bytes.push(m.checksum());
        assert_eq!(&to_indices(&bytes, 24 * BITS)[..], &want[..]);
        assert_eq!(&from_indices(&want)[..], &bytes[..]);
    }

    proptest! {
        #[test]
        fn packing_round_trips(indices in proptest::collection::vec(0u16..2048, 0..40)) {
            let bytes = from_indices(&indices);
            prop_assert_eq!(bytes.len(), (indices.len() * BITS).div_ceil(8));
            prop_assert_eq!(&to_indices(&bytes, indices.len() * BITS)[..], &indices[..]);
        }
    }
}
