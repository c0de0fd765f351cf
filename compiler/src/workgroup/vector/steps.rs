//! Vector steps: the regions of a kernel with barriers, each run for W work-items at a
//! time (PoCL's sub-CFG shape with the work-item loop vectorised).
//!
//! The kernel is split at its boundaries with every call inlined (`regions::split`); the
//! work-group function runs round after round, every work-item from the group's one state
//! to its next boundary (`workgroup.rs`). Here each *region* — the blocks reachable from
//! the kernel's entry or from a boundary's continuation without crossing a boundary —
//! becomes a function of its own for the translator (its boundary blocks end at the
//! boundary instruction), translated like a barrier-free kernel (uniform or masked mode,
//! shapes from the whole split kernel's analysis). A region starts by reloading the values
//! live into it that it reads (one load, lane 0's, for a uniform value) and ends at a
//! boundary by storing the values live across it that it defines, in the cross-area rows
//! the scalar step uses ([`FramePlan::cross`], [`CrossBase`]: the lanes' values side by
//! side, so a varying 32-bit value is a vector load or store per four lanes, not four
//! scalar ones), so a work-item's values mean the same whichever loop runs it. A value
//! that only passes through a region stays where its defining region left it: Cranelift
//! keeps a load whose result goes unused (loads are not pure to its e-graph), so tiled
//! sgemm's compute region paid 36 dead loads per iteration for its tile loop's values.
//! Every work-item of a group is at the same boundary (uniform control flow is a
//! barrier's precondition), so the state the region
//! reaches is one number.
//!
//! Kernels whose boundaries are work-group barriers and work-group collectives, with
//! values live across them that are scalars, are taken. At a collective the region stores
//! every lane's operands in its frame slot; the combine step between the rounds
//! (`workgroup/combine.rs`) reads every work-item's frame, whichever loop stored it, and the
//! next region loads each lane's result (once for a uniform one). Sub-group boundaries
//! stay with the scalar rounds: their combines pair work-items by sub-group.

use super::{linear, refuse, FrameBase, Inputs, Plan, VTx, V};
use crate::analysis::cfg::Cfg;
use crate::analysis::uniformity::{self, Shape};
use crate::codegen::regions::{
    operand_positions, Collective, CrossBase, FramePlan, PointKind, EXIT,
};
use crate::codegen::{trusted, Result};
use crate::spirv::op_id;
use crate::spirv::{Block as SpvBlock, Function, Program};
use crate::workgroup::regions::{is_boundary, Inlined, Split};
use cranelift_codegen::ir::{self, types, BlockArg, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;
use rspirv::dr::Instruction;
use rspirv::spirv::Word;
use std::collections::{HashMap, HashSet};

/// What a region's translation needs beyond a barrier-free kernel's.
pub struct Region {
    /// The point whose continuation starts the region (`None`: the kernel's entry).
    pub entry_point: Option<usize>,
    /// Boundary block label → its point index.
    pub boundary_of_block: HashMap<Word, usize>,
    /// The ids the region's instructions read and those they define: a value live into
    /// the region is reloaded only if the region reads it, and stored at a boundary only
    /// if the region defines it (a value passing through stays in the frames as the region
    /// that defined it left it).
    pub uses: HashSet<Word>,
    pub defines: HashSet<Word>,
}

/// The ids `f`'s instructions read (every id operand, phis' included) and define.
fn uses_and_defines(f: &Function) -> (HashSet<Word>, HashSet<Word>) {
    let (mut uses, mut defines) = (HashSet::new(), HashSet::new());
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        defines.extend(inst.result_id);
        for o in &inst.operands {
            if let rspirv::dr::Operand::IdRef(id) = o {
                uses.insert(*id);
            }
        }
    }
    (uses, defines)
}

/// Every region of a split kernel, planned: region 0 starts at the kernel's entry, region
/// `i + 1` after point `i`.
pub struct Steps {
    pub regions: Vec<Plan>,
    /// Work-items per iteration.
    pub lanes: usize,
    /// Why that width.
    pub why: String,
}

