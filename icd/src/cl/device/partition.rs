//! `clCreateSubDevices`: partitions of a device's compute units (the executor's workers),
//! equally or by counts. A sub-device runs its kernels on a pool of its own with as many
//! workers as it has compute units (`runtime/src/device.rs`), so its kernels use only its
//! share of the cores; the root device keeps the global pool. Sub-devices are reference
//! counted handles that hold their parent.

use super::super::handle::{self, get};
use super::super::{check, cl_call, write_out};
use crate::error::{ClError, ClResult};
use ferrite_runtime::device::{Device, Partition};
use opencl_sys::*;
use std::sync::Arc;

/// `CL_DEVICE_PARTITION_PROPERTIES`: equally and by counts when at least two sub-devices
/// can be made, else `{0}`.
pub fn supported(d: &Device) -> Vec<cl_device_partition_property> {
    if d.max_compute_units() >= 2 {
        vec![CL_DEVICE_PARTITION_EQUALLY, CL_DEVICE_PARTITION_BY_COUNTS]
    } else {
        vec![0]
    }
}

/// `CL_DEVICE_PARTITION_TYPE`: the property list a sub-device was made with.
pub fn partition_type(d: &Device) -> Vec<cl_device_partition_property> {
    match &d.partition {
        None => Vec::new(),
        Some(Partition::Equally(n)) => vec![CL_DEVICE_PARTITION_EQUALLY, *n as isize, 0],
        Some(Partition::ByCounts(counts)) => {
            let mut v = vec![CL_DEVICE_PARTITION_BY_COUNTS];
            v.extend(counts.iter().map(|&c| c as isize));
            v.push(CL_DEVICE_PARTITION_BY_COUNTS_LIST_END);
            v.push(0);
            v
        }
    }
}

/// The compute units of each sub-device a property list asks for.
///
/// # Safety
/// `properties` is NULL or a list terminated as the API describes.
unsafe fn plan(
    d: &Device,
    properties: *const cl_device_partition_property,
) -> ClResult<(Vec<u32>, Partition)> {
    // CL_INVALID_VALUE if values specified in properties are not valid or if values
    // specified in properties are valid but not supported by the device.
    check(!properties.is_null(), CL_INVALID_VALUE)?;
    let units = d.max_compute_units();
    // SAFETY: a non-NULL list has at least its name (API contract).
    let name = unsafe { *properties };
    match name {
        CL_DEVICE_PARTITION_EQUALLY => {
            // SAFETY: EQUALLY is followed by its value and a 0.
            let n = unsafe { *properties.add(1) };
            check(n > 0 && n <= u32::MAX as isize, CL_INVALID_VALUE)?;
            let n = n as u32;
            // CL_INVALID_DEVICE_PARTITION_COUNT if ... the total number of compute units
            // requested exceeds CL_DEVICE_MAX_COMPUTE_UNITS for in_device.
            check(n <= units, CL_INVALID_DEVICE_PARTITION_COUNT)?;
            // CL_DEVICE_PARTITION_FAILED if the partition name is supported by the
            // implementation but in_device could not be further partitioned. (Fewer than
            // two sub-devices is no partition.)
            check(units / n >= 2, CL_DEVICE_PARTITION_FAILED)?;
            // Split into as many sub-devices of n compute units as fit; the remaining
            // compute units are not used.
            Ok((vec![n; (units / n) as usize], Partition::Equally(n)))
        }
        CL_DEVICE_PARTITION_BY_COUNTS => {
            let mut counts = Vec::new();
            let mut i = 1;
            loop {
                // SAFETY: the list goes on until CL_DEVICE_PARTITION_BY_COUNTS_LIST_END.
                let c = unsafe { *properties.add(i) };
                if c == CL_DEVICE_PARTITION_BY_COUNTS_LIST_END {
                    break;
                }
                // CL_INVALID_DEVICE_PARTITION_COUNT if ... the number of compute units
                // requested for one or more sub-devices is less than zero.
                check(
                    c > 0 && c <= u32::MAX as isize,
                    CL_INVALID_DEVICE_PARTITION_COUNT,
                )?;
                counts.push(c as u32);
                i += 1;
                // More entries than compute units cannot be valid; stop reading.
                check(
                    counts.len() <= units as usize,
                    CL_INVALID_DEVICE_PARTITION_COUNT,
                )?;
            }
            // CL_INVALID_DEVICE_PARTITION_COUNT if the partition name specified in
            // properties is CL_DEVICE_PARTITION_BY_COUNTS and the number of sub-devices
            // requested exceeds CL_DEVICE_PARTITION_MAX_SUB_DEVICES or the total number of
            // compute units requested exceeds CL_DEVICE_MAX_COMPUTE_UNITS for in_device.
            let total: u64 = counts.iter().map(|&c| u64::from(c)).sum();
            check(
                !counts.is_empty() && total <= u64::from(units),
                CL_INVALID_DEVICE_PARTITION_COUNT,
            )?;
            Ok((counts.clone(), Partition::ByCounts(counts)))
        }
        // Affinity domains are not supported (CL_DEVICE_PARTITION_AFFINITY_DOMAIN is 0).
        _ => Err(ClError(CL_INVALID_VALUE)),
    }
}

pub unsafe extern "C" fn create_sub_devices(
    in_device: cl_device_id,
    properties: *const cl_device_partition_property,
    num_devices: cl_uint,
    out_devices: *mut cl_device_id,
    num_devices_ret: *mut cl_uint,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_DEVICE if in_device is not valid.
        let d: Arc<Device> = get(in_device)?;
        // SAFETY: the property list follows the API contract.
        let (units, partition) = unsafe { plan(&d, properties) }?;
        // CL_INVALID_VALUE if out_devices is not NULL and num_devices is less than the
        // number of sub-devices created by the partition scheme.
        check(
            out_devices.is_null() || num_devices as usize >= units.len(),
            CL_INVALID_VALUE,
        )?;
        if !out_devices.is_null() {
            for (i, &u) in units.iter().enumerate() {
                let sub = Device::new_sub(&d, u, partition.clone());
                // SAFETY: out_devices has room for num_devices >= units.len() handles.
                unsafe { *out_devices.add(i) = handle::new_handle(sub) };
            }
        }
        // SAFETY: NULL or writable (API contract).
        unsafe { write_out(num_devices_ret, units.len() as cl_uint) };
        Ok(())
    })
}
