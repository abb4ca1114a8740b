//! Recovery words typed or read from a file: the phrase and share parsers, the word completion
//! and the combination of shares (docs/recovery.md).

use nexusq_core::recovery::{phrase, shares, words};
use nexusq_core::suite::rustcrypto::RustCrypto;

pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for token in words::tokens(text) {
        let _ = words::complete(token);
    }
    let _ = words::indices(text);
    // A phrase that parses gives back its own words, which parse to the same secret.
    if let Ok(master) = phrase::parse(text) {
        let again = phrase::Phrase::of(&master).to_text();
        let back = phrase::parse(&again).expect("a phrase's own words parse");
        assert_eq!(
            back.expose(),
            master.expose(),
            "the phrase does not round-trip"
        );
    }
    // Shares: each line is one; those that parse re-encode to themselves and combine or are
    // refused without a panic.
    let parsed: Vec<shares::Share> = text.lines().filter_map(|l| shares::parse(l).ok()).collect();
    for s in &parsed {
        let again = shares::parse(&s.to_text()).expect("a share's own words parse");
        assert_eq!(again.to_text(), s.to_text(), "a share does not round-trip");
    }
    if parsed.len() >= 2 {
        let _ = shares::combine(&parsed, &RustCrypto);
    }
}
