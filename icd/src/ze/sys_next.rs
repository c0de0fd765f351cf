//! Level-Zero definitions newer than the generated bindings ([`super::sys`], API 1.4),
//! written by hand from the headers of loader 1.32 (`ze_api.h`, `ze_ddi.h`): what the
//! current loader's protocol needs. A table here is the generated one with the fields of
//! later versions appended, in the headers' order; a getter writes a field only when the
//! caller asked for a version that has it, so a caller with an older, shorter table is
//! never written past its end.

#![allow(non_camel_case_types, non_snake_case)]

use super::sys::*;
use std::ffi::{c_char, c_void};

/// `ZE_INIT_DRIVER_TYPE_FLAG_GPU` / `_NPU` (1.10).
pub const ZE_INIT_DRIVER_TYPE_FLAG_GPU: u32 = 1;
pub const ZE_INIT_DRIVER_TYPE_FLAG_NPU: u32 = 2;
pub type ze_init_driver_type_flags_t = u32;

/// `ze_init_driver_type_desc_t` (1.10).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ze_init_driver_type_desc_t {
    pub stype: ze_structure_type_t,
    pub pNext: *const c_void,
    pub flags: ze_init_driver_type_flags_t,
}

pub type ze_pfnInitDrivers_t = Option<
    unsafe extern "C" fn(
        *mut u32,
        *mut ze_driver_handle_t,
        *mut ze_init_driver_type_desc_t,
    ) -> ze_result_t,
>;

pub type ze_pfnDriverGetLastErrorDescription_t =
    Option<unsafe extern "C" fn(ze_driver_handle_t, *mut *const c_char) -> ze_result_t>;

/// `ze_global_dditable_t` up to 1.10.
#[repr(C)]
pub struct ze_global_dditable_next_t {
    pub pfnInit: ze_pfnInit_t,
    /// 1.10.
    pub pfnInitDrivers: ze_pfnInitDrivers_t,
}

/// `ze_driver_dditable_t` up to 1.6.
#[repr(C)]
pub struct ze_driver_dditable_next_t {
    pub pfnGet: ze_pfnDriverGet_t,
    pub pfnGetApiVersion: ze_pfnDriverGetApiVersion_t,
    pub pfnGetProperties: ze_pfnDriverGetProperties_t,
    pub pfnGetIpcProperties: ze_pfnDriverGetIpcProperties_t,
    pub pfnGetExtensionProperties: ze_pfnDriverGetExtensionProperties_t,
    pub pfnGetExtensionFunctionAddress: ze_pfnDriverGetExtensionFunctionAddress_t,
    /// 1.6.
    pub pfnGetLastErrorDescription: ze_pfnDriverGetLastErrorDescription_t,
}

pub type ze_pfnCommandListHostSynchronize_t =
    Option<unsafe extern "C" fn(ze_command_list_handle_t, u64) -> ze_result_t>;
pub type ze_pfnCommandListGetDeviceHandle_t =
    Option<unsafe extern "C" fn(ze_command_list_handle_t, *mut ze_device_handle_t) -> ze_result_t>;
pub type ze_pfnCommandListGetContextHandle_t =
    Option<unsafe extern "C" fn(ze_command_list_handle_t, *mut ze_context_handle_t) -> ze_result_t>;
pub type ze_pfnCommandListGetOrdinal_t =
    Option<unsafe extern "C" fn(ze_command_list_handle_t, *mut u32) -> ze_result_t>;
pub type ze_pfnCommandListImmediateGetIndex_t =
    Option<unsafe extern "C" fn(ze_command_list_handle_t, *mut u32) -> ze_result_t>;
pub type ze_pfnCommandListIsImmediate_t =
    Option<unsafe extern "C" fn(ze_command_list_handle_t, *mut ze_bool_t) -> ze_result_t>;
pub type ze_pfnDeviceGetRootDevice_t =
    Option<unsafe extern "C" fn(ze_device_handle_t, *mut ze_device_handle_t) -> ze_result_t>;

