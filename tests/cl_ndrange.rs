//! NDRanges: every work-item function (`get_global_id`, `get_local_id`, `get_group_id`,
//! `get_local_size`, `get_enqueued_local_size`, `get_num_groups`, `get_global_offset`,
//! `get_global_size`, `get_work_dim`) checked per work-item on 1-, 2- and 3-D ranges with global
//! offsets, uniform and non-uniform work-groups and a NULL local size; and the error codes of
//! `clEnqueueNDRangeKernel`.

use ferrite_tests::*;
use std::ptr;

/// Fields each work-item writes, per dimension, then `get_work_dim()`.
const PER_DIM: usize = 7;
const RECORD: usize = 3 * PER_DIM + 1;

/// `ENQUEUED` selects `get_enqueued_local_size` (OpenCL C 2.0+) or `get_local_size`.
const IDS_SRC: &str = r#"
#ifndef ENQUEUED
#define get_enqueued_local_size get_local_size
#endif
__kernel void ids(__global uint *out) {
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    size_t z = get_global_id(2) - get_global_offset(2);
    size_t linear = (z * get_global_size(1) + y) * get_global_size(0) + x;
    __global uint *r = out + linear * 22;
    for (uint d = 0; d < 3; d++) {
        r[d * 7 + 0] = get_global_id(d);
        r[d * 7 + 1] = get_local_id(d);
        r[d * 7 + 2] = get_group_id(d);
        r[d * 7 + 3] = get_local_size(d);
        r[d * 7 + 4] = get_num_groups(d);
        r[d * 7 + 5] = get_global_offset(d);
        r[d * 7 + 6] = get_global_size(d) * 1000 + get_enqueued_local_size(d);
    }
    r[21] = get_work_dim();
}
"#;

/// A range's sizes or offsets in three dimensions, `fill` beyond the given ones.
fn three(v: &[usize], fill: usize) -> [usize; 3] {
    std::array::from_fn(|d| v.get(d).copied().unwrap_or(fill))
}

/// Runs `ids` over the range and checks every work-item's record. `local = None` passes NULL:
/// the runtime picks the work-group size and the test checks consistency instead of values.
fn check_range(
    env: &Env,
    p: &Program,
    offset: &[usize],
    global: &[usize],
    local: Option<&[usize]>,
) {
    let dims = global.len();
    let (g3, o3) = (three(global, 1), three(offset, 0));
    let total: usize = g3.iter().product();
    let buf = env.buffer_from(&vec![0xFFFF_FFFFu32; total * RECORD]);
    let k = p.kernel("ids");
    k.buf(0, &buf);
    run_nd(&env.queue, &k, Some(offset), global, local);
    let out: Vec<u32> = buf.read(&env.queue, total * RECORD);
    let what = format!("offset {offset:?} global {global:?} local {local:?}");
    // With a NULL local size, learn the sizes the runtime chose from work-item 0 (its group is
    // a full one: the last group is the only one that may be smaller).
    let mut l3 = [1usize; 3];
    match local {
        Some(l) => l3[..dims].copy_from_slice(l),
        None => {
            for d in 0..dims {
                l3[d] = out[d * PER_DIM + 3] as usize;
                assert!(
                    l3[d] >= 1 && l3[d] <= g3[d],
                    "{what}: chosen local size {l3:?}"
                );
            }
            let max: usize = device_get(CL_DEVICE_MAX_WORK_GROUP_SIZE);
            assert!(
                l3.iter().product::<usize>() <= max,
                "{what}: chosen local size {l3:?} exceeds the device maximum"
            );
        }
    }
    for z in 0..g3[2] {
        for y in 0..g3[1] {
            for x in 0..g3[0] {
                let idx = [x, y, z];
                let linear = (z * g3[1] + y) * g3[0] + x;
                let r = &out[linear * RECORD..(linear + 1) * RECORD];
                for d in 0..3 {
                    let f = &r[d * PER_DIM..(d + 1) * PER_DIM];
                    let (g, l, o) = (g3[d], l3[d], o3[d]);
                    let groups = g.div_ceil(l);
                    let group = idx[d] / l;
                    // The last group of a dimension holds the remainder (non-uniform groups).
                    let size = if group == groups - 1 && g % l != 0 {
                        g % l
                    } else {
                        l
                    };
                    let expected = [
                        (o + idx[d]) as u32,
                        (idx[d] % l) as u32,
                        group as u32,
                        size as u32,
                        groups as u32,
                        o as u32,
                        (g * 1000 + l) as u32,
                    ];
                    assert_eq!(
                        f,
                        &expected[..],
                        "{what}: work-item {idx:?} dim {d}: [global_id, local_id, group_id, local_size, num_groups, global_offset, global_size*1000+enqueued_local_size]"
                    );
                }
                assert_eq!(r[21], dims as u32, "{what}: get_work_dim at {idx:?}");
            }
        }
    }
}

