//! Level-Zero kernels: argument values written straight into an argument block at the
//! offsets the compiler chose, a group size, and the launch snapshot a command list keeps.
//!
//! Pointer arguments are USM (or plain host) addresses: the application passes the
//! pointer's value and it goes into the slot as is. A `__local` argument is given as a
//! size with no value; each launch places it in the group's local memory after the
//! kernel's own `Workgroup` variables, at the next multiple of
//! [`LOCAL_ARG_ALIGN`](crate::kernel::LOCAL_ARG_ALIGN).
//!
//! Appending a launch snapshots the arguments (Level-Zero semantics: later
//! `zeKernelSetArgumentValue` calls do not change recorded launches).

use crate::error::{Error, Result};
use crate::executor::{self, NdRange};
use crate::kernel::{LaunchData, LOCAL_ARG_ALIGN};
use crate::mem::buffer::AlignedBuf;
use crate::mem::Mem;
use ferrite_compiler::{ArgKind, CompiledKernel, KernelInfo};
use parking_lot::Mutex;
use std::sync::Arc;

/// What the application passed for one argument.
#[derive(Clone, Copy)]
pub enum ArgInput<'a> {
    /// `size` bytes at a non-NULL `pArgValue`.
    Bytes(&'a [u8]),
    /// A NULL `pArgValue` with this size: a NULL pointer, or a `__local` size.
    Null(usize),
    /// An image (the front end resolved its handle); held while set and by launches.
    Image(&'a Arc<Mem>),
    /// A sampler's bits (`SamplerState::bits`).
    Sampler(u64),
}

struct ArgState {
    /// The argument block; value and pointer slots are filled in place.
    block: Vec<u8>,
    /// Which arguments were set.
    set: Vec<bool>,
    /// Size of each `__local` argument (0 for the others).
    local: Vec<usize>,
    /// The image of each image argument, kept alive while its descriptor is in `block`.
    images: Vec<Option<Arc<Mem>>>,
    group_size: [u32; 3],
    /// `zeKernelSetGlobalOffsetExp`.
    global_offset: [u32; 3],
}

/// A kernel object: one compiled kernel of a module and its current arguments.
pub struct ZeKernel {
    /// Shared with every launch snapshot.
    pub compiled: Arc<CompiledKernel>,
    state: Mutex<ArgState>,
}

fn align_up(x: usize, a: usize) -> usize {
    x.div_ceil(a) * a
}

impl ZeKernel {
    pub fn new(compiled: CompiledKernel) -> ZeKernel {
        let info = &compiled.info;
        let n = info.args.len();
        let block_size = info
            .args
            .iter()
            .map(|a| a.offset + slot_size(&a.kind))
            .max()
            .unwrap_or(0)
            .max(info.args_size);
        let group_size = info.reqd_work_group_size.unwrap_or([1, 1, 1]);
        ZeKernel {
            state: Mutex::new(ArgState {
                block: vec![0; block_size],
                set: vec![false; n],
                local: vec![0; n],
                images: vec![None; n],
                group_size,
                global_offset: [0; 3],
            }),
            compiled: Arc::new(compiled),
        }
    }

    pub fn info(&self) -> &KernelInfo {
        &self.compiled.info
    }

    /// `zeKernelSetArgumentValue`.
    pub fn set_arg(&self, index: usize, input: ArgInput<'_>) -> Result<()> {
        let args = &self.compiled.info.args;
        let desc = args.get(index).ok_or(Error::InvalidArgIndex {
            index,
            count: args.len(),
        })?;
        let size = match input {
            ArgInput::Bytes(b) => b.len(),
            ArgInput::Null(n) => n,
            ArgInput::Image(_) | ArgInput::Sampler(_) => 8,
        };
        let mut st = self.state.lock();
        let slot = desc.offset;
        match (&desc.kind, input) {
            (ArgKind::Value { size: want }, ArgInput::Bytes(b)) => {
                if b.len() != *want {
                    return Err(Error::InvalidArgSize {
                        index,
                        expected: *want,
                        got: b.len(),
                    });
                }
                st.block[slot..slot + b.len()].copy_from_slice(b);
            }
            (ArgKind::Value { .. }, ArgInput::Null(_)) => {
                return Err(Error::InvalidArgValue {
                    index,
                    reason: "a by-value argument needs a value",
                })
            }
            (ArgKind::Image, ArgInput::Image(m)) => {
                let addr = m.image_descriptor_addr();
                if addr == 0 {
                    return Err(Error::InvalidArgValue {
                        index,
                        reason: "not an image",
                    });
                }
                st.block[slot..slot + 8].copy_from_slice(&addr.to_ne_bytes());
                st.images[index] = Some(m.clone());
            }
            (ArgKind::Sampler, ArgInput::Sampler(bits)) => {
                st.block[slot..slot + 8].copy_from_slice(&bits.to_ne_bytes());
            }
            (ArgKind::Image, _) => {
                return Err(Error::InvalidArgValue {
                    index,
                    reason: "an image argument needs an image",
                })
            }
            (ArgKind::Sampler, _) => {
                return Err(Error::InvalidArgValue {
                    index,
                    reason: "a sampler argument needs a sampler",
                })
            }
            (_, ArgInput::Image(_) | ArgInput::Sampler(_)) => {
                return Err(Error::InvalidArgValue {
                    index,
                    reason: "an image or sampler for an argument of another kind",
                })
            }
            (ArgKind::Buffer { .. }, _) => {
                if size != 8 {
                    return Err(Error::InvalidArgSize {
                        index,
                        expected: 8,
                        got: size,
                    });
                }
                let bytes = match input {
                    ArgInput::Bytes(b) => [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]],
                    _ => [0; 8],
                };
                st.block[slot..slot + 8].copy_from_slice(&bytes);
            }
            (ArgKind::Local, _) => {
                if size == 0 {
                    return Err(Error::InvalidArgSize {
                        index,
                        expected: 1,
                        got: 0,
                    });
                }
                st.local[index] = size;
            }
        }
        st.set[index] = true;
        Ok(())
    }

    /// `zeKernelSetGroupSize` (already validated against the device and the kernel).
    pub fn set_group_size(&self, size: [u32; 3]) {
        self.state.lock().group_size = size;
    }

    pub fn group_size(&self) -> [u32; 3] {
        self.state.lock().group_size
    }

    /// `zeKernelSetGlobalOffsetExp`: the offset of every later launch's global ids.
    pub fn set_global_offset(&self, offset: [u32; 3]) {
        self.state.lock().global_offset = offset;
    }

    /// `zeKernelSuggestGroupSize`: the required size if the kernel has one, else divisors
    /// of the global size (launches are always uniform in Level-Zero).
    pub fn suggest_group_size(&self, global: [u32; 3]) -> [u32; 3] {
        if let Some(r) = self.compiled.info.reqd_work_group_size {
            return r;
        }
        let range = NdRange {
            work_dim: 3,
            global_offset: [0; 3],
            global_size: global.map(u64::from),
            local_size: [1; 3],
        };
        let max = crate::device::MAX_WORK_GROUP_SIZE as u64;
        let independent = executor::items_independent(&self.compiled);
        executor::pick_local_size(&range, max, false, independent).map(|x| x as u32)
    }

    /// Local memory of one group with the current arguments.
    pub fn local_mem_size(&self) -> usize {
        let st = self.state.lock();
        local_layout(self.compiled.static_local_size, &st.local).1
    }

    /// Snapshot the arguments for a launch of `group_count` groups of the current size.
    pub fn launch(&self, group_count: [u32; 3]) -> Result<LaunchData> {
        let st = self.state.lock();
        let missing: Vec<usize> = (0..st.set.len()).filter(|&i| !st.set[i]).collect();
        if !missing.is_empty() {
            return Err(Error::KernelArgsNotSet { missing });
        }
        let mut args = AlignedBuf::new(st.block.len())?;
        let bytes = args.as_mut_slice();
        bytes[..st.block.len()].copy_from_slice(&st.block);
        let (offsets, local_mem_size) = local_layout(self.compiled.static_local_size, &st.local);
        for (desc, off) in self.compiled.info.args.iter().zip(offsets) {
            if let Some(off) = off {
                bytes[desc.offset..desc.offset + 8].copy_from_slice(&(off as u64).to_ne_bytes());
            }
        }
        let range = range(group_count, st.group_size, st.global_offset);
        let images = st.images.iter().flatten().cloned().collect();
        LaunchData::new(self.compiled.clone(), args, local_mem_size, images, range)
    }
}

