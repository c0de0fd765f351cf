//! The executor: a persistent pool of workers (one per core, `FERRITE_THREADS` overrides)
//! that runs an NDRange as chunks of work-groups with work stealing.
//!
//! One pool serves every queue of every context and both APIs: each queue's thread hands
//! its launch to [`run`], which splits the linear range of work-groups over the pool
//! (rayon's work-stealing deques: an idle worker steals half of a busy one's remaining
//! range, so uneven groups balance themselves) and returns when every group has run.
//! The unit of work is a *chunk*: a run of consecutive groups (about 16 per worker per
//! launch) that one call runs with its arenas looked up and its `GroupContext` built
//! once, only the group id and size changing from group to group.
//! Each worker owns a local-memory arena that grows to the largest launch it has seen and
//! is reused by every group it runs, so a launch allocates nothing per group. Kernels with
//! barriers or work-group collectives also get a *frame arena* per worker:
//! `frame_size_per_item × enqueued work-group size` bytes where each work-item keeps what
//! lives across a barrier (64 KiB of private data at a work-group size of 1024 is a 64 MiB
//! frame: heap, never stack). Frame arenas up to [`KEEP_FRAME_BYTES`] are kept and reused;
//! a larger one is allocated for each chunk and freed after it (untouched pages of a large
//! allocation cost nothing), so an odd launch does not pin memory in every worker.
//!
//! A kernel that calls `printf` gets a per-launch `PrintfBuffer` (in `GroupContext`);
//! its output goes to stdout (or the sink of [`set_printf_sink`]) when the launch
//! completes, in group order then work-item order.
//!
//! A launch of a single work-group runs on the calling thread: waking the pool costs more
//! than it saves there.
//!
//! Every work-group function is called through [`crate::fault::call`]: a fault in the
//! kernel's code (or the time limit) ends that group, the other workers stop before their
//! next group, and [`run`] returns a [`KernelFault`] that names the kernel, the group and
//! the nearest argument. A kernel whose private memory does not fit a worker's stack
//! ([`stack_need`]) runs on threads started for the launch with the stack it needs.

use crate::fault::{self, Trap, TrapKind};
use ferrite_compiler::{spaces, ArgKind, CompiledKernel, GroupContext, PrintfBuffer};
use rayon::prelude::*;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Geometry of one NDRange launch, already validated by the API layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NdRange {
    /// 1, 2 or 3.
    pub work_dim: u32,
    /// Global offset per dimension (0 beyond `work_dim`).
    pub global_offset: [u64; 3],
    /// Global size per dimension (1 beyond `work_dim`).
    pub global_size: [u64; 3],
    /// Enqueued local size per dimension (1 beyond `work_dim`); never 0.
    pub local_size: [u64; 3],
}

impl NdRange {
    /// Number of work-groups per dimension (the last one may be partial).
    pub fn num_groups(&self) -> [u64; 3] {
        std::array::from_fn(|d| self.global_size[d].div_ceil(self.local_size[d].max(1)))
    }

    /// Total number of work-groups.
    pub fn total_groups(&self) -> u64 {
        self.num_groups().iter().product()
    }
}

/// One launch: the kernel, its argument block and local memory needs.
pub struct Launch<'a> {
    pub kernel: &'a CompiledKernel,
    /// The argument block, laid out per `kernel.info.args[i].offset`; `__local` slots
    /// hold offsets into the group's local memory.
    pub args: &'a [u8],
    /// Total bytes of local memory per group: `kernel.static_local_size` + the `__local`
    /// arguments, each placed at the offset written in its slot.
    pub local_mem_size: usize,
    pub range: NdRange,
    /// `(address, size)` of the buffers the arguments point to, when the front end knows
    /// them (for the fault report; USM and SVM allocations are found without it).
    pub extents: &'a [(u64, u64)],
}

impl Launch<'_> {
    /// Bytes of frame per group: `kernel.frame_size_per_item` × the enqueued work-group
    /// size (0 for a kernel without barriers); `None` if that overflows. The API layers
    /// check it against [`crate::kernel::MAX_FRAME_BYTES`] before launching.
    pub fn frame_size(&self) -> Option<usize> {
        let items: u64 = self.range.local_size.iter().product();
        usize::try_from(items)
            .ok()?
            .checked_mul(self.kernel.frame_size_per_item)
    }
}

/// Why a launch did not run every work-group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelFault {
    pub kernel: String,
    /// The work-group that trapped.
    pub group: [u64; 3],
    pub trap: Trap,
    /// The readable report (what goes to stderr and the context's callback).
    pub report: String,
}

