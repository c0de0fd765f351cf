//! Accuracy of [`super`] against glibc's double-precision functions (within 1 ulp of
//! double, so a reference ~2⁻²⁹ `f32` ulp from the true value), measured in `f32` ulps of
//! the reference as the OpenCL accuracy table defines them, over the special values and
//! a sweep of structured and random inputs.
//!
//! `cargo test` runs a sweep of ~1M inputs per function; the `#[ignore]`d `*_full` tests
//! run 16M per function (in release: `cargo test --release -p ferrite-compiler --lib
//! vmath -- --ignored --nocapture`). Both print the largest error found.

use super as v;
use super::super::{libm, math};
use std::f64::consts::PI;

/// The error of `got` in `f32` ulps of the reference `want`; `f64::INFINITY` for a wrong
/// special value (NaN, infinity, sign of zero).
pub(in super::super) fn ulp_err(got: f32, want: f64) -> f64 {
    if want.is_nan() || got.is_nan() {
        return if want.is_nan() && got.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let w32 = want as f32;
    if w32.is_infinite() || got.is_infinite() {
        return if got == w32 { 0.0 } else { f64::INFINITY };
    }
    if got == 0.0 && want == 0.0 && got.is_sign_negative() != want.is_sign_negative() {
        return f64::INFINITY;
    }
    let e = if want == 0.0 {
        -126
    } else {
        (want.abs().log2().floor() as i32).max(-126)
    };
    let ulp = 2f64.powi(e - 23);
    (f64::from(got) - want).abs() / ulp
}

#[test]
fn ulp_err_measures_what_it_should() {
    assert_eq!(ulp_err(1.0 + f32::EPSILON, 1.0), 1.0);
    assert_eq!(
        ulp_err(f32::from_bits(3), f64::from(f32::from_bits(1))),
        2.0
    );
    assert_eq!(ulp_err(-0.0, 0.0), f64::INFINITY);
    assert_eq!(ulp_err(f32::MAX, f64::INFINITY), f64::INFINITY);
    assert_eq!(ulp_err(f32::NAN, 1.0), f64::INFINITY);
    assert_eq!(ulp_err(f32::NAN, f64::NAN), 0.0);
    assert!((ulp_err(1.0, 1.0 + 1.5 * f64::from(f32::EPSILON)) - 1.5).abs() < 1e-9);
}

/// xorshift64*: reproducible random bits.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn bits(&mut self) -> f32 {
        f32::from_bits((self.next() >> 32) as u32)
    }
    /// Uniform in `[lo, hi)`.
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }
}

fn specials() -> Vec<f32> {
    let mut v = vec![
        0.0,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::MIN_POSITIVE,
        f32::EPSILON,
        1e-30,
        1e-7,
        0.5,
        1.0,
        1.5,
        2.0,
        3.0,
        8.0,
        27.0,
        10.0,
        100.0,
        std::f32::consts::FRAC_PI_4,
        std::f32::consts::FRAC_PI_2,
        std::f32::consts::PI,
        1e6,
        1048575.9,
        1048576.0,
        1e10,
        1e30,
        f32::MAX,
        f32::INFINITY,
        88.72,
        88.73,
        89.0,
        -87.33,
        -103.97,
        -104.0,
        38.53,
        -45.0,
        10.05,
        10.06,
        3.92,
        1.0 - f32::EPSILON / 2.0,
        1.0 + f32::EPSILON,
        f32::from_bits(0x5d1d_b1f6), // close to a multiple of pi/2
        f32::from_bits(0x6a97_ba0a),
        f32::from_bits(0x6f79_be45), // lost bits in the exact reduction of its negative
        f32::from_bits(0x5123_e87f),
        0.25,
        0.75,
        2.5,
        16777216.0,
        8388607.5,
    ];
    let neg: Vec<f32> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v.push(f32::NAN);
    v
}

