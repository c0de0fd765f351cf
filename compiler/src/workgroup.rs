//! The work-group function: `extern "C" fn(args, ctx)` that loads the kernel arguments
//! from the argument block once, then runs the kernel for every work-item of the group in a
//! z/y/x loop nest over `0..ctx.local_size[d]`, passing each its work-item record
//! (`codegen::WI_*` layout: context pointer, local id, global id).
//!
//! global id = group_id * enqueued_local_size + global_offset + local id, so a non-uniform
//! last group (smaller `local_size`) needs nothing special.
//!
//! Two shapes:
//! - **No boundaries** (the fast path): one call per work-item to the kernel's Cranelift
//!   function.
//! - **With boundaries** (barriers, collectives, `wait_group_events`; see [`regions`] and
//!   `codegen/regions.rs`): a loop over *regions*. Each round runs the step function for
//!   every work-item from the current state with that work-item's frame
//!   (`ctx.frame + linear_local_id * frame_size`); every work-item of a group reaches the
//!   same boundary (uniform control flow is a precondition of barriers and collectives),
//!   so the state work-item 0 returns is the next round's state and the others are not
//!   checked. Between two rounds, a collective's combine step ([`combine`]) reads every
//!   work-item's operand from its frame and writes each one's result back. The round
//!   after which work-item 0 returns `EXIT` is the last.
//!
//! The frame arena (`frame_size × enqueued work-group size` bytes) is the executor's, one
//! per worker, reused by every group the worker runs.

pub mod combine;
pub mod regions;

use crate::codegen::regions::{FramePlan, PointKind, EXIT};
use crate::codegen::{
    self, flat_types, load_typed, trusted, Env, Result, WI_CTX, WI_FRAME_HI, WI_FRAME_LO, WI_GID,
    WI_LID, WI_STACK,
};
use crate::spirv::{EntryPoint, Type};
use crate::{ArgKind, CompileError, GroupContext, KernelInfo};
use cranelift_codegen::ir::{
    condcodes::IntCC, types, AbiParam, BlockArg, InstBuilder, MemFlagsData, StackSlotData,
    StackSlotKind, UserFuncName, Value,
};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Switch};
use cranelift_module::{FuncId, Linkage, Module as _};

/// Emit the z/y/x loop nest over the group's work-items. `body` runs in the innermost
/// loop with the counters `[x, y, z]` after the work-item record has been updated, and
/// must leave the current block open (unterminated). Returns with the builder in the block
/// after the nest.
fn item_loops(
    b: &mut FunctionBuilder,
    wi: Value,
    ls: &[Value],
    base: &[Value],
    body: &mut dyn FnMut(&mut FunctionBuilder, [Value; 3]) -> Result<()>,
) -> Result<()> {
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
            body(b, [counters[0], counters[1], counters[2]])?;
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
    Ok(())
}

/// Build the work-group function for `ep`; returns its id. `step` is the step function and
/// frame plan of a kernel with boundaries.
pub fn build(
    env: &mut Env,
    ep: &EntryPoint,
    info: &KernelInfo,
    step: Option<(FuncId, &FramePlan)>,
    ctx: &mut Context,
    fbc: &mut FunctionBuilderContext,
) -> Result<FuncId> {
    let p = env.p;
    let kernel = p.function(ep.func)?;
    let callee_id = match step {
        Some((id, _)) => id,
        None => *env.funcs.get(&ep.func).ok_or(CompileError::InvalidId {
            id: ep.func,
            expected: "function",
        })?,
    };
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
    let res = {
        let mut b = FunctionBuilder::new(&mut ctx.func, fbc);
        let r = build_body(env, &mut b, kernel, info, callee_id, step);
        if r.is_ok() {
            b.seal_all_blocks();
            b.finalize(env.module.target_config());
        }
        r
    };
    if let Err(e) = res {
        env.module.clear_context(ctx);
        *fbc = FunctionBuilderContext::new();
        return Err(e);
    }
    codegen::define(env, id, ctx)?;
    Ok(id)
}

