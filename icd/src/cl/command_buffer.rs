//! `cl_khr_command_buffer` (revision 0.9.8): the entry points, reached through
//! `clGetExtensionFunctionAddressForPlatform` ([`function`]).
//!
//! A `clCommand*KHR` call checks its arguments exactly as the matching `clEnqueue*` does,
//! with the same builder (`copy_buffer_op`, `launch_op`, ...): the command buffer's queue
//! stands for the queue. The resulting [`Op`] is recorded; `clEnqueueCommandBufferKHR`
//! runs the recorded ops as one command (runtime `command/buffer.rs`). A launch recorded
//! with a mutable handle can be updated later ([`mutable`]).

mod mutable;

use super::enqueue::{
    copy_buffer_op, copy_buffer_rect_op, copy_buffer_to_image_op, copy_image_op,
    copy_image_to_buffer_op, fill_buffer_op, fill_image_op, launch_op, nd_range,
};
use super::event::wait_list;
use super::handle::{self, get};
use super::info::{info, write_info};
use super::svm::{fill_op, memcpy_op};
use super::{check, cl_call, cl_create, slice, write_out};
use crate::error::{ClError, ClResult};
use ferrite_runtime::command::buffer::{CommandBuffer, LaunchState};
use ferrite_runtime::command::Op;
use ferrite_runtime::kernel::Kernel;
use ferrite_runtime::queue::Queue;
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

pub use mutable::CAPABILITIES as MUTABLE_DISPATCH_CAPABILITIES;

/// `CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR`: printf works in recorded kernels (its
/// output is flushed when each launch ends, as for an enqueued one); a command buffer may
/// be enqueued again while an earlier enqueue is pending (each enqueue runs its own
/// snapshot of the recorded ops). No device-side enqueue (the device has none).
pub const CAPABILITIES: cl_device_command_buffer_capabilities_khr =
    CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR
        | CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR;

/// `CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR`: every property a host queue
/// of this device can have.
pub const SUPPORTED_QUEUE_PROPERTIES: cl_command_queue_properties =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;

/// `CL_COMMAND_BUFFER_STATE_FINALIZED_KHR` (mutable dispatch 0.9.5; not in `opencl-sys`
/// 0.6.5).
const STATE_FINALIZED: cl_command_buffer_state_khr = 2;

/// Every command-buffer flag an extension defines: simultaneous use, mutable,
/// device-side sync (`CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR`, multi-device).
const KNOWN_FLAGS: cl_command_buffer_flags_khr = 0b111;

/// The command-buffer flags this implementation accepts: simultaneous use and mutable
/// launches (`cl_khr_command_buffer_mutable_dispatch`).
const SUPPORTED_FLAGS: cl_command_buffer_flags_khr =
    CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR | CL_COMMAND_BUFFER_MUTABLE_KHR;

/// A property list's (name, value) pairs and the list as given.
type PropertyList = (Vec<(cl_properties, cl_properties)>, Vec<cl_properties>);

/// A zero-terminated property list as (name, value) pairs, and as given (zero-terminated;
/// empty when NULL): `CL_INVALID_VALUE` for a name not in `known` (before its value is
/// read) or given twice.
///
/// # Safety
/// `properties` is NULL or a zero-terminated list of (name, value) pairs.
pub(super) unsafe fn property_list(
    properties: *const cl_properties,
    known: &[cl_properties],
) -> ClResult<PropertyList> {
    let (mut pairs, mut list) = (Vec::new(), Vec::new());
    if properties.is_null() {
        return Ok((pairs, list));
    }
    let mut p = properties;
    loop {
        // SAFETY: per the caller: a name, then its value unless it is the terminating 0.
        let name = unsafe { *p };
        list.push(name);
        if name == 0 {
            return Ok((pairs, list));
        }
        // CL_INVALID_VALUE if values specified in properties are not valid.
        check(known.contains(&name), CL_INVALID_VALUE)?;
        // SAFETY: as above.
        let value = unsafe { *p.add(1) };
        list.push(value);
        // CL_INVALID_VALUE if the same property name is specified more than once.
        check(pairs.iter().all(|&(n, _)| n != name), CL_INVALID_VALUE)?;
        pairs.push((name, value));
        // SAFETY: past the pair, still inside the list.
        p = unsafe { p.add(2) };
    }
}

