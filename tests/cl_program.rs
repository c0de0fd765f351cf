//! Programs and kernels as objects: builds from source and from SPIR-V, build failures and
//! their log, build options (`-D`, `-I`, invalid ones), program/kernel/work-group/argument
//! queries, and the error codes of kernel creation and `clSetKernelArg`.

use ferrite_tests::*;
use std::ffi::CString;
use std::ptr;

const VECADD: &str = r#"
__kernel void vecadd(__global const float *a, __global const float *b, __global float *c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
"#;

/// Runs `vecadd` from `p` over `n` elements and checks the sums exactly.
fn check_vecadd(env: &Env, p: &Program, n: usize) {
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32).collect();
    let (ba, bb, bc) = (
        env.buffer_from(&a),
        env.buffer_from(&b),
        env.buffer_zeroed::<f32>(n),
    );
    let k = p.kernel("vecadd");
    k.buf(0, &ba).buf(1, &bb).buf(2, &bc);
    run_1d(&env.queue, &k, n, None);
    let c: Vec<f32> = bc.read(&env.queue, n);
    for i in 0..n {
        assert_eq!(c[i].to_bits(), (a[i] + b[i]).to_bits(), "c[{i}]");
    }
}

#[test]
fn vecadd_from_source() {
    let env = Env::new();
    let p = env.build(VECADD, "");
    check_vecadd(&env, &p, 100_003);
}

#[test]
fn vecadd_from_il() {
    if !require(
        device_has_il(),
        "the device has no CL_DEVICE_IL_VERSION (no SPIR-V input)",
    ) {
        return;
    }
    let env = Env::new();
    let spirv = compile_to_spirv(VECADD);
    let p = Program::from_il(&env.ctx, &spirv)
        .unwrap_or_else(|e| panic!("clCreateProgramWithIL: {}", error_name(e)));
    // CL_PROGRAM_IL returns the module given at creation.
    let il = program_info(p.raw(), CL_PROGRAM_IL).unwrap();
    assert_eq!(il, spirv, "CL_PROGRAM_IL");
    p.build("").unwrap_or_else(|(rc, log)| {
        panic!("building SPIR-V failed with {}:\n{log}", error_name(rc))
    });
    check_vecadd(&env, &p, 65_536);
    // CL_INVALID_VALUE if il is NULL or if length is zero.
    let mut rc = 0;
    // SAFETY: NULL IL is rejected.
    let bad = unsafe { clCreateProgramWithIL(env.ctx.raw(), ptr::null(), 0, &mut rc) };
    expect_create_err(bad, rc, CL_INVALID_VALUE, "clCreateProgramWithIL(NULL)");
    // A module that is not SPIR-V fails to create or to build (CL_INVALID_VALUE "if the length-byte
    // memory pointed to by il does not contain well-formed intermediate language").
    let junk = [0x12u8; 64];
    // SAFETY: 64 valid bytes.
    let bad =
        unsafe { clCreateProgramWithIL(env.ctx.raw(), junk.as_ptr().cast(), junk.len(), &mut rc) };
    if rc == CL_SUCCESS {
        let p = Program(bad);
        let err = p.build("").expect_err("building a junk module succeeded");
        assert!(
            err.0 == CL_BUILD_PROGRAM_FAILURE || err.0 == CL_INVALID_BINARY,
            "junk IL build: {}",
            error_name(err.0)
        );
    } else {
        expect_create_err(bad, rc, CL_INVALID_VALUE, "clCreateProgramWithIL(junk)");
    }
}

