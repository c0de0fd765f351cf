//! Events: every enqueue's event reaches `CL_COMPLETE` with the right command type, wait lists
//! gate commands (user events, error statuses), callbacks for each status, profiling
//! timestamps, markers and barriers, `clFinish`/`clFlush`, and the error codes of bad wait
//! lists and event handles.

use ferrite_tests::*;
use std::ffi::c_void;
use std::ptr;
use std::sync::Mutex;
use std::time::Duration;

const INC_KERNEL: &str = r#"
__kernel void inc(__global int *data) {
    data[get_global_id(0)] += 1;
}
"#;

fn event_query<T: Copy>(e: &Event, param: cl_event_info) -> T {
    pod(&event_info(e.raw(), param)
        .unwrap_or_else(|c| panic!("clGetEventInfo({param:#x}): {}", error_name(c))))
}

#[test]
fn every_enqueue_returns_a_completing_event() {
    let env = Env::new();
    let q = env.queue.raw();
    let a = env.buffer_zeroed::<i32>(256);
    let b = env.buffer_zeroed::<i32>(256);
    let data = vec![3i32; 256];
    let mut out = vec![0i32; 256];
    let p = env.build(INC_KERNEL, "");
    let k = p.kernel("inc");
    k.buf(0, &a);
    let mut events: Vec<(Event, cl_command_type)> = Vec::new();
    let mut push = |rc: cl_int, ev: cl_event, ty: cl_command_type, what: &str| {
        check(rc, what);
        assert!(!ev.is_null(), "{what} returned no event");
        events.push((Event(ev), ty));
    };
    let mut ev = ptr::null_mut();
    // SAFETY: every host pointer below outlives the clFinish at the end.
    unsafe {
        let rc = clEnqueueWriteBuffer(
            q,
            a.raw(),
            CL_FALSE,
            0,
            1024,
            data.as_ptr().cast(),
            0,
            ptr::null(),
            &mut ev,
        );
        push(rc, ev, CL_COMMAND_WRITE_BUFFER, "write");
        let g = 256usize;
        let rc = clEnqueueNDRangeKernel(
            q,
            k.raw(),
            1,
            ptr::null(),
            &g,
            ptr::null(),
            0,
            ptr::null(),
            &mut ev,
        );
        push(rc, ev, CL_COMMAND_NDRANGE_KERNEL, "ndrange");
        #[expect(deprecated, reason = "clEnqueueTask is still part of OpenCL 3.0")]
        let rc = clEnqueueTask(q, k.raw(), 0, ptr::null(), &mut ev);
        push(rc, ev, CL_COMMAND_TASK, "task");
        let rc = clEnqueueCopyBuffer(q, a.raw(), b.raw(), 0, 0, 1024, 0, ptr::null(), &mut ev);
        push(rc, ev, CL_COMMAND_COPY_BUFFER, "copy");
        let pattern = 9i32;
        let rc = clEnqueueFillBuffer(
            q,
            a.raw(),
            (&pattern as *const i32).cast(),
            4,
            0,
            1024,
            0,
            ptr::null(),
            &mut ev,
        );
        push(rc, ev, CL_COMMAND_FILL_BUFFER, "fill");
        let rc = clEnqueueMarkerWithWaitList(q, 0, ptr::null(), &mut ev);
        push(rc, ev, CL_COMMAND_MARKER, "marker");
        let rc = clEnqueueBarrierWithWaitList(q, 0, ptr::null(), &mut ev);
        push(rc, ev, CL_COMMAND_BARRIER, "barrier");
        let mut rc = 0;
        let mp = clEnqueueMapBuffer(
            q,
            b.raw(),
            CL_FALSE,
            CL_MAP_READ,
            0,
            1024,
            0,
            ptr::null(),
            &mut ev,
            &mut rc,
        );
        push(rc, ev, CL_COMMAND_MAP_BUFFER, "map");
        let rc = clEnqueueUnmapMemObject(q, b.raw(), mp, 0, ptr::null(), &mut ev);
        push(rc, ev, CL_COMMAND_UNMAP_MEM_OBJECT, "unmap");
        let rc = clEnqueueReadBuffer(
            q,
            b.raw(),
            CL_FALSE,
            0,
            1024,
            out.as_mut_ptr().cast(),
            0,
            ptr::null(),
            &mut ev,
        );
        push(rc, ev, CL_COMMAND_READ_BUFFER, "read");
    }
    let raw: Vec<cl_event> = events.iter().map(|(e, _)| e.raw()).collect();
    // SAFETY: all events are live.
    check(
        unsafe { clWaitForEvents(raw.len() as cl_uint, raw.as_ptr()) },
        "clWaitForEvents(all)",
    );
    for (e, ty) in &events {
        assert_eq!(e.status(), CL_COMPLETE, "command {ty:#x}");
        let got = e.command_type();
        spec_check(
            got == *ty,
            &format!("CL_EVENT_COMMAND_TYPE is {got:#x}, expected {ty:#x}"),
        );
        let eq: cl_command_queue = event_query(e, CL_EVENT_COMMAND_QUEUE);
        assert_eq!(eq, q);
        let ec: cl_context = event_query(e, CL_EVENT_CONTEXT);
        assert_eq!(ec, env.ctx.raw());
        let refs: cl_uint = event_query(e, CL_EVENT_REFERENCE_COUNT);
        assert!(refs >= 1);
    }
    // write 3, +1 (ndrange), +1 (task, work-item 0 only), copied to b.
    assert_eq!(out[0], 5);
    assert!(out[1..].iter().all(|&v| v == 4), "{:?}", &out[..8]);
    assert!(a.read::<i32>(&env.queue, 256).iter().all(|&v| v == 9));
}

