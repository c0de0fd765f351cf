//! The single-precision math that runs at full SIMD width: algorithms in `f32` lanes
//! written once over [`Lanes`] (so the scalar built-in, the 4- and 8-lane entry points and
//! the plain build give the same bits), for the functions kernels spend their time in.
//! The rest stays in [`super::vmath`] (double precision, rounded once).
//!
//! # Why `f32` here
//! [`super::vmath`] evaluates in double: simple and correctly rounded, but 4 lanes per AVX2
//! register and a conversion each way, about 1 ns per element at best, which is slower
//! than a Black-Scholes kernel's memory traffic on Intel's runtime. In `f32` an 8-lane
//! call is one register, and the OpenCL full-profile bounds (3 ulp for `exp`/`log`, 4 for
//! `sin`/`cos`, 16 for `erf`/`erfc`) leave room for well-known `f32` algorithms:
//! - `exp`, `exp2`, `exp10`: Cody–Waite reduction by ln 2 in two parts with fused
//!   multiply-adds, SLEEF's degree-7 polynomial (`xexpf`, 1 ulp), and the scaling by 2ⁿ
//!   in two steps so that subnormal results are rounded once;
//! - `log`, `log2`, `log10`: fdlibm/musl's `logf`, `log2f`, `log10f` (no table; reduction
//!   to [√½, √2), `s = f/(2+f)`, a degree-8 polynomial in s, the result summed in hi/lo
//!   parts; below 1 ulp), with subnormal inputs scaled by 2²⁵ first;
//! - `sin`, `cos`: reduction by π in four parts (SLEEF's constants, exact products for
//!   |x| < 39000), Taylor series of `sin` to r¹³ on [-π/2, π/2] (truncation below 10⁻⁹);
//!   `cos x = ±sin(x − (n+½)π)` so no result comes from a cancellation. Lanes with
//!   |x| ≥ 39000 (or infinite, NaN) take [`super::vmath`]'s exact reduction, lane by
//!   lane, only when there are some;
//! - `erf`, `erfc`: `erfc a = e^(−a²)·erfcx(a)`, erfcx a degree-7 polynomial per
//!   sixteenth of [0, 10] picked by table lookup (no division, no cancellation: erfcx
//!   runs from 1 to 0.056), `a²` split exactly in two parts (`fma`) so `e^(−a²)` keeps
//!   its accuracy where it is tiny; `erf` is `a·P(a)` with a
//!   degree-6 polynomial per quarter of [0, 4] picked by table lookup (SVML's shape);
//! - `tanh`: the Taylor series below 0.625, `1 − 2/(e^(2|x|) + 1)` above;
//! - `pow`: `log₂|x|` in two `f32` parts (fdlibm's reduction, the `atanh` series with `s`
//!   carried in two parts), the product with `y` in two parts, then the `exp` core.
//!
//! The exhaustive test (`vector_tests.rs`, `exhaustive_unary`, every `f32` input against
//! glibc's double functions) gives the maximum errors quoted in each function's comment.

use super::simd::{poly, poly4, Lanes};
use super::vmath;

const LOG2E: f32 = std::f32::consts::LOG2_E;
/// ln 2 in two parts, the first with 15 significant bits (`n × L2U` exact for |n| < 2⁹).
const L2U: f32 = f32::from_bits(0x3f31_7200); // 0.693145751953125
const L2L: f32 = f32::from_bits(0x35bf_be8e); // 1.4286068e-6
const LN2: f32 = std::f32::consts::LN_2;
const LN10: f32 = std::f32::consts::LN_10;
/// log₁₀ 2 in two parts, the first with 13 significant bits.
const LOG10_2_HI: f32 = f32::from_bits(0x3e9a_2000);
const LOG10_2_LO: f32 = (std::f64::consts::LOG10_2 - 0.301_025_390_625) as f32;
const LOG2_10: f32 = std::f32::consts::LOG2_10;

// ---- exponentials ----------------------------------------------------------------------

/// `e^r · 2^q` for |r| ≤ ~0.35 and integral `q` in [−153, 153]: SLEEF's `xexpf` polynomial
/// and the scaling rounded once ([`Lanes::scale`]), so a subnormal result is rounded once
/// and 2¹²⁸ overflows to ∞.
#[inline(always)]
fn exp_scaled<V: Lanes>(r: V, q: V) -> V {
    let u = poly(
        r,
        &[
            1.985_276_2e-4,
            1.393_043_6e-3,
            8.333_361e-3,
            4.166_648_5e-2,
            0.166_666_67,
            0.5,
        ],
    );
    r.mul(r).fma(u, r).add(V::splat(1.0)).scale(q)
}

/// eˣ. Exhaustive maximum error: see the module documentation.
#[inline(always)]
pub fn exp<V: Lanes>(x: V) -> V {
    // Vectors with no NaN and no lane whose result is +0 (most) need neither mask: the
    // same bits in fewer instructions.
    if !x.lt(V::splat(-104.0)).or(x.is_nan()).any() {
        let (r, q) = exp_reduce(x.min(V::splat(89.0)));
        return exp_scaled(r, q);
    }
    let (zero, c) = exp_domain(x, -104.0, 89.0);
    let (r, q) = exp_reduce(c);
    x.is_nan().select(x, zero.andnot(exp_scaled(r, q)))
}

/// `(r, q)` with eˣ = e^r·2^q, q integral and |r| ≤ ~0.35, for x in [−104, 89]:
/// Cody–Waite reduction by ln 2 in two parts.
#[inline(always)]
fn exp_reduce<V: Lanes>(x: V) -> (V, V) {
    let q = x.mul(V::splat(LOG2E)).round();
    let r = q.fma(V::splat(-L2U), x);
    (q.fma(V::splat(-L2L), r), q)
}

