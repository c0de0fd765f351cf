//! Tests of [`super::arg_info`] (a file of its own: the compiler tests include
//! `arg_info.rs` itself and would run these again).

use super::arg_info::{add_strings, arg_strings, ir_args};

const IR: &str = r#"
define spir_kernel void @k(ptr addrspace(1) noundef align 4 %0, i32 %1) #0 !kernel_arg_addr_space !8 !kernel_arg_access_qual !9 !kernel_arg_type !10 !kernel_arg_base_type !13 !kernel_arg_type_qual !11 !kernel_arg_name !12 {
define spir_func void @__clang_ocl_kern_imp_k(ptr addrspace(1) %0, i32 %1) #1 !kernel_arg_type !10 {
define spir_kernel void @"odd name"() #0 !kernel_arg_type !14 !kernel_arg_type_qual !14 {
!10 = !{!"float*", !"my\5Cint"}
!11 = !{!"const volatile", !""}
!13 = !{!"float*", !"int"}
!14 = !{}
"#;

#[test]
fn kernel_metadata_becomes_llvm_spirv_strings() {
    assert_eq!(
        arg_strings(IR),
        [
            "kernel_arg_type.k.float*,my\\int,",
            "kernel_arg_type_qual.k.const volatile,,",
            "kernel_arg_type.odd name.",
            "kernel_arg_type_qual.odd name.",
        ]
    );
}

#[test]
fn ir_run_replaces_the_object_output() {
    let args: Vec<String> = ["-c", "--target=spirv64", "-O2", "-", "-o", "/s/program.spv"]
        .map(String::from)
        .to_vec();
    let ll = std::path::Path::new("/s/program.ll");
    assert_eq!(
        ir_args(&args, ll),
        [
            "-S",
            "-emit-llvm",
            "-Xclang",
            "-disable-llvm-passes",
            "--target=spirv64",
            "-O2",
            "-",
            "-o",
            "/s/program.ll"
        ]
    );
}

#[test]
fn strings_go_after_the_entry_points_on_new_ids() {
    // Header (bound 10), OpCapability Kernel, OpMemoryModel, OpName %1 "a".
    let words: [u32; 12] = [
        0x0723_0203,
        0x0001_0400,
        0,
        10,
        0,
        (2 << 16) | 17,
        6,
        (3 << 16) | 14,
        2,
        2,
        (3 << 16) | 5,
        1,
    ];
    let mut module: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    module.extend(u32::from_le_bytes(*b"a\0\0\0").to_le_bytes());
    let out = add_strings(&module, &["abcd".to_string()]);
    let w: Vec<u32> = out
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(w[3], 11, "the bound grows by one");
    // OpString %10 "abcd\0" (two words of text) right after the memory model.
    assert_eq!(
        &w[10..14],
        &[(4 << 16) | 7, 10, u32::from_le_bytes(*b"abcd"), 0]
    );
    assert_eq!(w[14], (3 << 16) | 5, "OpName follows");
    assert_eq!(out.len(), module.len() + 16);
}
