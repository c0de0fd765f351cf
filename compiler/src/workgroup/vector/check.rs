//! Checked mode in vector loops (`FERRITE_CHECK=bounds`): one test per access for all the
//! lanes, the lanes one by one only when it fails.
//!
//! A load or store is checked against what its pointer is known to point into (the
//! provenance [`crate::codegen::check::provenance`] finds in the inlined kernel, the same
//! as the scalar translator's): an argument's buffer (the launch's table of argument
//! ranges), a `__local` argument's part of local memory, a `__local` or program-scope
//! variable, or each lane's own copy of a private variable. Where the lanes are affine
//! (`p[i]` with `i` the work-item's index, a uniform address, a private array indexed
//! uniformly) the test is one comparison of the first and last lanes' bytes against the
//! extent; otherwise it is a comparison per lane. The access runs as it does without
//! checks where the test holds. Where it fails, a cold path hands every active lane to
//! [`crate::check::ferrite_check_lanes`], which reports the lanes out of bounds (as the
//! scalar checks report them) and sends them to the scratch area, and the access is done
//! lane by lane through the addresses it returns. An access through a pointer of unknown
//! provenance always takes that path. `races` needs every `__local` access in work-item
//! order, so a kernel touching `__local` memory with it on keeps the scalar shapes.

use super::{refuse, VTx, V};
use crate::check::{Site, Target};
use crate::codegen::check::{prov_in, var_target, Prov};
use crate::codegen::Result;
use crate::GroupContext;
use cranelift_codegen::ir::{
    self, condcodes::IntCC, types, AbiParam, BlockArg, InstBuilder, MemFlagsData, Signature, Value,
};
use cranelift_codegen::isa::CallConv;
use rspirv::spirv::{StorageClass, Word};

/// What the lanes of one access are checked against, and how its cold path calls.
pub(super) struct Guard {
    /// Every lane's access is in bounds.
    pub ok: Value,
    /// The site number the hook reports by (`Env::check_sites`).
    site: i64,
    /// Bytes each lane accesses.
    n: u64,
    /// Each lane's `aux` for the hook: the variable's address (a private variable's differs
    /// per lane), or the work-item record for an access checked by its address alone.
    aux: V,
}

