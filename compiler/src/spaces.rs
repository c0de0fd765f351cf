//! Where the private and local memory of running work-items lives, for the explicit
//! generic casts (`to_global`, `to_local`, `to_private`) of an address another work-item
//! made.
//!
//! A generic pointer is a plain address. A cast first tests it against the current
//! work-item's own memory (the group's local memory, its stack, its frame): that answers
//! the common case inline. A private or local address of *another* work-item (a
//! work-item of another group on another worker stored `&x` in global memory, CTS
//! `generic_address_space language_struct`) is in none of those, so before calling such
//! an address global the cast asks [`space_of`] (the built-in `ferrite_space_of`), which
//! looks it up in the ranges the executor registers: each worker thread's stack, its
//! local-memory arena, its frame arena. A range stays registered while its [`Registered`]
//! guard lives.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::RwLock;

/// The space of a registered range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Private memory: a thread's stack or a frame arena.
    Private = 1,
    /// Local memory: a local-memory arena.
    Local = 2,
}

struct Range {
    id: u64,
    lo: u64,
    hi: u64,
    space: Space,
}

static RANGES: RwLock<Vec<Range>> = RwLock::new(Vec::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A registered range; dropping it unregisters the range.
#[derive(Debug)]
pub struct Registered(u64);

impl Drop for Registered {
    fn drop(&mut self) {
        let mut r = RANGES.write().unwrap_or_else(|e| e.into_inner());
        r.retain(|x| x.id != self.0);
    }
}

/// Register `[lo, hi)` as memory of `space` until the guard is dropped.
pub fn register(lo: u64, hi: u64, space: Space) -> Registered {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let mut r = RANGES.write().unwrap_or_else(|e| e.into_inner());
    r.push(Range { id, lo, hi, space });
    Registered(id)
}

/// The registered space `addr` lies in: 0 when none (global memory), else a [`Space`].
pub fn space_of(addr: u64) -> i32 {
    let r = RANGES.read().unwrap_or_else(|e| e.into_inner());
    r.iter()
        .find(|x| x.lo <= addr && addr < x.hi)
        .map_or(0, |x| x.space as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_come_and_go() {
        let a = register(0x1000, 0x2000, Space::Private);
        let b = register(0x8000, 0x9000, Space::Local);
        assert_eq!(space_of(0x1000), Space::Private as i32);
        assert_eq!(space_of(0x1fff), Space::Private as i32);
        assert_eq!(space_of(0x2000), 0);
        assert_eq!(space_of(0x8800), Space::Local as i32);
        drop(a);
        assert_eq!(space_of(0x1800), 0);
        assert_eq!(space_of(0x8800), Space::Local as i32);
        drop(b);
        assert_eq!(space_of(0x8800), 0);
    }
}