#[test]
fn user_event_gates_a_write() {
    let env = Env::new();
    let b = env.buffer_from(&[0u32; 1024]);
    let gate = Event::user(&env.ctx);
    assert_eq!(
        gate.status(),
        CL_SUBMITTED,
        "a new user event is CL_SUBMITTED"
    );
    assert_eq!(gate.command_type(), CL_COMMAND_USER);
    let q: cl_command_queue = event_query(&gate, CL_EVENT_COMMAND_QUEUE);
    assert!(q.is_null(), "a user event has no queue");
    let data = vec![7u32; 1024];
    let mut ev = ptr::null_mut();
    // SAFETY: `data` outlives the wait below.
    let rc = unsafe {
        clEnqueueWriteBuffer(
            env.queue.raw(),
            b.raw(),
            CL_FALSE,
            0,
            4096,
            data.as_ptr().cast(),
            1,
            &gate.raw(),
            &mut ev,
        )
    };
    check(rc, "gated write");
    let write = Event(ev);
    env.queue.flush();
    std::thread::sleep(Duration::from_millis(200));
    let st = write.status();
    assert!(
        st == CL_QUEUED || st == CL_SUBMITTED,
        "gated write has status {st} before its user event completed"
    );
    // Another queue still sees the old contents: the write has not run.
    let q2 = Queue::new(&env.ctx, 0);
    assert!(
        b.read::<u32>(&q2, 1024).iter().all(|&v| v == 0),
        "the gated write ran before clSetUserEventStatus"
    );
    gate.set_status(CL_COMPLETE);
    write.wait();
    assert_eq!(write.status(), CL_COMPLETE);
    assert!(b.read::<u32>(&env.queue, 1024).iter().all(|&v| v == 7));
    // CL_INVALID_OPERATION if the execution_status for event has already been changed by a
    // previous call to clSetUserEventStatus.
    // SAFETY: a live user event.
    let rc = unsafe { clSetUserEventStatus(gate.raw(), CL_COMPLETE) };
    expect_code(rc, CL_INVALID_OPERATION, "second clSetUserEventStatus");
    // CL_INVALID_VALUE if the execution_status is not CL_COMPLETE or a negative integer value.
    let other = Event::user(&env.ctx);
    // SAFETY: as above.
    let rc = unsafe { clSetUserEventStatus(other.raw(), CL_RUNNING) };
    expect_code(rc, CL_INVALID_VALUE, "clSetUserEventStatus(CL_RUNNING)");
    other.set_status(CL_COMPLETE);
    // CL_INVALID_EVENT if event is not a valid user event (a command's event).
    // SAFETY: a live, non-user event.
    let rc = unsafe { clSetUserEventStatus(write.raw(), CL_COMPLETE) };
    expect_code(
        rc,
        CL_INVALID_EVENT,
        "clSetUserEventStatus on a command's event",
    );
}

