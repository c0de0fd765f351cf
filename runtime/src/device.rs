//! The one CPU device and what it supports today.
//!
//! Everything the front ends report about the device comes from here, so the OpenCL and
//! Level-Zero answers agree. Numbers that depend on the machine (memory, caches, clock,
//! CPU name) are read once from the system when the device is created; the number of
//! compute units is the executor's worker count.

use crate::api::{api_type, ApiObject, ObjectType};
use crate::platform::{NameVersion, Version};
use crate::program::clc;
use std::sync::{Arc, OnceLock};

/// Largest work-group (product of the local sizes).
pub const MAX_WORK_GROUP_SIZE: usize = 4096;
/// Largest local size per dimension.
pub const MAX_WORK_ITEM_SIZES: [usize; 3] = [4096, 4096, 4096];
/// Local memory per work-group (a host allocation, so `CL_GLOBAL` type): 512 KiB, as PoCL
/// reports. Each worker's local arena (`executor.rs`) grows to what a launch needs, so the
/// limit costs nothing until a kernel uses it; 64 KiB was too little for reikna's transpose
/// (a 64 x 64 tile of 16-byte elements is 64 KiB before anything else).
pub const LOCAL_MEM_SIZE: usize = 512 * 1024;
/// Alignment of every buffer allocation, in bytes (`CL_DEVICE_MEM_BASE_ADDR_ALIGN` is in
/// bits). 128 covers the largest OpenCL type (`long16`/`double16`).
pub const MEM_BASE_ADDR_ALIGN: usize = 128;
/// Bytes available to `printf` per launch.
pub const PRINTF_BUFFER_SIZE: usize = 1024 * 1024;
/// Largest argument block (`CL_DEVICE_MAX_PARAMETER_SIZE`).
pub const MAX_PARAMETER_SIZE: usize = 4096;
/// `CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE`.
pub const MAX_CONSTANT_BUFFER_SIZE: u64 = 1024 * 1024;
/// `CL_DEVICE_MAX_CONSTANT_ARGS`.
pub const MAX_CONSTANT_ARGS: u32 = 8;
/// Preferred work-group size multiple reported for every kernel (the vector width the
/// compiler targets across work-items).
pub const PREFERRED_WORK_GROUP_SIZE_MULTIPLE: usize = 8;
/// A vendor id for Ferrite: not PCI-assigned and not from Khronos' `cl_khronos_vendor_id`
/// range (0x10000+; e.g. 0x10006 is PoCL). Chosen arbitrarily and distinctive.
pub const VENDOR_ID: u32 = 0x1A6E7;

/// The device's UUID (`cl_khr_device_uuid` `CL_DEVICE_UUID_KHR`, Level-Zero
/// `ze_device_properties_t::uuid`): the same through both APIs, so an application using
/// both can tell it is one device. Stable across runs.
pub const DEVICE_UUID: [u8; 16] = *b"ferrite-cpu-dev0";
/// The driver's UUID (`CL_DRIVER_UUID_KHR`, `ze_driver_properties_t::uuid`).
pub const DRIVER_UUID: [u8; 16] = *b"ferrite-driver01";

const fn v(major: u32, minor: u32, patch: u32) -> Version {
    Version::new(major, minor, patch)
}

