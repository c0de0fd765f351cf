//! `clEnqueue*` entry points: buffer transfers, maps, markers/barriers and kernels; image
//! commands are in [`image`].
//!
//! Every enqueue validates its arguments here (spec order where it matters), builds a
//! closure that owns everything the command needs (`Arc`s of buffers, a snapshot of kernel
//! arguments, host pointers as addresses), and hands it to the queue's scheduler. Every
//! command gets a real event; blocking calls wait for it. Rectangular transfers are in
//! [`rect`], native kernels in [`native`].

mod image;
mod native;
mod rect;

pub(super) use image::{
    copy_buffer_to_image_op, copy_image_op, copy_image_to_buffer_op, fill_image_op,
};
pub use image::{
    enqueue_copy_buffer_to_image, enqueue_copy_image, enqueue_copy_image_to_buffer,
    enqueue_fill_image, enqueue_map_image, enqueue_read_image, enqueue_write_image,
};
pub use native::enqueue_native_kernel;
pub(super) use rect::copy_buffer_rect_op;
pub use rect::{enqueue_copy_buffer_rect, enqueue_read_buffer_rect, enqueue_write_buffer_rect};

use super::event::wait_list;
use super::handle::{self, get};
use super::{check, cl_call, cl_create, slice};
use crate::error::{ClError, ClResult};
use ferrite_runtime::command::geometry::{self, KernelLimits};
use ferrite_runtime::command::Op;
use ferrite_runtime::event::{CommandType, Event, Status};
use ferrite_runtime::executor::NdRange;
use ferrite_runtime::kernel::Kernel;
use ferrite_runtime::mem::{Mem, MemType};
use ferrite_runtime::queue::{CommandSync, Queue, Work};
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

/// Enqueue `work`, return its event through `event` and wait if `blocking`.
///
/// # Safety
/// `event` is NULL or valid for a write.
pub(super) unsafe fn submit(
    q: &Arc<Queue>,
    command_type: CommandType,
    wait: Vec<Arc<Event>>,
    work: Work,
    event: *mut cl_event,
    blocking: bool,
) -> ClResult<()> {
    // SAFETY: per the caller.
    unsafe {
        submit_sync(
            q,
            command_type,
            CommandSync::Command,
            wait,
            work,
            event,
            blocking,
        )
    }
}

/// The body of a `clEnqueue*` whose command is data: the queue, the command `build` makes
/// for it (with its checks), the wait list, then the submission.
///
/// # Safety
/// The wait list and `event` follow the API contract; the addresses the op holds stay
/// valid until the command completes (the application's promise).
pub(super) unsafe fn enqueue_with(
    command_queue: cl_command_queue,
    command_type: CommandType,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
    blocking: bool,
    build: impl FnOnce(&Arc<Queue>) -> ClResult<Op>,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue.
        let q = get::<Queue>(command_queue)?;
        let op = build(&q)?;
        // SAFETY: per the caller.
        let wait = unsafe { wait_list(&q.context, num_events_in_wait_list, event_wait_list) }?;
        // SAFETY: per the caller.
        unsafe { submit_op(&q, command_type, wait, op, event, blocking) }
    })
}

/// [`submit`] a command given as data; it runs on the queue's device.
///
/// # Safety
/// `event` is NULL or valid for a write; the addresses `op` holds stay valid until the
/// command completes (the application's promise when it enqueued the command).
pub(super) unsafe fn submit_op(
    q: &Arc<Queue>,
    command_type: CommandType,
    wait: Vec<Arc<Event>>,
    op: Op,
    event: *mut cl_event,
    blocking: bool,
) -> ClResult<()> {
    // SAFETY: per the caller.
    unsafe { submit(q, command_type, wait, op.into_work(q), event, blocking) }
}