impl KernelFault {
    /// A launch refused when it was about to run (no group ran): `why` is the report.
    pub fn refused(kernel: &str, why: &str) -> KernelFault {
        KernelFault {
            kernel: kernel.to_string(),
            group: [u64::MAX; 3],
            trap: Trap {
                kind: TrapKind::Refused,
                pc: 0,
            },
            report: format!("ferrite: kernel `{kernel}` was not run: {why}"),
        }
    }
}

impl std::fmt::Display for KernelFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.report)
    }
}

impl std::error::Error for KernelFault {}

/// Stack each pool worker gets (address space; pages are committed as touched).
pub const WORKER_STACK_BYTES: usize = 8 << 20;

/// Largest stack a launch may ask for (per thread); beyond it the launch fails with
/// `CL_OUT_OF_RESOURCES`.
pub const MAX_STACK_BYTES: usize = 256 << 20;

/// Stack one thread needs to run `kernel`'s work-group function: its private memory (a
/// copy per lane when vectorised) plus room for the calls it makes.
pub fn stack_need(kernel: &CompiledKernel) -> usize {
    kernel
        .private_size
        .saturating_mul(kernel.handler.lanes.max(1) as usize)
        .saturating_add(1 << 20)
}

/// Largest frame arena a worker keeps between groups.
pub const KEEP_FRAME_BYTES: usize = 16 << 20;

/// Number of workers in the pool (`FERRITE_THREADS`, else the number of cores).
pub fn num_workers() -> usize {
    pool().current_num_threads()
}

fn requested_workers() -> usize {
    std::env::var("FERRITE_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        let n = requested_workers();
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .stack_size(WORKER_STACK_BYTES)
            .thread_name(|i| format!("ferrite-worker-{i}"))
            .build()
            // Spawning the workers can only fail when the OS refuses threads; a pool of
            // one (the caller's thread) still runs every kernel.
            .or_else(|_| rayon::ThreadPoolBuilder::new().num_threads(1).build())
            .unwrap_or_else(|e| panic!("ferrite: cannot start any worker thread: {e}"))
    })
}

/// Run `f(0)`, …, `f(parts − 1)` and return when all have: for the commands other than
/// launches that are worth spreading over the cores (large fills and copies).
///
/// The calling thread takes parts too, and the pool's workers help: each part goes to
/// whoever claims it first. Workers idle between launches take theirs at once; workers
/// busy with (or waiting in) another queue's kernel take none, and the caller runs every
/// part itself, so a command never waits for the pool.
pub fn run_parts(parts: usize, f: impl Fn(usize) + Sync) {
    use std::sync::atomic::AtomicUsize;
    /// What the caller and its helpers share.
    struct Parts {
        /// The next part to claim (a claim at or past `parts` does nothing).
        next: AtomicUsize,
        /// Parts run to their end.
        done: AtomicUsize,
        parts: usize,
        /// The caller's `f`, its lifetime erased (see below).
        f: *const (dyn Fn(usize) + Sync),
    }
    // SAFETY: `f` is `Sync` (shared by reference between threads); it is only called
    // while the caller waits (below).
    unsafe impl Send for Parts {}
    // SAFETY: as above.
    unsafe impl Sync for Parts {}
    impl Parts {
        /// Run parts until none is left to claim.
        fn work(&self) {
            loop {
                let i = self.next.fetch_add(1, Ordering::Relaxed);
                if i >= self.parts {
                    return;
                }
                // Counted when it ends, even by unwinding.
                let _done = Done(&self.done);
                // SAFETY: part `i` was claimed here, before `done` counts it, so the
                // caller is still in `run_parts` and `f` is alive.
                unsafe { (*self.f)(i) };
            }
        }
    }
    struct Done<'a>(&'a AtomicUsize);
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Release);
        }
    }
    /// Keeps the caller in `run_parts` until every claimed part has ended, also when its
    /// own part unwinds: no part is claimed after this, and `f` outlives the others.
    struct Wait<'a>(&'a Parts);
    impl Drop for Wait<'_> {
        fn drop(&mut self) {
            let claimed = self.0.next.swap(usize::MAX / 2, Ordering::Relaxed);
            while self.0.done.load(Ordering::Acquire) < claimed.min(self.0.parts) {
                std::thread::yield_now();
            }
        }
    }
    let f: &(dyn Fn(usize) + Sync) = &f;
    // SAFETY: lifetime erasure only. A helper calls `f` only for a part it claimed, and
    // the caller leaves only after every claimed part has ended (`Wait`): helpers that
    // start later claim nothing and never touch `f`.
    let f: &'static (dyn Fn(usize) + Sync) = unsafe { std::mem::transmute(f) };
    let shared = Arc::new(Parts {
        next: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
        parts,
        f,
    });
    let _wait = Wait(&shared);
    for _ in 1..parts {
        let s = shared.clone();
        pool().spawn(move || s.work());
    }
    shared.work();
}

