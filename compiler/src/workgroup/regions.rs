//! Region formation on the SPIR-V level: inlining, splitting at work-group boundaries and
//! liveness across them.
//!
//! A *boundary* is an instruction every work-item of the group (or of its sub-group) must
//! reach before any goes on: `OpControlBarrier`, the work-group and sub-group collectives
//! (`OpGroupAll/Any/Broadcast/…`, `OpGroupNonUniform*` that exchange values, the INTEL
//! shuffles), and `OpGroupWaitEvents`. A kernel that (transitively) contains one is rewritten here into a
//! single function without calls to boundary-containing functions:
//!
//! 1. **Inline** every call to a function that contains a boundary, transitively (the
//!    environment forbids recursion; [`crate::codegen`] already rejected it). The call
//!    block is cut after the call: the callee's blocks are copied in with fresh ids, its
//!    parameters replaced by the arguments, its returns branching to a continuation block
//!    whose `OpPhi` collects the return value. Calls to boundary-free functions stay calls.
//! 2. **Split** every block after each boundary instruction: the block ends with the
//!    boundary and an `OpBranch` to a fresh continuation block holding the rest. The
//!    boundary's block and continuation are a [`Point`]; point `i` (1-based) is the state a
//!    work-item returns when it reaches it, state 0 the kernel's entry.
//! 3. **Liveness**: the values live into each continuation are exactly those a work-item
//!    must keep in its frame across that boundary ([`Split::live`]). Results of
//!    `OpVariable` are not tracked (their storage is in the frame at a fixed offset, so the
//!    pointer can be recomputed anywhere) and neither are pointers into builtin variables.
//!
//! Invariants of the result: every block's phis still name their real predecessors (a
//! block cut in two passes its label's role as predecessor to the tail), ids are unique
//! (fresh ids start above every id of the module), each continuation has exactly one
//! predecessor (its boundary block) and no phis.

use crate::codegen::Result;
use crate::ir::Inst;
use crate::spirv::{op_id, Block, Function, Program};
use crate::CompileError;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, Word};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Most instructions an inlined kernel may grow to (a guard against exponential inlining).
const MAX_INSTS: usize = 200_000;

/// `SPV_KHR_uniform_group_instructions`: the work- or sub-group multiplications and bitwise
/// reductions and scans.
pub fn is_uniform_group_khr(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        GroupIMulKHR
            | GroupFMulKHR
            | GroupBitwiseAndKHR
            | GroupBitwiseOrKHR
            | GroupBitwiseXorKHR
            | GroupLogicalAndKHR
            | GroupLogicalOrKHR
            | GroupLogicalXorKHR
    )
}

/// Is `op` a work-group boundary (see the module documentation)?
pub fn is_boundary(op: Op) -> bool {
    use Op::*;
    is_uniform_group_khr(op)
        || matches!(
            op,
            ControlBarrier
                | GroupAll
                | GroupAny
                | GroupBroadcast
                | GroupIAdd
                | GroupFAdd
                | GroupFMin
                | GroupFMax
                | GroupSMin
                | GroupSMax
                | GroupUMin
                | GroupUMax
                | GroupWaitEvents
                | GroupNonUniformElect
                | GroupNonUniformAll
                | GroupNonUniformAny
                | GroupNonUniformAllEqual
                | GroupNonUniformBroadcast
                | GroupNonUniformBroadcastFirst
                | GroupNonUniformBallot
                | GroupNonUniformShuffle
                | GroupNonUniformShuffleXor
                | GroupNonUniformShuffleUp
                | GroupNonUniformShuffleDown
                | GroupNonUniformIAdd
                | GroupNonUniformFAdd
                | GroupNonUniformIMul
                | GroupNonUniformFMul
                | GroupNonUniformSMin
                | GroupNonUniformUMin
                | GroupNonUniformFMin
                | GroupNonUniformSMax
                | GroupNonUniformUMax
                | GroupNonUniformFMax
                | GroupNonUniformBitwiseAnd
                | GroupNonUniformBitwiseOr
                | GroupNonUniformBitwiseXor
                | GroupNonUniformLogicalAnd
                | GroupNonUniformLogicalOr
                | GroupNonUniformLogicalXor
                | GroupNonUniformRotateKHR
                | SubgroupShuffleINTEL
                | SubgroupShuffleDownINTEL
                | SubgroupShuffleUpINTEL
                | SubgroupShuffleXorINTEL
        )
}

