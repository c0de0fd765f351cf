//! Word-level pre-pass over the binary, before rspirv sees it.
//!
//! Two jobs: turn the bytes into host-order words (either endianness, checked magic,
//! instruction lengths that stay inside the module), and hide arbitrary-width integer types
//! (`SPV_INTEL_arbitrary_precision_integers`, e.g. `OpTypeInt 2 0` from clang -O2) from
//! rspirv, whose literal parser only knows 8/16/32/64 bits. Such a type is rewritten to the
//! 32- or 64-bit type whose literals have the same word count, and its real width is
//! reported in [`Prepared::int_widths`] so the lifter can restore it.

use crate::CompileError;
use std::collections::HashMap;

const MAGIC: u32 = 0x0723_0203;
const OP_TYPE_INT: u32 = 21;

/// Host-order words ready for `rspirv::dr::load_words`.
pub struct Prepared {
    pub words: Vec<u32>,
    /// Result id of each `OpTypeInt` whose width is not 8/16/32/64 → its real width.
    pub int_widths: HashMap<u32, u32>,
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
        i += count;
    }
    Ok(Prepared { words, int_widths })
}