/// Plan the vector steps of `split`; the error says why the kernel's regions stay scalar.
/// Each region is translated once into a scratch function: the check is the translation.
/// With `sub_group_lanes` (a split at work-group boundaries alone), one iteration is one
/// sub-group (`subgroup.rs`).
#[allow(clippy::too_many_arguments)]
pub fn plan_steps(
    p: &Program,
    split: &Split,
    frame: &FramePlan,
    fma: bool,
    env: &super::ScratchEnv,
    widths: &[usize],
    sub_group_size: u32,
    sub_group_lanes: bool,
) -> Result<Steps> {
    if !crate::codegen::vectorize() {
        return Err(refuse("FERRITE_VECTORIZE=0"));
    }
    // One sub-group per iteration (`subgroup.rs`): the width is the sub-group size, and
    // the split's regions hold the sub-group operations.
    let sub_width = [sub_group_size as usize];
    let widths = match sub_group_lanes {
        true if super::WIDTHS.contains(&sub_width[0]) => &sub_width[..],
        true => return Err(refuse(format!("sub-groups of {}", sub_width[0]))),
        false => widths,
    };
    // Barriers, and work-group collectives (whose combine step runs between the rounds
    // over every work-item's frame, whichever loop stored its operand).
    if let Some(k) = frame.points.iter().find(|k| k.sub()) {
        return Err(refuse(format!("a {k:?} boundary")));
    }
    if let Some((id, _)) = frame.cross.iter().find(|(_, (_, tys))| tys.is_empty()) {
        return Err(refuse(format!(
            "%{id} (no scalars) is live across a barrier"
        )));
    }
    let cfg = Cfg::new(&split.func)?;
    let shapes = uniformity::analyse(p, &split.func, &cfg)?;
    let boundary_of_block: HashMap<Word, usize> = split
        .points
        .iter()
        .enumerate()
        .map(|(i, pt)| (pt.block, i))
        .collect();
    let first = split
        .func
        .blocks
        .first()
        .ok_or_else(|| refuse("kernel without blocks"))?
        .label;
    let entries = std::iter::once((None, first)).chain(
        split
            .points
            .iter()
            .enumerate()
            .map(|(i, pt)| (Some(i), pt.cont)),
    );
    let (prov, touches_local) = super::check_facts(p, &split.func);
    // Rows may stop early (`narrow.rs`), but not with sub-groups as iterations (their rows
    // are whole sub-groups already), nor under the race detector, whose per-work-item
    // epochs every boundary advances.
    let facts = (!sub_group_lanes && !crate::check::mode().races)
        .then(|| super::narrow::KernelFacts::new(p, split));
    let mut regions = Vec::new();
    for (entry_point, label) in entries {
        let func = region_function(&split.func, label, &boundary_of_block)?;
        let (uses, mut defines) = uses_and_defines(&func);
        // A collective's result enters the region from the collective's own slot: for the
        // frames' slot of values live across boundaries, the region is its definition.
        defines.extend(entry_point.and_then(|i| split.points[i].inst.result_id));
        let local_stores = super::local_stores_of(p, &func, &split.func, prov.as_ref());
        let cfg = Cfg::new(&func)?;
        // Masked mode only for a region with a divergent branch of its own: a region whose
        // branches are all uniform runs every lane of its iterations whatever the others do
        // (a histogram's counting loop between two barriers, beside the divergent loops
        // that clear and merge the bins).
        let masked = func
            .blocks
            .iter()
            .any(|b| shapes.divergent.contains(&b.label));
        let linear = if masked {
            Some(linear::Linear::new(&cfg)?)
        } else {
            None
        };
        let narrow = facts.as_ref().and_then(|facts| {
            super::narrow::plan(
                p,
                split,
                facts,
                frame,
                &shapes,
                &func,
                &cfg,
                &boundary_of_block,
                entry_point,
            )
        });
        regions.push(Plan {
            inlined: Inlined { func },
            cfg,
            shapes: shapes.clone(),
            linear,
            region: Some(Region {
                entry_point,
                boundary_of_block: boundary_of_block.clone(),
                uses,
                defines,
            }),
            lanes: 4,
            why: String::new(),
            sub_group_size,
            sub_group_lanes,
            prov: prov.clone(),
            touches_local,
            local_stores,
            narrow,
        });
    }
    // One width for all regions: the narrowest any region's loops allow.
    let mut lanes = widths.iter().copied().max().unwrap_or(4);
    let mut why = String::new();
    for plan in &regions {
        let (w, y) = super::width::choose(p, plan, widths)?;
        if w <= lanes {
            (lanes, why) = (w, y);
        }
    }
    for plan in &mut regions {
        plan.lanes = lanes;
    }
    for plan in &regions {
        super::scratch(env, true, |b, inp| {
            let reached = b.create_block();
            b.append_block_param(reached, types::I32);
            super::step_body(b, p, fma, plan, lanes, inp, (split, frame), reached, None)?;
            b.switch_to_block(reached);
            Ok(())
        })?;
    }
    Ok(Steps {
        regions,
        lanes,
        why,
    })
}

