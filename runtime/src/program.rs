//! Programs: OpenCL C source (compiled to SPIR-V by [`clc`]), SPIR-V IL, binaries
//! ([`binary`]) and linked programs ([`link`]), built into a compiler
//! [`ferrite_compiler::Module`].
//!
//! Every program moves through the states of `CL_PROGRAM_BINARY_TYPE`: nothing, a compiled
//! object (`clCompileProgram`: a SPIR-V module that may import functions), a library
//! (`clLinkProgram -create-library`: linked modules, exports kept) or an executable
//! (`clBuildProgram`, or `clLinkProgram` without `-create-library`). Objects and libraries
//! are kept as SPIR-V and linked by `spirv-link` ([`link`]).
//!
//! A build is synchronous and compiles *every* kernel of the module, so that any compiler
//! error lands in the build log (not in a later `clCreateKernel`). A successful build is an
//! immutable [`Built`] shared by the program and every kernel created from it: rebuilding
//! (allowed only while no kernel is attached) replaces the program's `Built` without
//! touching running kernels.

mod arg_info;
#[cfg(test)]
mod arg_info_tests;
pub mod binary;
pub mod clc;
mod conversions_prelude;
pub mod link;
pub mod tool;
pub mod toolchain;

use crate::api::{api_type, ApiObject, ObjectType};
use crate::context::Context;
use crate::error::{Error, Result};
use binary::ProgramBinary;
use ferrite_compiler::{CompiledKernel, KernelInfo, Module, SpecConstant};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// What the program was created from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProgramSource {
    /// OpenCL C source text.
    Source(String),
    /// A SPIR-V module given as IL.
    Il(Vec<u8>),
    /// A binary (`clCreateProgramWithBinary`), decoded.
    Binary(ProgramBinary),
    /// The output of `clLinkProgram`.
    Linked,
}

/// `CL_PROGRAM_BUILD_STATUS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildStatus {
    None,
    Error,
    Success,
    InProgress,
}

/// `CL_PROGRAM_BINARY_TYPE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryType {
    None,
    CompiledObject,
    Library,
    Executable,
}

/// The result of a successful build.
pub struct Built {
    /// The SPIR-V module the kernels come from (`CL_PROGRAM_BINARIES`).
    pub spirv: Vec<u8>,
    /// Every kernel, in `OpEntryPoint` order.
    pub kernels: Vec<CompiledKernel>,
    /// Argument names and types are available (`-cl-kernel-arg-info` on OpenCL C).
    pub kernel_arg_info: bool,
    /// Bytes of program-scope `__global` variables (`CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE`).
    /// Their storage is the module's, shared by every kernel of the build and kept alive
    /// by them (`CompiledKernel` holds it), so it lives as long as this `Built`.
    pub global_variable_bytes: usize,
    /// Whether every work-group must be full size (`-cl-uniform-work-group-size`, or an
    /// OpenCL C 1.x program: non-uniform groups need OpenCL C 2.0 or later).
    pub uniform_work_groups: bool,
}

impl Built {
    pub fn kernel(&self, name: &str) -> Option<&CompiledKernel> {
        self.kernels.iter().find(|k| k.info.name == name)
    }
}

struct BuildState {
    status: BuildStatus,
    options: String,
    log: String,
    built: Option<Arc<Built>>,
    binary_type: BinaryType,
    /// The SPIR-V of a compiled object or library.
    object: Option<Vec<u8>>,
    /// The object was compiled with `-cl-kernel-arg-info` / for uniform work-groups.
    object_arg_info: bool,
    object_uniform: bool,
}

#[repr(C)]
pub struct Program {
    pub api: ApiObject,
    pub context: Arc<Context>,
    pub source: ProgramSource,
    build: Mutex<BuildState>,
    /// Kernel objects created from this program and not yet destroyed.
    kernels_attached: AtomicUsize,
    /// Values given by `clSetProgramSpecializationConstant` (`SpecId` → bits).
    spec_values: Mutex<HashMap<u32, u64>>,
    /// The IL's specialization constants, read on first use.
    spec_constants: OnceLock<Vec<SpecConstant>>,
}
api_type!(Program, Program);

