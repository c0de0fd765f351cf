//! The suites the harness knows: where each binary lives and which arguments it gets. Two
//! kinds share one table format, one expectation-file format and one runner: the Khronos
//! OpenCL-CTS suites below, and oneAPI level-zero-tests' googletest binaries in [`ze`].
//!
//! CTS suites were learnt from the CTS sources (`test_conformance/*/main.cpp`,
//! `opencl_conformance_tests_quick.csv`, `test_common/harness/parseParameters.cpp`). Every
//! one uses the common harness (`runTestHarness*`), so every suite accepts test names (and
//! `prefix*` wildcards) as arguments, `--list`, and `-w` (wimpy mode; only some suites look at
//! it: math, conversions, half, integer_ops, vectors, device_execution, thread_dimensions).

mod ze;

pub use ze::ZE_SUITES;

/// Which test framework a suite binary comes from: where it lives, how it lists and selects
/// its tests, and what its output looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A Khronos OpenCL-CTS suite, in `<CTS build>/test_conformance/`.
    Cts,
    /// A oneAPI level-zero-tests conformance binary (googletest), in the `--ze` directory.
    Ze,
}

impl Kind {
    /// What the suites are called in messages and expectation-file headers.
    pub fn title(self) -> &'static str {
        match self {
            Kind::Cts => "Khronos OpenCL-CTS",
            Kind::Ze => "oneAPI level-zero-tests",
        }
    }

    /// The option and the environment variable that name its directory.
    pub fn dir_option(self) -> &'static str {
        match self {
            Kind::Cts => "--cts DIR or FERRITE_CTS_DIR",
            Kind::Ze => "--ze DIR or FERRITE_ZE_TESTS_DIR",
        }
    }
}

/// One suite: a binary and the arguments it gets.
#[derive(Clone, Copy, Debug)]
pub struct Suite {
    /// The harness's name for it, also its expectation file's name.
    pub name: &'static str,
    pub kind: Kind,
    /// The binary, relative to the CTS build's `test_conformance/` or to the level-zero-tests
    /// directory.
    pub binary: &'static str,
    /// Arguments it always gets (suite options, before the test names).
    pub args: &'static [&'static str],
    /// Arguments that make it quicker (wimpy mode); dropped by `--full`.
    pub quick_args: &'static [&'static str],
    /// The tests the quick run selects (CTS patterns, `prefix*`; gtest filter patterns);
    /// empty means all.
    pub quick_select: &'static [&'static str],
    /// The tests the full run selects; empty means all.
    pub full_select: &'static [&'static str],
    /// Default time limit for the whole suite, in seconds (`--timeout` overrides it).
    pub timeout_secs: u64,
}

const fn suite(name: &'static str, binary: &'static str, timeout_secs: u64) -> Suite {
    Suite {
        name,
        kind: Kind::Cts,
        binary,
        args: &[],
        quick_args: &[],
        quick_select: &[],
        full_select: &[],
        timeout_secs,
    }
}

const WIMPY: &[&str] = &["-w"];

