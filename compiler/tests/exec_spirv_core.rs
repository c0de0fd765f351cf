//! Core SPIR-V instructions beyond the common ones: by-value struct arguments written by
//! the kernel, explicit generic-pointer casts (`to_global`/`to_local`/`to_private`),
//! specialization constants with `OpSpecConstantOp`, `OpIAddCarry` and friends, linkage,
//! the header's version word, and `OpReadClockKHR`.

#[path = "common/harness.rs"]
mod harness;

use ferrite_compiler::Module;
use harness::{kernel, run1, run1_local, spvasm, Args, Kernel, TestModule};
use std::collections::HashMap;

#[test]
fn by_value_struct_written_by_the_kernel_stays_private() {
    let src = r#"
        typedef struct { int a; float b; int c[3]; } S;
        kernel void k(S s, global int *out) {
            size_t i = get_global_id(0);
            s.a += (int)i;          // each work-item changes its own copy
            s.c[1] *= 2;
            out[2 * i] = s.a;
            out[2 * i + 1] = s.c[1];
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct S {
        a: i32,
        b: f32,
        c: [i32; 3],
    }
    let n = 64;
    let mut out = vec![0i32; 2 * n];
    let mut args = Args::new(&k.info);
    args.val(
        0,
        S {
            a: 100,
            b: 1.0,
            c: [1, 7, 3],
        },
    )
    .buf(1, &mut out);
    run1(&k, &args, n as u64, 8);
    for i in 0..n {
        assert_eq!(out[2 * i], 100 + i as i32, "a of item {i}");
        assert_eq!(out[2 * i + 1], 14, "c[1] of item {i}");
    }
}

#[test]
fn generic_pointer_casts_answer_at_run_time() {
    let src = r#"
        int classify(generic int *p) {
            return (to_global(p) != 0) | ((to_local(p) != 0) << 1) | ((to_private(p) != 0) << 2);
        }
        kernel void k(global int *g, local int *l, global int *out) {
            size_t i = get_global_id(0);
            int priv[2] = { (int)i, 1 };
            out[3 * i] = classify(g + i);
            out[3 * i + 1] = classify(l + i);
            out[3 * i + 2] = classify(&priv[i & 1]);
        }"#;
    let Some(k) = harness::kernel_opt(src, "k", "-O0") else {
        return;
    };
    let n = 16;
    let mut g = vec![0i32; n];
    let mut out = vec![0i32; 3 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut g).local(1, 0).buf(2, &mut out);
    run1_local(&k, &args, n as u64, 4, 64);
    for i in 0..n {
        assert_eq!(&out[3 * i..3 * i + 3], &[1, 2, 4], "item {i}");
    }
}

const SPEC: &str = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "k"
               OpDecorate %a SpecId 1
               OpDecorate %b SpecId 2
               OpDecorate %flag SpecId 3
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
       %bool = OpTypeBool
      %float = OpTypeFloat 32
     %carry = OpTypeStruct %uint %uint
        %ptr = OpTypePointer CrossWorkgroup %uint
         %fn = OpTypeFunction %void %ptr
          %a = OpSpecConstant %uint 3
          %b = OpSpecConstant %uint 4
       %flag = OpSpecConstantFalse %bool
        %sum = OpSpecConstantOp %uint IAdd %a %b
        %mul = OpSpecConstantOp %uint IMul %sum %a
        %sel = OpSpecConstantOp %uint Select %flag %mul %b
       %big = OpConstant %uint 4294967295
      %u1   = OpConstant %uint 1
      %u2   = OpConstant %uint 2
      %u3   = OpConstant %uint 3
      %u4   = OpConstant %uint 4
      %u5   = OpConstant %uint 5
          %k = OpFunction %void None %fn
        %out = OpFunctionParameter %ptr
         %l0 = OpLabel
               OpStore %out %sel
         %c1 = OpIAddCarry %carry %big %a
         %s1 = OpCompositeExtract %uint %c1 0
         %s2 = OpCompositeExtract %uint %c1 1
         %p1 = OpInBoundsPtrAccessChain %ptr %out %u1
               OpStore %p1 %s1
         %p2 = OpInBoundsPtrAccessChain %ptr %out %u2
               OpStore %p2 %s2
         %m1 = OpUMulExtended %carry %big %big
         %h1 = OpCompositeExtract %uint %m1 1
         %p3 = OpInBoundsPtrAccessChain %ptr %out %u3
               OpStore %p3 %h1
         %b1 = OpISubBorrow %carry %a %b
         %b2 = OpCompositeExtract %uint %b1 1
         %p4 = OpInBoundsPtrAccessChain %ptr %out %u4
               OpStore %p4 %b2
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn spec_constants_and_extended_arithmetic() {
    let Some(spv) = spvasm(SPEC) else { return };
    let consts = ferrite_compiler::spec_constants(&spv).unwrap();
    assert_eq!(
        consts.iter().map(|c| (c.id, c.size)).collect::<Vec<_>>(),
        [(1, 4), (2, 4), (3, 1)]
    );
    for (spec, want) in [
        (HashMap::new(), 4u32),
        (HashMap::from([(3u32, 1u64)]), 21),
        (HashMap::from([(1, 10), (3, 1)]), 140),
    ] {
        let k = TestModule::with_spec_constants(&spv, &spec).kernel("k");
        let mut out = vec![0u32; 5];
        let mut args = Args::new(&k.info);
        args.buf(0, &mut out);
        run1(&k, &args, 1, 1);
        let a = spec.get(&1).copied().unwrap_or(3) as u32;
        assert_eq!(out[0], want, "{spec:?}");
        assert_eq!(out[1], a.wrapping_sub(1), "carry sum");
        assert_eq!(out[2], 1, "carry");
        assert_eq!(out[3], 0xffff_fffe, "umul high");
        assert_eq!(out[4], u32::from(a < 4), "borrow");
    }
}

#[test]
fn version_word_is_checked() {
    let Some(mut spv) = spvasm(SPEC) else { return };
    spv[4..8].copy_from_slice(&0x0001_0700u32.to_le_bytes());
    let e = Module::from_spirv(&spv).err().unwrap().to_string();
    assert!(e.contains("SPIR-V version 1.7"), "{e}");
    spv[4..8].copy_from_slice(&0x0002_0000u32.to_le_bytes());
    assert!(Module::from_spirv(&spv).is_err());
    for minor in 0..=6u32 {
        spv[4..8].copy_from_slice(&(0x0001_0000 | minor << 8).to_le_bytes());
        assert!(Module::from_spirv(&spv).is_ok(), "SPIR-V 1.{minor}");
    }
}

/// `OpReadClockKHR` at the three scopes of `cl_khr_kernel_clock` (device, work-group as
/// clang-22 writes it, sub-group), 64-bit and as `uint2`: one monotonic clock, so each
/// work-item's three reads never go back, and later work-items never read earlier times
/// (the group's work-items run in order on one thread). Run alone: no two runs read the
/// same times.
#[test]
fn read_clock_at_every_scope() {
    let Some(spv) = spvasm(
        r#"
        OpCapability Addresses
        OpCapability Kernel
        OpCapability Int64
        OpCapability ShaderClockKHR
        OpExtension "SPV_KHR_shader_clock"
        OpMemoryModel Physical64 OpenCL
        OpEntryPoint Kernel %clocks "clocks" %gid
        OpDecorate %gid BuiltIn GlobalInvocationId
        OpDecorate %gid Constant
        %void = OpTypeVoid
        %ulong = OpTypeInt 64 0
        %uint = OpTypeInt 32 0
        %uint2 = OpTypeVector %uint 2
        %ulong3 = OpTypeVector %ulong 3
        %ptr_out = OpTypePointer CrossWorkgroup %ulong
        %ptr_in = OpTypePointer Input %ulong3
        %fty = OpTypeFunction %void %ptr_out
        %device = OpConstant %uint 1
        %work_group = OpConstant %uint 2
        %sub_group = OpConstant %uint 3
        %ulong_1 = OpConstant %ulong 1
        %ulong_2 = OpConstant %ulong 2
        %ulong_3 = OpConstant %ulong 3
        %gid = OpVariable %ptr_in Input
        %clocks = OpFunction %void None %fty
        %out = OpFunctionParameter %ptr_out
        %entry = OpLabel
        %ids = OpLoad %ulong3 %gid
        %i = OpCompositeExtract %ulong %ids 0
        %a = OpReadClockKHR %ulong %device
        %h = OpReadClockKHR %uint2 %work_group
        %b = OpReadClockKHR %ulong %sub_group
        %hl = OpBitcast %ulong %h
        %i3 = OpIMul %ulong %i %ulong_3
        %p0 = OpInBoundsPtrAccessChain %ptr_out %out %i3
        OpStore %p0 %a Aligned 8
        %j1 = OpIAdd %ulong %i3 %ulong_1
        %p1 = OpInBoundsPtrAccessChain %ptr_out %out %j1
        OpStore %p1 %hl Aligned 8
        %j2 = OpIAdd %ulong %i3 %ulong_2
        %p2 = OpInBoundsPtrAccessChain %ptr_out %out %j2
        OpStore %p2 %b Aligned 8
        OpReturn
        OpFunctionEnd
"#,
    ) else {
        return;
    };
    let m = Module::from_spirv(&spv).expect("from_spirv");
    let k = Kernel::alone(m.compile_kernel("clocks").expect("compile"), "clock reads");
    let n = 8usize;
    let mut out = vec![0u64; 3 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut out);
    run1(&k, &args, n as u64, n as u64);
    assert!(
        out.windows(2).all(|w| w[0] <= w[1]),
        "the clock went back: {out:?}"
    );
    assert!(out[3 * n - 1] > 0, "the clock did not move: {out:?}");
}

/// `SPV_INTEL_function_pointers`: a function the module exports, compiled on its own
/// (`Module::function_pointer`, behind `zeModuleGetFunctionPointer`), called through a
/// pointer the kernel gets as an argument (`OpFunctionPointerCallINTEL`), with a `float`
/// and a work-item built-in inside the callee.
#[test]
fn function_pointer_call() {
    let src = r#"
        #pragma OPENCL EXTENSION __cl_clang_function_pointers : enable
        typedef int (*fptr)(int, float);
        int scale_add(int a, float f) { return (int)(a * f) + (int)get_global_id(0); }
        int other(int a, float f) { return -a; }
        kernel void call_fptr(long fp, global int *out) {
            fptr f = (fptr)fp;
            size_t i = get_global_id(0);
            out[i] = f((int)i, 2.5f);
        }"#;
    let Some(spv) = harness::cl_to_spirv_with(
        src,
        "-O2",
        &["-Xclang", "-cl-ext=+__cl_clang_function_pointers"],
        ",+SPV_INTEL_function_pointers",
    ) else {
        return;
    };
    let m = TestModule::new(&spv);
    assert!(m.function_pointer("no_such_function").unwrap().is_none());
    let n = 64usize;
    for (name, want) in [
        (
            "scale_add",
            (|i: i32| (i as f32 * 2.5) as i32 + i) as fn(i32) -> i32,
        ),
        ("other", |i: i32| -i),
    ] {
        let fp = m.function_pointer(name).unwrap().expect(name);
        let k = m.kernel("call_fptr");
        let mut out = vec![0i32; n];
        let mut args = Args::new(&k.info);
        args.val(0, fp.addr).buf(1, &mut out);
        run1(&k, &args, n as u64, 16);
        let expect: Vec<i32> = (0..n as i32).map(want).collect();
        assert_eq!(out, expect, "{name}");
    }
}
