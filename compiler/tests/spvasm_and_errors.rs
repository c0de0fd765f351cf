//! Hand-written `.spvasm` kernels (under `tests/kernels/`), kernel descriptions, and the
//! error paths: malformed or unsupported input must give an `Err`, never a panic.

#[path = "common/harness.rs"]
mod harness;

use ferrite_compiler::{AddressSpace, ArgKind, CompileError, Module};
use harness::{cl_to_spirv, cl_to_spirv_with, run1, spvasm, spvasm_for, Args};

fn kernel_file(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/kernels")
        .join(name);
    std::fs::read_to_string(p).expect("read kernel file")
}

#[test]
fn arbitrary_width_integers() {
    let Some(spv) = spvasm(&kernel_file("apint.spvasm")) else {
        return;
    };
    let k = harness::kernel_from_spirv(&spv, "apint");
    let n = 16usize;
    let mut out = vec![0u32; 4 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut out);
    run1(&k, &args, n as u64, 8);
    let s3 = |v: u64| -> i32 {
        let v = (v & 7) as i32;
        if v >= 4 {
            v - 8
        } else {
            v
        }
    };
    for g in 0..n as u64 {
        let phi = [10, 20, 30, 40][(g & 3) as usize];
        let sext = s3(g + 3) as u32;
        let q = s3(u64::from((s3(g) / -3) as u32)) as u32;
        let lt = u32::from(s3(g) < 0);
        assert_eq!(
            &out[4 * g as usize..4 * g as usize + 4],
            &[phi, sext, q, lt],
            "{g}"
        );
    }
}

const VADD: &str = r#"
    kernel void vadd(global const float *a, global const float *b, global float *c) {
        size_t i = get_global_id(0);
        c[i] = a[i] + b[i];
    }"#;

#[test]
fn truncated_and_garbage_input_is_an_error() {
    let Some(spv) = cl_to_spirv(VADD) else { return };
    assert!(Module::from_spirv(&spv).is_ok());
    for len in (0..spv.len()).step_by(4).chain([1, 2, 3, 5, 7]) {
        // Cutting at an instruction boundary can leave a valid module; anything else
        // must be an error, and nothing may panic.
        let r = Module::from_spirv(&spv[..len]);
        if let Ok(m) = r {
            for k in m.kernels().to_vec() {
                let _ = m.compile_kernel(&k.name);
            }
        }
    }
    let mut seed = 0x1234_5678u32;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    for _ in 0..300 {
        // Flip words in the body (keep the header so rspirv gets past it).
        let mut words: Vec<u32> = spv
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        for _ in 0..3 {
            let i = 5 + (rnd() as usize) % (words.len() - 5);
            words[i] = match rnd() % 3 {
                0 => rnd(),
                1 => words[i] ^ (1 << (rnd() % 32)),
                _ => rnd() % 64,
            };
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        if let Ok(m) = Module::from_spirv(&bytes) {
            for k in m.kernels().to_vec() {
                let _ = m.compile_kernel(&k.name);
            }
        }
    }
    let garbage: Vec<u8> = (0..400).map(|i| (i * 37 % 251) as u8).collect();
    assert!(matches!(
        Module::from_spirv(&garbage),
        Err(CompileError::Malformed(_))
    ));
    assert!(Module::from_spirv(&[]).is_err());
}

/// Build `bytes` and compile every kernel, as the fuzz target (`compiler/fuzz`) does: any
/// outcome but a panic is fine. `Module` turns panics into `CompileError::Codegen("compiler
/// panicked: ...")`, so that error counts as a failure here.
fn build_never_panics(bytes: &[u8]) -> Result<(), CompileError> {
    let check = |e: CompileError| {
        if let CompileError::Codegen(m) = &e {
            assert!(!m.starts_with("compiler panicked"), "{m}");
        }
        e
    };
    let m = Module::from_spirv(bytes).map_err(check)?;
    for k in m.kernels().to_vec() {
        m.compile_kernel(&k.name).map_err(check)?;
    }
    Ok(())
}

#[test]
fn fuzz_seed_corpus_compiles() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    let mut n = 0;
    for e in std::fs::read_dir(dir).expect("fuzz/seeds") {
        let p = e.unwrap().path();
        let bytes = std::fs::read(&p).unwrap();
        assert!(
            bytes.len() <= 10 * 1024,
            "{}: seeds stay small",
            p.display()
        );
        build_never_panics(&bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        n += 1;
    }
    assert!(n >= 5, "seed corpus missing");
}

/// Inputs the fuzzer (`compiler/fuzz`) found crashing the compiler, checked in under
/// `tests/kernels/fuzz-*.spv`: each must now fail cleanly.
#[test]
fn fuzz_regressions_fail_cleanly() {
    // A mutated `atomics` seed with an instruction whose result id is 0xffffffff: region
    // splitting (barrier kernels) computed `max id + 1` and overflowed.
    let spv = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/kernels/fuzz-id-max-overflow.spv"),
    )
    .unwrap();
    assert!(build_never_panics(&spv).is_err());
}

