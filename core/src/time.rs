//! Wall-clock time as nexusq records it: Unix seconds, shown as RFC 3339 UTC.

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Unix seconds as an RFC 3339 UTC time.
pub fn rfc3339(secs: u64) -> String {
    i64::try_from(secs)
        .ok()
        .and_then(|s| jiff::Timestamp::from_second(s).ok())
        .map(|t| t.to_string())
        .unwrap_or_else(|| format!("@{secs}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_are_rfc3339() {
        assert_eq!(super::rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::rfc3339(1_796_000_000), "2026-11-30T00:53:20Z");
    }
}
