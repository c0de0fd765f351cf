//! The vectoriser on kernels with control flow: each case must be vectorised (its
//! [`Handler`](ferrite_compiler::Handler) gives it lanes, so a kernel silently left scalar
//! fails), agree byte for byte with the scalar reference shape at every width (the
//! harness runs every launch in the reference shape and at 4, 8 and 16 lanes) over
//! launches whose rows are not multiples of the width (the scalar loop finishes them), and
//! with a host model.

#[path = "common/harness.rs"]
mod harness;

use harness::{run, spvasm, Args, Kernel, TestModule};
use std::ops::BitXor;

fn assert_vectorised(k: &Kernel) {
    assert!(
        k.handler.lanes > 1,
        "{} was not vectorised: {}",
        k.info.name,
        k.handler.note
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
    differential_local(src, name, bufs, buf_idx, vals, None, global, local)
}

/// [`differential`] over one row of `n` work-items in one work-group, buffers only.
fn one_group_row(src: &str, name: &str, bufs: &Bufs, buf_idx: &[usize], n: usize) -> Option<Bufs> {
    differential(src, name, bufs, buf_idx, &[], [n as u64, 1], [n as u64, 1])
}

/// `double`s as the buffer words they are stored in (little-endian halves).
fn double_words(v: &[f64]) -> Vec<u32> {
    v.iter()
        .flat_map(|x| {
            let b = x.to_bits();
            [b as u32, (b >> 32) as u32]
        })
        .collect()
}

/// The `double` at index `k` of a buffer of words.
fn double_at(words: &[u32], k: usize) -> f64 {
    f64::from_bits(u64::from(words[2 * k]) | (u64::from(words[2 * k + 1]) << 32))
}

fn floats(n: usize, seed: u32) -> Vec<u32> {
    xorshift(n, seed | 1)
        .iter()
        .map(|x| ((x % 2000) as f32 / 100.0 - 10.0).to_bits())
        .collect()
}

/// `n` pseudo-random words (xorshift32 from `seed`, which must not be 0).
fn xorshift(n: usize, seed: u32) -> Vec<u32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s
        })
        .collect()
}

/// `n` pseudo-random `float`s spread over ±128 × `scale` (from [`xorshift`]), as buffer
/// words.
fn spread_floats(n: usize, seed: u32, scale: f32) -> Vec<u32> {
    xorshift(n, seed)
        .iter()
        .map(|w| (((*w >> 8) as f32 / 65536.0 - 128.0) * scale).to_bits())
        .collect()
}

fn f(v: &[u32]) -> Vec<f32> {
    v.iter().map(|x| f32::from_bits(*x)).collect()
}

/// OpenCL's `mad(a, b, c)` (what clang makes of `acc += a * b`) as Ferrite computes it:
/// one fused multiply-add where the processor has FMA, else a multiply and an add.
fn mad(a: f32, b: f32, c: f32) -> f32 {
    if std::arch::is_x86_feature_detected!("fma") {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
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
        [19, 2],
    ) else {
        return;
    };
    let (a, b) = (f(&bufs[0]), f(&bufs[1]));
    let c = f(&out[2]);
    for row in 0..n {
        for col in 0..n {
            let mut acc = 0f32;
            for k in 0..n {
                acc = mad(a[row * n + k], b[k * n + col], acc);
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
                    let (v, k) = (yy * wd as i32 + xx, (dy + 2) * 5 + dx + 2);
                    acc = mad(inp[v as usize], w[k as usize], acc);
                }
            }
            assert_eq!(o[(y * wd as i32 + x) as usize], acc, "out[{y}][{x}]");
        }
    }
}

/// Clamped indices whose lanes wrap before the clamp (`x + off` past `INT_MAX`, `(uint)x +
/// uoff` past `UINT_MAX`), sit exactly on the limits, or have limits narrower than the
/// lanes: the test that no lane is clamped (64-bit, one compare) must fail exactly where
/// some lane is, at every width.
#[test]
fn clamped_indices_at_the_edges_of_their_range() {
    let src = "kernel void edges(global const float *in, global float *out, int off, int lo,
                                  int hi, uint uoff, uint ulo, uint uhi) {
        int x = get_global_id(0);
        int xx = clamp(x + off, lo, hi);
        uint ux = clamp((uint)x + uoff, ulo, uhi);
        out[x] = in[xx] + in[ux] * 2.0f;
    }";
    let n = 64usize;
    let m = i32::MAX as u32;
    // (off, lo, hi, uoff, ulo, uhi); `in` has 64 elements, every clamp stays within.
    let cases: [(i32, i32, i32, u32, u32, u32); 6] = [
        (i32::MAX - 20, 0, 63, u32::MAX - 20, 0, 63),
        (i32::MAX - 70, 0, 63, u32::MAX - 70, 3, 63),
        (-5, 0, 63, 5, 0, 50),
        (0, 0, 63, 0, 0, 63),
        (0, 16, 16, 7, 9, 12),
        (-(m as i32), 0, 63, m, 1, 2),
    ];
    for (off, lo, hi, uoff, ulo, uhi) in cases {
        let bufs = vec![floats(n, 9), vec![0; n]];
        let vals = [
            (2, off as u32),
            (3, lo as u32),
            (4, hi as u32),
            (5, uoff),
            (6, ulo),
            (7, uhi),
        ];
        let Some(out) = differential(
            src,
            "edges",
            &bufs,
            &[0, 1],
            &vals,
            [n as u64, 1],
            [n as u64, 1],
        ) else {
            return;
        };
        let inp = f(&bufs[0]);
        let o = f(&out[1]);
        for (x, got) in o.iter().enumerate() {
            let xx = (x as i32).wrapping_add(off).clamp(lo, hi) as usize;
            let ux = (x as u32).wrapping_add(uoff).clamp(ulo, uhi) as usize;
            assert_eq!(
                *got,
                inp[xx] + inp[ux] * 2.0,
                "out[{x}] with off {off}, uoff {uoff}"
            );
        }
    }
}

/// Values computed between clamped accesses (each a fast path and a per-lane fallback)
/// and used after later ones are carried through the paths' join (`VTx::carry`): a
/// `float` sum, a two-operand `float` chain, a `float4` sum, a `uint` and a `double`
/// chain, used again after the loop in another block. The groups at both ends of the
/// row take the fallbacks, the others the fast paths.
#[test]
fn values_carried_through_clamped_accesses() {
    let src = "kernel void taps(global const float *in, global const float4 *in4,
                               global float *out, global float4 *out4, global uint *outu,
                               global double *outd, int width) {
        int x = get_global_id(0);
        float acc = 0.0f, s = 1.0f;
        float4 acc4 = (float4)(0.0f);
        uint c = x;
        double d = 0.0;
        for (int k = -2; k <= 2; k++) {
            int xx = clamp(x + k, 0, width - 1);
            float v = in[xx];
            acc = mad(v, (float)(k + 3), acc);
            s = s * 0.5f + v;
            acc4 += in4[xx] * v;
            c = c * 3u + (uint)(int)v;
            d = d * 0.25 + (double)v;
        }
        int o = clamp(x, 0, width - 1);
        if (acc > 0.0f) out[o] = acc + s; else out[o] = s - acc;
        out4[o] = acc4;
        outu[o] = c;
        outd[o] = d;
    }";
    let n = 64usize;
    let inp = floats(n, 31);
    let inp4 = floats(4 * n, 32);
    let bufs = vec![
        inp.clone(),
        inp4.clone(),
        vec![0; n],
        vec![0; 4 * n],
        vec![0; n],
        vec![0; 2 * n],
    ];
    for local in [n as u64, 16, 6] {
        let Some(out) = differential(
            src,
            "taps",
            &bufs,
            &[0, 1, 2, 3, 4, 5],
            &[(6, n as u32)],
            [n as u64, 1],
            [local, 1],
        ) else {
            return;
        };
        let (inp, inp4) = (f(&inp), f(&inp4));
        let (o, o4) = (f(&out[2]), f(&out[3]));
        for x in 0..n {
            let (mut acc, mut s, mut acc4) = (0.0f32, 1.0f32, [0.0f32; 4]);
            let (mut c, mut d) = (x as u32, 0.0f64);
            for k in -2i32..=2 {
                let xx = (x as i32 + k).clamp(0, n as i32 - 1) as usize;
                let v = inp[xx];
                acc = mad(v, (k + 3) as f32, acc);
                s = mad(s, 0.5, v);
                for (j, a) in acc4.iter_mut().enumerate() {
                    *a = mad(inp4[4 * xx + j], v, *a);
                }
                c = c.wrapping_mul(3).wrapping_add(v as i32 as u32);
                d = d * 0.25 + f64::from(v);
            }
            let want = if acc > 0.0 { acc + s } else { s - acc };
            assert_eq!(o[x], want, "out[{x}] with groups of {local}");
            assert_eq!(
                o4[4 * x..4 * x + 4],
                acc4,
                "out4[{x}] with groups of {local}"
            );
            assert_eq!(out[4][x], c, "outu[{x}] with groups of {local}");
            assert_eq!(double_at(&out[5], x), d, "outd[{x}] with groups of {local}");
        }
    }
}

/// `2 × x` is translated as `x + x` (no register holds the constant across a loop): the
/// same bits as the scalar code's multiplication for NaNs, infinities, signed zeros,
/// subnormals and values that overflow when doubled, in `float` and `double`.
#[test]
fn doubling_keeps_every_bit() {
    let src = "kernel void twice(global const float *x, global float *o,
                                global const double *dx, global double *od) {
        size_t i = get_global_id(0);
        o[i] = 2.0f * x[i];
        o[i + 32] = x[i] * 2.0f - 1.0f;
        od[i] = 2.0 * dx[i];
    }";
    let specials = [
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        f32::from_bits(1),
        f32::from_bits(0x807f_ffff),
        f32::MAX,
        -f32::MAX,
        f32::MIN_POSITIVE,
        1.5,
        -3.25,
        1e38,
        -1e-38,
        0.1,
    ];
    let xs: Vec<f32> = specials.iter().chain(specials.iter()).copied().collect();
    let ds: Vec<f64> = xs.iter().map(|&v| f64::from(v) * 1e300).collect();
    let bufs = vec![
        xs.iter().map(|v| v.to_bits()).collect(),
        vec![0; 64],
        double_words(&ds),
        vec![0; 64],
    ];
    let Some(out) = one_group_row(src, "twice", &bufs, &[0, 1, 2, 3], 32) else {
        return;
    };
    let o = f(&out[1]);
    for (i, x) in xs.iter().enumerate() {
        assert_eq!(o[i].to_bits(), (2.0 * x).to_bits(), "2 × {x:e}");
        let want = mad(*x, 2.0, -1.0);
        assert_eq!(o[i + 32].to_bits(), want.to_bits(), "{x:e} × 2 − 1");
        let d = double_at(&out[3], i);
        assert_eq!(d.to_bits(), (2.0 * ds[i]).to_bits(), "2 × {:e}", ds[i]);
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
    one_group_row(src, "k", &bufs, &[0, 1, 2, 3], n);
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
        [18, 1],
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
    let items = 20usize;
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

/// `int id; id += get_local_size(0)` (clpeak's and ze_peak's bandwidth kernels) widens
/// `id`, adds in 64 bits and truncates again: the truncation of a widened affine value is
/// affine in 32 bits whether or not its lanes wrapped (they do here, past 2^31 and 2^32),
/// and the loads it indexes stay vector loads.
#[test]
fn widened_then_narrowed_indices_stay_affine() {
    let src = "kernel void k(global const float *a, global int *o, global float *s, int off) {
        int id = (int)get_global_id(0) + off;
        id += get_local_size(0);
        o[get_global_id(0)] = id;
        uint u = (uint)get_global_id(0) + (uint)off;
        u += get_local_size(0);
        o[get_global_id(0) + 32] = (int)u;
        int j = get_local_id(0);
        float sum = a[j];
        j += get_local_size(0);
        sum += a[j];
        j += get_local_size(0);
        sum += a[j];
        s[get_global_id(0)] = sum;
    }";
    let items = 32usize;
    // 0x7FFF_FFE0 + 32 + i crosses 2^31 at i = 0 (signed) and the lanes stay in range of
    // the unsigned sum until 2^32.
    let off = 0x7FFF_FFE0u32;
    let a = floats(3 * items, 17);
    let bufs = vec![a.clone(), vec![0; 2 * items], vec![0; items]];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1, 2],
        &[(3, off)],
        [items as u64, 1],
        [items as u64, 1],
    ) else {
        return;
    };
    check_widened_then_narrowed(&a, off, &out[1][..items], &out[2]);
    check_widened_then_narrowed(&a, off, &out[1][items..], &out[2]);
}

/// The results of the two widened-then-narrowed tests: each work-item's stepped id, and
/// the sum of the three floats its stepped local id indexes.
fn check_widened_then_narrowed(a: &[u32], off: u32, ids: &[u32], sums: &[u32]) {
    let (a, sums) = (f(a), f(sums));
    let items = ids.len();
    for i in 0..items {
        let want = (i as i32)
            .wrapping_add(off as i32)
            .wrapping_add(items as i32);
        assert_eq!(ids[i] as i32, want, "id of {i}");
        assert_eq!(
            sums[i],
            a[i] + a[i + items] + a[i + 2 * items],
            "sum of {i}"
        );
    }
}

/// The same step as llvm-spirv writes it from clang without LLVM's passes (as the driver's
/// own build does): `o[gid] = (uint)((long)(int)((uint)gid + off) + lsize)` and
/// `s[gid] = a[(long)(int)((long)(int)lid + lsize)]`, `UConvert`/`SConvert`/`IAdd`; the
/// narrowing of the widened sum must stay affine and exact across the wrap.
const WIDEN_NARROW: &str = "
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"k\" %gid %lid %lsize
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %lid BuiltIn LocalInvocationId
               OpDecorate %lsize BuiltIn WorkgroupSize
               OpDecorate %gid Constant
               OpDecorate %lid Constant
               OpDecorate %lsize Constant
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
      %float = OpTypeFloat 32
    %v3ulong = OpTypeVector %ulong 3
     %ptr_in = OpTypePointer Input %v3ulong
      %ptr_f = OpTypePointer CrossWorkgroup %float
      %ptr_u = OpTypePointer CrossWorkgroup %uint
        %gid = OpVariable %ptr_in Input
        %lid = OpVariable %ptr_in Input
      %lsize = OpVariable %ptr_in Input
         %fn = OpTypeFunction %void %ptr_f %ptr_u %ptr_f %uint
          %k = OpFunction %void None %fn
          %a = OpFunctionParameter %ptr_f
          %o = OpFunctionParameter %ptr_u
          %s = OpFunctionParameter %ptr_f
        %off = OpFunctionParameter %uint
      %entry = OpLabel
         %g3 = OpLoad %v3ulong %gid
          %g = OpCompositeExtract %ulong %g3 0
         %z3 = OpLoad %v3ulong %lsize
          %z = OpCompositeExtract %ulong %z3 0
         %l3 = OpLoad %v3ulong %lid
          %l = OpCompositeExtract %ulong %l3 0
         %g32 = OpUConvert %uint %g
         %id = OpIAdd %uint %g32 %off
        %idw = OpSConvert %ulong %id
        %sum = OpIAdd %ulong %idw %z
        %n32 = OpUConvert %uint %sum
         %po = OpInBoundsPtrAccessChain %ptr_u %o %g
               OpStore %po %n32
        %l32 = OpUConvert %uint %l
         %j0 = OpSConvert %ulong %l32
        %pa0 = OpInBoundsPtrAccessChain %ptr_f %a %j0
         %x0 = OpLoad %float %pa0
        %j1s = OpIAdd %ulong %j0 %z
        %j1n = OpUConvert %uint %j1s
         %j1 = OpSConvert %ulong %j1n
        %pa1 = OpInBoundsPtrAccessChain %ptr_f %a %j1
         %x1 = OpLoad %float %pa1
        %j2s = OpIAdd %ulong %j1 %z
        %j2n = OpUConvert %uint %j2s
         %j2 = OpSConvert %ulong %j2n
        %pa2 = OpInBoundsPtrAccessChain %ptr_f %a %j2
         %x2 = OpLoad %float %pa2
         %y0 = OpFAdd %float %x0 %x1
         %y1 = OpFAdd %float %y0 %x2
         %ps = OpInBoundsPtrAccessChain %ptr_f %s %g
               OpStore %ps %y1
               OpReturn
               OpFunctionEnd
";

#[test]
fn widened_then_narrowed_in_spirv_conversions() {
    let Some(spv) = spvasm(WIDEN_NARROW) else {
        return;
    };
    let m = TestModule::new(&spv);
    let k = m.kernel("k");
    assert_vectorised(&k);
    let items = 32usize;
    let off = 0x7FFF_FFE0u32;
    let a = floats(3 * items, 23);
    let mut bufs: Bufs = vec![a.clone(), vec![0; items], vec![0; items]];
    let mut args = Args::new(&k.info);
    {
        let (a_buf, rest) = bufs.split_at_mut(1);
        let (o_buf, s_buf) = rest.split_at_mut(1);
        args.buf(0, &mut a_buf[0])
            .buf(1, &mut o_buf[0])
            .buf(2, &mut s_buf[0])
            .val(3, off);
    }
    run(
        &k,
        &args,
        1,
        [items as u64, 1, 1],
        [items as u64, 1, 1],
        [0; 3],
        0,
    );
    check_widened_then_narrowed(&a, off, &bufs[1], &bufs[2]);
}

/// Private `float16` and `float8` arrays (64- and 32-byte aligned types) indexed per lane
/// (ze_peak's unoptimised kernels keep every variable in memory): each lane's copy aligned
/// as its type asks, though stack slots are aligned to 16 bytes.
#[test]
fn private_wide_vectors_aligned_per_lane() {
    let src = "kernel void k(global const float *a, global float *o, global uint *misaligned) {
        size_t i = get_global_id(0);
        float16 v[2];
        float8 w[3];
        v[0] = (float16)(a[i]);
        v[1] = (float16)(a[i] + 1.0f);
        w[i % 3] = (float8)(a[i] * 2.0f);
        w[(i + 1) % 3] = (float8)(3.0f);
        w[(i + 2) % 3] = (float8)(4.0f);
        float16 x = v[i & 1];
        float8 y = w[i % 3];
        o[i] = x.s0 + x.sf + y.s3;
        misaligned[i] = ((ulong)&v[i & 1] % 64) | ((ulong)&w[i % 3] % 32);
    }";
    let items = 37usize;
    let a = floats(items, 5);
    let bufs = vec![a.clone(), vec![0; items], vec![u32::MAX; items]];
    let Some(out) = one_group_row(src, "k", &bufs, &[0, 1, 2], items) else {
        return;
    };
    let a = f(&a);
    let o = f(&out[1]);
    for i in 0..items {
        let x = if i & 1 == 0 { a[i] } else { a[i] + 1.0 };
        assert_eq!(o[i], x + x + a[i] * 2.0, "o[{i}]");
        assert_eq!(out[2][i], 0, "alignment of lane {i}'s copies");
    }
}

// ---- divergent control flow: masked mode ----------------------------------------------

#[test]
fn mandelbrot_loop_with_per_lane_exits() {
    let src = "kernel void mandel(global uint *out, uint width, uint max_iter) {
        uint x = get_global_id(0), y = get_global_id(1);
        float cr = -2.0f + 3.0f * x / width, ci = -1.5f + 3.0f * y / width;
        float zr = 0.0f, zi = 0.0f;
        uint n = 0;
        while (n < max_iter && zr * zr + zi * zi < 4.0f) {
            float t = zr * zr - zi * zi + cr;
            zi = 2.0f * zr * zi + ci;
            zr = t;
            n++;
        }
        out[y * width + x] = n;
    }";
    let w = 27usize;
    let bufs = vec![vec![0; w * w]];
    let Some(out) = differential(
        src,
        "mandel",
        &bufs,
        &[0],
        &[(1, w as u32), (2, 60)],
        [w as u64, w as u64],
        [18, 3],
    ) else {
        return;
    };
    for y in 0..w {
        for x in 0..w {
            let cr = -2.0f32 + 3.0 * x as f32 / w as f32;
            let ci = -1.5f32 + 3.0 * y as f32 / w as f32;
            let (mut zr, mut zi, mut n) = (0f32, 0f32, 0u32);
            while n < 60 && zr * zr + zi * zi < 4.0 {
                let t = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = t;
                n += 1;
            }
            assert_eq!(out[0][y * w + x], n, "({x}, {y})");
        }
    }
}

#[test]
fn guarded_accesses_touch_only_active_lanes() {
    // `if (i < n)`: the lanes past n must neither read nor write (the words after n are
    // canaries the kernel would overwrite).
    let src = "kernel void k(global const float *a, global float *b, uint n) {
        uint i = get_global_id(0);
        if (i < n) b[i] = a[i] * 2.0f + 1.0f;
    }";
    let (n, items) = (13usize, 24usize);
    let mut b = vec![0xdead_beefu32; items];
    b[..n].fill(0);
    let bufs = vec![floats(items, 9), b];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1],
        &[(2, n as u32)],
        [items as u64, 1],
        [items as u64, 1],
    ) else {
        return;
    };
    let a = f(&bufs[0]);
    for i in 0..items {
        if i < n {
            assert_eq!(f32::from_bits(out[1][i]), a[i] * 2.0 + 1.0, "b[{i}]");
        } else {
            assert_eq!(out[1][i], 0xdead_beef, "b[{i}] past n was written");
        }
    }
}

#[test]
fn divergent_if_else_switch_and_early_return() {
    let src = "kernel void k(global const int *a, global int *out) {
        int i = get_global_id(0);
        int v = a[i];
        if (v < 0) { out[i] = -1; return; }
        int r;
        if (v & 1) r = v * 3; else r = v / 2 + 7;
        switch (v ^ (v >> 2)) {
        case 0: r += 10; break;
        case 1: r ^= 0x33; break;
        case 3: r -= 5; break;
        default: r = r * 2;
        }
        out[i] = r;
    }";
    let n = 31usize;
    let a: Vec<u32> = (0..n as i32).map(|i| ((i * 53) % 41 - 9) as u32).collect();
    let bufs = vec![a.clone(), vec![0; n]];
    let Some(out) = differential(src, "k", &bufs, &[0, 1], &[], [n as u64, 1], [n as u64, 1])
    else {
        return;
    };
    for i in 0..n {
        let v = a[i] as i32;
        let want = if v < 0 {
            -1
        } else {
            let mut r = if v & 1 != 0 { v * 3 } else { v / 2 + 7 };
            match v ^ (v >> 2) {
                0 => r += 10,
                1 => r ^= 0x33,
                3 => r -= 5,
                _ => r *= 2,
            }
            r
        };
        assert_eq!(out[1][i] as i32, want, "out[{i}] (a = {v})");
    }
}

