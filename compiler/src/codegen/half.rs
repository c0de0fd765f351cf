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
//! Everything is inline integer and float arithmetic, with no call and no table, and takes
//! `f32x4`/`i32x4` as well as scalars (the vectoriser's `vector/half.rs`).
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
use rspirv::dr::{Instruction, Operand};
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

/// Whether `inst`'s `half` result is computed in `f32` (or `f64`) and must be rounded back
/// to `half` ([`round`]) before anyone sees it. The other instructions move, select or
/// convert exactly, and must not round: rounding quiets a signalling NaN (`bitselect`
/// builds any bit pattern).
pub fn rounds(inst: &Instruction) -> bool {
    use rspirv::spirv::OpenclStd100Op as E;
    use Op::*;
    match inst.class.opcode {
        ExtInst => {
            let Some(Operand::LiteralExtInstInteger(n)) = inst.operands.get(1) else {
                return false;
            };
            !matches!(
                E::from_u32(*n),
                Some(
                    E::bitselect
                        | E::select
                        | E::fabs
                        | E::copysign
                        | E::fmin
                        | E::fmax
                        | E::fmin_common
                        | E::fmax_common
                        | E::maxmag
                        | E::minmag
                        | E::ceil
                        | E::floor
                        | E::trunc
                        | E::rint
                        | E::round
                        | E::shuffle
                        | E::shuffle2
                        | E::vloadn
                )
            )
        }
        op => matches!(
            op,
            FAdd | FSub
                | FMul
                | FDiv
                | FRem
                | FMod
                | VectorTimesScalar
                | Dot
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
        ),
    }
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

/// `fma(x, y, z)` of three halves (`f32`s): one rounding of the exact result, through
/// double. The product of two halves is exact there, and so is its sum with a third but
/// for far-apart magnitudes, where the small term only decides the rounding direction,
/// which double keeps.
pub fn fma(b: &mut FunctionBuilder, x: Value, y: Value, z: Value) -> Value {
    let [x, y, z] = [x, y, z].map(|v| b.ins().fpromote(types::F64, v));
    let r = b.ins().fma(x, y, z);
    round(b, r)
}

/// The 16 IEEE bits (in the low half of an `i32`, lane for lane for an `f32x4`) of `x`, an
/// `f32` holding a half (exact, NaN payloads included).
///
/// Scaling |x| by 2^-112 moves half's exponent bias onto float's, so the float's bits
/// shifted right by 13 are the half's: for a normal half a normal float, for a subnormal
/// one a subnormal float (exact: the floating-point environment keeps subnormals).
/// Infinities and NaNs take their bits directly, a NaN keeping the top 10 bits of its
/// payload (and one bit if only lower ones were set, so it stays a NaN).
pub fn to_bits(b: &mut FunctionBuilder, x: Value) -> Value {
    let ft = b.func.dfg.value_type(x);
    let it = bits_of(ft);
    let bits = b.ins().bitcast(it, cast(), x);
    let sign = b.ins().ushr_imm_u(bits, 16);
    let k = int(b, it, 0x8000);
    let sign = b.ins().band(sign, k);
    let k = int(b, it, 0x7fff_ffff);
    let abs = b.ins().band(bits, k);
    let ax = b.ins().bitcast(ft, cast(), abs);
    let scale = float(b, ft, f32::from_bits((127 - 112) << 23));
    let scaled = b.ins().fmul(ax, scale);
    let scaled = b.ins().bitcast(it, cast(), scaled);
    let finite = b.ins().ushr_imm_u(scaled, 13);
    let top = b.ins().ushr_imm_u(abs, 13);
    let k = int(b, it, 0x3ff);
    let top = b.ins().band(top, k);
    let k = int(b, it, 0x1fff);
    let low = b.ins().band(abs, k);
    let one = int(b, it, 1);
    let low = b.ins().umin(low, one);
    let payload = b.ins().bor(top, low);
    let k = int(b, it, 0x7c00);
    let special = b.ins().bor(payload, k);
    // 2^16 and above: infinity or NaN (a half never lies in between).
    let k = int(b, it, 0x4780_0000);
    let big = b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, abs, k);
    let r = pick(b, big, special, finite);
    b.ins().bor(r, sign)
}

/// The `f32` (`f32x4`) of the half whose IEEE bits are the low 16 bits of `h` (`i16`,
/// `i32` or `i32x4`; exact).
///
/// The half's exponent and mantissa shifted into a float's place, scaled by 2^112 to move
/// half's exponent bias onto float's (a subnormal half becomes a subnormal float first,
/// normal after the scaling; exact as above); an infinity or NaN, which lands at 2^16 or
/// above, gets the float's all-ones exponent with its payload unchanged.
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
    let f = b.ins().bitcast(ft, cast(), o);
    let scale = float(b, ft, f32::from_bits((127 + 112) << 23));
    let f = b.ins().fmul(f, scale);
    let f = b.ins().bitcast(it, cast(), f);
    let k = int(b, it, 0x0f80_0000);
    let e = b.ins().band(o, k);
    let special = b.ins().icmp(IntCC::Equal, e, k);
    let inf_nan = int(b, it, 0x7f80_0000);
    let inf_nan = b.ins().bor(o, inf_nan);
    let f = pick(b, special, inf_nan, f);
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
