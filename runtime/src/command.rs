//! Commands as data: what an OpenCL command does once its dependencies are done, validated
//! and resolved by the front end into an [`Op`], with one [`Op::execute`].
//!
//! A queue runs an `Op` once ([`Op::into_work`]); a
//! command buffer ([`buffer`]) records many and runs them at every enqueue. An `Op` holds
//! what it touches (`Arc`s of memory objects, a snapshot of kernel arguments), so running
//! it again gives the same command.

pub mod buffer;
pub mod geometry;

use crate::context::Context;
use crate::device::Device;
use crate::event::ExecError;
use crate::kernel::LaunchData;
use crate::mem::rect::RectOp;
use crate::mem::rect::{self, Rect};
use crate::mem::{fill_pattern_at, svm, Mem};
use crate::queue::{Queue, Work};
use std::sync::Arc;

/// One command.
pub enum Op {
    /// Nothing to do: markers, barriers, migrations and unmaps of host memory.
    Nothing,
    /// A kernel over an NDRange, its arguments snapshotted.
    Launch(Box<LaunchData>),
    /// `size` bytes of a buffer from `offset` to host memory at address `host`.
    Read {
        mem: Arc<Mem>,
        offset: usize,
        host: usize,
        size: usize,
    },
    /// `size` bytes of host memory at address `host` to a buffer from `offset`.
    Write {
        mem: Arc<Mem>,
        offset: usize,
        host: usize,
        size: usize,
    },
    /// `size` bytes from one buffer to another.
    CopyBuffer {
        src: Arc<Mem>,
        src_offset: usize,
        dst: Arc<Mem>,
        dst_offset: usize,
        size: usize,
    },
    /// `size` bytes of a buffer from `offset` filled by repeating `pattern`.
    FillBuffer {
        mem: Arc<Mem>,
        pattern: Vec<u8>,
        offset: usize,
        size: usize,
    },
    /// Image commands and rectangle transfers: reads and writes of an object's rectangle
    /// from host memory, copies between two objects, pixel fills.
    Rect(RectOp),
    /// `size` bytes from address `src` to address `dst` (SVM and USM).
    MemCopy { dst: usize, src: usize, size: usize },
    /// `size` bytes at address `dst` filled by repeating `pattern` (SVM and USM; the last
    /// copy may be partial, as Level-Zero allows).
    MemFill {
        dst: usize,
        pattern: Vec<u8>,
        size: usize,
    },
    /// A rectangle of memory at address `src` to one at address `dst` (Level-Zero region
    /// copies).
    MemRect {
        dst: usize,
        dst_rect: Rect,
        src: usize,
        src_rect: Rect,
    },
}

impl Op {
    /// The work of a queue's command that performs this op once.
    ///
    /// # Safety
    /// As [`execute`](Self::execute), until the command completes.
    pub unsafe fn into_work(self, queue: &Queue) -> Work {
        let device = queue.device.clone();
        let context = queue.context.clone();
        // SAFETY: per this function's contract.
        Box::new(move || unsafe { self.execute(&device, Some(&context)) })
    }

    /// Perform the command on `device` (a launch uses its workers); a kernel's fault is
    /// reported to stderr and to `context`'s callback (OpenCL), and fails the command.
    ///
    /// # Safety
    /// Every address the op holds (`Read`, `Write`, `MemCopy`, `MemFill`, `MemRect`, a rectangle read or
    /// write's host side) is valid for what the op does with it until this returns: the
    /// application's promise when it enqueued or recorded the command; the front end
    /// checked them non-NULL.
    pub unsafe fn execute(
        &self,
        device: &Device,
        context: Option<&Context>,
    ) -> Result<(), ExecError> {
        let failed = |_| ExecError::OutOfResources;
        match self {
            Op::Nothing => Ok(()),
            Op::Launch(launch) => launch.run_on(device).map_err(|fault| {
                eprintln!("{fault}");
                if let Some(c) = context {
                    c.notify(&fault.report);
                }
                ExecError::OutOfResources
            }),
            Op::Read {
                mem,
                offset,
                host,
                size,
            } => {
                // SAFETY: per this function's contract `host` is writable for `size` bytes.
                unsafe { mem.read(*offset, *host as *mut u8, *size) }.map_err(failed)
            }
            Op::Write {
                mem,
                offset,
                host,
                size,
            } => {
                // SAFETY: per this function's contract `host` is readable for `size` bytes.
                unsafe { mem.write(*offset, *host as *const u8, *size) }.map_err(failed)
            }
            Op::CopyBuffer {
                src,
                src_offset,
                dst,
                dst_offset,
                size,
            } => src
                .copy_to(*src_offset, dst, *dst_offset, *size)
                .map_err(failed),
            Op::FillBuffer {
                mem,
                pattern,
                offset,
                size,
            } => mem.fill(pattern, *offset, *size).map_err(failed),
            // SAFETY: per this function's contract.
            Op::Rect(op) => unsafe { op.execute() }.map_err(failed),
            Op::MemCopy { dst, src, size } => {
                // SAFETY: per this function's contract.
                unsafe { svm::copy(*dst, *src, *size) };
                Ok(())
            }
            Op::MemFill { dst, pattern, size } => {
                // SAFETY: per this function's contract `dst` is writable for `size` bytes
                // while the command runs.
                unsafe { fill_pattern_at(*dst as *mut u8, *size, pattern) };
                Ok(())
            }
            Op::MemRect {
                dst,
                dst_rect,
                src,
                src_rect,
            } => {
                // SAFETY: per this function's contract both rectangles are valid.
                unsafe { rect::copy(*src as *const u8, src_rect, *dst as *mut u8, dst_rect) };
                Ok(())
            }
        }
    }
}
