//! `clEnqueueReadBufferRect`, `clEnqueueWriteBufferRect`, `clEnqueueCopyBufferRect`: the
//! pitch rules and errors here, the geometry and copies in `runtime/src/mem/rect.rs`.

use super::super::{check, slice};
use super::{buffer_of, enqueue_with};
use crate::error::{ClError, ClResult};
use ferrite_runtime::command::Op;
use ferrite_runtime::event::CommandType;
use ferrite_runtime::mem::rect::RectOp;
use ferrite_runtime::mem::rect::{self, Rect};
use ferrite_runtime::mem::Mem;
use ferrite_runtime::queue::Queue;
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

/// A 3-element `size_t` array of the API, or `CL_INVALID_VALUE` when NULL.
///
/// # Safety
/// `p` is NULL or points to 3 `size_t`s.
unsafe fn triple(p: *const usize) -> ClResult<[usize; 3]> {
    check(!p.is_null(), CL_INVALID_VALUE)?;
    // SAFETY: per the caller.
    let s = unsafe { slice(p, 3) };
    Ok([s[0], s[1], s[2]])
}

/// One side of a transfer with the rules every rect command shares.
fn side(
    origin: [usize; 3],
    region: [usize; 3],
    row_pitch: usize,
    slice_pitch: usize,
) -> ClResult<Rect> {
    // CL_INVALID_VALUE if any region array element is 0.
    // CL_INVALID_VALUE if buffer_row_pitch is not 0 and is less than region[0].
    // CL_INVALID_VALUE if buffer_slice_pitch is not 0 and is less than region[1] ×
    // buffer_row_pitch and not a multiple of buffer_row_pitch. (Read as "or": a smaller
    // slice pitch would make slices overlap.) The same rules hold for the host pitches.
    Rect::new(origin, region, row_pitch, slice_pitch).map_err(|_| ClError(CL_INVALID_VALUE))
}

/// The buffer side: inside the buffer.
fn buffer_side(
    m: &Mem,
    origin: [usize; 3],
    region: [usize; 3],
    row_pitch: usize,
    slice_pitch: usize,
) -> ClResult<Rect> {
    let r = side(origin, region, row_pitch, slice_pitch)?;
    // CL_INVALID_VALUE if the region being read or written specified by (buffer_origin,
    // region, buffer_row_pitch, buffer_slice_pitch) is out of bounds.
    check(r.fits(m.size), CL_INVALID_VALUE)?;
    Ok(r)
}

/// Read or write between a buffer rectangle and host memory.
///
/// # Safety
/// The pointers follow `clEnqueueReadBufferRect`'s contract.
#[allow(clippy::too_many_arguments)] // The API's own parameter list.
unsafe fn host_rect(
    q: &Queue,
    read: bool,
    buffer: cl_mem,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    pitches: [usize; 4],
    ptr: *mut c_void,
) -> ClResult<Op> {
    let [buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch] = pitches;
    // CL_INVALID_CONTEXT if the context associated with command_queue and buffer are not
    // the same. CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object.
    let m = buffer_of(q, buffer)?;
    // CL_INVALID_VALUE if buffer_origin, host_origin, or region is NULL.
    // SAFETY: each is NULL or 3 size_t (API contract).
    let (bo, ho, reg) = unsafe {
        (
            triple(buffer_origin)?,
            triple(host_origin)?,
            triple(region)?,
        )
    };
    let brect = buffer_side(&m, bo, reg, buffer_row_pitch, buffer_slice_pitch)?;
    let hrect = side(ho, reg, host_row_pitch, host_slice_pitch)?;
    // CL_INVALID_VALUE if ptr is NULL.
    check(!ptr.is_null(), CL_INVALID_VALUE)?;
    host_op(read, m, brect, ptr, hrect)
}

/// A read (`read`) or write between the rectangle `rect` of `mem` and the rectangle
/// `host_rect` of host memory at `ptr` (checked non-NULL), after the host-access checks:
/// the tail of the buffer-rect and image read and write commands.
pub(in crate::cl) fn host_op(
    read: bool,
    mem: Arc<Mem>,
    rect: Rect,
    ptr: *mut c_void,
    host_rect: Rect,
) -> ClResult<Op> {
    let host = ptr as usize;
    Ok(Op::Rect(if read {
        // CL_INVALID_OPERATION if clEnqueueRead{Buffer,}Rect/clEnqueueReadImage is called
        // on an object created with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS.
        check(mem.flags.host_read, CL_INVALID_OPERATION)?;
        RectOp::Read {
            mem,
            rect,
            host,
            host_rect,
        }
    } else {
        // CL_INVALID_OPERATION if clEnqueueWrite{Buffer,}Rect/clEnqueueWriteImage is called
        // on an object created with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS.
        check(mem.flags.host_write, CL_INVALID_OPERATION)?;
        RectOp::Write {
            mem,
            rect,
            host,
            host_rect,
        }
    }))
}

