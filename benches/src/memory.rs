//! Memory-bound cases beyond straight streams: a gather through a random permutation, a
//! strided read that touches every element once, and saxpy on `global float4*`. Each
//! element of `in` holds its own index (exact in `f32` below 2^24), so a load from the wrong
//! place shows in the host check.

use crate::cl::{bytes_of, Device, Result};
use crate::{expect, floats, read_f32, Iteration, M16};

pub(crate) const GATHER: &str =
    "kernel void gather(global const float* in, global const uint* idx, global float* out) {
    size_t i = get_global_id(0);
    out[i] = in[idx[i]];
}";

/// `in[i * stride]` wrapped to the buffer: with an odd stride and a power-of-two length,
/// `i * stride mod n` visits every element once (the `uint` product may wrap at 2^32,
/// which `mask` then removes, since 2^32 is a multiple of n).
pub(crate) const STRIDED: &str = "kernel void strided(global const float* in, global float* out,
                      uint stride, uint mask) {
    uint i = get_global_id(0);
    out[i] = in[(i * stride) & mask];
}";

pub(crate) const SAXPY4: &str =
    "kernel void saxpy4(float a, global const float4* x, global float4* y) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}";

pub(crate) const GREY: &str = "kernel void grey(global const uchar4* in, global uchar4* out) {
    size_t i = get_global_id(0);
    float4 p = convert_float4(in[i]);
    float l = 0.25f * p.x + 0.5f * p.y + 0.25f * p.z;
    out[i] = convert_uchar4_sat((float4)(l, l, l * 1.25f, p.w));
}";

/// Elements whose value is their index.
fn indices(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32).collect()
}

/// A random permutation of `0..n` (Fisher–Yates over a xorshift generator).
fn permutation(n: usize, seed: u64) -> Vec<u32> {
    let mut p: Vec<u32> = (0..n as u32).collect();
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).max(1);
    for i in (1..n).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        p.swap(i, (s % (i as u64 + 1)) as usize);
    }
    p
}

pub fn gather(d: &Device) -> Result<Iteration<'_>> {
    let idx = permutation(M16, 31);
    let bin = d.buffer(M16 * 4, Some(bytes_of(&indices(M16))))?;
    let bidx = d.buffer(M16 * 4, Some(bytes_of(&idx)))?;
    let bout = d.buffer(M16 * 4, None)?;
    let p = d.program_from_source(GATHER, "")?;
    let k = p.kernel("gather")?;
    k.buf(0, &bin)?.buf(1, &bidx)?.buf(2, &bout)?;
    d.enqueue(&k, &[M16], None)?;
    let out = read_f32(d, &bout, M16)?;
    expect(out.iter().zip(&idx).all(|(o, &j)| *o == j as f32), "gather")?;
    Ok(Box::new(move || {
        let _keep = (&p, &bin, &bidx, &bout);
        d.enqueue(&k, &[M16], None)?;
        d.finish()
    }))
}

pub fn strided(d: &Device) -> Result<Iteration<'_>> {
    // 4097 floats apart: every read lands on another page.
    const STRIDE: u32 = 4097;
    let mask = M16 as u32 - 1;
    let bin = d.buffer(M16 * 4, Some(bytes_of(&indices(M16))))?;
    let bout = d.buffer(M16 * 4, None)?;
    let p = d.program_from_source(STRIDED, "")?;
    let k = p.kernel("strided")?;
    k.buf(0, &bin)?
        .buf(1, &bout)?
        .arg(2, &STRIDE)?
        .arg(3, &mask)?;
    d.enqueue(&k, &[M16], None)?;
    let out = read_f32(d, &bout, M16)?;
    expect(
        out.iter()
            .enumerate()
            .all(|(i, o)| *o == ((i as u32).wrapping_mul(STRIDE) & mask) as f32),
        "strided",
    )?;
    Ok(Box::new(move || {
        let _keep = (&p, &bin, &bout);
        d.enqueue(&k, &[M16], None)?;
        d.finish()
    }))
}

/// saxpy over 16M floats as 4M `float4`s.
pub fn saxpy_float4(d: &Device) -> Result<Iteration<'_>> {
    let (x, y) = (floats(M16, 41), floats(M16, 42));
    let bx = d.buffer(M16 * 4, Some(bytes_of(&x)))?;
    let by = d.buffer(M16 * 4, Some(bytes_of(&y)))?;
    let p = d.program_from_source(SAXPY4, "")?;
    let k = p.kernel("saxpy4")?;
    k.arg(0, &2.0f32)?.buf(1, &bx)?.buf(2, &by)?;
    d.enqueue(&k, &[M16 / 4], None)?;
    let out = read_f32(d, &by, M16)?;
    expect(
        out.iter()
            .zip(x.iter().zip(&y))
            .all(|(o, (x, y))| (o - (2.0 * x + y)).abs() <= 1e-4 * o.abs().max(1.0)),
        "saxpy-float4",
    )?;
    Ok(Box::new(move || {
        let _keep = (&p, &bx, &by);
        d.enqueue(&k, &[M16 / 4], None)?;
        d.finish()
    }))
}

/// 16M RGBA pixels (`uchar4`) to a tinted grey: 8-bit data converted to float and back
/// with saturation, the common shape of image kernels.
pub fn grey_uchar4(d: &Device) -> Result<Iteration<'_>> {
    let pixels: Vec<u8> = crate::pixels(M16);
    let bin = d.buffer(M16 * 4, Some(&pixels))?;
    let bout = d.buffer(M16 * 4, None)?;
    let p = d.program_from_source(GREY, "")?;
    let k = p.kernel("grey")?;
    k.buf(0, &bin)?.buf(1, &bout)?;
    d.enqueue(&k, &[M16], None)?;
    let mut out = vec![0u8; M16 * 4];
    d.read(&bout, &mut out)?;
    // The weights are powers of two: every sum is exact, whatever the contraction.
    let ok = pixels
        .chunks_exact(4)
        .zip(out.chunks_exact(4))
        .all(|(p, o)| {
            let f = |k: usize| f32::from(p[k]);
            let l = 0.25 * f(0) + 0.5 * f(1) + 0.25 * f(2);
            let sat = |x: f32| x.min(255.0) as u8;
            o == [sat(l), sat(l), sat(l * 1.25), p[3]]
        });
    expect(ok, "uchar4 grey")?;
    Ok(Box::new(move || {
        let _keep = (&p, &bin, &bout);
        d.enqueue(&k, &[M16], None)?;
        d.finish()
    }))
}

/// 100 blocking maps (and unmaps) of a 1 MiB buffer: the cost of a map where the buffer is
/// the host's memory already (clpeak's map test, on a buffer the device allocated).
pub fn map_unmap(d: &Device) -> Result<Iteration<'_>> {
    const BYTES: usize = 1 << 20;
    let b = d.buffer(BYTES, Some(&vec![7u8; BYTES]))?;
    Ok(Box::new(move || {
        for _ in 0..100 {
            expect(
                d.map_unmap(&b, BYTES)? == 7,
                "the mapped buffer's first byte",
            )?;
        }
        d.finish()
    }))
}
