//! Image commands: `clEnqueue{Read,Write,Copy,Fill}Image`, `clEnqueueCopyImageToBuffer`,
//! `clEnqueueCopyBufferToImage`, `clEnqueueMapImage`. Each validates its arguments, builds
//! a runtime [`RectOp`] (plain data: memory objects and byte rectangles) and enqueues its
//! `execute`; maps are zero-copy like buffer maps and unmap through
//! `clEnqueueUnmapMemObject`.

use super::super::event::wait_list;
use super::super::handle::get;
use super::super::image::image_of;
use super::super::{check, cl_create, slice, write_out};
use super::rect::host_op;
use super::{buffer_of, enqueue_with, no_op, submit_light};
use crate::error::{ClError, ClResult};
use ferrite_runtime::command::Op;
use ferrite_runtime::event::CommandType;
use ferrite_runtime::mem::image::format::{self, Color};
use ferrite_runtime::mem::image::ops;
use ferrite_runtime::mem::image::{Image, ImageKind};
use ferrite_runtime::mem::rect::Rect;
use ferrite_runtime::mem::rect::RectOp;
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

/// An image used by a command on `q`.
fn image_on(q: &Queue, mem: cl_mem) -> ClResult<(Arc<Mem>, Image)> {
    // CL_INVALID_MEM_OBJECT if image is not a valid image object.
    let (m, i) = image_of(mem)?;
    // CL_INVALID_CONTEXT if the context associated with command_queue and image are not
    // the same.
    check(Arc::ptr_eq(&m.context, &q.context), CL_INVALID_CONTEXT)?;
    Ok((m, i))
}

/// The storage rectangle of (origin, region): `CL_INVALID_VALUE` if the region is out of
/// bounds, has a zero element, or uses a dimension the image does not have.
fn region_rect(i: &Image, origin: [usize; 3], region: [usize; 3]) -> ClResult<Rect> {
    i.rect(origin, region)
        .map_err(|_| ClError(CL_INVALID_VALUE))
}

/// Read or write between an image region and host memory.
///
/// # Safety
/// The pointers follow `clEnqueueReadImage`'s contract.
#[allow(clippy::too_many_arguments)] // The API's own parameter list.
unsafe fn host_transfer(
    q: &Queue,
    read: bool,
    image: cl_mem,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *mut c_void,
) -> ClResult<Op> {
    let (m, i) = image_on(q, image)?;
    // CL_INVALID_VALUE if origin or region is NULL, if the region being read or written
    // specified by origin and region is out of bounds, or if ptr is a NULL value.
    // SAFETY: NULL or 3 size_t each (API contract).
    let (o, r) = unsafe { (triple(origin)?, triple(region)?) };
    let rect = region_rect(&i, o, r)?;
    check(!ptr.is_null(), CL_INVALID_VALUE)?;
    // CL_INVALID_VALUE if image is a 1D or 2D image and slice_pitch is not 0; the pitch
    // rules of the host memory.
    let host_rect = i
        .host_rect(r, row_pitch, slice_pitch)
        .map_err(|_| ClError(CL_INVALID_VALUE))?;
    host_op(read, m, rect, ptr, host_rect)
}

pub unsafe extern "C" fn enqueue_read_image(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_read: cl_bool,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
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
            CommandType::ReadImage,
            num_events_in_wait_list,
            event_wait_list,
            event,
            blocking_read != CL_FALSE,
            |q| host_transfer(q, true, image, origin, region, row_pitch, slice_pitch, ptr),
        )
    }
}

pub unsafe extern "C" fn enqueue_write_image(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_write: cl_bool,
    origin: *const usize,
    region: *const usize,
    input_row_pitch: usize,
    input_slice_pitch: usize,
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
            CommandType::WriteImage,
            num_events_in_wait_list,
            event_wait_list,
            event,
            blocking_write != CL_FALSE,
            |q| {
                host_transfer(
                    q,
                    false,
                    image,
                    origin,
                    region,
                    input_row_pitch,
                    input_slice_pitch,
                    ptr as *mut c_void,
                )
            },
        )
    }
}

pub unsafe extern "C" fn enqueue_copy_image(
    command_queue: cl_command_queue,
    src_image: cl_mem,
    dst_image: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: the op holds no address; the pointers follow the API contract.
    unsafe {
        enqueue_with(
            command_queue,
            CommandType::CopyImage,
            num_events_in_wait_list,
            event_wait_list,
            event,
            false,
            |q| copy_image_op(q, src_image, dst_image, src_origin, dst_origin, region),
        )
    }
}

