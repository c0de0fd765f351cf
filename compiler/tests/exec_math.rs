//! OpenCL.std math: single precision checked within the OpenCL accuracy table's ulp bound
//! against a double-precision host reference over a few thousand inputs (edge cases,
//! denormals, huge and tiny values, random bit patterns); exact functions compared
//! bit for bit; the pointer-output functions, `nan`, `maxmag`, integer built-ins, geometric
//! functions, `shuffle` and half loads/stores checked against host code.

#[path = "common/harness.rs"]
mod harness;

use harness::{kernel, run1, Args};
use std::f64::consts::PI;

fn inputs(n: usize, seed: u32) -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        0.25,
        3.0,
        -3.5,
        1e-3,
        100.0,
        -100.0,
        1e30,
        -1e30,
        f32::MAX,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        -f32::from_bits(0x0000_0fff),
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        16777216.0,
        8388609.0,
        0.999_999_94,
        1.000_000_1,
    ];
    let mut s = seed;
    while v.len() < n {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        let x = f32::from_bits(s);
        v.push(if v.len() % 2 == 0 && x.is_finite() {
            x
        } else {
            ((s >> 8) as f32 / 16777216.0 - 0.5) * 20.0
        });
    }
    v
}

/// Error of `got` in ulps of the float nearest `want`.
fn ulps(got: f32, want: f64) -> f64 {
    if want.is_nan() {
        return if got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if want.is_infinite() || got.is_infinite() {
        // An exact infinity, or the reference overflowing float: compare as floats.
        return if got == want as f32 {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let w = want as f32;
    let e = if w == 0.0 {
        -149
    } else {
        (w.abs().to_bits() >> 23) as i32 - 127 - 23
    };
    let ulp = 2f64.powi(e.max(-149));
    (f64::from(got) - want).abs() / ulp
}

struct F {
    name: &'static str,
    bound: f64,
    reference: fn(f64, f64) -> f64,
}

const FUNCS: &[F] = &[
    F {
        name: "sin(x)",
        bound: 4.0,
        reference: |x, _| x.sin(),
    },
    F {
        name: "cos(x)",
        bound: 4.0,
        reference: |x, _| x.cos(),
    },
    F {
        name: "tan(x)",
        bound: 5.0,
        reference: |x, _| x.tan(),
    },
    F {
        name: "asin(x)",
        bound: 4.0,
        reference: |x, _| x.asin(),
    },
    F {
        name: "acos(x)",
        bound: 4.0,
        reference: |x, _| x.acos(),
    },
    F {
        name: "atan(x)",
        bound: 5.0,
        reference: |x, _| x.atan(),
    },
    F {
        name: "atan2(x, y)",
        bound: 6.0,
        reference: |x, y| x.atan2(y),
    },
    F {
        name: "sinh(x)",
        bound: 4.0,
        reference: |x, _| x.sinh(),
    },
    F {
        name: "cosh(x)",
        bound: 4.0,
        reference: |x, _| x.cosh(),
    },
    F {
        name: "tanh(x)",
        bound: 5.0,
        reference: |x, _| x.tanh(),
    },
    F {
        name: "asinh(x)",
        bound: 4.0,
        reference: |x, _| x.asinh(),
    },
    F {
        name: "acosh(x)",
        bound: 4.0,
        reference: |x, _| x.acosh(),
    },
    F {
        name: "atanh(x)",
        bound: 5.0,
        reference: |x, _| x.atanh(),
    },
    F {
        name: "exp(x)",
        bound: 3.0,
        reference: |x, _| x.exp(),
    },
    F {
        name: "exp2(x)",
        bound: 3.0,
        reference: |x, _| x.exp2(),
    },
    F {
        name: "exp10(x)",
        bound: 3.0,
        reference: |x, _| 10f64.powf(x),
    },
    F {
        name: "expm1(x)",
        bound: 3.0,
        reference: |x, _| x.exp_m1(),
    },
    F {
        name: "log(x)",
        bound: 3.0,
        reference: |x, _| x.ln(),
    },
    F {
        name: "log2(x)",
        bound: 3.0,
        reference: |x, _| x.log2(),
    },
    F {
        name: "log10(x)",
        bound: 3.0,
        reference: |x, _| x.log10(),
    },
    F {
        name: "log1p(x)",
        bound: 2.0,
        reference: |x, _| x.ln_1p(),
    },
    F {
        name: "cbrt(x)",
        bound: 2.0,
        reference: |x, _| x.cbrt(),
    },
    F {
        name: "pow(x, y)",
        bound: 16.0,
        reference: |x, y| x.powf(y),
    },
    F {
        name: "hypot(x, y)",
        bound: 4.0,
        reference: |x, y| x.hypot(y),
    },
    F {
        name: "fmod(x, y)",
        bound: 0.0,
        reference: |x, y| x % y,
    },
    F {
        name: "sinpi(x)",
        bound: 4.0,
        reference: |x, _| ref_sinpi(x),
    },
    F {
        name: "cospi(x)",
        bound: 4.0,
        reference: |x, _| ref_cospi(x),
    },
    F {
        name: "asinpi(x)",
        bound: 5.0,
        reference: |x, _| x.asin() / PI,
    },
    F {
        name: "acospi(x)",
        bound: 5.0,
        reference: |x, _| x.acos() / PI,
    },
    F {
        name: "atanpi(x)",
        bound: 5.0,
        reference: |x, _| x.atan() / PI,
    },
    F {
        name: "atan2pi(x, y)",
        bound: 6.0,
        reference: |x, y| x.atan2(y) / PI,
    },
    F {
        name: "rootn(x, 3)",
        bound: 16.0,
        reference: |x, _| x.cbrt(),
    },
    F {
        name: "pown(x, 5)",
        bound: 16.0,
        reference: |x, _| x.powi(5),
    },
    F {
        name: "powr(fabs(x), y)",
        bound: 16.0,
        reference: |x, y| {
            if (x == 0.0 || x.is_infinite()) && y == 0.0 || x.abs() == 1.0 && y.is_infinite() {
                f64::NAN
            } else {
                x.abs().powf(y)
            }
        },
    },
    F {
        name: "erf(x)",
        bound: 16.0,
        reference: |x, _| erf_ref(x),
    },
    F {
        name: "ldexp(x, 7)",
        bound: 0.0,
        reference: |x, _| x * 128.0,
    },
    F {
        name: "logb(x)",
        bound: 0.0,
        reference: |x, _| logb_ref(x),
    },
    F {
        name: "half_exp(x)",
        bound: 8192.0,
        reference: |x, _| x.exp(),
    },
    F {
        name: "native_sin(x)",
        bound: 8192.0,
        reference: |x, _| x.sin(),
    },
];

/// `sin(πx)` with an exact reduction (the reference must not lose what it checks).
fn ref_sinpi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let r = x - 2.0 * (x / 2.0).round();
    if r == r.round() {
        return 0.0f64.copysign(x) * 0.0;
    }
    (PI * r).sin()
}

fn ref_cospi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let r = (x - 2.0 * (x / 2.0).round()).abs();
    if r == 0.5 {
        return 0.0;
    }
    (PI * r).cos()
}

/// erf by its series / continued fraction, good to ~1e-15 (only to check the plumbing;
/// the implementation is glibc's).
fn erf_ref(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.abs() > 6.0 {
        return 1f64.copysign(x);
    }
    if x.abs() < 2.5 {
        let mut sum = x;
        let mut term = x;
        let x2 = x * x;
        for n in 1..200 {
            term *= -x2 / n as f64;
            sum += term / (2 * n + 1) as f64;
        }
        return sum * 2.0 / PI.sqrt();
    }
    // erfc continued fraction for large |x|.
    let a = x.abs();
    let mut f = 0.0;
    for k in (1..80).rev() {
        f = (k as f64 / 2.0) / (a + f);
    }
    let erfc = (-a * a).exp() / PI.sqrt() / (a + f);
    (1.0 - erfc).copysign(x)
}

#[test]
fn single_precision_within_ulp_bounds() {
    let body: String = FUNCS
        .iter()
        .enumerate()
        .map(|(k, f)| format!("o[{k}] = {};\n", f.name))
        .collect();
    let src = format!(
        "kernel void k(global const float *xs, global const float *ys, global float *out) {{
            size_t i = get_global_id(0);
            float x = xs[i], y = ys[i];
            global float *o = out + {} * i;
            {body}
        }}",
        FUNCS.len()
    );
    let Some(k) = kernel(&src, "k") else { return };
    let mut x = inputs(2048, 0x2545_f491);
    let mut y = inputs(2048, 0x9e37_79b9);
    y.rotate_left(7);
    let n = x.len();
    let m = FUNCS.len();
    let mut o = vec![0f32; m * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut x).buf(1, &mut y).buf(2, &mut o);
    run1(&k, &args, n as u64, 64);
    let mut failures = Vec::new();
    for (fk, f) in FUNCS.iter().enumerate() {
        for i in 0..n {
            let (xv, yv) = (f64::from(x[i]), f64::from(y[i]));
            let want = (f.reference)(xv, yv);
            let got = o[m * i + fk];
            let e = ulps(got, want);
            // Double references of functions with huge condition numbers at some inputs
            // (pow near overflow, tan near poles) are themselves a little off: allow them
            // an extra ulp.
            if e > f.bound + 1.0 {
                failures.push(format!(
                    "{}: x={:e} y={:e} got {:e} want {:e} ({e:.1} ulp)",
                    f.name, x[i], y[i], got, want
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(40)].join("\n")
    );
}

#[test]
fn edge_cases_and_pointer_outputs() {
    let src = r#"
        kernel void k(global const float *x, global float *o, global int *io,
                      global double *d) {
            size_t i = get_global_id(0);
            float v = x[i];
            global float *r = o + 16 * i;
            global int *ri = io + 8 * i;
            float c; r[0] = sincos(v, &c); r[1] = c;
            float fl; r[2] = fract(v, &fl); r[3] = fl;
            float ip; r[4] = modf(v, &ip); r[5] = ip;
            int e; r[6] = frexp(v, &e); ri[0] = e;
            int q; r[7] = remquo(v, 0.75f, &q); ri[1] = q;
            int s; r[8] = lgamma_r(v, &s); ri[2] = s;
            ri[3] = ilogb(v);
            r[9] = maxmag(v, -2.0f);
            r[10] = minmag(v, -2.0f);
            r[11] = nextafter(v, 0.0f);
            r[12] = sinpi(v);
            r[13] = cospi(v);
            r[14] = tanpi(v);
            ri[4] = as_int(nan((uint)i));
            double dv = (double)v * 3.0;
            d[4 * i] = sinpi(dv);
            d[4 * i + 1] = rootn(dv * dv * dv, 3);
            d[4 * i + 2] = pown(dv, 3);
            int dq; d[4 * i + 3] = remquo(dv, 0.75, &dq); ri[5] = dq;
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let mut x: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.0,
        -3.0,
        0.5,
        -0.5,
        1.5,
        2.25,
        -2.75,
        1e-40,
        -1e-3,
        7.0,
        100.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        16777216.0,
        3e38,
        -7.25,
        0.1,
        5.875,
        1e6,
    ];
    let n = x.len();
    let mut o = vec![0f32; 16 * n];
    let mut io = vec![0i32; 8 * n];
    let mut d = vec![0f64; 4 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut x)
        .buf(1, &mut o)
        .buf(2, &mut io)
        .buf(3, &mut d);
    run1(&k, &args, n as u64, n as u64);
    let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    for i in 0..n {
        let v = x[i];
        let r = &o[16 * i..16 * i + 16];
        let ri = &io[8 * i..8 * i + 8];
        let vd = f64::from(v);
        assert!(
            ulps(r[0], vd.sin()) <= 4.0 && ulps(r[1], vd.cos()) <= 4.0,
            "sincos {v}"
        );
        // fract / modf (the CTS reference: modf-based, result < 1).
        let (fr, fi) = if v.is_nan() {
            (f32::NAN, f32::NAN)
        } else {
            let i0 = v.trunc();
            let mut f = if v.is_infinite() {
                0f32.copysign(v)
            } else {
                (v - i0).copysign(v)
            };
            let mut ii = i0;
            if f < 0.0 {
                f += 1.0;
                ii -= 1.0;
                if f == 1.0 {
                    f = f32::from_bits(0x3f7f_ffff);
                }
            }
            (f, ii)
        };
        assert!(
            same(r[2], fr) && same(r[3], fi),
            "fract({v}) = {} {}; want {fr} {fi}",
            r[2],
            r[3]
        );
        let mi = v.trunc();
        let mf = if v.is_infinite() {
            0f32.copysign(v)
        } else {
            (v - mi).copysign(v)
        };
        assert!(same(r[4], mf) && same(r[5], mi), "modf({v})");
        if v.is_finite() && v != 0.0 {
            let e = ri[0];
            assert!(
                (f64::from(r[6]) * 2f64.powi(e)) as f32 == v && (0.5..1.0).contains(&r[6].abs()),
                "frexp({v})"
            );
        } else {
            assert!(same(r[6], v) && ri[0] == 0, "frexp({v})");
        }
        if v.is_finite() && v.abs() < 1e7 {
            let q = (vd / 0.75).round_ties_even();
            let rem = vd - q * 0.75;
            assert!(
                r[7] == rem as f32 || (rem.abs() == 0.375),
                "remquo({v}) {}",
                r[7]
            );
            assert_eq!(
                ri[1] & 127,
                ((q.abs() as i64 & 127) as i32 * if q < 0.0 { -1 } else { 1 }) & 127,
                "quo({v})"
            );
        }
        if v > 0.0 && v.is_finite() {
            assert_eq!(ri[2], 1, "lgamma_r sign({v})");
        }
        if v == -2.75 {
            assert_eq!(ri[2], -1, "lgamma_r sign(-2.75)");
        }
        let il = if v == 0.0 {
            i32::MIN
        } else if !v.is_finite() {
            i32::MAX
        } else {
            libm_ilogb(v)
        };
        assert_eq!(ri[3], il, "ilogb({v})");
        let mm = if v.abs() > 2.0 {
            v
        } else if v.abs() < 2.0 {
            -2.0
        } else {
            v.max(-2.0)
        };
        assert!(same(r[9], mm) || v.is_nan(), "maxmag({v}) {}", r[9]);
        let mn = if v.abs() < 2.0 {
            v
        } else if v.abs() > 2.0 {
            -2.0
        } else {
            v.min(-2.0)
        };
        assert!(same(r[10], mn) || v.is_nan(), "minmag({v}) {}", r[10]);
        let na = if v.is_nan() || v == 0.0 {
            if v.is_nan() {
                v
            } else {
                0.0
            }
        } else if v > 0.0 {
            v.next_down()
        } else {
            v.next_up()
        };
        assert!(same(r[11], na), "nextafter({v}) {} {na}", r[11]);
        // sinpi/cospi/tanpi at (half-)integers are exact, zeros signed as specified.
        if v.is_finite() && v == v.round() {
            assert!(same(r[12], 0f32.copysign(v)), "sinpi({v}) = {}", r[12]);
            let c = if (v.abs() % 2.0) == 0.0 { 1.0 } else { -1.0 };
            assert!(same(r[13], c), "cospi({v})");
        } else if v.is_finite() {
            assert!(ulps(r[12], ref_sinpi(vd)) <= 4.0, "sinpi({v}) = {}", r[12]);
            assert!(ulps(r[13], ref_cospi(vd)) <= 4.0, "cospi({v}) = {}", r[13]);
        } else {
            assert!(r[12].is_nan() && r[13].is_nan() && r[14].is_nan());
        }
        if v == 0.5 || v == -0.5 || v == 1.5 {
            assert!(r[14].is_infinite(), "tanpi({v})");
            assert!(same(r[13], 0.0), "cospi({v}) is +0");
        }
        assert_eq!(ri[4] as u32, 0x7fc0_0000 | i as u32, "nan({i})");
        let dv = vd * 3.0;
        if dv.is_finite() && dv.abs() < 1e15 {
            let want = (dv * 3.0).cbrt() / 3f64.cbrt();
            let _ = want;
            assert!(
                (d[4 * i + 1] - dv).abs() <= dv.abs() * 4.0 * f64::EPSILON,
                "rootn(({dv})³, 3) = {}",
                d[4 * i + 1]
            );
            let p3 = dv * dv * dv;
            assert!(
                (d[4 * i + 2] - p3).abs() <= p3.abs() * 2.0 * f64::EPSILON,
                "pown({dv}, 3)"
            );
            let q = (dv / 0.75).round_ties_even();
            assert_eq!(
                ri[5],
                ((q.abs() as i64 & 127) as i32) * if q < 0.0 { -1 } else { 1 },
                "double quo({dv})"
            );
        }
        if dv.is_finite() && dv == dv.round() {
            assert_eq!(
                d[4 * i].to_bits(),
                0f64.copysign(dv).to_bits(),
                "sinpi({dv})"
            );
        }
    }
}

fn logb_ref(x: f64) -> f64 {
    if x == 0.0 {
        f64::NEG_INFINITY
    } else if x.is_nan() {
        x
    } else if x.is_infinite() {
        f64::INFINITY
    } else {
        f64::from(libm_ilogb(x as f32))
    }
}

fn libm_ilogb(v: f32) -> i32 {
    let b = v.abs().to_bits();
    if b < 0x0080_0000 {
        -127 - (b.leading_zeros() as i32 - 9)
    } else {
        (b >> 23) as i32 - 127
    }
}

#[test]
fn integer_builtins() {
    let src = r#"
        kernel void k(global const char16 *a, global const char16 *b, global char16 *o,
                      global const long *la, global long *lo, global uint *u) {
            size_t i = get_global_id(0);
            char16 x = a[i], y = b[i];
            o[6 * i] = mul_hi(x, y);
            o[6 * i + 1] = mad_sat(x, y, (char16)(100));
            o[6 * i + 2] = as_char16(abs_diff(x, y));
            o[6 * i + 3] = rotate(x, y);
            o[6 * i + 4] = add_sat(x, y);
            o[6 * i + 5] = rhadd(x, y);
            long p = la[2 * i], q = la[2 * i + 1];
            lo[4 * i] = mad_sat(p, q, p);
            lo[4 * i + 1] = mul_hi(p, q);
            lo[4 * i + 2] = (long)mad_sat((ulong)p, (ulong)q, (ulong)q);
            lo[4 * i + 3] = upsample((int)p, (uint)q);
            uint w = (uint)p;
            u[4 * i] = clz(w); u[4 * i + 1] = ctz(w); u[4 * i + 2] = popcount(w);
            u[4 * i + 3] = mad24(w & 0xffff, 3u, 7u);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let n = 16;
    let mut a: Vec<i8> = (0..16 * n).map(|j| (j * 37 + 11) as i8).collect();
    let mut b: Vec<i8> = (0..16 * n).map(|j| (j * 101 + 3) as i8).collect();
    let mut o = vec![0i8; 6 * 16 * n];
    let mut la: Vec<i64> = (0..2 * n as i64)
        .map(|j| (j * 0x0123_4567_89ab_cdef).wrapping_mul(j + 1) ^ (j << 60))
        .collect();
    let mut lo = vec![0i64; 4 * n];
    let mut u = vec![0u32; 4 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut a)
        .buf(1, &mut b)
        .buf(2, &mut o)
        .buf(3, &mut la)
        .buf(4, &mut lo)
        .buf(5, &mut u);
    run1(&k, &args, n as u64, 4);
    for i in 0..n {
        for j in 0..16 {
            let (x, y) = (a[16 * i + j], b[16 * i + j]);
            let r = |k: usize| o[(6 * i + k) * 16 + j];
            assert_eq!(r(0), ((i16::from(x) * i16::from(y)) >> 8) as i8, "mul_hi");
            assert_eq!(
                r(1),
                (i32::from(x) * i32::from(y) + 100).clamp(-128, 127) as i8,
                "mad_sat"
            );
            assert_eq!(
                r(2) as u8,
                (i16::from(x) - i16::from(y)).unsigned_abs() as u8,
                "abs_diff"
            );
            assert_eq!(
                r(3),
                (x as u8).rotate_left((y as u8 % 8).into()) as i8,
                "rotate"
            );
            assert_eq!(r(4), x.saturating_add(y), "add_sat");
            assert_eq!(
                r(5),
                ((i16::from(x) + i16::from(y) + 1) >> 1) as i8,
                "rhadd"
            );
        }
        let (p, q) = (la[2 * i], la[2 * i + 1]);
        assert_eq!(
            lo[4 * i],
            (i128::from(p) * i128::from(q) + i128::from(p)).clamp(i64::MIN.into(), i64::MAX.into())
                as i64
        );
        assert_eq!(
            lo[4 * i + 1],
            ((i128::from(p) * i128::from(q)) >> 64) as i64
        );
        let (pu, qu) = (p as u64, q as u64);
        assert_eq!(
            lo[4 * i + 2] as u64,
            (u128::from(pu) * u128::from(qu) + u128::from(qu)).min(u64::MAX.into()) as u64
        );
        assert_eq!(
            lo[4 * i + 3],
            ((p as i32 as i64) << 32) | i64::from(q as u32)
        );
        let w = p as u32;
        assert_eq!(
            &u[4 * i..4 * i + 4],
            &[
                w.leading_zeros(),
                w.trailing_zeros(),
                w.count_ones(),
                (w & 0xffff) * 3 + 7
            ]
        );
    }
}

#[test]
#[expect(
    clippy::needless_range_loop,
    reason = "indices pair input, output and expected lanes"
)]
fn geometric_without_overflow_and_shuffles_and_halves() {
    let src = r#"
        kernel void k(global const float4 *v, global float *o, global double *d,
                      global uint *sh, global ushort *h, global float *hf) {
            size_t i = get_global_id(0);
            float4 x = v[i];
            o[8 * i] = length(x);
            o[8 * i + 1] = length(x * 1e30f);
            o[8 * i + 2] = length(x * 1e-30f);
            o[8 * i + 3] = distance(x, -x);
            float4 nx = normalize(x * 1e30f);
            o[8 * i + 4] = nx.x; o[8 * i + 5] = nx.w;
            o[8 * i + 6] = fast_length(x);
            o[8 * i + 7] = dot(x, x);
            d[2 * i] = length((double2)(1e300, 1e300) * (double)x.x);
            d[2 * i + 1] = length((double3)(1e-310, 0.0, 1e-310));
            uint4 m = (uint4)(3, 2, 1, 0) + (uint)i;
            uint4 s = shuffle((uint4)(10, 11, 12, 13), m);
            uint8 s2 = shuffle2((uint4)(10, 11, 12, 13), (uint4)(20, 21, 22, 23),
                                (uint8)(7, 6, 5, 4, 3, 2, 1, 0) + (uint)i);
            vstore4(s, 0, sh + 12 * i);
            vstore8(s2, 0, sh + 12 * i + 4);
            vstore_half(x.x, 0, (global half *)(h + 8 * i));
            vstore_half_rtz(x.y * 1e5f, 0, (global half *)(h + 8 * i + 1));
            vstore_half_rtp(x.z * 1e-6f, 0, (global half *)(h + 8 * i + 2));
            vstore_half_rtn(x.w, 0, (global half *)(h + 8 * i + 3));
            vstore_half4_rte(x, 1, (global half *)(h + 8 * i));
            float4 back = vload_half4(1, (global half *)(h + 8 * i));
            vstore4(back, 0, hf + 5 * i);
            hf[5 * i + 4] = vload_half(2, (global half *)(h + 8 * i));
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let n = 8;
    let mut v: Vec<f32> = (0..4 * n)
        .map(|j| (j as f32 * 0.731 - 7.0) * if j % 3 == 0 { -1.0 } else { 1.0 })
        .collect();
    let mut o = vec![0f32; 8 * n];
    let mut d = vec![0f64; 2 * n];
    let mut sh = vec![0u32; 12 * n];
    let mut h = vec![0u16; 8 * n];
    let mut hf = vec![0f32; 5 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut v)
        .buf(1, &mut o)
        .buf(2, &mut d)
        .buf(3, &mut sh)
        .buf(4, &mut h)
        .buf(5, &mut hf);
    run1(&k, &args, n as u64, n as u64);
    for i in 0..n {
        let x: Vec<f64> = v[4 * i..4 * i + 4].iter().map(|f| f64::from(*f)).collect();
        let len = x.iter().map(|a| a * a).sum::<f64>().sqrt();
        assert!(ulps(o[8 * i], len) <= 3.0, "length");
        let big: f64 = x
            .iter()
            .map(|a| f64::from(*a as f32 * 1e30f32).powi(2))
            .sum::<f64>()
            .sqrt();
        assert!(
            ulps(o[8 * i + 1], big) <= 3.0,
            "length(large) {} {big}",
            o[8 * i + 1]
        );
        let tiny: f64 = x
            .iter()
            .map(|a| f64::from(*a as f32 * 1e-30f32).powi(2))
            .sum::<f64>()
            .sqrt();
        assert!(
            ulps(o[8 * i + 2], tiny) <= 3.0,
            "length(tiny) {} {tiny}",
            o[8 * i + 2]
        );
        assert!(ulps(o[8 * i + 3], 2.0 * len) <= 3.0, "distance");
        assert!(
            ulps(o[8 * i + 4], x[0] / len) <= 3.0 && ulps(o[8 * i + 5], x[3] / len) <= 3.0,
            "normalize(large)"
        );
        assert!(ulps(o[8 * i + 6], len) <= 3.0, "fast_length");
        let dd = x[0] * 1e300 * 2f64.sqrt();
        assert!(
            (d[2 * i] - dd.abs()).abs() <= dd.abs() * 1e-15,
            "double length(large) {} {dd}",
            d[2 * i]
        );
        assert!(
            (d[2 * i + 1] - 1e-310 * 2f64.sqrt()).abs() < 1e-320,
            "double length(denormal) {}",
            d[2 * i + 1]
        );
        let s = &sh[12 * i..12 * i + 12];
        for j in 0..4 {
            assert_eq!(s[j], 10 + ((3 - j as u32 + i as u32) & 3), "shuffle");
        }
        let all = [10, 11, 12, 13, 20, 21, 22, 23];
        for j in 0..8 {
            assert_eq!(s[4 + j], all[(7 - j + i) & 7], "shuffle2");
        }
        let hv = &h[8 * i..8 * i + 8];
        let to_f = |b: u16| half_to_f64(b);
        assert!(
            (to_f(hv[0]) - x[0]).abs() <= x[0].abs() / 2048.0,
            "vstore_half"
        );
        let y5 = f64::from(v[4 * i + 1] * 1e5);
        if y5.abs() < 65504.0 {
            assert!(to_f(hv[1]).abs() <= y5.abs(), "rtz");
        } else {
            assert_eq!(to_f(hv[1]).abs(), 65504.0, "rtz saturates");
        }
        let z6 = f64::from(v[4 * i + 2] * 1e-6);
        assert!(to_f(hv[2]) >= z6, "rtp {} {z6}", to_f(hv[2]));
        assert!(to_f(hv[3]) <= x[3], "rtn");
        for j in 0..4 {
            assert!(
                (f64::from(hf[5 * i + j]) - x[j]).abs() <= x[j].abs() / 2048.0,
                "vload_half4"
            );
            assert_eq!(f64::from(hf[5 * i + j]), to_f(hv[4 + j]));
        }
        assert_eq!(f64::from(hf[5 * i + 4]), to_f(hv[2]), "vload_half");
    }
}

fn half_to_f64(b: u16) -> f64 {
    let s = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((b >> 10) & 0x1f);
    let m = f64::from(b & 0x3ff);
    s * match e {
        0 => m * 2f64.powi(-24),
        31 => {
            if m == 0.0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        }
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}