/// Local memory of one worker: 128-byte aligned blocks, grown on demand, never shrunk.
/// Registered as local memory for the generic casts (`ferrite_compiler::spaces`).
#[derive(Default)]
struct LocalArena {
    blocks: Vec<Block>,
    registered: Option<spaces::Registered>,
}

#[derive(Clone, Copy)]
#[repr(C, align(128))]
struct Block([u8; 128]);

impl LocalArena {
    fn base(&mut self, bytes: usize) -> *mut u8 {
        let need = bytes.div_ceil(128).max(1);
        if self.blocks.len() < need || self.registered.is_none() {
            self.blocks
                .resize(need.max(self.blocks.len()), Block([0; 128]));
            let lo = self.blocks.as_ptr() as u64;
            self.registered = None;
            self.registered = Some(spaces::register(
                lo,
                lo + (self.blocks.len() * 128) as u64,
                spaces::Space::Local,
            ));
        }
        self.blocks.as_mut_ptr().cast()
    }
}

/// A worker's frame arena: 128-byte aligned, uninitialised (only JIT code reads it, and
/// it writes every frame slot before reading it).
/// Registered as private memory (work-items' private variables live there).
struct FrameArena {
    ptr: *mut u8,
    layout: std::alloc::Layout,
    _registered: spaces::Registered,
}

impl FrameArena {
    fn new(bytes: usize) -> Option<FrameArena> {
        let layout = std::alloc::Layout::from_size_align(bytes.max(128), 128).ok()?;
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe { std::alloc::alloc(layout) };
        (!ptr.is_null()).then(|| FrameArena {
            ptr,
            layout,
            _registered: spaces::register(
                ptr as u64,
                ptr as u64 + layout.size() as u64,
                spaces::Space::Private,
            ),
        })
    }
}

/// The current thread's stack, `[lo, hi)`, from pthreads.
fn thread_stack() -> Option<(u64, u64)> {
    // SAFETY: `attr` is initialised by `pthread_getattr_np` before it is read and
    // destroyed once; `addr` and `size` are plain out-parameters.
    unsafe {
        let mut attr = std::mem::MaybeUninit::<libc::pthread_attr_t>::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), attr.as_mut_ptr()) != 0 {
            return None;
        }
        let mut addr = std::ptr::null_mut();
        let mut size = 0usize;
        let r = libc::pthread_attr_getstack(attr.as_ptr(), &mut addr, &mut size);
        libc::pthread_attr_destroy(attr.as_mut_ptr());
        (r == 0).then(|| (addr as u64, addr as u64 + size as u64))
    }
}

impl Drop for FrameArena {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout, freed once.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) };
    }
}

thread_local! {
    /// This thread's stack, registered as private memory while the thread runs kernels
    /// (work-items' private variables live there), unregistered when it exits.
    static STACK: Option<spaces::Registered> =
        thread_stack().map(|(lo, hi)| spaces::register(lo, hi, spaces::Space::Private));
    static ARENA: RefCell<LocalArena> = RefCell::new(LocalArena::default());
    static FRAMES: RefCell<Option<FrameArena>> = const { RefCell::new(None) };
}

/// Run `f` with a frame arena of at least `bytes` bytes (null when `bytes` is 0).
fn with_frame<R>(bytes: usize, f: impl FnOnce(*mut u8) -> R) -> R {
    if bytes == 0 {
        return f(std::ptr::null_mut());
    }
    if bytes > KEEP_FRAME_BYTES {
        let Some(arena) = FrameArena::new(bytes) else {
            std::alloc::handle_alloc_error(
                std::alloc::Layout::from_size_align(bytes, 128)
                    .unwrap_or(std::alloc::Layout::new::<u8>()),
            );
        };
        return f(arena.ptr);
    }
    FRAMES.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.as_ref().is_none_or(|a| a.layout.size() < bytes) {
            *slot = None;
            *slot = FrameArena::new(bytes.max(64 << 10));
        }
        match slot.as_ref() {
            Some(a) => f(a.ptr),
            None => std::alloc::handle_alloc_error(
                std::alloc::Layout::from_size_align(bytes, 128)
                    .unwrap_or(std::alloc::Layout::new::<u8>()),
            ),
        }
    })
}

/// A pool of its own for a sub-device: `n` workers, so a sub-device's kernels use only
/// its share of the cores. The root device uses the global pool.
pub struct Pool(rayon::ThreadPool);

impl Pool {
    /// Start a pool of `n` workers (at least 1).
    pub fn new(n: usize) -> Option<Pool> {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .stack_size(WORKER_STACK_BYTES)
            .thread_name(|i| format!("ferrite-subdevice-worker-{i}"))
            .build()
            .ok()
            .map(Pool)
    }
}

