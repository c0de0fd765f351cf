//! Values carried through a fast path and its fallback. Cranelift places a pure value
//! where it is first used, not where the translator built it, so a value computed before
//! a branch between a fast path and its fallback (a clamped or widened index's vector
//! access, a 4-vector's rows) and used only after their join was computed after the join,
//! and whatever it was computed from stayed live across both paths. A 5×5 filter's taps,
//! each a clamped load and a multiply-add into the sum, loaded all five rows of sixteen
//! lanes before the first multiply-add, and spilled them. [`VTx::carry`] makes such values
//! parameters of the join, so each is computed in the paths, before they end.

use super::{VTx, V};
use cranelift_codegen::ir::{self, Block, BlockArg, InstBuilder, Value};
use rspirv::dr::Operand;
use rspirv::spirv::{Op, Word};
use std::collections::{HashMap, HashSet};

/// The values [`VTx::carry`] passes to a join: the ids, their values before, their
/// parts in order, and the join's parameters for them.
#[derive(Default)]
pub(super) struct Carry {
    ids: Vec<(Word, V)>,
    parts: Vec<Value>,
    params: Vec<Value>,
}

impl VTx<'_, '_, '_, '_> {
    /// The values of the block being translated that later instructions use and that
    /// are still pending, as new parameters of `join` (called before the branch to a
    /// fast path and its fallback, which then pass them with [`Self::carry_args`]). A
    /// value is pending when one of its parts is the result of an operation on two or
    /// more values that reads no memory (a block parameter or a load is where it is
    /// already). Not in masked mode, whose blocks are laid out in `linear.rs`.
    pub(super) fn carry(&mut self, join: Block) -> Carry {
        let mut c = Carry::default();
        if self.plan.linear.is_some() {
            return c;
        }
        for &id in &self.defined_here {
            let live =
                self.escapes.contains(&id) || self.last_use.get(&id).is_some_and(|&u| u > self.pos);
            if !live || self.block_consts.contains(&id) {
                continue;
            }
            let Some(v) = self.vals.get(&id) else {
                continue;
            };
            let Some(parts) = parts_of(v) else {
                continue;
            };
            if !parts.iter().any(|&p| pending(&self.b.func.dfg, p)) {
                continue;
            }
            c.parts.extend(&parts);
            c.ids.push((id, v.clone()));
        }
        for p in &c.parts {
            let t = self.b.func.dfg.value_type(*p);
            c.params.push(self.b.append_block_param(join, t));
        }
        c
    }

    /// The arguments a path passes for `c` ([`Self::carry`]). The fallback passes each
    /// value through a copy (`band` with itself, which Cranelift folds away later): the
    /// same value from both paths would make the parameter a constant one, which
    /// Cranelift removes before it places the values, and the value would be placed
    /// after the join again.
    pub(super) fn carry_args(&mut self, c: &Carry, fallback: bool) -> Vec<BlockArg> {
        c.parts
            .iter()
            .map(|&p| match fallback {
                true => BlockArg::Value(self.b.ins().band(p, p)),
                false => BlockArg::Value(p),
            })
            .collect()
    }

    /// After the switch to the join: the carried values are its parameters.
    pub(super) fn carried(&mut self, c: Carry) {
        let mut params = c.params.into_iter();
        for (id, v) in c.ids {
            let v = with_parts(&v, &mut params);
            self.vals.insert(id, v);
        }
    }
}

/// The Cranelift values of `v` when it is whole vectors (of one or more components).
fn parts_of(v: &V) -> Option<Vec<Value>> {
    match v {
        V::Vec(p) | V::F64(p) | V::Zext(p, _) => Some(p.clone()),
        V::Comp(c) => {
            let mut out = Vec::new();
            for x in c {
                out.extend(parts_of(x)?);
            }
            Some(out)
        }
        _ => None,
    }
}

/// `v` with its parts ([`parts_of`]) replaced, in order, by `new`'s.
fn with_parts(v: &V, new: &mut impl Iterator<Item = Value>) -> V {
    let mut take = |p: &[Value]| -> Vec<Value> { p.iter().filter_map(|_| new.next()).collect() };
    match v {
        V::Vec(p) => V::Vec(take(p)),
        V::F64(p) => V::F64(take(p)),
        V::Zext(p, t) => V::Zext(take(p), *t),
        V::Comp(c) => V::Comp(c.iter().map(|x| with_parts(x, new)).collect()),
        other => other.clone(),
    }
}

/// Whether Cranelift would place `v` where it is used, not where it was built: the
/// result of an operation on two or more values that neither reads memory nor calls
/// ([`VTx::carry`]).
fn pending(dfg: &ir::DataFlowGraph, v: Value) -> bool {
    let ir::ValueDef::Result(inst, _) = dfg.value_def(v) else {
        return false;
    };
    let op = dfg.insts[inst].opcode();
    !op.can_load() && !op.is_call() && !op.other_side_effects() && dfg.inst_args(inst).len() >= 2
}

/// The ids used outside the block that defines them, or by a phi ([`VTx::carry`]
/// carries such a value whatever the position in its block).
pub(super) fn escapes(blocks: &[crate::spirv::Block]) -> HashSet<Word> {
    let mut home = HashMap::new();
    for (bi, blk) in blocks.iter().enumerate() {
        for r in blk.insts.iter().filter_map(|i| i.result_id) {
            home.insert(r, bi);
        }
    }
    let mut out = HashSet::new();
    for (bi, blk) in blocks.iter().enumerate() {
        for inst in &blk.insts {
            let phi = inst.class.opcode == Op::Phi;
            for o in &inst.operands {
                if let Operand::IdRef(x) = o {
                    if phi || home.get(x).is_some_and(|&h| h != bi) {
                        out.insert(*x);
                    }
                }
            }
        }
    }
    out
}
