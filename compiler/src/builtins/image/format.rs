//! The image format table and the conversions between pixels and colours.
//!
//! One list ([`FORMATS`]) says which channel order × channel type pairs Ferrite supports,
//! for which image types and with which kernel access; every other question about a format
//! (element size, channel count, how a colour becomes bytes and back) is answered from the
//! two enums. The conversions follow the OpenCL 3.0 specification, section "Conversion
//! Rules" of the OpenCL C specification:
//!
//! - normalised integers are written with round-to-nearest-even and saturation
//!   (`convert_uchar_sat_rte(f * 255.0f)`, `convert_char_sat_rte(f * 127.0f)`, …) and read
//!   as `c / 255.0f`, `max(-1.0f, c / 127.0f)`, …;
//! - the packed types (`CL_UNORM_SHORT_565`, `_555`, `CL_UNORM_INT_101010`) are normalised
//!   channels at their bit positions (`565`: red in bits 15:11);
//! - sRGB channels go through the standard transfer curves (alpha stays linear);
//! - half floats are written with round-to-nearest-even;
//! - unnormalised integers saturate to the channel type on writes; missing channels read as
//!   0, alpha as 1.
//!
//! The runtime's image objects (`runtime/src/mem/image.rs`) and the kernels' image library
//! ([`super`]) share this module: one table, one set of conversions.

/// `cl_channel_order` (and Level-Zero's layouts once it has images). SPIR-V's
/// `ImageChannelOrder` numbers them as [`ChannelOrder::spirv`] says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelOrder {
    R,
    A,
    Rg,
    Ra,
    Rgb,
    Rgba,
    Bgra,
    Argb,
    Abgr,
    Intensity,
    Luminance,
    Depth,
    Srgba,
    Sbgra,
}

/// `cl_channel_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelType {
    SnormInt8,
    SnormInt16,
    UnormInt8,
    UnormInt16,
    UnormShort565,
    UnormShort555,
    UnormInt101010,
    SignedInt8,
    SignedInt16,
    SignedInt32,
    UnsignedInt8,
    UnsignedInt16,
    UnsignedInt32,
    HalfFloat,
    Float,
}

/// An image format: channel order and channel type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageFormat {
    pub order: ChannelOrder,
    pub channel_type: ChannelType,
}

/// The kinds of image (`cl_mem_object_type` of an image).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageKind {
    D1,
    D1Buffer,
    D1Array,
    D2,
    D2Array,
    D3,
}

impl ImageKind {
    /// Number of coordinates that address a pixel (array index included).
    pub fn coords(self) -> usize {
        match self {
            ImageKind::D1 | ImageKind::D1Buffer => 1,
            ImageKind::D1Array | ImageKind::D2 => 2,
            ImageKind::D2Array | ImageKind::D3 => 3,
        }
    }

    pub fn is_array(self) -> bool {
        matches!(self, ImageKind::D1Array | ImageKind::D2Array)
    }
}

/// What a kernel may do with images of a format (a row of [`FORMATS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub read: bool,
    pub write: bool,
    /// `__read_write` images (`CL_MEM_KERNEL_READ_AND_WRITE`).
    pub read_write: bool,
}

const ALL: Access = Access {
    read: true,
    write: true,
    read_write: true,
};
/// sRGB is read-only: writes need `cl_khr_srgb_image_writes`, which Ferrite does not claim.
const READ_ONLY: Access = Access {
    read: true,
    write: false,
    read_write: false,
};

use ChannelOrder as O;
use ChannelType as T;

const NORM_AND_INT: [ChannelType; 12] = [
    T::SnormInt8,
    T::SnormInt16,
    T::UnormInt8,
    T::UnormInt16,
    T::SignedInt8,
    T::SignedInt16,
    T::SignedInt32,
    T::UnsignedInt8,
    T::UnsignedInt16,
    T::UnsignedInt32,
    T::HalfFloat,
    T::Float,
];
const BYTE_TYPES: [ChannelType; 4] = [T::SnormInt8, T::UnormInt8, T::SignedInt8, T::UnsignedInt8];
const LUMINANCE_TYPES: [ChannelType; 6] = [
    T::SnormInt8,
    T::SnormInt16,
    T::UnormInt8,
    T::UnormInt16,
    T::HalfFloat,
    T::Float,
];

