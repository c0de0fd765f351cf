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

/// The allocator of the driver's own Rust allocations (commands, events, launch snapshots,
/// the compiler's IR); the host application's `malloc` is untouched. glibc's `malloc` made
/// every enqueue wait on a lock: the application's thread allocates a command and the
/// queue's thread frees it, and a free goes back to the arena it came from under that
/// arena's lock (measured: 28 % of `launch/enqueue-100x1000` in futex waits and wakes).
/// mimalloc frees another thread's blocks without a lock. `local_dynamic_tls`: the library
/// is loaded with `dlopen`, where the initial-exec TLS model is not guaranteed to fit.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
