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
//!
//! A constant divisor (`x / 9`, `i % 3`; not 0 nor, signed, -1) is a multiplication by
//! its magic reciprocal instead ([`Magic`], libdivide's algorithm after Granlund and
//! Montgomery): the high halves of two widening multiplications per four lanes, at most
//! an add and two shifts, and no division at all; a power of two is a shift.

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
        if let Some(d) = self.constant_divisor(b, t, signed) {
            let out = self.divide_by_constant(op, &parts, d, signed);
            return Ok(Some(if small {
                self.zext_of(&out, t)
            } else {
                V::Vec(out)
            }));
        }
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

    /// The divisor `b` when it is a constant the magic multiplication takes: as a signed
    /// or unsigned value of `t`, not 0 (nor -1 for a signed division: `x / -1` wraps).
    fn constant_divisor(&mut self, b: &V, t: ir::Type, signed: bool) -> Option<i64> {
        let raw = self.iconst_of(b)?;
        let bits = t.bits();
        let d = if signed {
            super::canon(raw, t)
        } else {
            raw & ((1i64 << bits) - 1)
        };
        (d != 0 && !(signed && d == -1)).then_some(d)
    }

    /// `op` of the `i32x4` parts `parts` by the constant `d` (signed or unsigned 32-bit
    /// values; `char`/`short` lanes extended): a multiplication by `d`'s magic reciprocal
    /// and shifts ([`Magic`]), with `x - q × d` for a remainder.
    fn divide_by_constant(&mut self, op: Op, parts: &[Value], d: i64, signed: bool) -> Vec<Value> {
        let magic = if signed {
            Magic::signed(d as i32)
        } else {
            Magic::unsigned(d as u32)
        };
        let splat = |s: &mut Self, c: i64| {
            let c = s.b.ins().iconst(types::I32, c);
            s.b.ins().splat(types::I32X4, c)
        };
        let m = splat(self, i64::from(magic.multiplier as i32));
        let dv = splat(self, d);
        let mut out = Vec::with_capacity(parts.len());
        for &x in parts {
            let q = if magic.multiplier == 0 {
                // A power of two: a shift, rounding toward zero for a negative dividend.
                if signed {
                    // `2^sh - 1` added to a negative dividend first.
                    let sh = magic.shift;
                    let q = if sh == 0 {
                        x
                    } else {
                        let sign = self.b.ins().sshr_imm_s(x, 31);
                        let bias = self.b.ins().ushr_imm_s(sign, i64::from(32 - sh));
                        let biased = self.b.ins().iadd(x, bias);
                        self.b.ins().sshr_imm_s(biased, i64::from(sh))
                    };
                    if magic.negative {
                        self.b.ins().ineg(q)
                    } else {
                        q
                    }
                } else {
                    self.b.ins().ushr_imm_s(x, i64::from(magic.shift))
                }
            } else if signed {
                let mut q = crate::codegen::int_fns::mul_hi(self.b, x, m, true);
                if magic.add {
                    q = if magic.negative {
                        self.b.ins().isub(q, x)
                    } else {
                        self.b.ins().iadd(q, x)
                    };
                }
                let q = self.b.ins().sshr_imm_s(q, i64::from(magic.shift));
                // Toward zero: plus one where the shifted quotient is negative.
                let neg = self.b.ins().ushr_imm_s(q, 31);
                self.b.ins().iadd(q, neg)
            } else {
                let q = crate::codegen::int_fns::mul_hi(self.b, x, m, false);
                if magic.add {
                    let t = self.b.ins().isub(x, q);
                    let t = self.b.ins().ushr_imm_s(t, 1);
                    let t = self.b.ins().iadd(t, q);
                    self.b.ins().ushr_imm_s(t, i64::from(magic.shift))
                } else {
                    self.b.ins().ushr_imm_s(q, i64::from(magic.shift))
                }
            };
            out.push(match op {
                Op::UDiv | Op::SDiv => q,
                _ => {
                    let p = self.b.ins().imul(q, dv);
                    self.b.ins().isub(x, p)
                }
            });
        }
        out
    }
}

/// How to divide 32-bit integers by a constant with a multiplication (libdivide's
/// branchy algorithm, after Granlund and Montgomery): the quotient is the high half of
/// `x × multiplier`, corrected by `x` where `add`, shifted right by `shift`; a power of
/// two (`multiplier` 0) is a shift alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Magic {
    multiplier: u32,
    shift: u32,
    add: bool,
    /// A negative divisor (signed division).
    negative: bool,
}

