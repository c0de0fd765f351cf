//! Fault containment: a SIGSEGV, SIGBUS, SIGILL or SIGFPE raised by a kernel's JIT code
//! on a thread running it becomes an error of that launch instead of the end of the
//! process, and a launch over `FERRITE_KERNEL_TIMEOUT_MS` is interrupted the same way.
//!
//! How (wasmtime's older design): every call of a work-group function goes through
//! [`call`], which saves the callee-saved registers and the stack pointer in a *resume
//! point* on the worker's stack (`ferrite_guarded_call`, a few lines of assembly) and
//! publishes it in a thread-local. Between that point and JIT code there are no Rust
//! frames. The process-wide handler looks at the thread-local: when this thread is inside
//! a guarded call and the faulting PC lies in the running kernel's code
//! ([`CompiledKernel::code_contains`]), it records the signal, the address and the PC, and
//! returns into `ferrite_guard_resume` (by editing the signal context, so `sigreturn`
//! restores the signal mask and alternate stack exactly), which restores the saved
//! registers and makes the guarded call return 1. Everything else — a fault in Rust code,
//! in a builtin the kernel called, on another thread — goes to the handler that was
//! installed before Ferrite's (or the default action), as if Ferrite were not there.
//! Every thread that runs kernels gets an alternate signal stack, so a kernel that
//! overflows its stack (Cranelift probes frames larger than a page) is caught too.
//!
//! Time limit: with `FERRITE_KERNEL_TIMEOUT_MS` set, a watchdog thread keeps the deadline
//! of every running launch (counted from when its first work-group started, so waiting
//! for workers busy with another launch does not count); past it, it sets the launch's interrupt flag (workers stop
//! before their next work-group) and sends [`timeout_signal`] to the threads still in the
//! launch every few milliseconds until they have left. The handler treats that signal as
//! a fault when it lands in the kernel's code and ignores it anywhere else (the next one
//! comes a few milliseconds later). Generated code is unchanged: no cost without a limit.
//!
//! Only x86-64 Linux has the resume point for now; elsewhere [`call`] calls the kernel
//! directly and faults behave as before.

use ferrite_compiler::{CompiledKernel, GroupContext, WorkGroupFn};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Why a guarded call did not finish.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrapKind {
    /// A synchronous signal in the kernel's code.
    Signal {
        signo: i32,
        /// `si_addr`: the faulting data address (SIGSEGV/SIGBUS) or instruction; `None`
        /// for a general-protection fault (an address outside the canonical user half
        /// of the address space, say), where the processor reports no address.
        addr: Option<u64>,
    },
    /// The launch ran past `FERRITE_KERNEL_TIMEOUT_MS`.
    Timeout { limit_ms: u64 },
    /// The launch could not start (no thread for its stack, an impossible geometry).
    Refused,
    /// Checked mode (`FERRITE_CHECK`) found an out-of-bounds access or a data race.
    Checked,
}

/// A trap of one guarded call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trap {
    pub kind: TrapKind,
    /// Where the kernel's code was.
    pub pc: u64,
}

impl Trap {
    /// The signal's name and what it usually means in a kernel.
    pub fn describe(&self) -> String {
        match self.kind {
            TrapKind::Signal { signo, addr } => {
                let what = match signo {
                    libc::SIGSEGV => "SIGSEGV (invalid memory access)",
                    libc::SIGBUS => "SIGBUS (bad memory access)",
                    libc::SIGILL => "SIGILL (trap or illegal instruction)",
                    libc::SIGFPE => "SIGFPE (arithmetic trap)",
                    _ => "signal",
                };
                match addr {
                    Some(addr) => format!("{what} at address {addr:#x}, pc {:#x}", self.pc),
                    None => format!(
                        "{what} at an address the processor does not report (a \
                         general-protection fault: outside the process's address space, \
                         for one), pc {:#x}",
                        self.pc
                    ),
                }
            }
            TrapKind::Timeout { limit_ms } => format!(
                "interrupted after FERRITE_KERNEL_TIMEOUT_MS={limit_ms} ms, pc {:#x}",
                self.pc
            ),
            TrapKind::Refused => "the launch could not start".to_string(),
            TrapKind::Checked => "checked mode found an error".to_string(),
        }
    }
}

/// The signal the watchdog interrupts workers with: the fourth real-time signal
/// available to applications. Its handler is installed only when a time limit is set.
pub fn timeout_signal() -> i32 {
    libc::SIGRTMIN() + 3
}

