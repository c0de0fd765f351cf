//! The compiler's entry points: a parsed module and its compiled kernels.
//!
//! [`Module::from_spirv`] lifts and validates the whole module once (so unsupported
//! features are reported at build time, in the build log), lays out and initialises the
//! program-scope variables, and describes every kernel. [`Module::compile_kernel`] then
//! JIT-compiles one kernel. Both are wrapped in `catch_unwind`: a panic anywhere below
//! (rspirv's loader asserts on some malformed input) becomes [`CompileError::Codegen`].

mod args;

use crate::jit::ProgramMemory;
use crate::layout::{align_up, layout, member_offsets};
use crate::spirv::{Constant, Program, Type};
use crate::{CompileError, KernelInfo, WorkGroupFn};
use rspirv::spirv::{StorageClass, Word};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Most bytes of program-scope (`CrossWorkgroup` and `UniformConstant`) variables one module
/// may ask for.
pub const MAX_PROGRAM_SCOPE_BYTES: u64 = 64 << 20;

/// A parsed and validated SPIR-V module.
pub struct Module {
    prog: Arc<Program>,
    kernels: Vec<KernelInfo>,
    memory: Arc<ProgramMemory>,
    global_addr: HashMap<Word, u64>,
    global_bytes: u64,
}

fn guard<T>(f: impl FnOnce() -> Result<T, CompileError>) -> Result<T, CompileError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(e) => {
            let msg = e
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| e.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(CompileError::Codegen(format!("compiler panicked: {msg}")))
        }
    }
}

impl Module {
    /// Parse and validate a SPIR-V binary (little- or big-endian words).
    pub fn from_spirv(bytes: &[u8]) -> Result<Module, CompileError> {
        Self::from_spirv_with_spec_constants(bytes, &HashMap::new())
    }

    /// Like [`Module::from_spirv`]; `spec_constants` maps `SpecId` → value bits for
    /// `OpSpecConstant*` (zero-extended; `bool` as 0/1, floats as their IEEE bits).
    pub fn from_spirv_with_spec_constants(
        bytes: &[u8],
        spec_constants: &HashMap<u32, u64>,
    ) -> Result<Module, CompileError> {
        guard(|| Self::build(bytes, spec_constants))
    }

    fn build(bytes: &[u8], spec: &HashMap<u32, u64>) -> Result<Module, CompileError> {
        let prog = Program::parse(bytes, spec)?;
        // Reject unsupported instructions up front.
        for f in prog.functions.values() {
            for b in &f.blocks {
                for i in &b.insts {
                    if !crate::codegen::opcode_supported(i.class.opcode) {
                        return Err(CompileError::UnsupportedOpcode {
                            opcode: format!("{:?}", i.class.opcode),
                            function: f.name.clone(),
                        });
                    }
                }
            }
        }
        let mut kernels = Vec::new();
        for ep in &prog.entry_points {
            kernels.push(args::kernel_info(&prog, ep)?);
        }
        // Program-scope variables: every `CrossWorkgroup` (`__global`, function-scope
        // `static`) and `UniformConstant` (`__constant`) variable gets its place in one
        // allocation per module, shared by every kernel of the program and kept for the
        // program's life (so values persist from launch to launch and kernel to kernel).
        let mut offsets = Vec::new();
        let mut size = 0u64;
        let mut global_bytes = 0u64;
        for g in &prog.global_order {
            let gl = &prog.globals[g];
            match gl.class {
                StorageClass::CrossWorkgroup | StorageClass::UniformConstant => {
                    let l = layout(&prog, gl.pointee)?;
                    size = align_up(size, l.align.max(1));
                    offsets.push((*g, size));
                    size = size
                        .checked_add(l.size)
                        .ok_or_else(|| CompileError::Invalid("globals too large".into()))?;
                    if gl.class == StorageClass::CrossWorkgroup {
                        global_bytes = global_bytes.saturating_add(l.size);
                    }
                }
                StorageClass::Input if gl.builtin.is_some() => {}
                StorageClass::Workgroup => {}
                c => {
                    return Err(CompileError::Unsupported(format!(
                        "module-scope variable in {c:?} storage"
                    )))
                }
            }
        }
        // The device reports this bound as CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE (one variable
        // may use all of it). It also keeps a malformed or hostile module (the fuzzer built
        // a 2e9-element array) from allocating gigabytes.
        if size > MAX_PROGRAM_SCOPE_BYTES {
            return Err(CompileError::Unsupported(format!(
                "program-scope variables need {size} bytes, more than Ferrite's limit of {} MiB",
                MAX_PROGRAM_SCOPE_BYTES >> 20
            )));
        }
        let size =
            usize::try_from(size).map_err(|_| CompileError::Invalid("globals too large".into()))?;
        let mut memory = ProgramMemory::new(size)?;
        // Every address first: an initialiser may point at a variable declared after it
        // is laid out (`global int *p = &a;` with `a` anywhere in the module).
        let global_addr: HashMap<Word, u64> = offsets
            .iter()
            .map(|(g, off)| (*g, memory.base() + off))
            .collect();
        for (g, off) in offsets {
            if let Some(init) = prog.globals[&g].init {
                let mut bytes = Vec::new();
                let ty = prog.globals[&g].pointee;
                const_bytes(&prog, &global_addr, init, ty, &mut bytes, 0, 0)?;
                memory.write(off as usize, &bytes)?;
            }
        }
        Ok(Module {
            prog: Arc::new(prog),
            kernels,
            memory: Arc::new(memory),
            global_addr,
            global_bytes,
        })
    }