/// A loop whose branches are all uniform, inside a divergent `if` (masked mode): the lanes
/// that enter leave together, through the loop's condition or a uniform `break`, and keep
/// the last iteration's values; lanes that skip the loop keep theirs.
#[test]
fn uniform_loop_under_a_divergent_branch() {
    let src = "kernel void ul(global const float *a, global float *o, global double *d,
                              int n, int lim) {
        int i = get_global_id(0);
        float s = 1.0f;
        double t = 0.0;
        int j = -1;
        if (a[i] > 0.0f) {
            for (j = 0; j < n; j++) {
                s = s * 0.5f + a[j];
                t = t * 0.25 + (double)a[i + j];
                if (j * j > lim)
                    break;
            }
        }
        o[i] = s + (float)j;
        d[i] = t;
    }";
    let items = 37usize;
    let a = floats(items + 40, 23);
    for (n, lim) in [(9u32, 1000u32), (30, 40), (0, 0)] {
        let bufs = vec![a.clone(), vec![0; items], vec![0; 2 * items]];
        let Some(out) = differential(
            src,
            "ul",
            &bufs,
            &[0, 1, 2],
            &[(3, n), (4, lim)],
            [items as u64, 1],
            [items as u64, 1],
        ) else {
            return;
        };
        let a = f(&a);
        for i in 0..items {
            let (mut s, mut t, mut j) = (1.0f32, 0.0f64, -1i32);
            if a[i] > 0.0 {
                j = 0;
                while j < n as i32 {
                    s = mad(s, 0.5, a[j as usize]);
                    let x = f64::from(a[i + j as usize]);
                    t = if std::arch::is_x86_feature_detected!("fma") {
                        t.mul_add(0.25, x)
                    } else {
                        t * 0.25 + x
                    };
                    if j * j > lim as i32 {
                        break;
                    }
                    j += 1;
                }
            }
            assert_eq!(f32::from_bits(out[1][i]), s + j as f32, "o[{i}], n {n}");
            assert_eq!(double_at(&out[2], i), t, "d[{i}], n {n}");
        }
    }
}

#[test]
fn nested_loops_with_varying_trip_counts_and_breaks() {
    // The inner loop's trip count depends on the work-item; it breaks out early on a
    // varying condition; the outer loop's result is used after it.
    let src = "kernel void k(global const uint *a, global uint *out, uint n) {
        uint i = get_global_id(0);
        uint acc = 0, found = 99;
        for (uint j = 0; j < n; j++) {
            for (uint k = 0; k < i % 5 + j; k++) {
                acc += a[(i + j + k) % 32];
                if (acc > 4000u) break;
            }
            if (found == 99 && acc > 1000u) found = j;
        }
        out[i] = acc * 100 + found;
    }";
    let items = 23usize;
    let n = 6u32;
    let a: Vec<u32> = (0..32u32).map(|i| (i * 37) % 97).collect();
    let bufs = vec![a.clone(), vec![0; items]];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1],
        &[(2, n)],
        [items as u64, 1],
        [items as u64, 1],
    ) else {
        return;
    };
    for i in 0..items as u32 {
        let (mut acc, mut found) = (0u32, 99u32);
        for j in 0..n {
            let mut k = 0;
            while k < i % 5 + j {
                acc += a[((i + j + k) % 32) as usize];
                if acc > 4000 {
                    break;
                }
                k += 1;
            }
            if found == 99 && acc > 1000 {
                found = j;
            }
        }
        assert_eq!(out[1][i as usize], acc * 100 + found, "out[{i}]");
    }
}

#[test]
fn search_loop_with_a_live_out_index_and_a_flag() {
    let src = "kernel void k(global const int *hay, global int *out, int n) {
        int i = get_global_id(0);
        int want = i * 3 % 17;
        int pos = -1;
        bool more = true;
        for (int j = 0; j < n && more; j++) {
            if (hay[j] == want) { pos = j; more = false; }
        }
        out[i] = pos;
    }";
    let items = 19usize;
    let hay: Vec<u32> = (0..20u32).map(|j| (j * 7) % 23).collect();
    let bufs = vec![hay.clone(), vec![0; items]];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1],
        &[(2, 20)],
        [items as u64, 1],
        [items as u64, 1],
    ) else {
        return;
    };
    for (i, got) in out[1].iter().enumerate() {
        let want = (i * 3 % 17) as u32;
        let pos = hay.iter().position(|h| *h == want).map_or(-1, |p| p as i32);
        assert_eq!(*got as i32, pos, "out[{i}]");
    }
}

#[test]
fn atomics_run_per_lane_in_lane_order() {
    // A histogram on global bins, a counter whose old values number the work-items that
    // pass a varying test (in lane order, as the scalar loop runs them), and a program-
    // scope variable.
    let src = "global uint total;
    kernel void k(global const uint *a, global uint *bins, global uint *counter,
                  global uint *slot) {
        uint i = get_global_id(0);
        atomic_add(&bins[a[i] % 8], 1u);
        if (a[i] & 1) slot[i] = atomic_inc(counter);
        atomic_max(&total, a[i]);
        atomic_or(&bins[8], total & 0);
    }";
    let items = 21usize;
    let a: Vec<u32> = (0..items as u32).map(|i| (i * 29 + 3) % 50).collect();
    let bufs = vec![a.clone(), vec![0; 9], vec![0; 1], vec![u32::MAX; items]];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1, 2, 3],
        &[],
        [items as u64, 1],
        [17, 1],
    ) else {
        return;
    };
    let mut bins = [0u32; 8];
    for v in &a {
        bins[(*v % 8) as usize] += 1;
    }
    assert_eq!(&out[1][..8], &bins);
    let odd: Vec<usize> = (0..items).filter(|i| a[*i] & 1 != 0).collect();
    assert_eq!(out[2][0], odd.len() as u32);
    for (n, i) in odd.iter().enumerate() {
        assert_eq!(out[3][*i], n as u32, "slot[{i}]");
    }
}

// ---- kernels with barriers: regions as vector loops -------------------------------------

/// Run `k` over a 1- or 2-D NDRange with `local_bytes` of `__local` argument memory at
/// argument `local_arg`, after checking that it is vectorised.
#[allow(clippy::too_many_arguments)]
fn differential_local(
    src: &str,
    name: &str,
    bufs: &Bufs,
    buf_idx: &[usize],
    vals: &[(usize, u32)],
    local_arg: Option<(usize, usize)>,
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
    let mut local_bytes = 0;
    if let Some((i, bytes)) = local_arg {
        args.local(i, k.static_local_size as u64);
        local_bytes = bytes;
    }
    let dim = if global[1] > 1 { 2 } else { 1 };
    run(
        &k,
        &args,
        dim,
        [global[0], global[1], 1],
        [local[0], local[1], 1],
        [0; 3],
        local_bytes,
    );
    Some(out)
}

/// A tree reduction through `__local` memory, one barrier per halving step.
const TREE_REDUCTION: &str =
    "kernel void reduce(global const uint *in, global uint *out, local uint *tmp) {
        uint l = get_local_id(0), n = get_local_size(0);
        tmp[l] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint s = n / 2; s > 0; s >>= 1) {
            if (l < s) tmp[l] += tmp[l + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (l == 0) out[get_group_id(0)] = tmp[0];
    }";

#[test]
fn local_reduction_with_a_divergent_branch_between_barriers() {
    let src = TREE_REDUCTION;
    let (groups, wg) = (5usize, 32usize);
    let input: Vec<u32> = (0..(groups * wg) as u32).map(|i| i * 7 % 101).collect();
    let bufs = vec![input.clone(), vec![0; groups]];
    let Some(out) = differential_local(
        src,
        "reduce",
        &bufs,
        &[0, 1],
        &[],
        Some((2, 4 * wg)),
        [(groups * wg) as u64, 1],
        [wg as u64, 1],
    ) else {
        return;
    };
    for g in 0..groups {
        let want: u32 = input[g * wg..(g + 1) * wg].iter().sum();
        assert_eq!(out[1][g], want, "group {g}");
    }
}

/// A region whose work-items act only under `l < m` (m uniform) stops its row at the
/// first iteration whose last lane fails the guard, and stores what it defines (`m`,
/// used by every work-item after the next barrier) into the frames it skipped. Local
/// sizes that are whole iterations and ones that are not (no row is cut then), and rows
/// of a 2-D group.
#[test]
fn guarded_region_stops_its_row_early() {
    let src = "kernel void guarded(global uint *out, local uint *t) {
        uint l = get_local_id(0), n = get_local_size(0), y = get_local_id(1);
        t[y * n + l] = l;
        barrier(CLK_LOCAL_MEM_FENCE);
        uint m = n / 3 + y;
        if (l < m) t[y * n + l] += 100u * (y + 1);
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = t[y * n + l] + m;
    }";
    for (wg, rows) in [
        (48usize, 1usize),
        (64, 1),
        (40, 1),
        (36, 1),
        (37, 1),
        (16, 3),
    ] {
        let (gx, gy) = (wg * 3, rows * 2);
        let bufs = vec![vec![0u32; gx * gy]];
        let Some(out) = differential_local(
            src,
            "guarded",
            &bufs,
            &[0],
            &[],
            Some((1, 4 * wg * rows)),
            [gx as u64, gy as u64],
            [wg as u64, rows as u64],
        ) else {
            return;
        };
        for (g, &got) in out[0].iter().enumerate() {
            let (x, yg) = (g % gx, g / gx);
            let (l, y) = ((x % wg) as u32, (yg % rows) as u32);
            let m = wg as u32 / 3 + y;
            let want = l + if l < m { 100 * (y + 1) } else { 0 } + m;
            assert_eq!(got, want, "work-group size {wg}x{rows}, item ({x}, {yg})");
        }
    }
}

/// A guarded region that starts right after work-group collectives: the collective's
/// result reaches it from the collective's own slot, and its boundary is what first stores
/// it into the frames; a uniform one (a reduction) is stored into the frames the row
/// skips too, a varying one (a scan) keeps the row from stopping.
#[test]
fn guarded_region_after_collectives() {
    let src = "kernel void coll(global uint *out, local uint *t) {
        uint l = get_local_id(0), n = get_local_size(0), q = n / 4;
        uint s = work_group_scan_inclusive_add(l);
        uint r = work_group_reduce_add(l);
        if (l < q) t[l] = 3u * l;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = s + 1000u * r + t[l % q];
    }";
    for wg in [64usize, 48, 32] {
        let groups = 2;
        let bufs = vec![vec![0u32; groups * wg]];
        let Some(out) = differential_local(
            src,
            "coll",
            &bufs,
            &[0],
            &[],
            Some((1, 4 * wg)),
            [(groups * wg) as u64, 1],
            [wg as u64, 1],
        ) else {
            return;
        };
        for (g, &got) in out[0].iter().enumerate() {
            let l = (g % wg) as u32;
            let n = wg as u32;
            let want = l * (l + 1) / 2 + 1000 * (n * (n - 1) / 2) + 3 * (l % (n / 4));
            assert_eq!(got, want, "work-group size {wg}, item {g}");
        }
    }
}

/// The tree reduction of the benchmarks over work-group sizes whose steps stop rows at
/// 16, 8 and 4 lanes, and one that never does (a scalar remainder).
#[test]
fn tree_reduction_over_several_work_group_sizes() {
    let src = TREE_REDUCTION;
    for wg in [256usize, 128, 64, 24, 12, 10] {
        let groups = 3;
        let input: Vec<u32> = (0..(groups * wg) as u32).map(|i| i * 13 % 97).collect();
        let bufs = vec![input.clone(), vec![0; groups]];
        let Some(out) = differential_local(
            src,
            "reduce",
            &bufs,
            &[0, 1],
            &[],
            Some((2, 4 * wg)),
            [(groups * wg) as u64, 1],
            [wg as u64, 1],
        ) else {
            return;
        };
        for g in 0..groups {
            // The kernel's own reduction: halving steps from n / 2 (an odd size drops
            // elements exactly as the kernel does).
            let mut t = input[g * wg..(g + 1) * wg].to_vec();
            let mut s = wg / 2;
            while s > 0 {
                for l in 0..s {
                    t[l] += t[l + s];
                }
                s /= 2;
            }
            assert_eq!(out[1][g], t[0], "work-group size {wg}, group {g}");
        }
    }
}

#[test]
fn tiled_matmul_with_local_tiles() {
    let src = "#define T 8
    kernel void sgemm(global const float *a, global const float *b, global float *c, uint n) {
        local float ta[T][T], tb[T][T];
        uint lx = get_local_id(0), ly = get_local_id(1);
        uint col = get_global_id(0), row = get_global_id(1);
        float acc = 0.0f;
        for (uint t = 0; t < n / T; t++) {
            ta[ly][lx] = a[row * n + t * T + lx];
            tb[ly][lx] = b[(t * T + ly) * n + col];
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint k = 0; k < T; k++) acc += ta[ly][k] * tb[k][lx];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        c[row * n + col] = acc;
    }";
    let n = 24usize;
    let bufs = vec![floats(n * n, 11), floats(n * n, 12), vec![0; n * n]];
    let Some(out) = differential_local(
        src,
        "sgemm",
        &bufs,
        &[0, 1, 2],
        &[(3, n as u32)],
        None,
        [n as u64, n as u64],
        [8, 8],
    ) else {
        return;
    };
    let (a, b) = (f(&bufs[0]), f(&bufs[1]));
    let c = f(&out[2]);
    for row in 0..n {
        for col in 0..n {
            let mut acc = 0f32;
            for t in 0..n / 8 {
                for k in 0..8 {
                    acc = mad(a[row * n + t * 8 + k], b[(t * 8 + k) * n + col], acc);
                }
            }
            assert_eq!(c[row * n + col], acc, "c[{row}][{col}]");
        }
    }
}

#[test]
fn math_calls_per_lane_in_black_scholes() {
    // exp, log, sqrt and erfc: the calls run per lane (the same functions the scalar code
    // calls), the rest of the kernel on vectors.
    let src = "kernel void bs(global const float *s, global const float *k, global float *call,
                          float r, float v, float t) {
        size_t i = get_global_id(0);
        float sq = sqrt(t);
        float d1 = (log(s[i] / k[i]) + (r + 0.5f * v * v) * t) / (v * sq);
        float d2 = d1 - v * sq;
        float n1 = 0.5f * erfc(-d1 * M_SQRT1_2_F), n2 = 0.5f * erfc(-d2 * M_SQRT1_2_F);
        call[i] = s[i] * n1 - k[i] * exp(-r * t) * n2;
    }";
    let n = 29usize;
    let s: Vec<u32> = (0..n)
        .map(|i| (10.0f32 + i as f32 * 1.7).to_bits())
        .collect();
    let k: Vec<u32> = (0..n)
        .map(|i| (30.0f32 - i as f32 * 0.3).to_bits())
        .collect();
    let bufs = vec![s, k, vec![0; n]];
    let Some(out) = differential(
        src,
        "bs",
        &bufs,
        &[0, 1, 2],
        &[
            (3, 0.02f32.to_bits()),
            (4, 0.3f32.to_bits()),
            (5, 1.5f32.to_bits()),
        ],
        [n as u64, 1],
        [n as u64, 1],
    ) else {
        return;
    };
    for (i, c) in f(&out[2]).iter().enumerate() {
        assert!(c.is_finite() && *c >= 0.0, "call[{i}] = {c}");
    }
}

#[test]
fn opencl_vector_types_as_components() {
    // float4 loads, arithmetic, a float4 loop-carried accumulator, rsqrt on a component,
    // a dot product, shuffles and an int4 comparison with select.
    let src = "kernel void nb(global const float4 *pos, global float4 *acc, uint n,
                              global int4 *flags) {
        uint i = get_global_id(0);
        float4 p = pos[i];
        float4 a = (float4)(0.0f);
        for (uint j = 0; j < n; j++) {
            float4 d = pos[j] - p;
            float r2 = dot(d.xyz, d.xyz) + 0.01f;
            float inv = rsqrt(r2);
            a += d * (pos[j].w * inv * inv * inv);
        }
        acc[i] = a.wzyx;
        int4 q = convert_int4(p * 10.0f);
        flags[i] = q > (int4)(0, 1, 2, 3) ? q : -q;
    }";
    let n = 22usize;
    let bufs = vec![floats(4 * n, 13), vec![0; 4 * n], vec![0; 4 * n]];
    differential(
        src,
        "nb",
        &bufs,
        &[0, 1, 3],
        &[(2, n as u32)],
        [n as u64, 1],
        [n as u64, 1],
    );
}

#[test]
fn float4_rows_kept_as_they_lie_in_memory() {
    // Consecutive float4 / int4 loads and stores one per lane (vector/rows.rs): mad and
    // fma, a uniform vector and a vector times a scalar on rows, a row meeting a varying
    // vector (the columns), a component read from a row, an int4 index that wraps (the
    // run-time test of a widened index) and int4 arithmetic.
    let src = "kernel void rows(float a, global const float4 *x, global float4 *y,
                                global const int4 *p, global int4 *q, global float *c,
                                global float4 *z, int shift) {
        int i = get_global_id(0);
        float4 v = x[i];
        float4 w = y[i];
        y[i] = mad(a, v, w) + (float4)(1.0f, -2.0f, 0.5f, 8.0f) - v / 3.0f;
        float4 m = fma(v, w, (float4)(a));
        z[i + shift] = m * 0.25f;
        float4 k = (float4)(i, 2 * i, -i, 0.5f * i);
        c[i] = (m + k).y + v.w;
        q[i] = p[i] + p[i] - (int4)(i, 1, 2, 3);
    }";
    let n = 23usize;
    let bufs = vec![
        floats(4 * n, 5),
        floats(4 * n, 6),
        floats(4 * n, 7),
        vec![0; 4 * n],
        vec![0; n],
        vec![0; 4 * (n + 2)],
    ];
    // Arguments 1-6 are the buffers; a and shift are scalars.
    differential(
        src,
        "rows",
        &bufs,
        &[1, 2, 3, 4, 5, 6],
        &[(0, 1.5f32.to_bits()), (7, 2)],
        [n as u64, 1],
        [n as u64, 1],
    );
}

/// Local atomics under a divergent branch: a plain load-op-store that every lane runs
/// when all are active and inactive lanes run on a spare slot otherwise; each returns the
/// value before it, in lane order, and a masked gather and scatter beside them have lanes
/// whose addresses lie far outside their buffers.
#[test]
fn local_atomics_and_gathers_under_partial_masks() {
    let src = "kernel void partial(global const uint *a, global uint *old, global uint *out,
                               uint n) {
        local uint bins[16];
        local uint count;
        uint l = get_local_id(0);
        if (l < 16) bins[l] = l;
        if (l == 0) count = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        uint i = get_global_id(0);
        uint v = a[i];
        if (v % 3 != 0) {
            old[i] = atomic_add(&bins[v % 8], v);
            if (v & 4) atomic_inc(&count);
        } else {
            old[i] = atomic_xchg(&bins[8 + v % 8], i) + a[(v * 2654435761u) % n];
        }
        if (v % 5 == 0) old[i] += a[i * 100000u];
        barrier(CLK_LOCAL_MEM_FENCE);
        uint g = get_group_id(0) * 17;
        if (l < 16) out[g + l] = bins[l];
        if (l == 16) out[g + 16] = count;
    }";
    let n = 96usize;
    // Lanes with v % 5 == 0 are those with i == 0 only: the others' `a[i * 100000]`
    // lies far past the buffer and must not be read.
    let a: Vec<u32> = (0..n as u32)
        .map(|i| match (i * 37 + 11) % 1000 {
            _ if i == 0 => 0,
            v if v % 5 == 0 => v + 1,
            v => v,
        })
        .collect();
    let bufs = vec![a, vec![0; n], vec![0; 17 * (n / 32)]];
    differential(
        src,
        "partial",
        &bufs,
        &[0, 1, 2],
        &[(3, n as u32)],
        [n as u64, 1],
        [32, 1],
    );
}

#[test]
fn histogram_of_chars_with_local_atomics_between_barriers() {
    let src = "kernel void histogram(global const uchar *in, global uint *bins, uint per_item) {
        local uint local_bins[64];
        uint l = get_local_id(0);
        for (uint i = l; i < 64; i += get_local_size(0)) local_bins[i] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        size_t base = get_global_id(0) * per_item;
        for (uint i = 0; i < per_item; i++) atomic_inc(&local_bins[in[base + i] % 64]);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint i = l; i < 64; i += get_local_size(0)) atomic_add(&bins[i], local_bins[i]);
    }";
    let (items, per) = (48usize, 5usize);
    let bytes: Vec<u8> = (0..items * per).map(|i| (i * 37 % 251) as u8).collect();
    let words: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let bufs = vec![words, vec![0; 64]];
    let Some(out) = differential_local(
        src,
        "histogram",
        &bufs,
        &[0, 1],
        &[(2, per as u32)],
        None,
        [items as u64, 1],
        [16, 1],
    ) else {
        return;
    };
    let mut want = [0u32; 64];
    for b in &bytes {
        want[(*b % 64) as usize] += 1;
    }
    assert_eq!(&out[1][..], &want[..]);
}

#[test]
fn private_arrays_per_lane() {
    // A private array filled, sorted in place with a varying number of swaps, and read
    // back by a varying index.
    let src = "kernel void k(global const int *a, global int *out) {
        int i = get_global_id(0);
        int t[6];
        for (int j = 0; j < 6; j++) t[j] = a[(i * 5 + j * 7) % 40];
        for (int p = 0; p < 6; p++)
            for (int j = 0; j + 1 < 6 - p; j++)
                if (t[j] > t[j + 1]) { int x = t[j]; t[j] = t[j + 1]; t[j + 1] = x; }
        out[i] = t[i % 6] * 100 + t[5 - i % 6];
    }";
    let n = 27usize;
    let a: Vec<u32> = (0..40i32).map(|v| ((v * 13) % 29 - 7) as u32).collect();
    let bufs = vec![a.clone(), vec![0; n]];
    let Some(out) = differential(src, "k", &bufs, &[0, 1], &[], [n as u64, 1], [n as u64, 1])
    else {
        return;
    };
    for i in 0..n {
        let mut t: Vec<i32> = (0..6).map(|j| a[(i * 5 + j * 7) % 40] as i32).collect();
        t.sort();
        assert_eq!(out[1][i] as i32, t[i % 6] * 100 + t[5 - i % 6], "out[{i}]");
    }
}

#[test]
fn double_lanes_with_conversions_and_a_loop() {
    let src = "kernel void k(global const float *a, global double *out, int n) {
        int i = get_global_id(0);
        double acc = 0.0;
        for (int j = 0; j < n; j++) {
            double x = (double)a[(i + j) % 16];
            acc = acc * 0.5 + (x > 0.0 ? x : -x * 2.0);
        }
        out[i] = -acc + (double)(float)(acc / 3.0);
    }";
    let n = 21usize;
    let bufs = vec![floats(16, 17), vec![0; 2 * n]];
    differential(
        src,
        "k",
        &bufs,
        &[0, 1],
        &[(2, 7)],
        [n as u64, 1],
        [n as u64, 1],
    );
}

