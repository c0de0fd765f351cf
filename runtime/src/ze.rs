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
pub mod event_ipc;
pub mod fence;
pub mod kernel;
pub mod module;
pub mod virtual_mem;

use crate::event::{spin_until, SPIN_BEFORE_SLEEP};
use parking_lot::{Condvar, MutexGuard};
use std::time::{Duration, Instant};

/// How long before a deadline a timed wait stops sleeping and yields instead: a sleep on
/// a condition variable wakes late by the timer slack and the scheduler (100-300 µs seen
/// on a loaded 2-core machine, 3-5 % of a 5 ms wait), and level-zero-tests expect a wait
/// that times out to return within 2 % of its timeout.
const PRECISE: Duration = Duration::from_micros(500);

/// Spin while `ready()` is likely to turn true soon (unless the caller gave less time
/// than the spin), then return the timeout left for [`wait_until`]: the spin counts
/// against it (an infinite timeout stays infinite).
pub(crate) fn spin_first(timeout_ns: u64, ready: impl Fn() -> bool) -> u64 {
    if timeout_ns < SPIN_BEFORE_SLEEP.as_nanos() as u64 {
        return timeout_ns;
    }
    let start = Instant::now();
    spin_until(ready);
    if timeout_ns == u64::MAX {
        return u64::MAX;
    }
    let spun = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
    timeout_ns.saturating_sub(spun)
}

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
                let now = Instant::now();
                if now >= d {
                    return false;
                }
                if d - now > PRECISE {
                    cv.wait_until(guard, d - PRECISE);
                } else {
                    // The last stretch: let the signaller in, look again.
                    MutexGuard::unlocked(guard, std::thread::yield_now);
                }
            }
        }
    }
    true
}
