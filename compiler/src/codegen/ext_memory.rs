//! `OpenCL.std` instructions that touch memory beside computing: half-precision loads and
//! stores (`vload_half[n]`, `vloada_halfn`, `vstore_half[n][_r]`, `vstorea_halfn[_r]`),
//! `printf`, `prefetch` (a no-op: there is no cache to warm that the CPU does not manage),
//! and the math functions with a pointer output (`sincos`, `fract`, `modf`, `frexp`,
//! `lgamma_r`, `remquo`), whose second result is stored through the pointer.
//!
//! Halves are stored as their IEEE bits, converted inline (`half.rs`) when rounding to
//! nearest, by a call (`ferrite_f64_to_half`) for the directed rounding modes.

use super::memory::store_typed;
use super::{FnTx, Result, Val};
use crate::builtins;
use crate::spirv::{op_id, result_type, Type};
use crate::{CompileError, GroupContext};
use cranelift_codegen::ir::{
    types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, OpenclStd100Op as E, Word};

/// A literal operand of an extended instruction (rspirv reads them as ids).
fn ext_lit(inst: &Instruction, i: usize) -> Result<u32> {
    match inst.operands.get(i) {
        Some(Operand::IdRef(x) | Operand::LiteralBit32(x) | Operand::LiteralExtInstInteger(x)) => {
            Ok(*x)
        }
        Some(Operand::FPRoundingMode(m)) => Ok(*m as u32),
        _ => Err(CompileError::Invalid(format!(
            "OpExtInst: operand {i} is not a literal"
        ))),
    }
}

