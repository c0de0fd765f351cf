//! Work-item builtins (`Input` variables decorated `BuiltIn`): answered from the calling
//! work-item's record and the group's [`GroupContext`].
//!
//! The work-item record is built by the work-group function (`workgroup.rs`) on its stack
//! and passed to every function as the hidden last parameter:
//! `{ ctx: *const GroupContext, local_id: [u64; 3], global_id: [u64; 3], stack_top,
//! frame_lo, frame_hi }`.

use super::{trusted, FnTx, Result, Val};
use crate::spirv::Type;
use crate::{CompileError, GroupContext};
use cranelift_codegen::ir::{types, InstBuilder, Value};
use rspirv::spirv::{BuiltIn, Word};

/// Offset of the `*const GroupContext` in the work-item record.
pub const WI_CTX: i32 = 0;
/// Offset of `local_id[3]`.
pub const WI_LID: i32 = 8;
/// Offset of `global_id[3]`.
pub const WI_GID: i32 = 32;
/// The work-group function's stack pointer: the top of every work-item's private stack
/// memory (`to_private` asks whether a generic pointer lies between it and the current
/// stack pointer).
pub const WI_STACK: i32 = 56;
/// `[lo, hi)` of the group's frame arena (private variables of a kernel with barriers
/// live there); both 0 for a kernel without boundaries.
pub const WI_FRAME_LO: i32 = 64;
pub const WI_FRAME_HI: i32 = 72;
/// Size of the work-item record.
pub const WI_SIZE: u32 = 80;

impl FnTx<'_, '_, '_> {
    fn wi_load(&mut self, off: i32) -> Value {
        self.b.ins().load(types::I64, trusted(), self.wi, off)
    }

    fn ctx_load(&mut self, off: i32) -> Value {
        self.b.ins().load(types::I64, trusted(), self.ctx, off)
    }

    fn ctx3(&mut self, off: i32) -> [Value; 3] {
        [
            self.ctx_load(off),
            self.ctx_load(off + 8),
            self.ctx_load(off + 16),
        ]
    }

    /// The builtin's components as `u64`s (3 for the id/size vectors, 1 for scalars).
    pub(super) fn builtin_components(&mut self, b: BuiltIn) -> Result<Vec<Value>> {
        Ok(match b {
            BuiltIn::GlobalInvocationId => {
                vec![
                    self.wi_load(WI_GID),
                    self.wi_load(WI_GID + 8),
                    self.wi_load(WI_GID + 16),
                ]
            }
            BuiltIn::LocalInvocationId => {
                vec![
                    self.wi_load(WI_LID),
                    self.wi_load(WI_LID + 8),
                    self.wi_load(WI_LID + 16),
                ]
            }
            BuiltIn::WorkgroupId => self.ctx3(GroupContext::OFFSET_GROUP_ID).to_vec(),
            BuiltIn::NumWorkgroups => self.ctx3(GroupContext::OFFSET_NUM_GROUPS).to_vec(),
            BuiltIn::WorkgroupSize => self.ctx3(GroupContext::OFFSET_LOCAL_SIZE).to_vec(),
            BuiltIn::EnqueuedWorkgroupSize => {
                self.ctx3(GroupContext::OFFSET_ENQUEUED_LOCAL_SIZE).to_vec()
            }
            BuiltIn::GlobalSize => self.ctx3(GroupContext::OFFSET_GLOBAL_SIZE).to_vec(),
            BuiltIn::GlobalOffset => self.ctx3(GroupContext::OFFSET_GLOBAL_OFFSET).to_vec(),
            BuiltIn::WorkDim => vec![self.ctx_load(GroupContext::OFFSET_WORK_DIM)],
            BuiltIn::GlobalLinearId => {
                // ((gz - oz) * gsy + (gy - oy)) * gsx + (gx - ox)
                let g = [
                    self.wi_load(WI_GID),
                    self.wi_load(WI_GID + 8),
                    self.wi_load(WI_GID + 16),
                ];
                let o = self.ctx3(GroupContext::OFFSET_GLOBAL_OFFSET);
                let s = self.ctx3(GroupContext::OFFSET_GLOBAL_SIZE);
                let z = self.b.ins().isub(g[2], o[2]);
                let y = self.b.ins().isub(g[1], o[1]);
                let x = self.b.ins().isub(g[0], o[0]);
                let t = self.b.ins().imul(z, s[1]);
                let t = self.b.ins().iadd(t, y);
                let t = self.b.ins().imul(t, s[0]);
                vec![self.b.ins().iadd(t, x)]
            }
            BuiltIn::LocalInvocationIndex => {
                let l = [
                    self.wi_load(WI_LID),
                    self.wi_load(WI_LID + 8),
                    self.wi_load(WI_LID + 16),
                ];
                let s = self.ctx3(GroupContext::OFFSET_LOCAL_SIZE);
                let t = self.b.ins().imul(l[2], s[1]);
                let t = self.b.ins().iadd(t, l[1]);
                let t = self.b.ins().imul(t, s[0]);
                vec![self.b.ins().iadd(t, l[0])]
            }
            b => {
                return Err(CompileError::Unsupported(format!("builtin variable {b:?}")));
            }
        })
    }

    /// Load of a builtin variable (or one element of it, `index`) as type `rt`.
    pub(super) fn builtin_load(&mut self, b: BuiltIn, index: Option<u32>, rt: Word) -> Result<Val> {
        let comps = self.builtin_components(b)?;
        let (elem_ty, count) = match self.p.ty(rt)? {
            Type::Vector { elem, count } => (*elem, Some(*count as usize)),
            _ => (rt, None),
        };
        let t = super::clif_scalar(self.p, elem_ty)?;
        let fit = |s: &mut Self, v: Value| -> Value {
            if t.bits() < 64 {
                s.b.ins().ireduce(t, v)
            } else {
                v
            }
        };
        if let Some(i) = index {
            let v = *comps.get(i as usize).ok_or_else(|| {
                CompileError::Invalid(format!("builtin {b:?} has no component {i}"))
            })?;
            return Ok(Val::S(fit(self, v)));
        }
        match count {
            Some(n) => {
                let mut out = Vec::new();
                for i in 0..n {
                    let v = match comps.get(i) {
                        Some(v) => *v,
                        None => self.b.ins().iconst(types::I64, 0),
                    };
                    out.push(Val::S(fit(self, v)));
                }
                Ok(Val::C(out))
            }
            None => Ok(Val::S(fit(self, comps[0]))),
        }
    }
}
