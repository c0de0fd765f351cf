//! Command queues: each has its own thread that runs the submitted command lists in
//! order (`ferrite_runtime::ze::cmdqueue`); kernels go to the shared executor.
#![expect(non_snake_case, reason = "entry points keep their Level-Zero names")]

use super::cmdlist::CmdList;
use super::fence::Fence;
use super::sys::*;
use super::{check, context, device, handle, input, write_out, ze_call, ZeResult};
use ferrite_runtime::ze::cmdqueue::{Batch, CmdQueue, Priority};
use std::sync::Arc;

/// The object behind `ze_command_queue_handle_t`: the runtime queue and the queue group
/// it belongs to.
pub struct Queue {
    pub rt: CmdQueue,
    pub ordinal: u32,
}

pub fn get(h: ze_command_queue_handle_t) -> ZeResult<Arc<Queue>> {
    handle::get::<Queue, _>(h)
}

/// Check a queue descriptor (also an immediate list's); returns whether it is
/// synchronous, and its priority.
pub fn check_queue_desc(desc: &ze_command_queue_desc_t) -> ZeResult<(bool, Priority)> {
    // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0x7 < desc->flags, an unknown mode or
    // priority. The flags of later versions, IN_ORDER (1.7: Ferrite's queues run in
    // order anyway) and COPY_OFFLOAD_HINT, are hints a CPU queue meets as it is.
    check(desc.flags <= 0x7, ZE_RESULT_ERROR_INVALID_ENUMERATION)?;
    check(
        desc.mode <= ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
        ZE_RESULT_ERROR_INVALID_ENUMERATION,
    )?;
    check(
        desc.priority <= ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH,
        ZE_RESULT_ERROR_INVALID_ENUMERATION,
    )?;
    device::check_queue(desc.ordinal, desc.index)?;
    let priority = match desc.priority {
        ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_LOW => Priority::Low,
        ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH => Priority::High,
        _ => Priority::Normal,
    };
    Ok((desc.mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS, priority))
}

pub(super) unsafe extern "C" fn zeCommandQueueCreate(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    desc: *const ze_command_queue_desc_t,
    ph_queue: *mut ze_command_queue_handle_t,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        device::get(h_device)?;
        // SAFETY: NULL or a valid descriptor (API contract).
        let desc = unsafe { input(desc)? };
        check(!ph_queue.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        let (synchronous, priority) = check_queue_desc(desc)?;
        let h: ze_command_queue_handle_t = handle::insert(Arc::new(Queue {
            rt: CmdQueue::new(synchronous, priority)?,
            ordinal: desc.ordinal,
        }));
        // SAFETY: non-NULL, valid for writes (API contract).
        unsafe { write_out(ph_queue, h)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeCommandQueueDestroy(
    h_queue: ze_command_queue_handle_t,
) -> ze_result_t {
    ze_call(|| {
        // The last holder's drop finishes the submitted work and joins the thread
        // (outside the registry lock).
        drop(handle::remove::<Queue, _>(h_queue)?);
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeCommandQueueExecuteCommandLists(
    h_queue: ze_command_queue_handle_t,
    n_lists: u32,
    ph_lists: *mut ze_command_list_handle_t,
    h_fence: ze_fence_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let q = get(h_queue)?;
        check(!ph_lists.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // ZE_RESULT_ERROR_INVALID_SIZE: 0 == numCommandLists
        check(n_lists != 0, ZE_RESULT_ERROR_INVALID_SIZE)?;
        // SAFETY: phCommandLists points to numCommandLists handles (API contract).
        let lists = unsafe { handle::get_list::<CmdList, _>(ph_lists, n_lists)? };
        let fence = match handle::get_opt::<Fence, _>(h_fence)? {
            None => None,
            Some(f) => {
                // The fence must belong to this queue.
                check(
                    Arc::ptr_eq(&f.queue, &q),
                    ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT,
                )?;
                Some(f.rt.clone())
            }
        };
        let cmds = super::cmdlist::closed_commands(&lists, q.ordinal)?;
        q.rt.submit(Batch { lists: cmds, fence });
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeCommandQueueSynchronize(
    h_queue: ze_command_queue_handle_t,
    timeout: u64,
) -> ze_result_t {
    ze_call(|| {
        let q = get(h_queue)?;
        Ok(if q.rt.synchronize(timeout) {
            // A failed command (kernel fault or time limit) is reported once; the queue
            // stays usable.
            if q.rt.take_failure() {
                ZE_RESULT_ERROR_DEVICE_LOST
            } else {
                ZE_RESULT_SUCCESS
            }
        } else {
            ZE_RESULT_NOT_READY
        })
    })
}
