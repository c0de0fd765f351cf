//! The `OpenCL.std` functions of whole OpenCL vectors (`floatn`, `intn`, … one value per
//! component, [`V::Comp`]) that are not component-wise: `select` (a component's condition
//! is its top bit, not `!= 0` as for scalars), `shuffle`/`shuffle2` (by a constant mask a
//! permutation of the components, nothing computed; by a run-time one a select per source
//! component), and `cross`. Each is the scalar
//! code's definition (`codegen/extinst.rs`, `codegen/ext_extra.rs`) on every lane.

use super::{refuse, scalar_ty, vec_of, VTx, V};
use crate::codegen::Result;
use crate::spirv::{op_id, result_type, Type};
use cranelift_codegen::ir::{self, condcodes::IntCC, types, InstBuilder};
use rspirv::dr::Instruction;
use rspirv::spirv::OpenclStd100Op as E;

impl VTx<'_, '_, '_, '_> {
    /// `select`, `shuffle`, `shuffle2` or `cross` of OpenCL vectors; `None` for other
    /// functions, scalar results and `half` components.
    pub(super) fn vector_function(&mut self, e: E, inst: &Instruction) -> Result<Option<()>> {
        if !matches!(e, E::select | E::shuffle | E::shuffle2 | E::cross) {
            return Ok(None);
        }
        let rt = result_type(inst)?;
        let Type::Vector { elem, count } = self.p.ty(rt)?.clone() else {
            return Ok(None);
        };
        if crate::codegen::half::is_half(self.p, elem) {
            return Ok(None);
        }
        let t = scalar_ty(self.p, elem)?;
        let mut args = Vec::new();
        for k in 2..inst.operands.len() {
            args.push(self.comps(op_id(inst, k)?)?);
        }
        let out = match e {
            E::select if args.len() == 3 => {
                let cond = self.type_of_id(op_id(inst, 4)?)?;
                let (ce, _) = self.vector_type(cond)?;
                let ct = scalar_ty(self.p, ce)?;
                self.select_top_bit(&args, t, ct)?
            }
            E::shuffle | E::shuffle2 if args.len() >= 2 && args.len() <= 3 => {
                let k = args.len() - 1;
                let mask = self.type_of_id(op_id(inst, 2 + k)?)?;
                let (me, _) = self.vector_type(mask)?;
                let mt = scalar_ty(self.p, me)?;
                self.shuffle(&args[..k], &args[k], t, mt)?
            }
            E::cross if args.len() == 2 && args[0].len() >= 3 && args[1].len() == args[0].len() => {
                let (x, y) = (&args[0], &args[1]);
                let mut out = Vec::with_capacity(args[0].len());
                for (i, j) in [(1, 2), (2, 0), (0, 1)] {
                    let l = self.binary(&x[i], &y[j], t, |b, p, q| b.ins().fmul(p, q))?;
                    let r = self.binary(&x[j], &y[i], t, |b, p, q| b.ins().fmul(p, q))?;
                    out.push(self.binary(&l, &r, t, |b, p, q| b.ins().fsub(p, q))?);
                }
                if x.len() == 4 {
                    let zero = if t == types::F64 {
                        self.b.ins().f64const(0.0)
                    } else {
                        self.b.ins().f32const(0.0)
                    };
                    out.push(V::U(zero));
                }
                out
            }
            _ => return Err(refuse(format!("OpenCL.std {e:?} operands"))),
        };
        if out.len() != count as usize {
            return Err(refuse(format!(
                "OpenCL.std {e:?} of {} components",
                out.len()
            )));
        }
        self.set(inst, t, V::Comp(out))?;
        Ok(Some(()))
    }

    /// The components of the OpenCL vector `id`.
    fn comps(&mut self, id: rspirv::spirv::Word) -> Result<Vec<V>> {
        match self.val(id)? {
            V::Comp(c) => Ok(c),
            _ => Err(refuse("an OpenCL vector operand that is not one")),
        }
    }

    /// `select(a, b, c)` of vectors: component `k` is `b`'s where `c`'s has its top bit
    /// set, else `a`'s; `ct` is the condition components' type.
    fn select_top_bit(&mut self, args: &[Vec<V>], t: ir::Type, ct: ir::Type) -> Result<Vec<V>> {
        let (a, b, c) = (&args[0], &args[1], &args[2]);
        if a.len() != b.len() || a.len() != c.len() {
            return Err(refuse("select of vectors of two sizes"));
        }
        (0..a.len())
            .map(|k| self.select_lanes(&a[k], &b[k], &c[k], t, ct, true))
            .collect()
    }