impl FnTx<'_, '_, '_> {
    pub(super) fn call_named(&mut self, name: &str, args: &[Value]) -> Result<Value> {
        let bi = builtins::by_name(name)
            .ok_or_else(|| CompileError::Codegen(format!("built-in {name} missing")))?;
        self.call_builtin(&bi, args)
    }

    /// `ptr + offset * stride` (offset a `size_t`).
    fn half_addr(&mut self, offset: Word, ptr: Word, stride: u64) -> Result<Value> {
        let mut o = self.scalar(offset)?;
        if self.value_type(o).bits() < 64 {
            o = self.b.ins().uextend(types::I64, o);
        }
        let scaled = self.b.ins().imul_imm_s(o, stride as i64);
        let base = self.scalar(ptr)?;
        Ok(self.b.ins().iadd(base, scaled))
    }

    fn load_halves(&mut self, addr: Value, n: u32) -> Result<Vec<Value>> {
        let mut out = Vec::new();
        for i in 0..n {
            let off = (i * 2) as i32;
            out.push(super::half::load(
                &mut self.b,
                MemFlagsData::new(),
                addr,
                off,
            ));
        }
        Ok(out)
    }

    fn store_halves(&mut self, data: &[Value], addr: Value, mode: u32) -> Result<()> {
        if mode == builtins::convert::RTE as u32 {
            for (i, v) in data.iter().enumerate() {
                let h = super::half::round(&mut self.b, *v);
                super::half::store(&mut self.b, MemFlagsData::new(), h, addr, (i * 2) as i32);
            }
            return Ok(());
        }
        let m = self.b.ins().iconst(types::I32, i64::from(mode));
        for (i, v) in data.iter().enumerate() {
            let d = if self.value_type(*v) == types::F32 {
                self.b.ins().fpromote(types::F64, *v)
            } else {
                *v
            };
            let h = self.call_named("ferrite_f64_to_half", &[d, m])?;
            self.b
                .ins()
                .istore16(MemFlagsData::new(), h, addr, (i * 2) as i32);
        }
        Ok(())
    }

    /// Half loads/stores, `printf` and `prefetch`: `Some(())` when `op` was one of them
    /// (and its result, if any, is recorded).
    pub(super) fn ext_memory(&mut self, op: E, inst: &Instruction) -> Result<Option<()>> {
        match op {
            E::prefetch => Ok(Some(())),
            E::printf => {
                self.printf(inst)?;
                Ok(Some(()))
            }
            E::vload_half | E::vload_halfn | E::vloada_halfn => {
                let rt = result_type(inst)?;
                let n = match op {
                    E::vload_half => 1,
                    _ => ext_lit(inst, 4)?,
                };
                let stride = match (op, n) {
                    (E::vloada_halfn, 3) => 8,
                    _ => 2 * u64::from(n),
                };
                let addr = self.half_addr(op_id(inst, 2)?, op_id(inst, 3)?, stride)?;
                let vals = self.load_halves(addr, n)?;
                let v = if self.p.ty(rt)? == &(Type::Float { width: 64 }) {
                    return Err(CompileError::Unsupported("vload_half into double".into()));
                } else {
                    self.unflatten(rt, vals)?
                };
                self.set_result(inst, v)?;
                Ok(Some(()))
            }
            E::vstore_half
            | E::vstore_half_r
            | E::vstore_halfn
            | E::vstore_halfn_r
            | E::vstorea_halfn
            | E::vstorea_halfn_r => {
                let data = self.val(op_id(inst, 2)?)?.flat();
                let n = data.len() as u64;
                let mode = match op {
                    E::vstore_half_r | E::vstore_halfn_r | E::vstorea_halfn_r => ext_lit(inst, 5)?,
                    _ => builtins::convert::RTE as u32,
                };
                if mode > 3 {
                    return Err(CompileError::Invalid(format!(
                        "{op:?}: rounding mode {mode}"
                    )));
                }
                let stride = match (op, n) {
                    (E::vstorea_halfn | E::vstorea_halfn_r, 3) => 8,
                    _ => 2 * n,
                };
                let addr = self.half_addr(op_id(inst, 3)?, op_id(inst, 4)?, stride)?;
                self.store_halves(&data, addr, mode)?;
                Ok(Some(()))
            }
            _ => Ok(None),
        }
    }

    /// Math with a second result stored through a pointer (the last operand).
    pub(super) fn ext_pointer_output(
        &mut self,
        op: E,
        inst: &Instruction,
        rt: Word,
        args: &[Val],
    ) -> Result<Option<Val>> {
        let nvals = match op {
            E::sincos | E::fract | E::modf | E::frexp | E::lgamma_r => 1,
            E::remquo => 2,
            _ => return Ok(None),
        };
        if args.len() != nvals + 1 {
            return Err(CompileError::Invalid(format!(
                "OpenCL.std {op:?}: wrong operand count"
            )));
        }
        let ptr_id = op_id(inst, 2 + nvals)?;
        let (_, pointee) = self.p.pointer_type(self.type_of(ptr_id)?)?;
        let ptr = args[nvals].scalar()?;
        let vals = &args[..nvals];
        let (main, second) = match op {
            E::sincos => {
                let s = self.map_n(rt, vals, &mut |s, a| s.call_math("sin", a))?;
                let c = self.map_n(pointee, vals, &mut |s, a| s.call_math("cos", a))?;
                (s, c)
            }
            E::frexp => {
                let m = self.map_n(rt, vals, &mut |s, a| s.call_math("frexp_mant", a))?;
                let e = self.map_n(pointee, vals, &mut |s, a| s.call_math("frexp_exp", a))?;
                (m, e)
            }
            E::lgamma_r => {
                let m = self.map_n(rt, vals, &mut |s, a| s.call_math("lgamma", a))?;
                let e = self.map_n(pointee, vals, &mut |s, a| s.call_math("lgamma_sign", a))?;
                (m, e)
            }
            E::remquo => {
                let m = self.map_n(rt, vals, &mut |s, a| s.call_math("remainder", a))?;
                let e = self.map_n(pointee, vals, &mut |s, a| s.call_math("remquo_quo", a))?;
                (m, e)
            }
            // Written once for the scalar code and the vectoriser (`codegen/float_fns.rs`).
            E::fract | E::modf => {
                let half = super::half::is_half(self.p, rt);
                let f = |b: &mut cranelift_frontend::FunctionBuilder, x| {
                    if op == E::fract {
                        super::float_fns::fract(b, x, half)
                    } else {
                        super::float_fns::modf(b, x)
                    }
                };
                let second = self.map_n(pointee, vals, &mut |s, a| Ok(f(&mut s.b, a[0]).1))?;
                let main = self.map_n(rt, vals, &mut |s, a| Ok(f(&mut s.b, a[0]).0))?;
                (main, second)
            }
            _ => return Ok(None),
        };
        store_typed(
            &mut self.b,
            self.p,
            pointee,
            &second,
            ptr,
            0,
            MemFlagsData::new(),
        )?;
        Ok(Some(main))
    }

    /// `printf`: build the record `crate::printf` documents on the stack and call
    /// `ferrite_printf(ctx.printf, record)`.
    fn printf(&mut self, inst: &Instruction) -> Result<()> {
        let fmt = self.scalar(op_id(inst, 2)?)?;
        let mut args = Vec::new();
        for i in 3..inst.operands.len() {
            let id = op_id(inst, i)?;
            args.push((self.type_of(id)?, self.val(id)?.flat()));
        }
        let gid = self.builtin_components(BuiltIn::WorkgroupId)?;
        let ng = self.builtin_components(BuiltIn::NumWorkgroups)?;
        let t = self.b.ins().imul(gid[2], ng[1]);
        let t = self.b.ins().iadd(t, gid[1]);
        let t = self.b.ins().imul(t, ng[0]);
        let group = self.b.ins().iadd(t, gid[0]);
        let item = self.builtin_components(BuiltIn::LocalInvocationIndex)?[0];
        let rec = printf_record(self.p, &mut self.b, fmt, group, item, &args)?;
        let sink = self.b.ins().load(
            types::I64,
            super::trusted(),
            self.ctx,
            GroupContext::OFFSET_PRINTF,
        );
        let r = self.call_named("ferrite_printf", &[sink, rec])?;
        let r = printf_result(self.p, &mut self.b, inst, r)?;
        self.set_result(inst, Val::S(r))
    }
}

