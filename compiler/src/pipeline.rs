//! The compile steps from a lifted module to one kernel's native work-group function, in
//! the order they run (see `docs/architecture.md`, "compiler"):
//!
//! 1. **Lift and decode** (once per module, before any kernel): `spirv::Program::parse`
//!    lifts rspirv's module into typed tables and decodes every instruction once
//!    ([`crate::ir::Inst`]).
//! 2. **Reach** ([`reach`]): the functions the kernel calls, and whether it prints.
//! 3. **Split** ([`split`]): a kernel with work-group boundaries (one table says what a
//!    boundary is: `workgroup::regions::is_boundary`) is inlined and split at them;
//!    `codegen::regions::plan` gives its frame plan (the slots of values live across a
//!    boundary, one per group for uniform values).
//! 4. **Lay out** ([`lay_out_local`]): the `__local` variables the kernel uses.
//! 5. **Choose** ([`choose_shape`]): how the work-group function runs the work-items: a
//!    call per work-item (the reference), the body or its steps inside the loop nest.
//!    Inside `workgroup::build` the vectoriser analyses the kernel (`analysis/`) and takes
//!    it at the widest width it fits (`workgroup/vector/width.rs`) or says why not; the
//!    result is the kernel's [`crate::Handler`].
//! 6. **Emit**: translate the functions the work-group function calls (`codegen`), build
//!    it (`workgroup::build`), and finish the JIT module (`jit`).

use crate::codegen::{self, regions, Env, Result};
use crate::jit;
use crate::layout::{align_up, layout};
use crate::spirv::{EntryPoint, Program};
use crate::workgroup::regions::Split;
use crate::workgroup::Shape;
use crate::{check, KernelInfo};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_module::{Linkage, Module as _};
use rspirv::spirv::{Op, StorageClass, Word};
use std::collections::{HashMap, HashSet};

/// The result of compiling one kernel.
pub struct Output {
    pub entry: crate::WorkGroupFn,
    pub code: jit::Code,
    pub static_local_size: u64,
    pub private_size: u64,
    /// Bytes of frame per work-item (0 for a kernel without boundaries).
    pub frame_size: u64,
    /// The kernel (or a function it calls) calls `printf`.
    pub uses_printf: bool,
    /// The kernel never sees how its work-items are grouped ([`group_blind`]).
    pub group_blind: bool,
    pub handler: crate::Handler,
    /// Checked mode: what the runtime needs to check a launch.
    pub check: crate::check::KernelCheck,
}

/// What the kernel reaches.
pub struct Reach {
    /// The functions reachable from the kernel, the kernel first.
    pub funcs: Vec<Word>,
    pub uses_printf: bool,
    pub group_blind: bool,
}

/// Step 2: the functions `ep` calls, transitively (recursion is an error).
pub fn reach(p: &Program, ep: &EntryPoint) -> Result<Reach> {
    let funcs = codegen::reachable(p, ep.func)?;
    let uses_printf = calls_printf(p, &funcs)?;
    let group_blind = group_blind(p, &funcs)?;
    Ok(Reach {
        funcs,
        uses_printf,
        group_blind,
    })
}

/// Step 3: a kernel with work-group boundaries split at them, with the functions inlined
/// into its steps (`None` without boundaries). Every function it calls is inlined, so each
/// region is whole for the analyses and the vectoriser (`workgroup/vector.rs`); if that
/// grows too large, only the functions that contain a boundary are.
pub fn split(
    p: &Program,
    ep: &EntryPoint,
    reach: &Reach,
) -> Result<Option<(Split, HashSet<Word>)>> {
    let boundary_funcs = crate::workgroup::regions::with_boundaries(p, &reach.funcs)?;
    if !boundary_funcs.contains(&ep.func) {
        return Ok(None);
    }
    let all: HashSet<Word> = reach.funcs.iter().copied().collect();
    Ok(Some(
        match crate::workgroup::regions::split(p, ep.func, &all) {
            Ok(s) => (s, all),
            Err(_) => (
                crate::workgroup::regions::split(p, ep.func, &boundary_funcs)?,
                boundary_funcs,
            ),
        },
    ))
}

