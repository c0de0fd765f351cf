//! OpenCL C → SPIR-V through the clang the machine has (found by [`super::toolchain`]:
//! clang + opt + llvm-spirv of one version from 14 to 19, else clang 20+ with its own
//! SPIR-V target): no LLVM in our process. `FERRITE_CLANG` / `FERRITE_LLVM_SPIRV` /
//! `FERRITE_OPT` override the search.
//!
//! Steps: [`BuildOptions::parse`] checks the options string of `clBuildProgram` /
//! `clCompileProgram` against the OpenCL 3.0 list (§5.8.4) and turns it into clang
//! arguments; [`compile`] feeds the source to clang on stdin (diagnostics then read
//! `<stdin>:3:5: error: …`), translates the bitcode with llvm-spirv and returns the SPIR-V
//! and the diagnostics, which become `CL_PROGRAM_BUILD_LOG`.
//!
//! clang-15 enables every optional OpenCL 3.0 feature for spir64, so we pass
//! `-cl-ext=-all,+…` with exactly what the device claims ([`OPENCL_C_EXTENSIONS`],
//! [`OPENCL_C_FEATURES`]): the `__opencl_c_*` and extension macros a kernel sees then match
//! `CL_DEVICE_EXTENSIONS` / `CL_DEVICE_OPENCL_C_FEATURES`. `-cl-ext` does not reach the
//! macros clang-15's `opencl-c-base.h` defines by itself for SPIR targets in OpenCL C 2.0+
//! ([`HEADER_DEFINED_MACROS`]); a prelude fed before the source `#undef`s the ones we do not
//! claim, and a `#line 1` keeps the diagnostics' line numbers those of the source.
//!
//! Optimisation (translator toolchains; the native one runs clang's own -O2): clang's own
//! -O2 pipeline produces IR that llvm-spirv-15 cannot translate
//! (measured: `instcombine` narrows a `switch (j & 3)` to an `i2` switch that crashes
//! llvm-spirv's `SPIRVSwitch::validate`, and emits `freeze`, which it rejects). So clang runs
//! with its passes disabled and `opt-15` (`FERRITE_OPT`) runs [`OPT_PIPELINE`]: promotion of
//! locals to registers, inlining, CSE/GVN, LICM, constant propagation, CFG clean-up and
//! full unrolling of loops with a small constant trip count, without `instcombine`, and
//! last `aggressive-instcombine`, whose narrowing of `trunc(add(zext x, C))` chains takes
//! away the `__int128` clang gives a decimal literal above `LONG_MAX` (`key += 11400714…`
//! in reikna's random-number kernels; llvm-spirv writes it as `OpTypeInt 128`, which the
//! compiler does not take). Loops
//! are not rotated first (`loop-rotate`, which would let more of them unroll): measured
//! with the benchmarks, rotation made n-body 1.5x and naive matmul 1.2x faster but
//! mandelbrot 1.4x and the 5x5 convolution 1.4x slower, and unrolling tiled sgemm's
//! inner loop slowed it down (its row pointers then live across the barriers). Without
//! `opt-15` the unoptimised module is used: slower, correct.
//! So it is when llvm-spirv rejects the optimised module: LLVM's constant folding can turn
//! a cast through the generic address space into a cast between two named ones, which
//! SPIR-V forbids.
//! llvm-spirv may still meet odd-width integers, so it runs with
//! `SPV_INTEL_arbitrary_precision_integers`; the compiler accepts those widths.
//!
//! Successful compiles are cached on disk (`FERRITE_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/ferrite`, else `~/.cache/ferrite`; `FERRITE_CACHE=0` turns it off),
//! keyed by the source, the clang arguments and the tools used. A compile whose includes
//! we cannot see (`-I`, headers) is not cached.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::toolchain::{self, Kind, Toolchain};
use super::{arg_info, conversions_prelude};

