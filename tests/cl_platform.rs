//! Platform and device queries through the ICD loader: every `clGetPlatformInfo` /
//! `clGetDeviceInfo` parameter of OpenCL 3.0 answers with a sane size and value, the size-only
//! and too-small-buffer paths, bad parameter names, invalid handles and device-type lookup.

use ferrite_tests::*;
use std::ptr;

/// How a query's value is laid out, to check its size.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Uint,
    Ulong,
    Size,
    Bool,
    Handle,
    Str,
    SizeArray,
    NameVersionArray,
    PropArray,
    Bytes(usize),
}

use Kind::*;

const PLATFORM_PARAMS: &[(cl_platform_info, &str, Kind)] = &[
    (CL_PLATFORM_PROFILE, "PROFILE", Str),
    (CL_PLATFORM_VERSION, "VERSION", Str),
    (CL_PLATFORM_NAME, "NAME", Str),
    (CL_PLATFORM_VENDOR, "VENDOR", Str),
    (CL_PLATFORM_EXTENSIONS, "EXTENSIONS", Str),
    (
        CL_PLATFORM_HOST_TIMER_RESOLUTION,
        "HOST_TIMER_RESOLUTION",
        Ulong,
    ),
    (CL_PLATFORM_NUMERIC_VERSION, "NUMERIC_VERSION", Uint),
    (
        CL_PLATFORM_EXTENSIONS_WITH_VERSION,
        "EXTENSIONS_WITH_VERSION",
        NameVersionArray,
    ),
    (CL_PLATFORM_ICD_SUFFIX_KHR, "ICD_SUFFIX_KHR", Str),
];

