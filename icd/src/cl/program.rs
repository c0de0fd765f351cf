//! Program entry points: creation from OpenCL C source, SPIR-V IL, or a binary (Ferrite's
//! header + SPIR-V, `runtime/src/program/binary.rs`), synchronous builds, queries; the
//! separate compile and link steps and specialization constants are in [`link`].

mod link;

pub use link::{
    compile_program, link_program, set_program_release_callback,
    set_program_specialization_constant,
};

use super::handle::{self, get, get_list};
use super::info::{info, write_info};
use super::{check, cl_call, cl_create, slice, write_out, SendPtr};
use crate::error::{ClError, ClResult};
use ferrite_runtime::context::Context;
use ferrite_runtime::device::Device;
use ferrite_runtime::program::binary::ProgramBinary;
use ferrite_runtime::program::{BinaryType, BuildStatus, Program, ProgramSource};
use opencl_sys::*;
use std::ffi::{c_char, c_void, CStr};
use std::sync::Arc;

fn new_program(context: &Arc<Context>, source: ProgramSource) -> ClResult<cl_program> {
    Ok(handle::new_handle(Program::new(context.clone(), source)?))
}

pub unsafe extern "C" fn create_program_with_source(
    context: cl_context,
    count: cl_uint,
    strings: *mut *const c_char,
    lengths: *const usize,
    errcode_ret: *mut cl_int,
) -> cl_program {
    cl_create(errcode_ret, || {
        // CL_INVALID_CONTEXT if context is not a valid context.
        let ctx = get::<Context>(context)?;
        // CL_INVALID_VALUE if count is zero or if strings or any entry in strings is NULL.
        check(count > 0 && !strings.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: strings points to count pointers (API contract).
        let strs = unsafe { slice(strings as *const *const c_char, count as usize) };
        // SAFETY: lengths is NULL or points to count sizes (API contract).
        let lens = unsafe { slice(lengths, count as usize) };
        let mut src = Vec::new();
        for (i, &s) in strs.iter().enumerate() {
            check(!s.is_null(), CL_INVALID_VALUE)?;
            // If lengths is NULL or an element is zero, the string is NUL-terminated.
            match lens.get(i).copied().unwrap_or(0) {
                // SAFETY: a NUL-terminated string (API contract).
                0 => src.extend_from_slice(unsafe { CStr::from_ptr(s) }.to_bytes()),
                // SAFETY: s points to n bytes (API contract).
                n => src.extend_from_slice(unsafe { slice(s as *const u8, n) }),
            }
        }
        let text = String::from_utf8_lossy(&src).into_owned();
        new_program(&ctx, ProgramSource::Source(text))
    })
}

pub unsafe extern "C" fn create_program_with_il(
    context: cl_context,
    il: *const c_void,
    length: usize,
    errcode_ret: *mut cl_int,
) -> cl_program {
    cl_create(errcode_ret, || {
        // CL_INVALID_CONTEXT if context is not a valid context.
        let ctx = get::<Context>(context)?;
        // CL_INVALID_VALUE if il is NULL or if length is zero, or if the length-byte
        // memory pointed to by il does not contain well-formed intermediate language input.
        check(!il.is_null() && length > 0, CL_INVALID_VALUE)?;
        // SAFETY: il points to length bytes (API contract).
        let bytes = unsafe { slice(il as *const u8, length) }.to_vec();
        new_program(&ctx, ProgramSource::Il(bytes))
    })
}

pub unsafe extern "C" fn create_program_with_binary(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    lengths: *const usize,
    binaries: *mut *const u8,
    binary_status: *mut cl_int,
    errcode_ret: *mut cl_int,
) -> cl_program {
    cl_create(errcode_ret, || {
        // CL_INVALID_CONTEXT if context is not a valid context.
        let ctx = get::<Context>(context)?;
        // CL_INVALID_VALUE if device_list is NULL or num_devices is zero.
        check(!device_list.is_null() && num_devices > 0, CL_INVALID_VALUE)?;
        let n = num_devices as usize;
        // CL_INVALID_DEVICE if any device in device_list is not in the list of devices
        // associated with context.
        // SAFETY: device_list points to num_devices handles (API contract).
        let devices = unsafe { get_list::<Device>(device_list, n, CL_INVALID_DEVICE) }?;
        check(devices.iter().all(|d| ctx.has_device(d)), CL_INVALID_DEVICE)?;
        // CL_INVALID_VALUE if lengths or binaries are NULL or if any entry in lengths[i] is
        // zero or binaries[i] is NULL.
        check(!lengths.is_null() && !binaries.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: both arrays have num_devices entries (API contract).
        let (lens, bins) = unsafe { (slice(lengths, n), slice(binaries as *const *const u8, n)) };
        check(
            lens.iter().all(|&l| l > 0) && bins.iter().all(|b| !b.is_null()),
            CL_INVALID_VALUE,
        )?;
        // One device: every entry must load, the first one is the program's.
        let decoded: Vec<_> = lens
            .iter()
            .zip(bins)
            // SAFETY: binaries[i] points to lengths[i] bytes (API contract).
            .map(|(&l, &b)| ProgramBinary::decode(unsafe { slice(b, l) }))
            .collect();
        // binary_status returns whether the program binary for each device was loaded
        // successfully or not.
        if !binary_status.is_null() {
            for (i, d) in decoded.iter().enumerate() {
                // SAFETY: binary_status has num_devices entries (API contract).
                unsafe {
                    *binary_status.add(i) = if d.is_ok() {
                        CL_SUCCESS
                    } else {
                        CL_INVALID_BINARY
                    }
                };
            }
        }
        // CL_INVALID_BINARY if an invalid program binary was encountered for any device.
        let mut decoded = decoded.into_iter();
        let first = decoded.next().ok_or(ClError(CL_INVALID_VALUE))??;
        for d in decoded {
            d?;
        }
        Ok(handle::new_handle(Program::new(
            ctx.clone(),
            ProgramSource::Binary(first),
        )?))
    })
}

pub unsafe extern "C" fn retain_program(program: cl_program) -> cl_int {
    cl_call(|| handle::retain::<Program>(program))
}

pub unsafe extern "C" fn release_program(program: cl_program) -> cl_int {
    cl_call(|| handle::release::<Program>(program))
}

/// Check a device list given to a program operation.
///
/// # Safety
/// `device_list` is NULL or points to `num_devices` handles.
unsafe fn check_devices(
    program: &Program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
) -> ClResult<()> {
    // CL_INVALID_VALUE if device_list is NULL and num_devices is greater than zero, or if
    // device_list is not NULL and num_devices is zero.
    check(
        device_list.is_null() == (num_devices == 0),
        CL_INVALID_VALUE,
    )?;
    // CL_INVALID_DEVICE if any device in device_list is not in the list of devices
    // associated with program.
    // SAFETY: per the caller.
    let devices =
        unsafe { get_list::<Device>(device_list, num_devices as usize, CL_INVALID_DEVICE) }?;
    check(
        devices.iter().all(|d| program.context.has_device(d)),
        CL_INVALID_DEVICE,
    )
}

pub unsafe extern "C" fn build_program(
    program: cl_program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    pfn_notify: Option<unsafe extern "C" fn(program: cl_program, user_data: *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_PROGRAM if program is not a valid program object.
        let p = get::<Program>(program)?;
        // SAFETY: API contract on the device list.
        unsafe { check_devices(&p, num_devices, device_list) }?;
        // CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL.
        check(
            pfn_notify.is_some() || user_data.is_null(),
            CL_INVALID_VALUE,
        )?;
        let options = if options.is_null() {
            String::new()
        } else {
            // SAFETY: a non-NULL options is NUL-terminated (API contract).
            unsafe { CStr::from_ptr(options) }
                .to_string_lossy()
                .into_owned()
        };
        // The build is synchronous; the notification follows it.
        let result = p.build(&options);
        if let Some(f) = pfn_notify {
            let user_data = SendPtr(user_data);
            // SAFETY: the application's callback with its program and user_data.
            unsafe { f(program, user_data.get()) };
        }
        result.map_err(ClError::from)
    })
}

/// `cl_build_status` of a build status.
pub(crate) fn build_status(s: BuildStatus) -> cl_build_status {
    match s {
        BuildStatus::None => CL_BUILD_NONE,
        BuildStatus::Error => CL_BUILD_ERROR,
        BuildStatus::Success => CL_BUILD_SUCCESS,
        BuildStatus::InProgress => CL_BUILD_IN_PROGRESS,
    }
}

pub unsafe extern "C" fn get_program_info(
    program: cl_program,
    param_name: cl_program_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_PROGRAM if program is a not a valid program object.
        let p = get::<Program>(program)?;
        let ndev = p.context.devices.len();
        // CL_INVALID_PROGRAM_EXECUTABLE if param_name is CL_PROGRAM_NUM_KERNELS or
        // CL_PROGRAM_KERNEL_NAMES and a successful program executable has not been built
        // for at least one device in the list of devices associated with program.
        let built = || p.built().ok_or(ClError(CL_INVALID_PROGRAM_EXECUTABLE));
        let binary = p.binary();
        let v = match param_name {
            CL_PROGRAM_REFERENCE_COUNT => info(&p.api.ref_count()),
            CL_PROGRAM_CONTEXT => info(&handle::handle(&p.context)),
            CL_PROGRAM_NUM_DEVICES => info(&(ndev as u32)),
            CL_PROGRAM_DEVICES => info(
                &p.context
                    .devices
                    .iter()
                    .map(handle::handle)
                    .collect::<Vec<_>>(),
            ),
            CL_PROGRAM_SOURCE => match &p.source {
                ProgramSource::Source(s) => info(s),
                _ => info(""),
            },
            // If program is not created with clCreateProgramWithIL, param_value_size_ret is
            // set to 0.
            CL_PROGRAM_IL => match &p.source {
                ProgramSource::Il(b) => b.clone(),
                _ => Vec::new(),
            },
            CL_PROGRAM_BINARY_SIZES => info(&vec![binary.len(); ndev]),
            CL_PROGRAM_BINARIES => {
                // param_value points to an array of n pointers, each to binary-size bytes;
                // a NULL entry is skipped.
                let size = ndev * std::mem::size_of::<*mut u8>();
                if !param_value.is_null() {
                    check(param_value_size >= size, CL_INVALID_VALUE)?;
                    // SAFETY: param_value holds ndev pointers (API contract).
                    let ptrs = unsafe { slice(param_value as *const *mut u8, ndev) };
                    for &dst in ptrs.iter().filter(|d| !d.is_null()) {
                        // SAFETY: each non-NULL entry has room for the size returned by
                        // CL_PROGRAM_BINARY_SIZES (API contract).
                        unsafe {
                            std::ptr::copy_nonoverlapping(binary.as_ptr(), dst, binary.len())
                        };
                    }
                }
                // SAFETY: NULL or writable (API contract).
                unsafe { write_out(param_value_size_ret, size) };
                return Ok(());
            }
            CL_PROGRAM_NUM_KERNELS => info(&built()?.kernels.len()),
            CL_PROGRAM_KERNEL_NAMES => info(
                &built()?
                    .kernels
                    .iter()
                    .map(|k| k.info.name.as_str())
                    .collect::<Vec<_>>()
                    .join(";"),
            ),
            // No program-scope constructors or destructors.
            CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT | CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT => {
                info(&CL_FALSE)
            }
            // CL_INVALID_VALUE if param_name is not valid.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe { write_info(&v, param_value_size, param_value, param_value_size_ret) }
    })
}

