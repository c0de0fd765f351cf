//! Sub-devices: partition equally and by counts, the queries of a sub-device (parent,
//! partition type, compute units, reference count), contexts, queues and kernels on
//! sub-devices, the partition errors, and the host/device timers.

use ferrite_tests::*;
use std::ptr;

fn partition(
    d: cl_device_id,
    props: &[cl_device_partition_property],
) -> Result<Vec<cl_device_id>, cl_int> {
    let mut n = 0;
    // SAFETY: a 0-terminated property list; size-only query.
    let rc = unsafe { clCreateSubDevices(d, props.as_ptr(), 0, ptr::null_mut(), &mut n) };
    if rc != CL_SUCCESS {
        return Err(rc);
    }
    let mut out = vec![ptr::null_mut(); n as usize];
    // SAFETY: `out` has room for `n` devices.
    let rc = unsafe { clCreateSubDevices(d, props.as_ptr(), n, out.as_mut_ptr(), ptr::null_mut()) };
    if rc != CL_SUCCESS {
        return Err(rc);
    }
    Ok(out)
}

fn units(d: cl_device_id) -> cl_uint {
    pod(&device_info(d, CL_DEVICE_MAX_COMPUTE_UNITS).unwrap())
}

fn release(devs: Vec<cl_device_id>) {
    for d in devs {
        // SAFETY: each sub-device is released once.
        check(unsafe { clReleaseDevice(d) }, "clReleaseDevice");
    }
}

fn can_partition() -> bool {
    let props: Vec<cl_device_partition_property> =
        pod_vec(&device_info(dev().device, CL_DEVICE_PARTITION_PROPERTIES).unwrap());
    let ok = props.contains(&(CL_DEVICE_PARTITION_EQUALLY))
        && props.contains(&(CL_DEVICE_PARTITION_BY_COUNTS));
    require(
        ok || units(dev().device) < 2,
        "a device with 2+ compute units must partition",
    ) && ok
}

#[test]
fn partition_equally_and_query() {
    if !can_partition() {
        return;
    }
    let root = dev().device;
    let cu = units(root);
    let max: cl_uint = device_get(CL_DEVICE_PARTITION_MAX_SUB_DEVICES);
    assert!(max >= 2 && max <= cu);
    let props = [CL_DEVICE_PARTITION_EQUALLY, 1, 0];
    let subs = partition(root, &props).expect("partition equally");
    assert_eq!(subs.len(), cu as usize);
    for &s in &subs {
        assert_eq!(units(s), 1);
        let parent: cl_device_id = pod(&device_info(s, CL_DEVICE_PARENT_DEVICE).unwrap());
        assert_eq!(parent, root);
        let ty: Vec<isize> = pod_vec(&device_info(s, CL_DEVICE_PARTITION_TYPE).unwrap());
        assert_eq!(ty, props.to_vec());
        let refs: cl_uint = pod(&device_info(s, CL_DEVICE_REFERENCE_COUNT).unwrap());
        assert_eq!(refs, 1);
        let dtype: cl_device_type = pod(&device_info(s, CL_DEVICE_TYPE).unwrap());
        assert_eq!(dtype, CL_DEVICE_TYPE_CPU);
    }
    let none: cl_device_id = pod(&device_info(root, CL_DEVICE_PARENT_DEVICE).unwrap());
    assert!(none.is_null());
    // Retain/release are counted on sub-devices.
    // SAFETY: a live sub-device.
    check(unsafe { clRetainDevice(subs[0]) }, "clRetainDevice");
    let refs: cl_uint = pod(&device_info(subs[0], CL_DEVICE_REFERENCE_COUNT).unwrap());
    assert_eq!(refs, 2);
    // SAFETY: balances the retain.
    check(unsafe { clReleaseDevice(subs[0]) }, "clReleaseDevice");
    let first = subs[0];
    release(subs);
    // SAFETY: a released sub-device is an invalid handle.
    let rc = unsafe { clRetainDevice(first) };
    expect_code(rc, CL_INVALID_DEVICE, "retain of a released sub-device");
    // The root device is not counted.
    // SAFETY: root devices may be retained and released freely.
    unsafe {
        check(clRetainDevice(root), "retain root");
        check(clReleaseDevice(root), "release root");
    }
}