/// Run every work-group of `launch`, returning when all are done, or when one trapped
/// (and every worker has stopped). Safe to call from many threads at once (each queue's
/// thread calls it).
pub fn run(launch: &Launch<'_>) -> Result<(), KernelFault> {
    run_on(pool(), launch, false)
}

/// [`run`] on a sub-device's own pool.
pub fn run_in(p: &Pool, launch: &Launch<'_>) -> Result<(), KernelFault> {
    run_on(&p.0, launch, false)
}

/// [`run`] for a cooperative launch (Level-Zero's): every work-group on a thread of its
/// own, all started at once, so groups may wait for each other through global memory.
/// The front end keeps the group count within [`max_cooperative_groups`].
pub fn run_cooperative(launch: &Launch<'_>) -> Result<(), KernelFault> {
    run_on(pool(), launch, true)
}

/// The most work-groups a cooperative launch may have: one per compute unit, so that
/// groups waiting for each other do not compete for more cores than there are.
pub fn max_cooperative_groups() -> u32 {
    u32::try_from(num_workers()).unwrap_or(u32::MAX).max(1)
}

/// What the workers of one launch share: the stop flag and the first trap.
struct Outcome {
    stop: AtomicBool,
    first: parking_lot::Mutex<Option<(Trap, [u64; 3])>>,
    watch: Option<Arc<fault::Watch>>,
    /// Checked mode: the launch's state (`crate::check`).
    check: Option<ferrite_compiler::check::CheckLaunch>,
}

impl Outcome {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
            || self
                .watch
                .as_ref()
                .is_some_and(|w| w.interrupt.load(Ordering::Relaxed))
    }
}

fn run_on(
    pool: &rayon::ThreadPool,
    launch: &Launch<'_>,
    cooperative: bool,
) -> Result<(), KernelFault> {
    let asked = launch.range;
    let batched;
    let launch = match batches(launch).filter(|_| !cooperative) {
        Some(range) => {
            batched = Launch { range, ..*launch };
            &batched
        }
        None => launch,
    };
    let outcome = Outcome {
        stop: AtomicBool::new(false),
        first: parking_lot::Mutex::new(None),
        watch: fault::watch(),
        check: crate::check::launch_state(launch),
    };
    if launch.kernel.uses_printf {
        // `printf` output is collected per launch and printed when the kernel completes.
        let buffer = PrintfBuffer::new(crate::device::PRINTF_BUFFER_SIZE);
        run_groups(pool, launch, &buffer, &outcome, cooperative);
        flush_printf(&buffer.take_output());
    } else {
        run_groups(pool, launch, std::ptr::null(), &outcome, cooperative);
    }
    if let Some(w) = &outcome.watch {
        fault::unwatch(w);
    }
    let first = outcome.first.lock().take();
    let checked = outcome
        .check
        .as_ref()
        .map(|c| c.take_reports())
        .unwrap_or_default();
    if first.is_none() && !checked.is_empty() {
        return Err(KernelFault {
            kernel: launch.kernel.info.name.clone(),
            group: [u64::MAX; 3],
            trap: Trap {
                kind: TrapKind::Checked,
                pc: 0,
            },
            report: checked.join("\n"),
        });
    }
    let (trap, group) = match first {
        Some(f) => f,
        // Interrupted between groups: no group trapped, some never ran.
        None if outcome.stopped() => (
            Trap {
                kind: TrapKind::Timeout {
                    limit_ms: fault::timeout().map_or(0, |t| t.as_millis() as u64),
                },
                pc: 0,
            },
            [u64::MAX; 3],
        ),
        None => return Ok(()),
    };
    // In groups of the executor's own, the application's groups the trapping one covered.
    let (group, last) = match group[0] != u64::MAX && asked != launch.range {
        true => asked_groups(&asked, &launch.range, group),
        false => (group, group),
    };
    let report = report(launch, &trap, group, last);
    Err(KernelFault {
        kernel: launch.kernel.info.name.clone(),
        group,
        trap,
        report,
    })
}

/// The first and last of the application's groups (of `asked`) that group `g` of `ran`
/// (the same global range cut by [`batches`]) covers.
fn asked_groups(asked: &NdRange, ran: &NdRange, g: [u64; 3]) -> ([u64; 3], [u64; 3]) {
    let first = std::array::from_fn(|d| g[d] * ran.local_size[d] / asked.local_size[d].max(1));
    let last = std::array::from_fn(|d| {
        let end = ((g[d] + 1) * ran.local_size[d])
            .min(ran.global_size[d])
            .max(1);
        (end - 1) / asked.local_size[d].max(1)
    });
    (first, last)
}

