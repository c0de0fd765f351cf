//! Device entry points: `clGetDeviceIDs`, `clGetDeviceInfo` (every OpenCL 3.0 query,
//! answered for what Ferrite supports today), retain/release; sub-devices in
//! [`partition`], the host and device timers in [`timer`].

mod partition;
mod timer;

pub use partition::create_sub_devices;
pub use timer::{get_device_and_host_timer, get_host_timer};

use super::handle::{self, get};
use super::info::{cl_bool, cl_version, info, joined, write_info};
use super::platform::platform_or_default;
use super::{check, cl_call, write_out};
use crate::error::ClError;
use ferrite_runtime::device::{self as rt, Device};
use ferrite_runtime::mem::image;
use ferrite_runtime::platform::{self as plat, Platform};
use opencl_sys::*;
use std::ffi::c_void;

/// Device types we can return.
const VALID_TYPES: cl_device_type = CL_DEVICE_TYPE_DEFAULT
    | CL_DEVICE_TYPE_CPU
    | CL_DEVICE_TYPE_GPU
    | CL_DEVICE_TYPE_ACCELERATOR
    | CL_DEVICE_TYPE_CUSTOM;

/// Whether our CPU device matches a `device_type` filter.
pub fn matches_type(device_type: cl_device_type) -> bool {
    device_type == CL_DEVICE_TYPE_ALL
        || device_type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT) != 0
}

/// Whether `device_type` is a valid filter.
pub fn valid_type(device_type: cl_device_type) -> bool {
    device_type == CL_DEVICE_TYPE_ALL || (device_type != 0 && device_type & !VALID_TYPES == 0)
}

pub unsafe extern "C" fn get_device_ids(
    platform: cl_platform_id,
    device_type: cl_device_type,
    num_entries: cl_uint,
    devices: *mut cl_device_id,
    num_devices: *mut cl_uint,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_PLATFORM if platform is not a valid platform.
        let platform = platform_or_default(platform)?;
        // CL_INVALID_DEVICE_TYPE if device_type is not a valid value.
        check(valid_type(device_type), CL_INVALID_DEVICE_TYPE)?;
        // CL_INVALID_VALUE if num_entries is equal to zero and devices is not NULL or if
        // both num_devices and devices are NULL.
        check(num_entries > 0 || devices.is_null(), CL_INVALID_VALUE)?;
        check(
            !(num_devices.is_null() && devices.is_null()),
            CL_INVALID_VALUE,
        )?;
        // CL_DEVICE_NOT_FOUND if no OpenCL devices that matched device_type were found.
        check(matches_type(device_type), CL_DEVICE_NOT_FOUND)?;
        if !devices.is_null() {
            // SAFETY: devices has room for num_entries >= 1 handles (API contract).
            unsafe { *devices = handle::handle(&platform.device) };
        }
        // SAFETY: NULL or a cl_uint (API contract).
        unsafe { write_out(num_devices, 1) };
        Ok(())
    })
}

/// `CL_DEVICE_SINGLE_FP_CONFIG`: IEEE 754 with every rounding mode, denormals and FMA;
/// division and square root are the hardware's correctly rounded instructions.
/// Image limits of type `cl_uint`, all 0 while images are not offered.
const IMAGE_LIMITS_U32: &[cl_device_info] = &[
    CL_DEVICE_MAX_READ_IMAGE_ARGS,
    CL_DEVICE_MAX_WRITE_IMAGE_ARGS,
    CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS,
    CL_DEVICE_MAX_SAMPLERS,
    CL_DEVICE_IMAGE_PITCH_ALIGNMENT,
    CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT,
];

/// Image limits of type `size_t`, as [`IMAGE_LIMITS_U32`].
const IMAGE_LIMITS_USIZE: &[cl_device_info] = &[
    CL_DEVICE_IMAGE2D_MAX_WIDTH,
    CL_DEVICE_IMAGE2D_MAX_HEIGHT,
    CL_DEVICE_IMAGE3D_MAX_WIDTH,
    CL_DEVICE_IMAGE3D_MAX_HEIGHT,
    CL_DEVICE_IMAGE3D_MAX_DEPTH,
    CL_DEVICE_IMAGE_MAX_BUFFER_SIZE,
    CL_DEVICE_IMAGE_MAX_ARRAY_SIZE,
];

