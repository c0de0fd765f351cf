//! Compute-bound cases beyond the first set: an all-pairs n-body step (`rsqrt` in the
//! inner loop, float4 loads of uniform addresses) and a 5×5 convolution (weights in a
//! `__constant` argument, clamped edge addressing). Both are checked on the host in `f64`
//! against a tolerance scaled by the sum of the magnitudes of the terms, since float sums
//! of thousands of terms cannot match `f64` bit for bit.

use crate::cl::{bytes_of, Device, Result};
use crate::{expect_with, read_f32, uniform, Iteration};

/// The classic all-pairs step: every body sums the pull of every body (itself included:
/// its distance is 0, so the softening keeps the term finite and its direction zero), then
/// velocity and position advance by `dt`. Positions carry the mass in `w`.
pub(crate) const NBODY: &str =
    "kernel void nbody(global const float4* pos, global const float4* vel,
                    global float4* new_pos, global float4* new_vel,
                    uint n, float dt, float eps2) {
    size_t i = get_global_id(0);
    float4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (uint j = 0; j < n; j++) {
        float4 q = pos[j];
        float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
        float inv = rsqrt(dx * dx + dy * dy + dz * dz + eps2);
        float s = q.w * inv * inv * inv;
        ax += s * dx;
        ay += s * dy;
        az += s * dz;
    }
    float4 v = vel[i];
    v.x += ax * dt;
    v.y += ay * dt;
    v.z += az * dt;
    new_vel[i] = v;
    new_pos[i] = (float4)(p.x + v.x * dt, p.y + v.y * dt, p.z + v.z * dt, p.w);
}";

pub fn nbody(d: &Device) -> Result<Iteration<'_>> {
    const N: usize = 8192;
    const DT: f32 = 0.01;
    const EPS2: f32 = 0.01;
    let coords = uniform(N * 3, 11, -10.0, 10.0);
    let masses = uniform(N, 12, 0.5, 2.0);
    let speeds = uniform(N * 3, 13, -1.0, 1.0);
    let mut pos = Vec::with_capacity(N * 4);
    let mut vel = Vec::with_capacity(N * 4);
    for i in 0..N {
        pos.extend_from_slice(&coords[i * 3..i * 3 + 3]);
        pos.push(masses[i]);
        vel.extend_from_slice(&speeds[i * 3..i * 3 + 3]);
        vel.push(0.0);
    }
    let bpos = d.buffer(N * 16, Some(bytes_of(&pos)))?;
    let bvel = d.buffer(N * 16, Some(bytes_of(&vel)))?;
    let bnew_pos = d.buffer(N * 16, None)?;
    let bnew_vel = d.buffer(N * 16, None)?;
    let p = d.program_from_source(NBODY, "")?;
    let k = p.kernel("nbody")?;
    k.buf(0, &bpos)?
        .buf(1, &bvel)?
        .buf(2, &bnew_pos)?
        .buf(3, &bnew_vel)?
        .arg(4, &(N as u32))?
        .arg(5, &DT)?
        .arg(6, &EPS2)?;
    d.enqueue(&k, &[N], None)?;
    let new_pos = read_f32(d, &bnew_pos, N * 4)?;
    let new_vel = read_f32(d, &bnew_vel, N * 4)?;
    let dt = f64::from(DT);
    // Every 37th body (coprime with the work-group sizes drivers pick) and the last one.
    for i in (0..N).step_by(37).chain([N - 1]) {
        let (mut acc, mut mag) = ([0f64; 3], [0f64; 3]);
        for j in 0..N {
            let delta: [f64; 3] =
                std::array::from_fn(|c| f64::from(pos[j * 4 + c]) - f64::from(pos[i * 4 + c]));
            let r2 = delta.iter().map(|x| x * x).sum::<f64>() + f64::from(EPS2);
            let s = f64::from(pos[j * 4 + 3]) / (r2 * r2.sqrt());
            for c in 0..3 {
                acc[c] += s * delta[c];
                mag[c] += (s * delta[c]).abs();
            }
        }
        for c in 0..3 {
            let v = f64::from(vel[i * 4 + c]) + acc[c] * dt;
            // The float sum of N terms is good to far better than 1e-4 of their magnitudes.
            let tol_v = 1e-4 * mag[c] * dt + 1e-6 * v.abs() + 1e-6;
            let x = f64::from(pos[i * 4 + c]) + v * dt;
            let tol_x = tol_v * dt + 1e-6 * x.abs() + 1e-6;
            expect_with(
                (f64::from(new_vel[i * 4 + c]) - v).abs() <= tol_v
                    && (f64::from(new_pos[i * 4 + c]) - x).abs() <= tol_x,
                || {
                    format!(
                        "nbody body {i} axis {c}: velocity {} (want {v}), position {} (want {x})",
                        new_vel[i * 4 + c],
                        new_pos[i * 4 + c]
                    )
                },
            )?;
        }
        expect_with(
            new_pos[i * 4 + 3] == pos[i * 4 + 3] && new_vel[i * 4 + 3] == 0.0,
            || format!("nbody body {i}: mass or velocity w changed"),
        )?;
    }
    Ok(Box::new(move || {
        let _keep = (&p, &bpos, &bvel, &bnew_pos, &bnew_vel);
        d.enqueue(&k, &[N], None)?;
        d.finish()
    }))
}

