//! Translation of SPIR-V functions into Cranelift IR.
//!
//! Every reachable SPIR-V function becomes one Cranelift function whose parameters are the
//! SPIR-V parameters *flattened* into scalars (a `float4` is four `f32`s, a struct its
//! members, pointers `i64` absolute addresses), followed by one hidden `i64`: the address of
//! the calling work-item's [`WorkItem`](crate::workgroup) record, through which builtins
//! (`get_global_id`, local memory base, …) are answered. Return values are flattened the
//! same way. Vectors are scalarised: a SPIR-V value is a [`Val`] tree of Cranelift scalars.
//!
//! Blocks: every SPIR-V block gets its Cranelift block up front; blocks are translated in
//! reverse post-order (so definitions come before uses whatever the module's block order),
//! unreachable blocks are dropped. `OpPhi`s become Cranelift variables defined by each
//! predecessor just before its branch, which lets `OpSwitch` use `cranelift_frontend::Switch`
//! without edge blocks. Merge instructions are ignored (llvm-spirv's are not always valid).
//!
//! Integer representation: `iN` lives in the smallest of `i8/i16/i32/i64` that holds it,
//! zero-extended ("canonical"); operations that care re-sign-extend and re-mask.
//! Booleans are `i8` 0/1.
//!
//! Barriers: a kernel that (transitively) contains a work-group boundary (barrier,
//! collective, `wait_group_events`) is inlined and split by `workgroup::regions` and
//! translated once more as a *step* function ([`regions`]): the same translator, with the
//! values live across boundaries kept in the work-item's frame.
//!
//! Inline mode ([`Inline`]): the kernel (or its step) is not a function of its own but is
//! translated by the same translator inside the work-group function's loop nest
//! (`workgroup.rs`), builtins answered from SSA values, small or single-use callees
//! translated in place (`inline.rs`). The per-function shape above stays the reference
//! (`Module::compile_kernel_reference`) and serves the functions that are still called.
//!
//! `FERRITE_DUMP_CLIF=1` prints each function's Cranelift IR to stderr as it is defined;
//! `FERRITE_DUMP_CLIF=asm` also its machine code.

pub(crate) mod arith;
pub(crate) mod atomic;
mod builtins_ids;
pub(crate) mod check;
mod clock;
mod composite;
mod control;
pub(crate) mod convert;
pub mod dot;
mod ext_extra;
pub(crate) mod ext_memory;
pub(crate) mod extinst;
pub(crate) mod float_fns;
pub(crate) mod geometric;
pub(crate) mod group;
pub(crate) mod half;
pub(crate) mod image;
mod inline;
pub(crate) mod int_fns;
mod memory;
pub mod regions;

pub use builtins_ids::{WI_CTX, WI_FRAME_HI, WI_FRAME_LO, WI_GID, WI_LID, WI_SIZE, WI_STACK};
pub use memory::load_typed;

use crate::ir::Inst;
use crate::spirv::{op_id, result_id, result_type, Constant, Program, Type};
use crate::{CompileError, GroupContext};
use cranelift_codegen::ir::{
    self, types, InstBuilder, MemFlagsData, Signature, UserFuncName, Value,
};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Linkage, Module as _};
use rspirv::dr::Instruction;
use rspirv::spirv::{BuiltIn, Op, StorageClass, Word};
use std::collections::{HashMap, HashSet};

pub type Result<T> = std::result::Result<T, CompileError>;

/// Most scalars one SPIR-V value may flatten into (a guard against huge SSA arrays).
const MAX_FLAT: usize = 1024;

/// A SPIR-V value as Cranelift scalars: a scalar, or a composite (vector, array, struct).
#[derive(Clone, Debug)]
pub enum Val {
    S(Value),
    C(Vec<Val>),
}

impl Val {
    pub fn scalar(&self) -> Result<Value> {
        match self {
            Val::S(v) => Ok(*v),
            Val::C(_) => Err(CompileError::Invalid(
                "composite value where a scalar is required".into(),
            )),
        }
    }

    pub fn flatten(&self, out: &mut Vec<Value>) {
        match self {
            Val::S(v) => out.push(*v),
            Val::C(parts) => parts.iter().for_each(|p| p.flatten(out)),
        }
    }

    pub fn flat(&self) -> Vec<Value> {
        let mut v = Vec::new();
        self.flatten(&mut v);
        v
    }
}

/// Cranelift type holding an integer of `width` bits.
pub fn int_clif(width: u32) -> Result<ir::Type> {
    Ok(match width {
        1..=8 => types::I8,
        9..=16 => types::I16,
        17..=32 => types::I32,
        33..=64 => types::I64,
        _ => return Err(CompileError::Unsupported(format!("{width}-bit integers"))),
    })
}

pub fn is_native(width: u32) -> bool {
    matches!(width, 8 | 16 | 32 | 64)
}

/// The Cranelift type of a scalar (or pointer) SPIR-V type.
pub fn clif_scalar(p: &Program, ty: Word) -> Result<ir::Type> {
    match p.ty(ty)? {
        Type::Bool => Ok(types::I8),
        Type::Int { width, .. } => int_clif(*width),
        Type::Float { width: 32 } => Ok(types::F32),
        Type::Float { width: 64 } => Ok(types::F64),
        // A half lives in an `f32` that holds a binary16 value (`half.rs`).
        Type::Float { width: 16 } => Ok(types::F32),
        Type::Float { width } => Err(CompileError::Unsupported(format!(
            "{width}-bit floating point"
        ))),
        Type::Pointer { .. } => Ok(types::I64),
        // Events of async copies carry no meaning (`codegen/group.rs`).
        Type::Opaque("event_t") => Ok(types::I64),
        // An image is its descriptor's address, a sampler its bits (`codegen/image.rs`).
        Type::Image(_) | Type::Sampler => Ok(types::I64),
        _ => Err(CompileError::InvalidId {
            id: ty,
            expected: "scalar type",
        }),
    }
}