pub unsafe extern "C" fn get_program_build_info(
    program: cl_program,
    device: cl_device_id,
    param_name: cl_program_build_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_PROGRAM if program is a not a valid program object.
        let p = get::<Program>(program)?;
        // CL_INVALID_DEVICE if device is not in the list of devices associated with
        // program.
        let d = get::<Device>(device)?;
        check(p.context.has_device(&d), CL_INVALID_DEVICE)?;
        let v = match param_name {
            CL_PROGRAM_BUILD_STATUS => info(&build_status(p.build_status())),
            CL_PROGRAM_BUILD_OPTIONS => info(&p.build_options()),
            CL_PROGRAM_BUILD_LOG => info(&p.build_log()),
            CL_PROGRAM_BINARY_TYPE => info(&match p.binary_type() {
                BinaryType::None => CL_PROGRAM_BINARY_TYPE_NONE,
                BinaryType::CompiledObject => CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
                BinaryType::Library => CL_PROGRAM_BINARY_TYPE_LIBRARY,
                BinaryType::Executable => CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
            }),
            // The last successful build's program-scope __global storage (0 when the
            // program has no executable).
            CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE => {
                info(&p.built().map_or(0usize, |b| b.global_variable_bytes))
            }
            // CL_INVALID_VALUE if param_name is not valid.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe { write_info(&v, param_value_size, param_value, param_value_size_ret) }
    })
}
