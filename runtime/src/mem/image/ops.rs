//! What image commands need beyond rectangles of bytes ([`RectOp`](super::super::rect::RectOp),
//! to which the front end resolves every image command): filling a rectangle with one
//! encoded pixel, and the overlap test of two rectangles of one image.

use super::super::rect::{self, Rect};
use super::super::Mem;
use crate::error::{Error, Result};

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
