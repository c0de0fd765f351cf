//! Checked mode (`FERRITE_CHECK=bounds,races`): kernels with planted bugs — off-by-one
//! reads and writes on global, `__local` and private arrays, a `__constant` buffer and a
//! program-scope `__constant` array overrun, an SVM overrun, a missing barrier, a race on a
//! `__local` counter — each fail their command with a report naming the kernel, what was
//! accessed (argument or variable), the offset and the work-item; the correct version of
//! each runs with no report.
//!
//! Ferrite-only: on another platform each test returns early.

use ferrite_tests::checked::*;
use ferrite_tests::*;
use std::ffi::c_void;
use std::sync::Once;

fn setup() -> bool {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Edition 2021: safe; runs before this process's first OpenCL call, and Ferrite
        // reads the variable when it compiles its first kernel.
        std::env::set_var("FERRITE_CHECK", "bounds,races");
    });
    is_ferrite()
}

#[test]
fn global_read_past_the_end() {
    if !setup() {
        return;
    }
    let src = r#"__kernel void rd(__global const float *in, __global float *out, int d) {
        size_t i = get_global_id(0);
        out[i] = in[i + d];
    }"#;
    let go = |tag, d: i32| {
        run(tag, src, "rd", 64, 16, |c, k| {
            let (a, b) = (floats(c, 64), floats(c, 64));
            k.buf(0, &a).buf(1, &b).arg(2, &d);
            (a, b)
        })
    };
    expect_pair(
        go(1, 1),
        go(2, 0),
        "rd",
        &[
            "out-of-bounds read of 4 bytes",
            "argument #0 `in`",
            "offset 256",
            "work-item (63, 0, 0)",
        ],
    );
}

#[test]
fn global_write_past_the_end() {
    if !setup() {
        return;
    }
    let src = r#"__kernel void wr(__global float *out, int d) {
        size_t i = get_global_id(0);
        out[i + d] = 1.0f;
    }"#;
    let go = |tag, d: i32| {
        run(tag, src, "wr", 64, 16, |c, k| {
            let a = floats(c, 64);
            k.buf(0, &a).arg(1, &d);
            a
        })
    };
    expect_pair(
        go(3, 1),
        go(4, 0),
        "wr",
        &[
            "out-of-bounds write of 4 bytes",
            "argument #0 `out`",
            "offset 256",
            "work-item (63, 0, 0)",
        ],
    );
}

#[test]
fn global_read_before_the_start() {
    if !setup() {
        return;
    }
    let src = r#"__kernel void before(__global const int *in, __global int *out, int d) {
        size_t i = get_global_id(0);
        out[i] = in[(int)i - d];
    }"#;
    let go = |tag, d: i32| {
        run(tag, src, "before", 64, 16, |c, k| {
            let a = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &[1i32; 64]);
            let b = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &[0i32; 64]);
            k.buf(0, &a).buf(1, &b).arg(2, &d);
            (a, b)
        })
    };
    expect_pair(
        go(5, 1),
        go(6, 0),
        "before",
        &[
            "out-of-bounds read",
            "offset -4 of argument #0 `in`",
            "work-item (0, 0, 0)",
        ],
    );
}

#[test]
fn static_local_array_off_by_one() {
    if !setup() {
        return;
    }
    let src = r#"__kernel void lcl(__global int *out, int d) {
        __local int tile[16];
        size_t l = get_local_id(0);
        tile[l + d] = (int)l;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = tile[l];
    }"#;
    let go = |tag, d: i32| {
        run(tag, src, "lcl", 64, 16, |c, k| {
            let a = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &[0i32; 64]);
            k.buf(0, &a).arg(1, &d);
            a
        })
    };
    expect_pair(
        go(7, 1),
        go(8, 0),
        "lcl",
        &[
            "out-of-bounds write of 4 bytes",
            "offset 64",
            "__local",
            // Every work-group overruns; which one reports first is up to the
            // scheduler, so only the local id is certain.
            "(local (15, 0, 0) in work-group",
        ],
    );
}

#[test]
fn local_argument_off_by_one() {
    if !setup() {
        return;
    }
    let src = r#"__kernel void larg(__global int *out, __local int *tile, int d) {
        size_t l = get_local_id(0);
        tile[l] = (int)l;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = tile[l + d];
    }"#;
    let go = |tag, d: i32| {
        run(tag, src, "larg", 64, 16, |c, k| {
            let a = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &[0i32; 64]);
            k.buf(0, &a).local(1, 16 * 4).arg(2, &d);
            a
        })
    };
    expect_pair(
        go(9, 1),
        go(10, 0),
        "larg",
        &[
            "out-of-bounds read of 4 bytes",
            "argument #1 `tile`",
            "offset 64",
        ],
    );
}