/// `ze_command_list_dditable_t` up to 1.9.
#[repr(C)]
pub struct ze_command_list_dditable_next_t {
    pub pfnCreate: ze_pfnCommandListCreate_t,
    pub pfnCreateImmediate: ze_pfnCommandListCreateImmediate_t,
    pub pfnDestroy: ze_pfnCommandListDestroy_t,
    pub pfnClose: ze_pfnCommandListClose_t,
    pub pfnReset: ze_pfnCommandListReset_t,
    pub pfnAppendWriteGlobalTimestamp: ze_pfnCommandListAppendWriteGlobalTimestamp_t,
    pub pfnAppendBarrier: ze_pfnCommandListAppendBarrier_t,
    pub pfnAppendMemoryRangesBarrier: ze_pfnCommandListAppendMemoryRangesBarrier_t,
    pub pfnAppendMemoryCopy: ze_pfnCommandListAppendMemoryCopy_t,
    pub pfnAppendMemoryFill: ze_pfnCommandListAppendMemoryFill_t,
    pub pfnAppendMemoryCopyRegion: ze_pfnCommandListAppendMemoryCopyRegion_t,
    pub pfnAppendMemoryCopyFromContext: ze_pfnCommandListAppendMemoryCopyFromContext_t,
    pub pfnAppendImageCopy: ze_pfnCommandListAppendImageCopy_t,
    pub pfnAppendImageCopyRegion: ze_pfnCommandListAppendImageCopyRegion_t,
    pub pfnAppendImageCopyToMemory: ze_pfnCommandListAppendImageCopyToMemory_t,
    pub pfnAppendImageCopyFromMemory: ze_pfnCommandListAppendImageCopyFromMemory_t,
    pub pfnAppendMemoryPrefetch: ze_pfnCommandListAppendMemoryPrefetch_t,
    pub pfnAppendMemAdvise: ze_pfnCommandListAppendMemAdvise_t,
    pub pfnAppendSignalEvent: ze_pfnCommandListAppendSignalEvent_t,
    pub pfnAppendWaitOnEvents: ze_pfnCommandListAppendWaitOnEvents_t,
    pub pfnAppendEventReset: ze_pfnCommandListAppendEventReset_t,
    pub pfnAppendQueryKernelTimestamps: ze_pfnCommandListAppendQueryKernelTimestamps_t,
    pub pfnAppendLaunchKernel: ze_pfnCommandListAppendLaunchKernel_t,
    pub pfnAppendLaunchCooperativeKernel: ze_pfnCommandListAppendLaunchCooperativeKernel_t,
    pub pfnAppendLaunchKernelIndirect: ze_pfnCommandListAppendLaunchKernelIndirect_t,
    pub pfnAppendLaunchMultipleKernelsIndirect:
        ze_pfnCommandListAppendLaunchMultipleKernelsIndirect_t,
    pub pfnAppendImageCopyToMemoryExt: ze_pfnCommandListAppendImageCopyToMemoryExt_t,
    pub pfnAppendImageCopyFromMemoryExt: ze_pfnCommandListAppendImageCopyFromMemoryExt_t,
    /// 1.6.
    pub pfnHostSynchronize: ze_pfnCommandListHostSynchronize_t,
    /// 1.9.
    pub pfnGetDeviceHandle: ze_pfnCommandListGetDeviceHandle_t,
    /// 1.9.
    pub pfnGetContextHandle: ze_pfnCommandListGetContextHandle_t,
    /// 1.9.
    pub pfnGetOrdinal: ze_pfnCommandListGetOrdinal_t,
    /// 1.9.
    pub pfnImmediateGetIndex: ze_pfnCommandListImmediateGetIndex_t,
    /// 1.9.
    pub pfnIsImmediate: ze_pfnCommandListIsImmediate_t,
}

