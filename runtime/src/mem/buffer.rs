//! Buffers: creation (host-pointer modes) and the byte operations commands perform on them
//! (read, write, copy, fill). This file and the kernel argument block are where the runtime
//! touches raw memory.

use super::{Mem, MemFlags, MemType};
use crate::api::{ApiObject, ObjectType};
use crate::context::Context;
use crate::device::MEM_BASE_ADDR_ALIGN;
use crate::error::{Error, Result};
use parking_lot::Mutex;
use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::Arc;

/// A zero-initialised host allocation aligned to [`MEM_BASE_ADDR_ALIGN`].
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: AlignedBuf owns its allocation like a Box<[u8]>; concurrent access to the bytes
// is governed by OpenCL's rules (the application synchronises with events), as for any
// device memory.
unsafe impl Send for AlignedBuf {}
// SAFETY: as above; the struct itself is never mutated after construction.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// Allocate `size` zeroed bytes (at least 1).
    pub fn new(size: usize) -> Result<AlignedBuf> {
        let layout = Layout::from_size_align(size.max(1), MEM_BASE_ADDR_ALIGN)
            .map_err(|_| Error::MemObjectAllocationFailure { size })?;
        // Large ones are untouched pages until used (`pages.rs`).
        let ptr = NonNull::new(super::pages::alloc_zeroed(layout))
            .ok_or(Error::MemObjectAllocationFailure { size })?;
        Ok(AlignedBuf { ptr, layout })
    }

    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    pub fn len(&self) -> usize {
        self.layout.size()
    }

    pub fn is_empty(&self) -> bool {
        self.layout.size() == 0
    }

    /// The bytes, for building them on the host.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: ptr points to layout.size() initialised (zeroed) bytes we own exclusively
        // through &mut self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.layout.size()) }
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr points to layout.size() initialised bytes that live as long as self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.layout.size()) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated by `pages::alloc_zeroed` in `new` with this layout, freed once.
        unsafe { super::pages::free(self.ptr.as_ptr(), self.layout) }
    }
}

/// Where a memory object's bytes live.
pub(crate) enum Storage {
    Owned(AlignedBuf),
    /// The application's memory (`CL_MEM_USE_HOST_PTR`), or a window of a parent's
    /// storage that the object keeps alive (`Mem::parent`), as an address.
    Host(usize),
}

impl Storage {
    pub(crate) fn base(&self) -> *mut u8 {
        match self {
            Storage::Owned(b) => b.as_ptr(),
            Storage::Host(p) => *p as *mut u8,
        }
    }
}

/// Parameters of `clCreateSubBuffer`, validated by the front end (flags already combined
/// with the inherited ones, region inside the parent, parent not a sub-buffer).
pub struct SubBufferDesc {
    pub flags: MemFlags,
    pub api_flags: u64,
    pub offset: usize,
    pub size: usize,
}

/// Create a sub-buffer of `parent`.
pub fn create_sub(parent: &Arc<Mem>, desc: SubBufferDesc) -> Result<Arc<Mem>> {
    if parent.parent.is_some() {
        return Err(Error::InvalidValue("a sub-buffer cannot have sub-buffers"));
    }
    if desc.size == 0 {
        return Err(Error::InvalidValue("sub-buffer size is 0"));
    }
    parent.check_range(desc.offset, desc.size)?;
    // SAFETY: offset + size <= parent.size (checked above): the window is inside the
    // parent's storage, which the sub-buffer keeps alive through `parent`.
    let base = unsafe { parent.base().add(desc.offset) } as usize;
    Ok(Arc::new(Mem {
        api: ApiObject::new(ObjectType::Mem),
        context: parent.context.clone(),
        mem_type: MemType::Buffer,
        flags: desc.flags,
        api_flags: desc.api_flags,
        properties: Vec::new(),
        size: desc.size,
        host_ptr: if parent.host_ptr != 0 && parent.flags.use_host_ptr {
            parent.host_ptr + desc.offset
        } else {
            0
        },
        parent: Some(parent.clone()),
        offset: desc.offset,
        storage: Storage::Host(base),
        image: None,
        maps: Mutex::new(Vec::new()),
        destructors: Mutex::new(Vec::new()),
    }))
}

/// Parameters of `clCreateBuffer(WithProperties)`, validated by the front end.
pub struct BufferDesc {
    pub flags: MemFlags,
    pub api_flags: u64,
    pub properties: Vec<u64>,
    pub size: usize,
    /// The application's `host_ptr` (null unless a host-pointer flag is set).
    pub host_ptr: *mut u8,
}

/// Create a buffer.
///
/// # Safety
/// If `desc.flags.use_host_ptr` or `desc.flags.copy_host_ptr`, `desc.host_ptr` must point
/// to `desc.size` bytes that are readable now; with `use_host_ptr` they must also stay
/// valid (and writable) as long as the buffer lives. Both are the API's requirements on
/// the application.
pub unsafe fn create(context: &Arc<Context>, desc: BufferDesc) -> Result<Arc<Mem>> {
    let max = context
        .devices
        .iter()
        .map(|d| d.max_mem_alloc_size)
        .max()
        .unwrap_or(0);
    if desc.size == 0 || desc.size as u64 > max {
        return Err(Error::InvalidValue("buffer size is 0 or too large"));
    }
    let storage = if desc.flags.use_host_ptr {
        Storage::Host(desc.host_ptr as usize)
    } else {
        let buf = AlignedBuf::new(desc.size)?;
        if desc.flags.copy_host_ptr {
            // SAFETY: the caller guarantees host_ptr points to size readable bytes; buf is
            // a fresh allocation of size bytes, so the ranges cannot overlap.
            unsafe { super::copy_bytes(desc.host_ptr, buf.as_ptr(), desc.size) };
        }
        Storage::Owned(buf)
    };
    Ok(Arc::new(Mem {
        api: ApiObject::new(ObjectType::Mem),
        context: context.clone(),
        mem_type: MemType::Buffer,
        flags: desc.flags,
        api_flags: desc.api_flags,
        properties: desc.properties,
        size: desc.size,
        host_ptr: if desc.flags.use_host_ptr || desc.flags.copy_host_ptr {
            desc.host_ptr as usize
        } else {
            0
        },
        parent: None,
        offset: 0,
        storage,
        image: None,
        maps: Mutex::new(Vec::new()),
        destructors: Mutex::new(Vec::new()),
    }))
}

