//! The vector entry points of the single-precision math ([`super::vmath`]): JIT code calls
//! them with pointers to whole lane vectors (4 or 8 lanes of `f32`), instead of one
//! call per work-item.
//!
//! Each entry point has an AVX2 build of the lane function, chosen at run time when the
//! processor has AVX2 and FMA (`is_x86_feature_detected!`, cached by `std`), and the
//! plain build otherwise. The two give the same bits (the only fused multiply-adds are
//! `mul_add`, correctly rounded in both), and the same bits as the scalar built-ins, which
//! call the same code at one lane: one algorithm at every width.
//!
//! Signatures (`N` = 4 or 8; pointers need only `f32` alignment, inputs and outputs may
//! not overlap partially but may be the same array):
//! - `ferrite_vN_<f>f(x: *const f32, out: *mut f32)` for `exp exp2 exp10 expm1 log log2
//!   log10 log1p sin cos tan cbrt atan asin acos erf erfc tanh`;
//! - `ferrite_vN_powf(x, y, out)`, `ferrite_vN_atan2f(y, x, out)`;
//! - `ferrite_vN_sincosf(x, sin_out, cos_out)`.

use super::vmath as v;

/// Whether the AVX2 builds may run on this processor.
#[inline]
fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `$call` (an expression over the lane arrays) compiled twice: with AVX2 and FMA
/// enabled, and plain; the first runs where the processor has them.
macro_rules! dispatch {
    (|$($a:ident: $t:ty),*| -> $r:ty $call:block) => {{
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        fn wide($($a: $t),*) -> $r $call
        fn plain($($a: $t),*) -> $r $call
        #[cfg(target_arch = "x86_64")]
        if avx2() {
            // SAFETY: the processor has the features `wide` was compiled for (checked
            // just above).
            unsafe { wide($($a),*) }
        } else {
            plain($($a),*)
        }
        #[cfg(not(target_arch = "x86_64"))]
        plain($($a),*)
    }};
}

macro_rules! unary {
    ($($lanes:ident: $v4:ident, $v8:ident;)*) => {$(
        unary!(@one $lanes, $v4, 4);
        unary!(@one $lanes, $v8, 8);
    )*};
    (@one $lanes:ident, $name:ident, $w:literal) => {
        #[doc = concat!("`", stringify!($lanes), "` on ", stringify!($w), " lanes.")]
        ///
        /// # Safety
        #[doc = concat!("`x` points to ", stringify!($w), " readable `f32`s and `out` to ",
            stringify!($w), " writable ones.")]
        pub unsafe extern "C" fn $name(x: *const f32, out: *mut f32) {
            // SAFETY: the caller passes `$w` readable lanes at `x` (any `f32` alignment).
            let x = unsafe { x.cast::<[f32; $w]>().read_unaligned() };
            let r = dispatch!(|x: [f32; $w]| -> [f32; $w] { v::$lanes(&x) });
            // SAFETY: the caller passes `$w` writable lanes at `out`.
            unsafe { out.cast::<[f32; $w]>().write_unaligned(r) }
        }
    };
}

macro_rules! binary {
    ($($lanes:ident: $v4:ident, $v8:ident;)*) => {$(
        binary!(@one $lanes, $v4, 4);
        binary!(@one $lanes, $v8, 8);
    )*};
    (@one $lanes:ident, $name:ident, $w:literal) => {
        #[doc = concat!("`", stringify!($lanes), "` on ", stringify!($w), " lanes.")]
        ///
        /// # Safety
        #[doc = concat!("`a` and `b` point to ", stringify!($w), " readable `f32`s each and \
            `out` to ", stringify!($w), " writable ones.")]
        pub unsafe extern "C" fn $name(a: *const f32, b: *const f32, out: *mut f32) {
            // SAFETY: the caller passes `$w` readable lanes at `a` and at `b`.
            let (a, b) = unsafe {
                (a.cast::<[f32; $w]>().read_unaligned(), b.cast::<[f32; $w]>().read_unaligned())
            };
            let r = dispatch!(|a: [f32; $w], b: [f32; $w]| -> [f32; $w] { v::$lanes(&a, &b) });
            // SAFETY: the caller passes `$w` writable lanes at `out`.
            unsafe { out.cast::<[f32; $w]>().write_unaligned(r) }
        }
    };
}

