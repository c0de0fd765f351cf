//! Platform entry points, and the three symbols the library exports for the ICD loader.

use super::handle::{self, get};
use super::info::{cl_version, info, joined, write_info};
use super::{check, cl_call, write_out};
use crate::error::{ClError, ClResult};
use ferrite_runtime::mem::image;
use ferrite_runtime::platform::{self as rt, Platform};
use opencl_sys::*;
use std::ffi::{c_char, c_void, CStr};
use std::sync::Arc;

/// The platform behind a handle; NULL selects ours ("If platform is NULL, the behavior is
/// implementation-defined").
pub fn platform_or_default(platform: cl_platform_id) -> ClResult<Arc<Platform>> {
    if platform.is_null() {
        Ok(Platform::get().clone())
    } else {
        get::<Platform>(platform)
    }
}

/// `clIcdGetPlatformIDsKHR`: how the loader finds our platform (exported).
///
/// # Safety
/// The pointers follow `clGetPlatformIDs`' contract.
#[no_mangle]
pub unsafe extern "C" fn clIcdGetPlatformIDsKHR(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    // SAFETY: same contract.
    unsafe { get_platform_ids(num_entries, platforms, num_platforms) }
}

pub unsafe extern "C" fn get_platform_ids(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_VALUE if num_entries is equal to zero and platforms is not NULL or if
        // both num_platforms and platforms are NULL.
        check(num_entries > 0 || platforms.is_null(), CL_INVALID_VALUE)?;
        check(
            !(num_platforms.is_null() && platforms.is_null()),
            CL_INVALID_VALUE,
        )?;
        if !platforms.is_null() {
            // SAFETY: platforms has room for num_entries >= 1 handles (API contract).
            unsafe { *platforms = handle::handle(Platform::get()) };
        }
        // SAFETY: NULL or a cl_uint (API contract).
        unsafe { write_out(num_platforms, 1) };
        Ok(())
    })
}

pub unsafe extern "C" fn get_platform_info(
    platform: cl_platform_id,
    param_name: cl_platform_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_PLATFORM if platform is not a valid platform.
        platform_or_default(platform)?;
        let v = match param_name {
            CL_PLATFORM_PROFILE => info("FULL_PROFILE"),
            CL_PLATFORM_VERSION => info(rt::VERSION_STRING),
            CL_PLATFORM_NUMERIC_VERSION => info(&cl_version(rt::API_VERSION)),
            CL_PLATFORM_NAME => info(rt::NAME),
            CL_PLATFORM_VENDOR => info(rt::VENDOR),
            CL_PLATFORM_EXTENSIONS => info(&joined(&image::extensions(rt::EXTENSIONS), false)),
            CL_PLATFORM_EXTENSIONS_WITH_VERSION => info(&image::extensions(rt::EXTENSIONS)),
            // One monotonic nanosecond clock for host and device (`device/timer.rs`).
            CL_PLATFORM_HOST_TIMER_RESOLUTION => info(&1u64),
            CL_PLATFORM_ICD_SUFFIX_KHR => info(rt::ICD_SUFFIX),
            // CL_INVALID_VALUE if param_name is not one of the supported values.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe { write_info(&v, param_value_size, param_value, param_value_size_ret) }
    })
}

pub unsafe extern "C" fn unload_compiler() -> cl_int {
    // The compiler is an external program: nothing to unload.
    cl_call(|| Ok(()))
}

pub unsafe extern "C" fn unload_platform_compiler(platform: cl_platform_id) -> cl_int {
    cl_call(|| {
        // CL_INVALID_PLATFORM if platform is not a valid platform.
        get::<Platform>(platform)?;
        Ok(())
    })
}

/// Address of an extension function, of `clIcdGetPlatformIDsKHR`, or of
/// `clGetPlatformInfo`; NULL if unknown.
fn extension_function(name: &CStr) -> *mut c_void {
    let f: *const () = match name.to_bytes() {
        b"clIcdGetPlatformIDsKHR" => clIcdGetPlatformIDsKHR as *const (),
        // ocl-icd 2.3.1 asks for this one before it knows any platform (to check
        // CL_PLATFORM_ICD_SUFFIX_KHR) and skips the ICD if it gets NULL (measured).
        b"clGetPlatformInfo" => get_platform_info as *const (),
        b"clCreateProgramWithILKHR" => super::program::create_program_with_il as *const (),
        b"clGetKernelSuggestedLocalWorkSizeKHR" => {
            super::enqueue::get_kernel_suggested_local_work_size as *const ()
        }
        b"clGetKernelSubGroupInfoKHR" => super::kernel::get_kernel_sub_group_info as *const (),
        b"clSetKernelArgDevicePointerEXT" => super::svm::set_kernel_arg_device_pointer as *const (),
        other => {
            match super::usm::function(other).or_else(|| super::command_buffer::function(other)) {
                Some(f) => f,
                None => return std::ptr::null_mut(),
            }
        }
    };
    f as *mut c_void
}

/// `clGetExtensionFunctionAddress` (exported: the loader's entry into the library).
///
/// # Safety
/// `func_name` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddress(func_name: *const c_char) -> *mut c_void {
    std::panic::catch_unwind(|| {
        super::init();
        if func_name.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: a non-NULL func_name is NUL-terminated (API contract).
        extension_function(unsafe { CStr::from_ptr(func_name) })
    })
    .unwrap_or(std::ptr::null_mut())
}

/// `clGetExtensionFunctionAddressForPlatform` (exported).
///
/// # Safety
/// `func_name` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddressForPlatform(
    platform: cl_platform_id,
    func_name: *const c_char,
) -> *mut c_void {
    std::panic::catch_unwind(|| {
        super::init();
        if func_name.is_null() || get::<Platform>(platform).is_err() {
            return std::ptr::null_mut();
        }
        // SAFETY: a non-NULL func_name is NUL-terminated (API contract).
        extension_function(unsafe { CStr::from_ptr(func_name) })
    })
    .unwrap_or(std::ptr::null_mut())
}
