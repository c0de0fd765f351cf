//! Execution tests for work-item builtins over 2-D/3-D NDRanges with offsets and partial
//! (non-uniform) last groups, and for private, `__constant`, program-scope and `__local`
//! memory.

#[path = "common/harness.rs"]
mod harness;

use harness::{kernel, run, run1, Args};

#[test]
fn builtins_3d_with_offset_and_partial_groups() {
    let src = r#"
        kernel void ids(global uint *out) {
            size_t gx = get_global_id(0) - get_global_offset(0);
            size_t gy = get_global_id(1) - get_global_offset(1);
            size_t gz = get_global_id(2) - get_global_offset(2);
            size_t lin = (gz * get_global_size(1) + gy) * get_global_size(0) + gx;
            global uint *o = out + 16 * lin;
            o[0] = get_global_id(0); o[1] = get_global_id(1); o[2] = get_global_id(2);
            o[3] = get_local_id(0); o[4] = get_local_id(1); o[5] = get_local_id(2);
            o[6] = get_group_id(0) + 100 * get_group_id(1) + 10000 * get_group_id(2);
            o[7] = get_local_size(0) + 100 * get_local_size(1) + 10000 * get_local_size(2);
            o[8] = get_enqueued_local_size(0) + 100 * get_enqueued_local_size(1);
            o[9] = get_num_groups(0) + 100 * get_num_groups(1) + 10000 * get_num_groups(2);
            o[10] = get_global_size(0) + 100 * get_global_size(1) + 10000 * get_global_size(2);
            o[11] = get_work_dim();
            o[12] = get_global_linear_id();
            o[13] = get_local_linear_id();
            o[14] = get_global_offset(0) + 100 * get_global_offset(1) + 10000 * get_global_offset(2);
            o[15] = lin;
        }"#;
    let Some(k) = kernel(src, "ids") else { return };
    let global = [7u64, 5, 3];
    let local = [4u64, 2, 2];
    let offset = [10u64, 20, 30];
    let total = (global[0] * global[1] * global[2]) as usize;
    let mut out = vec![u32::MAX; 16 * total];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut out);
    run(&k, &args, 3, global, local, offset, 0);
    let ng: Vec<u64> = (0..3).map(|d| global[d].div_ceil(local[d])).collect();
    for z in 0..global[2] {
        for y in 0..global[1] {
            for x in 0..global[0] {
                let g = [x, y, z];
                let lin = ((z * global[1] + y) * global[0] + x) as usize;
                let grp: Vec<u64> = (0..3).map(|d| g[d] / local[d]).collect();
                let lid: Vec<u64> = (0..3).map(|d| g[d] % local[d]).collect();
                let ls: Vec<u64> = (0..3)
                    .map(|d| local[d].min(global[d] - grp[d] * local[d]))
                    .collect();
                let want: Vec<u32> = vec![
                    (x + offset[0]) as u32,
                    (y + offset[1]) as u32,
                    (z + offset[2]) as u32,
                    lid[0] as u32,
                    lid[1] as u32,
                    lid[2] as u32,
                    (grp[0] + 100 * grp[1] + 10000 * grp[2]) as u32,
                    (ls[0] + 100 * ls[1] + 10000 * ls[2]) as u32,
                    (local[0] + 100 * local[1]) as u32,
                    (ng[0] + 100 * ng[1] + 10000 * ng[2]) as u32,
                    (global[0] + 100 * global[1] + 10000 * global[2]) as u32,
                    3,
                    lin as u32,
                    ((lid[2] * ls[1] + lid[1]) * ls[0] + lid[0]) as u32,
                    (offset[0] + 100 * offset[1] + 10000 * offset[2]) as u32,
                    lin as u32,
                ];
                assert_eq!(&out[16 * lin..16 * lin + 16], &want[..], "work-item {g:?}");
            }
        }
    }
}

