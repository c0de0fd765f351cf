//! Command queues, in-order and out-of-order, on one scheduler.
//!
//! A command runs when everything it depends on has finished: the events of its wait list
//! (explicit dependencies: if one of them failed, the command fails with
//! [`ExecError::WaitListFailed`] without running) and the commands the queue's ordering puts
//! before it (implicit dependencies, which only order):
//! - in an in-order queue, the previous command;
//! - in an out-of-order queue, the last barrier; a barrier, and a marker without a wait
//!   list, also wait for every command enqueued since the previous barrier.
//!
//! Each command carries a count of unfinished dependencies. Enqueueing registers a hook on
//! every dependency's event (run by whichever thread finishes it — a worker of this or
//! another queue, or the application setting a user event); the hook that brings the count
//! to zero hands the command to the queue's ready list. The queue's workers (at most one
//! for an in-order queue, [`OUT_OF_ORDER_WORKERS`] for an out-of-order one, so independent
//! commands really run side by side) take ready commands, mark them `Running`, run them
//! (an NDRange goes through [`crate::executor`]) and complete their events. Commands are
//! submitted when enqueued (`clFlush` has nothing to do).
//!
//! Workers start when a command becomes ready and no worker is idle, and leave after
//! [`WORKER_IDLE`] without work: a queue that is only kept (SYCL keeps thousands, some
//! never released) holds no thread. Measured on dpctl's test suite: 10,336 threads for
//! idle queues before, and every one of them scanned by each generic-pointer cast.
//!
//! Lifetimes: a pending command holds its event, the event holds the queue, the queue
//! holds the ready list. The queue is dropped only when no command of it is pending and
//! the application holds none of its events; its `Drop` closes the ready list and the
//! workers exit once it is empty. Nothing joins them (the last reference may be dropped on
//! a worker itself).

use crate::api::{api_type, ApiObject, ObjectType};
use crate::context::Context;
use crate::device::Device;
use crate::error::Result;
use crate::event::{spin_until, CallbackTrigger, CommandType, Event, ExecError, Status};
use parking_lot::{Condvar, Mutex, MutexGuard};
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

/// The work of one command, run on one of the queue's workers.
pub type Work = Box<dyn FnOnce() -> std::result::Result<(), ExecError> + Send>;

/// Most worker threads of an out-of-order queue.
pub const OUT_OF_ORDER_WORKERS: usize = 4;

/// How long a worker waits for work before it leaves.
const WORKER_IDLE: std::time::Duration = std::time::Duration::from_millis(200);

/// How a command synchronises with the other commands of its queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandSync {
    /// An ordinary command.
    Command,
    /// A marker: without a wait list it waits for every command enqueued before it.
    Marker,
    /// A barrier: waits for every command enqueued before it (and its wait list), and
    /// every command enqueued after it waits for it.
    Barrier,
}

struct Command {
    event: Arc<Event>,
    work: Work,
}

/// Properties the queue was created with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueProperties {
    /// Record profiling timestamps.
    pub profiling: bool,
    /// Commands may run in any order their dependencies allow.
    pub out_of_order: bool,
    /// The API's property bits as given (`CL_QUEUE_PROPERTIES`).
    pub api_bits: u64,
    /// The property list as given to `clCreateCommandQueueWithProperties` (zero-terminated),
    /// empty otherwise (`CL_QUEUE_PROPERTIES_ARRAY`).
    pub api_list: Vec<u64>,
}

/// Commands whose dependencies are done, waiting for a worker.
struct Ready {
    state: Mutex<ReadyState>,
    cv: Condvar,
    /// How many commands `state.commands` holds, readable without the lock (an in-order
    /// queue's worker spins on it before it sleeps).
    queued: AtomicUsize,
}

struct ReadyState {
    commands: VecDeque<Command>,
    /// The queue is gone: workers exit once `commands` is empty.
    closed: bool,
    /// Workers running, how many of them wait for work, and how many of those have been
    /// woken for a command but not yet taken the lock (a push counts them out, so that a
    /// burst of commands starts new workers instead of waking one worker many times).
    alive: usize,
    idle: usize,
    wakeups: usize,
    /// Most workers.
    max: usize,
}

