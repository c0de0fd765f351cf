//! Command buffers (`cl_khr_command_buffer`): commands recorded once as [`Op`]s and run
//! again at every enqueue.
//!
//! A command buffer records on one queue until it is finalised; from then on each enqueue
//! hands a queue one command that runs the recorded ops in the order they were recorded.
//! That order respects every sync point (a command can only wait for commands recorded
//! before it), so the sync points are checked at record time and need nothing at run time.
//! An enqueue takes a snapshot of the list (`Arc`s of the ops), so enqueues may overlap and
//! a later update of one recorded command (mutable dispatch) affects only later enqueues.

use super::Op;
use crate::api::{api_type, ApiObject, ObjectType};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::event::{CommandType, Event, ExecError};
use crate::executor::NdRange;
use crate::kernel::Kernel;
use crate::queue::Queue;
use parking_lot::Mutex;
use std::sync::{Arc, Weak};

/// The recorded commands, and whether recording is over.
struct Recording {
    ops: Vec<Arc<Op>>,
    /// Commands recorded without an op yet (a mutable launch whose arguments are not all
    /// set): the buffer cannot run until each is replaced.
    incomplete: Vec<usize>,
    /// Set by [`CommandBuffer::finalize`]: what an enqueue runs.
    executable: Option<Arc<[Arc<Op>]>>,
}

#[repr(C)]
pub struct CommandBuffer {
    pub api: ApiObject,
    pub context: Arc<Context>,
    /// The queue the commands are recorded for (the only one: no multi-device).
    pub queue: Arc<Queue>,
    /// `CL_COMMAND_BUFFER_FLAGS_KHR` as given.
    pub flags: u64,
    /// The property list as given, zero-terminated (empty when none was given).
    pub properties: Vec<u64>,
    recording: Mutex<Recording>,
    /// The launches recorded as mutable (they live as long as the buffer).
    mutable: Mutex<Vec<Arc<MutableLaunch>>>,
    /// Serialises `clUpdateMutableCommandsKHR` calls ([`CommandBuffer::updating`]).
    update: Mutex<()>,
}
api_type!(CommandBuffer, CommandBuffer);

impl CommandBuffer {
    /// An empty command buffer recording for `queue`.
    pub fn new(queue: Arc<Queue>, flags: u64, properties: Vec<u64>) -> Arc<CommandBuffer> {
        Arc::new(CommandBuffer {
            api: ApiObject::new(ObjectType::CommandBuffer),
            context: queue.context.clone(),
            queue,
            flags,
            properties,
            recording: Mutex::new(Recording {
                ops: Vec::new(),
                incomplete: Vec::new(),
                executable: None,
            }),
            mutable: Mutex::new(Vec::new()),
            update: Mutex::new(()),
        })
    }

    /// Keep a mutable launch recorded into this buffer.
    pub fn add_mutable(&self, launch: Arc<MutableLaunch>) {
        self.mutable.lock().push(launch);
    }

    /// The mutable launches recorded into this buffer.
    pub fn mutable_launches(&self) -> Vec<Arc<MutableLaunch>> {
        self.mutable.lock().clone()
    }

    /// Whether the buffer is finalised (`CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR`).
    pub fn is_finalized(&self) -> bool {
        self.recording.lock().executable.is_some()
    }

    /// Check a sync-point wait list against the commands recorded so far: each sync point
    /// names one of them (sync point `n` is the `n`-th command, from 1).
    pub fn check_sync_points(&self, wait: &[u32]) -> Result<()> {
        let recorded = self.recording.lock().ops.len();
        if wait.iter().all(|&p| p >= 1 && p as usize <= recorded) {
            Ok(())
        } else {
            Err(Error::InvalidValue(
                "a sync point that names no recorded command",
            ))
        }
    }

    /// Record `op` after the commands of `wait` (already checked with
    /// [`check_sync_points`](Self::check_sync_points)); returns its index and sync point.
    pub fn record(&self, op: Op) -> Result<(usize, u32)> {
        self.record_with(op, false)
    }

    /// Record a command whose op comes later, with [`replace_all`](Self::replace_all).
    pub fn record_incomplete(&self) -> Result<(usize, u32)> {
        self.record_with(Op::Nothing, true)
    }

    fn record_with(&self, op: Op, incomplete: bool) -> Result<(usize, u32)> {
        let mut r = self.recording.lock();
        if r.executable.is_some() {
            return Err(Error::InvalidOperation("the command buffer is finalized"));
        }
        let index = r.ops.len();
        let point = u32::try_from(index + 1)
            .map_err(|_| Error::OutOfResources("too many recorded commands".into()))?;
        r.ops.push(Arc::new(op));
        if incomplete {
            r.incomplete.push(index);
        }
        Ok((index, point))
    }

