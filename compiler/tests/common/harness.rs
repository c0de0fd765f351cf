//! Test harness of the compiler tests: OpenCL C and `.spvasm` sources to SPIR-V through
//! checked-in fixtures, argument blocks, and an NDRange runner that calls the work-group
//! function for every group the way the runtime's executor will, once in the reference
//! shape and once in the default shape, and requires the same results.
//!
//! **SPIR-V fixtures.** The SPIR-V a test compiles from OpenCL C (clang-15 + llvm-spirv-15)
//! or assembles from SPIR-V text (spirv-as) is checked in under `compiler/tests/fixtures/`:
//! `<key>.spv` beside its source, `<key>.cl` or `<key>.spvasm`, whose first line is a comment
//! giving the commands and flags. `<key>` is the FNV-1a 64 hash (hex) of the kind, the
//! flags and the source, so the same source and flags always find the same file.
//! - A fixture that exists is used as it is: the tests run without clang, llvm-spirv or
//!   spirv-as installed. Its source file must hold exactly the test's source (else the test
//!   fails: a hash collision or a hand-edited fixture).
//! - A fixture that is missing (a new or edited kernel) is made with the tools and written;
//!   the test then FAILS, saying which files were written, so a test never passes on a
//!   fixture that is not checked in: run it again and commit the new files. With
//!   `FERRITE_BLESS=1` missing fixtures are written and the test goes on (for editing many
//!   kernels at once).
//! - `scripts/regen-compiler-fixtures` deletes every fixture and runs the compiler tests
//!   with `FERRITE_BLESS=1`: the way to drop fixtures no test uses any more, and to remake
//!   them all after a tool change. The tools' output is deterministic: running it twice
//!   leaves `git status` clean.
//! - A tool a test needs that is missing (`FERRITE_CLANG`, `FERRITE_LLVM_SPIRV` override
//!   the paths) fails the test, unless `FERRITE_TESTS_ALLOW_SKIP=1` (as in the API tests),
//!   which makes the test print `SKIP:` and pass.
//! - `FERRITE_TESTS_CLANG=clang-22` (or `clang-14`, …) runs the tests on what another
//!   toolchain makes, the way the runtime would run it: fixtures are neither read nor
//!   written, clang 20 and newer uses its own SPIR-V target (`--target=spirv64`), an older
//!   one `llvm-spirv-<major>` (`FERRITE_TESTS_LLVM_SPIRV` overrides). The way to check
//!   that every toolchain the runtime may find compiles the tests' kernels right.
//!
//! **Reference against default shape.** [`kernel`] and its siblings compile each kernel
//! twice, from two modules of the same SPIR-V (each with its own program-scope storage):
//! `Module::compile_kernel_reference` (the kernel a function called once per work-item,
//! no vector loop) and `Module::compile_kernel` (inlined, vectorised when the vectoriser
//! takes the kernel). Every launch ([`run`], [`run1`], [`run1_local`], [`run_par`],
//! [`run1_printf`]) snapshots every buffer argument, runs the reference shape, keeps its
//! results, restores the buffers, runs the default shape, and fails on the first byte that
//! differs (and on different `printf` output). The test then checks the default shape's
//! results as before. `FERRITE_TESTS_NO_DIFF=1` compiles and runs the default shape only.
//! Not compared, on purpose (keep this list short):
//! - [`run_groups_concurrently`] (litmus tests): the outcome depends on how threads
//!   interleave, and the groups wait for each other, so a second run proves nothing.
//! - Kernels built with [`Kernel::alone`], each with its reason at the call site.
//! - Program-scope variables: each shape has its own storage, which is not compared.
#![allow(dead_code)]

use ferrite_compiler::{ArgKind, CompiledKernel, GroupContext, KernelInfo, Module, PrintfBuffer};
use std::cell::Cell;
use std::collections::HashMap;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// The `printf` buffer launches on this thread hand to kernels (null: none).
    static PRINTF: Cell<*const PrintfBuffer> = const { Cell::new(std::ptr::null()) };
}

fn scratch(ext: &str) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!(
        "ferrite-compiler-test-{}-{n}.{ext}",
        std::process::id()
    ))
}

fn flag(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v == "1")
}

fn tool(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_string())
}

fn have(prog: &str) -> bool {
    Command::new(prog).arg("--version").output().is_ok()
}

