//! Memory: variables, loads/stores of any type (scalarised, laid out by `layout.rs`),
//! access chains, memory copies, pointer comparisons.
//!
//! All pointers are absolute `i64` addresses: `__local` pointers were rebased on
//! `ctx.local_mem` where they entered (kernel arguments, `Workgroup` variables), so generic
//! pointers need no tag and the casts between address spaces are no-ops.

use super::{clif_scalar, FnTx, Result, Val};
use crate::ir::Inst;
use crate::layout::{elem_stride, layout, member_offsets};
use crate::spirv::{op_id, result_id, result_type, Program, Type};
use crate::CompileError;
use cranelift_codegen::ir::{
    condcodes::IntCC, types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::Module as _;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, StorageClass, Word};

/// Most scalars one load/store may move (guards against huge aggregate copies).
const MAX_SCALARS: u64 = 4096;

fn addr_at(b: &mut FunctionBuilder, base: Value, off: u64) -> (Value, i32) {
    match i32::try_from(off) {
        Ok(o) => (base, o),
        Err(_) => (b.ins().iadd_imm_s(base, off as i64), 0),
    }
}

/// Load one scalar of type `ty` (a number, boolean or pointer) from `addr + off`: a half
/// as its 16 bits widened (`half.rs`), anything else as its Cranelift type.
pub fn load_scalar(
    b: &mut FunctionBuilder,
    p: &Program,
    ty: Word,
    addr: Value,
    off: i32,
    flags: MemFlagsData,
) -> Result<Value> {
    if super::half::is_half(p, ty) {
        return Ok(super::half::load(b, flags, addr, off));
    }
    let t = clif_scalar(p, ty)?;
    Ok(b.ins().load(t, flags, addr, off))
}

/// Store `x`, one scalar of type `ty`, at `addr + off` ([`load_scalar`]'s inverse).
pub fn store_scalar(
    b: &mut FunctionBuilder,
    p: &Program,
    ty: Word,
    x: Value,
    addr: Value,
    off: i32,
    flags: MemFlagsData,
) {
    if super::half::is_half(p, ty) {
        super::half::store(b, flags, x, addr, off);
    } else {
        b.ins().store(flags, x, addr, off);
    }
}

/// Load a value of type `ty` from `base + off`.
pub fn load_typed(
    b: &mut FunctionBuilder,
    p: &Program,
    ty: Word,
    base: Value,
    off: u64,
    flags: MemFlagsData,
) -> Result<Val> {
    load_rec(b, p, ty, base, off, flags, &mut 0)
}

fn load_rec(
    b: &mut FunctionBuilder,
    p: &Program,
    ty: Word,
    base: Value,
    off: u64,
    flags: MemFlagsData,
    count: &mut u64,
) -> Result<Val> {
    *count += 1;
    if *count > MAX_SCALARS {
        return Err(CompileError::Unsupported(
            "load of a very large aggregate".into(),
        ));
    }
    Ok(match p.ty(ty)? {
        Type::Vector { elem, count: n } => {
            let s = elem_stride(p, *elem)?;
            let mut v = Vec::new();
            for i in 0..u64::from(*n) {
                let (a, o) = addr_at(b, base, off + i * s);
                v.push(Val::S(load_scalar(b, p, *elem, a, o, flags)?));
            }
            Val::C(v)
        }
        Type::Array { elem, len } => {
            let s = elem_stride(p, *elem)?;
            let mut v = Vec::new();
            for i in 0..*len {
                v.push(load_rec(b, p, *elem, base, off + i * s, flags, count)?);
            }
            Val::C(v)
        }
        Type::Struct { members, .. } => {
            let offs = member_offsets(p, ty)?;
            let mut v = Vec::new();
            for (m, mo) in members.iter().zip(offs) {
                v.push(load_rec(b, p, *m, base, off + mo, flags, count)?);
            }
            Val::C(v)
        }
        _ => {
            let (a, o) = addr_at(b, base, off);
            Val::S(load_scalar(b, p, ty, a, o, flags)?)
        }
    })
}

/// Store `v` (of type `ty`) to `base + off`.
pub fn store_typed(
    b: &mut FunctionBuilder,
    p: &Program,
    ty: Word,
    v: &Val,
    base: Value,
    off: u64,
    flags: MemFlagsData,
) -> Result<()> {
    store_rec(b, p, ty, v, base, off, flags, 0)
}

