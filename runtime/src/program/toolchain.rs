//! Which OpenCL C → SPIR-V compiler to run, found at run time on the machine Ferrite runs
//! on (Debian's and Ubuntu's clang 14 to 22 have different names and abilities).
//!
//! Two kinds ([`Kind`]):
//! - **Translator**: clang emits LLVM bitcode for `spir64`, `opt` optimises it with
//!   [`super::clc::OPT_PIPELINE`] and `llvm-spirv` of the same major version translates it
//!   (LLVM bitcode is not readable across major versions, so the three must match).
//!   [`Toolchain::spirv_extensions`] holds what each llvm-spirv version knows.
//! - **Native**: clang 20 or newer compiles OpenCL C to SPIR-V with its own `spirv64`
//!   target, in one process (`clang-22 --target=spirv64 -O2 -c`).
//!
//! Which comes first, measured on this machine (Debian 12, clang-22 from bookworm-security,
//! 2 busy cores, `benches/run build/`, 2026-11-28): clang-22's own target builds a
//! one-kernel program in 49 ms against 108–112 ms for a clang-14/15 + opt + llvm-spirv
//! pair, and a 150-line program of thirteen kernels in 183 ms against 179–200 ms; the disk
//! cache makes a second build free either way. Its SPIR-V needed mending that the pairs'
//! never did (README, "OpenCL C compilers": conversions by the destination's signedness,
//! no argument names or type names, invalid initialisers, `OpAny` on integers, vectors of
//! odd sizes, built-ins left as calls, `uchar*` parameters that do not link), each found
//! by a test suite run through it. With those mended the compiler tests and CTS
//! `compiler` and `api` pass on it, but a pair has run every CTS suite for longer, so a
//! translator pair is searched first and clang's own target is the fallback for machines
//! without `llvm-spirv`.
//!
//! Search ([`find`]): `FERRITE_CLANG` (with `FERRITE_LLVM_SPIRV`, `FERRITE_OPT`) wins; a
//! `FERRITE_CLANG` of version 20 or newer without `FERRITE_LLVM_SPIRV` is used natively,
//! an older one with the `llvm-spirv-<major>` found beside it, one whose version
//! `--version` does not tell with the newest `llvm-spirv-<N>`. Else `clang-<N>` +
//! `llvm-spirv-<N>` on `PATH` or in `/usr/lib/llvm-<N>/bin` for N from 19 down to
//! [`OLDEST`], then plain `clang` + `llvm-spirv`, then `clang-<N>` for N from [`NEWEST`]
//! down to 20, then plain `clang` if it is 20 or newer. Versioned names are found by a
//! `stat`, without running anything; only a clang without a version in its name is asked
//! `--version`. The answer is kept per process and looked up again when those variables
//! change. When nothing is found the error names what to install.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The newest clang major version searched for.
pub const NEWEST: u32 = 30;
/// The oldest clang major version Ferrite compiles with (`-cl-std=CL3.0` needs clang 12;
/// Debian 12 and Ubuntu 22.04 have 14 with `llvm-spirv-14`).
pub const OLDEST: u32 = 14;
/// The first clang major version whose own SPIR-V target is used.
pub const FIRST_NATIVE: u32 = 20;

/// How OpenCL C becomes SPIR-V.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// clang's own SPIR-V target.
    Native,
    /// clang → bitcode, `opt` (when found), `llvm-spirv`.
    Translator {
        llvm_spirv: String,
        /// `None`: not installed; the unoptimised module is translated.
        opt: Option<String>,
    },
}

/// The compiler found.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Toolchain {
    pub clang: String,
    /// clang's major version (0 when `--version` could not be read).
    pub major: u32,
    pub kind: Kind,
    /// Chosen by the `FERRITE_*` variables rather than found by the search.
    pub from_env: bool,
}

impl Toolchain {
    /// One line for the build log and `ferrite-info`.
    pub fn describe(&self) -> String {
        let how = if self.from_env {
            " (from FERRITE_CLANG)"
        } else {
            ""
        };
        match &self.kind {
            Kind::Native => format!(
                "{} {}, its own SPIR-V target{how}",
                self.clang,
                self.version_text()
            ),
            Kind::Translator { llvm_spirv, opt } => format!(
                "{} {} + {}{}{how}",
                self.clang,
                self.version_text(),
                opt.as_deref()
                    .map_or_else(|| "(no opt) + ".to_string(), |o| format!("{o} + ")),
                llvm_spirv
            ),
        }
    }

