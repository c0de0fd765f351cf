//! Work-group and sub-group functions that are not region boundaries: `OpGroupAsyncCopy`
//! (`async_work_group_copy`, `async_work_group_strided_copy`) and the ballot operations
//! that read only the work-item's own ballot value ([`is_ballot_local`]).
//!
//! The copy is performed by work-item 0 (linear local id 0) when it reaches the call:
//! every work-item reaches it with the same arguments, and work-items of a group run one
//! after another on one thread, so by the time any other work-item runs past the call in
//! this region, work-item 0 has already copied. The data a copy reads must be ready when
//! the *first* work-item reaches the call, which OpenCL leaves to the program (a
//! `barrier` before copying local data the group wrote). `OpGroupWaitEvents` is a region
//! boundary ([`super::regions`]), so after `wait_group_events` every work-item sees the
//! copy even in programs that write the source between the copy and the wait. Events are
//! plain `i64`s that carry no meaning: the copy is complete when the call returns.

use super::{trusted, FnTx, Result, Val, WI_LID};
use crate::layout::layout;
use crate::spirv::{op_id, Type};
use crate::CompileError;
use cranelift_codegen::ir::{condcodes::IntCC, types, BlockArg, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::Module as _;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, GroupOperation, Op, Scope, StorageClass, Word};

impl FnTx<'_, '_, '_> {
    fn as_i64(&mut self, id: Word) -> Result<Value> {
        let v = self.scalar(id)?;
        Ok(if self.value_type(v).bits() < 64 {
            self.b.ins().uextend(types::I64, v)
        } else {
            v
        })
    }

    /// `OpGroupAsyncCopy scope dst src num_elements stride event`.
    pub(super) fn async_copy(&mut self, inst: &Instruction) -> Result<()> {
        if inst.class.opcode != Op::GroupAsyncCopy {
            return Err(self.unsupported(inst));
        }
        let dst_id = op_id(inst, 1)?;
        let src_id = op_id(inst, 2)?;
        let (dst_class, dst_elem) = self.p.pointer_type(self.type_of(dst_id)?)?;
        let (_, src_elem) = self.p.pointer_type(self.type_of(src_id)?)?;
        // OpenCL C copies scalars and vectors only; clang's own SPIR-V target (clang-22)
        // passes a `local int t[16]` as a pointer to the whole array, which would copy
        // 64-byte elements. The element is then the other side's, or where both are
        // arrays, the innermost one (a cast such as `(local int4 *)t` is gone by then).
        let is_array = |t| matches!(self.p.ty(t), Ok(Type::Array { .. }));
        let mut elem = if is_array(dst_elem) && !is_array(src_elem) {
            src_elem
        } else {
            dst_elem
        };
        while let Type::Array { elem: e, .. } = self.p.ty(elem)? {
            elem = *e;
        }
        if matches!(self.p.ty(elem)?, Type::Void) {
            return Err(CompileError::Invalid(
                "OpGroupAsyncCopy of void elements".into(),
            ));
        }
        let size = layout(self.p, elem)?.size.max(1) as i64;
        let dst = self.scalar(dst_id)?;
        let src = self.scalar(src_id)?;
        let n = self.as_i64(op_id(inst, 3)?)?;
        let stride = self.as_i64(op_id(inst, 4)?)?;
        let event = self.scalar(op_id(inst, 5)?)?;

        // Only work-item 0 copies.
        let l0 = self.wi_load(WI_LID);
        let l1 = self.wi_load(WI_LID + 8);
        let l2 = self.wi_load(WI_LID + 16);
        let a = self.b.ins().bor(l0, l1);
        let any = self.b.ins().bor(a, l2);
        let first = self.b.ins().icmp_imm_s(IntCC::Equal, any, 0);
        let copy = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(first, copy, &[], done, &[]);

        // Element i goes from src + i*size*src_stride to dst + i*size*dst_stride; the
        // stride applies to the global side (the side that is not local memory).
        self.b.switch_to_block(copy);
        let byte_stride = self.b.ins().imul_imm_s(stride, size);
        let unit = self.b.ins().iconst(types::I64, size);
        let (dst_step, src_step) = if dst_class == StorageClass::Workgroup {
            (unit, byte_stride)
        } else {
            (byte_stride, unit)
        };
        let head = self.b.create_block();
        let body = self.b.create_block();
        let i = self.b.append_block_param(head, types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.ins().jump(head, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(head);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, i, n);
        self.b.ins().brif(more, body, &[], done, &[]);
        self.b.switch_to_block(body);
        let doff = self.b.ins().imul(i, dst_step);
        let soff = self.b.ins().imul(i, src_step);
        let d = self.b.ins().iadd(dst, doff);
        let s = self.b.ins().iadd(src, soff);
        let cfg = self.env.module.target_config();
        self.b
            .emit_small_memory_copy(cfg, d, s, size as u64, 1, 1, true, trusted());
        let next = self.b.ins().iadd_imm_s(i, 1);
        self.b.ins().jump(head, &[BlockArg::Value(next)]);

        self.b.switch_to_block(done);
        self.set_result(inst, Val::S(event))
    }
}