#[test]
fn two_d_matrix_transpose() {
    let src = r#"
        kernel void t(global const float *a, global float *b, int w, int h) {
            int x = get_global_id(0), y = get_global_id(1);
            if (x < w && y < h) b[x * h + y] = a[y * w + x];
        }"#;
    let Some(k) = kernel(src, "t") else { return };
    let (w, h) = (13usize, 9usize);
    let mut a: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
    let mut b = vec![0f32; w * h];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut a)
        .buf(1, &mut b)
        .val(2, w as i32)
        .val(3, h as i32);
    run(&k, &args, 2, [16, 12, 1], [8, 4, 1], [0; 3], 0);
    for y in 0..h {
        for x in 0..w {
            assert_eq!(b[x * h + y], a[y * w + x]);
        }
    }
}

#[test]
fn private_array_constant_array_and_program_scope_global() {
    let src = r#"
        constant int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
        constant float4 ftab[2] = {(float4)(1, 2, 3, 4), (float4)(5, 6, 7, 8)};
        global int counter = 42;
        kernel void k(global int *out, int n) {
            int i = get_global_id(0);
            int priv[16];
            for (int j = 0; j < 16; j++) priv[j] = j * i + table[j % 8];
            int s = 0;
            for (int j = 0; j < n; j++) s += priv[(j * 7 + i) % 16];
            out[i] = s + (int)ftab[i & 1].w + counter;
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    assert!(k.private_size >= 64, "private_size {}", k.private_size);
    let table = [3, 1, 4, 1, 5, 9, 2, 6];
    let n = 11;
    let mut out = vec![0i32; 20];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut out).val(1, n);
    run1(&k, &args, 20, 5);
    for i in 0..20i32 {
        let priv_: Vec<i32> = (0..16).map(|j| j * i + table[(j % 8) as usize]).collect();
        let s: i32 = (0..n).map(|j| priv_[((j * 7 + i) % 16) as usize]).sum();
        let f = if i & 1 == 1 { 8 } else { 4 };
        assert_eq!(out[i as usize], s + f + 42, "{i}");
    }
}

#[test]
fn local_memory_variable_and_argument() {
    let src = r#"
        int __attribute__((noinline)) sum4(local int *p) { return (p[0] + p[1]) * p[2] - p[3]; }
        kernel void k(global int *out, local int *scratch) {
            local int tile[64];
            int l = get_local_id(0);
            for (int j = 0; j < 4; j++) tile[4 * l + j] = l * 3 + j;
            scratch[l] = l + 1000;
            out[get_global_id(0)] = sum4(tile + 4 * l) + scratch[l] + (int)get_group_id(0);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    assert_eq!(k.static_local_size, 256);
    assert_eq!(k.info.args[1].kind, ferrite_compiler::ArgKind::Local);
    let mut out = vec![0i32; 48];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut out).local(1, k.static_local_size as u64);
    run(&k, &args, 1, [48, 1, 1], [16, 1, 1], [0; 3], 16 * 4);
    for (g, o) in out.iter().enumerate() {
        let l = (g % 16) as i32;
        assert_eq!(
            *o,
            (6 * l + 1) * (3 * l + 2) - (3 * l + 3) + l + 1000 + (g / 16) as i32
        );
    }
}

