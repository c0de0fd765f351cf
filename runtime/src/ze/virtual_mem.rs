//! Level-Zero virtual and physical memory on `mmap`: a reservation is an inaccessible
//! anonymous mapping; a physical allocation is a `memfd`; mapping part of one into a
//! reservation maps the file there (`MAP_FIXED | MAP_SHARED`), so two virtual ranges
//! mapped to the same physical pages see the same bytes, as on a GPU. Unmapping puts the
//! inaccessible anonymous pages back, so the range stays reserved until it is freed.
//!
//! Every range must be page-aligned ([`page_size`]). Access attributes are kept per page
//! for `zeVirtualMemGetAccessAttribute`; a kernel touching a page without access faults
//! like any bad address (`fault.rs` contains it).

use crate::error::{Error, Result};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Arc;

/// Access to mapped pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    None,
    ReadWrite,
    ReadOnly,
}

impl Access {
    fn prot(self) -> libc::c_int {
        match self {
            Access::None => libc::PROT_NONE,
            Access::ReadWrite => libc::PROT_READ | libc::PROT_WRITE,
            Access::ReadOnly => libc::PROT_READ,
        }
    }
}

/// The granularity of every range: the host's page size.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(p).ok().filter(|&p| p > 0).unwrap_or(4096)
}

/// Physical memory: a `memfd` of `size` bytes, zero-filled.
pub struct PhysicalMem {
    fd: OwnedFd,
    pub size: usize,
}

impl PhysicalMem {
    pub fn new(size: usize) -> Result<Arc<PhysicalMem>> {
        if size == 0 || !size.is_multiple_of(page_size()) {
            return Err(Error::InvalidValue(
                "physical memory size is not a page multiple",
            ));
        }
        // SAFETY: a NUL-terminated name; no other precondition.
        let fd = unsafe { libc::memfd_create(c"ferrite-ze-physical".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(Error::OutOfHostMemory);
        }
        // SAFETY: `fd` was just returned by memfd_create and is owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let len = libc::off_t::try_from(size).map_err(|_| Error::OutOfHostMemory)?;
        // SAFETY: a valid descriptor.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), len) } != 0 {
            return Err(Error::OutOfHostMemory);
        }
        Ok(Arc::new(PhysicalMem { fd, size }))
    }
}

/// One reservation: its size, and the access of each mapped page (absent: not mapped).
struct Reservation {
    size: usize,
    pages: BTreeMap<usize, (Access, Arc<PhysicalMem>)>,
}

/// Every live reservation, by start address.
static RESERVED: Mutex<BTreeMap<usize, Reservation>> = Mutex::new(BTreeMap::new());

fn aligned(x: usize) -> bool {
    x.is_multiple_of(page_size())
}

