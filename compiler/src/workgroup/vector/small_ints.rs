//! 8- and 16-bit integers (`char`, `uchar`, `short`, `ushort`) across the lanes as whole
//! vectors where a kernel moves them in bulk: a consecutive load, the conversions to and
//! from `int` and `float`, truncations from `int`, and a consecutive store keep them in
//! `i32x4` parts, zero-extended ([`V::Zext`]). Every other use takes their lanes one by
//! one, as it did before: [`VTx::lane`] extracts and narrows a lane.
//!
//! An image kernel on `uchar` pixels (`convert_uchar_sat(x[i] * 1.5f + y[i])`) was 32
//! scalar loads, 32 scalar conversions, 16 saturating conversions (a branchy sequence each)
//! and 16 scalar stores per 16 lanes; it is now two 8-byte loads widened twice, four
//! vector conversions each way, and one 16-byte store.

use super::{VTx, V};
use crate::codegen::Result;
use crate::ir::Effects;
use cranelift_codegen::ir::{
    self, condcodes::FloatCC, condcodes::IntCC, types, InstBuilder, MemFlagsData, Value,
};
use cranelift_frontend::FunctionBuilder;
use rspirv::spirv::Op;

/// Whether `t` is an integer type this module keeps in `i32x4` parts.
pub(super) fn small(t: ir::Type) -> bool {
    matches!(t, types::I8 | types::I16)
}

/// Whether `n` components of `t` fill one 32-bit word (`uchar4`, `char4`, `ushort2`,
/// `short2`).
fn fills_word(t: ir::Type, n: usize) -> bool {
    small(t) && n >= 2 && n * t.bytes() as usize == 4
}

/// The mask of `t`'s bits in an `i32` lane.
fn mask(t: ir::Type) -> i64 {
    (1i64 << t.bits()) - 1
}

impl VTx<'_, '_, '_, '_> {
    /// The `w` lanes of `t` (`i8`/`i16`) at `a`, `a + size`, …, zero-extended into
    /// `i32x4` parts (reads exactly `w × size` bytes).
    pub(super) fn zext_load(&mut self, a: Value, t: ir::Type) -> Vec<Value> {
        let flags = MemFlagsData::new();
        if t == types::I16 {
            return (0..self.w / 4)
                .map(|j| self.b.ins().uload16x4(flags, a, 8 * j as i32))
                .collect();
        }
        if self.w == 4 {
            // Four bytes: one 32-bit load into a vector, widened twice.
            let x = self.b.ins().load(types::I32, flags, a, 0);
            let x = self.b.ins().scalar_to_vector(types::I32X4, x);
            let x = self.b.ins().bitcast(types::I8X16, super::lane_order(), x);
            let x = self.b.ins().uwiden_low(x);
            return vec![self.b.ins().uwiden_low(x)];
        }
        let mut parts = Vec::with_capacity(self.w / 4);
        for j in 0..self.w / 8 {
            let x = self.b.ins().uload8x8(flags, a, 8 * j as i32);
            parts.push(self.b.ins().uwiden_low(x));
            parts.push(self.b.ins().uwiden_high(x));
        }
        parts
    }

    /// Store the zero-extended lanes `parts` of `t` (`i8`/`i16`) to `a`, `a + size`, …
    /// (writes exactly `w × size` bytes). The values fit `t`, so the saturating
    /// narrowings are exact.
    pub(super) fn zext_store(&mut self, parts: &[Value], a: Value, t: ir::Type) {
        let flags = MemFlagsData::new();
        // `i32x4` pairs narrowed to `i16x8`s (a lone part with itself).
        let halves: Vec<Value> = parts
            .chunks(2)
            .map(|p| {
                let hi = p.get(1).copied().unwrap_or(p[0]);
                self.b.ins().unarrow(p[0], hi)
            })
            .collect();
        let (vectors, bytes) = if t == types::I16 {
            (halves, 2 * self.w)
        } else {
            let bytes: Vec<Value> = halves
                .chunks(2)
                .map(|p| {
                    let hi = p.get(1).copied().unwrap_or(p[0]);
                    self.b.ins().unarrow(p[0], hi)
                })
                .collect();
            (bytes, self.w)
        };
        if bytes >= 16 {
            for (j, v) in vectors.iter().enumerate() {
                self.b.ins().store(flags, *v, a, 16 * j as i32);
            }
            return;
        }
        // 4 or 8 bytes: the low lanes of the one vector.
        let (wide, lane_t) = if bytes == 8 {
            (types::I64X2, types::I64)
        } else {
            (types::I32X4, types::I32)
        };
        let v = self.b.ins().bitcast(wide, super::lane_order(), vectors[0]);
        let low = self.b.ins().extractlane(v, 0);
        debug_assert_eq!(self.b.func.dfg.value_type(low), lane_t);
        self.b.ins().store(flags, low, a, 0);
    }

