//! The fast shapes of a work-group function against the reference shapes they must agree
//! with: a kernel is translated inside the work-item loop nest (ids from the loop
//! counters, the group's geometry loaded once, calls inlined), a kernel with barriers has
//! its step translated inside the region loop; the reference calls the kernel's own
//! function once per work-item, or its step function once per work-item and region
//! (`Module::compile_kernel_reference`). Each case runs
//! both over the same NDRange (1-, 2- and 3-D, offsets, partial last groups) and compares
//! every output word.

#[path = "common/harness.rs"]
mod harness;

use ferrite_compiler::Module;
use harness::{cl_to_spirv, run, Args, Kernel};

/// Both shapes of kernel `name`, each run alone (this file compares them itself, also
/// under `FERRITE_TESTS_NO_DIFF=1`); `None` if a tool is missing and skipping is allowed.
fn both(src: &str, name: &str) -> Option<(Kernel, Kernel)> {
    let spv = cl_to_spirv(src)?;
    let m = Module::from_spirv(&spv).unwrap_or_else(|e| panic!("from_spirv: {e}"));
    let fast = m
        .compile_kernel(name)
        .unwrap_or_else(|e| panic!("compile_kernel({name}): {e}"));
    let reference = m
        .compile_kernel_reference(name)
        .unwrap_or_else(|e| panic!("compile_kernel_reference({name}): {e}"));
    let why = "exec_fast_paths compares the shapes itself";
    Some((Kernel::alone(fast, why), Kernel::alone(reference, why)))
}

/// The initial contents of `out`: words from 192 on hold small floats, the others a
/// hash of their index (unwritten words compare too).
fn initial(words: usize) -> Vec<u32> {
    (0..words)
        .map(|i| {
            if i >= 192 {
                (i as f32 * 0.37 - 20.0).to_bits()
            } else {
                (i as u32).wrapping_mul(0x9e37_79b9)
            }
        })
        .collect()
}

/// Run `k(global uint *out, uint n)` over the NDRange and return `out` (`words` words,
/// starting as [`initial`]).
fn run_out(
    k: &Kernel,
    words: usize,
    dim: u64,
    global: [u64; 3],
    local: [u64; 3],
    offset: [u64; 3],
) -> Vec<u32> {
    let mut out = initial(words);
    let mut args = Args::new(&k.info);
    args.buf(0, &mut out);
    args.val(1, words as u32);
    // A third argument is a `local uint *` of one word per work-item of a group.
    let items = (local[0] * local[1] * local[2]) as usize;
    let lmem = if k.info.args.len() > 2 {
        args.local(2, 0);
        4 * items
    } else {
        0
    };
    run(k, &args, dim, global, local, offset, lmem);
    out
}

/// An NDRange: `(work_dim, global size, local size, global offset)`.
type Shape = (u64, [u64; 3], [u64; 3], [u64; 3]);

/// Compare both shapes of `name` over each geometry.
fn compare(src: &str, name: &str, words: usize, shapes: &[Shape]) {
    let Some((fast, reference)) = both(src, name) else {
        return;
    };
    for &(dim, global, local, offset) in shapes {
        let a = run_out(&fast, words, dim, global, local, offset);
        let b = run_out(&reference, words, dim, global, local, offset);
        assert_ne!(a, initial(words), "{name} {global:?}: nothing written");
        if let Some(i) = (0..words).find(|&i| a[i] != b[i]) {
            panic!(
                "{name} {global:?}/{local:?}+{offset:?}: word {i}: fast {:#x}, reference {:#x}",
                a[i], b[i]
            );
        }
    }
}

const SHAPES: &[Shape] = &[
    (1, [37, 1, 1], [8, 1, 1], [0, 0, 0]),
    (1, [64, 1, 1], [16, 1, 1], [5, 0, 0]),
    (2, [9, 7, 1], [4, 3, 1], [2, 3, 0]),
    (3, [5, 4, 3], [2, 3, 2], [1, 2, 3]),
    (3, [4, 4, 4], [4, 4, 4], [0, 0, 0]),
];

