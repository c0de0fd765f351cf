//! SPIR-V from clang's own SPIR-V target (clang 20 and newer), which leaves some OpenCL C
//! built-ins as calls to imported functions named by their mangled names: the OpenCL 1.x
//! atomics `inc`, `dec`, `min`, `max`, `xchg`, the C11 `atomic_fetch_min`/`max`
//! (`_explicit` too, integer and float), conversions to `double` and `half` with rounding
//! modes, `mem_fence` and its read/write forms, `sub_group_barrier`, `to_global`,
//! `to_local`, `to_private` and `get_fence`. Ferrite rewrites those calls into the
//! instructions llvm-spirv emits for them (`compiler/src/spirv/library.rs`). The module is
//! checked in as clang-22 made it (`tests/kernels/clang22_builtins.cl` says how), so the
//! test needs no clang.

#[path = "common/harness.rs"]
mod harness;

use harness::{run1_local, Args, TestModule};

#[test]
fn builtins_clang_leaves_as_calls_run() {
    let spv = include_bytes!("kernels/clang22_builtins.spv");
    let m = TestModule::new(spv);
    let k = m.kernel("k");
    let n = 8usize;
    let big: i64 = (1 << 60) + 1;
    let mut gi: Vec<i32> = vec![0, 100, -5, 5, 0, 0];
    let mut gu: Vec<u32> = vec![0, 100];
    let mut gl: Vec<i64> = vec![0, 0, 0];
    let mut gul: Vec<u64> = vec![0];
    let mut gf: Vec<f32> = vec![0.0];
    let mut ai: Vec<i32> = vec![0, 0];
    let mut af: Vec<f32> = vec![0.0, 0.0];
    let mut cv: Vec<i64> = vec![0; 10];
    cv[0] = big;
    // 12345 / 16 = 771.5625, between the halves 771.5 and 772 (half's step there is 0.5).
    cv[9] = 12345;
    let mut out = vec![0i32; 25];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut gi)
        .buf(1, &mut gu)
        .buf(2, &mut gl)
        .buf(3, &mut gul)
        .buf(4, &mut gf)
        .buf(5, &mut ai)
        .buf(6, &mut af)
        .buf(7, &mut cv)
        .buf(8, &mut out)
        .local(9, 0);
    run1_local(&k, &args, n as u64, n as u64, 64);

    // OpenCL 1.x atomics, global and local, 32- and 64-bit, signed and unsigned.
    assert_eq!(gi, [8, 92, 7, -7, 7, 0]);
    assert_eq!(gu, [21, 5]);
    assert_eq!(gl, [8, -8, -(7 << 40)]);
    assert_eq!(gul, [7 << 40]);
    assert_eq!(gf, [2.5]);
    // C11 atomics on generic pointers, plain and explicit, integer and float.
    assert_eq!(ai, [14, -7]);
    assert_eq!(af, [-3.5, 3.5]);
    // sub_group_barrier orders the local stores of a sub-group's work-items.
    let swapped: Vec<i32> = (0..n as i32).map(|i| (i ^ 1) * 10).collect();
    assert_eq!(out[..8], swapped[..]);
    // to_global / to_local / to_private and get_fence: odd work-items point into global
    // memory (1 | CLK_GLOBAL_MEM_FENCE << 4), even ones into local (2 | CLK_LOCAL << 4).
    let spaces: Vec<i32> = (0..n).map(|i| if i % 2 == 1 { 33 } else { 18 }).collect();
    assert_eq!(out[8..16], spaces[..]);
    assert_eq!(out[16], 8, "atomic_inc on local memory");
    // convert_double_rtz/rtp of 2^60 + 1: 2^60 and 2^60 + 256 (the double step there).
    let conv: Vec<i64> = (0..n as i64).map(|i| -256 * (i + 1) + i / 4).collect();
    assert_eq!(cv[1..9], conv[..]);
    // convert_half_rtz and _rtp of 771.5625 + i: one half step apart.
    assert_eq!(out[17..25], [-1; 8]);
}

/// clang-22's async copies: the null event is an `OpConstantNull` with stray operands
/// (`spirv-val` rejects the module; Ferrite drops them), and the copy out of `local int
/// t2[16]` passes a pointer to the whole array, whose elements Ferrite takes to be the
/// array's `int`s (64-byte elements ran 3 KiB past the buffer).
#[test]
fn async_copies_of_a_local_array() {
    let spv = include_bytes!("kernels/clang22_builtins.spv");
    let m = TestModule::new(spv);
    let k = m.kernel("copies");
    let stride = 3usize;
    let mut s2: Vec<i32> = (0..16 * stride as i32).map(|i| i * 7).collect();
    // Room past the 48 elements the copy may touch, to see a write beyond them.
    let mut d2 = vec![-1i32; 2048];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut s2).buf(1, &mut d2).val(2, stride as i32);
    run1_local(&k, &args, 16, 16, 0);
    let want: Vec<i32> = (0..2048)
        .map(|i| {
            if i < 16 * stride && i % stride == 0 {
                i as i32 * 7 + 1
            } else {
                -1
            }
        })
        .collect();
    assert_eq!(d2, want);
}
