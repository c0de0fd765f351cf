//! OpenCL unified shared memory (`cl_intel_unified_shared_memory`): host, device and shared
//! allocations that kernels take as plain pointers. Device memory is host memory, so the
//! three kinds are the same aligned host allocation, recorded in the allocation map shared
//! with Level-Zero and SVM ([`crate::usm`]) with their kind, device and flags, which is all
//! `clGetMemAllocInfoINTEL` reports. Owned by their OpenCL context, like SVM allocations
//! (same owner value), but without SVM flags: each API's free accepts only its own.
//!
//! Copies and fills are the SVM ones ([`super::svm::copy`], [`super::svm::fill`]);
//! migration and advice only order commands.

use crate::context::Context;
use crate::error::{Error, Result};
use crate::event;
use crate::queue;
use crate::usm::{self, Allocation, UsmKind};

use super::svm::owner;

/// Allocate `size` zeroed bytes of `kind` for `context`, aligned to `align` (0: the
/// default), recording the front end's `device` handle (0: none) and the application's
/// allocation `flags`. The front end has checked the size, alignment and flags.
pub fn alloc(
    context: &Context,
    kind: UsmKind,
    device: usize,
    size: usize,
    align: usize,
    flags: u64,
) -> Result<Allocation> {
    usm::alloc_on(kind, size, align, owner(context), device, flags)
}

/// The USM allocation of `context` containing `addr`. An SVM allocation of the context is
/// a shared allocation too (it is one), as Intel's runtime also reports it.
pub fn find(context: &Context, addr: usize) -> Option<Allocation> {
    usm::find(addr).filter(|a| a.owner == owner(context))
}

fn is_own_usm(context: &Context, a: &Allocation) -> bool {
    a.owner == owner(context) && a.svm.is_none()
}

/// `clMemFreeINTEL` / `clMemBlockingFreeINTEL`: free the allocation whose base is `ptr`,
/// which must be one of `context`'s USM allocations.
///
/// `blocking` first waits for every command enqueued so far on the context's queues (any
/// of them may use the memory, directly or through a pointer it loads). On a thread that
/// runs commands, or inside an event callback (where the Unified Runtime's fill frees its
/// staging memory), that wait could need the very thread it blocks, so there the free is
/// done by the last of those commands as it completes instead, and the call returns at
/// once.
pub fn free(context: &Context, ptr: usize, blocking: bool) -> Result<()> {
    let not_usm =
        Error::InvalidValue("pointer is not the base of a USM allocation of this context");
    let id = match usm::find(ptr) {
        Some(a) if a.base == ptr && is_own_usm(context, &a) => a.id,
        _ => return Err(not_usm),
    };
    // Only this allocation: a deferred free must not take a later one at the same address.
    let free_now = move || usm::free_if(ptr, |a| a.id == id).map(drop);
    if !blocking {
        return free_now();
    }
    if queue::on_queue_thread() || event::in_event_callback() {
        context.after_pending(Box::new(move || {
            // Freed already by the application meanwhile: nothing left to do.
            let _ = free_now();
        }));
        return Ok(());
    }
    for e in context.pending() {
        e.wait();
    }
    free_now().map_err(|_| not_usm)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::svm;
    use crate::platform::Platform;
    use crate::usm::SvmFlags;
    use std::sync::Arc;

    fn ctx() -> Arc<Context> {
        Context::new(vec![Platform::get().device.clone()], Vec::new(), None)
    }

    #[test]
    fn kinds_devices_and_flags_are_recorded() {
        let c = ctx();
        let a = alloc(&c, UsmKind::Device, 0xD1, 100, 0, 1).unwrap();
        let found = find(&c, a.base + 99).unwrap();
        assert_eq!(
            (found.kind, found.device, found.flags),
            (UsmKind::Device, 0xD1, 1)
        );
        assert!(
            find(&ctx(), a.base).is_none(),
            "another context's allocation"
        );
        free(&c, a.base, false).unwrap();
        assert!(find(&c, a.base).is_none());
    }

    #[test]
    fn free_takes_only_own_usm_bases() {
        let (c, other) = (ctx(), ctx());
        let a = alloc(&c, UsmKind::Host, 0, 64, 0, 0).unwrap();
        assert!(free(&c, a.base + 1, false).is_err(), "interior pointer");
        assert!(free(&other, a.base, true).is_err(), "another context");
        let s = svm::alloc(&c, SvmFlags::default(), 64, 0).unwrap();
        assert!(free(&c, s, false).is_err(), "an SVM allocation");
        assert!(!svm::free(&c, a.base), "clSVMFree leaves USM alone");
        free(&c, a.base, true).unwrap();
        assert!(free(&c, a.base, true).is_err(), "freed twice");
        assert!(svm::free(&c, s));
    }
}
