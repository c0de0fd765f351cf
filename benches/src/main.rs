//! `ferrite-bench`: Ferrite's speed against the other CPU drivers, in one run.
//!
//! Every platform the ICD loader sees (run it through `benches/run`, which registers
//! Ferrite, PoCL and Intel's CPU runtime side by side) runs the same cases; each case is
//! named `area/kernel/size/threads` and timed as the median wall time of repeated runs after
//! a warm-up. The table gives each driver's time and Ferrite's time divided by each peer's:
//! below 1 Ferrite is faster. Results are checked on the host, so a fast wrong answer shows
//! as an error, not a win. Nothing here asserts a time: speed is reported, never tested.
//!
//! Usage: `ferrite-bench [FILTER]` runs the cases whose name contains FILTER.

mod cl;
mod cmdbuf;
mod compute;
mod half;
mod image;
mod math;
mod memory;

use cl::{bytes_of, Device, Kernel, Result};
use std::time::{Duration, Instant};

/// One iteration of a prepared case.
type Iteration<'a> = Box<dyn FnMut() -> Result<()> + 'a>;

struct Case {
    area: &'static str,
    kernel: &'static str,
    size: &'static str,
    /// Prepare the case on a device; the closure runs one timed iteration.
    prepare: for<'a> fn(&'a Device) -> Result<Iteration<'a>>,
}

const VECADD: &str =
    "kernel void vecadd(global const float* a, global const float* b, global float* c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}";

const SAXPY: &str = "kernel void saxpy(float a, global const float* x, global float* y) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}";

const EMPTY: &str = "kernel void empty(global int* p) { }";

const MANDELBROT: &str = "kernel void mandelbrot(global uint* out, uint width, uint max_iter) {
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

const MATMUL: &str =
    "kernel void matmul(global const float* a, global const float* b, global float* c, uint n) {
    uint col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (uint k = 0; k < n; k++) acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}";

const SGEMM_TILED: &str = "#define T 16
kernel void sgemm(global const float* a, global const float* b, global float* c, uint n) {
    local float ta[T][T], tb[T][T];
    uint lx = get_local_id(0), ly = get_local_id(1);
    uint col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (uint t = 0; t < n; t += T) {
        ta[ly][lx] = a[row * n + t + lx];
        tb[ly][lx] = b[(t + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < T; k++) acc += ta[ly][k] * tb[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}";

const REDUCE: &str =
    "kernel void reduce(global const float* in, global float* partial, local float* scratch) {
    uint l = get_local_id(0), size = get_local_size(0);
    scratch[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = size / 2; s > 0; s >>= 1) {
        if (l < s) scratch[l] += scratch[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) partial[get_group_id(0)] = scratch[0];
}";

const HISTOGRAM: &str =
    "kernel void histogram(global const uchar* in, global uint* bins, uint per_item) {
    local uint local_bins[256];
    uint l = get_local_id(0);
    for (uint i = l; i < 256; i += get_local_size(0)) local_bins[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t base = get_global_id(0) * per_item;
    for (uint i = 0; i < per_item; i++) atomic_inc(&local_bins[in[base + i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = l; i < 256; i += get_local_size(0)) atomic_add(&bins[i], local_bins[i]);
}";

const M16: usize = 16 << 20;

fn floats(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2_654_435_761).max(1);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s % 1000) as f32 / 100.0
        })
        .collect()
}

/// `n` floats spread evenly over `[lo, hi)`, the same for a given seed on every run.
fn uniform(n: usize, seed: u32, lo: f32, hi: f32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2_654_435_761).max(1);
    let (lo, span) = (f64::from(lo), f64::from(hi) - f64::from(lo));
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (lo + span * (f64::from(s) / 4_294_967_296.0)) as f32
        })
        .collect()
}

/// Whether `got` is within `rel * |want| + abs` of `want`.
fn close(got: f32, want: f64, rel: f64, abs: f64) -> bool {
    (f64::from(got) - want).abs() <= rel * want.abs() + abs
}

