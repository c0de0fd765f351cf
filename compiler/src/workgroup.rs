//! The work-group function: `extern "C" fn(args, ctx)` that loads the kernel arguments
//! from the argument block once, then runs the kernel for every work-item of the group in a
//! z/y/x loop nest over `0..ctx.local_size[d]`.
//!
//! global id = group_id * enqueued_local_size + global_offset + local id, so a non-uniform
//! last group (smaller `local_size`) needs nothing special.
//!
//! Two loop structures:
//! - **No boundaries**: one pass of the loop nest.
//! - **With boundaries** (barriers, collectives, `wait_group_events`; see [`regions`] and
//!   `codegen/regions.rs`): a loop over *rounds*. Each round runs the step of every
//!   work-item from its own state (kept in its frame, `ctx.frame + linear_local_id *
//!   frame_size`; its values live across boundaries in the cross area after the frames,
//!   `codegen::regions::CrossBase`) to its next boundary. Work-group boundaries (barriers, work-group
//!   collectives) are reached by every work-item (uniform control flow is their
//!   precondition); work-items wait there until no work-item is at a sub-group boundary,
//!   then that boundary's combine step ([`combine`]) reads every work-item's operand from
//!   its frame and writes each one's result back, and all go on. Sub-group boundaries
//!   (sub-group collectives, shuffles, ballots, `sub_group_barrier`) are combined per
//!   sub-group after every round over the work-items that reached them
//!   ([`open_round`] has the scheduling rules). The round after which every work-item has
//!   reached `EXIT` is the last. A kernel without sub-group boundaries needs no state per
//!   work-item: all run from one state, work-item 0's next one ([`close_uniform_round`]).
//!
//! and two ways to run a work-item in the innermost loop ([`Shape`]):
//! - **Inline** (the default): the kernel's body (or its step) is translated right there by
//!   `codegen` in inline mode ([`Inline`]): the ids are SSA values of the loop counters,
//!   the [`GroupContext`] fields are loaded once before the loop, a return jumps to the
//!   loop's latch (a step's return passes the state it reached), and calls are inlined
//!   where `codegen/inline.rs` decides (every OpenCL C kernel is a call: llvm-spirv's
//!   entry point is a wrapper calling the real kernel function).
//! - **Calls** (the reference every inline shape must agree with): one call per work-item to the kernel's Cranelift
//!   function, or to its step function, passing the work-item record (`codegen::WI_*`
//!   layout: context pointer, local id, global id, stack top, frame bounds) whose ids the
//!   loop stores for every work-item. In inline mode the record exists too, for the calls
//!   that remain, and gets its ids just before each of them.
//!
//! The frame arena (`frame_size_per_item × enqueued work-group size` bytes: the frames,
//! then the cross area) is the executor's, one per worker, reused by every group the
//! worker runs.

pub mod combine;
pub mod regions;
pub mod vector;

use crate::codegen::regions::{
    CrossBase, FramePlan, PointKind, EXIT, SUB_GROUP_STATE, SUB_GROUP_WAIT,
};
use crate::codegen::{
    self, flat_types, load_typed, trusted, Env, FnTx, Inline, Result, WI_CTX, WI_FRAME_HI,
    WI_FRAME_LO, WI_GID, WI_LID, WI_STACK,
};
use crate::spirv::{EntryPoint, Program, Type};
use crate::{ArgKind, CompileError, GroupContext, KernelInfo};
use cranelift_codegen::ir::{
    condcodes::IntCC, types, AbiParam, Block, BlockArg, InstBuilder, MemFlagsData, StackSlotData,
    StackSlotKind, UserFuncName, Value,
};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Switch, Variable};
use cranelift_module::{FuncId, Linkage, Module as _};

/// The z/y/x loop nest over the group's work-items, opened by [`open_loops`] and closed by
/// [`close_loops`].
struct Nest {
    exit: Block,
    heads: Vec<Block>,
    latches: Vec<Block>,
    /// Counters `[x, y, z]`: the local ids.
    lid: [Value; 3],
    /// Global ids: `base[d] + lid[d]`, each computed once per iteration of its own loop.
    gid: [Value; 3],
    /// With a vector loop: its head (`x: i64`), entered instead of the scalar x loop,
    /// which it enters with the first work-item it leaves ([`vector::emit_loop`]).
    vhead: Option<Block>,
}

