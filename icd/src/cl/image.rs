//! Image entry points: `clCreateImage` (and its 1.x and `WithProperties` forms),
//! `clGetSupportedImageFormats`, `clGetImageInfo`. The format table, shapes and pitches are
//! the runtime's (`runtime/src/mem/image.rs`); this file maps the API's constants to them
//! and checks what only the API knows (flags, the descriptor's fields, handles).
//!
//! Images are offered unless `FERRITE_IMAGES=0` ([`image::enabled`]): then every creator is
//! `CL_INVALID_OPERATION` and no format is listed, as the specification asks of a context
//! whose devices do not support images.

use super::handle::{self, get};
use super::info::{info, write_info};
use super::mem::{buffer_flags, sub_buffer_flags};
use super::{check, cl_call, cl_create, write_out};
use crate::error::{ClError, ClResult};
use ferrite_runtime::context::Context;
use ferrite_runtime::mem::image::format::{self, ChannelOrder, ChannelType};
use ferrite_runtime::mem::image::{
    self, ImageCreate, ImageDesc, ImageFormat, ImageKind, ImageSource,
};
use ferrite_runtime::mem::{Mem, MemType};
use opencl_sys::*;
use std::ffi::c_void;

/// Channel orders: the API's constant and the runtime's order (`None`: a valid constant of
/// an order Ferrite does not support).
const ORDERS: &[(cl_channel_order, Option<ChannelOrder>)] = &[
    (CL_R, Some(ChannelOrder::R)),
    (CL_A, Some(ChannelOrder::A)),
    (CL_RG, Some(ChannelOrder::Rg)),
    (CL_RA, Some(ChannelOrder::Ra)),
    (CL_RGB, Some(ChannelOrder::Rgb)),
    (CL_RGBA, Some(ChannelOrder::Rgba)),
    (CL_BGRA, Some(ChannelOrder::Bgra)),
    (CL_ARGB, Some(ChannelOrder::Argb)),
    (CL_ABGR, Some(ChannelOrder::Abgr)),
    (CL_INTENSITY, Some(ChannelOrder::Intensity)),
    (CL_LUMINANCE, Some(ChannelOrder::Luminance)),
    (CL_DEPTH, Some(ChannelOrder::Depth)),
    (CL_sRGBA, Some(ChannelOrder::Srgba)),
    (CL_sBGRA, Some(ChannelOrder::Sbgra)),
    (CL_Rx, None),
    (CL_RGx, None),
    (CL_RGBx, None),
    (CL_sRGB, None),
    (CL_sRGBx, None),
];

/// Channel types, as [`ORDERS`].
const TYPES: &[(cl_channel_type, Option<ChannelType>)] = &[
    (CL_SNORM_INT8, Some(ChannelType::SnormInt8)),
    (CL_SNORM_INT16, Some(ChannelType::SnormInt16)),
    (CL_UNORM_INT8, Some(ChannelType::UnormInt8)),
    (CL_UNORM_INT16, Some(ChannelType::UnormInt16)),
    (CL_UNORM_SHORT_565, Some(ChannelType::UnormShort565)),
    (CL_UNORM_SHORT_555, Some(ChannelType::UnormShort555)),
    (CL_UNORM_INT_101010, Some(ChannelType::UnormInt101010)),
    (CL_SIGNED_INT8, Some(ChannelType::SignedInt8)),
    (CL_SIGNED_INT16, Some(ChannelType::SignedInt16)),
    (CL_SIGNED_INT32, Some(ChannelType::SignedInt32)),
    (CL_UNSIGNED_INT8, Some(ChannelType::UnsignedInt8)),
    (CL_UNSIGNED_INT16, Some(ChannelType::UnsignedInt16)),
    (CL_UNSIGNED_INT32, Some(ChannelType::UnsignedInt32)),
    (CL_HALF_FLOAT, Some(ChannelType::HalfFloat)),
    (CL_FLOAT, Some(ChannelType::Float)),
    (CL_UNORM_INT_101010_2, None),
];

