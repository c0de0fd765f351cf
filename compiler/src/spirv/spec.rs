//! `OpSpecConstantOp`: folded at lift time, once the specialization constants it reads have
//! their values (`Module::from_spirv_with_spec_constants`), into an ordinary constant.
//! Scalar integer, boolean and floating operations, conversions, `OpSelect` and
//! `OpCompositeExtract` are folded; anything else is an error naming the operation.

use super::{op_id, op_lit, result_id, result_type, Constant, Program, Result, Type};
use crate::CompileError;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, Word};

/// A scalar constant's value and type.
#[derive(Clone, Copy)]
struct Sc {
    bits: u64,
    ty: Word,
}

impl Program {
    fn scalar_const(&self, id: Word) -> Result<Sc> {
        match self.constant(id)? {
            Constant::Scalar { ty, bits } => Ok(Sc {
                bits: *bits,
                ty: *ty,
            }),
            Constant::Null { ty } => Ok(Sc { bits: 0, ty: *ty }),
            Constant::Composite { .. } => Err(CompileError::Unsupported(
                "OpSpecConstantOp on a composite constant".into(),
            )),
        }
    }

    /// Bit width of a scalar type (bool: 1).
    fn width_of(&self, ty: Word) -> Result<u32> {
        Ok(match self.scalar_type(ty)? {
            Type::Bool => 1,
            Type::Int { width, .. } | Type::Float { width } => width,
            _ => 0,
        })
    }

    /// Fold `OpSpecConstantOp` into `self.constants`.
    pub(super) fn fold_spec_op(&mut self, inst: &Instruction) -> Result<()> {
        let id = result_id(inst)?;
        let rt = result_type(inst)?;
        let Some(Operand::LiteralSpecConstantOpInteger(op)) = inst.operands.first() else {
            return Err(CompileError::Invalid(
                "OpSpecConstantOp without an operation".into(),
            ));
        };
        let op = *op;
        if op == Op::CompositeExtract {
            let mut c = op_id(inst, 1)?;
            for i in 2..inst.operands.len() {
                let k = op_lit(inst, i)? as usize;
                c = match self.constant(c)? {
                    Constant::Composite { parts, .. } => *parts.get(k).ok_or_else(|| {
                        CompileError::Invalid("OpSpecConstantOp: index out of range".into())
                    })?,
                    Constant::Null { .. } => {
                        self.constants.insert(id, Constant::Null { ty: rt });
                        return Ok(());
                    }
                    Constant::Scalar { .. } => {
                        return Err(CompileError::Invalid(
                            "OpSpecConstantOp: extract from a scalar".into(),
                        ))
                    }
                };
            }
            let v = self.constant(c)?.clone();
            self.constants.insert(id, v);
            return Ok(());
        }
        let mut ops = Vec::new();
        for i in 1..inst.operands.len() {
            ops.push(self.scalar_const(op_id(inst, i)?)?);
        }
        let wd = self.width_of(rt)?;
        let bits = self.fold(op, &ops, rt, wd)?;
        let bits = if wd < 64 && wd > 0 {
            bits & ((1u64 << wd) - 1)
        } else {
            bits
        };
        self.constants.insert(id, Constant::Scalar { ty: rt, bits });
        Ok(())
    }

    fn fold(&self, op: Op, a: &[Sc], rt: Word, wd: u32) -> Result<u64> {
        let need = |n: usize| -> Result<()> {
            if a.len() < n {
                Err(CompileError::Invalid(format!(
                    "OpSpecConstantOp {op:?}: too few operands"
                )))
            } else {
                Ok(())
            }
        };
        need(1)?;
        let w0 = self.width_of(a[0].ty)?;
        let sx = |s: Sc, w: u32| -> i64 {
            if w >= 64 || w == 0 {
                s.bits as i64
            } else {
                ((s.bits << (64 - w)) as i64) >> (64 - w)
            }
        };
        let f = |s: Sc, w: u32| -> f64 {
            if w == 32 {
                f64::from(f32::from_bits(s.bits as u32))
            } else {
                f64::from_bits(s.bits)
            }
        };
        let fb = |x: f64| -> u64 {
            if wd == 32 {
                u64::from((x as f32).to_bits())
            } else {
                x.to_bits()
            }
        };
        let b = |x: bool| u64::from(x);
        let sh = |s: Sc| (s.bits & 63) as u32;
        use Op::*;
        Ok(match op {
            SNegate => sx(a[0], w0).wrapping_neg() as u64,
            Not => !a[0].bits,
            LogicalNot => b(a[0].bits == 0),
            FNegate => fb(-f(a[0], w0)),
            SConvert => sx(a[0], w0) as u64,
            UConvert | Bitcast => a[0].bits,
            FConvert => fb(f(a[0], w0)),
            ConvertSToF => fb(sx(a[0], w0) as f64),
            ConvertUToF => fb(a[0].bits as f64),
            ConvertFToS => (f(a[0], w0) as i64) as u64,
            ConvertFToU => f(a[0], w0) as u64,
            Select => {
                need(3)?;
                if a[0].bits != 0 {
                    a[1].bits
                } else {
                    a[2].bits
                }
            }
            _ => {
                need(2)?;
                let (x, y) = (a[0], a[1]);
                let (xs, ys) = (sx(x, w0), sx(y, w0));
                match op {
                    IAdd => x.bits.wrapping_add(y.bits),
                    ISub => x.bits.wrapping_sub(y.bits),
                    IMul => x.bits.wrapping_mul(y.bits),
                    UDiv => x.bits.checked_div(y.bits).unwrap_or(0),
                    UMod => x.bits.checked_rem(y.bits).unwrap_or(0),
                    SDiv => xs.checked_div(ys).unwrap_or(0) as u64,
                    SRem => xs.checked_rem(ys).unwrap_or(0) as u64,
                    SMod => {
                        let r = xs.checked_rem(ys).unwrap_or(0);
                        (if r != 0 && (r < 0) != (ys < 0) {
                            r + ys
                        } else {
                            r
                        }) as u64
                    }
                    ShiftLeftLogical => x.bits.wrapping_shl(sh(y)),
                    ShiftRightLogical => x.bits.wrapping_shr(sh(y)),
                    ShiftRightArithmetic => xs.wrapping_shr(sh(y)) as u64,
                    BitwiseOr | LogicalOr => x.bits | y.bits,
                    BitwiseAnd | LogicalAnd => x.bits & y.bits,
                    BitwiseXor => x.bits ^ y.bits,
                    LogicalEqual | IEqual => b(x.bits == y.bits),
                    LogicalNotEqual | INotEqual => b(x.bits != y.bits),
                    ULessThan => b(x.bits < y.bits),
                    UGreaterThan => b(x.bits > y.bits),
                    ULessThanEqual => b(x.bits <= y.bits),
                    UGreaterThanEqual => b(x.bits >= y.bits),
                    SLessThan => b(xs < ys),
                    SGreaterThan => b(xs > ys),
                    SLessThanEqual => b(xs <= ys),
                    SGreaterThanEqual => b(xs >= ys),
                    FAdd => fb(f(x, w0) + f(y, w0)),
                    FSub => fb(f(x, w0) - f(y, w0)),
                    FMul => fb(f(x, w0) * f(y, w0)),
                    FDiv => fb(f(x, w0) / f(y, w0)),
                    FRem => fb(f(x, w0) % f(y, w0)),
                    _ => {
                        return Err(CompileError::UnsupportedOpcode {
                            opcode: format!("SpecConstantOp {op:?} (result %{rt})"),
                            function: "(module scope)".into(),
                        })
                    }
                }
            }
        })
    }
}