/// `FERRITE_KERNEL_TIMEOUT_MS`: the time limit of one launch, if set (and not 0).
pub fn timeout() -> Option<Duration> {
    static T: OnceLock<Option<Duration>> = OnceLock::new();
    *T.get_or_init(|| {
        std::env::var("FERRITE_KERNEL_TIMEOUT_MS")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|&ms| ms > 0)
            .map(Duration::from_millis)
    })
}

/// `FERRITE_CATCH_FAULTS=0` turns containment off (a debugger then stops at the fault).
fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        cfg!(all(target_arch = "x86_64", target_os = "linux"))
            && std::env::var("FERRITE_CATCH_FAULTS").map_or(true, |v| v != "0")
    })
}

/// Registers saved by `ferrite_guarded_call`: rbx, rbp, r12–r15, rsp.
#[repr(C)]
#[derive(Default)]
struct ResumePoint([u64; 8]);

/// The state of one guarded call, on the calling thread's stack while it runs.
#[repr(C)]
struct Active {
    resume: ResumePoint,
    kernel: *const CompiledKernel,
    /// The launch's interrupt flag (set by the watchdog), or null.
    interrupt: *const AtomicBool,
    /// Filled in by the handler.
    signo: i32,
    addr: u64,
    /// `si_code`: `SI_KERNEL` for a general-protection fault, which has no address.
    code: i32,
    pc: u64,
}

thread_local! {
    /// The guarded call running on this thread, or null.
    static ACTIVE: std::cell::Cell<*mut Active> = const { std::cell::Cell::new(std::ptr::null_mut()) };
    /// This thread has run kernels: a stray timeout signal here is Ferrite's, not the
    /// application's.
    static RUNS_KERNELS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The alternate signal stack Ferrite gave this thread, if it had none.
    static ALT_STACK: std::cell::RefCell<Option<AltStack>> = const { std::cell::RefCell::new(None) };
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
std::arch::global_asm!(
    ".pushsection .text.ferrite_guarded_call,\"ax\",@progbits",
    ".p2align 4",
    ".hidden ferrite_guarded_call",
    ".globl ferrite_guarded_call",
    // rdi: entry, rsi: args, rdx: ctx, rcx: resume point. Returns 0 in eax.
    "ferrite_guarded_call:",
    "mov [rcx], rbx",
    "mov [rcx + 8], rbp",
    "mov [rcx + 16], r12",
    "mov [rcx + 24], r13",
    "mov [rcx + 32], r14",
    "mov [rcx + 40], r15",
    "mov [rcx + 48], rsp",
    "sub rsp, 8",
    "mov rax, rdi",
    "mov rdi, rsi",
    "mov rsi, rdx",
    "call rax",
    "add rsp, 8",
    "xor eax, eax",
    "ret",
    ".hidden ferrite_guard_resume",
    ".globl ferrite_guard_resume",
    // Entered from the signal handler's edited context with rdi: resume point. Returns
    // 1 in eax from `ferrite_guarded_call`'s frame.
    "ferrite_guard_resume:",
    "mov rbx, [rdi]",
    "mov rbp, [rdi + 8]",
    "mov r12, [rdi + 16]",
    "mov r13, [rdi + 24]",
    "mov r14, [rdi + 32]",
    "mov r15, [rdi + 40]",
    "mov rsp, [rdi + 48]",
    "mov eax, 1",
    "ret",
    ".popsection",
);

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
extern "C" {
    fn ferrite_guarded_call(
        entry: WorkGroupFn,
        args: *const u8,
        ctx: *const libc::c_void,
        resume: *mut ResumePoint,
    ) -> u32;
    fn ferrite_guard_resume();
}

/// Call `kernel`'s work-group function `entry` on `args` and `ctx`; a fault in its code,
/// or the timeout signal while `interrupt` is set, ends the call with a [`Trap`].
///
/// # Safety
/// As calling `entry(args, ctx)` directly: `entry` is `kernel`'s work-group function and
/// `args`/`ctx` satisfy its ABI.
pub unsafe fn call(
    kernel: &CompiledKernel,
    entry: WorkGroupFn,
    args: *const u8,
    ctx: *const GroupContext,
    interrupt: Option<&AtomicBool>,
) -> Result<(), Trap> {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    if enabled() {
        prepare_thread();
        let mut active = Active {
            resume: ResumePoint::default(),
            kernel,
            interrupt: interrupt.map_or(std::ptr::null(), |i| i as *const AtomicBool),
            signo: 0,
            addr: 0,
            code: 0,
            pc: 0,
        };
        ACTIVE.with(|a| a.set(&mut active));
        // SAFETY: the caller's contract covers the call of `entry`; `active` outlives the
        // call and is unpublished right after it; `ferrite_guarded_call` follows the C ABI
        // (callee-saved registers restored on both ways out, 16-byte aligned call).
        let trapped = unsafe { ferrite_guarded_call(entry, args, ctx.cast(), &mut active.resume) };
        ACTIVE.with(|a| a.set(std::ptr::null_mut()));
        if trapped == 0 {
            return Ok(());
        }
        let kind = if active.signo == timeout_signal() {
            TrapKind::Timeout {
                limit_ms: timeout().map_or(0, |t| t.as_millis() as u64),
            }
        } else {
            TrapKind::Signal {
                signo: active.signo,
                addr: (active.code != libc::SI_KERNEL).then_some(active.addr),
            }
        };
        return Err(Trap {
            kind,
            pc: active.pc,
        });
    }
    let _ = (kernel, interrupt);
    // SAFETY: the caller's contract.
    unsafe { entry(args, ctx) };
    Ok(())
}

/// Signals handled, and the handlers they had before.
const SIGNALS: [i32; 4] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE];