fn read_f32(d: &Device, b: &cl::Buffer, n: usize) -> Result<Vec<f32>> {
    let mut bytes = vec![0u8; n * 4];
    d.read(b, &mut bytes)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// `n` pseudo-random pixels of four bytes.
fn pixels(n: usize) -> Vec<u8> {
    let mut s = 0x2545_f491u32;
    (0..4 * n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s as u8
        })
        .collect()
}

fn read_u32(d: &Device, b: &cl::Buffer, n: usize) -> Result<Vec<u32>> {
    let mut bytes = vec![0u8; n * 4];
    d.read(b, &mut bytes)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

fn expect(ok: bool, what: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(format!("wrong result: {what}"))
    }
}

/// `expect` for checks run on millions of elements: the message is only made on failure.
fn expect_with(ok: bool, what: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(format!("wrong result: {}", what()))
    }
}

/// SPIR-V for `src`, made the way Ferrite makes it (clang-15, opt-15, llvm-spirv-15).
fn spirv_of(src: &str) -> Result<Vec<u8>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let dir = std::env::temp_dir().join(format!("ferrite-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let (bc, spv) = (dir.join("k.bc"), dir.join("k.spv"));
    let mut clang = Command::new("clang-15")
        .args([
            "-c",
            "-target",
            "spir64",
            "-cl-std=CL1.2",
            "-O2",
            "-emit-llvm",
            "-x",
            "cl",
            "-",
            "-o",
        ])
        .arg(&bc)
        .stdin(Stdio::piped())
        .spawn()
        .map_err(|e| format!("clang-15: {e}"))?;
    if let Some(mut input) = clang.stdin.take() {
        input.write_all(src.as_bytes()).map_err(|e| e.to_string())?;
    }
    let ok = clang.wait().map_err(|e| e.to_string())?.success()
        && Command::new("llvm-spirv-15")
            .arg(&bc)
            .arg("-o")
            .arg(&spv)
            .status()
            .map_err(|e| format!("llvm-spirv-15: {e}"))?
            .success();
    let result = if ok {
        std::fs::read(&spv).map_err(|e| e.to_string())
    } else {
        Err("clang-15/llvm-spirv-15 failed".into())
    };
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn build_source(d: &Device) -> Result<Iteration<'_>> {
    let mut run = 0u64;
    let stamp = Instant::now().elapsed().as_nanos() ^ u128::from(std::process::id());
    Ok(Box::new(move || {
        run += 1;
        // A new define every time: no driver may answer from a cache.
        let p = d.program_from_source(VECADD, &format!("-D BENCH_RUN_{stamp}_{run}"))?;
        p.kernel("vecadd").map(drop)
    }))
}

/// The benchmark's own kernels, thirteen in one program (about 150 lines): each source
/// and the kernel it defines.
const BENCH_KERNELS: [(&str, &str); 13] = [
    (VECADD, "vecadd"),
    (SAXPY, "saxpy"),
    (MANDELBROT, "mandelbrot"),
    (MATMUL, "matmul"),
    (SGEMM_TILED, "sgemm"),
    (REDUCE, "reduce"),
    (HISTOGRAM, "histogram"),
    (compute::NBODY, "nbody"),
    (compute::CONV5X5, "conv5x5"),
    (math::BLACKSCHOLES, "blackscholes"),
    (memory::GATHER, "gather"),
    (memory::STRIDED, "strided"),
    (memory::SAXPY4, "saxpy4"),
];

fn build_source_13(d: &Device) -> Result<Iteration<'_>> {
    let src = BENCH_KERNELS.map(|(s, _)| s).join("\n");
    let mut run = 0u64;
    let stamp = Instant::now().elapsed().as_nanos() ^ u128::from(std::process::id());
    Ok(Box::new(move || {
        run += 1;
        let p = d.program_from_source(&src, &format!("-D BENCH_RUN_{stamp}_{run}"))?;
        // Every kernel made, as a program is before its first launch.
        for (_, k) in BENCH_KERNELS {
            p.kernel(k)?;
        }
        Ok(())
    }))
}

fn build_il(d: &Device) -> Result<Iteration<'_>> {
    if !d.has_il {
        return Err("no SPIR-V input".into());
    }
    let il = spirv_of(VECADD)?;
    Ok(Box::new(move || {
        let p = d.program_from_il(&il)?;
        p.kernel("vecadd").map(drop)
    }))
}

