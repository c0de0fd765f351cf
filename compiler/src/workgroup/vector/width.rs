//! The chooser of a kernel's lane width: how many work-items one iteration of its vector
//! loop runs (4, 8 or 16, as one, two or four 128-bit values per 32-bit SSA value).
//!
//! Wider is better until the values a loop carries no longer fit the 16 vector registers
//! of x86-64 without AVX-512 (Cranelift lowers only 128-bit vectors: a `float` of 8 lanes
//! takes two registers, a `double` four): then every iteration spills and reloads. Measured (two threads,
//! Ferrite alone, `FERRITE_LANES=4/8/16`): a naive matmul's loop keeps one `float` (and
//! its affine index) and runs 2.8x faster at 16 lanes than at 4, a 5x5 convolution's 3.3x;
//! mandelbrot's masked loop (four floats, two masks) 1.4x faster at 8 than at 4, and since
//! its iteration count stays uniform in the loop (`analysis/loops.rs`, closed form) 1.35x
//! faster at 16 than at 8 although it then spills (13.1-13.9 and 9.7-10.1 ms): each lane's `zr`,
//! `zi` are chains of dependent multiply-adds, and four independent chains per value hide
//! their latency better than two; n-body's (six floats, its time in `sqrt` and division)
//! the same at 8 and 16. (An earlier measurement, before a select of booleans became one
//! blend instead of a select per lane, had mandelbrot and n-body slower at 8 lanes.) So
//! the chooser
//! counts, for every loop, the registers its varying values need across an iteration —
//! header phis, values defined before the loop and used in it, and in masked mode the
//! loop's masks and the values kept for lanes that left — and takes the widest width at
//! which the largest count stays within [`BUDGET`]. A kernel without loops takes the widest,
//! unless one of its values (a `float4` at 16 lanes is 16 registers) would not leave room
//! for a second operand ([`VALUE_BUDGET`]).

use super::Plan;
use crate::analysis::loops::Loops;
use crate::analysis::uniformity::Shape;
use crate::codegen::Result;
use crate::spirv::{Program, Type};
use rspirv::dr::Operand;
use rspirv::spirv::{Op, Word};
use std::collections::{HashMap, HashSet};

/// Vector registers the values live across a loop's iterations may take (of 16, so the
/// body's temporaries spill some): mandelbrot's loop (14 at 16 lanes) measured faster at
/// 16 all the same, n-body's (24 at 16 lanes) not.
pub const BUDGET: usize = 14;

/// Vector registers one varying value may take: half the 16, so that two operands of an
/// operation fit. Translation loads every part of an operand before the operation's first
/// part (Cranelift keeps loads in order), so a `float4` saxpy at 16 lanes held 32 parts of
/// `x` and `y` at once and spilled 16 of them: `mem/saxpy-float4` took 4.4-4.6 ms at 16
/// lanes, 3.9-4.1 at 8 (`FERRITE_LANES`).
pub const VALUE_BUDGET: usize = 8;

/// The widest of `widths` (ascending) at which every loop of `plan` fits the budget and
/// no varying value takes more than [`VALUE_BUDGET`] registers; the narrowest if none
/// does. Also says why, for the kernel's handler note.
pub fn choose(p: &Program, plan: &Plan, widths: &[usize]) -> Result<(usize, String)> {
    let Some(&narrowest) = widths.first() else {
        return Ok((4, "no width offered".into()));
    };
    let loops = pressure(p, plan)?;
    let widest = widest_value(p, plan);
    let w = widths
        .iter()
        .rev()
        .copied()
        .find(|w| loops.iter().all(|r| r.at(*w) <= BUDGET) && widest.at(*w) <= VALUE_BUDGET)
        .unwrap_or(narrowest);
    let most = loops.iter().map(|r| r.at(w)).max();
    let mut why = match most {
        None => "no loop".to_string(),
        Some(n) => format!("its loops keep at most {n} vector registers live"),
    };
    if w < 16 && widest.at(w * 2) > VALUE_BUDGET {
        why += &format!("; its widest value takes {} vector registers", widest.at(w));
    }
    Ok((w, why))
}

/// The registers one loop needs across an iteration, by kind of value.
#[derive(Clone, Copy, Debug, Default)]
struct Regs {
    /// 32-bit values: one register per four lanes.
    narrow: usize,
    /// `double`s: one register per two lanes.
    doubles: usize,
    /// 8-, 16- and 64-bit integers: one (scalar) register per lane.
    wide: usize,
    /// Lane masks: one register whatever the width.
    masks: usize,
}

impl Regs {
    fn at(&self, w: usize) -> usize {
        self.narrow * w / 4 + self.doubles * w / 2 + self.wide * w + self.masks
    }

    fn add(&mut self, (bits, float): (u32, bool), comps: usize) {
        match (bits, float) {
            (1, _) => self.masks += comps,
            (32, _) => self.narrow += comps,
            (64, true) => self.doubles += comps,
            // 8-, 16- and 64-bit integers are kept one scalar per lane.
            _ => self.wide += comps,
        }
    }
}

