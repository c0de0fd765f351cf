//! `libferrite.so`: the C ABI over Ferrite's runtime.
//!
//! OpenCL: an ICD for the Khronos/ocl-icd loaders (`cl`). The library exports only what the
//! loader asks for — `clIcdGetPlatformIDsKHR`, `clGetExtensionFunctionAddress`,
//! `clGetExtensionFunctionAddressForPlatform` — and reaches everything else through the
//! dispatch table that starts every handle (`cl::dispatch`). Exporting `clFoo` symbols
//! would let the loader's own `clFoo` interpose on our internal calls.
//!
//! Only this crate names `cl_*` types; [`error`] is the one place that maps the runtime's
//! typed errors to `cl_int`.

mod cl;
mod error;
pub mod ze;
