//! Recovery shares: k-of-n Shamir shares of the master secret over GF(256) (the `blahaj` crate),
//! each written as 30 words of the BIP39 English list. Any k shares of one set rebuild the
//! master secret; fewer tell nothing about it.
//!
//! One share is 330 bits, packed MSB first into 30 11-bit word indices:
//!
//! ```text
//! version      8 bits   1
//! threshold    8 bits   k, at least 2
//! index        8 bits   x, 1..=255 (the point the share's polynomials are evaluated at)
//! fingerprint 32 bits   the first 4 bytes of the identity's root_id
//! y          256 bits   the share of the 32-byte master secret, one byte per secret byte
//! checksum    18 bits   the first 18 bits of SHA-256("nexusq/share/v1" || the 39 bytes above)
//! ```
//!
//! The fingerprint prefix tells which identity a share belongs to, so shares of two identities
//! are refused before they are combined; the master secret they combine to must derive a root
//! whose root_id starts with it, which also catches shares of two `split` runs (each run draws
//! new polynomials). The checksum catches a mistyped word, not a forged share.

use super::{phrase, words};
use crate::error::Error;
use crate::identity::master::MASTER_LEN;
use crate::identity::{MasterSecret, RootId};
use crate::secret::SecretBytes;
use crate::suite::Backend;
use blahaj::Sharks;
use sha2::{Digest, Sha256};
use std::fmt;
use zeroize::Zeroizing;

/// Words in one share.
pub const WORDS: usize = 30;
/// The most shares one `split` makes.
pub(crate) const MAX_SHARES: u8 = 16;
/// The share format this code writes and reads.
pub const VERSION: u8 = 1;
/// The checksum's domain.
pub(crate) const DOMAIN: &[u8] = b"nexusq/share/v1";

const PAYLOAD_LEN: usize = 3 + 4 + MASTER_LEN;
const CHECKSUM_BITS: usize = 18;
const BITS: usize = WORDS * words::BITS;
// Payload, then the checksum's bits, then zero padding to a whole byte.
const PACKED_LEN: usize = BITS.div_ceil(8);
const _: () = assert!(PAYLOAD_LEN * 8 + CHECKSUM_BITS == BITS);

/// One share. The `y` bytes are zeroized on drop; `Debug` shows only the public fields.
#[derive(Clone)]
pub struct Share {
    threshold: u8,
    index: u8,
    fingerprint: [u8; 4],
    y: SecretBytes<MASTER_LEN>,
}

impl Share {
    /// How many shares of the set rebuild the secret (k).
    pub fn threshold(&self) -> u8 {
        self.threshold
    }

    /// The share's number in its set (blahaj's x), from 1.
    pub fn index(&self) -> u8 {
        self.index
    }

    /// The first 4 bytes of the root_id of the identity the share belongs to.
    pub fn fingerprint_prefix(&self) -> [u8; 4] {
        self.fingerprint
    }

    /// The start of the identity's fingerprint as it prints ("abcd-ef"), from the prefix.
    pub fn fingerprint_start(&self) -> String {
        fingerprint_start(&self.fingerprint)
    }

    /// The 30 word indices (module docs).
    pub(crate) fn to_words(&self) -> Zeroizing<Vec<u16>> {
        let mut packed = Zeroizing::new([0u8; PACKED_LEN]);
        packed[..PAYLOAD_LEN].copy_from_slice(&self.payload()[..]);
        let sum = checksum(&packed[..PAYLOAD_LEN]);
        packed[PAYLOAD_LEN..].copy_from_slice(&sum);
        words::to_indices(&packed[..], BITS)
    }

    /// The 30 words in order.
    pub fn words(&self) -> impl Iterator<Item = &'static str> + Clone {
        let indices = self.to_words();
        (0..WORDS).map(move |i| words::word(indices[i]))
    }

    /// The words joined by single spaces and a final newline (the `-o FILE` format).
    pub fn to_text(&self) -> Zeroizing<String> {
        phrase::join(self.words())
    }

    fn payload(&self) -> Zeroizing<[u8; PAYLOAD_LEN]> {
        let mut p = Zeroizing::new([0u8; PAYLOAD_LEN]);
        p[..3].copy_from_slice(&[VERSION, self.threshold, self.index]);
        p[3..7].copy_from_slice(&self.fingerprint);
        p[7..].copy_from_slice(self.y.expose());
        p
    }

    /// blahaj's share, `[x, y..]` in its byte form.
    fn to_blahaj(&self) -> blahaj::Share {
        let mut bytes = Zeroizing::new([0u8; 1 + MASTER_LEN]);
        bytes[0] = self.index;
        bytes[1..].copy_from_slice(self.y.expose());
        blahaj::Share::try_from(&bytes[..]).expect("33 bytes make a share")
    }

    fn from_blahaj(threshold: u8, fingerprint: [u8; 4], share: &blahaj::Share) -> Share {
        let bytes = Zeroizing::new(Vec::<u8>::from(share));
        Share {
            threshold,
            index: bytes[0],
            fingerprint,
            y: SecretBytes::from_slice(&bytes[1..]).expect("a share of 32 bytes"),
        }
    }
}

