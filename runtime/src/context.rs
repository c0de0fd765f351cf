//! Contexts: a set of devices (always our one device) plus the application's properties,
//! error-notification callback and destructor callbacks.
//!
//! Destructor callbacks run in reverse order of registration when the runtime object is
//! really dropped, i.e. after the application released it and every internal holder
//! (queues, buffers, programs) is gone.

use crate::api::{api_type, ApiObject, ObjectType};
use crate::device::Device;
use crate::event::{CallbackTrigger, Event};
use crate::queue::Queue;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

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
    /// The command queues created on this context (weak: a released queue drops out), for
    /// [`Context::pending`].
    queues: Mutex<Vec<Weak<Queue>>>,
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
            queues: Mutex::new(Vec::new()),
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

    /// Record a queue created on this context.
    pub fn register_queue(&self, queue: &Arc<Queue>) {
        let mut queues = self.queues.lock();
        queues.retain(|q| q.strong_count() > 0);
        queues.push(Arc::downgrade(queue));
    }

    /// The events that complete once every command enqueued so far on any of this
    /// context's queues has finished ([`Queue::pending`] of each).
    pub fn pending(&self) -> Vec<Arc<Event>> {
        let queues: Vec<Arc<Queue>> = self
            .queues
            .lock()
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        queues.iter().flat_map(|q| q.pending()).collect()
    }

    /// Run `f` once every command enqueued so far on this context's queues has finished:
    /// at once if none is pending, otherwise on the thread that completes the last of them.
    pub fn after_pending(&self, f: Box<dyn FnOnce() + Send>) {
        let pending = self.pending();
        if pending.is_empty() {
            f();
            return;
        }
        let left = Arc::new(AtomicUsize::new(pending.len()));
        let f = Arc::new(Mutex::new(Some(f)));
        for e in pending {
            let (left, f) = (left.clone(), f.clone());
            e.add_callback(
                CallbackTrigger::Complete,
                Box::new(move |_| {
                    if left.fetch_sub(1, Ordering::AcqRel) == 1 {
                        if let Some(f) = f.lock().take() {
                            f();
                        }
                    }
                }),
            );
        }
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
        // SVM and USM allocations the application did not free: no command can use them
        // any more (every queue and event of the context is gone), and a later context at
        // this address must not find them as its own.
        crate::usm::free_owner(crate::mem::svm::owner(self));
    }
}
