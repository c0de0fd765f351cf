//! Checked mode with `bounds` alone (`FERRITE_CHECK=bounds`), where kernels run
//! vectorised (`compiler/src/workgroup/vector/check.rs`): one test per vector access, the
//! lanes one by one when it fails. Each planted bug is reported for the work-item that
//! made it, and a lane the kernel's own `if` switches off is never reported, even where
//! its address lies outside the buffer (the last vector of a rounded-up range).
//!
//! Ferrite-only: on another platform each test returns early.

use ferrite_tests::checked::*;
use ferrite_tests::*;
use std::sync::Once;

fn setup() -> bool {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Edition 2021: safe; runs before this process's first OpenCL call, and Ferrite
        // reads the variable when it compiles its first kernel.
        std::env::set_var("FERRITE_CHECK", "bounds");
    });
    is_ferrite()
}

#[test]
fn guarded_edge_is_not_reported_and_an_off_by_one_guard_is() {
    if !setup() {
        return;
    }
    // 61 floats, 64 work-items: the `if` switches off the last three lanes of the last
    // vector, whose addresses lie past the buffer.
    let src = r#"__kernel void edge(__global const float *in, __global float *out, int n, int d) {
        int i = get_global_id(0);
        if (i < n + d) out[i] = in[i] * 2.0f;
    }"#;
    let go = |tag, d: i32| {
        run(tag, src, "edge", 64, 16, |c, k| {
            let (a, b) = (floats(c, 61), floats(c, 61));
            k.buf(0, &a).buf(1, &b).arg(2, &61i32).arg(3, &d);
            (a, b)
        })
    };
    expect_pair(
        go(101, 1),
        go(102, 0),
        "edge",
        &[
            "out-of-bounds read of 4 bytes",
            "argument #0 `in`",
            "offset 244",
            "work-item (61, 0, 0)",
        ],
    );
}

#[test]
fn gather_through_an_index_buffer() {
    if !setup() {
        return;
    }
    let src = r#"__kernel void gather(__global const float *in, __global const int *idx,
                                      __global float *out) {
        int i = get_global_id(0);
        out[i] = in[idx[i]];
    }"#;
    let go = |tag, bad: bool| {
        run(tag, src, "gather", 64, 16, |c, k| {
            let a = floats(c, 64);
            let mut ix: Vec<i32> = (0..64).map(|i| (i * 7) % 64).collect();
            if bad {
                ix[37] = 64;
            }
            let idx = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &ix);
            let out = floats(c, 64);
            k.buf(0, &a).buf(1, &idx).buf(2, &out);
            (a, idx, out)
        })
    };
    expect_pair(
        go(103, true),
        go(104, false),
        "gather",
        &[
            "out-of-bounds read of 4 bytes",
            "argument #0 `in`",
            "offset 256",
            "work-item (37, 0, 0)",
        ],
    );
}

#[test]
fn uniform_address_past_the_end() {
    if !setup() {
        return;
    }
    let src = r#"__kernel void uni(__global const float *in, __global float *out, int k) {
        int i = get_global_id(0);
        out[i] = in[i] + in[k];
    }"#;
    let go = |tag, k: i32| {
        run(tag, src, "uni", 64, 16, |c, kk| {
            let (a, b) = (floats(c, 64), floats(c, 64));
            kk.buf(0, &a).buf(1, &b).arg(2, &k);
            (a, b)
        })
    };
    expect_pair(
        go(105, 64),
        go(106, 63),
        "uni",
        &[
            "out-of-bounds read of 4 bytes",
            "argument #0 `in`",
            "offset 256",
        ],
    );
}

#[test]
fn float4_write_past_the_end() {
    if !setup() {
        return;
    }
    let src = r#"__kernel void f4(__global const float4 *in, __global float4 *out, int d) {
        int i = get_global_id(0);
        out[i + d] = in[i] * 2.0f;
    }"#;
    let go = |tag, d: i32| {
        run(tag, src, "f4", 64, 16, |c, k| {
            let (a, b) = (floats(c, 256), floats(c, 256));
            k.buf(0, &a).buf(1, &b).arg(2, &d);
            (a, b)
        })
    };
    expect_pair(
        go(107, 1),
        go(108, 0),
        "f4",
        &[
            "out-of-bounds write of 16 bytes",
            "argument #1 `out`",
            "offset 1024",
            "work-item (63, 0, 0)",
        ],
    );
}

#[test]
fn local_tile_off_by_one_across_a_barrier() {
    if !setup() {
        return;
    }
    let src = r#"__kernel void tile(__global const float *in, __global float *out, int d) {
        __local float t[16];
        int l = get_local_id(0);
        t[l] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = t[(l + 1) % (16 + d)];
    }"#;
    let go = |tag, d: i32| {
        run(tag, src, "tile", 64, 16, |c, k| {
            let (a, b) = (floats(c, 64), floats(c, 64));
            k.buf(0, &a).buf(1, &b).arg(2, &d);
            (a, b)
        })
    };
    expect_pair(
        go(109, 1),
        go(110, 0),
        "tile",
        &[
            "out-of-bounds read of 4 bytes",
            "__local variable",
            "offset 64",
            "(local (15, 0, 0)",
        ],
    );
}

#[test]
fn private_array_with_a_varying_index() {
    if !setup() {
        return;
    }
    let src = r#"__kernel void pv(__global int *out, int m) {
        int a[8];
        int i = get_global_id(0);
        for (int k = 0; k < 8; k++) a[k] = k * i;
        out[i] = a[i % m];
    }"#;
    let go = |tag, m: i32| {
        run(tag, src, "pv", 64, 16, |c, k| {
            let a = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &[0i32; 64]);
            k.buf(0, &a).arg(1, &m);
            a
        })
    };
    expect_pair(
        go(111, 9),
        go(112, 8),
        "pv",
        &[
            "out-of-bounds read of 4 bytes",
            "private variable",
            "offset 32",
        ],
    );
}
