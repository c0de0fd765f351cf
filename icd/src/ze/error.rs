//! Ferrite's typed runtime errors as `ze_result_t`: the Level-Zero counterpart of
//! `icd/src/error.rs` (OpenCL codes), kept beside the layer whose codes it produces. Both
//! matches are exhaustive, so a new runtime error cannot be added without deciding its code
//! in each API.

use super::sys::*;
use super::ZeError;
use ferrite_runtime::Error;

impl From<Error> for ZeError {
    fn from(e: Error) -> ZeError {
        ZeError(match e {
            Error::OutOfHostMemory => ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
            Error::OutOfResources(_) => ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
            Error::MemObjectAllocationFailure { .. } => ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY,
            Error::InvalidValue(_) => ZE_RESULT_ERROR_INVALID_ARGUMENT,
            Error::InvalidOperation(_) => ZE_RESULT_ERROR_INVALID_ARGUMENT,
            Error::InvalidContext => ZE_RESULT_ERROR_INVALID_ARGUMENT,
            Error::WaitListFailed => ZE_RESULT_ERROR_UNKNOWN,
            Error::InvalidBinary(_) => ZE_RESULT_ERROR_INVALID_NATIVE_BINARY,
            Error::BuildFailure => ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
            Error::InvalidBuildOptions(_) => ZE_RESULT_ERROR_INVALID_ARGUMENT,
            Error::CompilerNotAvailable(_) => ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE,
            Error::InvalidProgramExecutable => ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
            Error::InvalidKernelName(_) => ZE_RESULT_ERROR_INVALID_KERNEL_NAME,
            Error::InvalidArgIndex { .. } => ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX,
            Error::InvalidArgValue { .. } => ZE_RESULT_ERROR_INVALID_ARGUMENT,
            Error::InvalidArgSize { .. } => ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE,
            Error::InvalidArgMemObject { .. } => ZE_RESULT_ERROR_INVALID_ARGUMENT,
            // No dedicated code: launching with unset arguments is an invalid argument.
            Error::KernelArgsNotSet { .. } => ZE_RESULT_ERROR_INVALID_ARGUMENT,
            Error::KernelArgInfoNotAvailable => ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
            Error::LocalMemoryExceeded { .. } => ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY,
            Error::UserEventStatusAlreadySet => ZE_RESULT_ERROR_INVALID_ARGUMENT,
            // OpenCL-only program operations (specialization constants, compile and link).
            Error::InvalidSpecId(_) => ZE_RESULT_ERROR_INVALID_ARGUMENT,
            Error::InvalidCompilerOptions(_) | Error::InvalidLinkerOptions(_) => {
                ZE_RESULT_ERROR_INVALID_ARGUMENT
            }
            Error::CompileFailure => ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
            Error::LinkFailure => ZE_RESULT_ERROR_MODULE_LINK_FAILURE,
            Error::ImageFormatNotSupported => ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT,
            Error::InvalidImageSize(_) => ZE_RESULT_ERROR_UNSUPPORTED_SIZE,
            Error::InvalidImageDescriptor(_) | Error::ImageFormatMismatch => {
                ZE_RESULT_ERROR_INVALID_ARGUMENT
            }
            // OpenCL's NDRange rules (Level-Zero checks its group sizes itself).
            Error::InvalidGeometry(_) => ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_argument_errors_have_their_codes() {
        let e: ZeError = Error::InvalidArgIndex { index: 3, count: 2 }.into();
        assert_eq!(e.0, ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
        let e: ZeError = Error::InvalidArgSize {
            index: 0,
            expected: 4,
            got: 8,
        }
        .into();
        assert_eq!(e.0, ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    }
}