const KINDS: &[(cl_mem_object_type, ImageKind)] = &[
    (CL_MEM_OBJECT_IMAGE1D, ImageKind::D1),
    (CL_MEM_OBJECT_IMAGE1D_BUFFER, ImageKind::D1Buffer),
    (CL_MEM_OBJECT_IMAGE1D_ARRAY, ImageKind::D1Array),
    (CL_MEM_OBJECT_IMAGE2D, ImageKind::D2),
    (CL_MEM_OBJECT_IMAGE2D_ARRAY, ImageKind::D2Array),
    (CL_MEM_OBJECT_IMAGE3D, ImageKind::D3),
];

/// `CL_MEM_TYPE` of an image.
pub fn kind_to_cl(kind: ImageKind) -> cl_mem_object_type {
    KINDS
        .iter()
        .find(|(_, k)| *k == kind)
        .map_or(CL_MEM_OBJECT_IMAGE2D, |(t, _)| *t)
}

pub fn kind_from_cl(t: cl_mem_object_type) -> Option<ImageKind> {
    KINDS.iter().find(|(c, _)| *c == t).map(|(_, k)| *k)
}

/// The API's `cl_image_format` of a format.
pub fn format_to_cl(f: ImageFormat) -> cl_image_format {
    let order = ORDERS
        .iter()
        .find(|(_, o)| *o == Some(f.order))
        .map_or(0, |(c, _)| *c);
    let ty = TYPES
        .iter()
        .find(|(_, t)| *t == Some(f.channel_type))
        .map_or(0, |(c, _)| *c);
    cl_image_format {
        image_channel_order: order,
        image_channel_data_type: ty,
    }
}

/// The runtime's format of a `cl_image_format`.
pub fn format_from_cl(f: &cl_image_format) -> ClResult<ImageFormat> {
    let order = ORDERS.iter().find(|(c, _)| *c == f.image_channel_order);
    let ty = TYPES.iter().find(|(c, _)| *c == f.image_channel_data_type);
    // CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if values specified in image_format are not
    // valid.
    let (Some((_, order)), Some((_, ty))) = (order, ty) else {
        return Err(ClError(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR));
    };
    // The packed types go with CL_RGB (or CL_RGBx) only, and CL_RGB with them only.
    let packed = matches!(
        f.image_channel_data_type,
        CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 | CL_UNORM_INT_101010 | CL_UNORM_INT_101010_2
    );
    let rgb = f.image_channel_order == CL_RGB || f.image_channel_order == CL_RGBx;
    check(
        packed == rgb || f.image_channel_data_type == CL_UNORM_INT_101010_2,
        CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
    )?;
    // CL_IMAGE_FORMAT_NOT_SUPPORTED if there are no devices in context that support
    // image_format.
    match (order, ty) {
        (Some(order), Some(channel_type)) => Ok(ImageFormat {
            order: *order,
            channel_type: *channel_type,
        }),
        _ => Err(ClError(CL_IMAGE_FORMAT_NOT_SUPPORTED)),
    }
}

/// The image behind a handle.
pub fn image_of(mem: cl_mem) -> ClResult<(std::sync::Arc<Mem>, image::Image)> {
    let m = get::<Mem>(mem)?;
    let i = m.image.ok_or(ClError(CL_INVALID_MEM_OBJECT))?;
    Ok((m, i))
}

/// Flags a kernel-access query or an image may carry.
const IMAGE_QUERY_BITS: cl_mem_flags = CL_MEM_READ_WRITE
    | CL_MEM_WRITE_ONLY
    | CL_MEM_READ_ONLY
    | CL_MEM_HOST_WRITE_ONLY
    | CL_MEM_HOST_READ_ONLY
    | CL_MEM_HOST_NO_ACCESS
    | CL_MEM_USE_HOST_PTR
    | CL_MEM_ALLOC_HOST_PTR
    | CL_MEM_COPY_HOST_PTR
    | CL_MEM_KERNEL_READ_AND_WRITE;