/// Whether a test may skip when a tool it needs is missing (`FERRITE_TESTS_ALLOW_SKIP=1`).
pub fn skip_allowed() -> bool {
    flag("FERRITE_TESTS_ALLOW_SKIP")
}

/// `true` when `present`; otherwise prints a skip message and returns `false` if skipping
/// is allowed, or fails the test.
#[track_caller]
fn require(present: bool, what: &str) -> bool {
    if present {
        return true;
    }
    if skip_allowed() {
        eprintln!("SKIP: {what} (FERRITE_TESTS_ALLOW_SKIP=1)");
        false
    } else {
        panic!(
            "{what}; this test needs it (install it with scripts/setup-debian, or set \
             FERRITE_TESTS_ALLOW_SKIP=1 to skip)"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// SPIR-V fixtures

/// The directory of the checked-in SPIR-V fixtures.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// FNV-1a, 64 bits: stable across Rust versions and platforms (unlike `DefaultHasher`).
fn fnv1a64(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain([0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// Write `bytes` to `path` through a temporary file and a rename, so tests writing the
/// same fixture at once never leave half a file.
fn write_atomically(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension(format!(
        "tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&tmp, bytes).unwrap_or_else(|e| panic!("write {}: {e}", tmp.display()));
    std::fs::rename(&tmp, path).unwrap_or_else(|e| panic!("rename to {}: {e}", path.display()));
}

/// The SPIR-V of `src` from the fixture `<key>.spv` (its source in `<key>.<ext>`, `header`
/// on the first line); `make` produces it when the fixture is missing (`None`: a tool is
/// missing and skipping is allowed).
fn fixture(
    kind: &str,
    ext: &str,
    header: &str,
    src: &str,
    make: impl FnOnce() -> Option<Vec<u8>>,
) -> Option<Vec<u8>> {
    let key = format!("{:016x}", fnv1a64(&[kind, header, src]));
    let dir = fixtures_dir();
    let spv_path = dir.join(format!("{key}.spv"));
    let src_path = dir.join(format!("{key}.{ext}"));
    let text = format!("{header}\n{src}");
    if let Ok(spv) = std::fs::read(&spv_path) {
        let held = std::fs::read_to_string(&src_path).unwrap_or_default();
        assert!(
            held == text,
            "fixture {} does not hold this test's source (edited by hand, or a hash \
             collision); run scripts/regen-compiler-fixtures",
            src_path.display()
        );
        return Some(spv);
    }
    let spv = make()?;
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
    write_atomically(&src_path, text.as_bytes());
    write_atomically(&spv_path, &spv);
    if !flag("FERRITE_BLESS") {
        panic!(
            "new SPIR-V fixture written: {} (source {}). Run the test again and commit both \
             files; FERRITE_BLESS=1 writes missing fixtures without failing, and \
             scripts/regen-compiler-fixtures remakes them all and drops stale ones",
            spv_path.display(),
            src_path.display()
        );
    }
    Some(spv)
}

/// Compile OpenCL C to SPIR-V (`-O2`).
pub fn cl_to_spirv(src: &str) -> Option<Vec<u8>> {
    cl_to_spirv_opt(src, "-O2")
}

/// Like [`cl_to_spirv`] with clang's optimisation flag (`-O0` keeps calls and private
/// variables in memory).
pub fn cl_to_spirv_opt(src: &str, opt: &str) -> Option<Vec<u8>> {
    cl_to_spirv_with(src, opt, &[], "")
}

const CLANG_ARGS: [&str; 4] = ["-c", "-target", "spir64", "-cl-std=CL3.0"];

/// Like [`cl_to_spirv_opt`] with extra clang arguments and extra llvm-spirv extensions
/// (`",+SPV_EXT_…"`), through the fixture of these flags and source (see the module doc).
pub fn cl_to_spirv_with(
    src: &str,
    opt: &str,
    clang_args: &[&str],
    spirv_exts: &str,
) -> Option<Vec<u8>> {
    let ext_flag = format!("--spirv-ext=+SPV_INTEL_arbitrary_precision_integers{spirv_exts}");
    let header = format!(
        "// clang-15 {} {opt} -cl-kernel-arg-info{}{} -emit-llvm | llvm-spirv-15 {ext_flag} \
         --preserve-ocl-kernel-arg-type-metadata-through-string",
        CLANG_ARGS.join(" "),
        if clang_args.is_empty() { "" } else { " " },
        clang_args.join(" "),
    );
    if let Ok(clang) = std::env::var("FERRITE_TESTS_CLANG") {
        return Some(compile_with_toolchain(
            &clang, src, opt, clang_args, spirv_exts,
        ));
    }
    fixture("cl", "cl", &header, src, || {
        compile_cl(src, opt, clang_args, &ext_flag)
    })
}

/// What the driver feeds clang-14 before every source.
const CLANG_14_PRELUDE: &str = include_str!("../../../runtime/src/program/clang14_prelude.cl");

/// The major version in a clang name (`clang-22`) or its `--version` output.
fn clang_major(clang: &str) -> u32 {
    if let Some(v) = clang.rsplit('-').next().and_then(|v| v.parse().ok()) {
        return v;
    }
    let out = Command::new(clang)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("run {clang}: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    text.split("clang version ")
        .nth(1)
        .and_then(|r| r.split('.').next())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no version in `{clang} --version`: {text}"))
}

/// Compile with the toolchain `FERRITE_TESTS_CLANG` names (see the module doc), without
/// fixtures. `spirv_exts` is the tests' `",+SPV_…"` list.
fn compile_with_toolchain(
    clang: &str,
    src: &str,
    opt: &str,
    clang_args: &[&str],
    spirv_exts: &str,
) -> Vec<u8> {
    let major = clang_major(clang);
    let llvm_spirv = std::env::var("FERRITE_TESTS_LLVM_SPIRV").ok();
    if major < 20 || llvm_spirv.is_some() {
        let llvm_spirv = llvm_spirv.unwrap_or_else(|| format!("llvm-spirv-{major}"));
        let mut ext_flag = String::from("--spirv-ext=+SPV_INTEL_arbitrary_precision_integers");
        ext_flag.push_str(spirv_exts);
        if major < 15 {
            // llvm-spirv-14 does not know it (the driver leaves it out too).
            ext_flag = ext_flag.replace(",+SPV_KHR_subgroup_rotate", "");
        }
        let cl = scratch("cl");
        let bc = scratch("bc");
        let spv = scratch("spv");
        // What the driver feeds clang-14 first (runtime/src/program/clc.rs), and its
        // `-cl-ext`, which clang-14 takes only as a frontend option.
        let mut args: Vec<String> = Vec::new();
        let mut text = String::new();
        if major < 15 {
            text.push_str(CLANG_14_PRELUDE);
            for a in clang_args {
                if a.starts_with("-cl-ext=") && args.last().is_none_or(|l| l != "-Xclang") {
                    args.push("-Xclang".into());
                }
                args.push(a.to_string());
            }
        } else {
            args.extend(clang_args.iter().map(|a| a.to_string()));
        }
        text.push_str(src);
        std::fs::write(&cl, text).expect("write .cl");
        let out = Command::new(clang)
            .args(CLANG_ARGS)
            .args([opt, "-cl-kernel-arg-info"])
            .args(&args)
            .arg("-emit-llvm")
            .arg(&cl)
            .arg("-o")
            .arg(&bc)
            .output()
            .unwrap_or_else(|e| panic!("run {clang}: {e}"));
        assert!(
            out.status.success(),
            "{clang} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = Command::new(&llvm_spirv)
            .arg(&ext_flag)
            .arg("--preserve-ocl-kernel-arg-type-metadata-through-string")
            .arg(&bc)
            .arg("-o")
            .arg(&spv)
            .output()
            .unwrap_or_else(|e| panic!("run {llvm_spirv}: {e}"));
        assert!(
            out.status.success(),
            "{llvm_spirv} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bytes = std::fs::read(&spv).expect("read .spv");
        for f in [cl, bc, spv] {
            let _ = std::fs::remove_file(f);
        }
        return bytes;
    }
    // As the driver compiles with clang's own target (runtime/src/program/clc.rs): the
    // integer-conversion macros first, parameter names kept, and the argument type names
    // from a second run to LLVM IR added as llvm-spirv's strings.
    let cl = scratch("cl");
    let spv = scratch("spv");
    let ll = scratch("ll");
    let text = format!("{}#line 1\n{src}", conversions_prelude::make());
    std::fs::write(&cl, text).expect("write .cl");
    let mut args: Vec<String> = ["-c", "--target=spirv64", "-cl-std=CL3.0", opt]
        .into_iter()
        .chain(["-cl-kernel-arg-info", "-fno-discard-value-names"])
        .chain(clang_args.iter().copied())
        .map(String::from)
        .collect();
    let exts: Vec<&str> = spirv_exts.split(',').filter(|e| !e.is_empty()).collect();
    if !exts.is_empty() {
        args.push("-mllvm".into());
        args.push(format!("--spirv-ext={}", exts.join(",")));
    }
    args.extend([
        cl.display().to_string(),
        "-o".into(),
        spv.display().to_string(),
    ]);
    let run = |args: &[String]| {
        let out = Command::new(clang)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("run {clang}: {e}"));
        assert!(
            out.status.success(),
            "{clang} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&args);
    run(&arg_info::ir_args(&args, &ll));
    let ir = std::fs::read_to_string(&ll).expect("read .ll");
    let bytes = std::fs::read(&spv).expect("read .spv");
    let bytes = arg_info::add_strings(&bytes, &arg_info::arg_strings(&ir));
    for f in [cl, spv, ll] {
        let _ = std::fs::remove_file(f);
    }
    bytes
}

/// The driver's argument type names for clang's own SPIR-V target, and its
/// integer-conversion macros: the same files, so the tests compile as the driver does.
#[path = "../../../runtime/src/program/arg_info.rs"]
#[allow(dead_code)]
mod arg_info;
#[path = "../../../runtime/src/program/conversions_prelude.rs"]
#[allow(dead_code)]
mod conversions_prelude;

/// Run clang-15 and llvm-spirv-15.
fn compile_cl(src: &str, opt: &str, clang_args: &[&str], ext_flag: &str) -> Option<Vec<u8>> {
    let clang = tool("FERRITE_CLANG", "clang-15");
    let spirv = tool("FERRITE_LLVM_SPIRV", "llvm-spirv-15");
    let what = format!("{clang} / {spirv} not installed and no SPIR-V fixture for this kernel");
    if !require(have(&clang) && have(&spirv), &what) {
        return None;
    }
    let cl = scratch("cl");
    let bc = scratch("bc");
    let spv = scratch("spv");
    std::fs::write(&cl, src).expect("write .cl");
    let out = Command::new(&clang)
        .args(CLANG_ARGS)
        .args([opt, "-cl-kernel-arg-info"])
        .args(clang_args)
        .arg("-emit-llvm")
        .arg(&cl)
        .arg("-o")
        .arg(&bc)
        .output()
        .expect("run clang");
    assert!(
        out.status.success(),
        "clang failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&spirv)
        .arg(ext_flag)
        .arg("--preserve-ocl-kernel-arg-type-metadata-through-string")
        .arg(&bc)
        .arg("-o")
        .arg(&spv)
        .output()
        .expect("run llvm-spirv");
    assert!(
        out.status.success(),
        "llvm-spirv failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&spv).expect("read .spv");
    for f in [cl, bc, spv] {
        let _ = std::fs::remove_file(f);
    }
    Some(bytes)
}

/// Assemble SPIR-V text (SPIR-V 1.4).
pub fn spvasm(src: &str) -> Option<Vec<u8>> {
    spvasm_for(src, "spv1.4")
}

/// [`spvasm`] for a target environment (`spv1.6`: the module's version word too), through
/// the fixture of this source (see the module doc).
pub fn spvasm_for(src: &str, target_env: &str) -> Option<Vec<u8>> {
    let header = format!("; spirv-as --target-env {target_env}");
    fixture("spvasm", "spvasm", &header, src, || {
        assemble(src, target_env)
    })
}

/// Run spirv-as.
fn assemble(src: &str, target_env: &str) -> Option<Vec<u8>> {
    if !require(
        have("spirv-as"),
        "spirv-as not installed and no SPIR-V fixture for this module",
    ) {
        return None;
    }
    let asm = scratch("spvasm");
    let spv = scratch("spv");
    std::fs::write(&asm, src).expect("write .spvasm");
    let out = Command::new("spirv-as")
        .args(["--target-env", target_env])
        .arg(&asm)
        .arg("-o")
        .arg(&spv)
        .output()
        .expect("run spirv-as");
    assert!(
        out.status.success(),
        "spirv-as failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&spv).expect("read .spv");
    let _ = std::fs::remove_file(asm);
    let _ = std::fs::remove_file(spv);
    Some(bytes)
}

// ---------------------------------------------------------------------------------------------
// Kernels in both shapes

/// Whether launches run the reference shape too (not with `FERRITE_TESTS_NO_DIFF=1`).
fn diff_enabled() -> bool {
    !flag("FERRITE_TESTS_NO_DIFF")
}

/// A kernel in the default shape and, unless comparing is off, the reference shape.
/// Dereferences to the default shape's [`CompiledKernel`].
pub struct Kernel {
    fast: CompiledKernel,
    reference: Option<CompiledKernel>,
    /// The default shape at the other vector widths (when it vectorises), each compared
    /// with the reference too.
    widths: Vec<CompiledKernel>,
}

impl Deref for Kernel {
    type Target = CompiledKernel;
    fn deref(&self) -> &CompiledKernel {
        &self.fast
    }
}

impl Kernel {
    /// A kernel whose launches are not compared with the reference shape; `why` documents
    /// the exclusion at the call site (see the module doc).
    pub fn alone(k: CompiledKernel, _why: &'static str) -> Kernel {
        Kernel {
            fast: k,
            reference: None,
            widths: Vec::new(),
        }
    }

    /// Two given kernels as the default and the reference shape (the harness's own tests:
    /// two different kernels must be reported).
    pub fn pair(default: CompiledKernel, reference: CompiledKernel) -> Kernel {
        Kernel {
            fast: default,
            reference: Some(reference),
            widths: Vec::new(),
        }
    }
}

/// A module in both shapes: two modules of one SPIR-V binary, so the shapes keep separate
/// program-scope storage. Dereferences to the default shape's [`Module`].
pub struct TestModule {
    fast: Module,
    reference: Option<Module>,
    /// A module per other vector width (own program-scope storage too).
    widths: Vec<(usize, Module)>,
}

/// The vector widths every kernel also runs at, whichever the default shape chose.
const OTHER_WIDTHS: [usize; 3] = [4, 8, 16];

impl Deref for TestModule {
    type Target = Module;
    fn deref(&self) -> &Module {
        &self.fast
    }
}

impl TestModule {
    /// Parse `spv` (twice, unless comparing is off).
    pub fn new(spv: &[u8]) -> TestModule {
        Self::with_spec_constants(spv, &HashMap::new())
    }

    /// [`TestModule::new`] with specialization constants.
    pub fn with_spec_constants(spv: &[u8], spec: &HashMap<u32, u64>) -> TestModule {
        let parse = || {
            Module::from_spirv_with_spec_constants(spv, spec)
                .unwrap_or_else(|e| panic!("from_spirv: {e}"))
        };
        let widths = match diff_enabled() {
            true => OTHER_WIDTHS.iter().map(|w| (*w, parse())).collect(),
            false => Vec::new(),
        };
        TestModule {
            fast: parse(),
            reference: diff_enabled().then(parse),
            widths,
        }
    }

    /// Kernel `name` in both shapes.
    pub fn kernel(&self, name: &str) -> Kernel {
        let fast = self
            .fast
            .compile_kernel(name)
            .unwrap_or_else(|e| panic!("compile_kernel({name}): {e}"));
        // Every kernel of a module at every width (a scalar one too), so each width's
        // module sees the same launches and its program-scope storage the same writes.
        let widths = self
            .widths
            .iter()
            .map(|(w, m)| {
                m.compile_kernel_lanes(name, *w)
                    .unwrap_or_else(|e| panic!("compile_kernel_lanes({name}, {w}): {e}"))
            })
            .collect();
        Kernel {
            fast,
            reference: self.reference.as_ref().map(|m| {
                m.compile_kernel_reference(name)
                    .unwrap_or_else(|e| panic!("compile_kernel_reference({name}): {e}"))
            }),
            widths,
        }
    }
}

/// Kernel `name` of a SPIR-V binary, in both shapes.
pub fn kernel_from_spirv(spv: &[u8], name: &str) -> Kernel {
    TestModule::new(spv).kernel(name)
}

/// Compile `src` and the kernel `name`; `None` if a tool is missing and skipping allowed.
pub fn kernel(src: &str, name: &str) -> Option<Kernel> {
    kernel_opt(src, name, "-O2")
}

/// Compile with extra clang arguments and llvm-spirv extensions.
pub fn kernel_with(src: &str, name: &str, clang_args: &[&str], spirv_exts: &str) -> Option<Kernel> {
    let spv = cl_to_spirv_with(src, "-O2", clang_args, spirv_exts)?;
    Some(kernel_from_spirv(&spv, name))
}

/// Like [`kernel`] with clang's optimisation flag.
pub fn kernel_opt(src: &str, name: &str, opt: &str) -> Option<Kernel> {
    let spv = cl_to_spirv_opt(src, opt)?;
    Some(kernel_from_spirv(&spv, name))
}

// ---------------------------------------------------------------------------------------------
// Arguments

/// An argument block for one launch.
pub struct Args {
    pub bytes: Vec<u64>,
    info: KernelInfo,
    /// The buffer arguments: argument index, address and length in bytes.
    buffers: Vec<(usize, usize, usize)>,
}

impl Args {
    pub fn new(info: &KernelInfo) -> Args {
        Args {
            bytes: vec![0; info.args_size.div_ceil(8).max(1)],
            info: info.clone(),
            buffers: Vec::new(),
        }
    }

    fn raw(&mut self) -> &mut [u8] {
        let len = self.bytes.len() * 8;
        let ptr = self.bytes.as_mut_ptr().cast::<u8>();
        // SAFETY: `bytes` is a live Vec<u64> of `len / 8` elements; u8 has no alignment
        // or validity requirements, and the slice borrows `self` mutably.
        unsafe { std::slice::from_raw_parts_mut(ptr, len) }
    }

    /// A buffer argument: the slot holds the slice's address. The slice must stay alive
    /// and unborrowed while launches with these arguments run (like the kernel, the
    /// comparison of shapes reads and writes it).
    pub fn buf<T>(&mut self, i: usize, data: &mut [T]) -> &mut Self {
        assert!(matches!(self.info.args[i].kind, ArgKind::Buffer { .. }));
        let off = self.info.args[i].offset;
        let addr = data.as_mut_ptr() as u64;
        self.raw()[off..off + 8].copy_from_slice(&addr.to_ne_bytes());
        self.buffers.retain(|b| b.0 != i);
        self.buffers
            .push((i, addr as usize, std::mem::size_of_val(data)));
        self
    }

    /// A by-value argument: its bytes.
    pub fn val<T: Copy>(&mut self, i: usize, v: T) -> &mut Self {
        let ArgKind::Value { size } = self.info.args[i].kind else {
            panic!("argument {i} is not a value");
        };
        assert_eq!(size, std::mem::size_of::<T>(), "size of argument {i}");
        let off = self.info.args[i].offset;
        let p = (&v as *const T).cast::<u8>();
        // SAFETY: `v` is a live `T`, readable as `size_of::<T>()` bytes (test values are
        // padding-free plain data).
        let bytes = unsafe { std::slice::from_raw_parts(p, size) };
        self.raw()[off..off + size].copy_from_slice(bytes);
        self
    }

    /// A `__local` argument: its byte offset in local memory.
    pub fn local(&mut self, i: usize, offset: u64) -> &mut Self {
        assert_eq!(self.info.args[i].kind, ArgKind::Local);
        let off = self.info.args[i].offset;
        self.raw()[off..off + 8].copy_from_slice(&offset.to_ne_bytes());
        self
    }

    /// The bytes of every buffer argument, in the order they were set.
    fn snapshot(&self) -> Vec<Vec<u8>> {
        self.buffers
            .iter()
            .map(|&(_, p, len)| {
                // SAFETY: `buf` recorded a live slice of `len` bytes at `p`, which the test
                // keeps alive and unborrowed while it launches with these arguments; no
                // kernel runs during the copy.
                unsafe { std::slice::from_raw_parts(p as *const u8, len) }.to_vec()
            })
            .collect()
    }

    /// Put back the bytes [`Args::snapshot`] took.
    fn restore(&self, snap: &[Vec<u8>]) {
        for (&(_, p, len), bytes) in self.buffers.iter().zip(snap) {
            assert_eq!(len, bytes.len());
            // SAFETY: as in `snapshot`; `bytes` is a separate allocation of `len` bytes.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p as *mut u8, len) };
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Launches

/// Run `launch` in the reference shape and then the default shape of `k` (or only the
/// default shape, for a kernel without a reference), the buffers restored in between, and
/// fail where the results differ. `launch` returns any further output to compare.
fn both_shapes<R: PartialEq + std::fmt::Debug>(
    k: &Kernel,
    args: &Args,
    launch: impl Fn(&CompiledKernel) -> R,
) -> R {
    let Some(reference) = &k.reference else {
        return launch(&k.fast);
    };
    let before = args.snapshot();
    let r_ref = launch(reference);
    let after_ref = args.snapshot();
    // Every other width first, each from the same inputs; the default shape last, so its
    // results are what the caller sees.
    for other in &k.widths {
        args.restore(&before);
        let r = launch(other);
        let after = args.snapshot();
        compare_shapes(args, &after_ref, &after, &r_ref, &r, other);
    }
    args.restore(&before);
    let r_fast = launch(&k.fast);
    let after_fast = args.snapshot();
    compare_shapes(args, &after_ref, &after_fast, &r_ref, &r_fast, &k.fast);
    r_fast
}

/// Fail where a shape's results (`after_fast`, `r_fast`, of kernel `k`) differ from the
/// reference shape's.
fn compare_shapes<R: PartialEq + std::fmt::Debug>(
    args: &Args,
    after_ref: &[Vec<u8>],
    after_fast: &[Vec<u8>],
    r_ref: &R,
    r_fast: &R,
    k: &CompiledKernel,
) {
    let name = format!("{} ({} lanes)", k.info.name, k.handler.lanes);
    for ((&(arg, _, _), a), b) in args.buffers.iter().zip(after_ref).zip(after_fast) {
        if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
            let diffs = (0..a.len()).filter(|&i| a[i] != b[i]).count();
            let w = i & !3;
            let word = |v: &[u8]| {
                let mut x = [0u8; 4];
                let n = (v.len() - w).min(4);
                x[..n].copy_from_slice(&v[w..w + n]);
                u32::from_ne_bytes(x)
            };
            panic!(
                "kernel {name}: argument {arg} differs between the reference shape and the \
                 default shape at byte {i} ({diffs} bytes differ); the 32-bit word at byte \
                 {w}: reference {:#010x}, default {:#010x} (FERRITE_TESTS_NO_DIFF=1 skips \
                 the comparison)",
                word(a),
                word(b)
            );
        }
    }
    assert_eq!(
        r_ref, r_fast,
        "kernel {name}: other output differs (left: reference shape, right: default shape)"
    );
}

/// Run one work-group with its own local memory and frame arena.
#[allow(clippy::too_many_arguments)]
fn run_group(
    k: &CompiledKernel,
    args: &Args,
    dim: u64,
    global: [u64; 3],
    local: [u64; 3],
    offset: [u64; 3],
    gid: [u64; 3],
    lmem: &mut [u64],
    frame: &mut [FrameBlock],
) {
    let groups: Vec<u64> = (0..3).map(|d| global[d].div_ceil(local[d])).collect();
    let mut ls = [0; 3];
    for d in 0..3 {
        ls[d] = local[d].min(global[d] - gid[d] * local[d]);
    }
    let ctx = GroupContext {
        global_size: global,
        global_offset: offset,
        enqueued_local_size: local,
        local_size: ls,
        num_groups: [groups[0], groups[1], groups[2]],
        group_id: gid,
        work_dim: dim,
        local_mem: lmem.as_mut_ptr().cast(),
        frame: frame.as_mut_ptr().cast(),
        local_mem_size: (lmem.len() * 8) as u64,
        printf: PRINTF.with(Cell::get),
        check: std::ptr::null(),
    };
    // SAFETY: the entry follows the work-group ABI; `args` was laid out from the kernel's
    // `KernelInfo` and its buffers outlive the call, `ctx`, the local memory and the frame
    // arena (`frame_size_per_item` × the enqueued group size, 128-byte aligned) live on the
    // caller's frame and belong to this call alone.
    unsafe { (k.entry())(args.bytes.as_ptr().cast(), &ctx) };
}

/// 128 bytes of frame arena, 128-byte aligned like the executor's frame arenas.
#[derive(Clone, Copy)]
#[repr(C, align(128))]
pub struct FrameBlock([u8; 128]);

fn arenas(
    k: &CompiledKernel,
    local: [u64; 3],
    local_mem_bytes: usize,
) -> (Vec<u64>, Vec<FrameBlock>) {
    let lmem = vec![0u64; (k.static_local_size + local_mem_bytes).div_ceil(8).max(1)];
    let items = (local[0] * local[1] * local[2]) as usize;
    let frame = vec![FrameBlock([0; 128]); (k.frame_size_per_item * items).div_ceil(128).max(1)];
    (lmem, frame)
}

/// Run an NDRange: every group in order, `local_mem_bytes` of local memory per group; in
/// both shapes, compared.
pub fn run(
    k: &Kernel,
    args: &Args,
    dim: u64,
    global: [u64; 3],
    local: [u64; 3],
    offset: [u64; 3],
    local_mem_bytes: usize,
) {
    both_shapes(k, args, |k| {
        run_in_order(k, args, dim, global, local, offset, local_mem_bytes)
    })
}

fn run_in_order(
    k: &CompiledKernel,
    args: &Args,
    dim: u64,
    global: [u64; 3],
    local: [u64; 3],
    offset: [u64; 3],
    local_mem_bytes: usize,
) {
    let (mut lmem, mut frame) = arenas(k, local, local_mem_bytes);
    let groups: Vec<u64> = (0..3).map(|d| global[d].div_ceil(local[d])).collect();
    for gz in 0..groups[2] {
        for gy in 0..groups[1] {
            for gx in 0..groups[0] {
                run_group(
                    k,
                    args,
                    dim,
                    global,
                    local,
                    offset,
                    [gx, gy, gz],
                    &mut lmem,
                    &mut frame,
                );
            }
        }
    }
}

/// Run a 1-D NDRange with its groups spread over `threads` threads (groups taken from a
/// shared counter), each thread with its own local memory and frame arena, so global
/// atomics really race; in both shapes, compared (the tests' results do not depend on the
/// order of the atomics).
pub fn run_par(
    k: &Kernel,
    args: &Args,
    global: u64,
    local: u64,
    local_mem_bytes: usize,
    threads: usize,
) {
    both_shapes(k, args, |k| {
        let groups = global.div_ceil(local);
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    let (mut lmem, mut frame) = arenas(k, [local, 1, 1], local_mem_bytes);
                    loop {
                        let g = next.fetch_add(1, Ordering::Relaxed) as u64;
                        if g >= groups {
                            break;
                        }
                        run_group(
                            k,
                            args,
                            1,
                            [global, 1, 1],
                            [local, 1, 1],
                            [0; 3],
                            [g, 0, 0],
                            &mut lmem,
                            &mut frame,
                        );
                    }
                });
            }
        });
    })
}

/// Run a 1-D NDRange of `groups` groups of `local` work-items, each group on its own
/// thread, all at once (litmus tests: groups that wait for each other must run
/// concurrently). Default shape only: the outcome depends on the interleaving.
pub fn run_groups_concurrently(k: &CompiledKernel, args: &Args, groups: u64, local: u64) {
    std::thread::scope(|s| {
        for g in 0..groups {
            s.spawn(move || {
                let (mut lmem, mut frame) = arenas(k, [local, 1, 1], 0);
                run_group(
                    k,
                    args,
                    1,
                    [groups * local, 1, 1],
                    [local, 1, 1],
                    [0; 3],
                    [g, 0, 0],
                    &mut lmem,
                    &mut frame,
                );
            });
        }
    });
}

/// 1-D launch with `local_mem_bytes` of `__local` argument memory.
pub fn run1_local(k: &Kernel, args: &Args, global: u64, local: u64, local_mem_bytes: usize) {
    run(
        k,
        args,
        1,
        [global, 1, 1],
        [local, 1, 1],
        [0; 3],
        local_mem_bytes,
    );
}

/// 1-D launch without offset.
pub fn run1(k: &Kernel, args: &Args, global: u64, local: u64) {
    run(k, args, 1, [global, 1, 1], [local, 1, 1], [0; 3], 0);
}

/// 1-D launch (groups in order on this thread) that returns what the kernel printed; both
/// shapes must print the same.
pub fn run1_printf(k: &Kernel, args: &Args, global: u64, local: u64) -> String {
    both_shapes(k, args, |k| {
        let buf = PrintfBuffer::new(1 << 20);
        PRINTF.with(|p| p.set(&buf));
        run_in_order(k, args, 1, [global, 1, 1], [local, 1, 1], [0; 3], 0);
        PRINTF.with(|p| p.set(std::ptr::null()));
        String::from_utf8(buf.take_output()).expect("printf output is UTF-8")
    })
}
