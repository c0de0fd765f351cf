//! Fences: signalled by their queue when the command lists executed with them completed.
#![expect(non_snake_case, reason = "entry points keep their Level-Zero names")]

use super::sys::*;
use super::{check, cmdqueue, handle, input, write_out, ze_call, ZeResult};
use ferrite_runtime::ze::fence::Fence as RtFence;
use std::sync::Arc;

/// The object behind `ze_fence_handle_t`: the runtime fence and its queue.
pub struct Fence {
    pub rt: Arc<RtFence>,
    pub queue: Arc<cmdqueue::Queue>,
}

fn get(h: ze_fence_handle_t) -> ZeResult<Arc<Fence>> {
    handle::get::<Fence, _>(h)
}

pub(super) unsafe extern "C" fn zeFenceCreate(
    h_queue: ze_command_queue_handle_t,
    desc: *const ze_fence_desc_t,
    ph_fence: *mut ze_fence_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let queue = cmdqueue::get(h_queue)?;
        // SAFETY: NULL or a valid descriptor (API contract).
        let desc = unsafe { input(desc)? };
        check(!ph_fence.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0x1 < desc->flags
        check(desc.flags <= 0x1, ZE_RESULT_ERROR_INVALID_ENUMERATION)?;
        let signaled = desc.flags & ZE_FENCE_FLAG_SIGNALED != 0;
        let f = Arc::new(Fence {
            rt: Arc::new(RtFence::new(signaled)),
            queue,
        });
        let h: ze_fence_handle_t = handle::insert(f);
        // SAFETY: non-NULL, valid for writes (API contract).
        unsafe { write_out(ph_fence, h)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeFenceDestroy(h_fence: ze_fence_handle_t) -> ze_result_t {
    ze_call(|| {
        handle::remove::<Fence, _>(h_fence)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// A signalled fence's result: `ZE_RESULT_ERROR_DEVICE_LOST` when a command of its batch
/// failed (a kernel fault or time limit; the report went to stderr).
fn done(f: &ferrite_runtime::ze::fence::Fence) -> ze_result_t {
    if f.failed() {
        ZE_RESULT_ERROR_DEVICE_LOST
    } else {
        ZE_RESULT_SUCCESS
    }
}

pub(super) unsafe extern "C" fn zeFenceHostSynchronize(
    h_fence: ze_fence_handle_t,
    timeout: u64,
) -> ze_result_t {
    ze_call(|| {
        let f = get(h_fence)?;
        Ok(if f.rt.wait(timeout) {
            done(&f.rt)
        } else {
            ZE_RESULT_NOT_READY
        })
    })
}

pub(super) unsafe extern "C" fn zeFenceQueryStatus(h_fence: ze_fence_handle_t) -> ze_result_t {
    ze_call(|| {
        let f = get(h_fence)?;
        Ok(if f.rt.is_signaled() {
            done(&f.rt)
        } else {
            ZE_RESULT_NOT_READY
        })
    })
}

pub(super) unsafe extern "C" fn zeFenceReset(h_fence: ze_fence_handle_t) -> ze_result_t {
    ze_call(|| {
        get(h_fence)?.rt.reset();
        Ok(ZE_RESULT_SUCCESS)
    })
}