/// The blocks reachable from `entry` without crossing a boundary, `entry` first, each
/// boundary block ending at its boundary instruction.
fn region_function(
    f: &Function,
    entry: Word,
    boundary_of_block: &HashMap<Word, usize>,
) -> Result<Function> {
    let by_label: HashMap<Word, &SpvBlock> = f.blocks.iter().map(|b| (b.label, b)).collect();
    let mut seen = HashSet::from([entry]);
    let mut work = vec![entry];
    let mut blocks = Vec::new();
    while let Some(l) = work.pop() {
        let b = by_label
            .get(&l)
            .ok_or_else(|| refuse(format!("block %{l}")))?;
        let mut insts = b.insts.clone();
        if boundary_of_block.contains_key(&l) {
            let k = insts
                .iter()
                .position(|i| is_boundary(i.class.opcode))
                .ok_or_else(|| refuse(format!("boundary block %{l} without its boundary")))?;
            insts.truncate(k + 1);
        } else {
            for s in crate::codegen::control_successors(b)? {
                if seen.insert(s) {
                    work.push(s);
                }
            }
        }
        blocks.push(SpvBlock { label: l, insts });
    }
    // The entry first, the rest in the function's order.
    let order: HashMap<Word, usize> = f
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (b.label, i))
        .collect();
    blocks.sort_by_key(|b| (b.label != entry, order.get(&b.label).copied()));
    Ok(Function {
        id: f.id,
        name: f.name.clone(),
        ret: f.ret,
        params: f.params.clone(),
        blocks,
    })
}

/// Flags of a vector access to the cross area: consecutive lanes from any work-item on are
/// 4-byte aligned, not 16.
fn unaligned() -> ir::MemFlagsData {
    ir::MemFlagsData::new().with_notrap()
}

/// The shape each of a value's `n` components is kept in: the value's, but an OpenCL
/// vector is never taken as affine (its step is a scalar's notion).
fn component_shape(shape: Shape, n: usize) -> Shape {
    match shape {
        Shape::Affine(_) if n > 1 => Shape::Varying,
        s => s,
    }
}

impl VTx<'_, '_, '_, '_> {
    /// One scalar (or one component) of shape `shape` and type `t` from the row at cross
    /// offset `off`: lane 0's alone for a uniform or affine value, else the lanes' side by
    /// side (a vector load per four 32-bit lanes).
    fn reload_one(&mut self, shape: Shape, t: ir::Type, frames: FrameBase, off: u32) -> V {
        let a = frames.cross.addr(self.b, off, t);
        match shape {
            Shape::Uniform => V::U(self.b.ins().load(t, trusted(), a, 0)),
            // Lane k is lane 0's value + k × step: only lane 0's is kept.
            Shape::Affine(step) if t.is_int() => {
                let x = self.b.ins().load(t, trusted(), a, 0);
                V::Aff(x, super::canon(step, t))
            }
            _ => match super::vec_of(t) {
                // Consecutive lanes need not be 16-byte aligned.
                Some(vt) => V::Vec(
                    (0..self.w / 4)
                        .map(|j| self.b.ins().load(vt, unaligned(), a, 16 * j as i32))
                        .collect(),
                ),
                None => {
                    let l = (0..self.w)
                        .map(|k| {
                            let at = (k as u32 * t.bytes()) as i32;
                            self.b.ins().load(t, trusted(), a, at)
                        })
                        .collect();
                    self.gathered(t, l)
                }
            },
        }
    }