#[test]
fn private_array_off_by_one() {
    if !setup() {
        return;
    }
    let src = r#"__kernel void priv(__global int *out, int n) {
        int a[8];
        for (int k = 0; k < 8; k++) a[k] = k * (int)get_global_id(0);
        out[get_global_id(0)] = a[n];
    }"#;
    let go = |tag, n: i32| {
        run(tag, src, "priv", 32, 16, |c, k| {
            let a = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &[0i32; 32]);
            k.buf(0, &a).arg(1, &n);
            a
        })
    };
    expect_pair(
        go(11, 8),
        go(12, 7),
        "priv",
        &[
            "out-of-bounds read of 4 bytes",
            "private variable",
            "offset 32",
        ],
    );
}

#[test]
fn constant_buffer_overrun() {
    if !setup() {
        return;
    }
    let src = r#"__kernel void cst(__constant float *c, __global float *out, int d) {
        size_t i = get_global_id(0);
        out[i] = c[i + d] * 2.0f;
    }"#;
    let go = |tag, d: i32| {
        run(tag, src, "cst", 64, 16, |c, k| {
            let (a, b) = (floats(c, 64), floats(c, 64));
            k.buf(0, &a).buf(1, &b).arg(2, &d);
            (a, b)
        })
    };
    expect_pair(
        go(13, 2),
        go(14, 0),
        "cst",
        &[
            "out-of-bounds read",
            "argument #0 `c`",
            "offset 256",
            "work-item (62, 0, 0)",
        ],
    );
}

#[test]
fn program_scope_constant_overrun() {
    if !setup() {
        return;
    }
    let src = r#"__constant int table[4] = {1, 2, 3, 4};
    __kernel void tab(__global int *out, int n) {
        out[get_global_id(0)] = table[n];
    }"#;
    let go = |tag, n: i32| {
        run(tag, src, "tab", 16, 16, |c, k| {
            let a = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &[0i32; 16]);
            k.buf(0, &a).arg(1, &n);
            a
        })
    };
    expect_pair(
        go(15, 4),
        go(16, 3),
        "tab",
        &["out-of-bounds read", "offset 16"],
    );
}

#[test]
fn svm_overrun() {
    if !setup() {
        return;
    }
    let src = r#"__kernel void svmk(__global int *p, int d) {
        size_t i = get_global_id(0);
        p[i + d] = (int)i;
    }"#;
    let go = |tag, d: i32| {
        run(tag, src, "svmk", 64, 16, |c, k| {
            // SAFETY: a live context; the allocation is freed after the launch below.
            let p = unsafe { clSVMAlloc(c.ctx.raw(), CL_MEM_READ_WRITE, 64 * 4, 0) };
            assert!(!p.is_null(), "clSVMAlloc");
            // SAFETY: a live kernel and an SVM pointer of its context.
            check(
                unsafe { clSetKernelArgSVMPointer(k.raw(), 0, p) },
                "SVM arg",
            );
            k.arg(1, &d);
            struct Free(cl_context, *mut c_void);
            impl Drop for Free {
                fn drop(&mut self) {
                    // SAFETY: the pointer came from clSVMAlloc on this context; the launch
                    // using it has finished.
                    unsafe { clSVMFree(self.0, self.1) };
                }
            }
            Free(c.ctx.raw(), p)
        })
    };
    expect_pair(
        go(17, 1),
        go(18, 0),
        "svmk",
        &[
            "out-of-bounds write",
            "argument #0 `p`",
            "offset 256",
            "work-item (63, 0, 0)",
        ],
    );
}

#[test]
fn missing_barrier_is_a_race() {
    if !setup() {
        return;
    }
    let bad = r#"__kernel void shift(__global const int *in, __global int *out) {
        __local int t[16];
        size_t l = get_local_id(0), i = get_global_id(0);
        t[l] = in[i];
        out[i] = t[(l + 1) % 16];
    }"#;
    let good = r#"__kernel void shift(__global const int *in, __global int *out) {
        __local int t[16];
        size_t l = get_local_id(0), i = get_global_id(0);
        t[l] = in[i];
        barrier(CLK_LOCAL_MEM_FENCE);
        out[i] = t[(l + 1) % 16];
    }"#;
    let go = |tag, src| {
        run(tag, src, "shift", 64, 16, |c, k| {
            let a = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &[3i32; 64]);
            let b = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &[0i32; 64]);
            k.buf(0, &a).buf(1, &b);
            (a, b)
        })
    };
    expect_pair(
        go(19, bad),
        go(20, good),
        "shift",
        &["data race on __local memory", "__local"],
    );
}