/// The SPIR-V magic number.
const SPIRV_MAGIC: u32 = 0x0723_0203;

/// Whether `bytes` starts like a SPIR-V module (either byte order).
pub fn looks_like_spirv(bytes: &[u8]) -> bool {
    if bytes.len() < 20 || !bytes.len().is_multiple_of(4) {
        return false;
    }
    let w = [bytes[0], bytes[1], bytes[2], bytes[3]];
    u32::from_le_bytes(w) == SPIRV_MAGIC || u32::from_be_bytes(w) == SPIRV_MAGIC
}

/// Options `clLinkProgram` accepts (OpenCL 3.0 §5.8.6.2-3).
const LINK_OPTIONS: &[&str] = &[
    "-create-library",
    "-enable-link-options",
    "-cl-denorms-are-zero",
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
    "-cl-fast-relaxed-math",
    "-cl-no-subgroup-ifp",
];

/// Parsed `clLinkProgram` options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkOptions {
    pub create_library: bool,
}

impl LinkOptions {
    pub fn parse(options: &str) -> Result<LinkOptions> {
        let mut create_library = false;
        let mut enable_link_options = false;
        for tok in options.split_whitespace() {
            if !LINK_OPTIONS.contains(&tok) {
                return Err(Error::InvalidLinkerOptions(tok.to_string()));
            }
            create_library |= tok == "-create-library";
            enable_link_options |= tok == "-enable-link-options";
        }
        if enable_link_options && !create_library {
            return Err(Error::InvalidLinkerOptions(
                "-enable-link-options needs -create-library".into(),
            ));
        }
        Ok(LinkOptions { create_library })
    }
}

impl Program {
    pub fn new(context: Arc<Context>, source: ProgramSource) -> Result<Arc<Program>> {
        let mut binary_type = BinaryType::None;
        let mut object = None;
        let (mut object_arg_info, mut object_uniform) = (false, false);
        match &source {
            ProgramSource::Il(b) if !looks_like_spirv(b) => {
                return Err(Error::InvalidValue("IL is not a SPIR-V module"));
            }
            ProgramSource::Binary(b) => {
                binary_type = b.binary_type;
                object = Some(b.spirv.clone());
                object_arg_info = b.kernel_arg_info;
                object_uniform = b.uniform_work_groups;
            }
            _ => {}
        }
        Ok(Arc::new(Program {
            api: ApiObject::new(ObjectType::Program),
            context,
            source,
            build: Mutex::new(BuildState {
                status: BuildStatus::None,
                options: String::new(),
                log: String::new(),
                built: None,
                binary_type,
                object,
                object_arg_info,
                object_uniform,
            }),
            kernels_attached: AtomicUsize::new(0),
            spec_values: Mutex::new(HashMap::new()),
            spec_constants: OnceLock::new(),
        }))
    }

    pub fn build_status(&self) -> BuildStatus {
        self.build.lock().status
    }

    pub fn build_log(&self) -> String {
        self.build.lock().log.clone()
    }

    pub fn build_options(&self) -> String {
        self.build.lock().options.clone()
    }

    /// `CL_PROGRAM_BINARY_TYPE`.
    pub fn binary_type(&self) -> BinaryType {
        self.build.lock().binary_type
    }

    /// The last successful build, if any.
    pub fn built(&self) -> Option<Arc<Built>> {
        self.build.lock().built.clone()
    }

    /// The binary `CL_PROGRAM_BINARIES` returns (empty when there is none).
    pub fn binary(&self) -> Vec<u8> {
        let st = self.build.lock();
        let (spirv, arg_info, uniform) = match (&st.built, &st.object) {
            (Some(b), _) if st.binary_type == BinaryType::Executable => {
                (&b.spirv, b.kernel_arg_info, b.uniform_work_groups)
            }
            (_, Some(o)) => (o, st.object_arg_info, st.object_uniform),
            _ => return Vec::new(),
        };
        ProgramBinary {
            binary_type: st.binary_type,
            kernel_arg_info: arg_info,
            uniform_work_groups: uniform,
            spirv: spirv.clone(),
        }
        .encode()
    }

    /// Number of kernel objects attached.
    pub fn kernels_attached(&self) -> usize {
        self.kernels_attached.load(Ordering::Acquire)
    }

