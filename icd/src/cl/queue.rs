//! Command-queue entry points. Host queues are in-order or out-of-order
//! (`CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE`, run by the runtime's scheduler), with
//! profiling; there are no device queues.

use super::device::QUEUE_PROPERTIES;
use super::handle::{self, get};
use super::info::{info, write_info};
use super::{check, cl_call, cl_create};
use crate::error::{ClError, ClResult};
use ferrite_runtime::context::Context;
use ferrite_runtime::device::Device;
use ferrite_runtime::queue::{Queue, QueueProperties};
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

/// Every `cl_command_queue_properties` bit OpenCL defines.
const KNOWN_BITS: cl_command_queue_properties = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
    | CL_QUEUE_PROFILING_ENABLE
    | CL_QUEUE_ON_DEVICE
    | CL_QUEUE_ON_DEVICE_DEFAULT;

/// Check queue property bits.
pub fn check_queue_bits(bits: cl_command_queue_properties) -> ClResult<()> {
    // CL_INVALID_VALUE if values specified in properties are not valid.
    check(bits & !KNOWN_BITS == 0, CL_INVALID_VALUE)?;
    // CL_QUEUE_ON_DEVICE_DEFAULT requires CL_QUEUE_ON_DEVICE, which requires
    // CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE.
    check(
        bits & CL_QUEUE_ON_DEVICE_DEFAULT == 0 || bits & CL_QUEUE_ON_DEVICE != 0,
        CL_INVALID_VALUE,
    )?;
    check(
        bits & CL_QUEUE_ON_DEVICE == 0 || bits & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0,
        CL_INVALID_VALUE,
    )?;
    // CL_INVALID_QUEUE_PROPERTIES if values specified in properties are valid but are not
    // supported by the device.
    check(bits & !QUEUE_PROPERTIES == 0, CL_INVALID_QUEUE_PROPERTIES)
}

fn new_queue(
    context: cl_context,
    device: cl_device_id,
    bits: cl_command_queue_properties,
    list: Vec<u64>,
) -> ClResult<cl_command_queue> {
    // CL_INVALID_CONTEXT if context is not a valid context.
    let ctx: Arc<Context> = get(context)?;
    // CL_INVALID_DEVICE if device is not a valid device or is not associated with context.
    let dev: Arc<Device> = get(device)?;
    check(ctx.has_device(&dev), CL_INVALID_DEVICE)?;
    check_queue_bits(bits)?;
    let q = Queue::new(
        ctx,
        dev,
        QueueProperties {
            profiling: bits & CL_QUEUE_PROFILING_ENABLE != 0,
            out_of_order: bits & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0,
            api_bits: bits,
            api_list: list,
        },
    )?;
    Ok(handle::new_handle(q))
}

pub unsafe extern "C" fn create_command_queue(
    context: cl_context,
    device: cl_device_id,
    properties: cl_command_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    cl_create(errcode_ret, || {
        new_queue(context, device, properties, Vec::new())
    })
}

/// Parse a `cl_queue_properties` list: the property bits and the list as given.
///
/// # Safety
/// `properties` is NULL or a zero-terminated list of (name, value) pairs.
unsafe fn parse_queue_properties(
    properties: *const cl_queue_properties,
) -> ClResult<(cl_command_queue_properties, Vec<u64>)> {
    let mut bits = 0;
    let mut list = Vec::new();
    if properties.is_null() {
        return Ok((bits, list));
    }
    let mut seen = Vec::new();
    let mut p = properties;
    loop {
        // SAFETY: the list is zero-terminated (API contract).
        let name = unsafe { *p };
        if name == 0 {
            break;
        }
        // SAFETY: every non-zero name is followed by its value.
        let value = unsafe { *p.add(1) };
        // CL_INVALID_VALUE if values specified in properties are not valid.
        check(!seen.contains(&name), CL_INVALID_VALUE)?;
        seen.push(name);
        match name as cl_command_queue_info {
            CL_QUEUE_PROPERTIES => bits = value,
            // Only meaningful for device queues, which are not supported.
            CL_QUEUE_SIZE => {}
            _ => return Err(ClError(CL_INVALID_VALUE)),
        }
        list.push(name);
        list.push(value);
        // SAFETY: advancing past the pair just read.
        p = unsafe { p.add(2) };
    }
    // CL_QUEUE_SIZE without CL_QUEUE_ON_DEVICE is invalid.
    if seen.contains(&(CL_QUEUE_SIZE as u64)) {
        check(bits & CL_QUEUE_ON_DEVICE != 0, CL_INVALID_VALUE)?;
    }
    list.push(0);
    Ok((bits, list))
}

