//! Masked mode: a kernel with a divergent branch, run for four lanes as one straight
//! sequence of its blocks (Karrenberg & Hack's linearisation), every block under the mask
//! of the lanes that reach it.
//!
//! Blocks are emitted in [`loops::order`]: every forward edge points later and each loop
//! is contiguous. A block's mask is the union of the masks of its incoming edges; a
//! branch does not jump but splits its block's mask between its targets (a uniform
//! condition too: this mode does not tell them apart). An `OpPhi` is a blend of its
//! incoming values by their edge masks. A loop repeats its blocks while any lane takes a
//! back edge: its header's mask is the entry edges' the first time and the back edges'
//! after; an exit edge's mask is the union over the iterations; a value defined in the loop
//! and used after it keeps, per lane, its value from the iteration in which that lane left
//! (blended in at the end of each iteration), except in a loop whose branches are all
//! uniform, which every lane that enters leaves in the same iteration. An exit that leaves two loops at once, and
//! irreducible control flow, are refused.
//!
//! Memory under a mask: a load or store runs as one vector access (or the unmasked lane
//! by lane access) when all lanes are active, else lane by lane if any is, an inactive
//! lane reading zeros or writing a spare slot instead of its own address (which may be out
//! of bounds: `if (i < n) a[i] = …`); a load through a uniform pointer runs if any lane is
//! active. Everything else computes every
//! lane: the operations the vectoriser takes cannot trap.

use super::{refuse, scalar_ty, vec_of, zero_of, Repr, VTx, V};
use crate::analysis::loops::{self, Item, Loops};
use crate::analysis::uniformity::Shape;
use crate::codegen::Result;
use crate::spirv::{op_id, result_id, result_type};
use crate::CompileError;
use cranelift_codegen::ir::{
    self, condcodes::IntCC, types, BlockArg, InstBuilder, MemFlagsData, Value,
};
use cranelift_frontend::Variable;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, Word};
use std::collections::{HashMap, HashSet};

/// What masked mode needs beyond the uniform translation: the loops and the order.
pub struct Linear {
    pub loops: Loops,
    pub order: Vec<Item>,
}

impl Linear {
    pub fn new(cfg: &crate::analysis::cfg::Cfg) -> Result<Linear> {
        let loops = Loops::new(cfg)?;
        let order = loops::order(cfg, &loops);
        Ok(Linear { loops, order })
    }
}

/// How a masked load's two paths join: the representation of its value.
#[derive(Clone, Copy)]
enum Join {
    Vector(ir::Type),
    F64,
    Zext,
    Lanes,
}

/// Masks and loop-carried state during translation.
#[derive(Default)]
pub struct State {
    /// The mask of each edge (block indices) whose source has been emitted.
    edges: HashMap<(usize, usize), Value>,
    /// The mask of each emitted block.
    blocks: HashMap<usize, Value>,
    /// Exit edges of the loops being emitted: the union of their masks so far.
    exits: HashMap<(usize, usize), Variable>,
    /// Exit edges taken in the current iteration of each loop being emitted: the edge's
    /// union and the mask of the lanes taking it now.
    exits_now: HashMap<usize, Vec<(Variable, Value)>>,
    /// Headers of the loops being emitted (their phis are variables, not blends).
    headers: HashSet<usize>,
    /// All ones.
    full: Option<Value>,
    /// Where an inactive lane's store goes (16 bytes, made at the first masked store).
    spare: Option<ir::StackSlot>,
}

/// What an inactive lane's load reads: zeros, for any scalar type.
static ZEROS: [u64; 2] = [0; 2];

impl VTx<'_, '_, '_, '_> {
    /// Translate the whole kernel in masked mode from the current block; returns with the
    /// builder in the block after it.
    pub(super) fn linear_body(&mut self, lin: &Linear) -> Result<()> {
        let mt = self.mask_ty();
        let ones = self.b.ins().iconst(mt.lane_type(), -1);
        let full = self.b.ins().splat(mt, ones);
        self.lin.full = Some(full);
        let entry = *self
            .plan
            .cfg
            .rpo
            .first()
            .ok_or_else(|| refuse("kernel without blocks"))?;
        self.lin.blocks.insert(entry, full);
        self.items(lin, &lin.order)?;
        if self.steps.is_some() {
            // A region ends in the state of the boundary its lanes reached, or EXIT.
            let st = self.b.use_var(self.step_state);
            self.b.ins().jump(self.exit, &[BlockArg::Value(st)]);
        } else {
            self.b.ins().jump(self.exit, &[]);
            self.b.switch_to_block(self.exit);
        }
        Ok(())
    }

