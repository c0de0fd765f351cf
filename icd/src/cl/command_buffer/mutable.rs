//! `cl_khr_command_buffer_mutable_dispatch` (revision 0.9.5): a launch recorded with a
//! mutable handle keeps its own copy of the kernel's arguments and its geometry
//! ([`MutableLaunch`]); `clUpdateMutableCommandsKHR` checks every update as
//! `clSetKernelArg*`/`clSetKernelExecInfo`/`clEnqueueNDRangeKernel` would, builds the new
//! launch from the copy, and replaces the recorded op: later enqueues run it, enqueues
//! already made keep the old one.

use super::super::enqueue::{launch_op, nd_range};
use super::super::handle::{self, get};
use super::super::info::{info, write_info};
use super::super::kernel::set_arg;
use super::super::svm::{check_exec_info, set_arg_pointer};
use super::super::{check, cl_call, slice};
use crate::error::{ClError, ClResult};
use ferrite_runtime::command::buffer::{CommandBuffer, LaunchState, MutableLaunch};
use ferrite_runtime::command::Op;
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

/// `CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR`: every field can be updated (a launch is
/// rebuilt from its parts, so nothing is baked in).
pub const CAPABILITIES: cl_mutable_dispatch_fields_khr = CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR
    | CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR
    | CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR
    | CL_MUTABLE_DISPATCH_ARGUMENTS_KHR
    | CL_MUTABLE_DISPATCH_EXEC_INFO_KHR;

/// `CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR` as the 0.9.5 headers (and the
/// registry) number it; `opencl-sys` 0.6.5 carries an older value.
pub const COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS: cl_command_buffer_properties_khr = 0x12B7;

/// The assertions an application may make (promises about its updates; nothing to do).
pub const ASSERTS: cl_mutable_dispatch_asserts_khr =
    CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR;

