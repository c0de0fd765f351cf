//! The DDI tables: the 55 `Get…ProcAddrTable` functions the loader looks up (the only
//! symbols Level-Zero sees), each filled from the one list below.
//!
//! libze_loader 1.8 starts a driver only if it exports every non-experimental getter of
//! `ze_ddi.h`, `zet_ddi.h` and `zes_ddi.h` (17 + 12 + 17; with the `ze*` ones alone
//! `zeInit` fails with 0x78000001); the experimental ones are optional for it, and
//! Ferrite exports them too so that no slot the application can reach is NULL.
//!
//! Each entry reads `field (major, minor) function(parameter types) [=> implementation];`:
//! the table field, the API version that added it, the entry point's name and signature
//! (from the header's `pfn` typedef), and, when Ferrite implements it, the function. An
//! entry without an implementation gets a generated stub with the header's signature that
//! returns `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE`. Every slot is written with a function of
//! the table field's exact type, so a wrong signature does not compile.
//!
//! Version negotiation: a getter fills only the fields that exist in the version asked
//! for (a caller built against an older header passes a smaller table), and refuses a
//! different major version with `ZE_RESULT_ERROR_UNSUPPORTED_VERSION`. A newer minor
//! version gets every field Ferrite knows; the rest of the caller's table is left as is.
//!
//! The list was generated from the bindgen output ([`super::sys`]) with the field
//! versions taken from the Level-Zero loader's null driver (its per-field
//! `if (version >= ZE_API_VERSION_1_x)` gates); to implement an entry point, add
//! `=> module::function` to its line.

use super::sys::*;
use super::sys_next::*;
use super::{check, make_version, ze_call, ZeResult, API_VERSION};
use super::{
    cmdlist, cmdqueue, context, device, driver, event, fence, image, kernel, mem, module,
    virtual_mem,
};

/// Check a getter's arguments: a table to fill and the same major version.
fn negotiate(version: ze_api_version_t, table_is_null: bool) -> ZeResult<()> {
    check(!table_is_null, ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
    check(
        version >> 16 == API_VERSION >> 16,
        ZE_RESULT_ERROR_UNSUPPORTED_VERSION,
    )
}

/// A generated stub for an entry without an implementation; nothing for the others.
macro_rules! stub {
    ($func:ident ($($t:ty),*) => $imp:path) => {};
    ($func:ident ($($t:ty),*)) => {
        pub(super) unsafe extern "C" fn $func($(_: $t),*) -> ze_result_t {
            ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
        }
    };
}

/// The function stored in a slot: the implementation, else the stub.
macro_rules! slot {
    ($func:ident => $imp:path) => {
        $imp
    };
    ($func:ident) => {
        stubs::$func
    };
}

macro_rules! ddi_tables {
    ( $(
        $getter:ident($table:ident) {
            $( $field:ident ($maj:literal, $min:literal) $func:ident ( $($t:ty),* ) $(=> $imp:path)? ; )*
        }
    )* ) => {
        /// Entry points Ferrite does not implement (yet).
        #[expect(non_snake_case, reason = "stubs keep their Level-Zero names")]
        mod stubs {
            use super::*;
            $( $( stub!($func ($($t),*) $(=> $imp)?); )* )*
        }

        $(
            #[doc = concat!("`", stringify!($getter), "`: fill a `", stringify!($table),
                "` with Ferrite's entry points.")]
            ///
            /// # Safety
            /// `table` is NULL or points to a table with at least the fields of API
            /// `version`, valid for writes.
            #[no_mangle]
            pub unsafe extern "C" fn $getter(
                version: ze_api_version_t,
                table: *mut $table,
            ) -> ze_result_t {
                ze_call(|| {
                    negotiate(version, table.is_null())?;
                    $(
                        if version >= make_version($maj, $min) {
                            // SAFETY: `table` is non-NULL (negotiate) and, per the caller,
                            // has this field, which exists since the version checked here.
                            // A raw place: no reference to the whole (maybe shorter) table
                            // is made.
                            unsafe {
                                (&raw mut (*table).$field).write(Some(slot!($func $(=> $imp)?)))
                            };
                        }
                    )*
                    Ok(ZE_RESULT_SUCCESS)
                })
            }
        )*

        /// Every getter, for the tests.
        #[cfg(test)]
        const GETTERS: &[&str] = &[$(stringify!($getter)),*];
    };
}