#[test]
fn struct_copies_per_lane_and_under_a_mask() {
    // Whole-struct copies (`OpCopyMemory`/`OpCopyMemorySized`): from a uniform constant and
    // from each work-item's element into private memory, and back out, some of them only
    // on the lanes of a divergent branch.
    let src = "typedef struct { int a; float b[5]; short c; char d; } S;
    constant S base = { 7, { 1.5f, 2.5f, 3.5f, 4.5f, 5.5f }, -3, 9 };
    kernel void k(global const S *in, global S *out, uint n) {
        uint i = get_global_id(0);
        S t = base;
        S u = in[i];
        t.a += u.a;
        t.b[i % 5] += u.b[(i + 1) % 5];
        if (i % 3 != 0) {
            S v = u;
            v.c = (short)(v.c + t.a);
            t = v;
        }
        t.d = (char)(t.d + (char)n);
        out[i] = t;
    }";
    let n = 37usize;
    // 28 bytes (7 words) per S: a, b[5], then c and d in one word, a byte of padding.
    let mut input = vec![0u32; 7 * n];
    for i in 0..n {
        input[7 * i] = (i * 11) as u32;
        for j in 0..5 {
            input[7 * i + 1 + j] = ((i * 5 + j) as f32 * 0.25).to_bits();
        }
        input[7 * i + 6] = ((i as u32 * 3) & 0xFFFF) | (((i as u32) & 0x7F) << 16);
    }
    let bufs = vec![input.clone(), vec![0; 7 * n]];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1],
        &[(2, 5)],
        [n as u64, 1],
        [n as u64, 1],
    ) else {
        return;
    };
    for i in 0..n {
        let o = &out[1][7 * i..7 * i + 7];
        let u_a = input[7 * i] as i32;
        let a = 7 + u_a;
        if i % 3 != 0 {
            // t = v: u's fields, c increased by t.a, d + 5.
            assert_eq!(o[0] as i32, u_a, "a {i}");
            let c = (input[7 * i + 6] & 0xFFFF) as i16;
            let d = ((input[7 * i + 6] >> 16) & 0xFF) as i8;
            assert_eq!((o[6] & 0xFFFF) as i16, c.wrapping_add(a as i16), "c {i}");
            assert_eq!(((o[6] >> 16) & 0xFF) as i8, d.wrapping_add(5), "d {i}");
        } else {
            assert_eq!(o[0] as i32, a, "a {i}");
            let mut b = [1.5f32, 2.5, 3.5, 4.5, 5.5];
            b[i % 5] += f32::from_bits(input[7 * i + 1 + (i + 1) % 5]);
            for j in 0..5 {
                assert_eq!(f32::from_bits(o[1 + j]), b[j], "b {i} {j}");
            }
            assert_eq!((o[6] & 0xFFFF) as i16, -3, "c {i}");
            assert_eq!(((o[6] >> 16) & 0xFF) as i8, 14, "d {i}");
        }
    }
}

#[test]
fn sub_group_and_linear_ids_without_collectives() {
    // The sub-group built-ins that need no exchange between work-items vectorise: local
    // linear index, sub-group id, local id, size (shorter for the last sub-group of a
    // group) and their counts, in 2-D groups whose rows are not multiples of the width.
    let src = "kernel void k(global uint *out) {
        size_t g = get_global_id(1) * get_global_size(0) + get_global_id(0);
        out[2 * g] = get_local_linear_id() * 1000 + get_sub_group_id() * 10
            + get_sub_group_local_id();
        out[2 * g + 1] = get_sub_group_size() * 1000 + get_num_sub_groups() * 10
            + get_max_sub_group_size();
    }";
    let (gx, gy, lx, ly) = (45usize, 4usize, 21usize, 2usize);
    let bufs = vec![vec![0; 2 * gx * gy]];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0],
        &[],
        [gx as u64, gy as u64],
        [lx as u64, ly as u64],
    ) else {
        return;
    };
    let sgs = ferrite_compiler::DEFAULT_SUB_GROUP_SIZE as usize;
    for y in 0..gy {
        for x in 0..gx {
            let g = y * gx + x;
            let w = lx.min(gx - x / lx * lx);
            let lin = (y % ly) * w + x % lx;
            let n = w * ly;
            let size = sgs.min(n - lin / sgs * sgs);
            let want = [
                (lin * 1000 + lin / sgs * 10 + lin % sgs) as u32,
                (size * 1000 + n.div_ceil(sgs) * 10 + sgs) as u32,
            ];
            assert_eq!(out[0][2 * g..2 * g + 2], want, "item ({x}, {y})");
        }
    }
}

#[test]
fn float_classes_orderings_conversions_and_varying_shifts() {
    // isnan/isinf/isfinite, isordered/isunordered, conversions between narrow integers,
    // doubles and floats, and shifts by a per-work-item amount.
    let src = "kernel void k(global const float *a, global const int *b, global int *out,
                             global double *d) {
        uint i = get_global_id(0);
        float x = a[i], y = a[(i + 7) % 40];
        int n = b[i];
        out[8 * i] = isnan(x) | (isinf(x) << 1) | (isfinite(x) << 2)
            | (isordered(x, y) << 3) | (isunordered(x, y) << 4);
        out[8 * i + 1] = (int)(char)(x * 3.0f) + 1000 * (int)(short)(y * 100.0f);
        out[8 * i + 2] = (int)(float)(char)n + (int)(float)(ushort)n;
        out[8 * i + 3] = n << (i % 31);
        out[8 * i + 4] = (int)((uint)n >> (n & 15));
        out[8 * i + 5] = n >> (i % 13);
        out[8 * i + 6] = (int)((double)n * 0.5);
        out[8 * i + 7] = (int)(uint)(x * 1000.0f);
        d[i] = (double)n + (double)(uint)n + (double)(long)(x * 7.0f);
    }";
    let n = 40usize;
    let mut a: Vec<u32> = floats(n, 29);
    a[3] = f32::NAN.to_bits();
    a[10] = f32::INFINITY.to_bits();
    a[17] = f32::NEG_INFINITY.to_bits();
    a[30] = (-f32::NAN).to_bits();
    let b: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) ^ 0x8000_1234)
        .collect();
    let bufs = vec![a.clone(), b.clone(), vec![0; 8 * n], vec![0; 2 * n]];
    let Some(out) = one_group_row(src, "k", &bufs, &[0, 1, 2, 3], n) else {
        return;
    };
    for i in 0..n {
        let x = f32::from_bits(a[i]);
        let y = f32::from_bits(a[(i + 7) % 40]);
        let flags = i32::from(x.is_nan())
            | i32::from(x.is_infinite()) << 1
            | i32::from(x.is_finite()) << 2
            | i32::from(!x.is_nan() && !y.is_nan()) << 3
            | i32::from(x.is_nan() || y.is_nan()) << 4;
        assert_eq!(out[2][8 * i] as i32, flags, "classes {i}");
        let nb = b[i] as i32;
        assert_eq!(
            out[2][8 * i + 3] as i32,
            nb.wrapping_shl(i as u32 % 31),
            "shl {i}"
        );
        assert_eq!(out[2][8 * i + 4], b[i] >> (b[i] & 15), "ushr {i}");
        assert_eq!(out[2][8 * i + 5] as i32, nb >> (i % 13), "sshr {i}");
        assert_eq!(
            out[2][8 * i + 6] as i32,
            (f64::from(nb) * 0.5) as i32,
            "double {i}"
        );
    }
}

#[test]
fn work_group_collectives_between_vector_regions() {
    // Work-group reductions, scans and broadcasts are boundaries: each region between them
    // runs as vector loops, the operands go to every work-item's frame and the combine
    // step runs between the rounds; a divergent branch and a loop around one of them too.
    let src = "kernel void k(global const int *in, global int *out, global float *f) {
        size_t g = get_global_id(0);
        int v = in[g];
        int s = work_group_reduce_add(v);
        int e = work_group_scan_exclusive_add(v);
        int m = work_group_scan_inclusive_max(v);
        int b = work_group_broadcast(v, 5);
        int acc = 0;
        for (int r = 0; r < 3; r++) {
            acc += work_group_reduce_min(v + r * (int)get_local_id(0));
        }
        int any = work_group_any(v > 1900);
        float fs = work_group_reduce_add((float)(v & 255) * 0.5f);
        if (v & 1) {
            acc += e;
        }
        global int *o = out + 7 * g;
        o[0] = s; o[1] = e; o[2] = m; o[3] = b; o[4] = acc; o[5] = any;
        f[g] = fs;
    }";
    let (n, local) = (75usize, 25usize);
    let input: Vec<u32> = (0..n as u32)
        .map(|i| ((i.wrapping_mul(2_654_435_761) >> 20) as i32 - 2048) as u32)
        .collect();
    let bufs = vec![input.clone(), vec![0; 7 * n], vec![0; n]];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1, 2],
        &[],
        [n as u64, 1],
        [local as u64, 1],
    ) else {
        return;
    };
    for g0 in (0..n).step_by(local) {
        let xs: Vec<i32> = input[g0..g0 + local].iter().map(|x| *x as i32).collect();
        let sum: i32 = xs.iter().sum();
        for j in 0..local {
            let o: Vec<i32> = out[1][7 * (g0 + j)..7 * (g0 + j) + 6]
                .iter()
                .map(|x| *x as i32)
                .collect();
            let excl: i32 = xs[..j].iter().sum();
            let max = *xs[..=j].iter().max().expect("a work-item");
            let mut acc: i32 = (0..3)
                .map(|r| (0..local).map(|l| xs[l] + r * l as i32).min().unwrap_or(0))
                .sum();
            if xs[j] & 1 != 0 {
                acc += excl;
            }
            let any = i32::from(xs.iter().any(|x| *x > 1900));
            assert_eq!(o, [sum, excl, max, xs[5], acc, any], "item {}", g0 + j);
            let fs: f32 = xs.iter().map(|x| (x & 255) as f32 * 0.5).sum();
            assert_eq!(f32::from_bits(out[2][g0 + j]), fs, "float sum {}", g0 + j);
        }
    }
}

#[test]
fn private_array_written_before_a_barrier_and_read_after() {
    // A private array lives in each work-item's frame: a region after the barrier finds
    // it there, whichever region defined it.
    let src = "kernel void k(global const int *in, global int *out, local int *tmp) {
        size_t g = get_global_id(0), l = get_local_id(0);
        int priv[6];
        for (int i = 0; i < 6; i++) priv[i] = in[g] * (i + 1) + i;
        tmp[l] = priv[g % 6];
        barrier(CLK_LOCAL_MEM_FENCE);
        size_t n = get_local_size(0);
        out[g] = tmp[(l + 1) % n] + priv[(g + 2) % 6];
    }";
    let (n, local) = (54usize, 18usize);
    let input: Vec<u32> = (0..n as u32).map(|i| i * 7 + 3).collect();
    let bufs = vec![input.clone(), vec![0; n]];
    let Some(out) = differential_local(
        src,
        "k",
        &bufs,
        &[0, 1],
        &[],
        Some((2, 4 * local)),
        [n as u64, 1],
        [local as u64, 1],
    ) else {
        return;
    };
    let priv_of = |g: usize, i: usize| input[g] as i32 * (i as i32 + 1) + i as i32;
    for (g, got) in out[1].iter().enumerate() {
        let (g0, l) = (g / local * local, g % local);
        let nb = g0 + (l + 1) % local;
        let want = priv_of(nb, nb % 6) + priv_of(g, (g + 2) % 6);
        assert_eq!(*got as i32, want, "item {g}");
    }
}

#[test]
fn popcount_copysign_abs_and_double_math_per_lane() {
    let src = "kernel void k(global const int *a, global const float *f, global int *out,
                             global float *g, global double *d) {
        uint i = get_global_id(0);
        int x = a[i];
        out[3 * i] = popcount(x) + 100 * popcount((uchar)x);
        out[3 * i + 1] = (int)abs(x);
        int4 v = (int4)(x, -x, x ^ 0x55, 7);
        int4 p = popcount(v);
        out[3 * i + 2] = p.x + 10 * p.y + 100 * p.z + 1000 * p.w;
        g[2 * i] = copysign(f[i], (float)x);
        g[2 * i + 1] = copysign(1.5f, f[(i + 3) % 30]);
        double e = (double)f[i];
        d[i] = exp(e * 0.25) + hypot(e, (double)x * 1e-3);
    }";
    let n = 30usize;
    let mut a: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    // abs(INT_MIN) is 2^31.
    a[4] = 0x8000_0000;
    let f = floats(n, 41);
    let bufs = vec![
        a.clone(),
        f.clone(),
        vec![0; 3 * n],
        vec![0; 2 * n],
        vec![0; 2 * n],
    ];
    let Some(out) = one_group_row(src, "k", &bufs, &[0, 1, 2, 3, 4], n) else {
        return;
    };
    for i in 0..n {
        let x = a[i] as i32;
        let pc = x.count_ones() + 100 * (x as u8).count_ones();
        assert_eq!(out[2][3 * i], pc, "popcount {i}");
        assert_eq!(out[2][3 * i + 1], x.unsigned_abs(), "abs {i}");
        let fi = f32::from_bits(f[i]);
        assert_eq!(
            f32::from_bits(out[3][2 * i]),
            fi.copysign(x as f32),
            "copysign {i}"
        );
    }
}

#[test]
fn bit_casts_and_sign_bits() {
    // as_type between numbers of one width (scalars and vectors), signbit and the float
    // classes on vectors.
    let src = "kernel void k(global const float4 *a, global uint *out, global double *d) {
        uint i = get_global_id(0);
        float4 v = a[i];
        uint4 u = as_uint4(v);
        float4 back = as_float4(u ^ (uint4)(0x80000000u, 0, 0, 0x80000000u));
        int4 s = signbit(back);
        int4 n = isnan(v);
        out[4 * i] = as_uint(v.x) + (uint)s.x + 2u * (uint)s.w;
        out[4 * i + 1] = u.y ^ u.z;
        out[4 * i + 2] = (uint)(n.x & 1) | ((uint)(n.y & 1) << 1) | ((uint)signbit(v.z) << 2);
        out[4 * i + 3] = as_uint(back.w);
        d[i] = as_double((ulong)u.x << 32 | u.y);
    }";
    let n = 26usize;
    let mut a = floats(4 * n, 43);
    a[5] = f32::NAN.to_bits();
    a[10] = (-0.0f32).to_bits();
    let bufs = vec![a.clone(), vec![0; 4 * n], vec![0; 2 * n]];
    let Some(out) = one_group_row(src, "k", &bufs, &[0, 1, 2], n) else {
        return;
    };
    for i in 0..n {
        let u = &a[4 * i..4 * i + 4];
        assert_eq!(out[1][4 * i + 1], u[1] ^ u[2], "xor {i}");
        assert_eq!(out[1][4 * i + 3], u[3] ^ 0x8000_0000, "flipped w {i}");
        let d = f64::from_bits((u64::from(u[0]) << 32) | u64::from(u[1]));
        let got = f64::from_bits(u64::from(out[2][2 * i]) | (u64::from(out[2][2 * i + 1]) << 32));
        assert_eq!(got.to_bits(), d.to_bits(), "double {i}");
    }
}

/// Conversions whose decorations change the result (`FPRoundingMode`,
/// `SaturatedConversion`, `OpSatConvert*`) run in the lanes through the scalar lowering's
/// lane functions, scalar and vector types alike; before, one of them left the whole
/// kernel scalar.
#[test]
fn conversions_with_rounding_modes_and_saturation() {
    let src = "kernel void cvt(global const float *in, global const int *iv, global int *out) {
        size_t i = get_global_id(0);
        float x = in[i];
        int v = iv[i];
        global int *o = out + 12 * i;
        o[0] = convert_int_rte(x);
        o[1] = convert_int_rtp(x);
        o[2] = convert_int_rtn(x);
        o[3] = convert_uchar_sat_rte(x * 20.0f);
        o[4] = convert_char_sat(v);
        o[5] = convert_ushort_sat(v);
        o[6] = convert_int_sat_rtz(x * 3e8f);
        o[7] = (int)convert_uint_sat(v);
        int2 r = convert_int2_rte((float2)(x, x * 0.5f));
        o[8] = r.x;
        o[9] = r.y;
        uchar2 s = convert_uchar2_sat((int2)(v, v >> 20));
        o[10] = s.x;
        o[11] = s.y;
    }";
    let n = 45usize;
    let ints: Vec<u32> = floats(n, 9)
        .iter()
        .enumerate()
        .map(|(k, x)| x.rotate_left(k as u32) ^ (k as u32 * 37))
        .collect();
    let bufs = vec![floats(n, 8), ints, vec![0; 12 * n]];
    let Some(out) = one_group_row(src, "cvt", &bufs, &[0, 1, 2], n) else {
        return;
    };
    let x = f(&bufs[0]);
    for i in 0..n {
        let (x, v) = (x[i], bufs[1][i] as i32);
        let want = [
            x.round_ties_even() as i32,
            x.ceil() as i32,
            x.floor() as i32,
            i32::from((x * 20.0).round_ties_even() as u8),
            v.clamp(-128, 127),
            v.clamp(0, 65535),
            (x * 3e8).trunc() as i32,
            v.max(0),
            x.round_ties_even() as i32,
            (x * 0.5).round_ties_even() as i32,
            v.clamp(0, 255),
            (v >> 20).clamp(0, 255),
        ];
        let got: Vec<i32> = out[2][12 * i..12 * i + 12]
            .iter()
            .map(|w| *w as i32)
            .collect();
        assert_eq!(got, want, "work-item {i}: x = {x}, v = {v}");
    }
}

/// `atomic_cmpxchg` per active lane in lane order, inside a retry loop whose trip count
/// differs between lanes (masked mode): an add built from compare-exchange, as code
/// without a native atomic for its operation writes it, on a few contended counters and
/// on a float accumulated through its bits.
#[test]
fn compare_exchange_loops_per_lane() {
    let src = "kernel void cas(global const uint *in, global uint *bins, global float *acc,
                               global uint *seen) {
        size_t i = get_global_id(0);
        uint v = in[i];
        global uint *b = bins + (v & 3);
        uint old, tries = 0;
        do {
            old = *b;
            tries++;
        } while (atomic_cmpxchg(b, old, old + v) != old);
        seen[i] = old;
        float f = (float)(v & 7);
        global uint *a = (global uint *)acc;
        uint prev;
        do {
            prev = *a;
        } while (atomic_cmpxchg(a, prev, as_uint(as_float(prev) + f)) != prev);
    }";
    let n = 57usize;
    let input: Vec<u32> = (0..n as u32)
        .map(|k| k.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let bufs = vec![input.clone(), vec![0; 4], vec![0], vec![0; n]];
    let Some(out) = differential(
        src,
        "cas",
        &bufs,
        &[0, 1, 2, 3],
        &[],
        [n as u64, 1],
        [19, 1],
    ) else {
        return;
    };
    // Work-items run in order within a group and groups one after another here, so each
    // saw the sum of the values before it in its bin.
    let mut bins = [0u32; 4];
    let mut acc = 0f32;
    for (i, v) in input.iter().enumerate() {
        let b = (v & 3) as usize;
        assert_eq!(out[3][i], bins[b], "work-item {i} saw its bin before it");
        bins[b] = bins[b].wrapping_add(*v);
        acc += (v & 7) as f32;
    }
    assert_eq!(out[1], bins.to_vec());
    assert_eq!(f32::from_bits(out[2][0]), acc);
}

/// OpenCL vectors live across a barrier (a `float4` and an `int2` computed before it, used
/// after): each component keeps its frame slot, in the vector steps as in the scalar
/// step.
#[test]
fn opencl_vectors_live_across_a_barrier() {
    let src = "kernel void vb(global const float4 *in, global float4 *out, local float *tmp) {
        uint l = get_local_id(0), n = get_local_size(0);
        size_t i = get_global_id(0);
        float4 v = in[i] * 2.0f;
        int2 q = (int2)((int)l, (int)i * 3);
        float4 u = (float4)(1.5f, (float)n, 0.25f, -1.0f);
        tmp[l] = v.x + v.w;
        barrier(CLK_LOCAL_MEM_FENCE);
        float s = tmp[(l + 1) % n];
        out[i] = v + u + (float4)(s, (float)q.x, (float)q.y, 1.0f);
    }";
    let (groups, wg) = (3usize, 24usize);
    let n = groups * wg;
    let bufs = vec![floats(4 * n, 11), vec![0; 4 * n]];
    let Some(out) = differential_local(
        src,
        "vb",
        &bufs,
        &[0, 1],
        &[],
        Some((2, 4 * wg)),
        [n as u64, 1],
        [wg as u64, 1],
    ) else {
        return;
    };
    let x = f(&bufs[0]);
    let o = f(&out[1]);
    for i in 0..n {
        let (g, l) = (i / wg, i % wg);
        let v: Vec<f32> = (0..4).map(|c| x[4 * i + c] * 2.0).collect();
        let j = g * wg + (l + 1) % wg;
        let s = x[4 * j] * 2.0 + x[4 * j + 3] * 2.0;
        let u = [1.5f32, wg as f32, 0.25, -1.0];
        let add = [s, l as f32, (i * 3) as f32, 1.0];
        for c in 0..4 {
            assert_eq!(o[4 * i + c], v[c] + u[c] + add[c], "out[{i}].{c}");
        }
    }
}

/// Values of every width live across barriers in the cross area, where one value of
/// consecutive work-items is side by side: rows of 6 work-items (so vector lanes start at
/// any linear id, not a multiple of four), 3 rows, and a last group along x of 2; a
/// `float` and a `long` redefined between two barriers, a `bool`, `uchar` and `ushort`
/// only passing through the middle regions to the last.
/// A region between barriers whose branches are all uniform (the counting loop of a
/// histogram) runs unmasked beside regions with divergent loops (clearing and merging
/// the bins), with values passing from a divergent region through the uniform one and
/// back: groups of 20, 12 and 60 work-items (rows not multiples of the widths), 4 bytes
/// counted per work-item.
#[test]
fn uniform_region_between_divergent_ones() {
    let src = "kernel void hist(global const uchar *in, global uint *bins, global float *out,
                               uint per_item) {
        local uint lb[64];
        uint l = get_local_id(0);
        float s = 0.0f;
        for (uint i = l; i < 64; i += get_local_size(0)) { lb[i] = 0; s += 1.0f; }
        barrier(CLK_LOCAL_MEM_FENCE);
        size_t base = get_global_id(0) * per_item;
        float t = s;
        for (uint i = 0; i < per_item; i++) {
            uchar v = in[base + i];
            atomic_inc(&lb[v & 63]);
            t = t * 0.5f + (float)v;
        }
        if (per_item > 2) t += 1.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint i = l; i < 64; i += get_local_size(0)) atomic_add(&bins[i], lb[i]);
        out[get_global_id(0)] = t + s;
    }";
    let (n, per_item) = (60usize, 4usize);
    let bytes: Vec<u8> = xorshift(n * per_item, 77)
        .iter()
        .map(|x| *x as u8)
        .collect();
    let words: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for local in [20u64, 12, 60] {
        let bufs = vec![words.clone(), vec![0; 64], vec![0; n]];
        let Some(out) = differential(
            src,
            "hist",
            &bufs,
            &[0, 1, 2],
            &[(3, per_item as u32)],
            [n as u64, 1],
            [local, 1],
        ) else {
            return;
        };
        let mut want = [0u32; 64];
        for b in &bytes {
            want[usize::from(b & 63)] += 1;
        }
        assert_eq!(out[1], want, "bins with groups of {local}");
        let o = f(&out[2]);
        for (x, got) in o.iter().enumerate() {
            let l = x % local as usize;
            let s = (l..64).step_by(local as usize).count() as f32;
            let mut t = s;
            for v in &bytes[x * per_item..(x + 1) * per_item] {
                t = mad(t, 0.5, f32::from(*v));
            }
            assert_eq!(*got, t + 1.0 + s, "out[{x}] with groups of {local}");
        }
    }
}

