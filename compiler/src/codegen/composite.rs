//! Composites: construct/extract/insert, vector shuffles, dynamic vector element access.

use super::builtins_ids::out_of_range_value;
use super::{FnTx, Result, Val};
use crate::spirv::{op_id, op_lit, result_type, Type};
use crate::CompileError;
use cranelift_codegen::ir::{condcodes::IntCC, InstBuilder, Value};
use rspirv::dr::Instruction;
use rspirv::spirv::Op;

fn bad_index() -> CompileError {
    CompileError::Invalid("composite index out of range".into())
}

impl FnTx<'_, '_, '_> {
    pub(super) fn composite(&mut self, inst: &Instruction) -> Result<()> {
        let rt = result_type(inst)?;
        let p = self.p;
        let v = match inst.class.opcode {
            Op::CompositeConstruct => {
                let parts = self.operand_vals(inst, 0)?;
                if matches!(p.ty(rt)?, Type::Vector { .. }) {
                    let mut flat = Vec::new();
                    parts.iter().for_each(|x| x.flatten(&mut flat));
                    self.unflatten(rt, flat)?
                } else {
                    Val::C(parts)
                }
            }
            Op::CompositeExtract => {
                let src = op_id(inst, 0)?;
                let mut v = self.val(src)?;
                if let Some(b) = self.builtin_vals.get(&src).copied() {
                    // `get_global_size(4)`: a constant dimension past the last one.
                    let k = op_lit(inst, 1)? as usize;
                    if inst.operands.len() == 2 && k >= v.flat().len() {
                        let t = super::clif_scalar(p, rt)?;
                        let d = self.b.ins().iconst(t, out_of_range_value(b));
                        return self.set_result(inst, Val::S(d));
                    }
                }
                for i in 1..inst.operands.len() {
                    let k = op_lit(inst, i)? as usize;
                    v = match v {
                        Val::C(mut parts) if k < parts.len() => parts.swap_remove(k),
                        _ => return Err(bad_index()),
                    };
                }
                v
            }
            Op::CompositeInsert => {
                let obj = self.val(op_id(inst, 0)?)?;
                let mut comp = self.val(op_id(inst, 1)?)?;
                let mut idx = Vec::new();
                for i in 2..inst.operands.len() {
                    idx.push(op_lit(inst, i)? as usize);
                }
                let mut slot = &mut comp;
                for k in idx {
                    slot = match slot {
                        Val::C(parts) => parts.get_mut(k).ok_or_else(bad_index)?,
                        Val::S(_) => return Err(bad_index()),
                    };
                }
                *slot = obj;
                comp
            }
            // `OpCopyLogical` copies between types that differ only in decorations (the
            // explicit layout of one, none on the other): values are kept by structure, so
            // it is a copy. `OpExpectKHR` returns its value; the expectation is a hint.
            Op::CopyObject | Op::CopyLogical | Op::ExpectKHR => self.val(op_id(inst, 0)?)?,
            Op::VectorShuffle => {
                let a = self.val(op_id(inst, 0)?)?.flat();
                let b = self.val(op_id(inst, 1)?)?.flat();
                let all: Vec<Value> = a.into_iter().chain(b).collect();
                let Type::Vector { elem, .. } = p.ty(rt)?.clone() else {
                    return Err(CompileError::Invalid("OpVectorShuffle result".into()));
                };
                let mut out = Vec::new();
                for i in 2..inst.operands.len() {
                    let k = op_lit(inst, i)?;
                    if k == u32::MAX {
                        let z = self.zero(elem)?;
                        out.push(z.scalar()?);
                    } else {
                        out.push(*all.get(k as usize).ok_or_else(bad_index)?);
                    }
                }
                self.unflatten(rt, out)?
            }
            Op::VectorExtractDynamic => {
                let src = op_id(inst, 0)?;
                let v = self.val(src)?.flat();
                let idx = self.scalar(op_id(inst, 1)?)?;
                if let Some(b) = self.builtin_vals.get(&src).copied() {
                    // `get_global_size(dimindx)`: the out-of-range value past the last.
                    let r = self.builtin_element(b, &v, idx);
                    return self.set_result(inst, Val::S(r));
                }
                let mut r = *v.first().ok_or_else(bad_index)?;
                for (i, x) in v.iter().enumerate().skip(1) {
                    let is = self.b.ins().icmp_imm_s(IntCC::Equal, idx, i as i64);
                    r = self.b.ins().select(is, *x, r);
                }
                Val::S(r)
            }
            Op::VectorInsertDynamic => {
                let v = self.val(op_id(inst, 0)?)?.flat();
                let c = self.scalar(op_id(inst, 1)?)?;
                let idx = self.scalar(op_id(inst, 2)?)?;
                let mut out = Vec::new();
                for (i, x) in v.iter().enumerate() {
                    let is = self.b.ins().icmp_imm_s(IntCC::Equal, idx, i as i64);
                    out.push(self.b.ins().select(is, c, *x));
                }
                self.unflatten(rt, out)?
            }
            _ => return Err(self.unsupported(inst)),
        };
        self.set_result(inst, v)
    }
}