/// `ze_device_dditable_t` up to 1.7.
#[repr(C)]
pub struct ze_device_dditable_next_t {
    pub pfnGet: ze_pfnDeviceGet_t,
    pub pfnGetSubDevices: ze_pfnDeviceGetSubDevices_t,
    pub pfnGetProperties: ze_pfnDeviceGetProperties_t,
    pub pfnGetComputeProperties: ze_pfnDeviceGetComputeProperties_t,
    pub pfnGetModuleProperties: ze_pfnDeviceGetModuleProperties_t,
    pub pfnGetCommandQueueGroupProperties: ze_pfnDeviceGetCommandQueueGroupProperties_t,
    pub pfnGetMemoryProperties: ze_pfnDeviceGetMemoryProperties_t,
    pub pfnGetMemoryAccessProperties: ze_pfnDeviceGetMemoryAccessProperties_t,
    pub pfnGetCacheProperties: ze_pfnDeviceGetCacheProperties_t,
    pub pfnGetImageProperties: ze_pfnDeviceGetImageProperties_t,
    pub pfnGetExternalMemoryProperties: ze_pfnDeviceGetExternalMemoryProperties_t,
    pub pfnGetP2PProperties: ze_pfnDeviceGetP2PProperties_t,
    pub pfnCanAccessPeer: ze_pfnDeviceCanAccessPeer_t,
    pub pfnGetStatus: ze_pfnDeviceGetStatus_t,
    pub pfnGetGlobalTimestamps: ze_pfnDeviceGetGlobalTimestamps_t,
    pub pfnReserveCacheExt: ze_pfnDeviceReserveCacheExt_t,
    pub pfnSetCacheAdviceExt: ze_pfnDeviceSetCacheAdviceExt_t,
    pub pfnPciGetPropertiesExt: ze_pfnDevicePciGetPropertiesExt_t,
    /// 1.7.
    pub pfnGetRootDevice: ze_pfnDeviceGetRootDevice_t,
}

/// The name of a result code, NUL-terminated (for `zeDriverGetLastErrorDescription`).
pub fn result_name(r: ze_result_t) -> &'static str {
    match r {
        ZE_RESULT_SUCCESS => "ZE_RESULT_SUCCESS\0",
        ZE_RESULT_NOT_READY => "ZE_RESULT_NOT_READY\0",
        ZE_RESULT_ERROR_DEVICE_LOST => "ZE_RESULT_ERROR_DEVICE_LOST\0",
        ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY => "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY\0",
        ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY => "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY\0",
        ZE_RESULT_ERROR_MODULE_BUILD_FAILURE => "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE\0",
        ZE_RESULT_ERROR_MODULE_LINK_FAILURE => "ZE_RESULT_ERROR_MODULE_LINK_FAILURE\0",
        ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET => "ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET\0",
        ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE => "ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE\0",
        ZE_RESULT_EXP_ERROR_DEVICE_IS_NOT_VERTEX => "ZE_RESULT_EXP_ERROR_DEVICE_IS_NOT_VERTEX\0",
        ZE_RESULT_EXP_ERROR_VERTEX_IS_NOT_DEVICE => "ZE_RESULT_EXP_ERROR_VERTEX_IS_NOT_DEVICE\0",
        ZE_RESULT_EXP_ERROR_REMOTE_DEVICE => "ZE_RESULT_EXP_ERROR_REMOTE_DEVICE\0",
        ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS => "ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS\0",
        ZE_RESULT_ERROR_NOT_AVAILABLE => "ZE_RESULT_ERROR_NOT_AVAILABLE\0",
        ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE => "ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE\0",
        ZE_RESULT_WARNING_DROPPED_DATA => "ZE_RESULT_WARNING_DROPPED_DATA\0",
        ZE_RESULT_ERROR_UNINITIALIZED => "ZE_RESULT_ERROR_UNINITIALIZED\0",
        ZE_RESULT_ERROR_UNSUPPORTED_VERSION => "ZE_RESULT_ERROR_UNSUPPORTED_VERSION\0",
        ZE_RESULT_ERROR_UNSUPPORTED_FEATURE => "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE\0",
        ZE_RESULT_ERROR_INVALID_ARGUMENT => "ZE_RESULT_ERROR_INVALID_ARGUMENT\0",
        ZE_RESULT_ERROR_INVALID_NULL_HANDLE => "ZE_RESULT_ERROR_INVALID_NULL_HANDLE\0",
        ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE => "ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE\0",
        ZE_RESULT_ERROR_INVALID_NULL_POINTER => "ZE_RESULT_ERROR_INVALID_NULL_POINTER\0",
        ZE_RESULT_ERROR_INVALID_SIZE => "ZE_RESULT_ERROR_INVALID_SIZE\0",
        ZE_RESULT_ERROR_UNSUPPORTED_SIZE => "ZE_RESULT_ERROR_UNSUPPORTED_SIZE\0",
        ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT => "ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT\0",
        ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT => {
            "ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT\0"
        }
        ZE_RESULT_ERROR_INVALID_ENUMERATION => "ZE_RESULT_ERROR_INVALID_ENUMERATION\0",
        ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION => "ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION\0",
        ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT => "ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT\0",
        ZE_RESULT_ERROR_INVALID_NATIVE_BINARY => "ZE_RESULT_ERROR_INVALID_NATIVE_BINARY\0",
        ZE_RESULT_ERROR_INVALID_GLOBAL_NAME => "ZE_RESULT_ERROR_INVALID_GLOBAL_NAME\0",
        ZE_RESULT_ERROR_INVALID_KERNEL_NAME => "ZE_RESULT_ERROR_INVALID_KERNEL_NAME\0",
        ZE_RESULT_ERROR_INVALID_FUNCTION_NAME => "ZE_RESULT_ERROR_INVALID_FUNCTION_NAME\0",
        ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION => {
            "ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION\0"
        }
        ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION => {
            "ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION\0"
        }
        ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX => {
            "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX\0"
        }
        ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE => {
            "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE\0"
        }
        ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE => {
            "ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE\0"
        }
        ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED => "ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED\0",
        ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE => "ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE\0",
        ZE_RESULT_ERROR_OVERLAPPING_REGIONS => "ZE_RESULT_ERROR_OVERLAPPING_REGIONS\0",
        ZE_RESULT_WARNING_ACTION_REQUIRED => "ZE_RESULT_WARNING_ACTION_REQUIRED\0",
        ZE_RESULT_ERROR_UNKNOWN => "ZE_RESULT_ERROR_UNKNOWN\0",
        _ => "an unknown ze_result_t\0",
    }
}

