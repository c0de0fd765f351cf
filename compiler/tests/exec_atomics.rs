//! Atomics on 32- and 64-bit integers (and floats, cl_ext_float_atomics) in global and
//! local memory, with the groups of each launch spread over several threads so global
//! atomicity is really exercised; totals checked against the host.

#[path = "common/harness.rs"]
mod harness;

use harness::{kernel, kernel_with, run_par, Args};

const THREADS: usize = 4;

/// One kernel per integer type: every RMW on global and on local memory; the local
/// results are folded into global memory by work-item 0 of each group.
const INT_SRC: &str = r#"
#define K(NAME, T, INC, DEC, ADD, SUB, MIN, MAX, CMPXCHG, XCHG, AND, OR, XOR)        \
kernel void NAME(global T *g, T bias) {                                              \
    local T s[8];                                                                    \
    int l = get_local_id(0);                                                         \
    T v = (T)get_global_id(0) - bias;                                                \
    if (l == 0) {                                                                    \
        s[0] = 0; s[1] = 0; s[2] = g[20]; s[3] = g[21];                              \
        s[4] = 0; s[5] = 0; s[6] = 0; s[7] = 0;                                      \
    }                                                                                \
    barrier(CLK_LOCAL_MEM_FENCE);                                                    \
    INC(&g[0]); ADD(&g[1], v); MIN(&g[2], v); MAX(&g[3], v);                         \
    { T cur = ADD(&g[4], (T)0);                                                      \
      for (;;) { T seen = CMPXCHG(&g[4], cur, cur + 1);                              \
                 if (seen == cur) break; cur = seen; } }                             \
    DEC(&g[5]); OR(&g[6], (T)1 << (get_global_id(0) % 13)); XOR(&g[7], v);           \
    SUB(&g[15], v); AND(&g[16], ~((T)1 << (get_global_id(0) % 11)));                 \
    INC(&s[0]); ADD(&s[1], v); MIN(&s[2], v); MAX(&s[3], v);                         \
    { T cur = s[4];                                                                  \
      for (;;) { T seen = CMPXCHG(&s[4], cur, cur + 2);                              \
                 if (seen == cur) break; cur = seen; } }                             \
    SUB(&s[5], v); DEC(&s[6]); XOR(&s[7], v);                                        \
    barrier(CLK_LOCAL_MEM_FENCE);                                                    \
    if (l == 0) {                                                                    \
        ADD(&g[8], s[0]); ADD(&g[9], s[1]); MIN(&g[10], s[2]); MAX(&g[11], s[3]);   \
        ADD(&g[12], s[4]); ADD(&g[13], s[5]); ADD(&g[14], s[6]); XOR(&g[17], s[7]); \
        XCHG(&g[18], (T)7);                                                          \
    }                                                                                \
}
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
K(k_int, int, atomic_inc, atomic_dec, atomic_add, atomic_sub, atomic_min, atomic_max,
  atomic_cmpxchg, atomic_xchg, atomic_and, atomic_or, atomic_xor)
K(k_uint, uint, atomic_inc, atomic_dec, atomic_add, atomic_sub, atomic_min, atomic_max,
  atomic_cmpxchg, atomic_xchg, atomic_and, atomic_or, atomic_xor)
K(k_long, long, atom_inc, atom_dec, atom_add, atom_sub, atom_min, atom_max,
  atom_cmpxchg, atom_xchg, atom_and, atom_or, atom_xor)
K(k_ulong, ulong, atom_inc, atom_dec, atom_add, atom_sub, atom_min, atom_max,
  atom_cmpxchg, atom_xchg, atom_and, atom_or, atom_xor)
"#;

