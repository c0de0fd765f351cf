//! Thread safety: 8 host threads at once create and release buffers, sub-buffers,
//! programs, kernels and queues (in-order and out-of-order), enqueue work, and wait on each
//! other's events (as wait lists on their own queues and with `clWaitForEvents`), every
//! result checked.

use ferrite_tests::*;
use std::ptr;
use std::sync::{Arc, Barrier, Mutex};

const THREADS: usize = 8;
const ROUNDS: usize = 12;
const N: usize = 1024;

const SRC: &str = r#"
__kernel void add(__global int *a, int v) { a[get_global_id(0)] += v; }
"#;

/// An event handle that may be shared between threads (retained by its owner).
struct Shared(cl_event);
// SAFETY: OpenCL event handles may be used from any host thread.
unsafe impl Send for Shared {}

fn retain(e: cl_event) -> cl_event {
    // SAFETY: a live event.
    check(unsafe { clRetainEvent(e) }, "clRetainEvent");
    e
}

#[test]
fn eight_threads_create_release_enqueue_and_wait_on_each_other() {
    let ctx = Arc::new(Context::new());
    let shared_program = Arc::new(build(&ctx, SRC, ""));
    // slots[t]: the last kernel event of thread t, for its neighbour to wait on.
    let slots: Arc<Vec<Mutex<Option<Shared>>>> =
        Arc::new((0..THREADS).map(|_| Mutex::new(None)).collect());
    let start = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (ctx, shared_program, slots, start) = (
                ctx.clone(),
                shared_program.clone(),
                slots.clone(),
                start.clone(),
            );
            std::thread::spawn(move || {
                start.wait();
                let props = if t % 2 == 0 {
                    0
                } else {
                    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
                };
                for round in 0..ROUNDS {
                    let q = Queue::new(&ctx, props);
                    // A program of its own on even rounds (builds race), the shared one else.
                    let own;
                    let program = if round % 2 == 0 {
                        own = build(&ctx, SRC, &format!("-D T{t}_{round}"));
                        &own
                    } else {
                        &*shared_program
                    };
                    let k = program.kernel("add");
                    let data = vec![t as i32; N];
                    let b = Buffer::from_slice(&ctx, CL_MEM_READ_WRITE, &data);
                    let v = round as i32 + 1;
                    k.buf(0, &b).arg(1, &v);
                    // Wait (on the device side) for the neighbour's latest kernel.
                    let neighbour = slots[(t + 1) % THREADS]
                        .lock()
                        .unwrap()
                        .as_ref()
                        .map(|s| Event(retain(s.0)));
                    let wait: Vec<cl_event> = neighbour.iter().map(|e| e.raw()).collect();
                    let global = N;
                    let mut ev = ptr::null_mut();
                    // SAFETY: live handles; `wait` holds live events.
                    let rc = unsafe {
                        clEnqueueNDRangeKernel(
                            q.raw(),
                            k.raw(),
                            1,
                            ptr::null(),
                            &global,
                            ptr::null(),
                            wait.len() as cl_uint,
                            if wait.is_empty() {
                                ptr::null()
                            } else {
                                wait.as_ptr()
                            },
                            &mut ev,
                        )
                    };
                    check(rc, "clEnqueueNDRangeKernel");
                    let ev = Event(ev);
                    // Publish it, releasing the previous one.
                    let old = slots[t].lock().unwrap().replace(Shared(retain(ev.raw())));
                    if let Some(Shared(e)) = old {
                        // SAFETY: the reference this slot held.
                        check(unsafe { clReleaseEvent(e) }, "clReleaseEvent");
                    }
                    // Also wait on the host for the neighbour's event.
                    if let Some(n) = &neighbour {
                        n.wait();
                    }
                    // A sub-buffer read of the second half, ordered after the kernel.
                    let half = N / 2 * 4;
                    let region = cl_buffer_region {
                        origin: half,
                        size: half,
                    };
                    let mut rc = 0;
                    // SAFETY: a live buffer and a region inside it.
                    let sub = unsafe {
                        clCreateSubBuffer(
                            b.raw(),
                            0,
                            CL_BUFFER_CREATE_TYPE_REGION,
                            (&region as *const cl_buffer_region).cast(),
                            &mut rc,
                        )
                    };
                    check(rc, "clCreateSubBuffer");
                    let sub = Buffer(sub);
                    let mut out = vec![0i32; N / 2];
                    // SAFETY: `out` has room for the read; blocking; waits for the kernel.
                    let rc = unsafe {
                        clEnqueueReadBuffer(
                            q.raw(),
                            sub.raw(),
                            CL_TRUE,
                            0,
                            half,
                            out.as_mut_ptr().cast(),
                            1,
                            &ev.0,
                            ptr::null_mut(),
                        )
                    };
                    check(rc, "clEnqueueReadBuffer");
                    assert!(
                        out.iter().all(|&x| x == t as i32 + v),
                        "thread {t} round {round}: {:?}",
                        &out[..4]
                    );
                    q.finish();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("a worker thread failed");
    }
    for s in slots.iter() {
        if let Some(Shared(e)) = s.lock().unwrap().take() {
            // SAFETY: the slot's reference.
            check(unsafe { clReleaseEvent(e) }, "clReleaseEvent");
        }
    }
}
