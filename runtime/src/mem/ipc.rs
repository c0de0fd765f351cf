//! Memory shared between processes (Level-Zero's `zeMemGetIpcHandle` /
//! `zeMemOpenIpcHandle` / `zeMemCloseIpcHandle`).
//!
//! Device memory is host memory, so sharing it is sharing pages: a Level-Zero allocation
//! lies on pages of its own ([`crate::usm::alloc_shareable`]); the first time a handle
//! is asked for, its contents move to a `memfd` of the same size, which is mapped over the
//! allocation in place (`MAP_FIXED`: same address, same bytes, now shared). The handle
//! names that file: the exporting process's id and the file's descriptor there. Another
//! process opens it as `/proc/<pid>/fd/<fd>` (same user; not `pidfd_getfd`, which Yama's
//! default `ptrace_scope` forbids towards a parent) or, when the application passed the
//! descriptor itself over a Unix socket and put the received number first in the handle
//! (as programs written for Intel's GPU driver do), that descriptor; it maps the file and
//! records the mapping as an allocation, which closing the handle unmaps. In the exporting
//! process, opening a handle maps the same file a second time.
//!
//! Handle layout (64 bytes, native endianness): descriptor `i32` at 0, [`MAGIC`] at 4,
//! process id `u32` at 8, mapped length `u64` at 16, offset of the pointer in the
//! allocation `u64` at 24, the rest zero.

use crate::error::{Error, Result};
use crate::usm::{self, UsmKind};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::LazyLock;

/// Marks a handle as Ferrite's.
pub const MAGIC: [u8; 4] = *b"FeIP";

/// The `memfd` of each allocation shared so far, by base address.
static FILES: LazyLock<Mutex<HashMap<usize, i32>>> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// What a handle says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handle {
    pub fd: i32,
    pub pid: u32,
    pub len: u64,
    pub offset: u64,
}

impl Handle {
    pub fn to_bytes(self) -> [u8; 64] {
        let mut b = [0u8; 64];
        b[0..4].copy_from_slice(&self.fd.to_ne_bytes());
        b[4..8].copy_from_slice(&MAGIC);
        b[8..12].copy_from_slice(&self.pid.to_ne_bytes());
        b[16..24].copy_from_slice(&self.len.to_ne_bytes());
        b[24..32].copy_from_slice(&self.offset.to_ne_bytes());
        b
    }

    /// The handle in `b`, if it is one of Ferrite's.
    pub fn from_bytes(b: &[u8; 64]) -> Option<Handle> {
        let word = |r: std::ops::Range<usize>| b[r].try_into().ok();
        if b[4..8] != MAGIC {
            return None;
        }
        Some(Handle {
            fd: i32::from_ne_bytes(word(0..4)?),
            pid: u32::from_ne_bytes(word(8..12)?),
            len: u64::from_ne_bytes(b[16..24].try_into().ok()?),
            offset: u64::from_ne_bytes(b[24..32].try_into().ok()?),
        })
    }
}

fn os_error(what: &str) -> Error {
    Error::OutOfResources(format!("{what}: {}", std::io::Error::last_os_error()))
}

/// A handle for the allocation containing `ptr`, moving it onto a shared file the first
/// time.
pub fn export(ptr: usize) -> Result<Handle> {
    let a = usm::find(ptr).ok_or(Error::InvalidValue("not a pointer into an allocation"))?;
    if !a.pages {
        return Err(Error::InvalidOperation(
            "the allocation is not on pages of its own (an alignment above a page)",
        ));
    }
    let len = a.size.next_multiple_of(crate::mem::pages::PAGE_BYTES);
    let mut files = FILES.lock();
    let fd = match files.get(&a.base) {
        Some(&fd) => fd,
        None => {
            let fd = share(a.base, len)?;
            files.insert(a.base, fd);
            fd
        }
    };
    Ok(Handle {
        fd,
        pid: std::process::id(),
        len: len as u64,
        offset: (ptr - a.base) as u64,
    })
}

