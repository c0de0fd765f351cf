//! Halves across the lanes: the same representation as the scalar code (a half is an
//! `f32` holding a binary16 value, `codegen/half.rs`), four lanes to an `f32x4`. Memory
//! is accessed as 16-bit lanes, whose bits are widened to halves after a load and
//! narrowed before a store, four lanes at a time; results computed in `f32` are rounded
//! back four lanes at a time.

use super::{refuse, VTx, V};
use crate::builtins::half_lanes;
use crate::codegen::half;
use crate::codegen::Result;
use crate::spirv::{op_id, result_type, Type};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};
use rspirv::dr::Instruction;
use rspirv::spirv::Word;

impl VTx<'_, '_, '_, '_> {
    /// `v` (halves computed in `f32`, any shape) rounded to half.
    pub(super) fn half_round(&mut self, v: V) -> Result<V> {
        Ok(match v {
            V::U(x) => V::U(half::round(self.b, x)),
            V::Comp(c) => V::Comp(
                c.into_iter()
                    .map(|x| self.half_round(x))
                    .collect::<Result<_>>()?,
            ),
            V::Vec(parts) => V::Vec(self.map1(&parts, half::round)),
            v @ V::L(_) => {
                let l = self.lanes(&v)?;
                V::L(l.into_iter().map(|x| half::round(self.b, x)).collect())
            }
            _ => return Err(refuse("a half that is not a number")),
        })
    }

    /// Halves from `v`, their bits as 16-bit lanes (a load's result).
    pub(super) fn half_widen(&mut self, v: V) -> Result<V> {
        Ok(match v {
            V::U(x) => V::U(half::from_bits(self.b, x)),
            V::Comp(c) => V::Comp(
                c.into_iter()
                    .map(|x| self.half_widen(x))
                    .collect::<Result<_>>()?,
            ),
            V::Zext(bits, _) => V::Vec(self.map1(&bits, half::from_bits)),
            v => {
                let l = self.lanes(&v)?;
                let l: Vec<Value> = l
                    .into_iter()
                    .map(|x| self.b.ins().uextend(types::I32, x))
                    .collect();
                let bits = self.pack(types::I32X4, &l);
                V::Vec(self.map1(&bits, half::from_bits))
            }
        })
    }

    /// The bits of the halves `v` as 16-bit lanes (for a store).
    pub(super) fn half_narrow(&mut self, v: &V) -> Result<V> {
        Ok(match v {
            V::U(x) => {
                let h = half::to_bits(self.b, *x);
                V::U(self.b.ins().ireduce(types::I16, h))
            }
            V::Comp(c) => V::Comp(
                c.iter()
                    .map(|x| self.half_narrow(x))
                    .collect::<Result<_>>()?,
            ),
            v => {
                let parts = self.vector(v, types::F32)?;
                let bits = self.map1(&parts, half::to_bits);
                let mut l = Vec::with_capacity(self.w);
                for k in 0..self.w {
                    let x = self.b.ins().extractlane(bits[k / 4], (k % 4) as u8);
                    l.push(self.b.ins().ireduce(types::I16, x));
                }
                V::L(l)
            }
        })
    }

    /// The half bits of `float` lanes `v` rounded by the directed rounding `mode` (a
    /// `vstore_half_r`'s), by the scalar code's call (`ferrite_f64_to_half`) on each lane.
    fn half_directed(&mut self, v: &V, mode: u32) -> Result<V> {
        let bi = crate::builtins::by_name("ferrite_f64_to_half")
            .ok_or_else(|| refuse("the half rounding built-in"))?;
        let fref = self.builtin_fref(&bi)?;
        let m = self.b.ins().iconst(types::I32, i64::from(mode));
        let one = |s: &mut Self, x: Value| {
            let d = s.b.ins().fpromote(types::F64, x);
            let c = s.b.ins().call(fref, &[d, m]);
            let h = s.b.inst_results(c)[0];
            s.b.ins().ireduce(types::I16, h)
        };
        Ok(match v {
            V::U(x) => V::U(one(self, *x)),
            v => {
                let lanes = self.lanes(v)?;
                V::L(lanes.into_iter().map(|x| one(self, x)).collect())
            }
        })
    }

