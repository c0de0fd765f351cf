//! The entry points against the scalar built-ins: every width gives the same bits, and so
//! does the plain build of the lane functions (what AArch64 runs; its `mul_add` is the C
//! library's `fma` on x86-64) wherever the AVX2 build runs. And `#[ignore]`d: every `f32`
//! input through the entry points, and a measurement of ns per element against glibc
//! called once per element.

use super::*;

/// Special values, every 2¹⁶-th bit pattern, random bits and random values in ±120
/// (a multiple of 8 inputs).
pub(in super::super) fn inputs() -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        f32::from_bits(1),
        f32::MIN_POSITIVE,
        1.0,
        -1.0,
        0.5,
        f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1048576.0,
        -3e30,
        88.8,
        -104.0,
        10.06,
    ];
    let mut b = 0u64;
    while b < 1 << 32 {
        v.push(f32::from_bits(b as u32));
        b += 1 << 16;
    }
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..20_000 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        v.push(f32::from_bits(s as u32));
        v.push(((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 240.0);
    }
    while v.len() % 8 != 0 {
        v.push(2.0);
    }
    v
}

/// Whether the entry points run [`super::v`] here, not the C library fallback.
fn vmath_here() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        avx2()
    }
    #[cfg(target_arch = "aarch64")]
    {
        true
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        false
    }
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

type Entry1 = unsafe extern "C" fn(*const f32, *mut f32);
type Entry2 = unsafe extern "C" fn(*const f32, *const f32, *mut f32);

fn check_unary(
    name: &str,
    scalar: fn(f32) -> f32,
    plain8: fn(&[f32; 8]) -> [f32; 8],
    v4: Entry1,
    v8: Entry1,
) {
    let xs = inputs();
    for c in xs.chunks_exact(8) {
        let mut o4 = [0f32; 8];
        let mut o8 = [0f32; 8];
        // SAFETY: each pointer has 4 (`v4`, twice) or 8 lanes.
        unsafe {
            v4(c.as_ptr(), o4.as_mut_ptr());
            v4(c[4..].as_ptr(), o4[4..].as_mut_ptr());
            v8(c.as_ptr(), o8.as_mut_ptr());
        }
        let mut x8 = [0f32; 8];
        x8.copy_from_slice(c);
        let p8 = plain8(&x8);
        for i in 0..8 {
            let s = scalar(c[i]);
            assert!(
                same(s, o4[i]) && same(s, o8[i]) && (same(s, p8[i]) || !vmath_here()),
                "{name}({:e}): scalar {s:e}, v4 {:e}, v8 {:e}, plain v8 {:e}",
                c[i],
                o4[i],
                o8[i],
                p8[i]
            );
        }
    }
}

macro_rules! unary_tests {
    ($($test:ident: $scalar:ident, $lanes:ident, $v4:ident, $v8:ident;)*) => {$(
        #[test]
        fn $test() {
            check_unary(stringify!($test), $scalar, v::$lanes::<8>, $v4, $v8);
        }
    )*};
}

unary_tests! {
    lanes_exp: expf, exp_lanes, ferrite_v4_expf, ferrite_v8_expf;
    lanes_exp2: exp2f, exp2_lanes, ferrite_v4_exp2f, ferrite_v8_exp2f;
    lanes_exp10: exp10f, exp10_lanes, ferrite_v4_exp10f, ferrite_v8_exp10f;
    lanes_expm1: expm1f, expm1_lanes, ferrite_v4_expm1f, ferrite_v8_expm1f;
    lanes_log: logf, log_lanes, ferrite_v4_logf, ferrite_v8_logf;
    lanes_log2: log2f, log2_lanes, ferrite_v4_log2f, ferrite_v8_log2f;
    lanes_log10: log10f, log10_lanes, ferrite_v4_log10f, ferrite_v8_log10f;
    lanes_log1p: log1pf, log1p_lanes, ferrite_v4_log1pf, ferrite_v8_log1pf;
    lanes_sin: sinf, sin_lanes, ferrite_v4_sinf, ferrite_v8_sinf;
    lanes_cos: cosf, cos_lanes, ferrite_v4_cosf, ferrite_v8_cosf;
    lanes_tan: tanf, tan_lanes, ferrite_v4_tanf, ferrite_v8_tanf;
    lanes_cbrt: cbrtf, cbrt_lanes, ferrite_v4_cbrtf, ferrite_v8_cbrtf;
    lanes_atan: atanf, atan_lanes, ferrite_v4_atanf, ferrite_v8_atanf;
    lanes_asin: asinf, asin_lanes, ferrite_v4_asinf, ferrite_v8_asinf;
    lanes_acos: acosf, acos_lanes, ferrite_v4_acosf, ferrite_v8_acosf;
    lanes_erf: erff, erf_lanes, ferrite_v4_erff, ferrite_v8_erff;
    lanes_erfc: erfcf, erfc_lanes, ferrite_v4_erfcf, ferrite_v8_erfcf;
    lanes_tanh: tanhf, tanh_lanes, ferrite_v4_tanhf, ferrite_v8_tanhf;
    lanes_asinpi: asinpif, asinpi_lanes, ferrite_v4_asinpif, ferrite_v8_asinpif;
    lanes_acospi: acospif, acospi_lanes, ferrite_v4_acospif, ferrite_v8_acospif;
    lanes_atanpi: atanpif, atanpi_lanes, ferrite_v4_atanpif, ferrite_v8_atanpif;
    lanes_sinh: sinhf, sinh_lanes, ferrite_v4_sinhf, ferrite_v8_sinhf;
    lanes_cosh: coshf, cosh_lanes, ferrite_v4_coshf, ferrite_v8_coshf;
    lanes_asinh: asinhf, asinh_lanes, ferrite_v4_asinhf, ferrite_v8_asinhf;
    lanes_acosh: acoshf, acosh_lanes, ferrite_v4_acoshf, ferrite_v8_acoshf;
    lanes_atanh: atanhf, atanh_lanes, ferrite_v4_atanhf, ferrite_v8_atanhf;
    lanes_sinpi: sinpif, sinpi_lanes, ferrite_v4_sinpif, ferrite_v8_sinpif;
    lanes_cospi: cospif, cospi_lanes, ferrite_v4_cospif, ferrite_v8_cospif;
    lanes_tanpi: tanpif, tanpi_lanes, ferrite_v4_tanpif, ferrite_v8_tanpif;
}

