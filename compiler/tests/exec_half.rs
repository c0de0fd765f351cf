//! Half precision (`cl_khr_fp16`): arithmetic, conversions with every rounding mode,
//! bit casts, half vectors in memory, kernel arguments and the built-ins whose half
//! results differ from their float ones, checked bit for bit against a host reference
//! (every one of the 65,536 halves for the unary operations, pseudo-random triples for
//! the others). The reference rounds exactly in `f64`: each operation of two halves is
//! exact there (or, for division and square root, rounded at 53 bits, which the
//! double-rounding theorem makes harmless at 11).

#[path = "common/harness.rs"]
mod harness;

use harness::{kernel, run1, Args};

/// The `f32` value of half bits `h`.
fn h2f(h: u16) -> f32 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f64::from(h & 0x3ff);
    let v = match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1024.0 + m) * 2f64.powi(e - 25),
    };
    (s * v) as f32
}

/// Half bits of `x` rounded with `mode` (0 to nearest even, 1 toward zero, 2 toward +inf,
/// 3 toward -inf).
fn f2h(x: f64, mode: u8) -> u16 {
    if x.is_nan() {
        return 0x7e00;
    }
    let neg = x.is_sign_negative();
    let sign = if neg { 0x8000 } else { 0 };
    let a = x.abs();
    let away = match mode {
        0 => None,
        1 => Some(false),
        2 => Some(!neg),
        _ => Some(neg),
    };
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    let e = if a < 2f64.powi(-14) {
        -14
    } else {
        ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023
    };
    let unit = 2f64.powi(e - 10);
    let t = a / unit;
    let q = match away {
        None => t.round_ties_even(),
        Some(true) => t.ceil(),
        Some(false) => t.floor(),
    };
    let v = q * unit;
    if v > 65504.0 {
        return sign | if away == Some(false) { 0x7bff } else { 0x7c00 };
    }
    if v < 2f64.powi(-14) {
        return sign | q as u16;
    }
    let e = ((v.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let m = (v / 2f64.powi(e - 10)) as u16 - 1024;
    sign | ((e + 15) as u16) << 10 | m
}

/// A xorshift generator of pseudo-random words.
/// The half bits a float's conversion to half stores (to nearest even): a NaN quieted,
/// keeping its sign, the top 10 payload bits and a low bit for any lower one.
fn stored_half(b: u32) -> u16 {
    let v = f32::from_bits(b);
    if v.is_nan() {
        let abs = (b | 0x0040_0000) & 0x7fff_ffff;
        ((b >> 16) & 0x8000 | 0x7c00 | (abs >> 13) & 0x3ff | u32::from(abs & 0x1fff != 0)) as u16
    } else {
        f2h(f64::from(v), 0)
    }
}

fn xorshift(mut s: u32) -> impl FnMut() -> u32 {
    move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s
    }
}

fn same(a: u16, b: u16) -> bool {
    a == b || (h2f(a).is_nan() && h2f(b).is_nan())
}

#[test]
fn reference_is_exact_on_halves() {
    for h in 0..=u16::MAX {
        let f = h2f(h);
        if !f.is_nan() {
            for mode in 0..4 {
                assert_eq!(f2h(f.into(), mode), h, "{h:#x} mode {mode}");
            }
        }
    }
    assert_eq!(f2h(65520.0, 0), 0x7c00);
    assert_eq!(f2h(65519.0, 0), 0x7bff);
    assert_eq!(f2h(1.0 + 2f64.powi(-11), 0), 0x3c00);
    assert_eq!(f2h(1.0 + 3.0 * 2f64.powi(-11), 0), 0x3c02);
    assert_eq!(f2h(2f64.powi(-25), 0), 0);
    assert_eq!(f2h(3.0 * 2f64.powi(-26), 0), 1);
}

const UNARY: &str = r#"
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    kernel void unary(global const ushort *bits, global ushort *o, global float *f) {
        size_t i = get_global_id(0);
        half x = as_half(bits[i]);
        global ushort *r = o + 14 * i;
        r[0] = as_ushort(sqrt(x));
        r[1] = as_ushort(x * x);
        r[2] = as_ushort((half)((float)x * 3.1f));
        r[3] = as_ushort(convert_half_rtz((float)x * 1.3f));
        r[4] = as_ushort(convert_half_rtp((float)x * 1.3f));
        r[5] = as_ushort(convert_half_rtn((double)x * 1.3));
        r[6] = as_ushort((half)((double)x * 1.7));
        r[7] = isnormal(x) ? 1 : 0;
        r[8] = as_ushort(nextafter(x, (half)0.0h));
        half whole;
        r[9] = as_ushort(fract(x, &whole));
        r[10] = as_ushort(whole);
        r[11] = as_ushort(-x + (half)0.5h);
        ((global half *)r)[12] = ((global const half *)bits)[i];
        r[13] = as_ushort(bitselect(x, (half)-0.5h, as_half((ushort)0x8000)));
        f[i] = x;
    }"#;

#[test]
fn unary_operations_on_every_half() {
    let Some(k) = kernel(UNARY, "unary") else {
        return;
    };
    let mut bits: Vec<u16> = (0..=u16::MAX).collect();
    let n = bits.len();
    let mut o = vec![0u16; 14 * n];
    let mut f = vec![0f32; n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut bits).buf(1, &mut o).buf(2, &mut f);
    run1(&k, &args, n as u64, 64);
    for (i, &h) in bits.iter().enumerate() {
        let x = h2f(h);
        let d = f64::from(x);
        let r = &o[14 * i..14 * i + 14];
        let want = [
            f2h(d.sqrt(), 0),
            f2h(d * d, 0),
            f2h(f64::from(x * 3.1), 0),
            f2h(f64::from(x * 1.3), 1),
            f2h(f64::from(x * 1.3), 2),
            f2h(d * 1.3, 3),
            f2h(d * 1.7, 0),
        ];
        for (k, w) in want.iter().enumerate() {
            assert!(
                same(r[k], *w),
                "op {k} of {h:#06x} ({x:e}): {:#06x} ≠ {w:#06x}",
                r[k]
            );
        }
        let normal = x.is_finite() && x.abs() >= 2f32.powi(-14);
        assert_eq!(r[7], u16::from(normal), "isnormal({x:e})");
        let next = if x.is_nan() {
            None
        } else if x == 0.0 {
            Some(0)
        } else {
            Some(h - 1)
        };
        if let Some(w) = next {
            assert!(
                same(r[8], w) || x == 0.0 && r[8] & 0x7fff == 0,
                "nextafter({x:e})"
            );
        } else {
            assert!(h2f(r[8]).is_nan(), "nextafter(NaN)");
        }
        if x.is_finite() {
            let fl = x.floor();
            let fr = (x - fl).min(f32::from_bits(0x3f7f_e000));
            let fr = if fr == 0.0 { 0f32.copysign(x) } else { fr };
            assert!(
                same(r[9], f2h(fr.into(), 0)),
                "fract({x:e}) = {}",
                h2f(r[9])
            );
            assert!(same(r[10], f2h(fl.into(), 0)), "floor part of {x:e}");
        }
        assert!(same(r[11], f2h(0.5 - d, 0)), "0.5 - {x:e}");
        assert_eq!(r[12], h, "a half moves bit for bit, NaN payloads included");
        // Signalling NaNs included: nothing rounds a bitselect's result.
        assert_eq!(r[13], h | 0x8000, "bitselect of {h:#06x}");
        assert!(f[i] == x || x.is_nan() && f[i].is_nan(), "(float){x:e}");
    }
}

const BINARY: &str = r#"
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    kernel void binary(global const half *x, global const half4 *y, global half *o,
                       global int *c, half s) {
        size_t i = get_global_id(0);
        half a = x[3 * i], b = x[3 * i + 1], z = x[3 * i + 2];
        global half *r = o + 8 * i;
        r[0] = a + b;
        r[1] = a - b;
        r[2] = a * b;
        r[3] = a / b;
        r[4] = fma(a, b, z);
        half t = a * s;
        r[5] = t + b;
        half4 v = y[i] * (half4)(a, b, z, s);
        vstore2(v.lo + v.hi, 3, r);
        c[2 * i] = a < b;
        c[2 * i + 1] = convert_int_sat(a) + (int)(half)(short)(c[2 * i + 1]);
    }"#;

#[test]
fn binary_operations_vectors_and_arguments() {
    let Some(k) = kernel(BINARY, "binary") else {
        return;
    };
    let n = 4096usize;
    let mut next = xorshift(0x9e37_79b9u32);
    // Finite halves of every magnitude, some specials.
    let mut x: Vec<u16> = (0..3 * n).map(|_| next() as u16 & 0xfbff).collect();
    x[..6].copy_from_slice(&[0x7c00, 0x3c00, 0x7bff, 0x7bff, 0x7bff, 0xfc00]);
    let mut y: Vec<u16> = (0..4 * n)
        .map(|_| (next() as u16 & 0x3fff) | 0x2000)
        .collect();
    let mut o = vec![0u16; 8 * n];
    let mut c: Vec<i32> = (0..2 * n)
        .map(|_| (next() % 60000) as i32 - 30000)
        .collect();
    let ints = c.clone();
    let sbits = 0xc500u16; // -5.0
    let mut args = Args::new(&k.info);
    args.buf(0, &mut x)
        .buf(1, &mut y)
        .buf(2, &mut o)
        .buf(3, &mut c)
        .val(4, sbits);
    run1(&k, &args, n as u64, 64);
    let sv = f64::from(h2f(sbits));
    for i in 0..n {
        let (a, b, z) = (
            f64::from(h2f(x[3 * i])),
            f64::from(h2f(x[3 * i + 1])),
            f64::from(h2f(x[3 * i + 2])),
        );
        let r = &o[8 * i..8 * i + 8];
        let ab = f64::from(h2f(f2h(a * sv, 0)));
        let yv: Vec<f64> = (0..4).map(|k| f64::from(h2f(y[4 * i + k]))).collect();
        let v: Vec<f64> = [a, b, z, sv]
            .iter()
            .zip(&yv)
            .map(|(p, q)| f64::from(h2f(f2h(p * q, 0))))
            .collect();
        let want = [
            f2h(a + b, 0),
            f2h(a - b, 0),
            f2h(a * b, 0),
            f2h(a / b, 0),
            f2h(a.mul_add(b, z), 0),
            f2h(ab + b, 0),
            f2h(v[0] + v[2], 0),
            f2h(v[1] + v[3], 0),
        ];
        for (k, w) in want.iter().enumerate() {
            assert!(
                same(r[k], *w),
                "op {k} of ({a:e}, {b:e}, {z:e}): {:#06x} ≠ {w:#06x}",
                r[k]
            );
        }
        assert_eq!(c[2 * i], i32::from(a < b), "{a:e} < {b:e}");
        let sat = a as i32;
        let short = ints[2 * i + 1] as i16;
        let back = h2f(f2h(f64::from(short), 0)) as i32;
        assert_eq!(
            c[2 * i + 1],
            sat.wrapping_add(back),
            "convert_int_sat({a:e})"
        );
    }
}

const VECTORISED: &str = r#"
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    kernel void vectorised(global const half *x, global half4 *y, global half *o,
                           global ushort *u, global float *f, global uint *w, half s) {
        size_t i = get_global_id(0);
        half a = x[i];
        half acc = (half)0.0h;
        for (int k = 0; k < (int)(i % 7); k++) {
            half t = acc * a;
            acc = t + (half)k;
        }
        half4 v = y[i];
        half4 t = v * a;
        y[i] = t + (half4)(s);
        acc = fma(acc, a, s);
        o[i] = a > (half)0.0h ? exp(a) : acc - sqrt(-a);
        u[i] = as_ushort((half)(a * s));
        f[i] = convert_float(a) + (float)as_half((ushort)(i & 0x7bff));
        w[i] = as_uint((half2)(a, as_half2((uint)i * 0x10001u & 0x3bff3bffu).y)) + 1u;
    }"#;

#[test]
fn vectorised_kernels_keep_half_results() {
    let Some(k) = kernel(VECTORISED, "vectorised") else {
        return;
    };
    let n = 4096usize;
    let mut next = xorshift(0x2545_f491u32);
    // Finite halves below 16 in magnitude: exp stays finite.
    let mut x: Vec<u16> = (0..n).map(|_| next() as u16 & 0xcbff).collect();
    let mut y: Vec<u16> = (0..4 * n).map(|_| next() as u16 & 0xbbff).collect();
    let y0 = y.clone();
    let mut o = vec![0u16; n];
    let mut u = vec![0u16; n];
    let mut f = vec![0f32; n];
    let mut w = vec![0u32; n];
    let sbits = 0x3e00u16; // 1.5
    let mut args = Args::new(&k.info);
    args.buf(0, &mut x)
        .buf(1, &mut y)
        .buf(2, &mut o)
        .buf(3, &mut u)
        .buf(4, &mut f)
        .buf(5, &mut w)
        .val(6, sbits);
    run1(&k, &args, n as u64, 64);
    let sv = f64::from(h2f(sbits));
    let r = |v: f64| f64::from(h2f(f2h(v, 0)));
    for i in 0..n {
        let a = f64::from(h2f(x[i]));
        for c in 0..4 {
            let v = f64::from(h2f(y0[4 * i + c]));
            let want = f2h(r(v * a) + sv, 0);
            assert!(same(y[4 * i + c], want), "y[{i}].{c}");
        }
        let mut acc = 0.0;
        for k in 0..(i % 7) {
            acc = r(r(acc * a) + k as f64);
        }
        let acc = r(acc.mul_add(a, sv));
        if a <= 0.0 {
            assert!(same(o[i], f2h(acc - r((-a).sqrt()), 0)), "o[{i}] for {a:e}");
        }
        assert_eq!(u[i], f2h(a * sv, 0), "u[{i}]");
        let g = h2f((i & 0x7bff) as u16);
        assert_eq!(f[i], h2f(x[i]) + g, "f[{i}]");
        let packed = u32::from(x[i]) | ((i as u32 & 0x3bff) << 16);
        assert_eq!(w[i], packed + 1, "as_uint(half2) and back at {i}");
    }
}

const MOVES: &str = r#"
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    kernel void moves(global const half *x, global half *y, global const uint *f,
                      global half *z, global const half *m, global half *p,
                      global half *q) {
        size_t i = get_global_id(0);
        y[i] = x[i];
        z[i] = (half)as_float(f[i]);
        p[i] = x[i] * m[i];
        q[i] = x[i] + m[i];
    }"#;

/// Consecutive half loads and stores (whole vectors: by F16C where the processor has
/// it, `builtins/half_lanes.rs`, else inline) move every half bit for bit, signalling
/// NaNs included, and store NaN floats converted to half as the scalar code does (quiet,
/// sign, the top 10 payload bits, a low bit for any lower one); products and sums stored
/// straight away (narrowed from `f32` unrounded where F16C rounds them) are the
/// correctly rounded halves, subnormal, overflowing and tied ones included.
#[test]
fn vectorised_half_moves_keep_every_bit() {
    let Some(k) = kernel(MOVES, "moves") else {
        return;
    };
    assert!(k.handler.lanes > 1, "{}", k.handler.note);
    let n = 1usize << 16;
    let mut x: Vec<u16> = (0..=u16::MAX).collect();
    let mut y = vec![0u16; n];
    // NaN floats of both signs, quiet and signalling, with low payload bits or not;
    // between them halves' floats and values that round.
    let mut next = xorshift(0x9e37_79b9);
    let mut f: Vec<u32> = (0..n)
        .map(|i| match i % 4 {
            0 => 0x7f80_0000 | (next() & 0x7f_ffff).max(1),
            1 => 0xff80_0000 | (next() & 0x7f_ffff).max(1),
            2 => h2f(next() as u16 & 0x7bff).to_bits(),
            _ => next() & 0x477f_ffff,
        })
        .collect();
    let mut z = vec![0u16; n];
    let mut m: Vec<u16> = (0..n).map(|_| next() as u16).collect();
    let (mut pr, mut sm) = (vec![0u16; n], vec![0u16; n]);
    let mut args = Args::new(&k.info);
    args.buf(0, &mut x)
        .buf(1, &mut y)
        .buf(2, &mut f)
        .buf(3, &mut z)
        .buf(4, &mut m)
        .buf(5, &mut pr)
        .buf(6, &mut sm);
    run1(&k, &args, n as u64, 64);
    for i in 0..n {
        let (a, b) = (f64::from(h2f(x[i])), f64::from(h2f(m[i])));
        for (got, exact, op) in [(pr[i], a * b, "*"), (sm[i], a + b, "+")] {
            if exact.is_nan() {
                assert!(h2f(got).is_nan(), "{a:e} {op} {b:e}: {got:#06x}");
            } else {
                assert!(same(got, f2h(exact, 0)), "{a:e} {op} {b:e}: {got:#06x}");
            }
        }
    }
    for (i, (&h, &g)) in x.iter().zip(&y).enumerate() {
        assert_eq!(g, h, "half {i:#06x} moved");
    }
    for (&b, &g) in f.iter().zip(&z) {
        // The conversion quiets a signalling NaN, as IEEE 754 asks.
        let v = f32::from_bits(b);
        assert_eq!(g, stored_half(b), "(half){v:e} ({b:#010x})");
    }
}

const VLOAD_HALF: &str = r#"
    kernel void vlh(global const half *h, global float *o, global const float *x,
                    global half *s, global half *g) {
        size_t i = get_global_id(0);
        o[2 * i] = vload_half(i, h);
        o[2 * i + 1] = vload_half(0, h + ((i * 7919) & 0xffff));
        vstore_half(x[i], i, s);
        if (i % 3 != 0)
            vstore_half_rte(x[i] * 3.0f, i, g);
    }"#;

/// `vload_half` and `vstore_half` (`vstore_half_rte`) no longer make a kernel scalar
/// (`vector/half.rs` `half_memory`): every half's bits loaded consecutively and gathered,
/// floats (NaN, overflowing, subnormal, tied) stored rounded to nearest even, and under a
/// divergent branch only by the active work-items.
#[test]
fn vectorised_vload_half_and_vstore_half() {
    let Some(k) = kernel(VLOAD_HALF, "vlh") else {
        return;
    };
    assert!(k.handler.lanes > 1, "{}", k.handler.note);
    let n = 1usize << 16;
    let mut h: Vec<u16> = (0..=u16::MAX).collect();
    let mut o = vec![0f32; 2 * n];
    let mut next = xorshift(0x1234_5677);
    let mut x: Vec<u32> = (0..n)
        .map(|i| match i % 4 {
            0 => h2f(next() as u16).to_bits(),
            1 => next() & 0x47ff_ffff,
            2 => next() & 0x38ff_ffff,
            _ => next(),
        })
        .collect();
    let mut s = vec![0u16; n];
    let mut g = vec![0x5555u16; n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut h)
        .buf(1, &mut o)
        .buf(2, &mut x)
        .buf(3, &mut s)
        .buf(4, &mut g);
    run1(&k, &args, n as u64, 64);
    let bits = |v: f32| v.to_bits();
    for i in 0..n {
        let want = h2f(i as u16);
        let gi = (i * 7919) & 0xffff;
        if want.is_nan() {
            assert!(o[2 * i].is_nan(), "vload_half of {i:#06x}");
        } else {
            assert_eq!(bits(o[2 * i]), bits(want), "vload_half of {i:#06x}");
            let wg = h2f(gi as u16);
            if !wg.is_nan() {
                assert_eq!(bits(o[2 * i + 1]), bits(wg), "gathered vload_half at {i}");
            }
        }
        assert_eq!(
            s[i],
            stored_half(x[i]),
            "vstore_half of {:e}",
            f32::from_bits(x[i])
        );
        if i % 3 != 0 {
            let v = f32::from_bits(x[i]) * 3.0;
            assert_eq!(
                g[i],
                stored_half(v.to_bits()),
                "masked vstore_half_rte of {v:e}"
            );
        } else {
            assert_eq!(g[i], 0x5555, "inactive work-item {i} stored");
        }
    }
}

const VLOAD_HALFN: &str = r#"
    kernel void vlhn(global const half *h, global float4 *o, global const float4 *x,
                     global half *s, global half *a) {
        size_t i = get_global_id(0);
        float4 v = vload_half4(i, h);
        float3 w = vloada_half3(i, h);
        o[2 * i] = v;
        o[2 * i + 1] = (float4)(w, vload_half2(i, h).y);
        vstore_half4(x[i], i, s);
        if (i % 3 != 0)
            vstorea_half3_rte(x[i].xyz * 3.0f, i, a);
    }"#;

/// `vload_half4`, `vloada_half3`, `vload_half2`, `vstore_half4` and `vstorea_half3_rte` of
/// `float` lanes, vectorised (`vector/half.rs` `half_memory`): each component's half at
/// `p + n·i + k` (4 halves a step for the aligned 3), stored rounded to nearest even, and
/// under a divergent branch only by the active work-items.
#[test]
fn vectorised_vload_halfn_and_vstore_halfn() {
    let Some(k) = kernel(VLOAD_HALFN, "vlhn") else {
        return;
    };
    assert!(k.handler.lanes > 1, "{}", k.handler.note);
    let n = 1usize << 14;
    let mut h: Vec<u16> = (0..=u16::MAX).collect();
    let mut o = vec![0f32; 8 * n];
    let mut next = xorshift(0x7654_3211);
    let mut x: Vec<u32> = (0..4 * n)
        .map(|i| match i % 3 {
            0 => h2f(next() as u16).to_bits(),
            1 => next() & 0x47ff_ffff,
            _ => next(),
        })
        .collect();
    let mut s = vec![0u16; 4 * n];
    let mut a = vec![0x5555u16; 4 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut h)
        .buf(1, &mut o)
        .buf(2, &mut x)
        .buf(3, &mut s)
        .buf(4, &mut a);
    run1(&k, &args, n as u64, 64);
    let same =
        |got: f32, want: f32| got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan();
    for i in 0..n {
        let loaded = [
            h2f((4 * i) as u16),
            h2f((4 * i + 1) as u16),
            h2f((4 * i + 2) as u16),
            h2f((4 * i + 3) as u16),
            h2f((4 * i) as u16),
            h2f((4 * i + 1) as u16),
            h2f((4 * i + 2) as u16),
            h2f((2 * i + 1) as u16),
        ];
        for (c, want) in loaded.iter().enumerate() {
            assert!(
                same(o[8 * i + c], *want),
                "load {c} of item {i}: {} vs {want}",
                o[8 * i + c]
            );
        }
        for c in 0..4 {
            let v = f32::from_bits(x[4 * i + c]);
            assert_eq!(
                s[4 * i + c],
                stored_half(v.to_bits()),
                "vstore_half4 of {v:e} ({i}.{c})"
            );
        }
        for c in 0..4 {
            let got = a[4 * i + c];
            if i % 3 != 0 && c < 3 {
                let v = f32::from_bits(x[4 * i + c]) * 3.0;
                assert_eq!(
                    got,
                    stored_half(v.to_bits()),
                    "vstorea_half3_rte of {v:e} ({i}.{c})"
                );
            } else {
                assert_eq!(got, 0x5555, "item {i}.{c} stored");
            }
        }
    }
}

/// `vstore_half_rtz`/`_rtp`/`_rtn` and `vstore_half4_rtp` in a vector loop, one of them
/// under a divergent branch: each lane rounded as the scalar code rounds it (every width
/// is held to the reference shape), checked here on values halfway between two halves
/// and past the largest one, where the three roundings part.
#[test]
fn vectorised_vstore_half_directed_roundings() {
    let src = "kernel void k(global const float *x, global ushort *z, global ushort *p,
                           global ushort *m, global ushort *q) {
            size_t i = get_global_id(0);
            float v = x[i];
            vstore_half_rtz(v, i, (global half *)z);
            vstore_half_rtp(v, i, (global half *)p);
            if (i % 3 != 2) vstore_half_rtn(v, i, (global half *)m);
            vstore_half4_rtp((float4)(v, -v, v * 0.5f, 1.0f), i, (global half *)q);
        }";
    let Some(k) = kernel(src, "k") else {
        return;
    };
    assert!(k.handler.lanes > 1, "{}", k.handler.note);
    let n = 1000usize;
    let half_way = 1.0f32 + 1.0 / 2048.0;
    let special = [half_way, -half_way, 70000.0, -70000.0];
    let mut next = xorshift(0x0bad_cafe);
    let mut x: Vec<f32> = (0..n)
        .map(|i| match special.get(i % 8) {
            Some(v) => *v,
            None => f32::from_bits(next() & 0xc7ff_ffff),
        })
        .collect();
    let (mut z, mut p, mut q) = (vec![0u16; n], vec![0u16; n], vec![0u16; 4 * n]);
    let mut m = vec![0x5555u16; n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut x)
        .buf(1, &mut z)
        .buf(2, &mut p)
        .buf(3, &mut m)
        .buf(4, &mut q);
    run1(&k, &args, n as u64, 100);
    // (rtz, rtp, rtn) of each special value.
    let want = [
        (0x3c00, 0x3c01, 0x3c00),
        (0xbc00, 0xbc00, 0xbc01),
        (0x7bff, 0x7c00, 0x7bff),
        (0xfbff, 0xfbff, 0xfc00),
    ];
    for i in (0..n).filter(|i| i % 8 < 4) {
        let (wz, wp, wn) = want[i % 8];
        assert_eq!((z[i], p[i]), (wz, wp), "rtz, rtp of {:e} at {i}", x[i]);
        let wn = if i % 3 == 2 { 0x5555 } else { wn };
        assert_eq!(m[i], wn, "masked rtn of {:e} at {i}", x[i]);
        assert_eq!(
            (q[4 * i], q[4 * i + 3]),
            (wp, 0x3c00),
            "vstore_half4_rtp at {i}"
        );
    }
}