impl Magic {
    /// For unsigned division by `d` (not 0).
    fn unsigned(d: u32) -> Magic {
        let log = 31 - d.leading_zeros();
        if d.is_power_of_two() {
            return Magic {
                multiplier: 0,
                shift: log,
                add: false,
                negative: false,
            };
        }
        let n = (1u64 << log) << 32;
        let (mut m, rem) = ((n / u64::from(d)) as u32, (n % u64::from(d)) as u32);
        let e = d - rem;
        let (shift, add) = if e < (1u32 << log) {
            (log, false)
        } else {
            m = m.wrapping_add(m);
            let twice = rem.wrapping_add(rem);
            if twice >= d || twice < rem {
                m = m.wrapping_add(1);
            }
            (log, true)
        };
        Magic {
            multiplier: m.wrapping_add(1),
            shift,
            add,
            negative: false,
        }
    }

    /// For signed division by `d` (not 0 nor -1).
    fn signed(d: i32) -> Magic {
        let abs = d.unsigned_abs();
        let log = 31 - abs.leading_zeros();
        let negative = d < 0;
        if abs.is_power_of_two() {
            return Magic {
                multiplier: 0,
                shift: log,
                add: false,
                negative,
            };
        }
        let n = (1u64 << (log - 1)) << 32;
        let (mut m, rem) = ((n / u64::from(abs)) as u32, (n % u64::from(abs)) as u32);
        let e = abs - rem;
        let (shift, add) = if e < (1u32 << log) {
            (log - 1, false)
        } else {
            m = m.wrapping_add(m);
            let twice = rem.wrapping_add(rem);
            if twice >= abs || twice < rem {
                m = m.wrapping_add(1);
            }
            (log, true)
        };
        let m = m.wrapping_add(1);
        Magic {
            multiplier: if negative { m.wrapping_neg() } else { m },
            shift,
            add,
            negative,
        }
    }

    /// `x / d` by this magic (the model of the vector code, for the tests).
    #[cfg(test)]
    fn apply_unsigned(self, x: u32) -> u32 {
        if self.multiplier == 0 {
            return x >> self.shift;
        }
        let q = ((u64::from(x) * u64::from(self.multiplier)) >> 32) as u32;
        if self.add {
            (((x - q) >> 1) + q) >> self.shift
        } else {
            q >> self.shift
        }
    }

    /// `x / d` by this magic, signed.
    #[cfg(test)]
    fn apply_signed(self, x: i32) -> i32 {
        if self.multiplier == 0 {
            let bias = if self.shift == 0 {
                0
            } else {
                (((x >> 31) as u32) >> (32 - self.shift)) as i32
            };
            let q = x.wrapping_add(bias) >> self.shift;
            return if self.negative { q.wrapping_neg() } else { q };
        }
        let mut q = ((i64::from(x) * i64::from(self.multiplier as i32)) >> 32) as i32;
        if self.add {
            q = if self.negative {
                q.wrapping_sub(x)
            } else {
                q.wrapping_add(x)
            };
        }
        let q = q >> self.shift;
        q + ((q as u32) >> 31) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::Magic;

    /// Dividends: the edges and a pseudo-random sweep.
    fn dividends() -> Vec<u32> {
        let mut v = vec![
            0,
            1,
            2,
            3,
            0x7fff_ffff,
            0x8000_0000,
            0x8000_0001,
            0xffff_ffff,
        ];
        let mut s = 0x9e37_79b9u32;
        for _ in 0..20_000 {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            v.push(s);
            v.push(s >> (s % 31));
        }
        v
    }

    fn divisors() -> Vec<u32> {
        let mut d: Vec<u32> = (1..=1100).collect();
        d.extend([
            641,
            6_700_417,
            0x7fff_ffff,
            0x8000_0000,
            0x8000_0001,
            0xffff_fffe,
        ]);
        d.extend((1..32).map(|k| 1u32 << k));
        d.extend((2..32).map(|k| (1u32 << k) - 1));
        d.extend((2..32).map(|k| (1u32 << k) + 1));
        let mut s = 0x1234_5677u32;
        for _ in 0..300 {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            d.push(s.max(1));
            d.push((s >> (s % 29)).max(1));
        }
        d
    }

    #[test]
    fn unsigned_magic_divides_exactly() {
        let xs = dividends();
        for d in divisors() {
            let m = Magic::unsigned(d);
            for &x in &xs {
                assert_eq!(m.apply_unsigned(x), x / d, "{x} / {d} ({m:?})");
            }
        }
    }

    #[test]
    fn signed_magic_divides_exactly() {
        let xs = dividends();
        for d in divisors() {
            for d in [d as i32, (d as i32).wrapping_neg()] {
                if d == 0 || d == -1 {
                    continue;
                }
                let m = Magic::signed(d);
                for &x in &xs {
                    let x = x as i32;
                    assert_eq!(m.apply_signed(x), x.wrapping_div(d), "{x} / {d} ({m:?})");
                }
            }
        }
    }
}