impl Ready {
    /// Hand over a ready command: to an idle worker, else to a new one if the queue has
    /// fewer than its most. If no thread can be started and none is running, the command
    /// fails rather than wait forever.
    fn push(self: &Arc<Self>, cmd: Command) {
        let mut st = self.state.lock();
        st.commands.push_back(cmd);
        self.queued.fetch_add(1, Ordering::Release);
        if st.idle > st.wakeups {
            st.wakeups += 1;
            drop(st);
            self.cv.notify_one();
            return;
        }
        if st.alive >= st.max {
            return;
        }
        st.alive += 1;
        drop(st);
        let r = self.clone();
        let spawned = std::thread::Builder::new()
            .name("ferrite-queue".into())
            .spawn(move || worker(&r));
        if spawned.is_err() {
            let mut st = self.state.lock();
            st.alive -= 1;
            if st.alive == 0 {
                let stranded: Vec<Command> = st.commands.drain(..).collect();
                self.queued.fetch_sub(stranded.len(), Ordering::Release);
                drop(st);
                for c in stranded {
                    c.event
                        .set_status(Status::Failed(ExecError::OutOfResources));
                }
            }
        }
    }
}

#[repr(C)]
pub struct Queue {
    pub api: ApiObject,
    pub context: Arc<Context>,
    pub device: Arc<Device>,
    pub profiling: bool,
    pub properties: QueueProperties,
    /// Serialises enqueues, so the implicit dependencies follow enqueue order.
    submit: Mutex<Submit>,
    ready: Arc<Ready>,
}
api_type!(Queue, Queue);

/// The queue's view of its recent commands (weak: a dropped event means the command is
/// done).
#[derive(Default)]
struct Submit {
    /// The last command (in-order dependency).
    last: Weak<Event>,
    /// The last barrier (out-of-order).
    barrier: Weak<Event>,
    /// Commands enqueued since the last barrier (out-of-order), maybe finished.
    since_barrier: Vec<Weak<Event>>,
}

fn alive(w: &Weak<Event>) -> Option<Arc<Event>> {
    w.upgrade().filter(|e| !e.status().is_final())
}

impl Queue {
    /// A queue on `device` in `context`, with its workers started.
    pub fn new(
        context: Arc<Context>,
        device: Arc<Device>,
        properties: QueueProperties,
    ) -> Result<Arc<Queue>> {
        let ready = Arc::new(Ready {
            state: Mutex::new(ReadyState {
                commands: VecDeque::new(),
                closed: false,
                alive: 0,
                idle: 0,
                wakeups: 0,
                max: if properties.out_of_order {
                    OUT_OF_ORDER_WORKERS
                } else {
                    1
                },
            }),
            cv: Condvar::new(),
            queued: AtomicUsize::new(0),
        });
        let queue = Arc::new(Queue {
            api: ApiObject::new(ObjectType::Queue),
            context,
            device,
            profiling: properties.profiling,
            properties,
            submit: Mutex::new(Submit::default()),
            ready,
        });
        queue.context.register_queue(&queue);
        Ok(queue)
    }

    /// Whether commands may run out of order.
    pub fn out_of_order(&self) -> bool {
        self.properties.out_of_order
    }

    /// Enqueue an ordinary command: returns its event. `wait` must already be checked to
    /// belong to this queue's context.
    pub fn enqueue(
        self: &Arc<Self>,
        command_type: CommandType,
        wait: Vec<Arc<Event>>,
        work: Work,
    ) -> Result<Arc<Event>> {
        self.enqueue_sync(command_type, CommandSync::Command, wait, work)
    }

    /// Enqueue a command with the synchronisation `sync` (markers and barriers).
    pub fn enqueue_sync(
        self: &Arc<Self>,
        command_type: CommandType,
        sync: CommandSync,
        wait: Vec<Arc<Event>>,
        work: Work,
    ) -> Result<Arc<Event>> {
        self.submit(command_type, sync, wait, work, false)
    }

    /// Enqueue a command that runs on the calling thread if nothing it waits for is
    /// unfinished (else as [`enqueue_sync`](Self::enqueue_sync)): for blocking commands,
    /// whose caller waits anyway, and for commands with nothing to do (a zero-copy map or
    /// unmap), which then cost no hand-over to a worker.
    pub fn enqueue_inline(
        self: &Arc<Self>,
        command_type: CommandType,
        sync: CommandSync,
        wait: Vec<Arc<Event>>,
        work: Work,
    ) -> Result<Arc<Event>> {
        self.submit(command_type, sync, wait, work, true)
    }

