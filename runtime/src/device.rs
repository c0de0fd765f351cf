//! The one CPU device and what it supports today.
//!
//! Everything the front ends report about the device comes from here, so the OpenCL and
//! Level-Zero answers agree. Numbers that depend on the machine (memory, caches, clock,
//! CPU name) are read once from the system when the device is created; the number of
//! compute units is the executor's worker count.

use crate::api::{api_type, ApiObject, ObjectType};
use crate::platform::{NameVersion, Version};
use std::sync::Arc;

/// Largest work-group (product of the local sizes).
pub const MAX_WORK_GROUP_SIZE: usize = 4096;
/// Largest local size per dimension.
pub const MAX_WORK_ITEM_SIZES: [usize; 3] = [4096, 4096, 4096];
/// Local memory per work-group (a host allocation, so `CL_GLOBAL` type).
pub const LOCAL_MEM_SIZE: usize = 64 * 1024;
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

const fn v(major: u32, minor: u32, patch: u32) -> Version {
    Version::new(major, minor, patch)
}

/// Device extensions (also the platform's).
pub const EXTENSIONS: &[NameVersion] = &[
    NameVersion {
        name: "cl_khr_byte_addressable_store",
        version: v(1, 0, 0),
    },
    NameVersion {
        name: "cl_khr_fp64",
        version: v(1, 0, 0),
    },
    NameVersion {
        name: "cl_khr_il_program",
        version: v(1, 0, 0),
    },
    NameVersion {
        name: "cl_khr_icd",
        version: v(1, 0, 0),
    },
];

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

/// Optional OpenCL C 3.0 features supported.
pub const OPENCL_C_FEATURES: &[NameVersion] = &[
    NameVersion {
        name: "__opencl_c_fp64",
        version: v(3, 0, 0),
    },
    NameVersion {
        name: "__opencl_c_int64",
        version: v(3, 0, 0),
    },
];

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
    /// Physical memory in bytes.
    pub global_mem_size: u64,
    /// Largest single allocation.
    pub max_mem_alloc_size: u64,
    /// The largest data/unified cache (the one shared by the cores).
    pub global_mem_cache: CacheInfo,
}
api_type!(Device, Device);

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
        let global_mem_size = physical_memory();
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
        })
    }

    /// Number of compute units: the executor's workers.
    pub fn max_compute_units(&self) -> u32 {
        crate::executor::num_workers() as u32
    }
}

fn read_u64(path: &str) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
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
    fn cache_sizes_parse() {
        assert_eq!(parse_size("48K"), Some(48 * 1024));
        assert_eq!(parse_size("32M"), Some(32 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size(""), None);
    }
}