    pub(crate) fn attach_kernel(&self) {
        self.kernels_attached.fetch_add(1, Ordering::AcqRel);
    }

    pub(crate) fn detach_kernel(&self) {
        self.kernels_attached.fetch_sub(1, Ordering::AcqRel);
    }

    /// The specialization constants of the IL (empty for other programs or malformed IL).
    pub fn spec_constants(&self) -> &[SpecConstant] {
        self.spec_constants.get_or_init(|| match &self.source {
            ProgramSource::Il(il) => ferrite_compiler::spec_constants(il).unwrap_or_default(),
            _ => Vec::new(),
        })
    }

    /// `clSetProgramSpecializationConstant`: `value` is the constant's bytes (native order).
    pub fn set_spec_constant(&self, id: u32, value: &[u8]) -> Result<()> {
        let c = self
            .spec_constants()
            .iter()
            .find(|c| c.id == id)
            .copied()
            .ok_or(Error::InvalidSpecId(id))?;
        if value.len() != c.size {
            return Err(Error::InvalidValue(
                "spec_size does not match the specialization constant",
            ));
        }
        let mut bytes = [0u8; 8];
        bytes[..value.len().min(8)].copy_from_slice(&value[..value.len().min(8)]);
        // A boolean takes one byte like a `char`: the compiler reads any non-zero value of
        // a boolean specialization constant as `true`.
        self.spec_values
            .lock()
            .insert(id, u64::from_ne_bytes(bytes));
        Ok(())
    }

    /// Claim the build state for an operation (build, compile); fails while one is in
    /// progress or kernels are attached.
    fn begin(&self, options: &str) -> Result<()> {
        let mut st = self.build.lock();
        if st.status == BuildStatus::InProgress {
            return Err(Error::InvalidOperation("a build is in progress"));
        }
        if self.kernels_attached() > 0 {
            return Err(Error::InvalidOperation(
                "kernels are attached to the program",
            ));
        }
        st.status = BuildStatus::InProgress;
        st.options = options.to_string();
        st.log.clear();
        Ok(())
    }

    /// Record an operation's outcome.
    fn finish(&self, log: String, result: Result<Outcome>) -> Result<()> {
        let mut st = self.build.lock();
        st.log = log;
        match result {
            Ok(Outcome::Executable(built)) => {
                st.status = BuildStatus::Success;
                st.binary_type = BinaryType::Executable;
                st.built = Some(Arc::new(built));
                Ok(())
            }
            Ok(Outcome::Object {
                spirv,
                library,
                kernel_arg_info,
                uniform,
            }) => {
                st.status = BuildStatus::Success;
                st.binary_type = if library {
                    BinaryType::Library
                } else {
                    BinaryType::CompiledObject
                };
                st.object = Some(spirv);
                st.object_arg_info = kernel_arg_info;
                st.object_uniform = uniform;
                st.built = None;
                Ok(())
            }
            Err(e) => {
                if st.log.is_empty() {
                    st.log = e.to_string();
                }
                st.status = BuildStatus::Error;
                st.built = None;
                Err(e)
            }
        }
    }

    /// Build the program with `options` (synchronously).
    pub fn build(&self, options: &str) -> Result<()> {
        if matches!(self.source, ProgramSource::Linked) {
            return Err(Error::InvalidOperation(
                "a linked program cannot be built again",
            ));
        }
        self.begin(options)?;
        let mut log = String::new();
        // A panic in the compiler (a Ferrite bug) must not leave the build "in progress".
        let result = catch_unwind(AssertUnwindSafe(|| self.do_build(options, &mut log)))
            .unwrap_or_else(|_| {
                push_line(
                    &mut log,
                    "internal compiler error (panic); please report it",
                );
                Err(Error::BuildFailure)
            });
        self.finish(log, result.map(Outcome::Executable))
    }

