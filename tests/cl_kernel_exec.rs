//! Kernel execution correctness: saxpy over 16 Mi floats, control flow (nested loops, switch,
//! helper functions), integer arithmetic of every width with OpenCL C's exact semantics
//! (wraparound, division, shifts, saturation, conversions), double precision, and arguments
//! passed by value as structs and vectors. Every result is compared with a host reference.

use ferrite_tests::*;

#[test]
fn saxpy_16m_floats() {
    let env = Env::new();
    let n = 16 * 1024 * 1024;
    let src = r#"
__kernel void saxpy(float a, __global const float *x, __global const float *y, __global float *z) {
    size_t i = get_global_id(0);
    z[i] = a * x[i] + y[i];
}
"#;
    let mut rng = Rng(0x5eed);
    let x: Vec<f32> = (0..n).map(|_| rng.f32(1000.0)).collect();
    let y: Vec<f32> = (0..n).map(|_| rng.f32(1000.0)).collect();
    let a = 2.718_281_7f32;
    let (bx, by) = (
        Buffer::from_slice(&env.ctx, CL_MEM_READ_ONLY, &x),
        Buffer::from_slice(&env.ctx, CL_MEM_READ_ONLY, &y),
    );
    let bz = Buffer::new(&env.ctx, CL_MEM_WRITE_ONLY, n * 4);
    let k = env.build(src, "").kernel("saxpy");
    k.arg(0, &a).buf(1, &bx).buf(2, &by).buf(3, &bz);
    run_1d(&env.queue, &k, n, None);
    let z: Vec<f32> = bz.read(&env.queue, n);
    // OpenCL C contracts a*x+y by default (FP_CONTRACT ON): accept the fused or the separately
    // rounded result, nothing else.
    let bad: Vec<usize> = (0..n)
        .filter(|&i| !is_mul_add_f32(a, x[i], y[i], z[i]))
        .take(5)
        .collect();
    assert!(
        bad.is_empty(),
        "saxpy mismatches at {:?}: got {:?}, expected {:?}",
        bad,
        bad.iter().map(|&i| z[i]).collect::<Vec<_>>(),
        bad.iter().map(|&i| a * x[i] + y[i]).collect::<Vec<_>>()
    );
}

const FLOW: &str = r#"
uint helper(uint x, int k) {
    uint r = 0;
    for (int j = 0; j < k; j++) {
        if ((x + j) % 3 == 0) continue;
        r += (x ^ (uint)j) & 15u;
        if (r > 100u) break;
    }
    return r;
}

__kernel void flow(__global const uint *in, __global uint *out) {
    size_t i = get_global_id(0);
    uint v = in[i];
    uint acc = 0;
    for (int a = 0; a < (int)(v & 7u); a++) {
        for (int b = 0; b <= a; b++) {
            switch ((v + (uint)(a * b)) & 3u) {
            case 0:
                acc += helper(v, a + b);
                break;
            case 1:
                acc -= (uint)(a * b);
                /* fall through */
            case 2:
                acc ^= v >> a;
                break;
            default:
                acc = acc * 3u + 1u;
            }
        }
    }
    uint steps = 0;
    ulong c = v;
    while (c > 1 && steps < 200u) {
        c = (c & 1) ? 3 * c + 1 : c / 2;
        steps++;
    }
    out[i] = acc * 1000u + steps;
}
"#;

fn flow_ref(v: u32) -> u32 {
    fn helper(x: u32, k: i32) -> u32 {
        let mut r = 0u32;
        for j in 0..k {
            if x.wrapping_add(j as u32).is_multiple_of(3) {
                continue;
            }
            r = r.wrapping_add((x ^ j as u32) & 15);
            if r > 100 {
                break;
            }
        }
        r
    }
    let mut acc = 0u32;
    for a in 0..(v & 7) as i32 {
        for b in 0..=a {
            match v.wrapping_add((a * b) as u32) & 3 {
                0 => acc = acc.wrapping_add(helper(v, a + b)),
                1 => {
                    acc = acc.wrapping_sub((a * b) as u32);
                    acc ^= v >> a;
                }
                2 => acc ^= v >> a,
                _ => acc = acc.wrapping_mul(3).wrapping_add(1),
            }
        }
    }
    let mut steps = 0u32;
    let mut c = v as u64;
    while c > 1 && steps < 200 {
        c = if c & 1 == 1 { 3 * c + 1 } else { c / 2 };
        steps += 1;
    }
    acc.wrapping_mul(1000).wrapping_add(steps)
}

