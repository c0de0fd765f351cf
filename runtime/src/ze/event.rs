//! Level-Zero event pools and events.
//!
//! An event is a signalled flag that the host and commands set, reset and wait on. A
//! command that signals an event also stores when it started and ended (from
//! [`now_ns`](crate::event::now_ns), the clock of every Ferrite timestamp), which
//! `zeEventQueryKernelTimestamp` reports for pools created with timestamps. Events of a
//! pool are independent objects; the pool only bounds their indices and carries flags.

use super::event_ipc::{SharedSlots, Slot};
use super::{spin_first, wait_until};
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// An event pool: `count` slots, and whether its events record timestamps. A pool shared
/// between processes keeps its events' state in [`SharedSlots`] (`event_ipc.rs`).
pub struct EventPool {
    pub count: u32,
    pub timestamps: bool,
    pub host_visible: bool,
    pub shared: Option<SharedSlots>,
}

impl EventPool {
    /// A pool of this process only (not `ZE_EVENT_POOL_FLAG_IPC`).
    pub fn local(count: u32, timestamps: bool) -> EventPool {
        EventPool {
            count,
            timestamps,
            host_visible: true,
            shared: None,
        }
    }
}

#[derive(Default)]
struct State {
    signaled: bool,
    /// Signalled by a command that failed (a kernel fault or time limit) or that waited
    /// for a failed event: host waits report `ZE_RESULT_ERROR_DEVICE_LOST`.
    failed: bool,
    /// (start, end) of the command that signalled it, in ns.
    times: Option<(u64, u64)>,
    /// A counter-based event's tracking point: bumped by every command appended to signal
    /// it.
    generation: u64,
    /// The highest tracking point whose command completed: the event is signalled when it
    /// reaches `generation`, and a wait appended at tracking point g waits for it to
    /// reach g.
    done: u64,
}

pub struct ZeEvent {
    pub pool: Arc<EventPool>,
    pub index: u32,
    state: Mutex<State>,
    cv: Condvar,
    /// `state.signaled`, readable without the lock: a host wait spins on it first.
    signaled: AtomicBool,
    /// Counter-based (`zeEventCounterBasedCreate`, API 1.15): it tracks the last command
    /// appended to signal it, and is complete when that command is (or when none was).
    pub counter_based: bool,
}

impl ZeEvent {
    pub fn new(pool: Arc<EventPool>, index: u32) -> ZeEvent {
        // A new event of a pool this process shared starts unsignalled; one of a pool
        // opened from another process's handle takes the state it has there.
        if let Some(sh) = pool.shared.as_ref().filter(|sh| sh.exported()) {
            sh.slot(index).reset();
        }
        ZeEvent {
            pool,
            index,
            state: Mutex::new(State::default()),
            cv: Condvar::new(),
            signaled: AtomicBool::new(false),
            counter_based: false,
        }
    }

    /// A counter-based event, in a pool of its own; complete until a command is appended
    /// to signal it.
    pub fn new_counter_based(timestamps: bool) -> ZeEvent {
        let pool = Arc::new(EventPool::local(1, timestamps));
        ZeEvent {
            state: Mutex::new(State {
                signaled: true,
                ..State::default()
            }),
            signaled: AtomicBool::new(true),
            counter_based: true,
            ..ZeEvent::new(pool, 0)
        }
    }

    /// A command to signal this event is being appended: a counter-based event now
    /// tracks it (not signalled until it completes) and the command gets the tracking
    /// point to signal; 0 for other events.
    pub fn track(&self) -> u64 {
        if !self.counter_based {
            return 0;
        }
        let mut st = self.state.lock();
        st.generation += 1;
        st.signaled = false;
        st.failed = false;
        st.times = None;
        self.signaled.store(false, Ordering::Release);
        st.generation
    }

    /// A command waiting for this event is being appended: what it waits for. For a
    /// counter-based event, the command it tracks now (later appends that signal it do
    /// not move the wait); 0 for other events (their signalled flag).
    pub fn wait_point(&self) -> u64 {
        if self.counter_based {
            self.state.lock().generation
        } else {
            0
        }
    }

    /// The command of tracking point `generation` is submitted (again: a regular list
    /// executed once more): a counter-based event waits for it to complete again.
    pub fn resubmitted(&self, generation: u64) {
        if !self.counter_based || generation == 0 {
            return;
        }
        let mut st = self.state.lock();
        if st.done >= generation {
            st.done = generation - 1;
        }
        if st.generation <= generation {
            st.signaled = false;
            st.times = None;
            self.signaled.store(false, Ordering::Release);
        }
    }

    /// Signal on behalf of the command of tracking point `generation` (0 for an event
    /// that is not counter-based); a counter-based event that tracks a later command
    /// records the completion for the waits appended before that command, and stays
    /// unsignalled.
    pub fn signal_command(&self, generation: u64, start: u64, end: u64, failed: bool) {
        let mut st = self.state.lock();
        if self.counter_based {
            st.done = st.done.max(generation);
            if st.done < st.generation {
                self.cv.notify_all();
                return;
            }
        }
        // Under the same lock as the check: an append that bumps the tracking point in
        // between would otherwise find its event signalled by the command before it.
        self.complete_locked(&mut st, start, end, failed);
    }