/// Every device query of the OpenCL 3.0 core API (table "List of supported param_names by
/// clGetDeviceInfo"), with its type.
const DEVICE_PARAMS: &[(cl_device_info, &str, Kind)] = &[
    (CL_DEVICE_TYPE, "TYPE", Ulong),
    (CL_DEVICE_VENDOR_ID, "VENDOR_ID", Uint),
    (CL_DEVICE_MAX_COMPUTE_UNITS, "MAX_COMPUTE_UNITS", Uint),
    (
        CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS,
        "MAX_WORK_ITEM_DIMENSIONS",
        Uint,
    ),
    (CL_DEVICE_MAX_WORK_GROUP_SIZE, "MAX_WORK_GROUP_SIZE", Size),
    (
        CL_DEVICE_MAX_WORK_ITEM_SIZES,
        "MAX_WORK_ITEM_SIZES",
        SizeArray,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR,
        "PREFERRED_VECTOR_WIDTH_CHAR",
        Uint,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT,
        "PREFERRED_VECTOR_WIDTH_SHORT",
        Uint,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT,
        "PREFERRED_VECTOR_WIDTH_INT",
        Uint,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG,
        "PREFERRED_VECTOR_WIDTH_LONG",
        Uint,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT,
        "PREFERRED_VECTOR_WIDTH_FLOAT",
        Uint,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE,
        "PREFERRED_VECTOR_WIDTH_DOUBLE",
        Uint,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF,
        "PREFERRED_VECTOR_WIDTH_HALF",
        Uint,
    ),
    (
        CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR,
        "NATIVE_VECTOR_WIDTH_CHAR",
        Uint,
    ),
    (
        CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT,
        "NATIVE_VECTOR_WIDTH_SHORT",
        Uint,
    ),
    (
        CL_DEVICE_NATIVE_VECTOR_WIDTH_INT,
        "NATIVE_VECTOR_WIDTH_INT",
        Uint,
    ),
    (
        CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG,
        "NATIVE_VECTOR_WIDTH_LONG",
        Uint,
    ),
    (
        CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT,
        "NATIVE_VECTOR_WIDTH_FLOAT",
        Uint,
    ),
    (
        CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE,
        "NATIVE_VECTOR_WIDTH_DOUBLE",
        Uint,
    ),
    (
        CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF,
        "NATIVE_VECTOR_WIDTH_HALF",
        Uint,
    ),
    (CL_DEVICE_MAX_CLOCK_FREQUENCY, "MAX_CLOCK_FREQUENCY", Uint),
    (CL_DEVICE_ADDRESS_BITS, "ADDRESS_BITS", Uint),
    (CL_DEVICE_MAX_MEM_ALLOC_SIZE, "MAX_MEM_ALLOC_SIZE", Ulong),
    (CL_DEVICE_IMAGE_SUPPORT, "IMAGE_SUPPORT", Bool),
    (CL_DEVICE_MAX_READ_IMAGE_ARGS, "MAX_READ_IMAGE_ARGS", Uint),
    (CL_DEVICE_MAX_WRITE_IMAGE_ARGS, "MAX_WRITE_IMAGE_ARGS", Uint),
    (
        CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS,
        "MAX_READ_WRITE_IMAGE_ARGS",
        Uint,
    ),
    (CL_DEVICE_IL_VERSION, "IL_VERSION", Str),
    (
        CL_DEVICE_ILS_WITH_VERSION,
        "ILS_WITH_VERSION",
        NameVersionArray,
    ),
    (CL_DEVICE_IMAGE2D_MAX_WIDTH, "IMAGE2D_MAX_WIDTH", Size),
    (CL_DEVICE_IMAGE2D_MAX_HEIGHT, "IMAGE2D_MAX_HEIGHT", Size),
    (CL_DEVICE_IMAGE3D_MAX_WIDTH, "IMAGE3D_MAX_WIDTH", Size),
    (CL_DEVICE_IMAGE3D_MAX_HEIGHT, "IMAGE3D_MAX_HEIGHT", Size),
    (CL_DEVICE_IMAGE3D_MAX_DEPTH, "IMAGE3D_MAX_DEPTH", Size),
    (
        CL_DEVICE_IMAGE_MAX_BUFFER_SIZE,
        "IMAGE_MAX_BUFFER_SIZE",
        Size,
    ),
    (CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, "IMAGE_MAX_ARRAY_SIZE", Size),
    (CL_DEVICE_MAX_SAMPLERS, "MAX_SAMPLERS", Uint),
    (
        CL_DEVICE_IMAGE_PITCH_ALIGNMENT,
        "IMAGE_PITCH_ALIGNMENT",
        Uint,
    ),
    (
        CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT,
        "IMAGE_BASE_ADDRESS_ALIGNMENT",
        Uint,
    ),
    (CL_DEVICE_MAX_PIPE_ARGS, "MAX_PIPE_ARGS", Uint),
    (
        CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS,
        "PIPE_MAX_ACTIVE_RESERVATIONS",
        Uint,
    ),
    (CL_DEVICE_PIPE_MAX_PACKET_SIZE, "PIPE_MAX_PACKET_SIZE", Uint),
    (CL_DEVICE_MAX_PARAMETER_SIZE, "MAX_PARAMETER_SIZE", Size),
    (CL_DEVICE_MEM_BASE_ADDR_ALIGN, "MEM_BASE_ADDR_ALIGN", Uint),
    (
        CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE,
        "MIN_DATA_TYPE_ALIGN_SIZE",
        Uint,
    ),
    (CL_DEVICE_SINGLE_FP_CONFIG, "SINGLE_FP_CONFIG", Ulong),
    (CL_DEVICE_DOUBLE_FP_CONFIG, "DOUBLE_FP_CONFIG", Ulong),
    (
        CL_DEVICE_GLOBAL_MEM_CACHE_TYPE,
        "GLOBAL_MEM_CACHE_TYPE",
        Uint,
    ),
    (
        CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE,
        "GLOBAL_MEM_CACHELINE_SIZE",
        Uint,
    ),
    (
        CL_DEVICE_GLOBAL_MEM_CACHE_SIZE,
        "GLOBAL_MEM_CACHE_SIZE",
        Ulong,
    ),
    (CL_DEVICE_GLOBAL_MEM_SIZE, "GLOBAL_MEM_SIZE", Ulong),
    (
        CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE,
        "MAX_CONSTANT_BUFFER_SIZE",
        Ulong,
    ),
    (CL_DEVICE_MAX_CONSTANT_ARGS, "MAX_CONSTANT_ARGS", Uint),
    (
        CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE,
        "MAX_GLOBAL_VARIABLE_SIZE",
        Size,
    ),
    (
        CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE,
        "GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE",
        Size,
    ),
    (CL_DEVICE_LOCAL_MEM_TYPE, "LOCAL_MEM_TYPE", Uint),
    (CL_DEVICE_LOCAL_MEM_SIZE, "LOCAL_MEM_SIZE", Ulong),
    (
        CL_DEVICE_ERROR_CORRECTION_SUPPORT,
        "ERROR_CORRECTION_SUPPORT",
        Bool,
    ),
    (CL_DEVICE_HOST_UNIFIED_MEMORY, "HOST_UNIFIED_MEMORY", Bool),
    (
        CL_DEVICE_PROFILING_TIMER_RESOLUTION,
        "PROFILING_TIMER_RESOLUTION",
        Size,
    ),
    (CL_DEVICE_ENDIAN_LITTLE, "ENDIAN_LITTLE", Bool),
    (CL_DEVICE_AVAILABLE, "AVAILABLE", Bool),
    (CL_DEVICE_COMPILER_AVAILABLE, "COMPILER_AVAILABLE", Bool),
    (CL_DEVICE_LINKER_AVAILABLE, "LINKER_AVAILABLE", Bool),
    (
        CL_DEVICE_EXECUTION_CAPABILITIES,
        "EXECUTION_CAPABILITIES",
        Ulong,
    ),
    (
        CL_DEVICE_QUEUE_ON_HOST_PROPERTIES,
        "QUEUE_ON_HOST_PROPERTIES",
        Ulong,
    ),
    (
        CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES,
        "QUEUE_ON_DEVICE_PROPERTIES",
        Ulong,
    ),
    (
        CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE,
        "QUEUE_ON_DEVICE_PREFERRED_SIZE",
        Uint,
    ),
    (
        CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE,
        "QUEUE_ON_DEVICE_MAX_SIZE",
        Uint,
    ),
    (CL_DEVICE_MAX_ON_DEVICE_QUEUES, "MAX_ON_DEVICE_QUEUES", Uint),
    (CL_DEVICE_MAX_ON_DEVICE_EVENTS, "MAX_ON_DEVICE_EVENTS", Uint),
    (CL_DEVICE_BUILT_IN_KERNELS, "BUILT_IN_KERNELS", Str),
    (
        CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION,
        "BUILT_IN_KERNELS_WITH_VERSION",
        NameVersionArray,
    ),
    (CL_DEVICE_PLATFORM, "PLATFORM", Handle),
    (CL_DEVICE_NAME, "NAME", Str),
    (CL_DEVICE_VENDOR, "VENDOR", Str),
    (CL_DRIVER_VERSION, "DRIVER_VERSION", Str),
    (CL_DEVICE_PROFILE, "PROFILE", Str),
    (CL_DEVICE_VERSION, "VERSION", Str),
    (CL_DEVICE_NUMERIC_VERSION, "NUMERIC_VERSION", Uint),
    (CL_DEVICE_OPENCL_C_VERSION, "OPENCL_C_VERSION", Str),
    (
        CL_DEVICE_OPENCL_C_ALL_VERSIONS,
        "OPENCL_C_ALL_VERSIONS",
        NameVersionArray,
    ),
    (
        CL_DEVICE_OPENCL_C_FEATURES,
        "OPENCL_C_FEATURES",
        NameVersionArray,
    ),
    (CL_DEVICE_EXTENSIONS, "EXTENSIONS", Str),
    (
        CL_DEVICE_EXTENSIONS_WITH_VERSION,
        "EXTENSIONS_WITH_VERSION",
        NameVersionArray,
    ),
    (CL_DEVICE_PRINTF_BUFFER_SIZE, "PRINTF_BUFFER_SIZE", Size),
    (
        CL_DEVICE_PREFERRED_INTEROP_USER_SYNC,
        "PREFERRED_INTEROP_USER_SYNC",
        Bool,
    ),
    (CL_DEVICE_PARENT_DEVICE, "PARENT_DEVICE", Handle),
    (
        CL_DEVICE_PARTITION_MAX_SUB_DEVICES,
        "PARTITION_MAX_SUB_DEVICES",
        Uint,
    ),
    (
        CL_DEVICE_PARTITION_PROPERTIES,
        "PARTITION_PROPERTIES",
        PropArray,
    ),
    (
        CL_DEVICE_PARTITION_AFFINITY_DOMAIN,
        "PARTITION_AFFINITY_DOMAIN",
        Ulong,
    ),
    (CL_DEVICE_PARTITION_TYPE, "PARTITION_TYPE", PropArray),
    (CL_DEVICE_REFERENCE_COUNT, "REFERENCE_COUNT", Uint),
    (CL_DEVICE_SVM_CAPABILITIES, "SVM_CAPABILITIES", Ulong),
    (
        CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT,
        "PREFERRED_PLATFORM_ATOMIC_ALIGNMENT",
        Uint,
    ),
    (
        CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT,
        "PREFERRED_GLOBAL_ATOMIC_ALIGNMENT",
        Uint,
    ),
    (
        CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT,
        "PREFERRED_LOCAL_ATOMIC_ALIGNMENT",
        Uint,
    ),
    (CL_DEVICE_MAX_NUM_SUB_GROUPS, "MAX_NUM_SUB_GROUPS", Uint),
    (
        CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS,
        "SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS",
        Bool,
    ),
    (
        CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES,
        "ATOMIC_MEMORY_CAPABILITIES",
        Ulong,
    ),
    (
        CL_DEVICE_ATOMIC_FENCE_CAPABILITIES,
        "ATOMIC_FENCE_CAPABILITIES",
        Ulong,
    ),
    (
        CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT,
        "NON_UNIFORM_WORK_GROUP_SUPPORT",
        Bool,
    ),
    (
        CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
        "WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT",
        Bool,
    ),
    (
        CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT,
        "GENERIC_ADDRESS_SPACE_SUPPORT",
        Bool,
    ),
    (
        CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES,
        "DEVICE_ENQUEUE_CAPABILITIES",
        Ulong,
    ),
    (CL_DEVICE_PIPE_SUPPORT, "PIPE_SUPPORT", Bool),
    (
        CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
        "PREFERRED_WORK_GROUP_SIZE_MULTIPLE",
        Size,
    ),
    (
        CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED,
        "LATEST_CONFORMANCE_VERSION_PASSED",
        Str,
    ),
];