/// Step 4: the `Workgroup` variables the kernel uses get their offsets in local memory, in
/// declaration order (a variable whose address a constant holds counts as used).
pub fn lay_out_local(env: &mut Env, funcs: &[Word]) -> Result<()> {
    let p = env.p;
    let mut used = HashSet::new();
    for f in funcs {
        for b in &p.function(*f)?.blocks {
            for i in &b.insts {
                for o in &i.operands {
                    if let rspirv::dr::Operand::IdRef(id) = o {
                        used.insert(*id);
                        p.const_refs(*id, &mut used, 0);
                    }
                }
            }
        }
    }
    let mut off = 0u64;
    for g in &p.global_order {
        let Some(gl) = p.globals.get(g) else { continue };
        if gl.class == StorageClass::Workgroup && used.contains(g) {
            let l = layout(p, gl.pointee)?;
            off = align_up(off, l.align);
            env.local_offsets.insert(*g, off);
            off += l.size;
        }
    }
    env.static_local_size = align_up(off, 16);
    env.check_local |= env.static_local_size > 0;
    Ok(())
}

/// Step 5: whether the kernel's body (or its steps) is translated inside the work-group
/// function's loop nest (the default), or called once per work-item (the reference shape).
/// Explicit generic casts (`to_private`) work in both: a work-item's private memory is
/// bounded by the work-group function's frame pointer (`codegen::WI_STACK`).
pub fn inline_body(reference: bool) -> bool {
    !reference
}

/// Step 5: the shape of the work-group function, from the split and the choice above.
pub fn choose_shape<'a>(
    split: Option<(&'a Split, &'a regions::FramePlan)>,
    sub_lanes: Option<&'a (Split, regions::FramePlan)>,
    inline: bool,
    step: impl FnOnce() -> Result<cranelift_module::FuncId>,
) -> Result<Shape<'a>> {
    Ok(match split {
        Some((split, plan)) if inline => Shape::InlineSteps {
            split,
            plan,
            sub_lanes: sub_lanes.map(|(s, p)| (s, p)),
        },
        Some((_, plan)) => Shape::Steps {
            step: step()?,
            plan,
        },
        None if inline => Shape::Inline,
        None => Shape::Call,
    })
}

/// A kernel with both sub-group and work-group boundaries, split at its work-group ones
/// alone, with that split's frame plan: where rows are whole sub-groups, its regions run
/// as vector iterations of one sub-group each, the sub-group operations in registers
/// (`workgroup/vector/subgroup.rs`). `None` when the kernel has not both kinds or the
/// split fails (the regions of `split` run it then).
fn sub_group_lanes_split(
    p: &Program,
    ep: &EntryPoint,
    inlined: &HashSet<Word>,
    plan: &regions::FramePlan,
) -> Option<(Split, regions::FramePlan)> {
    let sub = plan.points.iter().any(regions::PointKind::sub);
    let wg = plan.points.iter().any(|k| !k.sub());
    if !(sub && wg && crate::codegen::vectorize()) {
        return None;
    }
    let s = crate::workgroup::regions::split_at(p, ep.func, inlined, |i| {
        crate::workgroup::regions::is_work_group_point(p, i)
    })
    .ok()?;
    let pl = regions::plan(p, &s).ok()?;
    Some((s, pl))
}

