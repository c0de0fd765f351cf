//! `OpExtInst` from the `OpenCL.std` set. Exact operations are inline Cranelift
//! (`sqrt`, `fma`, `floor`, `fabs`, min/max, integer helpers, geometric functions built from
//! them); transcendental ones call the Rust/libm implementations listed in
//! [`crate::builtins`]. `native_*`/`half_*` variants use the full-precision code.

use super::{clif_scalar, elem_of, FnTx, Result, Val};
use crate::builtins;
use crate::spirv::{op_id, op_lit, result_type, Type};
use crate::CompileError;
use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, MemFlagsData, Value};
use rspirv::dr::Instruction;
use rspirv::spirv::OpenclStd100Op as E;

/// Functions implemented by a call into [`crate::builtins`]: OpenCL name (`native_*` and
/// `half_*` included: the full-precision code meets their bounds) → built-in base name.
/// The built-in (`builtins.rs`) an OpenCL.std function that is a call lowers to.
pub(crate) fn transcendental(op: E) -> Option<&'static str> {
    Some(match op {
        E::acos => "acos",
        E::acospi => "acospi",
        E::asin => "asin",
        E::asinpi => "asinpi",
        E::atan => "atan",
        E::atanpi => "atanpi",
        E::atan2 => "atan2",
        E::atan2pi => "atan2pi",
        E::acosh => "acosh",
        E::asinh => "asinh",
        E::atanh => "atanh",
        E::cbrt => "cbrt",
        E::sin | E::native_sin | E::half_sin => "sin",
        E::cos | E::native_cos | E::half_cos => "cos",
        E::tan | E::native_tan | E::half_tan => "tan",
        E::sinh => "sinh",
        E::cosh => "cosh",
        E::tanh => "tanh",
        E::sinpi => "sinpi",
        E::cospi => "cospi",
        E::tanpi => "tanpi",
        E::exp | E::native_exp | E::half_exp => "exp",
        E::exp2 | E::native_exp2 | E::half_exp2 => "exp2",
        E::exp10 | E::native_exp10 | E::half_exp10 => "exp10",
        E::expm1 => "expm1",
        E::log | E::native_log | E::half_log => "log",
        E::log2 | E::native_log2 | E::half_log2 => "log2",
        E::log10 | E::native_log10 | E::half_log10 => "log10",
        E::log1p => "log1p",
        E::pow => "pow",
        E::powr | E::native_powr | E::half_powr => "powr",
        E::pown => "pown",
        E::rootn => "rootn",
        E::hypot => "hypot",
        E::fmod => "fmod",
        E::remainder => "remainder",
        E::nextafter => "nextafter",
        E::erf => "erf",
        E::erfc => "erfc",
        E::tgamma => "tgamma",
        E::lgamma => "lgamma",
        E::logb => "logb",
        E::round => "round",
        E::ldexp => "ldexp",
        E::ilogb => "ilogb",
        _ => return None,
    })
}

