//! Execution tests of work-group features: barriers anywhere (straight code, loops,
//! uniform conditionals, called functions), local memory, private memory kept across
//! barriers, collectives and async copies.
#![expect(
    clippy::needless_range_loop,
    reason = "host references index like the kernels they check"
)]

#[path = "common/harness.rs"]
mod harness;

use harness::{kernel, kernel_opt, run1, run1_local, Args};

#[test]
fn barrier_reverses_through_local_memory() {
    let src = r#"
        kernel void rev(global const int *in, global int *out) {
            local int tmp[64];
            size_t l = get_local_id(0), n = get_local_size(0);
            tmp[l] = in[get_global_id(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            out[get_global_id(0)] = tmp[n - 1 - l];
        }"#;
    let Some(k) = kernel(src, "rev") else { return };
    assert!(k.frame_size_per_item > 0);
    let n = 256;
    let mut a: Vec<i32> = (0..n).map(|i| i * 3 + 1).collect();
    let mut b = vec![0i32; n as usize];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut a).buf(1, &mut b);
    run1(&k, &args, n as u64, 64);
    for i in 0..n as usize {
        let g = i / 64;
        let l = i % 64;
        assert_eq!(b[i], a[g * 64 + 63 - l], "out[{i}]");
    }
}

fn pseudo(n: usize, seed: u32) -> Vec<u32> {
    (0..n as u32)
        .map(|i| (i ^ seed).wrapping_mul(2_654_435_761) >> 20)
        .collect()
}

#[test]
fn barrier_inside_loop_tree_reduction() {
    let src = r#"
        kernel void reduce(global const uint *in, global uint *out, local uint *scratch) {
            size_t l = get_local_id(0), n = get_local_size(0);
            scratch[l] = in[get_global_id(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            for (size_t s = n / 2; s > 0; s /= 2) {
                if (l < s) scratch[l] += scratch[l + s];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            if (l == 0) out[get_group_id(0)] = scratch[0];
        }"#;
    for opt in ["-O2", "-O0"] {
        let Some(k) = kernel_opt(src, "reduce", opt) else {
            return;
        };
        let (groups, local) = (37usize, 128usize);
        let mut input = pseudo(groups * local, 7);
        let mut out = vec![0u32; groups];
        let mut args = Args::new(&k.info);
        args.buf(0, &mut input).buf(1, &mut out).local(2, 0);
        run1_local(&k, &args, (groups * local) as u64, local as u64, local * 4);
        for g in 0..groups {
            let want = input[g * local..(g + 1) * local]
                .iter()
                .fold(0u32, |a, &b| a.wrapping_add(b));
            assert_eq!(out[g], want, "{opt}: group {g}");
        }
    }
}

#[test]
fn barrier_inside_uniform_if_and_sequence() {
    let src = r#"
        kernel void k(global int *out, int mode) {
            local int a[32];
            local int b[32];
            int l = get_local_id(0);
            a[l] = l * 2;
            barrier(CLK_LOCAL_MEM_FENCE);
            int v = a[31 - l];
            if (mode > 0) {
                b[l] = v + 100;
                barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
                v = b[(l + 1) % 32];
            } else {
                b[l] = v - 100;
                work_group_barrier(CLK_LOCAL_MEM_FENCE);
                v = b[(l + 31) % 32];
            }
            barrier(CLK_GLOBAL_MEM_FENCE);
            a[l] = v;
            work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_work_group);
            out[get_global_id(0)] = a[(l + 2) % 32] + l;
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    for mode in [1i32, 0] {
        let mut out = vec![0i32; 64];
        let mut args = Args::new(&k.info);
        args.buf(0, &mut out).val(1, mode);
        run1(&k, &args, 64, 32);
        for i in 0..64 {
            let l = (i % 32) as i32;
            let a = |j: i32| j * 2;
            let v = |l: i32| {
                if mode > 0 {
                    a(31 - (l + 1) % 32) + 100
                } else {
                    a(31 - (l + 31) % 32) - 100
                }
            };
            assert_eq!(out[i], v((l + 2) % 32) + l, "mode {mode} out[{i}]");
        }
    }
}

#[test]
fn barrier_inside_called_function() {
    let src = r#"
        __attribute__((noinline))
        int exchange(local int *s, int l, int v, int n) {
            s[l] = v;
            barrier(CLK_LOCAL_MEM_FENCE);
            int r = s[(l + 1) % n];
            barrier(CLK_LOCAL_MEM_FENCE);
            return r;
        }
        __attribute__((noinline))
        int twice(local int *s, int l, int v, int n) {
            int a = exchange(s, l, v, n);
            return exchange(s, l, a * 10, n);
        }
        kernel void k(global int *out, local int *s) {
            int l = get_local_id(0), n = get_local_size(0);
            int acc = 0;
            for (int r = 0; r < 3; r++)
                acc += twice(s, l, l + r, n);
            out[get_global_id(0)] = acc;
        }"#;
    for opt in ["-O2", "-O0"] {
        let Some(k) = kernel_opt(src, "k", opt) else {
            return;
        };
        let n = 16i32;
        let mut out = vec![0i32; 48];
        let mut args = Args::new(&k.info);
        args.buf(0, &mut out).local(1, 0);
        run1_local(&k, &args, 48, n as u64, 64);
        for i in 0..48 {
            let l = i as i32 % n;
            let want: i32 = (0..3).map(|r| ((l + 2) % n + r) * 10).sum();
            assert_eq!(out[i], want, "{opt}: out[{i}]");
        }
    }
}

#[test]
fn private_64k_live_across_barrier_at_1024() {
    let src = r#"
        kernel void k(global int *out, int seed) {
            int priv[16384];
            int l = get_local_id(0);
            for (int i = 0; i < 16384; i++) priv[i] = i * seed + l;
            barrier(CLK_LOCAL_MEM_FENCE);
            int s = 0;
            for (int i = 0; i < 16384; i += 97) s += priv[i];
            barrier(CLK_LOCAL_MEM_FENCE);
            out[get_global_id(0)] = s + priv[16383 - l];
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    assert!(
        k.frame_size_per_item >= 65536,
        "frame {}",
        k.frame_size_per_item
    );
    let mut out = vec![0i32; 2048];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut out).val(1, 3i32);
    run1(&k, &args, 2048, 1024);
    for (g, o) in out.iter().enumerate() {
        let l = (g % 1024) as i32;
        let s: i32 = (0..16384).step_by(97).map(|i| i * 3 + l).sum();
        assert_eq!(*o, s + (16383 - l) * 3 + l, "out[{g}]");
    }
}

#[test]
fn tiled_matrix_multiply() {
    let src = r#"
        #define T 8
        kernel void mm(global const float *A, global const float *B, global float *C, int n) {
            local float As[T][T];
            local float Bs[T][T];
            int tx = get_local_id(0), ty = get_local_id(1);
            int col = get_global_id(0), row = get_global_id(1);
            float acc = 0.0f;
            for (int t = 0; t < n / T; t++) {
                As[ty][tx] = A[row * n + t * T + tx];
                Bs[ty][tx] = B[(t * T + ty) * n + col];
                barrier(CLK_LOCAL_MEM_FENCE);
                for (int k = 0; k < T; k++) acc += As[ty][k] * Bs[k][tx];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            C[row * n + col] = acc;
        }"#;
    let Some(k) = kernel(src, "mm") else { return };
    let n = 32usize;
    let mut a: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let mut b: Vec<f32> = (0..n * n).map(|i| ((i * 5) % 11) as f32 * 0.5).collect();
    let mut c = vec![0f32; n * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut a)
        .buf(1, &mut b)
        .buf(2, &mut c)
        .val(3, n as i32);
    harness::run(&k, &args, 2, [n as u64, n as u64, 1], [8, 8, 1], [0; 3], 0);
    for r in 0..n {
        for col in 0..n {
            let want: f32 = (0..n).map(|k| a[r * n + k] * b[k * n + col]).sum();
            assert!(
                (c[r * n + col] - want).abs() < 1e-3,
                "C[{r}][{col}] = {} want {want}",
                c[r * n + col]
            );
        }
    }
}

#[test]
fn prefix_scan_in_local_memory() {
    let src = r#"
        kernel void scan(global const int *in, global int *out, local int *buf) {
            int l = get_local_id(0), n = get_local_size(0);
            buf[l] = in[get_global_id(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int off = 1; off < n; off *= 2) {
                int v = l >= off ? buf[l - off] : 0;
                barrier(CLK_LOCAL_MEM_FENCE);
                buf[l] += v;
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            out[get_global_id(0)] = buf[l];
        }"#;
    let Some(k) = kernel(src, "scan") else { return };
    let (groups, local) = (5usize, 64usize);
    let mut input: Vec<i32> = (0..groups * local).map(|i| (i % 17) as i32 - 8).collect();
    let mut out = vec![0i32; groups * local];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut input).buf(1, &mut out).local(2, 0);
    run1_local(&k, &args, (groups * local) as u64, local as u64, local * 4);
    for g in 0..groups {
        let mut acc = 0;
        for l in 0..local {
            acc += input[g * local + l];
            assert_eq!(out[g * local + l], acc, "group {g} item {l}");
        }
    }
}

#[test]
fn work_group_collectives() {
    let src = r#"
        kernel void k(global const int *in, global const float *fin, global int *out,
                      global float *fout, global long *lout) {
            size_t g = get_global_id(0);
            int v = in[g];
            int l = get_local_id(0);
            out[g * 12 + 0] = work_group_reduce_add(v);
            out[g * 12 + 1] = work_group_scan_inclusive_add(v);
            out[g * 12 + 2] = work_group_scan_exclusive_add(v);
            out[g * 12 + 3] = work_group_reduce_min(v);
            out[g * 12 + 4] = work_group_reduce_max(v);
            out[g * 12 + 5] = work_group_scan_exclusive_min(v);
            out[g * 12 + 6] = work_group_scan_inclusive_max(v);
            out[g * 12 + 7] = work_group_broadcast(v, 3);
            out[g * 12 + 8] = work_group_all(v > -100);
            out[g * 12 + 9] = work_group_any(v == 7);
            out[g * 12 + 10] = (int)work_group_reduce_max((uint)v);
            out[g * 12 + 11] = (int)work_group_scan_exclusive_min((uint)v);
            fout[g * 3 + 0] = work_group_reduce_add(fin[g]);
            fout[g * 3 + 1] = work_group_scan_inclusive_min(fin[g]);
            fout[g * 3 + 2] = work_group_reduce_max(fin[g]);
            lout[g] = work_group_scan_inclusive_add((long)v << 32);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let (groups, local) = (6usize, 24usize);
    let n = groups * local;
    let mut input: Vec<i32> = (0..n).map(|i| ((i * 37) % 23) as i32 - 11).collect();
    let mut fin: Vec<f32> = (0..n).map(|i| ((i * 13) % 19) as f32 * 0.25).collect();
    let mut out = vec![0i32; n * 12];
    let mut fout = vec![0f32; n * 3];
    let mut lout = vec![0i64; n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut input)
        .buf(1, &mut fin)
        .buf(2, &mut out)
        .buf(3, &mut fout)
        .buf(4, &mut lout);
    run1(&k, &args, n as u64, local as u64);
    for g in 0..groups {
        let vs = &input[g * local..(g + 1) * local];
        let fs = &fin[g * local..(g + 1) * local];
        let sum: i32 = vs.iter().sum();
        let min = *vs.iter().min().unwrap();
        let max = *vs.iter().max().unwrap();
        let umax = vs.iter().map(|&v| v as u32).max().unwrap() as i32;
        let fsum: f32 = fs.iter().fold(0.0, |a, b| a + b);
        let fmax = fs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        for l in 0..local {
            let i = g * local + l;
            let o = &out[i * 12..i * 12 + 12];
            let what = format!("group {g} item {l}");
            assert_eq!(o[0], sum, "reduce_add {what}");
            assert_eq!(
                o[1],
                vs[..=l].iter().sum::<i32>(),
                "scan_inclusive_add {what}"
            );
            assert_eq!(
                o[2],
                vs[..l].iter().sum::<i32>(),
                "scan_exclusive_add {what}"
            );
            assert_eq!(o[3], min, "reduce_min {what}");
            assert_eq!(o[4], max, "reduce_max {what}");
            let emin = vs[..l].iter().copied().min().unwrap_or(i32::MAX);
            assert_eq!(o[5], emin, "scan_exclusive_min {what}");
            assert_eq!(
                o[6],
                *vs[..=l].iter().max().unwrap(),
                "scan_inclusive_max {what}"
            );
            assert_eq!(o[7], vs[3], "broadcast {what}");
            assert_eq!(o[8], 1, "all {what}");
            assert_eq!(o[9], i32::from(vs.contains(&7)), "any {what}");
            assert_eq!(o[10], umax, "reduce_max(uint) {what}");
            let eumin = vs[..l].iter().map(|&v| v as u32).min().unwrap_or(u32::MAX);
            assert_eq!(o[11], eumin as i32, "scan_exclusive_min(uint) {what}");
            assert_eq!(fout[i * 3], fsum, "reduce_add(float) {what}");
            let fmin = fs[..=l].iter().copied().fold(f32::INFINITY, f32::min);
            assert_eq!(fout[i * 3 + 1], fmin, "scan_inclusive_min(float) {what}");
            assert_eq!(fout[i * 3 + 2], fmax, "reduce_max(float) {what}");
            let lsum: i64 = vs[..=l].iter().map(|&v| (v as i64) << 32).sum();
            assert_eq!(lout[i], lsum, "scan_inclusive_add(long) {what}");
        }
    }
}

#[test]
fn broadcast_2d_and_collective_in_loop() {
    let src = r#"
        kernel void k(global int *out) {
            int x = get_local_id(0), y = get_local_id(1);
            int v = x * 10 + y;
            int acc = 0;
            for (int r = 0; r < 3; r++) {
                acc += work_group_broadcast(v + r, (size_t)(r % 2), (size_t)2);
                acc += work_group_reduce_add(1);
            }
            out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = acc;
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let mut out = vec![0i32; 8 * 6];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut out);
    harness::run(&k, &args, 2, [8, 6, 1], [4, 3, 1], [0; 3], 0);
    let want: i32 = (0..3).map(|r| (r % 2) * 10 + 2 + r + 12).sum();
    assert!(out.iter().all(|&o| o == want), "{out:?} want {want}");
}

#[test]
fn async_copies() {
    let src = r#"
        kernel void k(global const float4 *src, global float4 *dst, global const int *s2,
                      global int *d2, local float4 *tile, int stride) {
            local int t2[16];
            int l = get_local_id(0), n = get_local_size(0), g = get_group_id(0);
            event_t e = async_work_group_copy(tile, src + g * n, n, 0);
            wait_group_events(1, &e);
            tile[l] *= 2.0f;
            barrier(CLK_LOCAL_MEM_FENCE);
            e = async_work_group_copy(dst + g * n, tile, n, 0);
            event_t e2 = async_work_group_strided_copy(t2, s2 + g * 16 * stride, 16, stride, 0);
            wait_group_events(1, &e2);
            wait_group_events(1, &e);
            if (l < 16) t2[l] += 1;
            barrier(CLK_LOCAL_MEM_FENCE);
            e = async_work_group_strided_copy(d2 + g * 16 * stride, t2, 16, stride, 0);
            wait_group_events(1, &e);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let (groups, local, stride) = (3usize, 32usize, 3usize);
    let mut src4: Vec<f32> = (0..groups * local * 4).map(|i| i as f32).collect();
    let mut dst4 = vec![0f32; groups * local * 4];
    let mut s2: Vec<i32> = (0..groups * 16 * stride).map(|i| i as i32 * 7).collect();
    let mut d2 = vec![-1i32; groups * 16 * stride];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut src4)
        .buf(1, &mut dst4)
        .buf(2, &mut s2)
        .buf(3, &mut d2)
        .local(4, 0)
        .val(5, stride as i32);
    run1_local(&k, &args, (groups * local) as u64, local as u64, local * 16);
    for i in 0..dst4.len() {
        assert_eq!(dst4[i], src4[i] * 2.0, "dst4[{i}]");
    }
    for (i, d) in d2.iter().enumerate() {
        let want = if i % stride == 0 { s2[i] + 1 } else { -1 };
        assert_eq!(*d, want, "d2[{i}]");
    }
}