    /// OpenCL's `select(x, y, c)` of one scalar per lane (`t`), the condition `c` of
    /// integer type `ct`: `y` where `c`'s top bit is set (`top_bit`, a vector's rule) or
    /// where `c != 0` (a scalar's), else `x`. 32-bit values and conditions a compare and
    /// bit select per 128-bit part, others lane by lane.
    pub(super) fn select_lanes(
        &mut self,
        x: &V,
        y: &V,
        c: &V,
        t: ir::Type,
        ct: ir::Type,
        top_bit: bool,
    ) -> Result<V> {
        let cc = if top_bit {
            IntCC::SignedLessThan
        } else {
            IntCC::NotEqual
        };
        Ok(match (x, y, c, vec_of(t)) {
            (V::U(x), V::U(y), V::U(m), _) => {
                let on = self.b.ins().icmp_imm_s(cc, *m, 0);
                V::U(self.b.ins().select(on, *y, *x))
            }
            (x, y, m, Some(vt)) if ct == types::I32 => {
                let x = self.vector(x, t)?;
                let y = self.vector(y, t)?;
                let m = self.vector(m, types::I32)?;
                let order = super::lane_order();
                let zero = self.b.ins().iconst(types::I32, 0);
                let zero = self.b.ins().splat(types::I32X4, zero);
                let parts = (0..x.len())
                    .map(|j| {
                        let on = self.b.ins().icmp(cc, m[j], zero);
                        let on = if vt == types::I32X4 {
                            on
                        } else {
                            self.b.ins().bitcast(vt, order, on)
                        };
                        self.b.ins().bitselect(on, y[j], x[j])
                    })
                    .collect();
                V::Vec(parts)
            }
            // A condition is an integer; a lane mask holds booleans, not its bits.
            (_, _, V::Mask(_), _) if top_bit => return Err(refuse("select by a lane mask")),
            (x, y, m, _) => {
                let (x, y, m) = (self.lanes(x)?, self.lanes(y)?, self.lanes(m)?);
                let l = (0..self.w)
                    .map(|i| {
                        let on = self.b.ins().icmp_imm_s(cc, m[i], 0);
                        self.b.ins().select(on, y[i], x[i])
                    })
                    .collect();
                self.gathered(t, l)
            }
        })
    }

    /// `shuffle`/`shuffle2` by a mask of constants: component `k` is component
    /// `mask[k] mod 2^⌈log2 n⌉` of the sources' `n` components in order (the scalar code's
    /// rule; a padding index reads 0, which only an invalid mask reaches).
    ///
    /// A mask component that is not a constant picks per lane, as the scalar code's
    /// indexed load does: `m & (n − 1)` compared with each index in turn, each match
    /// selecting that source component (`t`; the mask's components are `mt`).
    fn shuffle(
        &mut self,
        srcs: &[Vec<V>],
        mask: &[V],
        t: ir::Type,
        mt: ir::Type,
    ) -> Result<Vec<V>> {
        let elems: Vec<V> = srcs.iter().flatten().cloned().collect();
        let n = elems.len().next_power_of_two() as i64;
        let mut out = Vec::with_capacity(mask.len());
        for m in mask {
            if let Some(k) = self.iconst_of(m) {
                let k = (k & (n - 1)) as usize;
                out.push(
                    elems
                        .get(k)
                        .cloned()
                        .ok_or_else(|| refuse("shuffle index beyond its sources"))?,
                );
                continue;
            }
            let bits = V::U(self.b.ins().iconst(mt, n - 1));
            let idx = self.binary(m, &bits, mt, |b, x, y| b.ins().band(x, y))?;
            // Padding indices (sources of a size that is not a power of two) read 0.
            let (mut r, from) = match elems.first() {
                Some(e) if elems.len() as i64 == n => (e.clone(), 1),
                _ => (V::U(super::zero_of(self.b, t)), 0),
            };
            for (k, e) in elems.iter().enumerate().skip(from) {
                // `idx ^ k` is 0 exactly where this component is picked.
                let kv = V::U(self.b.ins().iconst(mt, k as i64));
                let other = self.binary(&idx, &kv, mt, |b, x, y| b.ins().bxor(x, y))?;
                r = self.select_lanes(e, &r, &other, t, mt, false)?;
            }
            out.push(r);
        }
        Ok(out)
    }
}
