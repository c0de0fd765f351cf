//! Conversions: int↔float (float→int rounds toward zero unless an `FPRoundingMode`
//! decoration says otherwise, then it rounds to an integer first; int→float and
//! double→float round to nearest, or call a `builtins::convert` helper for the directed
//! modes, which Cranelift lacks), int widths, float widths,
//! bitcasts (also vector↔scalar of equal size, through a stack slot), pointer↔integer and
//! address-space casts (no-ops: all pointers are absolute).
//!
//! `SaturatedConversion` (`convert_T_sat`) clamps to the destination range; without it an
//! out-of-range float→int is undefined in OpenCL and Cranelift's saturating conversion is
//! used so it can never trap.

use super::{clif_scalar, elem_of, FnTx, Result, Val};
use crate::ir::{Effects, Inst};
use crate::layout::layout;
use crate::spirv::{op_id, result_type, Type};
use crate::CompileError;
use cranelift_codegen::ir::{
    types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::FunctionBuilder;
use rspirv::spirv::{FPRoundingMode, Op};

/// SPIR-V `FPRoundingMode` values (`builtins::convert` takes them as they are).
const RTE: i32 = crate::builtins::convert::RTE;

impl FnTx<'_, '_, '_> {
    /// Whether `ptr` points into the group's local memory.
    fn in_group_local_memory(&mut self, ptr: Value) -> Value {
        in_group_local_memory(&mut self.b, self.ctx, self.local_mem, ptr)
    }

    /// `to_global`/`to_local`/`to_private` ([`cast_explicit`]).
    fn cast_explicit(&mut self, ptr: Value, class: rspirv::spirv::StorageClass) -> Result<Value> {
        let bi = crate::builtins::by_name("ferrite_space_of")
            .ok_or_else(|| CompileError::Codegen("built-in ferrite_space_of missing".into()))?;
        let space_of = match self.builtin_refs.get(bi.name) {
            Some(r) => *r,
            None => {
                let r = self.env.builtin_ref(self.b.func, &bi)?;
                self.builtin_refs.insert(bi.name, r);
                r
            }
        };
        let at = SpaceEnv {
            ctx: self.ctx,
            wi: self.wi,
            local_mem: self.local_mem,
            space_of,
        };
        cast_explicit(&mut self.b, &at, ptr, class)
    }

    /// `OpGenericPtrMemSemantics` (`get_fence`): `WorkgroupMemory` for an address in the
    /// group's local memory, else `CrossWorkgroupMemory`. A private address also gets
    /// `CrossWorkgroupMemory`: any fence is valid for private memory (OpenCL C 3.0 §6.15.4:
    /// "a valid memory fence value"), and telling the stack apart costs the fast shape
    /// (`cast_explicit`).
    fn generic_mem_semantics(&mut self, ptr: Value, rt: cranelift_codegen::ir::Type) -> Value {
        let local = self.in_group_local_memory(ptr);
        // SPIR-V memory semantics: WorkgroupMemory 0x100, CrossWorkgroupMemory 0x200.
        let wg = self.b.ins().iconst(rt, 0x100);
        let cross = self.b.ins().iconst(rt, 0x200);
        self.b.ins().select(local, wg, cross)
    }

    fn int_info(&self, id: rspirv::spirv::Word) -> Result<(u32, bool)> {
        match self.p.ty(elem_of(self.p, id)?)? {
            Type::Int { width, signed } => Ok((*width, *signed)),
            Type::Bool => Ok((1, false)),
            _ => Err(CompileError::Invalid(format!(
                "type %{id} is not an integer type"
            ))),
        }
    }

    fn clamp_int(&mut self, v: Value, src_signed: bool, w: u32, dst_signed: bool) -> Value {
        clamp_int(&mut self.b, v, src_signed, w, dst_signed)
    }

    /// Resize integer `v` (canonical, `ws` bits, `signed` source) to `wd` bits.
    fn resize_int(&mut self, v: Value, ws: u32, signed: bool, wd: u32) -> Result<Value> {
        let td = super::int_clif(wd)?;
        let v = if signed { self.sext_in(v, ws) } else { v };
        let ts = self.value_type(v);
        let r = if td.bits() > ts.bits() {
            if signed {
                self.b.ins().sextend(td, v)
            } else {
                self.b.ins().uextend(td, v)
            }
        } else if td.bits() < ts.bits() {
            self.b.ins().ireduce(td, v)
        } else {
            v
        };
        Ok(self.wrap(r, wd))
    }

    pub(super) fn convert(&mut self, inst: &Inst) -> Result<()> {
        let effects = inst.effects;
        let rt = result_type(inst)?;
        let src_id = op_id(inst, 0)?;
        let st = self.type_of(src_id)?;
        let x = self.val(src_id)?;
        let sat = effects.saturated;
        let mode = effects.rounding.map(|m| m as i32);
        let p = self.p;
        let op = inst.class.opcode;
        let dst_elem = elem_of(p, rt)?;
        let v = match op {
            Op::ConvertFToU | Op::ConvertFToS => {
                let (wd, _) = self.int_info(rt)?;
                let signed = op == Op::ConvertFToS;
                let td = super::int_clif(wd)?;
                self.map_n(rt, &[x], &mut |s, a| {
                    let r = float_to_int(&mut s.b, a[0], td, wd, signed, effects);
                    Ok(s.wrap(r, wd))
                })?
            }
            Op::ConvertSToF | Op::ConvertUToF => {
                let (ws, _) = self.int_info(st)?;
                let signed = op == Op::ConvertSToF;
                let tf = clif_scalar(p, dst_elem)?;
                let directed = mode.is_some_and(|m| m != RTE);
                let to_half = super::half::is_half(p, dst_elem);
                self.map_n(rt, &[x], &mut |s, a| {
                    let mut v = a[0];
                    if signed {
                        v = s.sext_in(v, ws);
                    }
                    if s.value_type(v).bits() < 32 {
                        v = if signed {
                            s.b.ins().sextend(types::I32, v)
                        } else {
                            s.b.ins().uextend(types::I32, v)
                        };
                    }
                    let Some(m) = mode.filter(|_| directed) else {
                        return Ok(if signed {
                            s.b.ins().fcvt_from_sint(tf, v)
                        } else {
                            s.b.ins().fcvt_from_uint(tf, v)
                        });
                    };
                    let m = s.b.ins().iconst(types::I32, i64::from(m));
                    if to_half {
                        // Exact in double up to 2^53; past that the half is an
                        // infinity or 65504 either way.
                        let d = if signed {
                            s.b.ins().fcvt_from_sint(types::F64, v)
                        } else {
                            s.b.ins().fcvt_from_uint(types::F64, v)
                        };
                        let h = s.call_named("ferrite_f64_to_half", &[d, m])?;
                        return Ok(super::half::from_bits(&mut s.b, h));
                    }
                    if s.value_type(v).bits() <= 32 {
                        // Exact in double; only double → float rounds.
                        let d = if signed {
                            s.b.ins().fcvt_from_sint(types::F64, v)
                        } else {
                            s.b.ins().fcvt_from_uint(types::F64, v)
                        };
                        return if tf == types::F64 {
                            Ok(d)
                        } else {
                            s.call_named("ferrite_cvt_f64_f32", &[d, m])
                        };
                    }
                    let name = match (signed, tf == types::F64) {
                        (true, false) => "ferrite_cvt_s64_f32",
                        (false, false) => "ferrite_cvt_u64_f32",
                        (true, true) => "ferrite_cvt_s64_f64",
                        (false, true) => "ferrite_cvt_u64_f64",
                    };
                    s.call_named(name, &[v, m])
                })?
            }
            Op::UConvert | Op::SConvert | Op::SatConvertSToU | Op::SatConvertUToS => {
                let (ws, _) = self.int_info(st)?;
                let (wd, _) = self.int_info(rt)?;
                let src_signed = matches!(op, Op::SConvert | Op::SatConvertSToU);
                let dst_signed = match op {
                    Op::SatConvertSToU => false,
                    Op::SatConvertUToS => true,
                    _ => src_signed,
                };
                let clamp = sat || matches!(op, Op::SatConvertSToU | Op::SatConvertUToS);
                self.map_n(rt, &[x], &mut |s, a| {
                    if clamp {
                        // Widen to 64 bits, clamp there, then narrow.
                        let v = s.resize_int(a[0], ws, src_signed, 64)?;
                        let v = s.clamp_int(v, src_signed, wd, dst_signed);
                        s.resize_int(v, 64, false, wd)
                    } else {
                        s.resize_int(a[0], ws, src_signed, wd)
                    }
                })?
            }
            Op::FConvert => {
                let td = clif_scalar(p, dst_elem)?;
                let to_half = super::half::is_half(p, dst_elem);
                self.map_n(rt, &[x], &mut |s, a| {
                    let ts = s.value_type(a[0]);
                    Ok(if to_half {
                        match mode.filter(|m| *m != RTE) {
                            // `set_result` rounds an `f32` or `f64` to half.
                            None => a[0],
                            Some(m) => {
                                let d = if ts == types::F64 {
                                    a[0]
                                } else {
                                    s.b.ins().fpromote(types::F64, a[0])
                                };
                                let m = s.b.ins().iconst(types::I32, i64::from(m));
                                let h = s.call_named("ferrite_f64_to_half", &[d, m])?;
                                super::half::from_bits(&mut s.b, h)
                            }
                        }
                    } else if ts == td {
                        a[0]
                    } else if td.bits() > ts.bits() {
                        s.b.ins().fpromote(td, a[0])
                    } else if let Some(m) = mode.filter(|m| *m != RTE) {
                        let m = s.b.ins().iconst(types::I32, i64::from(m));
                        s.call_named("ferrite_cvt_f64_f32", &[a[0], m])?
                    } else {
                        s.b.ins().fdemote(td, a[0])
                    })
                })?
            }
            Op::ConvertPtrToU => {
                let (wd, _) = self.int_info(rt)?;
                self.map_n(rt, &[x], &mut |s, a| s.resize_int(a[0], 64, false, wd))?
            }
            Op::ConvertUToPtr => {
                let (ws, _) = self.int_info(st)?;
                self.map_n(rt, &[x], &mut |s, a| s.resize_int(a[0], ws, false, 64))?
            }
            Op::PtrCastToGeneric | Op::GenericCastToPtr => x,
            Op::GenericPtrMemSemantics => {
                let t = clif_scalar(self.p, rt)?;
                let ptr = x.scalar()?;
                Val::S(self.generic_mem_semantics(ptr, t))
            }
            Op::GenericCastToPtrExplicit => {
                let class = match inst.operands.get(1) {
                    Some(rspirv::dr::Operand::StorageClass(c)) => *c,
                    _ => {
                        return Err(CompileError::Invalid(
                            "OpGenericCastToPtrExplicit without a storage class".into(),
                        ))
                    }
                };
                let ptr = x.scalar()?;
                Val::S(self.cast_explicit(ptr, class)?)
            }
            Op::Bitcast => self.bitcast(rt, st, x)?,
            _ => return Err(self.unsupported(inst)),
        };
        self.set_result(inst, v)
    }

    fn bitcast(&mut self, rt: rspirv::spirv::Word, st: rspirv::spirv::Word, x: Val) -> Result<Val> {
        let p = self.p;
        // Halves take part as their 16 bits (`half.rs`).
        let mut src = x.flat();
        if super::half::is_half(p, st) {
            for v in &mut src {
                let h = super::half::to_bits(&mut self.b, *v);
                *v = self.b.ins().ireduce(types::I16, h);
            }
        }
        let mut dst_tys = Vec::new();
        super::flat_types(p, rt, &mut dst_tys)?;
        if super::half::is_half(p, rt) {
            dst_tys.iter_mut().for_each(|t| *t = types::I16);
            let bits = self.bitcast_flat(rt, st, &src, &dst_tys)?;
            let halves = bits
                .into_iter()
                .map(|h| super::half::from_bits(&mut self.b, h))
                .collect();
            return self.unflatten(rt, halves);
        }
        let out = self.bitcast_flat(rt, st, &src, &dst_tys)?;
        self.unflatten(rt, out)
    }

    /// The scalars `src` reinterpreted as scalars of the types `dst_tys` (the same bytes).
    fn bitcast_flat(
        &mut self,
        rt: rspirv::spirv::Word,
        st: rspirv::spirv::Word,
        src: &[Value],
        dst_tys: &[cranelift_codegen::ir::Type],
    ) -> Result<Vec<Value>> {
        let p = self.p;
        let ssize: u32 = src.iter().map(|v| self.value_type(*v).bytes()).sum();
        let dsize: u32 = dst_tys.iter().map(|t| t.bytes()).sum();
        if ssize != dsize {
            return Err(CompileError::Invalid(format!(
                "OpBitcast between types of different sizes (%{st} → %{rt})"
            )));
        }
        let _ = layout(p, rt)?;
        if src.len() == dst_tys.len() {
            let mut out = Vec::new();
            for (v, t) in src.iter().zip(dst_tys) {
                let from = self.value_type(*v);
                out.push(if from == *t {
                    *v
                } else {
                    self.b.ins().bitcast(*t, MemFlagsData::new(), *v)
                });
            }
            return Ok(out);
        }
        // Different element counts: go through memory.
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            ssize,
            4,
        ));
        let mut off = 0i32;
        for v in src {
            self.b.ins().stack_store(types::I64, *v, slot, off);
            off += self.value_type(*v).bytes() as i32;
        }
        let mut out = Vec::new();
        let mut off = 0i32;
        for t in dst_tys {
            out.push(self.b.ins().stack_load(types::I64, *t, slot, off));
            off += t.bytes() as i32;
        }
        Ok(out)
    }
}