/// Inputs for a one-argument function: specials, every 2¹²-th bit pattern (1M over
/// the whole `f32` line; `n` ≥ 16M gives every 256th), random bit patterns and random
/// values in the function's interesting range.
fn inputs(n: usize, lo: f32, hi: f32, seed: u64) -> Vec<f32> {
    let mut v = specials();
    let step = ((1u64 << 32) / (n as u64 / 2).max(1)).max(1);
    let mut b = 0u64;
    while b < 1 << 32 {
        v.push(f32::from_bits(b as u32));
        b += step;
    }
    let mut r = Rng(seed | 1);
    for _ in 0..n / 4 {
        v.push(r.bits());
        v.push(r.range(lo, hi));
    }
    v
}

struct Report {
    max: f64,
    at: f32,
    at2: f32,
}

fn check1(
    name: &str,
    n: usize,
    lo: f32,
    hi: f32,
    bound: f64,
    f: impl Fn(f32) -> f32,
    r: impl Fn(f64) -> f64,
) {
    let mut rep = Report {
        max: 0.0,
        at: 0.0,
        at2: 0.0,
    };
    let xs = inputs(n, lo, hi, name.len() as u64 * 7919);
    let mut misrounded = 0usize;
    for &x in &xs {
        let (got, want) = (f(x), r(f64::from(x)));
        misrounded += usize::from(got.to_bits() != (want as f32).to_bits() && !got.is_nan());
        let e = ulp_err(got, want);
        if e > rep.max {
            rep = Report {
                max: e,
                at: x,
                at2: 0.0,
            };
        }
    }
    println!(
        "{name}: {} inputs, max {:.4} ulp at {:e} ({:#x}), {misrounded} not the reference rounded",
        xs.len(),
        rep.max,
        rep.at,
        rep.at.to_bits()
    );
    assert!(
        rep.max <= bound,
        "{name}: {} ulp at {:e} (bound {bound})",
        rep.max,
        rep.at
    );
}

fn check2(
    name: &str,
    n: usize,
    (xlo, xhi, ylo, yhi): (f32, f32, f32, f32),
    bound: f64,
    f: impl Fn(f32, f32) -> f32,
    r: impl Fn(f64, f64) -> f64,
) {
    let mut rep = Report {
        max: 0.0,
        at: 0.0,
        at2: 0.0,
    };
    let mut pairs = Vec::new();
    let sp = specials();
    for &a in &sp {
        for &b in &sp {
            pairs.push((a, b));
        }
    }
    let mut rng = Rng(name.len() as u64 * 104_729 + 1);
    for _ in 0..n / 2 {
        pairs.push((rng.bits(), rng.bits()));
        pairs.push((rng.range(xlo, xhi), rng.range(ylo, yhi)));
    }
    let mut misrounded = 0usize;
    for &(a, b) in &pairs {
        let (got, want) = (f(a, b), r(f64::from(a), f64::from(b)));
        misrounded += usize::from(got.to_bits() != (want as f32).to_bits() && !got.is_nan());
        let e = ulp_err(got, want);
        if e > rep.max {
            rep = Report {
                max: e,
                at: a,
                at2: b,
            };
        }
    }
    println!(
        "{name}: {} inputs, max {:.4} ulp at ({:e}, {:e}), {misrounded} not the reference rounded",
        pairs.len(),
        rep.max,
        rep.at,
        rep.at2
    );
    assert!(
        rep.max <= bound,
        "{name}: {} ulp at ({:e}, {:e}) (bound {bound})",
        rep.max,
        rep.at,
        rep.at2
    );
}

fn tan1(x: f32) -> f32 {
    v::tan_lanes(&[x])[0]
}
fn sincos_s(x: f32) -> f32 {
    v::sincos_lanes(&[x]).0[0]
}
fn sincos_c(x: f32) -> f32 {
    v::sincos_lanes(&[x]).1[0]
}