#[test]
fn uniform_ranges_with_offsets() {
    let env = Env::new();
    let p = env.build(IDS_SRC, "");
    check_range(&env, &p, &[0], &[256], Some(&[64]));
    check_range(&env, &p, &[17], &[96], Some(&[32]));
    check_range(&env, &p, &[5, 7], &[48, 20], Some(&[16, 4]));
    check_range(&env, &p, &[1, 2, 3], &[12, 6, 10], Some(&[4, 3, 5]));
    check_range(&env, &p, &[0, 0, 0], &[8, 8, 8], Some(&[8, 1, 1]));
    check_range(&env, &p, &[3, 0, 9], &[2, 3, 4], Some(&[1, 1, 1]));
}

#[test]
fn null_local_size() {
    let env = Env::new();
    let p = env.build(IDS_SRC, "");
    check_range(&env, &p, &[0], &[1000], None);
    check_range(&env, &p, &[10, 20], &[33, 17], None);
    check_range(&env, &p, &[1, 1, 1], &[7, 5, 3], None);
    check_range(&env, &p, &[0], &[1], None);
}

#[test]
fn non_uniform_work_groups() {
    if !require(
        device_has_non_uniform_wg(),
        "the device does not support non-uniform work-groups",
    ) {
        return;
    }
    let env = Env::new();
    let p = env.build(IDS_SRC, "-cl-std=CL3.0 -DENQUEUED");
    check_range(&env, &p, &[0], &[1000], Some(&[64]));
    check_range(&env, &p, &[5], &[7], Some(&[16]));
    check_range(&env, &p, &[5, 7], &[50, 21], Some(&[16, 4]));
    check_range(&env, &p, &[1, 2, 3], &[13, 7, 9], Some(&[4, 3, 5]));
    check_range(&env, &p, &[0, 0, 0], &[17, 1, 33], Some(&[8, 1, 8]));
    check_range(&env, &p, &[2, 2], &[100, 3], None);
    // Built with -cl-uniform-work-group-size, the same range is an error.
    let u = env.build(
        IDS_SRC,
        "-cl-std=CL3.0 -DENQUEUED -cl-uniform-work-group-size",
    );
    let b = env.buffer_zeroed::<u32>(1000 * RECORD);
    let k = u.kernel("ids");
    k.buf(0, &b);
    let err = enqueue_nd(&env.queue, &k, None, &[1000], Some(&[64]))
        .err()
        .unwrap_or(CL_SUCCESS);
    expect_code(
        err,
        CL_INVALID_WORK_GROUP_SIZE,
        "non-uniform range with -cl-uniform-work-group-size",
    );
}

/// A kernel that reads only global work-item functions: the runtime may run it in groups
/// of its own choosing (`runtime/src/executor.rs`, `batches`). Every work-item must still
/// run exactly once with its own ids, whatever local size the application passed.
const GLOBAL_ONLY_SRC: &str = r#"
__kernel void global_only(__global uint *out, __global volatile uint *runs) {
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    size_t z = get_global_id(2) - get_global_offset(2);
    size_t linear = (z * get_global_size(1) + y) * get_global_size(0) + x;
    out[4 * linear] = get_global_id(0);
    out[4 * linear + 1] = get_global_id(1);
    out[4 * linear + 2] = get_global_id(2);
    out[4 * linear + 3] = get_work_dim() + 10 * get_global_linear_id();
    atomic_inc(&runs[linear]);
}
"#;