/// Open the loop nest; the builder is left in the innermost body, where the caller emits
/// one work-item's code. With `wi`, the ids are also stored into that work-item record
/// (for functions that read it).
fn open_loops(
    b: &mut FunctionBuilder,
    wi: Option<Value>,
    ls: &[Value],
    base: &[Value],
    vector: bool,
) -> Nest {
    let exit = b.create_block();
    let vhead = vector.then(|| {
        let h = b.create_block();
        b.append_block_param(h, types::I64);
        h
    });
    let heads: Vec<_> = (0..3).map(|_| b.create_block()).collect();
    let bodies: Vec<_> = (0..3).map(|_| b.create_block()).collect();
    let latches: Vec<_> = (0..3).map(|_| b.create_block()).collect();
    let counters: Vec<_> = heads
        .iter()
        .map(|h| b.append_block_param(*h, types::I64))
        .collect();
    let mut gid = [counters[0]; 3];
    let zero = b.ins().iconst(types::I64, 0);
    b.ins().jump(heads[2], &[BlockArg::Value(zero)]);
    for d in (0..3usize).rev() {
        // head: counter < local_size[d] ? body : (outer latch | exit)
        b.switch_to_block(heads[d]);
        let c = b.ins().icmp(IntCC::UnsignedLessThan, counters[d], ls[d]);
        let out = if d == 2 { exit } else { latches[d + 1] };
        b.ins().brif(c, bodies[d], &[], out, &[]);
        // body: the global id, then the inner loop (or, innermost, the caller's code)
        b.switch_to_block(bodies[d]);
        let g = b.ins().iadd(base[d], counters[d]);
        gid[d] = g;
        if let Some(wi) = wi {
            let dd = d as i32;
            b.ins().store(trusted(), counters[d], wi, WI_LID + 8 * dd);
            b.ins().store(trusted(), g, wi, WI_GID + 8 * dd);
        }
        if d > 0 {
            let z = b.ins().iconst(types::I64, 0);
            let inner = match vhead {
                Some(h) if d == 1 => h,
                _ => heads[d - 1],
            };
            b.ins().jump(inner, &[BlockArg::Value(z)]);
        }
    }
    Nest {
        exit,
        heads,
        latches,
        lid: [counters[0], counters[1], counters[2]],
        gid,
        vhead,
    }
}

/// Close the loop nest: from the current block (unless `terminated`) on to the next
/// work-item; returns with the builder in the block after the nest.
fn close_loops(b: &mut FunctionBuilder, nest: Nest, terminated: bool) {
    if !terminated {
        b.ins().jump(nest.latches[0], &[]);
    }
    for d in 0..3 {
        // latch: counter + 1
        b.switch_to_block(nest.latches[d]);
        let n = b.ins().iadd_imm_s(nest.lid[d], 1);
        b.ins().jump(nest.heads[d], &[BlockArg::Value(n)]);
    }
    b.switch_to_block(nest.exit);
}

/// How the work-group function runs the kernel's work-items.
pub enum Shape<'a> {
    /// The reference: one call of the kernel's function per work-item.
    Call,
    /// The kernel's body translated inside the loop nest (no boundaries).
    Inline,
    /// A kernel with boundaries: one call of its step function per work-item and region.
    Steps { step: FuncId, plan: &'a FramePlan },
    /// A kernel with boundaries, its step translated inside the region loop's nest.
    /// `sub_lanes`: the same kernel split at its work-group boundaries alone, when it also
    /// has sub-group ones (`pipeline::sub_group_lanes_split`).
    InlineSteps {
        split: &'a regions::Split,
        plan: &'a FramePlan,
        sub_lanes: Option<(&'a regions::Split, &'a FramePlan)>,
    },
}

/// Build the work-group function for `ep` in `shape`; returns its id.
pub fn build<'p>(
    env: &mut Env<'p>,
    ep: &EntryPoint,
    info: &KernelInfo,
    shape: Shape<'p>,
    ctx: &mut Context,
    fbc: &mut FunctionBuilderContext,
) -> Result<FuncId> {
    let p = env.p;
    let kernel = p.function(ep.func)?;
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
    env.handler = crate::Handler {
        lanes: 1,
        note: match shape {
            Shape::Call => "reference: a call per work-item".into(),
            Shape::Steps { .. } => "reference: a step call per work-item and region".into(),
            Shape::InlineSteps { .. } => {
                "regions between work-group boundaries, one work-item at a time".into()
            }
            Shape::Inline => "scalar loop nest".into(),
        },
    };
    let res = match shape {
        Shape::Call | Shape::Steps { .. } => {
            let (callee, plan) = match shape {
                Shape::Steps { step, plan } => (step, Some(plan)),
                _ => (
                    *env.funcs.get(&ep.func).ok_or(CompileError::InvalidId {
                        id: ep.func,
                        expected: "function",
                    })?,
                    None,
                ),
            };
            let mut b = FunctionBuilder::new(&mut ctx.func, fbc);
            let r = build_calls(env, &mut b, kernel, info, callee, plan);
            if r.is_ok() {
                b.seal_all_blocks();
                b.finalize(env.module.target_config());
            }
            r
        }
        Shape::Inline | Shape::InlineSteps { .. } => {
            let (f, split, sub_lanes) = match shape {
                Shape::InlineSteps {
                    split,
                    plan,
                    sub_lanes,
                } => (&split.func, Some((split, plan)), sub_lanes),
                _ => (kernel, None, None),
            };
            let b = FunctionBuilder::new(&mut ctx.func, fbc);
            let mut tx = FnTx::new(env, b, f);
            let r = build_inline(&mut tx, kernel, info, split, sub_lanes);
            tx.finish(r)
        }
    };
    if let Err(e) = res {
        env.module.clear_context(ctx);
        *fbc = FunctionBuilderContext::new();
        return Err(e);
    }
    codegen::define(env, id, ctx)?;
    Ok(id)
}

/// What the entry block of a work-group function computes once per group.
struct Prologue {
    gctx: Value,
    local_mem: Value,
    /// The kernel's arguments, flattened as its function takes them.
    args: Vec<Value>,
    /// The work-item record (its ids are stored by the loop nest when a callee reads it).
    wi: Value,
    /// `ctx.local_size`.
    ls: Vec<Value>,
    /// `group_id * enqueued_local_size + global_offset`: global id of local id 0.
    base: Vec<Value>,
    /// Work-items of the enqueued group, whose frames the arena holds (a kernel with
    /// boundaries; 0 otherwise).
    items: Value,
}