    /// `i32x4` parts whose low `t` bits are the value: zero-extended.
    pub(super) fn zext_of(&mut self, parts: &[Value], t: ir::Type) -> V {
        let m = self.b.ins().iconst(types::I32, mask(t));
        let m = self.b.ins().splat(types::I32X4, m);
        let parts = parts.iter().map(|p| self.b.ins().band(*p, m)).collect();
        V::Zext(parts, t)
    }

    /// The lanes of `parts` (zero-extended `t`) as `i32x4`: as they are, or sign-extended
    /// (`signed`).
    pub(super) fn zext_as_i32(&mut self, parts: &[Value], t: ir::Type, signed: bool) -> Vec<Value> {
        if !signed {
            return parts.to_vec();
        }
        let shift = 32 - i64::from(t.bits());
        parts
            .iter()
            .map(|p| {
                let x = self.b.ins().ishl_imm_u(*p, shift);
                self.b.ins().sshr_imm_u(x, shift)
            })
            .collect()
    }

    /// `v` (lanes of `t`, any shape) as `i32x4` parts holding their values: zero- or
    /// sign-extended (`signed`).
    pub(super) fn zext_extended(&mut self, v: &V, t: ir::Type, signed: bool) -> Result<Vec<Value>> {
        let p = self.zext_parts(v, t)?;
        Ok(self.zext_as_i32(&p, t, signed))
    }

    /// `OpConvertFToS`/`OpConvertFToU` of `f32` lanes `x` to `t` (`i8`/`i16`), as the
    /// scalar code (`codegen/convert.rs` `float_to_int`): the rounding mode, a saturating
    /// conversion to 32 bits, then the destination's range if `SaturatedConversion`,
    /// else its low bits. `None` for uniform lanes (the scalar path is one conversion).
    pub(super) fn float_to_small(
        &mut self,
        x: &V,
        t: ir::Type,
        signed: bool,
        effects: Effects,
    ) -> Result<Option<V>> {
        if matches!(x, V::U(_)) {
            return Ok(None);
        }
        let parts = self.vector(x, types::F32)?;
        let bits = t.bits();
        let mut out = Vec::with_capacity(parts.len());
        for f in parts {
            let f = crate::codegen::convert::round_integral(self.b, f, effects.rounding);
            if !signed && effects.saturated && cfg!(target_arch = "x86_64") {
                // `uchar`/`ushort` saturation in four instructions instead of fifteen
                // (x64's unsigned conversion handles 2^31 and beyond): lanes above the
                // maximum take it (a NaN does not), then `cvttps2dq`, whose result for a
                // NaN, a negative or a huge negative lane is negative, and the maximum
                // with 0. Every lane as the scalar code: NaN and negatives 0, too large
                // the maximum, else truncated.
                let hi = self.b.ins().f32const(mask(t) as f32);
                let hi = self.b.ins().splat(types::F32X4, hi);
                let over = self.b.ins().fcmp(FloatCC::GreaterThan, f, hi);
                let c = self.bitselect(over, hi, f);
                let r = self.b.ins().x86_cvtt2dq(types::I32X4, c);
                let zero = self.b.ins().iconst(types::I32, 0);
                let zero = self.b.ins().splat(types::I32X4, zero);
                out.push(self.b.ins().smax(r, zero));
                continue;
            }
            let mut r = if signed {
                self.b.ins().fcvt_to_sint_sat(types::I32X4, f)
            } else {
                self.b.ins().fcvt_to_uint_sat(types::I32X4, f)
            };
            if effects.saturated {
                r = if signed {
                    let lo = self.b.ins().iconst(types::I32, -(1i64 << (bits - 1)));
                    let lo = self.b.ins().splat(types::I32X4, lo);
                    let hi = self.b.ins().iconst(types::I32, (1i64 << (bits - 1)) - 1);
                    let hi = self.b.ins().splat(types::I32X4, hi);
                    let r = self.b.ins().smax(r, lo);
                    self.b.ins().smin(r, hi)
                } else {
                    let hi = self.b.ins().iconst(types::I32, mask(t));
                    let hi = self.b.ins().splat(types::I32X4, hi);
                    self.b.ins().umin(r, hi)
                };
            }
            out.push(r);
        }
        Ok(Some(self.zext_of(&out, t)))
    }

