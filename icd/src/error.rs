//! The one place where Ferrite's typed errors become OpenCL error codes.

use ferrite_runtime::error::Geometry;
use ferrite_runtime::event::{ExecError, Status};
use ferrite_runtime::Error;
use opencl_sys::*;

/// An OpenCL error code (never `CL_SUCCESS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClError(pub cl_int);

/// Result of the API layer's helpers.
pub type ClResult<T> = Result<T, ClError>;

impl From<cl_int> for ClError {
    fn from(code: cl_int) -> ClError {
        ClError(code)
    }
}

impl From<Error> for ClError {
    fn from(e: Error) -> ClError {
        ClError(match e {
            Error::OutOfHostMemory => CL_OUT_OF_HOST_MEMORY,
            Error::OutOfResources(_) => CL_OUT_OF_RESOURCES,
            Error::MemObjectAllocationFailure { .. } => CL_MEM_OBJECT_ALLOCATION_FAILURE,
            Error::InvalidValue(_) => CL_INVALID_VALUE,
            Error::InvalidOperation(_) => CL_INVALID_OPERATION,
            Error::InvalidContext => CL_INVALID_CONTEXT,
            Error::WaitListFailed => CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
            Error::InvalidBinary(_) => CL_INVALID_BINARY,
            Error::BuildFailure => CL_BUILD_PROGRAM_FAILURE,
            Error::InvalidBuildOptions(_) => CL_INVALID_BUILD_OPTIONS,
            Error::CompilerNotAvailable(_) => CL_COMPILER_NOT_AVAILABLE,
            Error::InvalidProgramExecutable => CL_INVALID_PROGRAM_EXECUTABLE,
            Error::InvalidKernelName(_) => CL_INVALID_KERNEL_NAME,
            Error::InvalidArgIndex { .. } => CL_INVALID_ARG_INDEX,
            Error::InvalidArgValue { .. } => CL_INVALID_ARG_VALUE,
            Error::InvalidArgSize { .. } => CL_INVALID_ARG_SIZE,
            Error::InvalidArgMemObject { .. } => CL_INVALID_MEM_OBJECT,
            Error::KernelArgsNotSet { .. } => CL_INVALID_KERNEL_ARGS,
            Error::KernelArgInfoNotAvailable => CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
            Error::LocalMemoryExceeded { .. } => CL_OUT_OF_RESOURCES,
            Error::UserEventStatusAlreadySet => CL_INVALID_OPERATION,
            Error::InvalidSpecId(_) => CL_INVALID_SPEC_ID,
            Error::InvalidCompilerOptions(_) => CL_INVALID_COMPILER_OPTIONS,
            Error::InvalidLinkerOptions(_) => CL_INVALID_LINKER_OPTIONS,
            Error::CompileFailure => CL_COMPILE_PROGRAM_FAILURE,
            Error::LinkFailure => CL_LINK_PROGRAM_FAILURE,
            Error::ImageFormatNotSupported => CL_IMAGE_FORMAT_NOT_SUPPORTED,
            Error::InvalidImageSize(_) => CL_INVALID_IMAGE_SIZE,
            Error::InvalidImageDescriptor(_) => CL_INVALID_IMAGE_DESCRIPTOR,
            Error::ImageFormatMismatch => CL_IMAGE_FORMAT_MISMATCH,
            Error::InvalidGeometry(g) => match g {
                Geometry::WorkDimension => CL_INVALID_WORK_DIMENSION,
                Geometry::GlobalWorkSize => CL_INVALID_GLOBAL_WORK_SIZE,
                Geometry::GlobalOffset => CL_INVALID_GLOBAL_OFFSET,
                Geometry::WorkGroupSize(_) => CL_INVALID_WORK_GROUP_SIZE,
                Geometry::WorkItemSize => CL_INVALID_WORK_ITEM_SIZE,
            },
        })
    }
}

/// `CL_EVENT_COMMAND_EXECUTION_STATUS` of a status.
pub fn exec_status(status: Status) -> cl_int {
    match status {
        Status::Queued => CL_QUEUED,
        Status::Submitted => CL_SUBMITTED,
        Status::Running => CL_RUNNING,
        Status::Complete => CL_COMPLETE,
        Status::Failed(e) => exec_error(e),
    }
}

/// The negative status of a failed command.
pub fn exec_error(e: ExecError) -> cl_int {
    match e {
        ExecError::WaitListFailed => CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
        ExecError::OutOfResources => CL_OUT_OF_RESOURCES,
        ExecError::User(code) => code,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_spec_values() {
        assert_eq!(exec_status(Status::Complete), 0);
        assert_eq!(exec_status(Status::Running), 1);
        assert_eq!(exec_status(Status::Submitted), 2);
        assert_eq!(exec_status(Status::Queued), 3);
        assert_eq!(exec_status(Status::Failed(ExecError::User(-77))), -77);
        assert!(exec_status(Status::Failed(ExecError::WaitListFailed)) < 0);
    }
}