/// The range an indirect launch runs: `count` groups of the recorded launch's size and
/// offset (read from memory when the command runs).
pub fn indirect_range(launch: &LaunchData, count: [u32; 3]) -> NdRange {
    let r = launch.range();
    range(
        count,
        r.local_size.map(|s| s as u32),
        r.global_offset.map(|o| o as u32),
    )
}

/// The NDRange of `count` groups of `size` work-items: `work_dim` is the highest
/// dimension with more than one work-item (Level-Zero has no work dimension of its own).
fn range(count: [u32; 3], size: [u32; 3], offset: [u32; 3]) -> NdRange {
    let local = size.map(u64::from);
    let global: [u64; 3] = std::array::from_fn(|d| u64::from(count[d]) * local[d]);
    let work_dim = if global[2] > 1 {
        3
    } else if global[1] > 1 {
        2
    } else {
        1
    };
    NdRange {
        work_dim,
        global_offset: offset.map(u64::from),
        global_size: global,
        local_size: local,
    }
}

fn slot_size(kind: &ArgKind) -> usize {
    match kind {
        ArgKind::Value { size } => *size,
        _ => 8,
    }
}

/// Offsets of the `__local` arguments (by argument) and the total local memory per group.
fn local_layout(static_size: usize, local: &[usize]) -> (Vec<Option<usize>>, usize) {
    let mut total = static_size;
    let offsets = local
        .iter()
        .map(|&size| {
            (size > 0).then(|| {
                let off = align_up(total, LOCAL_ARG_ALIGN);
                total = off + size;
                off
            })
        })
        .collect();
    (offsets, total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::check_total;

    #[test]
    fn launches_beyond_2_pow_64_work_items_are_refused() {
        let r = range([u32::MAX; 3], [1, 1, 1], [0; 3]);
        assert!(check_total(&r).is_err());
        let r = range([u32::MAX, u32::MAX, 1], [1, 1, 1], [0; 3]);
        assert!(check_total(&r).is_ok());
        let r = range([u32::MAX, 2, 1], [u32::MAX, 1, 1], [0; 3]);
        assert!(check_total(&r).is_err());
    }

    #[test]
    fn ranges_take_their_dimension_from_the_sizes() {
        let r = range([4, 1, 1], [8, 1, 1], [0; 3]);
        assert_eq!((r.work_dim, r.global_size), (1, [32, 1, 1]));
        let r = range([1, 3, 1], [2, 2, 1], [1, 2, 3]);
        assert_eq!((r.work_dim, r.global_size), (2, [2, 6, 1]));
        assert_eq!(r.global_offset, [1, 2, 3]);
        assert_eq!(range([1, 1, 2], [1, 1, 1], [0; 3]).work_dim, 3);
    }

    #[test]
    fn local_arguments_follow_static_local_memory() {
        let (offs, total) = local_layout(10, &[0, 100, 0, 8]);
        assert_eq!(offs, vec![None, Some(128), None, Some(256)]);
        assert_eq!(total, 264);
        let (offs, total) = local_layout(0, &[4]);
        assert_eq!(offs, vec![Some(0)]);
        assert_eq!(total, 4);
    }
}
