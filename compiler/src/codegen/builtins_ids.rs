//! Work-item builtins (`Input` variables decorated `BuiltIn`): answered from the calling
//! work-item's record and the group's [`GroupContext`], or, in inline mode
//! ([`super::Inline`]), from the loop counters and the fields loaded before the loop.
//!
//! The work-item record is built by the work-group function (`workgroup.rs`) on its stack
//! and passed to every function as the hidden last parameter:
//! `{ ctx: *const GroupContext, local_id: [u64; 3], global_id: [u64; 3], stack_top,
//! frame_lo, frame_hi }`.

use super::{trusted, FnTx, Result, Val};
use crate::spirv::Type;
use crate::{CompileError, GroupContext};
use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value};
use rspirv::spirv::{BuiltIn, Word};

/// Offset of the `*const GroupContext` in the work-item record.
pub const WI_CTX: i32 = 0;
/// Offset of `local_id[3]`.
pub const WI_LID: i32 = 8;
/// Offset of `global_id[3]`.
pub const WI_GID: i32 = 32;
/// The work-group function's frame pointer: the top of every work-item's private stack
/// memory, the work-group function's own stack slots included (where a kernel translated
/// inside it keeps its private variables). `to_private` asks whether a generic pointer lies
/// between it and the current stack pointer.
pub const WI_STACK: i32 = 56;
/// `[lo, hi)` of the group's frame arena (private variables of a kernel with barriers
/// live there); both 0 for a kernel without boundaries.
pub const WI_FRAME_LO: i32 = 64;
pub const WI_FRAME_HI: i32 = 72;
/// Size of the work-item record.
pub const WI_SIZE: u32 = 80;