/// The scalar Cranelift types a value of `ty` flattens into.
pub fn flat_types(p: &Program, ty: Word, out: &mut Vec<ir::Type>) -> Result<()> {
    if out.len() > MAX_FLAT {
        return Err(CompileError::Unsupported(
            "SSA values with more than 1024 scalars".into(),
        ));
    }
    match p.ty(ty)? {
        Type::Vector { elem, count } => {
            let t = clif_scalar(p, *elem)?;
            out.extend(std::iter::repeat_n(t, *count as usize));
        }
        Type::Array { elem, len } => {
            if *len as usize > MAX_FLAT {
                return Err(CompileError::Unsupported(
                    "SSA values with more than 1024 scalars".into(),
                ));
            }
            for _ in 0..*len {
                flat_types(p, *elem, out)?;
            }
        }
        Type::Struct { members, .. } => {
            for m in members {
                flat_types(p, *m, out)?;
            }
        }
        // The image and the sampler.
        Type::SampledImage { .. } => out.extend([types::I64, types::I64]),
        _ => out.push(clif_scalar(p, ty)?),
    }
    Ok(())
}

/// Rebuild a value of `ty` from flattened scalars.
pub fn unflatten(p: &Program, ty: Word, it: &mut dyn Iterator<Item = Value>) -> Result<Val> {
    let missing = || CompileError::Codegen("too few scalars to rebuild a value".into());
    Ok(match p.ty(ty)? {
        Type::Vector { count, .. } => {
            let mut v = Vec::new();
            for _ in 0..*count {
                v.push(Val::S(it.next().ok_or_else(missing)?));
            }
            Val::C(v)
        }
        Type::Array { elem, len } => {
            let mut v = Vec::new();
            for _ in 0..*len {
                v.push(unflatten(p, *elem, it)?);
            }
            Val::C(v)
        }
        Type::Struct { members, .. } => {
            let mut v = Vec::new();
            for m in members {
                v.push(unflatten(p, *m, it)?);
            }
            Val::C(v)
        }
        Type::SampledImage { .. } => {
            let image = Val::S(it.next().ok_or_else(missing)?);
            Val::C(vec![image, Val::S(it.next().ok_or_else(missing)?)])
        }
        _ => Val::S(it.next().ok_or_else(missing)?),
    })
}

/// The element type of a vector type, or the type itself.
pub fn elem_of(p: &Program, ty: Word) -> Result<Word> {
    Ok(match p.ty(ty)? {
        Type::Vector { elem, .. } => *elem,
        _ => ty,
    })
}

pub fn trusted() -> MemFlagsData {
    MemFlagsData::trusted()
}

pub(crate) fn codegen_err(e: impl std::fmt::Display) -> CompileError {
    CompileError::Codegen(e.to_string())
}

/// Per-kernel compilation state shared by all function translations: the answers to the
/// runtime questions (where globals live, local-memory offsets, callees, builtins).
pub struct Env<'p> {
    pub p: &'p Program,
    pub module: JITModule,
    pub funcs: HashMap<Word, FuncId>,
    pub builtin_funcs: HashMap<&'static str, FuncId>,
    /// Absolute addresses of `CrossWorkgroup`/`UniformConstant` module-scope variables.
    pub global_addr: &'p HashMap<Word, u64>,
    /// Offsets of `Workgroup` variables in `ctx.local_mem`.
    pub local_offsets: HashMap<Word, u64>,
    pub static_local_size: u64,
    pub private_size: u64,
    /// How the work-group function runs the work-items (set by `workgroup::build`).
    pub handler: crate::Handler,
    /// The kernel's work-items per sub-group (one of [`crate::SUB_GROUP_SIZES`]).
    pub sub_group_size: u32,
    /// The vector width asked for (tests), instead of the vectoriser's choice.
    pub lanes: Option<usize>,
    /// Checked mode: every access site checked so far (`check.rs`).
    pub check_sites: Vec<crate::check::Site>,
    /// The kernel's entry function (checked mode: its pointer parameters are arguments).
    pub kernel_func: Word,
    /// The kernel has local memory (checked mode: the race detector's shadow is needed).
    pub check_local: bool,
}

impl<'p> Env<'p> {
    /// The state of a new compilation of `p` into `module`: nothing declared, laid out or
    /// checked yet, one lane until `workgroup::build` chooses.
    pub fn new(
        p: &'p Program,
        module: JITModule,
        global_addr: &'p HashMap<Word, u64>,
        sub_group_size: u32,
        lanes: Option<usize>,
        kernel_func: Word,
        check_local: bool,
    ) -> Env<'p> {
        Env {
            p,
            module,
            funcs: HashMap::new(),
            builtin_funcs: HashMap::new(),
            global_addr,
            local_offsets: HashMap::new(),
            static_local_size: 0,
            private_size: 0,
            handler: crate::Handler {
                lanes: 1,
                note: String::new(),
            },
            sub_group_size,
            lanes,
            check_sites: Vec::new(),
            kernel_func,
            check_local,
        }
    }
}

