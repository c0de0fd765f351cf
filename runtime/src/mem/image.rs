//! Images: a memory object with a format ([`format`]) and a shape (kind, sizes, pitches).
//!
//! Storage is linear: pixel `(x, y, z)` is at `z × slice_pitch + y × row_pitch + x ×
//! element_size`; the layers of an array are `slice_pitch` apart (for a 1D array the layer
//! is the second coordinate, so its rows are its layers). An image owns tightly packed
//! storage unless it was created with `CL_MEM_USE_HOST_PTR` (the application's memory and
//! pitches, zero-copy) or from a buffer (1D image buffers and `cl_khr_image2d_from_buffer`:
//! the buffer's memory, kept alive through [`Mem::parent`], so the two alias exactly as a
//! sub-buffer does).
//!
//! Every transfer maps an image region to a byte rectangle ([`Image::rect`]) and reuses the
//! rectangle copies of [`super::rect`]; the commands are plain data ([`super::rect::RectOp`]) with
//! one `execute`, so a queue, a command buffer or a Level-Zero list can all hold them.

pub mod ops;

/// The format table and conversions live with the kernels' image library, which uses them
/// too.
pub use ferrite_compiler::image::format;

use super::buffer::{AlignedBuf, Storage};
use super::rect::{self, Rect};
use super::{Mem, MemFlags, MemType};
use crate::api::{ApiObject, ObjectType};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::platform::{NameVersion, Version};
pub use ferrite_compiler::image::ImageDescriptor;
pub use format::{ImageFormat, ImageKind};
use parking_lot::Mutex;
use std::sync::Arc;

/// Largest width and height of a 2D image (`CL_DEVICE_IMAGE2D_MAX_WIDTH/HEIGHT`); also the
/// largest 1D image.
pub const MAX_2D: usize = 16384;
/// Largest width, height and depth of a 3D image.
pub const MAX_3D: usize = 2048;
/// Most layers of an image array (`CL_DEVICE_IMAGE_MAX_ARRAY_SIZE`).
pub const MAX_ARRAY: usize = 2048;
/// Most pixels of a 1D image buffer (`CL_DEVICE_IMAGE_MAX_BUFFER_SIZE`).
pub const MAX_BUFFER_PIXELS: usize = 1 << 26;
/// Image arguments a kernel may have (the OpenCL 3.0 full-profile minimums).
pub const MAX_READ_IMAGE_ARGS: u32 = 128;
pub const MAX_WRITE_IMAGE_ARGS: u32 = 64;
pub const MAX_READ_WRITE_IMAGE_ARGS: u32 = 64;
/// Samplers a kernel may use.
pub const MAX_SAMPLERS: u32 = 16;
/// Row pitch alignment, in pixels, of a 2D image made from a buffer
/// (`CL_DEVICE_IMAGE_PITCH_ALIGNMENT`): any pitch works on a CPU.
pub const PITCH_ALIGNMENT: usize = 1;
/// Base address alignment, in pixels, of a buffer an image is made from
/// (`CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT`).
pub const BASE_ADDRESS_ALIGNMENT: usize = 1;

/// Whether the APIs offer images: yes unless `FERRITE_IMAGES=0`, which makes a device
/// without them (as a user hiding a feature from an application would want). Read once.
pub fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("FERRITE_IMAGES").map_or(true, |v| v != "0"))
}

/// The OpenCL C features (and the extensions clang ties to them) kernels get while images
/// are offered (`clc.rs` adds them to clang's `-cl-ext`).
pub const OPENCL_C_FEATURES: &[&str] = &[
    "cl_khr_3d_image_writes",
    "cl_khr_depth_images",
    "__opencl_c_images",
    "__opencl_c_read_write_images",
    "__opencl_c_3d_image_writes",
];

/// The image extensions the device claims while images are offered (all of them are
/// implemented: 2D images over buffers, writes to 3D images, depth images).
const EXTENSIONS: [&str; 3] = [
    "cl_khr_image2d_from_buffer",
    "cl_khr_3d_image_writes",
    "cl_khr_depth_images",
];