/// The argument of an exponential clamped to `[lo, hi]`, and the lanes below `lo`, whose
/// result is +0: those compute on 0 instead (see [`underflow_free`]) and the caller clears
/// their results (`zero.andnot(r)`). Above `hi` the result overflows to ∞.
#[inline(always)]
fn exp_domain<V: Lanes>(x: V, lo: f32, hi: f32) -> (V, V) {
    let zero = x.lt(V::splat(lo));
    let c = underflow_free(zero, x).max(V::splat(lo)).min(V::splat(hi));
    (zero, c)
}

/// `x` with the lanes of `zero` (lanes whose result is known to be +0) replaced by 0, for
/// an algorithm to compute on instead. On x86 every instruction whose result underflows
/// to a subnormal or to zero takes a microcode assist (over a hundred cycles) unless
/// flush-to-zero is on, which OpenCL's denormal support rules out: `erfc` of arguments
/// past 10 ran five times slower than of ordinary ones. The caller clears those lanes'
/// results afterwards (`zero.andnot(r)`); only the inputs whose results really are
/// subnormal still pay.
#[inline(always)]
fn underflow_free<V: Lanes>(zero: V, x: V) -> V {
    zero.andnot(x)
}

/// 2ˣ: `x = q + s` exactly, `e^(s ln 2)`.
#[inline(always)]
pub fn exp2<V: Lanes>(x: V) -> V {
    let (zero, c) = exp_domain(x, -151.0, 129.0);
    let q = c.round();
    let r = c.sub(q).mul(V::splat(LN2));
    x.is_nan().select(x, zero.andnot(exp_scaled(r, q)))
}

/// 10ˣ: `x = q·log₁₀2 + s` (two-part constant), `e^(s ln 10)`.
#[inline(always)]
pub fn exp10<V: Lanes>(x: V) -> V {
    let (zero, c) = exp_domain(x, -46.0, 39.0);
    let q = c.mul(V::splat(LOG2_10)).round();
    let s = q.fma(V::splat(-LOG10_2_HI), c);
    let s = q.fma(V::splat(-LOG10_2_LO), s);
    x.is_nan()
        .select(x, zero.andnot(exp_scaled(s.mul(V::splat(LN10)), q)))
}

// ---- logarithms ------------------------------------------------------------------------

/// fdlibm's `logf` polynomial: `(log(1+s) − log(1−s))/s ≈ 2 + Lg1 s² + …`,
/// |error| < 2⁻³⁴·²⁴.
const LG1: f32 = 11_184_810.0 / 16_777_216.0;
const LG2: f32 = 13_422_099.0 / 33_554_432.0;
const LG3: f32 = 9_562_606.0 / 33_554_432.0;
const LG4: f32 = 16_293_414.0 / 67_108_864.0;

/// The reduction of a logarithm: `x = 2^k (1 + f)`, 1 + f in [√½, √2), with `hfsq = f²/2`
/// and `sr = s(hfsq + R)` (so `log(1 + f) = f − hfsq + sr`). For positive normal and
/// subnormal `x`; other lanes give garbage the caller replaces.
#[inline(always)]
fn log_reduce<V: Lanes>(x: V) -> (V, V, V, V) {
    let tiny = x.lt(V::splat(f32::MIN_POSITIVE));
    let x = tiny.select(x.mul(V::splat(33_554_432.0)), x);
    let ix = x.iadd(V::splat_i(0x3f80_0000 - 0x3f35_04f3));
    let k = ix
        .sar::<23>()
        .isub(V::splat_i(0x7f))
        .to_f()
        .sub(tiny.and(V::splat(25.0)));
    let m = ix
        .and(V::splat_bits(0x007f_ffff))
        .iadd(V::splat_i(0x3f35_04f3));
    let f = m.sub(V::splat(1.0));
    let s = f.div(f.add(V::splat(2.0)));
    let z = s.mul(s);
    let w = z.mul(z);
    let t1 = w.mul(w.fma(V::splat(LG4), V::splat(LG2)));
    let t2 = z.mul(w.fma(V::splat(LG3), V::splat(LG1)));
    let r = t2.add(t1);
    let hfsq = V::splat(0.5).mul(f).mul(f);
    (k, f, hfsq, s.mul(hfsq.add(r)))
}

/// The special values of a logarithm: −∞ at ±0, NaN below 0 and at NaN, +∞ at +∞.
#[inline(always)]
fn log_specials<V: Lanes>(x: V, r: V) -> V {
    let r = x.eq(V::splat(0.0)).select(V::splat(f32::NEG_INFINITY), r);
    let r = x.eq(V::splat(f32::INFINITY)).select(x, r);
    x.lt(V::splat(0.0))
        .or(x.is_nan())
        .select(V::splat(f32::NAN), r)
}

/// Rows of sixteen coefficients for [`Lanes::lookup`], each row one 64-byte line: a
/// `vpermps` of a row that straddled two lines (the arrays' own alignment is 4) was a
/// split load, three per `pow` call.
#[repr(C, align(64))]
struct Rows<const N: usize>([[f32; 16]; N]);

/// The bits [`log`] subtracts from x's: z in [0.699, 1.398) and its sixteenth `i` follow.
const LOG_OFF: u32 = 0x3f33_0000;

