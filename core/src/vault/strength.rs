//! How guessable a new vault password is, as zxcvbn estimates it (docs/security.md, "The
//! password"). Anyone with a copy of the vault file can try passwords offline at Argon2id's
//! cost, so a password a cracker tries early is worth a warning; it is never refused (the
//! owner decides).

use crate::secret::Password;

/// Below this zxcvbn score (0-4) a password is weak: score 2 means "10^8 guesses or fewer".
const STRONG_ENOUGH: u8 = 3;

/// What the estimate says of one password. Nothing of the password itself: zxcvbn's matches
/// (which hold parts of it) are dropped inside [`estimate`].
#[derive(Clone, Debug, PartialEq)]
pub struct Strength {
    /// zxcvbn's score, 0 (guessed at once) to 4 (more than 10^10 guesses).
    pub score: u8,
    /// log10 of the estimated number of guesses a cracker needs.
    pub guesses_log10: f64,
    /// Why, when zxcvbn can say ("This is a top-10 common password").
    pub warning: Option<String>,
    /// What to do instead ("Add another word or two. Uncommon words are better.").
    pub suggestions: Vec<String>,
}

impl Strength {
    /// Below the score the command line warns at.
    pub fn is_weak(&self) -> bool {
        self.score < STRONG_ENOUGH
    }
}

/// Estimate `password`'s strength; words a cracker would try first for this program
/// ("nexusq", "vault") count against it.
pub fn estimate(password: &Password) -> Strength {
    // Passwords are text: a vault password is read as UTF-8 (secret::Password::new).
    let text = String::from_utf8_lossy(password.as_bytes());
    let entropy = zxcvbn::zxcvbn(&text, &["nexusq", "vault", "password"]);
    let feedback = entropy.feedback();
    Strength {
        score: u8::from(entropy.score()),
        guesses_log10: entropy.guesses_log10(),
        warning: feedback.and_then(|f| f.warning()).map(|w| w.to_string()),
        suggestions: feedback
            .map(|f| f.suggestions().iter().map(ToString::to_string).collect())
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zeroize::Zeroizing;

    fn of(text: &str) -> Strength {
        estimate(&Password::new(Zeroizing::new(text.to_string())))
    }

    #[test]
    fn short_common_and_program_words_are_weak_passphrases_are_not() {
        for weak in ["a", "password", "nexusq123", "qwerty12", "Summer2026!"] {
            let s = of(weak);
            assert!(s.is_weak(), "{weak}: {s:?}");
        }
        let s = of("a");
        assert!(!s.suggestions.is_empty(), "{s:?}");
        for strong in [
            "correct horse battery staple orbit",
            "tangerine-viaduct-mossy-hatchet",
        ] {
            let s = of(strong);
            assert!(!s.is_weak(), "{strong}: {s:?}");
        }
    }
}
