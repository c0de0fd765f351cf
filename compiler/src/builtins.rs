//! The one list of math builtins that generated code calls instead of inlining: name,
//! signature and implementation together. [`all`] is what both sides use: the JIT
//! registers each `addr` under its `name`, codegen declares the signature from `params`/`ret`.
//!
//! Implementations are Rust's `f32`/`f64` methods (which call the platform libm) where the
//! standard library has the function; the few it lacks (`erf`, `tgamma`, …) are libm symbols
//! looked up by name in the process (`Impl::Libm`), since Rust std links libm on every
//! supported target. Exact operations (`sqrt`, `fma`, `floor`, `fabs`, …) are not here:
//! they are single Cranelift instructions (see `codegen/extinst.rs`).

/// A value type in a builtin's signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BTy {
    F32,
    F64,
    I32,
}

trait Abi {
    const TY: BTy;
}
impl Abi for f32 {
    const TY: BTy = BTy::F32;
}
impl Abi for f64 {
    const TY: BTy = BTy::F64;
}
impl Abi for i32 {
    const TY: BTy = BTy::I32;
}

/// Where a builtin's code comes from.
#[derive(Clone, Copy, Debug)]
pub enum Impl {
    /// A function in this crate.
    Rust(*const u8),
    /// A C math library symbol, resolved by the JIT's default symbol lookup.
    Libm,
}

#[derive(Clone, Debug)]
pub struct Builtin {
    /// The symbol name the JIT knows it by.
    pub name: &'static str,
    pub params: &'static [BTy],
    pub ret: BTy,
    pub imp: Impl,
}

macro_rules! rust_builtins {
    ($($name:ident($($a:ident: $t:ty),*) -> $r:ty $body:block)*) => {
        $(
            extern "C" fn $name($($a: $t),*) -> $r $body
        )*
        fn rust_list() -> Vec<Builtin> {
            vec![$(Builtin {
                name: stringify!($name),
                params: &[$(<$t as Abi>::TY),*],
                ret: <$r as Abi>::TY,
                imp: Impl::Rust($name as *const u8),
            }),*]
        }
    };
}

macro_rules! libm_builtins {
    ($($name:ident($($t:ident),*) -> $r:ident;)*) => {
        fn libm_list() -> Vec<Builtin> {
            vec![$(Builtin {
                name: stringify!($name),
                params: &[$(BTy::$t),*],
                ret: BTy::$r,
                imp: Impl::Libm,
            }),*]
        }
    };
}

