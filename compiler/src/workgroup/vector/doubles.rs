//! `double` lanes as `f64x2` vectors where a kernel computes with them ([`V::F64`]): a
//! consecutive load and store, `+ - * /` and negation, comparisons and selects, `fabs`,
//! `sqrt`, `rsqrt`, `floor`/`ceil`/`trunc`/`rint`, `fmin`/`fmax`/`clamp`, `fma`/`mad`,
//! conversions from `float` and `int` and to `float`, and loop variables. Each is the
//! scalar code's operation on two lanes at once, so every lane gets the scalar
//! reference's bits. Every other use takes the lanes one by one, as before
//! ([`VTx::lane`] extracts a lane).
//!
//! Doubles were one scalar per lane: a `double` saxpy was 32 scalar loads, 16 `fma`s and
//! 16 stores per 16 lanes; it is now 16 loads, 8 `fma`s and 8 stores of two lanes each.
//! Only operations whose x64 lowering needs no more than SSE4.1 and FMA (what the
//! vectoriser already asks for) are used here: a conversion from 64-bit integers, which
//! needs AVX-512, stays lane by lane.

use super::{varying_factor_first, VTx, V};
use crate::codegen::Result;
use cranelift_codegen::ir::{self, condcodes::FloatCC, types, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;
use rspirv::spirv::OpenclStd100Op as E;

/// Whether a `double` operation on `args` works on `f64x2` parts: one of them is kept
/// there already (a loaded or computed vector), so packing the others pays.
pub(super) fn any_f64(t: ir::Type, args: &[&V]) -> bool {
    t == types::F64 && args.iter().any(|a| matches!(a, V::F64(_)))
}

impl VTx<'_, '_, '_, '_> {
    /// `v` (a `double`) as `f64x2` parts, lanes `2j`, `2j + 1` in the `j`-th.
    pub(super) fn f64_parts(&mut self, v: &V) -> Result<Vec<Value>> {
        Ok(match v {
            V::F64(x) => x.clone(),
            V::U(x) => vec![self.b.ins().splat(types::F64X2, *x); self.w / 2],
            v => {
                let l = self.lanes(v)?;
                l.chunks(2)
                    .map(|c| {
                        let x = self.b.ins().splat(types::F64X2, c[0]);
                        self.b.ins().insertlane(x, c[1], 1)
                    })
                    .collect()
            }
        })
    }

    /// The `w` doubles at `a`, `a + 8`, … as `f64x2` parts.
    pub(super) fn f64_load_at(&mut self, a: Value) -> Vec<Value> {
        (0..self.w / 2)
            .map(|j| {
                self.b
                    .ins()
                    .load(types::F64X2, MemFlagsData::new(), a, 16 * j as i32)
            })
            .collect()
    }

    /// `f` on the `f64x2` parts of `a` and `b`.
    pub(super) fn f64_binary(
        &mut self,
        a: &V,
        b: &V,
        f: impl Fn(&mut FunctionBuilder, Value, Value) -> Value,
    ) -> Result<V> {
        let x = self.f64_parts(a)?;
        let y = self.f64_parts(b)?;
        Ok(V::F64(self.map2(&x, &y, f)))
    }

    /// `f` on the `f64x2` parts of `a`.
    pub(super) fn f64_unary(
        &mut self,
        a: &V,
        f: impl Fn(&mut FunctionBuilder, Value) -> Value,
    ) -> Result<V> {
        let x = self.f64_parts(a)?;
        Ok(V::F64(self.map1(&x, f)))
    }

    /// A comparison of doubles on `f64x2` parts, as a lane mask.
    pub(super) fn f64_compare(&mut self, a: &V, b: &V, cc: FloatCC) -> Result<V> {
        let x = self.f64_parts(a)?;
        let y = self.f64_parts(b)?;
        let wide: Vec<Value> = self.map2(&x, &y, |b, x, y| b.ins().fcmp(cc, x, y));
        // Two `i64x2` masks (lanes 4j .. 4j + 4) to one `i32x4`: the low half of each
        // lane, all ones or zeros like the whole.
        let parts: Vec<Value> = wide
            .chunks(2)
            .map(|p| self.shuffle32(p[0], p[1], [0, 2, 4, 6]))
            .collect();
        Ok(V::Mask(self.narrow_mask(&parts)))
    }

    /// Lanes of `x` where mask `m` is set, else of `y` (`f64x2` parts).
    pub(super) fn f64_select(&mut self, m: Value, x: &[Value], y: &[Value]) -> Vec<Value> {
        let mut out = Vec::with_capacity(x.len());
        for j in 0..x.len() / 2 {
            let mj = self.part_mask(m, j);
            let lo = self.b.ins().swiden_low(mj);
            let hi = self.b.ins().swiden_high(mj);
            out.push(self.bitselect(lo, x[2 * j], y[2 * j]));
            out.push(self.bitselect(hi, x[2 * j + 1], y[2 * j + 1]));
        }
        out
    }

    /// `float` lanes (`f32x4` parts) widened to doubles, exactly.
    pub(super) fn f32_to_f64(&mut self, v: &V) -> Result<V> {
        let x = self.vector(v, types::F32)?;
        let mut out = Vec::with_capacity(self.w / 2);
        for p in x {
            out.push(self.b.ins().fvpromote_low(p));
            let high = self.shuffle32(p, p, [2, 3, 2, 3]);
            out.push(self.b.ins().fvpromote_low(high));
        }
        Ok(V::F64(out))
    }

    /// Double lanes (`f64x2` parts) rounded to `float` (to nearest, as the scalar
    /// `fdemote`), as `f32x4` parts.
    pub(super) fn f64_to_f32(&mut self, parts: &[Value]) -> V {
        let mut out = Vec::with_capacity(parts.len() / 2);
        for p in parts.chunks(2) {
            let lo = self.b.ins().fvdemote(p[0]);
            let hi = self.b.ins().fvdemote(p[1]);
            out.push(self.shuffle32(lo, hi, [0, 1, 4, 5]));
        }
        V::Vec(out)
    }

    /// `int` lanes (`i32x4` parts, or affine) converted to doubles, exactly.
    pub(super) fn i32_to_f64(&mut self, v: &V) -> Result<V> {
        let x = self.vector(v, types::I32)?;
        let mut out = Vec::with_capacity(self.w / 2);
        for p in x {
            let high = self.shuffle32(p, p, [2, 3, 2, 3]);
            for half in [p, high] {
                // The pair x64 lowers to one `cvtdq2pd`.
                let wide = self.b.ins().swiden_low(half);
                out.push(self.b.ins().fcvt_from_sint(types::F64X2, wide));
            }
        }
        Ok(V::F64(out))
    }

    /// The OpenCL.std functions of doubles kept in `f64x2` parts (one of `args` is):
    /// the scalar code's instructions (`codegen/extinst.rs`) on two lanes at once;
    /// `None` for the others.
    pub(super) fn f64_ext_inst(&mut self, e: E, args: &[V], t: ir::Type) -> Result<Option<V>> {
        let refs: Vec<&V> = args.iter().collect();
        if !any_f64(t, &refs) {
            return Ok(None);
        }
        let one = |n: usize| args.len() == n;
        // Rounding to an integer is an SSE4.1 instruction, which a target with FMA has.
        let sse41 = self.fma;
        Ok(Some(match e {
            E::fabs if one(1) => self.f64_unary(&args[0], |b, x| b.ins().fabs(x))?,
            E::sqrt | E::native_sqrt | E::half_sqrt if one(1) => {
                self.f64_unary(&args[0], |b, x| b.ins().sqrt(x))?
            }
            E::rsqrt | E::native_rsqrt | E::half_rsqrt if one(1) => {
                let c = self.b.ins().f64const(1.0);
                let ones = self.b.ins().splat(types::F64X2, c);
                self.f64_unary(&args[0], |b, x| {
                    let r = b.ins().sqrt(x);
                    b.ins().fdiv(ones, r)
                })?
            }
            E::floor | E::ceil | E::trunc | E::rint if one(1) && sse41 => {
                self.f64_unary(&args[0], move |b, x| match e {
                    E::floor => b.ins().floor(x),
                    E::ceil => b.ins().ceil(x),
                    E::trunc => b.ins().trunc(x),
                    _ => b.ins().nearest(x),
                })?
            }
            E::fmin | E::fmax | E::fmin_common | E::fmax_common if one(2) => {
                let max = matches!(e, E::fmax | E::fmax_common);
                let x = self.f64_parts(&args[0])?;
                let y = self.f64_parts(&args[1])?;
                V::F64(self.fminmax_parts(&x, &y, max))
            }
            E::fclamp if one(3) => {
                // fmin(fmax(x, lo), hi), as the scalar code.
                let x = self.f64_parts(&args[0])?;
                let lo = self.f64_parts(&args[1])?;
                let hi = self.f64_parts(&args[2])?;
                let m = self.fminmax_parts(&x, &lo, true);
                V::F64(self.fminmax_parts(&m, &hi, false))
            }
            E::mad | E::fma if one(3) => {
                let uniform = |v: &V| matches!(v, V::U(_));
                let (a, b) = (&args[0], &args[1]);
                let (a, b) = varying_factor_first(a, b, uniform(a), uniform(b));
                let x = self.f64_parts(a)?;
                let y = self.f64_parts(b)?;
                let z = self.f64_parts(&args[2])?;
                let split = e == E::mad && !self.fma;
                if !split && !self.fma {
                    // No vector fma on this target: the scalar code's per lane.
                    return Ok(None);
                }
                let r = (0..x.len())
                    .map(|j| {
                        if split {
                            let m = self.b.ins().fmul(x[j], y[j]);
                            self.b.ins().fadd(m, z[j])
                        } else {
                            self.b.ins().fma(x[j], y[j], z[j])
                        }
                    })
                    .collect();
                V::F64(r)
            }
            _ => return Ok(None),
        }))
    }
}
