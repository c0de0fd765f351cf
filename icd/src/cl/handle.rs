//! The registry of live handles.
//!
//! A handle is `Arc::as_ptr` of a runtime object whose first word is our dispatch table.
//! The registry maps each live handle to a strong `Arc` for as long as its API reference
//! count is above zero. A handle is only ever dereferenced after it was found in the
//! registry with the expected type: a released or garbage handle yields the type's
//! `CL_INVALID_*` code instead of a crash. Releasing to zero removes the entry; the `Arc`
//! is dropped after the registry lock is released, because dropping may run destructor
//! callbacks that call back into the API.

use crate::error::{ClError, ClResult};
use ferrite_runtime::api::{ApiType, ObjectType};
use ferrite_runtime::command::buffer::{CommandBuffer, MutableLaunch};
use ferrite_runtime::context::Context;
use ferrite_runtime::device::Device;
use ferrite_runtime::event::Event;
use ferrite_runtime::kernel::Kernel;
use ferrite_runtime::mem::Mem;
use ferrite_runtime::platform::Platform;
use ferrite_runtime::program::Program;
use ferrite_runtime::queue::Queue;
use ferrite_runtime::sampler::Sampler;
use opencl_sys::*;
use parking_lot::RwLock;
use std::any::Any;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, LazyLock};

/// A runtime object type that OpenCL hands out, with its invalid-handle code.
pub trait ClObject: ApiType {
    /// The error for an invalid handle of this type.
    const INVALID: cl_int;
}

impl ClObject for Platform {
    const INVALID: cl_int = CL_INVALID_PLATFORM;
}
impl ClObject for Device {
    const INVALID: cl_int = CL_INVALID_DEVICE;
}
impl ClObject for Context {
    const INVALID: cl_int = CL_INVALID_CONTEXT;
}
impl ClObject for Queue {
    const INVALID: cl_int = CL_INVALID_COMMAND_QUEUE;
}
impl ClObject for Mem {
    const INVALID: cl_int = CL_INVALID_MEM_OBJECT;
}
impl ClObject for Event {
    const INVALID: cl_int = CL_INVALID_EVENT;
}
impl ClObject for Program {
    const INVALID: cl_int = CL_INVALID_PROGRAM;
}
impl ClObject for Kernel {
    const INVALID: cl_int = CL_INVALID_KERNEL;
}
impl ClObject for Sampler {
    const INVALID: cl_int = CL_INVALID_SAMPLER;
}
impl ClObject for CommandBuffer {
    const INVALID: cl_int = CL_INVALID_COMMAND_BUFFER_KHR;
}
impl ClObject for MutableLaunch {
    const INVALID: cl_int = CL_INVALID_MUTABLE_COMMAND_KHR;
}

struct Entry {
    tag: ObjectType,
    obj: Arc<dyn Any + Send + Sync>,
    /// Platform and device: never released.
    permanent: bool,
}

static REGISTRY: LazyLock<RwLock<HashMap<usize, Entry>>> =
    LazyLock::new(|| RwLock::new(HashMap::new()));

/// The handle of an object (whether or not it is registered).
pub fn handle<T: ApiType>(obj: &Arc<T>) -> *mut c_void {
    Arc::as_ptr(obj) as *mut c_void
}

fn insert<T: ClObject>(obj: Arc<T>, permanent: bool) -> *mut c_void {
    let h = handle(&obj);
    REGISTRY.write().insert(
        h as usize,
        Entry {
            tag: T::TYPE,
            obj,
            permanent,
        },
    );
    h
}

/// Register a new object (API count 1) and return its handle.
pub fn new_handle<T: ClObject>(obj: Arc<T>) -> *mut c_void {
    insert(obj, false)
}

/// Register an object that lives forever (platform, device).
pub fn register_permanent<T: ClObject>(obj: Arc<T>) {
    insert(obj, true);
}

fn lookup<T: ClObject>(map: &HashMap<usize, Entry>, h: *mut c_void) -> ClResult<(Arc<T>, bool)> {
    let e = map.get(&(h as usize)).ok_or(ClError(T::INVALID))?;
    if e.tag != T::TYPE {
        return Err(ClError(T::INVALID));
    }
    let obj = e
        .obj
        .clone()
        .downcast::<T>()
        .map_err(|_| ClError(T::INVALID))?;
    // The object is alive (we hold an Arc): its header can be checked.
    if !obj.api().is_valid(T::TYPE) {
        return Err(ClError(T::INVALID));
    }
    Ok((obj, e.permanent))
}