macro_rules! sincos {
    ($($name:ident, $w:literal;)*) => {$(
        #[doc = concat!("`sincos` on ", stringify!($w), " lanes.")]
        ///
        /// # Safety
        #[doc = concat!("`x` points to ", stringify!($w), " readable `f32`s, `s` and `c` \
            to ", stringify!($w), " writable ones each.")]
        pub unsafe extern "C" fn $name(x: *const f32, s: *mut f32, c: *mut f32) {
            // SAFETY: the caller passes `$w` readable lanes at `x`.
            let x = unsafe { x.cast::<[f32; $w]>().read_unaligned() };
            let (rs, rc) =
                dispatch!(|x: [f32; $w]| -> ([f32; $w], [f32; $w]) { v::sincos_lanes(&x) });
            // SAFETY: the caller passes `$w` writable lanes at `s` and at `c`.
            unsafe {
                s.cast::<[f32; $w]>().write_unaligned(rs);
                c.cast::<[f32; $w]>().write_unaligned(rc);
            }
        }
    )*};
}

unary! {
    exp_lanes: ferrite_v4_expf, ferrite_v8_expf;
    exp2_lanes: ferrite_v4_exp2f, ferrite_v8_exp2f;
    exp10_lanes: ferrite_v4_exp10f, ferrite_v8_exp10f;
    expm1_lanes: ferrite_v4_expm1f, ferrite_v8_expm1f;
    log_lanes: ferrite_v4_logf, ferrite_v8_logf;
    log2_lanes: ferrite_v4_log2f, ferrite_v8_log2f;
    log10_lanes: ferrite_v4_log10f, ferrite_v8_log10f;
    log1p_lanes: ferrite_v4_log1pf, ferrite_v8_log1pf;
    sin_lanes: ferrite_v4_sinf, ferrite_v8_sinf;
    cos_lanes: ferrite_v4_cosf, ferrite_v8_cosf;
    tan_lanes: ferrite_v4_tanf, ferrite_v8_tanf;
    cbrt_lanes: ferrite_v4_cbrtf, ferrite_v8_cbrtf;
    atan_lanes: ferrite_v4_atanf, ferrite_v8_atanf;
    asin_lanes: ferrite_v4_asinf, ferrite_v8_asinf;
    acos_lanes: ferrite_v4_acosf, ferrite_v8_acosf;
    erf_lanes: ferrite_v4_erff, ferrite_v8_erff;
    erfc_lanes: ferrite_v4_erfcf, ferrite_v8_erfcf;
    tanh_lanes: ferrite_v4_tanhf, ferrite_v8_tanhf;
}
binary! {
    pow_lanes: ferrite_v4_powf, ferrite_v8_powf;
    atan2_lanes: ferrite_v4_atan2f, ferrite_v8_atan2f;
}
sincos! {
    ferrite_v4_sincosf, 4;
    ferrite_v8_sincosf, 8;
}

macro_rules! scalar {
    ($($name:ident = $lanes:ident;)*) => {$(
        #[doc = concat!("`", stringify!($lanes), "` on one lane: the scalar built-in.")]
        pub fn $name(x: f32) -> f32 {
            let x = [x];
            dispatch!(|x: [f32; 1]| -> [f32; 1] { v::$lanes(&x) })[0]
        }
    )*};
}

