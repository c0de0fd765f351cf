//! Level-Zero's execution model over the shared runtime: modules and kernels, command
//! lists, command queues, events and fences.
//!
//! Only `icd/src/ze/` names `ze_*` types; this module speaks Rust and returns the runtime's
//! typed [`Error`](crate::Error)s. Kernels run through the one [`executor`](crate::executor);
//! memory is [`usm`](crate::usm).
//!
//! Ordering: a command queue runs the command lists submitted to it one after another on
//! its own thread, and the commands of a list in the order they were appended. That is
//! stricter than Level-Zero requires (commands of a regular list may overlap unless a
//! barrier separates them), so barriers only have to wait for their events.
//!
//! Timeouts are in nanoseconds, as in the API: `u64::MAX` waits forever, `0` only looks.

pub mod cmdlist;
pub mod cmdqueue;
pub mod event;
pub mod fence;
pub mod kernel;
pub mod module;
pub mod virtual_mem;

use parking_lot::{Condvar, MutexGuard};
use std::time::{Duration, Instant};

/// Wait on `cv` until `done(&guard)` or the timeout passes; returns whether `done`.
pub(crate) fn wait_until<T>(
    cv: &Condvar,
    guard: &mut MutexGuard<'_, T>,
    timeout_ns: u64,
    mut done: impl FnMut(&T) -> bool,
) -> bool {
    if done(guard) {
        return true;
    }
    if timeout_ns == 0 {
        return false;
    }
    let deadline = if timeout_ns == u64::MAX {
        None
    } else {
        Instant::now().checked_add(Duration::from_nanos(timeout_ns))
    };
    while !done(guard) {
        match deadline {
            None => cv.wait(guard),
            Some(d) => {
                if cv.wait_until(guard, d).timed_out() {
                    return done(guard);
                }
            }
        }
    }
    true
}