/// `cl_name_version`: a `cl_version` and a 64-byte name.
const NAME_VERSION_SIZE: usize = 4 + 64;

fn check_kind(what: &str, kind: Kind, bytes: &[u8]) {
    let n = bytes.len();
    match kind {
        Uint => assert_eq!(n, 4, "{what}: cl_uint has size {n}"),
        Ulong => spec_check(n == 8, &format!("{what}: cl_ulong/bitfield has size {n}")),
        Size | Handle => assert_eq!(n, std::mem::size_of::<usize>(), "{what}: size {n}"),
        Bool => {
            assert_eq!(n, 4, "{what}: cl_bool has size {n}");
            let v: cl_bool = pod(bytes);
            assert!(v == CL_TRUE || v == CL_FALSE, "{what}: cl_bool value {v}");
        }
        Str => {
            let s = string(bytes);
            assert!(s.len() < 64 * 1024, "{what}: absurdly long string");
        }
        SizeArray => assert!(
            n > 0 && n.is_multiple_of(8),
            "{what}: size_t[] of {n} bytes"
        ),
        NameVersionArray => {
            assert_eq!(
                n % NAME_VERSION_SIZE,
                0,
                "{what}: cl_name_version[] of {n} bytes"
            );
            for entry in bytes.chunks_exact(NAME_VERSION_SIZE) {
                let name = &entry[4..];
                let len = name
                    .iter()
                    .position(|&b| b == 0)
                    .expect("cl_name_version name is not NUL-terminated");
                assert!(len > 0, "{what}: empty name in cl_name_version");
            }
        }
        PropArray => assert_eq!(n % 8, 0, "{what}: property array of {n} bytes"),
        Bytes(len) => assert_eq!(n, len, "{what}: size {n}"),
    }
}