/// `base` (the device's extensions), with the image extensions while images are offered
/// (`CL_DEVICE_EXTENSIONS`, `CL_PLATFORM_EXTENSIONS`).
pub fn extensions(base: &[NameVersion]) -> Vec<NameVersion> {
    let mut out = base.to_vec();
    if enabled() {
        out.extend(EXTENSIONS.iter().map(|name| NameVersion {
            name,
            version: Version::new(1, 0, 0),
        }));
    }
    out
}

/// `base` (the device's OpenCL C features), with the image features while images are
/// offered (`CL_DEVICE_OPENCL_C_FEATURES`).
pub fn opencl_c_features(base: &[NameVersion]) -> Vec<NameVersion> {
    let mut out = base.to_vec();
    if enabled() {
        out.extend(
            OPENCL_C_FEATURES
                .iter()
                .filter(|f| f.starts_with("__opencl_c_"))
                .map(|name| NameVersion {
                    name,
                    version: Version::new(3, 0, 0),
                }),
        );
    }
    out
}

/// The shape an application asks for (`cl_image_desc` without the buffer). Pitches are
/// those of the host memory given (0: tightly packed) or, for an image made from a buffer,
/// of that buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageDesc {
    pub kind: ImageKind,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub array_size: usize,
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

/// What makes a memory object an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Image {
    pub format: ImageFormat,
    pub kind: ImageKind,
    /// Width, height, depth in pixels (1 where the kind has no such dimension).
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    /// Layers of an array (0 otherwise, as `CL_IMAGE_ARRAY_SIZE` reports).
    pub array_size: usize,
    /// Bytes between rows of the storage.
    pub row_pitch: usize,
    /// Bytes between slices (3D) or layers (arrays) of the storage; for 1D and 2D images
    /// the size of the one slice.
    pub slice_pitch: usize,
    /// What a kernel's image argument points at (filled once the storage is known; the
    /// object lives in an `Arc`, so its address is stable).
    pub descriptor: ImageDescriptor,
}

impl Image {
    pub fn element_size(&self) -> usize {
        self.format.element_size()
    }

    /// The kernels' view of this image stored at `base`.
    fn describe(&self, base: usize) -> ImageDescriptor {
        let e = self.element_size() as u64;
        let (row, slice) = (self.row_pitch as u64, self.slice_pitch as u64);
        let n = |v: usize| i32::try_from(v).unwrap_or(i32::MAX);
        let (pitch, size, spatial, layered) = match self.kind {
            ImageKind::D1 | ImageKind::D1Buffer => ([e, 0, 0], [n(self.width), 1, 1], 1, 0),
            ImageKind::D1Array => ([e, slice, 0], [n(self.width), n(self.array_size), 1], 1, 1),
            ImageKind::D2 => ([e, row, 0], [n(self.width), n(self.height), 1], 2, 0),
            ImageKind::D2Array => (
                [e, row, slice],
                [n(self.width), n(self.height), n(self.array_size)],
                2,
                1,
            ),
            ImageKind::D3 => (
                [e, row, slice],
                [n(self.width), n(self.height), n(self.depth)],
                3,
                0,
            ),
        };
        ImageDescriptor {
            base: base as u64,
            pitch,
            size,
            spatial,
            layered,
            order: self.format.order.spirv(),
            channel_type: self.format.channel_type.spirv(),
            elem_size: e as i32,
        }
    }

    /// Slices (3D), layers (arrays) or 1.
    fn layers(&self) -> usize {
        match self.kind {
            ImageKind::D3 => self.depth,
            ImageKind::D1Array | ImageKind::D2Array => self.array_size,
            _ => 1,
        }
    }

    /// Bytes of storage the image spans.
    pub fn byte_size(&self) -> usize {
        self.slice_pitch * self.layers()
    }