    /// Wait (with no time limit) for what a command appended at `point` waits for
    /// ([`ZeEvent::wait_point`]).
    pub fn wait_for_point(&self, point: u64) {
        if !self.counter_based {
            self.wait(u64::MAX);
            return;
        }
        let mut st = self.state.lock();
        wait_until(&self.cv, &mut st, u64::MAX, |s| s.done >= point);
    }

    /// Signal from the host (`zeEventHostSignal`) or a command without timing.
    pub fn signal(&self) {
        let now = crate::event::now_ns();
        self.signal_with_times(now, now);
    }

    /// Signal on behalf of a command that ran from `start` to `end`.
    pub fn signal_with_times(&self, start: u64, end: u64) {
        self.complete(start, end, false);
    }

    /// Signal on behalf of a command that failed (or did not run because an event it
    /// waited for failed).
    pub fn signal_failed(&self, start: u64, end: u64) {
        self.complete(start, end, true);
    }

    fn complete(&self, start: u64, end: u64, failed: bool) {
        let mut st = self.state.lock();
        self.complete_locked(&mut st, start, end, failed);
    }

    fn complete_locked(&self, st: &mut State, start: u64, end: u64, failed: bool) {
        st.signaled = true;
        st.failed = failed;
        st.times = Some((start, end));
        self.signaled.store(true, Ordering::Release);
        self.cv.notify_all();
        if let Some(slot) = self.slot() {
            slot.signal(start, end, failed);
        }
    }

    /// The state shared with other processes, for an event of a shared pool: there it is
    /// what counts (another process signals and resets it too).
    fn slot(&self) -> Option<&Slot> {
        self.pool.shared.as_ref().map(|sh| sh.slot(self.index))
    }

    /// Signalled by a failed command (until reset).
    pub fn failed(&self) -> bool {
        match self.slot() {
            Some(slot) => slot.failed(),
            None => self.state.lock().failed,
        }
    }

    pub fn reset(&self) {
        let mut st = self.state.lock();
        st.signaled = false;
        self.signaled.store(false, Ordering::Release);
        st.failed = false;
        st.times = None;
        if let Some(slot) = self.slot() {
            slot.reset();
        }
    }

    pub fn is_signaled(&self) -> bool {
        match self.slot() {
            Some(slot) => slot.is_signaled(),
            None => self.state.lock().signaled,
        }
    }

    /// Wait until signalled; false if the timeout passed first.
    pub fn wait(&self, timeout_ns: u64) -> bool {
        if let Some(slot) = self.slot() {
            return slot.wait(timeout_ns);
        }
        let left = spin_first(timeout_ns, || self.signaled.load(Ordering::Acquire));
        let mut st = self.state.lock();
        wait_until(&self.cv, &mut st, left, |s| s.signaled)
    }

    /// (start, end) of the signalling command, if signalled.
    pub fn times(&self) -> Option<(u64, u64)> {
        if let Some(slot) = self.slot() {
            return slot.times();
        }
        let st = self.state.lock();
        st.signaled.then_some(st.times).flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A counter-based event's tracked command completing while the host appends the
    /// next command to signal it: the event must never be signalled while it tracks a
    /// command that has not completed. (The completion once checked the tracking point
    /// and set the flag under separate locks; level-zero-tests' chained immediate lists
    /// then read results a few launches short.)
    #[test]
    fn completion_racing_an_append_never_signals_the_new_command() {
        let e = Arc::new(ZeEvent::new_counter_based(false));
        let stop = Arc::new(AtomicBool::new(false));
        let (e2, stop2) = (e.clone(), stop.clone());
        // Completes whatever command the event tracks, over and over.
        let completer = std::thread::spawn(move || {
            while !stop2.load(Ordering::Relaxed) {
                let g = e2.state.lock().generation;
                e2.signal_command(g, 1, 2, false);
            }
        });
        let until = std::time::Instant::now() + std::time::Duration::from_millis(100);
        let mut bad = 0;
        while std::time::Instant::now() < until {
            e.track();
            for _ in 0..8 {
                let st = e.state.lock();
                bad += usize::from(st.signaled && st.done < st.generation);
            }
        }
        stop.store(true, Ordering::Relaxed);
        completer.join().unwrap();
        assert_eq!(bad, 0, "signalled while tracking an incomplete command");
    }

    #[test]
    fn signal_wait_reset() {
        let pool = Arc::new(EventPool::local(1, true));
        let e = Arc::new(ZeEvent::new(pool, 0));
        assert!(!e.wait(0));
        assert!(!e.wait(1_000));
        let e2 = e.clone();
        let t = std::thread::spawn(move || e2.signal_with_times(5, 9));
        assert!(e.wait(u64::MAX));
        t.join().unwrap();
        assert_eq!(e.times(), Some((5, 9)));
        e.reset();
        assert!(!e.is_signaled());
        assert_eq!(e.times(), None);
    }
}