macro_rules! int_case {
    ($name:ident, $kernel:literal, $t:ty) => {
        #[test]
        fn $name() {
            let Some(k) = kernel(INT_SRC, $kernel) else {
                return;
            };
            let (groups, local) = (64u64, 32u64);
            let n = groups * local;
            let bias: $t = 100 as $t;
            let init_min: $t = <$t>::MAX / 2;
            let init_max: $t = <$t>::MIN / 2;
            let mut g = vec![0 as $t; 24];
            g[2] = init_min;
            g[3] = init_max;
            g[10] = init_min;
            g[11] = init_max;
            g[16] = !(0 as $t);
            g[20] = init_min;
            g[21] = init_max;
            let mut args = Args::new(&k.info);
            args.buf(0, &mut g).val(1, bias);
            run_par(&k, &args, n, local, 0, THREADS);
            let vals: Vec<$t> = (0..n).map(|i| (i as $t).wrapping_sub(bias)).collect();
            let sum = vals.iter().fold(0 as $t, |a, &b| a.wrapping_add(b));
            let xor = vals.iter().fold(0 as $t, |a, &b| a ^ b);
            let min = vals.iter().copied().fold(init_min, <$t>::min);
            let max = vals.iter().copied().fold(init_max, <$t>::max);
            let nn = n as $t;
            assert_eq!(g[0], nn, "global inc");
            assert_eq!(g[1], sum, "global add");
            assert_eq!(g[2], min, "global min");
            assert_eq!(g[3], max, "global max");
            assert_eq!(g[4], nn, "global cmpxchg loop");
            assert_eq!(g[5], (0 as $t).wrapping_sub(nn), "global dec");
            assert_eq!(g[6], (1 << 13) - 1, "global or");
            assert_eq!(g[7], xor, "global xor");
            assert_eq!(g[15], (0 as $t).wrapping_sub(sum), "global sub");
            assert_eq!(g[16], !(((1 as $t) << 11) - 1), "global and");
            assert_eq!(g[8], nn, "local inc");
            assert_eq!(g[9], sum, "local add");
            assert_eq!(g[10], min, "local min");
            assert_eq!(g[11], max, "local max");
            assert_eq!(g[12], nn.wrapping_mul(2), "local cmpxchg loop");
            assert_eq!(g[13], (0 as $t).wrapping_sub(sum), "local sub");
            assert_eq!(g[14], (0 as $t).wrapping_sub(nn), "local dec");
            assert_eq!(g[17], xor, "local xor");
            assert_eq!(g[18], 7, "xchg");
        }
    };
}

int_case!(atomics_int, "k_int", i32);
int_case!(atomics_uint, "k_uint", u32);
int_case!(atomics_long, "k_long", i64);
int_case!(atomics_ulong, "k_ulong", u64);

#[test]
fn histogram_local_then_global() {
    let src = r#"
        kernel void hist(global const uchar *data, global uint *bins, int n) {
            local uint h[64];
            int l = get_local_id(0), ls = get_local_size(0);
            for (int i = l; i < 64; i += ls) h[i] = 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int i = get_global_id(0); i < n; i += get_global_size(0))
                atomic_inc(&h[data[i] % 64]);
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int i = l; i < 64; i += ls) atomic_add(&bins[i], h[i]);
        }"#;
    let Some(k) = kernel(src, "hist") else { return };
    let n = 100_000usize;
    let mut data: Vec<u8> = (0..n)
        .map(|i| ((i as u32).wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let mut bins = vec![0u32; 64];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut data).buf(1, &mut bins).val(2, n as i32);
    run_par(&k, &args, 64 * 48, 48, 0, THREADS);
    let mut want = vec![0u32; 64];
    for d in &data {
        want[*d as usize % 64] += 1;
    }
    assert_eq!(bins, want);
}

