//! Out-of-order queues: commands run as soon as their wait lists allow (not in enqueue
//! order), independent commands run at the same time, markers and barriers order what the
//! specification says they order, errors propagate to dependent commands across queues,
//! `clFinish` waits for everything, and `clSetDefaultDeviceCommandQueue` is refused.

use ferrite_tests::*;
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

fn ooo_env() -> Option<(Env, Queue)> {
    let supported: cl_command_queue_properties = device_get(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES);
    if !require(
        supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0,
        "device does not support out-of-order queues",
    ) {
        return None;
    }
    let env = Env::new();
    let q = Queue::new(
        &env.ctx,
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE,
    );
    Some((env, q))
}

/// A non-blocking 4-byte write of `value` at `index` waiting for `wait`.
fn write_word(
    q: &Queue,
    b: &Buffer,
    index: usize,
    value: &'static u32,
    wait: &[cl_event],
) -> Event {
    let mut ev = ptr::null_mut();
    // SAFETY: `value` is 'static; the wait list holds `wait.len()` live events.
    let rc = unsafe {
        clEnqueueWriteBuffer(
            q.raw(),
            b.raw(),
            CL_FALSE,
            index * 4,
            4,
            (value as *const u32).cast(),
            wait.len() as cl_uint,
            if wait.is_empty() {
                ptr::null()
            } else {
                wait.as_ptr()
            },
            &mut ev,
        )
    };
    check(rc, "clEnqueueWriteBuffer");
    Event(ev)
}

fn marker(q: &Queue, wait: &[cl_event]) -> Event {
    let mut ev = ptr::null_mut();
    // SAFETY: the wait list holds `wait.len()` live events.
    let rc = unsafe {
        clEnqueueMarkerWithWaitList(
            q.raw(),
            wait.len() as cl_uint,
            if wait.is_empty() {
                ptr::null()
            } else {
                wait.as_ptr()
            },
            &mut ev,
        )
    };
    check(rc, "clEnqueueMarkerWithWaitList");
    Event(ev)
}

fn barrier(q: &Queue, wait: &[cl_event]) -> Event {
    let mut ev = ptr::null_mut();
    // SAFETY: the wait list holds `wait.len()` live events.
    let rc = unsafe {
        clEnqueueBarrierWithWaitList(
            q.raw(),
            wait.len() as cl_uint,
            if wait.is_empty() {
                ptr::null()
            } else {
                wait.as_ptr()
            },
            &mut ev,
        )
    };
    check(rc, "clEnqueueBarrierWithWaitList");
    Event(ev)
}

fn end_time(e: &Event) -> u64 {
    pod(&profiling_info(e.raw(), CL_PROFILING_COMMAND_END).expect("CL_PROFILING_COMMAND_END"))
}

#[test]
fn queue_reports_out_of_order_mode() {
    let Some((_env, q)) = ooo_env() else { return };
    let props: cl_command_queue_properties =
        pod(&queue_info(q.raw(), CL_QUEUE_PROPERTIES).unwrap());
    assert_eq!(
        props,
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE
    );
}

#[test]
fn commands_run_when_their_wait_lists_complete_not_in_enqueue_order() {
    let Some((env, q)) = ooo_env() else { return };
    let b = env.buffer_zeroed::<u32>(4);
    let (u1, u2) = (Event::user(&env.ctx), Event::user(&env.ctx));
    static ONE: u32 = 1;
    static TWO: u32 = 2;
    let first = write_word(&q, &b, 0, &ONE, &[u1.raw()]);
    let second = write_word(&q, &b, 1, &TWO, &[u2.raw()]);
    // The later command's gate opens first: it completes while the earlier one waits.
    u2.set_status(CL_COMPLETE);
    second.wait();
    std::thread::sleep(Duration::from_millis(20));
    assert_ne!(first.status(), CL_COMPLETE, "the gated command ran early");
    u1.set_status(CL_COMPLETE);
    first.wait();
    assert!(end_time(&second) <= end_time(&first));
    q.finish();
    assert_eq!(b.read::<u32>(&q, 4), vec![1, 2, 0, 0]);
}

#[test]
fn barrier_waits_for_earlier_commands_and_blocks_later_ones() {
    let Some((env, q)) = ooo_env() else { return };
    let b = env.buffer_zeroed::<u32>(4);
    let gate = Event::user(&env.ctx);
    static A: u32 = 10;
    static B: u32 = 20;
    static C: u32 = 30;
    let before = write_word(&q, &b, 0, &A, &[gate.raw()]);
    let bar = barrier(&q, &[]);
    // Independent of the gate, but enqueued after the barrier.
    let after = write_word(&q, &b, 1, &B, &[]);
    // A marker without a wait list waits for everything before it.
    let m = marker(&q, &[]);
    std::thread::sleep(Duration::from_millis(30));
    for (e, what) in [
        (&bar, "barrier"),
        (&after, "command after the barrier"),
        (&m, "marker"),
    ] {
        assert_ne!(
            e.status(),
            CL_COMPLETE,
            "{what} completed before the gate opened"
        );
    }
    gate.set_status(CL_COMPLETE);
    m.wait();
    for e in [&before, &bar, &after, &m] {
        assert_eq!(e.status(), CL_COMPLETE);
    }
    assert!(end_time(&before) <= end_time(&bar) && end_time(&bar) <= end_time(&after));
    assert_eq!(bar.command_type(), CL_COMMAND_BARRIER);
    assert_eq!(m.command_type(), CL_COMMAND_MARKER);
    // A marker with a wait list waits only for that list.
    let gate2 = Event::user(&env.ctx);
    let blocked = write_word(&q, &b, 2, &C, &[gate2.raw()]);
    let free = write_word(&q, &b, 3, &C, &[]);
    let m2 = marker(&q, &[free.raw()]);
    m2.wait();
    assert_ne!(blocked.status(), CL_COMPLETE);
    gate2.set_status(CL_COMPLETE);
    q.finish();
    assert_eq!(blocked.status(), CL_COMPLETE);
    assert_eq!(b.read::<u32>(&q, 4), vec![10, 20, 30, 30]);
}

