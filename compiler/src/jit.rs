//! The JIT: Cranelift ISA setup, the `JITModule` that owns a kernel's code, and the
//! program-scope memory that owns `__global`/`__constant` variables. The only module with
//! `unsafe`: turning finalised code into a callable function pointer, freeing the code, and
//! raw program memory written by both Rust (initialisers) and JIT code.

use crate::builtins;
use crate::{CompileError, WorkGroupFn};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{
    ArenaMemoryProvider, BranchProtection, JITBuilder, JITMemoryKind, JITMemoryProvider, JITModule,
    SystemMemoryProvider,
};
use cranelift_module::{default_libcall_names, FuncId, ModuleResult};
use std::alloc::Layout;
use std::sync::{Arc, Mutex};

fn codegen_err(e: impl std::fmt::Display) -> CompileError {
    CompileError::Codegen(e.to_string())
}

/// The host ISA with Ferrite's flags.
pub fn host_isa() -> Result<OwnedTargetIsa, CompileError> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| f.set(k, v).map_err(codegen_err);
    set(&mut flags, "opt_level", "speed")?;
    set(&mut flags, "is_pic", "false")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "enable_multi_ret_implicit_sret", "true")?;
    // `get_frame_pointer` bounds a work-item's private memory from above (`to_private`,
    // checked mode): the work-group function's stack slots lie below its frame pointer.
    set(&mut flags, "preserve_frame_pointers", "true")?;
    // A frame larger than a page touches each page on the way down (an inline loop in the
    // prologue of such functions only), so a kernel whose private memory outgrows the
    // worker's stack faults on the guard page, inside JIT code, where the runtime's fault
    // handler turns it into a failed command, instead of writing past the guard page into
    // whatever is mapped below.
    set(&mut flags, "enable_probestack", "true")?;
    set(&mut flags, "probestack_strategy", "inline")?;
    set(
        &mut flags,
        "enable_verifier",
        if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        },
    )?;
    let isa = cranelift_native::builder().map_err(codegen_err)?;
    isa.finish(settings::Flags::new(flags)).map_err(codegen_err)
}

/// Address space each kernel's code and data are placed in: one reservation, committed
/// page by page as the JIT needs it.
const ARENA_BYTES: usize = 128 << 20;

/// Executable ranges `[start, end)` a module's memory provider handed out.
pub type Ranges = Arc<Mutex<Vec<(u64, u64)>>>;

/// A memory provider that records where executable code goes, so the runtime can tell a
/// fault in a kernel's code ([`Code::contains`]) from one anywhere else.
struct Recording {
    inner: Box<dyn JITMemoryProvider + Send>,
    code: Ranges,
}

impl JITMemoryProvider for Recording {
    fn allocate(
        &mut self,
        size: usize,
        align: u64,
        kind: JITMemoryKind,
    ) -> std::io::Result<*mut u8> {
        let exec = matches!(kind, JITMemoryKind::Executable);
        let p = self.inner.allocate(size, align, kind)?;
        if exec {
            let lo = p as u64;
            // Poisoned only if a thread panicked while pushing: the list is still whole.
            let mut code = self.code.lock().unwrap_or_else(|e| e.into_inner());
            code.push((lo, lo + size as u64));
        }
        Ok(p)
    }

    unsafe fn free_memory(&mut self) {
        // SAFETY: forwarded under the caller's contract (no function pointer is used again).
        unsafe { self.inner.free_memory() }
    }

    fn finalize(&mut self, branch_protection: BranchProtection) -> ModuleResult<()> {
        self.inner.finalize(branch_protection)
    }
}

/// A fresh JIT module that knows every builtin's symbol.
///
/// Its code and data go in one contiguous reservation (`ArenaMemoryProvider`). Calls
/// between the functions of one kernel (work-group function, kernel, steps) are 32-bit
/// PC-relative, and Cranelift's default provider maps every piece separately: in a process
/// with a crowded address space (Intel's SYCL runtime) two pieces landed over 2 GiB apart,
/// and the relocation's `i32::try_from(..).unwrap()` in cranelift-jit panicked. Builtins
/// are not affected: they are called through absolute addresses.
#[cfg(test)]
pub fn new_module(isa: OwnedTargetIsa) -> Result<JITModule, CompileError> {
    Ok(new_recorded(isa)?.0)
}

/// [`new_module`] and the list its executable code will be recorded in.
pub fn new_recorded(isa: OwnedTargetIsa) -> Result<(JITModule, Ranges), CompileError> {
    let mut b = JITBuilder::with_isa(isa, default_libcall_names());
    for bi in builtins::all() {
        b.symbol(bi.name, bi.addr);
    }
    for vb in builtins::vector_all()
        .into_iter()
        .chain(builtins::half_lanes::all())
    {
        b.symbol(vb.name, vb.addr);
        if let Some(r) = vb.regs {
            b.symbol(r.name, r.addr);
        }
    }
    for (name, addr) in crate::check::symbols() {
        b.symbol(name, addr);
    }
    // Where the address space is limited (`ulimit -v`) and the reservation fails, the
    // default provider still works in most processes.
    let inner: Box<dyn JITMemoryProvider + Send> =
        match ArenaMemoryProvider::new_with_size(ARENA_BYTES) {
            Ok(arena) => Box::new(arena),
            Err(_) => Box::new(SystemMemoryProvider::new()),
        };
    let code = Ranges::default();
    b.memory_provider(Box::new(Recording {
        inner,
        code: code.clone(),
    }));
    Ok((JITModule::new(b), code))
}