#[test]
fn user_event_error_fails_dependents() {
    let env = Env::new();
    let b = env.buffer_from(&[1u32; 256]);
    let gate = Event::user(&env.ctx);
    let data = vec![9u32; 256];
    let mut ev = ptr::null_mut();
    // SAFETY: `data` outlives the waits below.
    let rc = unsafe {
        clEnqueueWriteBuffer(
            env.queue.raw(),
            b.raw(),
            CL_FALSE,
            0,
            1024,
            data.as_ptr().cast(),
            1,
            &gate.raw(),
            &mut ev,
        )
    };
    check(rc, "gated write");
    let write = Event(ev);
    gate.set_status(-77);
    assert_eq!(gate.status(), -77);
    // "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the execution status of any of the
    // events in event_list is a negative integer value."
    // SAFETY: a live event.
    let rc = unsafe { clWaitForEvents(1, &write.raw()) };
    expect_code(
        rc,
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
        "waiting on a command whose dependency failed",
    );
    let st = write.status();
    assert!(
        st < 0,
        "a command depending on a failed user event has status {st}, expected a negative error"
    );
    // The write never ran.
    let q2 = Queue::new(&env.ctx, 0);
    assert!(
        b.read::<u32>(&q2, 256).iter().all(|&v| v == 1),
        "a command depending on a failed event ran"
    );
}

static CALLBACKS: Mutex<Vec<(usize, cl_int)>> = Mutex::new(Vec::new());

unsafe extern "C" fn record(_e: cl_event, status: cl_int, user_data: *mut c_void) {
    CALLBACKS.lock().unwrap().push((user_data as usize, status));
}

fn callbacks_for(tags: &[usize]) -> Vec<(usize, cl_int)> {
    let mut v: Vec<(usize, cl_int)> = CALLBACKS
        .lock()
        .unwrap()
        .iter()
        .copied()
        .filter(|(t, _)| tags.contains(t))
        .collect();
    v.sort();
    v
}