struct Previous {
    /// In the order of `SIGNALS`, then the timeout signal (if a limit is set).
    actions: Vec<(i32, libc::sigaction)>,
}

static PREVIOUS: OnceLock<Previous> = OnceLock::new();

/// Install the handlers once per process and give this thread an alternate stack.
fn prepare_thread() {
    PREVIOUS.get_or_init(install);
    RUNS_KERNELS.with(|r| r.set(true));
    ALT_STACK.with(|s| {
        let mut s = s.borrow_mut();
        if s.is_none() {
            *s = Some(AltStack::ensure());
        }
    });
}

fn install() -> Previous {
    let mut signals = SIGNALS.to_vec();
    if timeout().is_some() {
        signals.push(timeout_signal());
    }
    let mut actions = Vec::new();
    for sig in signals {
        // SAFETY: `sa` is fully initialised (zeroed, then the fields we use) before
        // `sigaction` reads it; `old` is an out-parameter.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = handler as *const () as usize;
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut sa.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, &sa, &mut old) == 0 {
                actions.push((sig, old));
            }
        }
    }
    Previous { actions }
}

/// The process-wide handler (see the module documentation).
extern "C" fn handler(sig: libc::c_int, info: *mut libc::siginfo_t, uctx: *mut libc::c_void) {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        let active = ACTIVE.with(|a| a.get());
        if !active.is_null() && !uctx.is_null() {
            // SAFETY: the kernel passes a valid `ucontext_t` to an SA_SIGINFO handler;
            // `active` is published by `call` on this very thread and stays valid until
            // the guarded call returns, which cannot happen while this handler runs on it.
            unsafe {
                let uc = &mut *(uctx as *mut libc::ucontext_t);
                let a = &mut *active;
                let pc = uc.uc_mcontext.gregs[libc::REG_RIP as usize] as u64;
                // A fault signal counts only when the kernel raised it (si_code > 0), not
                // when another thread or process sent it (kill, tgkill: si_code <= 0).
                let raised = !info.is_null() && (*info).si_code > 0;
                let ours = (*a.kernel).code_contains(pc)
                    && if sig == timeout_signal() {
                        !a.interrupt.is_null() && (*a.interrupt).load(Ordering::Relaxed)
                    } else {
                        raised
                    };
                if ours {
                    a.signo = sig;
                    a.addr = if sig == timeout_signal() || info.is_null() {
                        0
                    } else {
                        (*info).si_addr() as u64
                    };
                    a.code = if info.is_null() { 0 } else { (*info).si_code };
                    a.pc = pc;
                    uc.uc_mcontext.gregs[libc::REG_RIP as usize] =
                        ferrite_guard_resume as *const () as i64;
                    uc.uc_mcontext.gregs[libc::REG_RDI as usize] =
                        std::ptr::addr_of_mut!(a.resume) as i64;
                    return;
                }
            }
        }
    }
    if sig == timeout_signal() && RUNS_KERNELS.with(|r| r.get()) {
        // A watchdog signal that arrived in Rust code, or after the call ended: the
        // worker sees the interrupt flag before its next group.
        return;
    }
    chain(sig, info, uctx);
}