impl Env<'_> {
    /// A reference from `func` to built-in `bi` (declared in the module once).
    pub fn builtin_ref(
        &mut self,
        func: &mut ir::Function,
        bi: &crate::builtins::Builtin,
    ) -> Result<ir::FuncRef> {
        let fid = if let Some(id) = self.builtin_funcs.get(bi.name) {
            *id
        } else {
            let mut sig = self.module.make_signature();
            let conv = |t: crate::builtins::BTy| match t {
                crate::builtins::BTy::F32 => types::F32,
                crate::builtins::BTy::F64 => types::F64,
                crate::builtins::BTy::I32 => types::I32,
                crate::builtins::BTy::I64 => types::I64,
            };
            sig.params
                .extend(bi.params.iter().map(|t| ir::AbiParam::new(conv(*t))));
            sig.returns.push(ir::AbiParam::new(conv(bi.ret)));
            let id = self
                .module
                .declare_function(bi.name, Linkage::Import, &sig)
                .map_err(codegen_err)?;
            self.builtin_funcs.insert(bi.name, id);
            id
        };
        Ok(self.module.declare_func_in_func(fid, func))
    }

    /// A reference from `func` to the run-time hook `name` (`fn(i64 × params) -> i64`,
    /// checked mode's `crate::check::symbols`), declared in the module once.
    pub(crate) fn hook_ref(
        &mut self,
        func: &mut ir::Function,
        name: &'static str,
        params: usize,
    ) -> Result<ir::FuncRef> {
        let fid = match self.builtin_funcs.get(name) {
            Some(id) => *id,
            None => {
                let mut sig = self.module.make_signature();
                sig.params
                    .extend(std::iter::repeat_n(ir::AbiParam::new(types::I64), params));
                sig.returns.push(ir::AbiParam::new(types::I64));
                let id = self
                    .module
                    .declare_function(name, Linkage::Import, &sig)
                    .map_err(codegen_err)?;
                self.builtin_funcs.insert(name, id);
                id
            }
        };
        Ok(self.module.declare_func_in_func(fid, func))
    }

    /// A reference from `func` to the whole-vector math entry point `vb`
    /// (`fn(inputs: *const f32…, out: *mut f32…)`, `builtins/vector.rs`).
    pub fn vector_builtin_ref(
        &mut self,
        func: &mut ir::Function,
        vb: &crate::builtins::vector::VectorBuiltin,
    ) -> Result<ir::FuncRef> {
        let params = (0..vb.inputs + vb.outputs).map(|_| ir::AbiParam::new(types::I64));
        self.import_ref(func, vb.name, params)
    }

    /// The register form `r` of a 16-lane entry point of `inputs` arguments
    /// (`builtins/vector.rs`): [`regs_params`].
    pub fn vector_regs_ref(
        &mut self,
        func: &mut ir::Function,
        r: &crate::builtins::vector::Regs,
        inputs: u32,
    ) -> Result<ir::FuncRef> {
        self.import_ref(func, r.name, regs_params(inputs))
    }

    /// The function `name` of the JIT's symbols, taking `params` and returning nothing,
    /// declared in the module once.
    fn import_ref(
        &mut self,
        func: &mut ir::Function,
        name: &'static str,
        params: impl Iterator<Item = ir::AbiParam>,
    ) -> Result<ir::FuncRef> {
        let fid = if let Some(id) = self.builtin_funcs.get(name) {
            *id
        } else {
            let mut sig = self.module.make_signature();
            sig.params.extend(params);
            let id = self
                .module
                .declare_function(name, Linkage::Import, &sig)
                .map_err(codegen_err)?;
            self.builtin_funcs.insert(name, id);
            id
        };
        Ok(self.module.declare_func_in_func(fid, func))
    }

    pub fn signature(&self, f: &crate::spirv::Function) -> Result<Signature> {
        let mut sig = self.module.make_signature();
        let mut tys = Vec::new();
        for prm in &f.params {
            flat_types(self.p, prm.ty, &mut tys)?;
        }
        tys.push(types::I64);
        sig.params.extend(tys.into_iter().map(ir::AbiParam::new));
        if !matches!(self.p.ty(f.ret)?, Type::Void) {
            let mut rets = Vec::new();
            flat_types(self.p, f.ret, &mut rets)?;
            sig.returns.extend(rets.into_iter().map(ir::AbiParam::new));
        }
        Ok(sig)
    }
}

/// Successor labels of a block (for the region analyses).
pub fn control_successors(b: &crate::spirv::Block) -> Result<Vec<Word>> {
    control::successors(b)
}

/// Functions reachable from `root` through `OpFunctionCall`, `root` first; recursion is an
/// error (the OpenCL environment forbids it).
pub(crate) fn reachable(p: &Program, root: Word) -> Result<Vec<Word>> {
    fn visit(
        p: &Program,
        f: Word,
        stack: &mut Vec<Word>,
        done: &mut HashSet<Word>,
        out: &mut Vec<Word>,
    ) -> Result<()> {
        if stack.contains(&f) {
            return Err(CompileError::Invalid(format!(
                "recursive call to {}",
                p.function(f)?.name
            )));
        }
        if !done.insert(f) {
            return Ok(());
        }
        let func = p.function(f)?;
        if func.blocks.is_empty() {
            return Err(CompileError::Unsupported(format!(
                "call to external function {}",
                func.name
            )));
        }
        out.push(f);
        stack.push(f);
        for b in &func.blocks {
            for i in &b.insts {
                if i.class.opcode == Op::FunctionCall {
                    visit(p, op_id(i, 0)?, stack, done, out)?;
                }
            }
        }
        stack.pop();
        Ok(())
    }
    let mut out = Vec::new();
    visit(p, root, &mut Vec::new(), &mut HashSet::new(), &mut out)?;
    Ok(out)
}

/// `FERRITE_DUMP_CLIF=1`: print every function's Cranelift IR to stderr before it is
/// compiled.
pub(crate) fn dump_clif() -> bool {
    static DUMP: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DUMP
        .get_or_init(|| std::env::var("FERRITE_DUMP_CLIF").is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// `FERRITE_VECTORIZE=0`: every kernel runs its work-items one at a time (the scalar
/// shapes), to compare speeds or to rule the vectoriser out when a result looks wrong.
/// Checked mode vectorises too (`workgroup/vector/check.rs`).
pub(crate) fn vectorize() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("FERRITE_VECTORIZE").map_or(true, |v| v != "0"))
}

/// Verify (debug builds) and define a finished Cranelift function.
pub fn define(env: &mut Env, id: FuncId, ctx: &mut Context) -> Result<()> {
    if dump_clif() {
        let name = env.module.declarations().get_function_decl(id).name.clone();
        eprintln!(
            "; ferrite: {}\n{}",
            name.unwrap_or_default(),
            ctx.func.display()
        );
    }
    if cfg!(debug_assertions) {
        if let Err(e) = cranelift_codegen::verifier::verify_function(&ctx.func, env.module.isa()) {
            return Err(CompileError::Codegen(format!(
                "verifier: {e}\n{}",
                ctx.func.display()
            )));
        }
    }
    let asm = dump_asm();
    if asm {
        ctx.set_disasm(true);
    }
    let r = env.module.define_function(id, ctx);
    if let Err(e) = r {
        let msg = format!("{e:?}\n{}", ctx.func.display());
        env.module.clear_context(ctx);
        return Err(CompileError::Codegen(msg));
    }
    if asm {
        if let Some(code) = ctx.compiled_code().and_then(|c| c.vcode.as_deref()) {
            eprintln!("; ferrite: machine code\n{code}");
        }
    }
    env.module.clear_context(ctx);
    Ok(())
}

/// `FERRITE_DUMP_CLIF=asm`: also print each function's machine code as Cranelift lowered
/// it (its listing of the instructions, with registers and block labels), for reading a
/// kernel's inner loop.
fn dump_asm() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("FERRITE_DUMP_CLIF").is_ok_and(|v| v == "asm"))
}