/// Load the arguments and the group's geometry, and build the work-item record.
fn prologue(
    p: &Program,
    b: &mut FunctionBuilder,
    kernel: &crate::spirv::Function,
    info: &KernelInfo,
    step: Option<&FramePlan>,
) -> Result<Prologue> {
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
            // A buffer's address, an image's descriptor address, a sampler's bits.
            (ArgKind::Buffer { .. } | ArgKind::Image | ArgKind::Sampler, _) => call_args.push(
                b.ins()
                    .load(types::I64, MemFlagsData::new(), args, off as i32),
            ),
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
    // Above every stack slot of this function (`jit.rs` keeps frame pointers).
    let fp = b.ins().get_frame_pointer(types::I64);
    b.ins().store(trusted(), fp, wi, WI_STACK);
    let (frame_lo, frame_hi, items) = match step {
        Some(plan) => {
            let lo = b
                .ins()
                .load(types::I64, trusted(), gctx, GroupContext::OFFSET_FRAME);
            let mut items = b.ins().iconst(types::I64, 1);
            for d in 0..3 {
                let e = b.ins().load(
                    types::I64,
                    trusted(),
                    gctx,
                    GroupContext::OFFSET_ENQUEUED_LOCAL_SIZE + 8 * d,
                );
                items = b.ins().imul(items, e);
            }
            let bytes = b.ins().imul_imm_s(items, plan.size as i64);
            (lo, b.ins().iadd(lo, bytes), items)
        }
        None => {
            let z = b.ins().iconst(types::I64, 0);
            (z, z, z)
        }
    };
    b.ins().store(trusted(), frame_lo, wi, WI_FRAME_LO);
    b.ins().store(trusted(), frame_hi, wi, WI_FRAME_HI);

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
    Ok(Prologue {
        gctx,
        local_mem,
        args: call_args,
        wi,
        ls,
        base,
        items,
    })
}

