//! Event pools shared between processes (`ZE_EVENT_POOL_FLAG_IPC`,
//! `zeEventPoolGetIpcHandle` / `zeEventPoolOpenIpcHandle`).
//!
//! The state of each event of such a pool lives in a [`Slot`] of a `memfd` that both
//! processes map, so a signal, reset or timestamp written in one is what the other reads.
//! Waiters sleep on the slot's state word with a futex (a shared one: the word lies in a
//! shared mapping), which a signal from either process wakes; the handle names the file
//! as a memory IPC handle does (`crate::mem::ipc`: descriptor, process id, length).

use crate::error::{Error, Result};
use crate::mem::ipc::{self, Handle};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// One event's state, as both processes see it.
#[repr(C)]
pub struct Slot {
    /// 1 when signalled, 0 when not: the futex word.
    state: AtomicU32,
    /// 1 when signalled by a failed command.
    failed: AtomicU32,
    /// The signalling command's start and end (ns, `crate::event::now_ns`); written before
    /// `state`. (Each process has its own clock origin: timestamps from the other process
    /// are on its clock.)
    start: AtomicU64,
    end: AtomicU64,
}

const SLOT_BYTES: usize = std::mem::size_of::<Slot>();

impl Slot {
    pub fn signal(&self, start: u64, end: u64, failed: bool) {
        self.start.store(start, Ordering::Relaxed);
        self.end.store(end, Ordering::Relaxed);
        self.failed.store(u32::from(failed), Ordering::Relaxed);
        self.state.store(1, Ordering::Release);
        futex(&self.state, libc::FUTEX_WAKE, i32::MAX, None);
    }

    pub fn reset(&self) {
        self.state.store(0, Ordering::Release);
        self.failed.store(0, Ordering::Relaxed);
    }

    pub fn is_signaled(&self) -> bool {
        self.state.load(Ordering::Acquire) == 1
    }

    pub fn failed(&self) -> bool {
        self.is_signaled() && self.failed.load(Ordering::Relaxed) == 1
    }

    /// (start, end) of the signalling command, if signalled.
    pub fn times(&self) -> Option<(u64, u64)> {
        self.is_signaled().then(|| {
            (
                self.start.load(Ordering::Relaxed),
                self.end.load(Ordering::Relaxed),
            )
        })
    }

    /// Wait until signalled; false if `timeout_ns` passed first (`u64::MAX`: never).
    pub fn wait(&self, timeout_ns: u64) -> bool {
        let left = super::spin_first(timeout_ns, || self.is_signaled());
        let deadline = (left != u64::MAX).then(|| Instant::now() + Duration::from_nanos(left));
        loop {
            if self.is_signaled() {
                return true;
            }
            let wait = match deadline {
                None => None,
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(w) if !w.is_zero() => Some(w),
                    _ => return self.is_signaled(),
                },
            };
            // Sleeps only while the word is still 0; a signal in between makes it
            // return at once.
            futex(&self.state, libc::FUTEX_WAIT, 0, wait);
        }
    }
}

/// `futex(2)` on `word`, shared between processes (no `FUTEX_PRIVATE_FLAG`).
fn futex(word: &AtomicU32, op: libc::c_int, val: i32, timeout: Option<Duration>) {
    let ts = timeout.map(|d| libc::timespec {
        tv_sec: d.as_secs().min(i64::MAX as u64) as libc::time_t,
        tv_nsec: d.subsec_nanos() as libc::c_long,
    });
    let ts_ptr = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `word` is a live, aligned 32-bit word; the timeout is NULL or a live
    // timespec; FUTEX_WAIT/FUTEX_WAKE read nothing else. A spurious or interrupted wake
    // is handled by the caller's loop.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            op,
            val,
            ts_ptr,
            std::ptr::null::<u32>(),
            0,
        );
    }
}

/// The slots of one shared pool, mapped in this process.
pub struct SharedSlots {
    base: *mut libc::c_void,
    len: usize,
    count: u32,
    /// The exporting process's file (closed with the pool); -1 in a process that opened
    /// a handle (its mapping keeps the file alive).
    fd: i32,
}

// SAFETY: the mapping is plain shared memory accessed only through the atomics of
// `Slot`; the pointer stays valid until drop.
unsafe impl Send for SharedSlots {}
// SAFETY: as above.
unsafe impl Sync for SharedSlots {}