/// Compile the kernel `ep` into a work-group function: steps 2 to 6.
pub fn compile(
    p: &Program,
    ep: &EntryPoint,
    info: &KernelInfo,
    global_addr: &HashMap<Word, u64>,
    reference: bool,
    lanes: Option<usize>,
) -> Result<Output> {
    let reach = reach(p, ep)?;
    let split = split(p, ep, &reach)?;
    let plan = match &split {
        Some((s, _)) => Some(regions::plan(p, s)?),
        None => None,
    };

    let isa = jit::host_isa()?;
    let (module, code_ranges) = jit::new_recorded(isa)?;
    let mut env = Env::new(
        p,
        module,
        global_addr,
        ep.sub_group_size.unwrap_or(crate::DEFAULT_SUB_GROUP_SIZE),
        lanes,
        ep.func,
        info.args.iter().any(|a| a.kind == crate::ArgKind::Local),
    );
    lay_out_local(&mut env, &reach.funcs)?;
    let inline = inline_body(reference);

    // Step 6: the functions the work-group function calls. In a kernel with boundaries
    // every function inlined into the steps is not one of them; an inlined kernel is not
    // a function of its own.
    let funcs: Vec<Word> = match &split {
        Some((_, inlined)) => reach
            .funcs
            .iter()
            .copied()
            .filter(|f| !inlined.contains(f))
            .collect(),
        None if inline => reach
            .funcs
            .iter()
            .copied()
            .filter(|f| *f != ep.func)
            .collect(),
        None => reach.funcs.clone(),
    };
    for f in &funcs {
        let func = p.function(*f)?;
        let sig = env.signature(func)?;
        let id = env
            .module
            .declare_function(&format!("spv_{f}"), Linkage::Local, &sig)
            .map_err(codegen::codegen_err)?;
        env.funcs.insert(*f, id);
    }
    let mut ctx = env.module.make_context();
    let mut fbc = FunctionBuilderContext::new();
    for f in &funcs {
        codegen::translate_function(&mut env, *f, &mut ctx, &mut fbc)?;
    }
    let sub_lanes = match (&split, &plan) {
        (Some((_, inlined)), Some(pl)) if inline => sub_group_lanes_split(p, ep, inlined, pl),
        _ => None,
    };
    let split_plan = split.as_ref().map(|(s, _)| s).zip(plan.as_ref());
    let shape = choose_shape(split_plan, sub_lanes.as_ref(), inline, || {
        let (s, plan) = split_plan
            .ok_or_else(|| crate::CompileError::Codegen("a step without a split kernel".into()))?;
        codegen::translate_step(&mut env, s, plan, &mut ctx, &mut fbc)
    })?;
    let wg = crate::workgroup::build(&mut env, ep, info, shape, &mut ctx, &mut fbc)?;

    let static_local_size = env.static_local_size;
    let (private_size, frame_size) = match (&plan, &sub_lanes) {
        (Some(plan), Some((_, lanes))) => (
            env.private_size + plan.private_size.max(lanes.private_size),
            (plan.size + plan.cross_size).max(lanes.size + lanes.cross_size),
        ),
        (Some(plan), None) => (
            env.private_size + plan.private_size,
            plan.size + plan.cross_size,
        ),
        (None, _) => (env.private_size, 0),
    };
    let handler = env.handler.clone();
    if codegen::dump_clif() {
        eprintln!(
            "; ferrite: kernel {}: {} lane(s): {}",
            info.name, handler.lanes, handler.note
        );
    }
    let check = check::KernelCheck {
        mode: check::mode(),
        sites: std::mem::take(&mut env.check_sites),
        local_vars: env
            .local_offsets
            .iter()
            .map(|(id, off)| {
                let size = p
                    .globals
                    .get(id)
                    .and_then(|g| layout(p, g.pointee).ok())
                    .map_or(0, |l| l.size);
                let name = p.names.get(id).cloned().unwrap_or_else(|| format!("%{id}"));
                (*off, size, name)
            })
            .collect(),
        program: (0, 0),
    };
    let (entry, code) = jit::finish(env.module, &code_ranges, wg)?;
    Ok(Output {
        check,
        entry,
        code,
        static_local_size,
        private_size,
        frame_size,
        uses_printf: reach.uses_printf,
        group_blind: reach.group_blind,
        handler,
    })
}

/// A function compiled on its own for `zeModuleGetFunctionPointer`, called through a
/// pointer (`OpFunctionPointerCallINTEL`) with the calling convention of Ferrite's own
/// calls: its parameters flattened, then the caller's work-item record.
pub struct FunctionOutput {
    pub addr: *const u8,
    pub code: jit::Code,
}