    /// The kernels in the module, in `OpEntryPoint` order.
    pub fn kernels(&self) -> &[KernelInfo] {
        &self.kernels
    }

    /// Bytes of the module's program-scope variables in the global address space
    /// (`CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE`): `__global` and `static` variables,
    /// not `__constant` data.
    pub fn global_variable_bytes(&self) -> u64 {
        self.global_bytes
    }

    /// The program-scope variable exported (or named) `name`: its address and size in
    /// bytes (for `zeModuleGetGlobalPointer`). The storage lives as long as the module or
    /// any kernel compiled from it.
    pub fn global_variable(&self, name: &str) -> Option<GlobalVariable> {
        let p = &self.prog;
        p.global_order.iter().find_map(|g| {
            let addr = *self.global_addr.get(g)?;
            let export = p.decorations.get(g).and_then(|d| {
                d.iter().find_map(|(dec, ops)| match (dec, ops.first()) {
                    (
                        rspirv::spirv::Decoration::LinkageAttributes,
                        Some(rspirv::dr::Operand::LiteralString(s)),
                    ) => Some(s.as_str()),
                    _ => None,
                })
            });
            let named = export.or(p.names.get(g).map(String::as_str))?;
            if named != name {
                return None;
            }
            let size = layout(p, p.globals.get(g)?.pointee).ok()?.size;
            Some(GlobalVariable {
                addr,
                size: size as usize,
                memory: self.memory.clone(),
            })
        })
    }

    /// The function exported (`LinkageAttributes … Export`) or named `name`, compiled on
    /// its own to be called through a pointer (`zeModuleGetFunctionPointer`, called by
    /// `OpFunctionPointerCallINTEL`). `Ok(None)` when the module has no such function.
    pub fn function_pointer(&self, name: &str) -> Result<Option<FunctionPointer>, CompileError> {
        let p = &self.prog;
        let mut ids: Vec<Word> = p.functions.keys().copied().collect();
        ids.sort_unstable();
        let export = |f: &Word| {
            p.decorations.get(f).and_then(|d| {
                d.iter().find_map(|(dec, ops)| match (dec, ops.first()) {
                    (
                        rspirv::spirv::Decoration::LinkageAttributes,
                        Some(rspirv::dr::Operand::LiteralString(s)),
                    ) => Some(s.as_str()),
                    _ => None,
                })
            })
        };
        let found = ids
            .iter()
            .find(|f| export(f) == Some(name))
            .or_else(|| {
                ids.iter()
                    .find(|f| p.names.get(f).map(String::as_str) == Some(name))
            })
            .filter(|f| {
                p.functions
                    .get(f)
                    .is_some_and(|func| !func.blocks.is_empty())
            });
        let Some(&f) = found else {
            return Ok(None);
        };
        let out = guard(|| crate::pipeline::compile_function(p, f, &self.global_addr))?;
        Ok(Some(FunctionPointer {
            addr: out.addr as u64,
            code: Arc::new((out.code, self.memory.clone())),
        }))
    }

    /// Compile one kernel to a native work-group function.
    pub fn compile_kernel(&self, name: &str) -> Result<CompiledKernel, CompileError> {
        self.compile(name, false, None)
    }