#[test]
fn values_of_every_width_live_across_barriers() {
    let src = "kernel void cross(global const int *in, global long *out, local int *tmp) {
        size_t i = get_global_id(0) + get_global_size(0) * get_global_id(1);
        uint l = get_local_id(0) + get_local_size(0) * get_local_id(1);
        uint n = get_local_size(0) * get_local_size(1);
        int a = in[i];
        tmp[l] = a;
        float f = (float)a * 0.5f;
        long w = (long)a * 1000003L;
        bool odd = (a & 1) != 0;
        uchar c = (uchar)(a * 7);
        ushort s = (ushort)(a * 13);
        barrier(CLK_LOCAL_MEM_FENCE);
        int nb = tmp[(l + 1) % n];
        f = f + (float)nb;
        w = w - (long)nb;
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[l] = nb * 3;
        barrier(CLK_LOCAL_MEM_FENCE);
        int nb2 = tmp[(l + n - 1) % n];
        out[i] = (long)(f * 4.0f) + w + (odd ? 100000L : 0L) + (long)c * 7L + (long)s * 11L
            + (long)nb2 * 5L;
    }";
    let Some(k) = harness::kernel(src, "cross") else {
        return;
    };
    assert_vectorised(&k);
    let (gx, gy, lx, ly) = (20usize, 6usize, 6usize, 3usize);
    let n = gx * gy;
    let input: Vec<i32> = (0..n)
        .map(|i| (i as i32 * 7919 + 13) % 2001 - 1000)
        .collect();
    let mut out = vec![0i64; n];
    let mut inb = input.clone();
    let mut args = Args::new(&k.info);
    args.buf(0, &mut inb)
        .buf(1, &mut out)
        .local(2, k.static_local_size as u64);
    run(
        &k,
        &args,
        2,
        [gx as u64, gy as u64, 1],
        [lx as u64, ly as u64, 1],
        [0; 3],
        4 * lx * ly,
    );
    for y in 0..gy {
        for x in 0..gx {
            let i = x + gx * y;
            // This work-item's group: its width (the last along x is narrower) and place.
            let (x0, y0) = (x / lx * lx, y / ly * ly);
            let w_ = lx.min(gx - x0);
            let cnt = w_ * ly;
            let l = (x - x0) + w_ * (y - y0);
            let at = |m: usize| input[x0 + m % w_ + gx * (y0 + m / w_)];
            let a = input[i];
            let nb = at((l + 1) % cnt);
            // The neighbour before stored its own neighbour after: this one's input.
            let nb2 = at(((l + cnt - 1) % cnt + 1) % cnt) * 3;
            let f = a as f32 * 0.5 + nb as f32;
            let w = a as i64 * 1000003 - nb as i64;
            let odd = if a & 1 != 0 { 100000 } else { 0 };
            let c = (a.wrapping_mul(7) as u8) as i64;
            let s = (a.wrapping_mul(13) as u16) as i64;
            let want = (f * 4.0) as i64 + w + odd + c * 7 + s * 11 + nb2 as i64 * 5;
            assert_eq!(out[i], want, "out[{x}, {y}]");
        }
    }
}

/// OpenCL vectors through divergent control flow (masked mode): a `float4` accumulated in
/// a loop whose trip count differs between lanes (a header phi, and a value used after
/// the loop that keeps each lane's last iteration), and an `int2` chosen by a divergent
/// `if` (a phi blended by edge masks).
#[test]
fn opencl_vectors_through_divergent_loops_and_branches() {
    let src = "kernel void dv(global const float4 *in, global const uint *trips,
                              global float4 *out, global int2 *pick) {
        size_t i = get_global_id(0);
        uint t = trips[i];
        float4 acc = (float4)(0.0f, 1.0f, 2.0f, 3.0f);
        float4 last = (float4)(0.0f);
        for (uint k = 0; k < t; k++) {
            last = in[(i + k) % 40] * (float)(k + 1);
            acc += last;
        }
        out[2 * i] = acc;
        out[2 * i + 1] = last;
        int2 p;
        if (t & 1) p = (int2)((int)t, -(int)i); else p = (int2)((int)i * 2, 7);
        pick[i] = p;
    }";
    let n = 40usize;
    let trips: Vec<u32> = (0..n as u32).map(|k| (k * 7 + 3) % 9).collect();
    let bufs = vec![
        floats(4 * n, 21),
        trips.clone(),
        vec![0; 8 * n],
        vec![0; 2 * n],
    ];
    let Some(out) = one_group_row(src, "dv", &bufs, &[0, 1, 2, 3], n) else {
        return;
    };
    let x = f(&bufs[0]);
    let o = f(&out[2]);
    for i in 0..n {
        let t = trips[i];
        let mut acc = [0.0f32, 1.0, 2.0, 3.0];
        let mut last = [0.0f32; 4];
        for k in 0..t as usize {
            let j = (i + k) % 40;
            for c in 0..4 {
                last[c] = x[4 * j + c] * (k + 1) as f32;
                acc[c] += last[c];
            }
        }
        assert_eq!(&o[8 * i..8 * i + 4], &acc, "acc of {i}");
        assert_eq!(&o[8 * i + 4..8 * i + 8], &last, "last of {i}");
        let p = if t & 1 == 1 {
            [t as i32, -(i as i32)]
        } else {
            [i as i32 * 2, 7]
        };
        let got = [out[3][2 * i] as i32, out[3][2 * i + 1] as i32];
        assert_eq!(got, p, "pick of {i}");
    }
}

/// Exact one-operand functions of doubles (`fabs`, `sqrt`, `rsqrt`, the roundings) and
/// `clz`/`ctz` of integers of each width run per lane with the scalar code's instruction.
#[test]
fn double_functions_and_bit_counts_per_lane() {
    let src = "kernel void dc(global const double *in, global const uint *u, global double *o,
                              global uint *c) {
        size_t i = get_global_id(0);
        double x = in[i];
        o[6 * i] = fabs(x);
        o[6 * i + 1] = sqrt(fabs(x));
        o[6 * i + 2] = rsqrt(fabs(x) + 1.0);
        o[6 * i + 3] = floor(x) + ceil(x);
        o[6 * i + 4] = trunc(x);
        o[6 * i + 5] = rint(x);
        uint v = u[i];
        c[4 * i] = clz(v);
        c[4 * i + 1] = ctz(v);
        c[4 * i + 2] = (uint)clz((ulong)v << 7);
        c[4 * i + 3] = (uint)ctz((uchar)v);
    }";
    let n = 37usize;
    let xs: Vec<f64> = (0..n).map(|k| (k as f64 - 18.0) * 0.75 + 0.5).collect();
    let words = double_words(&xs);
    let us: Vec<u32> = (0..n as u32)
        .map(|k| {
            if k % 9 == 0 {
                0
            } else {
                k.wrapping_mul(0x9E37_79B9) >> (k % 13)
            }
        })
        .collect();
    let bufs = vec![words, us.clone(), vec![0; 12 * n], vec![0; 4 * n]];
    let Some(out) = one_group_row(src, "dc", &bufs, &[0, 1, 2, 3], n) else {
        return;
    };
    let d = |k: usize| double_at(&out[2], k);
    for i in 0..n {
        let x = xs[i];
        let want = [
            x.abs(),
            x.abs().sqrt(),
            1.0 / (x.abs() + 1.0).sqrt(),
            x.floor() + x.ceil(),
            x.trunc(),
            x.round_ties_even(),
        ];
        for (j, w) in want.iter().enumerate() {
            assert_eq!(d(6 * i + j), *w, "o[{i}][{j}], x = {x}");
        }
        let v = us[i];
        let ctz8 = if v as u8 == 0 {
            8
        } else {
            (v as u8).trailing_zeros()
        };
        let want = [
            v.leading_zeros(),
            v.trailing_zeros(),
            (u64::from(v) << 7).leading_zeros(),
            ctz8,
        ];
        assert_eq!(&out[3][4 * i..4 * i + 4], &want, "bits of {v:#x}");
    }
}

/// `double` lanes kept as `f64x2` vectors: consecutive loads and stores, arithmetic,
/// comparisons and selects, `fmin`/`fmax`, the exact one-operand functions, `fma`,
/// conversions from `float` and `int` and to `float` (rounding, overflow, NaN), a uniform
/// loop's accumulator, a divergent branch's blend and a loop with per-lane trip counts;
/// bit for bit with the scalar reference at every width, and with a host model.
#[test]
fn double_lanes_as_vectors() {
    let src = "kernel void dv(global const double *x, global const double *y,
                              global const float *f, global const int *n, global double *o,
                              global float *of, uint s, int k) {
        size_t i = get_global_id(0);
        double u = x[i], v = y[i];
        double a = x[0];
        o[i] = a * u - v / 3.0;
        o[i + s] = u > v ? u - v : v * 0.25;
        o[i + 2 * s] = fmin(u, v) + fmax(u, 2.0);
        o[i + 3 * s] = sqrt(fabs(u)) + rsqrt(fabs(v) + 1.0) + floor(u * 3.0) + rint(v);
        o[i + 4 * s] = (double)f[i] * 1.5 + (double)n[i] + fma(u, v, -1.0);
        double acc = 0.0;
        for (int j = 0; j < k; j++)
            acc = acc * 0.5 + x[i + j];
        o[i + 5 * s] = acc;
        double d = u;
        if (n[i] & 1)
            d = d * 3.0 - v;
        else
            d = -d;
        o[i + 6 * s] = d;
        double z = u;
        for (int j = 0; j < (n[i] & 7); j++)
            z = z * 1.25 + 1.0;
        o[i + 7 * s] = z;
        if (n[i] & 2)
            o[i + 8 * s] = y[i] * 2.0 + x[i + 1];
        o[i + 9 * s] = clamp(u, -1.5, v);
        of[i] = (float)(u * v);
        of[i + s] = (float)(u >= 0.0 && v != 1.5 ? u : -v);
    }";
    let n = 45usize;
    let special = [
        f64::NAN,
        f64::INFINITY,
        -f64::INFINITY,
        -0.0,
        1e-310,
        1e300,
        -7e38,
        1.0 + f64::EPSILON,
    ];
    let xs: Vec<f64> = (0..n + 8)
        .map(|k| {
            if k % 7 == 3 {
                special[(k / 7) % special.len()]
            } else {
                (k as f64 - 20.0) * 0.37 + 0.1
            }
        })
        .collect();
    let ys: Vec<f64> = (0..n)
        .map(|k| {
            if k % 11 == 5 {
                1.5
            } else {
                (k as f64 * 0.61).sin() * 9.0
            }
        })
        .collect();
    let fs: Vec<u32> = floats(n, 29);
    let ns: Vec<u32> = (0..n as u32)
        .map(|k| k.wrapping_mul(0x9E37_79B9) >> 7)
        .collect();
    let bufs = vec![
        double_words(&xs),
        double_words(&ys),
        fs.clone(),
        ns.clone(),
        vec![0; 20 * n],
        vec![0; 2 * n],
    ];
    let k = 5;
    let Some(out) = differential(
        src,
        "dv",
        &bufs,
        &[0, 1, 2, 3, 4, 5],
        &[(6, n as u32), (7, k as u32)],
        [n as u64, 1],
        [n as u64, 1],
    ) else {
        return;
    };
    let same = |got: f64, want: f64, what: &str| {
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{what}: {got} (want {want})"
        );
    };
    // clang contracts `a * b + c` (a `mad`: fused where the processor has FMA).
    let mad = |a: f64, b: f64, c: f64| {
        if std::arch::is_x86_feature_detected!("fma") {
            a.mul_add(b, c)
        } else {
            a * b + c
        }
    };
    let fmin = |a: f64, b: f64| {
        if a.is_nan() {
            b
        } else if b.is_nan() {
            a
        } else {
            a.min(b)
        }
    };
    let fmax = |a: f64, b: f64| {
        if a.is_nan() {
            b
        } else if b.is_nan() {
            a
        } else {
            a.max(b)
        }
    };
    for i in 0..n {
        let (u, v) = (xs[i], ys[i]);
        let o = |j: usize| double_at(&out[4], i + j * n);
        same(
            o(1),
            if u > v { u - v } else { v * 0.25 },
            &format!("select {i}"),
        );
        same(o(2), fmin(u, v) + fmax(u, 2.0), &format!("fmin/fmax {i}"));
        let mut acc = 0.0;
        for j in 0..k {
            acc = mad(acc, 0.5, xs[i + j]);
        }
        same(o(5), acc, &format!("loop {i}"));
        let d = if ns[i] & 1 == 1 { mad(u, 3.0, -v) } else { -u };
        same(o(6), d, &format!("branch {i}"));
        let mut z = u;
        for _ in 0..(ns[i] & 7) {
            z = mad(z, 1.25, 1.0);
        }
        same(o(7), z, &format!("per-lane loop {i}"));
        let m = if ns[i] & 2 == 2 {
            mad(v, 2.0, xs[i + 1])
        } else {
            0.0
        };
        same(o(8), m, &format!("masked load and store {i}"));
        same(o(9), fmin(fmax(u, -1.5), v), &format!("clamp {i}"));
        let of = |j: usize| f32::from_bits(out[5][i + j * n]);
        let p = (u * v) as f32;
        assert!(
            of(0).to_bits() == p.to_bits() || (p.is_nan() && of(0).is_nan()),
            "to float {i}: {} (want {p})",
            of(0)
        );
        let q = (if u >= 0.0 && v != 1.5 { u } else { -v }) as f32;
        assert_eq!(of(1).to_bits(), q.to_bits(), "to float {i}");
    }
}

/// Division and remainder of `char`, `uchar`, `short` and `ushort` lanes, zero and `-1`
/// divisors and the most negative dividend among them, per lane through the scalar code's
/// never-trapping sequence.
#[test]
fn narrow_integer_division_per_lane() {
    // The remainders read their divisors from a second copy, so that LLVM does not pair
    // each division with its remainder (it would emit `freeze`, which llvm-spirv-15
    // cannot translate).
    let src = "kernel void nd(global const int *a, global const int *b, global const int *b2,
                              global int *o) {
        size_t i = get_global_id(0);
        char x = (char)a[i], y = (char)b[i], y2 = (char)b2[i];
        short p = (short)(a[i] * 211), q = (short)b[i], q2 = (short)b2[i];
        o[8 * i] = x / y;
        o[8 * i + 1] = x % y2;
        o[8 * i + 2] = (uchar)x / (uchar)y;
        o[8 * i + 3] = (uchar)x % (uchar)y2;
        o[8 * i + 4] = p / q;
        o[8 * i + 5] = p % q2;
        o[8 * i + 6] = (ushort)p / (ushort)q;
        o[8 * i + 7] = (ushort)p % (ushort)q2;
    }";
    let n = 41usize;
    let a: Vec<u32> = (0..n as i32)
        .map(|k| if k == 5 { -128 } else { (k * 37 % 255) - 127 } as u32)
        .collect();
    let b: Vec<u32> = (0..n as i32)
        .map(|k| match k % 7 {
            0 => -1,
            3 => 3,
            5 => -5,
            _ => k % 11 + 1,
        } as u32)
        .collect();
    let bufs = vec![a.clone(), b.clone(), b.clone(), vec![0; 8 * n]];
    let Some(out) = one_group_row(src, "nd", &bufs, &[0, 1, 2, 3], n) else {
        return;
    };
    for i in 0..n {
        let (x, y) = (a[i] as i32 as i8, b[i] as i32 as i8);
        let (p, q) = ((a[i] as i32).wrapping_mul(211) as i16, b[i] as i32 as i16);
        let want = [
            i32::from(x.wrapping_div(y)),
            i32::from(x.wrapping_rem(y)),
            i32::from((x as u8) / (y as u8)),
            i32::from((x as u8) % (y as u8)),
            i32::from(p.wrapping_div(q)),
            i32::from(p.wrapping_rem(q)),
            i32::from((p as u16) / (q as u16)),
            i32::from((p as u16) % (q as u16)),
        ];
        let got: Vec<i32> = out[3][8 * i..8 * i + 8].iter().map(|w| *w as i32).collect();
        assert_eq!(got, want, "x = {x}, y = {y}, p = {p}, q = {q}");
    }
}

/// Float atomics (`atomic_fetch_add`/`min`/`max` on `float`, `OpAtomicF*EXT`) per active
/// lane in lane order, under a divergent branch, through the scalar lowering's CAS loop.
#[test]
fn float_atomics_per_lane() {
    let src = "kernel void fa(global const float *in, global float *acc) {
        size_t i = get_global_id(0);
        float v = in[i];
        if (v > -5.0f)
            atomic_fetch_add_explicit((volatile global atomic_float *)&acc[0], v,
                                      memory_order_relaxed, memory_scope_device);
        atomic_fetch_max_explicit((volatile global atomic_float *)&acc[1], v,
                                  memory_order_relaxed, memory_scope_device);
        atomic_fetch_min_explicit((volatile global atomic_float *)&acc[2], v,
                                  memory_order_relaxed, memory_scope_device);
    }";
    let features = "-cl-ext=+cl_ext_float_atomics,+__opencl_c_ext_fp32_global_atomic_add,\
        +__opencl_c_ext_fp32_global_atomic_min_max";
    let Some(k) = harness::kernel_with(
        src,
        "fa",
        &["-Xclang", features],
        ",+SPV_EXT_shader_atomic_float_add,+SPV_EXT_shader_atomic_float_min_max",
    ) else {
        return;
    };
    assert_vectorised(&k);
    let n = 45usize;
    let input = floats(n, 31);
    let mut acc = vec![0, (-100f32).to_bits(), 100f32.to_bits()];
    let mut inp = input.clone();
    let mut args = Args::new(&k.info);
    args.buf(0, &mut inp).buf(1, &mut acc);
    run(&k, &args, 1, [n as u64, 1, 1], [15, 1, 1], [0; 3], 0);
    let x = f(&input);
    let mut sum = 0f32;
    let (mut hi, mut lo) = (-100f32, 100f32);
    for v in &x {
        if *v > -5.0 {
            sum += v;
        }
        hi = hi.max(*v);
        lo = lo.min(*v);
    }
    assert_eq!(f(&acc), vec![sum, hi, lo]);
}

/// Bit casts between a scalar and an OpenCL vector of the same size (`as_ushort4(ulong)`,
/// `as_ulong(ushort4)`, `as_float2(ulong)`, `as_uint(uchar4)`, `as_uchar4(float)`), per
/// lane, little-endian as memory lays them out.
#[test]
fn bit_casts_between_scalars_and_vectors() {
    let src = "kernel void bc(global const ulong *a, global const float *f, global ulong *o,
                              global uint *w) {
        size_t i = get_global_id(0);
        ulong x = a[i];
        ushort4 s = as_ushort4(x);
        o[3 * i] = (ulong)s.x | ((ulong)s.w << 48);
        ushort4 t = s + (ushort4)(1, 2, 3, (ushort)i);
        o[3 * i + 1] = as_ulong(t);
        float2 g = as_float2(x ^ 0x3f8000003f800000UL);
        o[3 * i + 2] = as_ulong(g * 2.0f);
        uchar4 c = as_uchar4(f[i]);
        w[2 * i] = as_uint(c.wzyx);
        w[2 * i + 1] = c.y;
    }";
    let n = 29usize;
    let a: Vec<u64> = (0..n as u64)
        .map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (k % 5))
        .collect();
    let words: Vec<u32> = a
        .iter()
        .flat_map(|x| [*x as u32, (*x >> 32) as u32])
        .collect();
    let bufs = vec![words, floats(n, 41), vec![0; 6 * n], vec![0; 2 * n]];
    let Some(out) = one_group_row(src, "bc", &bufs, &[0, 1, 2, 3], n) else {
        return;
    };
    let q = |k: usize| u64::from(out[2][2 * k]) | (u64::from(out[2][2 * k + 1]) << 32);
    let fl = f(&bufs[1]);
    for i in 0..n {
        let x = a[i];
        let s: Vec<u16> = (0..4).map(|c| (x >> (16 * c)) as u16).collect();
        assert_eq!(
            q(3 * i),
            u64::from(s[0]) | (u64::from(s[3]) << 48),
            "split of {x:#x}"
        );
        let add = [1u16, 2, 3, i as u16];
        let t: u64 = (0..4)
            .map(|c| u64::from(s[c].wrapping_add(add[c])) << (16 * c))
            .sum();
        assert_eq!(q(3 * i + 1), t, "join of {x:#x}");
        let y = x ^ 0x3f80_0000_3f80_0000;
        let g = [
            f32::from_bits(y as u32) * 2.0,
            f32::from_bits((y >> 32) as u32) * 2.0,
        ];
        assert_eq!(
            q(3 * i + 2),
            u64::from(g[0].to_bits()) | (u64::from(g[1].to_bits()) << 32)
        );
        let c = fl[i].to_bits().to_le_bytes();
        assert_eq!(out[3][2 * i], u32::from_le_bytes([c[3], c[2], c[1], c[0]]));
        assert_eq!(out[3][2 * i + 1], u32::from(c[1]));
    }
}

/// Math built-ins with an integer argument: `ldexp` and `rootn` call the scalar built-in per
/// lane with each lane's integer, `pown` its vector entry point with the integers' lanes
/// (`builtins/vector.rs`); `ldexp` against a host model, the others against the reference
/// shape (the same algorithm, so the same bits).
#[test]
fn math_with_integer_arguments_per_lane() {
    let src = "kernel void mi(global const float *x, global const int *k, global float *o) {
        size_t i = get_global_id(0);
        o[3 * i] = ldexp(x[i], k[i]);
        o[3 * i + 1] = pown(x[i], k[i] % 5);
        o[3 * i + 2] = rootn(fabs(x[i]) + 1.0f, k[i] % 4 + 1);
    }";
    let n = 33usize;
    let ks: Vec<u32> = (0..n as i32).map(|j| (j * 5 % 23 - 11) as u32).collect();
    let bufs = vec![floats(n, 51), ks.clone(), vec![0; 3 * n]];
    let Some(out) = one_group_row(src, "mi", &bufs, &[0, 1, 2], n) else {
        return;
    };
    let x = f(&bufs[0]);
    let o = f(&out[2]);
    for i in 0..n {
        let want = x[i] * 2f32.powi(ks[i] as i32);
        assert_eq!(o[3 * i], want, "ldexp({}, {})", x[i], ks[i] as i32);
    }
}

/// `fmin`/`fmax` of doubles per lane with the scalar code's NaN rule (a NaN operand yields
/// the other one).
#[test]
fn double_min_max_per_lane() {
    let src = "kernel void mm(global const double *a, global const double *b, global double *o) {
        size_t i = get_global_id(0);
        o[2 * i] = fmax(a[i], b[i]);
        o[2 * i + 1] = fmin(a[i], b[i]);
    }";
    let n = 23usize;
    let xs: Vec<f64> = (0..n)
        .map(|k| {
            if k % 7 == 3 {
                f64::NAN
            } else {
                k as f64 * 0.5 - 4.0
            }
        })
        .collect();
    let ys: Vec<f64> = (0..n)
        .map(|k| {
            if k % 5 == 1 {
                f64::NAN
            } else {
                3.0 - k as f64 * 0.25
            }
        })
        .collect();
    let bufs = vec![double_words(&xs), double_words(&ys), vec![0; 4 * n]];
    let Some(out) = one_group_row(src, "mm", &bufs, &[0, 1, 2], n) else {
        return;
    };
    let d = |k: usize| double_at(&out[2], k);
    for i in 0..n {
        let (x, y) = (xs[i], ys[i]);
        let (hi, lo) = (x.max(y), x.min(y));
        let same = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
        assert!(same(d(2 * i), hi), "fmax({x}, {y}) = {}", d(2 * i));
        assert!(same(d(2 * i + 1), lo), "fmin({x}, {y}) = {}", d(2 * i + 1));
    }
}

