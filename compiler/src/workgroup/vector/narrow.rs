//! Rows cut short: a region whose work-items do something only under a guard
//! `local_id.x < u` (`u` uniform), like every step of a tree reduction
//! (`if (l < s) scratch[l] += scratch[l + s]; barrier(…)`), stops its row after the
//! first vector iteration whose last lane fails the guard: the guard is monotone along
//! the row, so every later work-item fails it too, and outside the guarded part the
//! region computes only values (no memory effects) that are the same for every
//! work-item. A reduction's step over 256 work-items at 16 lanes then runs
//! `max(1, s / 16)` iterations instead of 16.
//!
//! What a skipped work-item would have left behind is its frame's copy of the values the
//! region defines and a later region reloads: the region stores those (uniform, kept in
//! each iteration's first lane's frame, `steps.rs`) into the frames of the iterations it
//! skips. Values only passing through keep their slots. Only rows that are whole
//! iterations (`local_size.x % lanes == 0`, checked when the group runs) are cut short,
//! so no scalar step, which reads every value from its own frame, runs after one was
//! skipped.

use crate::analysis::cfg::Cfg;
use crate::analysis::uniformity::{self, Shape, Uniformity};
use crate::codegen::regions::{FramePlan, PointKind};
use crate::spirv::{op_id, Function, Program};
use crate::workgroup::regions::{is_boundary, Split};
use rspirv::spirv::{Op, StorageClass, Word};
use std::collections::{HashMap, HashSet};

/// What every region's plan looks up in the whole split kernel, gathered once.
pub struct KernelFacts<'a> {
    /// The values that are exactly the local id along x.
    local_x: HashSet<Word>,
    /// Every value's defining instruction.
    defs: HashMap<Word, &'a crate::ir::Inst>,
}

impl<'a> KernelFacts<'a> {
    pub fn new(p: &Program, split: &'a Split) -> KernelFacts<'a> {
        KernelFacts {
            local_x: uniformity::local_x(p, &split.func),
            defs: split
                .func
                .blocks
                .iter()
                .flat_map(|b| &b.insts)
                .filter_map(|i| i.result_id.map(|r| (r, i)))
                .collect(),
        }
    }
}

/// A region that may stop its row early.
#[derive(Clone, Debug)]
pub struct Narrow {
    /// The block whose conditional branch is the guard (`true`: the guarded part).
    pub guard: Word,
    /// Every value the region defines, and the result of the collective it starts after
    /// (reloaded from the collective's own slot, so not yet in its frame slot).
    pub defined: HashSet<Word>,
    /// The boundary blocks a work-item that passed the guard can reach: where the skipped
    /// iterations' frames are filled.
    pub boundaries: HashSet<Word>,
}

/// Whether `func`, a region of `split` starting after point `entry_point` (`None`: the
/// kernel's entry; `boundary_of_block`: its boundary blocks), has the shape above.
#[allow(clippy::too_many_arguments)]
pub fn plan(
    p: &Program,
    split: &Split,
    facts: &KernelFacts,
    frame: &FramePlan,
    shapes: &Uniformity,
    func: &Function,
    cfg: &Cfg,
    boundary_of_block: &HashMap<Word, usize>,
    entry_point: Option<usize>,
) -> Option<Narrow> {
    let (local_x, defs) = (&facts.local_x, &facts.defs);
    let index: HashMap<Word, usize> = func
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (b.label, i))
        .collect();
    let guard = func.blocks.iter().enumerate().find_map(|(g, blk)| {
        let term = blk.insts.last()?;
        if term.class.opcode != Op::BranchConditional {
            return None;
        }
        let c = op_id(term, 0).ok()?;
        let (t, e) = (op_id(term, 1).ok()?, op_id(term, 2).ok()?);
        let guarded = is_guard(shapes, defs, local_x, c)?;
        guarded.then_some((g, *index.get(&t)?, *index.get(&e)?))
    })?;
    let (g, t, e) = guard;
    // The guarded part: what `t` reaches before the join `e`. It must come back to `e`
    // (no boundary, no return) and not loop back to the guard.
    let then_part = reach(cfg, t, |b| b == e);
    if then_part.contains(&g) {
        return None;
    }
    for &b in &then_part {
        let last = func.blocks[b].insts.last()?;
        if last.class.opcode == Op::Return || is_boundary(last.class.opcode) {
            return None;
        }
    }
    // Everything a work-item can run on a path through the guard, besides the guarded
    // part: computation only, and no other divergent branch.
    let after = reach(cfg, e, |_| false);
    let before = reach_back(cfg, g);
    if after.contains(&g) || after.iter().any(|b| then_part.contains(b)) {
        return None;
    }
    let outside: HashSet<usize> = before.union(&after).copied().collect();
    for &b in &outside {
        let insts = &func.blocks[b].insts;
        // The guard's own branch is the one divergent branch allowed.
        let n = insts.len() - usize::from(b == g);
        if !insts[..n].iter().all(|i| computes_only(p, shapes, defs, i)) {
            return None;
        }
    }
    let mut defined: HashSet<Word> = func
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| i.result_id)
        .collect();
    // A collective's result reaches the region from the collective's own slot; the
    // region's boundary is what first stores it into its frame slot.
    if let Some(i) = entry_point {
        if let (Some(r), Some(PointKind::Collective(_))) =
            (split.points.get(i)?.inst.result_id, frame.points.get(i))
        {
            defined.insert(r);
        }
    }
    let mut boundaries = HashSet::new();
    // At the boundaries it reaches: barriers only (a collective's combine reads every
    // work-item's operands), and what the region defines and leaves for later is uniform.
    for &b in &after {
        let label = func.blocks[b].label;
        let Some(&j) = boundary_of_block.get(&label) else {
            continue;
        };
        boundaries.insert(label);
        if !matches!(frame.points.get(j), Some(PointKind::Barrier { sub: false })) {
            return None;
        }
        let leaves = split.live.get(j)?;
        if leaves
            .iter()
            .any(|id| defined.contains(id) && shapes.shape(*id) != Shape::Uniform)
        {
            return None;
        }
    }
    Some(Narrow {
        guard: func.blocks[g].label,
        defined,
        boundaries,
    })
}

