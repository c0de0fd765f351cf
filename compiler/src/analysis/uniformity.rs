//! Uniformity: what a value is across the lanes of a vector of work-items that are
//! consecutive along x (Karrenberg & Hack's divergence analysis, PoCL's
//! `VariableUniformityAnalysis`), and which branches diverge.
//!
//! A value's [`Shape`] is one of
//! - `Uniform`: the same in every lane (arguments, constants, group geometry, ids along y
//!   and z, results of uniform operations, loads through a uniform pointer: the lanes of a
//!   barrier-free kernel are unordered, so loading one address once for all is a legal
//!   schedule);
//! - `Affine(step)`: lane `k` holds `base + k × step` (an integer or pointer;
//!   `get_global_id(0)` has step 1, `p + gid` the element size), kept through additions,
//!   subtractions, multiplication by a constant, left shifts by a constant, truncation
//!   (wrapping commutes) and pointer casts. Steps are wrapping 64-bit numbers; a lowering
//!   reduces them to the value's width;
//! - `Varying`: anything else.
//!
//! A conditional branch or switch on a value that is not uniform *diverges*: lanes may go
//! different ways. Past a divergent branch a value can differ between lanes even when its
//! operands do not (sync dependence): a phi where the paths join again (at the branch's
//! immediate post-dominator, or inside the region the branch controls), and, when the
//! branch decides whether lanes leave a loop, what the loop leaves behind (the lanes leave
//! in different iterations). Those are `Varying`; the rest keeps the shape its operands
//! give, so a loop counter beside an `if (l < s)` stays uniform.
//!
//! A loop in closed form (`loops::close`: each value it defines reaches the blocks after
//! it through a phi of its exit block) keeps, inside, the shapes of its values: the lanes
//! still in the loop have run the same iterations, so `n` of `while (n < max && |z| < 2)
//! n++;` is the same in each of them (LLVM's *temporal divergence*). Only the exit phis,
//! its values after the loop, are varying; the values they take are listed in
//! [`Uniformity::temporal`], for the lowering to keep per lane as each lane leaves. Other
//! loops left by a divergent branch have their header phis and every value used after
//! them made varying.
//!
//! The function must be inlined (no calls): a call's result is `Varying`.

use super::cfg::Cfg;
use crate::codegen::Result;
use crate::spirv::{op_id, Constant, Function, Program, Type};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, Op, Word};
use std::collections::{HashMap, HashSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Uniform,
    Affine(i64),
    Varying,
}

impl Shape {
    /// The least shape that covers both.
    pub fn join(self, other: Shape) -> Shape {
        match (self, other) {
            (a, b) if a == b => a,
            _ => Shape::Varying,
        }
    }

    /// The lane step of an integer or pointer: 0 for uniform values.
    fn step(self) -> Option<i64> {
        match self {
            Shape::Uniform => Some(0),
            Shape::Affine(s) => Some(s),
            Shape::Varying => None,
        }
    }

    fn from_step(s: Option<i64>) -> Shape {
        match s {
            Some(0) => Shape::Uniform,
            Some(s) => Shape::Affine(s),
            None => Shape::Varying,
        }
    }
}

#[derive(Clone)]
pub struct Uniformity {
    shapes: HashMap<Word, Shape>,
    /// Labels of the blocks whose branch diverges.
    pub divergent: Vec<Word>,
    /// Values of a closed loop that lanes leave in different iterations, used after it (by
    /// its exit phis): whatever their shape inside, each lane's value is the one of the
    /// iteration it left in (module documentation).
    pub temporal: HashSet<Word>,
}

impl Uniformity {
    /// The shape of value `id`. Ids the function does not define (constants, module-scope
    /// variables, the kernel's parameters) are uniform.
    pub fn shape(&self, id: Word) -> Shape {
        self.shapes.get(&id).copied().unwrap_or(Shape::Uniform)
    }
}

/// Which builtin vector a value was loaded from.
type Builtins = HashMap<Word, BuiltIn>;

/// What the transfer functions look up besides the shapes.
struct Facts<'a> {
    p: &'a Program,
    /// The type of every value the function defines and of its parameters.
    types: HashMap<Word, Word>,
    params: HashSet<Word>,
    /// Values that are exactly the local id along x, at 32 bits or wider: widening one
    /// never wraps (a local id is below the work-group size), so it stays affine.
    local_x: HashSet<Word>,
}