    /// The extent of each coordinate: width, then height or layers, then depth or layers.
    pub fn extent(&self) -> [usize; 3] {
        match self.kind {
            ImageKind::D1 | ImageKind::D1Buffer => [self.width, 1, 1],
            ImageKind::D1Array => [self.width, self.array_size, 1],
            ImageKind::D2 => [self.width, self.height, 1],
            ImageKind::D2Array => [self.width, self.height, self.array_size],
            ImageKind::D3 => [self.width, self.height, self.depth],
        }
    }

    /// Check an (origin, region) in pixels against the image: every region element is
    /// non-zero, the dimensions the kind lacks are origin 0 and region 1, and the region
    /// lies inside the image.
    pub fn check_region(&self, origin: [usize; 3], region: [usize; 3]) -> Result<()> {
        if region.contains(&0) {
            return Err(Error::InvalidValue("a region element is 0"));
        }
        let ext = self.extent();
        for d in 0..3 {
            if origin[d]
                .checked_add(region[d])
                .is_none_or(|end| end > ext[d])
            {
                return Err(Error::InvalidValue("image region out of bounds"));
            }
        }
        Ok(())
    }

    /// The bytes of an image region as a rectangle of the storage (checked by
    /// [`Image::check_region`]). A 1D array's layers are its rows.
    pub fn rect(&self, origin: [usize; 3], region: [usize; 3]) -> Result<Rect> {
        self.check_region(origin, region)?;
        let e = self.element_size();
        Ok(match self.kind {
            ImageKind::D1Array => Rect {
                origin: [origin[0] * e, origin[1], 0],
                region: [region[0] * e, region[1], 1],
                row_pitch: self.slice_pitch,
                slice_pitch: self.byte_size(),
            },
            _ => Rect {
                origin: [origin[0] * e, origin[1], origin[2]],
                region: [region[0] * e, region[1], region[2]],
                row_pitch: self.row_pitch,
                slice_pitch: self.slice_pitch,
            },
        })
    }

    /// The host side of a read or write of `region` (pixels) with the application's
    /// pitches (0: tightly packed). For a 1D array the slice pitch is the distance between
    /// layers; for 1D and 2D images it must be 0.
    pub fn host_rect(
        &self,
        region: [usize; 3],
        row_pitch: usize,
        slice_pitch: usize,
    ) -> Result<Rect> {
        let e = self.element_size();
        let bytes = [region[0] * e, region[1], region[2]];
        match self.kind {
            ImageKind::D1 | ImageKind::D1Buffer | ImageKind::D2 if slice_pitch != 0 => Err(
                Error::InvalidValue("slice pitch of a 1D or 2D image is not 0"),
            ),
            ImageKind::D1Array => {
                let row = match row_pitch {
                    0 => bytes[0],
                    p if p < bytes[0] => return Err(Error::InvalidValue("row pitch too small")),
                    p => p,
                };
                let layer = match slice_pitch {
                    0 => row,
                    p if p < row => return Err(Error::InvalidValue("slice pitch too small")),
                    p => p,
                };
                Rect::new([0; 3], [bytes[0], bytes[1], 1], layer, 0)
            }
            _ => Rect::new([0; 3], bytes, row_pitch, slice_pitch),
        }
    }

    /// Resolve and check the pitches of memory laid out as `desc` says (host memory or a
    /// buffer): row pitch at least a row and a whole number of pixels, slice pitch at
    /// least a slice (a row for 1D arrays) and a whole number of rows.
    fn pitches(format: ImageFormat, desc: &ImageDesc) -> Result<(usize, usize)> {
        let e = format.element_size();
        let row_bytes = desc
            .width
            .checked_mul(e)
            .ok_or(Error::InvalidImageSize("image too large"))?;
        let row = match desc.row_pitch {
            0 => row_bytes,
            p if p < row_bytes || !p.is_multiple_of(e) => {
                return Err(Error::InvalidImageDescriptor(
                    "row pitch is smaller than a row or not a multiple of the element size",
                ))
            }
            p => p,
        };
        let rows = match desc.kind {
            ImageKind::D2 | ImageKind::D2Array | ImageKind::D3 => desc.height,
            _ => 1,
        };
        let slice_bytes = row
            .checked_mul(rows)
            .ok_or(Error::InvalidImageSize("image too large"))?;
        let slice = match desc.kind {
            ImageKind::D1Array | ImageKind::D2Array | ImageKind::D3 => match desc.slice_pitch {
                0 => slice_bytes,
                p if p < slice_bytes || !p.is_multiple_of(row) => {
                    return Err(Error::InvalidImageDescriptor(
                        "slice pitch is smaller than a slice or not a multiple of the row pitch",
                    ))
                }
                p => p,
            },
            _ => slice_bytes,
        };
        Ok((row, slice))
    }

