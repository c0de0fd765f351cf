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

use std::collections::BTreeMap;
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

/// The registered ranges by their start: `lo → (hi, space, id)`. Ranges never overlap
/// (they are distinct stacks and arenas), so the one that may hold an address is the last
/// starting at or below it: a lookup is logarithmic in the number of threads and arenas,
/// which an application creating many queues can make large.
static RANGES: RwLock<BTreeMap<u64, (u64, Space, u64)>> = RwLock::new(BTreeMap::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A registered range; dropping it unregisters the range.
#[derive(Debug)]
pub struct Registered {
    lo: u64,
    id: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut r = RANGES.write().unwrap_or_else(|e| e.into_inner());
        if r.get(&self.lo).is_some_and(|x| x.2 == self.id) {
            r.remove(&self.lo);
        }
    }
}

/// Register `[lo, hi)` as memory of `space` until the guard is dropped. A range starting
/// where a registered one starts replaces it (that memory was freed and reused).
pub fn register(lo: u64, hi: u64, space: Space) -> Registered {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let mut r = RANGES.write().unwrap_or_else(|e| e.into_inner());
    r.insert(lo, (hi, space, id));
    Registered { lo, id }
}

/// The registered space `addr` lies in: 0 when none (global memory), else a [`Space`].
pub fn space_of(addr: u64) -> i32 {
    let r = RANGES.read().unwrap_or_else(|e| e.into_inner());
    r.range(..=addr)
        .next_back()
        .filter(|(_, (hi, _, _))| addr < *hi)
        .map_or(0, |(_, (_, space, _))| *space as i32)
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

    /// Thousands of ranges (thread stacks of many queues) still resolve, and a range
    /// registered again at the same start outlives the old guard.
    #[test]
    fn many_ranges_and_reuse() {
        let base = 0x10_0000_0000u64;
        let guards: Vec<_> = (0..5000u64)
            .map(|i| register(base + i * 0x1000, base + i * 0x1000 + 0x800, Space::Private))
            .collect();
        assert_eq!(
            space_of(base + 4321 * 0x1000 + 0x7ff),
            Space::Private as i32
        );
        assert_eq!(space_of(base + 4321 * 0x1000 + 0x800), 0);
        assert_eq!(space_of(base - 1), 0);
        let old = register(base - 0x1000, base - 0x10, Space::Private);
        let new = register(base - 0x1000, base - 0x10, Space::Local);
        drop(old);
        assert_eq!(space_of(base - 0x20), Space::Local as i32);
        drop(new);
        drop(guards);
        assert_eq!(space_of(base + 0x10), 0);
    }
}
