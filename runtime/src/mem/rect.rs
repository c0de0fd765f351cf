//! Rectangular (2-D/3-D) regions of a buffer, an image's storage or host memory, for the
//! `*Rect` and image commands: the pitch rules, bounds, the overlap test, the row-by-row
//! copies, and the commands on rectangles as data ([`RectOp`]).
//!
//! A rectangle is `region[0]` bytes × `region[1]` rows × `region[2]` slices starting at
//! `origin` (bytes, rows, slices), rows `row_pitch` bytes apart and slices `slice_pitch`
//! bytes apart. Pitches of 0 mean "tightly packed" and are resolved by [`Rect::new`].

use super::Mem;
use crate::error::{Error, Result};
use std::sync::Arc;

/// One side (buffer or host) of a rectangular transfer, pitches resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub origin: [usize; 3],
    pub region: [usize; 3],
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

impl Rect {
    /// Resolve pitches and check the pitch rules (each failure is the API's
    /// `CL_INVALID_VALUE`):
    /// - every `region` element is non-zero;
    /// - a non-zero `row_pitch` is at least `region[0]`;
    /// - a non-zero `slice_pitch` is at least `region[1] × row_pitch` and a multiple of
    ///   `row_pitch`.
    pub fn new(
        origin: [usize; 3],
        region: [usize; 3],
        row_pitch: usize,
        slice_pitch: usize,
    ) -> Result<Rect> {
        if region.contains(&0) {
            return Err(Error::InvalidValue("a region element is 0"));
        }
        let row_pitch = match row_pitch {
            0 => region[0],
            p if p < region[0] => return Err(Error::InvalidValue("row pitch < region[0]")),
            p => p,
        };
        let min_slice = region[1]
            .checked_mul(row_pitch)
            .ok_or(Error::InvalidValue("pitch overflow"))?;
        let slice_pitch = match slice_pitch {
            0 => min_slice,
            p if p < min_slice || !p.is_multiple_of(row_pitch) => {
                return Err(Error::InvalidValue(
                    "slice pitch < region[1] * row pitch or not a multiple of it",
                ))
            }
            p => p,
        };
        Ok(Rect {
            origin,
            region,
            row_pitch,
            slice_pitch,
        })
    }

    /// Byte offset of the first byte of row `y` of slice `z` (relative to the region).
    fn row_offset(&self, y: usize, z: usize) -> usize {
        (self.origin[2] + z) * self.slice_pitch
            + (self.origin[1] + y) * self.row_pitch
            + self.origin[0]
    }

    /// Offset of the first byte.
    pub fn start(&self) -> Option<usize> {
        self.origin[2]
            .checked_mul(self.slice_pitch)?
            .checked_add(self.origin[1].checked_mul(self.row_pitch)?)?
            .checked_add(self.origin[0])
    }

    /// One past the last byte (`None` on overflow).
    pub fn end(&self) -> Option<usize> {
        let last = (self.region[2] - 1)
            .checked_mul(self.slice_pitch)?
            .checked_add((self.region[1] - 1).checked_mul(self.row_pitch)?)?
            .checked_add(self.region[0])?;
        self.start()?.checked_add(last)
    }

    /// Whether the rectangle lies in `size` bytes.
    pub fn fits(&self, size: usize) -> bool {
        self.end().is_some_and(|e| e <= size)
    }

    /// The offset of every row, slice by slice.
    pub fn rows(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.region[2])
            .flat_map(move |z| (0..self.region[1]).map(move |y| self.row_offset(y, z)))
    }
}

/// Whether two rectangles of one memory (offsets `a_base`/`b_base` added) with the same
/// `region` share a byte.
pub fn overlap(a: &Rect, a_base: usize, b: &Rect, b_base: usize) -> bool {
    let (Some(a0), Some(a1), Some(b0), Some(b1)) = (a.start(), a.end(), b.start(), b.end()) else {
        return true;
    };
    let (a0, a1, b0, b1) = (a0 + a_base, a1 + a_base, b0 + b_base, b1 + b_base);
    if a1 <= b0 || b1 <= a0 {
        return false;
    }
    let rows = a.region[1] * a.region[2];
    if rows > (1 << 20) {
        // Too many rows to compare exactly: overlapping bounds count as overlap.
        return true;
    }
    // Rows of each side are disjoint, increasing intervals: a merge finds a shared byte.
    let len = a.region[0];
    let xs: Vec<usize> = a.rows().map(|o| o + a_base).collect();
    let ys: Vec<usize> = b.rows().map(|o| o + b_base).collect();
    let (mut i, mut j) = (0, 0);
    while i < xs.len() && j < ys.len() {
        let (x, y) = (xs[i], ys[j]);
        if x < y + len && y < x + len {
            return true;
        }
        if x < y {
            i += 1;
        } else {
            j += 1;
        }
    }
    false
}