/// Sub-group operations on a ballot (`uvec4`) that need no other work-item's value:
/// `OpGroupNonUniformInverseBallot`, `…BallotBitExtract`, `…BallotBitCount`,
/// `…BallotFindLSB/MSB`. Only the bits below the maximum sub-group size (of the first
/// component) can be set by a ballot: `BitCount` (`Reduce`) and `FindLSB/MSB` look at
/// those alone (as the CTS does, also in a shorter last sub-group), the scans at the bits
/// up to the work-item's own, `BitExtract` at any bit.
pub fn is_ballot_local(op: Op) -> bool {
    matches!(
        op,
        Op::GroupNonUniformInverseBallot
            | Op::GroupNonUniformBallotBitExtract
            | Op::GroupNonUniformBallotBitCount
            | Op::GroupNonUniformBallotFindLSB
            | Op::GroupNonUniformBallotFindMSB
    )
}

impl FnTx<'_, '_, '_> {
    /// One of [`is_ballot_local`]'s opcodes.
    pub(super) fn ballot_local(&mut self, inst: &Instruction) -> Result<()> {
        let op = inst.class.opcode;
        if self.p.const_u64(op_id(inst, 0)?)? != Scope::Subgroup as u64 {
            return Err(CompileError::Unsupported(format!(
                "Op{op:?} with a scope other than Subgroup"
            )));
        }
        let ballot_pos = if op == Op::GroupNonUniformBallotBitCount {
            2
        } else {
            1
        };
        let comps = self.val(op_id(inst, ballot_pos)?)?.flat();
        if comps.len() != 4 || comps.iter().any(|c| self.value_type(*c) != types::I32) {
            return Err(CompileError::Invalid(format!(
                "Op{op:?}: the ballot is not a vector of four 32-bit integers"
            )));
        }
        let sgs = i64::from(self.env.sub_group_size);
        let l = self.linear_local_id();
        let lid = self.b.ins().band_imm_s(l, sgs - 1);
        let lid32 = self.b.ins().ireduce(types::I32, lid);
        // The bits a sub-group's ballot can hold: below the maximum sub-group size.
        let max = self.builtin_components(BuiltIn::SubgroupMaxSize)?[0];
        let extract = match op {
            Op::GroupNonUniformBallotBitExtract => Some(self.as_i64(op_id(inst, 2)?)?),
            _ => None,
        };
        let group_op = match inst.operands.get(1) {
            Some(Operand::GroupOperation(o)) => Some(*o),
            _ => None,
        };
        let comps: [Value; 4] = [comps[0], comps[1], comps[2], comps[3]];
        let r = ballot_lane(&mut self.b, op, group_op, &comps, lid32, max, extract)?;
        let rt = crate::spirv::result_type(inst)?;
        let t = super::clif_scalar(self.p, rt)?;
        let r = match (self.value_type(r).bits(), t.bits()) {
            (a, b) if a == b => r,
            (a, b) if a > b => self.b.ins().ireduce(t, r),
            _ => self.b.ins().uextend(t, r),
        };
        self.set_result(inst, Val::S(r))
    }
}