/// Finalised code of one kernel. Dropping the last handle frees the code.
pub struct Code {
    module: Option<JITModule>,
    /// Every executable range of the module, sorted by start.
    ranges: Vec<(u64, u64)>,
}

impl Code {
    /// Is `pc` inside this kernel's generated code? Reads only immutable data, takes no
    /// lock and allocates nothing: a signal handler may ask.
    pub fn contains(&self, pc: u64) -> bool {
        self.ranges.iter().any(|&(lo, hi)| lo <= pc && pc < hi)
    }
}

// SAFETY: after `finalize` the module is never used again except to free its memory in
// `drop`, which runs once, when no clone of the owning `Arc` (and so no caller of the
// function pointers, which hold that `Arc` through `CompiledKernel`) remains.
unsafe impl Send for Code {}
// SAFETY: as above: no method takes `&self`, so shared references cannot touch the module.
unsafe impl Sync for Code {}

impl Drop for Code {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: `Code` is only dropped when its `Arc` dies, i.e. when no
            // `CompiledKernel` (the only holder of the entry pointer) exists any more.
            unsafe { m.free_memory() };
        }
    }
}

/// Finalise `module` (made by [`new_recorded`] with `recorded`) and return the work-group function `f` plus the owner of its code.
pub fn finish(
    module: JITModule,
    recorded: &Ranges,
    f: FuncId,
) -> Result<(WorkGroupFn, Code), CompileError> {
    let (ptr, code) = finish_function(module, recorded, f)?;
    // SAFETY: `f` was defined by `workgroup::build` with the signature
    // `(i64 args, i64 ctx) -> ()` in the host's default calling convention, which is
    // `extern "C"` with two pointer arguments on every target Cranelift supports; the code
    // stays mapped as long as the returned `Code` lives.
    let entry = unsafe { std::mem::transmute::<*const u8, WorkGroupFn>(ptr) };
    Ok((entry, code))
}

/// Finalise `module` and return the address of its function `f` (non-NULL), mapped as
/// long as the returned `Code` lives.
pub fn finish_function(
    mut module: JITModule,
    recorded: &Ranges,
    f: FuncId,
) -> Result<(*const u8, Code), CompileError> {
    module.finalize_definitions().map_err(codegen_err)?;
    let ptr = module.get_finalized_function(f);
    if ptr.is_null() {
        return Err(CompileError::Codegen("finalised function is null".into()));
    }
    let mut ranges = recorded.lock().unwrap_or_else(|e| e.into_inner()).clone();
    ranges.sort_unstable();
    Ok((
        ptr,
        Code {
            module: Some(module),
            ranges,
        },
    ))
}

/// Memory for a program's module-scope variables (`__global`, `__constant` at program
/// scope). JIT code addresses it by absolute address, so it is shared by every kernel of
/// the program, as OpenCL requires.
pub struct ProgramMemory {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: the allocation is owned by this struct alone; Rust only writes it through
// `&mut self` before any kernel runs, afterwards only JIT code accesses it, with the same
// data-race rules OpenCL gives any other global memory.
unsafe impl Send for ProgramMemory {}
// SAFETY: see `Send`: no `&self` method reads or writes the bytes.
unsafe impl Sync for ProgramMemory {}

impl ProgramMemory {
    pub fn new(size: usize) -> Result<ProgramMemory, CompileError> {
        let layout = Layout::from_size_align(size.max(64), 64)
            .map_err(|_| CompileError::Invalid("program-scope variables too large".into()))?;
        // SAFETY: `layout` has a non-zero size (at least 64 bytes).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(CompileError::Unsupported(
                "out of memory for program-scope variables".into(),
            ));
        }
        Ok(ProgramMemory { ptr, layout })
    }

    pub fn base(&self) -> u64 {
        self.ptr as u64
    }

    /// `[base, end)` of the allocation.
    pub fn range(&self) -> (u64, u64) {
        (self.ptr as u64, self.ptr as u64 + self.layout.size() as u64)
    }

    /// Copy `bytes` to `offset` (initialisers, before any kernel runs).
    pub fn write(&mut self, offset: usize, bytes: &[u8]) -> Result<(), CompileError> {
        let end = offset.checked_add(bytes.len());
        if end.is_none_or(|e| e > self.layout.size()) {
            return Err(CompileError::Codegen(
                "initialiser outside program memory".into(),
            ));
        }
        // SAFETY: `offset..offset + len` lies inside the allocation (checked above) and
        // `&mut self` excludes any other Rust access; no kernel runs before `Module` is built.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr.add(offset), bytes.len()) };
        Ok(())
    }
}

impl Drop for ProgramMemory {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout; dropped once, when the last
        // `Module`/`CompiledKernel` holding it goes away.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) };
    }
}