/// The queue of a one-queue list: `CL_INVALID_VALUE` unless it has exactly one entry.
///
/// # Safety
/// `queues` is NULL or points to `num_queues` handles.
unsafe fn one_queue(num_queues: cl_uint, queues: *const cl_command_queue) -> ClResult<Arc<Queue>> {
    // CL_INVALID_VALUE if num_queues is not one (without cl_khr_command_buffer_multi_device)
    // or queues is NULL.
    check(num_queues == 1 && !queues.is_null(), CL_INVALID_VALUE)?;
    // SAFETY: per the caller, one handle.
    let h = unsafe { *queues };
    // CL_INVALID_COMMAND_QUEUE if any command-queue in queues is not a valid command-queue.
    get::<Queue>(h)
}

pub unsafe extern "C" fn create_command_buffer(
    num_queues: cl_uint,
    queues: *const cl_command_queue,
    properties: *const cl_command_buffer_properties_khr,
    errcode_ret: *mut cl_int,
) -> cl_command_buffer_khr {
    cl_create(errcode_ret, || {
        // SAFETY: API contract on queues.
        let q = unsafe { one_queue(num_queues, queues) }?;
        // CL_INVALID_VALUE if values specified in properties are not valid, or the same
        // property name is specified more than once.
        // SAFETY: NULL or zero-terminated pairs (API contract).
        let (pairs, list) = unsafe {
            property_list(
                properties,
                &[
                    CL_COMMAND_BUFFER_FLAGS_KHR,
                    mutable::COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS,
                ],
            )
        }?;
        let (mut flags, mut asserts) = (None, None);
        for (name, value) in pairs {
            match name {
                CL_COMMAND_BUFFER_FLAGS_KHR => flags = Some(value),
                mutable::COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS => asserts = Some(value),
                _ => return Err(ClError(CL_INVALID_VALUE)),
            }
        }
        let flags = flags.unwrap_or(0);
        // CL_INVALID_VALUE for flags no extension defines; CL_INVALID_PROPERTY if values
        // specified in properties are valid but are not supported by all the devices
        // associated with command-queues in queues (device-side sync, of
        // cl_khr_command_buffer_multi_device).
        check(flags & !KNOWN_FLAGS == 0, CL_INVALID_VALUE)?;
        check(flags & !SUPPORTED_FLAGS == 0, CL_INVALID_PROPERTY)?;
        check(
            asserts.unwrap_or(0) & !mutable::ASSERTS == 0,
            CL_INVALID_PROPERTY,
        )?;
        // CL_INCOMPATIBLE_COMMAND_QUEUE_KHR if the properties of any command-queue in
        // queues does not contain the minimum properties specified by
        // CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR (none), or contains a
        // property not in CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR.
        check(
            q.properties.api_bits & !SUPPORTED_QUEUE_PROPERTIES == 0,
            CL_INCOMPATIBLE_COMMAND_QUEUE_KHR,
        )?;
        Ok(handle::new_handle(CommandBuffer::new(q, flags, list)))
    })
}

pub unsafe extern "C" fn finalize_command_buffer(command_buffer: cl_command_buffer_khr) -> cl_int {
    cl_call(|| {
        // CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid command-buffer.
        let cb = get::<CommandBuffer>(command_buffer)?;
        // CL_INVALID_OPERATION if command_buffer is not in the recording state.
        cb.finalize().map_err(|_| ClError(CL_INVALID_OPERATION))
    })
}

pub unsafe extern "C" fn retain_command_buffer(command_buffer: cl_command_buffer_khr) -> cl_int {
    cl_call(|| handle::retain::<CommandBuffer>(command_buffer))
}

pub unsafe extern "C" fn release_command_buffer(command_buffer: cl_command_buffer_khr) -> cl_int {
    cl_call(|| {
        let cb = get::<CommandBuffer>(command_buffer)?;
        handle::release::<CommandBuffer>(command_buffer)?;
        // Released for good: its mutable commands' handles go with it.
        if cb.api.ref_count() == 0 {
            mutable::forget_handles(&cb);
        }
        Ok(())
    })
}

