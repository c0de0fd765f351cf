//! Decoded instructions: every instruction of a function body is decoded once, when the
//! module is lifted (`spirv::Program::parse`), into an [`Inst`]: the instruction as rspirv
//! parsed it, plus what other parts of the module say about its result folded in.
//!
//! Why: a SPIR-V decoration such as `FPRoundingMode` or `SaturatedConversion` changes what
//! an instruction computes, but it is written elsewhere in the module, keyed by the
//! instruction's result id. Code that copies instructions with fresh ids (inlining, the
//! split of a kernel at its barriers) used to lose it unless every reader remembered to
//! look decorations up through a map back to the original ids, and one that did not gave
//! `convert_int_rte(0.6f) == 0` in barrier kernels. An `Inst` carries those decorations
//! itself ([`Effects`]), so every copy of it computes the same thing, whatever its ids.
//!
//! Invariants of an `Inst` made by [`Inst::decode`]: the instruction has its result id and
//! result type where the SPIR-V grammar gives it one ([`CompileError::MissingResult`]
//! otherwise), and its operands are those rspirv parsed by the grammar. Instructions that
//! Ferrite's own rewrites create come from [`Inst::new`], with no decorations.
//!
//! This is the first layer of the typed IR that `docs/architecture.md` describes; the
//! translators still read the operands by position through [`std::ops::Deref`] to
//! rspirv's instruction.

use crate::CompileError;
use rspirv::dr::{Instruction, Operand};
use rspirv::grammar::OperandKind;
use rspirv::spirv::{Decoration, FPRoundingMode, MemoryAccess, Op, Word};
use std::collections::HashMap;

/// The decorations of a module: id → (decoration, its operands).
pub type Decorations = HashMap<Word, Vec<(Decoration, Vec<Operand>)>>;

/// What the module's decorations (and an access's memory operand) change about what an
/// instruction computes or how it touches memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Effects {
    /// `FPRoundingMode` on the result: the rounding of a conversion (`convert_T_rte`, …).
    pub rounding: Option<FPRoundingMode>,
    /// `SaturatedConversion` on the result (`convert_T_sat`).
    pub saturated: bool,
    /// A volatile access (`OpLoad`/`OpStore`): its memory operand says `Volatile`, or the
    /// pointer it goes through is decorated `Volatile`.
    pub volatile: bool,
}

impl Effects {
    /// Whether the instruction computes something other than its plain opcode.
    pub fn changes_result(&self) -> bool {
        self.rounding.is_some() || self.saturated
    }
}

/// One decoded instruction of a function body.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    raw: Instruction,
    pub effects: Effects,
}

impl Inst {
    /// Decode `raw`, a function-body instruction of a module whose decorations are
    /// `decorations`.
    pub fn decode(raw: Instruction, decorations: &Decorations) -> Result<Inst, CompileError> {
        let op = raw.class.opcode;
        let has = |kind| raw.class.operands.iter().any(|o| o.kind == kind);
        if has(OperandKind::IdResultType) && raw.result_type.is_none() {
            return Err(CompileError::MissingResult { op, what: "type" });
        }
        if has(OperandKind::IdResult) && raw.result_id.is_none() {
            return Err(CompileError::MissingResult { op, what: "id" });
        }
        let decs = |id: Option<Word>| id.and_then(|id| decorations.get(&id));
        let mut effects = Effects::default();
        for (d, ops) in decs(raw.result_id).into_iter().flatten() {
            match (d, ops.first()) {
                (Decoration::FPRoundingMode, Some(Operand::FPRoundingMode(m))) => {
                    effects.rounding = Some(*m)
                }
                (Decoration::SaturatedConversion, _) => effects.saturated = true,
                _ => {}
            }
        }
        // The memory operand follows the pointer (load) or the pointer and the object
        // (store).
        let memory_operand = match op {
            Op::Load => Some(1),
            Op::Store => Some(2),
            _ => None,
        };
        if let Some(first) = memory_operand {
            let by_operand = matches!(
                raw.operands.get(first),
                Some(Operand::MemoryAccess(m)) if m.contains(MemoryAccess::VOLATILE)
            );
            let ptr = match raw.operands.first() {
                Some(Operand::IdRef(p)) => Some(*p),
                _ => None,
            };
            let by_pointer = decs(ptr)
                .into_iter()
                .flatten()
                .any(|(d, _)| *d == Decoration::Volatile);
            effects.volatile = by_operand || by_pointer;
        }
        Ok(Inst { raw, effects })
    }