/// One work-item's [`is_ballot_local`] operation `op` on the ballot `comps` (with
/// `group_op` for `BitCount`, the bit index `extract` for `BitExtract`): `lid32` is its
/// sub-group local id (`i32`), `max` the maximum sub-group size (`i64`). The scalar
/// translator and the vectoriser's lanes both call this.
pub(crate) fn ballot_lane(
    b: &mut FunctionBuilder,
    op: Op,
    group_op: Option<GroupOperation>,
    comps: &[Value; 4],
    lid32: Value,
    max: Value,
    extract: Option<Value>,
) -> Result<Value> {
    let x = comps[0];
    let one = b.ins().iconst(types::I32, 1);
    // In 64 bits: a sub-group of 32 has all 32 bits.
    let one64 = b.ins().iconst(types::I64, 1);
    let lanes = b.ins().ishl(one64, max);
    let lanes = b.ins().iadd_imm_s(lanes, -1);
    let lanes = b.ins().ireduce(types::I32, lanes);
    let bit_of = |b: &mut FunctionBuilder, idx: Value| -> Value {
        // Bit `idx` (`i64`) of the 128-bit ballot.
        let word = b.ins().ushr_imm_s(idx, 5);
        let mut w = comps[3];
        for (i, v) in comps.iter().enumerate().rev().skip(1) {
            let is = b.ins().icmp_imm_s(IntCC::Equal, word, i as i64);
            w = b.ins().select(is, *v, w);
        }
        let sh = b.ins().band_imm_s(idx, 31);
        let sh = b.ins().ireduce(types::I32, sh);
        let v = b.ins().ushr(w, sh);
        let v = b.ins().band_imm_s(v, 1);
        b.ins().icmp_imm_s(IntCC::NotEqual, v, 0)
    };
    Ok(match op {
        Op::GroupNonUniformInverseBallot => {
            let lid = b.ins().uextend(types::I64, lid32);
            bit_of(b, lid)
        }
        Op::GroupNonUniformBallotBitExtract => {
            let i = extract.ok_or_else(|| {
                CompileError::Invalid("OpGroupNonUniformBallotBitExtract without an index".into())
            })?;
            bit_of(b, i)
        }
        Op::GroupNonUniformBallotBitCount => {
            let mask = match group_op {
                Some(GroupOperation::Reduce) => lanes,
                Some(GroupOperation::InclusiveScan) => {
                    let m = b.ins().ishl(one, lid32);
                    let m = b.ins().iadd_imm_s(m, -1);
                    let own = b.ins().ishl(one, lid32);
                    b.ins().bor(m, own)
                }
                Some(GroupOperation::ExclusiveScan) => {
                    let m = b.ins().ishl(one, lid32);
                    b.ins().iadd_imm_s(m, -1)
                }
                o => {
                    return Err(CompileError::Unsupported(format!(
                        "group operation {o:?} of OpGroupNonUniformBallotBitCount"
                    )))
                }
            };
            let v = b.ins().band(x, mask);
            b.ins().popcnt(v)
        }
        Op::GroupNonUniformBallotFindLSB => {
            let x = b.ins().band(x, lanes);
            b.ins().ctz(x)
        }
        Op::GroupNonUniformBallotFindMSB => {
            let x = b.ins().band(x, lanes);
            let z = b.ins().clz(x);
            let c = b.ins().iconst(types::I32, 31);
            b.ins().isub(c, z)
        }
        op => {
            return Err(CompileError::Unsupported(format!(
                "Op{op:?} is not a ballot operation"
            )))
        }
    })
}

/// `OpSubgroupBlockReadINTEL` / `OpSubgroupBlockWriteINTEL`: work-item `j` of a sub-group
/// reads (writes) component `k` at `ptr[k * max_sub_group_size + j]`. Each work-item
/// touches only its own elements, so no other work-item's value is needed.
pub fn is_block_io(op: Op) -> bool {
    matches!(op, Op::SubgroupBlockReadINTEL | Op::SubgroupBlockWriteINTEL)
}

impl FnTx<'_, '_, '_> {
    pub(super) fn block_io(&mut self, inst: &Instruction) -> Result<()> {
        let read = inst.class.opcode == Op::SubgroupBlockReadINTEL;
        let ptr = self.scalar(op_id(inst, 0)?)?;
        let comps = if read {
            let mut tys = Vec::new();
            super::flat_types(self.p, crate::spirv::result_type(inst)?, &mut tys)?;
            tys.into_iter().map(|t| (t, None)).collect::<Vec<_>>()
        } else {
            self.val(op_id(inst, 1)?)?
                .flat()
                .into_iter()
                .map(|v| (self.value_type(v), Some(v)))
                .collect()
        };
        let Some((t, _)) = comps.first().copied() else {
            return Err(CompileError::Invalid("empty sub-group block access".into()));
        };
        if comps.iter().any(|(u, _)| *u != t) || comps.len() > 16 || !t.is_int() {
            return Err(CompileError::Unsupported(format!(
                "Op{:?} of {} components of {t}",
                inst.class.opcode,
                comps.len()
            )));
        }
        let lid = self.builtin_components(BuiltIn::SubgroupLocalInvocationId)?[0];
        let max = self.builtin_components(BuiltIn::SubgroupMaxSize)?[0];
        let size = i64::from(t.bytes());
        let mut out = Vec::new();
        for (k, (_, v)) in comps.into_iter().enumerate() {
            let i = self.b.ins().imul_imm_s(max, k as i64);
            let i = self.b.ins().iadd(i, lid);
            let off = self.b.ins().imul_imm_s(i, size);
            let a = self.b.ins().iadd(ptr, off);
            let flags = cranelift_codegen::ir::MemFlagsData::new();
            match v {
                None => out.push(Val::S(self.b.ins().load(t, flags, a, 0))),
                Some(v) => {
                    self.b.ins().store(flags, v, a, 0);
                }
            }
        }
        if read {
            let v = if out.len() == 1 {
                out.remove(0)
            } else {
                Val::C(out)
            };
            self.set_result(inst, v)?;
        }
        Ok(())
    }
}
