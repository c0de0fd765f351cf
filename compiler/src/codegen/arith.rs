//! Integer, float, logical and relational instructions (element-wise on vectors).
//!
//! Division never traps: a zero divisor is replaced by 1 (the result is undefined in OpenCL
//! anyway) and `INT_MIN / -1` is computed as a wrapping negation, because a CPU trap would
//! kill the application.

use super::{FnTx, Result, Val};
use crate::spirv::{op_id, result_type};
use crate::CompileError;
use cranelift_codegen::ir::{
    self,
    condcodes::{FloatCC, IntCC},
    types, InstBuilder, MemFlagsData, Value,
};
use cranelift_frontend::FunctionBuilder;
use rspirv::dr::Instruction;
use rspirv::spirv::Op;

pub fn is_arith(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        IAdd | ISub
            | IMul
            | UDiv
            | SDiv
            | UMod
            | SRem
            | SMod
            | SNegate
            | Not
            | ShiftLeftLogical
            | ShiftRightLogical
            | ShiftRightArithmetic
            | BitwiseAnd
            | BitwiseOr
            | BitwiseXor
            | BitCount
            | BitReverse
            | BitFieldInsert
            | BitFieldSExtract
            | BitFieldUExtract
            | FAdd
            | FSub
            | FMul
            | FDiv
            | FRem
            | FMod
            | FNegate
            | VectorTimesScalar
            | Dot
            | IEqual
            | INotEqual
            | UGreaterThan
            | SGreaterThan
            | UGreaterThanEqual
            | SGreaterThanEqual
            | ULessThan
            | SLessThan
            | ULessThanEqual
            | SLessThanEqual
            | FOrdEqual
            | FUnordEqual
            | FOrdNotEqual
            | FUnordNotEqual
            | FOrdLessThan
            | FUnordLessThan
            | FOrdGreaterThan
            | FUnordGreaterThan
            | FOrdLessThanEqual
            | FUnordLessThanEqual
            | FOrdGreaterThanEqual
            | FUnordGreaterThanEqual
            | Ordered
            | Unordered
            | IsNan
            | IsInf
            | IsFinite
            | IsNormal
            | SignBitSet
            | LogicalEqual
            | LogicalNotEqual
            | LogicalOr
            | LogicalAnd
            | LogicalNot
            | Select
            | Any
            | All
            | IAddCarry
            | ISubBorrow
            | UMulExtended
            | SMulExtended
    )
}

/// The integer comparison of a SPIR-V opcode, and whether it is signed.
pub(crate) fn int_cc(op: Op) -> Option<(IntCC, bool)> {
    use Op::*;
    Some(match op {
        IEqual | LogicalEqual => (IntCC::Equal, false),
        INotEqual | LogicalNotEqual => (IntCC::NotEqual, false),
        UGreaterThan => (IntCC::UnsignedGreaterThan, false),
        SGreaterThan => (IntCC::SignedGreaterThan, true),
        UGreaterThanEqual => (IntCC::UnsignedGreaterThanOrEqual, false),
        SGreaterThanEqual => (IntCC::SignedGreaterThanOrEqual, true),
        ULessThan => (IntCC::UnsignedLessThan, false),
        SLessThan => (IntCC::SignedLessThan, true),
        ULessThanEqual => (IntCC::UnsignedLessThanOrEqual, false),
        SLessThanEqual => (IntCC::SignedLessThanOrEqual, true),
        _ => return None,
    })
}

/// The float comparison of a SPIR-V opcode.
pub(crate) fn float_cc(op: Op) -> Option<FloatCC> {
    use Op::*;
    Some(match op {
        FOrdEqual => FloatCC::Equal,
        FUnordEqual => FloatCC::UnorderedOrEqual,
        FOrdNotEqual => FloatCC::OrderedNotEqual,
        FUnordNotEqual => FloatCC::NotEqual,
        FOrdLessThan => FloatCC::LessThan,
        FUnordLessThan => FloatCC::UnorderedOrLessThan,
        FOrdGreaterThan => FloatCC::GreaterThan,
        FUnordGreaterThan => FloatCC::UnorderedOrGreaterThan,
        FOrdLessThanEqual => FloatCC::LessThanOrEqual,
        FUnordLessThanEqual => FloatCC::UnorderedOrLessThanOrEqual,
        FOrdGreaterThanEqual => FloatCC::GreaterThanOrEqual,
        FUnordGreaterThanEqual => FloatCC::UnorderedOrGreaterThanOrEqual,
        Ordered => FloatCC::Ordered,
        Unordered => FloatCC::Unordered,
        _ => return None,
    })
}

