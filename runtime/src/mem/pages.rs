//! Zeroed allocations that cost nothing until they are touched.
//!
//! Buffers, SVM and USM allocations must read as zeros (`CL_MEM_COPY_HOST_PTR` aside) but
//! are often far larger than what a program touches soon. `std::alloc::alloc_zeroed` with
//! Ferrite's 128-byte alignment is `posix_memalign` plus a `memset` of every byte: a 1 GiB
//! `clCreateBuffer` took 1 to 4 s and committed the whole GiB (PoCL and Intel's runtime:
//! 0.1 ms). So an allocation of at least [`LAZY_BYTES`] whose alignment a page satisfies
//! is an anonymous private `mmap`: the kernel gives zero pages on first touch, and untouched
//! pages are never committed. Smaller ones stay with the global allocator (a page each
//! would waste memory). [`free`] undoes [`alloc_zeroed`] by the same rule, so the two
//! need only the layout.
//!
//! Mapped allocations are counted: together they may not exceed what the process can get
//! ([`crate::device::available_memory`], the device's global memory size). Past it
//! [`alloc_zeroed`] returns null (`CL_MEM_OBJECT_ALLOCATION_FAILURE`), where an
//! application that believed a larger size would have been killed by the OOM killer
//! while touching its pages.

use std::alloc::Layout;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes of mapped allocations alive now.
static MAPPED: AtomicU64 = AtomicU64::new(0);

/// Count `size` more mapped bytes if they fit the process's memory.
fn reserve(size: usize) -> bool {
    let limit = crate::device::available_memory();
    let size = size as u64;
    MAPPED
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
            used.checked_add(size).filter(|&t| t <= limit)
        })
        .is_ok()
}

/// Bytes left unused after each allocation the global allocator serves. Its blocks of one
/// size class lie back to back (mimalloc, the driver library's allocator), so without a gap
/// a kernel that runs a few bytes past one buffer reads or writes the next one: silently
/// wrong results, and an overrun checked mode (`FERRITE_CHECK=bounds`) cannot tell from
/// an access to that other argument. One `float16` fits in the gap.
const GAP: usize = 64;

/// The layout the global allocator serves for a small allocation of `layout`.
fn with_gap(layout: Layout) -> Layout {
    // A size below `LAZY_BYTES` plus 64 cannot overflow `isize`.
    Layout::from_size_align(layout.size() + GAP, layout.align()).unwrap_or(layout)
}

/// Allocations of at least this many bytes are mapped pages.
pub const LAZY_BYTES: usize = 1 << 20;
/// Mapped allocations of at least this many bytes ask for transparent huge pages
/// (`MADV_HUGEPAGE`; the kernel's default on Debian is to use them only where asked):
/// a kernel streaming through a large buffer then takes one TLB miss per 2 MiB instead
/// of one per 4 KiB.
const HUGE_BYTES: usize = 2 << 20;
/// The alignment every `mmap` result has (the smallest page size Linux uses).
const PAGE: usize = 4096;

fn mapped(layout: Layout) -> bool {
    layout.size() >= LAZY_BYTES && layout.align() <= PAGE
}

/// `layout.size()` zeroed bytes aligned to `layout.align()`, or null when the memory is not
/// there (or `layout` is empty). Free it with [`free`] and the same layout.
pub fn alloc_zeroed(layout: Layout) -> *mut u8 {
    if layout.size() == 0 {
        return std::ptr::null_mut();
    }
    if mapped(layout) {
        if !reserve(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: a new anonymous private mapping (no address hint, no file): it cannot
        // alias any memory of the process.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                layout.size(),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            MAPPED.fetch_sub(layout.size() as u64, Ordering::Relaxed);
            return std::ptr::null_mut();
        }
        if layout.size() >= HUGE_BYTES {
            // SAFETY: advice on the mapping just made, which nothing else uses yet.
            unsafe { libc::madvise(p, layout.size(), libc::MADV_HUGEPAGE) };
        }
        p.cast()
    } else {
        // SAFETY: the layout has a non-zero size (checked above).
        unsafe { std::alloc::alloc_zeroed(with_gap(layout)) }
    }
}