/// The command of `clEnqueueCopyImage` (and `clCommandCopyImageKHR`) for a queue `q`,
/// checked.
///
/// # Safety
/// The three arrays are NULL or point to 3 `size_t`s.
pub(in crate::cl) unsafe fn copy_image_op(
    q: &Queue,
    src_image: cl_mem,
    dst_image: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
) -> ClResult<Op> {
    let (src, si) = image_on(q, src_image)?;
    let (dst, di) = image_on(q, dst_image)?;
    // CL_IMAGE_FORMAT_MISMATCH if src_image and dst_image do not use the same image
    // format.
    check(si.format == di.format, CL_IMAGE_FORMAT_MISMATCH)?;
    // CL_INVALID_VALUE if src_origin, dst_origin or region is NULL, or if the 2D or 3D
    // rectangular region specified by src_origin and src_origin + region refers to a
    // region outside src_image, or if the region specified by dst_origin and
    // dst_origin + region refers to a region outside dst_image.
    // SAFETY: NULL or 3 size_t each (per the caller).
    let (so, dso, r) = unsafe { (triple(src_origin)?, triple(dst_origin)?, triple(region)?) };
    let src_rect = region_rect(&si, so, r)?;
    let dst_rect = region_rect(&di, dso, r)?;
    // CL_MEM_COPY_OVERLAP if src_image and dst_image are the same image object and the
    // source and destination regions overlap.
    if Arc::ptr_eq(&src, &dst) {
        check(!ops::overlap(&src_rect, &dst_rect), CL_MEM_COPY_OVERLAP)?;
    }
    Ok(Op::Rect(RectOp::Copy {
        src,
        src_rect,
        dst,
        dst_rect,
    }))
}

/// A buffer's side of a copy with an image: `rows` rows of `row` bytes, tightly packed,
/// from `offset`; `CL_INVALID_VALUE` if it does not fit.
fn packed_buffer_rect(buffer: &Mem, offset: usize, image_side: &Rect) -> ClResult<Rect> {
    let [row, rows, slices] = image_side.region;
    let r = Rect {
        origin: [offset, 0, 0],
        region: [row, rows, slices],
        row_pitch: row,
        slice_pitch: row * rows,
    };
    // CL_INVALID_VALUE if the region specified by dst_offset and dst_offset + dst_cb
    // (src_offset and src_offset + src_cb) refer to a region outside the buffer.
    check(r.fits(buffer.size), CL_INVALID_VALUE)?;
    Ok(r)
}

pub unsafe extern "C" fn enqueue_copy_image_to_buffer(
    command_queue: cl_command_queue,
    src_image: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: the op holds no address; the pointers follow the API contract.
    unsafe {
        enqueue_with(
            command_queue,
            CommandType::CopyImageToBuffer,
            num_events_in_wait_list,
            event_wait_list,
            event,
            false,
            |q| copy_image_to_buffer_op(q, src_image, dst_buffer, src_origin, region, dst_offset),
        )
    }
}

/// The command of `clEnqueueCopyImageToBuffer` (and `clCommandCopyImageToBufferKHR`) for
/// a queue `q`, checked.
///
/// # Safety
/// The two arrays are NULL or point to 3 `size_t`s.
pub(in crate::cl) unsafe fn copy_image_to_buffer_op(
    q: &Queue,
    src_image: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
) -> ClResult<Op> {
    let (src, si) = image_on(q, src_image)?;
    // CL_INVALID_MEM_OBJECT if dst_buffer is not a valid buffer object.
    let dst = buffer_of(q, dst_buffer)?;
    // SAFETY: NULL or 3 size_t each (per the caller).
    let (so, r) = unsafe { (triple(src_origin)?, triple(region)?) };
    let src_rect = region_rect(&si, so, r)?;
    let dst_rect = packed_buffer_rect(&dst, dst_offset, &src_rect)?;
    Ok(Op::Rect(RectOp::Copy {
        src,
        src_rect,
        dst,
        dst_rect,
    }))
}

pub unsafe extern "C" fn enqueue_copy_buffer_to_image(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_image: cl_mem,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: the op holds no address; the pointers follow the API contract.
    unsafe {
        enqueue_with(
            command_queue,
            CommandType::CopyBufferToImage,
            num_events_in_wait_list,
            event_wait_list,
            event,
            false,
            |q| copy_buffer_to_image_op(q, src_buffer, dst_image, src_offset, dst_origin, region),
        )
    }
}

/// The command of `clEnqueueCopyBufferToImage` (and `clCommandCopyBufferToImageKHR`) for
/// a queue `q`, checked.
///
/// # Safety
/// The two arrays are NULL or point to 3 `size_t`s.
pub(in crate::cl) unsafe fn copy_buffer_to_image_op(
    q: &Queue,
    src_buffer: cl_mem,
    dst_image: cl_mem,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
) -> ClResult<Op> {
    // CL_INVALID_MEM_OBJECT if src_buffer is not a valid buffer object.
    let src = buffer_of(q, src_buffer)?;
    let (dst, di) = image_on(q, dst_image)?;
    // SAFETY: NULL or 3 size_t each (per the caller).
    let (dso, r) = unsafe { (triple(dst_origin)?, triple(region)?) };
    let dst_rect = region_rect(&di, dso, r)?;
    let src_rect = packed_buffer_rect(&src, src_offset, &dst_rect)?;
    Ok(Op::Rect(RectOp::Copy {
        src,
        src_rect,
        dst,
        dst_rect,
    }))
}