#[test]
fn bad_ids_are_errors() {
    let src = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %main "bad"
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
     %ptr_cw = OpTypePointer CrossWorkgroup %uint
       %fnty = OpTypeFunction %void %ptr_cw
       %main = OpFunction %void None %fnty
        %out = OpFunctionParameter %ptr_cw
      %entry = OpLabel
          %x = OpIAdd %uint %out %void
               OpStore %out %x
               OpReturn
               OpFunctionEnd
    "#;
    let Some(spv) = spvasm(src) else { return };
    let m = Module::from_spirv(&spv).expect("parses");
    assert!(m.compile_kernel("bad").is_err());
    assert!(matches!(
        m.compile_kernel("nope"),
        Err(CompileError::NoSuchKernel(_))
    ));
}

#[test]
fn barrier_kernel_compiles_to_regions() {
    let src = r#"
        kernel void k(global int *out, local int *tmp) {
            int l = get_local_id(0);
            tmp[l] = l;
            barrier(CLK_LOCAL_MEM_FENCE);
            out[get_global_id(0)] = tmp[(l + 1) % get_local_size(0)];
        }"#;
    let Some(spv) = cl_to_spirv(src) else { return };
    let k = harness::kernel_from_spirv(&spv, "k");
    assert!(k.frame_size_per_item > 0, "a barrier kernel keeps a frame");
}

#[test]
fn device_scope_collective_is_rejected_with_a_clear_error() {
    let src = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Groups
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "k"
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
        %ptr = OpTypePointer CrossWorkgroup %uint
         %fn = OpTypeFunction %void %ptr
         %u1 = OpConstant %uint 1
          %k = OpFunction %void None %fn
          %p = OpFunctionParameter %ptr
          %e = OpLabel
          %v = OpLoad %uint %p
          %r = OpGroupIAdd %uint %u1 Reduce %v
               OpStore %p %r
               OpReturn
               OpFunctionEnd
    "#;
    let Some(spv) = spvasm(src) else { return };
    let m = Module::from_spirv(&spv).unwrap_or_else(|e| panic!("{e}"));
    match m.compile_kernel("k") {
        Err(CompileError::Unsupported(msg)) => {
            assert!(msg.contains("GroupIAdd") && msg.contains("scope"), "{msg}")
        }
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("device-scope collective accepted"),
    }
}

#[test]
fn unsupported_capability_is_rejected() {
    let src = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability DeviceEnqueue
               OpMemoryModel Physical64 OpenCL
    "#;
    let Some(spv) = spvasm(src) else { return };
    assert!(matches!(
        Module::from_spirv(&spv),
        Err(CompileError::UnsupportedCapability(c)) if c == "DeviceEnqueue"
    ));
}

/// Images are supported in the kinds OpenCL has; a cube map is refused by name.
#[test]
fn cube_images_are_rejected() {
    let src = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability ImageBasic
               OpMemoryModel Physical64 OpenCL
       %void = OpTypeVoid
       %cube = OpTypeImage %void Cube 0 0 0 0 Unknown ReadOnly
    "#;
    let Some(spv) = spvasm(src) else { return };
    match Module::from_spirv(&spv) {
        Err(CompileError::Unsupported(m)) => assert!(m.contains("Cube"), "{m}"),
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("a cube image was accepted"),
    }
}