fn build_body(
    env: &mut Env,
    b: &mut FunctionBuilder,
    kernel: &crate::spirv::Function,
    info: &KernelInfo,
    callee_id: FuncId,
    step: Option<(FuncId, &FramePlan)>,
) -> Result<()> {
    let p = env.p;
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
                let v = load_typed(b, p, param.ty, args, off as u64, MemFlagsData::new())?;
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
    let sp = b.ins().get_stack_pointer(types::I64);
    b.ins().store(trusted(), sp, wi, WI_STACK);
    let (frame_lo, frame_hi) = match step {
        Some((_, plan)) => {
            let lo = b
                .ins()
                .load(types::I64, trusted(), gctx, GroupContext::OFFSET_FRAME);
            let mut items = b.ins().iconst(types::I64, plan.size as i64);
            for d in 0..3 {
                let e = b.ins().load(
                    types::I64,
                    trusted(),
                    gctx,
                    GroupContext::OFFSET_ENQUEUED_LOCAL_SIZE + 8 * d,
                );
                items = b.ins().imul(items, e);
            }
            (lo, b.ins().iadd(lo, items))
        }
        None => {
            let z = b.ins().iconst(types::I64, 0);
            (z, z)
        }
    };
    b.ins().store(trusted(), frame_lo, wi, WI_FRAME_LO);
    b.ins().store(trusted(), frame_hi, wi, WI_FRAME_HI);
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
    let fref = env.module.declare_func_in_func(callee_id, b.func);

    let Some((_, plan)) = step else {
        // Fast path: one call per work-item.
        item_loops(b, wi, &ls, &base, &mut |b, _| {
            b.ins().call(fref, &call_args);
            Ok(())
        })?;
        b.ins().return_(&[]);
        return Ok(());
    };

    // Regions: round after round until work-item 0 exits.
    let frame = b
        .ins()
        .load(types::I64, trusted(), gctx, GroupContext::OFFSET_FRAME);
    let fs = plan.size as i64;
    let state = b.declare_var(types::I32);
    let next = b.declare_var(types::I32);
    let zero32 = b.ins().iconst(types::I32, 0);
    b.def_var(state, zero32);
    let round = b.create_block();
    b.ins().jump(round, &[]);
    b.switch_to_block(round);
    let exit32 = b.ins().iconst(types::I32, EXIT);
    b.def_var(next, exit32);
    item_loops(b, wi, &ls, &base, &mut |b, [x, y, z]| {
        let zy = b.ins().imul(z, ls[1]);
        let zy = b.ins().iadd(zy, y);
        let zyx = b.ins().imul(zy, ls[0]);
        let linear = b.ins().iadd(zyx, x);
        let off = b.ins().imul_imm_s(linear, fs);
        let item = b.ins().iadd(frame, off);
        let s = b.use_var(state);
        let mut a = call_args.clone();
        a.push(item);
        a.push(s);
        let call = b.ins().call(fref, &a);
        let r = b
            .inst_results(call)
            .first()
            .copied()
            .ok_or_else(|| CompileError::Codegen("step without result".into()))?;
        let first = b.ins().icmp_imm_s(IntCC::Equal, linear, 0);
        let prev = b.use_var(next);
        let n = b.ins().select(first, r, prev);
        b.def_var(next, n);
        Ok(())
    })?;
    let n = b.use_var(next);
    let done = b.create_block();
    let dispatch = b.create_block();
    let resume = b.create_block();
    let is_exit = b.ins().icmp_imm_s(IntCC::Equal, n, EXIT);
    b.ins().brif(is_exit, done, &[], dispatch, &[]);

    b.switch_to_block(dispatch);
    let mut sw = Switch::new();
    let mut combines = Vec::new();
    for (i, kind) in plan.points.iter().enumerate() {
        if let PointKind::Collective(c) = kind {
            let blk = b.create_block();
            sw.set_entry((i + 1) as u128, blk);
            combines.push((blk, *c));
        }
    }
    sw.emit(b, n, resume);
    for (blk, c) in combines {
        b.switch_to_block(blk);
        combine::emit(b, &c, frame, fs, &ls)?;
        b.ins().jump(resume, &[]);
    }
    b.switch_to_block(resume);
    b.def_var(state, n);
    b.ins().jump(round, &[]);

    b.switch_to_block(done);
    b.ins().return_(&[]);
    Ok(())
}