/// The object behind a handle, if it is a live handle of type `T`.
pub fn get<T: ClObject>(h: *mut c_void) -> ClResult<Arc<T>> {
    if h.is_null() {
        return Err(ClError(T::INVALID));
    }
    lookup(&REGISTRY.read(), h).map(|(o, _)| o)
}

/// Objects behind a list of handles; any invalid one gives `invalid`.
///
/// # Safety
/// `list` is NULL or points to `n` handles.
pub unsafe fn get_list<T: ClObject>(
    list: *const *mut c_void,
    n: usize,
    invalid: cl_int,
) -> ClResult<Vec<Arc<T>>> {
    // SAFETY: per the caller.
    let handles = unsafe { super::slice(list, n) };
    handles
        .iter()
        .map(|&h| get::<T>(h).map_err(|_| ClError(invalid)))
        .collect()
}

/// Unregister a handle whose object is gone with its owner (a mutable command of a
/// released command buffer: such handles have no release of their own).
pub fn forget<T: ClObject>(h: *mut c_void) {
    let removed = {
        let mut map = REGISTRY.write();
        match lookup::<T>(&map, h) {
            Ok(_) => map.remove(&(h as usize)),
            Err(_) => None,
        }
    };
    // Dropped outside the lock, as in `release`.
    drop(removed);
}

/// `clRetain*`.
pub fn retain<T: ClObject>(h: *mut c_void) -> ClResult<()> {
    if h.is_null() {
        return Err(ClError(T::INVALID));
    }
    let map = REGISTRY.read();
    let (obj, permanent) = lookup::<T>(&map, h)?;
    if !permanent {
        // Under the read lock: a concurrent release to zero (write lock) cannot interleave.
        obj.api().retain();
    }
    Ok(())
}

/// `clRelease*`: drops the registry's `Arc` when the API count reaches zero.
pub fn release<T: ClObject>(h: *mut c_void) -> ClResult<()> {
    if h.is_null() {
        return Err(ClError(T::INVALID));
    }
    let removed = {
        let mut map = REGISTRY.write();
        let (obj, permanent) = lookup::<T>(&map, h)?;
        if permanent {
            return Ok(());
        }
        if obj.api().release() == 0 {
            map.remove(&(h as usize))
        } else {
            None
        }
    };
    // Dropped outside the lock: may run destructor callbacks that re-enter the API.
    drop(removed);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context() -> Arc<Context> {
        crate::cl::init();
        Context::new(Vec::new(), Vec::new(), None)
    }

    #[test]
    fn handles_are_checked_by_registry_and_type() {
        let h = new_handle(context());
        assert!(get::<Context>(h).is_ok());
        assert_eq!(get::<Mem>(h).err(), Some(ClError(CL_INVALID_MEM_OBJECT)));
        assert_eq!(
            get::<Context>(std::ptr::null_mut()).err(),
            Some(ClError(CL_INVALID_CONTEXT))
        );
        // A pointer that was never a handle is not dereferenced.
        assert_eq!(
            get::<Context>(0x10 as *mut c_void).err(),
            Some(ClError(CL_INVALID_CONTEXT))
        );
        retain::<Context>(h).unwrap();
        assert_eq!(get::<Context>(h).unwrap().api.ref_count(), 2);
        release::<Context>(h).unwrap();
        release::<Context>(h).unwrap();
        assert_eq!(get::<Context>(h).err(), Some(ClError(CL_INVALID_CONTEXT)));
        assert_eq!(
            release::<Context>(h).err(),
            Some(ClError(CL_INVALID_CONTEXT))
        );
    }

    #[test]
    fn destructor_runs_when_last_internal_holder_goes() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let ctx = context();
        let ran = Arc::new(AtomicBool::new(false));
        let r = ran.clone();
        ctx.add_destructor(Box::new(move || r.store(true, Ordering::SeqCst)));
        let internal = ctx.clone();
        let h = new_handle(ctx);
        release::<Context>(h).unwrap();
        assert!(!ran.load(Ordering::SeqCst));
        drop(internal);
        assert!(ran.load(Ordering::SeqCst));
    }
}
