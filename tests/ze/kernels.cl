// Kernels of the Level-Zero API tests; run.sh compiles them to SPIR-V with clang-15 and
// llvm-spirv-15 (into the target directory, never checked in).

// Function pointers (SPV_INTEL_function_pointers; run.sh enables clang's
// __cl_clang_function_pointers and the llvm-spirv extension).
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable

kernel void vadd(global const float *a, global const float *b, global float *c, uint n) {
    size_t i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}

// Each work-item writes where it is: the group, the local id, the sizes.
kernel void ids(global uint *out) {
    size_t x = get_global_id(0), y = get_global_id(1);
    size_t i = y * get_global_size(0) + x;
    out[4 * i + 0] = (uint)get_group_id(0) | ((uint)get_group_id(1) << 16);
    out[4 * i + 1] = (uint)get_local_id(0) | ((uint)get_local_id(1) << 16);
    out[4 * i + 2] = (uint)get_local_size(0) | ((uint)get_local_size(1) << 16);
    out[4 * i + 3] = (uint)get_num_groups(0) | ((uint)get_num_groups(1) << 16);
}

// A __local argument (each work-item uses only its own slot: no barrier needed) and a
// by-value struct-free scalar of another width.
kernel void scale_local(global long *out, local long *tmp, long factor) {
    size_t l = get_local_id(0);
    tmp[l] = (long)get_global_id(0) * factor;
    out[get_global_id(0)] = tmp[l] + 1;
}

kernel void saxpy_double(global double *y, global const double *x, double a) {
    size_t i = get_global_id(0);
    y[i] = fma(a, x[i], y[i]);
}

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void saxpy_half(global half *y, global const half *x, half a) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}

// Reverse each work-group's slice through local memory: needs the barrier.
kernel void reverse_groups(global const int *in, global int *out, local int *tmp) {
    size_t l = get_local_id(0), n = get_local_size(0);
    tmp[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[n - 1 - l];
}

// Global ids with a global offset (zeKernelSetGlobalOffsetExp).
kernel void global_ids(global uint *out) {
    out[get_global_id(0) - get_global_offset(0)] = (uint)get_global_id(0);
}

// A program-scope variable the host reaches through zeModuleGetGlobalPointer.
global int ze_counter = 41;
kernel void bump_counter(global int *out) {
    out[0] = ++ze_counter;
}

// Every group waits until all groups have arrived: only a cooperative launch, which runs
// the groups at once, can finish it.
kernel void coop_wait_all(volatile global int *arrived, global int *out) {
    if (get_local_id(0) == 0) {
        atomic_inc(arrived);
        while (atomic_add(arrived, 0) < (int)get_num_groups(0)) {
        }
        out[get_group_id(0)] = atomic_add(arrived, 0);
    }
}

// zeModuleGetFunctionPointer: functions called through a pointer given as an argument.
typedef int (*int_fn)(int, float);
int scale_add(int a, float f) { return (int)(a * f) + (int)get_global_id(0); }
int negate(int a, float f) { return -a; }
kernel void call_fn(long fn, global int *out) {
    size_t i = get_global_id(0);
    out[i] = ((int_fn)fn)((int)i, 2.5f);
}

// Reaches a barrier: not callable through a pointer.
int with_barrier(int a, float f) {
    barrier(CLK_LOCAL_MEM_FENCE);
    return a;
}