fn check_binary(name: &str, scalar: fn(f32, f32) -> f32, v4: Entry2, v8: Entry2) {
    let xs = inputs();
    let ys: Vec<f32> = xs.iter().rev().copied().collect();
    for (a, b) in xs.chunks_exact(8).zip(ys.chunks_exact(8)) {
        let mut o4 = [0f32; 8];
        let mut o8 = [0f32; 8];
        // SAFETY: each pointer has 4 (`v4`, twice) or 8 lanes.
        unsafe {
            v4(a.as_ptr(), b.as_ptr(), o4.as_mut_ptr());
            v4(a[4..].as_ptr(), b[4..].as_ptr(), o4[4..].as_mut_ptr());
            v8(a.as_ptr(), b.as_ptr(), o8.as_mut_ptr());
        }
        for i in 0..8 {
            let s = scalar(a[i], b[i]);
            assert!(
                same(s, o4[i]) && same(s, o8[i]),
                "{name}({:e}, {:e}): scalar {s:e}, v4 {:e}, v8 {:e}",
                a[i],
                b[i],
                o4[i],
                o8[i]
            );
        }
    }
}

/// The 16-lane entry points (the AVX-512 build where the processor has AVX-512F, else
/// two halves of 8) against the scalar built-in, lane for lane, over the same inputs.
fn check_wide(
    name: &str,
    scalar: fn(f32, f32) -> f32,
    unary: Option<Entry1>,
    binary: Option<Entry2>,
) {
    let xs = inputs();
    let ys: Vec<f32> = xs.iter().rev().copied().collect();
    for (a, b) in xs.chunks_exact(16).zip(ys.chunks_exact(16)) {
        let mut o = [0f32; 16];
        // SAFETY: each pointer has 16 lanes.
        unsafe {
            match (unary, binary) {
                (Some(f), _) => f(a.as_ptr(), o.as_mut_ptr()),
                (_, Some(f)) => f(a.as_ptr(), b.as_ptr(), o.as_mut_ptr()),
                _ => return,
            }
        }
        for i in 0..16 {
            let s = scalar(a[i], b[i]);
            assert!(
                same(s, o[i]),
                "{name}({:e}, {:e}): scalar {s:e}, v16 {:e}",
                a[i],
                b[i],
                o[i]
            );
        }
    }
}

macro_rules! wide_tests {
    ($($test:ident: $scalar:ident, $v16:ident;)*) => {$(
        #[test]
        fn $test() {
            check_wide(stringify!($test), |x, _| $scalar(x), Some($v16), None);
        }
    )*};
}

wide_tests! {
    wide_exp: expf, ferrite_v16_expf;
    wide_exp2: exp2f, ferrite_v16_exp2f;
    wide_exp10: exp10f, ferrite_v16_exp10f;
    wide_log: logf, ferrite_v16_logf;
    wide_log2: log2f, ferrite_v16_log2f;
    wide_log10: log10f, ferrite_v16_log10f;
    wide_sin: sinf, ferrite_v16_sinf;
    wide_cos: cosf, ferrite_v16_cosf;
    wide_erf: erff, ferrite_v16_erff;
    wide_erfc: erfcf, ferrite_v16_erfcf;
    wide_tanh: tanhf, ferrite_v16_tanhf;
    wide_expm1: expm1f, ferrite_v16_expm1f;
    wide_log1p: log1pf, ferrite_v16_log1pf;
    wide_tan: tanf, ferrite_v16_tanf;
    wide_cbrt: cbrtf, ferrite_v16_cbrtf;
    wide_atan: atanf, ferrite_v16_atanf;
    wide_asin: asinf, ferrite_v16_asinf;
    wide_acos: acosf, ferrite_v16_acosf;
    wide_asinpi: asinpif, ferrite_v16_asinpif;
    wide_acospi: acospif, ferrite_v16_acospif;
    wide_atanpi: atanpif, ferrite_v16_atanpif;
    wide_sinh: sinhf, ferrite_v16_sinhf;
    wide_cosh: coshf, ferrite_v16_coshf;
    wide_asinh: asinhf, ferrite_v16_asinhf;
    wide_acosh: acoshf, ferrite_v16_acoshf;
    wide_atanh: atanhf, ferrite_v16_atanhf;
    wide_sinpi: sinpif, ferrite_v16_sinpif;
    wide_cospi: cospif, ferrite_v16_cospif;
    wide_tanpi: tanpif, ferrite_v16_tanpif;
}