/// OpenCL C extensions the device supports; their macros are defined for every compile.
/// `CL_DEVICE_EXTENSIONS` is built from this list (`device.rs`), so the two cannot drift.
/// The atomics extensions: every 32- and 64-bit `atomic_*`/`atom_*` function on global and
/// local memory (compiler `codegen/atomic.rs`, tested in `compiler/tests/exec_atomics.rs`).
pub const OPENCL_C_EXTENSIONS: &[&str] = &[
    "cl_khr_fp64",
    // `half` arithmetic, conversions and built-ins: computed in `float` and rounded back
    // once per operation (compiler `codegen/half.rs`, tested in
    // `compiler/tests/exec_half.rs`).
    "cl_khr_fp16",
    "cl_khr_byte_addressable_store",
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics",
    "cl_ext_float_atomics",
    "cl_khr_integer_dot_product",
    // bitfield_insert/bitfield_extract_{signed,unsigned}/bit_reverse: OpBitField* and
    // OpBitReverse (compiler `codegen/arith.rs`).
    "cl_khr_extended_bit_ops",
    // Sub-groups of 4 work-items, or 8/16/32 as a kernel requires (compiler
    // `SUB_GROUP_SIZES`; collectives are region
    // boundaries combined per sub-group, `compiler/src/workgroup/combine.rs`; tested in
    // `compiler/tests/exec_subgroups.rs`), the OpenCL 3.0 feature `__opencl_c_subgroups`
    // below. The non-uniform ones combine the work-items that reached the call together,
    // diverged work-items reconverging at the next one. Not `cl_khr_subgroups`: that
    // extension requires CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, and a group's
    // work-items run one after another on one thread (a sub-group spinning on another
    // one's progress never ends).
    "cl_khr_subgroup_extended_types",
    "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative",
    "cl_khr_subgroup_clustered_reduce",
    "cl_khr_subgroup_ballot",
    "cl_khr_subgroup_non_uniform_vote",
    "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_rotate",
    // clock_read_{device,work_group,sub_group} and their _hilo forms: one monotonic clock
    // in nanoseconds for every scope (compiler `codegen/clock.rs`), declared by
    // `kernel_clock.cl` where the compiler does not know the extension.
    "cl_khr_kernel_clock",
];

/// The feature macros of OpenCL C extensions ([`OPENCL_C_EXTENSIONS`]) the device
/// supports. They are defined for every compile like the features, but are not OpenCL C
/// 3.0 features, so `CL_DEVICE_OPENCL_C_FEATURES` does not list them; the device reports
/// them through the extension's own queries (`device.rs` derives
/// `CL_DEVICE_{SINGLE,DOUBLE}_FP_ATOMIC_CAPABILITIES_EXT` from this list).
/// `cl_ext_float_atomics`: `OpAtomicFAddEXT/FMinEXT/FMaxEXT` on 32- and 64-bit floats in
/// global and local memory (compiler `codegen/atomic.rs`: a compare-and-swap loop on the
/// bit pattern for global memory, load-op-store for local). Halves: load, store, exchange,
/// min and max; not add, which the compiler has but llvm-spirv 14 and 15 cannot translate
/// (an assertion fails: "AtomicFAddEXT can only be generated for f32 or f64 types").
pub const OPENCL_C_EXTENSION_FEATURES: &[&str] = &[
    // `cl_khr_fp16`'s feature macro in OpenCL C 3.0.
    "__opencl_c_fp16",
    "__opencl_c_ext_fp32_global_atomic_add",
    "__opencl_c_ext_fp32_local_atomic_add",
    "__opencl_c_ext_fp32_global_atomic_min_max",
    "__opencl_c_ext_fp32_local_atomic_min_max",
    "__opencl_c_ext_fp64_global_atomic_add",
    "__opencl_c_ext_fp64_local_atomic_add",
    "__opencl_c_ext_fp64_global_atomic_min_max",
    "__opencl_c_ext_fp64_local_atomic_min_max",
    "__opencl_c_ext_fp16_global_atomic_load_store",
    "__opencl_c_ext_fp16_local_atomic_load_store",
    "__opencl_c_ext_fp16_global_atomic_min_max",
    "__opencl_c_ext_fp16_local_atomic_min_max",
    "__opencl_c_kernel_clock_scope_device",
    "__opencl_c_kernel_clock_scope_work_group",
    "__opencl_c_kernel_clock_scope_sub_group",
];

/// Whether a macro names something the device claims (an extension, a feature, or an
/// extension's feature).
fn claimed(m: &str) -> bool {
    OPENCL_C_EXTENSIONS.contains(&m)
        || OPENCL_C_FEATURES.contains(&m)
        || OPENCL_C_EXTENSION_FEATURES.contains(&m)
        || (crate::mem::image::enabled() && crate::mem::image::OPENCL_C_FEATURES.contains(&m))
}

/// OpenCL C 3.0 optional features the device supports (`CL_DEVICE_OPENCL_C_FEATURES` is
/// built from this list). Atomic orders and scopes: every order maps up to sequential
/// consistency and global atomics are device-wide whatever their scope
/// (`compiler/src/memory_model.rs`, litmus tests in `compiler/tests/litmus.rs`); work-group
/// collectives are region boundaries (`compiler/src/workgroup.rs`). Program-scope global
/// variables: one storage per built program, initialised at build, pointer initialisers
/// included (`compiler/src/module.rs`, `compiler/tests/exec_globals.rs`). The generic
/// address space: a generic pointer is a plain address; casts to a named space test the
/// address against the group's local memory and the work-item's stack
/// (`compiler/src/codegen/convert.rs`).
pub const OPENCL_C_FEATURES: &[&str] = &[
    "__opencl_c_fp64",
    "__opencl_c_int64",
    "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_device",
    "__opencl_c_atomic_scope_all_devices",
    "__opencl_c_work_group_collective_functions",
    "__opencl_c_program_scope_global_variables",
    "__opencl_c_generic_address_space",
    "__opencl_c_subgroups",
    // cl_khr_integer_dot_product: OpSDot/OpUDot/OpSUDot(AccSat) on char4/uchar4 and packed
    // into a uint (compiler `codegen/dot.rs`, `spirv/library.rs`). The OpenCL C 3.0 spec
    // lists these among the optional features (the CTS's features_macro checks them there).
    "__opencl_c_integer_dot_product_input_4x8bit",
    "__opencl_c_integer_dot_product_input_4x8bit_packed",
];