/// Extensions of the device that are not OpenCL C extensions. The two SPIR-V ones:
/// `NoSignedWrap`/`NoUnsignedWrap` decorations are accepted and need no code (wrapping is
/// what the instructions do anyway), and `OpExpectKHR`/`OpAssumeTrueKHR` are hints
/// (compiler `codegen.rs`); both are tested by `test_spirv_new`.
const API_EXTENSIONS: &[&str] = &[
    "cl_khr_il_program",
    "cl_khr_icd",
    "cl_khr_spirv_no_integer_wrap_decoration",
    "cl_khr_expect_assume",
    // LinkOnceODR definitions resolve other modules' imports (program/link.rs).
    "cl_khr_spirv_linkonce_odr",
    // clGetKernelSuggestedLocalWorkSizeKHR: the local size a NULL one gets.
    "cl_khr_suggested_local_work_size",
    // Host, device and shared USM allocations (icd `cl/usm.rs`): what SYCL's OpenCL
    // backend allocates with.
    "cl_intel_unified_shared_memory",
    // CL_DEVICE_SUB_GROUP_SIZES_INTEL and `intel_reqd_sub_group_size` (SPIR-V
    // `SubgroupSize`): 4, 8, 16 or 32 work-items per sub-group.
    "cl_intel_required_subgroup_size",
    // CL_DEVICE_UUID_KHR / CL_DRIVER_UUID_KHR ([`DEVICE_UUID`], [`DRIVER_UUID`], those of
    // Level-Zero too); no LUID (a Windows adapter id), node mask 0. CTS `computeinfo
    // device_uuid`.
    "cl_khr_device_uuid",
    // CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT buffers, CL_MEM_DEVICE_ADDRESS_EXT,
    // clSetKernelArgDevicePointerEXT (icd `cl/mem.rs`, `cl/svm.rs`): a buffer's device
    // address is its host address, fixed for its life. CTS `cl_ext_buffer_device_address`.
    "cl_ext_buffer_device_address",
    // CL_DEVICE_SPIRV_{EXTENDED_INSTRUCTION_SETS,EXTENSIONS,CAPABILITIES}_KHR, read from
    // the compiler's own lists (`ferrite_compiler::supported_capabilities`). CTS `api
    // spirv_query_requirements`, `spirv_query_dependencies`.
    "cl_khr_spirv_queries",
    // Command buffers (icd `cl/command_buffer.rs`, runtime `command/buffer.rs`): commands
    // recorded once as data and run at every enqueue, on in-order and out-of-order queues,
    // simultaneously enqueued.
    "cl_khr_command_buffer",
    // Launches recorded with a mutable handle take new arguments and geometry after
    // finalisation (icd `cl/command_buffer/mutable.rs`).
    "cl_khr_command_buffer_mutable_dispatch",
];

const N_EXTENSIONS: usize = clc::OPENCL_C_EXTENSIONS.len() + API_EXTENSIONS.len();

/// `names` (then `more`) at `version`, in a constant context.
const fn name_versions<const N: usize>(
    names: &[&'static str],
    more: &[&'static str],
    version: Version,
) -> [NameVersion; N] {
    let mut out = [NameVersion { name: "", version }; N];
    let mut i = 0;
    while i < names.len() {
        out[i] = NameVersion {
            name: names[i],
            version,
        };
        i += 1;
    }
    let mut j = 0;
    while j < more.len() {
        out[i + j] = NameVersion {
            name: more[j],
            version,
        };
        j += 1;
    }
    out
}

/// Extensions whose version is not 1.0.0: the version whose requirements Ferrite meets.
/// `cl_khr_integer_dot_product` 2.0.0 adds the non-packed 8-bit inputs and the
/// acceleration queries; `cl_intel_unified_shared_memory` 1.1.0 (the Khronos headers'
/// version) makes any pointer a valid kernel argument.
const EXTENSION_VERSIONS: &[(&str, Version)] = &[
    ("cl_khr_integer_dot_product", v(2, 0, 0)),
    ("cl_intel_unified_shared_memory", v(1, 1, 0)),
    // The revision the CTS suite is written against (it skips every test for another).
    ("cl_ext_buffer_device_address", v(1, 0, 2)),
    // The provisional revision the CTS suite checks (it skips every test for another).
    ("cl_khr_command_buffer", v(0, 9, 8)),
    ("cl_khr_command_buffer_mutable_dispatch", v(0, 9, 5)),
];

const fn with_versions<const N: usize>(mut list: [NameVersion; N]) -> [NameVersion; N] {
    let mut i = 0;
    while i < N {
        let mut k = 0;
        while k < EXTENSION_VERSIONS.len() {
            if const_str_eq(list[i].name, EXTENSION_VERSIONS[k].0) {
                list[i].version = EXTENSION_VERSIONS[k].1;
            }
            k += 1;
        }
        i += 1;
    }
    list
}

/// Device extensions (also the platform's): the OpenCL C extensions the compiler is told
/// about ([`clc::OPENCL_C_EXTENSIONS`]), then the API ones, at version 1.0.0 unless
/// [`EXTENSION_VERSIONS`] says otherwise.
pub const EXTENSIONS: &[NameVersion] = &with_versions(name_versions::<N_EXTENSIONS>(
    clc::OPENCL_C_EXTENSIONS,
    API_EXTENSIONS,
    v(1, 0, 0),
));

/// `cl_khr_integer_dot_product`: which input forms work, for
/// `CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR` (compiler `codegen/dot.rs`).
pub const INTEGER_DOT_PRODUCT_4X8BIT: bool =
    has_feature("__opencl_c_integer_dot_product_input_4x8bit");
pub const INTEGER_DOT_PRODUCT_4X8BIT_PACKED: bool =
    has_feature("__opencl_c_integer_dot_product_input_4x8bit_packed");

/// Atomic orders and scopes the device supports, for `CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES`
/// and `CL_DEVICE_ATOMIC_FENCE_CAPABILITIES` (the icd maps them to the `cl_*` bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtomicCapabilities {
    pub order_relaxed: bool,
    pub order_acq_rel: bool,
    pub order_seq_cst: bool,
    pub scope_work_item: bool,
    pub scope_work_group: bool,
    pub scope_device: bool,
    pub scope_all_devices: bool,
}

/// Whether `list` holds `name` (in a constant context, where `contains` is not available).
const fn listed(list: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < list.len() {
        if const_str_eq(list[i], name) {
            return true;
        }
        i += 1;
    }
    false
}

const fn has_feature(name: &str) -> bool {
    listed(clc::OPENCL_C_FEATURES, name)
}

const fn claims_extension_feature(name: &str) -> bool {
    listed(clc::OPENCL_C_EXTENSION_FEATURES, name)
}

const fn const_str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut k = 0;
    while k < a.len() {
        if a[k] != b[k] {
            return false;
        }
        k += 1;
    }
    true
}

