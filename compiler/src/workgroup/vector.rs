//! Vectorisation across work-items: W = 4, 8 or 16 consecutive work-items along x per
//! iteration of a loop placed before the scalar x loop (with a loop of 4 between them when
//! W > 4), which finishes the row (partial groups, rows not a multiple of the width). A
//! value of W lanes is W / 4 Cranelift 128-bit values ([`V::Vec`]); a lane mask is one
//! vector of W lanes ([`VTx::mask_ty`]). [`width`] chooses W; the text below says "four"
//! where it means the lanes of one 128-bit part.
//!
//! The kernel is first inlined whole (`regions::inline_all`), then analysed
//! ([`crate::analysis`]: its CFG, and the [`Shape`] of every value across the lanes). A
//! kernel whose branches are all uniform (loops with uniform trip counts, `if`s on uniform
//! conditions: every lane takes the same path) is translated block by block: uniform
//! branches stay branches, and an `OpPhi` becomes Cranelift variables in the representation
//! its shape gives (one scalar, an affine base, one vector or four lanes). A kernel with a
//! divergent branch keeps the scalar loop alone (masks come next). Each SPIR-V value is, for
//! the four lanes (work-items `x .. x + 4`), one of ([`V`]):
//! - uniform: one scalar for all lanes (arguments, constants, group geometry, ids along y
//!   and z, loads through a uniform pointer);
//! - affine: lane `k` is `base + k * step` (an integer or pointer; `get_global_id(0)` has
//!   step 1, `p + gid` step `sizeof(*p)`), kept exact through additions, subtractions,
//!   multiplication by a constant (and left shift by one), truncation (wrapping is the
//!   same in each lane) and casts between pointer types;
//! - a Cranelift vector (`f32x4`, `i32x4`) for varying 32-bit values;
//! - a lane mask (`i32x4`, all ones or zeros per lane) for varying comparisons, which only
//!   `OpSelect` reads;
//! - four scalars for the rest.
//!
//! A load or store through an affine pointer whose step is the element size, of `f32`/`i32`,
//! is one vector access; every other varying access is done lane by lane, in lane order
//! (so a store of several lanes to one address leaves the last work-item's value, as the
//! scalar loop does). The operations: loads, stores, pointer access chains with one
//! 64-bit index, `+ - *` on 32/64-bit integers, shifts by a uniform amount, bitwise
//! `& | ^`, integer conversions between 32 and 64 bits, int↔float conversions without a
//! rounding-mode decoration, comparisons, `OpSelect`, `+ - * /` and negation of `float`,
//! and the OpenCL.std functions of [`VTx::ext_inst`], work-item builtins. Executing an
//! instruction for all four lanes before the next one is a legal schedule: work-items of a
//! group without a barrier are unordered, and a kernel whose work-items race on non-atomic
//! memory has no defined result. Atomics, volatile accesses, private variables and every
//! other opcode are refused, as are the decorations that change a result
//! (`SaturatedConversion`, `FPRoundingMode`: [`crate::ir::Effects`], which every copy of
//! an instruction carries).
//!
//! Whether a kernel qualifies is settled by translating it once into a scratch function
//! ([`plan`]): the translation is the same code, so it cannot accept in the check what
//! it then fails to emit.

use crate::analysis::cfg::Cfg;
use crate::analysis::uniformity::{self, Shape, Uniformity};
use crate::codegen::{convert, Result};
use crate::ir::Inst;
use crate::layout::layout;
use crate::spirv::{op_id, op_lit, result_id, result_type, Constant, Function, Program, Type};
use crate::workgroup::regions::{self, Inlined};
use crate::{CompileError, GroupContext};
use cranelift_codegen::ir::{
    self, condcodes::FloatCC, condcodes::IntCC, types, AbiParam, Block, BlockArg, ConstantData,
    InstBuilder, MemFlagsData, Signature, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Switch, Variable};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, MemoryAccess, Op, StorageClass, Word};
use std::collections::{HashMap, HashSet};

mod carry;
mod check;
mod components;
mod divide;
mod doubles;
mod half;
mod image;
mod linear;
mod narrow;
mod printf;
mod rows;
mod small_ints;
pub mod steps;
mod subgroup;
pub mod width;

/// The lane widths of vector loops: 4, 8 or 16 work-items per iteration, as one, two or
/// four 128-bit values per 32-bit SSA value (Cranelift's x64 backend lowers only 128-bit
/// vectors). A loop wider than 4 is followed by one of 4 for the rest of a row.
pub const WIDTHS: [usize; 3] = [4, 8, 16];

/// The width a kernel without loops gets ([`width::choose`]).
pub const DEFAULT_LANES: usize = 16;

/// The widths a kernel may get: `asked` (a test's) or `FERRITE_LANES` (for measurement)
/// alone if given, else all of [`WIDTHS`]; only those dividing the required work-group
/// size along x, if there is one (4 at least).
pub fn widths_for(reqd_x: Option<u32>, asked: Option<usize>) -> Vec<usize> {
    let asked = asked
        .or_else(|| {
            std::env::var("FERRITE_LANES")
                .ok()
                .and_then(|s| s.parse::<usize>().ok())
        })
        .filter(|n| WIDTHS.contains(n));
    let fits = |w: &usize| reqd_x.is_none_or(|x| (x as usize).is_multiple_of(*w));
    let mut out: Vec<usize> = match asked {
        Some(w) => vec![w],
        None => WIDTHS.to_vec(),
    };
    out.retain(fits);
    if out.is_empty() {
        out.push(4);
    }
    out
}

/// Ids from here on name the components of vector values translated per component (SPIR-V
/// ids of real modules stay far below).
const TMP_IDS: Word = 0xE000_0000;

/// What the vector loop body is given, all dominating it.
pub struct Inputs<'a> {
    /// The kernel's arguments, flattened.
    pub args: &'a [Value],
    /// Local ids: `lid[0]` is lane 0's.
    pub lid: [Value; 3],
    /// Global ids: `gid[0]` is lane 0's.
    pub gid: [Value; 3],
    /// `GroupContext` fields from `global_size` to `work_dim`, by offset / 8.
    pub ctx_vals: &'a [Value],
    /// The group's local memory.
    pub local_mem: Value,
    /// Addresses of program-scope variables and offsets of `Workgroup` variables in local
    /// memory (`codegen::Env`).
    pub global_addr: &'a HashMap<Word, u64>,
    pub local_offsets: &'a HashMap<Word, u64>,
    /// In a vector step (`steps.rs`): the four lanes' frames.
    pub frames: Option<FrameBase>,
    /// The group's context (`GroupContext`) and the work-item record (`codegen::WI_*`),
    /// for checked mode's hooks.
    pub ctx: Value,
    pub wi: Value,
    /// Checked mode with `races`: the worker's race-detector state for the group
    /// (`crate::check::ShadowView`).
    pub shadow: Option<Value>,
    /// In a vector step: where a region that stops its row early says so.
    pub skip: Option<SkipRest>,
}

/// A vector step's means to stop its row early (`narrow.rs`).
#[derive(Clone, Copy, Debug)]
pub struct SkipRest {
    /// Set (`i8` 1) when the rest of the row is to be skipped; 0 at each iteration's start.
    pub flag: cranelift_frontend::Variable,
    /// The group's local size along x (`i64`), whose multiple of the lane count the row is.
    pub ls0: Value,
}

/// The frames of the lanes: lane `k`'s is at `base + k × size`; their values live across
/// boundaries side by side in the cross area (`cross.linear` is lane 0's linear local id).
#[derive(Clone, Copy, Debug)]
pub struct FrameBase {
    pub base: Value,
    pub size: i64,
    pub cross: crate::codegen::regions::CrossBase,
}

/// A kernel the vectoriser takes: inlined and analysed once, translated by [`emit_loop`].
pub struct Plan {
    inlined: Inlined,
    cfg: Cfg,
    shapes: Uniformity,
    /// Masked mode's loops and block order, for a kernel with a divergent branch.
    linear: Option<linear::Linear>,
    /// A region of a kernel with barriers (`steps.rs`).
    region: Option<steps::Region>,
    /// Work-items per iteration (4, 8 or 16).
    pub lanes: usize,
    /// Why that width ([`width::choose`]).
    pub why: String,
    /// The kernel's work-items per sub-group (for the sub-group id built-ins).
    pub sub_group_size: u32,
    /// One iteration is one sub-group (`subgroup.rs`): the width is the sub-group size,
    /// rows are whole sub-groups, sub-group barriers and collectives run in registers.
    pub sub_group_lanes: bool,
    /// Checked mode: what each pointer points into (`vector/check.rs`).
    prov: Option<HashMap<Word, crate::codegen::check::Prov>>,
    /// The kernel may access `__local` memory (checked mode's race detector).
    touches_local: bool,
    /// A region that may stop its row early (`narrow.rs`).
    narrow: Option<narrow::Narrow>,
    /// The `__local` memory this function (a kernel, or a region of one) stores to;
    /// `None`: any (`codegen::check::local_stores`).
    local_stores: Option<std::collections::HashSet<crate::codegen::check::Prov>>,
}

/// Checked mode with `races`: the `__local` memory `f` stores to (`f` a region of
/// `whole`, or `whole` itself).
fn local_stores_of(
    p: &Program,
    f: &Function,
    whole: &Function,
    prov: Option<&HashMap<Word, crate::codegen::check::Prov>>,
) -> Option<std::collections::HashSet<crate::codegen::check::Prov>> {
    let prov = prov.filter(|_| crate::check::mode().races)?;
    let types: HashMap<Word, Word> = whole
        .params
        .iter()
        .map(|prm| (prm.id, prm.ty))
        .chain(
            whole
                .blocks
                .iter()
                .flat_map(|b| &b.insts)
                .filter_map(|i| Some((i.result_id?, i.result_type?))),
        )
        .collect();
    let ty = |id: Word| {
        types
            .get(&id)
            .copied()
            .or_else(|| p.globals.get(&id).map(|g| g.ptr_ty))
    };
    crate::codegen::check::local_stores(p, f, prov, ty)
}

/// Checked mode's facts about a kernel (inlined whole, or split at its boundaries):
/// its pointers' provenance, and whether it may touch `__local` memory.
fn check_facts(
    p: &Program,
    f: &Function,
) -> (Option<HashMap<Word, crate::codegen::check::Prov>>, bool) {
    if !crate::check::mode().any() {
        return (None, false);
    }
    let local_var = p
        .globals
        .values()
        .any(|g| g.class == StorageClass::Workgroup && g.builtin.is_none());
    let local_arg = f
        .params
        .iter()
        .any(|prm| matches!(p.pointer_type(prm.ty), Ok((StorageClass::Workgroup, _))));
    (
        Some(crate::codegen::check::provenance(p, f)),
        local_var || local_arg,
    )
}

/// A SPIR-V value across the four lanes.
#[derive(Clone, Debug)]
enum V {
    /// The same scalar in every lane.
    U(Value),
    /// Lane `k` is `base + k * step`.
    Aff(Value, i64),
    /// `f32x4` / `i32x4` values, lanes `4j .. 4j + 4` in the `j`-th.
    Vec(Vec<Value>),
    /// A lane mask (all ones: true) from a varying comparison: one vector of as many
    /// lanes as the width (`i32x4`, `i16x8`, `i8x16`; [`VTx::mask_ty`]).
    Mask(Value),
    /// One scalar per lane.
    L(Vec<Value>),
    /// A widened affine 32-bit value (see [`Ext`]).
    Ext(Ext),
    /// A clamped affine 32-bit value (see [`Clamp`]).
    Clamped(Clamp),
    /// An OpenCL vector (`float4`, `int8`, …): one value per component, each across the
    /// lanes (structure of arrays).
    Comp(Vec<V>),
    /// A loaded builtin vector (only its components are used).
    Builtin(BuiltIn),
    /// An 8- or 16-bit integer (the type) in `i32x4` parts, lanes `4j .. 4j + 4` in the
    /// `j`-th, zero-extended (`vector/small_ints.rs`).
    Zext(Vec<Value>, ir::Type),
    /// `double` lanes in `f64x2` parts, lanes `2j`, `2j + 1` in the `j`-th
    /// (`vector/doubles.rs`).
    F64(Vec<Value>),
}

/// Lane `k` is `add + mul × ext(narrow + k × nstep)`, `ext` the zero or sign extension of
/// the 32-bit sum to 64 bits: an `int`/`uint` index (`a[k * n + col]`) widened for the
/// address. It is affine, `base + k × mul × nstep`, exactly when the narrow lanes do not
/// wrap, which a load or store tests at run time ([`VTx::no_wrap`]): one vector access if
/// they do not, the exact lanes if they do.
#[derive(Clone, Copy, Debug)]
struct Ext {
    narrow: Value,
    nstep: i64,
    signed: bool,
    mul: i64,
    add: Option<Value>,
    /// The narrow lanes are clamped first: lane `k`'s is `add + clamp(narrow + k × nstep,
    /// lo, hi)` (an image coordinate clamped to the edge).
    clamp: Option<Clamp>,
}

/// Lane `k` is `add + clamp(base + k × step, lo, hi)` in 32-bit arithmetic: `clamp(x + dx,
/// 0, width - 1)` and indices built from it. Affine while no lane is clamped, which a
/// load or store through it tests at run time.
#[derive(Clone, Copy, Debug)]
struct Clamp {
    base: Value,
    step: i64,
    lo: Value,
    hi: Value,
    signed: bool,
    add: Option<Value>,
}

/// An `OpPhi` and its incoming (value, predecessor) pairs.
type PhiEdges = (Word, Vec<(Word, Word)>);

/// How an `OpPhi` is kept in Cranelift variables: by its shape and scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Repr {
    Uniform,
    Affine(i64),
    Vector,
    /// A boolean as a lane mask.
    Mask,
    Lanes,
    /// A `double` in `f64x2` parts.
    F64,
}

impl Repr {
    /// How a varying value of scalar type `t` (not a boolean) is kept.
    fn varying(t: ir::Type) -> Repr {
        match t {
            types::F64 => Repr::F64,
            t if vec_of(t).is_some() => Repr::Vector,
            _ => Repr::Lanes,
        }
    }
}

fn refuse(what: impl std::fmt::Display) -> CompileError {
    CompileError::Unsupported(format!("not vectorisable: {what}"))
}

/// A refusal that does not name the instruction it came from gets its opcode, so the
/// handler note (and `compile_spirv`'s survey) says which instruction kept a kernel scalar.
fn at_inst(e: CompileError, inst: &Inst) -> CompileError {
    match e {
        CompileError::Unsupported(m) if !m.contains(&format!("Op{:?}", inst.op())) => {
            CompileError::Unsupported(format!("{m} (in Op{:?})", inst.op()))
        }
        e => e,
    }
}

/// The scalar types the vectoriser handles.
fn scalar_ty(p: &Program, ty: Word) -> Result<ir::Type> {
    Ok(match p.ty(ty)? {
        Type::Float { width: 32 } => types::F32,
        // `double` lanes in `f64x2` parts where they compute (`vector/doubles.rs`), else
        // one scalar per lane.
        Type::Float { width: 64 } => types::F64,
        // A half is an `f32` lane holding a binary16 value (`vector/half.rs`).
        Type::Float { width: 16 } => types::F32,
        Type::Int { width: 32, .. } => types::I32,
        Type::Int { width: 64, .. } => types::I64,
        // `char` and `short` lanes are kept as four scalars (`vec_of` has no vector for
        // them), like the scalar code keeps them; booleans share `i8` but not its uses.
        Type::Int { width: 16, .. } => types::I16,
        Type::Int { width: 8, .. } => types::I8,
        Type::Pointer { .. } => types::I64,
        Type::Bool => types::I8,
        // An image's descriptor address, a sampler's bits (`codegen/image.rs`).
        Type::Image(_) | Type::Sampler | Type::SampledImage { .. } => types::I64,
        _ => return Err(refuse(format!("type %{ty}"))),
    })
}

/// `c` as the immediate of a `t` operation: its low `t.bits()` bits, sign-extended (the
/// wrapping arithmetic of the type).
fn canon(c: i64, t: ir::Type) -> i64 {
    let sh = 64 - t.bits().min(64);
    (c << sh) >> sh
}

/// The two factors of a multiply-add in the order x86 wants them, with whether each is
/// uniform: its `vfmadd` overwrites its first operand, so a uniform factor (a splat every
/// iteration reuses) goes second and the varying one, which dies there, is overwritten
/// instead of a copy of the splat. The product is the same either way.
fn varying_factor_first<T>(a: T, b: T, a_uniform: bool, b_uniform: bool) -> (T, T) {
    if a_uniform && !b_uniform {
        (b, a)
    } else {
        (a, b)
    }
}

fn vec_of(t: ir::Type) -> Option<ir::Type> {
    match t {
        types::F32 => Some(types::F32X4),
        types::I32 => Some(types::I32X4),
        _ => None,
    }
}

/// Little-endian lane order for bit casts between vector types.
fn lane_order() -> MemFlagsData {
    MemFlagsData::new().with_endianness(ir::Endianness::Little)
}

struct VTx<'a, 'b, 'p, 'e> {
    b: &'a mut FunctionBuilder<'b>,
    p: &'p Program,
    /// Lanes (work-items) per iteration: 4, 8 or 16.
    w: usize,
    fma: bool,
    inp: &'a Inputs<'a>,
    plan: &'p Plan,
    vals: HashMap<Word, V>,
    /// Half results of `f32` arithmetic as computed, before [`Self::set`] rounded them:
    /// a store that narrows by F16C rounds them itself (`vector/half.rs`), and the
    /// rounding, then unused, is dropped by Cranelift.
    unrounded: HashMap<Word, V>,
    /// Known integer constants (for multiplication of affine values).
    consts: HashMap<Word, i64>,
    /// Constants materialised in the current block (dropped at the next block, which
    /// the current one need not dominate).
    block_consts: Vec<Word>,
    /// Scalar Cranelift type of each value.
    tys: HashMap<Word, ir::Type>,
    /// SPIR-V type of each value.
    spv_tys: HashMap<Word, Word>,
    blocks: HashMap<Word, Block>,
    /// Each `OpPhi`: its representation, scalar type and variables.
    phis: HashMap<Word, (Repr, ir::Type, Vec<Variable>)>,
    /// The phis of each block label, with their incoming (value, predecessor) pairs.
    block_phis: HashMap<Word, Vec<PhiEdges>>,
    cur_label: Word,
    /// Where a return goes.
    exit: Block,
    /// Masked mode: the lanes active in the block being translated (`i32x4`, all ones:
    /// active); `None` when every branch is uniform and all four lanes always run.
    mask: Option<Value>,
    /// Masked mode's state (`linear.rs`).
    lin: linear::State,
    /// In a vector step: the split kernel and its frame layout.
    steps: Option<(
        &'p crate::workgroup::regions::Split,
        &'p crate::codegen::regions::FramePlan,
    )>,
    /// In a masked vector step: the state the region ends in (an `i32` variable).
    step_state: Variable,
    /// The module built-ins are declared in (`None` in a scratch translation).
    env: Option<&'a mut crate::codegen::Env<'e>>,
    /// Built-ins referenced so far.
    builtin_refs: HashMap<&'static str, ir::FuncRef>,
    /// Components of each phi of an OpenCL vector type (its variables hold them in turn).
    phi_counts: HashMap<Word, usize>,
    /// The next id for a component of a vector operation translated per component.
    next_tmp: Word,
    /// Checked mode with `races`: the worker's race-detector state (`vector/check.rs`).
    shadow: Option<check::ShadowLanes>,
    /// Uniform mode: the loop headers whose branch stays in the loop when true and leaves
    /// it when false ([`exit_first_headers`]).
    exit_first: HashSet<Word>,
    /// 4-vectors kept as one row per lane, as they lie in memory (`vector/rows.rs`).
    rows: HashMap<Word, Vec<Value>>,
    /// What [`Self::carry`] needs: the ids of the function used outside the block that
    /// defines them (or by a phi), and, in the block being translated, the index of each
    /// id's last use, the index of the instruction being translated and the ids defined
    /// so far.
    escapes: HashSet<Word>,
    last_use: HashMap<Word, usize>,
    pos: usize,
    defined_here: Vec<Word>,
}

/// Whether `id` is computed from a varying value the loop does not change (`defs`: the
/// loop's instructions): one defined before it, or computed in it from such values only.
fn from_invariant_varying(plan: &Plan, defs: &HashMap<Word, &crate::ir::Inst>, id: Word) -> bool {
    fn invariant(
        defs: &HashMap<Word, &crate::ir::Inst>,
        memo: &mut HashMap<Word, bool>,
        id: Word,
    ) -> bool {
        if let Some(&known) = memo.get(&id) {
            return known;
        }
        // Provisionally not (a cycle goes through a phi, which is not invariant anyway).
        memo.insert(id, false);
        let inv = match defs.get(&id) {
            None => true,
            Some(inst) if inst.class.opcode == Op::Phi => false,
            Some(inst) => inst.operands.iter().all(|o| match o {
                Operand::IdRef(x) => invariant(defs, memo, *x),
                _ => true,
            }),
        };
        memo.insert(id, inv);
        inv
    }
    let mut memo = HashMap::new();
    let mut seen = HashSet::new();
    let mut work = vec![id];
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        if plan.shapes.shape(v) == Shape::Varying && invariant(defs, &mut memo, v) {
            return true;
        }
        if let Some(inst) = defs.get(&v).filter(|i| i.class.opcode != Op::Phi) {
            work.extend(inst.operands.iter().filter_map(|o| match o {
                Operand::IdRef(x) => Some(*x),
                _ => None,
            }));
        }
    }
    false
}

/// The loop headers of `plan`'s function whose branch is emitted exit first
/// ([`crate::analysis::loops::exit_first_headers`] says why).
///
/// Not for a loop that loads or stores through a varying pointer computed from a varying
/// value the loop does not change: such an access gets a fast path and a per-lane
/// fallback, and hoisting the fallback's lane addresses out of the loop (a 5x5
/// convolution's clamped columns: 16 lanes by 5 taps) spilled the fast path's values
/// instead (1.35x slower). A varying pointer that changes with the loop (naive matmul's
/// `b[k * n + col]`) has nothing to hoist.
fn exit_first_headers(plan: &Plan) -> HashSet<Word> {
    let f = &plan.inlined.func;
    let (Some(loops), headers) = crate::analysis::loops::exit_first_headers(f, &plan.cfg) else {
        return HashSet::new();
    };
    let mut out = HashSet::new();
    for (l, label) in headers {
        let lp = &loops.loops[l];
        let defs: HashMap<Word, &crate::ir::Inst> = lp
            .blocks
            .iter()
            .flat_map(|&b| &f.blocks[b].insts)
            .filter_map(|i| i.result_id.map(|r| (r, i)))
            .collect();
        let hoistable_lanes = lp.blocks.iter().any(|&b| {
            f.blocks[b].insts.iter().any(|i| {
                matches!(i.class.opcode, Op::Load | Op::Store)
                    && op_id(i, 0).is_ok_and(|ptr| {
                        plan.shapes.shape(ptr) == Shape::Varying
                            && from_invariant_varying(plan, &defs, ptr)
                    })
            })
        });
        if !hoistable_lanes {
            out.insert(label);
        }
    }
    out
}

/// Can `kernel` be vectorised? Inlines and analyses it, then translates it into a scratch
/// function; the plan is what [`emit_loop`] needs, the error says why not.
#[allow(clippy::too_many_arguments)]
pub fn plan(
    p: &Program,
    kernel: &Function,
    arg_types: &[ir::Type],
    fma: bool,
    global_addr: &HashMap<Word, u64>,
    local_offsets: &HashMap<Word, u64>,
    widths: &[usize],
    sub_group_size: u32,
) -> Result<Plan> {
    if !crate::codegen::vectorize() {
        return Err(refuse("FERRITE_VECTORIZE=0"));
    }
    let mut plan = analyse(p, kernel)?;
    plan.sub_group_size = sub_group_size;
    (plan.lanes, plan.why) = width::choose(p, &plan, widths)?;
    let env = ScratchEnv {
        arg_types,
        global_addr,
        local_offsets,
    };
    scratch(&env, false, |b, inp| {
        body(b, p, fma, &plan, plan.lanes, inp, None)
    })?;
    Ok(plan)
}

/// Can `kernel`, whose boundaries are all sub-group ones, run one sub-group per vector
/// iteration (`subgroup.rs`)? Its width is its sub-group size (4, 8 or 16); the plan is
/// for rows that are whole sub-groups (local size x a multiple of it).
#[allow(clippy::too_many_arguments)]
pub fn plan_sub_groups(
    p: &Program,
    kernel: &Function,
    arg_types: &[ir::Type],
    fma: bool,
    global_addr: &HashMap<Word, u64>,
    local_offsets: &HashMap<Word, u64>,
    sub_group_size: u32,
) -> Result<Plan> {
    if !crate::codegen::vectorize() {
        return Err(refuse("FERRITE_VECTORIZE=0"));
    }
    let w = sub_group_size as usize;
    if !WIDTHS.contains(&w) {
        return Err(refuse(format!("sub-groups of {w} (widths: {WIDTHS:?})")));
    }
    let mut plan = analyse(p, kernel)?;
    plan.sub_group_size = sub_group_size;
    plan.sub_group_lanes = true;
    plan.lanes = w;
    plan.why = "one sub-group per iteration".into();
    let env = ScratchEnv {
        arg_types,
        global_addr,
        local_offsets,
    };
    scratch(&env, false, |b, inp| body(b, p, fma, &plan, w, inp, None))?;
    Ok(plan)
}

/// What a scratch translation needs to build its inputs.
pub struct ScratchEnv<'a> {
    pub arg_types: &'a [ir::Type],
    pub global_addr: &'a HashMap<Word, u64>,
    pub local_offsets: &'a HashMap<Word, u64>,
}