    fn do_build(&self, options: &str, log: &mut String) -> Result<Built> {
        // One options grammar for every program (clc's); for SPIR-V only the options that
        // change what the runtime does matter.
        let opts = clc::BuildOptions::parse(options).map_err(clc_error)?;
        let explicit_uniform = opts
            .clang_args
            .iter()
            .any(|a| a == "-cl-uniform-work-group-size");
        match &self.source {
            ProgramSource::Source(src) => {
                let out = clc::compile(src, options, &[]).map_err(clc_error)?;
                log.push_str(&out.log);
                let spirv = out.spirv.ok_or(Error::BuildFailure)?;
                // OpenCL C 1.x (the default without -cl-std) requires uniform work-groups.
                executable(
                    spirv,
                    &HashMap::new(),
                    opts.kernel_arg_info,
                    opts.uniform_work_groups,
                    log,
                )
            }
            ProgramSource::Il(il) => {
                let spec = self.spec_values.lock().clone();
                executable(il.clone(), &spec, false, explicit_uniform, log)
            }
            ProgramSource::Binary(b) => executable(
                b.spirv.clone(),
                &HashMap::new(),
                b.kernel_arg_info,
                b.uniform_work_groups || explicit_uniform,
                log,
            ),
            ProgramSource::Linked => Err(Error::InvalidOperation("linked program")),
        }
    }