/// [`submit`] a command with next to nothing to do (a zero-copy map or unmap): when it need
/// not wait it completes on the calling thread, blocking or not.
///
/// # Safety
/// `event` is NULL or valid for a write.
pub(super) unsafe fn submit_light(
    q: &Arc<Queue>,
    command_type: CommandType,
    wait: Vec<Arc<Event>>,
    work: Work,
    event: *mut cl_event,
    blocking: bool,
) -> ClResult<()> {
    let e = q.enqueue_inline(command_type, CommandSync::Command, wait, work)?;
    // SAFETY: per the caller.
    unsafe { finish_submit(e, event, blocking) }
}

/// [`submit`] with the command's synchronisation (markers, barriers).
///
/// # Safety
/// `event` is NULL or valid for a write.
unsafe fn submit_sync(
    q: &Arc<Queue>,
    command_type: CommandType,
    sync: CommandSync,
    wait: Vec<Arc<Event>>,
    work: Work,
    event: *mut cl_event,
    blocking: bool,
) -> ClResult<()> {
    // A blocking command runs on the calling thread when it need not wait: its caller
    // waits anyway, and a hand-over to a worker would only add latency.
    let e = if blocking {
        q.enqueue_inline(command_type, sync, wait, work)?
    } else {
        q.enqueue_sync(command_type, sync, wait, work)?
    };
    // SAFETY: per the caller.
    unsafe { finish_submit(e, event, blocking) }
}

/// Hand the command's event to the application and wait for it if `blocking`.
///
/// # Safety
/// `event` is NULL or valid for a write.
unsafe fn finish_submit(e: Arc<Event>, event: *mut cl_event, blocking: bool) -> ClResult<()> {
    if !event.is_null() {
        // SAFETY: per the caller.
        unsafe { *event = handle::new_handle(e.clone()) };
    }
    if blocking {
        // CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the operation is blocking and
        // the execution status of any of the events in event_wait_list is a negative
        // integer value.
        if let Status::Failed(_) = e.wait() {
            return Err(ClError(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST));
        }
    }
    Ok(())
}

/// A buffer used by a command on `q`.
fn buffer_of(q: &Queue, mem: cl_mem) -> ClResult<Arc<Mem>> {
    // CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object.
    let m = get::<Mem>(mem)?;
    check(m.mem_type == MemType::Buffer, CL_INVALID_MEM_OBJECT)?;
    // CL_INVALID_CONTEXT if the context associated with command_queue and buffer are not
    // the same.
    check(Arc::ptr_eq(&m.context, &q.context), CL_INVALID_CONTEXT)?;
    Ok(m)
}

/// `(offset, size)` must lie inside the buffer and size must not be 0.
fn check_region(m: &Mem, offset: usize, size: usize) -> ClResult<()> {
    // CL_INVALID_VALUE if the region being read or written specified by (offset, size)
    // is out of bounds or if size is 0.
    check(size > 0, CL_INVALID_VALUE)?;
    m.check_range(offset, size)
        .map_err(|_| ClError(CL_INVALID_VALUE))
}

fn no_op() -> Work {
    Box::new(|| Ok(()))
}

pub unsafe extern "C" fn enqueue_read_buffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_read: cl_bool,
    offset: usize,
    size: usize,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: the application keeps ptr valid for size bytes until the command completes;
    // the wait list and event follow the API contract.
    unsafe {
        enqueue_with(
            command_queue,
            CommandType::ReadBuffer,
            num_events_in_wait_list,
            event_wait_list,
            event,
            blocking_read != CL_FALSE,
            |q| transfer_op(q, buffer, offset, size, ptr, true),
        )
    }
}

pub unsafe extern "C" fn enqueue_write_buffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_write: cl_bool,
    offset: usize,
    size: usize,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: as for clEnqueueReadBuffer, with reads of ptr.
    unsafe {
        enqueue_with(
            command_queue,
            CommandType::WriteBuffer,
            num_events_in_wait_list,
            event_wait_list,
            event,
            blocking_write != CL_FALSE,
            |q| transfer_op(q, buffer, offset, size, ptr as *mut c_void, false),
        )
    }
}

