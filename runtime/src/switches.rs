//! Every `FERRITE_*` environment variable the driver reads, in one list: `ferrite-info`
//! prints it with the values in effect, the README's table documents it, and a unit test
//! checks that every variable the driver's sources read is here and in the README (the
//! tests' own variables, `FERRITE_TESTS_*` and friends, are not the driver's).

/// One environment variable.
#[derive(Clone, Copy, Debug)]
pub struct Switch {
    pub name: &'static str,
    /// What happens when it is not set.
    pub default: &'static str,
    pub effect: &'static str,
}

/// The driver's environment variables.
pub const SWITCHES: &[Switch] = &[
    Switch {
        name: "FERRITE_THREADS",
        default: "one worker per core",
        effect: "number of worker threads; 1 runs every kernel on one worker, deterministically",
    },
    Switch {
        name: "FERRITE_CLANG",
        default: "searched: clang-N + llvm-spirv-N (19 down to 14), else clang-N >= 20",
        effect: "the clang that compiles OpenCL C; version 20 or newer without \
                 FERRITE_LLVM_SPIRV uses its own SPIR-V target",
    },
    Switch {
        name: "FERRITE_LLVM_SPIRV",
        default: "llvm-spirv-N of the clang found",
        effect: "the LLVM bitcode to SPIR-V translator",
    },
    Switch {
        name: "FERRITE_OPT",
        default: "opt-N of the clang found (optional)",
        effect: "the LLVM optimiser run between clang and llvm-spirv",
    },
    Switch {
        name: "FERRITE_SPIRV_LINK",
        default: "spirv-link",
        effect: "the SPIR-V linker clLinkProgram runs",
    },
    Switch {
        name: "FERRITE_CLANG_TIMEOUT_S",
        default: "120",
        effect: "time limit in seconds of each run of those programs; the build log says \
                 when it was hit",
    },
    Switch {
        name: "FERRITE_CLANG_MEMORY_MB",
        default: "4096",
        effect: "address-space limit in MiB of each run of those programs (0: none)",
    },
    Switch {
        name: "FERRITE_CACHE_DIR",
        default: "$XDG_CACHE_HOME/ferrite or ~/.cache/ferrite",
        effect: "where compiled OpenCL C is cached",
    },
    Switch {
        name: "FERRITE_CACHE",
        default: "1",
        effect: "0 turns the OpenCL C cache off",
    },
    Switch {
        name: "FERRITE_DUMP_CLIF",
        default: "0",
        effect: "1 prints the Cranelift IR of every function compiled, and how each \
                 kernel's work-items run, to stderr; asm also the machine code",
    },
    Switch {
        name: "FERRITE_VECTORIZE",
        default: "1",
        effect: "0 runs every kernel one work-item at a time (the scalar shapes)",
    },
    Switch {
        name: "FERRITE_LANES",
        default: "chosen per kernel",
        effect: "4, 8 or 16: the work-items per iteration of every vector loop",
    },
    Switch {
        name: "FERRITE_KERNEL_TIMEOUT_MS",
        default: "none",
        effect: "a kernel running longer fails its command instead of hanging",
    },
    Switch {
        name: "FERRITE_IMAGES",
        default: "1",
        effect: "0 hides images and samplers (CL_DEVICE_IMAGE_SUPPORT false, no formats); \
                 image kernels run scalar",
    },
    Switch {
        name: "FERRITE_CHECK",
        default: "off",
        effect: "bounds, races, bounds,races or all: every memory access checked (scalar \
                 shapes), a report and a failed command for each bad one",
    },
    Switch {
        name: "FERRITE_CATCH_FAULTS",
        default: "1",
        effect: "0 leaves faults in kernels to the process (and turns the time limit off)",
    },
];

/// The value of a switch in this process, if set.
pub fn value(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Every `"FERRITE_…"` string literal in the files under `dir` (test files skipped).
    fn read_in(dir: &Path, found: &mut Vec<(String, String)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                read_in(&path, found);
                continue;
            }
            let name = path.to_string_lossy().into_owned();
            if !name.ends_with(".rs") || name.ends_with("tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            // Only the code before the file's unit tests.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for piece in code.split("\"FERRITE_").skip(1) {
                let var: String = piece
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                if piece[var.len()..].starts_with('"') {
                    found.push((format!("FERRITE_{var}"), name.clone()));
                }
            }
        }
    }

    #[test]
    fn every_variable_read_is_listed_and_documented() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut found = Vec::new();
        for dir in ["runtime/src", "icd/src", "compiler/src"] {
            read_in(&root.join(dir), &mut found);
        }
        assert!(
            found.iter().any(|(v, _)| v == "FERRITE_THREADS"),
            "the scan found nothing: {found:?}"
        );
        for (var, file) in &found {
            assert!(
                SWITCHES.iter().any(|s| s.name == var),
                "{file} reads {var}, which runtime/src/switches.rs does not list"
            );
        }
        let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
        for s in SWITCHES {
            assert!(
                readme.contains(&format!("`{}`", s.name))
                    || readme.contains(&format!("`{}=", s.name)),
                "README.md does not document {}",
                s.name
            );
        }
    }
}