    /// `f` of `a` and `b` (`t` lanes, one of them [`V::Zext`], the other too or uniform)
    /// on their `i32x4` parts, for an operation whose low bits depend only on the
    /// operands' low bits; `None` for other operands.
    pub(super) fn zext_binary(
        &mut self,
        a: &V,
        b: &V,
        t: ir::Type,
        f: &impl Fn(&mut FunctionBuilder, Value, Value) -> Value,
    ) -> Option<V> {
        if !Self::zext_pair(a, b, t) {
            return None;
        }
        // Zero-extended or uniform lanes: `zext_parts` takes them without failing.
        let x = self.zext_parts(a, t).ok()?;
        let y = self.zext_parts(b, t).ok()?;
        let r: Vec<Value> = x.iter().zip(&y).map(|(x, y)| f(self.b, *x, *y)).collect();
        Some(self.zext_of(&r, t))
    }

    /// A shift of `t` lanes `parts` ([`V::Zext`]) by the uniform amount `y`, taken modulo
    /// `t`'s width as the scalar shifts do: on the `i32x4` parts, an arithmetic right
    /// shift on their sign extensions.
    pub(super) fn zext_shift(&mut self, parts: &[Value], t: ir::Type, y: Value, op: Op) -> V {
        let y = self.b.ins().band_imm_s(y, i64::from(t.bits() - 1));
        let y = match self.b.func.dfg.value_type(y).bits() {
            0..32 => self.b.ins().uextend(types::I32, y),
            32 => y,
            _ => self.b.ins().ireduce(types::I32, y),
        };
        let x = self.zext_as_i32(parts, t, op == Op::ShiftRightArithmetic);
        let r: Vec<Value> = x
            .iter()
            .map(|x| match op {
                Op::ShiftLeftLogical => self.b.ins().ishl(*x, y),
                Op::ShiftRightLogical => self.b.ins().ushr(*x, y),
                _ => self.b.ins().sshr(*x, y),
            })
            .collect();
        self.zext_of(&r, t)
    }

    /// `v` (lanes of `t`, any shape) as zero-extended `i32x4` parts.
    pub(super) fn zext_parts(&mut self, v: &V, t: ir::Type) -> Result<Vec<Value>> {
        Ok(match v {
            V::Zext(p, _) => p.clone(),
            V::U(x) => {
                let x = self.b.ins().uextend(types::I32, *x);
                vec![self.b.ins().splat(types::I32X4, x); self.w / 4]
            }
            v => {
                let l = self.lanes(v)?;
                let l: Vec<Value> = l
                    .into_iter()
                    .map(|x| {
                        let x = if self.b.func.dfg.value_type(x) == t {
                            x
                        } else {
                            self.b.ins().ireduce(t, x)
                        };
                        self.b.ins().uextend(types::I32, x)
                    })
                    .collect();
                self.pack(types::I32X4, &l)
            }
        })
    }

    /// `n` components of `t` per lane that fill one 32-bit word (`uchar4`, `char4`,
    /// `ushort2`, `short2`): the word of every lane through `pv`, consecutive, loaded as
    /// `i32x4` parts and each component shifted out of it; `None` for other accesses.
    pub(super) fn packed_small_load(&mut self, pv: &V, n: usize, t: ir::Type) -> Option<V> {
        if !fills_word(t, n) || !self.all_lanes() {
            return None;
        }
        let (a, None) = self.consecutive(pv, 4)? else {
            return None;
        };
        let words = self.load_parts(types::I32X4, a);
        let comps = self.words_to_comps(&words, n, t);
        Some(V::Comp(comps))
    }

