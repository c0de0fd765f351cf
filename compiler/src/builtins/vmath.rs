//! Single-precision OpenCL.std math written once over a lane array (`[f32; W]`), so one
//! implementation serves the scalar built-in (W = 1) and the vector entry points
//! (W = 4, 8; `builtins/vector.rs`), and the widths agree bit for bit.
//!
//! `exp`/`exp2`/`exp10`, `log`/`log2`/`log10`, `sin`/`cos`/`sincos`, `erf`/`erfc`, `tanh`
//! and `pow` are here only as wrappers: their algorithms are in `f32` lanes
//! ([`super::vmathf`]), twice as wide per register and with no dependence on the
//! auto-vectoriser; `sin`/`cos` still take this module's exact reduction for |x| ≥ 39000.
//!
//! # How
//! Every other function evaluates in **double precision** with Ferrite's own range reductions
//! and polynomials (Taylor series where they converge fast enough, a Chebyshev fit made
//! with mpmath for the `erfc` tail), then rounds once to `f32`. The double result is
//! within ~1e-11 relative of the true value (far inside every bound of the OpenCL
//! single-precision table), and because an `f32` input is exact in `f64`, denormal
//! inputs need no special path and denormal, overflowing and underflowing results come
//! out of the one final rounding. AVX2 holds 4 doubles per register, so this runs at half
//! the width of an all-`f32` algorithm (SLEEF's), for much less code and error analysis.
//!
//! # Vectorisation
//! The per-lane bodies are straight-line: conditions are evaluated on every lane and
//! combined with [`sel`], which LLVM turns into blends. Polynomials use fused
//! multiply-add (`f64::mul_add`): one instruction in the AVX2+FMA build, glibc's correctly
//! rounded `fma` in the plain build, so both builds give the same bits. The one branch
//! is at the vector level: `sin`/`cos`/`tan` arguments of magnitude 2²⁰ and beyond (or
//! infinite/NaN) take an exact Payne–Hanek style reduction, lane by lane, only when some
//! lane needs it. Denormals rely on the default floating-point environment (no FTZ/DAZ
//! in MXCSR), as Rust code does anyway.
//!
//! Measured (`vmath_tests.rs`, 16M inputs per function against glibc's double
//! functions): every function within 0.5 ulp plus the final rounding's share, i.e.
//! correctly rounded on all inputs tried, against OpenCL bounds of 2 to 16 ulp.

use super::simd::Plain;
use super::vmathf;
use std::f64::consts::{FRAC_1_PI, FRAC_PI_2, LN_2, LOG2_E, PI};

/// `if c { a } else { b }` on values already computed: a blend once vectorised.
#[inline(always)]
fn sel(c: bool, a: f64, b: f64) -> f64 {
    if c {
        a
    } else {
        b
    }
}

/// A polynomial, highest coefficient first (at least two), as two interleaved Horner
/// chains in x² (even and odd powers) with fused multiply-add: half the latency of one
/// chain, which is what a single lane waits for.
#[inline(always)]
fn horner<const N: usize>(x: f64, c: &[f64; N]) -> f64 {
    let x2 = x * x;
    let odd_degree = (N - 1) % 2 == 1;
    let (mut e, mut o) = if odd_degree {
        (c[1], c[0])
    } else {
        (c[0], c[1])
    };
    let mut i = 2;
    while i < N {
        if (N - 1 - i).is_multiple_of(2) {
            e = e.mul_add(x2, c[i]);
        } else {
            o = o.mul_add(x2, c[i]);
        }
        i += 1;
    }
    o.mul_add(x, e)
}

/// 1.5 × 2⁵²: adding it rounds a double of magnitude below 2⁵¹ to an integer, which then
/// sits in the low bits of the sum's representation.
const MAGIC: f64 = 6_755_399_441_055_744.0;

/// `t` rounded to the nearest integer, as a double and as an integer (`|t| < 2⁵¹`).
#[inline(always)]
fn round_int(t: f64) -> (f64, i64) {
    let s = t + MAGIC;
    // Wrapping: lanes whose result is replaced later (huge, NaN) may hold anything.
    let n = (s.to_bits() as i64).wrapping_sub(MAGIC.to_bits() as i64);
    (s - MAGIC, n)
}

