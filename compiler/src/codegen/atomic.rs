//! `OpAtomic*` and `OpMemoryBarrier`, lowered per the table in [`crate::memory_model`]:
//! plain loads/stores for private and local memory, Cranelift's SeqCst atomics for global
//! and generic pointers, float RMWs (`OpAtomicFAddEXT/FMinEXT/FMaxEXT`) as CAS loops on the
//! integer bits. Scope and semantics ids must be constants (the OpenCL environment's rule);
//! a non-constant one is treated as the strongest.

use super::{clif_scalar, FnTx, Result, Val};
use crate::memory_model::{self, AtomicLowering, FenceLowering, FenceSite};
use crate::spirv::{op_id, result_type, Type};
use crate::CompileError;
use cranelift_codegen::ir::{
    condcodes::{FloatCC, IntCC},
    types, AtomicRmwOp, BlockArg, InstBuilder, MemFlagsData, Type as ClType, Value,
};
use cranelift_frontend::FunctionBuilder;
use rspirv::dr::Instruction;
use rspirv::spirv::{Op, Word};

/// Sequentially consistent, device scope: what an unknown (non-constant) scope or
/// semantics operand is taken to be.
const STRONGEST_SCOPE: u32 = 0;
const STRONGEST_SEMANTICS: u32 = 0x10 | 0x200 | 0x100;

fn flags() -> MemFlagsData {
    MemFlagsData::new()
}

/// The integer type with the same width as `t` (CAS works on integers only).
fn int_of(t: ClType) -> ClType {
    if t == types::F32 {
        types::I32
    } else if t == types::F64 {
        types::I64
    } else {
        t
    }
}

/// The operation of a float read-modify-write.
#[derive(Clone, Copy)]
pub(crate) enum FloatOp {
    Add,
    Min,
    Max,
}

/// The atomic instructions [`FnTx::atomic`] lowers: one list for the translator's dispatch
/// and for the check that rejects unsupported opcodes at `from_spirv`.
pub fn is_atomic(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        AtomicLoad
            | AtomicStore
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
            | AtomicFlagTestAndSet
            | AtomicFlagClear
            | AtomicFAddEXT
            | AtomicFMinEXT
            | AtomicFMaxEXT
    )
}

impl FnTx<'_, '_, '_> {
    fn const_or(&self, id: Word, default: u32) -> u32 {
        self.p
            .const_u64(id)
            .map_or(default, |v| u32::try_from(v).unwrap_or(default))
    }

    /// `OpMemoryBarrier scope semantics`.
    pub(super) fn memory_barrier(&mut self, inst: &Instruction) -> Result<()> {
        let scope = self.const_or(op_id(inst, 0)?, STRONGEST_SCOPE);
        let sem = self.const_or(op_id(inst, 1)?, STRONGEST_SEMANTICS);
        if memory_model::fence_lowering(FenceSite::MemoryBarrier, scope, sem)
            == FenceLowering::Fence
        {
            self.b.ins().fence();
        }
        Ok(())
    }

    /// Every `OpAtomic*` instruction.
    pub(super) fn atomic(&mut self, inst: &Instruction) -> Result<()> {
        let op = inst.class.opcode;
        let ptr = op_id(inst, 0)?;
        let (class, pointee) = self.p.pointer_type(self.type_of(ptr)?)?;
        let lowering = memory_model::atomic_lowering(class);
        let addr = self.scalar(ptr)?;
        if super::half::is_half(self.p, pointee) {
            return self.half_atomic(inst, lowering, addr);
        }
        let t = clif_scalar(self.p, pointee)?;
        if !matches!(t, types::I32 | types::I64 | types::F32 | types::F64) {
            return Err(CompileError::Unsupported(format!(
                "Op{op:?} on a {t} (atomics are on 32- and 64-bit integers and floats, \
                 and halves)"
            )));
        }
        let result = match op {
            Op::AtomicLoad => Some(atomic_load(&mut self.b, lowering, t, addr)),
            Op::AtomicStore => {
                let v = self.scalar(op_id(inst, 3)?)?;
                atomic_store(&mut self.b, lowering, v, addr);
                None
            }
            Op::AtomicExchange => {
                let v = self.scalar(op_id(inst, 3)?)?;
                Some(rmw(&mut self.b, lowering, AtomicRmwOp::Xchg, t, addr, v))
            }
            Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => {
                let v = self.scalar(op_id(inst, 4)?)?;
                let cmp = self.scalar(op_id(inst, 5)?)?;
                Some(cas(&mut self.b, lowering, t, addr, cmp, v))
            }
            Op::AtomicIIncrement | Op::AtomicIDecrement => {
                let one = self.b.ins().iconst(t, 1);
                let rop = if op == Op::AtomicIIncrement {
                    AtomicRmwOp::Add
                } else {
                    AtomicRmwOp::Sub
                };
                Some(rmw(&mut self.b, lowering, rop, t, addr, one))
            }
            Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor => {
                let v = self.scalar(op_id(inst, 3)?)?;
                let rop = rmw_op(op).ok_or_else(|| self.unsupported(inst))?;
                Some(rmw(&mut self.b, lowering, rop, t, addr, v))
            }
            Op::AtomicFlagTestAndSet => {
                let one = self.b.ins().iconst(t, 1);
                let old = rmw(&mut self.b, lowering, AtomicRmwOp::Xchg, t, addr, one);
                Some(self.b.ins().icmp_imm_s(IntCC::NotEqual, old, 0))
            }
            Op::AtomicFlagClear => {
                let zero = self.b.ins().iconst(t, 0);
                atomic_store(&mut self.b, lowering, zero, addr);
                None
            }
            Op::AtomicFAddEXT | Op::AtomicFMinEXT | Op::AtomicFMaxEXT => {
                if !t.is_float() {
                    return Err(CompileError::Invalid(format!(
                        "Op{op:?} on a non-float pointer"
                    )));
                }
                let v = self.scalar(op_id(inst, 3)?)?;
                let fop = float_rmw_op(op).ok_or_else(|| self.unsupported(inst))?;
                Some(float_rmw(&mut self.b, lowering, fop, t, addr, v))
            }
            _ => return Err(self.unsupported(inst)),
        };
        if let Some(r) = result {
            let rt = result_type(inst)?;
            if !matches!(self.p.ty(rt)?, Type::Bool)
                && clif_scalar(self.p, rt)? != self.value_type(r)
            {
                return Err(CompileError::Invalid(format!(
                    "Op{op:?}: result type does not match the pointee"
                )));
            }
            self.set_result(inst, Val::S(r))?;
        }
        Ok(())
    }
}