pub(crate) fn translate_function(
    env: &mut Env,
    fid: Word,
    ctx: &mut Context,
    fbc: &mut FunctionBuilderContext,
) -> Result<()> {
    let p = env.p;
    let f = p.function(fid)?;
    let id = *env.funcs.get(&fid).ok_or(CompileError::InvalidId {
        id: fid,
        expected: "function",
    })?;
    env.module.clear_context(ctx);
    ctx.func.signature = env.signature(f)?;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let res = {
        let b = FunctionBuilder::new(&mut ctx.func, fbc);
        let mut tx = FnTx::new(env, b, f);
        let r = tx.run();
        tx.finish(r)
    };
    if let Err(e) = res {
        env.module.clear_context(ctx);
        *fbc = FunctionBuilderContext::new();
        return Err(e);
    }
    define(env, id, ctx)
}

/// Translate the split kernel into its step function (see [`regions`]).
pub(crate) fn translate_step<'p>(
    env: &mut Env<'p>,
    split: &'p crate::workgroup::regions::Split,
    plan: &'p regions::FramePlan,
    ctx: &mut Context,
    fbc: &mut FunctionBuilderContext,
) -> Result<FuncId> {
    let f = &split.func;
    let mut sig = env.signature(f)?;
    // The frame, the cross area, the group's work-item count, the linear local id.
    for _ in 0..4 {
        sig.params.push(ir::AbiParam::new(types::I64));
    }
    sig.params.push(ir::AbiParam::new(types::I32));
    sig.returns.clear();
    sig.returns.push(ir::AbiParam::new(types::I32));
    let id = env
        .module
        .declare_function(&format!("ferrite_step_{}", f.id), Linkage::Local, &sig)
        .map_err(codegen_err)?;
    env.module.clear_context(ctx);
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let res = {
        let b = FunctionBuilder::new(&mut ctx.func, fbc);
        let mut tx = FnTx::new(env, b, f);
        tx.step = Some(regions::StepCtx::new(split, plan));
        let r = tx.run();
        tx.finish(r)
    };
    if let Err(e) = res {
        env.module.clear_context(ctx);
        *fbc = FunctionBuilderContext::new();
        return Err(e);
    }
    define(env, id, ctx)?;
    Ok(id)
}

/// One phi: its result id, type, and `(value, predecessor)` pairs.
pub(crate) struct Phi {
    id: Word,
    ty: Word,
    incoming: Vec<(Word, Word)>,
}

/// Translator of one function.
pub struct FnTx<'a, 'e, 'p> {
    pub env: &'e mut Env<'p>,
    pub p: &'p Program,
    pub b: FunctionBuilder<'a>,
    pub f: &'p crate::spirv::Function,
    vals: HashMap<Word, Val>,
    tys: HashMap<Word, Word>,
    blocks: HashMap<Word, ir::Block>,
    phi_vars: HashMap<Word, Vec<Variable>>,
    block_phis: HashMap<Word, Vec<Phi>>,
    /// Pointers into a builtin `Input` variable: (builtin, element index).
    builtin_ptrs: HashMap<Word, (BuiltIn, Option<u32>)>,
    /// Values loaded from a builtin vector variable: an element taken from one with an
    /// index past its 3 components is the builtin's out-of-range value
    /// (`builtins_ids.rs`).
    builtin_vals: HashMap<Word, BuiltIn>,
    func_refs: HashMap<Word, ir::FuncRef>,
    builtin_refs: HashMap<&'static str, ir::FuncRef>,
    /// Checked mode: what each pointer is known to point into (`check.rs`).
    check_vars: HashMap<Word, check::Prov>,
    /// Checked mode with races: this worker's `crate::check::ShadowView`.
    check_view: Option<Value>,
    pub wi: Value,
    pub ctx: Value,
    pub local_mem: Value,
    cur_label: Word,
    /// Loop headers whose branch is emitted exit first
    /// ([`crate::analysis::loops::exit_first_headers`]).
    exit_first: std::collections::HashSet<Word>,
    terminated: bool,
    /// Step mode (a kernel with work-group boundaries), see [`regions`].
    pub step: Option<regions::StepCtx<'p>>,
    /// An error found where the API gives no `Result` (a variable definition).
    pending: Option<CompileError>,
    /// Inline mode: the kernel's body translated inside the work-group function's loop.
    pub inline: Option<Inline>,
}

/// What the work-group function gives a kernel body translated inside its work-item loop
/// nest (`workgroup.rs`): work-item ids as SSA values of the loop counters, the group's
/// [`GroupContext`] fields loaded once before the loop, and the loop's latch, where a
/// `return` goes.
pub struct Inline {
    pub lid: [Value; 3],
    pub gid: [Value; 3],
    /// `GroupContext` fields from `global_size` to `work_dim`, indexed by offset / 8.
    pub ctx_vals: Vec<Value>,
    /// Where a return goes: the loop's latch, or the continuation of an inlined call
    /// (whose parameters are the returned values).
    pub ret: ir::Block,
    /// Static call sites of each function the kernel reaches (callees called once are
    /// inlined whatever their size, see `codegen/inline.rs`).
    pub call_counts: HashMap<Word, usize>,
    /// Inlined calls around the code being translated.
    pub depth: u32,
}

pub use inline::call_counts;

impl<'a, 'e, 'p> FnTx<'a, 'e, 'p> {
    pub(crate) fn new(
        env: &'e mut Env<'p>,
        b: FunctionBuilder<'a>,
        f: &'p crate::spirv::Function,
    ) -> Self {
        let p = env.p;
        let dummy = Value::from_u32(0);
        FnTx {
            env,
            p,
            b,
            f,
            vals: HashMap::new(),
            tys: HashMap::new(),
            blocks: HashMap::new(),
            phi_vars: HashMap::new(),
            block_phis: HashMap::new(),
            builtin_ptrs: HashMap::new(),
            builtin_vals: HashMap::new(),
            func_refs: HashMap::new(),
            builtin_refs: HashMap::new(),
            check_vars: HashMap::new(),
            check_view: None,
            wi: dummy,
            ctx: dummy,
            local_mem: dummy,
            cur_label: 0,
            exit_first: std::collections::HashSet::new(),
            terminated: false,
            step: None,
            pending: None,
            inline: None,
        }
    }

