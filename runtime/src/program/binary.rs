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

use super::{looks_like_spirv, BinaryType};
use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"FERRITE\0";
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
        Ok(ProgramBinary {
            binary_type,
            kernel_arg_info: word(16) & 1 != 0,
            uniform_work_groups: word(16) & 2 != 0,
            spirv,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_rejects() {
        let mut spirv = vec![0u8; 20];
        spirv[..4].copy_from_slice(&0x0723_0203u32.to_le_bytes());
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
        let mut bad = b.encode();
        bad[12] = 9;
        assert!(ProgramBinary::decode(&bad).is_err());
    }
}
