//! OpenCL C built-ins that llvm-spirv-15 leaves as calls to imported functions although a
//! SPIR-V instruction means exactly them: each such call is rewritten into that instruction
//! when the module is lifted, so everything after (region splitting, inlining, codegen)
//! sees an ordinary instruction.
//!
//! The packed integer dot products of `cl_khr_integer_dot_product`
//! (`dot_4x8packed_{uu_uint,ss_int,us_int,su_int}` and `dot_acc_sat_4x8packed_…`) become
//! `OpUDot`/`OpSDot`/`OpSUDot` (`…AccSat`) with `PackedVectorFormat4x8Bit`; `us` (unsigned
//! first, signed second) swaps its operands into `OpSUDot`, which takes the signed first.

use super::Program;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, PackedVectorFormat};

/// The instruction a packed dot-product function stands for, from its Itanium-mangled
/// linkage name: `(opcode, swap the two operands)`.
fn packed_dot(linkage_name: &str) -> Option<(Op, bool)> {
    // `_Z<len><identifier><parameter codes>`.
    let rest = linkage_name.strip_prefix("_Z")?;
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    let ident = rest.get(digits..digits + len)?;
    let (acc, tail) = match ident.strip_prefix("dot_acc_sat_4x8packed_") {
        Some(t) => (true, t),
        None => (false, ident.strip_prefix("dot_4x8packed_")?),
    };
    let (plain, sat, swap) = match tail {
        "uu_uint" => (Op::UDot, Op::UDotAccSat, false),
        "ss_int" => (Op::SDot, Op::SDotAccSat, false),
        "su_int" => (Op::SUDot, Op::SUDotAccSat, false),
        "us_int" => (Op::SUDot, Op::SUDotAccSat, true),
        _ => return None,
    };
    Some((if acc { sat } else { plain }, swap))
}

impl Program {
    /// Rewrite every call to a bodiless import that names one of the functions above.
    pub(super) fn lower_library_calls(&mut self) {
        let library: std::collections::HashMap<_, _> = self
            .functions
            .iter()
            .filter(|(_, f)| f.blocks.is_empty())
            .filter_map(|(id, _)| Some((*id, packed_dot(&self.linkage_name(*id)?)?)))
            .collect();
        if library.is_empty() {
            return;
        }
        for f in self.functions.values_mut() {
            for b in &mut f.blocks {
                for inst in &mut b.insts {
                    if inst.class.opcode != Op::FunctionCall {
                        continue;
                    }
                    let Some(Operand::IdRef(callee)) = inst.operands.first() else {
                        continue;
                    };
                    let Some(&(op, swap)) = library.get(callee) else {
                        continue;
                    };
                    let mut args = inst.operands[1..].to_vec();
                    if swap && args.len() >= 2 {
                        args.swap(0, 1);
                    }
                    args.push(Operand::PackedVectorFormat(
                        PackedVectorFormat::PackedVectorFormat4x8Bit,
                    ));
                    **inst = Instruction::new(op, inst.result_type, inst.result_id, args);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            packed_dot("_Z21dot_4x8packed_uu_uintjj"),
            Some((Op::UDot, false))
        );
        assert_eq!(
            packed_dot("_Z28dot_acc_sat_4x8packed_us_intjji"),
            Some((Op::SUDotAccSat, true))
        );
        assert_eq!(packed_dot("_Z3dotDv4_hS_"), None);
        assert_eq!(packed_dot("_Z99dot"), None);
        assert_eq!(packed_dot("dot_4x8packed_uu_uint"), None);
    }
}
