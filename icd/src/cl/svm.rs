//! Shared virtual memory entry points: `clSVMAlloc`/`clSVMFree`, the `clEnqueueSVM*`
//! commands, `clSetKernelArgSVMPointer` and `clSetKernelExecInfo` (which also takes the
//! `cl_intel_unified_shared_memory` settings). USM's copies, fills and pointer arguments
//! share the code here (`usm.rs`).
//!
//! Device memory is host memory (`ferrite_runtime::mem::svm`): every SVM kind is native, so
//! maps, unmaps and migrations are commands that only order (they complete their events
//! after their wait lists, like markers), copies and fills run on the queue, and any
//! pointer — inside an SVM allocation or, with fine-grain system SVM, anywhere in the
//! process — goes into a kernel's argument slot as is.

use super::enqueue::{submit, submit_op};
use super::event::wait_list;
use super::handle::{self, get};
use super::{check, cl_call, slice, SendPtr};
use crate::error::{ClError, ClResult};
use ferrite_compiler::{AddressSpace, ArgKind};
use ferrite_runtime::command::Op;
use ferrite_runtime::context::Context;
use ferrite_runtime::event::CommandType;
use ferrite_runtime::kernel::{ArgValue, Kernel};
use ferrite_runtime::mem::svm;
use ferrite_runtime::queue::{Queue, Work};
use ferrite_runtime::usm::SvmFlags;
use opencl_sys::*;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// `CL_DEVICE_SVM_CAPABILITIES`: every kind, each proven by `tests/cl_svm.rs`.
pub const SVM_CAPABILITIES: cl_device_svm_capabilities = CL_DEVICE_SVM_COARSE_GRAIN_BUFFER
    | CL_DEVICE_SVM_FINE_GRAIN_BUFFER
    | CL_DEVICE_SVM_FINE_GRAIN_SYSTEM
    | CL_DEVICE_SVM_ATOMICS;

const ACCESS_BITS: cl_svm_mem_flags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
const SVM_BITS: cl_svm_mem_flags = ACCESS_BITS | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS;

/// Validate `clSVMAlloc` flags (the SVM Memory Flags table).
pub fn svm_flags(flags: cl_svm_mem_flags) -> ClResult<SvmFlags> {
    // Only the flags of the SVM Memory Flags table.
    check(flags & !SVM_BITS == 0, CL_INVALID_VALUE)?;
    // CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY and CL_MEM_READ_ONLY are mutually exclusive.
    check((flags & ACCESS_BITS).count_ones() <= 1, CL_INVALID_VALUE)?;
    // CL_MEM_SVM_ATOMICS ... can be used only with CL_MEM_SVM_FINE_GRAIN_BUFFER.
    check(
        flags & CL_MEM_SVM_ATOMICS == 0 || flags & CL_MEM_SVM_FINE_GRAIN_BUFFER != 0,
        CL_INVALID_VALUE,
    )?;
    Ok(SvmFlags {
        device_read: flags & CL_MEM_WRITE_ONLY == 0,
        device_write: flags & CL_MEM_READ_ONLY == 0,
        fine_grain: flags & CL_MEM_SVM_FINE_GRAIN_BUFFER != 0,
        atomics: flags & CL_MEM_SVM_ATOMICS != 0,
    })
}

pub unsafe extern "C" fn svm_alloc(
    context: cl_context,
    flags: cl_svm_mem_flags,
    size: usize,
    alignment: cl_uint,
) -> *mut c_void {
    // clSVMAlloc returns a valid non-NULL shared virtual memory address if the SVM buffer
    // is successfully allocated. Otherwise, like malloc, it returns a NULL pointer value:
    // for an invalid context, invalid flags, a size of 0 or above
    // CL_DEVICE_MAX_MEM_ALLOC_SIZE, an alignment that is not a power of two or larger than
    // the largest supported data type, or a failed allocation.
    let r = catch_unwind(AssertUnwindSafe(|| -> ClResult<*mut c_void> {
        super::init();
        let ctx = get::<Context>(context)?;
        let f = svm_flags(flags)?;
        let p = svm::alloc(&ctx, f, size, alignment as usize)?;
        Ok(p as *mut c_void)
    }));
    match r {
        Ok(Ok(p)) => p,
        _ => std::ptr::null_mut(),
    }
}

