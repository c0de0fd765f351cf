//! In-order command queues. Each queue owns one worker thread fed through a channel: the
//! thread sleeps in `recv` when idle, and for each command in order it marks the event
//! `Submitted`, waits for the command's wait list, marks it `Running`, runs it and marks it
//! `Complete` (or failed). A failed wait-list event fails the command with
//! [`ExecError::WaitListFailed`] without running it.
//!
//! Lifetimes: a queued command holds its event, the event holds the queue, the queue
//! holds the channel's sender. The worker drops each command after running it, so once the
//! channel is drained only the application's references keep the queue alive; when the last
//! one goes, the sender is dropped and the worker exits. Nothing joins the thread (the last
//! reference may be dropped on the worker itself).

use crate::api::{api_type, ApiObject, ObjectType};
use crate::context::Context;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::event::{CommandType, Event, ExecError, Status};
use parking_lot::Mutex;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Weak};

/// The work of one command, run on the queue's thread.
pub type Work = Box<dyn FnOnce() -> std::result::Result<(), ExecError> + Send>;

struct Command {
    event: Arc<Event>,
    wait: Vec<Arc<Event>>,
    work: Work,
}

/// Properties the queue was created with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueProperties {
    /// Record profiling timestamps.
    pub profiling: bool,
    /// The API's property bits as given (`CL_QUEUE_PROPERTIES`).
    pub api_bits: u64,
    /// The property list as given to `clCreateCommandQueueWithProperties` (zero-terminated),
    /// empty otherwise (`CL_QUEUE_PROPERTIES_ARRAY`).
    pub api_list: Vec<u64>,
}

#[repr(C)]
pub struct Queue {
    pub api: ApiObject,
    pub context: Arc<Context>,
    pub device: Arc<Device>,
    pub profiling: bool,
    pub properties: QueueProperties,
    /// Sender side of the worker's channel; also serialises enqueues so `last` is the
    /// last command in channel order.
    submit: Mutex<Submit>,
}
api_type!(Queue, Queue);

struct Submit {
    tx: Sender<Command>,
    /// The last command's event (weak: a dropped event means the command is done).
    last: Weak<Event>,
}

impl Queue {
    /// A queue on `device` in `context`, with its worker thread started.
    pub fn new(
        context: Arc<Context>,
        device: Arc<Device>,
        properties: QueueProperties,
    ) -> Result<Arc<Queue>> {
        let (tx, rx) = channel::<Command>();
        std::thread::Builder::new()
            .name("ferrite-queue".into())
            .spawn(move || worker(rx))
            .map_err(|e| Error::OutOfResources(format!("cannot start a queue thread: {e}")))?;
        Ok(Arc::new(Queue {
            api: ApiObject::new(ObjectType::Queue),
            context,
            device,
            profiling: properties.profiling,
            properties,
            submit: Mutex::new(Submit {
                tx,
                last: Weak::new(),
            }),
        }))
    }

    /// Enqueue a command: returns its event (`Queued`). `wait` must already be checked to
    /// belong to this queue's context.
    pub fn enqueue(
        self: &Arc<Self>,
        command_type: CommandType,
        wait: Vec<Arc<Event>>,
        work: Work,
    ) -> Result<Arc<Event>> {
        let event = Event::new_command(self, command_type);
        let mut submit = self.submit.lock();
        submit
            .tx
            .send(Command {
                event: event.clone(),
                wait,
                work,
            })
            .map_err(|_| Error::OutOfResources("queue thread has stopped".into()))?;
        submit.last = Arc::downgrade(&event);
        Ok(event)
    }

    /// Commands are handed to the worker when enqueued: nothing to flush.
    pub fn flush(&self) {}

    /// Block until every command enqueued so far has finished (`clFinish`).
    pub fn finish(&self) {
        let last = self.submit.lock().last.upgrade();
        if let Some(e) = last {
            e.wait();
        }
    }
}

fn worker(rx: Receiver<Command>) {
    while let Ok(cmd) = rx.recv() {
        run_command(cmd);
    }
}

fn run_command(cmd: Command) {
    let Command { event, wait, work } = cmd;
    event.set_status(Status::Submitted);
    for dep in &wait {
        if let Status::Failed(_) = dep.wait() {
            event.set_status(Status::Failed(ExecError::WaitListFailed));
            return;
        }
    }
    drop(wait);
    event.set_status(Status::Running);
    // A panic in the work (a runtime bug) fails the command instead of killing the queue.
    let result = catch_unwind(AssertUnwindSafe(work)).unwrap_or(Err(ExecError::OutOfResources));
    match result {
        Ok(()) => event.set_status(Status::Complete),
        Err(e) => event.set_status(Status::Failed(e)),
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::Platform;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn queue(profiling: bool) -> Arc<Queue> {
        let dev = Platform::get().device.clone();
        let ctx = Context::new(vec![dev.clone()], Vec::new(), None);
        Queue::new(
            ctx,
            dev,
            QueueProperties {
                profiling,
                ..Default::default()
            },
        )
        .unwrap()
    }

    #[test]
    fn commands_run_in_order_and_failures_propagate() {
        let q = queue(true);
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut events = Vec::new();
        for i in 0..10 {
            let o = order.clone();
            events.push(
                q.enqueue(
                    CommandType::Marker,
                    Vec::new(),
                    Box::new(move || {
                        o.lock().push(i);
                        Ok(())
                    }),
                )
                .unwrap(),
            );
        }
        q.finish();
        assert_eq!(*order.lock(), (0..10).collect::<Vec<_>>());
        let t = events[3].profiling().unwrap();
        assert!(t.queued <= t.submit && t.submit <= t.start && t.start <= t.end);

        let user = Event::new_user(q.context.clone());
        let ran = Arc::new(AtomicUsize::new(0));
        let r = ran.clone();
        let e = q
            .enqueue(
                CommandType::Marker,
                vec![user.clone()],
                Box::new(move || {
                    r.fetch_add(1, Ordering::SeqCst);
                    Ok(())
                }),
            )
            .unwrap();
        assert!(!e.status().is_final());
        user.set_user_status(Status::Failed(ExecError::User(-1)))
            .unwrap();
        assert_eq!(e.wait(), Status::Failed(ExecError::WaitListFailed));
        assert_eq!(ran.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_panicking_command_fails_its_event() {
        let q = queue(false);
        let e = q
            .enqueue(CommandType::Marker, Vec::new(), Box::new(|| panic!("boom")))
            .unwrap();
        assert_eq!(e.wait(), Status::Failed(ExecError::OutOfResources));
        let e = q
            .enqueue(CommandType::Marker, Vec::new(), Box::new(|| Ok(())))
            .unwrap();
        assert_eq!(e.wait(), Status::Complete);
    }
}
