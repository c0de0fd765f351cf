// clang-15 -c -target spir64 -cl-std=CL3.0 -O2 -cl-kernel-arg-info -emit-llvm | llvm-spirv-15 --spirv-ext=+SPV_INTEL_arbitrary_precision_integers --preserve-ocl-kernel-arg-type-metadata-through-string
kernel void mandel(global uint *out, uint width, uint max_iter) {
        uint x = get_global_id(0), y = get_global_id(1);
        float cr = -2.0f + 3.0f * x / width, ci = -1.5f + 3.0f * y / width;
        float zr = 0.0f, zi = 0.0f;
        uint n = 0;
        while (n < max_iter && zr * zr + zi * zi < 4.0f) {
            float t = zr * zr - zi * zi + cr;
            zi = 2.0f * zr * zi + ci;
            zr = t;
            n++;
        }
        out[y * width + x] = n;
    }