//! `clCompileProgram`, `clLinkProgram` (objects and libraries linked by `spirv-link`, see
//! `runtime/src/program/link.rs`), `clSetProgramSpecializationConstant` and
//! `clSetProgramReleaseCallback`.

use super::super::handle::{self, get, get_list};
use super::super::{check, cl_call, cl_create, slice, SendPtr};
use super::check_devices;
use crate::error::{ClError, ClResult};
use ferrite_runtime::context::Context;
use ferrite_runtime::device::Device;
use ferrite_runtime::program::clc::Header;
use ferrite_runtime::program::{Program, ProgramSource};
use opencl_sys::*;
use std::ffi::{c_char, c_void, CStr};
use std::sync::Arc;

type ProgramNotify = Option<unsafe extern "C" fn(program: cl_program, user_data: *mut c_void)>;

/// An options string (NULL is empty).
///
/// # Safety
/// `options` is NULL or NUL-terminated.
unsafe fn options_string(options: *const c_char) -> String {
    if options.is_null() {
        String::new()
    } else {
        // SAFETY: per the caller.
        unsafe { CStr::from_ptr(options) }
            .to_string_lossy()
            .into_owned()
    }
}

pub unsafe extern "C" fn compile_program(
    program: cl_program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    num_input_headers: cl_uint,
    input_headers: *const cl_program,
    header_include_names: *mut *const c_char,
    pfn_notify: ProgramNotify,
    user_data: *mut c_void,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_PROGRAM if program is not a valid program object.
        let p = get::<Program>(program)?;
        // CL_INVALID_VALUE if device_list is NULL and num_devices is greater than zero, or
        // if device_list is not NULL and num_devices is zero. CL_INVALID_DEVICE if a device
        // in device_list is not in the list of devices associated with program.
        // SAFETY: API contract on the device list.
        unsafe { check_devices(&p, num_devices, device_list) }?;
        // CL_INVALID_VALUE if num_input_headers is zero and header_include_names or
        // input_headers are not NULL.
        // CL_INVALID_VALUE if num_input_headers is not zero and header_include_names or
        // input_headers are NULL.
        let n = num_input_headers as usize;
        if n == 0 {
            check(
                header_include_names.is_null() && input_headers.is_null(),
                CL_INVALID_VALUE,
            )?;
        } else {
            check(
                !header_include_names.is_null() && !input_headers.is_null(),
                CL_INVALID_VALUE,
            )?;
        }
        // CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL.
        check(
            pfn_notify.is_some() || user_data.is_null(),
            CL_INVALID_VALUE,
        )?;
        // The headers: program objects created from source, included by these names.
        // SAFETY: input_headers holds num_input_headers handles (API contract).
        let header_programs = unsafe { get_list::<Program>(input_headers, n, CL_INVALID_PROGRAM) }?;
        // SAFETY: header_include_names holds num_input_headers strings (API contract).
        let names = unsafe { slice(header_include_names as *const *const c_char, n) };
        let mut header_data = Vec::with_capacity(n);
        for (hp, &name) in header_programs.iter().zip(names) {
            check(!name.is_null(), CL_INVALID_VALUE)?;
            // SAFETY: a NUL-terminated name (API contract).
            let name = unsafe { CStr::from_ptr(name) }
                .to_string_lossy()
                .into_owned();
            let ProgramSource::Source(src) = &hp.source else {
                return Err(ClError(CL_INVALID_PROGRAM));
            };
            header_data.push((name, src.clone()));
        }
        let headers: Vec<Header<'_>> = header_data
            .iter()
            .map(|(name, source)| Header { name, source })
            .collect();
        // SAFETY: NULL or NUL-terminated (API contract).
        let options = unsafe { options_string(options) };
        // Synchronous; the notification follows the compile.
        let result = p.compile(&options, &headers);
        if let Some(f) = pfn_notify {
            let user_data = SendPtr(user_data);
            // SAFETY: the application's callback with its program and user_data.
            unsafe { f(program, user_data.get()) };
        }
        // CL_COMPILE_PROGRAM_FAILURE if there is a failure to compile the program source;
        // CL_INVALID_COMPILER_OPTIONS for options the compiler does not accept;
        // CL_INVALID_OPERATION if there are kernel objects attached to program or it has no
        // source or IL.
        result.map_err(ClError::from)
    })
}

