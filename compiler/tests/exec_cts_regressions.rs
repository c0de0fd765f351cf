//! Regressions from the CTS: `normalize` of float vectors whose float length overflows
//! (geometrics `geom_normalize`), private variables aligned above 16 bytes, on the stack
//! and in barrier kernels' work-item frames (vectors `vec_align_struct`), and saturating
//! 64→32-bit conversions in kernels the vectoriser takes (conversions `convert_uint_sat`),
//! and rounding modes and saturation of conversions in kernels with a barrier (OpenCV's
//! `equalizeHist`).

#[path = "common/harness.rs"]
mod harness;

use harness::{kernel, kernel_opt, run1, Args};

/// The CTS reference (`verifyNormalize`): everything in double, rounded once.
fn normalize_ref(x: &[f32]) -> Vec<f32> {
    let mut total: f64 = x.iter().map(|v| f64::from(*v) * f64::from(*v)).sum();
    if total == 0.0 {
        return x.to_vec();
    }
    let mut src = x.to_vec();
    if total == f64::INFINITY {
        src = x
            .iter()
            .map(|v| {
                if v.is_infinite() {
                    1f32.copysign(*v)
                } else {
                    0f32.copysign(*v)
                }
            })
            .collect();
        total = src.iter().map(|v| f64::from(*v) * f64::from(*v)).sum();
    }
    let len = total.sqrt();
    src.iter().map(|v| (f64::from(*v) / len) as f32).collect()
}

fn ulps(a: f32, b: f32) -> u32 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    let key = |v: f32| {
        let i = v.to_bits() as i32;
        if i < 0 {
            i64::from(i32::MIN) - i64::from(i)
        } else {
            i64::from(i)
        }
    };
    (key(a) - key(b)).unsigned_abs().min(u64::from(u32::MAX)) as u32
}

#[test]
fn normalize_of_huge_float_vectors_does_not_overflow() {
    let mut rng = 0x1234_5678u32;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 17;
        rng ^= rng << 5;
        rng
    };
    for n in [2usize, 3, 4] {
        let src = format!(
            r#"
            kernel void norm(global const float *in, global float *out) {{
                size_t i = get_global_id(0);
                vstore{n}(normalize(vload{n}(i, in)), i, out);
            }}"#
        );
        let Some(k) = kernel(&src, "norm") else {
            return;
        };
        let mut input: Vec<f32> = vec![-3.07e38, 2.24e38, 3.4e38, -3.4e38];
        input.truncate(n);
        // Huge random vectors (exponents 120..=127), then the special cases.
        for _ in 0..64 {
            for _ in 0..n {
                let r = next();
                let bits = (r & 0x8000_0000) | ((247 + (r >> 8) % 7) << 23) | (r & 0x7f_ffff);
                input.push(f32::from_bits(bits));
            }
        }
        input.extend(std::iter::repeat_n(f32::MAX, n));
        input.extend(std::iter::repeat_n(0.0f32, n));
        let mut inf = vec![-0.0f32; n];
        inf[0] = f32::NEG_INFINITY;
        inf[n - 1] = 3.0e38;
        input.extend(inf);
        input.extend((0..n).map(|j| if j == 1 { f32::INFINITY } else { 1.0e-45 }));
        let items = input.len() / n;
        let mut out = vec![0f32; input.len()];
        let mut args = Args::new(&k.info);
        args.buf(0, &mut input).buf(1, &mut out);
        run1(&k, &args, items as u64, 1);
        for i in 0..items {
            let x = &input[i * n..(i + 1) * n];
            let want = normalize_ref(x);
            let got = &out[i * n..(i + 1) * n];
            for j in 0..n {
                assert!(
                    ulps(got[j], want[j]) <= 1,
                    "float{n} normalize({x:?}) = {got:?}, want {want:?}"
                );
            }
        }
    }
}

#[test]
fn normalize_of_huge_double_vectors_does_not_overflow() {
    let src = r#"
        #pragma OPENCL EXTENSION cl_khr_fp64 : enable
        kernel void norm(global const double *in, global double *out) {
            size_t i = get_global_id(0);
            vstore2(normalize(vload2(i, in)), i, out);
        }"#;
    let Some(k) = kernel(src, "norm") else { return };
    let mut input = vec![
        f64::MAX,
        f64::MAX,
        -1.5e308,
        1.0e308,
        5e-324,
        -5e-324,
        3.0,
        4.0,
    ];
    let mut out = vec![0f64; input.len()];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut input).buf(1, &mut out);
    run1(&k, &args, 4, 1);
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let r = 1.5 / 1.5f64.hypot(1.0);
    let want = [s, s, -r, r / 1.5, s, -s, 0.6, 0.8];
    for (g, w) in out.iter().zip(want) {
        assert!((g - w).abs() <= 4.0 * f64::EPSILON, "{out:?} vs {want:?}");
    }
}

