//! Image cases: a `read_imagef`/`write_imagef` copy of an RGBA8 image, and a 5x5 blur that
//! samples an RGBA8 image through a linear, clamp-to-edge sampler between texels (so every
//! tap blends four). Both are checked on the host: the copy bit for bit, the blur within
//! one unit of the 8-bit result (the specification leaves linear filtering's precision to
//! the device).

use crate::cl::{Device, Result};
use crate::{expect, expect_with, Iteration};
use opencl_sys::{
    cl_image_format, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR, CL_RGBA, CL_UNORM_INT8,
};

pub(crate) const COPY: &str =
    "kernel void copy(read_only image2d_t src, write_only image2d_t dst) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(dst, p, read_imagef(src, p));
}";

/// Tap (dx, dy) of pixel (x, y) samples at (x + dx + 0.75, y + dy + 0.25): a quarter of the
/// way from texel x + dx to x + dx + 1 across, and three quarters from row y + dy - 1 to
/// y + dy down.
pub(crate) const BLUR: &str =
    "kernel void blur(read_only image2d_t src, sampler_t s, write_only image2d_t dst) {
    int x = get_global_id(0), y = get_global_id(1);
    float4 acc = 0.0f;
    for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++)
            acc += read_imagef(src, s, (float2)(x + dx + 0.75f, y + dy + 0.25f));
    write_imagef(dst, (int2)(x, y), acc * (1.0f / 25.0f));
}";

const RGBA8: cl_image_format = cl_image_format {
    image_channel_order: CL_RGBA,
    image_channel_data_type: CL_UNORM_INT8,
};

/// `n` pseudo-random bytes (xorshift).
fn bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).max(1);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 24) as u8
        })
        .collect()
}

fn need_images(d: &Device) -> Result<()> {
    expect(d.has_images(), "CL_DEVICE_IMAGE_SUPPORT")
}

pub fn copy(d: &Device) -> Result<Iteration<'_>> {
    need_images(d)?;
    const N: usize = 2048;
    let pixels = bytes(N * N * 4, 41);
    let src = d.image2d(RGBA8, N, N, Some(&pixels))?;
    let dst = d.image2d(RGBA8, N, N, None)?;
    let p = d.program_from_source(COPY, "")?;
    let k = p.kernel("copy")?;
    k.arg(0, &src.0)?.arg(1, &dst.0)?;
    d.enqueue(&k, &[N, N], None)?;
    let mut out = vec![0u8; N * N * 4];
    d.read_image2d(&dst, N, N, &mut out)?;
    expect(out == pixels, "image copy")?;
    Ok(Box::new(move || {
        let _keep = (&p, &src, &dst);
        d.enqueue(&k, &[N, N], None)?;
        d.finish()
    }))
}

/// The blur of channel `c` of pixel (x, y), in [0, 1], computed in `f64`.
fn blur_reference(pixels: &[u8], n: usize, x: usize, y: usize, c: usize) -> f64 {
    let texel = |i: i64, j: i64| {
        let (i, j) = (i.clamp(0, n as i64 - 1), j.clamp(0, n as i64 - 1));
        f64::from(pixels[(j as usize * n + i as usize) * 4 + c]) / 255.0
    };
    let (a, b) = (0.25, 0.75);
    let mut acc = 0.0;
    for dy in -2..=2i64 {
        for dx in -2..=2i64 {
            let (i0, j0) = (x as i64 + dx, y as i64 + dy - 1);
            acc += (1.0 - a) * (1.0 - b) * texel(i0, j0)
                + a * (1.0 - b) * texel(i0 + 1, j0)
                + (1.0 - a) * b * texel(i0, j0 + 1)
                + a * b * texel(i0 + 1, j0 + 1);
        }
    }
    acc / 25.0
}

pub fn blur(d: &Device) -> Result<Iteration<'_>> {
    need_images(d)?;
    const N: usize = 1024;
    let pixels = bytes(N * N * 4, 43);
    let src = d.image2d(RGBA8, N, N, Some(&pixels))?;
    let dst = d.image2d(RGBA8, N, N, None)?;
    let s = d.sampler(CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR)?;
    let p = d.program_from_source(BLUR, "")?;
    let k = p.kernel("blur")?;
    k.arg(0, &src.0)?.arg(1, &s.0)?.arg(2, &dst.0)?;
    d.enqueue(&k, &[N, N], None)?;
    let mut out = vec![0u8; N * N * 4];
    d.read_image2d(&dst, N, N, &mut out)?;
    // Every 7th row (edges included) keeps the host's share of the set-up short.
    for y in (0..N).step_by(7).chain([N - 1]) {
        for x in 0..N {
            for c in 0..4 {
                let want = blur_reference(&pixels, N, x, y, c) * 255.0;
                let got = out[(y * N + x) * 4 + c];
                expect_with((f64::from(got) - want).abs() <= 1.0, || {
                    format!("blur ({x}, {y}) channel {c}: {got}, want {want:.3}")
                })?;
            }
        }
    }
    Ok(Box::new(move || {
        let _keep = (&p, &src, &dst, &s);
        d.enqueue(&k, &[N, N], None)?;
        d.finish()
    }))
}