#[test]
fn nested_loops_switch_and_helper() {
    let env = Env::new();
    let n = 20_480;
    let mut rng = Rng(42);
    let input: Vec<u32> = (0..n)
        .map(|i| {
            if i < 64 {
                i as u32
            } else {
                (rng.next_u64() % 100_000) as u32
            }
        })
        .collect();
    let (bi, bo) = (env.buffer_from(&input), env.buffer_zeroed::<u32>(n));
    let k = env.build(FLOW, "").kernel("flow");
    k.buf(0, &bi).buf(1, &bo);
    run_1d(&env.queue, &k, n, Some(64));
    let out: Vec<u32> = bo.read(&env.queue, n);
    for i in 0..n {
        assert_eq!(out[i], flow_ref(input[i]), "flow({}) at {i}", input[i]);
    }
}

const I64_OPS: usize = 20;

const I64_SRC: &str = r#"
__kernel void ops64(__global const long *a, __global const long *b, __global long *out) {
    size_t i = get_global_id(0);
    long x = a[i], y = b[i];
    ulong ux = (ulong)x, uy = (ulong)y;
    __global long *o = out + i * 20;
    o[0] = (long)(ux + uy);
    o[1] = (long)(ux - uy);
    o[2] = (long)(ux * uy);
    o[3] = (y != 0 && !(x == LONG_MIN && y == -1)) ? x / y : 0;
    o[4] = (y != 0 && !(x == LONG_MIN && y == -1)) ? x % y : 0;
    o[5] = uy != 0 ? (long)(ux / uy) : 0;
    o[6] = uy != 0 ? (long)(ux % uy) : 0;
    o[7] = (long)(ux << uy);      /* OpenCL: the shift count is taken modulo 64 */
    o[8] = x >> uy;               /* arithmetic */
    o[9] = (long)(ux >> uy);      /* logical */
    o[10] = mul_hi(x, y);
    o[11] = (long)mul_hi(ux, uy);
    o[12] = x < y;
    o[13] = ux < uy;
    o[14] = (x & y) ^ (~x | y);
    o[15] = (long)(int)x;
    o[16] = (long)(uint)x;
    o[17] = (long)rotate(ux, uy);
    o[18] = (long)popcount(x) + 100 * (long)clz(x);
    o[19] = (long)(short)x + (long)(uchar)x;
}
"#;

fn ops64_ref(x: i64, y: i64) -> [i64; I64_OPS] {
    let (ux, uy) = (x as u64, y as u64);
    let div_ok = y != 0 && !(x == i64::MIN && y == -1);
    [
        ux.wrapping_add(uy) as i64,
        ux.wrapping_sub(uy) as i64,
        ux.wrapping_mul(uy) as i64,
        if div_ok { x / y } else { 0 },
        if div_ok { x % y } else { 0 },
        ux.checked_div(uy).map_or(0, |q| q as i64),
        ux.checked_rem(uy).map_or(0, |r| r as i64),
        ux.wrapping_shl(uy as u32) as i64,
        x.wrapping_shr(uy as u32),
        ux.wrapping_shr(uy as u32) as i64,
        ((x as i128 * y as i128) >> 64) as i64,
        ((ux as u128 * uy as u128) >> 64) as i64,
        (x < y) as i64,
        (ux < uy) as i64,
        (x & y) ^ (!x | y),
        x as i32 as i64,
        x as u32 as i64,
        ux.rotate_left((uy % 64) as u32) as i64,
        x.count_ones() as i64 + 100 * x.leading_zeros() as i64,
        x as i16 as i64 + x as u8 as i64,
    ]
}

fn interesting_i64(rng: &mut Rng, n: usize) -> Vec<i64> {
    let edges = [
        0,
        1,
        -1,
        2,
        -2,
        63,
        64,
        65,
        127,
        i64::MAX,
        i64::MIN,
        i64::MIN + 1,
        i32::MAX as i64,
        i32::MIN as i64,
        u32::MAX as i64,
        1 << 32,
        -(1 << 40),
        1000,
        -7,
    ];
    let mut v: Vec<i64> = edges.to_vec();
    while v.len() < n {
        let r = rng.next_u64();
        // Mix full-width values with small ones so division and shifts see both.
        v.push(match r % 4 {
            0 => r as i64,
            1 => (r as i64) >> 40,
            2 => (r % 200) as i64 - 100,
            _ => (r as i64) >> 20,
        });
    }
    v
}

