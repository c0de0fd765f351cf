// clang-15 -c -target spir64 -cl-std=CL3.0 -O2 -cl-kernel-arg-info -emit-llvm | llvm-spirv-15 --spirv-ext=+SPV_INTEL_arbitrary_precision_integers --preserve-ocl-kernel-arg-type-metadata-through-string
kernel void reduce(global const uint *in, global uint *out, local uint *tmp) {
        uint l = get_local_id(0), n = get_local_size(0);
        tmp[l] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint s = n / 2; s > 0; s >>= 1) {
            if (l < s) tmp[l] += tmp[l + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (l == 0) out[get_group_id(0)] = tmp[0];
    }