pub unsafe extern "C" fn enqueue_command_buffer(
    num_queues: cl_uint,
    queues: *mut cl_command_queue,
    command_buffer: cl_command_buffer_khr,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid command-buffer.
        let cb = get::<CommandBuffer>(command_buffer)?;
        // CL_INVALID_VALUE if queues is NULL and num_queues is > 0, or queues is not NULL
        // and num_queues is 0, or num_queues is > 0 and not the same value as the number
        // of queues set on command_buffer creation.
        check(queues.is_null() == (num_queues == 0), CL_INVALID_VALUE)?;
        check(num_queues <= 1, CL_INVALID_VALUE)?;
        let q = if num_queues == 0 {
            cb.queue.clone()
        } else {
            // CL_INVALID_COMMAND_QUEUE if any element of queues is not a valid
            // command-queue.
            // SAFETY: one handle (API contract).
            let q = get::<Queue>(unsafe { *queues })?;
            // CL_INVALID_CONTEXT if any element of queues does not have the same context
            // as the command-queue set on command_buffer creation at the same list index.
            check(Arc::ptr_eq(&q.context, &cb.context), CL_INVALID_CONTEXT)?;
            // CL_INCOMPATIBLE_COMMAND_QUEUE_KHR if any element of queues is not compatible
            // with the command-queue set on command_buffer creation at the same list
            // index: another device, or properties a command buffer cannot run with.
            // (In-order and out-of-order queues may stand for each other: the recorded
            // commands run in recording order, which every sync point allows.)
            let compatible = Arc::ptr_eq(&q.device, &cb.queue.device)
                && q.properties.api_bits & !SUPPORTED_QUEUE_PROPERTIES == 0;
            check(compatible, CL_INCOMPATIBLE_COMMAND_QUEUE_KHR)?;
            q
        };
        // CL_INVALID_OPERATION if command_buffer is not in the executable state: not
        // finalized, or a mutable launch still waits for its arguments.
        check(cb.is_executable(), CL_INVALID_OPERATION)?;
        // CL_INVALID_CONTEXT if the context of the queue and of the events in
        // event_wait_list are not the same; CL_INVALID_EVENT_WAIT_LIST.
        // SAFETY: API contract on the wait list.
        let wait = unsafe { wait_list(&q.context, num_events_in_wait_list, event_wait_list) }?;
        let e = cb.enqueue(&q, wait)?;
        // SAFETY: event is NULL or writable (API contract).
        unsafe { write_out(event, handle::new_handle(e)) };
        Ok(())
    })
}

pub unsafe extern "C" fn get_command_buffer_info(
    command_buffer: cl_command_buffer_khr,
    param_name: cl_command_buffer_info_khr,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid command-buffer.
        let cb = get::<CommandBuffer>(command_buffer)?;
        let v = match param_name {
            CL_COMMAND_BUFFER_QUEUES_KHR => info(&[handle::handle(&cb.queue)][..]),
            CL_COMMAND_BUFFER_NUM_QUEUES_KHR => info(&(1 as cl_uint)),
            CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR => info(&cb.api.ref_count()),
            CL_COMMAND_BUFFER_STATE_KHR => info(&if cb.is_executable() {
                CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR
            } else if cb.is_finalized() {
                // Finalized with a deferred argument (mutable dispatch 0.9.5).
                STATE_FINALIZED
            } else {
                CL_COMMAND_BUFFER_STATE_RECORDING_KHR
            }),
            CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR => info(&cb.properties[..]),
            CL_COMMAND_BUFFER_CONTEXT_KHR => info(&handle::handle(&cb.context)),
            // CL_INVALID_VALUE if param_name is not one of the supported values.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe { write_info(&v, param_value_size, param_value, param_value_size_ret) }
    })
}