// ---- lane functions shared with the vectoriser ------------------------------------------
// One lowering of each conversion's arithmetic, which the scalar translator above and the
// vectoriser (`workgroup/vector.rs`, once per lane) both call, so the two shapes cannot
// differ.

/// Clamp `v` (an integer, interpreted signed or not) to the range of a `w`-bit destination
/// integer, signed or not.
pub(crate) fn clamp_int(
    b: &mut FunctionBuilder,
    v: Value,
    src_signed: bool,
    w: u32,
    dst_signed: bool,
) -> Value {
    let t = b.func.dfg.value_type(v);
    let bits = t.bits();
    let (lo, hi): (i128, i128) = if dst_signed {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    };
    let (smin, smax): (i128, i128) = if src_signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let mut r = v;
    if hi < smax {
        let c = b.ins().iconst(t, hi as i64);
        r = if src_signed {
            b.ins().smin(r, c)
        } else {
            b.ins().umin(r, c)
        };
    }
    if lo > smin {
        let c = b.ins().iconst(t, lo as i64);
        r = if src_signed {
            b.ins().smax(r, c)
        } else {
            b.ins().umax(r, c)
        };
    }
    r
}

/// `f` (a float scalar or vector) rounded to an integral value by a conversion's rounding
/// mode before the conversion truncates it: unchanged for toward zero or none.
pub(crate) fn round_integral(
    b: &mut FunctionBuilder,
    f: Value,
    rounding: Option<FPRoundingMode>,
) -> Value {
    match rounding {
        Some(FPRoundingMode::RTE) => b.ins().nearest(f),
        Some(FPRoundingMode::RTP) => b.ins().ceil(f),
        Some(FPRoundingMode::RTN) => b.ins().floor(f),
        Some(FPRoundingMode::RTZ) | None => f,
    }
}

