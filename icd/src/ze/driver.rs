//! `zeInit` and the driver: Ferrite is one driver with one CPU device.
#![expect(non_snake_case, reason = "entry points keep their Level-Zero names")]

use super::handle;
use super::sys::*;
use super::sys_next::{
    ze_init_driver_type_desc_t, ZE_INIT_DRIVER_TYPE_FLAG_GPU, ZE_INIT_DRIVER_TYPE_FLAG_NPU,
};
use super::{check, copy_str, fill_array, input, output, write_out, ze_call, API_VERSION};
use ferrite_runtime::device::Device;
use ferrite_runtime::platform::Platform;
use std::ffi::{c_char, c_void};
use std::sync::{Arc, OnceLock};

/// The driver object behind `ze_driver_handle_t`.
pub struct Driver {
    pub device: Arc<Device>,
}

/// The driver, created on first use (after the OpenCL side registered its dispatch table,
/// which every runtime object copies).
pub fn driver() -> &'static Arc<Driver> {
    static DRIVER: OnceLock<Arc<Driver>> = OnceLock::new();
    DRIVER.get_or_init(|| {
        crate::cl::init();
        let driver = Arc::new(Driver {
            device: Platform::get().device.clone(),
        });
        let _: ze_driver_handle_t = handle::insert(driver.clone());
        let _: ze_device_handle_t = handle::insert(driver.device.clone());
        driver
    })
}

/// The driver behind a handle.
pub fn get(h: ze_driver_handle_t) -> super::ZeResult<Arc<Driver>> {
    driver();
    handle::get::<Driver, _>(h)
}

/// `zeDriverGetProperties.driverVersion`: the crate version as
/// `major << 24 | minor << 16 | patch`.
fn driver_version() -> u32 {
    let mut parts = env!("CARGO_PKG_VERSION")
        .split('.')
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let mut next = || parts.next().unwrap_or(0);
    (next() << 24) | (next() << 16) | next()
}