/// Every work-item builtin, written at the work-item's linear global index.
#[test]
fn builtins_agree() {
    let src = r#"
        kernel void ids(global uint *out, uint n) {
            size_t lin = get_global_linear_id();
            if (8 * lin + 8 > n) return;
            global uint *o = out + 8 * lin;
            o[0] = get_global_id(0) + 1000 * get_global_id(1) + 1000000 * get_global_id(2);
            o[1] = get_local_id(0) + 100 * get_local_id(1) + 10000 * get_local_id(2);
            o[2] = get_group_id(0) + 100 * get_group_id(1) + 10000 * get_group_id(2);
            o[3] = get_local_size(0) + 100 * get_local_size(1) + 10000 * get_local_size(2);
            o[4] = get_enqueued_local_size(0) + 100 * get_enqueued_local_size(1)
                 + 10000 * get_num_groups(2) + 1000000 * get_work_dim();
            o[5] = get_global_size(0) + 100 * get_global_size(1) + 10000 * get_global_size(2);
            o[6] = get_local_linear_id();
            o[7] = get_global_offset(0) + 100 * get_global_offset(1) + 10000 * get_global_offset(2);
        }"#;
    compare(src, "ids", 8 * 64, SHAPES);
}

/// Early returns, loops with phis, a private array, vectors, and a helper function that
/// reads the work-item's ids through the record (so the inlined loop must keep it).
#[test]
fn control_flow_private_memory_and_calls_agree() {
    let src = r#"
        __attribute__((noinline)) uint helper(uint x) {
            return x * 3u + (uint)get_global_id(0) + 7u * (uint)get_local_id(1);
        }
        kernel void mix(global uint *out, uint n) {
            size_t g = get_global_linear_id();
            if (g >= n / 2) return;
            uint priv[8];
            for (uint i = 0; i < 8; i++) priv[i] = (uint)g * i + get_local_id(0);
            uint acc = 0;
            for (uint i = 0; i < (uint)(g % 8); i++) {
                if (priv[i] & 1) acc += priv[(i + 3) % 8]; else acc ^= helper(i);
            }
            uint4 v = (uint4)(acc, (uint)g, get_group_id(0), get_local_size(0));
            v = v * (uint4)(3, 5, 7, 11) + v.wzyx;
            out[2 * g] = v.x ^ v.y;
            out[2 * g + 1] = v.z + v.w + helper(acc);
        }"#;
    compare(src, "mix", 2 * 64, SHAPES);
}

/// A loop whose trip count differs per work-item (mandelbrot-like), over 2-D.
#[test]
fn divergent_loops_agree() {
    let src = r#"
        kernel void m(global uint *out, uint n) {
            uint x = get_global_id(0) - get_global_offset(0);
            uint y = get_global_id(1) - get_global_offset(1);
            uint w = get_global_size(0);
            float cr = -2.0f + 3.0f * x / w, ci = -1.5f + 3.0f * y / w;
            float zr = 0.0f, zi = 0.0f;
            uint k = 0;
            while (k < 50 && zr * zr + zi * zi < 4.0f) {
                float t = zr * zr - zi * zi + cr;
                zi = 2.0f * zr * zi + ci;
                zr = t;
                k++;
            }
            if (y * w + x < n) out[y * w + x] = k;
        }"#;
    compare(
        src,
        "m",
        64,
        &[
            (2, [8, 8, 1], [3, 5, 1], [0, 0, 0]),
            (2, [8, 8, 1], [8, 8, 1], [4, 9, 0]),
        ],
    );
}

