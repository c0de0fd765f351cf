// cl_khr_kernel_clock for compilers that do not know it (clang before 19; llvm-spirv
// leaves the calls as imported functions, which Ferrite's compiler turns into
// OpReadClockKHR, compiler/src/spirv/library.rs). Fed before every OpenCL C source
// (runtime/src/program/clc.rs); a compiler that knows the extension defines its macro
// from -cl-ext and declares the functions itself, and this block stands aside.
#ifndef cl_khr_kernel_clock
#define cl_khr_kernel_clock 1
#define __opencl_c_kernel_clock_scope_device 1
#define __opencl_c_kernel_clock_scope_work_group 1
#define __opencl_c_kernel_clock_scope_sub_group 1
ulong __attribute__((overloadable)) clock_read_device(void);
ulong __attribute__((overloadable)) clock_read_work_group(void);
ulong __attribute__((overloadable)) clock_read_sub_group(void);
uint2 __attribute__((overloadable)) clock_read_hilo_device(void);
uint2 __attribute__((overloadable)) clock_read_hilo_work_group(void);
uint2 __attribute__((overloadable)) clock_read_hilo_sub_group(void);
#endif