/// The command of `clEnqueueReadBuffer` (`read`) or `clEnqueueWriteBuffer`, checked.
fn transfer_op(
    q: &Queue,
    buffer: cl_mem,
    offset: usize,
    size: usize,
    ptr: *mut c_void,
    read: bool,
) -> ClResult<Op> {
    let m = buffer_of(q, buffer)?;
    // CL_INVALID_VALUE if the region being read or written specified by (offset, size) is
    // out of bounds or if ptr is a NULL value.
    check_region(&m, offset, size)?;
    check(!ptr.is_null(), CL_INVALID_VALUE)?;
    let (mem, host) = (m, ptr as usize);
    Ok(if read {
        // CL_INVALID_OPERATION if clEnqueueReadBuffer is called on buffer which has been
        // created with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS.
        check(mem.flags.host_read, CL_INVALID_OPERATION)?;
        Op::Read {
            mem,
            offset,
            host,
            size,
        }
    } else {
        // CL_INVALID_OPERATION if clEnqueueWriteBuffer is called on buffer which has been
        // created with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS.
        check(mem.flags.host_write, CL_INVALID_OPERATION)?;
        Op::Write {
            mem,
            offset,
            host,
            size,
        }
    })
}

pub unsafe extern "C" fn enqueue_copy_buffer(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: the op holds no address; the wait list and event follow the API contract.
    unsafe {
        enqueue_with(
            command_queue,
            CommandType::CopyBuffer,
            num_events_in_wait_list,
            event_wait_list,
            event,
            false,
            |q| copy_buffer_op(q, src_buffer, dst_buffer, src_offset, dst_offset, size),
        )
    }
}

/// The command of `clEnqueueCopyBuffer` (and `clCommandCopyBufferKHR`) for a queue `q`,
/// checked.
pub(super) fn copy_buffer_op(
    q: &Queue,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
) -> ClResult<Op> {
    let src = buffer_of(q, src_buffer)?;
    let dst = buffer_of(q, dst_buffer)?;
    // CL_INVALID_VALUE if src_offset, dst_offset, size, src_offset + size or
    // dst_offset + size require accessing elements outside the src_buffer and
    // dst_buffer buffer objects respectively; if size is 0.
    check_region(&src, src_offset, size)?;
    check_region(&dst, dst_offset, size)?;
    // CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer or
    // sub-buffer object and the source and destination regions overlap or if
    // src_buffer and dst_buffer are different sub-buffers of the same associated
    // buffer object and they overlap.
    check(
        !src.overlaps(src_offset, size, &dst, dst_offset, size),
        CL_MEM_COPY_OVERLAP,
    )?;
    Ok(Op::CopyBuffer {
        src,
        src_offset,
        dst,
        dst_offset,
        size,
    })
}

pub unsafe extern "C" fn enqueue_fill_buffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: the op holds no address (the pattern is copied); the pointers follow the
    // API contract.
    unsafe {
        enqueue_with(
            command_queue,
            CommandType::FillBuffer,
            num_events_in_wait_list,
            event_wait_list,
            event,
            false,
            |q| fill_buffer_op(q, buffer, pattern, pattern_size, offset, size),
        )
    }
}

/// The command of `clEnqueueFillBuffer` (and `clCommandFillBufferKHR`) for a queue `q`,
/// checked; the pattern is copied.
///
/// # Safety
/// `pattern` is NULL or points to `pattern_size` bytes.
pub(super) unsafe fn fill_buffer_op(
    q: &Queue,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
) -> ClResult<Op> {
    let m = buffer_of(q, buffer)?;
    // CL_INVALID_VALUE if offset or offset + size require accessing elements outside
    // the buffer object respectively.
    check_region(&m, offset, size)?;
    // CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or if pattern_size is
    // not one of { 1, 2, 4, 8, 16, 32, 64, 128 }.
    check(
        !pattern.is_null() && pattern_size.is_power_of_two() && pattern_size <= 128,
        CL_INVALID_VALUE,
    )?;
    // CL_INVALID_VALUE if offset and size are not a multiple of pattern_size.
    check(
        offset.is_multiple_of(pattern_size) && size.is_multiple_of(pattern_size),
        CL_INVALID_VALUE,
    )?;
    // The pattern is copied now: the application may reuse its memory at once.
    // SAFETY: pattern points to pattern_size bytes (per the caller).
    let pattern = unsafe { slice(pattern as *const u8, pattern_size) }.to_vec();
    Ok(Op::FillBuffer {
        mem: m,
        pattern,
        offset,
        size,
    })
}

