//! Tests of failing kernels (`cl_check.rs`, `cl_check_vector.rs`, `cl_fault.rs`): run a
//! kernel in a context of its own whose notification callback collects the reports, and
//! compare a kernel with a planted bug against its correct version.

use crate::*;
use std::ffi::{c_char, c_void, CStr};
use std::sync::Mutex;

/// Messages the notify callbacks received, tagged with their context's user data.
static NOTES: Mutex<Vec<(usize, String)>> = Mutex::new(Vec::new());

extern "C" fn notify(errinfo: *const c_char, _: *const c_void, _: usize, user: *mut c_void) {
    // SAFETY: the driver passes a NUL-terminated string.
    let s = unsafe { CStr::from_ptr(errinfo) }
        .to_string_lossy()
        .into_owned();
    NOTES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((user as usize, s));
}

/// A context with the notify callback (tagged `tag`) and an in-order queue on it.
pub struct Ctx {
    pub ctx: Context,
    pub queue: Queue,
    pub tag: usize,
}

/// A new [`Ctx`] whose reports are tagged `tag`.
pub fn context(tag: usize) -> Ctx {
    let d = dev();
    let props = [
        CL_CONTEXT_PLATFORM as cl_context_properties,
        d.platform as cl_context_properties,
        0,
    ];
    let mut rc = 0;
    // SAFETY: a 0-terminated property list, one valid device, a callback that lives for
    // the whole process.
    let ctx = unsafe {
        clCreateContext(
            props.as_ptr(),
            1,
            &d.device,
            Some(notify),
            tag as *mut c_void,
            &mut rc,
        )
    };
    check(rc, "clCreateContext");
    let ctx = Context(ctx);
    let queue = Queue::new(&ctx, 0);
    Ctx { ctx, queue, tag }
}

/// The reports the contexts tagged `tag` received.
pub fn notes(tag: usize) -> Vec<String> {
    NOTES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .filter(|(t, _)| *t == tag)
        .map(|(_, s)| s.clone())
        .collect()
}

/// Run `kernel` of `src` over `global` work-items in groups of `local`, with arguments
/// set by `args` (which returns what must outlive the launch): its event status and the
/// notes its context received.
pub fn run<K>(
    tag: usize,
    src: &str,
    kernel: &str,
    global: usize,
    local: usize,
    args: impl FnOnce(&Ctx, &Kernel) -> K,
) -> (cl_int, Vec<String>) {
    run_with_options(tag, src, "", kernel, global, local, args)
}

/// [`run`], built with the build options `options` too.
pub fn run_with_options<K>(
    tag: usize,
    src: &str,
    options: &str,
    kernel: &str,
    global: usize,
    local: usize,
    args: impl FnOnce(&Ctx, &Kernel) -> K,
) -> (cl_int, Vec<String>) {
    let c = context(tag);
    let p = build(&c.ctx, src, &format!("-cl-kernel-arg-info {options}"));
    let k = p.kernel(kernel);
    let keep = args(&c, &k);
    let ev = enqueue_nd(&c.queue, &k, None, &[global], Some(&[local])).expect("enqueue");
    // SAFETY: one live event; a failure shows in its status.
    let _ = unsafe { clWaitForEvents(1, &ev.raw()) };
    let status = ev.status();
    c.queue.finish();
    drop(keep);
    (status, notes(c.tag))
}

/// The buggy version fails with a report containing every one of `want`; the correct one
/// completes without a report.
#[track_caller]
pub fn expect_pair(
    bad: (cl_int, Vec<String>),
    good: (cl_int, Vec<String>),
    kernel: &str,
    want: &[&str],
) {
    let (status, notes) = bad;
    assert!(
        status < 0,
        "`{kernel}` with its bug: status {status}, notes {notes:?}"
    );
    assert!(
        notes.iter().any(
            |n| n.contains(&format!("kernel `{kernel}`")) && want.iter().all(|w| n.contains(w))
        ),
        "no report on `{kernel}` containing {want:?}: {notes:?}"
    );
    let (status, notes) = good;
    assert_eq!(status, CL_COMPLETE, "correct `{kernel}`: notes {notes:?}");
    assert!(
        notes.is_empty(),
        "correct `{kernel}` was reported: {notes:?}"
    );
}

/// A buffer of `n` floats `0, 1, 2, …`.
pub fn floats(c: &Ctx, n: usize) -> Buffer {
    let v: Vec<f32> = (0..n).map(|i| i as f32).collect();
    Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &v)
}