/// Whether `c` is `x < u` or `x <= u` (either way round, signed or not) with `x` the local
/// id along x (at 32 bits or wider, so it never wraps) and `u` uniform: true for a prefix
/// of every row. `None` if `c` is not a comparison at all.
fn is_guard(
    shapes: &Uniformity,
    defs: &HashMap<Word, &crate::ir::Inst>,
    local_x: &HashSet<Word>,
    c: Word,
) -> Option<bool> {
    let inst = defs.get(&c)?;
    let (a, b) = (op_id(inst, 0).ok()?, op_id(inst, 1).ok()?);
    let (x, u) = match inst.class.opcode {
        Op::ULessThan | Op::SLessThan | Op::ULessThanEqual | Op::SLessThanEqual => (a, b),
        Op::UGreaterThan | Op::SGreaterThan | Op::UGreaterThanEqual | Op::SGreaterThanEqual => {
            (b, a)
        }
        _ => return Some(false),
    };
    Some(local_x.contains(&x) && shapes.shape(u) == Shape::Uniform)
}

/// Whether `inst`, run by a work-item the guard leaves out, could matter: it may only
/// compute (no store, atomic, call, barrier other than the region's end, `printf`), load
/// only built-in variables, and branch only on uniform conditions.
fn computes_only(
    p: &Program,
    shapes: &Uniformity,
    defs: &HashMap<Word, &crate::ir::Inst>,
    inst: &crate::ir::Inst,
) -> bool {
    use Op::*;
    match inst.class.opcode {
        Nop | Line | NoLine | LoopMerge | SelectionMerge | Branch | Phi | Undef | Return => true,
        BranchConditional => op_id(inst, 0).is_ok_and(|c| shapes.shape(c) == Shape::Uniform),
        Switch => op_id(inst, 0).is_ok_and(|c| shapes.shape(c) == Shape::Uniform),
        // Arithmetic, comparisons and logic: values only (division never traps).
        op if crate::codegen::arith::is_arith(op) => true,
        UConvert | SConvert | FConvert | ConvertFToU | ConvertFToS | ConvertUToF | ConvertSToF
        | Bitcast | CompositeExtract | CompositeInsert | CompositeConstruct | VectorShuffle => true,
        // The region's end (the split cut the block there).
        ControlBarrier => true,
        Load => op_id(inst, 0).is_ok_and(|ptr| is_input(p, defs, ptr)),
        _ => false,
    }
}

/// Whether `ptr` points into an `Input` (built-in) variable.
fn is_input(p: &Program, defs: &HashMap<Word, &crate::ir::Inst>, ptr: Word) -> bool {
    if let Some(g) = p.globals.get(&ptr) {
        return g.class == StorageClass::Input;
    }
    match defs.get(&ptr) {
        Some(i)
            if matches!(
                i.class.opcode,
                Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain
            ) =>
        {
            op_id(i, 0).is_ok_and(|base| is_input(p, defs, base))
        }
        _ => false,
    }
}

/// The blocks reachable from `from` (itself included) without entering a block `stop`
/// says to stop at.
fn reach(cfg: &Cfg, from: usize, stop: impl Fn(usize) -> bool) -> HashSet<usize> {
    let mut seen = HashSet::new();
    let mut work = vec![from];
    while let Some(b) = work.pop() {
        if stop(b) || !seen.insert(b) {
            continue;
        }
        work.extend(cfg.succs[b].iter().copied());
    }
    seen
}

/// The blocks from which `to` is reachable, `to` included.
fn reach_back(cfg: &Cfg, to: usize) -> HashSet<usize> {
    let mut seen = HashSet::new();
    let mut work = vec![to];
    while let Some(b) = work.pop() {
        if !seen.insert(b) {
            continue;
        }
        work.extend(cfg.preds[b].iter().copied());
    }
    seen
}