pub unsafe extern "C" fn svm_free(context: cl_context, svm_pointer: *mut c_void) {
    // If a NULL pointer is passed in svm_pointer, no action occurs. Pointers that are not
    // from clSVMAlloc on this context (undefined behaviour) are ignored, never freed.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        super::init();
        if let Ok(ctx) = get::<Context>(context) {
            svm::free(&ctx, svm_pointer as usize);
        }
    }));
}

/// The queue and wait list every `clEnqueueSVM*` starts with.
///
/// # Safety
/// `event_wait_list` is NULL or points to `n` handles.
pub(super) unsafe fn queue_and_wait(
    command_queue: cl_command_queue,
    n: cl_uint,
    event_wait_list: *const cl_event,
) -> ClResult<(
    std::sync::Arc<Queue>,
    Vec<std::sync::Arc<ferrite_runtime::event::Event>>,
)> {
    // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue.
    let q = get::<Queue>(command_queue)?;
    // CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and num_events_in_wait_list >
    // 0, or event_wait_list is not NULL and num_events_in_wait_list is 0, or if event
    // objects in event_wait_list are not valid events; CL_INVALID_CONTEXT if their context
    // is not the queue's.
    // SAFETY: per the caller.
    let wait = unsafe { wait_list(&q.context, n, event_wait_list) }?;
    Ok((q, wait))
}

pub(super) fn no_op() -> Work {
    Box::new(|| Ok(()))
}

/// The callback `clEnqueueSVMFree` may be given.
type SvmFreeCallback = unsafe extern "C" fn(
    queue: cl_command_queue,
    num_svm_pointers: cl_uint,
    svm_pointers: *mut *mut c_void,
    user_data: *mut c_void,
);

pub unsafe extern "C" fn enqueue_svm_free(
    command_queue: cl_command_queue,
    num_svm_pointers: cl_uint,
    svm_pointers: *mut *mut c_void,
    pfn_free_func: Option<SvmFreeCallback>,
    user_data: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    cl_call(|| {
        // SAFETY: the wait list follows the API contract.
        let (q, wait) =
            unsafe { queue_and_wait(command_queue, num_events_in_wait_list, event_wait_list) }?;
        // CL_INVALID_VALUE if num_svm_pointers is 0 and svm_pointers is non-NULL, or if
        // svm_pointers is NULL and num_svm_pointers is not 0.
        check(
            (num_svm_pointers == 0) == svm_pointers.is_null(),
            CL_INVALID_VALUE,
        )?;
        // The application may reuse its array once the call returns: keep a copy.
        // SAFETY: svm_pointers points to num_svm_pointers pointers (API contract).
        let mut ptrs: Vec<SendPtr> = unsafe {
            slice(
                svm_pointers as *const *mut c_void,
                num_svm_pointers as usize,
            )
        }
        .iter()
        .map(|&p| SendPtr(p))
        .collect();
        let ctx = q.context.clone();
        let queue_handle = SendPtr(handle::handle(&q));
        let user_data = SendPtr(user_data);
        let work: Work = Box::new(move || {
            match pfn_free_func {
                Some(f) => {
                    let mut raw: Vec<*mut c_void> = ptrs.iter_mut().map(|p| p.get()).collect();
                    // SAFETY: the application's callback with its queue, a live array of
                    // the pointers it gave and its user_data; called once.
                    unsafe {
                        f(
                            queue_handle.get() as cl_command_queue,
                            raw.len() as cl_uint,
                            raw.as_mut_ptr(),
                            user_data.get(),
                        )
                    }
                }
                // If pfn_free_func is NULL, the OpenCL implementation frees the pointers.
                None => {
                    for p in &ptrs {
                        svm::free(&ctx, p.get() as usize);
                    }
                }
            }
            Ok(())
        });
        // SAFETY: event is NULL or writable (API contract).
        unsafe { submit(&q, CommandType::SvmFree, wait, work, event, false) }
    })
}

pub unsafe extern "C" fn enqueue_svm_memcpy(
    command_queue: cl_command_queue,
    blocking_copy: cl_bool,
    dst_ptr: *mut c_void,
    src_ptr: *const c_void,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: the arguments follow the API contract, which both commands share.
    unsafe {
        enqueue_memcpy(
            CommandType::SvmMemcpy,
            command_queue,
            blocking_copy,
            dst_ptr,
            src_ptr,
            size,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    }
}

/// `clEnqueueSVMMemcpy` and `clEnqueueMemcpyINTEL`: the same command, checked the same way.
///
/// # Safety
/// The arguments follow either entry point's API contract.
#[expect(
    clippy::too_many_arguments,
    reason = "the entry points' own parameters"
)]
pub(super) unsafe fn enqueue_memcpy(
    command_type: CommandType,
    command_queue: cl_command_queue,
    blocking_copy: cl_bool,
    dst_ptr: *mut c_void,
    src_ptr: *const c_void,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    cl_call(|| {
        // SAFETY: the wait list follows the API contract.
        let (q, wait) =
            unsafe { queue_and_wait(command_queue, num_events_in_wait_list, event_wait_list) }?;
        let op = memcpy_op(dst_ptr, src_ptr, size)?;
        // SAFETY: the application guarantees both ranges are valid for size bytes until
        // the command completes (API contract); event is NULL or writable.
        unsafe { submit_op(&q, command_type, wait, op, event, blocking_copy != CL_FALSE) }
    })
}

