//! The geometry of an OpenCL NDRange: its checks against the kernel and the device, in the
//! specification's order, and the work-group size chosen when the application gives none.
//! `clEnqueueNDRangeKernel`, `clCommandNDRangeKernelKHR`, a mutable launch's update and
//! `clGetKernelSuggestedLocalWorkSizeKHR` all go through [`nd_range`].

use crate::device::{MAX_WORK_GROUP_SIZE, MAX_WORK_ITEM_SIZES};
use crate::error::{Error, Geometry, Result};
use crate::executor::{self, NdRange};
use crate::kernel::Kernel;

/// What the geometry rules need to know of a kernel.
#[derive(Clone, Copy, Debug)]
pub struct KernelLimits {
    /// `reqd_work_group_size`, if the kernel has one.
    pub reqd: Option<[u32; 3]>,
    /// Work-groups must divide the global size (OpenCL C before 2.0, or
    /// `-cl-uniform-work-group-size`).
    pub uniform: bool,
    /// The most work-items in a group (`CL_KERNEL_WORK_GROUP_SIZE`).
    pub max_group: u64,
    /// The work-items share nothing through a group (no barrier, local memory or group
    /// collective), so the size of a chosen group only matters for speed.
    pub independent: bool,
}

impl KernelLimits {
    pub fn of(kernel: &Kernel) -> KernelLimits {
        KernelLimits {
            reqd: kernel.info().reqd_work_group_size,
            uniform: kernel.built.uniform_work_groups,
            max_group: kernel.max_work_group_size().min(MAX_WORK_GROUP_SIZE) as u64,
            independent: executor::items_independent(&kernel.compiled),
        }
    }
}

fn fail(g: Geometry) -> Error {
    Error::InvalidGeometry(g)
}