pub unsafe extern "C" fn enqueue_map_buffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_map: cl_bool,
    map_flags: cl_map_flags,
    offset: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    cl_create(errcode_ret, || {
        let q = get::<Queue>(command_queue)?;
        let m = buffer_of(&q, buffer)?;
        // CL_INVALID_VALUE if region being mapped given by (offset, size) is out of bounds
        // or if size is 0 or if values specified in map_flags are not valid.
        check_region(&m, offset, size)?;
        let known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
        check(map_flags & !known == 0, CL_INVALID_VALUE)?;
        check(
            map_flags & CL_MAP_WRITE_INVALIDATE_REGION == 0
                || map_flags & (CL_MAP_READ | CL_MAP_WRITE) == 0,
            CL_INVALID_VALUE,
        )?;
        // SAFETY: API contract on the wait list.
        let wait = unsafe { wait_list(&q.context, num_events_in_wait_list, event_wait_list) }?;
        // CL_INVALID_OPERATION if buffer has been created with CL_MEM_HOST_WRITE_ONLY or
        // CL_MEM_HOST_NO_ACCESS and CL_MAP_READ is set in map_flags, or with
        // CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS and CL_MAP_WRITE or
        // CL_MAP_WRITE_INVALIDATE_REGION is set in map_flags.
        check(
            map_flags & CL_MAP_READ == 0 || m.flags.host_read,
            CL_INVALID_OPERATION,
        )?;
        check(
            map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) == 0 || m.flags.host_write,
            CL_INVALID_OPERATION,
        )?;
        // Zero-copy: the mapped pointer is the buffer's own memory.
        // SAFETY: offset + size <= m.size (checked above).
        let ptr = unsafe { m.base().add(offset) } as *mut c_void;
        m.add_map(ptr as usize);
        // SAFETY: event is NULL or writable (API contract).
        let r = unsafe {
            submit_light(
                &q,
                CommandType::MapBuffer,
                wait,
                no_op(),
                event,
                blocking_map != CL_FALSE,
            )
        };
        if let Err(e) = r {
            let _ = m.remove_map(ptr as usize);
            return Err(e);
        }
        Ok(ptr)
    })
}

pub unsafe extern "C" fn enqueue_unmap_mem_object(
    command_queue: cl_command_queue,
    memobj: cl_mem,
    mapped_ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    cl_call(|| {
        let q = get::<Queue>(command_queue)?;
        // CL_INVALID_MEM_OBJECT if memobj is not a valid memory object (buffer or image).
        let m = get::<Mem>(memobj)?;
        // CL_INVALID_CONTEXT if the context associated with command_queue and memobj are
        // not the same.
        check(Arc::ptr_eq(&m.context, &q.context), CL_INVALID_CONTEXT)?;
        // SAFETY: API contract on the wait list.
        let wait = unsafe { wait_list(&q.context, num_events_in_wait_list, event_wait_list) }?;
        // CL_INVALID_VALUE if mapped_ptr is not a valid pointer returned by
        // clEnqueueMapBuffer or clEnqueueMapImage for memobj.
        m.remove_map(mapped_ptr as usize)
            .map_err(|_| ClError(CL_INVALID_VALUE))?;
        // The map was zero-copy: nothing to write back.
        let work: Work = Box::new(move || {
            drop(m);
            Ok(())
        });
        // SAFETY: event is NULL or writable (API contract).
        unsafe { submit_light(&q, CommandType::UnmapMemObject, wait, work, event, false) }
    })
}