    fn version_text(&self) -> String {
        if self.major == 0 {
            "(version unknown)".into()
        } else {
            format!("(clang {})", self.major)
        }
    }

    /// The SPIR-V extensions to allow: float atomics, integer dot products, extended bit
    /// operations and `sub_group_rotate` become OpAtomicF*EXT, Op*Dot, OpBitField* and
    /// OpGroupNonUniformRotateKHR only with them. llvm-spirv-14 does not know
    /// `SPV_KHR_subgroup_rotate` (and refuses the whole option for it); clang's SPIR-V
    /// target does not know `SPV_INTEL_arbitrary_precision_integers` (it never emits odd
    /// widths: its legaliser widens them).
    pub fn spirv_extensions(&self) -> Vec<&'static str> {
        let mut exts = Vec::new();
        if matches!(self.kind, Kind::Translator { .. }) {
            exts.push("SPV_INTEL_arbitrary_precision_integers");
        }
        exts.extend([
            "SPV_EXT_shader_atomic_float_add",
            "SPV_EXT_shader_atomic_float_min_max",
            "SPV_KHR_integer_dot_product",
            "SPV_KHR_bit_instructions",
        ]);
        if self.major == 0 || self.major >= 15 {
            exts.push("SPV_KHR_subgroup_rotate");
        }
        if self.kind == Kind::Native || self.major >= 19 {
            // cl_khr_kernel_clock's OpReadClockKHR: clang-22's target refuses the built-ins
            // without it, and so does llvm-spirv from 19 (SPIRV-LLVM-Translator learnt them
            // in 2024; not measured here, no llvm-spirv-19 in Debian 12). Older
            // translators do not know the name and leave the calls, which the compiler
            // rewrites (measured with 14 and 15).
            exts.push("SPV_KHR_shader_clock");
        }
        exts
    }
}

/// What to install, for the error when no compiler is found.
pub const INSTALL_HINT: &str = "no OpenCL C compiler found: install clang and llvm-spirv \
     of one version from 14 to 19 (Debian 12: `apt install clang-15 llvm-spirv-15 llvm-15`; \
     Ubuntu: `apt install clang-14 llvm-spirv-14 llvm-14`), or clang 20 or newer, whose own \
     SPIR-V target is used (Debian 12: `apt install clang-22` from bookworm-security), or \
     point FERRITE_CLANG (and FERRITE_LLVM_SPIRV) at them. SPIR-V programs need no compiler";

/// What the search looks at: variables, executable files and clang versions. [`find`]
/// uses the process's ([`Probe::system`]); the unit tests a made-up machine.
struct Probe<'a> {
    /// A variable's value (empty counts as unset).
    var: &'a dyn Fn(&str) -> Option<String>,
    /// Whether a path is an executable file.
    executable: &'a dyn Fn(&Path) -> bool,
    /// `clang --version`'s major version (runs the program).
    version: &'a dyn Fn(&str) -> Option<u32>,
    /// Where Debian and Ubuntu keep each LLVM's unsuffixed programs: `<root>/llvm-N/bin`.
    llvm_root: &'a str,
}

fn system_var(var: &str) -> Option<String> {
    std::env::var(var).ok().filter(|v| !v.is_empty())
}

fn system_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn system_version(clang: &str) -> Option<u32> {
    let run = super::tool::run(clang, &["--version".to_string()], &[], None).ok()?;
    parse_clang_major(&run.log)
}

impl Probe<'static> {
    fn system() -> Probe<'static> {
        Probe {
            var: &system_var,
            executable: &system_executable,
            version: &system_version,
            llvm_root: "/usr/lib",
        }
    }
}

/// `name` as an executable file: a path is checked as it is, a bare name on `PATH`.
fn which(p: &Probe<'_>, name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        let path = PathBuf::from(name);
        return (p.executable)(&path).then_some(path);
    }
    let path = (p.var)("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|f| (p.executable)(f))
}

