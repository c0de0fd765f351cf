//! `cl_khr_command_buffer` and `cl_khr_command_buffer_mutable_dispatch` through the ICD
//! loader, the functions found with `clGetExtensionFunctionAddressForPlatform`:
//! - the claim (extension versions, capabilities, queue properties);
//! - a buffer of launches, copies and fills with sync points, replayed with the kernel
//!   arguments of record time, on its queue and on a substitute queue;
//! - every state error: recording into a finalised buffer, enqueueing a recording one,
//!   finalising twice; invalid sync points, queues of another context or device, handles
//!   released;
//! - mutable launches: new arguments and geometry for later enqueues only (an enqueue
//!   already made keeps the old launch), updates that are out of range or not allowed
//!   refused with nothing applied.

use ferrite_tests::*;
use std::ffi::c_void;
use std::ptr;

/// The extension's functions (the header's typedefs).
struct Cb {
    create: unsafe extern "C" fn(
        cl_uint,
        *const cl_command_queue,
        *const cl_command_buffer_properties_khr,
        *mut cl_int,
    ) -> cl_command_buffer_khr,
    finalize: unsafe extern "C" fn(cl_command_buffer_khr) -> cl_int,
    retain: unsafe extern "C" fn(cl_command_buffer_khr) -> cl_int,
    release: unsafe extern "C" fn(cl_command_buffer_khr) -> cl_int,
    enqueue: unsafe extern "C" fn(
        cl_uint,
        *mut cl_command_queue,
        cl_command_buffer_khr,
        cl_uint,
        *const cl_event,
        *mut cl_event,
    ) -> cl_int,
    ndrange: unsafe extern "C" fn(
        cl_command_buffer_khr,
        cl_command_queue,
        *const cl_command_properties_khr,
        cl_kernel,
        cl_uint,
        *const usize,
        *const usize,
        *const usize,
        cl_uint,
        *const cl_sync_point_khr,
        *mut cl_sync_point_khr,
        *mut cl_mutable_command_khr,
    ) -> cl_int,
    copy: unsafe extern "C" fn(
        cl_command_buffer_khr,
        cl_command_queue,
        *const cl_command_properties_khr,
        cl_mem,
        cl_mem,
        usize,
        usize,
        usize,
        cl_uint,
        *const cl_sync_point_khr,
        *mut cl_sync_point_khr,
        *mut cl_mutable_command_khr,
    ) -> cl_int,
    fill: unsafe extern "C" fn(
        cl_command_buffer_khr,
        cl_command_queue,
        *const cl_command_properties_khr,
        cl_mem,
        *const c_void,
        usize,
        usize,
        usize,
        cl_uint,
        *const cl_sync_point_khr,
        *mut cl_sync_point_khr,
        *mut cl_mutable_command_khr,
    ) -> cl_int,
    barrier: unsafe extern "C" fn(
        cl_command_buffer_khr,
        cl_command_queue,
        *const cl_command_properties_khr,
        cl_uint,
        *const cl_sync_point_khr,
        *mut cl_sync_point_khr,
        *mut cl_mutable_command_khr,
    ) -> cl_int,
    info: unsafe extern "C" fn(
        cl_command_buffer_khr,
        cl_command_buffer_info_khr,
        usize,
        *mut c_void,
        *mut usize,
    ) -> cl_int,
    update: unsafe extern "C" fn(
        cl_command_buffer_khr,
        cl_uint,
        *const cl_command_buffer_update_type_khr,
        *mut *const c_void,
    ) -> cl_int,
    command_info: unsafe extern "C" fn(
        cl_mutable_command_khr,
        cl_mutable_command_info_khr,
        usize,
        *mut c_void,
        *mut usize,
    ) -> cl_int,
}

/// The driver's function `name` as `F`.
///
/// # Safety
/// `F` is the function-pointer type the extension's header gives `name`.
unsafe fn func<F: Copy>(name: &str) -> F {
    let p = extension_function(name);
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of_val(&p));
    // SAFETY: a non-NULL function pointer of the driver, of type `F` (per the caller).
    unsafe { std::mem::transmute_copy(&p) }
}

/// The functions, or `None` (a skip, where allowed) if the device does not claim both
/// extensions.
fn cb() -> Option<Cb> {
    let exts = device_string(CL_DEVICE_EXTENSIONS);
    let both = exts.contains("cl_khr_command_buffer ")
        && exts.contains("cl_khr_command_buffer_mutable_dispatch");
    if !require(both, "cl_khr_command_buffer with mutable dispatch") {
        return None;
    }
    // SAFETY: each field's type is the signature the extension's header gives the function
    // of that name.
    unsafe {
        Some(Cb {
            create: func("clCreateCommandBufferKHR"),
            finalize: func("clFinalizeCommandBufferKHR"),
            retain: func("clRetainCommandBufferKHR"),
            release: func("clReleaseCommandBufferKHR"),
            enqueue: func("clEnqueueCommandBufferKHR"),
            ndrange: func("clCommandNDRangeKernelKHR"),
            copy: func("clCommandCopyBufferKHR"),
            fill: func("clCommandFillBufferKHR"),
            barrier: func("clCommandBarrierWithWaitListKHR"),
            info: func("clGetCommandBufferInfoKHR"),
            update: func("clUpdateMutableCommandsKHR"),
            command_info: func("clGetMutableCommandInfoKHR"),
        })
    }
}

