//! Builtin variables read through pointer casts. DPC++ (SYCL) declares the work-item ids
//! as `CrossWorkgroup` vectors and reads their components through casts and byte offsets:
//!
//! ```text
//! %p = OpBitcast %_ptr_CrossWorkgroup_ulong %__spirv_BuiltInGlobalInvocationId
//! %x = OpLoad %ulong %p                                  ; component 0
//! %b = OpBitcast %_ptr_CrossWorkgroup_uchar %__spirv_BuiltInWorkgroupId
//! %o = OpInBoundsPtrAccessChain %_ptr_CrossWorkgroup_uchar %b %ulong_8
//! %q = OpBitcast %_ptr_CrossWorkgroup_ulong %o
//! %y = OpLoad %ulong %q                                  ; component 1
//! ```
//!
//! A builtin variable has no memory: its loads are answered from the work-item's record.
//! So, when the module is lifted, each such load of a whole component becomes the form
//! every later stage knows — a load of the whole variable and an `OpCompositeExtract` —
//! and the casts and offsets leading to it are dropped. In a function where such a pointer
//! is put to any other use, nothing is rewritten, and codegen rejects the use with an
//! error (`codegen.rs`, `val`) rather than read memory that is not there.

use super::{op_id, Function, Program, Type};
use crate::ir::Inst;
use crate::layout::layout;
use crate::CompileError;
use rspirv::dr::Operand;
use rspirv::spirv::{Op, Word};
use std::collections::HashMap;

/// A pointer into a builtin vector: the variable, the byte offset, the pointee type.
#[derive(Clone, Copy)]
struct Within {
    var: Word,
    offset: u64,
    pointee: Word,
}

/// What to do with one instruction of a function whose builtin pointers all resolve.
enum Edit {
    Drop,
    /// Load component `index` of `var` (vector type `vec_ty`).
    Component {
        var: Word,
        vec_ty: Word,
        index: u32,
    },
}

impl Program {
    /// Rewrite the loads described above; `next` is the first unused id, and the first
    /// unused id after the rewrite is returned.
    pub(super) fn lower_builtin_casts(&mut self, mut next: Word) -> Result<Word, CompileError> {
        let ids: Vec<Word> = self.functions.keys().copied().collect();
        for fid in ids {
            let Some(edits) = self.functions.get(&fid).and_then(|f| self.builtin_edits(f)) else {
                continue;
            };
            let Some(f) = self.functions.get_mut(&fid) else {
                continue;
            };
            for b in &mut f.blocks {
                let mut out = Vec::with_capacity(b.insts.len());
                for inst in std::mem::take(&mut b.insts) {
                    match inst.result_id.and_then(|r| edits.get(&r)) {
                        None => out.push(inst),
                        Some(Edit::Drop) => {}
                        Some(&Edit::Component { var, vec_ty, index }) => {
                            let whole = next;
                            next = next
                                .checked_add(1)
                                .ok_or_else(|| CompileError::Invalid("id bound overflow".into()))?;
                            out.push(Inst::new(
                                Op::Load,
                                Some(vec_ty),
                                Some(whole),
                                vec![Operand::IdRef(var)],
                            ));
                            out.push(Inst::new(
                                Op::CompositeExtract,
                                inst.result_type,
                                inst.result_id,
                                vec![Operand::IdRef(whole), Operand::LiteralBit32(index)],
                            ));
                        }
                    }
                }
                b.insts = out;
            }
        }
        Ok(next)
    }

    /// The edits for `f` by result id, or `None` when it has no pointer cast from a
    /// builtin or one of them is used in a way not rewritten.
    fn builtin_edits(&self, f: &Function) -> Option<HashMap<Word, Edit>> {
        let mut within: HashMap<Word, Within> = HashMap::new();
        let mut edits = HashMap::new();
        // Blocks are in dominance order, so a pointer is seen before its uses, except by a
        // phi (checked after the loop).
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            let base = |i: usize| -> Option<Within> {
                let id = op_id(inst, i).ok()?;
                if let Some(t) = within.get(&id) {
                    return Some(*t);
                }
                let g = self.globals.get(&id).filter(|g| g.builtin.is_some())?;
                Some(Within {
                    var: id,
                    offset: 0,
                    pointee: g.pointee,
                })
            };
            let pointee_of = |ty: Option<Word>| match ty.map(|t| self.ty(t)) {
                Some(Ok(Type::Pointer { pointee, .. })) => Some(*pointee),
                _ => None,
            };
            let derived = match inst.class.opcode {
                Op::Bitcast => base(0).map(|b| (b, 0)),
                Op::PtrAccessChain | Op::InBoundsPtrAccessChain if inst.operands.len() == 2 => {
                    match base(0) {
                        Some(b) => {
                            let k = self.const_u64(op_id(inst, 1).ok()?).ok()?;
                            let size = layout(self, b.pointee).ok()?.size;
                            Some((b, k.checked_mul(size)?))
                        }
                        None => None,
                    }
                }
                _ => None,
            };
            if let Some((b, add)) = derived {
                let r = inst.result_id?;
                within.insert(
                    r,
                    Within {
                        var: b.var,
                        offset: b.offset.checked_add(add)?,
                        pointee: pointee_of(inst.result_type)?,
                    },
                );
                edits.insert(r, Edit::Drop);
                continue;
            }
            let uses_cast = inst
                .operands
                .iter()
                .any(|o| matches!(o, Operand::IdRef(id) if within.contains_key(id)));
            if !uses_cast {
                continue;
            }
            // The one other use rewritten: a load of a whole component.
            let p = within
                .get(&op_id(inst, 0).ok()?)
                .filter(|_| inst.class.opcode == Op::Load)?;
            let vec_ty = self.globals.get(&p.var)?.pointee;
            let Ok(Type::Vector { elem, count }) = self.ty(vec_ty) else {
                return None;
            };
            let size = layout(self, *elem).ok()?.size;
            let index = p.offset / size;
            if inst.result_type != Some(*elem) || p.offset % size != 0 || index >= u64::from(*count)
            {
                return None;
            }
            edits.insert(
                inst.result_id?,
                Edit::Component {
                    var: p.var,
                    vec_ty,
                    index: index as u32,
                },
            );
        }
        if within.is_empty() {
            return None;
        }
        // Uses before their definition in block order (an `OpPhi` on a loop's back edge)
        // escaped the checks above: any instruction left as it is that names a dropped
        // pointer makes the function stay as it is.
        let escapes = f.blocks.iter().flat_map(|b| &b.insts).any(|inst| {
            !inst.result_id.is_some_and(|r| edits.contains_key(&r))
                && inst
                    .operands
                    .iter()
                    .any(|o| matches!(o, Operand::IdRef(id) if within.contains_key(id)))
        });
        (!escapes).then_some(edits)
    }
}