/// The updatable fields a launch's property list asks for, and the list as given
/// (zero-terminated, empty when NULL): `CL_INVALID_VALUE` for an unknown or repeated
/// property, or fields the device cannot update.
///
/// # Safety
/// `properties` is NULL or a zero-terminated list of (name, value) pairs.
pub(super) unsafe fn launch_properties(
    properties: *const cl_command_properties_khr,
) -> ClResult<(cl_mutable_dispatch_fields_khr, Vec<u64>)> {
    // SAFETY: per the caller.
    let (pairs, list) = unsafe {
        super::property_list(
            properties,
            &[
                CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
                CL_MUTABLE_DISPATCH_ASSERTS_KHR,
            ],
        )
    }?;
    let (mut fields, mut asserts) = (None, None);
    for (name, value) in pairs {
        let (slot, allowed) = match name {
            CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR => (&mut fields, CAPABILITIES),
            CL_MUTABLE_DISPATCH_ASSERTS_KHR => (&mut asserts, ASSERTS),
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        check(value & !allowed == 0, CL_INVALID_VALUE)?;
        *slot = Some(value);
    }
    // Without the property every field the device can update may be updated.
    Ok((fields.unwrap_or(CAPABILITIES), list))
}

/// Record `op` (a launch of a copy of `kernel`'s arguments, `state`) as a mutable command
/// of `cb` at `index`, and return its handle.
pub(super) fn make_handle(
    cb: &Arc<CommandBuffer>,
    index: usize,
    kernel: Arc<ferrite_runtime::kernel::Kernel>,
    fields: cl_mutable_dispatch_fields_khr,
    properties: Vec<u64>,
    state: LaunchState,
) -> cl_mutable_command_khr {
    let m = MutableLaunch::new(cb, index, kernel, fields, properties, state);
    cb.add_mutable(m.clone());
    handle::new_handle(m)
}

/// Forget the handles of `cb`'s mutable commands (the buffer is released for good).
pub(super) fn forget_handles(cb: &CommandBuffer) {
    for m in cb.mutable_launches() {
        handle::forget::<MutableLaunch>(handle::handle(&m));
    }
}

/// One update, checked and built but not applied: its new op, or `None` while some of a
/// deferred launch's arguments are still unset.
struct Update {
    launch: Arc<MutableLaunch>,
    state: LaunchState,
    op: Option<Op>,
}

/// Check and build the update of `config` for `cb`; `pending` are the updates built so far
/// in this call (a command updated twice builds on its first update).
///
/// # Safety
/// The pointers in `config` follow the API contract.
unsafe fn build(
    cb: &Arc<CommandBuffer>,
    config: &cl_mutable_dispatch_config_khr,
    pending: &[Update],
) -> ClResult<Update> {
    // CL_INVALID_MUTABLE_COMMAND_KHR if command is not a valid mutable command object, or
    // was not created from command_buffer.
    let launch = get::<MutableLaunch>(config.command)
        .map_err(|_| ClError(CL_INVALID_MUTABLE_COMMAND_KHR))?;
    let ours = launch.buffer.upgrade().is_some_and(|b| Arc::ptr_eq(&b, cb));
    check(ours, CL_INVALID_MUTABLE_COMMAND_KHR)?;
    let base = match pending
        .iter()
        .rev()
        .find(|u| Arc::ptr_eq(&u.launch, &launch))
    {
        Some(u) => u.state.clone(),
        None => launch.state.lock().clone(),
    };
    let fields = launch.fields;
    // The arguments go to a copy of the launch's copy: nothing changes unless every
    // update of the call is valid.
    let args = base.args.duplicate();
    // CL_INVALID_OPERATION if an update asks for a field the command was not recorded as
    // updatable (CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR).
    let may =
        |field: cl_mutable_dispatch_fields_khr| check(fields & field != 0, CL_INVALID_OPERATION);
    // CL_INVALID_VALUE if a list is NULL while its count is not 0.
    let list = |n: cl_uint, p: *const c_void| check(n == 0 || !p.is_null(), CL_INVALID_VALUE);
    if config.num_args > 0 || config.num_svm_args > 0 {
        may(CL_MUTABLE_DISPATCH_ARGUMENTS_KHR)?;
    }
    list(config.num_args, config.arg_list.cast())?;
    // SAFETY: num_args entries (API contract).
    for a in unsafe { slice(config.arg_list, config.num_args as usize) } {
        // The errors of clSetKernelArg.
        // SAFETY: arg_value is NULL or points to arg_size bytes (API contract).
        unsafe { set_arg(&args, a.arg_index, a.arg_size, a.arg_value) }?;
    }
    list(config.num_svm_args, config.arg_svm_list.cast())?;
    // SAFETY: num_svm_args entries (API contract).
    for a in unsafe { slice(config.arg_svm_list, config.num_svm_args as usize) } {
        // The errors of clSetKernelArgSVMPointer.
        set_arg_pointer(&args, a.arg_index, a.arg_value)?;
    }
    if config.num_exec_infos > 0 {
        may(CL_MUTABLE_DISPATCH_EXEC_INFO_KHR)?;
    }
    list(config.num_exec_infos, config.exec_info_list.cast())?;
    // SAFETY: num_exec_infos entries (API contract).
    for e in unsafe { slice(config.exec_info_list, config.num_exec_infos as usize) } {
        // The errors of clSetKernelExecInfo.
        check_exec_info(e.param_name, e.param_value_size, e.param_value)?;
    }
    // CL_INVALID_VALUE if work_dim is not 0 (no change) and differs from the command's.
    let range = base.range;
    check(
        config.work_dim == 0 || config.work_dim == range.work_dim,
        CL_INVALID_VALUE,
    )?;
    let dims = range.work_dim as usize;
    let given = |p: *const usize, field, old: [u64; 3]| -> ClResult<Option<[usize; 3]>> {
        if p.is_null() {
            return Ok(Some(old.map(|v| v as usize)));
        }
        may(field)?;
        let mut out = [0usize; 3];
        // SAFETY: work_dim values (API contract).
        out[..dims].copy_from_slice(unsafe { slice(p, dims) });
        Ok(Some(out))
    };
    let offset = given(
        config.global_work_offset,
        CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR,
        range.global_offset,
    )?;
    let global = given(
        config.global_work_size,
        CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR,
        range.global_size,
    )?;
    // A local size chosen by the driver is chosen again for a new global size.
    let local_given = base.local_given || !config.local_work_size.is_null();
    let local = if local_given {
        given(
            config.local_work_size,
            CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR,
            range.local_size,
        )?
    } else {
        None
    };
    let ptr = |a: &Option<[usize; 3]>| a.as_ref().map_or(std::ptr::null(), |a| a.as_ptr());
    // The errors of clEnqueueNDRangeKernel for the new geometry.
    // SAFETY: each pointer is NULL or points to three values.
    let range = unsafe {
        nd_range(
            &args,
            range.work_dim,
            ptr(&offset),
            ptr(&global),
            ptr(&local),
        )
    }?;
    // A launch recorded with arguments unset may get them over several updates; it runs
    // once all are set.
    let op = if args.all_args_set() {
        Some(launch_op(&args, range)?)
    } else {
        None
    };
    // The base state holds the memory objects the old arguments named: the new copy's
    // are all alive here.
    let held = args.arg_buffers();
    Ok(Update {
        launch,
        state: LaunchState {
            args,
            range,
            local_given,
            held,
        },
        op,
    })
}

pub unsafe extern "C" fn update_mutable_commands(
    command_buffer: cl_command_buffer_khr,
    num_configs: cl_uint,
    config_types: *const cl_command_buffer_update_type_khr,
    configs: *mut *const c_void,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid command-buffer.
        let cb = get::<CommandBuffer>(command_buffer)?;
        // One update of a buffer at a time: each builds on the last one's state.
        let _updating = cb.updating();
        // CL_INVALID_OPERATION if command_buffer has not been finalized, or was not
        // created with CL_COMMAND_BUFFER_MUTABLE_KHR.
        check(cb.is_finalized(), CL_INVALID_OPERATION)?;
        check(
            cb.flags & CL_COMMAND_BUFFER_MUTABLE_KHR != 0,
            CL_INVALID_OPERATION,
        )?;
        // CL_INVALID_VALUE if num_configs is 0, or config_types or configs is NULL.
        check(
            num_configs > 0 && !config_types.is_null() && !configs.is_null(),
            CL_INVALID_VALUE,
        )?;
        // SAFETY: num_configs entries each (API contract).
        let (types, configs) = unsafe {
            (
                slice(config_types, num_configs as usize),
                slice(configs as *const *const c_void, num_configs as usize),
            )
        };
        let mut updates: Vec<Update> = Vec::new();
        for (&t, &c) in types.iter().zip(configs) {
            // CL_INVALID_VALUE if a type is not a known update type, or its config NULL.
            check(
                t == CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR && !c.is_null(),
                CL_INVALID_VALUE,
            )?;
            // SAFETY: a dispatch config, per its type (API contract).
            let config = unsafe { &*(c as *const cl_mutable_dispatch_config_khr) };
            // SAFETY: its pointers follow the API contract.
            let u = unsafe { build(&cb, config, &updates) }?;
            updates.push(u);
        }
        // Every update is valid: apply them all, the ops at once (an enqueue sees all of
        // them or none), then the states they were built from.
        let mut ops = Vec::with_capacity(updates.len());
        let mut states = Vec::with_capacity(updates.len());
        for u in updates {
            ops.push((u.launch.index, u.op));
            states.push((u.launch, u.state));
        }
        cb.replace_all(ops)?;
        for (launch, state) in states {
            *launch.state.lock() = state;
        }
        Ok(())
    })
}