pub unsafe extern "C" fn enqueue_migrate_mem_objects(
    command_queue: cl_command_queue,
    num_mem_objects: cl_uint,
    mem_objects: *const cl_mem,
    flags: cl_mem_migration_flags,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    cl_call(|| {
        let q = get::<Queue>(command_queue)?;
        // CL_INVALID_VALUE if num_mem_objects is zero or if mem_objects is NULL or if flags
        // is not 0 or is not any of the values described in the table above.
        check(
            num_mem_objects > 0 && !mem_objects.is_null(),
            CL_INVALID_VALUE,
        )?;
        check(
            flags & !(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) == 0,
            CL_INVALID_VALUE,
        )?;
        // CL_INVALID_MEM_OBJECT if any of the memory objects in mem_objects is not a valid
        // memory object (a buffer or an image); CL_INVALID_CONTEXT if their context
        // differs from the queue's.
        // SAFETY: mem_objects points to num_mem_objects handles (API contract).
        for &h in unsafe { slice(mem_objects, num_mem_objects as usize) } {
            let m = get::<Mem>(h)?;
            check(Arc::ptr_eq(&m.context, &q.context), CL_INVALID_CONTEXT)?;
        }
        // SAFETY: API contract on the wait list.
        let wait = unsafe { wait_list(&q.context, num_events_in_wait_list, event_wait_list) }?;
        // One memory for host and device: migration is a no-op.
        // SAFETY: event is NULL or writable (API contract).
        unsafe {
            submit(
                &q,
                CommandType::MigrateMemObjects,
                wait,
                no_op(),
                event,
                false,
            )
        }
    })
}

pub unsafe extern "C" fn enqueue_marker_with_wait_list(
    command_queue: cl_command_queue,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue.
        let q = get::<Queue>(command_queue)?;
        // SAFETY: API contract on the wait list.
        let wait = unsafe { wait_list(&q.context, num_events_in_wait_list, event_wait_list) }?;
        // The marker waits for the events of its wait list, or, if the list is empty, for
        // every command enqueued before it.
        // SAFETY: event is NULL or writable (API contract).
        unsafe {
            submit_sync(
                &q,
                CommandType::Marker,
                CommandSync::Marker,
                wait,
                no_op(),
                event,
                false,
            )
        }
    })
}

pub unsafe extern "C" fn enqueue_barrier_with_wait_list(
    command_queue: cl_command_queue,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue.
        let q = get::<Queue>(command_queue)?;
        // SAFETY: API contract on the wait list.
        let wait = unsafe { wait_list(&q.context, num_events_in_wait_list, event_wait_list) }?;
        // The barrier waits for its wait list (or every earlier command) and every later
        // command waits for it.
        // SAFETY: event is NULL or writable (API contract).
        unsafe {
            submit_sync(
                &q,
                CommandType::Barrier,
                CommandSync::Barrier,
                wait,
                no_op(),
                event,
                false,
            )
        }
    })
}

pub unsafe extern "C" fn enqueue_marker(
    command_queue: cl_command_queue,
    event: *mut cl_event,
) -> cl_int {
    cl_call(|| {
        let q = get::<Queue>(command_queue)?;
        // CL_INVALID_VALUE if event is a NULL value.
        check(!event.is_null(), CL_INVALID_VALUE)?;
        // Waits for every command enqueued before it.
        // SAFETY: event is writable (API contract).
        unsafe {
            submit_sync(
                &q,
                CommandType::Marker,
                CommandSync::Marker,
                Vec::new(),
                no_op(),
                event,
                false,
            )
        }
    })
}