    /// The id of the program that `id` copies, for its name in reports: in step mode the
    /// function is the kernel inlined with fresh ids. (What decorations change about an
    /// instruction travels with it: [`crate::ir::Effects`].)
    pub fn source_id(&self, id: Word) -> Word {
        match &self.step {
            Some(step) => step.split.origin_of(id),
            None => id,
        }
    }

    /// An error recorded where the builder API gives no `Result`, if any.
    /// End a translation: an error a value definition left pending wins over success; on
    /// success the function's blocks are sealed and the function finalised.
    pub(crate) fn finish(mut self, r: Result<()>) -> Result<()> {
        let r = match (r, self.pending.take()) {
            (Ok(()), Some(e)) => Err(e),
            (r, _) => r,
        };
        if r.is_ok() {
            self.b.seal_all_blocks();
            let cfg = self.env.module.target_config();
            self.b.finalize(cfg);
        }
        r
    }

    pub fn unsupported(&self, inst: &Instruction) -> CompileError {
        CompileError::UnsupportedOpcode {
            opcode: format!("{:?}", inst.class.opcode),
            function: self.f.name.clone(),
        }
    }

    fn run(&mut self) -> Result<()> {
        let p = self.p;
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        let params = self.b.block_params(entry).to_vec();
        let mut it = params.into_iter();
        for prm in &self.f.params {
            let v = unflatten(p, prm.ty, &mut it)?;
            self.vals.insert(prm.id, v);
            self.tys.insert(prm.id, prm.ty);
        }
        self.check_kernel_params();
        self.wi = it
            .next()
            .ok_or_else(|| CompileError::Codegen("missing work-item parameter".into()))?;
        if let Some(step) = self.step.as_mut() {
            let missing = || CompileError::Codegen("missing step parameter".into());
            step.frame = it.next().ok_or_else(missing)?;
            step.cross.area = it.next().ok_or_else(missing)?;
            step.cross.items = it.next().ok_or_else(missing)?;
            step.cross.linear = it.next().ok_or_else(missing)?;
            step.state = it.next().ok_or_else(missing)?;
        }
        self.ctx = self.b.ins().load(types::I64, trusted(), self.wi, WI_CTX);
        self.local_mem = self.b.ins().load(
            types::I64,
            trusted(),
            self.ctx,
            GroupContext::OFFSET_LOCAL_MEM,
        );
        self.check_entry()?;
        self.translate_body()
    }

    /// Translate the kernel's body in place, inside the work-group function's loop nest
    /// (see [`Inline`]): `params` are the flattened kernel arguments; the caller has set
    /// `wi`, `ctx`, `local_mem` and `inline`. Leaves every block terminated; a return
    /// jumps to `inline.ret`.
    pub(crate) fn run_inline(&mut self, params: Vec<Value>) -> Result<()> {
        let p = self.p;
        let mut it = params.into_iter();
        for prm in &self.f.params {
            let v = unflatten(p, prm.ty, &mut it)?;
            self.vals.insert(prm.id, v);
            self.tys.insert(prm.id, prm.ty);
        }
        self.check_kernel_params();
        if it.next().is_some() {
            return Err(CompileError::Codegen(
                "too many inlined kernel arguments".into(),
            ));
        }
        self.check_entry()?;
        self.translate_body()
    }

    /// Create every block and its phi variables, enter the first block from the current
    /// one (or dispatch in step mode), and translate the blocks in reverse post-order.
    fn translate_body(&mut self) -> Result<()> {
        let p = self.p;
        for blk in &self.f.blocks {
            let cb = self.b.create_block();
            if self.blocks.insert(blk.label, cb).is_some() {
                return Err(CompileError::Invalid(format!(
                    "label %{} defined twice",
                    blk.label
                )));
            }
            let mut phis = Vec::new();
            for inst in &blk.insts {
                if inst.class.opcode != Op::Phi {
                    continue;
                }
                let id = result_id(inst)?;
                let ty = result_type(inst)?;
                let mut incoming = Vec::new();
                for k in (0..inst.operands.len()).step_by(2) {
                    incoming.push((op_id(inst, k)?, op_id(inst, k + 1)?));
                }
                let mut tys = Vec::new();
                flat_types(p, ty, &mut tys)?;
                let vars = tys.into_iter().map(|t| self.b.declare_var(t)).collect();
                self.phi_vars.insert(id, vars);
                phis.push(Phi { id, ty, incoming });
            }
            self.block_phis.insert(blk.label, phis);
        }
        let first = self
            .f
            .blocks
            .first()
            .ok_or_else(|| CompileError::Invalid("function without blocks".into()))?;
        let first_block = self.blocks[&first.label];
        if self.step.is_some() {
            self.prepass()?;
            self.step_dispatch(first_block)?;
        } else {
            self.b.ins().jump(first_block, &[]);
        }

        if let Ok(cfg) = crate::analysis::cfg::Cfg::new(self.f) {
            let (_, headers) = crate::analysis::loops::exit_first_headers(self.f, &cfg);
            self.exit_first = headers.into_iter().map(|(_, label)| label).collect();
        }
        for idx in self.rpo()? {
            self.translate_block(&self.f.blocks[idx])?;
        }
        Ok(())
    }

    /// Block indices in reverse post-order from the entry block.
    fn rpo(&self) -> Result<Vec<usize>> {
        let index: HashMap<Word, usize> = self
            .f
            .blocks
            .iter()
            .enumerate()
            .map(|(i, b)| (b.label, i))
            .collect();
        let succs = |i: usize| -> Result<Vec<usize>> {
            let mut out = Vec::new();
            for l in control::successors(&self.f.blocks[i])? {
                out.push(*index.get(&l).ok_or(CompileError::InvalidId {
                    id: l,
                    expected: "label in this function",
                })?);
            }
            Ok(out)
        };
        // Step mode: boundary blocks end the step (no successors), and every continuation
        // is a root beside the entry (the dispatcher jumps to each).
        let mut roots = vec![0usize];
        let mut ends = HashSet::new();
        if let Some(step) = &self.step {
            for pt in &step.split.points {
                ends.insert(pt.block);
                roots.push(*index.get(&pt.cont).ok_or(CompileError::InvalidId {
                    id: pt.cont,
                    expected: "continuation label",
                })?);
            }
        }
        let succs = |i: usize| -> Result<Vec<usize>> {
            if ends.contains(&self.f.blocks[i].label) {
                Ok(Vec::new())
            } else {
                succs(i)
            }
        };
        let n = self.f.blocks.len();
        let mut visited = vec![false; n];
        let mut post = Vec::with_capacity(n);
        for root in roots {
            if visited[root] {
                continue;
            }
            let mut stack: Vec<(usize, Vec<usize>, usize)> = vec![(root, succs(root)?, 0)];
            visited[root] = true;
            while let Some((node, ss, k)) = stack.last_mut() {
                if *k < ss.len() {
                    let s = ss[*k];
                    *k += 1;
                    if !visited[s] {
                        visited[s] = true;
                        let next = succs(s)?;
                        stack.push((s, next, 0));
                    }
                } else {
                    post.push(*node);
                    stack.pop();
                }
            }
        }
        post.reverse();
        Ok(post)
    }