impl FnTx<'_, '_, '_> {
    /// The atomics of a `half` (`cl_ext_float_atomics`' fp16 load/store and min/max,
    /// `SPV_EXT_shader_atomic_float16_add`): its 16 bits in memory, its value an `f32`
    /// (`half.rs`). Load, store and exchange move the bits; add, min and max go through
    /// [`half_float_rmw`].
    fn half_atomic(&mut self, inst: &Instruction, l: AtomicLowering, addr: Value) -> Result<()> {
        let op = inst.class.opcode;
        let result = match op {
            Op::AtomicLoad => {
                let h = atomic_load(&mut self.b, l, types::I16, addr);
                Some(super::half::from_bits(&mut self.b, h))
            }
            Op::AtomicStore | Op::AtomicExchange => {
                let v = self.scalar(op_id(inst, 3)?)?;
                let h = super::half::to_bits(&mut self.b, v);
                let h = self.b.ins().ireduce(types::I16, h);
                if op == Op::AtomicStore {
                    atomic_store(&mut self.b, l, h, addr);
                    None
                } else {
                    let old = rmw(&mut self.b, l, AtomicRmwOp::Xchg, types::I16, addr, h);
                    Some(super::half::from_bits(&mut self.b, old))
                }
            }
            Op::AtomicFAddEXT | Op::AtomicFMinEXT | Op::AtomicFMaxEXT => {
                let v = self.scalar(op_id(inst, 3)?)?;
                let fop = float_rmw_op(op).ok_or_else(|| self.unsupported(inst))?;
                Some(half_float_rmw(&mut self.b, l, fop, addr, v))
            }
            _ => {
                return Err(CompileError::Unsupported(format!(
                    "Op{op:?} on a half (halves have atomic load, store, exchange, add, \
                     min and max)"
                )))
            }
        };
        if let Some(r) = result {
            let rt = result_type(inst)?;
            if !super::half::is_half(self.p, rt) {
                return Err(CompileError::Invalid(format!(
                    "Op{op:?}: result type does not match the pointee"
                )));
            }
            self.set_result(inst, Val::S(r))?;
        }
        Ok(())
    }
}

/// A float read-modify-write of a `half` at `addr` (`v` an `f32` holding a half), returning
/// the old value: a CAS loop on the 16 bits (global/generic), or load-op-store. A sum is
/// rounded back to `half` once (exact for a sum of two halves in `f32`: `half.rs`); min
/// and max return one of their operands.
fn half_float_rmw(
    b: &mut FunctionBuilder,
    l: AtomicLowering,
    op: FloatOp,
    addr: Value,
    v: Value,
) -> Value {
    let apply = |b: &mut FunctionBuilder, old_bits: Value| {
        let old = super::half::from_bits(b, old_bits);
        let new = float_op(b, op, old, v);
        let new = match op {
            FloatOp::Add => super::half::round(b, new),
            FloatOp::Min | FloatOp::Max => new,
        };
        let bits = super::half::to_bits(b, new);
        (old, b.ins().ireduce(types::I16, bits))
    };
    if l == AtomicLowering::Plain {
        let cur = b.ins().load(types::I16, flags(), addr, 0);
        let (old, new) = apply(b, cur);
        b.ins().store(flags(), new, addr, 0);
        return old;
    }
    let old = cas_loop(b, types::I16, addr, |b, cur| apply(b, cur).1);
    super::half::from_bits(b, old)
}

