//! Unified shared memory: the allocation map behind Level-Zero's `zeMemAlloc{Host,Device,
//! Shared}` and OpenCL's `clSVMAlloc` (one map for both APIs).
//!
//! Device memory is host memory, so every kind of allocation is an aligned host allocation
//! that the host and kernels address directly; the kinds differ only in what the API
//! reports. The map records each live allocation by base address so that a pointer
//! anywhere inside one can be resolved to it (`zeMemGetAllocProperties`,
//! `zeMemGetAddressRange`, bounds checks on copies, `clEnqueueSVMMigrateMem`).
//!
//! An OpenCL SVM allocation is a `Shared` allocation whose owner is the OpenCL context and
//! that carries its [`SvmFlags`] (every SVM kind is native: the flags change nothing about
//! the memory, only what the API reports and accepts); Level-Zero allocations and OpenCL's
//! `cl_intel_unified_shared_memory` ones (also owned by their OpenCL context) have none.
//!
//! Invariants:
//! - Every address in the map is the base of a live allocation made by [`alloc`] with the
//!   recorded size and alignment; [`free`] removes it before deallocating, under the lock,
//!   so an allocation is freed at most once.
//! - Ranges never overlap (they are distinct live allocations).
//! - The memory is zero-initialised.

use crate::device::MEM_BASE_ADDR_ALIGN;
use crate::error::{Error, Result};
use parking_lot::RwLock;
use std::alloc::Layout;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::LazyLock;

/// What kind of allocation the application asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UsmKind {
    Host,
    Device,
    Shared,
}

/// One live allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocation {
    /// Base address.
    pub base: usize,
    /// Size in bytes as requested (at least 1 byte is allocated).
    pub size: usize,
    /// Alignment of `base`.
    pub align: usize,
    pub kind: UsmKind,
    /// The front end's owner of the allocation (e.g. a Level-Zero context), opaque here.
    pub owner: usize,
    /// Unique id of the allocation, never reused.
    pub id: u64,
    /// The OpenCL SVM flags of an allocation made by `clSVMAlloc`; `None` otherwise.
    pub svm: Option<SvmFlags>,
    /// The front end's handle of the device the allocation was made for (an OpenCL USM
    /// device or shared allocation), opaque here; 0 when none was recorded.
    pub device: usize,
    /// The allocation flags the application gave (`CL_MEM_ALLOC_FLAGS_INTEL`), as given.
    pub flags: u64,
    /// On pages of its own (`mem::pages::alloc_pages`, or a mapping of another
    /// allocation's shared pages): what `mem::ipc` can share with another process.
    pub pages: bool,
}

/// What `clSVMAlloc` was asked for (validated by the front end).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SvmFlags {
    /// Kernels may read it (not `CL_MEM_WRITE_ONLY`).
    pub device_read: bool,
    /// Kernels may write it (not `CL_MEM_READ_ONLY`).
    pub device_write: bool,
    /// `CL_MEM_SVM_FINE_GRAIN_BUFFER`.
    pub fine_grain: bool,
    /// `CL_MEM_SVM_ATOMICS`.
    pub atomics: bool,
}

impl Allocation {
    /// Whether `addr` lies inside the allocation.
    pub fn contains(&self, addr: usize) -> bool {
        addr >= self.base && addr - self.base < self.size.max(1)
    }

    /// Whether `len` bytes starting at `addr` lie inside the allocation.
    pub fn contains_range(&self, addr: usize, len: usize) -> bool {
        self.contains(addr)
            && (addr - self.base)
                .checked_add(len)
                .is_some_and(|end| end <= self.size)
    }

    fn layout(&self) -> Option<Layout> {
        Layout::from_size_align(self.size.max(1), self.align).ok()
    }
}

static MAP: LazyLock<RwLock<BTreeMap<usize, Allocation>>> =
    LazyLock::new(|| RwLock::new(BTreeMap::new()));

