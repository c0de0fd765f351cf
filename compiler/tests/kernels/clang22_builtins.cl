// OpenCL C built-ins that clang's own SPIR-V target leaves as calls to imported functions
// (compiler/src/spirv/library.rs), and two more of its quirks (kernel `copies`);
// compiler/tests/exec_clang_spirv_target.rs runs the checked-in clang22_builtins.spv, made
// from this file with (clang-22 22.1.8, Debian 12):
//   clang-22 -c --target=spirv64 -x cl -cl-std=CL3.0 -Xclang -fdeclare-opencl-builtins -O2 \
//     -mllvm --spirv-ext=+SPV_EXT_shader_atomic_float_add,+SPV_EXT_shader_atomic_float_min_max \
//     -Xclang -cl-ext=-all,+__opencl_c_generic_address_space,+__opencl_c_atomic_order_seq_cst,+__opencl_c_atomic_scope_device,+__opencl_c_subgroups,+cl_khr_subgroups,+cl_khr_fp16,+__opencl_c_fp16,+cl_khr_fp64,+__opencl_c_fp64,+__opencl_c_int64,+cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics,+cl_khr_global_int32_base_atomics,+cl_khr_global_int32_extended_atomics,+cl_khr_local_int32_base_atomics,+cl_khr_local_int32_extended_atomics,+__opencl_c_ext_fp32_global_atomic_min_max \
//     clang22_builtins.cl -o clang22_builtins.spv
kernel void k(global int *gi, global uint *gu, global long *gl, global ulong *gul,
              global float *gf, volatile global atomic_int *ai,
              volatile global atomic_float *af, global long *cv, global int *out,
              local int *li) {
    int i = get_global_id(0);
    atomic_inc(gi);
    atomic_dec(gi + 1);
    atomic_max(gi + 2, i);
    atomic_min(gi + 3, -i);
    atomic_xchg(gi + 4, 7);
    atomic_max(gu, (uint)i * 3u);
    atomic_min(gu + 1, (uint)i + 5u);
    atom_inc(gl);
    atom_dec(gl + 1);
    atom_min(gl + 2, -((long)i << 40));
    atom_max(gul, (ulong)i << 40);
    atomic_xchg(gf, 2.5f);
    atomic_fetch_max(ai, i * 2);
    atomic_fetch_min_explicit(ai + 1, -i, memory_order_relaxed, memory_scope_work_group);
    atomic_fetch_min(af, (float)i - 3.5f);
    atomic_fetch_max_explicit(af + 1, (float)i * 0.5f, memory_order_relaxed);
    if (i == 0) li[8] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(li + 8);
    li[i] = i * 10;
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = li[i ^ 1];
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    read_mem_fence(CLK_LOCAL_MEM_FENCE);
    write_mem_fence(CLK_GLOBAL_MEM_FENCE);
    barrier(CLK_LOCAL_MEM_FENCE);
    generic int *gp = (i & 1) ? (generic int *)(gi + 5) : (generic int *)(li + i);
    out[8 + i] = (to_global(gp) != 0) | (to_local(gp) != 0) << 1 | (to_private(gp) != 0) << 2
        | get_fence(gp) << 4;
    if (i == 0) out[16] = li[8];
    long big = cv[0];
    double d = convert_double_rtz(big) - convert_double_rtp(big);
    cv[1 + i] = (long)(d * (i + 1)) + (long)convert_double((float)i * 0.25f);
    float f = cv[9] / 16.0f;
    out[17 + i] = (int)as_ushort(convert_half_rtz(f + i)) - (int)as_ushort(convert_half_rtp(f + i));
}

// clang-22 writes the null event as an OpConstantNull with stray operands, and passes the
// local array to the second copy as a pointer to the whole `int[16]`.
kernel void copies(global const int *s2, global int *d2, int stride) {
    local int t2[16];
    int l = get_local_id(0);
    event_t e = async_work_group_strided_copy(t2, s2, 16, stride, 0);
    wait_group_events(1, &e);
    if (l < 16)
        t2[l] += 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    e = async_work_group_strided_copy(d2, t2, 16, stride, 0);
    wait_group_events(1, &e);
}