/// A compare-and-swap loop on the `ty` bits at `addr`: `step` makes the new bits from the
/// current ones, again until a swap succeeds; returns the bits it replaced.
fn cas_loop(
    b: &mut FunctionBuilder,
    ty: ClType,
    addr: Value,
    step: impl Fn(&mut FunctionBuilder, Value) -> Value,
) -> Value {
    let first = b.ins().atomic_load(ty, flags(), addr);
    let head = b.create_block();
    let done = b.create_block();
    let cur = b.append_block_param(head, ty);
    let result = b.append_block_param(done, ty);
    b.ins().jump(head, &[BlockArg::Value(first)]);
    b.switch_to_block(head);
    let new = step(b, cur);
    let seen = b.ins().atomic_cas(flags(), addr, cur, new);
    let ok = b.ins().icmp(IntCC::Equal, seen, cur);
    b.ins().brif(
        ok,
        done,
        &[BlockArg::Value(seen)],
        head,
        &[BlockArg::Value(seen)],
    );
    b.switch_to_block(done);
    result
}

/// An atomic load per the lowering (floats through their integer bits).
pub(crate) fn atomic_load(
    b: &mut FunctionBuilder,
    l: AtomicLowering,
    t: ClType,
    addr: Value,
) -> Value {
    match l {
        AtomicLowering::Plain => b.ins().load(t, flags(), addr, 0),
        AtomicLowering::SeqCst => {
            let it = int_of(t);
            let v = b.ins().atomic_load(it, flags(), addr);
            if it == t {
                v
            } else {
                b.ins().bitcast(t, MemFlagsData::new(), v)
            }
        }
    }
}

/// An atomic store per the lowering.
pub(crate) fn atomic_store(b: &mut FunctionBuilder, l: AtomicLowering, v: Value, addr: Value) {
    match l {
        AtomicLowering::Plain => {
            b.ins().store(flags(), v, addr, 0);
        }
        AtomicLowering::SeqCst => {
            let t = b.func.dfg.value_type(v);
            let it = int_of(t);
            let v = if it == t {
                v
            } else {
                b.ins().bitcast(it, MemFlagsData::new(), v)
            };
            b.ins().atomic_store(flags(), v, addr);
        }
    }
}

/// Integer read-modify-write per the lowering; returns the old value. (Exchange also takes
/// floats.) The scalar translator and the vectoriser's lanes both use it.
pub(crate) fn rmw(
    b: &mut FunctionBuilder,
    l: AtomicLowering,
    op: AtomicRmwOp,
    t: ClType,
    addr: Value,
    v: Value,
) -> Value {
    let it = int_of(t);
    let to_int = |b: &mut FunctionBuilder, x: Value| {
        if it == t {
            x
        } else {
            b.ins().bitcast(it, MemFlagsData::new(), x)
        }
    };
    let from_int = |b: &mut FunctionBuilder, x: Value| {
        if it == t {
            x
        } else {
            b.ins().bitcast(t, MemFlagsData::new(), x)
        }
    };
    match l {
        AtomicLowering::SeqCst => {
            let vi = to_int(b, v);
            let old = b.ins().atomic_rmw(it, flags(), op, addr, vi);
            from_int(b, old)
        }
        AtomicLowering::Plain => {
            let old = b.ins().load(t, flags(), addr, 0);
            let new = match op {
                AtomicRmwOp::Add => b.ins().iadd(old, v),
                AtomicRmwOp::Sub => b.ins().isub(old, v),
                AtomicRmwOp::And => b.ins().band(old, v),
                AtomicRmwOp::Nand => {
                    let a = b.ins().band(old, v);
                    b.ins().bnot(a)
                }
                AtomicRmwOp::Or => b.ins().bor(old, v),
                AtomicRmwOp::Xor => b.ins().bxor(old, v),
                AtomicRmwOp::Xchg => v,
                AtomicRmwOp::Umin => b.ins().umin(old, v),
                AtomicRmwOp::Umax => b.ins().umax(old, v),
                AtomicRmwOp::Smin => b.ins().smin(old, v),
                AtomicRmwOp::Smax => b.ins().smax(old, v),
            };
            b.ins().store(flags(), new, addr, 0);
            old
        }
    }
}