/// Per sixteenth `i` of [0.699, 1.398) (z's bits from [`LOG_OFF`] on, 2¹⁹ each): 1/c
/// rounded to `f32` (c about the middle of the sixteenth; exactly 1 in the one holding
/// 1), then ln(1/(1/c)) as `hi + lo`, `hi` a multiple of 2⁻¹⁷ (16 bits at most, so
/// `k·LN2_HI + hi` is exact for every exponent `k`). Computed with mpmath at 50 digits:
/// `c = 1/invc` exactly, `hi = round(ln c · 2¹⁷)/2¹⁷`, `lo = f32(ln c − hi)`.
#[rustfmt::skip]
static LOG_T: Rows<3> = Rows([
    [
        1.3989071, 1.3403141, 1.2864321, 1.236715, 1.1906977, 1.1479821, 1.1082251, 1.0711297,
        1.0364373, 1.0, 0.94814813, 0.8951049, 0.8476821, 0.8050314, 0.7664671, 0.73142856,
    ],
    [
        -0.33569336, -0.2929077, -0.2518692, -0.21245575, -0.17453766, -0.13800812, -0.102760315,
        -0.06871033, -0.03578949, 0.0, 0.053245544, 0.110816956, 0.16525269, 0.21687317,
        0.2659607, 0.3127594,
    ],
    [
        2.095211e-06, 3.6881663e-06, -3.4073846e-06, -2.8881982e-06, -1.7539352e-06,
        2.3943649e-06, 5.8191495e-07, -3.5397882e-06, 3.5674879e-07, 0.0, -1.0122196e-06,
        -2.5780503e-06, -3.1117202e-06, 8.0381426e-07, 2.817885e-06, -3.6787e-06,
    ],
]);

/// x = 2ᵏ·z for positive normal and subnormal `x` (subnormals scaled by 2²⁵ first): `k`
/// as a float, z in [0.699, 1.398), and z's sixteenth `i` (the row of [`LOG_T`]). Other
/// lanes give garbage the caller replaces. `SUBNORMALS` false: for vectors of positive
/// normal numbers only, the same results without the scaling.
#[inline(always)]
fn log_split<V: Lanes, const SUBNORMALS: bool>(x: V) -> (V, V, V) {
    let (xs, tiny) = if SUBNORMALS {
        let tiny = x.lt(V::splat(f32::MIN_POSITIVE));
        (tiny.select(x.mul(V::splat(33_554_432.0)), x), Some(tiny))
    } else {
        (x, None)
    };
    let tmp = xs.isub(V::splat_bits(LOG_OFF));
    let i = tmp.sar::<19>().and(V::splat_bits(15));
    let k = tmp.sar::<23>().to_f();
    let k = tiny.map_or(k, |tiny| k.sub(tiny.and(V::splat(25.0))));
    (k, i, xs.isub(tmp.and(V::splat_bits(0xff80_0000))))
}

/// Whether every lane is a positive normal number (no zero, subnormal, negative, infinite
/// or NaN lane): `x − x` is NaN exactly at the infinities and NaNs.
#[inline(always)]
fn all_positive_normal<V: Lanes>(x: V) -> bool {
    !x.lt(V::splat(f32::MIN_POSITIVE))
        .or(x.sub(x).is_nan())
        .any()
}

/// ln x = k·ln 2 + ln c + log1p(r), x = 2^k·z with z in [0.699, 1.398), c from z's
/// sixteenth ([`LOG_T`]) and r = z/c − 1 (one `fma`; |r| < 0.03, and exactly z − 1 in
/// the sixteenth around 1, so nothing cancels there). log1p(r) = r + r²·q(r), q the
/// Taylor series to r³ (its remainder r⁶/6 is below 0.05 ulp of the result). `k·LN2_HI +
/// hi` is exact; the error is mostly the last two additions' roundings: at most 1.19 ulp
/// over every `f32` (at 0.97992116, where `hi` and `r` cancel most; the bound is 3). No
/// division, unlike fdlibm's `logf` (which [`log2`] and [`log10`] still use), whose one
/// `vdivps` cost a 16-lane call about as much as all its other instructions.
#[inline(always)]
pub fn log<V: Lanes>(x: V) -> V {
    // Vectors of positive normal numbers (most) skip the scaling of subnormals and the
    // special values: the same bits in fewer instructions.
    if all_positive_normal(x) {
        return log_core(log_split::<V, false>(x));
    }
    log_specials(x, log_core(log_split::<V, true>(x)))
}

/// [`log`] of the lanes [`log_split`] gives.
#[inline(always)]
fn log_core<V: Lanes>((k, i, z): (V, V, V)) -> V {
    const LN2_HI: f32 = f32::from_bits(0x3f31_7180);
    const LN2_LO: f32 = f32::from_bits(0x3717_f7d1);
    let r = z.fma(i.lookup(&LOG_T.0[0]), V::splat(-1.0));
    let hi = k.fma(V::splat(LN2_HI), i.lookup(&LOG_T.0[1]));
    let lo = k.fma(V::splat(LN2_LO), i.lookup(&LOG_T.0[2]));
    let q = r
        .fma(V::splat(0.2), V::splat(-0.25))
        .fma(r, V::splat(1.0 / 3.0))
        .fma(r, V::splat(-0.5));
    let t = r.mul(r).fma(q, lo).add(r);
    hi.add(t)
}

/// `(hi, lo)` with `hi + lo = f − hfsq + sr` and `hi` holding the upper 12 bits of
/// `f − hfsq` (fdlibm `log2f`/`log10f`).
#[inline(always)]
fn log_hi_lo<V: Lanes>(f: V, hfsq: V, sr: V) -> (V, V) {
    let hi = f.sub(hfsq).and(V::splat_bits(0xffff_f000));
    let lo = f.sub(hi).sub(hfsq).add(sr);
    (hi, lo)
}