/// 2ⁿ for `-1022 <= n <= 1023`.
#[inline(always)]
fn pow2i(n: i64) -> f64 {
    f64::from_bits((n.wrapping_add(1023) as u64) << 52)
}

const fn inv_factorial(n: u32) -> f64 {
    let mut f = 1.0;
    let mut i = 2;
    while i <= n {
        f *= i as f64;
        i += 1;
    }
    1.0 / f
}

/// Taylor coefficients of `e^u = 1 + u + u²·P(u)`: `P` holds 1/12!, 1/11!, … 1/2!
/// (highest first). For |u| ≤ ln2/2 + a little the first omitted term is below 1e-15
/// relative.
const EXP_P: [f64; 11] = {
    let mut c = [0.0; 11];
    let mut i = 0;
    while i < 11 {
        c[i] = inv_factorial(12 - i as u32);
        i += 1;
    }
    c
};

/// `e^u - 1` for |u| ≤ ~0.36, accurate relative to the result.
#[inline(always)]
fn expm1_poly(u: f64) -> f64 {
    u + u * u * horner(u, &EXP_P)
}

/// 2ᵗ in double precision for any `t` (clamped to ±200, which the `f32` rounding turns
/// into infinity or zero); NaN must be handled by the caller.
#[inline(always)]
fn exp2_d(t: f64) -> f64 {
    let t = t.clamp(-200.0, 200.0);
    let (nf, n) = round_int(t);
    let u = (t - nf) * LN_2;
    (1.0 + expm1_poly(u)) * pow2i(n)
}

/// ln 2 in two parts, the first with 29 significant bits so `n × LN2_HI` is exact.
const LN2_HI: f64 = 0.693_147_180_601_954_5;
const LN2_LO: f64 = LN_2 - LN2_HI;

/// `e^x - 1` in double for `|x| ≤ 100` (beyond, clamped: the `f32` result is -1 or ∞).
#[inline(always)]
fn expm1_d(x: f64) -> f64 {
    let x = x.clamp(-100.0, 100.0);
    let (nf, n) = round_int(x * LOG2_E);
    let u = (x - nf * LN2_HI) - nf * LN2_LO;
    let s = pow2i(n);
    s * expm1_poly(u) + (s - 1.0)
}

/// 2·atanh series: `ln m = 2s(1 + s²/3 + s⁴/5 + …)`, s = (m-1)/(m+1), |s| ≤ 0.172.
const LOG_P: [f64; 9] = {
    let mut c = [0.0; 9];
    let mut i = 0;
    while i < 9 {
        c[i] = 2.0 / (2 * (9 - i) + 1) as f64;
        i += 1;
    }
    c
};

/// `(e, ln m)` with `y = 2ᵉ·m`, `m` in `[√½, √2)`, for a positive normal double `y`.
#[inline(always)]
fn log_parts(y: f64) -> (f64, f64) {
    let bits = y.to_bits();
    // The biased exponent k as a double without an integer conversion (AVX2 has none
    // for 64-bit lanes): 2⁵² + k has k in its low bits.
    let k = f64::from_bits((bits >> 52) | 0x4330_0000_0000_0000) - 4_503_599_627_370_496.0;
    let m = f64::from_bits((bits & ((1u64 << 52) - 1)) | 1.0f64.to_bits());
    let big = m > std::f64::consts::SQRT_2;
    let m = sel(big, m * 0.5, m);
    let e = k - sel(big, 1022.0, 1023.0);
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    (e, 2.0 * s + s * z * horner(z, &LOG_P))
}

/// `log2 |x|` in double for an `f32` magnitude, with `log2 0 = -∞` and `log2 ∞ = ∞`.
#[inline(always)]
fn log2_abs(a: f64) -> f64 {
    let (e, lm) = log_parts(a);
    let l = e + lm * LOG2_E;
    let l = sel(a == 0.0, f64::NEG_INFINITY, l);
    sel(a == f64::INFINITY, f64::INFINITY, l)
}

// ---- exponentials ----------------------------------------------------------------------

#[inline(always)]
pub fn expm1(x: f32) -> f32 {
    let x = f64::from(x);
    sel(x.is_nan() | (x == 0.0), x, expm1_d(x)) as f32
}

// ---- logarithms ------------------------------------------------------------------------

