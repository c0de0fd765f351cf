//! The C math library functions Ferrite calls from Rust that `std` does not wrap (or wraps
//! with its own, less accurate code: `asinh`/`acosh`/`atanh`). glibc's double-precision
//! functions are within 1 ulp (most correctly rounded), which is what the OpenCL accuracy
//! tables need once single precision is evaluated in double (see `builtins/math.rs`).
//!
//! These are plain value-in/value-out C functions (the pointer-output ones take a pointer
//! to a local), declared `safe` in an `unsafe extern` block: the one unsafe promise is the
//! signature, which is the C standard's.

unsafe extern "C" {
    pub safe fn asinh(x: f64) -> f64;
    pub safe fn acosh(x: f64) -> f64;
    pub safe fn atanh(x: f64) -> f64;
    pub safe fn exp10(x: f64) -> f64;
    pub safe fn erf(x: f64) -> f64;
    pub safe fn erfc(x: f64) -> f64;
    pub safe fn tgamma(x: f64) -> f64;
    pub safe fn logb(x: f64) -> f64;
    pub safe fn remainder(x: f64, y: f64) -> f64;
    pub safe fn nextafter(x: f64, y: f64) -> f64;
    pub safe fn nextafterf(x: f32, y: f32) -> f32;
    pub safe fn ldexp(x: f64, e: i32) -> f64;
    pub safe fn ldexpf(x: f32, e: i32) -> f32;
    pub safe fn expm1(x: f64) -> f64;
    pub safe fn log1p(x: f64) -> f64;
    fn lgamma_r(x: f64, sign: *mut i32) -> f64;
    fn frexp(x: f64, e: *mut i32) -> f64;
}

/// `lgamma_r`: `ln|Γ(x)|` and the sign of `Γ(x)`.
pub fn lgamma_with_sign(x: f64) -> (f64, i32) {
    let mut sign = 0i32;
    // SAFETY: `sign` is a live, writable `i32` for the duration of the call; `lgamma_r`
    // writes exactly one `int` through it (C99/POSIX signature).
    let r = unsafe { lgamma_r(x, &mut sign) };
    (r, sign)
}

/// `frexp`: mantissa in `[0.5, 1)` and exponent.
pub fn frexp_parts(x: f64) -> (f64, i32) {
    let mut e = 0i32;
    // SAFETY: `e` is a live, writable `i32`; `frexp` writes one `int` through it.
    let m = unsafe { frexp(x, &mut e) };
    (m, e)
}
