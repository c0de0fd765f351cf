//! The work-group function: `extern "C" fn(args, ctx)` that loads the kernel arguments
//! from the argument block once, then runs the kernel for every work-item of the group in a
//! z/y/x loop nest over `0..ctx.local_size[d]`, passing each its work-item record
//! (`codegen::WI_*` layout: context pointer, local id, global id).
//!
//! global id = group_id * enqueued_local_size + global_offset + local id, so a non-uniform
//! last group (smaller `local_size`) needs nothing special.
//!
//! Today the body is one call per work-item to the kernel's Cranelift function. The planned
//! shape (see `docs/architecture.md`) keeps this loop nest but runs *regions*: the barrier
//! work will split the body at `OpControlBarrier` and run each region for all work-items
//! before the next, and the vectoriser will replace the innermost loop by one over lanes.

use crate::codegen::{self, flat_types, load_typed, trusted, Env, Result, WI_CTX, WI_GID, WI_LID};
use crate::spirv::{EntryPoint, Type};
use crate::{ArgKind, CompileError, GroupContext, KernelInfo};
use cranelift_codegen::ir::{
    condcodes::IntCC, types, AbiParam, BlockArg, InstBuilder, MemFlagsData, StackSlotData,
    StackSlotKind, UserFuncName,
};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{FuncId, Linkage, Module as _};

/// Build the work-group function for `ep`; returns its id.
pub fn build(
    env: &mut Env,
    ep: &EntryPoint,
    info: &KernelInfo,
    ctx: &mut Context,
    fbc: &mut FunctionBuilderContext,
) -> Result<FuncId> {
    let p = env.p;
    let kernel = p.function(ep.func)?;
    let kernel_id = *env.funcs.get(&ep.func).ok_or(CompileError::InvalidId {
        id: ep.func,
        expected: "function",
    })?;
    if kernel.params.len() != info.args.len() {
        return Err(CompileError::Codegen("argument count mismatch".into()));
    }
    let mut sig = env.module.make_signature();
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I64));
    let id = env
        .module
        .declare_function(&format!("ferrite_wg_{}", ep.func), Linkage::Local, &sig)
        .map_err(|e| CompileError::Codegen(e.to_string()))?;
    env.module.clear_context(ctx);
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, fbc);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let args = b.block_params(entry)[0];
        let gctx = b.block_params(entry)[1];
        let local_mem = b
            .ins()
            .load(types::I64, trusted(), gctx, GroupContext::OFFSET_LOCAL_MEM);

        // Arguments, flattened as the kernel function expects them.
        let mut call_args = Vec::new();
        for (param, arg) in kernel.params.iter().zip(&info.args) {
            let off = arg.offset as i64;
            match (&arg.kind, p.ty(param.ty)?) {
                (ArgKind::Buffer { .. }, _) => {
                    call_args.push(
                        b.ins()
                            .load(types::I64, MemFlagsData::new(), args, off as i32),
                    )
                }
                (ArgKind::Local, _) => {
                    let o = b
                        .ins()
                        .load(types::I64, MemFlagsData::new(), args, off as i32);
                    call_args.push(b.ins().iadd(local_mem, o));
                }
                (ArgKind::Value { .. }, Type::Pointer { .. }) => {
                    // Struct passed by value: a pointer to its bytes in the block.
                    call_args.push(b.ins().iadd_imm_s(args, off));
                }
                (ArgKind::Value { .. }, _) => {
                    let v = load_typed(&mut b, p, param.ty, args, off as u64, MemFlagsData::new())?;
                    v.flatten(&mut call_args);
                }
                (k, _) => {
                    return Err(CompileError::Unsupported(format!(
                        "kernel argument kind {k:?}"
                    )))
                }
            }
        }
        let mut check = Vec::new();
        for prm in &kernel.params {
            flat_types(p, prm.ty, &mut check)?;
        }
        if check.len() != call_args.len() {
            return Err(CompileError::Codegen(
                "flattened argument count mismatch".into(),
            ));
        }

        // The work-item record.
        let slot = b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            codegen::WI_SIZE,
            3,
        ));
        let wi = b.ins().stack_addr(types::I64, slot, 0);
        b.ins().store(trusted(), gctx, wi, WI_CTX);
        call_args.push(wi);

        let ls: Vec<_> = (0..3)
            .map(|d| {
                b.ins().load(
                    types::I64,
                    trusted(),
                    gctx,
                    GroupContext::OFFSET_LOCAL_SIZE + 8 * d,
                )
            })
            .collect();
        let base: Vec<_> = (0..3)
            .map(|d| {
                let g = b.ins().load(
                    types::I64,
                    trusted(),
                    gctx,
                    GroupContext::OFFSET_GROUP_ID + 8 * d,
                );
                let e = b.ins().load(
                    types::I64,
                    trusted(),
                    gctx,
                    GroupContext::OFFSET_ENQUEUED_LOCAL_SIZE + 8 * d,
                );
                let o = b.ins().load(
                    types::I64,
                    trusted(),
                    gctx,
                    GroupContext::OFFSET_GLOBAL_OFFSET + 8 * d,
                );
                let ge = b.ins().imul(g, e);
                b.ins().iadd(ge, o)
            })
            .collect();
        let kref = env.module.declare_func_in_func(kernel_id, b.func);

        // Loop nest: z outermost, x innermost.
        let exit = b.create_block();
        let heads: Vec<_> = (0..3).map(|_| b.create_block()).collect();
        let bodies: Vec<_> = (0..3).map(|_| b.create_block()).collect();
        let latches: Vec<_> = (0..3).map(|_| b.create_block()).collect();
        let counters: Vec<_> = heads
            .iter()
            .map(|h| b.append_block_param(*h, types::I64))
            .collect();
        let zero = b.ins().iconst(types::I64, 0);
        b.ins().jump(heads[2], &[BlockArg::Value(zero)]);
        for d in (0..3usize).rev() {
            // head: counter < local_size[d] ? body : (outer latch | exit)
            b.switch_to_block(heads[d]);
            let c = b.ins().icmp(IntCC::UnsignedLessThan, counters[d], ls[d]);
            let out = if d == 2 { exit } else { latches[d + 1] };
            b.ins().brif(c, bodies[d], &[], out, &[]);
            // body: record ids, then the inner loop or the call
            b.switch_to_block(bodies[d]);
            let dd = d as i32;
            b.ins().store(trusted(), counters[d], wi, WI_LID + 8 * dd);
            let g = b.ins().iadd(base[d], counters[d]);
            b.ins().store(trusted(), g, wi, WI_GID + 8 * dd);
            if d == 0 {
                b.ins().call(kref, &call_args);
                b.ins().jump(latches[0], &[]);
            } else {
                let z = b.ins().iconst(types::I64, 0);
                b.ins().jump(heads[d - 1], &[BlockArg::Value(z)]);
            }
            // latch: counter + 1
            b.switch_to_block(latches[d]);
            let n = b.ins().iadd_imm_s(counters[d], 1);
            b.ins().jump(heads[d], &[BlockArg::Value(n)]);
        }
        b.switch_to_block(exit);
        b.ins().return_(&[]);
        b.seal_all_blocks();
        b.finalize(env.module.target_config());
    }
    codegen::define(env, id, ctx)?;
    Ok(id)
}