/// The command of `clEnqueueSVMMemcpy` (and `clCommandSVMMemcpyKHR`), checked.
pub(super) fn memcpy_op(dst_ptr: *mut c_void, src_ptr: *const c_void, size: usize) -> ClResult<Op> {
    // CL_INVALID_VALUE if dst_ptr or src_ptr is NULL.
    check(!dst_ptr.is_null() && !src_ptr.is_null(), CL_INVALID_VALUE)?;
    let (dst, src) = (dst_ptr as usize, src_ptr as usize);
    // CL_MEM_COPY_OVERLAP if the values specified for dst_ptr, src_ptr and size result
    // in an overlapping copy.
    check(!svm::overlaps(dst, src, size), CL_MEM_COPY_OVERLAP)?;
    Ok(Op::MemCopy { dst, src, size })
}

pub unsafe extern "C" fn enqueue_svm_mem_fill(
    command_queue: cl_command_queue,
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: the arguments follow the API contract, which both commands share.
    unsafe {
        enqueue_fill(
            CommandType::SvmMemFill,
            command_queue,
            svm_ptr,
            pattern,
            pattern_size,
            size,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    }
}

/// `clEnqueueSVMMemFill` and `clEnqueueMemFillINTEL`: the same command with the same
/// checks.
///
/// # Safety
/// The arguments follow either entry point's API contract.
#[expect(
    clippy::too_many_arguments,
    reason = "the entry points' own parameters"
)]
pub(super) unsafe fn enqueue_fill(
    command_type: CommandType,
    command_queue: cl_command_queue,
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    cl_call(|| {
        // SAFETY: the wait list follows the API contract.
        let (q, wait) =
            unsafe { queue_and_wait(command_queue, num_events_in_wait_list, event_wait_list) }?;
        // SAFETY: pattern follows the API contract.
        let op = unsafe { fill_op(svm_ptr, pattern, pattern_size, size) }?;
        // SAFETY: the application guarantees [svm_ptr, svm_ptr + size) is valid until the
        // command completes (API contract); event is NULL or writable.
        unsafe { submit_op(&q, command_type, wait, op, event, false) }
    })
}

/// The command of `clEnqueueSVMMemFill` (and `clCommandSVMMemFillKHR`), checked; the
/// pattern is copied.
///
/// # Safety
/// `pattern` is NULL or points to `pattern_size` bytes.
pub(super) unsafe fn fill_op(
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
) -> ClResult<Op> {
    // CL_INVALID_VALUE if svm_ptr is NULL.
    check(!svm_ptr.is_null(), CL_INVALID_VALUE)?;
    // CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or if pattern_size
    // is not one of {1, 2, 4, 8, 16, 32, 64, 128}.
    check(
        !pattern.is_null() && pattern_size.is_power_of_two() && pattern_size <= 128,
        CL_INVALID_VALUE,
    )?;
    // CL_INVALID_VALUE if svm_ptr is not aligned to pattern_size bytes.
    let dst = svm_ptr as usize;
    check(dst.is_multiple_of(pattern_size), CL_INVALID_VALUE)?;
    // CL_INVALID_VALUE if size is not a multiple of pattern_size.
    check(size.is_multiple_of(pattern_size), CL_INVALID_VALUE)?;
    // The pattern is copied now: the application may reuse its memory at once.
    // SAFETY: pattern points to pattern_size bytes (per the caller).
    let pattern = unsafe { slice(pattern as *const u8, pattern_size) }.to_vec();
    Ok(Op::MemFill { dst, pattern, size })
}

