kernel void atomics(global int *counter, global uint *hist, global const uint *data, local int *l) {
    size_t i = get_global_id(0);
    uint v = data[i];
    atomic_inc(counter);
    atomic_add(&hist[v & 15], 1u);
    atomic_max(&counter[1], (int)v);
    int old = atomic_cmpxchg(&counter[2], 0, (int)i);
    atomic_xchg(&counter[3], old);
    if (get_local_id(0) == 0) *l = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_or(l, 1 << (i & 31));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) atomic_and(&counter[4], *l);
}
