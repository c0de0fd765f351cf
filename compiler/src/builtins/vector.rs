//! The vector entry points of the single-precision math ([`super::vmath`]): JIT code calls
//! them with pointers to whole lane vectors (4, 8 or 16 lanes of `f32`), instead of one
//! call per work-item. Every 16-lane entry point runs an AVX-512 build where the
//! processor has AVX-512F, else its 8-lane entry point on each half.
//!
//! Each entry point runs an AVX2+FMA build of the lane function, chosen at run time when
//! the processor has AVX2 and FMA (`is_x86_feature_detected!`, cached by `std`), and the
//! scalar built-ins run the same code at one lane: one algorithm, the same bits at every
//! width. The algorithms' polynomials use fused multiply-add (`mul_add`), a software call
//! on an x86-64 processor without FMA: there (and on architectures other than x86-64 and
//! AArch64) every width falls back to the C library's double function per lane, rounded
//! once, as the scalar built-ins did before — again the same bits at every width.
//!
//! Signatures (`N` = 4, 8 or 16; pointers need only `f32` alignment, inputs and outputs may
//! not overlap partially but may be the same array):
//! - `ferrite_vN_<f>f(x: *const f32, out: *mut f32)` for `exp exp2 exp10 expm1 log log2
//!   log10 log1p sin cos tan cbrt atan asin acos erf erfc tanh asinpi acospi atanpi sinh
//!   cosh asinh acosh atanh sinpi cospi tanpi`;
//! - `ferrite_vN_<f>f(a: *const f32, b: *const f32, out: *mut f32)` for `pow powr hypot`
//!   (a = x, b = y) and `atan2 atan2pi` (a = y, b = x);
//! - `ferrite_vN_pownf(x: *const f32, n: *const i32, out: *mut f32)`;
//! - `ferrite_vN_sincosf(x, sin_out, cos_out)`.
//!
//! Where the processor has AVX-512F, the functions evaluated in `f32` lanes ([`unary_f16`],
//! [`binary_f16`]) also have a register form of their 16-lane entry point,
//! `ferrite_r16_<f>f(x0, x1, x2, x3: __m128, [y0 … y3: __m128,] out: *mut f32)`: each
//! argument's four 128-bit quarters in `xmm0`-`xmm7` (System V), so JIT code passes its
//! values as they are instead of through a stack slot (a 16-lane `exp` kernel over 16M
//! floats spent as long storing and reloading its arguments as computing).

#[cfg(target_arch = "x86_64")]
use super::simd::{F16, F4, F8};
use super::vmath as v;
use super::vmathf as vf;

/// Whether the AVX2 builds may run on this processor.
#[cfg(target_arch = "x86_64")]
#[inline]
fn avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
}

/// Whether the AVX-512 builds (16 lanes) may run on this processor.
#[cfg(target_arch = "x86_64")]
#[inline]
fn avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx512f") && avx2()
}

/// Each function in double precision from the C library, rounded once: what the scalar
/// built-ins did before [`super::vmath`], and what runs where the algorithms' fused
/// multiply-adds would be software calls (x86-64 without FMA, other architectures than
/// AArch64).
mod fallback {
    use super::super::{libm, math};

    pub fn exp(x: f32) -> f32 {
        f64::from(x).exp() as f32
    }
    pub fn exp2(x: f32) -> f32 {
        f64::from(x).exp2() as f32
    }
    pub fn exp10(x: f32) -> f32 {
        libm::exp10(f64::from(x)) as f32
    }
    pub fn expm1(x: f32) -> f32 {
        libm::expm1(f64::from(x)) as f32
    }
    pub fn log(x: f32) -> f32 {
        f64::from(x).ln() as f32
    }
    pub fn log2(x: f32) -> f32 {
        f64::from(x).log2() as f32
    }
    pub fn log10(x: f32) -> f32 {
        f64::from(x).log10() as f32
    }
    pub fn log1p(x: f32) -> f32 {
        libm::log1p(f64::from(x)) as f32
    }
    pub fn sin(x: f32) -> f32 {
        f64::from(x).sin() as f32
    }
    pub fn cos(x: f32) -> f32 {
        f64::from(x).cos() as f32
    }
    pub fn tan(x: f32) -> f32 {
        f64::from(x).tan() as f32
    }
    pub fn cbrt(x: f32) -> f32 {
        f64::from(x).cbrt() as f32
    }
    pub fn atan(x: f32) -> f32 {
        f64::from(x).atan() as f32
    }
    pub fn asin(x: f32) -> f32 {
        f64::from(x).asin() as f32
    }
    pub fn acos(x: f32) -> f32 {
        f64::from(x).acos() as f32
    }
    pub fn erf(x: f32) -> f32 {
        libm::erf(f64::from(x)) as f32
    }
    pub fn erfc(x: f32) -> f32 {
        libm::erfc(f64::from(x)) as f32
    }
    pub fn tanh(x: f32) -> f32 {
        f64::from(x).tanh() as f32
    }
    pub fn pow(x: f32, y: f32) -> f32 {
        f64::from(x).powf(f64::from(y)) as f32
    }
    pub fn atan2(y: f32, x: f32) -> f32 {
        f64::from(y).atan2(f64::from(x)) as f32
    }
    pub fn asinpi(x: f32) -> f32 {
        (f64::from(x).asin() / std::f64::consts::PI) as f32
    }
    pub fn acospi(x: f32) -> f32 {
        (f64::from(x).acos() / std::f64::consts::PI) as f32
    }
    pub fn atanpi(x: f32) -> f32 {
        (f64::from(x).atan() / std::f64::consts::PI) as f32
    }
    pub fn sinh(x: f32) -> f32 {
        (f64::from(x).sinh()) as f32
    }
    pub fn cosh(x: f32) -> f32 {
        (f64::from(x).cosh()) as f32
    }
    pub fn asinh(x: f32) -> f32 {
        (libm::asinh(f64::from(x))) as f32
    }
    pub fn acosh(x: f32) -> f32 {
        (libm::acosh(f64::from(x))) as f32
    }
    pub fn atanh(x: f32) -> f32 {
        (libm::atanh(f64::from(x))) as f32
    }
    pub fn sinpi(x: f32) -> f32 {
        (math::sinpi(f64::from(x))) as f32
    }
    pub fn cospi(x: f32) -> f32 {
        (math::cospi(f64::from(x))) as f32
    }
    pub fn tanpi(x: f32) -> f32 {
        (math::tanpi(f64::from(x))) as f32
    }
    pub fn atan2pi(y: f32, x: f32) -> f32 {
        math::atan2pi(f64::from(y), f64::from(x)) as f32
    }
    pub fn powr(x: f32, y: f32) -> f32 {
        math::powr(f64::from(x), f64::from(y)) as f32
    }
    pub fn hypot(x: f32, y: f32) -> f32 {
        f64::from(x).hypot(f64::from(y)) as f32
    }
    pub fn sincos<const W: usize>(x: [f32; W]) -> ([f32; W], [f32; W]) {
        (x.map(sin), x.map(cos))
    }
}

