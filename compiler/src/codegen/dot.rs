//! Integer dot products (`SPV_KHR_integer_dot_product`, OpenCL `cl_khr_integer_dot_product`):
//! `OpSDot`/`OpUDot`/`OpSUDot` and their `AccSat` forms, on integer vectors or on 32-bit
//! scalars holding four packed 8-bit components (`PackedVectorFormat4x8Bit`: component 0 in
//! the least significant byte; the OpenCL C `dot_4x8packed_*` functions arrive as these
//! instructions, see `spirv/library.rs`).
//!
//! The products and their sum are computed exactly in 64 bits (every input the extension
//! defines — 8-bit components, or up to 16 components of up to 16 bits — fits), then:
//! without accumulator, the result is the low bits of that sum (the specification's rule);
//! with one, the sum and the accumulator are added with saturation to the result type,
//! signed for `SDot`/`SUDot`, unsigned for `UDot`.

use super::{int_clif, FnTx, Result, Val};
use crate::spirv::{op_id, result_type};
use crate::CompileError;
use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, Word};

/// Whether `op` is one of the dot-product instructions [`FnTx::dot`] lowers.
pub fn is_dot(op: Op) -> bool {
    matches!(
        op,
        Op::SDot | Op::UDot | Op::SUDot | Op::SDotAccSat | Op::UDotAccSat | Op::SUDotAccSat
    )
}

/// One side of a dot product: its components (canonical integers) and how to widen them.
struct Side {
    comps: Vec<Value>,
    width: u32,
    signed: bool,
}

impl FnTx<'_, '_, '_> {
    /// `Op{S,U,SU}Dot[AccSat] result-type result vector1 vector2 [accumulator] [format]`.
    pub(super) fn dot(&mut self, inst: &Instruction) -> Result<()> {
        let op = inst.class.opcode;
        let (a_signed, b_signed, result_signed) = match op {
            Op::SDot | Op::SDotAccSat => (true, true, true),
            Op::UDot | Op::UDotAccSat => (false, false, false),
            _ => (true, false, true),
        };
        let with_acc = matches!(op, Op::SDotAccSat | Op::UDotAccSat | Op::SUDotAccSat);
        let packed = inst
            .operands
            .iter()
            .any(|o| matches!(o, Operand::PackedVectorFormat(_)));
        let rt = result_type(inst)?;
        let width = self
            .int_width(rt)?
            .ok_or_else(|| CompileError::Invalid(format!("Op{op:?} with a non-integer result")))?;
        let a = self.dot_side(op_id(inst, 0)?, a_signed, packed)?;
        let b = self.dot_side(op_id(inst, 1)?, b_signed, packed)?;
        let acc = if with_acc {
            Some(self.scalar(op_id(inst, 2)?)?)
        } else {
            None
        };
        let r = self.dot_value(&a, &b, acc, width, result_signed)?;
        self.set_result(inst, Val::S(r))
    }

    fn dot_side(&mut self, id: Word, signed: bool, packed: bool) -> Result<Side> {
        if packed {
            let x = self.scalar(id)?;
            if self.value_type(x) != types::I32 {
                return Err(CompileError::Invalid(
                    "packed dot-product operand is not a 32-bit integer".into(),
                ));
            }
            let comps = (0..4i64)
                .map(|k| {
                    let s = self.b.ins().ushr_imm_u(x, 8 * k);
                    self.b.ins().ireduce(types::I8, s)
                })
                .collect();
            return Ok(Side {
                comps,
                width: 8,
                signed,
            });
        }
        let ty = self.type_of(id)?;
        let width = self
            .int_width(ty)?
            .ok_or_else(|| CompileError::Invalid("dot product of non-integers".into()))?;
        if width > 32 {
            return Err(CompileError::Unsupported(format!(
                "dot product of {width}-bit components"
            )));
        }
        Ok(Side {
            comps: self.val(id)?.flat(),
            width,
            signed,
        })
    }

    fn widen(&mut self, v: Value, width: u32, signed: bool) -> Value {
        let v = if signed { self.sext_in(v, width) } else { v };
        if self.value_type(v) == types::I64 {
            v
        } else if signed {
            self.b.ins().sextend(types::I64, v)
        } else {
            self.b.ins().uextend(types::I64, v)
        }
    }

    fn dot_value(
        &mut self,
        a: &Side,
        b: &Side,
        acc: Option<Value>,
        width: u32,
        result_signed: bool,
    ) -> Result<Value> {
        if a.comps.len() != b.comps.len() || a.comps.is_empty() {
            return Err(CompileError::Invalid(
                "dot product of vectors of different lengths".into(),
            ));
        }
        let mut sum = self.b.ins().iconst(types::I64, 0);
        for (&x, &y) in a.comps.iter().zip(&b.comps) {
            let x = self.widen(x, a.width, a.signed);
            let y = self.widen(y, b.width, b.signed);
            let p = self.b.ins().imul(x, y);
            sum = self.b.ins().iadd(sum, p);
        }
        let rt = int_clif(width)?;
        let r = match acc {
            None => sum,
            Some(acc) if width < 64 => {
                let acc = self.widen(acc, width, result_signed);
                let total = self.b.ins().iadd(sum, acc);
                if result_signed {
                    let max = self.b.ins().iconst(types::I64, (1i64 << (width - 1)) - 1);
                    let min = self.b.ins().iconst(types::I64, -(1i64 << (width - 1)));
                    let t = self.b.ins().smin(total, max);
                    self.b.ins().smax(t, min)
                } else {
                    // The sum is non-negative (unsigned products); only the top can clip.
                    let max = self
                        .b
                        .ins()
                        .iconst(types::I64, ((1u64 << width) - 1) as i64);
                    self.b.ins().umin(total, max)
                }
            }
            Some(acc) => {
                if result_signed {
                    let (total, overflow) = self.b.ins().sadd_overflow(sum, acc);
                    // On overflow both addends have the sign of the bound crossed.
                    let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, acc, 0);
                    let min = self.b.ins().iconst(types::I64, i64::MIN);
                    let max = self.b.ins().iconst(types::I64, i64::MAX);
                    let bound = self.b.ins().select(neg, min, max);
                    self.b.ins().select(overflow, bound, total)
                } else {
                    let (total, overflow) = self.b.ins().uadd_overflow(sum, acc);
                    let max = self.b.ins().iconst(types::I64, -1);
                    self.b.ins().select(overflow, max, total)
                }
            }
        };
        let r = if rt == types::I64 {
            r
        } else {
            self.b.ins().ireduce(rt, r)
        };
        Ok(self.wrap(r, width))
    }
}
