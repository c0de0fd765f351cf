//! Checked mode (`FERRITE_CHECK=bounds,races`): the run-time half.
//!
//! With checked mode on, the translator (`codegen/check.rs`) puts a check before every
//! load, store and memory copy of the scalar shapes (the vectoriser is off). An access
//! through a pointer known at compile time to point into one variable (private,
//! `__local`, program scope) is compared inline against that variable's extent; any other
//! access calls [`ferrite_check`], which finds the allocation the address lies in: an
//! argument's buffer (with its SVM/USM allocation), one `__local` argument's or variable's
//! part of the group's local memory, the work-item's own stack or frame, program-scope
//! memory, or an SVM/USM allocation the runtime knows. `__local` accesses also go through
//! a race detector: a shadow of the group's local memory keeps, per 4 bytes, the last
//! writer and the last reader with their *epoch* (the number of work-group barriers that
//! work-item has passed); an access by another work-item in the same epoch, at least one
//! of them a write, is a race.
//!
//! A failed check records one report per site (kernel, what was accessed, offset,
//! work-item) in the launch's [`CheckLaunch`], and the access goes to a scratch area
//! instead, so the kernel goes on without corrupting memory. The runtime builds a
//! [`CheckLaunch`] for each launch, passes it in [`crate::GroupContext::check`] and fails
//! the command when a report was made.

use crate::GroupContext;
use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// What checked mode checks (`FERRITE_CHECK`, a comma-separated list: `bounds`, `races`,
/// `all`; `0` or empty for none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mode {
    pub bounds: bool,
    pub races: bool,
}

impl Mode {
    /// Parse a `FERRITE_CHECK` value.
    pub fn parse(s: &str) -> Mode {
        let mut m = Mode::default();
        for w in s.split([',', ' ', '+']).map(str::trim) {
            match w.to_ascii_lowercase().as_str() {
                "bounds" => m.bounds = true,
                "races" => m.races = true,
                "all" | "1" => {
                    m.bounds = true;
                    m.races = true;
                }
                _ => {}
            }
        }
        m
    }

    /// Anything on.
    pub fn any(&self) -> bool {
        self.bounds || self.races
    }
}

/// The process's checked mode, read once from `FERRITE_CHECK`.
pub fn mode() -> Mode {
    static M: OnceLock<Mode> = OnceLock::new();
    *M.get_or_init(|| std::env::var("FERRITE_CHECK").map_or(Mode::default(), |v| Mode::parse(&v)))
}

/// Bytes of the scratch area a failed access goes to; a larger access is not redirected.
const SCRATCH_BYTES: usize = 4096;

/// The most reports one launch keeps.
const MAX_REPORTS: usize = 64;

/// What one checked access site reads or writes through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A variable known at compile time: `what` names it (e.g. "private variable `a`"),
    /// `size` is its extent; the check's `aux` is its base address.
    Var { what: String, size: u64 },
    /// Found at run time from the address; `aux` is the work-item record.
    Dynamic,
}

/// One access site of a compiled kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    pub write: bool,
    pub target: Target,
}

/// What a compiled kernel tells the runtime for checked mode.
#[derive(Clone, Debug, Default)]
pub struct KernelCheck {
    pub mode: Mode,
    /// Indexed by the site number JIT code passes.
    pub sites: Vec<Site>,
    /// The kernel's own `__local` variables: (offset in local memory, size, name).
    pub local_vars: Vec<(u64, u64, String)>,
    /// Program-scope memory `[lo, hi)`.
    pub program: (u64, u64),
}

/// One range an argument makes reachable.
#[derive(Clone, Debug)]
pub struct ArgRange {
    pub lo: u64,
    pub hi: u64,
    /// E.g. "argument #1 `out`".
    pub what: String,
    /// Where offsets are counted from (the pointer the argument holds).
    pub origin: u64,
}

/// A finder of SVM/USM allocations by address: `(base, size)`.
pub type AllocFinder = Box<dyn Fn(u64) -> Option<(u64, u64)> + Send + Sync>;

