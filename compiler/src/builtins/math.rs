//! Double-precision implementations of the OpenCL.std math functions that neither a single
//! Cranelift instruction nor a libm function gives at the OpenCL accuracy, with the edge
//! cases of the OpenCL C specification (§7.5.1 "Additional Requirements Beyond C99 TC2").
//!
//! Single precision evaluates these in double and rounds once: an `f32` input is exact in
//! `f64`, the double result is within ~1 ulp of double, so the `f32` result is within
//! 0.5 ulp + 2⁻²⁹ ulp: inside every bound of the accuracy table (which start at 0.5 ulp
//! only for the exact functions Cranelift inlines).

use super::libm;
use std::f64::consts::PI;

/// `x` reduced modulo 2 into `[-1, 1]` (exact: `fmod` is exact, and so is the shift by 2).
fn reduce2(x: f64) -> f64 {
    let mut r = x % 2.0;
    if r > 1.0 {
        r -= 2.0;
    } else if r < -1.0 {
        r += 2.0;
    }
    r
}

/// `sin(πx)`: exact reduction, zeros with the sign of `x`.
pub fn sinpi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let mut r = reduce2(x);
    if r > 0.5 {
        r = 1.0 - r;
    } else if r < -0.5 {
        r = -1.0 - r;
    }
    if r == 0.0 {
        return 0.0f64.copysign(x);
    }
    (r * PI).sin()
}

/// `cos(πx)`: exact reduction, zeros are `+0`.
pub fn cospi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let mut r = (x % 2.0).abs();
    if r > 1.0 {
        r = 2.0 - r;
    }
    if r < 0.25 {
        (r * PI).cos()
    } else {
        // cos(πr) = sin(π(½ − r)); ½ − r is exact for r ≥ ¼.
        ((0.5 - r) * PI).sin()
    }
}

/// `tan(πx)`: the CTS reference's reduction (signed zeros at integers, infinities at odd
/// multiples of ½).
pub fn tanpi(x: f64) -> f64 {
    let mut sign = 1.0f64.copysign(x);
    let mut z = x.abs();
    if z.is_infinite() || z.is_nan() {
        return f64::NAN;
    }
    if z >= 9007199254740992.0 {
        // Every double from 2⁵³ on is an even integer.
        return 0.0f64.copysign(x);
    }
    let nearest = z.round_ties_even();
    let i = nearest as i64;
    z -= nearest;
    if i & 1 == 1 && z == 0.0 {
        sign = -sign;
    }
    sign *= 1.0f64.copysign(z);
    z = z.abs();
    if z > 0.25 {
        z = 0.5 - z;
        return sign / (z * PI).tan();
    }
    sign * (z * PI).tan()
}

pub fn asinpi(x: f64) -> f64 {
    x.asin() / PI
}

pub fn acospi(x: f64) -> f64 {
    x.acos() / PI
}

pub fn atanpi(x: f64) -> f64 {
    x.atan() / PI
}

pub fn atan2pi(y: f64, x: f64) -> f64 {
    y.atan2(x) / PI
}

/// `pown(x, n)`: `pow` with an integer exponent (exact in double, so libm's `pow` gives
/// the correctly rounded power whatever `n`).
pub fn pown(x: f64, n: i32) -> f64 {
    x.powf(f64::from(n))
}