/// The `opt-15` pass pipeline run on clang's output (see the module documentation for why
/// it is not `-O2`).
pub const OPT_PIPELINE: &str = "function(sroa,early-cse,simplifycfg),cgscc(inline),\
     function(sroa,early-cse,gvn,loop-mssa(licm),sccp,adce,simplifycfg),\
     function(loop-simplify,lcssa,loop-unroll-full,sccp,early-cse,simplifycfg),\
     function(aggressive-instcombine)";

/// Extension and feature macros clang-15's `opencl-c-base.h` defines unconditionally for
/// SPIR targets (OpenCL C 2.0 and later), whatever `-cl-ext` says.
pub const HEADER_DEFINED_MACROS: &[&str] = &[
    "cl_khr_subgroup_extended_types",
    "cl_khr_subgroup_non_uniform_vote",
    "cl_khr_subgroup_ballot",
    "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative",
    "cl_khr_subgroup_clustered_reduce",
    "cl_khr_subgroup_rotate",
    "cl_khr_extended_bit_ops",
    "cl_khr_integer_dot_product",
    "__opencl_c_integer_dot_product_input_4x8bit",
    "__opencl_c_integer_dot_product_input_4x8bit_packed",
    "cl_ext_float_atomics",
    "__opencl_c_ext_fp16_global_atomic_load_store",
    "__opencl_c_ext_fp16_local_atomic_load_store",
    "__opencl_c_ext_fp16_global_atomic_add",
    "__opencl_c_ext_fp16_local_atomic_add",
    "__opencl_c_ext_fp16_global_atomic_min_max",
    "__opencl_c_ext_fp16_local_atomic_min_max",
    "__opencl_c_ext_fp64_global_atomic_add",
    "__opencl_c_ext_fp64_local_atomic_add",
    "__opencl_c_ext_fp64_global_atomic_min_max",
    "__opencl_c_ext_fp64_local_atomic_min_max",
    "__opencl_c_ext_fp16_global_atomic_load_store",
    "__opencl_c_ext_fp16_local_atomic_load_store",
    "__opencl_c_ext_fp16_global_atomic_min_max",
    "__opencl_c_ext_fp16_local_atomic_min_max",
    "__opencl_c_ext_fp32_global_atomic_add",
    "__opencl_c_ext_fp32_local_atomic_add",
    "__opencl_c_ext_fp32_global_atomic_min_max",
    "__opencl_c_ext_fp32_local_atomic_min_max",
    "__opencl_c_work_group_collective_functions",
    "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_device",
    "__opencl_c_atomic_scope_all_devices",
    "__opencl_c_read_write_images",
    "__opencl_c_pipes",
    "__opencl_c_generic_address_space",
    "__opencl_c_device_enqueue",
    "__opencl_c_program_scope_global_variables",
    "__opencl_c_images",
];

/// What clang-14 lacks of what the device claims, fed before its sources: the OpenCL C 3.0
/// feature `__opencl_c_work_group_collective_functions` it does not know (it declares the
/// work-group functions for OpenCL C 2.0 and later all the same), and declarations of
/// `cl_khr_subgroup_rotate`'s functions, which neither it nor llvm-spirv-14 knows (the
/// compiler turns the calls into the SPIR-V instruction). The file says more.
const CLANG_14_PRELUDE: &str = include_str!("clang14_prelude.cl");

/// `cl_khr_kernel_clock` where the compiler does not know it (the file says more).
const KERNEL_CLOCK_PRELUDE: &str = include_str!("kernel_clock.cl");

/// For clang's own SPIR-V target (measured: clang-22), which picks the instruction of an
/// integer-to-integer `convert_*` by the destination's signedness alone: `OpSatConvertSToU`
/// / `OpSatConvertUToS` for the saturating ones, and for the plain ones `OpUConvert` when
/// the destination is signed and `OpSConvert` when it is unsigned. Right when source and
/// destination differ in signedness, wrong when they agree and the value widens or
/// saturates: `convert_long((int)-1)` gave 2^32 - 1, `convert_uint_sat((uchar)255)` 0,
/// `convert_int_sat((short)-1)` 65535. The SPIR-V no longer says what the source was, so
/// the compiler cannot mend it; the source can. Each `convert_<integer>[n][_sat][_<rounding>]`
/// becomes a macro that, for a source of the destination's signedness, widens it to 64 bits
/// with C casts (lane by lane for vectors, through a temporary so that the argument is
/// evaluated once), clamps where it saturates, and narrows with
/// the built-in (a truncation, right either way; its name in parentheses, so that no macro
/// expands there); any other source goes to the built-in itself (a macro is not expanded
/// inside itself). Macros only, no functions: the 480
/// (300 KB) cost no measurable compile time (clang-22 on a one-line kernel: 0.03 s with and
/// without them); they are made once per process.
fn integer_conversions_prelude() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(conversions_prelude::make)
}