fn launch_empty(d: &Device) -> Result<Iteration<'_>> {
    let p = d.program_from_source(EMPTY, "")?;
    let k = p.kernel("empty")?;
    let b = d.buffer(4, None)?;
    k.buf(0, &b)?;
    Ok(Box::new(move || {
        let _keep = (&p, &b);
        for _ in 0..100 {
            d.enqueue(&k, &[1], None)?;
            d.finish()?;
        }
        Ok(())
    }))
}

fn vecadd(d: &Device) -> Result<Iteration<'_>> {
    let (a, b) = (floats(M16, 1), floats(M16, 2));
    let ba = d.buffer(M16 * 4, Some(bytes_of(&a)))?;
    let bb = d.buffer(M16 * 4, Some(bytes_of(&b)))?;
    let bc = d.buffer(M16 * 4, None)?;
    let p = d.program_from_source(VECADD, "")?;
    let k = p.kernel("vecadd")?;
    k.buf(0, &ba)?.buf(1, &bb)?.buf(2, &bc)?;
    d.enqueue(&k, &[M16], None)?;
    let c = read_f32(d, &bc, M16)?;
    expect(
        c.iter()
            .zip(a.iter().zip(&b))
            .all(|(c, (a, b))| *c == a + b),
        "vecadd",
    )?;
    Ok(Box::new(move || {
        let _keep = (&p, &ba, &bb, &bc);
        d.enqueue(&k, &[M16], None)?;
        d.finish()
    }))
}

/// `clEnqueueCopyBuffer` of 64 MiB between two buffers.
fn copy(d: &Device) -> Result<Iteration<'_>> {
    let data = floats(M16, 5);
    let src = d.buffer(M16 * 4, Some(bytes_of(&data)))?;
    let dst = d.buffer(M16 * 4, None)?;
    d.copy(&src, &dst, M16 * 4)?;
    let out = read_f32(d, &dst, M16)?;
    expect(out == data, "copy")?;
    Ok(Box::new(move || {
        d.copy(&src, &dst, M16 * 4)?;
        d.finish()
    }))
}

/// `clEnqueueFillBuffer` with a 4-byte pattern, as the CTS math tests clear their output
/// buffers before every kernel.
fn fill(d: &Device) -> Result<Iteration<'_>> {
    let b = d.buffer(M16 * 4, None)?;
    let pattern = 0xffff_deadu32.to_ne_bytes();
    d.fill(&b, &pattern, M16 * 4)?;
    expect(
        read_u32(d, &b, M16)?.iter().all(|&v| v == 0xffff_dead),
        "fill",
    )?;
    Ok(Box::new(move || {
        d.fill(&b, &pattern, M16 * 4)?;
        d.finish()
    }))
}

fn saxpy(d: &Device) -> Result<Iteration<'_>> {
    let (x, y) = (floats(M16, 3), floats(M16, 4));
    let bx = d.buffer(M16 * 4, Some(bytes_of(&x)))?;
    let by = d.buffer(M16 * 4, Some(bytes_of(&y)))?;
    let p = d.program_from_source(SAXPY, "")?;
    let k = p.kernel("saxpy")?;
    k.arg(0, &2.0f32)?.buf(1, &bx)?.buf(2, &by)?;
    d.enqueue(&k, &[M16], None)?;
    let out = read_f32(d, &by, M16)?;
    expect(
        out.iter()
            .zip(x.iter().zip(&y))
            .all(|(o, (x, y))| (o - (2.0 * x + y)).abs() <= 1e-4 * o.abs().max(1.0)),
        "saxpy",
    )?;
    Ok(Box::new(move || {
        let _keep = (&p, &bx, &by);
        d.enqueue(&k, &[M16], None)?;
        d.finish()
    }))
}