/// [`check_wide`] for the two-argument functions evaluated in double precision.
#[test]
fn wide_binary_in_double() {
    check_wide("atan2", atan2f, None, Some(ferrite_v16_atan2f));
    check_wide("atan2pi", atan2pif, None, Some(ferrite_v16_atan2pif));
    check_wide("powr", powrf, None, Some(ferrite_v16_powrf));
    check_wide("hypot", hypotf, None, Some(ferrite_v16_hypotf));
}

/// erfc where its results are subnormal ([9.2, 10.06]) or just above, every `f32` of
/// [9, 10.1]: those are computed from integer instructions (no instruction meets a
/// subnormal), and must still be within the bound and the same at every width.
#[test]
fn erfc_subnormal_results() {
    use super::super::vmath::tests::ulp_err;
    let (lo, hi) = (9.0f32.to_bits(), 10.1f32.to_bits());
    let xs: Vec<f32> = (lo..hi - (hi - lo) % 16).map(f32::from_bits).collect();
    let mut worst = 0f64;
    for c in xs.chunks_exact(16) {
        let (mut o16, mut o8) = ([0f32; 16], [0f32; 16]);
        // SAFETY: 16 lanes at each pointer, 8 at each half.
        unsafe {
            ferrite_v16_erfcf(c.as_ptr(), o16.as_mut_ptr());
            ferrite_v8_erfcf(c.as_ptr(), o8.as_mut_ptr());
            ferrite_v8_erfcf(c.as_ptr().add(8), o8.as_mut_ptr().add(8));
        }
        for i in 0..16 {
            let s = erfcf(c[i]);
            assert!(
                s.to_bits() == o16[i].to_bits() && s.to_bits() == o8[i].to_bits(),
                "erfc({:e}): scalar {s:e}, v8 {:e}, v16 {:e}",
                c[i],
                o8[i],
                o16[i]
            );
            worst = worst.max(ulp_err(s, super::super::libm::erfc(f64::from(c[i]))));
        }
    }
    assert!(worst <= 16.0, "erfc near its underflow: {worst} ulp");
    // erfc(10) = 1.49·2⁻¹⁴⁹, erfc(10.05) = 0.544·2⁻¹⁴⁹, erfc(10.055) = 0.492·2⁻¹⁴⁹.
    assert_eq!(erfcf(10.0).to_bits(), 1);
    assert_eq!(erfcf(10.05).to_bits(), 1);
    assert_eq!(erfcf(10.055), 0.0);
}

/// erfc's vectors with a lane from 9 on take the scaled path for every lane: the other
/// lanes must keep the bits they have in vectors without one (runs of 16 `f32`s 37 ulp
/// apart from every 2²⁰th of [0, 9), each lane of each width once beside 9.5, both signs).
#[test]
fn erfc_tail_lanes_keep_their_bits() {
    let (lo, hi) = (0, 9.0f32.to_bits());
    for b in (lo..hi).step_by(1 << 20) {
        for sign in [1.0f32, -1.0] {
            let xs: [f32; 16] = std::array::from_fn(|i| sign * f32::from_bits(b + 37 * i as u32));
            for tail in 0..16 {
                let mut c = xs;
                c[tail] = 9.5;
                let (mut o16, mut o8, mut o4) = ([0f32; 16], [0f32; 16], [0f32; 16]);
                // SAFETY: 16 lanes at each pointer, 8 at each half, 4 at each quarter.
                unsafe {
                    ferrite_v16_erfcf(c.as_ptr(), o16.as_mut_ptr());
                    for h in (0..16).step_by(8) {
                        ferrite_v8_erfcf(c.as_ptr().add(h), o8.as_mut_ptr().add(h));
                    }
                    for q in (0..16).step_by(4) {
                        ferrite_v4_erfcf(c.as_ptr().add(q), o4.as_mut_ptr().add(q));
                    }
                }
                for i in 0..16 {
                    let s = erfcf(c[i]).to_bits();
                    assert!(
                        s == o16[i].to_bits() && s == o8[i].to_bits() && s == o4[i].to_bits(),
                        "erfc({:e}) beside 9.5 in lane {tail}: scalar {:e}, v4 {:e}, v8 {:e}, v16 {:e}",
                        c[i],
                        f32::from_bits(s),
                        o4[i],
                        o8[i],
                        o16[i]
                    );
                }
            }
        }
    }
}

#[test]
fn wide_pow() {
    check_wide("pow", powf, None, Some(ferrite_v16_powf));
}

#[test]
fn lanes_pow() {
    check_binary("pow", powf, ferrite_v4_powf, ferrite_v8_powf);
}