/// The kernel translated inside the loop nest: ids are the counters, the group's
/// geometry is loaded once, calls are inlined where `codegen/inline.rs` decides, and the
/// record is only brought up to date before a call that remains. With `split`, the
/// kernel's step is translated inside the region loop's nest instead, its return (the
/// state reached) passed to the loop's continuation.
fn build_inline<'p>(
    tx: &mut FnTx<'_, '_, 'p>,
    kernel: &crate::spirv::Function,
    info: &KernelInfo,
    split: Option<(&'p regions::Split, &'p FramePlan)>,
    sub_lanes: Option<(&'p regions::Split, &'p FramePlan)>,
) -> Result<()> {
    let pro = prologue(tx.p, &mut tx.b, kernel, info, split.map(|(_, plan)| plan))?;
    // Checked mode's race detector, for vector loops: the worker's state for this group.
    let shadow = match crate::check::mode().races {
        true => {
            let hook = tx.env.hook_ref(tx.b.func, "ferrite_check_shadow", 1)?;
            let call = tx.b.ins().call(hook, &[pro.gctx]);
            Some(tx.b.inst_results(call)[0])
        }
        false => None,
    };
    let reached = codegen::reachable(tx.p, kernel.id)?;
    let widths = vector::widths_for(info.reqd_work_group_size.map(|r| r[0]), tx.env.lanes);
    let call_counts = codegen::call_counts(tx.p, &reached)?;
    let ctx_vals: Vec<Value> = (0..=GroupContext::OFFSET_WORK_DIM / 8)
        .map(|i| tx.b.ins().load(types::I64, trusted(), pro.gctx, 8 * i))
        .collect();
    tx.wi = pro.wi;
    tx.ctx = pro.gctx;
    tx.local_mem = pro.local_mem;
    let Some((split, plan)) = split else {
        // A straight-line kernel also gets a vector loop before the scalar x loop.
        let fma = tx.env.module.isa().has_native_fma();
        let arg_types: Vec<_> = pro
            .args
            .iter()
            .map(|v| tx.b.func.dfg.value_type(*v))
            .collect();
        let vplan = vector::plan(
            tx.p,
            kernel,
            &arg_types,
            fma,
            tx.env.global_addr,
            &tx.env.local_offsets,
            &widths,
            tx.env.sub_group_size,
        );
        tx.env.handler = match &vplan {
            Ok(plan) => crate::Handler {
                lanes: plan.lanes as u32,
                note: format!(
                    "vector loop along x ({}), scalar loop for the rest of each row",
                    plan.why
                ),
            },
            Err(e) => crate::Handler {
                lanes: 1,
                note: format!("scalar loop nest: {e}"),
            },
        };
        let vplan = vplan.ok();
        // The record's ids are stored before each call that is not inlined
        // (`FnTx::sync_record`), not for every work-item.
        let nest = open_loops(&mut tx.b, None, &pro.ls, &pro.base, vplan.is_some());
        tx.inline = Some(Inline {
            lid: nest.lid,
            gid: nest.gid,
            ctx_vals: ctx_vals.clone(),
            ret: nest.latches[0],
            call_counts,
            depth: 0,
        });
        tx.run_inline(pro.args.clone())?;
        if let Some(vplan) = &vplan {
            let local_offsets = tx.env.local_offsets.clone();
            let group = GroupVectors {
                ctx_vals: &ctx_vals,
                local_offsets: &local_offsets,
                shadow,
                fma,
            };
            vector_row_loop(tx, &pro, &group, vplan, &nest)?;
        }
        close_loops(&mut tx.b, nest, true);
        tx.b.ins().return_(&[]);
        return Ok(());
    };
    // The regions of a kernel whose boundaries are barriers also run four work-items at a
    // time, before the scalar x loop (`vector/steps.rs`).
    let fma = tx.env.module.isa().has_native_fma();
    let arg_types: Vec<_> = pro
        .args
        .iter()
        .map(|v| tx.b.func.dfg.value_type(*v))
        .collect();
    let local_offsets = tx.env.local_offsets.clone();
    let scratch_env = vector::ScratchEnv {
        arg_types: &arg_types,
        global_addr: tx.env.global_addr,
        local_offsets: &local_offsets,
    };
    // A kernel whose boundaries are all sub-group ones: where rows are whole sub-groups,
    // one sub-group per iteration of a vector loop (`vector/subgroup.rs`); the regions
    // below otherwise.
    let sub_groups = match plan.points.iter().all(|k| k.sub()) {
        true => Some(vector::plan_sub_groups(
            tx.p,
            kernel,
            &arg_types,
            fma,
            tx.env.global_addr,
            &local_offsets,
            tx.env.sub_group_size,
        )),
        false => None,
    };
    if let Some(Ok(vplan)) = &sub_groups {
        let regions = whole_rows(&mut tx.b, pro.ls[0], vplan.lanes);
        let nest = open_loops(&mut tx.b, None, &pro.ls, &pro.base, true);
        // The scalar x loop is only entered at the end of a row.
        tx.b.ins().jump(nest.latches[0], &[]);
        let group = GroupVectors {
            ctx_vals: &ctx_vals,
            local_offsets: &local_offsets,
            shadow,
            fma,
        };
        vector_row_loop(tx, &pro, &group, vplan, &nest)?;
        close_loops(&mut tx.b, nest, true);
        tx.b.ins().return_(&[]);
        tx.b.switch_to_block(regions);
    }
    // A kernel with sub-group and work-group boundaries: where rows are whole sub-groups,
    // its split at the work-group ones alone runs as vector iterations of one sub-group
    // each, the sub-group operations in registers; the regions below otherwise.
    let lanes_split = match sub_lanes {
        Some((split2, plan2)) => Some((
            split2,
            plan2,
            vector::steps::plan_steps(
                tx.p,
                split2,
                plan2,
                fma,
                &scratch_env,
                &widths,
                tx.env.sub_group_size,
                true,
            ),
        )),
        None => None,
    };
    let group = GroupVectors {
        ctx_vals: &ctx_vals,
        local_offsets: &local_offsets,
        shadow,
        fma,
    };
    if let Some((split2, plan2, Ok(steps2))) = &lanes_split {
        let regions_blk = whole_rows(&mut tx.b, pro.ls[0], steps2.lanes);
        let round = open_round(&mut tx.b, plan2, &pro, false, true);
        // The scalar x loop is only entered at the end of a row.
        let exit = tx.b.ins().iconst(types::I32, codegen::regions::EXIT);
        tx.b.ins().jump(round.after, &[BlockArg::Value(exit)]);
        vector_round(tx, &pro, &group, steps2, split2, plan2, &round)?;
        tx.b.switch_to_block(round.after);
        let sgs = i64::from(tx.env.sub_group_size);
        close_round(&mut tx.b, round, plan2, &pro.ls, sgs)?;
        tx.b.switch_to_block(regions_blk);
    }
    let steps = vector::steps::plan_steps(
        tx.p,
        split,
        plan,
        fma,
        &scratch_env,
        &widths,
        tx.env.sub_group_size,
        false,
    );
    tx.env.handler = match &steps {
        Ok(s) => crate::Handler {
            lanes: s.lanes as u32,
            note: format!(
                "regions between barriers as vector loops along x ({}), scalar loop for the \
                 rest of each row",
                s.why
            ),
        },
        Err(e) => crate::Handler {
            lanes: 1,
            note: format!("regions between work-group boundaries, one work-item at a time: {e}"),
        },
    };
    match &sub_groups {
        Some(Ok(vplan)) => {
            tx.env.handler = crate::Handler {
                lanes: vplan.lanes as u32,
                note: format!(
                    "one sub-group per vector iteration where rows are whole sub-groups, \
                     else {}",
                    tx.env.handler.note
                ),
            }
        }
        Some(Err(e)) => {
            tx.env.handler.note += &format!(" (not one sub-group per vector iteration: {e})");
        }
        None => {}
    }
    match &lanes_split {
        Some((_, _, Ok(steps2))) => {
            tx.env.handler = crate::Handler {
                lanes: steps2.lanes as u32,
                note: format!(
                    "regions between work-group barriers as vector loops of one sub-group \
                     each where rows are whole sub-groups, else {}",
                    tx.env.handler.note
                ),
            }
        }
        Some((_, _, Err(e))) => {
            tx.env.handler.note += &format!(" (not one sub-group per vector iteration: {e})");
        }
        None => {}
    }
    let steps = steps.ok();
    let round = open_round(&mut tx.b, plan, &pro, false, steps.is_some());
    let after = round.after;
    tx.inline = Some(Inline {
        lid: round.nest.lid,
        gid: round.nest.gid,
        ctx_vals: ctx_vals.clone(),
        ret: after,
        call_counts,
        depth: 0,
    });
    let mut step = codegen::regions::StepCtx::new(split, plan);
    step.frame = round.item;
    step.cross = round.cross;
    step.state = round.state_now;
    tx.step = Some(step);
    tx.run_inline(pro.args.clone())?;
    if let Some(steps) = &steps {
        vector_round(tx, &pro, &group, steps, split, plan, &round)?;
    }
    tx.b.switch_to_block(after);
    let sgs = i64::from(tx.env.sub_group_size);
    close_round(&mut tx.b, round, plan, &pro.ls, sgs)
}