    fn submit(
        self: &Arc<Self>,
        command_type: CommandType,
        sync: CommandSync,
        wait: Vec<Arc<Event>>,
        work: Work,
        inline: bool,
    ) -> Result<Arc<Event>> {
        let event = Event::new_command(self, command_type);
        let implicit = {
            let mut st = self.submit.lock();
            let implicit = self.implicit_dependencies(&mut st, sync, wait.is_empty());
            let weak = Arc::downgrade(&event);
            st.last = weak.clone();
            if self.out_of_order() {
                if sync == CommandSync::Barrier {
                    st.barrier = weak;
                    st.since_barrier.clear();
                } else {
                    if st.since_barrier.len() >= 64 {
                        st.since_barrier.retain(|w| alive(w).is_some());
                    }
                    st.since_barrier.push(weak);
                }
            }
            implicit
        };
        // Commands are submitted as soon as they are enqueued.
        event.set_status(Status::Submitted);
        let pending = Arc::new(Pending {
            remaining: AtomicUsize::new(1 + wait.len() + implicit.len()),
            failed: AtomicBool::new(false),
            command: Mutex::new(Some(Command {
                event: event.clone(),
                work,
            })),
            ready: self.ready.clone(),
        });
        for (dep, explicit) in wait
            .into_iter()
            .map(|e| (e, true))
            .chain(implicit.into_iter().map(|e| (e, false)))
        {
            let p = pending.clone();
            dep.add_callback(
                CallbackTrigger::Complete,
                Box::new(move |status| p.dep_done(explicit && matches!(status, Status::Failed(_)))),
            );
        }
        // The enqueue's own count: the command may start from here on.
        if inline {
            if let Some(cmd) = pending.release(false) {
                run_command(cmd);
            }
        } else {
            pending.dep_done(false);
        }
        Ok(event)
    }

    /// The commands `sync` must wait for besides its wait list (`st` is locked).
    fn implicit_dependencies(
        &self,
        st: &mut Submit,
        sync: CommandSync,
        no_wait_list: bool,
    ) -> Vec<Arc<Event>> {
        if !self.out_of_order() {
            return alive(&st.last).into_iter().collect();
        }
        let mut deps: Vec<Arc<Event>> = alive(&st.barrier).into_iter().collect();
        let everything = match sync {
            CommandSync::Command => false,
            CommandSync::Marker => no_wait_list,
            // Stricter than the specification asks for a barrier with a wait list (which
            // need only wait for the list), never wrong: a queue may always run in order.
            CommandSync::Barrier => true,
        };
        if everything {
            deps.extend(st.since_barrier.iter().filter_map(alive));
        }
        deps
    }

    /// Commands are handed to the scheduler when enqueued: nothing to flush.
    pub fn flush(&self) {}

    /// The events of the commands enqueued so far that every other one comes after (or
    /// that may not have finished): when these have completed, so has everything enqueued
    /// before this call.
    pub fn pending(&self) -> Vec<Arc<Event>> {
        let st = self.submit.lock();
        [&st.last, &st.barrier]
            .into_iter()
            .chain(st.since_barrier.iter())
            .filter_map(Weak::upgrade)
            .collect()
    }

    /// Block until every command enqueued so far has finished (`clFinish`).
    pub fn finish(&self) {
        for e in self.pending() {
            e.wait();
        }
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        self.ready.state.lock().closed = true;
        self.ready.cv.notify_all();
    }
}

/// A command waiting for its dependencies.
struct Pending {
    /// Unfinished dependencies, plus one held by the enqueue until it has registered them.
    remaining: AtomicUsize,
    /// An explicit dependency failed.
    failed: AtomicBool,
    command: Mutex<Option<Command>>,
    ready: Arc<Ready>,
}

impl Pending {
    /// One dependency finished (`failed`: an event of the wait list failed); the command
    /// goes to the workers when it was the last.
    fn dep_done(&self, failed: bool) {
        if let Some(cmd) = self.release(failed) {
            self.ready.push(cmd);
        }
    }