ddi_tables! {
    zeGetGlobalProcAddrTable(ze_global_dditable_next_t) {
        pfnInit (1, 0) zeInit(ze_init_flags_t) => driver::zeInit;
        pfnInitDrivers (1, 10) zeInitDrivers(*mut u32, *mut ze_driver_handle_t, *mut ze_init_driver_type_desc_t) => driver::zeInitDrivers;
    }
    zeGetDriverProcAddrTable(ze_driver_dditable_next_t) {
        pfnGetLastErrorDescription (1, 6) zeDriverGetLastErrorDescription(ze_driver_handle_t, *mut *const ::core::ffi::c_char) => driver::zeDriverGetLastErrorDescription;
        pfnGet (1, 0) zeDriverGet(*mut u32, *mut ze_driver_handle_t) => driver::zeDriverGet;
        pfnGetApiVersion (1, 0) zeDriverGetApiVersion(ze_driver_handle_t, *mut ze_api_version_t) => driver::zeDriverGetApiVersion;
        pfnGetProperties (1, 0) zeDriverGetProperties(ze_driver_handle_t, *mut ze_driver_properties_t) => driver::zeDriverGetProperties;
        pfnGetIpcProperties (1, 0) zeDriverGetIpcProperties(ze_driver_handle_t, *mut ze_driver_ipc_properties_t) => driver::zeDriverGetIpcProperties;
        pfnGetExtensionProperties (1, 0) zeDriverGetExtensionProperties(ze_driver_handle_t, *mut u32, *mut ze_driver_extension_properties_t) => driver::zeDriverGetExtensionProperties;
        pfnGetExtensionFunctionAddress (1, 1) zeDriverGetExtensionFunctionAddress(ze_driver_handle_t, *const ::core::ffi::c_char, *mut *mut ::core::ffi::c_void) => driver::zeDriverGetExtensionFunctionAddress;
    }
    zeGetDeviceProcAddrTable(ze_device_dditable_next_t) {
        pfnGet (1, 0) zeDeviceGet(ze_driver_handle_t, *mut u32, *mut ze_device_handle_t) => device::zeDeviceGet;
        pfnGetSubDevices (1, 0) zeDeviceGetSubDevices(ze_device_handle_t, *mut u32, *mut ze_device_handle_t) => device::zeDeviceGetSubDevices;
        pfnGetProperties (1, 0) zeDeviceGetProperties(ze_device_handle_t, *mut ze_device_properties_t) => device::zeDeviceGetProperties;
        pfnGetComputeProperties (1, 0) zeDeviceGetComputeProperties(ze_device_handle_t, *mut ze_device_compute_properties_t) => device::zeDeviceGetComputeProperties;
        pfnGetModuleProperties (1, 0) zeDeviceGetModuleProperties(ze_device_handle_t, *mut ze_device_module_properties_t) => device::zeDeviceGetModuleProperties;
        pfnGetCommandQueueGroupProperties (1, 0) zeDeviceGetCommandQueueGroupProperties(ze_device_handle_t, *mut u32, *mut ze_command_queue_group_properties_t) => device::zeDeviceGetCommandQueueGroupProperties;
        pfnGetMemoryProperties (1, 0) zeDeviceGetMemoryProperties(ze_device_handle_t, *mut u32, *mut ze_device_memory_properties_t) => device::zeDeviceGetMemoryProperties;
        pfnGetMemoryAccessProperties (1, 0) zeDeviceGetMemoryAccessProperties(ze_device_handle_t, *mut ze_device_memory_access_properties_t) => device::zeDeviceGetMemoryAccessProperties;
        pfnGetCacheProperties (1, 0) zeDeviceGetCacheProperties(ze_device_handle_t, *mut u32, *mut ze_device_cache_properties_t) => device::zeDeviceGetCacheProperties;
        pfnGetImageProperties (1, 0) zeDeviceGetImageProperties(ze_device_handle_t, *mut ze_device_image_properties_t) => device::zeDeviceGetImageProperties;
        pfnGetExternalMemoryProperties (1, 0) zeDeviceGetExternalMemoryProperties(ze_device_handle_t, *mut ze_device_external_memory_properties_t) => device::zeDeviceGetExternalMemoryProperties;
        pfnGetP2PProperties (1, 0) zeDeviceGetP2PProperties(ze_device_handle_t, ze_device_handle_t, *mut ze_device_p2p_properties_t) => device::zeDeviceGetP2PProperties;
        pfnCanAccessPeer (1, 0) zeDeviceCanAccessPeer(ze_device_handle_t, ze_device_handle_t, *mut ze_bool_t) => device::zeDeviceCanAccessPeer;
        pfnGetStatus (1, 0) zeDeviceGetStatus(ze_device_handle_t) => device::zeDeviceGetStatus;
        pfnGetGlobalTimestamps (1, 1) zeDeviceGetGlobalTimestamps(ze_device_handle_t, *mut u64, *mut u64) => device::zeDeviceGetGlobalTimestamps;
        pfnReserveCacheExt (1, 2) zeDeviceReserveCacheExt(ze_device_handle_t, usize, usize);
        pfnSetCacheAdviceExt (1, 2) zeDeviceSetCacheAdviceExt(ze_device_handle_t, *mut ::core::ffi::c_void, usize, ze_cache_ext_region_t);
        pfnPciGetPropertiesExt (1, 3) zeDevicePciGetPropertiesExt(ze_device_handle_t, *mut ze_pci_ext_properties_t);
        pfnGetRootDevice (1, 7) zeDeviceGetRootDevice(ze_device_handle_t, *mut ze_device_handle_t) => device::zeDeviceGetRootDevice;
    }
    zeGetDeviceExpProcAddrTable(ze_device_exp_dditable_t) {
        pfnGetFabricVertexExp (1, 4) zeDeviceGetFabricVertexExp(ze_device_handle_t, *mut ze_fabric_vertex_handle_t);
    }
    zeGetContextProcAddrTable(ze_context_dditable_t) {
        pfnCreate (1, 0) zeContextCreate(ze_driver_handle_t, *const ze_context_desc_t, *mut ze_context_handle_t) => context::zeContextCreate;
        pfnDestroy (1, 0) zeContextDestroy(ze_context_handle_t) => context::zeContextDestroy;
        pfnGetStatus (1, 0) zeContextGetStatus(ze_context_handle_t) => context::zeContextGetStatus;
        pfnSystemBarrier (1, 0) zeContextSystemBarrier(ze_context_handle_t, ze_device_handle_t) => context::zeContextSystemBarrier;
        pfnMakeMemoryResident (1, 0) zeContextMakeMemoryResident(ze_context_handle_t, ze_device_handle_t, *mut ::core::ffi::c_void, usize) => context::zeContextMakeMemoryResident;
        pfnEvictMemory (1, 0) zeContextEvictMemory(ze_context_handle_t, ze_device_handle_t, *mut ::core::ffi::c_void, usize) => context::zeContextEvictMemory;
        pfnMakeImageResident (1, 0) zeContextMakeImageResident(ze_context_handle_t, ze_device_handle_t, ze_image_handle_t) => image::zeContextMakeImageResident;
        pfnEvictImage (1, 0) zeContextEvictImage(ze_context_handle_t, ze_device_handle_t, ze_image_handle_t) => image::zeContextEvictImage;
        pfnCreateEx (1, 1) zeContextCreateEx(ze_driver_handle_t, *const ze_context_desc_t, u32, *mut ze_device_handle_t, *mut ze_context_handle_t) => context::zeContextCreateEx;
    }
    zeGetCommandQueueProcAddrTable(ze_command_queue_dditable_t) {
        pfnCreate (1, 0) zeCommandQueueCreate(ze_context_handle_t, ze_device_handle_t, *const ze_command_queue_desc_t, *mut ze_command_queue_handle_t) => cmdqueue::zeCommandQueueCreate;
        pfnDestroy (1, 0) zeCommandQueueDestroy(ze_command_queue_handle_t) => cmdqueue::zeCommandQueueDestroy;
        pfnExecuteCommandLists (1, 0) zeCommandQueueExecuteCommandLists(ze_command_queue_handle_t, u32, *mut ze_command_list_handle_t, ze_fence_handle_t) => cmdqueue::zeCommandQueueExecuteCommandLists;
        pfnSynchronize (1, 0) zeCommandQueueSynchronize(ze_command_queue_handle_t, u64) => cmdqueue::zeCommandQueueSynchronize;
    }
    zeGetCommandListProcAddrTable(ze_command_list_dditable_next_t) {
        pfnCreate (1, 0) zeCommandListCreate(ze_context_handle_t, ze_device_handle_t, *const ze_command_list_desc_t, *mut ze_command_list_handle_t) => cmdlist::zeCommandListCreate;
        pfnCreateImmediate (1, 0) zeCommandListCreateImmediate(ze_context_handle_t, ze_device_handle_t, *const ze_command_queue_desc_t, *mut ze_command_list_handle_t) => cmdlist::zeCommandListCreateImmediate;
        pfnDestroy (1, 0) zeCommandListDestroy(ze_command_list_handle_t) => cmdlist::zeCommandListDestroy;
        pfnClose (1, 0) zeCommandListClose(ze_command_list_handle_t) => cmdlist::zeCommandListClose;
        pfnReset (1, 0) zeCommandListReset(ze_command_list_handle_t) => cmdlist::zeCommandListReset;
        pfnAppendWriteGlobalTimestamp (1, 0) zeCommandListAppendWriteGlobalTimestamp(ze_command_list_handle_t, *mut u64, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendWriteGlobalTimestamp;
        pfnAppendBarrier (1, 0) zeCommandListAppendBarrier(ze_command_list_handle_t, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendBarrier;
        pfnAppendMemoryRangesBarrier (1, 0) zeCommandListAppendMemoryRangesBarrier(ze_command_list_handle_t, u32, *const usize, *mut *const ::core::ffi::c_void, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendMemoryRangesBarrier;
        pfnAppendMemoryCopy (1, 0) zeCommandListAppendMemoryCopy(ze_command_list_handle_t, *mut ::core::ffi::c_void, *const ::core::ffi::c_void, usize, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendMemoryCopy;
        pfnAppendMemoryFill (1, 0) zeCommandListAppendMemoryFill(ze_command_list_handle_t, *mut ::core::ffi::c_void, *const ::core::ffi::c_void, usize, usize, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendMemoryFill;
        pfnAppendMemoryCopyRegion (1, 0) zeCommandListAppendMemoryCopyRegion(ze_command_list_handle_t, *mut ::core::ffi::c_void, *const ze_copy_region_t, u32, u32, *const ::core::ffi::c_void, *const ze_copy_region_t, u32, u32, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendMemoryCopyRegion;
        pfnAppendMemoryCopyFromContext (1, 0) zeCommandListAppendMemoryCopyFromContext(ze_command_list_handle_t, *mut ::core::ffi::c_void, ze_context_handle_t, *const ::core::ffi::c_void, usize, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendMemoryCopyFromContext;
        pfnAppendImageCopy (1, 0) zeCommandListAppendImageCopy(ze_command_list_handle_t, ze_image_handle_t, ze_image_handle_t, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendImageCopy;
        pfnAppendImageCopyRegion (1, 0) zeCommandListAppendImageCopyRegion(ze_command_list_handle_t, ze_image_handle_t, ze_image_handle_t, *const ze_image_region_t, *const ze_image_region_t, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendImageCopyRegion;
        pfnAppendImageCopyToMemory (1, 0) zeCommandListAppendImageCopyToMemory(ze_command_list_handle_t, *mut ::core::ffi::c_void, ze_image_handle_t, *const ze_image_region_t, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendImageCopyToMemory;
        pfnAppendImageCopyFromMemory (1, 0) zeCommandListAppendImageCopyFromMemory(ze_command_list_handle_t, ze_image_handle_t, *const ::core::ffi::c_void, *const ze_image_region_t, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendImageCopyFromMemory;
        pfnAppendMemoryPrefetch (1, 0) zeCommandListAppendMemoryPrefetch(ze_command_list_handle_t, *const ::core::ffi::c_void, usize) => cmdlist::zeCommandListAppendMemoryPrefetch;
        pfnAppendMemAdvise (1, 0) zeCommandListAppendMemAdvise(ze_command_list_handle_t, ze_device_handle_t, *const ::core::ffi::c_void, usize, ze_memory_advice_t) => cmdlist::zeCommandListAppendMemAdvise;
        pfnAppendSignalEvent (1, 0) zeCommandListAppendSignalEvent(ze_command_list_handle_t, ze_event_handle_t) => cmdlist::zeCommandListAppendSignalEvent;
        pfnAppendWaitOnEvents (1, 0) zeCommandListAppendWaitOnEvents(ze_command_list_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendWaitOnEvents;
        pfnAppendEventReset (1, 0) zeCommandListAppendEventReset(ze_command_list_handle_t, ze_event_handle_t) => cmdlist::zeCommandListAppendEventReset;
        pfnAppendQueryKernelTimestamps (1, 0) zeCommandListAppendQueryKernelTimestamps(ze_command_list_handle_t, u32, *mut ze_event_handle_t, *mut ::core::ffi::c_void, *const usize, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendQueryKernelTimestamps;
        pfnAppendLaunchKernel (1, 0) zeCommandListAppendLaunchKernel(ze_command_list_handle_t, ze_kernel_handle_t, *const ze_group_count_t, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendLaunchKernel;
        pfnAppendLaunchCooperativeKernel (1, 0) zeCommandListAppendLaunchCooperativeKernel(ze_command_list_handle_t, ze_kernel_handle_t, *const ze_group_count_t, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendLaunchCooperativeKernel;
        pfnAppendLaunchKernelIndirect (1, 0) zeCommandListAppendLaunchKernelIndirect(ze_command_list_handle_t, ze_kernel_handle_t, *const ze_group_count_t, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendLaunchKernelIndirect;
        pfnAppendLaunchMultipleKernelsIndirect (1, 0) zeCommandListAppendLaunchMultipleKernelsIndirect(ze_command_list_handle_t, u32, *mut ze_kernel_handle_t, *const u32, *const ze_group_count_t, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendLaunchMultipleKernelsIndirect;
        pfnAppendImageCopyToMemoryExt (1, 3) zeCommandListAppendImageCopyToMemoryExt(ze_command_list_handle_t, *mut ::core::ffi::c_void, ze_image_handle_t, *const ze_image_region_t, u32, u32, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendImageCopyToMemoryExt;
        pfnAppendImageCopyFromMemoryExt (1, 3) zeCommandListAppendImageCopyFromMemoryExt(ze_command_list_handle_t, ze_image_handle_t, *const ::core::ffi::c_void, *const ze_image_region_t, u32, u32, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListAppendImageCopyFromMemoryExt;
        pfnHostSynchronize (1, 6) zeCommandListHostSynchronize(ze_command_list_handle_t, u64) => cmdlist::zeCommandListHostSynchronize;
        pfnGetDeviceHandle (1, 9) zeCommandListGetDeviceHandle(ze_command_list_handle_t, *mut ze_device_handle_t) => cmdlist::zeCommandListGetDeviceHandle;
        pfnGetContextHandle (1, 9) zeCommandListGetContextHandle(ze_command_list_handle_t, *mut ze_context_handle_t) => cmdlist::zeCommandListGetContextHandle;
        pfnGetOrdinal (1, 9) zeCommandListGetOrdinal(ze_command_list_handle_t, *mut u32) => cmdlist::zeCommandListGetOrdinal;
        pfnImmediateGetIndex (1, 9) zeCommandListImmediateGetIndex(ze_command_list_handle_t, *mut u32) => cmdlist::zeCommandListImmediateGetIndex;
        pfnIsImmediate (1, 9) zeCommandListIsImmediate(ze_command_list_handle_t, *mut ze_bool_t) => cmdlist::zeCommandListIsImmediate;
    }
    zeGetCommandListExpProcAddrTable(ze_command_list_exp_dditable_t) {
        pfnCreateCloneExp (1, 9) zeCommandListCreateCloneExp(ze_command_list_handle_t, *mut ze_command_list_handle_t);
        pfnImmediateAppendCommandListsExp (1, 9) zeCommandListImmediateAppendCommandListsExp(ze_command_list_handle_t, u32, *mut ze_command_list_handle_t, ze_event_handle_t, u32, *mut ze_event_handle_t) => cmdlist::zeCommandListImmediateAppendCommandListsExp;
        pfnGetNextCommandIdExp (1, 9) zeCommandListGetNextCommandIdExp(ze_command_list_handle_t, *const ::core::ffi::c_void, *mut u64);
        pfnUpdateMutableCommandsExp (1, 9) zeCommandListUpdateMutableCommandsExp(ze_command_list_handle_t, *const ::core::ffi::c_void);
        pfnUpdateMutableCommandSignalEventExp (1, 9) zeCommandListUpdateMutableCommandSignalEventExp(ze_command_list_handle_t, u64, ze_event_handle_t);
        pfnUpdateMutableCommandWaitEventsExp (1, 9) zeCommandListUpdateMutableCommandWaitEventsExp(ze_command_list_handle_t, u64, u32, *mut ze_event_handle_t);
        pfnGetNextCommandIdWithKernelsExp (1, 10) zeCommandListGetNextCommandIdWithKernelsExp(ze_command_list_handle_t, *const ::core::ffi::c_void, u32, *mut ze_kernel_handle_t, *mut u64);
        pfnUpdateMutableCommandKernelsExp (1, 10) zeCommandListUpdateMutableCommandKernelsExp(ze_command_list_handle_t, u32, *mut u64, *mut ze_kernel_handle_t);
        pfnIsMutableExp (1, 17) zeCommandListIsMutableExp(ze_command_list_handle_t, *mut ze_bool_t);
    }
    zeGetImageProcAddrTable(ze_image_dditable_t) {
        pfnGetProperties (1, 0) zeImageGetProperties(ze_device_handle_t, *const ze_image_desc_t, *mut ze_image_properties_t) => image::zeImageGetProperties;
        pfnCreate (1, 0) zeImageCreate(ze_context_handle_t, ze_device_handle_t, *const ze_image_desc_t, *mut ze_image_handle_t) => image::zeImageCreate;
        pfnDestroy (1, 0) zeImageDestroy(ze_image_handle_t) => image::zeImageDestroy;
        pfnGetAllocPropertiesExt (1, 3) zeImageGetAllocPropertiesExt(ze_context_handle_t, ze_image_handle_t, *mut ze_image_allocation_ext_properties_t) => image::zeImageGetAllocPropertiesExt;
    }
    zeGetImageExpProcAddrTable(ze_image_exp_dditable_t) {
        pfnGetMemoryPropertiesExp (1, 2) zeImageGetMemoryPropertiesExp(ze_image_handle_t, *mut ze_image_memory_properties_exp_t) => image::zeImageGetMemoryPropertiesExp;
        pfnViewCreateExp (1, 2) zeImageViewCreateExp(ze_context_handle_t, ze_device_handle_t, *const ze_image_desc_t, ze_image_handle_t, *mut ze_image_handle_t);
    }
    zeGetFenceProcAddrTable(ze_fence_dditable_t) {
        pfnCreate (1, 0) zeFenceCreate(ze_command_queue_handle_t, *const ze_fence_desc_t, *mut ze_fence_handle_t) => fence::zeFenceCreate;
        pfnDestroy (1, 0) zeFenceDestroy(ze_fence_handle_t) => fence::zeFenceDestroy;
        pfnHostSynchronize (1, 0) zeFenceHostSynchronize(ze_fence_handle_t, u64) => fence::zeFenceHostSynchronize;
        pfnQueryStatus (1, 0) zeFenceQueryStatus(ze_fence_handle_t) => fence::zeFenceQueryStatus;
        pfnReset (1, 0) zeFenceReset(ze_fence_handle_t) => fence::zeFenceReset;
    }
    zeGetEventPoolProcAddrTable(ze_event_pool_dditable_t) {
        pfnCreate (1, 0) zeEventPoolCreate(ze_context_handle_t, *const ze_event_pool_desc_t, u32, *mut ze_device_handle_t, *mut ze_event_pool_handle_t) => event::zeEventPoolCreate;
        pfnDestroy (1, 0) zeEventPoolDestroy(ze_event_pool_handle_t) => event::zeEventPoolDestroy;
        pfnGetIpcHandle (1, 0) zeEventPoolGetIpcHandle(ze_event_pool_handle_t, *mut ze_ipc_event_pool_handle_t) => event::zeEventPoolGetIpcHandle;
        pfnOpenIpcHandle (1, 0) zeEventPoolOpenIpcHandle(ze_context_handle_t, ze_ipc_event_pool_handle_t, *mut ze_event_pool_handle_t) => event::zeEventPoolOpenIpcHandle;
        pfnCloseIpcHandle (1, 0) zeEventPoolCloseIpcHandle(ze_event_pool_handle_t) => event::zeEventPoolCloseIpcHandle;
    }
    zeGetEventProcAddrTable(ze_event_dditable_next_t) {
        pfnCreate (1, 0) zeEventCreate(ze_event_pool_handle_t, *const ze_event_desc_t, *mut ze_event_handle_t) => event::zeEventCreate;
        pfnDestroy (1, 0) zeEventDestroy(ze_event_handle_t) => event::zeEventDestroy;
        pfnHostSignal (1, 0) zeEventHostSignal(ze_event_handle_t) => event::zeEventHostSignal;
        pfnHostSynchronize (1, 0) zeEventHostSynchronize(ze_event_handle_t, u64) => event::zeEventHostSynchronize;
        pfnQueryStatus (1, 0) zeEventQueryStatus(ze_event_handle_t) => event::zeEventQueryStatus;
        pfnHostReset (1, 0) zeEventHostReset(ze_event_handle_t) => event::zeEventHostReset;
        pfnQueryKernelTimestamp (1, 0) zeEventQueryKernelTimestamp(ze_event_handle_t, *mut ze_kernel_timestamp_result_t) => event::zeEventQueryKernelTimestamp;
        pfnQueryKernelTimestampsExt (1, 6) zeEventQueryKernelTimestampsExt(ze_event_handle_t, ze_device_handle_t, *mut u32, *mut ze_event_query_kernel_timestamps_results_ext_properties_t) => event::zeEventQueryKernelTimestampsExt;
        pfnGetEventPool (1, 9) zeEventGetEventPool(ze_event_handle_t, *mut ze_event_pool_handle_t);
        pfnGetSignalScope (1, 9) zeEventGetSignalScope(ze_event_handle_t, *mut ze_event_scope_flags_t);
        pfnGetWaitScope (1, 9) zeEventGetWaitScope(ze_event_handle_t, *mut ze_event_scope_flags_t);
        pfnCounterBasedCreate (1, 15) zeEventCounterBasedCreate(ze_context_handle_t, ze_device_handle_t, *const ze_event_counter_based_desc_t, *mut ze_event_handle_t) => event::zeEventCounterBasedCreate;
        pfnCounterBasedGetIpcHandle (1, 15) zeEventCounterBasedGetIpcHandle(ze_event_handle_t, *mut ::core::ffi::c_void);
        pfnCounterBasedOpenIpcHandle (1, 15) zeEventCounterBasedOpenIpcHandle(ze_context_handle_t, *const ::core::ffi::c_void, *mut ze_event_handle_t);
        pfnCounterBasedCloseIpcHandle (1, 15) zeEventCounterBasedCloseIpcHandle(ze_event_handle_t);
        pfnCounterBasedGetDeviceAddress (1, 15) zeEventCounterBasedGetDeviceAddress(ze_event_handle_t, *mut u64, *mut u64);
        pfnGetCounterBasedFlags (1, 17) zeEventGetCounterBasedFlags(ze_event_handle_t, *mut u32);
    }
    zeGetEventExpProcAddrTable(ze_event_exp_dditable_t) {
        pfnQueryTimestampsExp (1, 2) zeEventQueryTimestampsExp(ze_event_handle_t, ze_device_handle_t, *mut u32, *mut ze_kernel_timestamp_result_t) => event::zeEventQueryTimestampsExp;
    }
    zeGetModuleProcAddrTable(ze_module_dditable_t) {
        pfnCreate (1, 0) zeModuleCreate(ze_context_handle_t, ze_device_handle_t, *const ze_module_desc_t, *mut ze_module_handle_t, *mut ze_module_build_log_handle_t) => module::zeModuleCreate;
        pfnDestroy (1, 0) zeModuleDestroy(ze_module_handle_t) => module::zeModuleDestroy;
        pfnDynamicLink (1, 0) zeModuleDynamicLink(u32, *mut ze_module_handle_t, *mut ze_module_build_log_handle_t) => module::zeModuleDynamicLink;
        pfnGetNativeBinary (1, 0) zeModuleGetNativeBinary(ze_module_handle_t, *mut usize, *mut u8) => module::zeModuleGetNativeBinary;
        pfnGetGlobalPointer (1, 0) zeModuleGetGlobalPointer(ze_module_handle_t, *const ::core::ffi::c_char, *mut usize, *mut *mut ::core::ffi::c_void) => module::zeModuleGetGlobalPointer;
        pfnGetKernelNames (1, 0) zeModuleGetKernelNames(ze_module_handle_t, *mut u32, *mut *const ::core::ffi::c_char) => module::zeModuleGetKernelNames;
        pfnGetProperties (1, 0) zeModuleGetProperties(ze_module_handle_t, *mut ze_module_properties_t) => module::zeModuleGetProperties;
        pfnGetFunctionPointer (1, 0) zeModuleGetFunctionPointer(ze_module_handle_t, *const ::core::ffi::c_char, *mut *mut ::core::ffi::c_void) => module::zeModuleGetFunctionPointer;
        pfnInspectLinkageExt (1, 3) zeModuleInspectLinkageExt(*mut ze_linkage_inspection_ext_desc_t, u32, *mut ze_module_handle_t, *mut ze_module_build_log_handle_t) => module::zeModuleInspectLinkageExt;
    }
    zeGetModuleBuildLogProcAddrTable(ze_module_build_log_dditable_t) {
        pfnDestroy (1, 0) zeModuleBuildLogDestroy(ze_module_build_log_handle_t) => module::zeModuleBuildLogDestroy;
        pfnGetString (1, 0) zeModuleBuildLogGetString(ze_module_build_log_handle_t, *mut usize, *mut ::core::ffi::c_char) => module::zeModuleBuildLogGetString;
    }
    zeGetKernelProcAddrTable(ze_kernel_dditable_t) {
        pfnCreate (1, 0) zeKernelCreate(ze_module_handle_t, *const ze_kernel_desc_t, *mut ze_kernel_handle_t) => kernel::zeKernelCreate;
        pfnDestroy (1, 0) zeKernelDestroy(ze_kernel_handle_t) => kernel::zeKernelDestroy;
        pfnSetCacheConfig (1, 0) zeKernelSetCacheConfig(ze_kernel_handle_t, ze_cache_config_flags_t) => kernel::zeKernelSetCacheConfig;
        pfnSetGroupSize (1, 0) zeKernelSetGroupSize(ze_kernel_handle_t, u32, u32, u32) => kernel::zeKernelSetGroupSize;
        pfnSuggestGroupSize (1, 0) zeKernelSuggestGroupSize(ze_kernel_handle_t, u32, u32, u32, *mut u32, *mut u32, *mut u32) => kernel::zeKernelSuggestGroupSize;
        pfnSuggestMaxCooperativeGroupCount (1, 0) zeKernelSuggestMaxCooperativeGroupCount(ze_kernel_handle_t, *mut u32) => kernel::zeKernelSuggestMaxCooperativeGroupCount;
        pfnSetArgumentValue (1, 0) zeKernelSetArgumentValue(ze_kernel_handle_t, u32, usize, *const ::core::ffi::c_void) => kernel::zeKernelSetArgumentValue;
        pfnSetIndirectAccess (1, 0) zeKernelSetIndirectAccess(ze_kernel_handle_t, ze_kernel_indirect_access_flags_t) => kernel::zeKernelSetIndirectAccess;
        pfnGetIndirectAccess (1, 0) zeKernelGetIndirectAccess(ze_kernel_handle_t, *mut ze_kernel_indirect_access_flags_t) => kernel::zeKernelGetIndirectAccess;
        pfnGetSourceAttributes (1, 0) zeKernelGetSourceAttributes(ze_kernel_handle_t, *mut u32, *mut *mut ::core::ffi::c_char) => kernel::zeKernelGetSourceAttributes;
        pfnGetProperties (1, 0) zeKernelGetProperties(ze_kernel_handle_t, *mut ze_kernel_properties_t) => kernel::zeKernelGetProperties;
        pfnGetName (1, 0) zeKernelGetName(ze_kernel_handle_t, *mut usize, *mut ::core::ffi::c_char) => kernel::zeKernelGetName;
    }
    zeGetKernelExpProcAddrTable(ze_kernel_exp_dditable_t) {
        pfnSetGlobalOffsetExp (1, 1) zeKernelSetGlobalOffsetExp(ze_kernel_handle_t, u32, u32, u32) => kernel::zeKernelSetGlobalOffsetExp;
        pfnSchedulingHintExp (1, 2) zeKernelSchedulingHintExp(ze_kernel_handle_t, *mut ze_scheduling_hint_exp_desc_t);
    }
    zeGetSamplerProcAddrTable(ze_sampler_dditable_t) {
        pfnCreate (1, 0) zeSamplerCreate(ze_context_handle_t, ze_device_handle_t, *const ze_sampler_desc_t, *mut ze_sampler_handle_t) => image::zeSamplerCreate;
        pfnDestroy (1, 0) zeSamplerDestroy(ze_sampler_handle_t) => image::zeSamplerDestroy;
    }
    zeGetPhysicalMemProcAddrTable(ze_physical_mem_dditable_t) {
        pfnCreate (1, 0) zePhysicalMemCreate(ze_context_handle_t, ze_device_handle_t, *mut ze_physical_mem_desc_t, *mut ze_physical_mem_handle_t) => virtual_mem::zePhysicalMemCreate;
        pfnDestroy (1, 0) zePhysicalMemDestroy(ze_context_handle_t, ze_physical_mem_handle_t) => virtual_mem::zePhysicalMemDestroy;
    }
    zeGetMemProcAddrTable(ze_mem_dditable_next_t) {
        pfnAllocShared (1, 0) zeMemAllocShared(ze_context_handle_t, *const ze_device_mem_alloc_desc_t, *const ze_host_mem_alloc_desc_t, usize, usize, ze_device_handle_t, *mut *mut ::core::ffi::c_void) => mem::zeMemAllocShared;
        pfnAllocDevice (1, 0) zeMemAllocDevice(ze_context_handle_t, *const ze_device_mem_alloc_desc_t, usize, usize, ze_device_handle_t, *mut *mut ::core::ffi::c_void) => mem::zeMemAllocDevice;
        pfnAllocHost (1, 0) zeMemAllocHost(ze_context_handle_t, *const ze_host_mem_alloc_desc_t, usize, usize, *mut *mut ::core::ffi::c_void) => mem::zeMemAllocHost;
        pfnFree (1, 0) zeMemFree(ze_context_handle_t, *mut ::core::ffi::c_void) => mem::zeMemFree;
        pfnGetAllocProperties (1, 0) zeMemGetAllocProperties(ze_context_handle_t, *const ::core::ffi::c_void, *mut ze_memory_allocation_properties_t, *mut ze_device_handle_t) => mem::zeMemGetAllocProperties;
        pfnGetAddressRange (1, 0) zeMemGetAddressRange(ze_context_handle_t, *const ::core::ffi::c_void, *mut *mut ::core::ffi::c_void, *mut usize) => mem::zeMemGetAddressRange;
        pfnGetIpcHandle (1, 0) zeMemGetIpcHandle(ze_context_handle_t, *const ::core::ffi::c_void, *mut ze_ipc_mem_handle_t) => mem::zeMemGetIpcHandle;
        pfnOpenIpcHandle (1, 0) zeMemOpenIpcHandle(ze_context_handle_t, ze_device_handle_t, ze_ipc_mem_handle_t, ze_ipc_memory_flags_t, *mut *mut ::core::ffi::c_void) => mem::zeMemOpenIpcHandle;
        pfnCloseIpcHandle (1, 0) zeMemCloseIpcHandle(ze_context_handle_t, *const ::core::ffi::c_void) => mem::zeMemCloseIpcHandle;
        pfnFreeExt (1, 3) zeMemFreeExt(ze_context_handle_t, *const ze_memory_free_ext_desc_t, *mut ::core::ffi::c_void) => mem::zeMemFreeExt;
        pfnPutIpcHandle (1, 6) zeMemPutIpcHandle(ze_context_handle_t, ze_ipc_mem_handle_t) => mem::zeMemPutIpcHandle;
        pfnGetPitchFor2dImage (1, 9) zeMemGetPitchFor2dImage(ze_context_handle_t, ze_device_handle_t, usize, usize, u32, *mut usize);
        pfnGetIpcHandleWithProperties (1, 15) zeMemGetIpcHandleWithProperties(ze_context_handle_t, *const ::core::ffi::c_void, *mut ::core::ffi::c_void, *mut ze_ipc_mem_handle_t) => mem::zeMemGetIpcHandleWithProperties;
    }
    zeGetMemExpProcAddrTable(ze_mem_exp_dditable_t) {
        pfnGetIpcHandleFromFileDescriptorExp (1, 6) zeMemGetIpcHandleFromFileDescriptorExp(ze_context_handle_t, u64, *mut ze_ipc_mem_handle_t);
        pfnGetFileDescriptorFromIpcHandleExp (1, 6) zeMemGetFileDescriptorFromIpcHandleExp(ze_context_handle_t, ze_ipc_mem_handle_t, *mut u64);
        pfnSetAtomicAccessAttributeExp (1, 7) zeMemSetAtomicAccessAttributeExp(ze_context_handle_t, ze_device_handle_t, *const ::core::ffi::c_void, usize, u32) => mem::zeMemSetAtomicAccessAttributeExp;
        pfnGetAtomicAccessAttributeExp (1, 7) zeMemGetAtomicAccessAttributeExp(ze_context_handle_t, ze_device_handle_t, *const ::core::ffi::c_void, usize, *mut u32) => mem::zeMemGetAtomicAccessAttributeExp;
    }
    zeGetVirtualMemProcAddrTable(ze_virtual_mem_dditable_t) {
        pfnReserve (1, 0) zeVirtualMemReserve(ze_context_handle_t, *const ::core::ffi::c_void, usize, *mut *mut ::core::ffi::c_void) => virtual_mem::zeVirtualMemReserve;
        pfnFree (1, 0) zeVirtualMemFree(ze_context_handle_t, *const ::core::ffi::c_void, usize) => virtual_mem::zeVirtualMemFree;
        pfnQueryPageSize (1, 0) zeVirtualMemQueryPageSize(ze_context_handle_t, ze_device_handle_t, usize, *mut usize) => virtual_mem::zeVirtualMemQueryPageSize;
        pfnMap (1, 0) zeVirtualMemMap(ze_context_handle_t, *const ::core::ffi::c_void, usize, ze_physical_mem_handle_t, usize, ze_memory_access_attribute_t) => virtual_mem::zeVirtualMemMap;
        pfnUnmap (1, 0) zeVirtualMemUnmap(ze_context_handle_t, *const ::core::ffi::c_void, usize) => virtual_mem::zeVirtualMemUnmap;
        pfnSetAccessAttribute (1, 0) zeVirtualMemSetAccessAttribute(ze_context_handle_t, *const ::core::ffi::c_void, usize, ze_memory_access_attribute_t) => virtual_mem::zeVirtualMemSetAccessAttribute;
        pfnGetAccessAttribute (1, 0) zeVirtualMemGetAccessAttribute(ze_context_handle_t, *const ::core::ffi::c_void, usize, *mut ze_memory_access_attribute_t, *mut usize) => virtual_mem::zeVirtualMemGetAccessAttribute;
    }
    zeGetFabricVertexExpProcAddrTable(ze_fabric_vertex_exp_dditable_t) {
        pfnGetExp (1, 4) zeFabricVertexGetExp(ze_driver_handle_t, *mut u32, *mut ze_fabric_vertex_handle_t);
        pfnGetSubVerticesExp (1, 4) zeFabricVertexGetSubVerticesExp(ze_fabric_vertex_handle_t, *mut u32, *mut ze_fabric_vertex_handle_t);
        pfnGetPropertiesExp (1, 4) zeFabricVertexGetPropertiesExp(ze_fabric_vertex_handle_t, *mut ze_fabric_vertex_exp_properties_t);
        pfnGetDeviceExp (1, 4) zeFabricVertexGetDeviceExp(ze_fabric_vertex_handle_t, *mut ze_device_handle_t);
    }
    zeGetFabricEdgeExpProcAddrTable(ze_fabric_edge_exp_dditable_t) {
        pfnGetExp (1, 4) zeFabricEdgeGetExp(ze_fabric_vertex_handle_t, ze_fabric_vertex_handle_t, *mut u32, *mut ze_fabric_edge_handle_t);
        pfnGetVerticesExp (1, 4) zeFabricEdgeGetVerticesExp(ze_fabric_edge_handle_t, *mut ze_fabric_vertex_handle_t, *mut ze_fabric_vertex_handle_t);
        pfnGetPropertiesExp (1, 4) zeFabricEdgeGetPropertiesExp(ze_fabric_edge_handle_t, *mut ze_fabric_edge_exp_properties_t);
    }
    zetGetDeviceProcAddrTable(zet_device_dditable_t) {
        pfnGetDebugProperties (1, 0) zetDeviceGetDebugProperties(zet_device_handle_t, *mut zet_device_debug_properties_t);
    }
    zetGetContextProcAddrTable(zet_context_dditable_t) {
        pfnActivateMetricGroups (1, 0) zetContextActivateMetricGroups(zet_context_handle_t, zet_device_handle_t, u32, *mut zet_metric_group_handle_t);
    }
    zetGetCommandListProcAddrTable(zet_command_list_dditable_t) {
        pfnAppendMetricStreamerMarker (1, 0) zetCommandListAppendMetricStreamerMarker(zet_command_list_handle_t, zet_metric_streamer_handle_t, u32);
        pfnAppendMetricQueryBegin (1, 0) zetCommandListAppendMetricQueryBegin(zet_command_list_handle_t, zet_metric_query_handle_t);
        pfnAppendMetricQueryEnd (1, 0) zetCommandListAppendMetricQueryEnd(zet_command_list_handle_t, zet_metric_query_handle_t, ze_event_handle_t, u32, *mut ze_event_handle_t);
        pfnAppendMetricMemoryBarrier (1, 0) zetCommandListAppendMetricMemoryBarrier(zet_command_list_handle_t);
    }
    zetGetModuleProcAddrTable(zet_module_dditable_t) {
        pfnGetDebugInfo (1, 0) zetModuleGetDebugInfo(zet_module_handle_t, zet_module_debug_info_format_t, *mut usize, *mut u8);
    }
    zetGetKernelProcAddrTable(zet_kernel_dditable_t) {
        pfnGetProfileInfo (1, 0) zetKernelGetProfileInfo(zet_kernel_handle_t, *mut zet_profile_properties_t);
    }
    zetGetMetricGroupProcAddrTable(zet_metric_group_dditable_t) {
        pfnGet (1, 0) zetMetricGroupGet(zet_device_handle_t, *mut u32, *mut zet_metric_group_handle_t);
        pfnGetProperties (1, 0) zetMetricGroupGetProperties(zet_metric_group_handle_t, *mut zet_metric_group_properties_t);
        pfnCalculateMetricValues (1, 0) zetMetricGroupCalculateMetricValues(zet_metric_group_handle_t, zet_metric_group_calculation_type_t, usize, *const u8, *mut u32, *mut zet_typed_value_t);
    }
    zetGetMetricGroupExpProcAddrTable(zet_metric_group_exp_dditable_t) {
        pfnCalculateMultipleMetricValuesExp (1, 2) zetMetricGroupCalculateMultipleMetricValuesExp(zet_metric_group_handle_t, zet_metric_group_calculation_type_t, usize, *const u8, *mut u32, *mut u32, *mut u32, *mut zet_typed_value_t);
    }
    zetGetMetricProcAddrTable(zet_metric_dditable_t) {
        pfnGet (1, 0) zetMetricGet(zet_metric_group_handle_t, *mut u32, *mut zet_metric_handle_t);
        pfnGetProperties (1, 0) zetMetricGetProperties(zet_metric_handle_t, *mut zet_metric_properties_t);
    }
    zetGetMetricStreamerProcAddrTable(zet_metric_streamer_dditable_t) {
        pfnOpen (1, 0) zetMetricStreamerOpen(zet_context_handle_t, zet_device_handle_t, zet_metric_group_handle_t, *mut zet_metric_streamer_desc_t, ze_event_handle_t, *mut zet_metric_streamer_handle_t);
        pfnClose (1, 0) zetMetricStreamerClose(zet_metric_streamer_handle_t);
        pfnReadData (1, 0) zetMetricStreamerReadData(zet_metric_streamer_handle_t, u32, *mut usize, *mut u8);
    }
    zetGetMetricQueryPoolProcAddrTable(zet_metric_query_pool_dditable_t) {
        pfnCreate (1, 0) zetMetricQueryPoolCreate(zet_context_handle_t, zet_device_handle_t, zet_metric_group_handle_t, *const zet_metric_query_pool_desc_t, *mut zet_metric_query_pool_handle_t);
        pfnDestroy (1, 0) zetMetricQueryPoolDestroy(zet_metric_query_pool_handle_t);
    }
    zetGetMetricQueryProcAddrTable(zet_metric_query_dditable_t) {
        pfnCreate (1, 0) zetMetricQueryCreate(zet_metric_query_pool_handle_t, u32, *mut zet_metric_query_handle_t);
        pfnDestroy (1, 0) zetMetricQueryDestroy(zet_metric_query_handle_t);
        pfnReset (1, 0) zetMetricQueryReset(zet_metric_query_handle_t);
        pfnGetData (1, 0) zetMetricQueryGetData(zet_metric_query_handle_t, *mut usize, *mut u8);
    }
    zetGetTracerExpProcAddrTable(zet_tracer_exp_dditable_t) {
        pfnCreate (1, 0) zetTracerExpCreate(zet_context_handle_t, *const zet_tracer_exp_desc_t, *mut zet_tracer_exp_handle_t);
        pfnDestroy (1, 0) zetTracerExpDestroy(zet_tracer_exp_handle_t);
        pfnSetPrologues (1, 0) zetTracerExpSetPrologues(zet_tracer_exp_handle_t, *mut zet_core_callbacks_t);
        pfnSetEpilogues (1, 0) zetTracerExpSetEpilogues(zet_tracer_exp_handle_t, *mut zet_core_callbacks_t);
        pfnSetEnabled (1, 0) zetTracerExpSetEnabled(zet_tracer_exp_handle_t, ze_bool_t);
    }
    zetGetDebugProcAddrTable(zet_debug_dditable_t) {
        pfnAttach (1, 0) zetDebugAttach(zet_device_handle_t, *const zet_debug_config_t, *mut zet_debug_session_handle_t);
        pfnDetach (1, 0) zetDebugDetach(zet_debug_session_handle_t);
        pfnReadEvent (1, 0) zetDebugReadEvent(zet_debug_session_handle_t, u64, *mut zet_debug_event_t);
        pfnAcknowledgeEvent (1, 0) zetDebugAcknowledgeEvent(zet_debug_session_handle_t, *const zet_debug_event_t);
        pfnInterrupt (1, 0) zetDebugInterrupt(zet_debug_session_handle_t, ze_device_thread_t);
        pfnResume (1, 0) zetDebugResume(zet_debug_session_handle_t, ze_device_thread_t);
        pfnReadMemory (1, 0) zetDebugReadMemory(zet_debug_session_handle_t, ze_device_thread_t, *const zet_debug_memory_space_desc_t, usize, *mut ::core::ffi::c_void);
        pfnWriteMemory (1, 0) zetDebugWriteMemory(zet_debug_session_handle_t, ze_device_thread_t, *const zet_debug_memory_space_desc_t, usize, *const ::core::ffi::c_void);
        pfnGetRegisterSetProperties (1, 0) zetDebugGetRegisterSetProperties(zet_device_handle_t, *mut u32, *mut zet_debug_regset_properties_t);
        pfnReadRegisters (1, 0) zetDebugReadRegisters(zet_debug_session_handle_t, ze_device_thread_t, u32, u32, u32, *mut ::core::ffi::c_void);
        pfnWriteRegisters (1, 0) zetDebugWriteRegisters(zet_debug_session_handle_t, ze_device_thread_t, u32, u32, u32, *mut ::core::ffi::c_void);
    }
    zesGetDriverProcAddrTable(zes_driver_dditable_t) {
        pfnEventListen (1, 0) zesDriverEventListen(ze_driver_handle_t, u32, u32, *mut zes_device_handle_t, *mut u32, *mut zes_event_type_flags_t);
        pfnEventListenEx (1, 1) zesDriverEventListenEx(ze_driver_handle_t, u64, u32, *mut zes_device_handle_t, *mut u32, *mut zes_event_type_flags_t);
    }
    zesGetDeviceProcAddrTable(zes_device_dditable_t) {
        pfnGetProperties (1, 0) zesDeviceGetProperties(zes_device_handle_t, *mut zes_device_properties_t);
        pfnGetState (1, 0) zesDeviceGetState(zes_device_handle_t, *mut zes_device_state_t);
        pfnReset (1, 0) zesDeviceReset(zes_device_handle_t, ze_bool_t);
        pfnProcessesGetState (1, 0) zesDeviceProcessesGetState(zes_device_handle_t, *mut u32, *mut zes_process_state_t);
        pfnPciGetProperties (1, 0) zesDevicePciGetProperties(zes_device_handle_t, *mut zes_pci_properties_t);
        pfnPciGetState (1, 0) zesDevicePciGetState(zes_device_handle_t, *mut zes_pci_state_t);
        pfnPciGetBars (1, 0) zesDevicePciGetBars(zes_device_handle_t, *mut u32, *mut zes_pci_bar_properties_t);
        pfnPciGetStats (1, 0) zesDevicePciGetStats(zes_device_handle_t, *mut zes_pci_stats_t);
        pfnEnumDiagnosticTestSuites (1, 0) zesDeviceEnumDiagnosticTestSuites(zes_device_handle_t, *mut u32, *mut zes_diag_handle_t);
        pfnEnumEngineGroups (1, 0) zesDeviceEnumEngineGroups(zes_device_handle_t, *mut u32, *mut zes_engine_handle_t);
        pfnEventRegister (1, 0) zesDeviceEventRegister(zes_device_handle_t, zes_event_type_flags_t);
        pfnEnumFabricPorts (1, 0) zesDeviceEnumFabricPorts(zes_device_handle_t, *mut u32, *mut zes_fabric_port_handle_t);
        pfnEnumFans (1, 0) zesDeviceEnumFans(zes_device_handle_t, *mut u32, *mut zes_fan_handle_t);
        pfnEnumFirmwares (1, 0) zesDeviceEnumFirmwares(zes_device_handle_t, *mut u32, *mut zes_firmware_handle_t);
        pfnEnumFrequencyDomains (1, 0) zesDeviceEnumFrequencyDomains(zes_device_handle_t, *mut u32, *mut zes_freq_handle_t);
        pfnEnumLeds (1, 0) zesDeviceEnumLeds(zes_device_handle_t, *mut u32, *mut zes_led_handle_t);
        pfnEnumMemoryModules (1, 0) zesDeviceEnumMemoryModules(zes_device_handle_t, *mut u32, *mut zes_mem_handle_t);
        pfnEnumPerformanceFactorDomains (1, 0) zesDeviceEnumPerformanceFactorDomains(zes_device_handle_t, *mut u32, *mut zes_perf_handle_t);
        pfnEnumPowerDomains (1, 0) zesDeviceEnumPowerDomains(zes_device_handle_t, *mut u32, *mut zes_pwr_handle_t);
        pfnGetCardPowerDomain (1, 0) zesDeviceGetCardPowerDomain(zes_device_handle_t, *mut zes_pwr_handle_t);
        pfnEnumPsus (1, 0) zesDeviceEnumPsus(zes_device_handle_t, *mut u32, *mut zes_psu_handle_t);
        pfnEnumRasErrorSets (1, 0) zesDeviceEnumRasErrorSets(zes_device_handle_t, *mut u32, *mut zes_ras_handle_t);
        pfnEnumSchedulers (1, 0) zesDeviceEnumSchedulers(zes_device_handle_t, *mut u32, *mut zes_sched_handle_t);
        pfnEnumStandbyDomains (1, 0) zesDeviceEnumStandbyDomains(zes_device_handle_t, *mut u32, *mut zes_standby_handle_t);
        pfnEnumTemperatureSensors (1, 0) zesDeviceEnumTemperatureSensors(zes_device_handle_t, *mut u32, *mut zes_temp_handle_t);
        pfnEccAvailable (1, 4) zesDeviceEccAvailable(zes_device_handle_t, *mut ze_bool_t);
        pfnEccConfigurable (1, 4) zesDeviceEccConfigurable(zes_device_handle_t, *mut ze_bool_t);
        pfnGetEccState (1, 4) zesDeviceGetEccState(zes_device_handle_t, *mut zes_device_ecc_properties_t);
        pfnSetEccState (1, 4) zesDeviceSetEccState(zes_device_handle_t, *const zes_device_ecc_desc_t, *mut zes_device_ecc_properties_t);
    }
    zesGetSchedulerProcAddrTable(zes_scheduler_dditable_t) {
        pfnGetProperties (1, 0) zesSchedulerGetProperties(zes_sched_handle_t, *mut zes_sched_properties_t);
        pfnGetCurrentMode (1, 0) zesSchedulerGetCurrentMode(zes_sched_handle_t, *mut zes_sched_mode_t);
        pfnGetTimeoutModeProperties (1, 0) zesSchedulerGetTimeoutModeProperties(zes_sched_handle_t, ze_bool_t, *mut zes_sched_timeout_properties_t);
        pfnGetTimesliceModeProperties (1, 0) zesSchedulerGetTimesliceModeProperties(zes_sched_handle_t, ze_bool_t, *mut zes_sched_timeslice_properties_t);
        pfnSetTimeoutMode (1, 0) zesSchedulerSetTimeoutMode(zes_sched_handle_t, *mut zes_sched_timeout_properties_t, *mut ze_bool_t);
        pfnSetTimesliceMode (1, 0) zesSchedulerSetTimesliceMode(zes_sched_handle_t, *mut zes_sched_timeslice_properties_t, *mut ze_bool_t);
        pfnSetExclusiveMode (1, 0) zesSchedulerSetExclusiveMode(zes_sched_handle_t, *mut ze_bool_t);
        pfnSetComputeUnitDebugMode (1, 0) zesSchedulerSetComputeUnitDebugMode(zes_sched_handle_t, *mut ze_bool_t);
    }
    zesGetPerformanceFactorProcAddrTable(zes_performance_factor_dditable_t) {
        pfnGetProperties (1, 0) zesPerformanceFactorGetProperties(zes_perf_handle_t, *mut zes_perf_properties_t);
        pfnGetConfig (1, 0) zesPerformanceFactorGetConfig(zes_perf_handle_t, *mut f64);
        pfnSetConfig (1, 0) zesPerformanceFactorSetConfig(zes_perf_handle_t, f64);
    }
    zesGetPowerProcAddrTable(zes_power_dditable_t) {
        pfnGetProperties (1, 0) zesPowerGetProperties(zes_pwr_handle_t, *mut zes_power_properties_t);
        pfnGetEnergyCounter (1, 0) zesPowerGetEnergyCounter(zes_pwr_handle_t, *mut zes_power_energy_counter_t);
        pfnGetLimits (1, 0) zesPowerGetLimits(zes_pwr_handle_t, *mut zes_power_sustained_limit_t, *mut zes_power_burst_limit_t, *mut zes_power_peak_limit_t);
        pfnSetLimits (1, 0) zesPowerSetLimits(zes_pwr_handle_t, *const zes_power_sustained_limit_t, *const zes_power_burst_limit_t, *const zes_power_peak_limit_t);
        pfnGetEnergyThreshold (1, 0) zesPowerGetEnergyThreshold(zes_pwr_handle_t, *mut zes_energy_threshold_t);
        pfnSetEnergyThreshold (1, 0) zesPowerSetEnergyThreshold(zes_pwr_handle_t, f64);
        pfnGetLimitsExt (1, 0) zesPowerGetLimitsExt(zes_pwr_handle_t, *mut u32, *mut zes_power_limit_ext_desc_t);
        pfnSetLimitsExt (1, 0) zesPowerSetLimitsExt(zes_pwr_handle_t, *mut u32, *mut zes_power_limit_ext_desc_t);
    }
    zesGetFrequencyProcAddrTable(zes_frequency_dditable_t) {
        pfnGetProperties (1, 0) zesFrequencyGetProperties(zes_freq_handle_t, *mut zes_freq_properties_t);
        pfnGetAvailableClocks (1, 0) zesFrequencyGetAvailableClocks(zes_freq_handle_t, *mut u32, *mut f64);
        pfnGetRange (1, 0) zesFrequencyGetRange(zes_freq_handle_t, *mut zes_freq_range_t);
        pfnSetRange (1, 0) zesFrequencySetRange(zes_freq_handle_t, *const zes_freq_range_t);
        pfnGetState (1, 0) zesFrequencyGetState(zes_freq_handle_t, *mut zes_freq_state_t);
        pfnGetThrottleTime (1, 0) zesFrequencyGetThrottleTime(zes_freq_handle_t, *mut zes_freq_throttle_time_t);
        pfnOcGetCapabilities (1, 0) zesFrequencyOcGetCapabilities(zes_freq_handle_t, *mut zes_oc_capabilities_t);
        pfnOcGetFrequencyTarget (1, 0) zesFrequencyOcGetFrequencyTarget(zes_freq_handle_t, *mut f64);
        pfnOcSetFrequencyTarget (1, 0) zesFrequencyOcSetFrequencyTarget(zes_freq_handle_t, f64);
        pfnOcGetVoltageTarget (1, 0) zesFrequencyOcGetVoltageTarget(zes_freq_handle_t, *mut f64, *mut f64);
        pfnOcSetVoltageTarget (1, 0) zesFrequencyOcSetVoltageTarget(zes_freq_handle_t, f64, f64);
        pfnOcSetMode (1, 0) zesFrequencyOcSetMode(zes_freq_handle_t, zes_oc_mode_t);
        pfnOcGetMode (1, 0) zesFrequencyOcGetMode(zes_freq_handle_t, *mut zes_oc_mode_t);
        pfnOcGetIccMax (1, 0) zesFrequencyOcGetIccMax(zes_freq_handle_t, *mut f64);
        pfnOcSetIccMax (1, 0) zesFrequencyOcSetIccMax(zes_freq_handle_t, f64);
        pfnOcGetTjMax (1, 0) zesFrequencyOcGetTjMax(zes_freq_handle_t, *mut f64);
        pfnOcSetTjMax (1, 0) zesFrequencyOcSetTjMax(zes_freq_handle_t, f64);
    }
    zesGetEngineProcAddrTable(zes_engine_dditable_t) {
        pfnGetProperties (1, 0) zesEngineGetProperties(zes_engine_handle_t, *mut zes_engine_properties_t);
        pfnGetActivity (1, 0) zesEngineGetActivity(zes_engine_handle_t, *mut zes_engine_stats_t);
    }
    zesGetStandbyProcAddrTable(zes_standby_dditable_t) {
        pfnGetProperties (1, 0) zesStandbyGetProperties(zes_standby_handle_t, *mut zes_standby_properties_t);
        pfnGetMode (1, 0) zesStandbyGetMode(zes_standby_handle_t, *mut zes_standby_promo_mode_t);
        pfnSetMode (1, 0) zesStandbySetMode(zes_standby_handle_t, zes_standby_promo_mode_t);
    }
    zesGetFirmwareProcAddrTable(zes_firmware_dditable_t) {
        pfnGetProperties (1, 0) zesFirmwareGetProperties(zes_firmware_handle_t, *mut zes_firmware_properties_t);
        pfnFlash (1, 0) zesFirmwareFlash(zes_firmware_handle_t, *mut ::core::ffi::c_void, u32);
    }
    zesGetMemoryProcAddrTable(zes_memory_dditable_t) {
        pfnGetProperties (1, 0) zesMemoryGetProperties(zes_mem_handle_t, *mut zes_mem_properties_t);
        pfnGetState (1, 0) zesMemoryGetState(zes_mem_handle_t, *mut zes_mem_state_t);
        pfnGetBandwidth (1, 0) zesMemoryGetBandwidth(zes_mem_handle_t, *mut zes_mem_bandwidth_t);
    }
    zesGetFabricPortProcAddrTable(zes_fabric_port_dditable_t) {
        pfnGetProperties (1, 0) zesFabricPortGetProperties(zes_fabric_port_handle_t, *mut zes_fabric_port_properties_t);
        pfnGetLinkType (1, 0) zesFabricPortGetLinkType(zes_fabric_port_handle_t, *mut zes_fabric_link_type_t);
        pfnGetConfig (1, 0) zesFabricPortGetConfig(zes_fabric_port_handle_t, *mut zes_fabric_port_config_t);
        pfnSetConfig (1, 0) zesFabricPortSetConfig(zes_fabric_port_handle_t, *const zes_fabric_port_config_t);
        pfnGetState (1, 0) zesFabricPortGetState(zes_fabric_port_handle_t, *mut zes_fabric_port_state_t);
        pfnGetThroughput (1, 0) zesFabricPortGetThroughput(zes_fabric_port_handle_t, *mut zes_fabric_port_throughput_t);
    }
    zesGetTemperatureProcAddrTable(zes_temperature_dditable_t) {
        pfnGetProperties (1, 0) zesTemperatureGetProperties(zes_temp_handle_t, *mut zes_temp_properties_t);
        pfnGetConfig (1, 0) zesTemperatureGetConfig(zes_temp_handle_t, *mut zes_temp_config_t);
        pfnSetConfig (1, 0) zesTemperatureSetConfig(zes_temp_handle_t, *const zes_temp_config_t);
        pfnGetState (1, 0) zesTemperatureGetState(zes_temp_handle_t, *mut f64);
    }
    zesGetPsuProcAddrTable(zes_psu_dditable_t) {
        pfnGetProperties (1, 0) zesPsuGetProperties(zes_psu_handle_t, *mut zes_psu_properties_t);
        pfnGetState (1, 0) zesPsuGetState(zes_psu_handle_t, *mut zes_psu_state_t);
    }
    zesGetFanProcAddrTable(zes_fan_dditable_t) {
        pfnGetProperties (1, 0) zesFanGetProperties(zes_fan_handle_t, *mut zes_fan_properties_t);
        pfnGetConfig (1, 0) zesFanGetConfig(zes_fan_handle_t, *mut zes_fan_config_t);
        pfnSetDefaultMode (1, 0) zesFanSetDefaultMode(zes_fan_handle_t);
        pfnSetFixedSpeedMode (1, 0) zesFanSetFixedSpeedMode(zes_fan_handle_t, *const zes_fan_speed_t);
        pfnSetSpeedTableMode (1, 0) zesFanSetSpeedTableMode(zes_fan_handle_t, *const zes_fan_speed_table_t);
        pfnGetState (1, 0) zesFanGetState(zes_fan_handle_t, zes_fan_speed_units_t, *mut i32);
    }
    zesGetLedProcAddrTable(zes_led_dditable_t) {
        pfnGetProperties (1, 0) zesLedGetProperties(zes_led_handle_t, *mut zes_led_properties_t);
        pfnGetState (1, 0) zesLedGetState(zes_led_handle_t, *mut zes_led_state_t);
        pfnSetState (1, 0) zesLedSetState(zes_led_handle_t, ze_bool_t);
        pfnSetColor (1, 0) zesLedSetColor(zes_led_handle_t, *const zes_led_color_t);
    }
    zesGetRasProcAddrTable(zes_ras_dditable_t) {
        pfnGetProperties (1, 0) zesRasGetProperties(zes_ras_handle_t, *mut zes_ras_properties_t);
        pfnGetConfig (1, 0) zesRasGetConfig(zes_ras_handle_t, *mut zes_ras_config_t);
        pfnSetConfig (1, 0) zesRasSetConfig(zes_ras_handle_t, *const zes_ras_config_t);
        pfnGetState (1, 0) zesRasGetState(zes_ras_handle_t, ze_bool_t, *mut zes_ras_state_t);
    }
    zesGetDiagnosticsProcAddrTable(zes_diagnostics_dditable_t) {
        pfnGetProperties (1, 0) zesDiagnosticsGetProperties(zes_diag_handle_t, *mut zes_diag_properties_t);
        pfnGetTests (1, 0) zesDiagnosticsGetTests(zes_diag_handle_t, *mut u32, *mut zes_diag_test_t);
        pfnRunTests (1, 0) zesDiagnosticsRunTests(zes_diag_handle_t, u32, u32, *mut zes_diag_result_t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_getter_of_the_headers_is_listed() {
        assert_eq!(GETTERS.len(), 55);
        assert_eq!(
            GETTERS.iter().filter(|g| g.starts_with("zeGet")).count(),
            25
        );
        assert_eq!(
            GETTERS.iter().filter(|g| g.starts_with("zetGet")).count(),
            13
        );
        assert_eq!(
            GETTERS.iter().filter(|g| g.starts_with("zesGet")).count(),
            17
        );
    }

    /// An asynchronous queue's descriptor (ordinal 0, index 0) and a list's.
    const ASYNC_QUEUE: ze_command_queue_desc_t = ze_command_queue_desc_t {
        stype: ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
        pNext: std::ptr::null(),
        ordinal: 0,
        index: 0,
        flags: 0,
        mode: ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
        priority: ZE_COMMAND_QUEUE_PRIORITY_NORMAL,
    };
    const LIST: ze_command_list_desc_t = ze_command_list_desc_t {
        stype: ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC,
        pNext: std::ptr::null(),
        commandQueueGroupOrdinal: 0,
        flags: 0,
    };

    /// Initialise the driver as the loader does; the device and a new context.
    fn open_device() -> (ze_device_handle_t, ze_context_handle_t) {
        use super::super::{context, device, driver};
        let mut n = 1u32;
        let mut drv: ze_driver_handle_t = std::ptr::null_mut();
        let mut dev: ze_device_handle_t = std::ptr::null_mut();
        let mut ctx: ze_context_handle_t = std::ptr::null_mut();
        let cdesc = ze_context_desc_t {
            stype: ZE_STRUCTURE_TYPE_CONTEXT_DESC,
            pNext: std::ptr::null(),
            flags: 0,
        };
        // SAFETY: every pointer is to a live local of the type the entry point writes.
        unsafe {
            assert_eq!(driver::zeInit(0), ZE_RESULT_SUCCESS);
            assert_eq!(driver::zeDriverGet(&mut n, &mut drv), ZE_RESULT_SUCCESS);
            let r = device::zeDeviceGet(drv, &mut n, &mut dev);
            assert_eq!(r, ZE_RESULT_SUCCESS);
            let r = context::zeContextCreate(drv, &cdesc, &mut ctx);
            assert_eq!(r, ZE_RESULT_SUCCESS);
        }
        (dev, ctx)
    }

    /// The current loader's way in: `zeInitDrivers` (1.10) and
    /// `zeDriverGetLastErrorDescription` (1.6), in tables only callers of those versions
    /// get.
    #[test]
    fn newer_entry_points_for_the_current_loader() {
        let mut g = ze_global_dditable_next_t {
            pfnInit: None,
            pfnInitDrivers: None,
        };
        // SAFETY: `g` is a whole table of 1.10.
        let r = unsafe { zeGetGlobalProcAddrTable(ZE_API_VERSION_1_4, &mut g) };
        assert_eq!(r, ZE_RESULT_SUCCESS);
        assert!(g.pfnInit.is_some() && g.pfnInitDrivers.is_none());
        // SAFETY: as above.
        let r = unsafe { zeGetGlobalProcAddrTable(make_version(1, 10), &mut g) };
        assert_eq!(r, ZE_RESULT_SUCCESS);
        let init = g.pfnInitDrivers.unwrap();
        let mut desc = ze_init_driver_type_desc_t {
            stype: 0x0002_0021,
            pNext: std::ptr::null(),
            flags: ZE_INIT_DRIVER_TYPE_FLAG_GPU | ZE_INIT_DRIVER_TYPE_FLAG_NPU,
        };
        let mut n = 5u32;
        // SAFETY: valid count and descriptor; a NULL array asks for the count.
        let r = unsafe { init(&mut n, std::ptr::null_mut(), &mut desc) };
        assert_eq!((r, n), (ZE_RESULT_SUCCESS, 0), "a CPU is no GPU or NPU");
        desc.flags = u32::MAX;
        // SAFETY: as above.
        let r = unsafe { init(&mut n, std::ptr::null_mut(), &mut desc) };
        assert_eq!((r, n), (ZE_RESULT_SUCCESS, 1));
        let mut h: ze_driver_handle_t = std::ptr::null_mut();
        // SAFETY: an array of one handle.
        let r = unsafe { init(&mut n, &mut h, &mut desc) };
        assert!(r == ZE_RESULT_SUCCESS && !h.is_null());
        desc.flags = 0;
        // SAFETY: as above.
        let r = unsafe { init(&mut n, std::ptr::null_mut(), &mut desc) };
        assert_eq!(r, ZE_RESULT_ERROR_INVALID_ARGUMENT);
        // SAFETY: a NULL descriptor is refused before use.
        let r = unsafe { init(&mut n, std::ptr::null_mut(), std::ptr::null_mut()) };
        assert_eq!(r, ZE_RESULT_ERROR_INVALID_NULL_POINTER);

        let mut d: ze_driver_dditable_next_t = unsafe_zeroed();
        // SAFETY: `d` is a whole table of 1.6.
        let r = unsafe { zeGetDriverProcAddrTable(make_version(1, 6), &mut d) };
        assert_eq!(r, ZE_RESULT_SUCCESS);
        let describe = d.pfnGetLastErrorDescription.unwrap();
        let mut text: *const std::ffi::c_char = std::ptr::null();
        // SAFETY: a live driver handle and a place for the string.
        let r = unsafe { describe(h, &mut text) };
        assert_eq!(r, ZE_RESULT_SUCCESS);
        // SAFETY: a NUL-terminated static string.
        let text = unsafe { std::ffi::CStr::from_ptr(text) };
        assert_eq!(text.to_str(), Ok("ZE_RESULT_ERROR_INVALID_NULL_POINTER"));
    }

    /// `zeMemSetAtomicAccessAttributeExp` / `Get…` (1.7): recorded per page of a USM
    /// allocation or of system memory, reported back; bad arguments refused.
    #[test]
    fn atomic_access_attributes() {
        use super::super::{context, mem};
        let (dev, ctx) = open_device();
        let mut t: ze_mem_exp_dditable_t = unsafe_zeroed();
        // SAFETY: `t` is a whole table of 1.7.
        let r = unsafe { zeGetMemExpProcAddrTable(make_version(1, 6), &mut t) };
        assert_eq!(r, ZE_RESULT_SUCCESS);
        assert!(t.pfnSetAtomicAccessAttributeExp.is_none());
        // SAFETY: as above.
        let r = unsafe { zeGetMemExpProcAddrTable(make_version(1, 7), &mut t) };
        assert_eq!(r, ZE_RESULT_SUCCESS);
        let (set, get) = (
            t.pfnSetAtomicAccessAttributeExp.unwrap(),
            t.pfnGetAtomicAccessAttributeExp.unwrap(),
        );
        let desc = ze_device_mem_alloc_desc_t {
            stype: ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC,
            pNext: std::ptr::null(),
            flags: 0,
            ordinal: 0,
        };
        let hdesc = ze_host_mem_alloc_desc_t {
            stype: ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC,
            pNext: std::ptr::null(),
            flags: 0,
        };
        let mut p: *mut std::ffi::c_void = std::ptr::null_mut();
        let system = vec![0u64; 4096];
        let mut attr = 0u32;
        // SAFETY: live handles, a live allocation and system memory, places for the
        // results.
        unsafe {
            let r = mem::zeMemAllocShared(ctx, &desc, &hdesc, 8192, 4096, dev, &mut p);
            assert_eq!(r, ZE_RESULT_SUCCESS);
            let s = system.as_ptr().cast();
            for (ptr, a) in [(p.cast_const(), 0x1), (s, 0x8), (p.cast_const(), 0x40)] {
                assert_eq!(set(ctx, dev, ptr, 64, a), ZE_RESULT_SUCCESS);
                assert_eq!(get(ctx, dev, ptr, 64, &mut attr), ZE_RESULT_SUCCESS);
                assert_eq!(attr, a);
            }
            assert_eq!(get(ctx, dev, s, 8, &mut attr), ZE_RESULT_SUCCESS);
            assert_eq!(attr, 0x8, "the system memory's kept its own");
            let r = set(ctx, dev, p, 64, 0x80);
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_ENUMERATION);
            let r = set(ctx, dev, p, 8193, 0x1);
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_SIZE, "past the allocation");
            let r = set(ctx, dev, std::ptr::null(), 64, 0x1);
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_NULL_POINTER);
            let r = set(ctx, std::ptr::null_mut(), p, 64, 0x1);
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
            let r = get(ctx, dev, p, 64, std::ptr::null_mut());
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_NULL_POINTER);
            assert_eq!(set(ctx, dev, s, 64, 0), ZE_RESULT_SUCCESS);
            assert_eq!(mem::zeMemFree(ctx, p), ZE_RESULT_SUCCESS);
            assert_eq!(context::zeContextDestroy(ctx), ZE_RESULT_SUCCESS);
        }
    }

    /// The Mem table's later entries: `zeMemPutIpcHandle` (1.6) and
    /// `zeMemGetIpcHandleWithProperties` (1.15), only for callers of those versions.
    #[test]
    fn later_ipc_memory_entry_points() {
        use super::super::{context, mem};
        let (_dev, ctx) = open_device();
        let mut t: ze_mem_dditable_next_t = unsafe_zeroed();
        // SAFETY: `t` is a whole table of 1.15.
        let r = unsafe { zeGetMemProcAddrTable(ZE_API_VERSION_1_4, &mut t) };
        assert_eq!(r, ZE_RESULT_SUCCESS);
        assert!(t.pfnGetIpcHandle.is_some() && t.pfnPutIpcHandle.is_none());
        assert!(t.pfnGetIpcHandleWithProperties.is_none());
        // SAFETY: as above.
        let r = unsafe { zeGetMemProcAddrTable(make_version(1, 15), &mut t) };
        assert_eq!(r, ZE_RESULT_SUCCESS);
        let (with_props, put) = (
            t.pfnGetIpcHandleWithProperties.unwrap(),
            t.pfnPutIpcHandle.unwrap(),
        );
        let hdesc = ze_host_mem_alloc_desc_t {
            stype: ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC,
            pNext: std::ptr::null(),
            flags: 0,
        };
        let mut p: *mut std::ffi::c_void = std::ptr::null_mut();
        let mut h = ze_ipc_mem_handle_t { data: [0; 64] };
        let mut again = ze_ipc_mem_handle_t { data: [0; 64] };
        let mut desc = ze_ipc_mem_handle_type_ext_desc_t {
            stype: ZE_STRUCTURE_TYPE_IPC_MEM_HANDLE_TYPE_EXT_DESC,
            pNext: std::ptr::null(),
            typeFlags: ZE_IPC_MEM_HANDLE_TYPE_FLAG_DEFAULT,
        };
        // SAFETY: live handles and allocation, places for the results, a descriptor
        // chain of one.
        unsafe {
            assert_eq!(
                mem::zeMemAllocHost(ctx, &hdesc, 4096, 0, &mut p),
                ZE_RESULT_SUCCESS
            );
            let dp: *mut ze_ipc_mem_handle_type_ext_desc_t = &raw mut desc;
            let desc_ptr = dp.cast();
            assert_eq!(with_props(ctx, p, desc_ptr, &mut h), ZE_RESULT_SUCCESS);
            assert_eq!(
                with_props(ctx, p, std::ptr::null_mut(), &mut again),
                ZE_RESULT_SUCCESS
            );
            assert_eq!(h.data, again.data, "the allocation's one handle");
            (*dp).typeFlags = 2; // FABRIC_ACCESSIBLE: no fabric
            let r = with_props(ctx, p, desc_ptr, &mut h);
            assert_eq!(r, ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
            assert_eq!(put(ctx, again), ZE_RESULT_SUCCESS);
            let junk = ze_ipc_mem_handle_t { data: [0; 64] };
            assert_eq!(put(ctx, junk), ZE_RESULT_ERROR_INVALID_ARGUMENT);
            assert_eq!(mem::zeMemFree(ctx, p), ZE_RESULT_SUCCESS);
            assert_eq!(context::zeContextDestroy(ctx), ZE_RESULT_SUCCESS);
        }
    }

    /// The 1.6, 1.7 and 1.9 command list and device entry points, on a regular and an
    /// immediate list.
    #[test]
    fn command_list_queries_and_host_synchronize() {
        use super::super::{cmdlist as cl, context, device};
        let (dev, ctx) = open_device();
        let mut imm: ze_command_list_handle_t = std::ptr::null_mut();
        let mut reg: ze_command_list_handle_t = std::ptr::null_mut();
        // SAFETY: every pointer is to a live local of the type the entry point writes.
        unsafe {
            let r = cl::zeCommandListCreateImmediate(ctx, dev, &ASYNC_QUEUE, &mut imm);
            assert_eq!(r, ZE_RESULT_SUCCESS);
            assert_eq!(
                cl::zeCommandListCreate(ctx, dev, &LIST, &mut reg),
                ZE_RESULT_SUCCESS
            );

            assert_eq!(
                cl::zeCommandListHostSynchronize(imm, u64::MAX),
                ZE_RESULT_SUCCESS
            );
            let r = cl::zeCommandListHostSynchronize(reg, 0);
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_ARGUMENT);
            let r = cl::zeCommandListHostSynchronize(std::ptr::null_mut(), 0);
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
            let mut b: ze_bool_t = 7;
            assert_eq!(cl::zeCommandListIsImmediate(imm, &mut b), ZE_RESULT_SUCCESS);
            assert_eq!(b, 1);
            assert_eq!(cl::zeCommandListIsImmediate(reg, &mut b), ZE_RESULT_SUCCESS);
            assert_eq!(b, 0);
            let r = cl::zeCommandListIsImmediate(reg, std::ptr::null_mut());
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_NULL_POINTER);
            let (mut d, mut c) = (std::ptr::null_mut(), std::ptr::null_mut());
            assert_eq!(
                cl::zeCommandListGetDeviceHandle(imm, &mut d),
                ZE_RESULT_SUCCESS
            );
            assert_eq!(
                cl::zeCommandListGetContextHandle(reg, &mut c),
                ZE_RESULT_SUCCESS
            );
            assert_eq!((d, c), (dev, ctx));
            let r = cl::zeCommandListGetContextHandle(reg, std::ptr::null_mut());
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_NULL_POINTER);
            let mut k = 7u32;
            assert_eq!(cl::zeCommandListGetOrdinal(reg, &mut k), ZE_RESULT_SUCCESS);
            assert_eq!(k, 0);
            k = 7;
            assert_eq!(
                cl::zeCommandListImmediateGetIndex(imm, &mut k),
                ZE_RESULT_SUCCESS
            );
            assert_eq!(k, 0);
            let r = cl::zeCommandListImmediateGetIndex(reg, &mut k);
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_ARGUMENT);
            // Lists of the copy group (ordinal 1) say so; an immediate one its index.
            let (mut copy_reg, mut copy_imm) = (std::ptr::null_mut(), std::ptr::null_mut());
            let copy_list = ze_command_list_desc_t {
                commandQueueGroupOrdinal: 1,
                ..LIST
            };
            let copy_queue = ze_command_queue_desc_t {
                ordinal: 1,
                index: 3,
                ..ASYNC_QUEUE
            };
            let r = cl::zeCommandListCreate(ctx, dev, &copy_list, &mut copy_reg);
            assert_eq!(r, ZE_RESULT_SUCCESS);
            let r = cl::zeCommandListCreateImmediate(ctx, dev, &copy_queue, &mut copy_imm);
            assert_eq!(r, ZE_RESULT_SUCCESS);
            assert_eq!(
                cl::zeCommandListGetOrdinal(copy_reg, &mut k),
                ZE_RESULT_SUCCESS
            );
            assert_eq!(k, 1);
            assert_eq!(
                cl::zeCommandListGetOrdinal(copy_imm, &mut k),
                ZE_RESULT_SUCCESS
            );
            assert_eq!(k, 1);
            let r = cl::zeCommandListImmediateGetIndex(copy_imm, &mut k);
            assert_eq!((r, k), (ZE_RESULT_SUCCESS, 3));
            assert_eq!(cl::zeCommandListDestroy(copy_reg), ZE_RESULT_SUCCESS);
            assert_eq!(cl::zeCommandListDestroy(copy_imm), ZE_RESULT_SUCCESS);
            let mut root: ze_device_handle_t = dev;
            assert_eq!(
                device::zeDeviceGetRootDevice(dev, &mut root),
                ZE_RESULT_SUCCESS
            );
            assert!(root.is_null());
            let r = device::zeDeviceGetRootDevice(std::ptr::null_mut(), &mut root);
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

            assert_eq!(cl::zeCommandListDestroy(imm), ZE_RESULT_SUCCESS);
            assert_eq!(cl::zeCommandListDestroy(reg), ZE_RESULT_SUCCESS);
            assert_eq!(context::zeContextDestroy(ctx), ZE_RESULT_SUCCESS);
        }
    }

    /// `zeCommandListImmediateAppendCommandListsExp` (1.9): closed regular lists run in
    /// order on an immediate list, after its wait events, before its signal event.
    #[test]
    fn immediate_list_runs_appended_regular_lists() {
        use super::super::{cmdlist as cl, context, event};
        let (dev, ctx) = open_device();
        let mut imm: ze_command_list_handle_t = std::ptr::null_mut();
        let mut regs: [ze_command_list_handle_t; 2] = [std::ptr::null_mut(); 2];
        let mut open: ze_command_list_handle_t = std::ptr::null_mut();
        let mut pool: ze_event_pool_handle_t = std::ptr::null_mut();
        let mut evs: [ze_event_handle_t; 2] = [std::ptr::null_mut(); 2];
        let pdesc = ze_event_pool_desc_t {
            stype: ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
            pNext: std::ptr::null(),
            flags: ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
            count: 2,
        };
        let mut bytes = vec![0u8; 64];
        let (one, two) = (1u8, 2u8);
        // SAFETY: every pointer is to a live local of the type the entry point writes;
        // `bytes` outlives the commands (the immediate list is synchronized before it is
        // read or dropped).
        unsafe {
            let r = cl::zeCommandListCreateImmediate(ctx, dev, &ASYNC_QUEUE, &mut imm);
            assert_eq!(r, ZE_RESULT_SUCCESS);
            for l in regs.iter_mut().chain([&mut open]) {
                assert_eq!(
                    cl::zeCommandListCreate(ctx, dev, &LIST, l),
                    ZE_RESULT_SUCCESS
                );
            }
            let r = event::zeEventPoolCreate(ctx, &pdesc, 0, std::ptr::null_mut(), &mut pool);
            assert_eq!(r, ZE_RESULT_SUCCESS);
            for (i, e) in evs.iter_mut().enumerate() {
                let edesc = ze_event_desc_t {
                    stype: ZE_STRUCTURE_TYPE_EVENT_DESC,
                    pNext: std::ptr::null(),
                    index: i as u32,
                    signal: 0,
                    wait: 0,
                };
                assert_eq!(event::zeEventCreate(pool, &edesc, e), ZE_RESULT_SUCCESS);
            }
            // The first list fills 64 bytes with 1, the second the first 16 with 2: run
            // in order, 16 twos and 48 ones.
            let p = bytes.as_mut_ptr().cast::<std::ffi::c_void>();
            let fill = |l, v: &u8, len| {
                let v = (v as *const u8).cast();
                let (no_event, no_waits) = (std::ptr::null_mut(), std::ptr::null_mut());
                cl::zeCommandListAppendMemoryFill(l, p, v, 1, len, no_event, 0, no_waits)
            };
            assert_eq!(fill(regs[0], &one, 64), ZE_RESULT_SUCCESS);
            assert_eq!(fill(regs[1], &two, 16), ZE_RESULT_SUCCESS);
            for l in regs {
                assert_eq!(cl::zeCommandListClose(l), ZE_RESULT_SUCCESS);
            }

            let append = cl::zeCommandListImmediateAppendCommandListsExp;
            let (wait, signal) = (evs[0], evs[1]);
            let mut w = [wait];
            let r = append(imm, 2, regs.as_mut_ptr(), signal, 1, w.as_mut_ptr());
            assert_eq!(r, ZE_RESULT_SUCCESS);
            // Nothing runs before the wait event is signalled.
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert_eq!(event::zeEventQueryStatus(signal), ZE_RESULT_NOT_READY);
            assert_eq!(event::zeEventHostSignal(wait), ZE_RESULT_SUCCESS);
            let r = event::zeEventHostSynchronize(signal, u64::MAX);
            assert_eq!(r, ZE_RESULT_SUCCESS);
            assert_eq!(
                cl::zeCommandListHostSynchronize(imm, u64::MAX),
                ZE_RESULT_SUCCESS
            );
            assert!(bytes[..16].iter().all(|&b| b == 2), "{bytes:?}");
            assert!(bytes[16..].iter().all(|&b| b == 1), "{bytes:?}");

            // Error paths: a regular target, an open list, an immediate list among the
            // lists, no list array, a released handle.
            let (none, nw) = (std::ptr::null_mut(), std::ptr::null_mut());
            let r = append(regs[0], 1, regs.as_mut_ptr(), none, 0, nw);
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_ARGUMENT);
            let mut o = [open];
            let r = append(imm, 1, o.as_mut_ptr(), none, 0, nw);
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_ARGUMENT);
            let mut i = [imm];
            let r = append(imm, 1, i.as_mut_ptr(), none, 0, nw);
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);
            let r = append(imm, 1, std::ptr::null_mut(), none, 0, nw);
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_NULL_POINTER);
            assert_eq!(cl::zeCommandListDestroy(open), ZE_RESULT_SUCCESS);
            let r = append(imm, 1, o.as_mut_ptr(), none, 0, nw);
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

            for e in evs {
                assert_eq!(event::zeEventDestroy(e), ZE_RESULT_SUCCESS);
            }
            assert_eq!(event::zeEventPoolDestroy(pool), ZE_RESULT_SUCCESS);
            for l in regs.into_iter().chain([imm]) {
                assert_eq!(cl::zeCommandListDestroy(l), ZE_RESULT_SUCCESS);
            }
            assert_eq!(context::zeContextDestroy(ctx), ZE_RESULT_SUCCESS);
        }
    }

    /// `zeEventCounterBasedCreate` (1.15): complete until a command is appended to
    /// signal it, then it tracks the last such command only.
    #[test]
    fn counter_based_event_tracks_the_last_signalling_command() {
        use super::super::{cmdlist as cl, context, event};
        let (dev, ctx) = open_device();
        let mut lists: [ze_command_list_handle_t; 2] = [std::ptr::null_mut(); 2];
        let mut pool: ze_event_pool_handle_t = std::ptr::null_mut();
        let mut gates: [ze_event_handle_t; 2] = [std::ptr::null_mut(); 2];
        let mut counter: ze_event_handle_t = std::ptr::null_mut();
        let pdesc = ze_event_pool_desc_t {
            stype: ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
            pNext: std::ptr::null(),
            flags: ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
            count: 2,
        };
        let mut desc = ze_event_counter_based_desc_t {
            stype: ZE_STRUCTURE_TYPE_EVENT_COUNTER_BASED_DESC,
            pNext: std::ptr::null(),
            flags: 0x1 | 0x4,
            signal: 0,
            wait: 0,
        };
        // SAFETY: every pointer is to a live local of the type the entry point writes.
        unsafe {
            for l in &mut lists {
                let r = cl::zeCommandListCreateImmediate(ctx, dev, &ASYNC_QUEUE, l);
                assert_eq!(r, ZE_RESULT_SUCCESS);
            }
            let r = event::zeEventPoolCreate(ctx, &pdesc, 0, std::ptr::null_mut(), &mut pool);
            assert_eq!(r, ZE_RESULT_SUCCESS);
            for (i, e) in gates.iter_mut().enumerate() {
                let edesc = ze_event_desc_t {
                    stype: ZE_STRUCTURE_TYPE_EVENT_DESC,
                    pNext: std::ptr::null(),
                    index: i as u32,
                    signal: 0,
                    wait: 0,
                };
                assert_eq!(event::zeEventCreate(pool, &edesc, e), ZE_RESULT_SUCCESS);
            }
            let create = event::zeEventCounterBasedCreate;
            desc.flags = 0x80;
            let r = create(ctx, dev, &desc, &mut counter);
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_ENUMERATION);
            desc.flags = ZE_EVENT_COUNTER_BASED_FLAG_IPC;
            let r = create(ctx, dev, &desc, &mut counter);
            assert_eq!(r, ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
            let r = create(ctx, dev, std::ptr::null(), &mut counter);
            assert_eq!(r, ZE_RESULT_ERROR_INVALID_NULL_POINTER);
            desc.flags = 0x1 | 0x4;
            assert_eq!(create(ctx, dev, &desc, &mut counter), ZE_RESULT_SUCCESS);

            // Nothing appended yet: complete.
            assert_eq!(event::zeEventQueryStatus(counter), ZE_RESULT_SUCCESS);
            // Two lists each wait for their gate, then signal the counter-based event.
            for (l, g) in lists.iter().zip(&gates) {
                let mut w = [*g];
                let r = cl::zeCommandListAppendBarrier(*l, counter, 1, w.as_mut_ptr());
                assert_eq!(r, ZE_RESULT_SUCCESS);
            }
            assert_eq!(event::zeEventQueryStatus(counter), ZE_RESULT_NOT_READY);
            // The first command completing does not signal it: it tracks the second.
            assert_eq!(event::zeEventHostSignal(gates[0]), ZE_RESULT_SUCCESS);
            assert_eq!(
                cl::zeCommandListHostSynchronize(lists[0], u64::MAX),
                ZE_RESULT_SUCCESS
            );
            assert_eq!(event::zeEventQueryStatus(counter), ZE_RESULT_NOT_READY);
            assert_eq!(event::zeEventHostSignal(gates[1]), ZE_RESULT_SUCCESS);
            let r = event::zeEventHostSynchronize(counter, u64::MAX);
            assert_eq!(r, ZE_RESULT_SUCCESS);
            // A command that waits for the event it signals waits for its previous
            // signaller (not for itself): two such commands on two lists, the first held
            // by a gate, run in order.
            assert_eq!(event::zeEventHostReset(gates[0]), ZE_RESULT_SUCCESS);
            let mut w = [gates[0]];
            let r = cl::zeCommandListAppendBarrier(lists[0], counter, 1, w.as_mut_ptr());
            assert_eq!(r, ZE_RESULT_SUCCESS);
            let mut c = [counter];
            let r = cl::zeCommandListAppendBarrier(lists[1], counter, 1, c.as_mut_ptr());
            assert_eq!(r, ZE_RESULT_SUCCESS);
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert_eq!(event::zeEventQueryStatus(counter), ZE_RESULT_NOT_READY);
            assert_eq!(event::zeEventHostSignal(gates[0]), ZE_RESULT_SUCCESS);
            let r = event::zeEventHostSynchronize(counter, u64::MAX);
            assert_eq!(r, ZE_RESULT_SUCCESS);
            for l in lists {
                assert_eq!(
                    cl::zeCommandListHostSynchronize(l, u64::MAX),
                    ZE_RESULT_SUCCESS
                );
            }

            assert_eq!(event::zeEventDestroy(counter), ZE_RESULT_SUCCESS);
            for e in gates {
                assert_eq!(event::zeEventDestroy(e), ZE_RESULT_SUCCESS);
            }
            assert_eq!(event::zeEventPoolDestroy(pool), ZE_RESULT_SUCCESS);
            for l in lists {
                assert_eq!(cl::zeCommandListDestroy(l), ZE_RESULT_SUCCESS);
            }
            assert_eq!(context::zeContextDestroy(ctx), ZE_RESULT_SUCCESS);
        }
    }

    #[test]
    fn tables_fill_by_version() {
        let mut t: ze_device_dditable_next_t = unsafe_zeroed();
        // SAFETY: `t` is a whole table.
        let r = unsafe { zeGetDeviceProcAddrTable(ZE_API_VERSION_1_0, &mut t) };
        assert_eq!(r, ZE_RESULT_SUCCESS);
        assert!(t.pfnGet.is_some());
        assert!(
            t.pfnGetGlobalTimestamps.is_none(),
            "1.1 field filled for 1.0"
        );
        // SAFETY: as above.
        let r = unsafe { zeGetDeviceProcAddrTable(ZE_API_VERSION_1_4, &mut t) };
        assert_eq!(r, ZE_RESULT_SUCCESS);
        assert!(t.pfnGetGlobalTimestamps.is_some());
        assert!(t.pfnPciGetPropertiesExt.is_some());
        // SAFETY: as above.
        let r = unsafe { zeGetDeviceProcAddrTable(make_version(2, 0), &mut t) };
        assert_eq!(r, ZE_RESULT_ERROR_UNSUPPORTED_VERSION);
        // SAFETY: a NULL table is rejected before use.
        let r = unsafe { zeGetDeviceProcAddrTable(ZE_API_VERSION_1_4, std::ptr::null_mut()) };
        assert_eq!(r, ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    }

    #[test]
    fn stubs_report_unsupported() {
        let mut t: ze_image_exp_dditable_t = unsafe_zeroed();
        // SAFETY: `t` is a whole table.
        unsafe { zeGetImageExpProcAddrTable(ZE_API_VERSION_1_4, &mut t) };
        let view = t.pfnViewCreateExp.expect("slot filled");
        // SAFETY: the stub ignores its arguments.
        let r = unsafe {
            view(
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        assert_eq!(r, ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    }

    /// A table of NULL slots.
    fn unsafe_zeroed<T>() -> T {
        // SAFETY: only used for DDI tables, structs of `Option<fn>` fields, for which
        // all-zero bytes are `None`.
        unsafe { std::mem::zeroed() }
    }
}
