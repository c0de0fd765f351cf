//! `cl_intel_unified_shared_memory` entry points (reached through
//! `clGetExtensionFunctionAddressForPlatform`, not the dispatch table): host, device and
//! shared allocations, their info query and free, and the memcpy/fill/migrate/advise
//! commands. The SYCL runtime's OpenCL backend needs these for every USM allocation, which
//! is all `dpctl`/`dpnp` use.
//!
//! Every kind is host memory a kernel addresses directly (`ferrite_runtime::mem::intel_usm`);
//! copies, fills and pointer arguments are the SVM ones (`svm.rs`); kernels' indirect
//! access settings are taken by `clSetKernelExecInfo` there.

use super::enqueue::submit;
use super::handle::{self, get};
use super::info::{info, write_info};
use super::svm::{enqueue_fill, enqueue_memcpy, no_op, queue_and_wait};
use super::{check, cl_call, cl_create};
use crate::error::{ClError, ClResult};
use ferrite_runtime::context::Context;
use ferrite_runtime::device::{Device, MEM_BASE_ADDR_ALIGN};
use ferrite_runtime::event::CommandType;
use ferrite_runtime::mem::intel_usm;
use ferrite_runtime::usm::UsmKind;
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

/// What the device can do with each kind of USM allocation
/// (`CL_DEVICE_*_MEM_CAPABILITIES_INTEL`): everything, concurrently with the host and
/// atomically, since host and device share one cache-coherent memory and kernels' global
/// atomics are the CPU's own. The same for system allocations (fine-grain system SVM).
pub const CAPABILITIES: cl_device_unified_shared_memory_capabilities_intel =
    CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL
        | CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL
        | CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ACCESS_INTEL
        | CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ATOMIC_ACCESS_INTEL;

/// The largest alignment an allocation accepts: the size of the largest data type
/// (`long16`/`double16`), also the default.
const MAX_ALIGN: usize = MEM_BASE_ADDR_ALIGN;

/// `CL_MEM_ALLOC_FLAGS_INTEL` is both a property name and a `clGetMemAllocInfoINTEL`
/// query; the headers type it as the former.
const FLAGS_QUERY: cl_mem_info_intel = CL_MEM_ALLOC_FLAGS_INTEL as cl_mem_info_intel;

const KNOWN_FLAGS: cl_mem_alloc_flags_intel = CL_MEM_ALLOC_WRITE_COMBINED_INTEL
    | CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL
    | CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL;
const PLACEMENT: cl_mem_alloc_flags_intel =
    CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL | CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL;

/// The allocation flags of a zero-terminated property list (NULL: none).
///
/// # Safety
/// `properties` is NULL or a zero-terminated list of name/value pairs (API contract).
unsafe fn alloc_flags(
    properties: *const cl_mem_properties_intel,
    kind: UsmKind,
) -> ClResult<cl_mem_alloc_flags_intel> {
    let mut flags = None;
    let mut p = properties;
    while !p.is_null() {
        // SAFETY: the list is zero-terminated and `p` has not passed the terminator.
        let name = unsafe { *p };
        if name == 0 {
            break;
        }
        // SAFETY: a non-zero name is followed by its value.
        let value = unsafe { *p.add(1) };
        // CL_INVALID_PROPERTY if a property name in properties is not a supported
        // property name, if the value specified for a supported property name is not
        // valid, or if the same property name is specified more than once.
        check(
            name == CL_MEM_ALLOC_FLAGS_INTEL && flags.is_none() && value & !KNOWN_FLAGS == 0,
            CL_INVALID_PROPERTY,
        )?;
        flags = Some(value);
        // SAFETY: the pair was read above; the list goes on (at least to its terminator).
        p = unsafe { p.add(2) };
    }
    let flags = flags.unwrap_or(0);
    // The initial-placement flags are valid only for shared allocations, and not both.
    let placement_ok = match kind {
        UsmKind::Shared => flags & PLACEMENT != PLACEMENT,
        UsmKind::Host | UsmKind::Device => flags & PLACEMENT == 0,
    };
    check(placement_ok, CL_INVALID_PROPERTY)?;
    Ok(flags)
}

