//! `printf` in a vector loop: one call per lane, in lane order, for the active lanes only
//! (under a mask), each with the record the scalar code builds for that work-item
//! (`codegen/ext_memory.rs`, `printf_record`). The output is the scalar code's, byte for
//! byte: the runtime prints a launch's records in group order, then work-item order.

use super::{refuse, VTx, V};
use crate::codegen::ext_memory::{printf_record, printf_result};
use crate::codegen::Result;
use crate::spirv::{op_id, result_type, Type};
use crate::GroupContext;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, Value};
use rspirv::dr::Instruction;
use rspirv::spirv::{BuiltIn, Word};

impl VTx<'_, '_, '_, '_> {
    /// `printf(format, args…)` for every active lane.
    pub(super) fn printf_lanes(&mut self, inst: &Instruction) -> Result<()> {
        let p = self.p;
        let V::U(fmt) = self.val(op_id(inst, 2)?)? else {
            return Err(refuse("printf with a format that differs between lanes"));
        };
        // Each argument's type and its components' lanes.
        let mut args: Vec<(Word, Vec<Vec<Value>>)> = Vec::new();
        for i in 3..inst.operands.len() {
            let id = op_id(inst, i)?;
            let v = self.val(id)?;
            let ty = self.type_of_id(id)?;
            let (elem, _) = self.vector_type(ty)?;
            // (Lanes keep booleans as masks, the scalar code as 0 or 1.)
            if matches!(p.ty(elem)?, Type::Bool) {
                return Err(refuse("printf of a bool"));
            }
            let comps = match v {
                V::Comp(parts) => parts,
                v => vec![v],
            };
            let mut lanes = Vec::with_capacity(comps.len());
            for c in &comps {
                lanes.push(self.lanes(c)?);
            }
            args.push((ty, lanes));
        }
        // The group's linear id (uniform) and each lane's local linear id, as the scalar
        // code computes them.
        let field = |o: i32| {
            let i = (o / 8) as usize;
            [0, 1, 2].map(|k| self.inp.ctx_vals[i + k])
        };
        let gid = field(GroupContext::OFFSET_GROUP_ID);
        let ng = field(GroupContext::OFFSET_NUM_GROUPS);
        let t = self.b.ins().imul(gid[2], ng[1]);
        let t = self.b.ins().iadd(t, gid[1]);
        let t = self.b.ins().imul(t, ng[0]);
        let group = self.b.ins().iadd(t, gid[0]);
        let items = self.linear_builtin(BuiltIn::LocalInvocationIndex, types::I64)?;
        let items = self.lanes(&items)?;
        let sink = self.b.ins().load(
            types::I64,
            crate::codegen::trusted(),
            self.inp.ctx,
            GroupContext::OFFSET_PRINTF,
        );
        let bi = crate::builtins::by_name("ferrite_printf")
            .ok_or_else(|| refuse("the printf built-in"))?;
        let fref = self.builtin_fref(&bi)?;
        let rt = crate::codegen::clif_scalar(p, result_type(inst)?)?;
        let mut out = Vec::with_capacity(self.w);
        for k in 0..self.w {
            let lane: Vec<(Word, Vec<Value>)> = args
                .iter()
                .map(|(ty, comps)| (*ty, comps.iter().map(|l| l[k]).collect()))
                .collect();
            let call = |s: &mut Self| -> Result<Value> {
                let rec = printf_record(p, s.b, fmt, group, items[k], &lane)?;
                let c = s.b.ins().call(fref, &[sink, rec]);
                let r = s.b.inst_results(c)[0];
                printf_result(p, s.b, inst, r)
            };
            match self.mask {
                None => out.push(call(self)?),
                Some(m) => {
                    let (on_blk, next) = (self.b.create_block(), self.b.create_block());
                    let x = self.b.append_block_param(next, rt);
                    let on = self.b.ins().extractlane(m, k as u8);
                    let z = self.b.ins().iconst(rt, 0);
                    self.b
                        .ins()
                        .brif(on, on_blk, &[], next, &[BlockArg::Value(z)]);
                    self.b.switch_to_block(on_blk);
                    let r = call(self)?;
                    self.b.ins().jump(next, &[BlockArg::Value(r)]);
                    self.b.switch_to_block(next);
                    out.push(x);
                }
            }
        }
        let v = self.gathered(rt, out);
        self.set(inst, rt, v)
    }
}