/// `CL_COMMAND_BUFFER_STATE_FINALIZED_KHR` (mutable dispatch 0.9.5).
const STATE_FINALIZED: cl_command_buffer_state_khr = 2;

const SRC: &str = r#"
__kernel void scale_add(__global int *data, int value) {
    size_t i = get_global_id(0);
    data[i] = data[i] * 2 + value;
}
__kernel void put(__global int *data, int value) {
    data[get_global_id(0)] = value + (int)get_global_offset(0);
}
"#;

const N: usize = 256;

impl Cb {
    /// A command buffer on `q` with `flags`; panics on failure.
    #[track_caller]
    fn make(&self, q: &Queue, flags: cl_command_buffer_flags_khr) -> cl_command_buffer_khr {
        let props = [CL_COMMAND_BUFFER_FLAGS_KHR, flags, 0];
        let mut rc = 1;
        // SAFETY: one live queue and a zero-terminated list.
        let b = unsafe { (self.create)(1, &q.0, props.as_ptr(), &mut rc) };
        check(rc, "clCreateCommandBufferKHR");
        b
    }

    /// Record a 1-D launch of `n` work-items; the sync point, or the error code.
    fn launch(
        &self,
        b: cl_command_buffer_khr,
        k: &Kernel,
        n: usize,
        wait: &[cl_sync_point_khr],
        mutable: Option<&mut cl_mutable_command_khr>,
    ) -> Result<cl_sync_point_khr, cl_int> {
        let mut point = 0;
        let handle = mutable.map_or(ptr::null_mut(), |m| m as *mut _);
        // SAFETY: live handles; the arrays hold what their counts say.
        let rc = unsafe {
            (self.ndrange)(
                b,
                ptr::null_mut(),
                ptr::null(),
                k.0,
                1,
                ptr::null(),
                &n,
                ptr::null(),
                wait.len() as cl_uint,
                list_ptr(wait),
                &mut point,
                handle,
            )
        };
        if rc == CL_SUCCESS {
            Ok(point)
        } else {
            Err(rc)
        }
    }

    /// Record a fill of the first `bytes` bytes of `buf` with `value`.
    fn fill_ints(
        &self,
        b: cl_command_buffer_khr,
        buf: &Buffer,
        value: i32,
        bytes: usize,
        wait: &[cl_sync_point_khr],
    ) -> Result<cl_sync_point_khr, cl_int> {
        let mut point = 0;
        // SAFETY: live handles; a 4-byte pattern; the wait list holds its count.
        let rc = unsafe {
            (self.fill)(
                b,
                ptr::null_mut(),
                ptr::null(),
                buf.0,
                (&value as *const i32).cast(),
                4,
                0,
                bytes,
                wait.len() as cl_uint,
                list_ptr(wait),
                &mut point,
                ptr::null_mut(),
            )
        };
        if rc == CL_SUCCESS {
            Ok(point)
        } else {
            Err(rc)
        }
    }

    /// Enqueue on its own queue (`queue` None) or on `queue`; the event.
    fn run(
        &self,
        b: cl_command_buffer_khr,
        queue: Option<&Queue>,
        wait: &[cl_event],
    ) -> Result<Event, cl_int> {
        let mut q = queue.map_or(ptr::null_mut(), |q| q.0);
        let mut ev = ptr::null_mut();
        // SAFETY: live handles; the lists hold what their counts say.
        let rc = unsafe {
            (self.enqueue)(
                u32::from(queue.is_some()),
                if queue.is_some() {
                    &mut q
                } else {
                    ptr::null_mut()
                },
                b,
                wait.len() as cl_uint,
                list_ptr(wait),
                &mut ev,
            )
        };
        if rc == CL_SUCCESS {
            Ok(Event(ev))
        } else {
            Err(rc)
        }
    }

    fn state(&self, b: cl_command_buffer_khr) -> cl_command_buffer_state_khr {
        let mut s: cl_command_buffer_state_khr = 99;
        // SAFETY: a live buffer; `s` has room for the value.
        let rc = unsafe {
            (self.info)(
                b,
                CL_COMMAND_BUFFER_STATE_KHR,
                std::mem::size_of_val(&s),
                (&mut s as *mut cl_command_buffer_state_khr).cast(),
                ptr::null_mut(),
            )
        };
        check(rc, "CL_COMMAND_BUFFER_STATE_KHR");
        s
    }

