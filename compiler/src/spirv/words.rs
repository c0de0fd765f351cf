//! Word-level pre-pass over the binary, before rspirv sees it.
//!
//! Two jobs: turn the bytes into host-order words (either endianness, checked magic,
//! instruction lengths that stay inside the module), and hide arbitrary-width integer types
//! (`SPV_INTEL_arbitrary_precision_integers`, e.g. `OpTypeInt 2 0` from clang -O2) from
//! rspirv, whose literal parser only knows 8/16/32/64 bits. Such a type is rewritten to the
//! 32- or 64-bit type whose literals have the same word count, and its real width is
//! reported in [`Prepared::int_widths`] so the lifter can restore it.
//!
//! A third: rspirv 0.13 decodes the operands of `OpSpecConstantOp` as if each operand of
//! the inner operation occurred exactly once, so an access chain (`Indexes` is a variable
//! list: llvm-spirv's `PtrAccessChain %base %offset` has none) or a `CompositeExtract`
//! with other than one index fails to load. Those instructions are taken out here and
//! replaced by an `OpUndef` of the same type and id at the same place, and handed to the
//! lifter in [`Prepared::spec_ops`], which folds them as if rspirv had read them.
//!
//! A fourth: the alias-scope declarations of `SPV_INTEL_memory_access_aliasing`
//! (`OpAliasDomainDeclINTEL`, `OpAliasScopeDeclINTEL`, `OpAliasScopeListDeclINTEL`, which
//! DPC++ puts in every module it optimises) are module-level instructions rspirv's loader
//! does not place, so it rejects the module. They only say which accesses may not alias,
//! which Ferrite does not use, so they are dropped; the `AliasScopeINTEL`/`NoAliasINTEL`
//! memory operands and decorations that name them are read and ignored.
//!
//! A fifth: clang's own SPIR-V target (measured with clang-22) writes the null event that
//! `async_work_group_copy(…, 0)` takes as `OpConstantNull %event` followed by three more
//! copies of the type id, which the grammar does not allow (`spirv-val` rejects the
//! module). A null constant has no operands whatever follows, so they are dropped.

use crate::CompileError;
use std::collections::HashMap;

const MAGIC: u32 = 0x0723_0203;
const OP_TYPE_INT: u32 = 21;
const OP_UNDEF: u32 = 1;
const OP_SPEC_CONSTANT_OP: u32 = 52;
const OP_CONSTANT_NULL: u32 = 46;
/// `OpAliasDomainDeclINTEL`, `OpAliasScopeDeclINTEL`, `OpAliasScopeListDeclINTEL`.
const ALIAS_DECLS: [u32; 3] = [5911, 5912, 5913];
/// Inner operations of `OpSpecConstantOp` with a variable number of operands:
/// `CompositeExtract`, `AccessChain`, `InBoundsAccessChain`, `PtrAccessChain`,
/// `InBoundsPtrAccessChain`.
const VARIADIC_SPEC_OPS: [u32; 5] = [81, 65, 66, 67, 70];

/// An `OpSpecConstantOp` rspirv cannot decode, as its words.
#[derive(Clone, Debug)]
pub struct RawSpecOp {
    pub result_type: u32,
    /// The inner opcode.
    pub op: u32,
    /// The inner operation's operands (ids; `CompositeExtract`'s indexes are literals).
    pub operands: Vec<u32>,
}

/// Host-order words ready for `rspirv::dr::load_words`.
pub struct Prepared {
    pub words: Vec<u32>,
    /// Result id of each `OpTypeInt` whose width is not 8/16/32/64 → its real width.
    pub int_widths: HashMap<u32, u32>,
    /// Result id → the `OpSpecConstantOp` replaced by an `OpUndef` with that id.
    pub spec_ops: HashMap<u32, RawSpecOp>,
}

pub fn prepare(bytes: &[u8]) -> Result<Prepared, CompileError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(CompileError::Malformed(format!(
            "length {} is not a multiple of 4",
            bytes.len()
        )));
    }
    if bytes.len() < 20 {
        return Err(CompileError::Malformed(
            "shorter than a SPIR-V header".into(),
        ));
    }
    let first = [bytes[0], bytes[1], bytes[2], bytes[3]];
    let big = if u32::from_le_bytes(first) == MAGIC {
        false
    } else if u32::from_be_bytes(first) == MAGIC {
        true
    } else {
        return Err(CompileError::Malformed("bad magic number".into()));
    };
    let mut words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| {
            let b = [c[0], c[1], c[2], c[3]];
            if big {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        })
        .collect();
    // Version word: 0x00MMmm00. Ferrite reads SPIR-V 1.0 to 1.6.
    let version = words[1];
    let (major, minor) = ((version >> 16) & 0xff, (version >> 8) & 0xff);
    if major != 1 || minor > 6 || version & 0xff00_00ff != 0 {
        return Err(CompileError::Unsupported(format!(
            "SPIR-V version {major}.{minor} (Ferrite reads 1.0 to 1.6)"
        )));
    }
    let mut int_widths = HashMap::new();
    let mut spec_ops = HashMap::new();
    let mut out = Vec::with_capacity(words.len());
    out.extend_from_slice(&words[..5]);
    let mut i = 5;
    while i < words.len() {
        let count = (words[i] >> 16) as usize;
        let opcode = words[i] & 0xffff;
        if count == 0 || i + count > words.len() {
            return Err(CompileError::Malformed(format!(
                "instruction at word {i} runs past the end of the module"
            )));
        }
        if opcode == OP_TYPE_INT && count == 4 {
            let width = words[i + 2];
            if !matches!(width, 8 | 16 | 32 | 64) {
                if width == 0 || width > 64 {
                    return Err(CompileError::Unsupported(format!(
                        "{width}-bit integer type"
                    )));
                }
                int_widths.insert(words[i + 1], width);
                words[i + 2] = if width <= 32 { 32 } else { 64 };
            }
        }
        if opcode == OP_SPEC_CONSTANT_OP && count >= 5 && VARIADIC_SPEC_OPS.contains(&words[i + 3])
        {
            let (result_type, id) = (words[i + 1], words[i + 2]);
            spec_ops.insert(
                id,
                RawSpecOp {
                    result_type,
                    op: words[i + 3],
                    operands: words[i + 4..i + count].to_vec(),
                },
            );
            out.extend_from_slice(&[(3 << 16) | OP_UNDEF, result_type, id]);
        } else if ALIAS_DECLS.contains(&opcode) {
            // Dropped: see the module comment.
        } else if opcode == OP_CONSTANT_NULL && count > 3 {
            // Result type and id only: see the module comment.
            out.extend_from_slice(&[(3 << 16) | OP_CONSTANT_NULL, words[i + 1], words[i + 2]]);
        } else {
            out.extend_from_slice(&words[i..i + count]);
        }
        i += count;
    }
    Ok(Prepared {
        words: out,
        int_widths,
        spec_ops,
    })
}