/// Checks a query's three paths: size-only, value (same size, via `query`), too small a buffer.
fn check_param<F>(what: &str, kind: Kind, call: F)
where
    F: Fn(usize, *mut std::ffi::c_void, *mut usize) -> cl_int,
{
    let bytes = query(&call).unwrap_or_else(|e| panic!("{what}: {}", error_name(e)));
    check_kind(what, kind, &bytes);
    if !bytes.is_empty() {
        // CL_INVALID_VALUE if ... the size in bytes specified by param_value_size is < size of
        // return type as specified in the table and param_value is not NULL.
        let mut small = vec![0u8; bytes.len()];
        let rc = call(bytes.len() - 1, small.as_mut_ptr().cast(), ptr::null_mut());
        expect_code(
            rc,
            CL_INVALID_VALUE,
            &format!("{what} with a buffer one byte too small"),
        );
    }
}

#[test]
fn every_platform_param_is_answered() {
    let p = dev().platform;
    for &(param, name, kind) in PLATFORM_PARAMS {
        check_param(&format!("CL_PLATFORM_{name}"), kind, |s, v, r| {
            // SAFETY: `check_param` passes a buffer of `s` bytes or NULL.
            unsafe { clGetPlatformInfo(p, param, s, v, r) }
        });
    }
}

#[test]
fn every_device_param_is_answered() {
    let d = dev().device;
    for &(param, name, kind) in DEVICE_PARAMS {
        check_param(&format!("CL_DEVICE_{name}"), kind, |s, v, r| {
            // SAFETY: `check_param` passes a buffer of `s` bytes or NULL.
            unsafe { clGetDeviceInfo(d, param, s, v, r) }
        });
    }
    // UUIDs are fixed-size byte arrays, queried when cl_khr_device_uuid is claimed.
    if !device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_device_uuid")
    {
        return;
    }
    for (param, name, len) in [
        (CL_DEVICE_UUID, "UUID", 16),
        (CL_DRIVER_UUID, "DRIVER_UUID", 16),
        (CL_DEVICE_LUID, "LUID", 8),
    ] {
        let bytes = device_info(d, param).unwrap_or_else(|e| panic!("{name}: {}", error_name(e)));
        check_kind(name, Bytes(len), &bytes);
    }
}

