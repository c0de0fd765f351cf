//! USM allocations. Host, device and shared memory are all host allocations on pages of
//! their own made by `ferrite_runtime::usm`, which keeps the map from addresses to
//! allocations; the kinds differ only in what `zeMemGetAllocProperties` reports. IPC
//! handles share those pages with another process (`ferrite_runtime::mem::ipc`).
#![expect(non_snake_case, reason = "entry points keep their Level-Zero names")]

use super::sys::*;
use super::sys_next::{
    ze_ipc_mem_handle_type_ext_desc_t, ZE_IPC_MEM_HANDLE_TYPE_FLAG_DEFAULT,
    ZE_MEMORY_ATOMIC_ATTR_EXP_FLAGS_ALL, ZE_STRUCTURE_TYPE_IPC_MEM_HANDLE_TYPE_EXT_DESC,
};
use super::{check, context, device, handle, input, output, write_out, ze_call, ZeError, ZeResult};
use ferrite_runtime::mem::ipc;
use ferrite_runtime::usm::{self, UsmKind};
use ferrite_runtime::ze::cmdqueue::submitted_now;
use ferrite_runtime::Error;
use std::ffi::c_void;

/// Page size reported for every allocation.
const PAGE_SIZE: u64 = 4096;

/// Checks shared by the three allocation functions, then the allocation.
fn alloc(
    h_context: ze_context_handle_t,
    kind: UsmKind,
    size: usize,
    alignment: usize,
    pptr: *mut *mut c_void,
) -> ZeResult<ze_result_t> {
    check(!pptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
    let ctx = context::get(h_context)?;
    // ZE_RESULT_ERROR_UNSUPPORTED_SIZE: 0 == size
    check(size != 0, ZE_RESULT_ERROR_UNSUPPORTED_SIZE)?;
    // ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT: 0 != (alignment & (alignment - 1))
    check(
        alignment == 0 || alignment.is_power_of_two(),
        ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT,
    )?;
    // "size in bytes to allocate; must be less than or equal to maxMemAllocSize"
    check(
        size as u64 <= ctx.driver.device.max_mem_alloc_size,
        ZE_RESULT_ERROR_UNSUPPORTED_SIZE,
    )?;
    // On pages of their own, so that an IPC handle can share them (`mem/ipc.rs`).
    let a = usm::alloc_shareable(kind, size, alignment, ctx.owner()).map_err(|e| match e {
        Error::MemObjectAllocationFailure { .. } if kind == UsmKind::Host => {
            ZeError(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)
        }
        e => ZeError::from(e),
    })?;
    // SAFETY: non-NULL (checked above) and valid for writes (API contract).
    unsafe { write_out(pptr, a.base as *mut c_void)? };
    Ok(ZE_RESULT_SUCCESS)
}

/// The device descriptor's checks: its flags.
///
/// Its memory ordinal is not checked: zeDeviceGetMemoryProperties reports one memory,
/// where every allocation lies, and the specification lists no error for another ordinal.
/// Intel's driver ignores it too, and level-zero-tests' command-queue tests allocate with
/// ordinal 1 (then write through the pointer they expect).
fn check_device_desc(desc: &ze_device_mem_alloc_desc_t) -> ZeResult<()> {
    // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0x7 < device_desc->flags
    check(desc.flags <= 0x7, ZE_RESULT_ERROR_INVALID_ENUMERATION)
}

fn check_host_desc(desc: &ze_host_mem_alloc_desc_t) -> ZeResult<()> {
    // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0xf < host_desc->flags
    check(desc.flags <= 0xf, ZE_RESULT_ERROR_INVALID_ENUMERATION)
}

pub(super) unsafe extern "C" fn zeMemAllocShared(
    h_context: ze_context_handle_t,
    device_desc: *const ze_device_mem_alloc_desc_t,
    host_desc: *const ze_host_mem_alloc_desc_t,
    size: usize,
    alignment: usize,
    h_device: ze_device_handle_t,
    pptr: *mut *mut c_void,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        // SAFETY: both are NULL or valid descriptors (API contract).
        let (ddesc, hdesc) = unsafe { (input(device_desc)?, input(host_desc)?) };
        check_device_desc(ddesc)?;
        check_host_desc(hdesc)?;
        // hDevice is optional for shared memory.
        if !h_device.is_null() {
            device::get(h_device)?;
        }
        alloc(h_context, UsmKind::Shared, size, alignment, pptr)
    })
}

