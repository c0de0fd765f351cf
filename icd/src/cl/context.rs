//! Context entry points.

use super::device::{matches_type, valid_type};
use super::handle::{self, get, get_list};
use super::info::{info, write_info};
use super::{check, cl_call, cl_create, SendPtr};
use crate::error::{ClError, ClResult};
use ferrite_runtime::context::{Context, NotifyCallback};
use ferrite_runtime::device::Device;
use ferrite_runtime::platform::Platform;
use opencl_sys::*;
use std::ffi::{c_char, c_void, CString};
use std::sync::Arc;

/// `pfn_notify` of `clCreateContext*`.
pub type ContextNotify =
    Option<unsafe extern "C" fn(*const c_char, *const c_void, usize, *mut c_void)>;

/// Check a context property list; returns it (with its terminating 0) for
/// `CL_CONTEXT_PROPERTIES`, or empty if `properties` is NULL.
///
/// # Safety
/// `properties` is NULL or a zero-terminated list of (name, value) pairs.
unsafe fn parse_properties(properties: *const cl_context_properties) -> ClResult<Vec<isize>> {
    let mut out = Vec::new();
    if properties.is_null() {
        return Ok(out);
    }
    let mut seen = Vec::new();
    let mut p = properties;
    loop {
        // SAFETY: the list is zero-terminated (API contract); we stop at the 0.
        let name = unsafe { *p };
        if name == 0 {
            break;
        }
        // SAFETY: every non-zero name is followed by its value.
        let value = unsafe { *p.add(1) };
        // CL_INVALID_PROPERTY if the same property name is specified more than once.
        check(!seen.contains(&name), CL_INVALID_PROPERTY)?;
        seen.push(name);
        match name {
            // CL_INVALID_PLATFORM if platform value specified in properties is not a valid
            // platform.
            CL_CONTEXT_PLATFORM => {
                get::<Platform>(value as *mut c_void).map_err(|_| ClError(CL_INVALID_PLATFORM))?;
            }
            // CL_INVALID_PROPERTY if the value specified for a supported property name is
            // not valid (CL_CONTEXT_INTEROP_USER_SYNC takes a cl_bool).
            CL_CONTEXT_INTEROP_USER_SYNC => check(
                value == CL_TRUE as cl_context_properties
                    || value == CL_FALSE as cl_context_properties,
                CL_INVALID_PROPERTY,
            )?,
            // CL_INVALID_PROPERTY if context property name in properties is not a
            // supported property name.
            _ => return Err(ClError(CL_INVALID_PROPERTY)),
        }
        out.push(name);
        out.push(value);
        // SAFETY: advancing past the pair we just read; the list continues.
        p = unsafe { p.add(2) };
    }
    out.push(0);
    Ok(out)
}

fn notify_callback(pfn_notify: ContextNotify, user_data: *mut c_void) -> Option<NotifyCallback> {
    let f = pfn_notify?;
    let user_data = SendPtr(user_data);
    Some(Box::new(move |msg: &str| {
        let msg = CString::new(msg.replace('\0', " ")).unwrap_or_default();
        // SAFETY: the application's callback, called with its own user_data and a valid
        // NUL-terminated string, as clCreateContext documents.
        unsafe { f(msg.as_ptr(), std::ptr::null(), 0, user_data.get()) };
    }))
}

fn new_context(
    properties: Vec<isize>,
    devices: Vec<Arc<Device>>,
    pfn_notify: ContextNotify,
    user_data: *mut c_void,
) -> ClResult<cl_context> {
    // CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL.
    check(
        pfn_notify.is_some() || user_data.is_null(),
        CL_INVALID_VALUE,
    )?;
    let ctx = Context::new(devices, properties, notify_callback(pfn_notify, user_data));
    Ok(handle::new_handle(ctx))
}

