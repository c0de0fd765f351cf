//! `clEnqueueNativeKernel`: Ferrite runs on the host, so a native kernel is the
//! application's function called on a queue worker (`CL_EXEC_NATIVE_KERNEL` in
//! `CL_DEVICE_EXECUTION_CAPABILITIES`).
//!
//! The argument block is copied at enqueue; each memory object of `mem_list` is replaced,
//! at the offset where `args_mem_loc[i]` pointed into the application's block, by the
//! address of the object's storage (host memory here), and the objects are kept alive
//! until the command has run.

use super::super::event::wait_list;
use super::super::handle::get;
use super::super::{check, cl_call, slice, SendPtr};
use super::submit;
use crate::error::{ClError, ClResult};
use ferrite_runtime::event::CommandType;
use ferrite_runtime::mem::Mem;
use ferrite_runtime::queue::{Queue, Work};
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

type UserFunc = Option<unsafe extern "C" fn(args: *mut c_void)>;

/// Where each memory object's address goes in the copied block.
///
/// # Safety
/// `mem_list` and `args_mem_loc` are NULL or point to `n` entries.
unsafe fn mem_args(
    q: &Queue,
    args: *const c_void,
    cb_args: usize,
    n: usize,
    mem_list: *const cl_mem,
    args_mem_loc: *mut *const c_void,
) -> ClResult<Vec<(usize, Arc<Mem>)>> {
    // SAFETY: per the caller.
    let (mems, locs) = unsafe { (slice(mem_list, n), slice(args_mem_loc as *const _, n)) };
    let mut out = Vec::with_capacity(n);
    for (&h, &loc) in mems.iter().zip(locs) {
        // CL_INVALID_MEM_OBJECT if one or more memory objects specified in mem_list are
        // not valid or are not buffer objects.
        let m = get::<Mem>(h)?;
        // CL_INVALID_CONTEXT: a memory object of another context.
        check(Arc::ptr_eq(&m.context, &q.context), CL_INVALID_CONTEXT)?;
        // args_mem_loc[i] must point into the block (where a pointer fits).
        let offset = (loc as usize).wrapping_sub(args as usize);
        check(
            offset
                .checked_add(std::mem::size_of::<*mut c_void>())
                .is_some_and(|end| end <= cb_args),
            CL_INVALID_VALUE,
        )?;
        out.push((offset, m));
    }
    Ok(out)
}

pub unsafe extern "C" fn enqueue_native_kernel(
    command_queue: cl_command_queue,
    user_func: UserFunc,
    args: *mut c_void,
    cb_args: usize,
    num_mem_objects: cl_uint,
    mem_list: *const cl_mem,
    args_mem_loc: *mut *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue.
        let q = get::<Queue>(command_queue)?;
        // CL_INVALID_VALUE if user_func is NULL.
        let f = user_func.ok_or(ClError(CL_INVALID_VALUE))?;
        // CL_INVALID_VALUE if args is a NULL value and cb_args > 0, or if args is a NULL
        // value and num_mem_objects > 0.
        check(
            !args.is_null() || (cb_args == 0 && num_mem_objects == 0),
            CL_INVALID_VALUE,
        )?;
        // CL_INVALID_VALUE if args is not NULL and cb_args is 0.
        check(args.is_null() || cb_args > 0, CL_INVALID_VALUE)?;
        // CL_INVALID_VALUE if num_mem_objects > 0 and mem_list or args_mem_loc are NULL.
        // CL_INVALID_VALUE if num_mem_objects = 0 and mem_list or args_mem_loc are not
        // NULL.
        let n = num_mem_objects as usize;
        if n > 0 {
            check(
                !mem_list.is_null() && !args_mem_loc.is_null(),
                CL_INVALID_VALUE,
            )?;
        } else {
            check(
                mem_list.is_null() && args_mem_loc.is_null(),
                CL_INVALID_VALUE,
            )?;
        }
        // SAFETY: mem_list and args_mem_loc hold num_mem_objects entries (API contract).
        let mems = unsafe { mem_args(&q, args, cb_args, n, mem_list, args_mem_loc) }?;
        // SAFETY: API contract on the wait list.
        let wait = unsafe { wait_list(&q.context, num_events_in_wait_list, event_wait_list) }?;
        // The block is copied now ("args ... copied and a pointer to this copied region
        // will be passed to user_func"), 16-byte aligned like a malloc'ed block.
        let words = cb_args.div_ceil(16);
        let mut block = vec![0u128; words.max(1)];
        if cb_args > 0 {
            // SAFETY: args points to cb_args readable bytes (API contract); block has
            // room for them.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    args as *const u8,
                    block.as_mut_ptr() as *mut u8,
                    cb_args,
                )
            };
        }
        let work: Work = Box::new(move || {
            let mut block = block;
            let base = block.as_mut_ptr() as *mut u8;
            for (offset, m) in &mems {
                // SAFETY: offset + pointer size <= cb_args <= the block's size (checked
                // in mem_args); the slot may be unaligned.
                unsafe { (base.add(*offset) as *mut *mut u8).write_unaligned(m.base()) };
            }
            let p = SendPtr(base as *mut c_void);
            // SAFETY: the application's native kernel, called with the copied argument
            // block, on a queue worker, as clEnqueueNativeKernel documents.
            unsafe { f(p.get()) };
            drop(mems);
            Ok(())
        });
        // SAFETY: event is NULL or writable (API contract).
        unsafe { submit(&q, CommandType::NativeKernel, wait, work, event, false) }
    })
}
