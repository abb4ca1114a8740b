//! How every implementation's `mod.rs` writes its [`Simd`](crate::simd::Simd) and
//! [`DsaSimd`](crate::mldsa::ops::DsaSimd) impls. A trait method there does no work of its
//! own: it calls the function of the same arguments in one of the implementation's concept
//! files (crate documentation), or the same method of another implementation.
//!
//! The trait methods are listed once, here, grouped by the concept file that implements them
//! (`kem_arith!` for `arith.rs`, ... `dsa_pack!` for `dsa_pack.rs`), with the name of the
//! function each calls there; a concept file of every implementation has those names. An impl
//! then says, per concept, where the methods go:
//!
//! - `kem_arith!(calls arith)`: to the safe functions of this implementation's `arith.rs`;
//! - `kem_arith!(target_calls arith)`: to functions there compiled with `#[target_feature]`;
//! - `kem_arith!(forward Avx2)`: to another implementation's methods of the same names.
//!
//! `calls!` and `target_calls!` take the `fn signature => function;` lines themselves, for
//! the methods outside the groups (Keccak) and for an implementation that mixes its own and
//! borrowed functions within one concept.

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

/// One group: `(calls module)`, `(target_calls module)` or `(forward Type)` (module
/// documentation), then the group's `method(args) -> R = function;` lines.
macro_rules! group {
    (
        ($how:ident $to:ident)
        $($name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)? = $f:ident;)*
    ) => {
        $crate::delegate::group!(@ $how $to $($name($($arg: $ty),*) $(-> $ret)? = $f;)*);
    };
    (@ calls $m:ident $($name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)? = $f:ident;)*) => {
        $crate::delegate::calls! { $(fn $name($($arg: $ty),*) $(-> $ret)? => $m::$f;)* }
    };
    (
        @ target_calls $m:ident
        $($name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)? = $f:ident;)*
    ) => {
        $crate::delegate::target_calls! { $(fn $name($($arg: $ty),*) $(-> $ret)? => $m::$f;)* }
    };
    (@ forward $t:ident $($name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)? = $f:ident;)*) => {
        $crate::delegate::calls! { $(fn $name($($arg: $ty),*) $(-> $ret)? => $t::$name;)* }
    };
}
pub(crate) use group;

/// `Simd` methods of `arith.rs`: the NTT and the arithmetic.
macro_rules! kem_arith {
    ($how:ident $to:ident) => {
        $crate::delegate::group! { ($how $to)
            ntt(p: &mut $crate::simd::Poly) = ntt;
            invntt_tomont(p: &mut $crate::simd::Poly) = invntt_tomont;
            basemul_acc_montgomery(
                r: &mut $crate::simd::Poly,
                a: &[$crate::simd::Poly],
                b: &[$crate::simd::Poly]
            ) = basemul_acc_montgomery;
            tomont(p: &mut $crate::simd::Poly) = tomont;
            reduce(p: &mut $crate::simd::Poly) = reduce;
            add(r: &mut $crate::simd::Poly, a: &$crate::simd::Poly) = add;
            sub(r: &mut $crate::simd::Poly, a: &$crate::simd::Poly) = sub;
            ntt_unpack(p: &mut $crate::simd::Poly) = ntt_unpack;
        }
    };
}
pub(crate) use kem_arith;

/// `Simd` methods of `encode.rs`: ByteEncode_12 / ByteDecode_12, compression, messages.
macro_rules! kem_encode {
    ($how:ident $to:ident) => {
        $crate::delegate::group! { ($how $to)
            ntt_to_bytes(p: &$crate::simd::Poly, out: &mut [u8; 384]) = ntt_to_bytes;
            ntt_from_bytes(p: &mut $crate::simd::Poly, bytes: &[u8; 384]) -> bool
                = ntt_from_bytes;
            from_msg(p: &mut $crate::simd::Poly, m: &[u8; 32]) = from_msg;
            to_msg(p: &$crate::simd::Poly, m: &mut [u8; 32]) = to_msg;
            compress(p: &$crate::simd::Poly, d: u32, out: &mut [u8]) = compress;
            decompress(p: &mut $crate::simd::Poly, d: u32, bytes: &[u8]) = decompress;
        }
    };
}
pub(crate) use kem_encode;

/// `Simd` methods of `sample.rs`: SampleNTT's rejection step, SamplePolyCBD_2.
macro_rules! kem_sample {
    ($how:ident $to:ident) => {
        $crate::delegate::group! { ($how $to)
            rej_uniform(p: &mut $crate::simd::Poly, filled: usize, bytes: &[u8]) -> usize
                = rej_uniform;
            cbd2(p: &mut $crate::simd::Poly, bytes: &[u8; 128]) = cbd2;
        }
    };
}
pub(crate) use kem_sample;