rust_builtins! {
    ferrite_sinf(x: f32) -> f32 { x.sin() }
    ferrite_cosf(x: f32) -> f32 { x.cos() }
    ferrite_tanf(x: f32) -> f32 { x.tan() }
    ferrite_asinf(x: f32) -> f32 { x.asin() }
    ferrite_acosf(x: f32) -> f32 { x.acos() }
    ferrite_atanf(x: f32) -> f32 { x.atan() }
    ferrite_atan2f(y: f32, x: f32) -> f32 { y.atan2(x) }
    ferrite_sinhf(x: f32) -> f32 { x.sinh() }
    ferrite_coshf(x: f32) -> f32 { x.cosh() }
    ferrite_tanhf(x: f32) -> f32 { x.tanh() }
    ferrite_asinhf(x: f32) -> f32 { x.asinh() }
    ferrite_acoshf(x: f32) -> f32 { x.acosh() }
    ferrite_atanhf(x: f32) -> f32 { x.atanh() }
    ferrite_expf(x: f32) -> f32 { x.exp() }
    ferrite_exp2f(x: f32) -> f32 { x.exp2() }
    ferrite_exp10f(x: f32) -> f32 { 10f32.powf(x) }
    ferrite_expm1f(x: f32) -> f32 { x.exp_m1() }
    ferrite_logf(x: f32) -> f32 { x.ln() }
    ferrite_log2f(x: f32) -> f32 { x.log2() }
    ferrite_log10f(x: f32) -> f32 { x.log10() }
    ferrite_log1pf(x: f32) -> f32 { x.ln_1p() }
    ferrite_cbrtf(x: f32) -> f32 { x.cbrt() }
    ferrite_powf(x: f32, y: f32) -> f32 { x.powf(y) }
    ferrite_hypotf(x: f32, y: f32) -> f32 { x.hypot(y) }
    ferrite_fmodf(x: f32, y: f32) -> f32 { x % y }
    ferrite_roundf(x: f32) -> f32 { x.round() }
    ferrite_sinpif(x: f32) -> f32 { (f64::from(x) * std::f64::consts::PI).sin() as f32 }
    ferrite_cospif(x: f32) -> f32 { (f64::from(x) * std::f64::consts::PI).cos() as f32 }
    ferrite_tanpif(x: f32) -> f32 { (f64::from(x) * std::f64::consts::PI).tan() as f32 }
    ferrite_powif(x: f32, n: i32) -> f32 { f64::from(x).powi(n) as f32 }
    ferrite_rootnf(x: f32, n: i32) -> f32 { rootn(f64::from(x), n) as f32 }
    ferrite_sin(x: f64) -> f64 { x.sin() }
    ferrite_cos(x: f64) -> f64 { x.cos() }
    ferrite_tan(x: f64) -> f64 { x.tan() }
    ferrite_asin(x: f64) -> f64 { x.asin() }
    ferrite_acos(x: f64) -> f64 { x.acos() }
    ferrite_atan(x: f64) -> f64 { x.atan() }
    ferrite_atan2(y: f64, x: f64) -> f64 { y.atan2(x) }
    ferrite_sinh(x: f64) -> f64 { x.sinh() }
    ferrite_cosh(x: f64) -> f64 { x.cosh() }
    ferrite_tanh(x: f64) -> f64 { x.tanh() }
    ferrite_asinh(x: f64) -> f64 { x.asinh() }
    ferrite_acosh(x: f64) -> f64 { x.acosh() }
    ferrite_atanh(x: f64) -> f64 { x.atanh() }
    ferrite_exp(x: f64) -> f64 { x.exp() }
    ferrite_exp2(x: f64) -> f64 { x.exp2() }
    ferrite_exp10(x: f64) -> f64 { 10f64.powf(x) }
    ferrite_expm1(x: f64) -> f64 { x.exp_m1() }
    ferrite_log(x: f64) -> f64 { x.ln() }
    ferrite_log2(x: f64) -> f64 { x.log2() }
    ferrite_log10(x: f64) -> f64 { x.log10() }
    ferrite_log1p(x: f64) -> f64 { x.ln_1p() }
    ferrite_cbrt(x: f64) -> f64 { x.cbrt() }
    ferrite_pow(x: f64, y: f64) -> f64 { x.powf(y) }
    ferrite_hypot(x: f64, y: f64) -> f64 { x.hypot(y) }
    ferrite_fmod(x: f64, y: f64) -> f64 { x % y }
    ferrite_round(x: f64) -> f64 { x.round() }
    ferrite_sinpi(x: f64) -> f64 { (x * std::f64::consts::PI).sin() }
    ferrite_cospi(x: f64) -> f64 { (x * std::f64::consts::PI).cos() }
    ferrite_tanpi(x: f64) -> f64 { (x * std::f64::consts::PI).tan() }
    ferrite_powi(x: f64, n: i32) -> f64 { x.powi(n) }
    ferrite_rootn(x: f64, n: i32) -> f64 { rootn(x, n) }
}

libm_builtins! {
    erff(F32) -> F32;
    erfcf(F32) -> F32;
    tgammaf(F32) -> F32;
    lgammaf(F32) -> F32;
    logbf(F32) -> F32;
    remainderf(F32, F32) -> F32;
    nextafterf(F32, F32) -> F32;
    ldexpf(F32, I32) -> F32;
    ilogbf(F32) -> I32;
    erf(F64) -> F64;
    erfc(F64) -> F64;
    tgamma(F64) -> F64;
    lgamma(F64) -> F64;
    logb(F64) -> F64;
    remainder(F64, F64) -> F64;
    nextafter(F64, F64) -> F64;
    ldexp(F64, I32) -> F64;
    ilogb(F64) -> I32;
}

/// `rootn(x, n)`: the real `n`-th root, odd roots of negative numbers included.
fn rootn(x: f64, n: i32) -> f64 {
    if n == 0 {
        return f64::NAN;
    }
    let r = 1.0 / f64::from(n);
    if x < 0.0 {
        if n % 2 != 0 {
            -(-x).powf(r)
        } else {
            f64::NAN
        }
    } else {
        x.powf(r)
    }
}

/// Every builtin.
pub fn all() -> Vec<Builtin> {
    let mut v = rust_list();
    v.extend(libm_list());
    v
}

/// The builtin for an OpenCL math function of the given element type, by base name
/// (`"sin"` → `ferrite_sinf` for `f32`, `ferrite_sin` for `f64`).
pub fn lookup(base: &str, f64_: bool) -> Option<Builtin> {
    let rust = if f64_ {
        format!("ferrite_{base}")
    } else {
        format!("ferrite_{base}f")
    };
    let libm = if f64_ {
        base.to_string()
    } else {
        format!("{base}f")
    };
    all()
        .into_iter()
        .find(|b| b.name == rust || (matches!(b.imp, Impl::Libm) && b.name == libm))
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_unique_and_lookup_finds_both_widths() {
        let all = super::all();
        let mut names: Vec<_> = all.iter().map(|b| b.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len());
        for base in ["sin", "pow", "erf", "ldexp", "powi"] {
            assert!(super::lookup(base, false).is_some(), "{base}f");
            assert!(super::lookup(base, true).is_some(), "{base}");
        }
    }
}