/// Functions among `funcs` that contain a boundary, directly or through calls.
pub fn with_boundaries(p: &Program, funcs: &[Word]) -> Result<HashSet<Word>> {
    let mut out = HashSet::new();
    // `funcs` is in call order (callers first), so iterate to a fixpoint.
    loop {
        let before = out.len();
        for f in funcs {
            if out.contains(f) {
                continue;
            }
            let func = p.function(*f)?;
            let hit = func.blocks.iter().flat_map(|b| &b.insts).any(|i| {
                is_boundary(i.class.opcode)
                    || (i.class.opcode == Op::FunctionCall
                        && op_id(i, 0).is_ok_and(|c| out.contains(&c)))
            });
            if hit {
                out.insert(*f);
            }
        }
        if out.len() == before {
            return Ok(out);
        }
    }
}

/// One boundary of the split kernel.
#[derive(Clone, Debug)]
pub struct Point {
    /// The block that ends with the boundary instruction (then `OpBranch cont`).
    pub block: Word,
    /// The continuation block.
    pub cont: Word,
    /// The boundary instruction.
    pub inst: Inst,
}

/// The kernel rewritten for region execution.
pub struct Split {
    pub func: Function,
    /// Boundary `i + 1` is `points[i]`.
    pub points: Vec<Point>,
    /// For each point, the values live into its continuation (sorted by id).
    pub live: Vec<Vec<Word>>,
    /// Every value that is live across some boundary (sorted by id).
    pub cross: Vec<Word>,
    /// Each fresh result id of an inlined instruction → the id in the program it copies,
    /// for the names reports give (checked mode). What decorations change about an
    /// instruction (`FPRoundingMode`, `SaturatedConversion`, `Volatile`) is not looked up
    /// here: every copy of an instruction carries it ([`crate::ir::Effects`]).
    pub origin: HashMap<Word, Word>,
}

impl Split {
    /// The id in the program that `id` copies.
    pub fn origin_of(&self, id: Word) -> Word {
        self.origin.get(&id).copied().unwrap_or(id)
    }
}

/// Fresh ids above everything in the module.
struct Ids {
    next: Word,
}

impl Ids {
    fn new(p: &Program) -> Result<Ids> {
        let mut max = 0;
        let keys = p
            .types
            .keys()
            .chain(p.constants.keys())
            .chain(p.globals.keys())
            .chain(p.functions.keys())
            .chain(p.ext_imports.keys());
        for k in keys {
            max = max.max(*k);
        }
        for f in p.functions.values() {
            for prm in &f.params {
                max = max.max(prm.id);
            }
            for b in &f.blocks {
                max = max.max(b.label);
                for i in &b.insts {
                    max = max.max(i.result_id.unwrap_or(0));
                }
            }
        }
        // The largest id may be u32::MAX (invalid: ids are below the header's bound).
        let next = max
            .checked_add(1)
            .ok_or_else(|| CompileError::Invalid(format!("id %{max} is not below the id bound")))?;
        Ok(Ids { next })
    }

    fn fresh(&mut self) -> Result<Word> {
        let id = self.next;
        self.next = self
            .next
            .checked_add(1)
            .ok_or_else(|| CompileError::Unsupported("too many SPIR-V ids to inline".into()))?;
        Ok(id)
    }
}

fn branch(to: Word) -> Inst {
    Inst::new(Op::Branch, None, None, vec![Operand::IdRef(to)])
}

fn rename_operands(inst: &mut Instruction, map: &HashMap<Word, Word>) {
    for o in &mut inst.operands {
        if let Operand::IdRef(id) | Operand::IdScope(id) | Operand::IdMemorySemantics(id) = o {
            if let Some(n) = map.get(id) {
                *id = *n;
            }
        }
    }
}

/// Labels a block branches to.
fn successors(b: &Block) -> Result<Vec<Word>> {
    crate::codegen::control_successors(b)
}

