//! Step functions: the code of a kernel with work-group boundaries (barriers, collectives,
//! `wait_group_events`), run region by region.
//!
//! The kernel, inlined and split by [`crate::workgroup::regions`], becomes one Cranelift
//! function per kernel, the *step*:
//! ```text
//! step(kernel params…, wi: i64, frame: i64, cross area: i64, items: i64, linear: i64,
//!      state: i32) -> i32
//! ```
//! It runs one work-item from the point `state` (0 = kernel entry, else just after the
//! boundary with that state) until the next boundary (returns its state) or the end of the kernel
//! (returns [`EXIT`]). The work-group function (`workgroup.rs`) calls it for every
//! work-item, region after region.
//!
//! What survives between two calls lives in the group's frame arena (`ctx.frame`), laid
//! out by [`FramePlan`]: first every work-item's *frame* (`ctx.frame + linear_local_id *
//! size`), then the *cross area* of the values live across boundaries ([`CrossBase`]):
//! - every `OpVariable` (private arrays and structs): a region's Cranelift stack frame is
//!   gone when the step returns, so `Function` storage is at a fixed frame offset, and its
//!   pointer is recomputed wherever it is used;
//! - every SSA value live across a boundary, in the cross area, a row per scalar with the
//!   work-items' values side by side (so the vector steps, `workgroup/vector/steps.rs`, move
//!   a value of consecutive work-items with vector loads and stores): such a value is a
//!   Cranelift `Variable` in the step, spilled to its slot at each boundary it is live
//!   across and reloaded in the resume stub of that boundary's continuation, so Cranelift's
//!   SSA construction merges "defined in this call" and "reloaded after a boundary";
//! - per collective, a slot ([`Collective`]): the work-item's operand components, extra
//!   operands (broadcast local id, shuffle index or delta, cluster size) and, for a
//!   sub-group collective, its result, written by the combine step between two rounds;
//! - the work-item's state (`i32`): the boundary it stopped at ([`FramePlan::state`]:
//!   sub-group boundaries are numbered from [`SUB_GROUP_STATE`] in reverse post-order).
//!
//! Invariant that makes the rest correct: a value *not* live across any boundary is defined
//! on every path from every resume point to its uses, so it dominates them in the step's
//! CFG and the translator's reverse-post-order visits its definition first.

use super::{flat_types, trusted, FnTx, Result};
use crate::layout::{align_up, layout};
use crate::memory_model::{self, FenceLowering, FenceSite};
use crate::spirv::{op_id, result_id, Program, Type};
use crate::workgroup::regions::Split;
use crate::CompileError;
use cranelift_codegen::ir::{self, types, InstBuilder, Value};
use cranelift_frontend::{FunctionBuilder, Switch, Variable};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{GroupOperation, Op, Scope, Word};
use std::collections::HashMap;

/// The state a step returns when its work-item has finished the kernel.
pub const EXIT: i64 = -1;

/// The state a step returns at sub-group boundary `i` (0-based) is `SUB_GROUP_STATE + i +
/// 1`, at a work-group boundary `i + 1`: the work-group function tells them apart by value
/// alone ([`FramePlan::state`]).
pub const SUB_GROUP_STATE: i64 = 1 << 20;

/// Added to the state of a work-item that stopped at a sub-group boundary but must wait a
/// round for the work-items of its sub-group at an earlier one (see `workgroup.rs`).
pub const SUB_GROUP_WAIT: i64 = 1 << 29;

/// The combining operator of a collective (the logical operators of
/// `OpGroupNonUniformLogical*` are `And`/`Or`/`Xor` on booleans, which are 0 or 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    IAdd,
    FAdd,
    FMin,
    FMax,
    SMin,
    SMax,
    UMin,
    UMax,
    IMul,
    FMul,
    And,
    Or,
    Xor,
}

/// Which values a collective produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scan {
    Reduce,
    Inclusive,
    Exclusive,
    /// Reduce within clusters of consecutive sub-group local ids (the cluster size is the
    /// collective's extra operand).
    Clustered,
}