/// The vector registers of the largest varying value of `plan`'s function (its 32-bit and
/// `double` parts; 8-, 16- and 64-bit integers are kept in scalar registers). None in a
/// kernel that reads, writes or samples images: its texels come from and go to calls,
/// which narrower would make twice as many (`image/copy` was 8% slower at 8 lanes).
fn widest_value(p: &Program, plan: &Plan) -> Regs {
    let mut widest = Regs::default();
    let insts = || plan.inlined.func.blocks.iter().flat_map(|b| &b.insts);
    let image = |op| {
        matches!(
            op,
            Op::ImageRead | Op::ImageWrite | Op::ImageSampleExplicitLod
        )
    };
    if insts().any(|i| image(i.class.opcode)) {
        return widest;
    }
    for inst in insts() {
        let (Some(r), Some(t)) = (inst.result_id, inst.result_type) else {
            continue;
        };
        if plan.shapes.shape(r) != Shape::Varying {
            continue;
        }
        let Some((k, comps)) = scalar_kind(p, t) else {
            continue;
        };
        let mut one = Regs::default();
        one.add(k, comps);
        one.wide = 0;
        one.masks = 0;
        if one.at(16) > widest.at(16) {
            widest = one;
        }
    }
    widest
}

/// For every loop of `plan`'s function, the registers its varying values need.
fn pressure(p: &Program, plan: &Plan) -> Result<Vec<Regs>> {
    let f = &plan.inlined.func;
    let loops = match &plan.linear {
        Some(lin) => &lin.loops,
        None => &Loops::new(&plan.cfg)?,
    };
    if loops.loops.is_empty() {
        return Ok(Vec::new());
    }
    // Each value's scalar width (1: a boolean), whether it is a float, and component
    // count, and its block.
    let mut kind: HashMap<Word, ((u32, bool), usize)> = HashMap::new();
    let mut block_of: HashMap<Word, usize> = HashMap::new();
    for (bi, blk) in f.blocks.iter().enumerate() {
        for inst in &blk.insts {
            if let (Some(r), Some(t)) = (inst.result_id, inst.result_type) {
                if let Some(k) = scalar_kind(p, t) {
                    kind.insert(r, k);
                }
                block_of.insert(r, bi);
            }
        }
    }
    let varying = |id: Word| plan.shapes.shape(id) == Shape::Varying;
    let mut out = Vec::new();
    for lp in &loops.loops {
        let mut regs = Regs::default();
        let mut seen = HashSet::new();
        let mut count = |id: Word, regs: &mut Regs| {
            if varying(id) && seen.insert(id) {
                if let Some((k, comps)) = kind.get(&id) {
                    regs.add(*k, *comps);
                }
            }
        };
        for &b in &lp.blocks {
            for inst in &f.blocks[b].insts {
                if inst.class.opcode == Op::Phi && b == lp.header {
                    if let Some(r) = inst.result_id {
                        count(r, &mut regs);
                    }
                }
                for o in &inst.operands {
                    let Operand::IdRef(id) = o else { continue };
                    let outside = block_of.get(id).is_some_and(|d| !lp.blocks.contains(d));
                    if outside {
                        count(*id, &mut regs);
                    }
                }
            }
        }
        if plan.linear.is_some() {
            // The header's mask, and per exit edge the mask of the lanes that left by it.
            regs.masks += 1;
            for &b in &lp.blocks {
                regs.masks += plan.cfg.succs[b]
                    .iter()
                    .filter(|s| !lp.blocks.contains(s))
                    .count();
            }
            // Values used after the loop keep each leaving lane's value.
            for (bi, blk) in f.blocks.iter().enumerate() {
                if lp.blocks.contains(&bi) {
                    continue;
                }
                for inst in &blk.insts {
                    for o in &inst.operands {
                        let Operand::IdRef(id) = o else { continue };
                        if block_of.get(id).is_some_and(|d| lp.blocks.contains(d)) {
                            count(*id, &mut regs);
                        }
                    }
                }
            }
        }
        out.push(regs);
    }
    Ok(out)
}

/// The scalar width (1 for a boolean), whether it is a float, and component count of
/// values of type `ty`, if they are numbers, booleans or vectors of them.
fn scalar_kind(p: &Program, ty: Word) -> Option<((u32, bool), usize)> {
    match p.ty(ty).ok()? {
        Type::Bool => Some(((1, false), 1)),
        // A half is computed in an `f32` lane.
        Type::Float { width: 16 } => Some(((32, true), 1)),
        Type::Float { width } => Some(((*width, true), 1)),
        Type::Int { width, .. } => Some(((*width, false), 1)),
        Type::Pointer { .. } => Some(((64, false), 1)),
        Type::Vector { elem, count } => {
            let (k, _) = scalar_kind(p, *elem)?;
            Some((k, *count as usize))
        }
        _ => None,
    }
}