    /// An instruction Ferrite's own rewrites make: no decoration applies to it.
    pub fn new(
        op: Op,
        result_type: Option<Word>,
        result_id: Option<Word>,
        operands: Vec<Operand>,
    ) -> Inst {
        Inst {
            raw: Instruction::new(op, result_type, result_id, operands),
            effects: Effects::default(),
        }
    }

    pub fn op(&self) -> Op {
        self.raw.class.opcode
    }
}

impl std::ops::Deref for Inst {
    type Target = Instruction;

    fn deref(&self) -> &Instruction {
        &self.raw
    }
}

/// Renaming ids (inlining, splitting) edits the instruction in place; its [`Effects`] stay,
/// which is the point of folding them in.
impl std::ops::DerefMut for Inst {
    fn deref_mut(&mut self) -> &mut Instruction {
        &mut self.raw
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rspirv::spirv::StorageClass;

    fn decs(list: &[(Word, Decoration, Vec<Operand>)]) -> Decorations {
        let mut m = Decorations::new();
        for (id, d, ops) in list {
            m.entry(*id).or_default().push((*d, ops.clone()));
        }
        m
    }

    #[test]
    fn rounding_and_saturation_travel_with_the_instruction() {
        let d = decs(&[
            (
                10,
                Decoration::FPRoundingMode,
                vec![Operand::FPRoundingMode(FPRoundingMode::RTE)],
            ),
            (10, Decoration::SaturatedConversion, vec![]),
        ]);
        let raw = Instruction::new(Op::ConvertFToS, Some(1), Some(10), vec![Operand::IdRef(5)]);
        let mut inst = Inst::decode(raw, &d).unwrap();
        assert_eq!(inst.effects.rounding, Some(FPRoundingMode::RTE));
        assert!(inst.effects.saturated && inst.effects.changes_result());
        // An inliner gives the copy a fresh id: the decorations are still there.
        inst.result_id = Some(99);
        let copy = inst.clone();
        assert_eq!(copy.effects.rounding, Some(FPRoundingMode::RTE));
        assert!(copy.effects.saturated);
        // Without decorations: the plain conversion.
        let plain = Instruction::new(Op::ConvertFToS, Some(1), Some(11), vec![Operand::IdRef(5)]);
        let plain = Inst::decode(plain, &d).unwrap();
        assert_eq!(plain.effects, Effects::default());
        assert!(!plain.effects.changes_result());
    }

    #[test]
    fn volatile_by_operand_or_by_pointer() {
        let d = decs(&[(7, Decoration::Volatile, vec![])]);
        let load = |ptr: Word, ops: Vec<Operand>| {
            let mut operands = vec![Operand::IdRef(ptr)];
            operands.extend(ops);
            Inst::decode(Instruction::new(Op::Load, Some(1), Some(20), operands), &d).unwrap()
        };
        assert!(load(7, vec![]).effects.volatile);
        assert!(!load(8, vec![]).effects.volatile);
        assert!(
            load(8, vec![Operand::MemoryAccess(MemoryAccess::VOLATILE)])
                .effects
                .volatile
        );
        let store = Instruction::new(
            Op::Store,
            None,
            None,
            vec![
                Operand::IdRef(8),
                Operand::IdRef(9),
                Operand::MemoryAccess(MemoryAccess::VOLATILE | MemoryAccess::ALIGNED),
                Operand::LiteralBit32(4),
            ],
        );
        assert!(Inst::decode(store, &d).unwrap().effects.volatile);
        // A variable decorated Volatile is not itself an access.
        let var = Instruction::new(
            Op::Variable,
            Some(2),
            Some(7),
            vec![Operand::StorageClass(StorageClass::Function)],
        );
        assert!(!Inst::decode(var, &d).unwrap().effects.volatile);
    }

    #[test]
    fn a_result_the_grammar_requires_must_be_there() {
        let raw = Instruction::new(Op::IAdd, None, Some(3), vec![]);
        assert_eq!(
            Inst::decode(raw, &Decorations::new()),
            Err(CompileError::MissingResult {
                op: Op::IAdd,
                what: "type"
            })
        );
    }
}
