//! Kernel entry points: creation, arguments, queries.

use super::handle::{self, get};
use super::info::{info, write_info};
use super::{check, cl_call, cl_create, slice, write_out};
use crate::error::{ClError, ClResult};
use ferrite_compiler::image::ImageAccess;
use ferrite_compiler::{AddressSpace, ArgKind};
use ferrite_runtime::device::{Device, PREFERRED_WORK_GROUP_SIZE_MULTIPLE};
use ferrite_runtime::kernel::{ArgValue, Kernel};
use ferrite_runtime::mem::Mem;
use ferrite_runtime::program::Program;
use opencl_sys::*;
use std::ffi::{c_char, c_void, CStr};

pub unsafe extern "C" fn create_kernel(
    program: cl_program,
    kernel_name: *const c_char,
    errcode_ret: *mut cl_int,
) -> cl_kernel {
    cl_create(errcode_ret, || {
        // CL_INVALID_PROGRAM if program is not a valid program object.
        let p = get::<Program>(program)?;
        // CL_INVALID_VALUE if kernel_name is NULL.
        check(!kernel_name.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: a NUL-terminated string (API contract).
        let name = unsafe { CStr::from_ptr(kernel_name) }.to_string_lossy();
        // CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable for
        // program; CL_INVALID_KERNEL_NAME if kernel_name is not found in program.
        Ok(handle::new_handle(Kernel::new(&p, &name)?))
    })
}

pub unsafe extern "C" fn create_kernels_in_program(
    program: cl_program,
    num_kernels: cl_uint,
    kernels: *mut cl_kernel,
    num_kernels_ret: *mut cl_uint,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_PROGRAM if program is not a valid program object.
        let p = get::<Program>(program)?;
        // CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable for
        // any device in program.
        let built = p.built().ok_or(ClError(CL_INVALID_PROGRAM_EXECUTABLE))?;
        let n = built.kernels.len();
        // CL_INVALID_VALUE if kernels is not NULL and num_kernels is less than the number
        // of kernels in program.
        check(
            kernels.is_null() || num_kernels as usize >= n,
            CL_INVALID_VALUE,
        )?;
        if !kernels.is_null() {
            let mut made = Vec::with_capacity(n);
            for k in &built.kernels {
                made.push(Kernel::new(&p, &k.info.name)?);
            }
            for (i, k) in made.into_iter().enumerate() {
                // SAFETY: kernels has room for num_kernels >= n handles (API contract).
                unsafe { *kernels.add(i) = handle::new_handle(k) };
            }
        }
        // SAFETY: NULL or writable (API contract).
        unsafe { write_out(num_kernels_ret, n as cl_uint) };
        Ok(())
    })
}

pub unsafe extern "C" fn retain_kernel(kernel: cl_kernel) -> cl_int {
    cl_call(|| handle::retain::<Kernel>(kernel))
}

pub unsafe extern "C" fn release_kernel(kernel: cl_kernel) -> cl_int {
    cl_call(|| handle::release::<Kernel>(kernel))
}

pub unsafe extern "C" fn clone_kernel(
    source_kernel: cl_kernel,
    errcode_ret: *mut cl_int,
) -> cl_kernel {
    cl_create(errcode_ret, || {
        // CL_INVALID_KERNEL if kernel is not a valid kernel object.
        let k = get::<Kernel>(source_kernel)?;
        Ok(handle::new_handle(k.duplicate()))
    })
}