/// Copy the rectangle `src_rect` of `src` to `dst_rect` of `dst` (same region).
///
/// A rectangle of at least [`super::PARALLEL_FILL_BYTES`] whose two sides lie apart is
/// copied by every executor worker ([`crate::executor::run_parts`]), a run of rows each (an image read of 2048 × 2048
/// RGBA8 pixels is 16 MiB); a row itself goes through [`super::copy_bytes`].
///
/// # Safety
/// `src` and `dst` are valid for reads/writes of every byte of their rectangles.
pub unsafe fn copy(src: *const u8, src_rect: &Rect, dst: *mut u8, dst_rect: &Rect) {
    let len = src_rect.region[0];
    let (s, d) = (src as usize, dst as usize);
    let apart = match (
        src_rect.start(),
        src_rect.end(),
        dst_rect.start(),
        dst_rect.end(),
    ) {
        (Some(a0), Some(a1), Some(b0), Some(b1)) => s + a1 <= d + b0 || d + b1 <= s + a0,
        _ => false,
    };
    in_row_runs(src_rect, apart, |first, n| {
        for (so, doff) in src_rect.rows().zip(dst_rect.rows()).skip(first).take(n) {
            // SAFETY: both rows lie in their rectangles (caller's contract); runs on
            // other workers copy other rows of rectangles that lie apart; `copy_bytes`
            // tolerates overlap.
            unsafe { super::copy_bytes((s + so) as *const u8, (d + doff) as *mut u8, len) };
        }
    });
}

/// Call `f(first, count)` on runs of the rows of `r`, in row order: one run per executor
/// worker ([`crate::executor::run_parts`]) when `split` and the rectangle holds at least
/// [`super::PARALLEL_FILL_BYTES`], else one run of every row on this thread.
pub fn in_row_runs(r: &Rect, split: bool, f: impl Fn(usize, usize) + Sync) {
    let rows = r.region[1] * r.region[2];
    let workers = crate::executor::num_workers();
    if split && workers > 1 && rows >= workers && r.region[0] * rows >= super::PARALLEL_FILL_BYTES {
        let per = rows.div_ceil(workers);
        crate::executor::run_parts(workers, |i| f(i * per, per));
    } else {
        f(0, rows);
    }
}

/// A command on rectangles of memory objects, as data: an image or buffer rectangle read
/// to or written from host memory, a copy between two objects (image to image, image to
/// buffer with a tightly packed rectangle on the buffer's side, buffer to buffer), a fill
/// with one encoded pixel. The front end validated and resolved it to byte rectangles.
pub enum RectOp {
    /// Object rectangle → host memory at `host` (an address).
    Read {
        mem: Arc<Mem>,
        rect: Rect,
        host: usize,
        host_rect: Rect,
    },
    /// Host memory at `host` → object rectangle.
    Write {
        mem: Arc<Mem>,
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
        mem: Arc<Mem>,
        rect: Rect,
        pixel: Vec<u8>,
    },
}

impl RectOp {
    /// Perform the command.
    ///
    /// # Safety
    /// For `Read` and `Write`, `host` is valid for writes (reads) of every byte of
    /// `host_rect` until this returns: the application's promise when it enqueued the
    /// command.
    pub unsafe fn execute(&self) -> Result<()> {
        match self {
            RectOp::Read {
                mem,
                rect,
                host,
                host_rect,
            } => {
                // SAFETY: per this function's contract.
                unsafe { mem.read_rect(rect, *host as *mut u8, host_rect) }
            }
            RectOp::Write {
                mem,
                rect,
                host,
                host_rect,
            } => {
                // SAFETY: per this function's contract.
                unsafe { mem.write_rect(rect, *host as *const u8, host_rect) }
            }
            RectOp::Copy {
                src,
                src_rect,
                dst,
                dst_rect,
            } => src.copy_rect_to(src_rect, dst, dst_rect),
            RectOp::Fill { mem, rect, pixel } => mem.fill_rect(rect, pixel),
        }
    }
}

impl Mem {
    /// Copy `buf_rect` of this object to `host_rect` of `host`.
    ///
    /// # Safety
    /// `host` is valid for writes of every byte of `host_rect`.
    pub unsafe fn read_rect(&self, buf_rect: &Rect, host: *mut u8, host_rect: &Rect) -> Result<()> {
        if !buf_rect.fits(self.size) {
            return Err(Error::InvalidValue("region out of bounds"));
        }
        // SAFETY: the buffer side was checked; the host side is the caller's contract.
        unsafe { copy(self.base(), buf_rect, host, host_rect) };
        Ok(())
    }

    /// Copy `host_rect` of `host` to `buf_rect` of this object.
    ///
    /// # Safety
    /// `host` is valid for reads of every byte of `host_rect`.
    pub unsafe fn write_rect(
        &self,
        buf_rect: &Rect,
        host: *const u8,
        host_rect: &Rect,
    ) -> Result<()> {
        if !buf_rect.fits(self.size) {
            return Err(Error::InvalidValue("region out of bounds"));
        }
        // SAFETY: the buffer side was checked; the host side is the caller's contract.
        unsafe { copy(host, host_rect, self.base(), buf_rect) };
        Ok(())
    }

