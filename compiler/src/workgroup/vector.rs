//! Vectorisation across work-items of a straight-line kernel: four consecutive work-items
//! along x per iteration of a loop placed before the scalar x loop, which finishes the row
//! (partial groups, rows not a multiple of four).
//!
//! Only a kernel whose every function is one basic block (the llvm-spirv wrapper and the
//! kernel it calls, and whatever they call) and uses nothing but the operations below is
//! vectorised; anything else keeps the scalar loop alone. Each SPIR-V value is, for the four
//! lanes (work-items `x .. x + 4`), one of ([`V`]):
//! - uniform: one scalar for all lanes (arguments, constants, group geometry, ids along y
//!   and z, loads through a uniform pointer);
//! - affine: lane `k` is `base + k * step` (an integer or pointer; `get_global_id(0)` has
//!   step 1, `p + gid` step `sizeof(*p)`), kept exact through additions, subtractions,
//!   multiplication by a constant (and left shift by one), truncation (wrapping is the
//!   same in each lane) and casts between pointer types;
//! - a Cranelift vector (`f32x4`, `i32x4`) for varying 32-bit values;
//! - four scalars for the rest.
//!
//! A load or store through an affine pointer whose step is the element size, of `f32`/`i32`,
//! is one vector access; every other varying access is done lane by lane, in lane order
//! (so a store of several lanes to one address leaves the last work-item's value, as the
//! scalar loop does). The operations: loads, stores, pointer access chains with one
//! 64-bit index, `+ - *` on 32/64-bit integers, shifts by a uniform amount, bitwise
//! `& | ^`, integer conversions between 32 and 64 bits, `+ - * /` and negation of `float`,
//! OpenCL.std `mad` (a multiply and an add, as the scalar code) and `fma` (when the target
//! has a vector fma), work-item builtins, calls. Executing an instruction for all four
//! lanes before the next one is
//! a legal schedule: work-items of a group without a barrier are unordered, and a kernel
//! whose work-items race on non-atomic memory has no defined result. Atomics, volatile
//! accesses, control flow, private variables and every other opcode are refused.
//!
//! Whether a kernel qualifies is settled by translating it once into a scratch function
//! ([`check`]): the translation is the same code, so it cannot accept in the check what
//! it then fails to emit.

use crate::codegen::Result;
use crate::layout::layout;
use crate::spirv::{op_id, op_lit, result_id, result_type, Constant, Function, Program, Type};
use crate::{CompileError, GroupContext};
use cranelift_codegen::ir::{
    self, types, AbiParam, Block, BlockArg, InstBuilder, MemFlagsData, Signature, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, MemoryAccess, Op, StorageClass, Word};
use std::collections::HashMap;

/// Work-items per iteration.
pub const LANES: i64 = 4;

/// Deepest chain of calls translated in place.
const MAX_DEPTH: u32 = 8;

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
}

/// A SPIR-V value across the four lanes.
#[derive(Clone, Debug)]
enum V {
    /// The same scalar in every lane.
    U(Value),
    /// Lane `k` is `base + k * step`.
    Aff(Value, i64),
    /// An `f32x4` / `i32x4`.
    Vec(Value),
    /// One scalar per lane.
    L([Value; 4]),
    /// A loaded builtin vector (only its components are used).
    Builtin(BuiltIn),
}

fn refuse(what: impl std::fmt::Display) -> CompileError {
    CompileError::Unsupported(format!("not vectorisable: {what}"))
}

/// The scalar types the vectoriser handles.
fn scalar_ty(p: &Program, ty: Word) -> Result<ir::Type> {
    Ok(match p.ty(ty)? {
        Type::Float { width: 32 } => types::F32,
        Type::Int { width: 32, .. } => types::I32,
        Type::Int { width: 64, .. } => types::I64,
        Type::Pointer { .. } => types::I64,
        _ => return Err(refuse(format!("type %{ty}"))),
    })
}

/// `c` as the immediate of a `t` operation: its low `t.bits()` bits, sign-extended (the
/// wrapping arithmetic of the type).
fn canon(c: i64, t: ir::Type) -> i64 {
    let sh = 64 - t.bits().min(64);
    (c << sh) >> sh
}