#[test]
fn build_failure_reports_the_line_and_leaves_the_context_usable() {
    let env = Env::new();
    let src = "__kernel void broken(__global int *p) {\n    int x = 1;\n    p[0] = x +* ;\n}\n";
    let p = Program::from_source(&env.ctx, src);
    let (rc, log) = p.build("").expect_err("a syntax error built");
    expect_code(rc, CL_BUILD_PROGRAM_FAILURE, "building a syntax error");
    let status: cl_build_status =
        pod(&build_info(p.raw(), env.dev.device, CL_PROGRAM_BUILD_STATUS).unwrap());
    assert_eq!(
        status, CL_BUILD_ERROR,
        "CL_PROGRAM_BUILD_STATUS after a failed build"
    );
    assert!(
        log.contains(":3:"),
        "the build log does not name line 3:\n{log}"
    );
    assert!(
        log.to_lowercase().contains("error"),
        "the build log does not say error:\n{log}"
    );
    // CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable for program.
    expect_code(
        p.try_kernel("broken").err().unwrap_or(CL_SUCCESS),
        CL_INVALID_PROGRAM_EXECUTABLE,
        "clCreateKernel after a failed build",
    );
    // The same context still builds and runs programs.
    let good = env.build(VECADD, "");
    check_vecadd(&env, &good, 1000);
    // And the failed program can be rebuilt from its source? No: its source is broken. A new
    // program with the same context builds.
    drop(p);
}

