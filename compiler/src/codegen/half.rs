//! Half precision (`cl_khr_fp16`, SPIR-V `Float16`): the one module that owns what a
//! `half` is in generated code.
//!
//! A `half` value lives in a Cranelift `f32` that always holds a number binary16 can
//! represent exactly (or an infinity, or a NaN). Arithmetic runs in `f32` and its result is
//! rounded back once ([`round`]): for `+ - * /` and `sqrt` that single rounding of the
//! correctly rounded `f32` result is the correctly rounded `half` result, because `f32`
//! carries more than twice `half`'s 11 bits plus two (the double-rounding theorem); `fma`
//! goes through `double`, where the product of two halves is exact. Memory holds the 16
//! IEEE bits: loads widen them ([`from_bits`]), stores narrow them ([`to_bits`]), both exact.
//! Everything is inline integer and float arithmetic, with no call and no table, so the
//! same lowering serves any lane count later.
//!
//! The rounding uses the current (round-to-nearest-even) mode; directed rounding modes of
//! conversions call `builtins::convert::f64_to_half`.

use crate::spirv::{Program, Type};
use cranelift_codegen::ir::{
    self,
    condcodes::{FloatCC, IntCC},
    types, InstBuilder, MemFlagsData, Value,
};
use cranelift_frontend::FunctionBuilder;
use rspirv::spirv::{Op, Word};

/// Largest finite half, 65504.
const MAX: f32 = 65504.0;

/// Whether `ty` is `half` or a vector of `half`.
pub fn is_half(p: &Program, ty: Word) -> bool {
    match p.ty(ty) {
        Ok(Type::Float { width: 16 }) => true,
        Ok(Type::Vector { elem, .. }) => matches!(p.ty(*elem), Ok(Type::Float { width: 16 })),
        _ => false,
    }
}

/// Opcodes whose `half` result is computed in `f32` (or `f64`) and must be rounded back
/// to `half` ([`round`]) before anyone sees it. The others move, select or convert
/// exactly.
pub fn rounds(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        FAdd | FSub
            | FMul
            | FDiv
            | FRem
            | FMod
            | VectorTimesScalar
            | Dot
            | ExtInst
            | FConvert
            | ConvertSToF
            | ConvertUToF
            | GroupFAdd
            | GroupFMin
            | GroupFMax
            | GroupNonUniformFAdd
            | GroupNonUniformFMul
            | GroupNonUniformFMin
            | GroupNonUniformFMax
            | GroupFAddNonUniformAMD
            | GroupFMinNonUniformAMD
            | GroupFMaxNonUniformAMD
            | GroupFMulKHR
    )
}

/// Flags of a bit cast between equally shaped scalar or vector types.
fn cast() -> MemFlagsData {
    MemFlagsData::new().with_endianness(ir::Endianness::Little)
}

/// The integer constant `c` of type `t`, splatted over the lanes if `t` is a vector.
fn int(b: &mut FunctionBuilder, t: ir::Type, c: i64) -> Value {
    if t.is_vector() {
        let x = b.ins().iconst(t.lane_type(), c);
        b.ins().splat(t, x)
    } else {
        b.ins().iconst(t, c)
    }
}

/// The `f32` constant `c` of type `t` (`f32` or `f32x4`).
fn float(b: &mut FunctionBuilder, t: ir::Type, c: f32) -> Value {
    let x = b.ins().f32const(c);
    if t.is_vector() {
        b.ins().splat(t, x)
    } else {
        x
    }
}

/// `c ? x : y` for a comparison result `c` (a boolean for scalars, a lane mask for
/// vectors).
fn pick(b: &mut FunctionBuilder, c: Value, x: Value, y: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    if t.is_vector() {
        let c = if b.func.dfg.value_type(c) == t {
            c
        } else {
            b.ins().bitcast(t, cast(), c)
        };
        b.ins().bitselect(c, x, y)
    } else {
        b.ins().select(c, x, y)
    }
}

/// The integer type of `f32`'s bits, lane for lane (`i32` or `i32x4`).
fn bits_of(t: ir::Type) -> ir::Type {
    if t.is_vector() {
        types::I32X4
    } else {
        types::I32
    }
}