/// One launch's checked-mode state, built by the runtime. JIT code reads `table` (the
/// first field, at offset 0): the address of one `[lo, hi)` pair per kernel argument,
/// what a `__global`/`__constant` argument may reach (`[0, 0)` for the others).
#[repr(C)]
pub struct CheckLaunch {
    table: u64,
    table_store: Vec<[u64; 2]>,
    serial: u64,
    kernel: String,
    mode: Mode,
    sites: Vec<Site>,
    /// Sorted by `lo`.
    args: Vec<ArgRange>,
    /// `__local` parts: (offset, size, what), sorted by offset.
    local: Vec<(u64, u64, String)>,
    program: (u64, u64),
    /// Bytes of work-item frames per group (`frame_size_per_item` × enqueued group size).
    frame_bytes: u64,
    finder: Option<AllocFinder>,
    /// An argument holds a pointer to memory the runtime does not know (fine-grain system
    /// SVM): an address found nowhere may be valid, so it is not reported.
    unknown_pointers: bool,
    seen: Mutex<HashSet<u64>>,
    reports: Mutex<Vec<String>>,
    scratch: Scratch,
}

/// Where a failed access goes: memory only JIT code touches (Rust never reads it), so
/// concurrent writes from several groups are as harmless as they are meaningless.
struct Scratch(*mut [u64]);

// SAFETY: the allocation is owned by this struct; Rust code never reads or writes it
// (only its address is handed to JIT code), so sharing the pointer is sound.
unsafe impl Send for Scratch {}
// SAFETY: as for `Send`.
unsafe impl Sync for Scratch {}

impl Scratch {
    fn new() -> Scratch {
        Scratch(Box::into_raw(
            vec![0u64; SCRATCH_BYTES / 8].into_boxed_slice(),
        ))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `Box::into_raw` in `new` and is freed once, here,
        // after the launch (the last user of its address) has finished.
        drop(unsafe { Box::from_raw(self.0) });
    }
}

impl std::fmt::Debug for CheckLaunch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckLaunch")
            .field("kernel", &self.kernel)
            .field("args", &self.args)
            .finish_non_exhaustive()
    }
}

static SERIAL: AtomicU64 = AtomicU64::new(1);

impl CheckLaunch {
    /// The state of one launch of the kernel `kernel` checked as `kc` says. `table`: per
    /// argument, the `[lo, hi)` its accesses may reach inline (a miss is looked up in
    /// `args` and the rest); `local_args`: the `__local` arguments' (offset, size, what);
    /// `frame_bytes`: work-item frames per group.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        kernel: &str,
        kc: &KernelCheck,
        table: Vec<[u64; 2]>,
        mut args: Vec<ArgRange>,
        local_args: Vec<(u64, u64, String)>,
        frame_bytes: u64,
        finder: Option<AllocFinder>,
        unknown_pointers: bool,
    ) -> CheckLaunch {
        args.sort_by_key(|a| a.lo);
        let mut local: Vec<_> = kc
            .local_vars
            .iter()
            .map(|(o, s, n)| (*o, *s, format!("__local variable `{n}`")))
            .chain(local_args)
            .collect();
        local.sort_by_key(|l| l.0);
        CheckLaunch {
            table: table.as_ptr() as u64,
            table_store: table,
            serial: SERIAL.fetch_add(1, Ordering::Relaxed),
            kernel: kernel.to_string(),
            mode: kc.mode,
            sites: kc.sites.clone(),
            args,
            local,
            program: kc.program,
            frame_bytes,
            finder,
            unknown_pointers,
            seen: Mutex::new(HashSet::new()),
            reports: Mutex::new(Vec::new()),
            scratch: Scratch::new(),
        }
    }

    /// The reports made so far (taken).
    pub fn take_reports(&self) -> Vec<String> {
        std::mem::take(&mut *self.reports.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn report(&self, key: u64, ctx: &GroupContext, lid: u64, what: std::fmt::Arguments<'_>) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if !seen.insert(key) {
            return;
        }
        drop(seen);
        let mut r = self.reports.lock().unwrap_or_else(|e| e.into_inner());
        if r.len() >= MAX_REPORTS {
            return;
        }
        let ls = ctx.local_size;
        let l = [lid % ls[0], (lid / ls[0]) % ls[1], lid / (ls[0] * ls[1])];
        let g: [u64; 3] = std::array::from_fn(|d| {
            ctx.global_offset[d] + ctx.group_id[d] * ctx.enqueued_local_size[d] + l[d]
        });
        r.push(format!(
            "ferrite: check: kernel `{}`: {what}, work-item ({}, {}, {}) (local ({}, {}, {}) in work-group ({}, {}, {}))",
            self.kernel, g[0], g[1], g[2], l[0], l[1], l[2], ctx.group_id[0], ctx.group_id[1], ctx.group_id[2]
        ));
    }

    fn scratch(&self, addr: u64, n: u64) -> u64 {
        if n as usize <= SCRATCH_BYTES {
            self.scratch.0 as *mut u64 as u64
        } else {
            addr
        }
    }

    /// The `__local` part `off` lies in, or the last one before it.
    fn local_part(&self, off: u64) -> Option<&(u64, u64, String)> {
        self.local.iter().rev().find(|(o, _, _)| *o <= off)
    }
}