fn vec_of(t: ir::Type) -> Option<ir::Type> {
    match t {
        types::F32 => Some(types::F32X4),
        types::I32 => Some(types::I32X4),
        _ => None,
    }
}

struct VTx<'a, 'b, 'p> {
    b: &'a mut FunctionBuilder<'b>,
    p: &'p Program,
    fma: bool,
    inp: &'a Inputs<'a>,
    vals: HashMap<Word, V>,
    /// Known integer constants (for multiplication of affine values).
    consts: HashMap<Word, i64>,
    /// Scalar Cranelift type of each value.
    tys: HashMap<Word, ir::Type>,
    /// SPIR-V type of each value.
    spv_tys: HashMap<Word, Word>,
}

/// Can `kernel` be vectorised? Translates it into a scratch function and reports whether
/// that succeeded.
pub fn check(p: &Program, kernel: &Function, arg_types: &[ir::Type], fma: bool) -> bool {
    let mut sig = Signature::new(CallConv::SystemV);
    sig.params
        .extend(arg_types.iter().map(|t| AbiParam::new(*t)));
    let n_ctx = (GroupContext::OFFSET_WORK_DIM / 8 + 1) as usize;
    sig.params
        .extend(std::iter::repeat_n(AbiParam::new(types::I64), 6 + n_ctx));
    let mut func = ir::Function::with_name_signature(ir::UserFuncName::default(), sig);
    let mut fbc = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut fbc);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let params = b.block_params(entry).to_vec();
    let (args, rest) = params.split_at(arg_types.len());
    let inp = Inputs {
        args,
        lid: [rest[0], rest[1], rest[2]],
        gid: [rest[3], rest[4], rest[5]],
        ctx_vals: &rest[6..],
    };
    let r = body(&mut b, p, fma, kernel, &inp);
    if let Err(e) = &r {
        if crate::codegen::dump_clif() {
            eprintln!("; ferrite: {}: {e}", kernel.name);
        }
    }
    let ok = r.is_ok();
    // The scratch function is dropped unfinished.
    b.ins().return_(&[]);
    b.seal_all_blocks();
    ok
}

/// Emit the vector loop: `head(x: i64)` runs four work-items from `x` while `x + 4 <=
/// local_size[0]`, then goes on to `scalar_head(x)`. `inp.lid[0]`/`inp.gid[0]` are
/// ignored (the loop's own counter gives them).
#[allow(clippy::too_many_arguments)]
pub fn emit_loop(
    b: &mut FunctionBuilder,
    p: &Program,
    fma: bool,
    kernel: &Function,
    inp: &Inputs,
    head: Block,
    scalar_head: Block,
    ls0: Value,
    base0: Value,
) -> Result<()> {
    let x = *b
        .block_params(head)
        .first()
        .ok_or_else(|| CompileError::Codegen("vector loop head without counter".into()))?;
    b.switch_to_block(head);
    let body_blk = b.create_block();
    let end = b.ins().iadd_imm_s(x, LANES);
    let fits = b
        .ins()
        .icmp(ir::condcodes::IntCC::UnsignedLessThanOrEqual, end, ls0);
    b.ins()
        .brif(fits, body_blk, &[], scalar_head, &[BlockArg::Value(x)]);
    b.switch_to_block(body_blk);
    let g0 = b.ins().iadd(base0, x);
    let lanes = Inputs {
        args: inp.args,
        lid: [x, inp.lid[1], inp.lid[2]],
        gid: [g0, inp.gid[1], inp.gid[2]],
        ctx_vals: inp.ctx_vals,
    };
    body(b, p, fma, kernel, &lanes)?;
    b.ins().jump(head, &[BlockArg::Value(end)]);
    Ok(())
}

