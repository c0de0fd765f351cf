//! Images and samplers: `zeImageGetProperties`, `zeImageCreate`/`Destroy`,
//! `zeSamplerCreate`/`Destroy`, and the translation of Level-Zero's formats, image types
//! and regions to the runtime's images (`runtime/src/mem/image.rs`), which OpenCL's
//! images are too. The copies are appended in `cmdlist.rs`; kernel arguments in
//! `kernel.rs`.
//!
//! A format is a layout (bits per channel), a type and a swizzle. Ferrite stores the
//! formats OpenCL has: one, two or four channels of 8, 16 or 32 bits (R, RG, RGBA, or BGRA
//! where the swizzle is B, G, R, A), and 5-6-5. Others (YUV layouts, 10-10-10-2, 11-11-10,
//! 4-4-4-4, 5-5-5-1) are `ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT`.
#![expect(non_snake_case, reason = "entry points keep their Level-Zero names")]

use super::sys::*;
use super::{check, context, device, handle, input, output, write_out, ze_call, ZeResult};
use ferrite_runtime::mem::image::format::{self, ChannelOrder, ChannelType, ColorClass};
use ferrite_runtime::mem::image::{self, ImageCreate, ImageDesc, ImageFormat, ImageKind};
use ferrite_runtime::mem::{Mem, MemFlags};
use ferrite_runtime::sampler::{AddressingMode, FilterMode, SamplerState};
use std::sync::Arc;

/// The object behind `ze_image_handle_t`.
pub struct ZeImage {
    pub mem: Arc<Mem>,
}

/// The object behind `ze_sampler_handle_t`.
pub struct ZeSampler {
    pub state: SamplerState,
}

pub fn get(h: ze_image_handle_t) -> ZeResult<Arc<ZeImage>> {
    handle::get::<ZeImage, _>(h)
}

pub fn get_sampler(h: ze_sampler_handle_t) -> ZeResult<Arc<ZeSampler>> {
    handle::get::<ZeSampler, _>(h)
}

const UNSUPPORTED: super::ZeError = super::ZeError(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT);

/// The runtime format of a Level-Zero format.
fn format_of(f: &ze_image_format_t) -> ZeResult<ImageFormat> {
    use ChannelType as T;
    check(
        f.type_ <= ZE_IMAGE_FORMAT_TYPE_FLOAT,
        ZE_RESULT_ERROR_INVALID_ENUMERATION,
    )?;
    if f.layout == ZE_IMAGE_FORMAT_LAYOUT_5_6_5 {
        check(
            f.type_ == ZE_IMAGE_FORMAT_TYPE_UNORM,
            ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT,
        )?;
        return Ok(ImageFormat {
            order: ChannelOrder::Rgb,
            channel_type: T::UnormShort565,
        });
    }
    let (channels, bits) = match f.layout {
        ZE_IMAGE_FORMAT_LAYOUT_8 => (1, 8),
        ZE_IMAGE_FORMAT_LAYOUT_16 => (1, 16),
        ZE_IMAGE_FORMAT_LAYOUT_32 => (1, 32),
        ZE_IMAGE_FORMAT_LAYOUT_8_8 => (2, 8),
        ZE_IMAGE_FORMAT_LAYOUT_16_16 => (2, 16),
        ZE_IMAGE_FORMAT_LAYOUT_32_32 => (2, 32),
        ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8 => (4, 8),
        ZE_IMAGE_FORMAT_LAYOUT_16_16_16_16 => (4, 16),
        ZE_IMAGE_FORMAT_LAYOUT_32_32_32_32 => (4, 32),
        l if l <= ZE_IMAGE_FORMAT_LAYOUT_BRGP => return Err(UNSUPPORTED),
        _ => return Err(super::ZeError(ZE_RESULT_ERROR_INVALID_ENUMERATION)),
    };
    let channel_type = match (f.type_, bits) {
        (ZE_IMAGE_FORMAT_TYPE_UINT, 8) => T::UnsignedInt8,
        (ZE_IMAGE_FORMAT_TYPE_UINT, 16) => T::UnsignedInt16,
        (ZE_IMAGE_FORMAT_TYPE_UINT, _) => T::UnsignedInt32,
        (ZE_IMAGE_FORMAT_TYPE_SINT, 8) => T::SignedInt8,
        (ZE_IMAGE_FORMAT_TYPE_SINT, 16) => T::SignedInt16,
        (ZE_IMAGE_FORMAT_TYPE_SINT, _) => T::SignedInt32,
        (ZE_IMAGE_FORMAT_TYPE_UNORM, 8) => T::UnormInt8,
        (ZE_IMAGE_FORMAT_TYPE_UNORM, 16) => T::UnormInt16,
        (ZE_IMAGE_FORMAT_TYPE_SNORM, 8) => T::SnormInt8,
        (ZE_IMAGE_FORMAT_TYPE_SNORM, 16) => T::SnormInt16,
        (ZE_IMAGE_FORMAT_TYPE_FLOAT, 16) => T::HalfFloat,
        (ZE_IMAGE_FORMAT_TYPE_FLOAT, 32) => T::Float,
        _ => return Err(UNSUPPORTED),
    };
    let order = order_of(channels, [f.x, f.y, f.z, f.w])?;
    Ok(ImageFormat {
        order,
        channel_type,
    })
}