/// Where a shuffle reads: the work-item with sub-group local id `extra`, `own ^ extra`,
/// `own - extra`, `own + extra`, or rotated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shuffle {
    Index,
    Xor,
    Up,
    Down,
    /// `OpGroupNonUniformRotateKHR`: `(own + extra) mod cluster` within the work-item's
    /// cluster (the second extra operand when `clustered`, else the whole sub-group).
    Rotate {
        clustered: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollectiveOp {
    All,
    Any,
    /// `OpGroupNonUniformAllEqual`.
    AllEqual,
    /// `dims` local-id components follow the operand in the slot.
    Broadcast {
        dims: u32,
    },
    /// The value of the active work-item with the lowest sub-group local id.
    BroadcastFirst,
    Arith {
        combine: Combine,
        scan: Scan,
    },
    Shuffle(Shuffle),
    /// `OpSubgroupShuffleDownINTEL` (`up: false`: current, next, delta) and
    /// `OpSubgroupShuffleUpINTEL` (`up: true`: previous, current, delta): two values, read
    /// as one sequence twice the sub-group long.
    IntelShuffle {
        up: bool,
    },
    /// A `uvec4` whose bit `i` is the predicate of the active work-item `i`.
    Ballot,
    /// True in the active work-item with the lowest sub-group local id.
    Elect,
}

/// A collective at a boundary.
///
/// Its slot in the work-item frame holds the operand's scalar components (8 bytes each;
/// two values for [`CollectiveOp::IntelShuffle`]), then three 8-byte extra operands (the
/// broadcast local id, shuffle index or delta, cluster size), then, for a sub-group
/// collective, the result's components: a sub-group combine reads every operand before
/// it writes a result. A work-group collective writes its (scalar) result over its
/// operand.
#[derive(Clone, Copy, Debug)]
pub struct Collective {
    pub op: CollectiveOp,
    /// Type of one operand component (`i8` for booleans).
    pub ty: ir::Type,
    /// Scalar components of the operand (a vector's count; 0 for `Elect`).
    pub n: u32,
    /// Type and number of the result's components.
    pub rty: ir::Type,
    pub rn: u32,
    /// Offset of the slot in the work-item frame.
    pub slot: u32,
    /// Sub-group scope (the combine runs per sub-group over the work-items that reached
    /// it in the same round) rather than work-group scope.
    pub sub: bool,
}

impl Collective {
    /// Operand values stored (two for the INTEL two-value shuffles).
    fn values(&self) -> u32 {
        match self.op {
            CollectiveOp::IntelShuffle { .. } => 2,
            _ => 1,
        }
    }

    /// Frame offset of component `k` of operand value `v`.
    pub fn operand(&self, v: u32, k: u32) -> i32 {
        (self.slot + 8 * (v * self.n + k)) as i32
    }

    /// Frame offset of extra operand `e` (0..3).
    pub fn extra(&self, e: u32) -> i32 {
        (self.slot + 8 * (self.values() * self.n + e)) as i32
    }

    /// Frame offset of result component `k`.
    pub fn out(&self, k: u32) -> i32 {
        if self.sub {
            self.extra(3) + 8 * k as i32
        } else {
            self.operand(0, k)
        }
    }

    fn size(&self) -> u64 {
        let out = if self.sub { self.rn } else { 0 };
        8 * u64::from(self.values() * self.n + 3 + out)
    }
}

/// What happens at a boundary once every work-item concerned has reached it.
#[derive(Clone, Copy, Debug)]
pub enum PointKind {
    /// `OpControlBarrier` / `OpGroupWaitEvents`: nothing between the regions. `sub`: a
    /// sub-group barrier.
    Barrier { sub: bool },
    /// A collective: its combine step runs between the regions.
    Collective(Collective),
}

impl PointKind {
    pub fn sub(&self) -> bool {
        match self {
            PointKind::Barrier { sub } => *sub,
            PointKind::Collective(c) => c.sub,
        }
    }
}

/// The layout of one work-item's frame and what each boundary does.
#[derive(Debug, Default)]
pub struct FramePlan {
    /// `OpVariable` result → offset.
    pub vars: HashMap<Word, u32>,
    /// Cross-boundary value → offset of its first scalar's row in the cross area (8 bytes
    /// per scalar and work-item, [`CrossBase::addr`]), scalar types.
    pub cross: HashMap<Word, (u32, Vec<ir::Type>)>,
    /// Bytes of the cross area per work-item.
    pub cross_size: u64,
    /// Boundary `i + 1` is `points[i]`.
    pub points: Vec<PointKind>,
    /// Does boundary `i + 1` need a fence before it (device-scope barrier semantics)?
    pub fences: Vec<bool>,
    /// Offset of the work-item's state (`i32`: the boundary it waits at, or [`EXIT`]), in
    /// kernels with sub-group boundaries.
    pub state_off: u32,
    /// Boundary `i + 1`'s rank in reverse post-order of the kernel's CFG: a sub-group
    /// boundary's state grows with it, so the earliest one a sub-group waits at has the
    /// lowest state (`workgroup.rs`).
    pub order: Vec<u32>,
    /// Bytes of each work-item's frame (a multiple of 16 and of every variable's
    /// alignment); the arena holds `size + cross_size` bytes per work-item.
    pub size: u64,
    /// Bytes of `OpVariable` storage per work-item.
    pub private_size: u64,
}

/// Where the values live across boundaries are: after the frames of the enqueued group's
/// `items` work-items (`area = ctx.frame + items × size`), the scalar at cross offset `off`
/// (a multiple of 8) of work-item `l` at `area + off × items + l × its size`, so one
/// scalar of consecutive work-items is consecutive in memory.
#[derive(Clone, Copy, Debug)]
pub struct CrossBase {
    pub area: Value,
    /// Work-items of the enqueued group (the arena is sized by it).
    pub items: Value,
    /// The linear local id of the work-item (of a vector iteration's first lane).
    pub linear: Value,
}

impl CrossBase {
    /// The group's cross area: after the `items` frames of `size` bytes at `frame`.
    pub fn area(b: &mut FunctionBuilder, frame: Value, items: Value, size: u64) -> Value {
        let frames = b.ins().imul_imm_s(items, size as i64);
        b.ins().iadd(frame, frames)
    }

    /// The address of this work-item's scalar of type `t` at cross offset `off`.
    pub fn addr(&self, b: &mut FunctionBuilder, off: u32, t: ir::Type) -> Value {
        let row = b.ins().imul_imm_s(self.items, i64::from(off));
        let row = b.ins().iadd(self.area, row);
        let col = b.ins().imul_imm_s(self.linear, i64::from(t.bytes()));
        b.ins().iadd(row, col)
    }
}

impl FramePlan {
    /// The state a work-item is in when it has reached boundary `i` (0-based).
    pub fn state(&self, i: usize) -> i64 {
        if self.points.get(i).is_some_and(PointKind::sub) {
            SUB_GROUP_STATE + 1 + i64::from(self.order.get(i).copied().unwrap_or(0))
        } else {
            i as i64 + 1
        }
    }
}

fn overflow() -> CompileError {
    CompileError::Unsupported("work-item frame larger than 4 GiB".into())
}

fn slot_u32(off: u64) -> Result<u32> {
    u32::try_from(off).map_err(|_| overflow())
}

fn id_type(p: &Program, id: Word, result_types: &HashMap<Word, Word>) -> Result<Word> {
    match (p.constants.get(&id), result_types.get(&id)) {
        (Some(c), _) => Ok(c.ty()),
        (None, Some(t)) => Ok(*t),
        (None, None) => Err(CompileError::InvalidId {
            id,
            expected: "value with a type",
        }),
    }
}

/// Positions (in `inst.operands`) of a collective's operand values and of its extra
/// operands, and whether it has a scope operand (the INTEL shuffles have none: they are
/// sub-group operations).
pub(crate) fn operand_positions(op: Op) -> (&'static [usize], &'static [usize], bool) {
    use Op::*;
    match op {
        GroupAll
        | GroupAny
        | GroupNonUniformAll
        | GroupNonUniformAny
        | GroupNonUniformAllEqual
        | GroupNonUniformBroadcastFirst
        | GroupNonUniformBallot => (&[1], &[], true),
        GroupBroadcast
        | GroupNonUniformBroadcast
        | GroupNonUniformShuffle
        | GroupNonUniformShuffleXor
        | GroupNonUniformShuffleUp
        | GroupNonUniformShuffleDown => (&[1], &[2], true),
        GroupNonUniformRotateKHR => (&[1], &[2, 3], true),
        GroupNonUniformElect => (&[], &[], true),
        SubgroupShuffleINTEL | SubgroupShuffleXorINTEL => (&[0], &[1], false),
        SubgroupShuffleDownINTEL | SubgroupShuffleUpINTEL => (&[0, 1], &[2], false),
        // Work-group and non-uniform arithmetic: scope, group operation, value [, cluster].
        _ => (&[2], &[3], true),
    }
}

fn collective_op(
    p: &Program,
    inst: &Instruction,
    result_types: &HashMap<Word, Word>,
) -> Result<CollectiveOp> {
    let group_op = || -> Result<Scan> {
        match inst.operands.get(1) {
            Some(Operand::GroupOperation(GroupOperation::Reduce)) => Ok(Scan::Reduce),
            Some(Operand::GroupOperation(GroupOperation::InclusiveScan)) => Ok(Scan::Inclusive),
            Some(Operand::GroupOperation(GroupOperation::ExclusiveScan)) => Ok(Scan::Exclusive),
            Some(Operand::GroupOperation(GroupOperation::ClusteredReduce))
                if inst.operands.len() > 3 =>
            {
                Ok(Scan::Clustered)
            }
            o => Err(CompileError::Unsupported(format!(
                "group operation {o:?} of Op{:?}",
                inst.class.opcode
            ))),
        }
    };
    let arith = |combine| -> Result<CollectiveOp> {
        Ok(CollectiveOp::Arith {
            combine,
            scan: group_op()?,
        })
    };
    use Op::*;
    Ok(match inst.class.opcode {
        GroupAll | GroupNonUniformAll => CollectiveOp::All,
        GroupAny | GroupNonUniformAny => CollectiveOp::Any,
        GroupNonUniformAllEqual => CollectiveOp::AllEqual,
        GroupBroadcast | GroupNonUniformBroadcast => {
            let ty = id_type(p, op_id(inst, 2)?, result_types)?;
            let dims = match p.ty(ty)? {
                Type::Vector { count, .. } if *count <= 3 => *count,
                Type::Vector { .. } => {
                    return Err(CompileError::Invalid(
                        "OpGroupBroadcast local id with more than 3 components".into(),
                    ))
                }
                _ => 1,
            };
            CollectiveOp::Broadcast { dims }
        }
        GroupNonUniformBroadcastFirst => CollectiveOp::BroadcastFirst,
        GroupIAdd | GroupNonUniformIAdd => arith(Combine::IAdd)?,
        GroupFAdd | GroupNonUniformFAdd => arith(Combine::FAdd)?,
        GroupFMin | GroupNonUniformFMin => arith(Combine::FMin)?,
        GroupFMax | GroupNonUniformFMax => arith(Combine::FMax)?,
        GroupSMin | GroupNonUniformSMin => arith(Combine::SMin)?,
        GroupSMax | GroupNonUniformSMax => arith(Combine::SMax)?,
        GroupUMin | GroupNonUniformUMin => arith(Combine::UMin)?,
        GroupUMax | GroupNonUniformUMax => arith(Combine::UMax)?,
        GroupNonUniformIMul | GroupIMulKHR => arith(Combine::IMul)?,
        GroupNonUniformFMul | GroupFMulKHR => arith(Combine::FMul)?,
        GroupNonUniformBitwiseAnd
        | GroupNonUniformLogicalAnd
        | GroupBitwiseAndKHR
        | GroupLogicalAndKHR => arith(Combine::And)?,
        GroupNonUniformBitwiseOr
        | GroupNonUniformLogicalOr
        | GroupBitwiseOrKHR
        | GroupLogicalOrKHR => arith(Combine::Or)?,
        GroupNonUniformBitwiseXor
        | GroupNonUniformLogicalXor
        | GroupBitwiseXorKHR
        | GroupLogicalXorKHR => arith(Combine::Xor)?,
        GroupNonUniformShuffle | SubgroupShuffleINTEL => CollectiveOp::Shuffle(Shuffle::Index),
        GroupNonUniformShuffleXor | SubgroupShuffleXorINTEL => CollectiveOp::Shuffle(Shuffle::Xor),
        GroupNonUniformShuffleUp => CollectiveOp::Shuffle(Shuffle::Up),
        GroupNonUniformShuffleDown => CollectiveOp::Shuffle(Shuffle::Down),
        GroupNonUniformRotateKHR => CollectiveOp::Shuffle(Shuffle::Rotate {
            clustered: inst.operands.len() > 3,
        }),
        SubgroupShuffleDownINTEL => CollectiveOp::IntelShuffle { up: false },
        SubgroupShuffleUpINTEL => CollectiveOp::IntelShuffle { up: true },
        GroupNonUniformBallot => CollectiveOp::Ballot,
        GroupNonUniformElect => CollectiveOp::Elect,
        op => {
            return Err(CompileError::Codegen(format!(
                "Op{op:?} is not a collective"
            )))
        }
    })
}

/// Whether `op` may have work-group scope: the OpenCL 2.0 `OpGroup*` instructions and
/// `SPV_KHR_uniform_group_instructions`' multiplication and bitwise ones (the non-uniform
/// instructions are sub-group only).
fn work_group_capable(op: Op) -> bool {
    (op as u32) < Op::GroupNonUniformElect as u32
        || crate::workgroup::regions::is_uniform_group_khr(op)
}

/// The [`Collective`] of boundary `inst` (its slot offset still 0).
pub(crate) fn collective(
    p: &Program,
    inst: &Instruction,
    result_types: &HashMap<Word, Word>,
) -> Result<Collective> {
    let opcode = inst.class.opcode;
    let (values, _, scoped) = operand_positions(opcode);
    let scope = if scoped {
        p.const_u64(op_id(inst, 0)?)?
    } else {
        Scope::Subgroup as u64
    };
    let sub = if scope == Scope::Subgroup as u64 {
        true
    } else if scope == Scope::Workgroup as u64 && work_group_capable(opcode) {
        false
    } else {
        return Err(CompileError::Unsupported(format!(
            "Op{opcode:?} with execution scope {scope} (only work-group and sub-group \
             collectives are implemented)"
        )));
    };
    let op = collective_op(p, inst, result_types)?;
    let mut rtys = Vec::new();
    flat_types(p, crate::spirv::result_type(inst)?, &mut rtys)?;
    let mut tys = Vec::new();
    if let Some(v) = values.first() {
        flat_types(p, id_type(p, op_id(inst, *v)?, result_types)?, &mut tys)?;
    }
    let (Some(rty), ty) = (
        rtys.first().copied(),
        tys.first().copied().unwrap_or(types::I8),
    ) else {
        return Err(CompileError::Invalid(format!(
            "Op{opcode:?} without a result"
        )));
    };
    let scalar_ops = matches!(
        op,
        CollectiveOp::All
            | CollectiveOp::Any
            | CollectiveOp::AllEqual
            | CollectiveOp::Arith { .. }
            | CollectiveOp::Ballot
    );
    let bad = tys.iter().any(|t| *t != ty)
        || rtys.iter().any(|t| *t != rty)
        || tys.len() > 16
        || (scalar_ops && tys.len() != 1)
        || (!sub && (tys.len() != 1 || rtys.len() != 1))
        || match op {
            CollectiveOp::Ballot => rtys.len() != 4 || rty != types::I32,
            CollectiveOp::All | CollectiveOp::Any | CollectiveOp::AllEqual => {
                rtys.len() != 1 || rty != types::I8
            }
            CollectiveOp::Elect => rtys.len() != 1 || rty != types::I8,
            _ => rtys.len() != tys.len() || rty != ty,
        };
    if bad {
        return Err(CompileError::Unsupported(format!(
            "Op{opcode:?} with operand types {tys:?} and result types {rtys:?}"
        )));
    }
    Ok(Collective {
        op,
        ty,
        n: tys.len() as u32,
        rty,
        rn: rtys.len() as u32,
        slot: 0,
        sub,
    })
}

/// Lay out the frame of `split`'s kernel.
pub fn plan(p: &Program, split: &Split) -> Result<FramePlan> {
    let mut plan = FramePlan::default();
    let mut off = 0u64;
    // Frames are `size` apart from a 128-byte aligned base: `size` must be a multiple of
    // every variable's alignment (up to 128) for each work-item's variables to be aligned.
    let mut max_align = 16u64;
    let mut result_types = HashMap::new();
    for b in &split.func.blocks {
        for i in &b.insts {
            if let (Some(r), Some(t)) = (i.result_id, i.result_type) {
                result_types.insert(r, t);
            }
            if i.class.opcode == Op::Variable {
                let (_, pointee) = p.pointer_type(crate::spirv::result_type(i)?)?;
                let l = layout(p, pointee)?;
                let a = l.align.clamp(1, 128);
                max_align = max_align.max(a);
                off = align_up(off, a);
                plan.vars.insert(result_id(i)?, slot_u32(off)?);
                off = off.checked_add(l.size.max(1)).ok_or_else(overflow)?;
            }
        }
    }
    plan.private_size = off;
    off = align_up(off, 8);
    let mut cross_off = 0u64;
    for id in &split.cross {
        let ty = *result_types.get(id).ok_or(CompileError::InvalidId {
            id: *id,
            expected: "value with a type",
        })?;
        let mut tys = Vec::new();
        flat_types(p, ty, &mut tys)?;
        let n = tys.len() as u64;
        plan.cross.insert(*id, (slot_u32(cross_off)?, tys));
        cross_off = cross_off.checked_add(8 * n).ok_or_else(overflow)?;
    }
    plan.cross_size = cross_off;
    for pt in &split.points {
        let inst = &pt.inst;
        let (kind, fence) = match inst.class.opcode {
            Op::ControlBarrier => {
                let exec_scope = p.const_u64(op_id(inst, 0)?).unwrap_or(2) as u32;
                let mem_scope = p.const_u64(op_id(inst, 1)?).unwrap_or(0) as u32;
                let sem = p.const_u64(op_id(inst, 2)?).unwrap_or(0x210) as u32;
                let fence = memory_model::fence_lowering(FenceSite::ControlBarrier, mem_scope, sem)
                    == FenceLowering::Fence;
                let sub = exec_scope == Scope::Subgroup as u32;
                (PointKind::Barrier { sub }, fence)
            }
            Op::GroupWaitEvents => (PointKind::Barrier { sub: false }, false),
            _ => {
                let mut c = collective(p, inst, &result_types)?;
                off = align_up(off, 8);
                c.slot = slot_u32(off)?;
                off = off.checked_add(c.size()).ok_or_else(overflow)?;
                (PointKind::Collective(c), false)
            }
        };
        plan.points.push(kind);
        plan.fences.push(fence);
    }
    plan.order = rpo_ranks(split)?;
    // Only kernels with sub-group boundaries keep a state per work-item (`workgroup.rs`).
    if plan.points.iter().any(PointKind::sub) {
        off = align_up(off, 8);
        plan.state_off = slot_u32(off)?;
        off += 8;
    }
    plan.size = align_up(off, max_align);
    Ok(plan)
}

/// Each boundary's rank in a reverse post-order of the split kernel's CFG (a block comes
/// before every block it branches to, except along loop back edges).
fn rpo_ranks(split: &Split) -> Result<Vec<u32>> {
    let blocks = &split.func.blocks;
    let index: HashMap<Word, usize> = blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (b.label, i))
        .collect();
    let mut seen = vec![false; blocks.len()];
    let mut post = Vec::with_capacity(blocks.len());
    if !blocks.is_empty() {
        // Iterative DFS: (block, its successors, next successor to visit).
        let mut stack = vec![(0usize, super::control_successors(&blocks[0])?, 0usize)];
        seen[0] = true;
        while let Some((b, succs, next)) = stack.last_mut() {
            if let Some(s) = succs.get(*next).copied() {
                *next += 1;
                if let Some(&j) = index.get(&s) {
                    if !seen[j] {
                        seen[j] = true;
                        let ss = super::control_successors(&blocks[j])?;
                        stack.push((j, ss, 0));
                    }
                }
            } else {
                post.push(*b);
                stack.pop();
            }
        }
    }
    let mut rank = vec![u32::MAX; blocks.len()];
    for (r, b) in post.iter().rev().enumerate() {
        rank[*b] = r as u32;
    }
    // Unreachable blocks: distinct ranks after the reachable ones.
    let mut next = post.len() as u32;
    for r in rank.iter_mut().filter(|r| **r == u32::MAX) {
        *r = next;
        next += 1;
    }
    if next >= SUB_GROUP_WAIT as u32 - SUB_GROUP_STATE as u32 - 1 {
        return Err(CompileError::Unsupported(
            "kernels with more than 500 million blocks".into(),
        ));
    }
    split
        .points
        .iter()
        .map(|pt| {
            index
                .get(&pt.block)
                .map(|i| rank[*i])
                .ok_or(CompileError::InvalidId {
                    id: pt.block,
                    expected: "boundary block",
                })
        })
        .collect()
}

