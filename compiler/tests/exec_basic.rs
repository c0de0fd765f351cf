//! Execution tests: small OpenCL C kernels compiled by clang-15 + llvm-spirv-15, run
//! through the JIT, compared with values computed on the host.

#[path = "common/harness.rs"]
mod harness;

use harness::{kernel, run1, Args};

#[test]
fn vector_add() {
    let src = r#"
        kernel void vadd(global const float *a, global const float *b, global float *c) {
            size_t i = get_global_id(0);
            c[i] = a[i] + b[i];
        }"#;
    let Some(k) = kernel(src, "vadd") else { return };
    let n = 1000;
    let mut a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let mut b: Vec<f32> = (0..n).map(|i| 3.0 - i as f32).collect();
    let mut c = vec![0f32; n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut a).buf(1, &mut b).buf(2, &mut c);
    run1(&k, &args, n as u64, 64);
    for i in 0..n {
        assert_eq!(c[i], a[i] + b[i], "c[{i}]");
    }
}

#[test]
fn saxpy_scalar_argument() {
    let src = r#"
        kernel void saxpy(float a, global const float *x, global float *y, int n) {
            int i = get_global_id(0);
            if (i < n) y[i] = a * x[i] + y[i];
        }"#;
    let Some(k) = kernel(src, "saxpy") else {
        return;
    };
    let n = 300;
    let mut x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut y: Vec<f32> = (0..n).map(|i| 1.0 + i as f32 * 0.25).collect();
    let y0 = y.clone();
    let mut args = Args::new(&k.info);
    args.val(0, 2.5f32)
        .buf(1, &mut x)
        .buf(2, &mut y)
        .val(3, 250i32);
    run1(&k, &args, 320, 32);
    for i in 0..n {
        let want = if i < 250 { 2.5 * x[i] + y0[i] } else { y0[i] };
        assert_eq!(y[i], want, "y[{i}]");
    }
}

