//! The OpenCL C kernel language through the real loader: conversions with every rounding
//! mode, a sample of math built-ins against host references, and `printf` (the test
//! re-runs itself as a child process with `FERRITE_TEST_PRINTF_CHILD` set and compares the
//! child's stdout exactly).

use ferrite_tests::*;
use std::process::Command;

#[test]
fn conversions_with_rounding_modes() {
    let env = Env::new();
    let src = r#"
__kernel void k(__global const float *f, __global const long *l, __global int *oi,
                __global float *of) {
    size_t i = get_global_id(0);
    float v = f[i];
    oi[4 * i] = convert_int_sat_rte(v);
    oi[4 * i + 1] = convert_int_sat_rtp(v);
    oi[4 * i + 2] = convert_int_sat_rtn(v);
    oi[4 * i + 3] = convert_uchar_sat(v);
    of[3 * i] = convert_float_rtz(l[i]);
    of[3 * i + 1] = convert_float_rtp(l[i]);
    of[3 * i + 2] = convert_float_rtn(l[i]);
}
"#;
    let f: Vec<f32> = vec![
        0.5,
        1.5,
        -2.5,
        -0.5,
        3e9,
        -3e9,
        f32::NAN,
        255.7,
        -1.0,
        1e-30,
        2.4999998,
        300.0,
    ];
    let l: Vec<i64> = vec![
        (1 << 24) + 1,
        -(1 << 24) - 1,
        i64::MAX,
        i64::MIN + 1,
        0,
        1,
        -1,
        123_456_789_123,
        (1 << 40) + 3,
        -(1 << 30) - 7,
        16_777_219,
        -16_777_219,
    ];
    let n = f.len();
    let (bf, bl) = (env.buffer_from(&f), env.buffer_from(&l));
    let (bi, bo) = (
        env.buffer_zeroed::<i32>(4 * n),
        env.buffer_zeroed::<f32>(3 * n),
    );
    let k = env.build(src, "").kernel("k");
    k.buf(0, &bf).buf(1, &bl).buf(2, &bi).buf(3, &bo);
    run_1d(&env.queue, &k, n, None);
    let oi: Vec<i32> = bi.read(&env.queue, 4 * n);
    let of: Vec<f32> = bo.read(&env.queue, 3 * n);
    for i in 0..n {
        let v = f[i];
        assert_eq!(oi[4 * i], v.round_ties_even() as i32, "rte {v}");
        assert_eq!(oi[4 * i + 1], v.ceil() as i32, "rtp {v}");
        assert_eq!(oi[4 * i + 2], v.floor() as i32, "rtn {v}");
        assert_eq!(oi[4 * i + 3], i32::from(v as u8), "uchar_sat {v}");
        let x = i128::from(l[i]);
        let r = l[i] as f32;
        let back = r as i128;
        let toward_zero = if back.abs() > x.abs() {
            if r > 0.0 {
                r.next_down()
            } else {
                r.next_up()
            }
        } else {
            r
        };
        let up = if back < x { r.next_up() } else { r };
        let down = if back > x { r.next_down() } else { r };
        assert_eq!(of[3 * i], toward_zero, "rtz {x}");
        assert_eq!(of[3 * i + 1], up, "rtp {x}");
        assert_eq!(of[3 * i + 2], down, "rtn {x}");
    }
}

