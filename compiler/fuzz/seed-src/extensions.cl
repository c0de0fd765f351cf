// cl_khr_integer_dot_product, cl_khr_extended_bit_ops and cl_ext_float_atomics in one kernel
// (built with -cl-std=CL3.0 and the extensions enabled: see make-seeds.sh).
kernel void ext(global uint *a, global uint *b, global int *o, global atomic_float *f,
                local atomic_float *lf) {
    size_t i = get_global_id(0);
    uint x = a[i], y = b[i];
    o[4 * i] = dot(as_char4(x), as_uchar4(y));
    o[4 * i + 1] = dot_acc_sat_4x8packed_su_int(x, y, o[i]);
    o[4 * i + 2] = (int)bitfield_insert(x, y, i & 7u, 5u);
    o[4 * i + 3] = bitfield_extract_signed((int)x, 3u, (uint)(i & 15));
    atomic_fetch_add(f, (float)x);
    atomic_fetch_max_explicit(lf, (float)y, memory_order_relaxed, memory_scope_work_group);
}