    fn items(&mut self, lin: &Linear, items: &[Item]) -> Result<()> {
        for item in items {
            match item {
                Item::Block(b) => self.masked_block(lin, *b)?,
                Item::Loop(l, inner) => self.masked_loop(lin, *l, inner)?,
            }
        }
        Ok(())
    }

    /// The union of the masks of the edges into `b` from outside loop `from_outside` (all
    /// edges when `None`); `None` when no lane can arrive.
    fn entry_mask(&mut self, b: usize, skip: &dyn Fn(usize) -> bool) -> Option<Value> {
        let preds = self.plan.cfg.preds[b].clone();
        let mut m: Option<Value> = None;
        for p in preds {
            if skip(p) {
                continue;
            }
            let e = match self.lin.edges.get(&(p, b)) {
                Some(e) => *e,
                None => continue,
            };
            m = Some(match m {
                Some(x) => self.b.ins().bor(x, e),
                None => e,
            });
        }
        m
    }

    fn masked_block(&mut self, lin: &Linear, bi: usize) -> Result<()> {
        let f = &self.plan.inlined.func;
        let blk = &f.blocks[bi];
        let mask = match self.lin.blocks.get(&bi) {
            Some(m) => *m,
            None => match self.entry_mask(bi, &|_| false) {
                Some(m) => m,
                // No edge reaches it (its predecessors are unreachable): nothing runs.
                None => self.zero_mask(),
            },
        };
        self.lin.blocks.insert(bi, mask);
        self.mask = Some(mask);
        self.cur_label = blk.label;
        for id in std::mem::take(&mut self.block_consts) {
            self.vals.remove(&id);
        }
        let header = self.lin.headers.contains(&bi);
        for inst in &blk.insts {
            match inst.class.opcode {
                Op::Nop
                | Op::Line
                | Op::NoLine
                | Op::Name
                | Op::Decorate
                | Op::ModuleProcessed
                | Op::LifetimeStart
                | Op::LifetimeStop
                | Op::AssumeTrueKHR
                | Op::LoopMerge
                | Op::SelectionMerge => {}
                Op::Phi if header => self.phi(inst)?,
                Op::Phi => self.blend_phi(bi, inst)?,
                Op::Return => return Ok(()),
                _ if self.ends_region(inst) => return self.boundary(inst),
                Op::Branch => {
                    let to = self.index_of(op_id(inst, 0)?)?;
                    return self.edge(lin, bi, to, mask);
                }
                Op::BranchConditional => {
                    let c = self.val(op_id(inst, 0)?)?;
                    let c = self.mask(&c)?;
                    let t = self.index_of(op_id(inst, 1)?)?;
                    let e = self.index_of(op_id(inst, 2)?)?;
                    if t == e {
                        return self.edge(lin, bi, t, mask);
                    }
                    let mt = self.b.ins().band(mask, c);
                    let mf = self.b.ins().band_not(mask, c);
                    self.narrow_guard(blk.label, mf);
                    self.edge(lin, bi, t, mt)?;
                    return self.edge(lin, bi, e, mf);
                }
                Op::Switch => return self.masked_switch(lin, bi, inst, mask),
                _ => self.inst(inst).map_err(|e| super::at_inst(e, inst))?,
            }
        }
        Err(refuse(format!("block %{} without a terminator", blk.label)))
    }

    /// At a region's guard (`narrow.rs`), `out` the lanes that reached it and fail it:
    /// when the last lane is one of them (so is every later work-item of the row) and the
    /// row is whole iterations, the rest of the row is skipped.
    fn narrow_guard(&mut self, label: Word, out: Value) {
        let (Some(n), Some(skip)) = (&self.plan.narrow, self.inp.skip) else {
            return;
        };
        if n.guard != label {
            return;
        }
        let last = self.b.ins().extractlane(out, (self.w - 1) as u8);
        let last_out = self.b.ins().icmp_imm_s(IntCC::NotEqual, last, 0);
        let rest = self.b.ins().band_imm_s(skip.ls0, (self.w - 1) as i64);
        let whole = self.b.ins().icmp_imm_s(IntCC::Equal, rest, 0);
        let f = self.b.ins().band(last_out, whole);
        self.b.def_var(skip.flag, f);
    }

    /// The all-ones mask of masked mode, once made.
    pub(super) fn lin_full(&self) -> Option<Value> {
        self.lin.full
    }