/// The record `crate::printf` documents for one `printf` call, on a new stack slot: the
/// format's address, the group's and the work-item's linear ids, the argument count, then
/// each argument's descriptor and its components widened to 64 bits. `args`: each
/// argument's SPIR-V type and components (one for a scalar). Returns the record's address.
/// The scalar translator and the vector loops (one record per active lane) both build it.
pub(crate) fn printf_record(
    p: &crate::spirv::Program,
    b: &mut cranelift_frontend::FunctionBuilder,
    fmt: Value,
    group: Value,
    item: Value,
    args: &[(Word, Vec<Value>)],
) -> Result<Value> {
    use crate::printf::{descriptor, DESC_FLOAT, DESC_INT, DESC_PTR};
    let mut words: Vec<Value> = Vec::new();
    for (ty, v) in args {
        let (elem, count) = match p.ty(*ty)? {
            Type::Vector { elem, count } => (*elem, *count),
            _ => (*ty, 1),
        };
        let (kind, bits) = match p.ty(elem)? {
            Type::Int { width, .. } => (DESC_INT, *width),
            Type::Bool => (DESC_INT, 8),
            // A half is passed as the `f32` that holds it.
            Type::Float { width: 16 } => (DESC_FLOAT, 32),
            Type::Float { width } => (DESC_FLOAT, *width),
            Type::Pointer { .. } => (DESC_PTR, 64),
            t => {
                return Err(CompileError::Unsupported(format!(
                    "printf argument of type {t:?}"
                )))
            }
        };
        if v.len() != count as usize || count > 255 || bits > 255 {
            return Err(CompileError::Invalid("printf argument shape".into()));
        }
        words.push(
            b.ins()
                .iconst(types::I64, descriptor(kind, bits, count) as i64),
        );
        for &x in v {
            let t = b.func.dfg.value_type(x);
            let w = if t == types::F32 {
                let i = b.ins().bitcast(types::I32, MemFlagsData::new(), x);
                b.ins().uextend(types::I64, i)
            } else if t == types::F64 {
                b.ins().bitcast(types::I64, MemFlagsData::new(), x)
            } else if t.bits() < 64 {
                b.ins().uextend(types::I64, x)
            } else {
                x
            };
            words.push(w);
        }
    }
    let n = b.ins().iconst(types::I64, args.len() as i64);
    let mut all = vec![fmt, group, item, n];
    all.extend(words);
    let size = u32::try_from(all.len() * 8)
        .map_err(|_| CompileError::Unsupported("printf with too many arguments".into()))?;
    let slot = b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, size, 3));
    for (k, w) in all.iter().enumerate() {
        b.ins().stack_store(types::I64, *w, slot, (k * 8) as i32);
    }
    Ok(b.ins().stack_addr(types::I64, slot, 0))
}

/// `ferrite_printf`'s `i32` result `r` as the instruction's result type.
pub(crate) fn printf_result(
    p: &crate::spirv::Program,
    b: &mut cranelift_frontend::FunctionBuilder,
    inst: &Instruction,
    r: Value,
) -> Result<Value> {
    let rt = super::clif_scalar(p, result_type(inst)?)?;
    Ok(if rt.bits() > 32 {
        b.ins().sextend(rt, r)
    } else {
        r
    })
}
