//! SPIR-V shaped the way DPC++ (SYCL) emits it, as found in the device images of `dpctl`:
//! work-item ids as `CrossWorkgroup` builtin imports read through pointer casts and byte
//! offsets, `SPV_INTEL_memory_access_aliasing` declarations and memory operands,
//! `SPV_KHR_uniform_group_instructions` reductions and scans, and the
//! `FPFastMathModeINTEL` capability. Each kernel runs and its results are checked.

#[path = "common/harness.rs"]
mod harness;

use ferrite_compiler::{CompileError, Module};
use harness::{run, spvasm, Args};

/// `out[gx + 8 * gy] = gx * 1_000_000 + wg_y * 1000 + lid_x`, with every id read as DPC++
/// reads it: component 0 through a cast to a pointer to the component, component 1
/// through a byte pointer 8 bytes in. Loads carry `NoAliasINTEL` operands naming alias
/// scope lists, and a store carries an `AliasScopeINTEL` decoration.
const IDS: &str = r#"
               OpCapability Addresses
               OpCapability Linkage
               OpCapability Kernel
               OpCapability Int64
               OpCapability Int8
               OpCapability MemoryAccessAliasingINTEL
               OpCapability FPFastMathModeINTEL
               OpExtension "SPV_INTEL_memory_access_aliasing"
               OpExtension "SPV_INTEL_fp_fast_math_mode"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "ids" %gid %wgid %lid
               OpName %gid "__spirv_BuiltInGlobalInvocationId"
       %dom = OpAliasDomainDeclINTEL
     %scope = OpAliasScopeDeclINTEL %dom
      %list = OpAliasScopeListDeclINTEL %scope
               OpDecorate %gid LinkageAttributes "__spirv_BuiltInGlobalInvocationId" Import
               OpDecorate %gid Constant
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %wgid LinkageAttributes "__spirv_BuiltInWorkgroupId" Import
               OpDecorate %wgid Constant
               OpDecorate %wgid BuiltIn WorkgroupId
               OpDecorate %lid LinkageAttributes "__spirv_BuiltInLocalInvocationId" Import
               OpDecorate %lid Constant
               OpDecorate %lid BuiltIn LocalInvocationId
               OpDecorate %st AliasScopeINTEL %list
      %ulong = OpTypeInt 64 0
      %uchar = OpTypeInt 8 0
    %v3ulong = OpTypeVector %ulong 3
     %pv3ul = OpTypePointer CrossWorkgroup %v3ulong
       %pul = OpTypePointer CrossWorkgroup %ulong
       %puc = OpTypePointer CrossWorkgroup %uchar
       %void = OpTypeVoid
         %fn = OpTypeFunction %void %pul
    %ulong_8 = OpConstant %ulong 8
  %ulong_1000 = OpConstant %ulong 1000
 %ulong_1000000 = OpConstant %ulong 1000000
        %gid = OpVariable %pv3ul CrossWorkgroup
       %wgid = OpVariable %pv3ul CrossWorkgroup
        %lid = OpVariable %pv3ul CrossWorkgroup
          %k = OpFunction %void None %fn
        %out = OpFunctionParameter %pul
      %entry = OpLabel
        %gp0 = OpBitcast %pul %gid
         %gx = OpLoad %ulong %gp0 Aligned|NoAliasINTELMask 32 %list
        %gb = OpBitcast %puc %gid
       %gb8 = OpInBoundsPtrAccessChain %puc %gb %ulong_8
       %gp1 = OpBitcast %pul %gb8
        %gy = OpLoad %ulong %gp1 Aligned|NoAliasINTELMask 8 %list
        %wb = OpBitcast %puc %wgid
       %wb8 = OpInBoundsPtrAccessChain %puc %wb %ulong_8
       %wp1 = OpBitcast %pul %wb8
        %wy = OpLoad %ulong %wp1 Aligned 8
        %lp0 = OpBitcast %pul %lid
         %lx = OpLoad %ulong %lp0 Aligned 32
         %a = OpIMul %ulong %gx %ulong_1000000
         %b = OpIMul %ulong %wy %ulong_1000
        %ab = OpIAdd %ulong %a %b
         %v = OpIAdd %ulong %ab %lx
       %row = OpIMul %ulong %gy %ulong_8
       %idx = OpIAdd %ulong %gx %row
        %st = OpInBoundsPtrAccessChain %pul %out %idx
               OpStore %st %v Aligned 8
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn builtins_read_through_casts_and_byte_offsets() {
    let Some(spv) = spvasm(IDS) else { return };
    let k = harness::kernel_from_spirv(&spv, "ids");
    let mut out = vec![u64::MAX; 8 * 6];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut out);
    // 8 x 6 items in groups of 4 x 3.
    run(&k, &args, 2, [8, 6, 1], [4, 3, 1], [0; 3], 0);
    for gy in 0..6u64 {
        for gx in 0..8u64 {
            let want = gx * 1_000_000 + (gy / 3) * 1000 + gx % 4;
            assert_eq!(out[(gx + 8 * gy) as usize], want, "item ({gx}, {gy})");
        }
    }
}

