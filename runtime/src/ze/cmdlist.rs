//! Level-Zero commands and command lists.
//!
//! A [`Command`] waits for its events, performs its [`Op`] and signals its event with the
//! times it ran. A regular [`CommandList`] records commands until it is closed; executing
//! it hands the queue a shared snapshot of them, so a list can be submitted again (or
//! reset) while an earlier submission still runs. Immediate command lists are a
//! [`CmdQueue`](super::cmdqueue::CmdQueue) fed one command at a time (see
//! [`ImmediateList`]).

use super::cmdqueue::{Batch, CmdQueue, Priority};
use super::event::ZeEvent;
use super::kernel::indirect_range;
use crate::command;
use crate::error::{Error, Result};
use crate::event::now_ns;
use crate::kernel::LaunchData;
use crate::mem::rect::Rect;
use crate::platform::Platform;
use parking_lot::Mutex;
use std::sync::Arc;

/// What a command does once its wait events are signalled.
pub enum Op {
    /// A command both APIs have ([`command::Op`]): a launch, a copy or fill by address, a
    /// region copy, an image copy, or nothing (barriers, `AppendSignalEvent`,
    /// `AppendWaitOnEvents`).
    Do(command::Op),
    /// Launches whose group counts (three `u32`s each, one after the other from `counts`)
    /// are read when they run; with `number`, only as many of them as the `u32` there
    /// says (`zeCommandListAppendLaunchMultipleKernelsIndirect`), in order.
    LaunchIndirect {
        launches: Vec<LaunchData>,
        counts: usize,
        number: Option<usize>,
    },
    /// For each event, its (start, end) times written as four `u64`s
    /// (start, end, start, end: Level-Zero's global and context timestamps) at the
    /// matching address; zeros for an event that is not signalled.
    WriteEventTimes {
        events: Vec<Arc<ZeEvent>>,
        dst: Vec<usize>,
    },
    /// Reset an event.
    ResetEvent(Arc<ZeEvent>),
    /// Write the current timestamp (ns, 8 bytes) to `dst`.
    WriteTimestamp { dst: usize },
}

impl Op {
    /// A command with nothing to do.
    pub const NOTHING: Op = Op::Do(command::Op::Nothing);
}

/// The shape of a region copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub dst_pitch: usize,
    pub dst_slice_pitch: usize,
    pub src_pitch: usize,
    pub src_slice_pitch: usize,
}

impl Region {
    /// The copy of this region from address `src` to address `dst`.
    pub fn op(&self, dst: usize, src: usize) -> command::Op {
        let rect = |pitch, slice_pitch| Rect {
            origin: [0; 3],
            region: [self.width, self.height, self.depth],
            row_pitch: pitch,
            slice_pitch,
        };
        command::Op::MemRect {
            dst,
            dst_rect: rect(self.dst_pitch, self.dst_slice_pitch),
            src,
            src_rect: rect(self.src_pitch, self.src_slice_pitch),
        }
    }

    /// Bytes from the first to one past the last byte touched at the destination and the
    /// source (0 for an empty region).
    pub fn extents(&self) -> Option<(usize, usize)> {
        if self.width == 0 || self.height == 0 || self.depth == 0 {
            return Some((0, 0));
        }
        let extent = |pitch: usize, slice: usize| {
            (self.depth - 1)
                .checked_mul(slice)?
                .checked_add((self.height - 1).checked_mul(pitch)?)?
                .checked_add(self.width)
        };
        Some((
            extent(self.dst_pitch, self.dst_slice_pitch)?,
            extent(self.src_pitch, self.src_slice_pitch)?,
        ))
    }
}

/// One recorded command.
pub struct Command {
    /// The events it waits for, each with its wait point ([`ZeEvent::wait_point`]).
    wait: Vec<(Arc<ZeEvent>, u64)>,
    op: Op,
    signal: Option<Arc<ZeEvent>>,
    /// The tracking point of a counter-based signal event ([`ZeEvent::track`]).
    signal_generation: u64,
}