fn parse_version(s: &str, prefix: &str) -> (u32, u32) {
    let rest = s
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("{s:?} does not start with {prefix:?}"));
    let ver = rest.split_whitespace().next().expect("no version number");
    let (maj, min) = ver.split_once('.').expect("version is not major.minor");
    (maj.parse().expect("major"), min.parse().expect("minor"))
}

fn cl_make_version(major: u32, minor: u32) -> u32 {
    (major << 22) | (minor << 12)
}

#[test]
fn platform_values_are_sane() {
    let p = dev().platform;
    assert_eq!(platform_string(p, CL_PLATFORM_PROFILE), "FULL_PROFILE");
    let version = platform_string(p, CL_PLATFORM_VERSION);
    let (maj, min) = parse_version(&version, "OpenCL ");
    assert!(
        (maj, min) >= (3, 0),
        "platform version {version:?}: Ferrite is an OpenCL 3.0 platform"
    );
    let numeric: cl_version = pod(&platform_info(p, CL_PLATFORM_NUMERIC_VERSION).unwrap());
    assert_eq!(
        numeric & !0xfff,
        cl_make_version(maj, min),
        "CL_PLATFORM_NUMERIC_VERSION disagrees with {version:?}"
    );
    assert_eq!(
        platform_string(p, CL_PLATFORM_NAME),
        wanted_platform_name_or_actual(p)
    );
    assert!(!platform_string(p, CL_PLATFORM_VENDOR).is_empty());
    let ext = platform_string(p, CL_PLATFORM_EXTENSIONS);
    assert!(
        ext.split_whitespace().any(|e| e == "cl_khr_icd"),
        "platform extensions {ext:?} lack cl_khr_icd"
    );
    assert!(!platform_string(p, CL_PLATFORM_ICD_SUFFIX_KHR).is_empty());
    // Every name in CL_PLATFORM_EXTENSIONS_WITH_VERSION is in CL_PLATFORM_EXTENSIONS.
    let with_version = platform_info(p, CL_PLATFORM_EXTENSIONS_WITH_VERSION).unwrap();
    for entry in with_version.chunks_exact(NAME_VERSION_SIZE) {
        let name = std::str::from_utf8(&entry[4..])
            .unwrap()
            .trim_end_matches('\0');
        assert!(
            ext.split_whitespace().any(|e| e == name),
            "{name} is versioned but not listed"
        );
    }
}

fn wanted_platform_name_or_actual(p: cl_platform_id) -> String {
    let wanted = wanted_platform_name();
    if wanted == "first" {
        platform_string(p, CL_PLATFORM_NAME)
    } else {
        wanted
    }
}