/// `$call` (an expression over the lane arrays) where it is fast: the AVX2+FMA build on
/// x86-64 processors that have them, the plain build on AArch64 (FMA is part of the base
/// architecture); `$fallback` elsewhere.
macro_rules! dispatch {
    (|$($a:ident: $t:ty),*| -> $r:ty $call:block else $fallback:block) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx2,fma")]
            fn wide($($a: $t),*) -> $r $call
            if avx2() {
                // SAFETY: the processor has the features `wide` was compiled for
                // (checked just above).
                unsafe { wide($($a),*) }
            } else $fallback
        }
        #[cfg(target_arch = "aarch64")]
        $call
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        $fallback
    }};
}

macro_rules! unary {
    ($($lanes:ident, $f:ident: $v4:ident, $v8:ident;)*) => {$(
        unary!(@one $lanes, $f, $v4, 4);
        unary!(@one $lanes, $f, $v8, 8);
    )*};
    (@one $lanes:ident, $f:ident, $name:ident, $w:literal) => {
        #[doc = concat!("`", stringify!($f), "` on ", stringify!($w), " lanes.")]
        ///
        /// # Safety
        #[doc = concat!("`x` points to ", stringify!($w), " readable `f32`s and `out` to ",
            stringify!($w), " writable ones.")]
        pub unsafe extern "C" fn $name(x: *const f32, out: *mut f32) {
            // SAFETY: the caller passes `$w` readable lanes at `x` (any `f32` alignment).
            let x = unsafe { x.cast::<[f32; $w]>().read_unaligned() };
            let r = dispatch!(|x: [f32; $w]| -> [f32; $w] { v::$lanes(&x) } else {
                x.map(fallback::$f)
            });
            // SAFETY: the caller passes `$w` writable lanes at `out`.
            unsafe { out.cast::<[f32; $w]>().write_unaligned(r) }
        }
    };
}

/// The entry points of the functions in `f32` lanes ([`super::vmathf`]): the AVX2 build
/// runs the [`F4`]/[`F8`] lane types (one instruction per operation), the plain build the
/// lane arrays.
macro_rules! unary_f {
    ($($f:ident, $lanes:ident: $v4:ident, $v8:ident;)*) => {$(
        unary_f!(@one $f, $lanes, $v4, 4, F4);
        unary_f!(@one $f, $lanes, $v8, 8, F8);
    )*};
    (@one $f:ident, $lanes:ident, $name:ident, $w:literal, $t:ident) => {
        #[doc = concat!("`", stringify!($f), "` on ", stringify!($w), " lanes.")]
        ///
        /// # Safety
        #[doc = concat!("`x` points to ", stringify!($w), " readable `f32`s and `out` to ",
            stringify!($w), " writable ones.")]
        pub unsafe extern "C" fn $name(x: *const f32, out: *mut f32) {
            #[cfg(target_arch = "x86_64")]
            if avx2() {
                // SAFETY: the processor has the features `avx2` was compiled for
                // (checked just above); the pointers are the caller's.
                return unsafe { $name::avx2(x, out) };
            }
            // SAFETY: the caller passes `$w` readable lanes at `x` (any `f32` alignment).
            let x = unsafe { x.cast::<[f32; $w]>().read_unaligned() };
            #[cfg(target_arch = "x86_64")]
            let r = x.map(fallback::$f);
            #[cfg(target_arch = "aarch64")]
            let r = v::$lanes(&x);
            #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
            let r = x.map(fallback::$f);
            // SAFETY: the caller passes `$w` writable lanes at `out`.
            unsafe { out.cast::<[f32; $w]>().write_unaligned(r) }
        }

        /// The AVX2 build, which [`all`] gives the JIT directly on processors that have
        /// AVX2 and FMA (one call and no feature test per lane vector).
        #[cfg(target_arch = "x86_64")]
        pub mod $name {
            use super::*;

            /// # Safety
            /// As for the entry point, and the processor has AVX2 and FMA.
            #[target_feature(enable = "avx2,fma")]
            pub unsafe extern "C" fn avx2(x: *const f32, out: *mut f32) {
                // SAFETY: `$w` lanes at `x` and at `out` (the caller's promise); the lanes
                // are read and written in place.
                unsafe { vf::$f($t::load_ptr(x)).store_ptr(out) }
            }
        }
    };
}