    /// Whether every lane runs the instruction being translated: uniform mode, or the
    /// current mask is the full one.
    pub(super) fn all_lanes(&self) -> bool {
        match self.mask {
            None => true,
            Some(m) => Some(m) == self.lin_full(),
        }
    }

    fn zero_mask(&mut self) -> Value {
        let mt = self.mask_ty();
        let z = self.b.ins().iconst(mt.lane_type(), 0);
        self.b.ins().splat(mt, z)
    }

    fn index_of(&self, label: Word) -> Result<usize> {
        self.plan
            .inlined
            .func
            .blocks
            .iter()
            .position(|b| b.label == label)
            .ok_or(CompileError::InvalidId {
                id: label,
                expected: "block label",
            })
    }

    /// Record the mask of the edge `from → to`: an exit of the loop being emitted adds to
    /// its union; a back edge or a forward edge is kept for its target.
    fn edge(&mut self, lin: &Linear, from: usize, to: usize, m: Value) -> Result<()> {
        let inner = lin.loops.innermost[from];
        if let Some(l) = inner {
            if !lin.loops.contains(l, to) {
                // An exit of loop `l`; it must not leave the parent loop as well.
                if let Some(parent) = lin.loops.loops[l].parent {
                    if !lin.loops.contains(parent, to) {
                        return Err(refuse("an exit from two loops at once"));
                    }
                }
                let var = *self
                    .lin
                    .exits
                    .get(&(from, to))
                    .ok_or_else(|| refuse("loop exit not prepared"))?;
                // Added to the edge's union at the end of the iteration.
                self.lin.exits_now.entry(l).or_default().push((var, m));
                return Ok(());
            }
        }
        self.lin.edges.insert((from, to), m);
        Ok(())
    }

    fn masked_switch(
        &mut self,
        lin: &Linear,
        bi: usize,
        inst: &Instruction,
        mask: Value,
    ) -> Result<()> {
        let sel_id = op_id(inst, 0)?;
        let t = self.ty(sel_id)?;
        let sel = self.val(sel_id)?;
        let default = self.index_of(op_id(inst, 1)?)?;
        let mut taken: Option<Value> = None;
        let mut targets: Vec<(usize, Value)> = Vec::new();
        for k in (2..inst.operands.len()).step_by(2) {
            let lit = match inst.operands.get(k) {
                Some(Operand::LiteralBit32(x)) => i64::from(*x),
                Some(Operand::LiteralBit64(x)) => *x as i64,
                _ => return Err(refuse("switch literal")),
            };
            let to = self.index_of(op_id(inst, k + 1)?)?;
            let c = self.b.ins().iconst(t, super::canon(lit, t));
            let eq = self.compare_values(&sel, &V::U(c), t)?;
            let eq = self.mask(&eq)?;
            taken = Some(match taken {
                Some(x) => self.b.ins().bor(x, eq),
                None => eq,
            });
            match targets.iter_mut().find(|(b, _)| *b == to) {
                Some((_, m)) => *m = self.b.ins().bor(*m, eq),
                None => targets.push((to, eq)),
            }
        }
        let dm = match taken {
            Some(x) => self.b.ins().band_not(mask, x),
            None => mask,
        };
        for (to, c) in targets {
            let m = self.b.ins().band(mask, c);
            if to == default {
                let both = self.b.ins().bor(m, dm);
                self.edge(lin, bi, to, both)?;
            } else {
                self.edge(lin, bi, to, m)?;
            }
        }
        if !self.lin.edges.contains_key(&(bi, default))
            && !self.lin.exits.contains_key(&(bi, default))
        {
            self.edge(lin, bi, default, dm)?;
        }
        Ok(())
    }

    /// `a == b` across the lanes, as a boolean value.
    fn compare_values(&mut self, a: &V, b: &V, t: ir::Type) -> Result<V> {
        use cranelift_codegen::ir::condcodes::IntCC;
        Ok(match (a, b) {
            (V::U(x), V::U(y)) => V::U(self.b.ins().icmp(IntCC::Equal, *x, *y)),
            _ if vec_of(t).is_some() => {
                let x = self.vector(a, t)?;
                let y = self.vector(b, t)?;
                let parts = self.map2(&x, &y, |b, x, y| b.ins().icmp(IntCC::Equal, x, y));
                V::Mask(self.narrow_mask(&parts))
            }
            _ => {
                let x = self.lanes(a)?;
                let y = self.lanes(b)?;
                V::L(self.map2(&x, &y, |b, x, y| b.ins().icmp(IntCC::Equal, x, y)))
            }
        })
    }