#[test]
fn math_builtins() {
    let src = r#"
        kernel void k(global const float *x, global float *f, global const double *dx,
                      global double *d, global int *n) {
            int i = get_global_id(0);
            float v = x[i];
            global float *o = f + 16 * i;
            o[0] = sqrt(fabs(v)); o[1] = sin(v); o[2] = cos(v); o[3] = exp(v * 0.1f);
            o[4] = log(fabs(v) + 1.0f); o[5] = pow(fabs(v), 1.5f); o[6] = floor(v);
            o[7] = ceil(v); o[8] = trunc(v); o[9] = round(v); o[10] = rint(v);
            o[11] = fmin(v, 0.5f) + fmax(v, -0.5f); o[12] = fma(v, 2.0f, 1.0f);
            o[13] = copysign(2.0f, v); o[14] = clamp(v, -1.0f, 1.0f);
            o[15] = native_sin(v) + mad(v, v, 1.0f);
            double w = dx[i];
            d[4*i] = sqrt(fabs(w)); d[4*i+1] = exp(w * 0.01); d[4*i+2] = fmax(w, 0.0);
            d[4*i+3] = pow(fabs(w), 0.5);
            int a = (int)(v * 1000.0f);
            global int *m = n + 8 * i;
            m[0] = abs(a); m[1] = min(a, 7); m[2] = max(a, -7); m[3] = clamp(a, -100, 100);
            m[4] = mul_hi(a, 0x12345678); m[5] = rotate(a, 5); m[6] = add_sat(a, 0x7fffff00);
            m[7] = (int)min((uint)a, 5u) + popcount(a) + clz(a);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let mut x = vec![0.3f32, -2.7, 2.5, -0.5, 10.25, -123.0, 1.5, 0.0];
    let nn = x.len();
    let mut dx: Vec<f64> = x.iter().map(|v| f64::from(*v) * 3.0).collect();
    let mut f = vec![0f32; 16 * nn];
    let mut d = vec![0f64; 4 * nn];
    let mut n = vec![0i32; 8 * nn];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut x)
        .buf(1, &mut f)
        .buf(2, &mut dx)
        .buf(3, &mut d)
        .buf(4, &mut n);
    run1(&k, &args, nn as u64, 4);
    let close = |a: f32, b: f32| (a - b).abs() <= 1e-5 * b.abs().max(1.0);
    for i in 0..nn {
        let v = x[i];
        let want = [
            v.abs().sqrt(),
            v.sin(),
            v.cos(),
            (v * 0.1).exp(),
            (v.abs() + 1.0).ln(),
            v.abs().powf(1.5),
            v.floor(),
            v.ceil(),
            v.trunc(),
            v.round(),
            v.round_ties_even(),
            v.min(0.5) + v.max(-0.5),
            v.mul_add(2.0, 1.0),
            2f32.copysign(v),
            v.clamp(-1.0, 1.0),
            v.sin() + (v * v + 1.0),
        ];
        for (j, w) in want.iter().enumerate() {
            assert!(
                close(f[16 * i + j], *w),
                "f[{i}][{j}] = {} want {w}",
                f[16 * i + j]
            );
        }
        let w = dx[i];
        let wd = [
            w.abs().sqrt(),
            (w * 0.01).exp(),
            w.max(0.0),
            w.abs().powf(0.5),
        ];
        for (j, e) in wd.iter().enumerate() {
            assert!(
                (d[4 * i + j] - e).abs() <= 1e-12 * e.abs().max(1.0),
                "d[{i}][{j}]"
            );
        }
        let a = (v * 1000.0) as i32;
        let wi = [
            a.abs(),
            a.min(7),
            a.max(-7),
            a.clamp(-100, 100),
            ((i64::from(a) * 0x12345678) >> 32) as i32,
            a.rotate_left(5),
            a.saturating_add(0x7fffff00),
            (a as u32).min(5) as i32 + a.count_ones() as i32 + a.leading_zeros() as i32,
        ];
        assert_eq!(&n[8 * i..8 * i + 8], &wi, "int ops {i}");
    }
}