scalar! {
    expf = exp_lanes;
    exp2f = exp2_lanes;
    exp10f = exp10_lanes;
    expm1f = expm1_lanes;
    logf = log_lanes;
    log2f = log2_lanes;
    log10f = log10_lanes;
    log1pf = log1p_lanes;
    sinf = sin_lanes;
    cosf = cos_lanes;
    tanf = tan_lanes;
    cbrtf = cbrt_lanes;
    atanf = atan_lanes;
    asinf = asin_lanes;
    acosf = acos_lanes;
    erff = erf_lanes;
    erfcf = erfc_lanes;
    tanhf = tanh_lanes;
}

/// `pow` on one lane: the scalar built-in.
pub fn powf(x: f32, y: f32) -> f32 {
    let (a, b) = ([x], [y]);
    dispatch!(|a: [f32; 1], b: [f32; 1]| -> [f32; 1] { v::pow_lanes(&a, &b) })[0]
}

/// `atan2` on one lane: the scalar built-in.
pub fn atan2f(y: f32, x: f32) -> f32 {
    let (a, b) = ([y], [x]);
    dispatch!(|a: [f32; 1], b: [f32; 1]| -> [f32; 1] { v::atan2_lanes(&a, &b) })[0]
}

/// A vector entry point: `inputs` pointers to `lanes` `f32`s, then `outputs` pointers to
/// `lanes` writable `f32`s; returns nothing.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(
    not(test),
    expect(
        dead_code,
        reason = "the vectoriser's calls are wired next; the JIT reads the names"
    )
)]
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
}

macro_rules! list {
    ($($base:literal, $ins:literal, $outs:literal: $v4:ident, $v8:ident;)*) => {
        /// Every vector entry point.
        pub fn all() -> Vec<VectorBuiltin> {
            vec![$(
                VectorBuiltin { name: stringify!($v4), base: $base, lanes: 4, inputs: $ins,
                    outputs: $outs, addr: $v4 as *const u8 },
                VectorBuiltin { name: stringify!($v8), base: $base, lanes: 8, inputs: $ins,
                    outputs: $outs, addr: $v8 as *const u8 },
            )*]
        }
    };
}

list! {
    "exp", 1, 1: ferrite_v4_expf, ferrite_v8_expf;
    "exp2", 1, 1: ferrite_v4_exp2f, ferrite_v8_exp2f;
    "exp10", 1, 1: ferrite_v4_exp10f, ferrite_v8_exp10f;
    "expm1", 1, 1: ferrite_v4_expm1f, ferrite_v8_expm1f;
    "log", 1, 1: ferrite_v4_logf, ferrite_v8_logf;
    "log2", 1, 1: ferrite_v4_log2f, ferrite_v8_log2f;
    "log10", 1, 1: ferrite_v4_log10f, ferrite_v8_log10f;
    "log1p", 1, 1: ferrite_v4_log1pf, ferrite_v8_log1pf;
    "sin", 1, 1: ferrite_v4_sinf, ferrite_v8_sinf;
    "cos", 1, 1: ferrite_v4_cosf, ferrite_v8_cosf;
    "tan", 1, 1: ferrite_v4_tanf, ferrite_v8_tanf;
    "cbrt", 1, 1: ferrite_v4_cbrtf, ferrite_v8_cbrtf;
    "atan", 1, 1: ferrite_v4_atanf, ferrite_v8_atanf;
    "asin", 1, 1: ferrite_v4_asinf, ferrite_v8_asinf;
    "acos", 1, 1: ferrite_v4_acosf, ferrite_v8_acosf;
    "erf", 1, 1: ferrite_v4_erff, ferrite_v8_erff;
    "erfc", 1, 1: ferrite_v4_erfcf, ferrite_v8_erfcf;
    "tanh", 1, 1: ferrite_v4_tanhf, ferrite_v8_tanhf;
    "pow", 2, 1: ferrite_v4_powf, ferrite_v8_powf;
    "atan2", 2, 1: ferrite_v4_atan2f, ferrite_v8_atan2f;
    "sincos", 1, 2: ferrite_v4_sincosf, ferrite_v8_sincosf;
}

#[cfg(test)]
#[path = "vector_tests.rs"]
mod tests;