/// Kernel `name` of `src` must fail to build with an error about a builtin's address.
fn expect_builtin_error(src: &str, name: &str) {
    let Some(spv) = spvasm(src) else { return };
    let m = Module::from_spirv(&spv).unwrap_or_else(|e| panic!("{e}"));
    match m.compile_kernel(name) {
        Err(CompileError::Unsupported(msg)) => assert!(msg.contains("builtin"), "{msg}"),
        Err(e) => panic!("{name}: unexpected error {e}"),
        Ok(_) => panic!("{name}: a builtin's address was compiled"),
    }
}

/// A cast of a builtin put to a use other than a load (here: stored as an address) is an
/// error, never a read of memory that is not there.
#[test]
fn builtin_cast_to_other_use_is_an_error() {
    let src = r#"
               OpCapability Addresses
               OpCapability Linkage
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "leak" %gid
               OpDecorate %gid LinkageAttributes "__spirv_BuiltInGlobalInvocationId" Import
               OpDecorate %gid BuiltIn GlobalInvocationId
      %ulong = OpTypeInt 64 0
    %v3ulong = OpTypeVector %ulong 3
     %pv3ul = OpTypePointer CrossWorkgroup %v3ulong
       %pul = OpTypePointer CrossWorkgroup %ulong
       %void = OpTypeVoid
         %fn = OpTypeFunction %void %pul
        %gid = OpVariable %pv3ul CrossWorkgroup
          %k = OpFunction %void None %fn
        %out = OpFunctionParameter %pul
      %entry = OpLabel
         %p = OpBitcast %pul %gid
         %a = OpConvertPtrToU %ulong %p
               OpStore %out %a
               OpReturn
               OpFunctionEnd
    "#;
    expect_builtin_error(src, "leak");
}

/// A cast of a builtin that reaches an `OpPhi` from a loop's back edge (defined after the
/// phi in block order) is not rewritten away from under the phi: the build fails cleanly.
#[test]
fn builtin_cast_through_a_phi_is_an_error() {
    let src = r#"
               OpCapability Addresses
               OpCapability Linkage
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "phi" %gid
               OpDecorate %gid LinkageAttributes "__spirv_BuiltInGlobalInvocationId" Import
               OpDecorate %gid BuiltIn GlobalInvocationId
      %ulong = OpTypeInt 64 0
       %bool = OpTypeBool
    %v3ulong = OpTypeVector %ulong 3
     %pv3ul = OpTypePointer CrossWorkgroup %v3ulong
       %pul = OpTypePointer CrossWorkgroup %ulong
       %void = OpTypeVoid
         %fn = OpTypeFunction %void %pul
      %false = OpConstantFalse %bool
        %gid = OpVariable %pv3ul CrossWorkgroup
          %k = OpFunction %void None %fn
        %out = OpFunctionParameter %pul
      %entry = OpLabel
               OpBranch %loop
       %loop = OpLabel
          %p = OpPhi %pul %out %entry %cast %loop
          %x = OpLoad %ulong %p
               OpStore %out %x
       %cast = OpBitcast %pul %gid
               OpLoopMerge %exit %loop None
               OpBranchConditional %false %loop %exit
       %exit = OpLabel
               OpReturn
               OpFunctionEnd
    "#;
    expect_builtin_error(src, "phi");
}