/// What every `clCommand*KHR` call checks besides its command, in the specification's
/// order; returns the command buffer to record into.
///
/// # Safety
/// `properties` is NULL or zero-terminated; `sync_point_wait_list` is NULL or points to
/// `num_sync_points` sync points.
unsafe fn recording(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    num_sync_points: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
    launch: bool,
) -> ClResult<Arc<CommandBuffer>> {
    // CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid command-buffer.
    let cb = get::<CommandBuffer>(command_buffer)?;
    // CL_INVALID_COMMAND_QUEUE if command_queue is not NULL (one queue per buffer).
    check(command_queue.is_null(), CL_INVALID_COMMAND_QUEUE)?;
    // CL_INVALID_OPERATION if command_buffer has been finalized.
    check(!cb.is_finalized(), CL_INVALID_OPERATION)?;
    if !launch {
        // CL_INVALID_VALUE if values specified in properties are not valid (the base
        // extension defines none; a launch's are checked with it).
        // SAFETY: NULL or zero-terminated (per the caller).
        let empty = properties.is_null() || unsafe { *properties } == 0;
        check(empty, CL_INVALID_VALUE)?;
        // CL_INVALID_VALUE if mutable_handle is not NULL (only a launch is mutable).
        check(mutable_handle.is_null(), CL_INVALID_VALUE)?;
    }
    // CL_INVALID_SYNC_POINT_WAIT_LIST_KHR if sync_point_wait_list is NULL and
    // num_sync_points_in_wait_list is > 0, or sync_point_wait_list is not NULL and
    // num_sync_points_in_wait_list is 0, or if synchronization-point objects in
    // sync_point_wait_list are not valid synchronization-points.
    check(
        sync_point_wait_list.is_null() == (num_sync_points == 0),
        CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
    )?;
    // SAFETY: per the caller.
    let wait = unsafe { slice(sync_point_wait_list, num_sync_points as usize) };
    cb.check_sync_points(wait)
        .map_err(|_| ClError(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR))?;
    Ok(cb)
}

/// Record `op` and hand back its sync point.
///
/// # Safety
/// `sync_point` is NULL or writable.
unsafe fn record(cb: &CommandBuffer, op: Op, sync_point: *mut cl_sync_point_khr) -> ClResult<()> {
    // CL_INVALID_OPERATION if command_buffer has been finalized (since the check above).
    let (_, point) = cb.record(op).map_err(|_| ClError(CL_INVALID_OPERATION))?;
    // SAFETY: per the caller.
    unsafe { write_out(sync_point, point) };
    Ok(())
}

/// The body of a `clCommand*KHR` entry point: the common checks, then `build` makes the
/// command for the buffer's queue, which is recorded.
///
/// # Safety
/// The pointers follow the entry point's API contract.
#[expect(
    clippy::too_many_arguments,
    reason = "the parameters every clCommand*KHR entry point shares, and its command"
)]
unsafe fn command(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    num_sync_points: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
    build: impl FnOnce(&Arc<Queue>) -> ClResult<Op>,
) -> cl_int {
    cl_call(|| {
        // SAFETY: per the caller.
        let cb = unsafe {
            recording(
                command_buffer,
                command_queue,
                properties,
                num_sync_points,
                sync_point_wait_list,
                mutable_handle,
                false,
            )
        }?;
        let op = build(&cb.queue)?;
        // SAFETY: per the caller.
        unsafe { record(&cb, op, sync_point) }
    })
}