    /// `clCompileProgram`: OpenCL C to a SPIR-V object (`headers` resolve `#include`s), or
    /// IL kept as the object.
    pub fn compile(&self, options: &str, headers: &[clc::Header<'_>]) -> Result<()> {
        if !matches!(self.source, ProgramSource::Source(_) | ProgramSource::Il(_)) {
            return Err(Error::InvalidOperation(
                "the program has no source or IL to compile",
            ));
        }
        self.begin(options)?;
        let mut log = String::new();
        let result = catch_unwind(AssertUnwindSafe(|| {
            self.do_compile(options, headers, &mut log)
        }))
        .unwrap_or_else(|_| {
            push_line(
                &mut log,
                "internal compiler error (panic); please report it",
            );
            Err(Error::CompileFailure)
        });
        self.finish(log, result)
    }

    fn do_compile(
        &self,
        options: &str,
        headers: &[clc::Header<'_>],
        log: &mut String,
    ) -> Result<Outcome> {
        let opts = clc::BuildOptions::parse(options).map_err(|e| match e {
            clc::ClcError::InvalidOption(o) => Error::InvalidCompilerOptions(o),
            other => clc_error(other),
        })?;
        if opts.create_library || opts.enable_link_options {
            return Err(Error::InvalidCompilerOptions(
                "link options given to clCompileProgram".into(),
            ));
        }
        let spirv = match &self.source {
            ProgramSource::Source(src) => {
                let out = clc::compile_with(src, &opts, headers).map_err(clc_error)?;
                log.push_str(&out.log);
                out.spirv.ok_or(Error::CompileFailure)?
            }
            ProgramSource::Il(il) => il.clone(),
            _ => return Err(Error::InvalidOperation("nothing to compile")),
        };
        let from_source = matches!(self.source, ProgramSource::Source(_));
        Ok(Outcome::Object {
            spirv,
            library: false,
            kernel_arg_info: from_source && opts.kernel_arg_info,
            uniform: if from_source {
                opts.uniform_work_groups
            } else {
                opts.clang_args
                    .iter()
                    .any(|a| a == "-cl-uniform-work-group-size")
            },
        })
    }

    /// The compiled object or library of an input to `clLinkProgram`.
    fn link_input(&self) -> Result<(Vec<u8>, bool, bool)> {
        let st = self.build.lock();
        match (&st.object, st.binary_type) {
            (Some(o), BinaryType::CompiledObject | BinaryType::Library) => {
                Ok((o.clone(), st.object_arg_info, st.object_uniform))
            }
            _ => Err(Error::InvalidOperation(
                "an input program is not a compiled object or library",
            )),
        }
    }

    /// `clLinkProgram`: a new program from compiled objects and libraries. The program is
    /// returned even when the link fails (its log says why); the `Result` beside it is the
    /// link's outcome.
    pub fn link(
        context: Arc<Context>,
        options: &str,
        inputs: &[Arc<Program>],
    ) -> Result<(Arc<Program>, Result<()>)> {
        let opts = LinkOptions::parse(options)?;
        let mut modules = Vec::with_capacity(inputs.len());
        let (mut arg_info, mut uniform) = (true, false);
        for p in inputs {
            let (m, a, u) = p.link_input()?;
            modules.push(m);
            arg_info &= a;
            uniform |= u;
        }
        let program = Program::new(context, ProgramSource::Linked)?;
        program.begin(options)?;
        let mut log = String::new();
        let result = catch_unwind(AssertUnwindSafe(|| {
            let scratch = clc::ScratchDir::new()
                .map_err(|e| Error::OutOfResources(format!("scratch directory: {e}")))?;
            let refs: Vec<&[u8]> = modules.iter().map(Vec::as_slice).collect();
            let linked = link::link(&refs, opts.create_library, &scratch.0).map_err(|l| {
                push_line(&mut log, &l);
                Error::LinkFailure
            })?;
            if opts.create_library {
                Ok(Outcome::Object {
                    spirv: linked,
                    library: true,
                    kernel_arg_info: arg_info,
                    uniform,
                })
            } else {
                executable(linked, &HashMap::new(), arg_info, uniform, &mut log)
                    .map(Outcome::Executable)
                    .map_err(|e| match e {
                        Error::BuildFailure => Error::LinkFailure,
                        e => e,
                    })
            }
        }))
        .unwrap_or(Err(Error::LinkFailure));
        let outcome = program.finish(log, result);
        Ok((program, outcome))
    }

    /// Kernel descriptions of the last successful build.
    pub fn kernel_infos(&self) -> Result<Vec<KernelInfo>> {
        let built = self.built().ok_or(Error::InvalidProgramExecutable)?;
        Ok(built.kernels.iter().map(|k| k.info.clone()).collect())
    }
}

/// What a build, compile or link produced.
enum Outcome {
    Executable(Built),
    Object {
        spirv: Vec<u8>,
        library: bool,
        kernel_arg_info: bool,
        uniform: bool,
    },
}

/// Lift `spirv` and compile every kernel.
fn executable(
    spirv: Vec<u8>,
    spec: &HashMap<u32, u64>,
    kernel_arg_info: bool,
    uniform_work_groups: bool,
    log: &mut String,
) -> Result<Built> {
    let module = Module::from_spirv_with_spec_constants(&spirv, spec).map_err(|e| {
        push_line(log, &e.to_string());
        Error::BuildFailure
    })?;
    let mut kernels = Vec::with_capacity(module.kernels().len());
    for info in module.kernels() {
        match module.compile_kernel(&info.name) {
            Ok(k) => kernels.push(k),
            Err(e) => {
                push_line(log, &format!("kernel {}: {e}", info.name));
                return Err(Error::BuildFailure);
            }
        }
    }
    Ok(Built {
        spirv,
        kernels,
        kernel_arg_info,
        global_variable_bytes: usize::try_from(module.global_variable_bytes())
            .unwrap_or(usize::MAX),
        uniform_work_groups,
    })
}

fn clc_error(e: clc::ClcError) -> Error {
    match e {
        clc::ClcError::InvalidOption(o) => Error::InvalidBuildOptions(o),
        clc::ClcError::CompilerNotAvailable(m) => Error::CompilerNotAvailable(m),
    }
}

fn push_line(log: &mut String, line: &str) {
    if !log.is_empty() && !log.ends_with('\n') {
        log.push('\n');
    }
    log.push_str(line);
    log.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spirv_magic() {
        let mut m = vec![0u8; 20];
        m[..4].copy_from_slice(&SPIRV_MAGIC.to_le_bytes());
        assert!(looks_like_spirv(&m));
        m[..4].copy_from_slice(&SPIRV_MAGIC.to_be_bytes());
        assert!(looks_like_spirv(&m));
        assert!(!looks_like_spirv(&m[..19]));
        assert!(!looks_like_spirv(b"__kernel void f() {}"));
    }

    #[test]
    fn link_options() {
        assert!(LinkOptions::parse("").is_ok());
        assert!(
            LinkOptions::parse("-create-library -enable-link-options")
                .unwrap()
                .create_library
        );
        assert!(LinkOptions::parse("-enable-link-options").is_err());
        assert!(LinkOptions::parse("-cl-fast-relaxed-math").is_ok());
        assert!(matches!(
            LinkOptions::parse("-D X=1"),
            Err(Error::InvalidLinkerOptions(_))
        ));
    }
}
