//! Level-Zero fences: signalled by a command queue when the command lists submitted with
//! the fence have completed.

use super::wait_until;
use parking_lot::{Condvar, Mutex};

#[derive(Default)]
pub struct Fence {
    signaled: Mutex<bool>,
    cv: Condvar,
}

impl Fence {
    pub fn new(signaled: bool) -> Fence {
        Fence {
            signaled: Mutex::new(signaled),
            cv: Condvar::new(),
        }
    }

    pub fn signal(&self) {
        *self.signaled.lock() = true;
        self.cv.notify_all();
    }

    pub fn reset(&self) {
        *self.signaled.lock() = false;
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
