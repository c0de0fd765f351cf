//! Event entry points: waiting, queries, profiling, callbacks, user events.

use super::handle::{self, get, get_list};
use super::info::{info, write_info};
use super::{check, cl_call, cl_create, SendPtr};
use crate::error::{exec_status, ClError, ClResult};
use ferrite_runtime::context::Context;
use ferrite_runtime::event::{
    CallbackTrigger, CommandType, Event, ExecError, ProfilingUnavailable, Status,
};
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

/// `CL_EVENT_COMMAND_TYPE` of a command.
pub fn command_type(t: CommandType) -> cl_command_type {
    match t {
        CommandType::NdRangeKernel => CL_COMMAND_NDRANGE_KERNEL,
        CommandType::Task => CL_COMMAND_TASK,
        CommandType::ReadBuffer => CL_COMMAND_READ_BUFFER,
        CommandType::WriteBuffer => CL_COMMAND_WRITE_BUFFER,
        CommandType::CopyBuffer => CL_COMMAND_COPY_BUFFER,
        CommandType::ReadBufferRect => CL_COMMAND_READ_BUFFER_RECT,
        CommandType::WriteBufferRect => CL_COMMAND_WRITE_BUFFER_RECT,
        CommandType::CopyBufferRect => CL_COMMAND_COPY_BUFFER_RECT,
        CommandType::NativeKernel => CL_COMMAND_NATIVE_KERNEL,
        CommandType::FillBuffer => CL_COMMAND_FILL_BUFFER,
        CommandType::MapBuffer => CL_COMMAND_MAP_BUFFER,
        CommandType::ReadImage => CL_COMMAND_READ_IMAGE,
        CommandType::WriteImage => CL_COMMAND_WRITE_IMAGE,
        CommandType::CopyImage => CL_COMMAND_COPY_IMAGE,
        CommandType::FillImage => CL_COMMAND_FILL_IMAGE,
        CommandType::CopyImageToBuffer => CL_COMMAND_COPY_IMAGE_TO_BUFFER,
        CommandType::CopyBufferToImage => CL_COMMAND_COPY_BUFFER_TO_IMAGE,
        CommandType::MapImage => CL_COMMAND_MAP_IMAGE,
        CommandType::UnmapMemObject => CL_COMMAND_UNMAP_MEM_OBJECT,
        CommandType::Marker => CL_COMMAND_MARKER,
        CommandType::Barrier => CL_COMMAND_BARRIER,
        CommandType::MigrateMemObjects => CL_COMMAND_MIGRATE_MEM_OBJECTS,
        CommandType::User => CL_COMMAND_USER,
        CommandType::SvmFree => CL_COMMAND_SVM_FREE,
        CommandType::SvmMemcpy => CL_COMMAND_SVM_MEMCPY,
        CommandType::SvmMemFill => CL_COMMAND_SVM_MEMFILL,
        CommandType::SvmMap => CL_COMMAND_SVM_MAP,
        CommandType::SvmUnmap => CL_COMMAND_SVM_UNMAP,
        CommandType::SvmMigrateMem => CL_COMMAND_SVM_MIGRATE_MEM,
        CommandType::MemFillIntel => CL_COMMAND_MEMFILL_INTEL,
        CommandType::MemcpyIntel => CL_COMMAND_MEMCPY_INTEL,
        CommandType::MigrateMemIntel => CL_COMMAND_MIGRATEMEM_INTEL,
        CommandType::MemAdviseIntel => CL_COMMAND_MEMADVISE_INTEL,
        CommandType::CommandBuffer => CL_COMMAND_COMMAND_BUFFER_KHR,
    }
}

/// The events of a wait list, checked against `context`.
///
/// # Safety
/// `list` is NULL or points to `n` handles.
pub unsafe fn wait_list(
    context: &Arc<Context>,
    n: cl_uint,
    list: *const cl_event,
) -> ClResult<Vec<Arc<Event>>> {
    // CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and num_events_in_wait_list
    // > 0, or event_wait_list is not NULL and num_events_in_wait_list is 0, or if event
    // objects in event_wait_list are not valid events.
    check(list.is_null() == (n == 0), CL_INVALID_EVENT_WAIT_LIST)?;
    // SAFETY: per the caller.
    let events = unsafe { get_list::<Event>(list, n as usize, CL_INVALID_EVENT_WAIT_LIST) }?;
    // CL_INVALID_CONTEXT if the context associated with command_queue and events in
    // event_wait_list are not the same.
    check(
        events.iter().all(|e| Arc::ptr_eq(&e.context, context)),
        CL_INVALID_CONTEXT,
    )?;
    Ok(events)
}

pub unsafe extern "C" fn wait_for_events(
    num_events: cl_uint,
    event_list: *const cl_event,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_VALUE if num_events is zero or event_list is NULL.
        check(num_events > 0 && !event_list.is_null(), CL_INVALID_VALUE)?;
        // CL_INVALID_EVENT if event objects specified in event_list are not valid event
        // objects.
        // SAFETY: event_list points to num_events handles (API contract).
        let events =
            unsafe { get_list::<Event>(event_list, num_events as usize, CL_INVALID_EVENT) }?;
        // CL_INVALID_CONTEXT if events specified in event_list do not belong to the same
        // context.
        check(
            events
                .iter()
                .all(|e| Arc::ptr_eq(&e.context, &events[0].context)),
            CL_INVALID_CONTEXT,
        )?;
        let mut failed = false;
        for e in &events {
            failed |= matches!(e.wait(), Status::Failed(_));
        }
        // CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the execution status of any of
        // the events in event_list is a negative integer value.
        check(!failed, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    })
}