/// A module asking for gigabytes of program-scope memory is refused, not allocated (found by
/// the fuzzer: a 2e9-element array made the compiler allocate 8 GB).
#[test]
fn huge_program_scope_variables_are_refused() {
    let src = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "k"
       %uint = OpTypeInt 32 0
          %n = OpConstant %uint 2000000000
        %arr = OpTypeArray %uint %n
        %ptr = OpTypePointer CrossWorkgroup %arr
          %g = OpVariable %ptr CrossWorkgroup
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
          %k = OpFunction %void None %fn
          %l = OpLabel
               OpReturn
               OpFunctionEnd
    "#;
    let Some(spv) = spvasm(src) else { return };
    match Module::from_spirv(&spv) {
        Err(CompileError::Unsupported(m)) => assert!(m.contains("program-scope"), "{m}"),
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("an 8 GB program-scope array was accepted"),
    }
}

/// `CL_KERNEL_ATTRIBUTES` as clang prints them, from `OpExecutionMode VecTypeHint`,
/// `LocalSizeHint` and `LocalSize` (CTS `api kernel_attributes`).
#[test]
fn kernel_attributes_from_execution_modes() {
    let src = r#"
        __attribute__((vec_type_hint(uchar2))) __attribute__((work_group_size_hint(2, 3, 4)))
        __attribute__((reqd_work_group_size(1, 1, 1)))
        kernel void all3(global int *o) { o[0] = 1; }
        __attribute__((vec_type_hint(double16))) kernel void d(global int *o) { o[0] = 1; }
        __attribute__((vec_type_hint(half3))) kernel void h(global int *o) { o[0] = 1; }
        __attribute__((vec_type_hint(float))) kernel void f(global int *o) { o[0] = 1; }
        __attribute__((vec_type_hint(ulong8))) kernel void l(global int *o) { o[0] = 1; }
        __attribute__((vec_type_hint(ushort4))) kernel void s(global int *o) { o[0] = 1; }
        kernel void none(global int *o) { o[0] = 1; }"#;
    let Some(spv) = cl_to_spirv_with(src, "-O2", &["-cl-ext=+cl_khr_fp16,+cl_khr_fp64"], "") else {
        return;
    };
    let m = Module::from_spirv(&spv).expect("from_spirv");
    let attrs = |name: &str| {
        m.kernels()
            .iter()
            .find(|k| k.name == name)
            .map(|k| k.attributes.clone())
            .unwrap_or_else(|| panic!("no kernel {name}"))
    };
    assert_eq!(
        attrs("all3"),
        "vec_type_hint(uchar2) reqd_work_group_size(1,1,1) work_group_size_hint(2,3,4)"
    );
    assert_eq!(attrs("d"), "vec_type_hint(double16)");
    assert_eq!(attrs("h"), "vec_type_hint(half3)");
    assert_eq!(attrs("f"), "vec_type_hint(float)");
    assert_eq!(attrs("l"), "vec_type_hint(ulong8)");
    assert_eq!(attrs("s"), "vec_type_hint(ushort4)");
    assert_eq!(attrs("none"), "");
}

#[test]
fn kernel_info_names_types_qualifiers_attributes() {
    let src = r#"
        typedef struct { float a; int b; } S;
        kernel void __attribute__((reqd_work_group_size(16, 1, 1)))
        q(global const float *restrict a, volatile global int *b, constant float *c,
          S s, float3 v, local int *l) {
            b[0] = a[0] + c[0] + s.a + v.x + l[0];
        }"#;
    let Some(spv) = cl_to_spirv(src) else { return };
    let m = Module::from_spirv(&spv).expect("from_spirv");
    let k = &m.kernels()[0];
    assert_eq!(k.name, "q");
    assert_eq!(k.reqd_work_group_size, Some([16, 1, 1]));
    assert_eq!(k.attributes, "reqd_work_group_size(16,1,1)");
    let names: Vec<&str> = k.args.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "s", "v", "l"]);
    let types: Vec<&str> = k.args.iter().map(|a| a.type_name.as_str()).collect();
    assert_eq!(types, ["float*", "int*", "float*", "S", "float3", "int*"]);
    let quals: Vec<u64> = k.args.iter().map(|a| a.type_qualifiers).collect();
    assert_eq!(quals, [1 | 2, 4, 1, 0, 0, 0]);
    let kinds: Vec<ArgKind> = k.args.iter().map(|a| a.kind.clone()).collect();
    assert_eq!(
        kinds,
        [
            ArgKind::Buffer {
                space: AddressSpace::Global
            },
            ArgKind::Buffer {
                space: AddressSpace::Global
            },
            ArgKind::Buffer {
                space: AddressSpace::Constant
            },
            ArgKind::Value { size: 8 },
            ArgKind::Value { size: 16 },
            ArgKind::Local,
        ]
    );
    let offsets: Vec<usize> = k.args.iter().map(|a| a.offset).collect();
    assert_eq!(offsets, [0, 8, 16, 24, 32, 48]);
    assert_eq!(k.args_size, 56);
}

