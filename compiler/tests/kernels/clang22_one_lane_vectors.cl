// clang-22 --target=spirv64 -cl-std=CL3.0 -O2 -c clang22_one_lane_vectors.cl
//   -o clang22_one_lane_vectors.spv (Debian 22.1.8): from CTS relationals' shuffle tests.
// clang types `source` as a pointer to a one-element vector (`OpTypeVector %uchar 1`,
// which spirv-val rejects) and reads it through casts to uchar* and uchar2*.
kernel void k(global char2 *source, global char *dest) {
    char3 tmp = (char)0;
    tmp.s1 = source[0].x;
    vstore3(tmp, 0, dest);
    tmp = (char)0;
    tmp.s2 = source[3].y;
    vstore3(tmp, 1, dest);
}