    /// `OpBitcast` between halves and 16-bit integers of as many components (`as_ushort`,
    /// `as_half4`); other shapes stay with the scalar code.
    pub(super) fn half_bit_cast(
        &mut self,
        inst: &Instruction,
        v: V,
        st: Word,
        rt: Word,
    ) -> Result<()> {
        let (se, sn) = self.vector_type(st)?;
        let (re, rn) = self.vector_type(rt)?;
        let short = |ty: Word| matches!(self.p.ty(ty), Ok(Type::Int { width: 16, .. }));
        if sn != rn {
            // Halves into a wider scalar (`as_uint(half2)`) or out of one: the 16-bit
            // lanes packed or split as integers are.
            let plain =
                |ty: Word| matches!(self.p.ty(ty), Ok(Type::Int { .. } | Type::Float { .. }));
            if !(plain(se) && plain(re) && (sn == 1 || rn == 1)) {
                return Err(refuse("bit cast of halves"));
            }
            let bits = |ty: Word| -> Result<u32> {
                Ok(if half::is_half(self.p, ty) {
                    16
                } else {
                    super::scalar_ty(self.p, ty)?.bits()
                })
            };
            if bits(se)? * sn as u32 != bits(re)? * rn as u32 {
                return Err(refuse("bit cast of halves"));
            }
            if half::is_half(self.p, se) {
                let v = self.half_narrow(&v)?;
                let td = super::scalar_ty(self.p, re)?;
                let v = self.bit_cast_resize(v, types::I16, sn, td, rn)?;
                return self.set(inst, td, v);
            }
            let ts = super::scalar_ty(self.p, se)?;
            let v = self.bit_cast_resize(v, ts, sn, types::I16, rn)?;
            let v = self.half_widen(v)?;
            return self.set(inst, types::F32, v);
        }
        if half::is_half(self.p, se) && short(re) {
            let v = self.half_narrow(&v)?;
            self.set(inst, types::I16, v)
        } else if short(se) && half::is_half(self.p, re) {
            let v = self.half_widen(v)?;
            self.set(inst, types::F32, v)
        } else if half::is_half(self.p, se) && half::is_half(self.p, re) {
            self.set(inst, types::F32, v)
        } else {
            Err(refuse("bit cast of halves"))
        }
    }

    /// The halves of consecutive lanes through `pv` (lane k's at `base + 2k`), loaded and
    /// widened a vector at a time (one call to an F16C entry point, `builtins/half_lanes.rs`,
    /// else `uload16x4` and the inline widening four lanes at a time), if every lane runs
    /// and the access is known consecutive; `None` for any other access (the lane-by-lane
    /// path takes it).
    pub(super) fn half_load_consecutive(&mut self, pv: &V) -> Result<Option<V>> {
        if !self.all_lanes() {
            return Ok(None);
        }
        let Some((a, None)) = self.consecutive(pv, 2) else {
            return Ok(None);
        };
        if let Some(e) = half_lanes::lookup(true, self.w as u32) {
            let f = self.vector_entry_ref(&e)?;
            let out = self.line_aligned_slot(4 * self.w as u32);
            self.b.ins().call(f, &[a, out]);
            let flags = crate::codegen::trusted();
            let parts = (0..self.w / 4)
                .map(|j| self.b.ins().load(types::F32X4, flags, out, 16 * j as i32))
                .collect();
            return Ok(Some(V::Vec(parts)));
        }
        let parts = (0..self.w / 4)
            .map(|j| {
                let bits = self.b.ins().uload16x4(MemFlagsData::new(), a, 8 * j as i32);
                half::from_bits(self.b, bits)
            })
            .collect();
        Ok(Some(V::Vec(parts)))
    }