fn kind(write: bool) -> &'static str {
    if write {
        "write"
    } else {
        "read"
    }
}

/// The check JIT code calls (cold for a variable site, every time for a dynamic one):
/// `site` numbers the access, `addr` and `n` are its bytes, `lid` the work-item's linear
/// local id, `aux` the variable's base ([`Target::Var`]) or the work-item record
/// ([`Target::Dynamic`]). Returns the address to access: `addr`, or the scratch area
/// after a report.
///
/// # Safety
/// `ctx` is the group's [`GroupContext`] whose `check` is null or a live
/// [`CheckLaunch`]; for a dynamic site `aux` is the work-item record.
pub unsafe extern "C" fn ferrite_check(
    ctx: *const GroupContext,
    site: u64,
    addr: u64,
    n: u64,
    lid: u64,
    aux: u64,
) -> u64 {
    // SAFETY: the caller passes its live group context.
    let ctx = unsafe { &*ctx };
    if ctx.check.is_null() {
        return addr;
    }
    // SAFETY: the runtime keeps the launch alive until every group has returned.
    let st = unsafe { &*ctx.check };
    let Some(s) = st.sites.get(site as usize) else {
        return addr;
    };
    let write = s.write;
    let lo_local = ctx.local_mem as u64;
    let in_local = addr.wrapping_sub(lo_local) < ctx.local_mem_size;
    match &s.target {
        Target::Var { what, size } => {
            let off = addr.wrapping_sub(aux);
            if st.mode.bounds && (n > *size || off > size - n) {
                st.report(
                    site,
                    ctx,
                    lid,
                    format_args!(
                        "out-of-bounds {} of {n} bytes at offset {} of {what} ({size} bytes)",
                        kind(write),
                        off as i64
                    ),
                );
                return st.scratch(addr, n);
            }
        }
        Target::Dynamic if st.mode.bounds => {
            if let Some(bad) = dynamic_bounds(st, ctx, addr, n, aux, in_local) {
                st.report(
                    site,
                    ctx,
                    lid,
                    format_args!("out-of-bounds {} of {n} bytes at {bad}", kind(write)),
                );
                return st.scratch(addr, n);
            }
        }
        Target::Dynamic => {}
    }
    if st.mode.races && in_local {
        race(st, ctx, site, addr - lo_local, n, lid, write);
    }
    addr
}