/// `ZE_IMMEDIATE_COMMAND_LIST_APPEND_EXP_VERSION_1_0` (1.9).
pub const ZE_IMMEDIATE_COMMAND_LIST_APPEND_EXP_VERSION_1_0: u32 = 1 << 16;

/// `zeCommandListCreateCloneExp` (1.9).
pub type ze_pfnCommandListCreateCloneExp_t = Option<
    unsafe extern "C" fn(ze_command_list_handle_t, *mut ze_command_list_handle_t) -> ze_result_t,
>;
/// `zeCommandListImmediateAppendCommandListsExp` (1.9).
pub type ze_pfnCommandListImmediateAppendCommandListsExp_t = Option<
    unsafe extern "C" fn(
        ze_command_list_handle_t,
        u32,
        *mut ze_command_list_handle_t,
        ze_event_handle_t,
        u32,
        *mut ze_event_handle_t,
    ) -> ze_result_t,
>;
/// `zeCommandListGetNextCommandIdExp` (1.9); the descriptor
/// (`ze_mutable_command_id_exp_desc_t`) is only passed through to a stub.
pub type ze_pfnCommandListGetNextCommandIdExp_t =
    Option<unsafe extern "C" fn(ze_command_list_handle_t, *const c_void, *mut u64) -> ze_result_t>;
/// `zeCommandListUpdateMutableCommandsExp` (1.9); `ze_mutable_commands_exp_desc_t`.
pub type ze_pfnCommandListUpdateMutableCommandsExp_t =
    Option<unsafe extern "C" fn(ze_command_list_handle_t, *const c_void) -> ze_result_t>;
/// `zeCommandListUpdateMutableCommandSignalEventExp` (1.9).
pub type ze_pfnCommandListUpdateMutableCommandSignalEventExp_t =
    Option<unsafe extern "C" fn(ze_command_list_handle_t, u64, ze_event_handle_t) -> ze_result_t>;