#[test]
fn c11_atomics_with_scopes_and_flags() {
    let src = r#"
        kernel void k(global atomic_int *ai, global atomic_long *al, global int *out,
                      global atomic_flag *flag) {
            local atomic_int la;
            int l = get_local_id(0);
            if (l == 0) atomic_init(&la, 0);
            barrier(CLK_LOCAL_MEM_FENCE);
            atomic_fetch_add_explicit(&ai[0], 1, memory_order_relaxed, memory_scope_device);
            atomic_fetch_add_explicit(&ai[1], 2, memory_order_acq_rel,
                                      memory_scope_all_svm_devices);
            atomic_fetch_sub(&ai[2], 3);
            atomic_fetch_max_explicit(&ai[3], (int)get_global_id(0), memory_order_seq_cst,
                                      memory_scope_work_group);
            atomic_fetch_add(&al[0], 1L << 33);
            atomic_fetch_add_explicit(&la, 1, memory_order_relaxed, memory_scope_work_group);
            int e = atomic_load(&ai[4]);
            while (!atomic_compare_exchange_weak(&ai[4], &e, e + 5)) {}
            if (!atomic_flag_test_and_set(&flag[0])) atomic_fetch_add(&ai[5], 1);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (l == 0) {
                atomic_fetch_add(&ai[6], atomic_load_explicit(&la, memory_order_relaxed,
                                                              memory_scope_work_group));
                atomic_store(&ai[7], 42);
            }
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let (groups, local) = (50u64, 20u64);
    let n = groups * local;
    let mut ai = vec![0i32; 8];
    let mut al = vec![0i64; 1];
    let mut out = vec![0i32; 1];
    let mut flag = vec![0i32; 1];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut ai)
        .buf(1, &mut al)
        .buf(2, &mut out)
        .buf(3, &mut flag);
    run_par(&k, &args, n, local, 0, THREADS);
    let n = n as i32;
    assert_eq!(ai[0], n);
    assert_eq!(ai[1], 2 * n);
    assert_eq!(ai[2], -3 * n);
    assert_eq!(ai[3], n - 1);
    assert_eq!(al[0], (n as i64) << 33);
    assert_eq!(ai[4], 5 * n);
    assert_eq!(ai[5], 1, "exactly one test_and_set saw the flag clear");
    assert_eq!(flag[0], 1);
    assert_eq!(ai[6], n);
    assert_eq!(ai[7], 42);
}

#[test]
fn float_atomics_ext() {
    let src = r#"
        kernel void k(global float *f, global double *d, global float *mm) {
            local float lf;
            int l = get_local_id(0);
            if (l == 0) lf = 0.0f;
            barrier(CLK_LOCAL_MEM_FENCE);
            float v = (float)(get_global_id(0) % 16) * 0.5f;
            atomic_fetch_add_explicit((volatile global atomic_float *)f, v,
                                      memory_order_relaxed, memory_scope_device);
            atomic_fetch_add((volatile global atomic_double *)d, (double)v);
            atomic_fetch_add_explicit((volatile local atomic_float *)&lf, 1.0f,
                                      memory_order_relaxed, memory_scope_work_group);
            atomic_fetch_min((volatile global atomic_float *)&mm[0], v - 3.0f);
            atomic_fetch_max((volatile global atomic_float *)&mm[1], v + 3.0f);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (l == 0)
                atomic_fetch_add((volatile global atomic_float *)&f[1], lf);
        }"#;
    let features = "-cl-ext=+cl_ext_float_atomics,+__opencl_c_ext_fp32_global_atomic_add,\
        +__opencl_c_ext_fp64_global_atomic_add,+__opencl_c_ext_fp32_local_atomic_add,\
        +__opencl_c_ext_fp32_global_atomic_min_max";
    let Some(k) = kernel_with(
        src,
        "k",
        &["-Xclang", features],
        ",+SPV_EXT_shader_atomic_float_add,+SPV_EXT_shader_atomic_float_min_max",
    ) else {
        return;
    };
    let (groups, local) = (40u64, 32u64);
    let n = groups * local;
    let mut f = vec![0f32; 2];
    let mut d = vec![0f64; 1];
    let mut mm = vec![100f32, -100f32];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut f).buf(1, &mut d).buf(2, &mut mm);
    run_par(&k, &args, n, local, 0, THREADS);
    let want: f64 = (0..n).map(|i| (i % 16) as f64 * 0.5).sum();
    // Every partial sum is a multiple of 0.5 below 2^23: exact in f32 in any order.
    assert_eq!(f[0] as f64, want);
    assert_eq!(d[0], want);
    assert_eq!(f[1], n as f32);
    assert_eq!(mm, vec![-3.0, 10.5]);
}