#[test]
fn device_values_are_sane() {
    let d = dev();
    let ty: cl_device_type = device_get(CL_DEVICE_TYPE);
    assert_eq!(
        ty & CL_DEVICE_TYPE_CPU,
        CL_DEVICE_TYPE_CPU,
        "device type {ty:#x} is not CPU"
    );
    let platform: cl_platform_id = device_get(CL_DEVICE_PLATFORM);
    assert_eq!(
        platform, d.platform,
        "CL_DEVICE_PLATFORM is not the platform it was found on"
    );
    assert!(device_get::<cl_uint>(CL_DEVICE_MAX_COMPUTE_UNITS) >= 1);
    let dims: cl_uint = device_get(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    assert!(dims >= 3, "CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS = {dims}");
    let sizes: Vec<usize> = pod_vec(&device_info(d.device, CL_DEVICE_MAX_WORK_ITEM_SIZES).unwrap());
    assert_eq!(
        sizes.len(),
        dims as usize,
        "CL_DEVICE_MAX_WORK_ITEM_SIZES has one entry per dimension"
    );
    let wg: usize = device_get(CL_DEVICE_MAX_WORK_GROUP_SIZE);
    assert!(
        wg >= 1 && sizes.iter().all(|&s| s >= 1),
        "work-group limits {wg} {sizes:?}"
    );
    let bits: cl_uint = device_get(CL_DEVICE_ADDRESS_BITS);
    assert_eq!(
        bits as usize,
        usize::BITS as usize,
        "a CPU device has the host's address width"
    );
    let global: cl_ulong = device_get(CL_DEVICE_GLOBAL_MEM_SIZE);
    let max_alloc: cl_ulong = device_get(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    // Minimum value: max(min(1024 MiB, 1/4 of CL_DEVICE_GLOBAL_MEM_SIZE), 32 MiB).
    let min_alloc = (1024u64 << 20).min(global / 4).max(32 << 20);
    assert!(
        max_alloc >= min_alloc && max_alloc <= global,
        "max alloc {max_alloc} global {global}"
    );
    assert!(device_get::<cl_ulong>(CL_DEVICE_LOCAL_MEM_SIZE) >= 32 * 1024);
    assert!(device_get::<usize>(CL_DEVICE_MAX_PARAMETER_SIZE) >= 1024);
    assert!(device_get::<cl_ulong>(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE) >= 64 * 1024);
    assert!(device_get::<cl_uint>(CL_DEVICE_MAX_CONSTANT_ARGS) >= 8);
    assert!(
        device_get::<cl_uint>(CL_DEVICE_MEM_BASE_ADDR_ALIGN) >= 1024,
        "MEM_BASE_ADDR_ALIGN is in bits: at least long16 (1024)"
    );
    assert_eq!(device_get::<cl_bool>(CL_DEVICE_ENDIAN_LITTLE), CL_TRUE);
    assert_eq!(device_get::<cl_bool>(CL_DEVICE_AVAILABLE), CL_TRUE);
    assert_eq!(device_get::<cl_bool>(CL_DEVICE_COMPILER_AVAILABLE), CL_TRUE);
    let exec: cl_ulong = device_get(CL_DEVICE_EXECUTION_CAPABILITIES);
    assert_ne!(exec & CL_EXEC_KERNEL, 0, "CL_EXEC_KERNEL is mandatory");
    let fp: cl_ulong = device_get(CL_DEVICE_SINGLE_FP_CONFIG);
    assert_eq!(
        fp & (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN),
        CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN,
        "mandatory single FP caps"
    );
    let qprops: cl_ulong = device_get(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES);
    assert_ne!(
        qprops & CL_QUEUE_PROFILING_ENABLE,
        0,
        "host queues must support profiling"
    );
    assert_eq!(device_string(CL_DEVICE_PROFILE), "FULL_PROFILE");
    let version = device_string(CL_DEVICE_VERSION);
    let (maj, min) = parse_version(&version, "OpenCL ");
    assert!((maj, min) >= (3, 0), "device version {version:?}");
    let numeric: cl_version = device_get(CL_DEVICE_NUMERIC_VERSION);
    assert_eq!(
        numeric & !0xfff,
        cl_make_version(maj, min),
        "CL_DEVICE_NUMERIC_VERSION disagrees with {version:?}"
    );
    let c_version = device_string(CL_DEVICE_OPENCL_C_VERSION);
    assert!(c_version.starts_with("OpenCL C "), "{c_version:?}");
    assert!(!device_string(CL_DEVICE_NAME).is_empty());
    assert!(!device_string(CL_DRIVER_VERSION).is_empty());
    let parent: cl_device_id = device_get(CL_DEVICE_PARENT_DEVICE);
    assert!(parent.is_null(), "a root device has no parent");
    // A root device's reference count is 1 and retain/release leave it alone.
    assert_eq!(device_get::<cl_uint>(CL_DEVICE_REFERENCE_COUNT), 1);
    // SAFETY: retaining and releasing a root device is a no-op that must succeed.
    unsafe {
        check(clRetainDevice(d.device), "clRetainDevice");
        check(clReleaseDevice(d.device), "clReleaseDevice");
    }
    assert_eq!(device_get::<cl_uint>(CL_DEVICE_REFERENCE_COUNT), 1);
    // Extensions listed with versions are the ones listed as a string.
    let ext = device_string(CL_DEVICE_EXTENSIONS);
    let with_version = device_info(d.device, CL_DEVICE_EXTENSIONS_WITH_VERSION).unwrap();
    let versioned: Vec<String> = with_version
        .chunks_exact(NAME_VERSION_SIZE)
        .map(|e| {
            std::str::from_utf8(&e[4..])
                .unwrap()
                .trim_end_matches('\0')
                .to_string()
        })
        .collect();
    let mut listed: Vec<String> = ext.split_whitespace().map(str::to_string).collect();
    let mut versioned_sorted = versioned.clone();
    listed.sort();
    versioned_sorted.sort();
    assert_eq!(
        listed, versioned_sorted,
        "CL_DEVICE_EXTENSIONS vs CL_DEVICE_EXTENSIONS_WITH_VERSION"
    );
    // IL version string and ILs with version agree.
    let il = device_string(CL_DEVICE_IL_VERSION);
    let ils = device_info(d.device, CL_DEVICE_ILS_WITH_VERSION).unwrap();
    assert_eq!(
        il.trim().is_empty(),
        ils.is_empty(),
        "IL_VERSION {il:?} vs ILS_WITH_VERSION"
    );
    if !il.trim().is_empty() {
        assert!(il.contains("SPIR-V_1."), "IL version {il:?} names SPIR-V");
    }
}

#[test]
fn bad_param_names_are_invalid_value() {
    let d = dev();
    let mut buf = [0u8; 256];
    // CL_INVALID_VALUE if param_name is not one of the supported values.
    for bad in [0u32, 0x08FF, 0x0A00, 0xFFFF_FFFF] {
        // SAFETY: `buf` has 256 bytes.
        let rc = unsafe {
            clGetPlatformInfo(
                d.platform,
                bad,
                buf.len(),
                buf.as_mut_ptr().cast(),
                ptr::null_mut(),
            )
        };
        expect_code(
            rc,
            CL_INVALID_VALUE,
            &format!("clGetPlatformInfo(param {bad:#x})"),
        );
        let mut size = 0;
        // SAFETY: size-only query.
        let rc = unsafe { clGetPlatformInfo(d.platform, bad, 0, ptr::null_mut(), &mut size) };
        expect_code(
            rc,
            CL_INVALID_VALUE,
            &format!("size-only clGetPlatformInfo(param {bad:#x})"),
        );
    }
    for bad in [0u32, 0x0FFF, 0x105F, 0x2000, 0xFFFF_FFFF] {
        // SAFETY: `buf` has 256 bytes.
        let rc = unsafe {
            clGetDeviceInfo(
                d.device,
                bad,
                buf.len(),
                buf.as_mut_ptr().cast(),
                ptr::null_mut(),
            )
        };
        expect_code(
            rc,
            CL_INVALID_VALUE,
            &format!("clGetDeviceInfo(param {bad:#x})"),
        );
    }
}

#[test]
fn wrong_type_platform_and_device_handles() {
    if !require_handle_validation() {
        return;
    }
    let d = dev();
    let ctx = Context::new();
    let mut buf = [0u8; 64];
    // The loader forwards any non-NULL handle to the driver its dispatch table names: a handle
    // of another type must be recognised by the driver. "CL_INVALID_PLATFORM if platform is not
    // a valid platform." / "CL_INVALID_DEVICE if device is not a valid device."
    let bad_platform: cl_platform_id = wrong_handle(ctx.raw());
    // SAFETY: the handle points at a live object of the same driver; the driver must reject it.
    let rc = unsafe {
        clGetPlatformInfo(
            bad_platform,
            CL_PLATFORM_NAME,
            buf.len(),
            buf.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_PLATFORM, "clGetPlatformInfo(context handle)");
    let mut n = 0;
    // SAFETY: as above.
    let rc =
        unsafe { clGetDeviceIDs(bad_platform, CL_DEVICE_TYPE_ALL, 0, ptr::null_mut(), &mut n) };
    expect_code(rc, CL_INVALID_PLATFORM, "clGetDeviceIDs(context handle)");
    let bad_device: cl_device_id = wrong_handle(ctx.raw());
    // SAFETY: as above.
    let rc = unsafe {
        clGetDeviceInfo(
            bad_device,
            CL_DEVICE_NAME,
            buf.len(),
            buf.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_DEVICE, "clGetDeviceInfo(context handle)");
    let bad_device: cl_device_id = wrong_handle(d.platform);
    // SAFETY: as above.
    let rc = unsafe {
        clGetDeviceInfo(
            bad_device,
            CL_DEVICE_NAME,
            buf.len(),
            buf.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_DEVICE, "clGetDeviceInfo(platform handle)");
}

#[test]
fn null_platform_and_device_handles() {
    let mut buf = [0u8; 64];
    // NULL device: the loader answers CL_INVALID_DEVICE itself.
    // SAFETY: NULL handle.
    let rc = unsafe {
        clGetDeviceInfo(
            ptr::null_mut(),
            CL_DEVICE_NAME,
            buf.len(),
            buf.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_DEVICE, "clGetDeviceInfo(NULL)");
    // NULL platform: "If platform is NULL, the behavior is implementation-defined"; ocl-icd
    // substitutes its default platform. Either way the answer must be a real platform or the
    // error.
    let mut size = 0;
    // SAFETY: NULL handle, 64-byte buffer.
    let rc = unsafe {
        clGetPlatformInfo(
            ptr::null_mut(),
            CL_PLATFORM_NAME,
            buf.len(),
            buf.as_mut_ptr().cast(),
            &mut size,
        )
    };
    if rc == CL_SUCCESS {
        let name = string(&buf[..size]);
        let names: Vec<String> = platforms()
            .iter()
            .map(|&p| platform_string(p, CL_PLATFORM_NAME))
            .collect();
        assert!(
            names.contains(&name),
            "NULL platform answered {name:?}, not one of {names:?}"
        );
    } else {
        expect_code(rc, CL_INVALID_PLATFORM, "clGetPlatformInfo(NULL)");
    }
}

#[test]
fn get_platform_ids_argument_checks() {
    init_loader();
    let mut n = 0;
    // SAFETY: size-only query.
    check(
        unsafe { clGetPlatformIDs(0, ptr::null_mut(), &mut n) },
        "clGetPlatformIDs",
    );
    assert!(n >= 1);
    let mut p = ptr::null_mut();
    // CL_INVALID_VALUE if num_entries is equal to zero and platforms is not NULL or if both
    // num_platforms and platforms are NULL.
    // SAFETY: deliberately inconsistent arguments; nothing is written.
    let rc = unsafe { clGetPlatformIDs(0, &mut p, ptr::null_mut()) };
    expect_code(rc, CL_INVALID_VALUE, "clGetPlatformIDs(0, non-NULL)");
    // SAFETY: as above.
    let rc = unsafe { clGetPlatformIDs(1, ptr::null_mut(), ptr::null_mut()) };
    expect_code(rc, CL_INVALID_VALUE, "clGetPlatformIDs(1, NULL, NULL)");
}

#[test]
fn device_type_lookup() {
    let d = dev();
    for ty in [
        CL_DEVICE_TYPE_CPU,
        CL_DEVICE_TYPE_ALL,
        CL_DEVICE_TYPE_DEFAULT,
        CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU,
    ] {
        let ids = device_ids(d.platform, ty)
            .unwrap_or_else(|e| panic!("clGetDeviceIDs({ty:#x}): {}", error_name(e)));
        assert!(
            ids.contains(&d.device),
            "type {ty:#x} does not list the CPU device"
        );
    }
    // CL_DEVICE_NOT_FOUND if no OpenCL devices that matched device_type were found.
    for ty in [
        CL_DEVICE_TYPE_GPU,
        CL_DEVICE_TYPE_ACCELERATOR,
        CL_DEVICE_TYPE_CUSTOM,
    ] {
        let mut n = 99;
        // SAFETY: size-only query.
        let rc = unsafe { clGetDeviceIDs(d.platform, ty, 0, ptr::null_mut(), &mut n) };
        expect_code(rc, CL_DEVICE_NOT_FOUND, &format!("clGetDeviceIDs({ty:#x})"));
    }
    // CL_INVALID_DEVICE_TYPE if device_type is not a valid value.
    let mut n = 0;
    // SAFETY: size-only query.
    let rc = unsafe { clGetDeviceIDs(d.platform, 1 << 20, 0, ptr::null_mut(), &mut n) };
    spec_code(rc, CL_INVALID_DEVICE_TYPE, "clGetDeviceIDs(bad type)");
    // CL_INVALID_VALUE if num_entries is equal to zero and devices is not NULL or if both
    // num_devices and devices are NULL.
    let mut one = ptr::null_mut();
    // SAFETY: inconsistent arguments; nothing is written.
    let rc =
        unsafe { clGetDeviceIDs(d.platform, CL_DEVICE_TYPE_ALL, 0, &mut one, ptr::null_mut()) };
    expect_code(rc, CL_INVALID_VALUE, "clGetDeviceIDs(0 entries, non-NULL)");
    // SAFETY: as above.
    let rc = unsafe {
        clGetDeviceIDs(
            d.platform,
            CL_DEVICE_TYPE_ALL,
            1,
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "clGetDeviceIDs(NULL, NULL)");
}

#[test]
fn host_timer() {
    let d = dev().device;
    let (mut dev_t, mut host_t) = (0u64, 0u64);
    // SAFETY: valid out-pointers.
    let rc = unsafe { clGetDeviceAndHostTimer(d, &mut dev_t, &mut host_t) };
    let res: cl_ulong =
        pod(&platform_info(dev().platform, CL_PLATFORM_HOST_TIMER_RESOLUTION).unwrap());
    if res == 0 {
        // "If the platform does not support device and host timer synchronization, this value
        // is 0" and clGetDeviceAndHostTimer returns CL_INVALID_OPERATION.
        expect_code(
            rc,
            CL_INVALID_OPERATION,
            "clGetDeviceAndHostTimer without timer support",
        );
        return;
    }
    check(rc, "clGetDeviceAndHostTimer");
    let mut host2 = 0u64;
    // SAFETY: valid out-pointer.
    check(unsafe { clGetHostTimer(d, &mut host2) }, "clGetHostTimer");
    assert!(host2 >= host_t && dev_t > 0);
}