/// [`unary_f`] for `pow`.
macro_rules! binary_f {
    ($($f:ident, $lanes:ident: $v4:ident, $v8:ident;)*) => {$(
        binary_f!(@one $f, $lanes, $v4, 4, F4);
        binary_f!(@one $f, $lanes, $v8, 8, F8);
    )*};
    (@one $f:ident, $lanes:ident, $name:ident, $w:literal, $t:ident) => {
        #[doc = concat!("`", stringify!($f), "` on ", stringify!($w), " lanes.")]
        ///
        /// # Safety
        #[doc = concat!("`a` and `b` point to ", stringify!($w), " readable `f32`s each and \
            `out` to ", stringify!($w), " writable ones.")]
        pub unsafe extern "C" fn $name(a: *const f32, b: *const f32, out: *mut f32) {
            #[cfg(target_arch = "x86_64")]
            if avx2() {
                // SAFETY: the processor has the features `avx2` was compiled for
                // (checked just above); the pointers are the caller's.
                return unsafe { $name::avx2(a, b, out) };
            }
            // SAFETY: the caller passes `$w` readable lanes at `a` and at `b`.
            let (a, b) = unsafe {
                (a.cast::<[f32; $w]>().read_unaligned(), b.cast::<[f32; $w]>().read_unaligned())
            };
            #[cfg(target_arch = "x86_64")]
            let r: [f32; $w] = std::array::from_fn(|i| fallback::$f(a[i], b[i]));
            #[cfg(target_arch = "aarch64")]
            let r = v::$lanes(&a, &b);
            #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
            let r = std::array::from_fn(|i| fallback::$f(a[i], b[i]));
            // SAFETY: the caller passes `$w` writable lanes at `out`.
            unsafe { out.cast::<[f32; $w]>().write_unaligned(r) }
        }

        /// The AVX2 build, which [`all`] gives the JIT directly on processors that have
        /// AVX2 and FMA.
        #[cfg(target_arch = "x86_64")]
        pub mod $name {
            use super::*;

            /// # Safety
            /// As for the entry point, and the processor has AVX2 and FMA.
            #[target_feature(enable = "avx2,fma")]
            pub unsafe extern "C" fn avx2(a: *const f32, b: *const f32, out: *mut f32) {
                // SAFETY: `$w` lanes at `a`, `b` and `out` (the caller's promise).
                unsafe { vf::$f($t::load_ptr(a), $t::load_ptr(b)).store_ptr(out) }
            }
        }
    };
}

/// A 16-lane entry point `$name` (`unary`: `x`, `out`; `binary`: `a`, `b`, `out`): its
/// AVX-512 build (`$name::avx512`, `$body` compiled with AVX-512F, AVX2 and FMA) where the
/// processor has AVX-512F, else the 8-lane entry point `$v8` on each half. `$body` may
/// assume 16 lanes at each pointer.
macro_rules! entry16 {
    (unary $name:ident, $v8:ident, $what:expr, |$x:ident, $out:ident| $body:block) => {
        #[doc = concat!("`", $what, "` on 16 lanes.")]
        ///
        /// # Safety
        /// `x` points to 16 readable `f32`s and `out` to 16 writable ones.
        pub unsafe extern "C" fn $name(x: *const f32, out: *mut f32) {
            #[cfg(target_arch = "x86_64")]
            if avx512() {
                // SAFETY: the processor has the features `avx512` was compiled for
                // (checked just above); the pointers are the caller's.
                return unsafe { $name::avx512(x, out) };
            }
            // SAFETY: 16 lanes at each pointer (the caller's promise): two halves of 8.
            unsafe {
                $v8(x, out);
                $v8(x.add(8), out.add(8));
            }
        }

        /// The AVX-512 build, which [`all`] gives the JIT directly where the processor
        /// has AVX-512F.
        #[cfg(target_arch = "x86_64")]
        pub mod $name {
            use super::*;

            /// # Safety
            /// As for the entry point, and the processor has AVX-512F, AVX2 and FMA.
            #[target_feature(enable = "avx512f,avx2,fma")]
            pub unsafe extern "C" fn avx512($x: *const f32, $out: *mut f32) $body
        }
    };
    (binary $name:ident, $v8:ident, $what:expr, |$a:ident, $b:ident, $out:ident| $body:block) => {
        #[doc = concat!("`", $what, "` on 16 lanes.")]
        ///
        /// # Safety
        /// `a` and `b` point to 16 readable `f32`s each and `out` to 16 writable ones.
        pub unsafe extern "C" fn $name(a: *const f32, b: *const f32, out: *mut f32) {
            #[cfg(target_arch = "x86_64")]
            if avx512() {
                // SAFETY: the processor has the features `avx512` was compiled for
                // (checked just above); the pointers are the caller's.
                return unsafe { $name::avx512(a, b, out) };
            }
            // SAFETY: 16 lanes at each pointer (the caller's promise): two halves of 8.
            unsafe {
                $v8(a, b, out);
                $v8(a.add(8), b.add(8), out.add(8));
            }
        }

        /// The AVX-512 build, which [`all`] gives the JIT directly where the processor
        /// has AVX-512F.
        #[cfg(target_arch = "x86_64")]
        pub mod $name {
            use super::*;

            /// # Safety
            /// As for the entry point, and the processor has AVX-512F, AVX2 and FMA.
            #[target_feature(enable = "avx512f,avx2,fma")]
            pub unsafe extern "C" fn avx512($a: *const f32, $b: *const f32, $out: *mut f32) $body
        }
    };
}

/// The 16-lane entry points of [`unary_f`]'s functions: the same algorithm on `__m512`
/// (one instruction per operation on 16 lanes). Every operation is exact or correctly
/// rounded, so both builds give the 8-lane entry points' bits.
macro_rules! unary_f16 {
    ($($f:ident: $name:ident, $v8:ident, $regs:ident;)*) => {$(
        entry16!(unary $name, $v8, stringify!($f), |x, out| {
            // SAFETY: 16 lanes at `x` and at `out` (the caller's promise).
            unsafe { vf::$f(F16::load_ptr(x)).store_ptr(out) }
        });
        regs16_fn!($regs, $f, x: [x0, x1, x2, x3]);
    )*};
}