/// Compile function `f` and the functions it calls into a module of their own. Refused
/// (`CompileError::Unsupported`) when it reaches what only a kernel can give it: a
/// work-group boundary, `__local` variables, `printf`, or private memory.
pub fn compile_function(
    p: &Program,
    f: Word,
    global_addr: &HashMap<Word, u64>,
) -> Result<FunctionOutput> {
    let funcs = codegen::reachable(p, f)?;
    let name = || {
        p.function(f)
            .map(|func| func.name.clone())
            .unwrap_or_default()
    };
    let refuse = |what: &str| {
        crate::CompileError::Unsupported(format!(
            "function {} called through a pointer {what}",
            name()
        ))
    };
    for g in &funcs {
        for b in &p.function(*g)?.blocks {
            if b.insts
                .iter()
                .any(|i| crate::workgroup::regions::is_boundary(i.class.opcode))
            {
                return Err(refuse("reaches a work-group boundary"));
            }
        }
    }
    if calls_printf(p, &funcs)? {
        return Err(refuse("calls printf"));
    }
    let isa = jit::host_isa()?;
    let (module, code_ranges) = jit::new_recorded(isa)?;
    // No kernel: 0 is no SPIR-V id.
    let mut env = Env::new(
        p,
        module,
        global_addr,
        crate::DEFAULT_SUB_GROUP_SIZE,
        None,
        0,
        false,
    );
    lay_out_local(&mut env, &funcs)?;
    if env.static_local_size > 0 {
        return Err(refuse("uses __local variables"));
    }
    for g in &funcs {
        let sig = env.signature(p.function(*g)?)?;
        let id = env
            .module
            .declare_function(&format!("spv_{g}"), Linkage::Local, &sig)
            .map_err(codegen::codegen_err)?;
        env.funcs.insert(*g, id);
    }
    let mut ctx = env.module.make_context();
    let mut fbc = FunctionBuilderContext::new();
    for g in &funcs {
        codegen::translate_function(&mut env, *g, &mut ctx, &mut fbc)?;
    }
    if env.private_size > 0 {
        return Err(refuse("needs private memory"));
    }
    let root = env.funcs[&f];
    let (addr, code) = jit::finish_function(env.module, &code_ranges, root)?;
    Ok(FunctionOutput { addr, code })
}

/// Does any of `funcs` call `printf` (`OpExtInst OpenCL.std printf`)?
/// Whether nothing in `funcs` can tell how the work-items are grouped: the only work-item
/// builtins read are the global ones (id, size, offset, linear id, dimensions), and no
/// instruction works on a group or sub-group or calls through a function pointer (whose
/// callee this scan does not see). Such a kernel's groups are only batches of work
/// (with no `__local` memory and no barrier, which the runtime checks apart): the runtime
/// may run it with groups of its own choosing (`runtime/src/executor.rs`).
fn group_blind(p: &Program, funcs: &[Word]) -> Result<bool> {
    use rspirv::spirv::BuiltIn;
    let mut ops: HashMap<Op, bool> = HashMap::new();
    for f in funcs {
        for b in &p.function(*f)?.blocks {
            for i in &b.insts {
                let op = i.class.opcode;
                let grouped = *ops.entry(op).or_insert_with(|| {
                    let name = format!("{op:?}");
                    name.contains("Group") || name.contains("FunctionPointer")
                });
                if grouped {
                    return Ok(false);
                }
                for o in &i.operands {
                    let rspirv::dr::Operand::IdRef(id) = o else {
                        continue;
                    };
                    let global = matches!(
                        p.builtin_of(*id),
                        None | Some(
                            BuiltIn::GlobalInvocationId
                                | BuiltIn::GlobalSize
                                | BuiltIn::GlobalOffset
                                | BuiltIn::GlobalLinearId
                                | BuiltIn::WorkDim
                        )
                    );
                    if !global {
                        return Ok(false);
                    }
                }
            }
        }
    }
    Ok(true)
}

fn calls_printf(p: &Program, funcs: &[Word]) -> Result<bool> {
    let printf = rspirv::spirv::OpenclStd100Op::printf as u32;
    for f in funcs {
        for b in &p.function(*f)?.blocks {
            for i in &b.insts {
                if i.class.opcode == Op::ExtInst
                    && matches!(
                        i.operands.get(1),
                        Some(rspirv::dr::Operand::LiteralExtInstInteger(n)) if *n == printf
                    )
                {
                    return Ok(true);
                }
            }
        }
    }
    Ok(false)
}