const SINGLE_FP_CONFIG: cl_device_fp_config = CL_FP_DENORM
    | CL_FP_INF_NAN
    | CL_FP_ROUND_TO_NEAREST
    | CL_FP_ROUND_TO_ZERO
    | CL_FP_ROUND_TO_INF
    | CL_FP_FMA
    | CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT;
/// `CL_DEVICE_HALF_FP_CONFIG` (`cl_khr_fp16`): halves are computed in `float` and rounded
/// to nearest once per operation, denormals kept, `fma` correctly rounded (compiler
/// `codegen/half.rs`).
const HALF_FP_CONFIG: cl_device_fp_config =
    CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_FMA;
/// `CL_DEVICE_DOUBLE_FP_CONFIG` (the flag for correctly rounded divide/sqrt is defined for
/// single precision only; double operations are IEEE-exact anyway).
const DOUBLE_FP_CONFIG: cl_device_fp_config = CL_FP_DENORM
    | CL_FP_INF_NAN
    | CL_FP_ROUND_TO_NEAREST
    | CL_FP_ROUND_TO_ZERO
    | CL_FP_ROUND_TO_INF
    | CL_FP_FMA;
/// `cl_device_atomic_capabilities` bits of the runtime's capability record.
fn atomic_bits(c: rt::AtomicCapabilities) -> cl_device_atomic_capabilities {
    let mut bits = 0;
    for (on, bit) in [
        (c.order_relaxed, CL_DEVICE_ATOMIC_ORDER_RELAXED),
        (c.order_acq_rel, CL_DEVICE_ATOMIC_ORDER_ACQ_REL),
        (c.order_seq_cst, CL_DEVICE_ATOMIC_ORDER_SEQ_CST),
        (c.scope_work_item, CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM),
        (c.scope_work_group, CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP),
        (c.scope_device, CL_DEVICE_ATOMIC_SCOPE_DEVICE),
        (c.scope_all_devices, CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES),
    ] {
        if on {
            bits |= bit;
        }
    }
    bits
}
/// `cl_ext_float_atomics` queries and bits (not in `opencl-sys`; values from the Khronos
/// `cl_ext.h`).
pub const CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT: cl_device_info = 0x4231;
pub const CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT: cl_device_info = 0x4232;
pub const CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT: cl_device_info = 0x4233;

/// `cl_khr_integer_dot_product` queries and bits (not in `opencl-sys`).
pub const CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR: cl_device_info = 0x1073;
pub const CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR: cl_device_info = 0x1074;
pub const CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4X8BIT_PACKED_KHR: cl_device_info =
    0x1075;

/// `cl_device_integer_dot_product_acceleration_properties_khr`: six `cl_bool`s (signed,
/// unsigned, mixed signedness, and the same three accumulating with saturation).
/// All false: Ferrite computes dot products with scalar multiplies and adds, no faster
/// than the same arithmetic written out in OpenCL C.
const NOT_ACCELERATED: [cl_bool; 6] = [CL_FALSE; 6];

fn dot_product_bits() -> cl_bitfield {
    let mut bits = 0;
    if rt::INTEGER_DOT_PRODUCT_4X8BIT_PACKED {
        bits |= 1 << 0; // CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR
    }
    if rt::INTEGER_DOT_PRODUCT_4X8BIT {
        bits |= 1 << 1; // CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR
    }
    bits
}

fn fp_atomic_bits(c: rt::FpAtomicCapabilities) -> cl_bitfield {
    let mut bits = 0;
    for (on, bit) in [
        (c.global_load_store, 1 << 0),
        (c.global_add, 1 << 1),
        (c.global_min_max, 1 << 2),
        (c.local_load_store, 1 << 16),
        (c.local_add, 1 << 17),
        (c.local_min_max, 1 << 18),
    ] {
        if on {
            bits |= bit;
        }
    }
    bits
}