pub(super) unsafe extern "C" fn zeInit(flags: ze_init_flags_t) -> ze_result_t {
    ze_call(|| {
        // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0x3 < flags
        check(flags <= 0x3, ZE_RESULT_ERROR_INVALID_ENUMERATION)?;
        // A GPU-only or VPU-only request does not want a CPU driver.
        if flags != 0 {
            return Ok(ZE_RESULT_ERROR_UNINITIALIZED);
        }
        driver();
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeInitDrivers` (1.10): like `zeInit(0)` and `zeDriverGet`, for the driver types asked
/// for. A CPU is neither a GPU nor an NPU, so Ferrite's driver answers only a request for
/// every type (`UINT32_MAX`, or any bit beyond those two).
pub(super) unsafe extern "C" fn zeInitDrivers(
    p_count: *mut u32,
    ph_drivers: *mut ze_driver_handle_t,
    desc: *mut ze_init_driver_type_desc_t,
) -> ze_result_t {
    ze_call(|| {
        check(!p_count.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // SAFETY: NULL or the application's descriptor (API contract).
        let desc = unsafe { input(desc.cast_const())? };
        // ZE_RESULT_ERROR_INVALID_ARGUMENT: 0x0 == desc->flags
        check(desc.flags != 0, ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        let cpu = desc.flags & !(ZE_INIT_DRIVER_TYPE_FLAG_GPU | ZE_INIT_DRIVER_TYPE_FLAG_NPU) != 0;
        let found: &[ze_driver_handle_t] = if cpu {
            &[handle::handle_of(driver())]
        } else {
            &[]
        };
        // SAFETY: pCount is a valid pointer (checked non-NULL) and phDrivers NULL or an
        // array of *pCount handles (API contract).
        unsafe { fill_array(p_count, ph_drivers, found)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeDriverGetLastErrorDescription` (1.6): the name of the last failure an entry point
/// returned on this thread (a static string).
pub(super) unsafe extern "C" fn zeDriverGetLastErrorDescription(
    h_driver: ze_driver_handle_t,
    pp_string: *mut *const std::ffi::c_char,
) -> ze_result_t {
    // Read before `ze_call`, which records this call's own failure.
    let text = super::last_error_description();
    ze_call(|| {
        get(h_driver)?;
        // SAFETY: NULL or valid for writes (API contract).
        unsafe { write_out(pp_string, text.as_ptr().cast())? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDriverGet(
    p_count: *mut u32,
    ph_drivers: *mut ze_driver_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let h: ze_driver_handle_t = handle::handle_of(driver());
        // SAFETY: pCount is a valid pointer and phDrivers NULL or an array of *pCount
        // handles (API contract).
        unsafe { fill_array(p_count, ph_drivers, &[h])? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDriverGetApiVersion(
    h_driver: ze_driver_handle_t,
    version: *mut ze_api_version_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_driver)?;
        // SAFETY: `version` is NULL or valid for writes (API contract).
        unsafe { write_out(version, API_VERSION)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDriverGetProperties(
    h_driver: ze_driver_handle_t,
    props: *mut ze_driver_properties_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_driver)?;
        // SAFETY: `props` is NULL or the application's struct (API contract).
        let p = unsafe { output(props)? };
        p.uuid.id = ferrite_runtime::device::DRIVER_UUID;
        p.driverVersion = driver_version();
        // SAFETY: pNext is NULL or a chain of extension structs (API contract).
        unsafe {
            super::for_each_ext(
                p.pNext,
                ZE_STRUCTURE_TYPE_DRIVER_MEMORY_FREE_EXT_PROPERTIES,
                |m: &mut ze_driver_memory_free_ext_properties_t| {
                    m.freePolicies = ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE
                        | ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE;
                },
            )
        };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDriverGetIpcProperties(
    h_driver: ze_driver_handle_t,
    props: *mut ze_driver_ipc_properties_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_driver)?;
        // SAFETY: `props` is NULL or the application's struct (API contract).
        let p = unsafe { output(props)? };
        // Memory (`mem/ipc.rs`) and event pools (`ze/event_ipc.rs`) can be shared with
        // another process.
        p.flags = ZE_IPC_PROPERTY_FLAG_MEMORY | ZE_IPC_PROPERTY_FLAG_EVENT_POOL;
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// Extensions Ferrite implements, with their versions.
const EXTENSIONS: &[(&str, u32)] = &[
    // zeKernelSetGlobalOffsetExp
    (
        "ZE_experimental_global_offset",
        ZE_GLOBAL_OFFSET_EXP_VERSION_1_0,
    ),
    // ze_float_atomic_ext_properties_t in zeDeviceGetModuleProperties' pNext chain
    (
        "ZE_extension_float_atomics",
        ZE_FLOAT_ATOMICS_EXT_VERSION_1_0,
    ),
    // zeModuleInspectLinkageExt
    (
        "ZE_extension_linkage_inspection",
        ZE_LINKAGE_INSPECTION_EXT_VERSION_1_0,
    ),
    // zeEventQueryTimestampsExp
    (
        "ZE_experimental_event_query_timestamps",
        ZE_EVENT_QUERY_TIMESTAMPS_EXP_VERSION_1_0,
    ),
    // ze_kernel_max_group_size_properties_ext_t in zeKernelGetProperties' pNext chain
    (
        "ZE_extension_kernel_max_group_size_properties",
        super::sys_next::ZE_KERNEL_MAX_GROUP_SIZE_PROPERTIES_EXT_VERSION_1_0,
    ),
    // zeEventQueryKernelTimestampsExt, ze_event_query_kernel_timestamps_ext_properties_t
    (
        "ZE_extension_event_query_kernel_timestamps",
        super::sys_next::ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_VERSION_1_0,
    ),
    // ze_device_readonly_memory_ext_properties_t in zeDeviceGetProperties' pNext chain
    (
        "ZE_extension_virtual_mem_readonly_properties",
        super::sys_next::ZE_VIRTUAL_MEM_READONLY_PROPERTIES_EXT_VERSION_1_0,
    ),
    // zeImageGetMemoryPropertiesExp
    (
        "ZE_experimental_image_memory_properties",
        ZE_IMAGE_MEMORY_PROPERTIES_EXP_VERSION_1_0,
    ),
    // zeImageGetAllocPropertiesExt
    (
        "ZE_extension_image_query_alloc_properties",
        ZE_IMAGE_QUERY_ALLOC_PROPERTIES_EXT_VERSION_1_0,
    ),
    // zeMemFreeExt's policies, ze_driver_memory_free_ext_properties_t
    (
        "ZE_extension_memory_free_policies",
        ZE_MEMORY_FREE_POLICIES_EXT_VERSION_1_0,
    ),
    // zeCommandListImmediateAppendCommandListsExp (API 1.9)
    (
        "ZE_experimental_immediate_command_list_append",
        super::sys_next::ZE_IMMEDIATE_COMMAND_LIST_APPEND_EXP_VERSION_1_0,
    ),
];

pub(super) unsafe extern "C" fn zeDriverGetExtensionProperties(
    h_driver: ze_driver_handle_t,
    p_count: *mut u32,
    props: *mut ze_driver_extension_properties_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_driver)?;
        let items: Vec<ze_driver_extension_properties_t> = EXTENSIONS
            .iter()
            .map(|&(name, version)| {
                // A C string field: the names above are shorter than ZE_MAX_EXTENSION_NAME.
                let mut p = ze_driver_extension_properties_t {
                    name: [0; 256],
                    version,
                };
                copy_str(&mut p.name, name);
                p
            })
            .collect();
        // SAFETY: pCount valid, props NULL or an array of *pCount (API contract).
        unsafe { fill_array(p_count, props, &items)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeDriverGetExtensionFunctionAddress(
    h_driver: ze_driver_handle_t,
    name: *const c_char,
    ppfn: *mut *mut c_void,
) -> ze_result_t {
    ze_call(|| {
        get(h_driver)?;
        check(!name.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        check(!ppfn.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // SAFETY: a NUL-terminated string (API contract), checked non-NULL above.
        let name = unsafe { std::ffi::CStr::from_ptr(name) };
        let f = extension_function(name.to_bytes())
            .ok_or(super::ZeError(ZE_RESULT_ERROR_INVALID_ARGUMENT))?;
        // SAFETY: non-NULL, valid for writes (API contract).
        unsafe { write_out(ppfn, f)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// The entry points of the claimed extensions ([`EXTENSIONS`]), by name: a loader older
/// than an extension has no table slot for it, and applications reach it this way.
fn extension_function(name: &[u8]) -> Option<*mut c_void> {
    use super::{cmdlist, event, image, kernel, module};
    Some(match name {
        b"zeKernelSetGlobalOffsetExp" => kernel::zeKernelSetGlobalOffsetExp as *mut c_void,
        b"zeModuleInspectLinkageExt" => module::zeModuleInspectLinkageExt as *mut c_void,
        b"zeEventQueryKernelTimestampsExt" => event::zeEventQueryKernelTimestampsExt as *mut c_void,
        b"zeEventQueryTimestampsExp" => event::zeEventQueryTimestampsExp as *mut c_void,
        b"zeImageGetMemoryPropertiesExp" => image::zeImageGetMemoryPropertiesExp as *mut c_void,
        b"zeImageGetAllocPropertiesExt" => image::zeImageGetAllocPropertiesExt as *mut c_void,
        b"zeCommandListImmediateAppendCommandListsExp" => {
            cmdlist::zeCommandListImmediateAppendCommandListsExp as *mut c_void
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_driver() {
        let mut n = 0u32;
        // SAFETY: valid pointers to locals.
        assert_eq!(unsafe { zeDriverGet(&mut n, std::ptr::null_mut()) }, 0);
        assert_eq!(n, 1);
        let mut h: ze_driver_handle_t = std::ptr::null_mut();
        // SAFETY: room for one handle.
        assert_eq!(unsafe { zeDriverGet(&mut n, &mut h) }, 0);
        let mut v = 0;
        // SAFETY: valid pointers.
        assert_eq!(unsafe { zeDriverGetApiVersion(h, &mut v) }, 0);
        assert_eq!(v, ZE_API_VERSION_1_4);
        // SAFETY: a garbage handle is rejected before use.
        let r = unsafe { zeDriverGetApiVersion(8 as ze_driver_handle_t, &mut v) };
        assert_eq!(r, ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
        assert_eq!(driver_version() >> 24, 0);
    }
}
