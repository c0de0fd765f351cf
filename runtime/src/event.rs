//! Events: the status of one command (or a user event), with callbacks and profiling
//! timestamps.
//!
//! Status moves forward only: `Queued → Submitted → Running → Complete`, or to
//! `Failed(..)` from any non-final state. Each transition records a timestamp from one
//! monotonic clock ([`now_ns`]) and runs, exactly once, every callback registered for that
//! status or an earlier-in-order one (a callback for `Running` also fires when the event
//! jumps straight to `Complete` or fails). Callbacks are run by whoever makes the
//! transition (the queue's worker thread, or the application thread for user events),
//! never under the event's lock. A callback registered after its status was reached runs
//! at once, on the registering thread.

use crate::api::{api_type, ApiObject, ObjectType};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::queue::Queue;
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// What command an event belongs to (`CL_EVENT_COMMAND_TYPE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandType {
    NdRangeKernel,
    Task,
    ReadBuffer,
    WriteBuffer,
    CopyBuffer,
    ReadBufferRect,
    WriteBufferRect,
    CopyBufferRect,
    FillBuffer,
    MapBuffer,
    UnmapMemObject,
    ReadImage,
    WriteImage,
    CopyImage,
    FillImage,
    CopyImageToBuffer,
    CopyBufferToImage,
    MapImage,
    Marker,
    Barrier,
    MigrateMemObjects,
    NativeKernel,
    User,
    SvmFree,
    SvmMemcpy,
    SvmMemFill,
    SvmMap,
    SvmUnmap,
    SvmMigrateMem,
    /// `cl_intel_unified_shared_memory` commands.
    MemFillIntel,
    MemcpyIntel,
    MigrateMemIntel,
    MemAdviseIntel,
    /// A command buffer's recorded commands (`cl_khr_command_buffer`).
    CommandBuffer,
}

/// Why a command did not complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecError {
    /// An event in its wait list failed.
    WaitListFailed,
    /// The command could not run (resources, an internal failure).
    OutOfResources,
    /// A user event was set to this (negative) status by the application.
    User(i32),
}

/// Execution status of an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Queued,
    Submitted,
    Running,
    Complete,
    Failed(ExecError),
}

impl Status {
    /// Order of the states as OpenCL numbers them: larger is earlier.
    fn rank(self) -> i32 {
        match self {
            Status::Queued => 3,
            Status::Submitted => 2,
            Status::Running => 1,
            Status::Complete => 0,
            Status::Failed(_) => -1,
        }
    }

    /// Complete or failed.
    pub fn is_final(self) -> bool {
        self.rank() <= 0
    }
}

/// The status a callback waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallbackTrigger {
    Submitted,
    Running,
    Complete,
}

impl CallbackTrigger {
    fn rank(self) -> i32 {
        match self {
            CallbackTrigger::Submitted => 2,
            CallbackTrigger::Running => 1,
            CallbackTrigger::Complete => 0,
        }
    }
}

/// A callback; receives the status that triggered it.
pub type EventCallback = Box<dyn FnOnce(Status) + Send>;

/// Profiling timestamps in ns from [`now_ns`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timestamps {
    pub queued: u64,
    pub submit: u64,
    pub start: u64,
    pub end: u64,
    pub complete: u64,
}

/// Why profiling information is not available.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfilingUnavailable {
    /// The queue has no profiling, or this is a user event.
    NotEnabled,
    /// The command has not completed.
    NotComplete,
}

struct State {
    status: Status,
    times: Timestamps,
    callbacks: Vec<(CallbackTrigger, EventCallback)>,
}

#[repr(C)]
pub struct Event {
    pub api: ApiObject,
    pub context: Arc<Context>,
    /// The queue of a command's event; `None` for user events.
    pub queue: Option<Arc<Queue>>,
    pub command_type: CommandType,
    profiling: bool,
    state: Mutex<State>,
    changed: Condvar,
    /// Set (under `state`'s lock) when the status becomes final: [`Event::wait`] spins on
    /// it briefly before it sleeps.
    done: AtomicBool,
}
api_type!(Event, Event);

/// How long a thread that waits for another (an event to complete, a queue's next
/// command) spins before it sleeps. Waking a sleeping thread costs a system call on each
/// side and, measured in this virtual machine, tens of microseconds; a command that
/// completes or arrives within this time costs neither.
pub(crate) const SPIN_BEFORE_SLEEP: std::time::Duration = std::time::Duration::from_micros(50);

/// Spin until `ready()` or [`SPIN_BEFORE_SLEEP`] has passed; whether it became ready.
pub(crate) fn spin_until(ready: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    loop {
        for _ in 0..64 {
            if ready() {
                return true;
            }
            std::hint::spin_loop();
        }
        if start.elapsed() >= SPIN_BEFORE_SLEEP {
            return ready();
        }
    }
}

/// Nanoseconds on the runtime's monotonic clock (since its first use).
pub fn now_ns() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    let start = START.get_or_init(Instant::now);
    // 2^64 ns is 584 years: the truncation cannot happen. Never 0, so a timestamp is
    // always distinguishable from "not recorded".
    start.elapsed().as_nanos() as u64 + 1
}

impl Event {
    /// The event of a command enqueued on `queue`: `Queued`, timestamped now.
    pub(crate) fn new_command(queue: &Arc<Queue>, command_type: CommandType) -> Arc<Event> {
        Arc::new(Event {
            api: ApiObject::new(ObjectType::Event),
            context: queue.context.clone(),
            queue: Some(queue.clone()),
            command_type,
            profiling: queue.profiling,
            state: Mutex::new(State {
                status: Status::Queued,
                times: Timestamps {
                    queued: now_ns(),
                    ..Timestamps::default()
                },
                callbacks: Vec::new(),
            }),
            changed: Condvar::new(),
            done: AtomicBool::new(false),
        })
    }