/// Every suite the harness can run, host-API suites first.
pub const SUITES: &[Suite] = &[
    suite("api", "api/test_api", 1800),
    suite("basic", "basic/test_basic", 5400),
    suite("buffers", "buffers/test_buffers", 2400),
    suite("mem_host_flags", "mem_host_flags/test_mem_host_flags", 600),
    suite("events", "events/test_events", 900),
    suite("profiling", "profiling/test_profiling", 900),
    suite("computeinfo", "computeinfo/test_computeinfo", 300),
    suite(
        "device_partition",
        "device_partition/test_device_partition",
        300,
    ),
    suite("multiples", "multiple_device_context/test_multiples", 900),
    Suite {
        args: &["single"],
        ..suite("allocations", "allocations/test_allocations", 1800)
    },
    Suite {
        args: &["multiple"],
        ..suite("allocations_multiple", "allocations/test_allocations", 1800)
    },
    Suite {
        quick_select: &["quick*"],
        full_select: &["full*"],
        ..suite(
            "thread_dimensions",
            "thread_dimensions/test_thread_dimensions",
            1800,
        )
    },
    Suite {
        // Its `parseArgs` (main.cpp) drops the program name from the list it hands back, so
        // the first argument takes argv[0]'s place: without a placeholder it runs no test,
        // and with test names it loses the first one.
        args: &["non_uniform_work_group"],
        ..suite(
            "non_uniform_work_group",
            "non_uniform_work_group/test_non_uniform_work_group",
            1800,
        )
    },
    // Kernel-language suites, for the compiler issues.
    suite("compiler", "compiler/test_compiler", 1800),
    suite("commonfns", "commonfns/test_commonfns", 1800),
    suite("geometrics", "geometrics/test_geometrics", 1800),
    suite("relationals", "relationals/test_relationals", 2400),
    suite("atomics", "atomics/test_atomics", 1800),
    suite("printf", "printf/test_printf", 1800),
    suite("vectors", "vectors/test_vectors", 1800),
    suite("select", "select/test_select", 2400),
    suite("contractions", "contractions/test_contractions", 1800),
    Suite {
        quick_args: WIMPY,
        ..suite("conversions", "conversions/test_conversions", 7200)
    },
    Suite {
        quick_args: WIMPY,
        ..suite("math", "math_brute_force/test_bruteforce", 7200)
    },
    Suite {
        quick_select: &["integer_*", "quick_*"],
        ..suite("integer_ops", "integer_ops/test_integer_ops", 3600)
    },
    Suite {
        quick_args: WIMPY,
        ..suite("half", "half/test_half", 3600)
    },
    suite("c11_atomics", "c11_atomics/test_c11_atomics", 3600),
    suite(
        "generic_address_space",
        "generic_address_space/test_generic_address_space",
        1800,
    ),
    suite("svm", "SVM/test_svm", 1800),
    suite("workgroups", "workgroups/test_workgroups", 1800),
    suite("subgroups", "subgroups/test_subgroups", 1800),
    suite("pipes", "pipes/test_pipes", 1800),
    Suite {
        quick_args: WIMPY,
        ..suite(
            "device_execution",
            "device_execution/test_device_execution",
            1800,
        )
    },
    suite("device_timer", "device_timer/test_device_timer", 600),
    suite("spirv_new", "spirv_new/test_spirv_new", 1800),
    // Image suites (issue 13). Each accepts the kinds as test names (`1D`, `2Darray`, …).
    suite("cl_get_info", "images/clGetInfo/test_cl_get_info", 1800),
    suite(
        "cl_copy_images",
        "images/clCopyImage/test_cl_copy_images",
        3600,
    ),
    suite(
        "cl_fill_images",
        "images/clFillImage/test_cl_fill_images",
        3600,
    ),
    suite(
        "cl_read_write_images",
        "images/clReadWriteImage/test_cl_read_write_images",
        3600,
    ),
    suite(
        "kernel_image_methods",
        "images/kernel_image_methods/test_kernel_image_methods",
        1800,
    ),
    suite(
        "samplerless_reads",
        "images/samplerlessReads/test_samplerless_reads",
        3600,
    ),
    Suite {
        args: &["CL_FILTER_NEAREST"],
        ..suite(
            "image_streams",
            "images/kernel_read_write/test_image_streams",
            7200,
        )
    },
    Suite {
        args: &["CL_FILTER_LINEAR"],
        ..suite(
            "image_streams_linear",
            "images/kernel_read_write/test_image_streams",
            7200,
        )
    },
    suite("spir", "spir/test_spir", 1800),
    // Extension suites (`test_conformance/extensions/<name>/`), named by their extension.
    suite(
        "cl_ext_buffer_device_address",
        "extensions/cl_ext_buffer_device_address/test_cl_ext_buffer_device_address",
        300,
    ),
    suite(
        "cl_khr_kernel_clock",
        "extensions/cl_khr_kernel_clock/test_cl_khr_kernel_clock",
        300,
    ),
    suite(
        "cl_khr_command_buffer",
        "extensions/cl_khr_command_buffer/test_cl_khr_command_buffer",
        900,
    ),
    suite(
        "cl_khr_mutable_dispatch",
        "extensions/cl_khr_command_buffer/cl_khr_command_buffer_mutable_dispatch/test_cl_khr_mutable_dispatch",
        900,
    ),
];

/// Every suite of both kinds, CTS suites first.
pub fn all() -> impl Iterator<Item = &'static Suite> {
    SUITES.iter().chain(ZE_SUITES)
}

/// The suite called `name` (`test_api` works as well as `api` for a CTS suite; a
/// level-zero-tests suite goes by its `ze_` name only, as some binaries share a CTS name).
pub fn find(name: &str) -> Option<&'static Suite> {
    let short = name.strip_prefix("test_").unwrap_or(name);
    SUITES
        .iter()
        .find(|s| s.name == short || s.name == name)
        .or_else(|| ZE_SUITES.iter().find(|s| s.name == name))
}

/// Whether CTS selection `pattern` (a name, `prefix*`, or `all`) picks `test`, the way
/// `find_matching_tests` in `testHarness.cpp` does.
pub fn pattern_matches(pattern: &str, test: &str) -> bool {
    match pattern.strip_suffix('*') {
        _ if pattern == "all" => true,
        Some(prefix) => test.starts_with(prefix),
        None => test == pattern,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found_with_or_without_prefix() {
        let every: Vec<&Suite> = all().collect();
        for (i, s) in every.iter().enumerate() {
            assert!(every[..i].iter().all(|t| t.name != s.name), "{}", s.name);
        }
        assert_eq!(find("test_api").map(|s| s.binary), Some("api/test_api"));
        assert_eq!(find("api").map(|s| s.binary), Some("api/test_api"));
        assert_eq!(find("ze_fence").map(|s| s.binary), Some("test_fence"));
        assert!(find("test_fence").is_none());
        assert!(find("nope").is_none());
        assert!(SUITES.iter().all(|s| s.kind == Kind::Cts));
        assert!(ZE_SUITES.iter().all(|s| s.kind == Kind::Ze));
    }

    #[test]
    fn patterns_follow_the_cts() {
        assert!(pattern_matches("quick*", "quick_1d_explicit_local"));
        assert!(!pattern_matches("quick*", "full_1d"));
        assert!(pattern_matches("all", "anything"));
        assert!(pattern_matches("bool_type", "bool_type"));
        assert!(!pattern_matches("bool", "bool_type"));
    }
}
