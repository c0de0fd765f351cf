//! The vectoriser on kernels with control flow: each case must be vectorised (its
//! [`Handler`](ferrite_compiler::Handler) says 4 lanes, so a kernel silently left scalar
//! fails), agree byte for byte with the scalar reference shape (the harness runs every
//! launch in both shapes) over launches whose rows are not multiples of four (the scalar
//! loop finishes them), and with a host model.

#[path = "common/harness.rs"]
mod harness;

use harness::{run, Args, Kernel};

fn assert_vectorised(k: &Kernel) {
    assert_eq!(
        k.handler.lanes, 4,
        "{} was not vectorised: {}",
        k.info.name, k.handler.note
    );
}

/// A launch's buffers: each is a vector of 32-bit words.
type Bufs = Vec<Vec<u32>>;

/// Compile kernel `name`, check that it is vectorised, and run it over a 1- or 2-D
/// NDRange with buffer arguments `bufs` (at indices `buf_idx`) and scalar `u32`
/// arguments `vals`; returns the buffers afterwards.
fn differential(
    src: &str,
    name: &str,
    bufs: &Bufs,
    buf_idx: &[usize],
    vals: &[(usize, u32)],
    global: [u64; 2],
    local: [u64; 2],
) -> Option<Bufs> {
    let k = harness::kernel(src, name)?;
    assert_vectorised(&k);
    let mut out = bufs.clone();
    let mut args = Args::new(&k.info);
    for (b, i) in out.iter_mut().zip(buf_idx) {
        args.buf(*i, b);
    }
    for (i, v) in vals {
        args.val(*i, *v);
    }
    let dim = if global[1] > 1 { 2 } else { 1 };
    run(
        &k,
        &args,
        dim,
        [global[0], global[1], 1],
        [local[0], local[1], 1],
        [0; 3],
        0,
    );
    Some(out)
}

fn floats(n: usize, seed: u32) -> Vec<u32> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            ((x % 2000) as f32 / 100.0 - 10.0).to_bits()
        })
        .collect()
}

fn f(v: &[u32]) -> Vec<f32> {
    v.iter().map(|x| f32::from_bits(*x)).collect()
}

#[test]
fn matmul_with_a_uniform_loop() {
    let src = "kernel void mm(global const float *a, global const float *b, global float *c,
                              uint n) {
        uint col = get_global_id(0), row = get_global_id(1);
        float acc = 0.0f;
        for (uint k = 0; k < n; k++) acc += a[row * n + k] * b[k * n + col];
        c[row * n + col] = acc;
    }";
    let n = 22usize;
    let bufs = vec![floats(n * n, 1), floats(n * n, 2), vec![0; n * n]];
    let Some(out) = differential(
        src,
        "mm",
        &bufs,
        &[0, 1, 2],
        &[(3, n as u32)],
        [n as u64, n as u64],
        [11, 2],
    ) else {
        return;
    };
    let (a, b) = (f(&bufs[0]), f(&bufs[1]));
    let c = f(&out[2]);
    for row in 0..n {
        for col in 0..n {
            let mut acc = 0f32;
            for k in 0..n {
                acc += a[row * n + k] * b[k * n + col];
            }
            assert_eq!(c[row * n + col], acc, "c[{row}][{col}]");
        }
    }
}

#[test]
fn convolution_with_constant_weights_and_clamped_edges() {
    let src = "kernel void conv(global const float *in, constant float *w, global float *out,
                                int width, int height) {
        int x = get_global_id(0), y = get_global_id(1);
        float acc = 0.0f;
        for (int dy = -2; dy <= 2; dy++) {
            int yy = clamp(y + dy, 0, height - 1);
            for (int dx = -2; dx <= 2; dx++) {
                int xx = clamp(x + dx, 0, width - 1);
                acc += in[yy * width + xx] * w[(dy + 2) * 5 + dx + 2];
            }
        }
        out[y * width + x] = acc;
    }";
    let (wd, ht) = (19usize, 7usize);
    let bufs = vec![floats(wd * ht, 3), floats(25, 4), vec![0; wd * ht]];
    let Some(out) = differential(
        src,
        "conv",
        &bufs,
        &[0, 1, 2],
        &[(3, wd as u32), (4, ht as u32)],
        [wd as u64, ht as u64],
        [wd as u64, 1],
    ) else {
        return;
    };
    let (inp, w) = (f(&bufs[0]), f(&bufs[1]));
    let o = f(&out[2]);
    for y in 0..ht as i32 {
        for x in 0..wd as i32 {
            let mut acc = 0f32;
            for dy in -2..=2 {
                let yy = (y + dy).clamp(0, ht as i32 - 1);
                for dx in -2..=2 {
                    let xx = (x + dx).clamp(0, wd as i32 - 1);
                    acc +=
                        inp[(yy * wd as i32 + xx) as usize] * w[((dy + 2) * 5 + dx + 2) as usize];
                }
            }
            assert_eq!(o[(y * wd as i32 + x) as usize], acc, "out[{y}][{x}]");
        }
    }
}