/// Barriers in a loop with a helper call in a region, a collective, and values live across
/// boundaries (a tree reduction in local memory), over partial groups and 2-D/3-D.
#[test]
fn barrier_kernels_agree() {
    let src = r#"
        __attribute__((noinline)) uint twice(uint x) { return 2u * x + (uint)get_local_id(0); }
        kernel void red(global uint *out, uint n, local uint *scratch) {
            uint l = get_local_linear_id();
            uint size = get_local_size(0) * get_local_size(1) * get_local_size(2);
            uint g = get_global_linear_id();
            uint mine = twice(g) ^ (l * 7u);
            scratch[l] = mine;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint s = 1; s < size; s <<= 1) {
                uint other = (l + s < size) ? scratch[l + s] : 0u;
                barrier(CLK_LOCAL_MEM_FENCE);
                scratch[l] += other;
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            uint total = work_group_reduce_add(mine);
            if (2 * g + 1 < n) {
                out[2 * g] = scratch[l] + mine;
                out[2 * g + 1] = total + twice(l);
            }
        }"#;
    compare(src, "red", 2 * 64, SHAPES);
}

/// Straight-line kernels, which also get the vector loop (four work-items along x at a
/// time, the scalar loop finishing each row): consecutive, strided and uniform accesses,
/// 32- and 64-bit integer arithmetic on ids, float arithmetic with `mad` and `fma`, a
/// helper function, casts between pointer types.
#[test]
fn straight_line_kernels_agree() {
    let src = r#"
        float helper(float x, float y) { return x * 0.5f - y; }
        kernel void lin(global uint *out, uint n) {
            size_t i = get_global_id(0) - get_global_offset(0)
                     + get_global_size(0) * (get_global_id(1) - get_global_offset(1)
                     + get_global_size(1) * (get_global_id(2) - get_global_offset(2)));
            global float *f = (global float *)(out + 192);
            uint u = out[i] * 3u + (uint)i + get_local_id(0) * 7u + (uint)get_group_id(1);
            float a = f[i];
            float r = mad(a, 1.5f, f[i + 1]) / 3.0f + fma(a, a, -2.0f) - helper(a, f[n - 200]);
            out[i + 64] = u - out[n - 1] + (uint)get_local_size(0);
            f[i] = -r;
            out[2 * i + 128] = (uint)(get_global_id(0) * 5 + get_enqueued_local_size(0));
        }"#;
    compare(src, "lin", 512, SHAPES);
}

/// The harness's comparison of shapes itself: a launch runs the reference shape on the
/// inputs, puts the inputs back and runs the default shape, so a read-modify-write kernel
/// acts once; and two kernels that write different results are reported.
#[test]
fn harness_restores_inputs_and_reports_differences() {
    let src = r#"
        kernel void inc(global uint *out, uint n) { out[get_global_id(0)] += n; }
        kernel void inc2(global uint *out, uint n) { out[get_global_id(0)] += n + 1; }"#;
    let Some(spv) = cl_to_spirv(src) else {
        return;
    };
    let run_inc = |k: &Kernel| {
        let mut out: Vec<u32> = (0..16).collect();
        let mut args = Args::new(&k.info);
        args.buf(0, &mut out).val(1, 100u32);
        run(k, &args, 1, [16, 1, 1], [4, 1, 1], [0; 3], 0);
        out
    };
    let k = harness::kernel_from_spirv(&spv, "inc");
    assert_eq!(run_inc(&k), (100..116).collect::<Vec<u32>>());
    let m = Module::from_spirv(&spv).unwrap_or_else(|e| panic!("from_spirv: {e}"));
    let compile = |name| {
        m.compile_kernel(name)
            .unwrap_or_else(|e| panic!("compile_kernel({name}): {e}"))
    };
    let wrong = Kernel::pair(compile("inc"), compile("inc2"));
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_inc(&wrong)))
        .expect_err("a difference between the shapes must fail the launch");
    let msg = err
        .downcast_ref::<String>()
        .map(String::as_str)
        .unwrap_or_default();
    assert!(
        msg.contains("argument 0 differs") && msg.contains("reference 0x00000065"),
        "{msg}"
    );
}