#[allow(clippy::too_many_arguments)]
fn store_rec(
    b: &mut FunctionBuilder,
    p: &Program,
    ty: Word,
    v: &Val,
    base: Value,
    off: u64,
    flags: MemFlagsData,
    depth: u32,
) -> Result<()> {
    if depth > 64 {
        return Err(CompileError::Invalid("type nesting too deep".into()));
    }
    let mismatch = || CompileError::Invalid(format!("stored value does not match type %{ty}"));
    match (p.ty(ty)?, v) {
        (Type::Vector { elem, .. }, Val::C(parts)) => {
            let s = elem_stride(p, *elem)?;
            for (i, part) in parts.iter().enumerate() {
                let (a, o) = addr_at(b, base, off + i as u64 * s);
                store_scalar(b, p, *elem, part.scalar()?, a, o, flags);
            }
        }
        (Type::Array { elem, .. }, Val::C(parts)) => {
            let s = elem_stride(p, *elem)?;
            for (i, part) in parts.iter().enumerate() {
                store_rec(
                    b,
                    p,
                    *elem,
                    part,
                    base,
                    off + i as u64 * s,
                    flags,
                    depth + 1,
                )?;
            }
        }
        (Type::Struct { members, .. }, Val::C(parts)) => {
            let offs = member_offsets(p, ty)?;
            if parts.len() != members.len() {
                return Err(mismatch());
            }
            for ((m, mo), part) in members.iter().zip(offs).zip(parts) {
                store_rec(b, p, *m, part, base, off + mo, flags, depth + 1)?;
            }
        }
        (Type::Vector { .. } | Type::Array { .. } | Type::Struct { .. }, Val::S(_)) => {
            return Err(mismatch())
        }
        (_, Val::S(x)) => {
            let t = clif_scalar(p, ty)?;
            if b.func.dfg.value_type(*x) != t {
                return Err(mismatch());
            }
            let (a, o) = addr_at(b, base, off);
            store_scalar(b, p, ty, *x, a, o, flags);
        }
        (_, Val::C(_)) => return Err(mismatch()),
    }
    Ok(())
}

/// `Aligned` is not needed on x86-64/AArch64 scalar accesses. A `Volatile` access
/// ([`crate::ir::Effects::volatile`]) gets fences from the caller: Cranelift has no volatile
/// flag, but its alias analysis never forwards or merges a load across a fence, so a
/// volatile load is preceded, and a volatile store followed, by one (it neither caches nor
/// drops the access).
fn mem_flags(_inst: &Instruction, _first: usize) -> MemFlagsData {
    MemFlagsData::new()
}

