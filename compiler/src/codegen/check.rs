//! Checked mode (`FERRITE_CHECK`), the translator's half: a check before each load,
//! store and memory copy (see [`crate::check`] for what is checked and the run-time half).
//!
//! Pointer provenance is followed at compile time as far as it is plain: a pointer made
//! by access chains, casts and copies from one variable (private, `__local` or program
//! scope) is checked inline against that variable's extent (`addr − base ≤ size − n`,
//! one compare and a branch to a cold call that reports); every other access calls
//! [`crate::check::ferrite_check`], which finds the allocation from the address. `__local`
//! accesses under `races` always call it, for the race detector.

use super::{FnTx, Result};
use crate::check::{Site, Target};
use crate::layout::layout;
use crate::spirv::{Function, Program};
use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, MemFlagsData, Value};
use rspirv::dr::Instruction;
use rspirv::spirv::{Op, StorageClass, Word};
use std::collections::HashMap;

/// The checked mode the translator applies.
pub(crate) fn mode() -> crate::check::Mode {
    crate::check::mode()
}

/// The operands of a `ferrite_check` call but the work-item id.
struct CallArgs {
    hook: cranelift_codegen::ir::FuncRef,
    site: Value,
    addr: Value,
    n: Value,
    aux: Value,
}

/// What a pointer is known to point into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Prov {
    /// A variable (its id): checked inline against its extent.
    Var(Word),
    /// A `__global`/`__constant` kernel argument (its number): checked inline against the
    /// launch's table of argument ranges (`CheckLaunch::table`).
    Arg(u32),
    /// A `__local` kernel argument (its number): the table holds its offsets in local
    /// memory.
    LocalArg(u32),
}

/// What `ptr` is known to point into, given the provenance found so far (`known`):
/// that, or a module-scope variable it is.
pub(crate) fn prov_in(p: &Program, known: &HashMap<Word, Prov>, ptr: Word) -> Option<Prov> {
    if let Some(v) = known.get(&ptr) {
        return Some(*v);
    }
    p.globals
        .get(&ptr)
        .filter(|g| {
            matches!(
                g.class,
                StorageClass::Workgroup
                    | StorageClass::CrossWorkgroup
                    | StorageClass::UniformConstant
            )
        })
        .map(|_| Prov::Var(ptr))
}

/// The check target of an access through variable `v` (of pointer type `ptr_ty`, named as
/// `name_id` is), and the variable's size in bytes.
pub(crate) fn var_target(
    p: &Program,
    v: Word,
    ptr_ty: Word,
    name_id: Word,
) -> Result<(Target, u64)> {
    let (vclass, pointee) = p.pointer_type(ptr_ty)?;
    let size = layout(p, pointee)?.size;
    let name = p
        .names
        .get(&name_id)
        .filter(|n| !n.is_empty())
        .map_or_else(|| format!("%{v}"), |n| n.clone());
    let kind = match vclass {
        StorageClass::Function => "private variable",
        StorageClass::Workgroup => "__local variable",
        StorageClass::UniformConstant => "program-scope __constant variable",
        _ => "program-scope variable",
    };
    let what = format!("{kind} `{name}`");
    Ok((Target::Var { what, size }, size))
}

/// A kernel's `__global`/`__constant` pointer parameters are the arguments of those
/// numbers, its `__local` ones the local-memory arguments.
fn note_kernel_params(p: &Program, kernel: &Function, known: &mut HashMap<Word, Prov>) {
    for (i, prm) in kernel.params.iter().enumerate() {
        match p.pointer_type(prm.ty) {
            Ok((StorageClass::CrossWorkgroup | StorageClass::UniformConstant, _)) => {
                known.insert(prm.id, Prov::Arg(i as u32));
            }
            Ok((StorageClass::Workgroup, _)) => {
                known.insert(prm.id, Prov::LocalArg(i as u32));
            }
            _ => {}
        }
    }
}

/// Follow provenance through `inst` (a call is the translator's business).
fn note(p: &Program, known: &mut HashMap<Word, Prov>, inst: &Instruction) {
    let Some(r) = inst.result_id else { return };
    match inst.class.opcode {
        Op::Variable => {
            known.insert(r, Prov::Var(r));
        }
        Op::AccessChain
        | Op::InBoundsAccessChain
        | Op::PtrAccessChain
        | Op::InBoundsPtrAccessChain
        | Op::Bitcast
        | Op::PtrCastToGeneric
        | Op::GenericCastToPtr
        | Op::CopyObject => {
            if let Some(v) = super::op_id(inst, 0)
                .ok()
                .and_then(|b| prov_in(p, known, b))
            {
                known.insert(r, v);
            }
        }
        _ => {}
    }
}