/// The attribute that requires sub-groups of `n` (none for 0: the default size).
fn reqd_sub_group_size(n: usize) -> String {
    match n {
        0 => String::new(),
        n => format!("__attribute__((intel_reqd_sub_group_size({n})))"),
    }
}

#[test]
fn sub_groups_as_vector_iterations() {
    // Kernels whose boundaries are all sub-group ones run one sub-group per vector
    // iteration where rows are whole sub-groups (local size x a multiple of the sub-group
    // size), and as regions otherwise: a sub-group barrier over `__local` memory,
    // reductions and scans (float addition in lane order), a broadcast, an index shuffle,
    // a ballot's bit count and a non-uniform reduction under a divergent branch, at
    // sub-group sizes 4 (the default), 8 and 16.
    for sgs in [0usize, 8, 16] {
        let attr = reqd_sub_group_size(sgs);
        let src = format!(
            "kernel {attr} void k(global const float *in, global uint *out) {{
            local float tmp[64];
            size_t g = get_global_id(0), l = get_local_id(0);
            float x = in[g];
            tmp[l] = x * 2.0f;
            sub_group_barrier(CLK_LOCAL_MEM_FENCE);
            uint j = get_sub_group_local_id(), s = get_sub_group_size();
            float mirror = tmp[l - j + (s - 1 - j)];
            float sum = sub_group_reduce_add(x);
            float pre = sub_group_scan_exclusive_add(x);
            int imax = sub_group_scan_inclusive_max((int)(x * 100.0f));
            float first = sub_group_broadcast(x, 0);
            float rot = sub_group_shuffle(x, (j + 1) % s);
            uint4 b = sub_group_ballot(x > 0.5f);
            uint bits = sub_group_ballot_bit_count(b);
            float odd = 0.0f;
            if (j & 1) odd = sub_group_non_uniform_reduce_add(x);
            global uint *o = out + g * 8;
            o[0] = as_uint(mirror);
            o[1] = as_uint(sum);
            o[2] = as_uint(pre);
            o[3] = (uint)imax;
            o[4] = as_uint(first);
            o[5] = as_uint(rot);
            o[6] = bits;
            o[7] = as_uint(odd);
        }}"
        );
        let n = 64usize;
        let input: Vec<u32> = (0..n)
            .map(|i| (((i * 37 + 11) % 97) as f32 / 97.0).to_bits())
            .collect();
        let bufs = vec![input.clone(), vec![0; n * 8]];
        let Some(k) = harness::kernel(&src, "k") else {
            return;
        };
        let want_size = if sgs == 0 { 4 } else { sgs };
        assert_eq!(k.handler.lanes as usize, want_size, "{}", k.handler.note);
        assert!(
            k.handler
                .note
                .contains("one sub-group per vector iteration"),
            "{}",
            k.handler.note
        );
        // Local sizes whose rows are whole sub-groups (vector iterations) and one whose
        // rows are not (the regions).
        for local in [want_size * 2, 32, want_size * 2 + 2] {
            let Some(out) = differential(
                &src,
                "k",
                &bufs,
                &[0, 1],
                &[],
                [n as u64, 1],
                [local as u64, 1],
            ) else {
                return;
            };
            let x = |i: usize| f32::from_bits(input[i]);
            for g0 in (0..n).step_by(local) {
                let m = local.min(n - g0);
                for s0 in (0..m).step_by(want_size) {
                    let size = want_size.min(m - s0);
                    let lanes: Vec<usize> = (g0 + s0..g0 + s0 + size).collect();
                    let mut acc = 0.0f32;
                    let mut pre = Vec::new();
                    for &i in &lanes {
                        pre.push(acc);
                        acc += x(i);
                    }
                    let mut odd = 0.0f32;
                    for (j, &i) in lanes.iter().enumerate() {
                        if j & 1 == 1 {
                            odd += x(i);
                        }
                    }
                    let mut imax = i32::MIN;
                    for (j, &i) in lanes.iter().enumerate() {
                        imax = imax.max((x(i) * 100.0) as i32);
                        let o = &out[1][i * 8..i * 8 + 8];
                        let want = [
                            (x(lanes[size - 1 - j]) * 2.0).to_bits(),
                            acc.to_bits(),
                            pre[j].to_bits(),
                            imax as u32,
                            x(lanes[0]).to_bits(),
                            x(lanes[(j + 1) % size]).to_bits(),
                            lanes.iter().filter(|&&i| x(i) > 0.5).count() as u32,
                            if j & 1 == 1 { odd.to_bits() } else { 0 },
                        ];
                        assert_eq!(
                            o, want,
                            "sub-group size {want_size}, local {local}, item {i}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn sub_group_operations_between_work_group_barriers() {
    // A work-group inclusive scan built from sub-group scans and shuffles between
    // work-group barriers (dpctl's cumulative sums have this shape): where rows are whole
    // sub-groups the kernel, split at its work-group barriers alone, runs as vector
    // iterations of one sub-group each; the regions otherwise.
    for sgs in [0usize, 8, 16] {
        let attr = reqd_sub_group_size(sgs);
        let src = format!(
            "kernel {attr} void k(global const int *in, global int *out) {{
            local int totals[64];
            size_t g = get_global_id(0);
            uint j = get_sub_group_local_id(), s = get_sub_group_size();
            uint sg = get_sub_group_id(), n = get_num_sub_groups();
            int x = in[g];
            int scan = sub_group_scan_inclusive_add(x);
            if (j == s - 1) totals[sg] = scan;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (sg == 0) {{
                int t = j < n ? totals[j] : 0;
                for (uint d = 1; d < s; d <<= 1) {{
                    int up = sub_group_shuffle_up(t, d);
                    if (j >= d) t += up;
                }}
                if (j < n) totals[j] = t;
            }}
            barrier(CLK_LOCAL_MEM_FENCE);
            int before = sg > 0 ? totals[sg - 1] : 0;
            out[g] = scan + before + sub_group_broadcast(x, 0) * 0;
        }}"
        );
        let n = 96usize;
        let input: Vec<u32> = (0..n).map(|i| ((i * 7 + 3) % 11) as u32).collect();
        let bufs = vec![input.clone(), vec![0; n]];
        let Some(k) = harness::kernel(&src, "k") else {
            return;
        };
        let want_size = if sgs == 0 { 4 } else { sgs };
        assert_eq!(k.handler.lanes as usize, want_size, "{}", k.handler.note);
        assert!(
            k.handler.note.contains("of one sub-group each"),
            "{}",
            k.handler.note
        );
        for local in [want_size * 4, 32, want_size * 2 + 2] {
            if local / want_size > want_size && local % want_size == 0 {
                continue; // more sub-groups than the first one's lanes can scan
            }
            let Some(out) = differential(
                &src,
                "k",
                &bufs,
                &[0, 1],
                &[],
                [n as u64, 1],
                [local as u64, 1],
            ) else {
                return;
            };
            for g0 in (0..n).step_by(local) {
                let m = local.min(n - g0);
                let subs = m.div_ceil(want_size);
                if subs > want_size {
                    continue;
                }
                let mut acc = 0i64;
                for i in 0..m {
                    acc += i64::from(input[g0 + i]);
                    assert_eq!(
                        out[1][g0 + i] as i64,
                        acc,
                        "sub-group size {want_size}, local {local}, item {}",
                        g0 + i
                    );
                }
            }
        }
    }
}

/// `char`/`uchar`/`short`/`ushort` lanes moved in bulk (`vector/small_ints.rs`):
/// consecutive loads and stores, wrapping arithmetic, shifts by uniform amounts (beyond
/// the width too: taken modulo it), conversions to and from `int` and `float` with and
/// without saturation and rounding modes, truncations, and a divergent store; byte for byte
/// with the scalar reference at every width, and with a host model of a few lanes.
#[test]
fn small_integers_move_as_vectors() {
    let src = "kernel void k(global const uchar *u8, global const char *s8,
                             global const ushort *u16, global const short *s16,
                             global uchar *o8, global short *o16, global int *oi,
                             global float *of, int sh) {
        size_t i = get_global_id(0);
        uchar a = u8[i];
        char b = s8[i];
        ushort c = u16[i];
        short d = s16[i];
        o8[4 * i] = convert_uchar_sat(a * 1.5f + b);
        o8[4 * i + 1] = (uchar)(a + b * 3) ^ (uchar)sh;
        o8[4 * i + 2] = (uchar)(b >> (sh & 15)) | (a << 1);
        o8[4 * i + 3] = (uchar)convert_char_sat_rte(d * 0.01f);
        o16[2 * i] = (short)(c * 3 - d) & (short)0x7ff7;
        o16[2 * i + 1] = (short)(d >> sh) + (short)(c >> sh);
        oi[2 * i] = (int)b + (int)d + (int)c * 2;
        oi[2 * i + 1] = convert_int(convert_ushort_rtp(c * 0.37f));
        of[i] = (float)b + (float)c - (float)d * 0.5f;
    }
    kernel void thr(global const uchar *x, global uchar *y, global short *s, int lim,
                    int flag) {
        size_t i = get_global_id(0);
        uchar v = x[i];
        y[i] = v > (uchar)lim ? (uchar)255 : v;
        short d = (short)v - (short)128;
        s[i] = d < (short)-5 ? d : (short)(flag ? 7 : -7);
        y[i + 1000] = max(v, (uchar)lim) - min(v, (uchar)(lim / 2));
        s[i + 1000] = clamp(d, (short)-100, (short)(lim - 150));
    }
    kernel void sat(global const uchar *x, global const short *d, global uchar *y,
                    global short *s, int k) {
        size_t i = get_global_id(0);
        uchar v = x[i], w = x[i + 1000];
        short a = d[i], b = d[i + 1000];
        y[6 * i] = add_sat(v, w);
        y[6 * i + 1] = sub_sat(v, (uchar)k);
        y[6 * i + 2] = abs_diff(v, w);
        y[6 * i + 3] = hadd(v, w);
        y[6 * i + 4] = rhadd(v, w);
        y[6 * i + 5] = abs((char)v);
        s[6 * i] = add_sat(a, b);
        s[6 * i + 1] = sub_sat(a, (short)k);
        s[6 * i + 2] = (short)abs_diff(a, b);
        s[6 * i + 3] = hadd(a, b);
        s[6 * i + 4] = rhadd(a, b);
        s[6 * i + 5] = (short)abs(a);
    }
    kernel void st(global const short *s16, global short *o16, global char *o8) {
        size_t i = get_global_id(0);
        short d = s16[i];
        o16[i] = d * 5;
        o8[i] = (char)(d >> 3);
        if (d & 1)
            o8[i] = (char)d;
    }";
    // Not a multiple of 16: the scalar loop finishes each row.
    let items = 1000usize;
    let words = xorshift;
    let bufs = vec![
        words(items / 4 + 1, 3),
        words(items / 4 + 1, 5),
        words(items / 2 + 1, 7),
        words(items / 2 + 1, 11),
        vec![0; items],
        vec![0; items],
        vec![0; 2 * items],
        vec![0; items],
    ];
    for sh in [1u32, 3, 9, 17] {
        let Some(out) = differential(
            src,
            "k",
            &bufs,
            &[0, 1, 2, 3, 4, 5, 6, 7],
            &[(8, sh)],
            [items as u64, 1],
            [100, 1],
        ) else {
            return;
        };
        let byte = |b: &Vec<u32>, i: usize| (b[i / 4] >> (8 * (i % 4))) as u8;
        let half = |b: &Vec<u32>, i: usize| (b[i / 2] >> (16 * (i % 2))) as u16;
        for i in 0..items {
            let a = byte(&bufs[0], i);
            let b = byte(&bufs[1], i) as i8;
            let c = half(&bufs[2], i);
            let d = half(&bufs[3], i) as i16;
            let sat = (f32::from(a) * 1.5 + f32::from(b)).clamp(0.0, 255.0) as u8;
            assert_eq!(byte(&out[4], 4 * i), sat, "convert_uchar_sat at {i}");
            let wrap = a.wrapping_add((b as u8).wrapping_mul(3)) ^ sh as u8;
            assert_eq!(byte(&out[4], 4 * i + 1), wrap, "wrapping uchar at {i}");
            let s16 = (c.wrapping_mul(3) as i16).wrapping_sub(d) & 0x7ff7;
            assert_eq!(half(&out[5], 2 * i) as i16, s16, "short arithmetic at {i}");
            let ints = i32::from(b) + i32::from(d) + i32::from(c) * 2;
            assert_eq!(out[6][2 * i] as i32, ints, "widened to int at {i}");
            let fl = f32::from(b) + f32::from(c) - f32::from(d) * 0.5;
            assert_eq!(f32::from_bits(out[7][i]), fl, "to float at {i}");
        }
    }
    // Saturating, absolute and halving built-ins (stored with a stride, lane by lane),
    // held to the scalar reference.
    let (x8, x16) = (words(items / 2, 19), words(items, 23));
    for k in [7u32, 0xffff_ff00] {
        let bufs = vec![
            x8.clone(),
            x16.clone(),
            vec![0; 6 * items / 4],
            vec![0; 3 * items],
        ];
        if differential(
            src,
            "sat",
            &bufs,
            &[0, 1, 2, 3],
            &[(4, k)],
            [items as u64, 1],
            [items as u64, 1],
        )
        .is_none()
        {
            return;
        }
    }
    // Comparisons (unsigned and signed) and selects of the lanes.
    let x = words(items / 4, 17);
    for (lim, flag) in [(100u32, 0u32), (200, 1)] {
        let bufs = vec![x.clone(), vec![0; items / 2], vec![0; items]];
        let Some(out) = differential(
            src,
            "thr",
            &bufs,
            &[0, 1, 2],
            &[(3, lim), (4, flag)],
            [items as u64, 1],
            [items as u64, 1],
        ) else {
            return;
        };
        for i in 0..items {
            let v = (x[i / 4] >> (8 * (i % 4))) as u8;
            let y = (out[1][i / 4] >> (8 * (i % 4))) as u8;
            assert_eq!(
                y,
                if u32::from(v) > lim { 255 } else { v },
                "threshold at {i}"
            );
            let d = i16::from(v) - 128;
            let want = if d < -5 {
                d
            } else if flag != 0 {
                7
            } else {
                -7
            };
            assert_eq!(
                (out[2][i / 2] >> (16 * (i % 2))) as i16,
                want,
                "select at {i}"
            );
            let j = i + items;
            let (lim8, half8) = (lim as u8, (lim / 2) as u8);
            let mm = v.max(lim8).wrapping_sub(v.min(half8));
            assert_eq!(
                (out[1][j / 4] >> (8 * (j % 4))) as u8,
                mm,
                "max - min at {i}"
            );
            let cl = d.clamp(-100, lim as i16 - 150);
            assert_eq!((out[2][j / 2] >> (16 * (j % 2))) as i16, cl, "clamp at {i}");
        }
    }
    let bufs = vec![
        words(items / 2 + 1, 13),
        vec![0; items / 2],
        vec![0; items / 4],
    ];
    let Some(out) = differential(
        src,
        "st",
        &bufs,
        &[0, 1, 2],
        &[],
        [items as u64, 1],
        [items as u64, 1],
    ) else {
        return;
    };
    for i in 0..items {
        let d = (bufs[0][i / 2] >> (16 * (i % 2))) as i16;
        assert_eq!((out[1][i / 2] >> (16 * (i % 2))) as i16, d.wrapping_mul(5));
        let want = if d & 1 != 0 { d as i8 } else { (d >> 3) as i8 };
        assert_eq!((out[2][i / 4] >> (8 * (i % 4))) as i8, want, "store at {i}");
    }
}

/// 16- and 8-bit arithmetic straight in SPIR-V (what LLVM leaves when it narrows `short`
/// and `char` operations): shifts by a uniform amount at and beyond the width (taken
/// modulo it, as the scalar shifts), arithmetic shifts of negative lanes, multiply and add
/// wrapping in 16 bits, a truncation to 8 bits and a widening back.
const NARROW_OPS: &str = "
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability Int16
               OpCapability Int8
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"k\" %gid
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %gid Constant
       %void = OpTypeVoid
      %ulong = OpTypeInt 64 0
     %ushort = OpTypeInt 16 0
      %uchar = OpTypeInt 8 0
    %v3ulong = OpTypeVector %ulong 3
     %ptr_in = OpTypePointer Input %v3ulong
      %ptr_s = OpTypePointer CrossWorkgroup %ushort
      %ptr_c = OpTypePointer CrossWorkgroup %uchar
      %c1001 = OpConstant %ushort 1001
    %ulong_1 = OpConstant %ulong 1
        %gid = OpVariable %ptr_in Input
         %fn = OpTypeFunction %void %ptr_s %ptr_s %ptr_c %ushort
          %k = OpFunction %void None %fn
          %x = OpFunctionParameter %ptr_s
          %o = OpFunctionParameter %ptr_s
          %c = OpFunctionParameter %ptr_c
         %sh = OpFunctionParameter %ushort
      %entry = OpLabel
         %g3 = OpLoad %v3ulong %gid
          %g = OpCompositeExtract %ulong %g3 0
         %px = OpInBoundsPtrAccessChain %ptr_s %x %g
          %v = OpLoad %ushort %px
         %sa = OpShiftRightArithmetic %ushort %v %sh
         %sl = OpShiftRightLogical %ushort %v %sh
         %ll = OpShiftLeftLogical %ushort %v %sh
         %m = OpIMul %ushort %v %c1001
         %s1 = OpIAdd %ushort %sa %sl
         %s2 = OpBitwiseXor %ushort %s1 %ll
         %s3 = OpISub %ushort %s2 %m
         %g2 = OpShiftLeftLogical %ulong %g %ulong_1
         %po = OpInBoundsPtrAccessChain %ptr_s %o %g2
               OpStore %po %s3
         %t8 = OpUConvert %uchar %sa
         %n8 = OpShiftRightArithmetic %uchar %t8 %sh
         %pc = OpInBoundsPtrAccessChain %ptr_c %c %g
               OpStore %pc %n8
         %w = OpSConvert %ushort %n8
         %g1 = OpIAdd %ulong %g2 %ulong_1
        %po1 = OpInBoundsPtrAccessChain %ptr_s %o %g1
               OpStore %po1 %w
               OpReturn
               OpFunctionEnd
";

/// `char`/`short` lanes under a mask (a kernel with a divergent branch and a bounds guard):
/// loads and stores that every lane reaches stay whole vectors, partial ones go lane by
/// lane; with the scalar reference at every width and with a host model.
#[test]
fn small_integers_under_masks() {
    let src = "kernel void g(global const uchar *x, global const short *s, global uchar *y,
                             global short *t, int n) {
        int i = get_global_id(0);
        if (i < n) {
            uchar v = x[i];
            short w = s[i];
            if (w & 1)
                v = (uchar)(v >> 1);
            y[i] = convert_uchar_sat(v * 1.5f) ^ (uchar)w;
            t[i] = (short)(w * 3) - (short)v;
            if (v > 100)
                t[i + n] = w >> 2;
        }
    }";
    let items = 203usize;
    let n = 190usize;
    let words = xorshift;
    let x = words(items / 4 + 1, 41);
    let sh = words(items / 2 + 1, 43);
    let bufs = vec![
        x.clone(),
        sh.clone(),
        vec![0; items / 4 + 1],
        vec![0; items + 1],
    ];
    let Some(out) = differential(
        src,
        "g",
        &bufs,
        &[0, 1, 2, 3],
        &[(4, n as u32)],
        [items as u64, 1],
        [items as u64, 1],
    ) else {
        return;
    };
    let byte = |b: &Vec<u32>, i: usize| (b[i / 4] >> (8 * (i % 4))) as u8;
    let half = |b: &Vec<u32>, i: usize| (b[i / 2] >> (16 * (i % 2))) as u16 as i16;
    for i in 0..items {
        if i >= n {
            assert_eq!(byte(&out[2], i), 0, "y[{i}] past n");
            continue;
        }
        let (mut v, w) = (byte(&x, i), half(&sh, i));
        if w & 1 != 0 {
            v >>= 1;
        }
        let sat = (f32::from(v) * 1.5).trunc().clamp(0.0, 255.0) as u8;
        assert_eq!(byte(&out[2], i), sat ^ (w as u8), "y[{i}]");
        let want = (w.wrapping_mul(3)).wrapping_sub(i16::from(v));
        assert_eq!(half(&out[3], i), want, "t[{i}]");
        let hi = if v > 100 { w >> 2 } else { 0 };
        assert_eq!(half(&out[3], i + n), hi, "t[{i} + n]");
    }
}

/// `float` to `uchar`/`ushort` with saturation, through the short x64 sequence: NaN,
/// infinities, huge and tiny values, negatives, halves and values just below and above
/// the maximum; with the scalar reference at every width and with a host model.
#[test]
fn float_to_unsigned_small_saturates() {
    let src = "kernel void k(global const float *x, global uchar *c, global ushort *s) {
        size_t i = get_global_id(0);
        float v = x[i];
        c[2 * i] = convert_uchar_sat(v);
        c[2 * i + 1] = convert_uchar_sat_rte(v);
        s[2 * i] = convert_ushort_sat(v);
        s[2 * i + 1] = convert_ushort_sat_rtp(v);
    }";
    let special = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -0.0,
        0.5,
        1.5,
        254.5,
        254.99,
        255.0,
        255.5,
        256.0,
        -0.5,
        -1.0,
        65534.5,
        65535.0,
        65535.5,
        65536.0,
        2_147_483_648.0,
        4_294_967_296.0,
        -2_147_483_648.0,
        -3e38,
        3e38,
        1e-40,
    ];
    let items = 100usize;
    let x: Vec<f32> = xorshift(items, 77)
        .iter()
        .enumerate()
        .map(|(k, w)| {
            if k < special.len() {
                special[k]
            } else {
                (*w % 140_000) as f32 / 2.0 - 1000.0
            }
        })
        .collect();
    let bufs = vec![
        x.iter().map(|v| v.to_bits()).collect(),
        vec![0; items / 2],
        vec![0; items],
    ];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1, 2],
        &[],
        [items as u64, 1],
        [items as u64, 1],
    ) else {
        return;
    };
    let byte = |i: usize| (out[1][i / 4] >> (8 * (i % 4))) as u8;
    let half = |i: usize| (out[2][i / 2] >> (16 * (i % 2))) as u16;
    let sat = |v: f32, max: f32| if v.is_nan() { 0.0 } else { v.clamp(0.0, max) };
    for (i, &v) in x.iter().enumerate() {
        assert_eq!(byte(2 * i), sat(v.trunc(), 255.0) as u8, "uchar {v}");
        assert_eq!(
            byte(2 * i + 1),
            sat(v.round_ties_even(), 255.0) as u8,
            "uchar rte {v}"
        );
        assert_eq!(half(2 * i), sat(v.trunc(), 65535.0) as u16, "ushort {v}");
        assert_eq!(
            half(2 * i + 1),
            sat(v.ceil(), 65535.0) as u16,
            "ushort rtp {v}"
        );
    }
}

