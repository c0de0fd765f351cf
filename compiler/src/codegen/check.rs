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
use cranelift_codegen::ir::{condcodes::IntCC, types, AbiParam, InstBuilder, Value};
use cranelift_module::{Linkage, Module as _};
use rspirv::dr::Instruction;
use rspirv::spirv::{Op, StorageClass, Word};

/// The checked mode the translator applies.
pub(crate) fn mode() -> crate::check::Mode {
    crate::check::mode()
}

impl FnTx<'_, '_, '_> {
    /// The variable `ptr` is known to point into, if any.
    fn check_var_of(&self, ptr: Word) -> Option<Word> {
        if let Some(v) = self.check_vars.get(&ptr) {
            return Some(*v);
        }
        self.p
            .globals
            .get(&ptr)
            .filter(|g| {
                matches!(
                    g.class,
                    StorageClass::Workgroup
                        | StorageClass::CrossWorkgroup
                        | StorageClass::UniformConstant
                )
            })
            .map(|_| ptr)
    }

    /// Follow pointer provenance through `inst` (called for every instruction in checked
    /// mode).
    pub(super) fn check_note(&mut self, inst: &Instruction) {
        let Some(r) = inst.result_id else { return };
        match inst.class.opcode {
            Op::Variable => {
                self.check_vars.insert(r, r);
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
                    .and_then(|b| self.check_var_of(b))
                {
                    self.check_vars.insert(r, v);
                }
            }
            _ => {}
        }
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
        let fid = match self.env.builtin_funcs.get(name) {
            Some(id) => *id,
            None => {
                let mut sig = self.env.module.make_signature();
                sig.params
                    .extend(std::iter::repeat_n(AbiParam::new(types::I64), params));
                sig.returns.push(AbiParam::new(types::I64));
                let id = self
                    .env
                    .module
                    .declare_function(name, Linkage::Import, &sig)
                    .map_err(super::codegen_err)?;
                self.env.builtin_funcs.insert(name, id);
                id
            }
        };
        let r = self.env.module.declare_func_in_func(fid, self.b.func);
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
        let var = self.check_var_of(ptr);
        let (target, aux, size) = match var {
            Some(v) => {
                let (vclass, pointee) = self.pointee_of(v)?;
                let size = layout(self.p, pointee)?.size;
                let name = self
                    .p
                    .names
                    .get(&self.decorated_id(v))
                    .filter(|n| !n.is_empty())
                    .map_or_else(|| format!("%{v}"), |n| n.clone());
                let kind = match vclass {
                    StorageClass::Function => "private variable",
                    StorageClass::Workgroup => "__local variable",
                    StorageClass::UniformConstant => "program-scope __constant variable",
                    _ => "program-scope variable",
                };
                let base = self.scalar(v)?;
                let what = format!("{kind} `{name}`");
                (Target::Var { what, size }, base, Some(size))
            }
            None => (Target::Dynamic, self.wi, None),
        };
        let race = race
            && var
                .is_none_or(|_| class == StorageClass::Workgroup || class == StorageClass::Generic);
        let site = self.env.check_sites.len() as i64;
        self.env.check_sites.push(Site { write, target });
        let hook = self.check_hook("ferrite_check", 6)?;
        let lid = self.linear_local_id();
        let site_v = self.b.ins().iconst(types::I64, site);
        let args = [self.ctx, site_v, addr, n, lid, aux];
        let Some(size) = size.filter(|_| !race) else {
            let call = self.b.ins().call(hook, &args);
            return Ok(self.b.inst_results(call)[0]);
        };
        // Inline: n <= size && addr - base <= size - n.
        let size_v = self.b.ins().iconst(types::I64, size as i64);
        let off = self.b.ins().isub(addr, aux);
        let lim = self.b.ins().isub(size_v, n);
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, n, size_v);
        let within = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, off, lim);
        let ok = self.b.ins().band(fits, within);
        let cold = self.b.create_block();
        let done = self.b.create_block();
        self.b.append_block_param(done, types::I64);
        self.b.set_cold_block(cold);
        self.b.ins().brif(ok, done, &[addr.into()], cold, &[]);
        self.b.seal_block(cold);
        self.b.switch_to_block(cold);
        let call = self.b.ins().call(hook, &args);
        let r = self.b.inst_results(call)[0];
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
        let n = self.b.ins().iconst(types::I64, n as i64);
        self.check_access(ptr, addr, n, write)
    }

    /// A work-item passed a boundary (checked mode with `races`): its next `__local`
    /// accesses are in a new epoch.
    pub(super) fn check_boundary(&mut self) -> Result<()> {
        if !mode().races {
            return Ok(());
        }
        let hook = self.check_hook("ferrite_check_barrier", 2)?;
        let lid = self.linear_local_id();
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
        let d = self.check_access(dp, dst, n, true)?;
        let s = self.check_access(sp, src, n, false)?;
        Ok((d, s))
    }
}