    /// Whether `inst`'s half result `v`, computed in `f32` lanes, may be narrowed unrounded
    /// (see `unrounded`): arithmetic, whose results the processor never makes signalling
    /// NaNs (a conversion of a signalling NaN float is quieted by the rounding, which
    /// F16C's narrowing would not repeat), in `f32x4` parts.
    pub(super) fn arithmetic_f32_lanes(&self, inst: &Instruction, v: &V) -> bool {
        use rspirv::spirv::{Op, OpenclStd100Op as E};
        let arithmetic = match inst.class.opcode {
            Op::FAdd | Op::FSub | Op::FMul | Op::FDiv => true,
            Op::ExtInst => matches!(
                inst.operands.get(1),
                Some(rspirv::dr::Operand::LiteralExtInstInteger(n))
                    if matches!(E::from_u32(*n), Some(E::fma | E::mad))
            ),
            _ => false,
        };
        let f32_parts = match v {
            V::Vec(parts) => parts
                .iter()
                .all(|x| self.b.func.dfg.value_type(*x) == types::F32X4),
            _ => false,
        };
        arithmetic && f32_parts
    }

    /// Store the halves `v` to consecutive lanes through `pv` (narrowed by one call to
    /// an F16C entry point, else inline and eight at a time), on the same conditions as
    /// [`Self::half_load_consecutive`]; `false` if they do not hold (nothing is stored).
    /// `unrounded`: `v` before its rounding to half (`f32` arithmetic), which F16C's
    /// narrowing rounds the same way (to nearest even, overflow to infinity) on its own.
    pub(super) fn half_store_consecutive(
        &mut self,
        pv: &V,
        v: &V,
        unrounded: Option<V>,
    ) -> Result<bool> {
        if !self.all_lanes() || matches!(v, V::Comp(_)) {
            return Ok(false);
        }
        let Some((a, None)) = self.consecutive(pv, 2) else {
            return Ok(false);
        };
        if let Some(e) = half_lanes::lookup(false, self.w as u32) {
            let parts = self.vector(unrounded.as_ref().unwrap_or(v), types::F32)?;
            let f = self.vector_entry_ref(&e)?;
            let src = self.line_aligned_slot(4 * self.w as u32);
            let flags = crate::codegen::trusted();
            for (j, p) in parts.into_iter().enumerate() {
                self.b.ins().store(flags, p, src, 16 * j as i32);
            }
            self.b.ins().call(f, &[src, a]);
            return Ok(true);
        }
        let parts = self.vector(v, types::F32)?;
        let bits = self.map1(&parts, half::to_bits);
        let flags = MemFlagsData::new();
        for (j, pair) in bits.chunks(2).enumerate() {
            // Bits are 0..=0xffff: the unsigned saturating narrowing keeps them.
            let hi = pair.get(1).copied().unwrap_or(pair[0]);
            let packed = self.b.ins().unarrow(pair[0], hi);
            if pair.len() == 2 {
                self.b.ins().store(flags, packed, a, 16 * j as i32);
            } else {
                let wide = self
                    .b
                    .ins()
                    .bitcast(types::I64X2, super::lane_order(), packed);
                let low = self.b.ins().extractlane(wide, 0);
                self.b.ins().store(flags, low, a, 16 * j as i32);
            }
        }
        Ok(true)
    }
}