fn mandelbrot(d: &Device) -> Result<Iteration<'_>> {
    const W: usize = 1024;
    let out = d.buffer(W * W * 4, None)?;
    let p = d.program_from_source(MANDELBROT, "")?;
    let k = p.kernel("mandelbrot")?;
    k.buf(0, &out)?.arg(1, &(W as u32))?.arg(2, &256u32)?;
    d.enqueue(&k, &[W, W], None)?;
    let v = read_u32(d, &out, W * W)?;
    // The point (-0.5, 0) is inside the set, (-2, -1.5) escapes at once.
    expect(v[(W / 2) * W + W / 2] == 256 && v[0] <= 2, "mandelbrot")?;
    Ok(Box::new(move || {
        let _keep = (&p, &out);
        d.enqueue(&k, &[W, W], None)?;
        d.finish()
    }))
}

/// Shared set-up of the two matrix multiplies: n×n inputs, checked on a few entries.
fn matmul_case<'a>(
    d: &'a Device,
    src: &str,
    name: &str,
    local: Option<[usize; 2]>,
) -> Result<Iteration<'a>> {
    const N: usize = 512;
    let (a, b) = (floats(N * N, 5), floats(N * N, 6));
    let ba = d.buffer(N * N * 4, Some(bytes_of(&a)))?;
    let bb = d.buffer(N * N * 4, Some(bytes_of(&b)))?;
    let bc = d.buffer(N * N * 4, None)?;
    let p = d.program_from_source(src, "")?;
    let k = p.kernel(name)?;
    k.buf(0, &ba)?
        .buf(1, &bb)?
        .buf(2, &bc)?
        .arg(3, &(N as u32))?;
    let run = move |k: &Kernel| d.enqueue(k, &[N, N], local.as_ref().map(|l| &l[..]));
    run(&k)?;
    let c = read_f32(d, &bc, N * N)?;
    for &(r, col) in &[(0, 0), (17, 300), (511, 511), (256, 3)] {
        let want: f32 = (0..N).map(|i| a[r * N + i] * b[i * N + col]).sum();
        expect(
            (c[r * N + col] - want).abs() <= 1e-3 * want.abs().max(1.0),
            name,
        )?;
    }
    Ok(Box::new(move || {
        let _keep = (&p, &ba, &bb, &bc);
        run(&k)?;
        d.finish()
    }))
}

fn matmul(d: &Device) -> Result<Iteration<'_>> {
    matmul_case(d, MATMUL, "matmul", None)
}

fn sgemm_tiled(d: &Device) -> Result<Iteration<'_>> {
    matmul_case(d, SGEMM_TILED, "sgemm", Some([16, 16]))
}

fn reduce(d: &Device) -> Result<Iteration<'_>> {
    const LOCAL: usize = 256;
    let x = floats(M16, 7);
    let bx = d.buffer(M16 * 4, Some(bytes_of(&x)))?;
    let groups = M16 / LOCAL;
    let bp = d.buffer(groups * 4, None)?;
    let p = d.program_from_source(REDUCE, "")?;
    let k = p.kernel("reduce")?;
    k.buf(0, &bx)?.buf(1, &bp)?.local(2, LOCAL * 4)?;
    d.enqueue(&k, &[M16], Some(&[LOCAL]))?;
    let partial = read_f32(d, &bp, groups)?;
    let want: f32 = x[..LOCAL].iter().sum();
    expect(
        (partial[0] - want).abs() <= 1e-3 * want.abs().max(1.0),
        "reduce",
    )?;
    Ok(Box::new(move || {
        let _keep = (&p, &bx, &bp);
        d.enqueue(&k, &[M16], Some(&[LOCAL]))?;
        d.finish()
    }))
}

fn histogram(d: &Device) -> Result<Iteration<'_>> {
    const PER_ITEM: usize = 64;
    const LOCAL: usize = 64;
    let data: Vec<u8> = floats(M16, 8).iter().map(|f| (*f * 25.0) as u8).collect();
    let items = M16 / PER_ITEM;
    let bin = d.buffer(M16, Some(&data))?;
    let zeros = vec![0u32; 256];
    let bbins = d.buffer(256 * 4, Some(bytes_of(&zeros)))?;
    let p = d.program_from_source(HISTOGRAM, "")?;
    let k = p.kernel("histogram")?;
    k.buf(0, &bin)?.buf(1, &bbins)?.arg(2, &(PER_ITEM as u32))?;
    d.enqueue(&k, &[items], Some(&[LOCAL]))?;
    let bins = read_u32(d, &bbins, 256)?;
    let mut want = [0u32; 256];
    for &v in &data {
        want[v as usize] += 1;
    }
    expect(bins[..] == want[..], "histogram")?;
    Ok(Box::new(move || {
        let _keep = (&p, &bin, &bbins);
        d.enqueue(&k, &[items], Some(&[LOCAL]))?;
        d.finish()
    }))
}

