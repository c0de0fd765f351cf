//! Separate compilation and linking: `clCompileProgram` with embedded headers,
//! `clLinkProgram` of objects and libraries (`-create-library`), binary types and build
//! status at each step, program binaries round-tripping through `clCreateProgramWithBinary`,
//! specialization constants, and the refused program release callback.

use ferrite_tests::*;
use std::ffi::{c_void, CString};
use std::ptr;

const MAIN: &str = r#"
#include "helper.h"
kernel void apply(global int *a) {
    size_t i = get_global_id(0);
    a[i] = helper(a[i]) + OFFSET;
}
"#;
const HELPER_H: &str = "#define OFFSET 100\nint helper(int x);\n";
const HELPER: &str = "int helper(int x) { return x * 3; }\n";

fn compile(p: &Program, options: &str, headers: &[(&Program, &str)]) -> cl_int {
    let opts = CString::new(options).unwrap();
    let names: Vec<CString> = headers
        .iter()
        .map(|(_, n)| CString::new(*n).unwrap())
        .collect();
    let mut name_ptrs: Vec<*const i8> = names.iter().map(|n| n.as_ptr()).collect();
    let progs: Vec<cl_program> = headers.iter().map(|(p, _)| p.raw()).collect();
    let d = dev().device;
    // SAFETY: live programs, NUL-terminated strings, arrays of `headers.len()` entries.
    unsafe {
        clCompileProgram(
            p.raw(),
            1,
            &d,
            opts.as_ptr(),
            headers.len() as cl_uint,
            if progs.is_empty() {
                ptr::null()
            } else {
                progs.as_ptr()
            },
            if name_ptrs.is_empty() {
                ptr::null_mut()
            } else {
                name_ptrs.as_mut_ptr()
            },
            None,
            ptr::null_mut(),
        )
    }
}

fn link(ctx: &Context, options: &str, inputs: &[&Program]) -> (cl_program, cl_int) {
    let opts = CString::new(options).unwrap();
    let progs: Vec<cl_program> = inputs.iter().map(|p| p.raw()).collect();
    let d = dev().device;
    let mut rc = 0;
    // SAFETY: live programs and context.
    let p = unsafe {
        clLinkProgram(
            ctx.raw(),
            1,
            &d,
            opts.as_ptr(),
            progs.len() as cl_uint,
            progs.as_ptr(),
            None,
            ptr::null_mut(),
            &mut rc,
        )
    };
    (p, rc)
}

fn binary_type(p: &Program) -> cl_program_binary_type {
    pod(&build_info(p.raw(), dev().device, CL_PROGRAM_BINARY_TYPE).unwrap())
}

fn build_status(p: &Program) -> cl_build_status {
    pod(&build_info(p.raw(), dev().device, CL_PROGRAM_BUILD_STATUS).unwrap())
}

fn run_apply(env: &Env, p: &Program) -> Vec<i32> {
    let b = env.buffer_from(&[1i32, 2, 3, 4]);
    let k = p.kernel("apply");
    k.buf(0, &b);
    run_1d(&env.queue, &k, 4, None);
    b.read(&env.queue, 4)
}

