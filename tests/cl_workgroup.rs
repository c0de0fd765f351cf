//! Work-groups and the memory model through the ICD loader: barriers in loops, uniform
//! conditionals and called functions, private data kept across barriers at a work-group
//! size of 1024, `__local` tiles, local then global atomics racing across the executor's
//! workers, work-group collectives, async copies, and what the device claims about them
//! (extensions, OpenCL C features, atomic capabilities, local-memory limits).

use ferrite_tests::*;

fn names(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

#[test]
fn device_claims_atomics_and_collectives() {
    let ext = names(&device_string(CL_DEVICE_EXTENSIONS));
    for e in [
        "cl_khr_global_int32_base_atomics",
        "cl_khr_global_int32_extended_atomics",
        "cl_khr_local_int32_base_atomics",
        "cl_khr_local_int32_extended_atomics",
        "cl_khr_int64_base_atomics",
        "cl_khr_int64_extended_atomics",
    ] {
        assert!(
            ext.iter().any(|x| x == e),
            "CL_DEVICE_EXTENSIONS lacks {e}: {ext:?}"
        );
    }
    let mem: cl_device_atomic_capabilities = device_get(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES);
    let fence: cl_device_atomic_capabilities = device_get(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES);
    let all = CL_DEVICE_ATOMIC_ORDER_RELAXED
        | CL_DEVICE_ATOMIC_ORDER_ACQ_REL
        | CL_DEVICE_ATOMIC_ORDER_SEQ_CST
        | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP
        | CL_DEVICE_ATOMIC_SCOPE_DEVICE
        | CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES;
    assert_eq!(mem & all, all, "atomic memory capabilities {mem:#x}");
    assert_eq!(
        fence & (all | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM),
        all | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM,
        "atomic fence capabilities {fence:#x}"
    );
    let wg: cl_bool = device_get(CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT);
    assert_eq!(wg, CL_TRUE);
}

#[test]
fn opencl_c_features_match_capabilities_and_macros() {
    let env = Env::new();
    let src = r#"
#if !defined(__opencl_c_atomic_order_seq_cst) || !defined(__opencl_c_atomic_scope_device) \
    || !defined(__opencl_c_work_group_collective_functions) \
    || !defined(cl_khr_int64_base_atomics) || !defined(cl_khr_local_int32_base_atomics)
#error "feature macros missing"
#endif
__kernel void k(__global int *out) { out[0] = work_group_reduce_add(1); }
"#;
    let k = env.build(src, "-cl-std=CL3.0").kernel("k");
    let out = env.buffer_zeroed::<i32>(1);
    k.buf(0, &out);
    run_1d(&env.queue, &k, 64, Some(64));
    assert_eq!(out.read::<i32>(&env.queue, 1), vec![64]);
}

#[test]
fn barriers_in_loops_conditionals_and_functions() {
    let env = Env::new();
    let src = r#"
__attribute__((noinline))
uint step(__local uint *s, uint l, uint n, uint stride) {
    if (l < stride) s[l] += s[l + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint r = s[0];
    // Before work-item 0 writes s[0] again in the next step (checked mode's race report).
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}
__kernel void k(__global const uint *in, __global uint *out, __local uint *s, int twice) {
    uint l = get_local_id(0), n = get_local_size(0);
    s[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint total = 0;
    for (uint stride = n / 2; stride > 0; stride /= 2)
        total = step(s, l, n, stride);
    if (twice) {
        barrier(CLK_LOCAL_MEM_FENCE);
        s[l] = total;
        work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        total += s[n - 1 - l];
    }
    out[get_global_id(0)] = total;
}
"#;
    let (groups, local) = (64usize, 256usize);
    let input: Vec<u32> = (0..(groups * local) as u32).map(|i| i % 1000).collect();
    let bi = env.buffer_from(&input);
    let bo = env.buffer_zeroed::<u32>(groups * local);
    let k = env.build(src, "-cl-std=CL3.0").kernel("k");
    for twice in [0i32, 1] {
        k.buf(0, &bi).buf(1, &bo).local(2, local * 4).arg(3, &twice);
        run_1d(&env.queue, &k, groups * local, Some(local));
        let out: Vec<u32> = bo.read(&env.queue, groups * local);
        for g in 0..groups {
            let sum: u32 = input[g * local..(g + 1) * local].iter().sum();
            let want = if twice == 1 { 2 * sum } else { sum };
            assert!(
                out[g * local..(g + 1) * local].iter().all(|&o| o == want),
                "twice={twice} group {g}: {:?} want {want}",
                &out[g * local..g * local + 4]
            );
        }
    }
}

#[test]
fn private_64k_across_a_barrier_at_1024() {
    let env = Env::new();
    let src = r#"
__kernel void k(__global int *out) {
    int priv[16384];
    int l = get_local_id(0);
    for (int i = 0; i < 16384; i++) priv[i] = i ^ l;
    barrier(CLK_LOCAL_MEM_FENCE);
    int s = 0;
    for (int i = 0; i < 16384; i += 1024) s += priv[i + (l & 1023)];
    out[get_global_id(0)] = s;
}
"#;
    let k = env.build(src, "").kernel("k");
    let bo = env.buffer_zeroed::<i32>(2048);
    k.buf(0, &bo);
    run_1d(&env.queue, &k, 2048, Some(1024));
    let out: Vec<i32> = bo.read(&env.queue, 2048);
    for (g, o) in out.iter().enumerate() {
        let l = (g % 1024) as i32;
        let want: i32 = (0..16384).step_by(1024).map(|i| (i + l) ^ l).sum();
        assert_eq!(*o, want, "out[{g}]");
    }
    let d = env.dev.device;
    let private: cl_ulong = pod(&kernel_wg_info(k.raw(), d, CL_KERNEL_PRIVATE_MEM_SIZE)
        .expect("CL_KERNEL_PRIVATE_MEM_SIZE"));
    assert!(private >= 65536, "CL_KERNEL_PRIVATE_MEM_SIZE {private}");
}

#[test]
fn tiled_matrix_multiply_with_local_tiles() {
    let env = Env::new();
    let src = r#"
#define T 16
__kernel void mm(__global const float *A, __global const float *B, __global float *C, int n) {
    __local float As[T][T], Bs[T][T];
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
}
"#;
    let n = 128usize;
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i * 5) % 11) as f32 * 0.5).collect();
    let (ba, bb, bc) = (
        env.buffer_from(&a),
        env.buffer_from(&b),
        env.buffer_zeroed::<f32>(n * n),
    );
    let k = env.build(src, "").kernel("mm");
    k.buf(0, &ba).buf(1, &bb).buf(2, &bc).arg(3, &(n as i32));
    run_2d(&env.queue, &k, None, [n, n], Some([16, 16]));
    let c: Vec<f32> = bc.read(&env.queue, n * n);
    for r in 0..n {
        for col in 0..n {
            let want: f32 = (0..n).map(|k| a[r * n + k] * b[k * n + col]).sum();
            assert!((c[r * n + col] - want).abs() < 1e-2, "C[{r}][{col}]");
        }
    }
}