/// Floating-point atomics of one type (`cl_ext_float_atomics`), for
/// `CL_DEVICE_{SINGLE,DOUBLE,HALF}_FP_ATOMIC_CAPABILITIES_EXT` (the icd maps them to the
/// `cl_*` bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FpAtomicCapabilities {
    pub global_load_store: bool,
    pub global_add: bool,
    pub global_min_max: bool,
    pub local_load_store: bool,
    pub local_add: bool,
    pub local_min_max: bool,
}

/// Load, store and exchange of `atomic_float`/`atomic_double` are core OpenCL C and work
/// wherever the type does; add and min/max as the extension's feature macros (`[global add,
/// global min/max, local add, local min/max]`) claim them.
const fn fp_atomics(has_type: bool, macros: [&str; 4]) -> FpAtomicCapabilities {
    FpAtomicCapabilities {
        global_load_store: has_type,
        global_add: claims_extension_feature(macros[0]),
        global_min_max: claims_extension_feature(macros[1]),
        local_load_store: has_type,
        local_add: claims_extension_feature(macros[2]),
        local_min_max: claims_extension_feature(macros[3]),
    }
}

/// `CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT`.
pub const SINGLE_FP_ATOMICS: FpAtomicCapabilities = fp_atomics(
    true,
    [
        "__opencl_c_ext_fp32_global_atomic_add",
        "__opencl_c_ext_fp32_global_atomic_min_max",
        "__opencl_c_ext_fp32_local_atomic_add",
        "__opencl_c_ext_fp32_local_atomic_min_max",
    ],
);
/// `CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT`.
pub const DOUBLE_FP_ATOMICS: FpAtomicCapabilities = fp_atomics(
    has_feature("__opencl_c_fp64"),
    [
        "__opencl_c_ext_fp64_global_atomic_add",
        "__opencl_c_ext_fp64_global_atomic_min_max",
        "__opencl_c_ext_fp64_local_atomic_add",
        "__opencl_c_ext_fp64_local_atomic_min_max",
    ],
);
/// `CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT`: what OpenCL C programs can use (the
/// extension's own load/store macros, as halves are not core atomic types).
pub const HALF_FP_ATOMICS: FpAtomicCapabilities = FpAtomicCapabilities {
    global_load_store: claims_extension_feature("__opencl_c_ext_fp16_global_atomic_load_store"),
    local_load_store: claims_extension_feature("__opencl_c_ext_fp16_local_atomic_load_store"),
    ..fp_atomics(
        false,
        [
            "__opencl_c_ext_fp16_global_atomic_add",
            "__opencl_c_ext_fp16_global_atomic_min_max",
            "__opencl_c_ext_fp16_local_atomic_add",
            "__opencl_c_ext_fp16_local_atomic_min_max",
        ],
    )
};