/// The OpenCL channel order of a swizzle: output channel k (red, green, blue, alpha) takes
/// the stored component `swizzle[k]` names (R, G, B, A: the first to the fourth in memory).
/// Swizzles that no OpenCL order expresses are `ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT`.
fn order_of(channels: usize, swizzle: [u32; 4]) -> ZeResult<ChannelOrder> {
    const R: u32 = ZE_IMAGE_FORMAT_SWIZZLE_R;
    const G: u32 = ZE_IMAGE_FORMAT_SWIZZLE_G;
    const B: u32 = ZE_IMAGE_FORMAT_SWIZZLE_B;
    const A: u32 = ZE_IMAGE_FORMAT_SWIZZLE_A;
    const ZERO: u32 = ZE_IMAGE_FORMAT_SWIZZLE_0;
    // `ZE_IMAGE_FORMAT_SWIZZLE_D` (later than the generated bindings): the depth
    // component of a depth format, its one stored component.
    const D: u32 = 7;
    check(
        swizzle.iter().all(|&c| c <= D),
        ZE_RESULT_ERROR_INVALID_ENUMERATION,
    )?;
    Ok(match (channels, swizzle) {
        // A depth format: its one component, read as red.
        (1, [D, ..]) => ChannelOrder::R,
        // One stored component shown as alpha; otherwise it is red and the rest are the
        // defaults OpenCL gives (0, 0, 1) whatever the swizzle says of them.
        (1, [ZERO, ZERO, ZERO, R]) => ChannelOrder::A,
        (1, [R, ..]) => ChannelOrder::R,
        (2, [R, ZERO, ZERO, G]) => ChannelOrder::Ra,
        (2, [R, G, ..]) => ChannelOrder::Rg,
        (4, [R, G, B, A]) => ChannelOrder::Rgba,
        (4, [B, G, R, A]) => ChannelOrder::Bgra,
        (4, [G, B, A, R]) => ChannelOrder::Argb,
        (4, [A, B, G, R]) => ChannelOrder::Abgr,
        _ => return Err(UNSUPPORTED),
    })
}