    /// A phi outside a loop header: its incoming values blended by their edge masks.
    fn blend_phi(&mut self, bi: usize, inst: &Instruction) -> Result<()> {
        let id = result_id(inst)?;
        // An OpenCL vector blends component by component (`blend`), its type the element's.
        let (elem, _) = self.vector_type(result_type(inst)?)?;
        let t = scalar_ty(self.p, elem)?;
        let mut incoming = Vec::new();
        for pair in inst.operands.chunks(2) {
            let [Operand::IdRef(v), Operand::IdRef(from)] = pair else {
                return Err(refuse("phi operands"));
            };
            // A predecessor outside the function (a region's) sends no lane.
            let Ok(p) = self.index_of(*from) else {
                continue;
            };
            let Some(m) = self.lin.edges.get(&(p, bi)).copied() else {
                // No lane comes that way (an unreachable predecessor).
                continue;
            };
            incoming.push((self.val(*v)?, m));
        }
        let Some((mut acc, _)) = incoming.pop() else {
            return Err(refuse(format!("phi %{id} without a reachable predecessor")));
        };
        let uniform = self.plan.shapes.shape(id) == Shape::Uniform;
        let boolean = self.is_bool(elem);
        for (v, m) in incoming.into_iter().rev() {
            acc = self.blend(m, &v, &acc, t, uniform, boolean)?;
        }
        self.set(inst, t, acc)
    }

    /// Lanes of `a` where `m` is set, else of `b` (scalar type `t`). A value the analysis
    /// found uniform stays uniform: every active lane took the same edge.
    pub(super) fn blend(
        &mut self,
        m: Value,
        a: &V,
        b: &V,
        t: ir::Type,
        uniform: bool,
        boolean: bool,
    ) -> Result<V> {
        if let (true, V::U(x), V::U(y)) = (uniform, a, b) {
            let any = self.b.ins().vany_true(m);
            return Ok(V::U(self.b.ins().select(any, *x, *y)));
        }
        if let (V::Comp(x), V::Comp(y)) = (a, b) {
            let mut c = Vec::with_capacity(x.len());
            for (x, y) in x.iter().zip(y) {
                c.push(self.blend(m, x, y, t, uniform, boolean)?);
            }
            return Ok(V::Comp(c));
        }
        if boolean {
            let x = self.mask(a)?;
            let y = self.mask(b)?;
            return Ok(V::Mask(self.b.ins().bitselect(m, x, y)));
        }
        if super::doubles::any_f64(t, &[a, b]) {
            let x = self.f64_parts(a)?;
            let y = self.f64_parts(b)?;
            return Ok(V::F64(self.f64_select(m, &x, &y)));
        }
        if vec_of(t).is_some() {
            let x = self.vector(a, t)?;
            let y = self.vector(b, t)?;
            return Ok(V::Vec(self.select_parts(m, &x, &y)));
        }
        let x = self.lanes(a)?;
        let y = self.lanes(b)?;
        let mut l = Vec::with_capacity(self.w);
        for k in 0..self.w {
            let c = self.b.ins().extractlane(m, k as u8);
            l.push(self.b.ins().select(c, x[k], y[k]));
        }
        Ok(V::L(l))
    }

    /// `v` in the representation of a variable of `repr` (scalar type `t`).
    fn coerce(&mut self, repr: Repr, t: ir::Type, v: &V) -> Result<Vec<Value>> {
        Ok(match (repr, v) {
            (Repr::Uniform, V::U(a)) => vec![*a],
            (Repr::Affine(s), V::Aff(a, s2)) if super::canon(*s2, t) == s => vec![*a],
            (Repr::Mask, _) => vec![self.mask(v)?],
            (Repr::Vector, _) => self.vector(v, t)?,
            (Repr::Lanes, _) => self.lanes(v)?,
            (Repr::F64, _) => self.f64_parts(v)?,
            _ => return Err(refuse(format!("loop value {v:?} kept as {repr:?}"))),
        })
    }

    /// [`Self::coerce`] of a value of `n` components (an OpenCL vector kept as its
    /// components' variables, one after another), or of a scalar (`None`).
    fn coerce_n(&mut self, repr: Repr, t: ir::Type, v: &V, n: Option<usize>) -> Result<Vec<Value>> {
        match (n, v) {
            (None, _) => self.coerce(repr, t, v),
            (Some(n), V::Comp(parts)) if parts.len() == n => {
                let mut out = Vec::new();
                for part in parts {
                    out.extend(self.coerce(repr, t, part)?);
                }
                Ok(out)
            }
            _ => Err(refuse(format!("loop value {v:?} kept as {n:?} components"))),
        }
    }