/// The text fed to clang before the source: `#undef` of every header-defined macro the
/// device does not claim, then `#line 1` so diagnostics count the source's own lines.
fn source_prelude(toolchain: &Toolchain) -> String {
    let mut prelude = String::new();
    if toolchain.major != 0 && toolchain.major < 15 {
        prelude.push_str(CLANG_14_PRELUDE);
    }
    if toolchain.kind == Kind::Native {
        prelude.push_str(integer_conversions_prelude());
    }
    if claimed("cl_khr_kernel_clock") {
        prelude.push_str(KERNEL_CLOCK_PRELUDE);
    }
    for m in HEADER_DEFINED_MACROS {
        if !claimed(m) {
            prelude.push_str("#undef ");
            prelude.push_str(m);
            prelude.push('\n');
        }
    }
    // `cl_khr_fp16`'s OpenCL C 3.0 feature macro, which clang 15 does not know (`-cl-ext`
    // passes it over): defined wherever the extension's own macro is.
    if claimed("__opencl_c_fp16") {
        prelude.push_str(
            "#if defined(cl_khr_fp16) && !defined(__opencl_c_fp16)\n#define __opencl_c_fp16 1\n#endif\n",
        );
    }
    // clang predefines `__IMAGE_SUPPORT__` for SPIR targets itself; OpenCL C defines it
    // only where CL_DEVICE_IMAGE_SUPPORT is CL_TRUE (not with `FERRITE_IMAGES=0`).
    if !crate::mem::image::enabled() {
        prelude.push_str("#undef __IMAGE_SUPPORT__\n");
    }
    // The device's OpenCL version (CL_DEVICE_VERSION "OpenCL 3.0"): the compiler's to
    // define, which clang leaves to the driver.
    prelude.push_str("#define __OPENCL_VERSION__ 300\n");
    prelude.push_str("#line 1\n");
    prelude
}

/// A header given to `clCompileProgram` (name as included, source text).
pub struct Header<'a> {
    pub name: &'a str,
    pub source: &'a str,
}

/// The outcome of one OpenCL C compile.
#[derive(Debug)]
pub struct ClcOutput {
    /// The SPIR-V module, or `None` if compilation failed.
    pub spirv: Option<Vec<u8>>,
    /// The compiler's diagnostics: goes to `CL_PROGRAM_BUILD_LOG`.
    pub log: String,
}

/// Errors that are not compile failures of the source itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClcError {
    /// An option we do not accept (→ `CL_INVALID_BUILD_OPTIONS` / `CL_INVALID_COMPILER_OPTIONS`).
    InvalidOption(String),
    /// No OpenCL C compiler was found, or it could not be run (→ `CL_COMPILER_NOT_AVAILABLE`).
    CompilerNotAvailable(String),
}

impl std::fmt::Display for ClcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClcError::InvalidOption(o) => write!(f, "invalid build option: {o}"),
            ClcError::CompilerNotAvailable(m) => write!(f, "OpenCL C compiler not available: {m}"),
        }
    }
}

impl std::error::Error for ClcError {}

/// The OpenCL C language version a program is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ClStd {
    pub major: u8,
    pub minor: u8,
}

/// A parsed options string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// `-cl-std=`, or OpenCL C 1.2 when absent (the spec's default: the highest 1.x).
    pub cl_std: ClStd,
    /// `-cl-kernel-arg-info`: keep argument names and types for `clGetKernelArgInfo`.
    pub kernel_arg_info: bool,
    /// Work-groups must be uniform: `-cl-uniform-work-group-size`, or a 1.x language.
    pub uniform_work_groups: bool,
    /// `-cl-opt-disable`.
    pub opt_disable: bool,
    /// `-I` directories were given (their files are outside what the cache key sees).
    pub has_include_dirs: bool,
    /// Arguments for clang, besides the fixed ones.
    pub clang_args: Vec<String>,
    /// `-create-library` (clLinkProgram only).
    pub create_library: bool,
    /// `-enable-link-options` (clLinkProgram only).
    pub enable_link_options: bool,
}