/// The one list of supported formats: (orders, types, access, depth-only image kinds).
/// Every order in a row is supported with every type of the row. The OpenCL 3.0 minimum
/// lists (R, RG, RGBA with all twelve types; BGRA and sRGBA UNORM_INT8) are all here.
const FORMATS: &[(&[ChannelOrder], &[ChannelType], Access)] = &[
    (&[O::R, O::A, O::Rg, O::Ra, O::Rgba], &NORM_AND_INT, ALL),
    (&[O::Bgra, O::Argb, O::Abgr], &BYTE_TYPES, ALL),
    (&[O::Intensity, O::Luminance], &LUMINANCE_TYPES, ALL),
    (
        &[O::Rgb],
        &[T::UnormShort565, T::UnormShort555, T::UnormInt101010],
        ALL,
    ),
    (&[O::Depth], &[T::UnormInt16, T::Float], ALL),
    (&[O::Srgba, O::Sbgra], &[T::UnormInt8], READ_ONLY),
];

/// Whether images of `kind` may have a format of `order` (depth images are 2D or 2D
/// arrays: `cl_khr_depth_images`).
fn kind_allows(order: ChannelOrder, kind: ImageKind) -> bool {
    order != O::Depth || matches!(kind, ImageKind::D2 | ImageKind::D2Array)
}

/// What kernels may do with `format` in images of `kind`; `None` if it is not supported.
pub fn support(format: ImageFormat, kind: ImageKind) -> Option<Access> {
    if !kind_allows(format.order, kind) {
        return None;
    }
    FORMATS.iter().find_map(|(orders, types, access)| {
        (orders.contains(&format.order) && types.contains(&format.channel_type)).then_some(*access)
    })
}

/// Every supported format of images of `kind` usable with the access asked for, in table
/// order (`clGetSupportedImageFormats`).
pub fn supported(kind: ImageKind, read: bool, write: bool, read_write: bool) -> Vec<ImageFormat> {
    let mut out = Vec::new();
    for (orders, types, access) in FORMATS {
        if (read && !access.read) || (write && !access.write) || (read_write && !access.read_write)
        {
            continue;
        }
        for &order in orders.iter().filter(|o| kind_allows(**o, kind)) {
            for &channel_type in types.iter() {
                out.push(ImageFormat {
                    order,
                    channel_type,
                });
            }
        }
    }
    out
}

impl ChannelOrder {
    /// Every order, with its SPIR-V `ImageChannelOrder` value (also what
    /// `get_image_channel_order` returns minus `CL_R`).
    const SPIRV: [(ChannelOrder, i32); 14] = [
        (O::R, 0),
        (O::A, 1),
        (O::Rg, 2),
        (O::Ra, 3),
        (O::Rgb, 4),
        (O::Rgba, 5),
        (O::Bgra, 6),
        (O::Argb, 7),
        (O::Intensity, 8),
        (O::Luminance, 9),
        (O::Depth, 13),
        (O::Srgba, 17),
        (O::Sbgra, 18),
        (O::Abgr, 19),
    ];

    pub fn spirv(self) -> i32 {
        Self::SPIRV
            .iter()
            .find(|(o, _)| *o == self)
            .map_or(0, |(_, v)| *v)
    }

    pub fn from_spirv(v: i32) -> Option<ChannelOrder> {
        Self::SPIRV.iter().find(|(_, x)| *x == v).map(|(o, _)| *o)
    }
}

impl ChannelType {
    /// Every type, with its SPIR-V `ImageChannelDataType` value (also what
    /// `get_image_channel_data_type` returns minus `CL_SNORM_INT8`).
    const SPIRV: [(ChannelType, i32); 15] = [
        (T::SnormInt8, 0),
        (T::SnormInt16, 1),
        (T::UnormInt8, 2),
        (T::UnormInt16, 3),
        (T::UnormShort565, 4),
        (T::UnormShort555, 5),
        (T::UnormInt101010, 6),
        (T::SignedInt8, 7),
        (T::SignedInt16, 8),
        (T::SignedInt32, 9),
        (T::UnsignedInt8, 10),
        (T::UnsignedInt16, 11),
        (T::UnsignedInt32, 12),
        (T::HalfFloat, 13),
        (T::Float, 14),
    ];

    pub fn spirv(self) -> i32 {
        Self::SPIRV
            .iter()
            .find(|(t, _)| *t == self)
            .map_or(0, |(_, v)| *v)
    }

    pub fn from_spirv(v: i32) -> Option<ChannelType> {
        Self::SPIRV.iter().find(|(_, x)| *x == v).map(|(t, _)| *t)
    }

