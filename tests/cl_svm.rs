//! Shared virtual memory through the ICD loader, one test per claim of
//! `CL_DEVICE_SVM_CAPABILITIES`:
//! - coarse-grain buffers: maps, `clEnqueueSVMMemcpy`/`MemFill` with events and wait lists,
//!   kernels reading and writing through SVM pointers (also interior ones), `clEnqueueSVMFree`
//!   with and without a callback, migration;
//! - fine-grain buffers: the host reads a kernel's results without a map after `clFinish`; a
//!   linked list built by the host inside SVM is traversed (and updated) by a kernel;
//! - fine-grain system: plain host memory (`Vec`, `Box`, the stack) passed with
//!   `clSetKernelArgSVMPointer` and `CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM`, including a
//!   table of host pointers the kernel follows;
//! - atomics, between a running kernel and a host thread (litmus tests, many iterations
//!   each, outcome histograms printed): message passing both ways, store buffering with
//!   `seq_cst`, a counter incremented by a kernel's work-items and a host thread at once
//!   (C11 and OpenCL 1.2 atomics), and a ping-pong handshake. Every spin has a bound (the
//!   kernel's a spin count, the host's a deadline): a bug fails the test instead of hanging
//!   it, and the kernel is always told to stop before its memory is freed.
//!
//! Plus the error paths of every SVM entry point and `CL_MEM_USES_SVM_POINTER`.

use ferrite_tests::*;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const ALL_SVM: cl_device_svm_capabilities = CL_DEVICE_SVM_COARSE_GRAIN_BUFFER
    | CL_DEVICE_SVM_FINE_GRAIN_BUFFER
    | CL_DEVICE_SVM_FINE_GRAIN_SYSTEM
    | CL_DEVICE_SVM_ATOMICS;
const FINE: cl_svm_mem_flags = CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER;
const FINE_ATOMIC: cl_svm_mem_flags = FINE | CL_MEM_SVM_ATOMICS;

/// One `clSVMAlloc` allocation, freed on drop (declare it after the context it uses).
struct Svm {
    ctx: cl_context,
    ptr: *mut c_void,
    size: usize,
}

impl Svm {
    #[track_caller]
    fn new(ctx: &Context, flags: cl_svm_mem_flags, size: usize) -> Svm {
        // SAFETY: a live context.
        let ptr = unsafe { clSVMAlloc(ctx.0, flags, size, 0) };
        assert!(
            !ptr.is_null(),
            "clSVMAlloc({flags:#x}, {size}) returned NULL"
        );
        Svm {
            ctx: ctx.0,
            ptr,
            size,
        }
    }

    /// The address `offset` bytes in.
    fn at<T>(&self, offset: usize) -> *mut T {
        assert!(offset <= self.size);
        self.ptr.cast::<u8>().wrapping_add(offset).cast()
    }

    /// The allocation as `i32`s, for fine-grain host access outside any race.
    fn ints(&mut self) -> &mut [i32] {
        // SAFETY: the allocation is `size` bytes, 128-byte aligned and lives as long as
        // `self`; the tests use this view only while no command touches the memory.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.cast(), self.size / 4) }
    }

    /// The `i32` at index `i` as an atomic (fine-grain SVM with atomics).
    fn atomic(&self, i: usize) -> &AtomicI32 {
        assert!((i + 1) * 4 <= self.size);
        // SAFETY: in bounds (checked), 4-byte aligned, valid for the allocation's life; every
        // concurrent host access of these words goes through atomics.
        unsafe { &*self.ptr.cast::<AtomicI32>().add(i) }
    }
}

impl Drop for Svm {
    fn drop(&mut self) {
        // SAFETY: a pointer clSVMAlloc returned for this context, freed once.
        unsafe { clSVMFree(self.ctx, self.ptr) };
    }
}

/// `clSetKernelArgSVMPointer` that must succeed.
#[track_caller]
fn svm_arg<T>(k: &Kernel, index: cl_uint, p: *const T) {
    // SAFETY: a live kernel; the pointer is only stored.
    let rc = unsafe { clSetKernelArgSVMPointer(k.0, index, p.cast()) };
    check(rc, &format!("clSetKernelArgSVMPointer({index})"));
}

/// An event out-pointer turned into an owned [`Event`].
fn owned(e: cl_event) -> Event {
    assert!(!e.is_null(), "no event returned");
    Event(e)
}