/// log₂ x (fdlibm `log2f`).
#[inline(always)]
pub fn log2<V: Lanes>(x: V) -> V {
    const IVLN2HI: f32 = f32::from_bits(0x3fb8_b000);
    const IVLN2LO: f32 = f32::from_bits(0xb938_9ad4);
    let (k, f, hfsq, sr) = log_reduce(x);
    let (hi, lo) = log_hi_lo(f, hfsq, sr);
    let r = lo.add(hi).mul(V::splat(IVLN2LO));
    let r = lo.fma(V::splat(IVLN2HI), r);
    let r = hi.fma(V::splat(IVLN2HI), r);
    log_specials(x, r.add(k))
}

/// log₁₀ x (fdlibm `log10f`).
#[inline(always)]
pub fn log10<V: Lanes>(x: V) -> V {
    const IVLN10HI: f32 = f32::from_bits(0x3ede_6000);
    const IVLN10LO: f32 = f32::from_bits(0xb804_ead9);
    const LOG10_2HI: f32 = f32::from_bits(0x3e9a_2080);
    const LOG10_2LO: f32 = f32::from_bits(0x3554_27db);
    let (k, f, hfsq, sr) = log_reduce(x);
    let (hi, lo) = log_hi_lo(f, hfsq, sr);
    let r = k.mul(V::splat(LOG10_2LO));
    let r = lo.add(hi).fma(V::splat(IVLN10LO), r);
    let r = lo.fma(V::splat(IVLN10HI), r);
    let r = hi.fma(V::splat(IVLN10HI), r);
    log_specials(x, k.fma(V::splat(LOG10_2HI), r))
}

// ---- sine, cosine ---------------------------------------------------------------------

/// π in four parts (SLEEF's `PI_A_F` … `PI_D_F`): the first three have at most 9
/// significant bits, so `q × part` is exact for |q| < 2¹⁵; the sum is π within 2.5·10⁻¹⁸.
const PI_A: f32 = f32::from_bits(0x4049_0000); // 3.140625
const PI_B: f32 = f32::from_bits(0x3a7d_8000); // 9.670257568359375e-4
const PI_C: f32 = f32::from_bits(0x3528_8000); // 6.2771141529083251953e-7
const PI_D: f32 = f32::from_bits(0x2f05_a309); // 1.2154201e-10
/// Beyond this magnitude the four-part reduction is not exact enough.
const TRIG_MAX: f32 = 39_000.0;

/// sin r for |r| ≤ π/2 (a little beyond is fine): `r + r³·P(r²)`, Taylor to r¹³.
#[inline(always)]
fn sin_poly<V: Lanes>(r: V) -> V {
    let s = r.mul(r);
    let u = poly(
        s,
        &[
            1.0 / 6_227_020_800.0,
            -1.0 / 39_916_800.0,
            1.0 / 362_880.0,
            -1.0 / 5_040.0,
            1.0 / 120.0,
            -1.0 / 6.0,
        ],
    );
    s.mul(r).fma(u, r)
}

/// `x − q·(π·scale)` with the four parts (`scale` a power of two).
#[inline(always)]
fn reduce_pi<V: Lanes>(x: V, q: V, scale: f32) -> V {
    let d = q.fma(V::splat(-PI_A * scale), x);
    let d = q.fma(V::splat(-PI_B * scale), d);
    let d = q.fma(V::splat(-PI_C * scale), d);
    q.fma(V::splat(-PI_D * scale), d)
}

/// The lanes the four-part reduction cannot take (|x| ≥ 39000, ±∞, NaN), and `x` with
/// those lanes set to 0 so the fast path computes nothing out of range.
#[inline(always)]
fn trig_split<V: Lanes>(x: V) -> (V, V) {
    let ok = x.abs().lt(V::splat(TRIG_MAX));
    (ok, ok.and(x))
}

fn sin_far(x: f32) -> f32 {
    vmath::sin_lanes_d(&[x])[0]
}

fn cos_far(x: f32) -> f32 {
    vmath::cos_lanes_d(&[x])[0]
}

/// sin x: `x = qπ + d`, `sin x = (−1)^q sin d`.
#[inline(always)]
pub fn sin<V: Lanes>(x: V) -> V {
    let (ok, xs) = trig_split(x);
    let q = xs.mul(V::splat(std::f32::consts::FRAC_1_PI)).round();
    let d = reduce_pi(xs, q, 1.0);
    let r = sin_poly(d).xor(q.to_i().shl::<31>());
    // sin ±0 = ±0 (the polynomial gives +0 for −0).
    let r = x.eq(V::splat(0.0)).select(x, r);
    r.patch(ok.andnot(V::splat_bits(u32::MAX)), x, sin_far)
}

/// cos x: `x = (n + ½)π + d` (q = 2n + 1, reduction by q·π/2), `cos x = (−1)^(n+1) sin d`.
#[inline(always)]
pub fn cos<V: Lanes>(x: V) -> V {
    let (ok, xs) = trig_split(x);
    let n = xs
        .mul(V::splat(std::f32::consts::FRAC_1_PI))
        .sub(V::splat(0.5))
        .round();
    let q = n.add(n).add(V::splat(1.0));
    let d = reduce_pi(xs, q, 0.5);
    // (−1)^(n+1): the sign bit set where n is even.
    let r = sin_poly(d).xor(n.to_i().shl::<31>().xor(V::splat_bits(0x8000_0000)));
    r.patch(ok.andnot(V::splat_bits(u32::MAX)), x, cos_far)
}