    /// One dependency finished: the command if it was the last and none failed (a failed
    /// explicit dependency fails the command here).
    fn release(&self, failed: bool) -> Option<Command> {
        if failed {
            self.failed.store(true, Ordering::Release);
        }
        if self.remaining.fetch_sub(1, Ordering::AcqRel) != 1 {
            return None;
        }
        let cmd = self.command.lock().take()?;
        if self.failed.load(Ordering::Acquire) {
            cmd.event
                .set_status(Status::Failed(ExecError::WaitListFailed));
            return None;
        }
        Some(cmd)
    }
}

thread_local! {
    /// Set on the threads that run commands: a command's completion (and every event
    /// callback it triggers) runs there, so waiting on that thread for later commands of
    /// its own queue would never end.
    static ON_QUEUE_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the calling thread runs commands (see `ON_QUEUE_THREAD`).
pub fn on_queue_thread() -> bool {
    ON_QUEUE_THREAD.with(std::cell::Cell::get)
}

/// A worker: runs ready commands until the queue is gone or no work came for
/// [`WORKER_IDLE`]; counted in `alive` from its spawn (by [`Ready::push`]) to its return.
fn worker(ready: &Ready) {
    ON_QUEUE_THREAD.with(|f| f.set(true));
    loop {
        let cmd = {
            let mut st = ready.state.lock();
            let mut spun = false;
            loop {
                if let Some(c) = st.commands.pop_front() {
                    ready.queued.fetch_sub(1, Ordering::Release);
                    break c;
                }
                if st.closed {
                    st.alive -= 1;
                    return;
                }
                // An in-order queue's next command often comes at once (enqueue, finish,
                // enqueue): spin for it, without the lock, before sleeping, then look again
                // under the lock (a push in between found no idle worker to wake). (An
                // out-of-order queue's push would start another worker meanwhile.)
                if st.max == 1 && !spun {
                    spun = true;
                    MutexGuard::unlocked(&mut st, || {
                        spin_until(|| ready.queued.load(Ordering::Acquire) > 0)
                    });
                    continue;
                }
                st.idle += 1;
                let timed_out = ready.cv.wait_for(&mut st, WORKER_IDLE).timed_out();
                st.idle -= 1;
                // Woken or not, one promised wake-up is settled: the command it was for is
                // in the list, which this worker looks at now.
                st.wakeups = st.wakeups.saturating_sub(1);
                if timed_out && st.commands.is_empty() {
                    // Leaving under the lock: a push that sees `alive` drop starts a new
                    // worker.
                    st.alive -= 1;
                    return;
                }
            }
        };
        run_command(cmd);
    }
}

fn run_command(cmd: Command) {
    let Command { event, work } = cmd;
    event.set_status(Status::Running);
    // A panic in the work (a runtime bug) fails the command instead of killing the worker.
    let result = catch_unwind(AssertUnwindSafe(work)).unwrap_or(Err(ExecError::OutOfResources));
    match result {
        Ok(()) => event.set_status(Status::Complete),
        Err(e) => event.set_status(Status::Failed(e)),
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::Platform;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    fn queue(profiling: bool, out_of_order: bool) -> Arc<Queue> {
        let dev = Platform::get().device.clone();
        let ctx = Context::new(vec![dev.clone()], Vec::new(), None);
        Queue::new(
            ctx,
            dev,
            QueueProperties {
                profiling,
                out_of_order,
                ..Default::default()
            },
        )
        .unwrap()
    }

    fn workers(q: &Queue) -> (usize, usize) {
        let st = q.ready.state.lock();
        (st.alive, st.idle)
    }

    /// Wait (at most 10 s, else fail with `what`) until `OUT_OF_ORDER_WORKERS` commands
    /// are running at once.
    fn wait_for_running(running: &AtomicUsize, what: &str) {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while running.load(Ordering::SeqCst) < OUT_OF_ORDER_WORKERS {
            assert!(std::time::Instant::now() < deadline, "{what}");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Workers start with work, run independent commands side by side up to the queue's
    /// most, and leave when idle: a queue that is only kept holds no thread.
    #[test]
    fn workers_come_with_work_and_leave_when_idle() {
        let q = queue(false, true);
        assert_eq!(workers(&q), (0, 0), "no thread before any command");
        let gate = Event::new_user(q.context.clone());
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        for _ in 0..8 {
            let (r, m, g) = (running.clone(), most.clone(), gate.clone());
            q.enqueue(
                CommandType::Marker,
                Vec::new(),
                Box::new(move || {
                    let now = r.fetch_add(1, Ordering::SeqCst) + 1;
                    m.fetch_max(now, Ordering::SeqCst);
                    // Hold the worker until the gate opens, so the others need their own.
                    g.wait();
                    r.fetch_sub(1, Ordering::SeqCst);
                    Ok(())
                }),
            )
            .unwrap();
        }
        wait_for_running(&running, "workers did not start");
        assert_eq!(workers(&q).0, OUT_OF_ORDER_WORKERS, "no more than the most");
        gate.set_user_status(Status::Complete).unwrap();
        q.finish();
        assert_eq!(most.load(Ordering::SeqCst), OUT_OF_ORDER_WORKERS);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while workers(&q).0 > 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "idle workers did not leave"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        // And come back for the next command.
        let ran = Arc::new(AtomicUsize::new(0));
        let r = ran.clone();
        q.enqueue(
            CommandType::Marker,
            Vec::new(),
            Box::new(move || {
                r.fetch_add(1, Ordering::SeqCst);
                Ok(())
            }),
        )
        .unwrap();
        q.finish();
        assert_eq!(ran.load(Ordering::SeqCst), 1);

        // With that worker idle, a burst of commands still gets its own workers rather than
        // queueing behind the one that was woken.
        let gate = Event::new_user(q.context.clone());
        running.store(0, Ordering::SeqCst);
        for _ in 0..OUT_OF_ORDER_WORKERS {
            let (r, g) = (running.clone(), gate.clone());
            q.enqueue(
                CommandType::Marker,
                Vec::new(),
                Box::new(move || {
                    r.fetch_add(1, Ordering::SeqCst);
                    g.wait();
                    Ok(())
                }),
            )
            .unwrap();
        }
        wait_for_running(&running, "a burst ran on one worker");
        gate.set_user_status(Status::Complete).unwrap();
        q.finish();
    }

    #[test]
    fn commands_run_in_order_and_failures_propagate() {
        let q = queue(true, false);
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut events = Vec::new();
        for i in 0..10 {
            let o = order.clone();
            events.push(
                q.enqueue(
                    CommandType::Marker,
                    Vec::new(),
                    Box::new(move || {
                        o.lock().push(i);
                        Ok(())
                    }),
                )
                .unwrap(),
            );
        }
        q.finish();
        assert_eq!(*order.lock(), (0..10).collect::<Vec<_>>());
        let t = events[3].profiling().unwrap();
        assert!(t.queued <= t.submit && t.submit <= t.start && t.start <= t.end);

        let user = Event::new_user(q.context.clone());
        let ran = Arc::new(AtomicUsize::new(0));
        let r = ran.clone();
        let e = q
            .enqueue(
                CommandType::Marker,
                vec![user.clone()],
                Box::new(move || {
                    r.fetch_add(1, Ordering::SeqCst);
                    Ok(())
                }),
            )
            .unwrap();
        assert!(!e.status().is_final());
        user.set_user_status(Status::Failed(ExecError::User(-1)))
            .unwrap();
        assert_eq!(e.wait(), Status::Failed(ExecError::WaitListFailed));
        assert_eq!(ran.load(Ordering::SeqCst), 0);
        // The failure of an implicit dependency does not fail the next command.
        let next = q
            .enqueue(CommandType::Marker, Vec::new(), Box::new(|| Ok(())))
            .unwrap();
        assert_eq!(next.wait(), Status::Complete);
    }

    /// An inline command runs on the caller's thread when nothing it waits for is
    /// unfinished, and on a worker, after its dependency, otherwise.
    #[test]
    fn inline_commands_run_on_the_caller_when_ready() {
        let q = queue(false, false);
        let here = std::thread::current().id();
        let ran_on = Arc::new(Mutex::new(None));
        let r = ran_on.clone();
        let e = q
            .enqueue_inline(
                CommandType::MapBuffer,
                CommandSync::Command,
                Vec::new(),
                Box::new(move || {
                    *r.lock() = Some(std::thread::current().id());
                    Ok(())
                }),
            )
            .unwrap();
        assert_eq!(e.status(), Status::Complete, "done before enqueue returns");
        assert_eq!(*ran_on.lock(), Some(here));

        let gate = Event::new_user(q.context.clone());
        let r = ran_on.clone();
        let e = q
            .enqueue_inline(
                CommandType::MapBuffer,
                CommandSync::Command,
                vec![gate.clone()],
                Box::new(move || {
                    *r.lock() = Some(std::thread::current().id());
                    Ok(())
                }),
            )
            .unwrap();
        assert!(!e.status().is_final(), "waits for its wait list");
        gate.set_user_status(Status::Complete).unwrap();
        assert_eq!(e.wait(), Status::Complete);
        assert_ne!(*ran_on.lock(), Some(here));
        // A failed wait list fails it without running it.
        let gate = Event::new_user(q.context.clone());
        gate.set_user_status(Status::Failed(ExecError::User(-1)))
            .unwrap();
        let e = q
            .enqueue_inline(
                CommandType::MapBuffer,
                CommandSync::Command,
                vec![gate],
                Box::new(|| panic!("must not run")),
            )
            .unwrap();
        assert_eq!(e.wait(), Status::Failed(ExecError::WaitListFailed));
    }

    #[test]
    fn a_panicking_command_fails_its_event() {
        let q = queue(false, false);
        let e = q
            .enqueue(CommandType::Marker, Vec::new(), Box::new(|| panic!("boom")))
            .unwrap();
        assert_eq!(e.wait(), Status::Failed(ExecError::OutOfResources));
        let e = q
            .enqueue(CommandType::Marker, Vec::new(), Box::new(|| Ok(())))
            .unwrap();
        assert_eq!(e.wait(), Status::Complete);
    }

    #[test]
    fn out_of_order_commands_run_when_ready_and_barriers_fence() {
        let q = queue(false, true);
        let (u1, u2) = (
            Event::new_user(q.context.clone()),
            Event::new_user(q.context.clone()),
        );
        let order = Arc::new(Mutex::new(Vec::new()));
        let push = |i: u32| -> Work {
            let o = order.clone();
            Box::new(move || {
                o.lock().push(i);
                Ok(())
            })
        };
        let a = q
            .enqueue(CommandType::Marker, vec![u1.clone()], push(1))
            .unwrap();
        let b = q
            .enqueue(CommandType::Marker, vec![u2.clone()], push(2))
            .unwrap();
        let barrier = q
            .enqueue_sync(
                CommandType::Barrier,
                CommandSync::Barrier,
                Vec::new(),
                push(3),
            )
            .unwrap();
        let after = q.enqueue(CommandType::Marker, Vec::new(), push(4)).unwrap();
        u2.set_user_status(Status::Complete).unwrap();
        assert_eq!(b.wait(), Status::Complete);
        std::thread::sleep(Duration::from_millis(20));
        assert!(!a.status().is_final() && !barrier.status().is_final());
        assert!(!after.status().is_final());
        u1.set_user_status(Status::Complete).unwrap();
        assert_eq!(after.wait(), Status::Complete);
        assert_eq!(*order.lock(), vec![2, 1, 3, 4]);
    }

    #[test]
    fn out_of_order_commands_overlap() {
        let q = queue(false, true);
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let g = gate.clone();
        // The first command blocks until the second one has run: only concurrent
        // execution completes both.
        let first = q
            .enqueue(
                CommandType::Marker,
                Vec::new(),
                Box::new(move || {
                    let mut open = g.0.lock();
                    let deadline = std::time::Instant::now() + Duration::from_secs(10);
                    while !*open {
                        if g.1.wait_until(&mut open, deadline).timed_out() {
                            return Err(ExecError::OutOfResources);
                        }
                    }
                    Ok(())
                }),
            )
            .unwrap();
        let g = gate.clone();
        let second = q
            .enqueue(
                CommandType::Marker,
                Vec::new(),
                Box::new(move || {
                    *g.0.lock() = true;
                    g.1.notify_all();
                    Ok(())
                }),
            )
            .unwrap();
        assert_eq!(second.wait(), Status::Complete);
        assert_eq!(first.wait(), Status::Complete);
        q.finish();
    }
}
