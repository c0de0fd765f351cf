//! Work-group functions that are not region boundaries: `OpGroupAsyncCopy`
//! (`async_work_group_copy`, `async_work_group_strided_copy`).
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
use cranelift_module::Module as _;
use rspirv::dr::Instruction;
use rspirv::spirv::{Op, StorageClass, Word};

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
        let (dst_class, elem) = self.p.pointer_type(self.type_of(dst_id)?)?;
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
