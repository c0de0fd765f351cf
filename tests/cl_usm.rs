//! `cl_intel_unified_shared_memory` through the ICD loader, the functions found with
//! `clGetExtensionFunctionAddressForPlatform` as SYCL's OpenCL backend finds them:
//! - the claim (device and platform extension strings, version, capabilities);
//! - host, device and shared allocations used by kernels (directly and through pointers
//!   stored in memory), copied, filled and set, with `clGetMemAllocInfoINTEL` on each;
//! - the blocking free: it waits for commands still to run, and called from an event
//!   callback (as the Unified Runtime does) it neither deadlocks nor leaks;
//! - every error the extension's entry points give for bad input.

use ferrite_tests::*;
use std::ffi::c_void;
use std::ptr;
use std::time::{Duration, Instant};

type HostAlloc = unsafe extern "C" fn(
    cl_context,
    *const cl_mem_properties_intel,
    usize,
    cl_uint,
    *mut cl_int,
) -> *mut c_void;
type DevAlloc = unsafe extern "C" fn(
    cl_context,
    cl_device_id,
    *const cl_mem_properties_intel,
    usize,
    cl_uint,
    *mut cl_int,
) -> *mut c_void;
type Free = unsafe extern "C" fn(cl_context, *mut c_void) -> cl_int;
type AllocInfo = unsafe extern "C" fn(
    cl_context,
    *const c_void,
    cl_mem_info_intel,
    usize,
    *mut c_void,
    *mut usize,
) -> cl_int;
type SetArgPtr = unsafe extern "C" fn(cl_kernel, cl_uint, *const c_void) -> cl_int;
type Fill = unsafe extern "C" fn(
    cl_command_queue,
    *mut c_void,
    *const c_void,
    usize,
    usize,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type Memset = unsafe extern "C" fn(
    cl_command_queue,
    *mut c_void,
    cl_int,
    usize,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type Memcpy = unsafe extern "C" fn(
    cl_command_queue,
    cl_bool,
    *mut c_void,
    *const c_void,
    usize,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type Hint = unsafe extern "C" fn(
    cl_command_queue,
    *const c_void,
    usize,
    u64,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type Advise = unsafe extern "C" fn(
    cl_command_queue,
    *const c_void,
    usize,
    cl_mem_advice_intel,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;

/// The extension's functions.
struct Usm {
    host: HostAlloc,
    device: DevAlloc,
    shared: DevAlloc,
    free: Free,
    blocking_free: Free,
    info: AllocInfo,
    set_arg: SetArgPtr,
    fill: Fill,
    memset: Memset,
    memcpy: Memcpy,
    migrate: Hint,
    advise: Advise,
}

/// The functions, or `None` (a skip, where allowed) if the device does not claim USM.
fn usm() -> Option<Usm> {
    let exts = device_string(CL_DEVICE_EXTENSIONS);
    if !require(
        exts.contains("cl_intel_unified_shared_memory"),
        "cl_intel_unified_shared_memory",
    ) {
        return None;
    }
    // SAFETY: every transmute turns the function pointer the driver returned for a name
    // into that function's signature, as the extension defines it.
    unsafe {
        Some(Usm {
            host: std::mem::transmute::<*mut c_void, HostAlloc>(extension_function(
                "clHostMemAllocINTEL",
            )),
            device: std::mem::transmute::<*mut c_void, DevAlloc>(extension_function(
                "clDeviceMemAllocINTEL",
            )),
            shared: std::mem::transmute::<*mut c_void, DevAlloc>(extension_function(
                "clSharedMemAllocINTEL",
            )),
            free: std::mem::transmute::<*mut c_void, Free>(extension_function("clMemFreeINTEL")),
            blocking_free: std::mem::transmute::<*mut c_void, Free>(extension_function(
                "clMemBlockingFreeINTEL",
            )),
            info: std::mem::transmute::<*mut c_void, AllocInfo>(extension_function(
                "clGetMemAllocInfoINTEL",
            )),
            set_arg: std::mem::transmute::<*mut c_void, SetArgPtr>(extension_function(
                "clSetKernelArgMemPointerINTEL",
            )),
            fill: std::mem::transmute::<*mut c_void, Fill>(extension_function(
                "clEnqueueMemFillINTEL",
            )),
            memset: std::mem::transmute::<*mut c_void, Memset>(extension_function(
                "clEnqueueMemsetINTEL",
            )),
            memcpy: std::mem::transmute::<*mut c_void, Memcpy>(extension_function(
                "clEnqueueMemcpyINTEL",
            )),
            migrate: std::mem::transmute::<*mut c_void, Hint>(extension_function(
                "clEnqueueMigrateMemINTEL",
            )),
            advise: std::mem::transmute::<*mut c_void, Advise>(extension_function(
                "clEnqueueMemAdviseINTEL",
            )),
        })
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Host,
    Device,
    Shared,
}

impl Usm {
    /// An allocation that must succeed.
    #[track_caller]
    fn alloc(&self, ctx: &Context, kind: Kind, props: &[u64], size: usize) -> *mut c_void {
        let (p, rc) = self.try_alloc(ctx.0, kind, dev().device, props, size, 0);
        check(rc, &format!("{kind:?} allocation of {size} bytes"));
        assert!(!p.is_null());
        p
    }

    fn try_alloc(
        &self,
        ctx: cl_context,
        kind: Kind,
        device: cl_device_id,
        props: &[u64],
        size: usize,
        align: cl_uint,
    ) -> (*mut c_void, cl_int) {
        let props = list_ptr(props);
        let mut rc = 1;
        // SAFETY: live or deliberately invalid handles, a zero-terminated list or NULL.
        let p = unsafe {
            match kind {
                Kind::Host => (self.host)(ctx, props, size, align, &mut rc),
                Kind::Device => (self.device)(ctx, device, props, size, align, &mut rc),
                Kind::Shared => (self.shared)(ctx, device, props, size, align, &mut rc),
            }
        };
        assert_eq!(
            p.is_null(),
            rc != CL_SUCCESS,
            "pointer and error code agree"
        );
        (p, rc)
    }

    /// One `clGetMemAllocInfoINTEL` answer of type `T`, its size checked.
    #[track_caller]
    fn info<T: Copy>(&self, ctx: &Context, p: *const c_void, param: cl_mem_info_intel) -> T {
        // SAFETY: a live context; `query` passes valid buffers.
        let bytes =
            query(|size, value, ret| unsafe { (self.info)(ctx.0, p, param, size, value, ret) })
                .unwrap_or_else(|rc| {
                    panic!("clGetMemAllocInfoINTEL({param:#x}): {}", error_name(rc))
                });
        pod(&bytes)
    }

    #[track_caller]
    fn memcpy(&self, q: &Queue, dst: *mut c_void, src: *const c_void, size: usize) {
        // SAFETY: a live queue; both ranges are valid for `size` bytes.
        let rc = unsafe {
            (self.memcpy)(
                q.0,
                CL_TRUE,
                dst,
                src,
                size,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        check(rc, "clEnqueueMemcpyINTEL");
    }

    #[track_caller]
    fn free(&self, ctx: &Context, p: *mut c_void) {
        // SAFETY: a live context and one of its allocations.
        check(unsafe { (self.free)(ctx.0, p) }, "clMemFreeINTEL");
    }
}

fn command_type(e: &Event) -> cl_command_type {
    // SAFETY: a live event; `query` passes valid buffers.
    pod(&query(|size, value, ret| unsafe {
        clGetEventInfo(e.0, CL_EVENT_COMMAND_TYPE, size, value, ret)
    })
    .expect("CL_EVENT_COMMAND_TYPE"))
}

fn event_status(e: cl_event) -> cl_int {
    // SAFETY: a live event; `query` passes valid buffers.
    pod(&query(|size, value, ret| unsafe {
        clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, size, value, ret)
    })
    .expect("CL_EVENT_COMMAND_EXECUTION_STATUS"))
}

#[test]
fn device_and_platform_claim_usm() {
    if usm().is_none() {
        return;
    }
    let platform_exts = platform_string(dev().platform, CL_PLATFORM_EXTENSIONS);
    assert!(
        platform_exts.contains("cl_intel_unified_shared_memory"),
        "SYCL looks for the extension in the platform's list"
    );
    // SAFETY: a live device; `query` passes valid buffers.
    let versions = query(|size, value, ret| unsafe {
        clGetDeviceInfo(
            dev().device,
            CL_DEVICE_EXTENSIONS_WITH_VERSION,
            size,
            value,
            ret,
        )
    })
    .expect("CL_DEVICE_EXTENSIONS_WITH_VERSION");
    let list: Vec<cl_name_version> = pod_vec(&versions);
    let usm = list
        .iter()
        .find(|nv| {
            let name: Vec<u8> = nv.name.iter().take_while(|c| **c != 0).copied().collect();
            name == b"cl_intel_unified_shared_memory"
        })
        .expect("listed with its version");
    assert_eq!(usm.version, (1 << 22) | (1 << 12), "version 1.1.0");
    for param in [
        CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL,
        CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL,
        CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL,
        CL_DEVICE_CROSS_DEVICE_SHARED_MEM_CAPABILITIES_INTEL,
        CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL,
    ] {
        let caps: u64 = device_get(param);
        assert_ne!(
            caps & CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL,
            0,
            "{param:#x} allows access"
        );
    }
}

const SCALE: &str = "
kernel void scale(global const uint *in, global uint *out, uint k) {
    size_t i = get_global_id(0);
    out[i] = in[i] * k;
}
typedef struct { global uint *data; uint n; } table;
kernel void indirect(global const table *t, global uint *sum) {
    uint s = 0;
    for (uint i = 0; i < t->n; i++) s += t->data[i];
    *sum = s;
}";

#[test]
fn allocations_kernels_copies_fills_and_info() {
    let Some(u) = usm() else { return };
    let ctx = Context::new();
    let q = Queue::new(&ctx, 0);
    let n = 1024usize;
    let bytes = n * 4;
    let host = u.alloc(&ctx, Kind::Host, &[], bytes);
    let device = u.alloc(&ctx, Kind::Device, &[], bytes);
    let wc = [
        CL_MEM_ALLOC_FLAGS_INTEL,
        CL_MEM_ALLOC_WRITE_COMBINED_INTEL,
        0,
    ];
    let shared = u.alloc(&ctx, Kind::Shared, &wc, bytes);

    // The host writes host and shared memory directly.
    // SAFETY: each allocation is `bytes` long, suitably aligned, and no command uses it.
    let (h, s) = unsafe {
        (
            std::slice::from_raw_parts_mut(host.cast::<u32>(), n),
            std::slice::from_raw_parts_mut(shared.cast::<u32>(), n),
        )
    };
    for (i, x) in h.iter_mut().enumerate() {
        *x = i as u32;
    }
    u.memcpy(&q, device, host, bytes);
    let p = build(&ctx, SCALE, "");
    let k = p.kernel("scale");
    // SAFETY: a live kernel; pointer arguments of `global` parameters.
    unsafe {
        check(
            (u.set_arg)(k.0, 0, device),
            "clSetKernelArgMemPointerINTEL(0)",
        );
        check(
            (u.set_arg)(k.0, 1, shared),
            "clSetKernelArgMemPointerINTEL(1)",
        );
    }
    k.arg(2, &3u32);
    run_1d(&q, &k, n, None);
    assert!(
        s.iter().enumerate().all(|(i, x)| *x == 3 * i as u32),
        "kernel results in shared memory"
    );

    // A kernel following a pointer to device memory stored in shared memory.
    #[repr(C)]
    struct Table {
        data: *mut c_void,
        n: u32,
    }
    let t = u.alloc(&ctx, Kind::Shared, &[], std::mem::size_of::<Table>());
    let sum = u.alloc(&ctx, Kind::Host, &[], 4);
    // SAFETY: `t` holds a `Table`; nothing else uses it.
    unsafe {
        t.cast::<Table>().write(Table {
            data: device,
            n: 100,
        })
    };
    let ki = p.kernel("indirect");
    let yes: cl_bool = CL_TRUE;
    for param in [
        CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL,
        CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL,
        CL_KERNEL_EXEC_INFO_INDIRECT_SHARED_ACCESS_INTEL,
    ] {
        // SAFETY: a live kernel and a cl_bool.
        let rc = unsafe {
            clSetKernelExecInfo(
                ki.0,
                param,
                std::mem::size_of::<cl_bool>(),
                (&yes as *const cl_bool).cast(),
            )
        };
        check(rc, "indirect access");
    }
    let ptrs = [device];
    // SAFETY: a live kernel and an array of one pointer.
    let rc = unsafe {
        clSetKernelExecInfo(
            ki.0,
            CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL,
            8,
            ptrs.as_ptr().cast(),
        )
    };
    check(rc, "CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL");
    // SAFETY: as above.
    unsafe {
        check((u.set_arg)(ki.0, 0, t), "table");
        check((u.set_arg)(ki.0, 1, sum), "sum");
    }
    run_1d(&q, &ki, 1, None);
    // SAFETY: `sum` is a host allocation of 4 bytes; the kernel has finished.
    assert_eq!(unsafe { sum.cast::<u32>().read() }, (0..100).sum::<u32>());

    // Fill, set and copy back, each command with its own type.
    let pattern = 0xA5A5_0001u32;
    let mut e = ptr::null_mut();
    // SAFETY: a live queue; the pattern is 4 readable bytes; `device` holds `bytes`.
    let rc = unsafe {
        (u.fill)(
            q.0,
            device,
            (&pattern as *const u32).cast(),
            4,
            bytes,
            0,
            ptr::null(),
            &mut e,
        )
    };
    check(rc, "clEnqueueMemFillINTEL");
    let fill = Event(e);
    assert_eq!(command_type(&fill), CL_COMMAND_MEMFILL_INTEL);
    // SAFETY: as above, the first 16 bytes.
    let rc = unsafe { (u.memset)(q.0, device, 0x7F, 16, 1, &fill.0, ptr::null_mut()) };
    check(rc, "clEnqueueMemsetINTEL");
    let mut back = vec![0u32; n];
    let mut e = ptr::null_mut();
    // SAFETY: `back` holds `bytes`.
    let rc = unsafe {
        (u.memcpy)(
            q.0,
            CL_TRUE,
            back.as_mut_ptr().cast(),
            device,
            bytes,
            0,
            ptr::null(),
            &mut e,
        )
    };
    check(rc, "clEnqueueMemcpyINTEL");
    assert_eq!(command_type(&Event(e)), CL_COMMAND_MEMCPY_INTEL);
    assert!(
        back[..4].iter().all(|x| *x == 0x7F7F_7F7F),
        "{:x?}",
        &back[..4]
    );
    assert!(back[4..].iter().all(|x| *x == pattern));

    // Migration only orders; it reports its own command type.
    let mut e = ptr::null_mut();
    // SAFETY: a live queue and allocation.
    check(
        unsafe {
            (u.migrate)(
                q.0,
                shared,
                bytes,
                CL_MIGRATE_MEM_OBJECT_HOST,
                0,
                ptr::null(),
                &mut e,
            )
        },
        "clEnqueueMigrateMemINTEL",
    );
    assert_eq!(command_type(&Event(e)), CL_COMMAND_MIGRATEMEM_INTEL);
    q.finish();

    // What each allocation is, asked through a pointer inside it.
    for (p, kind, dev_expected, flags) in [
        (host, CL_MEM_TYPE_HOST_INTEL, ptr::null_mut(), 0u64),
        (device, CL_MEM_TYPE_DEVICE_INTEL, dev().device, 0),
        (
            shared,
            CL_MEM_TYPE_SHARED_INTEL,
            dev().device,
            CL_MEM_ALLOC_WRITE_COMBINED_INTEL,
        ),
    ] {
        // SAFETY: 100 bytes into an allocation of `bytes`.
        let inside = unsafe { p.cast::<u8>().add(100) }.cast::<c_void>();
        let t: cl_unified_shared_memory_type_intel = u.info(&ctx, inside, CL_MEM_ALLOC_TYPE_INTEL);
        // Intel's CPU runtime reports its shared allocations as device ones.
        spec_check(t == kind, &format!("type {t:#x} of a {kind:#x} allocation"));
        let base: *mut c_void = u.info(&ctx, inside, CL_MEM_ALLOC_BASE_PTR_INTEL);
        assert_eq!(base, p);
        let size: usize = u.info(&ctx, inside, CL_MEM_ALLOC_SIZE_INTEL);
        assert_eq!(size, bytes);
        let d: cl_device_id = u.info(&ctx, inside, CL_MEM_ALLOC_DEVICE_INTEL);
        assert_eq!(d, dev_expected);
        let f: u64 = u.info(&ctx, inside, CL_MEM_ALLOC_FLAGS_INTEL as cl_mem_info_intel);
        assert_eq!(f, flags);
    }
    // Plain host memory and NULL: unknown, no device, no error (SYCL asks about both).
    let local = [0u8; 16];
    for p in [local.as_ptr().cast::<c_void>(), ptr::null()] {
        let t: cl_unified_shared_memory_type_intel = u.info(&ctx, p, CL_MEM_ALLOC_TYPE_INTEL);
        assert_eq!(t, CL_MEM_TYPE_UNKNOWN_INTEL);
        let d: cl_device_id = u.info(&ctx, p, CL_MEM_ALLOC_DEVICE_INTEL);
        assert!(d.is_null());
    }
    // A shared allocation without a device has none.
    let (nodev, rc) = u.try_alloc(ctx.0, Kind::Shared, ptr::null_mut(), &[], 64, 0);
    check(rc, "shared allocation without a device");
    let d: cl_device_id = u.info(&ctx, nodev, CL_MEM_ALLOC_DEVICE_INTEL);
    assert!(d.is_null());

    for p in [host, device, shared, t, sum, nodev] {
        u.free(&ctx, p);
    }
    let t: cl_unified_shared_memory_type_intel = u.info(&ctx, host, CL_MEM_ALLOC_TYPE_INTEL);
    assert_eq!(t, CL_MEM_TYPE_UNKNOWN_INTEL, "freed");
}

/// `clMemBlockingFreeINTEL` waits for the commands enqueued before it: a copy out of the
/// allocation, held back by a user event that another thread completes later, has run
/// when the free returns.
#[test]
fn blocking_free_waits_for_enqueued_commands() {
    let Some(u) = usm() else { return };
    let ctx = Context::new();
    let q = Queue::new(&ctx, 0);
    let src = u.alloc(&ctx, Kind::Device, &[], 4096);
    let pattern = 0x1234_5678u32;
    // SAFETY: a live queue, 4 pattern bytes, an allocation of 4096 bytes.
    let rc = unsafe {
        (u.fill)(
            q.0,
            src,
            (&pattern as *const u32).cast(),
            4,
            4096,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(rc, "fill");
    let mut rc = 0;
    // SAFETY: a live context.
    let gate = Event(unsafe { clCreateUserEvent(ctx.0, &mut rc) });
    check(rc, "clCreateUserEvent");
    let mut out = vec![0u32; 1024];
    let mut e = ptr::null_mut();
    // SAFETY: `out` outlives the command (the free below waits for it).
    let rc = unsafe {
        (u.memcpy)(
            q.0,
            CL_FALSE,
            out.as_mut_ptr().cast(),
            src,
            4096,
            1,
            &gate.0,
            &mut e,
        )
    };
    check(rc, "gated copy");
    let copy = Event(e);
    let opener = {
        let gate = gate.0 as usize;
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(150));
            // SAFETY: the user event is alive until the test joins this thread.
            unsafe { clSetUserEventStatus(gate as cl_event, CL_COMPLETE) }
        })
    };
    let start = Instant::now();
    // SAFETY: a live context and allocation.
    check(
        unsafe { (u.blocking_free)(ctx.0, src) },
        "clMemBlockingFreeINTEL",
    );
    assert!(
        start.elapsed() >= Duration::from_millis(100),
        "the free waited for the gate"
    );
    assert_eq!(
        event_status(copy.0),
        CL_COMPLETE,
        "the copy ran before the free returned"
    );
    assert!(out.iter().all(|x| *x == pattern));
    check(
        opener.join().expect("opener thread"),
        "clSetUserEventStatus",
    );
    let t: cl_unified_shared_memory_type_intel = u.info(&ctx, src, CL_MEM_ALLOC_TYPE_INTEL);
    assert_eq!(t, CL_MEM_TYPE_UNKNOWN_INTEL, "freed");
}

struct CallbackFree {
    ctx: cl_context,
    ptr: *mut c_void,
    free: Free,
    rc: std::sync::Mutex<Option<cl_int>>,
}

extern "C" fn free_in_callback(_e: cl_event, _status: cl_int, data: *mut c_void) {
    // SAFETY: `data` is the test's `CallbackFree`, alive until the test has seen `rc` set.
    let cf = unsafe { &*(data as *const CallbackFree) };
    // SAFETY: a live context and one of its allocations.
    let rc = unsafe { (cf.free)(cf.ctx, cf.ptr) };
    *cf.rc.lock().unwrap() = Some(rc);
}

/// The Unified Runtime frees a staging allocation with `clMemBlockingFreeINTEL` from the
/// completion callback of the copy that used it, while more commands follow on the same
/// queue: the call must return (no deadlock on the thread that runs commands) and the
/// memory must be freed once the commands enqueued before it are done.
#[test]
fn blocking_free_from_an_event_callback() {
    let Some(u) = usm() else { return };
    let ctx = Context::new();
    let q = Queue::new(&ctx, 0);
    let staging = u.alloc(&ctx, Kind::Host, &[], 1 << 16);
    let dst = u.alloc(&ctx, Kind::Device, &[], 1 << 16);
    let mut rc = 0;
    // SAFETY: a live context.
    let gate = Event(unsafe { clCreateUserEvent(ctx.0, &mut rc) });
    check(rc, "clCreateUserEvent");
    let mut e = ptr::null_mut();
    // SAFETY: both allocations hold 64 KiB.
    check(
        unsafe { (u.memcpy)(q.0, CL_FALSE, dst, staging, 1 << 16, 1, &gate.0, &mut e) },
        "staging copy",
    );
    let copy = Event(e);
    let cf = Box::new(CallbackFree {
        ctx: ctx.0,
        ptr: staging,
        free: u.blocking_free,
        rc: std::sync::Mutex::new(None),
    });
    // SAFETY: a live event; the callback data outlives the callback (checked below).
    let rc = unsafe {
        clSetEventCallback(
            copy.0,
            CL_COMPLETE,
            Some(free_in_callback),
            (&*cf as *const CallbackFree).cast_mut().cast(),
        )
    };
    check(rc, "clSetEventCallback");
    // More work after the copy on the same in-order queue, then open the gate.
    let pattern = 7u8;
    for _ in 0..4 {
        // SAFETY: a live queue and allocation.
        let rc = unsafe {
            (u.fill)(
                q.0,
                dst,
                (&pattern as *const u8).cast(),
                1,
                1 << 16,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        check(rc, "fill after the copy");
    }
    // SAFETY: a live user event.
    check(
        unsafe { clSetUserEventStatus(gate.0, CL_COMPLETE) },
        "open the gate",
    );
    q.finish();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(rc) = *cf.rc.lock().unwrap() {
            check(rc, "clMemBlockingFreeINTEL in a callback");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the callback's free never returned"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    loop {
        let t: cl_unified_shared_memory_type_intel = u.info(&ctx, staging, CL_MEM_ALLOC_TYPE_INTEL);
        if t == CL_MEM_TYPE_UNKNOWN_INTEL {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the staging memory was never freed"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    u.free(&ctx, dst);
}

#[test]
fn usm_error_paths() {
    let Some(u) = usm() else { return };
    let ctx = Context::new();
    let q = Queue::new(&ctx, 0);
    let d = dev().device;
    #[track_caller]
    fn alloc_err(res: (*mut c_void, cl_int), expected: cl_int, what: &str) {
        assert!(res.0.is_null(), "{what}: allocated");
        expect_code(res.1, expected, what);
    }
    for kind in [Kind::Host, Kind::Device, Kind::Shared] {
        let what = |w: &str| format!("{kind:?}: {w}");
        alloc_err(
            u.try_alloc(ptr::null_mut(), kind, d, &[], 64, 0),
            CL_INVALID_CONTEXT,
            &what("NULL context"),
        );
        // Above the largest type's size (128): the specification's error; Intel's runtime
        // accepts it.
        let (p, rc) = u.try_alloc(ctx.0, kind, d, &[], 64, 256);
        spec_code(rc, CL_INVALID_VALUE, &what("alignment 256"));
        if !p.is_null() {
            u.free(&ctx, p);
        }
        for align in [3, 48] {
            alloc_err(
                u.try_alloc(ctx.0, kind, d, &[], 64, align),
                CL_INVALID_VALUE,
                &what(&format!("alignment {align}")),
            );
        }
        alloc_err(
            u.try_alloc(ctx.0, kind, d, &[], 0, 0),
            CL_INVALID_BUFFER_SIZE,
            &what("size 0"),
        );
        alloc_err(
            u.try_alloc(ctx.0, kind, d, &[], usize::MAX / 2, 0),
            CL_INVALID_BUFFER_SIZE,
            &what("size above CL_DEVICE_MAX_MEM_ALLOC_SIZE"),
        );
        let f = CL_MEM_ALLOC_FLAGS_INTEL;
        for (props, w) in [
            (vec![0x4242, 0, 0], "unknown property"),
            (vec![f, 1 << 10, 0], "unknown flag"),
            (vec![f, 0, f, 0, 0], "property given twice"),
            (
                vec![
                    f,
                    CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL
                        | CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL,
                    0,
                ],
                "both placements",
            ),
        ] {
            alloc_err(
                u.try_alloc(ctx.0, kind, d, &props, 64, 0),
                CL_INVALID_PROPERTY,
                &what(w),
            );
        }
        let one_placement = [f, CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL, 0];
        let (p, rc) = u.try_alloc(ctx.0, kind, d, &one_placement, 64, 0);
        if kind == Kind::Shared {
            // Valid for shared allocations; Intel's CPU runtime rejects it.
            spec_code(rc, CL_SUCCESS, "a placement hint on a shared allocation");
            if !p.is_null() {
                u.free(&ctx, p);
            }
        } else {
            expect_code(
                rc,
                CL_INVALID_PROPERTY,
                &what("placement outside shared memory"),
            );
        }
        // The largest type's size is a valid alignment, and it is honoured.
        let (p, rc) = u.try_alloc(ctx.0, kind, d, &[], 64, 128);
        check(rc, &what("alignment 128"));
        assert_eq!(p as usize % 128, 0);
        u.free(&ctx, p);
    }
    alloc_err(
        u.try_alloc(ctx.0, Kind::Device, ptr::null_mut(), &[], 64, 0),
        CL_INVALID_DEVICE,
        "device allocation without a device",
    );
    alloc_err(
        u.try_alloc(ctx.0, Kind::Shared, 1usize as cl_device_id, &[], 64, 0),
        CL_INVALID_DEVICE,
        "shared allocation on a bad device",
    );

    // Frees: NULL is nothing; interior, foreign, SVM and freed pointers are errors.
    let p = u.alloc(&ctx, Kind::Shared, &[], 256);
    // SAFETY: every call below passes live or deliberately invalid handles, which the
    // driver validates before using them, and buffers of the sizes given.
    unsafe {
        check((u.free)(ctx.0, ptr::null_mut()), "free(NULL)");
        check(
            (u.blocking_free)(ctx.0, ptr::null_mut()),
            "blocking free(NULL)",
        );
        expect_code(
            (u.free)(ptr::null_mut(), p),
            CL_INVALID_CONTEXT,
            "free without a context",
        );
        let inside = p.cast::<u8>().add(8).cast();
        expect_code(
            (u.free)(ctx.0, inside),
            CL_INVALID_VALUE,
            "interior pointer",
        );
        let other = Context::new();
        expect_code(
            (u.blocking_free)(other.0, p),
            CL_INVALID_VALUE,
            "another context's",
        );
        let svm = clSVMAlloc(ctx.0, CL_MEM_READ_WRITE, 64, 0);
        assert!(!svm.is_null());
        expect_code((u.free)(ctx.0, svm), CL_INVALID_VALUE, "an SVM allocation");
        clSVMFree(ctx.0, svm);
        clSVMFree(ctx.0, p); // not SVM: left alone
        let t: cl_unified_shared_memory_type_intel = u.info(&ctx, p, CL_MEM_ALLOC_TYPE_INTEL);
        assert_eq!(t, CL_MEM_TYPE_SHARED_INTEL, "clSVMFree does not free USM");

        // Info: bad parameter, short buffer, bad context.
        let mut v = 0u64;
        expect_code(
            (u.info)(
                ctx.0,
                p,
                0x1234,
                8,
                (&mut v as *mut u64).cast(),
                ptr::null_mut(),
            ),
            CL_INVALID_VALUE,
            "unknown query",
        );
        expect_code(
            (u.info)(
                ctx.0,
                p,
                CL_MEM_ALLOC_SIZE_INTEL,
                4,
                (&mut v as *mut u64).cast(),
                ptr::null_mut(),
            ),
            CL_INVALID_VALUE,
            "buffer too small",
        );
        expect_code(
            (u.info)(
                ptr::null_mut(),
                p,
                CL_MEM_ALLOC_SIZE_INTEL,
                8,
                (&mut v as *mut u64).cast(),
                ptr::null_mut(),
            ),
            CL_INVALID_CONTEXT,
            "no context",
        );

        // Commands.
        let pat = [0u8; 8];
        let fill = |dst: *mut c_void, psize: usize, size: usize| {
            (u.fill)(
                q.0,
                dst,
                pat.as_ptr().cast(),
                psize,
                size,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        spec_code(fill(ptr::null_mut(), 4, 16), CL_INVALID_VALUE, "fill NULL");
        spec_code(fill(p, 3, 6), CL_INVALID_VALUE, "pattern size 3");
        spec_code(fill(p, 256, 256), CL_INVALID_VALUE, "pattern size 256");
        spec_code(
            fill(p.cast::<u8>().add(2).cast(), 4, 8),
            CL_INVALID_VALUE,
            "unaligned",
        );
        spec_code(fill(p, 4, 6), CL_INVALID_VALUE, "size not a multiple");
        spec_code(
            (u.fill)(q.0, p, ptr::null(), 4, 8, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_VALUE,
            "NULL pattern",
        );
        spec_code(
            (u.fill)(
                ptr::null_mut(),
                p,
                pat.as_ptr().cast(),
                4,
                8,
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_COMMAND_QUEUE,
            "no queue",
        );
        let copy = |dst: *mut c_void, src: *const c_void, size: usize| {
            (u.memcpy)(
                q.0,
                CL_TRUE,
                dst,
                src,
                size,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        spec_code(
            copy(ptr::null_mut(), p, 8),
            CL_INVALID_VALUE,
            "copy to NULL",
        );
        spec_code(copy(p, ptr::null(), 8), CL_INVALID_VALUE, "copy from NULL");
        spec_code(
            copy(p.cast::<u8>().add(4).cast(), p, 8),
            CL_MEM_COPY_OVERLAP,
            "overlap",
        );
        spec_code(
            (u.memcpy)(
                q.0,
                CL_TRUE,
                p,
                p.cast::<u8>().add(64).cast(),
                8,
                1,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_EVENT_WAIT_LIST,
            "wait list NULL with a count",
        );
        // The extension defines no advice, so none is supported.
        spec_code(
            (u.advise)(q.0, p, 64, 0, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_VALUE,
            "memory advice",
        );
        spec_code(
            (u.migrate)(q.0, p, 64, 1 << 7, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_VALUE,
            "unknown migration flag",
        );

        // Pointer arguments only for pointer parameters.
        let prog = build(&ctx, SCALE, "");
        let k = prog.kernel("scale");
        expect_code(
            (u.set_arg)(k.0, 2, p),
            CL_INVALID_ARG_VALUE,
            "pointer for a uint",
        );
        expect_code(
            (u.set_arg)(k.0, 3, p),
            CL_INVALID_ARG_INDEX,
            "no argument 3",
        );
        expect_code(
            (u.set_arg)(ptr::null_mut(), 0, p),
            CL_INVALID_KERNEL,
            "no kernel",
        );
        let yes: cl_bool = CL_TRUE;
        expect_code(
            clSetKernelExecInfo(
                k.0,
                CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL,
                1,
                (&yes as *const cl_bool).cast(),
            ),
            CL_INVALID_VALUE,
            "indirect access flag of the wrong size",
        );
        expect_code(
            clSetKernelExecInfo(
                k.0,
                CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL,
                5,
                (&p as *const *mut c_void).cast(),
            ),
            CL_INVALID_VALUE,
            "pointer list of 5 bytes",
        );
        check((u.free)(ctx.0, p), "free");
        expect_code((u.free)(ctx.0, p), CL_INVALID_VALUE, "freed twice");
    }
}