    /// The image `desc` describes, sizes checked against the device's limits.
    fn new(format: ImageFormat, desc: &ImageDesc) -> Result<Image> {
        let size = |ok: bool, what| {
            if ok {
                Ok(())
            } else {
                Err(Error::InvalidImageSize(what))
            }
        };
        let in_range = |v: usize, max: usize| v >= 1 && v <= max;
        let d = desc;
        match d.kind {
            ImageKind::D1 => size(in_range(d.width, MAX_2D), "1D width")?,
            ImageKind::D1Buffer => size(in_range(d.width, MAX_BUFFER_PIXELS), "1D buffer width")?,
            ImageKind::D1Array => {
                size(in_range(d.width, MAX_2D), "1D array width")?;
                size(in_range(d.array_size, MAX_ARRAY), "array size")?;
            }
            ImageKind::D2 => {
                size(in_range(d.width, MAX_2D), "2D width")?;
                size(in_range(d.height, MAX_2D), "2D height")?;
            }
            ImageKind::D2Array => {
                size(in_range(d.width, MAX_2D), "2D array width")?;
                size(in_range(d.height, MAX_2D), "2D array height")?;
                size(in_range(d.array_size, MAX_ARRAY), "array size")?;
            }
            ImageKind::D3 => {
                size(in_range(d.width, MAX_3D), "3D width")?;
                size(in_range(d.height, MAX_3D), "3D height")?;
                size(in_range(d.depth, MAX_3D), "3D depth")?;
            }
        }
        let has = |dim: bool, v: usize| if dim { v } else { 1 };
        let k = d.kind;
        Ok(Image {
            format,
            kind: k,
            width: d.width,
            height: has(
                matches!(k, ImageKind::D2 | ImageKind::D2Array | ImageKind::D3),
                d.height,
            ),
            depth: has(k == ImageKind::D3, d.depth),
            array_size: if k.is_array() { d.array_size } else { 0 },
            row_pitch: 0,
            slice_pitch: 0,
            descriptor: ImageDescriptor::default(),
        })
    }
}

impl Mem {
    /// The address a kernel's image argument holds: this image's descriptor (0 for a
    /// buffer).
    pub fn image_descriptor_addr(&self) -> u64 {
        self.image
            .as_ref()
            .map_or(0, |i| &i.descriptor as *const ImageDescriptor as u64)
    }
}

/// Where an image's pixels come from.
pub enum ImageSource {
    /// Its own storage, zero-filled.
    Alloc,
    /// Its own storage, initialised from host memory laid out with `desc`'s pitches
    /// (`CL_MEM_COPY_HOST_PTR`).
    Copy(*const u8),
    /// The application's memory with `desc`'s pitches (`CL_MEM_USE_HOST_PTR`).
    Use(*mut u8),
    /// A buffer's memory with `desc`'s pitches (1D image buffers, 2D images from buffers).
    Buffer(Arc<Mem>),
}

/// Parameters of `clCreateImage`, validated by the front end (flags, and for a buffer
/// source the flags' agreement with the buffer's).
pub struct ImageCreate {
    pub flags: MemFlags,
    pub api_flags: u64,
    pub properties: Vec<u64>,
    pub format: ImageFormat,
    pub desc: ImageDesc,
    pub source: ImageSource,
}

