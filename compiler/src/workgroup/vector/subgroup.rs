//! Sub-groups as vector iterations: a kernel whose only boundaries are sub-group ones
//! (sub-group barriers, collectives, shuffles) runs with W = its sub-group size, so one
//! iteration of the vector loop is exactly one sub-group. A sub-group barrier is then
//! nothing to do (the lanes run each instruction together), and a collective combines
//! the lanes in registers, through the same lane-order computation the frame-based
//! combine uses ([`crate::workgroup::combine::sub_group`]), so the results are the
//! reference's bit for bit. The lanes active under the mask are the work-items that
//! reached the collective together.

use super::{refuse, scalar_ty, VTx, V};
use crate::codegen::group::ballot_lane;
use crate::codegen::regions::{collective, operand_positions};
use crate::codegen::Result;
use crate::ir::Inst;
use crate::spirv::{op_id, result_type};
use crate::workgroup::combine::{self, Lane};
use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value};
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Op, Scope};

impl VTx<'_, '_, '_, '_> {
    /// Whether `inst` ends the region being translated (in a vector step): a boundary of
    /// the split, which in one split at its work-group boundaries alone (the lanes are a
    /// sub-group) is a work-group one.
    pub(super) fn ends_region(&self, inst: &Inst) -> bool {
        use crate::workgroup::regions::{is_boundary, is_work_group_point};
        self.steps.is_some()
            && is_boundary(inst.class.opcode)
            && (!self.plan.sub_group_lanes || is_work_group_point(self.p, inst))
    }

    /// A sub-group boundary instruction where the lanes are one sub-group.
    pub(super) fn sub_group_op(&mut self, inst: &Inst) -> Result<()> {
        let op = inst.class.opcode;
        if op == Op::ControlBarrier {
            if self.p.const_u64(op_id(inst, 0)?)? != Scope::Subgroup as u64 {
                return Err(refuse("a work-group barrier"));
            }
            // Every lane's accesses before it are done before any lane's after it; the
            // race detector counts it as the scalar shapes do (a new epoch per lane).
            return self.race_boundary();
        }
        if op == Op::GroupWaitEvents {
            return Err(refuse("an asynchronous copy's wait"));
        }
        let c = collective(self.p, inst, &self.spv_tys)?;
        if !c.sub {
            return Err(refuse("a work-group collective"));
        }
        let w = self.w;
        let (values, extras, _) = operand_positions(op);
        // Per value, per component, per lane.
        let mut vals: Vec<Vec<Vec<Value>>> = Vec::new();
        for pos in values {
            let comps = match self.val(op_id(inst, *pos)?)? {
                V::Comp(c) => c,
                x => vec![x],
            };
            if comps.len() != c.n as usize {
                return Err(refuse("collective operand size"));
            }
            let mut per = Vec::new();
            for comp in &comps {
                let l = self.lanes(comp)?;
                if l.iter().any(|x| self.b.func.dfg.value_type(*x) != c.ty) {
                    return Err(refuse("collective operand type"));
                }
                per.push(l);
            }
            vals.push(per);
        }
        // The extra operands (index, delta, local id, cluster size), as `i64` per lane.
        let zero = self.b.ins().iconst(types::I64, 0);
        let mut ex = vec![vec![zero; w]; 3];
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
                ex[k + e] = l
                    .into_iter()
                    .map(|x| match self.b.func.dfg.value_type(x).bits() < 64 {
                        true => self.b.ins().uextend(types::I64, x),
                        false => x,
                    })
                    .collect();
            }
        }
        let lanes: Vec<Lane> = (0..w)
            .map(|k| {
                let active = match self.mask {
                    Some(m) => {
                        let x = self.b.ins().extractlane(m, k as u8);
                        self.b.ins().icmp_imm_u(IntCC::NotEqual, x, 0)
                    }
                    None => self.b.ins().iconst(types::I8, 1),
                };
                let comp = |v: usize| -> Vec<Value> {
                    vals.get(v)
                        .map_or_else(Vec::new, |per| per.iter().map(|l| l[k]).collect())
                };
                Lane {
                    active,
                    x: comp(0),
                    y: comp(1),
                    e: ex[0][k],
                    e2: ex[1][k],
                }
            })
            .collect();
        let size = self.b.ins().iconst(types::I64, w as i64);
        let out = combine::sub_group(self.b, &c, &lanes, size);
        let mut comps: Vec<V> = (0..c.rn as usize)
            .map(|j| {
                let l: Vec<Value> = out.iter().map(|o| o[j]).collect();
                self.gathered(c.rty, l)
            })
            .collect();
        let v = match comps.len() {
            1 => comps.pop().ok_or_else(|| refuse("collective result"))?,
            _ => V::Comp(comps),
        };
        self.set(inst, c.rty, v)?;
        // A boundary of the scalar shapes, where the race detector starts a new epoch.
        self.race_boundary()
    }
}

impl VTx<'_, '_, '_, '_> {
    /// An operation on a ballot that needs no other lane's value (`InverseBallot`,
    /// `BallotBitExtract`, `BallotBitCount`, `BallotFindLSB/MSB`), per lane through the
    /// scalar code's sequence ([`crate::codegen::group::ballot_lane`]).
    pub(super) fn ballot_local(&mut self, inst: &Inst) -> Result<()> {
        let op = inst.class.opcode;
        if self.p.const_u64(op_id(inst, 0)?)? != Scope::Subgroup as u64 {
            return Err(refuse(format!("Op{op:?} with a scope other than Subgroup")));
        }
        let pos = if op == Op::GroupNonUniformBallotBitCount {
            2
        } else {
            1
        };
        let comps = match self.val(op_id(inst, pos)?)? {
            V::Comp(c) if c.len() == 4 => c,
            _ => return Err(refuse("a ballot that is not four components")),
        };
        let lid = self.linear_builtin(BuiltIn::SubgroupLocalInvocationId, types::I32)?;
        let extract = match op {
            Op::GroupNonUniformBallotBitExtract => Some(self.val(op_id(inst, 2)?)?),
            _ => None,
        };
        let group_op = match inst.operands.get(1) {
            Some(Operand::GroupOperation(o)) => Some(*o),
            _ => None,
        };
        let t = scalar_ty(self.p, result_type(inst)?)?;
        let max = self
            .b
            .ins()
            .iconst(types::I64, i64::from(self.plan.sub_group_size));
        let mut out = Vec::with_capacity(self.w);
        for k in 0..self.w {
            let mut c4 = [max; 4];
            for (i, c) in comps.iter().enumerate() {
                c4[i] = self.lane(c, k)?;
                if self.b.func.dfg.value_type(c4[i]) != types::I32 {
                    return Err(refuse("a ballot that is not of 32-bit integers"));
                }
            }
            let l = self.lane(&lid, k)?;
            let ex = match &extract {
                Some(e) => {
                    let x = self.lane(e, k)?;
                    Some(match self.b.func.dfg.value_type(x).bits() < 64 {
                        true => self.b.ins().uextend(types::I64, x),
                        false => x,
                    })
                }
                None => None,
            };
            let r = ballot_lane(self.b, op, group_op, &c4, l, max, ex)?;
            let r = match (self.b.func.dfg.value_type(r).bits(), t.bits()) {
                (a, b) if a == b => r,
                (a, b) if a > b => self.b.ins().ireduce(t, r),
                _ => self.b.ins().uextend(t, r),
            };
            out.push(r);
        }
        let v = self.gathered(t, out);
        self.set(inst, t, v)
    }
}