/// `mix`, `step`, `smoothstep`, `sign`, `degrees`, `radians`, `fdim`, `maxmag` and `minmag`
/// on `float` and `double` lanes (they made a kernel scalar before): the scalar code's
/// definitions on whole vectors (`codegen/float_fns.rs`), with NaN, ±0 and ±inf among the
/// inputs; with the scalar reference at every width and a host model.
#[test]
fn float_functions_on_whole_vectors() {
    let src = "kernel void k(global const float *x, global const float *y, global float *o,
                             global double *d) {
        size_t i = get_global_id(0);
        float a = x[i], b = y[i];
        o[10 * i] = mix(a, b, 0.25f);
        o[10 * i + 1] = step(a, b);
        o[10 * i + 2] = smoothstep(-1.0f, 2.0f, a);
        o[10 * i + 3] = sign(a);
        o[10 * i + 4] = degrees(a);
        o[10 * i + 5] = radians(b);
        o[10 * i + 6] = fdim(a, b);
        o[10 * i + 7] = maxmag(a, b);
        o[10 * i + 8] = minmag(a, b);
        o[10 * i + 9] = mix(a, b, b);
        double p = (double)a, q = (double)b;
        d[4 * i] = mix(p, q, 0.75);
        d[4 * i + 1] = sign(p) + step(p, q);
        d[4 * i + 2] = maxmag(p, q) - fdim(q, p);
        d[4 * i + 3] = smoothstep(0.0, 4.0, q) + degrees(p);
    }";
    let special = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.0,
        -2.0,
    ];
    let items = 83usize;
    let x: Vec<f32> = xorshift(items, 5)
        .iter()
        .enumerate()
        .map(|(k, w)| {
            if k < special.len() * special.len() {
                special[k % special.len()]
            } else {
                (*w % 2000) as f32 / 250.0 - 4.0
            }
        })
        .collect();
    let y: Vec<f32> = xorshift(items, 9)
        .iter()
        .enumerate()
        .map(|(k, w)| {
            if k < special.len() * special.len() {
                special[k / special.len()]
            } else {
                (*w % 2000) as f32 / 250.0 - 4.0
            }
        })
        .collect();
    let bits = |v: &[f32]| -> Vec<u32> { v.iter().map(|f| f.to_bits()).collect() };
    let bufs = vec![bits(&x), bits(&y), vec![0; 10 * items], vec![0; 8 * items]];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1, 2, 3],
        &[],
        [items as u64, 1],
        [items as u64, 1],
    ) else {
        return;
    };
    let same = |got: f32, want: f32, what: &str| {
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{what}: {got} (want {want})"
        );
    };
    for i in 0..items {
        let (a, b) = (x[i], y[i]);
        let o = |j: usize| f32::from_bits(out[2][10 * i + j]);
        same(o(0), a + (b - a) * 0.25, &format!("mix({a}, {b})"));
        same(
            o(1),
            if b < a { 0.0 } else { 1.0 },
            &format!("step({a}, {b})"),
        );
        let sign = if a > 0.0 {
            1.0
        } else if a < 0.0 {
            -1.0
        } else if a.is_nan() {
            0.0
        } else {
            a
        };
        same(o(3), sign, &format!("sign({a})"));
        let fdim = if a > b || a.is_nan() || b.is_nan() {
            a - b
        } else {
            0.0
        };
        same(o(6), fdim, &format!("fdim({a}, {b})"));
    }
}

/// `vloadn`/`vstoren` (they made a kernel scalar before): `vload4(i, x)` as four loads and
/// a transpose, `vload3`/`vstore3` packed, a `vload2` of doubles, `vload4(0, x + 4 * i)`,
/// and a store under a divergent branch; with the scalar reference at every width and a
/// host model.
#[test]
fn vload_and_vstore_across_lanes() {
    let src = "kernel void k(global const float *x, global float *y, global const double *d,
                             global double *e) {
        int i = get_global_id(0);
        float4 a = vload4(i, x);
        float3 b = vload3(i, x + 1);
        float4 c = vload4(0, x + 4 * i + 2);
        vstore4(a * 2.0f + c, i, y);
        vstore3(b.zyx - 1.0f, i, y + 4 * 60);
        if (a.x > 0.0f)
            vstore2((float2)(a.w, b.y), i, y + 8 * 60);
        double2 p = vload2(i, d);
        vstore2(p * 3.0 + (double2)(a.y, c.z), i, e);
    }";
    let items = 57usize;
    let xs: Vec<u32> = floats(4 * items + 8, 31);
    let ds: Vec<f64> = (0..2 * items).map(|k| (k as f64).sqrt() - 4.0).collect();
    let bufs = vec![
        xs.clone(),
        vec![0; 10 * 60],
        double_words(&ds),
        vec![0; 4 * items],
    ];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1, 2, 3],
        &[],
        [items as u64, 1],
        [items as u64, 1],
    ) else {
        return;
    };
    let x = f(&xs);
    let y = f(&out[1]);
    for i in 0..items {
        let a = &x[4 * i..4 * i + 4];
        let b = &x[3 * i + 1..3 * i + 4];
        let c = &x[4 * i + 2..4 * i + 6];
        for k in 0..4 {
            assert_eq!(y[4 * i + k], mad(a[k], 2.0, c[k]), "vstore4 {i}.{k}");
        }
        for k in 0..3 {
            assert_eq!(y[4 * 60 + 3 * i + k], b[2 - k] - 1.0, "vstore3 {i}.{k}");
        }
        let want = if a[0] > 0.0 { [a[3], b[1]] } else { [0.0, 0.0] };
        assert_eq!(y[8 * 60 + 2 * i..8 * 60 + 2 * i + 2], want, "vstore2 {i}");
        let p = [ds[2 * i], ds[2 * i + 1]];
        let q = [f64::from(a[1]), f64::from(c[2])];
        for k in 0..2 {
            let want = if std::arch::is_x86_feature_detected!("fma") {
                p[k].mul_add(3.0, q[k])
            } else {
                p[k] * 3.0 + q[k]
            };
            assert_eq!(double_at(&out[3], 2 * i + k), want, "double {i}.{k}");
        }
    }
}

/// `mul24`, `mad24` and `bitselect` (they made a kernel scalar before) on whole vectors:
/// the scalar code's 32-bit multiply and add, and `(x & ~c) | (y & c)` on the bits of
/// floats and ints; with the scalar reference at every width and a host model.
#[test]
fn mul24_mad24_and_bitselect_on_whole_vectors() {
    let src = "kernel void k(global const int *x, global const int *y, global int *o,
                             global float *f, int u) {
        size_t i = get_global_id(0);
        int a = x[i], b = y[i];
        o[4 * i] = mul24(a, b);
        o[4 * i + 1] = (int)mad24((uint)a, (uint)b, (uint)u);
        o[4 * i + 2] = bitselect(a, b, u);
        o[4 * i + 3] = bitselect(u, a, b);
        f[i] = bitselect(as_float(a), as_float(b), as_float(u ^ b));
    }";
    let items = 61usize;
    let x: Vec<u32> = xorshift(items, 3).iter().map(|w| w & 0x00ff_ffff).collect();
    let y: Vec<u32> = xorshift(items, 7).iter().map(|w| w >> 9).collect();
    let u = 0x5a5a_0ff0u32;
    let bufs = vec![x.clone(), y.clone(), vec![0; 4 * items], vec![0; items]];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1, 2, 3],
        &[(4, u)],
        [items as u64, 1],
        [items as u64, 1],
    ) else {
        return;
    };
    let sel = |x: u32, y: u32, c: u32| (x & !c) | (y & c);
    for i in 0..items {
        let (a, b) = (x[i], y[i]);
        assert_eq!(out[2][4 * i], a.wrapping_mul(b), "mul24 {i}");
        assert_eq!(
            out[2][4 * i + 1],
            a.wrapping_mul(b).wrapping_add(u),
            "mad24 {i}"
        );
        assert_eq!(out[2][4 * i + 2], sel(a, b, u), "bitselect {i}");
        assert_eq!(out[2][4 * i + 3], sel(u, a, b), "bitselect {i}");
        assert_eq!(out[3][i], sel(a, b, u ^ b), "float bitselect {i}");
    }
}

#[test]
fn narrow_integer_arithmetic_in_spirv() {
    let Some(spv) = spvasm(NARROW_OPS) else {
        return;
    };
    let m = TestModule::new(&spv);
    let k = m.kernel("k");
    assert_vectorised(&k);
    let items = 100usize;
    let mut s = 0x1234_5678u32;
    let x: Vec<u16> = (0..items)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s as u16
        })
        .collect();
    for sh in [0u16, 3, 7, 8, 15, 16, 17, 21] {
        let mut xs = x.clone();
        let mut o = vec![0u16; 2 * items];
        let mut c = vec![0u8; items];
        let mut args = Args::new(&k.info);
        args.buf(0, &mut xs)
            .buf(1, &mut o)
            .buf(2, &mut c)
            .val(3, sh);
        run(&k, &args, 1, [items as u64, 1, 1], [50, 1, 1], [0; 3], 0);
        for (i, &v) in x.iter().enumerate() {
            let s16 = u32::from(sh % 16);
            let sa = ((v as i16) >> s16) as u16;
            let want = sa
                .wrapping_add(v >> s16)
                .bitxor(v << s16)
                .wrapping_sub(v.wrapping_mul(1001));
            assert_eq!(o[2 * i], want, "16-bit lanes at {i}, shift {sh}");
            let n8 = (sa as u8 as i8) >> (sh % 8);
            assert_eq!(c[i], n8 as u8, "8-bit lanes at {i}, shift {sh}");
            assert_eq!(o[2 * i + 1], n8 as i16 as u16, "widened at {i}, shift {sh}");
        }
    }
}

/// `uchar4` and `short2` lanes (one 32-bit word each) loaded and stored as `i32x4`
/// words, their components shifted out and back in (`vector/small_ints.rs`): a pixel
/// kernel, byte for byte with the scalar reference at every width and with a host model.
#[test]
fn packed_small_vectors_move_as_words() {
    let src = "kernel void px(global const uchar4 *p, global uchar4 *q,
                              global const short2 *r, global short2 *s) {
        size_t i = get_global_id(0);
        uchar4 c = p[i];
        float4 f = convert_float4(c);
        q[i] = convert_uchar4_sat(f * 1.25f) ^ (uchar4)(c.w, c.z, c.y, c.x);
        short2 v = r[i];
        s[i] = v + (short2)(c.x, -c.y);
    }
    kernel void words(global const uchar4 *p, global uint *o, global uchar4 *q) {
        size_t i = get_global_id(0);
        uchar4 c = p[i];
        o[i] = as_uint(c ^ (uchar4)(1, 2, 3, 4)) + 1u;
        uchar4 e = as_uchar4((uint)i * 0x01020304u);
        q[i] = e + c.wzyx;
    }";
    let items = 300usize;
    let px: Vec<u32> = (0..items as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0x5a5a_0f0f)
        .collect();
    let bufs = vec![px.clone(), vec![0; items], px.clone(), vec![0; items]];
    let Some(out) = differential(
        src,
        "px",
        &bufs,
        &[0, 1, 2, 3],
        &[],
        [items as u64, 1],
        [60, 1],
    ) else {
        return;
    };
    for (i, &w) in px.iter().enumerate() {
        let c = w.to_le_bytes();
        let q: Vec<u8> = (0..4)
            .map(|k| (f32::from(c[k]) * 1.25).min(255.0) as u8 ^ c[3 - k])
            .collect();
        assert_eq!(out[1][i].to_le_bytes().to_vec(), q, "uchar4 at {i}");
        let v0 = (w as u16).wrapping_add(u16::from(c[0]));
        let v1 = ((w >> 16) as u16).wrapping_sub(u16::from(c[1]));
        assert_eq!(
            out[3][i],
            u32::from(v0) | (u32::from(v1) << 16),
            "short2 at {i}"
        );
    }
    // Bit casts between `uint` and `uchar4`, on whole words.
    let bufs = vec![px.clone(), vec![0; items], vec![0; items]];
    let Some(out) = differential(
        src,
        "words",
        &bufs,
        &[0, 1, 2],
        &[],
        [items as u64, 1],
        [60, 1],
    ) else {
        return;
    };
    for (i, &w) in px.iter().enumerate() {
        assert_eq!(
            out[1][i],
            (w ^ 0x0403_0201).wrapping_add(1),
            "as_uint at {i}"
        );
        let e = (i as u32).wrapping_mul(0x0102_0304).to_le_bytes();
        let c = w.to_le_bytes();
        let q: Vec<u8> = (0..4).map(|k| e[k].wrapping_add(c[3 - k])).collect();
        assert_eq!(out[2][i].to_le_bytes().to_vec(), q, "as_uchar4 at {i}");
    }
}

/// Division and remainder by a uniform divisor on whole vectors (`vector/divide.rs`):
/// `int`, `uint`, `short`, `ushort`, `char` and `uchar` lanes, positive and negative
/// dividends and divisors, `INT_MIN` among them, and the divisors 0 and -1 whose results
/// the scalar code defines (never trapping); byte for byte with the scalar reference at
/// every width, and with a host model for the others.
#[test]
fn division_by_a_uniform_divisor() {
    // The remainders take other dividends than the quotients: LLVM 15 expands a
    // remainder beside its division with a `freeze`, which llvm-spirv 15 rejects.
    let src = "kernel void k(global const int *x, global int *q, global short *s,
                             global uchar *c, int d) {
        size_t i = get_global_id(0);
        int v = x[i], r = v ^ 0x5a5a5a5a;
        q[4 * i] = v / d;
        q[4 * i + 1] = r % d;
        q[4 * i + 2] = (int)((uint)v / (uint)d);
        q[4 * i + 3] = (int)((uint)r % (uint)d);
        s[4 * i] = (short)v / (short)d;
        s[4 * i + 1] = (short)r % (short)d;
        s[4 * i + 2] = (short)((ushort)v / (ushort)d);
        s[4 * i + 3] = (short)((ushort)r % (ushort)d);
        c[4 * i] = (uchar)((char)v / (char)d);
        c[4 * i + 1] = (uchar)((char)r % (char)d);
        c[4 * i + 2] = (uchar)v / (uchar)d;
        c[4 * i + 3] = (uchar)r % (uchar)d;
    }";
    let items = 500usize;
    let mut x = xorshift(items, 0x2468_ace1);
    x[0] = 0x8000_0000;
    x[1] = 0x7fff_ffff;
    x[2] = 0xffff_ff80;
    x[3] = 0x5a5a_5a5a ^ 0x8000_0000;
    for d in [9i32, -7, 1, 3, 255, -32768, 40000, 0, -1] {
        let bufs = vec![
            x.clone(),
            vec![0; 4 * items],
            vec![0; 2 * items],
            vec![0; items],
        ];
        let Some(out) = differential(
            src,
            "k",
            &bufs,
            &[0, 1, 2, 3],
            &[(4, d as u32)],
            [items as u64, 1],
            [100, 1],
        ) else {
            return;
        };
        if d == 0 || d == -1 {
            continue;
        }
        let half = |b: &Vec<u32>, i: usize| (b[i / 2] >> (16 * (i % 2))) as u16;
        let byte = |b: &Vec<u32>, i: usize| (b[i / 4] >> (8 * (i % 4))) as u8;
        for (i, &w) in x.iter().enumerate() {
            let (v, r) = (w as i32, (w ^ 0x5a5a_5a5a) as i32);
            assert_eq!(out[1][4 * i] as i32, v.wrapping_div(d), "{v} / {d}");
            assert_eq!(out[1][4 * i + 1] as i32, r.wrapping_rem(d), "{r} % {d}");
            assert_eq!(out[1][4 * i + 2], w / d as u32, "{w} / {}", d as u32);
            assert_eq!(
                out[1][4 * i + 3],
                (r as u32) % d as u32,
                "{r} % {}",
                d as u32
            );
            let hd = d as i16;
            if hd != 0 && hd != -1 {
                let (h, hr) = (v as i16, r as i16);
                assert_eq!(
                    half(&out[2], 4 * i) as i16,
                    h.wrapping_div(hd),
                    "{h} / {hd}"
                );
                assert_eq!(half(&out[2], 4 * i + 1) as i16, hr.wrapping_rem(hd));
            }
            let ud = d as u16;
            if let (Some(q), Some(m)) = ((v as u16).checked_div(ud), (r as u16).checked_rem(ud)) {
                assert_eq!(half(&out[2], 4 * i + 2), q, "ushort {v} / {ud}");
                assert_eq!(half(&out[2], 4 * i + 3), m, "ushort {r} % {ud}");
            }
            let bd = d as i8;
            if bd != 0 && bd != -1 {
                let (b, br) = (v as i8, r as i8);
                assert_eq!(byte(&out[3], 4 * i) as i8, b.wrapping_div(bd), "{b} / {bd}");
                assert_eq!(byte(&out[3], 4 * i + 1) as i8, br.wrapping_rem(bd));
            }
            let ubd = d as u8;
            if let (Some(q), Some(m)) = ((v as u8).checked_div(ubd), (r as u8).checked_rem(ubd)) {
                assert_eq!(byte(&out[3], 4 * i + 2), q, "uchar {v} / {ubd}");
                assert_eq!(byte(&out[3], 4 * i + 3), m, "uchar {r} % {ubd}");
            }
        }
    }
}

/// Division and remainder by divisors that differ between the lanes, on whole vectors:
/// `int`, `uint`, `short` and `uchar` lanes, with 0 and -1 among the divisors (the scalar
/// code's results, lane by lane); byte for byte with the scalar reference at every width,
/// and with a host model for the defined lanes.
/// Division and remainder by constants (`x / 9`, `i % 3`): a multiplication by the
/// divisor's magic reciprocal and shifts, signed and unsigned, powers of two among them,
/// for `int`, `uint`, `short` and `uchar` lanes; with the scalar reference at every width
/// and with the host's division.
#[test]
fn division_by_constants() {
    let ints = [
        9i32,
        7,
        3,
        641,
        1000,
        1,
        2,
        16,
        -3,
        -5,
        -16,
        -1000,
        i32::MIN,
        i32::MAX,
    ];
    let uints = [
        9u32,
        7,
        641,
        1000,
        1,
        16,
        0x8000_0000,
        0xffff_fffe,
        6_700_417,
        125,
    ];
    let mut body = String::new();
    for (k, d) in ints.iter().enumerate() {
        // `(int)0x80000000`: INT_MIN without the unary minus of a too large literal.
        let c = if *d == i32::MIN {
            "(int)0x80000000".to_string()
        } else {
            format!("({d})")
        };
        body += &format!(
            "q[{n} * i + {a}] = v / {c}; q[{n} * i + {b}] = r % {c};\n",
            n = 2 * (ints.len() + uints.len()),
            a = 2 * k,
            b = 2 * k + 1
        );
    }
    // LLVM 15 turns a remainder by a divisor above 2^31 into a select on a `freeze`,
    // which llvm-spirv 15 rejects: those take a remainder by 5 instead.
    let urem = |d: u32| if d > 0x8000_0000 { 5 } else { d };
    for (k, d) in uints.iter().enumerate() {
        let j = ints.len() + k;
        body +=
            &format!(
            "q[{n} * i + {a}] = (int)((uint)v / {d}u); q[{n} * i + {b}] = (int)((uint)r % {e}u);\n",
            n = 2 * (ints.len() + uints.len()), a = 2 * j, b = 2 * j + 1, e = urem(*d));
    }
    let src = format!(
        "kernel void k(global const int *x, global const int *y, global int *q, global short *s,
                       global uchar *c) {{
        size_t i = get_global_id(0);
        int v = x[i], r = y[i];
        {body}
        s[4 * i] = (short)v / (short)7;
        s[4 * i + 1] = (short)r % (short)-300;
        s[4 * i + 2] = (short)((ushort)v / (ushort)1000);
        s[4 * i + 3] = (short)((ushort)r % (ushort)9);
        c[2 * i] = (uchar)v / (uchar)3;
        c[2 * i + 1] = (uchar)r % (uchar)10;
    }}"
    );
    let items = 300usize;
    let mut x: Vec<u32> = xorshift(items, 0x1357_9bdf)
        .into_iter()
        .map(|w| w >> (w % 29))
        .collect();
    for (k, e) in [
        0x8000_0000u32,
        0x7fff_ffff,
        0xffff_ffff,
        0,
        1,
        0xffff_ff80,
        0x8000_0001,
    ]
    .iter()
    .enumerate()
    {
        x[2 * k] = *e;
        x[2 * k + 1] = *e ^ 0x5a5a_5a5a;
    }
    let n = 2 * (ints.len() + uints.len());
    // The remainders' dividends from another buffer: LLVM 15 relates `v / 2` and
    // `(v ^ k) % 2` through a `freeze`, which llvm-spirv 15 rejects.
    let y: Vec<u32> = x.iter().map(|w| w ^ 0x5a5a_5a5a).collect();
    let bufs = vec![
        x.clone(),
        y,
        vec![0; n * items],
        vec![0; 2 * items],
        vec![0; items / 2],
    ];
    let Some(out) = differential(
        &src,
        "k",
        &bufs,
        &[0, 1, 2, 3, 4],
        &[],
        [items as u64, 1],
        [100, 1],
    ) else {
        return;
    };
    let half = |i: usize| (out[3][i / 2] >> (16 * (i % 2))) as u16;
    let byte = |i: usize| (out[4][i / 4] >> (8 * (i % 4))) as u8;
    for (i, &w) in x.iter().enumerate() {
        let (v, r) = (w as i32, (w ^ 0x5a5a_5a5a) as i32);
        for (k, &d) in ints.iter().enumerate() {
            assert_eq!(out[2][n * i + 2 * k] as i32, v.wrapping_div(d), "{v} / {d}");
            assert_eq!(
                out[2][n * i + 2 * k + 1] as i32,
                r.wrapping_rem(d),
                "{r} % {d}"
            );
        }
        for (k, &d) in uints.iter().enumerate() {
            let j = ints.len() + k;
            assert_eq!(out[2][n * i + 2 * j], w / d, "{w} / {d}");
            let e = urem(d);
            assert_eq!(out[2][n * i + 2 * j + 1], r as u32 % e, "{r} % {e}");
        }
        assert_eq!(half(4 * i) as i16, (v as i16) / 7, "short {v} / 7");
        assert_eq!(
            half(4 * i + 1) as i16,
            (r as i16) % -300,
            "short {r} % -300"
        );
        assert_eq!(half(4 * i + 2), (v as u16) / 1000, "ushort {v} / 1000");
        assert_eq!(half(4 * i + 3), (r as u16) % 9, "ushort {r} % 9");
        assert_eq!(byte(2 * i), (v as u8) / 3, "uchar {v} / 3");
        assert_eq!(byte(2 * i + 1), (r as u8) % 10, "uchar {r} % 10");
    }
}

