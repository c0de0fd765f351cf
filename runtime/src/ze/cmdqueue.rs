//! Level-Zero command queues: each runs the batches submitted to it in order on its own
//! thread, which hands kernel launches to the shared executor.
//!
//! Every submission gets a ticket (1, 2, …); the thread completes them in order, so
//! "ticket n is done" is `completed >= n`. A synchronous queue's submit returns after
//! its batch completed. Dropping the queue lets the thread finish what was submitted,
//! then joins it.

use super::cmdlist::Command;
use super::fence::Fence;
use super::{spin_first, wait_until};
use crate::error::{Error, Result};
use crate::event::spin_until;
use parking_lot::{Condvar, Mutex, MutexGuard};
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Weak};
use std::thread::JoinHandle;

/// The command lists of one `zeCommandQueueExecuteCommandLists` and its fence.
pub struct Batch {
    pub lists: Vec<Arc<Vec<Command>>>,
    pub fence: Option<Arc<Fence>>,
}

#[derive(Default)]
struct State {
    pending: VecDeque<Batch>,
    submitted: u64,
    completed: u64,
    shutdown: bool,
    /// A command failed since the last [`CmdQueue::take_failure`].
    failed: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// Wakes the thread: work or shutdown.
    work: Condvar,
    /// Wakes waiters: a batch completed.
    done: Condvar,
    /// `state.pending.len()` and `state.completed`, readable without the lock: the queue's
    /// thread and a waiter spin on them before they sleep (as OpenCL's queues do,
    /// `crate::event::spin_until`).
    pending_n: AtomicUsize,
    completed_n: AtomicU64,
}

pub struct CmdQueue {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    pub synchronous: bool,
}

/// A queue's priority (`ze_command_queue_priority_t`), as its thread's scheduling
/// priority: what the queue's thread runs itself (copies, fills, barriers, one-group
/// launches) yields the cores to other queues' work when `Low` and takes them first when
/// `High`. Kernels of several groups run on the shared executor whatever the priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Priority {
    Low,
    #[default]
    Normal,
    High,
}

impl Priority {
    /// The thread's nice value: `High` asks for -5, which needs `CAP_SYS_NICE`; without it
    /// the thread stays at the normal priority (lows still yield to it).
    fn nice(self) -> libc::c_int {
        match self {
            Priority::Low => 10,
            Priority::Normal => 0,
            Priority::High => -5,
        }
    }
}

/// Every live queue (immediate lists' too), for [`submitted_now`].
static LIVE: LazyLock<Mutex<Vec<Weak<Shared>>>> = LazyLock::new(|| Mutex::new(Vec::new()));

/// What every queue of the process has been given so far (`zeMemFreeExt`'s policies: a
/// CPU driver does not track which commands read an allocation, so it waits for all of
/// them).
pub struct Submitted(Vec<(Arc<Shared>, u64)>);

/// Every queue's work submitted up to now.
pub fn submitted_now() -> Submitted {
    let mut live = LIVE.lock();
    live.retain(|w| w.strong_count() > 0);
    Submitted(
        live.iter()
            .filter_map(Weak::upgrade)
            .map(|s| {
                let ticket = s.state.lock().submitted;
                (s, ticket)
            })
            .collect(),
    )
}

impl Submitted {
    /// Wait until all of it completed (a dropped queue finishes its work first).
    pub fn wait(&self) {
        for (s, ticket) in &self.0 {
            let mut st = s.state.lock();
            wait_until(&s.done, &mut st, u64::MAX, |st| st.completed >= *ticket);
        }
    }

