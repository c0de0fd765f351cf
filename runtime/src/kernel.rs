//! Kernels: one compiled kernel of a built program plus its argument values.
//!
//! `clSetKernelArg` stores [`ArgValue`]s; an enqueue takes a [`LaunchData`] snapshot (the
//! argument block with buffer addresses and local-memory offsets filled in, plus `Arc`s of
//! the buffers), so later `clSetKernelArg` calls do not affect enqueued commands and
//! buffers outlive the commands that use them.
//!
//! Local memory of a group: the kernel's own `Workgroup` variables first
//! (`static_local_size` bytes), then each `__local` argument at the next multiple of
//! [`LOCAL_ARG_ALIGN`] bytes.

use crate::api::{api_type, ApiObject, ObjectType};
use crate::device::LOCAL_MEM_SIZE;
use crate::error::{Error, Result};
use crate::executor::{self, KernelFault, Launch, NdRange};
use crate::mem::buffer::AlignedBuf;
use crate::mem::Mem;
use crate::program::{Built, Program};
use ferrite_compiler::{ArgKind, CompiledKernel, KernelArg, KernelInfo};
use parking_lot::Mutex;
use std::sync::{Arc, Weak};

/// Alignment of each `__local` argument's region.
pub const LOCAL_ARG_ALIGN: usize = 128;

/// Largest work-item frame arena one work-group may need (private data and values live
/// across barriers, all work-items of the group); a launch asking more fails with
/// `CL_OUT_OF_RESOURCES`.
pub const MAX_FRAME_BYTES: usize = 1 << 30;

/// The value of one argument.
#[derive(Clone)]
pub enum ArgValue {
    /// Bytes of a by-value argument.
    Bytes(Vec<u8>),
    /// A `__global`/`__constant` buffer, or NULL. Weak: setting an argument does not keep
    /// the buffer alive (its destructor callbacks run when the application releases it,
    /// even while a kernel still names it); a launch takes strong references.
    Buffer(Option<Weak<Mem>>),
    /// Size in bytes of a `__local` argument.
    Local(usize),
    /// An address written into a `__global`/`__constant` pointer's slot as is: an SVM
    /// pointer (`clSetKernelArgSVMPointer`, anywhere inside an allocation, or any host
    /// pointer with fine-grain system SVM) or a USM pointer. Nothing is kept alive: the
    /// application owns that memory.
    Pointer(u64),
}

#[repr(C)]
pub struct Kernel {
    pub api: ApiObject,
    pub program: Arc<Program>,
    /// The build this kernel comes from.
    pub built: Arc<Built>,
    /// Shared with every launch snapshot (a launch clones the `Arc`, not the kernel).
    pub compiled: Arc<CompiledKernel>,
    args: Mutex<Vec<Option<ArgValue>>>,
}
api_type!(Kernel, Kernel);

fn align_up(x: usize, a: usize) -> usize {
    x.div_ceil(a) * a
}

impl Kernel {
    /// `clCreateKernel`.
    pub fn new(program: &Arc<Program>, name: &str) -> Result<Arc<Kernel>> {
        let built = program.built().ok_or(Error::InvalidProgramExecutable)?;
        let compiled = built
            .kernel(name)
            .ok_or_else(|| Error::InvalidKernelName(name.to_string()))?
            .clone();
        let compiled = Arc::new(compiled);
        let nargs = compiled.info.args.len();
        Ok(Self::make(program, built, compiled, vec![None; nargs]))
    }

    fn make(
        program: &Arc<Program>,
        built: Arc<Built>,
        compiled: Arc<CompiledKernel>,
        args: Vec<Option<ArgValue>>,
    ) -> Arc<Kernel> {
        program.attach_kernel();
        Arc::new(Kernel {
            api: ApiObject::new(ObjectType::Kernel),
            program: program.clone(),
            built,
            compiled,
            args: Mutex::new(args),
        })
    }

    /// `clCloneKernel`: same kernel, copy of the argument values.
    pub fn duplicate(&self) -> Arc<Kernel> {
        let args = self.args.lock().clone();
        Self::make(
            &self.program,
            self.built.clone(),
            self.compiled.clone(),
            args,
        )
    }

    pub fn info(&self) -> &KernelInfo {
        &self.compiled.info
    }

    /// The description of argument `index`.
    pub fn arg(&self, index: usize) -> Result<&KernelArg> {
        let args = &self.compiled.info.args;
        args.get(index).ok_or(Error::InvalidArgIndex {
            index,
            count: args.len(),
        })
    }