/// Run `f` on a scratch function whose parameters stand for the inputs (and, with
/// `frames`, for the lanes' frames); the function is dropped unfinished. How the
/// vectoriser checks that it takes a kernel: the check is the translation itself.
fn scratch(
    env: &ScratchEnv,
    frames: bool,
    f: impl FnOnce(&mut FunctionBuilder, &Inputs) -> Result<()>,
) -> Result<()> {
    let mut sig = Signature::new(CallConv::SystemV);
    sig.params
        .extend(env.arg_types.iter().map(|t| AbiParam::new(*t)));
    let n_ctx = (GroupContext::OFFSET_WORK_DIM / 8 + 1) as usize;
    sig.params
        .extend(std::iter::repeat_n(AbiParam::new(types::I64), 11 + n_ctx));
    let mut func = ir::Function::with_name_signature(ir::UserFuncName::default(), sig);
    let mut fbc = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut fbc);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let params = b.block_params(entry).to_vec();
    let (args, rest) = params.split_at(env.arg_types.len());
    let inp = Inputs {
        args,
        lid: [rest[0], rest[1], rest[2]],
        gid: [rest[3], rest[4], rest[5]],
        local_mem: rest[6],
        frames: frames.then_some(FrameBase {
            base: rest[7],
            size: 8,
            cross: crate::codegen::regions::CrossBase {
                area: rest[7],
                items: rest[0],
                linear: rest[1],
            },
        }),
        ctx: rest[8],
        wi: rest[9],
        shadow: crate::check::mode().races.then_some(rest[10]),
        ctx_vals: &rest[11..],
        global_addr: env.global_addr,
        local_offsets: env.local_offsets,
        skip: frames.then(|| {
            let flag = b.declare_var(types::I8);
            let zero = b.ins().iconst(types::I8, 0);
            b.def_var(flag, zero);
            SkipRest { flag, ls0: rest[0] }
        }),
    };
    let r = f(&mut b, &inp);
    b.ins().return_(&[]);
    b.seal_all_blocks();
    r
}

/// Inline `kernel` whole and analyse it; a divergent branch is refused here.
fn analyse(p: &Program, kernel: &Function) -> Result<Plan> {
    let mut inlined = regions::inline_all(p, kernel.id)?;
    // Loop-closed form: values inside a loop with a divergent exit keep their shapes
    // (`uniformity.rs`).
    let mut next = regions::next_id(p, &inlined.func)?;
    let cfg = crate::analysis::loops::closed_form(&mut inlined.func, &mut next)?;
    let shapes = uniformity::analyse(p, &inlined.func, &cfg)?;
    let linear = match shapes.divergent.is_empty() {
        true => None,
        false => Some(linear::Linear::new(&cfg)?),
    };
    let (prov, touches_local) = check_facts(p, &inlined.func);
    let local_stores = local_stores_of(p, &inlined.func, &inlined.func, prov.as_ref());
    Ok(Plan {
        inlined,
        cfg,
        shapes,
        linear,
        region: None,
        lanes: DEFAULT_LANES,
        why: String::new(),
        sub_group_size: crate::DEFAULT_SUB_GROUP_SIZE,
        sub_group_lanes: false,
        prov,
        touches_local,
        local_stores,
        narrow: None,
    })
}

/// Emit the vector loop: `head(x: i64)` runs four work-items from `x` while `x + 4 <=
/// local_size[0]`, then goes on to `scalar_head(x)`. `inp.lid[0]`/`inp.gid[0]` are
/// ignored (the loop's own counter gives them).
#[allow(clippy::too_many_arguments)]
pub fn emit_loop<'p, 'e>(
    b: &mut FunctionBuilder,
    p: &'p Program,
    fma: bool,
    plan: &'p Plan,
    inp: &Inputs,
    env: &mut crate::codegen::Env<'e>,
    head: Block,
    scalar_head: Block,
    ls0: Value,
    base0: Value,
) -> Result<()> {
    let mut head = head;
    let chain = match plan.sub_group_lanes {
        // Rows are whole sub-groups: no narrower loop after.
        true => vec![(plan.lanes, scalar_head)],
        false => loop_chain(b, plan.lanes, scalar_head),
    };
    for (w, next) in chain {
        let x = *b
            .block_params(head)
            .first()
            .ok_or_else(|| CompileError::Codegen("vector loop head without counter".into()))?;
        b.switch_to_block(head);
        let body_blk = b.create_block();
        let end = b.ins().iadd_imm_s(x, w as i64);
        // The exit is the branch's first target. Cranelift hoists invariants while it
        // walks the dominator tree with one stack of the loops it is in, and which of the
        // header's children it visits first follows the branch's target order: with the
        // body first, it visited the exit first, left the loop there, and placed the body's
        // invariants (saxpy's row base, its pointers' offsets) inside every iteration.
        let over = b.ins().icmp(IntCC::UnsignedGreaterThan, end, ls0);
        let br = b
            .ins()
            .brif(over, next, &[BlockArg::Value(x)], body_blk, &[]);
        b.switch_to_block(body_blk);
        let g0 = b.ins().iadd(base0, x);
        let lanes = Inputs {
            lid: [x, inp.lid[1], inp.lid[2]],
            gid: [g0, inp.gid[1], inp.gid[2]],
            ..*inp
        };
        body(b, p, fma, plan, w, &lanes, Some(&mut *env))?;
        b.ins().jump(head, &[BlockArg::Value(end)]);
        if calls_from(b.func, body_blk) {
            // A body that calls out (vector math, half conversions, image accesses) keeps
            // the body first: every call clobbers every vector register, so what is hoisted
            // lives on the stack across the calls and is reloaded after each, where it was
            // recomputed from values at hand. Measured with the exit first: math/pow 15.8-16.0
            // ms -> 19.5-20.6, half/saxpy 5.1-8.4 -> 5.7-11.2, image/copy 13.7-13.9 -> 14.1-14.2.
            body_first(b.func, over, br);
        }
        head = next;
    }
    Ok(())
}

/// Whether a block of `func` from `first` on in its layout (the blocks a loop body's
/// translation made) calls out.
fn calls_from(func: &ir::Function, first: Block) -> bool {
    func.layout
        .blocks()
        .skip_while(|blk| *blk != first)
        .flat_map(|blk| func.layout.block_insts(blk))
        .any(|i| func.dfg.insts[i].opcode().is_call())
}

/// Turn the loop test `br` on `over` (`end > ls0`, exit first) into `end <= ls0`, body
/// first, with each target's arguments kept as they are.
fn body_first(func: &mut ir::Function, over: Value, br: ir::Inst) {
    if let Some(cmp) = func.dfg.value_def(over).inst() {
        if let ir::InstructionData::IntCompare { cond, .. } = &mut func.dfg.insts[cmp] {
            *cond = IntCC::UnsignedLessThanOrEqual;
        }
    }
    if let ir::InstructionData::Brif { blocks, .. } = &mut func.dfg.insts[br] {
        blocks.swap(0, 1);
    }
}

/// The vector loops of a row, each with the block it goes on to: the kernel's width, then
/// (if wider) 4 for the rest, then `scalar_head`.
fn loop_chain(b: &mut FunctionBuilder, lanes: usize, scalar_head: Block) -> Vec<(usize, Block)> {
    if lanes <= 4 {
        return vec![(lanes, scalar_head)];
    }
    let mid = b.create_block();
    b.append_block_param(mid, types::I64);
    vec![(lanes, mid), (4, scalar_head)]
}

/// Translate the kernel for four lanes from the current block; returns with the builder
/// in the block after it (where its returns go).
fn body<'a, 'p, 'e>(
    b: &'a mut FunctionBuilder,
    p: &'p Program,
    fma: bool,
    plan: &'p Plan,
    w: usize,
    inp: &'a Inputs,
    env: Option<&'a mut crate::codegen::Env<'e>>,
) -> Result<()> {
    translate(b, p, fma, plan, w, inp, None, env)
}

/// The split kernel and its frame layout, for a vector step.
type StepOf<'p> = (
    &'p crate::workgroup::regions::Split,
    &'p crate::codegen::regions::FramePlan,
);

/// Translate one region of a kernel with barriers for four lanes (`steps.rs`): returns
/// with a jump to `reached(state)`, the state the region ends in.
#[allow(clippy::too_many_arguments)]
fn step_body<'a, 'p, 'e>(
    b: &'a mut FunctionBuilder,
    p: &'p Program,
    fma: bool,
    plan: &'p Plan,
    w: usize,
    inp: &'a Inputs,
    step: StepOf<'p>,
    reached: Block,
    env: Option<&'a mut crate::codegen::Env<'e>>,
) -> Result<()> {
    translate(b, p, fma, plan, w, inp, Some((step, reached)), env)
}

/// Translate `plan`'s function for four lanes from the current block: a kernel (returns
/// with the builder in the block after it) or a region of one (`step`: ends with a jump
/// to the block given, with the state reached).
#[allow(clippy::too_many_arguments)]
fn translate<'a, 'p, 'e>(
    b: &'a mut FunctionBuilder,
    p: &'p Program,
    fma: bool,
    plan: &'p Plan,
    w: usize,
    inp: &'a Inputs,
    step: Option<(StepOf<'p>, Block)>,
    env: Option<&'a mut crate::codegen::Env<'e>>,
) -> Result<()> {
    let f = &plan.inlined.func;
    let exit = match step {
        Some((_, reached)) => reached,
        None => b.create_block(),
    };
    let step_state = b.declare_var(types::I32);
    let mut tx = VTx {
        b,
        p,
        w,
        fma,
        inp,
        plan,
        vals: HashMap::new(),
        unrounded: HashMap::new(),
        consts: HashMap::new(),
        block_consts: Vec::new(),
        tys: HashMap::new(),
        spv_tys: HashMap::new(),
        blocks: HashMap::new(),
        phis: HashMap::new(),
        block_phis: HashMap::new(),
        cur_label: 0,
        exit,
        mask: None,
        lin: linear::State::default(),
        steps: step.map(|(s, _)| s),
        step_state,
        env,
        builtin_refs: HashMap::new(),
        phi_counts: HashMap::new(),
        next_tmp: TMP_IDS,
        shadow: None,
        exit_first: match plan.linear {
            None => exit_first_headers(plan),
            Some(_) => HashSet::new(),
        },
        rows: HashMap::new(),
        escapes: carry::escapes(&f.blocks),
        last_use: HashMap::new(),
        pos: 0,
        defined_here: Vec::new(),
    };
    let mut it = inp.args.iter();
    for prm in &f.params {
        // An OpenCL vector argument (`float2 alpha`) comes flattened, a value per
        // component, each the same in every lane.
        let (elem, n) = tx.vector_type(prm.ty)?;
        let t = scalar_ty(p, elem)?;
        let mut comps = Vec::with_capacity(n);
        for _ in 0..n {
            let v = *it.next().ok_or_else(|| refuse("argument count"))?;
            if tx.b.func.dfg.value_type(v) != t {
                return Err(refuse("argument type"));
            }
            comps.push(V::U(v));
        }
        let v = match tx.is_vector(prm.ty) {
            true => V::Comp(comps),
            false => comps.pop().ok_or_else(|| refuse("argument count"))?,
        };
        tx.tys.insert(prm.id, t);
        tx.spv_tys.insert(prm.id, prm.ty);
        tx.vals.insert(prm.id, v);
    }
    tx.fetch_shadow()?;
    if let Some(((split, frame), _)) = step {
        let e = tx.b.ins().iconst(types::I32, crate::codegen::regions::EXIT);
        tx.b.def_var(step_state, e);
        tx.reload_live_in(split, frame)?;
    }
    tx.declare_blocks()?;
    if let Some(lin) = &plan.linear {
        return tx.linear_body(lin);
    }
    let first = f
        .blocks
        .first()
        .ok_or_else(|| refuse("kernel without blocks"))?;
    let entry = tx.blocks[&first.label];
    tx.b.ins().jump(entry, &[]);
    for &bi in &plan.cfg.rpo {
        tx.block(&f.blocks[bi])?;
    }
    if step.is_none() {
        tx.b.switch_to_block(exit);
    }
    Ok(())
}

impl VTx<'_, '_, '_, '_> {
    /// A Cranelift block per reachable SPIR-V block, and the variables of every phi.
    fn declare_blocks(&mut self) -> Result<()> {
        let f = &self.plan.inlined.func;
        for &bi in &self.plan.cfg.rpo {
            let blk = &f.blocks[bi];
            if self.plan.linear.is_none() {
                let cb = self.b.create_block();
                self.blocks.insert(blk.label, cb);
            }
            for inst in blk.insts.iter().filter(|i| i.class.opcode == Op::Phi) {
                let id = result_id(inst)?;
                let (elem, count) = self.vector_type(result_type(inst)?)?;
                let t = scalar_ty(self.p, elem)?;
                let repr = match self.plan.shapes.shape(id) {
                    Shape::Uniform => Repr::Uniform,
                    Shape::Affine(s) if t.is_int() => Repr::Affine(canon(s, t)),
                    _ if self.is_bool(elem) => Repr::Mask,
                    _ => Repr::varying(t),
                };
                let mut vars = Vec::new();
                for _ in 0..count {
                    match repr {
                        Repr::Vector => {
                            let vt = vec_of(t).unwrap_or(t);
                            vars.extend((0..self.w / 4).map(|_| self.b.declare_var(vt)))
                        }
                        Repr::Mask => vars.push(self.b.declare_var(self.mask_ty())),
                        Repr::Lanes => vars.extend((0..self.w).map(|_| self.b.declare_var(t))),
                        Repr::F64 => {
                            vars.extend((0..self.w / 2).map(|_| self.b.declare_var(types::F64X2)))
                        }
                        Repr::Uniform | Repr::Affine(_) => vars.push(self.b.declare_var(t)),
                    }
                }
                if count > 1 {
                    self.phi_counts.insert(id, count);
                }
                self.phis.insert(id, (repr, t, vars));
                let incoming = inst
                    .operands
                    .chunks(2)
                    .map(|pair| match pair {
                        [Operand::IdRef(v), Operand::IdRef(from)] => Ok((*v, *from)),
                        _ => Err(refuse("phi operands")),
                    })
                    .collect::<Result<Vec<_>>>()?;
                self.block_phis
                    .entry(blk.label)
                    .or_default()
                    .push((id, incoming));
            }
        }
        Ok(())
    }

    fn block(&mut self, blk: &crate::spirv::Block) -> Result<()> {
        let cb = self.blocks[&blk.label];
        self.b.switch_to_block(cb);
        self.cur_label = blk.label;
        for id in std::mem::take(&mut self.block_consts) {
            self.vals.remove(&id);
        }
        self.defined_here.clear();
        self.last_use.clear();
        for (i, inst) in blk.insts.iter().enumerate() {
            for o in &inst.operands {
                if let Operand::IdRef(x) = o {
                    self.last_use.insert(*x, i);
                }
            }
        }
        for (i, inst) in blk.insts.iter().enumerate() {
            self.pos = i;
            if let Some(r) = inst.result_id {
                self.defined_here.push(r);
            }
            match inst.class.opcode {
                Op::Nop
                | Op::Line
                | Op::NoLine
                | Op::Name
                | Op::Decorate
                | Op::ModuleProcessed
                | Op::LifetimeStart
                | Op::LifetimeStop
                | Op::AssumeTrueKHR
                | Op::LoopMerge
                | Op::SelectionMerge => {}
                Op::Phi => self.phi(inst)?,
                Op::Return => {
                    let args = self.exit_args();
                    self.b.ins().jump(self.exit, &args);
                    return Ok(());
                }
                _ if self.ends_region(inst) => return self.boundary(inst),
                Op::Branch => {
                    let to = op_id(inst, 0)?;
                    self.def_phis(to)?;
                    let tb = self.target(to)?;
                    self.b.ins().jump(tb, &[]);
                    return Ok(());
                }
                Op::BranchConditional => {
                    let c = self.uniform_cond(op_id(inst, 0)?)?;
                    let (t, f) = (op_id(inst, 1)?, op_id(inst, 2)?);
                    self.def_phis(t)?;
                    if f != t {
                        self.def_phis(f)?;
                    }
                    let (tb, fb) = (self.target(t)?, self.target(f)?);
                    if self.exit_first.contains(&blk.label) {
                        let not_c = self.b.ins().icmp_imm_s(IntCC::Equal, c, 0);
                        self.b.ins().brif(not_c, fb, &[], tb, &[]);
                    } else {
                        self.b.ins().brif(c, tb, &[], fb, &[]);
                    }
                    return Ok(());
                }
                Op::Switch => return self.switch(inst),
                _ => self.inst(inst).map_err(|e| at_inst(e, inst))?,
            }
        }
        Err(refuse(format!("block %{} without a terminator", blk.label)))
    }

    /// The arguments of a jump to `exit` from a return: a step's ends in [`EXIT`].
    ///
    /// [`EXIT`]: crate::codegen::regions::EXIT
    fn exit_args(&mut self) -> Vec<BlockArg> {
        match self.steps {
            Some(_) => {
                let e = self
                    .b
                    .ins()
                    .iconst(types::I32, crate::codegen::regions::EXIT);
                vec![BlockArg::Value(e)]
            }
            None => Vec::new(),
        }
    }

    fn target(&self, label: Word) -> Result<Block> {
        self.blocks
            .get(&label)
            .copied()
            .ok_or(CompileError::InvalidId {
                id: label,
                expected: "block label",
            })
    }

    /// A branch condition, which the analysis found uniform.
    fn uniform_cond(&mut self, id: Word) -> Result<Value> {
        match self.val(id)? {
            V::U(c) => Ok(c),
            _ => Err(refuse(format!("varying condition %{id}"))),
        }
    }

    /// `OpSwitch` on a uniform selector.
    fn switch(&mut self, inst: &Instruction) -> Result<()> {
        let sel_id = op_id(inst, 0)?;
        let sel = self.uniform_cond(sel_id)?;
        let sel = match self.b.func.dfg.value_type(sel) {
            types::I64 => sel,
            _ => self.b.ins().uextend(types::I64, sel),
        };
        let width = self.ty(sel_id)?.bits();
        let default = op_id(inst, 1)?;
        let mut targets = vec![default];
        let mut sw = Switch::new();
        let mut seen = std::collections::HashSet::new();
        for k in (2..inst.operands.len()).step_by(2) {
            let lit = match inst.operands.get(k) {
                Some(Operand::LiteralBit32(x)) => u64::from(*x),
                Some(Operand::LiteralBit64(x)) => *x,
                _ => return Err(refuse("switch literal")),
            };
            let lit = if width < 64 {
                lit & ((1u64 << width) - 1)
            } else {
                lit
            };
            let to = op_id(inst, k + 1)?;
            if seen.insert(lit) {
                sw.set_entry(u128::from(lit), self.target(to)?);
            }
            if !targets.contains(&to) {
                targets.push(to);
            }
        }
        for t in &targets {
            self.def_phis(*t)?;
        }
        let db = self.target(default)?;
        sw.emit(self.b, sel, db);
        Ok(())
    }

    /// Read an `OpPhi`'s variables at the top of its block.
    fn phi(&mut self, inst: &Instruction) -> Result<()> {
        let id = result_id(inst)?;
        let (repr, t, vars) = self
            .phis
            .get(&id)
            .cloned()
            .ok_or_else(|| refuse("phi in an unreachable block"))?;
        let v = match self.phi_counts.get(&id) {
            Some(&n) => {
                let per = vars.len() / n;
                let comps = vars.chunks(per).map(|c| self.read_vars(repr, c)).collect();
                V::Comp(comps)
            }
            None => self.read_vars(repr, &vars),
        };
        self.set(inst, t, v)
    }

    /// The value kept in variables `vars` of representation `repr`.
    fn read_vars(&mut self, repr: Repr, vars: &[Variable]) -> V {
        match repr {
            Repr::Uniform => V::U(self.b.use_var(vars[0])),
            Repr::Affine(s) => V::Aff(self.b.use_var(vars[0]), s),
            Repr::Vector => V::Vec(vars.iter().map(|v| self.b.use_var(*v)).collect()),
            Repr::Mask => V::Mask(self.b.use_var(vars[0])),
            Repr::Lanes => V::L(vars.iter().map(|v| self.b.use_var(*v)).collect()),
            Repr::F64 => V::F64(vars.iter().map(|v| self.b.use_var(*v)).collect()),
        }
    }

    /// Before a branch to `to`: define its phis' variables from this block's values, all
    /// read before any is written (phis of one block take their values in parallel).
    fn def_phis(&mut self, to: Word) -> Result<()> {
        let from = self.cur_label;
        let Some(phis) = self.block_phis.get(&to).cloned() else {
            return Ok(());
        };
        let mut defs = Vec::new();
        for (phi, incoming) in phis {
            let Some((v, _)) = incoming.iter().find(|(_, pred)| *pred == from) else {
                return Err(CompileError::Invalid(format!(
                    "OpPhi %{phi} has no value for predecessor %{from}"
                )));
            };
            let (repr, t, vars) = self.phis[&phi].clone();
            let x = self.val(*v)?;
            let parts = match (&x, self.phi_counts.get(&phi)) {
                (V::Comp(c), Some(&n)) if c.len() == n => c.clone(),
                (_, None) => vec![x.clone()],
                _ => return Err(refuse(format!("phi %{phi}: incoming %{v} is {x:?}"))),
            };
            let mut vals = Vec::new();
            for x in &parts {
                vals.extend(match (repr, x) {
                    (Repr::Uniform, V::U(a)) => vec![*a],
                    (Repr::Affine(s), V::Aff(a, s2)) if canon(*s2, t) == s => vec![*a],
                    (Repr::Vector, _) => self.vector(x, t)?,
                    (Repr::Mask, _) => vec![self.mask(x)?],
                    (Repr::Lanes, _) => self.lanes(x)?,
                    (Repr::F64, _) => self.f64_parts(x)?,
                    _ => return Err(refuse(format!("phi %{phi}: incoming %{v} is {x:?}"))),
                });
            }
            defs.push((vars, vals));
        }
        for (vars, vals) in defs {
            for (var, x) in vars.into_iter().zip(vals) {
                self.b
                    .try_def_var(var, x)
                    .map_err(|_| refuse("phi value of another type"))?;
            }
        }
        Ok(())
    }

    fn val(&mut self, id: Word) -> Result<V> {
        if let Some(v) = self.vals.get(&id) {
            return Ok(v.clone());
        }
        if let Some(r) = self.rows.get(&id).cloned() {
            // Columns for a reader that needs them, made again in each block.
            let v = self.columns_of(&r);
            self.vals.insert(id, v.clone());
            self.block_consts.push(id);
            return Ok(v);
        }
        if let (Some((_, frame)), Some(frames)) = (self.steps, self.inp.frames) {
            if let Some(off) = frame.vars.get(&id) {
                // A private variable an earlier region defined: its slot in each lane's
                // frame, as the scalar step finds it.
                let ty = self.region_type(id)?;
                let base = self.b.ins().iadd_imm_s(frames.base, i64::from(*off));
                let v = V::Aff(base, frames.size);
                self.tys.insert(id, types::I64);
                self.spv_tys.insert(id, ty);
                self.vals.insert(id, v.clone());
                self.block_consts.push(id);
                return Ok(v);
            }
        }
        if let Some(g) = self.p.globals.get(&id) {
            // A module-scope variable's address: the same for every lane.
            let a = match g.class {
                StorageClass::Workgroup if g.builtin.is_none() => {
                    let off = *self
                        .inp
                        .local_offsets
                        .get(&id)
                        .ok_or_else(|| refuse(format!("workgroup variable %{id}")))?;
                    self.b.ins().iadd_imm_s(self.inp.local_mem, off as i64)
                }
                StorageClass::CrossWorkgroup | StorageClass::UniformConstant
                    if g.builtin.is_none() =>
                {
                    let a = *self
                        .inp
                        .global_addr
                        .get(&id)
                        .ok_or_else(|| refuse(format!("program-scope variable %{id}")))?;
                    self.b.ins().iconst(types::I64, a as i64)
                }
                _ => return Err(refuse(format!("operand %{id}"))),
            };
            self.tys.insert(id, types::I64);
            self.spv_tys.insert(id, g.ptr_ty);
            self.vals.insert(id, V::U(a));
            self.block_consts.push(id);
            return Ok(V::U(a));
        }
        let scalar = match self.p.constants.get(&id) {
            Some(Constant::Scalar { ty, bits }) => Some((*ty, *bits)),
            // `OpConstantNull` (and module-scope `OpUndef`) of a scalar or pointer: zero.
            Some(Constant::Null { ty })
                if !matches!(
                    self.p.ty(*ty)?,
                    Type::Vector { .. } | Type::Array { .. } | Type::Struct { .. }
                ) =>
            {
                Some((*ty, 0))
            }
            Some(Constant::Composite { ty, parts }) if self.is_vector(*ty) => {
                let parts = parts.clone();
                let comps = parts
                    .iter()
                    .map(|c| self.val(*c))
                    .collect::<Result<Vec<_>>>()?;
                let (elem, _) = self.vector_type(*ty)?;
                let t = scalar_ty(self.p, elem)?;
                self.tys.insert(id, t);
                self.spv_tys.insert(id, *ty);
                return Ok(V::Comp(comps));
            }
            Some(Constant::Null { ty }) if self.is_vector(*ty) => {
                let (elem, n) = self.vector_type(*ty)?;
                let t = scalar_ty(self.p, elem)?;
                let z = zero_of(self.b, t);
                self.tys.insert(id, t);
                self.spv_tys.insert(id, *ty);
                return Ok(V::Comp(vec![V::U(z); n]));
            }
            _ => None,
        };
        match scalar {
            Some((ty, bits)) => {
                let (ty, bits) = (&ty, &bits);
                let t = scalar_ty(self.p, *ty)?;
                let v = if crate::codegen::half::is_half(self.p, *ty) {
                    let f = crate::builtins::convert::half_to_f32(*bits as u16);
                    self.b.ins().f32const(f)
                } else if t == types::F32 {
                    self.b.ins().f32const(f32::from_bits(*bits as u32))
                } else if t == types::F64 {
                    self.b.ins().f64const(f64::from_bits(*bits))
                } else {
                    self.consts.insert(id, *bits as i64);
                    self.b.ins().iconst(t, *bits as i64)
                };
                self.tys.insert(id, t);
                self.spv_tys.insert(id, *ty);
                self.vals.insert(id, V::U(v));
                self.block_consts.push(id);
                Ok(V::U(v))
            }
            _ => Err(refuse(format!("operand %{id} ({})", self.describe(id)))),
        }
    }