impl Command {
    /// A command that does not touch memory by address.
    pub fn new(wait: Vec<Arc<ZeEvent>>, op: Op, signal: Option<Arc<ZeEvent>>) -> Result<Command> {
        if matches!(
            op,
            Op::Do(
                command::Op::MemCopy { .. }
                    | command::Op::MemFill { .. }
                    | command::Op::MemRect { .. }
                    | command::Op::Rect(_)
            ) | Op::WriteTimestamp { .. }
                | Op::WriteEventTimes { .. }
                | Op::LaunchIndirect { .. }
        ) {
            return Err(Error::InvalidOperation(
                "memory commands are made with Command::new_memory",
            ));
        }
        Ok(Command::tracked(wait, op, signal))
    }

    /// The command, tracked by its signal event if that is counter-based.
    fn tracked(wait: Vec<Arc<ZeEvent>>, op: Op, signal: Option<Arc<ZeEvent>>) -> Command {
        // What the waits wait for is fixed before the signal moves a counter-based event
        // on (a command may wait for the event it signals: its previous signaller).
        let wait = wait
            .into_iter()
            .map(|e| {
                let point = e.wait_point();
                (e, point)
            })
            .collect();
        let signal_generation = signal.as_ref().map_or(0, |e| e.track());
        Command {
            wait,
            op,
            signal,
            signal_generation,
        }
    }

    /// The command is submitted (again): see [`ZeEvent::resubmitted`].
    pub fn resubmitted(&self) {
        if let Some(e) = &self.signal {
            e.resubmitted(self.signal_generation);
        }
    }

    /// A command that reads or writes memory by address.
    ///
    /// # Safety
    /// For `Copy`, `src` must be readable and `dst` writable for `size` bytes; for `Fill`,
    /// `dst` writable for `size` bytes; for `WriteTimestamp`, `dst` writable for 8 bytes
    /// (any alignment); for `CopyRegion`, the region's extents at `src` readable and at
    /// `dst` writable; for `WriteEventTimes`, each address writable for 32 bytes; for
    /// `LaunchIndirect`, `counts` readable for 12 bytes per launch and `number`, if
    /// any, for 4; for `Image`, the host side of a
    /// read or write valid for its rectangle — from the moment the command may
    /// run until it completed. This is
    /// the application's obligation under the API; the front end checked the pointers
    /// are non-NULL and, when they fall in a USM allocation, that the range fits in it.
    pub unsafe fn new_memory(
        wait: Vec<Arc<ZeEvent>>,
        op: Op,
        signal: Option<Arc<ZeEvent>>,
    ) -> Command {
        Command::tracked(wait, op, signal)
    }