/// Branch on whether rows (local size x, `ls0`) are whole sub-groups of `lanes`: returns
/// in the block for whole rows, with the block for the others.
fn whole_rows(b: &mut FunctionBuilder, ls0: Value, lanes: usize) -> Block {
    let rem = b.ins().urem_imm_u(ls0, lanes as i64);
    let whole = b.ins().icmp_imm_s(IntCC::Equal, rem, 0);
    let (vector_rows, others) = (b.create_block(), b.create_block());
    b.ins().brif(whole, vector_rows, &[], others, &[]);
    b.switch_to_block(vector_rows);
    others
}

/// What the vector loops of a work-group function share: the group's context values,
/// the `__local` variables' offsets, checked mode's shadow, whether FMA is native.
struct GroupVectors<'a> {
    ctx_vals: &'a [Value],
    local_offsets: &'a std::collections::HashMap<rspirv::spirv::Word, u64>,
    shadow: Option<Value>,
    fma: bool,
}

/// A vector loop's inputs (`vector::Inputs`): the group's, and the loop's ids.
fn vector_inputs<'a>(
    pro: &'a Prologue,
    ctx_vals: &'a [Value],
    global_addr: &'a std::collections::HashMap<rspirv::spirv::Word, u64>,
    local_offsets: &'a std::collections::HashMap<rspirv::spirv::Word, u64>,
    shadow: Option<Value>,
    lid: [Value; 3],
    gid: [Value; 3],
) -> vector::Inputs<'a> {
    vector::Inputs {
        args: &pro.args,
        lid,
        gid,
        ctx_vals,
        local_mem: pro.local_mem,
        global_addr,
        local_offsets,
        frames: None,
        ctx: pro.gctx,
        wi: pro.wi,
        shadow,
        skip: None,
    }
}

/// The vector loop of a kernel without work-group boundaries (`vector::emit_loop`), from
/// the head of `nest`'s x loop, which it enters with the first work-item it leaves.
fn vector_row_loop(
    tx: &mut FnTx<'_, '_, '_>,
    pro: &Prologue,
    group: &GroupVectors,
    vplan: &vector::Plan,
    nest: &Nest,
) -> Result<()> {
    let vhead = nest
        .vhead
        .ok_or_else(|| CompileError::Codegen("vector loop without its head".into()))?;
    let inputs = vector_inputs(
        pro,
        group.ctx_vals,
        tx.env.global_addr,
        group.local_offsets,
        group.shadow,
        nest.lid,
        nest.gid,
    );
    vector::emit_loop(
        &mut tx.b,
        tx.p,
        group.fma,
        vplan,
        &inputs,
        &mut *tx.env,
        vhead,
        nest.heads[0],
        pro.ls[0],
        pro.base[0],
    )
}

/// The vector loop of a uniform round (`vector/steps.rs`), from the head of `round`'s
/// nest; work-item 0's state is the next round's (`close_uniform_round`).
#[allow(clippy::too_many_arguments)]
fn vector_round<'p>(
    tx: &mut FnTx<'_, '_, 'p>,
    pro: &Prologue,
    group: &GroupVectors,
    steps: &vector::steps::Steps,
    split: &'p regions::Split,
    plan: &'p FramePlan,
    round: &Round,
) -> Result<()> {
    let (Some(vhead), Some((state, next))) = (round.nest.vhead, round.uniform) else {
        return Ok(());
    };
    let inputs = vector_inputs(
        pro,
        group.ctx_vals,
        tx.env.global_addr,
        group.local_offsets,
        group.shadow,
        round.nest.lid,
        round.nest.gid,
    );
    let fma = group.fma;
    let (b, env) = (&mut tx.b, &mut *tx.env);
    b.switch_to_block(vhead);
    // The row's first linear id, and the group's state, computed in the vector loop.
    let row_blk = b.create_block();
    let x0 = b.block_params(vhead)[0];
    let vloop = b.create_block();
    b.append_block_param(vloop, types::I64);
    let [_, y, z] = round.nest.lid;
    let zy = b.ins().imul(z, pro.ls[1]);
    let zy = b.ins().iadd(zy, y);
    let row = b.ins().imul(zy, pro.ls[0]);
    let st = b.use_var(state);
    b.ins().jump(row_blk, &[]);
    b.switch_to_block(row_blk);
    b.ins().jump(vloop, &[BlockArg::Value(x0)]);
    let si = vector::steps::StepInputs {
        frame: round.frame,
        frame_size: plan.size as i64,
        cross_area: round.cross.area,
        items: round.cross.items,
        row,
        state: st,
    };
    vector::steps::emit_step_loop(
        b,
        tx.p,
        fma,
        steps,
        split,
        plan,
        env,
        &inputs,
        &si,
        vloop,
        round.nest.heads[0],
        pro.ls[0],
        pro.base[0],
        &mut |b, linear, reached| {
            // Work-item 0's state is the next round's (`close_uniform_round`).
            let first = b.ins().icmp_imm_s(IntCC::Equal, linear, 0);
            let prev = b.use_var(next);
            let n = b.ins().select(first, reached, prev);
            b.def_var(next, n);
        },
    )
}