#[test]
fn race_on_a_local_counter() {
    if !setup() {
        return;
    }
    let bad = r#"__kernel void count(__global const int *in, __global int *out) {
        __local int n;
        if (get_local_id(0) == 0) n = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (in[get_global_id(0)] > 0) n++;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (get_local_id(0) == 0) out[get_group_id(0)] = n;
    }"#;
    let good = r#"__kernel void count(__global const int *in, __global int *out) {
        __local int n;
        if (get_local_id(0) == 0) n = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (in[get_global_id(0)] > 0) atomic_inc(&n);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (get_local_id(0) == 0) out[get_group_id(0)] = n;
    }"#;
    let go = |tag, src| {
        run(tag, src, "count", 64, 16, |c, k| {
            let a = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &[1i32; 64]);
            let b = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &[0i32; 4]);
            k.buf(0, &a).buf(1, &b);
            (a, b)
        })
    };
    expect_pair(
        go(21, bad),
        go(22, good),
        "count",
        // Which work-item is named depends on the order the work-items ran in (one at a
        // time, or a vector of them an instruction at a time): both are legal schedules.
        &[
            "data race on __local memory",
            "offset 0 of __local variable `count.n`",
        ],
    );
}

#[test]
fn neighbour_read_without_a_barrier_is_a_race() {
    if !setup() {
        return;
    }
    // Consecutive accesses, checked a vector of work-items at a time.
    let bad = r#"__kernel void nb(__global const float *in, __global float *out) {
        __local float t[17];
        size_t l = get_local_id(0), i = get_global_id(0);
        t[l] = in[i];
        if (l == 0) t[16] = 0.0f;
        out[i] = t[l + 1];
    }"#;
    let good = r#"__kernel void nb(__global const float *in, __global float *out) {
        __local float t[17];
        size_t l = get_local_id(0), i = get_global_id(0);
        t[l] = in[i];
        if (l == 0) t[16] = 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[i] = t[l + 1];
    }"#;
    let go = |tag, src| {
        run(tag, src, "nb", 64, 16, |c, k| {
            let (a, b) = (floats(c, 64), floats(c, 64));
            k.buf(0, &a).buf(1, &b);
            (a, b)
        })
    };
    expect_pair(
        go(23, bad),
        go(24, good),
        "nb",
        &[
            "data race on __local memory",
            "of __local variable `nb.t`",
            "written by local work-item",
        ],
    );
}

#[test]
fn reduction_without_its_first_barrier_is_a_race() {
    if !setup() {
        return;
    }
    // Lanes switched off by `l < h` are not checked; work-item 32 overwrites what work-item
    // 0 has read in the same epoch, whichever order they run in.
    let src = |sync: &str| {
        format!(
            r#"__kernel void red(__global const float *in, __global float *out,
                                 __local float *s) {{
        uint l = get_local_id(0);
        s[l] = in[get_global_id(0)];
        {sync}
        for (uint h = get_local_size(0) / 2; h > 0; h >>= 1) {{
            if (l < h) s[l] += s[l + h];
            barrier(CLK_LOCAL_MEM_FENCE);
        }}
        if (l == 0) out[get_group_id(0)] = s[0];
    }}"#
        )
    };
    let go = |tag, src: String| {
        run(tag, &src, "red", 256, 64, |c, k| {
            let (a, b) = (floats(c, 256), floats(c, 4));
            k.buf(0, &a).buf(1, &b).local(2, 64 * 4);
            (a, b)
        })
    };
    expect_pair(
        go(25, src("")),
        go(26, src("barrier(CLK_LOCAL_MEM_FENCE);")),
        "red",
        &["data race on __local memory", "argument #2 `s`"],
    );
}

#[test]
fn sub_group_barrier_orders_local_memory_and_its_absence_is_a_race() {
    if !setup() {
        return;
    }
    // Sub-groups as vector iterations: the sub-group barrier starts a new epoch for the
    // lanes that pass it, as it does for work-items run one at a time.
    let src = |sync: &str| {
        format!(
            r#"__kernel void sgb(__global const int *in, __global int *out) {{
        __local int t[64];
        size_t l = get_local_id(0);
        t[l] = in[get_global_id(0)];
        {sync}
        uint j = get_sub_group_local_id(), s = get_sub_group_size();
        out[get_global_id(0)] = t[l - j + (s - 1 - j)];
    }}"#
        )
    };
    let go = |tag, src: String| {
        run_with_options(tag, &src, "-cl-std=CL3.0", "sgb", 64, 16, |c, k| {
            let a = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &[5i32; 64]);
            let b = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &[0i32; 64]);
            k.buf(0, &a).buf(1, &b);
            (a, b)
        })
    };
    expect_pair(
        go(27, src("")),
        go(28, src("sub_group_barrier(CLK_LOCAL_MEM_FENCE);")),
        "sgb",
        &["data race on __local memory", "of __local variable `sgb.t`"],
    );
}