pub(super) unsafe extern "C" fn zeMemAllocDevice(
    h_context: ze_context_handle_t,
    device_desc: *const ze_device_mem_alloc_desc_t,
    size: usize,
    alignment: usize,
    h_device: ze_device_handle_t,
    pptr: *mut *mut c_void,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        device::get(h_device)?;
        // SAFETY: NULL or a valid descriptor (API contract).
        let ddesc = unsafe { input(device_desc)? };
        check_device_desc(ddesc)?;
        alloc(h_context, UsmKind::Device, size, alignment, pptr)
    })
}

pub(super) unsafe extern "C" fn zeMemAllocHost(
    h_context: ze_context_handle_t,
    host_desc: *const ze_host_mem_alloc_desc_t,
    size: usize,
    alignment: usize,
    pptr: *mut *mut c_void,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        // SAFETY: NULL or a valid descriptor (API contract).
        let hdesc = unsafe { input(host_desc)? };
        check_host_desc(hdesc)?;
        alloc(h_context, UsmKind::Host, size, alignment, pptr)
    })
}

pub(super) unsafe extern "C" fn zeMemFree(
    h_context: ze_context_handle_t,
    ptr: *mut c_void,
) -> ze_result_t {
    ze_call(|| {
        let ctx = context::get(h_context)?;
        check(!ptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // Only the base of an allocation made in this context can be freed.
        match usm::find(ptr as usize) {
            Some(a) if a.base == ptr as usize && a.owner == ctx.owner() => {
                usm::free(a.base)?;
                Ok(ZE_RESULT_SUCCESS)
            }
            _ => Err(ZeError(ZE_RESULT_ERROR_INVALID_ARGUMENT)),
        }
    })
}

pub(super) unsafe extern "C" fn zeMemGetIpcHandle(
    h_context: ze_context_handle_t,
    ptr: *const c_void,
    p_ipc_handle: *mut ze_ipc_mem_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let ctx = context::get(h_context)?;
        check(!ptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        check(
            !p_ipc_handle.is_null(),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER,
        )?;
        // An allocation of this context (an imported one is not shared again).
        match usm::find(ptr as usize) {
            Some(a) if a.owner == ctx.owner() => {}
            _ => return Err(ZeError(ZE_RESULT_ERROR_INVALID_ARGUMENT)),
        }
        let h = ipc::export(ptr as usize)?;
        let data = h.to_bytes().map(|b| b as std::ffi::c_char);
        // SAFETY: non-NULL (checked above) and valid for writes (API contract).
        unsafe { write_out(p_ipc_handle, ze_ipc_mem_handle_t { data })? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeMemGetIpcHandleWithProperties` (1.15): [`zeMemGetIpcHandle`] with a handle type
/// (`ze_ipc_mem_handle_type_ext_desc_t` in `pNext`): the default (a process-local
/// handle) is Ferrite's; a fabric-accessible one is `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE`.
pub(super) unsafe extern "C" fn zeMemGetIpcHandleWithProperties(
    h_context: ze_context_handle_t,
    ptr: *const c_void,
    p_next: *mut c_void,
    p_ipc_handle: *mut ze_ipc_mem_handle_t,
) -> ze_result_t {
    let mut flags = ZE_IPC_MEM_HANDLE_TYPE_FLAG_DEFAULT;
    // SAFETY: pNext is NULL or a chain of extension structs (API contract).
    unsafe {
        super::for_each_ext(
            p_next,
            ZE_STRUCTURE_TYPE_IPC_MEM_HANDLE_TYPE_EXT_DESC,
            |d: &mut ze_ipc_mem_handle_type_ext_desc_t| flags = d.typeFlags,
        )
    };
    if flags & !ZE_IPC_MEM_HANDLE_TYPE_FLAG_DEFAULT != 0 {
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    }
    // SAFETY: the caller's arguments, passed on.
    unsafe { zeMemGetIpcHandle(h_context, ptr, p_ipc_handle) }
}

/// `zeMemPutIpcHandle` (1.6): the application no longer needs a handle it got. The
/// shared file lives as long as its allocation (other processes may still open the
/// handle), so nothing is released; a handle that is not Ferrite's is refused.
pub(super) unsafe extern "C" fn zeMemPutIpcHandle(
    h_context: ze_context_handle_t,
    handle: ze_ipc_mem_handle_t,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        let bytes = handle.data.map(|b| b as u8);
        ipc::Handle::from_bytes(&bytes).ok_or(ZeError(ZE_RESULT_ERROR_INVALID_ARGUMENT))?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeMemOpenIpcHandle(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    handle: ze_ipc_mem_handle_t,
    flags: ze_ipc_memory_flags_t,
    pptr: *mut *mut c_void,
) -> ze_result_t {
    ze_call(|| {
        let ctx = context::get(h_context)?;
        device::get(h_device)?;
        // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0x3 < flags
        check(flags <= 0x3, ZE_RESULT_ERROR_INVALID_ENUMERATION)?;
        check(!pptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        let bytes = handle.data.map(|c| c as u8);
        let h = ipc::Handle::from_bytes(&bytes).ok_or(ZeError(ZE_RESULT_ERROR_INVALID_ARGUMENT))?;
        let p = ipc::open(&h, ctx.owner())?;
        // SAFETY: non-NULL (checked above) and valid for writes (API contract).
        unsafe { write_out(pptr, p as *mut c_void)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeMemCloseIpcHandle(
    h_context: ze_context_handle_t,
    ptr: *const c_void,
) -> ze_result_t {
    ze_call(|| {
        let ctx = context::get(h_context)?;
        check(!ptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        match usm::find(ptr as usize) {
            Some(a) if a.owner == ctx.owner() => {}
            _ => return Err(ZeError(ZE_RESULT_ERROR_INVALID_ARGUMENT)),
        }
        ipc::close(ptr as usize)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeMemSetAtomicAccessAttributeExp` (1.7): the application's promise of which atomics
/// it uses on a range (of a USM allocation or of system memory). Every kind is
/// supported, host memory being the device's: they are recorded per page
/// (`usm::set_atomic_attr`) and reported back, and change nothing else.
pub(super) unsafe extern "C" fn zeMemSetAtomicAccessAttributeExp(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    ptr: *const c_void,
    size: usize,
    attr: u32,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        device::get(h_device)?;
        check(!ptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        check(
            attr <= ZE_MEMORY_ATOMIC_ATTR_EXP_FLAGS_ALL,
            ZE_RESULT_ERROR_INVALID_ENUMERATION,
        )?;
        usm::check_range(ptr as usize, size).map_err(|_| ZeError(ZE_RESULT_ERROR_INVALID_SIZE))?;
        usm::set_atomic_attr(ptr as usize, size, attr);
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeMemGetAtomicAccessAttributeExp` (1.7): what was last set for the range's first page.
pub(super) unsafe extern "C" fn zeMemGetAtomicAccessAttributeExp(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    ptr: *const c_void,
    size: usize,
    p_attr: *mut u32,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        device::get(h_device)?;
        check(!ptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        usm::check_range(ptr as usize, size).map_err(|_| ZeError(ZE_RESULT_ERROR_INVALID_SIZE))?;
        // SAFETY: NULL or valid for writes (API contract).
        unsafe { write_out(p_attr, usm::atomic_attr(ptr as usize))? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeMemFreeExt` (`ZE_extension_memory_free_policies`). A CPU driver does not track
/// which commands use an allocation, so both policies go by every queue's work submitted
/// before the call: `BLOCKING_FREE` waits for it, then frees; `DEFER_FREE` returns at once
/// and a background thread frees the allocation when it completed. Without a policy, as
/// `zeMemFree`.
pub(super) unsafe extern "C" fn zeMemFreeExt(
    h_context: ze_context_handle_t,
    desc: *const ze_memory_free_ext_desc_t,
    ptr: *mut c_void,
) -> ze_result_t {
    ze_call(|| {
        let ctx = context::get(h_context)?;
        // SAFETY: NULL or a valid descriptor (API contract).
        let desc = unsafe { input(desc)? };
        // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0x3 < pMemFreeDesc->freePolicy
        check(desc.freePolicy <= 0x3, ZE_RESULT_ERROR_INVALID_ENUMERATION)?;
        check(!ptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        let (base, id) = match usm::find(ptr as usize) {
            Some(a) if a.base == ptr as usize && a.owner == ctx.owner() => (a.base, a.id),
            _ => return Err(ZeError(ZE_RESULT_ERROR_INVALID_ARGUMENT)),
        };
        if desc.freePolicy == 0 {
            usm::free(base)?;
            return Ok(ZE_RESULT_SUCCESS);
        }
        let work = submitted_now();
        if desc.freePolicy & ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE != 0 {
            work.wait();
            usm::free(base)?;
        } else {
            work.then(move || {
                // The application may have destroyed the context meanwhile, which freed
                // the allocation already, and a new allocation may lie at the same
                // address since: only this allocation (ids are never reused) is freed.
                let _ = usm::free_if(base, |a| a.id == id);
            })?;
        }
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeMemGetAllocProperties(
    h_context: ze_context_handle_t,
    ptr: *const c_void,
    props: *mut ze_memory_allocation_properties_t,
    ph_device: *mut ze_device_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let ctx = context::get(h_context)?;
        check(!ptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // SAFETY: `props` is NULL or the application's struct (API contract).
        let p = unsafe { output(props)? };
        // Any context of the driver answers (see `zeMemGetAddressRange`).
        let found = usm::find(ptr as usize);
        let (ty, id, page, dev) = match found {
            None => (ZE_MEMORY_TYPE_UNKNOWN, 0, 0, std::ptr::null_mut()),
            Some(a) => {
                let dev: ze_device_handle_t = match a.kind {
                    UsmKind::Host => std::ptr::null_mut(),
                    _ => handle::handle_of(&ctx.driver.device),
                };
                let ty = match a.kind {
                    UsmKind::Host => ZE_MEMORY_TYPE_HOST,
                    UsmKind::Device => ZE_MEMORY_TYPE_DEVICE,
                    UsmKind::Shared => ZE_MEMORY_TYPE_SHARED,
                };
                (ty, a.id, PAGE_SIZE, dev)
            }
        };
        p.type_ = ty;
        p.id = id;
        p.pageSize = page;
        if !ph_device.is_null() {
            // SAFETY: non-NULL and valid for writes (API contract: optional output).
            unsafe { write_out(ph_device, dev)? };
        }
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeMemGetAddressRange(
    h_context: ze_context_handle_t,
    ptr: *const c_void,
    p_base: *mut *mut c_void,
    p_size: *mut usize,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        check(!ptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // The queries answer for an allocation of any context of the driver: there is one
        // address space, and Intel's driver does the same (level-zero-tests query another
        // context's allocations); freeing stays the owning context's.
        let a = usm::find(ptr as usize).ok_or(ZeError(ZE_RESULT_ERROR_INVALID_ARGUMENT))?;
        if !p_base.is_null() {
            // SAFETY: non-NULL optional output (API contract).
            unsafe { write_out(p_base, a.base as *mut c_void)? };
        }
        if !p_size.is_null() {
            // SAFETY: as above.
            unsafe { write_out(p_size, a.size)? };
        }
        Ok(ZE_RESULT_SUCCESS)
    })
}