/// Hand the signal to whatever handled it before Ferrite.
fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, uctx: *mut libc::c_void) {
    let Some(prev) = PREVIOUS
        .get()
        .and_then(|p| p.actions.iter().find(|(s, _)| *s == sig))
        .map(|(_, a)| *a)
    else {
        return;
    };
    // SAFETY: `prev` is the action the system gave us back for `sig`; its handler, if it
    // is one, has the signature its flags say, and gets what the kernel gave us.
    unsafe {
        if prev.sa_sigaction == libc::SIG_DFL || prev.sa_sigaction == libc::SIG_IGN {
            // Put the old disposition back and deliver the signal again: the default
            // action (a core dump for a fault) happens as if Ferrite were not there.
            libc::sigaction(sig, &prev, std::ptr::null_mut());
            libc::raise(sig);
        } else if prev.sa_flags & libc::SA_SIGINFO != 0 {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                std::mem::transmute(prev.sa_sigaction);
            f(sig, info, uctx);
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(prev.sa_sigaction);
            f(sig);
        }
    }
}

/// An alternate signal stack this thread got from Ferrite (none if it had one already).
struct AltStack {
    /// The mapping (guard page first), or null if the thread already had a stack.
    base: *mut libc::c_void,
    len: usize,
}

/// Bytes of alternate stack (plus a guard page): the handler needs very little.
const ALT_STACK_BYTES: usize = 64 << 10;

impl AltStack {
    fn ensure() -> AltStack {
        let none = AltStack {
            base: std::ptr::null_mut(),
            len: 0,
        };
        // SAFETY: `sigaltstack` with a null new stack only reads the current one into
        // `old`; the mapping is ours, and installed only after it succeeded.
        unsafe {
            let mut old: libc::stack_t = std::mem::zeroed();
            if libc::sigaltstack(std::ptr::null(), &mut old) != 0 {
                return none;
            }
            if old.ss_flags & libc::SS_DISABLE == 0 && old.ss_size >= libc::MINSIGSTKSZ {
                return none;
            }
            let page = 4096;
            let len = ALT_STACK_BYTES + page;
            let base = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if base == libc::MAP_FAILED {
                return none;
            }
            libc::mprotect(base, page, libc::PROT_NONE);
            let st = libc::stack_t {
                ss_sp: base.cast::<u8>().add(page).cast(),
                ss_flags: 0,
                ss_size: ALT_STACK_BYTES,
            };
            if libc::sigaltstack(&st, std::ptr::null_mut()) != 0 {
                libc::munmap(base, len);
                return none;
            }
            AltStack { base, len }
        }
    }
}

impl Drop for AltStack {
    fn drop(&mut self) {
        if self.base.is_null() {
            return;
        }
        // SAFETY: the stack is ours (mapped in `ensure`); it is disabled before it is
        // unmapped, and this runs at thread exit, not inside a handler on it.
        unsafe {
            let off = libc::stack_t {
                ss_sp: std::ptr::null_mut(),
                ss_flags: libc::SS_DISABLE,
                ss_size: 0,
            };
            libc::sigaltstack(&off, std::ptr::null_mut());
            libc::munmap(self.base, self.len);
        }
    }
}

/// One launch the watchdog watches: its deadline, its interrupt flag and the threads
/// inside it.
///
/// The time limit counts the launch's running time: the wall time during which at least
/// one thread is inside it (between [`Watch::enter`] and [`Watch::leave`]). A launch whose
/// next chunk of groups waits for workers busy with other launches (an endless kernel of
/// another queue, say) is paused meanwhile, so it is never blamed for their time.
pub struct Watch {
    limit: Duration,
    pub interrupt: AtomicBool,
    state: parking_lot::Mutex<WatchState>,
}

#[derive(Default)]
struct WatchState {
    /// The threads inside the launch.
    threads: Vec<libc::pthread_t>,
    /// Running time of the periods that ended (no thread inside since).
    ran: Duration,
    /// Start of the current period, while a thread is inside.
    since: Option<Instant>,
}

impl Watch {
    /// Register the calling thread as running the launch until [`Watch::leave`].
    pub fn enter(&self) {
        // SAFETY: `pthread_self` has no preconditions.
        let me = unsafe { libc::pthread_self() };
        let resumed = {
            let mut st = self.state.lock();
            st.threads.push(me);
            st.since.is_none() && {
                st.since = Some(Instant::now());
                true
            }
        };
        if resumed {
            // The watchdog may be waiting without this launch's deadline. Notifying under
            // its lock, after the state changed, means its scan either comes after the
            // change or is waiting and wakes up.
            let w = watchdog();
            let _g = w.launches.lock();
            w.changed.notify_all();
        }
    }