/// `zeCommandListUpdateMutableCommandWaitEventsExp` (1.9).
pub type ze_pfnCommandListUpdateMutableCommandWaitEventsExp_t = Option<
    unsafe extern "C" fn(ze_command_list_handle_t, u64, u32, *mut ze_event_handle_t) -> ze_result_t,
>;
/// `zeCommandListGetNextCommandIdWithKernelsExp` (1.10).
pub type ze_pfnCommandListGetNextCommandIdWithKernelsExp_t = Option<
    unsafe extern "C" fn(
        ze_command_list_handle_t,
        *const c_void,
        u32,
        *mut ze_kernel_handle_t,
        *mut u64,
    ) -> ze_result_t,
>;
/// `zeCommandListUpdateMutableCommandKernelsExp` (1.10).
pub type ze_pfnCommandListUpdateMutableCommandKernelsExp_t = Option<
    unsafe extern "C" fn(
        ze_command_list_handle_t,
        u32,
        *mut u64,
        *mut ze_kernel_handle_t,
    ) -> ze_result_t,
>;
/// `zeCommandListIsMutableExp` (1.17).
pub type ze_pfnCommandListIsMutableExp_t =
    Option<unsafe extern "C" fn(ze_command_list_handle_t, *mut ze_bool_t) -> ze_result_t>;

/// `ze_command_list_exp_dditable_t` (1.9; fields of 1.10 and 1.17 at the end).
#[repr(C)]
pub struct ze_command_list_exp_dditable_t {
    pub pfnCreateCloneExp: ze_pfnCommandListCreateCloneExp_t,
    pub pfnImmediateAppendCommandListsExp: ze_pfnCommandListImmediateAppendCommandListsExp_t,
    pub pfnGetNextCommandIdExp: ze_pfnCommandListGetNextCommandIdExp_t,
    pub pfnUpdateMutableCommandsExp: ze_pfnCommandListUpdateMutableCommandsExp_t,
    pub pfnUpdateMutableCommandSignalEventExp:
        ze_pfnCommandListUpdateMutableCommandSignalEventExp_t,
    pub pfnUpdateMutableCommandWaitEventsExp: ze_pfnCommandListUpdateMutableCommandWaitEventsExp_t,
    pub pfnGetNextCommandIdWithKernelsExp: ze_pfnCommandListGetNextCommandIdWithKernelsExp_t,
    pub pfnUpdateMutableCommandKernelsExp: ze_pfnCommandListUpdateMutableCommandKernelsExp_t,
    pub pfnIsMutableExp: ze_pfnCommandListIsMutableExp_t,
}

/// `ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES` (1.5).
pub const ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES: ze_structure_type_t = 0x10013;
/// `ZE_KERNEL_MAX_GROUP_SIZE_PROPERTIES_EXT_VERSION_1_0` (1.5).
pub const ZE_KERNEL_MAX_GROUP_SIZE_PROPERTIES_EXT_VERSION_1_0: u32 = 1 << 16;

/// `ze_kernel_max_group_size_properties_ext_t` (1.5), chained to `ze_kernel_properties_t`.
#[repr(C)]
pub struct ze_kernel_max_group_size_properties_ext_t {
    pub stype: ze_structure_type_t,
    pub pNext: *mut c_void,
    pub maxGroupSize: u32,
}

/// `ZE_STRUCTURE_TYPE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_PROPERTIES` (1.6).
pub const ZE_STRUCTURE_TYPE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_PROPERTIES: ze_structure_type_t =
    0x10011;
/// `ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_VERSION_1_0` (1.6).
pub const ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_VERSION_1_0: u32 = 1 << 16;
/// `ze_event_query_kernel_timestamps_ext_flag_t` (1.6).
pub const ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_FLAG_KERNEL: u32 = 1;
pub const ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_FLAG_SYNCHRONIZED: u32 = 2;