#[test]
fn partition_by_counts_and_run_kernels_on_sub_devices() {
    if !can_partition() {
        return;
    }
    let root = dev().device;
    let props = [
        CL_DEVICE_PARTITION_BY_COUNTS,
        1,
        1,
        CL_DEVICE_PARTITION_BY_COUNTS_LIST_END,
        0,
    ];
    let subs = partition(root, &props).expect("partition by counts");
    assert_eq!(subs.len(), 2);
    let ty: Vec<isize> = pod_vec(&device_info(subs[1], CL_DEVICE_PARTITION_TYPE).unwrap());
    assert_eq!(ty, props.to_vec());
    // A context with both sub-devices; a queue and a kernel on each.
    let mut rc = 0;
    // SAFETY: two live devices.
    let ctx = unsafe {
        clCreateContext(
            ptr::null(),
            2,
            subs.as_ptr(),
            None,
            ptr::null_mut(),
            &mut rc,
        )
    };
    check(rc, "clCreateContext(sub-devices)");
    let ctx = Context(ctx);
    let devices: Vec<cl_device_id> = pod_vec(&context_info(ctx.raw(), CL_CONTEXT_DEVICES).unwrap());
    assert_eq!(devices, subs);
    let p = Program::from_source(
        &ctx,
        "kernel void sq(global int *a) { size_t i = get_global_id(0); a[i] = a[i] * a[i]; }",
    );
    // SAFETY: a live program; all devices of its context.
    check(
        unsafe { clBuildProgram(p.raw(), 0, ptr::null(), ptr::null(), None, ptr::null_mut()) },
        "clBuildProgram",
    );
    for &s in &subs {
        // SAFETY: a live context and one of its devices.
        let q = unsafe { clCreateCommandQueueWithProperties(ctx.raw(), s, ptr::null(), &mut rc) };
        check(rc, "queue on a sub-device");
        let q = Queue(q);
        let qd: cl_device_id = pod(&queue_info(q.raw(), CL_QUEUE_DEVICE).unwrap());
        assert_eq!(qd, s);
        let data: Vec<i32> = (0..4096).collect();
        let b = Buffer::from_slice(&ctx, CL_MEM_READ_WRITE, &data);
        let k = p.kernel("sq");
        k.buf(0, &b);
        run_1d(&q, &k, 4096, Some(64));
        let out: Vec<i32> = b.read(&q, 4096);
        assert!(out.iter().zip(&data).all(|(o, d)| *o == d * d));
    }
    // The root device is not in this context.
    // SAFETY: a live context and device.
    let q = unsafe { clCreateCommandQueueWithProperties(ctx.raw(), root, ptr::null(), &mut rc) };
    expect_create_err(
        q,
        rc,
        CL_INVALID_DEVICE,
        "root device outside the sub-device context",
    );
    drop(p);
    drop(ctx);
    release(subs);
}