impl Facts<'_> {
    /// The integer (or pointer: 64) width of value `id`, if it is one.
    fn width(&self, id: Word) -> Option<u32> {
        let ty = match self.types.get(&id) {
            Some(t) => *t,
            None => match self.p.constants.get(&id)? {
                Constant::Scalar { ty, .. } => *ty,
                _ => return None,
            },
        };
        int_width(self.p, ty)
    }
}

/// Analyse `f` (inlined; see the module documentation).
pub fn analyse(p: &Program, f: &Function, cfg: &Cfg) -> Result<Uniformity> {
    let mut types: HashMap<Word, Word> = f.params.iter().map(|prm| (prm.id, prm.ty)).collect();
    for b in &f.blocks {
        for i in &b.insts {
            if let (Some(r), Some(t)) = (i.result_id, i.result_type) {
                types.insert(r, t);
            }
        }
    }
    let params = f.params.iter().map(|prm| prm.id).collect();
    let local_x = local_x_values(p, f, &types);
    let facts = Facts {
        p,
        types,
        params,
        local_x,
    };
    let ipdom = cfg.post_dominators();
    let loops = crate::analysis::loops::Loops::new(cfg).ok();
    // Which loops are in closed form (`loops::close`), once: a scan of the function each.
    let closed: Vec<bool> = loops.as_ref().map_or_else(Vec::new, |ls| {
        ls.loops
            .iter()
            .map(|l| crate::analysis::loops::is_closed(f, cfg, l))
            .collect()
    });
    let sync = Sync {
        f,
        cfg,
        ipdom: &ipdom,
        loops: loops.as_ref(),
        closed: &closed,
    };
    let mut forced: HashSet<Word> = HashSet::new();
    let mut temporal: HashSet<Word> = HashSet::new();
    loop {
        let (shapes, divergent) = fixpoint(&facts, f, cfg, &forced)?;
        let before = forced.len();
        for &b in &divergent {
            sync.dependence(b, &mut forced, &mut temporal);
        }
        if forced.len() == before {
            let divergent = divergent.iter().map(|b| f.blocks[*b].label).collect();
            return Ok(Uniformity {
                shapes,
                divergent,
                temporal,
            });
        }
    }
}

/// What [`Sync::dependence`] reads.
struct Sync<'a> {
    f: &'a Function,
    cfg: &'a Cfg,
    ipdom: &'a [Option<usize>],
    loops: Option<&'a crate::analysis::loops::Loops>,
    /// Whether each loop is in closed form.
    closed: &'a [bool],
}

