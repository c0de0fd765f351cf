//! Contexts: a set of devices (always our one device) plus the application's properties,
//! error-notification callback and destructor callbacks.
//!
//! Destructor callbacks run in reverse order of registration when the runtime object is
//! really dropped, i.e. after the application released it and every internal holder
//! (queues, buffers, programs) is gone.

use crate::api::{api_type, ApiObject, ObjectType};
use crate::device::Device;
use parking_lot::Mutex;
use std::sync::Arc;

/// A callback run once when the object is destroyed.
pub type DestructorCallback = Box<dyn FnOnce() + Send>;
/// The application's error-notification callback (`pfn_notify`).
pub type NotifyCallback = Box<dyn Fn(&str) + Send + Sync>;

#[repr(C)]
pub struct Context {
    pub api: ApiObject,
    pub devices: Vec<Arc<Device>>,
    /// The property list exactly as given (zero-terminated), for `CL_CONTEXT_PROPERTIES`;
    /// empty when the application passed none.
    pub properties: Vec<isize>,
    notify: Option<NotifyCallback>,
    destructors: Mutex<Vec<DestructorCallback>>,
}
api_type!(Context, Context);

impl Context {
    pub fn new(
        devices: Vec<Arc<Device>>,
        properties: Vec<isize>,
        notify: Option<NotifyCallback>,
    ) -> Arc<Context> {
        Arc::new(Context {
            api: ApiObject::new(ObjectType::Context),
            devices,
            properties,
            notify,
            destructors: Mutex::new(Vec::new()),
        })
    }

    /// Report an error to the application's `pfn_notify`, if any.
    pub fn notify(&self, message: &str) {
        if let Some(f) = &self.notify {
            f(message);
        }
    }

    /// Register a callback run when the context is destroyed.
    pub fn add_destructor(&self, f: DestructorCallback) {
        self.destructors.lock().push(f);
    }

    /// Whether `device` belongs to this context.
    pub fn has_device(&self, device: &Arc<Device>) -> bool {
        self.devices.iter().any(|d| Arc::ptr_eq(d, device))
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        let callbacks = std::mem::take(self.destructors.get_mut());
        for f in callbacks.into_iter().rev() {
            f();
        }
    }
}
