//! The one platform. Created once (after the front end registered its dispatch table) and
//! never destroyed; it owns the one CPU device.

use crate::api::{api_type, ApiObject, ObjectType};
use crate::device::Device;
use std::sync::{Arc, OnceLock};

/// A name with a version, as in `cl_name_version`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameVersion {
    pub name: &'static str,
    pub version: Version,
}

/// `major.minor.patch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Version {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Version {
        Version {
            major,
            minor,
            patch,
        }
    }
}

/// The platform object.
#[repr(C)]
pub struct Platform {
    pub api: ApiObject,
    pub device: Arc<Device>,
}
api_type!(Platform, Platform);

/// Platform name (`CL_PLATFORM_NAME`).
pub const NAME: &str = "Ferrite";
/// Platform vendor (`CL_PLATFORM_VENDOR`).
pub const VENDOR: &str = "The Ferrite project";
/// `CL_PLATFORM_VERSION`: "OpenCL<space><major.minor><space><platform-specific information>".
pub const VERSION_STRING: &str = concat!("OpenCL 3.0 Ferrite ", env!("CARGO_PKG_VERSION"));
/// The OpenCL version the platform implements.
pub const API_VERSION: Version = Version::new(3, 0, 0);
/// `CL_PLATFORM_ICD_SUFFIX_KHR`.
pub const ICD_SUFFIX: &str = "FERRITE";
/// Platform extensions: those every device supports.
pub const EXTENSIONS: &[NameVersion] = crate::device::EXTENSIONS;

static PLATFORM: OnceLock<Arc<Platform>> = OnceLock::new();

impl Platform {
    /// The platform (created on first use; the front end must have registered its dispatch
    /// table before).
    pub fn get() -> &'static Arc<Platform> {
        PLATFORM.get_or_init(|| {
            Arc::new(Platform {
                api: ApiObject::new(ObjectType::Platform),
                device: Device::new(),
            })
        })
    }
}