    /// Bytes of one channel, or of the whole pixel for the packed types.
    pub fn size(self) -> usize {
        match self {
            T::SnormInt8 | T::UnormInt8 | T::SignedInt8 | T::UnsignedInt8 => 1,
            T::SnormInt16
            | T::UnormInt16
            | T::SignedInt16
            | T::UnsignedInt16
            | T::HalfFloat
            | T::UnormShort565
            | T::UnormShort555 => 2,
            T::SignedInt32 | T::UnsignedInt32 | T::Float | T::UnormInt101010 => 4,
        }
    }

    pub fn is_packed(self) -> bool {
        matches!(
            self,
            T::UnormShort565 | T::UnormShort555 | T::UnormInt101010
        )
    }

    /// What kind of colour a kernel reads and writes (`read_imagef`, `_i`, `_ui`).
    pub fn class(self) -> ColorClass {
        match self {
            T::SignedInt8 | T::SignedInt16 | T::SignedInt32 => ColorClass::Int,
            T::UnsignedInt8 | T::UnsignedInt16 | T::UnsignedInt32 => ColorClass::Uint,
            _ => ColorClass::Float,
        }
    }
}

impl ChannelOrder {
    /// Channels stored per pixel.
    pub fn channels(self) -> usize {
        match self {
            O::R | O::A | O::Intensity | O::Luminance | O::Depth => 1,
            O::Rg | O::Ra => 2,
            O::Rgb => 3,
            O::Rgba | O::Bgra | O::Argb | O::Abgr | O::Srgba | O::Sbgra => 4,
        }
    }

    /// For each stored channel, in memory order, the colour component it holds
    /// (0 = x/red, 1 = y/green, 2 = z/blue, 3 = w/alpha).
    pub fn layout(self) -> &'static [usize] {
        match self {
            O::R | O::Intensity | O::Luminance | O::Depth => &[0],
            O::A => &[3],
            O::Rg => &[0, 1],
            O::Ra => &[0, 3],
            O::Rgb => &[0, 1, 2],
            O::Rgba | O::Srgba => &[0, 1, 2, 3],
            O::Bgra | O::Sbgra => &[2, 1, 0, 3],
            O::Argb => &[3, 0, 1, 2],
            O::Abgr => &[3, 2, 1, 0],
        }
    }

    pub fn is_srgb(self) -> bool {
        matches!(self, O::Srgba | O::Sbgra)
    }
}

impl ImageFormat {
    /// Bytes per pixel (`CL_IMAGE_ELEMENT_SIZE`).
    pub fn element_size(self) -> usize {
        if self.channel_type.is_packed() {
            self.channel_type.size()
        } else {
            self.channel_type.size() * self.order.channels()
        }
    }

    /// Whether the pair is a well-formed format at all (any kind of image): the packed
    /// types need `CL_RGB`, and `CL_RGB` needs a packed type.
    pub fn is_supported(self) -> bool {
        [ImageKind::D2, ImageKind::D1]
            .iter()
            .any(|k| support(self, *k).is_some())
    }
}

/// How a kernel sees a format's pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorClass {
    Float,
    Int,
    Uint,
}

/// A colour as kernels and `clEnqueueFillImage` give it: `float4`, `int4` or `uint4`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Color {
    Float([f32; 4]),
    Int([i32; 4]),
    Uint([u32; 4]),
}

impl Color {
    /// Read a colour of `class` from 16 bytes in native order (a fill colour).
    pub fn from_bytes(class: ColorClass, b: &[u8; 16]) -> Color {
        let w = |i: usize| [b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]];
        match class {
            ColorClass::Float => Color::Float(std::array::from_fn(|i| f32::from_ne_bytes(w(i)))),
            ColorClass::Int => Color::Int(std::array::from_fn(|i| i32::from_ne_bytes(w(i)))),
            ColorClass::Uint => Color::Uint(std::array::from_fn(|i| u32::from_ne_bytes(w(i)))),
        }
    }

    /// A colour of `class` from four 32-bit lanes (float bits or integers).
    #[inline]
    pub fn from_lanes(class: ColorClass, l: [u32; 4]) -> Color {
        match class {
            ColorClass::Float => Color::Float(l.map(f32::from_bits)),
            ColorClass::Int => Color::Int(l.map(|x| x as i32)),
            ColorClass::Uint => Color::Uint(l),
        }
    }

    pub fn class(self) -> ColorClass {
        match self {
            Color::Float(_) => ColorClass::Float,
            Color::Int(_) => ColorClass::Int,
            Color::Uint(_) => ColorClass::Uint,
        }
    }

    fn floats(self) -> [f32; 4] {
        match self {
            Color::Float(f) => f,
            Color::Int(i) => i.map(|v| v as f32),
            Color::Uint(u) => u.map(|v| v as f32),
        }
    }

    fn ints(self) -> [i64; 4] {
        match self {
            Color::Float(f) => f.map(|v| v as i64),
            Color::Int(i) => i.map(i64::from),
            // A uint4 written to a signed format: the value as the kernel's bits say.
            Color::Uint(u) => u.map(i64::from),
        }
    }
}