#[test]
fn division_by_varying_divisors() {
    let src = "kernel void k(global const int *x, global const int *y, global int *q,
                             global short *s, global uchar *c) {
        size_t i = get_global_id(0);
        int v = x[i], d = y[i], r = v ^ 0x5a5a5a5a;
        q[4 * i] = v / d;
        q[4 * i + 1] = r % d;
        q[4 * i + 2] = (int)((uint)v / (uint)d);
        q[4 * i + 3] = (int)((uint)r % (uint)d);
        s[2 * i] = (short)v / (short)d;
        s[2 * i + 1] = (short)r % (short)d;
        c[2 * i] = (uchar)v / (uchar)d;
        c[2 * i + 1] = (uchar)r % (uchar)d;
    }";
    let items = 600usize;
    let mut s = 0x1357_9bdfu32;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s
    };
    let x: Vec<u32> = (0..items).map(|_| next()).collect();
    let y: Vec<u32> = (0..items)
        .map(|i| match i % 7 {
            0 => 0,
            1 => u32::MAX,
            2 => next() % 200 + 1,
            3 => (next() % 200 + 1).wrapping_neg(),
            _ => next() >> (next() % 32),
        })
        .collect();
    let bufs = vec![
        x.clone(),
        y.clone(),
        vec![0; 4 * items],
        vec![0; items],
        vec![0; items / 2],
    ];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1, 2, 3, 4],
        &[],
        [items as u64, 1],
        [100, 1],
    ) else {
        return;
    };
    let half = |b: &Vec<u32>, i: usize| (b[i / 2] >> (16 * (i % 2))) as u16;
    let byte = |b: &Vec<u32>, i: usize| (b[i / 4] >> (8 * (i % 4))) as u8;
    for i in 0..items {
        let (v, d, r) = (x[i] as i32, y[i] as i32, (x[i] ^ 0x5a5a_5a5a) as i32);
        if d != 0 && d != -1 {
            assert_eq!(out[2][4 * i] as i32, v / d, "{v} / {d}");
            assert_eq!(out[2][4 * i + 1] as i32, r % d, "{r} % {d}");
        }
        if let (Some(q), Some(m)) = (x[i].checked_div(y[i]), (r as u32).checked_rem(y[i])) {
            assert_eq!(out[2][4 * i + 2], q, "{} / {}", x[i], y[i]);
            assert_eq!(out[2][4 * i + 3], m, "{r} % {}", y[i]);
        }
        let (hv, hd, hr) = (v as i16, d as i16, r as i16);
        if hd != 0 && hd != -1 {
            assert_eq!(
                half(&out[3], 2 * i) as i16,
                hv.wrapping_div(hd),
                "{hv} / {hd}"
            );
            assert_eq!(
                half(&out[3], 2 * i + 1) as i16,
                hr.wrapping_rem(hd),
                "{hr} % {hd}"
            );
        }
        let (bv, bd, br) = (v as u8, d as u8, r as u8);
        if let (Some(q), Some(m)) = (bv.checked_div(bd), br.checked_rem(bd)) {
            assert_eq!(byte(&out[4], 2 * i), q, "{bv} / {bd}");
            assert_eq!(byte(&out[4], 2 * i + 1), m, "{br} % {bd}");
        }
    }
}

/// The integer functions of `codegen/int_fns.rs` (`abs_diff`, `add_sat`, `sub_sat`,
/// `hadd`, `rhadd`, `mul_hi`, `mad_hi`, `mad_sat`, `rotate`, `upsample`) no longer make
/// a kernel scalar: `int` lanes in `i32x4` parts (rotation by a uniform amount too), the
/// others and `short`/`uchar`/`long` lanes by the scalar code per lane; at the limits of
/// each type, with the scalar reference at every width and a host model.
#[test]
fn integer_functions_on_lanes() {
    let src = "kernel void k(global const int *x, global const int *y, global int *o, int u) {
        size_t i = get_global_id(0);
        int a = x[i], b = y[i];
        uint ua = (uint)a, ub = (uint)b;
        global int *r = o + 24 * i;
        r[0] = abs_diff(a, b);
        r[1] = abs_diff(ua, ub);
        r[2] = add_sat(a, b);
        r[3] = add_sat(ua, ub);
        r[4] = sub_sat(a, b);
        r[5] = sub_sat(ua, ub);
        r[6] = hadd(a, b);
        r[7] = rhadd(ua, ub);
        r[8] = mul_hi(a, b);
        r[9] = mul_hi(ua, ub);
        r[10] = mad_hi(a, b, u);
        r[11] = mad_sat(a, b, u);
        r[12] = mad_sat(ua, ub, (uint)u);
        r[13] = rotate(a, b);
        r[14] = rotate(ua, (uint)u);
        r[15] = upsample((short)a, (ushort)b);
        r[16] = add_sat((short)a, (short)b);
        r[17] = sub_sat((uchar)a, (uchar)b);
        r[18] = mul_hi((short)a, (short)b);
        r[19] = rotate((uchar)a, (uchar)b);
        long la = (long)a * 65537, lb = (long)b << 31;
        long s = add_sat(la, lb) ^ mul_hi(la, lb) ^ mad_sat(la, lb, (long)u);
        r[20] = (int)s;
        r[21] = (int)(s >> 32);
        r[22] = rhadd(a, b);
        r[23] = hadd(ua, ub);
    }";
    let edges = [
        0u32,
        1,
        u32::MAX,
        0x8000_0000,
        0x7fff_ffff,
        0x8000_0001,
        0x7fff,
        0x8000,
        0xffff,
        0x80,
        0xff,
        33,
    ];
    let items = 77usize;
    let mut x = xorshift(items, 5);
    let mut y = xorshift(items, 11);
    for (k, e) in edges.iter().enumerate() {
        for (j, f) in edges.iter().enumerate() {
            let i = k * edges.len() + j;
            if i < items {
                x[i] = *e;
                y[i] = *f;
            }
        }
    }
    for u in [7u32, 0x8000_0000, 0xffff_fffd] {
        let bufs = vec![x.clone(), y.clone(), vec![0; 24 * items]];
        let Some(out) = differential(
            src,
            "k",
            &bufs,
            &[0, 1, 2],
            &[(3, u)],
            [items as u64, 1],
            [items as u64, 1],
        ) else {
            return;
        };
        let sat = |v: i64, lo: i64, hi: i64| v.clamp(lo, hi);
        for i in 0..items {
            let (ua, ub) = (x[i], y[i]);
            let (a, b) = (ua as i32, ub as i32);
            let (la, lb) = (i64::from(a), i64::from(b));
            let want: [u32; 24] = {
                let (sa, sb) = (a as i16, b as i16);
                let (ca, cb) = (ua as u8, ub as u8);
                let l = la.wrapping_mul(65537);
                let m = lb << 31;
                let (il, im) = (i128::from(l), i128::from(m));
                let mad = (il * im + i128::from(u as i32)).clamp(i64::MIN.into(), i64::MAX.into());
                let s = l.saturating_add(m) ^ ((il * im) >> 64) as i64 ^ mad as i64;
                [
                    (la - lb).unsigned_abs() as u32,
                    ua.abs_diff(ub),
                    a.saturating_add(b) as u32,
                    ua.saturating_add(ub),
                    a.saturating_sub(b) as u32,
                    ua.saturating_sub(ub),
                    ((la + lb) >> 1) as u32,
                    ((u64::from(ua) + u64::from(ub) + 1) >> 1) as u32,
                    ((la * lb) >> 32) as u32,
                    ((u64::from(ua) * u64::from(ub)) >> 32) as u32,
                    (((la * lb) >> 32) as i32).wrapping_add(u as i32) as u32,
                    sat(
                        la * lb + i64::from(u as i32),
                        i32::MIN.into(),
                        i32::MAX.into(),
                    ) as u32,
                    (u64::from(ua) * u64::from(ub) + u64::from(u)).min(u32::MAX.into()) as u32,
                    ua.rotate_left(ub % 32),
                    ua.rotate_left(u % 32),
                    ((i32::from(sa) << 16) as u32) | (ub & 0xffff),
                    i32::from(sa.saturating_add(sb)) as u32,
                    u32::from(ca.saturating_sub(cb)),
                    i32::from(((i32::from(sa) * i32::from(sb)) >> 16) as i16) as u32,
                    u32::from(ca.rotate_left(u32::from(cb % 8))),
                    s as u32,
                    (s >> 32) as u32,
                    ((la + lb + 1) >> 1) as u32,
                    ((u64::from(ua) + u64::from(ub)) >> 1) as u32,
                ]
            };
            for (k, w) in want.iter().enumerate() {
                assert_eq!(
                    out[2][24 * i + k],
                    *w,
                    "item {i} ({a}, {b}, u {u}) function {k}"
                );
            }
        }
    }
}

/// The functions with a second result through a pointer (`fract`, `modf`, `sincos`,
/// `frexp`, `lgamma_r`, `remquo`), `ilogb` and a scalar `select` no longer make a kernel
/// scalar: `fract`/`modf` on whole vectors (`codegen/float_fns.rs`), the others by their
/// built-ins; the second result stored through private and global pointers, under a
/// divergent branch only by the active lanes. Special values; with the scalar reference
/// at every width and a host model for the exact ones.
#[test]
fn pointer_results_ilogb_and_select_on_lanes() {
    let src = "kernel void k(global const float *x, global const float *y, global float *o,
                             global int *n, global double *d) {
        size_t i = get_global_id(0);
        float a = x[i], b = y[i];
        global float *r = o + 10 * i;
        float p, q;
        r[0] = fract(a, &p);
        r[1] = p;
        r[2] = modf(a, &q);
        r[3] = q;
        r[4] = sincos(a, &p);
        r[5] = p;
        int e, s, m;
        r[6] = frexp(a, &e);
        r[7] = lgamma_r(a, &s);
        r[8] = remquo(a, b, &m);
        r[9] = select(a, b, (int)(as_uint(a) & 1u));
        global int *t = n + 6 * i;
        t[0] = e;
        t[1] = s;
        t[2] = m;
        t[3] = ilogb(a);
        t[4] = select(e, s, m);
        double da = (double)a * 1e10, di;
        d[3 * i] = fract(da, &di);
        d[3 * i + 1] = di;
        if (as_uint(a) % 3u != 0u) {
            t[5] = (int)(modf(a, r + 3) * 8.0f);
            d[3 * i + 2] = modf(da, &d[3 * i + 1]);
        }
    }";
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.75,
        1e-40,
        -3.0e38,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        8388609.0,
        -0.999_999_94,
        1e30,
    ];
    let items = 53usize;
    let mut x: Vec<u32> = spread_floats(items, 13, 1.37);
    let y: Vec<u32> = xorshift(items, 17)
        .iter()
        .map(|w| ((*w >> 12) as f32 / 512.0 + 0.25).to_bits())
        .collect();
    for (k, v) in specials.iter().enumerate() {
        x[k] = v.to_bits();
    }
    let bufs = vec![
        x.clone(),
        y.clone(),
        vec![0; 10 * items],
        vec![0; 6 * items],
        vec![0; 6 * items],
    ];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1, 2, 3, 4],
        &[],
        [items as u64, 1],
        [items as u64, 1],
    ) else {
        return;
    };
    let below_one = f32::from_bits(0x3f7f_ffff);
    for i in 0..items {
        let a = f32::from_bits(x[i]);
        let r = f(&out[2][10 * i..10 * i + 10]);
        let same = |got: f32, want: f32, what: &str| {
            assert!(
                got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(),
                "{what} of {a:e} (item {i}): got {got:e}, want {want:e}"
            );
        };
        let fl = a.floor();
        let fr = if a.is_infinite() {
            0.0f32.copysign(a)
        } else if a.is_nan() {
            f32::NAN
        } else {
            let d = (a - fl).min(below_one);
            if d == 0.0 {
                0.0f32.copysign(a)
            } else {
                d
            }
        };
        same(r[0], fr, "fract");
        same(r[1], fl, "fract's floor");
        let tr = a.trunc();
        let md = if a.is_infinite() {
            0.0f32.copysign(a)
        } else {
            (a - tr).copysign(a)
        };
        same(r[2], md, "modf");
        // Where `masked` it is stored twice (through the private and the global pointer),
        // the same value either way.
        let masked = !x[i].is_multiple_of(3);
        same(r[3], tr, "modf's integer part");
        let t = &out[3][6 * i..6 * i + 6];
        let sel = if x[i] & 1 != 0 { y[i] } else { x[i] };
        same(r[9], f32::from_bits(sel), "select");
        assert_eq!(t[4], if t[2] != 0 { t[1] } else { t[0] }, "int select {i}");
        if a.is_finite() && a != 0.0 {
            let want_e = if a.abs() < f32::MIN_POSITIVE {
                (a.abs().to_bits().ilog2() as i32) - 149
            } else {
                ((x[i] >> 23) & 0xff) as i32 - 127
            };
            assert_eq!(t[3] as i32, want_e, "ilogb of {a:e}");
            assert_eq!(t[0] as i32, want_e + 1, "frexp's exponent of {a:e}");
            assert_eq!(
                f64::from(r[6]) * 2f64.powi(want_e + 1),
                f64::from(a),
                "frexp's mantissa of {a:e}"
            );
        }
        if masked {
            assert_eq!(t[5] as i32, (md * 8.0) as i32, "masked modf {i}");
        } else {
            assert_eq!(t[5], 0, "inactive lane {i} stored");
        }
        let da = f64::from(a) * 1e10;
        let dd = &out[4][6 * i..6 * i + 6];
        let dv = |k: usize| f64::from_bits(u64::from(dd[2 * k]) | u64::from(dd[2 * k + 1]) << 32);
        if da.is_finite() {
            let dfl = da.floor();
            let dfr = (da - dfl).min(f64::from_bits(0x3fef_ffff_ffff_ffff));
            let dfr = if dfr == 0.0 { 0.0f64.copysign(da) } else { dfr };
            assert_eq!(dv(0).to_bits(), dfr.to_bits(), "double fract of {da:e}");
            if masked {
                assert_eq!(dv(1).to_bits(), da.trunc().to_bits(), "double modf {da:e}");
                let m = (da - da.trunc()).copysign(da);
                assert_eq!(dv(2).to_bits(), m.to_bits(), "double modf of {da:e}");
            } else {
                assert_eq!(dv(1).to_bits(), dfl.to_bits(), "double floor of {da:e}");
                assert_eq!(dv(2), 0.0, "inactive lane {i} stored a double");
            }
        }
    }
}

/// `length`, `distance` and `normalize` (and `fast_length`) of `float`, `float2`, `float3`
/// and `float4` lanes no longer make a kernel scalar: the scalar code's evaluation in
/// double (`codegen/geometric.rs`) on `f64x2` parts, one rounding to float. Vectors
/// whose float length overflows or underflows, infinities, NaN, zero vectors; `nan` and
/// `isnormal` beside them. With the scalar reference at every width and a host model.
#[test]
fn geometric_functions_on_lanes() {
    let src = "kernel void k(global const float4 *x, global const float4 *y, global float *o,
                             global float4 *nv, float u, global uint *c) {
        size_t i = get_global_id(0);
        float4 a = x[i], b = y[i];
        global float *r = o + 8 * i;
        r[0] = length(a);
        r[1] = distance(a, b);
        r[2] = length(a.xy);
        r[3] = fast_length(a.xyz);
        r[4] = length(a.w);
        r[5] = distance(a.x, u);
        r[6] = length((float2)(u, a.y));
        float2 n2 = normalize(b.zw);
        r[7] = n2.x + normalize(a.z);
        nv[2 * i] = normalize(a);
        nv[2 * i + 1] = (float4)(normalize(b.xyz), n2.y);
        c[2 * i] = as_uint(nan(as_uint(a.x) ^ 0x1234u));
        c[2 * i + 1] = isnormal(a.y) + 2 * isnormal(b.x);
    }";
    let specials: [[f32; 4]; 10] = [
        [0.0, 0.0, 0.0, 0.0],
        [-0.0, 0.0, -0.0, 0.0],
        [3e38, -2.5e38, 1e38, 3.0e38],
        [1e-40, -3e-41, 0.0, 1e-45],
        [f32::INFINITY, 1.0, f32::NEG_INFINITY, 0.0],
        [f32::NAN, 1.0, 2.0, 3.0],
        [3.0, 4.0, 12.0, 0.0],
        [-1.0, f32::INFINITY, 5.0, -0.0],
        [1e20, 1e-20, -1e20, 7.0],
        [-3.07e38, 2.24e38, 0.5, -0.25],
    ];
    let items = 45usize;
    let mut x: Vec<u32> = spread_floats(4 * items, 23, 0.71);
    let y: Vec<u32> = spread_floats(4 * items, 29, 1.9);
    for (k, v) in specials.iter().enumerate() {
        for c in 0..4 {
            x[4 * k + c] = v[c].to_bits();
        }
    }
    let u = -2.5f32;
    let bufs = vec![
        x.clone(),
        y.clone(),
        vec![0; 8 * items],
        vec![0; 8 * items],
        vec![0; 2 * items],
    ];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1, 2, 3, 5],
        &[(4, u.to_bits())],
        [items as u64, 1],
        [items as u64, 1],
    ) else {
        return;
    };
    let len = |v: &[f32]| -> f32 {
        let s: f64 = v.iter().map(|c| f64::from(*c) * f64::from(*c)).sum();
        s.sqrt() as f32
    };
    let norm = |v: &[f32]| -> Vec<f32> {
        if v.iter().all(|c| *c == 0.0) {
            return v.to_vec();
        }
        let w: Vec<f64> = if v.iter().any(|c| c.is_infinite()) {
            v.iter()
                .map(|c| {
                    if c.is_infinite() {
                        1.0f64.copysign(f64::from(*c))
                    } else {
                        0.0f64.copysign(f64::from(*c))
                    }
                })
                .collect()
        } else {
            v.iter().map(|c| f64::from(*c)).collect()
        };
        let l = w.iter().map(|c| c * c).sum::<f64>().sqrt();
        w.iter().map(|c| (c / l) as f32).collect()
    };
    let same = |got: f32, want: f32, what: &str, i: usize| {
        assert!(
            got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(),
            "{what} (item {i}): got {got:e}, want {want:e}"
        );
    };
    for i in 0..items {
        let a = f(&x[4 * i..4 * i + 4]);
        let b = f(&y[4 * i..4 * i + 4]);
        let r = f(&out[2][8 * i..8 * i + 8]);
        let nv = f(&out[3][8 * i..8 * i + 8]);
        let d: Vec<f32> = a.iter().zip(&b).map(|(p, q)| p - q).collect();
        same(r[0], len(&a), "length", i);
        same(r[1], len(&d), "distance", i);
        same(r[2], len(&a[..2]), "length of float2", i);
        same(r[3], len(&a[..3]), "fast_length of float3", i);
        same(r[4], a[3].abs(), "length of float", i);
        same(r[5], (a[0] - u).abs(), "distance of floats", i);
        same(r[6], len(&[u, a[1]]), "length of float2", i);
        let n2 = norm(&b[2..]);
        same(
            r[7],
            n2[0] + norm(&a[2..3])[0],
            "normalize of float2 and float",
            i,
        );
        let na = norm(&a);
        for c in 0..4 {
            same(nv[c], na[c], "normalize of float4", i);
        }
        let nb = norm(&b[..3]);
        for c in 0..3 {
            same(nv[4 + c], nb[c], "normalize of float3", i);
        }
        same(nv[7], n2[1], "normalize of float2", i);
        let code = x[4 * i] ^ 0x1234;
        assert_eq!(out[4][2 * i], 0x7fc0_0000 | (code & 0x003f_ffff), "nan {i}");
        assert_eq!(
            out[4][2 * i + 1],
            u32::from(a[1].is_normal()) + 2 * u32::from(b[0].is_normal()),
            "isnormal {i}"
        );
    }
}

/// `float` to `int`/`uint` conversions (casts and `convert_int*`/`convert_uint*` with
/// every rounding mode and saturation) on `f32x4` parts instead of one conversion per
/// lane: NaN, infinities, values beyond both ends of each range, halves; with the scalar
/// reference at every width and a host model (Rust's `as` saturates as Ferrite does).
#[test]
fn float_to_int_lanes_as_vectors() {
    let src = "kernel void k(global const float *x, global int *o) {
        size_t i = get_global_id(0);
        float a = x[i];
        global int *r = o + 8 * i;
        r[0] = (int)a;
        r[1] = (int)(uint)a;
        r[2] = convert_int_rte(a);
        r[3] = convert_int_sat_rtp(a);
        r[4] = (int)convert_uint_sat(a);
        r[5] = (int)convert_uint_rtn(a);
        r[6] = convert_int_sat_rtz(a);
        r[7] = (int)convert_uint_sat_rte(a);
    }";
    let specials = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        2147483648.0,
        -2147483904.0,
        2147483520.0,
        4294967296.0,
        4294967040.0,
        -0.5,
        0.5,
        1.5,
        2.5,
        -2.5,
        -1.0,
        -0.0,
        1e-30,
        -3e9,
    ];
    let items = 67usize;
    let mut x: Vec<u32> = xorshift(items, 31)
        .iter()
        .map(|w| (((*w >> 8) as f32 / 16.0 - 524288.0) * 3.3).to_bits())
        .collect();
    for (k, v) in specials.iter().enumerate() {
        x[k] = v.to_bits();
    }
    let bufs = vec![x.clone(), vec![0; 8 * items]];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1],
        &[],
        [items as u64, 1],
        [items as u64, 1],
    ) else {
        return;
    };
    for i in 0..items {
        let a = f32::from_bits(x[i]);
        let want = [
            a as i32 as u32,
            a as u32,
            a.round_ties_even() as i32 as u32,
            a.ceil() as i32 as u32,
            a as u32,
            a.floor() as u32,
            a as i32 as u32,
            a.round_ties_even() as u32,
        ];
        for (k, w) in want.iter().enumerate() {
            assert_eq!(out[1][8 * i + k], *w, "conversion {k} of {a:e} (item {i})");
        }
    }
}

/// `length`, `distance` and `normalize` of `double` lanes (`double`, `double3`,
/// `double4`): the scalar code lane by lane (`codegen/geometric.rs`), no longer a whole
/// kernel scalar. Huge, tiny, infinite and NaN components and zero vectors against the
/// scalar reference at every width; moderate ones against a host model too.
#[test]
fn double_geometric_functions_on_lanes() {
    let src = "kernel void k(global const double4 *x, global const double4 *y,
                             global double *o, global double4 *nv) {
        size_t i = get_global_id(0);
        double4 a = x[i], b = y[i];
        global double *r = o + 4 * i;
        r[0] = length(a);
        r[1] = distance(a, b);
        r[2] = length(a.xyz);
        r[3] = length(b.w);
        nv[2 * i] = normalize(a);
        nv[2 * i + 1] = (double4)(normalize(b.xyz), normalize(a.w));
    }";
    let specials: [[f64; 4]; 7] = [
        [0.0, -0.0, 0.0, 0.0],
        [f64::MAX, f64::MAX, -1e308, 1.0],
        [5e-324, -1e-310, 0.0, 2e-320],
        [f64::INFINITY, 1.0, f64::NEG_INFINITY, 0.0],
        [f64::NAN, 1.0, 2.0, 3.0],
        [3.0, 4.0, 12.0, 0.0],
        [-1.0, f64::INFINITY, 5.0, -0.0],
    ];
    let items = 29usize;
    let words = |seed: u32, scale: f64| -> Vec<u32> {
        xorshift(4 * items, seed)
            .iter()
            .flat_map(|w| {
                let v = ((*w >> 4) as f64 / 1048576.0 - 2048.0) * scale;
                let b = v.to_bits();
                [b as u32, (b >> 32) as u32]
            })
            .collect()
    };
    let mut x = words(37, 0.37);
    let y = words(41, 1.3);
    for (k, v) in specials.iter().enumerate() {
        for c in 0..4 {
            let b = v[c].to_bits();
            x[2 * (4 * k + c)] = b as u32;
            x[2 * (4 * k + c) + 1] = (b >> 32) as u32;
        }
    }
    let bufs = vec![
        x.clone(),
        y.clone(),
        vec![0; 8 * items],
        vec![0; 16 * items],
    ];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1, 2, 3],
        &[],
        [items as u64, 1],
        [items as u64, 1],
    ) else {
        return;
    };
    let d =
        |w: &[u32], k: usize| f64::from_bits(u64::from(w[2 * k]) | u64::from(w[2 * k + 1]) << 32);
    let len = |v: &[f64]| v.iter().map(|c| c * c).sum::<f64>().sqrt();
    for i in specials.len()..items {
        let a: Vec<f64> = (0..4).map(|c| d(&x, 4 * i + c)).collect();
        let b: Vec<f64> = (0..4).map(|c| d(&y, 4 * i + c)).collect();
        let r: Vec<f64> = (0..4).map(|c| d(&out[2], 4 * i + c)).collect();
        let nv: Vec<f64> = (0..8).map(|c| d(&out[3], 8 * i + c)).collect();
        let diff: Vec<f64> = a.iter().zip(&b).map(|(p, q)| p - q).collect();
        assert_eq!(r[0], len(&a), "length {i}");
        assert_eq!(r[1], len(&diff), "distance {i}");
        assert_eq!(r[2], len(&a[..3]), "length of double3 {i}");
        assert_eq!(r[3], b[3].abs(), "length of double {i}");
        let l = len(&a);
        for c in 0..4 {
            assert_eq!(nv[c], a[c] / l, "normalize {i}.{c}");
        }
        let l = len(&b[..3]);
        for c in 0..3 {
            assert_eq!(nv[4 + c], b[c] / l, "normalize of double3 {i}.{c}");
        }
        assert_eq!(nv[7], 1.0f64.copysign(a[3]), "normalize of double {i}");
    }
}