// ---- error functions ------------------------------------------------------------------

/// erf(a)/a on each quarter `[i/4, (i+1)/4]` of [0, 4] (i = 0 … 15), as a polynomial of
/// degree 6 in `r = a − (i/4 + 1/8)`: entry `i` of each table is interval `i`'s
/// coefficient, highest degree first. Chebyshev fits to mpmath's `erf` at 40 digits made
/// for this (on each quarter widened by 10⁻⁵), coefficients rounded to `f32`: at most
/// 0.66 ulp relative before the evaluation's own roundings (401 points per quarter).
#[rustfmt::skip]
static ERF_T: Rows<7> = Rows([
    [
        -0.024497654, -0.009529784, 0.008505076, 0.01732073, 0.0142804, 0.00557409, -0.0015494546, -0.0042227996,
        -0.0036265252, -0.0020121383, -0.0007391713, -9.720848e-05, 0.00011516152, 0.00013785546, 0.000106885374, 7.3309464e-05,
    ],
    [
        -0.019447861, -0.04622642, -0.046478044, -0.025573434, -0.0006929437, 0.014380503, 0.016916689, 0.012061849,
        0.0059227194, 0.001681026, -0.00030552235, -0.00086429104, -0.0008152357, -0.00061317347, -0.00042753998, -0.0002932561,
    ],
    [
        0.10662877, 0.06292166, 0.0017812465, -0.04480599, -0.060672127, -0.05056958, -0.029750545, -0.011172487,
        -4.2392297e-05, 0.0044231755, 0.0050586304, 0.004215205, 0.0031287249, 0.0022322703, 0.0015873689, 0.0011427929,
    ],
    [
        0.05537731, 0.14298537, 0.17534515, 0.1516022, 0.09623072, 0.03903347, -0.001374103, -0.021311771,
        -0.02627104, -0.023638383, -0.018693207, -0.014000446, -0.010334816, -0.0076757884, -0.0057853768, -0.0044342536,
    ],
    [
        -0.36564568, -0.28849658, -0.1652637, -0.03972857, 0.05419377, 0.10426817, 0.11707452, 0.10740081,
        0.08886299, 0.06987124, 0.05395979, 0.041753683, 0.032696284, 0.025998376, 0.020990679, 0.017186034,
    ],
    [
        -0.09315495, -0.25944608, -0.3738974, -0.42438942, -0.4190262, -0.37761343, -0.3210135, -0.26427495,
        -0.2150581, -0.17545958, -0.14465763, -0.120876245, -0.102378264, -0.08778756, -0.07609925, -0.0665972,
    ],
    [
        1.1225296, 1.0776451, 0.9971854, 0.8960858, 0.78967845, 0.68957824, 0.6021192, 0.5290614,
        0.46933928, 0.42072296, 0.38087416, 0.34780943, 0.31999683, 0.29629576, 0.27586198, 0.2580645,
    ],
]);

/// `erfcx a = e^(a²)·erfc a` on each sixteenth `[5i/8, 5(i+1)/8]` of [0, 10] (the last
/// one to 10.07), as a polynomial of degree 7 in `r = a − (5i/8 + 5/16)` (centres exact in
/// `f32`): entry `i` of each row is interval `i`'s coefficient, highest degree first.
/// Least-squares fits in relative error at 80 Chebyshev nodes of mpmath's `erfc` at 40
/// digits, made for this, coefficients rounded to `f32`: at most 1.9·2⁻²⁴ relative,
/// evaluated in `f32` with fused multiply-adds (801 points per interval). erfcx runs from
/// 1 down to 0.056: no cancellation in the sum.
#[rustfmt::skip]
static ERFCX_T: Rows<8> = Rows([
    [
        -0.027380954, -0.0034156519, -0.00056854956, -0.00012008802, -3.0833136e-05, -9.289633e-06, -3.1924417e-06, -1.223448e-06,
        -5.1356835e-07, -2.327831e-07, -1.1263547e-07, -5.7642207e-08, -3.0964607e-08, -1.7354102e-08, -1.0094469e-08, -5.9050382e-09,
    ],
    [
        0.05882832, 0.008560465, 0.0016563353, 0.00040363218, 0.00011846305, 4.040379e-05, 1.5570942e-05, 6.63351e-06,
        3.0708932e-06, 1.5241388e-06, 8.023782e-07, 4.4423237e-07, 2.568681e-07, 1.5424855e-07, 9.574507e-08, 6.120028e-08,
    ],
    [
        -0.11144017, -0.01951742, -0.0044898465, -0.0012832297, -0.00043571994, -0.00016973601, -7.38469e-05, -3.514993e-05,
        -1.801549e-05, -9.820424e-06, -5.638471e-06, -3.383689e-06, -2.1092421e-06, -1.3588847e-06, -9.010806e-07, -6.1291536e-07,
    ],
    [
        0.20400037, 0.04319675, 0.01187207, 0.0039973287, 0.0015762018, 0.00070343784, 0.0003463346, 0.00018453412,
        0.00010486975, 6.286037e-05, 3.9400333e-05, 2.5648575e-05, 1.7246864e-05, 1.1927188e-05, 8.452653e-06, 6.120573e-06,
    ],
    [
        -0.34236434, -0.089306325, -0.029778704, -0.011953243, -0.0055226553, -0.0028425, -0.0015916347, -0.0009528916,
        -0.0006021649, -0.00039778708, -0.00027266215, -0.000192809, -0.00014001458, -0.00010403306, -7.885499e-05, -6.0825343e-05,
    ],
    [
        0.51528394, 0.17014985, 0.07027793, 0.034143217, 0.018685061, 0.01117802, 0.0071587004, 0.004835753,
        0.0034087424, 0.0024875824, 0.0018681464, 0.001437112, 0.0011283577, 0.00090163335, 0.0007315287, 0.0006014867,
    ],
    [
        -0.6745755, -0.2934749, -0.15447727, -0.09261814, -0.06083571, -0.042688195, -0.031469673, -0.024096929,
        -0.019012192, -0.0153667005, -0.012668704, -0.010618457, -0.009025317, -0.0077635814, -0.006747761, -0.0059181405,
    ],
    [
        0.72608596, 0.44528228, 0.3116486, 0.23674537, 0.18978551, 0.15791869, 0.13500425, 0.1177901,
        0.104411006, 0.093727365, 0.08500651, 0.07775727, 0.071638644, 0.066406846, 0.06188311, 0.057933472,
    ],
]);

