//! Conversions with an explicit rounding mode (`convert_T_rtz/rtp/rtn`, `vstore_half_r*`)
//! that Cranelift, which only rounds to nearest, cannot express: take the nearest result,
//! compare it back with the exact value and step to the neighbour when it is on the wrong
//! side. Modes are SPIR-V `FPRoundingMode` values.

/// SPIR-V `FPRoundingMode`.
pub const RTE: i32 = 0;
pub const RTZ: i32 = 1;
pub const RTP: i32 = 2;
pub const RTN: i32 = 3;

/// Fix the nearest float `r` of an exact value for `mode`; `cmp` tells where `r` lies
/// relative to the exact value (`Greater`: `r` is above it). `up`/`down` step to the next
/// representable value of `r`'s type.
fn fix<T: PartialOrd + Default>(
    r: T,
    cmp: std::cmp::Ordering,
    mode: i32,
    up: fn(T) -> T,
    down: fn(T) -> T,
) -> T {
    use std::cmp::Ordering::*;
    let zero = T::default();
    match (mode, cmp) {
        (_, Equal) | (RTE, _) => r,
        (RTZ, Greater) if r > zero => down(r),
        (RTZ, Less) if r < zero => up(r),
        (RTP, Less) => up(r),
        (RTN, Greater) => down(r),
        _ => r,
    }
}

fn fix_f32(r: f32, cmp: std::cmp::Ordering, mode: i32) -> f32 {
    fix(r, cmp, mode, f32::next_up, f32::next_down)
}

fn fix_f64(r: f64, cmp: std::cmp::Ordering, mode: i32) -> f64 {
    fix(r, cmp, mode, f64::next_up, f64::next_down)
}

/// `double → float` with `mode` (NaN stays NaN; overflow follows the mode).
pub fn f64_to_f32(x: f64, mode: i32) -> f32 {
    let r = x as f32;
    if r.is_nan() {
        return r;
    }
    let back = f64::from(r);
    match back.partial_cmp(&x) {
        Some(c) => fix_f32(r, c, mode),
        None => r,
    }
}

/// A 64-bit integer (`i128` holds both signednesses) → `float` with `mode`.
pub fn int_to_f32(x: i128, mode: i32) -> f32 {
    let r = x as f32;
    // |r| ≤ 2^127: the integer value of `r` is exact in `i128` unless r = 2^127 (which a
    // 64-bit source never reaches).
    fix_f32(r, (r as i128).cmp(&x), mode)
}

/// A 64-bit integer → `double` with `mode`.
pub fn int_to_f64(x: i128, mode: i32) -> f64 {
    let r = x as f64;
    fix_f64(r, (r as i128).cmp(&x), mode)
}

/// IEEE half bits → `float` (exact).
pub fn half_to_f32(h: u16) -> f32 {
    let s = u32::from(h & 0x8000) << 16;
    let e = u32::from((h >> 10) & 0x1f);
    let m = u32::from(h & 0x3ff);
    match e {
        // m × 2⁻²⁴, exact.
        0 => f32::from_bits((m as f32 * f32::from_bits(0x3380_0000)).to_bits() | s),
        31 => f32::from_bits(s | 0x7f80_0000 | (m << 13)),
        _ => f32::from_bits(s | ((e + 112) << 23) | (m << 13)),
    }
}

/// `nextafter` of two halves (held in `f32`s): the next half after `x` toward `y`.
pub fn nextafter_half(x: f32, y: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    if x == y {
        return y;
    }
    let h = f64_to_half(x.into(), RTE);
    let next = if x == 0.0 {
        // The smallest subnormal of `y`'s sign.
        if y > 0.0 {
            1
        } else {
            0x8001
        }
    } else if (y > x) == (x > 0.0) {
        h + 1
    } else {
        h - 1
    };
    half_to_f32(next)
}

/// `double` (exact for any `float`) → IEEE half bits with `mode`.
pub fn f64_to_half(x: f64, mode: i32) -> u16 {
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return sign | 0x7e00;
    }
    let a = x.abs();
    let neg = sign != 0;
    // Rounding of the magnitude: toward zero for RTZ and for RTP/RTN away from their
    // direction, away from zero for RTP (positive) / RTN (negative).
    let (up, nearest) = match mode {
        RTZ => (false, false),
        RTP => (!neg, false),
        RTN => (neg, false),
        _ => (false, true),
    };
    let round = |t: f64| -> f64 {
        if nearest {
            t.round_ties_even()
        } else if up {
            t.ceil()
        } else {
            t.floor()
        }
    };
    let overflow = || -> u16 {
        if nearest || up {
            sign | 0x7c00
        } else {
            sign | 0x7bff
        }
    };
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    if a < f64::from(f32::from_bits(0x3880_0000)) {
        // Below 2⁻¹⁴: a denormal half, units of 2⁻²⁴ (a × 2²⁴ is exact).
        let q = round(a * 16_777_216.0) as u16; // ≤ 1024: 1024 is the smallest normal
        return sign | q;
    }
    let e = super::math::frexp_exp(a) - 1; // a = 1.f × 2^e
    if e > 15 {
        return overflow();
    }
    let m = round(a * 2f64.powi(10 - e)); // in [1024, 2048]
    let (mut e, mut m) = (e, m as u32);
    if m == 2048 {
        m = 1024;
        e += 1;
        if e > 15 {
            return overflow();
        }
    }
    sign | (((e + 15) as u16) << 10) | (m as u16 & 0x3ff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directed_int_to_float() {
        let x: i128 = (1 << 24) + 1; // between two floats
        assert_eq!(int_to_f32(x, RTE), 16777216.0);
        assert_eq!(int_to_f32(x, RTZ), 16777216.0);
        assert_eq!(int_to_f32(x, RTP), 16777218.0);
        assert_eq!(int_to_f32(-x, RTP), -16777216.0);
        assert_eq!(int_to_f32(-x, RTN), -16777218.0);
        assert_eq!(int_to_f32(u64::MAX.into(), RTZ), 18446742974197923840.0);
        assert_eq!(int_to_f64(u64::MAX.into(), RTZ), 18446744073709549568.0);
    }

    #[test]
    fn directed_double_to_float() {
        let x = 1.0 + f64::EPSILON;
        assert_eq!(f64_to_f32(x, RTE), 1.0);
        assert_eq!(f64_to_f32(x, RTP), 1.0f32.next_up());
        assert_eq!(f64_to_f32(-x, RTN), -(1.0f32.next_up()));
        assert_eq!(f64_to_f32(1e300, RTZ), f32::MAX);
        assert_eq!(f64_to_f32(1e300, RTE), f32::INFINITY);
        assert_eq!(f64_to_f32(-1e300, RTP), f32::MIN);
    }

    #[test]
    fn halves() {
        for h in 0..=0xffffu16 {
            let f = half_to_f32(h);
            if f.is_nan() {
                continue;
            }
            for mode in [RTE, RTZ, RTP, RTN] {
                assert_eq!(f64_to_half(f.into(), mode), h, "{h:#x} mode {mode}");
            }
        }
        assert_eq!(f64_to_half(65520.0, RTE), 0x7c00);
        assert_eq!(f64_to_half(65520.0, RTZ), 0x7bff);
        assert_eq!(f64_to_half(1.0 + 1.0 / 2048.0, RTE), 0x3c00);
        assert_eq!(f64_to_half(1.0 + 1.0 / 2048.0, RTP), 0x3c01);
        assert_eq!(f64_to_half(-1e-10, RTN), 0x8001);
        assert_eq!(f64_to_half(1e-10, RTZ), 0);
    }
}
