//! The geometric functions (`length`, `distance`, `normalize` and their `fast_` forms,
//! which Ferrite computes at full precision), for the scalar translator (one work-item's
//! components) and the vectoriser alike.
//!
//! Single precision: the components promoted to double, exactly, over values that are
//! `f64` scalars or `f64x2` vectors (the vectoriser gives two lanes of each component per
//! part), so both compute the same bits. In double the squares of any `float` neither
//! overflow nor underflow, and the one rounding is the caller's demotion to `float`.
//!
//! Double precision (scalars; the vectoriser calls them lane by lane): scaled by a power
//! of two taken from the largest magnitude first (exact).

use super::float_fns::{choose, copysign, konst};
use cranelift_codegen::ir::{condcodes::FloatCC, types, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;

/// `sqrt(Σ xᵢ²)` of `x` (floats promoted to double), not rounded to `float`; `None` for
/// no components.
pub(crate) fn length_in_f64(b: &mut FunctionBuilder, x: &[Value]) -> Option<Value> {
    let mut acc: Option<Value> = None;
    for v in x {
        let sq = b.ins().fmul(*v, *v);
        acc = Some(match acc {
            None => sq,
            Some(a) => b.ins().fadd(a, sq),
        });
    }
    Some(b.ins().sqrt(acc?))
}

/// `normalize`'s rules before the division, on doubles (`f64` or `f64x2`): `x` with,
/// where a component is infinite, infinities replaced by ±1 and the others by ±0; and
/// whether every component is zero (such a vector is returned unchanged).
fn normalize_rules(b: &mut FunctionBuilder, x: &[Value]) -> Option<(Vec<Value>, Value)> {
    let first = *x.first()?;
    let (inf, one, zero) = (
        konst(b, first, f64::INFINITY),
        konst(b, first, 1.0),
        konst(b, first, 0.0),
    );
    let mut any_inf = None;
    let mut all_zero = None;
    let mut is_inf = Vec::with_capacity(x.len());
    for v in x {
        let a = b.ins().fabs(*v);
        let i = b.ins().fcmp(FloatCC::Equal, a, inf);
        let z = b.ins().fcmp(FloatCC::Equal, *v, zero);
        is_inf.push(i);
        any_inf = Some(match any_inf {
            None => i,
            Some(p) => b.ins().bor(p, i),
        });
        all_zero = Some(match all_zero {
            None => z,
            Some(p) => b.ins().band(p, z),
        });
    }
    let (any_inf, all_zero) = (any_inf?, all_zero?);
    let y = x
        .iter()
        .zip(&is_inf)
        .map(|(v, i)| {
            let r = choose(b, *i, one, zero);
            let r = copysign(b, r, *v);
            choose(b, any_inf, r, *v)
        })
        .collect();
    Some((y, all_zero))
}

/// `y / len` per component, or `x` where `all_zero`.
fn divide_unless_zero(
    b: &mut FunctionBuilder,
    y: &[Value],
    len: Value,
    x: &[Value],
    all_zero: Value,
) -> Vec<Value> {
    y.iter()
        .zip(x)
        .map(|(v, orig)| {
            let q = b.ins().fdiv(*v, len);
            choose(b, all_zero, *orig, q)
        })
        .collect()
}

/// `normalize` of `x` (floats promoted to double), each component not yet rounded to
/// `float`: a zero vector unchanged; with an infinite component, infinities replaced by
/// ±1 and the others by ±0 first; NaN anywhere gives NaNs. The division is in double,
/// since the float length of e.g. `(-3.07e38, 2.24e38)` overflows.
pub(crate) fn normalize_in_f64(b: &mut FunctionBuilder, x: &[Value]) -> Option<Vec<Value>> {
    let (y, all_zero) = normalize_rules(b, x)?;
    let len = length_in_f64(b, &y)?;
    Some(divide_unless_zero(b, &y, len, x, all_zero))
}

/// Double `length`: `sqrt(Σ xᵢ²)` of `x` (scalar doubles) scaled by an exact power of two
/// first, so that `length((DBL_MAX, DBL_MAX))` is finite and the length of denormals is
/// not 0; `None` for no components.
pub(crate) fn length_f64(b: &mut FunctionBuilder, x: &[Value]) -> Option<Value> {
    let first = *x.first()?;
    let (scale, inv) = pow2_scale(b, x);
    let mut acc = None;
    for v in x {
        let s = b.ins().fmul(*v, scale);
        let sq = b.ins().fmul(s, s);
        acc = Some(match acc {
            None => sq,
            Some(a) => b.ins().fadd(a, sq),
        });
    }
    let l = b.ins().sqrt(acc.unwrap_or(first));
    let l = b.ins().fmul(l, inv);
    // ∞ in any element: the scale is 0 and the sum NaN; the length is ∞.
    let inf = b.ins().f64const(f64::INFINITY);
    let mut any_inf = None;
    for v in x {
        let a = b.ins().fabs(*v);
        let i = b.ins().fcmp(FloatCC::Equal, a, inf);
        any_inf = Some(match any_inf {
            None => i,
            Some(p) => b.ins().bor(p, i),
        });
    }
    Some(match any_inf {
        Some(i) => b.ins().select(i, inf, l),
        None => l,
    })
}

/// For scalar doubles `x`: `(2^-E, 2^E)` where `2^E` is about the largest magnitude (both
/// exact powers of two; `E` clamped so both stay normal).
fn pow2_scale(b: &mut FunctionBuilder, x: &[Value]) -> (Value, Value) {
    let mut m = b.ins().fabs(x[0]);
    for v in &x[1..] {
        let a = b.ins().fabs(*v);
        m = b.ins().fmax(m, a);
    }
    let bits = b.ins().bitcast(types::I64, MemFlagsData::new(), m);
    let e = b.ins().ushr_imm_s(bits, 52);
    let e = b.ins().band_imm_s(e, 0x7ff);
    // scale field = clamp(2046 − e, 1, 2045); inverse field = 2046 − scale field
    // (both in 1..=2045: normal, exact reciprocals).
    let k = b.ins().iconst(types::I64, 2046);
    let sf = b.ins().isub(k, e);
    let one = b.ins().iconst(types::I64, 1);
    let top = b.ins().iconst(types::I64, 2045);
    let sf = b.ins().smax(sf, one);
    let sf = b.ins().smin(sf, top);
    let inv_f = b.ins().isub(k, sf);
    let sb = b.ins().ishl_imm_s(sf, 52);
    let ib = b.ins().ishl_imm_s(inv_f, 52);
    let scale = b.ins().bitcast(types::F64, MemFlagsData::new(), sb);
    let inv = b.ins().bitcast(types::F64, MemFlagsData::new(), ib);
    (scale, inv)
}

/// Double `normalize` of `x` (scalar doubles): the rules of [`normalize_in_f64`], the
/// vector scaled by an exact power of two first and divided by its own length (the
/// unscaled length of e.g. `(DBL_MAX, DBL_MAX)` overflows).
pub(crate) fn normalize_f64(b: &mut FunctionBuilder, x: &[Value]) -> Option<Vec<Value>> {
    let (y, all_zero) = normalize_rules(b, x)?;
    let (scale, _) = pow2_scale(b, &y);
    let y: Vec<Value> = y.iter().map(|v| b.ins().fmul(*v, scale)).collect();
    let len = length_in_f64(b, &y)?;
    Some(divide_unless_zero(b, &y, len, x, all_zero))
}

/// `normalize` of `x` (every component) or its `length` (one value): of `float`s
/// promoted to double (`in_f64`: [`normalize_in_f64`], [`length_in_f64`]) or of doubles
/// ([`normalize_f64`], [`length_f64`]). `None` for no components.
pub(crate) fn length_or_normalize(
    b: &mut FunctionBuilder,
    x: &[Value],
    normalize: bool,
    in_f64: bool,
) -> Option<Vec<Value>> {
    match (normalize, in_f64) {
        (true, true) => normalize_in_f64(b, x),
        (false, true) => length_in_f64(b, x).map(|l| vec![l]),
        (true, false) => normalize_f64(b, x),
        (false, false) => length_f64(b, x).map(|l| vec![l]),
    }
}
