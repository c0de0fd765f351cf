//! `clGetDeviceAndHostTimer`, `clGetHostTimer`: device and host share one clock, the
//! runtime's monotonic nanosecond clock that also stamps every event
//! (`ferrite_runtime::event::now_ns`), so the two timestamps of a pair are the same
//! reading and `CL_PLATFORM_HOST_TIMER_RESOLUTION` / `CL_DEVICE_PROFILING_TIMER_RESOLUTION`
//! are 1 ns.

use super::super::handle::get;
use super::super::{check, cl_call};
use ferrite_runtime::device::Device;
use ferrite_runtime::event::now_ns;
use opencl_sys::*;

pub unsafe extern "C" fn get_device_and_host_timer(
    device: cl_device_id,
    device_timestamp: *mut cl_ulong,
    host_timestamp: *mut cl_ulong,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_DEVICE if device is not a valid device.
        get::<Device>(device)?;
        // CL_INVALID_VALUE if host_timestamp or device_timestamp is NULL.
        check(
            !device_timestamp.is_null() && !host_timestamp.is_null(),
            CL_INVALID_VALUE,
        )?;
        let t = now_ns();
        // SAFETY: both pointers are non-NULL and writable (API contract).
        unsafe {
            *device_timestamp = t;
            *host_timestamp = t;
        }
        Ok(())
    })
}

pub unsafe extern "C" fn get_host_timer(
    device: cl_device_id,
    host_timestamp: *mut cl_ulong,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_DEVICE if device is not a valid device.
        get::<Device>(device)?;
        // CL_INVALID_VALUE if host_timestamp is NULL.
        check(!host_timestamp.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: non-NULL and writable (API contract).
        unsafe { *host_timestamp = now_ns() };
        Ok(())
    })
}