/// The context, options and inputs of a link, checked.
///
/// # Safety
/// The pointers follow `clLinkProgram`'s contract.
unsafe fn link_inputs(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    num_input_programs: cl_uint,
    input_programs: *const cl_program,
    pfn_notify: ProgramNotify,
    user_data: *mut c_void,
) -> ClResult<(Arc<Context>, Vec<Arc<Program>>)> {
    // CL_INVALID_CONTEXT if context is not a valid context.
    let ctx = get::<Context>(context)?;
    // CL_INVALID_VALUE if device_list is NULL and num_devices is greater than zero, or if
    // device_list is not NULL and num_devices is zero.
    check(
        device_list.is_null() == (num_devices == 0),
        CL_INVALID_VALUE,
    )?;
    // CL_INVALID_VALUE if num_input_programs is zero and input_programs is NULL or if
    // num_input_programs is zero and input_programs is not NULL or if num_input_programs
    // is not zero and input_programs is NULL.
    check(
        num_input_programs > 0 && !input_programs.is_null(),
        CL_INVALID_VALUE,
    )?;
    // CL_INVALID_PROGRAM if programs specified in input_programs are not valid program
    // objects.
    // SAFETY: per the caller.
    let inputs = unsafe {
        get_list::<Program>(
            input_programs,
            num_input_programs as usize,
            CL_INVALID_PROGRAM,
        )
    }?;
    // CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL.
    check(
        pfn_notify.is_some() || user_data.is_null(),
        CL_INVALID_VALUE,
    )?;
    // CL_INVALID_DEVICE if any device in device_list is not in the list of devices
    // associated with context.
    // SAFETY: per the caller.
    let devices =
        unsafe { get_list::<Device>(device_list, num_devices as usize, CL_INVALID_DEVICE) }?;
    check(devices.iter().all(|d| ctx.has_device(d)), CL_INVALID_DEVICE)?;
    Ok((ctx, inputs))
}

pub unsafe extern "C" fn link_program(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    num_input_programs: cl_uint,
    input_programs: *const cl_program,
    pfn_notify: ProgramNotify,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_program {
    // A failed link still returns its program (the log says why): the code is set apart.
    let mut link_code = CL_SUCCESS;
    let program = cl_create(errcode_ret, || {
        // SAFETY: the pointers follow the API contract.
        let (ctx, inputs) = unsafe {
            link_inputs(
                context,
                num_devices,
                device_list,
                num_input_programs,
                input_programs,
                pfn_notify,
                user_data,
            )
        }?;
        // SAFETY: NULL or NUL-terminated (API contract).
        let options = unsafe { options_string(options) };
        // CL_INVALID_LINKER_OPTIONS if the linker options specified by options are
        // invalid. CL_INVALID_OPERATION if an input is not a compiled binary or library.
        let (p, outcome) = Program::link(ctx, &options, &inputs)?;
        let h = handle::new_handle(p);
        if let Some(f) = pfn_notify {
            let user_data = SendPtr(user_data);
            // SAFETY: the application's callback with the new program and its user_data.
            unsafe { f(h, user_data.get()) };
        }
        // CL_LINK_PROGRAM_FAILURE if there is a failure to link the compiled binaries
        // and/or libraries.
        if let Err(e) = outcome {
            link_code = ClError::from(e).0;
        }
        Ok(h)
    });
    if link_code != CL_SUCCESS && !errcode_ret.is_null() {
        // SAFETY: a non-NULL errcode_ret points to a cl_int (API contract).
        unsafe { *errcode_ret = link_code };
    }
    program
}

pub unsafe extern "C" fn set_program_specialization_constant(
    program: cl_program,
    spec_id: cl_uint,
    spec_size: usize,
    spec_value: *const c_void,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_PROGRAM if program is not a valid program object created from an
        // intermediate language (e.g. SPIR-V).
        let p = get::<Program>(program)?;
        check(matches!(p.source, ProgramSource::Il(_)), CL_INVALID_PROGRAM)?;
        // CL_INVALID_VALUE if spec_value is NULL.
        check(!spec_value.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: spec_value points to spec_size bytes (API contract).
        let value = unsafe { slice(spec_value as *const u8, spec_size) };
        // CL_INVALID_SPEC_ID if spec_id is not a valid specialization constant identifier.
        // CL_INVALID_VALUE if spec_size does not match the size of the specialization
        // constant in the module (1 for a boolean).
        p.set_spec_constant(spec_id, value)?;
        Ok(())
    })
}

pub unsafe extern "C" fn set_program_release_callback(
    program: cl_program,
    pfn_notify: ProgramNotify,
    _user_data: *mut c_void,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_PROGRAM if program is not a valid program object.
        get::<Program>(program)?;
        // CL_INVALID_VALUE if pfn_notify is NULL.
        check(pfn_notify.is_some(), CL_INVALID_VALUE)?;
        // CL_INVALID_OPERATION if no devices in the context associated with program
        // support destructors for program scope global variables.
        Err(ClError(CL_INVALID_OPERATION))
    })
}