    /// The value kept in `vars`: `n` components' variables one after another, or one
    /// scalar's (`None`).
    fn read_vars_n(&mut self, repr: Repr, vars: &[Variable], n: Option<usize>) -> V {
        match n {
            Some(n) if n > 0 => {
                let per = vars.len() / n;
                V::Comp(vars.chunks(per).map(|c| self.read_vars(repr, c)).collect())
            }
            _ => self.read_vars(repr, vars),
        }
    }

    /// Values defined in loop `l` and used outside it.
    fn live_out(&self, lin: &Linear, l: usize) -> Vec<Word> {
        let f = &self.plan.inlined.func;
        let mut defined = HashSet::new();
        for &b in &lin.loops.loops[l].blocks {
            for i in &f.blocks[b].insts {
                if let Some(r) = i.result_id {
                    defined.insert(r);
                }
            }
        }
        let mut out = Vec::new();
        for &b in &self.plan.cfg.rpo {
            if lin.loops.contains(l, b) {
                continue;
            }
            for i in &f.blocks[b].insts {
                for o in &i.operands {
                    if let Operand::IdRef(id) = o {
                        if defined.contains(id) && !out.contains(id) {
                            out.push(*id);
                        }
                    }
                }
            }
        }
        out
    }

    /// Whether every conditional branch and switch in loop `lp` is on a uniform value
    /// (every lane active in the loop takes the same path through it).
    fn branches_uniform(&self, lp: &loops::Loop) -> bool {
        let f = &self.plan.inlined.func;
        lp.blocks.iter().all(|&b| {
            f.blocks[b].insts.iter().all(|i| match i.class.opcode {
                Op::BranchConditional | Op::Switch => {
                    op_id(i, 0).is_ok_and(|c| self.plan.shapes.shape(c) == Shape::Uniform)
                }
                _ => true,
            })
        })
    }

