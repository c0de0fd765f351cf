//! Event pools and events. Every event is host-visible; pools created with
//! `ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP` report when the signalling command ran.
#![expect(non_snake_case, reason = "entry points keep their Level-Zero names")]

use super::sys::*;
use super::sys_next::{
    ze_event_counter_based_desc_t, ze_event_query_kernel_timestamps_results_ext_properties_t,
    ze_synchronized_timestamp_data_ext_t, ze_synchronized_timestamp_result_ext_t,
    ZE_EVENT_COUNTER_BASED_FLAG_DEVICE_TIMESTAMP, ZE_EVENT_COUNTER_BASED_FLAG_HOST_TIMESTAMP,
    ZE_EVENT_COUNTER_BASED_FLAG_IPC,
};
use super::{check, context, device, handle, input, output, write_out, ze_call, ZeError, ZeResult};
use ferrite_runtime::mem::ipc;
use ferrite_runtime::ze::event::{EventPool, ZeEvent};
use ferrite_runtime::ze::event_ipc::SharedSlots;
use std::sync::Arc;

fn get(h: ze_event_handle_t) -> ZeResult<Arc<ZeEvent>> {
    handle::get::<ZeEvent, _>(h)
}

/// `ZE_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP` (1.6; newer than the generated bindings).
const KERNEL_MAPPED_TIMESTAMP: ze_event_pool_flags_t = 1 << 3;