/// The interval `⌊a·per⌋` of `a ≥ 0` (`a` clamped to `below` first), as `a·per − ½`
/// rounded to nearest: where `a·per` is an integer the interval below may be taken,
/// whose polynomial covers that end too.
#[inline(always)]
fn interval<V: Lanes>(a: V, below: f32, per: f32) -> V {
    a.min(V::splat(below))
        .mul(V::splat(per))
        .sub(V::splat(0.5))
        .round()
}

/// The polynomial in `r` whose coefficients (highest first) are entry `i` of each row of
/// `t`: a lookup per coefficient and a multiply-add per degree.
#[inline(always)]
fn piecewise<V: Lanes, const N: usize>(i: V, r: V, t: &Rows<N>) -> V {
    let mut p = i.lookup(&t.0[0]);
    for row in &t.0[1..] {
        p = p.fma(r, i.lookup(row));
    }
    p
}

/// `erfcx a` ([`ERFCX_T`]) for 0 ≤ a ≤ 10.07: a lookup per coefficient and seven
/// multiply-adds, no division.
#[inline(always)]
fn erfcx<V: Lanes>(a: V) -> V {
    // Interval 15 from 9.6875 on.
    let k = interval(a, 9.999, 1.6);
    let r = a.sub(k.fma(V::splat(0.625), V::splat(0.3125)));
    piecewise(k.to_i(), r, &ERFCX_T)
}

/// erfc(a) for a ≥ 0: `e^(−a²)·erfcx(a)`, with `a²` split exactly in two parts (`fma`)
/// so `e^(−a²)` keeps its accuracy where it is tiny, `e^(−hi−lo) = e^(−hi)·(1 − lo)` to
/// far below an ulp. Below 9 every lane's result is a normal number, and it is the
/// product rounded once; vectors with a lane from 9 on take [`erfc_tail`], which gives
/// the other lanes the same bits.
#[inline(always)]
fn erfc_pos<V: Lanes>(a: V) -> V {
    if a.ge(V::splat(9.0)).any() {
        return erfc_tail(a);
    }
    erfc_product::<V, false>(a)
}

/// `e^(−hi)·(1 − lo)·erfcx(a)` with `hi + lo = a²` exactly, rounded once; times 2⁶⁴ where
/// `SCALED` (an exact scaling wherever both results are normal).
#[inline(always)]
fn erfc_product<V: Lanes, const SCALED: bool>(a: V) -> V {
    let p = erfcx(a);
    let hi = a.mul(a);
    let lo = a.fma(a, hi.neg());
    let (r, q) = exp_reduce(hi.neg());
    let e = exp_scaled(r, if SCALED { q.add(V::splat(64.0)) } else { q });
    e.neg().fma(lo, e).mul(p)
}

/// [`erfc_pos`] for vectors with lanes from 9 on: the same product computed times 2⁶⁴.
/// Then `e^(−hi)` is a normal number for every a below 10.06 (e^(−101.2)·2⁶⁴ ≈ 2⁻⁸²),
/// and so is the result times 2⁶⁴, `big`. Where the result is normal, `big·2⁻⁶⁴` is
/// exact: the bits of the fast path. Where it is subnormal (below 2⁻¹²⁶, arguments in
/// [9.2, 10.06]) its bits are `big·2⁸⁵` rounded to the nearest integer (even on ties):
/// the same single rounding, from integer instructions. From 10.06 on the result is +0
/// (erfc 10.06 = 0.44·2⁻¹⁴⁹). No instruction meets a subnormal (see
/// [`underflow_free`]); computed unscaled, those arguments took three assists per
/// vector, 5.5x the time of other arguments.
#[inline(always)]
fn erfc_tail<V: Lanes>(a: V) -> V {
    let zero = a.ge(V::splat(10.06));
    let big = erfc_product::<V, true>(underflow_free(zero, a));
    let sub = big.lt(V::splat(pow2(-62)));
    // (Clamped rather than selected: a select on `sub` would be folded into the last one
    // by the optimiser, and the subnormal product computed after all.)
    let normal = big.max(V::splat(pow2(-62))).mul(V::splat(pow2(-64)));
    let subnormal = big.mul(V::splat(pow2(85))).to_i();
    zero.andnot(sub.select(subnormal, normal))
}

/// 2ⁿ for a normal power of two.
const fn pow2(n: i32) -> f32 {
    f32::from_bits(((127 + n) as u32) << 23)
}