/// [`unary_f16`] for `pow`.
macro_rules! binary_f16 {
    ($($f:ident: $name:ident, $v8:ident, $regs:ident;)*) => {$(
        entry16!(binary $name, $v8, stringify!($f), |a, b, out| {
            // SAFETY: 16 lanes at `a`, `b` and `out` (the caller's promise).
            unsafe { vf::$f(F16::load_ptr(a), F16::load_ptr(b)).store_ptr(out) }
        });
        regs16_fn!($regs, $f, a: [a0, a1, a2, a3], b: [b0, b1, b2, b3]);
    )*};
}

/// The register form `$regs` of `$f`'s 16-lane entry point (module documentation): each
/// argument's lanes as four `__m128` quarters, the result stored at `out`.
macro_rules! regs16_fn {
    ($regs:ident, $f:ident, $($arg:ident: [$($q:ident),+]),+) => {
        #[doc = concat!("`", stringify!($f), "` on 16 lanes passed as four quarters per argument.")]
        ///
        /// # Safety
        /// `out` points to 16 writable `f32`s, and the processor has AVX-512F, AVX2 and FMA.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx2,fma")]
        #[expect(
            improper_ctypes_definitions,
            reason = "the caller is JIT code: on x86-64 System V an __m128 is an SSE-class \
                      argument in xmm0-xmm7, as Cranelift passes F32X4"
        )]
        pub unsafe extern "C" fn $regs(
            $($($q: std::arch::x86_64::__m128,)+)+
            out: *mut f32,
        ) {
            $(let $arg = F16::from_quarters([$($q),+]);)+
            // SAFETY: 16 lanes at `out` (the caller's promise).
            unsafe { vf::$f($($arg),+).store_ptr(out) }
        }
    };
}

macro_rules! binary {
    ($($lanes:ident, $f:ident: $v4:ident, $v8:ident;)*) => {$(
        binary!(@one $lanes, $f, $v4, 4);
        binary!(@one $lanes, $f, $v8, 8);
    )*};
    (@one $lanes:ident, $f:ident, $name:ident, $w:literal) => {
        #[doc = concat!("`", stringify!($f), "` on ", stringify!($w), " lanes.")]
        ///
        /// # Safety
        #[doc = concat!("`a` and `b` point to ", stringify!($w), " readable `f32`s each and \
            `out` to ", stringify!($w), " writable ones.")]
        pub unsafe extern "C" fn $name(a: *const f32, b: *const f32, out: *mut f32) {
            // SAFETY: the caller passes `$w` readable lanes at `a` and at `b`.
            let (a, b) = unsafe {
                (a.cast::<[f32; $w]>().read_unaligned(), b.cast::<[f32; $w]>().read_unaligned())
            };
            let r = dispatch!(|a: [f32; $w], b: [f32; $w]| -> [f32; $w] { v::$lanes(&a, &b) } else {
                std::array::from_fn(|i| fallback::$f(a[i], b[i]))
            });
            // SAFETY: the caller passes `$w` writable lanes at `out`.
            unsafe { out.cast::<[f32; $w]>().write_unaligned(r) }
        }
    };
}

macro_rules! sincos {
    ($($name:ident, $w:literal, $t:ident;)*) => {$(
        #[doc = concat!("`sincos` on ", stringify!($w), " lanes.")]
        ///
        /// # Safety
        #[doc = concat!("`x` points to ", stringify!($w), " readable `f32`s, `s` and `c` \
            to ", stringify!($w), " writable ones each.")]
        pub unsafe extern "C" fn $name(x: *const f32, s: *mut f32, c: *mut f32) {
            #[cfg(target_arch = "x86_64")]
            if avx2() {
                // SAFETY: the processor has the features `avx2` was compiled for
                // (checked just above); the pointers are the caller's.
                return unsafe { $name::avx2(x, s, c) };
            }
            // SAFETY: the caller passes `$w` readable lanes at `x`.
            let x = unsafe { x.cast::<[f32; $w]>().read_unaligned() };
            #[cfg(target_arch = "x86_64")]
            let (rs, rc) = fallback::sincos(x);
            #[cfg(target_arch = "aarch64")]
            let (rs, rc) = v::sincos_lanes(&x);
            #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
            let (rs, rc) = fallback::sincos(x);
            // SAFETY: the caller passes `$w` writable lanes at `s` and at `c`.
            unsafe {
                s.cast::<[f32; $w]>().write_unaligned(rs);
                c.cast::<[f32; $w]>().write_unaligned(rc);
            }
        }

        /// The AVX2 build, which [`all`] gives the JIT directly on processors that have
        /// AVX2 and FMA.
        #[cfg(target_arch = "x86_64")]
        pub mod $name {
            use super::*;

            /// # Safety
            /// As for the entry point, and the processor has AVX2 and FMA.
            #[target_feature(enable = "avx2,fma")]
            pub unsafe extern "C" fn avx2(x: *const f32, s: *mut f32, c: *mut f32) {
                // SAFETY: `$w` lanes at each pointer (the caller's promise).
                unsafe {
                    let v = $t::load_ptr(x);
                    vf::sin(v).store_ptr(s);
                    vf::cos(v).store_ptr(c);
                }
            }
        }
    )*};
}