/// Cut `blocks[bi]` after instruction `k`: the head keeps the label and instructions
/// `..=k` (`keep_inst`) or `..k`, then branches to a new block with the rest. Phis of the
/// old block's successors now name the tail. Returns the tail's index.
fn cut(
    blocks: &mut Vec<Block>,
    bi: usize,
    k: usize,
    keep_inst: bool,
    ids: &mut Ids,
) -> Result<usize> {
    let label = blocks[bi].label;
    let tail_label = ids.fresh()?;
    let rest: Vec<Inst> = blocks[bi].insts.split_off(k + 1);
    if !keep_inst {
        blocks[bi].insts.pop();
    }
    blocks[bi].insts.push(branch(tail_label));
    let tail = Block {
        label: tail_label,
        insts: rest,
    };
    for s in successors(&tail)? {
        for b in blocks.iter_mut().filter(|b| b.label == s) {
            for i in b.insts.iter_mut().filter(|i| i.class.opcode == Op::Phi) {
                for pair in i.operands.chunks_mut(2) {
                    if let [_, Operand::IdRef(pred)] = pair {
                        if *pred == label {
                            *pred = tail_label;
                        }
                    }
                }
            }
        }
    }
    blocks.insert(bi + 1, tail);
    Ok(bi + 1)
}

/// Inline the call `blocks[bi].insts[k]` to `callee`. Returns the index of the first
/// inlined block.
fn inline_call(
    p: &Program,
    blocks: &mut Vec<Block>,
    bi: usize,
    k: usize,
    ids: &mut Ids,
    origin: &mut HashMap<Word, Word>,
) -> Result<usize> {
    let call = blocks[bi].insts[k].clone();
    let callee = p.function(op_id(&call, 0)?)?;
    if callee.params.len() + 1 != call.operands.len() {
        return Err(CompileError::Invalid(format!(
            "call to {} with {} arguments",
            callee.name,
            call.operands.len() - 1
        )));
    }
    let Some(first) = callee.blocks.first() else {
        return Err(CompileError::Unsupported(format!(
            "call to external function {}",
            callee.name
        )));
    };
    let tail = cut(blocks, bi, k, false, ids)?;
    let cont = blocks[tail].label;
    // Fresh names for everything the callee defines; parameters become the arguments.
    let mut map = HashMap::new();
    for (i, prm) in callee.params.iter().enumerate() {
        map.insert(prm.id, op_id(&call, i + 1)?);
    }
    for b in &callee.blocks {
        map.insert(b.label, ids.fresh()?);
        for i in &b.insts {
            if let Some(r) = i.result_id {
                let fresh = ids.fresh()?;
                map.insert(r, fresh);
                // The callee's blocks are the program's own, so `r` is a program id.
                origin.insert(fresh, r);
            }
        }
    }
    // The head now branches to the tail: make it branch to the callee's entry instead.
    let head = &mut blocks[bi];
    head.insts.pop();
    head.insts.push(branch(map[&first.label]));

    let mut returns = Vec::new();
    let mut body = Vec::with_capacity(callee.blocks.len());
    for b in &callee.blocks {
        let label = map[&b.label];
        let mut insts = Vec::with_capacity(b.insts.len());
        for i in &b.insts {
            let mut i = i.clone();
            rename_operands(&mut i, &map);
            if let Some(r) = i.result_id {
                i.result_id = map.get(&r).copied();
            }
            match i.class.opcode {
                Op::Return => insts.push(branch(cont)),
                Op::ReturnValue => {
                    returns.push((op_id(&i, 0)?, label));
                    insts.push(branch(cont));
                }
                _ => insts.push(i),
            }
        }
        body.push(Block { label, insts });
    }
    if let (Some(r), Some(rt)) = (call.result_id, call.result_type) {
        if !returns.is_empty() {
            let mut ops = Vec::new();
            for (v, from) in returns {
                ops.push(Operand::IdRef(v));
                ops.push(Operand::IdRef(from));
            }
            let phi = Inst::new(Op::Phi, Some(rt), Some(r), ops);
            blocks[tail].insts.insert(0, phi);
        }
    }
    let n = body.len();
    blocks.splice(bi + 1..bi + 1, body);
    let _ = n;
    Ok(bi + 1)
}

/// Rewrite `kernel` for region execution (see the module documentation).
/// A function with every call inlined (see [`inline_all`]).
pub struct Inlined {
    pub func: Function,
}

/// The first id above every id of the module and of `f` (a function this module made,
/// whose fresh ids the module does not hold).
pub fn next_id(p: &Program, f: &Function) -> Result<Word> {
    let mut next = Ids::new(p)?.next;
    for b in &f.blocks {
        for id in std::iter::once(b.label).chain(b.insts.iter().filter_map(|i| i.result_id)) {
            next = next.max(id.checked_add(1).ok_or_else(|| {
                CompileError::Invalid(format!("id %{id} is not below the id bound"))
            })?);
        }
    }
    Ok(next)
}