    /// When the launch reaches its limit if it keeps running; `None` while it is paused.
    fn deadline(&self) -> Option<Instant> {
        let st = self.state.lock();
        st.since
            .map(|since| since + self.limit.saturating_sub(st.ran))
    }

    /// The calling thread has left the launch.
    pub fn leave(&self) {
        // SAFETY: as in `enter`.
        let me = unsafe { libc::pthread_self() };
        let mut st = self.state.lock();
        if let Some(i) = st.threads.iter().position(|&x| x == me) {
            st.threads.swap_remove(i);
        }
        if st.threads.is_empty() {
            if let Some(since) = st.since.take() {
                st.ran += since.elapsed();
            }
        }
    }
}

/// The launches being watched; the watchdog thread waits on the condition variable.
struct Watchdog {
    launches: parking_lot::Mutex<Vec<Arc<Watch>>>,
    changed: parking_lot::Condvar,
}

fn watchdog() -> &'static Watchdog {
    static W: OnceLock<Watchdog> = OnceLock::new();
    static STARTED: std::sync::Once = std::sync::Once::new();
    let w = W.get_or_init(|| Watchdog {
        launches: parking_lot::Mutex::new(Vec::new()),
        changed: parking_lot::Condvar::new(),
    });
    STARTED.call_once(|| {
        // Without the thread no launch is ever interrupted, but all still run.
        let _ = std::thread::Builder::new()
            .name("ferrite-watchdog".into())
            .spawn(move || watch_loop(w));
    });
    w
}

/// How often the watchdog signals a launch past its deadline until its threads left.
const RESIGNAL: Duration = Duration::from_millis(5);

fn watch_loop(w: &'static Watchdog) {
    let mut g = w.launches.lock();
    loop {
        let now = Instant::now();
        let mut next: Option<Instant> = None;
        for l in g.iter() {
            let Some(deadline) = l.deadline() else {
                continue;
            };
            if now >= deadline {
                l.interrupt.store(true, Ordering::Relaxed);
                let st = l.state.lock();
                for &t in st.threads.iter() {
                    // SAFETY: a registered thread is alive: it unregisters (under this
                    // lock) before it leaves the launch, and the launch's caller waits for
                    // every worker before it unregisters the launch.
                    unsafe { libc::pthread_kill(t, timeout_signal()) };
                }
                next = Some(next.map_or(now + RESIGNAL, |n| n.min(now + RESIGNAL)));
            } else {
                next = Some(next.map_or(deadline, |n| n.min(deadline)));
            }
        }
        match next {
            Some(t) => {
                w.changed.wait_until(&mut g, t);
            }
            None => w.changed.wait(&mut g),
        }
    }
}

/// Watch a launch starting now, if a time limit is set; [`unwatch`] it when it is done.
pub fn watch() -> Option<Arc<Watch>> {
    let limit = timeout()?;
    if !enabled() {
        return None;
    }
    PREVIOUS.get_or_init(install);
    let l = Arc::new(Watch {
        limit,
        interrupt: AtomicBool::new(false),
        state: parking_lot::Mutex::new(WatchState::default()),
    });
    let w = watchdog();
    w.launches.lock().push(l.clone());
    w.changed.notify_all();
    Some(l)
}

/// Stop watching `l` (every thread has left it).
pub fn unwatch(l: &Arc<Watch>) {
    let w = watchdog();
    w.launches.lock().retain(|x| !Arc::ptr_eq(x, l));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_waiting_for_workers_does_not_use_up_its_time() {
        let l = Watch {
            limit: Duration::from_millis(200),
            interrupt: AtomicBool::new(false),
            state: parking_lot::Mutex::new(WatchState::default()),
        };
        assert_eq!(l.deadline(), None, "not started");
        l.enter();
        std::thread::sleep(Duration::from_millis(50));
        l.leave();
        assert_eq!(l.deadline(), None, "paused while no thread is inside");
        let ran = l.state.lock().ran;
        assert!(ran >= Duration::from_millis(50), "{ran:?}");
        // Waiting (another launch holds the workers) costs nothing: the time left when it
        // runs again is the limit less what it ran before.
        std::thread::sleep(Duration::from_millis(300));
        let before = Instant::now();
        l.enter();
        let deadline = l.deadline().expect("running again");
        assert_eq!(l.state.lock().ran, ran);
        let since = l.state.lock().since.expect("a period runs");
        assert!(since >= before);
        assert_eq!(
            deadline,
            since + Duration::from_millis(200).saturating_sub(ran)
        );
        l.leave();
    }
}
