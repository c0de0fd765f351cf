//! Integer division and remainder across the lanes (`x / 9` of a box filter, `i % width`
//! of an index, `a[i] / b[i]`), on whole vectors: x64 has no vector integer division, so
//! the lanes went one `idiv` (and the scalar code's never-trapping selects) each.
//!
//! Each `int` or `uint` lane is converted to `double`, divided, truncated and converted
//! back. That is exact: a quotient `x / d` of 32-bit integers that is not an integer lies
//! at least `1/|d|` from one, while the division's rounding moves it by at most
//! `|x/d| × 2^-53 < 1/|d|` (`|x| < 2^32`). The truncated quotient (`|q| < 2^32`) comes
//! back through its bits after adding `2^52 + 2^51` (the low 32 bits of the sum are `q`).
//! `char` and `short` lanes (extended to 32 bits, `|x| < 2^16`) divide in `float`, four at
//! a time, exact by the same argument with 24 bits (`|x| < 2^24`). Each lane's divisor is
//! taken as the scalar code takes it (`codegen::arith::div_rem`): 0, and for a signed
//! division -1, as 1, with `x / -1` then `-x` (wrapping) and the remainders `x - q × d`.

use super::{VTx, V};
use crate::codegen::Result;
use cranelift_codegen::ir::{self, condcodes::IntCC, types, InstBuilder, Value};
use rspirv::spirv::Op;

impl VTx<'_, '_, '_, '_> {
    /// `t` lanes `v` as `i32x4` parts holding their values (`char`/`short` extended by
    /// `signed`).
    fn int_parts(&mut self, v: &V, t: ir::Type, signed: bool) -> Result<Vec<Value>> {
        if super::small_ints::small(t) {
            self.zext_extended(v, t, signed)
        } else {
            self.vector(v, types::I32)
        }
    }

    /// The `i32x4` part `p` as two `f64x2` (lanes 0-1, 2-3): signed, or unsigned (the
    /// doubles `2^52 + x` by their bits, the high word 0x43300000 beside the low word
    /// `x`, less `2^52`).
    fn doubles_of(&mut self, p: Value, signed: bool) -> [Value; 2] {
        let order = super::lane_order();
        let high = self.shuffle32(p, p, [2, 3, 2, 3]);
        [p, high].map(|half| {
            if signed {
                let w = self.b.ins().swiden_low(half);
                self.b.ins().fcvt_from_sint(types::F64X2, w)
            } else {
                let hw = self.b.ins().iconst(types::I32, 0x4330_0000);
                let hw = self.b.ins().splat(types::I32X4, hw);
                let w = self.shuffle32(half, hw, [0, 4, 1, 5]);
                let f = self.b.ins().bitcast(types::F64X2, order, w);
                let two52 = self.b.ins().f64const(4_503_599_627_370_496.0);
                let two52 = self.b.ins().splat(types::F64X2, two52);
                self.b.ins().fsub(f, two52)
            }
        })
    }

    /// `op` (`OpUDiv`, `OpUMod`, `OpSDiv`, `OpSRem`) of the lanes `a` by `b` (uniform or
    /// not), both of `t`, on whole vectors; `None` where this does not apply (`OpSMod`,
    /// 64-bit lanes, a uniform dividend, a processor without SSE4.1's rounding), which the
    /// lane-by-lane code takes.
    pub(super) fn divide_lanes(&mut self, op: Op, a: &V, b: &V, t: ir::Type) -> Result<Option<V>> {
        let signed = matches!(op, Op::SDiv | Op::SRem);
        let small = super::small_ints::small(t);
        let lanes = |v: &V| !matches!(v, V::Comp(_) | V::Builtin(_) | V::Mask(_));
        let applies = matches!(op, Op::UDiv | Op::UMod | Op::SDiv | Op::SRem)
            && (small || t == types::I32)
            && self.fma
            && !matches!(a, V::U(_))
            && lanes(a)
            && lanes(b);
        if !applies {
            return Ok(None);
        }
        let parts = self.int_parts(a, t, signed)?;
        let divisors = self.int_parts(b, t, signed)?;
        let splat = |s: &mut Self, c: i64| {
            let c = s.b.ins().iconst(types::I32, c);
            s.b.ins().splat(types::I32X4, c)
        };
        let (zero, minus, one) = (splat(self, 0), splat(self, -1), splat(self, 1));
        let magic = self.b.ins().f64const(6_755_399_441_055_744.0);
        let magic = self.b.ins().splat(types::F64X2, magic);
        let order = super::lane_order();
        let mut out = Vec::with_capacity(parts.len());
        for (p, d) in parts.into_iter().zip(divisors) {
            // The scalar code's divisor: 0 (and -1 for a signed division) as 1.
            let bad = self.b.ins().icmp(IntCC::Equal, d, zero);
            let minus_one = self.b.ins().icmp(IntCC::Equal, d, minus);
            let bad = if signed {
                self.b.ins().bor(bad, minus_one)
            } else {
                bad
            };
            let safe = self.b.ins().bitselect(bad, one, d);
            let q = if small {
                // `char`/`short` lanes (|x| < 2^16) divide in `float`, four at a time:
                // exact by the same argument with 24 bits, as |x| < 2^24.
                let f = self.b.ins().fcvt_from_sint(types::F32X4, p);
                let df = self.b.ins().fcvt_from_sint(types::F32X4, safe);
                let f = self.b.ins().fdiv(f, df);
                let f = self.b.ins().trunc(f);
                self.b.ins().fcvt_to_sint_sat(types::I32X4, f)
            } else {
                let x2 = self.doubles_of(p, signed);
                let d2 = self.doubles_of(safe, signed);
                let mut q2 = [p; 2];
                for k in 0..2 {
                    let f = self.b.ins().fdiv(x2[k], d2[k]);
                    let f = self.b.ins().trunc(f);
                    let f = self.b.ins().fadd(f, magic);
                    q2[k] = self.b.ins().bitcast(types::I32X4, order, f);
                }
                self.shuffle32(q2[0], q2[1], [0, 2, 4, 6])
            };
            out.push(match op {
                Op::SDiv => {
                    let neg = self.b.ins().ineg(p);
                    self.b.ins().bitselect(minus_one, neg, q)
                }
                Op::UDiv => q,
                _ => {
                    let m = self.b.ins().imul(q, safe);
                    self.b.ins().isub(p, m)
                }
            });
        }
        Ok(Some(if small {
            self.zext_of(&out, t)
        } else {
            V::Vec(out)
        }))
    }
}