/// Level-Zero's atomic access attributes (`zeMemSetAtomicAccessAttributeExp`), opaque
/// here, by page range: start -> (end, attributes), ranges disjoint. They are promises
/// about the application's own use of the memory (USM or plain system memory): host and
/// kernels share it and every atomic works from both, so nothing else changes with them.
static ATOMIC_ATTRS: LazyLock<RwLock<BTreeMap<usize, (usize, u32)>>> =
    LazyLock::new(|| RwLock::new(BTreeMap::new()));
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Allocate `size` zeroed bytes aligned to `align` (0: the device's default alignment;
/// otherwise a power of two; never less than the default).
pub fn alloc(kind: UsmKind, size: usize, align: usize, owner: usize) -> Result<Allocation> {
    alloc_with(kind, size, align, owner, None, 0, 0)
}

/// [`alloc`] on pages of its own, which another process can map ([`crate::mem::ipc`]),
/// when `align` is at most a page (else as [`alloc`]): Level-Zero's allocations.
pub fn alloc_shareable(
    kind: UsmKind,
    size: usize,
    align: usize,
    owner: usize,
) -> Result<Allocation> {
    if size == 0 || align > crate::mem::pages::PAGE_BYTES {
        return alloc(kind, size, align, owner);
    }
    if align != 0 && !align.is_power_of_two() {
        return Err(Error::InvalidValue("alignment is not a power of two"));
    }
    let ptr = crate::mem::pages::alloc_pages(size);
    if ptr.is_null() {
        return Err(Error::MemObjectAllocationFailure { size });
    }
    Ok(record(ptr as usize, size, kind, owner))
}

/// Record `size` bytes at `base`, on pages of their own that the caller mapped and
/// counted with `mem::pages::reserve_pages` (an allocation another process shared), as an
/// allocation of `owner`; [`free`] unmaps them.
pub fn record(base: usize, size: usize, kind: UsmKind, owner: usize) -> Allocation {
    let a = Allocation {
        base,
        size,
        align: crate::mem::pages::PAGE_BYTES,
        kind,
        owner,
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        svm: None,
        device: 0,
        flags: 0,
        pages: true,
    };
    MAP.write().insert(a.base, a);
    a
}

/// [`alloc`] recording the device it is for and the application's allocation flags
/// (OpenCL's `cl*MemAllocINTEL`, which reports both back).
pub fn alloc_on(
    kind: UsmKind,
    size: usize,
    align: usize,
    owner: usize,
    device: usize,
    flags: u64,
) -> Result<Allocation> {
    alloc_with(kind, size, align, owner, None, device, flags)
}

/// [`alloc`] of an OpenCL SVM allocation: `Shared`, with its flags recorded.
pub fn alloc_svm(size: usize, align: usize, owner: usize, flags: SvmFlags) -> Result<Allocation> {
    alloc_with(UsmKind::Shared, size, align, owner, Some(flags), 0, 0)
}

fn alloc_with(
    kind: UsmKind,
    size: usize,
    align: usize,
    owner: usize,
    svm: Option<SvmFlags>,
    device: usize,
    flags: u64,
) -> Result<Allocation> {
    if size == 0 {
        return Err(Error::InvalidValue("allocation size is 0"));
    }
    if align != 0 && !align.is_power_of_two() {
        return Err(Error::InvalidValue("alignment is not a power of two"));
    }
    let align = align.max(MEM_BASE_ADDR_ALIGN);
    let layout = Layout::from_size_align(size, align)
        .map_err(|_| Error::MemObjectAllocationFailure { size })?;
    // Large ones are untouched pages until used (`mem/pages.rs`).
    let ptr = crate::mem::pages::alloc_zeroed(layout);
    if ptr.is_null() {
        return Err(Error::MemObjectAllocationFailure { size });
    }
    let a = Allocation {
        base: ptr as usize,
        size,
        align,
        kind,
        owner,
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        svm,
        device,
        flags,
        pages: false,
    };
    MAP.write().insert(a.base, a);
    Ok(a)
}

/// Free the allocation whose base is `base`; returns what it was. The application
/// guarantees no command still uses it.
pub fn free(base: usize) -> Result<Allocation> {
    free_if(base, |_| true)
}

/// [`free`] only if the allocation at `base` satisfies `pred` (checked under the lock, so a
/// concurrent free and re-allocation at the same address cannot be freed by mistake):
/// `clSVMFree` frees only its own context's SVM allocations.
pub fn free_if(base: usize, pred: impl FnOnce(&Allocation) -> bool) -> Result<Allocation> {
    let a = {
        let mut map = MAP.write();
        match map.get(&base) {
            Some(a) if pred(a) => map.remove(&base),
            _ => None,
        }
    }
    .ok_or(Error::InvalidValue("not the base of a live allocation"))?;
    set_ranges(
        &mut ATOMIC_ATTRS.write(),
        a.base,
        a.base + a.size.max(1),
        None,
    );
    if a.pages {
        crate::mem::ipc::forget(a.base);
        // SAFETY: `a` was in the map with `pages`, so `base` starts a mapping of `size`
        // bytes made by `pages::alloc_pages` or counted by `pages::reserve_pages`, not
        // freed yet: we just removed the only record of it under the write lock.
        unsafe { crate::mem::pages::free_pages(a.base as *mut u8, a.size) };
    } else if let Some(layout) = a.layout() {
        // SAFETY: `a` was in the map, so `base` came from `pages::alloc_zeroed` with this
        // layout (same size and alignment) and has not been freed: we just removed the only
        // record of it under the write lock.
        unsafe { crate::mem::pages::free(a.base as *mut u8, layout) };
    }
    Ok(a)
}

/// Free every allocation of `owner` (a Level-Zero context being destroyed may free its
/// allocations); returns how many there were. The application guarantees no command
/// still uses them.
pub fn free_owner(owner: usize) -> usize {
    let bases: Vec<usize> = MAP
        .read()
        .values()
        .filter(|a| a.owner == owner)
        .map(|a| a.base)
        .collect();
    // `free` re-checks each under the write lock: one freed concurrently by the
    // application is simply skipped.
    bases.into_iter().filter(|&b| free(b).is_ok()).count()
}

/// The allocation containing `addr`, if any.
pub fn find(addr: usize) -> Option<Allocation> {
    let map = MAP.read();
    map.range(..=addr)
        .next_back()
        .map(|(_, a)| *a)
        .filter(|a| a.contains(addr))
}

/// Give the pages holding `len` bytes at `addr` the atomic access attributes `attr` (the
/// page is the granularity the specification lets a driver expand a range to); 0 is the
/// default and clears them.
pub fn set_atomic_attr(addr: usize, len: usize, attr: u32) {
    let page = crate::mem::pages::PAGE_BYTES;
    let start = addr & !(page - 1);
    let end = addr.saturating_add(len.max(1)).next_multiple_of(page);
    let value = (attr != 0).then_some(attr);
    set_ranges(&mut ATOMIC_ATTRS.write(), start, end, value);
}

/// The atomic access attributes of the page holding `addr` (0: none set).
pub fn atomic_attr(addr: usize) -> u32 {
    let map = ATOMIC_ATTRS.read();
    map.range(..=addr)
        .next_back()
        .filter(|(_, &(end, _))| addr < end)
        .map_or(0, |(_, &(_, attr))| attr)
}

/// Make `[start, end)` of a map of disjoint ranges hold `value` (or nothing), keeping the
/// parts of earlier ranges outside it.
fn set_ranges(
    map: &mut BTreeMap<usize, (usize, u32)>,
    start: usize,
    end: usize,
    value: Option<u32>,
) {
    // The ranges that overlap [start, end): the one starting before it (if it reaches
    // in) and those starting inside it.
    let first = map
        .range(..start)
        .next_back()
        .filter(|(_, &(e, _))| e > start)
        .map(|(&s, _)| s);
    let inside: Vec<usize> = map.range(start..end).map(|(&s, _)| s).collect();
    for s in first.into_iter().chain(inside) {
        if let Some((e, v)) = map.remove(&s) {
            if s < start {
                map.insert(s, (start, v));
            }
            if e > end {
                map.insert(end, (e, v));
            }
        }
    }
    if let Some(v) = value {
        map.insert(start, (end, v));
    }
}

/// Check that `len` bytes at `addr` are usable by a command: either they lie inside one
/// allocation, or `addr` is not in any allocation (plain host memory, which a CPU device
/// reaches just as well; the application answers for it).
pub fn check_range(addr: usize, len: usize) -> Result<()> {
    match find(addr) {
        Some(a) if !a.contains_range(addr, len) => Err(Error::InvalidValue(
            "range extends past the end of its allocation",
        )),
        _ => Ok(()),
    }
}

/// Number of live allocations (for tests and leak reports).
pub fn live_count() -> usize {
    MAP.read().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_attributes_by_range() {
        let mut m = BTreeMap::new();
        set_ranges(&mut m, 0, 100, Some(1));
        set_ranges(&mut m, 40, 60, Some(2));
        let v: Vec<_> = m.iter().map(|(&s, &(e, a))| (s, e, a)).collect();
        assert_eq!(v, [(0, 40, 1), (40, 60, 2), (60, 100, 1)]);
        set_ranges(&mut m, 20, 80, None);
        let v: Vec<_> = m.iter().map(|(&s, &(e, a))| (s, e, a)).collect();
        assert_eq!(v, [(0, 20, 1), (80, 100, 1)]);
        set_ranges(&mut m, 0, 200, Some(3));
        let v: Vec<_> = m.iter().map(|(&s, &(e, a))| (s, e, a)).collect();
        assert_eq!(v, [(0, 200, 3)]);

        // Through the map: page granularity, and a free forgets them.
        let a = alloc(UsmKind::Shared, 3 * 4096, 4096, 0).unwrap();
        set_atomic_attr(a.base + 4096 + 5, 10, 0x8);
        assert_eq!(atomic_attr(a.base), 0);
        assert_eq!(atomic_attr(a.base + 4096), 0x8);
        assert_eq!(atomic_attr(a.base + 2 * 4096 - 1), 0x8);
        assert_eq!(atomic_attr(a.base + 2 * 4096), 0);
        free(a.base).unwrap();
        assert_eq!(atomic_attr(a.base + 4096), 0);
    }

    #[test]
    fn lookups_resolve_interior_pointers() {
        let a = alloc(UsmKind::Shared, 1000, 0, 7).unwrap();
        assert_eq!(a.base % MEM_BASE_ADDR_ALIGN, 0);
        assert_eq!(find(a.base), Some(a));
        assert_eq!(find(a.base + 999), Some(a));
        assert_eq!(find(a.base + 1000), None);
        assert!(check_range(a.base + 10, 990).is_ok());
        assert!(check_range(a.base + 10, 991).is_err());
        assert!(check_range(a.base + 10, usize::MAX).is_err());
        assert_eq!(
            free(a.base + 1).err(),
            Some(Error::InvalidValue("not the base of a live allocation"))
        );
        assert_eq!(free(a.base), Ok(a));
        assert!(find(a.base).is_none());
        assert!(free(a.base).is_err());
    }

    #[test]
    fn alignment_and_size_are_checked() {
        assert!(alloc(UsmKind::Host, 0, 0, 0).is_err());
        assert!(alloc(UsmKind::Host, 16, 3, 0).is_err());
        let a = alloc(UsmKind::Device, 16, 4096, 0).unwrap();
        assert_eq!(a.base % 4096, 0);
        assert_eq!(a.align, 4096);
        let b = alloc(UsmKind::Device, 16, 0, 0).unwrap();
        assert_ne!(a.id, b.id);
        free(a.base).unwrap();
        free(b.base).unwrap();
    }

    #[test]
    fn svm_allocations_carry_their_flags() {
        let flags = SvmFlags {
            device_read: true,
            device_write: true,
            fine_grain: true,
            atomics: true,
        };
        let a = alloc_svm(64, 0, 0x5EED_0000, flags).unwrap();
        assert_eq!((a.kind, a.svm), (UsmKind::Shared, Some(flags)));
        assert_eq!(find(a.base + 63).and_then(|f| f.svm), Some(flags));
        let b = alloc(UsmKind::Shared, 8, 0, 0).unwrap();
        assert_eq!(b.svm, None);
        free(a.base).unwrap();
        free(b.base).unwrap();
    }

    #[test]
    fn owners_free_their_allocations() {
        let owner = 0xABCD_0000;
        let a = alloc(UsmKind::Host, 8, 0, owner).unwrap();
        let b = alloc(UsmKind::Shared, 8, 0, owner).unwrap();
        let c = alloc(UsmKind::Shared, 8, 0, owner + 1).unwrap();
        assert_eq!(free_owner(owner), 2);
        assert!(find(a.base).is_none() && find(b.base).is_none());
        assert_eq!(find(c.base), Some(c));
        assert_eq!(free_owner(owner), 0);
        free(c.base).unwrap();
    }
}