#[test]
fn histogram_local_then_global_atomics() {
    let env = Env::new();
    let src = r#"
__kernel void hist(__global const uchar *data, __global uint *bins, int n) {
    __local uint h[256];
    int l = get_local_id(0), ls = get_local_size(0);
    for (int i = l; i < 256; i += ls) h[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) atomic_inc(&h[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = l; i < 256; i += ls) atomic_add(&bins[i], h[i]);
}
__kernel void total(__global long *t, __global ulong *m, int reps) {
    for (int r = 0; r < reps; r++) {
        atom_add(&t[0], 3L);
        atomic_fetch_add_explicit((__global atomic_long *)&t[1], 1L << 34,
                                  memory_order_relaxed, memory_scope_device);
        atom_max(&m[0], (ulong)get_global_id(0) << 33);
    }
}
"#;
    let n: i32 = 1 << 20;
    let data: Vec<u8> = (0..n as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let bd = env.buffer_from(&data);
    let bb = env.buffer_zeroed::<u32>(256);
    let p = env.build(src, "-cl-std=CL3.0");
    let k = p.kernel("hist");
    k.buf(0, &bd).buf(1, &bb).arg(2, &n);
    run_1d(&env.queue, &k, 128 * 64, Some(64));
    let bins: Vec<u32> = bb.read(&env.queue, 256);
    let mut want = vec![0u32; 256];
    for d in &data {
        want[*d as usize] += 1;
    }
    assert_eq!(bins, want);

    let (bt, bm) = (env.buffer_zeroed::<i64>(2), env.buffer_zeroed::<u64>(1));
    let t = p.kernel("total");
    let reps = 200i32;
    t.buf(0, &bt).buf(1, &bm).arg(2, &reps);
    run_1d(&env.queue, &t, 4096, Some(32));
    let tot: Vec<i64> = bt.read(&env.queue, 2);
    assert_eq!(
        tot,
        vec![3 * 4096 * reps as i64, (4096 * reps as i64) << 34]
    );
    assert_eq!(bm.read::<u64>(&env.queue, 1), vec![4095u64 << 33]);
}

#[test]
fn collectives_and_async_copies() {
    let env = Env::new();
    let src = r#"
__kernel void k(__global const int *in, __global int *out, __local int *tile) {
    int l = get_local_id(0), n = get_local_size(0), g = get_group_id(0);
    event_t e = async_work_group_copy(tile, in + g * n, n, 0);
    wait_group_events(1, &e);
    int v = tile[n - 1 - l];
    int r = work_group_reduce_add(v);
    int s = work_group_scan_exclusive_add(v);
    int b = work_group_broadcast(v, 0);
    int mx = work_group_reduce_max(v);
    int any = work_group_any(v == 5);
    tile[l] = r + s + b + mx + any;
    barrier(CLK_LOCAL_MEM_FENCE);
    e = async_work_group_copy(out + g * n, tile, n, 0);
    wait_group_events(1, &e);
}
"#;
    let (groups, local) = (16usize, 128usize);
    let input: Vec<i32> = (0..groups * local)
        .map(|i| (i * 31 % 97) as i32 - 40)
        .collect();
    let (bi, bo) = (
        env.buffer_from(&input),
        env.buffer_zeroed::<i32>(groups * local),
    );
    let k = env.build(src, "-cl-std=CL3.0").kernel("k");
    k.buf(0, &bi).buf(1, &bo).local(2, local * 4);
    run_1d(&env.queue, &k, groups * local, Some(local));
    let out: Vec<i32> = bo.read(&env.queue, groups * local);
    for g in 0..groups {
        let v: Vec<i32> = (0..local)
            .map(|l| input[g * local + local - 1 - l])
            .collect();
        let r: i32 = v.iter().sum();
        let mx = *v.iter().max().unwrap();
        let any = i32::from(v.contains(&5));
        for l in 0..local {
            let s: i32 = v[..l].iter().sum();
            assert_eq!(
                out[g * local + l],
                r + s + v[0] + mx + any,
                "group {g} item {l}"
            );
        }
    }
}

#[test]
fn local_memory_size_is_truthful_and_limited() {
    let env = Env::new();
    let src = r#"
__kernel void k(__global int *out, __local int *dyn) {
    __local int fixed[1000];
    int l = get_local_id(0);
    fixed[l] = l; dyn[l] = 2 * l;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = fixed[(l + 1) % get_local_size(0)] + dyn[l];
}
"#;
    let k = env.build(src, "").kernel("k");
    let d = env.dev.device;
    let wg = |param| -> cl_ulong {
        pod(&kernel_wg_info(k.raw(), d, param).expect("clGetKernelWorkGroupInfo"))
    };
    let fixed = wg(CL_KERNEL_LOCAL_MEM_SIZE);
    assert!((4000..4000 + 256).contains(&fixed), "static local {fixed}");
    k.local(1, 8192);
    let with_arg = wg(CL_KERNEL_LOCAL_MEM_SIZE);
    assert!(
        with_arg >= fixed + 8192,
        "with a __local argument {with_arg}"
    );
    let bo = env.buffer_zeroed::<i32>(64);
    k.buf(0, &bo);
    run_1d(&env.queue, &k, 64, Some(64));
    let out: Vec<i32> = bo.read(&env.queue, 64);
    for (l, o) in out.iter().enumerate() {
        assert_eq!(*o, ((l + 1) % 64) as i32 + 2 * l as i32);
    }
    // "CL_OUT_OF_RESOURCES if ... the local memory the kernel needs exceeds
    // CL_DEVICE_LOCAL_MEM_SIZE" (reported at enqueue).
    let max: cl_ulong = device_get(CL_DEVICE_LOCAL_MEM_SIZE);
    k.local(1, max as usize);
    let rc = enqueue_nd(&env.queue, &k, None, &[64], Some(&[64])).err();
    assert_eq!(rc, Some(CL_OUT_OF_RESOURCES), "too much local memory");
}

/// 512 KiB of local memory per work-group (what PoCL reports; reikna's transpose needs more
/// than 64 KiB): a kernel fills 256 KiB through a `__local` pointer argument and reads it
/// back across work-items, then the whole `CL_DEVICE_LOCAL_MEM_SIZE`; one byte over it is
/// `CL_OUT_OF_RESOURCES` and the queue goes on running kernels.
#[test]
fn large_local_memory_through_a_pointer_argument() {
    let env = Env::new();
    let max = device_get::<cl_ulong>(CL_DEVICE_LOCAL_MEM_SIZE) as usize;
    spec_check(
        max >= 512 * 1024,
        &format!("CL_DEVICE_LOCAL_MEM_SIZE {max} is below PoCL's 512 KiB"),
    );
    let src = r#"
__kernel void k(__global uint *out, __local uint *s, uint n) {
    uint l = get_local_id(0), ls = get_local_size(0);
    for (uint i = l; i < n; i += ls) s[i] = i * 3u + (uint)get_group_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint sum = 0;
    for (uint i = ls - 1 - l; i < n; i += ls) sum += s[i];
    out[get_global_id(0)] = sum;
}
"#;
    let k = env.build(src, "").kernel("k");
    let (groups, local) = (4usize, 64usize);
    let out = env.buffer_zeroed::<u32>(groups * local);
    k.buf(0, &out);
    let run = |bytes: usize| -> Result<(), cl_int> {
        let n = (bytes / 4) as u32;
        k.local(1, bytes).arg(2, &n);
        enqueue_nd(&env.queue, &k, None, &[groups * local], Some(&[local]))?;
        let got: Vec<u32> = out.read(&env.queue, groups * local);
        for g in 0..groups {
            for l in 0..local {
                let expected = (local - 1 - l..n as usize)
                    .step_by(local)
                    .fold(0u32, |a, i| a.wrapping_add(i as u32 * 3 + g as u32));
                assert_eq!(
                    got[g * local + l],
                    expected,
                    "{bytes} bytes: group {g} item {l}"
                );
            }
        }
        Ok(())
    };
    run(256 * 1024).expect("a kernel with 256 KiB of __local memory");
    // The kernel has no __local variables of its own: all of the device's local memory may
    // go to the argument.
    run(max).expect("a kernel with all of CL_DEVICE_LOCAL_MEM_SIZE as a __local argument");
    expect_code(
        run(max + 4).err().unwrap_or(CL_SUCCESS),
        CL_OUT_OF_RESOURCES,
        "a __local argument 4 bytes over CL_DEVICE_LOCAL_MEM_SIZE",
    );
    run(256 * 1024).expect("256 KiB again after the refusal");
}