/// Step-mode state of the translator.
pub struct StepCtx<'p> {
    pub split: &'p Split,
    pub plan: &'p FramePlan,
    /// This work-item's frame (a step parameter).
    pub frame: Value,
    /// Where its values live across boundaries are (step parameters).
    pub cross: CrossBase,
    pub state: Value,
    pub cross_vars: HashMap<Word, Vec<Variable>>,
    /// Boundary block label → point index (0-based).
    pub point_of_block: HashMap<Word, usize>,
}

impl<'p> StepCtx<'p> {
    pub fn new(split: &'p Split, plan: &'p FramePlan) -> StepCtx<'p> {
        let dummy = Value::from_u32(0);
        StepCtx {
            split,
            plan,
            frame: dummy,
            cross: CrossBase {
                area: dummy,
                items: dummy,
                linear: dummy,
            },
            state: dummy,
            cross_vars: HashMap::new(),
            point_of_block: split
                .points
                .iter()
                .enumerate()
                .map(|(i, pt)| (pt.block, i))
                .collect(),
        }
    }
}

impl FnTx<'_, '_, '_> {
    /// Step mode: declare the cross-boundary variables, then emit the dispatcher on `state`
    /// (0 → the kernel's first block, `i` → the resume stub of boundary `i`).
    pub(super) fn step_dispatch(&mut self, first: ir::Block) -> Result<()> {
        let Some(step) = self.step.as_mut() else {
            return Err(CompileError::Codegen("dispatcher outside step mode".into()));
        };
        let plan = step.plan;
        let split = step.split;
        let mut ids: Vec<&Word> = plan.cross.keys().collect();
        ids.sort_unstable();
        for id in ids {
            let vars = plan.cross[id]
                .1
                .iter()
                .map(|t| self.b.declare_var(*t))
                .collect();
            if let Some(s) = self.step.as_mut() {
                s.cross_vars.insert(*id, vars);
            }
        }
        let (state, frame, cross) = match self.step.as_ref() {
            Some(s) => (s.state, s.frame, s.cross),
            None => return Err(CompileError::Codegen("no step state".into())),
        };
        let mut sw = Switch::new();
        sw.set_entry(0, first);
        let mut stubs = Vec::new();
        for (i, pt) in split.points.iter().enumerate() {
            let stub = self.b.create_block();
            sw.set_entry(plan.state(i) as u128, stub);
            stubs.push((stub, pt.cont, i));
        }
        sw.emit(&mut self.b, state, first);
        for (stub, cont, i) in stubs {
            self.b.switch_to_block(stub);
            // The collective's own result comes from its slot, the rest from their slots.
            let own = split.points[i].inst.result_id;
            for id in &split.live[i] {
                if Some(*id) == own {
                    continue;
                }
                self.reload(*id, cross)?;
            }
            if let (Some(r), PointKind::Collective(c)) = (own, plan.points[i]) {
                let vals = (0..c.rn)
                    .map(|k| self.b.ins().load(c.rty, trusted(), frame, c.out(k)))
                    .collect();
                let ty = self.type_of(r)?;
                let v = self.unflatten(ty, vals)?;
                self.set(r, ty, v);
                if let Some(e) = self.pending.take() {
                    return Err(e);
                }
            }
            let cb = self.block(cont)?;
            self.b.ins().jump(cb, &[]);
        }
        Ok(())
    }

    fn reload(&mut self, id: Word, cross: CrossBase) -> Result<()> {
        let Some(step) = self.step.as_ref() else {
            return Ok(());
        };
        let Some((off, tys)) = step.plan.cross.get(&id) else {
            return Err(CompileError::Codegen(format!("%{id} has no frame slot")));
        };
        let vars = step.cross_vars.get(&id).cloned().unwrap_or_default();
        for (k, (t, var)) in tys.clone().iter().zip(vars).enumerate() {
            let a = cross.addr(&mut self.b, off + 8 * k as u32, *t);
            let v = self.b.ins().load(*t, trusted(), a, 0);
            self.b.def_var(var, v);
        }
        Ok(())
    }

    /// A boundary instruction in step mode: spill what is live across it, store a
    /// collective's operands, fence if the table says so, return the boundary's number.
    pub(super) fn step_boundary(&mut self, inst: &Instruction) -> Result<()> {
        let Some(step) = self.step.as_ref() else {
            return Err(CompileError::Codegen("boundary outside step mode".into()));
        };
        let i = *step.point_of_block.get(&self.cur_label).ok_or_else(|| {
            CompileError::Codegen(format!(
                "boundary in block %{} was not split",
                self.cur_label
            ))
        })?;
        let (split, plan, frame, cross) = (step.split, step.plan, step.frame, step.cross);
        let own = inst.result_id;
        for id in &split.live[i] {
            if Some(*id) == own {
                continue;
            }
            let Some((off, tys)) = plan.cross.get(id) else {
                return Err(CompileError::Codegen(format!("%{id} has no frame slot")));
            };
            let vars = self
                .step
                .as_ref()
                .and_then(|s| s.cross_vars.get(id))
                .cloned()
                .unwrap_or_default();
            for (k, (var, t)) in vars.into_iter().zip(tys).enumerate() {
                let v = self.b.use_var(var);
                let a = cross.addr(&mut self.b, off + 8 * k as u32, *t);
                self.b.ins().store(trusted(), v, a, 0);
            }
        }
        if let PointKind::Collective(c) = plan.points[i] {
            let (values, extras, _) = operand_positions(inst.class.opcode);
            for (v, pos) in values.iter().enumerate() {
                let comps = self.val(op_id(inst, *pos)?)?.flat();
                if comps.len() != c.n as usize || comps.iter().any(|x| self.value_type(*x) != c.ty)
                {
                    return Err(CompileError::Invalid(format!(
                        "Op{:?}: operand does not match its type",
                        inst.class.opcode
                    )));
                }
                for (k, x) in comps.into_iter().enumerate() {
                    self.b
                        .ins()
                        .store(trusted(), x, frame, c.operand(v as u32, k as u32));
                }
            }
            for (e, pos) in extras.iter().enumerate() {
                let Ok(id) = op_id(inst, *pos) else {
                    continue;
                };
                let comps = self.val(id)?.flat();
                for (k, x) in comps.into_iter().enumerate().take(3 - e) {
                    let k = k + e;
                    let x = if self.value_type(x).bits() < 64 {
                        self.b.ins().uextend(types::I64, x)
                    } else {
                        x
                    };
                    self.b.ins().store(trusted(), x, frame, c.extra(k as u32));
                }
            }
        }
        if plan.fences[i] {
            self.b.ins().fence();
        }
        self.check_boundary()?;
        let n = self.b.ins().iconst(types::I32, plan.state(i));
        self.step_return(n);
        Ok(())
    }

    /// Step mode, before any block is translated: the types of all results (a use may be
    /// translated before its definition when the value crosses a boundary), the
    /// symbolic pointers into builtin variables and the values loaded from them.
    pub(super) fn prepass(&mut self) -> Result<()> {
        let f = self.f;
        for b in &f.blocks {
            for i in &b.insts {
                if let (Some(r), Some(t)) = (i.result_id, i.result_type) {
                    self.tys.insert(r, t);
                }
                if let (Op::Load, Some(r)) = (i.class.opcode, i.result_id) {
                    // A builtin vector loaded in one region may be indexed in another.
                    let ptr = op_id(i, 0)?;
                    let builtin = self
                        .p
                        .builtin_of(ptr)
                        .map(|b| (b, None))
                        .or_else(|| self.builtin_ptrs.get(&ptr).copied());
                    if let Some((b, None)) = builtin {
                        self.builtin_vals.insert(r, b);
                    }
                }
                let chain = matches!(
                    i.class.opcode,
                    Op::AccessChain
                        | Op::InBoundsAccessChain
                        | Op::PtrAccessChain
                        | Op::InBoundsPtrAccessChain
                );
                let Some(r) = i.result_id.filter(|_| chain) else {
                    continue;
                };
                let base = op_id(i, 0)?;
                let builtin = self
                    .p
                    .builtin_of(base)
                    .map(|b| (b, None))
                    .or_else(|| self.builtin_ptrs.get(&base).copied());
                if let Some((bi, None)) = builtin {
                    let idx_pos = if matches!(
                        i.class.opcode,
                        Op::PtrAccessChain | Op::InBoundsPtrAccessChain
                    ) {
                        2
                    } else {
                        1
                    };
                    match i.operands.get(idx_pos) {
                        None => {
                            self.builtin_ptrs.insert(r, (bi, None));
                        }
                        Some(Operand::IdRef(idx)) if self.p.constants.contains_key(idx) => {
                            let k = self.p.const_u64(*idx)? as u32;
                            self.builtin_ptrs.insert(r, (bi, Some(k)));
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(())
    }

    /// `OpReturn` of a step: the work-item is done.
    pub(super) fn step_exit(&mut self) {
        let n = self.b.ins().iconst(types::I32, EXIT);
        self.step_return(n);
    }
}