/// The checks the three allocation functions share, in the specification's order after
/// the context and device ones; then the allocation.
///
/// # Safety
/// `properties` follows the API contract.
unsafe fn alloc(
    ctx: &Context,
    kind: UsmKind,
    device: Option<&Arc<Device>>,
    properties: *const cl_mem_properties_intel,
    size: usize,
    alignment: cl_uint,
) -> ClResult<*mut c_void> {
    // CL_INVALID_VALUE if alignment is not zero or a power of two, or is larger than the
    // largest data type the device(s) support.
    let align = alignment as usize;
    check(
        align == 0 || (align.is_power_of_two() && align <= MAX_ALIGN),
        CL_INVALID_VALUE,
    )?;
    // SAFETY: per the caller.
    let flags = unsafe { alloc_flags(properties, kind) }?;
    // CL_INVALID_BUFFER_SIZE if size is zero or greater than CL_DEVICE_MAX_MEM_ALLOC_SIZE
    // (of the device, or of any device in the context when there is none).
    let max = match device {
        Some(d) => d.max_mem_alloc_size,
        None => ctx
            .devices
            .iter()
            .map(|d| d.max_mem_alloc_size)
            .max()
            .unwrap_or(0),
    };
    check(size != 0 && size as u64 <= max, CL_INVALID_BUFFER_SIZE)?;
    let device = device.map_or(0, |d| handle::handle(d) as usize);
    let a = intel_usm::alloc(ctx, kind, device, size, align, flags)?;
    Ok(a.base as *mut c_void)
}

/// CL_INVALID_DEVICE if device is not a valid device or is not associated with context.
fn device_of(ctx: &Context, device: cl_device_id) -> ClResult<Arc<Device>> {
    let d = get::<Device>(device)?;
    check(ctx.has_device(&d), CL_INVALID_DEVICE)?;
    Ok(d)
}

pub unsafe extern "C" fn host_mem_alloc(
    context: cl_context,
    properties: *const cl_mem_properties_intel,
    size: usize,
    alignment: cl_uint,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    cl_create(errcode_ret, || {
        // CL_INVALID_CONTEXT if context is not a valid context.
        let ctx = get::<Context>(context)?;
        // SAFETY: properties follows the API contract.
        unsafe { alloc(&ctx, UsmKind::Host, None, properties, size, alignment) }
    })
}

pub unsafe extern "C" fn device_mem_alloc(
    context: cl_context,
    device: cl_device_id,
    properties: *const cl_mem_properties_intel,
    size: usize,
    alignment: cl_uint,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    cl_create(errcode_ret, || {
        let ctx = get::<Context>(context)?;
        let d = device_of(&ctx, device)?;
        // SAFETY: properties follows the API contract.
        unsafe { alloc(&ctx, UsmKind::Device, Some(&d), properties, size, alignment) }
    })
}

pub unsafe extern "C" fn shared_mem_alloc(
    context: cl_context,
    device: cl_device_id,
    properties: *const cl_mem_properties_intel,
    size: usize,
    alignment: cl_uint,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    cl_create(errcode_ret, || {
        let ctx = get::<Context>(context)?;
        // The device is optional for a shared allocation.
        let d = if device.is_null() {
            None
        } else {
            Some(device_of(&ctx, device)?)
        };
        // SAFETY: properties follows the API contract.
        unsafe {
            alloc(
                &ctx,
                UsmKind::Shared,
                d.as_ref(),
                properties,
                size,
                alignment,
            )
        }
    })
}

fn free(context: cl_context, ptr: *mut c_void, blocking: bool) -> cl_int {
    cl_call(|| {
        let ctx = get::<Context>(context)?;
        // If ptr is NULL then no action occurs.
        if ptr.is_null() {
            return Ok(());
        }
        // CL_INVALID_VALUE if ptr is not a value returned by clHostMemAllocINTEL,
        // clDeviceMemAllocINTEL or clSharedMemAllocINTEL (on this context).
        intel_usm::free(&ctx, ptr as usize, blocking).map_err(|_| ClError(CL_INVALID_VALUE))
    })
}