/// A 5×5 convolution; coordinates outside the image are clamped to its edge.
pub(crate) const CONV5X5: &str = "kernel void conv5x5(global const float* in, global float* out,
                      constant float* w, int width, int height) {
    int x = get_global_id(0), y = get_global_id(1);
    float acc = 0.0f;
    for (int dy = -2; dy <= 2; dy++) {
        int yy = clamp(y + dy, 0, height - 1);
        for (int dx = -2; dx <= 2; dx++) {
            int xx = clamp(x + dx, 0, width - 1);
            acc += w[(dy + 2) * 5 + dx + 2] * in[yy * width + xx];
        }
    }
    out[y * width + x] = acc;
}";

pub fn conv5x5(d: &Device) -> Result<Iteration<'_>> {
    const W: usize = 2048;
    const H: usize = 2048;
    let image = uniform(W * H, 21, 0.0, 1.0);
    let weights = uniform(25, 22, -1.0, 1.0);
    let bin = d.buffer(W * H * 4, Some(bytes_of(&image)))?;
    let bout = d.buffer(W * H * 4, None)?;
    let bw = d.buffer(25 * 4, Some(bytes_of(&weights)))?;
    let p = d.program_from_source(CONV5X5, "")?;
    let k = p.kernel("conv5x5")?;
    k.buf(0, &bin)?
        .buf(1, &bout)?
        .buf(2, &bw)?
        .arg(3, &(W as i32))?
        .arg(4, &(H as i32))?;
    d.enqueue(&k, &[W, H], None)?;
    let out = read_f32(d, &bout, W * H)?;
    for y in 0..H {
        for x in 0..W {
            let (mut want, mut mag) = (0f64, 0f64);
            for dy in 0..5 {
                let yy = (y + dy).saturating_sub(2).min(H - 1);
                for dx in 0..5 {
                    let xx = (x + dx).saturating_sub(2).min(W - 1);
                    let t = f64::from(weights[dy * 5 + dx]) * f64::from(image[yy * W + xx]);
                    want += t;
                    mag += t.abs();
                }
            }
            let got = f64::from(out[y * W + x]);
            expect_with((got - want).abs() <= 1e-5 * mag + 1e-6, || {
                format!("conv5x5 at ({x}, {y}): {got} (want {want})")
            })?;
        }
    }
    Ok(Box::new(move || {
        let _keep = (&p, &bin, &bout, &bw);
        d.enqueue(&k, &[W, H], None)?;
        d.finish()
    }))
}
