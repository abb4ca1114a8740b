//! Strict ASCII armor (DESIGN.md section 5).
//!
//! `-----BEGIN NEXUSQ <KIND>-----`, base64 in 64-character lines with canonical padding,
//! `-----END NEXUSQ <KIND>-----`, and exactly one final line ending. All lines end the same way
//! (LF or CRLF). Nothing else is accepted, so a flipped or truncated file cannot slip through as
//! whitespace or padding: decoding re-encodes and compares byte for byte.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

const LINE: usize = 64;

/// Encode `data` as armored text of the given kind (for example "PUBLIC IDENTITY"), LF endings.
pub fn encode(kind: &str, data: &[u8]) -> String {
    let b64 = STANDARD.encode(data);
    let mut out = String::with_capacity(b64.len() + b64.len() / LINE + 80);
    out.push_str(&format!("-----BEGIN NEXUSQ {kind}-----\n"));
    for chunk in b64.as_bytes().chunks(LINE) {
        // base64 output is ASCII, so every chunk boundary is a char boundary.
        out.push_str(std::str::from_utf8(chunk).expect("base64 is ASCII"));
        out.push('\n');
    }
    out.push_str(&format!("-----END NEXUSQ {kind}-----\n"));
    out
}

/// Why armored text was refused; the caller adds what the file was supposed to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArmorError(pub String);

/// Decode armored text that must be of the given kind.
pub fn decode(kind: &str, text: &[u8]) -> Result<Vec<u8>, ArmorError> {
    let fail = |m: &str| Err(ArmorError(m.to_string()));
    let text = match std::str::from_utf8(text) {
        Ok(t) => t,
        Err(_) => return fail("not text (invalid UTF-8)"),
    };
    let eol = if text.ends_with("\r\n") {
        "\r\n"
    } else if text.ends_with('\n') {
        "\n"
    } else {
        return fail("does not end with a line ending (truncated?)");
    };
    let body = &text[..text.len() - eol.len()];
    let lines: Vec<&str> = body.split(eol).collect();
    if lines.iter().any(|l| l.contains('\r') || l.contains('\n')) {
        return fail("mixes line endings or has stray line breaks");
    }
    let begin = format!("-----BEGIN NEXUSQ {kind}-----");
    let end = format!("-----END NEXUSQ {kind}-----");
    if lines.first() != Some(&begin.as_str()) {
        return match lines.first() {
            Some(l) if l.starts_with("-----BEGIN NEXUSQ ") => fail(&format!(
                "is a different kind of nexusq file ({}), expected {kind}",
                l.trim_start_matches("-----BEGIN NEXUSQ ")
                    .trim_end_matches("-----")
            )),
            _ => fail(&format!("does not start with \"{begin}\"")),
        };
    }
    if lines.len() < 3 || lines.last() != Some(&end.as_str()) {
        return fail(&format!("does not end with \"{end}\" (truncated?)"));
    }
    let body_lines = &lines[1..lines.len() - 1];
    for (i, line) in body_lines.iter().enumerate() {
        let last = i + 1 == body_lines.len();
        if line.is_empty() || line.len() > LINE || (!last && line.len() != LINE) {
            return fail("has a base64 line of the wrong length");
        }
    }
    let joined: String = body_lines.concat();
    let data = match STANDARD.decode(joined.as_bytes()) {
        Ok(d) => d,
        Err(_) => return fail("has invalid base64"),
    };
    // Belt and braces: only the one canonical encoding of `data` is accepted.
    if STANDARD.encode(&data) != joined {
        return fail("has non-canonical base64");
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn exact_layout() {
        let s = encode("TEST", &[0u8; 50]);
        let lines: Vec<_> = s.lines().collect();
        assert_eq!(lines[0], "-----BEGIN NEXUSQ TEST-----");
        assert_eq!(lines[1].len(), 64);
        assert_eq!(lines.last().unwrap(), &"-----END NEXUSQ TEST-----");
        assert!(s.ends_with("-----\n"));
    }

    #[test]
    fn crlf_accepted_mixed_refused() {
        let s = encode("TEST", b"hello world");
        let crlf = s.replace('\n', "\r\n");
        assert_eq!(decode("TEST", crlf.as_bytes()).unwrap(), b"hello world");
        let mixed = s.replacen('\n', "\r\n", 1);
        assert!(decode("TEST", mixed.as_bytes()).is_err());
    }

    #[test]
    fn refuses_every_loose_variant() {
        let s = encode("TEST", &[7u8; 100]);
        let bad = [
            s.trim_end().to_string(),                                // no final newline
            format!("{s}\n"),                                        // two final newlines
            format!(" {s}"),                                         // leading space
            s.replace("NEXUSQ TEST-----\n", "NEXUSQ TEST-----\n\n"), // blank line
            s.replace("-----END", " -----END"),
            s.replace("BEGIN NEXUSQ TEST", "BEGIN NEXUSQ OTHER"),
        ];
        for (i, b) in bad.iter().enumerate() {
            assert!(
                decode("TEST", b.as_bytes()).is_err(),
                "variant {i} accepted"
            );
        }
        // Non-canonical padding bits: "AQ==" is canonical for [1]; "AR==" decodes loosely to [1].
        let loose = "-----BEGIN NEXUSQ TEST-----\nAR==\n-----END NEXUSQ TEST-----\n";
        assert!(decode("TEST", loose.as_bytes()).is_err());
        let unpadded = "-----BEGIN NEXUSQ TEST-----\nAQ\n-----END NEXUSQ TEST-----\n";
        assert!(decode("TEST", unpadded.as_bytes()).is_err());
    }

    #[test]
    fn wrong_kind_is_named() {
        let s = encode("SIGNATURE", b"x");
        let e = decode("PUBLIC IDENTITY", s.as_bytes()).unwrap_err();
        assert!(e.0.contains("SIGNATURE"), "{}", e.0);
    }

    proptest! {
        #[test]
        fn round_trip(data in proptest::collection::vec(any::<u8>(), 1..2000)) {
            let s = encode("X", &data);
            prop_assert_eq!(decode("X", s.as_bytes()).unwrap(), data);
        }

        #[test]
        fn every_truncation_is_refused(data in proptest::collection::vec(any::<u8>(), 1..200), cut in 0usize..1000) {
            let s = encode("X", &data);
            let cut = cut % s.len();
            prop_assert!(decode("X", &s.as_bytes()[..cut]).is_err());
        }
    }
}
