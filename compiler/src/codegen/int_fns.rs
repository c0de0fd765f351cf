//! The `OpenCL.std` integer functions that are a few exact operations (`abs_diff`,
//! `add_sat`, `sub_sat`, `hadd`, `rhadd`, `mul_hi`, `mad_hi`, `mad_sat`, `rotate`,
//! `upsample`), written once over a scalar integer of any width; the ones marked so also
//! over an `i32x4` vector. The scalar translator calls them per component; the
//! vectoriser per `i32x4` part where [`on_i32x4`] says the vector form exists, else lane
//! by lane on the scalar form, so every lane gets the scalar code's bits.

use cranelift_codegen::ir::{self, condcodes::IntCC, types, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;
use rspirv::spirv::OpenclStd100Op as E;

/// The integer constant `k` in the type of `like` (splat across a vector's lanes).
fn konst(b: &mut FunctionBuilder, like: Value, k: i64) -> Value {
    let t = b.func.dfg.value_type(like);
    let s = b.ins().iconst(t.lane_type(), k);
    if t.is_vector() {
        b.ins().splat(t, s)
    } else {
        s
    }
}

/// `c ? x : y` for a comparison result `c` of `x`'s shape: a select on scalars, a bit
/// select by the lane mask on vectors.
fn choose(b: &mut FunctionBuilder, c: Value, x: Value, y: Value) -> Value {
    if b.func.dfg.value_type(x).is_vector() {
        b.ins().bitselect(c, x, y)
    } else {
        b.ins().select(c, x, y)
    }
}

/// `x >> k` (arithmetic or logical) by a constant amount, on scalars or vectors.
fn shr(b: &mut FunctionBuilder, x: Value, k: i64, signed: bool) -> Value {
    let amt = b.ins().iconst(types::I32, k);
    if signed {
        b.ins().sshr(x, amt)
    } else {
        b.ins().ushr(x, amt)
    }
}

/// The larger or smaller of `x` and `y`.
pub(crate) fn minmax(
    b: &mut FunctionBuilder,
    x: Value,
    y: Value,
    signed: bool,
    max: bool,
) -> Value {
    match (signed, max) {
        (true, true) => b.ins().smax(x, y),
        (true, false) => b.ins().smin(x, y),
        (false, true) => b.ins().umax(x, y),
        (false, false) => b.ins().umin(x, y),
    }
}

/// `x + y` or `x - y` clamped to the range of the type.
fn add_sub_sat(b: &mut FunctionBuilder, x: Value, y: Value, signed: bool, sub: bool) -> Value {
    let t = b.func.dfg.value_type(x);
    let bits = t.lane_bits();
    let r = if sub {
        b.ins().isub(x, y)
    } else {
        b.ins().iadd(x, y)
    };
    if !signed {
        // Wrapped below (subtraction) or above (addition): 0 or all ones.
        let over = if sub {
            b.ins().icmp(IntCC::UnsignedLessThan, x, y)
        } else {
            b.ins().icmp(IntCC::UnsignedLessThan, r, x)
        };
        let s = konst(b, x, if sub { 0 } else { -1 });
        return choose(b, over, s, r);
    }
    // Overflow iff the result's sign differs from x's where the operands' signs allow it.
    let xr = b.ins().bxor(x, r);
    let other = if sub {
        b.ins().bxor(x, y)
    } else {
        b.ins().bxor(y, r)
    };
    let o = b.ins().band(xr, other);
    let zero = konst(b, x, 0);
    let over = b.ins().icmp(IntCC::SignedLessThan, o, zero);
    // x < 0 saturates to the minimum, else to the maximum: (x >> (bits - 1)) ^ MAX.
    let sign = shr(b, x, i64::from(bits) - 1, true);
    let max = konst(b, x, ((1i128 << (bits - 1)) - 1) as i64);
    let s = b.ins().bxor(sign, max);
    choose(b, over, s, r)
}

/// `(x + y) >> 1` (`hadd`) or `(x + y + 1) >> 1` (`rhadd`) without overflow.
fn hadd(b: &mut FunctionBuilder, x: Value, y: Value, signed: bool, round: bool) -> Value {
    let (hx, hy) = (shr(b, x, 1, signed), shr(b, y, 1, signed));
    let low = if round {
        b.ins().bor(x, y)
    } else {
        b.ins().band(x, y)
    };
    let one = konst(b, x, 1);
    let low = b.ins().band(low, one);
    let sum = b.ins().iadd(hx, hy);
    b.ins().iadd(sum, low)
}

/// The high half of the full product `x * y`: any scalar width, or `i32x4` (two widening
/// multiplications of two lanes each).
pub(crate) fn mul_hi(b: &mut FunctionBuilder, x: Value, y: Value, signed: bool) -> Value {
    let t = b.func.dfg.value_type(x);
    if t == types::I32X4 {
        let (lo, hi) = if signed {
            let (xl, yl) = (b.ins().swiden_low(x), b.ins().swiden_low(y));
            let (xh, yh) = (b.ins().swiden_high(x), b.ins().swiden_high(y));
            (b.ins().imul(xl, yl), b.ins().imul(xh, yh))
        } else {
            let (xl, yl) = (b.ins().uwiden_low(x), b.ins().uwiden_low(y));
            let (xh, yh) = (b.ins().uwiden_high(x), b.ins().uwiden_high(y));
            (b.ins().imul(xl, yl), b.ins().imul(xh, yh))
        };
        // The odd 32-bit halves (each product's high one) of the two i64x2 products.
        let order = ir::MemFlagsData::new().with_endianness(ir::Endianness::Little);
        let lo = b.ins().bitcast(types::I8X16, order, lo);
        let hi = b.ins().bitcast(types::I8X16, order, hi);
        let idx: Vec<u8> = [1u8, 3, 5, 7]
            .iter()
            .flat_map(|l| (0..4).map(move |k| l * 4 + k))
            .collect();
        let mask = b
            .func
            .dfg
            .immediates
            .push(ir::ConstantData::from(idx.as_slice()));
        let r = b.ins().shuffle(lo, hi, mask);
        return b.ins().bitcast(types::I32X4, order, r);
    }
    if t.bits() >= 32 {
        return if signed {
            b.ins().smulhi(x, y)
        } else {
            b.ins().umulhi(x, y)
        };
    }
    let ext = |b: &mut FunctionBuilder, v: Value| {
        if signed {
            b.ins().sextend(types::I32, v)
        } else {
            b.ins().uextend(types::I32, v)
        }
    };
    let (a, c) = (ext(b, x), ext(b, y));
    let p = b.ins().imul(a, c);
    let h = b.ins().sshr_imm_s(p, i64::from(t.bits()));
    b.ins().ireduce(t, h)
}

/// `x * y + z` clamped to the range of the (scalar) type.
fn mad_sat(b: &mut FunctionBuilder, x: Value, y: Value, z: Value, signed: bool) -> Value {
    let t = b.func.dfg.value_type(x);
    let bits = t.bits();
    if bits == 64 {
        return mad_sat64(b, x, y, z, signed);
    }
    let ext = |b: &mut FunctionBuilder, v: Value| {
        if signed {
            b.ins().sextend(types::I64, v)
        } else {
            b.ins().uextend(types::I64, v)
        }
    };
    let (a, c, d) = (ext(b, x), ext(b, y), ext(b, z));
    let p = b.ins().imul(a, c);
    let r = b.ins().iadd(p, d);
    let r = if signed {
        let lo = b.ins().iconst(types::I64, -(1i64 << (bits - 1)));
        let hi = b.ins().iconst(types::I64, (1i64 << (bits - 1)) - 1);
        let r = b.ins().smin(r, hi);
        b.ins().smax(r, lo)
    } else {
        let hi = b.ins().iconst(types::I64, ((1u64 << bits) - 1) as i64);
        b.ins().umin(r, hi)
    };
    b.ins().ireduce(t, r)
}

/// 64-bit `mad_sat` on the 128-bit product as a (high, low) pair of `i64`s (Cranelift
/// cannot lower every `i128` operation).
fn mad_sat64(b: &mut FunctionBuilder, x: Value, y: Value, z: Value, signed: bool) -> Value {
    let lo = b.ins().imul(x, y);
    let sum = b.ins().iadd(lo, z);
    let carry = b.ins().icmp(IntCC::UnsignedLessThan, sum, lo);
    let carry = b.ins().uextend(types::I64, carry);
    if !signed {
        let hi = b.ins().umulhi(x, y);
        let hi = b.ins().iadd(hi, carry);
        let over = b.ins().icmp_imm_s(IntCC::NotEqual, hi, 0);
        let max = b.ins().iconst(types::I64, -1);
        return b.ins().select(over, max, sum);
    }
    let hi = b.ins().smulhi(x, y);
    let zhi = b.ins().sshr_imm_s(z, 63);
    let hi = b.ins().iadd(hi, zhi);
    let hi = b.ins().iadd(hi, carry);
    // Fits in i64 iff the high half is the sign extension of the low half.
    let ext = b.ins().sshr_imm_s(sum, 63);
    let over = b.ins().icmp(IntCC::NotEqual, hi, ext);
    let neg = b.ins().icmp_imm_s(IntCC::SignedLessThan, hi, 0);
    let min = b.ins().iconst(types::I64, i64::MIN);
    let max = b.ins().iconst(types::I64, i64::MAX);
    let sat = b.ins().select(neg, min, max);
    b.ins().select(over, sat, sum)
}

/// `x` rotated left by the scalar `n` (modulo the lane width): scalars or every lane of a
/// vector by the same amount (vector shifts take their amount modulo the lane width, so
/// `x << n | x >> -n` is `x` for `n = 0`).
pub(crate) fn rotate_by(b: &mut FunctionBuilder, x: Value, n: Value) -> Value {
    if !b.func.dfg.value_type(x).is_vector() {
        return b.ins().rotl(x, n);
    }
    let l = b.ins().ishl(x, n);
    let m = b.ins().ineg(n);
    let r = b.ins().ushr(x, m);
    b.ins().bor(l, r)
}

/// `hi` and `lo` (half-width integers, scalars) as one integer of twice their width, `hi`
/// in the high half.
fn upsample(b: &mut FunctionBuilder, hi: Value, lo: Value, signed: bool) -> Value {
    let t = b.func.dfg.value_type(hi);
    let wide = t.double_width().unwrap_or(t);
    let h = if signed {
        b.ins().sextend(wide, hi)
    } else {
        b.ins().uextend(wide, hi)
    };
    let l = b.ins().uextend(wide, lo);
    let h = b.ins().ishl_imm_s(h, i64::from(t.bits()));
    b.ins().bor(h, l)
}

/// How many operands `op` takes, if it is one of this module's functions.
pub(crate) fn arity(op: E) -> Option<usize> {
    Some(match op {
        E::s_abs_diff
        | E::u_abs_diff
        | E::s_add_sat
        | E::u_add_sat
        | E::s_sub_sat
        | E::u_sub_sat
        | E::s_hadd
        | E::u_hadd
        | E::s_rhadd
        | E::u_rhadd
        | E::s_mul_hi
        | E::u_mul_hi
        | E::rotate
        | E::s_upsample
        | E::u_upsample => 2,
        E::s_mad_hi | E::u_mad_hi | E::s_mad_sat | E::u_mad_sat => 3,
        _ => return None,
    })
}

/// Whether `op` has an `i32x4` form in [`int_fn`] (all but `mad_sat` and `upsample`,
/// whose intermediate or result is wider, and `rotate`, whose amounts are per lane:
/// see [`rotate_by`]).
pub(crate) fn on_i32x4(op: E) -> bool {
    arity(op).is_some()
        && !matches!(
            op,
            E::s_mad_sat | E::u_mad_sat | E::s_upsample | E::u_upsample | E::rotate
        )
}

/// `op` of `a` (scalars of one integer type, or `i32x4` where [`on_i32x4`]); `None` for
/// other functions or a wrong operand count.
pub(crate) fn int_fn(b: &mut FunctionBuilder, op: E, a: &[Value]) -> Option<Value> {
    if arity(op) != Some(a.len()) || b.func.dfg.value_type(a[0]).is_vector() && !on_i32x4(op) {
        return None;
    }
    let signed = matches!(
        op,
        E::s_abs_diff
            | E::s_add_sat
            | E::s_sub_sat
            | E::s_hadd
            | E::s_rhadd
            | E::s_mul_hi
            | E::s_mad_hi
            | E::s_mad_sat
            | E::s_upsample
    );
    Some(match op {
        E::s_abs_diff | E::u_abs_diff => {
            let hi = minmax(b, a[0], a[1], signed, true);
            let lo = minmax(b, a[0], a[1], signed, false);
            b.ins().isub(hi, lo)
        }
        E::s_add_sat | E::u_add_sat => add_sub_sat(b, a[0], a[1], signed, false),
        E::s_sub_sat | E::u_sub_sat => add_sub_sat(b, a[0], a[1], signed, true),
        E::s_hadd | E::u_hadd => hadd(b, a[0], a[1], signed, false),
        E::s_rhadd | E::u_rhadd => hadd(b, a[0], a[1], signed, true),
        E::s_mul_hi | E::u_mul_hi => mul_hi(b, a[0], a[1], signed),
        E::s_mad_hi | E::u_mad_hi => {
            let h = mul_hi(b, a[0], a[1], signed);
            b.ins().iadd(h, a[2])
        }
        E::s_mad_sat | E::u_mad_sat => mad_sat(b, a[0], a[1], a[2], signed),
        E::rotate => rotate_by(b, a[0], a[1]),
        E::s_upsample | E::u_upsample => upsample(b, a[0], a[1], signed),
        _ => return None,
    })
}