    /// Run `f` on a background thread once all of it completed (`zeMemFreeExt`'s deferred
    /// free). One thread serves every such request, in order: a later request's work
    /// includes an earlier one's, so none waits longer than its own.
    pub fn then(self, f: impl FnOnce() + Send + 'static) -> Result<()> {
        type Job = (Submitted, Box<dyn FnOnce() + Send>);
        static AFTER: std::sync::OnceLock<Mutex<std::sync::mpsc::Sender<Job>>> =
            std::sync::OnceLock::new();
        let tx = match AFTER.get() {
            Some(tx) => tx,
            None => {
                let (tx, rx) = std::sync::mpsc::channel::<Job>();
                std::thread::Builder::new()
                    .name("ferrite-ze-after".into())
                    .spawn(move || {
                        for (work, f) in rx {
                            work.wait();
                            f();
                        }
                    })
                    .map_err(|e| {
                        Error::OutOfResources(format!("cannot start a free thread: {e}"))
                    })?;
                // Another thread may have set one meanwhile: then this one's receiver
                // ends when `tx` drops, and its thread exits.
                let _ = AFTER.set(Mutex::new(tx));
                AFTER.get().expect("set above")
            }
        };
        tx.lock()
            .send((self, Box::new(f)))
            .map_err(|_| Error::OutOfResources("the free thread has stopped".into()))
    }
}

impl CmdQueue {
    pub fn new(synchronous: bool, priority: Priority) -> Result<CmdQueue> {
        let shared = Arc::new(Shared::default());
        LIVE.lock().push(Arc::downgrade(&shared));
        let s = shared.clone();
        let thread = std::thread::Builder::new()
            .name("ferrite-ze-queue".into())
            .spawn(move || {
                if priority != Priority::Normal {
                    // SAFETY: plain system calls on the calling thread's own id; a refusal
                    // (no privilege to raise it) leaves the priority as it was.
                    unsafe {
                        let tid = libc::gettid() as libc::id_t;
                        libc::setpriority(libc::PRIO_PROCESS, tid, priority.nice());
                    }
                }
                run(&s)
            })
            .map_err(|e| Error::OutOfResources(format!("cannot start a queue thread: {e}")))?;
        Ok(CmdQueue {
            shared,
            thread: Some(thread),
            synchronous,
        })
    }

    /// Queue a batch; returns its ticket. A synchronous queue returns once it completed.
    pub fn submit(&self, batch: Batch) -> u64 {
        let ticket = {
            let mut st = self.shared.state.lock();
            st.submitted += 1;
            st.pending.push_back(batch);
            self.shared.pending_n.fetch_add(1, Ordering::Release);
            self.shared.work.notify_one();
            st.submitted
        };
        if self.synchronous {
            self.wait_for(ticket, u64::MAX);
        }
        ticket
    }

    /// Wait until batch `ticket` completed; false on timeout.
    pub fn wait_for(&self, ticket: u64, timeout_ns: u64) -> bool {
        // A batch usually completes soon: spin before sleeping, unless the caller gave a
        // shorter time than the spin.
        let left = spin_first(timeout_ns, || {
            self.shared.completed_n.load(Ordering::Acquire) >= ticket
        });
        let mut st = self.shared.state.lock();
        wait_until(&self.shared.done, &mut st, left, |s| s.completed >= ticket)
    }

    /// Whether a command failed (a kernel fault or time limit) since the last call; the
    /// answer is given once (`zeCommandQueueSynchronize` reports it, then the queue is
    /// usable as before).
    pub fn take_failure(&self) -> bool {
        std::mem::take(&mut self.shared.state.lock().failed)
    }

    /// `zeCommandQueueSynchronize`: wait until everything submitted so far completed.
    pub fn synchronize(&self, timeout_ns: u64) -> bool {
        let ticket = self.shared.state.lock().submitted;
        self.wait_for(ticket, timeout_ns)
    }
}