unary! {
    expm1_lanes, expm1: ferrite_v4_expm1f, ferrite_v8_expm1f;
    log1p_lanes, log1p: ferrite_v4_log1pf, ferrite_v8_log1pf;
    tan_lanes, tan: ferrite_v4_tanf, ferrite_v8_tanf;
    cbrt_lanes, cbrt: ferrite_v4_cbrtf, ferrite_v8_cbrtf;
    atan_lanes, atan: ferrite_v4_atanf, ferrite_v8_atanf;
    asin_lanes, asin: ferrite_v4_asinf, ferrite_v8_asinf;
    acos_lanes, acos: ferrite_v4_acosf, ferrite_v8_acosf;
    asinpi_lanes, asinpi: ferrite_v4_asinpif, ferrite_v8_asinpif;
    acospi_lanes, acospi: ferrite_v4_acospif, ferrite_v8_acospif;
    atanpi_lanes, atanpi: ferrite_v4_atanpif, ferrite_v8_atanpif;
    sinh_lanes, sinh: ferrite_v4_sinhf, ferrite_v8_sinhf;
    cosh_lanes, cosh: ferrite_v4_coshf, ferrite_v8_coshf;
    asinh_lanes, asinh: ferrite_v4_asinhf, ferrite_v8_asinhf;
    acosh_lanes, acosh: ferrite_v4_acoshf, ferrite_v8_acoshf;
    atanh_lanes, atanh: ferrite_v4_atanhf, ferrite_v8_atanhf;
    sinpi_lanes, sinpi: ferrite_v4_sinpif, ferrite_v8_sinpif;
    cospi_lanes, cospi: ferrite_v4_cospif, ferrite_v8_cospif;
    tanpi_lanes, tanpi: ferrite_v4_tanpif, ferrite_v8_tanpif;
}
unary_f! {
    exp, exp_lanes: ferrite_v4_expf, ferrite_v8_expf;
    exp2, exp2_lanes: ferrite_v4_exp2f, ferrite_v8_exp2f;
    exp10, exp10_lanes: ferrite_v4_exp10f, ferrite_v8_exp10f;
    log, log_lanes: ferrite_v4_logf, ferrite_v8_logf;
    log2, log2_lanes: ferrite_v4_log2f, ferrite_v8_log2f;
    log10, log10_lanes: ferrite_v4_log10f, ferrite_v8_log10f;
    sin, sin_lanes: ferrite_v4_sinf, ferrite_v8_sinf;
    cos, cos_lanes: ferrite_v4_cosf, ferrite_v8_cosf;
    erf, erf_lanes: ferrite_v4_erff, ferrite_v8_erff;
    erfc, erfc_lanes: ferrite_v4_erfcf, ferrite_v8_erfcf;
    tanh, tanh_lanes: ferrite_v4_tanhf, ferrite_v8_tanhf;
}
binary_f! {
    pow, pow_lanes: ferrite_v4_powf, ferrite_v8_powf;
}
binary! {
    atan2_lanes, atan2: ferrite_v4_atan2f, ferrite_v8_atan2f;
    atan2pi_lanes, atan2pi: ferrite_v4_atan2pif, ferrite_v8_atan2pif;
    powr_lanes, powr: ferrite_v4_powrf, ferrite_v8_powrf;
    hypot_lanes, hypot: ferrite_v4_hypotf, ferrite_v8_hypotf;
}
sincos! {
    ferrite_v4_sincosf, 4, F4;
    ferrite_v8_sincosf, 8, F8;
}

unary_f16! {
    exp: ferrite_v16_expf, ferrite_v8_expf, ferrite_r16_expf;
    exp2: ferrite_v16_exp2f, ferrite_v8_exp2f, ferrite_r16_exp2f;
    exp10: ferrite_v16_exp10f, ferrite_v8_exp10f, ferrite_r16_exp10f;
    log: ferrite_v16_logf, ferrite_v8_logf, ferrite_r16_logf;
    log2: ferrite_v16_log2f, ferrite_v8_log2f, ferrite_r16_log2f;
    log10: ferrite_v16_log10f, ferrite_v8_log10f, ferrite_r16_log10f;
    sin: ferrite_v16_sinf, ferrite_v8_sinf, ferrite_r16_sinf;
    cos: ferrite_v16_cosf, ferrite_v8_cosf, ferrite_r16_cosf;
    erf: ferrite_v16_erff, ferrite_v8_erff, ferrite_r16_erff;
    erfc: ferrite_v16_erfcf, ferrite_v8_erfcf, ferrite_r16_erfcf;
    tanh: ferrite_v16_tanhf, ferrite_v8_tanhf, ferrite_r16_tanhf;
}
binary_f16! {
    pow: ferrite_v16_powf, ferrite_v8_powf, ferrite_r16_powf;
}

/// The 16-lane entry points of [`unary`]'s and [`binary`]'s functions (evaluated in
/// double precision on lane arrays, [`super::vmath`]): the same code built for AVX-512F
/// (eight doubles per instruction). The code is the AVX2 build's, and every operation in
/// it is exact or correctly rounded, so both give the 8-lane entry points' bits.
macro_rules! lanes16 {
    (unary { $($lanes:ident: $name:ident, $v8:ident;)* } binary { $($lanes2:ident: $name2:ident, $v82:ident;)* }) => {
        $(
        entry16!(unary $name, $v8, stringify!($lanes), |x, out| {
            // Loaded as four 16-byte quarters, as JIT code stores them (one 64-byte
            // load of fresh 16-byte stores stalls).
            let mut a = [0f32; 16];
            // SAFETY: 16 readable lanes at `x` and 16 writable at `out` (the caller's
            // promise; any `f32` alignment); `a` has 16.
            unsafe {
                F16::load_ptr(x).store_ptr(a.as_mut_ptr());
                out.cast::<[f32; 16]>().write_unaligned(v::$lanes(&a));
            }
        });
        )*
        $(
        entry16!(binary $name2, $v82, stringify!($lanes2), |a, b, out| {
            // Loaded as four 16-byte quarters, as JIT code stores them.
            let (mut x, mut y) = ([0f32; 16], [0f32; 16]);
            // SAFETY: 16 readable lanes at `a` and at `b`, 16 writable at `out` (the
            // caller's promise; any `f32` alignment); `x` and `y` have 16 each.
            unsafe {
                F16::load_ptr(a).store_ptr(x.as_mut_ptr());
                F16::load_ptr(b).store_ptr(y.as_mut_ptr());
                out.cast::<[f32; 16]>().write_unaligned(v::$lanes2(&x, &y));
            }
        });
        )*
    };
}