    /// Run the command on the calling thread (a queue's thread); false if it failed: a
    /// kernel faulted or ran out of time (the report went to stderr), or an event it
    /// waited for was signalled by a failed command (then it does not run). Its event is
    /// signalled either way, as failed when it failed, so no waiter hangs.
    pub fn execute(&self) -> bool {
        let mut waited_ok = true;
        for (e, point) in &self.wait {
            e.wait_for_point(*point);
            waited_ok &= !e.failed();
        }
        let start = now_ns();
        if !waited_ok {
            if let Some(e) = &self.signal {
                e.signal_command(self.signal_generation, start, start, true);
            }
            return false;
        }
        let mut ok = true;
        match &self.op {
            Op::Do(op) => {
                // SAFETY: per `new_memory`'s contract every address the op holds is valid
                // now; memory objects are held by the op.
                let done = unsafe { op.execute(&Platform::get().device, None) };
                // A launch's fault is reported where it happens; say what else failed.
                if done.is_err() && !matches!(op, command::Op::Launch(_)) {
                    eprintln!("ferrite: a Level-Zero copy or fill failed");
                }
                ok = done.is_ok();
            }
            Op::LaunchIndirect {
                launches,
                counts,
                number,
            } => {
                let n = match number {
                    Some(p) => {
                        let mut b = [0u8; 4];
                        // SAFETY: per `new_memory`'s contract `number` is readable for 4
                        // bytes; copied byte-wise (any alignment).
                        unsafe {
                            std::ptr::copy_nonoverlapping(*p as *const u8, b.as_mut_ptr(), 4)
                        };
                        (u32::from_ne_bytes(b) as usize).min(launches.len())
                    }
                    None => launches.len(),
                };
                for (i, launch) in launches[..n].iter().enumerate() {
                    let mut c = [0u32; 3];
                    // SAFETY: per `new_memory`'s contract the `i`th group count at `counts`
                    // is readable for 12 bytes; `c` is a local array of 12 bytes; copied
                    // byte-wise (any alignment).
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            (*counts + 12 * i) as *const u8,
                            c.as_mut_ptr().cast(),
                            12,
                        )
                    };
                    // The recorded launch is shared by every execution of the list: run
                    // it over the range the counts give.
                    if let Err(f) = launch.run_range(indirect_range(launch, c)) {
                        eprintln!("{f}");
                        ok = false;
                        break;
                    }
                }
            }
            Op::WriteEventTimes { events, dst } => {
                for (e, &d) in events.iter().zip(dst) {
                    let (start, end) = e.times().unwrap_or((0, 0));
                    let mut bytes = [0u8; 32];
                    for (i, v) in [start, end, start, end].iter().enumerate() {
                        bytes[i * 8..i * 8 + 8].copy_from_slice(&v.to_ne_bytes());
                    }
                    // SAFETY: per `new_memory`'s contract `d` is writable for 32 bytes.
                    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), d as *mut u8, 32) };
                }
            }
            Op::ResetEvent(e) => e.reset(),
            Op::WriteTimestamp { dst } => {
                let t = now_ns().to_ne_bytes();
                // SAFETY: per `new_memory`'s contract `dst` is writable for 8 bytes.
                unsafe { std::ptr::copy_nonoverlapping(t.as_ptr(), *dst as *mut u8, 8) };
            }
        }
        if let Some(e) = &self.signal {
            e.signal_command(self.signal_generation, start, now_ns(), !ok);
        }
        ok
    }
}

#[derive(Default)]
struct ListState {
    commands: Vec<Command>,
    /// Set by `close`: the commands an execution runs.
    closed: Option<Arc<Vec<Command>>>,
}

/// A regular command list.
#[derive(Default)]
pub struct CommandList {
    state: Mutex<ListState>,
}

impl CommandList {
    pub fn new() -> CommandList {
        CommandList::default()
    }

    /// Append a command; the list must be open.
    pub fn append(&self, cmd: Command) -> Result<()> {
        let mut st = self.state.lock();
        if st.closed.is_some() {
            return Err(Error::InvalidOperation("the command list is closed"));
        }
        st.commands.push(cmd);
        Ok(())
    }

    /// `zeCommandListClose`: no more commands; the list can be executed.
    pub fn close(&self) -> Result<()> {
        let mut st = self.state.lock();
        if st.closed.is_some() {
            // Closing a closed list changes nothing (the conformance tests' harness
            // closes lists it may have closed already).
            return Ok(());
        }
        let cmds = std::mem::take(&mut st.commands);
        st.closed = Some(Arc::new(cmds));
        Ok(())
    }

    /// `zeCommandListReset`: empty and open again. Submissions still running keep their
    /// own snapshot.
    pub fn reset(&self) {
        let mut st = self.state.lock();
        st.commands.clear();
        st.closed = None;
    }

    /// The commands of a submission of the closed list (`zeCommandQueueExecuteCommandLists`,
    /// or an immediate list running it): counter-based events its commands signal wait
    /// for this run of them ([`Command::resubmitted`]).
    pub fn to_submit(&self) -> Result<Arc<Vec<Command>>> {
        let cmds = self.commands()?;
        for c in cmds.iter() {
            c.resubmitted();
        }
        Ok(cmds)
    }

    /// The commands to run, if the list is closed.
    pub fn commands(&self) -> Result<Arc<Vec<Command>>> {
        self.state
            .lock()
            .closed
            .clone()
            .ok_or(Error::InvalidOperation("the command list is not closed"))
    }
}

