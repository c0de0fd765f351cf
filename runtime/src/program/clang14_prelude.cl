// Fed before every OpenCL C source compiled with clang-14 (runtime/src/program/clc.rs), and
// before the compiler tests' sources when they run on clang-14
// (compiler/tests/common/harness.rs): what clang-14 lacks of what the device claims.

// The OpenCL C 3.0 feature macro of the work-group functions, which clang-14 does not know
// (it declares the functions for OpenCL C 2.0 and later all the same).
#if __OPENCL_C_VERSION__ >= 200
#define __opencl_c_work_group_collective_functions 1
#endif

// cl_khr_subgroup_rotate, which neither clang-14 nor llvm-spirv-14 knows: the declarations
// make calls that llvm-spirv-14 leaves to imported functions, and Ferrite's compiler turns
// those into OpGroupNonUniformRotateKHR (compiler/src/spirv/library.rs).
#ifndef cl_khr_subgroup_rotate
#define cl_khr_subgroup_rotate 1
#define __FERRITE_ROTATE(T)                                                                \
    T __attribute__((overloadable)) sub_group_rotate(T value, int delta);                  \
    T __attribute__((overloadable)) sub_group_clustered_rotate(T value, int delta,         \
                                                               uint clustersize);
__FERRITE_ROTATE(char)
__FERRITE_ROTATE(uchar)
__FERRITE_ROTATE(short)
__FERRITE_ROTATE(ushort)
__FERRITE_ROTATE(int)
__FERRITE_ROTATE(uint)
__FERRITE_ROTATE(long)
__FERRITE_ROTATE(ulong)
__FERRITE_ROTATE(float)
// double needs no pragma from OpenCL C 1.2; before, a program enables it itself, and
// these declarations are left out rather than enable it behind its back.
#if defined(cl_khr_fp64) && __OPENCL_C_VERSION__ >= 120
__FERRITE_ROTATE(double)
#endif
#ifdef cl_khr_fp16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__FERRITE_ROTATE(half)
#pragma OPENCL EXTENSION cl_khr_fp16 : disable
#endif
#undef __FERRITE_ROTATE
#endif

// cl_khr_integer_dot_product's `dot` of two char4/uchar4: llvm-spirv-14 writes it as
// `OpDot` (a float instruction) on the vectors' bits, losing whether they are signed
// (measured: `dot(as_char4(x), as_char4(y))` and `dot(as_uchar4(x), as_uchar4(y))` became
// the same instruction). `dot_acc_sat` keeps its types, and with a zero accumulator it is
// `dot` (four products of 8-bit values cannot saturate 32 bits), so `dot` goes through it;
// the floating-point `dot` is passed on unchanged.
// From OpenCL C 1.2 only, where `double` needs no pragma (its `dot` must stay declared).
#if defined(cl_khr_integer_dot_product) && __OPENCL_C_VERSION__ >= 120
#define __FERRITE_DOT(R, A, B)                                                             \
    static inline R __attribute__((overloadable)) __ferrite_dot(A a, B b) {                \
        return dot_acc_sat(a, b, (R)0);                                                    \
    }
__FERRITE_DOT(uint, uchar4, uchar4)
__FERRITE_DOT(int, char4, char4)
__FERRITE_DOT(int, uchar4, char4)
__FERRITE_DOT(int, char4, uchar4)
#undef __FERRITE_DOT
#define __FERRITE_DOT(T)                                                                   \
    static inline __attribute__((overloadable)) __typeof__(dot((T)0, (T)0))              \
    __ferrite_dot(T a, T b) {                                                              \
        return dot(a, b);                                                                  \
    }
__FERRITE_DOT(float)
__FERRITE_DOT(float2)
__FERRITE_DOT(float3)
__FERRITE_DOT(float4)
#ifdef cl_khr_fp64
__FERRITE_DOT(double)
__FERRITE_DOT(double2)
__FERRITE_DOT(double3)
__FERRITE_DOT(double4)
#endif
#ifdef cl_khr_fp16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__FERRITE_DOT(half)
__FERRITE_DOT(half2)
__FERRITE_DOT(half3)
__FERRITE_DOT(half4)
#pragma OPENCL EXTENSION cl_khr_fp16 : disable
#endif
#undef __FERRITE_DOT
#define dot(a, b) __ferrite_dot(a, b)
#endif