/// `old op v` for the float RMWs: `fmin`/`fmax` as OpenCL defines them (a NaN operand
/// yields the other one).
fn float_op(b: &mut FunctionBuilder, op: FloatOp, old: Value, v: Value) -> Value {
    match op {
        FloatOp::Add => b.ins().fadd(old, v),
        FloatOp::Min | FloatOp::Max => {
            let cc = if matches!(op, FloatOp::Min) {
                FloatCC::LessThan
            } else {
                FloatCC::GreaterThan
            };
            // take v if (v op old) or old is NaN
            let better = b.ins().fcmp(cc, v, old);
            let old_nan = b.ins().fcmp(FloatCC::Unordered, old, old);
            let take = b.ins().bor(better, old_nan);
            b.ins().select(take, v, old)
        }
    }
}

/// Float RMW (`OpAtomicFAddEXT/FMinEXT/FMaxEXT`), returning the old value: a CAS loop on
/// the bit pattern (global/generic), or load-op-store. The scalar translator and the
/// vectoriser's lanes both use it.
pub(crate) fn float_rmw(
    b: &mut FunctionBuilder,
    l: AtomicLowering,
    op: FloatOp,
    t: ClType,
    addr: Value,
    v: Value,
) -> Value {
    if l == AtomicLowering::Plain {
        let old = b.ins().load(t, flags(), addr, 0);
        let new = float_op(b, op, old, v);
        b.ins().store(flags(), new, addr, 0);
        return old;
    }
    let it = int_of(t);
    let old = cas_loop(b, it, addr, |b, cur| {
        let old = b.ins().bitcast(t, MemFlagsData::new(), cur);
        let new = float_op(b, op, old, v);
        b.ins().bitcast(it, MemFlagsData::new(), new)
    });
    b.ins().bitcast(t, MemFlagsData::new(), old)
}

/// Compare-and-exchange per the lowering; returns the old value (floats compare their bit
/// patterns). The scalar translator and the vectoriser's lanes both use it.
pub(crate) fn cas(
    b: &mut FunctionBuilder,
    l: AtomicLowering,
    t: ClType,
    addr: Value,
    expected: Value,
    new: Value,
) -> Value {
    match l {
        AtomicLowering::SeqCst => {
            let it = int_of(t);
            if it == t {
                b.ins().atomic_cas(flags(), addr, expected, new)
            } else {
                let e = b.ins().bitcast(it, MemFlagsData::new(), expected);
                let n = b.ins().bitcast(it, MemFlagsData::new(), new);
                let old = b.ins().atomic_cas(flags(), addr, e, n);
                b.ins().bitcast(t, MemFlagsData::new(), old)
            }
        }
        AtomicLowering::Plain => {
            let old = b.ins().load(t, flags(), addr, 0);
            let eq = if t.is_float() {
                let it = int_of(t);
                let x = b.ins().bitcast(it, MemFlagsData::new(), old);
                let y = b.ins().bitcast(it, MemFlagsData::new(), expected);
                b.ins().icmp(IntCC::Equal, x, y)
            } else {
                b.ins().icmp(IntCC::Equal, old, expected)
            };
            let stored = b.ins().select(eq, new, old);
            b.ins().store(flags(), stored, addr, 0);
            old
        }
    }
}

/// The operation of a float `OpAtomicF*EXT`, if it is one.
pub(crate) fn float_rmw_op(op: Op) -> Option<FloatOp> {
    Some(match op {
        Op::AtomicFAddEXT => FloatOp::Add,
        Op::AtomicFMinEXT => FloatOp::Min,
        Op::AtomicFMaxEXT => FloatOp::Max,
        _ => return None,
    })
}

/// The read-modify-write operator of an integer `OpAtomic*` (and exchange), if it is one.
pub(crate) fn rmw_op(op: Op) -> Option<AtomicRmwOp> {
    Some(match op {
        Op::AtomicIAdd | Op::AtomicIIncrement => AtomicRmwOp::Add,
        Op::AtomicISub | Op::AtomicIDecrement => AtomicRmwOp::Sub,
        Op::AtomicSMin => AtomicRmwOp::Smin,
        Op::AtomicUMin => AtomicRmwOp::Umin,
        Op::AtomicSMax => AtomicRmwOp::Smax,
        Op::AtomicUMax => AtomicRmwOp::Umax,
        Op::AtomicAnd => AtomicRmwOp::And,
        Op::AtomicOr => AtomicRmwOp::Or,
        Op::AtomicXor => AtomicRmwOp::Xor,
        Op::AtomicExchange => AtomicRmwOp::Xchg,
        _ => return None,
    })
}