pub unsafe extern "C" fn enqueue_svm_map(
    command_queue: cl_command_queue,
    blocking_map: cl_bool,
    flags: cl_map_flags,
    svm_ptr: *mut c_void,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    cl_call(|| {
        // SAFETY: the wait list follows the API contract.
        let (q, wait) =
            unsafe { queue_and_wait(command_queue, num_events_in_wait_list, event_wait_list) }?;
        // CL_INVALID_VALUE if svm_ptr is NULL, if size is 0 or if values specified in
        // map_flags are not valid.
        check(!svm_ptr.is_null() && size > 0, CL_INVALID_VALUE)?;
        let known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
        check(flags & !known == 0, CL_INVALID_VALUE)?;
        check(
            flags & CL_MAP_WRITE_INVALIDATE_REGION == 0
                || flags & (CL_MAP_READ | CL_MAP_WRITE) == 0,
            CL_INVALID_VALUE,
        )?;
        // The host already sees the memory: the map only orders.
        // SAFETY: event is NULL or writable (API contract).
        unsafe {
            submit(
                &q,
                CommandType::SvmMap,
                wait,
                no_op(),
                event,
                blocking_map != CL_FALSE,
            )
        }
    })
}

pub unsafe extern "C" fn enqueue_svm_unmap(
    command_queue: cl_command_queue,
    svm_ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    cl_call(|| {
        // SAFETY: the wait list follows the API contract.
        let (q, wait) =
            unsafe { queue_and_wait(command_queue, num_events_in_wait_list, event_wait_list) }?;
        // CL_INVALID_VALUE if svm_ptr is NULL.
        check(!svm_ptr.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: event is NULL or writable (API contract).
        unsafe { submit(&q, CommandType::SvmUnmap, wait, no_op(), event, false) }
    })
}

pub unsafe extern "C" fn enqueue_svm_migrate_mem(
    command_queue: cl_command_queue,
    num_svm_pointers: cl_uint,
    svm_pointers: *mut *const c_void,
    sizes: *const usize,
    flags: cl_mem_migration_flags,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    cl_call(|| {
        // SAFETY: the wait list follows the API contract.
        let (q, wait) =
            unsafe { queue_and_wait(command_queue, num_events_in_wait_list, event_wait_list) }?;
        // CL_INVALID_VALUE if num_svm_pointers is zero or svm_pointers is NULL.
        check(
            num_svm_pointers > 0 && !svm_pointers.is_null(),
            CL_INVALID_VALUE,
        )?;
        // CL_INVALID_VALUE if flags is not 0 or is not any of the values described in the
        // table.
        check(
            flags & !(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) == 0,
            CL_INVALID_VALUE,
        )?;
        let n = num_svm_pointers as usize;
        // SAFETY: svm_pointers points to n pointers; sizes is NULL or points to n sizes
        // (API contract).
        let (ptrs, lens) = unsafe {
            (
                slice(svm_pointers as *const *const c_void, n),
                slice(sizes, n),
            )
        };
        for (i, &p) in ptrs.iter().enumerate() {
            // CL_INVALID_VALUE if sizes[i] is non-zero and the range [svm_pointers[i],
            // svm_pointers[i]+sizes[i]) is not contained within an existing clSVMAlloc
            // allocation. (A size of 0, or sizes NULL, migrates the whole allocation
            // svm_pointers[i] is in; with fine-grain system SVM that may be any memory.)
            let len = lens.get(i).copied().unwrap_or(0);
            if len != 0 {
                svm::check_migrate_range(p as usize, len).map_err(|_| ClError(CL_INVALID_VALUE))?;
            }
        }
        // One memory for host and device: migration only orders.
        // SAFETY: event is NULL or writable (API contract).
        unsafe { submit(&q, CommandType::SvmMigrateMem, wait, no_op(), event, false) }
    })
}

pub unsafe extern "C" fn set_kernel_arg_svm_pointer(
    kernel: cl_kernel,
    arg_index: cl_uint,
    arg_value: *const c_void,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_KERNEL if kernel is not a valid kernel object.
        let k = get::<Kernel>(kernel)?;
        set_arg_pointer(&k, arg_index, arg_value)
    })
}

/// `clSetKernelArgSVMPointer` on a kernel object (also a mutable launch's own copy of the
/// arguments).
pub(super) fn set_arg_pointer(
    k: &Kernel,
    arg_index: cl_uint,
    arg_value: *const c_void,
) -> ClResult<()> {
    // CL_INVALID_ARG_INDEX if arg_index is not a valid argument index.
    let kind = k.arg(arg_index as usize)?.kind.clone();
    // CL_INVALID_ARG_VALUE if arg_value specified is not a valid value: only a
    // __global or __constant pointer argument takes an SVM pointer. Any address is
    // valid (inside an SVM allocation, or any host memory with fine-grain system SVM),
    // and so is NULL.
    let pointer = matches!(
        kind,
        ArgKind::Buffer {
            space: AddressSpace::Global | AddressSpace::Constant
        }
    );
    check(pointer, CL_INVALID_ARG_VALUE)?;
    k.set_arg(arg_index as usize, ArgValue::Pointer(arg_value as u64))?;
    Ok(())
}