/// `OpCopyLogical` (SPIR-V 1.4) between a laid-out struct and one without offsets, and
/// `OpExpectKHR`/`OpAssumeTrueKHR` (`SPV_KHR_expect_assume`), which must not change results.
const COPY_LOGICAL_EXPECT: &str = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability ExpectAssumeKHR
               OpExtension "SPV_KHR_expect_assume"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "k" %gid
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %gid Constant
               OpMemberDecorate %laid 0 Offset 0
               OpMemberDecorate %laid 1 Offset 4
       %void = OpTypeVoid
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
    %v3ulong = OpTypeVector %ulong 3
     %in_ptr = OpTypePointer Input %v3ulong
       %laid = OpTypeStruct %uint %uint
      %plain = OpTypeStruct %uint %uint
        %ptr = OpTypePointer CrossWorkgroup %uint
         %fn = OpTypeFunction %void %ptr
        %gid = OpVariable %in_ptr Input
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_3 = OpConstant %uint 3
          %k = OpFunction %void None %fn
        %out = OpFunctionParameter %ptr
      %entry = OpLabel
        %ids = OpLoad %v3ulong %gid Aligned 32
       %i64 = OpCompositeExtract %ulong %ids 0
          %i = OpUConvert %uint %i64
      %small = OpULessThan %bool %i %uint_3
               OpAssumeTrueKHR %small
       %hint = OpExpectKHR %uint %i %uint_0
          %s = OpCompositeConstruct %laid %hint %uint_3
          %c = OpCopyLogical %plain %s
          %a = OpCompositeExtract %uint %c 0
          %b = OpCompositeExtract %uint %c 1
        %sum = OpIMul %uint %a %b
       %slot = OpInBoundsPtrAccessChain %ptr %out %i64
               OpStore %slot %sum Aligned 4
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn copy_logical_and_expect_assume() {
    let Some(spv) = spvasm(COPY_LOGICAL_EXPECT) else {
        return;
    };
    let k = harness::kernel_from_spirv(&spv, "k");
    let mut out = vec![0u32; 3];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut out);
    run1(&k, &args, 3, 3);
    assert_eq!(out, vec![0, 3, 6]);
}

/// SPIR-V 1.6's `Uniform` decoration on a constant, a parameter and a result (the CTS's
/// spirv16_uniformdecoration shape): accepted and without effect on the result.
const UNIFORM_DECORATION: &str = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability UniformDecoration
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "k" %gid
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %gid Constant
               OpDecorate %uint_1 Uniform
               OpDecorate %value Uniform
               OpDecorate %sum Uniform
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
    %v3ulong = OpTypeVector %ulong 3
     %in_ptr = OpTypePointer Input %v3ulong
        %ptr = OpTypePointer CrossWorkgroup %uint
         %fn = OpTypeFunction %void %ptr %uint
        %gid = OpVariable %in_ptr Input
     %uint_1 = OpConstant %uint 1
          %k = OpFunction %void None %fn
        %out = OpFunctionParameter %ptr
      %value = OpFunctionParameter %uint
      %entry = OpLabel
        %ids = OpLoad %v3ulong %gid Aligned 32
          %i = OpCompositeExtract %ulong %ids 0
        %sum = OpIAdd %uint %value %uint_1
       %slot = OpInBoundsPtrAccessChain %ptr %out %i
               OpStore %slot %sum Aligned 4
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn uniform_decoration_of_spirv_1_6() {
    let Some(spv) = spvasm_for(UNIFORM_DECORATION, "spv1.6") else {
        return;
    };
    assert_eq!(spv[4..8], [0, 6, 1, 0], "a SPIR-V 1.6 module");
    let k = harness::kernel_from_spirv(&spv, "k");
    let mut out = vec![0u32; 4];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut out).val(1, 41u32);
    run1(&k, &args, 4, 4);
    assert_eq!(out, vec![42; 4]);
}