    fn translate_block(&mut self, blk: &'p crate::spirv::Block) -> Result<()> {
        let cb = self.blocks[&blk.label];
        self.b.switch_to_block(cb);
        self.cur_label = blk.label;
        self.terminated = false;
        for inst in &blk.insts {
            if self.terminated {
                return Err(CompileError::Invalid(format!(
                    "instruction after the terminator of block %{}",
                    blk.label
                )));
            }
            if self.step.is_some() && crate::workgroup::regions::is_boundary(inst.class.opcode) {
                // The rest of the block is the branch to the continuation, which the
                // dispatcher reaches instead.
                self.step_boundary(inst)?;
                self.terminated = true;
                return Ok(());
            }
            if inst.class.opcode == Op::Phi {
                let id = result_id(inst)?;
                let ty = result_type(inst)?;
                let vars = self.phi_vars.get(&id).cloned().unwrap_or_default();
                let vals: Vec<Value> = vars.iter().map(|v| self.b.use_var(*v)).collect();
                let v = unflatten(self.p, ty, &mut vals.into_iter())?;
                self.set(id, ty, v);
                continue;
            }
            self.inst(inst)?;
            if let Some(e) = self.pending.take() {
                return Err(e);
            }
        }
        if !self.terminated {
            return Err(CompileError::Invalid(format!(
                "block %{} has no terminator",
                blk.label
            )));
        }
        Ok(())
    }

    /// Define the phi variables of `to` for the edge from the current block.
    fn def_phis(&mut self, to: Word) -> Result<()> {
        let from = self.cur_label;
        let Some(phis) = self.block_phis.get(&to) else {
            return Ok(());
        };
        let mut defs = Vec::new();
        for phi in phis {
            let Some((v, _)) = phi.incoming.iter().find(|(_, pred)| *pred == from) else {
                return Err(CompileError::Invalid(format!(
                    "OpPhi %{} has no value for predecessor %{from}",
                    phi.id
                )));
            };
            defs.push((phi.id, *v, phi.ty));
        }
        for (phi, v, _ty) in defs {
            let val = self.val(v)?.flat();
            let vars = self.phi_vars.get(&phi).cloned().unwrap_or_default();
            if vars.len() != val.len() {
                return Err(CompileError::Invalid(format!(
                    "OpPhi %{phi}: incoming %{v} has the wrong type"
                )));
            }
            for (var, x) in vars.into_iter().zip(val) {
                self.b.try_def_var(var, x).map_err(|_| {
                    CompileError::Invalid(format!("OpPhi %{phi}: incoming %{v} has the wrong type"))
                })?;
            }
        }
        Ok(())
    }

    pub fn block(&self, label: Word) -> Result<ir::Block> {
        self.blocks
            .get(&label)
            .copied()
            .ok_or(CompileError::InvalidId {
                id: label,
                expected: "label in this function",
            })
    }

    // ---- values ---------------------------------------------------------------------

    pub fn set(&mut self, id: Word, ty: Word, v: Val) {
        self.tys.insert(id, ty);
        if let Some(vars) = self.step.as_ref().and_then(|s| s.cross_vars.get(&id)) {
            let vars = vars.clone();
            let flat = v.flat();
            if vars.len() != flat.len() {
                self.pending = Some(CompileError::Invalid(format!(
                    "value %{id} does not match its type"
                )));
                return;
            }
            for (var, x) in vars.into_iter().zip(flat) {
                if self.b.try_def_var(var, x).is_err() {
                    self.pending = Some(CompileError::Invalid(format!(
                        "value %{id} does not match its type"
                    )));
                }
            }
            return;
        }
        self.vals.insert(id, v);
    }

    /// Record the result of `inst`.
    pub fn set_result(&mut self, inst: &Instruction, v: Val) -> Result<()> {
        let id = result_id(inst)?;
        let ty = result_type(inst)?;
        let v = if half::rounds(inst) && half::is_half(self.p, ty) {
            let rounded = v.flat().into_iter().map(|x| half::round(&mut self.b, x));
            let rounded = rounded.collect();
            self.unflatten(ty, rounded)?
        } else {
            v
        };
        self.set(id, ty, v);
        Ok(())
    }

    pub fn type_of(&self, id: Word) -> Result<Word> {
        if let Some(t) = self.tys.get(&id) {
            return Ok(*t);
        }
        if let Some(c) = self.p.constants.get(&id) {
            return Ok(c.ty());
        }
        if let Some(g) = self.p.globals.get(&id) {
            return Ok(g.ptr_ty);
        }
        Err(CompileError::InvalidId {
            id,
            expected: "value",
        })
    }