/// Host queues: out-of-order execution and profiling.
pub const QUEUE_PROPERTIES: cl_command_queue_properties =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;

pub unsafe extern "C" fn get_device_info(
    device: cl_device_id,
    param_name: cl_device_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_DEVICE if device is not valid.
        let d = get::<Device>(device)?;
        let zero_u32 = || info(&0u32);
        let zero_usize = || info(&0usize);
        let v = match param_name {
            CL_DEVICE_TYPE => info(&CL_DEVICE_TYPE_CPU),
            CL_DEVICE_VENDOR_ID => info(&rt::VENDOR_ID),
            CL_DEVICE_MAX_COMPUTE_UNITS => info(&d.max_compute_units()),
            CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS => info(&3u32),
            CL_DEVICE_MAX_WORK_ITEM_SIZES => info(&rt::MAX_WORK_ITEM_SIZES),
            CL_DEVICE_MAX_WORK_GROUP_SIZE => info(&rt::MAX_WORK_GROUP_SIZE),
            // 128-bit vectors.
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR | CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR => {
                info(&16u32)
            }
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT | CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT => {
                info(&8u32)
            }
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT
            | CL_DEVICE_NATIVE_VECTOR_WIDTH_INT
            | CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT
            | CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT => info(&4u32),
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG
            | CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG
            | CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE
            | CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE => info(&2u32),
            // cl_khr_fp16: a half is computed in a float lane.
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF | CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF => {
                info(&4u32)
            }
            CL_DEVICE_MAX_CLOCK_FREQUENCY => info(&d.max_clock_mhz),
            CL_DEVICE_ADDRESS_BITS => info(&64u32),
            CL_DEVICE_MAX_MEM_ALLOC_SIZE => info(&d.max_mem_alloc_size),
            // Images (runtime `mem/image.rs`): every limit is 0 unless they are offered.
            CL_DEVICE_IMAGE_SUPPORT => info(&cl_bool(image::enabled())),
            q if !image::enabled() && IMAGE_LIMITS_U32.contains(&q) => zero_u32(),
            q if !image::enabled() && IMAGE_LIMITS_USIZE.contains(&q) => zero_usize(),
            CL_DEVICE_MAX_READ_IMAGE_ARGS => info(&image::MAX_READ_IMAGE_ARGS),
            CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS => info(&image::MAX_READ_WRITE_IMAGE_ARGS),
            CL_DEVICE_MAX_WRITE_IMAGE_ARGS => info(&image::MAX_WRITE_IMAGE_ARGS),
            CL_DEVICE_MAX_SAMPLERS => info(&image::MAX_SAMPLERS),
            CL_DEVICE_IMAGE_PITCH_ALIGNMENT => info(&(image::PITCH_ALIGNMENT as u32)),
            CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT => info(&(image::BASE_ADDRESS_ALIGNMENT as u32)),
            CL_DEVICE_IMAGE2D_MAX_WIDTH | CL_DEVICE_IMAGE2D_MAX_HEIGHT => info(&image::MAX_2D),
            CL_DEVICE_IMAGE3D_MAX_WIDTH
            | CL_DEVICE_IMAGE3D_MAX_HEIGHT
            | CL_DEVICE_IMAGE3D_MAX_DEPTH => info(&image::MAX_3D),
            CL_DEVICE_IMAGE_MAX_BUFFER_SIZE => info(&image::MAX_BUFFER_PIXELS),
            CL_DEVICE_IMAGE_MAX_ARRAY_SIZE => info(&image::MAX_ARRAY),
            CL_DEVICE_IL_VERSION => info(&joined(rt::ILS, true)),
            CL_DEVICE_ILS_WITH_VERSION => info(rt::ILS),
            // No pipes.
            CL_DEVICE_PIPE_SUPPORT => info(&cl_bool(false)),
            CL_DEVICE_MAX_PIPE_ARGS
            | CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS
            | CL_DEVICE_PIPE_MAX_PACKET_SIZE => zero_u32(),
            CL_DEVICE_MAX_PARAMETER_SIZE => info(&rt::MAX_PARAMETER_SIZE),
            CL_DEVICE_MEM_BASE_ADDR_ALIGN => info(&(rt::MEM_BASE_ADDR_ALIGN as u32 * 8)),
            CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE => info(&(rt::MEM_BASE_ADDR_ALIGN as u32)),
            CL_DEVICE_SINGLE_FP_CONFIG => info(&SINGLE_FP_CONFIG),
            CL_DEVICE_DOUBLE_FP_CONFIG => info(&DOUBLE_FP_CONFIG),
            CL_DEVICE_HALF_FP_CONFIG => info(&HALF_FP_CONFIG),
            CL_DEVICE_GLOBAL_MEM_CACHE_TYPE => info(&if d.global_mem_cache.size > 0 {
                CL_READ_WRITE_CACHE
            } else {
                CL_NONE
            }),
            CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE => info(&d.global_mem_cache.line_size),
            CL_DEVICE_GLOBAL_MEM_CACHE_SIZE => info(&d.global_mem_cache.size),
            CL_DEVICE_GLOBAL_MEM_SIZE => info(&d.global_mem_size),
            CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE => info(&rt::MAX_CONSTANT_BUFFER_SIZE),
            CL_DEVICE_MAX_CONSTANT_ARGS => info(&rt::MAX_CONSTANT_ARGS),
            CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE => info(&rt::MAX_GLOBAL_VARIABLE_SIZE),
            CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE => {
                info(&rt::GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE)
            }
            CL_DEVICE_LOCAL_MEM_TYPE => info(&CL_GLOBAL),
            CL_DEVICE_LOCAL_MEM_SIZE => info(&(rt::LOCAL_MEM_SIZE as u64)),
            CL_DEVICE_ERROR_CORRECTION_SUPPORT => info(&cl_bool(false)),
            CL_DEVICE_HOST_UNIFIED_MEMORY => info(&cl_bool(true)),
            CL_DEVICE_PROFILING_TIMER_RESOLUTION => info(&1usize),
            CL_DEVICE_ENDIAN_LITTLE => info(&cl_bool(cfg!(target_endian = "little"))),
            CL_DEVICE_AVAILABLE | CL_DEVICE_COMPILER_AVAILABLE | CL_DEVICE_LINKER_AVAILABLE => {
                info(&cl_bool(true))
            }
            // Native kernels are host functions: Ferrite runs on the host.
            CL_DEVICE_EXECUTION_CAPABILITIES => info(&(CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL)),
            CL_DEVICE_QUEUE_ON_HOST_PROPERTIES => info(&QUEUE_PROPERTIES),
            // No device-side enqueue.
            CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES => info(&0u64),
            CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE | CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE => {
                zero_u32()
            }
            CL_DEVICE_MAX_ON_DEVICE_QUEUES | CL_DEVICE_MAX_ON_DEVICE_EVENTS => zero_u32(),
            CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES => info(&0u64),
            CL_DEVICE_BUILT_IN_KERNELS => info(""),
            CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION => Vec::new(),
            CL_DEVICE_PLATFORM => info(&handle::handle(Platform::get())),
            CL_DEVICE_NAME => info(&d.name),
            CL_DEVICE_VENDOR => info(&d.vendor),
            CL_DRIVER_VERSION => info(env!("CARGO_PKG_VERSION")),
            CL_DEVICE_PROFILE => info("FULL_PROFILE"),
            CL_DEVICE_VERSION => info("OpenCL 3.0 Ferrite"),
            CL_DEVICE_NUMERIC_VERSION => info(&cl_version(plat::API_VERSION)),
            CL_DEVICE_OPENCL_C_VERSION => info("OpenCL C 1.2 Ferrite"),
            CL_DEVICE_OPENCL_C_ALL_VERSIONS => info(rt::OPENCL_C_VERSIONS),
            CL_DEVICE_OPENCL_C_FEATURES => info(&image::opencl_c_features(rt::OPENCL_C_FEATURES)),
            CL_DEVICE_EXTENSIONS => info(&joined(&image::extensions(rt::EXTENSIONS), false)),
            CL_DEVICE_EXTENSIONS_WITH_VERSION => info(&image::extensions(rt::EXTENSIONS)),
            CL_DEVICE_PRINTF_BUFFER_SIZE => info(&rt::PRINTF_BUFFER_SIZE),
            CL_DEVICE_PREFERRED_INTEROP_USER_SYNC => info(&cl_bool(true)),
            CL_DEVICE_PARENT_DEVICE => info(
                &d.parent
                    .as_ref()
                    .map_or(std::ptr::null_mut(), handle::handle),
            ),
            // Partitions by compute units (the executor's workers): equally and by counts.
            CL_DEVICE_PARTITION_MAX_SUB_DEVICES => info(&d.max_compute_units()),
            CL_DEVICE_PARTITION_PROPERTIES => info(&partition::supported(&d)),
            // Affinity domains are not offered: compute units are worker threads, not
            // cores with a fixed place in the cache or NUMA hierarchy.
            CL_DEVICE_PARTITION_AFFINITY_DOMAIN => info(&0u64),
            // The properties the sub-device was created with; nothing for a root device.
            CL_DEVICE_PARTITION_TYPE => info(&partition::partition_type(&d)),
            // Root devices are not reference counted: always 1.
            CL_DEVICE_REFERENCE_COUNT => info(&if d.parent.is_some() {
                d.api.ref_count()
            } else {
                1
            }),
            // Every SVM kind is native (device memory is host memory): `svm.rs`.
            CL_DEVICE_SVM_CAPABILITIES => info(&super::svm::SVM_CAPABILITIES),
            CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL
            | CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL
            | CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL
            | CL_DEVICE_CROSS_DEVICE_SHARED_MEM_CAPABILITIES_INTEL
            | CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL => info(&super::usm::CAPABILITIES),
            CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT
            | CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT
            | CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT => zero_u32(),
            // As many sub-groups as the largest work-group holds at the smallest size.
            CL_DEVICE_MAX_NUM_SUB_GROUPS => info(
                &(rt::MAX_WORK_GROUP_SIZE.div_ceil(ferrite_compiler::SUB_GROUP_SIZES[0] as usize)
                    as cl_uint),
            ),
            // The work-items of a group run one after another on one thread, region by
            // region: a sub-group that waits (spins) for another sub-group of its group
            // to make progress never lets it run.
            CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS => info(&cl_bool(false)),
            // cl_intel_required_subgroup_size: the sizes a kernel may require.
            CL_DEVICE_SUB_GROUP_SIZES_INTEL => {
                info(&ferrite_compiler::SUB_GROUP_SIZES.map(|n| n as usize))
            }
            CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES => {
                info(&atomic_bits(rt::ATOMIC_MEMORY_CAPABILITIES))
            }
            CL_DEVICE_ATOMIC_FENCE_CAPABILITIES => {
                info(&atomic_bits(rt::ATOMIC_FENCE_CAPABILITIES))
            }
            CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT => info(&cl_bool(true)),
            CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT => {
                info(&cl_bool(rt::WORK_GROUP_COLLECTIVE_FUNCTIONS))
            }
            CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT => info(&cl_bool(rt::GENERIC_ADDRESS_SPACE)),
            CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => {
                info(&rt::PREFERRED_WORK_GROUP_SIZE_MULTIPLE)
            }
            CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT => {
                info(&fp_atomic_bits(rt::SINGLE_FP_ATOMICS))
            }
            CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT => {
                info(&fp_atomic_bits(rt::DOUBLE_FP_ATOMICS))
            }
            CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT => info(&fp_atomic_bits(rt::HALF_FP_ATOMICS)),
            CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR => info(&dot_product_bits()),
            CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR
            | CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4X8BIT_PACKED_KHR => {
                info(&NOT_ACCELERATED)
            }
            // cl_khr_spirv_queries: arrays of pointers to static NUL-terminated names,
            // and the capability numbers, all from the compiler's lists.
            CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR => {
                info(&c_names(ferrite_compiler::EXTENDED_INSTRUCTION_SETS))
            }
            CL_DEVICE_SPIRV_EXTENSIONS_KHR => info(&c_names(ferrite_compiler::SPIRV_EXTENSIONS)),
            CL_DEVICE_SPIRV_CAPABILITIES_KHR => info(&ferrite_compiler::supported_capabilities()),
            // cl_khr_device_uuid: the identity Level-Zero reports too.
            CL_DEVICE_UUID_KHR => info(&rt::DEVICE_UUID),
            // cl_khr_kernel_clock: one monotonic clock, readable at every scope.
            CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR => info(
                &(CL_DEVICE_KERNEL_CLOCK_SCOPE_DEVICE_KHR
                    | CL_DEVICE_KERNEL_CLOCK_SCOPE_WORK_GROUP_KHR
                    | CL_DEVICE_KERNEL_CLOCK_SCOPE_SUB_GROUP_KHR),
            ),
            CL_DRIVER_UUID_KHR => info(&rt::DRIVER_UUID),
            // cl_khr_command_buffer: printf works in recorded kernels; any queue this
            // device makes can record and replay.
            CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR => info(&super::command_buffer::CAPABILITIES),
            CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR => {
                info(&super::command_buffer::SUPPORTED_QUEUE_PROPERTIES)
            }
            CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR => info(&(0 as cl_bitfield)),
            CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR => {
                info(&super::command_buffer::MUTABLE_DISPATCH_CAPABILITIES)
            }
            // A LUID is a Windows adapter id; there is none, and so no node mask.
            CL_DEVICE_LUID_VALID_KHR => info(&cl_bool(false)),
            CL_DEVICE_LUID_KHR => info(&[0u8; 8]),
            CL_DEVICE_NODE_MASK_KHR => info(&(0 as cl_uint)),
            // Not yet run through the conformance process. The CTS checks the vYYYY-MM-DD-XX
            // form (month and day from 01): a valid date no conformance run had (as rusticl).
            CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED => info("v0000-01-01-00"),
            // CL_INVALID_VALUE if param_name is not one of the supported values.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe { write_info(&v, param_value_size, param_value, param_value_size_ret) }
    })
}