#[test]
fn lanes_atan2() {
    check_binary("atan2", atan2f, ferrite_v4_atan2f, ferrite_v8_atan2f);
}

#[test]
fn lanes_atan2pi() {
    check_binary(
        "atan2pi",
        atan2pif,
        ferrite_v4_atan2pif,
        ferrite_v8_atan2pif,
    );
}

#[test]
fn lanes_powr() {
    check_binary("powr", powrf, ferrite_v4_powrf, ferrite_v8_powrf);
}

#[test]
fn lanes_hypot() {
    check_binary("hypot", hypotf, ferrite_v4_hypotf, ferrite_v8_hypotf);
}

#[test]
fn lanes_sincos() {
    let xs = inputs();
    for c in xs.chunks_exact(8) {
        let (mut s4, mut c4, mut s8, mut c8) = ([0f32; 8], [0f32; 8], [0f32; 8], [0f32; 8]);
        // SAFETY: each pointer has 4 (`v4`, twice) or 8 lanes.
        unsafe {
            ferrite_v4_sincosf(c.as_ptr(), s4.as_mut_ptr(), c4.as_mut_ptr());
            ferrite_v4_sincosf(c[4..].as_ptr(), s4[4..].as_mut_ptr(), c4[4..].as_mut_ptr());
            ferrite_v8_sincosf(c.as_ptr(), s8.as_mut_ptr(), c8.as_mut_ptr());
        }
        for i in 0..8 {
            let (s, k) = (sinf(c[i]), cosf(c[i]));
            assert!(same(s, s4[i]) && same(s, s8[i]), "sincos sin({:e})", c[i]);
            assert!(same(k, c4[i]) && same(k, c8[i]), "sincos cos({:e})", c[i]);
        }
    }
}

#[test]
fn list_names_are_unique_and_match_their_shape() {
    let all = all();
    let mut names: Vec<_> = all.iter().map(|b| b.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), all.len());
    for b in &all {
        assert_eq!(b.name, format!("ferrite_v{}_{}f", b.lanes, b.base));
        assert!((1..=2).contains(&b.inputs) && (1..=2).contains(&b.outputs));
    }
}