    /// Argument description for `clGetKernelArgInfo`: only for programs built (or compiled
    /// and linked) from source with `-cl-kernel-arg-info`.
    pub fn arg_info(&self, index: usize) -> Result<&KernelArg> {
        let arg = self.arg(index)?;
        if !self.built.kernel_arg_info {
            return Err(Error::KernelArgInfoNotAvailable);
        }
        Ok(arg)
    }

    /// Store an argument value; it must fit the argument's kind.
    pub fn set_arg(&self, index: usize, value: ArgValue) -> Result<()> {
        let arg = self.arg(index)?;
        match (&arg.kind, &value) {
            (ArgKind::Value { size }, ArgValue::Bytes(b)) => {
                if b.len() != *size {
                    return Err(Error::InvalidArgSize {
                        index,
                        expected: *size,
                        got: b.len(),
                    });
                }
            }
            (ArgKind::Buffer { .. }, ArgValue::Buffer(_) | ArgValue::Pointer(_)) => {}
            // An image (never NULL); a sampler's bits (`Sampler::bits`).
            (ArgKind::Image, ArgValue::Buffer(Some(_))) => {}
            (ArgKind::Sampler, ArgValue::Bytes(b)) if b.len() == 8 => {}
            (ArgKind::Local, ArgValue::Local(size)) => {
                if *size == 0 {
                    return Err(Error::InvalidArgSize {
                        index,
                        expected: 1,
                        got: 0,
                    });
                }
            }
            _ => {
                return Err(Error::InvalidArgValue {
                    index,
                    reason: "value does not match the argument's kind",
                })
            }
        }
        self.args.lock()[index] = Some(value);
        Ok(())
    }

    /// Local memory one group needs with the current arguments
    /// (`CL_KERNEL_LOCAL_MEM_SIZE`).
    pub fn local_mem_size(&self) -> usize {
        let args = self.args.lock();
        let mut total = self.compiled.static_local_size;
        for a in args.iter() {
            if let Some(ArgValue::Local(size)) = a {
                total = align_up(total, LOCAL_ARG_ALIGN) + size;
            }
        }
        total
    }

    /// The largest work-group this kernel can run with.
    pub fn max_work_group_size(&self) -> usize {
        match self.compiled.info.reqd_work_group_size {
            Some(r) => r.iter().map(|&x| x as usize).product(),
            None => crate::device::MAX_WORK_GROUP_SIZE,
        }
    }

    /// The kernel's work-items per sub-group (its `intel_reqd_sub_group_size`, else
    /// Ferrite's default, see [`ferrite_compiler::SUB_GROUP_SIZES`]).
    pub fn sub_group_size(&self) -> usize {
        self.compiled.info.sub_group_size as usize
    }

    /// `CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE`: every sub-group is
    /// [`Kernel::sub_group_size`] consecutive work-items, the last one of a group maybe
    /// shorter; the maximum is that width for every local size (as
    /// `get_max_sub_group_size()`).
    pub fn max_sub_group_size_for(&self, _local: &[usize]) -> usize {
        self.sub_group_size()
    }

    /// `CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE`.
    pub fn sub_group_count_for(&self, local: &[usize]) -> usize {
        let n: usize = local.iter().product();
        n.div_ceil(self.sub_group_size())
    }

    /// `CL_KERNEL_MAX_NUM_SUB_GROUPS`: sub-groups of this kernel's largest work-group.
    pub fn max_num_sub_groups(&self) -> usize {
        self.max_work_group_size().div_ceil(self.sub_group_size())
    }

    /// `CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT`: a `dims`-dimensional local size with
    /// `count` sub-groups (`count ×` the sub-group size along x; the kernel's required
    /// size if it has one and that size has `count` sub-groups), or zeros if none exists.
    pub fn local_size_for_sub_group_count(&self, count: usize, dims: usize) -> Vec<usize> {
        let zeros = vec![0; dims];
        if count == 0 || dims == 0 {
            return zeros;
        }
        if let Some(r) = self.compiled.info.reqd_work_group_size {
            let r: Vec<usize> = r.iter().map(|&x| x as usize).collect();
            let fits = r[dims.min(3)..].iter().all(|&x| x == 1);
            return if fits && self.sub_group_count_for(&r) == count {
                r[..dims.min(3)].to_vec()
            } else {
                zeros
            };
        }
        match count.checked_mul(self.sub_group_size()) {
            Some(n) if n <= self.max_work_group_size() => {
                let mut out = vec![1; dims];
                out[0] = n;
                out
            }
            _ => zeros,
        }
    }

