//! `OpAny` / `OpAll` of integers, as clang's own SPIR-V target writes OpenCL C's `any` and
//! `all` (measured: clang-22 maps `_Z3anyDv2_l` to `OpAny %bool %v2ulong`). SPIR-V's
//! `OpAny` takes a vector of booleans, so that is invalid; OpenCL C's `any(x)` of an
//! integer vector is "the most significant bit of some component is set". Each such
//! instruction is given its booleans first: `OpSLessThan %x %0` (the top bit is the sign),
//! so everything after sees the SPIR-V llvm-spirv writes for the same source.

use super::{Constant, Program, Type};
use crate::ir::Inst;
use rspirv::dr::Operand;
use rspirv::spirv::{Op, Word};
use std::collections::HashMap;

impl Program {
    /// Rewrite every `OpAny`/`OpAll` whose operand is of an integer type. `next` is the
    /// first free id; returns the next one after those used.
    pub(super) fn lower_integer_any_all(&mut self, mut next: Word) -> Word {
        let mut fids: Vec<Word> = self.functions.keys().copied().collect();
        fids.sort_unstable();
        let mut bool_types: HashMap<u32, Word> = HashMap::new();
        let mut zeros: HashMap<Word, Word> = HashMap::new();
        for fid in fids {
            let Some(mut f) = self.functions.remove(&fid) else {
                continue;
            };
            let local = f.value_types();
            for b in &mut f.blocks {
                let found: Vec<Option<(Word, Word, u32)>> = b
                    .insts
                    .iter()
                    .map(|i| self.integer_any_all(i, &local))
                    .collect();
                if found.iter().all(Option::is_none) {
                    continue;
                }
                let mut out = Vec::with_capacity(b.insts.len() + 1);
                for (inst, found) in std::mem::take(&mut b.insts).into_iter().zip(found) {
                    let Some((x, ty, count)) = found else {
                        out.push(inst);
                        continue;
                    };
                    let mut fresh = || {
                        next = next.saturating_add(1);
                        next - 1
                    };
                    let bools = *bool_types
                        .entry(count)
                        .or_insert_with(|| self.bool_type(count, &mut fresh));
                    let zero = *zeros.entry(ty).or_insert_with(|| {
                        let id = fresh();
                        self.constants.insert(id, Constant::Null { ty });
                        id
                    });
                    let signs = fresh();
                    out.push(Inst::new(
                        Op::SLessThan,
                        Some(bools),
                        Some(signs),
                        vec![Operand::IdRef(x), Operand::IdRef(zero)],
                    ));
                    out.push(Inst::new(
                        inst.op(),
                        inst.result_type,
                        inst.result_id,
                        vec![Operand::IdRef(signs)],
                    ));
                }
                b.insts = out;
            }
            self.functions.insert(fid, f);
        }
        next
    }

    /// For an `OpAny`/`OpAll` of an integer scalar or vector: its operand, the operand's
    /// type and component count (`local`: the function's value types).
    fn integer_any_all(&self, i: &Inst, local: &HashMap<Word, Word>) -> Option<(Word, Word, u32)> {
        if !matches!(i.op(), Op::Any | Op::All) {
            return None;
        }
        let Some(Operand::IdRef(x)) = i.operands.first() else {
            return None;
        };
        let ty = match local.get(x) {
            Some(t) => *t,
            None => self.constants.get(x)?.ty(),
        };
        let count = match self.ty(ty).ok()? {
            Type::Int { .. } => 1,
            Type::Vector { elem, count } => {
                matches!(self.ty(*elem), Ok(Type::Int { .. })).then_some(*count)?
            }
            _ => return None,
        };
        Some((*x, ty, count))
    }

    /// The id of `bool` (`count` 1) or of a vector of `count` booleans, made with an id
    /// from `fresh` where the module has none.
    fn bool_type(&mut self, count: u32, fresh: &mut impl FnMut() -> Word) -> Word {
        let scalar = self.type_id_or_add(Type::Bool, &mut *fresh);
        if count == 1 {
            return scalar;
        }
        self.type_id_or_add(
            Type::Vector {
                elem: scalar,
                count,
            },
            fresh,
        )
    }
}
