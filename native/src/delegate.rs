//! The two macros that every implementation's `mod.rs` writes its [`Simd`](crate::simd::Simd)
//! and [`DsaSimd`](crate::mldsa::ops::DsaSimd) impls with. A trait method there does no work of
//! its own: it calls the function of the same arguments in one of the implementation's concept
//! files (or, to share code, another implementation's method), so an impl is a list of
//! `fn signature => function;` lines, one per method.

/// Trait methods that call a safe function with the same arguments:
/// `fn name(args) -> R => path;` becomes `#[inline(always)] fn name(args) -> R { path(args) }`.
macro_rules! calls {
    ($(fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)? => $f:path;)*) => {$(
        #[inline(always)]
        fn $name($($arg: $ty),*) $(-> $ret)? {
            $f($($arg),*)
        }
    )*};
}
pub(crate) use calls;

/// The same for functions compiled with `#[target_feature]` (so `unsafe` to call). Only for
/// functions whose target features are all among those that `dispatch::available` checks
/// before it offers the implementing type.
#[cfg(target_arch = "x86_64")]
macro_rules! target_calls {
    ($(fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)? => $f:path;)*) => {$(
        #[inline(always)]
        fn $name($($arg: $ty),*) $(-> $ret)? {
            // SAFETY: `Self` only runs through `dispatch::run!`, which selects it only on a CPU
            // that `dispatch::available` found to have this implementation's target features,
            // and `$f` needs no others (the macro's contract).
            unsafe { $f($($arg),*) }
        }
    )*};
}
#[cfg(target_arch = "x86_64")]
pub(crate) use target_calls;
