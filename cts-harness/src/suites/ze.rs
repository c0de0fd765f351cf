//! The oneAPI level-zero-tests conformance suites (`conformance_tests/core` of
//! <https://github.com/oneapi-src/level-zero-tests>), which the user builds by hand; their
//! `make install` puts every binary, with the `.spv` kernels and images they load by relative
//! path, into one directory (`<build>/out`), the `--ze` directory and the binaries' working
//! directory.
//!
//! Each binary is a googletest program (`--gtest_list_tests`, `--gtest_filter`), named
//! `test_<area>`; the harness calls it `ze_<area>`. The helpers those binaries start
//! themselves (`test_*_helper`, in subdirectories) and the `test_template` example are not
//! suites. Time limits are generous for a CPU: the suites with thousands of parameterised
//! tests (copy, memory, image, p2p) get two hours.

use super::{Kind, Suite};

const fn ze(name: &'static str, binary: &'static str, timeout_secs: u64) -> Suite {
    Suite {
        name,
        kind: Kind::Ze,
        binary,
        args: &[],
        quick_args: &[],
        quick_select: &[],
        full_select: &[],
        timeout_secs,
    }
}

/// Every level-zero-tests suite the harness can run, host-API suites first.
pub const ZE_SUITES: &[Suite] = &[
    ze("ze_driver", "test_driver", 600),
    ze(
        "ze_driver_init_flag_none",
        "test_driver_init_flag_none",
        300,
    ),
    ze("ze_driver_init_flag_gpu", "test_driver_init_flag_gpu", 300),
    ze("ze_driver_init_flag_vpu", "test_driver_init_flag_vpu", 300),
    ze(
        "ze_driver_init_flag_vpu_gpu",
        "test_driver_init_flag_vpu_gpu",
        300,
    ),
    ze("ze_device", "test_device", 600),
    ze("ze_context", "test_context", 600),
    ze("ze_event", "test_event", 1800),
    ze("ze_fence", "test_fence", 600),
    ze("ze_barrier", "test_barrier", 600),
    ze("ze_cmdqueue", "test_cmdqueue", 1800),
    ze("ze_cmdlist", "test_cmdlist", 3600),
    ze("ze_mutable_cmdlist", "test_mutable_cmdlist", 1800),
    ze("ze_copy", "test_copy", 7200),
    ze("ze_memory", "test_memory", 7200),
    ze("ze_memory_overcommit", "test_memory_overcommit", 1800),
    ze("ze_usm", "test_usm", 1800),
    ze("ze_residency", "test_residency", 600),
    ze("ze_module", "test_module", 3600),
    ze("ze_sampler", "test_sampler", 600),
    ze("ze_image", "test_image", 7200),
    ze("ze_multithread", "test_multithread", 1800),
    ze("ze_multiprocess", "test_multiprocess", 600),
    ze("ze_ipc", "test_ipc", 1800),
    ze("ze_ipc_memory", "test_ipc_memory", 1800),
    ze("ze_ipc_put_handle", "test_ipc_put_handle", 1800),
    ze("ze_ipc_multidevice", "test_ipc_multidevice", 600),
    ze("ze_ipc_multisubdevice", "test_ipc_multisubdevice", 600),
    ze("ze_ipc_p2p_memory", "test_ipc_p2p_memory", 3600),
    ze("ze_p2p", "test_p2p", 7200),
    ze("ze_fabric", "test_fabric", 600),
    ze("ze_api_interop", "test_api_interop", 600),
    ze("ze_cl_interop", "test_cl_interop", 600),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_binaries() {
        for s in ZE_SUITES {
            let area = s.binary.strip_prefix("test_").unwrap();
            assert_eq!(s.name.strip_prefix("ze_"), Some(area), "{}", s.name);
        }
    }
}
