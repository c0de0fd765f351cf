//! Errors of the compiler. Every variant carries enough context to be one readable line
//! in `CL_PROGRAM_BUILD_LOG` / a Level-Zero build log.

use rspirv::spirv::Op;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileError {
    /// The bytes are not a SPIR-V module (bad magic, truncated, not a multiple of 4).
    Malformed(String),
    /// A capability the module declares that Ferrite does not implement.
    UnsupportedCapability(String),
    /// An instruction Ferrite does not implement; `opcode` is its SPIR-V name.
    UnsupportedOpcode { opcode: String, function: String },
    /// Anything else the module asks for that we cannot do (named in the message).
    Unsupported(String),
    /// An id that is used but not defined, or defined with the wrong kind.
    InvalidId { id: u32, expected: &'static str },
    /// An instruction lacks the result id or result type its opcode has (`what`).
    MissingResult { op: Op, what: &'static str },
    /// Operand `index` of an instruction is missing or not of the kind the reader needs
    /// (`want`: "id", "literal", "string").
    Operand {
        op: Op,
        index: usize,
        want: &'static str,
    },
    /// The module is well formed but breaks a rule of the SPIR-V / OpenCL environment.
    Invalid(String),
    /// No kernel with this name in the module.
    NoSuchKernel(String),
    /// Cranelift refused the generated code (a Ferrite bug: the message has the CLIF).
    Codegen(String),
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::Malformed(m) => write!(f, "malformed SPIR-V: {m}"),
            CompileError::UnsupportedCapability(c) => {
                write!(f, "unsupported SPIR-V capability {c}")
            }
            CompileError::UnsupportedOpcode { opcode, function } => {
                write!(
                    f,
                    "unsupported SPIR-V instruction Op{opcode} in function {function}"
                )
            }
            CompileError::Unsupported(m) => write!(f, "unsupported: {m}"),
            CompileError::InvalidId { id, expected } => {
                write!(f, "invalid SPIR-V: id %{id} is not a {expected}")
            }
            CompileError::MissingResult { op, what } => {
                write!(f, "invalid SPIR-V: Op{op:?} without a result {what}")
            }
            CompileError::Operand { op, index, want } => {
                write!(
                    f,
                    "invalid SPIR-V: Op{op:?}: operand {index} is not a {want}"
                )
            }
            CompileError::Invalid(m) => write!(f, "invalid SPIR-V: {m}"),
            CompileError::NoSuchKernel(n) => write!(f, "no kernel named {n}"),
            CompileError::Codegen(m) => write!(f, "internal code generation error: {m}"),
        }
    }
}

impl std::error::Error for CompileError {}