/// `convert_<T>_sat_rte(v)` into `[lo, hi]`; NaN becomes 0.
#[inline]
pub(crate) fn sat_rte(v: f32, lo: f32, hi: f32) -> i64 {
    if v.is_nan() {
        return 0;
    }
    // Every bound is within 2^16, so adding and taking away 1.5 × 2^23 rounds to the
    // nearest integer, ties to even, in the default rounding mode: the same result as
    // `round_ties_even`, which is a call to `rintf` on x86-64 without SSE4.1.
    const MAGIC: f32 = 12_582_912.0;
    let c = v.clamp(lo, hi);
    ((c + MAGIC) - MAGIC) as i64
}

/// Linear → sRGB transfer (the OpenCL C specification's `linear_to_sRGB`).
pub fn linear_to_srgb(c: f32) -> f32 {
    if c.is_nan() || c <= 0.0 {
        0.0
    } else if c >= 1.0 {
        1.0
    } else if c < 0.003_130_8 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// sRGB → linear transfer.
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.040_45 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// `f32` → IEEE half bits, round to nearest even (overflow to infinity, NaN kept quiet).
pub fn f32_to_half(f: f32) -> u16 {
    let x = f.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        return sign
            | 0x7c00
            | if man != 0 {
                0x200 | (man >> 13) as u16
            } else {
                0
            };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        // Subnormal half (or zero): shift the mantissa with its implicit bit.
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = m >> shift;
        let rest = m & ((1 << shift) - 1);
        let mid = 1 << (shift - 1);
        let round = u32::from(rest > mid || (rest == mid && half & 1 == 1));
        return sign | (half + round) as u16;
    }
    let half = ((e as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    let round = u32::from(rest > 0x1000 || (rest == 0x1000 && half & 1 == 1));
    // A carry out of the mantissa correctly bumps the exponent (up to infinity).
    sign | (half + round) as u16
}

/// IEEE half bits → `f32` (exact).
pub fn half_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    let bits = match (exp, man) {
        (0, 0) => sign,
        // Subnormal: m × 2^-24, exact in f32.
        (0, m) => {
            let v = m as f32 * 2f32.powi(-24);
            return if sign != 0 { -v } else { v };
        }
        (0x1f, m) => sign | 0x7f80_0000 | (m << 13),
        (e, m) => sign | ((e + 127 - 15) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// Store one channel value `v` (a float for normalised/float types, an integer otherwise).
fn put_channel(t: ChannelType, f: f32, i: i64, out: &mut [u8]) {
    match t {
        T::UnormInt8 => out[0] = sat_rte(f * 255.0, 0.0, 255.0) as u8,
        T::SnormInt8 => out[0] = sat_rte(f * 127.0, -128.0, 127.0) as i8 as u8,
        T::UnormInt16 => {
            out[..2].copy_from_slice(&(sat_rte(f * 65535.0, 0.0, 65535.0) as u16).to_ne_bytes())
        }
        T::SnormInt16 => out[..2]
            .copy_from_slice(&(sat_rte(f * 32767.0, -32768.0, 32767.0) as i16).to_ne_bytes()),
        T::HalfFloat => out[..2].copy_from_slice(&f32_to_half(f).to_ne_bytes()),
        T::Float => out[..4].copy_from_slice(&f.to_ne_bytes()),
        T::SignedInt8 => out[0] = i.clamp(-128, 127) as i8 as u8,
        T::SignedInt16 => out[..2].copy_from_slice(&(i.clamp(-32768, 32767) as i16).to_ne_bytes()),
        T::SignedInt32 => out[..4].copy_from_slice(&(i as i32).to_ne_bytes()),
        T::UnsignedInt8 => out[0] = i.clamp(0, 255) as u8,
        T::UnsignedInt16 => out[..2].copy_from_slice(&(i.clamp(0, 65535) as u16).to_ne_bytes()),
        T::UnsignedInt32 => out[..4].copy_from_slice(&(i as u32).to_ne_bytes()),
        T::UnormShort565 | T::UnormShort555 | T::UnormInt101010 => {
            unreachable!("packed types are stored whole")
        }
    }
}

/// Read one channel as (float, integer) — the one that applies to the type.
fn get_channel(t: ChannelType, b: &[u8]) -> (f32, i64) {
    let u16_at = || u16::from_ne_bytes([b[0], b[1]]);
    let u32_at = || u32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
    match t {
        T::UnormInt8 => (f32::from(b[0]) / 255.0, 0),
        T::SnormInt8 => ((f32::from(b[0] as i8) / 127.0).max(-1.0), 0),
        T::UnormInt16 => (f32::from(u16_at()) / 65535.0, 0),
        T::SnormInt16 => ((f32::from(u16_at() as i16) / 32767.0).max(-1.0), 0),
        T::HalfFloat => (half_to_f32(u16_at()), 0),
        T::Float => (f32::from_bits(u32_at()), 0),
        T::SignedInt8 => (0.0, i64::from(b[0] as i8)),
        T::SignedInt16 => (0.0, i64::from(u16_at() as i16)),
        T::SignedInt32 => (0.0, i64::from(u32_at() as i32)),
        T::UnsignedInt8 => (0.0, i64::from(b[0])),
        T::UnsignedInt16 => (0.0, i64::from(u16_at())),
        T::UnsignedInt32 => (0.0, i64::from(u32_at())),
        T::UnormShort565 | T::UnormShort555 | T::UnormInt101010 => {
            unreachable!("packed types are read whole")
        }
    }
}

/// Bit widths and shifts of a packed type's red, green and blue channels.
fn packed_fields(t: ChannelType) -> [(u32, u32); 3] {
    match t {
        T::UnormShort565 => [(5, 11), (6, 5), (5, 0)],
        T::UnormShort555 => [(5, 10), (5, 5), (5, 0)],
        _ => [(10, 20), (10, 10), (10, 0)],
    }
}

/// Write `color` as one pixel of `format` into `out` (`element_size` bytes).
pub fn encode(format: ImageFormat, color: Color, out: &mut [u8]) {
    let t = format.channel_type;
    // The commonest formats first, with the general path's arithmetic.
    if let (O::Rgba, Color::Float(f)) = (format.order, color) {
        match t {
            T::UnormInt8 => {
                for (o, c) in out.iter_mut().zip(f) {
                    *o = sat_rte(c * 255.0, 0.0, 255.0) as u8;
                }
                return;
            }
            T::Float => {
                for (o, c) in out.chunks_exact_mut(4).zip(f) {
                    o.copy_from_slice(&c.to_ne_bytes());
                }
                return;
            }
            _ => {}
        }
    }
    let mut f = color.floats();
    let ints = color.ints();
    if format.order.is_srgb() {
        for c in &mut f[..3] {
            *c = linear_to_srgb(*c);
        }
    }
    if t.is_packed() {
        let mut bits = 0u32;
        for (c, (width, shift)) in packed_fields(t).into_iter().enumerate() {
            let max = ((1u32 << width) - 1) as f32;
            bits |= (sat_rte(f[c] * max, 0.0, max) as u32) << shift;
        }
        let n = t.size();
        out[..n].copy_from_slice(&bits.to_ne_bytes()[..n]);
        return;
    }
    let size = t.size();
    for (slot, &component) in format.order.layout().iter().enumerate() {
        let o = &mut out[slot * size..(slot + 1) * size];
        put_channel(t, f[component], ints[component], o);
    }
}

/// Read one pixel of `format` from `b` as the colour a kernel's `read_image{f,i,ui}` gets.
pub fn decode(format: ImageFormat, b: &[u8]) -> Color {
    let t = format.channel_type;
    // The commonest formats first, with the general path's arithmetic: a linear sample
    // decodes four pixels per tap.
    match (format.order, t) {
        (O::Rgba, T::UnormInt8) => {
            return Color::Float([b[0], b[1], b[2], b[3]].map(|x| f32::from(x) / 255.0))
        }
        (O::Rgba, T::Float) => {
            let mut f = [0.0f32; 4];
            for (c, w) in f.iter_mut().zip(b.chunks_exact(4)) {
                *c = f32::from_bits(u32::from_ne_bytes([w[0], w[1], w[2], w[3]]));
            }
            return Color::Float(f);
        }
        _ => {}
    }
    let class = t.class();
    if t.is_packed() {
        let mut w = [0u8; 4];
        w[..t.size()].copy_from_slice(&b[..t.size()]);
        let bits = u32::from_ne_bytes(w);
        let mut f = [0.0, 0.0, 0.0, 1.0];
        for (c, (width, shift)) in packed_fields(t).into_iter().enumerate() {
            let max = (1u32 << width) - 1;
            f[c] = ((bits >> shift) & max) as f32 / max as f32;
        }
        return Color::Float(f);
    }
    let size = t.size();
    let mut f = [0.0f32, 0.0, 0.0, 1.0];
    let mut i = [0i64, 0, 0, 1];
    for (slot, &component) in format.order.layout().iter().enumerate() {
        let (cf, ci) = get_channel(t, &b[slot * size..(slot + 1) * size]);
        f[component] = cf;
        i[component] = ci;
    }
    match format.order {
        O::Intensity => {
            f = [f[0]; 4];
            i = [i[0]; 4];
        }
        O::Luminance => {
            f = [f[0], f[0], f[0], 1.0];
            i = [i[0], i[0], i[0], 1];
        }
        _ => {}
    }
    if format.order.is_srgb() {
        for c in &mut f[..3] {
            *c = srgb_to_linear(*c);
        }
    }
    match class {
        ColorClass::Float => Color::Float(f),
        ColorClass::Int => Color::Int(i.map(|v| v as i32)),
        ColorClass::Uint => Color::Uint(i.map(|v| v as u32)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(order: ChannelOrder, channel_type: ChannelType) -> ImageFormat {
        ImageFormat {
            order,
            channel_type,
        }
    }

    fn roundtrip(format: ImageFormat, c: Color) -> (Vec<u8>, Color) {
        let mut b = vec![0u8; format.element_size()];
        encode(format, c, &mut b);
        let back = decode(format, &b);
        (b, back)
    }

    #[test]
    fn minimum_formats_are_supported() {
        for order in [O::R, O::Rg, O::Rgba] {
            for t in NORM_AND_INT {
                for kind in [
                    ImageKind::D1,
                    ImageKind::D2,
                    ImageKind::D3,
                    ImageKind::D2Array,
                ] {
                    let a = support(fmt(order, t), kind).expect("minimum format");
                    assert!(a.read && a.write && a.read_write);
                }
            }
        }
        assert!(support(fmt(O::Bgra, T::UnormInt8), ImageKind::D2).is_some());
        assert_eq!(
            support(fmt(O::Srgba, T::UnormInt8), ImageKind::D2),
            Some(READ_ONLY)
        );
        assert!(support(fmt(O::Rgb, T::UnormInt8), ImageKind::D2).is_none());
        assert!(support(fmt(O::Rgba, T::UnormShort565), ImageKind::D2).is_none());
        assert!(support(fmt(O::Depth, T::Float), ImageKind::D2Array).is_some());
        assert!(support(fmt(O::Depth, T::Float), ImageKind::D3).is_none());
        // The listing and the lookup agree.
        for kind in [ImageKind::D1, ImageKind::D2, ImageKind::D3] {
            let all = supported(kind, false, false, false);
            assert!(all.iter().all(|f| support(*f, kind).is_some()));
            let writable = supported(kind, false, true, false);
            assert!(!writable.iter().any(|f| f.order.is_srgb()));
            assert!(writable.len() < all.len());
        }
    }

    #[test]
    fn element_sizes() {
        assert_eq!(fmt(O::Rgba, T::Float).element_size(), 16);
        assert_eq!(fmt(O::Rgba, T::UnormInt8).element_size(), 4);
        assert_eq!(fmt(O::Rg, T::HalfFloat).element_size(), 4);
        assert_eq!(fmt(O::Rgb, T::UnormShort565).element_size(), 2);
        assert_eq!(fmt(O::Rgb, T::UnormInt101010).element_size(), 4);
        assert_eq!(fmt(O::Luminance, T::UnormInt16).element_size(), 2);
    }

    #[test]
    fn unorm_rounds_to_nearest_even_and_saturates() {
        let f = fmt(O::Rgba, T::UnormInt8);
        // 0.5 * 255 = 127.5 → 128 (even); 1.5/255*255 = 1.5 → 2; negatives and NaN → 0.
        let (b, _) = roundtrip(f, Color::Float([0.5, 1.5 / 255.0, -3.0, f32::NAN]));
        assert_eq!(b, [128, 2, 0, 0]);
        let (b, back) = roundtrip(f, Color::Float([2.0, 1.0, 0.0, 0.2]));
        assert_eq!(b, [255, 255, 0, 51]);
        assert_eq!(back, Color::Float([1.0, 1.0, 0.0, 0.2]));
        let s = fmt(O::R, T::SnormInt8);
        let (b, back) = roundtrip(s, Color::Float([-2.0, 0.0, 0.0, 0.0]));
        assert_eq!(b, [(-128i8) as u8]);
        // -128 reads as -1, not -128/127.
        assert_eq!(back, Color::Float([-1.0, 0.0, 0.0, 1.0]));
        let u16f = fmt(O::R, T::UnormInt16);
        let (b, _) = roundtrip(u16f, Color::Float([0.5, 0.0, 0.0, 0.0]));
        assert_eq!(u16::from_ne_bytes([b[0], b[1]]), 32768);
    }

    #[test]
    fn sat_rte_rounds_ties_to_even() {
        for i in -140_000..=140_000i32 {
            // Every quarter between -35000 and 35000: integers, ties and the values between.
            let v = i as f32 / 4.0;
            for (lo, hi) in [
                (0.0, 255.0),
                (-128.0, 127.0),
                (0.0, 65535.0),
                (-32768.0, 32767.0),
            ] {
                let want = v.clamp(lo, hi).round_ties_even() as i64;
                assert_eq!(sat_rte(v, lo, hi), want, "{v} in [{lo}, {hi}]");
            }
        }
        assert_eq!(sat_rte(f32::NAN, 0.0, 255.0), 0);
        assert_eq!(sat_rte(f32::INFINITY, 0.0, 255.0), 255);
        assert_eq!(sat_rte(f32::NEG_INFINITY, -128.0, 127.0), -128);
        assert_eq!(sat_rte(0.5 - f32::EPSILON / 4.0, 0.0, 255.0), 0);
    }

    #[test]
    fn rgba_fast_paths_agree_with_the_general_path() {
        // BGRA takes the general path; the same colour must give the same bytes, swizzled.
        let swap = |b: &[u8], size: usize| -> Vec<u8> {
            let mut v = b.to_vec();
            for k in 0..size {
                v.swap(k, 2 * size + k);
            }
            v
        };
        for t in [T::UnormInt8, T::Float] {
            let size = t.size();
            let (rgba, bgra) = (fmt(O::Rgba, t), fmt(O::Bgra, t));
            for i in 0..=1030u32 {
                let x = i as f32 / 1024.0 - 0.003;
                let c = Color::Float([x, 1.0 - x, f32::NAN, x * 255.5 / 255.0]);
                let (mut a, mut b) = (vec![0u8; 4 * size], vec![0u8; 4 * size]);
                encode(rgba, c, &mut a);
                encode(bgra, c, &mut b);
                assert_eq!(a, swap(&b, size), "{t:?} encode of {c:?}");
                let (da, db) = (decode(rgba, &a), decode(bgra, &b));
                assert_eq!(format!("{da:?}"), format!("{db:?}"), "{t:?} decode");
            }
        }
    }

    #[test]
    fn channel_orders_place_components() {
        let c = Color::Uint([1, 2, 3, 4]);
        let cases: [(ChannelOrder, &[u8]); 8] = [
            (O::R, &[1]),
            (O::A, &[4]),
            (O::Rg, &[1, 2]),
            (O::Ra, &[1, 4]),
            (O::Rgba, &[1, 2, 3, 4]),
            (O::Bgra, &[3, 2, 1, 4]),
            (O::Argb, &[4, 1, 2, 3]),
            (O::Abgr, &[4, 3, 2, 1]),
        ];
        for (order, want) in cases {
            let f = fmt(order, T::UnsignedInt8);
            let (b, back) = roundtrip(f, c);
            assert_eq!(b, want, "{order:?}");
            let Color::Uint(v) = back else {
                panic!("uint format reads uint")
            };
            for (k, &comp) in order.layout().iter().enumerate() {
                assert_eq!(v[comp], u32::from(want[k]));
            }
        }
        // Missing channels read as 0, alpha as 1.
        let (_, back) = roundtrip(fmt(O::Rg, T::SignedInt16), Color::Int([-5, 7, 9, 9]));
        assert_eq!(back, Color::Int([-5, 7, 0, 1]));
        let (_, back) = roundtrip(
            fmt(O::Intensity, T::Float),
            Color::Float([0.25, 9.0, 9.0, 9.0]),
        );
        assert_eq!(back, Color::Float([0.25; 4]));
        let (_, back) = roundtrip(
            fmt(O::Luminance, T::Float),
            Color::Float([0.25, 9.0, 9.0, 9.0]),
        );
        assert_eq!(back, Color::Float([0.25, 0.25, 0.25, 1.0]));
    }

    #[test]
    fn integers_saturate() {
        let (b, _) = roundtrip(fmt(O::Rg, T::SignedInt8), Color::Int([300, -300, 0, 0]));
        assert_eq!(b, [127, (-128i8) as u8]);
        let (b, _) = roundtrip(fmt(O::Rg, T::UnsignedInt16), Color::Uint([70000, 5, 0, 0]));
        assert_eq!(b, [0xff, 0xff, 5, 0]);
    }

    #[test]
    fn packed_formats() {
        let f = fmt(O::Rgb, T::UnormShort565);
        let (b, back) = roundtrip(f, Color::Float([1.0, 0.0, 1.0, 0.0]));
        assert_eq!(u16::from_ne_bytes([b[0], b[1]]), 0xf81f);
        assert_eq!(back, Color::Float([1.0, 0.0, 1.0, 1.0]));
        let f = fmt(O::Rgb, T::UnormShort555);
        let (b, _) = roundtrip(f, Color::Float([0.0, 1.0, 0.0, 0.0]));
        assert_eq!(u16::from_ne_bytes([b[0], b[1]]), 0x03e0);
        let f = fmt(O::Rgb, T::UnormInt101010);
        let (b, back) = roundtrip(f, Color::Float([1.0, 0.5, 0.0, 0.0]));
        // 0.5 * 1023 = 511.5 → 512 (even).
        assert_eq!(
            u32::from_ne_bytes([b[0], b[1], b[2], b[3]]),
            (1023 << 20) | (512 << 10)
        );
        let Color::Float(v) = back else {
            panic!("packed formats read float")
        };
        assert_eq!(v[1], 512.0 / 1023.0);
    }

    #[test]
    fn srgb_curves() {
        let f = fmt(O::Srgba, T::UnormInt8);
        let (b, back) = roundtrip(f, Color::Float([0.5, 0.0, 1.0, 0.5]));
        // linear 0.5 → sRGB 0.7354 → 187.5 → 188; alpha linear 127.5 → 128.
        assert_eq!(b, [188, 0, 255, 128]);
        let Color::Float(v) = back else {
            panic!("sRGB reads float")
        };
        assert!((v[0] - 0.5).abs() < 0.01 && v[3] == 128.0 / 255.0);
        // BGRA order applies to sBGRA too.
        let (b, _) = roundtrip(
            fmt(O::Sbgra, T::UnormInt8),
            Color::Float([0.0, 0.0, 1.0, 1.0]),
        );
        assert_eq!(b, [255, 0, 0, 255]);
    }

    #[test]
    fn half_conversion() {
        for (f, h) in [
            (0.0f32, 0x0000u16),
            (1.0, 0x3c00),
            (-2.0, 0xc000),
            (65504.0, 0x7bff),
            (65520.0, 0x7c00),
            (f32::INFINITY, 0x7c00),
            (5.960_464_5e-8, 0x0001),
            (6.103_515_6e-5, 0x0400),
        ] {
            assert_eq!(f32_to_half(f), h, "{f}");
            if h != 0x7c00 || f.is_infinite() {
                assert_eq!(half_to_f32(h), f, "{h:#x}");
            }
        }
        assert!(half_to_f32(f32_to_half(f32::NAN)).is_nan());
        // Ties go to even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10.
        assert_eq!(f32_to_half(1.0 + 2f32.powi(-11)), 0x3c00);
        assert_eq!(f32_to_half(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        // Every half survives the round trip.
        for h in 0..=0xffffu16 {
            let f = half_to_f32(h);
            if !f.is_nan() {
                assert_eq!(f32_to_half(f), h, "{h:#x}");
            }
        }
    }
}
