//! Virtual and physical memory: `zeVirtualMem*` and `zePhysicalMem*`, on the runtime's
//! `mmap` reservations and `memfd` physical allocations (`runtime/src/ze/virtual_mem.rs`).
//! This file checks handles, pointers, alignment and enumerations.
#![expect(non_snake_case, reason = "entry points keep their Level-Zero names")]

use super::sys::*;
use super::{check, context, device, handle, input, write_out, ze_call, ZeError, ZeResult};
use ferrite_runtime::ze::virtual_mem::{self as vm, Access, PhysicalMem};
use std::ffi::c_void;
use std::sync::Arc;

/// The object behind `ze_physical_mem_handle_t`.
pub struct ZePhysical(Arc<PhysicalMem>);

/// A non-empty size or address that is a whole number of pages.
fn page_multiple(x: usize) -> ZeResult<()> {
    check(
        x.is_multiple_of(vm::page_size()),
        ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT,
    )
}

/// A virtual range: non-NULL, page-aligned, non-empty.
fn range(ptr: *const c_void, size: usize) -> ZeResult<usize> {
    check(!ptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
    check(size > 0, ZE_RESULT_ERROR_UNSUPPORTED_SIZE)?;
    page_multiple(ptr as usize)?;
    page_multiple(size)?;
    Ok(ptr as usize)
}

fn access_of(a: ze_memory_access_attribute_t) -> ZeResult<Access> {
    Ok(match a {
        ZE_MEMORY_ACCESS_ATTRIBUTE_NONE => Access::None,
        ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE => Access::ReadWrite,
        ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY => Access::ReadOnly,
        _ => return Err(ZeError(ZE_RESULT_ERROR_INVALID_ENUMERATION)),
    })
}

pub(super) unsafe extern "C" fn zeVirtualMemQueryPageSize(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    _size: usize,
    pagesize: *mut usize,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        device::get(h_device)?;
        // SAFETY: NULL or writable (API contract).
        unsafe { write_out(pagesize, vm::page_size())? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `ZE_PHYSICAL_MEM_FLAG_ALLOCATE_ON_HOST` (newer than the generated bindings).
const ALLOCATE_ON_HOST: u32 = 1 << 1;

pub(super) unsafe extern "C" fn zePhysicalMemCreate(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    desc: *mut ze_physical_mem_desc_t,
    ph_physical: *mut ze_physical_mem_handle_t,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        // SAFETY: NULL or a valid descriptor (API contract).
        let d = unsafe { input(desc as *const ze_physical_mem_desc_t)? };
        check(!ph_physical.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0x3 < desc->flags. ALLOCATE_ON_HOST (0x2,
        // a later version's flag) asks for host memory and may come without a device:
        // for Ferrite both are the same pages.
        check(d.flags <= 0x3, ZE_RESULT_ERROR_INVALID_ENUMERATION)?;
        if !(h_device.is_null() && d.flags & ALLOCATE_ON_HOST != 0) {
            device::get(h_device)?;
        }
        check(d.size > 0, ZE_RESULT_ERROR_UNSUPPORTED_SIZE)?;
        page_multiple(d.size)?;
        let phys = PhysicalMem::new(d.size)?;
        let h: ze_physical_mem_handle_t = handle::insert(Arc::new(ZePhysical(phys)));
        // SAFETY: non-NULL, valid for writes (API contract).
        unsafe { write_out(ph_physical, h)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zePhysicalMemDestroy(
    h_context: ze_context_handle_t,
    h_physical: ze_physical_mem_handle_t,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        // Pages still mapped keep the memory alive until they are unmapped.
        handle::remove::<ZePhysical, _>(h_physical)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeVirtualMemReserve(
    h_context: ze_context_handle_t,
    p_start: *const c_void,
    size: usize,
    pptr: *mut *mut c_void,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        check(!pptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        check(size > 0, ZE_RESULT_ERROR_UNSUPPORTED_SIZE)?;
        page_multiple(size)?;
        page_multiple(p_start as usize)?;
        let start = vm::reserve(p_start as usize, size)?;
        // SAFETY: non-NULL, valid for writes (API contract).
        unsafe { write_out(pptr, start as *mut c_void)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeVirtualMemFree(
    h_context: ze_context_handle_t,
    ptr: *const c_void,
    size: usize,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        vm::free(range(ptr, size)?, size)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeVirtualMemMap(
    h_context: ze_context_handle_t,
    ptr: *const c_void,
    size: usize,
    h_physical: ze_physical_mem_handle_t,
    offset: usize,
    access: ze_memory_access_attribute_t,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        let phys = handle::get::<ZePhysical, _>(h_physical)?;
        let access = access_of(access)?;
        let at = range(ptr, size)?;
        page_multiple(offset)?;
        vm::map(at, size, &phys.0, offset, access)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeVirtualMemUnmap(
    h_context: ze_context_handle_t,
    ptr: *const c_void,
    size: usize,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        vm::unmap(range(ptr, size)?, size)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeVirtualMemSetAccessAttribute(
    h_context: ze_context_handle_t,
    ptr: *const c_void,
    size: usize,
    access: ze_memory_access_attribute_t,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        let access = access_of(access)?;
        vm::set_access(range(ptr, size)?, size, access)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeVirtualMemGetAccessAttribute(
    h_context: ze_context_handle_t,
    ptr: *const c_void,
    size: usize,
    access: *mut ze_memory_access_attribute_t,
    out_size: *mut usize,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        check(
            !access.is_null() && !out_size.is_null(),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER,
        )?;
        let (a, same) = vm::access(range(ptr, size)?, size)?;
        let a = match a {
            Access::None => ZE_MEMORY_ACCESS_ATTRIBUTE_NONE,
            Access::ReadWrite => ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE,
            Access::ReadOnly => ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY,
        };
        // SAFETY: both non-NULL and writable (API contract).
        unsafe {
            write_out(access, a)?;
            write_out(out_size, same)?;
        }
        Ok(ZE_RESULT_SUCCESS)
    })
}