/// `DsaSimd` methods of `dsa_arith.rs`: the NTT, the arithmetic and the rounding.
macro_rules! dsa_arith {
    ($how:ident $to:ident) => {
        $crate::delegate::group! { ($how $to)
            dsa_ntt(p: &mut $crate::mldsa::ops::DsaPoly) = ntt;
            dsa_invntt_tomont(p: &mut $crate::mldsa::ops::DsaPoly) = invntt_tomont;
            dsa_ntt_unpack(p: &mut $crate::mldsa::ops::DsaPoly) = ntt_unpack;
            dsa_pointwise_montgomery(
                r: &mut $crate::mldsa::ops::DsaPoly,
                a: &$crate::mldsa::ops::DsaPoly,
                b: &$crate::mldsa::ops::DsaPoly
            ) = pointwise_montgomery;
            dsa_pointwise_acc_montgomery(
                r: &mut $crate::mldsa::ops::DsaPoly,
                a: &[$crate::mldsa::ops::DsaPoly],
                b: &[$crate::mldsa::ops::DsaPoly]
            ) = pointwise_acc_montgomery;
            dsa_reduce(p: &mut $crate::mldsa::ops::DsaPoly) = reduce;
            dsa_caddq(p: &mut $crate::mldsa::ops::DsaPoly) = caddq_poly;
            dsa_add(r: &mut $crate::mldsa::ops::DsaPoly, a: &$crate::mldsa::ops::DsaPoly) = add;
            dsa_sub(r: &mut $crate::mldsa::ops::DsaPoly, a: &$crate::mldsa::ops::DsaPoly) = sub;
            dsa_shiftl(p: &mut $crate::mldsa::ops::DsaPoly) = shiftl;
            dsa_power2round(
                t1: &mut $crate::mldsa::ops::DsaPoly,
                t0: &mut $crate::mldsa::ops::DsaPoly,
                t: &$crate::mldsa::ops::DsaPoly
            ) = power2round;
            dsa_decompose(
                w1: &mut $crate::mldsa::ops::DsaPoly,
                w0: &mut $crate::mldsa::ops::DsaPoly,
                w: &$crate::mldsa::ops::DsaPoly
            ) = decompose;
            dsa_make_hint(
                h: &mut $crate::mldsa::ops::DsaPoly,
                a0: &$crate::mldsa::ops::DsaPoly,
                a1: &$crate::mldsa::ops::DsaPoly
            ) -> usize = make_hint;
            dsa_use_hint(
                w1: &mut $crate::mldsa::ops::DsaPoly,
                w: &$crate::mldsa::ops::DsaPoly,
                h: &$crate::mldsa::ops::DsaPoly
            ) = use_hint;
            dsa_chk(p: &$crate::mldsa::ops::DsaPoly, bound: i32) -> bool = chk;
        }
    };
}
pub(crate) use dsa_arith;

/// `DsaSimd` methods of `dsa_sample.rs`: the rejection steps of RejNTTPoly and RejBoundedPoly.
macro_rules! dsa_sample {
    ($how:ident $to:ident) => {
        $crate::delegate::group! { ($how $to)
            dsa_rej_uniform(p: &mut $crate::mldsa::ops::DsaPoly, filled: usize, bytes: &[u8])
                -> usize = rej_uniform;
            dsa_rej_eta(p: &mut $crate::mldsa::ops::DsaPoly, filled: usize, bytes: &[u8])
                -> usize = rej_eta;
        }
    };
}
pub(crate) use dsa_sample;

/// `DsaSimd` methods of `dsa_pack.rs`: bit packing and unpacking.
macro_rules! dsa_pack {
    ($how:ident $to:ident) => {
        $crate::delegate::group! { ($how $to)
            dsa_pack_t1(
                p: &$crate::mldsa::ops::DsaPoly,
                out: &mut [u8; $crate::mldsa::ops::T1_BYTES]
            ) = pack_t1;
            dsa_unpack_t1(
                p: &mut $crate::mldsa::ops::DsaPoly,
                bytes: &[u8; $crate::mldsa::ops::T1_BYTES]
            ) = unpack_t1;
            dsa_pack_t0(
                p: &$crate::mldsa::ops::DsaPoly,
                out: &mut [u8; $crate::mldsa::ops::T0_BYTES]
            ) = pack_t0;
            dsa_unpack_t0(
                p: &mut $crate::mldsa::ops::DsaPoly,
                bytes: &[u8; $crate::mldsa::ops::T0_BYTES]
            ) = unpack_t0;
            dsa_pack_eta(
                p: &$crate::mldsa::ops::DsaPoly,
                out: &mut [u8; $crate::mldsa::ops::ETA_BYTES]
            ) = pack_eta;
            dsa_unpack_eta(
                p: &mut $crate::mldsa::ops::DsaPoly,
                bytes: &[u8; $crate::mldsa::ops::ETA_BYTES]
            ) -> bool = unpack_eta;
            dsa_pack_z(
                p: &$crate::mldsa::ops::DsaPoly,
                out: &mut [u8; $crate::mldsa::ops::Z_BYTES]
            ) = pack_z;
            dsa_unpack_z(
                p: &mut $crate::mldsa::ops::DsaPoly,
                bytes: &[u8; $crate::mldsa::ops::Z_BYTES]
            ) = unpack_z;
            dsa_pack_w1(
                p: &$crate::mldsa::ops::DsaPoly,
                out: &mut [u8; $crate::mldsa::ops::W1_BYTES]
            ) = pack_w1;
        }
    };
}
pub(crate) use dsa_pack;