/// The `__local` memory `f` (a kernel, or one region of one between two barriers)
/// stores to, by provenance (`known`); `None` when a store may reach `__local` memory
/// through a pointer of unknown provenance. Within one region no work-item can race with
/// a read of `__local` memory nobody stores to there (every work-item in the same epoch
/// runs the same region): such reads need no race check.
pub(crate) fn local_stores(
    p: &Program,
    f: &Function,
    known: &HashMap<Word, Prov>,
    ptr_ty: impl Fn(Word) -> Option<Word>,
) -> Option<std::collections::HashSet<Prov>> {
    let mut out = std::collections::HashSet::new();
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        if !matches!(
            inst.class.opcode,
            Op::Store | Op::CopyMemory | Op::CopyMemorySized
        ) {
            continue;
        }
        let ptr = super::op_id(inst, 0).ok()?;
        let class = ptr_ty(ptr)
            .and_then(|t| p.pointer_type(t).ok())
            .map(|(c, _)| c);
        match (class, prov_in(p, known, ptr)) {
            (Some(StorageClass::Workgroup | StorageClass::Generic) | None, Some(prov)) => {
                out.insert(prov);
            }
            (Some(StorageClass::Workgroup | StorageClass::Generic) | None, None) => return None,
            _ => {}
        }
    }
    Some(out)
}

/// The provenance of every pointer of `kernel`, a kernel function with every call inlined
/// (the vectoriser's input): what its checks compare each access against.
pub(crate) fn provenance(p: &Program, kernel: &Function) -> HashMap<Word, Prov> {
    let mut known = HashMap::new();
    note_kernel_params(p, kernel, &mut known);
    // Blocks are in no particular order: repeat until nothing new is learnt.
    for _ in 0..4 {
        let before = known.len();
        for inst in kernel.blocks.iter().flat_map(|b| &b.insts) {
            note(p, &mut known, inst);
        }
        if known.len() == before {
            break;
        }
    }
    known
}