/// `x` (`f32`, `f32x4` or `f64`) rounded to the nearest `half` (ties to even), as an `f32`
/// (`f32x4`); beyond the largest half (65504 + half an ulp) an infinity of `x`'s sign, NaN
/// stays NaN, and the sign of a zero is kept.
///
/// Adding and then subtracting `s = 2^(e + p - 11)` (p the source type's precision, `e` the
/// exponent of `|x|` clamped to half's normal range [-14, 16]) leaves `|x|` rounded to a
/// multiple of half's ulp at that exponent, by the machine's own rounding (no
/// double-rounding: the addition is the only rounding step).
pub fn round(b: &mut FunctionBuilder, x: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    let ax = b.ins().fabs(x);
    let (r, sign) = if t == types::F64 {
        let bits = b.ins().bitcast(types::I64, cast(), ax);
        let e = b.ins().band_imm_s(bits, 0x7ff0_0000_0000_0000);
        let lo = b.ins().iconst(types::I64, (1023 - 14) << 52);
        let hi = b.ins().iconst(types::I64, (1023 + 16) << 52);
        let e = b.ins().umax(e, lo);
        let e = b.ins().umin(e, hi);
        let s = b.ins().iadd_imm_s(e, 42 << 52);
        let s = b.ins().bitcast(types::F64, cast(), s);
        let r = b.ins().fadd(ax, s);
        let r = b.ins().fsub(r, s);
        // Exact: a multiple of half's ulp below 2^17.
        let r = b.ins().fdemote(types::F32, r);
        let xb = b.ins().bitcast(types::I64, cast(), x);
        let sign = b.ins().ushr_imm_u(xb, 32);
        let sign = b.ins().ireduce(types::I32, sign);
        (r, sign)
    } else {
        let it = bits_of(t);
        let bits = b.ins().bitcast(it, cast(), ax);
        let m = int(b, it, 0x7f80_0000);
        let e = b.ins().band(bits, m);
        let lo = int(b, it, (127 - 14) << 23);
        let hi = int(b, it, (127 + 16) << 23);
        let e = b.ins().umax(e, lo);
        let e = b.ins().umin(e, hi);
        let k = int(b, it, 13 << 23);
        let s = b.ins().iadd(e, k);
        let s = b.ins().bitcast(t, cast(), s);
        let r = b.ins().fadd(ax, s);
        let r = b.ins().fsub(r, s);
        let sign = b.ins().bitcast(it, cast(), x);
        (r, sign)
    };
    let ft = b.func.dfg.value_type(r);
    let it = bits_of(ft);
    let max = float(b, ft, MAX);
    let inf = float(b, ft, f32::INFINITY);
    let over = b.ins().fcmp(FloatCC::GreaterThan, r, max);
    let r = pick(b, over, inf, r);
    // `r` is |x| rounded (or a positive NaN): give it `x`'s sign bit.
    let m = int(b, it, i64::from(i32::MIN));
    let sign = b.ins().band(sign, m);
    let r = b.ins().bitcast(it, cast(), r);
    let r = b.ins().bor(r, sign);
    b.ins().bitcast(ft, cast(), r)
}