fn new_image(
    context: cl_context,
    properties: Vec<u64>,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
) -> ClResult<cl_mem> {
    // CL_INVALID_CONTEXT if context is not a valid context.
    let ctx = get::<Context>(context)?;
    // CL_INVALID_OPERATION if there are no devices in context that support images.
    check(image::enabled(), CL_INVALID_OPERATION)?;
    // CL_INVALID_VALUE if values specified in flags are not valid.
    check(
        flags & !(IMAGE_QUERY_BITS & !CL_MEM_KERNEL_READ_AND_WRITE) == 0,
        CL_INVALID_VALUE,
    )?;
    // CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if values specified in image_format are not
    // valid or if image_format is NULL.
    check(!image_format.is_null(), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)?;
    // SAFETY: a non-NULL image_format points to a cl_image_format (API contract).
    let cl_format = unsafe { image_format.read_unaligned() };
    let format_result = format_from_cl(&cl_format);
    if let Err(ClError(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)) = format_result {
        return Err(ClError(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR));
    }
    // CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid or if
    // image_desc is NULL.
    check(!image_desc.is_null(), CL_INVALID_IMAGE_DESCRIPTOR)?;
    // SAFETY: a non-NULL image_desc points to a cl_image_desc (API contract).
    let d = unsafe { image_desc.read_unaligned() };
    let kind = kind_from_cl(d.image_type).ok_or(ClError(CL_INVALID_IMAGE_DESCRIPTOR))?;
    // num_mip_levels and num_samples must be 0.
    check(
        d.num_mip_levels == 0 && d.num_samples == 0,
        CL_INVALID_IMAGE_DESCRIPTOR,
    )?;
    // `buffer` (the header's `mem_object`).
    let mem_object = d.buffer;
    let buffer = match (kind, mem_object.is_null()) {
        (ImageKind::D1Buffer, true) => return Err(ClError(CL_INVALID_IMAGE_DESCRIPTOR)),
        (ImageKind::D1Buffer | ImageKind::D2, false) => {
            // A buffer (1D image buffers, cl_khr_image2d_from_buffer); making a 2D image
            // from another image is not supported.
            let b = get::<Mem>(mem_object).map_err(|_| ClError(CL_INVALID_IMAGE_DESCRIPTOR))?;
            check(b.mem_type == MemType::Buffer, CL_INVALID_IMAGE_DESCRIPTOR)?;
            check(
                std::sync::Arc::ptr_eq(&b.context, &ctx),
                CL_INVALID_IMAGE_DESCRIPTOR,
            )?;
            Some(b)
        }
        (_, false) => return Err(ClError(CL_INVALID_IMAGE_DESCRIPTOR)),
        (_, true) => None,
    };
    let format = format_result?;
    let desc = ImageDesc {
        kind,
        width: d.image_width,
        height: d.image_height,
        depth: d.image_depth,
        array_size: d.image_array_size,
        row_pitch: d.image_row_pitch,
        slice_pitch: d.image_slice_pitch,
    };
    let (mem_flags, api_flags, source) = match buffer {
        Some(b) => {
            // CL_INVALID_VALUE if an image is being created from another memory object
            // and the flags conflict with the memory object's (the sub-buffer rules), or
            // name a host-pointer mode. CL_INVALID_HOST_PTR if host_ptr is not NULL.
            check(host_ptr.is_null(), CL_INVALID_HOST_PTR)?;
            let (f, api) = sub_buffer_flags(&b, flags)?;
            // A 2D image from a buffer: the pitch is a multiple of the pitch alignment.
            if kind == ImageKind::D2 {
                let pitch_bytes = image::PITCH_ALIGNMENT * format.element_size();
                check(
                    d.image_row_pitch.is_multiple_of(pitch_bytes),
                    CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                )?;
            }
            (f, api, ImageSource::Buffer(b))
        }
        None => {
            // CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or
            // CL_MEM_COPY_HOST_PTR are set in flags or if host_ptr is not NULL but
            // CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR are not set in flags.
            let f = buffer_flags(flags, !host_ptr.is_null())?;
            let api = if flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY) == 0 {
                flags | CL_MEM_READ_WRITE
            } else {
                flags
            };
            let source = if f.use_host_ptr {
                ImageSource::Use(host_ptr as *mut u8)
            } else if f.copy_host_ptr {
                ImageSource::Copy(host_ptr as *const u8)
            } else {
                ImageSource::Alloc
            };
            (f, api, source)
        }
    };
    let create = ImageCreate {
        flags: mem_flags,
        api_flags,
        properties,
        format,
        desc,
        source,
    };
    // SAFETY: with USE/COPY_HOST_PTR the application guarantees host_ptr holds the image
    // with the pitches it gave (valid for the image's life with USE_HOST_PTR): the API
    // contract.
    let mem = unsafe { image::create(&ctx, create) }?;
    Ok(handle::new_handle(mem))
}

