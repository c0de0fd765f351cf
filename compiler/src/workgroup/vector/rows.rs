//! 4-vectors kept as they lie in memory: a `float4` (or `int4`, `uint4`) loaded from
//! consecutive vectors, one per lane (`x[get_global_id(0)]`), is one 128-bit row per lane
//! instead of four component columns. Component-wise arithmetic (`+ - * /`, negation, a
//! vector times a scalar) on such rows and on uniform vectors gives rows again, and a store
//! of rows to consecutive vectors is one store per lane: `y[i] = a * x[i] + y[i]` on
//! `float4`s runs with no shuffle at all, where the columns cost a 4×4 transposition per
//! four lanes on every load and store (24 shuffles per 16 floats of a saxpy).
//!
//! Rows live beside the other values ([`VTx::rows`]); anything else that reads a value
//! kept as rows gets its columns from [`VTx::val`], transposed where it is read (again in
//! each block that reads it, like constants, since the block of the first reader need
//! not dominate the next). Only the uniform mode keeps rows (no mask, no barrier steps,
//! no checked mode): there every lane runs every access.

use super::{refuse, scalar_ty, varying_factor_first, vec_of, VTx, V};
use crate::codegen::Result;
use crate::ir::Inst;
use cranelift_codegen::ir::{self, BlockArg, InstBuilder, MemFlagsData, Value};
use rspirv::dr::Operand;
use rspirv::spirv::{Op, Word};

impl VTx<'_, '_, '_, '_> {
    /// Whether values may be kept as rows here.
    fn rows_allowed(&self) -> bool {
        self.mask.is_none() && self.steps.is_none() && !crate::check::mode().any()
    }

    /// The columns of rows `r` (one 4-vector per lane) as a `V::Comp` of four components.
    pub(super) fn columns_of(&mut self, r: &[Value]) -> V {
        let h = self.w / 4;
        let mut cols: Vec<Vec<Value>> = (0..4).map(|_| Vec::with_capacity(h)).collect();
        for j in 0..h {
            let t = self.transpose4([r[4 * j], r[4 * j + 1], r[4 * j + 2], r[4 * j + 3]]);
            for (c, x) in t.into_iter().enumerate() {
                cols[c].push(x);
            }
        }
        V::Comp(cols.into_iter().map(V::Vec).collect())
    }

    /// `v` (a 4-vector of 32-bit scalar type `t`, any shape) as rows.
    fn rows_of(&mut self, v: &V, t: ir::Type) -> Result<Vec<Value>> {
        let V::Comp(c) = v else {
            return Err(refuse("a 4-vector as rows"));
        };
        if c.len() != 4 {
            return Err(refuse("a 4-vector as rows"));
        }
        let cols = c
            .iter()
            .map(|x| self.vector(x, t))
            .collect::<Result<Vec<_>>>()?;
        let mut rows = Vec::with_capacity(self.w);
        let parts: Vec<[Value; 4]> = (0..self.w / 4)
            .map(|j| [0, 1, 2, 3].map(|c: usize| cols[c][j]))
            .collect();
        for part in parts {
            rows.extend(self.transpose4(part));
        }
        Ok(rows)
    }