impl FnTx<'_, '_, '_> {
    /// Pointee type of the pointer value `id`.
    pub(super) fn pointee_of(&self, id: Word) -> Result<(StorageClass, Word)> {
        let t = self.type_of(id)?;
        self.p.pointer_type(t)
    }

    /// A (possibly dynamic) index as an `i64`, sign-extended.
    fn index_i64(&mut self, id: Word) -> Result<Value> {
        let v = self.scalar(id)?;
        let w = self
            .int_width(self.type_of(id)?)?
            .ok_or_else(|| CompileError::Invalid(format!("index %{id} is not an integer")))?;
        let v = self.sext_in(v, w);
        Ok(if self.value_type(v).bits() < 64 {
            self.b.ins().sextend(types::I64, v)
        } else {
            v
        })
    }

    pub(super) fn memory(&mut self, inst: &Inst) -> Result<()> {
        let p = self.p;
        match inst.class.opcode {
            Op::Variable => {
                let rt = result_type(inst)?;
                let (class, pointee) = p.pointer_type(rt)?;
                if class != StorageClass::Function {
                    return Err(CompileError::Invalid(format!(
                        "function-scope variable in {class:?} storage"
                    )));
                }
                let id = result_id(inst)?;
                if let Some(step) = self.step.as_ref() {
                    // Step mode: the variable lives in the work-item's frame, its pointer
                    // is recomputed at each use (`FnTx::val`).
                    let off = *step.plan.vars.get(&id).ok_or_else(|| {
                        CompileError::Codegen(format!("variable %{id} has no frame slot"))
                    })?;
                    if let Some(Operand::IdRef(init)) = inst.operands.get(1) {
                        let addr = self.b.ins().iadd_imm_s(step.frame, i64::from(off));
                        let v = self.val(*init)?;
                        store_typed(&mut self.b, p, pointee, &v, addr, 0, MemFlagsData::new())?;
                    }
                    return Ok(());
                }
                let l = layout(p, pointee)?;
                let size = u32::try_from(l.size.max(1)).map_err(|_| {
                    CompileError::Unsupported("private variable larger than 4 GiB".into())
                })?;
                let align = u32::try_from(l.align.max(1).next_power_of_two()).unwrap_or(1 << 31);
                // Cranelift aligns slot offsets only relative to the frame, which is 16-byte
                // aligned: above 16, allocate `align − 16` more and round the address up.
                let extra = align.saturating_sub(16);
                let size = size.checked_add(extra).ok_or_else(|| {
                    CompileError::Unsupported("private variable larger than 4 GiB".into())
                })?;
                let shift = align.min(16).trailing_zeros() as u8;
                self.env.private_size += u64::from(size);
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    size,
                    shift,
                ));
                let mut addr = self.b.ins().stack_addr(types::I64, slot, 0);
                if extra > 0 {
                    let a = self.b.ins().iadd_imm_s(addr, i64::from(extra));
                    addr = self.b.ins().band_imm_s(a, -i64::from(align));
                }
                if let Some(Operand::IdRef(init)) = inst.operands.get(1) {
                    let v = self.val(*init)?;
                    store_typed(&mut self.b, p, pointee, &v, addr, 0, MemFlagsData::new())?;
                }
                self.set_result(inst, Val::S(addr))
            }
            Op::Load => {
                let rt = result_type(inst)?;
                let ptr = op_id(inst, 0)?;
                let builtin = p
                    .builtin_of(ptr)
                    .map(|b| (b, None))
                    .or_else(|| self.builtin_ptrs.get(&ptr).copied());
                if let Some((b, idx)) = builtin {
                    if idx.is_none() {
                        self.builtin_vals.insert(result_id(inst)?, b);
                    }
                    let v = self.builtin_load(b, idx, rt)?;
                    return self.set_result(inst, v);
                }
                let a = self.scalar(ptr)?;
                let a = self.check_typed(ptr, a, rt, false)?;
                if inst.effects.volatile {
                    self.b.ins().fence();
                }
                let v = load_typed(&mut self.b, p, rt, a, 0, mem_flags(inst, 1))?;
                self.set_result(inst, v)
            }
            Op::Store => {
                let ptr = op_id(inst, 0)?;
                let obj = op_id(inst, 1)?;
                let (_, pointee) = self.pointee_of(ptr)?;
                let a = self.scalar(ptr)?;
                let v = self.val(obj)?;
                let a = self.check_typed(ptr, a, pointee, true)?;
                store_typed(&mut self.b, p, pointee, &v, a, 0, mem_flags(inst, 2))?;
                if inst.effects.volatile {
                    self.b.ins().fence();
                }
                Ok(())
            }
            Op::AccessChain | Op::InBoundsAccessChain => self.access_chain(inst, false),
            Op::PtrAccessChain | Op::InBoundsPtrAccessChain => self.access_chain(inst, true),
            Op::CopyMemory | Op::CopyMemorySized => {
                let dst = self.scalar(op_id(inst, 0)?)?;
                let src = self.scalar(op_id(inst, 1)?)?;
                let (dst, src) = self.check_copy(inst, dst, src)?;
                let cfg = self.env.module.target_config();
                let size_const = if inst.class.opcode == Op::CopyMemory {
                    let (_, pointee) = self.pointee_of(op_id(inst, 0)?)?;
                    Some(layout(p, pointee)?.size)
                } else {
                    let sid = op_id(inst, 2)?;
                    match p.constants.get(&sid) {
                        Some(_) => Some(p.const_u64(sid)?),
                        None => None,
                    }
                };
                match size_const {
                    Some(n) if n <= 64 => {
                        self.b.emit_small_memory_copy(
                            cfg,
                            dst,
                            src,
                            n,
                            1,
                            1,
                            false,
                            MemFlagsData::new(),
                        );
                    }
                    Some(n) => {
                        let sz = self.b.ins().iconst(types::I64, n as i64);
                        self.b.call_memmove(cfg, dst, src, sz);
                    }
                    None => {
                        let mut sz = self.scalar(op_id(inst, 2)?)?;
                        if self.value_type(sz).bits() < 64 {
                            sz = self.b.ins().uextend(types::I64, sz);
                        }
                        self.b.call_memmove(cfg, dst, src, sz);
                    }
                }
                Ok(())
            }
            Op::PtrEqual | Op::PtrNotEqual => {
                let a = self.scalar(op_id(inst, 0)?)?;
                let b = self.scalar(op_id(inst, 1)?)?;
                let cc = if inst.class.opcode == Op::PtrEqual {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                let r = self.b.ins().icmp(cc, a, b);
                self.set_result(inst, Val::S(r))
            }
            Op::PtrDiff => {
                let rt = result_type(inst)?;
                let (_, pointee) = self.pointee_of(op_id(inst, 0)?)?;
                let size = layout(p, pointee)?.size.max(1);
                let a = self.scalar(op_id(inst, 0)?)?;
                let b = self.scalar(op_id(inst, 1)?)?;
                let d = self.b.ins().isub(a, b);
                let d = self.b.ins().sdiv_imm_s(d, size as i64);
                let t = clif_scalar(p, rt)?;
                let d = if t.bits() < 64 {
                    self.b.ins().ireduce(t, d)
                } else {
                    d
                };
                self.set_result(inst, Val::S(d))
            }
            _ => Err(self.unsupported(inst)),
        }
    }

    fn access_chain(&mut self, inst: &Instruction, ptr_chain: bool) -> Result<()> {
        let p = self.p;
        let base_id = op_id(inst, 0)?;
        let (_, mut cur) = self.pointee_of(base_id)?;
        let mut first = 1;

        // Pointers into a builtin variable stay symbolic: `(builtin, component)`.
        let builtin = p
            .builtin_of(base_id)
            .map(|b| (b, None))
            .or_else(|| self.builtin_ptrs.get(&base_id).copied());
        if let Some((b, None)) = builtin {
            let idx_pos = if ptr_chain { 2 } else { 1 };
            if inst.operands.len() == idx_pos {
                self.builtin_ptrs.insert(result_id(inst)?, (b, None));
                let z = self.b.ins().iconst(types::I64, 0);
                return self.set_result(inst, Val::S(z));
            }
            let idx = op_id(inst, idx_pos)?;
            if p.constants.contains_key(&idx) {
                let i = p.const_u64(idx)? as u32;
                self.builtin_ptrs.insert(result_id(inst)?, (b, Some(i)));
                let z = self.b.ins().iconst(types::I64, 0);
                return self.set_result(inst, Val::S(z));
            }
            return Err(CompileError::Unsupported(
                "dynamic index into a builtin variable".into(),
            ));
        }

        let mut addr = self.scalar(base_id)?;
        let mut off: u64 = 0;
        if ptr_chain {
            let e = op_id(inst, 1)?;
            let size = layout(p, cur)?.size;
            self.add_index(&mut addr, &mut off, e, size)?;
            first = 2;
        }
        for i in first..inst.operands.len() {
            let idx = op_id(inst, i)?;
            match p.ty(cur)?.clone() {
                Type::Struct { members, .. } => {
                    let k = p.const_u64(idx)? as usize;
                    let offs = member_offsets(p, cur)?;
                    let (m, mo) = members
                        .get(k)
                        .zip(offs.get(k))
                        .ok_or_else(|| CompileError::Invalid(format!("struct member {k}")))?;
                    off = off.wrapping_add(*mo);
                    cur = *m;
                }
                Type::Array { elem, .. }
                | Type::RuntimeArray { elem }
                | Type::Vector { elem, .. } => {
                    let s = elem_stride(p, elem)?;
                    self.add_index(&mut addr, &mut off, idx, s)?;
                    cur = elem;
                }
                t => {
                    return Err(CompileError::Invalid(format!(
                        "access chain into non-composite type {t:?}"
                    )))
                }
            }
        }
        if off != 0 {
            addr = self.b.ins().iadd_imm_s(addr, off as i64);
        }
        self.set_result(inst, Val::S(addr))
    }

    /// `addr/off += index * stride`, folding constant indices into `off`.
    fn add_index(&mut self, addr: &mut Value, off: &mut u64, idx: Word, stride: u64) -> Result<()> {
        let p = self.p;
        if let Some(crate::spirv::Constant::Scalar { ty, bits }) = p.constants.get(&idx) {
            let w = match p.ty(*ty)? {
                Type::Int { width, .. } => *width,
                _ => return Err(CompileError::Invalid("non-integer index".into())),
            };
            let v = if w < 64 {
                ((bits << (64 - w)) as i64) >> (64 - w)
            } else {
                *bits as i64
            };
            *off = off.wrapping_add((v as u64).wrapping_mul(stride));
            return Ok(());
        }
        let i = self.index_i64(idx)?;
        let scaled = self.b.ins().imul_imm_s(i, stride as i64);
        *addr = self.b.ins().iadd(*addr, scaled);
        Ok(())
    }
}
