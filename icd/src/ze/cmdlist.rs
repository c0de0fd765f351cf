//! Command lists, regular and immediate, and the commands appended to them. Each append
//! resolves its event handles, checks its arguments and records a runtime
//! [`Command`]; the runtime runs it (`ferrite_runtime::ze::cmdlist`).
#![expect(non_snake_case, reason = "entry points keep their Level-Zero names")]

use super::sys::*;
use super::{check, context, device, handle, input, kernel, write_out, ze_call, ZeError, ZeResult};
use ferrite_runtime::command::Op as CommonOp;
use ferrite_runtime::mem::image::ops as image_ops;
use ferrite_runtime::mem::image::{Image, ImageKind};
use ferrite_runtime::mem::rect::Rect;
use ferrite_runtime::mem::rect::RectOp;
use ferrite_runtime::mem::Mem;
use ferrite_runtime::usm;
use ferrite_runtime::ze::cmdlist::{Command, CommandList, ImmediateList, Op, Region};
use ferrite_runtime::ze::event::ZeEvent;
use std::ffi::c_void;
use std::sync::Arc;

/// The object behind `ze_command_list_handle_t`: the list, and the context and device it
/// was created for (`zeCommandListGetContextHandle`, `…GetDeviceHandle`), as addresses.
pub struct CmdList {
    pub kind: Kind,
    context: usize,
    device: usize,
    /// The command queue group it was created for (`device::QUEUE_GROUPS`), and for an
    /// immediate list its queue's index in the group.
    ordinal: u32,
    index: u32,
}

/// A regular list records commands for a queue; an immediate one runs them as appended.
pub enum Kind {
    Regular(CommandList),
    Immediate(ImmediateList),
}

pub fn get(h: ze_command_list_handle_t) -> ZeResult<Arc<CmdList>> {
    handle::get::<CmdList, _>(h)
}

impl CmdList {
    /// Kernels launch only from lists of a compute queue group (not from the copy group):
    /// else `ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE`.
    fn check_computes(&self) -> ZeResult<()> {
        check(
            device::group_computes(self.ordinal),
            ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE,
        )
    }

    fn append(&self, cmd: Command) -> ZeResult<ze_result_t> {
        match &self.kind {
            Kind::Regular(l) => l.append(cmd)?,
            Kind::Immediate(l) => l.append(cmd),
        }
        Ok(ZE_RESULT_SUCCESS)
    }
}

/// The commands of closed regular lists, to be executed by a queue of group `ordinal`; an
/// immediate list among them, or one created for another group, is
/// `ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE`, an open one an invalid argument.
pub fn closed_commands(lists: &[Arc<CmdList>], ordinal: u32) -> ZeResult<Vec<Arc<Vec<Command>>>> {
    lists
        .iter()
        .map(|l| match &l.kind {
            Kind::Regular(r) if l.ordinal == ordinal => Ok(r.to_submit()?),
            _ => Err(ZeError(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE)),
        })
        .collect()
}

/// The events of an append: the optional one to signal and the wait list.
struct Events {
    signal: Option<Arc<ZeEvent>>,
    wait: Vec<Arc<ZeEvent>>,
}