/// `OpConvertFToS`/`OpConvertFToU` of one float to an integer of Cranelift type `td` that
/// holds a `wd`-bit SPIR-V integer: the rounding mode of `effects` picks the integer (toward
/// zero without one), then a saturating conversion (NaN → 0, out of range → the nearest
/// bound, so it never traps) through at least 32 bits, clamped to `wd` bits when the
/// conversion is `SaturatedConversion`, else wrapped.
pub(crate) fn float_to_int(
    b: &mut FunctionBuilder,
    f: Value,
    td: types::Type,
    wd: u32,
    signed: bool,
    effects: Effects,
) -> Value {
    let wide = if td.bits() < 32 { types::I32 } else { td };
    let f = round_integral(b, f, effects.rounding);
    let mut r = if signed {
        b.ins().fcvt_to_sint_sat(wide, f)
    } else {
        b.ins().fcvt_to_uint_sat(wide, f)
    };
    if effects.saturated && (wide != td || !super::is_native(wd)) {
        r = clamp_int(b, r, signed, wd, signed);
    }
    if wide != td {
        r = b.ins().ireduce(td, r);
    }
    r
}

/// An integer of `ws` bits (Cranelift value `v`, native width) resized to `td`, clamped to
/// the destination's range first where `clamp` (`SaturatedConversion`, `OpSatConvert*`):
/// widened to 64 bits by the source's signedness, clamped there, then narrowed.
pub(crate) fn int_to_int_clamped(
    b: &mut FunctionBuilder,
    v: Value,
    src_signed: bool,
    td: types::Type,
    dst_signed: bool,
) -> Value {
    let ts = b.func.dfg.value_type(v);
    let wide = match (ts.bits() < 64, src_signed) {
        (true, true) => b.ins().sextend(types::I64, v),
        (true, false) => b.ins().uextend(types::I64, v),
        (false, _) => v,
    };
    let r = clamp_int(b, wide, src_signed, td.bits(), dst_signed);
    if td.bits() < 64 {
        b.ins().ireduce(td, r)
    } else {
        r
    }
}

