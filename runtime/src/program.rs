//! Programs: OpenCL C source (compiled to SPIR-V by [`clc`]) or SPIR-V, built into a
//! compiler [`ferrite_compiler::Module`].
//!
//! A build is synchronous and compiles *every* kernel of the module, so that any compiler
//! error lands in the build log (not in a later `clCreateKernel`). A successful build is an
//! immutable [`Built`] shared by the program and every kernel created from it: rebuilding
//! (allowed only while no kernel is attached) replaces the program's `Built` without
//! touching running kernels.

pub mod clc;

use crate::api::{api_type, ApiObject, ObjectType};
use crate::context::Context;
use crate::error::{Error, Result};
use ferrite_compiler::{CompiledKernel, KernelInfo, Module};
use parking_lot::Mutex;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// What the program was created from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProgramSource {
    /// OpenCL C source text.
    Source(String),
    /// A SPIR-V module given as IL.
    Il(Vec<u8>),
    /// A SPIR-V module given as a "binary" (what `CL_PROGRAM_BINARIES` returns today).
    Binary(Vec<u8>),
}

/// `CL_PROGRAM_BUILD_STATUS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildStatus {
    None,
    Error,
    Success,
    InProgress,
}

/// The result of a successful build.
pub struct Built {
    /// The SPIR-V module the kernels come from (`CL_PROGRAM_IL`/`CL_PROGRAM_BINARIES`).
    pub spirv: Vec<u8>,
    /// Every kernel, in `OpEntryPoint` order.
    pub kernels: Vec<CompiledKernel>,
    /// Built with `-cl-kernel-arg-info`.
    pub kernel_arg_info: bool,
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
}

#[repr(C)]
pub struct Program {
    pub api: ApiObject,
    pub context: Arc<Context>,
    pub source: ProgramSource,
    build: Mutex<BuildState>,
    /// Kernel objects created from this program and not yet destroyed.
    kernels_attached: AtomicUsize,
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

impl Program {
    pub fn new(context: Arc<Context>, source: ProgramSource) -> Result<Arc<Program>> {
        match &source {
            ProgramSource::Il(b) if !looks_like_spirv(b) => {
                return Err(Error::InvalidValue("IL is not a SPIR-V module"));
            }
            ProgramSource::Binary(b) if !looks_like_spirv(b) => {
                return Err(Error::InvalidBinary("not a SPIR-V module".into()));
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
            }),
            kernels_attached: AtomicUsize::new(0),
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

    /// The last successful build, if any.
    pub fn built(&self) -> Option<Arc<Built>> {
        self.build.lock().built.clone()
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

    /// Build the program with `options` (synchronously).
    pub fn build(&self, options: &str) -> Result<()> {
        {
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
        }
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
        let mut st = self.build.lock();
        st.log = log;
        match result {
            Ok(built) => {
                st.status = BuildStatus::Success;
                st.built = Some(Arc::new(built));
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

    fn do_build(&self, options: &str, log: &mut String) -> Result<Built> {
        // One options grammar for every program (clc's); for SPIR-V only the options that
        // change what the runtime does matter.
        let opts = clc::BuildOptions::parse(options).map_err(clc_error)?;
        let (spirv, from_source) = match &self.source {
            ProgramSource::Source(src) => {
                let out = clc::compile(src, options, &[]).map_err(clc_error)?;
                log.push_str(&out.log);
                match out.spirv {
                    Some(s) => (s, true),
                    None => return Err(Error::BuildFailure),
                }
            }
            ProgramSource::Il(s) | ProgramSource::Binary(s) => (s.clone(), false),
        };
        let module = Module::from_spirv(&spirv).map_err(|e| {
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
        // OpenCL C 1.x (the default without -cl-std) requires uniform work-groups; SPIR-V
        // only with -cl-uniform-work-group-size.
        let uniform_work_groups = if from_source {
            opts.uniform_work_groups
        } else {
            opts.clang_args
                .iter()
                .any(|a| a == "-cl-uniform-work-group-size")
        };
        Ok(Built {
            spirv,
            kernels,
            kernel_arg_info: opts.kernel_arg_info,
            uniform_work_groups,
        })
    }

    /// Kernel descriptions of the last successful build.
    pub fn kernel_infos(&self) -> Result<Vec<KernelInfo>> {
        let built = self.built().ok_or(Error::InvalidProgramExecutable)?;
        Ok(built.kernels.iter().map(|k| k.info.clone()).collect())
    }
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
}