/// The fault report: kernel, work-group (or the application's groups `group` to `last` run
/// together), what happened, and the argument buffer nearest
/// below the faulting address with the offset into it.
fn report(launch: &Launch<'_>, trap: &Trap, group: [u64; 3], last: [u64; 3]) -> String {
    let k = &launch.kernel.info;
    let mut r = format!("ferrite: kernel `{}` ", k.name);
    if trap.kind == TrapKind::Refused {
        r.push_str(&format!(
            "could not start: no thread with the {} MiB of stack it needs",
            stack_need(launch.kernel) >> 20
        ));
        return r;
    }
    if group[0] == u64::MAX {
        r.push_str("was stopped between work-groups: ");
    } else if last != group {
        // (Run as one: see `batches`.)
        r.push_str(&format!(
            "failed in work-groups ({}, {}, {}) to ({}, {}, {}), run together: ",
            group[0], group[1], group[2], last[0], last[1], last[2]
        ));
    } else {
        r.push_str(&format!(
            "failed in work-group ({}, {}, {}): ",
            group[0], group[1], group[2]
        ));
    }
    r.push_str(&trap.describe());
    let TrapKind::Signal {
        addr: Some(addr),
        signo,
    } = trap.kind
    else {
        return r;
    };
    if signo != libc::SIGSEGV && signo != libc::SIGBUS {
        return r;
    }
    let mut nearest: Option<(usize, &str, u64)> = None;
    for (i, a) in k.args.iter().enumerate() {
        if !matches!(a.kind, ArgKind::Buffer { .. }) {
            continue;
        }
        let Some(slot) = launch.args.get(a.offset..a.offset + 8) else {
            continue;
        };
        let base = u64::from_ne_bytes(slot.try_into().unwrap_or([0; 8]));
        if base != 0 && base <= addr && nearest.is_none_or(|(_, _, b)| base > b) {
            nearest = Some((i, &a.name, base));
        }
    }
    if let Some((i, name, base)) = nearest {
        let size = launch
            .extents
            .iter()
            .find(|(b, _)| *b == base)
            .map(|&(_, s)| s)
            .or_else(|| {
                crate::usm::find(base as usize)
                    .filter(|a| a.base as u64 == base)
                    .map(|a| a.size as u64)
            });
        let name = if name.is_empty() {
            String::new()
        } else {
            format!(" `{name}`")
        };
        r.push_str(&format!(
            "; nearest argument buffer below it: argument #{i}{name} at {base:#x}"
        ));
        match size {
            Some(size) => r.push_str(&format!(
                " ({size} bytes), offset {} ({})",
                addr - base,
                if addr - base >= size {
                    format!("{} bytes past its end", addr - base - size)
                } else {
                    "inside it".to_string()
                }
            )),
            None => r.push_str(&format!(", offset {}", addr - base)),
        }
    }
    r
}

fn run_groups(
    pool: &rayon::ThreadPool,
    launch: &Launch<'_>,
    printf: *const PrintfBuffer,
    outcome: &Outcome,
    cooperative: bool,
) {
    // Raw pointers are not `Sync`; the buffer behind this one is (a mutex), and it outlives
    // every group of the launch.
    let printf = printf as usize;
    let total = launch.range.total_groups();
    if total == 0 {
        return;
    }
    let need = stack_need(launch.kernel);
    if cooperative {
        // A thread per group: no group waits behind another on one thread.
        let threads = usize::try_from(total).unwrap_or(usize::MAX);
        run_on_own_threads(
            threads,
            need.max(WORKER_STACK_BYTES),
            launch,
            printf,
            outcome,
        );
        return;
    }
    if need > WORKER_STACK_BYTES / 2 {
        run_on_own_threads(pool.current_num_threads(), need, launch, printf, outcome);
        return;
    }
    if total == 1 {
        run_groups_in(launch, 0..1, printf, outcome);
        return;
    }
    // Enough chunks per worker that stealing can even out uneven groups, big enough that
    // the per-chunk cost of the deque stays invisible; each chunk is a range of groups run
    // by one call (arenas and context set up once per chunk, not per group).
    // (Group counts are bounded by the device's address space, so they fit a usize.)
    let total = total as usize;
    let chunk = (total / (pool.current_num_threads() * 16)).max(1);
    let chunks = total.div_ceil(chunk);
    pool.install(|| {
        (0..chunks).into_par_iter().for_each(|c| {
            let start = (c * chunk) as u64;
            let end = ((c + 1) * chunk).min(total) as u64;
            run_groups_in(launch, start..end, printf, outcome);
        });
    });
}

