//! Inlining of calls inside a kernel body that is itself translated inside the work-group
//! function's loop nest ([`Inline`](super::Inline) mode).
//!
//! Cranelift does not inline, so a call per work-item would remain wherever the kernel
//! calls a function, and llvm-spirv-15 makes every OpenCL C kernel such a call: its entry
//! point is a wrapper calling the real kernel function. A callee that is called from one
//! place, or is small, is translated in place instead: its parameters are bound to the
//! argument values, its blocks get blocks of their own, a return jumps to a continuation
//! block whose parameters are the returned values. The translator's per-function state
//! (values, blocks, phis) is swapped out for the callee's and back, so a callee inlined
//! twice gets fresh blocks and values each time (SPIR-V ids are unique per module, not per
//! inlined copy).
//!
//! A call that is not inlined stays a call; in inline mode the work-item record it reads
//! ids from is brought up to date just before it ([`FnTx::sync_record`]).

use super::{flat_types, unflatten, FnTx, Result, WI_GID, WI_LID};
use crate::spirv::{op_id, result_type, Program, Type};
use crate::CompileError;
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};
use rspirv::dr::Instruction;
use rspirv::spirv::{Op, Word};
use std::collections::HashMap;

/// A callee with at most this many instructions is inlined wherever it is called.
const SMALL: usize = 120;
/// Deepest chain of inlined calls.
const MAX_DEPTH: u32 = 8;

/// Static call sites of each function among `funcs`.
pub fn call_counts(p: &Program, funcs: &[Word]) -> Result<HashMap<Word, usize>> {
    let mut n = HashMap::new();
    for f in funcs {
        for b in &p.function(*f)?.blocks {
            for i in &b.insts {
                if i.class.opcode == Op::FunctionCall {
                    *n.entry(op_id(i, 0)?).or_insert(0) += 1;
                }
            }
        }
    }
    Ok(n)
}

/// The translator's per-function state, swapped out while a callee is inlined.
struct Saved<'p> {
    f: &'p crate::spirv::Function,
    vals: HashMap<Word, super::Val>,
    tys: HashMap<Word, Word>,
    blocks: HashMap<Word, cranelift_codegen::ir::Block>,
    phi_vars: HashMap<Word, Vec<cranelift_frontend::Variable>>,
    block_phis: HashMap<Word, Vec<super::Phi>>,
    builtin_ptrs: HashMap<Word, (rspirv::spirv::BuiltIn, Option<u32>)>,
    cur_label: Word,
    exit_first: std::collections::HashSet<Word>,
    ret: cranelift_codegen::ir::Block,
    step: Option<super::regions::StepCtx<'p>>,
}