    /// The value of `id` (a result, parameter, constant or module-scope variable).
    pub fn val(&mut self, id: Word) -> Result<Val> {
        if let Some(step) = self.step.as_ref() {
            if let Some(vars) = step.cross_vars.get(&id) {
                let vars = vars.clone();
                let ty = self.type_of(id)?;
                let mut flat = Vec::with_capacity(vars.len());
                for var in vars {
                    flat.push(self.b.try_use_var(var).map_err(|e| {
                        CompileError::Codegen(format!("value %{id} across a barrier: {e:?}"))
                    })?);
                }
                return self.unflatten(ty, flat);
            }
            if let Some(off) = step.plan.vars.get(&id) {
                let frame = step.frame;
                return Ok(Val::S(self.b.ins().iadd_imm_s(frame, i64::from(*off))));
            }
        }
        if let Some(v) = self.vals.get(&id) {
            return Ok(v.clone());
        }
        if self.p.constants.contains_key(&id) {
            return self.constant(id, 0);
        }
        if let Some(g) = self.p.globals.get(&id) {
            if let Some(b) = g.builtin {
                // A builtin has no memory to point at: loads and constant access chains
                // are answered from the work-item record (`codegen/builtins_ids.rs`), and
                // DPC++'s load through a cast is rewritten (`spirv/builtin_casts.rs`).
                return Err(CompileError::Unsupported(format!(
                    "builtin variable {b:?} used as a pointer value"
                )));
            }
            return match g.class {
                StorageClass::Workgroup => {
                    let off = *self
                        .env
                        .local_offsets
                        .get(&id)
                        .ok_or(CompileError::InvalidId {
                            id,
                            expected: "workgroup variable",
                        })?;
                    Ok(Val::S(self.b.ins().iadd_imm_s(self.local_mem, off as i64)))
                }
                StorageClass::CrossWorkgroup | StorageClass::UniformConstant => {
                    let a = *self
                        .env
                        .global_addr
                        .get(&id)
                        .ok_or(CompileError::InvalidId {
                            id,
                            expected: "program-scope variable",
                        })?;
                    Ok(Val::S(self.b.ins().iconst(types::I64, a as i64)))
                }
                c => Err(CompileError::Unsupported(format!(
                    "address of a module-scope {c:?} variable %{id}"
                ))),
            };
        }
        Err(CompileError::InvalidId {
            id,
            expected: "value defined before use",
        })
    }

    pub fn scalar(&mut self, id: Word) -> Result<Value> {
        self.val(id)?.scalar()
    }

    fn constant(&mut self, id: Word, depth: u32) -> Result<Val> {
        if depth > 64 {
            return Err(CompileError::Invalid("constant nesting too deep".into()));
        }
        match self.p.constant(id)?.clone() {
            Constant::Scalar { ty, bits } if half::is_half(self.p, ty) => {
                let f = crate::builtins::convert::half_to_f32(bits as u16);
                Ok(Val::S(self.b.ins().f32const(f)))
            }
            Constant::Scalar { ty, bits } => {
                let t = clif_scalar(self.p, ty)?;
                Ok(Val::S(self.const_bits(t, bits)))
            }
            Constant::Null { ty } => self.zero(ty),
            Constant::Composite { parts, .. } => {
                let mut v = Vec::new();
                for part in parts {
                    // A part may be a module-scope variable: its address.
                    if self.p.globals.contains_key(&part) {
                        v.push(self.val(part)?);
                    } else {
                        v.push(self.constant(part, depth + 1)?);
                    }
                }
                Ok(Val::C(v))
            }
            Constant::Address { base, offset, ty } => {
                let a = self.val(base)?.scalar()?;
                let a = self.b.ins().iadd_imm_s(a, offset);
                let t = clif_scalar(self.p, ty)?;
                Ok(Val::S(if t.bits() < 64 {
                    self.b.ins().ireduce(t, a)
                } else {
                    a
                }))
            }
        }
    }

    pub fn const_bits(&mut self, t: ir::Type, bits: u64) -> Value {
        if t == types::F32 {
            self.b.ins().f32const(f32::from_bits(bits as u32))
        } else if t == types::F64 {
            self.b.ins().f64const(f64::from_bits(bits))
        } else {
            self.b.ins().iconst(t, bits as i64)
        }
    }

    pub fn zero(&mut self, ty: Word) -> Result<Val> {
        let mut tys = Vec::new();
        flat_types(self.p, ty, &mut tys)?;
        let zs: Vec<Value> = tys.into_iter().map(|t| self.const_bits(t, 0)).collect();
        unflatten(self.p, ty, &mut zs.into_iter())
    }

    pub fn unflatten(&self, ty: Word, vals: Vec<Value>) -> Result<Val> {
        let n = vals.len();
        let mut it = vals.into_iter();
        let v = unflatten(self.p, ty, &mut it)?;
        if it.next().is_some() {
            return Err(CompileError::Invalid(format!(
                "{n} components do not fit type %{ty}"
            )));
        }
        Ok(v)
    }

    // ---- element-wise helpers ----------------------------------------------------------

    /// Apply `f` to each component of the operands (a scalar operand is broadcast) and
    /// shape the results as `rt`.
    pub fn map_n(
        &mut self,
        rt: Word,
        ops: &[Val],
        f: &mut dyn FnMut(&mut Self, &[Value]) -> Result<Value>,
    ) -> Result<Val> {
        let flats: Vec<Vec<Value>> = ops.iter().map(Val::flat).collect();
        let n = flats.iter().map(Vec::len).max().unwrap_or(0);
        if flats.iter().any(|f| f.len() != n && f.len() != 1) {
            return Err(CompileError::Invalid(
                "operands with different component counts".into(),
            ));
        }
        let mut out = Vec::with_capacity(n);
        let mut args = Vec::with_capacity(ops.len());
        for i in 0..n {
            args.clear();
            for fl in &flats {
                args.push(if fl.len() == 1 { fl[0] } else { fl[i] });
            }
            out.push(f(self, &args)?);
        }
        self.unflatten(rt, out)
    }

    /// Operands `first..` of `inst` as values.
    pub fn operand_vals(&mut self, inst: &Instruction, first: usize) -> Result<Vec<Val>> {
        let mut v = Vec::new();
        for i in first..inst.operands.len() {
            let id = op_id(inst, i)?;
            v.push(self.val(id)?);
        }
        Ok(v)
    }

    /// Real bit width of the integer element type of `ty` (`None` for non-integers).
    pub fn int_width(&self, ty: Word) -> Result<Option<u32>> {
        Ok(match self.p.ty(elem_of(self.p, ty)?)? {
            Type::Int { width, .. } => Some(*width),
            _ => None,
        })
    }

    /// Re-mask a result to `width` bits (no-op for native widths).
    pub fn wrap(&mut self, v: Value, width: u32) -> Value {
        if is_native(width) || width >= 64 {
            v
        } else {
            self.b.ins().band_imm_s(v, ((1u64 << width) - 1) as i64)
        }
    }