impl VTx<'_, '_, '_, '_> {
    /// Checked mode (`bounds`): how an access of `n` bytes per lane through `ptr` (whose
    /// lanes are `pv`) is checked; `None` when nothing is.
    pub(super) fn bounds_guard(
        &mut self,
        ptr: Word,
        pv: &V,
        n: u64,
        write: bool,
    ) -> Result<Option<Guard>> {
        let Some(known) = self.plan.prov.as_ref() else {
            return Ok(None);
        };
        let prov = prov_in(self.p, known, ptr);
        let (target, aux, size) = match prov {
            Some(Prov::Var(v)) => {
                let base = self.val(v)?;
                let (t, size) = var_target(self.p, v, self.type_of_id(v)?, v)?;
                (t, base, Some(size))
            }
            _ => (Target::Dynamic, V::U(self.inp.wi), None),
        };
        let site = match self.env.as_deref_mut() {
            Some(env) => {
                env.check_sites.push(Site { write, target });
                env.check_sites.len() as i64 - 1
            }
            // A scratch translation: the number is never used.
            None => 0,
        };
        let nn = n as i64;
        let ok = match (prov, &aux, size) {
            (_, _, Some(size)) if n > size => self.b.ins().iconst(types::I8, 0),
            (Some(Prov::Var(_)), V::U(base), Some(size)) => {
                let hi = self.b.ins().iadd_imm_s(*base, size as i64);
                self.lanes_within(pv, *base, hi, nn)?
            }
            (Some(Prov::Var(_)), V::Aff(base, stride), Some(size)) => {
                // Each lane in its own copy: `addr_k - (base + k × stride) <= size - n`.
                let lim = (size - n) as i64;
                match pv {
                    V::Aff(a, s) if s == stride => {
                        let off = self.b.ins().isub(*a, *base);
                        self.b
                            .ins()
                            .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, off, lim)
                    }
                    V::U(_) => {
                        return Err(refuse(
                            "checked mode: one address for every lane's private variable",
                        ))
                    }
                    _ => {
                        let (base, stride) = (*base, *stride);
                        let addr = self.lanes(pv)?;
                        let mut ok = None;
                        for (k, a) in addr.into_iter().enumerate() {
                            let own = self.b.ins().iadd_imm_s(base, stride * k as i64);
                            let off = self.b.ins().isub(a, own);
                            let x =
                                self.b
                                    .ins()
                                    .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, off, lim);
                            ok = Some(match ok {
                                Some(y) => self.b.ins().band(x, y),
                                None => x,
                            });
                        }
                        ok.ok_or_else(|| refuse("no lanes"))?
                    }
                }
            }
            (Some(Prov::Arg(i)), _, _) => {
                let (lo, hi) = self.table_entry(i)?;
                self.lanes_within(pv, lo, hi, nn)?
            }
            (Some(Prov::LocalArg(i)), _, _) => {
                // The table holds offsets in local memory.
                let (lo, hi) = self.table_entry(i)?;
                let lo = self.b.ins().iadd(self.inp.local_mem, lo);
                let hi = self.b.ins().iadd(self.inp.local_mem, hi);
                self.lanes_within(pv, lo, hi, nn)?
            }
            // Found from the address at run time: always the cold path.
            _ => self.b.ins().iconst(types::I8, 0),
        };
        Ok(Some(Guard { ok, site, n, aux }))
    }

    /// `races` on: a `__local` (or generic) access must go through the race detector in
    /// work-item order, which only the scalar shapes do.
    pub(super) fn refuse_unchecked_race(&self, ptr: Word) -> Result<()> {
        if !crate::check::mode().races {
            return Ok(());
        }
        let (class, _) = self.p.pointer_type(self.type_of_id(ptr)?)?;
        match class {
            StorageClass::Workgroup | StorageClass::Generic => {
                Err(refuse("checked mode's race detector (a __local access)"))
            }
            _ => Ok(()),
        }
    }

    /// An `OpLoad` through the varying `pv` under guard `g`: as unchecked where the guard
    /// holds, else lane by lane through the checked addresses.
    pub(super) fn guarded_load(&mut self, g: &Guard, pv: V, n: usize, t: ir::Type) -> Result<V> {
        let (cold, join) = self.guard_branch(g);
        let v = self.load_through(pv.clone(), n, t)?;
        let args = self.flat(v, n, t)?;
        let params: Vec<Value> = args
            .iter()
            .map(|a| {
                let ty = self.b.func.dfg.value_type(*a);
                self.b.append_block_param(join, ty)
            })
            .collect();
        let args: Vec<BlockArg> = args.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(cold);
        let checked = self.checked_lanes(g, &pv)?;
        let v = self.load_through(checked, n, t)?;
        let args: Vec<BlockArg> = self
            .flat(v, n, t)?
            .into_iter()
            .map(BlockArg::Value)
            .collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        // The components again, from the join's parameters.
        let per = if super::vec_of(t).is_some() {
            self.w / 4
        } else {
            self.w
        };
        let mut comps: Vec<V> = params
            .chunks(per)
            .map(|c| match super::vec_of(t) {
                Some(_) => V::Vec(c.to_vec()),
                None => V::L(c.to_vec()),
            })
            .collect();
        Ok(match n {
            1 => comps.pop().ok_or_else(|| refuse("load"))?,
            _ => V::Comp(comps),
        })
    }

    /// Branch on `g`: returns in its fast block, with its cold block and the join.
    fn guard_branch(&mut self, g: &Guard) -> (ir::Block, ir::Block) {
        let (fast, cold, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.set_cold_block(cold);
        self.b.ins().brif(g.ok, fast, &[], cold, &[]);
        self.b.switch_to_block(fast);
        (cold, join)
    }

    /// The `n` components of a loaded `v` as block arguments: 128-bit parts for a type
    /// with a vector form, else one scalar per lane.
    fn flat(&mut self, v: V, n: usize, t: ir::Type) -> Result<Vec<Value>> {
        let comps = match (n, v) {
            (1, v) => vec![v],
            (_, V::Comp(c)) if c.len() == n => c,
            _ => return Err(refuse("a loaded vector's components")),
        };
        let mut out = Vec::new();
        for c in &comps {
            out.extend(match super::vec_of(t) {
                Some(_) => self.vector(c, t)?,
                None => self.lanes(c)?,
            });
        }
        Ok(out)
    }

    /// An `OpStore` through the varying `pv` under guard `g`.
    pub(super) fn guarded_store(
        &mut self,
        g: &Guard,
        pv: &V,
        comps: &[V],
        t: ir::Type,
    ) -> Result<()> {
        let (cold, join) = self.guard_branch(g);
        self.store_through(pv, comps, t)?;
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(cold);
        let checked = self.checked_lanes(g, pv)?;
        self.store_through(&checked, comps, t)?;
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        Ok(())
    }

    /// Whether every lane's `n` bytes at `pv` lie in `[lo, hi)`: the first and last lanes
    /// where the lanes are affine, else each lane.
    fn lanes_within(&mut self, pv: &V, lo: Value, hi: Value, n: i64) -> Result<Value> {
        if let Some((first, step, valid)) = self.span(pv) {
            let span = (self.w as i64 - 1) * step;
            let last = self.b.ins().iadd_imm_s(first, span);
            let (low, high) = if step >= 0 {
                (first, last)
            } else {
                (last, first)
            };
            let end = self.b.ins().iadd_imm_s(high, n);
            let above = self
                .b
                .ins()
                .icmp(IntCC::UnsignedGreaterThanOrEqual, low, lo);
            let below = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, hi);
            // And the end does not wrap past the top of the address space.
            let no_wrap = self.b.ins().icmp(IntCC::UnsignedGreaterThan, end, high);
            let ok = self.b.ins().band(above, below);
            let ok = self.b.ins().band(ok, no_wrap);
            return Ok(match valid {
                Some(v) => self.b.ins().band(ok, v),
                None => ok,
            });
        }
        let addr = self.lanes(pv)?;
        let mut ok = None;
        for a in addr {
            let end = self.b.ins().iadd_imm_s(a, n);
            let above = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, a, lo);
            let below = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, hi);
            let no_wrap = self.b.ins().icmp(IntCC::UnsignedGreaterThan, end, a);
            let x = self.b.ins().band(above, below);
            let x = self.b.ins().band(x, no_wrap);
            ok = Some(match ok {
                Some(y) => self.b.ins().band(x, y),
                None => x,
            });
        }
        ok.ok_or_else(|| refuse("no lanes"))
    }

    /// Entry `i` of the launch's argument table (`CheckLaunch::table`): `(lo, hi)`.
    fn table_entry(&mut self, i: u32) -> Result<(Value, Value)> {
        let ro = MemFlagsData::trusted().with_readonly().with_can_move();
        let c = self
            .b
            .ins()
            .load(types::I64, ro, self.inp.ctx, GroupContext::OFFSET_CHECK);
        let t = self.b.ins().load(types::I64, ro, c, 0);
        let off = i32::try_from(16 * u64::from(i))
            .map_err(|_| refuse("checked mode: too many kernel arguments"))?;
        let lo = self.b.ins().load(types::I64, ro, t, off);
        let hi = self.b.ins().load(types::I64, ro, t, off + 8);
        Ok((lo, hi))
    }

    /// A uniform address `a` checked by `g`: `a` where the test holds (or no lane is
    /// active), else what `ferrite_check` returns.
    pub(super) fn guarded_uniform(&mut self, g: &Guard, a: Value) -> Result<Value> {
        let mut ok = g.ok;
        if let Some(m) = self.mask.filter(|m| Some(*m) != self.lin_full()) {
            let any = self.b.ins().vany_true(m);
            let none = self.b.ins().bxor_imm_s(any, 1);
            ok = self.b.ins().bor(ok, none);
        }
        let (cold, join) = (self.b.create_block(), self.b.create_block());
        let r = self.b.append_block_param(join, types::I64);
        self.b.set_cold_block(cold);
        self.b
            .ins()
            .brif(ok, join, &[BlockArg::Value(a)], cold, &[]);
        self.b.switch_to_block(cold);
        let hook = self.hook("ferrite_check", 6)?;
        let site = self.b.ins().iconst(types::I64, g.site);
        let n = self.b.ins().iconst(types::I64, g.n as i64);
        let lid = self.linear_lid();
        let aux = self.lane(&g.aux, 0)?;
        let call = self
            .b
            .ins()
            .call(hook, &[self.inp.ctx, site, a, n, lid, aux]);
        let checked = self.b.inst_results(call)[0];
        self.b.ins().jump(join, &[BlockArg::Value(checked)]);
        self.b.switch_to_block(join);
        Ok(r)
    }

    /// On a guard's cold path: every active lane of `pv` checked
    /// ([`crate::check::ferrite_check_lanes`]), one address per lane.
    pub(super) fn checked_lanes(&mut self, g: &Guard, pv: &V) -> Result<V> {
        let w = self.w;
        let addr = self.lanes(pv)?;
        let slot = self.b.create_sized_stack_slot(ir::StackSlotData::new(
            ir::StackSlotKind::ExplicitSlot,
            16 * w as u32,
            3,
        ));
        for (k, a) in addr.into_iter().enumerate() {
            let aux = self.lane(&g.aux, k)?;
            self.b.ins().stack_store(types::I64, a, slot, 16 * k as i32);
            self.b
                .ins()
                .stack_store(types::I64, aux, slot, 16 * k as i32 + 8);
        }
        let active = match self.mask.filter(|m| Some(*m) != self.lin_full()) {
            Some(m) => self.b.ins().vhigh_bits(types::I64, m),
            None => self.b.ins().iconst(types::I64, (1i64 << w) - 1),
        };
        let hook = self.hook("ferrite_check_lanes", 6)?;
        let site = self.b.ins().iconst(types::I64, g.site);
        let at = self.b.ins().stack_addr(types::I64, slot, 0);
        let n = self.b.ins().iconst(types::I64, g.n as i64);
        let lid = self.linear_lid();
        self.b
            .ins()
            .call(hook, &[self.inp.ctx, site, at, n, lid, active]);
        let checked = (0..w)
            .map(|k| {
                self.b
                    .ins()
                    .stack_load(types::I64, types::I64, slot, 16 * k as i32)
            })
            .collect();
        Ok(V::L(checked))
    }

    /// Lane 0's linear local id: `x + ls0 × (y + ls1 × z)`.
    fn linear_lid(&mut self) -> Value {
        let [x, y, z] = self.inp.lid;
        let ls = |d: i32| (GroupContext::OFFSET_LOCAL_SIZE / 8 + d) as usize;
        let (ls0, ls1) = (self.inp.ctx_vals[ls(0)], self.inp.ctx_vals[ls(1)]);
        let zy = self.b.ins().imul(z, ls1);
        let row = self.b.ins().iadd(zy, y);
        let row = self.b.ins().imul(row, ls0);
        self.b.ins().iadd(row, x)
    }

    /// A reference to checked mode's hook `name` (`fn(i64 × params) -> i64`).
    fn hook(&mut self, name: &'static str, params: usize) -> Result<ir::FuncRef> {
        if let Some(r) = self.builtin_refs.get(name) {
            return Ok(*r);
        }
        let r = match self.env.as_deref_mut() {
            Some(env) => env.hook_ref(self.b.func, name, params)?,
            None => {
                // A scratch translation only needs a callee of the right type.
                let mut sig = Signature::new(CallConv::SystemV);
                sig.params
                    .extend(std::iter::repeat_n(AbiParam::new(types::I64), params));
                sig.returns.push(AbiParam::new(types::I64));
                let signature = self.b.import_signature(sig);
                self.b.import_function(ir::ExtFuncData {
                    name: ir::ExternalName::testcase(name),
                    signature,
                    colocated: false,
                    patchable: false,
                })
            }
        };
        self.builtin_refs.insert(name, r);
        Ok(r)
    }
}