/// `ln(1 + x)` from `u = 1 + x` rounded: `ln u - ((u - 1) - x) / u` (the correction is
/// exact where it matters, and gives `x` itself when `u == 1`).
#[inline(always)]
pub fn log1p(x: f32) -> f32 {
    log1p_d(f64::from(x)) as f32
}

/// `ln(1 + x)` in double for any double `x`, with the special values.
#[inline(always)]
fn log1p_d(x: f64) -> f64 {
    let u = 1.0 + x;
    let c = (u - 1.0) - x;
    let (e, lm) = log_parts(u);
    let r = e * LN_2 + lm - c / u;
    let r = sel(x == 0.0, x, r);
    let r = sel(x == -1.0, f64::NEG_INFINITY, r);
    let r = sel(x == f64::INFINITY, x, r);
    sel((x < -1.0) | x.is_nan(), f64::NAN, r)
}

// ---- power, cube root -----------------------------------------------------------------

/// `powr(x, y)`: `pow` for `x ≥ 0`, with its own special cases (NaN for `x < 0`, `0⁰`,
/// `∞⁰`, `1^∞`).
#[inline(always)]
pub fn powr(x: f32, y: f32) -> f32 {
    let (x, y) = (f64::from(x), f64::from(y));
    let r = exp2_d(y * log2_abs(x.abs()));
    let r = sel((x == 1.0) & y.is_finite(), 1.0, r);
    let nan = x.is_nan()
        | y.is_nan()
        | (x < 0.0)
        | ((x == 0.0) & (y == 0.0))
        | (x.is_infinite() & (y == 0.0))
        | ((x == 1.0) & y.is_infinite());
    sel(nan, f64::NAN, r) as f32
}

/// `hypot(x, y)`: the squares are exact in double, so one rounded sum and a square root.
#[inline(always)]
pub fn hypot(x: f32, y: f32) -> f32 {
    let (x, y) = (f64::from(x), f64::from(y));
    let r = (x * x + y * y).sqrt();
    sel(x.is_infinite() | y.is_infinite(), f64::INFINITY, r) as f32
}

#[inline(always)]
pub fn cbrt(x: f32) -> f32 {
    let x = f64::from(x);
    let r = exp2_d(log2_abs(x.abs()) * (1.0 / 3.0)).copysign(x);
    sel((x == 0.0) | x.is_infinite() | x.is_nan(), x, r) as f32
}

// ---- trigonometric ---------------------------------------------------------------------

/// π/2 in three parts, the first two with 33 significant bits (`n × part` exact for
/// `|n| < 2²⁰`).
const PIO2_1: f64 = 1.570_796_326_734_125_6;
const PIO2_2: f64 = 6.077_100_506_303_966e-11;
const PIO2_3: f64 = 2.022_266_248_795_950_6e-21;

/// Below this magnitude the three-part reduction is exact enough (relative error of the
/// reduced argument ~2⁻⁵²); at and above it, [`reduce_big`].
const BIG: f64 = 1_048_576.0;

/// 2/π in 24-bit pieces (bits 1–24, 25–48, …, 217–240 after the binary point): an `f32`
/// times a piece is exact in double.
const TWO_OVER_PI_24: [f64; 10] = [
    0.636_619_746_685_028_1,
    2.568_255_297_319_410_6e-8,
    2.937_095_214_933_759e-16,
    3.254_379_400_173_245_6e-23,
    1.208_961_370_882_853_7e-29,
    5.667_556_795_740_071e-37,
    2.620_403_111_209_721_5e-44,
    7.053_957_680_880_629e-52,
    1.582_624_282_116_559e-58,
    6.375_014_128_012_717e-66,
];

/// `x = n·π/2 + r` for `|x| < 2²⁰`: `(r, n)`.
#[inline(always)]
fn reduce_small(x: f64) -> (f64, i64) {
    let (nf, n) = round_int(x * std::f64::consts::FRAC_2_PI);
    let r = ((x - nf * PIO2_1) - nf * PIO2_2) - nf * PIO2_3;
    (r, n)
}