/// `kernel` with every call inlined, transitively: one function whose control flow the
/// analyses see whole (`crate::analysis`).
pub fn inline_all(p: &Program, kernel: Word) -> Result<Inlined> {
    let f = p.function(kernel)?;
    let mut ids = Ids::new(p)?;
    let mut blocks = f.blocks.clone();
    inline_calls(p, f, &mut blocks, &mut ids, &mut HashMap::new(), |_| true)?;
    Ok(Inlined {
        func: Function {
            id: f.id,
            name: f.name.clone(),
            ret: f.ret,
            params: f.params.clone(),
            blocks,
        },
    })
}

/// Inline, transitively, every call in `blocks` (the body of `f`) to a function `pick`
/// accepts.
fn inline_calls(
    p: &Program,
    f: &Function,
    blocks: &mut Vec<Block>,
    ids: &mut Ids,
    origin: &mut HashMap<Word, Word>,
    pick: impl Fn(Word) -> bool,
) -> Result<()> {
    let mut bi = 0;
    while bi < blocks.len() {
        let pos = blocks[bi]
            .insts
            .iter()
            .position(|i| i.class.opcode == Op::FunctionCall && op_id(i, 0).is_ok_and(&pick));
        match pos {
            Some(k) => {
                bi = inline_call(p, blocks, bi, k, ids, origin)?;
                let total: usize = blocks.iter().map(|b| b.insts.len()).sum();
                if total > MAX_INSTS {
                    return Err(CompileError::Unsupported(format!(
                        "kernel {} is too large after inlining",
                        f.name
                    )));
                }
            }
            None => bi += 1,
        }
    }
    Ok(())
}

pub fn split(p: &Program, kernel: Word, inline: &HashSet<Word>) -> Result<Split> {
    split_at(p, kernel, inline, |i| is_boundary(i.class.opcode))
}

/// Whether `inst` is a boundary of work-group scope: a work-group barrier or collective
/// (sub-group barriers, collectives and shuffles are not).
pub fn is_work_group_point(p: &Program, inst: &Inst) -> bool {
    let op = inst.class.opcode;
    if !is_boundary(op) {
        return false;
    }
    let scoped = op == Op::ControlBarrier || crate::codegen::regions::operand_positions(op).2;
    // (A scope that cannot be read counts as work-group scope: the split stays valid.)
    scoped
        && !crate::spirv::op_id(inst, 0)
            .and_then(|s| p.const_u64(s))
            .is_ok_and(|s| s == rspirv::spirv::Scope::Subgroup as u64)
}

/// [`split`] at the boundary instructions `point` picks.
pub fn split_at(
    p: &Program,
    kernel: Word,
    inline: &HashSet<Word>,
    point: impl Fn(&Inst) -> bool,
) -> Result<Split> {
    let f = p.function(kernel)?;
    let mut ids = Ids::new(p)?;
    let mut blocks = f.blocks.clone();
    let mut origin = HashMap::new();

    // 1. Inline calls to boundary-containing functions.
    inline_calls(p, f, &mut blocks, &mut ids, &mut origin, |c| {
        inline.contains(&c)
    })?;

    // 2. Split after each boundary.
    let mut points = Vec::new();
    let mut bi = 0;
    while bi < blocks.len() {
        let pos = blocks[bi].insts.iter().position(&point);
        match pos {
            Some(k) => {
                if k + 1 >= blocks[bi].insts.len() {
                    return Err(CompileError::Invalid(format!(
                        "block %{} ends with a work-group barrier instead of a terminator",
                        blocks[bi].label
                    )));
                }
                let inst = blocks[bi].insts[k].clone();
                let tail = cut(&mut blocks, bi, k, true, &mut ids)?;
                points.push(Point {
                    block: blocks[bi].label,
                    cont: blocks[tail].label,
                    inst,
                });
                bi = tail;
            }
            None => bi += 1,
        }
    }

    let func = Function {
        id: f.id,
        name: f.name.clone(),
        ret: f.ret,
        params: f.params.clone(),
        blocks,
    };
    let live_in = liveness(p, &func)?;
    let mut live = Vec::with_capacity(points.len());
    let mut cross = BTreeSet::new();
    for pt in &points {
        let set = live_in.get(&pt.cont).cloned().unwrap_or_default();
        cross.extend(set.iter().copied());
        live.push(set.into_iter().collect());
    }
    Ok(Split {
        func,
        points,
        live,
        cross: cross.into_iter().collect(),
        origin,
    })
}