impl FnTx<'_, '_, '_> {
    /// `OpBitField{Insert,SExtract,UExtract}` on one component of `w` bits: the field is
    /// `count` bits from bit `offset` (a zero count gives `base`, or zero when extracting;
    /// `offset + count > w` is undefined in SPIR-V and gives whatever the shifts give).
    fn bit_field(
        &mut self,
        op: Op,
        base: Value,
        insert: Option<Value>,
        offset: Value,
        count: Value,
        w: u32,
    ) -> Value {
        let t = self.value_type(base);
        let fit = |s: &mut Self, v: Value| match s.value_type(v).bits().cmp(&t.bits()) {
            std::cmp::Ordering::Greater => s.b.ins().ireduce(t, v),
            std::cmp::Ordering::Less => s.b.ins().uextend(t, v),
            std::cmp::Ordering::Equal => v,
        };
        let offset = fit(self, offset);
        let count = fit(self, count);
        let zero = self.b.ins().iconst(t, 0);
        let empty = self.b.ins().icmp_imm_s(IntCC::Equal, count, 0);
        // The low `count` bits: `w` ones shifted right by `w - count`.
        let ones = if w >= 64 {
            -1
        } else {
            ((1u64 << w) - 1) as i64
        };
        let ones = self.b.ins().iconst(t, ones);
        let width = self.b.ins().iconst(t, i64::from(w));
        let rest = self.b.ins().isub(width, count);
        let low = self.b.ins().ushr(ones, rest);
        let low = self.b.ins().select(empty, zero, low);
        let r = match (op, insert) {
            (Op::BitFieldInsert, Some(insert)) => {
                let mask = self.b.ins().ishl(low, offset);
                let keep = self.b.ins().bnot(mask);
                let kept = self.b.ins().band(base, keep);
                let moved = self.b.ins().ishl(insert, offset);
                let moved = self.b.ins().band(moved, mask);
                self.b.ins().bor(kept, moved)
            }
            (Op::BitFieldUExtract, _) => {
                let shifted = self.b.ins().ushr(base, offset);
                self.b.ins().band(shifted, low)
            }
            _ => {
                // Move the field's top bit to the type's top bit, then shift it back
                // arithmetically.
                let shifted = self.b.ins().ushr(base, offset);
                let bits = self.b.ins().iconst(t, i64::from(t.bits()));
                let up = self.b.ins().isub(bits, count);
                let top = self.b.ins().ishl(shifted, up);
                let field = self.b.ins().sshr(top, up);
                self.b.ins().select(empty, zero, field)
            }
        };
        self.wrap(r, w)
    }

    /// Integer binary operation on canonical `w`-bit operands.
    pub(super) fn int_binary(&mut self, op: Op, x: Value, y: Value, w: u32) -> Result<Value> {
        use Op::*;
        let signed = matches!(op, SDiv | SRem | SMod | ShiftRightArithmetic);
        let (x, y) = if signed {
            let x = self.sext_in(x, w);
            let y = if op == ShiftRightArithmetic {
                y
            } else {
                self.sext_in(y, w)
            };
            (x, y)
        } else {
            (x, y)
        };
        let r = match op {
            IAdd => self.b.ins().iadd(x, y),
            ISub => self.b.ins().isub(x, y),
            IMul => self.b.ins().imul(x, y),
            BitwiseAnd => self.b.ins().band(x, y),
            BitwiseOr => self.b.ins().bor(x, y),
            BitwiseXor => self.b.ins().bxor(x, y),
            ShiftLeftLogical => self.b.ins().ishl(x, y),
            ShiftRightLogical => self.b.ins().ushr(x, y),
            ShiftRightArithmetic => self.b.ins().sshr(x, y),
            UDiv | UMod | SDiv | SRem | SMod => div_rem(&mut self.b, op, x, y),
            _ => return Err(CompileError::Codegen(format!("int_binary {op:?}"))),
        };
        Ok(self.wrap(r, w))
    }

    fn fmod_like(&mut self, x: Value, y: Value, floor_mod: bool) -> Result<Value> {
        let f64_ = self.value_type(x) == types::F64;
        let bi = crate::builtins::lookup("fmod", f64_)
            .ok_or_else(|| CompileError::Codegen("fmod builtin missing".into()))?;
        let r = self.call_builtin(&bi, &[x, y])?;
        if !floor_mod {
            return Ok(r);
        }
        // OpFMod: the result has the sign of y.
        let t = self.value_type(r);
        let zero = if t == types::F64 {
            self.b.ins().f64const(0.0)
        } else {
            self.b.ins().f32const(0.0)
        };
        let nz = self.b.ins().fcmp(FloatCC::NotEqual, r, zero);
        let rneg = self.b.ins().fcmp(FloatCC::LessThan, r, zero);
        let yneg = self.b.ins().fcmp(FloatCC::LessThan, y, zero);
        let diff = self.b.ins().bxor(rneg, yneg);
        let fix = self.b.ins().band(nz, diff);
        let adj = self.b.ins().fadd(r, y);
        Ok(self.b.ins().select(fix, adj, r))
    }

    pub(super) fn arith(&mut self, inst: &Instruction) -> Result<()> {
        use Op::*;
        let op = inst.class.opcode;
        let rt = result_type(inst)?;
        let a_id = op_id(inst, 0)?;
        let a_ty = self.type_of(a_id)?;
        let ops = self.operand_vals(inst, 0)?;
        let need = |n: usize| -> Result<()> {
            if ops.len() < n {
                Err(CompileError::Invalid(format!("Op{op:?}: too few operands")))
            } else {
                Ok(())
            }
        };
        need(1)?;
        let v = match op {
            IAdd | ISub | IMul | UDiv | SDiv | UMod | SRem | SMod | ShiftLeftLogical
            | ShiftRightLogical | ShiftRightArithmetic | BitwiseAnd | BitwiseOr | BitwiseXor => {
                need(2)?;
                let w = self.int_width(rt)?.ok_or_else(|| {
                    CompileError::Invalid(format!("Op{op:?} on a non-integer type"))
                })?;
                self.map_n(rt, &ops[..2], &mut |s, a| s.int_binary(op, a[0], a[1], w))?
            }
            SNegate | Not => {
                let w = self.int_width(rt)?.ok_or_else(|| {
                    CompileError::Invalid(format!("Op{op:?} on a non-integer type"))
                })?;
                self.map_n(rt, &ops[..1], &mut |s, a| {
                    let r = if op == SNegate {
                        s.b.ins().ineg(a[0])
                    } else {
                        s.b.ins().bnot(a[0])
                    };
                    Ok(s.wrap(r, w))
                })?
            }
            BitCount => {
                let rt_t = super::clif_scalar(self.p, super::elem_of(self.p, rt)?)?;
                self.map_n(rt, &ops[..1], &mut |s, a| {
                    let c = s.b.ins().popcnt(a[0]);
                    let ct = s.value_type(c);
                    Ok(if ct.bits() > rt_t.bits() {
                        s.b.ins().ireduce(rt_t, c)
                    } else if ct.bits() < rt_t.bits() {
                        s.b.ins().uextend(rt_t, c)
                    } else {
                        c
                    })
                })?
            }
            BitReverse => {
                let w = self.int_width(rt)?.unwrap_or(32);
                self.map_n(rt, &ops[..1], &mut |s, a| {
                    let r = s.b.ins().bitrev(a[0]);
                    let bits = s.value_type(r).bits();
                    Ok(if bits > w {
                        s.b.ins().ushr_imm_s(r, i64::from(bits - w))
                    } else {
                        r
                    })
                })?
            }
            BitFieldInsert | BitFieldSExtract | BitFieldUExtract => {
                // Offset and Count are scalars shared by every component.
                let n = if op == BitFieldInsert { 2 } else { 1 };
                need(n + 2)?;
                let w = self.int_width(rt)?.ok_or_else(|| {
                    CompileError::Invalid(format!("Op{op:?} on a non-integer type"))
                })?;
                let offset = ops[n].scalar()?;
                let count = ops[n + 1].scalar()?;
                self.map_n(rt, &ops[..n], &mut |s, a| {
                    Ok(s.bit_field(op, a[0], a.get(1).copied(), offset, count, w))
                })?
            }
            FAdd | FSub | FMul | FDiv => {
                need(2)?;
                self.map_n(rt, &ops[..2], &mut |s, a| {
                    Ok(match op {
                        FAdd => s.b.ins().fadd(a[0], a[1]),
                        FSub => s.b.ins().fsub(a[0], a[1]),
                        FMul => s.b.ins().fmul(a[0], a[1]),
                        _ => s.b.ins().fdiv(a[0], a[1]),
                    })
                })?
            }
            FRem | FMod => {
                need(2)?;
                self.map_n(rt, &ops[..2], &mut |s, a| {
                    s.fmod_like(a[0], a[1], op == FMod)
                })?
            }
            FNegate => self.map_n(rt, &ops[..1], &mut |s, a| Ok(s.b.ins().fneg(a[0])))?,
            VectorTimesScalar => {
                need(2)?;
                self.map_n(rt, &ops[..2], &mut |s, a| Ok(s.b.ins().fmul(a[0], a[1])))?
            }
            Dot => {
                need(2)?;
                let (x, y) = (ops[0].flat(), ops[1].flat());
                if x.len() != y.len() || x.is_empty() {
                    return Err(CompileError::Invalid("OpDot operand sizes".into()));
                }
                let mut acc = self.b.ins().fmul(x[0], y[0]);
                for i in 1..x.len() {
                    let m = self.b.ins().fmul(x[i], y[i]);
                    acc = self.b.ins().fadd(acc, m);
                }
                Val::S(acc)
            }
            LogicalAnd | LogicalOr => {
                need(2)?;
                self.map_n(rt, &ops[..2], &mut |s, a| {
                    Ok(if op == LogicalAnd {
                        s.b.ins().band(a[0], a[1])
                    } else {
                        s.b.ins().bor(a[0], a[1])
                    })
                })?
            }
            LogicalNot => {
                self.map_n(rt, &ops[..1], &mut |s, a| Ok(s.b.ins().bxor_imm_s(a[0], 1)))?
            }
            Select => {
                need(3)?;
                self.map_n(rt, &ops[..3], &mut |s, a| {
                    Ok(s.b.ins().select(a[0], a[1], a[2]))
                })?
            }
            Any | All => {
                let x = ops[0].flat();
                let mut acc = *x
                    .first()
                    .ok_or_else(|| CompileError::Invalid("OpAny of nothing".into()))?;
                for v in &x[1..] {
                    acc = if op == Any {
                        self.b.ins().bor(acc, *v)
                    } else {
                        self.b.ins().band(acc, *v)
                    };
                }
                Val::S(acc)
            }
            IAddCarry | ISubBorrow | UMulExtended | SMulExtended => {
                need(2)?;
                let w = self.int_width(a_ty)?.ok_or_else(|| {
                    CompileError::Invalid(format!("Op{op:?} on a non-integer type"))
                })?;
                let (x, y) = (ops[0].flat(), ops[1].flat());
                if x.len() != y.len() {
                    return Err(CompileError::Invalid(format!("Op{op:?}: operand sizes")));
                }
                let (mut lo, mut hi) = (Vec::new(), Vec::new());
                for (a, b) in x.into_iter().zip(y) {
                    let (l, h) = self.extended(op, a, b, w)?;
                    lo.push(l);
                    hi.push(h);
                }
                // The result is a struct of two members of the operand type.
                let mut all = lo;
                all.extend(hi);
                self.unflatten(rt, all)?
            }
            IsNan | IsInf | IsFinite | IsNormal | SignBitSet => {
                let half = super::half::is_half(self.p, self.type_of(op_id(inst, 0)?)?);
                self.map_n(rt, &ops[..1], &mut |s, a| s.float_class(op, a[0], half))?
            }
            _ => {
                if let Some((cc, signed)) = int_cc(op) {
                    need(2)?;
                    let w = self.int_width(a_ty)?.unwrap_or(8);
                    self.map_n(rt, &ops[..2], &mut |s, a| {
                        let (x, y) = if signed {
                            (s.sext_in(a[0], w), s.sext_in(a[1], w))
                        } else {
                            (a[0], a[1])
                        };
                        Ok(s.b.ins().icmp(cc, x, y))
                    })?
                } else if let Some(cc) = float_cc(op) {
                    need(2)?;
                    self.map_n(rt, &ops[..2], &mut |s, a| {
                        Ok(s.b.ins().fcmp(cc, a[0], a[1]))
                    })?
                } else {
                    return Err(self.unsupported(inst));
                }
            }
        };
        self.set_result(inst, v)
    }

    /// `OpIAddCarry` (sum, carry), `OpISubBorrow` (difference, borrow),
    /// `OpUMulExtended`/`OpSMulExtended` (low, high) on canonical `w`-bit operands.
    fn extended(&mut self, op: Op, a: Value, b: Value, w: u32) -> Result<(Value, Value)> {
        use Op::*;
        if !super::is_native(w) {
            return Err(CompileError::Unsupported(format!(
                "Op{op:?} on {w}-bit integers"
            )));
        }
        let t = self.value_type(a);
        Ok(match op {
            IAddCarry => {
                let s = self.b.ins().iadd(a, b);
                let c = self.b.ins().icmp(IntCC::UnsignedLessThan, s, a);
                (s, self.widen_bool(c, t))
            }
            ISubBorrow => {
                let d = self.b.ins().isub(a, b);
                let c = self.b.ins().icmp(IntCC::UnsignedLessThan, a, b);
                (d, self.widen_bool(c, t))
            }
            _ => {
                let signed = op == SMulExtended;
                let lo = self.b.ins().imul(a, b);
                let hi = super::int_fns::mul_hi(&mut self.b, a, b, signed);
                (lo, hi)
            }
        })
    }

    /// A 0/1 `i8` as an integer of type `t`.
    fn widen_bool(&mut self, c: Value, t: ir::Type) -> Value {
        if t.bits() > 8 {
            self.b.ins().uextend(t, c)
        } else {
            c
        }
    }

    /// `isnan`, `isinf`, `isfinite`, `isnormal`, `signbit` of `x` (a half held in an
    /// `f32` if `half`: its smallest normal is 2^-14).
    fn float_class(&mut self, op: Op, x: Value, half: bool) -> Result<Value> {
        let t = self.value_type(x);
        let f64_ = t == types::F64;
        let (inf, min_normal) = if f64_ {
            (
                self.b.ins().f64const(f64::INFINITY),
                self.b.ins().f64const(f64::MIN_POSITIVE),
            )
        } else {
            let min = if half {
                f32::from_bits(0x3880_0000)
            } else {
                f32::MIN_POSITIVE
            };
            (
                self.b.ins().f32const(f32::INFINITY),
                self.b.ins().f32const(min),
            )
        };
        let ax = self.b.ins().fabs(x);
        Ok(match op {
            Op::IsNan => self.b.ins().fcmp(FloatCC::Unordered, x, x),
            Op::IsInf => self.b.ins().fcmp(FloatCC::Equal, ax, inf),
            Op::IsFinite => self.b.ins().fcmp(FloatCC::LessThan, ax, inf),
            Op::IsNormal => {
                let lo = self
                    .b
                    .ins()
                    .fcmp(FloatCC::GreaterThanOrEqual, ax, min_normal);
                let hi = self.b.ins().fcmp(FloatCC::LessThan, ax, inf);
                self.b.ins().band(lo, hi)
            }
            _ => {
                let it = if f64_ { types::I64 } else { types::I32 };
                let bits = self.b.ins().bitcast(it, MemFlagsData::new(), x);
                self.b.ins().icmp_imm_s(IntCC::SignedLessThan, bits, 0)
            }
        })
    }
}