    /// Store `comps` (components of `t` filling one 32-bit word per lane, as
    /// [`Self::packed_small_load`]) to consecutive words through `pv`: each lane's word
    /// put together from its components; `false` for other accesses (nothing stored).
    pub(super) fn packed_small_store(&mut self, pv: &V, comps: &[V], t: ir::Type) -> Result<bool> {
        let n = comps.len();
        if !fills_word(t, n) || !self.all_lanes() {
            return Ok(false);
        }
        let Some((a, None)) = self.consecutive(pv, 4) else {
            return Ok(false);
        };
        let words = self.comps_to_words(comps, t)?;
        self.store_parts(&words, a);
        Ok(true)
    }

    /// The `n` components of `t` packed in each lane's 32-bit word (`words`, `i32x4`
    /// parts), little-endian: component `c` is bits `c × width ..` of the word.
    fn words_to_comps(&mut self, words: &[Value], n: usize, t: ir::Type) -> Vec<V> {
        (0..n)
            .map(|c| {
                let shift = i64::from(t.bits()) * c as i64;
                let parts: Vec<Value> = words
                    .iter()
                    .map(|w| self.b.ins().ushr_imm_u(*w, shift))
                    .collect();
                self.zext_of(&parts, t)
            })
            .collect()
    }

    /// Each lane's 32-bit word (`i32x4` parts) put together from components `comps` of
    /// `t`, as [`Self::words_to_comps`] takes them apart.
    fn comps_to_words(&mut self, comps: &[V], t: ir::Type) -> Result<Vec<Value>> {
        let mut words: Vec<Value> = Vec::new();
        for (c, v) in comps.iter().enumerate() {
            let parts = self.zext_parts(v, t)?;
            let shift = i64::from(t.bits()) * c as i64;
            let parts: Vec<Value> = parts
                .into_iter()
                .map(|p| self.b.ins().ishl_imm_u(p, shift))
                .collect();
            words = if words.is_empty() {
                parts
            } else {
                words
                    .iter()
                    .zip(&parts)
                    .map(|(w, p)| self.b.ins().bor(*w, *p))
                    .collect()
            };
        }
        Ok(words)
    }

    /// A bit cast between a 32-bit integer and the `n` components of `t` that fill it
    /// (`as_uint(uchar4)`, `as_short2(int)`), on whole words; `None` for other casts or
    /// a uniform value (the lane code takes those).
    pub(super) fn word_bit_cast(
        &mut self,
        v: &V,
        ts: ir::Type,
        sn: usize,
        td: ir::Type,
        rn: usize,
    ) -> Result<Option<V>> {
        if ts == types::I32 && sn == 1 && fills_word(td, rn) && !matches!(v, V::U(_)) {
            let words = self.vector(v, types::I32)?;
            return Ok(Some(V::Comp(self.words_to_comps(&words, rn, td))));
        }
        if td == types::I32 && rn == 1 && fills_word(ts, sn) {
            if let V::Comp(c) = v {
                if c.len() == sn && !c.iter().all(|x| matches!(x, V::U(_))) {
                    return Ok(Some(V::Vec(self.comps_to_words(c, ts)?)));
                }
            }
        }
        Ok(None)
    }

    /// Whether `a` and `b` are `t` lanes ([`small`]) this module can take whole: one of
    /// them [`V::Zext`], the other too or uniform.
    pub(super) fn zext_pair(a: &V, b: &V, t: ir::Type) -> bool {
        let whole = |v: &V| matches!(v, V::Zext(..) | V::U(_));
        small(t) && (matches!(a, V::Zext(..)) || matches!(b, V::Zext(..))) && whole(a) && whole(b)
    }