static RUNNING: AtomicU32 = AtomicU32::new(0);
static OVERLAPPED: AtomicU32 = AtomicU32::new(0);

unsafe extern "C" fn overlap_probe(_args: *mut c_void) {
    let now = RUNNING.fetch_add(1, Ordering::SeqCst) + 1;
    // Wait up to 2 s for a partner: only concurrent execution meets one.
    let t0 = std::time::Instant::now();
    let mut peak = now;
    while t0.elapsed() < Duration::from_secs(2) && peak < 2 {
        peak = peak.max(RUNNING.load(Ordering::SeqCst));
        std::thread::sleep(Duration::from_millis(1));
    }
    OVERLAPPED.fetch_max(peak, Ordering::SeqCst);
    RUNNING.fetch_sub(1, Ordering::SeqCst);
}

#[test]
fn independent_commands_run_concurrently() {
    let Some((_env, q)) = ooo_env() else { return };
    let exec: cl_device_exec_capabilities = device_get(CL_DEVICE_EXECUTION_CAPABILITIES);
    if !require(
        exec & CL_EXEC_NATIVE_KERNEL != 0,
        "native kernels are the probe of this test",
    ) {
        return;
    }
    let mut events = Vec::new();
    for _ in 0..2 {
        let mut ev = ptr::null_mut();
        // SAFETY: no arguments, no memory objects.
        let rc = unsafe {
            clEnqueueNativeKernel(
                q.raw(),
                Some(overlap_probe),
                ptr::null_mut(),
                0,
                0,
                ptr::null(),
                ptr::null_mut(),
                0,
                ptr::null(),
                &mut ev,
            )
        };
        check(rc, "clEnqueueNativeKernel");
        events.push(Event(ev));
    }
    q.finish();
    assert_eq!(
        OVERLAPPED.load(Ordering::SeqCst),
        2,
        "two independent commands never ran at the same time"
    );
}

#[test]
fn failures_propagate_across_queues() {
    let Some((env, q)) = ooo_env() else { return };
    let other = Queue::new(&env.ctx, 0);
    let b = env.buffer_zeroed::<u32>(4);
    let gate = Event::user(&env.ctx);
    static V: u32 = 5;
    let a = write_word(&q, &b, 0, &V, &[gate.raw()]);
    // On the in-order queue, waiting for the failed command.
    let dependent = write_word(&other, &b, 1, &V, &[a.raw()]);
    let chained = marker(&q, &[dependent.raw()]);
    gate.set_status(-42);
    // SAFETY: one live event.
    let rc = unsafe { clWaitForEvents(1, &chained.0) };
    expect_code(
        rc,
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
        "waiting for a failed chain",
    );
    assert_eq!(a.status(), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_eq!(
        dependent.status(),
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    );
    assert_eq!(
        chained.status(),
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    );
    // The queue keeps working.
    let ok = write_word(&q, &b, 2, &V, &[]);
    ok.wait();
    q.finish();
    other.finish();
    assert_eq!(b.read::<u32>(&other, 4), vec![0, 0, 5, 0]);
}

#[test]
fn finish_waits_for_every_command() {
    let Some((env, q)) = ooo_env() else { return };
    let b = env.buffer_zeroed::<u32>(64);
    static W: u32 = 7;
    let events: Vec<Event> = (0..64).map(|i| write_word(&q, &b, i, &W, &[])).collect();
    q.finish();
    for e in &events {
        assert_eq!(e.status(), CL_COMPLETE);
        let t = |p| -> u64 { pod(&profiling_info(e.raw(), p).unwrap()) };
        let (queued, submit, start, end, complete) = (
            t(CL_PROFILING_COMMAND_QUEUED),
            t(CL_PROFILING_COMMAND_SUBMIT),
            t(CL_PROFILING_COMMAND_START),
            t(CL_PROFILING_COMMAND_END),
            t(CL_PROFILING_COMMAND_COMPLETE),
        );
        assert!(queued <= submit && submit <= start && start <= end && end <= complete);
    }
    assert_eq!(b.read::<u32>(&q, 64), vec![7; 64]);
}

#[test]
fn no_default_device_queue() {
    let env = Env::new();
    // SAFETY: live handles.
    let rc =
        unsafe { clSetDefaultDeviceCommandQueue(env.ctx.raw(), env.dev.device, env.queue.raw()) };
    expect_code(
        rc,
        CL_INVALID_OPERATION,
        "clSetDefaultDeviceCommandQueue without on-device queues",
    );
    // SAFETY: a NULL context is rejected before anything is read.
    let rc =
        unsafe { clSetDefaultDeviceCommandQueue(ptr::null_mut(), env.dev.device, env.queue.raw()) };
    expect_code(rc, CL_INVALID_CONTEXT, "NULL context");
}
