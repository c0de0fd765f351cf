//! Helpers for Ferrite's API tests.
//!
//! Every test in this crate is a plain OpenCL program: it calls the C API through the system
//! ICD loader (`libOpenCL.so` from ocl-icd, linked by `opencl-sys`), exactly as an application
//! does. Nothing here links Ferrite's crates, so the same tests can be run against any OpenCL
//! 3.0 driver (PoCL is used to validate them):
//!
//! - `OCL_ICD_VENDORS` set: the loader uses it as it is.
//! - `OCL_ICD_VENDORS` unset: [`init_loader`] writes `ferrite.icd` (one line, the absolute path
//!   of `libferrite.so`: `FERRITE_LIB`, else `$CARGO_TARGET_DIR/debug/libferrite.so`, else the
//!   one beside the test binary's profile directory, else `<workspace>/target/debug/`) into
//!   `<target>/<profile>/ferrite-test-vendors/` and points `OCL_ICD_VENDORS` at it before the
//!   first OpenCL call (ocl-icd reads the variable once, at first use).
//! - `FERRITE_TESTS_PLATFORM` names the platform to test (default `Ferrite`; `first` takes the
//!   first platform the loader lists).
//! - `FERRITE_TESTS_ALLOW_SKIP=1` lets a test skip a feature the device does not claim (SPIR-V
//!   input, non-uniform work-groups, fp64); without it such a test fails, because Ferrite must
//!   support all of them.
//!
//! The helpers panic with the OpenCL error name on any unexpected error, so each test reads as
//! the program it checks. Handle wrappers release their object on `Drop`.

#![expect(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "the helpers pass opaque OpenCL handles to the driver, which validates them; testing               invalid handles is the point"
)]

use std::ffi::{c_void, CString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Once, OnceLock};

pub use opencl_sys::*;

pub mod checked;
mod errors;
pub use errors::error_name;

// ---------------------------------------------------------------------------------------------
// Loader set-up and platform selection
// ---------------------------------------------------------------------------------------------

static LOADER: Once = Once::new();