fn ulps(got: f32, want: f64) -> f64 {
    if want.is_nan() {
        return if got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if want.is_infinite() || got.is_infinite() {
        return if got == want as f32 {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let w = (want as f32).abs();
    let e = if w == 0.0 {
        -149
    } else {
        (w.to_bits() >> 23) as i32 - 150
    };
    (f64::from(got) - want).abs() / 2f64.powi(e.max(-149))
}

#[test]
fn math_sample_within_ulp_bounds() {
    let env = Env::new();
    let src = r#"
__kernel void k(__global const float *x, __global float *o) {
    size_t i = get_global_id(0);
    float v = x[i];
    o[8 * i] = sin(v);
    o[8 * i + 1] = exp(v);
    o[8 * i + 2] = log2(v);
    o[8 * i + 3] = pow(v, 1.5f);
    o[8 * i + 4] = sinpi(v);
    o[8 * i + 5] = atan2(v, 0.75f);
    o[8 * i + 6] = cbrt(v);
    o[8 * i + 7] = tanh(v);
}
"#;
    let mut rng = Rng(0xfeed);
    let mut x: Vec<f32> = vec![0.0, -0.0, 1.0, 0.5, f32::INFINITY, f32::NAN, 1e-40, 88.0];
    while x.len() < 4096 {
        x.push(rng.f32(50.0));
    }
    let n = x.len();
    let bx = env.buffer_from(&x);
    let bo = env.buffer_zeroed::<f32>(8 * n);
    let k = env.build(src, "").kernel("k");
    k.buf(0, &bx).buf(1, &bo);
    run_1d(&env.queue, &k, n, None);
    let o: Vec<f32> = bo.read(&env.queue, 8 * n);
    let sinpi = |v: f64| {
        let r = v - 2.0 * (v / 2.0).round();
        if !v.is_finite() {
            f64::NAN
        } else if r == r.round() {
            0.0
        } else {
            (std::f64::consts::PI * r).sin()
        }
    };
    // (function, ULP bound from the OpenCL C accuracy table, host reference)
    type Check<'a> = (&'a str, f64, &'a dyn Fn(f64) -> f64);
    let checks: [Check; 8] = [
        ("sin", 4.0, &|v| v.sin()),
        ("exp", 3.0, &|v| v.exp()),
        ("log2", 3.0, &|v| v.log2()),
        ("pow", 16.0, &|v| v.powf(1.5)),
        ("sinpi", 4.0, &sinpi),
        ("atan2", 6.0, &|v| v.atan2(0.75)),
        ("cbrt", 2.0, &|v| v.cbrt()),
        ("tanh", 5.0, &|v| v.tanh()),
    ];
    for i in 0..n {
        for (k, (name, bound, f)) in checks.iter().enumerate() {
            let want = f(f64::from(x[i]));
            let got = o[8 * i + k];
            let e = ulps(got, want);
            assert!(
                e <= *bound || (want == 0.0 && got == 0.0),
                "{name}({}) = {got}, want {want} ({e} ulp)",
                x[i]
            );
        }
    }
}

const PRINTF_SRC: &str = r#"
__kernel void k(__global const float *f) {
    size_t i = get_global_id(0);
    printf("wi %d: %.3f %v2hld %s %c %#x %e\n", (int)i, f[i], (int2)((int)i, -(int)i),
           "ok", 'a' + (int)i, (uint)i * 255u, (double)f[i] * 1e10);
}
"#;

/// The child: run the printf kernel, print a marker before and after, and exit.
fn printf_child() {
    let env = Env::new();
    let f: Vec<f32> = (0..6).map(|i| i as f32 / 3.0).collect();
    let bf = env.buffer_from(&f);
    let k = env.build(PRINTF_SRC, "").kernel("k");
    k.buf(0, &bf);
    println!("before");
    run_1d(&env.queue, &k, f.len(), Some(2));
    env.queue.finish();
    println!("after");
}

#[test]
fn printf_output_reaches_stdout_in_order() {
    if std::env::var_os("FERRITE_TEST_PRINTF_CHILD").is_some() {
        printf_child();
        return;
    }
    let exe = std::env::current_exe().expect("test binary path");
    let out = Command::new(exe)
        .args([
            "printf_output_reaches_stdout_in_order",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("FERRITE_TEST_PRINTF_CHILD", "1")
        .output()
        .expect("run the test binary as a child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut want = String::from("before\n");
    for i in 0..6u32 {
        let f = i as f32 / 3.0;
        want += &format!(
            "wi {i}: {:.3} {i},{} ok {} {} {}\n",
            f,
            -(i as i32),
            (b'a' + i as u8) as char,
            if i == 0 {
                "0".to_string()
            } else {
                format!("{:#x}", i * 255)
            },
            c_exp(f64::from(f) * 1e10)
        );
    }
    want += "after\n";
    // The harness prints its own lines ("running 1 test", …) around ours.
    let start = stdout.find("before\n").expect("marker before the kernel");
    let end = stdout.find("after\n").expect("marker after the kernel") + "after\n".len();
    assert_eq!(&stdout[start..end], want);
}

/// C's `%e`: one digit, six decimals, a signed two-digit exponent.
fn c_exp(x: f64) -> String {
    let s = format!("{x:.6e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// `cl_ext_float_atomics`: the device claims it, reports what it claims through the
/// extension's queries, and a kernel using float and double add/min/max in global and local
/// memory builds without any option and counts right.
#[test]
fn float_atomics_extension() {
    const SINGLE: cl_device_info = 0x4231; // CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT
    const DOUBLE: cl_device_info = 0x4232;
    let exts = device_string(CL_DEVICE_EXTENSIONS);
    if !require(
        exts.contains("cl_ext_float_atomics"),
        "cl_ext_float_atomics",
    ) {
        return;
    }
    let all = 0b111 | 0b111 << 16; // load/store, add, min/max in global and local memory
    assert_eq!(
        device_get::<cl_bitfield>(SINGLE) & all,
        all,
        "fp32 capabilities"
    );
    let fp64 = device_has_fp64();
    if fp64 {
        assert_eq!(
            device_get::<cl_bitfield>(DOUBLE) & all,
            all,
            "fp64 capabilities"
        );
    }
    let env = Env::new();
    let src = r#"
#if !defined(__opencl_c_ext_fp32_global_atomic_add) || !defined(__opencl_c_ext_fp32_local_atomic_min_max)
#error the feature macros must follow the claims
#endif
kernel void k(global atomic_float *sum, global atomic_float *mm, global atomic_double *dsum) {
    local atomic_float lmax;
    if (get_local_id(0) == 0)
        atomic_init(&lmax, -1.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    float v = (float)(get_global_id(0) % 8);
    atomic_fetch_add(sum, 0.5f);
    atomic_fetch_min(&mm[0], v - 3.0f);
    atomic_fetch_max(&mm[1], v + 3.0f);
    atomic_fetch_max(&lmax, v);
    atomic_fetch_add(dsum, 0.25);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        atomic_fetch_add(&mm[2], atomic_load(&lmax));
}
"#;
    let n = 1024;
    let sum = env.buffer_from(&[0.0f32]);
    let mm = env.buffer_from(&[100.0f32, -100.0, 0.0]);
    let dsum = env.buffer_from(&[0.0f64]);
    let k = env.build(src, "-cl-std=CL3.0").kernel("k");
    k.buf(0, &sum).buf(1, &mm).buf(2, &dsum);
    run_1d(&env.queue, &k, n, Some(64));
    assert_eq!(sum.read::<f32>(&env.queue, 1), vec![512.0]);
    assert_eq!(mm.read::<f32>(&env.queue, 3), vec![-3.0, 10.0, 7.0 * 16.0]);
    assert_eq!(dsum.read::<f64>(&env.queue, 1), vec![256.0]);
}

/// `cl_ext_float_atomics` for halves: load/store and min/max in global and local memory are
/// claimed (add is not: llvm-spirv cannot translate it), the feature macros agree, and a
/// kernel using them works on the halves' 16 bits.
#[test]
fn half_atomics_extension() {
    const HALF: cl_device_info = 0x4233; // CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT
    let exts = device_string(CL_DEVICE_EXTENSIONS);
    if !require(
        exts.contains("cl_ext_float_atomics") && exts.contains("cl_khr_fp16"),
        "cl_ext_float_atomics and cl_khr_fp16",
    ) {
        return;
    }
    // Load/store (bit 0) and min/max (bit 2), global and local (<< 16); no add (bit 1).
    assert_eq!(
        device_get::<cl_bitfield>(HALF),
        0b101 | 0b101 << 16,
        "fp16 capabilities"
    );
    let env = Env::new();
    let src = r#"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#if !defined(__opencl_c_ext_fp16_global_atomic_min_max) || !defined(__opencl_c_ext_fp16_local_atomic_load_store) || defined(__opencl_c_ext_fp16_global_atomic_add)
#error the feature macros must follow the claims
#endif
kernel void k(global atomic_half *g, global half *out) {
    local atomic_half lmin;
    size_t i = get_global_id(0);
    if (get_local_id(0) == 0)
        atomic_store(&lmin, 100.0h);
    barrier(CLK_LOCAL_MEM_FENCE);
    half v = (half)(int)(i % 64) * 0.5h - 8.0h;
    atomic_fetch_min(&g[0], v);
    atomic_fetch_max(&g[1], v);
    atomic_fetch_min(&lmin, v);
    out[i] = atomic_exchange(&g[3], v);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i == 0)
        atomic_store(&g[2], atomic_load(&lmin));
}
"#;
    let n = 256;
    // Halves: 0, 0, 0, 100.0, and a sentinel a 32-bit atomic on g[3] would reach.
    let g = env.buffer_from(&[0u16, 0, 0, 0x5640, 0x5555]);
    let out = env.buffer_from(&vec![0u16; n]);
    let k = env.build(src, "-cl-std=CL3.0").kernel("k");
    k.buf(0, &g).buf(1, &out);
    run_1d(&env.queue, &k, n, Some(64));
    let g = g.read::<u16>(&env.queue, 5);
    // -8.0 = 0xc800, 23.5 = 0x4de0.
    assert_eq!(g[0], 0xc800, "global min");
    assert_eq!(g[1], 0x4de0, "global max");
    assert_eq!(g[2], 0xc800, "local min, stored");
    assert_eq!(g[4], 0x5555, "the half after the last one is untouched");
    // Every value exchanged in was handed on once, 100.0 first.
    let mut handed: Vec<u16> = out.read::<u16>(&env.queue, n);
    handed.push(g[3]);
    assert_eq!(
        handed.iter().filter(|&&h| h == 0x5640).count(),
        1,
        "100.0 handed on once"
    );
    // The values as halves: (i % 64) / 2 - 8 is a multiple of 0.5 below 2^5 in magnitude.
    let half = |x: f32| -> u16 {
        if x == 0.0 {
            return 0;
        }
        let b = x.to_bits();
        let e = ((b >> 23) & 0xff) + 15 - 127;
        (((b >> 16) & 0x8000) | (e << 10) | ((b >> 13) & 0x3ff)) as u16
    };
    let mut want: Vec<u16> = (0..n).map(|i| half((i % 64) as f32 * 0.5 - 8.0)).collect();
    want.push(0x5640);
    handed.sort_unstable();
    want.sort_unstable();
    assert_eq!(handed, want, "exchange");
}

/// `cl_khr_fp16`: claimed with truthful queries (round to nearest, infinities and NaNs,
/// a vector width), its macros defined for OpenCL C, and a kernel with half arguments,
/// arithmetic, `half4` vectors and conversions computing exact results.
#[test]
fn half_precision_extension() {
    const HALF_FP_CONFIG: cl_device_info = 0x1033;
    const PREFERRED_WIDTH_HALF: cl_device_info = 0x1034;
    const NATIVE_WIDTH_HALF: cl_device_info = 0x103C;
    if !require(
        device_string(CL_DEVICE_EXTENSIONS).contains("cl_khr_fp16"),
        "cl_khr_fp16",
    ) {
        return;
    }
    let config = device_get::<cl_bitfield>(HALF_FP_CONFIG);
    let (inf_nan, nearest) = (1 << 1, 1 << 2);
    assert_eq!(
        config & (inf_nan | nearest),
        inf_nan | nearest,
        "{config:#x}"
    );
    assert!(device_get::<cl_uint>(PREFERRED_WIDTH_HALF) > 0);
    assert!(device_get::<cl_uint>(NATIVE_WIDTH_HALF) > 0);
    let env = Env::new();
    let src = r#"
#if !defined(cl_khr_fp16) || !defined(__opencl_c_fp16)
#error the macros must follow the claim
#endif
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void k(global const half *x, global half4 *y, global float *f, half a) {
    size_t i = get_global_id(0);
    half v = x[i];
    y[i] = (half4)(v * a, v + a, v - a, v / a);
    f[i] = convert_float(v * v) + (float)convert_half_rtz(0.1f);
}
"#;
    // Halves 0..1023 as bits (small integers and their products are exact in half).
    let bits = |v: f32| -> u16 {
        if v == 0.0 {
            return 0;
        }
        let e = v.abs().log2().floor() as i32;
        let m = (v.abs() / 2f32.powi(e) * 1024.0) as u16 - 1024;
        (if v < 0.0 { 0x8000 } else { 0 }) | (((e + 15) as u16) << 10) | m
    };
    let n = 256;
    let x: Vec<u16> = (0..n).map(|i| bits(i as f32)).collect();
    let xb = env.buffer_from(&x);
    let y = env.buffer_from(&vec![0u16; 4 * n]);
    let f = env.buffer_from(&vec![0f32; n]);
    let k = env.build(src, "-cl-std=CL3.0").kernel("k");
    k.buf(0, &xb).buf(1, &y).buf(2, &f).arg(3, &bits(0.25));
    run_1d(&env.queue, &k, n, Some(64));
    let y = y.read::<u16>(&env.queue, 4 * n);
    let f = f.read::<f32>(&env.queue, n);
    // 0.1 toward zero in half: 0x2e66 = 1638 × 2^-14.
    let tenth = 1638.0 / 16384.0f32;
    for i in 0..n {
        let v = i as f32;
        let want = [
            bits(v * 0.25),
            bits(v + 0.25),
            bits(v - 0.25),
            bits(v * 4.0),
        ];
        assert_eq!(y[4 * i..4 * i + 4], want, "y[{i}]");
        // v * v is exact in half below 2048 (past it, rounded to half's 11 bits).
        if v * v < 2048.0 {
            assert_eq!(f[i], v * v + tenth, "f[{i}]");
        }
    }
}

/// `cl_khr_integer_dot_product` 2.0: claimed with both input forms, its queries answer, and
/// a kernel using the vector and packed forms builds without options and computes right.
#[test]
fn integer_dot_product_extension() {
    const CAPS: cl_device_info = 0x1073; // CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR
    const ACCEL_8BIT: cl_device_info = 0x1074;
    let exts = device_string(CL_DEVICE_EXTENSIONS);
    if !require(
        exts.contains("cl_khr_integer_dot_product"),
        "cl_khr_integer_dot_product",
    ) {
        return;
    }
    assert_eq!(
        device_get::<cl_bitfield>(CAPS) & 0b11,
        0b11,
        "packed and 4x8bit inputs"
    );
    let accel: [cl_bool; 6] = device_get(ACCEL_8BIT);
    assert!(accel.iter().all(|&b| b == CL_FALSE || b == CL_TRUE));
    let env = Env::new();
    let src = r#"
kernel void k(global const uint *a, global const uint *b, global int *out) {
    size_t i = get_global_id(0);
    out[3 * i] = dot(as_char4(a[i]), as_uchar4(b[i]));
    out[3 * i + 1] = dot_acc_sat_4x8packed_ss_int(a[i], b[i], 2147483600);
    out[3 * i + 2] = (int)dot_4x8packed_uu_uint(a[i], b[i]);
}
"#;
    let a = [0xff80_7f01u32, 0x0102_0304];
    let b = [0xff80_7f01u32, 0x0506_0708];
    let ba = env.buffer_from(&a);
    let bb = env.buffer_from(&b);
    let out = env.buffer_zeroed::<i32>(6);
    let k = env.build(src, "-cl-std=CL3.0").kernel("k");
    k.buf(0, &ba).buf(1, &bb).buf(2, &out);
    run_1d(&env.queue, &k, 2, None);
    // [-1, -128, 127, 1] . [255, 128, 127, 1] = -255 - 16384 + 16129 + 1 = -509
    // ss: 1 + 16384 + 16129 + 1 = 32515, + 2147483600 saturates
    // uu: 65025 + 16384 + 16129 + 1 = 97539
    // [4, 3, 2, 1] . [8, 7, 6, 5] = 32 + 21 + 12 + 5 = 70
    assert_eq!(
        out.read::<i32>(&env.queue, 6),
        vec![
            -509,
            i32::MAX,
            97539,
            70,
            2147483670i64.min(i32::MAX as i64) as i32,
            70
        ]
    );
}

/// cl_khr_kernel_clock: claimed with every scope, its macros defined for OpenCL C (the
/// prelude declares the functions where clang does not know them), and its clocks read
/// one monotonic time in every work-item.
#[test]
fn kernel_clock_extension() {
    const KERNEL_CLOCK_CAPABILITIES: cl_device_info = 0x1076;
    if !require(
        device_string(CL_DEVICE_EXTENSIONS).contains("cl_khr_kernel_clock"),
        "cl_khr_kernel_clock",
    ) {
        return;
    }
    assert_eq!(device_get::<cl_bitfield>(KERNEL_CLOCK_CAPABILITIES), 0b111);
    let env = Env::new();
    let src = r#"
#if !defined(cl_khr_kernel_clock) || !defined(__opencl_c_kernel_clock_scope_device) \
    || !defined(__opencl_c_kernel_clock_scope_work_group) \
    || !defined(__opencl_c_kernel_clock_scope_sub_group)
#error the macros must follow the claim
#endif
kernel void k(global ulong *out) {
    size_t i = get_global_id(0);
    ulong a = clock_read_device();
    uint2 h = clock_read_hilo_work_group();
    ulong b = clock_read_sub_group();
    uint2 d = clock_read_hilo_device();
    out[4 * i] = a;
    out[4 * i + 1] = upsample(h.hi, h.lo);
    out[4 * i + 2] = b;
    out[4 * i + 3] = as_ulong(d);
}
"#;
    let n = 64;
    let out = env.buffer_from(&vec![0u64; 4 * n]);
    let k = env.build(src, "-cl-std=CL3.0").kernel("k");
    k.buf(0, &out);
    run_1d(&env.queue, &k, n, Some(n));
    let t = out.read::<u64>(&env.queue, 4 * n);
    for (i, w) in t.chunks_exact(4).enumerate() {
        assert!(
            w.windows(2).all(|p| p[0] <= p[1]),
            "work-item {i}'s clock went back: {w:?}"
        );
    }
    assert!(t[4 * n - 1] > 0, "the clock did not move");
}

/// Every conversion between integer types, plain and saturating, scalar, vector and with a
/// rounding suffix, against the host. clang's own SPIR-V target picks the instruction by
/// the destination's signedness alone (`convert_uint_sat((uchar)255)` gave 0 there,
/// `convert_long((int)-1)` 2^32 - 1); the driver mends it in the source (`clc.rs`), which
/// this shows with `FERRITE_CLANG=clang-22`.
#[test]
fn integer_saturating_conversions() {
    const TYPES: [(&str, u32, bool); 8] = [
        ("char", 8, true),
        ("uchar", 8, false),
        ("short", 16, true),
        ("ushort", 16, false),
        ("int", 32, true),
        ("uint", 32, false),
        ("long", 64, true),
        ("ulong", 64, false),
    ];
    let x: Vec<i64> = vec![
        0,
        1,
        -1,
        127,
        128,
        255,
        256,
        -128,
        -129,
        32767,
        32768,
        65535,
        -32769,
        i64::from(i32::MAX),
        1 << 31,
        u32::MAX.into(),
        -(1 << 31) - 1,
        i64::MAX,
        i64::MIN,
        -3,
    ];
    // The source value: x cast to S (C's modular conversion), exactly.
    let source = |v: i64, bits: u32, signed: bool| -> i128 {
        let m = if bits == 64 {
            v as u64
        } else {
            (v as u64) & ((1u64 << bits) - 1)
        };
        match (signed, bits) {
            (true, 64) => i128::from(m as i64),
            (true, b) => i128::from(((m << (64 - b)) as i64) >> (64 - b)),
            (false, _) => i128::from(m),
        }
    };
    let range = |bits: u32, signed: bool| -> (i128, i128) {
        if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        }
    };
    let mut body = String::new();
    let mut want: Vec<Vec<i64>> = Vec::new();
    for (s, sb, ss) in TYPES {
        for (d, db, ds) in TYPES {
            // Scalar; the same as a 2-vector; with a rounding suffix.
            let k = want.len();
            body.push_str(&format!(
                "out[{k} * n + i] = (long)convert_{d}_sat(({s})v);\n\
                 out[{} * n + i] = (long)convert_{d}2_sat((({s}2)(({s})v, ({s})1))).x;\n\
                 out[{} * n + i] = (long)convert_{d}_sat_rtn(({s})v);\n\
                 out[{} * n + i] = (long)convert_{d}(({s})v);\n\
                 out[{} * n + i] = (long)convert_{d}4((({s}4)(({s})1, ({s})2, ({s})v, ({s})3))).z;\n",
                k + 1,
                k + 2,
                k + 3,
                k + 4
            ));
            let (lo, hi) = range(db, ds);
            let sat: Vec<i64> = x
                .iter()
                .map(|&v| source(v, sb, ss).clamp(lo, hi) as i64)
                .collect();
            // Without saturation: the source value taken modulo 2^db, read as D.
            let plain: Vec<i64> = x
                .iter()
                .map(|&v| source(source(v, sb, ss) as i64, db, ds) as i64)
                .collect();
            want.extend([sat.clone(), sat.clone(), sat, plain.clone(), plain]);
        }
    }
    // The argument of a conversion is evaluated once (the driver's macros for clang-22
    // must not repeat a vector argument's side effect).
    // Sizes 3 and 16, nested conversions, and user names the driver's macros must not use.
    body.push_str(
        "int min = 1, clamp = 2;\n\
         uchar16 u16 = convert_uchar16_sat(convert_int16(convert_short16((long16)(v))));\n\
         short3 s3 = convert_short3_sat((int3)((int)v, min, clamp));\n\
         more[2 * i] = u16.sF;\n\
         more[2 * i + 1] = s3.x + s3.y + s3.z - 3;\n",
    );
    body.push_str(
        "short j = 0;\n\
         int4 once = convert_int4((short4)(1, 2, 3, 4) + (short4)(j++));\n\
         if (i == 0) side[0] = j * 100 + once.w;\n",
    );
    let src = format!(
        "kernel void k(global const long *x, global long *out, global int *side,\n\
         global long *more) {{\n\
         size_t i = get_global_id(0), n = get_global_size(0);\n\
         long v = x[i];\n{body}}}\n"
    );
    let n = x.len();
    let env = Env::new();
    let xb = env.buffer_from(&x);
    let out = env.buffer_from(&vec![0i64; want.len() * n]);
    let side = env.buffer_from(&[0i32]);
    let more = env.buffer_from(&vec![0i64; 2 * n]);
    let k = env.build(&src, "").kernel("k");
    k.buf(0, &xb).buf(1, &out).buf(2, &side).buf(3, &more);
    run_1d(&env.queue, &k, n, None);
    let got = out.read::<i64>(&env.queue, want.len() * n);
    let mut k = 0;
    for (s, _, _) in TYPES {
        for (d, _, _) in TYPES {
            for form in ["_sat", "_sat vector", "_sat_rtn", "", " vector"] {
                let g = &got[k * n..(k + 1) * n];
                assert_eq!(g, &want[k][..], "convert_{d}{form}({s}), inputs {x:?}");
                k += 1;
            }
        }
    }
    assert_eq!(
        side.read::<i32>(&env.queue, 1),
        [104],
        "the argument evaluated once"
    );
}

/// A decimal literal above `LONG_MAX` (reikna's counter-based random numbers add
/// 11400714819323198485 to a ulong key): clang types it `__int128`, which the driver's opt
/// pipeline must narrow away (llvm-spirv would write `OpTypeInt 128`, which the compiler
/// refuses) and the sum must wrap as a ulong's.
#[test]
fn decimal_literal_above_long_max() {
    let env = Env::new();
    let src = r#"
kernel void k(global ulong *key) {
    size_t i = get_global_id(0);
    ulong k0 = key[i];
    k0 += 11400714819323198485;
    key[i] = k0 * 13503953896175478587;
}
"#;
    let keys: Vec<u64> = vec![0, 1, u64::MAX, 1 << 63, 0x0123_4567_89ab_cdef];
    let b = env.buffer_from(&keys);
    let k = env.build(src, "").kernel("k");
    k.buf(0, &b);
    run_1d(&env.queue, &k, keys.len(), None);
    let got = b.read::<u64>(&env.queue, keys.len());
    let want: Vec<u64> = keys
        .iter()
        .map(|&v| {
            v.wrapping_add(11_400_714_819_323_198_485)
                .wrapping_mul(13_503_953_896_175_478_587)
        })
        .collect();
    assert_eq!(got, want);
}
