// Kernels of ze_fault.c: each fails its command (a fault, a trap, the time limit) and
// the next launch on the same queue must still run. run.sh compiles them to SPIR-V.

kernel void oob(global int *out, ulong far) {
    size_t i = get_global_id(0);
    out[i] = 1;
    if (i == 100)
        out[far] = 7;
}

kernel void trapper(global int *out) {
    size_t i = get_global_id(0);
    if (out[i] == 5)
        __builtin_trap();
    out[i] = 1;
}

kernel void spin(global volatile int *flag, global int *out) {
    size_t i = get_global_id(0);
    int n = 0;
    while (flag[0] == 0)
        n++;
    out[i] = n;
}

kernel void twice(global int *a) {
    size_t i = get_global_id(0);
    a[i] = 2 * (int)i;
}