    /// Compile one kernel with its vector loops `lanes` (4, 8 or 16) work-items wide
    /// where it vectorises: every width must agree with the reference. For tests and
    /// measurement.
    #[doc(hidden)]
    pub fn compile_kernel_lanes(
        &self,
        name: &str,
        lanes: usize,
    ) -> Result<CompiledKernel, CompileError> {
        self.compile(name, false, Some(lanes))
    }

    /// Compile one kernel in the reference shape every faster shape must agree with: the
    /// kernel a function of its own, called once per work-item. For tests.
    #[doc(hidden)]
    pub fn compile_kernel_reference(&self, name: &str) -> Result<CompiledKernel, CompileError> {
        self.compile(name, true, None)
    }

    fn compile(
        &self,
        name: &str,
        reference: bool,
        lanes: Option<usize>,
    ) -> Result<CompiledKernel, CompileError> {
        let idx = self
            .kernels
            .iter()
            .position(|k| k.name == name)
            .ok_or_else(|| CompileError::NoSuchKernel(name.into()))?;
        let info = self.kernels[idx].clone();
        let ep = &self.prog.entry_points[idx];
        let mut out = guard(|| {
            crate::pipeline::compile(&self.prog, ep, &info, &self.global_addr, reference, lanes)
        })?;
        out.check.program = self.memory.range();
        Ok(CompiledKernel {
            check: Arc::new(std::mem::take(&mut out.check)),
            info,
            static_local_size: out.static_local_size as usize,
            private_size: out.private_size as usize,
            frame_size_per_item: out.frame_size as usize,
            uses_printf: out.uses_printf,
            group_blind: out.group_blind,
            handler: out.handler,
            entry: out.entry,
            code: Arc::new((out.code, self.memory.clone())),
        })
    }
}

/// A function compiled by [`Module::function_pointer`]: its address, and the code (with
/// the program's variables it may use) kept alive as long as this handle.
#[derive(Clone)]
pub struct FunctionPointer {
    pub addr: u64,
    #[expect(dead_code, reason = "held only to keep the code alive")]
    code: Arc<(crate::jit::Code, Arc<ProgramMemory>)>,
}

impl std::fmt::Debug for FunctionPointer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FunctionPointer")
            .field("addr", &format_args!("{:#x}", self.addr))
            .finish()
    }
}

/// A program-scope variable found by [`Module::global_variable`]; holds the storage.
#[derive(Clone)]
pub struct GlobalVariable {
    pub addr: u64,
    pub size: usize,
    /// Keeps the storage alive as long as this handle.
    #[expect(dead_code, reason = "held only to keep the storage alive")]
    memory: Arc<ProgramMemory>,
}

impl std::fmt::Debug for GlobalVariable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GlobalVariable")
            .field("addr", &format_args!("{:#x}", self.addr))
            .field("size", &self.size)
            .finish()
    }
}

/// Serialise constant `id` of type `ty` into `out` at `off` (growing `out`). `id` may also
/// be a program-scope variable, whose address (`addrs`) is the value.
fn const_bytes(
    p: &Program,
    addrs: &HashMap<Word, u64>,
    id: Word,
    ty: Word,
    out: &mut Vec<u8>,
    off: u64,
    depth: u32,
) -> Result<(), CompileError> {
    if depth > 64 {
        return Err(CompileError::Invalid("initialiser nesting too deep".into()));
    }
    let l = layout(p, ty)?;
    let end = usize::try_from(off + l.size)
        .map_err(|_| CompileError::Invalid("initialiser too large".into()))?;
    if out.len() < end {
        out.resize(end, 0);
    }
    let mut put = |bits: u64| {
        let n = (l.size as usize).min(8);
        out[off as usize..off as usize + n].copy_from_slice(&bits.to_le_bytes()[..n]);
    };
    let address = |base: Word| {
        addrs.get(&base).copied().ok_or_else(|| {
            CompileError::Unsupported(format!(
                "an initialiser takes the address of %{base}, which is not a program-scope \
                 variable"
            ))
        })
    };
    if p.globals.contains_key(&id) {
        put(address(id)?);
        return Ok(());
    }
    let c = p.constants.get(&id).ok_or(CompileError::InvalidId {
        id,
        expected: "constant initialiser",
    })?;
    match c {
        Constant::Null { .. } => Ok(()),
        Constant::Scalar { bits, .. } => {
            put(*bits);
            Ok(())
        }
        Constant::Address { base, offset, .. } => {
            if l.size < 8 {
                return Err(CompileError::Unsupported(format!(
                    "an initialiser holds the address of %{base} in a {}-bit integer",
                    l.size * 8
                )));
            }
            put(address(*base)?.wrapping_add(*offset as u64));
            Ok(())
        }
        Constant::Composite { parts, .. } => {
            let (tys, offs): (Vec<Word>, Vec<u64>) = match p.ty(ty)? {
                Type::Struct { members, .. } => (members.clone(), member_offsets(p, ty)?),
                Type::Array { elem, .. } | Type::Vector { elem, .. } => {
                    let s = layout(p, *elem)?.size;
                    (
                        vec![*elem; parts.len()],
                        (0..parts.len() as u64).map(|i| i * s).collect(),
                    )
                }
                _ => {
                    return Err(CompileError::Invalid(format!(
                        "composite constant of scalar type %{ty}"
                    )))
                }
            };
            if tys.len() != parts.len() {
                return Err(CompileError::Invalid("composite constant size".into()));
            }
            for ((part, t), o) in parts.iter().zip(tys).zip(offs) {
                const_bytes(p, addrs, *part, t, out, off + o, depth + 1)?;
            }
            Ok(())
        }
    }
}

