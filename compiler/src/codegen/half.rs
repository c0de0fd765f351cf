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

/// `x` (`f32` or `f64`) rounded to the nearest `half` (ties to even), as an `f32`; beyond
/// the largest half (65504 + half an ulp) an infinity of `x`'s sign, NaN stays NaN, and
/// the sign of a zero is kept.
///
/// Adding and then subtracting `s = 2^(e + p - 11)` (p the source type's precision, `e` the
/// exponent of `|x|` clamped to half's normal range [-14, 16]) leaves `|x|` rounded to a
/// multiple of half's ulp at that exponent, by the machine's own rounding (no
/// double-rounding: the addition is the only rounding step).
pub fn round(b: &mut FunctionBuilder, x: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    let ax = b.ins().fabs(x);
    let r = if t == types::F64 {
        let bits = b.ins().bitcast(types::I64, MemFlagsData::new(), ax);
        let e = b.ins().band_imm_s(bits, 0x7ff0_0000_0000_0000);
        let lo = b.ins().iconst(types::I64, (1023 - 14) << 52);
        let hi = b.ins().iconst(types::I64, (1023 + 16) << 52);
        let e = b.ins().umax(e, lo);
        let e = b.ins().umin(e, hi);
        let s = b.ins().iadd_imm_s(e, 42 << 52);
        let s = b.ins().bitcast(types::F64, MemFlagsData::new(), s);
        let r = b.ins().fadd(ax, s);
        let r = b.ins().fsub(r, s);
        // Exact: a multiple of half's ulp below 2^17.
        b.ins().fdemote(types::F32, r)
    } else {
        let bits = b.ins().bitcast(types::I32, MemFlagsData::new(), ax);
        let e = b.ins().band_imm_s(bits, 0x7f80_0000);
        let lo = b.ins().iconst(types::I32, (127 - 14) << 23);
        let hi = b.ins().iconst(types::I32, (127 + 16) << 23);
        let e = b.ins().umax(e, lo);
        let e = b.ins().umin(e, hi);
        let s = b.ins().iadd_imm_s(e, 13 << 23);
        let s = b.ins().bitcast(types::F32, MemFlagsData::new(), s);
        let r = b.ins().fadd(ax, s);
        b.ins().fsub(r, s)
    };
    let max = b.ins().f32const(MAX);
    let inf = b.ins().f32const(f32::INFINITY);
    let over = b.ins().fcmp(FloatCC::GreaterThan, r, max);
    let r = b.ins().select(over, inf, r);
    let sign = if t == types::F64 {
        b.ins().fdemote(types::F32, x)
    } else {
        x
    };
    b.ins().fcopysign(r, sign)
}

/// The 16 IEEE bits (in the low half of an `i32`) of `x`, an `f32` holding a half
/// (exact, NaN payloads included).
pub fn to_bits(b: &mut FunctionBuilder, x: Value) -> Value {
    let bits = b.ins().bitcast(types::I32, MemFlagsData::new(), x);
    let sign = b.ins().ushr_imm_u(bits, 16);
    let sign = b.ins().band_imm_s(sign, 0x8000);
    let abs = b.ins().band_imm_s(bits, 0x7fff_ffff);
    // Normal: rebias the exponent, drop the 13 low (zero) bits.
    let norm = b.ins().iadd_imm_s(abs, -(112 << 23));
    let norm = b.ins().ushr_imm_u(norm, 13);
    // Subnormal (below 2^-14): |x| + 0.5 puts |x| / 2^-24 in the low mantissa bits.
    let ax = b.ins().fabs(x);
    let half = b.ins().f32const(0.5);
    let sub = b.ins().fadd(ax, half);
    let sub = b.ins().bitcast(types::I32, MemFlagsData::new(), sub);
    let sub = b.ins().iadd_imm_s(sub, -0x3f00_0000);
    let small = b
        .ins()
        .icmp_imm_s(IntCC::UnsignedLessThan, abs, 0x3880_0000);
    let r = b.ins().select(small, sub, norm);
    // Infinity (and anything not a half, which never reaches here) and NaN.
    let over = b
        .ins()
        .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, abs, 0x4780_0000);
    let inf = b.ins().iconst(types::I32, 0x7c00);
    let r = b.ins().select(over, inf, r);
    // A NaN keeps the top 10 bits of its payload, so a half NaN (signalling or not)
    // comes back bit for bit; one whose payload lies below them becomes the quiet NaN.
    let nan = b
        .ins()
        .icmp_imm_s(IntCC::UnsignedGreaterThan, abs, 0x7f80_0000);
    let payload = b.ins().ushr_imm_u(abs, 13);
    let payload = b.ins().band_imm_s(payload, 0x3ff);
    let empty = b.ins().icmp_imm_s(IntCC::Equal, payload, 0);
    let kept = b.ins().bor_imm_s(payload, 0x7c00);
    let quiet = b.ins().iconst(types::I32, 0x7e00);
    let nan_bits = b.ins().select(empty, quiet, kept);
    let r = b.ins().select(nan, nan_bits, r);
    b.ins().bor(r, sign)
}

/// The `f32` of the half whose IEEE bits are the low 16 bits of `h` (`i16` or `i32`; exact).
pub fn from_bits(b: &mut FunctionBuilder, h: Value) -> Value {
    let h = if b.func.dfg.value_type(h) == types::I32 {
        h
    } else {
        b.ins().uextend(types::I32, h)
    };
    let mag = b.ins().band_imm_s(h, 0x7fff);
    let o = b.ins().ishl_imm_u(mag, 13);
    let e = b.ins().band_imm_s(o, 0x0f80_0000);
    let o = b.ins().iadd_imm_s(o, 112 << 23);
    // Infinity/NaN: exponent all ones.
    let special = b.ins().icmp_imm_s(IntCC::Equal, e, 0x0f80_0000);
    let o2 = b.ins().iadd_imm_s(o, 112 << 23);
    let o = b.ins().select(special, o2, o);
    let normal = b.ins().bitcast(types::F32, MemFlagsData::new(), o);
    // Zero/subnormal: 2^-14 × (1 + m/1024) − 2^-14 = m × 2^-24, exact.
    let o3 = b.ins().iadd_imm_s(o, 1 << 23);
    let sub = b.ins().bitcast(types::F32, MemFlagsData::new(), o3);
    let min = b.ins().f32const(f32::from_bits(0x3880_0000));
    let sub = b.ins().fsub(sub, min);
    let zero = b.ins().icmp_imm_s(IntCC::Equal, e, 0);
    let f = b.ins().select(zero, sub, normal);
    let f = b.ins().bitcast(types::I32, MemFlagsData::new(), f);
    let sign = b.ins().band_imm_s(h, 0x8000);
    let sign = b.ins().ishl_imm_u(sign, 16);
    let f = b.ins().bor(f, sign);
    b.ins().bitcast(types::F32, MemFlagsData::new(), f)
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
