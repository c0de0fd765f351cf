//! The one CPU device and its properties. Everything reported comes from
//! `ferrite_runtime::device`, so Level-Zero and OpenCL describe the same device.
#![expect(non_snake_case, reason = "entry points keep their Level-Zero names")]

use super::sys::*;
use super::sys_next::{
    ze_device_readonly_memory_ext_properties_t, ze_event_query_kernel_timestamps_ext_properties_t,
    ZE_DEVICE_READONLY_MEMORY_CAPABILITY_ENFORCED,
    ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_FLAG_KERNEL,
    ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_FLAG_SYNCHRONIZED,
    ZE_STRUCTURE_TYPE_DEVICE_READONLY_MEMORY_EXT_PROPERTIES,
    ZE_STRUCTURE_TYPE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_PROPERTIES,
};
use super::{check, driver, fill_array, handle, output, write_out, ze_call, ZeResult};
use ferrite_runtime::device::{self as rt, Device};
use ferrite_runtime::executor;
use std::sync::Arc;

/// Largest fill pattern of `zeCommandListAppendMemoryFill`.
pub const MAX_FILL_PATTERN_SIZE: usize = 128;
/// Queues per queue group (any index below this is accepted).
pub const NUM_QUEUES: u32 = 8;

/// The command queue groups, by ordinal. Group 0 runs everything; group 1 is a copy
/// engine as GPUs have one: its lists take copies, fills, barriers, events and
/// timestamps but no kernel launch, and its queues are threads of their own, so an
/// application overlaps transfers with kernels the way it does on a GPU.
pub const QUEUE_GROUPS: [ze_command_queue_group_property_flags_t; 2] = [
    // Cooperative launches run on every compute queue (zeCommandListAppendLaunch-
    // CooperativeKernel: all groups at once, up to zeKernelSuggestMaxCooperativeGroupCount).
    ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE
        | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY
        | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS,
    ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY,
];

/// Whether lists and queues of group `ordinal` launch kernels.
pub fn group_computes(ordinal: u32) -> bool {
    QUEUE_GROUPS
        .get(ordinal as usize)
        .is_some_and(|f| f & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE != 0)
}

/// Check a queue group ordinal and, for a queue, its index in the group:
/// `ZE_RESULT_ERROR_INVALID_ARGUMENT` past either.
pub fn check_queue(ordinal: u32, index: u32) -> ZeResult<()> {
    check(
        (ordinal as usize) < QUEUE_GROUPS.len() && index < NUM_QUEUES,
        ZE_RESULT_ERROR_INVALID_ARGUMENT,
    )
}

/// The device behind a handle.
pub fn get(h: ze_device_handle_t) -> ZeResult<Arc<Device>> {
    driver::driver();
    handle::get::<Device, _>(h)
}