pub(super) unsafe extern "C" fn zeEventPoolCreate(
    h_context: ze_context_handle_t,
    desc: *const ze_event_pool_desc_t,
    n_devices: u32,
    ph_devices: *mut ze_device_handle_t,
    ph_pool: *mut ze_event_pool_handle_t,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        // SAFETY: NULL or a valid descriptor (API contract).
        let desc = unsafe { input(desc)? };
        check(!ph_pool.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0xf < desc->flags. KERNEL_MAPPED_TIMESTAMP
        // (1.6, 0x8) asks for kernel timestamps on the host's clock: Ferrite's are.
        check(desc.flags <= 0xf, ZE_RESULT_ERROR_INVALID_ENUMERATION)?;
        // ZE_RESULT_ERROR_INVALID_SIZE: 0 == desc->count
        check(desc.count != 0, ZE_RESULT_ERROR_INVALID_SIZE)?;
        // ZE_RESULT_ERROR_INVALID_SIZE: (nullptr == phDevices) && (0 < numDevices)
        // SAFETY: phDevices is NULL or numDevices handles (API contract).
        let devices =
            unsafe { super::slice_in(ph_devices as *const ze_device_handle_t, n_devices)? };
        for &d in devices {
            device::get(d)?;
        }
        // An IPC pool keeps its events' state in a file another process can map.
        let shared = match desc.flags & ZE_EVENT_POOL_FLAG_IPC {
            0 => None,
            _ => Some(SharedSlots::create(desc.count)?),
        };
        let pool = Arc::new(EventPool {
            count: desc.count,
            timestamps: desc.flags
                & (ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP | KERNEL_MAPPED_TIMESTAMP)
                != 0,
            host_visible: true,
            shared,
        });
        let h: ze_event_pool_handle_t = handle::insert(pool);
        // SAFETY: non-NULL, valid for writes (API contract).
        unsafe { write_out(ph_pool, h)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeEventPoolDestroy(h_pool: ze_event_pool_handle_t) -> ze_result_t {
    ze_call(|| {
        handle::remove::<EventPool, _>(h_pool)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeEventPoolGetIpcHandle`: the handle of a pool created with `ZE_EVENT_POOL_FLAG_IPC`
/// (else `ZE_RESULT_ERROR_INVALID_ARGUMENT`): its shared file, as a memory handle names
/// one (`ferrite_runtime::mem::ipc`), with the pool's event count and timestamp flag.
pub(super) unsafe extern "C" fn zeEventPoolGetIpcHandle(
    h_pool: ze_event_pool_handle_t,
    ph_ipc: *mut ze_ipc_event_pool_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let pool = handle::get::<EventPool, _>(h_pool)?;
        check(!ph_ipc.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        let h = pool
            .shared
            .as_ref()
            .and_then(|sh| sh.handle())
            .ok_or(ZeError(ZE_RESULT_ERROR_INVALID_ARGUMENT))?;
        let mut data = h.to_bytes();
        data[IPC_TIMESTAMPS] = u8::from(pool.timestamps);
        // SAFETY: non-NULL, valid for writes (API contract).
        unsafe {
            write_out(
                ph_ipc,
                ze_ipc_event_pool_handle_t {
                    data: data.map(|b| b as _),
                },
            )?
        };
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// Byte of an event-pool handle that says whether its events record timestamps (past
/// the fields of `mem::ipc::Handle`, which are zero there).
const IPC_TIMESTAMPS: usize = 32;

/// `zeEventPoolOpenIpcHandle`: the pool another process (or this one) shared, mapped
/// here; its events are that pool's events.
pub(super) unsafe extern "C" fn zeEventPoolOpenIpcHandle(
    h_context: ze_context_handle_t,
    h_ipc: ze_ipc_event_pool_handle_t,
    ph_pool: *mut ze_event_pool_handle_t,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        check(!ph_pool.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        let data = h_ipc.data.map(|b| b as u8);
        let h = ipc::Handle::from_bytes(&data).ok_or(ZeError(ZE_RESULT_ERROR_INVALID_ARGUMENT))?;
        let shared = SharedSlots::open(&h)?;
        let count =
            u32::try_from(h.offset).map_err(|_| ZeError(ZE_RESULT_ERROR_INVALID_ARGUMENT))?;
        let pool = Arc::new(EventPool {
            count,
            timestamps: data[IPC_TIMESTAMPS] != 0,
            host_visible: true,
            shared: Some(shared),
        });
        let h: ze_event_pool_handle_t = handle::insert(pool);
        // SAFETY: non-NULL, valid for writes (API contract).
        unsafe { write_out(ph_pool, h)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeEventPoolCloseIpcHandle`: release a pool opened from a handle (its mapping goes with
/// the last of its events).
pub(super) unsafe extern "C" fn zeEventPoolCloseIpcHandle(
    h_pool: ze_event_pool_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let pool = handle::get::<EventPool, _>(h_pool)?;
        check(
            pool.shared.as_ref().is_some_and(|sh| !sh.exported()),
            ZE_RESULT_ERROR_INVALID_ARGUMENT,
        )?;
        handle::remove::<EventPool, _>(h_pool)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeEventCreate(
    h_pool: ze_event_pool_handle_t,
    desc: *const ze_event_desc_t,
    ph_event: *mut ze_event_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let pool = handle::get::<EventPool, _>(h_pool)?;
        // SAFETY: NULL or a valid descriptor (API contract).
        let desc = unsafe { input(desc)? };
        check(!ph_event.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0x7 < desc->signal, 0x7 < desc->wait
        check(
            desc.signal <= 0x7 && desc.wait <= 0x7,
            ZE_RESULT_ERROR_INVALID_ENUMERATION,
        )?;
        // "index: must be less than the count specified during creation"
        check(desc.index < pool.count, ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        let h: ze_event_handle_t = handle::insert(Arc::new(ZeEvent::new(pool, desc.index)));
        // SAFETY: non-NULL, valid for writes (API contract).
        unsafe { write_out(ph_event, h)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeEventDestroy(h_event: ze_event_handle_t) -> ze_result_t {
    ze_call(|| {
        handle::remove::<ZeEvent, _>(h_event)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeEventHostSignal(h_event: ze_event_handle_t) -> ze_result_t {
    ze_call(|| {
        get(h_event)?.signal();
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// A signalled event's result: `ZE_RESULT_ERROR_DEVICE_LOST` when the command that
/// signalled it failed (a kernel fault or time limit, or a failed event it waited for;
/// the report went to stderr). The device stays usable.
fn done(e: &ferrite_runtime::ze::event::ZeEvent) -> ze_result_t {
    if e.failed() {
        ZE_RESULT_ERROR_DEVICE_LOST
    } else {
        ZE_RESULT_SUCCESS
    }
}

pub(super) unsafe extern "C" fn zeEventHostSynchronize(
    h_event: ze_event_handle_t,
    timeout: u64,
) -> ze_result_t {
    ze_call(|| {
        let e = get(h_event)?;
        Ok(if e.wait(timeout) {
            done(&e)
        } else {
            ZE_RESULT_NOT_READY
        })
    })
}

pub(super) unsafe extern "C" fn zeEventQueryStatus(h_event: ze_event_handle_t) -> ze_result_t {
    ze_call(|| {
        let e = get(h_event)?;
        Ok(if e.is_signaled() {
            done(&e)
        } else {
            ZE_RESULT_NOT_READY
        })
    })
}

pub(super) unsafe extern "C" fn zeEventHostReset(h_event: ze_event_handle_t) -> ze_result_t {
    ze_call(|| {
        get(h_event)?.reset();
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// A kernel timestamp result from a command's (start, end): global and context alike
/// (one clock; the device runs nothing else meanwhile that it would leave out).
fn timestamp_result((start, end): (u64, u64)) -> ze_kernel_timestamp_result_t {
    let data = ze_kernel_timestamp_data_t {
        kernelStart: start,
        kernelEnd: end,
    };
    ze_kernel_timestamp_result_t {
        global: data,
        context: data,
    }
}

pub(super) unsafe extern "C" fn zeEventQueryKernelTimestamp(
    h_event: ze_event_handle_t,
    dst: *mut ze_kernel_timestamp_result_t,
) -> ze_result_t {
    ze_call(|| {
        let ev = get(h_event)?;
        // SAFETY: NULL or valid for writes (API contract).
        let out = unsafe { output(dst)? };
        // Only events of a timestamp pool carry kernel timestamps.
        check(ev.pool.timestamps, ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        let Some(times) = ev.times() else {
            return Ok(ZE_RESULT_NOT_READY);
        };
        *out = timestamp_result(times);
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeEventQueryTimestampsExp(
    h_event: ze_event_handle_t,
    h_device: ze_device_handle_t,
    p_count: *mut u32,
    p_timestamps: *mut ze_kernel_timestamp_result_t,
) -> ze_result_t {
    ze_call(|| {
        let ev = get(h_event)?;
        device::get(h_device)?;
        check(ev.pool.timestamps, ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        let Some(times) = ev.times() else {
            return Ok(ZE_RESULT_NOT_READY);
        };
        let one = timestamp_result(times);
        // One device, no sub-devices: one result.
        // SAFETY: pCount valid, pTimestamps NULL or *pCount results (API contract).
        unsafe { super::fill_array(p_count, p_timestamps, &[one])? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeEventQueryKernelTimestampsExt` (ZE_extension_event_query_kernel_timestamps, 1.6):
/// one result (one device, no sub-devices), as kernel timestamps and as timestamps on the
/// host's clock, which for Ferrite are the same; the buffers are left as they are while the
/// event is not signalled.
pub(super) unsafe extern "C" fn zeEventQueryKernelTimestampsExt(
    h_event: ze_event_handle_t,
    h_device: ze_device_handle_t,
    p_count: *mut u32,
    p_results: *mut ze_event_query_kernel_timestamps_results_ext_properties_t,
) -> ze_result_t {
    ze_call(|| {
        let ev = get(h_event)?;
        device::get(h_device)?;
        // SAFETY: NULL or valid for reads and writes (API contract).
        let count = unsafe { output(p_count)? };
        check(ev.pool.timestamps, ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        if *count == 0 || p_results.is_null() {
            *count = 1;
            return Ok(ZE_RESULT_SUCCESS);
        }
        *count = 1;
        // SAFETY: non-NULL, the application's struct (API contract).
        let results = unsafe { &mut *p_results };
        let Some((start, end)) = ev.times() else {
            return Ok(ZE_RESULT_SUCCESS);
        };
        if !results.pKernelTimestampsBuffer.is_null() {
            // SAFETY: room for *pCount (>= 1) results (API contract).
            unsafe {
                results
                    .pKernelTimestampsBuffer
                    .write(timestamp_result((start, end)))
            };
        }
        if !results.pSynchronizedTimestampsBuffer.is_null() {
            let data = ze_synchronized_timestamp_data_ext_t {
                kernelStart: start,
                kernelEnd: end,
            };
            let one = ze_synchronized_timestamp_result_ext_t {
                global: data,
                context: data,
            };
            // SAFETY: room for *pCount (>= 1) results (API contract).
            unsafe { results.pSynchronizedTimestampsBuffer.write(one) };
        }
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeEventCounterBasedCreate` (1.15): an event that tracks the last command appended to
/// signal it (see `ZeEvent::track`). Sharing one between processes is not supported.
pub(super) unsafe extern "C" fn zeEventCounterBasedCreate(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    desc: *const ze_event_counter_based_desc_t,
    ph_event: *mut ze_event_handle_t,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        device::get(h_device)?;
        // SAFETY: NULL or a valid descriptor (API contract).
        let desc = unsafe { input(desc)? };
        check(!ph_event.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0x7f < desc->flags, 0x7 < desc->signal,
        // 0x7 < desc->wait
        check(
            desc.flags <= 0x7f && desc.signal <= 0x7 && desc.wait <= 0x7,
            ZE_RESULT_ERROR_INVALID_ENUMERATION,
        )?;
        check(
            desc.flags & ZE_EVENT_COUNTER_BASED_FLAG_IPC == 0,
            ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
        )?;
        let timestamps = desc.flags
            & (ZE_EVENT_COUNTER_BASED_FLAG_DEVICE_TIMESTAMP
                | ZE_EVENT_COUNTER_BASED_FLAG_HOST_TIMESTAMP)
            != 0;
        let h: ze_event_handle_t = handle::insert(Arc::new(ZeEvent::new_counter_based(timestamps)));
        // SAFETY: non-NULL, valid for writes (API contract).
        unsafe { write_out(ph_event, h)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}