    /// Whether the buffer can be enqueued: finalised, and every command complete.
    pub fn is_executable(&self) -> bool {
        let r = self.recording.lock();
        r.executable.is_some() && r.incomplete.is_empty()
    }

    /// End recording.
    pub fn finalize(&self) -> Result<()> {
        let mut r = self.recording.lock();
        if r.executable.is_some() {
            return Err(Error::InvalidOperation("the command buffer is finalized"));
        }
        r.executable = Some(r.ops.iter().cloned().collect());
        Ok(())
    }

    /// Replace recorded commands, all at once: each `(index, Some(op))` puts `op` at
    /// `index` (completing it if it was incomplete); `None` leaves the command as it is. A
    /// finalised buffer's later enqueues run the new ops; enqueues already made keep the
    /// old ones.
    pub fn replace_all(&self, ops: Vec<(usize, Option<Op>)>) -> Result<()> {
        let mut r = self.recording.lock();
        if ops.iter().any(|(i, _)| *i >= r.ops.len()) {
            return Err(Error::InvalidValue("no such recorded command"));
        }
        for (index, op) in ops {
            if let Some(op) = op {
                r.ops[index] = Arc::new(op);
                r.incomplete.retain(|&i| i != index);
            }
        }
        if r.executable.is_some() {
            r.executable = Some(r.ops.iter().cloned().collect());
        }
        Ok(())
    }

    /// Hold while updating mutable launches: updates of one buffer build on each other's
    /// results, one call at a time.
    pub fn updating(&self) -> parking_lot::MutexGuard<'_, ()> {
        self.update.lock()
    }

    /// Enqueue every recorded command on `queue` (the recording queue or a compatible
    /// one, checked by the caller) as one command after `wait`.
    pub fn enqueue(&self, queue: &Arc<Queue>, wait: Vec<Arc<Event>>) -> Result<Arc<Event>> {
        let ops = {
            let r = self.recording.lock();
            if !r.incomplete.is_empty() {
                return Err(Error::InvalidOperation(
                    "a mutable launch of the command buffer has unset arguments",
                ));
            }
            r.executable.clone().ok_or(Error::InvalidOperation(
                "the command buffer is not finalized",
            ))?
        };
        let device = queue.device.clone();
        let context = queue.context.clone();
        queue.enqueue(
            CommandType::CommandBuffer,
            wait,
            Box::new(move || {
                for op in ops.iter() {
                    // SAFETY: the addresses in recorded commands were given by the
                    // application, which keeps them valid while the command buffer may
                    // run (API contract); the front end checked them non-NULL.
                    unsafe { op.execute(&device, Some(&context)) }?;
                }
                Ok::<(), ExecError>(())
            }),
        )
    }
}

/// A recorded launch that may be updated after finalisation
/// (`cl_khr_command_buffer_mutable_dispatch`): its own copy of the kernel's arguments and
/// its geometry, from which an update builds the replacement op.
#[repr(C)]
pub struct MutableLaunch {
    pub api: ApiObject,
    /// The buffer it was recorded into.
    pub buffer: Weak<CommandBuffer>,
    /// Its index among the buffer's recorded commands.
    pub index: usize,
    /// The kernel given when it was recorded.
    pub kernel: Arc<Kernel>,
    /// The fields an update may change (`CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR`).
    pub fields: u64,
    /// The command's property list as given, zero-terminated (empty when none was given).
    pub properties: Vec<u64>,
    /// What the recorded op was built from.
    pub state: Mutex<LaunchState>,
}
api_type!(MutableLaunch, MutableCommand);

/// What a mutable launch's op is built from.
#[derive(Clone)]
pub struct LaunchState {
    /// A copy of the kernel with the launch's argument values (never the application's).
    pub args: Arc<Kernel>,
    /// The geometry as checked, local size chosen.
    pub range: NdRange,
    /// Whether the local size was given (else an update of the global size chooses again).
    pub local_given: bool,
    /// The memory objects `args` names, held: the copy keeps weak references, as a
    /// kernel does, and the application may release a buffer the launch still uses.
    pub held: Vec<Arc<crate::mem::Mem>>,
}

impl MutableLaunch {
    pub fn new(
        buffer: &Arc<CommandBuffer>,
        index: usize,
        kernel: Arc<Kernel>,
        fields: u64,
        properties: Vec<u64>,
        state: LaunchState,
    ) -> Arc<MutableLaunch> {
        Arc::new(MutableLaunch {
            api: ApiObject::new(ObjectType::MutableCommand),
            buffer: Arc::downgrade(buffer),
            index,
            kernel,
            fields,
            properties,
            state: Mutex::new(state),
        })
    }
}
