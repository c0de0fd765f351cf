//! Handles used after their last release. The specification leaves this undefined, and the
//! ICD loader reads the dispatch table through the stale handle before the driver sees it, so
//! these tests hold only for a driver that keeps a released handle's memory readable and
//! recognises it as dead. Ferrite promises that (its handles are validated by dispatch pointer
//! and type tag); on any other driver the tests are skipped. They live in their own test
//! binary so that a crash here cannot hide other results.

use ferrite_tests::*;
use std::ptr;

#[test]
fn released_handles_report_their_invalid_code() {
    if !require_handle_validation() {
        return;
    }
    let env = Env::new();
    let mut v = [0u8; 64];
    let mut rc = 0;

    let ctx = Context::new().into_raw();
    // SAFETY: releases the only reference.
    check(unsafe { clReleaseContext(ctx) }, "clReleaseContext");
    // SAFETY: a released handle; Ferrite keeps it readable and reports it invalid.
    let r = unsafe {
        clGetContextInfo(
            ctx,
            CL_CONTEXT_NUM_DEVICES,
            4,
            v.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    expect_code(
        r,
        CL_INVALID_CONTEXT,
        "clGetContextInfo on a released context",
    );
    // SAFETY: as above.
    let m = unsafe { clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, ptr::null_mut(), &mut rc) };
    expect_create_err(
        m,
        rc,
        CL_INVALID_CONTEXT,
        "clCreateBuffer on a released context",
    );
    // SAFETY: as above.
    expect_code(
        unsafe { clReleaseContext(ctx) },
        CL_INVALID_CONTEXT,
        "second clReleaseContext",
    );

    let q = Queue::new(&env.ctx, 0).into_raw();
    // SAFETY: releases the only reference.
    check(unsafe { clReleaseCommandQueue(q) }, "clReleaseCommandQueue");
    // SAFETY: as above.
    expect_code(
        unsafe { clFinish(q) },
        CL_INVALID_COMMAND_QUEUE,
        "clFinish on a released queue",
    );

    let b = Buffer::new(&env.ctx, CL_MEM_READ_WRITE, 64).into_raw();
    // SAFETY: releases the only reference.
    check(unsafe { clReleaseMemObject(b) }, "clReleaseMemObject");
    // SAFETY: as above.
    let r = unsafe {
        clEnqueueReadBuffer(
            env.queue.raw(),
            b,
            CL_TRUE,
            0,
            64,
            v.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(r, CL_INVALID_MEM_OBJECT, "read from a released buffer");
    // SAFETY: as above.
    let r =
        unsafe { clGetMemObjectInfo(b, CL_MEM_SIZE, 8, v.as_mut_ptr().cast(), ptr::null_mut()) };
    expect_code(
        r,
        CL_INVALID_MEM_OBJECT,
        "clGetMemObjectInfo on a released buffer",
    );

    let p = env.build("__kernel void k(__global int *x) { x[0] = 1; }", "");
    let k = p.kernel("k").into_raw();
    // SAFETY: releases the only reference.
    check(unsafe { clReleaseKernel(k) }, "clReleaseKernel");
    let buf = env.buffer_zeroed::<i32>(1);
    let raw = buf.raw();
    // SAFETY: as above.
    let r = unsafe {
        clSetKernelArg(
            k,
            0,
            std::mem::size_of::<cl_mem>(),
            (&raw as *const cl_mem).cast(),
        )
    };
    expect_code(r, CL_INVALID_KERNEL, "clSetKernelArg on a released kernel");

    let p = p.into_raw();
    // SAFETY: releases the only reference (the kernel above is gone).
    check(unsafe { clReleaseProgram(p) }, "clReleaseProgram");
    let name = c"k";
    // SAFETY: as above.
    let k2 = unsafe { clCreateKernel(p, name.as_ptr(), &mut rc) };
    expect_create_err(
        k2,
        rc,
        CL_INVALID_PROGRAM,
        "clCreateKernel on a released program",
    );

    let e = Event::user(&env.ctx);
    e.set_status(CL_COMPLETE);
    let e = e.into_raw();
    // SAFETY: releases the only reference.
    check(unsafe { clReleaseEvent(e) }, "clReleaseEvent");
    // SAFETY: as above.
    expect_code(
        unsafe { clWaitForEvents(1, &e) },
        CL_INVALID_EVENT,
        "clWaitForEvents on a released event",
    );
    // SAFETY: as above.
    let r = unsafe {
        clGetEventInfo(
            e,
            CL_EVENT_COMMAND_TYPE,
            4,
            v.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    expect_code(r, CL_INVALID_EVENT, "clGetEventInfo on a released event");
}