impl fmt::Debug for Share {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Share {{ threshold: {}, index: {}, fingerprint: {}, y: redacted }}",
            self.threshold,
            self.index,
            self.fingerprint_start()
        )
    }
}

/// The first 18 bits of SHA-256(DOMAIN || payload), in 3 bytes (the last 6 bits zero).
fn checksum(payload: &[u8]) -> [u8; 3] {
    let digest = Sha256::new()
        .chain_update(DOMAIN)
        .chain_update(payload)
        .finalize();
    [digest[0], digest[1], digest[2] & 0xc0]
}

/// The fingerprint's first 6 characters (30 of the prefix's 32 bits), grouped as it prints.
fn fingerprint_start(prefix: &[u8; 4]) -> String {
    let s = data_encoding::BASE32_NOPAD
        .encode(prefix)
        .to_ascii_lowercase();
    format!("{}-{}", &s[..4], &s[4..6])
}

/// `count` shares of `master`, any `threshold` of which rebuild it, naming the identity
/// `root_id`. Each call draws new polynomials: shares of two calls do not combine.
pub fn split(
    master: &MasterSecret,
    root_id: &RootId,
    threshold: u8,
    count: u8,
) -> Result<Vec<Share>, Error> {
    check_split(threshold, count)?;
    let fingerprint: [u8; 4] = root_id.0[..4].try_into().expect("4 of 32 bytes");
    Ok(Sharks(threshold)
        .dealer(master.expose())
        .take(usize::from(count))
        .map(|s| Share::from_blahaj(threshold, fingerprint, &s))
        .collect())
}

/// Refuse counts `split` cannot make (so a command can refuse them before it asks for a
/// password).
pub fn check_split(threshold: u8, count: u8) -> Result<(), Error> {
    if threshold == 1 {
        return Err(Error::usage(
            "the threshold must be at least 2",
            "one share would be the whole secret: write the recovery phrase instead",
        )
        .suggests(crate::error::Step::BackupPhrase));
    }
    if threshold == 0 {
        return Err(Error::usage(
            "the threshold must be at least 2",
            "give how many shares rebuild the secret, such as 2 of 3",
        ));
    }
    if count > MAX_SHARES {
        return Err(Error::usage(
            format!("at most {MAX_SHARES} shares can be made; {count} were asked for"),
            "ask for fewer shares",
        ));
    }
    if threshold > count {
        return Err(Error::usage(
            format!(
                "a threshold of {threshold} needs at least {threshold} shares; {count} were asked for"
            ),
            "the threshold is how many of the shares rebuild the secret: at most their number",
        ));
    }
    Ok(())
}

/// One share, typed or read: 30 words (any case, numbered or not, full or their first
/// letters) whose checksum holds.
pub fn parse(text: &str) -> Result<Share, Error> {
    let count = words::tokens(text).count();
    if count != WORDS {
        return Err(count_error(count));
    }
    let indices = words::indices(text)?;
    let packed = words::from_indices(&indices);
    let (payload, sum) = packed.split_at(PAYLOAD_LEN);
    if sum != checksum(payload) {
        return Err(Error::check(
            "the share's checksum does not hold: a word is wrong, missing or two are swapped",
            "compare each word with the paper, in order (docs/recovery.md)",
        ));
    }
    from_payload(payload)
}

fn count_error(count: usize) -> Error {
    let hint = if count == phrase::WORDS {
        "this looks like a recovery phrase: give it as the phrase"
    } else {
        "write all 30 words of the share in order; numbers before the words are skipped"
    };
    let e = Error::check(
        format!("a recovery share has {WORDS} words; this has {count}"),
        hint,
    );
    if count == phrase::WORDS {
        e.suggests(crate::error::Step::GivePhrase)
    } else {
        e
    }
}