impl FnTx<'_, '_, '_> {
    /// What `ptr` is known to point into, if anything.
    fn prov_of(&self, ptr: Word) -> Option<Prov> {
        prov_in(self.p, &self.check_vars, ptr)
    }

    /// Checked mode, at the start of the kernel's own function (or its step): its
    /// `__global`/`__constant` pointer parameters are the arguments of those numbers.
    pub(super) fn check_kernel_params(&mut self) {
        if !mode().any() {
            return;
        }
        let kernel = self.step.is_some() || self.f.id == self.env.kernel_func;
        if kernel {
            note_kernel_params(self.p, self.f, &mut self.check_vars);
        }
        // Provenance of every pointer before translation: a step may translate a use
        // (after a barrier) before the definition it reloads from the frame.
        let f = self.f;
        for _ in 0..4 {
            let before = self.check_vars.len();
            for blk in &f.blocks {
                for inst in &blk.insts {
                    self.check_note(inst);
                }
            }
            if self.check_vars.len() == before {
                break;
            }
        }
    }

    /// Checked mode with races, where a work-item (or a step of one) starts: fetch the
    /// worker's race-detector state for the inline race checks.
    pub(super) fn check_entry(&mut self) -> Result<()> {
        if !mode().races || !self.env.check_local {
            return Ok(());
        }
        let hook = self.check_hook("ferrite_check_shadow", 1)?;
        let ctx = self.ctx;
        let call = self.b.ins().call(hook, &[ctx]);
        self.check_view = Some(self.b.inst_results(call)[0]);
        Ok(())
    }

    /// Follow pointer provenance through `inst` (called for every instruction in checked
    /// mode).
    pub(super) fn check_note(&mut self, inst: &Instruction) {
        if inst.class.opcode == Op::FunctionCall {
            // A callee inlined here sees the provenance of its arguments: an argument
            // buffer, or a program-scope or `__local` variable (addressable anywhere).
            let Ok(callee) = super::op_id(inst, 0).and_then(|c| self.p.function(c)) else {
                return;
            };
            for (j, prm) in callee.params.iter().enumerate() {
                let prov = super::op_id(inst, j + 1)
                    .ok()
                    .and_then(|a| self.prov_of(a))
                    .filter(|p| match p {
                        Prov::Arg(_) | Prov::LocalArg(_) => true,
                        Prov::Var(v) => self.p.globals.contains_key(v),
                    });
                match prov {
                    Some(p) => self.check_vars.insert(prm.id, p),
                    None => self.check_vars.remove(&prm.id),
                };
            }
            return;
        }
        note(self.p, &mut self.check_vars, inst);
    }

    /// A reference to a checked-mode hook (`crate::check::symbols`).
    fn check_hook(
        &mut self,
        name: &'static str,
        params: usize,
    ) -> Result<cranelift_codegen::ir::FuncRef> {
        if let Some(r) = self.builtin_refs.get(name) {
            return Ok(*r);
        }
        let r = self.env.hook_ref(self.b.func, name, params)?;
        self.builtin_refs.insert(name, r);
        Ok(r)
    }

    /// The address to use for an access of `n` bytes at `addr` through the pointer `ptr`:
    /// `addr` itself, checked when checked mode is on.
    pub(super) fn check_access(
        &mut self,
        ptr: Word,
        addr: Value,
        n: Value,
        n_const: Option<u64>,
        write: bool,
    ) -> Result<Value> {
        let m = mode();
        if !m.any() {
            return Ok(addr);
        }
        let (class, _) = self.pointee_of(ptr)?;
        let maybe_local = matches!(class, StorageClass::Workgroup | StorageClass::Generic);
        let race = m.races && maybe_local;
        if !m.bounds && !race {
            return Ok(addr);
        }
        let prov = self.prov_of(ptr);
        let var = match prov {
            Some(Prov::Var(v)) => Some(v),
            _ => None,
        };
        let (target, aux, size) = match var {
            Some(v) => {
                let (target, size) = var_target(self.p, v, self.type_of(v)?, self.source_id(v))?;
                let base = self.scalar(v)?;
                (target, base, Some(size))
            }
            None => (Target::Dynamic, self.wi, None),
        };
        let race = race
            && var
                .is_none_or(|_| class == StorageClass::Workgroup || class == StorageClass::Generic);
        let site = self.env.check_sites.len() as i64;
        self.env.check_sites.push(Site { write, target });
        let hook = self.check_hook("ferrite_check", 6)?;
        let site_v = self.b.ins().iconst(types::I64, site);
        let args = CallArgs {
            hook,
            site: site_v,
            addr,
            n,
            aux,
        };
        // `__local`, race detector on, one 4-byte cell: bounds, then the race check,
        // inline.
        let one_cell = n_const.is_some_and(|n| n <= 4);
        let known_local = match prov {
            Some(Prov::LocalArg(_)) => true,
            Some(Prov::Var(v)) => matches!(self.pointee_of(v), Ok((StorageClass::Workgroup, _))),
            _ => false,
        };
        if let (true, true, Some(view)) = (race && one_cell, known_local, self.check_view) {
            let off = self.b.ins().isub(addr, self.local_mem);
            let (lo, len) = match (prov, size) {
                (Some(Prov::LocalArg(i)), _) => {
                    let (lo, hi) = self.check_table_entry(i)?;
                    (lo, self.b.ins().isub(hi, lo))
                }
                (_, Some(size)) => {
                    let lo = self.b.ins().isub(aux, self.local_mem);
                    (lo, self.b.ins().iconst(types::I64, size as i64))
                }
                _ => {
                    return Err(crate::CompileError::Codegen(
                        "checked mode: no extent".into(),
                    ))
                }
            };
            let rel = self.b.ins().isub(off, lo);
            let lim = self.b.ins().isub(len, n);
            let fits = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, n, len);
            let within = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, rel, lim);
            let low = self.b.ins().band_imm_s(off, 3);
            let end = self.b.ins().iadd(low, n);
            let single = self
                .b
                .ins()
                .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, end, 4);
            let ok = self.b.ins().band(fits, within);
            let ok = self.b.ins().band(ok, single);
            let race_blk = self.b.create_block();
            let fast = self.b.create_block();
            let cold = self.b.create_block();
            let done = self.b.create_block();
            self.b.append_block_param(done, types::I64);
            self.b.set_cold_block(cold);
            self.b.ins().brif(ok, race_blk, &[], cold, &[]);
            self.b.seal_block(race_blk);
            self.b.switch_to_block(race_blk);
            let t = MemFlagsData::trusted();
            let lid = self.linear_local_id();
            let cells = self.b.ins().load(types::I64, t, view, 0);
            let epochs = self.b.ins().load(types::I64, t, view, 8);
            let lid4 = self.b.ins().ishl_imm_s(lid, 2);
            let ep_at = self.b.ins().iadd(epochs, lid4);
            let ep = self.b.ins().load(types::I32, t, ep_at, 0);
            let me64 = self.b.ins().iadd_imm_s(lid, 1);
            let me = self.b.ins().ireduce(types::I32, me64);
            // The cell's four fields, `stride` bytes apart (`crate::check::ShadowView`).
            let stride = self.b.ins().load(types::I64, t, view, 16);
            let idx = self.b.ins().ushr_imm_s(off, 2);
            let idx = self.b.ins().ishl_imm_s(idx, 2);
            let writer = self.b.ins().iadd(cells, idx);
            let field = |b: &mut cranelift_frontend::FunctionBuilder, f: i64| match f {
                0 => writer,
                _ => {
                    let d = b.ins().imul_imm_s(stride, f);
                    b.ins().iadd(writer, d)
                }
            };
            // Another work-item's access in this epoch conflicts: its writes always,
            // its reads when this is a write.
            let clear = |b: &mut cranelift_frontend::FunctionBuilder, f: i64| {
                let (who_at, when_at) = (field(b, f), field(b, f + 1));
                let who = b.ins().load(types::I32, t, who_at, 0);
                let when = b.ins().load(types::I32, t, when_at, 0);
                let mine = b.ins().icmp(IntCC::Equal, who, me);
                let none = b.ins().icmp_imm_s(IntCC::Equal, who, 0);
                let old = b.ins().icmp(IntCC::NotEqual, when, ep);
                let x = b.ins().bor(mine, none);
                b.ins().bor(x, old)
            };
            let mut ok = clear(&mut self.b, 0);
            if write {
                let r = clear(&mut self.b, 2);
                ok = self.b.ins().band(ok, r);
            }
            self.b.ins().brif(ok, fast, &[], cold, &[]);
            self.b.seal_block(fast);
            self.b.seal_block(cold);
            self.b.switch_to_block(fast);
            let f = if write { 0 } else { 2 };
            let (who_at, when_at) = (field(&mut self.b, f), field(&mut self.b, f + 1));
            self.b.ins().store(t, me, who_at, 0);
            self.b.ins().store(t, ep, when_at, 0);
            self.b.ins().jump(done, &[addr.into()]);
            self.b.switch_to_block(cold);
            let r = self.check_call(&args);
            self.b.ins().jump(done, &[r.into()]);
            self.b.seal_block(done);
            self.b.switch_to_block(done);
            return Ok(self.b.block_params(done)[0]);
        }
        if let (Some(Prov::LocalArg(i)), false) = (prov, race) {
            // Inline: lo <= off && off + n <= hi, offsets in local memory.
            let (lo, hi) = self.check_table_entry(i)?;
            let off = self.b.ins().isub(addr, self.local_mem);
            let end = self.b.ins().iadd(off, n);
            let above = self
                .b
                .ins()
                .icmp(IntCC::UnsignedGreaterThanOrEqual, off, lo);
            let below = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, hi);
            let ok = self.b.ins().band(above, below);
            return self.check_branch(ok, &args);
        }
        if let (Some(Prov::Arg(i)), false) = (prov, race) {
            // Inline: lo <= addr && addr + n <= hi, from the launch's argument table.
            let (lo, hi) = self.check_table_entry(i)?;
            let end = self.b.ins().iadd(addr, n);
            let above = self
                .b
                .ins()
                .icmp(IntCC::UnsignedGreaterThanOrEqual, addr, lo);
            let below = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, hi);
            let ok = self.b.ins().band(above, below);
            return self.check_branch(ok, &args);
        }
        let Some(size) = size.filter(|_| !race) else {
            return Ok(self.check_call(&args));
        };
        // Inline: n <= size && addr - base <= size - n.
        let size_v = self.b.ins().iconst(types::I64, size as i64);
        let off = self.b.ins().isub(addr, aux);
        let lim = self.b.ins().isub(size_v, n);
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, n, size_v);
        let within = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, off, lim);
        let ok = self.b.ins().band(fits, within);
        self.check_branch(ok, &args)
    }

    /// Entry `i` of the launch's argument table: `(lo, hi)`.
    fn check_table_entry(&mut self, i: u32) -> Result<(Value, Value)> {
        let ro = MemFlagsData::trusted().with_readonly().with_can_move();
        let c = self
            .b
            .ins()
            .load(types::I64, ro, self.ctx, crate::GroupContext::OFFSET_CHECK);
        let t = self.b.ins().load(types::I64, ro, c, 0);
        let off = i32::try_from(16 * u64::from(i))
            .map_err(|_| crate::CompileError::Unsupported("too many kernel arguments".into()))?;
        let lo = self.b.ins().load(types::I64, ro, t, off);
        let hi = self.b.ins().load(types::I64, ro, t, off + 8);
        Ok((lo, hi))
    }

    /// `ferrite_check(ctx, site, addr, n, lid, aux)`; the work-item's id is computed here,
    /// on the (cold) path that needs it.
    fn check_call(&mut self, a: &CallArgs) -> Value {
        let lid = self.linear_local_id();
        let call = self
            .b
            .ins()
            .call(a.hook, &[self.ctx, a.site, a.addr, a.n, lid, a.aux]);
        self.b.inst_results(call)[0]
    }

    /// `ok ? addr : hook(args…)`, the call in a cold block.
    fn check_branch(&mut self, ok: Value, args: &CallArgs) -> Result<Value> {
        let addr = args.addr;
        let cold = self.b.create_block();
        let done = self.b.create_block();
        self.b.append_block_param(done, types::I64);
        self.b.set_cold_block(cold);
        self.b.ins().brif(ok, done, &[addr.into()], cold, &[]);
        self.b.seal_block(cold);
        self.b.switch_to_block(cold);
        let r = self.check_call(args);
        self.b.ins().jump(done, &[r.into()]);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        Ok(self.b.block_params(done)[0])
    }

    /// [`check_access`](Self::check_access) of a whole value of type `ty`.
    pub(super) fn check_typed(
        &mut self,
        ptr: Word,
        addr: Value,
        ty: Word,
        write: bool,
    ) -> Result<Value> {
        if !mode().any() {
            return Ok(addr);
        }
        let n = layout(self.p, ty)?.size;
        let nv = self.b.ins().iconst(types::I64, n as i64);
        self.check_access(ptr, addr, nv, Some(n), write)
    }

    /// A work-item passed a boundary (checked mode with `races`): its next `__local`
    /// accesses are in a new epoch.
    pub(super) fn check_boundary(&mut self) -> Result<()> {
        if !mode().races {
            return Ok(());
        }
        let lid = self.linear_local_id();
        if let Some(view) = self.check_view {
            // Inline: epochs[lid] += 1.
            let t = MemFlagsData::trusted();
            let epochs = self.b.ins().load(types::I64, t, view, 8);
            let lid4 = self.b.ins().ishl_imm_s(lid, 2);
            let at = self.b.ins().iadd(epochs, lid4);
            let e = self.b.ins().load(types::I32, t, at, 0);
            let e = self.b.ins().iadd_imm_s(e, 1);
            self.b.ins().store(t, e, at, 0);
            return Ok(());
        }
        let hook = self.check_hook("ferrite_check_barrier", 2)?;
        let ctx = self.ctx;
        self.b.ins().call(hook, &[ctx, lid]);
        Ok(())
    }
}

impl FnTx<'_, '_, '_> {
    /// `OpCopyMemory(Sized)`: check the destination (a write) and the source (a read).
    pub(super) fn check_copy(
        &mut self,
        inst: &Instruction,
        dst: Value,
        src: Value,
    ) -> Result<(Value, Value)> {
        if !mode().any() {
            return Ok((dst, src));
        }
        let (dp, sp) = (super::op_id(inst, 0)?, super::op_id(inst, 1)?);
        let n = if inst.class.opcode == Op::CopyMemory {
            let (_, pointee) = self.pointee_of(dp)?;
            let n = layout(self.p, pointee)?.size;
            self.b.ins().iconst(types::I64, n as i64)
        } else {
            let mut n = self.scalar(super::op_id(inst, 2)?)?;
            if self.value_type(n).bits() < 64 {
                n = self.b.ins().uextend(types::I64, n);
            }
            n
        };
        let d = self.check_access(dp, dst, n, None, true)?;
        let s = self.check_access(sp, src, n, None, false)?;
        Ok((d, s))
    }
}