/// An immediate command list: each appended command is submitted at once to its own
/// queue; in synchronous mode the append returns when the command has completed.
pub struct ImmediateList {
    queue: CmdQueue,
    pub synchronous: bool,
}

impl ImmediateList {
    pub fn new(synchronous: bool, priority: Priority) -> Result<ImmediateList> {
        Ok(ImmediateList {
            queue: CmdQueue::new(synchronous, priority)?,
            synchronous,
        })
    }

    pub fn append(&self, cmd: Command) {
        self.submit(vec![Arc::new(vec![cmd])]);
    }

    /// Submit to the list's queue; in synchronous mode, return once it completed.
    fn submit(&self, lists: Vec<Arc<Vec<Command>>>) {
        let ticket = self.queue.submit(Batch { lists, fence: None });
        if self.synchronous {
            self.queue.wait_for(ticket, u64::MAX);
        }
    }

    /// `zeCommandListImmediateAppendCommandListsExp`: run closed regular lists' commands
    /// in order after `first` (which waits for the append's events) and before `last`
    /// (which signals its event), as one submission.
    pub fn append_lists(&self, first: Command, lists: Vec<Arc<Vec<Command>>>, last: Command) {
        let mut all = Vec::with_capacity(lists.len() + 2);
        all.push(Arc::new(vec![first]));
        all.extend(lists);
        all.push(Arc::new(vec![last]));
        self.submit(all);
    }

    /// Wait until every appended command has completed.
    pub fn synchronize(&self, timeout_ns: u64) -> bool {
        self.queue.synchronize(timeout_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_extents() {
        let r = Region {
            width: 4,
            height: 3,
            depth: 2,
            dst_pitch: 10,
            dst_slice_pitch: 100,
            src_pitch: 4,
            src_slice_pitch: 12,
        };
        assert_eq!(r.extents(), Some((100 + 20 + 4, 12 + 8 + 4)));
        let empty = Region { depth: 0, ..r };
        assert_eq!(empty.extents(), Some((0, 0)));
        let huge = Region {
            dst_slice_pitch: usize::MAX,
            ..r
        };
        assert_eq!(huge.extents(), None);
    }

    #[test]
    fn region_copy_moves_rows() {
        let src: Vec<u8> = (0..24).collect();
        let mut dst = vec![0u8; 64];
        let region = Region {
            width: 2,
            height: 2,
            depth: 2,
            dst_pitch: 8,
            dst_slice_pitch: 32,
            src_pitch: 4,
            src_slice_pitch: 12,
        };
        // SAFETY: the extents (32 + 8 + 2 = 42 <= 64 at dst, 12 + 4 + 2 = 18 <= 24 at
        // src) lie inside the two vectors, which outlive the command.
        let cmd = unsafe {
            Command::new_memory(
                vec![],
                Op::Do(region.op(dst.as_mut_ptr() as usize, src.as_ptr() as usize)),
                None,
            )
        };
        cmd.execute();
        assert_eq!(&dst[0..2], &[0, 1]);
        assert_eq!(&dst[8..10], &[4, 5]);
        assert_eq!(&dst[32..34], &[12, 13]);
        assert_eq!(&dst[40..42], &[16, 17]);
        assert_eq!(dst.iter().filter(|&&b| b != 0).count(), 7);
    }

    #[test]
    fn lists_open_close_reset() {
        let l = CommandList::new();
        assert!(l.commands().is_err());
        l.append(Command::new(vec![], Op::NOTHING, None).unwrap())
            .unwrap();
        l.close().unwrap();
        assert_eq!(l.commands().unwrap().len(), 1);
        assert!(l
            .append(Command::new(vec![], Op::NOTHING, None).unwrap())
            .is_err());
        // A second close changes nothing.
        l.close().unwrap();
        assert_eq!(l.commands().unwrap().len(), 1);
        l.reset();
        assert!(l.commands().is_err());
    }
}