/// Run a kernel whose stack need exceeds the workers' on `n` threads started for this
/// launch with `stack` bytes of stack each, taking groups one at a time.
fn run_on_own_threads(
    n: usize,
    stack: usize,
    launch: &Launch<'_>,
    printf: usize,
    outcome: &Outcome,
) {
    let total = launch.range.total_groups();
    let next = AtomicUsize::new(0);
    let n = (n as u64).min(total).max(1) as usize;
    std::thread::scope(|s| {
        let mut started = 0;
        for i in 0..n {
            let next = &next;
            let ok = std::thread::Builder::new()
                .name(format!("ferrite-big-stack-{i}"))
                .stack_size(stack)
                .spawn_scoped(s, move || loop {
                    let g = next.fetch_add(1, Ordering::Relaxed) as u64;
                    if g >= total || outcome.stopped() {
                        break;
                    }
                    run_groups_in(launch, g..g + 1, printf, outcome);
                })
                .is_ok();
            started += usize::from(ok);
        }
        if started == 0 {
            // No thread for it: the launch fails like a fault would.
            *outcome.first.lock() = Some((
                Trap {
                    kind: TrapKind::Refused,
                    pc: 0,
                },
                [u64::MAX; 3],
            ));
            outcome.stop.store(true, Ordering::Relaxed);
        }
    });
}

/// Where kernel `printf` output goes (stdout unless a test redirected it).
type PrintfSink = Box<dyn Fn(&[u8]) + Send + Sync>;

static PRINTF_SINK: parking_lot::Mutex<Option<PrintfSink>> = parking_lot::Mutex::new(None);

/// Send kernel `printf` output to `sink` instead of stdout (`None` restores stdout).
/// Output is handed over once per launch, when the kernel completes.
pub fn set_printf_sink(sink: Option<PrintfSink>) {
    *PRINTF_SINK.lock() = sink;
}

/// Print one launch's `printf` output: to the sink, or to stdout after whatever the
/// application's C stdio still buffers (so a host `printf` before the launch comes first).
fn flush_printf(text: &[u8]) {
    if text.is_empty() {
        return;
    }
    if let Some(sink) = PRINTF_SINK.lock().as_ref() {
        sink(text);
        return;
    }
    use std::io::Write;
    // SAFETY: `fflush(NULL)` flushes every C output stream; it takes no pointer we own.
    unsafe { libc::fflush(std::ptr::null_mut()) };
    let mut out = std::io::stdout().lock();
    // Nothing to report to: the spec gives kernel printf no error path.
    let _ = out.write_all(text);
    let _ = out.flush();
}

/// Run the work-groups numbered `groups` (linear, x fastest) on the current thread, with
/// this thread's arenas and one `GroupContext` updated from group to group.
fn run_groups_in(
    launch: &Launch<'_>,
    groups: std::ops::Range<u64>,
    printf: usize,
    outcome: &Outcome,
) {
    if outcome.stopped() {
        return;
    }
    let range = &launch.range;
    let num_groups = range.num_groups();
    let start = groups.start;
    let mut group_id = [
        start % num_groups[0],
        (start / num_groups[0]) % num_groups[1],
        start / (num_groups[0] * num_groups[1]),
    ];
    // An overflowing size was refused when the launch was built; `usize::MAX` would fail
    // the allocation (and abort) rather than run with a short arena.
    let frame_size = launch.frame_size().unwrap_or(usize::MAX);
    let entry = launch.kernel.entry();
    STACK.with(|_| {});
    let interrupt = outcome.watch.as_ref().map(|w| {
        w.enter();
        &w.interrupt
    });
    with_frame(frame_size, |frame| {
        ARENA.with(|arena| {
            let mut arena = arena.borrow_mut();
            let mut ctx = GroupContext {
                global_size: range.global_size,
                global_offset: range.global_offset,
                enqueued_local_size: range.local_size,
                local_size: range.local_size,
                num_groups,
                group_id,
                work_dim: u64::from(range.work_dim),
                local_mem: arena.base(launch.local_mem_size),
                frame,
                local_mem_size: launch.local_mem_size as u64,
                printf: printf as *const PrintfBuffer,
                check: outcome
                    .check
                    .as_ref()
                    .map_or(std::ptr::null(), |c| c as *const _),
            };
            for _ in groups {
                if outcome.stopped() {
                    break;
                }
                ctx.group_id = group_id;
                ctx.local_size = std::array::from_fn(|d| {
                    let start = group_id[d] * range.local_size[d];
                    range.local_size[d].min(range.global_size[d] - start)
                });
                // SAFETY: `entry` is a work-group function produced by the compiler for this
                // kernel, which reads `args` per the kernel's argument layout (the runtime
                // built the block from that layout and validated every buffer it points to)
                // and `ctx`, which lives for the call; the local memory behind
                // `ctx.local_mem` is this thread's arena, at least `local_mem_size` bytes,
                // used by no one else meanwhile; `ctx.frame` is this thread's frame arena of
                // at least `frame_size` bytes (`frame_size_per_item` × the enqueued group
                // size, checked by the runtime when it built the launch), 128-byte aligned,
                // also used by this call alone; `ctx.printf` is null or the launch's buffer,
                // alive until `run_on` returns.
                let r = unsafe {
                    fault::call(launch.kernel, entry, launch.args.as_ptr(), &ctx, interrupt)
                };
                if let Err(trap) = r {
                    let mut first = outcome.first.lock();
                    if first.is_none() {
                        *first = Some((trap, group_id));
                    }
                    outcome.stop.store(true, Ordering::Relaxed);
                    break;
                }
                // Next group, x fastest.
                group_id[0] += 1;
                if group_id[0] == num_groups[0] {
                    group_id[0] = 0;
                    group_id[1] += 1;
                    if group_id[1] == num_groups[1] {
                        group_id[1] = 0;
                        group_id[2] += 1;
                    }
                }
            }
        })
    });
    if let Some(w) = &outcome.watch {
        w.leave();
    }
}