pub unsafe extern "C" fn get_event_info(
    event: cl_event,
    param_name: cl_event_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_EVENT if event is a not a valid event object.
        let e = get::<Event>(event)?;
        let v = match param_name {
            CL_EVENT_COMMAND_QUEUE => info(
                &e.queue
                    .as_ref()
                    .map_or(std::ptr::null_mut(), handle::handle),
            ),
            CL_EVENT_CONTEXT => info(&handle::handle(&e.context)),
            CL_EVENT_COMMAND_TYPE => info(&command_type(e.command_type)),
            CL_EVENT_COMMAND_EXECUTION_STATUS => info(&exec_status(e.status())),
            CL_EVENT_REFERENCE_COUNT => info(&e.api.ref_count()),
            // CL_INVALID_VALUE if param_name is not valid.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe { write_info(&v, param_value_size, param_value, param_value_size_ret) }
    })
}

pub unsafe extern "C" fn get_event_profiling_info(
    event: cl_event,
    param_name: cl_profiling_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_EVENT if event is a not a valid event object.
        let e = get::<Event>(event)?;
        // CL_PROFILING_INFO_NOT_AVAILABLE if the CL_QUEUE_PROFILING_ENABLE flag is not set
        // for the command-queue, if the execution status of the command identified by
        // event is not CL_COMPLETE or if event is a user event object.
        let t = e.profiling().map_err(|r| match r {
            ProfilingUnavailable::NotEnabled | ProfilingUnavailable::NotComplete => {
                ClError(CL_PROFILING_INFO_NOT_AVAILABLE)
            }
        })?;
        let v = match param_name {
            CL_PROFILING_COMMAND_QUEUED => t.queued,
            CL_PROFILING_COMMAND_SUBMIT => t.submit,
            CL_PROFILING_COMMAND_START => t.start,
            CL_PROFILING_COMMAND_END => t.end,
            CL_PROFILING_COMMAND_COMPLETE => t.complete,
            // CL_INVALID_VALUE if param_name is not valid.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe {
            write_info(
                &info(&v),
                param_value_size,
                param_value,
                param_value_size_ret,
            )
        }
    })
}

pub unsafe extern "C" fn retain_event(event: cl_event) -> cl_int {
    cl_call(|| handle::retain::<Event>(event))
}

pub unsafe extern "C" fn release_event(event: cl_event) -> cl_int {
    cl_call(|| handle::release::<Event>(event))
}

type EventNotify =
    Option<unsafe extern "C" fn(event: cl_event, status: cl_int, user_data: *mut c_void)>;

pub unsafe extern "C" fn set_event_callback(
    event: cl_event,
    command_exec_callback_type: cl_int,
    pfn_notify: EventNotify,
    user_data: *mut c_void,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_EVENT if event is not a valid event object.
        let e = get::<Event>(event)?;
        // CL_INVALID_VALUE if pfn_event_notify is NULL or if command_exec_callback_type is
        // not CL_SUBMITTED, CL_RUNNING, or CL_COMPLETE.
        let f = pfn_notify.ok_or(ClError(CL_INVALID_VALUE))?;
        let trigger = match command_exec_callback_type {
            CL_SUBMITTED => CallbackTrigger::Submitted,
            CL_RUNNING => CallbackTrigger::Running,
            CL_COMPLETE => CallbackTrigger::Complete,
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        let (h, user_data) = (SendPtr(event), SendPtr(user_data));
        e.add_callback(
            trigger,
            Box::new(move |status| {
                // SAFETY: the application's callback with its event handle, the status
                // reached, and its user_data, called exactly once.
                unsafe { f(h.get(), exec_status(status), user_data.get()) }
            }),
        );
        Ok(())
    })
}

pub unsafe extern "C" fn create_user_event(
    context: cl_context,
    errcode_ret: *mut cl_int,
) -> cl_event {
    cl_create(errcode_ret, || {
        // CL_INVALID_CONTEXT if context is not a valid context.
        let ctx = get::<Context>(context)?;
        Ok(handle::new_handle(Event::new_user(ctx)))
    })
}

pub unsafe extern "C" fn set_user_event_status(
    event: cl_event,
    execution_status: cl_int,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_EVENT if event is not a valid user event object.
        let e = get::<Event>(event)?;
        check(e.command_type == CommandType::User, CL_INVALID_EVENT)?;
        // CL_INVALID_VALUE if the execution_status is not CL_COMPLETE or a negative
        // integer value.
        let status = match execution_status {
            CL_COMPLETE => Status::Complete,
            s if s < 0 => Status::Failed(ExecError::User(s)),
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // CL_INVALID_OPERATION if the execution_status for event has already been changed
        // by a previous call to clSetUserEventStatus.
        e.set_user_status(status)?;
        Ok(())
    })
}
