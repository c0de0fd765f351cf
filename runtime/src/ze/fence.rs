//! Level-Zero fences: signalled by a command queue when the command lists submitted with
//! the fence have completed.

use super::wait_until;
use parking_lot::{Condvar, Mutex};

#[derive(Default)]
pub struct Fence {
    signaled: Mutex<bool>,
    cv: Condvar,
    /// A command of the batch failed: host waits report `ZE_RESULT_ERROR_DEVICE_LOST`.
    failed: std::sync::atomic::AtomicBool,
}

impl Fence {
    pub fn new(signaled: bool) -> Fence {
        Fence {
            signaled: Mutex::new(signaled),
            cv: Condvar::new(),
            failed: Default::default(),
        }
    }

    pub fn signal(&self) {
        *self.signaled.lock() = true;
        self.cv.notify_all();
    }

    /// Signal for a batch in which a command failed.
    pub fn signal_failed(&self) {
        let mut s = self.signaled.lock();
        self.failed
            .store(true, std::sync::atomic::Ordering::Relaxed);
        *s = true;
        self.cv.notify_all();
    }

    /// Signalled for a batch in which a command failed (until reset).
    pub fn failed(&self) -> bool {
        self.failed.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn reset(&self) {
        let mut s = self.signaled.lock();
        self.failed
            .store(false, std::sync::atomic::Ordering::Relaxed);
        *s = false;
    }

    pub fn is_signaled(&self) -> bool {
        *self.signaled.lock()
    }

    /// Wait until signalled; false if the timeout passed first.
    pub fn wait(&self, timeout_ns: u64) -> bool {
        let mut s = self.signaled.lock();
        wait_until(&self.cv, &mut s, timeout_ns, |s| *s)
    }
}