#[test]
fn nbody_with_rsqrt() {
    let src = "kernel void nbody(global const float *px, global const float *py,
                                 global const float *pz, global float *ax, uint n) {
        uint i = get_global_id(0);
        float xi = px[i], yi = py[i], zi = pz[i], fx = 0.0f;
        for (uint j = 0; j < n; j++) {
            float dx = px[j] - xi, dy = py[j] - yi, dz = pz[j] - zi;
            float d2 = dx * dx + dy * dy + dz * dz + 0.01f;
            float inv = rsqrt(d2);
            fx += dx * inv * inv * inv;
        }
        ax[i] = fx;
    }";
    let n = 37usize;
    let bufs = vec![floats(n, 5), floats(n, 6), floats(n, 7), vec![0; n]];
    differential(
        src,
        "nbody",
        &bufs,
        &[0, 1, 2, 3],
        &[(4, n as u32)],
        [n as u64, 1],
        [n as u64, 1],
    );
}

#[test]
fn uniform_if_else_and_switch() {
    let src = "kernel void k(global const int *a, global int *out, int mode) {
        size_t i = get_global_id(0);
        int v = a[i];
        if (mode > 2) v = v * 3 + 1; else v = v - 7;
        switch (mode) {
        case 0: v += 100; break;
        case 3: v ^= 0x55; break;
        case 5: v = v << 2; break;
        default: v -= 1;
        }
        out[i] = v;
    }";
    let n = 30usize;
    let a: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    for mode in 0..7u32 {
        let bufs = vec![a.clone(), vec![0; n]];
        let Some(out) = differential(
            src,
            "k",
            &bufs,
            &[0, 1],
            &[(2, mode)],
            [n as u64, 1],
            [n as u64, 1],
        ) else {
            return;
        };
        for i in 0..n {
            let mut v = a[i] as i32;
            v = if mode as i32 > 2 {
                v.wrapping_mul(3).wrapping_add(1)
            } else {
                v.wrapping_sub(7)
            };
            v = match mode {
                0 => v.wrapping_add(100),
                3 => v ^ 0x55,
                5 => v.wrapping_shl(2),
                _ => v.wrapping_sub(1),
            };
            assert_eq!(out[1][i] as i32, v, "mode {mode}, out[{i}]");
        }
    }
}

#[test]
fn varying_selects_min_max_and_conversions() {
    let src = "kernel void k(global const float *a, global const int *b, global float *out,
                             global int *iout) {
        size_t i = get_global_id(0);
        float x = a[i];
        int y = b[i];
        float s = x > 0.5f ? x * 2.0f : -x;
        out[i] = fmax(fmin(s, 4.0f), -3.0f) + (float)y + sqrt(fabs(x));
        iout[i] = max(min(y, 40), -40) + (y < 3 ? 1 : 2) + (int)(x * 3.0f);
    }";
    let n = 26usize;
    let b: Vec<u32> = (0..n as i32)
        .map(|i| ((i * 37) % 101 - 50) as u32)
        .collect();
    let bufs = vec![floats(n, 8), b, vec![0; n], vec![0; n]];
    differential(
        src,
        "k",
        &bufs,
        &[0, 1, 2, 3],
        &[],
        [n as u64, 1],
        [n as u64, 1],
    );
}

#[test]
fn loop_carried_64_bit_and_affine_values() {
    // A varying 64-bit accumulator and a pointer walked through a uniform loop.
    let src = "kernel void k(global const uint *a, global ulong *out, uint n) {
        size_t i = get_global_id(0);
        ulong acc = i;
        global const uint *p = a + i;
        for (uint k = 0; k < n; k++) {
            acc = acc * 31 + *p;
            p += 3;
        }
        out[i] = acc;
    }";
    let n = 5usize;
    let items = 18usize;
    let a: Vec<u32> = (0..(items + 3 * n) as u32).map(|i| i * 7 + 1).collect();
    let bufs = vec![a.clone(), vec![0; 2 * items]];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1],
        &[(2, n as u32)],
        [items as u64, 1],
        [9, 1],
    ) else {
        return;
    };
    for i in 0..items {
        let mut acc = i as u64;
        for k in 0..n {
            acc = acc.wrapping_mul(31).wrapping_add(u64::from(a[i + 3 * k]));
        }
        let got = u64::from(out[1][2 * i]) | (u64::from(out[1][2 * i + 1]) << 32);
        assert_eq!(got, acc, "out[{i}]");
    }
}

#[test]
fn widened_32_bit_indices_wrap_exactly() {
    // `uint`/`int` sums widened to 64 bits are affine only while they do not wrap: the
    // lanes here cross 2^32 (unsigned) and 2^31 (signed).
    let src = "kernel void k(global ulong *u, global long *s, uint off, int soff) {
        uint i = get_global_id(0);
        u[i] = (ulong)(i + off);
        s[i] = (long)((int)i + soff);
    }";
    let items = 12usize;
    let (off, soff) = (0xFFFF_FFF9u32, 0x7FFF_FFF9i32);
    let bufs = vec![vec![0; 2 * items], vec![0; 2 * items]];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1],
        &[(2, off), (3, soff as u32)],
        [items as u64, 1],
        [items as u64, 1],
    ) else {
        return;
    };
    let word = |b: &Vec<u32>, i: usize| u64::from(b[2 * i]) | (u64::from(b[2 * i + 1]) << 32);
    for i in 0..items {
        assert_eq!(word(&out[0], i), u64::from((i as u32).wrapping_add(off)));
        assert_eq!(
            word(&out[1], i) as i64,
            i64::from((i as i32).wrapping_add(soff))
        );
    }
}