impl Mem {
    /// Copy `len` bytes at `offset` into `dst`.
    ///
    /// # Safety
    /// `dst` must be valid for `len` bytes of writes and not overlap the object.
    pub unsafe fn read(&self, offset: usize, dst: *mut u8, len: usize) -> Result<()> {
        self.check_range(offset, len)?;
        // SAFETY: the range is inside the object (checked above); dst is valid per the
        // caller's contract.
        unsafe { super::copy_bytes(self.base().add(offset), dst, len) };
        Ok(())
    }

    /// Copy `len` bytes from `src` to `offset`.
    ///
    /// # Safety
    /// `src` must be valid for `len` bytes of reads.
    pub unsafe fn write(&self, offset: usize, src: *const u8, len: usize) -> Result<()> {
        self.check_range(offset, len)?;
        // SAFETY: the range is inside the object (checked above); src is valid per the
        // caller's contract. `copy_bytes` tolerates overlap (a USE_HOST_PTR buffer written
        // from its own host memory).
        unsafe { super::copy_bytes(src, self.base().add(offset), len) };
        Ok(())
    }

    /// Copy `len` bytes from `self[src_offset..]` to `dst[dst_offset..]`.
    pub fn copy_to(
        &self,
        src_offset: usize,
        dst: &Mem,
        dst_offset: usize,
        len: usize,
    ) -> Result<()> {
        self.check_range(src_offset, len)?;
        dst.check_range(dst_offset, len)?;
        // SAFETY: both ranges are inside their objects (checked above); `copy_bytes` allows
        // them to overlap.
        unsafe { super::copy_bytes(self.base().add(src_offset), dst.base().add(dst_offset), len) };
        Ok(())
    }

    /// Repeat `pattern` over `[offset, offset + len)`; `len` is a multiple of its length.
    pub fn fill(&self, pattern: &[u8], offset: usize, len: usize) -> Result<()> {
        self.check_range(offset, len)?;
        if pattern.is_empty() || !len.is_multiple_of(pattern.len()) {
            return Err(Error::InvalidValue(
                "fill size is not a multiple of the pattern",
            ));
        }
        // SAFETY: the range is inside the object (checked above); nothing else in this
        // process holds a Rust reference to the object's bytes.
        let bytes = unsafe { std::slice::from_raw_parts_mut(self.base().add(offset), len) };
        super::fill_pattern(bytes, pattern);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::Platform;

    fn ctx() -> Arc<Context> {
        Context::new(vec![Platform::get().device.clone()], Vec::new(), None)
    }

    #[test]
    fn copy_host_ptr_and_ops() {
        let src: Vec<u8> = (0..64).collect();
        let flags = MemFlags {
            copy_host_ptr: true,
            ..MemFlags::READ_WRITE
        };
        // SAFETY: src is 64 readable bytes.
        let m = unsafe {
            create(
                &ctx(),
                BufferDesc {
                    flags,
                    api_flags: 0,
                    properties: Vec::new(),
                    size: 64,
                    host_ptr: src.as_ptr() as *mut u8,
                },
            )
        }
        .unwrap();
        assert_eq!(m.base() as usize % MEM_BASE_ADDR_ALIGN, 0);
        let mut out = [0u8; 8];
        // SAFETY: out is 8 writable bytes.
        unsafe { m.read(8, out.as_mut_ptr(), 8) }.unwrap();
        assert_eq!(out, [8, 9, 10, 11, 12, 13, 14, 15]);
        m.fill(&[0xAB, 0xCD], 0, 4).unwrap();
        // SAFETY: out is 8 writable bytes.
        unsafe { m.read(0, out.as_mut_ptr(), 8) }.unwrap();
        assert_eq!(out, [0xAB, 0xCD, 0xAB, 0xCD, 4, 5, 6, 7]);
        // SAFETY: out is 8 writable bytes.
        assert!(unsafe { m.read(60, out.as_mut_ptr(), 8) }.is_err());
        m.add_map(m.base() as usize);
        assert_eq!(m.map_count(), 1);
        assert!(m.remove_map(1).is_err());
        m.remove_map(m.base() as usize).unwrap();
        assert_eq!(m.map_count(), 0);
    }

    #[test]
    fn use_host_ptr_is_zero_copy() {
        let mut host = vec![0u32; 16];
        let flags = MemFlags {
            use_host_ptr: true,
            ..MemFlags::READ_WRITE
        };
        // SAFETY: host is 64 bytes that outlive the buffer.
        let m = unsafe {
            create(
                &ctx(),
                BufferDesc {
                    flags,
                    api_flags: 0,
                    properties: Vec::new(),
                    size: 64,
                    host_ptr: host.as_mut_ptr() as *mut u8,
                },
            )
        }
        .unwrap();
        assert_eq!(m.base(), host.as_mut_ptr() as *mut u8);
        m.fill(&7u32.to_ne_bytes(), 0, 64).unwrap();
        drop(m);
        assert!(host.iter().all(|&x| x == 7));
    }
}