impl FnTx<'_, '_, '_> {
    /// A field of the work-item record; in an inlined kernel body the ids are the loop
    /// counters' SSA values instead.
    pub(super) fn wi_load(&mut self, off: i32) -> Value {
        if let Some(il) = &self.inline {
            let d = |base: i32| usize::try_from((off - base) / 8).ok().filter(|d| *d < 3);
            if let Some(d) = d(WI_LID).filter(|_| off < WI_GID) {
                return il.lid[d];
            }
            if let Some(d) = d(WI_GID).filter(|_| off < WI_STACK) {
                return il.gid[d];
            }
        }
        self.b.ins().load(types::I64, trusted(), self.wi, off)
    }

    /// A `GroupContext` field; in an inlined kernel body, the value loaded before the loop.
    fn ctx_load(&mut self, off: i32) -> Value {
        if let Some(v) = self.inline.as_ref().and_then(|il| {
            usize::try_from(off / 8)
                .ok()
                .and_then(|i| il.ctx_vals.get(i))
        }) {
            return *v;
        }
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
        // The kernel's sub-group size, as the `i64` immediates want it.
        let sgs = i64::from(self.env.sub_group_size);
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
            BuiltIn::LocalInvocationIndex => vec![self.linear_local_id()],
            BuiltIn::SubgroupLocalInvocationId => {
                let l = self.linear_local_id();
                vec![self.b.ins().band_imm_s(l, sgs - 1)]
            }
            BuiltIn::SubgroupId => {
                let l = self.linear_local_id();
                vec![self.b.ins().ushr_imm_s(l, sgs.trailing_zeros() as i64)]
            }
            BuiltIn::SubgroupSize => {
                let l = self.linear_local_id();
                let n = self.group_items(GroupContext::OFFSET_LOCAL_SIZE);
                let base = self.b.ins().band_imm_s(l, !(sgs - 1));
                let left = self.b.ins().isub(n, base);
                let max = self.b.ins().iconst(types::I64, sgs);
                vec![self.b.ins().umin(left, max)]
            }
            // The sub-group width, whatever the group's size (a group of fewer work-items
            // has one shorter sub-group; `CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE` agrees).
            BuiltIn::SubgroupMaxSize => vec![self.b.ins().iconst(types::I64, sgs)],
            BuiltIn::NumSubgroups | BuiltIn::NumEnqueuedSubgroups => {
                let off = if b == BuiltIn::NumSubgroups {
                    GroupContext::OFFSET_LOCAL_SIZE
                } else {
                    GroupContext::OFFSET_ENQUEUED_LOCAL_SIZE
                };
                let n = self.group_items(off);
                let n = self.b.ins().iadd_imm_s(n, sgs - 1);
                vec![self.b.ins().ushr_imm_s(n, sgs.trailing_zeros() as i64)]
            }
            BuiltIn::SubgroupEqMask
            | BuiltIn::SubgroupGeMask
            | BuiltIn::SubgroupGtMask
            | BuiltIn::SubgroupLeMask
            | BuiltIn::SubgroupLtMask => {
                // Bits of the sub-group's lanes only (below the maximum sub-group size).
                let l = self.linear_local_id();
                let lid = self.b.ins().band_imm_s(l, sgs - 1);
                let one = self.b.ins().iconst(types::I64, 1);
                let own = self.b.ins().ishl(one, lid);
                let below = self.b.ins().iadd_imm_s(own, -1);
                let lanes = self.b.ins().iconst(types::I64, (1i64 << sgs) - 1);
                let m = match b {
                    BuiltIn::SubgroupEqMask => own,
                    BuiltIn::SubgroupLtMask => below,
                    BuiltIn::SubgroupLeMask => self.b.ins().bor(below, own),
                    BuiltIn::SubgroupGeMask => self.b.ins().band_not(lanes, below),
                    _ => {
                        let le = self.b.ins().bor(below, own);
                        self.b.ins().band_not(lanes, le)
                    }
                };
                let z = self.b.ins().iconst(types::I64, 0);
                vec![m, z, z, z]
            }
            b => {
                return Err(CompileError::Unsupported(format!("builtin variable {b:?}")));
            }
        })
    }

    /// The work-item's linear local id.
    pub(super) fn linear_local_id(&mut self) -> Value {
        let l = [
            self.wi_load(WI_LID),
            self.wi_load(WI_LID + 8),
            self.wi_load(WI_LID + 16),
        ];
        let s = self.ctx3(GroupContext::OFFSET_LOCAL_SIZE);
        let t = self.b.ins().imul(l[2], s[1]);
        let t = self.b.ins().iadd(t, l[1]);
        let t = self.b.ins().imul(t, s[0]);
        self.b.ins().iadd(t, l[0])
    }

    /// The product of the three components of a size in the [`GroupContext`].
    fn group_items(&mut self, off: i32) -> Value {
        let s = self.ctx3(off);
        let t = self.b.ins().imul(s[0], s[1]);
        self.b.ins().imul(t, s[2])
    }

    /// Element `idx` (a SPIR-V integer of any width) of `comps`, a builtin's components,
    /// or the builtin's [`out_of_range_value`] when `idx` is not below their number.
    pub(super) fn builtin_element(&mut self, b: BuiltIn, comps: &[Value], idx: Value) -> Value {
        let t = match comps.first() {
            Some(v) => self.b.func.dfg.value_type(*v),
            None => types::I64,
        };
        let mut r = self.b.ins().iconst(t, out_of_range_value(b));
        for (i, x) in comps.iter().enumerate() {
            let is = self.b.ins().icmp_imm_u(IntCC::Equal, idx, i as i64);
            r = self.b.ins().select(is, *x, r);
        }
        r
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
            let v = match comps.get(i as usize) {
                Some(v) => *v,
                None => self.b.ins().iconst(types::I64, out_of_range_value(b)),
            };
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

/// What a work-item function returns for a dimension index past the last one (OpenCL C
/// 6.15.1: "For other values of dimindx, get_global_size() returns 1", likewise
/// `get_local_size`, `get_enqueued_local_size`, `get_num_groups`; the ids and
/// `get_global_offset` return 0). Dimensions between `get_work_dim()` and 2 already hold
/// these values in the [`GroupContext`]; the index can only pass 2 through a constant or a
/// dynamic index into the builtin vector, which clang and llvm-spirv pass on unchecked
/// (`OpCompositeExtract %v3 4`, `OpVectorExtractDynamic` with the caller's index).
pub(super) fn out_of_range_value(b: BuiltIn) -> i64 {
    match b {
        BuiltIn::GlobalSize
        | BuiltIn::WorkgroupSize
        | BuiltIn::EnqueuedWorkgroupSize
        | BuiltIn::NumWorkgroups => 1,
        _ => 0,
    }
}