/// `<name>-<major>` on `PATH`, else `/usr/lib/llvm-<major>/bin/<name>` (where Debian and
/// Ubuntu keep the unsuffixed names).
fn versioned(p: &Probe<'_>, name: &str, major: u32) -> Option<String> {
    let suffixed = format!("{name}-{major}");
    if which(p, &suffixed).is_some() {
        return Some(suffixed);
    }
    let in_lib = format!("{}/llvm-{major}/bin/{name}", p.llvm_root);
    which(p, &in_lib).map(|_| in_lib)
}

/// The major version in `clang --version` ("Debian clang version 22.1.8 (…)").
pub fn parse_clang_major(version_output: &str) -> Option<u32> {
    let line = version_output
        .lines()
        .find(|l| l.contains("clang version"))?;
    let rest = &line[line.find("clang version")? + "clang version".len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The major version of a clang program: from its name (`clang-15`, `/usr/lib/llvm-15/…`)
/// when it says, else by running it with `--version`.
fn clang_major(p: &Probe<'_>, clang: &str) -> Option<u32> {
    let file = Path::new(clang).file_name()?.to_string_lossy().into_owned();
    if let Some(v) = file.strip_prefix("clang-").and_then(|v| v.parse().ok()) {
        return Some(v);
    }
    if let Some(v) = clang
        .strip_prefix(p.llvm_root)
        .and_then(|r| r.strip_prefix("/llvm-"))
        .and_then(|r| r.split('/').next())
        .and_then(|v| v.parse().ok())
    {
        return Some(v);
    }
    (p.version)(clang)
}

/// The `opt` for a translator pair: `FERRITE_OPT`, else `opt-<major>` (optional).
fn find_opt(p: &Probe<'_>, major: u32) -> Option<String> {
    (p.var)("FERRITE_OPT").or_else(|| versioned(p, "opt", major))
}

fn search(p: &Probe<'_>) -> Result<Toolchain, String> {
    if let Some(clang) = (p.var)("FERRITE_CLANG") {
        if which(p, &clang).is_none() {
            return Err(format!(
                "FERRITE_CLANG={clang} names no program that can be run; {INSTALL_HINT}"
            ));
        }
        let major = clang_major(p, &clang).unwrap_or(0);
        let kind = match (p.var)("FERRITE_LLVM_SPIRV") {
            Some(llvm_spirv) => Kind::Translator {
                llvm_spirv,
                opt: find_opt(p, major),
            },
            None if major >= FIRST_NATIVE => Kind::Native,
            None if major == 0 => {
                // A wrapper or a build that does not say its version: the translator the
                // search would pair with a clang (the newest llvm-spirv-N), as before the
                // search existed.
                let (n, llvm_spirv) = (OLDEST..FIRST_NATIVE)
                    .rev()
                    .find_map(|n| versioned(p, "llvm-spirv", n).map(|l| (n, l)))
                    .ok_or_else(|| {
                        format!(
                            "FERRITE_CLANG={clang}: `{clang} --version` names no clang \
                             version and no llvm-spirv-N is installed; set \
                             FERRITE_LLVM_SPIRV to use it with llvm-spirv"
                        )
                    })?;
                Kind::Translator {
                    llvm_spirv,
                    opt: find_opt(p, n),
                }
            }
            None => {
                let llvm_spirv = versioned(p, "llvm-spirv", major).ok_or_else(|| {
                    format!(
                        "FERRITE_CLANG={clang} is clang {major}, which needs llvm-spirv-{major} \
                         (not found; install it or set FERRITE_LLVM_SPIRV)"
                    )
                })?;
                Kind::Translator {
                    llvm_spirv,
                    opt: find_opt(p, major),
                }
            }
        };
        return Ok(Toolchain {
            clang,
            major,
            kind,
            from_env: true,
        });
    }
    search_translator(p).or_else(|_| search_native(p))
}

/// clang 20 or newer: versioned names first, then plain `clang`.
fn search_native(p: &Probe<'_>) -> Result<Toolchain, String> {
    for major in (FIRST_NATIVE..=NEWEST).rev() {
        if let Some(clang) = versioned(p, "clang", major) {
            return Ok(Toolchain {
                clang,
                major,
                kind: Kind::Native,
                from_env: false,
            });
        }
    }
    let plain = which(p, "clang").and_then(|_| clang_major(p, "clang"));
    if let Some(major) = plain.filter(|m| *m >= FIRST_NATIVE) {
        return Ok(Toolchain {
            clang: "clang".into(),
            major,
            kind: Kind::Native,
            from_env: false,
        });
    }
    Err(INSTALL_HINT.to_string())
}

/// clang-N + llvm-spirv-N, newest first, then plain `clang` + `llvm-spirv`.
fn search_translator(p: &Probe<'_>) -> Result<Toolchain, String> {
    for major in (OLDEST..FIRST_NATIVE).rev() {
        let pair = versioned(p, "clang", major).zip(versioned(p, "llvm-spirv", major));
        if let Some((clang, llvm_spirv)) = pair {
            return Ok(Toolchain {
                clang,
                major,
                kind: Kind::Translator {
                    llvm_spirv,
                    opt: find_opt(p, major),
                },
                from_env: false,
            });
        }
    }
    let plain = which(p, "clang").and_then(|_| clang_major(p, "clang"));
    if let Some(major) = plain.filter(|m| (OLDEST..FIRST_NATIVE).contains(m)) {
        if which(p, "llvm-spirv").is_some() {
            return Ok(Toolchain {
                clang: "clang".into(),
                major,
                kind: Kind::Translator {
                    llvm_spirv: "llvm-spirv".into(),
                    opt: which(p, "opt").map(|_| "opt".to_string()),
                },
                from_env: false,
            });
        }
    }
    Err(INSTALL_HINT.to_string())
}

/// The variables the search reads; a change makes it search again.
fn env_key() -> [Option<String>; 4] {
    [
        system_var("FERRITE_CLANG"),
        system_var("FERRITE_LLVM_SPIRV"),
        system_var("FERRITE_OPT"),
        system_var("PATH"),
    ]
}

type Found = ([Option<String>; 4], Result<Toolchain, String>);

/// The OpenCL C compiler to use (see the module documentation), or why there is none.
pub fn find() -> Result<Toolchain, String> {
    static FOUND: Mutex<Option<Found>> = Mutex::new(None);
    let key = env_key();
    let mut found = FOUND
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((k, result)) = found.as_ref() {
        if *k == key {
            return result.clone();
        }
    }
    let result = search(&Probe::system());
    *found = Some((key, result.clone()));
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_clang_versions() {
        assert_eq!(
            parse_clang_major("Debian clang version 22.1.8 (++20251113)\nTarget: x86_64"),
            Some(22)
        );
        assert_eq!(
            parse_clang_major("Ubuntu clang version 14.0.0-1ubuntu1.1\n"),
            Some(14)
        );
        assert_eq!(parse_clang_major("gcc (Debian 12.2.0-14) 12.2.0"), None);
        let p = Probe::system();
        assert_eq!(clang_major(&p, "clang-15"), Some(15));
        assert_eq!(clang_major(&p, "/usr/lib/llvm-19/bin/clang"), Some(19));
    }

    /// The search on a made-up machine: `files` are the executables (`PATH` is `/bin`, the
    /// LLVM directories under `/lib`), `vars` the environment, `versions` what
    /// `--version` says.
    fn search_on(
        files: &[&str],
        vars: &[(&str, &str)],
        versions: &[(&str, u32)],
    ) -> Result<Toolchain, String> {
        let var = |name: &str| {
            if name == "PATH" {
                return Some("/bin".to_string());
            }
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        };
        let executable = |path: &Path| files.iter().any(|f| Path::new(f) == path);
        let version = |clang: &str| versions.iter().find(|(c, _)| *c == clang).map(|(_, v)| *v);
        search(&Probe {
            var: &var,
            executable: &executable,
            version: &version,
            llvm_root: "/lib",
        })
    }

    #[test]
    fn searches_pairs_first_then_clang_s_own_target() {
        let debian = [
            "/bin/clang-15",
            "/bin/llvm-spirv-15",
            "/bin/opt-15",
            "/bin/clang-14",
            "/bin/llvm-spirv-14",
            "/bin/clang-22",
        ];
        let t = search_on(&debian, &[], &[]).expect("found");
        assert_eq!(
            (t.clang.as_str(), t.major, t.from_env),
            ("clang-15", 15, false)
        );
        assert_eq!(
            t.kind,
            Kind::Translator {
                llvm_spirv: "llvm-spirv-15".into(),
                opt: Some("opt-15".into())
            }
        );
        // A clang without its llvm-spirv is no pair; LLVM's own directory counts.
        let t = search_on(
            &[
                "/bin/clang-18",
                "/lib/llvm-16/bin/clang",
                "/bin/llvm-spirv-16",
            ],
            &[],
            &[],
        )
        .expect("found");
        assert_eq!(t.clang, "/lib/llvm-16/bin/clang");
        assert_eq!(t.major, 16);
        // No pair: the newest clang 20+, natively.
        let t = search_on(
            &["/bin/clang-20", "/bin/clang-22", "/bin/clang-14"],
            &[],
            &[],
        )
        .expect("found");
        assert_eq!((t.clang.as_str(), &t.kind), ("clang-22", &Kind::Native));
        // Plain `clang` by its --version.
        let t = search_on(&["/bin/clang"], &[], &[("clang", 21)]).expect("found");
        assert_eq!((t.major, &t.kind), (21, &Kind::Native));
        // Nothing usable: the error says what to install.
        let e = search_on(&["/bin/clang-16", "/bin/clang"], &[], &[("clang", 13)])
            .expect_err("nothing to use");
        assert!(e.contains("apt install clang-15 llvm-spirv-15"), "{e}");
    }

    #[test]
    fn ferrite_clang_wins() {
        let files = [
            "/bin/clang-15",
            "/bin/llvm-spirv-15",
            "/bin/clang-22",
            "/opt/wrapper",
        ];
        let t = search_on(&files, &[("FERRITE_CLANG", "clang-22")], &[]).expect("found");
        assert_eq!((t.major, &t.kind, t.from_env), (22, &Kind::Native, true));
        // With FERRITE_LLVM_SPIRV even a clang 22 translates through it.
        let t = search_on(
            &files,
            &[
                ("FERRITE_CLANG", "clang-22"),
                ("FERRITE_LLVM_SPIRV", "/opt/llvm-spirv"),
            ],
            &[],
        )
        .expect("found");
        assert!(
            matches!(t.kind, Kind::Translator { ref llvm_spirv, .. } if llvm_spirv == "/opt/llvm-spirv")
        );
        // A version it cannot tell: the newest llvm-spirv-N.
        let t = search_on(&files, &[("FERRITE_CLANG", "/opt/wrapper")], &[]).expect("found");
        assert!(
            matches!(t.kind, Kind::Translator { ref llvm_spirv, .. } if llvm_spirv == "llvm-spirv-15")
        );
        // A clang 14 without llvm-spirv-14, and a program that is not there.
        let e = search_on(
            &files,
            &[("FERRITE_CLANG", "/opt/wrapper")],
            &[("/opt/wrapper", 14)],
        )
        .expect_err("no llvm-spirv-14");
        assert!(e.contains("llvm-spirv-14"), "{e}");
        let e = search_on(&files, &[("FERRITE_CLANG", "/opt/missing")], &[]).expect_err("missing");
        assert!(e.contains("names no program"), "{e}");
    }

    #[test]
    fn extensions_follow_the_version() {
        let pair = |major| Toolchain {
            clang: format!("clang-{major}"),
            major,
            kind: Kind::Translator {
                llvm_spirv: format!("llvm-spirv-{major}"),
                opt: None,
            },
            from_env: false,
        };
        assert!(!pair(14)
            .spirv_extensions()
            .contains(&"SPV_KHR_subgroup_rotate"));
        assert!(pair(15)
            .spirv_extensions()
            .contains(&"SPV_KHR_subgroup_rotate"));
        let native = Toolchain {
            clang: "clang-22".into(),
            major: 22,
            kind: Kind::Native,
            from_env: false,
        };
        let exts = native.spirv_extensions();
        assert!(!exts.contains(&"SPV_INTEL_arbitrary_precision_integers"));
        assert!(native.describe().contains("its own SPIR-V target"));
        assert!(pair(14).describe().contains("llvm-spirv-14"));
    }
}