/// `ze_event_query_kernel_timestamps_ext_properties_t` (1.6), chained to
/// `ze_device_properties_t`.
#[repr(C)]
pub struct ze_event_query_kernel_timestamps_ext_properties_t {
    pub stype: ze_structure_type_t,
    pub pNext: *mut c_void,
    pub flags: u32,
}

/// `ze_synchronized_timestamp_data_ext_t` (1.6).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ze_synchronized_timestamp_data_ext_t {
    pub kernelStart: u64,
    pub kernelEnd: u64,
}

/// `ze_synchronized_timestamp_result_ext_t` (1.6).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ze_synchronized_timestamp_result_ext_t {
    pub global: ze_synchronized_timestamp_data_ext_t,
    pub context: ze_synchronized_timestamp_data_ext_t,
}

/// `ze_event_query_kernel_timestamps_results_ext_properties_t` (1.6).
#[repr(C)]
pub struct ze_event_query_kernel_timestamps_results_ext_properties_t {
    pub stype: ze_structure_type_t,
    pub pNext: *mut c_void,
    pub pKernelTimestampsBuffer: *mut ze_kernel_timestamp_result_t,
    pub pSynchronizedTimestampsBuffer: *mut ze_synchronized_timestamp_result_ext_t,
}

pub type ze_pfnEventQueryKernelTimestampsExt_t = Option<
    unsafe extern "C" fn(
        ze_event_handle_t,
        ze_device_handle_t,
        *mut u32,
        *mut ze_event_query_kernel_timestamps_results_ext_properties_t,
    ) -> ze_result_t,
>;
/// `zeEventGetEventPool` (1.9).
pub type ze_pfnEventGetEventPool_t =
    Option<unsafe extern "C" fn(ze_event_handle_t, *mut ze_event_pool_handle_t) -> ze_result_t>;
/// `zeEventGetSignalScope` / `zeEventGetWaitScope` (1.9).
pub type ze_pfnEventGetScope_t =
    Option<unsafe extern "C" fn(ze_event_handle_t, *mut ze_event_scope_flags_t) -> ze_result_t>;
/// `ZE_STRUCTURE_TYPE_EVENT_COUNTER_BASED_DESC` (1.15; only the tests build descriptors).
#[cfg(test)]
pub const ZE_STRUCTURE_TYPE_EVENT_COUNTER_BASED_DESC: ze_structure_type_t = 0x0002_003a;
/// `ze_event_counter_based_flag_t` (1.15): the IPC flag, and the two timestamp flags.
pub const ZE_EVENT_COUNTER_BASED_FLAG_IPC: u32 = 1 << 3;
pub const ZE_EVENT_COUNTER_BASED_FLAG_DEVICE_TIMESTAMP: u32 = 1 << 4;
pub const ZE_EVENT_COUNTER_BASED_FLAG_HOST_TIMESTAMP: u32 = 1 << 5;

/// `ze_event_counter_based_desc_t` (1.15).
#[repr(C)]
pub struct ze_event_counter_based_desc_t {
    pub stype: ze_structure_type_t,
    pub pNext: *const c_void,
    pub flags: u32,
    pub signal: ze_event_scope_flags_t,
    pub wait: ze_event_scope_flags_t,
}

/// `zeEventCounterBasedCreate` (1.15).
pub type ze_pfnEventCounterBasedCreate_t = Option<
    unsafe extern "C" fn(
        ze_context_handle_t,
        ze_device_handle_t,
        *const ze_event_counter_based_desc_t,
        *mut ze_event_handle_t,
    ) -> ze_result_t,
>;
/// The counter-based IPC entry points (1.15) and flags query (1.17), only passed to stubs:
/// IPC handles as untyped pointers.
pub type ze_pfnEventCounterBasedGetIpcHandle_t =
    Option<unsafe extern "C" fn(ze_event_handle_t, *mut c_void) -> ze_result_t>;
pub type ze_pfnEventCounterBasedOpenIpcHandle_t = Option<
    unsafe extern "C" fn(ze_context_handle_t, *const c_void, *mut ze_event_handle_t) -> ze_result_t,