pub(super) unsafe extern "C" fn zeDeviceGet(
    h_driver: ze_driver_handle_t,
    p_count: *mut u32,
    ph_devices: *mut ze_device_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let d = driver::get(h_driver)?;
        let h: ze_device_handle_t = handle::handle_of(&d.device);
        // SAFETY: pCount valid, phDevices NULL or an array of *pCount (API contract).
        unsafe { fill_array(p_count, ph_devices, &[h])? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDeviceGetSubDevices(
    h_device: ze_device_handle_t,
    p_count: *mut u32,
    ph_sub_devices: *mut ze_device_handle_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_device)?;
        // SAFETY: as in zeDeviceGet; there are no sub-devices.
        unsafe { fill_array::<ze_device_handle_t>(p_count, ph_sub_devices, &[])? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDeviceGetProperties(
    h_device: ze_device_handle_t,
    props: *mut ze_device_properties_t,
) -> ze_result_t {
    ze_call(|| {
        let dev = get(h_device)?;
        // SAFETY: `props` is NULL or the application's struct (API contract).
        let p = unsafe { output(props)? };
        p.type_ = ZE_DEVICE_TYPE_CPU;
        p.vendorId = rt::VENDOR_ID;
        p.deviceId = 0;
        // Memory is the host's: an integrated device.
        p.flags = ZE_DEVICE_PROPERTY_FLAG_INTEGRATED;
        p.subdeviceId = 0;
        p.coreClockRate = dev.max_clock_mhz;
        p.maxMemAllocSize = dev.max_mem_alloc_size;
        p.maxHardwareContexts = 1024;
        p.maxCommandQueuePriority = 0;
        // One "EU" per executor worker, one thread each.
        p.numThreadsPerEU = 1;
        p.physicalEUSimdWidth = 4;
        p.numEUsPerSubslice = executor::num_workers() as u32;
        p.numSubslicesPerSlice = 1;
        p.numSlices = 1;
        // Nanoseconds (1.0 struct) or cycles per second (1.2 struct) of a 1 GHz clock.
        p.timerResolution = if p.stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 {
            1_000_000_000
        } else {
            1
        };
        p.timestampValidBits = 64;
        p.kernelTimestampValidBits = 64;
        p.uuid.id = rt::DEVICE_UUID;
        super::copy_str(&mut p.name, &dev.name);
        // ZE_extension_event_query_kernel_timestamps: kernel timestamps, on the host's clock.
        // SAFETY: the application's chain (API contract).
        unsafe {
            super::for_each_ext(
                p.pNext,
                ZE_STRUCTURE_TYPE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_PROPERTIES,
                |t: &mut ze_event_query_kernel_timestamps_ext_properties_t| {
                    t.flags = ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_FLAG_KERNEL
                        | ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_FLAG_SYNCHRONIZED;
                },
            )
        };
        // ZE_extension_virtual_mem_readonly_properties: a read-only virtual range is
        // mapped without PROT_WRITE (runtime/src/ze/virtual_mem.rs), so writes fault.
        // SAFETY: the application's chain (API contract).
        unsafe {
            super::for_each_ext(
                p.pNext,
                ZE_STRUCTURE_TYPE_DEVICE_READONLY_MEMORY_EXT_PROPERTIES,
                |r: &mut ze_device_readonly_memory_ext_properties_t| {
                    r.readonlyCapability = ZE_DEVICE_READONLY_MEMORY_CAPABILITY_ENFORCED;
                },
            )
        };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDeviceGetComputeProperties(
    h_device: ze_device_handle_t,
    props: *mut ze_device_compute_properties_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_device)?;
        // SAFETY: `props` is NULL or the application's struct (API contract).
        let p = unsafe { output(props)? };
        p.maxTotalGroupSize = rt::MAX_WORK_GROUP_SIZE as u32;
        p.maxGroupSizeX = rt::MAX_WORK_ITEM_SIZES[0] as u32;
        p.maxGroupSizeY = rt::MAX_WORK_ITEM_SIZES[1] as u32;
        p.maxGroupSizeZ = rt::MAX_WORK_ITEM_SIZES[2] as u32;
        p.maxGroupCountX = u32::MAX;
        p.maxGroupCountY = u32::MAX;
        p.maxGroupCountZ = u32::MAX;
        p.maxSharedLocalMemory = rt::LOCAL_MEM_SIZE as u32;
        // The sub-group sizes a kernel may require (`intel_reqd_sub_group_size`).
        let sizes = ferrite_compiler::SUB_GROUP_SIZES;
        p.numSubGroupSizes = sizes.len() as u32;
        p.subGroupSizes = [0; 8];
        p.subGroupSizes[..sizes.len()].copy_from_slice(&sizes);
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// Floating-point capabilities of `half`, `float` and `double` (IEEE-754 on the host:
/// correctly rounded basic operations, denormals, INF/NaN, fused multiply-add; halves are
/// computed in `float` and rounded once, compiler `codegen/half.rs`).
const FP_FLAGS: ze_device_fp_flags_t = ZE_DEVICE_FP_FLAG_DENORM
    | ZE_DEVICE_FP_FLAG_INF_NAN
    | ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST
    | ZE_DEVICE_FP_FLAG_FMA;

fn fp_atomic_flags(c: rt::FpAtomicCapabilities) -> ze_device_fp_atomic_ext_flags_t {
    let mut flags = 0;
    for (on, flag) in [
        (
            c.global_load_store,
            ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_LOAD_STORE,
        ),
        (c.global_add, ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_ADD),
        (
            c.global_min_max,
            ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_MIN_MAX,
        ),
        (
            c.local_load_store,
            ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_LOAD_STORE,
        ),
        (c.local_add, ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_ADD),
        (c.local_min_max, ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_MIN_MAX),
    ] {
        if on {
            flags |= flag;
        }
    }
    flags
}

pub(super) unsafe extern "C" fn zeDeviceGetModuleProperties(
    h_device: ze_device_handle_t,
    props: *mut ze_device_module_properties_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_device)?;
        // SAFETY: `props` is NULL or the application's struct (API contract).
        let p = unsafe { output(props)? };
        // The highest SPIR-V version the OpenCL side claims too (CL_DEVICE_ILS_WITH_VERSION).
        let spirv = rt::ILS.iter().map(|il| il.version).max();
        let (major, minor) = spirv.map_or((1, 0), |v| (v.major, v.minor));
        p.spirvVersionSupported = super::make_version(major, minor);
        p.flags = ZE_DEVICE_MODULE_FLAG_FP16 | ZE_DEVICE_MODULE_FLAG_FP64;
        p.fp16flags = FP_FLAGS;
        p.fp32flags = FP_FLAGS;
        p.fp64flags = FP_FLAGS;
        p.maxArgumentsSize = rt::MAX_PARAMETER_SIZE as u32;
        p.printfBufferSize = rt::PRINTF_BUFFER_SIZE as u32;
        p.nativeKernelSupported.id = [0; 16];
        // Extension structs the application chained (ZE_extension_float_atomics).
        // SAFETY: the application's chain (API contract).
        unsafe {
            super::for_each_ext(
                p.pNext,
                ZE_STRUCTURE_TYPE_FLOAT_ATOMIC_EXT_PROPERTIES,
                |f: &mut ze_float_atomic_ext_properties_t| {
                    f.fp16Flags = fp_atomic_flags(rt::HALF_FP_ATOMICS_SPIRV);
                    f.fp32Flags = fp_atomic_flags(rt::SINGLE_FP_ATOMICS);
                    f.fp64Flags = fp_atomic_flags(rt::DOUBLE_FP_ATOMICS);
                },
            )
        };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDeviceGetCommandQueueGroupProperties(
    h_device: ze_device_handle_t,
    p_count: *mut u32,
    props: *mut ze_command_queue_group_properties_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_device)?;
        // SAFETY: pCount is NULL or valid (API contract).
        let count = unsafe { output(p_count)? };
        let groups = QUEUE_GROUPS.len() as u32;
        if *count == 0 || props.is_null() {
            *count = groups;
            return Ok(ZE_RESULT_SUCCESS);
        }
        *count = (*count).min(groups);
        for (i, &flags) in QUEUE_GROUPS.iter().take(*count as usize).enumerate() {
            // SAFETY: `props` has room for *pCount structs, which the application
            // initialised (stype, pNext).
            let p = unsafe { &mut *props.add(i) };
            p.flags = flags;
            p.maxMemoryFillPatternSize = MAX_FILL_PATTERN_SIZE;
            p.numQueues = NUM_QUEUES;
        }
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDeviceGetMemoryProperties(
    h_device: ze_device_handle_t,
    p_count: *mut u32,
    props: *mut ze_device_memory_properties_t,
) -> ze_result_t {
    ze_call(|| {
        let dev = get(h_device)?;
        // SAFETY: pCount is NULL or valid (API contract).
        let count = unsafe { output(p_count)? };
        if *count == 0 || props.is_null() {
            *count = 1;
            return Ok(ZE_RESULT_SUCCESS);
        }
        *count = 1;
        // SAFETY: room for at least one struct, initialised by the application.
        let p = unsafe { &mut *props };
        p.flags = 0;
        p.maxClockRate = 0;
        p.maxBusWidth = 64;
        p.totalSize = dev.global_mem_size;
        super::copy_str(&mut p.name, "system memory");
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDeviceGetMemoryAccessProperties(
    h_device: ze_device_handle_t,
    props: *mut ze_device_memory_access_properties_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_device)?;
        // SAFETY: `props` is NULL or the application's struct (API contract).
        let p = unsafe { output(props)? };
        // Every kind of memory is host memory, reachable by host and kernels at once.
        let all = ZE_MEMORY_ACCESS_CAP_FLAG_RW
            | ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC
            | ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT
            | ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC;
        p.hostAllocCapabilities = all;
        p.deviceAllocCapabilities = all;
        p.sharedSingleDeviceAllocCapabilities = all;
        p.sharedCrossDeviceAllocCapabilities = all;
        p.sharedSystemAllocCapabilities = all;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDeviceGetCacheProperties(
    h_device: ze_device_handle_t,
    p_count: *mut u32,
    props: *mut ze_device_cache_properties_t,
) -> ze_result_t {
    ze_call(|| {
        let dev = get(h_device)?;
        // SAFETY: pCount is NULL or valid (API contract).
        let count = unsafe { output(p_count)? };
        if *count == 0 || props.is_null() {
            *count = 1;
            return Ok(ZE_RESULT_SUCCESS);
        }
        *count = 1;
        // SAFETY: room for at least one struct, initialised by the application.
        let p = unsafe { &mut *props };
        p.flags = 0;
        p.cacheSize = dev.global_mem_cache.size as usize;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDeviceGetImageProperties(
    h_device: ze_device_handle_t,
    props: *mut ze_device_image_properties_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_device)?;
        // SAFETY: `props` is NULL or the application's struct (API contract).
        let p = unsafe { output(props)? };
        // The limits OpenCL reports (`runtime/src/mem/image.rs`); a buffer image's limit
        // is in bytes, which the pixel limit bounds from below.
        use ferrite_runtime::mem::image as img;
        if !img::enabled() {
            // SAFETY: all-zero bytes are a valid value of this plain C struct.
            let zero: ze_device_image_properties_t = unsafe { std::mem::zeroed() };
            *p = ze_device_image_properties_t {
                stype: p.stype,
                pNext: p.pNext,
                ..zero
            };
            return Ok(ZE_RESULT_SUCCESS);
        }
        p.maxImageDims1D = img::MAX_2D as u32;
        p.maxImageDims2D = img::MAX_2D as u32;
        p.maxImageDims3D = img::MAX_3D as u32;
        p.maxImageBufferSize = img::MAX_BUFFER_PIXELS as u64;
        p.maxImageArraySlices = img::MAX_ARRAY as u32;
        p.maxSamplers = img::MAX_SAMPLERS;
        p.maxReadImageArgs = img::MAX_READ_IMAGE_ARGS;
        p.maxWriteImageArgs = img::MAX_WRITE_IMAGE_ARGS;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDeviceGetExternalMemoryProperties(
    h_device: ze_device_handle_t,
    props: *mut ze_device_external_memory_properties_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_device)?;
        // SAFETY: `props` is NULL or the application's struct (API contract).
        let p = unsafe { output(props)? };
        p.memoryAllocationImportTypes = 0;
        p.memoryAllocationExportTypes = 0;
        p.imageImportTypes = 0;
        p.imageExportTypes = 0;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDeviceGetP2PProperties(
    h_device: ze_device_handle_t,
    h_peer: ze_device_handle_t,
    props: *mut ze_device_p2p_properties_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_device)?;
        get(h_peer)?;
        // SAFETY: `props` is NULL or the application's struct (API contract).
        let p = unsafe { output(props)? };
        p.flags = 0;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDeviceCanAccessPeer(
    h_device: ze_device_handle_t,
    h_peer: ze_device_handle_t,
    value: *mut ze_bool_t,
) -> ze_result_t {
    ze_call(|| {
        let a = get(h_device)?;
        let b = get(h_peer)?;
        // SAFETY: `value` is NULL or valid for writes (API contract).
        unsafe { write_out(value, ze_bool_t::from(Arc::ptr_eq(&a, &b)))? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDeviceGetStatus(h_device: ze_device_handle_t) -> ze_result_t {
    ze_call(|| {
        get(h_device)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDeviceGetGlobalTimestamps(
    h_device: ze_device_handle_t,
    host_timestamp: *mut u64,
    device_timestamp: *mut u64,
) -> ze_result_t {
    ze_call(|| {
        get(h_device)?;
        check(
            !host_timestamp.is_null(),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER,
        )?;
        check(
            !device_timestamp.is_null(),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER,
        )?;
        // One clock for host and device (nanoseconds).
        let now = ferrite_runtime::event::now_ns();
        // SAFETY: both are non-NULL and valid for writes (API contract).
        unsafe {
            write_out(host_timestamp, now)?;
            write_out(device_timestamp, now)?;
        }
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeDeviceGetRootDevice` (1.7): Ferrite's device has no sub-devices, so it is a root
/// device and has none above it (NULL).
pub(super) unsafe extern "C" fn zeDeviceGetRootDevice(
    h_device: ze_device_handle_t,
    ph_root: *mut ze_device_handle_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_device)?;
        // SAFETY: NULL or valid for writes (API contract).
        unsafe { write_out(ph_root, std::ptr::null_mut())? };
        Ok(ZE_RESULT_SUCCESS)
    })
}
