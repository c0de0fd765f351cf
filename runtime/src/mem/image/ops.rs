//! Image commands as data: what `clEnqueue{Read,Write,Copy,Fill}Image`,
//! `clEnqueueCopyImageToBuffer` and `clEnqueueCopyBufferToImage` do, validated and resolved
//! to byte rectangles by the front end, with one [`ImageOp::execute`]. A queue runs it;
//! a command buffer or a Level-Zero command list can hold the same value.
//!
//! Copies between an image and a buffer are [`ImageOp::Copy`] with a tightly packed
//! rectangle on the buffer's side: every copy is a rectangle copy between two memory
//! objects.

use super::super::rect::{self, Rect};
use super::super::Mem;
use crate::error::{Error, Result};
use std::sync::Arc;

/// One image command.
pub enum ImageOp {
    /// Image rectangle → host memory at `host` (an address).
    Read {
        image: Arc<Mem>,
        rect: Rect,
        host: usize,
        host_rect: Rect,
    },
    /// Host memory at `host` → image rectangle.
    Write {
        image: Arc<Mem>,
        rect: Rect,
        host: usize,
        host_rect: Rect,
    },
    /// Rectangle of one memory object (image or buffer) → rectangle of another.
    Copy {
        src: Arc<Mem>,
        src_rect: Rect,
        dst: Arc<Mem>,
        dst_rect: Rect,
    },
    /// Every pixel of the rectangle becomes `pixel` (one encoded element).
    Fill {
        image: Arc<Mem>,
        rect: Rect,
        pixel: Vec<u8>,
    },
}

impl ImageOp {
    /// Perform the command.
    ///
    /// # Safety
    /// For `Read` and `Write`, `host` is valid for writes (reads) of every byte of
    /// `host_rect` until this returns: the application's promise when it enqueued the
    /// command.
    pub unsafe fn execute(&self) -> Result<()> {
        match self {
            ImageOp::Read {
                image,
                rect,
                host,
                host_rect,
            } => {
                // SAFETY: per this function's contract.
                unsafe { image.read_rect(rect, *host as *mut u8, host_rect) }
            }
            ImageOp::Write {
                image,
                rect,
                host,
                host_rect,
            } => {
                // SAFETY: per this function's contract.
                unsafe { image.write_rect(rect, *host as *const u8, host_rect) }
            }
            ImageOp::Copy {
                src,
                src_rect,
                dst,
                dst_rect,
            } => src.copy_rect_to(src_rect, dst, dst_rect),
            ImageOp::Fill { image, rect, pixel } => image.fill_rect(rect, pixel),
        }
    }
}

impl Mem {
    /// Repeat `pixel` over every row of `r`.
    pub fn fill_rect(&self, r: &Rect, pixel: &[u8]) -> Result<()> {
        if !r.fits(self.size) {
            return Err(Error::InvalidValue("region out of bounds"));
        }
        if pixel.is_empty() || !r.region[0].is_multiple_of(pixel.len()) {
            return Err(Error::InvalidValue("row is not a whole number of pixels"));
        }
        for offset in r.rows() {
            // SAFETY: every row of the rectangle lies inside the object (checked above);
            // nothing else in this process holds a Rust reference to its bytes.
            let row =
                unsafe { std::slice::from_raw_parts_mut(self.base().add(offset), r.region[0]) };
            super::super::fill_pattern(row, pixel);
        }
        Ok(())
    }
}

/// Whether two rectangles of the same image share a pixel (`CL_MEM_COPY_OVERLAP`).
pub fn overlap(a: &Rect, b: &Rect) -> bool {
    rect::overlap(a, 0, b, 0)
}