lanes16! {
    unary {
        expm1_lanes: ferrite_v16_expm1f, ferrite_v8_expm1f;
        log1p_lanes: ferrite_v16_log1pf, ferrite_v8_log1pf;
        tan_lanes: ferrite_v16_tanf, ferrite_v8_tanf;
        cbrt_lanes: ferrite_v16_cbrtf, ferrite_v8_cbrtf;
        atan_lanes: ferrite_v16_atanf, ferrite_v8_atanf;
        asin_lanes: ferrite_v16_asinf, ferrite_v8_asinf;
        acos_lanes: ferrite_v16_acosf, ferrite_v8_acosf;
        asinpi_lanes: ferrite_v16_asinpif, ferrite_v8_asinpif;
        acospi_lanes: ferrite_v16_acospif, ferrite_v8_acospif;
        atanpi_lanes: ferrite_v16_atanpif, ferrite_v8_atanpif;
        sinh_lanes: ferrite_v16_sinhf, ferrite_v8_sinhf;
        cosh_lanes: ferrite_v16_coshf, ferrite_v8_coshf;
        asinh_lanes: ferrite_v16_asinhf, ferrite_v8_asinhf;
        acosh_lanes: ferrite_v16_acoshf, ferrite_v8_acoshf;
        atanh_lanes: ferrite_v16_atanhf, ferrite_v8_atanhf;
        sinpi_lanes: ferrite_v16_sinpif, ferrite_v8_sinpif;
        cospi_lanes: ferrite_v16_cospif, ferrite_v8_cospif;
        tanpi_lanes: ferrite_v16_tanpif, ferrite_v8_tanpif;
    }
    binary {
        atan2_lanes: ferrite_v16_atan2f, ferrite_v8_atan2f;
        atan2pi_lanes: ferrite_v16_atan2pif, ferrite_v8_atan2pif;
        powr_lanes: ferrite_v16_powrf, ferrite_v8_powrf;
        hypot_lanes: ferrite_v16_hypotf, ferrite_v8_hypotf;
    }
}

/// `pown(x, n)` on lane arrays: `pow(x, n)` where `n` is exact in `f32` (|n| ≤ 2²⁴;
/// `pow`'s special cases for an integer `y` are `pown`'s), through `pow` (an entry point
/// of the width, or the scalar built-in); lanes with a larger `n` take the double function
/// rounded once (a rounded `n` would move the power by up to 44 ulp). The same bits at
/// every width, as `pow`'s are.
#[inline(always)]
fn pown_lanes<const W: usize>(
    x: [f32; W],
    n: [i32; W],
    pow: impl FnOnce(&[f32; W], &[f32; W]) -> [f32; W],
) -> [f32; W] {
    let mut r = pow(&x, &n.map(|n| n as f32));
    // One test for all lanes (a vector maximum), the lane loop only where it is needed.
    if n.iter().fold(0, |m, n| m.max(n.unsigned_abs())) <= 1 << 24 {
        return r;
    }
    for i in 0..W {
        if n[i].unsigned_abs() > 1 << 24 {
            r[i] = super::math::pown(f64::from(x[i]), n[i]) as f32;
        }
    }
    r
}

/// The `pown` entry points: `ferrite_vN_pownf(x: *const f32, n: *const i32, out: *mut f32)`,
/// [`pown_lanes`] over the `pow` entry point of the same width (and the direct builds over
/// `pow`'s direct builds).
macro_rules! pown {
    ($($name:ident, $w:literal: $pow:ident, $build:ident, $features:literal;)*) => {$(
        #[doc = concat!("`pown` on ", stringify!($w), " lanes.")]
        ///
        /// # Safety
        #[doc = concat!("`x` points to ", stringify!($w), " readable `f32`s, `n` to ",
            stringify!($w), " readable `i32`s and `out` to ", stringify!($w),
            " writable `f32`s.")]
        pub unsafe extern "C" fn $name(x: *const f32, n: *const i32, out: *mut f32) {
            // SAFETY: the caller's lanes; `$pow` runs on every processor.
            unsafe { pown_entry::<$w>(x, n, out, $pow) }
        }

        /// The build [`all`] gives the JIT directly where the processor has its features.
        #[cfg(target_arch = "x86_64")]
        pub mod $name {
            use super::*;

            /// # Safety
            /// As for the entry point, and the processor has the features named.
            #[target_feature(enable = $features)]
            pub unsafe extern "C" fn $build(x: *const f32, n: *const i32, out: *mut f32) {
                // SAFETY: the caller's lanes; the processor has the features of `pow`'s
                // build (this function's).
                unsafe { pown_entry::<$w>(x, n, out, $pow::$build) }
            }
        }
    )*};
}

/// The body of a `pown` entry point of `W` lanes over the `pow` entry point `pow`.
///
/// # Safety
/// `W` lanes readable at `x` and `n`, writable at `out`; the processor can run `pow`.
#[inline(always)]
unsafe fn pown_entry<const W: usize>(
    x: *const f32,
    n: *const i32,
    out: *mut f32,
    pow: unsafe extern "C" fn(*const f32, *const f32, *mut f32),
) {
    // SAFETY: `W` lanes at each pointer (the caller's promise).
    let (x, n) = unsafe {
        (
            x.cast::<[f32; W]>().read_unaligned(),
            n.cast::<[i32; W]>().read_unaligned(),
        )
    };
    let r = pown_lanes(x, n, |a, b| {
        let mut o = [0f32; W];
        // SAFETY: `W` lanes in each array; `pow` may run here (the caller's promise).
        unsafe { pow(a.as_ptr(), b.as_ptr(), o.as_mut_ptr()) };
        o
    });
    // SAFETY: the caller passes `W` writable lanes at `out`.
    unsafe { out.cast::<[f32; W]>().write_unaligned(r) }
}

pown! {
    ferrite_v4_pownf, 4: ferrite_v4_powf, avx2, "avx2,fma";
    ferrite_v8_pownf, 8: ferrite_v8_powf, avx2, "avx2,fma";
    ferrite_v16_pownf, 16: ferrite_v16_powf, avx512, "avx512f,avx2,fma";
}

/// `pown` on one lane: the scalar built-in.
pub fn pownf(x: f32, n: i32) -> f32 {
    pown_lanes([x], [n], |a, b| [powf(a[0], b[0])])[0]
}