    /// A user event: starts `Submitted` (`clCreateUserEvent`).
    pub fn new_user(context: Arc<Context>) -> Arc<Event> {
        Arc::new(Event {
            api: ApiObject::new(ObjectType::Event),
            context,
            queue: None,
            command_type: CommandType::User,
            profiling: false,
            state: Mutex::new(State {
                status: Status::Submitted,
                times: Timestamps::default(),
                callbacks: Vec::new(),
            }),
            changed: Condvar::new(),
            done: AtomicBool::new(false),
        })
    }

    pub fn status(&self) -> Status {
        self.state.lock().status
    }

    /// Move to `status` (ignored if the event is already final or `status` is not later),
    /// record its timestamp, wake waiters and run the callbacks now due. Returns whether
    /// the status changed.
    pub(crate) fn set_status(&self, status: Status) -> bool {
        let due = {
            let mut st = self.state.lock();
            if st.status.is_final() || status.rank() >= st.status.rank() {
                return false;
            }
            let now = now_ns();
            match status {
                Status::Queued => {}
                Status::Submitted => st.times.submit = now,
                Status::Running => st.times.start = now,
                Status::Complete | Status::Failed(_) => {
                    st.times.end = now;
                    st.times.complete = now;
                }
            }
            st.status = status;
            let rank = status.rank();
            let (due, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut st.callbacks)
                .into_iter()
                .partition(|(t, _)| t.rank() >= rank);
            st.callbacks = keep;
            if status.is_final() {
                self.done.store(true, Ordering::Release);
                self.changed.notify_all();
            }
            due
        };
        for (_, f) in due {
            in_callback(|| f(status));
        }
        true
    }

    /// `clSetUserEventStatus`: `Complete` or a failure, once.
    pub fn set_user_status(&self, status: Status) -> Result<()> {
        if self.command_type != CommandType::User {
            return Err(Error::InvalidValue("not a user event"));
        }
        if !status.is_final() {
            return Err(Error::InvalidValue("user event status must be final"));
        }
        if self.set_status(status) {
            Ok(())
        } else {
            Err(Error::UserEventStatusAlreadySet)
        }
    }

    /// Block until the event is complete or failed; returns the final status.
    pub fn wait(&self) -> Status {
        // Most commands a caller waits for end soon: spin before sleeping on the condvar.
        spin_until(|| self.done.load(Ordering::Acquire));
        let mut st = self.state.lock();
        while !st.status.is_final() {
            self.changed.wait(&mut st);
        }
        st.status
    }

    /// Run `f` once when the status reaches `trigger` (at once if it already has).
    pub fn add_callback(&self, trigger: CallbackTrigger, f: EventCallback) {
        let now = {
            let mut st = self.state.lock();
            if st.status.rank() <= trigger.rank() {
                Some(st.status)
            } else {
                st.callbacks.push((trigger, f));
                return;
            }
        };
        if let Some(status) = now {
            in_callback(|| f(status));
        }
    }

    /// Profiling timestamps of a completed command on a profiling queue.
    pub fn profiling(&self) -> std::result::Result<Timestamps, ProfilingUnavailable> {
        if !self.profiling {
            return Err(ProfilingUnavailable::NotEnabled);
        }
        let st = self.state.lock();
        if st.status != Status::Complete {
            return Err(ProfilingUnavailable::NotComplete);
        }
        Ok(st.times)
    }
}

thread_local! {
    /// How deep the calling thread is in event callbacks.
    static CALLBACK_DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Run `f` as an event callback (see [`in_event_callback`]).
fn in_callback(f: impl FnOnce()) {
    CALLBACK_DEPTH.with(|d| d.set(d.get() + 1));
    f();
    CALLBACK_DEPTH.with(|d| d.set(d.get() - 1));
}

/// Whether the calling thread is running an event callback: completing an event runs its
/// callbacks on the completing thread, which may be the application's (a user event) and
/// which the commands waiting on that event need, so a callback must not block on them.
pub fn in_event_callback() -> bool {
    CALLBACK_DEPTH.with(std::cell::Cell::get) > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    fn user_event() -> Arc<Event> {
        Event::new_user(Context::new(Vec::new(), Vec::new(), None))
    }

    #[test]
    fn callbacks_fire_once_including_skipped_states() {
        let e = user_event();
        let hits = Arc::new(AtomicU32::new(0));
        for t in [CallbackTrigger::Running, CallbackTrigger::Complete] {
            let h = hits.clone();
            e.add_callback(
                t,
                Box::new(move |s| {
                    assert_eq!(s, Status::Complete);
                    h.fetch_add(1, Ordering::SeqCst);
                }),
            );
        }
        // Submitted is already reached: runs at once.
        let h = hits.clone();
        e.add_callback(
            CallbackTrigger::Submitted,
            Box::new(move |_| {
                h.fetch_add(10, Ordering::SeqCst);
            }),
        );
        assert_eq!(hits.load(Ordering::SeqCst), 10);
        e.set_user_status(Status::Complete).unwrap();
        assert_eq!(hits.load(Ordering::SeqCst), 12);
        assert_eq!(
            e.set_user_status(Status::Complete),
            Err(Error::UserEventStatusAlreadySet)
        );
        assert_eq!(hits.load(Ordering::SeqCst), 12);
        assert_eq!(e.wait(), Status::Complete);
    }

    #[test]
    fn user_events_have_no_profiling() {
        let e = user_event();
        e.set_user_status(Status::Failed(ExecError::User(-5)))
            .unwrap();
        assert_eq!(e.profiling(), Err(ProfilingUnavailable::NotEnabled));
        assert_eq!(e.status(), Status::Failed(ExecError::User(-5)));
    }
}