    /// Store `v` (component of `id`, shape `shape`, type `t`) into its row at cross offset
    /// `off`, as [`Self::reload_one`] reads it back: a uniform or affine value once, as
    /// the first lane's (which it returns), else the lanes' side by side.
    fn store_one(
        &mut self,
        id: Word,
        shape: Shape,
        t: ir::Type,
        v: &V,
        frames: FrameBase,
        off: u32,
    ) -> Result<Option<Value>> {
        let a = frames.cross.addr(self.b, off, t);
        let once =
            matches!(shape, Shape::Uniform) || matches!(shape, Shape::Affine(_) if t.is_int());
        let lanes = match super::vec_of(t) {
            _ if once => vec![self.lane(v, 0)?],
            Some(vt) if !matches!(v, V::Mask(_)) => {
                for (j, part) in self.vector(v, t)?.iter().enumerate() {
                    if self.b.func.dfg.value_type(*part) != vt {
                        return Err(refuse(format!("%{id} is not a {t}")));
                    }
                    self.b.ins().store(unaligned(), *part, a, 16 * j as i32);
                }
                return Ok(None);
            }
            _ => self.lanes(v)?,
        };
        for (k, x) in lanes.iter().enumerate() {
            if self.b.func.dfg.value_type(*x) != t {
                return Err(refuse(format!("%{id} is not a {t}")));
            }
            let at = (k as u32 * t.bytes()) as i32;
            self.b.ins().store(trusted(), *x, a, at);
        }
        Ok(once.then(|| lanes[0]))
    }

    /// Reload the values live into the region from the lanes' frames.
    pub(super) fn reload_live_in(&mut self, split: &Split, frame: &FramePlan) -> Result<()> {
        let Some(region) = &self.plan.region else {
            return Ok(());
        };
        let Some(i) = region.entry_point else {
            return Ok(());
        };
        let frames = self.frames()?;
        // A collective's own result comes from its slot (below), the rest from theirs.
        let own = split.points[i].inst.result_id;
        for id in &split.live[i] {
            if Some(*id) == own || !region.uses.contains(id) {
                continue;
            }
            let (off, tys) = &frame.cross[id];
            let t = tys[0];
            let shape = component_shape(self.plan.shapes.shape(*id), tys.len());
            // An OpenCL vector's components are in consecutive 8-byte slots, as the scalar
            // step keeps them; each becomes one component value.
            let mut comps = Vec::with_capacity(tys.len());
            for (c, t) in tys.iter().enumerate() {
                let off = *off + 8 * c as u32;
                comps.push(self.reload_one(shape, *t, frames, off));
            }
            let ty = self.region_type(*id)?;
            let v = if comps.len() == 1 {
                comps
                    .pop()
                    .ok_or_else(|| refuse("a value without components"))?
            } else if self.is_vector(ty) {
                V::Comp(comps)
            } else {
                // A struct by value: the lanes have no form for it.
                return Err(refuse(format!(
                    "%{id} ({} scalars) is live across a barrier",
                    tys.len()
                )));
            };
            self.tys.insert(*id, t);
            self.spv_tys.insert(*id, ty);
            self.vals.insert(*id, v);
        }
        if let (Some(r), PointKind::Collective(c)) = (own, frame.points[i]) {
            // Every work-item's result, as the combine step wrote it; one load for a
            // result the analysis found uniform (a reduction or broadcast).
            let uniform = self.plan.shapes.shape(r) == Shape::Uniform;
            let mut comps = Vec::with_capacity(c.rn as usize);
            for k in 0..c.rn {
                let comp = if uniform {
                    V::U(self.b.ins().load(c.rty, trusted(), frames.base, c.out(k)))
                } else {
                    let l = (0..self.w)
                        .map(|lane| {
                            let off = lane as i64 * frames.size;
                            let a = self.b.ins().iadd_imm_s(frames.base, off);
                            self.b.ins().load(c.rty, trusted(), a, c.out(k))
                        })
                        .collect();
                    self.gathered(c.rty, l)
                };
                comps.push(comp);
            }
            let ty = self.region_type(r)?;
            let v = match comps.len() {
                1 => comps.pop().ok_or_else(|| refuse("collective result"))?,
                _ => V::Comp(comps),
            };
            self.tys.insert(r, c.rty);
            self.spv_tys.insert(r, ty);
            self.vals.insert(r, v);
        }
        Ok(())
    }

