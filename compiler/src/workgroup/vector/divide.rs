//! Integer division and remainder by a uniform divisor across the lanes (`x / 9` of a box
//! filter, `i % width` of an index), on whole vectors: x64 has no vector integer division,
//! so the lanes went one `idiv` (and the scalar code's never-trapping selects) each.
//!
//! Each `int` or `uint` lane is converted to `double`, divided, truncated and converted
//! back. That is exact: a quotient `x / d` of 32-bit integers that is not an integer lies
//! at least `1/|d|` from one, while the division's rounding moves it by at most
//! `|x/d| × 2^-53 < 1/|d|` (`|x| < 2^32`). The truncated quotient (`|q| < 2^32`) comes
//! back through its bits after adding `2^52 + 2^51` (the low 32 bits of the sum are `q`).
//! `char` and `short` lanes (extended to 32 bits, `|x| < 2^16`) divide in `float`, four at
//! a time, exact by the same argument with 24 bits (`|x| < 2^24`). The divisor is taken as the scalar code
//! takes it (`codegen::arith::div_rem`): 0, and for a signed division -1, as 1, with
//! `x / -1` then `-x` (wrapping) and the remainders `x - q × d`.

use super::{VTx, V};
use crate::codegen::Result;
use cranelift_codegen::ir::{self, condcodes::IntCC, types, InstBuilder, Value};
use rspirv::spirv::Op;

impl VTx<'_, '_, '_, '_> {
    /// `x` and `y`'s 32-bit lanes `lanes` (each 0-3 of `x`, 4-7 of `y`).
    fn shuffle32(&mut self, x: Value, y: Value, lanes: [u8; 4]) -> Value {
        let mut m = [0u8; 16];
        for (i, l) in lanes.iter().enumerate() {
            for j in 0..4 {
                m[4 * i + j] = 4 * l + j as u8;
            }
        }
        let imm = self.b.func.dfg.immediates.push(m.to_vec().into());
        let order = super::lane_order();
        let x8 = self.b.ins().bitcast(types::I8X16, order, x);
        let y8 = self.b.ins().bitcast(types::I8X16, order, y);
        let r = self.b.ins().shuffle(x8, y8, imm);
        self.b.ins().bitcast(types::I32X4, order, r)
    }

    /// `op` (`OpUDiv`, `OpUMod`, `OpSDiv`, `OpSRem`) of the lanes `a` of `t` by the
    /// uniform divisor `y`, on whole vectors; `None` where this does not apply (`OpSMod`,
    /// 64-bit lanes, a processor without SSE4.1's rounding), which the lane-by-lane code
    /// takes.
    pub(super) fn divide_by_uniform(
        &mut self,
        op: Op,
        a: &V,
        y: Value,
        t: ir::Type,
    ) -> Result<Option<V>> {
        let signed = matches!(op, Op::SDiv | Op::SRem);
        let small = super::small_ints::small(t);
        let applies = matches!(op, Op::UDiv | Op::UMod | Op::SDiv | Op::SRem)
            && (small || t == types::I32)
            && self.fma
            && !matches!(a, V::U(_) | V::Comp(_) | V::Builtin(_) | V::Mask(_));
        if !applies {
            return Ok(None);
        }
        let parts = if small {
            let p = self.zext_parts(a, t)?;
            self.zext_as_i32(&p, t, signed)
        } else {
            self.vector(a, types::I32)?
        };
        let d = match (small, signed) {
            (false, _) => y,
            (true, true) => self.b.ins().sextend(types::I32, y),
            (true, false) => self.b.ins().uextend(types::I32, y),
        };
        // The scalar code's divisor: 0 (and -1 for a signed division) as 1.
        let bad = self.b.ins().icmp_imm_s(IntCC::Equal, d, 0);
        let minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, d, -1);
        let bad = if signed {
            self.b.ins().bor(bad, minus_one)
        } else {
            bad
        };
        let one = self.b.ins().iconst(types::I32, 1);
        let safe = self.b.ins().select(bad, one, d);
        let df = if signed || small {
            self.b.ins().fcvt_from_sint(types::F64, safe)
        } else {
            self.b.ins().fcvt_from_uint(types::F64, safe)
        };
        let df = self.b.ins().splat(types::F64X2, df);
        let magic = self.b.ins().f64const(6_755_399_441_055_744.0);
        let magic = self.b.ins().splat(types::F64X2, magic);
        let safe_v = self.b.ins().splat(types::I32X4, safe);
        let high_word = self.b.ins().iconst(types::I32, 0x4330_0000);
        let high_word = self.b.ins().splat(types::I32X4, high_word);
        let two52 = self.b.ins().f64const(4_503_599_627_370_496.0);
        let two52 = self.b.ins().splat(types::F64X2, two52);
        let order = super::lane_order();
        let mut out = Vec::with_capacity(parts.len());
        // `char`/`short` lanes (|x| < 2^16) divide in `float`, four at a time: exact by the
        // same argument with 24 bits, as |x| < 2^24.
        let ff = if small {
            let f = self.b.ins().fcvt_from_sint(types::F32, safe);
            Some(self.b.ins().splat(types::F32X4, f))
        } else {
            None
        };
        for p in parts {
            let q = match ff {
                Some(ff) => {
                    let f = self.b.ins().fcvt_from_sint(types::F32X4, p);
                    let f = self.b.ins().fdiv(f, ff);
                    let f = self.b.ins().trunc(f);
                    self.b.ins().fcvt_to_sint_sat(types::I32X4, f)
                }
                None => {
                    let high = self.shuffle32(p, p, [2, 3, 2, 3]);
                    let mut q2 = Vec::with_capacity(2);
                    for half in [p, high] {
                        let f = if signed {
                            let w = self.b.ins().swiden_low(half);
                            self.b.ins().fcvt_from_sint(types::F64X2, w)
                        } else {
                            // `uint` lanes: the doubles 2^52 + x (their bits: the high
                            // word 0x43300000, the low word x), less 2^52.
                            let w = self.shuffle32(half, high_word, [0, 4, 1, 5]);
                            let f = self.b.ins().bitcast(types::F64X2, order, w);
                            self.b.ins().fsub(f, two52)
                        };
                        let f = self.b.ins().fdiv(f, df);
                        let f = self.b.ins().trunc(f);
                        let f = self.b.ins().fadd(f, magic);
                        q2.push(self.b.ins().bitcast(types::I32X4, order, f));
                    }
                    self.shuffle32(q2[0], q2[1], [0, 2, 4, 6])
                }
            };
            out.push(match op {
                Op::SDiv => {
                    let neg = self.b.ins().ineg(p);
                    self.b.ins().select(minus_one, neg, q)
                }
                Op::UDiv => q,
                _ => {
                    let m = self.b.ins().imul(q, safe_v);
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