macro_rules! scalar {
    ($($name:ident = $lanes:ident, $f:ident;)*) => {$(
        #[doc = concat!("`", stringify!($f), "` on one lane: the scalar built-in.")]
        pub fn $name(x: f32) -> f32 {
            let x = [x];
            dispatch!(|x: [f32; 1]| -> [f32; 1] { v::$lanes(&x) } else {
                x.map(fallback::$f)
            })[0]
        }
    )*};
}

scalar! {
    expf = exp_lanes, exp;
    exp2f = exp2_lanes, exp2;
    exp10f = exp10_lanes, exp10;
    expm1f = expm1_lanes, expm1;
    logf = log_lanes, log;
    log2f = log2_lanes, log2;
    log10f = log10_lanes, log10;
    log1pf = log1p_lanes, log1p;
    sinf = sin_lanes, sin;
    cosf = cos_lanes, cos;
    tanf = tan_lanes, tan;
    cbrtf = cbrt_lanes, cbrt;
    atanf = atan_lanes, atan;
    asinf = asin_lanes, asin;
    acosf = acos_lanes, acos;
    erff = erf_lanes, erf;
    erfcf = erfc_lanes, erfc;
    tanhf = tanh_lanes, tanh;
    asinpif = asinpi_lanes, asinpi;
    acospif = acospi_lanes, acospi;
    atanpif = atanpi_lanes, atanpi;
    sinhf = sinh_lanes, sinh;
    coshf = cosh_lanes, cosh;
    asinhf = asinh_lanes, asinh;
    acoshf = acosh_lanes, acosh;
    atanhf = atanh_lanes, atanh;
    sinpif = sinpi_lanes, sinpi;
    cospif = cospi_lanes, cospi;
    tanpif = tanpi_lanes, tanpi;
}

macro_rules! scalar2 {
    ($($name:ident = $lanes:ident, $f:ident;)*) => {$(
        #[doc = concat!("`", stringify!($f), "` on one lane: the scalar built-in.")]
        pub fn $name(x: f32, y: f32) -> f32 {
            let (a, b) = ([x], [y]);
            dispatch!(|a: [f32; 1], b: [f32; 1]| -> [f32; 1] { v::$lanes(&a, &b) } else {
                [fallback::$f(a[0], b[0])]
            })[0]
        }
    )*};
}

scalar2! {
    powf = pow_lanes, pow;
    atan2f = atan2_lanes, atan2;
    atan2pif = atan2pi_lanes, atan2pi;
    powrf = powr_lanes, powr;
    hypotf = hypot_lanes, hypot;
}

/// A vector entry point: `inputs` pointers to `lanes` `f32`s, then `outputs` pointers to
/// `lanes` writable `f32`s; returns nothing.
#[derive(Clone, Copy, Debug)]
pub struct VectorBuiltin {
    /// The symbol name the JIT knows it by (`ferrite_v8_expf`).
    pub name: &'static str,
    /// The OpenCL.std base name (`exp`).
    pub base: &'static str,
    pub lanes: u32,
    pub inputs: u32,
    pub outputs: u32,
    /// The `unsafe extern "C"` function.
    pub addr: *const u8,
    /// Its register form (16 lanes, AVX-512F; see the module documentation), if it has
    /// one here.
    pub regs: Option<Regs>,
}

/// The register form of a 16-lane entry point: each argument as four `F32X4` values, then
/// the result's address.
#[derive(Clone, Copy, Debug)]
pub struct Regs {
    /// The symbol name the JIT knows it by (`ferrite_r16_expf`).
    pub name: &'static str,
    pub addr: *const u8,
}

/// The address the JIT calls: the entry point, or (`direct`) its AVX2 build where the
/// processor has AVX2 and FMA.
macro_rules! addr {
    ($f:ident) => {
        $f as *const u8
    };
    ($f:ident direct) => {{
        #[cfg(target_arch = "x86_64")]
        let a = if avx2() {
            $f::avx2 as *const u8
        } else {
            $f as *const u8
        };
        #[cfg(not(target_arch = "x86_64"))]
        let a = $f as *const u8;
        a
    }};
}

/// The address the JIT calls for a 16-lane entry point: its AVX-512 build where the
/// processor has AVX-512F, else the entry point (which runs two halves of 8).
macro_rules! addr16 {
    ($f:ident) => {{
        #[cfg(target_arch = "x86_64")]
        let a = if avx512() {
            $f::avx512 as *const u8
        } else {
            $f as *const u8
        };
        #[cfg(not(target_arch = "x86_64"))]
        let a = $f as *const u8;
        a
    }};
}

/// The register form of a 16-lane entry point, where the processor runs it (AVX-512F).
macro_rules! regs16 {
    () => {
        None
    };
    ($r:ident) => {{
        #[cfg(target_arch = "x86_64")]
        let r = avx512().then(|| Regs {
            name: stringify!($r),
            addr: $r as *const u8,
        });
        #[cfg(not(target_arch = "x86_64"))]
        let r = None;
        r
    }};
}

macro_rules! list {
    ($($base:literal, $ins:literal, $outs:literal: $v4:ident, $v8:ident $($direct:ident)?;)*
     wide: $($base16:literal, $ins16:literal: $v16:ident $(regs $r16:ident)?;)*) => {
        /// Every vector entry point.
        pub fn all() -> Vec<VectorBuiltin> {
            vec![$(
                VectorBuiltin { name: stringify!($v4), base: $base, lanes: 4, inputs: $ins,
                    outputs: $outs, addr: addr!($v4 $($direct)?), regs: None },
                VectorBuiltin { name: stringify!($v8), base: $base, lanes: 8, inputs: $ins,
                    outputs: $outs, addr: addr!($v8 $($direct)?), regs: None },
            )* $(
                VectorBuiltin { name: stringify!($v16), base: $base16, lanes: 16,
                    inputs: $ins16, outputs: 1, addr: addr16!($v16),
                    regs: regs16!($($r16)?) },
            )*]
        }
    };
}