/// The reference shapes: a call per work-item of the kernel's function, or (`plan`) of
/// its step function per work-item and region.
fn build_calls(
    env: &mut Env,
    b: &mut FunctionBuilder,
    kernel: &crate::spirv::Function,
    info: &KernelInfo,
    callee_id: FuncId,
    plan: Option<&FramePlan>,
) -> Result<()> {
    let pro = prologue(env.p, b, kernel, info, plan)?;
    let mut call_args = pro.args.clone();
    call_args.push(pro.wi);
    let fref = env.module.declare_func_in_func(callee_id, b.func);

    let Some(plan) = plan else {
        let nest = open_loops(b, Some(pro.wi), &pro.ls, &pro.base, false);
        b.ins().call(fref, &call_args);
        close_loops(b, nest, false);
        b.ins().return_(&[]);
        return Ok(());
    };
    let round = open_round(b, plan, &pro, true, false);
    call_args.push(round.item);
    call_args.extend([round.cross.area, round.cross.items, round.cross.linear]);
    call_args.push(round.state_now);
    let call = b.ins().call(fref, &call_args);
    let r = b
        .inst_results(call)
        .first()
        .copied()
        .ok_or_else(|| CompileError::Codegen("step without result".into()))?;
    b.ins().jump(round.after, &[BlockArg::Value(r)]);
    b.switch_to_block(round.after);
    close_round(b, round, plan, &pro.ls, i64::from(env.sub_group_size))
}

/// The region loop, opened by [`open_round`] and closed by [`close_round`].
struct Round {
    nest: Nest,
    /// The block that starts a round.
    head: Block,
    frame: Value,
    /// Is this the first round (every work-item starts at state 0, whatever its frame
    /// holds)?
    first: Variable,
    /// May work-items waiting at a work-group boundary go on this round?
    release: Variable,
    /// Did a work-item not exit / stop at a sub-group boundary this round?
    alive: Variable,
    sub_pending: Variable,
    /// Bit `rank % 64` set for every sub-group boundary a work-item is at (its combine runs
    /// only then).
    sub_mask: Variable,
    /// Lowest and highest state of the work-items at sub-group boundaries: equal when
    /// all are at one boundary and none waits, and then no sub-group has work-items to
    /// hold back.
    sub_lo: Variable,
    sub_hi: Variable,
    /// The work-group boundary work-items stopped at this round.
    wg_state: Variable,
    /// This work-item's state (where it resumes).
    state_now: Value,
    /// This work-item's frame.
    item: Value,
    /// Reached with the state the work-item is in after this round (`i32` parameter).
    after: Block,
    /// A kernel without sub-group boundaries: every work-item runs from the same state
    /// (`.0`), and the state work-item 0 reaches (`.1`) is the next round's: no state per
    /// work-item (the shape before sub-groups, and the faster one).
    uniform: Option<(Variable, Variable)>,
    /// This work-item's linear local id.
    linear: Value,
    /// Where this work-item's values live across boundaries are.
    cross: CrossBase,
}