/// Create an image.
///
/// # Safety
/// For [`ImageSource::Copy`] the pointer must be readable for the whole image laid out
/// with `desc`'s pitches; for [`ImageSource::Use`] also writable and valid for the
/// image's life. Both are the API's requirements on the application.
pub unsafe fn create(context: &Arc<Context>, c: ImageCreate) -> Result<Arc<Mem>> {
    if format::support(c.format, c.desc.kind).is_none() {
        return Err(Error::ImageFormatNotSupported);
    }
    let mut image = Image::new(c.format, &c.desc)?;
    let has_memory = !matches!(c.source, ImageSource::Alloc);
    if !has_memory && (c.desc.row_pitch != 0 || c.desc.slice_pitch != 0) {
        return Err(Error::InvalidImageDescriptor(
            "row or slice pitch given without host memory",
        ));
    }
    let (row, slice) = Image::pitches(c.format, &c.desc)?;
    let mut parent = None;
    let mut host_ptr = 0;
    let storage = match c.source {
        ImageSource::Use(p) => {
            (image.row_pitch, image.slice_pitch) = (row, slice);
            host_ptr = p as usize;
            Storage::Host(p as usize)
        }
        ImageSource::Buffer(buffer) => {
            (image.row_pitch, image.slice_pitch) = (row, slice);
            if image.byte_size() > buffer.size {
                return Err(Error::InvalidImageSize(
                    "the buffer is smaller than the image",
                ));
            }
            let base = buffer.base() as usize;
            parent = Some(buffer);
            Storage::Host(base)
        }
        ImageSource::Alloc | ImageSource::Copy(_) => {
            let e = c.format.element_size();
            image.row_pitch = image.width * e;
            image.slice_pitch = image.row_pitch * image.height;
            let max = context
                .devices
                .iter()
                .map(|d| d.max_mem_alloc_size)
                .max()
                .unwrap_or(0);
            if image.byte_size() as u64 > max {
                return Err(Error::InvalidImageSize(
                    "image larger than the largest allocation",
                ));
            }
            let buf = AlignedBuf::new(image.byte_size())?;
            if let ImageSource::Copy(p) = c.source {
                host_ptr = p as usize;
                let region = image.extent();
                let dst = image.rect([0; 3], region)?;
                let mut src = image.host_rect(region, row, 0)?;
                if matches!(c.desc.kind, ImageKind::D2Array | ImageKind::D3) {
                    src.slice_pitch = slice;
                } else if c.desc.kind == ImageKind::D1Array {
                    src.row_pitch = slice;
                }
                // SAFETY: the host memory holds the image with these pitches (caller's
                // contract); dst is inside the fresh allocation of byte_size() bytes.
                unsafe { rect::copy(p, &src, buf.as_ptr(), &dst) };
            }
            Storage::Owned(buf)
        }
    };
    image.descriptor = image.describe(storage.base() as usize);
    Ok(Arc::new(Mem {
        api: ApiObject::new(ObjectType::Mem),
        context: context.clone(),
        mem_type: MemType::Image(image.kind),
        flags: c.flags,
        api_flags: c.api_flags,
        properties: c.properties,
        size: image.byte_size(),
        host_ptr,
        parent,
        offset: 0,
        storage,
        image: Some(image),
        maps: Mutex::new(Vec::new()),
        destructors: Mutex::new(Vec::new()),
    }))
}

#[cfg(test)]
mod tests {
    use super::format::{ChannelOrder, ChannelType, Color};
    use super::*;
    use crate::mem::rect::RectOp;
    use crate::platform::Platform;

    fn ctx() -> Arc<Context> {
        Context::new(vec![Platform::get().device.clone()], Vec::new(), None)
    }

    const RGBA8: ImageFormat = ImageFormat {
        order: ChannelOrder::Rgba,
        channel_type: ChannelType::UnormInt8,
    };