impl<'p> FnTx<'_, '_, 'p> {
    /// Translate the call `inst` in place if it should be (see the module docs); `false`
    /// leaves it to [`FnTx::call`].
    pub(super) fn try_inline_call(&mut self, inst: &Instruction) -> Result<bool> {
        let Some(il) = self.inline.as_ref() else {
            return Ok(false);
        };
        if il.depth >= MAX_DEPTH {
            return Ok(false);
        }
        let callee = op_id(inst, 0)?;
        let p = self.p;
        let f = p.function(callee)?;
        let size: usize = f.blocks.iter().map(|b| b.insts.len()).sum();
        let once = il.call_counts.get(&callee).copied().unwrap_or(0) <= 1;
        if !(once || size <= SMALL) || f.blocks.is_empty() {
            return Ok(false);
        }
        if f.params.len() + 1 != inst.operands.len() {
            return Err(CompileError::Invalid(format!(
                "call to {} with {} arguments",
                f.name,
                inst.operands.len() - 1
            )));
        }
        let rt = result_type(inst)?;
        // Arguments, flattened and rebuilt with the parameters' types.
        let mut args = Vec::new();
        for v in self.operand_vals(inst, 1)? {
            v.flatten(&mut args);
        }
        let mut want = Vec::new();
        for prm in &f.params {
            flat_types(p, prm.ty, &mut want)?;
        }
        if want.len() != args.len()
            || want
                .iter()
                .zip(&args)
                .any(|(t, a)| *t != self.b.func.dfg.value_type(*a))
        {
            return Err(CompileError::Invalid(format!(
                "call to {}: argument types do not match",
                f.name
            )));
        }
        let mut it = args.into_iter();
        let mut vals = HashMap::new();
        let mut tys = HashMap::new();
        for prm in &f.params {
            vals.insert(prm.id, unflatten(p, prm.ty, &mut it)?);
            tys.insert(prm.id, prm.ty);
        }
        // The continuation: its parameters are the returned values.
        let cont = self.b.create_block();
        let mut rets = Vec::new();
        if !matches!(p.ty(rt)?, Type::Void) {
            flat_types(p, rt, &mut rets)?;
        }
        for t in &rets {
            self.b.append_block_param(cont, *t);
        }

        let saved = Saved {
            f: std::mem::replace(&mut self.f, f),
            vals: std::mem::replace(&mut self.vals, vals),
            tys: std::mem::replace(&mut self.tys, tys),
            blocks: std::mem::take(&mut self.blocks),
            phi_vars: std::mem::take(&mut self.phi_vars),
            block_phis: std::mem::take(&mut self.block_phis),
            builtin_ptrs: std::mem::take(&mut self.builtin_ptrs),
            cur_label: self.cur_label,
            exit_first: std::mem::take(&mut self.exit_first),
            ret: self.set_inline_ret(cont, 1),
            step: self.step.take(),
        };
        // A callee has no boundaries (those were inlined by the split): it is translated
        // as plain code even inside a step.
        let r = self.translate_body();
        let r = match (r, self.pending.take()) {
            (Ok(()), Some(e)) => Err(e),
            (r, _) => r,
        };
        self.step = saved.step;
        self.f = saved.f;
        self.vals = saved.vals;
        self.tys = saved.tys;
        self.blocks = saved.blocks;
        self.phi_vars = saved.phi_vars;
        self.block_phis = saved.block_phis;
        self.builtin_ptrs = saved.builtin_ptrs;
        self.cur_label = saved.cur_label;
        self.exit_first = saved.exit_first;
        self.set_inline_ret(saved.ret, -1);
        r?;
        self.b.switch_to_block(cont);
        self.terminated = false;
        if !rets.is_empty() {
            let results = self.b.block_params(cont).to_vec();
            let v = self.unflatten(rt, results)?;
            self.set_result(inst, v)?;
        }
        Ok(true)
    }

    /// End a step with the next state `n`: return it, or, inlined into the work-group
    /// function's region loop, pass it to the loop's continuation.
    pub(super) fn step_return(&mut self, n: Value) {
        match self.inline.as_ref().map(|i| i.ret) {
            Some(ret) => {
                self.b.ins().jump(ret, &[BlockArg::Value(n)]);
            }
            None => {
                self.b.ins().return_(&[n]);
            }
        }
    }

    /// Make `ret` where a return goes and change the inlining depth by `depth`; returns
    /// the previous return block.
    fn set_inline_ret(
        &mut self,
        ret: cranelift_codegen::ir::Block,
        depth: i32,
    ) -> cranelift_codegen::ir::Block {
        match self.inline.as_mut() {
            Some(il) => {
                il.depth = il.depth.saturating_add_signed(depth);
                std::mem::replace(&mut il.ret, ret)
            }
            None => ret,
        }
    }

    /// In inline mode, store the work-item's ids into its record before a real call (the
    /// callee answers `get_global_id` and friends from it).
    pub(super) fn sync_record(&mut self) {
        let Some(il) = self.inline.as_ref() else {
            return;
        };
        let (lid, gid) = (il.lid, il.gid);
        for d in 0..3 {
            let off = 8 * d as i32;
            self.b
                .ins()
                .store(super::trusted(), lid[d], self.wi, WI_LID + off);
            self.b
                .ins()
                .store(super::trusted(), gid[d], self.wi, WI_GID + off);
        }
    }
}