pub unsafe extern "C" fn mem_free(context: cl_context, ptr: *mut c_void) -> cl_int {
    free(context, ptr, false)
}

pub unsafe extern "C" fn mem_blocking_free(context: cl_context, ptr: *mut c_void) -> cl_int {
    free(context, ptr, true)
}

pub unsafe extern "C" fn get_mem_alloc_info(
    context: cl_context,
    ptr: *const c_void,
    param_name: cl_mem_info_intel,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        let ctx = get::<Context>(context)?;
        // Any pointer may be asked about (NULL, host memory, the inside of an allocation);
        // one that is in no USM allocation of the context is of unknown type, with no
        // base, size, device or flags.
        let a = intel_usm::find(&ctx, ptr as usize);
        let value = match param_name {
            CL_MEM_ALLOC_TYPE_INTEL => info(&match a.map(|a| a.kind) {
                Some(UsmKind::Host) => CL_MEM_TYPE_HOST_INTEL,
                Some(UsmKind::Device) => CL_MEM_TYPE_DEVICE_INTEL,
                Some(UsmKind::Shared) => CL_MEM_TYPE_SHARED_INTEL,
                None => CL_MEM_TYPE_UNKNOWN_INTEL,
            }),
            CL_MEM_ALLOC_BASE_PTR_INTEL => info(&(a.map_or(0, |a| a.base) as *mut c_void)),
            CL_MEM_ALLOC_SIZE_INTEL => info(&a.map_or(0, |a| a.size)),
            CL_MEM_ALLOC_DEVICE_INTEL => info(&(a.map_or(0, |a| a.device) as *mut c_void)),
            FLAGS_QUERY => info(&a.map_or(0, |a| a.flags)),
            // CL_INVALID_VALUE if param_name is not a valid USM allocation query.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the output pointers follow the API contract.
        unsafe { write_info(&value, param_value_size, param_value, param_value_size_ret) }
    })
}