pub unsafe extern "C" fn create_context(
    properties: *const cl_context_properties,
    num_devices: cl_uint,
    devices: *const cl_device_id,
    pfn_notify: ContextNotify,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    cl_create(errcode_ret, || {
        // SAFETY: properties follows the API contract.
        let props = unsafe { parse_properties(properties) }?;
        // CL_INVALID_VALUE if devices is NULL; if num_devices is equal to zero.
        check(!devices.is_null() && num_devices > 0, CL_INVALID_VALUE)?;
        // CL_INVALID_DEVICE if any device in devices is not a valid device.
        // SAFETY: devices points to num_devices handles (API contract).
        let mut list =
            unsafe { get_list::<Device>(devices, num_devices as usize, CL_INVALID_DEVICE) }?;
        // Duplicate devices specified in devices are ignored.
        list.dedup_by(|a, b| Arc::ptr_eq(a, b));
        new_context(props, list, pfn_notify, user_data)
    })
}

pub unsafe extern "C" fn create_context_from_type(
    properties: *const cl_context_properties,
    device_type: cl_device_type,
    pfn_notify: ContextNotify,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    cl_create(errcode_ret, || {
        // SAFETY: properties follows the API contract.
        let props = unsafe { parse_properties(properties) }?;
        // CL_INVALID_DEVICE_TYPE if device_type is not a valid value.
        check(valid_type(device_type), CL_INVALID_DEVICE_TYPE)?;
        // CL_DEVICE_NOT_FOUND if no devices that match device_type and property values
        // specified in properties are currently available.
        check(matches_type(device_type), CL_DEVICE_NOT_FOUND)?;
        let device = Platform::get().device.clone();
        new_context(props, vec![device], pfn_notify, user_data)
    })
}

pub unsafe extern "C" fn retain_context(context: cl_context) -> cl_int {
    cl_call(|| handle::retain::<Context>(context))
}

pub unsafe extern "C" fn release_context(context: cl_context) -> cl_int {
    cl_call(|| handle::release::<Context>(context))
}

pub unsafe extern "C" fn get_context_info(
    context: cl_context,
    param_name: cl_context_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_CONTEXT if context is not a valid context.
        let ctx = get::<Context>(context)?;
        let v = match param_name {
            CL_CONTEXT_REFERENCE_COUNT => info(&ctx.api.ref_count()),
            CL_CONTEXT_NUM_DEVICES => info(&(ctx.devices.len() as u32)),
            CL_CONTEXT_DEVICES => info(&ctx.devices.iter().map(handle::handle).collect::<Vec<_>>()),
            CL_CONTEXT_PROPERTIES => info(&ctx.properties),
            // CL_INVALID_VALUE if param_name is not one of the supported values.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe { write_info(&v, param_value_size, param_value, param_value_size_ret) }
    })
}

pub unsafe extern "C" fn set_context_destructor_callback(
    context: cl_context,
    pfn_notify: Option<unsafe extern "C" fn(context: cl_context, user_data: *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_CONTEXT if context is not a valid context.
        let ctx = get::<Context>(context)?;
        // CL_INVALID_VALUE if pfn_notify is NULL.
        let f = pfn_notify.ok_or(ClError(CL_INVALID_VALUE))?;
        let (h, user_data) = (SendPtr(context), SendPtr(user_data));
        ctx.add_destructor(Box::new(move || {
            // SAFETY: the application's callback with its handle and user_data, called
            // once while the context's memory is still valid (from its destructor).
            unsafe { f(h.get(), user_data.get()) }
        }));
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(list: &[cl_context_properties]) -> Result<Vec<isize>, cl_int> {
        // SAFETY: every list below is zero-terminated (name, value) pairs.
        unsafe { parse_properties(list.as_ptr()) }.map_err(|e| e.0)
    }

    #[test]
    fn interop_user_sync_takes_a_bool_once() {
        let sync = CL_CONTEXT_INTEROP_USER_SYNC;
        let t = CL_TRUE as cl_context_properties;
        assert_eq!(parse(&[sync, t, 0]), Ok(vec![sync, t, 0]));
        assert!(parse(&[sync, CL_FALSE as cl_context_properties, 0]).is_ok());
        // The CTS's negative_create_context: -1 is not a cl_bool.
        assert_eq!(parse(&[sync, -1, 0]), Err(CL_INVALID_PROPERTY));
        assert_eq!(parse(&[sync, t, sync, t, 0]), Err(CL_INVALID_PROPERTY));
        assert_eq!(parse(&[0x7777, 0, 0]), Err(CL_INVALID_PROPERTY));
    }
}