/// `powr(x, y)`: `pow` for `x ≥ 0` only, with its own special cases.
pub fn powr(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return if y == 0.0 {
            f64::NAN
        } else if y < 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
    }
    if x.is_infinite() {
        return if y == 0.0 {
            f64::NAN
        } else if y < 0.0 {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if x == 1.0 {
        return if y.is_infinite() { f64::NAN } else { 1.0 };
    }
    x.powf(y)
}

/// `rootn(x, n)`: the real `n`-th root. `pow(x, 1/n)` misses by up to `|ln x| / n` ulp
/// (1/n is rounded), so one Newton step on `yⁿ = x` follows.
pub fn rootn(x: f64, n: i32) -> f64 {
    let odd = n & 1 != 0;
    if n == 0 || x.is_nan() || (x < 0.0 && !odd) {
        return f64::NAN;
    }
    if x == 0.0 {
        return match (n < 0, odd) {
            (true, true) => f64::INFINITY.copysign(x),
            (true, false) => f64::INFINITY,
            (false, true) => x,
            (false, false) => 0.0,
        };
    }
    if x.is_infinite() {
        return match (n < 0, odd) {
            (true, true) => 0.0f64.copysign(x),
            (true, false) => 0.0,
            (false, true) => x,
            (false, false) => f64::INFINITY,
        };
    }
    let a = x.abs();
    let nf = f64::from(n);
    if n.unsigned_abs() > 1000 {
        // pow(a, 1/n) misses by at most |ln a| / |n| < 1 ulp here.
        return a.powf(1.0 / nf).copysign(x);
    }
    // a = c · 2^(q|n|) with c = m · 2^r in [½, 2^|n|): the root is c^(1/n) · 2^(±q), and
    // c's power stays finite for the Newton step.
    let (m, e) = libm::frexp_parts(a);
    let k = n.unsigned_abs() as i32;
    let (q, r) = (e.div_euclid(k), e.rem_euclid(k));
    let c = libm::ldexp(m, r);
    let mut y = c.powf(1.0 / nf);
    let d = y.powf(nf);
    if d.is_finite() && d != 0.0 && y.is_finite() && y != 0.0 {
        let corr = y * ((d - c) / (nf * d));
        if corr.is_finite() {
            y -= corr;
        }
    }
    let y = libm::ldexp(y, if n > 0 { q } else { -q });
    y.copysign(x)
}

/// `ilogb` with OpenCL's `FP_ILOGB0` (`INT_MIN`) and `FP_ILOGBNAN` (`INT_MAX`).
pub fn ilogb(x: f64) -> i32 {
    if x == 0.0 {
        i32::MIN
    } else if x.is_nan() || x.is_infinite() {
        i32::MAX
    } else {
        libm::frexp_parts(x).1 - 1
    }
}

/// Mantissa of `frexp` (`x` itself for 0, ∞ and NaN).
pub fn frexp_mant(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    libm::frexp_parts(x).0
}

/// Exponent of `frexp` (0 for 0, ∞ and NaN).
pub fn frexp_exp(x: f64) -> i32 {
    if x == 0.0 || !x.is_finite() {
        return 0;
    }
    libm::frexp_parts(x).1
}

pub fn lgamma(x: f64) -> f64 {
    libm::lgamma_with_sign(x).0
}

/// The sign `lgamma_r` stores: `±1`, 0 at the poles (non-positive integers) and for NaN.
pub fn lgamma_sign(x: f64) -> i32 {
    if x.is_nan() || (x <= 0.0 && x == x.floor()) {
        return 0;
    }
    libm::lgamma_with_sign(x).1
}

/// The quotient `remquo` stores: the sign of `x / y` and the 7 low bits of the integral
/// quotient rounded to nearest even (OpenCL asks for at least 7; glibc gives 3). The
/// remainder itself is `remainder(x, y)`.
pub fn remquo_quo(x: f64, y: f64) -> i32 {
    if x.is_nan() || y.is_nan() || x.is_infinite() || y == 0.0 {
        return 0;
    }
    let ay = y.abs();
    let big = ay * 128.0;
    // |x| mod 128|y| is exact; what remains is below 128|y|.
    let mut m = if big.is_finite() {
        x.abs() % big
    } else {
        x.abs()
    };
    let mut k = 0i32;
    for b in (0..7).rev() {
        let step = ay * f64::from(1u32 << b);
        if step.is_finite() && m >= step {
            // Sterbenz: step ≤ m < 2·step, the difference is exact.
            m -= step;
            k |= 1 << b;
        }
    }
    let h = ay - m;
    if m > h || (m == h && k & 1 == 1) {
        k += 1;
    }
    let q = k & 127;
    if (x < 0.0) != (y < 0.0) {
        -q
    } else {
        q
    }
}

/// `fract` is inline; `round` (half away from zero) is Rust's.
pub fn round(x: f64) -> f64 {
    x.round()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trig_pi_edges() {
        assert_eq!(sinpi(1.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(sinpi(-2.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(sinpi(0.5), 1.0);
        assert_eq!(sinpi(-1.5), 1.0);
        assert_eq!(cospi(0.5).to_bits(), 0.0f64.to_bits());
        assert_eq!(cospi(1.0), -1.0);
        assert_eq!(cospi(1e300), 1.0);
        assert!(tanpi(0.5).is_infinite());
        assert_eq!(tanpi(1.0).to_bits(), (-0.0f64).to_bits());
        assert!((tanpi(0.25) - 1.0).abs() < 1e-15);
    }

    #[test]
    fn roots_and_powers() {
        assert_eq!(rootn(-8.0, 3), -2.0);
        assert!(rootn(-8.0, 2).is_nan());
        assert_eq!(rootn(-0.0, -3), f64::NEG_INFINITY);
        assert_eq!(rootn(1e300, 3), 1e100);
        let big = rootn(-f64::MAX, 3);
        assert!((big + f64::MAX.cbrt()).abs() <= f64::MAX.cbrt() * 2.0 * f64::EPSILON);
        assert_eq!(rootn(8.0, -3), 0.5);
        assert!(powr(-1.0, 2.0).is_nan());
        assert!(powr(1.0, f64::INFINITY).is_nan());
        assert_eq!(pown(-2.0, 3), -8.0);
    }

    #[test]
    fn remquo_quotients() {
        assert_eq!(remquo_quo(7.0, 2.0), 4); // 3.5 → 4 (even)
        assert_eq!(remquo_quo(5.0, 2.0), 2); // 2.5 → 2
        assert_eq!(remquo_quo(-7.0, 2.0), -4);
        assert_eq!(remquo_quo(1000.0, 1.0), 1000 & 127);
        assert_eq!(ilogb(0.0), i32::MIN);
        assert_eq!(ilogb(f64::NAN), i32::MAX);
        assert_eq!(ilogb(f64::from(f32::from_bits(1))), -149);
    }
}