#[test]
fn global_only_kernels_run_every_work_item_once() {
    let env = Env::new();
    let p = env.build(GLOBAL_ONLY_SRC, "-cl-std=CL3.0");
    let cases: [(&[usize], &[usize], &[usize]); 6] = [
        (&[0], &[1000], &[8]),
        (&[17], &[999], &[1]),
        (&[3], &[96], &[3]),
        (&[5, 7], &[48, 20], &[2, 4]),
        (&[1, 2, 3], &[12, 6, 10], &[4, 3, 5]),
        (&[0, 0, 0], &[40, 3, 2], &[8, 1, 1]),
    ];
    for (offset, global, local) in cases {
        let dims = global.len();
        let (g3, o3) = (three(global, 1), three(offset, 0));
        let total: usize = g3.iter().product();
        let out = env.buffer_from(&vec![u32::MAX; 4 * total]);
        let runs = env.buffer_zeroed::<u32>(total);
        let k = p.kernel("global_only");
        k.buf(0, &out);
        k.buf(1, &runs);
        run_nd(&env.queue, &k, Some(offset), global, Some(local));
        let out: Vec<u32> = out.read(&env.queue, 4 * total);
        let runs: Vec<u32> = runs.read(&env.queue, total);
        let what = format!("offset {offset:?} global {global:?} local {local:?}");
        for z in 0..g3[2] {
            for y in 0..g3[1] {
                for x in 0..g3[0] {
                    let l = (z * g3[1] + y) * g3[0] + x;
                    assert_eq!(runs[l], 1, "{what}: work-item {l} ran {} times", runs[l]);
                    let want = [
                        (x + o3[0]) as u32,
                        (y + o3[1]) as u32,
                        (z + o3[2]) as u32,
                        dims as u32 + 10 * l as u32,
                    ];
                    assert_eq!(out[4 * l..4 * l + 4], want, "{what}: work-item {l}");
                }
            }
        }
    }
}

const SIMPLE: &str = r#"
__kernel void touch(__global int *out) { out[get_global_id(0)] = 1; }
__kernel __attribute__((reqd_work_group_size(4, 4, 1)))
void fixed(__global int *out) { out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = 1; }
"#;