#[test]
fn compile_with_headers_then_link_objects() {
    let env = Env::new();
    let header = Program::from_source(&env.ctx, HELPER_H);
    let main = Program::from_source(&env.ctx, MAIN);
    assert_eq!(binary_type(&main), CL_PROGRAM_BINARY_TYPE_NONE);
    check(
        compile(&main, "", &[(&header, "helper.h")]),
        "clCompileProgram(main)",
    );
    assert_eq!(binary_type(&main), CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
    assert_eq!(build_status(&main), CL_BUILD_SUCCESS);
    // A compiled object has no kernels yet.
    let mut rc = 0;
    let name = CString::new("apply").unwrap();
    // SAFETY: a live program.
    let k = unsafe { clCreateKernel(main.raw(), name.as_ptr(), &mut rc) };
    expect_create_err(
        k,
        rc,
        CL_INVALID_PROGRAM_EXECUTABLE,
        "kernel of a compiled object",
    );
    let helper = Program::from_source(&env.ctx, HELPER);
    check(compile(&helper, "", &[]), "clCompileProgram(helper)");
    let (linked, rc) = link(&env.ctx, "", &[&main, &helper]);
    check(rc, "clLinkProgram");
    let linked = Program(linked);
    assert_eq!(binary_type(&linked), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    assert_eq!(build_status(&linked), CL_BUILD_SUCCESS);
    assert_eq!(run_apply(&env, &linked), vec![103, 106, 109, 112]);
    let names = string(&program_info(linked.raw(), CL_PROGRAM_KERNEL_NAMES).unwrap());
    assert_eq!(names, "apply");
}

#[test]
fn libraries_link_into_executables() {
    let env = Env::new();
    let header = Program::from_source(&env.ctx, HELPER_H);
    let main = Program::from_source(&env.ctx, MAIN);
    check(compile(&main, "", &[(&header, "helper.h")]), "compile main");
    let helper = Program::from_source(&env.ctx, HELPER);
    check(compile(&helper, "", &[]), "compile helper");
    let (lib, rc) = link(&env.ctx, "-create-library", &[&helper]);
    check(rc, "clLinkProgram(-create-library)");
    let lib = Program(lib);
    assert_eq!(binary_type(&lib), CL_PROGRAM_BINARY_TYPE_LIBRARY);
    // The library's binary round-trips with its type.
    let lib2 = from_binary(&env, &binary_of(&lib)).expect("library binary");
    assert_eq!(binary_type(&lib2), CL_PROGRAM_BINARY_TYPE_LIBRARY);
    let (exe, rc) = link(&env.ctx, "", &[&main, &lib2]);
    check(rc, "link object + library");
    let exe = Program(exe);
    assert_eq!(run_apply(&env, &exe), vec![103, 106, 109, 112]);
}

#[test]
fn link_errors_and_failures() {
    let env = Env::new();
    let main = Program::from_source(&env.ctx, MAIN);
    // CL_COMPILE_PROGRAM_FAILURE: the header is missing; the log says why.
    expect_code(
        compile(&main, "", &[]),
        CL_COMPILE_PROGRAM_FAILURE,
        "compile without the header",
    );
    assert_eq!(build_status(&main), CL_BUILD_ERROR);
    assert!(
        main.build_log().contains("helper.h"),
        "log: {}",
        main.build_log()
    );
    // CL_INVALID_COMPILER_OPTIONS.
    let helper = Program::from_source(&env.ctx, HELPER);
    expect_code(
        compile(&helper, "-no-such-option", &[]),
        CL_INVALID_COMPILER_OPTIONS,
        "bad compiler option",
    );
    check(compile(&helper, "", &[]), "compile helper");
    // CL_INVALID_LINKER_OPTIONS.
    let (p, rc) = link(&env.ctx, "-D X=1", &[&helper]);
    expect_create_err(
        p,
        rc,
        CL_INVALID_LINKER_OPTIONS,
        "compiler option given to the linker",
    );
    // CL_INVALID_OPERATION: an input that is not compiled.
    let raw = Program::from_source(&env.ctx, HELPER);
    let (p, rc) = link(&env.ctx, "", &[&raw]);
    expect_create_err(p, rc, CL_INVALID_OPERATION, "linking an uncompiled program");
    // CL_LINK_PROGRAM_FAILURE: the object imports a function nobody exports; the program
    // is returned with its log.
    let header = Program::from_source(&env.ctx, HELPER_H);
    check(compile(&main, "", &[(&header, "helper.h")]), "compile main");
    let (p, rc) = link(&env.ctx, "", &[&main]);
    expect_code(rc, CL_LINK_PROGRAM_FAILURE, "unresolved import");
    assert!(!p.is_null(), "a failed link still returns its program");
    let p = Program(p);
    assert_eq!(build_status(&p), CL_BUILD_ERROR);
    assert!(p.build_log().contains("helper"), "log: {}", p.build_log());
    // CL_INVALID_VALUE: no inputs.
    let mut rc = 0;
    let d = dev().device;
    // SAFETY: invalid arguments are rejected first.
    let p = unsafe {
        clLinkProgram(
            env.ctx.raw(),
            1,
            &d,
            ptr::null(),
            0,
            ptr::null(),
            None,
            ptr::null_mut(),
            &mut rc,
        )
    };
    expect_create_err(p, rc, CL_INVALID_VALUE, "no input programs");
    // CL_INVALID_OPERATION: compiling a program created from a binary.
    let exe = build(&env.ctx, "kernel void k(global int *a) { a[0] = 1; }", "");
    let from_bin = from_binary(&env, &binary_of(&exe)).unwrap();
    expect_code(
        compile(&from_bin, "", &[]),
        CL_INVALID_OPERATION,
        "compile a binary program",
    );
    // CL_INVALID_OPERATION: compiling with kernels attached.
    let k = exe.kernel("k");
    expect_code(
        compile(&exe, "", &[]),
        CL_INVALID_OPERATION,
        "compile with kernels attached",
    );
    drop(k);
}

fn binary_of(p: &Program) -> Vec<u8> {
    let sizes: Vec<usize> = pod_vec(&program_info(p.raw(), CL_PROGRAM_BINARY_SIZES).unwrap());
    assert_eq!(sizes.len(), 1);
    let mut bin = vec![0u8; sizes[0]];
    let mut ptrs = [bin.as_mut_ptr()];
    // SAFETY: one pointer to sizes[0] writable bytes.
    let rc = unsafe {
        clGetProgramInfo(
            p.raw(),
            CL_PROGRAM_BINARIES,
            std::mem::size_of_val(&ptrs),
            ptrs.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    check(rc, "CL_PROGRAM_BINARIES");
    bin
}

fn from_binary(env: &Env, bin: &[u8]) -> Result<Program, (cl_int, cl_int)> {
    let mut status = 1;
    let mut rc = 0;
    let len = bin.len();
    let mut ptrs = [bin.as_ptr()];
    // SAFETY: one binary of `len` bytes for one device.
    let p = unsafe {
        clCreateProgramWithBinary(
            env.ctx.raw(),
            1,
            &env.dev.device,
            &len,
            ptrs.as_mut_ptr(),
            &mut status,
            &mut rc,
        )
    };
    if rc != CL_SUCCESS {
        assert!(p.is_null());
        return Err((rc, status));
    }
    assert_eq!(status, CL_SUCCESS);
    Ok(Program(p))
}

#[test]
fn executable_binaries_round_trip() {
    let env = Env::new();
    let src = "kernel void twice(global int *a) { a[get_global_id(0)] *= 2; }";
    let p = build(&env.ctx, src, "");
    let bin = binary_of(&p);
    let p2 = from_binary(&env, &bin).expect("clCreateProgramWithBinary");
    assert_eq!(binary_type(&p2), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    assert_eq!(build_status(&p2), CL_BUILD_NONE);
    p2.build("").expect("build from binary");
    let b = env.buffer_from(&[1i32, 2, 3]);
    let k = p2.kernel("twice");
    k.buf(0, &b);
    run_1d(&env.queue, &k, 3, None);
    assert_eq!(b.read::<i32>(&env.queue, 3), vec![2, 4, 6]);
    // A bad binary.
    let err = from_binary(&env, b"definitely not a program binary!").err();
    assert_eq!(err, Some((CL_INVALID_BINARY, CL_INVALID_BINARY)));
    // No binary before a build.
    let fresh = Program::from_source(&env.ctx, src);
    let sizes: Vec<usize> = pod_vec(&program_info(fresh.raw(), CL_PROGRAM_BINARY_SIZES).unwrap());
    assert_eq!(sizes, vec![0]);
    let ctors: cl_bool =
        pod(&program_info(p.raw(), CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT).unwrap());
    let dtors: cl_bool =
        pod(&program_info(p.raw(), CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT).unwrap());
    assert_eq!((ctors, dtors), (CL_FALSE, CL_FALSE));
    let total: usize = pod(&build_info(
        p.raw(),
        env.dev.device,
        CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
    )
    .unwrap());
    assert_eq!(total, 0);
}

/// A binary cut short is refused by `clCreateProgramWithBinary` itself: the call returns
/// `CL_INVALID_BINARY` and `binary_status` says so (the "Ferrite" header only, a word or a
/// byte short, half of it, a cut inside the header). The context builds the whole binary
/// afterwards. (Other drivers' binaries are opaque: only Ferrite's cut points are checked.)
#[test]
fn truncated_binaries_are_refused_at_creation() {
    let env = Env::new();
    let src = "kernel void twice(global int *a) { a[get_global_id(0)] *= 2; }";
    let p = build(&env.ctx, src, "");
    let bin = binary_of(&p);
    let len = bin.len();
    assert!(len > 64, "a binary of {len} bytes");
    let cuts = if is_ferrite() {
        vec![10, 24, 44, len / 2 / 4 * 4, len - 8, len - 4, len - 1]
    } else {
        vec![len / 2]
    };
    for cut in cuts {
        let err = from_binary(&env, &bin[..cut]).err();
        spec_check(
            err == Some((CL_INVALID_BINARY, CL_INVALID_BINARY)),
            &format!(
                "the first {cut} of {len} bytes: expected CL_INVALID_BINARY (code and status), \
                 got {err:?}"
            ),
        );
    }
    let whole = from_binary(&env, &bin).expect("clCreateProgramWithBinary of the whole binary");
    whole.build("").expect("build from binary");
    let b = env.buffer_from(&[5i32, 6]);
    let k = whole.kernel("twice");
    k.buf(0, &b);
    run_1d(&env.queue, &k, 2, None);
    assert_eq!(b.read::<i32>(&env.queue, 2), vec![10, 12]);
}

/// A kernel with two specialization constants (SpecId 1: int, SpecId 2: bool), as
/// SPIR-V assembly.
const SPEC_ASM: &str = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "k"
               OpDecorate %scale SpecId 1
               OpDecorate %flag SpecId 2
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
        %ptr = OpTypePointer CrossWorkgroup %uint
         %fn = OpTypeFunction %void %ptr
      %scale = OpSpecConstant %uint 7
       %flag = OpSpecConstantFalse %bool
     %uint_1 = OpConstant %uint 1
     %uint_0 = OpConstant %uint 0
          %k = OpFunction %void None %fn
        %out = OpFunctionParameter %ptr
      %entry = OpLabel
        %sel = OpSelect %uint %flag %uint_1 %uint_0
               OpStore %out %scale Aligned 4
         %p1 = OpInBoundsPtrAccessChain %ptr %out %uint_1
               OpStore %p1 %sel Aligned 4
               OpReturn
               OpFunctionEnd
"#;

fn assemble(asm: &str) -> Vec<u8> {
    assemble_for(asm, "spv1.0")
}

fn assemble_for(asm: &str, target_env: &str) -> Vec<u8> {
    let dir = temp_dir("spec");
    let (src, out) = (dir.join("k.spvasm"), dir.join("k.spv"));
    std::fs::write(&src, asm).unwrap();
    let st = std::process::Command::new("spirv-as")
        .args(["--target-env", target_env])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()
        .expect("spirv-as (spirv-tools) is installed");
    assert!(st.success(), "spirv-as failed");
    std::fs::read(&out).unwrap()
}

fn set_spec(p: &Program, id: cl_uint, value: &[u8]) -> cl_int {
    // SAFETY: `value` is valid for its length.
    unsafe { clSetProgramSpecializationConstant(p.raw(), id, value.len(), value.as_ptr().cast()) }
}

#[test]
fn specialization_constants() {
    let env = Env::new();
    let p = Program::from_il(&env.ctx, &assemble(SPEC_ASM)).expect("clCreateProgramWithIL");
    let run = |p: &Program| -> Vec<u32> {
        p.build("").expect("build");
        let b = env.buffer_zeroed::<u32>(2);
        let k = p.kernel("k");
        k.buf(0, &b);
        run_1d(&env.queue, &k, 1, Some(1));
        b.read(&env.queue, 2)
    };
    assert_eq!(run(&p), vec![7, 0], "defaults");
    check(set_spec(&p, 1, &42u32.to_ne_bytes()), "set SpecId 1");
    check(set_spec(&p, 2, &[1u8]), "set SpecId 2 (bool, 1 byte)");
    assert_eq!(run(&p), vec![42, 1], "specialised");
    expect_code(
        set_spec(&p, 9, &[0u8; 4]),
        CL_INVALID_SPEC_ID,
        "unknown SpecId",
    );
    expect_code(set_spec(&p, 1, &[0u8; 8]), CL_INVALID_VALUE, "wrong size");
    expect_code(
        set_spec(&p, 2, &[0u8; 4]),
        CL_INVALID_VALUE,
        "bool takes 1 byte",
    );
    // SAFETY: NULL value is rejected.
    let rc = unsafe { clSetProgramSpecializationConstant(p.raw(), 1, 4, ptr::null()) };
    expect_code(rc, CL_INVALID_VALUE, "NULL spec_value");
    let src = Program::from_source(&env.ctx, "kernel void k() {}");
    expect_code(
        set_spec(&src, 1, &[0u8; 4]),
        CL_INVALID_PROGRAM,
        "program from source",
    );
}

unsafe extern "C" fn never(_p: cl_program, _u: *mut c_void) {}

#[test]
#[expect(
    deprecated,
    reason = "clSetProgramReleaseCallback and clUnloadCompiler are deprecated, still in the API"
)]
fn release_callback_is_refused_and_compilers_unload() {
    let env = Env::new();
    let p = Program::from_source(&env.ctx, "kernel void k() {}");
    // SAFETY: a live program and a valid callback.
    let rc = unsafe { clSetProgramReleaseCallback(p.raw(), Some(never), ptr::null_mut()) };
    expect_code(rc, CL_INVALID_OPERATION, "no program-scope destructors");
    // SAFETY: NULL callback.
    let rc = unsafe { clSetProgramReleaseCallback(p.raw(), None, ptr::null_mut()) };
    expect_code(rc, CL_INVALID_VALUE, "NULL pfn_notify");
    // SAFETY: plain calls.
    unsafe {
        check(
            clUnloadPlatformCompiler(env.dev.platform),
            "clUnloadPlatformCompiler",
        );
        check(clUnloadCompiler(), "clUnloadCompiler");
    }
    // The compiler still works afterwards.
    build(&env.ctx, "kernel void k(global int *a) { a[0] = 1; }", "");
}

/// SPIR-V 1.5 with the Vulkan memory model (core in 1.5): availability/visibility semantics
/// on an atomic, `NonPrivatePointer` stores that make themselves available at device scope.
const VULKAN_MODEL_ASM: &str = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability VulkanMemoryModel
               OpCapability VulkanMemoryModelDeviceScope
               OpMemoryModel Physical64 Vulkan
               OpEntryPoint Kernel %k "count" %gid
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %gid Constant
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
      %v3ulong = OpTypeVector %ulong 3
     %in_ptr = OpTypePointer Input %v3ulong
        %ptr = OpTypePointer CrossWorkgroup %uint
         %fn = OpTypeFunction %void %ptr %ptr
        %gid = OpVariable %in_ptr Input
     %device = OpConstant %uint 1
     %uint_1 = OpConstant %uint 1
; AcquireRelease | CrossWorkgroupMemory | MakeAvailable | MakeVisible | Volatile
        %sem = OpConstant %uint 0xE208
          %k = OpFunction %void None %fn
    %counter = OpFunctionParameter %ptr
        %out = OpFunctionParameter %ptr
      %entry = OpLabel
        %ids = OpLoad %v3ulong %gid Aligned 32
          %i = OpCompositeExtract %ulong %ids 0
       %prev = OpAtomicIAdd %uint %counter %device %sem %uint_1
       %slot = OpInBoundsPtrAccessChain %ptr %out %i
               OpStore %slot %prev Aligned|NonPrivatePointer|MakePointerAvailable 4 %device
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn spirv_1_5_with_the_vulkan_memory_model() {
    let env = Env::new();
    let spv = assemble_for(VULKAN_MODEL_ASM, "spv1.5");
    assert_eq!(spv[4..8], [0, 5, 1, 0], "a SPIR-V 1.5 module");
    let p = Program::from_il(&env.ctx, &spv).expect("clCreateProgramWithIL");
    p.build("").expect("build");
    let n = 256;
    let counter = env.buffer_zeroed::<u32>(1);
    let out = env.buffer_zeroed::<u32>(n);
    let k = p.kernel("count");
    k.buf(0, &counter).buf(1, &out);
    run_1d(&env.queue, &k, n, Some(16));
    assert_eq!(counter.read::<u32>(&env.queue, 1), vec![n as u32]);
    let mut seen = out.read::<u32>(&env.queue, n);
    seen.sort_unstable();
    assert_eq!(
        seen,
        (0..n as u32).collect::<Vec<_>>(),
        "each item saw a distinct count"
    );
}

/// `cl_khr_spirv_linkonce_odr`: a helper defined `LinkOnceODR` in two modules (the second
/// also defining it for its own use) and imported by a third links into one executable.
const LINK_ONCE_HELPER: &str = r#"
               OpCapability Addresses
               OpCapability Linkage
               OpCapability Kernel
               OpExtension "SPV_KHR_linkonce_odr"
               OpMemoryModel Physical64 OpenCL
               OpDecorate %a LinkageAttributes "a" LinkOnceODR
       %uint = OpTypeInt 32 0
     %uint_5 = OpConstant %uint 5
         %fn = OpTypeFunction %uint %uint
          %a = OpFunction %uint Pure %fn
          %x = OpFunctionParameter %uint
          %l = OpLabel
          %r = OpIAdd %uint %x %uint_5
               OpReturnValue %r
               OpFunctionEnd
"#;

const LINK_ONCE_MAIN: &str = r#"
               OpCapability Addresses
               OpCapability Linkage
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "k" %gid
               OpDecorate %a LinkageAttributes "a" Import
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %gid Constant
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
    %v3ulong = OpTypeVector %ulong 3
     %in_ptr = OpTypePointer Input %v3ulong
        %ptr = OpTypePointer CrossWorkgroup %uint
       %afn = OpTypeFunction %uint %uint
       %kfn = OpTypeFunction %void %ptr
        %gid = OpVariable %in_ptr Input
          %a = OpFunction %uint Pure %afn
         %ax = OpFunctionParameter %uint
               OpFunctionEnd
          %k = OpFunction %void None %kfn
        %out = OpFunctionParameter %ptr
      %entry = OpLabel
        %ids = OpLoad %v3ulong %gid Aligned 32
          %i = OpCompositeExtract %ulong %ids 0
         %iu = OpUConvert %uint %i
          %v = OpFunctionCall %uint %a %iu
       %slot = OpInBoundsPtrAccessChain %ptr %out %i
               OpStore %slot %v Aligned 4
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn link_once_odr_definitions_resolve_imports() {
    let exts = device_string(CL_DEVICE_EXTENSIONS);
    if !require(
        exts.contains("cl_khr_spirv_linkonce_odr"),
        "cl_khr_spirv_linkonce_odr",
    ) {
        return;
    }
    let env = Env::new();
    let objects: Vec<Program> = [LINK_ONCE_MAIN, LINK_ONCE_HELPER, LINK_ONCE_HELPER]
        .iter()
        .map(|asm| {
            let p = Program::from_il(&env.ctx, &assemble(asm)).expect("clCreateProgramWithIL");
            check(compile(&p, "", &[]), "clCompileProgram");
            p
        })
        .collect();
    let refs: Vec<&Program> = objects.iter().collect();
    let (linked, rc) = link(&env.ctx, "", &refs);
    check(
        rc,
        "clLinkProgram of two LinkOnceODR definitions and an import",
    );
    let linked = Program(linked);
    let out = env.buffer_zeroed::<u32>(4);
    let k = linked.kernel("k");
    k.buf(0, &out);
    run_1d(&env.queue, &k, 4, None);
    assert_eq!(out.read::<u32>(&env.queue, 4), vec![5, 6, 7, 8]);
}

/// Program-scope variables across `clLinkProgram`: one object defines the variable, the
/// other declares it `extern`; the linked program's kernels share one storage.
#[test]
fn linked_programs_share_program_scope_variables() {
    let env = Env::new();
    let features = device_info(env.dev.device, CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE).unwrap();
    if !require(
        pod::<usize>(&features) > 0,
        "program-scope global variables",
    ) {
        return;
    }
    let writer = Program::from_source(
        &env.ctx,
        "global int shared = 5;\n\
         global int *shared_ptr = &shared;\n\
         kernel void writer(int v) { *shared_ptr += v; }\n",
    );
    let reader = Program::from_source(
        &env.ctx,
        "extern global int shared;\n\
         kernel void reader(global int *out) { out[0] = shared; }\n",
    );
    check(
        compile(&writer, "-cl-std=CL3.0", &[]),
        "clCompileProgram(writer)",
    );
    check(
        compile(&reader, "-cl-std=CL3.0", &[]),
        "clCompileProgram(reader)",
    );
    let (linked, rc) = link(&env.ctx, "", &[&writer, &reader]);
    check(rc, "clLinkProgram");
    let linked = Program(linked);
    let total: usize = pod(&build_info(
        linked.raw(),
        env.dev.device,
        CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
    )
    .unwrap());
    assert!(
        total >= 12,
        "CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE = {total}"
    );
    let out = env.buffer_zeroed::<i32>(1);
    let (w, r) = (linked.kernel("writer"), linked.kernel("reader"));
    w.arg(0, &10i32);
    r.buf(0, &out);
    run_1d(&env.queue, &w, 1, None);
    run_1d(&env.queue, &w, 1, None);
    run_1d(&env.queue, &r, 1, None);
    assert_eq!(out.read::<i32>(&env.queue, 1), [25]);

    // A program built from the linked program's binary starts from the initialisers.
    let p2 = from_binary(&env, &binary_of(&linked)).expect("clCreateProgramWithBinary");
    p2.build("").expect("build from binary");
    let r2 = p2.kernel("reader");
    r2.buf(0, &out);
    run_1d(&env.queue, &r2, 1, None);
    assert_eq!(out.read::<i32>(&env.queue, 1), [5]);
}