/// The runtime value of `clSetKernelArg`'s raw (size, pointer) for an argument of `kind`.
///
/// # Safety
/// `arg_value` is NULL or points to `arg_size` readable bytes.
unsafe fn arg_value(
    kind: &ArgKind,
    access: Option<ImageAccess>,
    arg_size: usize,
    arg_value: *const c_void,
) -> ClResult<ArgValue> {
    match kind {
        ArgKind::Value { size } => {
            // CL_INVALID_ARG_VALUE if arg_value specified is NULL for an argument that is
            // not declared with the __local qualifier.
            check(!arg_value.is_null(), CL_INVALID_ARG_VALUE)?;
            // CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type for
            // an argument that is not a memory object.
            check(arg_size == *size, CL_INVALID_ARG_SIZE)?;
            // SAFETY: per the caller.
            Ok(ArgValue::Bytes(
                unsafe { slice(arg_value as *const u8, arg_size) }.to_vec(),
            ))
        }
        ArgKind::Buffer { .. } => {
            // CL_INVALID_ARG_SIZE if the argument is a memory object and arg_size !=
            // sizeof(cl_mem).
            check(
                arg_size == std::mem::size_of::<cl_mem>(),
                CL_INVALID_ARG_SIZE,
            )?;
            // The arg_value pointer can be NULL or point to a NULL value, in which case a
            // NULL value will be used as the value for the argument.
            let mem = if arg_value.is_null() {
                std::ptr::null_mut()
            } else {
                // SAFETY: arg_value points to a cl_mem (arg_size checked above).
                unsafe { (arg_value as *const cl_mem).read_unaligned() }
            };
            if mem.is_null() {
                return Ok(ArgValue::Buffer(None));
            }
            // CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when
            // the specified arg_value is not a valid memory object.
            Ok(ArgValue::Buffer(Some(std::sync::Arc::downgrade(&get::<
                Mem,
            >(
                mem
            )?))))
        }
        ArgKind::Local => {
            // CL_INVALID_ARG_VALUE if arg_value is not NULL for an argument declared with
            // the __local qualifier.
            check(arg_value.is_null(), CL_INVALID_ARG_VALUE)?;
            // CL_INVALID_ARG_SIZE if arg_size is zero and the argument is declared with the
            // local qualifier.
            check(arg_size > 0, CL_INVALID_ARG_SIZE)?;
            Ok(ArgValue::Local(arg_size))
        }
        ArgKind::Image => {
            // CL_INVALID_ARG_SIZE if the argument is a memory object and arg_size !=
            // sizeof(cl_mem).
            check(
                arg_size == std::mem::size_of::<cl_mem>(),
                CL_INVALID_ARG_SIZE,
            )?;
            // CL_INVALID_ARG_VALUE if arg_value is NULL (an image is never NULL).
            check(!arg_value.is_null(), CL_INVALID_ARG_VALUE)?;
            // SAFETY: arg_value points to a cl_mem (arg_size checked above).
            let mem = unsafe { (arg_value as *const cl_mem).read_unaligned() };
            // CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when
            // the specified arg_value is not a valid memory object (here: an image).
            let m = get::<Mem>(mem)?;
            check(m.image.is_some(), CL_INVALID_MEM_OBJECT)?;
            // CL_INVALID_ARG_VALUE if an image created with CL_MEM_WRITE_ONLY is passed to a
            // read_only or read_write argument, or one created with CL_MEM_READ_ONLY to a
            // write_only or read_write argument.
            let (read, write) = match access {
                Some(ImageAccess::WriteOnly) => (false, true),
                Some(ImageAccess::ReadWrite) => (true, true),
                _ => (true, false),
            };
            check(
                (!read || m.flags.device_read) && (!write || m.flags.device_write),
                CL_INVALID_ARG_VALUE,
            )?;
            Ok(ArgValue::Buffer(Some(std::sync::Arc::downgrade(&m))))
        }
        ArgKind::Sampler => {
            // CL_INVALID_ARG_SIZE if the argument is a sampler and arg_size !=
            // sizeof(cl_sampler).
            check(
                arg_size == std::mem::size_of::<cl_sampler>(),
                CL_INVALID_ARG_SIZE,
            )?;
            // CL_INVALID_SAMPLER for an argument declared to be of type sampler_t when the
            // specified arg_value is not a valid sampler object (NULL included).
            check(!arg_value.is_null(), CL_INVALID_SAMPLER)?;
            // SAFETY: arg_value points to a cl_sampler (arg_size checked above).
            let h = unsafe { (arg_value as *const cl_sampler).read_unaligned() };
            // CL_INVALID_SAMPLER for an argument declared to be of type sampler_t when the
            // specified arg_value is not a valid sampler object.
            let s = get::<ferrite_runtime::sampler::Sampler>(h)?;
            Ok(ArgValue::Bytes(s.state.bits().to_ne_bytes().to_vec()))
        }
    }
}

pub unsafe extern "C" fn set_kernel_arg(
    kernel: cl_kernel,
    arg_index: cl_uint,
    arg_size: usize,
    arg_value_ptr: *const c_void,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_KERNEL if kernel is not a valid kernel object.
        let k = get::<Kernel>(kernel)?;
        // SAFETY: arg_value is NULL or points to arg_size bytes (API contract).
        unsafe { set_arg(&k, arg_index, arg_size, arg_value_ptr) }
    })
}