#[test]
fn build_status_and_program_info() {
    let env = Env::new();
    let src = format!("{VECADD}\n__kernel void other(__global int *x) {{ x[0] = 1; }}\n");
    let p = Program::from_source(&env.ctx, &src);
    let status: cl_build_status =
        pod(&build_info(p.raw(), env.dev.device, CL_PROGRAM_BUILD_STATUS).unwrap());
    assert_eq!(
        status, CL_BUILD_NONE,
        "CL_PROGRAM_BUILD_STATUS before building"
    );
    // CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable for program.
    expect_code(
        p.try_kernel("vecadd").err().unwrap_or(CL_SUCCESS),
        CL_INVALID_PROGRAM_EXECUTABLE,
        "clCreateKernel before building",
    );
    let mut n = 0usize;
    // CL_INVALID_PROGRAM_EXECUTABLE if param_name is CL_PROGRAM_NUM_KERNELS or
    // CL_PROGRAM_KERNEL_NAMES and a successful program executable has not been built.
    // SAFETY: 8-byte out value.
    let rc = unsafe {
        clGetProgramInfo(
            p.raw(),
            CL_PROGRAM_NUM_KERNELS,
            8,
            (&mut n as *mut usize).cast(),
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_INVALID_PROGRAM_EXECUTABLE,
        "CL_PROGRAM_NUM_KERNELS before building",
    );
    p.build("-cl-mad-enable")
        .unwrap_or_else(|(rc, log)| panic!("{}: {log}", error_name(rc)));
    let status: cl_build_status =
        pod(&build_info(p.raw(), env.dev.device, CL_PROGRAM_BUILD_STATUS).unwrap());
    assert_eq!(status, CL_BUILD_SUCCESS);
    let opts = string(&build_info(p.raw(), env.dev.device, CL_PROGRAM_BUILD_OPTIONS).unwrap());
    assert_eq!(opts, "-cl-mad-enable", "CL_PROGRAM_BUILD_OPTIONS");
    let bt: cl_program_binary_type =
        pod(&build_info(p.raw(), env.dev.device, CL_PROGRAM_BINARY_TYPE).unwrap());
    assert_eq!(bt, CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    let nk: usize = pod(&program_info(p.raw(), CL_PROGRAM_NUM_KERNELS).unwrap());
    assert_eq!(nk, 2);
    let mut names: Vec<String> = string(&program_info(p.raw(), CL_PROGRAM_KERNEL_NAMES).unwrap())
        .split(';')
        .map(str::to_string)
        .collect();
    names.sort();
    assert_eq!(names, vec!["other".to_string(), "vecadd".to_string()]);
    assert_eq!(
        string(&program_info(p.raw(), CL_PROGRAM_SOURCE).unwrap()),
        src,
        "CL_PROGRAM_SOURCE"
    );
    let ctx: cl_context = pod(&program_info(p.raw(), CL_PROGRAM_CONTEXT).unwrap());
    assert_eq!(ctx, env.ctx.raw());
    let nd: cl_uint = pod(&program_info(p.raw(), CL_PROGRAM_NUM_DEVICES).unwrap());
    assert_eq!(nd, 1);
    let devs: Vec<cl_device_id> = pod_vec(&program_info(p.raw(), CL_PROGRAM_DEVICES).unwrap());
    assert_eq!(devs, vec![env.dev.device]);
    let refs: cl_uint = pod(&program_info(p.raw(), CL_PROGRAM_REFERENCE_COUNT).unwrap());
    assert_eq!(refs, 1);
    // A kernel holds a reference on its program; the program stays usable after its handle
    // is released while the kernel lives.
    let k = p.kernel("vecadd");
    drop(p);
    let a = env.buffer_from(&[1.0f32; 64]);
    let c = env.buffer_zeroed::<f32>(64);
    k.buf(0, &a).buf(1, &a).buf(2, &c);
    run_1d(&env.queue, &k, 64, None);
    assert!(c.read::<f32>(&env.queue, 64).iter().all(|&v| v == 2.0));
    // clCreateKernelsInProgram creates every kernel.
    let p = env.build(&src, "");
    let mut ks = [ptr::null_mut(); 2];
    let mut count = 0;
    // SAFETY: room for two kernels.
    check(
        unsafe { clCreateKernelsInProgram(p.raw(), 2, ks.as_mut_ptr(), &mut count) },
        "clCreateKernelsInProgram",
    );
    assert_eq!(count, 2);
    let ks: Vec<Kernel> = ks.into_iter().map(Kernel).collect();
    let mut kn: Vec<String> = ks
        .iter()
        .map(|k| string(&kernel_info(k.raw(), CL_KERNEL_FUNCTION_NAME).unwrap()))
        .collect();
    kn.sort();
    assert_eq!(kn, names);
}

#[test]
fn define_and_include_options() {
    let env = Env::new();
    let dir = temp_dir("include");
    std::fs::write(
        dir.join("ferrite_test_inc.h"),
        "#define INC_OFFSET 1000\ninline int twice(int x) { return 2 * x; }\n",
    )
    .unwrap();
    let src = r#"
#include "ferrite_test_inc.h"
__kernel void k(__global int *out) {
    int i = get_global_id(0);
    out[i] = twice(i) * SCALE + INC_OFFSET + EXTRA;
}
"#;
    let opts = format!("-D SCALE=3 -DEXTRA=7 -I {}", dir.display());
    let p = env.build(src, &opts);
    let out = env.buffer_zeroed::<i32>(100);
    let k = p.kernel("k");
    k.buf(0, &out);
    run_1d(&env.queue, &k, 100, None);
    let got: Vec<i32> = out.read(&env.queue, 100);
    assert_eq!(
        got,
        (0..100).map(|i| 2 * i * 3 + 1000 + 7).collect::<Vec<i32>>()
    );
    // Without the definitions the same source fails to build.
    let err = build_source(&env.ctx, src, "").expect_err("built without -D/-I");
    expect_code(err.0, CL_BUILD_PROGRAM_FAILURE, "build without -D/-I");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 200 KB `-D` option (longer than Linux lets one `exec` argument be) builds like a short
/// one, and the macro arrives whole: the kernel stores its length. PoCL builds it; Ferrite
/// gave CL_COMPILER_NOT_AVAILABLE before it passed long option lists to clang in a response
/// file. Spaces and quotes in other definitions survive the trip.
#[test]
fn very_long_define_option() {
    let env = Env::new();
    let src = r#"
#define STR(x) #x
#define XSTR(x) STR(x)
__kernel void k(__global ulong *out) {
    out[0] = sizeof(XSTR(PAD)) - 1;
    out[1] = sizeof(GREETING) - 1;
    out[2] = TWO TIMES THREE;
}
"#;
    // A source of its own each run, so Ferrite's cache of compiled programs cannot answer
    // for the compiler.
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let src = format!("// run {} {stamp}\n{src}", std::process::id());
    let pad = "x".repeat(200_000);
    let opts = format!("-DPAD={pad} -D GREETING='\"a b\\\\c\"' -DTWO=2 '-DTIMES=*' -DTHREE=3");
    let p = match build_source(&env.ctx, &src, &opts) {
        Ok(p) => p,
        Err((rc, log)) => panic!("a 200 KB -D option: {} ({rc}), log:\n{log}", error_name(rc)),
    };
    let out = env.buffer_zeroed::<u64>(3);
    let k = p.kernel("k");
    k.buf(0, &out);
    run_1d(&env.queue, &k, 1, None);
    // GREETING is the C literal "a b\\c": 5 characters, one of them a backslash.
    assert_eq!(out.read::<u64>(&env.queue, 3), vec![200_000, 5, 6]);
}

#[test]
fn invalid_build_options() {
    let env = Env::new();
    // CL_INVALID_BUILD_OPTIONS if the build options specified by options are invalid.
    let mut cases = vec!["-cl-no-such-option", "-cl-std=CL9.9"];
    if strict() {
        // A -D without a name (PoCL 3.1 crashes on it).
        cases.push("-D");
    }
    for opts in cases {
        let err = build_source(&env.ctx, VECADD, opts)
            .err()
            .unwrap_or_else(|| panic!("built with {opts:?}"));
        expect_code(
            err.0,
            CL_INVALID_BUILD_OPTIONS,
            &format!("clBuildProgram({opts:?})"),
        );
    }
    // The context still works.
    let p = env.build(VECADD, "-cl-fast-relaxed-math -w -Werror -cl-opt-disable");
    check_vecadd(&env, &p, 256);
}

#[test]
fn kernel_creation_errors() {
    let env = Env::new();
    let p = env.build(VECADD, "");
    // CL_INVALID_KERNEL_NAME if kernel_name is not found in program.
    expect_code(
        p.try_kernel("no_such_kernel").err().unwrap_or(CL_SUCCESS),
        CL_INVALID_KERNEL_NAME,
        "clCreateKernel(wrong name)",
    );
    expect_code(
        p.try_kernel("vecad").err().unwrap_or(CL_SUCCESS),
        CL_INVALID_KERNEL_NAME,
        "clCreateKernel(prefix of a name)",
    );
    // CL_INVALID_VALUE if kernel_name is NULL.
    let mut rc = 0;
    // SAFETY: NULL name is rejected.
    let k = unsafe { clCreateKernel(p.raw(), ptr::null(), &mut rc) };
    expect_create_err(k, rc, CL_INVALID_VALUE, "clCreateKernel(NULL name)");
    // NULL program: the loader answers CL_INVALID_PROGRAM.
    let name = CString::new("vecadd").unwrap();
    // SAFETY: NULL program handle.
    let k = unsafe { clCreateKernel(ptr::null_mut(), name.as_ptr(), &mut rc) };
    expect_create_err(k, rc, CL_INVALID_PROGRAM, "clCreateKernel(NULL program)");
}

#[test]
fn wrong_type_program_and_kernel_handles() {
    if !require_handle_validation() {
        return;
    }
    let env = Env::new();
    let name = CString::new("vecadd").unwrap();
    let mut rc = 0;
    // CL_INVALID_PROGRAM if program is not a valid program object.
    // SAFETY: a live object of the wrong type.
    let k = unsafe { clCreateKernel(wrong_handle(env.ctx.raw()), name.as_ptr(), &mut rc) };
    expect_create_err(k, rc, CL_INVALID_PROGRAM, "clCreateKernel(context handle)");
    let d = env.dev.device;
    // SAFETY: as above.
    let rc = unsafe {
        clBuildProgram(
            wrong_handle(env.ctx.raw()),
            1,
            &d,
            ptr::null(),
            None,
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_PROGRAM, "clBuildProgram(context handle)");
    // CL_INVALID_KERNEL if kernel is not a valid kernel object.
    let v = 0u32;
    // SAFETY: as above.
    let rc =
        unsafe { clSetKernelArg(wrong_handle(env.ctx.raw()), 0, 4, (&v as *const u32).cast()) };
    expect_code(rc, CL_INVALID_KERNEL, "clSetKernelArg(context handle)");
    let g = 1usize;
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueNDRangeKernel(
            env.queue.raw(),
            wrong_handle(env.ctx.raw()),
            1,
            ptr::null(),
            &g,
            ptr::null(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_INVALID_KERNEL,
        "clEnqueueNDRangeKernel(context handle as kernel)",
    );
}

#[test]
fn set_kernel_arg_errors() {
    let env = Env::new();
    let src = r#"
__kernel void args(__global float *buf, int n, float4 v, __local int *scratch) {
    if (get_global_id(0) == 0) buf[0] = v.x + n + scratch[0] * 0;
}
"#;
    let p = env.build(src, "");
    let k = p.kernel("args");
    let b = env.buffer_zeroed::<f32>(4);
    let n = 5i32;
    let v = [1.0f32; 4];
    // CL_INVALID_ARG_INDEX if arg_index is not a valid argument index.
    expect_code(
        k.set_arg_raw(4, 4, (&n as *const i32).cast()),
        CL_INVALID_ARG_INDEX,
        "clSetKernelArg(index 4 of 4)",
    );
    expect_code(
        k.set_arg_raw(1000, 4, (&n as *const i32).cast()),
        CL_INVALID_ARG_INDEX,
        "clSetKernelArg(index 1000)",
    );
    // CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type for an argument
    // that is not a memory object or if the argument is a memory object and arg_size !=
    // sizeof(cl_mem) or if arg_size is zero and the argument is declared with the local
    // qualifier ...
    expect_code(
        k.set_arg_raw(1, 8, (&v as *const [f32; 4]).cast()),
        CL_INVALID_ARG_SIZE,
        "int argument with 8 bytes",
    );
    expect_code(
        k.set_arg_raw(1, 2, (&n as *const i32).cast()),
        CL_INVALID_ARG_SIZE,
        "int argument with 2 bytes",
    );
    spec_code(
        k.set_arg_raw(2, 12, (&v as *const [f32; 4]).cast()),
        CL_INVALID_ARG_SIZE,
        "float4 argument with 12 bytes",
    );
    let raw = b.raw();
    expect_code(
        k.set_arg_raw(0, 4, (&raw as *const cl_mem).cast()),
        CL_INVALID_ARG_SIZE,
        "buffer argument with 4 bytes",
    );
    expect_code(
        k.set_arg_raw(3, 0, ptr::null()),
        CL_INVALID_ARG_SIZE,
        "local argument of size 0",
    );
    // CL_INVALID_ARG_VALUE if arg_value specified is not a valid value: NULL for a by-value
    // argument; non-NULL for a __local argument.
    expect_code(
        k.set_arg_raw(1, 4, ptr::null()),
        CL_INVALID_ARG_VALUE,
        "NULL value for an int argument",
    );
    expect_code(
        k.set_arg_raw(3, 16, (&n as *const i32).cast()),
        CL_INVALID_ARG_VALUE,
        "non-NULL value for a local argument",
    );
    // A NULL buffer is a valid value for a global pointer ("If the argument is a buffer object,
    // the arg_value pointer can be NULL or point to a NULL value").
    let null_mem: cl_mem = ptr::null_mut();
    check(
        k.set_arg_raw(
            0,
            std::mem::size_of::<cl_mem>(),
            (&null_mem as *const cl_mem).cast(),
        ),
        "NULL buffer argument",
    );
    // CL_INVALID_KERNEL_ARGS if the kernel argument values have not been specified.
    k.arg(1, &n).arg(2, &v);
    let err = enqueue_nd(&env.queue, &k, None, &[1], None)
        .err()
        .unwrap_or(CL_SUCCESS);
    expect_code(
        err,
        CL_INVALID_KERNEL_ARGS,
        "enqueue with the local argument unset",
    );
    k.local(3, 16).buf(0, &b);
    run_1d(&env.queue, &k, 1, None);
    assert_eq!(b.read::<f32>(&env.queue, 1)[0], 6.0);
}

#[test]
fn set_kernel_arg_wrong_type_mem_object() {
    if !require_handle_validation() {
        return;
    }
    let env = Env::new();
    let p = env.build(VECADD, "");
    let k = p.kernel("vecadd");
    // CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when the specified
    // arg_value is not a valid memory object.
    let bad: cl_mem = wrong_handle(env.ctx.raw());
    expect_code(
        k.set_arg_raw(
            0,
            std::mem::size_of::<cl_mem>(),
            (&bad as *const cl_mem).cast(),
        ),
        CL_INVALID_MEM_OBJECT,
        "context handle as a buffer argument",
    );
}

#[test]
fn kernel_info_queries() {
    let env = Env::new();
    let p = env.build(VECADD, "");
    let k = p.kernel("vecadd");
    assert_eq!(
        string(&kernel_info(k.raw(), CL_KERNEL_FUNCTION_NAME).unwrap()),
        "vecadd"
    );
    let n: cl_uint = pod(&kernel_info(k.raw(), CL_KERNEL_NUM_ARGS).unwrap());
    assert_eq!(n, 3);
    let ctx: cl_context = pod(&kernel_info(k.raw(), CL_KERNEL_CONTEXT).unwrap());
    assert_eq!(ctx, env.ctx.raw());
    let prog: cl_program = pod(&kernel_info(k.raw(), CL_KERNEL_PROGRAM).unwrap());
    assert_eq!(prog, p.raw());
    let refs: cl_uint = pod(&kernel_info(k.raw(), CL_KERNEL_REFERENCE_COUNT).unwrap());
    assert_eq!(refs, 1);
    let _attrs = string(&kernel_info(k.raw(), CL_KERNEL_ATTRIBUTES).unwrap());
    let mut v = [0u8; 8];
    // SAFETY: 8-byte buffer.
    let rc = unsafe { clGetKernelInfo(k.raw(), 0x7777, 8, v.as_mut_ptr().cast(), ptr::null_mut()) };
    expect_code(rc, CL_INVALID_VALUE, "clGetKernelInfo(bad param)");
    // clCloneKernel copies the arguments set so far.
    let a = env.buffer_from(&[2.0f32; 16]);
    let c = env.buffer_zeroed::<f32>(16);
    k.buf(0, &a).buf(1, &a).buf(2, &c);
    let mut rc = 0;
    // SAFETY: a live kernel.
    let clone = Kernel(unsafe { clCloneKernel(k.raw(), &mut rc) });
    check(rc, "clCloneKernel");
    run_1d(&env.queue, &clone, 16, None);
    assert!(c.read::<f32>(&env.queue, 16).iter().all(|&x| x == 4.0));
}

#[test]
fn kernel_work_group_info() {
    let env = Env::new();
    let src = r#"
__kernel __attribute__((reqd_work_group_size(4, 4, 1)))
void fixed(__global int *out) {
    out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = (int)get_local_id(0);
}
__kernel void with_local(__global float *out, __local float *dynamic_scratch) {
    __local float tile[64];
    size_t l = get_local_id(0);
    tile[l % 64] = (float)l;
    dynamic_scratch[l] = 1.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[(l + 1) % 64] + dynamic_scratch[l];
}
"#;
    let p = env.build(src, "");
    let d = env.dev.device;
    let dev_max: usize = device_get(CL_DEVICE_MAX_WORK_GROUP_SIZE);
    let fixed = p.kernel("fixed");
    let wg = |k: &Kernel, param| {
        kernel_wg_info(k.raw(), d, param)
            .unwrap_or_else(|c| panic!("clGetKernelWorkGroupInfo({param:#x}): {}", error_name(c)))
    };
    let cwg: [usize; 3] = pod(&wg(&fixed, CL_KERNEL_COMPILE_WORK_GROUP_SIZE));
    assert_eq!(
        cwg,
        [4, 4, 1],
        "CL_KERNEL_COMPILE_WORK_GROUP_SIZE from reqd_work_group_size"
    );
    let kwg: usize = pod(&wg(&fixed, CL_KERNEL_WORK_GROUP_SIZE));
    assert!(
        kwg >= 16 && kwg <= dev_max,
        "CL_KERNEL_WORK_GROUP_SIZE {kwg}"
    );
    let k = p.kernel("with_local");
    let cwg: [usize; 3] = pod(&wg(&k, CL_KERNEL_COMPILE_WORK_GROUP_SIZE));
    assert_eq!(
        cwg,
        [0, 0, 0],
        "CL_KERNEL_COMPILE_WORK_GROUP_SIZE without the attribute"
    );
    let kwg: usize = pod(&wg(&k, CL_KERNEL_WORK_GROUP_SIZE));
    assert!(
        kwg >= 1 && kwg <= dev_max,
        "CL_KERNEL_WORK_GROUP_SIZE {kwg}"
    );
    let mult: usize = pod(&wg(&k, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE));
    assert!(
        mult >= 1 && mult <= kwg,
        "CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE {mult}"
    );
    let _private: cl_ulong = pod(&wg(&k, CL_KERNEL_PRIVATE_MEM_SIZE));
    // "If the local memory size, for any pointer argument to the kernel declared with the
    // __local address qualifier, is not specified, its size is assumed to be 0."
    let static_local: cl_ulong = pod(&wg(&k, CL_KERNEL_LOCAL_MEM_SIZE));
    assert!(
        static_local >= 256,
        "CL_KERNEL_LOCAL_MEM_SIZE {static_local} < the 256-byte __local array"
    );
    k.local(1, 4096);
    let with_arg: cl_ulong = pod(&wg(&k, CL_KERNEL_LOCAL_MEM_SIZE));
    assert!(
        with_arg >= static_local + 4096,
        "CL_KERNEL_LOCAL_MEM_SIZE {with_arg} ignores the 4096-byte local argument"
    );
    // CL_INVALID_VALUE for CL_KERNEL_GLOBAL_WORK_SIZE: "if device is not a custom device and
    // kernel is not a built-in kernel".
    let mut v = [0usize; 3];
    // SAFETY: 24-byte buffer.
    let rc = unsafe {
        clGetKernelWorkGroupInfo(
            k.raw(),
            d,
            CL_KERNEL_GLOBAL_WORK_SIZE,
            24,
            v.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    spec_code(
        rc,
        CL_INVALID_VALUE,
        "CL_KERNEL_GLOBAL_WORK_SIZE on a CPU device",
    );
    // The device argument may be NULL when the kernel's program has one device.
    let mut size = 0usize;
    // SAFETY: 8-byte out value.
    let rc = unsafe {
        clGetKernelWorkGroupInfo(
            k.raw(),
            ptr::null_mut(),
            CL_KERNEL_WORK_GROUP_SIZE,
            8,
            (&mut size as *mut usize).cast(),
            ptr::null_mut(),
        )
    };
    check(rc, "clGetKernelWorkGroupInfo(NULL device)");
    assert_eq!(size, kwg);
}

#[test]
fn kernel_arg_info_with_option() {
    let env = Env::new();
    let src = r#"
typedef struct { int a; float b; } pair_t;
__kernel void described(__global const float * restrict input,
                        __local int *scratch,
                        __constant float4 *coeffs,
                        float alpha,
                        __global volatile uint *counter,
                        pair_t pair) {
    size_t i = get_global_id(0);
    scratch[0] = pair.a;
    counter[i] = (uint)(input[i] * alpha + coeffs[0].x + pair.b) + scratch[0];
}
"#;
    let p = env.build(src, "-cl-kernel-arg-info");
    let k = p.kernel("described");
    let s =
        |i, param| {
            string(&kernel_arg_info(k.raw(), i, param).unwrap_or_else(|c| {
                panic!("clGetKernelArgInfo({i}, {param:#x}): {}", error_name(c))
            }))
        };
    let u = |i, param| -> u64 {
        let b = kernel_arg_info(k.raw(), i, param)
            .unwrap_or_else(|c| panic!("clGetKernelArgInfo({i}, {param:#x}): {}", error_name(c)));
        match b.len() {
            4 => pod::<u32>(&b) as u64,
            8 => pod::<u64>(&b),
            n => panic!("arg info {param:#x} has size {n}"),
        }
    };
    let names: Vec<String> = (0..6).map(|i| s(i, CL_KERNEL_ARG_NAME)).collect();
    assert_eq!(
        names,
        ["input", "scratch", "coeffs", "alpha", "counter", "pair"]
    );
    let types: Vec<String> = (0..6).map(|i| s(i, CL_KERNEL_ARG_TYPE_NAME)).collect();
    assert_eq!(
        types,
        ["float*", "int*", "float4*", "float", "uint*", "pair_t"]
    );
    let aq: Vec<u64> = (0..6)
        .map(|i| u(i, CL_KERNEL_ARG_ADDRESS_QUALIFIER))
        .collect();
    let expected_aq = [
        CL_KERNEL_ARG_ADDRESS_GLOBAL,
        CL_KERNEL_ARG_ADDRESS_LOCAL,
        CL_KERNEL_ARG_ADDRESS_CONSTANT,
        CL_KERNEL_ARG_ADDRESS_PRIVATE,
        CL_KERNEL_ARG_ADDRESS_GLOBAL,
        CL_KERNEL_ARG_ADDRESS_PRIVATE,
    ];
    assert_eq!(aq, expected_aq.map(u64::from), "address qualifiers");
    for i in 0..6 {
        assert_eq!(
            u(i, CL_KERNEL_ARG_ACCESS_QUALIFIER),
            u64::from(CL_KERNEL_ARG_ACCESS_NONE),
            "access qualifier of arg {i}"
        );
    }
    let tq: Vec<u64> = (0..6).map(|i| u(i, CL_KERNEL_ARG_TYPE_QUALIFIER)).collect();
    // cl_kernel_arg_type_qualifier is a cl_bitfield in the C header (opencl-sys declares the
    // constants as cl_uint).
    let q = |bits: cl_kernel_arg_type_qualifier| u64::from(bits);
    assert_eq!(
        tq[0],
        q(CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT),
        "input is const restrict"
    );
    assert_eq!(tq[1], q(CL_KERNEL_ARG_TYPE_NONE), "scratch");
    // "If the argument is declared with the constant address space qualifier, the
    // CL_KERNEL_ARG_TYPE_CONST type qualifier will be set."
    assert_eq!(
        tq[2] & q(CL_KERNEL_ARG_TYPE_CONST),
        q(CL_KERNEL_ARG_TYPE_CONST),
        "coeffs is __constant"
    );
    assert_eq!(tq[3], q(CL_KERNEL_ARG_TYPE_NONE), "alpha");
    assert_eq!(tq[4], q(CL_KERNEL_ARG_TYPE_VOLATILE), "counter is volatile");
    // CL_INVALID_ARG_INDEX if arg_index is not a valid argument index.
    let mut v = [0u8; 64];
    // SAFETY: 64-byte buffer.
    let rc = unsafe {
        clGetKernelArgInfo(
            k.raw(),
            6,
            CL_KERNEL_ARG_NAME,
            64,
            v.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_ARG_INDEX, "clGetKernelArgInfo(index 6 of 6)");
    // SAFETY: as above.
    let rc = unsafe {
        clGetKernelArgInfo(
            k.raw(),
            0,
            0x7777,
            64,
            v.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "clGetKernelArgInfo(bad param)");
}