/// A work-item function with a dimension past the last (a constant, or a run-time value
/// clang passes on as `OpVectorExtractDynamic`): 1 for the sizes and group counts, 0 for
/// the ids and the offset (CTS `work_item_functions_out_of_range{,_hardcoded}`). Once
/// straight, once with a barrier between the loads and their use (step mode).
#[test]
fn work_item_functions_out_of_range() {
    let body = r#"
            uint d = dim;
            size_t v[9] = { get_global_size(d), get_global_id(d), get_local_size(d),
                get_local_id(d), get_num_groups(d), get_group_id(d),
                get_enqueued_local_size(d), get_global_offset(d), 0 };
            BARRIER
            size_t lin = get_global_linear_id();
            for (int i = 0; i < 9; i++)
                out[18 * lin + i] = v[i];
            out[18 * lin + 9] = get_global_size(4);
            out[18 * lin + 10] = get_global_id(4);
            out[18 * lin + 11] = get_local_size(3);
            out[18 * lin + 12] = get_local_id(5);
            out[18 * lin + 13] = get_num_groups(4);
            out[18 * lin + 14] = get_group_id(4);
            out[18 * lin + 15] = get_enqueued_local_size(4);
            out[18 * lin + 16] = get_global_offset(4);
            out[18 * lin + 17] = 7;
        }"#;
    for barrier in ["", "barrier(CLK_LOCAL_MEM_FENCE);"] {
        let src = format!(
            "kernel void wi(global uint *out, int dim) {{ {}",
            body.replace("BARRIER", barrier)
        );
        let Some(k) = kernel(&src, "wi") else { return };
        let global = [6u64, 4, 1];
        let local = [3u64, 2, 1];
        let offset = [5u64, 7, 0];
        let total = 24;
        // In range (dimension 1) as a control, then past the last dimension.
        for dim in [1i32, 2, 3, 4, 1000, -1] {
            let mut out = vec![u32::MAX; 18 * total];
            let mut args = Args::new(&k.info);
            args.buf(0, &mut out).val(1, dim);
            run(&k, &args, 2, global, local, offset, 0);
            let want: Vec<u32> = match dim {
                1 => vec![4, u32::MAX, 2, u32::MAX, 2, u32::MAX, 2, 7, 0],
                _ => vec![1, 0, 1, 0, 1, 0, 1, 0, 0],
            };
            let tail = [1u32, 0, 1, 0, 1, 0, 1, 0, 7];
            for lin in 0..total {
                let got = &out[18 * lin..18 * lin + 18];
                for (i, w) in want.iter().enumerate() {
                    if *w != u32::MAX {
                        assert_eq!(
                            got[i], *w,
                            "barrier {barrier:?} dim {dim} item {lin} value {i}"
                        );
                    }
                }
                assert_eq!(&got[9..], &tail, "barrier {barrier:?} dim {dim} item {lin}");
            }
        }
    }
}

/// `group_blind` (the runtime may re-cut the groups of such a kernel) holds exactly when
/// the kernel reads only global work-item builtins and works on no group: each kernel
/// here reads one more builtin or does one group operation, through a helper function
/// where it matters that the scan follows calls.
#[test]
fn group_blind_only_without_group_geometry() {
    let src = r#"
        uint helper_local(void) { return get_local_id(0); }
        kernel void global_only(global uint *o) {
            size_t i = get_global_id(0) - get_global_offset(0);
            o[i] = get_global_size(0) + get_work_dim() + get_global_linear_id();
        }
        kernel void local_id(global uint *o) { o[get_global_id(0)] = get_local_id(0); }
        kernel void local_id_in_call(global uint *o) { o[get_global_id(0)] = helper_local(); }
        kernel void group_id(global uint *o) { o[get_global_id(0)] = get_group_id(0); }
        kernel void local_size(global uint *o) { o[get_global_id(0)] = get_local_size(0); }
        kernel void enqueued(global uint *o) { o[get_global_id(0)] = get_enqueued_local_size(0); }
        kernel void num_groups(global uint *o) { o[get_global_id(0)] = get_num_groups(0); }
        kernel void local_linear(global uint *o) { o[get_global_id(0)] = get_local_linear_id(); }
        kernel void sub_group_lane(global uint *o) { o[get_global_id(0)] = get_sub_group_local_id(); }
        kernel void sub_group_sum(global uint *o) {
            o[get_global_id(0)] = sub_group_reduce_add(o[get_global_id(0)]);
        }
        kernel void group_sum(global uint *o) {
            o[get_global_id(0)] = work_group_reduce_add(o[get_global_id(0)]);
        }"#;
    let Some(k) = kernel(src, "global_only") else {
        return;
    };
    assert!(k.group_blind, "global builtins only");
    for name in [
        "local_id",
        "local_id_in_call",
        "group_id",
        "local_size",
        "enqueued",
        "num_groups",
        "local_linear",
        "sub_group_lane",
        "sub_group_sum",
        "group_sum",
    ] {
        let k = kernel(src, name).expect("built once already");
        assert!(!k.group_blind, "{name} sees its group");
    }
}