#[test]
fn loops_switch_and_helper_function() {
    let src = r#"
        int __attribute__((noinline)) helper(int a, int b) {
            int r = 0;
            for (int i = 0; i < b; i++) r += (a ^ i) % 7;
            return r;
        }
        kernel void k(global int *out, int n) {
            int i = get_global_id(0);
            int acc = 0;
            for (int j = 0; j < n; j++) {
                for (int m = 0; m < 3; m++) {
                    switch (out[j]) {
                        case 0: acc += j; break;
                        case 1: acc ^= m; break;
                        case 2: acc *= 3; break;
                        case 7: acc += 7; break;
                        default: acc -= 1;
                    }
                }
            }
            out[i + 16] = acc + helper(i, n);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let mut out: Vec<i32> = (0..48).map(|i| [0, 1, 2, 7, 5][i % 5]).collect();
    let init = out.clone();
    let n = 10;
    let mut args = Args::new(&k.info);
    args.buf(0, &mut out).val(1, n);
    run1(&k, &args, 16, 4);
    for i in 0..16i32 {
        let mut acc = 0i32;
        for j in 0..n {
            for m in 0..3 {
                match init[j as usize] {
                    0 => acc += j,
                    1 => acc ^= m,
                    2 => acc = acc.wrapping_mul(3),
                    7 => acc += 7,
                    _ => acc -= 1,
                }
            }
        }
        let h: i32 = (0..n).map(|x| (i ^ x) % 7).sum();
        assert_eq!(out[(i + 16) as usize], acc + h, "work-item {i}");
    }
}

#[test]
fn int64_double_char_short_arithmetic() {
    let src = r#"
        kernel void k(global long *l, global ulong *ul, global double *d, global char *c,
                      global uchar *uc, global short *s, global int *res) {
            int i = get_global_id(0);
            long a = l[2*i], b = l[2*i+1];
            res[16*i+0] = (int)(a / b);
            res[16*i+1] = (int)(l[(2*i+2)%8] % (b | 1));
            res[16*i+2] = (int)((a * b) >> 3);
            res[16*i+3] = (int)(ul[2*i] / ul[2*i+1]);
            res[16*i+4] = (int)(ul[2*i] >> (i + 1));
            res[16*i+5] = a < b;
            res[16*i+6] = ul[2*i] > ul[2*i+1];
            res[16*i+7] = (int)(d[2*i] * d[2*i+1] * 1000.0);
            res[16*i+8] = (int)(d[2*i] / d[2*i+1] * 1000.0);
            res[16*i+9] = c[2*i] / c[2*i+1];
            res[16*i+10] = (char)(c[2*i] * c[2*i+1]);
            res[16*i+11] = uc[2*i] / uc[2*i+1];
            res[16*i+12] = (uchar)(uc[2*i] + uc[2*i+1]);
            res[16*i+13] = s[2*i] % s[2*i+1];
            res[16*i+14] = (short)(s[2*i] * s[2*i+1]);
            res[16*i+15] = c[2*i] < c[2*i+1] ? -1 : (uc[2*i] >= uc[2*i+1] ? 2 : 3);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let n = 4usize;
    let mut l: Vec<i64> = vec![-1000000000007, 13, 77, -5, i64::MAX, 3, -9, 2];
    let mut ul: Vec<u64> = vec![u64::MAX, 7, 1 << 40, 3, 99, 100, 5, 1];
    let mut d: Vec<f64> = vec![1.5, 2.25, -3.0, 0.125, 1e3, 7.0, 0.1, 0.3];
    let mut c: Vec<i8> = vec![-128, 3, 100, -7, 5, 5, -1, 1];
    let mut uc: Vec<u8> = vec![255, 3, 200, 100, 1, 2, 0, 9];
    let mut s: Vec<i16> = vec![-32768, 7, 1000, -33, 12345, 2, -5, 3];
    let mut res = vec![0i32; 16 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut l)
        .buf(1, &mut ul)
        .buf(2, &mut d)
        .buf(3, &mut c);
    args.buf(4, &mut uc).buf(5, &mut s).buf(6, &mut res);
    run1(&k, &args, n as u64, 2);
    for i in 0..n {
        let (a, b) = (l[2 * i], l[2 * i + 1]);
        let (ua, ub) = (ul[2 * i], ul[2 * i + 1]);
        let (da, db) = (d[2 * i], d[2 * i + 1]);
        let (ca, cb) = (c[2 * i], c[2 * i + 1]);
        let (uca, ucb) = (uc[2 * i], uc[2 * i + 1]);
        let (sa, sb) = (s[2 * i], s[2 * i + 1]);
        let want = [
            (a / b) as i32,
            (l[(2 * i + 2) % 8] % (b | 1)) as i32,
            (a.wrapping_mul(b) >> 3) as i32,
            (ua / ub) as i32,
            (ua >> (i + 1)) as i32,
            (a < b) as i32,
            (ua > ub) as i32,
            (da * db * 1000.0) as i32,
            (da / db * 1000.0) as i32,
            (i32::from(ca) / i32::from(cb)),
            i32::from((i32::from(ca) * i32::from(cb)) as i8),
            i32::from(uca / ucb),
            i32::from(uca.wrapping_add(ucb)),
            i32::from(sa) % i32::from(sb),
            i32::from((i32::from(sa) * i32::from(sb)) as i16),
            if ca < cb {
                -1
            } else if uca >= ucb {
                2
            } else {
                3
            },
        ];
        assert_eq!(&res[16 * i..16 * i + 16], &want, "work-item {i}");
    }
}

#[test]
fn conversions_float_int() {
    let src = r#"
        kernel void k(global const float *f, global int *i32s, global uint *u32s,
                      global float *back, global long *i64s, global double *dd) {
            int i = get_global_id(0);
            float x = f[i];
            i32s[i] = (int)x;
            u32s[i] = (uint)fabs(x);
            back[i] = (float)(int)x + (float)(uint)(i * 3) + (float)(long)(-i);
            i64s[i] = (long)(x * 1000000.0f);
            dd[i] = (double)x * 2.0 + (double)(long)i64s[i];
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let mut f = vec![1.9f32, -1.9, 123456.7, -0.5, 3e9, 7.25, -2147483.5, 0.0];
    let n = f.len();
    let mut i32s = vec![0i32; n];
    let mut u32s = vec![0u32; n];
    let mut back = vec![0f32; n];
    let mut i64s = vec![0i64; n];
    let mut dd = vec![0f64; n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut f)
        .buf(1, &mut i32s)
        .buf(2, &mut u32s)
        .buf(3, &mut back);
    args.buf(4, &mut i64s).buf(5, &mut dd);
    run1(&k, &args, n as u64, n as u64);
    for i in 0..n {
        let x = f[i];
        if x.abs() < 2e9 {
            assert_eq!(i32s[i], x as i32, "int {i}");
            assert_eq!(
                back[i],
                (x as i32) as f32 + ((i * 3) as u32) as f32 + (-(i as i64)) as f32
            );
        }
        assert_eq!(u32s[i], x.abs() as u32, "uint {i}");
        assert_eq!(i64s[i], (x * 1000000.0) as i64, "long {i}");
        assert_eq!(dd[i], f64::from(x) * 2.0 + i64s[i] as f64, "double {i}");
    }
}

#[test]
fn vectors_float4_int8_swizzles_vec3() {
    let src = r#"
        kernel void k(global const float4 *a, global float4 *b, global int8 *c,
                      global float *v3, global int *misc) {
            int i = get_global_id(0);
            float4 x = a[i];
            float4 y = x.wzyx * (float4)(1.0f, 2.0f, 3.0f, 4.0f) + x.xxyy;
            b[i] = y;
            int8 z = c[i];
            c[i] = z * 2 + (int8)(i) + z.s76543210;
            float3 w = vload3(i, v3);
            w = w.zxy + (float3)(10.0f);
            vstore3(w, i, v3);
            int4 m = isgreater(x, (float4)(1.0f));
            misc[4*i] = m.x + 2 * m.y + 4 * m.z + 8 * m.w;
            misc[4*i+1] = as_int(x.y);
            misc[4*i+2] = (int)dot(x, x);
            misc[4*i+3] = any(m) + 2 * all(m);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let n = 4;
    let mut a: Vec<[f32; 4]> = (0..n)
        .map(|i| [i as f32, 0.5 + i as f32, 2.0 - i as f32, -(i as f32)])
        .collect();
    let mut b = vec![[0f32; 4]; n];
    let mut c: Vec<[i32; 8]> = (0..n)
        .map(|i| core::array::from_fn(|j| (i * 10 + j) as i32))
        .collect();
    let c0 = c.clone();
    let mut v3: Vec<f32> = (0..3 * n).map(|i| i as f32).collect();
    let v30 = v3.clone();
    let mut misc = vec![0i32; 4 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut a)
        .buf(1, &mut b)
        .buf(2, &mut c)
        .buf(3, &mut v3)
        .buf(4, &mut misc);
    run1(&k, &args, n as u64, 2);
    for i in 0..n {
        let x = a[i];
        let want = [
            x[3] * 1.0 + x[0],
            x[2] * 2.0 + x[0],
            x[1] * 3.0 + x[1],
            x[0] * 4.0 + x[1],
        ];
        assert_eq!(b[i], want, "float4 {i}");
        let z = c0[i];
        let wc: [i32; 8] = core::array::from_fn(|j| z[j] * 2 + i as i32 + z[7 - j]);
        assert_eq!(c[i], wc, "int8 {i}");
        let w = &v30[3 * i..3 * i + 3];
        assert_eq!(
            &v3[3 * i..3 * i + 3],
            &[w[2] + 10.0, w[0] + 10.0, w[1] + 10.0]
        );
        let m: Vec<i32> = x.iter().map(|v| -((*v > 1.0) as i32)).collect();
        assert_eq!(
            misc[4 * i],
            m[0] + 2 * m[1] + 4 * m[2] + 8 * m[3],
            "isgreater {i}"
        );
        assert_eq!(misc[4 * i + 1], x[1].to_bits() as i32);
        assert_eq!(misc[4 * i + 2], x.iter().map(|v| v * v).sum::<f32>() as i32);
        let any = m.iter().any(|v| *v != 0) as i32;
        let all = m.iter().all(|v| *v != 0) as i32;
        assert_eq!(misc[4 * i + 3], any + 2 * all);
    }
}

#[repr(C)]
#[derive(Clone, Copy)]
struct S {
    a: f32,
    b: i32,
    v: F4,
    c: i8,
}

#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct F4([f32; 4]);

#[test]
fn struct_by_value_and_vector_by_value() {
    let src = r#"
        typedef struct { float a; int b; float4 v; char c; } S;
        kernel void k(global float *out, S s, float4 v, int3 t) {
            int i = get_global_id(0);
            out[i] = s.a * i + s.b + s.v.z + s.c + v.w * t.y + t.z;
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    assert_eq!(
        k.info.args[1].kind,
        ferrite_compiler::ArgKind::Value {
            size: std::mem::size_of::<S>()
        }
    );
    assert_eq!(
        k.info.args[3].kind,
        ferrite_compiler::ArgKind::Value { size: 16 }
    );
    let s = S {
        a: 1.5,
        b: -3,
        v: F4([0.0, 1.0, 2.5, 3.0]),
        c: 7,
    };
    let mut out = vec![0f32; 8];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut out)
        .val(1, s)
        .val(2, F4([1f32, 2.0, 3.0, 4.0]))
        .val(3, [5i32, 6, 7, 0]);
    run1(&k, &args, 8, 4);
    for (i, o) in out.iter().enumerate() {
        assert_eq!(
            *o,
            1.5 * i as f32 - 3.0 + 2.5 + 7.0 + 4.0 * 6.0 + 7.0,
            "{i}"
        );
    }
}