#[test]
fn int64_arithmetic() {
    let env = Env::new();
    let mut rng = Rng(64);
    let mut a = interesting_i64(&mut rng, 400);
    let b0 = interesting_i64(&mut rng, 400);
    // Every pair of edge values, then random pairs.
    let mut b = Vec::new();
    let edges = 19;
    let mut pairs_a = Vec::new();
    for i in 0..edges {
        for j in 0..edges {
            pairs_a.push(a[i]);
            b.push(a[j]);
        }
    }
    pairs_a.extend_from_slice(&a);
    b.extend_from_slice(&b0);
    a = pairs_a;
    let n = a.len();
    let (ba, bb, bo) = (
        env.buffer_from(&a),
        env.buffer_from(&b),
        env.buffer_zeroed::<i64>(n * I64_OPS),
    );
    let k = env.build(I64_SRC, "").kernel("ops64");
    k.buf(0, &ba).buf(1, &bb).buf(2, &bo);
    run_1d(&env.queue, &k, n, None);
    let out: Vec<i64> = bo.read(&env.queue, n * I64_OPS);
    for i in 0..n {
        let expected = ops64_ref(a[i], b[i]);
        for op in 0..I64_OPS {
            assert_eq!(
                out[i * I64_OPS + op],
                expected[op],
                "op {op} of ({}, {}) (see I64_SRC o[{op}])",
                a[i],
                b[i]
            );
        }
    }
}

const SMALL_OPS: usize = 15;

/// The same operations for char, uchar, short and ushort. OpenCL C promotes these to int
/// before arithmetic, so results wrap when stored back; shift counts are taken modulo 32 (the
/// width after promotion).
const SMALL_SRC: &str = r#"
#define OPS(T, NAME) \
__kernel void NAME(__global const T *a, __global const T *b, __global T *out) { \
    size_t i = get_global_id(0); \
    T x = a[i], y = b[i]; \
    __global T *o = out + i * 15; \
    o[0] = x + y; \
    o[1] = x - y; \
    o[2] = (T)((uint)x * (uint)y); /* ushort * ushort would overflow int */ \
    o[3] = y != 0 ? x / y : 0; \
    o[4] = y != 0 ? x % y : 0; \
    o[5] = x << y; \
    o[6] = x >> (y & 7); \
    o[7] = ~x; \
    o[8] = x > y; \
    o[9] = add_sat(x, y); \
    o[10] = sub_sat(x, y); \
    o[11] = convert_##T##_sat((int)x * 300); \
    o[12] = (T)((float)x * 0.75f); \
    o[13] = (T)((int)x * 1000 + 7); \
    o[14] = abs_diff(x, y); \
}
OPS(char, ops_char)
OPS(uchar, ops_uchar)
OPS(short, ops_short)
OPS(ushort, ops_ushort)
"#;

macro_rules! small_ref {
    ($name:ident, $t:ty) => {
        fn $name(x: $t, y: $t) -> [$t; SMALL_OPS] {
            let (xi, yi) = (x as i32, y as i32);
            [
                (xi + yi) as $t,
                (xi - yi) as $t,
                (xi as u32).wrapping_mul(yi as u32) as $t,
                if y != 0 { (xi / yi) as $t } else { 0 },
                if y != 0 { (xi % yi) as $t } else { 0 },
                xi.wrapping_shl(yi as u32) as $t,
                (xi >> (yi & 7)) as $t,
                !x,
                (x > y) as $t,
                x.saturating_add(y),
                x.saturating_sub(y),
                (xi * 300).clamp(<$t>::MIN as i32, <$t>::MAX as i32) as $t,
                ((x as f32) * 0.75) as $t,
                (xi * 1000 + 7) as $t,
                // abs_diff returns the unsigned type of the same width; stored back into T.
                (xi - yi).unsigned_abs() as $t,
            ]
        }
    };
}

small_ref!(ref_char, i8);
small_ref!(ref_uchar, u8);
small_ref!(ref_short, i16);
small_ref!(ref_ushort, u16);