/// Open round after round and the loop nest over the work-items inside; the builder is
/// left in the block that runs one work-item's step from `state_now` with frame `item`
/// (a work-item that exited, or waits at a work-group boundary while others still have a
/// sub-group boundary to reach, goes straight to `after`). With `record`, the ids are
/// stored in the work-item record for every work-item.
///
/// Scheduling: every work-item keeps its state in its frame (`plan.state_off`). A round
/// runs every work-item that has not exited from its state to its next boundary, except
/// that work-items at a work-group boundary wait until no work-item stopped at a
/// sub-group boundary in the previous round (then every live work-item is at the same
/// work-group boundary, a precondition of barriers and work-group collectives, and its
/// combine has run). Sub-group boundaries never wait for other sub-groups. Within a
/// sub-group, after a round, only the work-items at its earliest sub-group boundary (the
/// lowest state: boundaries are numbered in block layout order, where SPIR-V puts a block
/// after its dominators) are combined and go on; the others wait (their state gets
/// [`SUB_GROUP_WAIT`] added for a round). So work-items that diverged within a sub-group
/// reconverge: after `if (odd) a = f(x);` the work-items that skipped `f` wait at the next
/// sub-group boundary until the others reach it, and a collective combines the work-items
/// that reached it together, the active ones of non-uniform control flow.
fn open_round(
    b: &mut FunctionBuilder,
    plan: &FramePlan,
    pro: &Prologue,
    record: bool,
    vector: bool,
) -> Round {
    let frame = b
        .ins()
        .load(types::I64, trusted(), pro.gctx, GroupContext::OFFSET_FRAME);
    let (area, items) = (CrossBase::area(b, frame, pro.items, plan.size), pro.items);
    let first = b.declare_var(types::I8);
    let release = b.declare_var(types::I8);
    let alive = b.declare_var(types::I8);
    let sub_pending = b.declare_var(types::I8);
    let sub_mask = b.declare_var(types::I64);
    let sub_lo = b.declare_var(types::I32);
    let sub_hi = b.declare_var(types::I32);
    let wg_state = b.declare_var(types::I32);
    let one8 = b.ins().iconst(types::I8, 1);
    let zero8 = b.ins().iconst(types::I8, 0);
    b.def_var(first, one8);
    b.def_var(release, zero8);
    let uniform = (!plan.points.iter().any(PointKind::sub)).then(|| {
        let state = b.declare_var(types::I32);
        let next = b.declare_var(types::I32);
        let zero32 = b.ins().iconst(types::I32, 0);
        b.def_var(state, zero32);
        (state, next)
    });
    let round = b.create_block();
    b.ins().jump(round, &[]);
    b.switch_to_block(round);
    if let Some((_, next)) = uniform {
        let exit32 = b.ins().iconst(types::I32, EXIT);
        b.def_var(next, exit32);
    }
    let zero8 = b.ins().iconst(types::I8, 0);
    let exit32 = b.ins().iconst(types::I32, EXIT);
    b.def_var(alive, zero8);
    b.def_var(sub_pending, zero8);
    let zero64 = b.ins().iconst(types::I64, 0);
    b.def_var(sub_mask, zero64);
    let lo = b.ins().iconst(types::I32, i64::from(i32::MAX));
    let hi = b.ins().iconst(types::I32, i64::from(i32::MIN));
    b.def_var(sub_lo, lo);
    b.def_var(sub_hi, hi);
    b.def_var(wg_state, exit32);
    let ls = &pro.ls;
    let nest = open_loops(b, record.then_some(pro.wi), ls, &pro.base, vector);
    let [x, y, z] = nest.lid;
    let zy = b.ins().imul(z, ls[1]);
    let zy = b.ins().iadd(zy, y);
    let zyx = b.ins().imul(zy, ls[0]);
    let linear = b.ins().iadd(zyx, x);
    let off = b.ins().imul_imm_s(linear, plan.size as i64);
    let item = b.ins().iadd(frame, off);
    let run = b.create_block();
    let after = b.create_block();
    b.append_block_param(after, types::I32);
    // The state this work-item resumes from: the group's one state, or its own.
    let st = if let Some((state, _)) = uniform {
        let st = b.use_var(state);
        b.ins().jump(run, &[]);
        st
    } else {
        let is_first = b.use_var(first);
        let saved = b
            .ins()
            .load(types::I32, trusted(), item, plan.state_off as i32);
        let zero32 = b.ins().iconst(types::I32, 0);
        let st = b.ins().select(is_first, zero32, saved);
        let rel = b.use_var(release);
        let live = b.ins().icmp_imm_s(IntCC::NotEqual, st, EXIT);
        let start = b.ins().icmp_imm_s(IntCC::Equal, st, 0);
        let sub = b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, st, SUB_GROUP_STATE);
        let not_waiting = b
            .ins()
            .icmp_imm_s(IntCC::SignedLessThan, st, SUB_GROUP_WAIT);
        let sub = b.ins().band(sub, not_waiting);
        let go = b.ins().bor(rel, start);
        let go = b.ins().bor(go, sub);
        let go = b.ins().band(go, live);
        b.ins().brif(go, run, &[], after, &[BlockArg::Value(st)]);
        st
    };
    b.switch_to_block(run);
    Round {
        nest,
        head: round,
        frame,
        first,
        release,
        alive,
        sub_pending,
        sub_mask,
        sub_lo,
        sub_hi,
        wg_state,
        state_now: st,
        item,
        after,
        uniform,
        linear,
        cross: CrossBase {
            area,
            items,
            linear,
        },
    }
}