    fn masked_loop(&mut self, lin: &Linear, l: usize, inner: &[Item]) -> Result<()> {
        let lp = &lin.loops.loops[l];
        let h = lp.header;
        let f = &self.plan.inlined.func;
        let zero = self.zero_mask();
        // The mask entering from outside.
        let entry = self
            .entry_mask(h, &|p| lin.loops.contains(l, p))
            .unwrap_or(zero);
        // Exit edges start empty.
        for &b in &lp.blocks {
            for &s in &self.plan.cfg.succs[b] {
                if !lp.blocks.contains(&s) {
                    let var = self.b.declare_var(self.mask_ty());
                    self.b.def_var(var, zero);
                    self.lin.exits.insert((b, s), var);
                }
            }
        }
        // The header's phis take their values from outside.
        let header_label = f.blocks[h].label;
        let phis = self
            .block_phis
            .get(&header_label)
            .cloned()
            .unwrap_or_default();
        let mut outside = Vec::new();
        for (phi, incoming) in &phis {
            let (repr, t, vars) = self.phis[phi].clone();
            let mut acc: Option<V> = None;
            for (v, from) in incoming {
                let Ok(p) = self.index_of(*from) else {
                    continue;
                };
                if lin.loops.contains(l, p) {
                    continue;
                }
                let Some(m) = self.lin.edges.get(&(p, h)).copied() else {
                    continue;
                };
                let x = self.val(*v)?;
                acc = Some(match acc {
                    None => x,
                    Some(a) => {
                        let uniform = matches!(repr, Repr::Uniform);
                        self.blend(m, &x, &a, t, uniform, repr == Repr::Mask)?
                    }
                });
            }
            let acc = acc.ok_or_else(|| refuse(format!("loop phi %{phi} without an entry")))?;
            let n = self.phi_counts.get(phi).copied();
            let vals = self.coerce_n(repr, t, &acc, n)?;
            outside.push((vars, vals));
        }
        for (vars, vals) in outside {
            for (var, x) in vars.iter().zip(vals) {
                self.b.def_var(*var, x);
            }
        }
        // Values used after the loop: per lane, the value of the iteration it left in —
        // unless every branch in the loop is uniform: then the lanes that enter leave
        // together, in the last iteration, with its values.
        let live = if self.branches_uniform(lp) {
            Vec::new()
        } else {
            self.live_out(lin, l)
        };
        let mut outs = Vec::new();
        for id in &live {
            // An OpenCL vector is kept as its components' variables, one after another.
            let (ty, count) = self.vector_type(self.value_spirv_type(*id)?)?;
            let n = (count > 1).then_some(count);
            let t = scalar_ty(self.p, ty)?;
            // A value the same in every lane inside the loop is not after it when lanes
            // leave in different iterations (`Uniformity::temporal`).
            let repr = if self.plan.shapes.shape(*id) == Shape::Uniform
                && !self.plan.shapes.temporal.contains(id)
            {
                Repr::Uniform
            } else if self.is_bool(ty) {
                Repr::Mask
            } else {
                Repr::varying(t)
            };
            let mut vars: Vec<Variable> = Vec::new();
            for _ in 0..count {
                vars.extend(match repr {
                    Repr::Uniform => {
                        let v = self.b.declare_var(t);
                        let z = zero_of(self.b, t);
                        self.b.def_var(v, z);
                        vec![v]
                    }
                    Repr::Lanes => (0..self.w)
                        .map(|_| {
                            let v = self.b.declare_var(t);
                            let z = zero_of(self.b, t);
                            self.b.def_var(v, z);
                            v
                        })
                        .collect(),
                    Repr::Mask => {
                        let v = self.b.declare_var(self.mask_ty());
                        let z = self.zero_mask();
                        self.b.def_var(v, z);
                        vec![v]
                    }
                    Repr::F64 => {
                        let z = self.b.ins().f64const(0.0);
                        let z = self.b.ins().splat(types::F64X2, z);
                        (0..self.w / 2)
                            .map(|_| {
                                let v = self.b.declare_var(types::F64X2);
                                self.b.def_var(v, z);
                                v
                            })
                            .collect()
                    }
                    _ => {
                        let vt = vec_of(t).unwrap_or(t);
                        let z = zero_of(self.b, t);
                        let z = self.b.ins().splat(vt, z);
                        (0..self.w / 4)
                            .map(|_| {
                                let v = self.b.declare_var(vt);
                                self.b.def_var(v, z);
                                v
                            })
                            .collect()
                    }
                });
            }
            outs.push((*id, repr, t, vars, n));
        }
        let hm = self.b.declare_var(self.mask_ty());
        self.b.def_var(hm, entry);
        let head = self.b.create_block();
        let after = self.b.create_block();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let m = self.b.use_var(hm);
        self.lin.blocks.insert(h, m);
        self.lin.headers.insert(h);
        self.lin.exits_now.insert(l, Vec::new());
        self.items(lin, inner)?;
        // The end of an iteration: lanes that left keep their values; the header's phis
        // take the back edges' values; the loop goes on while a lane took a back edge.
        let mut back: Option<Value> = None;
        let mut back_edges: HashMap<usize, Value> = HashMap::new();
        for &latch in &lp.latches {
            if let Some(e) = self.lin.edges.remove(&(latch, h)) {
                back_edges.insert(latch, e);
                back = Some(match back {
                    Some(x) => self.b.ins().bor(x, e),
                    None => e,
                });
            }
        }
        let back = back.unwrap_or(zero);
        let now = self.lin.exits_now.remove(&l).unwrap_or_default();
        let mut left: Option<Value> = None;
        for (_, e) in &now {
            left = Some(match left {
                Some(x) => self.b.ins().bor(x, *e),
                None => *e,
            });
        }
        if let Some(left) = left {
            // The exits' unions and the leaving lanes' values, only in iterations some
            // lane leaves in: few, against every iteration's blends (mandelbrot's 8 lanes
            // leave in at most 8 of up to 256). The values are made here, where the code
            // after the loop may reuse them.
            let mut curs = Vec::with_capacity(outs.len());
            for (id, ..) in &outs {
                curs.push(self.val(*id)?);
            }
            let any = self.b.ins().vany_true(left);
            let keep = self.b.create_block();
            let go_on = self.b.create_block();
            self.b.ins().brif(any, keep, &[], go_on, &[]);
            self.b.switch_to_block(keep);
            for (var, m) in now {
                let acc = self.b.use_var(var);
                let acc = self.b.ins().bor(acc, m);
                self.b.def_var(var, acc);
            }
            for ((_, repr, t, vars, n), cur) in outs.iter().zip(curs) {
                let old = self.read_vars_n(*repr, vars, *n);
                let uniform = matches!(repr, Repr::Uniform);
                let new = self.blend(left, &cur, &old, *t, uniform, *repr == Repr::Mask)?;
                let vals = self.coerce_n(*repr, *t, &new, *n)?;
                for (var, x) in vars.iter().zip(vals) {
                    self.b.def_var(*var, x);
                }
            }
            self.b.ins().jump(go_on, &[]);
            self.b.switch_to_block(go_on);
        }
        let mut next = Vec::new();
        for (phi, incoming) in &phis {
            let (repr, t, vars) = self.phis[phi].clone();
            let mut acc: Option<V> = None;
            for (v, from) in incoming {
                let Ok(p) = self.index_of(*from) else {
                    continue;
                };
                if !lp.latches.contains(&p) {
                    continue;
                }
                let x = self.val(*v)?;
                acc = Some(match (acc, back_edges.get(&p).copied()) {
                    (None, _) => x,
                    (Some(a), Some(m)) => {
                        let uniform = matches!(repr, Repr::Uniform);
                        self.blend(m, &x, &a, t, uniform, repr == Repr::Mask)?
                    }
                    (Some(a), None) => a,
                });
            }
            if let Some(acc) = acc {
                let n = self.phi_counts.get(phi).copied();
                next.push((vars, self.coerce_n(repr, t, &acc, n)?));
            }
        }
        for (vars, vals) in next {
            for (var, x) in vars.iter().zip(vals) {
                self.b.def_var(*var, x);
            }
        }
        self.b.def_var(hm, back);
        let again = self.b.ins().vany_true(back);
        self.b.ins().brif(again, head, &[], after, &[]);
        self.b.switch_to_block(after);
        self.lin.headers.remove(&h);
        for (id, repr, _, vars, n) in &outs {
            let v = self.read_vars_n(*repr, vars, *n);
            self.vals.insert(*id, v);
        }
        // The exits' masks for the blocks after the loop.
        let exits: Vec<((usize, usize), Variable)> = self
            .lin
            .exits
            .iter()
            .filter(|((b, _), _)| lp.blocks.contains(b))
            .map(|(k, v)| (*k, *v))
            .collect();
        for (edge, var) in exits {
            self.lin.exits.remove(&edge);
            let m = self.b.use_var(var);
            let (from, to) = edge;
            // An exit of this loop may be an exit of the enclosing one too: add it there.
            if lin.loops.loops[l]
                .parent
                .is_some_and(|p| !lin.loops.contains(p, to))
            {
                return Err(refuse("an exit from two loops at once"));
            }
            self.lin.edges.insert((from, to), m);
        }
        Ok(())
    }

