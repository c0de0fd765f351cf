//! What image commands need beyond rectangles of bytes ([`RectOp`](super::super::rect::RectOp),
//! to which the front end resolves every image command): filling a rectangle with one
//! encoded pixel, and the overlap test of two rectangles of one image.

use super::super::rect::{self, Rect};
use super::super::Mem;
use crate::error::{Error, Result};

impl Mem {
    /// Repeat `pixel` over every row of `r`; a rectangle of at least
    /// [`PARALLEL_FILL_BYTES`](super::super::PARALLEL_FILL_BYTES) on every executor worker.
    pub fn fill_rect(&self, r: &Rect, pixel: &[u8]) -> Result<()> {
        if !r.fits(self.size) {
            return Err(Error::InvalidValue("region out of bounds"));
        }
        if pixel.is_empty() || !r.region[0].is_multiple_of(pixel.len()) {
            return Err(Error::InvalidValue("row is not a whole number of pixels"));
        }
        // One row of pixels made once, then copied to every row; a row longer than
        // `ROW_COPY` bytes is filled as a whole (`fill_pattern_at`) instead.
        const ROW_COPY: usize = 64 << 10;
        let (len, base) = (r.region[0], self.base() as usize);
        let mut row = vec![0u8; if len <= ROW_COPY { len } else { 0 }];
        super::super::fill_pattern(&mut row, pixel);
        let fill_row = |offset: usize| {
            let dst = (base + offset) as *mut u8;
            // SAFETY: every row of the rectangle lies inside the object (checked above),
            // and `row` is this function's own.
            unsafe {
                if row.len() == len {
                    std::ptr::copy_nonoverlapping(row.as_ptr(), dst, len)
                } else {
                    super::super::fill_pattern_at(dst, len, pixel)
                }
            };
        };
        // Rows never overlap: large rectangles by runs of rows on every worker.
        rect::in_row_runs(r, true, |first, n| {
            r.rows().skip(first).take(n).for_each(fill_row)
        });
        Ok(())
    }
}

/// Whether two rectangles of the same image share a pixel (`CL_MEM_COPY_OVERLAP`).
pub fn overlap(a: &Rect, b: &Rect) -> bool {
    rect::overlap(a, 0, b, 0)
}