/// Close the round from `round.after` (the builder is in it): record the work-item's
/// state, close the loop nest, then run the combine steps of the sub-group collectives
/// work-items stopped at, or of the work-group collective, and start the next round (or
/// return when every work-item has exited).
fn close_round(
    b: &mut FunctionBuilder,
    round: Round,
    plan: &FramePlan,
    ls: &[Value],
    sgs: i64,
) -> Result<()> {
    let r = b.block_params(round.after)[0];
    if let Some((state, next)) = round.uniform {
        return close_uniform_round(b, round, state, next, r, plan, ls);
    }
    b.ins()
        .store(trusted(), r, round.item, plan.state_off as i32);
    let live = b.ins().icmp_imm_s(IntCC::NotEqual, r, EXIT);
    let sub = b
        .ins()
        .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, r, SUB_GROUP_STATE);
    let a = b.use_var(round.alive);
    let a = b.ins().bor(a, live);
    b.def_var(round.alive, a);
    let sp = b.use_var(round.sub_pending);
    let sp = b.ins().bor(sp, sub);
    b.def_var(round.sub_pending, sp);
    // The boundary's rank (a waiting work-item's state has SUB_GROUP_WAIT, a multiple of
    // 64, added).
    let rank = b.ins().iadd_imm_s(r, -SUB_GROUP_STATE - 1);
    let rank = b.ins().band_imm_s(rank, 63);
    let rank = b.ins().uextend(types::I64, rank);
    let one = b.ins().iconst(types::I64, 1);
    let bit = b.ins().ishl(one, rank);
    let zero = b.ins().iconst(types::I64, 0);
    let bit = b.ins().select(sub, bit, zero);
    let m = b.use_var(round.sub_mask);
    let m = b.ins().bor(m, bit);
    b.def_var(round.sub_mask, m);
    let lo = b.use_var(round.sub_lo);
    let lo2 = b.ins().smin(lo, r);
    let lo = b.ins().select(sub, lo2, lo);
    b.def_var(round.sub_lo, lo);
    let hi = b.use_var(round.sub_hi);
    let hi2 = b.ins().smax(hi, r);
    let hi = b.ins().select(sub, hi2, hi);
    b.def_var(round.sub_hi, hi);
    let not_sub = b.ins().bxor_imm_s(sub, 1);
    let wg = b.ins().band(live, not_sub);
    let prev = b.use_var(round.wg_state);
    let w = b.ins().select(wg, r, prev);
    b.def_var(round.wg_state, w);
    let (frame, head) = (round.frame, round.head);
    close_loops(b, round.nest, false);
    let zero8 = b.ins().iconst(types::I8, 0);
    b.def_var(round.first, zero8);
    let alive = b.use_var(round.alive);
    let done = b.create_block();
    let more = b.create_block();
    b.ins().brif(alive, more, &[], done, &[]);

    b.switch_to_block(more);
    let fs = plan.size as i64;
    let subs = b.create_block();
    let wgs = b.create_block();
    let resume = b.create_block();
    let sp = b.use_var(round.sub_pending);
    b.ins().brif(sp, subs, &[], wgs, &[]);

    // Sub-group boundaries reached: their combines, and work-group boundaries wait.
    b.switch_to_block(subs);
    let lo = b.use_var(round.sub_lo);
    let hi = b.use_var(round.sub_hi);
    let one_point = b.ins().icmp(IntCC::Equal, lo, hi);
    // (Work-items all waiting at one boundary still need their marks cleared.)
    let unmarked = b
        .ins()
        .icmp_imm_s(IntCC::SignedLessThan, lo, SUB_GROUP_WAIT);
    let one_point = b.ins().band(one_point, unmarked);
    let schedule = b.create_block();
    let combines = b.create_block();
    b.ins().brif(one_point, combines, &[], schedule, &[]);
    b.switch_to_block(schedule);
    combine::emit_sub_schedule(b, frame, fs, ls, plan.state_off, sgs);
    b.ins().jump(combines, &[]);
    b.switch_to_block(combines);
    for (i, kind) in plan.points.iter().enumerate() {
        if let PointKind::Collective(c) = kind {
            if c.sub {
                let st = plan.state(i);
                let m = b.use_var(round.sub_mask);
                let hit = b
                    .ins()
                    .band_imm_s(m, 1 << ((st - SUB_GROUP_STATE - 1) & 63));
                let run = b.create_block();
                let next = b.create_block();
                b.ins().brif(hit, run, &[], next, &[]);
                b.switch_to_block(run);
                combine::emit_sub(b, c, st, frame, fs, ls, plan.state_off, sgs)?;
                b.ins().jump(next, &[]);
                b.switch_to_block(next);
            }
        }
    }
    let zero8 = b.ins().iconst(types::I8, 0);
    b.def_var(round.release, zero8);
    b.ins().jump(head, &[]);

    // Every live work-item is at one work-group boundary: its combine, then release.
    b.switch_to_block(wgs);
    let one8 = b.ins().iconst(types::I8, 1);
    b.def_var(round.release, one8);
    let n = b.use_var(round.wg_state);
    let mut sw = Switch::new();
    let mut combines = Vec::new();
    for (i, kind) in plan.points.iter().enumerate() {
        if let PointKind::Collective(c) = kind {
            if !c.sub {
                let blk = b.create_block();
                sw.set_entry(plan.state(i) as u128, blk);
                combines.push((blk, *c));
            }
        }
    }
    sw.emit(b, n, resume);
    for (blk, c) in combines {
        b.switch_to_block(blk);
        combine::emit(b, &c, frame, fs, ls)?;
        b.ins().jump(resume, &[]);
    }
    b.switch_to_block(resume);
    b.ins().jump(head, &[]);

    b.switch_to_block(done);
    b.ins().return_(&[]);
    Ok(())
}

/// [`close_round`] of a kernel without sub-group boundaries: every work-item of a group
/// reaches the same boundary (uniform control flow is a precondition of barriers and
/// work-group collectives), so the state work-item 0 reaches is the next round's and the
/// others are not checked; that boundary's combine runs before the next round, and the
/// round after which work-item 0 exits is the last.
fn close_uniform_round(
    b: &mut FunctionBuilder,
    round: Round,
    state: Variable,
    next: Variable,
    r: Value,
    plan: &FramePlan,
    ls: &[Value],
) -> Result<()> {
    let first = b.ins().icmp_imm_s(IntCC::Equal, round.linear, 0);
    let prev = b.use_var(next);
    let n = b.ins().select(first, r, prev);
    b.def_var(next, n);
    let (frame, head) = (round.frame, round.head);
    close_loops(b, round.nest, false);
    let n = b.use_var(next);
    let done = b.create_block();
    let dispatch = b.create_block();
    let resume = b.create_block();
    let is_exit = b.ins().icmp_imm_s(IntCC::Equal, n, EXIT);
    b.ins().brif(is_exit, done, &[], dispatch, &[]);

    b.switch_to_block(dispatch);
    let fs = plan.size as i64;
    let mut sw = Switch::new();
    let mut combines = Vec::new();
    for (i, kind) in plan.points.iter().enumerate() {
        if let PointKind::Collective(c) = kind {
            let blk = b.create_block();
            sw.set_entry(plan.state(i) as u128, blk);
            combines.push((blk, *c));
        }
    }
    sw.emit(b, n, resume);
    for (blk, c) in combines {
        b.switch_to_block(blk);
        combine::emit(b, &c, frame, fs, ls)?;
        b.ins().jump(resume, &[]);
    }
    b.switch_to_block(resume);
    b.def_var(state, n);
    b.ins().jump(head, &[]);

    b.switch_to_block(done);
    b.ins().return_(&[]);
    Ok(())
}