/// The 16 IEEE bits (in the low half of an `i32`, lane for lane for an `f32x4`) of `x`, an
/// `f32` holding a half (exact, NaN payloads included).
pub fn to_bits(b: &mut FunctionBuilder, x: Value) -> Value {
    let it = bits_of(b.func.dfg.value_type(x));
    let bits = b.ins().bitcast(it, cast(), x);
    let sign = b.ins().ushr_imm_u(bits, 16);
    let k = int(b, it, 0x8000);
    let sign = b.ins().band(sign, k);
    let k = int(b, it, 0x7fff_ffff);
    let abs = b.ins().band(bits, k);
    // Normal: rebias the exponent, drop the 13 low (zero) bits.
    let k = int(b, it, -(112 << 23));
    let norm = b.ins().iadd(abs, k);
    let norm = b.ins().ushr_imm_u(norm, 13);
    // Subnormal (below 2^-14): |x| + 0.5 puts |x| / 2^-24 in the low mantissa bits.
    let ax = b.ins().fabs(x);
    let half = float(b, b.func.dfg.value_type(x), 0.5);
    let sub = b.ins().fadd(ax, half);
    let sub = b.ins().bitcast(it, cast(), sub);
    let k = int(b, it, -0x3f00_0000);
    let sub = b.ins().iadd(sub, k);
    let k = int(b, it, 0x3880_0000);
    let small = b.ins().icmp(IntCC::UnsignedLessThan, abs, k);
    let r = pick(b, small, sub, norm);
    // Infinity (and anything not a half, which never reaches here) and NaN.
    let k = int(b, it, 0x4780_0000);
    let over = b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, abs, k);
    let inf = int(b, it, 0x7c00);
    let r = pick(b, over, inf, r);
    // A NaN keeps the top 10 bits of its payload, so a half NaN (signalling or not)
    // comes back bit for bit; one whose payload lies below them becomes the quiet NaN.
    let k = int(b, it, 0x7f80_0000);
    let nan = b.ins().icmp(IntCC::UnsignedGreaterThan, abs, k);
    let payload = b.ins().ushr_imm_u(abs, 13);
    let k = int(b, it, 0x3ff);
    let payload = b.ins().band(payload, k);
    let zero = int(b, it, 0);
    let empty = b.ins().icmp(IntCC::Equal, payload, zero);
    let k = int(b, it, 0x7c00);
    let kept = b.ins().bor(payload, k);
    let quiet = int(b, it, 0x7e00);
    let nan_bits = pick(b, empty, quiet, kept);
    let r = pick(b, nan, nan_bits, r);
    b.ins().bor(r, sign)
}

/// The `f32` (`f32x4`) of the half whose IEEE bits are the low 16 bits of `h` (`i16`,
/// `i32` or `i32x4`; exact).
pub fn from_bits(b: &mut FunctionBuilder, h: Value) -> Value {
    let h = match b.func.dfg.value_type(h) {
        types::I32 | types::I32X4 => h,
        _ => b.ins().uextend(types::I32, h),
    };
    let it = b.func.dfg.value_type(h);
    let ft = if it.is_vector() {
        types::F32X4
    } else {
        types::F32
    };
    let k = int(b, it, 0x7fff);
    let mag = b.ins().band(h, k);
    let o = b.ins().ishl_imm_u(mag, 13);
    let k = int(b, it, 0x0f80_0000);
    let e = b.ins().band(o, k);
    let rebias = int(b, it, 112 << 23);
    let o = b.ins().iadd(o, rebias);
    // Infinity/NaN: exponent all ones.
    let special = b.ins().icmp(IntCC::Equal, e, k);
    let o2 = b.ins().iadd(o, rebias);
    let o = pick(b, special, o2, o);
    let normal = b.ins().bitcast(ft, cast(), o);
    // Zero/subnormal: 2^-14 × (1 + m/1024) − 2^-14 = m × 2^-24, exact.
    let k = int(b, it, 1 << 23);
    let o3 = b.ins().iadd(o, k);
    let sub = b.ins().bitcast(ft, cast(), o3);
    let min = float(b, ft, f32::from_bits(0x3880_0000));
    let sub = b.ins().fsub(sub, min);
    let zero = int(b, it, 0);
    let is_zero = b.ins().icmp(IntCC::Equal, e, zero);
    let f = pick(b, is_zero, sub, normal);
    let f = b.ins().bitcast(it, cast(), f);
    let k = int(b, it, 0x8000);
    let sign = b.ins().band(h, k);
    let sign = b.ins().ishl_imm_u(sign, 16);
    let f = b.ins().bor(f, sign);
    b.ins().bitcast(ft, cast(), f)
}

/// Load one half from `addr + off` as its `f32`.
pub fn load(b: &mut FunctionBuilder, flags: MemFlagsData, addr: Value, off: i32) -> Value {
    let h = b.ins().uload16(types::I32, flags, addr, off);
    from_bits(b, h)
}

/// Store `x` (an `f32` holding a half) as 16 bits at `addr + off`.
pub fn store(b: &mut FunctionBuilder, flags: MemFlagsData, x: Value, addr: Value, off: i32) {
    let h = to_bits(b, x);
    b.ins().istore16(flags, h, addr, off);
}