    /// `clUpdateMutableCommandsKHR` with one dispatch config per entry.
    fn update(
        &self,
        b: cl_command_buffer_khr,
        configs: &[cl_mutable_dispatch_config_khr],
    ) -> cl_int {
        let types = vec![CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR; configs.len()];
        let mut ptrs: Vec<*const c_void> = configs
            .iter()
            .map(|c| (c as *const cl_mutable_dispatch_config_khr).cast())
            .collect();
        // SAFETY: a live buffer and configs whose lists hold what their counts say.
        unsafe {
            (self.update)(
                b,
                configs.len() as cl_uint,
                types.as_ptr(),
                ptrs.as_mut_ptr(),
            )
        }
    }
}

/// A dispatch config for `command` that changes nothing yet.
fn config(command: cl_mutable_command_khr) -> cl_mutable_dispatch_config_khr {
    cl_mutable_dispatch_config_khr {
        command,
        num_args: 0,
        num_svm_args: 0,
        num_exec_infos: 0,
        work_dim: 0,
        arg_list: ptr::null(),
        arg_svm_list: ptr::null(),
        exec_info_list: ptr::null(),
        global_work_offset: ptr::null(),
        global_work_size: ptr::null(),
        local_work_size: ptr::null(),
    }
}

fn wait(e: &Event) {
    // SAFETY: one live event.
    check(unsafe { clWaitForEvents(1, &e.0) }, "clWaitForEvents");
}

fn user_event(ctx: &Context) -> Event {
    let mut rc = 1;
    // SAFETY: a live context.
    let e = unsafe { clCreateUserEvent(ctx.0, &mut rc) };
    check(rc, "clCreateUserEvent");
    Event(e)
}

fn complete(e: &Event) {
    // SAFETY: a live user event.
    check(
        unsafe { clSetUserEventStatus(e.0, CL_COMPLETE) },
        "clSetUserEventStatus",
    );
}

/// `CL_MAKE_VERSION`.
fn version_of(major: u32, minor: u32, patch: u32) -> cl_version {
    (major << 22) | (minor << 12) | patch
}

#[test]
fn claim() {
    let Some(_) = cb() else { return };
    let versions: Vec<cl_name_version> =
        pod_vec(&device_info(dev().device, CL_DEVICE_EXTENSIONS_WITH_VERSION).unwrap());
    let version = |name: &str| {
        versions
            .iter()
            .find(|v| {
                std::ffi::CStr::from_bytes_until_nul(&v.name)
                    .is_ok_and(|n| n.to_bytes() == name.as_bytes())
            })
            .map(|v| v.version)
    };
    // The provisional revisions the CTS suites check.
    assert_eq!(version("cl_khr_command_buffer"), Some(version_of(0, 9, 8)));
    assert_eq!(
        version("cl_khr_command_buffer_mutable_dispatch"),
        Some(version_of(0, 9, 5))
    );
    let caps: cl_device_command_buffer_capabilities_khr =
        device_get(CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR);
    assert_ne!(caps & CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR, 0);
    assert_ne!(caps & CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR, 0);
    let supported: cl_command_queue_properties =
        device_get(CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR);
    assert_eq!(
        supported,
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE
    );
    let required: cl_command_queue_properties =
        device_get(CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR);
    assert_eq!(required, 0);
    let fields: cl_mutable_dispatch_fields_khr =
        device_get(CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR);
    assert_eq!(fields, 0b11111, "every field updatable");
}