fn run_small<T>(
    env: &Env,
    p: &Program,
    kernel: &str,
    values: &[T],
    reference: fn(T, T) -> [T; SMALL_OPS],
) where
    T: Copy + Default + PartialEq + std::fmt::Debug,
{
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in values {
        for &y in values {
            a.push(x);
            b.push(y);
        }
    }
    let n = a.len();
    let (ba, bb, bo) = (
        env.buffer_from(&a),
        env.buffer_from(&b),
        env.buffer_zeroed::<T>(n * SMALL_OPS),
    );
    let k = p.kernel(kernel);
    k.buf(0, &ba).buf(1, &bb).buf(2, &bo);
    run_1d(&env.queue, &k, n, None);
    let out: Vec<T> = bo.read(&env.queue, n * SMALL_OPS);
    for i in 0..n {
        let expected = reference(a[i], b[i]);
        for op in 0..SMALL_OPS {
            assert_eq!(
                out[i * SMALL_OPS + op],
                expected[op],
                "{kernel}: op {op} of ({:?}, {:?}) (see SMALL_SRC o[{op}])",
                a[i],
                b[i]
            );
        }
    }
}

#[test]
fn char_short_arithmetic() {
    let env = Env::new();
    let p = env.build(SMALL_SRC, "");
    let chars: Vec<i8> = vec![
        0, 1, -1, 2, 7, -7, 8, 31, 33, 100, -100, 127, -128, 64, -65, 3,
    ];
    run_small(&env, &p, "ops_char", &chars, ref_char);
    let uchars: Vec<u8> = vec![
        0, 1, 2, 7, 8, 31, 33, 100, 127, 128, 200, 254, 255, 64, 3, 17,
    ];
    run_small(&env, &p, "ops_uchar", &uchars, ref_uchar);
    let shorts: Vec<i16> = vec![
        0, 1, -1, 2, 7, -7, 15, 17, 31, 33, 1000, -1000, 32767, -32768, 255, -300, 12345,
    ];
    run_small(&env, &p, "ops_short", &shorts, ref_short);
    let ushorts: Vec<u16> = vec![
        0, 1, 2, 7, 15, 17, 31, 33, 1000, 32767, 32768, 65535, 65534, 255, 300, 54321,
    ];
    run_small(&env, &p, "ops_ushort", &ushorts, ref_ushort);
}

const F64_OPS: usize = 14;

const F64_SRC: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void ops_f64(__global const double *a, __global const double *b, __global const double *c,
                      __global double *out, __global long *iout) {
    size_t i = get_global_id(0);
    double x = a[i], y = b[i], z = c[i];
    __global double *o = out + i * 14;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = x / y;
    o[4] = sqrt(fabs(x));
    o[5] = fma(x, y, z);
    o[6] = x * y + z;              /* may be contracted: checked against both roundings */
    o[7] = floor(x);
    o[8] = fmin(x, y);
    o[9] = fmax(x, y);
    o[10] = (double)(float)x;
    o[11] = (double)(long)x;
    o[12] = (double)iout[i];       /* long -> double, rounded to nearest */
    o[13] = ceil(y) - trunc(y);
    iout[i] = convert_long_rtz(x);
}
"#;