    /// The memory objects the arguments name that are still alive.
    pub fn arg_buffers(&self) -> Vec<Arc<Mem>> {
        self.args
            .lock()
            .iter()
            .filter_map(|a| match a {
                Some(ArgValue::Buffer(Some(w))) => w.upgrade(),
                _ => None,
            })
            .collect()
    }

    /// Whether every argument has been set (checked on every enqueue: no allocation).
    pub fn all_args_set(&self) -> bool {
        self.args.lock().iter().all(Option::is_some)
    }

    /// Snapshot the arguments for a launch over `range`.
    pub fn snapshot(&self, range: NdRange) -> Result<LaunchData> {
        let info = &self.compiled.info;
        // One lock for the check and the copy: what is checked is what is launched.
        let args = self.args.lock();
        if args.iter().any(Option::is_none) {
            return Err(Error::KernelArgsNotSet {
                missing: missing(&args),
            });
        }
        let block_size = info
            .args
            .iter()
            .map(|a| {
                a.offset
                    + match a.kind {
                        ArgKind::Value { size } => size,
                        _ => 8,
                    }
            })
            .max()
            .unwrap_or(0)
            .max(info.args_size);
        let mut block = AlignedBuf::new(block_size)?;
        let bytes = block.as_mut_slice();
        let mut buffers = Vec::new();
        let mut local = self.compiled.static_local_size;
        for (index, (desc, value)) in info.args.iter().zip(args.iter()).enumerate() {
            let slot = &mut bytes[desc.offset..];
            match value {
                Some(ArgValue::Bytes(b)) => slot[..b.len()].copy_from_slice(b),
                Some(ArgValue::Buffer(m)) => {
                    let m = match m {
                        Some(w) => Some(w.upgrade().ok_or(Error::InvalidArgMemObject { index })?),
                        None => None,
                    };
                    // An image argument points at the image's descriptor.
                    let addr = m.as_ref().map_or(0, |m| match desc.kind {
                        ArgKind::Image => m.image_descriptor_addr(),
                        _ => m.base() as u64,
                    });
                    slot[..8].copy_from_slice(&addr.to_ne_bytes());
                    buffers.extend(m);
                }
                Some(ArgValue::Pointer(addr)) => slot[..8].copy_from_slice(&addr.to_ne_bytes()),
                Some(ArgValue::Local(size)) => {
                    let offset = align_up(local, LOCAL_ARG_ALIGN);
                    slot[..8].copy_from_slice(&(offset as u64).to_ne_bytes());
                    local = offset + size;
                }
                None => {}
            }
        }
        LaunchData::new(self.compiled.clone(), block, local, buffers, range)
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        self.program.detach_kernel();
    }
}

/// Everything one launch needs, independent of later API calls: the one launch of both
/// APIs (an OpenCL NDRange, a Level-Zero group count), checked once by [`LaunchData::new`].
pub struct LaunchData {
    kernel: Arc<CompiledKernel>,
    args: AlignedBuf,
    local_mem_size: usize,
    /// Keeps the memory objects the argument block points into alive until the launch is
    /// dropped (OpenCL buffers and images, Level-Zero images).
    buffers: Vec<Arc<Mem>>,
    /// Address and size of each of `buffers`, for a fault report (made once: a replayed
    /// launch runs many times).
    extents: Vec<(u64, u64)>,
    range: NdRange,
    /// Every group on a thread of its own, all at once (Level-Zero cooperative launches).
    cooperative: bool,
}

impl LaunchData {
    /// A launch of `kernel` with the argument block `args` (pointers and local offsets
    /// filled in) over `range`, after the checks every launch needs: local memory within
    /// the device's, a work-item count that fits 64 bits, the stack the work-items need,
    /// and the frames a barrier kernel keeps per work-group.
    pub fn new(
        kernel: Arc<CompiledKernel>,
        args: AlignedBuf,
        local_mem_size: usize,
        buffers: Vec<Arc<Mem>>,
        range: NdRange,
    ) -> Result<LaunchData> {
        if local_mem_size > LOCAL_MEM_SIZE {
            return Err(Error::LocalMemoryExceeded {
                requested: local_mem_size,
                max: LOCAL_MEM_SIZE,
            });
        }
        check_total(&range)?;
        check_stack(&kernel)?;
        // Work-item frames of a kernel with barriers: one per work-item of the group size,
        // in each worker's frame arena.
        let items: u64 = range.local_size.iter().product();
        usize::try_from(items)
            .ok()
            .and_then(|n| n.checked_mul(kernel.frame_size_per_item))
            .filter(|&b| b <= MAX_FRAME_BYTES)
            .ok_or_else(|| {
                Error::OutOfResources(format!(
                    "kernel {} keeps {} bytes per work-item across barriers; {} work-items \
                     need more than the {} MiB allowed per work-group",
                    kernel.info.name,
                    kernel.frame_size_per_item,
                    items,
                    MAX_FRAME_BYTES >> 20
                ))
            })?;
        let extents = buffers
            .iter()
            .map(|m| (m.base() as u64, m.size as u64))
            .collect();
        Ok(LaunchData {
            kernel,
            args,
            local_mem_size,
            buffers,
            extents,
            range,
            cooperative: false,
        })
    }