/// Resolve an append's event handles.
///
/// # Safety
/// `ph_wait` is NULL or points to `n_wait` handles (API contract).
unsafe fn events(
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ZeResult<Events> {
    Ok(Events {
        signal: handle::get_opt::<ZeEvent, _>(h_signal)?,
        // SAFETY: per the caller. ZE_RESULT_ERROR_INVALID_SIZE:
        // (nullptr == phWaitEvents) && (0 < numWaitEvents)
        wait: unsafe { handle::get_list::<ZeEvent, _>(ph_wait, n_wait)? },
    })
}

/// Append a command that does not touch memory by address.
///
/// # Safety
/// As [`events`].
unsafe fn append_op(
    h_list: ze_command_list_handle_t,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
    op: impl FnOnce() -> ZeResult<Op>,
) -> ZeResult<ze_result_t> {
    // SAFETY: per the caller.
    unsafe { append_op_to(&*get(h_list)?, h_signal, n_wait, ph_wait, op) }
}

/// [`append_op`] to a list already looked up.
///
/// # Safety
/// As [`events`].
unsafe fn append_op_to(
    list: &CmdList,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
    op: impl FnOnce() -> ZeResult<Op>,
) -> ZeResult<ze_result_t> {
    // SAFETY: per the caller.
    let ev = unsafe { events(h_signal, n_wait, ph_wait)? };
    list.append(Command::new(ev.wait, op()?, ev.signal)?)
}

/// `len` bytes at `p` must be usable: non-NULL, and inside their allocation if they
/// start in one.
fn check_range(p: *const c_void, len: usize) -> ZeResult<usize> {
    check(!p.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
    usm::check_range(p as usize, len).map_err(|_| ZeError(ZE_RESULT_ERROR_INVALID_SIZE))?;
    Ok(p as usize)
}

fn create_regular(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    desc: *const ze_command_list_desc_t,
    ph_list: *mut ze_command_list_handle_t,
) -> ZeResult<ze_result_t> {
    context::get(h_context)?;
    device::get(h_device)?;
    // SAFETY: NULL or a valid descriptor (API contract).
    let desc = unsafe { input(desc)? };
    check(!ph_list.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
    // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0x3f < desc->flags. Later versions' IN_ORDER
    // (1.7; lists run in order anyway), EXP_CLONEABLE and COPY_OFFLOAD_HINT change nothing
    // for a CPU list.
    check(desc.flags <= 0x3f, ZE_RESULT_ERROR_INVALID_ENUMERATION)?;
    device::check_queue(desc.commandQueueGroupOrdinal, 0)?;
    let h: ze_command_list_handle_t = handle::insert(Arc::new(CmdList {
        kind: Kind::Regular(CommandList::new()),
        context: h_context as usize,
        device: h_device as usize,
        ordinal: desc.commandQueueGroupOrdinal,
        index: 0,
    }));
    // SAFETY: non-NULL, valid for writes (API contract).
    unsafe { write_out(ph_list, h)? };
    Ok(ZE_RESULT_SUCCESS)
}

pub(super) unsafe extern "C" fn zeCommandListCreate(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    desc: *const ze_command_list_desc_t,
    ph_list: *mut ze_command_list_handle_t,
) -> ze_result_t {
    ze_call(|| create_regular(h_context, h_device, desc, ph_list))
}

pub(super) unsafe extern "C" fn zeCommandListCreateImmediate(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    altdesc: *const ze_command_queue_desc_t,
    ph_list: *mut ze_command_list_handle_t,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        device::get(h_device)?;
        // SAFETY: NULL or a valid descriptor (API contract).
        let desc = unsafe { input(altdesc)? };
        check(!ph_list.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        let (synchronous, priority) = super::cmdqueue::check_queue_desc(desc)?;
        let list = ImmediateList::new(synchronous, priority)?;
        let h: ze_command_list_handle_t = handle::insert(Arc::new(CmdList {
            kind: Kind::Immediate(list),
            context: h_context as usize,
            device: h_device as usize,
            ordinal: desc.ordinal,
            index: desc.index,
        }));
        // SAFETY: non-NULL, valid for writes (API contract).
        unsafe { write_out(ph_list, h)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeCommandListDestroy(
    h_list: ze_command_list_handle_t,
) -> ze_result_t {
    ze_call(|| {
        // An immediate list's queue finishes what was appended when the last holder
        // drops it (here, outside the registry lock).
        drop(handle::remove::<CmdList, _>(h_list)?);
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeCommandListClose(
    h_list: ze_command_list_handle_t,
) -> ze_result_t {
    ze_call(|| {
        match &get(h_list)?.kind {
            Kind::Regular(l) => l.close()?,
            // Immediate lists have nothing to close.
            Kind::Immediate(_) => {}
        }
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeCommandListReset(
    h_list: ze_command_list_handle_t,
) -> ze_result_t {
    ze_call(|| {
        match &get(h_list)?.kind {
            Kind::Regular(l) => l.reset(),
            // Nothing recorded: finish what was appended.
            Kind::Immediate(l) => {
                l.synchronize(u64::MAX);
            }
        }
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendBarrier(
    h_list: ze_command_list_handle_t,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    // Commands of a list already run in order: a barrier only waits and signals.
    // SAFETY: phWaitEvents is NULL or numWaitEvents handles (API contract).
    ze_call(|| unsafe { append_op(h_list, h_signal, n_wait, ph_wait, || Ok(Op::NOTHING)) })
}

pub(super) unsafe extern "C" fn zeCommandListAppendMemoryRangesBarrier(
    h_list: ze_command_list_handle_t,
    n_ranges: u32,
    p_range_sizes: *const usize,
    p_ranges: *mut *const c_void,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    ze_call(|| {
        check(
            n_ranges == 0 || (!p_range_sizes.is_null() && !p_ranges.is_null()),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER,
        )?;
        // Memory is coherent: the ranges need no flushing; as a barrier it waits.
        // SAFETY: phWaitEvents is NULL or numWaitEvents handles (API contract).
        unsafe { append_op(h_list, h_signal, n_wait, ph_wait, || Ok(Op::NOTHING)) }
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendSignalEvent(
    h_list: ze_command_list_handle_t,
    h_event: ze_event_handle_t,
) -> ze_result_t {
    ze_call(|| {
        check(!h_event.is_null(), ZE_RESULT_ERROR_INVALID_NULL_HANDLE)?;
        // SAFETY: no wait list.
        unsafe { append_op(h_list, h_event, 0, std::ptr::null_mut(), || Ok(Op::NOTHING)) }
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendWaitOnEvents(
    h_list: ze_command_list_handle_t,
    n_events: u32,
    ph_events: *mut ze_event_handle_t,
) -> ze_result_t {
    ze_call(|| {
        check(!ph_events.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // SAFETY: phEvents points to numEvents handles (API contract).
        unsafe {
            append_op(h_list, std::ptr::null_mut(), n_events, ph_events, || {
                Ok(Op::NOTHING)
            })
        }
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendEventReset(
    h_list: ze_command_list_handle_t,
    h_event: ze_event_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let ev = handle::get::<ZeEvent, _>(h_event)?;
        // SAFETY: no wait list.
        unsafe {
            append_op(
                h_list,
                std::ptr::null_mut(),
                0,
                std::ptr::null_mut(),
                || Ok(Op::ResetEvent(ev)),
            )
        }
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendMemoryCopy(
    h_list: ze_command_list_handle_t,
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let list = get(h_list)?;
        let dst = check_range(dst, size)?;
        let src = check_range(src, size)?;
        // SAFETY: phWaitEvents is NULL or numWaitEvents handles (API contract).
        let ev = unsafe { events(h_signal, n_wait, ph_wait)? };
        // SAFETY: the application guarantees both ranges stay valid until the command
        // completed (API contract); they are non-NULL and fit their allocations.
        let cmd = unsafe {
            Command::new_memory(
                ev.wait,
                Op::Do(CommonOp::MemCopy { dst, src, size }),
                ev.signal,
            )
        };
        list.append(cmd)
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendMemoryCopyFromContext(
    h_list: ze_command_list_handle_t,
    dst: *mut c_void,
    h_context_src: ze_context_handle_t,
    src: *const c_void,
    size: usize,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context_src)?;
        // One address space: a copy like any other.
        // SAFETY: the caller's arguments are passed on unchanged.
        Ok(unsafe {
            zeCommandListAppendMemoryCopy(h_list, dst, src, size, h_signal, n_wait, ph_wait)
        })
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendMemoryFill(
    h_list: ze_command_list_handle_t,
    ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let list = get(h_list)?;
        let dst = check_range(ptr, size)?;
        check(!pattern.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // "pattern_size: must be a power of two and less than or equal to the
        // maxMemoryFillPatternSize". A larger power of two that fits the fill works as
        // well on a CPU, and is accepted: level-zero-tests expect lists with the copy
        // offload hint to fall back for them, as Intel's driver does.
        check(
            pattern_size.is_power_of_two()
                && (pattern_size <= device::MAX_FILL_PATTERN_SIZE || pattern_size <= size),
            ZE_RESULT_ERROR_INVALID_SIZE,
        )?;
        // SAFETY: `pattern` points to pattern_size bytes (API contract); copied now, so
        // the application may reuse it after the call.
        let pattern =
            unsafe { std::slice::from_raw_parts(pattern.cast::<u8>(), pattern_size) }.to_vec();
        // SAFETY: phWaitEvents is NULL or numWaitEvents handles (API contract).
        let ev = unsafe { events(h_signal, n_wait, ph_wait)? };
        // SAFETY: the application guarantees `size` bytes at `ptr` stay valid until the
        // command completed (API contract); non-NULL and inside its allocation.
        let cmd = unsafe {
            Command::new_memory(
                ev.wait,
                Op::Do(CommonOp::MemFill { dst, pattern, size }),
                ev.signal,
            )
        };
        list.append(cmd)
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendWriteGlobalTimestamp(
    h_list: ze_command_list_handle_t,
    dstptr: *mut u64,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let list = get(h_list)?;
        let dst = check_range(dstptr.cast(), 8)?;
        // SAFETY: phWaitEvents is NULL or numWaitEvents handles (API contract).
        let ev = unsafe { events(h_signal, n_wait, ph_wait)? };
        // SAFETY: dstptr is valid for 8 bytes until the command completed (API contract).
        let cmd = unsafe { Command::new_memory(ev.wait, Op::WriteTimestamp { dst }, ev.signal) };
        list.append(cmd)
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendMemoryPrefetch(
    h_list: ze_command_list_handle_t,
    ptr: *const c_void,
    _size: usize,
) -> ze_result_t {
    ze_call(|| {
        get(h_list)?;
        check(!ptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // Shared memory never migrates: nothing to prefetch.
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `ZE_MEMORY_ADVICE_CLEAR_SYSTEM_MEMORY_PREFERRED_LOCATION` (Level-Zero 1.9+).
const CLEAR_SYSTEM_MEMORY_PREFERRED_LOCATION: ze_memory_advice_t = 9;

pub(super) unsafe extern "C" fn zeCommandListAppendMemAdvise(
    h_list: ze_command_list_handle_t,
    h_device: ze_device_handle_t,
    ptr: *const c_void,
    _size: usize,
    advice: ze_memory_advice_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_list)?;
        device::get(h_device)?;
        check(!ptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // ZE_RESULT_ERROR_INVALID_ENUMERATION:
        // ZE_MEMORY_ADVICE_CLEAR_SYSTEM_MEMORY_PREFERRED_LOCATION < advice (the two system
        // memory advices, 8 and 9, are newer than the 1.8 headers Ferrite builds against;
        // current loaders and ze_peak pass them).
        check(
            advice <= CLEAR_SYSTEM_MEMORY_PREFERRED_LOCATION,
            ZE_RESULT_ERROR_INVALID_ENUMERATION,
        )?;
        // Advice about migration, caching and preferred location: every allocation is in
        // system memory already, so there is nothing to do.
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// Append a launch of the kernel's current arguments and group size; a cooperative one
/// runs every group at once (at most `zeKernelSuggestMaxCooperativeGroupCount` groups).
///
/// # Safety
/// As [`events`]; `p_launch_args` is NULL or a valid group count (API contract).
unsafe fn append_launch(
    h_list: ze_command_list_handle_t,
    h_kernel: ze_kernel_handle_t,
    p_launch_args: *const ze_group_count_t,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
    cooperative: bool,
) -> ZeResult<ze_result_t> {
    let list = get(h_list)?;
    list.check_computes()?;
    let k = kernel::get(h_kernel)?;
    // SAFETY: per the caller.
    let g = unsafe { input(p_launch_args)? };
    let counts = [g.groupCountX, g.groupCountY, g.groupCountZ];
    // SAFETY: per the caller.
    unsafe {
        append_op_to(&list, h_signal, n_wait, ph_wait, || {
            let launch = k.rt.launch(counts)?;
            let launch = if cooperative {
                launch.into_cooperative()?
            } else {
                launch
            };
            Ok(Op::Do(CommonOp::Launch(Box::new(launch))))
        })
    }
}

pub(super) unsafe extern "C" fn zeCommandListAppendLaunchKernel(
    h_list: ze_command_list_handle_t,
    h_kernel: ze_kernel_handle_t,
    p_launch_args: *const ze_group_count_t,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: the group count and wait list per the API contract.
    ze_call(|| unsafe {
        append_launch(
            h_list,
            h_kernel,
            p_launch_args,
            h_signal,
            n_wait,
            ph_wait,
            false,
        )
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendLaunchCooperativeKernel(
    h_list: ze_command_list_handle_t,
    h_kernel: ze_kernel_handle_t,
    p_launch_args: *const ze_group_count_t,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: the group count and wait list per the API contract.
    ze_call(|| unsafe {
        append_launch(
            h_list,
            h_kernel,
            p_launch_args,
            h_signal,
            n_wait,
            ph_wait,
            true,
        )
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendLaunchKernelIndirect(
    h_list: ze_command_list_handle_t,
    h_kernel: ze_kernel_handle_t,
    p_launch_args_buffer: *const ze_group_count_t,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let list = get(h_list)?;
        list.check_computes()?;
        let k = kernel::get(h_kernel)?;
        let counts = check_range(p_launch_args_buffer.cast(), 12)?;
        // The arguments and group size are captured now; the group count when it runs.
        let launches = vec![k.rt.launch([0; 3])?];
        // SAFETY: phWaitEvents is NULL or numWaitEvents handles (API contract).
        let ev = unsafe { events(h_signal, n_wait, ph_wait)? };
        let op = Op::LaunchIndirect {
            launches,
            counts,
            number: None,
        };
        // SAFETY: the group count stays readable until the command completed (API
        // contract: device memory the application keeps alive); non-NULL and inside its
        // allocation.
        list.append(unsafe { Command::new_memory(ev.wait, op, ev.signal) })
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendLaunchMultipleKernelsIndirect(
    h_list: ze_command_list_handle_t,
    n_kernels: u32,
    ph_kernels: *mut ze_kernel_handle_t,
    p_count_buffer: *const u32,
    p_launch_args_buffer: *const ze_group_count_t,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let list = get(h_list)?;
        list.check_computes()?;
        check(!ph_kernels.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // SAFETY: phKernels points to numKernels handles (API contract).
        let kernels = unsafe { handle::get_list::<kernel::Kernel, _>(ph_kernels, n_kernels)? };
        let number = check_range(p_count_buffer.cast(), 4)?;
        let counts = check_range(p_launch_args_buffer.cast(), 12 * kernels.len())?;
        // Each kernel's arguments and group size are captured now; how many run and their
        // group counts when the command runs.
        let launches = kernels
            .iter()
            .map(|k| k.rt.launch([0; 3]))
            .collect::<Result<Vec<_>, _>>()?;
        // SAFETY: phWaitEvents is NULL or numWaitEvents handles (API contract).
        let ev = unsafe { events(h_signal, n_wait, ph_wait)? };
        let op = Op::LaunchIndirect {
            launches,
            counts,
            number: Some(number),
        };
        // SAFETY: the count and the group counts stay readable until the command
        // completed (API contract: memory the application keeps alive); non-NULL and
        // inside their allocations.
        list.append(unsafe { Command::new_memory(ev.wait, op, ev.signal) })
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendMemoryCopyRegion(
    h_list: ze_command_list_handle_t,
    dstptr: *mut c_void,
    dst_region: *const ze_copy_region_t,
    dst_pitch: u32,
    dst_slice_pitch: u32,
    srcptr: *const c_void,
    src_region: *const ze_copy_region_t,
    src_pitch: u32,
    src_slice_pitch: u32,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let list = get(h_list)?;
        check(
            !dstptr.is_null() && !srcptr.is_null(),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER,
        )?;
        // SAFETY: NULL or valid regions (API contract).
        let (d, s) = unsafe { (input(dst_region)?, input(src_region)?) };
        // "The region width, height, and depth for both src and dst must be same."
        check(
            (d.width, d.height, d.depth) == (s.width, s.height, s.depth),
            ZE_RESULT_ERROR_INVALID_SIZE,
        )?;
        // A depth of 0 is a 2-D region, one slice (as Intel's driver reads it;
        // level-zero-tests copy 2-D regions so).
        let (w, h, depth) = (d.width as usize, d.height as usize, d.depth.max(1) as usize);
        // Rows may not overlap within a slice, nor slices within the region.
        let pitches_ok = |pitch: u32, slice: u32| {
            (h <= 1 || pitch as usize >= w) && (depth <= 1 || slice as usize >= h * pitch as usize)
        };
        check(
            pitches_ok(dst_pitch, dst_slice_pitch) && pitches_ok(src_pitch, src_slice_pitch),
            ZE_RESULT_ERROR_INVALID_SIZE,
        )?;
        let origin = |r: &ze_copy_region_t, pitch: u32, slice: u32| {
            (r.originZ as usize)
                .checked_mul(slice as usize)?
                .checked_add((r.originY as usize).checked_mul(pitch as usize)?)?
                .checked_add(r.originX as usize)
        };
        let too_big = ZeError(ZE_RESULT_ERROR_INVALID_SIZE);
        let d_off = origin(d, dst_pitch, dst_slice_pitch).ok_or(too_big)?;
        let s_off = origin(s, src_pitch, src_slice_pitch).ok_or(too_big)?;
        let region = Region {
            width: w,
            height: h,
            depth,
            dst_pitch: dst_pitch as usize,
            dst_slice_pitch: dst_slice_pitch as usize,
            src_pitch: src_pitch as usize,
            src_slice_pitch: src_slice_pitch as usize,
        };
        let (d_ext, s_ext) = region.extents().ok_or(too_big)?;
        let dst = (dstptr as usize).checked_add(d_off).ok_or(too_big)?;
        let src = (srcptr as usize).checked_add(s_off).ok_or(too_big)?;
        check_range(dst as *const c_void, d_ext)?;
        check_range(src as *const c_void, s_ext)?;
        // SAFETY: phWaitEvents is NULL or numWaitEvents handles (API contract).
        let ev = unsafe { events(h_signal, n_wait, ph_wait)? };
        // SAFETY: the application guarantees both regions stay valid until the command
        // completed (API contract); their extents were computed without overflow and
        // fit their allocations.
        let cmd = unsafe { Command::new_memory(ev.wait, Op::Do(region.op(dst, src)), ev.signal) };
        list.append(cmd)
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendQueryKernelTimestamps(
    h_list: ze_command_list_handle_t,
    n_events: u32,
    ph_events: *mut ze_event_handle_t,
    dstptr: *mut c_void,
    p_offsets: *const usize,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let list = get(h_list)?;
        check(!ph_events.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        check(!dstptr.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // SAFETY: phEvents points to numEvents handles (API contract).
        let evs = unsafe { handle::get_list::<ZeEvent, _>(ph_events, n_events)? };
        for e in &evs {
            check(e.pool.timestamps, ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        }
        const RESULT: usize = std::mem::size_of::<ze_kernel_timestamp_result_t>();
        // "pOffsets: offset, in bytes, to write results; address is offset from dstptr;
        // if NULL, results are written consecutively"
        let offsets: Vec<usize> = if p_offsets.is_null() {
            (0..evs.len()).map(|i| i * RESULT).collect()
        } else {
            // SAFETY: a non-NULL pOffsets has numEvents entries (API contract).
            unsafe { super::slice_in(p_offsets, n_events)? }.to_vec()
        };
        let mut dst = Vec::with_capacity(offsets.len());
        for off in offsets {
            let addr = (dstptr as usize)
                .checked_add(off)
                .ok_or(ZeError(ZE_RESULT_ERROR_INVALID_SIZE))?;
            dst.push(check_range(addr as *const c_void, RESULT)?);
        }
        // SAFETY: phWaitEvents is NULL or numWaitEvents handles (API contract).
        let ev = unsafe { events(h_signal, n_wait, ph_wait)? };
        // SAFETY: each destination has room for one result until the command completed
        // (API contract); each is non-NULL and fits its allocation.
        let cmd = unsafe {
            Command::new_memory(ev.wait, Op::WriteEventTimes { events: evs, dst }, ev.signal)
        };
        list.append(cmd)
    })
}

/// An image region (NULL: the whole image) as the runtime's origin and size; a size of 0
/// along a coordinate the image does not have counts as 1.
///
/// # Safety
/// `r` is NULL or a valid region (API contract).
unsafe fn image_region(img: &Image, r: *const ze_image_region_t) -> ([usize; 3], [usize; 3]) {
    // SAFETY: per the caller.
    match unsafe { r.as_ref() } {
        None => ([0; 3], img.extent()),
        Some(r) => {
            // Coordinates an image does not have are ignored (as Intel's driver does;
            // level-zero-tests give 2-D images' one-pixel regions an originZ of 1): origin
            // 0, size 1.
            let coords = img.kind.coords();
            let mut size = [r.width, r.height, r.depth].map(|v| v as usize);
            let mut origin = [r.originX, r.originY, r.originZ].map(|v| v as usize);
            for (s, o) in size.iter_mut().zip(&mut origin).skip(coords) {
                *s = 1;
                *o = 0;
            }
            (origin, size)
        }
    }
}

/// The runtime image behind an image handle.
fn image_of(h: ze_image_handle_t) -> ZeResult<(Arc<Mem>, Image)> {
    let mem = super::image::get(h)?.mem.clone();
    let img = *mem
        .image
        .as_ref()
        .ok_or(ZeError(ZE_RESULT_ERROR_INVALID_NULL_HANDLE))?;
    Ok((mem, img))
}

/// Append an image command; `None`, for an empty region, only waits and signals.
///
/// # Safety
/// As [`events`]; for a read or write, the memory side stays valid until the command
/// completed (the application's obligation under the API).
unsafe fn append_image(
    list: &CmdList,
    op: Option<RectOp>,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ZeResult<ze_result_t> {
    // SAFETY: per the caller.
    let ev = unsafe { events(h_signal, n_wait, ph_wait)? };
    let Some(op) = op else {
        return list.append(Command::new(ev.wait, Op::NOTHING, ev.signal)?);
    };
    // SAFETY: per the caller; the images are held by the op.
    let cmd = unsafe { Command::new_memory(ev.wait, Op::Do(CommonOp::Rect(op)), ev.signal) };
    list.append(cmd)
}

/// Copy a region of one image to a region of the same size of another (or the same one,
/// without overlap); both of one format.
///
/// # Safety
/// As [`events`]; the regions are NULL or valid.
#[expect(clippy::too_many_arguments, reason = "the entry points' parameters")]
unsafe fn image_copy(
    h_list: ze_command_list_handle_t,
    h_dst: ze_image_handle_t,
    h_src: ze_image_handle_t,
    dst_region: *const ze_image_region_t,
    src_region: *const ze_image_region_t,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ZeResult<ze_result_t> {
    let list = get(h_list)?;
    let (dst, di) = image_of(h_dst)?;
    let (src, si) = image_of(h_src)?;
    check(di.format == si.format, ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
    // SAFETY: per the caller.
    let ((so, sr), (dso, dr)) =
        unsafe { (image_region(&si, src_region), image_region(&di, dst_region)) };
    // "The region width and height for both src and dst must be same."
    check(sr == dr, ZE_RESULT_ERROR_INVALID_SIZE)?;
    if sr.contains(&0) {
        // SAFETY: per the caller.
        return unsafe { append_image(&list, None, h_signal, n_wait, ph_wait) };
    }
    let src_rect = si.rect(so, sr)?;
    let dst_rect = di.rect(dso, sr)?;
    if Arc::ptr_eq(&src, &dst) {
        check(
            !image_ops::overlap(&src_rect, &dst_rect),
            ZE_RESULT_ERROR_OVERLAPPING_REGIONS,
        )?;
    }
    let op = Some(RectOp::Copy {
        src,
        src_rect,
        dst,
        dst_rect,
    });
    // SAFETY: per the caller; no application memory is involved.
    unsafe { append_image(&list, op, h_signal, n_wait, ph_wait) }
}

/// The memory side of an image copy: `size` pixels laid out with Level-Zero's pitches (0:
/// packed). `rowPitch` is the distance between rows, or between the layers of a 1D array;
/// `slicePitch` between the slices of a 3D image or the layers of a 2D array, at least a
/// whole slice (not necessarily a multiple of the row pitch); other kinds ignore it.
fn memory_rect(
    i: &Image,
    size: [usize; 3],
    row_pitch: usize,
    slice_pitch: usize,
) -> ZeResult<Rect> {
    let too_small = ZeError(ZE_RESULT_ERROR_INVALID_SIZE);
    let row_bytes = size[0].checked_mul(i.element_size()).ok_or(too_small)?;
    let row = match row_pitch {
        0 => row_bytes,
        p if p < row_bytes => return Err(too_small),
        p => p,
    };
    let rows = size[1];
    let (region, row_pitch, slice_pitch) = match i.kind {
        ImageKind::D2Array | ImageKind::D3 => {
            let whole = row.checked_mul(rows).ok_or(too_small)?;
            let slice = match slice_pitch {
                0 => whole,
                p if p < whole => return Err(too_small),
                p => p,
            };
            ([row_bytes, rows, size[2]], row, slice)
        }
        // 1D arrays: the layers are the rows.
        _ => (
            [row_bytes, rows, 1],
            row,
            row.checked_mul(rows).ok_or(too_small)?,
        ),
    };
    Ok(Rect {
        origin: [0; 3],
        region,
        row_pitch,
        slice_pitch,
    })
}

/// Copy between an image region and memory laid out with the given pitches (0: packed).
///
/// # Safety
/// As [`events`]; the region is NULL or valid; `mem` is valid for the rectangle until the
/// command completed (API contract).
#[expect(clippy::too_many_arguments, reason = "the entry points' parameters")]
unsafe fn image_memory(
    h_list: ze_command_list_handle_t,
    h_image: ze_image_handle_t,
    mem: *const c_void,
    region: *const ze_image_region_t,
    row_pitch: u32,
    slice_pitch: u32,
    to_memory: bool,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ZeResult<ze_result_t> {
    let list = get(h_list)?;
    let (image, i) = image_of(h_image)?;
    check(!mem.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
    // SAFETY: per the caller.
    let (origin, size) = unsafe { image_region(&i, region) };
    if size.contains(&0) {
        // SAFETY: per the caller.
        return unsafe { append_image(&list, None, h_signal, n_wait, ph_wait) };
    }
    let rect = i.rect(origin, size)?;
    let host_rect = memory_rect(&i, size, row_pitch as usize, slice_pitch as usize)?;
    let extent = host_rect
        .end()
        .ok_or(ZeError(ZE_RESULT_ERROR_INVALID_SIZE))?;
    let host = check_range(mem, extent)?;
    let op = Some(if to_memory {
        RectOp::Read {
            mem: image,
            rect,
            host,
            host_rect,
        }
    } else {
        RectOp::Write {
            mem: image,
            rect,
            host,
            host_rect,
        }
    });
    // SAFETY: per the caller.
    unsafe { append_image(&list, op, h_signal, n_wait, ph_wait) }
}

pub(super) unsafe extern "C" fn zeCommandListAppendImageCopy(
    h_list: ze_command_list_handle_t,
    h_dst: ze_image_handle_t,
    h_src: ze_image_handle_t,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    let none = std::ptr::null();
    // SAFETY: whole images; the wait list per the API contract.
    ze_call(|| unsafe { image_copy(h_list, h_dst, h_src, none, none, h_signal, n_wait, ph_wait) })
}

pub(super) unsafe extern "C" fn zeCommandListAppendImageCopyRegion(
    h_list: ze_command_list_handle_t,
    h_dst: ze_image_handle_t,
    h_src: ze_image_handle_t,
    dst_region: *const ze_image_region_t,
    src_region: *const ze_image_region_t,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: regions and wait list per the API contract.
    ze_call(|| unsafe {
        image_copy(
            h_list, h_dst, h_src, dst_region, src_region, h_signal, n_wait, ph_wait,
        )
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendImageCopyToMemory(
    h_list: ze_command_list_handle_t,
    dstptr: *mut c_void,
    h_src: ze_image_handle_t,
    src_region: *const ze_image_region_t,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: per the API contract.
    ze_call(|| unsafe {
        image_memory(
            h_list, h_src, dstptr, src_region, 0, 0, true, h_signal, n_wait, ph_wait,
        )
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendImageCopyFromMemory(
    h_list: ze_command_list_handle_t,
    h_dst: ze_image_handle_t,
    srcptr: *const c_void,
    dst_region: *const ze_image_region_t,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: per the API contract.
    ze_call(|| unsafe {
        image_memory(
            h_list, h_dst, srcptr, dst_region, 0, 0, false, h_signal, n_wait, ph_wait,
        )
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendImageCopyToMemoryExt(
    h_list: ze_command_list_handle_t,
    dstptr: *mut c_void,
    h_src: ze_image_handle_t,
    src_region: *const ze_image_region_t,
    row_pitch: u32,
    slice_pitch: u32,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: per the API contract.
    ze_call(|| unsafe {
        image_memory(
            h_list,
            h_src,
            dstptr,
            src_region,
            row_pitch,
            slice_pitch,
            true,
            h_signal,
            n_wait,
            ph_wait,
        )
    })
}

pub(super) unsafe extern "C" fn zeCommandListAppendImageCopyFromMemoryExt(
    h_list: ze_command_list_handle_t,
    h_dst: ze_image_handle_t,
    srcptr: *const c_void,
    dst_region: *const ze_image_region_t,
    row_pitch: u32,
    slice_pitch: u32,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: per the API contract.
    ze_call(|| unsafe {
        image_memory(
            h_list,
            h_dst,
            srcptr,
            dst_region,
            row_pitch,
            slice_pitch,
            false,
            h_signal,
            n_wait,
            ph_wait,
        )
    })
}

/// `zeCommandListImmediateAppendCommandListsExp` (1.9): run closed regular lists of the
/// immediate list's queue group on it, as a queue would.
pub(super) unsafe extern "C" fn zeCommandListImmediateAppendCommandListsExp(
    h_list: ze_command_list_handle_t,
    n_lists: u32,
    ph_lists: *mut ze_command_list_handle_t,
    h_signal: ze_event_handle_t,
    n_wait: u32,
    ph_wait: *mut ze_event_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let list = get(h_list)?;
        check(!ph_lists.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        let Kind::Immediate(imm) = &list.kind else {
            return Err(ZeError(ZE_RESULT_ERROR_INVALID_ARGUMENT));
        };
        // SAFETY: phCommandLists points to numCommandLists handles (API contract).
        let lists = unsafe { handle::get_list::<CmdList, _>(ph_lists, n_lists)? };
        let cmds = closed_commands(&lists, list.ordinal)?;
        // SAFETY: per `events`' contract (phWaitEvents: numWaitEvents handles).
        let ev = unsafe { events(h_signal, n_wait, ph_wait)? };
        let first = Command::new(ev.wait, Op::NOTHING, None)?;
        let last = Command::new(Vec::new(), Op::NOTHING, ev.signal)?;
        imm.append_lists(first, cmds, last);
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeCommandListHostSynchronize(
    h_list: ze_command_list_handle_t,
    timeout: u64,
) -> ze_result_t {
    ze_call(|| match &get(h_list)?.kind {
        Kind::Immediate(l) => Ok(if l.synchronize(timeout) {
            ZE_RESULT_SUCCESS
        } else {
            ZE_RESULT_NOT_READY
        }),
        // Only an immediate list has commands of its own to wait for.
        Kind::Regular(_) => Err(ZeError(ZE_RESULT_ERROR_INVALID_ARGUMENT)),
    })
}

/// `zeCommandListGetDeviceHandle` (1.9): the device the list was created for.
pub(super) unsafe extern "C" fn zeCommandListGetDeviceHandle(
    h_list: ze_command_list_handle_t,
    ph_device: *mut ze_device_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let device = get(h_list)?.device as ze_device_handle_t;
        // SAFETY: NULL or valid for writes (API contract).
        unsafe { write_out(ph_device, device)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeCommandListGetContextHandle` (1.9): the context the list was created in.
pub(super) unsafe extern "C" fn zeCommandListGetContextHandle(
    h_list: ze_command_list_handle_t,
    ph_context: *mut ze_context_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let context = get(h_list)?.context as ze_context_handle_t;
        // SAFETY: NULL or valid for writes (API contract).
        unsafe { write_out(ph_context, context)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeCommandListIsImmediate` (1.9).
pub(super) unsafe extern "C" fn zeCommandListIsImmediate(
    h_list: ze_command_list_handle_t,
    p_is_immediate: *mut ze_bool_t,
) -> ze_result_t {
    ze_call(|| {
        let immediate = matches!(get(h_list)?.kind, Kind::Immediate(_));
        // SAFETY: NULL or valid for writes (API contract).
        unsafe { write_out(p_is_immediate, ze_bool_t::from(immediate))? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeCommandListGetOrdinal` (1.9): the command queue group the list was created for.
pub(super) unsafe extern "C" fn zeCommandListGetOrdinal(
    h_list: ze_command_list_handle_t,
    p_ordinal: *mut u32,
) -> ze_result_t {
    ze_call(|| {
        let ordinal = get(h_list)?.ordinal;
        // SAFETY: NULL or valid for writes (API contract).
        unsafe { write_out(p_ordinal, ordinal)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeCommandListImmediateGetIndex` (1.9): an immediate list's queue index in its group.
pub(super) unsafe extern "C" fn zeCommandListImmediateGetIndex(
    h_list: ze_command_list_handle_t,
    p_index: *mut u32,
) -> ze_result_t {
    ze_call(|| {
        let l = get(h_list)?;
        check(
            matches!(l.kind, Kind::Immediate(_)),
            ZE_RESULT_ERROR_INVALID_ARGUMENT,
        )?;
        // SAFETY: NULL or valid for writes (API contract).
        unsafe { write_out(p_index, l.index)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamp_results_are_four_u64s() {
        // Op::WriteEventTimes writes (start, end, start, end).
        assert_eq!(std::mem::size_of::<ze_kernel_timestamp_result_t>(), 32);
        assert_eq!(
            std::mem::offset_of!(ze_kernel_timestamp_result_t, context),
            16
        );
        assert_eq!(
            std::mem::offset_of!(ze_kernel_timestamp_data_t, kernelEnd),
            8
        );
    }
}