/// One test per function at two sizes: `name` (the `cargo test` sweep) and `name_full`.
macro_rules! sweep1 {
    ($($name:ident, $full:ident: $f:expr, $r:expr, $lo:expr, $hi:expr, $bound:expr;)*) => {$(
        #[test]
        fn $name() {
            check1(stringify!($name), 1 << 20, $lo, $hi, $bound, $f, $r);
        }
        #[test]
        #[ignore = "16M inputs: run in release by hand"]
        fn $full() {
            check1(stringify!($name), 1 << 24, $lo, $hi, $bound, $f, $r);
        }
    )*};
}

sweep1! {
    exp, exp_full: v::exp, f64::exp, -104.0, 89.0, 3.0;
    exp2, exp2_full: v::exp2, f64::exp2, -150.0, 128.0, 3.0;
    exp10, exp10_full: v::exp10, |x| libm::exp10(x), -46.0, 39.0, 3.0;
    expm1, expm1_full: v::expm1, |x| libm::expm1(x), -20.0, 89.0, 3.0;
    log, log_full: v::log, f64::ln, 0.0, 4.0, 3.0;
    log2, log2_full: v::log2, f64::log2, 0.0, 4.0, 3.0;
    log10, log10_full: v::log10, f64::log10, 0.0, 4.0, 3.0;
    log1p, log1p_full: v::log1p, |x| libm::log1p(x), -1.0, 4.0, 3.0;
    sin, sin_full: v::sin, f64::sin, -100.0, 100.0, 4.0;
    cos, cos_full: v::cos, f64::cos, -100.0, 100.0, 4.0;
    tan, tan_full: tan1, f64::tan, -100.0, 100.0, 4.0;
    sincos_sin, sincos_sin_full: sincos_s, f64::sin, -10.0, 10.0, 4.0;
    sincos_cos, sincos_cos_full: sincos_c, f64::cos, -10.0, 10.0, 4.0;
    erf, erf_full: v::erf, |x| libm::erf(x), -5.0, 5.0, 16.0;
    erfc, erfc_full: v::erfc, |x| libm::erfc(x), -3.0, 11.0, 16.0;
    tanh, tanh_full: v::tanh, f64::tanh, -10.0, 10.0, 5.0;
    atan, atan_full: v::atan, f64::atan, -10.0, 10.0, 5.0;
    asin, asin_full: v::asin, f64::asin, -1.0, 1.0, 4.0;
    acos, acos_full: v::acos, f64::acos, -1.0, 1.0, 4.0;
    cbrt, cbrt_full: v::cbrt, f64::cbrt, -10.0, 10.0, 2.0;
    asinpi, asinpi_full: v::asinpi, |x| x.asin() / PI, -1.0, 1.0, 5.0;
    acospi, acospi_full: v::acospi, |x| x.acos() / PI, -1.0, 1.0, 5.0;
    atanpi, atanpi_full: v::atanpi, |x| x.atan() / PI, -10.0, 10.0, 5.0;
    sinh, sinh_full: v::sinh, f64::sinh, -90.0, 90.0, 4.0;
    cosh, cosh_full: v::cosh, f64::cosh, -90.0, 90.0, 4.0;
    asinh, asinh_full: v::asinh, |x| libm::asinh(x), -100.0, 100.0, 4.0;
    acosh, acosh_full: v::acosh, |x| libm::acosh(x), 1.0, 100.0, 4.0;
    atanh, atanh_full: v::atanh, |x| libm::atanh(x), -1.0, 1.0, 4.0;
    sinpi, sinpi_full: v::sinpi, math::sinpi, -10.0, 10.0, 4.0;
    cospi, cospi_full: v::cospi, math::cospi, -10.0, 10.0, 4.0;
    tanpi, tanpi_full: v::tanpi, math::tanpi, -10.0, 10.0, 6.0;
}

macro_rules! sweep2 {
    ($($name:ident, $full:ident: $f:expr, $r:expr, $range:expr, $bound:expr;)*) => {$(
        #[test]
        fn $name() {
            check2(stringify!($name), 1 << 20, $range, $bound, $f, $r);
        }
        #[test]
        #[ignore = "16M inputs: run in release by hand"]
        fn $full() {
            check2(stringify!($name), 1 << 24, $range, $bound, $f, $r);
        }
    )*};
}