/// `zeVirtualMemReserve`: `size` bytes of address space, at `hint` if it is free.
pub fn reserve(hint: usize, size: usize) -> Result<usize> {
    if size == 0 || !aligned(size) || !aligned(hint) {
        return Err(Error::InvalidValue("unaligned reservation"));
    }
    // SAFETY: an anonymous, inaccessible mapping; the kernel picks the address (the hint
    // is only a hint without MAP_FIXED), so no existing mapping is replaced.
    let p = unsafe {
        libc::mmap(
            hint as *mut libc::c_void,
            size,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(Error::OutOfHostMemory);
    }
    let start = p as usize;
    RESERVED.lock().insert(
        start,
        Reservation {
            size,
            pages: BTreeMap::new(),
        },
    );
    Ok(start)
}

/// `zeVirtualMemFree`: release a whole reservation (its mappings go with it).
pub fn free(ptr: usize, size: usize) -> Result<()> {
    let mut all = RESERVED.lock();
    match all.get(&ptr) {
        Some(r) if r.size == size => {}
        _ => return Err(Error::InvalidValue("not a reservation of this size")),
    }
    all.remove(&ptr);
    // SAFETY: exactly a reservation this module made, no longer recorded.
    unsafe { libc::munmap(ptr as *mut libc::c_void, size) };
    Ok(())
}

/// The reservation holding `[ptr, ptr + size)`, checked page-aligned and non-empty.
fn holding(
    all: &mut BTreeMap<usize, Reservation>,
    ptr: usize,
    size: usize,
) -> Result<&mut Reservation> {
    if size == 0 || !aligned(ptr) || !aligned(size) {
        return Err(Error::InvalidValue("unaligned range"));
    }
    let end = ptr
        .checked_add(size)
        .ok_or(Error::InvalidValue("range overflows"))?;
    let (&start, r) = all
        .range_mut(..=ptr)
        .next_back()
        .ok_or(Error::InvalidValue("not in a reservation"))?;
    if end > start + r.size {
        return Err(Error::InvalidValue("not in a reservation"));
    }
    Ok(r)
}

fn pages(ptr: usize, size: usize) -> impl Iterator<Item = usize> {
    (ptr..ptr + size).step_by(page_size())
}

/// `zeVirtualMemMap`: `size` bytes of `phys` from `offset` at `ptr`, with `access`.
pub fn map(
    ptr: usize,
    size: usize,
    phys: &Arc<PhysicalMem>,
    offset: usize,
    access: Access,
) -> Result<()> {
    let mut all = RESERVED.lock();
    let r = holding(&mut all, ptr, size)?;
    if !aligned(offset) || offset.checked_add(size).is_none_or(|e| e > phys.size) {
        return Err(Error::InvalidValue("outside the physical memory"));
    }
    if pages(ptr, size).any(|p| r.pages.contains_key(&p)) {
        return Err(Error::InvalidValue("already mapped"));
    }
    let off = libc::off_t::try_from(offset).map_err(|_| Error::InvalidValue("offset"))?;
    // SAFETY: [ptr, ptr + size) lies in a reservation of ours with no mapping in it
    // (checked above under the lock), so MAP_FIXED replaces only our inaccessible pages;
    // the descriptor is valid and covers offset + size bytes.
    let p = unsafe {
        libc::mmap(
            ptr as *mut libc::c_void,
            size,
            access.prot(),
            libc::MAP_SHARED | libc::MAP_FIXED,
            phys.fd.as_raw_fd(),
            off,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(Error::OutOfHostMemory);
    }
    for page in pages(ptr, size) {
        r.pages.insert(page, (access, phys.clone()));
    }
    Ok(())
}

/// `zeVirtualMemUnmap`: the range becomes reserved, inaccessible address space again.
pub fn unmap(ptr: usize, size: usize) -> Result<()> {
    let mut all = RESERVED.lock();
    let r = holding(&mut all, ptr, size)?;
    // SAFETY: the range lies in a reservation of ours; replacing it with inaccessible
    // anonymous pages touches nothing else.
    let p = unsafe {
        libc::mmap(
            ptr as *mut libc::c_void,
            size,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(Error::OutOfHostMemory);
    }
    for page in pages(ptr, size) {
        r.pages.remove(&page);
    }
    Ok(())
}

/// `zeVirtualMemSetAccessAttribute`: every page of the range must be mapped.
pub fn set_access(ptr: usize, size: usize, access: Access) -> Result<()> {
    let mut all = RESERVED.lock();
    let r = holding(&mut all, ptr, size)?;
    if !pages(ptr, size).all(|p| r.pages.contains_key(&p)) {
        return Err(Error::InvalidValue("not mapped"));
    }
    // SAFETY: the range is mapped memory of ours (checked above).
    if unsafe { libc::mprotect(ptr as *mut libc::c_void, size, access.prot()) } != 0 {
        return Err(Error::OutOfHostMemory);
    }
    for page in pages(ptr, size) {
        if let Some(e) = r.pages.get_mut(&page) {
            e.0 = access;
        }
    }
    Ok(())
}

/// `zeVirtualMemGetAccessAttribute`: the access at `ptr` and how many bytes from `ptr`
/// (at most `size`) share it; unmapped pages have none.
pub fn access(ptr: usize, size: usize) -> Result<(Access, usize)> {
    let mut all = RESERVED.lock();
    let r = holding(&mut all, ptr, size)?;
    let of = |p: usize| r.pages.get(&p).map_or(Access::None, |e| e.0);
    let first = of(ptr);
    let same = pages(ptr, size).take_while(|&p| of(p) == first).count();
    Ok((first, same * page_size()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_views_of_one_physical_page() {
        let page = page_size();
        let phys = PhysicalMem::new(2 * page).unwrap();
        let a = reserve(0, 4 * page).unwrap();
        map(a, page, &phys, page, Access::ReadWrite).unwrap();
        map(a + 2 * page, page, &phys, page, Access::ReadWrite).unwrap();
        // SAFETY: both pages are mapped read-write to the same physical page.
        unsafe {
            (a as *mut u32).write(0xfeed);
            assert_eq!(((a + 2 * page) as *const u32).read(), 0xfeed);
        }
        assert_eq!(access(a, 4 * page).unwrap(), (Access::ReadWrite, page));
        assert_eq!(access(a + page, 2 * page).unwrap(), (Access::None, page));
        set_access(a, page, Access::ReadOnly).unwrap();
        assert_eq!(access(a, page).unwrap(), (Access::ReadOnly, page));
        assert!(
            map(a, page, &phys, 0, Access::ReadWrite).is_err(),
            "mapped twice"
        );
        assert!(map(a + page, page, &phys, 2 * page, Access::ReadWrite).is_err());
        assert!(
            set_access(a + page, page, Access::ReadWrite).is_err(),
            "not mapped"
        );
        assert!(
            map(a + 1, page, &phys, 0, Access::ReadWrite).is_err(),
            "unaligned"
        );
        unmap(a, page).unwrap();
        assert_eq!(access(a, page).unwrap(), (Access::None, page));
        assert!(free(a, page).is_err(), "free takes the whole reservation");
        free(a, 4 * page).unwrap();
        assert!(access(a, page).is_err());
    }
}