/// The runtime kind and shape of a Level-Zero image description.
fn shape_of(d: &ze_image_desc_t) -> ZeResult<(ImageFormat, ImageDesc)> {
    // `FERRITE_IMAGES=0` hides images from both APIs.
    check(image::enabled(), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)?;
    // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0x3 < desc->flags, ZE_IMAGE_TYPE_BUFFER < type
    check(d.flags <= 0x3, ZE_RESULT_ERROR_INVALID_ENUMERATION)?;
    let kind = match d.type_ {
        ZE_IMAGE_TYPE_1D => ImageKind::D1,
        ZE_IMAGE_TYPE_1DARRAY => ImageKind::D1Array,
        ZE_IMAGE_TYPE_2D => ImageKind::D2,
        ZE_IMAGE_TYPE_2DARRAY => ImageKind::D2Array,
        ZE_IMAGE_TYPE_3D => ImageKind::D3,
        // A 1D buffer image with storage of its own (OpenCL's alias a buffer).
        ZE_IMAGE_TYPE_BUFFER => ImageKind::D1Buffer,
        _ => return Err(super::ZeError(ZE_RESULT_ERROR_INVALID_ENUMERATION)),
    };
    // One level: no mipmaps.
    check(d.miplevels <= 1, ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)?;
    let format = format_of(&d.format)?;
    if format::support(format, kind).is_none() {
        return Err(UNSUPPORTED);
    }
    let width =
        usize::try_from(d.width).map_err(|_| super::ZeError(ZE_RESULT_ERROR_UNSUPPORTED_SIZE))?;
    Ok((
        format,
        ImageDesc {
            kind,
            width,
            height: d.height as usize,
            depth: d.depth as usize,
            array_size: d.arraylevels as usize,
            row_pitch: 0,
            slice_pitch: 0,
        },
    ))
}