/// The fields of a payload whose checksum held.
fn from_payload(p: &[u8]) -> Result<Share, Error> {
    let (version, threshold, index) = (p[0], p[1], p[2]);
    if version != VERSION {
        return Err(Error::check(
            format!("this share has format version {version}; this nexusq reads version {VERSION}"),
            "made by a newer nexusq? update nexusq and try again",
        ));
    }
    if index == 0 || threshold < 2 {
        // Only a share not made by `split` gets here: the checksum held.
        return Err(Error::check(
            format!("this share names index {index} and threshold {threshold}, which no share has"),
            "use a share written by the shares backup",
        )
        .suggests(crate::error::Step::BackupShares));
    }
    Ok(Share {
        threshold,
        index,
        fingerprint: p[3..7].try_into().expect("4 bytes"),
        y: SecretBytes::from_slice(&p[7..]).expect("32 bytes"),
    })
}

/// The master secret of `shares`: of one identity and one set, distinct, at least the
/// threshold of them, and combining to a master secret whose root the identity names.
pub fn combine(shares: &[Share], backend: &dyn Backend) -> Result<MasterSecret, Error> {
    let first = shares.first().ok_or_else(|| {
        Error::usage("no share was given", "give each share (docs/recovery.md)")
            .suggests(crate::error::Step::GiveShares)
    })?;
    check_one_set(first, shares)?;
    check_enough(first.threshold, shares)?;
    let master = interpolate(first.threshold, shares)?;
    check_root(&master, &first.fingerprint, backend)?;
    Ok(master)
}

/// One identity, one threshold, no index twice.
fn check_one_set(first: &Share, shares: &[Share]) -> Result<(), Error> {
    for (i, s) in shares.iter().enumerate() {
        if s.fingerprint != first.fingerprint {
            return Err(different_identities(first, s));
        }
        if s.threshold != first.threshold {
            return Err(Error::check(
                format!(
                    "these shares were made with different thresholds ({} and {})",
                    first.threshold, s.threshold
                ),
                "they come from different shares backups: use shares of one backup",
            )
            .suggests(crate::error::Step::BackupShares));
        }
        if shares[..i].iter().any(|t| t.index == s.index) {
            return Err(Error::check(
                format!("share {} was given twice", s.index),
                "give each share once, and another share of the set in its place",
            ));
        }
    }
    Ok(())
}