pub unsafe extern "C" fn enqueue_fill_image(
    command_queue: cl_command_queue,
    image: cl_mem,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: the op holds no address; the pointers follow the API contract.
    unsafe {
        enqueue_with(
            command_queue,
            CommandType::FillImage,
            num_events_in_wait_list,
            event_wait_list,
            event,
            false,
            |q| fill_image_op(q, image, fill_color, origin, region),
        )
    }
}

/// The command of `clEnqueueFillImage` (and `clCommandFillImageKHR`) for a queue `q`,
/// checked; the colour is encoded now.
///
/// # Safety
/// `fill_color` is NULL or points to 16 bytes; the two arrays are NULL or point to 3
/// `size_t`s.
pub(in crate::cl) unsafe fn fill_image_op(
    q: &Queue,
    image: cl_mem,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize,
) -> ClResult<Op> {
    let (m, i) = image_on(q, image)?;
    // CL_INVALID_VALUE if fill_color is NULL, if origin or region is NULL, or if the
    // region being filled as specified by origin and region is out of bounds.
    check(!fill_color.is_null(), CL_INVALID_VALUE)?;
    // SAFETY: NULL or 3 size_t each (per the caller).
    let (o, r) = unsafe { (triple(origin)?, triple(region)?) };
    let rect = region_rect(&i, o, r)?;
    // The fill colour is a four-component float, signed or unsigned integer vector,
    // as the image's channel type says.
    let mut bytes = [0u8; 16];
    // SAFETY: fill_color points to 16 readable bytes (per the caller).
    unsafe { std::ptr::copy_nonoverlapping(fill_color as *const u8, bytes.as_mut_ptr(), 16) };
    let color = Color::from_bytes(i.format.channel_type.class(), &bytes);
    let mut pixel = vec![0u8; i.element_size()];
    format::encode(i.format, color, &mut pixel);
    Ok(Op::Rect(RectOp::Fill {
        mem: m,
        rect,
        pixel,
    }))
}

pub unsafe extern "C" fn enqueue_map_image(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_map: cl_bool,
    map_flags: cl_map_flags,
    origin: *const usize,
    region: *const usize,
    image_row_pitch: *mut usize,
    image_slice_pitch: *mut usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    cl_create(errcode_ret, || {
        let q = get::<Queue>(command_queue)?;
        let (m, i) = image_on(&q, image)?;
        // CL_INVALID_VALUE if region being mapped given by (origin, origin + region) is
        // out of bounds or if values specified in map_flags are not valid; if
        // image_row_pitch is NULL; if image is a 3D image, 1D or 2D image array object and
        // image_slice_pitch is NULL.
        // SAFETY: NULL or 3 size_t each (API contract).
        let (o, r) = unsafe { (triple(origin)?, triple(region)?) };
        let rect = region_rect(&i, o, r)?;
        let known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
        check(map_flags & !known == 0, CL_INVALID_VALUE)?;
        check(
            map_flags & CL_MAP_WRITE_INVALIDATE_REGION == 0
                || map_flags & (CL_MAP_READ | CL_MAP_WRITE) == 0,
            CL_INVALID_VALUE,
        )?;
        check(!image_row_pitch.is_null(), CL_INVALID_VALUE)?;
        let layered = matches!(
            i.kind,
            ImageKind::D3 | ImageKind::D1Array | ImageKind::D2Array
        );
        check(!layered || !image_slice_pitch.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: API contract on the wait list.
        let wait = unsafe { wait_list(&q.context, num_events_in_wait_list, event_wait_list) }?;
        // CL_INVALID_OPERATION if image has been created with CL_MEM_HOST_WRITE_ONLY or
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
        // Zero-copy: the mapped pointer is the image's own memory, with its pitches.
        let start = rect.start().ok_or(ClError(CL_INVALID_VALUE))?;
        // SAFETY: the rectangle lies inside the image's storage (checked by region_rect,
        // and the storage spans byte_size() bytes).
        let ptr = unsafe { m.base().add(start) } as *mut c_void;
        // SAFETY: image_row_pitch is non-NULL (checked) and image_slice_pitch NULL or
        // writable (API contract).
        unsafe {
            write_out(image_row_pitch, i.row_pitch);
            write_out(image_slice_pitch, if layered { i.slice_pitch } else { 0 });
        }
        m.add_map(ptr as usize);
        // SAFETY: event is NULL or writable (API contract).
        let res = unsafe {
            submit_light(
                &q,
                CommandType::MapImage,
                wait,
                no_op(),
                event,
                blocking_map != CL_FALSE,
            )
        };
        if let Err(e) = res {
            let _ = m.remove_map(ptr as usize);
            return Err(e);
        }
        Ok(ptr)
    })
}