    /// The SPIR-V type of a value of the split kernel.
    pub(super) fn region_type(&self, id: Word) -> Result<Word> {
        let split = self
            .steps
            .ok_or_else(|| refuse("region outside a split kernel"))?
            .0;
        for b in &split.func.blocks {
            for i in &b.insts {
                if i.result_id == Some(id) {
                    return crate::spirv::result_type(i);
                }
            }
        }
        split
            .func
            .params
            .iter()
            .find(|p| p.id == id)
            .map(|p| p.ty)
            .ok_or_else(|| refuse(format!("type of %{id}")))
    }

    /// Store every lane's operands of work-group collective `c` (and its extra operands,
    /// widened to 64 bits) in the lanes' frames, where the combine step reads them.
    fn store_collective_operands(
        &mut self,
        inst: &Instruction,
        c: &Collective,
        frames: FrameBase,
    ) -> Result<()> {
        let (values, extras, _) = operand_positions(inst.class.opcode);
        let at = |s: &mut Self, lane: usize| {
            s.b.ins().iadd_imm_s(frames.base, lane as i64 * frames.size)
        };
        for (v, pos) in values.iter().enumerate() {
            let x = self.val(op_id(inst, *pos)?)?;
            let comps = match x {
                V::Comp(c) => c,
                x => vec![x],
            };
            if comps.len() != c.n as usize {
                return Err(refuse("collective operand size"));
            }
            for (k, comp) in comps.iter().enumerate() {
                let l = self.lanes(comp)?;
                for (lane, x) in l.into_iter().enumerate() {
                    if self.b.func.dfg.value_type(x) != c.ty {
                        return Err(refuse("collective operand type"));
                    }
                    let a = at(self, lane);
                    self.b
                        .ins()
                        .store(trusted(), x, a, c.operand(v as u32, k as u32));
                }
            }
        }
        for (e, pos) in extras.iter().enumerate() {
            let Ok(id) = op_id(inst, *pos) else {
                continue;
            };
            let comps = match self.val(id)? {
                V::Comp(c) => c,
                x => vec![x],
            };
            for (k, comp) in comps.iter().enumerate().take(3 - e) {
                let l = self.lanes(comp)?;
                for (lane, x) in l.into_iter().enumerate() {
                    let x = if self.b.func.dfg.value_type(x).bits() < 64 {
                        self.b.ins().uextend(types::I64, x)
                    } else {
                        x
                    };
                    let a = at(self, lane);
                    self.b.ins().store(trusted(), x, a, c.extra((k + e) as u32));
                }
            }
        }
        Ok(())
    }

    fn frames(&self) -> Result<FrameBase> {
        self.inp
            .frames
            .ok_or_else(|| refuse("a region without frames"))
    }