pub(super) unsafe extern "C" fn zeImageGetProperties(
    h_device: ze_device_handle_t,
    desc: *const ze_image_desc_t,
    props: *mut ze_image_properties_t,
) -> ze_result_t {
    ze_call(|| {
        device::get(h_device)?;
        // SAFETY: NULL or valid structures (API contract).
        let (d, p) = unsafe { (input(desc)?, output(props)?) };
        let (format, _) = shape_of(d)?;
        // Linear filtering blends colours: normalised and float formats only.
        let linear = format.channel_type.class() == ColorClass::Float;
        p.samplerFilterFlags = ZE_IMAGE_SAMPLER_FILTER_FLAG_POINT
            | if linear {
                ZE_IMAGE_SAMPLER_FILTER_FLAG_LINEAR
            } else {
                0
            };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeImageCreate(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    desc: *const ze_image_desc_t,
    ph_image: *mut ze_image_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let ctx = context::get(h_context)?;
        device::get(h_device)?;
        // SAFETY: NULL or a valid descriptor (API contract).
        let d = unsafe { input(desc)? };
        check(!ph_image.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        let (format, shape) = shape_of(d)?;
        let create = ImageCreate {
            flags: MemFlags::READ_WRITE,
            api_flags: 0,
            properties: Vec::new(),
            format,
            desc: shape,
            source: image::ImageSource::Alloc,
        };
        // SAFETY: the image gets storage of its own; no application memory is involved.
        let mem = unsafe { image::create(&ctx.runtime(), create)? };
        let h: ze_image_handle_t = handle::insert(Arc::new(ZeImage { mem }));
        // SAFETY: non-NULL, valid for writes (API contract).
        unsafe { write_out(ph_image, h)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeImageDestroy(h_image: ze_image_handle_t) -> ze_result_t {
    ze_call(|| {
        handle::remove::<ZeImage, _>(h_image)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeImageGetAllocPropertiesExt` (`ZE_extension_image_query_alloc_properties`): an id of
/// the image's storage, unique among live allocations (its address).
pub(super) unsafe extern "C" fn zeImageGetAllocPropertiesExt(
    h_context: ze_context_handle_t,
    h_image: ze_image_handle_t,
    props: *mut ze_image_allocation_ext_properties_t,
) -> ze_result_t {
    ze_call(|| {
        super::context::get(h_context)?;
        let img = get(h_image)?;
        // SAFETY: NULL or the application's struct (API contract).
        let p = unsafe { output(props)? };
        p.id = Arc::as_ptr(&img.mem) as u64;
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeImageGetMemoryPropertiesExp` (`ZE_experimental_image_memory_properties`): the bytes
/// the image's linear storage spans and its row and slice pitches (`mem/image.rs`).
pub(super) unsafe extern "C" fn zeImageGetMemoryPropertiesExp(
    h_image: ze_image_handle_t,
    props: *mut ze_image_memory_properties_exp_t,
) -> ze_result_t {
    ze_call(|| {
        let img = get(h_image)?;
        let image = img
            .mem
            .image
            .as_ref()
            .ok_or(super::ZeError(ZE_RESULT_ERROR_INVALID_NULL_HANDLE))?;
        // SAFETY: NULL or the application's struct (API contract).
        let p = unsafe { output(props)? };
        p.size = image.byte_size() as u64;
        p.rowPitch = image.row_pitch as u64;
        p.slicePitch = image.slice_pitch as u64;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeSamplerCreate(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    desc: *const ze_sampler_desc_t,
    ph_sampler: *mut ze_sampler_handle_t,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        device::get(h_device)?;
        // SAFETY: NULL or a valid descriptor (API contract).
        let d = unsafe { input(desc)? };
        check(!ph_sampler.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // Level-Zero's CLAMP is OpenCL's CLAMP_TO_EDGE; its CLAMP_TO_BORDER, OpenCL's CLAMP.
        let addressing = match d.addressMode {
            ZE_SAMPLER_ADDRESS_MODE_NONE => AddressingMode::None,
            ZE_SAMPLER_ADDRESS_MODE_REPEAT => AddressingMode::Repeat,
            ZE_SAMPLER_ADDRESS_MODE_CLAMP => AddressingMode::ClampToEdge,
            ZE_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER => AddressingMode::Clamp,
            ZE_SAMPLER_ADDRESS_MODE_MIRROR => AddressingMode::MirroredRepeat,
            _ => return Err(super::ZeError(ZE_RESULT_ERROR_INVALID_ENUMERATION)),
        };
        let filter = match d.filterMode {
            ZE_SAMPLER_FILTER_MODE_NEAREST => FilterMode::Nearest,
            ZE_SAMPLER_FILTER_MODE_LINEAR => FilterMode::Linear,
            _ => return Err(super::ZeError(ZE_RESULT_ERROR_INVALID_ENUMERATION)),
        };
        // Repeat and mirror with unnormalised coordinates are allowed (unlike OpenCL's
        // samplers, which the API refuses); reads clamp to the edge then.
        let normalized_coords = d.isNormalized != 0;
        let state = SamplerState {
            normalized_coords,
            addressing,
            filter,
        };
        let h: ze_sampler_handle_t = handle::insert(Arc::new(ZeSampler { state }));
        // SAFETY: non-NULL, valid for writes (API contract).
        unsafe { write_out(ph_sampler, h)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeSamplerDestroy(h_sampler: ze_sampler_handle_t) -> ze_result_t {
    ze_call(|| {
        handle::remove::<ZeSampler, _>(h_sampler)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// All memory is resident on a CPU: the handles are checked, nothing else happens.
pub(super) unsafe extern "C" fn zeContextMakeImageResident(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    h_image: ze_image_handle_t,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        device::get(h_device)?;
        get(h_image)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeContextEvictImage(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    h_image: ze_image_handle_t,
) -> ze_result_t {
    // SAFETY: the same checks as making it resident.
    unsafe { zeContextMakeImageResident(h_context, h_device, h_image) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(layout: u32, ty: u32, swizzle: [u32; 4]) -> ze_image_format_t {
        ze_image_format_t {
            layout,
            type_: ty,
            x: swizzle[0],
            y: swizzle[1],
            z: swizzle[2],
            w: swizzle[3],
        }
    }

    const RGBA: [u32; 4] = [
        ZE_IMAGE_FORMAT_SWIZZLE_R,
        ZE_IMAGE_FORMAT_SWIZZLE_G,
        ZE_IMAGE_FORMAT_SWIZZLE_B,
        ZE_IMAGE_FORMAT_SWIZZLE_A,
    ];

    #[test]
    fn formats_map_to_opencl_orders_and_types() {
        let f = format_of(&fmt(
            ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8,
            ZE_IMAGE_FORMAT_TYPE_UNORM,
            RGBA,
        ))
        .unwrap();
        assert_eq!(
            (f.order, f.channel_type),
            (ChannelOrder::Rgba, ChannelType::UnormInt8)
        );
        let bgra = [
            ZE_IMAGE_FORMAT_SWIZZLE_B,
            ZE_IMAGE_FORMAT_SWIZZLE_G,
            ZE_IMAGE_FORMAT_SWIZZLE_R,
            ZE_IMAGE_FORMAT_SWIZZLE_A,
        ];
        let f = format_of(&fmt(
            ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8,
            ZE_IMAGE_FORMAT_TYPE_UNORM,
            bgra,
        ))
        .unwrap();
        assert_eq!(f.order, ChannelOrder::Bgra);
        let [r, g, b, a] = RGBA;
        let zero = ZE_IMAGE_FORMAT_SWIZZLE_0;
        for (channels, swizzle, order) in [
            (4, [a, b, g, r], ChannelOrder::Abgr),
            (4, [g, b, a, r], ChannelOrder::Argb),
            (1, [zero, zero, zero, r], ChannelOrder::A),
            (
                1,
                [r, zero, zero, ZE_IMAGE_FORMAT_SWIZZLE_1],
                ChannelOrder::R,
            ),
            (2, [r, zero, zero, g], ChannelOrder::Ra),
        ] {
            assert_eq!(order_of(channels, swizzle).unwrap(), order, "{swizzle:?}");
        }
        // No OpenCL order shows red twice or drops a stored component.
        for (channels, swizzle) in [(4, [r, r, b, a]), (4, [r, g, b, zero]), (2, [g, r, b, a])] {
            let e = order_of(channels, swizzle).unwrap_err();
            assert_eq!(e.0, ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT);
        }
        let e = order_of(1, [r, 99, 0, 0]).unwrap_err();
        assert_eq!(e.0, ZE_RESULT_ERROR_INVALID_ENUMERATION);
        let f = format_of(&fmt(
            ZE_IMAGE_FORMAT_LAYOUT_16,
            ZE_IMAGE_FORMAT_TYPE_FLOAT,
            RGBA,
        ))
        .unwrap();
        assert_eq!(
            (f.order, f.channel_type),
            (ChannelOrder::R, ChannelType::HalfFloat)
        );
        let f = format_of(&fmt(
            ZE_IMAGE_FORMAT_LAYOUT_32_32,
            ZE_IMAGE_FORMAT_TYPE_SINT,
            RGBA,
        ))
        .unwrap();
        assert_eq!(
            (f.order, f.channel_type),
            (ChannelOrder::Rg, ChannelType::SignedInt32)
        );
        // No 8-bit float, no 32-bit normalised, no YUV; garbage enumerations are refused.
        for (layout, ty) in [
            (ZE_IMAGE_FORMAT_LAYOUT_8, ZE_IMAGE_FORMAT_TYPE_FLOAT),
            (ZE_IMAGE_FORMAT_LAYOUT_32, ZE_IMAGE_FORMAT_TYPE_UNORM),
            (ZE_IMAGE_FORMAT_LAYOUT_NV12, ZE_IMAGE_FORMAT_TYPE_UNORM),
        ] {
            let e = format_of(&fmt(layout, ty, RGBA)).unwrap_err();
            assert_eq!(e.0, ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT);
        }
        let e = format_of(&fmt(0x1234, ZE_IMAGE_FORMAT_TYPE_UINT, RGBA)).unwrap_err();
        assert_eq!(e.0, ZE_RESULT_ERROR_INVALID_ENUMERATION);
        let e = format_of(&fmt(ZE_IMAGE_FORMAT_LAYOUT_8, 9, RGBA)).unwrap_err();
        assert_eq!(e.0, ZE_RESULT_ERROR_INVALID_ENUMERATION);
    }
}