/// Ids whose values liveness tracks: results of instructions in `f`, except `OpVariable`s
/// and pointers into builtin variables.
fn tracked(p: &Program, f: &Function) -> HashSet<Word> {
    let mut out = HashSet::new();
    let mut builtin_ptrs: HashSet<Word> = HashSet::new();
    for b in &f.blocks {
        for i in &b.insts {
            let Some(r) = i.result_id else { continue };
            let op = i.class.opcode;
            if op == Op::Variable {
                continue;
            }
            if matches!(
                op,
                Op::AccessChain
                    | Op::InBoundsAccessChain
                    | Op::PtrAccessChain
                    | Op::InBoundsPtrAccessChain
            ) {
                if let Ok(base) = op_id(i, 0) {
                    if p.builtin_of(base).is_some() || builtin_ptrs.contains(&base) {
                        builtin_ptrs.insert(r);
                        continue;
                    }
                }
            }
            out.insert(r);
        }
    }
    out
}

/// Live-in sets of every block of `f` (standard backward dataflow; a phi's operand is live
/// out of the matching predecessor, not into the phi's block).
fn liveness(p: &Program, f: &Function) -> Result<HashMap<Word, BTreeSet<Word>>> {
    let vals = tracked(p, f);
    let n = f.blocks.len();
    let index: HashMap<Word, usize> = f
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (b.label, i))
        .collect();
    let mut gen = vec![BTreeSet::new(); n];
    let mut defs = vec![HashSet::new(); n];
    // phi_uses[pred] = values used on edges out of `pred`.
    let mut phi_uses = vec![BTreeSet::new(); n];
    let mut succs = vec![Vec::new(); n];
    for (bi, b) in f.blocks.iter().enumerate() {
        for s in successors(b)? {
            let si = *index.get(&s).ok_or(CompileError::InvalidId {
                id: s,
                expected: "label in this function",
            })?;
            succs[bi].push(si);
        }
        for i in &b.insts {
            if i.class.opcode == Op::Phi {
                for pair in i.operands.chunks(2) {
                    if let [Operand::IdRef(v), Operand::IdRef(pred)] = pair {
                        if vals.contains(v) {
                            if let Some(pi) = index.get(pred) {
                                phi_uses[*pi].insert(*v);
                            }
                        }
                    }
                }
            } else {
                for o in &i.operands {
                    if let Operand::IdRef(v) = o {
                        if vals.contains(v) && !defs[bi].contains(v) {
                            gen[bi].insert(*v);
                        }
                    }
                }
            }
            if let Some(r) = i.result_id {
                defs[bi].insert(r);
            }
        }
    }
    let mut live_in: Vec<BTreeSet<Word>> = gen.clone();
    let mut changed = true;
    while changed {
        changed = false;
        for bi in (0..n).rev() {
            let mut out = phi_uses[bi].clone();
            for &s in &succs[bi] {
                out.extend(live_in[s].iter().copied());
            }
            let mut inn = gen[bi].clone();
            inn.extend(out.into_iter().filter(|v| !defs[bi].contains(v)));
            if inn.len() != live_in[bi].len() {
                live_in[bi] = inn;
                changed = true;
            }
        }
    }
    Ok(f.blocks
        .iter()
        .zip(live_in)
        .map(|(b, l)| (b.label, l))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(op: Op, rt: Option<Word>, r: Option<Word>, ops: &[Word]) -> Inst {
        Inst::new(op, rt, r, ops.iter().map(|i| Operand::IdRef(*i)).collect())
    }

    #[test]
    fn cut_renames_successor_phis() {
        let mut ids = Ids { next: 100 };
        let mut blocks = vec![
            Block {
                label: 1,
                insts: vec![
                    inst(Op::IAdd, Some(9), Some(10), &[50, 51]),
                    inst(Op::ControlBarrier, None, None, &[60, 60, 61]),
                    inst(Op::IAdd, Some(9), Some(11), &[10, 51]),
                    branch(2),
                ],
            },
            Block {
                label: 2,
                insts: vec![
                    inst(Op::Phi, Some(9), Some(12), &[11, 1]),
                    inst(Op::Return, None, None, &[]),
                ],
            },
        ];
        let t = cut(&mut blocks, 0, 1, true, &mut ids).unwrap();
        assert_eq!(t, 1);
        assert_eq!(blocks[0].insts.len(), 3);
        assert_eq!(blocks[0].insts[2].class.opcode, Op::Branch);
        assert_eq!(blocks[1].label, 100);
        assert_eq!(blocks[2].insts[0].operands[1], Operand::IdRef(100));
    }
}