#[test]
fn double_arithmetic() {
    if !require(
        device_has_fp64(),
        "the device has no fp64 (CL_DEVICE_DOUBLE_FP_CONFIG = 0)",
    ) {
        return;
    }
    let env = Env::new();
    let mut rng = Rng(0xd0);
    let n = 4096;
    let rand = |rng: &mut Rng| -> f64 {
        let r = rng.next_u64();
        let m = (r >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        m * 10f64.powi((r % 19) as i32 - 6)
    };
    let mut a: Vec<f64> = vec![
        0.5,
        -0.5,
        1.5,
        -2.5,
        1e15 + 0.5,
        3.0,
        -0.0,
        9_007_199_254_740_993.0,
    ];
    let mut b: Vec<f64> = vec![3.0, 7.0, -0.1, 1e-300, 2.0, -3.0, 5.5, 1.0];
    while a.len() < n {
        a.push(rand(&mut rng));
        b.push(rand(&mut rng));
    }
    let c: Vec<f64> = (0..n).map(|_| rand(&mut rng)).collect();
    // Longs near 2^53 and beyond, where long -> double must round.
    let longs: Vec<i64> = (0..n as i64)
        .map(|i| (1i64 << 53) + i * 7 + (i % 3) * (1i64 << 60))
        .collect();
    let (ba, bb, bc) = (
        env.buffer_from(&a),
        env.buffer_from(&b),
        env.buffer_from(&c),
    );
    let (bo, bi) = (
        env.buffer_zeroed::<f64>(n * F64_OPS),
        env.buffer_from(&longs),
    );
    let k = env.build(F64_SRC, "").kernel("ops_f64");
    k.buf(0, &ba)
        .buf(1, &bb)
        .buf(2, &bc)
        .buf(3, &bo)
        .buf(4, &bi);
    run_1d(&env.queue, &k, n, None);
    let out: Vec<f64> = bo.read(&env.queue, n * F64_OPS);
    let iout: Vec<i64> = bi.read(&env.queue, n);
    for i in 0..n {
        let (x, y, z) = (a[i], b[i], c[i]);
        let expected = [
            x + y,
            x - y,
            x * y,
            x / y,
            x.abs().sqrt(),
            x.mul_add(y, z),
            f64::NAN, // checked below
            x.floor(),
            x.min(y),
            x.max(y),
            x as f32 as f64,
            x as i64 as f64,
            longs[i] as f64,
            y.ceil() - y.trunc(),
        ];
        for op in 0..F64_OPS {
            let got = out[i * F64_OPS + op];
            if op == 6 {
                assert!(
                    is_mul_add_f64(x, y, z, got),
                    "x*y+z of ({x:e}, {y:e}, {z:e}): {got:e}"
                );
                continue;
            }
            assert_eq!(
                got.to_bits(),
                expected[op].to_bits(),
                "op {op} of ({x:e}, {y:e}): got {got:e}, expected {:e} (see F64_SRC o[{op}])",
                expected[op]
            );
        }
        assert_eq!(iout[i], x as i64, "convert_long_rtz({x:e})");
    }
}

/// A struct with mixed member types and padding, laid out as OpenCL C does on a 64-bit CPU.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Mixed {
    c: i8,
    i: i32,
    s: i16,
    l: i64,
    f: f32,
    u: u8,
    d: f64,
}

/// A struct holding vectors: 16-byte aligned because of the float4.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug)]
struct WithVectors {
    v: [f32; 4],
    i2: [i32; 2],
    tag: u8,
}

const STRUCT_SRC: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef struct { char c; int i; short s; long l; float f; uchar u; double d; } mixed_t;
typedef struct { float4 v; int2 i2; uchar tag; } with_vectors_t;

__kernel void struct_args(mixed_t m, __global long *li, int after, with_vectors_t w, __global double *df) {
    if (get_global_id(0) != 0) return;
    li[0] = m.c; li[1] = m.i; li[2] = m.s; li[3] = m.l; li[4] = m.u; li[5] = after;
    li[6] = w.i2.x; li[7] = w.i2.y; li[8] = w.tag;
    li[9] = sizeof(mixed_t); li[10] = sizeof(with_vectors_t);
    df[0] = m.f; df[1] = m.d; df[2] = w.v.x; df[3] = w.v.y; df[4] = w.v.z; df[5] = w.v.w;
}

__kernel void vector_args(float4 f4, int2 i2, uchar4 u4, long2 l2, short8 s8, float3 f3,
                          __global float *fo, __global long *lo) {
    if (get_global_id(0) != 0) return;
    float4 r = f4 * 2.0f + (float4)(f3, 1.0f);
    vstore4(r, 0, fo);
    lo[0] = i2.x; lo[1] = i2.y;
    lo[2] = u4.x; lo[3] = u4.y; lo[4] = u4.z; lo[5] = u4.w;
    lo[6] = l2.x; lo[7] = l2.y;
    lo[8] = s8.s0; lo[9] = s8.s1; lo[10] = s8.s2; lo[11] = s8.s3;
    lo[12] = s8.s4; lo[13] = s8.s5; lo[14] = s8.s6; lo[15] = s8.s7;
    lo[16] = (long)(i2.x * i2.y);
}
"#;