/// Whether `kernel`'s work-items never meet: no barrier or collective (no frame per
/// work-item), no `__local` memory of its own or as an argument. Its work-groups are then
/// only batches, and a NULL local size may make them large.
pub fn items_independent(kernel: &CompiledKernel) -> bool {
    kernel.frame_size_per_item == 0
        && kernel.static_local_size == 0
        && !kernel
            .info
            .args
            .iter()
            .any(|a| matches!(a.kind, ArgKind::Local))
}

/// Groups of the runtime's own choosing, for a kernel that cannot tell them from the
/// application's: it reads no group geometry and works on no group
/// (`CompiledKernel::group_blind`), and its work-items never meet ([`items_independent`]).
/// Its groups are re-cut as for a NULL local size ([`pick_local_size`]) when they would
/// leave its vector loop partly idle (rows not a multiple of its lanes: a kernel of 16
/// lanes ran groups of 8 work-items in its 4-lane loop, at a third of the speed) or are
/// under 64 work-items (a work-group function call each). Global ids, sizes and offset
/// stay as they are. Not in checked mode, whose reports name the application's groups,
/// nor for a kernel that prints, whose output comes in the application's group order.
fn batches(launch: &Launch<'_>) -> Option<NdRange> {
    let k = launch.kernel;
    if !k.group_blind
        || !items_independent(k)
        || k.uses_printf
        || ferrite_compiler::check::mode().any()
    {
        return None;
    }
    let r = launch.range;
    let lanes = u64::from(k.handler.lanes.max(1));
    let items: u64 = r.local_size.iter().product();
    if r.local_size[0].is_multiple_of(lanes) && items >= 64 {
        return None;
    }
    let mut local = pick_local_size(&r, crate::device::MAX_WORK_GROUP_SIZE as u64, true, true);
    // Rows of whole vector iterations where a row is not the whole range (the last group
    // may be partial: the kernel cannot tell).
    if local[0] < r.global_size[0] && !local[0].is_multiple_of(lanes) {
        local[0] = (local[0] / lanes).max(1) * lanes;
    }
    (local != r.local_size).then_some(NdRange {
        local_size: local,
        ..r
    })
}

/// Choose a local size when the application passes NULL. In each dimension it takes the
/// largest divisor of the global size that fits what is left of the budget, so the groups
/// are uniform; when that divisor is poor (a prime global size) and `allow_non_uniform`,
/// it takes the budget itself and lets the last group be partial.
///
/// The budget is 256 work-items, big enough to amortise the per-group cost and small
/// enough that the work-item frames of a kernel with barriers stay in cache. For a kernel
/// whose work-items are independent ([`items_independent`]) it grows with the NDRange, up
/// to 2048 while there are still 64 groups to share out: each group is one call of the
/// work-group function, and on a streaming kernel over 16M floats that call cost a
/// quarter of the time at 256 (a copy: 5.0 ms at 256, 4.4 at 1024, 3.9 at 2048 and 4096;
/// kernels calling vector math were 5-10% slower at 4096 than at 1024 or 2048).
pub fn pick_local_size(
    range: &NdRange,
    max_work_group_size: u64,
    allow_non_uniform: bool,
    independent: bool,
) -> [u64; 3] {
    const TARGET: u64 = 256;
    const INDEPENDENT_MAX: u64 = 2048;
    const MIN_GROUPS: u64 = 64;
    let dims = range.work_dim.clamp(1, 3) as usize;
    let target = if independent {
        let items = range.global_size[..dims]
            .iter()
            .fold(1u64, |n, &g| n.saturating_mul(g.max(1)));
        (items / MIN_GROUPS).clamp(TARGET, INDEPENDENT_MAX)
    } else {
        TARGET
    };
    let mut budget = max_work_group_size.clamp(1, target);
    let mut local = [1u64; 3];
    for (l, &global) in local.iter_mut().zip(&range.global_size).take(dims) {
        let global = global.max(1);
        let limit = budget.min(global);
        let divisor = largest_divisor_at_most(global, limit);
        *l = if allow_non_uniform && divisor * 8 < limit {
            limit
        } else {
            divisor
        };
        budget /= *l;
        if budget <= 1 {
            break;
        }
    }
    local
}