pub unsafe extern "C" fn enqueue_barrier(command_queue: cl_command_queue) -> cl_int {
    cl_call(|| {
        let q = get::<Queue>(command_queue)?;
        // SAFETY: a NULL event pointer.
        unsafe {
            submit_sync(
                &q,
                CommandType::Barrier,
                CommandSync::Barrier,
                Vec::new(),
                no_op(),
                std::ptr::null_mut(),
                false,
            )
        }
    })
}

pub unsafe extern "C" fn enqueue_wait_for_events(
    command_queue: cl_command_queue,
    num_events: cl_uint,
    event_list: *const cl_event,
) -> cl_int {
    cl_call(|| {
        let q = get::<Queue>(command_queue)?;
        // CL_INVALID_VALUE if num_events is 0 or event_list is NULL.
        check(num_events > 0 && !event_list.is_null(), CL_INVALID_VALUE)?;
        // CL_INVALID_EVENT if event objects specified in event_list are not valid events.
        // CL_INVALID_CONTEXT if the context associated with command_queue and events in
        // event_list are not the same.
        // SAFETY: event_list points to num_events handles (API contract).
        let wait =
            unsafe { wait_list(&q.context, num_events, event_list) }.map_err(|e| match e.0 {
                CL_INVALID_EVENT_WAIT_LIST => ClError(CL_INVALID_EVENT),
                _ => e,
            })?;
        // A synchronization point: later commands wait for these events.
        // SAFETY: a NULL event pointer.
        unsafe {
            submit_sync(
                &q,
                CommandType::Barrier,
                CommandSync::Barrier,
                wait,
                no_op(),
                std::ptr::null_mut(),
                false,
            )
        }
    })
}

/// Validate an NDRange for `kernel` and choose the local size
/// ([`geometry::nd_range`]: the rules, in the specification's order).
///
/// # Safety
/// The three pointers are NULL or point to `work_dim` `size_t`s.
pub(super) unsafe fn nd_range(
    kernel: &Kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
) -> ClResult<NdRange> {
    // CL_INVALID_WORK_DIMENSION before any array of work_dim values is read.
    check((1..=3).contains(&work_dim), CL_INVALID_WORK_DIMENSION)?;
    let dims = work_dim as usize;
    // SAFETY: per the caller (NULL gives an empty slice).
    let (offset, global, local) = unsafe {
        (
            slice(global_work_offset, dims),
            slice(global_work_size, dims),
            slice(local_work_size, dims),
        )
    };
    Ok(geometry::nd_range(
        &KernelLimits::of(kernel),
        work_dim,
        offset,
        global,
        local,
    )?)
}

/// The queue and kernel of a kernel command, checked: each valid, and of one context.
fn queue_and_kernel(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
) -> ClResult<(Arc<Queue>, Arc<Kernel>)> {
    // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue.
    let q = get::<Queue>(command_queue)?;
    // CL_INVALID_KERNEL if kernel is not a valid kernel object.
    let k = get::<Kernel>(kernel)?;
    // CL_INVALID_CONTEXT if context associated with command_queue and kernel are not the
    // same.
    check(
        Arc::ptr_eq(&q.context, &k.program.context),
        CL_INVALID_CONTEXT,
    )?;
    Ok((q, k))
}