/// Translate the kernel for four lanes into the current block.
fn body(
    b: &mut FunctionBuilder,
    p: &Program,
    fma: bool,
    kernel: &Function,
    inp: &Inputs,
) -> Result<()> {
    let mut tx = VTx {
        b,
        p,
        fma,
        inp,
        vals: HashMap::new(),
        consts: HashMap::new(),
        tys: HashMap::new(),
        spv_tys: HashMap::new(),
    };
    let mut args = Vec::new();
    let mut it = inp.args.iter();
    for prm in &kernel.params {
        let t = scalar_ty(p, prm.ty)?;
        let v = *it.next().ok_or_else(|| refuse("argument count"))?;
        if tx.b.func.dfg.value_type(v) != t {
            return Err(refuse("argument type"));
        }
        args.push(V::U(v));
    }
    tx.func(kernel, args, 0)?;
    Ok(())
}

impl VTx<'_, '_, '_> {
    fn func(&mut self, f: &Function, args: Vec<V>, depth: u32) -> Result<Option<V>> {
        let [blk] = &f.blocks[..] else {
            return Err(refuse(format!("control flow in {}", f.name)));
        };
        if depth > MAX_DEPTH || args.len() != f.params.len() {
            return Err(refuse("call"));
        }
        for (prm, a) in f.params.iter().zip(args) {
            self.tys.insert(prm.id, scalar_ty(self.p, prm.ty)?);
            self.spv_tys.insert(prm.id, prm.ty);
            self.vals.insert(prm.id, a);
        }
        for inst in &blk.insts {
            match inst.class.opcode {
                Op::Nop
                | Op::Line
                | Op::NoLine
                | Op::Name
                | Op::Decorate
                | Op::ModuleProcessed
                | Op::LifetimeStart
                | Op::LifetimeStop => {}
                Op::Return => return Ok(None),
                Op::ReturnValue => return Ok(Some(self.val(op_id(inst, 0)?)?)),
                _ => self.inst(inst, depth)?,
            }
        }
        Err(refuse(format!("block of {} without a return", f.name)))
    }

    fn val(&mut self, id: Word) -> Result<V> {
        if let Some(v) = self.vals.get(&id) {
            return Ok(v.clone());
        }
        match self.p.constants.get(&id) {
            Some(Constant::Scalar { ty, bits }) => {
                let t = scalar_ty(self.p, *ty)?;
                let v = if t == types::F32 {
                    self.b.ins().f32const(f32::from_bits(*bits as u32))
                } else {
                    self.consts.insert(id, *bits as i64);
                    self.b.ins().iconst(t, *bits as i64)
                };
                self.tys.insert(id, t);
                self.vals.insert(id, V::U(v));
                Ok(V::U(v))
            }
            _ => Err(refuse(format!("operand %{id}"))),
        }
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
        self.spv_tys.insert(id, result_type(inst)?);
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
            V::Vec(x) => self.b.ins().extractlane(*x, k as u8),
            V::L(l) => l[k],
            V::Builtin(_) => return Err(refuse("builtin vector used whole")),
        })
    }

    fn lanes(&mut self, v: &V) -> Result<[Value; 4]> {
        Ok([
            self.lane(v, 0)?,
            self.lane(v, 1)?,
            self.lane(v, 2)?,
            self.lane(v, 3)?,
        ])
    }

    /// `v` (scalar type `t`, 32-bit) as a Cranelift vector.
    fn vector(&mut self, v: &V, t: ir::Type) -> Result<Value> {
        let vt = vec_of(t).ok_or_else(|| refuse("vector of a 64-bit type"))?;
        Ok(match v {
            V::Vec(x) => *x,
            V::U(x) => self.b.ins().splat(vt, *x),
            _ => {
                let l = self.lanes(v)?;
                let mut x = self.b.ins().splat(vt, l[0]);
                for (k, s) in l.iter().enumerate().skip(1) {
                    x = self.b.ins().insertlane(x, *s, k as u8);
                }
                x
            }
        })
    }

    /// A varying result of scalar type `t` from four scalars.
    fn gathered(&mut self, t: ir::Type, l: [Value; 4]) -> V {
        if vec_of(t).is_some() {
            let mut x = self.b.ins().splat(vec_of(t).unwrap_or(t), l[0]);
            for (k, s) in l.iter().enumerate().skip(1) {
                x = self.b.ins().insertlane(x, *s, k as u8);
            }
            V::Vec(x)
        } else {
            V::L(l)
        }
    }

    fn volatile(&self, inst: &Instruction, first: usize, ptr: Word) -> bool {
        let by_operand = matches!(
            inst.operands.get(first),
            Some(Operand::MemoryAccess(m)) if m.contains(MemoryAccess::VOLATILE)
        );
        by_operand || self.p.has_decoration(ptr, Decoration::Volatile)
    }

    fn inst(&mut self, inst: &Instruction, depth: u32) -> Result<()> {
        let p = self.p;
        let flags = MemFlagsData::new();
        // Decorations that change what an instruction computes (`convert_T_sat`,
        // `convert_T_rtz`, …) are codegen's (`codegen/convert.rs`); the lane code below
        // knows only the plain instructions.
        if let Some(r) = inst.result_id {
            for d in [Decoration::SaturatedConversion, Decoration::FPRoundingMode] {
                if p.has_decoration(r, d) {
                    return Err(refuse(format!("{d:?} on %{r}")));
                }
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
                        // Sub-group ids and sizes, linear ids: computed by the scalar loop.
                        return Err(refuse(format!("builtin {b:?}")));
                    }
                    return self.set(inst, types::I64, V::Builtin(b));
                }
                if self.volatile(inst, 1, ptr) {
                    return Err(refuse("volatile load"));
                }
                let t = scalar_ty(p, rt)?;
                let size = i64::from(t.bytes());
                let v = match self.val(ptr)? {
                    V::U(a) => V::U(self.b.ins().load(t, flags, a, 0)),
                    V::Aff(a, step) if step == size && vec_of(t).is_some() => {
                        let vt = vec_of(t).unwrap_or(t);
                        V::Vec(self.b.ins().load(vt, flags, a, 0))
                    }
                    a => {
                        let addr = self.lanes(&a)?;
                        let l = addr.map(|a| self.b.ins().load(t, flags, a, 0));
                        self.gathered(t, l)
                    }
                };
                self.set(inst, t, v)
            }
            Op::Store => {
                let ptr = op_id(inst, 0)?;
                if p.builtin_of(ptr).is_some() || self.volatile(inst, 2, ptr) {
                    return Err(refuse("store"));
                }
                let val_id = op_id(inst, 1)?;
                let t = self.ty(val_id)?;
                let v = self.val(val_id)?;
                let size = i64::from(t.bytes());
                match self.val(ptr)? {
                    V::Aff(a, step) if step == size && vec_of(t).is_some() => {
                        let x = self.vector(&v, t)?;
                        self.b.ins().store(flags, x, a, 0);
                    }
                    a => {
                        let addr = self.lanes(&a)?;
                        let l = self.lanes(&v)?;
                        for k in 0..4 {
                            self.b.ins().store(flags, l[k], addr[k], 0);
                        }
                    }
                }
                Ok(())
            }
            Op::PtrAccessChain | Op::InBoundsPtrAccessChain if inst.operands.len() == 2 => {
                let rt = result_type(inst)?;
                let (class, pointee) = p.pointer_type(rt)?;
                if class == StorageClass::Function || class == StorageClass::Input {
                    return Err(refuse("private pointer"));
                }
                let size = layout(p, pointee)?.size as i64;
                let base = self.val(op_id(inst, 0)?)?;
                let idx_id = op_id(inst, 1)?;
                if self.ty(idx_id)? != types::I64 {
                    return Err(refuse("32-bit index"));
                }
                let idx = self.val(idx_id)?;
                let scaled = self.mul_const(&idx, size, types::I64)?;
                let v = self.add(&base, &scaled, types::I64, false)?;
                self.set(inst, types::I64, v)
            }
            Op::CompositeExtract if inst.operands.len() == 2 => {
                let src = self.val(op_id(inst, 0)?)?;
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
            Op::UConvert | Op::SConvert => {
                let x_id = op_id(inst, 0)?;
                let ts = self.ty(x_id)?;
                let td = scalar_ty(p, result_type(inst)?)?;
                let x = self.val(x_id)?;
                let v = if ts == td {
                    x
                } else if td.bits() < ts.bits() {
                    self.truncate(&x, td)?
                } else {
                    let signed = inst.class.opcode == Op::SConvert;
                    let ext = |s: &mut Self, v: Value| {
                        if signed {
                            s.b.ins().sextend(td, v)
                        } else {
                            s.b.ins().uextend(td, v)
                        }
                    };
                    match x {
                        V::U(v) => V::U(ext(self, v)),
                        x => {
                            let l = self.lanes(&x)?;
                            V::L(l.map(|v| ext(self, v)))
                        }
                    }
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
                    _ => self.binary(&a, &b, t, |b, x, y| b.ins().imul(x, y))?,
                };
                self.set(inst, t, v)
            }
            Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
                // A uniform shift amount only (Cranelift shifts vectors by a scalar); the
                // amount is taken modulo the width, as the scalar `ishl`/`ushr`/`sshr` do.
                let t = scalar_ty(p, result_type(inst)?)?;
                let (xi, yi) = (op_id(inst, 0)?, op_id(inst, 1)?);
                let x = self.val(xi)?;
                let V::U(y) = self.val(yi)? else {
                    return Err(refuse("varying shift amount"));
                };
                let op = inst.class.opcode;
                let shift = move |b: &mut FunctionBuilder, v: Value| match op {
                    Op::ShiftLeftLogical => b.ins().ishl(v, y),
                    Op::ShiftRightLogical => b.ins().ushr(v, y),
                    _ => b.ins().sshr(v, y),
                };
                let c = self.consts.get(&yi).copied();
                let v = match (op, c, &x) {
                    (Op::ShiftLeftLogical, Some(c), _) => {
                        let c = c & i64::from(t.bits() - 1);
                        self.mul_const(&x, 1i64 << c, t)?
                    }
                    (_, _, V::U(v)) => V::U(shift(self.b, *v)),
                    _ if vec_of(t).is_some() => {
                        let v = self.vector(&x, t)?;
                        V::Vec(shift(self.b, v))
                    }
                    _ => {
                        let l = self.lanes(&x)?;
                        V::L(l.map(|v| shift(self.b, v)))
                    }
                };
                self.set(inst, t, v)
            }
            Op::BitwiseAnd | Op::BitwiseOr | Op::BitwiseXor => {
                let t = scalar_ty(p, result_type(inst)?)?;
                if t == types::F32 {
                    return Err(refuse("bitwise operation on floats"));
                }
                let a = self.val(op_id(inst, 0)?)?;
                let b = self.val(op_id(inst, 1)?)?;
                let v = match inst.class.opcode {
                    Op::BitwiseAnd => self.binary(&a, &b, t, |b, x, y| b.ins().band(x, y))?,
                    Op::BitwiseOr => self.binary(&a, &b, t, |b, x, y| b.ins().bor(x, y))?,
                    _ => self.binary(&a, &b, t, |b, x, y| b.ins().bxor(x, y))?,
                };
                self.set(inst, t, v)
            }
            Op::FAdd | Op::FSub | Op::FMul | Op::FDiv => {
                let t = scalar_ty(p, result_type(inst)?)?;
                if t != types::F32 {
                    return Err(refuse("float type"));
                }
                let a = self.val(op_id(inst, 0)?)?;
                let b = self.val(op_id(inst, 1)?)?;
                let v = match inst.class.opcode {
                    Op::FAdd => self.binary(&a, &b, t, |b, x, y| b.ins().fadd(x, y))?,
                    Op::FSub => self.binary(&a, &b, t, |b, x, y| b.ins().fsub(x, y))?,
                    Op::FMul => self.binary(&a, &b, t, |b, x, y| b.ins().fmul(x, y))?,
                    _ => self.binary(&a, &b, t, |b, x, y| b.ins().fdiv(x, y))?,
                };
                self.set(inst, t, v)
            }
            Op::FNegate => {
                let t = scalar_ty(p, result_type(inst)?)?;
                if t != types::F32 {
                    return Err(refuse("float type"));
                }
                let v = match self.val(op_id(inst, 0)?)? {
                    V::U(x) => V::U(self.b.ins().fneg(x)),
                    x => {
                        let x = self.vector(&x, t)?;
                        V::Vec(self.b.ins().fneg(x))
                    }
                };
                self.set(inst, t, v)
            }
            Op::Bitcast | Op::PtrCastToGeneric | Op::GenericCastToPtr => {
                // Between pointer types only: the address is unchanged.
                let rt = result_type(inst)?;
                let x_id = op_id(inst, 0)?;
                if !matches!(p.ty(rt)?, Type::Pointer { .. })
                    || !matches!(p.ty(self.type_of_id(x_id)?)?, Type::Pointer { .. })
                {
                    return Err(refuse("bit cast"));
                }
                let v = self.val(x_id)?;
                self.set(inst, types::I64, v)
            }
            Op::ExtInst => self.ext_inst(inst),
            Op::FunctionCall => {
                let callee = p.function(op_id(inst, 0)?)?;
                let mut args = Vec::new();
                for k in 1..inst.operands.len() {
                    args.push(self.val(op_id(inst, k)?)?);
                }
                let r = self.func(callee, args, depth + 1)?;
                match (r, p.ty(result_type(inst)?)?) {
                    (None, Type::Void) => Ok(()),
                    (Some(v), _) => {
                        let t = scalar_ty(p, result_type(inst)?)?;
                        self.set(inst, t, v)
                    }
                    _ => Err(refuse("call result")),
                }
            }
            op => Err(refuse(format!("Op{op:?}"))),
        }
    }

    /// OpenCL.std `mad` (a multiply and an add, as the scalar code does) and `fma` (when the
    /// target has it for vectors).
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
        let t = scalar_ty(self.p, result_type(inst)?)?;
        let is = |e: E| *n == e as u32;
        if t != types::F32 || inst.operands.len() != 5 || !(is(E::mad) || is(E::fma)) {
            return Err(refuse("extended instruction"));
        }

        let a = self.val(op_id(inst, 2)?)?;
        let b = self.val(op_id(inst, 3)?)?;
        let c = self.val(op_id(inst, 4)?)?;
        let v = if is(E::mad) {
            let m = self.binary(&a, &b, t, |b, x, y| b.ins().fmul(x, y))?;
            self.binary(&m, &c, t, |b, x, y| b.ins().fadd(x, y))?
        } else if let (V::U(x), V::U(y), V::U(z)) = (&a, &b, &c) {
            V::U(self.b.ins().fma(*x, *y, *z))
        } else if self.fma {
            let x = self.vector(&a, t)?;
            let y = self.vector(&b, t)?;
            let z = self.vector(&c, t)?;
            V::Vec(self.b.ins().fma(x, y, z))
        } else {
            return Err(refuse("fma without a native vector fma"));
        };
        self.set(inst, t, v)
    }

    /// Narrow an integer to `t` (exact for affine values: wrapping commutes).
    fn truncate(&mut self, v: &V, t: ir::Type) -> Result<V> {
        let cur = |s: &Self, x: Value| s.b.func.dfg.value_type(x);
        Ok(match v {
            V::U(x) => V::U(self.fit(*x, t)),
            V::Aff(x, step) => V::Aff(self.fit(*x, t), canon(*step, t)),
            V::L(l) if cur(self, l[0]) != t => {
                let l = *l;
                V::L(l.map(|x| self.fit(x, t)))
            }
            v => v.clone(),
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
            _ => self.binary(a, b, t, move |bb, x, y| {
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
            a => {
                let k = self.b.ins().iconst(t, c);
                self.binary(a, &V::U(k), t, |b, x, y| b.ins().imul(x, y))?
            }
        })
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
        if vec_of(t).is_some() {
            let x = self.vector(a, t)?;
            let y = self.vector(b, t)?;
            return Ok(V::Vec(f(self.b, x, y)));
        }
        let x = self.lanes(a)?;
        let y = self.lanes(b)?;
        Ok(V::L([
            f(self.b, x[0], y[0]),
            f(self.b, x[1], y[1]),
            f(self.b, x[2], y[2]),
            f(self.b, x[3], y[3]),
        ]))
    }
}
