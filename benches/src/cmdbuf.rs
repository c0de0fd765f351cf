//! Command buffers (`cl_khr_command_buffer`): the host's cost per command when 100 small
//! launches are recorded once and replayed, against the same launches enqueued each time.
//! Each iteration runs the 100 launches 1,000 times (100,000 launches); the kernel touches
//! 64 integers, so the time is the drivers' per-command overhead.

use super::{Device, Iteration, Result};

const INC: &str = "kernel void inc(global int* p) { p[get_global_id(0)] += 1; }";

const LAUNCHES: usize = 100;
const ROUNDS: usize = 1000;
const ITEMS: usize = 64;

/// Whether every item was incremented `times` times from 0 (and reset it to 0).
fn counted(d: &Device, b: &super::cl::Buffer, times: u32) -> Result<()> {
    let got = super::read_u32(d, b, ITEMS)?;
    super::expect_with(got.iter().all(|&v| v == times), || {
        format!("{} increments, got {:?}", times, &got[..4])
    })?;
    d.fill(b, &0u32.to_ne_bytes(), ITEMS * 4)
}

/// 100 launches recorded once, replayed 1,000 times.
pub fn replay(d: &Device) -> Result<Iteration<'_>> {
    let p = d.program_from_source(INC, "")?;
    let k = p.kernel("inc")?;
    let b = d.buffer(ITEMS * 4, Some(&[0u8; ITEMS * 4]))?;
    k.buf(0, &b)?;
    let cb = d.command_buffer()?;
    for _ in 0..LAUNCHES {
        cb.ndrange(&k, &[ITEMS])?;
    }
    cb.finalize()?;
    cb.enqueue()?;
    d.finish()?;
    counted(d, &b, LAUNCHES as u32)?;
    Ok(Box::new(move || {
        let _keep = (&p, &k, &b);
        for _ in 0..ROUNDS {
            cb.enqueue()?;
        }
        cb.device().finish()
    }))
}

/// The same 100 launches enqueued one by one, 1,000 times.
pub fn enqueue(d: &Device) -> Result<Iteration<'_>> {
    let p = d.program_from_source(INC, "")?;
    let k = p.kernel("inc")?;
    let b = d.buffer(ITEMS * 4, Some(&[0u8; ITEMS * 4]))?;
    k.buf(0, &b)?;
    for _ in 0..LAUNCHES {
        d.enqueue(&k, &[ITEMS], None)?;
    }
    d.finish()?;
    counted(d, &b, LAUNCHES as u32)?;
    Ok(Box::new(move || {
        let _keep = (&p, &b);
        for _ in 0..ROUNDS {
            for _ in 0..LAUNCHES {
                d.enqueue(&k, &[ITEMS], None)?;
            }
        }
        d.finish()
    }))
}