/// Move the `len` bytes at `base` (an allocation's own pages) onto a new `memfd`, mapped at
/// the same address; returns the file's descriptor.
fn share(base: usize, len: usize) -> Result<i32> {
    let fd = new_file(len)?;
    let fail = |what| {
        // SAFETY: `fd` is ours, closed once.
        unsafe { libc::close(fd) };
        Err(os_error(what))
    };
    // The current contents into the file, through a temporary shared mapping of it.
    let tmp = map_file(fd, len);
    if tmp == libc::MAP_FAILED {
        return fail("mapping the shared file failed");
    }
    // SAFETY: both ranges are `len` bytes of live mappings (the allocation's own pages, by
    // `Allocation::pages`, and the new file's) and do not overlap.
    unsafe { std::ptr::copy_nonoverlapping(base as *const u8, tmp.cast::<u8>(), len) };
    // SAFETY: the temporary mapping made above, unmapped once.
    unsafe { libc::munmap(tmp, len) };
    // SAFETY: `base..base + len` are the allocation's own pages (nothing else of the
    // process lies there); the file's mapping replaces them at the same address with the
    // same contents.
    let p = unsafe {
        libc::mmap(
            base as *mut libc::c_void,
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_FIXED,
            fd,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return fail("mapping the shared file over the allocation failed");
    }
    Ok(fd)
}

/// A new zero-filled `memfd` of `len` bytes that [`open_file`] accepts (also the file of
/// a shared event pool, `ze/event_ipc.rs`); returns its descriptor.
pub(crate) fn new_file(len: usize) -> Result<i32> {
    // SAFETY: a NUL-terminated name and valid flags; the result is checked.
    let fd = unsafe { libc::memfd_create(c"ferrite-ipc".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(os_error("memfd_create failed"));
    }
    // SAFETY: `fd` is a new memfd we own.
    if unsafe { libc::ftruncate(fd, len as libc::off_t) } != 0 {
        let e = os_error("ftruncate of the shared file failed");
        // SAFETY: `fd` is ours, closed once.
        unsafe { libc::close(fd) };
        return Err(e);
    }
    Ok(fd)
}

/// Close the shared file of the allocation at `base`, if it has one (it is being freed).
pub fn forget(base: usize) {
    if let Some(fd) = FILES.lock().remove(&base) {
        // SAFETY: the descriptor `share` made, removed from the map: closed once.
        unsafe { libc::close(fd) };
    }
}

/// A descriptor of the file `h` names, opened in this process.
pub(crate) fn open_file(h: &Handle) -> Result<i32> {
    let own = h.pid == std::process::id();
    if !own {
        let path = format!("/proc/{}/fd/{}\0", h.pid, h.fd);
        // SAFETY: a NUL-terminated path; the result is checked.
        let fd = unsafe { libc::open(path.as_ptr().cast(), libc::O_RDWR | libc::O_CLOEXEC) };
        if fd >= 0 {
            return Ok(fd);
        }
    }
    // This process's descriptor: the exporter's own, or one the application received
    // over a socket; only if it is a file this code made.
    let link = std::fs::read_link(format!("/proc/self/fd/{}", h.fd))
        .map_err(|_| Error::InvalidValue("the handle's file cannot be opened"))?;
    if !link.to_string_lossy().starts_with("/memfd:ferrite-ipc") {
        return Err(Error::InvalidValue("the handle's file cannot be opened"));
    }
    // SAFETY: duplicating a descriptor that is open (read_link saw it); checked.
    let fd = unsafe { libc::fcntl(h.fd, libc::F_DUPFD_CLOEXEC, 0) };
    if fd < 0 {
        return Err(os_error("dup of the shared file failed"));
    }
    Ok(fd)
}

/// Map the allocation `h` names into this process as an allocation of `owner`; returns
/// the pointer the handle was made for.
pub fn open(h: &Handle, owner: usize) -> Result<usize> {
    let len = usize::try_from(h.len).map_err(|_| Error::InvalidValue("handle length"))?;
    if len == 0 || h.offset >= h.len {
        return Err(Error::InvalidValue("not a valid handle"));
    }
    let fd = open_file(h)?;
    let p = map_opened(fd, len);
    // SAFETY: `fd` is ours; a mapping keeps the file alive.
    unsafe { libc::close(fd) };
    let p = p?;
    let a = usm::record(p as usize, len, UsmKind::Device, owner);
    Ok(a.base + h.offset as usize)
}

/// A new shared mapping of the `len` bytes of `fd`, counted against the process's memory.
fn map_opened(fd: i32, len: usize) -> Result<*mut libc::c_void> {
    // SAFETY: `fd` is open; `st` is written by fstat.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::fstat(fd, &mut st) } != 0 || (st.st_size as u64) < len as u64 {
        return Err(Error::InvalidValue(
            "the handle's file is smaller than it says",
        ));
    }
    if !crate::mem::pages::reserve_pages(len) {
        return Err(Error::MemObjectAllocationFailure { size: len });
    }
    let p = map_file(fd, len);
    if p == libc::MAP_FAILED {
        crate::mem::pages::unreserve_pages(len);
        return Err(os_error("mapping the shared file failed"));
    }
    Ok(p)
}

/// A new read-write shared mapping of the first `len` bytes of `fd` (or `MAP_FAILED`).
pub(crate) fn map_file(fd: i32, len: usize) -> *mut libc::c_void {
    // SAFETY: a new mapping with no address hint: it aliases nothing of the process.
    unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd,
            0,
        )
    }
}