/// Half atomics in SPIR-V modules (Level-Zero's `fp16Flags`): all of them, add included
/// (`SPV_EXT_shader_atomic_float16_add`), which OpenCL C cannot reach through llvm-spirv
/// ([`HALF_FP_ATOMICS`]).
pub const HALF_FP_ATOMICS_SPIRV: FpAtomicCapabilities = FpAtomicCapabilities {
    global_load_store: true,
    global_add: true,
    global_min_max: true,
    local_load_store: true,
    local_add: true,
    local_min_max: true,
};

/// Atomic functions: every order and scope (all map up to SeqCst, device-wide; see the
/// compiler's `memory_model.rs`), as far as the OpenCL C features claim them.
pub const ATOMIC_MEMORY_CAPABILITIES: AtomicCapabilities = AtomicCapabilities {
    order_relaxed: true,
    order_acq_rel: has_feature("__opencl_c_atomic_order_acq_rel"),
    order_seq_cst: has_feature("__opencl_c_atomic_order_seq_cst"),
    scope_work_item: false,
    scope_work_group: true,
    scope_device: has_feature("__opencl_c_atomic_scope_device"),
    scope_all_devices: has_feature("__opencl_c_atomic_scope_all_devices"),
};

/// Fences (`atomic_work_item_fence`): the same orders and scopes, plus work-item scope.
pub const ATOMIC_FENCE_CAPABILITIES: AtomicCapabilities = AtomicCapabilities {
    scope_work_item: true,
    ..ATOMIC_MEMORY_CAPABILITIES
};

/// `CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT`.
pub const GENERIC_ADDRESS_SPACE: bool = has_feature("__opencl_c_generic_address_space");

/// `CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE`: the compiler's bound on a program's program-scope
/// storage, which one variable may fill (0 without the feature).
pub const MAX_GLOBAL_VARIABLE_SIZE: usize =
    if has_feature("__opencl_c_program_scope_global_variables") {
        ferrite_compiler::MAX_PROGRAM_SCOPE_BYTES as usize
    } else {
        0
    };

/// `CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE`: the same bound; program-scope storage
/// is host memory like any buffer, so no smaller size is faster.
pub const GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE: usize = MAX_GLOBAL_VARIABLE_SIZE;

/// `CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT`.
pub const WORK_GROUP_COLLECTIVE_FUNCTIONS: bool =
    has_feature("__opencl_c_work_group_collective_functions");

/// Intermediate languages accepted by `clCreateProgramWithIL`.
pub const ILS: &[NameVersion] = &[
    NameVersion {
        name: "SPIR-V",
        version: v(1, 0, 0),
    },
    NameVersion {
        name: "SPIR-V",
        version: v(1, 1, 0),
    },
    NameVersion {
        name: "SPIR-V",
        version: v(1, 2, 0),
    },
    NameVersion {
        name: "SPIR-V",
        version: v(1, 3, 0),
    },
    NameVersion {
        name: "SPIR-V",
        version: v(1, 4, 0),
    },
    // 1.5 makes the Vulkan memory model core (compiler/src/memory_model.rs).
    NameVersion {
        name: "SPIR-V",
        version: v(1, 5, 0),
    },
    // 1.6: the `Uniform` decoration on any value, integer dot products (claimed with
    // cl_khr_integer_dot_product); the rest is shader-only.
    NameVersion {
        name: "SPIR-V",
        version: v(1, 6, 0),
    },
];

/// OpenCL C versions accepted by `-cl-std`.
pub const OPENCL_C_VERSIONS: &[NameVersion] = &[
    NameVersion {
        name: "OpenCL C",
        version: v(1, 0, 0),
    },
    NameVersion {
        name: "OpenCL C",
        version: v(1, 1, 0),
    },
    NameVersion {
        name: "OpenCL C",
        version: v(1, 2, 0),
    },
    NameVersion {
        name: "OpenCL C",
        version: v(3, 0, 0),
    },
];

