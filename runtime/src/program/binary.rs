//! Ferrite's program binaries (`CL_PROGRAM_BINARIES`, `clCreateProgramWithBinary`).
//!
//! A binary is a small header and a SPIR-V module:
//!
//! ```text
//! "FERRITE\0"  u32 format (1)  u32 binary type  u32 flags  u32 reserved  SPIR-V words…
//! ```
//!
//! all little-endian. The binary type says what the module is (a compiled object, a
//! library, or the module of an executable); `flags` bit 0 records `-cl-kernel-arg-info`,
//! bit 1 uniform work-groups. A bare SPIR-V module is also accepted and read as the module
//! of an executable. Anything else is an invalid binary.
//!
//! `clCreateProgramWithBinary` must answer `CL_INVALID_BINARY` at creation, so the module is
//! checked here as far as that is cheap ([`check_spirv`]): its header, that every
//! instruction's word count stays inside it, and that it ends where a module can end (every
//! function closed, every entry point's function present), so a binary cut short anywhere
//! is refused.

use super::{looks_like_spirv, BinaryType};
use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"FERRITE\0";
const SPIRV_MAGIC: u32 = 0x0723_0203;
const OP_MEMORY_MODEL: u32 = 14;
const OP_ENTRY_POINT: u32 = 15;
const OP_FUNCTION: u32 = 54;
const OP_FUNCTION_END: u32 = 56;
const FORMAT: u32 = 1;
const HEADER: usize = 24;

/// What a binary holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramBinary {
    pub binary_type: BinaryType,
    pub kernel_arg_info: bool,
    pub uniform_work_groups: bool,
    pub spirv: Vec<u8>,
}

fn type_code(t: BinaryType) -> u32 {
    match t {
        BinaryType::None => 0,
        BinaryType::CompiledObject => 1,
        BinaryType::Library => 2,
        BinaryType::Executable => 3,
    }
}

impl ProgramBinary {
    /// The bytes `CL_PROGRAM_BINARIES` returns.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + self.spirv.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT.to_le_bytes());
        out.extend_from_slice(&type_code(self.binary_type).to_le_bytes());
        let flags = u32::from(self.kernel_arg_info) | (u32::from(self.uniform_work_groups) << 1);
        out.extend_from_slice(&flags.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&self.spirv);
        out
    }

    /// Read a binary given to `clCreateProgramWithBinary`.
    pub fn decode(bytes: &[u8]) -> Result<ProgramBinary> {
        if !bytes.starts_with(MAGIC) {
            if looks_like_spirv(bytes) {
                check_spirv(bytes).map_err(Error::InvalidBinary)?;
                return Ok(ProgramBinary {
                    binary_type: BinaryType::Executable,
                    kernel_arg_info: false,
                    uniform_work_groups: false,
                    spirv: bytes.to_vec(),
                });
            }
            return Err(Error::InvalidBinary(
                "neither a Ferrite binary nor a SPIR-V module".into(),
            ));
        }
        if bytes.len() < HEADER {
            return Err(Error::InvalidBinary("truncated header".into()));
        }
        let word =
            |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        if word(8) != FORMAT {
            return Err(Error::InvalidBinary(format!(
                "binary format {} (this Ferrite reads {FORMAT})",
                word(8)
            )));
        }
        let binary_type = match word(12) {
            1 => BinaryType::CompiledObject,
            2 => BinaryType::Library,
            3 => BinaryType::Executable,
            t => return Err(Error::InvalidBinary(format!("unknown binary type {t}"))),
        };
        let spirv = bytes[HEADER..].to_vec();
        if !looks_like_spirv(&spirv) {
            return Err(Error::InvalidBinary(
                "no SPIR-V module after the header".into(),
            ));
        }
        check_spirv(&spirv).map_err(Error::InvalidBinary)?;
        Ok(ProgramBinary {
            binary_type,
            kernel_arg_info: word(16) & 1 != 0,
            uniform_work_groups: word(16) & 2 != 0,
            spirv,
        })
    }
}