    /// Copy `src_rect` of this object to `dst_rect` of `dst`.
    pub fn copy_rect_to(&self, src_rect: &Rect, dst: &Mem, dst_rect: &Rect) -> Result<()> {
        if !src_rect.fits(self.size) || !dst_rect.fits(dst.size) {
            return Err(Error::InvalidValue("region out of bounds"));
        }
        // SAFETY: both rectangles lie inside their objects (checked above).
        unsafe { copy(self.base(), src_rect, dst.base(), dst_rect) };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pitch_rules() {
        let r = Rect::new([0; 3], [4, 3, 2], 0, 0).unwrap();
        assert_eq!((r.row_pitch, r.slice_pitch), (4, 12));
        assert_eq!(r.end(), Some(24));
        assert!(Rect::new([0; 3], [4, 0, 1], 0, 0).is_err());
        assert!(Rect::new([0; 3], [4, 3, 1], 3, 0).is_err());
        assert!(Rect::new([0; 3], [4, 3, 1], 8, 20).is_err());
        assert!(Rect::new([0; 3], [4, 3, 1], 8, 28).is_err());
        let r = Rect::new([1, 2, 1], [4, 3, 2], 8, 32).unwrap();
        assert_eq!(r.start(), Some(32 + 16 + 1));
        assert_eq!(r.end(), Some(49 + 32 + 16 + 4));
        assert!(r.fits(101) && !r.fits(100));
    }

    #[test]
    fn overlap_is_exact_by_rows() {
        // Two 2×2 blocks side by side in rows of 8 bytes: interleaved, disjoint.
        let a = Rect::new([0, 0, 0], [2, 2, 1], 8, 0).unwrap();
        let b = Rect::new([2, 0, 0], [2, 2, 1], 8, 0).unwrap();
        assert!(!overlap(&a, 0, &b, 0));
        let c = Rect::new([1, 1, 0], [2, 2, 1], 8, 0).unwrap();
        assert!(overlap(&a, 0, &c, 0));
        assert!(!overlap(&a, 0, &a, 100));
        assert!(overlap(&a, 0, &b, 7));
    }

    #[test]
    fn tight_pitches_overlap_where_the_ctss_width_pitches_would_not() {
        // CTS `test_basic bufferreadwriterect`, one failing run: buffer 3 is 587×580×895
        // bytes; copy origin (13,372,310) to (208,361,81), region 66×45×243, pitches 0.
        // The test judged overlap with 587-byte rows (disjoint columns) and expected
        // success; with the pitches it passed (tight: 66 and 66×45) the rectangles share
        // bytes, so `CL_MEM_COPY_OVERLAP` is the specification's answer (OpenCL-CTS#2765).
        let src = Rect::new([13, 372, 310], [66, 45, 243], 0, 0).unwrap();
        let dst = Rect::new([208, 361, 81], [66, 45, 243], 0, 0).unwrap();
        assert!(overlap(&src, 0, &dst, 0));
        let src = Rect::new([13, 372, 310], [66, 45, 243], 587, 587 * 580).unwrap();
        let dst = Rect::new([208, 361, 81], [66, 45, 243], 587, 587 * 580).unwrap();
        assert!(!overlap(&src, 0, &dst, 0));
    }

    #[test]
    fn copies_rows() {
        let src: Vec<u8> = (0..64).collect();
        let mut dst = vec![0u8; 64];
        let s = Rect::new([1, 1, 0], [2, 2, 1], 8, 0).unwrap();
        let d = Rect::new([0, 0, 0], [2, 2, 1], 2, 0).unwrap();
        // SAFETY: both rectangles lie in the 64-byte vectors.
        unsafe { copy(src.as_ptr(), &s, dst.as_mut_ptr(), &d) };
        assert_eq!(&dst[..4], &[9, 10, 17, 18]);
    }

    /// A rectangle large enough to be split over the workers copies every row, and only
    /// its rows, as one thread would: 3D, odd widths and pitches on both sides.
    #[test]
    fn large_rectangles_copy_as_row_by_row() {
        let region = [1031, 67, 65];
        let s = Rect::new([5, 3, 2], region, 1100, 1100 * 80).unwrap();
        let d = Rect::new([1, 0, 1], region, 1040, 1040 * 70).unwrap();
        assert!(region[0] * region[1] * region[2] >= super::super::PARALLEL_FILL_BYTES);
        let src: Vec<u8> = (0..s.end().unwrap())
            .map(|i| (i * 131 % 251) as u8)
            .collect();
        let mut got = vec![0xEEu8; d.end().unwrap() + 1];
        let mut want = got.clone();
        for (so, doff) in s.rows().zip(d.rows()) {
            want[doff..doff + region[0]].copy_from_slice(&src[so..so + region[0]]);
        }
        // SAFETY: both rectangles lie in their vectors.
        unsafe { copy(src.as_ptr(), &s, got.as_mut_ptr(), &d) };
        assert!(got == want);
    }
}