/// ns per element of the 8-lane entry point and of glibc's double function called once
/// per element through a function pointer (the built-in path before this module). Prints
/// a table; asserts nothing about time.
#[test]
#[ignore = "a measurement: run in release with --nocapture"]
fn ns_per_element() {
    use std::hint::black_box;
    use std::time::Instant;
    const N: usize = 4096;
    const REPS: usize = 50;
    /// The fastest of 9 timings of `REPS` passes (the machine is shared): ns per element.
    fn best(n: usize, mut f: impl FnMut()) -> f64 {
        (0..9)
            .map(|_| {
                let t = Instant::now();
                for _ in 0..REPS {
                    f();
                }
                t.elapsed().as_nanos() as f64 / (REPS * n) as f64
            })
            .fold(f64::INFINITY, f64::min)
    }
    fn run1(xs: &[f32], f: Entry1, w: usize) -> f64 {
        let mut out = vec![0f32; xs.len()];
        best(xs.len(), || {
            for (c, o) in xs.chunks_exact(w).zip(out.chunks_exact_mut(w)) {
                // SAFETY: `w` lanes at each pointer, the width of `f`.
                unsafe { black_box(f)(c.as_ptr(), o.as_mut_ptr()) };
            }
            black_box(&out);
        })
    }
    fn run_scalar(xs: &[f32], f: extern "C" fn(f32) -> f32) -> f64 {
        let mut out = vec![0f32; xs.len()];
        best(xs.len(), || {
            for (x, o) in xs.iter().zip(out.iter_mut()) {
                *o = black_box(f)(*x);
            }
            black_box(&out);
        })
    }
    let mut s = 12345u64;
    let mut rnd = |lo: f32, hi: f32| {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        lo + (hi - lo) * ((s >> 40) as f32 / (1u64 << 24) as f32)
    };
    macro_rules! rows {
        ($($name:literal, $lo:expr, $hi:expr, $v8:ident, $v4:ident, $w1:ident, |$x:ident| $glibc:expr;)*) => {$({
            let xs: Vec<f32> = (0..N).map(|_| rnd($lo, $hi)).collect();
            extern "C" fn g($x: f32) -> f32 {
                $glibc as f32
            }
            extern "C" fn one(x: f32) -> f32 {
                $w1(x)
            }
            let (a, b, c) = (run1(&xs, $v8, 8), run_scalar(&xs, g), run_scalar(&xs, one));
            let a4 = run1(&xs, $v4, 4);
            println!(
                "{:8} v8 {a:6.2} ns  v4 {a4:6.2} ns  glibc {b:6.2} ns  x{:<5.1} one lane {c:6.2} ns",
                $name,
                b / a
            );
        })*};
    }
    println!("vector math (not the C library fallback): {}", vmath_here());
    rows! {
        "exp", -80.0, 80.0, ferrite_v8_expf, ferrite_v4_expf, expf, |x| f64::from(x).exp();
        "exp2", -120.0, 120.0, ferrite_v8_exp2f, ferrite_v4_exp2f, exp2f, |x| f64::from(x).exp2();
        "exp10", -35.0, 35.0, ferrite_v8_exp10f, ferrite_v4_exp10f, exp10f, |x| super::super::libm::exp10(f64::from(x));
        "expm1", -10.0, 10.0, ferrite_v8_expm1f, ferrite_v4_expm1f, expm1f, |x| super::super::libm::expm1(f64::from(x));
        "log", 0.0, 1000.0, ferrite_v8_logf, ferrite_v4_logf, logf, |x| f64::from(x).ln();
        "log2", 0.0, 1000.0, ferrite_v8_log2f, ferrite_v4_log2f, log2f, |x| f64::from(x).log2();
        "log10", 0.0, 1000.0, ferrite_v8_log10f, ferrite_v4_log10f, log10f, |x| f64::from(x).log10();
        "log1p", -0.9, 1000.0, ferrite_v8_log1pf, ferrite_v4_log1pf, log1pf, |x| super::super::libm::log1p(f64::from(x));
        "sin", -100.0, 100.0, ferrite_v8_sinf, ferrite_v4_sinf, sinf, |x| f64::from(x).sin();
        "cos", -100.0, 100.0, ferrite_v8_cosf, ferrite_v4_cosf, cosf, |x| f64::from(x).cos();
        "tan", -100.0, 100.0, ferrite_v8_tanf, ferrite_v4_tanf, tanf, |x| f64::from(x).tan();
        "cbrt", -100.0, 100.0, ferrite_v8_cbrtf, ferrite_v4_cbrtf, cbrtf, |x| f64::from(x).cbrt();
        "atan", -10.0, 10.0, ferrite_v8_atanf, ferrite_v4_atanf, atanf, |x| f64::from(x).atan();
        "asin", -1.0, 1.0, ferrite_v8_asinf, ferrite_v4_asinf, asinf, |x| f64::from(x).asin();
        "acos", -1.0, 1.0, ferrite_v8_acosf, ferrite_v4_acosf, acosf, |x| f64::from(x).acos();
        "erf", -4.0, 4.0, ferrite_v8_erff, ferrite_v4_erff, erff, |x| super::super::libm::erf(f64::from(x));
        "erfc", -4.0, 10.0, ferrite_v8_erfcf, ferrite_v4_erfcf, erfcf, |x| super::super::libm::erfc(f64::from(x));
        "tanh", -10.0, 10.0, ferrite_v8_tanhf, ferrite_v4_tanhf, tanhf, |x| f64::from(x).tanh();
        "asinpi", -1.0, 1.0, ferrite_v8_asinpif, ferrite_v4_asinpif, asinpif, |x| f64::from(x).asin() / std::f64::consts::PI;
        "acospi", -1.0, 1.0, ferrite_v8_acospif, ferrite_v4_acospif, acospif, |x| f64::from(x).acos() / std::f64::consts::PI;
        "atanpi", -10.0, 10.0, ferrite_v8_atanpif, ferrite_v4_atanpif, atanpif, |x| f64::from(x).atan() / std::f64::consts::PI;
        "sinh", -10.0, 10.0, ferrite_v8_sinhf, ferrite_v4_sinhf, sinhf, |x| f64::from(x).sinh();
        "cosh", -10.0, 10.0, ferrite_v8_coshf, ferrite_v4_coshf, coshf, |x| f64::from(x).cosh();
        "asinh", -100.0, 100.0, ferrite_v8_asinhf, ferrite_v4_asinhf, asinhf, |x| super::super::libm::asinh(f64::from(x));
        "acosh", 1.0, 100.0, ferrite_v8_acoshf, ferrite_v4_acoshf, acoshf, |x| super::super::libm::acosh(f64::from(x));
        "atanh", -1.0, 1.0, ferrite_v8_atanhf, ferrite_v4_atanhf, atanhf, |x| super::super::libm::atanh(f64::from(x));
        "sinpi", -10.0, 10.0, ferrite_v8_sinpif, ferrite_v4_sinpif, sinpif, |x| super::super::math::sinpi(f64::from(x));
        "cospi", -10.0, 10.0, ferrite_v8_cospif, ferrite_v4_cospif, cospif, |x| super::super::math::cospi(f64::from(x));
        "tanpi", -10.0, 10.0, ferrite_v8_tanpif, ferrite_v4_tanpif, tanpif, |x| super::super::math::tanpi(f64::from(x));
    }
    let xs: Vec<f32> = (0..N).map(|_| rnd(0.0, 4.0)).collect();
    let ys: Vec<f32> = (0..N).map(|_| rnd(-20.0, 20.0)).collect();
    fn run2(xs: &[f32], ys: &[f32], f: Entry2, w: usize) -> f64 {
        let mut out = vec![0f32; xs.len()];
        best(xs.len(), || {
            for ((a, b), o) in xs
                .chunks_exact(w)
                .zip(ys.chunks_exact(w))
                .zip(out.chunks_exact_mut(w))
            {
                // SAFETY: `w` lanes at each pointer, the width of `f`.
                unsafe { black_box(f)(a.as_ptr(), b.as_ptr(), o.as_mut_ptr()) };
            }
            black_box(&out);
        })
    }
    for (name, f, f4, g) in [
        (
            "pow",
            ferrite_v8_powf as Entry2,
            ferrite_v4_powf as Entry2,
            (|x: f64, y: f64| x.powf(y)) as fn(f64, f64) -> f64,
        ),
        (
            "atan2",
            ferrite_v8_atan2f,
            ferrite_v4_atan2f,
            |y: f64, x: f64| y.atan2(x),
        ),
        (
            "atan2pi",
            ferrite_v8_atan2pif,
            ferrite_v4_atan2pif,
            super::super::math::atan2pi,
        ),
        (
            "powr",
            ferrite_v8_powrf,
            ferrite_v4_powrf,
            super::super::math::powr,
        ),
        ("hypot", ferrite_v8_hypotf, ferrite_v4_hypotf, f64::hypot),
    ] {
        let (a, a4) = (run2(&xs, &ys, f, 8), run2(&xs, &ys, f4, 4));
        let mut out = vec![0f32; N];
        let b = best(N, || {
            for ((x, y), o) in xs.iter().zip(&ys).zip(out.iter_mut()) {
                *o = black_box(g)(f64::from(*x), f64::from(*y)) as f32;
            }
            black_box(&out);
        });
        println!(
            "{name:8} v8 {a:6.2} ns  v4 {a4:6.2} ns  glibc {b:6.2} ns  x{:.1}",
            b / a
        );
    }
    // As JIT code calls them: 8 lanes just written to a stack slot as two 16-byte stores
    // (this test crate is built for baseline x86-64: SSE stores), then the call.
    let xs: Vec<f32> = (0..N).map(|_| rnd(0.5, 80.0)).collect();
    for (name, f) in [
        ("exp", ferrite_v8_expf as Entry1),
        ("log", ferrite_v8_logf),
        ("sin", ferrite_v8_sinf),
        ("erfc", ferrite_v8_erfcf),
        ("cosh", ferrite_v8_coshf),
    ] {
        let mut out = vec![0f32; N];
        let a = best(N, || {
            for (c, o) in xs.chunks_exact(8).zip(out.chunks_exact_mut(8)) {
                let mut slot = [0f32; 8];
                slot.copy_from_slice(c);
                let slot = black_box(slot);
                // SAFETY: 8 lanes at each pointer.
                unsafe { black_box(f)(slot.as_ptr(), o.as_mut_ptr()) };
            }
            black_box(&out);
        });
        println!("{name:8} v8 {a:6.2} ns from a freshly written stack slot");
    }
    let mut out = vec![0f32; 2 * N];
    let xs: Vec<f32> = (0..N).map(|_| rnd(-100.0, 100.0)).collect();
    let a = best(N, || {
        for (c, o) in xs.chunks_exact(8).zip(out.chunks_exact_mut(16)) {
            let (s, k) = o.split_at_mut(8);
            // SAFETY: 8 lanes at each pointer.
            unsafe { black_box(ferrite_v8_sincosf)(c.as_ptr(), s.as_mut_ptr(), k.as_mut_ptr()) };
        }
        black_box(&out);
    });
    println!("sincos   v8 {a:6.2} ns (both results)");
}