    /// An `OpLoad` of a 4-vector through `pv` as rows, when the lanes' vectors are
    /// consecutive: one load per lane (where the index's wrap test holds; else component
    /// by component, transposed into rows).
    pub(super) fn load_rows(
        &mut self,
        pv: &V,
        n: usize,
        t: ir::Type,
    ) -> Result<Option<Vec<Value>>> {
        if !self.rows_allowed() {
            return Ok(None);
        }
        let Some((a, test)) = self.consecutive_vec4(pv, n, t) else {
            return Ok(None);
        };
        let vt = vec_of(t).ok_or_else(|| refuse("rows"))?;
        let load = |s: &mut Self| -> Vec<Value> {
            (0..s.w)
                .map(|k| s.b.ins().load(vt, MemFlagsData::new(), a, 16 * k as i32))
                .collect()
        };
        let Some(ok) = test else {
            return Ok(Some(load(self)));
        };
        let (fast, slow, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let params: Vec<Value> = (0..self.w)
            .map(|_| self.b.append_block_param(join, vt))
            .collect();
        let carry = self.carry(join);
        self.b.ins().brif(ok, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        let rows = load(self);
        let mut args: Vec<BlockArg> = rows.into_iter().map(BlockArg::Value).collect();
        args.extend(self.carry_args(&carry, false));
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(slow);
        let mut comps = Vec::with_capacity(4);
        for c in 0..4 {
            let ca = self.component_address(pv, c, t)?;
            comps.push(self.load(ca, t)?);
        }
        let rows = self.rows_of(&V::Comp(comps), t)?;
        let mut args: Vec<BlockArg> = rows.into_iter().map(BlockArg::Value).collect();
        args.extend(self.carry_args(&carry, true));
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        self.carried(carry);
        Ok(Some(params))
    }

    /// An `OpStore` of `val` (kept as rows) through `pv`, when the lanes' vectors are
    /// consecutive; `false` (nothing emitted) otherwise.
    pub(super) fn store_rows(&mut self, pv: &V, val: Word) -> Result<bool> {
        let Some(rows) = self.rows.get(&val).cloned() else {
            return Ok(false);
        };
        // (Not `ty`, which would make the columns.)
        let t = *self.tys.get(&val).ok_or_else(|| refuse("rows"))?;
        if !self.rows_allowed() {
            return Ok(false);
        }
        let Some((a, test)) = self.consecutive_vec4(pv, 4, t) else {
            return Ok(false);
        };
        let join = self.b.create_block();
        let mut carry = super::carry::Carry::default();
        if let Some(ok) = test {
            let (fast, slow) = (self.b.create_block(), self.b.create_block());
            carry = self.carry(join);
            self.b.ins().brif(ok, fast, &[], slow, &[]);
            self.b.switch_to_block(slow);
            // The columns made here serve this block alone: not cached.
            let V::Comp(comps) = self.columns_of(&rows) else {
                return Err(refuse("rows"));
            };
            for (c, v) in comps.iter().enumerate() {
                let ca = self.component_address(pv, c, t)?;
                self.store(&ca, v, t)?;
            }
            let args = self.carry_args(&carry, true);
            self.b.ins().jump(join, &args);
            self.b.switch_to_block(fast);
        }
        for (k, r) in rows.iter().enumerate() {
            self.b
                .ins()
                .store(MemFlagsData::new(), *r, a, 16 * k as i32);
        }
        let args = self.carry_args(&carry, false);
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        self.carried(carry);
        Ok(true)
    }

    /// A component-wise operation whose vector operands are rows or uniform, as rows;
    /// `false` (nothing emitted) when it is not one.
    pub(super) fn rows_op(&mut self, inst: &Inst, rt: Word) -> Result<bool> {
        use rspirv::spirv::OpenclStd100Op as E;
        let op = inst.class.opcode;
        // OpenCL.std `fma`, and `mad` as the column code computes it (`VTx::ext_inst`).
        let ext = match (op, inst.operands.get(1)) {
            (Op::ExtInst, Some(Operand::LiteralExtInstInteger(n))) => {
                let std = crate::spirv::op_id(inst, 0)
                    .ok()
                    .and_then(|s| self.p.ext_imports.get(&s))
                    .is_some_and(|s| s == "OpenCL.std");
                match E::from_u32(*n) {
                    Some(E::fma) if std && self.fma => Some(true),
                    Some(E::mad) if std => Some(self.fma),
                    _ => return Ok(false),
                }
            }
            _ => None,
        };
        if !self.rows_allowed()
            || !(ext.is_some()
                || matches!(
                    op,
                    Op::FAdd
                        | Op::FSub
                        | Op::FMul
                        | Op::FDiv
                        | Op::FNegate
                        | Op::IAdd
                        | Op::ISub
                        | Op::VectorTimesScalar
                ))
        {
            return Ok(false);
        }
        let (elem, n) = self.vector_type(rt)?;
        if n != 4 || crate::codegen::half::is_half(self.p, elem) {
            return Ok(false);
        }
        let t = scalar_ty(self.p, elem)?;
        let Some(vt) = vec_of(t) else {
            return Ok(false);
        };
        if ext.is_some() && t != ir::types::F32 {
            return Ok(false);
        }
        let ids: Vec<Word> = inst
            .operands
            .iter()
            .skip(if ext.is_some() { 2 } else { 0 })
            .filter_map(|o| match o {
                Operand::IdRef(id) => Some(*id),
                _ => None,
            })
            .collect();
        let mut operands: Vec<Vec<Value>> = Vec::with_capacity(ids.len());
        // Whether each operand is one uniform row for every lane.
        let mut uniform = Vec::with_capacity(ids.len());
        for id in &ids {
            if let Some(r) = self.rows.get(id) {
                operands.push(r.clone());
                uniform.push(false);
                continue;
            }
            // Otherwise uniform: the same row for every lane.
            let row = match self.val(*id)? {
                V::Comp(c) if c.len() == 4 && c.iter().all(|x| matches!(x, V::U(_))) => {
                    let l: Vec<Value> = c
                        .iter()
                        .map(|x| match x {
                            V::U(v) => *v,
                            _ => unreachable!("checked above"),
                        })
                        .collect();
                    self.pack(vt, &l)[0]
                }
                V::U(s) if op == Op::VectorTimesScalar => self.b.ins().splat(vt, s),
                _ => return Ok(false),
            };
            operands.push(vec![row; self.w]);
            uniform.push(true);
        }
        // (Each id gave one operand or returned above.)
        if !ids.iter().any(|id| self.rows.contains_key(id)) {
            return Ok(false);
        }
        if ext.is_some() && operands.len() != 3 {
            return Ok(false);
        }
        let rows: Vec<Value> = (0..self.w)
            .map(|k| {
                let x = operands[0][k];
                let y = operands.get(1).map(|o| o[k]);
                if let Some(fused) = ext {
                    let z = operands[2][k];
                    let (x, y) = varying_factor_first(x, operands[1][k], uniform[0], uniform[1]);
                    return if fused {
                        self.b.ins().fma(x, y, z)
                    } else {
                        let m = self.b.ins().fmul(x, y);
                        self.b.ins().fadd(m, z)
                    };
                }
                let b = self.b.ins();
                match (op, y) {
                    (Op::FNegate, _) => b.fneg(x),
                    (Op::FAdd, Some(y)) => b.fadd(x, y),
                    (Op::FSub, Some(y)) => b.fsub(x, y),
                    (Op::FMul | Op::VectorTimesScalar, Some(y)) => b.fmul(x, y),
                    (Op::FDiv, Some(y)) => b.fdiv(x, y),
                    (Op::IAdd, Some(y)) => b.iadd(x, y),
                    (Op::ISub, Some(y)) => b.isub(x, y),
                    _ => x,
                }
            })
            .collect();
        let id = crate::spirv::result_id(inst)?;
        self.keep_rows(id, rt, t, rows);
        Ok(true)
    }

    /// Record `id` (SPIR-V type `rt`, scalar type `t`) as kept in rows.
    pub(super) fn keep_rows(&mut self, id: Word, rt: Word, t: ir::Type, rows: Vec<Value>) {
        self.spv_tys.insert(id, rt);
        self.tys.insert(id, t);
        self.rows.insert(id, rows);
    }
}
