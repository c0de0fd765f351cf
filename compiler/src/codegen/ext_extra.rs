//! More of `OpenCL.std`, inline: `nan`, `shuffle`/`shuffle2`, and the geometric functions
//! that must not overflow (`length`, `distance`, `normalize` and their `fast_` forms).
//!
//! The geometric functions' arithmetic is in `codegen/geometric.rs`, shared with the
//! vectoriser.

use super::{elem_of, FnTx, Result, Val};
use crate::spirv::Type;
use crate::CompileError;
use cranelift_codegen::ir::{
    types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use rspirv::spirv::{OpenclStd100Op as E, Word};

impl FnTx<'_, '_, '_> {
    fn shuffle(&mut self, rt: Word, srcs: &[Val], mask: &Val) -> Result<Val> {
        let elems: Vec<Value> = srcs.iter().flat_map(Val::flat).collect();
        let first = *elems
            .first()
            .ok_or_else(|| CompileError::Invalid("shuffle of nothing".into()))?;
        let t = self.value_type(first);
        let n = elems.len().next_power_of_two();
        let es = t.bytes();
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            es * n as u32,
            4,
        ));
        let zero = self.zero_of(t);
        for k in 0..n {
            let v = elems.get(k).copied().unwrap_or(zero);
            self.b
                .ins()
                .stack_store(types::I64, v, slot, (k as u32 * es) as i32);
        }
        let base = self.b.ins().stack_addr(types::I64, slot, 0);
        let mut out = Vec::new();
        for m in mask.flat() {
            let m = if self.value_type(m).bits() < 64 {
                self.b.ins().uextend(types::I64, m)
            } else {
                m
            };
            let idx = self.b.ins().band_imm_s(m, (n - 1) as i64);
            let off = self.b.ins().imul_imm_s(idx, i64::from(es));
            let a = self.b.ins().iadd(base, off);
            out.push(self.b.ins().load(t, MemFlagsData::new(), a, 0));
        }
        self.unflatten(rt, out)
    }

    fn zero_of(&mut self, t: types::Type) -> Value {
        if t == types::F32 {
            self.b.ins().f32const(0.0)
        } else if t == types::F64 {
            self.b.ins().f64const(0.0)
        } else {
            self.b.ins().iconst(t, 0)
        }
    }

    /// `sqrt(Σ xᵢ²)` without overflow or underflow, in the element type of `x`.
    fn length_of(&mut self, x: &[Value]) -> Result<Value> {
        let first = *x
            .first()
            .ok_or_else(|| CompileError::Invalid("length of an empty vector".into()))?;
        let t = self.value_type(first);
        if t == types::F32 {
            let d: Vec<Value> = x
                .iter()
                .map(|v| self.b.ins().fpromote(types::F64, *v))
                .collect();
            let l = super::geometric::length_in_f64(&mut self.b, &d)
                .ok_or_else(|| CompileError::Invalid("length of an empty vector".into()))?;
            return Ok(self.b.ins().fdemote(types::F32, l));
        }
        super::geometric::length_f64(&mut self.b, x)
            .ok_or_else(|| CompileError::Invalid("length of an empty vector".into()))
    }

    /// `normalize`: zero vectors unchanged, infinities replaced by ±1 (others by ±0) first,
    /// NaN anywhere gives NaNs.
    fn normalize(&mut self, rt: Word, x: &[Value]) -> Result<Val> {
        let first = *x
            .first()
            .ok_or_else(|| CompileError::Invalid("normalize of an empty vector".into()))?;
        let t = self.value_type(first);
        if t == types::F32 {
            // In double, each component rounded once (`codegen/geometric.rs`).
            let d: Vec<Value> = x
                .iter()
                .map(|v| self.b.ins().fpromote(types::F64, *v))
                .collect();
            let q = super::geometric::normalize_in_f64(&mut self.b, &d)
                .ok_or_else(|| CompileError::Invalid("normalize of an empty vector".into()))?;
            let out = q
                .into_iter()
                .map(|v| self.b.ins().fdemote(types::F32, v))
                .collect();
            return self.unflatten(rt, out);
        }
        let out = super::geometric::normalize_f64(&mut self.b, x)
            .ok_or_else(|| CompileError::Invalid("normalize of an empty vector".into()))?;
        self.unflatten(rt, out)
    }

    /// The OpenCL.std instructions of this file; `None` for any other.
    pub(super) fn ext_extra(&mut self, op: E, rt: Word, args: &[Val]) -> Result<Option<Val>> {
        let need = |n: usize| -> Result<()> {
            if args.len() < n {
                Err(CompileError::Invalid(format!(
                    "OpenCL.std {op:?}: too few operands"
                )))
            } else {
                Ok(())
            }
        };
        let p = self.p;
        Ok(Some(match op {
            E::nan => {
                need(1)?;
                let et = super::clif_scalar(p, elem_of(p, rt)?)?;
                let it = if et == types::F64 {
                    types::I64
                } else {
                    types::I32
                };
                self.map_n(rt, args, &mut |s, a| {
                    let mut c = a[0];
                    let ct = s.value_type(c);
                    if ct.bits() < it.bits() {
                        c = s.b.ins().uextend(it, c);
                    } else if ct.bits() > it.bits() {
                        c = s.b.ins().ireduce(it, c);
                    }
                    Ok(super::float_fns::nan(&mut s.b, c))
                })?
            }
            E::shuffle => {
                need(2)?;
                self.shuffle(rt, &args[..1], &args[1])?
            }
            E::shuffle2 => {
                need(3)?;
                self.shuffle(rt, &args[..2], &args[2])?
            }
            E::length | E::fast_length => {
                need(1)?;
                Val::S(self.length_of(&args[0].flat())?)
            }
            E::distance | E::fast_distance => {
                need(2)?;
                let (a, b) = (args[0].flat(), args[1].flat());
                if a.len() != b.len() {
                    return Err(CompileError::Invalid("distance: operand sizes".into()));
                }
                let d: Vec<Value> = a
                    .iter()
                    .zip(&b)
                    .map(|(x, y)| self.b.ins().fsub(*x, *y))
                    .collect();
                Val::S(self.length_of(&d)?)
            }
            E::normalize | E::fast_normalize => {
                need(1)?;
                let x = args[0].flat();
                if matches!(p.ty(rt)?, Type::Vector { .. }) || x.len() == 1 {
                    self.normalize(rt, &x)?
                } else {
                    return Err(CompileError::Invalid("normalize: operand".into()));
                }
            }
            _ => return Ok(None),
        }))
    }
}
