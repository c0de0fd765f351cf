//! OpenCL shared virtual memory. Device memory is host memory, so every SVM kind is
//! native:
//! - coarse-grain and fine-grain buffers are aligned host allocations recorded in the one
//!   allocation map shared with Level-Zero ([`crate::usm`]), owned by their context;
//! - fine-grain system SVM is any host pointer: kernels dereference the application's
//!   `malloc`/stack memory directly;
//! - SVM atomics are the CPU's own: global atomics in kernels are always SeqCst
//!   instructions (`ferrite_compiler::memory_model`), host threads use theirs, and both
//!   act on the same cache-coherent memory.
//!
//! Maps, unmaps and migrations therefore move nothing; copies and fills are `memmove` and
//! pattern stores on the host, run by the command queue. This file is where those touch raw
//! memory.

use crate::context::Context;
use crate::device::MEM_BASE_ADDR_ALIGN;
use crate::error::{Error, Result};
use crate::mem::Mem;
use crate::usm::{self, Allocation, SvmFlags};

/// Largest alignment `clSVMAlloc` accepts: the size of the largest OpenCL type
/// (`long16`/`double16`), which is also the default.
pub const MAX_SVM_ALIGN: usize = MEM_BASE_ADDR_ALIGN;

/// The owner recorded in the allocation map for `context`'s SVM allocations.
pub fn owner(context: &Context) -> usize {
    context as *const Context as usize
}

/// `clSVMAlloc`: `size` zeroed bytes aligned to `align` (0: [`MAX_SVM_ALIGN`]); the base
/// address.
pub fn alloc(context: &Context, flags: SvmFlags, size: usize, align: usize) -> Result<usize> {
    let max = context
        .devices
        .iter()
        .map(|d| d.max_mem_alloc_size)
        .max()
        .unwrap_or(0);
    if size == 0 || size as u64 > max {
        return Err(Error::InvalidValue(
            "SVM size is 0 or larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE",
        ));
    }
    if align != 0 && (!align.is_power_of_two() || align > MAX_SVM_ALIGN) {
        return Err(Error::InvalidValue(
            "SVM alignment is not a power of two up to the largest type's size",
        ));
    }
    Ok(usm::alloc_svm(size, align, owner(context), flags)?.base)
}

/// `clSVMFree`: frees `ptr` if it is the base of one of `context`'s SVM allocations;
/// anything else (NULL, a host pointer, another context's or a Level-Zero allocation, an
/// already freed pointer) is left alone. Returns whether something was freed.
pub fn free(context: &Context, ptr: usize) -> bool {
    let me = owner(context);
    usm::free_if(ptr, |a| a.svm.is_some() && a.owner == me).is_ok()
}

/// The SVM allocation containing `addr`, if any (of any context).
pub fn find(addr: usize) -> Option<Allocation> {
    usm::find(addr).filter(|a| a.svm.is_some())
}

/// `clEnqueueSVMMigrateMem`: `[addr, addr + len)` must lie inside one SVM allocation
/// (`len` 0: the whole allocation `addr` is in).
pub fn check_migrate_range(addr: usize, len: usize) -> Result<()> {
    let a = find(addr).ok_or(Error::InvalidValue(
        "pointer is not inside an SVM allocation",
    ))?;
    if len != 0 && !a.contains_range(addr, len) {
        return Err(Error::InvalidValue(
            "range extends past the end of its SVM allocation",
        ));
    }
    Ok(())
}

/// `CL_MEM_USES_SVM_POINTER`: the buffer (or its parent) was created with
/// `CL_MEM_USE_HOST_PTR` on a pointer inside an SVM allocation.
pub fn uses_svm_pointer(mem: &Mem) -> bool {
    mem.flags.use_host_ptr && mem.host_ptr != 0 && find(mem.host_ptr).is_some()
}