/// Parse a `cl_mem_properties` list for an image: none are supported.
///
/// # Safety
/// `properties` is NULL or a zero-terminated list.
unsafe fn image_properties(properties: *const cl_mem_properties) -> ClResult<Vec<u64>> {
    if properties.is_null() {
        return Ok(Vec::new());
    }
    // SAFETY: a non-NULL list is zero-terminated (API contract).
    let first = unsafe { *properties };
    // CL_INVALID_PROPERTY if a property name in properties is not a supported property
    // name.
    check(first == 0, CL_INVALID_PROPERTY)?;
    Ok(vec![0])
}

pub unsafe extern "C" fn create_image(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    cl_create(errcode_ret, || {
        new_image(
            context,
            Vec::new(),
            flags,
            image_format,
            image_desc,
            host_ptr,
        )
    })
}

pub unsafe extern "C" fn create_image_with_properties(
    context: cl_context,
    properties: *const cl_mem_properties,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    cl_create(errcode_ret, || {
        get::<Context>(context)?;
        // SAFETY: NULL or zero-terminated (API contract).
        let list = unsafe { image_properties(properties) }?;
        new_image(context, list, flags, image_format, image_desc, host_ptr)
    })
}

fn desc_of(
    image_type: cl_mem_object_type,
    width: usize,
    height: usize,
    depth: usize,
    row_pitch: usize,
    slice_pitch: usize,
) -> cl_image_desc {
    cl_image_desc {
        image_type,
        image_width: width,
        image_height: height,
        image_depth: depth,
        image_array_size: 0,
        image_row_pitch: row_pitch,
        image_slice_pitch: slice_pitch,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: std::ptr::null_mut(),
    }
}

pub unsafe extern "C" fn create_image_2d(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_width: usize,
    image_height: usize,
    image_row_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let d = desc_of(
        CL_MEM_OBJECT_IMAGE2D,
        image_width,
        image_height,
        0,
        image_row_pitch,
        0,
    );
    cl_create(errcode_ret, || {
        new_image(context, Vec::new(), flags, image_format, &d, host_ptr)
    })
}

#[allow(clippy::too_many_arguments)] // The API's own parameter list.
pub unsafe extern "C" fn create_image_3d(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_width: usize,
    image_height: usize,
    image_depth: usize,
    image_row_pitch: usize,
    image_slice_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let d = desc_of(
        CL_MEM_OBJECT_IMAGE3D,
        image_width,
        image_height,
        image_depth,
        image_row_pitch,
        image_slice_pitch,
    );
    cl_create(errcode_ret, || {
        // CL_INVALID_IMAGE_SIZE if image_depth is 1 (a 3D image has depth > 1).
        check(image_depth > 1, CL_INVALID_IMAGE_SIZE)?;
        new_image(context, Vec::new(), flags, image_format, &d, host_ptr)
    })
}