/// `x = n·π/2 + r` for any finite `x` (NaN for infinities and NaN): `x·2/π` modulo 4 from
/// exact products with the 24-bit pieces of 2/π, each reduced exactly into [-2, 2] (the
/// nearest multiple of 4 removed: a tiny negative product stays itself, where `floor`
/// would have added 4 and rounded it away), summed with two-sum.
fn reduce_big(x: f64) -> (f64, i64) {
    let (mut hi, mut lo) = (0.0f64, 0.0f64);
    for c in TWO_OVER_PI_24 {
        let p = x * c;
        let m = p - 4.0 * (p * 0.25).round_ties_even();
        let s = hi + m;
        let bb = s - hi;
        lo += (hi - (s - bb)) + (m - bb);
        hi = s;
    }
    let (nf, n) = round_int(hi);
    let f = (hi - nf) + lo;
    (f * FRAC_PI_2, n)
}

/// Both reductions of every lane: the quick one always, the exact one only where a lane
/// needs it.
#[inline(always)]
fn reduce_lanes<const W: usize>(x: &[f32; W]) -> ([f64; W], [i64; W]) {
    let mut r = [0.0; W];
    let mut n = [0; W];
    for i in 0..W {
        (r[i], n[i]) = reduce_small(f64::from(x[i]));
    }
    if x.iter().any(|v| f64::from(v.abs()) >= BIG || v.is_nan()) {
        for i in 0..W {
            let v = f64::from(x[i]);
            if v.abs() >= BIG || v.is_nan() {
                (r[i], n[i]) = reduce_big(v);
            }
        }
    }
    (r, n)
}

/// sin r for |r| ≤ π/4 (a little beyond is fine): Taylor to r¹⁷.
const SIN_P: [f64; 8] = {
    let mut c = [0.0; 8];
    let mut i = 0;
    while i < 8 {
        let k = 8 - i as u32; // term r^(2k+1)
        let s = if k % 2 == 1 { -1.0 } else { 1.0 };
        c[i] = s * inv_factorial(2 * k + 1);
        i += 1;
    }
    c
};
/// cos r: Taylor to r¹⁸.
const COS_P: [f64; 9] = {
    let mut c = [0.0; 9];
    let mut i = 0;
    while i < 9 {
        let k = 9 - i as u32; // term r^(2k)
        let s = if k % 2 == 1 { -1.0 } else { 1.0 };
        c[i] = s * inv_factorial(2 * k);
        i += 1;
    }
    c
};

#[inline(always)]
fn sin_poly(r: f64) -> f64 {
    let z = r * r;
    r + r * z * horner(z, &SIN_P)
}

#[inline(always)]
fn cos_poly(r: f64) -> f64 {
    1.0 + r * r * horner(r * r, &COS_P)
}

/// sin(n·π/2 + r) given r, n.
#[inline(always)]
fn sin_quadrant(r: f64, n: i64) -> f64 {
    let v = sel(n & 1 == 0, sin_poly(r), cos_poly(r));
    sel(n & 2 == 0, v, -v)
}

#[inline(always)]
fn with_zero(x: f32, r: f64) -> f32 {
    sel(x == 0.0, f64::from(x), r) as f32
}

#[inline(always)]
fn sin_lane(x: f32, r: f64, n: i64) -> f32 {
    with_zero(x, sin_quadrant(r, n))
}

#[inline(always)]
fn cos_lane(r: f64, n: i64) -> f32 {
    sin_quadrant(r, n.wrapping_add(1)) as f32
}

#[inline(always)]
fn tan_lane(x: f32, r: f64, n: i64) -> f32 {
    let (s, c) = (sin_poly(r), cos_poly(r));
    let odd = n & 1 != 0;
    with_zero(x, sel(odd, -c, s) / sel(odd, s, c))
}

// The lane loops are written out: `std::array::from_fn` and closures are not inlined
// into the AVX2 builds, which then run scalar code.

#[inline(always)]
pub fn sin_lanes_d<const W: usize>(x: &[f32; W]) -> [f32; W] {
    let (r, n) = reduce_lanes(x);
    let mut o = [0.0; W];
    for (((o, &x), &r), &n) in o.iter_mut().zip(x).zip(&r).zip(&n) {
        *o = sin_lane(x, r, n);
    }
    o
}

#[inline(always)]
pub fn cos_lanes_d<const W: usize>(x: &[f32; W]) -> [f32; W] {
    let (r, n) = reduce_lanes(x);
    let mut o = [0.0; W];
    for ((o, &r), &n) in o.iter_mut().zip(&r).zip(&n) {
        *o = cos_lane(r, n);
    }
    o
}