/// `names` as pointers to NUL-terminated copies that live as long as the process (made
/// once per list: the application may keep the pointers).
fn c_names(names: &'static [&'static str]) -> Vec<*mut c_void> {
    use std::collections::HashMap;
    use std::ffi::CString;
    use std::sync::{Mutex, OnceLock};
    static MADE: OnceLock<Mutex<HashMap<usize, Vec<usize>>>> = OnceLock::new();
    let made = MADE.get_or_init(Default::default);
    let mut made = made
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let ptrs = made.entry(names.as_ptr() as usize).or_insert_with(|| {
        names
            .iter()
            .filter_map(|n| CString::new(*n).ok())
            // Leaked on purpose: the strings must outlive every query's answer.
            .map(|c| c.into_raw() as usize)
            .collect()
    });
    ptrs.iter().map(|&p| p as *mut c_void).collect()
}

pub unsafe extern "C" fn retain_device(device: cl_device_id) -> cl_int {
    // Root device: retaining is a no-op after validation; sub-devices are counted.
    cl_call(|| handle::retain::<Device>(device))
}

pub unsafe extern "C" fn release_device(device: cl_device_id) -> cl_int {
    // Root device: releasing is a no-op after validation; sub-devices are counted.
    cl_call(|| handle::release::<Device>(device))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_type_filters() {
        assert!(matches_type(CL_DEVICE_TYPE_ALL));
        assert!(matches_type(CL_DEVICE_TYPE_CPU));
        assert!(matches_type(CL_DEVICE_TYPE_DEFAULT));
        assert!(matches_type(CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU));
        assert!(!matches_type(CL_DEVICE_TYPE_GPU));
        assert!(!matches_type(CL_DEVICE_TYPE_ACCELERATOR));
        assert!(valid_type(CL_DEVICE_TYPE_GPU));
        assert!(!valid_type(0));
        assert!(!valid_type(1 << 40));
    }
}