/// Launches, a fill and a copy with sync points, replayed three times; the arguments are
/// those of record time; the event is a command-buffer command; the buffer also runs on
/// an out-of-order substitute queue.
#[test]
fn record_and_replay() {
    let Some(cb) = cb() else { return };
    let ctx = Context::new();
    let q = Queue::new(&ctx, CL_QUEUE_PROFILING_ENABLE);
    let prog = build(&ctx, SRC, "");
    let k = prog.kernel("scale_add");
    let data = Buffer::new(&ctx, CL_MEM_READ_WRITE, N * 4);
    let copy = Buffer::new(&ctx, CL_MEM_READ_WRITE, N * 4);
    k.buf(0, &data).arg(1, &3i32);
    let b = cb.make(&q, 0);
    assert_eq!(cb.state(b), CL_COMMAND_BUFFER_STATE_RECORDING_KHR);
    let fill = cb.fill_ints(b, &data, 1, N * 4, &[]).unwrap();
    let first = cb.launch(b, &k, N, &[fill], None).unwrap();
    // Set after recording: the recorded launch keeps 3.
    k.arg(1, &100i32);
    let second = cb.launch(b, &k, N, &[first], None).unwrap();
    assert!(
        fill < first && first < second,
        "sync points in recording order"
    );
    let mut copied = 0;
    // SAFETY: live handles; no wait list.
    let rc = unsafe {
        (cb.copy)(
            b,
            ptr::null_mut(),
            ptr::null(),
            data.0,
            copy.0,
            0,
            0,
            N * 4,
            1,
            &second,
            &mut copied,
            ptr::null_mut(),
        )
    };
    check(rc, "clCommandCopyBufferKHR");
    // SAFETY: as above.
    let rc = unsafe {
        (cb.barrier)(
            b,
            ptr::null_mut(),
            ptr::null(),
            0,
            ptr::null(),
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    check(rc, "clCommandBarrierWithWaitListKHR");
    // SAFETY: a live buffer.
    check(unsafe { (cb.finalize)(b) }, "clFinalizeCommandBufferKHR");
    assert_eq!(cb.state(b), CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);
    // Each run: fill 1, (1*2+3)=5, then 5*2+100 = 110.
    for round in 0..3 {
        copy.write(&q, 0, &vec![0i32; N]);
        let e = cb.run(b, None, &[]).unwrap();
        wait(&e);
        let ty: cl_command_type = pod(&event_info(e.0, CL_EVENT_COMMAND_TYPE).unwrap());
        assert_eq!(ty, CL_COMMAND_COMMAND_BUFFER_KHR);
        let start: u64 = pod(&profiling_info(e.0, CL_PROFILING_COMMAND_START).unwrap());
        let end: u64 = pod(&profiling_info(e.0, CL_PROFILING_COMMAND_END).unwrap());
        assert!(start <= end);
        assert!(
            copy.read::<i32>(&q, N).iter().all(|&v| v == 110),
            "round {round}"
        );
    }
    // An out-of-order queue of the same device stands for the recording queue.
    let ooo = Queue::new(&ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    copy.write(&q, 0, &vec![0i32; N]);
    wait(&cb.run(b, Some(&ooo), &[]).unwrap());
    assert!(copy.read::<i32>(&q, N).iter().all(|&v| v == 110));
    // Retained twice, released twice: gone.
    // SAFETY: a live buffer.
    check(unsafe { (cb.retain)(b) }, "clRetainCommandBufferKHR");
    // SAFETY: as above.
    check(unsafe { (cb.release)(b) }, "clReleaseCommandBufferKHR");
    // SAFETY: as above.
    check(unsafe { (cb.release)(b) }, "clReleaseCommandBufferKHR");
    // SAFETY: a released handle is refused, not read.
    expect_code(
        unsafe { (cb.finalize)(b) },
        CL_INVALID_COMMAND_BUFFER_KHR,
        "released",
    );
    expect_code(
        cb.run(b, None, &[]).err().unwrap_or(CL_SUCCESS),
        CL_INVALID_COMMAND_BUFFER_KHR,
        "enqueue of a released buffer",
    );
}

/// Recording vs executable state, sync points, queues of another context or device,
/// property lists and handles that are not allowed.
#[test]
fn state_and_argument_errors() {
    let Some(cb) = cb() else { return };
    let ctx = Context::new();
    let q = Queue::new(&ctx, 0);
    let prog = build(&ctx, SRC, "");
    let k = prog.kernel("put");
    let data = Buffer::new(&ctx, CL_MEM_READ_WRITE, N * 4);
    k.buf(0, &data).arg(1, &7i32);
    let b = cb.make(&q, 0);

    // Creation.
    let mut rc = 0;
    // SAFETY: deliberately wrong counts and lists; the driver checks them.
    unsafe {
        let none = (cb.create)(0, &q.0, ptr::null(), &mut rc);
        expect_create_err(none, rc, CL_INVALID_VALUE, "num_queues 0");
        let two = [q.0, q.0];
        let none = (cb.create)(2, two.as_ptr(), ptr::null(), &mut rc);
        expect_create_err(none, rc, CL_INVALID_VALUE, "two queues");
        let none = (cb.create)(1, ptr::null(), ptr::null(), &mut rc);
        expect_create_err(none, rc, CL_INVALID_VALUE, "NULL queues");
        let repeated = [
            CL_COMMAND_BUFFER_FLAGS_KHR,
            0,
            CL_COMMAND_BUFFER_FLAGS_KHR,
            0,
            0,
        ];
        let none = (cb.create)(1, &q.0, repeated.as_ptr(), &mut rc);
        expect_create_err(none, rc, CL_INVALID_VALUE, "a property given twice");
        let unknown = [CL_COMMAND_BUFFER_FLAGS_KHR, 1 << 20, 0];
        let none = (cb.create)(1, &q.0, unknown.as_ptr(), &mut rc);
        expect_create_err(none, rc, CL_INVALID_VALUE, "an unknown flag");
        let device_sync = [CL_COMMAND_BUFFER_FLAGS_KHR, 1 << 2, 0];
        let none = (cb.create)(1, &q.0, device_sync.as_ptr(), &mut rc);
        expect_create_err(
            none,
            rc,
            CL_INVALID_PROPERTY,
            "device-side sync (multi-device)",
        );
        let none = (cb.create)(1, &ptr::null_mut(), ptr::null(), &mut rc);
        expect_create_err(none, rc, CL_INVALID_COMMAND_QUEUE, "a NULL queue");
    }

    // Sync points name recorded commands only.
    let p1 = cb.launch(b, &k, N, &[], None).unwrap();
    expect_code(
        cb.launch(b, &k, N, &[p1 + 1], None).unwrap_err(),
        CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
        "a sync point not recorded yet",
    );
    expect_code(
        cb.launch(b, &k, N, &[0], None).unwrap_err(),
        CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
        "sync point 0",
    );
    let mut point = 0;
    // SAFETY: a count without a list: refused before it is read.
    let rc = unsafe {
        (cb.barrier)(
            b,
            ptr::null_mut(),
            ptr::null(),
            1,
            ptr::null(),
            &mut point,
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
        "a count and no list",
    );
    // A queue argument, a mutable handle for a copy, a property for a fill.
    // SAFETY: live handles; the driver refuses the extra arguments.
    unsafe {
        let rc = (cb.barrier)(
            b,
            q.0,
            ptr::null(),
            0,
            ptr::null(),
            ptr::null_mut(),
            ptr::null_mut(),
        );
        expect_code(rc, CL_INVALID_COMMAND_QUEUE, "command_queue not NULL");
        let mut m = ptr::null_mut();
        let rc = (cb.barrier)(
            b,
            ptr::null_mut(),
            ptr::null(),
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut m,
        );
        expect_code(rc, CL_INVALID_VALUE, "a mutable handle for a barrier");
        let props = [CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, 0, 0];
        let rc = (cb.barrier)(
            b,
            ptr::null_mut(),
            props.as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut(),
            ptr::null_mut(),
        );
        expect_code(rc, CL_INVALID_VALUE, "a launch property on a barrier");
    }
    // Memory of another context.
    let other = Context::new();
    let foreign = Buffer::new(&other, CL_MEM_READ_WRITE, N * 4);
    expect_code(
        cb.fill_ints(b, &foreign, 0, 16, &[]).unwrap_err(),
        CL_INVALID_CONTEXT,
        "a buffer of another context",
    );
    // The checks of clEnqueueFillBuffer.
    expect_code(
        cb.fill_ints(b, &data, 0, N * 4 + 4, &[]).unwrap_err(),
        CL_INVALID_VALUE,
        "a fill past the end",
    );
    // The checks of clEnqueueNDRangeKernel, and of clSetKernelArg's values.
    let unset = prog.kernel("put");
    expect_code(
        cb.launch(b, &unset, N, &[], None).unwrap_err(),
        CL_INVALID_KERNEL_ARGS,
        "a kernel with unset arguments",
    );

    // Not finalised: no enqueue.
    expect_code(
        cb.run(b, None, &[]).unwrap_err(),
        CL_INVALID_OPERATION,
        "enqueue while recording",
    );
    // SAFETY: a live buffer.
    check(unsafe { (cb.finalize)(b) }, "clFinalizeCommandBufferKHR");
    // SAFETY: as above.
    expect_code(
        unsafe { (cb.finalize)(b) },
        CL_INVALID_OPERATION,
        "finalize twice",
    );
    expect_code(
        cb.launch(b, &k, N, &[], None).unwrap_err(),
        CL_INVALID_OPERATION,
        "record into a finalized buffer",
    );
    expect_code(
        cb.fill_ints(b, &data, 0, 16, &[]).unwrap_err(),
        CL_INVALID_OPERATION,
        "fill into a finalized buffer",
    );
    // Enqueue: a queue of another context, wait lists, substitution counts.
    let foreign_q = Queue::new(&other, 0);
    expect_code(
        cb.run(b, Some(&foreign_q), &[]).unwrap_err(),
        CL_INVALID_CONTEXT,
        "a substitute queue of another context",
    );
    let foreign_event = user_event(&other);
    expect_code(
        cb.run(b, None, &[foreign_event.0]).unwrap_err(),
        CL_INVALID_CONTEXT,
        "an event of another context",
    );
    let mut e = ptr::null_mut();
    // SAFETY: a count without a list: refused before it is read.
    let rc = unsafe { (cb.enqueue)(0, ptr::null_mut(), b, 1, ptr::null(), &mut e) };
    expect_code(rc, CL_INVALID_EVENT_WAIT_LIST, "a count and no wait list");
    let mut qh = q.0;
    // SAFETY: a list with a zero count: refused before it is read.
    let rc = unsafe { (cb.enqueue)(0, &mut qh, b, 0, ptr::null(), &mut e) };
    expect_code(rc, CL_INVALID_VALUE, "queues without a count");
    // The buffer still runs.
    wait(&cb.run(b, None, &[]).unwrap());
    assert!(data.read::<i32>(&q, N).iter().all(|&v| v == 7));
    // SAFETY: a live buffer, released once.
    check(unsafe { (cb.release)(b) }, "clReleaseCommandBufferKHR");
}

/// A queue of another device (a sub-device in the same context) cannot stand for the
/// recording queue; a buffer recorded on the sub-device's queue runs there.
#[test]
fn queues_of_another_device() {
    let Some(cb) = cb() else { return };
    let root = dev().device;
    let props = [
        CL_DEVICE_PARTITION_EQUALLY as cl_device_partition_property,
        1,
        0,
    ];
    let mut sub = ptr::null_mut();
    let mut n = 0;
    // SAFETY: room for one sub-device; the driver reports how many the partition makes.
    let rc = unsafe { clCreateSubDevices(root, props.as_ptr(), 0, ptr::null_mut(), &mut n) };
    if !require(rc == CL_SUCCESS && n >= 1, "sub-devices") {
        return;
    }
    let mut all = vec![ptr::null_mut(); n as usize];
    // SAFETY: `all` has room for `n` devices.
    check(
        unsafe { clCreateSubDevices(root, props.as_ptr(), n, all.as_mut_ptr(), ptr::null_mut()) },
        "clCreateSubDevices",
    );
    std::mem::swap(&mut sub, &mut all[0]);
    let devices = [root, sub];
    let mut rc = 0;
    // SAFETY: two live devices of one platform.
    let ctx = Context(unsafe {
        clCreateContext(
            ptr::null(),
            2,
            devices.as_ptr(),
            None,
            ptr::null_mut(),
            &mut rc,
        )
    });
    check(rc, "clCreateContext");
    let q = Queue::new(&ctx, 0);
    // SAFETY: a live context and its sub-device.
    let sub_q =
        Queue(unsafe { clCreateCommandQueueWithProperties(ctx.0, sub, ptr::null(), &mut rc) });
    check(rc, "clCreateCommandQueueWithProperties(sub-device)");
    let prog = build(&ctx, SRC, "");
    let k = prog.kernel("put");
    let data = Buffer::new(&ctx, CL_MEM_READ_WRITE, N * 4);
    k.buf(0, &data).arg(1, &5i32);
    let b = cb.make(&q, 0);
    cb.launch(b, &k, N, &[], None).unwrap();
    // SAFETY: a live buffer.
    check(unsafe { (cb.finalize)(b) }, "clFinalizeCommandBufferKHR");
    expect_code(
        cb.run(b, Some(&sub_q), &[]).unwrap_err(),
        CL_INCOMPATIBLE_COMMAND_QUEUE_KHR,
        "a queue of another device",
    );
    let on_sub = cb.make(&sub_q, 0);
    cb.launch(on_sub, &k, N, &[], None).unwrap();
    // SAFETY: a live buffer.
    check(
        unsafe { (cb.finalize)(on_sub) },
        "clFinalizeCommandBufferKHR",
    );
    wait(&cb.run(on_sub, None, &[]).unwrap());
    assert!(data.read::<i32>(&q, N).iter().all(|&v| v == 5));
    // SAFETY: live buffers and devices, released once each.
    unsafe {
        check((cb.release)(b), "release");
        check((cb.release)(on_sub), "release");
        drop((sub_q, q, prog, k, data, ctx));
        check(clReleaseDevice(sub), "clReleaseDevice");
        for d in all.into_iter().filter(|d| !d.is_null()) {
            check(clReleaseDevice(d), "clReleaseDevice");
        }
    }
}

/// A mutable launch takes new arguments and geometry; an enqueue made before the update
/// keeps the old launch (simultaneous use); refused updates change nothing.
#[test]
fn mutable_launches() {
    let Some(cb) = cb() else { return };
    let ctx = Context::new();
    let q = Queue::new(&ctx, 0);
    let prog = build(&ctx, SRC, "");
    let k = prog.kernel("scale_add");
    let data = Buffer::new(&ctx, CL_MEM_READ_WRITE, N * 4);
    data.write(&q, 0, &vec![0i32; N]);
    k.buf(0, &data).arg(1, &1i32);
    let b = cb.make(
        &q,
        CL_COMMAND_BUFFER_MUTABLE_KHR | CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR,
    );
    let mut m = ptr::null_mut();
    cb.launch(b, &k, N / 2, &[], Some(&mut m)).unwrap();
    assert!(!m.is_null());
    // An update before finalisation is refused.
    expect_code(
        cb.update(b, &[config(m)]),
        CL_INVALID_OPERATION,
        "update while recording",
    );
    // SAFETY: a live buffer.
    check(unsafe { (cb.finalize)(b) }, "clFinalizeCommandBufferKHR");

    // The first enqueue waits on a gate; the update comes before it runs.
    let gate = user_event(&ctx);
    let first = cb.run(b, None, &[gate.0]).unwrap();
    let ten = 10i32;
    let arg = cl_mutable_dispatch_arg_khr {
        arg_index: 1,
        arg_size: 4,
        arg_value: (&ten as *const i32).cast(),
    };
    let global = [N];
    let mut c = config(m);
    c.num_args = 1;
    c.arg_list = &arg;
    c.global_work_size = global.as_ptr();
    check(cb.update(b, &[c]), "clUpdateMutableCommandsKHR");
    let second = cb.run(b, None, &[]).unwrap();
    complete(&gate);
    wait(&first);
    wait(&second);
    // First half: (0*2+1)*2+10 = 12; second half only the updated launch: 0*2+10.
    let got = data.read::<i32>(&q, N);
    assert!(got[..N / 2].iter().all(|&v| v == 12), "{:?}", &got[..4]);
    assert!(
        got[N / 2..].iter().all(|&v| v == 10),
        "{:?}",
        &got[N / 2..N / 2 + 4]
    );
    // The command reports its new geometry.
    let mut size = [0usize; 1];
    // SAFETY: a live command; room for one size_t.
    let rc = unsafe {
        (cb.command_info)(
            m,
            CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR,
            8,
            size.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    check(rc, "CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR");
    assert_eq!(size, [N]);

    // Refused updates, and a call whose second config is refused applies neither.
    let bad_index = cl_mutable_dispatch_arg_khr {
        arg_index: 7,
        ..arg
    };
    let mut c = config(m);
    c.num_args = 1;
    c.arg_list = &bad_index;
    expect_code(
        cb.update(b, &[c]),
        CL_INVALID_ARG_INDEX,
        "an argument index out of range",
    );
    let mut c = config(m);
    c.work_dim = 2;
    expect_code(cb.update(b, &[c]), CL_INVALID_VALUE, "another work_dim");
    let huge = [1usize << 20];
    let mut c = config(m);
    c.local_work_size = huge.as_ptr();
    expect_code(
        cb.update(b, &[c]),
        CL_INVALID_WORK_GROUP_SIZE,
        "a local size too large",
    );
    let mut c = config(m);
    c.num_args = 1;
    expect_code(
        cb.update(b, &[c]),
        CL_INVALID_VALUE,
        "a count without a list",
    );
    expect_code(
        cb.update(b, &[config(ptr::null_mut())]),
        CL_INVALID_MUTABLE_COMMAND_KHR,
        "a NULL command",
    );
    let zero = 0i32;
    let to_zero = cl_mutable_dispatch_arg_khr {
        arg_index: 1,
        arg_size: 4,
        arg_value: (&zero as *const i32).cast(),
    };
    let mut good = config(m);
    good.num_args = 1;
    good.arg_list = &to_zero;
    let mut bad = config(m);
    bad.work_dim = 3;
    expect_code(
        cb.update(b, &[good, bad]),
        CL_INVALID_VALUE,
        "a bad second config",
    );
    data.write(&q, 0, &vec![0i32; N]);
    wait(&cb.run(b, None, &[]).unwrap());
    assert!(
        data.read::<i32>(&q, N).iter().all(|&v| v == 10),
        "the good config was not applied"
    );

    // A launch recorded with only its arguments updatable refuses a new geometry.
    let b2 = cb.make(&q, CL_COMMAND_BUFFER_MUTABLE_KHR);
    let props = [
        CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
        CL_MUTABLE_DISPATCH_ARGUMENTS_KHR,
        0,
    ];
    let mut m2 = ptr::null_mut();
    // SAFETY: live handles; a zero-terminated list.
    let rc = unsafe {
        (cb.ndrange)(
            b2,
            ptr::null_mut(),
            props.as_ptr(),
            k.0,
            1,
            ptr::null(),
            &N,
            ptr::null(),
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut m2,
        )
    };
    check(rc, "clCommandNDRangeKernelKHR(arguments updatable)");
    // SAFETY: a live buffer.
    check(unsafe { (cb.finalize)(b2) }, "clFinalizeCommandBufferKHR");
    let mut c = config(m2);
    c.global_work_size = global.as_ptr();
    expect_code(
        cb.update(b2, &[c]),
        CL_INVALID_OPERATION,
        "a field not updatable",
    );
    // A command of another buffer.
    expect_code(
        cb.update(b, &[config(m2)]),
        CL_INVALID_MUTABLE_COMMAND_KHR,
        "another buffer's command",
    );
    // A buffer that is not mutable.
    let plain = cb.make(&q, 0);
    let mut m3 = ptr::null_mut();
    cb.launch(plain, &k, N, &[], Some(&mut m3)).unwrap();
    // SAFETY: a live buffer.
    check(
        unsafe { (cb.finalize)(plain) },
        "clFinalizeCommandBufferKHR",
    );
    expect_code(
        cb.update(plain, &[config(m3)]),
        CL_INVALID_OPERATION,
        "a buffer not mutable",
    );

    // Deferred arguments: recorded unset, finalised but not executable until updated.
    let unset = prog.kernel("scale_add");
    let b3 = cb.make(&q, CL_COMMAND_BUFFER_MUTABLE_KHR);
    let mut m4 = ptr::null_mut();
    cb.launch(b3, &unset, N, &[], Some(&mut m4)).unwrap();
    // SAFETY: a live buffer.
    check(unsafe { (cb.finalize)(b3) }, "clFinalizeCommandBufferKHR");
    assert_eq!(cb.state(b3), STATE_FINALIZED);
    expect_code(
        cb.run(b3, None, &[]).unwrap_err(),
        CL_INVALID_OPERATION,
        "unset arguments",
    );
    let args = [
        cl_mutable_dispatch_arg_khr {
            arg_index: 0,
            arg_size: std::mem::size_of::<cl_mem>(),
            arg_value: (&data.0 as *const cl_mem).cast(),
        },
        cl_mutable_dispatch_arg_khr {
            arg_index: 1,
            arg_size: 4,
            arg_value: (&ten as *const i32).cast(),
        },
    ];
    let mut c = config(m4);
    c.num_args = 2;
    c.arg_list = args.as_ptr();
    check(cb.update(b3, &[c]), "clUpdateMutableCommandsKHR(deferred)");
    assert_eq!(cb.state(b3), CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);
    data.write(&q, 0, &vec![1i32; N]);
    wait(&cb.run(b3, None, &[]).unwrap());
    assert!(data.read::<i32>(&q, N).iter().all(|&v| v == 12));

    // The handles of a released buffer's commands are gone with it.
    // SAFETY: live buffers, released once each.
    unsafe {
        for x in [b, b2, plain, b3] {
            check((cb.release)(x), "clReleaseCommandBufferKHR");
        }
    }
    let mut dims: cl_uint = 0;
    // SAFETY: a handle of a released buffer's command: refused, not read.
    let rc = unsafe {
        (cb.command_info)(
            m,
            CL_MUTABLE_DISPATCH_DIMENSIONS_KHR,
            4,
            (&mut dims as *mut cl_uint).cast(),
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_INVALID_MUTABLE_COMMAND_KHR,
        "a command of a released buffer",
    );
}

/// A mutable launch whose buffer the application released still updates (the launch holds
/// it), and a deferred launch's arguments may come over several updates.
#[test]
fn mutable_launches_hold_buffers_and_take_arguments_in_steps() {
    let Some(cb) = cb() else { return };
    let ctx = Context::new();
    let q = Queue::new(&ctx, 0);
    let prog = build(&ctx, SRC, "");
    let k = prog.kernel("put");
    let out = Buffer::new(&ctx, CL_MEM_READ_WRITE, N * 4);
    let raw = out.0;
    k.buf(0, &out).arg(1, &3i32);
    let b = cb.make(&q, CL_COMMAND_BUFFER_MUTABLE_KHR);
    let mut m = ptr::null_mut();
    cb.launch(b, &k, N / 2, &[], Some(&mut m)).unwrap();
    // SAFETY: a live buffer.
    check(unsafe { (cb.finalize)(b) }, "clFinalizeCommandBufferKHR");
    // The application's last reference to the buffer goes; the launch keeps it.
    // SAFETY: one retain for the read below, then the wrapper's release.
    check(unsafe { clRetainMemObject(raw) }, "clRetainMemObject");
    drop(out);
    drop(k);
    let global = [N];
    let mut c = config(m);
    c.global_work_size = global.as_ptr();
    check(
        cb.update(b, &[c]),
        "a geometry update after the buffer's release",
    );
    wait(&cb.run(b, None, &[]).unwrap());
    let out = Buffer(raw);
    assert!(out.read::<i32>(&q, N).iter().all(|&v| v == 3));

    // Deferred: argument 0 in one update, argument 1 in another; the buffer of the first
    // (a sub-buffer of `out`, which the test keeps to read) is released in between.
    let unset = prog.kernel("put");
    let b2 = cb.make(&q, CL_COMMAND_BUFFER_MUTABLE_KHR);
    let mut m2 = ptr::null_mut();
    cb.launch(b2, &unset, N, &[], Some(&mut m2)).unwrap();
    // SAFETY: a live buffer.
    check(unsafe { (cb.finalize)(b2) }, "clFinalizeCommandBufferKHR");
    let whole = cl_buffer_region {
        origin: 0,
        size: N * 4,
    };
    let mut rc = 0;
    // SAFETY: a live buffer and a region inside it.
    let sub = unsafe {
        clCreateSubBuffer(
            out.0,
            CL_MEM_READ_WRITE,
            CL_BUFFER_CREATE_TYPE_REGION,
            (&whole as *const cl_buffer_region).cast(),
            &mut rc,
        )
    };
    check(rc, "clCreateSubBuffer");
    let first = cl_mutable_dispatch_arg_khr {
        arg_index: 0,
        arg_size: std::mem::size_of::<cl_mem>(),
        arg_value: (&sub as *const cl_mem).cast(),
    };
    let mut c = config(m2);
    c.num_args = 1;
    c.arg_list = &first;
    check(cb.update(b2, &[c]), "the first of two deferred arguments");
    assert_eq!(cb.state(b2), STATE_FINALIZED, "one argument still unset");
    // SAFETY: the application's only reference; the launch's copy holds the sub-buffer.
    check(unsafe { clReleaseMemObject(sub) }, "clReleaseMemObject");
    let nine = 9i32;
    let second = cl_mutable_dispatch_arg_khr {
        arg_index: 1,
        arg_size: 4,
        arg_value: (&nine as *const i32).cast(),
    };
    c.arg_list = &second;
    check(cb.update(b2, &[c]), "the second deferred argument");
    assert_eq!(cb.state(b2), CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);
    wait(&cb.run(b2, None, &[]).unwrap());
    assert!(out.read::<i32>(&q, N).iter().all(|&v| v == 9));
    // SAFETY: live buffers, released once each.
    unsafe {
        check((cb.release)(b), "clReleaseCommandBufferKHR");
        check((cb.release)(b2), "clReleaseCommandBufferKHR");
    }
}