#[inline(always)]
pub fn tan_lanes<const W: usize>(x: &[f32; W]) -> [f32; W] {
    let (r, n) = reduce_lanes(x);
    let mut o = [0.0; W];
    for (((o, &x), &r), &n) in o.iter_mut().zip(x).zip(&r).zip(&n) {
        *o = tan_lane(x, r, n);
    }
    o
}

/// `sin` and `cos` of [`super::vmathf`] (one reduction each: the two differ).
#[cfg(any(test, target_arch = "aarch64"))]
#[inline(always)]
pub fn sincos_lanes<const W: usize>(x: &[f32; W]) -> ([f32; W], [f32; W]) {
    (sin_lanes(x), cos_lanes(x))
}

// ---- inverse trigonometric -------------------------------------------------------------

/// atan t for |t| ≤ tan(π/12): Taylor to t²³.
const ATAN_P: [f64; 11] = {
    let mut c = [0.0; 11];
    let mut i = 0;
    while i < 11 {
        let k = 11 - i; // term t^(2k+1)
        let s = if k % 2 == 1 { -1.0 } else { 1.0 };
        c[i] = s / (2 * k + 1) as f64;
        i += 1;
    }
    c
};

const TAN_PI_12: f64 = 0.267_949_192_431_122_7;
const SQRT_3: f64 = 1.732_050_807_568_877_2;
const FRAC_PI_6: f64 = std::f64::consts::FRAC_PI_6;

/// atan(n / d) for `n, d ≥ 0` not both zero or both infinite, with one division:
/// t = min/max folds onto [0, 1], then t > tan(π/12) onto [0, tan(π/12)] by
/// atan t = π/6 + atan((t√3 − 1)/(t + √3)).
#[inline(always)]
fn atan_ratio(n: f64, d: f64) -> f64 {
    let inv = n > d;
    let (a, b) = (sel(inv, d, n), sel(inv, n, d));
    let shift = a > TAN_PI_12 * b;
    let (a, b) = (sel(shift, a * SQRT_3 - b, a), sel(shift, a + b * SQRT_3, b));
    let t = a / b;
    let p = t + t * (t * t) * horner(t * t, &ATAN_P);
    let p = sel(shift, FRAC_PI_6 + p, p);
    sel(inv, FRAC_PI_2 - p, p)
}

#[inline(always)]
pub fn atan(x: f32) -> f32 {
    atan_d(f64::from(x)) as f32
}

#[inline(always)]
fn atan_d(x: f64) -> f64 {
    let r = atan_ratio(x.abs(), 1.0).copysign(x);
    sel((x == 0.0) | x.is_nan(), x, r)
}

#[inline(always)]
pub fn atan2(y: f32, x: f32) -> f32 {
    atan2_d(f64::from(y), f64::from(x)) as f32
}

#[inline(always)]
fn atan2_d(y: f64, x: f64) -> f64 {
    let (ay, ax) = (y.abs(), x.abs());
    let both_inf = ay.is_infinite() & ax.is_infinite();
    let a = atan_ratio(sel(both_inf, 1.0, ay), sel(both_inf, 1.0, ax));
    let a = sel(ay == 0.0, 0.0, a);
    let a = sel(x.is_sign_negative(), PI - a, a);
    sel(x.is_nan() | y.is_nan(), f64::NAN, a.copysign(y))
}

/// `(asin(x) − x) / x³` as a polynomial in z = x² on [0, ¼] (Chebyshev fit by mpmath,
/// max abs error 3.7e-15; highest first).
const ASIN_P: [f64; 11] = [
    0.027871289137110143,
    -0.006822043980671263,
    0.015445133336819308,
    0.0102896411236249,
    0.014140941807431192,
    0.017337192543712077,
    0.022373010066676288,
    0.030381917485400308,
    0.044642857578717755,
    0.07499999999726302,
    0.1666666666666695,
];

/// `(p, big)`: p = asin of the reduced argument of `|x|`, `big` when |x| > ½ (then
/// p = asin √((1 − |x|)/2), and asin |x| = π/2 − 2p, acos |x| = 2p). No division.
#[inline(always)]
fn asin_parts(x: f64) -> (f64, bool) {
    let a = x.abs();
    let big = a > 0.5;
    let z = sel(big, (1.0 - a) * 0.5, a * a);
    let s = sel(big, z.sqrt(), a);
    (s + s * z * horner(z, &ASIN_P), big)
}