impl SharedSlots {
    /// Slots for `count` events on a new shared file, all unsignalled.
    pub fn create(count: u32) -> Result<SharedSlots> {
        let len = (count as usize * SLOT_BYTES).next_multiple_of(crate::mem::pages::PAGE_BYTES);
        let fd = ipc::new_file(len)?;
        let base = ipc::map_file(fd, len);
        if base == libc::MAP_FAILED {
            // SAFETY: our own new descriptor, closed once.
            unsafe { libc::close(fd) };
            return Err(Error::OutOfResources(
                "mapping an event pool's shared file failed".into(),
            ));
        }
        Ok(SharedSlots {
            base,
            len,
            count,
            fd,
        })
    }

    /// The pool a handle from [`SharedSlots::handle`] names, mapped here.
    pub fn open(h: &Handle) -> Result<SharedSlots> {
        let len = usize::try_from(h.len).map_err(|_| Error::InvalidValue("handle length"))?;
        let count = u32::try_from(h.offset).map_err(|_| Error::InvalidValue("handle count"))?;
        if len == 0 || count == 0 || count as usize * SLOT_BYTES > len {
            return Err(Error::InvalidValue("not an event pool handle"));
        }
        let fd = ipc::open_file(h)?;
        let mut st: libc::stat = {
            // SAFETY: plain data, written by fstat.
            unsafe { std::mem::zeroed() }
        };
        // SAFETY: `fd` is open; `st` is ours.
        let small = unsafe { libc::fstat(fd, &mut st) } != 0 || (st.st_size as u64) < h.len;
        let base = if small {
            libc::MAP_FAILED
        } else {
            ipc::map_file(fd, len)
        };
        // SAFETY: our descriptor; the mapping (if any) keeps the file alive.
        unsafe { libc::close(fd) };
        if base == libc::MAP_FAILED {
            return Err(Error::InvalidValue("the handle's file cannot be mapped"));
        }
        Ok(SharedSlots {
            base,
            len,
            count,
            fd: -1,
        })
    }

    /// Whether this process made the pool (else it opened a handle to it).
    pub fn exported(&self) -> bool {
        self.fd >= 0
    }

    /// The handle of an exported pool: its file, this process, the length, and the
    /// number of events (in the offset field).
    pub fn handle(&self) -> Option<Handle> {
        self.exported().then(|| Handle {
            fd: self.fd,
            pid: std::process::id(),
            len: self.len as u64,
            offset: u64::from(self.count),
        })
    }

    /// The slot of event `index` (< the pool's count).
    pub fn slot(&self, index: u32) -> &Slot {
        assert!(index < self.count, "event index past the pool");
        // SAFETY: `index * SLOT_BYTES + SLOT_BYTES <= len` (checked at creation/open and
        // above), the mapping is page-aligned (so every slot is aligned) and lives as long
        // as `self`; `Slot` is atomics only, valid for any bytes.
        unsafe {
            &*self
                .base
                .cast::<u8>()
                .add(index as usize * SLOT_BYTES)
                .cast::<Slot>()
        }
    }
}

impl Drop for SharedSlots {
    fn drop(&mut self) {
        // SAFETY: the mapping made at creation/open, unmapped once; no slot reference
        // outlives `self`.
        unsafe { libc::munmap(self.base, self.len) };
        if self.fd >= 0 {
            // SAFETY: our own descriptor, closed once.
            unsafe { libc::close(self.fd) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opened_pool_shares_signals_both_ways() {
        let a = SharedSlots::create(3).unwrap();
        let h = a.handle().unwrap();
        assert_eq!(Handle::from_bytes(&h.to_bytes()), Some(h));
        let b = SharedSlots::open(&h).unwrap();
        assert!(!b.exported() && b.handle().is_none());
        assert!(!b.slot(2).is_signaled());
        a.slot(2).signal(5, 9, false);
        assert!(b.slot(2).is_signaled() && !b.slot(1).is_signaled());
        assert_eq!(b.slot(2).times(), Some((5, 9)));
        b.slot(2).reset();
        assert!(!a.slot(2).is_signaled());
        assert!(!a.slot(0).wait(1_000_000), "times out");
        // A waiter in one mapping, woken by a signal through the other.
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(5));
            b.slot(0).signal(1, 2, true);
        });
        assert!(a.slot(0).wait(u64::MAX));
        assert!(a.slot(0).failed());
        t.join().unwrap();
        let mut bad = h;
        bad.offset = 1000;
        assert!(SharedSlots::open(&bad).is_err());
    }
}