pub unsafe extern "C" fn enqueue_read_buffer_rect(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_read: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: the application keeps ptr valid for the host rectangle until the command
    // completes; the pointers follow the API contract.
    unsafe {
        enqueue_with(
            command_queue,
            CommandType::ReadBufferRect,
            num_events_in_wait_list,
            event_wait_list,
            event,
            blocking_read != CL_FALSE,
            |q| {
                host_rect(
                    q,
                    true,
                    buffer,
                    buffer_origin,
                    host_origin,
                    region,
                    [
                        buffer_row_pitch,
                        buffer_slice_pitch,
                        host_row_pitch,
                        host_slice_pitch,
                    ],
                    ptr,
                )
            },
        )
    }
}

pub unsafe extern "C" fn enqueue_write_buffer_rect(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_write: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: the application keeps ptr valid for the host rectangle until the command
    // completes; the pointers follow the API contract.
    unsafe {
        enqueue_with(
            command_queue,
            CommandType::WriteBufferRect,
            num_events_in_wait_list,
            event_wait_list,
            event,
            blocking_write != CL_FALSE,
            |q| {
                host_rect(
                    q,
                    false,
                    buffer,
                    buffer_origin,
                    host_origin,
                    region,
                    [
                        buffer_row_pitch,
                        buffer_slice_pitch,
                        host_row_pitch,
                        host_slice_pitch,
                    ],
                    ptr as *mut c_void,
                )
            },
        )
    }
}

pub unsafe extern "C" fn enqueue_copy_buffer_rect(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    src_row_pitch: usize,
    src_slice_pitch: usize,
    dst_row_pitch: usize,
    dst_slice_pitch: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: the op holds no address; the pointers follow the API contract.
    unsafe {
        enqueue_with(
            command_queue,
            CommandType::CopyBufferRect,
            num_events_in_wait_list,
            event_wait_list,
            event,
            false,
            |q| {
                copy_buffer_rect_op(
                    q,
                    src_buffer,
                    dst_buffer,
                    src_origin,
                    dst_origin,
                    region,
                    [
                        src_row_pitch,
                        src_slice_pitch,
                        dst_row_pitch,
                        dst_slice_pitch,
                    ],
                )
            },
        )
    }
}

/// The command of `clEnqueueCopyBufferRect` (and `clCommandCopyBufferRectKHR`) for a
/// queue `q`, checked; `pitches` are the source's row and slice pitch, then the
/// destination's.
///
/// # Safety
/// The three arrays are NULL or point to 3 `size_t`s.
pub(in crate::cl) unsafe fn copy_buffer_rect_op(
    q: &Queue,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    pitches: [usize; 4],
) -> ClResult<Op> {
    let [src_row_pitch, src_slice_pitch, dst_row_pitch, dst_slice_pitch] = pitches;
    // CL_INVALID_CONTEXT if the context associated with command_queue, src_buffer and
    // dst_buffer are not the same. CL_INVALID_MEM_OBJECT if src_buffer and dst_buffer
    // are not valid buffer objects.
    let src = buffer_of(q, src_buffer)?;
    let dst = buffer_of(q, dst_buffer)?;
    // CL_INVALID_VALUE if src_origin, dst_origin, or region is NULL.
    // SAFETY: each is NULL or 3 size_t (per the caller).
    let (so, dso, reg) = unsafe { (triple(src_origin)?, triple(dst_origin)?, triple(region)?) };
    // CL_INVALID_VALUE if (src_origin, region, src_row_pitch, src_slice_pitch) or
    // (dst_origin, region, dst_row_pitch, dst_slice_pitch) require accessing elements
    // outside the src_buffer and dst_buffer buffer objects respectively; the pitch
    // rules as for the read and write commands.
    let srect = buffer_side(&src, so, reg, src_row_pitch, src_slice_pitch)?;
    let drect = buffer_side(&dst, dso, reg, dst_row_pitch, dst_slice_pitch)?;
    let same = std::ptr::eq(&*src, &*dst);
    if same {
        // CL_INVALID_VALUE if src_buffer and dst_buffer are the same buffer object and
        // src_slice_pitch is not equal to dst_slice_pitch and src_row_pitch is not
        // equal to dst_row_pitch.
        check(
            srect.slice_pitch == drect.slice_pitch || srect.row_pitch == drect.row_pitch,
            CL_INVALID_VALUE,
        )?;
    }
    // CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer or
    // sub-buffer object and the source and destination regions overlap or if
    // src_buffer and dst_buffer are different sub-buffers of the same associated
    // buffer object and they overlap.
    let (sroot, sbase, _) = src.root_range();
    let (droot, dbase, _) = dst.root_range();
    if sroot == droot {
        check(
            !rect::overlap(&srect, sbase, &drect, dbase),
            CL_MEM_COPY_OVERLAP,
        )?;
    }
    Ok(Op::Rect(RectOp::Copy {
        src,
        src_rect: srect,
        dst,
        dst_rect: drect,
    }))
}