#[inline(always)]
pub fn asin(x: f32) -> f32 {
    asin_d(f64::from(x)) as f32
}

#[inline(always)]
fn asin_d(x: f64) -> f64 {
    let (p, big) = asin_parts(x);
    sel(big, FRAC_PI_2 - 2.0 * p, p).copysign(x)
}

#[inline(always)]
pub fn acos(x: f32) -> f32 {
    acos_d(f64::from(x)) as f32
}

#[inline(always)]
fn acos_d(x: f64) -> f64 {
    let (p, big) = asin_parts(x);
    let far = sel(x > 0.0, 2.0 * p, PI - 2.0 * p);
    sel(big, far, FRAC_PI_2 - p.copysign(x))
}

/// The inverse functions divided by π: the double result scaled, then rounded once.
#[inline(always)]
pub fn asinpi(x: f32) -> f32 {
    (asin_d(f64::from(x)) * FRAC_1_PI) as f32
}

#[inline(always)]
pub fn acospi(x: f32) -> f32 {
    (acos_d(f64::from(x)) * FRAC_1_PI) as f32
}

#[inline(always)]
pub fn atanpi(x: f32) -> f32 {
    (atan_d(f64::from(x)) * FRAC_1_PI) as f32
}

#[inline(always)]
pub fn atan2pi(y: f32, x: f32) -> f32 {
    (atan2_d(f64::from(y), f64::from(x)) * FRAC_1_PI) as f32
}

// ---- error function, hyperbolic tangent ------------------------------------------------

/// sinh |x| = (E + E/(E + 1)) / 2, E = expm1 |x| (no cancellation near 0).
#[inline(always)]
pub fn sinh(x: f32) -> f32 {
    let x = f64::from(x);
    let e = expm1_d(x.abs());
    (0.5 * (e + e / (e + 1.0))).copysign(x) as f32
}

#[inline(always)]
pub fn cosh(x: f32) -> f32 {
    let e = exp2_d(f64::from(x).abs() * LOG2_E);
    (0.5 * (e + 1.0 / e)) as f32
}

/// asinh |x| = log1p(|x| + x² / (1 + √(1 + x²))); the squares of `f32`s fit in double.
#[inline(always)]
pub fn asinh(x: f32) -> f32 {
    let x = f64::from(x);
    let a = x.abs();
    let r = log1p_d(a + a * a / (1.0 + (1.0 + a * a).sqrt()));
    sel(a.is_infinite(), a, r).copysign(x) as f32
}

/// acosh x = log1p(t + √(t(x + 1))), t = x − 1 (exact).
#[inline(always)]
pub fn acosh(x: f32) -> f32 {
    let x = f64::from(x);
    let t = x - 1.0;
    let r = log1p_d(t + (t * (x + 1.0)).sqrt());
    let r = sel(x == f64::INFINITY, x, r);
    sel(x < 1.0, f64::NAN, r) as f32
}

/// atanh x = ½ log1p(2|x| / (1 − |x|)), sign restored.
#[inline(always)]
pub fn atanh(x: f32) -> f32 {
    let x = f64::from(x);
    let a = x.abs();
    (0.5 * log1p_d(2.0 * a / (1.0 - a))).copysign(x) as f32
}

// ---- sinpi, cospi, tanpi: exact reduction ---------------------------------------------

/// `(z, n)` with |x| = n/2 + z, |z| ≤ ¼, both exact (2|x| is exact; every `f32` from
/// 2²⁴ on is an even integer, taken as 0).
#[inline(always)]
fn reduce_half(x: f64) -> (f64, i64) {
    let a = x.abs();
    let a = sel(a >= 16_777_216.0, 0.0, a);
    let (nf, n) = round_int(2.0 * a);
    (a - 0.5 * nf, n)
}

/// sin πx: zeros carry the sign of `x` (+0 at positive integers, −0 at negative ones).
#[inline(always)]
pub fn sinpi(x: f32) -> f32 {
    let x = f64::from(x);
    let (z, n) = reduce_half(x);
    let v = sin_quadrant(z * PI, n);
    let r = sel(v == 0.0, 0.0, v) * 1.0f64.copysign(x);
    sel(x.is_finite(), r, f64::NAN) as f32
}