/// Unmap what [`open`] mapped, given the pointer it returned (or any pointer into it).
pub fn close(ptr: usize) -> Result<()> {
    let a = usm::find(ptr).ok_or(Error::InvalidValue("not a pointer an IPC handle opened"))?;
    if !a.pages {
        return Err(Error::InvalidValue("not a pointer an IPC handle opened"));
    }
    usm::free(a.base).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip_and_foreign_bytes_are_refused() {
        let h = Handle {
            fd: 7,
            pid: 1234,
            len: 8192,
            offset: 16,
        };
        assert_eq!(Handle::from_bytes(&h.to_bytes()), Some(h));
        assert_eq!(Handle::from_bytes(&[0u8; 64]), None);
    }

    #[test]
    fn an_opened_handle_sees_the_exporters_writes_both_ways() {
        let a = usm::alloc_shareable(UsmKind::Device, 10_000, 0, 1).unwrap();
        // SAFETY: 10,000 bytes of a live allocation.
        let mem = unsafe { std::slice::from_raw_parts_mut(a.base as *mut u8, a.size) };
        mem[5] = 42;
        let h = export(a.base + 4).unwrap();
        assert_eq!((h.offset, h.len), (4, 12_288));
        // Moved onto the file in place: same address, same contents.
        assert_eq!(mem[5], 42);
        assert_eq!(export(a.base).unwrap().fd, h.fd);
        let q = open(&Handle::from_bytes(&h.to_bytes()).unwrap(), 2).unwrap();
        assert_ne!(q, a.base + 4);
        // SAFETY: the mapping `open` made, 12,288 bytes from `q - 4`.
        let view = unsafe { std::slice::from_raw_parts_mut((q - 4) as *mut u8, a.size) };
        assert_eq!(view[5], 42);
        view[9_999] = 7;
        assert_eq!(mem[9_999], 7);
        close(q).unwrap();
        assert!(close(q).is_err());
        usm::free(a.base).unwrap();
        assert!(FILES.lock().get(&a.base).is_none());
    }

    #[test]
    fn a_handle_to_nothing_is_refused() {
        let h = Handle {
            fd: 1_000_000,
            pid: std::process::id(),
            len: 4096,
            offset: 0,
        };
        assert!(open(&h, 1).is_err());
        assert!(export(16).is_err());
    }
}
