//! A CPU device CI can trust: a kernel that faults (an out-of-bounds write far past its
//! buffer, `__builtin_trap()`), runs past `FERRITE_KERNEL_TIMEOUT_MS`, or needs more stack
//! than a worker has fails its own command — negative execution status, a report naming
//! the kernel on the context's notify callback — and the same process then runs a correct
//! kernel on the same queue and context.
//!
//! Memory: `CL_DEVICE_GLOBAL_MEM_SIZE` is what the process can get, buffers beyond it in
//! total fail with `CL_MEM_OBJECT_ALLOCATION_FAILURE` (not the OOM killer), and a 1 GiB
//! buffer is created without being committed.
//!
//! Ferrite-only (other drivers take the process down, which is the point): on another
//! platform each test returns early.

use ferrite_tests::checked::{context, notes, Ctx};
use ferrite_tests::*;
use std::ffi::c_void;
use std::ptr;
use std::sync::Once;

/// The time limit this process runs under (read by Ferrite at its first launch).
const TIMEOUT_MS: &str = "1500";

fn setup() -> bool {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Edition 2021: safe; runs before this process's first OpenCL call.
        std::env::set_var("FERRITE_KERNEL_TIMEOUT_MS", TIMEOUT_MS);
    });
    is_ferrite()
}

/// Wait for `ev` without asserting success (`clWaitForEvents` reports the failure).
fn wait_status(ev: &Event) -> cl_int {
    // SAFETY: one live event.
    let _ = unsafe { clWaitForEvents(1, &ev.raw()) };
    ev.status()
}

/// After a failed command: the same queue and context run a correct kernel.
fn still_usable(c: &Ctx) {
    let p = build(
        &c.ctx,
        "__kernel void twice(__global int *a) { size_t i = get_global_id(0); a[i] = 2 * (int)i; }",
        "",
    );
    let k = p.kernel("twice");
    let n = 4096;
    let b = Buffer::new(&c.ctx, CL_MEM_READ_WRITE, n * 4);
    k.buf(0, &b);
    run_1d(&c.queue, &k, n, Some(64));
    let got: Vec<i32> = b.read(&c.queue, n);
    assert!(
        got.iter().enumerate().all(|(i, &v)| v == 2 * i as i32),
        "the correct kernel after the failed one gave wrong results"
    );
    c.queue.finish();
}

#[test]
fn write_far_out_of_bounds_fails_its_command() {
    if !setup() {
        return;
    }
    let c = context(1);
    let p = build(
        &c.ctx,
        r#"__kernel void oob(__global int *out, ulong far) {
            size_t i = get_global_id(0);
            out[i] = 1;
            if (i == 100) out[far] = 7;
        }"#,
        "-cl-kernel-arg-info",
    );
    let k = p.kernel("oob");
    // The buffer is the first page of a 1 GiB reservation the test owns, so the write
    // 256 MiB past it lands on an address that is certainly not mapped for access. (A
    // fixed distance past wherever the driver put a buffer may leave the user half of the
    // address space: a general-protection fault, which reports no address to name.)
    let area = Reservation::new(1 << 30, 4096);
    let b = Buffer::try_new(
        &c.ctx,
        CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
        1024 * 4,
        area.0,
    )
    .expect("USE_HOST_PTR buffer");
    let far: u64 = (256 << 20) / 4;
    k.buf(0, &b).arg(1, &far);
    let ev = enqueue_nd(&c.queue, &k, None, &[1024], Some(&[64])).expect("enqueue");
    // A command that waits for it fails as the spec says.
    let mut after = ptr::null_mut();
    let k2 = p.kernel("oob");
    let zero: u64 = 0;
    k2.buf(0, &b).arg(1, &zero);
    let g = [64usize];
    // SAFETY: valid queue, kernel, sizes and a one-event wait list.
    let rc = unsafe {
        clEnqueueNDRangeKernel(
            c.queue.raw(),
            k2.raw(),
            1,
            ptr::null(),
            g.as_ptr(),
            ptr::null(),
            1,
            &ev.raw(),
            &mut after,
        )
    };
    check(rc, "clEnqueueNDRangeKernel after the faulting one");
    let after = Event(after);
    assert_eq!(
        wait_status(&ev),
        CL_OUT_OF_RESOURCES,
        "faulting kernel's status"
    );
    assert_eq!(
        wait_status(&after),
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
        "status of the command waiting for it"
    );
    let n = notes(c.tag);
    assert!(
        n.iter().any(|s| s.contains("`oob`")
            && s.contains("SIGSEGV")
            && s.contains("work-group (1, 0, 0)")
            && s.contains("argument #0 `out`")
            && s.contains("offset 268435456 (268431360 bytes past its end)")),
        "no fault report naming the kernel, group and argument: {n:?}"
    );
    c.queue.finish();
    drop(b);
    still_usable(&c);
}