/// cos πx: zeros are +0.
#[inline(always)]
pub fn cospi(x: f32) -> f32 {
    let x = f64::from(x);
    let (z, n) = reduce_half(x);
    let v = sin_quadrant(z * PI, n.wrapping_add(1));
    sel(x.is_finite(), sel(v == 0.0, 0.0, v), f64::NAN) as f32
}

/// tan πx with the signs of the reference (`math::tanpi`): ±0 at integers (the sign of
/// x, flipped at odd ones), ±∞ at odd multiples of ½ (+∞ after an even integer).
#[inline(always)]
pub fn tanpi(x: f32) -> f32 {
    tanpi_d(f64::from(x)) as f32
}

#[inline(always)]
fn tanpi_d(x: f64) -> f64 {
    let a = x.abs();
    let a = sel(a >= 16_777_216.0, 0.0, a);
    let (nf, n) = round_int(a);
    let z = a - nf;
    let flip = (n & 1 == 1) & (z == 0.0);
    let sign = sel(flip, -1.0, 1.0) * 1.0f64.copysign(x) * 1.0f64.copysign(z);
    let z = z.abs();
    let far = z > 0.25;
    let w = sel(far, 0.5 - z, z) * PI;
    let (s, c) = (sin_poly(w), cos_poly(w));
    let r = sign * (sel(far, c, s) / sel(far, s, c));
    sel(x.is_finite(), r, f64::NAN)
}

// ---- lane forms of the element-wise functions -----------------------------------------

macro_rules! lanes1 {
    ($($lanes:ident = $f:ident;)*) => {$(
        #[inline(always)]
        pub fn $lanes<const W: usize>(x: &[f32; W]) -> [f32; W] {
            let mut o = [0.0; W];
            for (o, &x) in o.iter_mut().zip(x) {
                *o = $f(x);
            }
            o
        }
    )*};
}
macro_rules! lanes2 {
    ($($lanes:ident = $f:ident;)*) => {$(
        #[inline(always)]
        pub fn $lanes<const W: usize>(a: &[f32; W], b: &[f32; W]) -> [f32; W] {
            let mut o = [0.0; W];
            for ((o, &a), &b) in o.iter_mut().zip(a).zip(b) {
                *o = $f(a, b);
            }
            o
        }
    )*};
}
lanes1! {
    expm1_lanes = expm1;
    log1p_lanes = log1p;
    cbrt_lanes = cbrt;
    atan_lanes = atan;
    asin_lanes = asin;
    acos_lanes = acos;
    asinpi_lanes = asinpi;
    acospi_lanes = acospi;
    atanpi_lanes = atanpi;
    sinh_lanes = sinh;
    cosh_lanes = cosh;
    asinh_lanes = asinh;
    acosh_lanes = acosh;
    atanh_lanes = atanh;
    sinpi_lanes = sinpi;
    cospi_lanes = cospi;
    tanpi_lanes = tanpi;
}
lanes2! {
    atan2_lanes = atan2;
    atan2pi_lanes = atan2pi;
    powr_lanes = powr;
    hypot_lanes = hypot;
}

/// The functions whose algorithm is in `f32` lanes ([`super::vmathf`]), at one lane and
/// as lane arrays.
macro_rules! from_vmathf {
    ($($f:ident, $lanes:ident;)*) => {$(
        #[cfg(test)]
        pub fn $f(x: f32) -> f32 {
            vmathf::$f(Plain([x])).0[0]
        }
        #[inline(always)]
        pub fn $lanes<const W: usize>(x: &[f32; W]) -> [f32; W] {
            vmathf::$f(Plain(*x)).0
        }
    )*};
}
from_vmathf! {
    exp, exp_lanes;
    exp2, exp2_lanes;
    exp10, exp10_lanes;
    log, log_lanes;
    log2, log2_lanes;
    log10, log10_lanes;
    sin, sin_lanes;
    cos, cos_lanes;
    erf, erf_lanes;
    erfc, erfc_lanes;
    tanh, tanh_lanes;
}

#[cfg(test)]
pub fn pow(x: f32, y: f32) -> f32 {
    vmathf::pow(Plain([x]), Plain([y])).0[0]
}
#[inline(always)]
pub fn pow_lanes<const W: usize>(x: &[f32; W], y: &[f32; W]) -> [f32; W] {
    vmathf::pow(Plain(*x), Plain(*y)).0
}

#[cfg(test)]
#[path = "vmath_tests.rs"]
pub(super) mod tests;