    /// Sign-extend a canonical `width`-bit value within its Cranelift type.
    pub fn sext_in(&mut self, v: Value, width: u32) -> Value {
        if is_native(width) {
            return v;
        }
        let bits = self.b.func.dfg.value_type(v).bits();
        let sh = i64::from(bits.saturating_sub(width));
        let t = self.b.ins().ishl_imm_s(v, sh);
        self.b.ins().sshr_imm_s(t, sh)
    }

    pub fn value_type(&self, v: Value) -> ir::Type {
        self.b.func.dfg.value_type(v)
    }

    // ---- calls into the runtime ---------------------------------------------------------

    /// Call a builtin from [`crate::builtins`] by symbol name.
    pub fn call_builtin(&mut self, bi: &crate::builtins::Builtin, args: &[Value]) -> Result<Value> {
        let fref = if let Some(r) = self.builtin_refs.get(bi.name) {
            *r
        } else {
            let r = self.env.builtin_ref(self.b.func, bi)?;
            self.builtin_refs.insert(bi.name, r);
            r
        };
        let call = self.b.ins().call(fref, args);
        self.b
            .inst_results(call)
            .first()
            .copied()
            .ok_or_else(|| CompileError::Codegen("builtin without result".into()))
    }

    // ---- the instruction dispatcher ------------------------------------------------------

    fn inst(&mut self, inst: &Inst) -> Result<()> {
        use Op::*;
        let op = inst.class.opcode;
        if check::mode().any() {
            self.check_note(inst);
        }
        match op {
            Nop | Line | NoLine | SelectionMerge | LoopMerge | LifetimeStart | LifetimeStop
            | Name | Decorate | ModuleProcessed => Ok(()),
            // `SPV_KHR_expect_assume`: hints for an optimiser; an assumption that is false
            // is undefined behaviour, so ignoring it is always correct.
            AssumeTrueKHR => Ok(()),
            Undef => {
                let ty = result_type(inst)?;
                let z = self.zero(ty)?;
                self.set_result(inst, z)
            }
            Branch | BranchConditional | Switch | Return | ReturnValue | Unreachable => {
                self.terminated = true;
                self.terminator(inst)
            }
            FunctionCall => self.call(inst),
            FunctionPointerCallINTEL => self.call_pointer(inst),
            // Boundaries are handled by `translate_block` in step mode; a function that
            // still contains one was not inlined into a step (a Ferrite bug).
            _ if crate::workgroup::regions::is_boundary(op) => Err(CompileError::Codegen(format!(
                "Op{op:?} outside a work-group step"
            ))),
            MemoryBarrier => self.memory_barrier(inst),
            _ if atomic::is_atomic(op) => self.atomic(inst),
            GroupAsyncCopy => self.async_copy(inst),
            ReadClockKHR => self.read_clock(inst),
            _ if group::is_ballot_local(op) => self.ballot_local(inst),
            _ if group::is_block_io(op) => self.block_io(inst),
            Variable
            | Load
            | Store
            | AccessChain
            | InBoundsAccessChain
            | PtrAccessChain
            | InBoundsPtrAccessChain
            | CopyMemory
            | CopyMemorySized
            | PtrEqual
            | PtrNotEqual
            | PtrDiff => self.memory(inst),
            CompositeConstruct | CompositeExtract | CompositeInsert | VectorShuffle
            | VectorExtractDynamic | VectorInsertDynamic | CopyObject | CopyLogical | ExpectKHR => {
                self.composite(inst)
            }
            ConvertFToU
            | ConvertFToS
            | ConvertSToF
            | ConvertUToF
            | UConvert
            | SConvert
            | FConvert
            | Bitcast
            | ConvertPtrToU
            | ConvertUToPtr
            | PtrCastToGeneric
            | GenericCastToPtr
            | GenericCastToPtrExplicit
            | GenericPtrMemSemantics
            | SatConvertSToU
            | SatConvertUToS => self.convert(inst),
            ExtInst => self.ext_inst(inst),
            _ if dot::is_dot(op) => self.dot(inst),
            _ if image::is_image(op) => self.image(inst),
            _ if arith::is_arith(op) => self.arith(inst),
            _ => Err(self.unsupported(inst)),
        }
    }
}

/// Opcodes `FnTx::inst` translates; `Module::from_spirv` rejects every other opcode found
/// in a function body, so unsupported features show up at build time.
pub fn opcode_supported(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        Nop | Line
            | NoLine
            | SelectionMerge
            | LoopMerge
            | LifetimeStart
            | LifetimeStop
            | Undef
            | Phi
            | Branch
            | BranchConditional
            | Switch
            | Return
            | ReturnValue
            | Unreachable
            | FunctionCall
            | FunctionPointerCallINTEL
            | MemoryBarrier
            | Variable
            | Load
            | Store
            | AccessChain
            | InBoundsAccessChain
            | PtrAccessChain
            | InBoundsPtrAccessChain
            | CopyMemory
            | CopyMemorySized
            | PtrEqual
            | PtrNotEqual
            | PtrDiff
            | CompositeConstruct
            | CompositeExtract
            | CompositeInsert
            | VectorShuffle
            | VectorExtractDynamic
            | VectorInsertDynamic
            | CopyObject
            | CopyLogical
            | ExpectKHR
            | AssumeTrueKHR
            | ConvertFToU
            | ConvertFToS
            | ConvertSToF
            | ConvertUToF
            | UConvert
            | SConvert
            | FConvert
            | Bitcast
            | ConvertPtrToU
            | ConvertUToPtr
            | PtrCastToGeneric
            | GenericCastToPtr
            | GenericCastToPtrExplicit
            | GenericPtrMemSemantics
            | SatConvertSToU
            | SatConvertUToS
            | ExtInst
            | GroupAsyncCopy
            | ReadClockKHR
    ) || arith::is_arith(op)
        || atomic::is_atomic(op)
        || dot::is_dot(op)
        || image::is_image(op)
        || crate::workgroup::regions::is_boundary(op)
        || group::is_ballot_local(op)
        || group::is_block_io(op)
}

/// The parameters of a register form of a 16-lane entry point of `inputs` arguments: each
/// argument's 16 lanes as four `F32X4` values (in `xmm0`-`xmm7`), then the address of the
/// 16 result lanes.
pub fn regs_params(inputs: u32) -> impl Iterator<Item = ir::AbiParam> {
    (0..4 * inputs)
        .map(|_| ir::AbiParam::new(types::F32X4))
        .chain(std::iter::once(ir::AbiParam::new(types::I64)))
}
