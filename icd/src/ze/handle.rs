//! The registry of live Level-Zero handles.
//!
//! A handle is the address of an object the registry holds (`Arc::as_ptr`), stored with
//! the object's type. A handle is only dereferenced after it was found in the registry
//! with the expected type, so a NULL, destroyed, garbage or wrongly typed handle yields
//! `ZE_RESULT_ERROR_INVALID_NULL_HANDLE` (what the loader's validation layer reports for
//! handles whose lifetime ended) instead of a crash. `ze*Destroy` removes the entry; the
//! object itself lives on while a command or another object still holds an `Arc` of it.
//!
//! Level-Zero has no reference counts: an object is created once and destroyed once.

use super::sys::*;
use super::{ZeError, ZeResult};
use parking_lot::RwLock;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

struct Entry {
    ty: TypeId,
    obj: Arc<dyn Any + Send + Sync>,
}

static REGISTRY: LazyLock<RwLock<HashMap<usize, Entry>>> =
    LazyLock::new(|| RwLock::new(HashMap::new()));

const INVALID: ZeError = ZeError(ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

/// Register `obj` and return its handle. Registering an object that is already
/// registered (the driver and device, on every query) returns the same handle.
pub fn insert<T: Any + Send + Sync, H>(obj: Arc<T>) -> *mut H {
    let h = Arc::as_ptr(&obj) as usize;
    REGISTRY.write().entry(h).or_insert(Entry {
        ty: TypeId::of::<T>(),
        obj,
    });
    h as *mut H
}

/// The object behind a live handle of type `T`.
pub fn get<T: Any + Send + Sync, H>(h: *mut H) -> ZeResult<Arc<T>> {
    if h.is_null() {
        return Err(INVALID);
    }
    let map = REGISTRY.read();
    let e = map.get(&(h as usize)).ok_or(INVALID)?;
    if e.ty != TypeId::of::<T>() {
        return Err(INVALID);
    }
    e.obj.clone().downcast::<T>().map_err(|_| INVALID)
}

/// Objects behind a list of handles (wait lists, command lists).
///
/// # Safety
/// `list` is NULL or points to `n` handles (the API's contract).
pub unsafe fn get_list<T: Any + Send + Sync, H>(
    list: *mut *mut H,
    n: u32,
) -> ZeResult<Vec<Arc<T>>> {
    // SAFETY: per the caller.
    let handles = unsafe { super::slice_in(list as *const *mut H, n)? };
    handles.iter().map(|&h| get::<T, H>(h)).collect()
}

/// The object behind an optional handle (NULL is `None`; anything else must be live).
pub fn get_opt<T: Any + Send + Sync, H>(h: *mut H) -> ZeResult<Option<Arc<T>>> {
    if h.is_null() {
        Ok(None)
    } else {
        get::<T, H>(h).map(Some)
    }
}

/// `ze*Destroy`: unregister the handle and return the object.
pub fn remove<T: Any + Send + Sync, H>(h: *mut H) -> ZeResult<Arc<T>> {
    if h.is_null() {
        return Err(INVALID);
    }
    let removed = {
        let mut map = REGISTRY.write();
        match map.get(&(h as usize)) {
            Some(e) if e.ty == TypeId::of::<T>() => map.remove(&(h as usize)),
            _ => None,
        }
    };
    // Dropped (if last) by the caller, outside the lock: dropping a queue joins its
    // thread, which must not block other threads' handle lookups.
    removed
        .ok_or(INVALID)?
        .obj
        .downcast::<T>()
        .map_err(|_| INVALID)
}

/// The handle of an object (whether or not it is registered).
pub fn handle_of<T, H>(obj: &Arc<T>) -> *mut H {
    Arc::as_ptr(obj) as *mut H
}

/// Whether a handle is registered as any type (tests).
#[cfg(test)]
pub fn is_live(h: *mut std::ffi::c_void) -> bool {
    REGISTRY.read().contains_key(&(h as usize))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::c_void;

    #[test]
    fn handles_are_checked_by_registry_and_type() {
        let h: *mut c_void = insert(Arc::new(5u64));
        assert_eq!(*get::<u64, _>(h).unwrap(), 5);
        assert_eq!(get::<u32, _>(h).err(), Some(INVALID));
        assert_eq!(
            get::<u64, c_void>(std::ptr::null_mut()).err(),
            Some(INVALID)
        );
        assert_eq!(get::<u64, c_void>(0x10 as *mut c_void).err(), Some(INVALID));
        assert!(remove::<u32, _>(h).is_err());
        assert!(is_live(h));
        assert_eq!(*remove::<u64, _>(h).unwrap(), 5);
        assert!(!is_live(h));
        assert_eq!(get::<u64, _>(h).err(), Some(INVALID));
        assert!(remove::<u64, _>(h).is_err());
    }
}
