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

/// clang-22 types a `global char2 *` parameter as a pointer to a one-element vector,
/// invalid SPIR-V Ferrite reads as the element type (`compiler/src/spirv.rs`); CTS
/// relationals' shuffle kernels are of this shape.
#[test]
fn one_element_vector_pointers_read_as_their_element() {
    let spv = include_bytes!("kernels/clang22_one_lane_vectors.spv");
    let m = TestModule::new(spv);
    let k = m.kernel("k");
    let mut source: Vec<i8> = (1..=8).collect();
    let mut dest = vec![-1i8; 6];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut source).buf(1, &mut dest);
    harness::run1(&k, &args, 1, 1);
    // tmp.s1 = source[0].x; tmp.s2 = source[3].y (the eighth char).
    assert_eq!(dest, [0, 1, 0, 0, 0, 8]);
}

/// clang-22 writes `any`/`all` of integers as `OpAny`/`OpAll` on the integers; Ferrite
/// tests their top bits (`compiler/src/spirv/any_all.rs`). Components that are non-zero
/// with the top bit clear tell the two readings apart.
#[test]
fn any_and_all_of_integers_test_the_top_bits() {
    let spv = include_bytes!("kernels/clang22_any_all.spv");
    let m = TestModule::new(spv);
    let k = m.kernel("k");
    let mut c: Vec<i8> = vec![1, -1, 0, 5, -1, -2, -3, -128];
    let mut i: Vec<i32> = vec![0x7fff_ffff, 1];
    let mut l: Vec<i64> = vec![-5, -6, 1, 2];
    let mut s: Vec<i16> = vec![-3];
    let mut out = vec![-1i32; 12];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut c)
        .buf(1, &mut i)
        .buf(2, &mut l)
        .buf(3, &mut s)
        .buf(4, &mut out);
    harness::run1(&k, &args, 1, 1);
    assert_eq!(out, [1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0]);
}

/// clang-22 folds `(uint)&local_var` into `OpSpecConstantOp ConvertPtrToU` to a 32-bit
/// integer: the address at run time, truncated where the function uses it.
#[test]
fn local_addresses_in_narrow_integers_are_truncated_at_run_time() {
    let spv = include_bytes!("kernels/clang22_local_address.spv");
    let m = TestModule::new(spv);
    let k = m.kernel("k");
    let mut dest = vec![0u32; 2];
    let mut wide = vec![0u64; 1];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut dest).buf(1, &mut wide);
    harness::run1(&k, &args, 1, 1);
    assert_ne!(wide[0], 0, "the local variable's address");
    assert_eq!(dest[0], wide[0] as u32);
    assert_eq!(
        dest[1],
        dest[0].wrapping_add(5),
        "vec (2 bytes), then arrPost[3]"
    );
}

/// clang-22 writes vectors of 5 and 10 components for this CTS kernel's swizzles
/// (accepted, `compiler/src/spirv.rs`; laid out as LLVM does, in the room of the next
/// power of two). Its results must be those of the same source through the translator
/// pair (the fixture).
#[test]
fn odd_sized_vectors_give_the_translator_pair_s_results() {
    let src = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/kernels/clang22_odd_vectors.cl"),
    )
    .expect("read the kernel");
    let run = |spv: &[u8]| {
        let m = TestModule::new(spv);
        let k = m.kernel("sample_test");
        let mut source: Vec<i8> = (0..64).map(|i| (i * 7 - 100) as i8).collect();
        let mut dest = vec![-1i8; 64];
        let mut args = Args::new(&k.info);
        args.buf(0, &mut source).buf(1, &mut dest);
        harness::run1(&k, &args, 1, 1);
        dest
    };
    let native = run(include_bytes!("kernels/clang22_odd_vectors.spv"));
    let Some(pair) = harness::cl_to_spirv(&src) else {
        return;
    };
    assert_eq!(native, run(&pair));
    assert!(
        native.iter().any(|b| *b != 0 && *b != -1),
        "the kernel copies bytes"
    );
}

/// Atomics of halves (`OpAtomicFAddEXT`/`FMinEXT`/`FMaxEXT`, load, store and exchange on a
/// `half`, global and local; `clang22_half_atomics.cl`): each works on the 16 bits, not on
/// 32 (before, a half's atomic was compiled as a float's and touched its neighbour).
#[test]
fn half_atomics_global_and_local() {
    let spv = include_bytes!("kernels/clang22_half_atomics.spv");
    let m = TestModule::new(spv);
    let k = m.kernel("k");
    let n = 16usize;
    // Halves of the small values used here: sign, exponent and the top 10 mantissa bits.
    let h = |x: f32| -> u16 {
        if x == 0.0 {
            return 0;
        }
        let b = x.to_bits();
        let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
        (((b >> 16) & 0x8000) | ((e as u32) << 10) | ((b >> 13) & 0x3ff)) as u16
    };
    let v: Vec<f32> = (0..n).map(|i| (i as f32 - 7.5) * 0.5).collect();
    let mut vh: Vec<u16> = v.iter().map(|&x| h(x)).collect();
    // A sentinel after the seven halves: a 32-bit atomic on g[6] would reach it.
    let mut g: Vec<u16> = vec![0, h(1000.0), h(-1000.0), 0, h(7.0), 0, 0, 0x5555];
    let mut out = vec![0u16; 2 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut g)
        .buf(1, &mut vh)
        .buf(2, &mut out)
        .local(3, 0);
    run1_local(&k, &args, n as u64, n as u64, 64);

    assert_eq!(g[0], h(4.0), "sum of sixteen 0.25s");
    let mut olds: Vec<u16> = out[..n].to_vec();
    olds.sort_by(|a, b| half_value(*a).total_cmp(&half_value(*b)));
    let want: Vec<u16> = (0..n).map(|i| h(i as f32 * 0.25)).collect();
    assert_eq!(olds, want, "fetch_add returned each partial sum once");
    assert_eq!(g[1], h(-3.75), "global min");
    assert_eq!(g[2], h(3.75), "global max");
    assert_eq!(g[3], 0, "local sum of the values (they cancel)");
    assert_eq!(g[5], h(-3.75), "local min");
    assert_eq!(g[6], h(3.75), "local max");
    assert_eq!(g[7], 0x5555, "the half after the last one is untouched");
    let mut seen: Vec<u16> = out[n..].to_vec();
    seen.push(g[4]);
    let mut all: Vec<u16> = vh.clone();
    all.push(h(7.0));
    seen.sort_unstable();
    all.sort_unstable();
    assert_eq!(seen, all, "exchange handed each value on once");
}

/// The value of a half's bits (normal values and zero only, as the test uses).
fn half_value(b: u16) -> f32 {
    if b & 0x7fff == 0 {
        return 0.0;
    }
    let e = i32::from((b >> 10) & 0x1f) - 15 + 127;
    f32::from_bits(
        (u32::from(b & 0x8000) << 16) | ((e as u32) << 23) | (u32::from(b & 0x3ff) << 13),
    )
}
