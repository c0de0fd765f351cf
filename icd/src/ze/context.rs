//! Contexts. A context owns USM allocations (the runtime's allocation map records the
//! context as their owner); everything else about it is trivial on a CPU, where all
//! memory is always resident.
#![expect(non_snake_case, reason = "entry points keep their Level-Zero names")]

use super::sys::*;
use super::{check, device, driver, handle, input, write_out, ze_call, ZeResult};
use std::ffi::c_void;
use std::sync::{Arc, OnceLock};

/// The object behind `ze_context_handle_t`.
pub struct Context {
    pub driver: Arc<driver::Driver>,
    /// The runtime context its images belong to, made with the first image.
    runtime: OnceLock<Arc<ferrite_runtime::context::Context>>,
}

impl Context {
    fn new(driver: Arc<driver::Driver>) -> Context {
        Context {
            driver,
            runtime: OnceLock::new(),
        }
    }

    /// The runtime context of this context's images.
    pub fn runtime(&self) -> Arc<ferrite_runtime::context::Context> {
        self.runtime
            .get_or_init(|| {
                ferrite_runtime::context::Context::new(
                    vec![self.driver.device.clone()],
                    Vec::new(),
                    None,
                )
            })
            .clone()
    }

    /// The owner id of this context's USM allocations: the handle's address.
    pub fn owner(self: &Arc<Self>) -> usize {
        Arc::as_ptr(self) as usize
    }
}

/// The context behind a handle.
pub fn get(h: ze_context_handle_t) -> ZeResult<Arc<Context>> {
    handle::get::<Context, _>(h)
}

fn create(
    h_driver: ze_driver_handle_t,
    desc: *const ze_context_desc_t,
    ph_context: *mut ze_context_handle_t,
) -> ZeResult<ze_result_t> {
    let driver = driver::get(h_driver)?;
    // SAFETY: `desc` is NULL or a valid descriptor (API contract).
    let desc = unsafe { input(desc)? };
    // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0x1 < desc->flags
    check(desc.flags <= 0x1, ZE_RESULT_ERROR_INVALID_ENUMERATION)?;
    check(!ph_context.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
    let h: ze_context_handle_t = handle::insert(Arc::new(Context::new(driver)));
    // SAFETY: non-NULL, valid for writes (API contract).
    unsafe { write_out(ph_context, h)? };
    Ok(ZE_RESULT_SUCCESS)
}

pub(super) unsafe extern "C" fn zeContextCreate(
    h_driver: ze_driver_handle_t,
    desc: *const ze_context_desc_t,
    ph_context: *mut ze_context_handle_t,
) -> ze_result_t {
    ze_call(|| create(h_driver, desc, ph_context))
}

pub(super) unsafe extern "C" fn zeContextCreateEx(
    h_driver: ze_driver_handle_t,
    desc: *const ze_context_desc_t,
    num_devices: u32,
    ph_devices: *mut ze_device_handle_t,
    ph_context: *mut ze_context_handle_t,
) -> ze_result_t {
    ze_call(|| {
        // ZE_RESULT_ERROR_INVALID_SIZE: (nullptr == phDevices) && (0 < numDevices)
        // SAFETY: phDevices is NULL or an array of numDevices handles (API contract).
        let devices =
            unsafe { super::slice_in(ph_devices as *const ze_device_handle_t, num_devices)? };
        for &d in devices {
            device::get(d)?;
        }
        create(h_driver, desc, ph_context)
    })
}

pub(super) unsafe extern "C" fn zeContextDestroy(h_context: ze_context_handle_t) -> ze_result_t {
    ze_call(|| {
        let ctx = handle::remove::<Context, _>(h_context)?;
        // "The implementation of this function may immediately free all Host and Device
        // allocations associated with this context": it does, so a later context that
        // happens to get the same address does not inherit them.
        ferrite_runtime::usm::free_owner(ctx.owner());
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeContextGetStatus(h_context: ze_context_handle_t) -> ze_result_t {
    ze_call(|| {
        get(h_context)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeContextSystemBarrier(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_context)?;
        device::get(h_device)?;
        // Kernels and the host share one coherent memory: a full fence is all it takes.
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeContextMakeMemoryResident(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    ptr: *mut c_void,
    _size: usize,
) -> ze_result_t {
    ze_call(|| {
        get(h_context)?;
        device::get(h_device)?;
        check(!ptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // Host memory is always resident for the device.
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeContextEvictMemory(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    ptr: *mut c_void,
    _size: usize,
) -> ze_result_t {
    ze_call(|| {
        get(h_context)?;
        device::get(h_device)?;
        check(!ptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}