/// Optional OpenCL C 3.0 features supported: exactly [`clc::OPENCL_C_FEATURES`], the
/// macros the compiler defines.
pub const OPENCL_C_FEATURES: &[NameVersion] =
    &name_versions::<{ clc::OPENCL_C_FEATURES.len() }>(clc::OPENCL_C_FEATURES, &[], v(3, 0, 0));

/// One CPU cache level as found in sysfs.
#[derive(Clone, Copy, Debug, Default)]
pub struct CacheInfo {
    pub size: u64,
    pub line_size: u32,
}

/// The CPU device.
#[repr(C)]
pub struct Device {
    pub api: ApiObject,
    /// CPU model name (`/proc/cpuinfo`).
    pub name: String,
    /// CPU vendor, e.g. "AuthenticAMD".
    pub vendor: String,
    /// Highest clock in MHz (0 if unknown).
    pub max_clock_mhz: u32,
    /// Memory this process can get ([`available_memory`]), in bytes.
    pub global_mem_size: u64,
    /// Largest single allocation.
    pub max_mem_alloc_size: u64,
    /// The largest data/unified cache (the one shared by the cores).
    pub global_mem_cache: CacheInfo,
    /// The device this one is a sub-device of (`CL_DEVICE_PARENT_DEVICE`).
    pub parent: Option<Arc<Device>>,
    /// How the parent was partitioned to make this sub-device (`CL_DEVICE_PARTITION_TYPE`).
    pub partition: Option<Partition>,
    /// A sub-device's compute units (a root device has the executor's workers).
    sub_units: Option<u32>,
    /// A sub-device's own worker pool, started on its first launch.
    pool: OnceLock<Option<crate::executor::Pool>>,
}
api_type!(Device, Device);

/// How a device was partitioned into sub-devices (`clCreateSubDevices`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Partition {
    /// `CL_DEVICE_PARTITION_EQUALLY`: sub-devices of this many compute units.
    Equally(u32),
    /// `CL_DEVICE_PARTITION_BY_COUNTS`: one sub-device per count.
    ByCounts(Vec<u32>),
}