/// Where `libferrite.so` is expected when `FERRITE_LIB` is not set.
fn default_ferrite_lib() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir).join("debug").join("libferrite.so");
    }
    // A test binary lives in `<target>/<profile>/deps/`: the library sits in `<profile>/`.
    if let Ok(exe) = std::env::current_exe() {
        if let Some(profile) = exe.parent().and_then(Path::parent) {
            let lib = profile.join("libferrite.so");
            if lib.exists() {
                return lib;
            }
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("target")
        .join("debug")
        .join("libferrite.so")
}

/// Where the tests write their `ferrite.icd`: `<target>/<profile>/ferrite-test-vendors`, next
/// to the test binaries (never beside the library, which may be a system directory).
fn vendors_dir() -> PathBuf {
    if let Ok(exe) = std::env::current_exe() {
        if let Some(profile) = exe.parent().and_then(Path::parent) {
            return profile.join("ferrite-test-vendors");
        }
    }
    std::env::temp_dir().join(format!("ferrite-test-vendors-{}", std::process::id()))
}

/// Makes the loader find Ferrite unless `OCL_ICD_VENDORS` already says where to look.
/// Called by every helper before its first OpenCL call; idempotent.
pub fn init_loader() {
    LOADER.call_once(|| {
        if std::env::var_os("OCL_ICD_VENDORS").is_some() {
            return;
        }
        let lib = std::env::var_os("FERRITE_LIB")
            .map(PathBuf::from)
            .unwrap_or_else(default_ferrite_lib);
        let lib = std::fs::canonicalize(&lib).unwrap_or(lib);
        if !lib.exists() {
            eprintln!(
                "warning: {} does not exist: build it with `cargo build -p ferrite-icd` or set \
                 FERRITE_LIB / OCL_ICD_VENDORS",
                lib.display()
            );
        }
        let dir = vendors_dir();
        std::fs::create_dir_all(&dir).expect("create the test vendors directory");
        std::fs::write(dir.join("ferrite.icd"), format!("{}\n", lib.display()))
            .expect("write ferrite.icd");
        // Edition 2021: `set_var` is safe to call; it runs inside the `Once`, before any
        // OpenCL call of this process, so the loader sees it at initialisation.
        std::env::set_var("OCL_ICD_VENDORS", &dir);
    });
}

/// Whether a test may skip a feature the device does not claim (`FERRITE_TESTS_ALLOW_SKIP=1`).
pub fn skip_allowed() -> bool {
    std::env::var("FERRITE_TESTS_ALLOW_SKIP").is_ok_and(|v| v == "1")
}

/// `true` when `supported`; otherwise prints a skip message and returns `false` if skipping is
/// allowed, or fails the test. Use as `if !require(cond, "why") { return; }`.
#[track_caller]
pub fn require(supported: bool, what: &str) -> bool {
    if supported {
        return true;
    }
    if skip_allowed() {
        eprintln!("SKIP: {what} (FERRITE_TESTS_ALLOW_SKIP=1)");
        false
    } else {
        panic!("{what}; this test needs it (set FERRITE_TESTS_ALLOW_SKIP=1 to skip on drivers other than Ferrite)");
    }
}

/// Whether the platform under test is Ferrite.
pub fn is_ferrite() -> bool {
    platform_string(dev().platform, CL_PLATFORM_NAME) == "Ferrite"
}

/// Guard for the tests that pass handles of the wrong type: the loader forwards them to the
/// driver, which must recognise them (Ferrite tags every object). Other drivers (PoCL) may
/// crash, so on them these checks run only when skipping is not allowed.
#[track_caller]
pub fn require_handle_validation() -> bool {
    require(
        is_ferrite(),
        "only Ferrite promises to reject handles of the wrong type (PoCL dereferences them)",
    )
}

/// Whether to run checks that are known to crash or corrupt another driver (PoCL): always on
/// Ferrite, and on other drivers unless skipping is allowed.
pub fn strict() -> bool {
    is_ferrite() || !skip_allowed()
}

/// A check where another driver is known to deviate from the specification: on Ferrite (or
/// when skipping is not allowed) it fails the test; on another driver with
/// `FERRITE_TESTS_ALLOW_SKIP=1` it prints `DEVIATION:` and lets the test go on.
#[track_caller]
pub fn spec_check(ok: bool, what: &str) {
    if ok {
        return;
    }
    if skip_allowed() && !is_ferrite() {
        eprintln!("DEVIATION: {what}");
    } else {
        panic!("{what}");
    }
}

/// [`expect_code`] through [`spec_check`].
#[track_caller]
pub fn spec_code(got: cl_int, expected: cl_int, what: &str) {
    spec_check(
        got == expected,
        &format!(
            "{what}: expected {} ({expected}), got {} ({got})",
            error_name(expected),
            error_name(got)
        ),
    );
}

/// The platform and device under test.
#[derive(Clone, Copy, Debug)]
pub struct Dev {
    pub platform: cl_platform_id,
    pub device: cl_device_id,
}

// SAFETY: platform and device ids are process-wide handles that OpenCL allows every host
// thread to use; the root device is never released.
unsafe impl Send for Dev {}
// SAFETY: as above; `Dev` holds only the two handles and never mutates them.
unsafe impl Sync for Dev {}

/// All platforms the loader reports.
pub fn platforms() -> Vec<cl_platform_id> {
    init_loader();
    let mut n = 0;
    // SAFETY: size-only query, `n` is a valid out-pointer.
    let rc = unsafe { clGetPlatformIDs(0, ptr::null_mut(), &mut n) };
    if rc == CL_PLATFORM_NOT_FOUND_KHR || n == 0 {
        return Vec::new();
    }
    check(rc, "clGetPlatformIDs");
    let mut ids = vec![ptr::null_mut(); n as usize];
    // SAFETY: `ids` has room for `n` handles.
    check(
        unsafe { clGetPlatformIDs(n, ids.as_mut_ptr(), ptr::null_mut()) },
        "clGetPlatformIDs",
    );
    ids
}

/// The name `FERRITE_TESTS_PLATFORM` asks for (default `Ferrite`).
pub fn wanted_platform_name() -> String {
    std::env::var("FERRITE_TESTS_PLATFORM").unwrap_or_else(|_| "Ferrite".to_string())
}

/// The platform and device under test, looked up once.
pub fn dev() -> Dev {
    static DEV: OnceLock<Dev> = OnceLock::new();
    *DEV.get_or_init(|| {
        let wanted = wanted_platform_name();
        let all = platforms();
        let names: Vec<String> = all
            .iter()
            .map(|&p| platform_string(p, CL_PLATFORM_NAME))
            .collect();
        let index = if wanted == "first" {
            (!all.is_empty()).then_some(0)
        } else {
            names.iter().position(|n| n == &wanted)
        };
        let Some(index) = index else {
            panic!(
                "no OpenCL platform named {wanted:?} (found {names:?}; OCL_ICD_VENDORS={:?}). \
                 Build the driver with `cargo build -p ferrite-icd`, or set \
                 FERRITE_TESTS_PLATFORM to test another driver",
                std::env::var_os("OCL_ICD_VENDORS")
            )
        };
        let platform = all[index];
        let devices = device_ids(platform, CL_DEVICE_TYPE_ALL).expect("clGetDeviceIDs(ALL)");
        Dev {
            platform,
            device: devices[0],
        }
    })
}

/// `clGetDeviceIDs` as a vector, or the error code.
pub fn device_ids(
    platform: cl_platform_id,
    ty: cl_device_type,
) -> Result<Vec<cl_device_id>, cl_int> {
    let mut n = 0;
    // SAFETY: size-only query with a valid out-pointer.
    let rc = unsafe { clGetDeviceIDs(platform, ty, 0, ptr::null_mut(), &mut n) };
    if rc != CL_SUCCESS {
        return Err(rc);
    }
    let mut ids = vec![ptr::null_mut(); n as usize];
    // SAFETY: `ids` has room for `n` handles.
    let rc = unsafe { clGetDeviceIDs(platform, ty, n, ids.as_mut_ptr(), ptr::null_mut()) };
    if rc != CL_SUCCESS {
        return Err(rc);
    }
    Ok(ids)
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// Panics with the error's name unless `code` is `CL_SUCCESS`.
#[track_caller]
pub fn check(code: cl_int, what: &str) {
    if code != CL_SUCCESS {
        panic!("{what} failed with {} ({code})", error_name(code));
    }
}

/// Asserts that an API call returned exactly `expected`.
#[track_caller]
pub fn expect_code(got: cl_int, expected: cl_int, what: &str) {
    assert!(
        got == expected,
        "{what}: expected {} ({expected}), got {} ({got})",
        error_name(expected),
        error_name(got)
    );
}

/// Asserts that a `clCreate*` call failed with `expected` and returned NULL.
#[track_caller]
pub fn expect_create_err<T>(handle: *mut T, got: cl_int, expected: cl_int, what: &str) {
    expect_code(got, expected, what);
    assert!(
        handle.is_null(),
        "{what}: failed call returned a non-NULL handle"
    );
}

// ---------------------------------------------------------------------------------------------
// Info queries
// ---------------------------------------------------------------------------------------------

/// Runs a `clGet*Info`-style query twice, size-only first and then for the value, checking that
/// both calls agree on the size. `f(size, value, size_ret)` makes the call.
pub fn query(
    mut f: impl FnMut(usize, *mut c_void, *mut usize) -> cl_int,
) -> Result<Vec<u8>, cl_int> {
    let mut size = usize::MAX;
    let rc = f(0, ptr::null_mut(), &mut size);
    if rc != CL_SUCCESS {
        return Err(rc);
    }
    assert_ne!(
        size,
        usize::MAX,
        "size-only query did not set param_value_size_ret"
    );
    // Over-allocate so a driver writing past `size` is caught by the comparison below.
    let mut buf = vec![0xA5u8; size + 8];
    let mut size2 = usize::MAX;
    let rc = f(size, buf.as_mut_ptr().cast(), &mut size2);
    if rc != CL_SUCCESS {
        return Err(rc);
    }
    assert_eq!(
        size, size2,
        "size-only query and value query disagree on the size"
    );
    assert!(
        buf[size..].iter().all(|&b| b == 0xA5),
        "the driver wrote past param_value_size"
    );
    buf.truncate(size);
    Ok(buf)
}

/// Decodes a fixed-size value, checking the size the driver returned.
#[track_caller]
pub fn pod<T: Copy>(bytes: &[u8]) -> T {
    assert_eq!(
        bytes.len(),
        std::mem::size_of::<T>(),
        "info value has the wrong size for {}",
        std::any::type_name::<T>()
    );
    // SAFETY: the length was checked just above; callers use plain integer/handle types for
    // which every bit pattern is valid; `read_unaligned` needs no alignment.
    unsafe { ptr::read_unaligned(bytes.as_ptr().cast::<T>()) }
}

/// Decodes an array of fixed-size values.
#[track_caller]
pub fn pod_vec<T: Copy>(bytes: &[u8]) -> Vec<T> {
    let n = std::mem::size_of::<T>();
    assert_eq!(
        bytes.len() % n,
        0,
        "info array size is not a multiple of {n}"
    );
    bytes.chunks_exact(n).map(pod::<T>).collect()
}

/// Decodes a NUL-terminated string, checking the terminator.
#[track_caller]
pub fn string(bytes: &[u8]) -> String {
    assert!(
        !bytes.is_empty(),
        "string info has size 0 (must include the NUL)"
    );
    assert_eq!(
        bytes[bytes.len() - 1],
        0,
        "string info is not NUL-terminated"
    );
    let body = &bytes[..bytes.len() - 1];
    assert!(!body.contains(&0), "string info has an embedded NUL");
    String::from_utf8(body.to_vec()).expect("string info is not UTF-8")
}

macro_rules! info_fn {
    ($(#[$m:meta])* $name:ident, $f:ident, ($($arg:ident: $ty:ty),*), $param:ty) => {
        $(#[$m])*
        pub fn $name($($arg: $ty,)* param: $param) -> Result<Vec<u8>, cl_int> {
            query(|size, value, ret| {
                // SAFETY: `query` passes a buffer of `size` bytes (or NULL with size 0) and a
                // valid `size_ret`; the handles are passed through as the test chose them.
                unsafe { $f($($arg,)* param, size, value, ret) }
            })
        }
    };
}

info_fn!(
    /// `clGetPlatformInfo`.
    platform_info, clGetPlatformInfo, (p: cl_platform_id), cl_platform_info);
info_fn!(
    /// `clGetDeviceInfo`.
    device_info, clGetDeviceInfo, (d: cl_device_id), cl_device_info);
info_fn!(
    /// `clGetContextInfo`.
    context_info, clGetContextInfo, (c: cl_context), cl_context_info);
info_fn!(
    /// `clGetCommandQueueInfo`.
    queue_info, clGetCommandQueueInfo, (q: cl_command_queue), cl_command_queue_info);
info_fn!(
    /// `clGetMemObjectInfo`.
    mem_info, clGetMemObjectInfo, (m: cl_mem), cl_mem_info);
info_fn!(
    /// `clGetProgramInfo`.
    program_info, clGetProgramInfo, (p: cl_program), cl_program_info);
info_fn!(
    /// `clGetProgramBuildInfo`.
    build_info, clGetProgramBuildInfo, (p: cl_program, d: cl_device_id), cl_program_build_info);
info_fn!(
    /// `clGetKernelInfo`.
    kernel_info, clGetKernelInfo, (k: cl_kernel), cl_kernel_info);
info_fn!(
    /// `clGetKernelWorkGroupInfo`.
    kernel_wg_info, clGetKernelWorkGroupInfo, (k: cl_kernel, d: cl_device_id), cl_kernel_work_group_info);
info_fn!(
    /// `clGetKernelArgInfo`.
    kernel_arg_info, clGetKernelArgInfo, (k: cl_kernel, i: cl_uint), cl_kernel_arg_info);
info_fn!(
    /// `clGetEventInfo`.
    event_info, clGetEventInfo, (e: cl_event), cl_event_info);
info_fn!(
    /// `clGetEventProfilingInfo`.
    profiling_info, clGetEventProfilingInfo, (e: cl_event), cl_profiling_info);

/// A string platform query that must succeed.
#[track_caller]
pub fn platform_string(p: cl_platform_id, param: cl_platform_info) -> String {
    string(
        &platform_info(p, param)
            .unwrap_or_else(|e| panic!("clGetPlatformInfo({param:#x}): {}", error_name(e))),
    )
}

/// A string device query that must succeed.
#[track_caller]
pub fn device_string(param: cl_device_info) -> String {
    string(
        &device_info(dev().device, param)
            .unwrap_or_else(|e| panic!("clGetDeviceInfo({param:#x}): {}", error_name(e))),
    )
}

/// A fixed-size device query that must succeed.
#[track_caller]
pub fn device_get<T: Copy>(param: cl_device_info) -> T {
    pod(&device_info(dev().device, param)
        .unwrap_or_else(|e| panic!("clGetDeviceInfo({param:#x}): {}", error_name(e))))
}

/// Whether the device accepts SPIR-V (`CL_DEVICE_IL_VERSION` not empty).
pub fn device_has_il() -> bool {
    device_info(dev().device, CL_DEVICE_IL_VERSION).is_ok_and(|b| !string(&b).trim().is_empty())
}

/// Whether the device supports non-uniform work-groups.
pub fn device_has_non_uniform_wg() -> bool {
    device_info(dev().device, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT)
        .is_ok_and(|b| pod::<cl_bool>(&b) == CL_TRUE)
}

/// Whether the device supports double precision.
pub fn device_has_fp64() -> bool {
    device_info(dev().device, CL_DEVICE_DOUBLE_FP_CONFIG).is_ok_and(|b| pod::<cl_ulong>(&b) != 0)
}

// ---------------------------------------------------------------------------------------------
// Handle wrappers
// ---------------------------------------------------------------------------------------------

macro_rules! handle {
    ($(#[$m:meta])* $name:ident, $raw:ty, $release:ident) => {
        $(#[$m])*
        #[derive(Debug)]
        pub struct $name(pub $raw);

        impl $name {
            /// The raw handle, still owned by `self`.
            pub fn raw(&self) -> $raw {
                self.0
            }

            /// Gives up ownership: the caller must release the handle.
            pub fn into_raw(self) -> $raw {
                let raw = self.0;
                std::mem::forget(self);
                raw
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                // SAFETY: `self` owns one reference to a live handle.
                let rc = unsafe { $release(self.0) };
                if rc != CL_SUCCESS && !std::thread::panicking() {
                    panic!("{} failed with {}", stringify!($release), error_name(rc));
                }
            }
        }

        // SAFETY: OpenCL objects are reference-counted and thread-safe (OpenCL 3.0 appendix A.2:
        // all API calls are thread-safe except clSetKernelArg/clSetKernelExecInfo on one
        // kernel, which the tests never share between threads while setting arguments).
        unsafe impl Send for $name {}
        // SAFETY: as above.
        unsafe impl Sync for $name {}
    };
}

handle!(
    /// An owned `cl_context`.
    Context, cl_context, clReleaseContext);
handle!(
    /// An owned `cl_command_queue`.
    Queue, cl_command_queue, clReleaseCommandQueue);
handle!(
    /// An owned `cl_mem`.
    Buffer, cl_mem, clReleaseMemObject);
handle!(
    /// An owned `cl_program`.
    Program, cl_program, clReleaseProgram);
handle!(
    /// An owned `cl_kernel`.
    Kernel, cl_kernel, clReleaseKernel);
handle!(
    /// An owned `cl_event`.
    Event, cl_event, clReleaseEvent);

impl Context {
    /// A context on the device under test.
    #[track_caller]
    pub fn new() -> Context {
        let d = dev();
        let props = [
            CL_CONTEXT_PLATFORM as cl_context_properties,
            d.platform as cl_context_properties,
            0,
        ];
        let mut rc = 0;
        // SAFETY: a 0-terminated property list and one valid device.
        let ctx = unsafe {
            clCreateContext(props.as_ptr(), 1, &d.device, None, ptr::null_mut(), &mut rc)
        };
        check(rc, "clCreateContext");
        assert!(
            !ctx.is_null(),
            "clCreateContext returned NULL with CL_SUCCESS"
        );
        Context(ctx)
    }
}

impl Default for Context {
    fn default() -> Self {
        Context::new()
    }
}

impl Queue {
    /// An in-order queue with the given `cl_queue_properties` bitfield (0 for none).
    #[track_caller]
    pub fn new(ctx: &Context, properties: cl_command_queue_properties) -> Queue {
        Queue::try_new(ctx, properties)
            .unwrap_or_else(|e| panic!("clCreateCommandQueueWithProperties: {}", error_name(e)))
    }

    /// `clCreateCommandQueueWithProperties` with `CL_QUEUE_PROPERTIES = properties`.
    pub fn try_new(
        ctx: &Context,
        properties: cl_command_queue_properties,
    ) -> Result<Queue, cl_int> {
        let props = [CL_QUEUE_PROPERTIES as cl_queue_properties, properties, 0];
        let mut rc = 0;
        // SAFETY: a 0-terminated property list, a live context and its device.
        let q = unsafe {
            clCreateCommandQueueWithProperties(ctx.0, dev().device, props.as_ptr(), &mut rc)
        };
        if rc != CL_SUCCESS {
            return Err(rc);
        }
        Ok(Queue(q))
    }

    /// `clFinish`.
    #[track_caller]
    pub fn finish(&self) {
        // SAFETY: a live queue.
        check(unsafe { clFinish(self.0) }, "clFinish");
    }

    /// `clFlush`.
    #[track_caller]
    pub fn flush(&self) {
        // SAFETY: a live queue.
        check(unsafe { clFlush(self.0) }, "clFlush");
    }
}

/// Reinterprets a slice of plain values as bytes.
pub fn as_bytes<T: Copy>(data: &[T]) -> &[u8] {
    // SAFETY: any initialised `T: Copy` memory may be viewed as bytes for its full size; the
    // tests use integer/float/`repr(C)` types without padding-sensitive reads.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast(), std::mem::size_of_val(data)) }
}

impl Buffer {
    /// `clCreateBuffer`, returning the error code on failure.
    pub fn try_new(
        ctx: &Context,
        flags: cl_mem_flags,
        size: usize,
        host_ptr: *mut c_void,
    ) -> Result<Buffer, cl_int> {
        let mut rc = 0;
        // SAFETY: a live context; `host_ptr` is NULL or, per the caller, valid for `size` bytes.
        let m = unsafe { clCreateBuffer(ctx.0, flags, size, host_ptr, &mut rc) };
        if rc != CL_SUCCESS {
            assert!(m.is_null(), "clCreateBuffer failed but returned a handle");
            return Err(rc);
        }
        Ok(Buffer(m))
    }

    /// An uninitialised buffer of `size` bytes.
    #[track_caller]
    pub fn new(ctx: &Context, flags: cl_mem_flags, size: usize) -> Buffer {
        Buffer::try_new(ctx, flags, size, ptr::null_mut())
            .unwrap_or_else(|e| panic!("clCreateBuffer: {}", error_name(e)))
    }

    /// A buffer initialised from `data` (`CL_MEM_COPY_HOST_PTR`).
    #[track_caller]
    pub fn from_slice<T: Copy>(ctx: &Context, flags: cl_mem_flags, data: &[T]) -> Buffer {
        let size = std::mem::size_of_val(data);
        Buffer::try_new(
            ctx,
            flags | CL_MEM_COPY_HOST_PTR,
            size,
            data.as_ptr() as *mut c_void,
        )
        .unwrap_or_else(|e| panic!("clCreateBuffer(COPY_HOST_PTR): {}", error_name(e)))
    }

    /// Blocking read of `n` elements from the start of the buffer.
    #[track_caller]
    pub fn read<T: Copy + Default>(&self, q: &Queue, n: usize) -> Vec<T> {
        let mut out = vec![T::default(); n];
        // SAFETY: `out` has room for `n` elements; the read is blocking.
        let rc = unsafe {
            clEnqueueReadBuffer(
                q.0,
                self.0,
                CL_TRUE,
                0,
                std::mem::size_of_val(&out[..]),
                out.as_mut_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        check(rc, "clEnqueueReadBuffer");
        out
    }

    /// Blocking write of `data` at byte `offset`.
    #[track_caller]
    pub fn write<T: Copy>(&self, q: &Queue, offset: usize, data: &[T]) {
        // SAFETY: `data` is valid for its size; the write is blocking.
        let rc = unsafe {
            clEnqueueWriteBuffer(
                q.0,
                self.0,
                CL_TRUE,
                offset,
                std::mem::size_of_val(data),
                data.as_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        check(rc, "clEnqueueWriteBuffer");
    }

    /// The API reference count (`CL_MEM_REFERENCE_COUNT`).
    #[track_caller]
    pub fn ref_count(&self) -> cl_uint {
        pod(&mem_info(self.0, CL_MEM_REFERENCE_COUNT).expect("CL_MEM_REFERENCE_COUNT"))
    }
}

static TEMP_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fresh, empty temporary directory unique to this process and call.
pub fn temp_dir(tag: &str) -> PathBuf {
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("ferrite-tests-{}-{tag}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Compiles OpenCL C to SPIR-V the way Ferrite's documentation does it: `clang-15 -c -target
/// spir64 -cl-std=CL3.0 -O2 -emit-llvm` then `llvm-spirv-15` (`FERRITE_CLANG` /
/// `FERRITE_LLVM_SPIRV` override the tools).
#[track_caller]
pub fn compile_to_spirv(src: &str) -> Vec<u8> {
    let dir = temp_dir("spirv");
    let cl = dir.join("k.cl");
    let bc = dir.join("k.bc");
    let spv = dir.join("k.spv");
    std::fs::write(&cl, src).expect("write k.cl");
    let clang = std::env::var("FERRITE_CLANG").unwrap_or_else(|_| "clang-15".into());
    let llvm_spirv = std::env::var("FERRITE_LLVM_SPIRV").unwrap_or_else(|_| "llvm-spirv-15".into());
    let out = Command::new(&clang)
        .args([
            "-c",
            "-target",
            "spir64",
            "-cl-std=CL3.0",
            "-O2",
            "-emit-llvm",
            "-o",
        ])
        .arg(&bc)
        .arg(&cl)
        .output()
        .unwrap_or_else(|e| panic!("running {clang}: {e} (install it with scripts/setup-debian)"));
    assert!(
        out.status.success(),
        "{clang} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&llvm_spirv)
        .arg("--spirv-ext=+SPV_INTEL_arbitrary_precision_integers")
        .arg(&bc)
        .arg("-o")
        .arg(&spv)
        .output()
        .unwrap_or_else(|e| {
            panic!("running {llvm_spirv}: {e} (install it with scripts/setup-debian)")
        });
    assert!(
        out.status.success(),
        "{llvm_spirv} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&spv).expect("read k.spv");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        &bytes[..4],
        &[0x03, 0x02, 0x23, 0x07],
        "not a SPIR-V module"
    );
    bytes
}

impl Program {
    /// `clCreateProgramWithSource`, not yet built.
    #[track_caller]
    pub fn from_source(ctx: &Context, src: &str) -> Program {
        let c = CString::new(src).expect("source has a NUL");
        let p = c.as_ptr();
        let mut rc = 0;
        // SAFETY: one NUL-terminated string (lengths NULL).
        let prog = unsafe { clCreateProgramWithSource(ctx.0, 1, &p, ptr::null(), &mut rc) };
        check(rc, "clCreateProgramWithSource");
        Program(prog)
    }

    /// `clCreateProgramWithIL`, not yet built.
    pub fn from_il(ctx: &Context, il: &[u8]) -> Result<Program, cl_int> {
        let mut rc = 0;
        // SAFETY: `il` is valid for its length.
        let prog = unsafe { clCreateProgramWithIL(ctx.0, il.as_ptr().cast(), il.len(), &mut rc) };
        if rc != CL_SUCCESS {
            return Err(rc);
        }
        Ok(Program(prog))
    }

    /// `clBuildProgram` for the device under test; on failure the code and the build log.
    pub fn build(&self, options: &str) -> Result<(), (cl_int, String)> {
        let opts = CString::new(options).expect("options have a NUL");
        let d = dev().device;
        // SAFETY: a live program, one device, NUL-terminated options, no callback.
        let rc = unsafe { clBuildProgram(self.0, 1, &d, opts.as_ptr(), None, ptr::null_mut()) };
        if rc != CL_SUCCESS {
            return Err((rc, self.build_log()));
        }
        Ok(())
    }

    /// `CL_PROGRAM_BUILD_LOG` (empty if the query fails).
    pub fn build_log(&self) -> String {
        build_info(self.0, dev().device, CL_PROGRAM_BUILD_LOG)
            .map(|b| {
                String::from_utf8_lossy(&b)
                    .trim_end_matches('\0')
                    .to_string()
            })
            .unwrap_or_default()
    }

    /// `clCreateKernel`, returning the error code on failure.
    pub fn try_kernel(&self, name: &str) -> Result<Kernel, cl_int> {
        let n = CString::new(name).expect("name has a NUL");
        let mut rc = 0;
        // SAFETY: a live program and a NUL-terminated name.
        let k = unsafe { clCreateKernel(self.0, n.as_ptr(), &mut rc) };
        if rc != CL_SUCCESS {
            assert!(k.is_null(), "clCreateKernel failed but returned a handle");
            return Err(rc);
        }
        Ok(Kernel(k))
    }

    /// `clCreateKernel` that must succeed.
    #[track_caller]
    pub fn kernel(&self, name: &str) -> Kernel {
        self.try_kernel(name)
            .unwrap_or_else(|e| panic!("clCreateKernel({name}): {}", error_name(e)))
    }
}

/// Creates a program from source and builds it: the program, or the error code and build log.
pub fn build_source(ctx: &Context, src: &str, options: &str) -> Result<Program, (cl_int, String)> {
    let p = Program::from_source(ctx, src);
    p.build(options)?;
    Ok(p)
}

/// [`build_source`] that must succeed (the build log is printed on failure).
#[track_caller]
pub fn build(ctx: &Context, src: &str, options: &str) -> Program {
    build_source(ctx, src, options)
        .unwrap_or_else(|(rc, log)| panic!("clBuildProgram failed with {}:\n{log}", error_name(rc)))
}

impl Kernel {
    /// `clSetKernelArg` with raw size and pointer: the returned code.
    pub fn set_arg_raw(&self, index: cl_uint, size: usize, value: *const c_void) -> cl_int {
        // SAFETY: `value` is NULL or valid for `size` bytes, per the caller.
        unsafe { clSetKernelArg(self.0, index, size, value) }
    }

    /// Sets a by-value argument (scalar, vector, struct).
    #[track_caller]
    pub fn arg<T: Copy>(&self, index: cl_uint, value: &T) -> &Self {
        let rc = self.set_arg_raw(index, std::mem::size_of::<T>(), (value as *const T).cast());
        check(rc, &format!("clSetKernelArg({index})"));
        self
    }

    /// Sets a buffer argument.
    #[track_caller]
    pub fn buf(&self, index: cl_uint, b: &Buffer) -> &Self {
        self.arg(index, &b.0)
    }

    /// Sets a `__local` pointer argument of `size` bytes.
    #[track_caller]
    pub fn local(&self, index: cl_uint, size: usize) -> &Self {
        check(
            self.set_arg_raw(index, size, ptr::null()),
            &format!("clSetKernelArg({index}, local)"),
        );
        self
    }
}

/// The address `clGetExtensionFunctionAddressForPlatform` gives for `name` on the platform
/// under test; panics if there is none.
pub fn extension_function(name: &str) -> *mut c_void {
    let c = CString::new(name).expect("no NUL");
    // SAFETY: a valid platform and a NUL-terminated name.
    let f = unsafe { clGetExtensionFunctionAddressForPlatform(dev().platform, c.as_ptr()) };
    assert!(!f.is_null(), "{name} is not reachable");
    f
}

/// An API list argument: NULL for an empty list, else its first element.
pub fn list_ptr<T>(list: &[T]) -> *const T {
    if list.is_empty() {
        ptr::null()
    } else {
        list.as_ptr()
    }
}

/// `clEnqueueNDRangeKernel` with `work_dim = global.len()`: the event, or the error code.
pub fn enqueue_nd(
    q: &Queue,
    k: &Kernel,
    offset: Option<&[usize]>,
    global: &[usize],
    local: Option<&[usize]>,
) -> Result<Event, cl_int> {
    if let Some(o) = offset {
        assert_eq!(o.len(), global.len());
    }
    if let Some(l) = local {
        assert_eq!(l.len(), global.len());
    }
    let mut ev = ptr::null_mut();
    // SAFETY: the arrays hold `work_dim` values each (checked above) or are NULL.
    let rc = unsafe {
        clEnqueueNDRangeKernel(
            q.0,
            k.0,
            global.len() as cl_uint,
            offset.map_or(ptr::null(), <[usize]>::as_ptr),
            global.as_ptr(),
            local.map_or(ptr::null(), <[usize]>::as_ptr),
            0,
            ptr::null(),
            &mut ev,
        )
    };
    if rc != CL_SUCCESS {
        return Err(rc);
    }
    Ok(Event(ev))
}

/// Runs a kernel over a 1-D range and waits for it.
#[track_caller]
pub fn run_1d(q: &Queue, k: &Kernel, global: usize, local: Option<usize>) {
    let l = local.map(|l| [l]);
    run_nd(q, k, None, &[global], l.as_ref().map(|l| &l[..]));
}

/// Runs a kernel over a 2-D range and waits for it.
#[track_caller]
pub fn run_2d(
    q: &Queue,
    k: &Kernel,
    offset: Option<[usize; 2]>,
    global: [usize; 2],
    local: Option<[usize; 2]>,
) {
    run_nd(
        q,
        k,
        offset.as_ref().map(|o| &o[..]),
        &global,
        local.as_ref().map(|l| &l[..]),
    );
}

/// Runs a kernel over a 3-D range and waits for it.
#[track_caller]
pub fn run_3d(
    q: &Queue,
    k: &Kernel,
    offset: Option<[usize; 3]>,
    global: [usize; 3],
    local: Option<[usize; 3]>,
) {
    run_nd(
        q,
        k,
        offset.as_ref().map(|o| &o[..]),
        &global,
        local.as_ref().map(|l| &l[..]),
    );
}

/// Enqueues a kernel, waits for its event and checks that it completed.
#[track_caller]
pub fn run_nd(
    q: &Queue,
    k: &Kernel,
    offset: Option<&[usize]>,
    global: &[usize],
    local: Option<&[usize]>,
) {
    let ev = enqueue_nd(q, k, offset, global, local)
        .unwrap_or_else(|e| panic!("clEnqueueNDRangeKernel: {}", error_name(e)));
    ev.wait();
    assert_eq!(ev.status(), CL_COMPLETE, "kernel event did not complete");
}

impl Event {
    /// `clWaitForEvents` on this event alone.
    #[track_caller]
    pub fn wait(&self) {
        // SAFETY: one live event.
        check(unsafe { clWaitForEvents(1, &self.0) }, "clWaitForEvents");
    }

    /// `CL_EVENT_COMMAND_EXECUTION_STATUS`.
    #[track_caller]
    pub fn status(&self) -> cl_int {
        pod(&event_info(self.0, CL_EVENT_COMMAND_EXECUTION_STATUS)
            .expect("CL_EVENT_COMMAND_EXECUTION_STATUS"))
    }

    /// `CL_EVENT_COMMAND_TYPE`.
    #[track_caller]
    pub fn command_type(&self) -> cl_command_type {
        pod(&event_info(self.0, CL_EVENT_COMMAND_TYPE).expect("CL_EVENT_COMMAND_TYPE"))
    }

    /// A new user event.
    #[track_caller]
    pub fn user(ctx: &Context) -> Event {
        let mut rc = 0;
        // SAFETY: a live context.
        let e = unsafe { clCreateUserEvent(ctx.0, &mut rc) };
        check(rc, "clCreateUserEvent");
        Event(e)
    }

    /// `clSetUserEventStatus`.
    #[track_caller]
    pub fn set_status(&self, status: cl_int) {
        // SAFETY: a live user event.
        check(
            unsafe { clSetUserEventStatus(self.0, status) },
            "clSetUserEventStatus",
        );
    }
}

/// The context, queue and device most tests need.
pub struct Env {
    pub dev: Dev,
    pub ctx: Context,
    pub queue: Queue,
}

impl Env {
    /// A context and an in-order queue on the device under test.
    #[track_caller]
    pub fn new() -> Env {
        Env::with_queue_properties(0)
    }

    /// As [`Env::new`], the queue created with `properties`.
    #[track_caller]
    pub fn with_queue_properties(properties: cl_command_queue_properties) -> Env {
        let dev = dev();
        let ctx = Context::new();
        let queue = Queue::new(&ctx, properties);
        Env { dev, ctx, queue }
    }

    /// Builds `src` with `options` in this context (panics with the log on failure).
    #[track_caller]
    pub fn build(&self, src: &str, options: &str) -> Program {
        build(&self.ctx, src, options)
    }

    /// A `CL_MEM_READ_WRITE` buffer initialised from `data`.
    #[track_caller]
    pub fn buffer_from<T: Copy>(&self, data: &[T]) -> Buffer {
        Buffer::from_slice(&self.ctx, CL_MEM_READ_WRITE, data)
    }

    /// A `CL_MEM_READ_WRITE` buffer of `n` elements of `T`, zero-filled.
    #[track_caller]
    pub fn buffer_zeroed<T: Copy + Default>(&self, n: usize) -> Buffer {
        self.buffer_from(&vec![T::default(); n])
    }
}

impl Default for Env {
    fn default() -> Self {
        Env::new()
    }
}

/// A handle of another object type, reinterpreted: the "garbage" handle the tests pass where a
/// `T` is expected. The ICD loader dispatches it to the right driver (its first word is a real
/// dispatch table), so the driver itself must notice that the object has the wrong type.
pub fn wrong_handle<T, U>(other: *mut U) -> *mut T {
    other.cast()
}

/// Polls `cond` for up to `secs` seconds; true as soon as it holds.
pub fn wait_until(secs: f64, mut cond: impl FnMut() -> bool) -> bool {
    let end = std::time::Instant::now() + std::time::Duration::from_secs_f64(secs);
    loop {
        if cond() {
            return true;
        }
        if std::time::Instant::now() > end {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// `a * x + y` as the kernel may compute it: exactly one of the two roundings the OpenCL C
/// default (`FP_CONTRACT ON`) allows. Returns whether `got` is one of them.
pub fn is_mul_add_f32(a: f32, x: f32, y: f32, got: f32) -> bool {
    got.to_bits() == (a * x + y).to_bits() || got.to_bits() == a.mul_add(x, y).to_bits()
}

/// The f64 version of [`is_mul_add_f32`].
pub fn is_mul_add_f64(a: f64, x: f64, y: f64, got: f64) -> bool {
    got.to_bits() == (a * x + y).to_bits() || got.to_bits() == a.mul_add(x, y).to_bits()
}

/// A small deterministic pseudo-random generator (xorshift64*), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A float in [-range, range).
    pub fn f32(&mut self, range: f32) -> f32 {
        ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * range
    }
}