pub unsafe extern "C" fn create_command_queue_with_properties(
    context: cl_context,
    device: cl_device_id,
    properties: *const cl_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    cl_create(errcode_ret, || {
        // Context and device errors come first.
        let ctx: Arc<Context> = get(context)?;
        let dev: Arc<Device> = get(device)?;
        check(ctx.has_device(&dev), CL_INVALID_DEVICE)?;
        // SAFETY: properties follows the API contract.
        let (bits, list) = unsafe { parse_queue_properties(properties) }?;
        new_queue(context, device, bits, list)
    })
}

pub unsafe extern "C" fn retain_command_queue(command_queue: cl_command_queue) -> cl_int {
    cl_call(|| handle::retain::<Queue>(command_queue))
}

pub unsafe extern "C" fn release_command_queue(command_queue: cl_command_queue) -> cl_int {
    cl_call(|| {
        // After the command_queue reference count becomes zero and all commands queued to
        // command_queue have finished, the command-queue is deleted. (Commands hold the
        // queue; an implicit flush is a no-op here.)
        get::<Queue>(command_queue)?.flush();
        handle::release::<Queue>(command_queue)
    })
}

pub unsafe extern "C" fn get_command_queue_info(
    command_queue: cl_command_queue,
    param_name: cl_command_queue_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command-queue.
        let q = get::<Queue>(command_queue)?;
        let v = match param_name {
            CL_QUEUE_CONTEXT => info(&handle::handle(&q.context)),
            CL_QUEUE_DEVICE => info(&handle::handle(&q.device)),
            CL_QUEUE_REFERENCE_COUNT => info(&q.api.ref_count()),
            CL_QUEUE_PROPERTIES => info(&q.properties.api_bits),
            CL_QUEUE_PROPERTIES_ARRAY => info(&q.properties.api_list),
            // CL_INVALID_COMMAND_QUEUE if ... param_name is CL_QUEUE_SIZE and command_queue
            // is not a device command-queue.
            CL_QUEUE_SIZE => return Err(ClError(CL_INVALID_COMMAND_QUEUE)),
            // No device queues: NULL.
            CL_QUEUE_DEVICE_DEFAULT => info(&std::ptr::null_mut::<c_void>()),
            // CL_INVALID_VALUE if param_name is not one of the supported values.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe { write_info(&v, param_value_size, param_value, param_value_size_ret) }
    })
}

pub unsafe extern "C" fn set_default_device_command_queue(
    context: cl_context,
    device: cl_device_id,
    command_queue: cl_command_queue,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_CONTEXT if context is not a valid context.
        let ctx: Arc<Context> = get(context)?;
        // CL_INVALID_DEVICE if device is not a valid device or is not associated with
        // context.
        let dev: Arc<Device> = get(device)?;
        check(ctx.has_device(&dev), CL_INVALID_DEVICE)?;
        // CL_INVALID_OPERATION if device does not support a replaceable default on-device
        // queue. (No device supports on-device queues: CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES
        // is 0.)
        let _ = command_queue;
        Err(ClError(CL_INVALID_OPERATION))
    })
}

pub unsafe extern "C" fn flush(command_queue: cl_command_queue) -> cl_int {
    cl_call(|| {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue.
        get::<Queue>(command_queue)?.flush();
        Ok(())
    })
}

pub unsafe extern "C" fn finish(command_queue: cl_command_queue) -> cl_int {
    cl_call(|| {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue.
        get::<Queue>(command_queue)?.finish();
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_property_bits() {
        assert!(check_queue_bits(0).is_ok());
        assert!(check_queue_bits(CL_QUEUE_PROFILING_ENABLE).is_ok());
        assert!(check_queue_bits(
            CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE
        )
        .is_ok());
        assert_eq!(
            check_queue_bits(CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE),
            Err(ClError(CL_INVALID_QUEUE_PROPERTIES))
        );
        assert_eq!(
            check_queue_bits(CL_QUEUE_ON_DEVICE),
            Err(ClError(CL_INVALID_VALUE))
        );
        assert_eq!(
            check_queue_bits(CL_QUEUE_ON_DEVICE_DEFAULT),
            Err(ClError(CL_INVALID_VALUE))
        );
        assert_eq!(check_queue_bits(1 << 20), Err(ClError(CL_INVALID_VALUE)));
    }

    #[test]
    fn queue_property_lists() {
        let list = [CL_QUEUE_PROPERTIES as u64, CL_QUEUE_PROFILING_ENABLE, 0];
        // SAFETY: zero-terminated list.
        let (bits, l) = unsafe { parse_queue_properties(list.as_ptr()) }.unwrap();
        assert_eq!(bits, CL_QUEUE_PROFILING_ENABLE);
        assert_eq!(l, list);
        let bad = [0x9999u64, 1, 0];
        // SAFETY: zero-terminated list.
        assert!(unsafe { parse_queue_properties(bad.as_ptr()) }.is_err());
        // SAFETY: NULL is allowed.
        let (bits, l) = unsafe { parse_queue_properties(std::ptr::null()) }.unwrap();
        assert_eq!((bits, l.len()), (0, 0));
    }
}
