//! Analyses of one SPIR-V function, as plain data the lowerings read.
//!
//! - [`cfg`]: successors, predecessors and a reverse post-order of the blocks reachable
//!   from the entry.
//! - [`loops`]: natural loops, a block order with every loop contiguous, and loop-closed
//!   form (dedicated exits, exit phis for the values used after a loop).
//! - [`uniformity`]: what each value is across the lanes of a vector of work-items
//!   (consecutive along x): the same in every lane, affine (`base + lane × step`), or
//!   varying; and which branches diverge.
//!
//! They run on a function after inlining (`workgroup::regions::inline_all`), so no
//! analysis has to see through calls.

pub mod cfg;
pub mod loops;
pub mod uniformity;