impl Sync<'_> {
    /// The values a divergent branch in block `b` makes varying even when their operands
    /// are not: the phis where its paths join again (at its immediate post-dominator, and
    /// inside the region it controls); and, when it decides whether lanes leave a loop
    /// (the join is outside the loop, or there is none), what the loop leaves behind. Of a
    /// closed loop, that is its exit phis (the values they take go to `temporal`), and
    /// the region stops at its back edges: lanes that left do not meet the others at its
    /// header again. Of any other loop, every phi of its header and every value defined in
    /// it and used after it. Without post-dominators or loops (an irreducible graph),
    /// every result in a block reachable from `b`.
    fn dependence(&self, b: usize, forced: &mut HashSet<Word>, temporal: &mut HashSet<Word>) {
        let (f, cfg) = (self.f, self.cfg);
        let results = |blk: usize, phis_only: bool| {
            f.blocks[blk]
                .insts
                .iter()
                .filter(move |i| !phis_only || i.class.opcode == Op::Phi)
                .filter_map(|i| i.result_id)
        };
        let join = self.ipdom.get(b).copied().flatten();
        let Some(loops) = self.loops else {
            let mut seen = HashSet::new();
            let mut work: Vec<usize> = cfg.succs[b].clone();
            while let Some(x) = work.pop() {
                if seen.insert(x) {
                    forced.extend(results(x, false));
                    work.extend(cfg.succs[x].iter().copied());
                }
            }
            return;
        };
        let left: Vec<usize> = (0..loops.loops.len())
            .filter(|&li| {
                loops.contains(li, b)
                    && join.is_none_or(|j| j >= f.blocks.len() || !loops.contains(li, j))
            })
            .collect();
        // A single closed loop: only its exits are joins.
        let closed = match left[..] {
            [l] if self.closed.get(l) == Some(&true) => Some(l),
            _ => None,
        };
        // The region between the branch and its join.
        let mut region = HashSet::new();
        let mut work: Vec<usize> = cfg.succs[b].clone();
        while let Some(x) = work.pop() {
            if Some(x) == join || x >= f.blocks.len() || !region.insert(x) {
                continue;
            }
            for &s in &cfg.succs[x] {
                let back =
                    closed.is_some_and(|l| s == loops.loops[l].header && loops.contains(l, x));
                if !back {
                    work.push(s);
                }
            }
        }
        for &x in &region {
            forced.extend(results(x, true));
        }
        if let Some(j) = join.filter(|j| *j < f.blocks.len()) {
            forced.extend(results(j, true));
        }
        if let Some(l) = closed {
            let lp = &loops.loops[l];
            for &x in &lp.blocks {
                for &e in &cfg.succs[x] {
                    if lp.blocks.contains(&e) {
                        continue;
                    }
                    for i in f.blocks[e]
                        .insts
                        .iter()
                        .filter(|i| i.class.opcode == Op::Phi)
                    {
                        forced.extend(i.result_id);
                        temporal.extend(i.operands.iter().step_by(2).filter_map(|o| match o {
                            Operand::IdRef(id) => Some(*id),
                            _ => None,
                        }));
                    }
                }
            }
            return;
        }
        for &li in &left {
            let l = &loops.loops[li];
            forced.extend(results(l.header, true));
            let defined: HashSet<Word> = l.blocks.iter().flat_map(|&x| results(x, false)).collect();
            for &x in &cfg.rpo {
                if l.blocks.contains(&x) {
                    continue;
                }
                for i in &f.blocks[x].insts {
                    for o in &i.operands {
                        if let Operand::IdRef(id) = o {
                            if defined.contains(id) {
                                forced.insert(*id);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Shapes by iteration to a fixpoint (results in `forced` blocks are varying), and the
/// indices of the blocks whose branch diverges.
fn fixpoint(
    facts: &Facts,
    f: &Function,
    cfg: &Cfg,
    forced: &HashSet<Word>,
) -> Result<(HashMap<Word, Shape>, Vec<usize>)> {
    let mut shapes: HashMap<Word, Shape> = HashMap::new();
    let mut builtins = Builtins::new();
    loop {
        let mut changed = false;
        for &bi in &cfg.rpo {
            for inst in &f.blocks[bi].insts {
                let Some(r) = inst.result_id else { continue };
                let s = if forced.contains(&r) {
                    Shape::Varying
                } else {
                    transfer(facts, inst, &shapes, &mut builtins)?
                };
                // Shapes only grow (Uniform < Affine < Varying), so the loop ends.
                let new = match shapes.get(&r) {
                    Some(old) => old.join(s),
                    None => s,
                };
                if shapes.insert(r, new) != Some(new) {
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let get = |id: Word| shapes.get(&id).copied().unwrap_or(Shape::Uniform);
    let mut divergent = Vec::new();
    for &bi in &cfg.rpo {
        let Some(t) = f.blocks[bi].insts.last() else {
            continue;
        };
        if matches!(t.class.opcode, Op::BranchConditional | Op::Switch)
            && get(op_id(t, 0)?) != Shape::Uniform
        {
            divergent.push(bi);
        }
    }
    Ok((shapes, divergent))
}

fn int_const(p: &Program, id: Word) -> Option<i64> {
    match p.constants.get(&id) {
        Some(Constant::Scalar { bits, .. }) => Some(*bits as i64),
        _ => None,
    }
}

fn int_width(p: &Program, ty: Word) -> Option<u32> {
    match p.ty(ty).ok()? {
        Type::Int { width, .. } => Some(*width),
        Type::Pointer { .. } => Some(64),
        _ => None,
    }
}

/// The shape of `inst`'s result from its operands' shapes so far.
fn transfer(
    facts: &Facts,
    inst: &Instruction,
    shapes: &HashMap<Word, Shape>,
    builtins: &mut Builtins,
) -> Result<Shape> {
    use Shape::*;
    let p = facts.p;
    let get = |id: Word| shapes.get(&id).copied().unwrap_or(Uniform);
    let op_shape = |k: usize| -> Result<Shape> { Ok(get(op_id(inst, k)?)) };
    let all_uniform = || {
        inst.operands.iter().all(|o| match o {
            Operand::IdRef(id) => get(*id) == Uniform,
            _ => true,
        })
    };
    let uniform_or_varying = || if all_uniform() { Uniform } else { Varying };
    Ok(match inst.class.opcode {
        Op::Phi => {
            let mut s: Option<Shape> = None;
            for pair in inst.operands.chunks(2) {
                if let Some(Operand::IdRef(v)) = pair.first() {
                    // A value of the function not reached yet (a back edge's) adds
                    // nothing yet; constants and parameters are uniform.
                    let x = match shapes.get(v) {
                        Some(x) => *x,
                        None if facts.types.contains_key(v) && !is_param(facts, *v) => continue,
                        None => Uniform,
                    };
                    s = Some(s.map_or(x, |y| y.join(x)));
                }
            }
            s.unwrap_or(Uniform)
        }
        Op::Load => {
            let ptr = op_id(inst, 0)?;
            if let Some(b) = p.builtin_of(ptr) {
                if let Some(r) = inst.result_id {
                    builtins.insert(r, b);
                }
                return Ok(match b {
                    BuiltIn::GlobalInvocationId | BuiltIn::LocalInvocationId => {
                        // Only its components are meaningful (CompositeExtract below).
                        Varying
                    }
                    BuiltIn::WorkgroupId
                    | BuiltIn::NumWorkgroups
                    | BuiltIn::WorkgroupSize
                    | BuiltIn::EnqueuedWorkgroupSize
                    | BuiltIn::GlobalSize
                    | BuiltIn::GlobalOffset
                    | BuiltIn::WorkDim
                    | BuiltIn::SubgroupMaxSize
                    | BuiltIn::NumSubgroups
                    | BuiltIn::NumEnqueuedSubgroups => Uniform,
                    _ => Varying,
                });
            }
            if get(ptr) == Uniform {
                Uniform
            } else {
                Varying
            }
        }
        Op::CompositeExtract => {
            let src = op_id(inst, 0)?;
            match (builtins.get(&src), inst.operands.get(1)) {
                (
                    Some(BuiltIn::GlobalInvocationId | BuiltIn::LocalInvocationId),
                    Some(Operand::LiteralBit32(0)),
                ) => Affine(1),
                (Some(BuiltIn::GlobalInvocationId | BuiltIn::LocalInvocationId), _) => Uniform,
                _ => op_shape(0)?.join(Uniform),
            }
        }
        Op::IAdd | Op::ISub => {
            let (a, b) = (op_shape(0)?.step(), op_shape(1)?.step());
            let sub = inst.class.opcode == Op::ISub;
            Shape::from_step(a.zip(b).map(|(x, y)| {
                if sub {
                    x.wrapping_sub(y)
                } else {
                    x.wrapping_add(y)
                }
            }))
        }
        Op::IMul => {
            let (ai, bi) = (op_id(inst, 0)?, op_id(inst, 1)?);
            match (int_const(p, ai), int_const(p, bi)) {
                (_, Some(c)) => Shape::from_step(get(ai).step().map(|s| s.wrapping_mul(c))),
                (Some(c), _) => Shape::from_step(get(bi).step().map(|s| s.wrapping_mul(c))),
                _ => uniform_or_varying(),
            }
        }
        Op::ShiftLeftLogical => match int_const(p, op_id(inst, 1)?) {
            Some(c) if get(op_id(inst, 1)?) == Uniform => {
                let width = inst.result_type.and_then(|t| int_width(p, t)).unwrap_or(64);
                let c = (c as u32) & (width - 1);
                Shape::from_step(op_shape(0)?.step().map(|s| s.wrapping_shl(c)))
            }
            _ => uniform_or_varying(),
        },
        Op::UConvert | Op::SConvert => {
            let src = op_id(inst, 0)?;
            let narrowing = match (
                inst.result_type.and_then(|t| int_width(p, t)),
                facts.width(src),
            ) {
                (Some(d), Some(s)) => d <= s,
                _ => false,
            };
            let local_x = inst.result_id.is_some_and(|r| facts.local_x.contains(&r));
            match get(src) {
                Affine(s) if narrowing || local_x => Affine(s),
                Uniform => Uniform,
                _ => Varying,
            }
        }
        Op::PtrAccessChain | Op::InBoundsPtrAccessChain if inst.operands.len() == 2 => {
            let size = inst
                .result_type
                .and_then(|t| p.pointer_type(t).ok())
                .and_then(|(_, pointee)| crate::layout::layout(p, pointee).ok())
                .map(|l| l.size as i64);
            let (b, mut i) = (op_shape(0)?.step(), op_shape(1)?.step());
            // A narrower index is sign-extended: affine only while it does not wrap,
            // which a lowering tests at run time, not here.
            if facts.width(op_id(inst, 1)?).is_some_and(|w| w < 64) && i != Some(0) {
                i = None;
            }
            match size {
                Some(size) => {
                    Shape::from_step(b.zip(i).map(|(b, i)| b.wrapping_add(i.wrapping_mul(size))))
                }
                None => uniform_or_varying(),
            }
        }
        Op::Bitcast | Op::PtrCastToGeneric | Op::GenericCastToPtr | Op::CopyObject => op_shape(0)?,
        Op::Variable | Op::FunctionCall | Op::FunctionPointerCallINTEL => Varying,
        op if is_atomic(op) => Varying,
        _ => uniform_or_varying(),
    })
}

/// The values of `f` that are `get_local_id(0)` itself, at 32 bits or more: component 0 of
/// a load of `LocalInvocationId`, and conversions of one to 32 or 64 bits. (SPIR-V lists a
/// block after the blocks that dominate it, so one pass sees each definition first.)
/// The values of `f` that are exactly the local id along x, at 32 bits or wider.
pub fn local_x(p: &Program, f: &Function) -> HashSet<Word> {
    let types = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| Some((i.result_id?, i.result_type?)))
        .collect();
    local_x_values(p, f, &types)
}

fn local_x_values(p: &Program, f: &Function, types: &HashMap<Word, Word>) -> HashSet<Word> {
    let mut loads = HashSet::new();
    let mut out = HashSet::new();
    for b in &f.blocks {
        for inst in &b.insts {
            let (Some(r), Ok(src)) = (inst.result_id, op_id(inst, 0)) else {
                continue;
            };
            match inst.class.opcode {
                Op::Load if p.builtin_of(src) == Some(BuiltIn::LocalInvocationId) => {
                    loads.insert(r);
                }
                Op::CompositeExtract
                    if loads.contains(&src)
                        && matches!(inst.operands.get(1), Some(Operand::LiteralBit32(0))) =>
                {
                    out.insert(r);
                }
                Op::UConvert | Op::SConvert
                    if out.contains(&src)
                        && types
                            .get(&r)
                            .and_then(|t| int_width(p, *t))
                            .is_some_and(|w| w >= 32) =>
                {
                    out.insert(r);
                }
                _ => {}
            }
        }
    }
    out
}

fn is_param(facts: &Facts, id: Word) -> bool {
    // Parameters have no defining instruction; `types` holds them beside the results.
    !facts.p.constants.contains_key(&id) && facts.params.contains(&id)
}

fn is_atomic(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        AtomicLoad
            | AtomicExchange
            | AtomicCompareExchange
            | AtomicCompareExchangeWeak
            | AtomicIIncrement
            | AtomicIDecrement
            | AtomicIAdd
            | AtomicISub
            | AtomicSMin
            | AtomicUMin
            | AtomicSMax
            | AtomicUMax
            | AtomicAnd
            | AtomicOr
            | AtomicXor
            | AtomicFAddEXT
            | AtomicFMinEXT
            | AtomicFMaxEXT
    )
}

#[cfg(test)]
mod tests {
    use super::{analyse, Shape};
    use crate::analysis::cfg::Cfg;
    use crate::spirv::{Function, Program};
    use rspirv::spirv::Op;
    use std::collections::HashMap;

    /// A checked-in kernel (`analysis/testdata/`: the SPIR-V, and beside it its OpenCL C
    /// with the commands that made it), inlined and analysed.
    fn analysed(spv: &[u8], kernel: &str) -> (Program, Function, super::Uniformity) {
        let p = Program::parse(spv, &HashMap::new()).expect("fixture parses");
        let ep = p
            .entry_points
            .iter()
            .find(|e| e.name == kernel)
            .expect("kernel")
            .func;
        let f = crate::workgroup::regions::inline_all(&p, ep)
            .expect("inlines")
            .func;
        let cfg = Cfg::new(&f).expect("cfg");
        let u = analyse(&p, &f, &cfg).expect("analyses");
        (p, f, u)
    }

    fn phis(f: &Function) -> Vec<rspirv::spirv::Word> {
        f.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter(|i| i.class.opcode == Op::Phi)
            .filter_map(|i| i.result_id)
            .collect()
    }

    /// `for (s = n / 2; s > 0; s >>= 1) { if (l < s) …; barrier(…); }`: the branch on the
    /// local id diverges, but the loop counter beside it stays uniform (its paths join
    /// again before the barrier), so the loop's exit does not diverge.
    #[test]
    fn a_counter_beside_a_divergent_if_stays_uniform() {
        let spv = include_bytes!("testdata/reduce.spv");
        let (_, f, u) = analysed(spv, "reduce");
        assert_eq!(u.divergent.len(), 2, "the if (l < s) and the if (l == 0)");
        let ps = phis(&f);
        assert!(!ps.is_empty());
        for phi in ps {
            assert_eq!(u.shape(phi), Shape::Uniform, "phi %{phi}");
        }
    }

    /// Mandelbrot's loop exits on a per-pixel condition: its header phis (the counter and
    /// the orbit) are varying, and the store index is affine in the work-item.
    #[test]
    fn a_loop_with_a_divergent_exit_has_varying_header_phis() {
        let spv = include_bytes!("testdata/mandelbrot.spv");
        let (_, f, u) = analysed(spv, "mandel");
        assert!(!u.divergent.is_empty());
        let ps = phis(&f);
        assert!(ps.len() >= 3);
        for phi in ps {
            assert_eq!(u.shape(phi), Shape::Varying, "phi %{phi}");
        }
        let affine = f
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter_map(|i| i.result_id)
            .filter(|r| matches!(u.shape(*r), Shape::Affine(_)))
            .count();
        assert!(affine >= 2, "x and the output address are affine");
    }

    /// The same loop in closed form (`loops::dedicate_exits`, `loops::close`): its lanes
    /// still inside have run the same iterations, so the counter is uniform there and only
    /// its exit phi, the count each lane left with, is varying; the orbit stays varying.
    #[test]
    fn a_closed_loop_keeps_its_counter_uniform_inside() {
        use crate::analysis::loops::{self, Loops};
        let spv = include_bytes!("testdata/mandelbrot.spv");
        let (p, mut f, _) = analysed(spv, "mandel");
        let mut next = crate::workgroup::regions::next_id(&p, &f).expect("ids");
        loops::dedicate_exits(&mut f, &mut next).expect("reducible");
        let cfg = Cfg::new(&f).expect("cfg");
        let lps = Loops::new(&cfg).expect("loops");
        assert_eq!(lps.loops.len(), 1);
        // (llvm-spirv's output already has the count's exit phi: nothing to add.)
        loops::close(&mut f, &cfg, &lps, &mut next);
        assert!(loops::is_closed(&f, &cfg, &lps.loops[0]));
        let u = analyse(&p, &f, &cfg).expect("analyses");
        let header = &f.blocks[lps.loops[0].header];
        let int = |i: &crate::ir::Inst| {
            matches!(
                i.result_type.map(|t| p.ty(t)),
                Some(Ok(crate::spirv::Type::Int { .. }))
            )
        };
        let (mut counters, mut orbits) = (0, 0);
        for i in header.insts.iter().filter(|i| i.class.opcode == Op::Phi) {
            let r = i.result_id.expect("phi result");
            if int(i) {
                counters += 1;
                assert_eq!(u.shape(r), Shape::Uniform, "counter %{r}");
                assert!(u.temporal.contains(&r), "counter %{r} leaves per lane");
            } else {
                orbits += 1;
                assert_eq!(u.shape(r), Shape::Varying, "orbit %{r}");
            }
        }
        assert_eq!((counters, orbits), (1, 2));
        let after: Vec<_> = (0..f.blocks.len())
            .filter(|b| !lps.contains(0, *b))
            .flat_map(|b| &f.blocks[b].insts)
            .filter(|i| i.class.opcode == Op::Phi && int(i))
            .collect();
        assert!(!after.is_empty(), "the count leaves through an exit phi");
        for i in after {
            let r = i.result_id.expect("phi result");
            assert_eq!(u.shape(r), Shape::Varying, "count after the loop %{r}");
        }
    }
}