impl FnTx<'_, '_, '_> {
    fn fconst(&mut self, t: types::Type, x: f64) -> Value {
        if t == types::F64 {
            self.b.ins().f64const(x)
        } else {
            self.b.ins().f32const(x as f32)
        }
    }

    /// OpenCL `fmin`/`fmax`: a NaN operand yields the other operand.
    pub(super) fn fminmax(&mut self, x: Value, y: Value, max: bool) -> Value {
        fminmax(&mut self.b, x, y, max)
    }

    fn int_minmax(&mut self, x: Value, y: Value, signed: bool, max: bool) -> Value {
        super::int_fns::minmax(&mut self.b, x, y, signed, max)
    }

    pub(super) fn call_math(&mut self, base: &str, args: &[Value]) -> Result<Value> {
        let f64_ = self.value_type(args[0]) == types::F64;
        let bi = builtins::lookup(base, f64_).ok_or_else(|| {
            CompileError::Unsupported(format!("math builtin {base} for this type"))
        })?;
        let mut a = args.to_vec();
        for (i, t) in bi.params.iter().enumerate() {
            if *t == builtins::BTy::I32 {
                if let Some(v) = a.get_mut(i) {
                    let vt = self.b.func.dfg.value_type(*v);
                    if vt.bits() > 32 {
                        *v = self.b.ins().ireduce(types::I32, *v);
                    } else if vt.bits() < 32 {
                        *v = self.b.ins().sextend(types::I32, *v);
                    }
                }
            }
        }
        if a.len() != bi.params.len() {
            return Err(CompileError::Invalid(format!(
                "{base}: wrong argument count"
            )));
        }
        self.call_builtin(&bi, &a)
    }

    pub(super) fn ext_inst(&mut self, inst: &Instruction) -> Result<()> {
        let set = op_id(inst, 0)?;
        let set_name = self
            .p
            .ext_imports
            .get(&set)
            .ok_or(CompileError::InvalidId {
                id: set,
                expected: "extended instruction set",
            })?
            .clone();
        if set_name.starts_with("NonSemantic.") || set_name.contains("DebugInfo") {
            return Ok(());
        }
        if set_name != "OpenCL.std" {
            return Err(CompileError::Unsupported(format!(
                "extended instruction set {set_name}"
            )));
        }
        let num = op_lit(inst, 1)?;
        let op = E::from_u32(num).ok_or_else(|| {
            CompileError::Invalid(format!("unknown OpenCL.std instruction {num}"))
        })?;
        let rt = result_type(inst)?;
        let unsupported = || CompileError::UnsupportedOpcode {
            opcode: format!("ExtInst OpenCL.std {op:?}"),
            function: self.f.name.clone(),
        };
        if let Some(()) = self.ext_memory(op, inst)? {
            return Ok(());
        }
        // vloadn's last operand is a literal (the element count), not an id.
        let args = if op == E::vloadn {
            let mut v = Vec::new();
            for i in 2..4 {
                let id = op_id(inst, i)?;
                v.push(self.val(id)?);
            }
            v
        } else {
            self.operand_vals(inst, 2)?
        };
        let need = |n: usize| -> Result<()> {
            if args.len() < n {
                Err(CompileError::Invalid(format!(
                    "OpenCL.std {op:?}: too few operands"
                )))
            } else {
                Ok(())
            }
        };
        need(1)?;
        let p = self.p;
        let elem = elem_of(p, rt)?;
        let et = if matches!(p.ty(elem)?, Type::Void) {
            types::I8
        } else {
            clif_scalar(p, elem).unwrap_or(types::I8)
        };

        if op == E::nextafter && super::half::is_half(p, rt) {
            need(2)?;
            let v = self.map_n(rt, &args, &mut |s, a| {
                s.call_named("ferrite_nextafter_half", a)
            })?;
            return self.set_result(inst, v);
        }
        if let Some(base) = transcendental(op) {
            let v = self.map_n(rt, &args, &mut |s, a| s.call_math(base, a))?;
            return self.set_result(inst, v);
        }
        if let Some(v) = self.ext_pointer_output(op, inst, rt, &args)? {
            return self.set_result(inst, v);
        }
        if let Some(v) = self.ext_extra(op, rt, &args)? {
            return self.set_result(inst, v);
        }

        // `mix`, `step`, `sign`, … and `abs_diff`, `add_sat`, `mul_hi`, `rotate`, …: written
        // once for the scalar code and the vectoriser (`codegen/float_fns.rs`,
        // `codegen/int_fns.rs`).
        type Shared = fn(&mut cranelift_frontend::FunctionBuilder, E, &[Value]) -> Option<Value>;
        let shared = super::float_fns::arity(op)
            .map(|n| (n, super::float_fns::float_fn as Shared))
            .or_else(|| super::int_fns::arity(op).map(|n| (n, super::int_fns::int_fn as Shared)));
        if let Some((n, f)) = shared {
            need(n)?;
            let v = self.map_n(rt, &args, &mut |s, a| {
                f(&mut s.b, op, a).ok_or_else(|| {
                    CompileError::Invalid(format!("OpenCL.std {op:?}: {} operands", a.len()))
                })
            })?;
            return self.set_result(inst, v);
        }
        let v = match op {
            E::sqrt | E::native_sqrt | E::half_sqrt => {
                self.map_n(rt, &args, &mut |s, a| Ok(s.b.ins().sqrt(a[0])))?
            }
            E::rsqrt | E::native_rsqrt | E::half_rsqrt => self.map_n(rt, &args, &mut |s, a| {
                let t = s.value_type(a[0]);
                let one = s.fconst(t, 1.0);
                let r = s.b.ins().sqrt(a[0]);
                Ok(s.b.ins().fdiv(one, r))
            })?,
            E::native_recip | E::half_recip => self.map_n(rt, &args, &mut |s, a| {
                let t = s.value_type(a[0]);
                let one = s.fconst(t, 1.0);
                Ok(s.b.ins().fdiv(one, a[0]))
            })?,
            E::native_divide | E::half_divide => {
                need(2)?;
                self.map_n(rt, &args, &mut |s, a| Ok(s.b.ins().fdiv(a[0], a[1])))?
            }
            E::fabs => self.map_n(rt, &args, &mut |s, a| Ok(s.b.ins().fabs(a[0])))?,
            E::floor => self.map_n(rt, &args, &mut |s, a| Ok(s.b.ins().floor(a[0])))?,
            E::ceil => self.map_n(rt, &args, &mut |s, a| Ok(s.b.ins().ceil(a[0])))?,
            E::trunc => self.map_n(rt, &args, &mut |s, a| Ok(s.b.ins().trunc(a[0])))?,
            E::rint => self.map_n(rt, &args, &mut |s, a| Ok(s.b.ins().nearest(a[0])))?,
            E::copysign => {
                need(2)?;
                self.map_n(rt, &args, &mut |s, a| Ok(s.b.ins().fcopysign(a[0], a[1])))?
            }
            E::fmin | E::fmax | E::fmin_common | E::fmax_common => {
                need(2)?;
                let max = matches!(op, E::fmax | E::fmax_common);
                self.map_n(rt, &args, &mut |s, a| Ok(s.fminmax(a[0], a[1], max)))?
            }
            E::fclamp => {
                need(3)?;
                self.map_n(rt, &args, &mut |s, a| {
                    let lo = s.fminmax(a[0], a[1], true);
                    Ok(s.fminmax(lo, a[2], false))
                })?
            }
            E::fma if super::half::is_half(p, rt) => {
                need(3)?;
                self.map_n(rt, &args, &mut |s, a| {
                    Ok(super::half::fma(&mut s.b, a[0], a[1], a[2]))
                })?
            }
            E::fma => {
                need(3)?;
                self.map_n(rt, &args, &mut |s, a| Ok(s.b.ins().fma(a[0], a[1], a[2])))?
            }
            // `mad` may be either a correctly rounded fma or a multiply and an add, each
            // rounded: one instruction where the target has FMA (the vector code makes the
            // same choice, `workgroup/vector.rs`).
            E::mad => {
                need(3)?;
                let fused = cranelift_module::Module::isa(&self.env.module).has_native_fma();
                self.map_n(rt, &args, &mut |s, a| {
                    Ok(if fused {
                        s.b.ins().fma(a[0], a[1], a[2])
                    } else {
                        let m = s.b.ins().fmul(a[0], a[1]);
                        s.b.ins().fadd(m, a[2])
                    })
                })?
            }
            E::s_abs => self.map_n(rt, &args, &mut |s, a| Ok(s.b.ins().iabs(a[0])))?,
            E::u_abs => self.map_n(rt, &args, &mut |_, a| Ok(a[0]))?,
            E::s_min | E::s_max | E::u_min | E::u_max => {
                need(2)?;
                let sg = matches!(op, E::s_min | E::s_max);
                let max = matches!(op, E::s_max | E::u_max);
                self.map_n(rt, &args, &mut |s, a| Ok(s.int_minmax(a[0], a[1], sg, max)))?
            }
            E::s_clamp | E::u_clamp => {
                need(3)?;
                let sg = op == E::s_clamp;
                self.map_n(rt, &args, &mut |s, a| {
                    let lo = s.int_minmax(a[0], a[1], sg, true);
                    Ok(s.int_minmax(lo, a[2], sg, false))
                })?
            }
            E::clz => self.map_n(rt, &args, &mut |s, a| Ok(s.b.ins().clz(a[0])))?,
            E::ctz => self.map_n(rt, &args, &mut |s, a| Ok(s.b.ins().ctz(a[0])))?,
            E::popcount => self.map_n(rt, &args, &mut |s, a| Ok(s.b.ins().popcnt(a[0])))?,
            E::s_mul24 | E::u_mul24 => {
                need(2)?;
                self.map_n(rt, &args, &mut |s, a| Ok(s.b.ins().imul(a[0], a[1])))?
            }
            E::s_mad24 | E::u_mad24 => {
                need(3)?;
                self.map_n(rt, &args, &mut |s, a| {
                    let m = s.b.ins().imul(a[0], a[1]);
                    Ok(s.b.ins().iadd(m, a[2]))
                })?
            }
            // On halves, the bits are the half's 16, not the `f32`'s that holds it.
            E::bitselect if super::half::is_half(p, rt) => {
                need(3)?;
                self.map_n(rt, &args, &mut |s, a| {
                    let x = super::half::to_bits(&mut s.b, a[0]);
                    let y = super::half::to_bits(&mut s.b, a[1]);
                    let c = super::half::to_bits(&mut s.b, a[2]);
                    let keep = s.b.ins().band_not(x, c);
                    let take = s.b.ins().band(y, c);
                    let r = s.b.ins().bor(keep, take);
                    Ok(super::half::from_bits(&mut s.b, r))
                })?
            }
            E::bitselect => {
                need(3)?;
                self.map_n(rt, &args, &mut |s, a| {
                    Ok(super::float_fns::bitselect(&mut s.b, a[0], a[1], a[2]))
                })?
            }
            E::select => {
                need(3)?;
                let vector = matches!(p.ty(rt)?, Type::Vector { .. });
                self.map_n(rt, &args, &mut |s, a| {
                    let c = if vector {
                        s.b.ins().icmp_imm_s(IntCC::SignedLessThan, a[2], 0)
                    } else {
                        s.b.ins().icmp_imm_s(IntCC::NotEqual, a[2], 0)
                    };
                    Ok(s.b.ins().select(c, a[1], a[0]))
                })?
            }
            E::cross => {
                need(2)?;
                let (x, y) = (args[0].flat(), args[1].flat());
                if x.len() < 3 || y.len() != x.len() {
                    return Err(CompileError::Invalid("cross: operand sizes".into()));
                }
                let mut out = Vec::new();
                for (i, j) in [(1, 2), (2, 0), (0, 1)] {
                    let l = self.b.ins().fmul(x[i], y[j]);
                    let r = self.b.ins().fmul(x[j], y[i]);
                    out.push(self.b.ins().fsub(l, r));
                }
                if x.len() == 4 {
                    out.push(self.fconst(et, 0.0));
                }
                self.unflatten(rt, out)?
            }
            E::vloadn => {
                need(2)?;
                let Type::Vector { elem, count } = p.ty(rt)?.clone() else {
                    return Err(CompileError::Invalid(
                        "vloadn result is not a vector".into(),
                    ));
                };
                let addr = self.vec_addr(&args[0], &args[1], elem, count)?;
                super::load_typed(&mut self.b, p, rt, addr, 0, MemFlagsData::new())?
            }
            E::vstoren => {
                need(3)?;
                let data_id = op_id(inst, 2)?;
                let dt = self.type_of(data_id)?;
                let Type::Vector { elem, count } = p.ty(dt)?.clone() else {
                    return Err(CompileError::Invalid("vstoren data is not a vector".into()));
                };
                let addr = self.vec_addr(&args[1], &args[2], elem, count)?;
                // Store element by element (vstore3 writes 3 elements, not 4).
                let stride = crate::layout::elem_stride(p, elem)?;
                for (i, v) in args[0].flat().into_iter().enumerate() {
                    let off = (i as u64 * stride) as i32;
                    super::memory::store_scalar(
                        &mut self.b,
                        p,
                        elem,
                        v,
                        addr,
                        off,
                        MemFlagsData::new(),
                    );
                }
                return Ok(());
            }
            _ => return Err(unsupported()),
        };
        self.set_result(inst, v)
    }

    /// `p + offset * n * sizeof(elem)` for `vloadn`/`vstoren`.
    fn vec_addr(&mut self, offset: &Val, ptr: &Val, elem: u32, n: u32) -> Result<Value> {
        let s = crate::layout::elem_stride(self.p, elem)? * u64::from(n);
        let mut o = offset.scalar()?;
        if self.value_type(o).bits() < 64 {
            o = self.b.ins().uextend(types::I64, o);
        }
        let scaled = self.b.ins().imul_imm_s(o, s as i64);
        let base = ptr.scalar()?;
        Ok(self.b.ins().iadd(base, scaled))
    }
}

/// OpenCL `fmin`/`fmax`: a NaN operand yields the other one (scalars and vectors alike;
/// the scalar translator and the vectoriser's `double` lanes both use it).
pub(crate) use super::float_fns::fminmax;
