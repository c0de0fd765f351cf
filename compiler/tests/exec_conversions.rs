//! Conversions: `convert_<type>[_sat][_rte|_rtz|_rtp|_rtn]` for scalars and vectors, and
//! `as_<type>`, checked against host references (Rust's `as` is the saturating,
//! NaN → 0 conversion OpenCL's `_sat` asks for; directed int/double → float is checked
//! by comparing back exactly).

#[path = "common/harness.rs"]
mod harness;

use harness::{kernel, run1, Args};

/// Edge-case and random floats.
fn floats() -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        -1.5,
        0.49999997,
        1e10,
        -1e10,
        3e9,
        2147483520.0,
        2147483648.0,
        -2147483904.0,
        4294967040.0,
        4294967296.0,
        255.5,
        256.0,
        -129.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        -f32::from_bits(0x0040_0000),
        f32::MAX,
        f32::MIN,
        16777217.0,
    ];
    let mut s = 0x1234_5678u32;
    while v.len() < 1024 {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        let x = f32::from_bits(s);
        if x.is_finite() && x.abs() < 1e12 {
            v.push(x);
        } else {
            v.push((s as i32) as f32 / 1000.0);
        }
    }
    v
}

#[test]
fn float_to_int_rounding_and_saturation() {
    let src = r#"
        kernel void k(global const float *x, global int *o) {
            size_t i = get_global_id(0);
            float v = x[i];
            global int *r = o + 16 * i;
            r[0] = convert_int_sat(v);
            r[1] = convert_int_sat_rte(v);
            r[2] = convert_int_sat_rtz(v);
            r[3] = convert_int_sat_rtp(v);
            r[4] = convert_int_sat_rtn(v);
            r[5] = convert_uint_sat_rte(v);
            r[6] = convert_char_sat_rtn(v);
            r[7] = convert_uchar_sat(v);
            r[8] = convert_short_sat_rtp(v);
            r[9] = convert_ushort_sat_rte(v);
            long l = convert_long_sat_rte(v);
            r[10] = (int)l; r[11] = (int)(l >> 32);
            ulong u = convert_ulong_sat_rtn(v);
            r[12] = (int)u; r[13] = (int)(u >> 32);
            if (fabs(v) < 1e9f) { r[14] = convert_int_rte(v); r[15] = convert_int_rtn(v); }
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let mut x = floats();
    let n = x.len();
    let mut o = vec![0i32; 16 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut x).buf(1, &mut o);
    run1(&k, &args, n as u64, 64);
    for (i, &v) in x.iter().enumerate() {
        let r = &o[16 * i..16 * i + 16];
        let (e, z, p, m) = (v.round_ties_even(), v.trunc(), v.ceil(), v.floor());
        assert_eq!(r[0], v as i32, "convert_int_sat({v:e})");
        assert_eq!(r[1], e as i32, "rte({v:e})");
        assert_eq!(r[2], z as i32, "rtz({v:e})");
        assert_eq!(r[3], p as i32, "rtp({v:e})");
        assert_eq!(r[4], m as i32, "rtn({v:e})");
        assert_eq!(r[5] as u32, e as u32, "uint rte({v:e})");
        assert_eq!(r[6], i32::from(m as i8), "char rtn({v:e})");
        assert_eq!(r[7], i32::from(v as u8), "uchar({v:e})");
        assert_eq!(r[8], i32::from(p as i16), "short rtp({v:e})");
        assert_eq!(r[9], i32::from(e as u16), "ushort rte({v:e})");
        let l = (r[10] as u32 as u64 | ((r[11] as u32 as u64) << 32)) as i64;
        assert_eq!(l, e as i64, "long rte({v:e})");
        let u = r[12] as u32 as u64 | ((r[13] as u32 as u64) << 32);
        assert_eq!(u, m as u64, "ulong rtn({v:e})");
        if v.abs() < 1e9 {
            assert_eq!(r[14], e as i32, "int_rte({v:e})");
            assert_eq!(r[15], m as i32, "int_rtn({v:e})");
        }
    }
}

/// The float nearest `x` in direction `mode` (0 rte, 1 rtz, 2 rtp, 3 rtn), by exact
/// comparison in `i128`.
fn int_to_f32_ref(x: i128, mode: u32) -> f32 {
    let r = x as f32;
    let back = r as i128;
    match mode {
        1 if back.abs() > x.abs() => r.next_toward_zero(),
        2 if back < x => r.next_up(),
        3 if back > x => r.next_down(),
        _ => r,
    }
}

trait TowardZero {
    fn next_toward_zero(self) -> Self;
}
impl TowardZero for f32 {
    fn next_toward_zero(self) -> f32 {
        if self > 0.0 {
            self.next_down()
        } else {
            self.next_up()
        }
    }
}

#[test]
fn int_and_double_to_float_rounding_modes() {
    let src = r#"
        kernel void k(global const long *x, global const double *d, global float *o,
                      global double *od) {
            size_t i = get_global_id(0);
            long v = x[i];
            global float *r = o + 16 * i;
            r[0] = convert_float(v);
            r[1] = convert_float_rtz(v);
            r[2] = convert_float_rtp(v);
            r[3] = convert_float_rtn(v);
            r[4] = convert_float_rtz((int)v);
            r[5] = convert_float_rtp((int)v);
            r[6] = convert_float_rtn((uint)v);
            r[7] = convert_float_rtp((ulong)v);
            r[8] = convert_float_rtz(d[i]);
            r[9] = convert_float_rtp(d[i]);
            r[10] = convert_float_rtn(d[i]);
            r[11] = convert_float_rte(d[i]);
            od[2 * i] = convert_double_rtz(v);
            od[2 * i + 1] = convert_double_rtp((ulong)v);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let mut x: Vec<i64> = vec![
        0,
        1,
        -1,
        (1 << 24) + 1,
        -(1 << 24) - 1,
        (1 << 53) + 1,
        i64::MAX,
        i64::MIN,
        i64::MIN + 1,
        0x7fff_ffff,
        -0x7fff_ffff,
        123_456_789_123,
    ];
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    while x.len() < 512 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        x.push((s as i64) >> (s % 40));
    }
    let n = x.len();
    let mut d: Vec<f64> = x
        .iter()
        .enumerate()
        .map(|(i, &v)| match i {
            0 => 1e300,
            1 => -1e300,
            2 => f64::NAN,
            3 => 1.0 + f64::EPSILON,
            4 => f64::from(f32::MIN_POSITIVE) * 0.75,
            5 => f64::from(f32::MAX) * (1.0 + f64::EPSILON),
            _ => v as f64 * 1.000_000_1e-7,
        })
        .collect();
    let mut o = vec![0f32; 16 * n];
    let mut od = vec![0f64; 2 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut x)
        .buf(1, &mut d)
        .buf(2, &mut o)
        .buf(3, &mut od);
    run1(&k, &args, n as u64, 32);
    let f64_to_f32 = |v: f64, mode: u32| -> f32 {
        let r = v as f32;
        if r.is_nan() {
            return r;
        }
        let back = f64::from(r);
        match mode {
            1 if back.abs() > v.abs() => r.next_toward_zero(),
            2 if back < v => r.next_up(),
            3 if back > v => r.next_down(),
            _ => r,
        }
    };
    for i in 0..n {
        let v = i128::from(x[i]);
        let r = &o[16 * i..16 * i + 16];
        let b = |f: f32| f.to_bits();
        assert_eq!(b(r[0]), b(int_to_f32_ref(v, 0)), "rte {v}");
        assert_eq!(b(r[1]), b(int_to_f32_ref(v, 1)), "rtz {v}");
        assert_eq!(b(r[2]), b(int_to_f32_ref(v, 2)), "rtp {v}");
        assert_eq!(b(r[3]), b(int_to_f32_ref(v, 3)), "rtn {v}");
        let i32v = i128::from(x[i] as i32);
        assert_eq!(b(r[4]), b(int_to_f32_ref(i32v, 1)), "int rtz {i32v}");
        assert_eq!(b(r[5]), b(int_to_f32_ref(i32v, 2)), "int rtp {i32v}");
        let u32v = i128::from(x[i] as u32);
        assert_eq!(b(r[6]), b(int_to_f32_ref(u32v, 3)), "uint rtn {u32v}");
        let u64v = i128::from(x[i] as u64);
        assert_eq!(b(r[7]), b(int_to_f32_ref(u64v, 2)), "ulong rtp {u64v}");
        for (k, mode) in [(8, 1), (9, 2), (10, 3), (11, 0)] {
            let want = f64_to_f32(d[i], mode);
            assert!(
                b(r[k]) == b(want) || (want.is_nan() && r[k].is_nan()),
                "double {} mode {mode}: {} vs {want}",
                d[i],
                r[k]
            );
        }
        let dz = {
            let r = x[i] as f64;
            if (r as i128).abs() > v.abs() {
                if r > 0.0 {
                    r.next_down()
                } else {
                    r.next_up()
                }
            } else {
                r
            }
        };
        assert_eq!(od[2 * i], dz, "double rtz {v}");
        let dp = {
            let r = u64v as f64;
            if (r as i128) < u64v {
                r.next_up()
            } else {
                r
            }
        };
        assert_eq!(od[2 * i + 1], dp, "double rtp {u64v}");
    }
}

#[test]
fn vector_conversions_and_reinterpretation() {
    let src = r#"
        kernel void k(global const float16 *x, global int16 *o, global uchar8 *c,
                      global float4 *f, global int3 *i3) {
            size_t i = get_global_id(0);
            o[i] = convert_int16_sat_rte(x[i] * 1000.0f);
            c[i] = convert_uchar8_sat(x[i].s01234567 * 300.0f);
            f[i] = as_float4(as_int4(x[i].lo.lo) ^ (int4)(0x80000000));
            float2 h = convert_float2_rtp((double2)(x[i].s0, 1.0 + 1e-12));
            f[i + 4] = (float4)(h, as_float2(convert_uint2_rtn(x[i].s23 * 10.0f)));
            i3[i] = convert_int3_rtz(x[i].s567 * 7.5f);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let n = 4;
    let mut x: Vec<f32> = (0..16 * n).map(|j| (j as f32 - 20.0) * 0.37).collect();
    let mut o = vec![0i32; 16 * n];
    let mut c = vec![0u8; 8 * n];
    let mut f = vec![0f32; 4 * 2 * n];
    let mut i3 = vec![0i32; 4 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut x)
        .buf(1, &mut o)
        .buf(2, &mut c)
        .buf(3, &mut f)
        .buf(4, &mut i3);
    run1(&k, &args, n as u64, n as u64);
    for i in 0..n {
        for j in 0..16 {
            let v = x[16 * i + j] * 1000.0;
            assert_eq!(o[16 * i + j], v.round_ties_even() as i32);
        }
        for j in 0..8 {
            assert_eq!(c[8 * i + j], (x[16 * i + j] * 300.0) as u8);
        }
        for j in 0..4 {
            assert_eq!(f[4 * i + j], -x[16 * i + j]);
        }
        assert_eq!(f[4 * (i + 4)], x[16 * i]);
        assert_eq!(f[4 * (i + 4) + 1], 1.0f32.next_up());
        for j in 0..2 {
            let want = (x[16 * i + 2 + j] * 10.0).floor() as u32;
            assert_eq!(f[4 * (i + 4) + 2 + j].to_bits(), want);
        }
        for j in 0..3 {
            assert_eq!(i3[4 * i + j], (x[16 * i + 5 + j] * 7.5) as i32);
        }
    }
}