    /// An integer comparison `cc` of `t` lanes `a` and `b` ([`Self::zext_pair`]) on their
    /// `i32x4` parts, sign-extended first for a signed condition: a lane mask.
    pub(super) fn zext_compare(&mut self, a: &V, b: &V, t: ir::Type, cc: IntCC) -> Result<V> {
        use IntCC::*;
        let signed = matches!(
            cc,
            SignedGreaterThan | SignedGreaterThanOrEqual | SignedLessThan | SignedLessThanOrEqual
        );
        let x = self.zext_extended(a, t, signed)?;
        let y = self.zext_extended(b, t, signed)?;
        let parts: Vec<Value> = x
            .iter()
            .zip(&y)
            .map(|(x, y)| self.b.ins().icmp(cc, *x, *y))
            .collect();
        Ok(V::Mask(self.narrow_mask(&parts)))
    }

    /// The integer built-ins of image kernels on `char`/`short` lanes ([`V::Zext`], with
    /// uniform operands): `add_sat`, `sub_sat`, `abs`, `abs_diff`, `hadd`, `rhadd`,
    /// computed exactly on the operands' 32-bit extensions and clamped (or, where the
    /// result always fits, just narrowed) to `t`; `None` for any other.
    pub(super) fn zext_ext_inst(
        &mut self,
        e: rspirv::spirv::OpenclStd100Op,
        args: &[V],
        t: ir::Type,
    ) -> Result<Option<V>> {
        use rspirv::spirv::OpenclStd100Op as E;
        let whole = args.iter().all(|a| matches!(a, V::Zext(..) | V::U(_)));
        if !small(t) || !whole || !args.iter().any(|a| matches!(a, V::Zext(..))) {
            return Ok(None);
        }
        let signed = matches!(
            e,
            E::s_add_sat | E::s_sub_sat | E::s_abs | E::s_abs_diff | E::s_hadd | E::s_rhadd
        );
        let binary = matches!(
            e,
            E::s_add_sat
                | E::u_add_sat
                | E::s_sub_sat
                | E::u_sub_sat
                | E::s_abs_diff
                | E::u_abs_diff
                | E::s_hadd
                | E::u_hadd
                | E::s_rhadd
                | E::u_rhadd
        );
        let unary = matches!(e, E::s_abs | E::u_abs);
        if !(binary && args.len() == 2 || unary && args.len() == 1) {
            return Ok(None);
        }
        let mut ext = Vec::with_capacity(2);
        for a in args {
            ext.push(self.zext_extended(a, t, signed)?);
        }
        let bits = t.bits();
        let (lo, hi) = if signed {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, mask(t))
        };
        let splat = |s: &mut Self, c: i64| {
            let c = s.b.ins().iconst(types::I32, c);
            s.b.ins().splat(types::I32X4, c)
        };
        let (lo, hi, one) = (splat(self, lo), splat(self, hi), splat(self, 1));
        let mut out = Vec::with_capacity(ext[0].len());
        let second = ext.get(1).cloned().unwrap_or_default();
        for (j, &x) in ext[0].iter().enumerate() {
            let b = &mut *self.b;
            let r = match e {
                E::u_abs => x,
                E::s_abs => b.ins().iabs(x),
                _ => {
                    let y = second[j];
                    match e {
                        E::s_add_sat | E::u_add_sat => {
                            let r = b.ins().iadd(x, y);
                            let r = b.ins().smax(r, lo);
                            b.ins().smin(r, hi)
                        }
                        E::s_sub_sat | E::u_sub_sat => {
                            let r = b.ins().isub(x, y);
                            let r = b.ins().smax(r, lo);
                            b.ins().smin(r, hi)
                        }
                        E::s_abs_diff | E::u_abs_diff => {
                            let r = b.ins().isub(x, y);
                            b.ins().iabs(r)
                        }
                        E::s_hadd | E::u_hadd => {
                            let r = b.ins().iadd(x, y);
                            b.ins().sshr_imm_u(r, 1)
                        }
                        _ => {
                            let r = b.ins().iadd(x, y);
                            let r = b.ins().iadd(r, one);
                            b.ins().sshr_imm_u(r, 1)
                        }
                    }
                }
            };
            out.push(r);
        }
        Ok(Some(self.zext_of(&out, t)))
    }
}
