//! The one run-time selection point: which implementation runs, detected once per process and
//! overridable per thread for tests and benches.

use std::cell::Cell;
use std::sync::OnceLock;

/// The implementations this crate has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Implementation {
    /// Plain Rust, any target.
    Portable,
    /// x86-64 with AVX2 (and BMI1/BMI2, which every AVX2 CPU has, for the scalar Keccak).
    Avx2,
    /// x86-64 with AVX2, AVX-512F and AVX-512VL: the AVX2 arithmetic with AVX-512VL Keccak.
    Avx512,
    /// aarch64 Advanced SIMD.
    Neon,
    /// aarch64 Advanced SIMD with the SHA-3 instructions (EOR3, RAX1, XAR, BCAX) for Keccak.
    NeonSha3,
}

impl Implementation {
    pub fn name(self) -> &'static str {
        match self {
            Implementation::Portable => "portable",
            Implementation::Avx2 => "avx2",
            Implementation::Avx512 => "avx512",
            Implementation::Neon => "neon",
            Implementation::NeonSha3 => "neon-sha3",
        }
    }
}

/// Every implementation this CPU can run, slowest first.
pub fn available() -> Vec<Implementation> {
    let mut out = vec![Implementation::Portable];
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("popcnt")
    {
        out.push(Implementation::Avx2);
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
        {
            out.push(Implementation::Avx512);
        }
    }
    #[cfg(target_arch = "aarch64")]
    if std::arch::is_aarch64_feature_detected!("neon") {
        out.push(Implementation::Neon);
        if std::arch::is_aarch64_feature_detected!("sha3") {
            out.push(Implementation::NeonSha3);
        }
    }
    out
}

/// The implementation chosen for this CPU: the fastest available. Detected once.
pub fn selected() -> Implementation {
    static SELECTED: OnceLock<Implementation> = OnceLock::new();
    *SELECTED.get_or_init(|| *available().last().expect("portable is always available"))
}

thread_local! {
    static FORCED: Cell<Option<Implementation>> = const { Cell::new(None) };
}

/// Runs `f` with `imp` forced on this thread (tests and benches), then restores the previous
/// choice, also when `f` panics.
///
/// # Panics
///
/// If this CPU cannot run `imp` (it is not in [`available`]): running it would execute
/// instructions the CPU does not have.
pub fn with_implementation<R>(imp: Implementation, f: impl FnOnce() -> R) -> R {
    assert!(
        available().contains(&imp),
        "the {} implementation cannot run on this CPU (available: {:?})",
        imp.name(),
        available()
    );
    struct Restore(Option<Implementation>);
    impl Drop for Restore {
        fn drop(&mut self) {
            FORCED.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(FORCED.with(|c| c.replace(Some(imp))));
    f()
}

/// The implementation to run now: the forced one, else the selected one. Every value returned
/// is one the CPU supports, which is what makes the `unsafe` calls in [`run`] sound.
pub(crate) fn current() -> Implementation {
    FORCED.with(|c| c.get()).unwrap_or_else(selected)
}

/// Calls `$body` with `$S` bound to the type of the implementation that runs now, inside a
/// function compiled with that implementation's target features, so that the generic
/// algorithm and every vector operation it uses are compiled for those features.
macro_rules! run {
    (|$S:ident| $body:expr) => {{
        #[allow(unused_imports)]
        use $crate::dispatch::Implementation as I;
        match $crate::dispatch::current() {
            #[cfg(target_arch = "x86_64")]
            I::Avx2 => {
                #[target_feature(enable = "avx2")]
                unsafe fn entry<R>(f: impl FnOnce() -> R) -> R {
                    f()
                }
                type $S = $crate::avx2::Avx2;
                // SAFETY: `current()` only returns implementations in `available()`, which
                // checked that the CPU has AVX2.
                unsafe { entry(|| $body) }
            }
            #[cfg(target_arch = "x86_64")]
            I::Avx512 => {
                #[target_feature(enable = "avx2,avx512f,avx512vl")]
                unsafe fn entry<R>(f: impl FnOnce() -> R) -> R {
                    f()
                }
                type $S = $crate::avx512::Avx512;
                // SAFETY: `current()` only returns implementations in `available()`, which
                // checked that the CPU has AVX2, AVX-512F and AVX-512VL.
                unsafe { entry(|| $body) }
            }
            #[cfg(target_arch = "aarch64")]
            I::Neon => {
                type $S = $crate::neon::Neon;
                $body
            }
            #[cfg(target_arch = "aarch64")]
            I::NeonSha3 => {
                #[target_feature(enable = "sha3")]
                unsafe fn entry<R>(f: impl FnOnce() -> R) -> R {
                    f()
                }
                type $S = $crate::neon::NeonSha3;
                // SAFETY: `current()` only returns implementations in `available()`, which
                // checked that the CPU has the SHA-3 instructions.
                unsafe { entry(|| $body) }
            }
            _ => {
                type $S = $crate::portable::Portable;
                $body
            }
        }
    }};
}
pub(crate) use run;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portable_always_available_and_selection_is_available() {
        let all = available();
        assert_eq!(all[0], Implementation::Portable);
        assert!(all.contains(&selected()));
    }

    /// CI runs the aarch64 tests under two emulated CPUs and says which in NEXUSQ_EXPECT_CPU,
    /// so a detection bug cannot silently skip the NEON or the SHA-3 path.
    #[test]
    fn the_emulated_cpu_gets_the_expected_implementations() {
        let all = available();
        match std::env::var("NEXUSQ_EXPECT_CPU").as_deref() {
            Ok("max") => {
                assert!(all.contains(&Implementation::Neon), "{all:?}");
                assert!(all.contains(&Implementation::NeonSha3), "{all:?}");
                assert_eq!(selected(), Implementation::NeonSha3);
            }
            Ok("cortex-a72") => {
                assert!(all.contains(&Implementation::Neon), "{all:?}");
                assert!(!all.contains(&Implementation::NeonSha3), "{all:?}");
                assert_eq!(selected(), Implementation::Neon);
            }
            Ok(other) => panic!("unknown NEXUSQ_EXPECT_CPU {other:?}"),
            Err(_) => {}
        }
    }

    #[test]
    fn forcing_is_scoped_and_restored() {
        let before = current();
        with_implementation(Implementation::Portable, || {
            assert_eq!(current(), Implementation::Portable);
        });
        assert_eq!(current(), before);
    }
}
