// Image kernels of tests/ze/ze_image.c (OpenCL C 1.2, where images are core).

kernel void invert(read_only image2d_t src, write_only image2d_t dst) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    write_imageui(dst, p, (uint4)(255) - read_imageui(src, p));
}

// Halfway between texels x and x + 1 of row y, through the sampler it is given.
kernel void sample_between(read_only image2d_t src, sampler_t s, global float4 *out, int w) {
    int x = get_global_id(0), y = get_global_id(1);
    out[y * w + x] = read_imagef(src, s, (float2)(x + 1.0f, y + 0.5f));
}