fn different_identities(a: &Share, b: &Share) -> Error {
    let (mut x, mut y) = (a.fingerprint_start(), b.fingerprint_start());
    if x == y {
        // Prefixes that differ only past the 30 bits the fingerprint's start shows.
        (x, y) = (hex(&a.fingerprint), hex(&b.fingerprint));
    }
    Error::check(
        format!("these shares belong to different identities (fingerprints start {x} and {y})"),
        "use shares of one identity, from one shares backup",
    )
    .suggests(crate::error::Step::BackupShares)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn check_enough(threshold: u8, shares: &[Share]) -> Result<(), Error> {
    if shares.len() >= usize::from(threshold) {
        return Ok(());
    }
    let given: Vec<String> = shares.iter().map(|s| s.index.to_string()).collect();
    let (was, share) = if given.len() == 1 {
        ("was", "share")
    } else {
        ("were", "shares")
    };
    Err(Error::check(
        format!(
            "{threshold} shares are needed; {} {was} given ({share} {})",
            given.len(),
            given.join(", ")
        ),
        "add another share of the same set",
    )
    .suggests(crate::error::Step::GiveShares))
}

/// blahaj's interpolation over every share given: an extra share of another set then makes
/// the result wrong, and the root check refuses it, rather than being silently left out.
fn interpolate(threshold: u8, shares: &[Share]) -> Result<MasterSecret, Error> {
    let points: Vec<blahaj::Share> = shares.iter().map(Share::to_blahaj).collect();
    let secret = Zeroizing::new(
        Sharks(threshold)
            .recover(&points)
            .map_err(|_| Error::check("the shares do not combine", "check the shares given"))?,
    );
    let bytes = SecretBytes::from_slice(&secret).expect("shares of 32 bytes");
    Ok(MasterSecret::from_bytes(bytes))
}

fn check_root(master: &MasterSecret, prefix: &[u8; 4], backend: &dyn Backend) -> Result<(), Error> {
    let root_id = RootId::of(&master.root().public_key(backend));
    if root_id.0[..4] == prefix[..] {
        return Ok(());
    }
    Err(Error::check(
        "these shares do not combine to the identity they name: they come from different \
         shares backups (each backup makes a new set)",
        "use shares of one backup only",
    )
    .suggests(crate::error::Step::BackupShares))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::rustcrypto::RustCrypto;
    use proptest::prelude::*;

    fn master(bytes: [u8; 32]) -> MasterSecret {
        MasterSecret::from_bytes(SecretBytes::from_slice(&bytes).unwrap())
    }

    fn root_id(m: &MasterSecret) -> RootId {
        RootId::of(&m.root().public_key(&RustCrypto))
    }

    fn fixed_share() -> Share {
        Share {
            threshold: 3,
            index: 2,
            fingerprint: [0xde, 0xad, 0xbe, 0xef],
            y: SecretBytes::from_slice(&[0x5a; 32]).unwrap(),
        }
    }

    fn same(a: &Share, b: &Share) -> bool {
        (a.threshold, a.index, a.fingerprint, a.y.expose())
            == (b.threshold, b.index, b.fingerprint, b.y.expose())
    }

    #[test]
    fn a_share_round_trips_through_text() {
        let m = master([9; 32]);
        for share in split(&m, &RootId([7; 32]), 2, 3).unwrap() {
            let text = share.to_text();
            assert_eq!(text.split_whitespace().count(), WORDS);
            assert!(text.ends_with('\n'));
            assert!(same(&parse(&text).unwrap(), &share));
            let prefixes: Vec<String> = share
                .words()
                .map(|w| w[..w.len().min(4)].to_uppercase())
                .collect();
            assert!(same(&parse(&prefixes.join(" ")).unwrap(), &share));
        }
        let s = fixed_share();
        assert!(same(&parse(&s.to_text()).unwrap(), &s));
        assert_eq!((s.threshold(), s.index()), (3, 2));
        assert_eq!(s.fingerprint_prefix(), [0xde, 0xad, 0xbe, 0xef]);
    }

    #[test]
    fn a_changed_word_breaks_the_checksum() {
        let text = fixed_share().to_text();
        let mut w: Vec<&str> = text.split_whitespace().collect();
        w[10] = if w[10] == "zoo" { "abandon" } else { "zoo" };
        let changed = w.join(" ");
        let e = parse(&changed).unwrap_err();
        assert!(e.message().contains("checksum does not hold"), "{e:?}");
        assert_no_word_of(&changed, &e);
        w.swap(3, 4);
        assert!(parse(&w.join(" ")).is_err());
    }

    #[test]
    fn counts_and_fields_are_checked() {
        let text = fixed_share().to_text();
        let mut w: Vec<&str> = text.split_whitespace().collect();
        w.truncate(24);
        let e = parse(&w.join(" ")).unwrap_err();
        assert_eq!(e.message(), "a recovery share has 30 words; this has 24");
        assert_eq!(e.step(), Some(&crate::error::Step::GivePhrase));
        let mut newer = fixed_share().payload();
        newer[0] = 2;
        assert!(
            from_payload(&newer[..])
                .unwrap_err()
                .hint()
                .contains("newer")
        );
    }

    #[test]
    fn split_checks_its_numbers() {
        let m = master([1; 32]);
        let id = RootId([2; 32]);
        let e = split(&m, &id, 1, 3).unwrap_err();
        assert_eq!(e.step(), Some(&crate::error::Step::BackupPhrase));
        for (k, n) in [(0, 3), (3, 2), (2, 17)] {
            assert!(split(&m, &id, k, n).is_err(), "{k} of {n}");
        }
        let shares = split(&m, &id, 16, 16).unwrap();
        let indices: Vec<u8> = shares.iter().map(Share::index).collect();
        assert_eq!(indices, (1..=16).collect::<Vec<u8>>());
    }

    #[test]
    fn shares_of_two_identities_are_refused() {
        let (a, b) = (master([1; 32]), master([2; 32]));
        let mut mixed = split(&a, &root_id(&a), 2, 2).unwrap();
        mixed.truncate(1);
        mixed.push(split(&b, &root_id(&b), 2, 2).unwrap().remove(1));
        let e = combine(&mixed, &RustCrypto).unwrap_err();
        assert!(e.message().contains("different identities"), "{e:?}");
        let (x, y) = (mixed[0].fingerprint_start(), mixed[1].fingerprint_start());
        assert!(e.message().contains(&x) && e.message().contains(&y));
        let fp = root_id(&a).fingerprint().to_string();
        assert!(fp.starts_with(&x), "{fp} {x}");
    }

    #[test]
    fn shares_of_two_runs_are_refused() {
        let m = master([3; 32]);
        let id = root_id(&m);
        let one = split(&m, &id, 2, 3).unwrap();
        let two = split(&m, &id, 2, 3).unwrap();
        let mixed = [one[0].clone(), two[1].clone()];
        let e = combine(&mixed, &RustCrypto).unwrap_err();
        assert!(e.message().contains("different shares backups"));
        // An extra share of another run spoils an otherwise enough set too.
        let e = combine(
            &[one[0].clone(), one[1].clone(), two[2].clone()],
            &RustCrypto,
        );
        assert!(e.is_err());
        let mixed_k = split(&m, &id, 3, 3).unwrap();
        let e = combine(&[one[0].clone(), mixed_k[1].clone()], &RustCrypto).unwrap_err();
        assert!(e.message().contains("different thresholds"));
    }

    #[test]
    fn repeats_and_too_few_are_refused() {
        let m = master([4; 32]);
        let s = split(&m, &RootId([5; 32]), 2, 3).unwrap();
        let e = combine(&[s[1].clone(), s[1].clone()], &RustCrypto).unwrap_err();
        assert_eq!(e.message(), "share 2 was given twice");
        let e = combine(&[s[1].clone()], &RustCrypto).unwrap_err();
        assert_eq!(e.message(), "2 shares are needed; 1 was given (share 2)");
        assert!(combine(&[], &RustCrypto).is_err());
    }

    #[test]
    fn debug_hides_y() {
        let d = format!("{:?}", fixed_share());
        assert!(!d.contains("5a") && !d.contains("90"), "{d}");
        assert!(d.contains("index: 2"));
    }

    fn assert_no_word_of(text: &str, e: &Error) {
        let shown = format!("{} {}", e.message(), e.hint()).to_lowercase();
        for w in text.split_whitespace() {
            assert!(
                !shown.split(|c: char| !c.is_alphanumeric()).any(|s| s == w),
                "{w} in {shown}"
            );
        }
    }

    /// Every `k`-subset of `0..n`, as index lists.
    fn subsets(n: usize, k: usize) -> Vec<Vec<usize>> {
        if k == 0 {
            return vec![vec![]];
        }
        (k - 1..n)
            .flat_map(|last| {
                subsets(last, k - 1).into_iter().map(move |mut s| {
                    s.push(last);
                    s
                })
            })
            .collect()
    }

    fn pick(shares: &[Share], at: &[usize]) -> Vec<Share> {
        at.iter().map(|&i| shares[i].clone()).collect()
    }

    fn recover_with(k: u8, shares: &[Share]) -> Vec<u8> {
        let points: Vec<blahaj::Share> = shares.iter().map(Share::to_blahaj).collect();
        Sharks(k).recover(&points).unwrap()
    }

    proptest! {
        // Few cases: each `combine` derives an SLH-DSA public key.
        #![proptest_config(ProptestConfig::with_cases(16))]
        #[test]
        fn k_shares_combine_and_fewer_do_not(
            bytes in proptest::array::uniform32(any::<u8>()),
            (k, n) in (2u8..=6).prop_flat_map(|k| (Just(k), k..=6)),
            seed in any::<proptest::sample::Index>(),
        ) {
            let m = master(bytes);
            let shares = split(&m, &root_id(&m), k, n).unwrap();
            let (k, n) = (usize::from(k), usize::from(n));
            for at in subsets(n, k) {
                prop_assert_eq!(recover_with(k as u8, &pick(&shares, &at)), bytes.to_vec());
            }
            let every = subsets(n, k);
            let at: &Vec<usize> = seed.get(&every);
            let chosen = pick(&shares, at);
            let combined = combine(&chosen, &RustCrypto).unwrap();
            prop_assert_eq!(combined.expose(), &bytes);
            for at in subsets(n, k - 1) {
                let fewer = pick(&shares, &at);
                prop_assert!(combine(&fewer, &RustCrypto).is_err());
                prop_assert_ne!(recover_with(k as u8 - 1, &fewer), bytes.to_vec());
            }
        }
    }
}