>;
pub type ze_pfnEventCounterBasedCloseIpcHandle_t =
    Option<unsafe extern "C" fn(ze_event_handle_t) -> ze_result_t>;
pub type ze_pfnEventCounterBasedGetDeviceAddress_t =
    Option<unsafe extern "C" fn(ze_event_handle_t, *mut u64, *mut u64) -> ze_result_t>;
pub type ze_pfnEventGetCounterBasedFlags_t =
    Option<unsafe extern "C" fn(ze_event_handle_t, *mut u32) -> ze_result_t>;

/// `ze_event_dditable_t` up to 1.17.
#[repr(C)]
pub struct ze_event_dditable_next_t {
    pub pfnCreate: ze_pfnEventCreate_t,
    pub pfnDestroy: ze_pfnEventDestroy_t,
    pub pfnHostSignal: ze_pfnEventHostSignal_t,
    pub pfnHostSynchronize: ze_pfnEventHostSynchronize_t,
    pub pfnQueryStatus: ze_pfnEventQueryStatus_t,
    pub pfnHostReset: ze_pfnEventHostReset_t,
    pub pfnQueryKernelTimestamp: ze_pfnEventQueryKernelTimestamp_t,
    /// 1.6.
    pub pfnQueryKernelTimestampsExt: ze_pfnEventQueryKernelTimestampsExt_t,
    /// 1.9.
    pub pfnGetEventPool: ze_pfnEventGetEventPool_t,
    /// 1.9.
    pub pfnGetSignalScope: ze_pfnEventGetScope_t,
    /// 1.9.
    pub pfnGetWaitScope: ze_pfnEventGetScope_t,
    /// 1.15.
    pub pfnCounterBasedCreate: ze_pfnEventCounterBasedCreate_t,
    /// 1.15.
    pub pfnCounterBasedGetIpcHandle: ze_pfnEventCounterBasedGetIpcHandle_t,
    /// 1.15.
    pub pfnCounterBasedOpenIpcHandle: ze_pfnEventCounterBasedOpenIpcHandle_t,
    /// 1.15.
    pub pfnCounterBasedCloseIpcHandle: ze_pfnEventCounterBasedCloseIpcHandle_t,
    /// 1.15.
    pub pfnCounterBasedGetDeviceAddress: ze_pfnEventCounterBasedGetDeviceAddress_t,
    /// 1.17.
    pub pfnGetCounterBasedFlags: ze_pfnEventGetCounterBasedFlags_t,
}

/// `ZE_STRUCTURE_TYPE_DEVICE_READONLY_MEMORY_EXT_PROPERTIES`.
pub const ZE_STRUCTURE_TYPE_DEVICE_READONLY_MEMORY_EXT_PROPERTIES: ze_structure_type_t = 0x10015;
/// `ZE_DEVICE_READONLY_MEMORY_CAPABILITY_ENFORCED`.
pub const ZE_DEVICE_READONLY_MEMORY_CAPABILITY_ENFORCED: u32 = 2;
/// `ZE_VIRTUAL_MEM_READONLY_PROPERTIES_EXT_VERSION_1_0`.
pub const ZE_VIRTUAL_MEM_READONLY_PROPERTIES_EXT_VERSION_1_0: u32 = 1 << 16;

/// `ze_device_readonly_memory_ext_properties_t`
/// (ZE_extension_virtual_mem_readonly_properties), chained to `ze_device_properties_t`.
#[repr(C)]
pub struct ze_device_readonly_memory_ext_properties_t {
    pub stype: ze_structure_type_t,
    pub pNext: *mut c_void,
    pub readonlyCapability: u32,
}

/// `ze_memory_atomic_attr_exp_flags_t` (1.7): the largest valid combination.
pub const ZE_MEMORY_ATOMIC_ATTR_EXP_FLAGS_ALL: u32 = 0x7f;

pub type ze_pfnMemGetIpcHandleFromFileDescriptorExp_t =
    Option<unsafe extern "C" fn(ze_context_handle_t, u64, *mut ze_ipc_mem_handle_t) -> ze_result_t>;