/// `clSetKernelArg` on a kernel object (also a mutable launch's own copy of the
/// arguments, `clUpdateMutableCommandsKHR`).
///
/// # Safety
/// `arg_value_ptr` is NULL or points to `arg_size` bytes.
pub(super) unsafe fn set_arg(
    k: &Kernel,
    arg_index: cl_uint,
    arg_size: usize,
    arg_value_ptr: *const c_void,
) -> ClResult<()> {
    // CL_INVALID_ARG_INDEX if arg_index is not a valid argument index.
    let arg = k.arg(arg_index as usize)?;
    let (kind, access) = (arg.kind.clone(), arg.image_access);
    // SAFETY: per the caller.
    let value = unsafe { arg_value(&kind, access, arg_size, arg_value_ptr) }?;
    k.set_arg(arg_index as usize, value)?;
    Ok(())
}

pub unsafe extern "C" fn get_kernel_info(
    kernel: cl_kernel,
    param_name: cl_kernel_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_KERNEL if kernel is a not a valid kernel object.
        let k = get::<Kernel>(kernel)?;
        let v = match param_name {
            CL_KERNEL_FUNCTION_NAME => info(&k.info().name),
            CL_KERNEL_NUM_ARGS => info(&(k.info().args.len() as u32)),
            CL_KERNEL_REFERENCE_COUNT => info(&k.api.ref_count()),
            CL_KERNEL_CONTEXT => info(&handle::handle(&k.program.context)),
            CL_KERNEL_PROGRAM => info(&handle::handle(&k.program)),
            CL_KERNEL_ATTRIBUTES => info(&k.info().attributes),
            // CL_INVALID_VALUE if param_name is not valid.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe { write_info(&v, param_value_size, param_value, param_value_size_ret) }
    })
}

pub unsafe extern "C" fn get_kernel_arg_info(
    kernel: cl_kernel,
    arg_index: cl_uint,
    param_name: cl_kernel_arg_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_KERNEL if kernel is a not a valid kernel object.
        let k = get::<Kernel>(kernel)?;
        // CL_INVALID_ARG_INDEX if arg_index is not a valid argument index.
        // CL_KERNEL_ARG_INFO_NOT_AVAILABLE if the argument information is not available
        // for kernel.
        let arg = k.arg_info(arg_index as usize)?;
        let v = match param_name {
            CL_KERNEL_ARG_ADDRESS_QUALIFIER => info(&match arg.kind {
                ArgKind::Buffer {
                    space: AddressSpace::Constant,
                } => CL_KERNEL_ARG_ADDRESS_CONSTANT,
                ArgKind::Buffer {
                    space: AddressSpace::Local,
                }
                | ArgKind::Local => CL_KERNEL_ARG_ADDRESS_LOCAL,
                ArgKind::Buffer {
                    space: AddressSpace::Private,
                } => CL_KERNEL_ARG_ADDRESS_PRIVATE,
                ArgKind::Buffer { .. } | ArgKind::Image => CL_KERNEL_ARG_ADDRESS_GLOBAL,
                ArgKind::Value { .. } | ArgKind::Sampler => CL_KERNEL_ARG_ADDRESS_PRIVATE,
            }),
            CL_KERNEL_ARG_ACCESS_QUALIFIER => info(&match arg.image_access {
                Some(ImageAccess::ReadOnly) => CL_KERNEL_ARG_ACCESS_READ_ONLY,
                Some(ImageAccess::WriteOnly) => CL_KERNEL_ARG_ACCESS_WRITE_ONLY,
                Some(ImageAccess::ReadWrite) => CL_KERNEL_ARG_ACCESS_READ_WRITE,
                None => CL_KERNEL_ARG_ACCESS_NONE,
            }),
            CL_KERNEL_ARG_TYPE_NAME => info(&arg.type_name),
            CL_KERNEL_ARG_TYPE_QUALIFIER => info(&arg.type_qualifiers),
            CL_KERNEL_ARG_NAME => info(&arg.name),
            // CL_INVALID_VALUE if param_name is not valid.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe { write_info(&v, param_value_size, param_value, param_value_size_ret) }
    })
}

/// The device a kernel query is about: NULL means the only one.
fn kernel_device(k: &Kernel, device: cl_device_id) -> ClResult<()> {
    let devices = &k.program.context.devices;
    if device.is_null() {
        // CL_INVALID_DEVICE if device is NULL but there is more than one device associated
        // with kernel.
        check(devices.len() == 1, CL_INVALID_DEVICE)
    } else {
        // CL_INVALID_DEVICE if device is not in the list of devices associated with kernel.
        let d = get::<Device>(device)?;
        check(k.program.context.has_device(&d), CL_INVALID_DEVICE)
    }
}