/// Whether `[a, a + len)` and `[b, b + len)` share a byte.
pub fn overlaps(a: usize, b: usize, len: usize) -> bool {
    len != 0 && a < b.saturating_add(len) && b < a.saturating_add(len)
}

/// Copy `len` bytes from `src` to `dst` (`clEnqueueSVMMemcpy`).
///
/// # Safety
/// Both ranges are valid for `len` bytes (reads at `src`, writes at `dst`) while the copy
/// runs: the application's promise for SVM and host pointers.
pub unsafe fn copy(dst: usize, src: usize, len: usize) {
    // SAFETY: per the caller; `copy_bytes` tolerates overlap, which the front end rejects
    // anyway.
    unsafe { super::copy_bytes(src as *const u8, dst as *mut u8, len) };
}

/// Repeat `pattern` over `len` bytes at `dst` (`clEnqueueSVMMemFill`); `len` is a multiple
/// of the pattern's length.
///
/// # Safety
/// `[dst, dst + len)` is valid for writes while the fill runs (the application's promise).
pub unsafe fn fill(dst: usize, pattern: &[u8], len: usize) -> Result<()> {
    if pattern.is_empty() || !len.is_multiple_of(pattern.len()) {
        return Err(Error::InvalidValue(
            "fill size is not a multiple of the pattern",
        ));
    }
    // SAFETY: per the caller.
    unsafe { super::fill_pattern_at(dst as *mut u8, len, pattern) };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::Platform;
    use std::sync::Arc;

    fn ctx() -> Arc<Context> {
        Context::new(vec![Platform::get().device.clone()], Vec::new(), None)
    }

    const RW: SvmFlags = SvmFlags {
        device_read: true,
        device_write: true,
        fine_grain: false,
        atomics: false,
    };

    #[test]
    fn alloc_checks_size_and_alignment() {
        let c = ctx();
        assert!(alloc(&c, RW, 0, 0).is_err());
        assert!(alloc(&c, RW, usize::MAX, 0).is_err());
        assert!(alloc(&c, RW, 16, 3).is_err());
        assert!(alloc(&c, RW, 16, 256).is_err());
        for align in [0, 1, 4, 128] {
            let p = alloc(&c, RW, 100, align).unwrap();
            assert_eq!(p % MAX_SVM_ALIGN, 0);
            assert_eq!(find(p + 99).map(|a| a.base), Some(p));
            assert!(check_migrate_range(p + 10, 90).is_ok());
            assert!(check_migrate_range(p + 10, 91).is_err());
            assert!(check_migrate_range(p + 50, 0).is_ok());
            assert!(free(&c, p));
            assert!(!free(&c, p));
            assert!(find(p).is_none());
        }
    }

    #[test]
    fn free_leaves_foreign_pointers_alone() {
        let (a, b) = (ctx(), ctx());
        let p = alloc(&a, RW, 8, 0).unwrap();
        assert!(!free(&b, p));
        assert!(!free(&a, p + 1));
        assert!(!free(&a, 0));
        let l0 = usm::alloc(usm::UsmKind::Shared, 8, 0, owner(&a)).unwrap();
        assert!(!free(&a, l0.base));
        usm::free(l0.base).unwrap();
        assert!(free(&a, p));
    }

    #[test]
    fn copy_fill_and_overlap() {
        let mut v = vec![0u8; 16];
        let base = v.as_mut_ptr() as usize;
        // SAFETY: v has 16 writable bytes.
        unsafe { fill(base, &[1, 2], 8) }.unwrap();
        // SAFETY: as above.
        assert!(unsafe { fill(base, &[1, 2, 3, 4], 6) }.is_err());
        // SAFETY: both 8-byte ranges are inside v.
        unsafe { copy(base + 8, base, 8) };
        assert_eq!(v, [1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2]);
        assert!(overlaps(0, 3, 4));
        assert!(!overlaps(0, 4, 4));
        assert!(!overlaps(5, 5, 0));
    }
}
