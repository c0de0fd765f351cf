//! The header every API-visible object starts with, and the object type tags.
//!
//! An OpenCL handle is a pointer to an object whose first word is the ICD dispatch table
//! pointer (ocl-icd reads it to find our entry points). Ferrite's handles are
//! `Arc::as_ptr` of runtime objects that are `#[repr(C)]` with an [`ApiObject`] as their
//! first field, so that word is [`ApiObject::dispatch`].
//!
//! Invariants:
//! - The dispatch pointer is registered once, by the front end, before any object is made
//!   ([`set_dispatch`]); every object copies it at construction.
//! - The API reference count ([`ApiObject::retain`]/[`ApiObject::release`]) is what the
//!   application sees (`CL_*_REFERENCE_COUNT`). Internal holders clone the `Arc` and never
//!   touch it. The front end keeps one strong `Arc` per live handle while the count is > 0.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

/// What kind of object a handle points to. The values are arbitrary but distinctive, so
/// that a stray pointer is unlikely to carry a valid tag by chance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ObjectType {
    Platform = 0x4652_0001,
    Device = 0x4652_0002,
    Context = 0x4652_0003,
    Queue = 0x4652_0004,
    Mem = 0x4652_0005,
    Event = 0x4652_0006,
    Program = 0x4652_0007,
    Kernel = 0x4652_0008,
    Sampler = 0x4652_0009,
    CommandBuffer = 0x4652_000A,
    MutableCommand = 0x4652_000B,
}

/// Address of the front end's dispatch table (0 until registered).
static DISPATCH: AtomicUsize = AtomicUsize::new(0);

/// Register the dispatch table every new object will point to. Called once at start-up by
/// the front end, before any object is created.
pub fn set_dispatch(table: usize) {
    DISPATCH.store(table, Ordering::Release);
}

/// The registered dispatch table address (0 if none yet).
pub fn dispatch() -> usize {
    DISPATCH.load(Ordering::Acquire)
}

/// The header of every object handed out through an API. `#[repr(C)]`: the dispatch
/// pointer must be the first word of the object.
#[repr(C)]
#[derive(Debug)]
pub struct ApiObject {
    /// The ICD dispatch table pointer (stored as an address so the header stays
    /// `Send + Sync` without unsafe code; same size and bits as a pointer).
    dispatch: usize,
    tag: ObjectType,
    ref_count: AtomicU32,
}

impl ApiObject {
    /// A header for a new object: API reference count 1.
    pub fn new(tag: ObjectType) -> ApiObject {
        ApiObject {
            dispatch: dispatch(),
            tag,
            ref_count: AtomicU32::new(1),
        }
    }

    /// The dispatch table address this object was created with.
    pub fn dispatch(&self) -> usize {
        self.dispatch
    }

    pub fn tag(&self) -> ObjectType {
        self.tag
    }

    /// Whether this header looks like a live object of type `tag` made by this front end.
    pub fn is_valid(&self, tag: ObjectType) -> bool {
        self.tag == tag && self.dispatch == dispatch() && self.ref_count() > 0
    }

    /// The API reference count (`CL_*_REFERENCE_COUNT`).
    pub fn ref_count(&self) -> u32 {
        self.ref_count.load(Ordering::Acquire)
    }

    /// Increment the API count; returns the new count.
    pub fn retain(&self) -> u32 {
        self.ref_count.fetch_add(1, Ordering::AcqRel) + 1
    }

    /// Decrement the API count (never below 0); returns the new count.
    pub fn release(&self) -> u32 {
        let mut cur = self.ref_count.load(Ordering::Acquire);
        loop {
            if cur == 0 {
                return 0;
            }
            match self.ref_count.compare_exchange_weak(
                cur,
                cur - 1,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return cur - 1,
                Err(now) => cur = now,
            }
        }
    }
}

/// Implemented by every runtime object that an API hands out as a handle.
pub trait ApiType: Send + Sync + 'static {
    const TYPE: ObjectType;
    fn api(&self) -> &ApiObject;
}

/// Implements [`ApiType`] for a struct whose first field is `api: ApiObject`.
macro_rules! api_type {
    ($t:ty, $tag:ident) => {
        impl $crate::api::ApiType for $t {
            const TYPE: $crate::api::ObjectType = $crate::api::ObjectType::$tag;
            fn api(&self) -> &$crate::api::ApiObject {
                &self.api
            }
        }
    };
}
pub(crate) use api_type;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refcount_never_goes_below_zero() {
        let a = ApiObject::new(ObjectType::Mem);
        assert_eq!(a.ref_count(), 1);
        assert_eq!(a.retain(), 2);
        assert_eq!(a.release(), 1);
        assert_eq!(a.release(), 0);
        assert_eq!(a.release(), 0);
        assert!(!a.is_valid(ObjectType::Mem));
    }
}