/// `select`, `shuffle`/`shuffle2` by constant masks and `cross` of OpenCL vectors no
/// longer make a kernel scalar (`vector/components.rs`): a vector `select` takes each
/// condition component's top bit (1 chooses the first operand; `0x80000000` and -1 the
/// second), on `int4`, `float4` and `uchar4` components; with the scalar reference at
/// every width and a host model.
#[test]
fn vector_select_shuffle_and_cross() {
    let src = "kernel void k(global const int4 *x, global const int4 *y, global int4 *o,
                             global float4 *f, global uchar4 *c) {
        size_t i = get_global_id(0);
        int4 a = x[i], b = y[i];
        o[4 * i] = select(a, b, a < b);
        o[4 * i + 1] = select(a, b, b);
        o[4 * i + 2] = shuffle(a, (uint4)(3, 2, 1, 0)) + shuffle2(a, b, (uint4)(4, 0, 7, 5));
        float4 fa = convert_float4(a) * 0.25f, fb = convert_float4(b);
        o[4 * i + 3] = as_int4(select(fa, fb, isgreater(fa, fb)));
        f[2 * i] = cross(fa, fb);
        f[2 * i + 1] = (float4)(cross(fa.xyz, fb.zyx), 1.0f);
        uchar4 ua = as_uchar4(a.x), ub = as_uchar4(b.x);
        c[i] = select(ua, ub, as_uchar4(b.x ^ a.x));
    }";
    let items = 41usize;
    let mut x = xorshift(4 * items, 43);
    let y = xorshift(4 * items, 47);
    for (k, v) in [0u32, 1, 0x8000_0000, u32::MAX, 0x7fff_ffff, 5]
        .iter()
        .enumerate()
    {
        x[k] = *v;
    }
    let bufs = vec![
        x.clone(),
        y.clone(),
        vec![0; 16 * items],
        vec![0; 8 * items],
        vec![0; items],
    ];
    let Some(out) = differential(
        src,
        "k",
        &bufs,
        &[0, 1, 2, 3, 4],
        &[],
        [items as u64, 1],
        [items as u64, 1],
    ) else {
        return;
    };
    for i in 0..items {
        let a: Vec<u32> = x[4 * i..4 * i + 4].to_vec();
        let b: Vec<u32> = y[4 * i..4 * i + 4].to_vec();
        let o = &out[2][16 * i..16 * i + 16];
        let sh = [a[3], a[2], a[1], a[0]];
        let sh2 = [b[0], a[0], b[3], b[1]];
        let fa: Vec<f32> = a.iter().map(|v| *v as i32 as f32 * 0.25).collect();
        let fb: Vec<f32> = b.iter().map(|v| *v as i32 as f32).collect();
        for k in 0..4 {
            let lt = (a[k] as i32) < (b[k] as i32);
            assert_eq!(
                o[k],
                if lt { b[k] } else { a[k] },
                "select by a < b {i}.{k}"
            );
            let top = b[k] >> 31 == 1;
            assert_eq!(
                o[4 + k],
                if top { b[k] } else { a[k] },
                "select by top bit {i}.{k}"
            );
            assert_eq!(o[8 + k], sh[k].wrapping_add(sh2[k]), "shuffle {i}.{k}");
            let g = if fa[k] > fb[k] { fb[k] } else { fa[k] };
            assert_eq!(o[12 + k], g.to_bits(), "float select {i}.{k}");
        }
        let f = f(&out[3][8 * i..8 * i + 8]);
        let cr = |p: [f32; 3], q: [f32; 3]| {
            [
                p[1] * q[2] - p[2] * q[1],
                p[2] * q[0] - p[0] * q[2],
                p[0] * q[1] - p[1] * q[0],
            ]
        };
        let c4 = cr([fa[0], fa[1], fa[2]], [fb[0], fb[1], fb[2]]);
        let c3 = cr([fa[0], fa[1], fa[2]], [fb[2], fb[1], fb[0]]);
        for k in 0..3 {
            assert_eq!(f[k].to_bits(), c4[k].to_bits(), "cross {i}.{k}");
            assert_eq!(
                f[4 + k].to_bits(),
                c3[k].to_bits(),
                "cross of float3 {i}.{k}"
            );
        }
        assert_eq!(f[3], 0.0, "cross's w {i}");
        assert_eq!(f[7], 1.0, "{i}");
        let (ua, ub, uc) = (
            a[0].to_le_bytes(),
            b[0].to_le_bytes(),
            (a[0] ^ b[0]).to_le_bytes(),
        );
        let want: Vec<u8> = (0..4)
            .map(|k| if uc[k] >> 7 == 1 { ub[k] } else { ua[k] })
            .collect();
        assert_eq!(out[4][i].to_le_bytes().to_vec(), want, "uchar4 select {i}");
    }
}

/// OpenCL vector arguments by value (`float2 alpha`, `int4 s`), each component the same in
/// every lane, in a kernel with a barrier and in one without: CLBlast's complex routines
/// take their scalars as `float2`, and such kernels were left scalar ("type" of the
/// argument).
#[test]
fn vector_arguments_by_value() {
    let src = "kernel void k(global float2 *y, float2 alpha, int4 s, local float2 *t) {
            size_t l = get_local_id(0), i = get_global_id(0);
            t[l] = y[i] * alpha.x + (float2)(alpha.y, (float)s.z);
            barrier(CLK_LOCAL_MEM_FENCE);
            float2 v = t[get_local_size(0) - 1 - l];
            y[i] = (float2)(v.x * alpha.y - v.y * alpha.x, v.x * alpha.x + v.y * alpha.y)
                + (float)(s.x * s.w);
        }
        kernel void straight(global float2 *y, float2 alpha, int4 s) {
            size_t i = get_global_id(0);
            float2 v = y[i];
            y[i] = (float2)(v.x * alpha.y - v.y * alpha.x, v.x * alpha.x + v.y * alpha.y)
                + (float)(s.y - s.z);
        }";
    let (alpha, s) = ([1.5f32, -0.25f32], [3i32, 7, -2, 5]);
    let (groups, wg) = (3usize, 16usize);
    let n = groups * wg;
    let input: Vec<f32> = (0..2 * n).map(|i| (i as f32) * 0.5 - 7.0).collect();
    let rot = |x: f32, y: f32| (x * alpha[1] - y * alpha[0], x * alpha[0] + y * alpha[1]);
    let Some(k) = harness::kernel(src, "k") else {
        return;
    };
    assert_vectorised(&k);
    let mut y = input.clone();
    let mut args = Args::new(&k.info);
    args.buf(0, &mut y).val(1, alpha).val(2, s);
    args.local(3, k.static_local_size as u64);
    run(
        &k,
        &args,
        1,
        [n as u64, 1, 1],
        [wg as u64, 1, 1],
        [0; 3],
        8 * wg,
    );
    for i in 0..n {
        let (g, l) = (i / wg, i % wg);
        let j = g * wg + wg - 1 - l;
        let t = |c: usize| input[2 * j + c] * alpha[0] + [alpha[1], s[2] as f32][c];
        let (x, z) = rot(t(0), t(1));
        let add = (s[0] * s[3]) as f32;
        assert_eq!(
            [y[2 * i], y[2 * i + 1]],
            [x + add, z + add],
            "k, work-item {i}"
        );
    }
    let k = harness::kernel(src, "straight").expect("built once already");
    assert_vectorised(&k);
    let mut y = input.clone();
    let mut args = Args::new(&k.info);
    args.buf(0, &mut y).val(1, alpha).val(2, s);
    // A row that is not a whole number of vector iterations; the rest stays as it was.
    let m = n - 3;
    run(&k, &args, 1, [m as u64, 1, 1], [m as u64, 1, 1], [0; 3], 0);
    assert_eq!(y[2 * m..], input[2 * m..]);
    for i in 0..m {
        let (x, z) = rot(input[2 * i], input[2 * i + 1]);
        let add = (s[1] - s[2]) as f32;
        assert_eq!(
            [y[2 * i], y[2 * i + 1]],
            [x + add, z + add],
            "straight, work-item {i}"
        );
    }
}

/// `volatile` private variables, accessed as any other private memory: nothing but the
/// work-item sees them. CLBlast's tiled GEMM keeps `volatile int tid` across its barriers
/// "to disable caching", and the kernel was left scalar for it.
#[test]
fn volatile_private_variables() {
    let src = "kernel void tiles(global const float *a, global float *o, local float *t) {
            volatile int tid = get_local_id(0) + 4 * get_local_id(1);
            t[tid] = a[get_global_id(1) * get_global_size(0) + get_global_id(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            volatile float acc = 0.0f;
            for (int k = 0; k < 4; k++) acc += t[(tid + k) % 16] * (float)(k + 1);
            o[get_global_id(1) * get_global_size(0) + get_global_id(0)] = acc + (float)tid;
        }
        kernel void straight(global const int *a, global int *o) {
            volatile int v[3];
            size_t i = get_global_id(0);
            v[0] = a[i]; v[1] = a[i] * 3; v[2] = v[0] - v[1];
            o[i] = v[2] + v[(i & 1) + 1];
        }";
    let (w, h) = (8usize, 8usize);
    let input: Vec<f32> = (0..w * h).map(|i| (i % 13) as f32 - 4.5).collect();
    let Some(k) = harness::kernel(src, "tiles") else {
        return;
    };
    assert_vectorised(&k);
    let mut a = input.clone();
    let mut o = vec![0f32; w * h];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut a).buf(1, &mut o);
    args.local(2, k.static_local_size as u64);
    run(&k, &args, 2, [w as u64, h as u64, 1], [4, 4, 1], [0; 3], 64);
    for y in 0..h {
        for x in 0..w {
            let (gx, gy) = (x / 4 * 4, y / 4 * 4);
            let tid = x % 4 + 4 * (y % 4);
            // The group's 4×4 tile, as `t` holds it.
            let t = |n: usize| input[(gy + n / 4) * w + gx + n % 4];
            let acc = (0..4).fold(0.0f32, |acc, k| acc + t((tid + k) % 16) * (k + 1) as f32);
            assert_eq!(o[y * w + x], acc + tid as f32, "tiles ({x}, {y})");
        }
    }
    let k = harness::kernel(src, "straight").expect("built once already");
    assert_vectorised(&k);
    let n = 37usize;
    let mut a: Vec<i32> = (0..n as i32).map(|i| i * 7 - 50).collect();
    let mut o = vec![0i32; n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut a).buf(1, &mut o);
    run(&k, &args, 1, [n as u64, 1, 1], [n as u64, 1, 1], [0; 3], 0);
    for i in 0..n {
        let v = [a[i], a[i] * 3, a[i] - a[i] * 3];
        assert_eq!(o[i], v[2] + v[(i & 1) + 1], "straight, work-item {i}");
    }
}

/// `shuffle` and `shuffle2` by masks known only at run time: per lane (read from memory)
/// and uniform (an argument), with mask bits above the index that must be ignored.
#[test]
fn shuffle_by_run_time_masks() {
    let src = "kernel void k(global const float4 *x, global const int4 *y, global const uint4 *m,
                           global const uint8 *m8, uint4 um, global float4 *o, global int8 *o8) {
            size_t i = get_global_id(0);
            o[i] = shuffle(x[i], m[i]) + shuffle(x[i], um) * 100.0f;
            o8[i] = shuffle2(y[i], y[i] + 10, m8[i]);
        }";
    let n = 37usize;
    let x: Vec<f32> = (0..4 * n).map(|i| i as f32 * 0.5).collect();
    let y: Vec<i32> = (0..4 * n as i32).map(|i| i * 3 - 50).collect();
    let m: Vec<u32> = (0..4 * n as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 7)
        .collect();
    let m8: Vec<u32> = (0..8 * n as u32)
        .map(|i| i.wrapping_mul(40503) ^ (i << 9))
        .collect();
    let um = [3u32, 6, 0x11, 0xffff_fffe];
    let Some(k) = harness::kernel(src, "k") else {
        return;
    };
    assert_vectorised(&k);
    let (mut xb, mut yb, mut mb, mut m8b) = (x.clone(), y.clone(), m.clone(), m8.clone());
    let mut o = vec![0f32; 4 * n];
    let mut o8 = vec![0i32; 8 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut xb)
        .buf(1, &mut yb)
        .buf(2, &mut mb)
        .buf(3, &mut m8b);
    args.val(4, um).buf(5, &mut o).buf(6, &mut o8);
    run(&k, &args, 1, [n as u64, 1, 1], [n as u64, 1, 1], [0; 3], 0);
    for i in 0..n {
        for c in 0..4 {
            let want =
                x[4 * i + (m[4 * i + c] & 3) as usize] + x[4 * i + (um[c] & 3) as usize] * 100.0;
            assert_eq!(o[4 * i + c], want, "shuffle, work-item {i} component {c}");
        }
        for c in 0..8 {
            let j = (m8[8 * i + c] & 7) as usize;
            let want = if j < 4 {
                y[4 * i + j]
            } else {
                y[4 * i + j - 4] + 10
            };
            assert_eq!(o8[8 * i + c], want, "shuffle2, work-item {i} component {c}");
        }
    }
}

/// `volatile` global accesses: each load preceded and each store followed by a fence, as
/// in the scalar code, so a reload after a store reads memory again; the kernel runs in
/// a vector loop (a flag polled through a `volatile` pointer made it scalar before).
#[test]
fn volatile_global_accesses() {
    let src = "kernel void k(volatile global int *a, global int *o) {
            size_t i = get_global_id(0);
            int x = a[i];
            a[i] = x + 1;
            int y = a[i];
            if (i % 3 == 1) a[i] = y * 2;
            o[i] = x + 10 * a[i] + y;
        }";
    let n = 45usize;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 5 - 60).collect();
    let Some(k) = harness::kernel(src, "k") else {
        return;
    };
    assert_vectorised(&k);
    let mut a = input.clone();
    let mut o = vec![0i32; n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut a).buf(1, &mut o);
    run(&k, &args, 1, [n as u64, 1, 1], [n as u64, 1, 1], [0; 3], 0);
    for i in 0..n {
        let x = input[i];
        let y = x + 1;
        let last = if i % 3 == 1 { y * 2 } else { y };
        assert_eq!((a[i], o[i]), (last, x + 10 * last + y), "work-item {i}");
    }
}

/// Loops whose lanes leave in different iterations, with values the same in every lane
/// still inside (a counter) used after them: inside the loop the counter is uniform (one
/// scalar, a uniform load `tbl[n]` and an atomic on `hist[n]` at one address), after it
/// each lane has the count of the iteration it left in. A loop skipped entirely (`max`
/// 0: clang merges that path into the loop's exit), nested loops, a `break`.
#[test]
fn counters_of_loops_lanes_leave_at_different_times() {
    let src = "kernel void escape(global const float *lim, global const float *tbl,
                                 global volatile int *hist, global int *o, uint max) {
            size_t i = get_global_id(0);
            float z = 0.0f, acc = 0.0f;
            uint n = 0;
            while (n < max && z < lim[i]) {
                z = z * 1.5f + 1.0f;
                acc += tbl[n];
                atomic_inc(&hist[n]);
                n++;
            }
            o[i] = (int)n * 1000 + (int)acc + (int)tbl[n] * 100000;
        }
        kernel void nested(global const int *a, global int *o) {
            size_t i = get_global_id(0);
            int total = 0, j = 0;
            for (int r = 0; r < 3; r++) {
                j = 0;
                while (j < a[i] + r) j++;
                total += j * (r + 1);
            }
            o[i] = total * 100 + j;
        }
        kernel void search(global const int *a, global int *o) {
            size_t i = get_global_id(0);
            int k, s = 0;
            for (k = 0; k < 16; k++) {
                if (a[i] == k) break;
                s += k;
            }
            o[i] = k * 1000 + s;
        }";
    let n = 37usize;
    let lim: Vec<f32> = (0..n).map(|i| (i * 7 % 23) as f32 * 3.0 - 2.0).collect();
    let tbl: Vec<f32> = (0..64).map(|t| (t * t % 17) as f32).collect();
    let Some(k) = harness::kernel(src, "escape") else {
        return;
    };
    assert_vectorised(&k);
    for max in [0u32, 5, 40] {
        let (mut l, mut t) = (lim.clone(), tbl.clone());
        let mut hist = vec![0i32; 64];
        let mut o = vec![0i32; n];
        let mut args = Args::new(&k.info);
        args.buf(0, &mut l)
            .buf(1, &mut t)
            .buf(2, &mut hist)
            .buf(3, &mut o);
        args.val(4, max);
        run(&k, &args, 1, [n as u64, 1, 1], [n as u64, 1, 1], [0; 3], 0);
        let mut want_hist = vec![0i32; 64];
        for i in 0..n {
            let (mut z, mut acc, mut c) = (0.0f32, 0.0f32, 0u32);
            while c < max && z < lim[i] {
                z = z * 1.5 + 1.0;
                acc += tbl[c as usize];
                want_hist[c as usize] += 1;
                c += 1;
            }
            assert_eq!(
                o[i],
                c as i32 * 1000 + acc as i32 + tbl[c as usize] as i32 * 100_000,
                "escape, max {max}, work-item {i}"
            );
        }
        // Every shape's run added to the histogram: one run's counts times the runs.
        let runs = hist[0] / want_hist[0].max(1);
        if max > 0 {
            assert!(runs >= 1, "escape, max {max}: {hist:?}");
        }
        let want: Vec<i32> = want_hist.iter().map(|h| h * runs).collect();
        assert_eq!(hist, want, "escape, max {max}: histogram");
    }
    let k = harness::kernel(src, "nested").expect("built once already");
    assert_vectorised(&k);
    let mut a: Vec<i32> = (0..n as i32).map(|i| i * 5 % 11 - 2).collect();
    let mut o = vec![0i32; n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut a).buf(1, &mut o);
    run(&k, &args, 1, [n as u64, 1, 1], [n as u64, 1, 1], [0; 3], 0);
    for i in 0..n {
        let (mut total, mut j) = (0, 0);
        for r in 0..3 {
            j = (a[i] + r).max(0);
            total += j * (r + 1);
        }
        assert_eq!(o[i], total * 100 + j, "nested, work-item {i}");
    }
    let k = harness::kernel(src, "search").expect("built once already");
    assert_vectorised(&k);
    let mut a: Vec<i32> = (0..n as i32).map(|i| i * 3 % 19).collect();
    let mut o = vec![0i32; n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut a).buf(1, &mut o);
    run(&k, &args, 1, [n as u64, 1, 1], [n as u64, 1, 1], [0; 3], 0);
    for i in 0..n {
        let k = a[i].min(16);
        assert_eq!(
            o[i],
            k * 1000 + (0..k).sum::<i32>(),
            "search, work-item {i}"
        );
    }
}

/// A loop lanes leave at different times between two barriers, its count used after the
/// second: the count is kept per work-item across the barrier (its exit phi is varying),
/// though the same in every lane still inside the loop.
#[test]
fn counters_of_loops_between_barriers() {
    let src = "kernel void runs(global const int *a, global int *o, local int *t) {
            int l = get_local_id(0), size = get_local_size(0);
            t[l] = a[get_global_id(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            int n = 0;
            while (n < 20 && t[(l + n) % size] > 0) n++;
            barrier(CLK_LOCAL_MEM_FENCE);
            t[l] = n;
            barrier(CLK_LOCAL_MEM_FENCE);
            o[get_global_id(0)] = n * 100 + t[(l + 1) % size];
        }";
    let (groups, wg) = (3usize, 16usize);
    let input: Vec<i32> = (0..(groups * wg) as i32)
        .map(|i| if i % 7 == 3 || i % 11 == 5 { 0 } else { i })
        .collect();
    let Some(k) = harness::kernel(src, "runs") else {
        return;
    };
    assert_vectorised(&k);
    let mut a = input.clone();
    let mut o = vec![0i32; groups * wg];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut a).buf(1, &mut o);
    args.local(2, k.static_local_size as u64);
    let n = (groups * wg) as u64;
    run(&k, &args, 1, [n, 1, 1], [wg as u64, 1, 1], [0; 3], 4 * wg);
    for g in 0..groups {
        let t = &input[g * wg..(g + 1) * wg];
        let count = |l: usize| (0..20).take_while(|&n| t[(l + n) % wg] > 0).count() as i32;
        for l in 0..wg {
            assert_eq!(
                o[g * wg + l],
                count(l) * 100 + count((l + 1) % wg),
                "group {g}, work-item {l}"
            );
        }
    }
}

/// The width chooser's budget for one value: a varying `float4` takes 16 vector registers
/// at 16 lanes, leaving no room for a second operand, so a `float4` saxpy and a `uchar4`
/// kernel computing in `float4` get 8 lanes; the same saxpy on `float` gets 16. (Each
/// width's results are the other tests' business: they run every kernel at 4, 8 and 16.)
#[test]
fn widest_value_sets_the_width() {
    let cases = [
        (
            "kernel void k(global float4* y, global const float4* x, float a) {
                size_t i = get_global_id(0);
                y[i] = a * x[i] + y[i];
            }",
            8,
        ),
        (
            "kernel void k(global float* y, global const float* x, float a) {
                size_t i = get_global_id(0);
                y[i] = a * x[i] + y[i];
            }",
            16,
        ),
        (
            "kernel void k(global uchar4* o, global const uchar4* x) {
                size_t i = get_global_id(0);
                o[i] = convert_uchar4_sat(convert_float4(x[i]) * 0.5f);
            }",
            8,
        ),
    ];
    for (src, lanes) in cases {
        let Some(k) = harness::kernel(src, "k") else {
            return;
        };
        assert_eq!(k.handler.lanes as usize, lanes, "{}", k.handler.note);
    }
}