/// Blocking `clEnqueueSVMMap` (or unmap with `map = false`) of `size` bytes at `p`.
#[track_caller]
fn map(q: &Queue, flags: cl_map_flags, p: *mut c_void, size: usize) {
    // SAFETY: a live queue, no wait list, no event.
    let rc = unsafe {
        clEnqueueSVMMap(
            q.0,
            CL_TRUE,
            flags,
            p,
            size,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(rc, "clEnqueueSVMMap");
}

#[track_caller]
fn unmap(q: &Queue, p: *mut c_void) -> Event {
    let mut e = ptr::null_mut();
    // SAFETY: a live queue, no wait list.
    let rc = unsafe { clEnqueueSVMUnmap(q.0, p, 0, ptr::null(), &mut e) };
    check(rc, "clEnqueueSVMUnmap");
    owned(e)
}

#[track_caller]
fn memcpy(
    q: &Queue,
    blocking: bool,
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    wait: &[cl_event],
) -> Event {
    let mut e = ptr::null_mut();
    // SAFETY: per the callers, both ranges are valid for `size` bytes until the copy ends.
    let rc = unsafe {
        clEnqueueSVMMemcpy(
            q.0,
            if blocking { CL_TRUE } else { CL_FALSE },
            dst,
            src,
            size,
            wait.len() as cl_uint,
            if wait.is_empty() {
                ptr::null()
            } else {
                wait.as_ptr()
            },
            &mut e,
        )
    };
    check(rc, "clEnqueueSVMMemcpy");
    owned(e)
}

fn fill_rc(q: &Queue, p: *mut c_void, pattern: &[u8], size: usize) -> cl_int {
    // SAFETY: per the callers, `p` is valid for `size` bytes (or the call fails first).
    unsafe {
        clEnqueueSVMMemFill(
            q.0,
            p,
            pattern.as_ptr().cast(),
            pattern.len(),
            size,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    }
}

#[test]
fn device_claims_every_svm_kind() {
    let caps: cl_device_svm_capabilities = device_get(CL_DEVICE_SVM_CAPABILITIES);
    assert_eq!(caps, ALL_SVM, "CL_DEVICE_SVM_CAPABILITIES {caps:#x}");
}

#[test]
fn svm_alloc_flags_alignment_and_free() {
    let env = Env::new();
    let alloc = |flags, size, align| {
        // SAFETY: a live context.
        unsafe { clSVMAlloc(env.ctx.0, flags, size, align) }
    };
    let free = |p| {
        // SAFETY: NULL or a pointer from clSVMAlloc on this context.
        unsafe { clSVMFree(env.ctx.0, p) }
    };
    // Every valid combination of the SVM Memory Flags table.
    for access in [0, CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY] {
        for kind in [
            0,
            CL_MEM_SVM_FINE_GRAIN_BUFFER,
            FINE_ATOMIC & !CL_MEM_READ_WRITE,
        ] {
            for align in [0, 1, 2, 4, 8, 16, 32, 64, 128] {
                let p = alloc(access | kind, 1000, align);
                assert!(!p.is_null(), "flags {:#x} align {align}", access | kind);
                assert_eq!(p as usize % align.max(1) as usize, 0);
                free(p);
            }
        }
    }
    // The default alignment is the largest type's size (long16: 128 bytes).
    let p = alloc(0, 1, 0);
    assert_eq!(p as usize % 128, 0);
    free(p);
    // Invalid combinations give NULL.
    let max_alloc: cl_ulong = device_get(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    for (flags, size, align, why) in [
        (
            CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
            64,
            0,
            "two access modes",
        ),
        (
            CL_MEM_READ_WRITE | CL_MEM_READ_ONLY,
            64,
            0,
            "two access modes",
        ),
        (CL_MEM_SVM_ATOMICS, 64, 0, "atomics without fine grain"),
        (CL_MEM_USE_HOST_PTR, 64, 0, "a buffer flag"),
        (CL_MEM_ALLOC_HOST_PTR, 64, 0, "a buffer flag"),
        (1 << 40, 64, 0, "an unknown flag"),
        (0, 0, 0, "size 0"),
        (
            0,
            max_alloc as usize + 1,
            0,
            "size above CL_DEVICE_MAX_MEM_ALLOC_SIZE",
        ),
        (0, 64, 3, "alignment not a power of two"),
        (0, 64, 256, "alignment above the largest type"),
    ] {
        let p = alloc(flags, size, align);
        assert!(p.is_null(), "clSVMAlloc accepted {why}");
    }
    // clSVMFree(NULL) does nothing; so does, on Ferrite, a pointer that is not an SVM
    // allocation or one freed already (undefined behaviour in the specification).
    free(ptr::null_mut());
    if is_ferrite() {
        let mut host = vec![0u8; 64];
        free(host.as_mut_ptr().cast());
        let p = alloc(0, 64, 0);
        free(p.cast::<u8>().wrapping_add(8).cast());
        free(p);
        free(p);
        assert!(host.iter().all(|&b| b == 0));
    }
}

const COARSE_SRC: &str = r#"
__kernel void scale(__global const int *a, __global int *b) {
    size_t i = get_global_id(0);
    b[i] = a[i] * 2 + 1;
}
"#;

#[test]
fn coarse_grain_maps_and_kernels() {
    let env = Env::new();
    let n = 4096usize;
    let mut a = Svm::new(&env.ctx, CL_MEM_READ_ONLY, n * 4);
    let mut b = Svm::new(&env.ctx, CL_MEM_READ_WRITE, n * 4);
    map(&env.queue, CL_MAP_WRITE_INVALIDATE_REGION, a.ptr, n * 4);
    for (i, x) in a.ints().iter_mut().enumerate() {
        *x = i as i32;
    }
    unmap(&env.queue, a.ptr).wait();
    let k = env.build(COARSE_SRC, "").kernel("scale");
    svm_arg(&k, 0, a.ptr);
    svm_arg(&k, 1, b.ptr);
    run_1d(&env.queue, &k, n, None);
    map(&env.queue, CL_MAP_READ, b.ptr, n * 4);
    for (i, &x) in b.ints().iter().enumerate() {
        assert_eq!(x, 2 * i as i32 + 1, "b[{i}]");
    }
    unmap(&env.queue, b.ptr).wait();
    // A pointer inside an allocation: the kernel sees the interior address.
    svm_arg(&k, 0, a.at::<i32>(400 * 4));
    svm_arg(&k, 1, b.at::<i32>(1000 * 4));
    run_1d(&env.queue, &k, 100, None);
    map(&env.queue, CL_MAP_READ | CL_MAP_WRITE, b.ptr, n * 4);
    let v = b.ints();
    assert_eq!(v[999], 2 * 999 + 1);
    for i in 0..100 {
        assert_eq!(v[1000 + i], 2 * (400 + i as i32) + 1);
    }
    assert_eq!(v[1100], 2 * 1100 + 1);
    unmap(&env.queue, b.ptr).wait();
    env.queue.finish();
}

#[test]
fn coarse_grain_memcpy_fill_events_and_free() {
    let env = Env::new();
    let q = &env.queue;
    let size = 1 << 16;
    let a = Svm::new(&env.ctx, 0, size);
    let b = Svm::new(&env.ctx, 0, size);
    let src: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
    // host -> SVM -> SVM -> host, the first waiting for a user event.
    let user = Event::user(&env.ctx);
    let e1 = memcpy(q, false, a.ptr, src.as_ptr().cast(), size, &[user.0]);
    let e2 = memcpy(q, false, b.ptr, a.ptr, size, &[e1.0]);
    let mut out = vec![0u8; size];
    let e3 = memcpy(q, false, out.as_mut_ptr().cast(), b.ptr, size, &[e2.0]);
    std::thread::sleep(Duration::from_millis(20));
    assert_ne!(
        e3.status(),
        CL_COMPLETE,
        "the copy ran before its wait list"
    );
    assert!(out.iter().all(|&x| x == 0));
    user.set_status(CL_COMPLETE);
    e3.wait();
    assert_eq!(out, src);
    for e in [&e1, &e2, &e3] {
        assert_eq!(e.command_type(), CL_COMMAND_SVM_MEMCPY);
        assert_eq!(e.status(), CL_COMPLETE);
    }
    // Blocking copy of a part, between interior pointers.
    memcpy(q, true, a.at(100), b.at(5000), 333, &[]);
    map(q, CL_MAP_READ, a.ptr, size);
    // SAFETY: mapped; 333 bytes at offset 100 are inside the allocation.
    let part = unsafe { std::slice::from_raw_parts(a.at::<u8>(100), 333) };
    assert_eq!(part, &src[5000..5333]);
    unmap(q, a.ptr).wait();
    // Fills with every pattern size, at an offset aligned to the pattern.
    for psize in [1usize, 2, 4, 8, 16, 32, 64, 128] {
        let pattern: Vec<u8> = (0..psize)
            .map(|i| (i as u8).wrapping_mul(31) ^ psize as u8)
            .collect();
        let (off, len) = (psize * 3, psize * 40);
        check(fill_rc(q, b.ptr, &[0xEE], size), "clEnqueueSVMMemFill");
        let mut e = ptr::null_mut();
        // SAFETY: off + len <= size; the pattern is valid for psize bytes.
        let rc = unsafe {
            clEnqueueSVMMemFill(
                q.0,
                b.at(off),
                pattern.as_ptr().cast(),
                psize,
                len,
                0,
                ptr::null(),
                &mut e,
            )
        };
        check(rc, "clEnqueueSVMMemFill");
        let e = owned(e);
        let mut m = ptr::null_mut();
        // SAFETY: a live queue; the map waits for the fill.
        let rc =
            unsafe { clEnqueueSVMMap(q.0, CL_TRUE, CL_MAP_READ, b.ptr, size, 1, &e.0, &mut m) };
        check(rc, "clEnqueueSVMMap");
        let m = owned(m);
        assert_eq!(e.command_type(), CL_COMMAND_SVM_MEMFILL);
        assert_eq!(m.command_type(), CL_COMMAND_SVM_MAP);
        // SAFETY: mapped, in bounds.
        let bytes = unsafe { std::slice::from_raw_parts(b.at::<u8>(0), off + len + 8) };
        assert!(
            bytes[..off].iter().all(|&x| x == 0xEE),
            "before the fill, pattern {psize}"
        );
        for (j, &x) in bytes[off..off + len].iter().enumerate() {
            assert_eq!(x, pattern[j % psize], "pattern {psize} byte {j}");
        }
        assert!(
            bytes[off + len..].iter().all(|&x| x == 0xEE),
            "after the fill, pattern {psize}"
        );
        let u = unmap(q, b.ptr);
        u.wait();
        assert_eq!(u.command_type(), CL_COMMAND_SVM_UNMAP);
    }
    // Migration: whole allocations and ranges, to and from the host.
    let ptrs = [a.ptr as *const c_void, b.at::<c_void>(64) as *const c_void];
    let sizes = [0usize, 128];
    for flags in [
        0,
        CL_MIGRATE_MEM_OBJECT_HOST,
        CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
    ] {
        let mut e = ptr::null_mut();
        // SAFETY: two pointers with their sizes.
        let rc = unsafe {
            clEnqueueSVMMigrateMem(
                q.0,
                2,
                ptrs.as_ptr() as *mut _,
                sizes.as_ptr(),
                flags,
                0,
                ptr::null(),
                &mut e,
            )
        };
        check(rc, "clEnqueueSVMMigrateMem");
        let e = owned(e);
        e.wait();
        assert_eq!(e.command_type(), CL_COMMAND_SVM_MIGRATE_MEM);
    }
    q.finish();
}

/// What the free callback saw.
struct Freed {
    queue: cl_command_queue,
    ptrs: Vec<usize>,
    calls: usize,
}

unsafe extern "C" fn on_free(
    queue: cl_command_queue,
    n: cl_uint,
    ptrs: *mut *mut c_void,
    user: *mut c_void,
) {
    // SAFETY: user_data is the test's Mutex<Freed>, alive until the command completes; the
    // driver passes `n` pointers.
    let (freed, list) = unsafe {
        (
            &*(user as *const Mutex<Freed>),
            std::slice::from_raw_parts(ptrs, n as usize),
        )
    };
    let mut f = freed.lock().unwrap_or_else(|e| e.into_inner());
    f.queue = queue;
    f.ptrs = list.iter().map(|&p| p as usize).collect();
    f.calls += 1;
    let mut ctx: cl_context = ptr::null_mut();
    // SAFETY: the queue handle is live; the callback frees what it was given.
    unsafe {
        clGetCommandQueueInfo(
            queue,
            CL_QUEUE_CONTEXT,
            std::mem::size_of::<cl_context>(),
            (&mut ctx as *mut cl_context).cast(),
            ptr::null_mut(),
        );
        for &p in list {
            clSVMFree(ctx, p);
        }
    }
}

#[test]
fn enqueue_svm_free_with_and_without_callback() {
    let env = Env::new();
    let q = &env.queue;
    let alloc = || {
        // SAFETY: a live context.
        let p = unsafe { clSVMAlloc(env.ctx.0, 0, 256, 0) };
        assert!(!p.is_null());
        p
    };
    let mut ptrs: Vec<*mut c_void> = (0..8).map(|_| alloc()).collect();
    let expect: Vec<usize> = ptrs.iter().map(|&p| p as usize).collect();
    let freed = Mutex::new(Freed {
        queue: ptr::null_mut(),
        ptrs: Vec::new(),
        calls: 0,
    });
    let user = Event::user(&env.ctx);
    let mut e = ptr::null_mut();
    // SAFETY: 8 pointers; the callback and its data outlive the command (we wait for it).
    let rc = unsafe {
        clEnqueueSVMFree(
            q.0,
            8,
            ptrs.as_mut_ptr() as *const *const c_void,
            Some(on_free),
            (&freed as *const Mutex<Freed>) as *mut c_void,
            1,
            &user.0,
            &mut e,
        )
    };
    check(rc, "clEnqueueSVMFree");
    // The application may reuse its array at once.
    ptrs.iter_mut().for_each(|p| *p = ptr::null_mut());
    let e = owned(e);
    std::thread::sleep(Duration::from_millis(10));
    assert_eq!(freed.lock().unwrap().calls, 0, "ran before its wait list");
    user.set_status(CL_COMPLETE);
    e.wait();
    assert_eq!(e.command_type(), CL_COMMAND_SVM_FREE);
    let f = freed.lock().unwrap();
    assert_eq!((f.calls, f.queue, &f.ptrs), (1, q.0, &expect));
    drop(f);
    // Without a callback the driver frees them; an empty list is a no-op command.
    let mut more: Vec<*mut c_void> = (0..4).map(|_| alloc()).collect();
    // SAFETY: 4 pointers from clSVMAlloc on this context.
    let rc = unsafe {
        clEnqueueSVMFree(
            q.0,
            4,
            more.as_mut_ptr() as *const *const c_void,
            None,
            ptr::null_mut(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(rc, "clEnqueueSVMFree");
    // SAFETY: an empty list.
    let rc = unsafe {
        clEnqueueSVMFree(
            q.0,
            0,
            ptr::null_mut(),
            None,
            ptr::null_mut(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(rc, "clEnqueueSVMFree(0, NULL)");
    q.finish();
}

const LIST_SRC: &str = r#"
typedef struct Node { int val; __global struct Node *next; } Node;
/* A pointer kept in memory (OpenCL C 1.2 has no pointer-to-pointer kernel parameters). */
typedef struct Head { __global Node *p; } Head;
__kernel void walk(__global const Head *heads, __global int *sums, __global int *lens) {
    size_t i = get_global_id(0);
    __global Node *p = heads[i].p;
    int s = 0, n = 0;
    while (p) {
        s += p->val;
        p->val *= 2;
        n++;
        p = p->next;
    }
    sums[i] = s;
    lens[i] = n;
}
__kernel void bump(__global int *v) { v[get_global_id(0)] += 1000; }
"#;

/// The kernel's `Node`: `int` then a pointer at offset 8.
#[repr(C)]
#[derive(Clone, Copy)]
struct Node {
    val: i32,
    next: *mut Node,
}

#[test]
fn fine_grain_buffer_linked_list_and_no_map() {
    let env = Env::new();
    let prog = env.build(LIST_SRC, "");
    // Results are read by the host without any map after clFinish.
    let n = 1000usize;
    let mut v = Svm::new(&env.ctx, FINE, n * 4);
    for (i, x) in v.ints().iter_mut().enumerate() {
        *x = i as i32;
    }
    let bump = prog.kernel("bump");
    svm_arg(&bump, 0, v.ptr);
    run_1d(&env.queue, &bump, n, None);
    env.queue.finish();
    assert!(v
        .ints()
        .iter()
        .enumerate()
        .all(|(i, &x)| x == i as i32 + 1000));
    // Lists of different lengths whose nodes are scattered over one allocation, built by
    // the host with plain stores.
    let lists = 64usize;
    let lens: Vec<usize> = (0..lists).map(|i| i * 7 % 23).collect();
    let total: usize = lens.iter().sum();
    let nodes = Svm::new(&env.ctx, FINE, total.max(1) * std::mem::size_of::<Node>());
    let heads = Svm::new(&env.ctx, FINE, lists * 8);
    let mut out = Svm::new(&env.ctx, FINE, lists * 8);
    let mut slots: Vec<usize> = (0..total).collect();
    let mut rng = Rng(0x5EED);
    for i in (1..slots.len()).rev() {
        slots.swap(i, rng.next_u64() as usize % (i + 1));
    }
    let node = |slot: usize| nodes.at::<Node>(slot * std::mem::size_of::<Node>());
    let mut expect = Vec::new();
    let mut next_slot = slots.into_iter();
    for (l, &len) in lens.iter().enumerate() {
        let mut head: *mut Node = ptr::null_mut();
        let mut sum = 0;
        for j in 0..len {
            let p = node(next_slot.next().expect("enough slots"));
            let val = (l * 100 + j) as i32;
            sum += val;
            // SAFETY: p is a Node-sized, aligned slot of the fine-grain allocation.
            unsafe { p.write(Node { val, next: head }) };
            head = p;
        }
        // SAFETY: heads has `lists` pointer slots.
        unsafe { heads.at::<*mut Node>(l * 8).write(head) };
        expect.push((sum, len as i32));
    }
    let walk = prog.kernel("walk");
    svm_arg(&walk, 0, heads.ptr);
    svm_arg(&walk, 1, out.ptr);
    svm_arg(&walk, 2, out.at::<i32>(lists * 4));
    run_1d(&env.queue, &walk, lists, None);
    env.queue.finish();
    let got = out.ints();
    for (l, &(sum, len)) in expect.iter().enumerate() {
        assert_eq!((got[l], got[lists + l]), (sum, len), "list {l}");
    }
    // The kernel's updates of the nodes are visible to the host's traversal.
    for (l, &(sum, _)) in expect.iter().enumerate() {
        // SAFETY: heads and nodes are live; the lists are well formed.
        let mut p = unsafe { heads.at::<*mut Node>(l * 8).read() };
        let mut s = 0;
        while !p.is_null() {
            // SAFETY: as above.
            let nd = unsafe { p.read() };
            s += nd.val;
            p = nd.next;
        }
        assert_eq!(s, 2 * sum, "list {l} after the kernel");
    }
}

const SYSTEM_SRC: &str = r#"
typedef struct Ptr { __global int *p; } Ptr;
__kernel void sys(__global int *v, __global const Ptr *table) {
    int i = (int)get_global_id(0);
    v[i] = v[i] * 3 + 1;
    __global int *dst = table[i & 1].p;
    dst[i >> 1] = i;
}
"#;

#[test]
fn fine_grain_system_plain_host_memory() {
    let env = Env::new();
    let k = env.build(SYSTEM_SRC, "").kernel("sys");
    let on: cl_bool = CL_TRUE;
    // SAFETY: a live kernel and a cl_bool.
    let rc = unsafe {
        clSetKernelExecInfo(
            k.0,
            CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
            std::mem::size_of::<cl_bool>(),
            (&on as *const cl_bool).cast(),
        )
    };
    check(rc, "clSetKernelExecInfo(SVM_FINE_GRAIN_SYSTEM)");
    let n = 2048usize;
    let mut v: Vec<i32> = (0..n as i32).collect();
    let mut even = vec![-1i32; n / 2];
    let mut odd = Box::new([-1i32; 1024]);
    // The table itself lives on the stack.
    let table: [*mut i32; 2] = [even.as_mut_ptr(), odd.as_mut_ptr()];
    // The pointers the kernel reaches indirectly.
    // SAFETY: a live kernel and two pointers.
    let rc = unsafe {
        clSetKernelExecInfo(
            k.0,
            CL_KERNEL_EXEC_INFO_SVM_PTRS,
            std::mem::size_of_val(&table),
            table.as_ptr().cast(),
        )
    };
    check(rc, "clSetKernelExecInfo(SVM_PTRS)");
    svm_arg(&k, 0, v.as_mut_ptr());
    svm_arg(&k, 1, table.as_ptr());
    run_1d(&env.queue, &k, n, None);
    env.queue.finish();
    for (i, &x) in v.iter().enumerate() {
        assert_eq!(x, 3 * i as i32 + 1, "v[{i}]");
    }
    for j in 0..n / 2 {
        assert_eq!(
            (even[j], odd[j]),
            (2 * j as i32, 2 * j as i32 + 1),
            "table[{j}]"
        );
    }
}

#[test]
fn buffers_on_svm_pointers() {
    let env = Env::new();
    let mut svm = Svm::new(&env.ctx, FINE, 1024);
    for (i, x) in svm.ints().iter_mut().enumerate() {
        *x = i as i32;
    }
    let uses = |b: &Buffer| -> cl_bool {
        pod(&mem_info(b.0, CL_MEM_USES_SVM_POINTER).expect("CL_MEM_USES_SVM_POINTER"))
    };
    let b =
        Buffer::try_new(&env.ctx, CL_MEM_USE_HOST_PTR, 512, svm.at(256)).expect("buffer on SVM");
    assert_eq!(uses(&b), CL_TRUE);
    // The buffer is a window of the SVM allocation.
    assert_eq!(b.read::<i32>(&env.queue, 2), vec![64, 65]);
    b.write(&env.queue, 0, &[-5i32]);
    assert_eq!(svm.ints()[64], -5);
    let mut host = vec![0i32; 16];
    let h = Buffer::try_new(&env.ctx, CL_MEM_USE_HOST_PTR, 64, host.as_mut_ptr().cast())
        .expect("buffer on host memory");
    assert_eq!(uses(&h), CL_FALSE);
    assert_eq!(uses(&env.buffer_zeroed::<i32>(4)), CL_FALSE);
    // CL_INVALID_BUFFER_SIZE: larger than the SVM allocation behind host_ptr.
    let e = Buffer::try_new(&env.ctx, CL_MEM_USE_HOST_PTR, 2048, svm.ptr).err();
    spec_code(
        e.unwrap_or(CL_SUCCESS),
        CL_INVALID_BUFFER_SIZE,
        "clCreateBuffer(USE_HOST_PTR) past the SVM allocation",
    );
    drop(h);
    drop(b);
}

#[test]
fn svm_error_paths() {
    let env = Env::new();
    let q = env.queue.0;
    let a = Svm::new(&env.ctx, 0, 256);
    let p = a.ptr;
    let null = ptr::null_mut::<c_void>();
    let pat = [0u8; 256];
    // SAFETY: (the whole block) every call gets a live queue/kernel and pointers that are NULL,
    // inside `a`, or rejected before use.
    unsafe {
        let nw = ptr::null();
        let ne = ptr::null_mut();
        // clEnqueueSVMMemcpy.
        expect_code(
            clEnqueueSVMMemcpy(q, CL_TRUE, null, p, 4, 0, nw, ne),
            CL_INVALID_VALUE,
            "memcpy dst NULL",
        );
        expect_code(
            clEnqueueSVMMemcpy(q, CL_TRUE, p, null, 4, 0, nw, ne),
            CL_INVALID_VALUE,
            "memcpy src NULL",
        );
        for (d, s) in [(16, 0), (0, 16), (0, 0)] {
            expect_code(
                clEnqueueSVMMemcpy(q, CL_TRUE, a.at(d), a.at(s), 32, 0, nw, ne),
                CL_MEM_COPY_OVERLAP,
                "memcpy overlap",
            );
        }
        check(
            clEnqueueSVMMemcpy(q, CL_TRUE, a.at(32), a.at(0), 32, 0, nw, ne),
            "adjacent memcpy",
        );
        expect_code(
            clEnqueueSVMMemcpy(q, CL_TRUE, a.at(32), a.at(0), 4, 1, nw, ne),
            CL_INVALID_EVENT_WAIT_LIST,
            "memcpy wait list NULL",
        );
        let ev = [ptr::null_mut()];
        expect_code(
            clEnqueueSVMMemcpy(q, CL_TRUE, a.at(32), a.at(0), 4, 0, ev.as_ptr(), ne),
            CL_INVALID_EVENT_WAIT_LIST,
            "memcpy wait list count 0",
        );
        // clEnqueueSVMMemFill.
        let fill = |ptr: *mut c_void, pattern: *const c_void, psize: usize, size: usize| {
            clEnqueueSVMMemFill(q, ptr, pattern, psize, size, 0, nw, ne)
        };
        let pp = pat.as_ptr().cast();
        expect_code(fill(null, pp, 4, 16), CL_INVALID_VALUE, "fill NULL");
        expect_code(
            fill(p, ptr::null(), 4, 16),
            CL_INVALID_VALUE,
            "fill pattern NULL",
        );
        for psize in [0, 3, 12, 256] {
            expect_code(
                fill(p, pp, psize, 48),
                CL_INVALID_VALUE,
                "fill pattern size",
            );
        }
        expect_code(
            fill(a.at(4), pp, 8, 16),
            CL_INVALID_VALUE,
            "fill misaligned",
        );
        expect_code(
            fill(p, pp, 8, 12),
            CL_INVALID_VALUE,
            "fill size not a multiple",
        );
        check(fill(a.at(8), pp, 8, 16), "aligned fill");
        // clEnqueueSVMMap / Unmap.
        expect_code(
            clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, null, 4, 0, nw, ne),
            CL_INVALID_VALUE,
            "map NULL",
        );
        expect_code(
            clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, p, 0, 0, nw, ne),
            CL_INVALID_VALUE,
            "map size 0",
        );
        expect_code(
            clEnqueueSVMMap(q, CL_TRUE, 1 << 10, p, 4, 0, nw, ne),
            CL_INVALID_VALUE,
            "map flags",
        );
        expect_code(
            clEnqueueSVMMap(
                q,
                CL_TRUE,
                CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION,
                p,
                4,
                0,
                nw,
                ne,
            ),
            CL_INVALID_VALUE,
            "map READ | WRITE_INVALIDATE",
        );
        expect_code(
            clEnqueueSVMUnmap(q, null, 0, nw, ne),
            CL_INVALID_VALUE,
            "unmap NULL",
        );
        // clEnqueueSVMFree.
        let list = [p];
        expect_code(
            clEnqueueSVMFree(
                q,
                0,
                list.as_ptr() as *const *const c_void,
                None,
                null,
                0,
                nw,
                ne,
            ),
            CL_INVALID_VALUE,
            "free 0 with a list",
        );
        expect_code(
            clEnqueueSVMFree(q, 1, ptr::null(), None, null, 0, nw, ne),
            CL_INVALID_VALUE,
            "free 1 without a list",
        );
        // clEnqueueSVMMigrateMem.
        let mut cp = [p as *const c_void];
        let sizes = [257usize];
        expect_code(
            clEnqueueSVMMigrateMem(q, 0, cp.as_mut_ptr(), ptr::null(), 0, 0, nw, ne),
            CL_INVALID_VALUE,
            "migrate 0",
        );
        expect_code(
            clEnqueueSVMMigrateMem(q, 1, ptr::null_mut(), ptr::null(), 0, 0, nw, ne),
            CL_INVALID_VALUE,
            "migrate NULL",
        );
        expect_code(
            clEnqueueSVMMigrateMem(q, 1, cp.as_mut_ptr(), ptr::null(), 1 << 5, 0, nw, ne),
            CL_INVALID_VALUE,
            "migrate flags",
        );
        expect_code(
            clEnqueueSVMMigrateMem(q, 1, cp.as_mut_ptr(), sizes.as_ptr(), 0, 0, nw, ne),
            CL_INVALID_VALUE,
            "migrate past the allocation",
        );
        // clSetKernelArgSVMPointer / clSetKernelExecInfo.
        let k = env
            .build(
                "__kernel void k(__global int *p, int x, __local int *l) { p[0] = x; }",
                "",
            )
            .kernel("k");
        expect_code(
            clSetKernelArgSVMPointer(k.0, 3, p),
            CL_INVALID_ARG_INDEX,
            "arg index",
        );
        expect_code(
            clSetKernelArgSVMPointer(k.0, 1, p),
            CL_INVALID_ARG_VALUE,
            "by-value argument",
        );
        expect_code(
            clSetKernelArgSVMPointer(k.0, 2, p),
            CL_INVALID_ARG_VALUE,
            "__local argument",
        );
        check(
            clSetKernelArgSVMPointer(k.0, 0, ptr::null()),
            "NULL SVM pointer",
        );
        check(
            clSetKernelArgSVMPointer(k.0, 0, a.at::<c_void>(100)),
            "interior SVM pointer",
        );
        let t: cl_bool = CL_TRUE;
        let tp = (&t as *const cl_bool).cast();
        expect_code(
            clSetKernelExecInfo(k.0, 0x1234, 4, tp),
            CL_INVALID_VALUE,
            "exec info name",
        );
        expect_code(
            clSetKernelExecInfo(
                k.0,
                CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
                4,
                ptr::null(),
            ),
            CL_INVALID_VALUE,
            "exec info NULL",
        );
        expect_code(
            clSetKernelExecInfo(k.0, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 1, tp),
            CL_INVALID_VALUE,
            "exec info size",
        );
        expect_code(
            clSetKernelExecInfo(k.0, CL_KERNEL_EXEC_INFO_SVM_PTRS, 5, tp),
            CL_INVALID_VALUE,
            "exec info SVM_PTRS size",
        );
        check(
            clSetKernelExecInfo(k.0, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, ptr::null()),
            "unsetting CL_KERNEL_EXEC_INFO_SVM_PTRS",
        );
        if require_handle_validation() {
            let wrong: cl_kernel = wrong_handle(env.ctx.0);
            expect_code(
                clSetKernelArgSVMPointer(wrong, 0, p),
                CL_INVALID_KERNEL,
                "kernel handle",
            );
            expect_code(
                clSetKernelExecInfo(wrong, CL_KERNEL_EXEC_INFO_SVM_PTRS, 8, tp),
                CL_INVALID_KERNEL,
                "kernel handle",
            );
            let wq: cl_command_queue = wrong_handle(env.ctx.0);
            expect_code(
                clEnqueueSVMMemcpy(wq, CL_TRUE, a.at(32), p, 4, 0, nw, ne),
                CL_INVALID_COMMAND_QUEUE,
                "queue handle",
            );
        }
    }
    env.queue.finish();
}

// ---------------------------------------------------------------------------------------------
// SVM atomics between a kernel and a host thread
// ---------------------------------------------------------------------------------------------

/// The litmus kernels. `ctl` is shared control: `[0]` go (the host publishes the iteration
/// it starts, counting from 1; negative: stop), `[1]` done (the kernel's last finished
/// iteration), `[2]` the kernel's error flag (a spin ran out), `[3]` a word the delay loops
/// read, `[4]` the ping-pong turn (negative: stop). Every spin is bounded.
const LITMUS_SRC: &str = r#"
#define SCOPE memory_scope_all_svm_devices
#define SPIN_LIMIT (1L << 31)
typedef volatile __global atomic_int *ap;

int wait_go(ap ctl, int want) {
    for (long s = 0; s < SPIN_LIMIT; s++) {
        int g = atomic_load_explicit(&ctl[0], memory_order_acquire, SCOPE);
        if (g < 0) return 0;
        if (g >= want) return 1;
    }
    atomic_store_explicit(&ctl[2], 1, memory_order_relaxed, SCOPE);
    return 0;
}

void delay(ap ctl, int n) {
    for (int i = 0; i < n; i++) (void)atomic_load_explicit(&ctl[3], memory_order_relaxed, SCOPE);
}

void done(ap ctl, int i) { atomic_store_explicit(&ctl[1], i + 1, memory_order_release, SCOPE); }

__kernel void mp_host_to_kernel(ap ctl, ap flag, __global const int *data, __global int *res,
                                __global const int *delays, int n) {
    for (int i = 0; i < n; i++) {
        if (!wait_go(ctl, i + 1)) return;
        delay(ctl, delays[i]);
        int f = atomic_load_explicit(&flag[i], memory_order_acquire, SCOPE);
        int d = data[i];
        res[i] = 2 * f + d;
        done(ctl, i);
    }
}

__kernel void mp_kernel_to_host(ap ctl, ap flag, __global int *data, __global const int *delays,
                                int n) {
    for (int i = 0; i < n; i++) {
        if (!wait_go(ctl, i + 1)) return;
        delay(ctl, delays[i]);
        data[i] = 1;
        atomic_store_explicit(&flag[i], 1, memory_order_release, SCOPE);
        done(ctl, i);
    }
}

__kernel void store_buffering(ap ctl, ap x, ap y, __global int *res, __global const int *delays,
                              int n) {
    for (int i = 0; i < n; i++) {
        if (!wait_go(ctl, i + 1)) return;
        delay(ctl, delays[i]);
        atomic_store_explicit(&y[i], 1, memory_order_seq_cst, SCOPE);
        res[i] = atomic_load_explicit(&x[i], memory_order_seq_cst, SCOPE);
        done(ctl, i);
    }
}

__kernel void counter_c11(ap ctl, ap counter, int m) {
    if (!wait_go(ctl, 1)) return;
    for (int j = 0; j < m; j++) atomic_fetch_add_explicit(counter, 1, memory_order_relaxed, SCOPE);
}

__kernel void counter_cl12(ap ctl, volatile __global int *counter, int m) {
    if (!wait_go(ctl, 1)) return;
    for (int j = 0; j < m; j++) atomic_inc(counter);
}

__kernel void ping_pong(ap ctl, ap turn, __global const int *payload, __global int *reply,
                        int rounds) {
    for (int k = 0; k < rounds; k++) {
        long s = 0;
        for (;;) {
            int t = atomic_load_explicit(turn, memory_order_acquire, SCOPE);
            if (t < 0) return;
            if (t == 2 * k + 1) break;
            if (++s == SPIN_LIMIT) {
                atomic_store_explicit(&ctl[2], 1, memory_order_relaxed, SCOPE);
                return;
            }
        }
        reply[k] = payload[k] * 3 + k;
        atomic_store_explicit(turn, 2 * k + 2, memory_order_release, SCOPE);
    }
}
"#;

/// Litmus tests run one at a time: they spin on both sides, and on a 2-core machine two of
/// them at once would mostly measure the scheduler.
static SERIAL: Mutex<()> = Mutex::new(());

/// Most iterations a litmus test runs, and the time it may take.
const MAX_ITERS: usize = 100_000;
const BUDGET: Duration = Duration::from_millis(1500);
/// How long the host waits for the kernel in one step before failing.
const STEP_TIMEOUT: Duration = Duration::from_secs(5);

/// A litmus run: the shared memory, the kernel's event, and the guarantee that the kernel is
/// told to stop and has finished before the memory goes away (also when a check panics).
struct Litmus {
    // Fields drop in this order: the event, the memory, then the context.
    kernel_event: Option<Event>,
    /// ctl words, then the test's arrays (each `MAX_ITERS` ints).
    mem: Svm,
    prog: Program,
    env: Env,
}

impl Litmus {
    /// `arrays` int arrays of `MAX_ITERS` after the control words.
    fn new(arrays: usize) -> Litmus {
        let env = Env::new();
        let prog = env.build(LITMUS_SRC, "-cl-std=CL3.0");
        let mem = Svm::new(&env.ctx, FINE_ATOMIC, 128 + arrays * MAX_ITERS * 4);
        Litmus {
            kernel_event: None,
            mem,
            prog,
            env,
        }
    }

    fn ctl(&self, i: usize) -> &AtomicI32 {
        self.mem.atomic(i)
    }

    /// Array `a` (0-based), as a pointer for the kernel.
    fn array_ptr(&self, a: usize) -> *mut i32 {
        self.mem.at(128 + a * MAX_ITERS * 4)
    }

    /// Element `i` of array `a`, atomically.
    fn cell(&self, a: usize, i: usize) -> &AtomicI32 {
        self.mem.atomic(32 + a * MAX_ITERS + i)
    }

    /// Start kernel `name` on one work-item with `args` (SVM pointers or ints).
    fn start(&mut self, name: &str, args: &[Arg]) {
        let k = self.prog.kernel(name);
        for (i, a) in args.iter().enumerate() {
            match *a {
                Arg::Ptr(p) => svm_arg(&k, i as cl_uint, p),
                Arg::Int(v) => {
                    k.arg(i as cl_uint, &v);
                }
            }
        }
        let e = enqueue_nd(&self.env.queue, &k, None, &[1], Some(&[1]))
            .expect("enqueue the litmus kernel");
        self.env.queue.flush();
        self.kernel_event = Some(e);
    }

    /// Spin until `cond` holds; false on timeout or when the kernel gave up.
    fn wait(&self, mut cond: impl FnMut() -> bool) -> bool {
        let start = Instant::now();
        let mut spins = 0u32;
        loop {
            if cond() {
                return true;
            }
            if self.ctl(2).load(Ordering::Relaxed) != 0 {
                return false;
            }
            spins += 1;
            if spins.is_multiple_of(256) {
                if start.elapsed() > STEP_TIMEOUT {
                    return false;
                }
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }

    /// Tell the kernel to stop and wait for it; fail if it gave up waiting for the host.
    fn stop(&mut self) {
        self.ctl(0).store(-1, Ordering::SeqCst);
        self.ctl(4).store(-1, Ordering::SeqCst);
        if let Some(e) = self.kernel_event.take() {
            e.wait();
            assert_eq!(e.status(), CL_COMPLETE, "the litmus kernel failed");
        }
        assert_eq!(
            self.ctl(2).load(Ordering::SeqCst),
            0,
            "a kernel spin ran out"
        );
    }
}

impl Drop for Litmus {
    fn drop(&mut self) {
        // Never free the memory under a running kernel, even while unwinding.
        self.ctl(0).store(-1, Ordering::SeqCst);
        self.ctl(4).store(-1, Ordering::SeqCst);
        if let Some(e) = self.kernel_event.take() {
            // SAFETY: a live event.
            unsafe { clWaitForEvents(1, &e.0) };
        }
    }
}

enum Arg {
    Ptr(*const c_void),
    Int(i32),
}

/// Delays (spin counts) for each iteration, skewed so both sides win the race sometimes.
fn delays(seed: u64, max: u64) -> Vec<i32> {
    let mut rng = Rng(seed);
    (0..MAX_ITERS)
        .map(|_| (rng.next_u64() % max) as i32)
        .collect()
}

fn host_delay(n: i32, sink: &AtomicI32) {
    for _ in 0..n {
        sink.load(Ordering::Relaxed);
    }
}

/// Run iterations of a handshaked litmus test: for each, the host publishes `go`, runs
/// `host(i)`, waits for the kernel's `done` and records `outcome(i)`. Returns the histogram.
fn run_litmus(
    name: &str,
    t: &mut Litmus,
    mut host: impl FnMut(&Litmus, usize),
    outcome: impl Fn(&Litmus, usize) -> String,
) -> BTreeMap<String, usize> {
    let start = Instant::now();
    let mut hist = BTreeMap::new();
    let mut iters = 0;
    for i in 0..MAX_ITERS {
        if start.elapsed() > BUDGET {
            break;
        }
        t.ctl(0).store(i as i32 + 1, Ordering::SeqCst);
        host(t, i);
        let ok = t.wait(|| t.ctl(1).load(Ordering::Acquire) > i as i32);
        if !ok {
            t.stop();
            panic!("{name}: the kernel did not finish iteration {i}");
        }
        *hist.entry(outcome(t, i)).or_insert(0) += 1;
        iters += 1;
    }
    t.stop();
    println!(
        "{name}: {iters} iterations in {:.2?}: {hist:?}",
        start.elapsed()
    );
    assert!(iters >= 50, "{name}: only {iters} iterations ran");
    hist
}

#[test]
fn atomics_message_passing_host_to_kernel() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Arrays: flag, data, res, kernel delays.
    let mut t = Litmus::new(4);
    let kd = delays(1, 2048);
    let hd = delays(2, 256);
    t.mem.ints()[32 + 3 * MAX_ITERS..32 + 4 * MAX_ITERS].copy_from_slice(&kd);
    let args = [
        Arg::Ptr(t.mem.ptr),
        Arg::Ptr(t.array_ptr(0).cast()),
        Arg::Ptr(t.array_ptr(1).cast()),
        Arg::Ptr(t.array_ptr(2).cast()),
        Arg::Ptr(t.array_ptr(3).cast()),
        Arg::Int(MAX_ITERS as i32),
    ];
    t.start("mp_host_to_kernel", &args);
    let hist = run_litmus(
        "MP host->kernel (data; flag release / flag acquire; data)",
        &mut t,
        |t, i| {
            host_delay(hd[i], t.ctl(3));
            t.cell(1, i).store(1, Ordering::Relaxed);
            t.cell(0, i).store(1, Ordering::Release);
        },
        |t, i| match t.cell(2, i).load(Ordering::Relaxed) {
            0 => "flag=0 data=0".into(),
            1 => "flag=0 data=1".into(),
            2 => "FORBIDDEN flag=1 data=0".into(),
            3 => "flag=1 data=1".into(),
            x => format!("garbage {x}"),
        },
    );
    assert!(
        hist.keys()
            .all(|k| !k.starts_with("FORBIDDEN") && !k.starts_with("garbage")),
        "{hist:?}"
    );
}

#[test]
fn atomics_message_passing_kernel_to_host() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Arrays: flag, data, kernel delays.
    let mut t = Litmus::new(3);
    let kd = delays(3, 256);
    let hd = delays(4, 4096);
    t.mem.ints()[32 + 2 * MAX_ITERS..32 + 3 * MAX_ITERS].copy_from_slice(&kd);
    let args = [
        Arg::Ptr(t.mem.ptr),
        Arg::Ptr(t.array_ptr(0).cast()),
        Arg::Ptr(t.array_ptr(1).cast()),
        Arg::Ptr(t.array_ptr(2).cast()),
        Arg::Int(MAX_ITERS as i32),
    ];
    t.start("mp_kernel_to_host", &args);
    let seen: Vec<Cell<(i32, i32)>> = (0..MAX_ITERS).map(|_| Cell::new((0, 0))).collect();
    let hist = run_litmus(
        "MP kernel->host (data; flag release / flag acquire; data)",
        &mut t,
        |t, i| {
            host_delay(hd[i], t.ctl(3));
            let f = t.cell(0, i).load(Ordering::Acquire);
            let d = t.cell(1, i).load(Ordering::Relaxed);
            seen[i].set((f, d));
        },
        |_, i| match seen[i].get() {
            (1, 0) => "FORBIDDEN flag=1 data=0".to_string(),
            (f, d) => format!("flag={f} data={d}"),
        },
    );
    assert!(hist.keys().all(|k| !k.starts_with("FORBIDDEN")), "{hist:?}");
}

#[test]
fn atomics_store_buffering_seq_cst() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Arrays: x, y, kernel's r1, kernel delays.
    let mut t = Litmus::new(4);
    let kd = delays(5, 48);
    let hd = delays(6, 128);
    t.mem.ints()[32 + 3 * MAX_ITERS..32 + 4 * MAX_ITERS].copy_from_slice(&kd);
    let args = [
        Arg::Ptr(t.mem.ptr),
        Arg::Ptr(t.array_ptr(0).cast()),
        Arg::Ptr(t.array_ptr(1).cast()),
        Arg::Ptr(t.array_ptr(2).cast()),
        Arg::Ptr(t.array_ptr(3).cast()),
        Arg::Int(MAX_ITERS as i32),
    ];
    t.start("store_buffering", &args);
    let r0: Vec<Cell<i32>> = (0..MAX_ITERS).map(|_| Cell::new(0)).collect();
    let hist = run_litmus(
        "SB seq_cst (host: x=1; r0=y / kernel: y=1; r1=x)",
        &mut t,
        |t, i| {
            host_delay(hd[i], t.ctl(3));
            t.cell(0, i).store(1, Ordering::SeqCst);
            r0[i].set(t.cell(1, i).load(Ordering::SeqCst));
        },
        |t, i| {
            format!(
                "r0={} r1={}",
                r0[i].get(),
                t.cell(2, i).load(Ordering::Relaxed)
            )
        },
    );
    assert!(
        !hist.contains_key("r0=0 r1=0"),
        "FORBIDDEN r0=0 r1=0 seen: {hist:?}"
    );
}

/// A counter incremented at once by a kernel (two work-groups of 256 work-items, `m` times
/// each, on the executor's workers) and the host thread: no increment may be lost. Prints how
/// many host increments saw kernel increments since the host's previous one (interleaving).
fn counter(kernel: &str) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let env = Env::new();
    let prog = env.build(LITMUS_SRC, "-cl-std=CL3.0");
    let mem = Svm::new(&env.ctx, FINE_ATOMIC, 256);
    let (items, m) = (512usize, 4096i32);
    let k = prog.kernel(kernel);
    svm_arg(&k, 0, mem.ptr);
    svm_arg(&k, 1, mem.at::<i32>(64));
    k.arg(2, &m);
    let counter = mem.atomic(16);
    let e = enqueue_nd(&env.queue, &k, None, &[items], Some(&[256])).expect("enqueue");
    env.queue.flush();
    let start = Instant::now();
    // One increment before the kernel may start and one after it ended: every kernel
    // increment falls between two of the host's.
    let mut last = counter.fetch_add(1, Ordering::Relaxed);
    let mut host = 1usize;
    let mut interleaved = 0usize;
    mem.atomic(0).store(1, Ordering::SeqCst);
    loop {
        for _ in 0..256 {
            let v = counter.fetch_add(1, Ordering::Relaxed);
            if v != last + 1 {
                interleaved += 1;
            }
            last = v;
            host += 1;
        }
        if e.status() == CL_COMPLETE || start.elapsed() > STEP_TIMEOUT {
            break;
        }
    }
    e.wait();
    let v = counter.fetch_add(1, Ordering::Relaxed);
    if v != last + 1 {
        interleaved += 1;
    }
    host += 1;
    let total = counter.load(Ordering::SeqCst) as usize;
    println!(
        "counter ({kernel}): kernel {} increments ({items} work-items x {m}), host {host}, \
         total {total}, host increments that saw kernel ones in between: {interleaved}, {:.2?}",
        items * m as usize,
        start.elapsed()
    );
    assert_eq!(e.status(), CL_COMPLETE);
    assert_eq!(total, items * m as usize + host, "lost increments");
    assert!(interleaved >= 1);
}

#[test]
fn atomics_counter_kernel_and_host_thread_c11() {
    counter("counter_c11");
}

#[test]
fn atomics_counter_kernel_and_host_thread_cl12() {
    counter("counter_cl12");
}

#[test]
fn atomics_ping_pong_handshake() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Arrays: payload, reply; ctl[4] is the turn.
    let mut t = Litmus::new(2);
    let rounds = MAX_ITERS;
    let args = [
        Arg::Ptr(t.mem.ptr),
        Arg::Ptr(t.mem.at::<c_void>(16)),
        Arg::Ptr(t.array_ptr(0).cast()),
        Arg::Ptr(t.array_ptr(1).cast()),
        Arg::Int(rounds as i32),
    ];
    t.start("ping_pong", &args);
    let turn = t.ctl(4);
    let start = Instant::now();
    let mut done = 0;
    for k in 0..rounds {
        if start.elapsed() > BUDGET {
            break;
        }
        t.cell(0, k).store(k as i32 * 7 - 5, Ordering::Relaxed);
        turn.store(2 * k as i32 + 1, Ordering::Release);
        if !t.wait(|| turn.load(Ordering::Acquire) == 2 * k as i32 + 2) {
            // Dropping `t` stops the kernel and waits for it.
            panic!(
                "ping-pong: no answer to round {k} (turn {})",
                turn.load(Ordering::SeqCst)
            );
        }
        assert_eq!(
            t.cell(1, k).load(Ordering::Relaxed),
            (k as i32 * 7 - 5) * 3 + k as i32,
            "reply {k}"
        );
        done += 1;
    }
    t.stop();
    let el = start.elapsed();
    println!(
        "ping-pong: {done} round trips in {el:.2?} ({:.2} us each), every reply correct",
        el.as_secs_f64() * 1e6 / done.max(1) as f64
    );
    assert!(done >= 50, "only {done} round trips");
}