    /// When the row stops after this iteration (`narrow.rs`): store `values` (cross offset,
    /// uniform value) as the first lane's of every iteration left in the row, where the
    /// next region reloads them from.
    fn fill_skipped(&mut self, values: &[(u32, Value)], frames: FrameBase) -> Result<()> {
        let Some(skip) = self.inp.skip.filter(|_| !values.is_empty()) else {
            return Ok(());
        };
        let flag = self.b.use_var(skip.flag);
        let go = match self.mask {
            // Masked mode: only if the lanes reached this boundary.
            Some(m) => {
                let any = self.b.ins().vany_true(m);
                self.b.ins().band(flag, any)
            }
            None => flag,
        };
        let (start, head, body, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let w = self.w as i64;
        self.b.ins().brif(go, start, &[], done, &[]);
        self.b.switch_to_block(start);
        let x0 = self.inp.lid[0];
        let first = self.b.ins().iadd_imm_s(x0, w);
        self.b.ins().jump(head, &[BlockArg::Value(first)]);
        self.b.switch_to_block(head);
        let x = self.b.append_block_param(head, types::I64);
        let more = self
            .b
            .ins()
            .icmp(ir::condcodes::IntCC::UnsignedLessThan, x, skip.ls0);
        self.b.ins().brif(more, body, &[], done, &[]);
        self.b.switch_to_block(body);
        let d = self.b.ins().isub(x, x0);
        let first = CrossBase {
            linear: self.b.ins().iadd(frames.cross.linear, d),
            ..frames.cross
        };
        for &(off, v) in values {
            let t = self.b.func.dfg.value_type(v);
            let a = first.addr(self.b, off, t);
            self.b.ins().store(trusted(), v, a, 0);
        }
        let next = self.b.ins().iadd_imm_s(x, w);
        self.b.ins().jump(head, &[BlockArg::Value(next)]);
        self.b.switch_to_block(done);
        Ok(())
    }

    /// A boundary instruction: store what is live across it into the lanes' frames, fence
    /// if the table says so, and record the state the region ends in.
    pub(super) fn boundary(&mut self, inst: &Instruction) -> Result<()> {
        let (split, frame) = self
            .steps
            .ok_or_else(|| refuse("boundary outside a step"))?;
        let region = self
            .plan
            .region
            .as_ref()
            .ok_or_else(|| refuse("boundary outside a region"))?;
        let j = *region
            .boundary_of_block
            .get(&self.cur_label)
            .ok_or_else(|| refuse(format!("boundary in block %{}", self.cur_label)))?;
        let frames = self.frames()?;
        let own = inst.result_id;
        // What this region defines and leaves in the frames, for the iterations a region
        // that stops its row early skips (`narrow.rs`).
        let mut fill = Vec::new();
        for id in &split.live[j] {
            if Some(*id) == own || !region.defines.contains(id) {
                continue;
            }
            let (off, tys) = &frame.cross[id];
            let shape = component_shape(self.plan.shapes.shape(*id), tys.len());
            let refill =
                self.plan.narrow.as_ref().is_some_and(|n| {
                    n.boundaries.contains(&self.cur_label) && n.defined.contains(id)
                });
            let comps = match self.val(*id)? {
                V::Comp(parts) if parts.len() == tys.len() => parts,
                v if tys.len() == 1 && !matches!(v, V::Comp(_)) => vec![v],
                _ => {
                    return Err(refuse(format!(
                        "%{id} ({} scalars) is live across a barrier",
                        tys.len()
                    )))
                }
            };
            for (c, (v, t)) in comps.iter().zip(tys).enumerate() {
                let off = *off + 8 * c as u32;
                let once = self.store_one(*id, shape, *t, v, frames, off)?;
                if refill {
                    match (shape, once) {
                        (Shape::Uniform, Some(x)) => fill.push((off, x)),
                        _ => return Err(refuse(format!("%{id} varies and the row may stop"))),
                    }
                }
            }
        }
        self.fill_skipped(&fill, frames)?;
        if let PointKind::Collective(c) = frame.points[j] {
            self.store_collective_operands(inst, &c, frames)?;
        }
        if frame.fences[j] {
            self.b.ins().fence();
        }
        self.race_boundary()?;
        let state = self.b.ins().iconst(types::I32, frame.state(j));
        match self.mask {
            // Uniform mode: the region ends here.
            None => {
                let exit = self.exit;
                self.b.ins().jump(exit, &[BlockArg::Value(state)]);
            }
            // Masked mode: the blocks after this one still run (for no lane); the state
            // is the boundary's if any lane reached it.
            Some(m) => {
                let any = self.b.ins().vany_true(m);
                let prev = self.b.use_var(self.step_state);
                let s = self.b.ins().select(any, state, prev);
                self.b.def_var(self.step_state, s);
            }
        }
        Ok(())
    }
}

/// The region loop's pieces `workgroup.rs` hands over: the frames of the lanes and the
/// state the group is in.
pub struct StepInputs {
    pub frame: Value,
    pub frame_size: i64,
    /// The group's cross area and enqueued work-item count ([`CrossBase`]).
    pub cross_area: Value,
    pub items: Value,
    /// Linear local id of the row's first work-item (`(z × ls1 + y) × ls0`).
    pub row: Value,
    pub state: Value,
}

/// Emit the vector loop of a round: `head(x: i64)` runs the region the group is in for
/// four work-items from `x` while `x + 4 <= local_size[0]`, then goes on to
/// `scalar_head(x)`. `on_state(b, x, state)` is called where a vector iteration has
/// reached `state` (the caller records work-item 0's).
#[allow(clippy::too_many_arguments)]
pub fn emit_step_loop<'p, 'e>(
    b: &mut FunctionBuilder,
    p: &'p Program,
    fma: bool,
    steps: &'p Steps,
    split: &'p Split,
    frame: &'p FramePlan,
    env: &mut crate::codegen::Env<'e>,
    inp: &Inputs,
    si: &StepInputs,
    head: ir::Block,
    scalar_head: ir::Block,
    ls0: Value,
    base0: Value,
    on_state: &mut dyn FnMut(&mut FunctionBuilder, Value, Value),
) -> Result<()> {
    let mut head = head;
    // A region that may stop its row early (`narrow.rs`) says so in `skip`, which every
    // iteration starts at 0.
    let skip = steps
        .regions
        .iter()
        .any(|r| r.narrow.is_some())
        .then(|| b.declare_var(types::I8));
    let chain = match steps.regions.first().is_some_and(|r| r.sub_group_lanes) {
        // Rows are whole sub-groups: no narrower loop after.
        true => vec![(steps.lanes, scalar_head)],
        false => super::loop_chain(b, steps.lanes, scalar_head),
    };
    for (w, next) in chain {
        let x = *b
            .block_params(head)
            .first()
            .ok_or_else(|| refuse("vector loop head without counter"))?;
        b.switch_to_block(head);
        let body_blk = b.create_block();
        let end = b.ins().iadd_imm_s(x, w as i64);
        let fits = b
            .ins()
            .icmp(ir::condcodes::IntCC::UnsignedLessThanOrEqual, end, ls0);
        b.ins()
            .brif(fits, body_blk, &[], next, &[BlockArg::Value(x)]);
        b.switch_to_block(body_blk);
        if let Some(flag) = skip {
            let zero = b.ins().iconst(types::I8, 0);
            b.def_var(flag, zero);
        }
        let g0 = b.ins().iadd(base0, x);
        let linear = b.ins().iadd(si.row, x);
        let off = b.ins().imul_imm_s(linear, si.frame_size);
        let fbase = b.ins().iadd(si.frame, off);
        let lanes = Inputs {
            lid: [x, inp.lid[1], inp.lid[2]],
            gid: [g0, inp.gid[1], inp.gid[2]],
            frames: Some(FrameBase {
                base: fbase,
                size: si.frame_size,
                cross: CrossBase {
                    area: si.cross_area,
                    items: si.items,
                    linear,
                },
            }),
            skip: skip.map(|flag| super::SkipRest { flag, ls0 }),
            ..*inp
        };
        let reached = b.create_block();
        let st = b.append_block_param(reached, types::I32);
        // One region per state.
        let mut sw = cranelift_frontend::Switch::new();
        let mut blocks = Vec::new();
        for (i, _) in steps.regions.iter().enumerate() {
            let blk = b.create_block();
            let state = if i == 0 { 0 } else { frame.state(i - 1) };
            sw.set_entry(state as u128, blk);
            blocks.push(blk);
        }
        let exit_blk = b.create_block();
        sw.emit(b, si.state, exit_blk);
        b.switch_to_block(exit_blk);
        let e = b.ins().iconst(types::I32, EXIT);
        b.ins().jump(reached, &[BlockArg::Value(e)]);
        for (plan, blk) in steps.regions.iter().zip(blocks) {
            b.switch_to_block(blk);
            super::step_body(
                b,
                p,
                fma,
                plan,
                w,
                &lanes,
                (split, frame),
                reached,
                Some(&mut *env),
            )?;
        }
        b.switch_to_block(reached);
        on_state(b, linear, st);
        // Skipping the rest of the row: the loops after this one find no room either.
        let next_x = match skip {
            Some(flag) => {
                let f = b.use_var(flag);
                b.ins().select(f, ls0, end)
            }
            None => end,
        };
        b.ins().jump(head, &[BlockArg::Value(next_x)]);
        head = next;
    }
    Ok(())
}