pub unsafe extern "C" fn get_kernel_work_group_info(
    kernel: cl_kernel,
    device: cl_device_id,
    param_name: cl_kernel_work_group_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_KERNEL if kernel is a not a valid kernel object.
        let k = get::<Kernel>(kernel)?;
        kernel_device(&k, device)?;
        let v = match param_name {
            CL_KERNEL_WORK_GROUP_SIZE => info(&k.max_work_group_size()),
            CL_KERNEL_COMPILE_WORK_GROUP_SIZE => {
                let r = k.info().reqd_work_group_size.unwrap_or([0; 3]);
                info(&r.map(|x| x as usize))
            }
            CL_KERNEL_LOCAL_MEM_SIZE => info(&(k.local_mem_size() as u64)),
            CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => {
                info(&PREFERRED_WORK_GROUP_SIZE_MULTIPLE)
            }
            CL_KERNEL_PRIVATE_MEM_SIZE => info(&(k.compiled.private_size as u64)),
            // cl_intel_required_subgroup_size: private memory is the thread's stack, which
            // never spills anywhere else.
            CL_KERNEL_SPILL_MEM_SIZE_INTEL => info(&0u64),
            // CL_INVALID_VALUE if param_name is CL_KERNEL_GLOBAL_WORK_SIZE and device is
            // not a custom device and kernel is not a built-in kernel. (A CPU device has no
            // built-in kernels.)
            CL_KERNEL_GLOBAL_WORK_SIZE => return Err(ClError(CL_INVALID_VALUE)),
            // CL_INVALID_VALUE if param_name is not valid.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe { write_info(&v, param_value_size, param_value, param_value_size_ret) }
    })
}

pub unsafe extern "C" fn get_kernel_sub_group_info(
    kernel: cl_kernel,
    device: cl_device_id,
    param_name: cl_kernel_sub_group_info,
    input_value_size: usize,
    input_value: *const c_void,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_KERNEL if kernel is a not a valid kernel object.
        let k = get::<Kernel>(kernel)?;
        // CL_INVALID_DEVICE if device is not in the list of devices associated with kernel
        // or if device is NULL but there is more than one device associated with kernel.
        kernel_device(&k, device)?;
        let word = std::mem::size_of::<usize>();
        // The local size a query is about: one to three size_t values.
        // CL_INVALID_VALUE if param_name is CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE or
        // CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE and the size in bytes specified by
        // input_value_size is not valid or if input_value is NULL.
        let local = || -> ClResult<Vec<usize>> {
            let n = input_value_size / word;
            check(
                !input_value.is_null()
                    && input_value_size.is_multiple_of(word)
                    && (1..=3).contains(&n),
                CL_INVALID_VALUE,
            )?;
            // SAFETY: input_value points to input_value_size bytes (API contract), n
            // size_t values.
            Ok(unsafe { slice(input_value as *const usize, n) }.to_vec())
        };
        let v = match param_name {
            CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE => info(&k.max_sub_group_size_for(&local()?)),
            CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE => info(&k.sub_group_count_for(&local()?)),
            CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT => {
                // CL_INVALID_VALUE if param_name is CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT
                // and the size in bytes specified by input_value_size is not valid or if
                // input_value is NULL.
                check(
                    !input_value.is_null() && input_value_size == word,
                    CL_INVALID_VALUE,
                )?;
                // SAFETY: input_value points to one size_t (checked size, API contract).
                let count = unsafe { *(input_value as *const usize) };
                // The output is a local size of as many dimensions as param_value has
                // room for (one to three).
                let dims = if param_value.is_null() {
                    3
                } else {
                    param_value_size / word
                };
                check(
                    (1..=3).contains(&dims)
                        && (param_value.is_null() || param_value_size.is_multiple_of(word)),
                    CL_INVALID_VALUE,
                )?;
                info(&k.local_size_for_sub_group_count(count, dims))
            }
            CL_KERNEL_MAX_NUM_SUB_GROUPS => info(&k.max_num_sub_groups()),
            // No kernel asks for a number of sub-groups (no `SubgroupsPerWorkgroup`
            // execution mode is accepted).
            CL_KERNEL_COMPILE_NUM_SUB_GROUPS => info(&0usize),
            // cl_intel_required_subgroup_size: the kernel's `intel_reqd_sub_group_size`, or 0.
            CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL => {
                info(&(k.info().reqd_sub_group_size.unwrap_or(0) as usize))
            }
            // CL_INVALID_VALUE if param_name is not one of the supported values.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe { write_info(&v, param_value_size, param_value, param_value_size_ret) }
    })
}