/// `SPV_KHR_uniform_group_instructions` at work-group scope: product, bitwise OR scan and
/// logical AND, as DPC++'s `sycl::reduce_over_group` with `multiplies`/`bit_or`/
/// `logical_and` emits them.
const UNIFORM_GROUP: &str = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Groups
               OpCapability GroupUniformArithmeticKHR
               OpExtension "SPV_KHR_uniform_group_instructions"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "uniform" %lid
               OpDecorate %lid BuiltIn LocalInvocationId
               OpDecorate %lid Constant
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
     %v3uint = OpTypeVector %uint 3
       %pin = OpTypePointer Input %v3uint
        %pcw = OpTypePointer CrossWorkgroup %uint
       %void = OpTypeVoid
         %fn = OpTypeFunction %void %pcw %pcw %pcw %pcw
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
     %uint_7 = OpConstant %uint 7
        %wg = OpConstant %uint 2
        %lid = OpVariable %pin Input
          %k = OpFunction %void None %fn
         %in = OpFunctionParameter %pcw
       %prod = OpFunctionParameter %pcw
       %scan = OpFunctionParameter %pcw
       %land = OpFunctionParameter %pcw
      %entry = OpLabel
       %lids = OpLoad %v3uint %lid
          %l = OpCompositeExtract %uint %lids 0
         %ip = OpInBoundsPtrAccessChain %pcw %in %l
          %x = OpLoad %uint %ip
          %p = OpGroupIMulKHR %uint %wg Reduce %x
         %pp = OpInBoundsPtrAccessChain %pcw %prod %l
               OpStore %pp %p
          %s = OpGroupBitwiseOrKHR %uint %wg InclusiveScan %x
         %sp = OpInBoundsPtrAccessChain %pcw %scan %l
               OpStore %sp %s
         %nz = OpINotEqual %bool %x %uint_7
          %a = OpGroupLogicalAndKHR %bool %wg Reduce %nz
         %av = OpSelect %uint %a %uint_1 %uint_0
         %ap = OpInBoundsPtrAccessChain %pcw %land %l
               OpStore %ap %av
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn khr_uniform_group_reductions_and_scans() {
    let Some(spv) = spvasm(UNIFORM_GROUP) else {
        return;
    };
    let k = harness::kernel_from_spirv(&spv, "uniform");
    for (input, has_seven) in [
        (vec![1u32, 2, 3, 1, 2, 1, 1, 4], false),
        (vec![3u32, 1, 7, 2, 1, 1, 8, 1], true),
    ] {
        let n = input.len();
        let mut inp = input.clone();
        let (mut prod, mut scan, mut land) = (vec![0u32; n], vec![0u32; n], vec![9u32; n]);
        let mut args = Args::new(&k.info);
        args.buf(0, &mut inp)
            .buf(1, &mut prod)
            .buf(2, &mut scan)
            .buf(3, &mut land);
        run(&k, &args, 1, [n as u64, 1, 1], [n as u64, 1, 1], [0; 3], 0);
        let want_prod = input.iter().fold(1u32, |a, b| a.wrapping_mul(*b));
        assert!(prod.iter().all(|p| *p == want_prod), "{prod:?}");
        let mut acc = 0;
        for (i, x) in input.iter().enumerate() {
            acc |= x;
            assert_eq!(scan[i], acc, "inclusive OR scan at {i}");
        }
        let want_and = u32::from(!has_seven);
        assert!(land.iter().all(|a| *a == want_and), "{land:?}");
    }
}