    /// Make this a cooperative launch: `Err` if it has more groups than can run at once
    /// ([`executor::max_cooperative_groups`]).
    pub fn into_cooperative(mut self) -> Result<LaunchData> {
        if self.range.num_groups().iter().product::<u64>()
            > u64::from(executor::max_cooperative_groups())
        {
            return Err(Error::InvalidValue(
                "more groups than a cooperative launch can run at once",
            ));
        }
        self.cooperative = true;
        Ok(self)
    }

    /// Run every work-group on the executor's workers; returns when all are done.
    pub fn run(&self) -> std::result::Result<(), KernelFault> {
        self.run_range_on(self.range, None)
    }

    /// Run every work-group on `device`'s workers (a sub-device uses its own share).
    pub fn run_on(&self, device: &crate::device::Device) -> std::result::Result<(), KernelFault> {
        self.run_range_on(self.range, Some(device))
    }

    /// Run over another range of the same group size (a Level-Zero indirect launch reads
    /// its group count when it runs); refused if its work-items do not fit 64 bits.
    pub fn run_range(&self, range: NdRange) -> std::result::Result<(), KernelFault> {
        if !range.global_size.contains(&0) && check_total(&range).is_err() {
            return Err(KernelFault::refused(
                &self.kernel.info.name,
                "the group counts times the group size exceed 2^64 work-items",
            ));
        }
        self.run_range_on(range, None)
    }

    fn run_range_on(
        &self,
        range: NdRange,
        device: Option<&crate::device::Device>,
    ) -> std::result::Result<(), KernelFault> {
        if range.global_size.contains(&0) {
            return Ok(());
        }
        let launch = Launch {
            kernel: &self.kernel,
            args: self.args.as_slice(),
            local_mem_size: self.local_mem_size,
            range,
            extents: &self.extents,
        };
        match device {
            _ if self.cooperative => executor::run_cooperative(&launch),
            Some(d) => d.run(&launch),
            None => executor::run(&launch),
        }
    }

    /// The buffers the launch uses.
    pub fn buffers(&self) -> &[Arc<Mem>] {
        &self.buffers
    }

    /// The launch's geometry.
    pub fn range(&self) -> &NdRange {
        &self.range
    }
}

/// `InvalidValue` for a launch whose number of work-items does not fit 64 bits (three
/// Level-Zero group counts of up to 2^32 - 1 each; OpenCL's front end refuses such a range
/// first): it could never finish, and the linear group index would wrap.
pub(crate) fn check_total(range: &NdRange) -> Result<()> {
    range
        .global_size
        .iter()
        .try_fold(1u64, |a, &g| a.checked_mul(g))
        .map(|_| ())
        .ok_or(Error::InvalidValue(
            "the group counts times the group size exceed 2^64 work-items",
        ))
}

/// `CL_OUT_OF_RESOURCES` for a kernel whose work-items need more stack than a thread may
/// be given ([`executor::MAX_STACK_BYTES`]); smaller needs beyond a worker's stack run on
/// threads started with the stack they need.
pub fn check_stack(kernel: &CompiledKernel) -> Result<()> {
    let need = executor::stack_need(kernel);
    if need > executor::MAX_STACK_BYTES {
        return Err(Error::OutOfResources(format!(
            "kernel {} needs {} MiB of stack per work-item (private memory), more than the \
             {} MiB a thread can be given",
            kernel.info.name,
            need >> 20,
            executor::MAX_STACK_BYTES >> 20
        )));
    }
    Ok(())
}

/// Indices of the arguments not set yet.
fn missing(args: &[Option<ArgValue>]) -> Vec<usize> {
    args.iter()
        .enumerate()
        .filter(|(_, a)| a.is_none())
        .map(|(i, _)| i)
        .collect()
}