#[test]
fn struct_arguments_by_value() {
    if !require(
        device_has_fp64(),
        "the device has no fp64 (the struct holds a double)",
    ) {
        return;
    }
    let env = Env::new();
    let p = env.build(STRUCT_SRC, "");
    let k = p.kernel("struct_args");
    assert_eq!(std::mem::size_of::<Mixed>(), 40);
    assert_eq!(std::mem::size_of::<WithVectors>(), 32);
    let m = Mixed {
        c: -5,
        i: 123_456_789,
        s: -32000,
        l: -9_000_000_000_123,
        f: 1.25,
        u: 250,
        d: -6.02e23,
    };
    let w = WithVectors {
        v: [0.5, -1.5, 2.25, 1e10],
        i2: [-77, 88],
        tag: 0xAB,
    };
    let (li, df) = (env.buffer_zeroed::<i64>(11), env.buffer_zeroed::<f64>(6));
    k.arg(0, &m)
        .buf(1, &li)
        .arg(2, &0x1234_5678i32)
        .arg(3, &w)
        .buf(4, &df);
    run_1d(&env.queue, &k, 1, None);
    let l: Vec<i64> = li.read(&env.queue, 11);
    assert_eq!(
        l,
        vec![
            -5,
            123_456_789,
            -32000,
            -9_000_000_000_123,
            250,
            0x1234_5678,
            -77,
            88,
            0xAB,
            40,
            32
        ]
    );
    let d: Vec<f64> = df.read(&env.queue, 6);
    assert_eq!(d, vec![1.25, -6.02e23, 0.5, -1.5, 2.25, 1e10]);
}

#[test]
fn vector_arguments() {
    let env = Env::new();
    let src = STRUCT_SRC.replace("#pragma OPENCL EXTENSION cl_khr_fp64 : enable", "");
    // Only the vector kernel: drop the struct kernel so the test does not need fp64.
    let src = &src[src.find("__kernel void vector_args").unwrap()..];
    let p = env.build(src, "");
    let k = p.kernel("vector_args");
    let f4 = [1.0f32, -2.0, 3.5, 100.0];
    let f3 = [0.25f32, 0.5, 0.75, 99.0]; // float3 occupies 16 bytes; the 4th lane is padding
    let (fo, lo) = (env.buffer_zeroed::<f32>(4), env.buffer_zeroed::<i64>(17));
    k.arg(0, &f4)
        .arg(1, &[-3i32, 40_000])
        .arg(2, &[1u8, 128, 255, 7])
        .arg(3, &[i64::MIN, 1i64 << 40])
        .arg(4, &[-1i16, 2, -3, 4, 32767, -32768, 0, 9])
        .arg(5, &f3)
        .buf(6, &fo)
        .buf(7, &lo);
    run_1d(&env.queue, &k, 1, None);
    assert_eq!(fo.read::<f32>(&env.queue, 4), vec![2.25, -3.5, 7.75, 201.0]);
    let l: Vec<i64> = lo.read(&env.queue, 17);
    assert_eq!(
        l,
        vec![
            -3,
            40_000,
            1,
            128,
            255,
            7,
            i64::MIN,
            1 << 40,
            -1,
            2,
            -3,
            4,
            32767,
            -32768,
            0,
            9,
            -120_000
        ]
    );
}

#[test]
fn local_memory_and_barrier_reduction() {
    let env = Env::new();
    let src = r#"
__kernel void reduce(__global const uint *in, __global uint *out, __local uint *scratch) {
    size_t l = get_local_id(0), n = get_local_size(0);
    scratch[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s /= 2) {
        if (l < s) scratch[l] += scratch[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) out[get_group_id(0)] = scratch[0];
}
"#;
    let (groups, local) = (512usize, 128usize);
    let input: Vec<u32> = (0..(groups * local) as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 16)
        .collect();
    let (bi, bo) = (env.buffer_from(&input), env.buffer_zeroed::<u32>(groups));
    let k = env.build(src, "").kernel("reduce");
    k.buf(0, &bi).buf(1, &bo).local(2, local * 4);
    run_1d(&env.queue, &k, groups * local, Some(local));
    let out: Vec<u32> = bo.read(&env.queue, groups);
    for g in 0..groups {
        let expected = input[g * local..(g + 1) * local]
            .iter()
            .fold(0u32, |a, &b| a.wrapping_add(b));
        assert_eq!(out[g], expected, "group {g}");
    }
}
