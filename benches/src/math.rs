//! Math-library throughput: Black-Scholes (`log`, `exp`, `sqrt`, `erfc`) and one kernel per
//! builtin, `out[i] = fn(in[i])`, over inputs in the function's ordinary domain. These are
//! speed cases: the host check against an `f64` reference is loose (1e-4 relative plus a
//! small absolute term), enough to catch a wrong or missing result, not to grade ULPs.

use crate::cl::{bytes_of, Device, Result};
use crate::{close, expect_with, read_f32, uniform, Iteration, M16};

/// Call and put prices; the normal CDF is `0.5 erfc(-d / sqrt(2))`.
pub(crate) const BLACKSCHOLES: &str = "float cnd(float d) { return 0.5f * erfc(-d * M_SQRT1_2_F); }
kernel void blackscholes(global const float* price, global const float* strike,
                         global const float* years, global float* call, global float* put,
                         float r, float v) {
    size_t i = get_global_id(0);
    float s = price[i], k = strike[i], t = years[i];
    float sqrt_t = sqrt(t);
    float d1 = (log(s / k) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
    float d2 = d1 - v * sqrt_t;
    float discount = exp(-r * t);
    call[i] = s * cnd(d1) - k * discount * cnd(d2);
    put[i] = k * discount * cnd(-d2) - s * cnd(-d1);
}";

/// `erfc` for the host reference, good to a relative 1.2e-7 everywhere (Numerical
/// Recipes' `erfcc`, a Chebyshev fit); independent of the C library the drivers may use.
fn erfc_ref(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

pub fn blackscholes(d: &Device) -> Result<Iteration<'_>> {
    const N: usize = 4 << 20;
    const R: f32 = 0.02;
    const V: f32 = 0.30;
    let s = uniform(N, 51, 5.0, 30.0);
    let k = uniform(N, 52, 1.0, 100.0);
    let t = uniform(N, 53, 0.25, 10.0);
    let bs = d.buffer(N * 4, Some(bytes_of(&s)))?;
    let bk = d.buffer(N * 4, Some(bytes_of(&k)))?;
    let bt = d.buffer(N * 4, Some(bytes_of(&t)))?;
    let bcall = d.buffer(N * 4, None)?;
    let bput = d.buffer(N * 4, None)?;
    let p = d.program_from_source(BLACKSCHOLES, "")?;
    let kernel = p.kernel("blackscholes")?;
    kernel
        .buf(0, &bs)?
        .buf(1, &bk)?
        .buf(2, &bt)?
        .buf(3, &bcall)?
        .buf(4, &bput)?
        .arg(5, &R)?
        .arg(6, &V)?;
    d.enqueue(&kernel, &[N], None)?;
    let call = read_f32(d, &bcall, N)?;
    let put = read_f32(d, &bput, N)?;
    let (r, v) = (f64::from(R), f64::from(V));
    let cnd = |x: f64| 0.5 * erfc_ref(-x / std::f64::consts::SQRT_2);
    for i in 0..N {
        let (s, k, t) = (f64::from(s[i]), f64::from(k[i]), f64::from(t[i]));
        let d1 = ((s / k).ln() + (r + 0.5 * v * v) * t) / (v * t.sqrt());
        let d2 = d1 - v * t.sqrt();
        let discount = (-r * t).exp();
        let want_call = s * cnd(d1) - k * discount * cnd(d2);
        let want_put = k * discount * cnd(-d2) - s * cnd(-d1);
        // Prices are differences of terms up to 100: 1e-3 absolute is float noise there.
        expect_with(
            close(call[i], want_call, 1e-4, 1e-3) && close(put[i], want_put, 1e-4, 1e-3),
            || {
                format!(
                    "blackscholes option {i}: call {} (want {want_call}), put {} (want {want_put})",
                    call[i], put[i]
                )
            },
        )?;
    }
    Ok(Box::new(move || {
        let _keep = (&p, &bs, &bk, &bt, &bcall, &bput);
        d.enqueue(&kernel, &[N], None)?;
        d.finish()
    }))
}

/// One builtin over 16M floats: `name(in[i])`, or `name(x[i], y[i])` when `second` gives
/// the second input's domain.
fn builtin<'a>(
    d: &'a Device,
    name: &str,
    domain: (f32, f32),
    second: Option<(f32, f32)>,
    reference: fn(f64, f64) -> f64,
) -> Result<Iteration<'a>> {
    let src = if second.is_some() {
        format!(
            "kernel void f(global const float* x, global const float* y, global float* out) {{
    size_t i = get_global_id(0);
    out[i] = {name}(x[i], y[i]);
}}"
        )
    } else {
        format!(
            "kernel void f(global const float* x, global const float* y, global float* out) {{
    size_t i = get_global_id(0);
    out[i] = {name}(x[i]);
}}"
        )
    };
    let x = uniform(M16, 61, domain.0, domain.1);
    let (lo, hi) = second.unwrap_or((0.0, 0.0));
    let y = uniform(M16, 62, lo, hi);
    let bx = d.buffer(M16 * 4, Some(bytes_of(&x)))?;
    let by = d.buffer(M16 * 4, Some(bytes_of(&y)))?;
    let bout = d.buffer(M16 * 4, None)?;
    let p = d.program_from_source(&src, "")?;
    let k = p.kernel("f")?;
    k.buf(0, &bx)?.buf(1, &by)?.buf(2, &bout)?;
    d.enqueue(&k, &[M16], None)?;
    let out = read_f32(d, &bout, M16)?;
    for (i, got) in out.iter().enumerate() {
        let want = reference(f64::from(x[i]), f64::from(y[i]));
        expect_with(close(*got, want, 1e-4, 1e-5), || {
            format!("{name}({}, {}) = {got} (want {want})", x[i], y[i])
        })?;
    }
    Ok(Box::new(move || {
        let _keep = (&p, &bx, &by, &bout);
        d.enqueue(&k, &[M16], None)?;
        d.finish()
    }))
}

pub fn exp(d: &Device) -> Result<Iteration<'_>> {
    builtin(d, "exp", (-10.0, 10.0), None, |x, _| x.exp())
}

pub fn log(d: &Device) -> Result<Iteration<'_>> {
    builtin(d, "log", (0.01, 100.0), None, |x, _| x.ln())
}

pub fn sin(d: &Device) -> Result<Iteration<'_>> {
    builtin(d, "sin", (-100.0, 100.0), None, |x, _| x.sin())
}

pub fn cos(d: &Device) -> Result<Iteration<'_>> {
    builtin(d, "cos", (-100.0, 100.0), None, |x, _| x.cos())
}

pub fn pow(d: &Device) -> Result<Iteration<'_>> {
    builtin(d, "pow", (0.1, 10.0), Some((-4.0, 4.0)), f64::powf)
}

pub fn erf(d: &Device) -> Result<Iteration<'_>> {
    builtin(d, "erf", (-4.0, 4.0), None, |x, _| 1.0 - erfc_ref(x))
}