/// Checks that `bytes` hold a whole SPIR-V module, as far as its structure goes: the header
/// (magic in either byte order, version 1.0 to 1.6, a non-zero id bound, schema 0), every
/// instruction's word count at least 1 and inside the module, one `OpMemoryModel`, every
/// `OpFunction` closed by an `OpFunctionEnd`, and every `OpEntryPoint`'s function defined.
/// The message says what is wrong, for the build log and the binary status.
pub fn check_spirv(bytes: &[u8]) -> std::result::Result<(), String> {
    if bytes.len() < 20 {
        return Err(format!(
            "a SPIR-V module of {} bytes is shorter than its 20-byte header",
            bytes.len()
        ));
    }
    if !bytes.len().is_multiple_of(4) {
        return Err(format!(
            "a SPIR-V module of {} bytes is not a whole number of words",
            bytes.len()
        ));
    }
    let first = [bytes[0], bytes[1], bytes[2], bytes[3]];
    let big = if u32::from_le_bytes(first) == SPIRV_MAGIC {
        false
    } else if u32::from_be_bytes(first) == SPIRV_MAGIC {
        true
    } else {
        return Err("bad SPIR-V magic number".into());
    };
    let words: Vec<u32> = bytes
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
    let version = words[1];
    let (major, minor) = ((version >> 16) & 0xff, (version >> 8) & 0xff);
    if major != 1 || minor > 6 || version & 0xff00_00ff != 0 {
        return Err(format!("SPIR-V version word {version:#010x}"));
    }
    if words[3] == 0 {
        return Err("SPIR-V id bound 0".into());
    }
    if words[4] != 0 {
        return Err(format!("SPIR-V schema {} (must be 0)", words[4]));
    }
    let mut memory_models = 0;
    let mut open_function = false;
    let mut entry_points = Vec::new();
    let mut functions = std::collections::HashSet::new();
    let mut i = 5;
    while i < words.len() {
        let count = (words[i] >> 16) as usize;
        let opcode = words[i] & 0xffff;
        if count == 0 {
            return Err(format!("instruction at word {i} has a word count of 0"));
        }
        if count > words.len() - i {
            return Err(format!(
                "instruction at word {i} (opcode {opcode}, {count} words) runs past the end of \
                 the module ({} words): the binary is truncated",
                words.len()
            ));
        }
        match opcode {
            OP_MEMORY_MODEL => memory_models += 1,
            OP_ENTRY_POINT if count >= 3 => entry_points.push(words[i + 2]),
            OP_FUNCTION if count >= 3 => {
                if open_function {
                    return Err(format!("OpFunction at word {i} inside another function"));
                }
                open_function = true;
                functions.insert(words[i + 2]);
            }
            OP_FUNCTION_END => {
                if !open_function {
                    return Err(format!("OpFunctionEnd at word {i} outside a function"));
                }
                open_function = false;
            }
            _ => {}
        }
        i += count;
    }
    if memory_models != 1 {
        return Err(format!(
            "{memory_models} OpMemoryModel instructions (a module has exactly one): the \
             binary is truncated or not a module"
        ));
    }
    if open_function {
        return Err("the last function has no OpFunctionEnd: the binary is truncated".into());
    }
    if let Some(id) = entry_points.iter().find(|id| !functions.contains(id)) {
        return Err(format!(
            "the function %{id} of an entry point is not in the module: the binary is truncated"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_rejects() {
        let spirv = minimal_module();
        let b = ProgramBinary {
            binary_type: BinaryType::Library,
            kernel_arg_info: true,
            uniform_work_groups: false,
            spirv: spirv.clone(),
        };
        assert_eq!(ProgramBinary::decode(&b.encode()).unwrap(), b);
        let bare = ProgramBinary::decode(&spirv).unwrap();
        assert_eq!(bare.binary_type, BinaryType::Executable);
        assert!(ProgramBinary::decode(b"garbage garbage garbage").is_err());
        assert!(ProgramBinary::decode(&b.encode()[..30]).is_err());
        assert!(ProgramBinary::decode(&b.encode()[..36]).is_err());
        let mut bad = b.encode();
        bad[12] = 9;
        assert!(ProgramBinary::decode(&bad).is_err());
    }

    /// Header (SPIR-V 1.0, bound 4), `OpMemoryModel Physical64 OpenCL`, an entry point
    /// naming function %1, and %1 itself (`OpFunction %2 %1 None %3` … `OpFunctionEnd`).
    fn minimal_module() -> Vec<u8> {
        let words: [u32; 17] = [
            0x0723_0203,
            0x0001_0000,
            0,
            4,
            0,
            0x0003_000E,
            2,
            2,
            0x0004_000F,
            6,
            1,
            0x0000_006B, // "k\0\0\0"
            0x0005_0036,
            2,
            1,
            0,
            3,
        ];
        let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.extend_from_slice(&0x0001_0038u32.to_le_bytes());
        bytes
    }

    #[test]
    fn truncated_modules_are_refused() {
        let m = minimal_module();
        assert_eq!(check_spirv(&m), Ok(()));
        // Cut at every word: each prefix is refused (the header, an instruction cut in the
        // middle, a function without its end, an entry point without its function), except
        // the header and memory model alone, which are a whole (empty) module.
        for words in 0..m.len() / 4 {
            let got = check_spirv(&m[..words * 4]);
            assert_eq!(got.is_ok(), words == 8, "{words} words: {got:?}");
        }
        // Not a whole number of words.
        assert!(check_spirv(&m[..m.len() - 1]).is_err());
        // Big-endian is read too.
        let be: Vec<u8> = m
            .chunks_exact(4)
            .flat_map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]).to_be_bytes())
            .collect();
        assert_eq!(check_spirv(&be), Ok(()));
    }
}
