//! The JIT: Cranelift ISA setup, the `JITModule` that owns a kernel's code, and the
//! program-scope memory that owns `__global`/`__constant` variables. The only module with
//! `unsafe`: turning finalised code into a callable function pointer, freeing the code, and
//! raw program memory written by both Rust (initialisers) and JIT code.

use crate::builtins;
use crate::{CompileError, WorkGroupFn};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{ArenaMemoryProvider, JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId};
use std::alloc::Layout;

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

/// A fresh JIT module that knows every builtin's symbol.
///
/// Its code and data go in one contiguous reservation (`ArenaMemoryProvider`). Calls
/// between the functions of one kernel (work-group function, kernel, steps) are 32-bit
/// PC-relative, and Cranelift's default provider maps every piece separately: in a process
/// with a crowded address space (Intel's SYCL runtime) two pieces landed over 2 GiB apart,
/// and the relocation's `i32::try_from(..).unwrap()` in cranelift-jit panicked. Builtins
/// are not affected: they are called through absolute addresses.
pub fn new_module(isa: OwnedTargetIsa) -> Result<JITModule, CompileError> {
    let mut b = JITBuilder::with_isa(isa, default_libcall_names());
    for bi in builtins::all() {
        b.symbol(bi.name, bi.addr);
    }
    for vb in builtins::vector_all() {
        b.symbol(vb.name, vb.addr);
    }
    // Where the address space is limited (`ulimit -v`) and the reservation fails, the
    // default provider still works in most processes.
    if let Ok(arena) = ArenaMemoryProvider::new_with_size(ARENA_BYTES) {
        b.memory_provider(Box::new(arena));
    }
    Ok(JITModule::new(b))
}

/// Finalised code of one kernel. Dropping the last handle frees the code.
pub struct Code {
    module: Option<JITModule>,
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

/// Finalise `module` and return the work-group function `f` plus the owner of its code.
pub fn finish(mut module: JITModule, f: FuncId) -> Result<(WorkGroupFn, Code), CompileError> {
    module.finalize_definitions().map_err(codegen_err)?;
    let ptr = module.get_finalized_function(f);
    if ptr.is_null() {
        return Err(CompileError::Codegen("finalised function is null".into()));
    }
    // SAFETY: `f` was defined by `workgroup::build` with the signature
    // `(i64 args, i64 ctx) -> ()` in the host's default calling convention, which is
    // `extern "C"` with two pointer arguments on every target Cranelift supports; the code
    // stays mapped as long as the returned `Code` lives.
    let entry = unsafe { std::mem::transmute::<*const u8, WorkGroupFn>(ptr) };
    Ok((
        entry,
        Code {
            module: Some(module),
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