sweep2! {
    pow, pow_full: v::pow, f64::powf, (0.0, 4.0, -60.0, 60.0), 16.0;
    atan2, atan2_full: v::atan2, f64::atan2, (-10.0, 10.0, -10.0, 10.0), 6.0;
    atan2pi, atan2pi_full: v::atan2pi, |y, x| y.atan2(x) / PI, (-10.0, 10.0, -10.0, 10.0), 6.0;
    powr, powr_full: v::powr, math::powr, (0.0, 4.0, -60.0, 60.0), 16.0;
    hypot, hypot_full: v::hypot, f64::hypot, (-1e3, 1e3, -1e3, 1e3), 4.0;
}

/// `pow` where the 2-D random sweep rarely goes: `y` chosen so that `x^y` lands anywhere
/// from below the denormals to beyond overflow (`y = t / log2 x`, `t` in [-160, 135]),
/// `x` near 1 with large `y`, and negative `x` with integer `y`.
fn check_pow_structured(n: usize) {
    let mut rng = Rng(0x005e_ed0f_9047);
    let (mut max, mut at, mut misrounded) = (0f64, (0f32, 0f32), 0usize);
    let mut one = |x: f32, y: f32| {
        let (got, want) = (v::pow(x, y), f64::from(x).powf(f64::from(y)));
        misrounded += usize::from(got.to_bits() != (want as f32).to_bits() && !got.is_nan());
        let e = ulp_err(got, want);
        if e > max {
            (max, at) = (e, (x, y));
        }
    };
    for _ in 0..n / 4 {
        let x = f32::from_bits((rng.next() >> 33) as u32); // positive, any exponent
        let t = rng.range(-160.0, 135.0);
        let l = f64::from(x).log2();
        if x.is_finite() && l != 0.0 {
            one(x, (f64::from(t) / l) as f32);
        }
        let near1 = f32::from_bits(
            1.0f32
                .to_bits()
                .wrapping_add((rng.next() % 4096) as u32)
                .wrapping_sub(2048),
        );
        one(near1, rng.range(-1e6, 1e6));
        let k = (rng.next() % 301) as f32 - 150.0;
        one(-rng.range(0.0, 8.0), k);
        one(-f32::from_bits((rng.next() >> 33) as u32), k);
    }
    println!("pow_structured: {n} inputs, max {max:.4} ulp at ({:e}, {:e}), {misrounded} not the reference rounded", at.0, at.1);
    assert!(max <= 16.0, "pow: {max} ulp at ({:e}, {:e})", at.0, at.1);
}

#[test]
fn pow_structured() {
    check_pow_structured(1 << 20);
}

#[test]
#[ignore = "16M inputs: run in release by hand"]
fn pow_structured_full() {
    check_pow_structured(1 << 24);
}

/// The exact reduction against the quick one where both apply (|x| < 2²⁰, both signs):
/// the same quadrant and the reduced argument to ~2⁻⁴⁸ relative.
#[test]
fn big_reduction_agrees_with_the_quick_one() {
    let mut rng = Rng(0x00de_ad00_0123);
    for i in 0..200_000 {
        let x = f64::from(rng.range(-1_048_575.0, 1_048_575.0));
        let x = if i % 2 == 0 {
            x
        } else {
            x * 2f64.powi(-((rng.next() % 20) as i32))
        };
        let (rs, ns) = super::reduce_small(x);
        let (rb, nb) = super::reduce_big(x);
        let near_edge = (rs.abs() - std::f64::consts::FRAC_PI_4).abs() < 1e-9;
        if !near_edge {
            assert_eq!(ns.rem_euclid(4), nb.rem_euclid(4), "quadrant of {x:e}");
            assert!(
                (rs - rb).abs() <= rs.abs() * 2f64.powi(-48) + 1e-300,
                "{x:e}: {rs:e} vs {rb:e}"
            );
        }
    }
}