/// Free what [`alloc_zeroed`] returned.
///
/// # Safety
/// `ptr` came from [`alloc_zeroed`] with this `layout`, is not null, and is not used or
/// freed again.
pub unsafe fn free(ptr: *mut u8, layout: Layout) {
    if mapped(layout) {
        // SAFETY: per the caller, `ptr` is the start of a mapping of `layout.size()` bytes
        // made by `alloc_zeroed`, unmapped once.
        unsafe { libc::munmap(ptr.cast(), layout.size()) };
        MAPPED.fetch_sub(layout.size() as u64, Ordering::Relaxed);
    } else {
        // SAFETY: per the caller, `ptr` came from `std::alloc::alloc_zeroed` with
        // `with_gap(layout)`.
        unsafe { std::alloc::dealloc(ptr, with_gap(layout)) };
    }
}

/// `size` zeroed bytes on pages of their own (the size rounded up to whole pages), page
/// aligned: memory that can later be remapped onto a shared file ([`crate::mem::ipc`]).
/// Null when the memory is not there. Free it with [`free_pages`] and the same size.
pub fn alloc_pages(size: usize) -> *mut u8 {
    let Some(len) = size.checked_next_multiple_of(PAGE).filter(|&l| l > 0) else {
        return std::ptr::null_mut();
    };
    if !reserve(len) {
        return std::ptr::null_mut();
    }
    // SAFETY: a new anonymous private mapping (no address hint, no file): it cannot alias
    // any memory of the process.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        MAPPED.fetch_sub(len as u64, Ordering::Relaxed);
        return std::ptr::null_mut();
    }
    if len >= HUGE_BYTES {
        // SAFETY: advice on the mapping just made, which nothing else uses yet.
        unsafe { libc::madvise(p, len, libc::MADV_HUGEPAGE) };
    }
    p.cast()
}

/// Count `size` bytes (rounded up to pages) mapped elsewhere ([`crate::mem::ipc`]'s
/// imports) as [`alloc_pages`] does; false if they do not fit the process's memory.
pub fn reserve_pages(size: usize) -> bool {
    size.checked_next_multiple_of(PAGE).is_some_and(reserve)
}

/// Undo a [`reserve_pages`] whose mapping could not be made.
pub fn unreserve_pages(size: usize) {
    MAPPED.fetch_sub(size.next_multiple_of(PAGE) as u64, Ordering::Relaxed);
}

/// Unmap what [`alloc_pages`] returned (or a mapping counted by [`reserve_pages`]).
///
/// # Safety
/// `ptr` is the start of such a mapping of `size` bytes (as asked), not used or freed
/// again.
pub unsafe fn free_pages(ptr: *mut u8, size: usize) {
    let len = size.next_multiple_of(PAGE);
    // SAFETY: per the caller, the whole mapping, unmapped once.
    unsafe { libc::munmap(ptr.cast(), len) };
    MAPPED.fetch_sub(len as u64, Ordering::Relaxed);
}

/// The page size every mapping here is made of.
pub const PAGE_BYTES: usize = PAGE;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_aligned_and_writable_both_ways() {
        for (size, align) in [(1, 128), (4096, 128), (LAZY_BYTES, 128), (3 << 20, 4096)] {
            let layout = Layout::from_size_align(size, align).unwrap();
            let p = alloc_zeroed(layout);
            assert!(!p.is_null());
            assert_eq!(p as usize % align, 0);
            // SAFETY: `p` is `size` bytes we own until the free below.
            let bytes = unsafe { std::slice::from_raw_parts_mut(p, size) };
            assert!(bytes.iter().all(|&b| b == 0));
            bytes[0] = 1;
            bytes[size - 1] = 2;
            // SAFETY: allocated above with `layout`, freed once.
            unsafe { free(p, layout) };
        }
        // A large alignment goes to the global allocator.
        let layout = Layout::from_size_align(LAZY_BYTES, 1 << 16).unwrap();
        let p = alloc_zeroed(layout);
        assert_eq!(p as usize % (1 << 16), 0);
        // SAFETY: as above.
        unsafe { free(p, layout) };
    }

    #[test]
    fn more_than_the_process_can_get_is_refused() {
        let too_big = crate::device::available_memory() as usize + PAGE;
        let layout = Layout::from_size_align(too_big, 128).unwrap();
        assert!(alloc_zeroed(layout).is_null());
        // The refusal reserved nothing.
        let layout = Layout::from_size_align(LAZY_BYTES, 128).unwrap();
        let p = alloc_zeroed(layout);
        assert!(!p.is_null());
        // SAFETY: allocated above with `layout`, freed once.
        unsafe { free(p, layout) };
    }
}