/// A kernel ready to run. Cheap to clone; the code lives as long as any clone does.
#[derive(Clone)]
pub struct CompiledKernel {
    pub info: KernelInfo,
    /// Bytes of local memory the kernel's own `Workgroup` variables need.
    pub static_local_size: usize,
    /// Bytes of private memory (stack) one work-item uses, for `CL_KERNEL_PRIVATE_MEM_SIZE`.
    pub private_size: usize,
    /// Bytes of frame each work-item of a group needs in `GroupContext::frame` (0 for a
    /// kernel without barriers or collectives).
    pub frame_size_per_item: usize,
    /// The kernel calls `printf`: the runtime must hand a [`crate::PrintfBuffer`] in
    /// `GroupContext::printf` and print its output when the launch completes.
    pub uses_printf: bool,
    /// Nothing in the kernel reads its work-group geometry (local ids and sizes, group ids
    /// and counts, sub-groups) or works on a group: with no `__local` memory and no
    /// barrier, the runtime may run it in groups of its own choosing.
    pub group_blind: bool,
    /// How the work-items run (vector width, shape) and why.
    pub handler: crate::Handler,
    /// Checked mode (`FERRITE_CHECK`): the access sites and what they access.
    pub check: Arc<crate::check::KernelCheck>,
    entry: WorkGroupFn,
    /// The code, and the program-scope memory it addresses (kept alive with it).
    code: Arc<(crate::jit::Code, Arc<ProgramMemory>)>,
}

impl CompiledKernel {
    /// The native work-group function.
    pub fn entry(&self) -> WorkGroupFn {
        self.entry
    }

    /// Is `pc` inside this kernel's generated code (the work-group function and every
    /// function compiled with it; not the Rust builtins it calls)? Lock-free and
    /// allocation-free, for the runtime's fault handler.
    pub fn code_contains(&self, pc: u64) -> bool {
        self.code.0.contains(pc)
    }
}

/// One specialization constant of a SPIR-V module (`OpSpecConstant*` decorated `SpecId`),
/// for `clSetProgramSpecializationConstant`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecConstant {
    /// The `SpecId`.
    pub id: u32,
    /// Bytes of its value (`bool` is 1, like a `char`).
    pub size: usize,
    /// The module's default value, zero-extended bits.
    pub default_bits: u64,
}

/// The specialization constants of a SPIR-V binary, in declaration order.
pub fn spec_constants(bytes: &[u8]) -> Result<Vec<SpecConstant>, CompileError> {
    guard(|| {
        let prog = Program::parse(bytes, &HashMap::new())?;
        let mut out = Vec::new();
        for (id, bits, ty) in &prog.spec_order {
            let Some(sid) = prog.decorations.get(id).and_then(|d| {
                d.iter().find_map(|(dec, ops)| match (dec, ops.first()) {
                    (
                        rspirv::spirv::Decoration::SpecId,
                        Some(rspirv::dr::Operand::LiteralBit32(s)),
                    ) => Some(*s),
                    _ => None,
                })
            }) else {
                continue;
            };
            let size = match prog.ty(*ty)? {
                Type::Bool => 1,
                Type::Int { width, .. } => crate::layout::int_bytes(*width) as usize,
                Type::Float { width } => (*width / 8) as usize,
                _ => continue,
            };
            out.push(SpecConstant {
                id: sid,
                size,
                default_bits: *bits,
            });
        }
        Ok(out)
    })
}