/// `len` bytes of address space, of which the first `usable` are readable and writable and
/// the rest not accessible; unmapped on drop.
struct Reservation(*mut c_void, usize);

impl Reservation {
    fn new(len: usize, usable: usize) -> Reservation {
        // SAFETY: a fresh private anonymous mapping, no existing memory is touched.
        let p = unsafe {
            libc::mmap(
                ptr::null_mut(),
                len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED, "mmap of the reservation");
        // SAFETY: the first `usable` bytes lie inside the mapping just made.
        let rc = unsafe { libc::mprotect(p, usable, libc::PROT_READ | libc::PROT_WRITE) };
        assert_eq!(rc, 0, "mprotect of the usable part");
        Reservation(p, len)
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`; every buffer using it is released first.
        unsafe { libc::munmap(self.0, self.1) };
    }
}

#[test]
fn builtin_trap_fails_its_command() {
    if !setup() {
        return;
    }
    let c = context(2);
    let p = build(
        &c.ctx,
        r#"__kernel void trapper(__global int *out) {
            size_t i = get_global_id(0);
            if (out[i] == 5) __builtin_trap();
            out[i] = 1;
        }"#,
        "",
    );
    let k = p.kernel("trapper");
    let mut data = vec![0i32; 256];
    data[77] = 5;
    let b = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &data);
    k.buf(0, &b);
    let ev = enqueue_nd(&c.queue, &k, None, &[256], Some(&[16])).expect("enqueue");
    assert_eq!(
        wait_status(&ev),
        CL_OUT_OF_RESOURCES,
        "trapping kernel's status"
    );
    // The kernel reads no group geometry, so the executor may run several of the
    // application's groups as one (`runtime/src/executor.rs`, `batches`): the report then
    // names the groups run together, which must include group 4 (work-item 77).
    let n = notes(c.tag);
    let names_group_4 = |s: &str| {
        s.contains("(4, 0, 0)")
            || s.split("work-groups (").nth(1).is_some_and(|r| {
                let nums: Vec<u64> = r
                    .split(|ch: char| !ch.is_ascii_digit())
                    .filter(|t| !t.is_empty())
                    .take(6)
                    .filter_map(|t| t.parse().ok())
                    .collect();
                nums.len() == 6 && nums[0] <= 4 && 4 <= nums[3] && nums[1] == 0 && nums[4] == 0
            })
    };
    assert!(
        n.iter()
            .any(|s| s.contains("`trapper`") && s.contains("SIGILL") && names_group_4(s)),
        "no trap report: {n:?}"
    );
    still_usable(&c);
}

#[test]
fn endless_loop_fails_under_the_time_limit() {
    if !setup() {
        return;
    }
    let c = context(3);
    let p = build(
        &c.ctx,
        r#"__kernel void spin(__global volatile int *flag, __global int *out) {
            size_t i = get_global_id(0);
            int n = 0;
            while (flag[0] == 0) n++;
            out[i] = n;
        }"#,
        "",
    );
    let k = p.kernel("spin");
    let flag = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &[0i32]);
    let out = Buffer::new(&c.ctx, CL_MEM_READ_WRITE, 64 * 4);
    k.buf(0, &flag).buf(1, &out);
    // Launches of another queue around it, whose work-groups wait for the workers the
    // endless one holds: that wait is not their running time, so they do not time out.
    let other = Queue::new(&c.ctx, 0);
    let pt = build(
        &c.ctx,
        "__kernel void twice(__global int *a) { size_t i = get_global_id(0); a[i] = 2 * (int)i; }",
        "",
    );
    let n = 1 << 20;
    let (before, after) = (pt.kernel("twice"), pt.kernel("twice"));
    let (b1, b2) = (
        Buffer::new(&c.ctx, CL_MEM_READ_WRITE, n * 4),
        Buffer::new(&c.ctx, CL_MEM_READ_WRITE, n * 4),
    );
    before.buf(0, &b1);
    after.buf(0, &b2);
    let e1 = enqueue_nd(&other, &before, None, &[n], Some(&[64])).expect("enqueue");
    let ev = enqueue_nd(&c.queue, &k, None, &[64], Some(&[8])).expect("enqueue");
    let e2 = enqueue_nd(&other, &after, None, &[n], Some(&[64])).expect("enqueue");
    assert_eq!(
        wait_status(&ev),
        CL_OUT_OF_RESOURCES,
        "endless kernel's status"
    );
    for (e, b) in [(e1, &b1), (e2, &b2)] {
        assert_eq!(wait_status(&e), CL_COMPLETE, "the other queue's launch");
        let got: Vec<i32> = b.read(&other, n);
        assert!(got.iter().enumerate().all(|(i, &v)| v == 2 * i as i32));
    }
    let n = notes(c.tag);
    assert!(
        n.iter().any(|s| s.contains("`spin`")
            && s.contains(&format!("FERRITE_KERNEL_TIMEOUT_MS={TIMEOUT_MS}"))),
        "no time-limit report: {n:?}"
    );
    still_usable(&c);
}

/// An endless loop that spends most of its time in math built-ins (Rust code, where the
/// watchdog's signal is not taken): the watchdog tries again until it lands in the
/// kernel's own code.
#[test]
fn endless_loop_in_math_calls_fails_under_the_time_limit() {
    if !setup() {
        return;
    }
    let c = context(8);
    let p = build(
        &c.ctx,
        r#"__kernel void spin_math(__global volatile int *flag, __global float *out) {
            size_t i = get_global_id(0);
            float x = (float)i;
            while (flag[0] == 0) x = pow(fabs(sin(x)) + 1.0f, 0.999f) + erf(x);
            out[i] = x;
        }"#,
        "",
    );
    let k = p.kernel("spin_math");
    let flag = Buffer::from_slice(&c.ctx, CL_MEM_READ_WRITE, &[0i32]);
    let out = Buffer::new(&c.ctx, CL_MEM_READ_WRITE, 16 * 4);
    k.buf(0, &flag).buf(1, &out);
    let ev = enqueue_nd(&c.queue, &k, None, &[16], Some(&[4])).expect("enqueue");
    assert_eq!(
        wait_status(&ev),
        CL_OUT_OF_RESOURCES,
        "endless kernel's status"
    );
    let n = notes(c.tag);
    assert!(
        n.iter()
            .any(|s| s.contains("`spin_math`") && s.contains("FERRITE_KERNEL_TIMEOUT_MS")),
        "no time-limit report: {n:?}"
    );
    still_usable(&c);
}

#[test]
fn four_mib_of_private_memory_per_work_item_runs() {
    if !setup() {
        return;
    }
    let c = context(4);
    let p = build(
        &c.ctx,
        r#"__kernel void big(__global const int *in, __global int *out) {
            int priv[1 << 20];
            size_t i = get_global_id(0);
            int k = in[i];
            for (int j = 0; j < (1 << 20); j += 4096) priv[j + (k & 7)] = j ^ k;
            int s = 0;
            for (int j = 0; j < (1 << 20); j += 4096) s += priv[j + (k & 7)];
            out[i] = s;
        }"#,
        "",
    );
    let k = p.kernel("big");
    let n = 16;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 3).collect();
    let bin = Buffer::from_slice(&c.ctx, CL_MEM_READ_ONLY, &input);
    let bout = Buffer::new(&c.ctx, CL_MEM_READ_WRITE, n * 4);
    k.buf(0, &bin).buf(1, &bout);
    run_1d(&c.queue, &k, n, Some(4));
    let got: Vec<i32> = bout.read(&c.queue, n);
    let want: Vec<i32> = input
        .iter()
        .map(|&k| {
            (0..(1 << 20))
                .step_by(4096)
                .fold(0i32, |s, j: i32| s.wrapping_add(j ^ k))
        })
        .collect();
    assert_eq!(got, want);
    still_usable(&c);
}

#[test]
fn kernel_needing_more_stack_than_a_thread_can_get_is_refused() {
    if !setup() {
        return;
    }
    let c = context(5);
    let p = build(
        &c.ctx,
        r#"__kernel void huge(__global const int *in, __global int *out) {
            int priv[1 << 26];
            size_t i = get_global_id(0);
            priv[in[i] & ((1 << 26) - 1)] = (int)i;
            out[i] = priv[in[i + 1] & ((1 << 26) - 1)];
        }"#,
        "",
    );
    let k = p.kernel("huge");
    let b = Buffer::new(&c.ctx, CL_MEM_READ_WRITE, 64 * 4);
    k.buf(0, &b).buf(1, &b);
    expect_code(
        enqueue_nd(&c.queue, &k, None, &[4], None)
            .err()
            .unwrap_or(CL_SUCCESS),
        CL_OUT_OF_RESOURCES,
        "clEnqueueNDRangeKernel of a kernel with 256 MiB of private memory per work-item",
    );
    still_usable(&c);
}

fn create_buffer(ctx: &Context, size: usize) -> Result<Buffer, cl_int> {
    let mut rc = 0;
    // SAFETY: a live context, no host pointer.
    let m = unsafe { clCreateBuffer(ctx.raw(), CL_MEM_READ_WRITE, size, ptr::null_mut(), &mut rc) };
    if rc == CL_SUCCESS {
        Ok(Buffer(m))
    } else {
        Err(rc)
    }
}

#[test]
fn buffers_beyond_global_memory_fail_to_allocate() {
    if !setup() {
        return;
    }
    let c = context(6);
    let global: cl_ulong = device_get(CL_DEVICE_GLOBAL_MEM_SIZE);
    let max_alloc: cl_ulong = device_get(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    assert!(max_alloc <= global && max_alloc >= 128 << 20);
    // Never more than the machine has (the device used to report all of it).
    let phys = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(u64::MAX, |kb| kb * 1024);
    assert!(
        global <= phys,
        "global memory {global} above MemTotal {phys}"
    );
    // Lazily mapped: nothing is committed, so this costs nothing whatever the sizes.
    let mut held = Vec::new();
    let mut failure = None;
    for _ in 0..=(global / max_alloc + 1) {
        match create_buffer(&c.ctx, max_alloc as usize) {
            Ok(b) => held.push(b),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    assert_eq!(
        failure,
        Some(CL_MEM_OBJECT_ALLOCATION_FAILURE),
        "{} buffers of {max_alloc} bytes with {global} bytes of global memory",
        held.len()
    );
    assert!(held.len() as u64 * max_alloc <= global);
    drop(held);
    // Freed: a 1 GiB buffer (when the device allows one) is created, uncommitted.
    let size = (1usize << 30).min(max_alloc as usize);
    let b = create_buffer(&c.ctx, size).expect("a large buffer after freeing the others");
    drop(b);
    still_usable(&c);
}

/// The child side of [`faults_outside_kernel_code_reach_the_application`].
extern "C" fn app_handler(_: i32, _: *mut c_void, _: *mut c_void) {
    const MSG: &[u8] = b"application handler\n";
    // SAFETY: write(2) and _exit(2) are async-signal-safe; MSG is a static buffer.
    unsafe {
        libc_write(2, MSG.as_ptr().cast(), MSG.len());
        libc_exit(42);
    }
}

extern "C" {
    #[link_name = "write"]
    fn libc_write(fd: i32, buf: *const c_void, n: usize) -> isize;
    #[link_name = "_exit"]
    fn libc_exit(code: i32) -> !;
    #[link_name = "sigaction"]
    fn libc_sigaction(sig: i32, act: *const SigAction, old: *mut SigAction) -> i32;
}

/// `struct sigaction` of x86-64 Linux glibc.
#[repr(C)]
struct SigAction {
    handler: usize,
    mask: [u64; 16],
    flags: i32,
    restorer: usize,
}

const SIGSEGV: i32 = 11;
const SA_SIGINFO: i32 = 4;

/// A handler the application installed before Ferrite's still gets every fault that is
/// not in a kernel's code, while a kernel's fault is still Ferrite's: run in a child
/// process (this test binary again), which must end through the application's handler.
#[test]
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn faults_outside_kernel_code_reach_the_application() {
    if std::env::var_os("FERRITE_FAULT_CHILD").is_some() {
        let act = SigAction {
            handler: app_handler as *const () as usize,
            mask: [0; 16],
            flags: SA_SIGINFO,
            restorer: 0,
        };
        // SAFETY: a valid sigaction for SIGSEGV; the handler only writes and exits.
        assert_eq!(unsafe { libc_sigaction(SIGSEGV, &act, ptr::null_mut()) }, 0);
        if !setup() {
            // SAFETY: as in the handler.
            unsafe { libc_exit(42) };
        }
        let c = context(7);
        let p = build(
            &c.ctx,
            "__kernel void bad(__global int *p, ulong far) { p[far] = 1; }",
            "",
        );
        let k = p.kernel("bad");
        let b = Buffer::new(&c.ctx, CL_MEM_READ_WRITE, 64);
        let far: u64 = 1 << 34;
        k.buf(0, &b).arg(1, &far);
        let ev = enqueue_nd(&c.queue, &k, None, &[1], None).expect("enqueue");
        assert_eq!(wait_status(&ev), CL_OUT_OF_RESOURCES);
        // A fault in host code: the application's handler ends the process.
        // SAFETY: deliberately invalid; the handler exits before anything else runs.
        unsafe { ptr::write_volatile(16 as *mut i32, 1) };
        unreachable!("the write above faults");
    }
    if !setup() {
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "faults_outside_kernel_code_reach_the_application",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("FERRITE_FAULT_CHILD", "1")
        .output()
        .expect("run the child");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(42),
        "child did not end through its own handler: {:?}\n{stderr}",
        out.status
    );
    assert!(
        stderr.contains("kernel `bad` failed"),
        "the kernel's fault was not Ferrite's: {stderr}"
    );
}