#[test]
fn event_callbacks_for_each_status() {
    let env = Env::new();
    let b = env.buffer_zeroed::<i32>(1024);
    let p = env.build(INC_KERNEL, "");
    let k = p.kernel("inc");
    k.buf(0, &b);
    let gate = Event::user(&env.ctx);
    let g = 1024usize;
    let mut ev = ptr::null_mut();
    // SAFETY: valid kernel and queue; one-event wait list.
    check(
        unsafe {
            clEnqueueNDRangeKernel(
                env.queue.raw(),
                k.raw(),
                1,
                ptr::null(),
                &g,
                ptr::null(),
                1,
                &gate.raw(),
                &mut ev,
            )
        },
        "gated kernel",
    );
    let kev = Event(ev);
    for (tag, ty) in [
        (301usize, CL_SUBMITTED),
        (302, CL_RUNNING),
        (303, CL_COMPLETE),
    ] {
        // SAFETY: a live event and a callback valid for the program's life.
        check(
            unsafe { clSetEventCallback(kev.raw(), ty, Some(record), tag as *mut c_void) },
            "clSetEventCallback",
        );
    }
    // SAFETY: as above, on the user event.
    check(
        unsafe { clSetEventCallback(gate.raw(), CL_COMPLETE, Some(record), 304 as *mut c_void) },
        "clSetEventCallback(user)",
    );
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        callbacks_for(&[302, 303, 304]).is_empty(),
        "RUNNING/COMPLETE callbacks before the gate opened"
    );
    gate.set_status(CL_COMPLETE);
    kev.wait();
    env.queue.finish();
    // Callbacks may run on another thread after the wait returns: give them time.
    let all = [301, 302, 303, 304];
    assert!(
        wait_until(5.0, || callbacks_for(&all).len() == 4),
        "callbacks seen: {:?}",
        callbacks_for(&all)
    );
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(
        callbacks_for(&all),
        vec![
            (301, CL_SUBMITTED),
            (302, CL_RUNNING),
            (303, CL_COMPLETE),
            (304, CL_COMPLETE)
        ]
    );
    // A callback registered on a complete event is still called.
    // SAFETY: as above.
    check(
        unsafe { clSetEventCallback(kev.raw(), CL_COMPLETE, Some(record), 305 as *mut c_void) },
        "clSetEventCallback(complete)",
    );
    assert!(wait_until(5.0, || callbacks_for(&[305]) == vec![(305, CL_COMPLETE)]));
    // CL_INVALID_VALUE if pfn_event_notify is NULL or if command_exec_callback_type is not
    // CL_SUBMITTED, CL_RUNNING, or CL_COMPLETE.
    // SAFETY: invalid arguments are rejected.
    let rc = unsafe { clSetEventCallback(kev.raw(), CL_QUEUED, Some(record), ptr::null_mut()) };
    expect_code(rc, CL_INVALID_VALUE, "clSetEventCallback(CL_QUEUED)");
    // SAFETY: as above.
    let rc = unsafe { clSetEventCallback(kev.raw(), CL_COMPLETE, None, ptr::null_mut()) };
    expect_code(rc, CL_INVALID_VALUE, "clSetEventCallback(NULL)");
    assert!(b.read::<i32>(&env.queue, 1024).iter().all(|&v| v == 1));
}

#[test]
fn error_callback_reports_the_error_status() {
    let env = Env::new();
    let gate = Event::user(&env.ctx);
    // SAFETY: a live event and a callback valid for the program's life.
    check(
        unsafe { clSetEventCallback(gate.raw(), CL_COMPLETE, Some(record), 401 as *mut c_void) },
        "clSetEventCallback",
    );
    gate.set_status(-5);
    // "The callback function registered for a command_exec_callback_type value of CL_COMPLETE
    // will be called when the command has completed successfully or is abnormally terminated",
    // with event_command_status the error code.
    let called = wait_until(5.0, || callbacks_for(&[401]) == vec![(401, -5)]);
    spec_check(
        called,
        &format!(
            "CL_COMPLETE callback of a user event set to -5: calls {:?}",
            callbacks_for(&[401])
        ),
    );
}

