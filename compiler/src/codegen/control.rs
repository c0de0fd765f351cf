//! Control flow: branches, `OpSwitch`, returns, calls.

use super::flat_types;
use super::{FnTx, Result};
use crate::spirv::{op_id, result_type, Block, Type};
use crate::CompileError;
use cranelift_codegen::ir;
use cranelift_codegen::ir::{condcodes::IntCC, BlockArg, InstBuilder, TrapCode};
use cranelift_frontend::Switch;
use cranelift_module::Module as _;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, Word};

/// Successor labels of a block (from its last instruction).
pub fn successors(b: &Block) -> Result<Vec<Word>> {
    let Some(t) = b.insts.last() else {
        return Err(CompileError::Invalid(format!("empty block %{}", b.label)));
    };
    Ok(match t.class.opcode {
        Op::Branch => vec![op_id(t, 0)?],
        Op::BranchConditional => vec![op_id(t, 1)?, op_id(t, 2)?],
        Op::Switch => {
            let mut v = vec![op_id(t, 1)?];
            for k in (3..t.operands.len()).step_by(2) {
                v.push(op_id(t, k)?);
            }
            v
        }
        _ => Vec::new(),
    })
}

impl FnTx<'_, '_, '_> {
    pub(super) fn terminator(&mut self, inst: &Instruction) -> Result<()> {
        match inst.class.opcode {
            Op::Branch => {
                let to = op_id(inst, 0)?;
                let blk = self.block(to)?;
                self.def_phis(to)?;
                self.b.ins().jump(blk, &[]);
            }
            Op::BranchConditional => {
                let c = self.scalar(op_id(inst, 0)?)?;
                let (t, f) = (op_id(inst, 1)?, op_id(inst, 2)?);
                let (tb, fb) = (self.block(t)?, self.block(f)?);
                self.def_phis(t)?;
                if f != t {
                    self.def_phis(f)?;
                }
                if self.exit_first.contains(&self.cur_label) {
                    let not_c = self.b.ins().icmp_imm_s(IntCC::Equal, c, 0);
                    self.b.ins().brif(not_c, fb, &[], tb, &[]);
                } else {
                    self.b.ins().brif(c, tb, &[], fb, &[]);
                }
            }
            Op::Switch => {
                let sel_id = op_id(inst, 0)?;
                let sel = self.scalar(sel_id)?;
                let default = op_id(inst, 1)?;
                let mut targets = vec![default];
                let mut sw = Switch::new();
                let mut seen = std::collections::HashSet::new();
                for k in (2..inst.operands.len()).step_by(2) {
                    let lit = match inst.operands.get(k) {
                        Some(Operand::LiteralBit32(x)) => u64::from(*x),
                        Some(Operand::LiteralBit64(x)) => *x,
                        _ => return Err(CompileError::Invalid("OpSwitch literal".into())),
                    };
                    let label = op_id(inst, k + 1)?;
                    let width = self.value_type(sel).bits();
                    let lit = if width < 64 {
                        lit & ((1u64 << width) - 1)
                    } else {
                        lit
                    };
                    if !seen.insert(lit) {
                        return Err(CompileError::Invalid(format!(
                            "OpSwitch: case {lit} appears twice"
                        )));
                    }
                    sw.set_entry(u128::from(lit), self.block(label)?);
                    targets.push(label);
                }
                targets.sort_unstable();
                targets.dedup();
                for t in targets {
                    self.def_phis(t)?;
                }
                let db = self.block(default)?;
                sw.emit(&mut self.b, sel, db);
            }
            Op::Return if self.step.is_some() => self.step_exit(),
            Op::Return if self.inline.is_some() => {
                // An inlined body: on to the next work-item, or back into the caller.
                if let Some(ret) = self.inline.as_ref().map(|i| i.ret) {
                    self.b.ins().jump(ret, &[]);
                }
            }
            Op::ReturnValue if self.inline.is_some() => {
                let v = self.val(op_id(inst, 0)?)?.flat();
                let v: Vec<_> = v.into_iter().map(BlockArg::Value).collect();
                if let Some(ret) = self.inline.as_ref().map(|i| i.ret) {
                    self.b.ins().jump(ret, &v);
                }
            }
            Op::Return => {
                self.b.ins().return_(&[]);
            }
            Op::ReturnValue => {
                let v = self.val(op_id(inst, 0)?)?.flat();
                self.b.ins().return_(&v);
            }
            Op::Unreachable => {
                self.b.ins().trap(TrapCode::unwrap_user(1));
            }
            _ => return Err(self.unsupported(inst)),
        }
        Ok(())
    }

    /// `OpFunctionPointerCallINTEL`: an indirect call with the calling convention of
    /// direct ones (the arguments flattened, then the work-item record), which functions
    /// compiled for `zeModuleGetFunctionPointer` have (`pipeline::compile_function`).
    pub(super) fn call_pointer(&mut self, inst: &Instruction) -> Result<()> {
        let rt = result_type(inst)?;
        let callee = self.scalar(op_id(inst, 0)?)?;
        let mut args = Vec::new();
        for v in self.operand_vals(inst, 1)? {
            v.flatten(&mut args);
        }
        self.sync_record();
        args.push(self.wi);
        let mut sig = self.env.module.make_signature();
        for a in &args {
            sig.params
                .push(ir::AbiParam::new(self.b.func.dfg.value_type(*a)));
        }
        if !matches!(self.p.ty(rt)?, Type::Void) {
            let mut rets = Vec::new();
            flat_types(self.p, rt, &mut rets)?;
            sig.returns.extend(rets.into_iter().map(ir::AbiParam::new));
        }
        let sig = self.b.import_signature(sig);
        let call = self.b.ins().call_indirect(sig, callee, &args);
        let results = self.b.inst_results(call).to_vec();
        if !matches!(self.p.ty(rt)?, Type::Void) {
            let v = self.unflatten(rt, results)?;
            self.set_result(inst, v)?;
        }
        Ok(())
    }

    pub(super) fn call(&mut self, inst: &Instruction) -> Result<()> {
        if self.try_inline_call(inst)? {
            return Ok(());
        }
        let callee = op_id(inst, 0)?;
        let rt = result_type(inst)?;
        let fid = *self.env.funcs.get(&callee).ok_or(CompileError::InvalidId {
            id: callee,
            expected: "function",
        })?;
        let f = self.p.function(callee)?;
        if f.params.len() + 1 != inst.operands.len() {
            return Err(CompileError::Invalid(format!(
                "call to {} with {} arguments",
                f.name,
                inst.operands.len() - 1
            )));
        }
        let mut args = Vec::new();
        for v in self.operand_vals(inst, 1)? {
            v.flatten(&mut args);
        }
        self.sync_record();
        args.push(self.wi);
        let fref = match self.func_refs.get(&callee) {
            Some(r) => *r,
            None => {
                let r = self.env.module.declare_func_in_func(fid, self.b.func);
                self.func_refs.insert(callee, r);
                r
            }
        };
        let expected = self.b.func.dfg.ext_funcs[fref].signature;
        let sig = &self.b.func.dfg.signatures[expected];
        if sig.params.len() != args.len()
            || sig
                .params
                .iter()
                .zip(&args)
                .any(|(p, a)| p.value_type != self.b.func.dfg.value_type(*a))
        {
            return Err(CompileError::Invalid(format!(
                "call to {}: argument types do not match",
                f.name
            )));
        }
        let call = self.b.ins().call(fref, &args);
        let results = self.b.inst_results(call).to_vec();
        if !matches!(self.p.ty(rt)?, Type::Void) {
            let v = self.unflatten(rt, results)?;
            self.set_result(inst, v)?;
        }
        Ok(())
    }
}