/// `clSetKernelArgDevicePointerEXT` (`cl_ext_buffer_device_address`): a device address
/// (any address: device memory is host memory) as a `__global` pointer argument.
pub unsafe extern "C" fn set_kernel_arg_device_pointer(
    kernel: cl_kernel,
    arg_index: cl_uint,
    arg_value: cl_mem_device_address_ext,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_KERNEL if kernel is not a valid kernel object.
        let k = get::<Kernel>(kernel)?;
        // CL_INVALID_ARG_INDEX if arg_index is not a valid argument index, or the
        // argument is not a pointer to global memory.
        let kind = k.arg(arg_index as usize)?.kind.clone();
        let global = matches!(
            kind,
            ArgKind::Buffer {
                space: AddressSpace::Global | AddressSpace::Constant
            }
        );
        check(global, CL_INVALID_ARG_INDEX)?;
        k.set_arg(arg_index as usize, ArgValue::Pointer(arg_value))?;
        Ok(())
    })
}

pub unsafe extern "C" fn set_kernel_exec_info(
    kernel: cl_kernel,
    param_name: cl_kernel_exec_info,
    param_value_size: usize,
    param_value: *const c_void,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_KERNEL if kernel is not a valid kernel object.
        get::<Kernel>(kernel)?;
        check_exec_info(param_name, param_value_size, param_value)
    })
}

/// The checks of `clSetKernelExecInfo`, whose settings change nothing on this device (also
/// a mutable launch's exec-info updates).
pub(super) fn check_exec_info(
    param_name: cl_kernel_exec_info,
    param_value_size: usize,
    param_value: *const c_void,
) -> ClResult<()> {
    match param_name {
        // The SVM (or USM) pointers a kernel reaches other than through its arguments:
        // every address is reachable on a CPU, so the list changes nothing. A size of 0
        // with a NULL list unsets an earlier list. CL_INVALID_VALUE if param_value_size
        // is not a multiple of the size of a pointer, or param_value is NULL for a
        // non-empty list.
        CL_KERNEL_EXEC_INFO_SVM_PTRS
        | CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL
        | CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT => {
            check(
                param_value_size.is_multiple_of(std::mem::size_of::<*const c_void>()),
                CL_INVALID_VALUE,
            )?;
            check(
                param_value_size == 0 || !param_value.is_null(),
                CL_INVALID_VALUE,
            )
        }
        // Fine-grain system SVM is always on, and so is indirect access to every kind of
        // USM allocation (the device supports all three: `usm.rs`); CL_INVALID_VALUE if
        // param_value is NULL or param_value_size is not the size of a cl_bool.
        CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM
        | CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL
        | CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL
        | CL_KERNEL_EXEC_INFO_INDIRECT_SHARED_ACCESS_INTEL => check(
            !param_value.is_null() && param_value_size == std::mem::size_of::<cl_bool>(),
            CL_INVALID_VALUE,
        ),
        // CL_INVALID_VALUE if param_name is not valid.
        _ => Err(ClError(CL_INVALID_VALUE)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svm_flag_validation() {
        let f = svm_flags(0).unwrap();
        assert!(f.device_read && f.device_write && !f.fine_grain && !f.atomics);
        let f = svm_flags(CL_MEM_READ_ONLY | CL_MEM_SVM_FINE_GRAIN_BUFFER).unwrap();
        assert!(f.device_read && !f.device_write && f.fine_grain);
        let f = svm_flags(CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS).unwrap();
        assert!(f.atomics);
        let e = |flags| svm_flags(flags).err();
        assert_eq!(
            e(CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY),
            Some(ClError(CL_INVALID_VALUE))
        );
        assert_eq!(e(CL_MEM_SVM_ATOMICS), Some(ClError(CL_INVALID_VALUE)));
        assert_eq!(e(CL_MEM_USE_HOST_PTR), Some(ClError(CL_INVALID_VALUE)));
        assert_eq!(e(1 << 40), Some(ClError(CL_INVALID_VALUE)));
    }
}
