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
    /// `races` on and the access is to `__local` memory: what the race test reads.
    race: Option<Race>,
}

/// A `__local` access the race detector sees (`crate::check::ShadowView`).
struct Race {
    write: bool,
    how: RaceShape,
}

/// Which lanes' cells a `__local` access touches.
enum RaceShape {
    /// One 32-bit word per lane, consecutive from lane 0's at this byte offset in local
    /// memory (where the test given holds, for lanes computed one by one): the lanes'
    /// cells are consecutive, tested and updated a vector at a time.
    Consecutive(Value, Option<Value>),
    /// Every lane reads the same bytes (this offset): one cell against every lane.
    UniformRead(Value),
    /// Anything else: every lane through the hook.
    Lanes,
}

/// Checked mode with `races`: the race detector's state as a vector iteration sees it,
/// read where the iteration (or its region) starts.
#[derive(Clone)]
pub(super) struct ShadowLanes {
    /// The cells' first field, and the bytes between fields (`crate::check::ShadowView`).
    cells: Value,
    stride: Value,
    /// Where lane 0's epoch is, and the lanes' epochs as `i32x4` parts.
    epoch_at: Value,
    epoch: Vec<Value>,
    /// Each lane's linear local id + 1 (`i32x4` parts), lane 0's linear local id.
    me: Vec<Value>,
    lid: Value,
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
        let mode = crate::check::mode();
        let (class, _) = self.p.pointer_type(self.type_of_id(ptr)?)?;
        let race = mode.races && class == StorageClass::Workgroup;
        if !mode.bounds && !race {
            return Ok(None);
        }
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
        // The race test reads the shadow cells of the bytes accessed, which the bounds
        // test above has placed inside local memory (even with `bounds` off).
        // A read of `__local` memory nobody stores to in this region cannot race.
        let unwritten = match (&self.plan.local_stores, prov) {
            (Some(stores), Some(pr)) => !write && !stores.contains(&pr),
            _ => false,
        };
        let race = match race && !unwritten {
            false => None,
            true => Some(Race {
                write,
                how: match (self.span(pv), pv) {
                    (Some((first, 4, _)), _) if n == 4 => {
                        RaceShape::Consecutive(self.b.ins().isub(first, self.inp.local_mem), None)
                    }
                    (_, V::U(a)) if !write && n <= 4 => {
                        RaceShape::UniformRead(self.b.ins().isub(*a, self.inp.local_mem))
                    }
                    (_, pv) if n == 4 => {
                        // Lanes computed one by one may still be consecutive words.
                        let addr = self.lanes(pv)?;
                        let mut consecutive = None;
                        for (k, a) in addr.iter().enumerate().skip(1) {
                            let d = self.b.ins().isub(*a, addr[0]);
                            let x = self.b.ins().icmp_imm_s(IntCC::Equal, d, 4 * k as i64);
                            consecutive = Some(match consecutive {
                                Some(y) => self.b.ins().band(x, y),
                                None => x,
                            });
                        }
                        let off = self.b.ins().isub(addr[0], self.inp.local_mem);
                        RaceShape::Consecutive(off, consecutive)
                    }
                    _ => RaceShape::Lanes,
                },
            }),
        };
        Ok(Some(Guard {
            ok,
            site,
            n,
            aux,
            race,
        }))
    }

    /// After `g`'s bounds test held: its race test, branching to `fast` (where the cells
    /// are updated, and this returns) or to `cold`.
    fn race_test(&mut self, g: &Guard, fast: ir::Block, cold: ir::Block) -> Result<()> {
        let Some(r) = &g.race else {
            self.b.ins().jump(fast, &[]);
            self.b.switch_to_block(fast);
            return Ok(());
        };
        if let RaceShape::Lanes = r.how {
            self.b.ins().jump(cold, &[]);
            self.b.switch_to_block(fast);
            return Ok(());
        }
        let sh = self
            .shadow
            .clone()
            .ok_or_else(|| refuse("checked mode: a __local access without the shadow"))?;
        let t = MemFlagsData::trusted();
        let (cells, stride, lid) = (sh.cells, sh.stride, sh.lid);
        let (ep, me) = (&sh.epoch, &sh.me);
        let parts = self.w / 4;
        // The fields of the cell of byte offset `off`: writer, its epoch, reader, its
        // epoch, `stride` bytes apart.
        let fields = |s: &mut Self, off: Value| -> [Value; 4] {
            let idx = s.b.ins().ushr_imm_s(off, 2);
            let idx = s.b.ins().ishl_imm_s(idx, 2);
            let w = s.b.ins().iadd(cells, idx);
            let we = s.b.ins().iadd(w, stride);
            let rd = s.b.ins().iadd(we, stride);
            let re = s.b.ins().iadd(rd, stride);
            [w, we, rd, re]
        };
        match r.how {
            RaceShape::Lanes => {}
            RaceShape::Consecutive(off, consecutive) => {
                let at = fields(self, off);
                let active: Option<Vec<Value>> = self
                    .partial_mask()
                    .map(|m| (0..parts).map(|j| self.part_mask(m, j)).collect());
                // Another work-item's access in this epoch conflicts: its writes always,
                // its reads when this is a write.
                let mut ok = None;
                let mut old = Vec::new();
                for j in 0..parts {
                    let off = 16 * j as i32;
                    // A read tests the writer alone, but keeps the reader of a lane it
                    // does not update.
                    let needed = if r.write || active.is_some() { 4 } else { 2 };
                    let f: Vec<Value> = at[..needed]
                        .iter()
                        .map(|a| self.b.ins().load(types::I32X4, t, *a, off))
                        .collect();
                    let (mj, ej) = (me[j], ep[j]);
                    let clear = |s: &mut Self, who: Value, when: Value| {
                        let mine = s.b.ins().icmp(IntCC::Equal, who, mj);
                        let zero = s.b.ins().iconst(types::I32, 0);
                        let zero = s.b.ins().splat(types::I32X4, zero);
                        let none = s.b.ins().icmp(IntCC::Equal, who, zero);
                        let stale = s.b.ins().icmp(IntCC::NotEqual, when, ej);
                        let x = s.b.ins().bor(mine, none);
                        s.b.ins().bor(x, stale)
                    };
                    let mut x = clear(self, f[0], f[1]);
                    if r.write {
                        let y = clear(self, f[2], f[3]);
                        x = self.b.ins().band(x, y);
                    }
                    if let Some(a) = &active {
                        let off_lanes = self.b.ins().bnot(a[j]);
                        x = self.b.ins().bor(x, off_lanes);
                    }
                    ok = Some(match ok {
                        Some(y) => self.b.ins().band(x, y),
                        None => x,
                    });
                    old.push(f);
                }
                let ok = ok.ok_or_else(|| refuse("no lanes"))?;
                let all = self.b.ins().vall_true(ok);
                let low = self.b.ins().band_imm_s(off, 3);
                let aligned = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
                let mut ok = self.b.ins().band(all, aligned);
                if let Some(c) = consecutive {
                    ok = self.b.ins().band(ok, c);
                }
                self.b.ins().brif(ok, fast, &[], cold, &[]);
                self.b.switch_to_block(fast);
                // This access is now each active lane's last read or write.
                let (who, when) = if r.write { (0, 1) } else { (2, 3) };
                for j in 0..parts {
                    let (mut m, mut e) = (me[j], ep[j]);
                    if let Some(a) = &active {
                        m = self.bitselect(a[j], m, old[j][who]);
                        e = self.bitselect(a[j], e, old[j][when]);
                    }
                    let off = 16 * j as i32;
                    self.b.ins().store(t, m, at[who], off);
                    self.b.ins().store(t, e, at[when], off);
                }
            }
            RaceShape::UniformRead(off) => {
                let at = fields(self, off);
                let w = self.b.ins().load(types::I32, t, at[0], 0);
                let we = self.b.ins().load(types::I32, t, at[1], 0);
                let we = self.b.ins().splat(types::I32X4, we);
                let mut stale = None;
                for e in ep {
                    let x = self.b.ins().icmp(IntCC::NotEqual, we, *e);
                    stale = Some(match stale {
                        Some(y) => self.b.ins().band(x, y),
                        None => x,
                    });
                }
                let stale = stale.ok_or_else(|| refuse("no lanes"))?;
                let stale = self.b.ins().vall_true(stale);
                let none = self.b.ins().icmp_imm_s(IntCC::Equal, w, 0);
                let mut ok = self.b.ins().bor(none, stale);
                // Within one cell, and every lane active (the last one is the reader).
                let low = self.b.ins().band_imm_s(off, 3);
                let end = self.b.ins().iadd_imm_s(low, g.n as i64);
                let single = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, end, 4);
                ok = self.b.ins().band(ok, single);
                if let Some(m) = self.partial_mask() {
                    let all = self.b.ins().vall_true(m);
                    ok = self.b.ins().band(ok, all);
                }
                self.b.ins().brif(ok, fast, &[], cold, &[]);
                self.b.switch_to_block(fast);
                let last = self.b.ins().iadd_imm_s(lid, self.w as i64);
                let last = self.b.ins().ireduce(types::I32, last);
                let last_ep = self.b.ins().extractlane(ep[parts - 1], 3);
                self.b.ins().store(t, last, at[2], 0);
                self.b.ins().store(t, last_ep, at[3], 0);
            }
        }
        Ok(())
    }

    /// A boundary every active lane passes (`races` on): each one's next `__local`
    /// accesses are in a new epoch.
    pub(super) fn race_boundary(&mut self) -> Result<()> {
        let Some(sh) = &self.shadow else {
            return Ok(());
        };
        let t = MemFlagsData::trusted();
        let at = sh.epoch_at;
        let one = self.b.ins().iconst(types::I32, 1);
        let one = self.b.ins().splat(types::I32X4, one);
        for j in 0..self.w / 4 {
            let off = 16 * j as i32;
            let e = self.b.ins().load(types::I32X4, t, at, off);
            // An active lane's mask is all ones (-1): subtracting it adds one.
            let e = match self.partial_mask() {
                Some(m) => {
                    let mj = self.part_mask(m, j);
                    self.b.ins().isub(e, mj)
                }
                None => self.b.ins().iadd(e, one),
            };
            self.b.ins().store(t, e, at, off);
        }
        Ok(())
    }

    /// `races` on and the kernel touches `__local` memory, where an iteration starts: the
    /// race detector's state for its lanes (from the group's, `Inputs::shadow`).
    pub(super) fn fetch_shadow(&mut self) -> Result<()> {
        if !crate::check::mode().races || !self.plan.touches_local {
            return Ok(());
        }
        let view = self
            .inp
            .shadow
            .ok_or_else(|| refuse("checked mode: no race-detector state"))?;
        // The view's fields do not change while the group runs.
        let ro = MemFlagsData::trusted().with_readonly().with_can_move();
        let cells = self.b.ins().load(types::I64, ro, view, 0);
        let epochs = self.b.ins().load(types::I64, ro, view, 8);
        let stride = self.b.ins().load(types::I64, ro, view, 16);
        let lid = self.linear_lid();
        let lid4 = self.b.ins().ishl_imm_s(lid, 2);
        let epoch_at = self.b.ins().iadd(epochs, lid4);
        // A lane's epoch changes only where it leaves the region (a boundary).
        let epoch = (0..self.w / 4)
            .map(|j| {
                self.b.ins().load(
                    types::I32X4,
                    MemFlagsData::trusted(),
                    epoch_at,
                    16 * j as i32,
                )
            })
            .collect();
        let lid32 = self.b.ins().ireduce(types::I32, lid);
        let me1 = self.b.ins().iadd_imm_s(lid32, 1);
        let me = self.vector(&V::Aff(me1, 1), types::I32)?;
        self.shadow = Some(ShadowLanes {
            cells,
            stride,
            epoch_at,
            epoch,
            me,
            lid,
        });
        Ok(())
    }

    /// `races` on: an access through a generic pointer may be to `__local` memory, which
    /// only the scalar shapes then check.
    pub(super) fn refuse_unchecked_race(&self, ptr: Word) -> Result<()> {
        if !crate::check::mode().races {
            return Ok(());
        }
        let (class, _) = self.p.pointer_type(self.type_of_id(ptr)?)?;
        match class {
            StorageClass::Generic => Err(refuse(
                "checked mode's race detector (a generic access, maybe to __local memory)",
            )),
            _ => Ok(()),
        }
    }

    /// An `OpLoad` through the varying `pv` under guard `g`: as unchecked where the guard
    /// holds, else lane by lane through the checked addresses.
    pub(super) fn guarded_load(&mut self, g: &Guard, pv: V, n: usize, t: ir::Type) -> Result<V> {
        let (cold, join) = self.guard_branch(g)?;
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

    /// Branch on `g` (its bounds test, then its race test): returns in its fast block,
    /// with its cold block and the join.
    fn guard_branch(&mut self, g: &Guard) -> Result<(ir::Block, ir::Block)> {
        let (race, fast, cold, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.set_cold_block(cold);
        let go = self.b.create_block();
        if let Some(m) = self.partial_mask() {
            // No lane active: nothing is accessed, nothing to check.
            let some = self.b.create_block();
            let any = self.b.ins().vany_true(m);
            self.b.ins().brif(any, some, &[], go, &[]);
            self.b.switch_to_block(some);
        }
        self.b.ins().brif(g.ok, race, &[], cold, &[]);
        self.b.switch_to_block(race);
        self.race_test(g, fast, cold)?;
        self.b.ins().jump(go, &[]);
        self.b.switch_to_block(go);
        Ok((cold, join))
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
        let (cold, join) = self.guard_branch(g)?;
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

    /// A uniform address `a` checked by `g`: `a` where the tests hold (or no lane is
    /// active), else what the hook returns for the active lanes (each checked as its own
    /// work-item, so the race detector sees every reader).
    pub(super) fn guarded_uniform(&mut self, g: &Guard, a: Value) -> Result<Value> {
        let (race, fast, cold, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let r = self.b.append_block_param(join, types::I64);
        self.b.set_cold_block(cold);
        if let Some(m) = self.partial_mask() {
            // No lane active: nothing is accessed, nothing to check.
            let some = self.b.create_block();
            let any = self.b.ins().vany_true(m);
            self.b
                .ins()
                .brif(any, some, &[], join, &[BlockArg::Value(a)]);
            self.b.switch_to_block(some);
        }
        self.b.ins().brif(g.ok, race, &[], cold, &[]);
        self.b.switch_to_block(race);
        self.race_test(g, fast, cold)?;
        self.b.ins().jump(join, &[BlockArg::Value(a)]);
        self.b.switch_to_block(cold);
        let V::L(lanes) = self.checked_lanes(g, &V::U(a))? else {
            return Err(refuse("checked lanes"));
        };
        // Every active lane's address is `a` or the same scratch area.
        let mut checked = a;
        for x in lanes {
            let moved = self.b.ins().icmp(IntCC::NotEqual, x, a);
            checked = self.b.ins().select(moved, x, checked);
        }
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
        let active = match self.partial_mask() {
            Some(m) => self.b.ins().vhigh_bits(types::I64, m),
            None => self.b.ins().iconst(types::I64, (1i64 << w) - 1),
        };
        // No lane active (a vector the kernel's `if` switched off, whose addresses may lie
        // anywhere): nothing to check.
        let (call, after) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(active, call, &[], after, &[]);
        self.b.switch_to_block(call);
        let hook = self.hook("ferrite_check_lanes", 6)?;
        let site = self.b.ins().iconst(types::I64, g.site);
        let at = self.b.ins().stack_addr(types::I64, slot, 0);
        let n = self.b.ins().iconst(types::I64, g.n as i64);
        let lid = self.linear_lid();
        self.b
            .ins()
            .call(hook, &[self.inp.ctx, site, at, n, lid, active]);
        self.b.ins().jump(after, &[]);
        self.b.switch_to_block(after);
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

    /// The lane mask where some lanes may be off (masked mode, not the all-on mask).
    fn partial_mask(&self) -> Option<Value> {
        self.mask.filter(|m| Some(*m) != self.lin_full())
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
                self.scratch_import(name, sig)
            }
        };
        self.builtin_refs.insert(name, r);
        Ok(r)
    }
}