    fn desc(kind: ImageKind, w: usize, h: usize, d: usize, a: usize) -> ImageDesc {
        ImageDesc {
            kind,
            width: w,
            height: h,
            depth: d,
            array_size: a,
            row_pitch: 0,
            slice_pitch: 0,
        }
    }

    fn make(desc: ImageDesc, source: ImageSource) -> Result<Arc<Mem>> {
        // SAFETY: the tests' host memory covers the images they describe.
        unsafe {
            create(
                &ctx(),
                ImageCreate {
                    flags: MemFlags::READ_WRITE,
                    api_flags: 0,
                    properties: Vec::new(),
                    format: RGBA8,
                    desc,
                    source,
                },
            )
        }
    }

    #[test]
    fn shapes_and_pitches() {
        let m = make(desc(ImageKind::D3, 5, 4, 3, 0), ImageSource::Alloc).unwrap();
        let i = m.image.unwrap();
        assert_eq!((i.row_pitch, i.slice_pitch, m.size), (20, 80, 240));
        assert_eq!(i.extent(), [5, 4, 3]);
        let m = make(desc(ImageKind::D1Array, 5, 9, 9, 7), ImageSource::Alloc).unwrap();
        let i = m.image.unwrap();
        assert_eq!(
            (i.height, i.depth, i.array_size, i.slice_pitch),
            (1, 1, 7, 20)
        );
        let r = i.rect([1, 2, 0], [2, 3, 1]).unwrap();
        assert_eq!((r.start(), r.row_pitch), (Some(4 + 40), 20));
        assert!(i.rect([0, 6, 0], [1, 2, 1]).is_err());
        assert!(i.rect([0, 0, 1], [1, 1, 1]).is_err());
        assert!(i.rect([0, 0, 0], [0, 1, 1]).is_err());
    }

    #[test]
    fn bad_descriptions() {
        let e = |d, s| make(d, s).err();
        assert_eq!(
            e(desc(ImageKind::D2, 0, 4, 0, 0), ImageSource::Alloc),
            Some(Error::InvalidImageSize("2D width"))
        );
        assert!(matches!(
            e(desc(ImageKind::D2, MAX_2D + 1, 4, 0, 0), ImageSource::Alloc),
            Some(Error::InvalidImageSize(_))
        ));
        assert!(matches!(
            e(desc(ImageKind::D3, 4, 4, 0, 0), ImageSource::Alloc),
            Some(Error::InvalidImageSize(_))
        ));
        let mut d = desc(ImageKind::D2, 4, 4, 0, 0);
        d.row_pitch = 32;
        // A pitch without host memory.
        assert!(matches!(
            e(d, ImageSource::Alloc),
            Some(Error::InvalidImageDescriptor(_))
        ));
        let host = vec![0u8; 256];
        d.row_pitch = 15;
        assert!(matches!(
            e(d, ImageSource::Copy(host.as_ptr())),
            Some(Error::InvalidImageDescriptor(_))
        ));
        d.row_pitch = 18;
        assert!(matches!(
            e(d, ImageSource::Copy(host.as_ptr())),
            Some(Error::InvalidImageDescriptor(_))
        ));
    }

    #[test]
    fn copy_host_ptr_with_pitches_then_read_back() {
        // 2 layers of 3×2 pixels, rows 16 bytes apart, layers 48 apart: padding is 0xEE.
        let mut host = [0xEEu8; 96];
        for z in 0..2 {
            for y in 0..2 {
                for x in 0..12 {
                    host[z * 48 + y * 16 + x] = (z * 100 + y * 20 + x) as u8;
                }
            }
        }
        let mut d = desc(ImageKind::D2Array, 3, 2, 0, 2);
        d.row_pitch = 16;
        d.slice_pitch = 48;
        let m = make(d, ImageSource::Copy(host.as_ptr())).unwrap();
        let i = m.image.unwrap();
        assert_eq!((i.row_pitch, i.slice_pitch), (12, 24));
        let mut out = vec![0u8; 24];
        let op = RectOp::Read {
            mem: m.clone(),
            rect: i.rect([0, 0, 1], [3, 2, 1]).unwrap(),
            host: out.as_mut_ptr() as usize,
            host_rect: i.host_rect([3, 2, 1], 0, 0).unwrap(),
        };
        // SAFETY: out holds the 24 bytes of the host rectangle.
        unsafe { op.execute() }.unwrap();
        let want: Vec<u8> = (0..2)
            .flat_map(|y| (0..12).map(move |x| (100 + y * 20 + x) as u8))
            .collect();
        assert_eq!(out, want);
    }