#[test]
fn enqueue_errors() {
    let env = Env::new();
    let p = env.build(SIMPLE, "");
    let b = env.buffer_zeroed::<i32>(1 << 16);
    let k = p.kernel("touch");
    k.buf(0, &b);
    let q = env.queue.raw();
    let enqueue = |dim: u32, offset: *const usize, global: *const usize, local: *const usize| {
        // SAFETY: the arrays hold at least `dim` values (or are NULL); no events.
        unsafe {
            clEnqueueNDRangeKernel(
                q,
                k.raw(),
                dim,
                offset,
                global,
                local,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        }
    };
    let g4 = [64usize, 1, 1, 1];
    // CL_INVALID_WORK_DIMENSION if work_dim is not a valid value (i.e. a value between 1 and
    // CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS).
    expect_code(
        enqueue(0, ptr::null(), g4.as_ptr(), ptr::null()),
        CL_INVALID_WORK_DIMENSION,
        "work_dim 0",
    );
    let max_dims: cl_uint = device_get(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    expect_code(
        enqueue(max_dims + 1, ptr::null(), g4.as_ptr(), ptr::null()),
        CL_INVALID_WORK_DIMENSION,
        "work_dim one above the maximum",
    );
    // CL_INVALID_GLOBAL_OFFSET if global_work_size + global_work_offset overflows size_t.
    // (PoCL 3.1 runs such a range and corrupts the heap: checked on Ferrite only.)
    let big_offset = [usize::MAX - 10];
    if strict() {
        expect_code(
            enqueue(1, big_offset.as_ptr(), g4.as_ptr(), ptr::null()),
            CL_INVALID_GLOBAL_OFFSET,
            "offset + size overflowing size_t",
        );
    }
    // CL_INVALID_WORK_ITEM_SIZE if the number of work-items specified in any of
    // local_work_size[0], ... is greater than the corresponding CL_DEVICE_MAX_WORK_ITEM_SIZES.
    let item_sizes: Vec<usize> =
        pod_vec(&device_info(env.dev.device, CL_DEVICE_MAX_WORK_ITEM_SIZES).unwrap());
    let max_wg: usize = device_get(CL_DEVICE_MAX_WORK_GROUP_SIZE);
    let d = (0..3).min_by_key(|&d| item_sizes[d]).unwrap_or(0);
    let mut over = [1usize; 3];
    over[d] = item_sizes[d] + 1;
    let rc = enqueue(3, ptr::null(), over.as_ptr(), over.as_ptr());
    let what = format!("local size {over:?} above CL_DEVICE_MAX_WORK_ITEM_SIZES {item_sizes:?}");
    if over[d] <= max_wg {
        expect_code(rc, CL_INVALID_WORK_ITEM_SIZE, &what);
    } else {
        // The group is also larger than CL_DEVICE_MAX_WORK_GROUP_SIZE: either error is right.
        assert!(
            rc == CL_INVALID_WORK_ITEM_SIZE || rc == CL_INVALID_WORK_GROUP_SIZE,
            "{what}: got {}",
            error_name(rc)
        );
    }
    // CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified and the total number of
    // work-items in the work-group ... is greater than the value specified by
    // CL_KERNEL_WORK_GROUP_SIZE. Each dimension stays within its item-size limit.
    let l0 = item_sizes[0].min(max_wg);
    let l1 = max_wg / l0 + 1;
    assert!(
        l1 <= item_sizes[1],
        "cannot build an over-sized group within the item limits"
    );
    let local = [l0, l1];
    let global = [l0, l1];
    expect_code(
        enqueue(2, ptr::null(), global.as_ptr(), local.as_ptr()),
        CL_INVALID_WORK_GROUP_SIZE,
        "local size product above CL_DEVICE_MAX_WORK_GROUP_SIZE",
    );
    // CL_INVALID_WORK_GROUP_SIZE if the work-group size must be uniform and ... the
    // global_work_size is not evenly divisible by the local_work_size. (Built without -cl-std:
    // OpenCL C 1.x, whose work-groups are uniform.)
    let (g, l) = ([100usize], [64usize]);
    expect_code(
        enqueue(1, ptr::null(), g.as_ptr(), l.as_ptr()),
        CL_INVALID_WORK_GROUP_SIZE,
        "100 items in groups of 64 in an OpenCL C 1.2 program",
    );
    // CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified and does not match the
    // required work-group size for kernel in the program source.
    let fixed = p.kernel("fixed");
    fixed.buf(0, &b);
    let bad_local = [8usize, 2, 1];
    let g3 = [16usize, 16, 1];
    // SAFETY: 3-element arrays.
    let rc = unsafe {
        clEnqueueNDRangeKernel(
            q,
            fixed.raw(),
            3,
            ptr::null(),
            g3.as_ptr(),
            bad_local.as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_INVALID_WORK_GROUP_SIZE,
        "local (8,2,1) for reqd_work_group_size(4,4,1)",
    );
    let good_local = [4usize, 4, 1];
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueNDRangeKernel(
            q,
            fixed.raw(),
            3,
            ptr::null(),
            g3.as_ptr(),
            good_local.as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(rc, "local (4,4,1) for reqd_work_group_size(4,4,1)");
    // With a NULL local size the runtime must use the required size (the only
    // CL_INVALID_WORK_GROUP_SIZE cases for reqd_work_group_size need a local size).
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueNDRangeKernel(
            q,
            fixed.raw(),
            3,
            ptr::null(),
            g3.as_ptr(),
            ptr::null(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    spec_code(
        rc,
        CL_SUCCESS,
        "NULL local size for a reqd_work_group_size kernel",
    );
    env.queue.finish();
    assert!(b.read::<i32>(&env.queue, 256).iter().all(|&v| v == 1));
    // A NULL queue is answered by the loader.
    // SAFETY: NULL queue.
    let rc = unsafe {
        clEnqueueNDRangeKernel(
            ptr::null_mut(),
            k.raw(),
            1,
            ptr::null(),
            g4.as_ptr(),
            ptr::null(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_COMMAND_QUEUE, "NULL queue");
    if strict() {
        // CL_INVALID_KERNEL if kernel is not a valid kernel object (PoCL 3.1 crashes on NULL).
        // SAFETY: NULL kernel.
        let rc = unsafe {
            clEnqueueNDRangeKernel(
                q,
                ptr::null_mut(),
                1,
                ptr::null(),
                g4.as_ptr(),
                ptr::null(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        expect_code(rc, CL_INVALID_KERNEL, "NULL kernel");
    }
    // CL_INVALID_CONTEXT if context associated with command_queue and kernel are not the same.
    let other = Env::new();
    // SAFETY: a live queue of another context.
    let rc = unsafe {
        clEnqueueNDRangeKernel(
            other.queue.raw(),
            k.raw(),
            1,
            ptr::null(),
            g4.as_ptr(),
            ptr::null(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_CONTEXT, "kernel of another context");
}

/// A range whose work-item count does not fit in `size_t` is refused, not run: 2^22 x 2^22 x
/// 2^22 = 2^66 work-items wraps to 0 in 64 bits (it used to be accepted and run for ever).
/// The queue stays usable after each refusal.
#[test]
fn global_size_overflowing_size_t() {
    let env = Env::new();
    let p = env.build(SIMPLE, "");
    let k = p.kernel("touch");
    let b = env.buffer_zeroed::<i32>(64);
    k.buf(0, &b);
    let q = env.queue.raw();
    let enqueue = |dim: u32, offset: *const usize, global: *const usize, local: *const usize| {
        // SAFETY: the arrays hold at least `dim` values (or are NULL); no events.
        unsafe {
            clEnqueueNDRangeKernel(
                q,
                k.raw(),
                dim,
                offset,
                global,
                local,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        }
    };
    // CL_INVALID_GLOBAL_WORK_SIZE if any of the values specified in global_work_size[0], ...
    // global_work_size[work_dim - 1] exceed the maximum value representable by size_t on the
    // device on which the kernel-instance will be enqueued.
    let huge = [1usize << 22; 3];
    let ones = [1usize; 3];
    expect_code(
        enqueue(3, ptr::null(), huge.as_ptr(), ptr::null()),
        CL_INVALID_GLOBAL_WORK_SIZE,
        "2^22 x 2^22 x 2^22 work-items, NULL local size",
    );
    expect_code(
        enqueue(3, ptr::null(), huge.as_ptr(), ones.as_ptr()),
        CL_INVALID_GLOBAL_WORK_SIZE,
        "2^22 x 2^22 x 2^22 work-items in groups of 1",
    );
    let wide = [usize::MAX, 2];
    expect_code(
        enqueue(2, ptr::null(), wide.as_ptr(), ptr::null()),
        CL_INVALID_GLOBAL_WORK_SIZE,
        "SIZE_MAX x 2 work-items",
    );
    // CL_INVALID_GLOBAL_OFFSET if the value specified in global_work_size + the corresponding
    // values in global_work_offset for any dimensions is greater than the maximum value
    // representable by size_t: here in the third dimension.
    let g3 = [4usize, 4, 4];
    let o3 = [0usize, 0, usize::MAX - 1];
    if strict() {
        expect_code(
            enqueue(3, o3.as_ptr(), g3.as_ptr(), ptr::null()),
            CL_INVALID_GLOBAL_OFFSET,
            "offset + size overflowing size_t in dimension 2",
        );
    }
    // A dimension of 0 makes the command succeed trivially, however large the others are.
    let empty = [0usize, 1 << 40, 1 << 40];
    spec_code(
        enqueue(3, ptr::null(), empty.as_ptr(), ptr::null()),
        CL_SUCCESS,
        "0 x 2^40 x 2^40 work-items",
    );
    // The queue still runs kernels.
    let g = [64usize];
    check(
        enqueue(1, ptr::null(), g.as_ptr(), ptr::null()),
        "clEnqueueNDRangeKernel after the refusals",
    );
    env.queue.finish();
    assert_eq!(b.read::<i32>(&env.queue, 64), vec![1; 64]);
}

/// The geometry is checked before the arguments: `work_dim` 0 with no argument set is
/// `CL_INVALID_WORK_DIMENSION` (what PoCL and Intel's CPU runtime return), and a valid range
/// with an unset argument is `CL_INVALID_KERNEL_ARGS`. The queue runs the kernel afterwards.
#[test]
fn work_dim_checked_before_kernel_args() {
    let env = Env::new();
    let p = env.build(SIMPLE, "");
    let k = p.kernel("touch");
    let q = env.queue.raw();
    let enqueue = |dim: u32, global: *const usize| {
        // SAFETY: `global` holds at least `dim` values (or is NULL); no events.
        unsafe {
            clEnqueueNDRangeKernel(
                q,
                k.raw(),
                dim,
                ptr::null(),
                global,
                ptr::null(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        }
    };
    let g4 = [16usize, 1, 1, 1];
    let max_dims: cl_uint = device_get(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    expect_code(
        enqueue(0, g4.as_ptr()),
        CL_INVALID_WORK_DIMENSION,
        "work_dim 0, argument 0 not set",
    );
    expect_code(
        enqueue(max_dims + 1, g4.as_ptr()),
        CL_INVALID_WORK_DIMENSION,
        "work_dim above the maximum, argument 0 not set",
    );
    expect_code(
        enqueue(1, g4.as_ptr()),
        CL_INVALID_KERNEL_ARGS,
        "a valid range, argument 0 not set",
    );
    let b = env.buffer_zeroed::<i32>(16);
    k.buf(0, &b);
    check(enqueue(1, g4.as_ptr()), "clEnqueueNDRangeKernel");
    env.queue.finish();
    assert_eq!(b.read::<i32>(&env.queue, 16), vec![1; 16]);
}

#[test]
fn zero_global_size_is_a_no_op() {
    // OpenCL 3.0, clEnqueueNDRangeKernel: "If global_work_size is NULL, or the value in any
    // passed dimension is 0 then the kernel command will trivially succeed after its event
    // dependencies are satisfied and subsequently update its completion event." The error
    // "CL_INVALID_GLOBAL_WORK_SIZE if global_work_size is NULL or if any of the values specified
    // in global_work_size[0], ... global_work_size[work_dim - 1] are 0" is "deprecated by
    // version 2.1", so a 3.0 device must succeed and run nothing.
    let env = Env::new();
    let p = env.build(SIMPLE, "");
    let b = env.buffer_zeroed::<i32>(64);
    let k = p.kernel("touch");
    k.buf(0, &b);
    for global in [&[0usize][..], &[64, 0], &[0, 4, 4]] {
        match enqueue_nd(&env.queue, &k, None, global, None) {
            Ok(ev) => {
                ev.wait();
                assert_eq!(ev.status(), CL_COMPLETE, "global {global:?}");
            }
            Err(rc) => spec_code(
                rc,
                CL_SUCCESS,
                &format!("global size {global:?} on an OpenCL 3.0 device"),
            ),
        }
    }
    // A zero-sized kernel still waits for its dependencies.
    let gate = Event::user(&env.ctx);
    let g = [0usize];
    let mut ev = ptr::null_mut();
    // SAFETY: one-event wait list.
    let rc = unsafe {
        clEnqueueNDRangeKernel(
            env.queue.raw(),
            k.raw(),
            1,
            ptr::null(),
            g.as_ptr(),
            ptr::null(),
            1,
            &gate.raw(),
            &mut ev,
        )
    };
    if rc == CL_SUCCESS {
        let ev = Event(ev);
        env.queue.flush();
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert_ne!(
            ev.status(),
            CL_COMPLETE,
            "a zero-sized kernel completed before its wait list"
        );
        gate.set_status(CL_COMPLETE);
        ev.wait();
    } else {
        gate.set_status(CL_COMPLETE);
        spec_code(rc, CL_SUCCESS, "gated zero-sized kernel");
    }
    assert!(
        b.read::<i32>(&env.queue, 64).iter().all(|&v| v == 0),
        "a zero-sized NDRange ran work-items"
    );
}

type SuggestFn = unsafe extern "C" fn(
    cl_command_queue,
    cl_kernel,
    cl_uint,
    *const usize,
    *const usize,
    *mut usize,
) -> cl_int;

/// `cl_khr_suggested_local_work_size`: the suggestion is a valid local size for the range
/// (dividing it when the program needs uniform groups, within the kernel's limit), and the
/// errors are the extension's.
#[test]
fn suggested_local_work_size() {
    let exts = device_string(CL_DEVICE_EXTENSIONS);
    if !require(
        exts.contains("cl_khr_suggested_local_work_size"),
        "cl_khr_suggested_local_work_size",
    ) {
        return;
    }
    let name = c"clGetKernelSuggestedLocalWorkSizeKHR";
    // SAFETY: a valid platform and a NUL-terminated name.
    let f = unsafe { clGetExtensionFunctionAddressForPlatform(dev().platform, name.as_ptr()) };
    assert!(!f.is_null(), "the extension's function is reachable");
    // SAFETY: the extension's signature.
    let suggest: SuggestFn = unsafe { std::mem::transmute(f) };
    let env = Env::new();
    let k = env.build(IDS_SRC, "").kernel("ids");
    let out = env.buffer_zeroed::<u32>(RECORD * 1000);
    let mut local = [0usize; 3];
    // SAFETY: live handles, arrays of work_dim values.
    let call = |k: cl_kernel, dims: cl_uint, global: *const usize, out: *mut usize| unsafe {
        suggest(env.queue.raw(), k, dims, ptr::null(), global, out)
    };
    expect_code(
        call(k.raw(), 1, [10usize].as_ptr(), local.as_mut_ptr()),
        CL_INVALID_KERNEL_ARGS,
        "arguments not set",
    );
    expect_code(
        call(k.raw(), 0, [10usize].as_ptr(), local.as_mut_ptr()),
        CL_INVALID_WORK_DIMENSION,
        "work_dim 0, arguments not set",
    );
    k.buf(0, &out);
    for global in [[1000usize, 1, 1], [97, 1, 1], [40, 30, 1], [6, 10, 12]] {
        let dims = if global[2] > 1 {
            3
        } else if global[1] > 1 {
            2
        } else {
            1
        };
        check(
            call(k.raw(), dims, global.as_ptr(), local.as_mut_ptr()),
            "clGetKernelSuggestedLocalWorkSizeKHR",
        );
        let total: usize = local[..dims as usize].iter().product();
        assert!((1..=4096).contains(&total), "{local:?} for {global:?}");
        for d in 0..dims as usize {
            // An OpenCL C 1.2 program needs uniform work-groups.
            assert_eq!(global[d] % local[d], 0, "{local:?} divides {global:?}");
        }
    }
    expect_code(
        call(k.raw(), 0, [10usize].as_ptr(), local.as_mut_ptr()),
        CL_INVALID_WORK_DIMENSION,
        "work_dim 0",
    );
    expect_code(
        call(k.raw(), 1, ptr::null(), local.as_mut_ptr()),
        CL_INVALID_GLOBAL_WORK_SIZE,
        "NULL global size",
    );
    expect_code(
        call(k.raw(), 1, [0usize].as_ptr(), local.as_mut_ptr()),
        CL_INVALID_GLOBAL_WORK_SIZE,
        "zero global size",
    );
    expect_code(
        call(k.raw(), 1, [10usize].as_ptr(), ptr::null_mut()),
        CL_INVALID_VALUE,
        "NULL result",
    );
    expect_code(
        call(ptr::null_mut(), 1, [10usize].as_ptr(), local.as_mut_ptr()),
        CL_INVALID_KERNEL,
        "NULL kernel",
    );
}