#[test]
fn profiling_timestamps_are_ordered() {
    let env = Env::with_queue_properties(CL_QUEUE_PROFILING_ENABLE);
    let b = env.buffer_zeroed::<i32>(1 << 16);
    let p = env.build(INC_KERNEL, "");
    let k = p.kernel("inc");
    k.buf(0, &b);
    let ev = enqueue_nd(&env.queue, &k, None, &[1 << 16], None).expect("enqueue");
    ev.wait();
    let t = |param| -> cl_ulong {
        pod(&profiling_info(ev.raw(), param)
            .unwrap_or_else(|c| panic!("profiling {param:#x}: {}", error_name(c))))
    };
    let (queued, submit, start, end) = (
        t(CL_PROFILING_COMMAND_QUEUED),
        t(CL_PROFILING_COMMAND_SUBMIT),
        t(CL_PROFILING_COMMAND_START),
        t(CL_PROFILING_COMMAND_END),
    );
    let complete = t(CL_PROFILING_COMMAND_COMPLETE);
    assert!(queued > 0, "timestamps are device time in ns, not 0");
    assert!(
        queued <= submit && submit <= start && start <= end && end <= complete,
        "queued {queued} submit {submit} start {start} end {end} complete {complete}"
    );
    assert!(
        end - queued < 60_000_000_000,
        "a tiny kernel took more than a minute by its timestamps"
    );
    // Two commands in order: the second starts after the first ends.
    let data = vec![0u8; 1 << 16];
    let mut wev = ptr::null_mut();
    // SAFETY: blocking write from `data`.
    check(
        unsafe {
            clEnqueueWriteBuffer(
                env.queue.raw(),
                b.raw(),
                CL_TRUE,
                0,
                data.len(),
                data.as_ptr().cast(),
                0,
                ptr::null(),
                &mut wev,
            )
        },
        "write",
    );
    let wev = Event(wev);
    let wstart: cl_ulong = pod(&profiling_info(wev.raw(), CL_PROFILING_COMMAND_START).unwrap());
    assert!(
        wstart >= end,
        "an in-order queue started a command ({wstart}) before the previous one ended ({end})"
    );
    // CL_PROFILING_INFO_NOT_AVAILABLE if the CL_QUEUE_PROFILING_ENABLE flag is not set for the
    // command-queue, if the execution status of the command identified by event is not
    // CL_COMPLETE or if event is a user event object.
    let plain = Env::new();
    let b2 = plain.buffer_zeroed::<i32>(16);
    let k2 = plain.build(INC_KERNEL, "").kernel("inc");
    k2.buf(0, &b2);
    let ev2 = enqueue_nd(&plain.queue, &k2, None, &[16], None).unwrap();
    ev2.wait();
    let mut v = 0u64;
    // SAFETY: 8-byte out value.
    let rc = unsafe {
        clGetEventProfilingInfo(
            ev2.raw(),
            CL_PROFILING_COMMAND_START,
            8,
            (&mut v as *mut u64).cast(),
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_PROFILING_INFO_NOT_AVAILABLE,
        "profiling info on a queue without profiling",
    );
    let user = Event::user(&env.ctx);
    user.set_status(CL_COMPLETE);
    // SAFETY: as above.
    let rc = unsafe {
        clGetEventProfilingInfo(
            user.raw(),
            CL_PROFILING_COMMAND_START,
            8,
            (&mut v as *mut u64).cast(),
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_PROFILING_INFO_NOT_AVAILABLE,
        "profiling info of a user event",
    );
}

#[test]
fn finish_and_flush_complete_everything() {
    let env = Env::new();
    let b = env.buffer_zeroed::<i32>(4096);
    let p = env.build(INC_KERNEL, "");
    let k = p.kernel("inc");
    k.buf(0, &b);
    let events: Vec<Event> = (0..50)
        .map(|_| enqueue_nd(&env.queue, &k, None, &[4096], None).expect("enqueue"))
        .collect();
    env.queue.flush();
    env.queue.finish();
    for e in &events {
        assert_eq!(
            e.status(),
            CL_COMPLETE,
            "clFinish returned before a command completed"
        );
    }
    assert!(b.read::<i32>(&env.queue, 4096).iter().all(|&v| v == 50));
}

#[test]
fn wait_lists_across_queues_and_markers() {
    let env = Env::new();
    let q2 = Queue::new(&env.ctx, 0);
    let b = env.buffer_zeroed::<i32>(1024);
    let p = env.build(INC_KERNEL, "");
    let k = p.kernel("inc");
    k.buf(0, &b);
    let gate = Event::user(&env.ctx);
    // A marker on queue 1 waiting on the gate; a kernel on queue 2 waiting on the marker.
    let mut m = ptr::null_mut();
    // SAFETY: one-event wait list.
    check(
        unsafe { clEnqueueMarkerWithWaitList(env.queue.raw(), 1, &gate.raw(), &mut m) },
        "marker",
    );
    let marker = Event(m);
    let g = 1024usize;
    let mut ev = ptr::null_mut();
    // SAFETY: as above.
    check(
        unsafe {
            clEnqueueNDRangeKernel(
                q2.raw(),
                k.raw(),
                1,
                ptr::null(),
                &g,
                ptr::null(),
                1,
                &marker.raw(),
                &mut ev,
            )
        },
        "kernel after marker",
    );
    let kev = Event(ev);
    q2.flush();
    env.queue.flush();
    std::thread::sleep(Duration::from_millis(100));
    assert_ne!(
        marker.status(),
        CL_COMPLETE,
        "marker completed before its wait list"
    );
    assert_ne!(kev.status(), CL_COMPLETE, "kernel ran before its wait list");
    gate.set_status(CL_COMPLETE);
    kev.wait();
    assert_eq!(marker.status(), CL_COMPLETE);
    assert!(b.read::<i32>(&env.queue, 1024).iter().all(|&v| v == 1));
}

#[test]
fn wait_list_errors() {
    let env = Env::new();
    let b = env.buffer_zeroed::<u8>(64);
    let mut out = [0u8; 64];
    let q = env.queue.raw();
    let e = Event::user(&env.ctx);
    e.set_status(CL_COMPLETE);
    // CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and num_events_in_wait_list > 0, or
    // event_wait_list is not NULL and num_events_in_wait_list is 0.
    // SAFETY: inconsistent wait lists are rejected before use.
    let rc = unsafe {
        clEnqueueReadBuffer(
            q,
            b.raw(),
            CL_TRUE,
            0,
            64,
            out.as_mut_ptr().cast(),
            2,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_INVALID_EVENT_WAIT_LIST,
        "NULL wait list with count 2",
    );
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueReadBuffer(
            q,
            b.raw(),
            CL_TRUE,
            0,
            64,
            out.as_mut_ptr().cast(),
            0,
            &e.raw(),
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_INVALID_EVENT_WAIT_LIST,
        "non-NULL wait list with count 0",
    );
    // SAFETY: as above.
    let rc = unsafe { clEnqueueMarkerWithWaitList(q, 1, ptr::null(), ptr::null_mut()) };
    expect_code(
        rc,
        CL_INVALID_EVENT_WAIT_LIST,
        "marker with NULL wait list and count 1",
    );
    // A NULL entry in the list is not a valid event.
    let list = [e.raw(), ptr::null_mut()];
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueReadBuffer(
            q,
            b.raw(),
            CL_TRUE,
            0,
            64,
            out.as_mut_ptr().cast(),
            2,
            list.as_ptr(),
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_INVALID_EVENT_WAIT_LIST,
        "wait list with a NULL event",
    );
    // CL_INVALID_CONTEXT if the context associated with command_queue and events in
    // event_wait_list are not the same.
    let other = Context::new();
    let foreign = Event::user(&other);
    // SAFETY: a live event of another context.
    let rc = unsafe {
        clEnqueueReadBuffer(
            q,
            b.raw(),
            CL_TRUE,
            0,
            64,
            out.as_mut_ptr().cast(),
            1,
            &foreign.raw(),
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_INVALID_CONTEXT,
        "wait on an event of another context",
    );
    foreign.set_status(CL_COMPLETE);
    // clWaitForEvents: CL_INVALID_VALUE if num_events is zero or event_list is NULL.
    // SAFETY: rejected arguments.
    expect_code(
        unsafe { clWaitForEvents(0, &e.raw()) },
        CL_INVALID_VALUE,
        "clWaitForEvents(0)",
    );
    // SAFETY: as above.
    expect_code(
        unsafe { clWaitForEvents(1, ptr::null()) },
        CL_INVALID_VALUE,
        "clWaitForEvents(NULL)",
    );
    // CL_INVALID_EVENT if event objects specified in event_list are not valid event objects.
    let list = [e.raw(), ptr::null_mut()];
    // SAFETY: the second entry is NULL: the driver must reject it.
    expect_code(
        unsafe { clWaitForEvents(2, list.as_ptr()) },
        CL_INVALID_EVENT,
        "clWaitForEvents with a NULL entry",
    );
    // CL_INVALID_CONTEXT if events specified in event_list do not belong to the same context.
    let list = [e.raw(), foreign.raw()];
    // SAFETY: two live events.
    expect_code(
        unsafe { clWaitForEvents(2, list.as_ptr()) },
        CL_INVALID_CONTEXT,
        "clWaitForEvents across contexts",
    );
    // NULL event handle: the loader answers CL_INVALID_EVENT.
    let mut v = [0u8; 8];
    // SAFETY: NULL handle.
    let rc = unsafe {
        clGetEventInfo(
            ptr::null_mut(),
            CL_EVENT_COMMAND_TYPE,
            8,
            v.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_EVENT, "clGetEventInfo(NULL)");
    // CL_INVALID_VALUE for an unknown param_name.
    // SAFETY: 8-byte buffer.
    let rc = unsafe { clGetEventInfo(e.raw(), 0x7777, 8, v.as_mut_ptr().cast(), ptr::null_mut()) };
    expect_code(rc, CL_INVALID_VALUE, "clGetEventInfo(bad param)");
}

#[test]
fn wrong_type_event_handles() {
    if !require_handle_validation() {
        return;
    }
    let env = Env::new();
    let bad: cl_event = wrong_handle(env.ctx.raw());
    let e = Event::user(&env.ctx);
    e.set_status(CL_COMPLETE);
    // CL_INVALID_EVENT if event objects specified in event_list are not valid event objects.
    // SAFETY: a live object of the wrong type.
    expect_code(
        unsafe { clWaitForEvents(1, &bad) },
        CL_INVALID_EVENT,
        "clWaitForEvents(context handle)",
    );
    let list = [e.raw(), bad];
    // SAFETY: as above.
    expect_code(
        unsafe { clWaitForEvents(2, list.as_ptr()) },
        CL_INVALID_EVENT,
        "clWaitForEvents(event, context handle)",
    );
    let mut v = [0u8; 8];
    // SAFETY: as above.
    let rc = unsafe {
        clGetEventInfo(
            bad,
            CL_EVENT_COMMAND_TYPE,
            8,
            v.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_EVENT, "clGetEventInfo(context handle)");
    // SAFETY: as above.
    expect_code(
        unsafe { clRetainEvent(bad) },
        CL_INVALID_EVENT,
        "clRetainEvent(context handle)",
    );
    // "... or if event objects in event_wait_list are not valid events."
    let b = env.buffer_zeroed::<u8>(64);
    let mut out = [0u8; 64];
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueReadBuffer(
            env.queue.raw(),
            b.raw(),
            CL_TRUE,
            0,
            64,
            out.as_mut_ptr().cast(),
            1,
            &bad,
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_INVALID_EVENT_WAIT_LIST,
        "wait list holding a context handle",
    );
}

#[test]
fn event_retain_release_counts() {
    let env = Env::new();
    let e = Event::user(&env.ctx);
    let refs =
        |e: &Event| -> cl_uint { pod(&event_info(e.raw(), CL_EVENT_REFERENCE_COUNT).unwrap()) };
    assert_eq!(refs(&e), 1);
    // SAFETY: a live event; the reference is dropped right after.
    unsafe { check(clRetainEvent(e.raw()), "clRetainEvent") };
    assert_eq!(refs(&e), 2);
    // SAFETY: drops the reference taken above.
    unsafe { check(clReleaseEvent(e.raw()), "clReleaseEvent") };
    assert_eq!(refs(&e), 1);
    e.set_status(CL_COMPLETE);
}