/// [`ferrite_check`] for the lanes of a vector access (the vectoriser's cold path):
/// `lanes` holds one `(addr, aux)` pair per lane, lane `k` is the work-item of linear local
/// id `lid + k`; each lane whose bit is set in `active` is checked, and its address is
/// replaced by the one to access. Returns 0.
///
/// # Safety
/// As for [`ferrite_check`], per lane; `lanes` points to as many pairs as the highest bit
/// set in `active` says.
pub unsafe extern "C" fn ferrite_check_lanes(
    ctx: *const GroupContext,
    site: u64,
    lanes: *mut [u64; 2],
    n: u64,
    lid: u64,
    active: u64,
) -> u64 {
    for k in (0..64).filter(|k| active >> k & 1 == 1) {
        // SAFETY: the caller's slot holds a pair for every active lane.
        let lane = unsafe { &mut *lanes.add(k) };
        // SAFETY: as the caller's own contract.
        lane[0] = unsafe { ferrite_check(ctx, site, lane[0], n, lid + k as u64, lane[1]) };
    }
    0
}

/// `None` when `[addr, addr + n)` lies in one allocation the work-item may access, else
/// what it missed and by how much.
fn dynamic_bounds(
    st: &CheckLaunch,
    ctx: &GroupContext,
    addr: u64,
    n: u64,
    wi: u64,
    in_local: bool,
) -> Option<String> {
    let end = addr.checked_add(n)?;
    let local_bad = |off: u64| match st.local_part(off) {
        Some((o, s, _)) if off + n <= o + s => None,
        Some((o, s, what)) => Some(format!(
            "offset {} of {what} ({s} bytes in local memory)",
            off - o
        )),
        None => Some(format!("local-memory offset {off}")),
    };
    let local_off = addr.wrapping_sub(ctx.local_mem as u64);
    if in_local {
        return local_bad(local_off);
    }
    // The arguments' ranges (sorted): the last one starting at or below `addr`.
    let i = st.args.partition_point(|a| a.lo <= addr);
    if let Some(a) = i.checked_sub(1).and_then(|i| st.args.get(i)) {
        if end <= a.hi {
            return None;
        }
    }
    // Just past the group's local memory (still in the worker's arena).
    if !ctx.local_mem.is_null() && local_off < ctx.local_mem_size + (64 << 10) {
        return local_bad(local_off);
    }
    // The work-item's own stack and frames.
    let here = &end as *const u64 as u64;
    // SAFETY: for a dynamic site `aux` is the work-item record the work-group function
    // built on its stack (`codegen::WI_*`), alive during the call.
    let (stack_top, frame_lo) = unsafe {
        let w = wi as *const u64;
        (
            w.add(crate::codegen::WI_STACK as usize / 8).read(),
            w.add(crate::codegen::WI_FRAME_LO as usize / 8).read(),
        )
    };
    if addr >= here && end <= stack_top {
        return None;
    }
    let frame = ctx.frame as u64;
    if !ctx.frame.is_null() && addr >= frame && end <= frame + st.frame_bytes {
        return None;
    }
    if frame_lo != 0 && addr >= frame_lo && end <= frame_lo + st.frame_bytes {
        return None;
    }
    if addr >= st.program.0 && end <= st.program.1 {
        return None;
    }
    if let Some((b, s)) = st.finder.as_ref().and_then(|f| f(addr)) {
        if end <= b + s {
            return None;
        }
    }
    if crate::spaces::space_of(addr) == crate::spaces::Space::Private as i32 {
        // Another work-item's private memory (its address went through memory).
        return None;
    }
    if st.unknown_pointers {
        return None;
    }
    // The argument nearest to the address: the one below it, or the one above it.
    let below = i.checked_sub(1).and_then(|i| st.args.get(i));
    let above = st.args.get(i);
    let nearest = match (below, above) {
        (Some(b), Some(a)) if a.lo - addr < addr.saturating_sub(b.hi) => Some(a),
        (Some(b), _) => Some(b),
        (None, a) => a,
    };
    Some(match nearest {
        Some(a) => outside(addr, end, a),
        None => format!("address {addr:#x}, in no buffer the kernel was given"),
    })
}