#[test]
fn partition_errors() {
    let root = dev().device;
    let cu = units(root) as isize;
    let eq = |n: isize| partition(root, &[CL_DEVICE_PARTITION_EQUALLY, n, 0]).err();
    assert_eq!(eq(0), Some(CL_INVALID_VALUE), "EQUALLY 0");
    assert_eq!(
        eq(cu + 1),
        Some(CL_INVALID_DEVICE_PARTITION_COUNT),
        "EQUALLY more than the device has"
    );
    // All units in one sub-device is no partition.
    assert_eq!(
        eq(cu),
        Some(CL_DEVICE_PARTITION_FAILED),
        "EQUALLY all units"
    );
    let counts = |c: &[isize]| {
        let mut v = vec![CL_DEVICE_PARTITION_BY_COUNTS];
        v.extend_from_slice(c);
        v.push(CL_DEVICE_PARTITION_BY_COUNTS_LIST_END);
        v.push(0);
        partition(root, &v).err()
    };
    assert_eq!(
        counts(&[cu, 1]),
        Some(CL_INVALID_DEVICE_PARTITION_COUNT),
        "too many units"
    );
    assert_eq!(
        counts(&[-1]),
        Some(CL_INVALID_DEVICE_PARTITION_COUNT),
        "negative count"
    );
    assert_eq!(
        partition(
            root,
            &[
                CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
                CL_DEVICE_AFFINITY_DOMAIN_NUMA as isize,
                0
            ]
        )
        .err(),
        Some(CL_INVALID_VALUE),
        "affinity domains are not offered"
    );
    assert_eq!(
        partition(root, &[0x7777, 1, 0]).err(),
        Some(CL_INVALID_VALUE),
        "unknown scheme"
    );
    if cu >= 2 {
        let mut one = ptr::null_mut();
        let props = [CL_DEVICE_PARTITION_EQUALLY, 1, 0];
        // SAFETY: room for 1 device, fewer than the partition makes.
        let rc = unsafe { clCreateSubDevices(root, props.as_ptr(), 1, &mut one, ptr::null_mut()) };
        expect_code(
            rc,
            CL_INVALID_VALUE,
            "num_devices smaller than the partition",
        );
    }
    // SAFETY: a NULL device.
    let rc = unsafe {
        clCreateSubDevices(
            ptr::null_mut(),
            ptr::null(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_DEVICE, "NULL device");
}

#[test]
fn host_and_device_timers_share_one_clock() {
    let d = dev().device;
    let res: cl_ulong =
        pod(&platform_info(dev().platform, CL_PLATFORM_HOST_TIMER_RESOLUTION).unwrap());
    if !require(res > 0, "the platform supports host timers") {
        return;
    }
    let (mut dev1, mut host1, mut host2, mut dev2, mut host3) = (0u64, 0u64, 0u64, 0u64, 0u64);
    // SAFETY: valid out-pointers.
    unsafe {
        check(
            clGetDeviceAndHostTimer(d, &mut dev1, &mut host1),
            "clGetDeviceAndHostTimer",
        );
        check(clGetHostTimer(d, &mut host2), "clGetHostTimer");
        check(
            clGetDeviceAndHostTimer(d, &mut dev2, &mut host3),
            "clGetDeviceAndHostTimer",
        );
    }
    assert!(host1 <= host2 && host2 <= host3 && dev1 <= dev2);
    // Profiling timestamps come from the same clock.
    let env = Env::with_queue_properties(CL_QUEUE_PROFILING_ENABLE);
    let mut ev = ptr::null_mut();
    // SAFETY: a live queue.
    check(
        unsafe { clEnqueueMarkerWithWaitList(env.queue.raw(), 0, ptr::null(), &mut ev) },
        "marker",
    );
    let ev = Event(ev);
    ev.wait();
    let queued: u64 = pod(&profiling_info(ev.raw(), CL_PROFILING_COMMAND_QUEUED).unwrap());
    let mut after = 0u64;
    // SAFETY: a valid out-pointer.
    check(unsafe { clGetHostTimer(d, &mut after) }, "clGetHostTimer");
    assert!(dev2 <= queued && queued <= after);
    // SAFETY: NULL out-pointers are rejected.
    let rc = unsafe { clGetDeviceAndHostTimer(d, ptr::null_mut(), &mut host1) };
    expect_code(rc, CL_INVALID_VALUE, "NULL device_timestamp");
    // SAFETY: as above.
    let rc = unsafe { clGetHostTimer(d, ptr::null_mut()) };
    expect_code(rc, CL_INVALID_VALUE, "NULL host_timestamp");
    let tres: usize = device_get(CL_DEVICE_PROFILING_TIMER_RESOLUTION);
    assert!(tres >= 1);
}