/// Whether `lo <= ptr < hi` (unsigned).
fn in_range(b: &mut FunctionBuilder, ptr: Value, lo: Value, hi: Value) -> Value {
    use cranelift_codegen::ir::condcodes::IntCC;
    let x = b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, ptr, lo);
    let y = b.ins().icmp(IntCC::UnsignedLessThan, ptr, hi);
    b.ins().band(x, y)
}

/// Whether `ptr` points into the group's local memory, `[local_mem, local_mem +
/// local_mem_size)` (`ctx` the group's context).
pub(crate) fn in_group_local_memory(
    b: &mut FunctionBuilder,
    ctx: Value,
    local_mem: Value,
    ptr: Value,
) -> Value {
    let lsize = b.ins().load(
        types::I64,
        crate::codegen::trusted(),
        ctx,
        crate::GroupContext::OFFSET_LOCAL_MEM_SIZE,
    );
    let lend = b.ins().iadd(local_mem, lsize);
    in_range(b, ptr, local_mem, lend)
}

/// What deciding a generic pointer's address space reads: the group's context, the
/// work-item record (`WI_STACK`, `WI_FRAME_*`), the group's local memory, and a reference
/// to the `ferrite_space_of` built-in.
pub(crate) struct SpaceEnv {
    pub ctx: Value,
    pub wi: Value,
    pub local_mem: Value,
    pub space_of: cranelift_codegen::ir::FuncRef,
}