/// Enqueue a kernel over an NDRange (shared by `clEnqueueNDRangeKernel`/`clEnqueueTask`).
///
/// # Safety
/// The pointers follow `clEnqueueNDRangeKernel`'s contract.
#[allow(clippy::too_many_arguments)] // The API's own parameter list.
unsafe fn enqueue_kernel(
    command_type: CommandType,
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> ClResult<()> {
    let (q, k) = queue_and_kernel(command_queue, kernel)?;
    // The geometry is checked before the arguments, as PoCL and Intel's CPU runtime do: a
    // work_dim of 0 with unset arguments is CL_INVALID_WORK_DIMENSION on every peer.
    // SAFETY: per the caller.
    let range = unsafe {
        nd_range(
            &k,
            work_dim,
            global_work_offset,
            global_work_size,
            local_work_size,
        )
    }?;
    // SAFETY: API contract on the wait list.
    let wait = unsafe { wait_list(&q.context, num_events_in_wait_list, event_wait_list) }?;
    let op = launch_op(&k, range)?;
    // SAFETY: a launch holds no host address; event is NULL or writable (API contract).
    unsafe { submit_op(&q, command_type, wait, op, event, false) }
}

/// A launch of `k` over `range` (checked by [`nd_range`]), its arguments snapshotted now:
/// later `clSetKernelArg` calls do not affect it.
pub(super) fn launch_op(k: &Kernel, range: NdRange) -> ClResult<Op> {
    // CL_INVALID_KERNEL_ARGS if the kernel argument values have not been specified.
    check(k.all_args_set(), CL_INVALID_KERNEL_ARGS)?;
    // CL_OUT_OF_RESOURCES if the local memory needed exceeds the device's.
    Ok(Op::Launch(Box::new(k.snapshot(range)?)))
}

/// `clGetKernelSuggestedLocalWorkSizeKHR` (`cl_khr_suggested_local_work_size`): the local
/// size `clEnqueueNDRangeKernel` would choose for a NULL `local_work_size`, after the same
/// checks.
///
/// # Safety
/// The pointers follow the extension's contract.
pub unsafe extern "C" fn get_kernel_suggested_local_work_size(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    suggested_local_work_size: *mut usize,
) -> cl_int {
    cl_call(|| {
        let (_, k) = queue_and_kernel(command_queue, kernel)?;
        // The geometry first, then the arguments, as clEnqueueNDRangeKernel.
        // CL_INVALID_WORK_DIMENSION if work_dim is not a valid value.
        check((1..=3).contains(&work_dim), CL_INVALID_WORK_DIMENSION)?;
        // CL_INVALID_GLOBAL_WORK_SIZE if global_work_size is NULL or if any of the values
        // specified in global_work_size are 0 (unlike an enqueue, which succeeds trivially).
        check(!global_work_size.is_null(), CL_INVALID_GLOBAL_WORK_SIZE)?;
        // SAFETY: global_work_size points to work_dim size_t values (API contract).
        let gws = unsafe { slice(global_work_size, work_dim as usize) };
        check(!gws.contains(&0), CL_INVALID_GLOBAL_WORK_SIZE)?;
        // CL_INVALID_VALUE if suggested_local_work_size is NULL.
        check(!suggested_local_work_size.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: per the caller; a NULL local size asks for the driver's choice.
        let range = unsafe {
            nd_range(
                &k,
                work_dim,
                global_work_offset,
                global_work_size,
                std::ptr::null(),
            )
        }?;
        // CL_INVALID_KERNEL_ARGS if all argument values for kernel have not been set.
        check(k.all_args_set(), CL_INVALID_KERNEL_ARGS)?;
        for d in 0..work_dim as usize {
            // SAFETY: suggested_local_work_size has room for work_dim values (API contract).
            unsafe { *suggested_local_work_size.add(d) = range.local_size[d] as usize };
        }
        Ok(())
    })
}

pub unsafe extern "C" fn enqueue_nd_range_kernel(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    cl_call(|| {
        // SAFETY: the application's pointers follow the API contract.
        unsafe {
            enqueue_kernel(
                CommandType::NdRangeKernel,
                command_queue,
                kernel,
                work_dim,
                global_work_offset,
                global_work_size,
                local_work_size,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

pub unsafe extern "C" fn enqueue_task(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    cl_call(|| {
        // Equivalent to clEnqueueNDRangeKernel with work_dim = 1, global_work_offset =
        // NULL, global_work_size[0] set to 1, and local_work_size[0] set to 1.
        let one = [1usize];
        // SAFETY: our own one-element arrays; the rest follows the API contract.
        unsafe {
            enqueue_kernel(
                CommandType::Task,
                command_queue,
                kernel,
                1,
                std::ptr::null(),
                one.as_ptr(),
                one.as_ptr(),
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}
