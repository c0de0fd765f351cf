//! The OpenCL API layer: one file per OpenCL noun, mirroring the runtime.
//!
//! Every entry point is an `unsafe extern "C" fn` with the header's exact signature,
//! stored in the dispatch table ([`dispatch`]). Its body runs inside [`cl_call`] or
//! [`cl_create`], which make sure the library is initialised, catch panics (a panic must
//! never cross `extern "C"`) and turn a `ClResult` into the return code / `errcode_ret`.
//! Handles are checked against the registry of live handles ([`handle`]) before anything
//! is read through them.

pub mod command_buffer;
pub mod context;
pub mod device;
pub mod dispatch;
pub mod enqueue;
pub mod event;
pub mod handle;
pub mod image;
pub mod info;
pub mod kernel;
pub mod mem;
pub mod platform;
pub mod program;
pub mod queue;
pub mod sampler;
pub mod svm;
pub mod usm;

use crate::error::{ClError, ClResult};
use opencl_sys::*;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

/// Register the dispatch table with the runtime and the platform and device handles.
/// Idempotent; every entry point calls it first.
pub fn init() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        ferrite_runtime::api::set_dispatch(&dispatch::DISPATCH as *const _ as usize);
        let platform = ferrite_runtime::platform::Platform::get();
        handle::register_permanent(platform.clone());
        handle::register_permanent(platform.device.clone());
    });
}

/// The panic code: a bug in Ferrite, reported as a resource failure.
const PANIC_CODE: cl_int = CL_OUT_OF_RESOURCES;

/// Run an entry point that returns a `cl_int`.
pub fn cl_call(f: impl FnOnce() -> ClResult<()>) -> cl_int {
    match catch_unwind(AssertUnwindSafe(|| {
        init();
        f()
    })) {
        Ok(Ok(())) => CL_SUCCESS,
        Ok(Err(ClError(code))) => code,
        Err(_) => PANIC_CODE,
    }
}

/// Run an entry point that returns a pointer (a handle) and reports through
/// `errcode_ret`.
pub fn cl_create<T>(errcode_ret: *mut cl_int, f: impl FnOnce() -> ClResult<*mut T>) -> *mut T {
    let (ptr, code) = match catch_unwind(AssertUnwindSafe(|| {
        init();
        f()
    })) {
        Ok(Ok(p)) => (p, CL_SUCCESS),
        Ok(Err(ClError(code))) => (std::ptr::null_mut(), code),
        Err(_) => (std::ptr::null_mut(), PANIC_CODE),
    };
    if !errcode_ret.is_null() {
        // SAFETY: a non-NULL errcode_ret points to a cl_int the application owns (API
        // contract).
        unsafe { *errcode_ret = code };
    }
    ptr
}

/// Fail with `code` unless `cond`.
pub fn check(cond: bool, code: cl_int) -> ClResult<()> {
    if cond {
        Ok(())
    } else {
        Err(ClError(code))
    }
}

/// Store `value` through an optional out-pointer.
///
/// # Safety
/// `ptr` is NULL or valid for a write of `T`.
pub unsafe fn write_out<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        // SAFETY: non-NULL and valid per the caller.
        unsafe { ptr.write(value) };
    }
}

/// A `cl_*` out-pointer array as a slice, or an empty slice for NULL.
///
/// # Safety
/// `ptr` is NULL or points to `n` readable `T`s that live for `'a`.
pub unsafe fn slice<'a, T>(ptr: *const T, n: usize) -> &'a [T] {
    if ptr.is_null() || n == 0 {
        &[]
    } else {
        // SAFETY: per the caller.
        unsafe { std::slice::from_raw_parts(ptr, n) }
    }
}

/// A raw pointer that may cross threads (the application's `user_data`, host pointers).
#[derive(Clone, Copy, Debug)]
pub struct SendPtr(pub *mut c_void);

impl SendPtr {
    /// The pointer. (Call this inside closures: capturing `.0` directly would capture the
    /// bare pointer, which is not `Send`.)
    pub fn get(self) -> *mut c_void {
        self.0
    }
}
// SAFETY: the pointer is only handed back to the application (callbacks) or used as the
// API says the application's memory may be used; OpenCL allows callbacks on any thread.
unsafe impl Send for SendPtr {}
// SAFETY: as above; we never dereference it ourselves except as the API allows.
unsafe impl Sync for SendPtr {}