/// Where the access `[addr, end)`, not inside argument `a`, lies: past its end (also when
/// it starts inside and runs over the end) or before its start.
fn outside(addr: u64, end: u64, a: &ArgRange) -> String {
    let (n, side) = if addr >= a.lo {
        (end.saturating_sub(a.hi), "past its end")
    } else {
        (a.lo - addr, "before its start")
    };
    format!(
        "offset {} of {} ({} bytes; {n} bytes {side})",
        addr.wrapping_sub(a.origin) as i64,
        a.what,
        a.hi - a.origin,
    )
}

/// What JIT code reads of a worker's race-detector state ([`ferrite_check_shadow`]).
/// The cells keep, per 4 bytes of local memory, four `u32` fields: the last writer + 1,
/// its epoch, the last reader + 1, its epoch; each field is an array of its own (`stride`
/// bytes from one to the next), so the cells of consecutive words are consecutive and a
/// vector loop reads four work-items' writers as one vector. `epochs` holds the
/// work-items' epochs (`u32`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ShadowView {
    pub cells: u64,
    pub epochs: u64,
    pub stride: u64,
}

/// The fields of a shadow cell, in the order of their arrays.
const WRITER: usize = 0;
const WRITER_EPOCH: usize = 1;
const READER: usize = 2;
const READER_EPOCH: usize = 3;

/// Spare cells past the end of local memory: an access the inline check lets through
/// lies inside local memory, and a vector check reads at most 16 cells from its first.
const SPARE_CELLS: usize = 16;

/// Race detector state of the group a worker runs.
struct Shadow {
    view: Box<ShadowView>,
    serial: u64,
    group: [u64; 3],
    /// The cells' four fields ([`ShadowView`]), `len` entries each.
    cells: Vec<u32>,
    len: usize,
    /// Barriers passed, per work-item.
    epochs: Vec<u32>,
}

impl Shadow {
    /// Field `f` of cell `i`.
    fn field(&mut self, f: usize, i: usize) -> &mut u32 {
        &mut self.cells[f * self.len + i]
    }
}

impl Default for Shadow {
    fn default() -> Shadow {
        Shadow {
            view: Box::new(ShadowView {
                cells: 0,
                epochs: 0,
                stride: 0,
            }),
            serial: 0,
            group: [0; 3],
            cells: Vec::new(),
            len: 0,
            epochs: Vec::new(),
        }
    }
}

thread_local! {
    static SHADOW: RefCell<Shadow> = RefCell::new(Shadow::default());
}

fn with_shadow<R>(st: &CheckLaunch, ctx: &GroupContext, f: impl FnOnce(&mut Shadow) -> R) -> R {
    SHADOW.with(|s| {
        let mut s = s.borrow_mut();
        if s.serial != st.serial || s.group != ctx.group_id {
            s.serial = st.serial;
            s.group = ctx.group_id;
            let len = (ctx.local_mem_size as usize).div_ceil(4) + SPARE_CELLS;
            s.len = len;
            s.cells.clear();
            s.cells.resize(4 * len, 0);
            s.epochs.clear();
            let items = ctx.local_size.iter().product::<u64>() as usize;
            s.epochs.resize(items, 0);
            *s.view = ShadowView {
                cells: s.cells.as_mut_ptr() as u64,
                epochs: s.epochs.as_mut_ptr() as u64,
                stride: 4 * len as u64,
            };
        }
        f(&mut s)
    })
}

