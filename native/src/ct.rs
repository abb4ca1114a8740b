//! Secret-taint testing (the `ct-testing` feature, run by `native/ctgrind.sh`).
//!
//! Under valgrind's memcheck a test marks the secret inputs undefined ([`classify`]), and
//! memcheck then reports every conditional branch and every memory address that depends on
//! them: the two ways a secret reaches timing in code without variable-latency instructions.
//! FIPS 203-205 let some values computed from secrets show (which bound rejected a signing
//! attempt, the challenge, the signature itself, the Merkle roots a verifier recomputes): the
//! library marks exactly those defined again ([`declassified`]) where it computes them, so any
//! report is code whose timing depends on a secret. docs/security.md lists the declassified
//! values and why each may show. Without the feature (or off Linux), and outside valgrind,
//! both do nothing, and the code is the same instruction for instruction.

/// `value`, from now on treated as public by memcheck; without the feature, just `value`.
#[inline(always)]
pub(crate) fn declassified<T: Copy>(value: T) -> T {
    #[cfg(all(feature = "ct-testing", target_os = "linux"))]
    {
        let mut value = value;
        declassify(&mut value);
        // A volatile read, so the value used afterwards is the one in memory, which memcheck
        // now takes as defined, not a copy the compiler kept in a register.
        // SAFETY: `value` is a live, aligned, initialised local.
        unsafe { core::ptr::read_volatile(&value) }
    }
    #[cfg(not(all(feature = "ct-testing", target_os = "linux")))]
    value
}

/// Marks `value`'s bytes as public for memcheck. Taking `&mut` tells the compiler the bytes
/// may have changed, so later reads come from memory.
#[inline(always)]
pub(crate) fn declassify<T: ?Sized>(value: &mut T) {
    #[cfg(all(feature = "ct-testing", target_os = "linux"))]
    mark(value, crabgrind::memcheck::MemState::Defined);
    #[cfg(not(all(feature = "ct-testing", target_os = "linux")))]
    let _ = value;
}

/// Marks `value`'s bytes as secret for memcheck: a test's way to say which inputs are secret.
/// The bytes themselves are not changed.
#[doc(hidden)]
pub fn classify<T: ?Sized>(value: &T) {
    #[cfg(all(feature = "ct-testing", target_os = "linux"))]
    mark(value, crabgrind::memcheck::MemState::Undefined);
    #[cfg(not(all(feature = "ct-testing", target_os = "linux")))]
    let _ = value;
}

#[cfg(all(feature = "ct-testing", target_os = "linux"))]
fn mark<T: ?Sized>(value: &T, state: crabgrind::memcheck::MemState) {
    // Outside valgrind the request fails harmlessly: nothing to mark.
    let _ = crabgrind::memcheck::mark_memory(
        (value as *const T).cast(),
        core::mem::size_of_val(value),
        state,
    );
}