/// Options that are passed to clang as they are (all of clang-15's spellings match the
/// OpenCL specification's).
const PASS_THROUGH: &[&str] = &[
    "-cl-single-precision-constant",
    "-cl-denorms-are-zero",
    "-cl-fp32-correctly-rounded-divide-sqrt",
    "-cl-mad-enable",
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
    "-cl-fast-relaxed-math",
    "-w",
    "-Werror",
];

impl BuildOptions {
    /// Parse an options string (may be empty). Quoting follows the shell: `-D X="a b"`.
    pub fn parse(options: &str) -> Result<BuildOptions, ClcError> {
        let mut out = BuildOptions {
            cl_std: ClStd { major: 1, minor: 2 },
            kernel_arg_info: false,
            uniform_work_groups: false,
            opt_disable: false,
            has_include_dirs: false,
            clang_args: Vec::new(),
            create_library: false,
            enable_link_options: false,
        };
        let mut explicit_uniform = false;
        let tokens = split_options(options)?;
        let mut it = tokens.into_iter();
        while let Some(tok) = it.next() {
            match tok.as_str() {
                "-D" | "-I" => {
                    let value = it.next().ok_or_else(|| {
                        ClcError::InvalidOption(format!("{tok} needs an argument"))
                    })?;
                    if tok == "-I" {
                        out.has_include_dirs = true;
                    }
                    out.clang_args.push(format!("{tok}{value}"));
                }
                t if t.starts_with("-D") => out.clang_args.push(tok),
                t if t.starts_with("-I") => {
                    out.has_include_dirs = true;
                    out.clang_args.push(tok);
                }
                t if t.starts_with("-cl-std=") => {
                    out.cl_std = match &t["-cl-std=".len()..] {
                        "CL1.0" => ClStd { major: 1, minor: 0 },
                        "CL1.1" => ClStd { major: 1, minor: 1 },
                        "CL1.2" => ClStd { major: 1, minor: 2 },
                        "CL3.0" => ClStd { major: 3, minor: 0 },
                        _ => {
                            return Err(ClcError::InvalidOption(format!(
                                "{t} (the device supports OpenCL C 1.0, 1.1, 1.2 and 3.0)"
                            )))
                        }
                    };
                }
                "-cl-kernel-arg-info" => {
                    out.kernel_arg_info = true;
                    out.clang_args.push(tok);
                }
                "-cl-uniform-work-group-size" => {
                    explicit_uniform = true;
                    out.clang_args.push(tok);
                }
                "-cl-opt-disable" => out.opt_disable = true,
                // Debug information is accepted and not generated: nothing in Ferrite reads it yet.
                "-g" => {}
                // Deprecated in OpenCL 1.1, still accepted by the specification's grammar.
                "-cl-strict-aliasing" => {}
                // Sub-groups are not supported, so there is no independent forward progress
                // to give up; clang-15 does not know the option either.
                "-cl-no-subgroup-ifp" => {}
                "-create-library" => out.create_library = true,
                "-enable-link-options" => out.enable_link_options = true,
                t if PASS_THROUGH.contains(&t) => out.clang_args.push(tok),
                _ => return Err(ClcError::InvalidOption(tok)),
            }
        }
        out.uniform_work_groups = explicit_uniform || out.cl_std.major < 2;
        Ok(out)
    }

    /// The full clang command-line arguments for this compile (source on stdin), writing
    /// `output`: LLVM bitcode for a translator toolchain, SPIR-V for a native one.
    fn clang_command_args(
        &self,
        toolchain: &Toolchain,
        output: &Path,
        extra_include: Option<&Path>,
    ) -> Vec<String> {
        let native = toolchain.kind == Kind::Native;
        let target: &[&str] = if native {
            &["-c", "--target=spirv64"]
        } else {
            &["-c", "-target", "spir64", "-emit-llvm"]
        };
        let mut args: Vec<String> = target
            .iter()
            .chain(&["-x", "cl", "-fno-color-diagnostics"])
            .map(|s| s.to_string())
            .collect();
        args.push(format!(
            "-cl-std=CL{}.{}",
            self.cl_std.major, self.cl_std.minor
        ));
        // The built-in functions from clang's TableGen list instead of parsing the 18,000
        // lines of `opencl-c.h` for every program: measured 0.25 s → 0.04 s per clang run
        // on this machine, the difference between hours and minutes for the CTS suites that
        // build thousands of programs. `opencl-c-base.h` (types, macros) is still included.
        args.extend(["-Xclang", "-fdeclare-opencl-builtins"].map(String::from));
        if self.opt_disable {
            args.push("-O0".into());
        } else if native {
            // clang's SPIR-V target takes what its own -O2 pipeline makes.
            args.push("-O2".into());
        } else {
            // -O2 without clang's passes: no `optnone`, the optimisation is opt's.
            args.extend(["-O2", "-Xclang", "-disable-llvm-passes"].map(String::from));
        }
        if native {
            args.push("-mllvm".into());
            args.push(spirv_ext_option(toolchain));
            // clang's SPIR-V target names parameters (`OpName`, what `CL_KERNEL_ARG_NAME`
            // reports) only from the LLVM values' names, which a release clang drops
            // (measured: clang-22 wrote no parameter name at all without this).
            if self.kernel_arg_info {
                args.push("-fno-discard-value-names".into());
            }
        }
        let mut ext = String::from("-cl-ext=-all");
        for e in OPENCL_C_EXTENSIONS
            .iter()
            .chain(OPENCL_C_FEATURES)
            .chain(OPENCL_C_EXTENSION_FEATURES)
        {
            ext.push_str(",+");
            ext.push_str(e);
        }
        if crate::mem::image::enabled() {
            for f in crate::mem::image::OPENCL_C_FEATURES {
                ext.push_str(",+");
                ext.push_str(f);
            }
        }
        args.push("-Xclang".into());
        args.push(ext);
        args.extend(self.clang_args.iter().cloned());
        if let Some(dir) = extra_include {
            args.push(format!("-I{}", dir.display()));
        }
        args.push("-".into());
        args.push("-o".into());
        args.push(output.display().to_string());
        args
    }
}