list! {
    "exp", 1, 1: ferrite_v4_expf, ferrite_v8_expf direct;
    "exp2", 1, 1: ferrite_v4_exp2f, ferrite_v8_exp2f direct;
    "exp10", 1, 1: ferrite_v4_exp10f, ferrite_v8_exp10f direct;
    "expm1", 1, 1: ferrite_v4_expm1f, ferrite_v8_expm1f;
    "log", 1, 1: ferrite_v4_logf, ferrite_v8_logf direct;
    "log2", 1, 1: ferrite_v4_log2f, ferrite_v8_log2f direct;
    "log10", 1, 1: ferrite_v4_log10f, ferrite_v8_log10f direct;
    "log1p", 1, 1: ferrite_v4_log1pf, ferrite_v8_log1pf;
    "sin", 1, 1: ferrite_v4_sinf, ferrite_v8_sinf direct;
    "cos", 1, 1: ferrite_v4_cosf, ferrite_v8_cosf direct;
    "tan", 1, 1: ferrite_v4_tanf, ferrite_v8_tanf;
    "cbrt", 1, 1: ferrite_v4_cbrtf, ferrite_v8_cbrtf;
    "atan", 1, 1: ferrite_v4_atanf, ferrite_v8_atanf;
    "asin", 1, 1: ferrite_v4_asinf, ferrite_v8_asinf;
    "acos", 1, 1: ferrite_v4_acosf, ferrite_v8_acosf;
    "erf", 1, 1: ferrite_v4_erff, ferrite_v8_erff direct;
    "erfc", 1, 1: ferrite_v4_erfcf, ferrite_v8_erfcf direct;
    "tanh", 1, 1: ferrite_v4_tanhf, ferrite_v8_tanhf direct;
    "pow", 2, 1: ferrite_v4_powf, ferrite_v8_powf direct;
    "pown", 2, 1: ferrite_v4_pownf, ferrite_v8_pownf direct;
    "atan2", 2, 1: ferrite_v4_atan2f, ferrite_v8_atan2f;
    "asinpi", 1, 1: ferrite_v4_asinpif, ferrite_v8_asinpif;
    "acospi", 1, 1: ferrite_v4_acospif, ferrite_v8_acospif;
    "atanpi", 1, 1: ferrite_v4_atanpif, ferrite_v8_atanpif;
    "sinh", 1, 1: ferrite_v4_sinhf, ferrite_v8_sinhf;
    "cosh", 1, 1: ferrite_v4_coshf, ferrite_v8_coshf;
    "asinh", 1, 1: ferrite_v4_asinhf, ferrite_v8_asinhf;
    "acosh", 1, 1: ferrite_v4_acoshf, ferrite_v8_acoshf;
    "atanh", 1, 1: ferrite_v4_atanhf, ferrite_v8_atanhf;
    "sinpi", 1, 1: ferrite_v4_sinpif, ferrite_v8_sinpif;
    "cospi", 1, 1: ferrite_v4_cospif, ferrite_v8_cospif;
    "tanpi", 1, 1: ferrite_v4_tanpif, ferrite_v8_tanpif;
    "atan2pi", 2, 1: ferrite_v4_atan2pif, ferrite_v8_atan2pif;
    "powr", 2, 1: ferrite_v4_powrf, ferrite_v8_powrf;
    "hypot", 2, 1: ferrite_v4_hypotf, ferrite_v8_hypotf;
    "sincos", 1, 2: ferrite_v4_sincosf, ferrite_v8_sincosf direct;
    wide:
    "exp", 1: ferrite_v16_expf regs ferrite_r16_expf;
    "exp2", 1: ferrite_v16_exp2f regs ferrite_r16_exp2f;
    "exp10", 1: ferrite_v16_exp10f regs ferrite_r16_exp10f;
    "log", 1: ferrite_v16_logf regs ferrite_r16_logf;
    "log2", 1: ferrite_v16_log2f regs ferrite_r16_log2f;
    "log10", 1: ferrite_v16_log10f regs ferrite_r16_log10f;
    "sin", 1: ferrite_v16_sinf regs ferrite_r16_sinf;
    "cos", 1: ferrite_v16_cosf regs ferrite_r16_cosf;
    "erf", 1: ferrite_v16_erff regs ferrite_r16_erff;
    "erfc", 1: ferrite_v16_erfcf regs ferrite_r16_erfcf;
    "tanh", 1: ferrite_v16_tanhf regs ferrite_r16_tanhf;
    "pow", 2: ferrite_v16_powf regs ferrite_r16_powf;
    "pown", 2: ferrite_v16_pownf;
    "expm1", 1: ferrite_v16_expm1f;
    "log1p", 1: ferrite_v16_log1pf;
    "tan", 1: ferrite_v16_tanf;
    "cbrt", 1: ferrite_v16_cbrtf;
    "atan", 1: ferrite_v16_atanf;
    "asin", 1: ferrite_v16_asinf;
    "acos", 1: ferrite_v16_acosf;
    "asinpi", 1: ferrite_v16_asinpif;
    "acospi", 1: ferrite_v16_acospif;
    "atanpi", 1: ferrite_v16_atanpif;
    "sinh", 1: ferrite_v16_sinhf;
    "cosh", 1: ferrite_v16_coshf;
    "asinh", 1: ferrite_v16_asinhf;
    "acosh", 1: ferrite_v16_acoshf;
    "atanh", 1: ferrite_v16_atanhf;
    "sinpi", 1: ferrite_v16_sinpif;
    "cospi", 1: ferrite_v16_cospif;
    "tanpi", 1: ferrite_v16_tanpif;
    "atan2", 2: ferrite_v16_atan2f;
    "atan2pi", 2: ferrite_v16_atan2pif;
    "powr", 2: ferrite_v16_powrf;
    "hypot", 2: ferrite_v16_hypotf;
}

#[cfg(test)]
#[path = "vector_tests.rs"]
pub(super) mod tests;