impl VTx<'_, '_, '_, '_> {
    /// `vload_half[n](i, p)`, `vloada_halfn` and `vstore[a]_half[n](x, i, p)` (the `_r`
    /// forms rounding to nearest even) of `float`/`floatn` lanes, as the scalar code
    /// (`codegen/ext_memory.rs`; `n` halves a step, 4 for the aligned `3`): the
    /// 16 bits at `p + 2i` widened (through `OpLoad`'s half path: consecutive lanes a
    /// vector at a time), or `x` rounded to half and its bits stored as 16-bit lanes (only
    /// active lanes under a mask; the directed roundings of the `_r` forms by the scalar
    /// code's call on each lane). `None` for other functions.
    pub(super) fn half_memory(
        &mut self,
        e: rspirv::spirv::OpenclStd100Op,
        inst: &Instruction,
    ) -> Result<Option<()>> {
        use rspirv::dr::Operand;
        use rspirv::spirv::OpenclStd100Op as E;
        let load = match e {
            E::vload_half | E::vload_halfn | E::vloada_halfn => true,
            E::vstore_half
            | E::vstore_half_r
            | E::vstore_halfn
            | E::vstore_halfn_r
            | E::vstorea_halfn
            | E::vstorea_halfn_r => false,
            _ => return Ok(None),
        };
        if crate::check::mode().any() {
            // The scalar shapes check each access (`codegen/check.rs`).
            return Err(refuse("a half load or store in checked mode"));
        }
        // The directed rounding of a `_r` form, if it is not to nearest even.
        let mut directed = None;
        if matches!(e, E::vstore_half_r | E::vstore_halfn_r | E::vstorea_halfn_r) {
            let mode = match inst.operands.get(5) {
                Some(Operand::FPRoundingMode(m)) => *m as u32,
                // (rspirv reads an extended instruction's literal operands as ids.)
                Some(
                    Operand::IdRef(m)
                    | Operand::LiteralExtInstInteger(m)
                    | Operand::LiteralBit32(m),
                ) => *m,
                _ => return Err(refuse("vstore_half_r's rounding mode")),
            };
            if mode != crate::builtins::convert::RTE as u32 {
                directed = Some(mode);
            }
        }
        let (off, ptr) = if load {
            (op_id(inst, 2)?, op_id(inst, 3)?)
        } else {
            (op_id(inst, 3)?, op_id(inst, 4)?)
        };
        // The float type of the loaded or stored value: `float` or `floatn`.
        let data_ty = if load {
            result_type(inst)?
        } else {
            self.type_of_id(op_id(inst, 2)?)?
        };
        let (elem, n) = match self.p.ty(data_ty)? {
            Type::Vector { elem, count } => (*elem, *count as usize),
            _ => (data_ty, 1),
        };
        if self.p.ty(elem)? != &(Type::Float { width: 32 }) {
            return Err(refuse(format!("{e:?} of a type other than float")));
        }
        // `vloada_half3`/`vstorea_half3` step by four halves, as the scalar code.
        let aligned = matches!(e, E::vloada_halfn | E::vstorea_halfn | E::vstorea_halfn_r);
        let step = if aligned && n == 3 { 8 } else { 2 * n as u64 };
        let base = self.val(ptr)?;
        let pv = self.index(&base, off, step)?;
        self.refuse_unchecked_race(ptr)?;
        if load {
            let v = match (n, self.half_load_consecutive(&pv)?) {
                (1, Some(v)) => v,
                _ => {
                    let bits = self.load_through(pv, n, types::I16)?;
                    self.half_widen(bits)?
                }
            };
            self.set(inst, types::F32, v)?;
        } else {
            // The scalar code's rounding and bits (`half::round`, `half::to_bits`), not
            // F16C's narrowing: that keeps a signalling NaN signalling, where the
            // rounding's addition quiets it.
            let x = match self.val(op_id(inst, 2)?)? {
                V::Comp(c) if c.len() == n => c,
                v if n == 1 => vec![v],
                _ => return Err(refuse(format!("{e:?} data"))),
            };
            let mut bits = Vec::with_capacity(n);
            for c in x {
                bits.push(match directed {
                    None => {
                        let rounded = self.half_round(c)?;
                        self.half_narrow(&rounded)?
                    }
                    Some(mode) => self.half_directed(&c, mode)?,
                });
            }
            self.store_through(&pv, &bits, types::I16)?;
        }
        Ok(Some(()))
    }
}
