//! `nexusq-native`: nexusq's own ML-KEM (FIPS 203) and ML-DSA (FIPS 204), written once over a
//! small vector-operations trait with `portable`, `avx2` (x86-64) and `neon` (aarch64)
//! implementations, chosen once at run time (DESIGN.md section 7).
//!
//! This version holds the implementation selection only; the algorithms arrive with the native
//! backend issues, and until then the app's `--backend native` reports that it is unavailable.

/// The SIMD implementations this crate knows about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Implementation {
    /// Plain Rust, any target.
    Portable,
    /// x86-64 with AVX2.
    Avx2,
    /// aarch64 Advanced SIMD.
    Neon,
    /// aarch64 Advanced SIMD with the SHA-3 instructions (EOR3, RAX1, XAR, BCAX).
    NeonSha3,
}

impl Implementation {
    pub fn name(self) -> &'static str {
        match self {
            Implementation::Portable => "portable",
            Implementation::Avx2 => "avx2",
            Implementation::Neon => "neon",
            Implementation::NeonSha3 => "neon-sha3",
        }
    }
}

/// Every implementation this CPU can run, slowest first.
pub fn available() -> Vec<Implementation> {
    let mut out = vec![Implementation::Portable];
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        out.push(Implementation::Avx2);
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("neon") {
            out.push(Implementation::Neon);
        }
        if std::arch::is_aarch64_feature_detected!("sha3") {
            out.push(Implementation::NeonSha3);
        }
    }
    out
}

/// The implementation chosen for this CPU: the fastest available.
pub fn selected() -> Implementation {
    *available().last().expect("portable is always available")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portable_always_available_and_selection_is_available() {
        let all = available();
        assert_eq!(all[0], Implementation::Portable);
        assert!(all.contains(&selected()));
    }
}