/// The divisor a division uses: 1 where the OpenCL result is undefined and the machine
/// instruction would trap (a zero divisor; -1 for signed division, whose `MIN / -1`
/// overflows).
fn safe_divisor(b: &mut FunctionBuilder, y: Value, signed: bool) -> Value {
    let t = b.func.dfg.value_type(y);
    let one = b.ins().iconst(t, 1);
    let zero = b.ins().icmp_imm_s(IntCC::Equal, y, 0);
    let bad = if signed {
        let m1 = b.ins().icmp_imm_s(IntCC::Equal, y, -1);
        b.ins().bor(zero, m1)
    } else {
        zero
    };
    b.ins().select(bad, one, y)
}

/// Integer division and remainder (`OpUDiv`, `OpUMod`, `OpSDiv`, `OpSRem`, `OpSMod`) of
/// two scalars of one native width (signed operands sign-extended), never trapping: a zero
/// divisor gives an unspecified value, `x / -1` is `-x` and `x % -1` is 0. The scalar
/// translator and the vectoriser's lanes both use it, so they agree bit for bit.
pub(crate) fn div_rem(b: &mut FunctionBuilder, op: Op, x: Value, y: Value) -> Value {
    match op {
        Op::UDiv => {
            let d = safe_divisor(b, y, false);
            b.ins().udiv(x, d)
        }
        Op::UMod => {
            let d = safe_divisor(b, y, false);
            b.ins().urem(x, d)
        }
        Op::SDiv => {
            let d = safe_divisor(b, y, true);
            let q = b.ins().sdiv(x, d);
            let neg = b.ins().ineg(x);
            let m1 = b.ins().icmp_imm_s(IntCC::Equal, y, -1);
            b.ins().select(m1, neg, q)
        }
        _ => {
            let d = safe_divisor(b, y, true);
            let r = b.ins().srem(x, d);
            if op == Op::SRem {
                r
            } else {
                // OpSMod: the result takes the divisor's sign.
                let t = b.func.dfg.value_type(r);
                let zero = b.ins().iconst(t, 0);
                let nz = b.ins().icmp(IntCC::NotEqual, r, zero);
                let sx = b.ins().bxor(r, y);
                let diff = b.ins().icmp(IntCC::SignedLessThan, sx, zero);
                let fix = b.ins().band(nz, diff);
                let adj = b.ins().iadd(r, y);
                b.ins().select(fix, adj, r)
            }
        }
    }
}