const CASES: &[Case] = &[
    Case {
        area: "build",
        kernel: "vecadd-source",
        size: "small",
        prepare: build_source,
    },
    Case {
        area: "build",
        kernel: "13-kernels-source",
        size: "small",
        prepare: build_source_13,
    },
    Case {
        area: "build",
        kernel: "vecadd-il",
        size: "small",
        prepare: build_il,
    },
    Case {
        area: "launch",
        kernel: "empty-x100",
        size: "1",
        prepare: launch_empty,
    },
    Case {
        area: "mem",
        kernel: "map-unmap-x100",
        size: "1M",
        prepare: memory::map_unmap,
    },
    Case {
        area: "launch",
        kernel: "enqueue-100x1000",
        size: "64",
        prepare: cmdbuf::enqueue,
    },
    Case {
        area: "launch",
        kernel: "cmdbuf-replay-100x1000",
        size: "64",
        prepare: cmdbuf::replay,
    },
    Case {
        area: "mem",
        kernel: "vecadd",
        size: "16M",
        prepare: vecadd,
    },
    Case {
        area: "mem",
        kernel: "fill",
        size: "16M",
        prepare: fill,
    },
    Case {
        area: "mem",
        kernel: "copy",
        size: "16M",
        prepare: copy,
    },
    Case {
        area: "mem",
        kernel: "gather",
        size: "16M",
        prepare: memory::gather,
    },
    Case {
        area: "mem",
        kernel: "strided",
        size: "16M",
        prepare: memory::strided,
    },
    Case {
        area: "mem",
        kernel: "saxpy-float4",
        size: "16M",
        prepare: memory::saxpy_float4,
    },
    Case {
        area: "mem",
        kernel: "grey-uchar4",
        size: "16M",
        prepare: memory::grey_uchar4,
    },
    Case {
        area: "compute",
        kernel: "saxpy",
        size: "16M",
        prepare: saxpy,
    },
    Case {
        area: "compute",
        kernel: "mandelbrot",
        size: "1024x1024",
        prepare: mandelbrot,
    },
    Case {
        area: "compute",
        kernel: "matmul-naive",
        size: "512",
        prepare: matmul,
    },
    Case {
        area: "compute",
        kernel: "nbody",
        size: "8K",
        prepare: compute::nbody,
    },
    Case {
        area: "compute",
        kernel: "conv5x5",
        size: "2048x2048",
        prepare: compute::conv5x5,
    },
    Case {
        area: "local",
        kernel: "sgemm-tiled",
        size: "512",
        prepare: sgemm_tiled,
    },
    Case {
        area: "local",
        kernel: "reduce",
        size: "16M",
        prepare: reduce,
    },
    Case {
        area: "local",
        kernel: "histogram",
        size: "16M",
        prepare: histogram,
    },
    Case {
        area: "image",
        kernel: "copy",
        size: "2048x2048",
        prepare: image::copy,
    },
    Case {
        area: "image",
        kernel: "blur5x5-linear",
        size: "1024x1024",
        prepare: image::blur,
    },
    Case {
        area: "half",
        kernel: "saxpy",
        size: "16M",
        prepare: half::saxpy,
    },
    Case {
        area: "half",
        kernel: "gemm",
        size: "512",
        prepare: half::gemm,
    },
    Case {
        area: "math",
        kernel: "blackscholes",
        size: "4M",
        prepare: math::blackscholes,
    },
    Case {
        area: "math",
        kernel: "exp",
        size: "16M",
        prepare: math::exp,
    },
    Case {
        area: "math",
        kernel: "log",
        size: "16M",
        prepare: math::log,
    },
    Case {
        area: "math",
        kernel: "sin",
        size: "16M",
        prepare: math::sin,
    },
    Case {
        area: "math",
        kernel: "cos",
        size: "16M",
        prepare: math::cos,
    },
    Case {
        area: "math",
        kernel: "pow",
        size: "16M",
        prepare: math::pow,
    },
    Case {
        area: "math",
        kernel: "erf",
        size: "16M",
        prepare: math::erf,
    },
];