/// erf x = sign(x)·a·P(a) with a = |x|, P interval `⌊4a⌋`'s polynomial ([`ERF_T`]): a
/// lookup per coefficient and six multiply-adds, no branch between ranges; the product
/// keeps the relative accuracy down to the smallest `x`. From 4 on (and where the
/// product would round above 1 just below), erf is 1.
#[inline(always)]
pub fn erf<V: Lanes>(x: V) -> V {
    let a = x.abs();
    let k = interval(a, 3.999_999_8, 4.0);
    let r = a.sub(k.fma(V::splat(0.25), V::splat(0.125)));
    let p = piecewise(k.to_i(), r, &ERF_T);
    let e = a
        .ge(V::splat(4.0))
        .select(V::splat(1.0), a.mul(p).min(V::splat(1.0)));
    x.is_nan().select(x, e.or(x.sign()))
}

/// erfc x: `erfc |x|` or `2 − erfc |x|`.
#[inline(always)]
pub fn erfc<V: Lanes>(x: V) -> V {
    // For x ≤ −4, 2 − erfc(4) is 2 already (as in `erf`).
    let neg = x.lt(V::splat(0.0));
    let a = x.abs();
    let r = erfc_pos(neg.select(a.min(V::splat(4.0)), a));
    // `2 − r` only where taken: a subnormal `r` of the other lanes would cost an assist.
    let r = neg.select(V::splat(2.0).sub(neg.and(r)), r);
    x.is_nan().select(x, r)
}

// ---- hyperbolic tangent ----------------------------------------------------------------

/// Taylor coefficients of `(tanh x − x)/x³` in x² (x³ … x²¹, highest first), from the
/// Bernoulli numbers: 1.2·10⁻⁹ relative truncation error for |x| ≤ 0.625.
const TANH_P: [f32; 10] = {
    const D: [f64; 10] = [
        9.691537956929451e-05,
        -0.00023912911424355248,
        0.000590027440945586,
        -0.0014558343870513183,
        0.003592128036572481,
        -0.008863235529902197,
        0.021869488536155203,
        -0.05396825396825397,
        0.13333333333333333,
        -0.3333333333333333,
    ];
    let mut c = [0.0; 10];
    let mut i = 0;
    while i < 10 {
        c[i] = D[i] as f32;
        i += 1;
    }
    c
};

/// tanh x: `1 − 2/(e^(2|x|) + 1)` from 0.625 on (the subtraction then loses at most a
/// bit), the series below; the sign of x restored.
#[inline(always)]
pub fn tanh<V: Lanes>(x: V) -> V {
    let a = x.abs();
    let z = a.mul(a);
    let small = a.mul(z).fma(poly4(z, &TANH_P), a);
    let e = exp(a.add(a).min(V::splat(40.0)));
    let big = V::splat(1.0).sub(V::splat(2.0).div(e.add(V::splat(1.0))));
    let r = a.lt(V::splat(0.625)).select(small, big).or(x.sign());
    x.is_nan().select(x, r)
}

// ---- power ----------------------------------------------------------------------------

/// log₂ e in two parts (the first rounded to `f32`).
const LOG2E_HI: f32 = std::f32::consts::LOG2_E;
const LOG2E_LO: f32 = (std::f64::consts::LOG2_E - LOG2E_HI as f64) as f32;

/// `a + b` as `(hi, lo)` exactly, for |a| ≥ |b| or a = 0 (Dekker's fast two-sum).
#[inline(always)]
fn fast_two_sum<V: Lanes>(a: V, b: V) -> (V, V) {
    let s = a.add(b);
    (s, b.sub(s.sub(a)))
}

/// log₂ c for [`log`]'s sixteenths (c = 1/invc exactly, `LOG_T[0]`) as `hi + lo`, `hi` a
/// multiple of 2⁻¹⁶ (so `k + hi` is exact for every exponent `k`); mpmath at 50 digits.
#[rustfmt::skip]
static LOG2_T: Rows<2> = Rows([
    [
        -0.4842987, -0.4225769, -0.3633728, -0.30651855, -0.25180054, -0.19909668, -0.1482544,
        -0.09913635, -0.051635742, 0.0, 0.076812744, 0.15986633, 0.23840332, 0.31288147,
        0.3836975, 0.45121765,
    ],
    [
        -1.4160246e-06, 5.717553e-06, -2.5612703e-06, 5.531669e-06, -6.6079265e-06,
        -3.4929474e-06, 3.4372908e-06, 3.1974691e-06, 2.9374946e-06, 0.0, 2.8784389e-06,
        5.019894e-06, 1.4203562e-06, 1.5352715e-06, 6.728964e-06, -6.5240833e-06,
    ],
]);

