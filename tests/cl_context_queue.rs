//! Contexts and command-queues: creation (by device list and by type), info queries,
//! reference counts, destructor callbacks, and the error codes of bad arguments and handles.

use ferrite_tests::*;
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

fn platform_props() -> [cl_context_properties; 3] {
    [
        CL_CONTEXT_PLATFORM as cl_context_properties,
        dev().platform as cl_context_properties,
        0,
    ]
}

#[test]
fn create_context_and_query_it() {
    let d = dev();
    let ctx = Context::new();
    let devices: Vec<cl_device_id> = pod_vec(&context_info(ctx.raw(), CL_CONTEXT_DEVICES).unwrap());
    assert_eq!(devices, vec![d.device]);
    let n: cl_uint = pod(&context_info(ctx.raw(), CL_CONTEXT_NUM_DEVICES).unwrap());
    assert_eq!(n, 1);
    let props: Vec<cl_context_properties> =
        pod_vec(&context_info(ctx.raw(), CL_CONTEXT_PROPERTIES).unwrap());
    assert_eq!(
        props,
        platform_props().to_vec(),
        "CL_CONTEXT_PROPERTIES returns the list given at creation"
    );
    let rc: cl_uint = pod(&context_info(ctx.raw(), CL_CONTEXT_REFERENCE_COUNT).unwrap());
    assert_eq!(rc, 1);
    // SAFETY: a live context.
    unsafe {
        check(clRetainContext(ctx.raw()), "clRetainContext");
    }
    let rc: cl_uint = pod(&context_info(ctx.raw(), CL_CONTEXT_REFERENCE_COUNT).unwrap());
    assert_eq!(rc, 2);
    // SAFETY: drops the reference taken above.
    unsafe {
        check(clReleaseContext(ctx.raw()), "clReleaseContext");
    }
    let rc: cl_uint = pod(&context_info(ctx.raw(), CL_CONTEXT_REFERENCE_COUNT).unwrap());
    assert_eq!(rc, 1);
    // CL_INVALID_VALUE if param_name is not one of the supported values.
    let mut v = [0u8; 64];
    // SAFETY: 64-byte buffer.
    let rc = unsafe {
        clGetContextInfo(
            ctx.raw(),
            0x7777,
            v.len(),
            v.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "clGetContextInfo(bad param)");
    // Too small a buffer.
    // SAFETY: 2-byte buffer, smaller than a cl_uint.
    let rc = unsafe {
        clGetContextInfo(
            ctx.raw(),
            CL_CONTEXT_NUM_DEVICES,
            2,
            v.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "clGetContextInfo(buffer too small)");
}

#[test]
fn context_without_properties() {
    let d = dev();
    let mut rc = 0;
    // SAFETY: one valid device, no properties.
    let ctx = unsafe { clCreateContext(ptr::null(), 1, &d.device, None, ptr::null_mut(), &mut rc) };
    check(rc, "clCreateContext(NULL properties)");
    let ctx = Context(ctx);
    let props = context_info(ctx.raw(), CL_CONTEXT_PROPERTIES).unwrap();
    // "If the properties argument specified in clCreateContext ... used to create context was
    // NULL, the implementation must return param_value_size_ret equal to 0."
    assert!(
        props.is_empty(),
        "CL_CONTEXT_PROPERTIES of a context created without properties has size {}",
        props.len()
    );
}

#[test]
fn create_context_from_type() {
    let props = platform_props();
    let mut rc = 0;
    // SAFETY: a 0-terminated property list.
    let ctx = unsafe {
        clCreateContextFromType(
            props.as_ptr(),
            CL_DEVICE_TYPE_CPU,
            None,
            ptr::null_mut(),
            &mut rc,
        )
    };
    check(rc, "clCreateContextFromType(CPU)");
    let ctx = Context(ctx);
    let devices: Vec<cl_device_id> = pod_vec(&context_info(ctx.raw(), CL_CONTEXT_DEVICES).unwrap());
    assert_eq!(devices, vec![dev().device]);
    for ty in [CL_DEVICE_TYPE_DEFAULT, CL_DEVICE_TYPE_ALL] {
        // SAFETY: as above.
        let c =
            unsafe { clCreateContextFromType(props.as_ptr(), ty, None, ptr::null_mut(), &mut rc) };
        check(rc, &format!("clCreateContextFromType({ty:#x})"));
        drop(Context(c));
    }
    // CL_DEVICE_NOT_FOUND if no devices that match device_type and property values specified
    // in properties are currently available.
    // SAFETY: as above.
    let c = unsafe {
        clCreateContextFromType(
            props.as_ptr(),
            CL_DEVICE_TYPE_GPU,
            None,
            ptr::null_mut(),
            &mut rc,
        )
    };
    expect_code(rc, CL_DEVICE_NOT_FOUND, "clCreateContextFromType(GPU)");
    // "Otherwise, it returns a NULL value with one of the following error values".
    spec_check(
        c.is_null(),
        "clCreateContextFromType(GPU) failed but returned a handle",
    );
    // CL_INVALID_DEVICE_TYPE if device_type is not a valid value.
    // SAFETY: as above.
    let c =
        unsafe { clCreateContextFromType(props.as_ptr(), 1 << 20, None, ptr::null_mut(), &mut rc) };
    spec_code(
        rc,
        CL_INVALID_DEVICE_TYPE,
        "clCreateContextFromType(bad type)",
    );
    spec_check(
        c.is_null(),
        "clCreateContextFromType(bad type) failed but returned a handle",
    );
}

#[test]
fn create_context_errors() {
    let d = dev();
    let props = platform_props();
    let mut rc = 0;
    // With CL_CONTEXT_PLATFORM in the properties the loader hands every call to the driver.
    // CL_INVALID_VALUE if devices is NULL; if num_devices is equal to zero.
    // SAFETY: deliberately invalid device list arguments; nothing is read through them.
    let c =
        unsafe { clCreateContext(props.as_ptr(), 0, &d.device, None, ptr::null_mut(), &mut rc) };
    expect_create_err(c, rc, CL_INVALID_VALUE, "clCreateContext(0 devices)");
    // SAFETY: as above.
    let c = unsafe {
        clCreateContext(
            props.as_ptr(),
            1,
            ptr::null(),
            None,
            ptr::null_mut(),
            &mut rc,
        )
    };
    expect_create_err(c, rc, CL_INVALID_VALUE, "clCreateContext(NULL device list)");
    // Without properties the loader answers these itself (same codes).
    // SAFETY: as above.
    let c = unsafe { clCreateContext(ptr::null(), 0, ptr::null(), None, ptr::null_mut(), &mut rc) };
    expect_create_err(
        c,
        rc,
        CL_INVALID_VALUE,
        "clCreateContext(no properties, 0 devices)",
    );
    // CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL.
    let mut dummy = 0u8;
    // SAFETY: valid device list; user_data is never dereferenced.
    let c = unsafe {
        clCreateContext(
            props.as_ptr(),
            1,
            &d.device,
            None,
            (&mut dummy as *mut u8).cast(),
            &mut rc,
        )
    };
    expect_create_err(
        c,
        rc,
        CL_INVALID_VALUE,
        "clCreateContext(user_data without pfn_notify)",
    );
    // CL_INVALID_PROPERTY if context property name in properties is not a supported property
    // name.
    let bad = [
        0x7777 as cl_context_properties,
        1,
        CL_CONTEXT_PLATFORM as cl_context_properties,
        d.platform as cl_context_properties,
        0,
    ];
    // SAFETY: a 0-terminated property list and a valid device.
    let c = unsafe { clCreateContext(bad.as_ptr(), 1, &d.device, None, ptr::null_mut(), &mut rc) };
    expect_create_err(
        c,
        rc,
        CL_INVALID_PROPERTY,
        "clCreateContext(unknown property)",
    );
    // "... if the same property name is specified more than once."
    let twice = [
        CL_CONTEXT_PLATFORM as cl_context_properties,
        d.platform as cl_context_properties,
        CL_CONTEXT_PLATFORM as cl_context_properties,
        d.platform as cl_context_properties,
        0,
    ];
    // SAFETY: as above.
    let c =
        unsafe { clCreateContext(twice.as_ptr(), 1, &d.device, None, ptr::null_mut(), &mut rc) };
    spec_code(
        rc,
        CL_INVALID_PROPERTY,
        "clCreateContext(CL_CONTEXT_PLATFORM twice)",
    );
    if !c.is_null() {
        drop(Context(c));
    }
}

#[test]
fn create_context_with_wrong_type_device() {
    if !require_handle_validation() {
        return;
    }
    let d = dev();
    let other = Context::new();
    // CL_INVALID_DEVICE if any device in devices is not a valid device. The loader dispatches on
    // devices[0], so the bad handle goes second.
    let devices = [d.device, wrong_handle(other.raw())];
    let mut rc = 0;
    // SAFETY: two handles; the second is a live object of the wrong type.
    let c = unsafe {
        clCreateContext(
            ptr::null(),
            2,
            devices.as_ptr(),
            None,
            ptr::null_mut(),
            &mut rc,
        )
    };
    expect_create_err(
        c,
        rc,
        CL_INVALID_DEVICE,
        "clCreateContext(context handle as device)",
    );
}

#[test]
fn wrong_type_context_handles() {
    if !require_handle_validation() {
        return;
    }
    let env = Env::new();
    let bad: cl_context = wrong_handle(env.queue.raw());
    let mut v = [0u8; 16];
    // CL_INVALID_CONTEXT if context is not a valid context.
    // SAFETY: a live object of the wrong type.
    let rc = unsafe {
        clGetContextInfo(
            bad,
            CL_CONTEXT_NUM_DEVICES,
            v.len(),
            v.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_CONTEXT, "clGetContextInfo(queue handle)");
    // SAFETY: as above.
    expect_code(
        unsafe { clRetainContext(bad) },
        CL_INVALID_CONTEXT,
        "clRetainContext(queue handle)",
    );
    let mut rc = 0;
    // SAFETY: as above.
    let m = unsafe {
        clCreateBuffer(
            wrong_handle(env.dev.device),
            CL_MEM_READ_WRITE,
            64,
            ptr::null_mut(),
            &mut rc,
        )
    };
    expect_create_err(
        m,
        rc,
        CL_INVALID_CONTEXT,
        "clCreateBuffer(device handle as context)",
    );
    // SAFETY: as above.
    let q =
        unsafe { clCreateCommandQueueWithProperties(bad, env.dev.device, ptr::null(), &mut rc) };
    expect_create_err(
        q,
        rc,
        CL_INVALID_CONTEXT,
        "clCreateCommandQueueWithProperties(queue handle as context)",
    );
    // SAFETY: as above.
    let e = unsafe { clCreateUserEvent(bad, &mut rc) };
    expect_create_err(
        e,
        rc,
        CL_INVALID_CONTEXT,
        "clCreateUserEvent(queue handle as context)",
    );
}

#[test]
fn null_context_handle() {
    let mut rc = 0;
    // The loader answers for NULL: CL_INVALID_CONTEXT.
    // SAFETY: NULL handle.
    let m = unsafe {
        clCreateBuffer(
            ptr::null_mut(),
            CL_MEM_READ_WRITE,
            64,
            ptr::null_mut(),
            &mut rc,
        )
    };
    expect_create_err(m, rc, CL_INVALID_CONTEXT, "clCreateBuffer(NULL context)");
    // SAFETY: NULL handle.
    expect_code(
        unsafe { clReleaseContext(ptr::null_mut()) },
        CL_INVALID_CONTEXT,
        "clReleaseContext(NULL)",
    );
}

static CTX_DESTRUCTOR_CALLS: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn ctx_destructor(_ctx: cl_context, user_data: *mut c_void) {
    assert_eq!(user_data as usize, 0x1234);
    CTX_DESTRUCTOR_CALLS.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn context_destructor_callback() {
    let ctx = Context::new();
    // SAFETY: a live context and a callback valid for the program's life.
    let rc = unsafe {
        clSetContextDestructorCallback(ctx.raw(), Some(ctx_destructor), 0x1234 as *mut c_void)
    };
    check(rc, "clSetContextDestructorCallback");
    // CL_INVALID_VALUE if pfn_notify is NULL.
    // SAFETY: as above.
    let rc = unsafe { clSetContextDestructorCallback(ctx.raw(), None, ptr::null_mut()) };
    expect_code(rc, CL_INVALID_VALUE, "clSetContextDestructorCallback(NULL)");
    // SAFETY: an extra reference, dropped below: the callback must not run in between.
    unsafe {
        check(clRetainContext(ctx.raw()), "clRetainContext");
        check(clReleaseContext(ctx.raw()), "clReleaseContext");
    }
    assert_eq!(
        CTX_DESTRUCTOR_CALLS.load(Ordering::SeqCst),
        0,
        "destructor ran while the context was alive"
    );
    drop(ctx);
    assert!(
        wait_until(5.0, || CTX_DESTRUCTOR_CALLS.load(Ordering::SeqCst) == 1),
        "context destructor callback was not called"
    );
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_eq!(
        CTX_DESTRUCTOR_CALLS.load(Ordering::SeqCst),
        1,
        "context destructor called more than once"
    );
}

#[test]
fn queue_info_and_properties() {
    let env = Env::with_queue_properties(CL_QUEUE_PROFILING_ENABLE);
    let q = env.queue.raw();
    let ctx: cl_context = pod(&queue_info(q, CL_QUEUE_CONTEXT).unwrap());
    assert_eq!(ctx, env.ctx.raw());
    let device: cl_device_id = pod(&queue_info(q, CL_QUEUE_DEVICE).unwrap());
    assert_eq!(device, env.dev.device);
    let refs: cl_uint = pod(&queue_info(q, CL_QUEUE_REFERENCE_COUNT).unwrap());
    assert_eq!(refs, 1);
    let props: cl_command_queue_properties = pod(&queue_info(q, CL_QUEUE_PROPERTIES).unwrap());
    assert_eq!(props, CL_QUEUE_PROFILING_ENABLE);
    let array: Vec<cl_queue_properties> =
        pod_vec(&queue_info(q, CL_QUEUE_PROPERTIES_ARRAY).unwrap());
    assert_eq!(
        array,
        vec![
            CL_QUEUE_PROPERTIES as cl_queue_properties,
            CL_QUEUE_PROFILING_ENABLE,
            0
        ],
        "CL_QUEUE_PROPERTIES_ARRAY returns the list given at creation"
    );
    // SAFETY: a live queue; the extra reference is dropped right after.
    unsafe {
        check(clRetainCommandQueue(q), "clRetainCommandQueue");
    }
    let refs: cl_uint = pod(&queue_info(q, CL_QUEUE_REFERENCE_COUNT).unwrap());
    assert_eq!(refs, 2);
    // SAFETY: drops the reference taken above.
    unsafe {
        check(clReleaseCommandQueue(q), "clReleaseCommandQueue");
    }
    // A queue holds a reference on its context.
    let ctx_refs: cl_uint = pod(&context_info(env.ctx.raw(), CL_CONTEXT_REFERENCE_COUNT).unwrap());
    assert!(ctx_refs >= 1);
    env.queue.flush();
    env.queue.finish();
}

#[test]
fn queue_without_properties_and_deprecated_entry_point() {
    let env = Env::new();
    let mut rc = 0;
    // SAFETY: live context and device, NULL property list.
    let q = unsafe {
        clCreateCommandQueueWithProperties(env.ctx.raw(), env.dev.device, ptr::null(), &mut rc)
    };
    check(rc, "clCreateCommandQueueWithProperties(NULL)");
    let q = Queue(q);
    let props: cl_command_queue_properties =
        pod(&queue_info(q.raw(), CL_QUEUE_PROPERTIES).unwrap());
    assert_eq!(props, 0);
    let array = queue_info(q.raw(), CL_QUEUE_PROPERTIES_ARRAY).unwrap();
    assert!(
        array.is_empty(),
        "CL_QUEUE_PROPERTIES_ARRAY of a queue created without properties has size {}",
        array.len()
    );
    #[expect(deprecated, reason = "the OpenCL 1.x entry point must keep working")]
    // SAFETY: live context and device.
    let q1 = unsafe {
        clCreateCommandQueue(
            env.ctx.raw(),
            env.dev.device,
            CL_QUEUE_PROFILING_ENABLE,
            &mut rc,
        )
    };
    check(rc, "clCreateCommandQueue");
    let q1 = Queue(q1);
    let props: cl_command_queue_properties =
        pod(&queue_info(q1.raw(), CL_QUEUE_PROPERTIES).unwrap());
    assert_eq!(props, CL_QUEUE_PROFILING_ENABLE);
}

#[test]
fn out_of_order_queue_if_supported() {
    let supported: cl_command_queue_properties = device_get(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES);
    let env = Env::new();
    let r = Queue::try_new(&env.ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    if supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0 {
        let q = r.unwrap_or_else(|e| panic!("out-of-order queue: {}", error_name(e)));
        // Dependencies through events still order commands on an out-of-order queue.
        let b = env.buffer_zeroed::<u32>(1024);
        let data: Vec<u32> = (0..1024).collect();
        let mut ev = ptr::null_mut();
        // SAFETY: `data` outlives the blocking read below which depends on this write.
        check(
            unsafe {
                clEnqueueWriteBuffer(
                    q.raw(),
                    b.raw(),
                    CL_FALSE,
                    0,
                    4096,
                    data.as_ptr().cast(),
                    0,
                    ptr::null(),
                    &mut ev,
                )
            },
            "write",
        );
        let ev = Event(ev);
        let mut out = vec![0u32; 1024];
        // SAFETY: blocking read into `out`, after `ev`.
        check(
            unsafe {
                clEnqueueReadBuffer(
                    q.raw(),
                    b.raw(),
                    CL_TRUE,
                    0,
                    4096,
                    out.as_mut_ptr().cast(),
                    1,
                    &ev.raw(),
                    ptr::null_mut(),
                )
            },
            "read",
        );
        assert_eq!(out, data);
    } else {
        // CL_INVALID_QUEUE_PROPERTIES if values specified in properties are valid but are not
        // supported by the device.
        expect_code(
            r.err().unwrap_or(CL_SUCCESS),
            CL_INVALID_QUEUE_PROPERTIES,
            "out-of-order queue on a device without it",
        );
    }
}

#[test]
fn create_queue_errors() {
    let env = Env::new();
    let mut rc = 0;
    // CL_INVALID_VALUE if values specified in properties are not valid.
    let bad_name = [0x7777 as cl_queue_properties, 0, 0];
    // SAFETY: a 0-terminated property list.
    let q = unsafe {
        clCreateCommandQueueWithProperties(
            env.ctx.raw(),
            env.dev.device,
            bad_name.as_ptr(),
            &mut rc,
        )
    };
    expect_create_err(
        q,
        rc,
        CL_INVALID_VALUE,
        "queue with an unknown property name",
    );
    let bad_bits = [CL_QUEUE_PROPERTIES as cl_queue_properties, 1 << 40, 0];
    // SAFETY: as above.
    let q = unsafe {
        clCreateCommandQueueWithProperties(
            env.ctx.raw(),
            env.dev.device,
            bad_bits.as_ptr(),
            &mut rc,
        )
    };
    expect_create_err(q, rc, CL_INVALID_VALUE, "queue with unknown property bits");
    // NULL device: CL_INVALID_DEVICE.
    // SAFETY: NULL device handle.
    let q = unsafe {
        clCreateCommandQueueWithProperties(env.ctx.raw(), ptr::null_mut(), ptr::null(), &mut rc)
    };
    expect_create_err(q, rc, CL_INVALID_DEVICE, "queue for a NULL device");
    if !is_ferrite() && skip_allowed() {
        // PoCL 3.1 aborts the process on any CL_QUEUE_ON_DEVICE request.
        eprintln!("SKIP: CL_QUEUE_ON_DEVICE checks on a driver other than Ferrite");
        return;
    }
    // CL_QUEUE_ON_DEVICE without CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE is not valid.
    let on_device = [
        CL_QUEUE_PROPERTIES as cl_queue_properties,
        CL_QUEUE_ON_DEVICE,
        0,
    ];
    // SAFETY: as above.
    let q = unsafe {
        clCreateCommandQueueWithProperties(
            env.ctx.raw(),
            env.dev.device,
            on_device.as_ptr(),
            &mut rc,
        )
    };
    expect_create_err(
        q,
        rc,
        CL_INVALID_VALUE,
        "CL_QUEUE_ON_DEVICE without out-of-order",
    );
}

#[test]
fn wrong_type_queue_handles() {
    if !require_handle_validation() {
        return;
    }
    let env = Env::new();
    let bad: cl_command_queue = wrong_handle(env.ctx.raw());
    // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue.
    // SAFETY: a live object of the wrong type.
    expect_code(
        unsafe { clFinish(bad) },
        CL_INVALID_COMMAND_QUEUE,
        "clFinish(context handle)",
    );
    // SAFETY: as above.
    expect_code(
        unsafe { clFlush(bad) },
        CL_INVALID_COMMAND_QUEUE,
        "clFlush(context handle)",
    );
    // SAFETY: as above.
    expect_code(
        unsafe { clRetainCommandQueue(bad) },
        CL_INVALID_COMMAND_QUEUE,
        "clRetainCommandQueue(context handle)",
    );
    let b = env.buffer_zeroed::<u8>(16);
    let mut out = [0u8; 16];
    // SAFETY: as above; `out` has 16 bytes.
    let rc = unsafe {
        clEnqueueReadBuffer(
            bad,
            b.raw(),
            CL_TRUE,
            0,
            16,
            out.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_INVALID_COMMAND_QUEUE,
        "clEnqueueReadBuffer(context handle as queue)",
    );
    let mut rc = 0;
    // CL_INVALID_DEVICE if device is not a valid device or is not associated with context.
    // SAFETY: a live object of the wrong type as the device.
    let q = unsafe {
        clCreateCommandQueueWithProperties(
            env.ctx.raw(),
            wrong_handle(env.ctx.raw()),
            ptr::null(),
            &mut rc,
        )
    };
    expect_create_err(
        q,
        rc,
        CL_INVALID_DEVICE,
        "queue for a context handle as device",
    );
}

#[test]
fn null_queue_handle() {
    // SAFETY: NULL handles; the loader answers.
    expect_code(
        unsafe { clFinish(ptr::null_mut()) },
        CL_INVALID_COMMAND_QUEUE,
        "clFinish(NULL)",
    );
}
