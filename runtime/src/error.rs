//! The runtime's errors. Typed and API-neutral: `icd/src/error.rs` maps each variant to a
//! `cl_int` (and later a `ze_result_t`). Variants carry what a debugging user needs.

use std::fmt;

/// Why a runtime operation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A host allocation failed.
    OutOfHostMemory,
    /// A device resource limit (local memory, threads) was exceeded.
    OutOfResources(String),
    /// The memory for a memory object could not be allocated.
    MemObjectAllocationFailure { size: usize },
    /// An argument value is not valid for this operation (named in the message).
    InvalidValue(&'static str),
    /// The operation is not valid in the object's current state.
    InvalidOperation(&'static str),
    /// Objects from different contexts were mixed.
    InvalidContext,
    /// A wait-list event failed: the command cannot run.
    WaitListFailed,
    /// The program's binary/IL is not something we can load.
    InvalidBinary(String),
    /// The build failed; details are in the build log.
    BuildFailure,
    /// An option given to a build is not accepted.
    InvalidBuildOptions(String),
    /// The OpenCL C compiler (clang-15 / llvm-spirv-15) could not be run.
    CompilerNotAvailable(String),
    /// No successfully built executable for the device.
    InvalidProgramExecutable,
    /// No kernel with this name in the program.
    InvalidKernelName(String),
    /// The argument index is out of range.
    InvalidArgIndex { index: usize, count: usize },
    /// The value given for an argument does not fit its kind.
    InvalidArgValue { index: usize, reason: &'static str },
    /// The size given for an argument does not match.
    InvalidArgSize {
        index: usize,
        expected: usize,
        got: usize,
    },
    /// An argument is a `cl_mem` handle that is not a valid memory object.
    InvalidArgMemObject { index: usize },
    /// Some kernel arguments were never set.
    KernelArgsNotSet { missing: Vec<usize> },
    /// Argument info requested for a program built without `-cl-kernel-arg-info`.
    KernelArgInfoNotAvailable,
    /// The kernel uses more local memory than the device has.
    LocalMemoryExceeded { requested: usize, max: usize },
    /// A status given to a user event is invalid, or it was already set.
    UserEventStatusAlreadySet,
    /// No specialization constant with this `SpecId` in the module.
    InvalidSpecId(u32),
    /// An option given to `clCompileProgram` is not accepted.
    InvalidCompilerOptions(String),
    /// An option given to `clLinkProgram` is not accepted.
    InvalidLinkerOptions(String),
    /// A compile failed; details are in the build log.
    CompileFailure,
    /// A link failed; details are in the build log.
    LinkFailure,
    /// The image format is not supported for this kind of image.
    ImageFormatNotSupported,
    /// An image dimension is 0 or over the device's limit (which one is named).
    InvalidImageSize(&'static str),
    /// An image description is inconsistent (pitches, kind).
    InvalidImageDescriptor(&'static str),
    /// Two images that must have the same format do not.
    ImageFormatMismatch,
    /// An NDRange the kernel or the device cannot run (which rule, named).
    InvalidGeometry(Geometry),
}

/// The NDRange rule a launch broke (`command::geometry`), each its own OpenCL code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Geometry {
    /// `work_dim` is not 1, 2 or 3.
    WorkDimension,
    /// The global size spans more work-items than a `size_t` counts.
    GlobalWorkSize,
    /// Global size plus offset overflows a `size_t`.
    GlobalOffset,
    /// The work-group size is 0, not the required one, too large for the kernel, or does
    /// not divide the global size where groups must be uniform.
    WorkGroupSize(&'static str),
    /// A local size exceeds the device's most work-items in its dimension.
    WorkItemSize,
}

/// Result type of the runtime.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::OutOfHostMemory => write!(f, "out of host memory"),
            Error::OutOfResources(m) => write!(f, "out of resources: {m}"),
            Error::MemObjectAllocationFailure { size } => {
                write!(f, "could not allocate {size} bytes")
            }
            Error::InvalidValue(m) => write!(f, "invalid value: {m}"),
            Error::InvalidOperation(m) => write!(f, "invalid operation: {m}"),
            Error::InvalidContext => write!(f, "objects from different contexts"),
            Error::WaitListFailed => write!(f, "an event in the wait list failed"),
            Error::InvalidBinary(m) => write!(f, "invalid program binary: {m}"),
            Error::BuildFailure => write!(f, "program build failed"),
            Error::InvalidBuildOptions(m) => write!(f, "invalid build options: {m}"),
            Error::CompilerNotAvailable(m) => write!(f, "compiler not available: {m}"),
            Error::InvalidProgramExecutable => write!(f, "program is not built"),
            Error::InvalidKernelName(n) => write!(f, "no kernel named {n}"),
            Error::InvalidArgIndex { index, count } => {
                write!(
                    f,
                    "argument index {index} out of range (kernel has {count})"
                )
            }
            Error::InvalidArgValue { index, reason } => {
                write!(f, "argument {index}: {reason}")
            }
            Error::InvalidArgSize {
                index,
                expected,
                got,
            } => write!(f, "argument {index}: size {got}, expected {expected}"),
            Error::InvalidArgMemObject { index } => {
                write!(f, "argument {index}: not a valid memory object")
            }
            Error::KernelArgsNotSet { missing } => {
                write!(f, "kernel arguments not set: {missing:?}")
            }
            Error::KernelArgInfoNotAvailable => {
                write!(f, "program not built with -cl-kernel-arg-info")
            }
            Error::LocalMemoryExceeded { requested, max } => {
                write!(
                    f,
                    "kernel needs {requested} bytes of local memory, device has {max}"
                )
            }
            Error::UserEventStatusAlreadySet => write!(f, "user event status already set"),
            Error::InvalidSpecId(id) => write!(f, "no specialization constant {id}"),
            Error::InvalidCompilerOptions(m) => write!(f, "invalid compiler options: {m}"),
            Error::InvalidLinkerOptions(m) => write!(f, "invalid linker options: {m}"),
            Error::CompileFailure => write!(f, "program compile failed"),
            Error::LinkFailure => write!(f, "program link failed"),
            Error::ImageFormatNotSupported => write!(f, "image format not supported"),
            Error::InvalidImageSize(m) => write!(f, "invalid image size: {m}"),
            Error::InvalidImageDescriptor(m) => write!(f, "invalid image description: {m}"),
            Error::ImageFormatMismatch => write!(f, "image formats differ"),
            Error::InvalidGeometry(g) => write!(f, "invalid NDRange: {g:?}"),
        }
    }
}

impl std::error::Error for Error {}
