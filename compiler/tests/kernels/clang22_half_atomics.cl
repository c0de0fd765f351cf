// clang-22 --target=spirv64 -cl-std=CL3.0 -O2 -Xclang -finclude-default-header
//   -D__opencl_c_ext_fp16_global_atomic_load_store=1 -D__opencl_c_ext_fp16_global_atomic_add=1
//   -D__opencl_c_ext_fp16_global_atomic_min_max=1 -D__opencl_c_ext_fp16_local_atomic_load_store=1
//   -D__opencl_c_ext_fp16_local_atomic_add=1 -D__opencl_c_ext_fp16_local_atomic_min_max=1
//   -mllvm --spirv-ext=+SPV_EXT_shader_atomic_float_add,+SPV_EXT_shader_atomic_float16_add,+SPV_EXT_shader_atomic_float_min_max
//   -c clang22_half_atomics.cl -o clang22_half_atomics.spv
// (Debian 22.1.8; llvm-spirv-15 cannot translate an atomic add of a half.) Atomics of halves
// (cl_ext_float_atomics' fp16 features): add, min, max, load, store and exchange, in global
// and local memory. g: [sum, min, max, store/load, exchange]; every work-item adds 0.25.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void k(global atomic_half *g, global const half *v, global half *out,
              local atomic_half *l) {
    size_t i = get_global_id(0), n = get_global_size(0);
    if (i == 0) {
        atomic_store(&l[0], 0.0h);
        atomic_store(&l[1], 1000.0h);
        atomic_store(&l[2], -1000.0h);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = atomic_fetch_add_explicit(&g[0], 0.25h, memory_order_relaxed, memory_scope_device);
    atomic_fetch_min_explicit(&g[1], v[i], memory_order_relaxed, memory_scope_device);
    atomic_fetch_max_explicit(&g[2], v[i], memory_order_relaxed, memory_scope_device);
    atomic_fetch_add_explicit(&l[0], v[i], memory_order_relaxed, memory_scope_work_group);
    atomic_fetch_min_explicit(&l[1], v[i], memory_order_relaxed, memory_scope_work_group);
    atomic_fetch_max_explicit(&l[2], v[i], memory_order_relaxed, memory_scope_work_group);
    out[n + i] = atomic_exchange(&g[4], v[i]);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (i == 0) {
        atomic_store(&g[3], atomic_load(&l[0]));
        atomic_store(&g[5], atomic_load(&l[1]));
        atomic_store(&g[6], atomic_load(&l[2]));
    }
}