    #[test]
    fn use_host_ptr_and_buffer_images_alias() {
        let mut host = vec![0u8; 64];
        let mut d = desc(ImageKind::D2, 2, 2, 0, 0);
        d.row_pitch = 32;
        let m = make(d, ImageSource::Use(host.as_mut_ptr())).unwrap();
        assert_eq!(m.base(), host.as_mut_ptr());
        let i = m.image.unwrap();
        let mut px = [0u8; 4];
        format::encode(RGBA8, Color::Float([1.0, 0.0, 0.0, 1.0]), &mut px);
        let op = RectOp::Fill {
            mem: m.clone(),
            rect: i.rect([1, 1, 0], [1, 1, 1]).unwrap(),
            pixel: px.to_vec(),
        };
        // SAFETY: no host memory is named.
        unsafe { op.execute() }.unwrap();
        drop(m);
        assert_eq!(&host[36..40], &[255, 0, 0, 255]);
        assert!(host[..36].iter().all(|&b| b == 0));

        let flags = MemFlags::READ_WRITE;
        // SAFETY: no host pointer.
        let buf = unsafe {
            super::super::buffer::create(
                &ctx(),
                super::super::buffer::BufferDesc {
                    flags,
                    api_flags: 0,
                    properties: Vec::new(),
                    size: 64,
                    host_ptr: std::ptr::null_mut(),
                },
            )
        }
        .unwrap();
        let img = make(
            desc(ImageKind::D1Buffer, 16, 0, 0, 0),
            ImageSource::Buffer(buf.clone()),
        )
        .unwrap();
        assert_eq!(img.base(), buf.base());
        assert!(img.overlaps(0, 4, &buf, 0, 4));
        assert!(matches!(
            make(
                desc(ImageKind::D1Buffer, 17, 0, 0, 0),
                ImageSource::Buffer(buf)
            )
            .err(),
            Some(Error::InvalidImageSize(_))
        ));
    }

    #[test]
    fn copies_between_kinds() {
        // A 2D image into layer 1 of a 2D array, then the array's layer to a buffer.
        let src_host: Vec<u8> = (0..64).collect();
        let src = make(
            desc(ImageKind::D2, 4, 4, 0, 0),
            ImageSource::Copy(src_host.as_ptr()),
        )
        .unwrap();
        let dst = make(desc(ImageKind::D2Array, 4, 4, 0, 2), ImageSource::Alloc).unwrap();
        let (si, di) = (src.image.unwrap(), dst.image.unwrap());
        let op = RectOp::Copy {
            src: src.clone(),
            src_rect: si.rect([1, 1, 0], [2, 2, 1]).unwrap(),
            dst: dst.clone(),
            dst_rect: di.rect([0, 0, 1], [2, 2, 1]).unwrap(),
        };
        // SAFETY: no host memory is named.
        unsafe { op.execute() }.unwrap();
        let mut out = vec![0u8; 16];
        let op = RectOp::Read {
            mem: dst.clone(),
            rect: di.rect([0, 0, 1], [2, 2, 1]).unwrap(),
            host: out.as_mut_ptr() as usize,
            host_rect: di.host_rect([2, 2, 1], 0, 0).unwrap(),
        };
        // SAFETY: out holds the 16 bytes of the host rectangle.
        unsafe { op.execute() }.unwrap();
        assert_eq!(
            out,
            [20, 21, 22, 23, 24, 25, 26, 27, 36, 37, 38, 39, 40, 41, 42, 43]
        );
    }
}