pub unsafe extern "C" fn enqueue_mem_fill(
    command_queue: cl_command_queue,
    dst_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: the arguments follow the API contract, the same as clEnqueueSVMMemFill's.
    unsafe {
        enqueue_fill(
            CommandType::MemFillIntel,
            command_queue,
            dst_ptr,
            pattern,
            pattern_size,
            size,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    }
}

/// `clEnqueueMemsetINTEL` (deprecated for `clEnqueueMemFillINTEL`): a fill with the one
/// byte `value`.
pub unsafe extern "C" fn enqueue_memset(
    command_queue: cl_command_queue,
    dst_ptr: *mut c_void,
    value: cl_int,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    let byte = value as u8;
    // SAFETY: the pattern is one live byte for the call (the fill copies it); the rest
    // follows the API contract.
    unsafe {
        enqueue_fill(
            CommandType::MemFillIntel,
            command_queue,
            dst_ptr,
            (&byte as *const u8).cast(),
            1,
            size,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    }
}

pub unsafe extern "C" fn enqueue_memcpy_intel(
    command_queue: cl_command_queue,
    blocking: cl_bool,
    dst_ptr: *mut c_void,
    src_ptr: *const c_void,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: the arguments follow the API contract, the same as clEnqueueSVMMemcpy's.
    unsafe {
        enqueue_memcpy(
            CommandType::MemcpyIntel,
            command_queue,
            blocking,
            dst_ptr,
            src_ptr,
            size,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    }
}

/// A hint command (migration, advice): host and device share the memory, so it only
/// orders, like a marker.
///
/// # Safety
/// The wait list and `event` follow the API contract.
unsafe fn hint(
    command_type: CommandType,
    command_queue: cl_command_queue,
    valid: bool,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    cl_call(|| {
        // SAFETY: per the caller.
        let (q, wait) =
            unsafe { queue_and_wait(command_queue, num_events_in_wait_list, event_wait_list) }?;
        check(valid, CL_INVALID_VALUE)?;
        // SAFETY: per the caller.
        unsafe { submit(&q, command_type, wait, no_op(), event, false) }
    })
}

pub unsafe extern "C" fn enqueue_migrate_mem(
    command_queue: cl_command_queue,
    _ptr: *const c_void,
    _size: usize,
    flags: cl_mem_migration_flags,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // CL_INVALID_VALUE if flags is not a supported combination of migration flags (0 is
    // one since revision 1.2.0 of the extension).
    let valid =
        flags & !(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) == 0;
    // SAFETY: the arguments follow the API contract.
    unsafe {
        hint(
            CommandType::MigrateMemIntel,
            command_queue,
            valid,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    }
}

pub unsafe extern "C" fn enqueue_mem_advise(
    command_queue: cl_command_queue,
    _ptr: *const c_void,
    _size: usize,
    _advice: cl_mem_advice_intel,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // CL_INVALID_VALUE if advice is not supported advice for the device: the extension
    // defines none yet, so none is (Intel's CPU runtime also rejects every value, 0 too).
    // SAFETY: the arguments follow the API contract.
    unsafe {
        hint(
            CommandType::MemAdviseIntel,
            command_queue,
            false,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    }
}

/// The extension's functions by name, for `clGetExtensionFunctionAddress*`.
pub fn function(name: &[u8]) -> Option<*const ()> {
    Some(match name {
        b"clHostMemAllocINTEL" => host_mem_alloc as *const (),
        b"clDeviceMemAllocINTEL" => device_mem_alloc as *const (),
        b"clSharedMemAllocINTEL" => shared_mem_alloc as *const (),
        b"clMemFreeINTEL" => mem_free as *const (),
        b"clMemBlockingFreeINTEL" => mem_blocking_free as *const (),
        b"clGetMemAllocInfoINTEL" => get_mem_alloc_info as *const (),
        // Any pointer is a valid value, as for clSetKernelArgSVMPointer.
        b"clSetKernelArgMemPointerINTEL" => super::svm::set_kernel_arg_svm_pointer as *const (),
        b"clEnqueueMemFillINTEL" => enqueue_mem_fill as *const (),
        b"clEnqueueMemsetINTEL" => enqueue_memset as *const (),
        b"clEnqueueMemcpyINTEL" => enqueue_memcpy_intel as *const (),
        b"clEnqueueMigrateMemINTEL" => enqueue_migrate_mem as *const (),
        b"clEnqueueMemAdviseINTEL" => enqueue_mem_advise as *const (),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags_of(list: &[cl_mem_properties_intel], kind: UsmKind) -> ClResult<u64> {
        // SAFETY: `list` is zero-terminated by every caller below.
        unsafe { alloc_flags(list.as_ptr(), kind) }
    }

    #[test]
    fn property_lists() {
        // SAFETY: NULL is a valid (empty) list.
        let none = unsafe { alloc_flags(std::ptr::null(), UsmKind::Host) };
        assert_eq!(none, Ok(0));
        assert_eq!(flags_of(&[0], UsmKind::Device), Ok(0));
        let wc = CL_MEM_ALLOC_WRITE_COMBINED_INTEL;
        assert_eq!(
            flags_of(&[CL_MEM_ALLOC_FLAGS_INTEL, wc, 0], UsmKind::Host),
            Ok(wc)
        );
        let bad = Err(ClError(CL_INVALID_PROPERTY));
        let dup = [CL_MEM_ALLOC_FLAGS_INTEL, 0, CL_MEM_ALLOC_FLAGS_INTEL, 0, 0];
        assert_eq!(flags_of(&dup, UsmKind::Shared), bad);
        assert_eq!(flags_of(&[0x1234, 0, 0], UsmKind::Shared), bad);
        assert_eq!(
            flags_of(&[CL_MEM_ALLOC_FLAGS_INTEL, 1 << 9, 0], UsmKind::Shared),
            bad
        );
        let dev = CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL;
        let placed = [CL_MEM_ALLOC_FLAGS_INTEL, dev, 0];
        assert_eq!(flags_of(&placed, UsmKind::Shared), Ok(dev));
        assert_eq!(flags_of(&placed, UsmKind::Device), bad);
        assert_eq!(flags_of(&placed, UsmKind::Host), bad);
        let both = [CL_MEM_ALLOC_FLAGS_INTEL, PLACEMENT, 0];
        assert_eq!(flags_of(&both, UsmKind::Shared), bad);
    }
}
