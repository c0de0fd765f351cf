constant float coeffs[4] = {1.0f, 0.5f, 0.25f, 0.125f};
kernel void mathk(global float4 *x, global double *d, global int *iv) {
    size_t i = get_global_id(0);
    float4 v = x[i];
    float4 r = sin(v) + cos(v) * exp(v) - log(fabs(v) + 1.0f);
    r = fma(r, (float4)(coeffs[i & 3]), sqrt(fabs(v)));
    r.x = pow(r.x, 2.5f) + atan2(r.y, r.z) + native_rsqrt(r.w);
    x[i] = clamp(r, -10.0f, 10.0f) + (float4)(dot(v, r), length(v), 0, 0);
    d[i] = convert_double(r.x) * 1.5;
    iv[i] = clz(iv[i]) + popcount(iv[i]) + abs_diff(iv[i], 7) + convert_int_sat(r.y) + (int)rotate((uint)iv[i], 3u);
}