    /// The SPIR-V type of a value the function defines.
    fn value_spirv_type(&self, id: Word) -> Result<Word> {
        for b in &self.plan.inlined.func.blocks {
            for i in &b.insts {
                if i.result_id == Some(id) {
                    return result_type(i);
                }
            }
        }
        Err(refuse(format!("type of %{id}")))
    }

    /// A load under mask `m`: the unmasked access when all lanes are active, else lane
    /// by lane, inactive lanes reading zeros; through a uniform pointer, one load
    /// if any lane is active.
    pub(super) fn load_masked(&mut self, pv: V, t: ir::Type, m: Value) -> Result<V> {
        let flags = MemFlagsData::new();
        if Some(m) == self.lin.full {
            return self.load(pv, t);
        }
        if let V::U(a) = pv {
            let (ld, join) = (self.b.create_block(), self.b.create_block());
            let x = self.b.append_block_param(join, t);
            let any = self.b.ins().vany_true(m);
            let z = zero_of(self.b, t);
            self.b.ins().brif(any, ld, &[], join, &[BlockArg::Value(z)]);
            self.b.switch_to_block(ld);
            let v = self.b.ins().load(t, flags, a, 0);
            self.b.ins().jump(join, &[BlockArg::Value(v)]);
            self.b.switch_to_block(join);
            return Ok(V::U(x));
        }
        let (fast, slow, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let all = self.b.ins().vall_true(m);
        self.b.ins().brif(all, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        let v = self.load(pv.clone(), t)?;
        // The join keeps the shape the full load has: `char`/`short` or `double` lanes in
        // parts when it loaded them whole, else `float`/`int` vectors or scalars (a
        // gather's lanes stay lanes: packing them would be undone by their users).
        let shape = match (&v, vec_of(t)) {
            (V::Zext(..), _) => Join::Zext,
            (V::F64(_), _) => Join::F64,
            (_, Some(vt)) => Join::Vector(vt),
            _ => Join::Lanes,
        };
        let (pt, n) = match shape {
            Join::Vector(vt) => (vt, self.w / 4),
            Join::F64 => (types::F64X2, self.w / 2),
            Join::Zext => (types::I32X4, self.w / 4),
            Join::Lanes => (t, self.w),
        };
        let params: Vec<Value> = (0..n)
            .map(|_| self.b.append_block_param(join, pt))
            .collect();
        let args = self.join_args(&v, t, shape)?;
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(slow);
        // No lane active (a block every lane skips): nothing to read.
        let some = self.b.create_block();
        let any = self.b.ins().vany_true(m);
        let z = zero_of(self.b, t);
        let zeros = self.join_args(&V::U(z), t, shape)?;
        self.b.ins().brif(any, some, &[], join, &zeros);
        self.b.switch_to_block(some);
        // Each lane loads, an inactive one from zeros: no branch per lane.
        let addr = self.lanes(&pv)?;
        let zeros = self.b.ins().iconst(types::I64, ZEROS.as_ptr() as i64);
        let addr = self.active_or(&addr, m, zeros);
        let l: Vec<Value> = addr
            .iter()
            .map(|a| self.b.ins().load(t, flags, *a, 0))
            .collect();
        let g = self.gathered(t, l);
        let args = self.join_args(&g, t, shape)?;
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        Ok(match shape {
            Join::Vector(_) => V::Vec(params),
            Join::F64 => V::F64(params),
            Join::Zext => V::Zext(params, t),
            Join::Lanes => V::L(params),
        })
    }

    /// The address of a 16-byte slot an inactive lane's store goes to.
    pub(super) fn spare_addr(&mut self) -> Value {
        let slot = match self.lin.spare {
            Some(s) => s,
            None => {
                let s = self.b.create_sized_stack_slot(ir::StackSlotData::new(
                    ir::StackSlotKind::ExplicitSlot,
                    16,
                    4,
                ));
                self.lin.spare = Some(s);
                s
            }
        };
        self.b.ins().stack_addr(types::I64, slot, 0)
    }

    /// Each lane's address where the lane is active under `m`, else `spare`.
    pub(super) fn active_or(&mut self, addr: &[Value], m: Value, spare: Value) -> Vec<Value> {
        (0..self.w)
            .map(|k| {
                let on = self.b.ins().extractlane(m, k as u8);
                self.b.ins().select(on, addr[k], spare)
            })
            .collect()
    }

    fn join_args(&mut self, v: &V, t: ir::Type, shape: Join) -> Result<Vec<BlockArg>> {
        let vals = match shape {
            Join::Vector(_) => self.vector(v, t)?,
            Join::F64 => self.f64_parts(v)?,
            Join::Zext => self.zext_parts(v, t)?,
            Join::Lanes => self.lanes(v)?,
        };
        Ok(vals.into_iter().map(BlockArg::Value).collect())
    }

    /// A store under mask `m`: the unmasked store when all lanes are active, else lane
    /// by lane in lane order, inactive lanes writing a spare slot; a uniform value through
    /// a uniform pointer, one store if any lane is active.
    pub(super) fn store_masked(&mut self, pv: &V, v: &V, t: ir::Type, m: Value) -> Result<()> {
        if Some(m) == self.lin.full {
            return self.store(pv, v, t);
        }
        let flags = MemFlagsData::new();
        if let (V::U(a), V::U(x)) = (pv, v) {
            // Every lane stores the same value at the same place: one store if any lane
            // is active (`if (l == 0) out[g] = x;`).
            let (st, join) = (self.b.create_block(), self.b.create_block());
            let any = self.b.ins().vany_true(m);
            self.b.ins().brif(any, st, &[], join, &[]);
            self.b.switch_to_block(st);
            self.b.ins().store(flags, *x, *a, 0);
            self.b.ins().jump(join, &[]);
            self.b.switch_to_block(join);
            return Ok(());
        }
        let (fast, slow, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let all = self.b.ins().vall_true(m);
        self.b.ins().brif(all, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        self.store(pv, v, t)?;
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(slow);
        let some = self.b.create_block();
        let any = self.b.ins().vany_true(m);
        self.b.ins().brif(any, some, &[], join, &[]);
        self.b.switch_to_block(some);
        // Each lane stores, in lane order, an inactive one into a spare slot: no branch
        // per lane.
        let addr = self.lanes(pv)?;
        let l = self.lanes(v)?;
        let spare = self.spare_addr();
        let addr = self.active_or(&addr, m, spare);
        for (x, a) in l.iter().zip(&addr) {
            self.b.ins().store(flags, *x, *a, 0);
        }
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        Ok(())
    }
}