/// Every `f32` input (2³² per function) through the 8-lane entry points against glibc's
/// double functions. About a minute per function in release; `FERRITE_VMATH_ONLY=exp,log`
/// picks functions.
#[test]
#[ignore = "2^32 inputs per function: run in release by hand"]
fn exhaustive_unary() {
    use super::super::libm;
    use super::super::vmath::tests::ulp_err;
    let only = std::env::var("FERRITE_VMATH_ONLY").unwrap_or_default();
    type Case = (&'static str, Entry1, fn(f64) -> f64, f64);
    let fns: [Case; 29] = [
        ("exp", ferrite_v8_expf, f64::exp, 3.0),
        ("exp2", ferrite_v8_exp2f, f64::exp2, 3.0),
        ("exp10", ferrite_v8_exp10f, |x| libm::exp10(x), 3.0),
        ("expm1", ferrite_v8_expm1f, |x| libm::expm1(x), 3.0),
        ("log", ferrite_v8_logf, f64::ln, 3.0),
        ("log2", ferrite_v8_log2f, f64::log2, 3.0),
        ("log10", ferrite_v8_log10f, f64::log10, 3.0),
        ("log1p", ferrite_v8_log1pf, |x| libm::log1p(x), 3.0),
        ("sin", ferrite_v8_sinf, f64::sin, 4.0),
        ("cos", ferrite_v8_cosf, f64::cos, 4.0),
        ("tan", ferrite_v8_tanf, f64::tan, 4.0),
        ("cbrt", ferrite_v8_cbrtf, f64::cbrt, 2.0),
        ("atan", ferrite_v8_atanf, f64::atan, 5.0),
        ("asin", ferrite_v8_asinf, f64::asin, 4.0),
        ("acos", ferrite_v8_acosf, f64::acos, 4.0),
        ("erf", ferrite_v8_erff, |x| libm::erf(x), 16.0),
        ("erfc", ferrite_v8_erfcf, |x| libm::erfc(x), 16.0),
        ("tanh", ferrite_v8_tanhf, f64::tanh, 5.0),
        (
            "asinpi",
            ferrite_v8_asinpif,
            |x| x.asin() / std::f64::consts::PI,
            5.0,
        ),
        (
            "acospi",
            ferrite_v8_acospif,
            |x| x.acos() / std::f64::consts::PI,
            5.0,
        ),
        (
            "atanpi",
            ferrite_v8_atanpif,
            |x| x.atan() / std::f64::consts::PI,
            5.0,
        ),
        ("sinh", ferrite_v8_sinhf, f64::sinh, 4.0),
        ("cosh", ferrite_v8_coshf, f64::cosh, 4.0),
        ("asinh", ferrite_v8_asinhf, |x| libm::asinh(x), 4.0),
        ("acosh", ferrite_v8_acoshf, |x| libm::acosh(x), 4.0),
        ("atanh", ferrite_v8_atanhf, |x| libm::atanh(x), 4.0),
        ("sinpi", ferrite_v8_sinpif, super::super::math::sinpi, 4.0),
        ("cospi", ferrite_v8_cospif, super::super::math::cospi, 4.0),
        ("tanpi", ferrite_v8_tanpif, super::super::math::tanpi, 6.0),
    ];
    for (name, f, r, bound) in fns {
        if !only.is_empty() && !only.split(',').any(|o| o == name) {
            continue;
        }
        let (mut max, mut at, mut misrounded) = (0f64, 0u32, 0u64);
        let mut b = 0u64;
        while b < 1 << 32 {
            let x: [f32; 8] = std::array::from_fn(|i| f32::from_bits((b + i as u64) as u32));
            let mut o = [0f32; 8];
            // SAFETY: 8 lanes at each pointer.
            unsafe { f(x.as_ptr(), o.as_mut_ptr()) };
            for i in 0..8 {
                let want = r(f64::from(x[i]));
                misrounded +=
                    u64::from(o[i].to_bits() != (want as f32).to_bits() && !o[i].is_nan());
                let e = ulp_err(o[i], want);
                if e > max {
                    (max, at) = (e, x[i].to_bits());
                }
            }
            b += 8;
        }
        println!("{name}: all 2^32 inputs, max {max:.4} ulp at {:e} ({at:#x}), {misrounded} not the reference rounded", f32::from_bits(at));
        assert!(
            max <= bound,
            "{name}: {max} ulp at {:e}",
            f32::from_bits(at)
        );
    }
}

/// The addresses [`all`] gives the JIT (the AVX2 builds themselves, where the processor
/// has AVX2 and FMA) give the entry points' bits.
#[test]
fn listed_addresses_give_the_entry_points_bits() {
    let xs = inputs();
    let ys: Vec<f32> = xs.iter().rev().copied().collect();
    let list = all();
    let by_name = |name: &str| {
        list.iter()
            .find(|b| b.name == name)
            .map(|b| b.addr)
            .unwrap_or_else(|| panic!("{name} is not listed"))
    };
    macro_rules! unary {
        ($($f:ident)*) => {$({
            let addr = by_name(stringify!($f));
            // SAFETY: the listed address of a unary entry point has its signature.
            let g = unsafe { std::mem::transmute::<*const u8, Entry1>(addr) };
            let w = list.iter().find(|b| b.name == stringify!($f)).map_or(0, |b| b.lanes as usize);
            for c in xs.chunks_exact(w) {
                let (mut a, mut b) = ([0f32; 8], [0f32; 8]);
                // SAFETY: `w` lanes at each pointer.
                unsafe {
                    $f(c.as_ptr(), a.as_mut_ptr());
                    g(c.as_ptr(), b.as_mut_ptr());
                }
                for i in 0..w {
                    assert!(same(a[i], b[i]), "{}({:e})", stringify!($f), c[i]);
                }
            }
        })*};
    }
    unary!(ferrite_v4_expf ferrite_v8_expf ferrite_v4_exp2f ferrite_v8_exp2f ferrite_v4_exp10f
        ferrite_v8_exp10f ferrite_v4_logf ferrite_v8_logf ferrite_v4_log2f ferrite_v8_log2f
        ferrite_v4_log10f ferrite_v8_log10f ferrite_v4_sinf ferrite_v8_sinf ferrite_v4_cosf
        ferrite_v8_cosf ferrite_v4_erff ferrite_v8_erff ferrite_v4_erfcf ferrite_v8_erfcf
        ferrite_v4_tanhf ferrite_v8_tanhf);
    for (name, f) in [
        ("ferrite_v4_powf", ferrite_v4_powf as Entry2),
        ("ferrite_v8_powf", ferrite_v8_powf),
    ] {
        // SAFETY: the listed address of `pow` has its signature.
        let g = unsafe { std::mem::transmute::<*const u8, Entry2>(by_name(name)) };
        for (a, b) in xs.chunks_exact(8).zip(ys.chunks_exact(8)) {
            let (mut o1, mut o2) = ([0f32; 8], [0f32; 8]);
            // SAFETY: 8 lanes at each pointer (4 used by the 4-lane one).
            unsafe {
                f(a.as_ptr(), b.as_ptr(), o1.as_mut_ptr());
                g(a.as_ptr(), b.as_ptr(), o2.as_mut_ptr());
            }
            for i in 0..8 {
                assert!(same(o1[i], o2[i]), "{name}({:e}, {:e})", a[i], b[i]);
            }
        }
    }
    type Entry3 = unsafe extern "C" fn(*const f32, *mut f32, *mut f32);
    for (name, f) in [
        ("ferrite_v4_sincosf", ferrite_v4_sincosf as Entry3),
        ("ferrite_v8_sincosf", ferrite_v8_sincosf),
    ] {
        // SAFETY: the listed address of `sincos` has its signature.
        let g = unsafe { std::mem::transmute::<*const u8, Entry3>(by_name(name)) };
        for c in xs.chunks_exact(8) {
            let (mut s1, mut c1, mut s2, mut c2) = ([0f32; 8], [0f32; 8], [0f32; 8], [0f32; 8]);
            // SAFETY: 8 lanes at each pointer (4 used by the 4-lane one).
            unsafe {
                f(c.as_ptr(), s1.as_mut_ptr(), c1.as_mut_ptr());
                g(c.as_ptr(), s2.as_mut_ptr(), c2.as_mut_ptr());
            }
            for i in 0..8 {
                assert!(
                    same(s1[i], s2[i]) && same(c1[i], c2[i]),
                    "{name}({:e})",
                    c[i]
                );
            }
        }
    }
}

/// `pown` at 4, 8 and 16 lanes (each entry point, and the direct builds where they run)
/// against the scalar built-in, bit for bit; and against the double function: within
/// `pow`'s few ulp where `n` is exact in `f32`, and exactly its rounding beyond.
#[test]
fn lanes_pown() {
    use super::super::vmath::tests::ulp_err;
    let xs = inputs();
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut ns: Vec<i32> = vec![0, 1, -1, 2, -2, 3, -3, 127, -149, 1 << 24, -(1 << 24)];
    ns.extend([
        (1 << 24) + 1,
        -(1 << 24) - 1,
        i32::MAX,
        i32::MIN,
        33_554_435,
    ]);
    while ns.len() < xs.len() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        // Mostly small exponents (where results are finite), some of every size.
        ns.push(match s % 4 {
            0 => s as i32,
            _ => (s >> 32) as i32 % 40,
        });
    }
    // Arguments near 1 make powers of huge `n` finite.
    let near_one = |x: f32| 1.0 + (x % 1.0) * 1e-7;
    let xs: Vec<f32> = xs
        .iter()
        .zip(&ns)
        .map(|(&x, &n)| {
            if n.unsigned_abs() > 1 << 20 {
                near_one(x)
            } else {
                x
            }
        })
        .collect();
    type Pown = unsafe extern "C" fn(*const f32, *const i32, *mut f32);
    let mut entries: Vec<(&str, usize, Pown)> = vec![
        ("v4", 4, ferrite_v4_pownf),
        ("v8", 8, ferrite_v8_pownf),
        ("v16", 16, ferrite_v16_pownf),
    ];
    #[cfg(target_arch = "x86_64")]
    {
        if avx2() {
            entries.push(("v4 avx2", 4, ferrite_v4_pownf::avx2));
            entries.push(("v8 avx2", 8, ferrite_v8_pownf::avx2));
        }
        if avx512() {
            entries.push(("v16 avx512", 16, ferrite_v16_pownf::avx512));
        }
    }
    let mut worst = 0f64;
    for (a, n) in xs.chunks_exact(16).zip(ns.chunks_exact(16)) {
        let scalar: Vec<f32> = a.iter().zip(n).map(|(&x, &n)| pownf(x, n)).collect();
        for (name, w, f) in &entries {
            let mut o = [0f32; 16];
            for k in (0..16).step_by(*w) {
                // SAFETY: `w` lanes from `k` in each array.
                unsafe { f(a[k..].as_ptr(), n[k..].as_ptr(), o[k..].as_mut_ptr()) };
            }
            for i in 0..16 {
                assert!(
                    same(scalar[i], o[i]),
                    "pown({:e}, {}): scalar {:e}, {name} {:e}",
                    a[i],
                    n[i],
                    scalar[i],
                    o[i]
                );
            }
        }
        for i in 0..16 {
            let exact = super::super::math::pown(f64::from(a[i]), n[i]);
            if n[i].unsigned_abs() > 1 << 24 {
                assert!(same(scalar[i], exact as f32), "pown({:e}, {})", a[i], n[i]);
            } else if vmath_here() {
                worst = worst.max(ulp_err(scalar[i], exact));
            }
        }
    }
    // OpenCL's bound for `pown` is 16 ulp.
    assert!(worst <= 8.0, "pown: {worst} ulp");
    assert_eq!(pownf(f32::NAN, 0), 1.0);
    assert_eq!(pownf(-0.0, -3), f32::NEG_INFINITY);
    assert_eq!(pownf(-0.0, 3).to_bits(), (-0.0f32).to_bits());
    assert_eq!(pownf(-2.0, 3), -8.0);
    assert_eq!(pownf(f32::NEG_INFINITY, -1).to_bits(), (-0.0f32).to_bits());
}