/// `--spirv-ext=+A,+B` with the extensions the toolchain allows.
fn spirv_ext_option(toolchain: &Toolchain) -> String {
    let exts: Vec<String> = toolchain
        .spirv_extensions()
        .iter()
        .map(|e| format!("+{e}"))
        .collect();
    format!("--spirv-ext={}", exts.join(","))
}

/// Split an options string like a shell would: whitespace separates, quotes group,
/// a backslash escapes the next character.
fn split_options(s: &str) -> Result<Vec<String>, ClcError> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_token = false;
    let mut quote: Option<char> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') | (None, '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                in_token = true;
            }
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_token = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_token {
                    out.push(std::mem::take(&mut cur));
                    in_token = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_token = true;
            }
        }
    }
    if quote.is_some() {
        return Err(ClcError::InvalidOption(format!(
            "unterminated quote in \"{s}\""
        )));
    }
    if in_token {
        out.push(cur);
    }
    Ok(out)
}

/// A scratch directory removed when dropped.
pub(crate) struct ScratchDir(pub(crate) PathBuf);

impl ScratchDir {
    pub(crate) fn new() -> std::io::Result<ScratchDir> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ferrite-clc-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        Ok(ScratchDir(dir))
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Run a program with `stdin` as its input, within the limits of [`super::tool`]; returns
/// (success, its log: how it ended unless it exited, then stderr and stdout). Long argument
/// lists (a 200 KB `-D`) go through a response file in `scratch`.
fn run_tool(
    program: &str,
    args: &[String],
    stdin: &[u8],
    scratch: &Path,
) -> Result<(bool, String), ClcError> {
    let run = super::tool::run(program, args, stdin, Some(scratch))
        .map_err(|e| ClcError::CompilerNotAvailable(e.0))?;
    Ok((run.success(), run.log))
}

fn cache_dir() -> Option<PathBuf> {
    if std::env::var("FERRITE_CACHE").is_ok_and(|v| v == "0") {
        return None;
    }
    if let Some(d) = std::env::var_os("FERRITE_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("ferrite"))
}

fn cache_key(prelude: &str, source: &str, args: &[String], toolchain: &Toolchain) -> String {
    // Two differently seeded 64-bit hashes: a collision would need both to collide.
    let mut parts = [0u64; 2];
    for (seed, part) in parts.iter_mut().enumerate() {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        seed.hash(&mut h);
        env!("CARGO_PKG_VERSION").hash(&mut h);
        // The prelude follows the device's claims, which change between versions.
        prelude.hash(&mut h);
        source.hash(&mut h);
        args.hash(&mut h);
        toolchain.hash(&mut h);
        OPT_PIPELINE.hash(&mut h);
        *part = h.finish();
    }
    format!("{:016x}{:016x}", parts[0], parts[1])
}

/// Compile `source` with the options string given to `clBuildProgram`/`clCompileProgram`.
pub fn compile(source: &str, options: &str, headers: &[Header<'_>]) -> Result<ClcOutput, ClcError> {
    let opts = BuildOptions::parse(options)?;
    compile_with(source, &opts, headers)
}

/// [`compile`] with options already parsed.
pub fn compile_with(
    source: &str,
    opts: &BuildOptions,
    headers: &[Header<'_>],
) -> Result<ClcOutput, ClcError> {
    let toolchain = toolchain::find().map_err(ClcError::CompilerNotAvailable)?;
    let scratch = ScratchDir::new().map_err(|e| {
        ClcError::CompilerNotAvailable(format!("cannot create a scratch directory: {e}"))
    })?;
    let include_dir = if headers.is_empty() {
        None
    } else {
        let dir = scratch.0.join("include");
        for h in headers {
            let path = dir.join(h.name);
            let written = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(&path, h.source));
            written.map_err(|e| {
                ClcError::CompilerNotAvailable(format!("cannot write header {}: {e}", h.name))
            })?;
        }
        Some(dir)
    };
    let bitcode = scratch.0.join("program.bc");
    let spv = scratch.0.join("program.spv");
    let clang_output = match toolchain.kind {
        Kind::Native => &spv,
        Kind::Translator { .. } => &bitcode,
    };
    let clang_args = opts.clang_command_args(&toolchain, clang_output, include_dir.as_deref());
    // Made once per build: for clang's own target it holds 300 KB of conversion macros.
    let prelude = source_prelude(&toolchain);

    let cache = (!opts.has_include_dirs && headers.is_empty())
        .then(cache_dir)
        .flatten()
        .map(|dir| {
            dir.join(format!(
                "{}.spv",
                cache_key(
                    &prelude,
                    source,
                    &clang_args[..clang_args.len() - 2],
                    &toolchain
                )
            ))
        });
    if let Some(path) = &cache {
        if let Ok(spirv) = std::fs::read(path) {
            return Ok(ClcOutput {
                spirv: Some(spirv),
                log: String::new(),
            });
        }
    }

    let input = prelude + source;
    let (mut ok, mut log) = run_tool(&toolchain.clang, &clang_args, input.as_bytes(), &scratch.0)?;
    if ok {
        if let Kind::Translator { llvm_spirv, opt } = &toolchain.kind {
            ok = translate(
                opts,
                &toolchain,
                llvm_spirv,
                opt.as_deref(),
                &scratch.0,
                &mut log,
            )?;
        }
    }
    // Say which compiler ran whenever there is something to read; a clean build keeps an
    // empty log, as with other drivers (pyopencl warns about every non-empty one).
    if !ok || !log.trim().is_empty() {
        log = format!("note: OpenCL C compiled by {}\n{log}", toolchain.describe());
    }
    if !ok {
        return Ok(ClcOutput { spirv: None, log });
    }
    let mut spirv = std::fs::read(&spv).map_err(|e| {
        ClcError::CompilerNotAvailable(format!("{} wrote no output: {e}", toolchain.clang))
    })?;
    if opts.kernel_arg_info && toolchain.kind == Kind::Native {
        let ll = scratch.0.join("program.ll");
        let args = arg_info::ir_args(&clang_args, &ll);
        let (ir_ok, ir_log) = run_tool(&toolchain.clang, &args, input.as_bytes(), &scratch.0)?;
        match std::fs::read_to_string(&ll) {
            Ok(text) if ir_ok => {
                spirv = arg_info::add_strings(&spirv, &arg_info::arg_strings(&text));
            }
            _ => {
                log.push_str("warning: no argument type names (clang's LLVM IR run failed):\n");
                log.push_str(&ir_log);
            }
        }
    }
    if let Some(path) = &cache {
        store_in_cache(path, &spirv);
    }
    Ok(ClcOutput {
        spirv: Some(spirv),
        log,
    })
}

/// The translator toolchain's steps after clang: `opt` over `program.bc` in `scratch`,
/// then `llvm-spirv` to `program.spv`; diagnostics appended to `log`. Whether it worked.
fn translate(
    opts: &BuildOptions,
    toolchain: &Toolchain,
    llvm_spirv: &str,
    opt: Option<&str>,
    scratch: &Path,
    log: &mut String,
) -> Result<bool, ClcError> {
    let bitcode = scratch.join("program.bc");
    let spv = scratch.join("program.spv");
    let mut translate_input = bitcode.clone();
    if let (false, Some(opt)) = (opts.opt_disable, opt) {
        let optimised = scratch.join("program.opt.bc");
        let opt_args = vec![
            format!("-passes={OPT_PIPELINE}"),
            bitcode.display().to_string(),
            "-o".to_string(),
            optimised.display().to_string(),
        ];
        // opt is an optimisation: when it fails, the module it was given is still
        // correct input for llvm-spirv.
        match run_tool(opt, &opt_args, &[], scratch) {
            Ok((true, _)) => translate_input = optimised,
            Ok((false, opt_log)) => {
                log.push_str("warning: the optimiser failed, using the unoptimised module:\n");
                log.push_str(&opt_log);
            }
            Err(_) => {}
        }
    }
    let mut spirv_args = vec![spirv_ext_option(toolchain)];
    if opts.kernel_arg_info {
        // Keeps argument type names as `kernel_arg_type.<kernel>.<types>` strings.
        spirv_args.push("--preserve-ocl-kernel-arg-type-metadata-through-string".into());
    }
    let run = |input: &Path| {
        let mut args = spirv_args.clone();
        args.extend([
            input.display().to_string(),
            "-o".to_string(),
            spv.display().to_string(),
        ]);
        run_tool(llvm_spirv, &args, &[], scratch)
    };
    let (mut ok, spirv_log) = run(&translate_input)?;
    if !ok && translate_input != bitcode {
        // LLVM's constant folding can make IR llvm-spirv refuses: early-cse folds
        // `(global int *)(generic int *)(local int *)NULL` into a local → global
        // `addrspacecast` (CTS generic_address_space compare_pointers), which SPIR-V
        // forbids. The unoptimised module is correct input; use it.
        let (ok2, log2) = run(&bitcode)?;
        ok = ok2;
        if ok {
            log.push_str(
                "warning: llvm-spirv rejected the optimised module, using the unoptimised one:\n",
            );
            log.push_str(&spirv_log);
        } else {
            log.push_str(&log2);
        }
    } else {
        log.push_str(&spirv_log);
    }
    Ok(ok)
}

/// Best effort: a cache that cannot be written only costs the next compile its time.
fn store_in_cache(path: &Path, spirv: &[u8]) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    // Write aside and rename, so a concurrent reader never sees half a file.
    let tmp = dir.join(format!(
        ".tmp-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    if std::fs::write(&tmp, spirv).is_ok() && std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_a_shell() {
        assert_eq!(
            split_options(r#"-D A=1  -DB="x y" -I 'dir one' -w"#).unwrap(),
            vec!["-D", "A=1", "-DB=x y", "-I", "dir one", "-w"]
        );
        assert!(split_options("-D \"open").is_err());
        assert!(split_options("   ").unwrap().is_empty());
    }

    #[test]
    fn parses_the_specification_options() {
        let o =
            BuildOptions::parse("-cl-std=CL3.0 -cl-kernel-arg-info -D N=4 -I /tmp -cl-mad-enable")
                .unwrap();
        assert_eq!(o.cl_std, ClStd { major: 3, minor: 0 });
        assert!(o.kernel_arg_info && o.has_include_dirs && !o.uniform_work_groups);
        assert_eq!(
            o.clang_args,
            vec!["-cl-kernel-arg-info", "-DN=4", "-I/tmp", "-cl-mad-enable"]
        );
        let d = BuildOptions::parse("").unwrap();
        assert_eq!(d.cl_std, ClStd { major: 1, minor: 2 });
        assert!(d.uniform_work_groups);
        assert!(
            BuildOptions::parse("-cl-std=CL3.0 -cl-uniform-work-group-size")
                .unwrap()
                .uniform_work_groups
        );
    }

    #[test]
    fn rejects_what_the_device_cannot_do() {
        assert!(matches!(
            BuildOptions::parse("-cl-std=CL2.0"),
            Err(ClcError::InvalidOption(_))
        ));
        assert!(matches!(
            BuildOptions::parse("-fancy"),
            Err(ClcError::InvalidOption(_))
        ));
        assert!(matches!(
            BuildOptions::parse("-D"),
            Err(ClcError::InvalidOption(_))
        ));
    }

    fn have_tools() -> bool {
        toolchain::find().is_ok()
    }

    #[test]
    fn compiles_and_reports_errors() {
        if !have_tools() {
            eprintln!("no OpenCL C compiler installed: skipping");
            return;
        }
        let ok = compile(
            "kernel void k(global int* a) { a[get_global_id(0)] = N; }",
            "-D N=3",
            &[],
        )
        .unwrap();
        let spirv = ok.spirv.expect("compiles");
        assert_eq!(&spirv[..4], &0x0723_0203u32.to_le_bytes());

        let claims = compile(
            "#if defined(__opencl_c_device_enqueue) || defined(__opencl_c_pipes)\n\
             #error unclaimed feature visible\n#endif\n\
             #if !defined(__opencl_c_subgroups) || !defined(cl_khr_subgroup_ballot)\n\
             #error claimed feature invisible\n#endif\n\
             #if !defined(__opencl_c_read_write_images) || !defined(__IMAGE_SUPPORT__)\n\
             #error claimed feature invisible\n#endif\n\
             #if !defined(__OPENCL_VERSION__) || __OPENCL_VERSION__ != 300\n\
             #error no __OPENCL_VERSION__\n#endif\n\
             kernel void k(global int* a) { a[0] = 1; }",
            "-cl-std=CL3.0",
            &[],
        )
        .unwrap();
        assert!(claims.spirv.is_some(), "{}", claims.log);

        let bad = compile("kernel void k(global int* a) { a[0] = 1 +; }", "", &[]).unwrap();
        assert!(bad.spirv.is_none());
        assert!(
            bad.log.contains("<stdin>:1:") && bad.log.contains("error"),
            "{}",
            bad.log
        );

        let with_header = compile(
            "#include \"inc/h.h\"\nkernel void k(global int* a) { a[0] = VALUE; }",
            "",
            &[Header {
                name: "inc/h.h",
                source: "#define VALUE 7\n",
            }],
        )
        .unwrap();
        assert!(with_header.spirv.is_some(), "{}", with_header.log);
    }
}
