//! Half precision (`cl_khr_fp16`): saxpy over 16M halves, and a naive 512×512 GEMM whose
//! multiplications and sums are all in `half`. A driver without the extension shows as
//! not measured. The GEMM's inputs are 0, 0.5 and 1, so every partial sum (a multiple of
//! 0.25 up to 512) is exact in half whatever the order or contraction, and the host check
//! is exact.

use crate::cl::{bytes_of, Device, Result};
use crate::{expect, expect_with, Iteration, M16};

const HSAXPY: &str = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void hsaxpy(half a, global const half* x, global half* y) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}";

const HGEMM: &str = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void hgemm(global const half* a, global const half* b, global half* c, uint n) {
    size_t col = get_global_id(0), row = get_global_id(1);
    half acc = 0.0h;
    for (uint k = 0; k < n; k++)
        acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}";

/// Half bits of `x` (rounded to nearest even; no overflow, NaN or subnormal here).
fn to_half(x: f32) -> u16 {
    if x == 0.0 {
        return 0;
    }
    let bits = x.to_bits();
    let e = ((bits >> 23) & 0xff) as i32 - 127;
    let m = f64::from(x.abs()) / 2f64.powi(e - 10);
    let m = m.round_ties_even() as u32;
    let (e, m) = if m == 2048 { (e + 1, 1024) } else { (e, m) };
    ((bits >> 16) & 0x8000) as u16 | (((e + 15) as u16) << 10) | (m - 1024) as u16
}

/// The value of half bits `h` (normal numbers and zero).
fn from_half(h: u16) -> f32 {
    let e = i32::from((h >> 10) & 0x1f);
    let v = if e == 0 {
        0.0
    } else {
        (1024.0 + f32::from(h & 0x3ff)) * 2f32.powi(e - 25)
    };
    if h & 0x8000 != 0 {
        -v
    } else {
        v
    }
}

fn read_half(d: &Device, b: &crate::cl::Buffer, n: usize) -> Result<Vec<u16>> {
    let mut bytes = vec![0u8; n * 2];
    d.read(b, &mut bytes)?;
    Ok(bytes
        .chunks_exact(2)
        .map(|c| u16::from_ne_bytes([c[0], c[1]]))
        .collect())
}

pub fn saxpy(d: &Device) -> Result<Iteration<'_>> {
    let x: Vec<u16> = crate::floats(M16, 43).into_iter().map(to_half).collect();
    let y: Vec<u16> = crate::floats(M16, 44).into_iter().map(to_half).collect();
    let bx = d.buffer(M16 * 2, Some(bytes_of(&x)))?;
    let by = d.buffer(M16 * 2, Some(bytes_of(&y)))?;
    let p = d.program_from_source(HSAXPY, "")?;
    let k = p.kernel("hsaxpy")?;
    k.arg(0, &to_half(2.0))?.buf(1, &bx)?.buf(2, &by)?;
    d.enqueue(&k, &[M16], None)?;
    let out = read_half(d, &by, M16)?;
    // One half ulp either way: a driver may fuse the multiply-add or not.
    let bad = out.iter().zip(x.iter().zip(&y)).position(|(o, (x, y))| {
        let want = 2.0 * from_half(*x) + from_half(*y);
        (from_half(*o) - want).abs() > want.abs() / 1024.0
    });
    expect_with(bad.is_none(), || format!("half saxpy at {bad:?}"))?;
    Ok(Box::new(move || {
        let _keep = (&p, &bx, &by);
        d.enqueue(&k, &[M16], None)?;
        d.finish()
    }))
}

pub fn gemm(d: &Device) -> Result<Iteration<'_>> {
    const N: usize = 512;
    let pick = |v: f32| to_half((v * 100.0).round() % 3.0 / 2.0);
    let a: Vec<u16> = crate::floats(N * N, 8).into_iter().map(pick).collect();
    let b: Vec<u16> = crate::floats(N * N, 9).into_iter().map(pick).collect();
    let ba = d.buffer(N * N * 2, Some(bytes_of(&a)))?;
    let bb = d.buffer(N * N * 2, Some(bytes_of(&b)))?;
    let bc = d.buffer(N * N * 2, None)?;
    let p = d.program_from_source(HGEMM, "")?;
    let k = p.kernel("hgemm")?;
    k.buf(0, &ba)?
        .buf(1, &bb)?
        .buf(2, &bc)?
        .arg(3, &(N as u32))?;
    d.enqueue(&k, &[N, N], None)?;
    let c = read_half(d, &bc, N * N)?;
    for &(r, col) in &[(0, 0), (17, 300), (511, 511), (256, 3)] {
        let want: f32 = (0..N)
            .map(|i| from_half(a[r * N + i]) * from_half(b[i * N + col]))
            .sum();
        expect(from_half(c[r * N + col]) == want, "hgemm")?;
    }
    Ok(Box::new(move || {
        let _keep = (&p, &ba, &bb, &bc);
        d.enqueue(&k, &[N, N], None)?;
        d.finish()
    }))
}