/// `to_global`/`to_local`/`to_private`: `ptr` if it points into that address space,
/// else NULL. Local memory is the group's `[local_mem, local_mem + local_mem_size)`;
/// private memory is the work-item's stack (between the current stack pointer and the
/// work-group function's) or the group's frame arena; global is everything else. The
/// scalar translator and the vectoriser's lanes both call this.
pub(crate) fn cast_explicit(
    b: &mut FunctionBuilder,
    at: &SpaceEnv,
    ptr: Value,
    class: rspirv::spirv::StorageClass,
) -> Result<Value> {
    use rspirv::spirv::StorageClass as S;
    let t = crate::codegen::trusted;
    let local = in_group_local_memory(b, at.ctx, at.local_mem, ptr);
    let sp = b.ins().get_stack_pointer(types::I64);
    let top = b
        .ins()
        .load(types::I64, t(), at.wi, crate::codegen::WI_STACK);
    let stack = in_range(b, ptr, sp, top);
    let flo = b
        .ins()
        .load(types::I64, t(), at.wi, crate::codegen::WI_FRAME_LO);
    let fhi = b
        .ins()
        .load(types::I64, t(), at.wi, crate::codegen::WI_FRAME_HI);
    let frame = in_range(b, ptr, flo, fhi);
    let private = b.ins().bor(stack, frame);
    // The work-item's own memory answers inline; an address it does not own may
    // still be another work-item's private or local memory (`crate::spaces`).
    let null = b.ins().iconst(types::I64, 0);
    let (fast_yes, fast_no, want) = match class {
        S::Workgroup => (local, private, crate::spaces::Space::Local as i64),
        S::Function => (private, local, crate::spaces::Space::Private as i64),
        S::CrossWorkgroup => {
            let either = b.ins().bor(local, private);
            let never = b.ins().iconst(types::I8, 0);
            (never, either, 0)
        }
        c => {
            return Err(CompileError::Unsupported(format!(
                "OpGenericCastToPtrExplicit to {c:?}"
            )))
        }
    };
    let slow = b.create_block();
    let done = b.create_block();
    b.append_block_param(done, types::I64);
    let decided = b.ins().bor(fast_yes, fast_no);
    let fast = b.ins().select(fast_yes, ptr, null);
    b.ins().brif(decided, done, &[fast.into()], slow, &[]);
    b.seal_block(slow);
    b.switch_to_block(slow);
    let call = b.ins().call(at.space_of, &[ptr]);
    let space = b
        .inst_results(call)
        .first()
        .copied()
        .ok_or_else(|| CompileError::Codegen("ferrite_space_of without result".into()))?;
    let ok = b
        .ins()
        .icmp_imm_s(cranelift_codegen::ir::condcodes::IntCC::Equal, space, want);
    let r = b.ins().select(ok, ptr, null);
    b.ins().jump(done, &[r.into()]);
    b.seal_block(done);
    b.switch_to_block(done);
    Ok(b.block_params(done)[0])
}