    /// `OpStore` of its value through `ptr` (not a builtin).
    fn op_store(&mut self, inst: &Instruction, ptr: Word) -> Result<()> {
        let p = self.p;
        let val_id = op_id(inst, 1)?;
        if self.rows.contains_key(&val_id) {
            let pv = self.val(ptr)?;
            self.refuse_unchecked_race(ptr)?;
            if self.store_rows(&pv, val_id)? {
                return Ok(());
            }
        }
        let mut t = self.ty(val_id)?;
        let mut v = self.val(val_id)?;
        let pv = self.val(ptr)?;
        // Halves are stored as their 16 bits.
        if crate::codegen::half::is_half(p, self.type_of_id(val_id)?) {
            // (Checked mode guards each access: the general path below.)
            let unrounded = self.unrounded.get(&val_id).cloned();
            if !crate::check::mode().any() && self.half_store_consecutive(&pv, &v, unrounded)? {
                return Ok(());
            }
            v = self.half_narrow(&v)?;
            t = types::I16;
        }
        let comps = match v {
            V::Comp(c) => c,
            v => vec![v],
        };
        self.refuse_unchecked_race(ptr)?;
        let (_, pointee) = p.pointer_type(self.type_of_id(ptr)?)?;
        let bytes = layout(p, pointee)?.size;
        match (self.bounds_guard(ptr, &pv, bytes, true)?, pv) {
            (None, pv) => self.store_through(&pv, &comps, t),
            (Some(g), V::U(a)) => {
                let a = self.guarded_uniform(&g, a)?;
                self.store_through(&V::U(a), &comps, t)
            }
            (Some(g), pv) => self.guarded_store(&g, &pv, &comps, t),
        }
    }

    /// Whether `ptr` points to private memory (`Function` storage): a `volatile` access
    /// there is an ordinary one, since nothing but the work-item itself can see it
    /// (CLBlast's GEMM keeps `volatile int tid` to stop caching across barriers).
    fn private_pointer(&mut self, ptr: Word) -> Result<bool> {
        self.val(ptr)?;
        let ty = self.type_of_id(ptr)?;
        Ok(matches!(
            self.p.pointer_type(ty),
            Ok((StorageClass::Function, _))
        ))
    }

    /// What defines `id`, for a refusal's message.
    fn describe(&self, id: Word) -> String {
        let func = match self.steps {
            Some((split, _)) => &split.func,
            None => &self.plan.inlined.func,
        };
        for b in &func.blocks {
            for i in &b.insts {
                if i.result_id == Some(id) {
                    return format!("Op{:?} in block %{}", i.class.opcode, b.label);
                }
            }
        }
        match self.p.constants.get(&id) {
            Some(c) => format!("constant {c:?}"),
            None => "undefined".into(),
        }
    }

    /// An OpenCL vector type's element type and component count; `(ty, 1)` for others.
    fn vector_type(&self, ty: Word) -> Result<(Word, usize)> {
        Ok(match self.p.ty(ty)? {
            Type::Vector { elem, count } => (*elem, *count as usize),
            _ => (ty, 1),
        })
    }

    fn is_bool(&self, ty: Word) -> bool {
        matches!(self.p.ty(ty), Ok(Type::Bool))
    }

    fn is_vector(&self, ty: Word) -> bool {
        matches!(self.p.ty(ty), Ok(Type::Vector { .. }))
    }

    fn ty(&mut self, id: Word) -> Result<ir::Type> {
        self.val(id)?;
        self.tys
            .get(&id)
            .copied()
            .ok_or_else(|| refuse(format!("type of %{id}")))
    }

    /// The SPIR-V type of value `id`.
    fn type_of_id(&self, id: Word) -> Result<Word> {
        self.spv_tys
            .get(&id)
            .copied()
            .ok_or_else(|| refuse(format!("type of %{id}")))
    }

    fn set(&mut self, inst: &Instruction, t: ir::Type, v: V) -> Result<()> {
        let id = result_id(inst)?;
        let rt = result_type(inst)?;
        // A half computed in `f32` is rounded back once, as in the scalar code.
        let v = if crate::codegen::half::rounds(inst) && crate::codegen::half::is_half(self.p, rt) {
            if self.arithmetic_f32_lanes(inst, &v) {
                self.unrounded.insert(id, v.clone());
            }
            self.half_round(v)?
        } else {
            v
        };
        self.spv_tys.insert(id, rt);
        self.tys.insert(id, t);
        self.vals.insert(id, v);
        Ok(())
    }

    /// Lane `k` of `v` (scalar type `t`).
    fn lane(&mut self, v: &V, k: usize) -> Result<Value> {
        Ok(match v {
            V::U(x) => *x,
            V::Aff(base, step) => {
                if k == 0 {
                    *base
                } else {
                    let t = self.b.func.dfg.value_type(*base);
                    let imm = canon(step.wrapping_mul(k as i64), t);
                    self.b.ins().iadd_imm_s(*base, imm)
                }
            }
            V::Vec(x) => self.b.ins().extractlane(x[k / 4], (k % 4) as u8),
            V::Mask(m) => {
                // A boolean lane is 0 or 1, as in the scalar code.
                let x = self.b.ins().extractlane(*m, k as u8);
                self.b.ins().icmp_imm_u(IntCC::NotEqual, x, 0)
            }
            V::L(l) => l[k],
            V::Ext(e) => {
                let n = match &e.clamp {
                    Some(c) => self.clamped_lane(c, k),
                    None if k == 0 => e.narrow,
                    None => {
                        let imm = canon(e.nstep.wrapping_mul(k as i64), types::I32);
                        self.b.ins().iadd_imm_s(e.narrow, imm)
                    }
                };
                self.ext_at(e, n)
            }
            V::Clamped(c) => self.clamped_lane(c, k),
            V::Zext(x, t) => {
                let l = self.b.ins().extractlane(x[k / 4], (k % 4) as u8);
                self.b.ins().ireduce(*t, l)
            }
            V::F64(x) => self.b.ins().extractlane(x[k / 2], (k % 2) as u8),
            V::Builtin(_) => return Err(refuse("builtin vector used whole")),
            V::Comp(_) => return Err(refuse("an OpenCL vector used as a scalar")),
        })
    }

    /// Load a `t` through `pv` for every lane.
    fn load(&mut self, pv: V, t: ir::Type) -> Result<V> {
        let flags = MemFlagsData::new();
        let size = i64::from(t.bytes());
        if let Some(v) = self.packed_load(&pv, t)? {
            return Ok(v);
        }
        let vt = vec_of(t);
        let fast = match (&pv, vt) {
            (V::U(_), _) | (_, None) => None,
            (_, Some(_)) => self.consecutive(&pv, size),
        };
        Ok(match (pv, fast, vt) {
            (V::U(a), _, _) => V::U(self.b.ins().load(t, flags, a, 0)),
            (_, Some((a, None)), Some(vt)) => V::Vec(self.load_parts(vt, a)),
            (pv, Some((a, Some(ok))), Some(vt)) => {
                // One vector load where the widened index does not wrap, else lane by lane.
                let (vec_blk, lanes_blk, join) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                let x: Vec<Value> = (0..self.w / 4)
                    .map(|_| self.b.append_block_param(join, vt))
                    .collect();
                let c = self.carry(join);
                self.b.ins().brif(ok, vec_blk, &[], lanes_blk, &[]);
                self.b.switch_to_block(vec_blk);
                let fast = self.load_parts(vt, a);
                let mut args: Vec<BlockArg> = fast.into_iter().map(BlockArg::Value).collect();
                args.extend(self.carry_args(&c, false));
                self.b.ins().jump(join, &args);
                self.b.switch_to_block(lanes_blk);
                let slow = self.gather_via_stack(&pv, t, vt)?;
                let mut args: Vec<BlockArg> = slow.into_iter().map(BlockArg::Value).collect();
                args.extend(self.carry_args(&c, true));
                self.b.ins().jump(join, &args);
                self.b.switch_to_block(join);
                self.carried(c);
                V::Vec(x)
            }
            (a, _, _) => {
                let addr = self.lanes(&a)?;
                let l: Vec<Value> = addr
                    .iter()
                    .map(|a| self.b.ins().load(t, flags, *a, 0))
                    .collect();
                self.gathered(t, l)
            }
        })
    }