pub unsafe extern "C" fn get_supported_image_formats(
    context: cl_context,
    flags: cl_mem_flags,
    image_type: cl_mem_object_type,
    num_entries: cl_uint,
    image_formats: *mut cl_image_format,
    num_image_formats: *mut cl_uint,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_CONTEXT if context is not a valid context.
        get::<Context>(context)?;
        // CL_INVALID_VALUE if flags or image_type are not valid, or if num_entries is 0
        // and image_formats is not NULL.
        check(flags & !IMAGE_QUERY_BITS == 0, CL_INVALID_VALUE)?;
        let kind = kind_from_cl(image_type).ok_or(ClError(CL_INVALID_VALUE))?;
        check(num_entries > 0 || image_formats.is_null(), CL_INVALID_VALUE)?;
        // What kernels will do: CL_MEM_READ_WRITE (the default) means some kernels read
        // and others write; CL_MEM_KERNEL_READ_AND_WRITE, both in one kernel.
        let rw = flags & CL_MEM_KERNEL_READ_AND_WRITE != 0;
        let read = flags & CL_MEM_WRITE_ONLY == 0;
        let write = flags & CL_MEM_READ_ONLY == 0;
        let list = if image::enabled() {
            format::supported(kind, read, write, rw)
        } else {
            Vec::new()
        };
        if !image_formats.is_null() {
            for (i, f) in list.iter().take(num_entries as usize).enumerate() {
                // SAFETY: image_formats holds num_entries entries (API contract).
                unsafe { image_formats.add(i).write_unaligned(format_to_cl(*f)) };
            }
        }
        // SAFETY: NULL or a cl_uint (API contract).
        unsafe { write_out(num_image_formats, list.len() as cl_uint) };
        Ok(())
    })
}

pub unsafe extern "C" fn get_image_info(
    image: cl_mem,
    param_name: cl_image_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_MEM_OBJECT if image is a not a valid image object.
        let (m, i) = image_of(image)?;
        let null = std::ptr::null_mut::<c_void>();
        let flat = matches!(i.kind, ImageKind::D1 | ImageKind::D1Buffer | ImageKind::D2);
        let v = match param_name {
            CL_IMAGE_FORMAT => {
                let f = format_to_cl(i.format);
                info(&[f.image_channel_order, f.image_channel_data_type])
            }
            CL_IMAGE_ELEMENT_SIZE => info(&i.element_size()),
            CL_IMAGE_ROW_PITCH => info(&i.row_pitch),
            // 0 for 1D and 2D images (and 1D image buffers).
            CL_IMAGE_SLICE_PITCH => info(&if flat { 0 } else { i.slice_pitch }),
            CL_IMAGE_WIDTH => info(&i.width),
            // 0 where the kind has no such dimension.
            CL_IMAGE_HEIGHT => info(&match i.kind {
                ImageKind::D2 | ImageKind::D2Array | ImageKind::D3 => i.height,
                _ => 0,
            }),
            CL_IMAGE_DEPTH => info(&if i.kind == ImageKind::D3 { i.depth } else { 0 }),
            CL_IMAGE_ARRAY_SIZE => info(&i.array_size),
            CL_IMAGE_BUFFER => info(&match (&m.parent, i.kind) {
                (Some(b), ImageKind::D1Buffer | ImageKind::D2) => handle::handle(b),
                _ => null,
            }),
            CL_IMAGE_NUM_MIP_LEVELS | CL_IMAGE_NUM_SAMPLES => info(&0u32),
            // CL_INVALID_VALUE if param_name is not valid.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe { write_info(&v, param_value_size, param_value, param_value_size_ret) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_constants_round_trip() {
        for kind in KINDS.iter().map(|(_, k)| *k) {
            for f in format::supported(kind, false, false, false) {
                let c = format_to_cl(f);
                assert_eq!(format_from_cl(&c), Ok(f));
                assert_eq!(kind_from_cl(kind_to_cl(kind)), Some(kind));
            }
        }
        let bad = |o, t| {
            format_from_cl(&cl_image_format {
                image_channel_order: o,
                image_channel_data_type: t,
            })
            .err()
            .map(|e| e.0)
        };
        assert_eq!(
            bad(CL_RGB, CL_UNORM_INT8),
            Some(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        );
        assert_eq!(
            bad(CL_RGBA, CL_UNORM_SHORT_565),
            Some(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        );
        assert_eq!(
            bad(0x1234, CL_FLOAT),
            Some(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        );
        assert_eq!(bad(CL_Rx, CL_FLOAT), Some(CL_IMAGE_FORMAT_NOT_SUPPORTED));
        assert_eq!(
            bad(CL_R, CL_UNORM_INT_101010_2),
            Some(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        );
    }
}