impl Drop for CmdQueue {
    fn drop(&mut self) {
        {
            let mut st = self.shared.state.lock();
            st.shutdown = true;
            self.shared.work.notify_all();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The queue's thread: run batches in order until shut down and drained.
fn run(shared: &Shared) {
    loop {
        let batch = {
            let mut st = shared.state.lock();
            let mut spun = false;
            loop {
                if let Some(b) = st.pending.pop_front() {
                    shared.pending_n.fetch_sub(1, Ordering::Release);
                    break b;
                }
                if st.shutdown {
                    return;
                }
                // The next batch often follows at once: spin for it without the lock,
                // then look again under the lock before sleeping.
                if !spun {
                    spun = true;
                    MutexGuard::unlocked(&mut st, || {
                        spin_until(|| shared.pending_n.load(Ordering::Acquire) > 0)
                    });
                    continue;
                }
                shared.work.wait(&mut st);
            }
        };
        // A panic here would be a Ferrite bug; finish the batch's bookkeeping anyway so
        // that no waiter hangs.
        let ok = catch_unwind(AssertUnwindSafe(|| {
            let mut ok = true;
            for list in &batch.lists {
                for cmd in list.iter() {
                    ok &= cmd.execute();
                }
            }
            ok
        }))
        .unwrap_or(false);
        if let Some(f) = &batch.fence {
            if ok {
                f.signal();
            } else {
                f.signal_failed();
            }
        }
        let mut st = shared.state.lock();
        st.failed |= !ok;
        st.completed += 1;
        shared.completed_n.store(st.completed, Ordering::Release);
        shared.done.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::super::cmdlist::Op;
    use super::super::event::{EventPool, ZeEvent};
    use super::*;

    /// The nice values of the process's queue threads (`/proc/self/task/*/stat`, field 19).
    fn queue_thread_nices() -> Vec<i64> {
        let mut out = Vec::new();
        for t in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
            let Ok(stat) = std::fs::read_to_string(t.path().join("stat")) else {
                continue;
            };
            let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
                continue;
            };
            if &stat[open + 1..close] != "ferrite-ze-queu" {
                continue;
            }
            // After the command name: field 3 (state) onwards; the nice value is field 19.
            if let Some(n) = stat[close + 1..].split_whitespace().nth(16) {
                out.push(n.parse().unwrap());
            }
        }
        out
    }

    #[test]
    fn work_then_runs_after_the_queues_work() {
        let q = CmdQueue::new(false, Priority::Normal).unwrap();
        let gate = Arc::new(ZeEvent::new(Arc::new(EventPool::local(1, false)), 0));
        let cmd = Command::new(vec![gate.clone()], Op::NOTHING, None).unwrap();
        q.submit(Batch {
            lists: vec![Arc::new(vec![cmd])],
            fence: None,
        });
        let (tx, rx) = std::sync::mpsc::channel();
        submitted_now().then(move || tx.send(()).unwrap()).unwrap();
        // The queue is held at its gate: nothing ran yet.
        assert!(rx
            .recv_timeout(std::time::Duration::from_millis(50))
            .is_err());
        gate.signal();
        rx.recv().unwrap();
    }

    #[test]
    fn a_low_priority_queue_runs_at_a_lower_scheduling_priority() {
        let q = CmdQueue::new(false, Priority::Low).unwrap();
        // The thread sets its priority before it takes its first batch.
        q.submit(Batch {
            lists: Vec::new(),
            fence: None,
        });
        assert!(q.synchronize(u64::MAX));
        assert!(
            queue_thread_nices().contains(&10),
            "{:?}",
            queue_thread_nices()
        );
    }

    #[test]
    fn batches_run_in_order_and_signal_fences() {
        let q = CmdQueue::new(false, Priority::Normal).unwrap();
        let gate = Arc::new(ZeEvent::new(Arc::new(EventPool::local(1, false)), 0));
        let fence = Arc::new(Fence::new(false));
        let cmd = Command::new(vec![gate.clone()], Op::NOTHING, None).unwrap();
        q.submit(Batch {
            lists: vec![Arc::new(vec![cmd])],
            fence: Some(fence.clone()),
        });
        assert!(!q.synchronize(0));
        assert!(!fence.wait(1_000_000));
        gate.signal();
        assert!(q.synchronize(u64::MAX));
        assert!(fence.is_signaled());
    }
}
