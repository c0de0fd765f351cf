//! The single-precision geometric functions (`length`, `distance`, `normalize` and their
//! `fast_` forms, which Ferrite computes at full precision) on the components of a `float`
//! vector promoted to double, exactly: written once over values that are `f64` scalars
//! or `f64x2` vectors, so the scalar translator (one work-item's components) and the
//! vectoriser (two lanes of each component per part) compute the same bits. In double
//! the squares of any `float` neither overflow nor underflow, and the one rounding is the
//! caller's demotion to `float`.

use super::float_fns::{choose, copysign, konst};
use cranelift_codegen::ir::{condcodes::FloatCC, InstBuilder, Value};
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

/// `normalize` of `x` (floats promoted to double), each component not yet rounded to
/// `float`: a zero vector unchanged; with an infinite component, infinities replaced by
/// ±1 and the others by ±0 first; NaN anywhere gives NaNs. The division is in double,
/// since the float length of e.g. `(-3.07e38, 2.24e38)` overflows.
pub(crate) fn normalize_in_f64(b: &mut FunctionBuilder, x: &[Value]) -> Option<Vec<Value>> {
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
    let y: Vec<Value> = x
        .iter()
        .zip(&is_inf)
        .map(|(v, i)| {
            let r = choose(b, *i, one, zero);
            let r = copysign(b, r, *v);
            choose(b, any_inf, r, *v)
        })
        .collect();
    let len = length_in_f64(b, &y)?;
    Some(
        y.iter()
            .zip(x)
            .map(|(v, orig)| {
                let q = b.ins().fdiv(*v, len);
                choose(b, all_zero, *orig, q)
            })
            .collect(),
    )
}