/// A `clCommand*KHR` entry point: the parameters every one has (command buffer, queue,
/// properties; sync-point list, sync point, mutable handle) around its own, and the body
/// [`command`] runs to build its op for the buffer's queue `$q`.
macro_rules! recorded_command {
    ($(#[$doc:meta])* $name:ident($($p:ident: $t:ty),* $(,)?), |$q:ident| $build:expr) => {
        $(#[$doc])*
        pub unsafe extern "C" fn $name(
            command_buffer: cl_command_buffer_khr,
            command_queue: cl_command_queue,
            properties: *const cl_command_properties_khr,
            $($p: $t,)*
            num_sync_points_in_wait_list: cl_uint,
            sync_point_wait_list: *const cl_sync_point_khr,
            sync_point: *mut cl_sync_point_khr,
            mutable_handle: *mut cl_mutable_command_khr,
        ) -> cl_int {
            // SAFETY: the pointers follow the API contract.
            unsafe {
                command(
                    command_buffer,
                    command_queue,
                    properties,
                    num_sync_points_in_wait_list,
                    sync_point_wait_list,
                    sync_point,
                    mutable_handle,
                    |$q: &Arc<Queue>| $build,
                )
            }
        }
    };
}

recorded_command!(
    /// Recorded commands run in order: every command already waits for those before it,
    /// which is what a barrier asks.
    command_barrier_with_wait_list(),
    |_q| Ok(Op::Nothing)
);

recorded_command!(
    command_copy_buffer(
        src_buffer: cl_mem,
        dst_buffer: cl_mem,
        src_offset: usize,
        dst_offset: usize,
        size: usize,
    ),
    |q| copy_buffer_op(q, src_buffer, dst_buffer, src_offset, dst_offset, size)
);

recorded_command!(
    command_copy_buffer_rect(
        src_buffer: cl_mem,
        dst_buffer: cl_mem,
        src_origin: *const usize,
        dst_origin: *const usize,
        region: *const usize,
        src_row_pitch: usize,
        src_slice_pitch: usize,
        dst_row_pitch: usize,
        dst_slice_pitch: usize,
    ),
    |q| {
        let pitches = [src_row_pitch, src_slice_pitch, dst_row_pitch, dst_slice_pitch];
        copy_buffer_rect_op(q, src_buffer, dst_buffer, src_origin, dst_origin, region, pitches)
    }
);

recorded_command!(
    command_copy_buffer_to_image(
        src_buffer: cl_mem,
        dst_image: cl_mem,
        src_offset: usize,
        dst_origin: *const usize,
        region: *const usize,
    ),
    |q| copy_buffer_to_image_op(q, src_buffer, dst_image, src_offset, dst_origin, region)
);

recorded_command!(
    command_copy_image(
        src_image: cl_mem,
        dst_image: cl_mem,
        src_origin: *const usize,
        dst_origin: *const usize,
        region: *const usize,
    ),
    |q| copy_image_op(q, src_image, dst_image, src_origin, dst_origin, region)
);

recorded_command!(
    command_copy_image_to_buffer(
        src_image: cl_mem,
        dst_buffer: cl_mem,
        src_origin: *const usize,
        region: *const usize,
        dst_offset: usize,
    ),
    |q| copy_image_to_buffer_op(q, src_image, dst_buffer, src_origin, region, dst_offset)
);

recorded_command!(
    command_fill_buffer(
        buffer: cl_mem,
        pattern: *const c_void,
        pattern_size: usize,
        offset: usize,
        size: usize,
    ),
    |q| fill_buffer_op(q, buffer, pattern, pattern_size, offset, size)
);

recorded_command!(
    command_fill_image(
        image: cl_mem,
        fill_color: *const c_void,
        origin: *const usize,
        region: *const usize,
    ),
    |q| fill_image_op(q, image, fill_color, origin, region)
);

recorded_command!(
    command_svm_memcpy(dst_ptr: *mut c_void, src_ptr: *const c_void, size: usize),
    |_q| memcpy_op(dst_ptr, src_ptr, size)
);

recorded_command!(
    command_svm_mem_fill(
        svm_ptr: *mut c_void,
        pattern: *const c_void,
        pattern_size: usize,
        size: usize,
    ),
    |_q| fill_op(svm_ptr, pattern, pattern_size, size)
);

pub unsafe extern "C" fn command_nd_range_kernel(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    cl_call(|| {
        // SAFETY: the pointers follow the API contract.
        let cb = unsafe {
            recording(
                command_buffer,
                command_queue,
                properties,
                num_sync_points_in_wait_list,
                sync_point_wait_list,
                mutable_handle,
                true,
            )
        }?;
        // CL_INVALID_VALUE if values specified in properties are not valid: the updatable
        // fields and assertions of a mutable launch.
        // SAFETY: NULL or zero-terminated (API contract).
        let (fields, list) = unsafe { mutable::launch_properties(properties) }?;
        // CL_INVALID_KERNEL if kernel is not a valid kernel object.
        let k = get::<Kernel>(kernel)?;
        // CL_INVALID_CONTEXT if the context associated with command_queue, command_buffer,
        // and kernel are not the same.
        check(
            Arc::ptr_eq(&cb.context, &k.program.context),
            CL_INVALID_CONTEXT,
        )?;
        // The errors of clEnqueueNDRangeKernel.
        // SAFETY: the arrays follow the API contract.
        let range = unsafe {
            nd_range(
                &k,
                work_dim,
                global_work_offset,
                global_work_size,
                local_work_size,
            )
        }?;
        // A mutable launch whose arguments may be updated may leave some unset: the
        // buffer is not executable until an update sets them.
        let deferred = !mutable_handle.is_null()
            && cb.flags & CL_COMMAND_BUFFER_MUTABLE_KHR != 0
            && fields & CL_MUTABLE_DISPATCH_ARGUMENTS_KHR != 0
            && !k.all_args_set();
        let op = if deferred {
            None
        } else {
            Some(launch_op(&k, range)?)
        };
        // A mutable launch keeps its own copy of the arguments as they are now.
        let args = (!mutable_handle.is_null()).then(|| k.duplicate());
        let recorded = match op {
            Some(op) => cb.record(op),
            None => cb.record_incomplete(),
        };
        let (index, point) = recorded.map_err(|_| ClError(CL_INVALID_OPERATION))?;
        // SAFETY: sync_point is NULL or writable (API contract).
        unsafe { write_out(sync_point, point) };
        if let Some(args) = args {
            let held = args.arg_buffers();
            let state = LaunchState {
                args,
                range,
                local_given: !local_work_size.is_null(),
                held,
            };
            let h = mutable::make_handle(&cb, index, k, fields, list, state);
            // SAFETY: non-NULL and writable (API contract).
            unsafe { *mutable_handle = h };
        }
        Ok(())
    })
}

/// `f` as the extension's function-pointer typedef `$t` (an `Option` of the header's
/// signature), so each entry of [`function`] is checked against the header.
macro_rules! typed {
    ($t:ty, $f:expr) => {{
        let f: $t = Some($f);
        f.map_or(std::ptr::null(), |f| f as *const ())
    }};
}

/// The extension's functions by name, for `clGetExtensionFunctionAddress*`.
pub fn function(name: &[u8]) -> Option<*const ()> {
    Some(match name {
        b"clCreateCommandBufferKHR" => {
            typed!(clCreateCommandBufferKHR_t, create_command_buffer)
        }
        b"clFinalizeCommandBufferKHR" => {
            typed!(clFinalizeCommandBufferKHR_t, finalize_command_buffer)
        }
        b"clRetainCommandBufferKHR" => typed!(clRetainCommandBufferKHR_t, retain_command_buffer),
        b"clReleaseCommandBufferKHR" => {
            typed!(clReleaseCommandBufferKHR_t, release_command_buffer)
        }
        b"clEnqueueCommandBufferKHR" => {
            typed!(clEnqueueCommandBufferKHR_t, enqueue_command_buffer)
        }
        b"clCommandBarrierWithWaitListKHR" => typed!(
            clCommandBarrierWithWaitListKHR_t,
            command_barrier_with_wait_list
        ),
        b"clCommandCopyBufferKHR" => typed!(clCommandCopyBufferKHR_t, command_copy_buffer),
        b"clCommandCopyBufferRectKHR" => {
            typed!(clCommandCopyBufferRectKHR_t, command_copy_buffer_rect)
        }
        b"clCommandCopyBufferToImageKHR" => {
            typed!(
                clCommandCopyBufferToImageKHR_t,
                command_copy_buffer_to_image
            )
        }
        b"clCommandCopyImageKHR" => typed!(clCommandCopyImageKHR_t, command_copy_image),
        b"clCommandCopyImageToBufferKHR" => {
            typed!(
                clCommandCopyImageToBufferKHR_t,
                command_copy_image_to_buffer
            )
        }
        b"clCommandFillBufferKHR" => typed!(clCommandFillBufferKHR_t, command_fill_buffer),
        b"clCommandFillImageKHR" => typed!(clCommandFillImageKHR_t, command_fill_image),
        b"clCommandNDRangeKernelKHR" => {
            typed!(clCommandNDRangeKernelKHR_t, command_nd_range_kernel)
        }
        b"clCommandSVMMemcpyKHR" => typed!(clCommandSVMMemcpyKHR_t, command_svm_memcpy),
        b"clCommandSVMMemFillKHR" => typed!(clCommandSVMMemFillKHR_t, command_svm_mem_fill),
        b"clGetCommandBufferInfoKHR" => {
            typed!(clGetCommandBufferInfoKHR_t, get_command_buffer_info)
        }
        b"clUpdateMutableCommandsKHR" => {
            typed!(
                clUpdateMutableCommandsKHR_t,
                mutable::update_mutable_commands
            )
        }
        b"clGetMutableCommandInfoKHR" => {
            typed!(
                clGetMutableCommandInfoKHR_t,
                mutable::get_mutable_command_info
            )
        }
        _ => return None,
    })
}