/// Median of repeated runs: at least 3, at most 15, stopping after about a second; after
/// repeating the case for a fifth of a second unmeasured. That warm-up matters on this
/// kind of machine: after the single-threaded set-up (inputs, the host's reference
/// results) the same launch ran 2-3x slower for its first 30-50 ms of repetitions, on
/// every driver alike, which left the medians of fast cases half in that ramp.
fn measure(mut iteration: Iteration<'_>) -> Result<Duration> {
    let warm = Instant::now();
    iteration()?;
    while warm.elapsed() < Duration::from_millis(200) {
        iteration()?;
    }
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < 3 || (times.len() < 15 && start.elapsed() < Duration::from_secs(1)) {
        let t = Instant::now();
        iteration()?;
        times.push(t.elapsed());
    }
    times.sort();
    Ok(times[times.len() / 2])
}

fn short_name(platform: &str) -> String {
    match platform {
        "Portable Computing Language" => "PoCL".into(),
        "Intel(R) OpenCL" => "Intel".into(),
        other => other.to_string(),
    }
}

fn fmt_ms(d: &Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let mut devices = Vec::new();
    for d in cl::devices() {
        match d {
            Ok(d) => devices.push(d),
            Err(e) => eprintln!("skipping a platform: {e}"),
        }
    }
    // Ferrite first, then the peers in a fixed order.
    devices.sort_by_key(|d| match d.platform_name.as_str() {
        "Ferrite" => 0,
        "Portable Computing Language" => 1,
        "Intel(R) OpenCL" => 2,
        _ => 3,
    });
    if devices.first().is_none_or(|d| d.platform_name != "Ferrite") {
        eprintln!(
            "ferrite-bench: the loader shows no Ferrite platform (run it through benches/run)"
        );
        std::process::exit(1);
    }
    let names: Vec<String> = devices
        .iter()
        .map(|d| short_name(&d.platform_name))
        .collect();
    let threads = devices[0].compute_units;
    println!("Times are medians in ms; a ratio is Ferrite's time / the peer's (below 1: Ferrite is faster).");
    println!(
        "Devices: {}",
        devices
            .iter()
            .map(|d| format!(
                "{} ({} compute units)",
                short_name(&d.platform_name),
                d.compute_units
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!();
    let mut header = String::from("| case |");
    for n in &names {
        header.push_str(&format!(" {n} ms |"));
    }
    for n in &names[1..] {
        header.push_str(&format!(" Ferrite/{n} |"));
    }
    println!("{header}");
    println!("|{}", "---|".repeat(1 + 2 * names.len() - 1));
    let mut errors = Vec::new();
    for case in CASES {
        let name = format!("{}/{}/{}/{threads}", case.area, case.kernel, case.size);
        if !name.contains(&filter) {
            continue;
        }
        let times: Vec<Result<Duration>> = devices
            .iter()
            .map(|d| (case.prepare)(d).and_then(measure))
            .collect();
        let mut row = format!("| {name} |");
        for (t, n) in times.iter().zip(&names) {
            match t {
                Ok(t) => row.push_str(&format!(" {} |", fmt_ms(t))),
                Err(e) => {
                    row.push_str(" — |");
                    errors.push(format!("{name} on {n}: {e}"));
                }
            }
        }
        for t in &times[1..] {
            match (&times[0], t) {
                (Ok(f), Ok(p)) => {
                    row.push_str(&format!(" {:.2} |", f.as_secs_f64() / p.as_secs_f64()))
                }
                _ => row.push_str(" — |"),
            }
        }
        println!("{row}");
    }
    if !errors.is_empty() {
        println!();
        println!("Not measured:");
        for e in &errors {
            let first_line = e.lines().take(3).collect::<Vec<_>>().join(" / ");
            println!("- {first_line}");
        }
    }
}
