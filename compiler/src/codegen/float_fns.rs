//! The `OpenCL.std` float functions that are a few exact operations (`mix`, `step`,
//! `smoothstep`, `sign`, `degrees`, `radians`, `fdim`, `maxmag`, `minmag`, and the `fmin`/
//! `fmax` they use; and `bitselect`), written once over a value that is a scalar (`f32`, `f64`) or a
//! 128-bit vector of them (`f32x4`, `f64x2`): the scalar translator calls them per
//! component, the vectoriser per 128-bit part, and every lane gets the same bits because
//! each step is the same IEEE operation (a comparison is a lane mask on vectors, and a
//! choice by it a bit select where the scalar code selects).

use cranelift_codegen::ir::{self, condcodes::FloatCC, types, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;
use rspirv::spirv::OpenclStd100Op as E;

/// The constant `k` in the type of `like` (splat across a vector's lanes).
pub(super) fn konst(b: &mut FunctionBuilder, like: Value, k: f64) -> Value {
    let t = b.func.dfg.value_type(like);
    let s = if t.lane_type() == types::F64 {
        b.ins().f64const(k)
    } else {
        b.ins().f32const(k as f32)
    };
    if t.is_vector() {
        b.ins().splat(t, s)
    } else {
        s
    }
}

/// `c ? x : y` for a comparison result `c` of `x`'s shape: a select on scalars, a bit
/// select by the lane mask on vectors.
pub(super) fn choose(b: &mut FunctionBuilder, c: Value, x: Value, y: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    if t.is_vector() {
        let m = b.ins().bitcast(
            t,
            ir::MemFlagsData::new().with_endianness(ir::Endianness::Little),
            c,
        );
        b.ins().bitselect(m, x, y)
    } else {
        b.ins().select(c, x, y)
    }
}

/// OpenCL `fmin`/`fmax`: a NaN operand yields the other one.
pub(crate) fn fminmax(b: &mut FunctionBuilder, x: Value, y: Value, max: bool) -> Value {
    let m = if max {
        b.ins().fmax(x, y)
    } else {
        b.ins().fmin(x, y)
    };
    let xn = b.ins().fcmp(FloatCC::Unordered, x, x);
    let yn = b.ins().fcmp(FloatCC::Unordered, y, y);
    let r = choose(b, yn, x, m);
    choose(b, xn, y, r)
}

/// `maxmag`/`minmag`: the operand of larger (smaller) magnitude, else `fmax`/`fmin`.
fn maxmag(b: &mut FunctionBuilder, x: Value, y: Value, max: bool) -> Value {
    let ax = b.ins().fabs(x);
    let ay = b.ins().fabs(y);
    let (gt, lt) = if max {
        (FloatCC::GreaterThan, FloatCC::LessThan)
    } else {
        (FloatCC::LessThan, FloatCC::GreaterThan)
    };
    let pick_x = b.ins().fcmp(gt, ax, ay);
    let pick_y = b.ins().fcmp(lt, ax, ay);
    let m = fminmax(b, x, y, max);
    let r = choose(b, pick_y, y, m);
    choose(b, pick_x, x, r)
}

/// `nan(code)`: the quiet NaN whose payload is the code's low bits, of the float type of
/// the code's width (`i32`, `i64`, or their vectors).
pub(crate) fn nan(b: &mut FunctionBuilder, code: Value) -> Value {
    let it = b.func.dfg.value_type(code);
    let (ft, q, payload) = if it.lane_type() == types::I64 {
        (
            types::F64,
            0x7ff8_0000_0000_0000u64 as i64,
            0x0007_ffff_ffff_ffffi64,
        )
    } else {
        (types::F32, 0x7fc0_0000, 0x003f_ffff)
    };
    let mut int = |k: i64| {
        let s = b.ins().iconst(it.lane_type(), k);
        if it.is_vector() {
            b.ins().splat(it, s)
        } else {
            s
        }
    };
    let (q, payload) = (int(q), int(payload));
    let c = b.ins().band(code, payload);
    let c = b.ins().bor(c, q);
    let ft = if it.is_vector() {
        ft.by(it.lane_count()).unwrap_or(ft)
    } else {
        ft
    };
    let order = ir::MemFlagsData::new().with_endianness(ir::Endianness::Little);
    b.ins().bitcast(ft, order, c)
}

/// `|x|` with `y`'s sign bit: `fcopysign` on scalars, by bits on vectors (x64 lowers no
/// vector `fcopysign`).
pub(crate) fn copysign(b: &mut FunctionBuilder, x: Value, y: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    if !t.is_vector() {
        return b.ins().fcopysign(x, y);
    }
    let it = t.as_int();
    let order = ir::MemFlagsData::new().with_endianness(ir::Endianness::Little);
    let bits = t.lane_bits();
    let sign = b.ins().iconst(it.lane_type(), (1i128 << (bits - 1)) as i64);
    let sign = b.ins().splat(it, sign);
    let xi = b.ins().bitcast(it, order, x);
    let yi = b.ins().bitcast(it, order, y);
    let mag = b.ins().band_not(xi, sign);
    let s = b.ins().band(yi, sign);
    let r = b.ins().bor(mag, s);
    b.ins().bitcast(t, order, r)
}

/// OpenCL `bitselect` of ints or floats (not halves): `(x & !c) | (y & c)` on the bits,
/// of scalars or of 128-bit vectors.
pub(crate) fn bitselect(b: &mut FunctionBuilder, x: Value, y: Value, c: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    let float = t.lane_type().is_float();
    let it = t.as_int();
    let order = ir::MemFlagsData::new().with_endianness(ir::Endianness::Little);
    let bits = |b: &mut FunctionBuilder, v: Value| {
        if float {
            b.ins().bitcast(it, order, v)
        } else {
            v
        }
    };
    let (xi, yi, ci) = (bits(b, x), bits(b, y), bits(b, c));
    let keep = b.ins().band_not(xi, ci);
    let take = b.ins().band(yi, ci);
    let r = b.ins().bor(keep, take);
    if float {
        b.ins().bitcast(t, order, r)
    } else {
        r
    }
}

/// How many operands `op` takes, if it is one of this module's functions.
pub(crate) fn arity(op: E) -> Option<usize> {
    Some(match op {
        E::sign | E::degrees | E::radians => 1,
        E::step | E::fdim | E::maxmag | E::minmag => 2,
        E::mix | E::smoothstep => 3,
        _ => return None,
    })
}

/// `op` of `a` (all of one float type, scalar or vector); `None` for other functions or
/// a wrong operand count.
pub(crate) fn float_fn(b: &mut FunctionBuilder, op: E, a: &[Value]) -> Option<Value> {
    if arity(op) != Some(a.len()) {
        return None;
    }
    Some(match op {
        E::fdim => {
            let d = b.ins().fsub(a[0], a[1]);
            let z = konst(b, a[0], 0.0);
            let gt = b.ins().fcmp(FloatCC::UnorderedOrGreaterThan, a[0], a[1]);
            choose(b, gt, d, z)
        }
        E::degrees | E::radians => {
            let k = if op == E::degrees {
                180.0 / std::f64::consts::PI
            } else {
                std::f64::consts::PI / 180.0
            };
            let c = konst(b, a[0], k);
            b.ins().fmul(a[0], c)
        }
        E::mix => {
            let d = b.ins().fsub(a[1], a[0]);
            let m = b.ins().fmul(d, a[2]);
            b.ins().fadd(a[0], m)
        }
        E::step => {
            let (z, o) = (konst(b, a[1], 0.0), konst(b, a[1], 1.0));
            let lt = b.ins().fcmp(FloatCC::LessThan, a[1], a[0]);
            choose(b, lt, z, o)
        }
        E::smoothstep => {
            let (z, o) = (konst(b, a[2], 0.0), konst(b, a[2], 1.0));
            let num = b.ins().fsub(a[2], a[0]);
            let den = b.ins().fsub(a[1], a[0]);
            let q = b.ins().fdiv(num, den);
            let q = fminmax(b, q, z, true);
            let q = fminmax(b, q, o, false);
            let two = konst(b, a[2], 2.0);
            let three = konst(b, a[2], 3.0);
            let tq = b.ins().fmul(two, q);
            let k = b.ins().fsub(three, tq);
            let qq = b.ins().fmul(q, q);
            b.ins().fmul(qq, k)
        }
        E::sign => {
            let (z, o, m) = (
                konst(b, a[0], 0.0),
                konst(b, a[0], 1.0),
                konst(b, a[0], -1.0),
            );
            let gt = b.ins().fcmp(FloatCC::GreaterThan, a[0], z);
            let lt = b.ins().fcmp(FloatCC::LessThan, a[0], z);
            let nan = b.ins().fcmp(FloatCC::Unordered, a[0], a[0]);
            let r = choose(b, nan, z, a[0]);
            let r = choose(b, lt, m, r);
            choose(b, gt, o, r)
        }
        E::maxmag | E::minmag => maxmag(b, a[0], a[1], op == E::maxmag),
        _ => return None,
    })
}

/// `fract(x, &i)`: `(min(x - floor(x), the largest value below 1), floor(x))`, with
/// `±0` (of x's sign) for an infinite x or a zero difference; NaN stays NaN. `float` or `double` scalars or vectors, or a `half` held in an
/// `f32` (below 1 is then of half's 11 bits).
pub(crate) fn fract(b: &mut FunctionBuilder, x: Value, half: bool) -> (Value, Value) {
    let double = b.func.dfg.value_type(x).lane_type() == types::F64;
    let below_one = if double {
        f64::from_bits(0x3fef_ffff_ffff_ffff)
    } else if half {
        f64::from(f32::from_bits(0x3f7f_e000))
    } else {
        f64::from(f32::from_bits(0x3f7f_ffff))
    };
    let (below_one, inf, zero) = (
        konst(b, x, below_one),
        konst(b, x, f64::INFINITY),
        konst(b, x, 0.0),
    );
    let f = b.ins().floor(x);
    let d = b.ins().fsub(x, f);
    // The difference rounds up to 1 for a tiny negative x. A NaN stays the NaN the
    // subtraction made (x64's vector and scalar `fmin` would make different ones).
    let over = b.ins().fcmp(FloatCC::GreaterThan, d, below_one);
    let d = choose(b, over, below_one, d);
    let ax = b.ins().fabs(x);
    let is_inf = b.ins().fcmp(FloatCC::Equal, ax, inf);
    let is_zero = b.ins().fcmp(FloatCC::Equal, d, zero);
    let z = b.ins().bor(is_inf, is_zero);
    let sz = copysign(b, zero, x);
    (choose(b, z, sz, d), f)
}

/// `modf(x, &i)`: `(x - trunc(x)` with x's sign (`±0` for an infinite x), `trunc(x))`.
pub(crate) fn modf(b: &mut FunctionBuilder, x: Value) -> (Value, Value) {
    let (inf, zero) = (konst(b, x, f64::INFINITY), konst(b, x, 0.0));
    let i = b.ins().trunc(x);
    let d = b.ins().fsub(x, i);
    let ax = b.ins().fabs(x);
    let is_inf = b.ins().fcmp(FloatCC::Equal, ax, inf);
    let d = choose(b, is_inf, zero, d);
    (copysign(b, d, x), i)
}