fn largest_divisor_at_most(n: u64, limit: u64) -> u64 {
    (1..=limit.max(1))
        .rev()
        .find(|&d| n.is_multiple_of(d))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(work_dim: u32, global_size: [u64; 3]) -> NdRange {
        NdRange {
            work_dim,
            global_offset: [0; 3],
            global_size,
            local_size: [1; 3],
        }
    }

    #[test]
    fn picks_divisors_within_budget() {
        assert_eq!(
            pick_local_size(&range(1, [1024, 1, 1]), 4096, false, false),
            [256, 1, 1]
        );
        assert_eq!(
            pick_local_size(&range(1, [100, 1, 1]), 4096, false, false),
            [100, 1, 1]
        );
        assert_eq!(
            pick_local_size(&range(2, [64, 64, 1]), 4096, false, false),
            [64, 4, 1]
        );
        assert_eq!(
            pick_local_size(&range(3, [3, 5, 7]), 4096, false, false),
            [3, 5, 7]
        );
        assert_eq!(
            pick_local_size(&range(1, [1024, 1, 1]), 16, false, false),
            [16, 1, 1]
        );
    }

    #[test]
    fn independent_work_items_get_groups_growing_with_the_range() {
        // 64 groups at least, between 256 and 2048 work-items each.
        let pick = |dim, g| pick_local_size(&range(dim, g), 4096, false, true);
        assert_eq!(pick(1, [1 << 24, 1, 1]), [2048, 1, 1]);
        assert_eq!(pick(1, [1 << 16, 1, 1]), [1024, 1, 1]);
        assert_eq!(pick(1, [4096, 1, 1]), [256, 1, 1]);
        assert_eq!(pick(2, [2048, 2048, 1]), [2048, 1, 1]);
        assert_eq!(pick(2, [512, 512, 1]), [512, 4, 1]);
        // The kernel's own limit still bounds it.
        assert_eq!(
            pick_local_size(&range(1, [1 << 24, 1, 1]), 1024, false, true),
            [1024, 1, 1]
        );
    }

    #[test]
    fn prime_sizes_go_non_uniform_only_when_allowed() {
        assert_eq!(
            pick_local_size(&range(1, [1009, 1, 1]), 4096, false, false),
            [1, 1, 1]
        );
        assert_eq!(
            pick_local_size(&range(1, [1009, 1, 1]), 4096, true, false),
            [256, 1, 1]
        );
    }

    #[test]
    fn group_counts_round_up() {
        let r = NdRange {
            work_dim: 2,
            global_offset: [0; 3],
            global_size: [10, 7, 1],
            local_size: [4, 3, 1],
        };
        assert_eq!(r.num_groups(), [3, 3, 1]);
        assert_eq!(r.total_groups(), 9);
    }

    /// Parts run to the end while every worker of the pool is held by other work (a
    /// kernel of another queue waiting for something): the caller takes them all.
    #[test]
    fn parts_run_while_every_worker_is_busy() {
        let release = Arc::new(AtomicBool::new(false));
        let held = Arc::new(AtomicUsize::new(0));
        let n = num_workers();
        for _ in 0..n {
            let (release, held) = (release.clone(), held.clone());
            pool().spawn(move || {
                held.fetch_add(1, Ordering::SeqCst);
                while !release.load(Ordering::SeqCst) {
                    std::thread::yield_now();
                }
            });
        }
        while held.load(Ordering::SeqCst) < n {
            std::thread::yield_now();
        }
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let ran: Vec<AtomicBool> = (0..8).map(|_| AtomicBool::new(false)).collect();
            run_parts(8, |i| ran[i].store(true, Ordering::SeqCst));
            let _ = tx.send(ran.iter().all(|r| r.load(Ordering::SeqCst)));
        });
        // Generous: a pool-bound version never returns at all.
        let all = rx.recv_timeout(std::time::Duration::from_secs(60));
        release.store(true, Ordering::SeqCst);
        assert_eq!(all, Ok(true));
    }
}
