// clang-22 --target=spirv64 -cl-std=CL3.0 -O2 -c clang22_any_all.cl -o clang22_any_all.spv
// (Debian 22.1.8): clang writes any() and all() of integers as OpAny/OpAll on the integers
// themselves, which SPIR-V does not allow (OpAny takes booleans); OpenCL C means "the top
// bit of some/every component". From CTS relationals' relational_any/relational_all.
kernel void k(global char4 *c, global int2 *i, global long2 *l, global short *s,
              global int *out) {
    out[0] = any(c[0]);
    out[1] = all(c[0]);
    out[2] = any(i[0]);
    out[3] = all(i[0]);
    out[4] = any(l[0]);
    out[5] = all(l[0]);
    out[6] = any(s[0]);
    out[7] = all(s[0]);
    out[8] = any(c[1]);
    out[9] = all(c[1]);
    out[10] = any(l[1]);
    out[11] = all(l[1]);
}
