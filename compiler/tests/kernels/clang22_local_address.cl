// clang-22 --target=spirv64 -cl-std=CL3.0 -O2 -c clang22_local_address.cl
//   -o clang22_local_address.spv (Debian 22.1.8): clang folds the casts of a __local
// variable's address into OpSpecConstantOp ConvertPtrToU, to 32 and 64 bits; from CTS
// vectors' vec_align_struct.
typedef struct { char2 vec; char arrPost[12]; } S;
kernel void k(global uint *dest, global ulong *wide) {
    local S test;
    dest[0] = (uint)((local uchar *)&test.vec);
    dest[1] = (uint)((local uchar *)&test.arrPost[3]);
    wide[0] = (ulong)((local uchar *)&test.vec);
}