pub type ze_pfnMemGetFileDescriptorFromIpcHandleExp_t =
    Option<unsafe extern "C" fn(ze_context_handle_t, ze_ipc_mem_handle_t, *mut u64) -> ze_result_t>;
pub type ze_pfnMemSetAtomicAccessAttributeExp_t = Option<
    unsafe extern "C" fn(
        ze_context_handle_t,
        ze_device_handle_t,
        *const c_void,
        usize,
        u32,
    ) -> ze_result_t,
>;
pub type ze_pfnMemGetAtomicAccessAttributeExp_t = Option<
    unsafe extern "C" fn(
        ze_context_handle_t,
        ze_device_handle_t,
        *const c_void,
        usize,
        *mut u32,
    ) -> ze_result_t,
>;

/// `ze_mem_exp_dditable_t` (1.6; the atomic attributes 1.7).
#[repr(C)]
pub struct ze_mem_exp_dditable_t {
    pub pfnGetIpcHandleFromFileDescriptorExp: ze_pfnMemGetIpcHandleFromFileDescriptorExp_t,
    pub pfnGetFileDescriptorFromIpcHandleExp: ze_pfnMemGetFileDescriptorFromIpcHandleExp_t,
    pub pfnSetAtomicAccessAttributeExp: ze_pfnMemSetAtomicAccessAttributeExp_t,
    pub pfnGetAtomicAccessAttributeExp: ze_pfnMemGetAtomicAccessAttributeExp_t,
}

pub type ze_pfnMemPutIpcHandle_t =
    Option<unsafe extern "C" fn(ze_context_handle_t, ze_ipc_mem_handle_t) -> ze_result_t>;
pub type ze_pfnMemGetPitchFor2dImage_t = Option<
    unsafe extern "C" fn(
        ze_context_handle_t,
        ze_device_handle_t,
        usize,
        usize,
        u32,
        *mut usize,
    ) -> ze_result_t,
>;
pub type ze_pfnMemGetIpcHandleWithProperties_t = Option<
    unsafe extern "C" fn(
        ze_context_handle_t,
        *const c_void,
        *mut c_void,
        *mut ze_ipc_mem_handle_t,
    ) -> ze_result_t,
>;

/// `ze_mem_dditable_t` up to 1.15.
#[repr(C)]
pub struct ze_mem_dditable_next_t {
    pub pfnAllocShared: ze_pfnMemAllocShared_t,
    pub pfnAllocDevice: ze_pfnMemAllocDevice_t,
    pub pfnAllocHost: ze_pfnMemAllocHost_t,
    pub pfnFree: ze_pfnMemFree_t,
    pub pfnGetAllocProperties: ze_pfnMemGetAllocProperties_t,
    pub pfnGetAddressRange: ze_pfnMemGetAddressRange_t,
    pub pfnGetIpcHandle: ze_pfnMemGetIpcHandle_t,
    pub pfnOpenIpcHandle: ze_pfnMemOpenIpcHandle_t,
    pub pfnCloseIpcHandle: ze_pfnMemCloseIpcHandle_t,
    pub pfnFreeExt: ze_pfnMemFreeExt_t,
    /// 1.6.
    pub pfnPutIpcHandle: ze_pfnMemPutIpcHandle_t,
    /// 1.9.
    pub pfnGetPitchFor2dImage: ze_pfnMemGetPitchFor2dImage_t,
    /// 1.15.
    pub pfnGetIpcHandleWithProperties: ze_pfnMemGetIpcHandleWithProperties_t,
}

/// `ze_ipc_mem_handle_type_ext_desc_t` (`ZE_extension_ipc_mem_handle_type`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ze_ipc_mem_handle_type_ext_desc_t {
    pub stype: ze_structure_type_t,
    pub pNext: *const c_void,
    pub typeFlags: u32,
}
pub const ZE_STRUCTURE_TYPE_IPC_MEM_HANDLE_TYPE_EXT_DESC: ze_structure_type_t = 0x0002_003D;
pub const ZE_IPC_MEM_HANDLE_TYPE_FLAG_DEFAULT: u32 = 1;