impl Device {
    pub(crate) fn new() -> Arc<Device> {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let field = |key: &str| {
            cpuinfo
                .lines()
                .find(|l| l.split(':').next().map(str::trim) == Some(key))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        };
        let name = field("model name").unwrap_or_else(|| std::env::consts::ARCH.to_string());
        let vendor = field("vendor_id").unwrap_or_else(|| "unknown".to_string());
        let max_clock_mhz = read_u64("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
            .map(|khz| khz / 1000)
            .or_else(|| {
                field("cpu MHz")
                    .and_then(|m| m.parse::<f64>().ok())
                    .map(|m| m as u64)
            })
            .unwrap_or(0) as u32;
        let global_mem_size = available_memory();
        // At least 1/4 of memory (the OpenCL minimum is max(1/4 of global memory, 128 MiB)).
        let max_mem_alloc_size = (global_mem_size / 4).max(128 << 20).min(global_mem_size);
        Arc::new(Device {
            api: ApiObject::new(ObjectType::Device),
            name,
            vendor,
            max_clock_mhz,
            global_mem_size,
            max_mem_alloc_size,
            global_mem_cache: largest_cache(),
            parent: None,
            partition: None,
            sub_units: None,
            pool: OnceLock::new(),
        })
    }

    /// Number of compute units: the executor's workers (a sub-device: its share).
    pub fn max_compute_units(&self) -> u32 {
        self.sub_units
            .unwrap_or_else(|| crate::executor::num_workers() as u32)
    }

    /// A sub-device of `parent` with `units` compute units (validated by the front end:
    /// at least 1 and no more than the parent has).
    pub fn new_sub(parent: &Arc<Device>, units: u32, partition: Partition) -> Arc<Device> {
        Arc::new(Device {
            api: ApiObject::new(ObjectType::Device),
            name: parent.name.clone(),
            vendor: parent.vendor.clone(),
            max_clock_mhz: parent.max_clock_mhz,
            global_mem_size: parent.global_mem_size,
            max_mem_alloc_size: parent.max_mem_alloc_size,
            global_mem_cache: parent.global_mem_cache,
            parent: Some(parent.clone()),
            partition: Some(partition),
            sub_units: Some(units),
            pool: OnceLock::new(),
        })
    }

    /// Run an NDRange on this device's workers: the global pool for the root device, a
    /// pool of `max_compute_units` threads of its own for a sub-device.
    pub fn run(
        &self,
        launch: &crate::executor::Launch<'_>,
    ) -> Result<(), crate::executor::KernelFault> {
        if self.sub_units.is_none() {
            return crate::executor::run(launch);
        }
        let pool = self
            .pool
            .get_or_init(|| crate::executor::Pool::new(self.max_compute_units() as usize));
        match pool {
            Some(p) => crate::executor::run_in(p, launch),
            // The OS refused threads: the global pool still runs the kernel.
            None => crate::executor::run(launch),
        }
    }
}

fn read_u64(path: &str) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Memory this process can get, in bytes: the least of physical memory, what its cgroup
/// still allows (v2 `memory.max` − `memory.current` up the hierarchy, or v1
/// `memory.limit_in_bytes` − `memory.usage_in_bytes`) and `MemAvailable` from
/// `/proc/meminfo`, measured once (at least 256 MiB). `CL_DEVICE_GLOBAL_MEM_SIZE` and
/// `ze_device_memory_properties_t::totalSize` report it, and buffers and USM allocations
/// beyond it in total fail with `CL_MEM_OBJECT_ALLOCATION_FAILURE` (`mem::pages`) instead
/// of the process being killed when it touches them.
pub fn available_memory() -> u64 {
    static M: OnceLock<u64> = OnceLock::new();
    *M.get_or_init(|| {
        let cgroup = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        [
            Some(physical_memory()),
            cgroup_room(&cgroup, &|p| std::fs::read_to_string(p).ok()),
            mem_available(&meminfo),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(4 << 30)
        .max(256 << 20)
    })
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// What the cgroups of `/proc/self/cgroup` (text `cgroup`) still allow, read through
/// `read` (a path → its contents); `None` when no limit applies.
fn cgroup_room(cgroup: &str, read: &dyn Fn(&str) -> Option<String>) -> Option<u64> {
    let num = |path: String| -> Option<u64> { read(&path)?.trim().parse::<u64>().ok() };
    let mut best: Option<u64> = None;
    let mut take = |limit: Option<u64>, used: Option<u64>| {
        // v1 reports "no limit" as a huge number rounded to pages.
        if let Some(limit) = limit.filter(|&l| l < 1 << 60) {
            let room = limit.saturating_sub(used.unwrap_or(0));
            best = Some(best.map_or(room, |b| b.min(room)));
        }
    };
    for line in cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(ctrl), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let path = path.trim_end_matches('/');
        if ctrl.is_empty() {
            // v2: every level from the process's cgroup up to the root may limit it.
            let mut p = path.to_string();
            loop {
                let dir = format!("/sys/fs/cgroup{p}");
                take(
                    num(format!("{dir}/memory.max")),
                    num(format!("{dir}/memory.current")),
                );
                match p.rfind('/') {
                    Some(i) if !p.is_empty() => p.truncate(i),
                    _ => break,
                }
            }
        } else if ctrl.split(',').any(|c| c == "memory") {
            // v1: the cgroup's directory, or the mount's root inside a container that
            // sees only its own cgroup.
            for dir in [
                format!("/sys/fs/cgroup/memory{path}"),
                "/sys/fs/cgroup/memory".to_string(),
            ] {
                take(
                    num(format!("{dir}/memory.limit_in_bytes")),
                    num(format!("{dir}/memory.usage_in_bytes")),
                );
            }
        }
    }
    best
}

/// Physical memory from `sysconf`, 4 GiB if unknown.
fn physical_memory() -> u64 {
    // SAFETY: sysconf only reads a system value; both names are valid on Linux.
    let (pages, page_size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    if pages > 0 && page_size > 0 {
        pages as u64 * page_size as u64
    } else {
        4 << 30
    }
}

/// The largest data or unified cache of cpu0 from sysfs (zeros if sysfs has none).
fn largest_cache() -> CacheInfo {
    let mut best = CacheInfo::default();
    for i in 0..8 {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let Ok(ty) = std::fs::read_to_string(format!("{dir}/type")) else {
            break;
        };
        if ty.trim() == "Instruction" {
            continue;
        }
        let size = std::fs::read_to_string(format!("{dir}/size"))
            .ok()
            .and_then(|s| parse_size(s.trim()))
            .unwrap_or(0);
        let line = read_u64(&format!("{dir}/coherency_line_size")).unwrap_or(64) as u32;
        if size > best.size {
            best = CacheInfo {
                size,
                line_size: line,
            };
        }
    }
    best
}

/// "32768K" → bytes.
fn parse_size(s: &str) -> Option<u64> {
    let (num, mult) = match s.as_bytes().last()? {
        b'K' => (&s[..s.len() - 1], 1024),
        b'M' => (&s[..s.len() - 1], 1024 * 1024),
        b'G' => (&s[..s.len() - 1], 1024 * 1024 * 1024),
        _ => (s, 1),
    };
    num.parse::<u64>().ok().map(|n| n * mult)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_from_meminfo_and_cgroups() {
        assert_eq!(
            mem_available("MemTotal: 100 kB\nMemAvailable:   2048 kB\n"),
            Some(2 << 20)
        );
        assert_eq!(mem_available("MemTotal: 100 kB\n"), None);
        let files = |p: &str| -> Option<String> {
            match p {
                "/sys/fs/cgroup/a/b/memory.max" => Some("max\n".into()),
                "/sys/fs/cgroup/a/memory.max" => Some("1073741824\n".into()),
                "/sys/fs/cgroup/a/memory.current" => Some("73741824\n".into()),
                "/sys/fs/cgroup/memory/x/memory.limit_in_bytes" => {
                    Some("9223372036854771712\n".into())
                }
                "/sys/fs/cgroup/memory/memory.limit_in_bytes" => Some("536870912\n".into()),
                _ => None,
            }
        };
        // v2: the parent's limit less its usage.
        assert_eq!(cgroup_room("0::/a/b\n", &files), Some(1_000_000_000));
        // v1: "unlimited" in the cgroup's directory, a limit at the mount's root.
        assert_eq!(
            cgroup_room("4:memory:/x\n1:cpu:/\n", &files),
            Some(512 << 20)
        );
        assert_eq!(cgroup_room("0::/\n", &files), None);
        let m = available_memory();
        assert!(m >= 256 << 20 && m <= physical_memory().max(256 << 20));
    }

    #[test]
    fn cache_sizes_parse() {
        assert_eq!(parse_size("48K"), Some(48 * 1024));
        assert_eq!(parse_size("32M"), Some(32 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size(""), None);
    }
}

#[cfg(test)]
mod claim_tests {
    use super::*;

    #[test]
    fn device_lists_are_the_compiler_lists() {
        let ext: Vec<&str> = EXTENSIONS.iter().map(|e| e.name).collect();
        for e in clc::OPENCL_C_EXTENSIONS {
            assert!(ext.contains(e), "{e}");
        }
        assert!(ext.contains(&"cl_khr_icd") && ext.contains(&"cl_khr_il_program"));
        assert_eq!(EXTENSIONS.len(), N_EXTENSIONS);
        let feats: Vec<&str> = OPENCL_C_FEATURES.iter().map(|e| e.name).collect();
        assert_eq!(feats, clc::OPENCL_C_FEATURES);
        const {
            assert!(ATOMIC_MEMORY_CAPABILITIES.order_seq_cst);
            assert!(ATOMIC_MEMORY_CAPABILITIES.scope_all_devices);
            assert!(WORK_GROUP_COLLECTIVE_FUNCTIONS);
            assert!(GENERIC_ADDRESS_SPACE);
            assert!(MAX_GLOBAL_VARIABLE_SIZE as u64 == ferrite_compiler::MAX_PROGRAM_SCOPE_BYTES);
        }
    }
}