    /// A consecutive load of `char`/`short` lanes (zero-extended into `i32x4` parts,
    /// [`V::Zext`]) or `double` lanes (`f64x2` parts, [`V::F64`]): whole vectors, behind
    /// the run-time test that a widened index does not wrap where there is one (else lane
    /// by lane); `None` for other loads. Every lane is active in any [`Self::load`]:
    /// masked mode calls it only then.
    fn packed_load(&mut self, pv: &V, t: ir::Type) -> Result<Option<V>> {
        let small = small_ints::small(t);
        if !(small || t == types::F64) || matches!(pv, V::U(_)) {
            return Ok(None);
        }
        let Some((a, test)) = self.consecutive(pv, i64::from(t.bytes())) else {
            return Ok(None);
        };
        let whole = |s: &mut Self| {
            if small {
                V::Zext(s.zext_load(a, t), t)
            } else {
                V::F64(s.f64_load_at(a))
            }
        };
        let Some(ok) = test else {
            return Ok(Some(whole(self)));
        };
        let (vec_blk, lanes_blk, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let (pt, n) = if small {
            (types::I32X4, self.w / 4)
        } else {
            (types::F64X2, self.w / 2)
        };
        let params: Vec<Value> = (0..n)
            .map(|_| self.b.append_block_param(join, pt))
            .collect();
        let c = self.carry(join);
        self.b.ins().brif(ok, vec_blk, &[], lanes_blk, &[]);
        self.b.switch_to_block(vec_blk);
        let v = whole(self);
        let mut args = self.packed_parts(&v, t)?;
        args.extend(self.carry_args(&c, false));
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(lanes_blk);
        let addr = self.lanes(pv)?;
        let l: Vec<Value> = addr
            .iter()
            .map(|a| self.b.ins().load(t, MemFlagsData::new(), *a, 0))
            .collect();
        let mut args = self.packed_parts(&V::L(l), t)?;
        args.extend(self.carry_args(&c, true));
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        self.carried(c);
        Ok(Some(if small {
            V::Zext(params, t)
        } else {
            V::F64(params)
        }))
    }

    /// `v` (`char`/`short` or `double` lanes) as the parts [`Self::packed_load`] makes,
    /// as block arguments.
    fn packed_parts(&mut self, v: &V, t: ir::Type) -> Result<Vec<BlockArg>> {
        let parts = if t == types::F64 {
            self.f64_parts(v)?
        } else {
            self.zext_parts(v, t)?
        };
        Ok(parts.into_iter().map(BlockArg::Value).collect())
    }

    /// Load `n` components of scalar type `t` through `pv` (an `OpLoad`'s access).
    fn load_through(&mut self, pv: V, n: usize, t: ir::Type) -> Result<V> {
        if let Some(v) = self.packed_small_load(&pv, n, t) {
            return Ok(v);
        }
        if let Some((a, test)) = self.consecutive_vec4(&pv, n, t) {
            // Each four lanes' float4s one after another: four loads and a
            // transpose (where the index's test holds; else component by
            // component).
            let vt = vec_of(t).unwrap_or(t);
            let h = self.w / 4;
            let (fast, slow, join) = (
                self.b.create_block(),
                self.b.create_block(),
                self.b.create_block(),
            );
            let params: Vec<Value> = (0..4 * h)
                .map(|_| self.b.append_block_param(join, vt))
                .collect();
            let as_comps = |cols: Vec<Value>| -> V {
                // `cols[c * h + j]`: component c, lanes 4j .. 4j + 4.
                V::Comp(cols.chunks(h).map(|c| V::Vec(c.to_vec())).collect())
            };
            let Some(ok) = test else {
                let cols = self.load_vec4s(vt, a);
                return Ok(as_comps(cols));
            };
            let carry = self.carry(join);
            self.b.ins().brif(ok, fast, &[], slow, &[]);
            self.b.switch_to_block(fast);
            let cols = self.load_vec4s(vt, a);
            let mut args: Vec<BlockArg> = cols.into_iter().map(BlockArg::Value).collect();
            args.extend(self.carry_args(&carry, false));
            self.b.ins().jump(join, &args);
            self.b.switch_to_block(slow);
            let mut args = Vec::with_capacity(4 * h);
            for c in 0..4 {
                let ca = self.component_address(&pv, c, t)?;
                let x = self.load(ca, t)?;
                args.extend(self.vector(&x, t)?.into_iter().map(BlockArg::Value));
            }
            args.extend(self.carry_args(&carry, true));
            self.b.ins().jump(join, &args);
            self.b.switch_to_block(join);
            self.carried(carry);
            return Ok(as_comps(params));
        }
        let mut comps = Vec::with_capacity(n);
        for c in 0..n {
            let a = self.component_address(&pv, c, t)?;
            comps.push(match self.mask {
                Some(m) => self.load_masked(a, t, m)?,
                None => self.load(a, t)?,
            });
        }
        let v = if n == 1 {
            comps.pop().ok_or_else(|| refuse("load"))?
        } else {
            V::Comp(comps)
        };
        Ok(v)
    }

    /// Store `comps` (components of scalar type `t`) through `pv` (an `OpStore`'s
    /// access).
    fn store_through(&mut self, pv: &V, comps: &[V], t: ir::Type) -> Result<()> {
        if self.packed_small_store(pv, comps, t)? {
            return Ok(());
        }
        if let Some((a, test)) = self.consecutive_vec4(pv, comps.len(), t) {
            // The transpose back and four stores (where the index's test holds;
            // else component by component).
            let (fast, slow, join) = (
                self.b.create_block(),
                self.b.create_block(),
                self.b.create_block(),
            );
            let mut carry = carry::Carry::default();
            if let Some(ok) = test {
                carry = self.carry(join);
                self.b.ins().brif(ok, fast, &[], slow, &[]);
                self.b.switch_to_block(slow);
                for (c, v) in comps.iter().enumerate() {
                    let ca = self.component_address(pv, c, t)?;
                    self.store(&ca, v, t)?;
                }
                let args = self.carry_args(&carry, true);
                self.b.ins().jump(join, &args);
            } else {
                self.b.ins().jump(fast, &[]);
            }
            self.b.switch_to_block(fast);
            let mut cols = Vec::with_capacity(4);
            for v in comps {
                cols.push(self.vector(v, t)?);
            }
            let h = self.w / 4;
            for (j, base) in (0..h).map(|j| (j, 64 * j as i32)) {
                let part = [0, 1, 2, 3].map(|c: usize| cols[c][j]);
                let rows = self.transpose4(part);
                for (k, r) in rows.iter().enumerate() {
                    let off = base + 16 * k as i32;
                    self.b.ins().store(MemFlagsData::new(), *r, a, off);
                }
            }
            let args = self.carry_args(&carry, false);
            self.b.ins().jump(join, &args);
            self.b.switch_to_block(join);
            self.carried(carry);
            return Ok(());
        }
        for (c, v) in comps.iter().enumerate() {
            let a = self.component_address(pv, c, t)?;
            match self.mask {
                Some(m) => self.store_masked(&a, v, t, m)?,
                None => self.store(&a, v, t)?,
            }
        }
        Ok(())
    }

    /// The lanes of a consecutive load whose widened index wrapped (a path almost never
    /// taken, which shares the loop's registers): each lane's element is copied into a
    /// stack slot as soon as its address is computed, and the slot read as whole vectors.
    /// Gathered into registers instead, all `w` addresses were live at once, and the
    /// register allocator spilled the loop's own counters to make room for them.
    fn gather_via_stack(&mut self, pv: &V, t: ir::Type, vt: ir::Type) -> Result<Vec<Value>> {
        let size = t.bytes();
        let slot = self.b.create_sized_stack_slot(ir::StackSlotData::new(
            ir::StackSlotKind::ExplicitSlot,
            size * self.w as u32,
            4,
        ));
        for (k, a) in self.lanes(pv)?.into_iter().enumerate() {
            let x = self.b.ins().load(t, MemFlagsData::new(), a, 0);
            self.b
                .ins()
                .stack_store(types::I64, x, slot, (size as usize * k) as i32);
        }
        Ok((0..self.w * size as usize / 16)
            .map(|j| self.b.ins().stack_load(types::I64, vt, slot, 16 * j as i32))
            .collect())
    }

    /// The consecutive lanes at `a` as 128-bit values of type `vt`.
    fn load_parts(&mut self, vt: ir::Type, a: Value) -> Vec<Value> {
        (0..self.w / 4)
            .map(|j| self.b.ins().load(vt, MemFlagsData::new(), a, 16 * j as i32))
            .collect()
    }

    /// Store 128-bit values `x` to consecutive lanes at `a`.
    fn store_parts(&mut self, x: &[Value], a: Value) {
        for (j, p) in x.iter().enumerate() {
            self.b
                .ins()
                .store(MemFlagsData::new(), *p, a, 16 * j as i32);
        }
    }

    /// Store `v` (scalar type `t`) through `pv` for every lane.
    fn store(&mut self, pv: &V, v: &V, t: ir::Type) -> Result<()> {
        let flags = MemFlagsData::new();
        // Whole vectors: `float`/`int` lanes, and `char`/`short` or `double` lanes kept
        // in parts ([`V::Zext`], [`V::F64`]). Every lane is active in any `store`:
        // masked mode calls it only then.
        let packed = matches!(v, V::Zext(..) | V::F64(_));
        let fast = match pv {
            V::U(_) => None,
            _ if packed || vec_of(t).is_some() => self.consecutive(pv, i64::from(t.bytes())),
            _ => None,
        };
        let Some((a, test)) = fast else {
            return self.store_lanes(pv, v, flags);
        };
        let whole = |s: &mut Self| -> Result<()> {
            match v {
                V::Zext(parts, _) => s.zext_store(parts, a, t),
                V::F64(parts) => s.store_parts(parts, a),
                _ => {
                    let x = s.vector(v, t)?;
                    s.store_parts(&x, a);
                }
            }
            Ok(())
        };
        let Some(ok) = test else {
            return whole(self);
        };
        // One vector store where the widened index does not wrap, else lane by lane.
        let (vec_blk, lanes_blk, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let c = self.carry(join);
        self.b.ins().brif(ok, vec_blk, &[], lanes_blk, &[]);
        self.b.switch_to_block(vec_blk);
        whole(self)?;
        let args = self.carry_args(&c, false);
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(lanes_blk);
        self.store_lanes(pv, v, flags)?;
        let args = self.carry_args(&c, true);
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        self.carried(c);
        Ok(())
    }

    /// An atomic operation per lane, in lane order, as the scalar translator lowers it
    /// (`codegen/atomic.rs`, `memory_model.rs`). Under a mask, a locked one runs for the
    /// active lanes only (a branch per lane); a plain one (private and local memory) for
    /// every lane, an inactive lane's on a spare slot.
    fn atomic(&mut self, inst: &Instruction) -> Result<()> {
        use crate::codegen::atomic::{
            atomic_load, atomic_store, cas, float_rmw, float_rmw_op, rmw, rmw_op,
        };
        let op = inst.class.opcode;
        let ptr = op_id(inst, 0)?;
        let addr = self.val(ptr)?;
        let (class, pointee) = self.p.pointer_type(self.type_of_id(ptr)?)?;
        let lowering = crate::memory_model::atomic_lowering(class);
        if crate::codegen::half::is_half(self.p, pointee) {
            return Err(refuse("atomic on a half"));
        }
        let t = scalar_ty(self.p, pointee)?;
        let is_cas = matches!(
            op,
            Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak
        );
        let float_op = float_rmw_op(op);
        let exchange_like =
            is_cas || matches!(op, Op::AtomicLoad | Op::AtomicStore | Op::AtomicExchange);
        let supported = match (float_op, t) {
            (Some(_), types::F32 | types::F64) => true,
            (None, types::I32 | types::I64) => true,
            (None, types::F32) => exchange_like,
            _ => false,
        };
        if !supported {
            return Err(refuse(format!("Op{op:?} on {t}")));
        }
        let addr = self.lanes(&addr)?;
        let operand = match op {
            Op::AtomicLoad => None,
            Op::AtomicIIncrement | Op::AtomicIDecrement => {
                let one = self.b.ins().iconst(t, 1);
                Some(vec![one; self.w])
            }
            // Compare-exchange: the new value (operand 4) here, the comparator below.
            _ => {
                let v = self.val(op_id(inst, if is_cas { 4 } else { 3 })?)?;
                Some(self.lanes(&v)?)
            }
        };
        let comparator = if is_cas {
            let c = self.val(op_id(inst, 5)?)?;
            Some(self.lanes(&c)?)
        } else {
            None
        };
        // One lane's operation at address `a`.
        let run = |s: &mut Self, k: usize, a: Value| -> Result<Value> {
            Ok(match (op, &operand) {
                (Op::AtomicLoad, _) => atomic_load(s.b, lowering, t, a),
                (Op::AtomicStore, Some(v)) => {
                    atomic_store(s.b, lowering, v[k], a);
                    zero_of(s.b, t)
                }
                (_, Some(v)) if float_op.is_some() => {
                    let fop = float_op.ok_or_else(|| refuse("float atomic"))?;
                    float_rmw(s.b, lowering, fop, t, a, v[k])
                }
                (_, Some(v)) if is_cas => {
                    let c = comparator.as_ref().ok_or_else(|| refuse("comparator"))?;
                    cas(s.b, lowering, t, a, c[k], v[k])
                }
                (_, Some(v)) => {
                    let rop = rmw_op(op).ok_or_else(|| refuse(format!("Op{op:?}")))?;
                    rmw(s.b, lowering, rop, t, a, v[k])
                }
                _ => return Err(refuse(format!("Op{op:?}"))),
            })
        };
        let mut out = Vec::with_capacity(self.w);
        match self.mask {
            None => {
                for (k, a) in addr.iter().enumerate() {
                    out.push(run(self, k, *a)?);
                }
            }
            Some(m) if lowering == crate::memory_model::AtomicLowering::Plain => {
                // A plain load-op-store: every lane runs it when all are active, else
                // each inactive lane on a spare slot (no branch per lane either way).
                let (all, some, join) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                let full = self.b.ins().vall_true(m);
                self.b.ins().brif(full, all, &[], some, &[]);
                for (blk, spare) in [(all, false), (some, true)] {
                    self.b.switch_to_block(blk);
                    let addr = if spare {
                        let spare = self.spare_addr();
                        self.active_or(&addr, m, spare)
                    } else {
                        addr.clone()
                    };
                    let mut args = Vec::with_capacity(self.w);
                    for (k, a) in addr.iter().enumerate() {
                        args.push(BlockArg::Value(run(self, k, *a)?));
                    }
                    self.b.ins().jump(join, &args);
                }
                self.b.switch_to_block(join);
                out = (0..self.w)
                    .map(|_| self.b.append_block_param(join, t))
                    .collect();
            }
            Some(m) => {
                // Only the active lanes, in lane order.
                for (k, a) in addr.iter().enumerate() {
                    let (on_blk, next) = (self.b.create_block(), self.b.create_block());
                    let x = self.b.append_block_param(next, t);
                    let on = self.b.ins().extractlane(m, k as u8);
                    let z = zero_of(self.b, t);
                    self.b
                        .ins()
                        .brif(on, on_blk, &[], next, &[BlockArg::Value(z)]);
                    self.b.switch_to_block(on_blk);
                    let r = run(self, k, *a)?;
                    self.b.ins().jump(next, &[BlockArg::Value(r)]);
                    self.b.switch_to_block(next);
                    out.push(x);
                }
            }
        }
        if inst.result_id.is_some() {
            let v = self.gathered(t, out);
            self.set(inst, t, v)?;
        }
        Ok(())
    }

    /// An instruction on OpenCL vectors, translated once per component: each operand that
    /// is a vector gives its component (a scalar operand is used for every component), the
    /// result type is the element type, and the results make the vector.
    fn per_component(&mut self, inst: &Inst, rt: Word) -> Result<()> {
        if self.rows_op(inst, rt)? {
            return Ok(());
        }
        let (elem, n) = self.vector_type(rt)?;
        let mut comps = Vec::with_capacity(n);
        for c in 0..n {
            let mut one = inst.clone();
            if inst.op() == Op::VectorTimesScalar {
                *one = Instruction::new(Op::FMul, None, None, inst.operands.clone());
            }
            one.result_type = Some(elem);
            one.result_id = Some(self.tmp_id()?);
            for o in one.operands.iter_mut() {
                let Operand::IdRef(id) = o else { continue };
                let id0 = *id;
                if self.p.ext_imports.contains_key(&id0) || self.p.functions.contains_key(&id0) {
                    continue;
                }
                if let V::Comp(parts) = self.val(id0)? {
                    let part = parts
                        .get(c)
                        .cloned()
                        .ok_or_else(|| refuse("vector operand sizes"))?;
                    let spv = self.type_of_id(id0)?;
                    let (pe, _) = self.vector_type(spv)?;
                    let tmp = self.tmp_id()?;
                    let t = scalar_ty(self.p, pe)?;
                    self.vals.insert(tmp, part);
                    self.tys.insert(tmp, t);
                    self.spv_tys.insert(tmp, pe);
                    *id = tmp;
                }
            }
            self.inst(&one)?;
            let r = result_id(&one)?;
            comps.push(
                self.vals
                    .get(&r)
                    .cloned()
                    .ok_or_else(|| refuse("component"))?,
            );
        }
        let t = scalar_ty(self.p, elem)?;
        self.set(inst, t, V::Comp(comps))
    }

    fn tmp_id(&mut self) -> Result<Word> {
        let id = self.next_tmp;
        self.next_tmp = self
            .next_tmp
            .checked_add(1)
            .ok_or_else(|| refuse("too many vector components"))?;
        Ok(id)
    }

    /// The address of component `c` (of scalar type `t`) of the vector `ptr` points at.
    fn component_address(&mut self, ptr: &V, c: usize, t: ir::Type) -> Result<V> {
        if c == 0 {
            return Ok(ptr.clone());
        }
        let off = self
            .b
            .ins()
            .iconst(types::I64, (c as u32 * t.bytes()) as i64);
        self.add(ptr, &V::U(off), types::I64, false)
    }

    /// When `ptr` points at consecutive 4-component vectors of a 32-bit type, one per lane
    /// (a `float4` array indexed by the work-item), and all lanes run: lane 0's address,
    /// and the run-time test it depends on (a widened or clamped index), if any.
    fn consecutive_vec4(
        &mut self,
        ptr: &V,
        n: usize,
        t: ir::Type,
    ) -> Option<(Value, Option<Value>)> {
        if n != 4 || vec_of(t).is_none() || !self.all_lanes() {
            return None;
        }
        self.consecutive(ptr, 16)
    }

    /// The lanes' 4-component vectors at `a`, one after another, as columns: component `c`
    /// of lanes `4j .. 4j + 4` at index `c × (w / 4) + j`.
    fn load_vec4s(&mut self, vt: ir::Type, a: Value) -> Vec<Value> {
        let h = self.w / 4;
        let mut cols = vec![a; 4 * h];
        for j in 0..h {
            let rows: Vec<Value> = (0..4)
                .map(|k| {
                    let off = 64 * j as i32 + 16 * k;
                    self.b.ins().load(vt, MemFlagsData::new(), a, off)
                })
                .collect();
            let tr = self.transpose4([rows[0], rows[1], rows[2], rows[3]]);
            for (c, x) in tr.into_iter().enumerate() {
                cols[c * h + j] = x;
            }
        }
        cols
    }

    /// Transpose four 4-lane vectors (rows ↔ columns), as `unpcklps`/`unpckhps` then
    /// `movlhps`/`movhlps` do.
    fn transpose4(&mut self, r: [Value; 4]) -> [Value; 4] {
        let t0 = self.shuffle32(r[0], r[1], [0, 4, 1, 5]);
        let t1 = self.shuffle32(r[2], r[3], [0, 4, 1, 5]);
        let t2 = self.shuffle32(r[0], r[1], [2, 6, 3, 7]);
        let t3 = self.shuffle32(r[2], r[3], [2, 6, 3, 7]);
        [
            self.shuffle32(t0, t1, [0, 1, 4, 5]),
            self.shuffle32(t0, t1, [2, 3, 6, 7]),
            self.shuffle32(t2, t3, [0, 1, 4, 5]),
            self.shuffle32(t2, t3, [2, 3, 6, 7]),
        ]
    }

    /// The 32-bit lanes `lanes` of `x`:`y` (each 0-3 of `x`, 4-7 of `y`), as `x`'s type.
    fn shuffle32(&mut self, x: Value, y: Value, lanes: [u8; 4]) -> Value {
        let vt = self.b.func.dfg.value_type(x);
        let mut m = [0u8; 16];
        for (i, l) in lanes.iter().enumerate() {
            for j in 0..4 {
                m[4 * i + j] = 4 * l + j as u8;
            }
        }
        let imm = self.b.func.dfg.immediates.push(m.to_vec().into());
        let order = lane_order();
        let x8 = self.b.ins().bitcast(types::I8X16, order, x);
        let y8 = self.b.ins().bitcast(types::I8X16, order, y);
        let r = self.b.ins().shuffle(x8, y8, imm);
        self.b.ins().bitcast(vt, order, r)
    }

    /// Zero- or sign-extend `x` from `ts` to `td`.
    fn extend(&mut self, x: V, ts: ir::Type, td: ir::Type, signed: bool) -> Result<V> {
        let ext = |s: &mut Self, v: Value| {
            if signed {
                s.b.ins().sextend(td, v)
            } else {
                s.b.ins().uextend(td, v)
            }
        };
        Ok(match x {
            V::U(v) => V::U(ext(self, v)),
            // Steps up to 2^24 keep the wrap test's bounds simple.
            V::Aff(n, st)
                if ts == types::I32 && td == types::I64 && st.unsigned_abs() < 1 << 24 =>
            {
                V::Ext(Ext {
                    narrow: n,
                    nstep: st,
                    signed,
                    mul: 1,
                    add: None,
                    clamp: None,
                })
            }
            V::Clamped(c) if td == types::I64 => V::Ext(Ext {
                narrow: c.base,
                nstep: c.step,
                signed,
                mul: 1,
                add: None,
                clamp: Some(c),
            }),
            x => {
                let l = self.lanes(&x)?;
                V::L(l.into_iter().map(|v| ext(self, v)).collect())
            }
        })
    }

    /// `addr + idx × stride`, a 32-bit index sign-extended (as the scalar code does).
    fn index(&mut self, addr: &V, idx: Word, stride: u64) -> Result<V> {
        let t = self.ty(idx)?;
        let iv = self.val(idx)?;
        let iv = match t {
            types::I64 => iv,
            types::I32 => self.extend(iv, t, types::I64, true)?,
            _ => return Err(refuse("index type")),
        };
        let scaled = self.mul_const(&iv, stride as i64, types::I64)?;
        self.add(addr, &scaled, types::I64, false)
    }

    /// Store lane by lane, in lane order.
    fn store_lanes(&mut self, ptr: &V, v: &V, flags: MemFlagsData) -> Result<()> {
        let addr = self.lanes(ptr)?;
        let l = self.lanes(v)?;
        for (x, a) in l.iter().zip(&addr) {
            self.b.ins().store(flags, *x, *a, 0);
        }
        Ok(())
    }

    /// `e.add + e.mul × ext(n)`.
    fn ext_at(&mut self, e: &Ext, n: Value) -> Value {
        let w = if e.signed {
            self.b.ins().sextend(types::I64, n)
        } else {
            self.b.ins().uextend(types::I64, n)
        };
        let m = if e.mul == 1 {
            w
        } else {
            self.b.ins().imul_imm_s(w, e.mul)
        };
        match e.add {
            Some(a) => self.b.ins().iadd(a, m),
            None => m,
        }
    }

    /// Lane `k` of a clamped value.
    fn clamped_lane(&mut self, c: &Clamp, k: usize) -> Value {
        let x = if k == 0 {
            c.base
        } else {
            let imm = canon(c.step.wrapping_mul(k as i64), types::I32);
            self.b.ins().iadd_imm_s(c.base, imm)
        };
        // min(max(x, lo), hi), as the scalar code's clamp.
        let x = if c.signed {
            let x = self.b.ins().smax(x, c.lo);
            self.b.ins().smin(x, c.hi)
        } else {
            let x = self.b.ins().umax(x, c.lo);
            self.b.ins().umin(x, c.hi)
        };
        match c.add {
            Some(a) => self.b.ins().iadd(a, x),
            None => x,
        }
    }

    /// Whether no lane of `c` is clamped: its first and last lanes are within bounds and
    /// the lanes do not wrap between them. In 64 bits nothing wraps, and that is
    /// `0 <= base - lo <= hi - lo - span`: one unsigned compare of `base - lo` against a
    /// bound that every access clamped to the same limits shares (and that loops hoist),
    /// where the three 32-bit tests took eight instructions per access (a 5×5 filter's
    /// taps each have one).
    fn unclamped(&mut self, c: &Clamp) -> Value {
        let span = (self.w as i64 - 1) * c.step;
        let wide = |s: &mut Self, x: Value| match c.signed {
            true => s.b.ins().sextend(types::I64, x),
            false => s.b.ins().uextend(types::I64, x),
        };
        let (base, lo, hi) = (wide(self, c.base), wide(self, c.lo), wide(self, c.hi));
        // (`base + span` fits in 32 bits when it is at most `hi`.)
        let d = self.b.ins().isub(base, lo);
        let room = self.b.ins().isub(hi, lo);
        let room = self.b.ins().iadd_imm_s(room, 1 - span);
        let zero = self.b.ins().iconst(types::I64, 0);
        let room = self.b.ins().smax(room, zero);
        self.b.ins().icmp(IntCC::UnsignedLessThan, d, room)
    }

    /// Whether the narrow lanes of `e` do not wrap (so `e` is affine in this iteration).
    fn no_wrap(&mut self, e: &Ext) -> Value {
        let span = (self.w as i64 - 1) * e.nstep.unsigned_abs() as i64;
        let (cc, bound) = match (e.signed, e.nstep > 0) {
            (false, true) => (IntCC::UnsignedLessThanOrEqual, i64::from(u32::MAX) - span),
            (false, false) => (IntCC::UnsignedGreaterThanOrEqual, span),
            (true, true) => (IntCC::SignedLessThanOrEqual, i64::from(i32::MAX) - span),
            (true, false) => (IntCC::SignedGreaterThanOrEqual, i64::from(i32::MIN) + span),
        };
        // The first narrow lane: with a clamp, the one no lane is clamped in.
        let first = match &e.clamp {
            Some(c) => match c.add {
                Some(a) => self.b.ins().iadd(a, c.base),
                None => c.base,
            },
            None => e.narrow,
        };
        self.b.ins().icmp_imm_s(cc, first, canon(bound, types::I32))
    }

    /// A vector access through `ptr` (elements of `size` bytes) if its lanes are
    /// consecutive: `Some((lane 0's address, None))` when they always are (affine with that
    /// step), `Some((address, Some(test)))` when they are where `test` holds (a widened
    /// index), `None` otherwise.
    fn consecutive(&mut self, ptr: &V, size: i64) -> Option<(Value, Option<Value>)> {
        let step = match ptr {
            V::Aff(_, step) => *step,
            V::Ext(e) if e.nstep != 0 => e.mul.wrapping_mul(e.nstep),
            _ => return None,
        };
        if step != size {
            return None;
        }
        self.span(ptr).map(|(a, _, test)| (a, test))
    }

    /// When the lanes of `ptr` are affine (uniform, affine, or a widened index where
    /// `test` holds): lane 0's value, the step, and that test.
    fn span(&mut self, ptr: &V) -> Option<(Value, i64, Option<Value>)> {
        match ptr {
            V::U(a) => Some((*a, 0, None)),
            V::Aff(a, step) => Some((*a, *step, None)),
            V::Ext(e) if e.nstep != 0 => {
                let step = e.mul.wrapping_mul(e.nstep);
                let mut ok = self.no_wrap(e);
                let first = match &e.clamp {
                    Some(c) => {
                        let inside = self.unclamped(c);
                        ok = self.b.ins().band(ok, inside);
                        match c.add {
                            Some(a) => self.b.ins().iadd(a, c.base),
                            None => c.base,
                        }
                    }
                    None => e.narrow,
                };
                let a = self.ext_at(e, first);
                Some((a, step, Some(ok)))
            }
            _ => None,
        }
    }

    /// The instruction that defines `v` when `v` is a uniform value an instruction made
    /// (for reading a constant's immediate).
    fn uniform_def(&self, v: &V) -> Option<ir::InstructionData> {
        let V::U(x) = v else { return None };
        match self.b.func.dfg.value_def(*x) {
            ir::ValueDef::Result(inst, _) => Some(self.b.func.dfg.insts[inst]),
            _ => None,
        }
    }

    /// Whether `v` is the uniform floating-point constant 2.
    fn is_two(&self, v: &V) -> bool {
        match self.uniform_def(v) {
            Some(ir::InstructionData::UnaryIeee32 { imm, .. }) => imm.bits() == 2.0f32.to_bits(),
            Some(ir::InstructionData::UnaryIeee64 { imm, .. }) => imm.bits() == 2.0f64.to_bits(),
            _ => false,
        }
    }

    /// The value of a uniform integer constant (`iconst`), as its immediate's bits.
    fn iconst_of(&self, v: &V) -> Option<i64> {
        match self.uniform_def(v)? {
            ir::InstructionData::UnaryImm {
                opcode: ir::Opcode::Iconst,
                imm,
            } => Some(imm.bits()),
            _ => None,
        }
    }

    /// Every lane of `v`, one scalar each.
    fn lanes(&mut self, v: &V) -> Result<Vec<Value>> {
        (0..self.w).map(|k| self.lane(v, k)).collect()
    }

    /// `v` (scalar type `t`, 32-bit) as Cranelift vectors, four lanes each.
    fn vector(&mut self, v: &V, t: ir::Type) -> Result<Vec<Value>> {
        let vt = vec_of(t).ok_or_else(|| refuse("vector of a 64-bit type"))?;
        Ok(match v {
            V::Vec(x) => x.clone(),
            V::U(x) => vec![self.b.ins().splat(vt, *x); self.w / 4],
            V::Aff(base, step) if vt == types::I32X4 => {
                // The base in every lane plus each lane's constant offset: a splat and one
                // add per 128-bit part, not one insert per lane.
                let b0 = self.b.ins().splat(vt, *base);
                (0..self.w / 4)
                    .map(|part| {
                        let bytes: Vec<u8> = (0..4)
                            .flat_map(|k| {
                                let lane = (part * 4 + k) as i64;
                                (step.wrapping_mul(lane) as i32).to_le_bytes()
                            })
                            .collect();
                        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
                        let offsets = self.b.ins().vconst(vt, c);
                        self.b.ins().iadd(b0, offsets)
                    })
                    .collect()
            }
            V::Mask(_) => return Err(refuse("lane mask used as a value")),
            _ => {
                let l = self.lanes(v)?;
                self.pack(vt, &l)
            }
        })
    }

    /// Scalars `l` (one per lane) as vectors of type `vt`.
    fn pack(&mut self, vt: ir::Type, l: &[Value]) -> Vec<Value> {
        l.chunks(4)
            .map(|c| {
                let mut x = self.b.ins().splat(vt, c[0]);
                for (k, s) in c.iter().enumerate().skip(1) {
                    x = self.b.ins().insertlane(x, *s, k as u8);
                }
                x
            })
            .collect()
    }

    /// `f` on every 128-bit part of `x`.
    fn map1(
        &mut self,
        x: &[Value],
        f: impl Fn(&mut FunctionBuilder, Value) -> Value,
    ) -> Vec<Value> {
        x.iter().map(|v| f(self.b, *v)).collect()
    }

    /// `f` on every pair of 128-bit parts of `x` and `y`.
    fn map2(
        &mut self,
        x: &[Value],
        y: &[Value],
        f: impl Fn(&mut FunctionBuilder, Value, Value) -> Value,
    ) -> Vec<Value> {
        x.iter().zip(y).map(|(a, b)| f(self.b, *a, *b)).collect()
    }

    /// `f` of every lane of `x`: once for a uniform value, else lane by lane; the result
    /// is of scalar type `t`.
    fn per_lane(
        &mut self,
        x: &V,
        t: ir::Type,
        f: impl Fn(&mut FunctionBuilder, Value) -> Value,
    ) -> Result<V> {
        Ok(match x {
            V::U(v) => V::U(f(self.b, *v)),
            x => {
                let l = self.lanes(x)?;
                let l = l.into_iter().map(|v| f(self.b, v)).collect();
                self.gathered(t, l)
            }
        })
    }

    /// A varying result of scalar type `t` from one scalar per lane.
    fn gathered(&mut self, t: ir::Type, l: Vec<Value>) -> V {
        match vec_of(t) {
            Some(vt) => V::Vec(self.pack(vt, &l)),
            None => V::L(l),
        }
    }

    fn inst(&mut self, inst: &Inst) -> Result<()> {
        let p = self.p;
        if self.plan.sub_group_lanes
            && crate::workgroup::regions::is_boundary(inst.class.opcode)
            && !self.ends_region(inst)
        {
            return self.sub_group_op(inst);
        }
        // Decorations that change what an instruction computes (`convert_T_sat`,
        // `convert_T_rte`, …): the lane code takes them where it calls the scalar
        // lowering's lane functions (`codegen/convert.rs`), and nowhere else.
        if inst.effects.changes_result() && !lane_effects_supported(inst) {
            return Err(refuse(format!("Op{:?} with {:?}", inst.op(), inst.effects)));
        }
        if let Some(rt) = inst.result_type {
            if self.is_vector(rt) && componentwise(inst, self.p) {
                return self.per_component(inst, rt);
            }
        }
        match inst.class.opcode {
            Op::Load => {
                let ptr = op_id(inst, 0)?;
                let rt = result_type(inst)?;
                if let Some(b) = p.builtin_of(ptr) {
                    if b == BuiltIn::WorkDim {
                        let t = scalar_ty(p, rt)?;
                        let w = self.inp.ctx_vals[(GroupContext::OFFSET_WORK_DIM / 8) as usize];
                        let v = self.fit(w, t);
                        return self.set(inst, t, V::U(v));
                    }
                    if !matches!(p.ty(rt)?, crate::spirv::Type::Vector { .. }) {
                        let t = scalar_ty(p, rt)?;
                        let v = self.linear_builtin(b, t)?;
                        return self.set(inst, t, v);
                    }
                    return self.set(inst, types::I64, V::Builtin(b));
                }
                // A volatile load is preceded by a fence, as in the scalar code: nothing
                // forwards an earlier access to it or hoists it out of a loop.
                if inst.effects.volatile && !self.private_pointer(ptr)? {
                    self.b.ins().fence();
                }
                let (elem, n) = self.vector_type(rt)?;
                let t = scalar_ty(p, elem)?;
                // Halves are loaded as their 16 bits, then widened.
                let half = crate::codegen::half::is_half(p, elem);
                let lt = if half { types::I16 } else { t };
                let pv = self.val(ptr)?;
                self.refuse_unchecked_race(ptr)?;
                let bytes = layout(p, rt)?.size;
                if !half && n == 4 {
                    if let Some(rows) = self.load_rows(&pv, n, lt)? {
                        self.keep_rows(result_id(inst)?, rt, t, rows);
                        return Ok(());
                    }
                }
                let v = match (self.bounds_guard(ptr, &pv, bytes, false)?, pv) {
                    (None, pv) if half && n == 1 => match self.half_load_consecutive(&pv)? {
                        Some(v) => return self.set(inst, t, v),
                        None => self.load_through(pv, n, lt)?,
                    },
                    (None, pv) => self.load_through(pv, n, lt)?,
                    (Some(g), V::U(a)) => {
                        let a = self.guarded_uniform(&g, a)?;
                        self.load_through(V::U(a), n, lt)?
                    }
                    (Some(g), pv) => self.guarded_load(&g, pv, n, lt)?,
                };
                let v = if half { self.half_widen(v)? } else { v };
                self.set(inst, t, v)
            }
            Op::Store => {
                let ptr = op_id(inst, 0)?;
                if p.builtin_of(ptr).is_some() {
                    return Err(refuse("store to a builtin"));
                }
                // A volatile store is followed by a fence, as in the scalar code
                // (`codegen/memory.rs`): nothing merges it with a later access.
                let fence = inst.effects.volatile && !self.private_pointer(ptr)?;
                self.op_store(inst, ptr)?;
                if fence {
                    self.b.ins().fence();
                }
                Ok(())
            }
            Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain => {
                let rt = result_type(inst)?;
                let (class, _) = p.pointer_type(rt)?;
                if class == StorageClass::Input {
                    return Err(refuse("pointer into a builtin"));
                }
                let base_id = op_id(inst, 0)?;
                let mut addr = self.val(base_id)?;
                let (_, mut cur) = p.pointer_type(self.type_of_id(base_id)?)?;
                let mut first = 1;
                if matches!(
                    inst.class.opcode,
                    Op::PtrAccessChain | Op::InBoundsPtrAccessChain
                ) {
                    let size = layout(p, cur)?.size;
                    addr = self.index(&addr, op_id(inst, 1)?, size)?;
                    first = 2;
                }
                for k in first..inst.operands.len() {
                    let idx = op_id(inst, k)?;
                    match p.ty(cur)?.clone() {
                        Type::Struct { members, .. } => {
                            let m = p.const_u64(idx)? as usize;
                            let offs = crate::layout::member_offsets(p, cur)?;
                            let (mt, mo) = members
                                .get(m)
                                .zip(offs.get(m))
                                .ok_or_else(|| refuse(format!("struct member {m}")))?;
                            let o = self.b.ins().iconst(types::I64, *mo as i64);
                            addr = self.add(&addr, &V::U(o), types::I64, false)?;
                            cur = *mt;
                        }
                        Type::Array { elem, .. }
                        | Type::RuntimeArray { elem }
                        | Type::Vector { elem, .. } => {
                            let stride = crate::layout::elem_stride(p, elem)?;
                            addr = self.index(&addr, idx, stride)?;
                            cur = elem;
                        }
                        _ => return Err(refuse("access chain")),
                    }
                }
                self.set(inst, types::I64, addr)
            }
            Op::CompositeExtract if inst.operands.len() == 2 => {
                let src = self.val(op_id(inst, 0)?)?;
                if let V::Comp(c) = &src {
                    let k = op_lit(inst, 1)? as usize;
                    let x = c.get(k).cloned().ok_or_else(|| refuse("component index"))?;
                    let t = scalar_ty(p, result_type(inst)?)?;
                    return self.set(inst, t, x);
                }
                let V::Builtin(bi) = src else {
                    return Err(refuse("composite"));
                };
                let k = op_lit(inst, 1)? as usize;
                let t = scalar_ty(p, result_type(inst)?)?;
                if k >= 3 || t == types::F32 {
                    return Err(refuse("builtin component"));
                }
                let off = |o: i32| (o / 8) as usize + k;
                let v = match bi {
                    BuiltIn::GlobalInvocationId if k == 0 => V::Aff(self.inp.gid[0], 1),
                    BuiltIn::GlobalInvocationId => V::U(self.inp.gid[k]),
                    BuiltIn::LocalInvocationId if k == 0 => V::Aff(self.inp.lid[0], 1),
                    BuiltIn::LocalInvocationId => V::U(self.inp.lid[k]),
                    BuiltIn::WorkgroupId => {
                        V::U(self.inp.ctx_vals[off(GroupContext::OFFSET_GROUP_ID)])
                    }
                    BuiltIn::NumWorkgroups => {
                        V::U(self.inp.ctx_vals[off(GroupContext::OFFSET_NUM_GROUPS)])
                    }
                    BuiltIn::WorkgroupSize => {
                        V::U(self.inp.ctx_vals[off(GroupContext::OFFSET_LOCAL_SIZE)])
                    }
                    BuiltIn::EnqueuedWorkgroupSize => {
                        V::U(self.inp.ctx_vals[off(GroupContext::OFFSET_ENQUEUED_LOCAL_SIZE)])
                    }
                    BuiltIn::GlobalSize => {
                        V::U(self.inp.ctx_vals[off(GroupContext::OFFSET_GLOBAL_SIZE)])
                    }
                    BuiltIn::GlobalOffset => {
                        V::U(self.inp.ctx_vals[off(GroupContext::OFFSET_GLOBAL_OFFSET)])
                    }
                    b => return Err(refuse(format!("builtin {b:?}"))),
                };
                let v = self.truncate(&v, t)?;
                self.set(inst, t, v)
            }
            Op::UConvert | Op::SConvert | Op::SatConvertSToU | Op::SatConvertUToS
                if inst.effects.saturated
                    || matches!(inst.op(), Op::SatConvertSToU | Op::SatConvertUToS) =>
            {
                // Clamped to the destination's range, lane by lane, as the scalar code.
                let x_id = op_id(inst, 0)?;
                let rt = result_type(inst)?;
                let td = scalar_ty(p, rt)?;
                if !td.is_int() || self.is_bool(rt) || self.is_bool(self.type_of_id(x_id)?) {
                    return Err(refuse("conversion"));
                }
                let src_signed = matches!(inst.op(), Op::SConvert | Op::SatConvertSToU);
                let dst_signed = match inst.op() {
                    Op::SatConvertSToU => false,
                    Op::SatConvertUToS => true,
                    _ => src_signed,
                };
                let x = self.val(x_id)?;
                let v = self.per_lane(&x, td, move |b, v| {
                    convert::int_to_int_clamped(b, v, src_signed, td, dst_signed)
                })?;
                self.set(inst, td, v)
            }
            Op::UConvert | Op::SConvert => {
                let x_id = op_id(inst, 0)?;
                let ts = self.ty(x_id)?;
                let td = scalar_ty(p, result_type(inst)?)?;
                let x = self.val(x_id)?;
                let signed = inst.op() == Op::SConvert;
                let v = if ts == td {
                    x
                } else if td.bits() < ts.bits() {
                    self.truncate(&x, td)?
                } else if let (V::Zext(parts, _), true) = (&x, td.bits() <= 32) {
                    // `char`/`short` lanes widened: as they are, or sign-extended.
                    let wide = self.zext_as_i32(parts, ts, signed);
                    if td == types::I32 {
                        V::Vec(wide)
                    } else {
                        self.zext_of(&wide, td)
                    }
                } else if let (V::Aff(base, step), Shape::Affine(_)) =
                    (&x, self.plan.shapes.shape(result_id(inst)?))
                {
                    // The analysis proved the widening wraps in no lane (the local id):
                    // no run-time test.
                    let base = if signed {
                        self.b.ins().sextend(td, *base)
                    } else {
                        self.b.ins().uextend(td, *base)
                    };
                    V::Aff(base, *step)
                } else {
                    self.extend(x, ts, td, signed)?
                };
                self.set(inst, td, v)
            }
            Op::IAdd | Op::ISub => {
                let t = scalar_ty(p, result_type(inst)?)?;
                let a = self.val(op_id(inst, 0)?)?;
                let b = self.val(op_id(inst, 1)?)?;
                let v = self.add(&a, &b, t, inst.class.opcode == Op::ISub)?;
                self.set(inst, t, v)
            }
            Op::IMul => {
                let t = scalar_ty(p, result_type(inst)?)?;
                let (ai, bi) = (op_id(inst, 0)?, op_id(inst, 1)?);
                let a = self.val(ai)?;
                let b = self.val(bi)?;
                let v = match (self.consts.get(&ai).copied(), self.consts.get(&bi).copied()) {
                    (_, Some(c)) => self.mul_const(&a, c, t)?,
                    (Some(c), _) => self.mul_const(&b, c, t)?,
                    _ => self.low_bits_binary(&a, &b, t, |b, x, y| b.ins().imul(x, y))?,
                };
                self.set(inst, t, v)
            }
            Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
                // A uniform shift amount only (Cranelift shifts vectors by a scalar); the
                // amount is taken modulo the width, as the scalar `ishl`/`ushr`/`sshr` do.
                let t = scalar_ty(p, result_type(inst)?)?;
                let (xi, yi) = (op_id(inst, 0)?, op_id(inst, 1)?);
                let x = self.val(xi)?;
                let op = inst.class.opcode;
                let yv = self.val(yi)?;
                let V::U(y) = yv else {
                    // A varying amount: lane by lane, as the scalar code.
                    let xl = self.lanes(&x)?;
                    let yl = self.lanes(&yv)?;
                    let l = self.map2(&xl, &yl, move |b, v, s| match op {
                        Op::ShiftLeftLogical => b.ins().ishl(v, s),
                        Op::ShiftRightLogical => b.ins().ushr(v, s),
                        _ => b.ins().sshr(v, s),
                    });
                    let v = self.gathered(t, l);
                    return self.set(inst, t, v);
                };
                let shift = move |b: &mut FunctionBuilder, v: Value| match op {
                    Op::ShiftLeftLogical => b.ins().ishl(v, y),
                    Op::ShiftRightLogical => b.ins().ushr(v, y),
                    _ => b.ins().sshr(v, y),
                };
                let c = self.consts.get(&yi).copied();
                let v = match (op, c, &x) {
                    // `(x << 32) >> 32`, LLVM's sign (or zero) extension of an `int` index
                    // in a 64-bit register: the high halves of an affine value whose step
                    // has no low bits are `ext(hi(base) + k × hi(step))`, a widened 32-bit
                    // affine value (one vector access where it does not wrap).
                    (
                        Op::ShiftRightArithmetic | Op::ShiftRightLogical,
                        Some(32),
                        V::Aff(base, st),
                    ) if t == types::I64
                        && st & 0xFFFF_FFFF == 0
                        && (st >> 32).unsigned_abs() < 1 << 24 =>
                    {
                        let hi = self.b.ins().ushr_imm_u(*base, 32);
                        let narrow = self.b.ins().ireduce(types::I32, hi);
                        V::Ext(Ext {
                            narrow,
                            nstep: st >> 32,
                            signed: op == Op::ShiftRightArithmetic,
                            mul: 1,
                            add: None,
                            clamp: None,
                        })
                    }
                    (Op::ShiftLeftLogical, Some(c), _) => {
                        let c = c & i64::from(t.bits() - 1);
                        self.mul_const(&x, 1i64 << c, t)?
                    }
                    (_, _, V::U(v)) => V::U(shift(self.b, *v)),
                    (_, _, V::Zext(parts, _)) => self.zext_shift(parts, t, y, op),
                    _ if vec_of(t).is_some() => {
                        let v = self.vector(&x, t)?;
                        V::Vec(self.map1(&v, shift))
                    }
                    _ => {
                        let l = self.lanes(&x)?;
                        V::L(self.map1(&l, shift))
                    }
                };
                self.set(inst, t, v)
            }
            Op::BitwiseAnd | Op::BitwiseOr | Op::BitwiseXor => {
                let t = scalar_ty(p, result_type(inst)?)?;
                if t == types::F32 {
                    return Err(refuse("bitwise operation on floats"));
                }
                let (ai, bi) = (op_id(inst, 0)?, op_id(inst, 1)?);
                let a = self.val(ai)?;
                let b = self.val(bi)?;
                // `x & 0xFFFFFFFF` of an affine 64-bit value (how clang widens a `uint`
                // work-item id for an index) is the zero extension of its low 32 bits.
                let low32 = |s: &Self, id: Word| s.consts.get(&id) == Some(&0xFFFF_FFFF);
                let masked = match (&a, &b) {
                    (V::Aff(x, st), _) if low32(self, bi) => Some((*x, *st)),
                    (_, V::Aff(x, st)) if low32(self, ai) => Some((*x, *st)),
                    _ => None,
                };
                if let (Op::BitwiseAnd, types::I64, Some((x, st))) = (inst.class.opcode, t, masked)
                {
                    let st = canon(st, types::I32);
                    if st.unsigned_abs() < 1 << 24 {
                        let n = self.b.ins().ireduce(types::I32, x);
                        let v = V::Ext(Ext {
                            narrow: n,
                            nstep: st,
                            signed: false,
                            mul: 1,
                            add: None,
                            clamp: None,
                        });
                        return self.set(inst, t, v);
                    }
                }
                let v = match inst.class.opcode {
                    Op::BitwiseAnd => {
                        self.low_bits_binary(&a, &b, t, |b, x, y| b.ins().band(x, y))?
                    }
                    Op::BitwiseOr => {
                        self.low_bits_binary(&a, &b, t, |b, x, y| b.ins().bor(x, y))?
                    }
                    _ => self.low_bits_binary(&a, &b, t, |b, x, y| b.ins().bxor(x, y))?,
                };
                self.set(inst, t, v)
            }
            Op::FAdd | Op::FSub | Op::FMul | Op::FDiv => {
                let t = scalar_ty(p, result_type(inst)?)?;
                if !t.is_float() {
                    return Err(refuse("float type"));
                }
                let a = self.val(op_id(inst, 0)?)?;
                let b = self.val(op_id(inst, 1)?)?;
                let v = match inst.class.opcode {
                    // `2 × x` as `x + x` (the same bits, NaN, infinities and signed zeros
                    // included): no register holds the constant across a loop (mandelbrot's
                    // `2 × zr × zi` at sixteen lanes needs every register it has).
                    Op::FMul if self.is_two(&a) && !matches!(b, V::U(_)) => {
                        self.binary(&b, &b, t, |b, x, y| b.ins().fadd(x, y))?
                    }
                    Op::FMul if self.is_two(&b) && !matches!(a, V::U(_)) => {
                        self.binary(&a, &a, t, |b, x, y| b.ins().fadd(x, y))?
                    }
                    Op::FAdd => self.binary(&a, &b, t, |b, x, y| b.ins().fadd(x, y))?,
                    Op::FSub => self.binary(&a, &b, t, |b, x, y| b.ins().fsub(x, y))?,
                    Op::FMul => self.binary(&a, &b, t, |b, x, y| b.ins().fmul(x, y))?,
                    _ => self.binary(&a, &b, t, |b, x, y| b.ins().fdiv(x, y))?,
                };
                self.set(inst, t, v)
            }
            Op::FNegate => {
                let t = scalar_ty(p, result_type(inst)?)?;
                if !t.is_float() {
                    return Err(refuse("float type"));
                }
                let v = match self.val(op_id(inst, 0)?)? {
                    V::U(x) => V::U(self.b.ins().fneg(x)),
                    x @ V::F64(_) => self.f64_unary(&x, |b, v| b.ins().fneg(v))?,
                    x if vec_of(t).is_some() => {
                        let x = self.vector(&x, t)?;
                        V::Vec(self.map1(&x, |b, v| b.ins().fneg(v)))
                    }
                    x => {
                        let l = self.lanes(&x)?;
                        V::L(self.map1(&l, |b, v| b.ins().fneg(v)))
                    }
                };
                self.set(inst, t, v)
            }
            Op::FConvert => {
                // float <-> double, rounded to nearest (a rounding-mode decoration was
                // refused above), as the scalar code.
                let t = scalar_ty(p, result_type(inst)?)?;
                let x_id = op_id(inst, 0)?;
                let ts = self.ty(x_id)?;
                let x = self.val(x_id)?;
                // double → half rounds once, from the double (`set` rounds a float).
                let to_half = crate::codegen::half::is_half(p, result_type(inst)?);
                let cvt = move |b: &mut FunctionBuilder, v: Value| {
                    if to_half && ts == types::F64 {
                        crate::codegen::half::round(b, v)
                    } else if t.bits() > ts.bits() {
                        b.ins().fpromote(t, v)
                    } else if t.bits() < ts.bits() {
                        b.ins().fdemote(t, v)
                    } else {
                        v
                    }
                };
                let v = match &x {
                    V::U(_) => self.per_lane(&x, t, cvt)?,
                    // float → double and double → float on whole vectors (`cvtps2pd`,
                    // `cvtpd2ps`: the scalar instructions' results, two lanes at once).
                    x if ts == types::F32 && t == types::F64 => self.f32_to_f64(x)?,
                    V::F64(parts) if t == types::F32 && !to_half => self.f64_to_f32(parts),
                    x => self.per_lane(x, t, cvt)?,
                };
                self.set(inst, t, v)
            }
            Op::Bitcast | Op::PtrCastToGeneric | Op::GenericCastToPtr => {
                // Between pointer types only: the address is unchanged.
                let rt = result_type(inst)?;
                let x_id = op_id(inst, 0)?;
                // (Its value first: a module-scope variable's type is known from then.)
                let v = self.val(x_id)?;
                let st = self.type_of_id(x_id)?;
                let ptr = |t: &Type| matches!(t, Type::Pointer { .. });
                if ptr(p.ty(rt)?) && ptr(p.ty(st)?) {
                    return self.set(inst, types::I64, v);
                }
                if inst.class.opcode != Op::Bitcast {
                    return Err(refuse("bit cast"));
                }
                let half = crate::codegen::half::is_half;
                if half(p, rt) || half(p, st) {
                    return self.half_bit_cast(inst, v, st, rt);
                }
                self.bit_cast(inst, v, st, rt)
            }
            op if crate::codegen::group::is_ballot_local(op) => self.ballot_local(inst),
            Op::GenericCastToPtrExplicit => {
                // `to_global`/`to_local`/`to_private`, lane by lane as the scalar code does.
                let Some(Operand::StorageClass(class)) = inst.operands.get(1) else {
                    return Err(refuse("OpGenericCastToPtrExplicit without a storage class"));
                };
                let class = *class;
                let v = self.val(op_id(inst, 0)?)?;
                let bi = crate::builtins::by_name("ferrite_space_of")
                    .ok_or_else(|| refuse("built-in ferrite_space_of missing"))?;
                let at = convert::SpaceEnv {
                    ctx: self.inp.ctx,
                    wi: self.inp.wi,
                    local_mem: self.inp.local_mem,
                    space_of: self.builtin_fref(&bi)?,
                };
                let out = match v {
                    V::U(x) => V::U(convert::cast_explicit(self.b, &at, x, class)?),
                    v => {
                        let mut l = self.lanes(&v)?;
                        for x in &mut l {
                            *x = convert::cast_explicit(self.b, &at, *x, class)?;
                        }
                        V::L(l)
                    }
                };
                self.set(inst, types::I64, out)
            }
            Op::ExtInst => self.ext_inst(inst),
            Op::CopyMemory | Op::CopyMemorySized => self.copy_memory(inst),
            Op::BitCount => {
                // Lane by lane, as the scalar `popcnt` (x64 counts only byte vectors).
                let t = scalar_ty(p, result_type(inst)?)?;
                let x = self.val(op_id(inst, 0)?)?;
                let v = self.per_lane(&x, t, move |b, v| {
                    let c = b.ins().popcnt(v);
                    match b.func.dfg.value_type(c).bits().cmp(&t.bits()) {
                        std::cmp::Ordering::Greater => b.ins().ireduce(t, c),
                        std::cmp::Ordering::Less => b.ins().uextend(t, c),
                        std::cmp::Ordering::Equal => c,
                    }
                })?;
                self.set(inst, t, v)
            }
            Op::IEqual
            | Op::INotEqual
            | Op::SLessThan
            | Op::SLessThanEqual
            | Op::SGreaterThan
            | Op::SGreaterThanEqual
            | Op::ULessThan
            | Op::ULessThanEqual
            | Op::UGreaterThan
            | Op::UGreaterThanEqual
            | Op::FOrdEqual
            | Op::FOrdNotEqual
            | Op::FOrdLessThan
            | Op::FOrdLessThanEqual
            | Op::FOrdGreaterThan
            | Op::FOrdGreaterThanEqual
            | Op::FUnordEqual
            | Op::FUnordNotEqual
            | Op::FUnordLessThan
            | Op::FUnordLessThanEqual
            | Op::FUnordGreaterThan
            | Op::FUnordGreaterThanEqual
            | Op::Ordered
            | Op::Unordered => self.compare(inst),
            Op::IsNan | Op::IsInf | Op::IsFinite | Op::IsNormal | Op::SignBitSet => {
                self.float_class(inst)
            }
            op if op == Op::AtomicLoad
                || op == Op::AtomicStore
                || op == Op::AtomicCompareExchange
                || op == Op::AtomicCompareExchangeWeak
                || crate::codegen::atomic::rmw_op(op).is_some()
                || crate::codegen::atomic::float_rmw_op(op).is_some() =>
            {
                self.atomic(inst)
            }
            Op::Variable => {
                // Private memory per lane: in a vector step the lanes' frames (the slots the
                // scalar step uses), else four copies on the stack; lane k's is `base + k ×
                // stride`, so accesses through it go lane by lane.
                let rt = result_type(inst)?;
                let (class, pointee) = p.pointer_type(rt)?;
                if class != StorageClass::Function {
                    return Err(refuse(format!("a {class:?} variable")));
                }
                let id = result_id(inst)?;
                let l = layout(p, pointee)?;
                let ptr = match (self.steps, self.inp.frames) {
                    (Some((_, frame)), Some(frames)) => {
                        let off = *frame
                            .vars
                            .get(&id)
                            .ok_or_else(|| refuse(format!("variable %{id} has no frame slot")))?;
                        let base = self.b.ins().iadd_imm_s(frames.base, i64::from(off));
                        V::Aff(base, frames.size)
                    }
                    _ => {
                        let align = l.align.max(1).next_power_of_two();
                        let stride = crate::layout::align_up(l.size.max(1), align);
                        // The lanes' copies of a large private array would not fit the stack.
                        let w = self.w as u64;
                        if stride * w > 64 * 1024 || align > 128 {
                            return Err(refuse(format!("private variable of {} bytes", l.size)));
                        }
                        // Stack slots are aligned to at most 16 bytes: a `float8`'s or
                        // `float16`'s copies (32 and 64) start at the slot's first address
                        // so aligned, in room for the padding.
                        let slot_align = align.min(16);
                        let pad = align - slot_align;
                        let slot = self.b.create_sized_stack_slot(ir::StackSlotData::new(
                            ir::StackSlotKind::ExplicitSlot,
                            (stride * w + pad) as u32,
                            slot_align.trailing_zeros() as u8,
                        ));
                        let mut base = self.b.ins().stack_addr(types::I64, slot, 0);
                        if pad > 0 {
                            let up = self.b.ins().iadd_imm_s(base, pad as i64);
                            base = self.b.ins().band_imm_s(up, -(align as i64));
                        }
                        V::Aff(base, stride as i64)
                    }
                };
                if let Some(Operand::IdRef(init)) = inst.operands.get(1) {
                    // Only a scalar initialiser (a composite one is refused here), not a
                    // half (stored by its bits).
                    scalar_ty(p, pointee)?;
                    if crate::codegen::half::is_half(p, pointee) {
                        return Err(refuse("a half variable's initialiser"));
                    }
                    let v = self.val(*init)?;
                    self.store_lanes(&ptr, &v, MemFlagsData::new())?;
                }
                self.set(inst, types::I64, ptr)
            }
            Op::CompositeConstruct if self.is_vector(result_type(inst)?) => {
                let (elem, n) = self.vector_type(result_type(inst)?)?;
                let t = scalar_ty(p, elem)?;
                let mut comps = Vec::with_capacity(n);
                for k in 0..inst.operands.len() {
                    match self.val(op_id(inst, k)?)? {
                        V::Comp(c) => comps.extend(c),
                        x => comps.push(x),
                    }
                }
                if comps.len() != n {
                    return Err(refuse("vector construction"));
                }
                self.set(inst, t, V::Comp(comps))
            }
            Op::CompositeInsert if inst.operands.len() == 3 => {
                let obj = self.val(op_id(inst, 0)?)?;
                let V::Comp(mut comps) = self.val(op_id(inst, 1)?)? else {
                    return Err(refuse("composite insert"));
                };
                let k = op_lit(inst, 2)? as usize;
                *comps.get_mut(k).ok_or_else(|| refuse("component index"))? = obj;
                let (elem, _) = self.vector_type(result_type(inst)?)?;
                let t = scalar_ty(p, elem)?;
                self.set(inst, t, V::Comp(comps))
            }
            Op::VectorShuffle => {
                let (elem, _) = self.vector_type(result_type(inst)?)?;
                let t = scalar_ty(p, elem)?;
                let mut all = Vec::new();
                for k in 0..2 {
                    match self.val(op_id(inst, k)?)? {
                        V::Comp(c) => all.extend(c),
                        x => all.push(x),
                    }
                }
                let mut comps = Vec::new();
                for k in 2..inst.operands.len() {
                    let i = op_lit(inst, k)?;
                    comps.push(match all.get(i as usize) {
                        Some(x) => x.clone(),
                        // 0xFFFFFFFF: an undefined component.
                        None => V::U(zero_of(self.b, t)),
                    });
                }
                let v = if comps.len() == 1 {
                    comps.pop().ok_or_else(|| refuse("shuffle"))?
                } else {
                    V::Comp(comps)
                };
                self.set(inst, t, v)
            }
            Op::Dot => {
                // Products added in component order, as the scalar code.
                let t = scalar_ty(p, result_type(inst)?)?;
                let (V::Comp(a), V::Comp(b)) =
                    (self.val(op_id(inst, 0)?)?, self.val(op_id(inst, 1)?)?)
                else {
                    return Err(refuse("dot of scalars"));
                };
                let mut acc: Option<V> = None;
                for (x, y) in a.iter().zip(&b) {
                    let m = self.binary(x, y, t, |b, x, y| b.ins().fmul(x, y))?;
                    acc = Some(match acc {
                        None => m,
                        Some(a) => self.binary(&a, &m, t, |b, x, y| b.ins().fadd(x, y))?,
                    });
                }
                self.set(inst, t, acc.ok_or_else(|| refuse("empty dot"))?)
            }
            Op::Any | Op::All => {
                let V::Comp(c) = self.val(op_id(inst, 0)?)? else {
                    return Err(refuse("any/all of a scalar"));
                };
                let any = inst.class.opcode == Op::Any;
                let mut acc: Option<V> = None;
                for x in &c {
                    acc = Some(match (acc, x) {
                        (None, x) => x.clone(),
                        (Some(V::U(a)), V::U(y)) => V::U(if any {
                            self.b.ins().bor(a, *y)
                        } else {
                            self.b.ins().band(a, *y)
                        }),
                        (Some(a), y) => {
                            let (ma, my) = (self.mask(&a)?, self.mask(y)?);
                            V::Mask(if any {
                                self.b.ins().bor(ma, my)
                            } else {
                                self.b.ins().band(ma, my)
                            })
                        }
                    });
                }
                self.set(inst, types::I8, acc.ok_or_else(|| refuse("empty any/all"))?)
            }
            Op::ConvertPtrToU | Op::ConvertUToPtr => {
                // Addresses are 64-bit integers: a no-op, a truncation or a zero extension.
                let x_id = op_id(inst, 0)?;
                let ts = self.ty(x_id)?;
                let td = scalar_ty(p, result_type(inst)?)?;
                let x = self.val(x_id)?;
                let v = match td.bits().cmp(&ts.bits()) {
                    std::cmp::Ordering::Equal => x,
                    std::cmp::Ordering::Less => self.truncate(&x, td)?,
                    std::cmp::Ordering::Greater => self.extend(x, ts, td, false)?,
                };
                self.set(inst, td, v)
            }
            Op::UDiv | Op::UMod | Op::SDiv | Op::SRem | Op::SMod => {
                // Lane by lane (x64 has no vector integer division), never trapping: an
                // inactive lane's divisor may be anything.
                // Every width: char and short lanes are 8- and 16-bit values, as the scalar
                // code's, so the same sequence gives the same bits.
                let t = scalar_ty(p, result_type(inst)?)?;
                if !t.is_int() {
                    return Err(refuse(format!("division of a {t}")));
                }
                let a = self.val(op_id(inst, 0)?)?;
                let b = self.val(op_id(inst, 1)?)?;
                let op = inst.class.opcode;
                if let Some(v) = self.divide_lanes(op, &a, &b, t)? {
                    return self.set(inst, t, v);
                }
                let v = match (&a, &b) {
                    (V::U(x), V::U(y)) => V::U(crate::codegen::arith::div_rem(self.b, op, *x, *y)),
                    _ => {
                        let x = self.lanes(&a)?;
                        let y = self.lanes(&b)?;
                        let l = self.map2(&x, &y, |b, x, y| {
                            crate::codegen::arith::div_rem(b, op, x, y)
                        });
                        self.gathered(t, l)
                    }
                };
                self.set(inst, t, v)
            }
            Op::LogicalAnd | Op::LogicalOr | Op::LogicalEqual | Op::LogicalNotEqual => {
                let a = self.val(op_id(inst, 0)?)?;
                let b = self.val(op_id(inst, 1)?)?;
                let op = inst.class.opcode;
                let f = move |bb: &mut FunctionBuilder, x: Value, y: Value| match op {
                    Op::LogicalAnd => bb.ins().band(x, y),
                    Op::LogicalOr => bb.ins().bor(x, y),
                    Op::LogicalEqual => {
                        let d = bb.ins().bxor(x, y);
                        bb.ins().bxor_imm_s(d, -1)
                    }
                    _ => bb.ins().bxor(x, y),
                };
                let v = match (&a, &b) {
                    (V::U(x), V::U(y)) => {
                        let r = f(self.b, *x, *y);
                        // Booleans are 0 or 1: `LogicalEqual`'s xor with all ones is
                        // masked back.
                        V::U(if op == Op::LogicalEqual {
                            self.b.ins().band_imm_u(r, 1)
                        } else {
                            r
                        })
                    }
                    (V::Mask(x), V::Mask(y)) => V::Mask(f(self.b, *x, *y)),
                    _ => {
                        let x = self.mask(&a)?;
                        let y = self.mask(&b)?;
                        V::Mask(f(self.b, x, y))
                    }
                };
                self.set(inst, types::I8, v)
            }
            Op::LogicalNot => {
                let v = match self.val(op_id(inst, 0)?)? {
                    V::U(x) => V::U(self.b.ins().bxor_imm_u(x, 1)),
                    x => {
                        let m = self.mask(&x)?;
                        V::Mask(self.b.ins().bnot(m))
                    }
                };
                self.set(inst, types::I8, v)
            }
            Op::Select => {
                let rt = result_type(inst)?;
                let t = scalar_ty(p, rt)?;
                let c = self.val(op_id(inst, 0)?)?;
                let a = self.val(op_id(inst, 1)?)?;
                let b = self.val(op_id(inst, 2)?)?;
                let v = match (&c, &a, &b) {
                    (V::U(c), V::U(x), V::U(y)) => V::U(self.b.ins().select(*c, *x, *y)),
                    // A select of booleans (clang's `a && b` in a loop condition) is a
                    // blend of masks, not one select per lane.
                    // With a constant operand (`c ? a : false` is `c && a`), one `and` or
                    // `or` instead of the three instructions of a blend.
                    _ if self.is_bool(rt) => {
                        let m = self.mask(&c)?;
                        let known = |s: &Self, k: usize| -> Result<Option<i64>> {
                            Ok(s.consts.get(&op_id(inst, k)?).copied())
                        };
                        V::Mask(match (known(self, 1)?, known(self, 2)?) {
                            (_, Some(0)) => {
                                let x = self.mask(&a)?;
                                self.b.ins().band(m, x)
                            }
                            (Some(0), _) => {
                                let y = self.mask(&b)?;
                                self.b.ins().band_not(y, m)
                            }
                            (Some(_), _) => {
                                let y = self.mask(&b)?;
                                self.b.ins().bor(m, y)
                            }
                            (_, Some(_)) => {
                                let x = self.mask(&a)?;
                                self.b.ins().bor_not(x, m)
                            }
                            (None, None) => {
                                let x = self.mask(&a)?;
                                let y = self.mask(&b)?;
                                self.b.ins().bitselect(m, x, y)
                            }
                        })
                    }
                    (c, _, _) if doubles::any_f64(t, &[&a, &b]) => {
                        let x = self.f64_parts(&a)?;
                        let y = self.f64_parts(&b)?;
                        V::F64(match c {
                            V::U(c) => {
                                let c = *c;
                                self.map2(&x, &y, |b, x, y| b.ins().select(c, x, y))
                            }
                            c => {
                                let m = self.mask(c)?;
                                self.f64_select(m, &x, &y)
                            }
                        })
                    }
                    (V::U(c), _, _) if vec_of(t).is_some() => {
                        let c = *c;
                        let x = self.vector(&a, t)?;
                        let y = self.vector(&b, t)?;
                        V::Vec(self.map2(&x, &y, |b, x, y| b.ins().select(c, x, y)))
                    }
                    (_, _, _) if vec_of(t).is_some() => {
                        let m = self.mask(&c)?;
                        let x = self.vector(&a, t)?;
                        let y = self.vector(&b, t)?;
                        V::Vec(self.select_parts(m, &x, &y))
                    }
                    // `char`/`short` lanes in `i32x4` parts, or uniform ones under a
                    // varying condition (`v | sext(v > k)`): blended there.
                    (c, _, _)
                        if Self::zext_pair(&a, &b, t)
                            || (small_ints::small(t)
                                && matches!(c, V::Mask(_))
                                && matches!((&a, &b), (V::U(_), V::U(_)))) =>
                    {
                        let m = self.mask(c)?;
                        let x = self.zext_parts(&a, t)?;
                        let y = self.zext_parts(&b, t)?;
                        V::Zext(self.select_parts(m, &x, &y), t)
                    }
                    _ => {
                        let cl = self.lanes(&c)?;
                        let x = self.lanes(&a)?;
                        let y = self.lanes(&b)?;
                        let l = (0..self.w)
                            .map(|k| self.b.ins().select(cl[k], x[k], y[k]))
                            .collect();
                        V::L(l)
                    }
                };
                self.set(inst, t, v)
            }
            Op::ConvertSToF | Op::ConvertUToF => {
                let x_id = op_id(inst, 0)?;
                let ts = self.ty(x_id)?;
                let t = scalar_ty(p, result_type(inst)?)?;
                if !t.is_float() || !ts.is_int() || self.is_bool(self.type_of_id(x_id)?) {
                    return Err(refuse("conversion"));
                }
                let signed = inst.class.opcode == Op::ConvertSToF;
                let x = self.val(x_id)?;
                let cvt = move |b: &mut FunctionBuilder, ty: ir::Type, v: Value| {
                    if signed {
                        b.ins().fcvt_from_sint(ty, v)
                    } else {
                        b.ins().fcvt_from_uint(ty, v)
                    }
                };
                let v = match x {
                    x @ V::Vec(_) | x @ V::Aff(..)
                        if ts == types::I32 && t == types::F32 && signed =>
                    {
                        let v = self.vector(&x, ts)?;
                        V::Vec(self.map1(&v, |b, v| cvt(b, types::F32X4, v)))
                    }
                    // `int` to `double` is exact: two lanes at once (`cvtdq2pd`).
                    x @ V::Vec(_) | x @ V::Aff(..)
                        if ts == types::I32 && t == types::F64 && signed =>
                    {
                        self.i32_to_f64(&x)?
                    }
                    // `char`/`short` lanes: in range of `int` either way, so a signed
                    // conversion of their 32-bit extensions.
                    V::Zext(parts, _) if t == types::F32 => {
                        let v = self.zext_as_i32(&parts, ts, signed);
                        V::Vec(self.map1(&v, |b, v| b.ins().fcvt_from_sint(types::F32X4, v)))
                    }
                    // Narrow integers widened to 32 bits first, as the scalar code.
                    x => self.per_lane(&x, t, move |b, v| {
                        let v = match (b.func.dfg.value_type(v).bits() < 32, signed) {
                            (true, true) => b.ins().sextend(types::I32, v),
                            (true, false) => b.ins().uextend(types::I32, v),
                            (false, _) => v,
                        };
                        cvt(b, t, v)
                    })?,
                };
                self.set(inst, t, v)
            }
            Op::ConvertFToS | Op::ConvertFToU => {
                // Saturating, as the scalar code (out of range is undefined in OpenCL, and
                // Cranelift's trapping conversion must never trap).
                let x_id = op_id(inst, 0)?;
                let t = scalar_ty(p, result_type(inst)?)?;
                let rt = result_type(inst)?;
                if !self.ty(x_id)?.is_float() || !t.is_int() || self.is_bool(rt) {
                    return Err(refuse("conversion"));
                }
                let signed = inst.class.opcode == Op::ConvertFToS;
                let x = self.val(x_id)?;
                let effects = inst.effects;
                if small_ints::small(t) && self.ty(x_id)? == types::F32 {
                    if let Some(v) = self.float_to_small(&x, t, signed, effects)? {
                        return self.set(inst, t, v);
                    }
                }
                // `float` to `int`/`uint` lanes on `f32x4` parts: the scalar code's
                // rounding and saturating conversion (`convert::float_to_int`; a 32-bit
                // result needs no further clamp). Rounding to an integer is SSE4.1.
                let rounds = !matches!(
                    effects.rounding,
                    None | Some(rspirv::spirv::FPRoundingMode::RTZ)
                );
                if t == types::I32
                    && self.ty(x_id)? == types::F32
                    && !matches!(x, V::U(_))
                    && (self.fma || !rounds)
                {
                    let parts = self.vector(&x, types::F32)?;
                    let r = self.map1(&parts, |b, f| {
                        let f = convert::round_integral(b, f, effects.rounding);
                        if signed {
                            b.ins().fcvt_to_sint_sat(types::I32X4, f)
                        } else {
                            b.ins().fcvt_to_uint_sat(types::I32X4, f)
                        }
                    });
                    return self.set(inst, t, V::Vec(r));
                }
                let v = self.per_lane(&x, t, move |b, v| {
                    convert::float_to_int(b, v, t, t.bits(), signed, effects)
                })?;
                self.set(inst, t, v)
            }
            op if crate::codegen::image::is_image(op) => self.image(inst),
            op => Err(refuse(format!("Op{op:?}"))),
        }
    }

    /// A comparison: a uniform boolean, a lane mask (32-bit operands) or four booleans.
    fn compare(&mut self, inst: &Instruction) -> Result<()> {
        use crate::codegen::arith::{float_cc, int_cc};
        let op = inst.class.opcode;
        let (ai, bi) = (op_id(inst, 0)?, op_id(inst, 1)?);
        let t = self.ty(ai)?;
        let a = self.val(ai)?;
        let b = self.val(bi)?;
        let cmp = |bb: &mut FunctionBuilder, x: Value, y: Value| -> Result<Value> {
            Ok(match (int_cc(op), float_cc(op)) {
                (Some((cc, _)), _) => bb.ins().icmp(cc, x, y),
                (_, Some(cc)) => bb.ins().fcmp(cc, x, y),
                _ => return Err(refuse(format!("Op{op:?}"))),
            })
        };
        // The float conditions x64 compares four lanes at once for.
        let vector_cc = int_cc(op).is_some()
            || matches!(
                float_cc(op),
                Some(
                    FloatCC::Equal
                        | FloatCC::NotEqual
                        | FloatCC::LessThan
                        | FloatCC::LessThanOrEqual
                        | FloatCC::GreaterThan
                        | FloatCC::GreaterThanOrEqual
                        | FloatCC::Ordered
                        | FloatCC::Unordered
                )
            );
        let v = match (&a, &b) {
            (V::U(x), V::U(y)) => V::U(cmp(self.b, *x, *y)?),
            _ if Self::zext_pair(&a, &b, t) && int_cc(op).is_some() => {
                let (cc, _) = int_cc(op).ok_or_else(|| refuse("comparison"))?;
                self.zext_compare(&a, &b, t, cc)?
            }
            _ if doubles::any_f64(t, &[&a, &b]) && vector_cc && float_cc(op).is_some() => {
                let cc = float_cc(op).ok_or_else(|| refuse("comparison"))?;
                self.f64_compare(&a, &b, cc)?
            }
            _ if vec_of(t).is_some() && vector_cc => {
                let x = self.vector(&a, t)?;
                let y = self.vector(&b, t)?;
                let mut parts = Vec::with_capacity(x.len());
                for (x, y) in x.iter().zip(&y) {
                    parts.push(cmp(self.b, *x, *y)?);
                }
                V::Mask(self.narrow_mask(&parts))
            }
            _ => {
                let x = self.lanes(&a)?;
                let y = self.lanes(&b)?;
                let mut l = Vec::with_capacity(self.w);
                for (x, y) in x.iter().zip(&y) {
                    l.push(cmp(self.b, *x, *y)?);
                }
                V::L(l)
            }
        };
        self.set(inst, types::I8, v)
    }

    /// `OpBitcast` between numbers (or vectors of them) of one width and component count,
    /// component by component: the same bits in every lane.
    fn bit_cast(&mut self, inst: &Instruction, v: V, st: Word, rt: Word) -> Result<()> {
        let (se, sn) = self.vector_type(st)?;
        let (re, rn) = self.vector_type(rt)?;
        let (ts, td) = (scalar_ty(self.p, se)?, scalar_ty(self.p, re)?);
        let numeric = |t: ir::Type| t.is_int() || t.is_float();
        let plain = numeric(ts) && numeric(td) && !self.is_bool(se) && !self.is_bool(re);
        if plain
            && sn != rn
            && (sn == 1 || rn == 1)
            && ts.bits() * sn as u32 == td.bits() * rn as u32
        {
            if let Some(v) = self.word_bit_cast(&v, ts, sn, td, rn)? {
                return self.set(inst, td, v);
            }
            let v = self.bit_cast_resize(v, ts, sn, td, rn)?;
            return self.set(inst, td, v);
        }
        if sn != rn
            || ts.bits() != td.bits()
            || !numeric(ts)
            || !numeric(td)
            || self.is_bool(se)
            || self.is_bool(re)
        {
            return Err(refuse("bit cast"));
        }
        let comps = match v {
            V::Comp(c) => c,
            v => vec![v],
        };
        let order = lane_order();
        let one = |s: &mut Self, x: &V| -> Result<V> {
            if ts == td {
                return Ok(x.clone());
            }
            Ok(match x {
                V::U(a) => V::U(s.b.ins().bitcast(td, MemFlagsData::new(), *a)),
                _ => match vec_of(td) {
                    Some(vt) => {
                        let parts = s.vector(x, ts)?;
                        V::Vec(s.map1(&parts, |b, p| b.ins().bitcast(vt, order, p)))
                    }
                    None => {
                        let l = s.lanes(x)?;
                        V::L(s.map1(&l, |b, a| b.ins().bitcast(td, MemFlagsData::new(), a)))
                    }
                },
            })
        };
        let mut out = Vec::with_capacity(comps.len());
        for c in &comps {
            out.push(one(self, c)?);
        }
        let v = match out.len() {
            1 => out.pop().ok_or_else(|| refuse("bit cast"))?,
            _ => V::Comp(out),
        };
        self.set(inst, td, v)
    }

    /// A bit cast between a scalar and an OpenCL vector of the same size (`as_ushort4` of a
    /// `ulong`, `as_ulong` of a `ushort4`), lane by lane: component `c` is bits
    /// `c × width ..` of the scalar, as the scalar code's store and reload (little-endian)
    /// lay them out.
    pub(super) fn bit_cast_resize(
        &mut self,
        v: V,
        ts: ir::Type,
        sn: usize,
        td: ir::Type,
        rn: usize,
    ) -> Result<V> {
        let int = |t: ir::Type| ir::Type::int(t.bits() as u16).unwrap_or(t);
        let (is, id) = (int(ts), int(td));
        let raw = MemFlagsData::new();
        if sn == 1 {
            // Split one scalar into `rn` components.
            let mut comps = Vec::with_capacity(rn);
            for c in 0..rn {
                let shift = i64::from(td.bits()) * c as i64;
                comps.push(self.per_lane(&v, td, move |b, a| {
                    let a = if ts.is_float() {
                        b.ins().bitcast(is, raw, a)
                    } else {
                        a
                    };
                    let a = b.ins().ushr_imm_u(a, shift);
                    let a = b.ins().ireduce(id, a);
                    if td.is_float() {
                        b.ins().bitcast(td, raw, a)
                    } else {
                        a
                    }
                })?);
            }
            return Ok(V::Comp(comps));
        }
        // Join `sn` components into one scalar.
        let comps = match v {
            V::Comp(c) if c.len() == sn => c,
            _ => return Err(refuse("bit cast of a vector's components")),
        };
        let lanes = comps
            .iter()
            .map(|c| self.lanes(c))
            .collect::<Result<Vec<_>>>()?;
        let mut out = Vec::with_capacity(self.w);
        for k in 0..self.w {
            let mut acc = self.b.ins().iconst(id, 0);
            for (c, comp) in lanes.iter().enumerate() {
                let x = comp[k];
                let x = if ts.is_float() {
                    self.b.ins().bitcast(is, raw, x)
                } else {
                    x
                };
                let x = self.b.ins().uextend(id, x);
                let x = self.b.ins().ishl_imm_u(x, i64::from(ts.bits()) * c as i64);
                acc = self.b.ins().bor(acc, x);
            }
            out.push(if td.is_float() {
                self.b.ins().bitcast(td, raw, acc)
            } else {
                acc
            });
        }
        Ok(self.gathered(td, out))
    }

    /// `OpIsNan`, `OpIsInf`, `OpIsFinite`, `OpIsNormal`, `OpSignBitSet` of a float, as
    /// the scalar code tests them (`codegen/arith.rs`): unordered with itself; `|x|` equal
    /// to, or below, infinity (and at least the smallest normal number); the sign bit.
    fn float_class(&mut self, inst: &Instruction) -> Result<()> {
        let op = inst.class.opcode;
        let x_id = op_id(inst, 0)?;
        let t = self.ty(x_id)?;
        let half = crate::codegen::half::is_half(self.p, self.type_of_id(x_id)?);
        if !t.is_float() || (half && op == Op::IsNormal) {
            return Err(refuse(format!("Op{op:?} of {t}")));
        }
        let x = self.val(x_id)?;
        // Infinity and the smallest normal number, as the scalar code (`codegen/arith.rs`).
        let (inf, min) = if t == types::F64 {
            (
                self.b.ins().f64const(f64::INFINITY),
                self.b.ins().f64const(f64::MIN_POSITIVE),
            )
        } else {
            (
                self.b.ins().f32const(f32::INFINITY),
                self.b.ins().f32const(f32::MIN_POSITIVE),
            )
        };
        let it = if t == types::F64 {
            types::I64
        } else {
            types::I32
        };
        let test = move |b: &mut FunctionBuilder, v: Value, inf: Value, min: Value| match op {
            Op::IsNan => b.ins().fcmp(FloatCC::Unordered, v, v),
            Op::SignBitSet => {
                // The sign bit, as the scalar code reads it (lanes: vectors go below).
                let bits = b.ins().bitcast(it, MemFlagsData::new(), v);
                b.ins().icmp_imm_s(IntCC::SignedLessThan, bits, 0)
            }
            Op::IsInf => {
                let a = b.ins().fabs(v);
                b.ins().fcmp(FloatCC::Equal, a, inf)
            }
            Op::IsNormal => {
                let a = b.ins().fabs(v);
                let lo = b.ins().fcmp(FloatCC::GreaterThanOrEqual, a, min);
                let hi = b.ins().fcmp(FloatCC::LessThan, a, inf);
                b.ins().band(lo, hi)
            }
            _ => {
                let a = b.ins().fabs(v);
                b.ins().fcmp(FloatCC::LessThan, a, inf)
            }
        };
        let v = match &x {
            V::U(v) => V::U(test(self.b, *v, inf, min)),
            _ if vec_of(t).is_some() => {
                let xs = self.vector(&x, t)?;
                let vt = vec_of(t).unwrap_or(t);
                let infs = self.b.ins().splat(vt, inf);
                let mins = self.b.ins().splat(vt, min);
                let parts = if op == Op::SignBitSet {
                    let z = self.b.ins().iconst(types::I32, 0);
                    let zero = self.b.ins().splat(types::I32X4, z);
                    let order = lane_order();
                    self.map1(&xs, |b, v| {
                        let bits = b.ins().bitcast(types::I32X4, order, v);
                        b.ins().icmp(IntCC::SignedLessThan, bits, zero)
                    })
                } else {
                    self.map1(&xs, |b, v| test(b, v, infs, mins))
                };
                V::Mask(self.narrow_mask(&parts))
            }
            _ => {
                let l = self.lanes(&x)?;
                V::L(self.map1(&l, |b, v| test(b, v, inf, min)))
            }
        };
        self.set(inst, types::I8, v)
    }

    /// The type of a lane mask: as many lanes as the width in 128 bits.
    fn mask_ty(&self) -> ir::Type {
        match self.w {
            16 => types::I8X16,
            8 => types::I16X8,
            _ => types::I32X4,
        }
    }

    /// A lane mask from the `i32x4` masks of four lanes each (the results of comparing
    /// 32-bit vectors): narrowed with signed saturation, which keeps all ones and zeros.
    pub(super) fn narrow_mask(&mut self, parts: &[Value]) -> Value {
        let as_i32 = |s: &mut Self, v: Value| {
            if s.b.func.dfg.value_type(v) == types::I32X4 {
                v
            } else {
                s.b.ins().bitcast(types::I32X4, lane_order(), v)
            }
        };
        let mut level: Vec<Value> = parts.iter().map(|v| as_i32(self, *v)).collect();
        while level.len() > 1 {
            level = level
                .chunks(2)
                .map(|p| self.b.ins().snarrow(p[0], p[1]))
                .collect();
        }
        level[0]
    }

    /// Part `j` of lane mask `m` as an `i32x4` mask (lanes `4j .. 4j + 4`), widened with
    /// sign extension.
    pub(super) fn part_mask(&mut self, m: Value, j: usize) -> Value {
        let mut x = m;
        // From the widest split down: each step halves the lanes, taking the low or high
        // half that holds part j.
        let mut lanes = self.w;
        while lanes > 4 {
            let parts_per_half = lanes / 8;
            let high = (j / parts_per_half.max(1)) % 2 == 1;
            x = if high {
                self.b.ins().swiden_high(x)
            } else {
                self.b.ins().swiden_low(x)
            };
            lanes /= 2;
        }
        x
    }

    /// Lanes of `x` where mask `m` is set, else of `y` (parts of one vector type).
    pub(super) fn select_parts(&mut self, m: Value, x: &[Value], y: &[Value]) -> Vec<Value> {
        (0..x.len())
            .map(|j| {
                let mj = self.part_mask(m, j);
                self.bitselect(mj, x[j], y[j])
            })
            .collect()
    }

    /// A boolean across the lanes as a lane mask ([`VTx::mask_ty`], all ones: true).
    fn mask(&mut self, v: &V) -> Result<Value> {
        let mt = self.mask_ty();
        let lt = mt.lane_type();
        let to_lane = move |b: &mut FunctionBuilder, c: Value| {
            let w = if lt == types::I8 {
                c
            } else {
                b.ins().uextend(lt, c)
            };
            b.ins().ineg(w)
        };
        Ok(match v {
            V::Mask(m) => *m,
            V::U(c) => {
                let w = to_lane(self.b, *c);
                self.b.ins().splat(mt, w)
            }
            V::L(l) => {
                let w: Vec<Value> = l.iter().map(|c| to_lane(self.b, *c)).collect();
                let mut x = self.b.ins().splat(mt, w[0]);
                for (k, s) in w.iter().enumerate().skip(1) {
                    x = self.b.ins().insertlane(x, *s, k as u8);
                }
                x
            }
            _ => return Err(refuse("boolean")),
        })
    }

    /// Lanes of `x` where `mask` is set, else of `y` (`x`, `y` of one vector type).
    fn bitselect(&mut self, mask: Value, x: Value, y: Value) -> Value {
        let vt = self.b.func.dfg.value_type(x);
        let m = if vt == types::I32X4 {
            mask
        } else {
            self.b.ins().bitcast(vt, lane_order(), mask)
        };
        self.b.ins().bitselect(m, x, y)
    }

    /// OpenCL `fmin`/`fmax` on lanes, as the scalar code (`codegen/extinst.rs`): a NaN
    /// operand gives the other one.
    fn fminmax(&mut self, a: &V, b: &V, max: bool) -> Result<V> {
        if let (V::U(x), V::U(y)) = (a, b) {
            return Ok(V::U(crate::codegen::extinst::fminmax(self.b, *x, *y, max)));
        }
        let x = self.vector(a, types::F32)?;
        let y = self.vector(b, types::F32)?;
        Ok(V::Vec(self.fminmax_parts(&x, &y, max)))
    }

    /// OpenCL.std `vloadn(offset, p)` and `vstoren(data, offset, p)`: `n` components of
    /// `p`'s element type at `p + offset × n`, through the loads and stores of a vector
    /// `OpLoad`/`OpStore` (so `vload4(i, x)` is four loads and a transpose per four lanes,
    /// and a masked one touches only active lanes). Checked mode keeps the scalar code,
    /// which checks each element.
    fn vload_vstore(&mut self, inst: &Instruction, load: bool) -> Result<()> {
        if crate::check::mode().any() {
            return Err(refuse("vloadn/vstoren in checked mode"));
        }
        let (off, ptr) = if load {
            (op_id(inst, 2)?, op_id(inst, 3)?)
        } else {
            (op_id(inst, 3)?, op_id(inst, 4)?)
        };
        let (_, elem) = self.p.pointer_type(self.type_of_id(ptr)?)?;
        if crate::codegen::half::is_half(self.p, elem) {
            return Err(refuse("half vloadn/vstoren"));
        }
        let t = scalar_ty(self.p, elem)?;
        let data_ty = if load {
            result_type(inst)?
        } else {
            self.type_of_id(op_id(inst, 2)?)?
        };
        let (_, n) = self.vector_type(data_ty)?;
        let base = self.val(ptr)?;
        let pv = self.index(&base, off, u64::from(t.bytes()) * n as u64)?;
        if load {
            let v = self.load_through(pv, n, t)?;
            self.set(inst, t, v)
        } else {
            let comps = match self.val(op_id(inst, 2)?)? {
                V::Comp(c) if c.len() == n => c,
                _ => return Err(refuse("vstoren data")),
            };
            self.store_through(&pv, &comps, t)
        }
    }

    /// `abs_diff`, `add_sat`, `sub_sat`, `hadd`, `rhadd`, `mul_hi`, `mad_hi`, `mad_sat`,
    /// `rotate`, `upsample` (`codegen/int_fns.rs`, the scalar code's own definitions):
    /// `int` lanes in `i32x4` parts where the function has that form (SSE4.1's minimum,
    /// maximum and widening), `rotate` so by a uniform amount, any other lane by the
    /// scalar code per lane; `None` for other functions.
    fn int_fn_lanes(
        &mut self,
        e: rspirv::spirv::OpenclStd100Op,
        args: &[V],
        t: ir::Type,
    ) -> Result<Option<V>> {
        use crate::codegen::int_fns::{arity, int_fn, on_i32x4, rotate_by};
        use rspirv::spirv::OpenclStd100Op as E;
        if arity(e) != Some(args.len()) || !t.is_int() {
            return Ok(None);
        }
        if let Some(u) = uniform_values(args) {
            return Ok(int_fn(self.b, e, &u).map(V::U));
        }
        let int32 = t == types::I32 && self.fma;
        if int32 && e == E::rotate {
            if let V::U(n) = args[1] {
                let x = self.vector(&args[0], t)?;
                return Ok(Some(V::Vec(self.map1(&x, |b, x| rotate_by(b, x, n)))));
            }
        }
        if int32 && on_i32x4(e) {
            let mut parts = Vec::with_capacity(args.len());
            for a in args {
                parts.push(self.vector(a, t)?);
            }
            let mut out = Vec::with_capacity(parts[0].len());
            for j in 0..parts[0].len() {
                let xs: Vec<Value> = parts.iter().map(|p| p[j]).collect();
                let Some(r) = int_fn(self.b, e, &xs) else {
                    return Ok(None);
                };
                out.push(r);
            }
            return Ok(Some(V::Vec(out)));
        }
        let mut lanes = Vec::with_capacity(args.len());
        for a in args {
            lanes.push(self.lanes(a)?);
        }
        let mut out = Vec::with_capacity(self.w);
        for k in 0..self.w {
            let xs: Vec<Value> = lanes.iter().map(|l| l[k]).collect();
            let Some(r) = int_fn(self.b, e, &xs) else {
                return Ok(None);
            };
            out.push(r);
        }
        Ok(Some(self.gathered(t, out)))
    }

    /// `mix`, `step`, `smoothstep`, `sign`, `degrees`, `radians`, `fdim`, `maxmag`,
    /// `minmag` (`codegen/float_fns.rs`, the scalar code's own definitions) on whole
    /// vectors: `float` lanes in `f32x4` parts, `double` ones in `f64x2` parts; `None`
    /// for other functions and types.
    fn float_fn_lanes(
        &mut self,
        e: rspirv::spirv::OpenclStd100Op,
        args: &[V],
        t: ir::Type,
    ) -> Result<Option<V>> {
        use crate::codegen::float_fns::{arity, float_fn};
        if arity(e) != Some(args.len()) || !matches!(t, types::F32 | types::F64) {
            return Ok(None);
        }
        if let Some(u) = uniform_values(args) {
            return Ok(float_fn(self.b, e, &u).map(V::U));
        }
        let mut parts = Vec::with_capacity(args.len());
        for a in args {
            parts.push(if t == types::F64 {
                self.f64_parts(a)?
            } else {
                self.vector(a, types::F32)?
            });
        }
        let mut out = Vec::with_capacity(parts[0].len());
        for j in 0..parts[0].len() {
            let xs: Vec<Value> = parts.iter().map(|p| p[j]).collect();
            let Some(r) = float_fn(self.b, e, &xs) else {
                return Ok(None);
            };
            out.push(r);
        }
        Ok(Some(if t == types::F64 {
            V::F64(out)
        } else {
            V::Vec(out)
        }))
    }

    /// [`Self::fminmax`] on parts of one vector type (`f32x4`, `f64x2`).
    fn fminmax_parts(&mut self, x: &[Value], y: &[Value], max: bool) -> Vec<Value> {
        x.iter()
            .zip(y)
            .map(|(&x, &y)| crate::codegen::float_fns::fminmax(self.b, x, y, max))
            .collect()
    }

    /// Integer `min`/`max` on lanes.
    fn int_minmax(&mut self, a: &V, b: &V, t: ir::Type, signed: bool, max: bool) -> Result<V> {
        let op = move |bb: &mut FunctionBuilder, x: Value, y: Value| match (signed, max) {
            (true, true) => bb.ins().smax(x, y),
            (true, false) => bb.ins().smin(x, y),
            (false, true) => bb.ins().umax(x, y),
            (false, false) => bb.ins().umin(x, y),
        };
        if Self::zext_pair(a, b, t) {
            // `char`/`short` lanes: on their `i32x4` parts, sign-extended for a signed
            // `min`/`max`; the result is one of the operands, so it fits `t`.
            let x = self.zext_extended(a, t, signed)?;
            let y = self.zext_extended(b, t, signed)?;
            let r = self.map2(&x, &y, op);
            return Ok(self.zext_of(&r, t));
        }
        self.binary(a, b, t, op)
    }

    /// A lane-wise unary float operation.
    fn unary_f(&mut self, a: &V, f: impl Fn(&mut FunctionBuilder, Value) -> Value) -> Result<V> {
        Ok(match a {
            V::U(x) => V::U(f(self.b, *x)),
            _ => {
                let x = self.vector(a, types::F32)?;
                V::Vec(self.map1(&x, f))
            }
        })
    }

    /// OpenCL.std `mad` (an fma where the target has FMA, else a multiply and an add, as
    /// the scalar code does) and `fma` (when the target has it for vectors).
    fn ext_inst(&mut self, inst: &Instruction) -> Result<()> {
        use rspirv::spirv::OpenclStd100Op as E;
        let set = self.p.ext_imports.get(&op_id(inst, 0)?).map(String::as_str);
        match set {
            // Debug information, as the scalar translator: nothing to run.
            Some(s) if s.starts_with("NonSemantic.") || s.contains("DebugInfo") => return Ok(()),
            Some("OpenCL.std") => {}
            _ => return Err(refuse("extended instruction set")),
        }
        let Some(Operand::LiteralExtInstInteger(n)) = inst.operands.get(1) else {
            return Err(refuse("extended instruction"));
        };
        if [E::vloadn as u32, E::vstoren as u32].contains(n) {
            return self.vload_vstore(inst, *n == E::vloadn as u32);
        }
        if let Some(()) = E::from_u32(*n).map_or(Ok(None), |e| self.geometric(e, inst))? {
            return Ok(());
        }
        if let Some(()) = E::from_u32(*n).map_or(Ok(None), |e| self.vector_function(e, inst))? {
            return Ok(());
        }
        if let Some(()) = E::from_u32(*n).map_or(Ok(None), |e| self.half_memory(e, inst))? {
            return Ok(());
        }
        if *n == E::printf as u32 {
            return self.printf_lanes(inst);
        }
        let t = scalar_ty(self.p, result_type(inst)?)?;
        let is = |e: E| *n == e as u32;
        // Half built-ins whose half result is not their float one rounded (the scalar
        // code has them), and half memory through `vloadn`/`vstoren`.
        let half_operand = (2..inst.operands.len()).any(|k| {
            op_id(inst, k)
                .ok()
                .and_then(|id| self.spv_tys.get(&id).copied())
                .is_some_and(|ty| crate::codegen::half::is_half(self.p, ty))
        });
        let half = half_operand || crate::codegen::half::is_half(self.p, result_type(inst)?);
        if half
            && [
                E::nextafter,
                E::fract,
                E::modf,
                E::frexp,
                E::sincos,
                E::remquo,
                E::lgamma_r,
                E::nan,
                E::vloadn,
                E::vstoren,
                E::bitselect,
                E::shuffle,
                E::shuffle2,
                E::printf,
            ]
            .into_iter()
            .any(is)
        {
            return Err(refuse("half built-in"));
        }
        if let Some(()) = E::from_u32(*n).map_or(Ok(None), |e| self.pointer_output(e, inst, t))? {
            return Ok(());
        }
        if let Some(base) = E::from_u32(*n).and_then(crate::codegen::extinst::transcendental) {
            return self.math_call(inst, base, t);
        }
        let mut args = Vec::new();
        for k in 2..inst.operands.len() {
            args.push(self.val(op_id(inst, k)?)?);
        }
        let float = t == types::F32;
        let need = |n: usize| {
            if args.len() == n {
                Ok(())
            } else {
                Err(refuse("extended instruction operands"))
            }
        };
        // Rounding to an integer and vector integer min/max are SSE4.1 instructions; a
        // target with FMA has them.
        let sse41 = self.fma;
        if let Some(e) = E::from_u32(*n) {
            if let Some(v) = self.zext_ext_inst(e, &args, t)? {
                return self.set(inst, t, v);
            }
            if let Some(v) = self.f64_ext_inst(e, &args, t)? {
                return self.set(inst, t, v);
            }
            if let Some(v) = self.float_fn_lanes(e, &args, t)? {
                return self.set(inst, t, v);
            }
            if let Some(v) = self.int_fn_lanes(e, &args, t)? {
                return self.set(inst, t, v);
            }
        }
        let v = if half && is(E::fma) {
            // One rounding of the exact result, through double, as the scalar code
            // (`codegen/extinst.rs`), lane by lane.
            need(3)?;
            let x = self.lanes(&args[0])?;
            let y = self.lanes(&args[1])?;
            let z = self.lanes(&args[2])?;
            let l = (0..self.w)
                .map(|k| crate::codegen::half::fma(self.b, x[k], y[k], z[k]))
                .collect();
            self.gathered(types::F32, l)
        } else if t == types::F64 && (is(E::mad) || is(E::fma)) {
            // Doubles are lanes of scalars: the scalar code's operations per lane.
            need(3)?;
            let x = self.lanes(&args[0])?;
            let y = self.lanes(&args[1])?;
            let z = self.lanes(&args[2])?;
            let mut l = vec![x[0]; self.w];
            for k in 0..self.w {
                l[k] = if is(E::mad) && !self.fma {
                    let m = self.b.ins().fmul(x[k], y[k]);
                    self.b.ins().fadd(m, z[k])
                } else {
                    self.b.ins().fma(x[k], y[k], z[k])
                };
            }
            V::L(l)
        } else if (t == types::F64
            && [
                E::fabs,
                E::sqrt,
                E::native_sqrt,
                E::half_sqrt,
                E::rsqrt,
                E::native_rsqrt,
                E::half_rsqrt,
                E::floor,
                E::ceil,
                E::trunc,
                E::rint,
            ]
            .into_iter()
            .any(is))
            || (t.is_int() && (is(E::clz) || is(E::ctz) || is(E::popcount)))
        {
            // Exact one-operand functions of doubles kept as lanes of scalars (those in
            // `f64x2` parts took `f64_ext_inst`) and integers: the scalar code's
            // instruction per lane (`codegen/extinst.rs`).
            need(1)?;
            let e = E::from_u32(*n).ok_or_else(|| refuse("extended instruction"))?;
            self.per_lane(&args[0], t, move |b, x| match e {
                E::fabs => b.ins().fabs(x),
                E::floor => b.ins().floor(x),
                E::ceil => b.ins().ceil(x),
                E::trunc => b.ins().trunc(x),
                E::rint => b.ins().nearest(x),
                E::clz => b.ins().clz(x),
                E::ctz => b.ins().ctz(x),
                E::popcount => b.ins().popcnt(x),
                E::rsqrt | E::native_rsqrt | E::half_rsqrt => {
                    let one = b.ins().f64const(1.0);
                    let r = b.ins().sqrt(x);
                    b.ins().fdiv(one, r)
                }
                _ => b.ins().sqrt(x),
            })?
        } else if float && (is(E::mad) || is(E::fma)) {
            need(3)?;
            let (a, b, c) = (&args[0], &args[1], &args[2]);
            let uniform = |v: &V| matches!(v, V::U(_));
            let (a, b) = varying_factor_first(a, b, uniform(a), uniform(b));
            if is(E::mad) && !self.fma {
                let m = self.binary(a, b, t, |b, x, y| b.ins().fmul(x, y))?;
                self.binary(&m, c, t, |b, x, y| b.ins().fadd(x, y))?
            } else if let (V::U(x), V::U(y), V::U(z)) = (a, b, c) {
                V::U(self.b.ins().fma(*x, *y, *z))
            } else if self.fma {
                let x = self.vector(a, t)?;
                let y = self.vector(b, t)?;
                let z = self.vector(c, t)?;
                let r = (0..x.len())
                    .map(|j| self.b.ins().fma(x[j], y[j], z[j]))
                    .collect();
                V::Vec(r)
            } else {
                return Err(refuse("fma without a native vector fma"));
            }
        } else if float && (is(E::sqrt) || is(E::native_sqrt) || is(E::half_sqrt)) {
            need(1)?;
            self.unary_f(&args[0], |b, x| b.ins().sqrt(x))?
        } else if float && (is(E::rsqrt) || is(E::native_rsqrt) || is(E::half_rsqrt)) {
            // 1 / sqrt(x), correctly rounded twice, as the scalar code.
            need(1)?;
            let r = self.unary_f(&args[0], |b, x| b.ins().sqrt(x))?;
            let one = self.b.ins().f32const(1.0);
            self.binary(&V::U(one), &r, t, |b, x, y| b.ins().fdiv(x, y))?
        } else if float && (is(E::native_recip) || is(E::half_recip)) {
            need(1)?;
            let one = self.b.ins().f32const(1.0);
            self.binary(&V::U(one), &args[0], t, |b, x, y| b.ins().fdiv(x, y))?
        } else if float && (is(E::native_divide) || is(E::half_divide)) {
            need(2)?;
            self.binary(&args[0], &args[1], t, |b, x, y| b.ins().fdiv(x, y))?
        } else if float && is(E::fabs) {
            need(1)?;
            self.unary_f(&args[0], |b, x| b.ins().fabs(x))?
        } else if t.is_float() && is(E::copysign) {
            // |x| with y's sign bit, as the scalar `fcopysign`, by bits on vectors.
            need(2)?;
            let cs = crate::codegen::float_fns::copysign;
            if let (V::U(x), V::U(y)) = (&args[0], &args[1]) {
                V::U(cs(self.b, *x, *y))
            } else if vec_of(t).is_some() {
                let x = self.vector(&args[0], t)?;
                let y = self.vector(&args[1], t)?;
                V::Vec(self.map2(&x, &y, cs))
            } else if t == types::F64 {
                let x = self.f64_parts(&args[0])?;
                let y = self.f64_parts(&args[1])?;
                V::F64(self.map2(&x, &y, cs))
            } else {
                let x = self.lanes(&args[0])?;
                let y = self.lanes(&args[1])?;
                V::L(self.map2(&x, &y, cs))
            }
        } else if t.is_int() && (is(E::s_abs) || is(E::u_abs)) {
            // The magnitude's bits (`abs(INT_MIN)` is 2^31 as unsigned): max(x, -x), or
            // x itself for an unsigned x.
            need(1)?;
            if is(E::u_abs) {
                args[0].clone()
            } else if let V::U(x) = &args[0] {
                V::U(self.b.ins().iabs(*x))
            } else if sse41 && vec_of(t).is_some() {
                let z = self.b.ins().iconst(t, 0);
                let neg = self.binary(&V::U(z), &args[0], t, |b, x, y| b.ins().isub(x, y))?;
                self.int_minmax(&args[0], &neg, t, true, true)?
            } else {
                let x = self.lanes(&args[0])?;
                let l = self.map1(&x, |b, v| b.ins().iabs(v));
                self.gathered(t, l)
            }
        } else if float && sse41 && (is(E::floor) || is(E::ceil) || is(E::trunc) || is(E::rint)) {
            need(1)?;
            let e = *n;
            self.unary_f(&args[0], move |b, x| {
                if e == E::floor as u32 {
                    b.ins().floor(x)
                } else if e == E::ceil as u32 {
                    b.ins().ceil(x)
                } else if e == E::trunc as u32 {
                    b.ins().trunc(x)
                } else {
                    b.ins().nearest(x)
                }
            })?
        } else if t == types::F64
            && (is(E::fmin) || is(E::fmax) || is(E::fmin_common) || is(E::fmax_common))
        {
            // Doubles are lanes of scalars: the scalar code's sequence per lane.
            need(2)?;
            let max = is(E::fmax) || is(E::fmax_common);
            if let (V::U(x), V::U(y)) = (&args[0], &args[1]) {
                V::U(crate::codegen::extinst::fminmax(self.b, *x, *y, max))
            } else {
                let x = self.lanes(&args[0])?;
                let y = self.lanes(&args[1])?;
                let l = self.map2(&x, &y, |b, x, y| {
                    crate::codegen::extinst::fminmax(b, x, y, max)
                });
                V::L(l)
            }
        } else if float && (is(E::fmin) || is(E::fmax) || is(E::fmin_common) || is(E::fmax_common))
        {
            need(2)?;
            let max = is(E::fmax) || is(E::fmax_common);
            self.fminmax(&args[0], &args[1], max)?
        } else if t == types::I32 && (is(E::s_mul24) || is(E::u_mul24)) {
            // A 32-bit multiply, as the scalar code (out-of-range inputs are undefined).
            need(2)?;
            self.binary(&args[0], &args[1], t, |b, x, y| b.ins().imul(x, y))?
        } else if t == types::I32 && (is(E::s_mad24) || is(E::u_mad24)) {
            need(3)?;
            let m = self.binary(&args[0], &args[1], t, |b, x, y| b.ins().imul(x, y))?;
            self.binary(&m, &args[2], t, |b, x, y| b.ins().iadd(x, y))?
        } else if !half && (t == types::F32 || t == types::I32) && is(E::bitselect) {
            // The scalar code's definition (`codegen/float_fns.rs`) on 128-bit parts.
            need(3)?;
            let sel = crate::codegen::float_fns::bitselect;
            if let (V::U(x), V::U(y), V::U(c)) = (&args[0], &args[1], &args[2]) {
                V::U(sel(self.b, *x, *y, *c))
            } else {
                let x = self.vector(&args[0], t)?;
                let y = self.vector(&args[1], t)?;
                let c = self.vector(&args[2], t)?;
                let r = (0..x.len())
                    .map(|j| sel(self.b, x[j], y[j], c[j]))
                    .collect();
                V::Vec(r)
            }
        } else if is(E::nan) && !half {
            // The scalar code's bits (`codegen/float_fns.rs`): on `i32x4` parts for
            // `float` lanes of 32-bit codes, else lane by lane.
            need(1)?;
            let nan = crate::codegen::float_fns::nan;
            let ct = self.ty(op_id(inst, 2)?)?;
            match &args[0] {
                V::U(c) if ct.bits() == t.bits() => V::U(nan(self.b, *c)),
                c if t == types::F32 && ct == types::I32 => {
                    let c = self.vector(c, ct)?;
                    V::Vec(self.map1(&c, nan))
                }
                c if ct.bits() == t.bits() => {
                    let l = self.lanes(c)?;
                    let l = self.map1(&l, nan);
                    self.gathered(t, l)
                }
                _ => return Err(refuse("nan of a code of another width")),
            }
        } else if is(E::select) && !half {
            // A scalar `select(a, b, c)`: `c != 0 ? b : a` (vector types take the
            // components' top bits and are not split into components: `componentwise`).
            need(3)?;
            let ct = self.ty(op_id(inst, 4)?)?;
            self.select_lanes(&args[0], &args[1], &args[2], t, ct, false)?
        } else if float && is(E::fclamp) {
            need(3)?;
            let lo = self.fminmax(&args[0], &args[1], true)?;
            self.fminmax(&lo, &args[2], false)?
        } else if t.is_int()
            && (t != types::I8 || args.len() == 2 && Self::zext_pair(&args[0], &args[1], t))
            && (sse41 || t == types::I64)
            && (is(E::s_min) || is(E::s_max) || is(E::u_min) || is(E::u_max))
        {
            need(2)?;
            let signed = is(E::s_min) || is(E::s_max);
            let max = is(E::s_max) || is(E::u_max);
            self.int_minmax(&args[0], &args[1], t, signed, max)?
        } else if t.is_int()
            && (t != types::I8
                || args.len() == 3
                    && matches!(args[0], V::Zext(..))
                    && Self::zext_pair(&args[0], &args[1], t)
                    && Self::zext_pair(&args[0], &args[2], t))
            && (sse41 || t == types::I64)
            && (is(E::s_clamp) || is(E::u_clamp))
        {
            need(3)?;
            let signed = is(E::s_clamp);
            match (&args[0], &args[1], &args[2]) {
                // An affine value clamped to uniform bounds stays one vector access where
                // no lane is clamped.
                (V::Aff(x, st), V::U(lo), V::U(hi))
                    if t == types::I32 && *st > 0 && *st < 1 << 20 =>
                {
                    V::Clamped(Clamp {
                        base: *x,
                        step: *st,
                        lo: *lo,
                        hi: *hi,
                        signed,
                        add: None,
                    })
                }
                _ => {
                    let lo = self.int_minmax(&args[0], &args[1], t, signed, true)?;
                    self.int_minmax(&lo, &args[2], t, signed, false)?
                }
            }
        } else {
            return Err(refuse(format!("OpenCL.std instruction {n}")));
        };
        self.set(inst, t, v)
    }

    /// A reference to the scalar built-in `bi` (declared in the module; in a scratch
    /// translation, a callee of the right type).
    fn builtin_fref(&mut self, bi: &crate::builtins::Builtin) -> Result<ir::FuncRef> {
        if let Some(r) = self.builtin_refs.get(bi.name) {
            return Ok(*r);
        }
        let clif = |t: crate::builtins::BTy| match t {
            crate::builtins::BTy::F32 => types::F32,
            crate::builtins::BTy::F64 => types::F64,
            crate::builtins::BTy::I32 => types::I32,
            crate::builtins::BTy::I64 => types::I64,
        };
        let r = match self.env.as_deref_mut() {
            Some(env) => env.builtin_ref(self.b.func, bi)?,
            None => {
                let mut sig = Signature::new(CallConv::SystemV);
                sig.params
                    .extend(bi.params.iter().map(|p| AbiParam::new(clif(*p))));
                sig.returns.push(AbiParam::new(clif(bi.ret)));
                self.scratch_import(bi.name, sig)
            }
        };
        self.builtin_refs.insert(bi.name, r);
        Ok(r)
    }

    /// In a scratch translation (no module): a callee `name` of signature `sig`, which
    /// is all the translation needs of it.
    fn scratch_import(&mut self, name: &str, sig: Signature) -> ir::FuncRef {
        let signature = self.b.import_signature(sig);
        self.b.import_function(ir::ExtFuncData {
            name: ir::ExternalName::testcase(name),
            signature,
            colocated: false,
            patchable: false,
        })
    }

    /// The function reference of the vector entry point `vb` (pointer arguments only).
    pub(super) fn vector_entry_ref(
        &mut self,
        vb: &crate::builtins::vector::VectorBuiltin,
    ) -> Result<ir::FuncRef> {
        let pointers = |n: u32| (0..n).map(|_| AbiParam::new(types::I64));
        self.entry_ref(
            vb.name,
            |env, func| env.vector_builtin_ref(func, vb),
            pointers(vb.inputs + vb.outputs),
        )
    }

    /// The function reference of the register form `r` of a 16-lane entry point of
    /// `inputs` arguments (`codegen::regs_params`).
    fn vector_regs_ref(
        &mut self,
        r: &crate::builtins::vector::Regs,
        inputs: u32,
    ) -> Result<ir::FuncRef> {
        self.entry_ref(
            r.name,
            |env, func| env.vector_regs_ref(func, r, inputs),
            crate::codegen::regs_params(inputs),
        )
    }

    /// The function reference of entry point `name`, made once per function: declared by
    /// the module (`declare`) or, in a scratch translation, imported with `params`.
    fn entry_ref(
        &mut self,
        name: &'static str,
        declare: impl FnOnce(&mut crate::codegen::Env<'_>, &mut ir::Function) -> Result<ir::FuncRef>,
        params: impl Iterator<Item = AbiParam>,
    ) -> Result<ir::FuncRef> {
        if let Some(r) = self.builtin_refs.get(name) {
            return Ok(*r);
        }
        let r = match self.env.as_deref_mut() {
            Some(env) => declare(env, self.b.func)?,
            None => {
                let mut sig = Signature::new(CallConv::SystemV);
                sig.params.extend(params);
                self.scratch_import(name, sig)
            }
        };
        self.builtin_refs.insert(name, r);
        Ok(r)
    }

    /// The address of `bytes` of this function's stack frame starting at a 64-byte
    /// boundary, for the lanes a vector entry point reads and writes: an entry point
    /// stores its result with one 32- or 64-byte store, and one across two cache lines is
    /// not forwarded to the loads of its parts after the call (the same `exp` kernel ran
    /// 25% slower or faster by where its frame put the slot).
    pub(super) fn line_aligned_slot(&mut self, bytes: u32) -> Value {
        let slot = self.b.create_sized_stack_slot(ir::StackSlotData::new(
            ir::StackSlotKind::ExplicitSlot,
            bytes + 48,
            4,
        ));
        let at = self.b.ins().stack_addr(types::I64, slot, 0);
        let up = self.b.ins().iadd_imm_s(at, 63);
        self.b.ins().band_imm_s(up, -64)
    }

    /// A math built-in that is a call (`codegen/extinst.rs`): one call per lane, or one
    /// for a uniform argument list, to the function the scalar code calls.
    fn math_call(&mut self, inst: &Instruction, base: &str, t: ir::Type) -> Result<()> {
        let mut args = Vec::new();
        for k in 4..inst.operands.len() + 2 {
            args.push(self.val(op_id(inst, k - 2)?)?);
        }
        // The float operands' type: the result's, but for `ilogb`'s `int`.
        let ft = match self.ty(op_id(inst, 2)?)? {
            f if f.is_float() => f,
            _ => t,
        };
        let v = self.math_lanes(base, &args, ft, t)?;
        self.set(inst, t, v)
    }

    /// `length`, `distance`, `normalize` (and their `fast_` forms, computed alike) of
    /// `float` lanes or `floatn` ones (a value per component): the scalar code's
    /// computation in double (`codegen/geometric.rs`) on `f64x2` parts, two lanes of each
    /// component, each result rounded to `float` once; of `double` lanes, the scalar code
    /// lane by lane. `None` for other functions.
    fn geometric(
        &mut self,
        e: rspirv::spirv::OpenclStd100Op,
        inst: &Instruction,
    ) -> Result<Option<()>> {
        use crate::codegen::geometric::length_or_normalize;
        use rspirv::spirv::OpenclStd100Op as E;
        let (n, normalize) = match e {
            E::length | E::fast_length => (1, false),
            E::distance | E::fast_distance => (2, false),
            E::normalize | E::fast_normalize => (1, true),
            _ => return Ok(None),
        };
        if inst.operands.len() != 2 + n {
            return Err(refuse("extended instruction operands"));
        }
        let spv = self.type_of_id(op_id(inst, 2)?)?;
        let elem = match self.p.ty(spv)? {
            Type::Vector { elem, .. } => *elem,
            _ => spv,
        };
        let t = scalar_ty(self.p, elem)?;
        if crate::codegen::half::is_half(self.p, elem) || !matches!(t, types::F32 | types::F64) {
            return Err(refuse("geometric function of half"));
        }
        let comps = |v: V| match v {
            V::Comp(c) => c,
            v => vec![v],
        };
        let mut x = comps(self.val(op_id(inst, 2)?)?);
        if n == 2 {
            let y = comps(self.val(op_id(inst, 3)?)?);
            if y.len() != x.len() {
                return Err(refuse("distance of vectors of two sizes"));
            }
            for (a, b) in x.iter_mut().zip(&y) {
                *a = self.binary(a, b, t, |b, p, q| b.ins().fsub(p, q))?;
            }
        }
        if t == types::F64 {
            // The scalar code lane by lane (`codegen/geometric.rs`).
            let mut lanes = Vec::with_capacity(x.len());
            for c in &x {
                lanes.push(self.lanes(c)?);
            }
            let m = if normalize { x.len() } else { 1 };
            let mut res: Vec<Vec<Value>> = vec![Vec::with_capacity(self.w); m];
            for k in 0..self.w {
                let xs: Vec<Value> = lanes.iter().map(|l| l[k]).collect();
                let r = length_or_normalize(self.b, &xs, normalize, false)
                    .ok_or_else(|| refuse("geometric function of no components"))?;
                for (c, v) in r.into_iter().enumerate() {
                    res[c].push(v);
                }
            }
            let mut out: Vec<V> = res.into_iter().map(V::L).collect();
            let v = if out.len() > 1 {
                V::Comp(out)
            } else {
                out.pop()
                    .ok_or_else(|| refuse("geometric function of no components"))?
            };
            self.set(inst, t, v)?;
            return Ok(Some(()));
        }
        let f32_of = |b: &mut FunctionBuilder, v: Value| b.ins().fdemote(types::F32, v);
        // One component's results (or the length's) from `f64x2` parts or a uniform double.
        let out: Vec<V> = if let Some(u) = x
            .iter()
            .map(|c| match c {
                V::U(v) => Some(self.b.ins().fpromote(types::F64, *v)),
                _ => None,
            })
            .collect::<Option<Vec<Value>>>()
        {
            let r = length_or_normalize(self.b, &u, normalize, true)
                .ok_or_else(|| refuse("geometric function of no components"))?;
            r.into_iter().map(|v| V::U(f32_of(self.b, v))).collect()
        } else {
            let mut parts = Vec::with_capacity(x.len());
            for c in &x {
                let V::F64(p) = self.f32_to_f64(c)? else {
                    return Err(refuse("float lanes as doubles"));
                };
                parts.push(p);
            }
            let m = if normalize { x.len() } else { 1 };
            let mut res: Vec<Vec<Value>> = vec![Vec::with_capacity(self.w / 2); m];
            for j in 0..self.w / 2 {
                let xs: Vec<Value> = parts.iter().map(|p| p[j]).collect();
                let r = length_or_normalize(self.b, &xs, normalize, true)
                    .ok_or_else(|| refuse("geometric function of no components"))?;
                for (k, v) in r.into_iter().enumerate() {
                    res[k].push(v);
                }
            }
            res.iter().map(|p| self.f64_to_f32(p)).collect()
        };
        let v = match (normalize, out.len()) {
            (true, k) if k > 1 => V::Comp(out),
            _ => out
                .into_iter()
                .next()
                .ok_or_else(|| refuse("geometric function of no components"))?,
        };
        self.set(inst, types::F32, v)?;
        Ok(Some(()))
    }

    /// The functions with a second result through a pointer (`fract`, `modf`, `sincos`,
    /// `frexp`, `lgamma_r`, `remquo`) of scalar `float` or `double` lanes: both results as
    /// the scalar code computes them (`fract` and `modf` on whole vectors, the others by
    /// their built-ins' calls, `sin` and `cos` by their vector entry points), the second
    /// stored through the pointer as an `OpStore` of it would (only active lanes under a
    /// mask); `None` for other functions.
    fn pointer_output(
        &mut self,
        e: rspirv::spirv::OpenclStd100Op,
        inst: &Instruction,
        t: ir::Type,
    ) -> Result<Option<()>> {
        use rspirv::spirv::OpenclStd100Op as E;
        let nvals = match e {
            E::sincos | E::fract | E::modf | E::frexp | E::lgamma_r => 1,
            E::remquo => 2,
            _ => return Ok(None),
        };
        if inst.operands.len() != 3 + nvals || !t.is_float() {
            return Err(refuse("extended instruction operands"));
        }
        if crate::check::mode().any() {
            // The scalar shapes check the pointer (`codegen/check.rs`).
            return Err(refuse("a pointer result in checked mode"));
        }
        let ptr = op_id(inst, 2 + nvals)?;
        let (_, pointee) = self.p.pointer_type(self.type_of_id(ptr)?)?;
        let t2 = scalar_ty(self.p, pointee)?;
        let mut args = Vec::with_capacity(nvals);
        for k in 0..nvals {
            args.push(self.val(op_id(inst, 2 + k)?)?);
        }
        let (main, second) = match e {
            E::fract | E::modf => {
                let f = |b: &mut FunctionBuilder, x| {
                    if e == E::fract {
                        crate::codegen::float_fns::fract(b, x, false)
                    } else {
                        crate::codegen::float_fns::modf(b, x)
                    }
                };
                match &args[0] {
                    V::U(x) => {
                        let (m, s) = f(self.b, *x);
                        (V::U(m), V::U(s))
                    }
                    // Rounding to an integer is SSE4.1; a target with FMA has it.
                    a if self.fma => {
                        let double = t == types::F64;
                        let parts = if double {
                            self.f64_parts(a)?
                        } else {
                            self.vector(a, t)?
                        };
                        let (m, s): (Vec<Value>, Vec<Value>) =
                            parts.into_iter().map(|x| f(self.b, x)).unzip();
                        if double {
                            (V::F64(m), V::F64(s))
                        } else {
                            (V::Vec(m), V::Vec(s))
                        }
                    }
                    a => {
                        let l = self.lanes(a)?;
                        let (m, s): (Vec<Value>, Vec<Value>) =
                            l.into_iter().map(|x| f(self.b, x)).unzip();
                        (self.gathered(t, m), self.gathered(t, s))
                    }
                }
            }
            _ => {
                let (first, other) = match e {
                    E::sincos => ("sin", "cos"),
                    E::frexp => ("frexp_mant", "frexp_exp"),
                    E::lgamma_r => ("lgamma", "lgamma_sign"),
                    _ => ("remainder", "remquo_quo"),
                };
                let m = self.math_lanes(first, &args, t, t)?;
                let s = self.math_lanes(other, &args, t, t2)?;
                (m, s)
            }
        };
        self.refuse_unchecked_race(ptr)?;
        let pv = self.val(ptr)?;
        self.store_through(&pv, &[second], t2)?;
        self.set(inst, t, main)?;
        Ok(Some(()))
    }

    /// The math built-in `base` (`crate::builtins`) of `args` for every lane: its float
    /// operands of type `ft`, its result of type `t` (`frexp`'s exponent is an `int`).
    /// `double` functions: one call per lane (no vector entry points yet).
    fn math_lanes(&mut self, base: &str, args: &[V], ft: ir::Type, t: ir::Type) -> Result<V> {
        let bty = match ft {
            types::F32 => crate::builtins::BTy::F32,
            types::F64 => crate::builtins::BTy::F64,
            _ => return Err(refuse(format!("{base} of {ft}"))),
        };
        let bi = crate::builtins::lookup(base, ft == types::F64)
            .ok_or_else(|| refuse(format!("math built-in {base}")))?;
        // Float arguments of the result's type, and integers (`ldexp`, `rootn`, `pown`).
        let clif = |b: crate::builtins::BTy| match b {
            crate::builtins::BTy::F32 => types::F32,
            crate::builtins::BTy::F64 => types::F64,
            crate::builtins::BTy::I32 => types::I32,
            crate::builtins::BTy::I64 => types::I64,
        };
        let arg_ok = |p: &crate::builtins::BTy| {
            *p == bty || matches!(p, crate::builtins::BTy::I32 | crate::builtins::BTy::I64)
        };
        if args.len() != bi.params.len() || !bi.params.iter().all(arg_ok) || clif(bi.ret) != t {
            return Err(refuse(format!("{base}'s arguments")));
        }
        // Entry points take 4-byte lanes: `float`, and `int` (`pown`'s exponent).
        let four_byte = bi
            .params
            .iter()
            .all(|p| matches!(p, crate::builtins::BTy::F32 | crate::builtins::BTy::I32));
        let fref = self.builtin_fref(&bi)?;
        let call = |s: &mut Self, a: &[Value]| -> Result<Value> {
            let c = s.b.ins().call(fref, a);
            s.b.inst_results(c)
                .first()
                .copied()
                .ok_or_else(|| refuse(format!("{base} without a result")))
        };
        // The widest entry point that divides the width: one call for 4 or 8 lanes,
        // two for 16.
        let fits = |vb: &crate::builtins::vector::VectorBuiltin| {
            t == types::F32
                && ft == t
                && four_byte
                && vb.outputs == 1
                && vb.inputs as usize == args.len()
        };
        // One call for all 16 lanes where there is such an entry point (an AVX-512 build).
        let (per_call, whole) = match crate::builtins::vector_lookup(base, 16).filter(fits) {
            Some(vb) if self.w == 16 => (16, Some(vb)),
            _ => {
                let per_call = self.w.min(8);
                let vb = crate::builtins::vector_lookup(base, per_call as u32).filter(fits);
                (per_call, vb)
            }
        };
        let v = if args.iter().all(|a| matches!(a, V::U(_))) {
            let a: Vec<Value> = args
                .iter()
                .map(|a| self.lane(a, 0))
                .collect::<Result<_>>()?;
            V::U(call(self, &a)?)
        } else if let Some((vb, r)) = whole.and_then(|vb| Some((vb, vb.regs?))) {
            // One call of the register form (`builtins/vector.rs`): each argument's four
            // parts as they are, the result through a stack slot.
            let fref = self.vector_regs_ref(&r, vb.inputs)?;
            let out = self.line_aligned_slot(64);
            let mut params = Vec::with_capacity(4 * args.len() + 1);
            for (a, p) in args.iter().zip(bi.params.iter()) {
                params.extend(self.vector(a, clif(*p))?);
            }
            params.push(out);
            self.b.ins().call(fref, &params);
            let flags = crate::codegen::trusted();
            V::Vec(
                (0..4)
                    .map(|j| self.b.ins().load(types::F32X4, flags, out, 16 * j))
                    .collect(),
            )
        } else if let Some(vb) = whole {
            // One call for the four lanes (`builtins/vector.rs`): the arguments and the
            // result pass through a stack slot.
            let fref = self.vector_entry_ref(&vb)?;
            // Each argument's lanes, then the result's, `4 × w` bytes each.
            let row = 4 * self.w as i32;
            let base = self.line_aligned_slot(row as u32 * (args.len() as u32 + 1));
            let flags = crate::codegen::trusted();
            for (i, (a, p)) in args.iter().zip(bi.params.iter()).enumerate() {
                let x = self.vector(a, clif(*p))?;
                for (j, p) in x.into_iter().enumerate() {
                    let off = row * i as i32 + 16 * j as i32;
                    self.b.ins().store(flags, p, base, off);
                }
            }
            let out_off = row * args.len() as i32;
            for c in 0..self.w / per_call {
                let at = 4 * (per_call * c) as i32;
                let mut ptrs = Vec::new();
                for i in 0..=args.len() {
                    let off = row * i as i32 + at;
                    ptrs.push(self.b.ins().iadd_imm_s(base, i64::from(off)));
                }
                self.b.ins().call(fref, &ptrs);
            }
            V::Vec(
                (0..self.w / 4)
                    .map(|j| {
                        let off = out_off + 16 * j as i32;
                        self.b.ins().load(types::F32X4, flags, base, off)
                    })
                    .collect(),
            )
        } else {
            let lanes: Vec<Vec<Value>> =
                args.iter().map(|a| self.lanes(a)).collect::<Result<_>>()?;
            // Each argument as the built-in takes it (an `int` lane is 32 bits).
            for (la, p) in lanes.iter().zip(bi.params.iter()) {
                if la
                    .iter()
                    .any(|x| self.b.func.dfg.value_type(*x) != clif(*p))
                {
                    return Err(refuse(format!("{base}'s arguments")));
                }
            }
            let mut l = Vec::with_capacity(self.w);
            for k in 0..self.w {
                let a: Vec<Value> = lanes.iter().map(|la| la[k]).collect();
                l.push(call(self, &a)?);
            }
            self.gathered(t, l)
        };
        Ok(v)
    }

    /// `OpCopyMemory` (and `OpCopyMemorySized` of a constant size): each lane copies its
    /// bytes, in lane order, only the active lanes under a mask; one copy when both
    /// pointers are uniform. A lane's bytes are all loaded before any is stored, as a
    /// `memmove` of them would.
    fn copy_memory(&mut self, inst: &Instruction) -> Result<()> {
        if crate::check::mode().any() {
            // The scalar shapes check both ends (`codegen/check.rs`).
            return Err(refuse("a memory copy in checked mode"));
        }
        let (dst_id, src_id) = (op_id(inst, 0)?, op_id(inst, 1)?);
        let (size, rest) = if inst.class.opcode == Op::CopyMemory {
            let (_, pointee) = self.p.pointer_type(self.type_of_id(dst_id)?)?;
            (layout(self.p, pointee)?.size, 2)
        } else {
            let sid = op_id(inst, 2)?;
            if !self.p.constants.contains_key(&sid) {
                return Err(refuse("a memory copy of a run-time size"));
            }
            (self.p.const_u64(sid)?, 3)
        };
        let volatile = inst.operands[rest..]
            .iter()
            .any(|o| matches!(o, Operand::MemoryAccess(m) if m.contains(MemoryAccess::VOLATILE)));
        if volatile || size > 512 {
            return Err(refuse(format!("a memory copy of {size} bytes")));
        }
        let mut chunks = Vec::new();
        let mut off = 0u64;
        for t in [types::I64, types::I32, types::I16, types::I8] {
            while size - off >= u64::from(t.bytes()) {
                chunks.push((off as i32, t));
                off += u64::from(t.bytes());
            }
        }
        let copy = |s: &mut Self, d: Value, src: Value| {
            let flags = MemFlagsData::new();
            let vals: Vec<Value> = chunks
                .iter()
                .map(|(o, t)| s.b.ins().load(*t, flags, src, *o))
                .collect();
            for ((o, _), v) in chunks.iter().zip(vals) {
                s.b.ins().store(flags, v, d, *o);
            }
        };
        let dst = self.val(dst_id)?;
        let src = self.val(src_id)?;
        let mask = match self.mask {
            Some(m) if Some(m) != self.lin_full() => Some(m),
            _ => None,
        };
        let guarded = |s: &mut Self, on: Value, f: &dyn Fn(&mut Self)| {
            let (run, next) = (s.b.create_block(), s.b.create_block());
            s.b.ins().brif(on, run, &[], next, &[]);
            s.b.switch_to_block(run);
            f(s);
            s.b.ins().jump(next, &[]);
            s.b.switch_to_block(next);
        };
        if let (V::U(d), V::U(sr)) = (&dst, &src) {
            let (d, sr) = (*d, *sr);
            match mask {
                None => copy(self, d, sr),
                Some(m) => {
                    let any = self.b.ins().vany_true(m);
                    guarded(self, any, &|s| copy(s, d, sr));
                }
            }
            return Ok(());
        }
        let d = self.lanes(&dst)?;
        let sr = self.lanes(&src)?;
        for k in 0..self.w {
            match mask {
                None => copy(self, d[k], sr[k]),
                Some(m) => {
                    let on = self.b.ins().extractlane(m, k as u8);
                    let (dk, sk) = (d[k], sr[k]);
                    guarded(self, on, &|s| copy(s, dk, sk));
                }
            }
        }
        Ok(())
    }

    /// A work-item built-in computed from the linear local id (`z × ly + y) × lx + x`, lane
    /// `k`'s is lane 0's + k): the local index and the sub-group ids and sizes, of type `t`.
    fn linear_builtin(&mut self, b: BuiltIn, t: ir::Type) -> Result<V> {
        let sgs = i64::from(self.plan.sub_group_size);
        let shift = sgs.trailing_zeros() as i64;
        let ctx = |o: i32, k: usize| self.inp.ctx_vals[(o / 8) as usize + k];
        let size = |s: &mut Self, o: i32| {
            let (x, y, z) = (ctx(o, 0), ctx(o, 1), ctx(o, 2));
            let xy = s.b.ins().imul(x, y);
            s.b.ins().imul(xy, z)
        };
        let v = match b {
            BuiltIn::SubgroupMaxSize => V::U(self.b.ins().iconst(types::I64, sgs)),
            BuiltIn::NumSubgroups | BuiltIn::NumEnqueuedSubgroups => {
                let o = if b == BuiltIn::NumSubgroups {
                    GroupContext::OFFSET_LOCAL_SIZE
                } else {
                    GroupContext::OFFSET_ENQUEUED_LOCAL_SIZE
                };
                let n = size(self, o);
                let n = self.b.ins().iadd_imm_s(n, sgs - 1);
                V::U(self.b.ins().ushr_imm_s(n, shift))
            }
            BuiltIn::LocalInvocationIndex
            | BuiltIn::SubgroupLocalInvocationId
            | BuiltIn::SubgroupId
            | BuiltIn::SubgroupSize => {
                let ls = GroupContext::OFFSET_LOCAL_SIZE;
                let (lx, ly) = (ctx(ls, 0), ctx(ls, 1));
                let zy = self.b.ins().imul(self.inp.lid[2], ly);
                let zy = self.b.ins().iadd(zy, self.inp.lid[1]);
                let row = self.b.ins().imul(zy, lx);
                let lin = V::Aff(self.b.ins().iadd(row, self.inp.lid[0]), 1);
                match b {
                    BuiltIn::LocalInvocationIndex => lin,
                    BuiltIn::SubgroupLocalInvocationId => {
                        self.per_lane(&lin, types::I64, move |b, l| b.ins().band_imm_s(l, sgs - 1))?
                    }
                    BuiltIn::SubgroupId => {
                        self.per_lane(&lin, types::I64, move |b, l| b.ins().ushr_imm_s(l, shift))?
                    }
                    _ => {
                        // The last sub-group of a group may be shorter.
                        let n = size(self, ls);
                        self.per_lane(&lin, types::I64, move |b, l| {
                            let base = b.ins().band_imm_s(l, !(sgs - 1));
                            let left = b.ins().isub(n, base);
                            let max = b.ins().iconst(types::I64, sgs);
                            b.ins().umin(left, max)
                        })?
                    }
                }
            }
            b => return Err(refuse(format!("builtin {b:?}"))),
        };
        self.truncate(&v, t)
    }

    /// Narrow an integer to `t` (exact for affine values: wrapping commutes).
    fn truncate(&mut self, v: &V, t: ir::Type) -> Result<V> {
        let cur = |s: &Self, x: Value| s.b.func.dfg.value_type(x);
        Ok(match v {
            V::U(x) => V::U(self.fit(*x, t)),
            V::Aff(x, step) => V::Aff(self.fit(*x, t), canon(*step, t)),
            V::L(l) if cur(self, l[0]) != t => V::L(l.iter().map(|x| self.fit(*x, t)).collect()),
            V::L(_) => v.clone(),
            V::Vec(x) if self.b.func.dfg.value_type(x[0]).lane_type() == t => v.clone(),
            // `int` lanes to `char`/`short`: their low bits.
            V::Vec(x)
                if small_ints::small(t) && self.b.func.dfg.value_type(x[0]) == types::I32X4 =>
            {
                self.zext_of(x, t)
            }
            V::Zext(x, _) if small_ints::small(t) => self.zext_of(x, t),
            V::Ext(e) if e.clamp.is_none() && t.bits() <= 32 => {
                // Narrowed again (`int id; id += get_local_size(0)` widens `id`, adds in 64
                // bits and truncates): the low bits of `add + mul × ext(n + k × s)` are
                // `add + mul × (n + k × s)` in the narrow type's wrapping arithmetic,
                // affine whether or not the narrow lanes wrapped.
                let n = self.fit(e.narrow, t);
                let m = if e.mul == 1 {
                    n
                } else {
                    self.b.ins().imul_imm_s(n, e.mul)
                };
                let base = match e.add {
                    Some(a) => {
                        let a = self.fit(a, t);
                        self.b.ins().iadd(a, m)
                    }
                    None => m,
                };
                V::Aff(base, canon(e.mul.wrapping_mul(e.nstep), t))
            }
            v => {
                // Vectors of a wider type, widened or clamped indices: lane by lane.
                let l = self.lanes(v)?;
                let l = l.into_iter().map(|x| self.fit(x, t)).collect();
                self.gathered(t, l)
            }
        })
    }

    fn fit(&mut self, x: Value, t: ir::Type) -> Value {
        if self.b.func.dfg.value_type(x).bits() > t.bits() {
            self.b.ins().ireduce(t, x)
        } else {
            x
        }
    }

    /// `a + b` (or `a - b`) of integers of type `t`.
    fn add(&mut self, a: &V, b: &V, t: ir::Type, sub: bool) -> Result<V> {
        let op = |s: &mut Self, x: Value, y: Value| {
            if sub {
                s.b.ins().isub(x, y)
            } else {
                s.b.ins().iadd(x, y)
            }
        };
        let mask = |s: i64| canon(s, t);
        Ok(match (a, b) {
            (V::U(x), V::U(y)) => V::U(op(self, *x, *y)),
            (V::Aff(x, s), V::U(y)) => V::Aff(op(self, *x, *y), *s),
            (V::U(x), V::Aff(y, s)) => {
                let s = if sub { s.wrapping_neg() } else { *s };
                V::Aff(op(self, *x, *y), mask(s))
            }
            (V::Aff(x, s), V::Aff(y, r)) => {
                let st = if sub {
                    s.wrapping_sub(*r)
                } else {
                    s.wrapping_add(*r)
                };
                V::Aff(op(self, *x, *y), mask(st))
            }
            (V::Clamped(c), V::U(y)) if t == types::I32 => {
                let add = match c.add {
                    Some(a) => op(self, a, *y),
                    None if sub => self.b.ins().ineg(*y),
                    None => *y,
                };
                V::Clamped(Clamp {
                    add: Some(add),
                    ..*c
                })
            }
            (V::U(x), V::Clamped(c)) if t == types::I32 && !sub => {
                let add = match c.add {
                    Some(a) => self.b.ins().iadd(*x, a),
                    None => *x,
                };
                V::Clamped(Clamp {
                    add: Some(add),
                    ..*c
                })
            }
            (V::Ext(e), V::U(y)) if t == types::I64 => {
                let add = match e.add {
                    Some(a) => op(self, a, *y),
                    None if sub => self.b.ins().ineg(*y),
                    None => *y,
                };
                V::Ext(Ext {
                    add: Some(add),
                    ..*e
                })
            }
            (V::U(x), V::Ext(e)) if t == types::I64 => {
                let add = match (e.add, sub) {
                    (Some(a), true) => self.b.ins().isub(*x, a),
                    (Some(a), false) => self.b.ins().iadd(*x, a),
                    (None, _) => *x,
                };
                let mul = if sub { e.mul.wrapping_neg() } else { e.mul };
                V::Ext(Ext {
                    add: Some(add),
                    mul,
                    ..*e
                })
            }
            _ => self.low_bits_binary(a, b, t, move |bb, x, y| {
                if sub {
                    bb.ins().isub(x, y)
                } else {
                    bb.ins().iadd(x, y)
                }
            })?,
        })
    }

    /// `a * c` for a constant `c`.
    fn mul_const(&mut self, a: &V, c: i64, t: ir::Type) -> Result<V> {
        let c = canon(c, t);
        Ok(match a {
            V::U(x) => V::U(self.b.ins().imul_imm_s(*x, c)),
            V::Aff(x, s) => V::Aff(self.b.ins().imul_imm_s(*x, c), canon(s.wrapping_mul(c), t)),
            V::Ext(e) if t == types::I64 => V::Ext(Ext {
                mul: e.mul.wrapping_mul(c),
                add: e.add.map(|a| self.b.ins().imul_imm_s(a, c)),
                ..*e
            }),
            a => {
                let k = self.b.ins().iconst(t, c);
                self.low_bits_binary(a, &V::U(k), t, |b, x, y| b.ins().imul(x, y))?
            }
        })
    }

    /// [`Self::binary`] for an integer operation whose result's low bits depend only on
    /// its operands' low bits (add, subtract, multiply, and, or, xor): `char`/`short`
    /// lanes kept in `i32x4` parts ([`V::Zext`]) are operated on there.
    fn low_bits_binary(
        &mut self,
        a: &V,
        b: &V,
        t: ir::Type,
        f: impl Fn(&mut FunctionBuilder, Value, Value) -> Value,
    ) -> Result<V> {
        match self.zext_binary(a, b, t, &f) {
            Some(v) => Ok(v),
            None => self.binary(a, b, t, f),
        }
    }

    /// A lane-wise binary operation: uniform if both are, else on vectors (32-bit types)
    /// or lane by lane.
    fn binary(
        &mut self,
        a: &V,
        b: &V,
        t: ir::Type,
        f: impl Fn(&mut FunctionBuilder, Value, Value) -> Value,
    ) -> Result<V> {
        if let (V::U(x), V::U(y)) = (a, b) {
            return Ok(V::U(f(self.b, *x, *y)));
        }
        if doubles::any_f64(t, &[a, b]) {
            return self.f64_binary(a, b, f);
        }
        if vec_of(t).is_some() {
            let x = self.vector(a, t)?;
            let y = self.vector(b, t)?;
            return Ok(V::Vec(self.map2(&x, &y, f)));
        }
        let x = self.lanes(a)?;
        let y = self.lanes(b)?;
        Ok(V::L(self.map2(&x, &y, f)))
    }
}

/// Whether an instruction producing an OpenCL vector works component by component (so the
/// vectoriser translates it once per component).
/// Whether the lane code takes the result-changing decorations of `inst`
/// ([`crate::ir::Effects`]): a float→integer conversion with any rounding mode and
/// saturation, an integer→integer one with saturation (both through the scalar lowering's
/// lane functions), and the rounding the plain conversions already have (to nearest for
/// integer→float and float narrowing; a float widening is exact).
fn lane_effects_supported(inst: &Inst) -> bool {
    use rspirv::spirv::FPRoundingMode as M;
    let e = inst.effects;
    match inst.op() {
        Op::ConvertFToS | Op::ConvertFToU => true,
        Op::UConvert | Op::SConvert | Op::SatConvertSToU | Op::SatConvertUToS => {
            e.rounding.is_none()
        }
        Op::ConvertSToF | Op::ConvertUToF | Op::FConvert => {
            !e.saturated && matches!(e.rounding, None | Some(M::RTE))
        }
        _ => false,
    }
}

/// The scalars of `args` if every one is uniform.
fn uniform_values(args: &[V]) -> Option<Vec<Value>> {
    args.iter()
        .map(|a| match a {
            V::U(x) => Some(*x),
            _ => None,
        })
        .collect()
}

fn componentwise(inst: &Instruction, p: &Program) -> bool {
    use rspirv::spirv::OpenclStd100Op as E;
    match inst.class.opcode {
        Op::ExtInst => {
            let Some(Operand::LiteralExtInstInteger(n)) = inst.operands.get(1) else {
                return false;
            };
            let std = op_id(inst, 0)
                .ok()
                .and_then(|s| p.ext_imports.get(&s))
                .is_some_and(|s| s == "OpenCL.std");
            std && !matches!(
                E::from_u32(*n),
                None | Some(
                    E::cross
                        | E::distance
                        | E::length
                        | E::normalize
                        | E::fast_distance
                        | E::fast_length
                        | E::fast_normalize
                        | E::vloadn
                        | E::vstoren
                        | E::vload_half
                        | E::vload_halfn
                        | E::vloada_halfn
                        | E::vstore_half
                        | E::vstore_half_r
                        | E::vstore_halfn
                        | E::vstore_halfn_r
                        | E::vstorea_halfn
                        | E::vstorea_halfn_r
                        | E::shuffle
                        | E::shuffle2
                        | E::fract
                        | E::modf
                        | E::frexp
                        | E::sincos
                        | E::remquo
                        | E::lgamma_r
                        | E::select
                        | E::printf
                        | E::prefetch
                )
            )
        }
        Op::FAdd
        | Op::FSub
        | Op::FMul
        | Op::FDiv
        | Op::FNegate
        | Op::IAdd
        | Op::ISub
        | Op::IMul
        | Op::UDiv
        | Op::SDiv
        | Op::UMod
        | Op::SRem
        | Op::SMod
        | Op::BitwiseAnd
        | Op::BitwiseOr
        | Op::BitwiseXor
        | Op::ShiftLeftLogical
        | Op::ShiftRightLogical
        | Op::ShiftRightArithmetic
        | Op::ConvertFToS
        | Op::ConvertFToU
        | Op::ConvertSToF
        | Op::ConvertUToF
        | Op::FConvert
        | Op::UConvert
        | Op::SConvert
        | Op::SatConvertSToU
        | Op::SatConvertUToS
        | Op::Select
        | Op::VectorTimesScalar
        | Op::LogicalAnd
        | Op::LogicalOr
        | Op::LogicalNot
        | Op::LogicalEqual
        | Op::LogicalNotEqual
        | Op::BitCount
        | Op::IsNan
        | Op::IsInf
        | Op::IsFinite
        | Op::SignBitSet => true,
        op => {
            crate::codegen::arith::int_cc(op).is_some()
                || crate::codegen::arith::float_cc(op).is_some()
        }
    }
}

/// A zero of scalar type `t`.
fn zero_of(b: &mut FunctionBuilder, t: ir::Type) -> Value {
    match t {
        types::F32 => b.ins().f32const(0.0),
        types::F64 => b.ins().f64const(0.0),
        t => b.ins().iconst(t, 0),
    }
}