/// The NDRange of `work_dim` dimensions with the given global offset, global size and local
/// size (each `work_dim` long, or empty when the application passed NULL), checked in the
/// specification's order; the local size is chosen when none is given.
pub fn nd_range(
    limits: &KernelLimits,
    work_dim: u32,
    offset: &[usize],
    global: &[usize],
    local: &[usize],
) -> Result<NdRange> {
    // CL_INVALID_WORK_DIMENSION if work_dim is not a valid value (i.e. a value between 1
    // and CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS).
    if !(1..=3).contains(&work_dim) {
        return Err(fail(Geometry::WorkDimension));
    }
    let dims = work_dim as usize;
    let given = |s: &[usize]| s.is_empty() || s.len() == dims;
    if !given(offset) || !given(global) || !given(local) {
        return Err(Error::InvalidValue(
            "an NDRange array of another length than work_dim",
        ));
    }
    // If global_work_size is NULL, or the value in any passed dimension is 0 then the
    // kernel command will trivially succeed after its event dependencies are satisfied.
    // (CL_INVALID_GLOBAL_WORK_SIZE for those is deprecated by version 2.1.)
    let zeros = [0usize; 3];
    let global = if global.is_empty() {
        &zeros[..dims]
    } else {
        global
    };
    // CL_INVALID_GLOBAL_WORK_SIZE if any of the values specified in global_work_size[0],
    // ... global_work_size[work_dim - 1] exceed the maximum value representable by size_t
    // on the device on which the kernel-instance will be enqueued. Each value is a size_t
    // already; what can exceed size_t is the NDRange they span: the number of work-items
    // (and get_global_linear_id) must be a size_t too. A range of 2^22 x 2^22 x 2^22
    // work-items wraps to 0 in 64 bits and would run for ever.
    if !global.contains(&0)
        && global
            .iter()
            .try_fold(1usize, |n, &g| n.checked_mul(g))
            .is_none()
    {
        return Err(fail(Geometry::GlobalWorkSize));
    }
    let mut range = NdRange {
        work_dim,
        global_offset: [0; 3],
        global_size: [1; 3],
        local_size: [1; 3],
    };
    for d in 0..dims {
        range.global_size[d] = global[d] as u64;
        if !offset.is_empty() {
            // CL_INVALID_GLOBAL_OFFSET if the value specified in global_work_size + the
            // corresponding values in global_work_offset for any dimensions is greater
            // than the maximum value representable by size_t on the device.
            if global[d].checked_add(offset[d]).is_none() {
                return Err(fail(Geometry::GlobalOffset));
            }
            range.global_offset[d] = offset[d] as u64;
        }
    }
    let divisible = |r: &NdRange| (0..3).all(|d| r.global_size[d].is_multiple_of(r.local_size[d]));
    let group = |why| Err(fail(Geometry::WorkGroupSize(why)));
    if !local.is_empty() {
        for (slot, &l) in range.local_size.iter_mut().zip(local) {
            // A local size of 0 is not a valid work-group.
            if l == 0 {
                return group("a local size of 0");
            }
            *slot = l as u64;
        }
        // CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified and does not match
        // the required work-group size for kernel in the program source.
        if let Some(r) = limits.reqd {
            if (0..3).any(|d| range.local_size[d] != u64::from(r[d])) {
                return group("not the kernel's required work-group size");
            }
        }
        // CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified and the total number
        // of work-items in the work-group ... is greater than the value specified by
        // CL_KERNEL_WORK_GROUP_SIZE.
        if range.local_size.iter().product::<u64>() > limits.max_group {
            return group("more work-items than CL_KERNEL_WORK_GROUP_SIZE");
        }
        // CL_INVALID_WORK_GROUP_SIZE if the work-group size must be uniform and ... the
        // global_work_size is not evenly divisible by the local_work_size.
        if limits.uniform && !divisible(&range) {
            return group("does not divide the global size, and groups must be uniform");
        }
        // CL_INVALID_WORK_ITEM_SIZE if the number of work-items specified in any of
        // local_work_size[0], ... local_work_size[work_dim - 1] is greater than the
        // corresponding values specified by CL_DEVICE_MAX_WORK_ITEM_SIZES.
        if local
            .iter()
            .zip(MAX_WORK_ITEM_SIZES)
            .any(|(&l, max)| l > max)
        {
            return Err(fail(Geometry::WorkItemSize));
        }
    } else if let Some(r) = limits.reqd {
        // No local size given: the required one.
        range.local_size = r.map(u64::from);
        if limits.uniform && !divisible(&range) {
            return group("the required work-group size does not divide the global size");
        }
    } else if !range.global_size.contains(&0) {
        range.local_size = executor::pick_local_size(
            &range,
            limits.max_group,
            !limits.uniform,
            limits.independent,
        );
    }
    Ok(range)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FREE: KernelLimits = KernelLimits {
        reqd: None,
        uniform: false,
        max_group: 1024,
        independent: true,
    };

    fn code(r: Result<NdRange>) -> Option<Geometry> {
        match r {
            Err(Error::InvalidGeometry(g)) => Some(g),
            _ => None,
        }
    }

    #[test]
    fn rules_in_the_specifications_order() {
        assert_eq!(
            code(nd_range(&FREE, 0, &[], &[4], &[])),
            Some(Geometry::WorkDimension)
        );
        assert_eq!(
            code(nd_range(&FREE, 4, &[], &[], &[])),
            Some(Geometry::WorkDimension)
        );
        let huge = [1usize << 22; 3];
        assert_eq!(
            code(nd_range(&FREE, 3, &[], &huge, &[])),
            Some(Geometry::GlobalWorkSize)
        );
        assert_eq!(
            code(nd_range(&FREE, 1, &[usize::MAX], &[2], &[])),
            Some(Geometry::GlobalOffset)
        );
        assert!(matches!(
            code(nd_range(&FREE, 1, &[], &[8], &[0])),
            Some(Geometry::WorkGroupSize(_))
        ));
        assert!(matches!(
            code(nd_range(&FREE, 1, &[], &[4096], &[2048])),
            Some(Geometry::WorkGroupSize(_))
        ));
        let reqd = KernelLimits {
            reqd: Some([4, 1, 1]),
            uniform: true,
            ..FREE
        };
        assert!(matches!(
            code(nd_range(&reqd, 1, &[], &[8], &[8])),
            Some(Geometry::WorkGroupSize(_))
        ));
        assert!(matches!(
            code(nd_range(&reqd, 1, &[], &[6], &[])),
            Some(Geometry::WorkGroupSize(_))
        ));
        let uniform = KernelLimits {
            uniform: true,
            ..FREE
        };
        assert!(matches!(
            code(nd_range(&uniform, 1, &[], &[10], &[4])),
            Some(Geometry::WorkGroupSize(_))
        ));
        // A group the kernel would take but wider than the device's dimension allows.
        let big = KernelLimits {
            max_group: u64::MAX,
            ..FREE
        };
        let too_wide = [MAX_WORK_ITEM_SIZES[0] + 1];
        assert_eq!(
            code(nd_range(&big, 1, &[], &[too_wide[0]], &too_wide)),
            Some(Geometry::WorkItemSize)
        );
    }

    #[test]
    fn chosen_and_required_sizes() {
        // NULL global size: an empty range, trivially run.
        let r = nd_range(&FREE, 2, &[], &[], &[]).unwrap();
        assert_eq!(r.global_size, [0, 0, 1]);
        let reqd = KernelLimits {
            reqd: Some([4, 2, 1]),
            ..FREE
        };
        let r = nd_range(&reqd, 2, &[1, 2], &[8, 8], &[]).unwrap();
        assert_eq!((r.local_size, r.global_offset), ([4, 2, 1], [1, 2, 0]));
        let r = nd_range(&FREE, 1, &[], &[1000], &[]).unwrap();
        assert!(r.local_size[0] >= 1 && r.local_size[0] <= 1024);
    }
}