/// log₂ |x| as `(hi, lo)` to about 2⁻³⁰ relative, for finite nonzero `x` (other lanes:
/// garbage the caller replaces). [`log`]'s reduction, carried in two parts: x = 2ᵏ·z,
/// log₂ x = k + log₂ c + log1p(r)/ln 2 with r = z/c − 1 exactly as `r_hi + r_lo` (z·(1/c)
/// split by an `fma`; `r_hi` = its high part − 1, exact), log1p(r) = r + r²·q(r) with q's
/// Taylor series to r⁴ (remainder r⁷/7 < 2⁻³³ of the result), the r² terms in `f32`
/// (they are below 1.5% of r), and `r_lo` through log1p's slope, `r_lo·(1 − r)`. No
/// division: fdlibm's `2 atanh s` form it replaces needed s = f/(2 + f) in two parts. `pow` multiplies the result by y, so its relative error
/// becomes absolute error in the exponent: 2⁻³⁰ at |y·log₂ x| = 150 is under 0.2 ulp.
#[inline(always)]
fn log2_hi_lo<V: Lanes, const SUBNORMALS: bool>(x: V) -> (V, V) {
    let (k, i, z) = log_split::<V, SUBNORMALS>(x.abs());
    let invc = i.lookup(&LOG_T.0[0]);
    let p = z.mul(invc);
    let r_lo = z.fma(invc, p.neg());
    let r = p.sub(V::splat(1.0)); // exact (Sterbenz: p in [0.97, 1.03])
    let q = r
        .fma(V::splat(-1.0 / 6.0), V::splat(0.2))
        .fma(r, V::splat(-0.25))
        .fma(r, V::splat(1.0 / 3.0))
        .fma(r, V::splat(-0.5));
    // log1p(r + r_lo) = log1p(r) + r_lo/(1 + r): r_lo is up to 2⁻²⁵, not small beside r.
    let r_lo = r.neg().fma(r_lo, r_lo);
    let (l_hi, l_lo) = fast_two_sum(r, r.mul(r).fma(q, r_lo));
    // × log₂ e in two parts.
    let m_hi = l_hi.mul(V::splat(LOG2E_HI));
    let m_lo = l_hi.fma(V::splat(LOG2E_HI), m_hi.neg());
    let m_lo = l_hi.fma(V::splat(LOG2E_LO), m_lo);
    let m_lo = l_lo.fma(V::splat(LOG2E_HI), m_lo);
    // |k + log₂ c| ≥ |m_hi| (at least 0.05 against at most 0.043), or k + log₂ c = 0.
    let (hi, lo) = fast_two_sum(k.add(i.lookup(&LOG2_T.0[0])), m_hi);
    (hi, lo.add(m_lo.add(i.lookup(&LOG2_T.0[1]))))
}

/// `y·log₂|x|` in two parts from `log₂|x|` in two.
#[inline(always)]
fn pow_exponent<V: Lanes>((l_hi, l_lo): (V, V), y: V) -> (V, V) {
    let t_hi = y.mul(l_hi);
    let t_lo = y.fma(l_hi, t_hi.neg());
    (t_hi, y.fma(l_lo, t_lo))
}

/// `pow(x, y)` with the C99/OpenCL special cases: `2^(y·log₂|x|)` with the product in
/// two parts, then the sign and the special values chosen by blends as in
/// the double-precision `pow` it replaces.
#[inline(always)]
pub fn pow<V: Lanes>(x: V, y: V) -> V {
    // Vectors with positive normal `x`, finite `y` and no product beyond ±152 (most) need
    // none of the special cases below but `x = 1` and `y = 0`: the same bits in about
    // two thirds of the instructions.
    if all_positive_normal(x) && !y.sub(y).is_nan().any() {
        let (t_hi, t_lo) = pow_exponent(log2_hi_lo::<V, false>(x), y);
        if !t_hi
            .abs()
            .lt(V::splat(152.0))
            .andnot(V::splat_bits(u32::MAX))
            .any()
        {
            let q = t_hi.round();
            let p = exp_scaled(t_hi.sub(q).add(t_lo).mul(V::splat(LN2)), q);
            let one = V::splat(1.0);
            return x.eq(one).or(y.eq(V::splat(0.0))).select(one, p);
        }
    }
    let (t_hi, t_lo) = pow_exponent(log2_hi_lo::<V, true>(x), y);
    // y·log₂|x| beyond ±152 (or NaN, infinite): 0 or ∞ by its sign, chosen below; those
    // lanes compute on 0 so none underflows (see [`underflow_free`]).
    let far = t_hi
        .abs()
        .lt(V::splat(152.0))
        .andnot(V::splat_bits(u32::MAX));
    let tc = underflow_free(far, t_hi);
    let q = tc.round();
    let r = tc.sub(q).add(underflow_free(far, t_lo));
    let p = exp_scaled(r.mul(V::splat(LN2)), q);
    let a = x.abs();
    let zero_or_inf = a.eq(V::splat(0.0)).or(a.eq(V::splat(f32::INFINITY)));
    let far = far.or(zero_or_inf).or(y.abs().eq(V::splat(f32::INFINITY)));
    let r = far.select(far_pow(a, y), p);
    // y integral: |y| ≥ 2²³ or y = round(y); odd: below 2²⁴ with the low bit set.
    let ay = y.abs();
    let yint = ay.ge(V::splat(8_388_608.0)).or(y.round().eq(y));
    let small = ay.lt(V::splat(16_777_216.0));
    let yodd = small.and(yint).and(small.and(y).to_i().shl::<31>());
    let r = r.xor(x.sign().and(yodd));
    let finite_neg = x.lt(V::splat(0.0)).and(a.lt(V::splat(f32::INFINITY)));
    let r = finite_neg
        .and(yint.andnot(V::splat_bits(u32::MAX)))
        .select(V::splat(f32::NAN), r);
    let one = V::splat(1.0);
    let r = a.eq(one).and(ay.eq(V::splat(f32::INFINITY))).select(one, r);
    let r = x.is_nan().or(y.is_nan()).select(V::splat(f32::NAN), r);
    x.eq(one).or(y.eq(V::splat(0.0))).select(one, r)
}

/// The magnitude of `pow` where `y·log₂|x|` is infinite or beyond ±152: `|x|` 0 or ∞,
/// `y` infinite, or the product simply large. ∞ where the product is positive, 0 where
/// negative.
#[inline(always)]
fn far_pow<V: Lanes>(a: V, y: V) -> V {
    // sign(y·log₂|x|) = sign(y) × sign(|x| − 1).
    let below1 = a.lt(V::splat(1.0));
    let neg = y.lt(V::splat(0.0)).xor(below1);
    neg.select(V::splat(0.0), V::splat(f32::INFINITY))
}