fn race(st: &CheckLaunch, ctx: &GroupContext, site: u64, off: u64, n: u64, lid: u64, write: bool) {
    let found = with_shadow(st, ctx, |s| {
        let me = lid as u32 + 1;
        let ep = s.epochs.get(lid as usize).copied().unwrap_or(0);
        let mut found = None;
        let first = (off / 4) as usize;
        let last = ((off + n.max(1) - 1) / 4) as usize;
        for c in first..=last.min(s.len - 1) {
            let (w, we) = (*s.field(WRITER, c), *s.field(WRITER_EPOCH, c));
            let (r, re) = (*s.field(READER, c), *s.field(READER_EPOCH, c));
            if found.is_none() {
                if w != 0 && w != me && we == ep {
                    found = Some((w - 1, "written"));
                } else if write && r != 0 && r != me && re == ep {
                    found = Some((r - 1, "read"));
                }
            }
            let (who, when) = match write {
                true => (WRITER, WRITER_EPOCH),
                false => (READER, READER_EPOCH),
            };
            *s.field(who, c) = me;
            *s.field(when, c) = ep;
        }
        found
    });
    if let Some((other, how)) = found {
        let what = match st.local_part(off) {
            Some((o, _, what)) => format!("offset {} of {what}", off - o),
            None => format!("local-memory offset {off}"),
        };
        st.report(
            site | 1 << 63,
            ctx,
            lid,
            format_args!(
                "data race on __local memory: {} of {n} bytes at {what}, {how} by local work-item {other} since the last barrier",
                kind(write)
            ),
        );
    }
}

/// A work-group barrier passed by the work-item `lid`: its next accesses are in a new
/// epoch.
///
/// # Safety
/// As [`ferrite_check`].
pub unsafe extern "C" fn ferrite_check_barrier(ctx: *const GroupContext, lid: u64) -> u64 {
    // SAFETY: the caller passes its live group context.
    let ctx = unsafe { &*ctx };
    if ctx.check.is_null() {
        return 0;
    }
    // SAFETY: as in `ferrite_check`.
    let st = unsafe { &*ctx.check };
    if st.mode.races {
        with_shadow(st, ctx, |s| {
            if let Some(e) = s.epochs.get_mut(lid as usize) {
                *e += 1;
            }
        });
    }
    0
}

/// The worker's race-detector state for the group `ctx` describes (reset when it is a
/// new group): the address of its [`ShadowView`], which stays valid while the group
/// runs. JIT code calls it when a work-item (or a step of one) starts.
///
/// # Safety
/// As [`ferrite_check`].
pub unsafe extern "C" fn ferrite_check_shadow(ctx: *const GroupContext) -> u64 {
    // SAFETY: the caller passes its live group context.
    let ctx = unsafe { &*ctx };
    if ctx.check.is_null() {
        return 0;
    }
    // SAFETY: as in `ferrite_check`.
    let st = unsafe { &*ctx.check };
    with_shadow(st, ctx, |s| &*s.view as *const ShadowView as u64)
}

/// The symbols JIT code calls, for the JIT's symbol table.
pub(crate) fn symbols() -> [(&'static str, *const u8); 4] {
    [
        ("ferrite_check", ferrite_check as *const u8),
        ("ferrite_check_lanes", ferrite_check_lanes as *const u8),
        ("ferrite_check_barrier", ferrite_check_barrier as *const u8),
        ("ferrite_check_shadow", ferrite_check_shadow as *const u8),
    ]
}

#[cfg(test)]
mod tests {
    use super::{outside, ArgRange, Mode};

    /// A read that starts inside a buffer and runs over its end is past the end (it
    /// was reported as a wrapped number of bytes "before its start").
    #[test]
    fn accesses_outside_an_argument() {
        let a = ArgRange {
            lo: 1000,
            hi: 1006,
            origin: 1000,
            what: "argument #1".into(),
        };
        assert_eq!(
            outside(1004, 1008, &a),
            "offset 4 of argument #1 (6 bytes; 2 bytes past its end)"
        );
        assert_eq!(
            outside(1010, 1014, &a),
            "offset 10 of argument #1 (6 bytes; 8 bytes past its end)"
        );
        assert_eq!(
            outside(996, 1000, &a),
            "offset -4 of argument #1 (6 bytes; 4 bytes before its start)"
        );
    }

    #[test]
    fn parse_modes() {
        assert_eq!(
            Mode::parse("bounds,races"),
            Mode {
                bounds: true,
                races: true
            }
        );
        assert_eq!(
            Mode::parse("bounds"),
            Mode {
                bounds: true,
                races: false
            }
        );
        assert!(!Mode::parse("0").any());
        assert!(Mode::parse("all").races);
    }
}