/// `&s.v` of a private `struct { char c; short16 v; }` (and of an `int8` after a `char`)
/// must be 32-byte aligned in every work-item, with and without a barrier (frames).
#[test]
fn private_struct_with_32_byte_aligned_member_is_aligned() {
    for barrier in [false, true] {
        let b = if barrier {
            "barrier(CLK_LOCAL_MEM_FENCE);"
        } else {
            ""
        };
        let src = format!(
            r#"
            typedef struct {{ char c; short16 v; }} S;
            typedef struct {{ char c; int8 v; }} T;
            kernel void al(global ulong *out) {{
                size_t i = get_global_id(0);
                char pad = (char)i;
                S s;
                T t;
                int4 q = (int4)((int)i);
                s.c = pad;
                t.c = pad;
                s.v = (short16)((short)i);
                t.v = (int8)((int)i);
                {b}
                out[3 * i] = (ulong)&s.v % 32;
                out[3 * i + 1] = (ulong)&t.v % 32;
                out[3 * i + 2] = (ulong)(s.v.sf + t.v.s7 + s.c + t.c + pad + q.w);
            }}"#
        );
        for opt in ["-O0", "-O2"] {
            let Some(k) = kernel_opt(&src, "al", opt) else {
                return;
            };
            assert_eq!(k.frame_size_per_item > 0, barrier, "{opt}");
            // -O0 keeps the variables in memory; with the barrier its frame is 176 bytes
            // unless rounded to the 32-byte alignment, so item 1 would see `&s.v % 32 == 16`.
            let items = 16usize;
            let mut out = vec![u64::MAX; 3 * items];
            let mut args = Args::new(&k.info);
            args.buf(0, &mut out);
            run1(&k, &args, items as u64, 8);
            for i in 0..items {
                assert_eq!(out[3 * i], 0, "barrier={barrier} {opt}: &s.v of item {i}");
                assert_eq!(
                    out[3 * i + 1],
                    0,
                    "barrier={barrier} {opt}: &t.v of item {i}"
                );
                assert_eq!(
                    out[3 * i + 2],
                    6 * i as u64,
                    "barrier={barrier} {opt}: item {i}"
                );
            }
        }
    }
}

/// `convert_uint_sat(ulong)` and `convert_int_sat(long)` in a straight-line kernel: the
/// vectoriser handled `OpUConvert`/`OpSConvert` and ignored their `SaturatedConversion`
/// decoration, truncating (test_conversions: 0xfffffffffffffffd gave 0xfffffffd).
#[test]
fn saturating_narrowing_in_a_vectorised_kernel() {
    let src = r#"
        kernel void k(global const ulong *u, global const long *s, global uint *ou,
                      global int *os) {
            size_t i = get_global_id(0);
            ou[i] = convert_uint_sat(u[i]);
            os[i] = convert_int_sat(s[i]);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let mut u: Vec<u64> = vec![
        0,
        1,
        0xffff_ffff,
        0x1_0000_0000,
        u64::MAX - 2,
        1 << 63,
        7,
        1 << 40,
    ];
    let mut s: Vec<i64> = vec![
        0,
        -1,
        i64::MAX - 2,
        i64::MIN,
        1 << 31,
        -(1 << 31) - 1,
        5,
        -5,
    ];
    let n = u.len();
    let mut ou = vec![0u32; n];
    let mut os = vec![0i32; n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut u)
        .buf(1, &mut s)
        .buf(2, &mut ou)
        .buf(3, &mut os);
    run1(&k, &args, n as u64, n as u64);
    let want_u: Vec<u32> = u
        .iter()
        .map(|&v| v.min(u64::from(u32::MAX)) as u32)
        .collect();
    let want_s: Vec<i32> = s
        .iter()
        .map(|&v| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32)
        .collect();
    assert_eq!(ou, want_u);
    assert_eq!(os, want_s);
}

/// OpenCV's `equalizeHist` on Ferrite: in a kernel with `barrier(CLK_LOCAL_MEM_FENCE)`,
/// `convert_int_rte`, `convert_int_rtp` and `convert_uchar_sat_rte` of a `float` truncated
/// toward zero. A barrier kernel's body is inlined into its wrapper with fresh result ids, and
/// the decorations (`FPRoundingMode`, `SaturatedConversion`) stayed on the old ids.
#[test]
fn rounding_and_saturation_survive_inlining_into_barrier_kernels() {
    let src = r#"
        kernel void k(global const float *x, global int *rte, global int *rtp,
                      global int *rtn, global uchar *sat, local float *tmp) {
            size_t i = get_global_id(0), l = get_local_id(0);
            tmp[l] = x[i];
            barrier(CLK_LOCAL_MEM_FENCE);
            float v = tmp[get_local_size(0) - 1 - l];
            rte[i] = convert_int_rte(v);
            rtp[i] = convert_int_rtp(v);
            rtn[i] = convert_int_rtn(v);
            sat[i] = convert_uchar_sat_rte(v);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let mut x: Vec<f32> = vec![0.6, 0.1, -0.4, 2.5, 3.5, -1.5, 255.7, 300.2];
    let n = x.len();
    let (mut rte, mut rtp, mut rtn) = (vec![0i32; n], vec![0i32; n], vec![0i32; n]);
    let mut sat = vec![0u8; n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut x)
        .buf(1, &mut rte)
        .buf(2, &mut rtp)
        .buf(3, &mut rtn)
        .buf(4, &mut sat)
        .local(5, k.static_local_size as u64);
    harness::run1_local(&k, &args, n as u64, n as u64, k.static_local_size + 4 * n);
    let v: Vec<f32> = x.iter().rev().copied().collect();
    let want_rte: Vec<i32> = v.iter().map(|f| f.round_ties_even() as i32).collect();
    let want_rtp: Vec<i32> = v.iter().map(|f| f.ceil() as i32).collect();
    let want_rtn: Vec<i32> = v.iter().map(|f| f.floor() as i32).collect();
    let want_sat: Vec<u8> = v
        .iter()
        .map(|f| f.round_ties_even().clamp(0.0, 255.0) as u8)
        .collect();
    assert_eq!(rte, want_rte, "convert_int_rte");
    assert_eq!(rtp, want_rtp, "convert_int_rtp");
    assert_eq!(rtn, want_rtn, "convert_int_rtn");
    assert_eq!(sat, want_sat, "convert_uchar_sat_rte");
}