pub unsafe extern "C" fn get_mutable_command_info(
    command: cl_mutable_command_khr,
    param_name: cl_mutable_command_info_khr,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_MUTABLE_COMMAND_KHR if command is not a valid mutable command object.
        let m = get::<MutableLaunch>(command)?;
        let cb = m
            .buffer
            .upgrade()
            .ok_or(ClError(CL_INVALID_MUTABLE_COMMAND_KHR))?;
        let range = m.state.lock().range;
        let dims = range.work_dim as usize;
        let sizes = |a: [u64; 3]| -> Vec<usize> { a[..dims].iter().map(|&v| v as usize).collect() };
        let v = match param_name {
            CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR => info(&handle::handle(&cb.queue)),
            CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR => info(&handle::handle(&cb)),
            CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR => {
                info(&(CL_COMMAND_NDRANGE_KERNEL as cl_command_type))
            }
            CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR => info(&m.properties[..]),
            CL_MUTABLE_DISPATCH_KERNEL_KHR => info(&handle::handle(&m.kernel)),
            CL_MUTABLE_DISPATCH_DIMENSIONS_KHR => info(&range.work_dim),
            CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR => info(&sizes(range.global_offset)[..]),
            CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR => info(&sizes(range.global_size)[..]),
            CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR => info(&sizes(range.local_size)[..]),
            // CL_INVALID_VALUE if param_name is not one of the supported values.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe { write_info(&v, param_value_size, param_value, param_value_size_ret) }
    })
}
