//! Sub-groups through the ICD loader: the device's claims (`__opencl_c_subgroups`), `clGetKernelSubGroupInfo`
//! (core and the `clGetKernelSubGroupInfoKHR` extension address) with its error codes,
//! and a kernel whose sub-group built-ins and collectives agree with those answers.

use ferrite_tests::*;
use std::ffi::{c_void, CString};
use std::ptr;

/// The OpenCL C features the device claims.
fn features() -> Vec<String> {
    let feats = device_info(dev().device, CL_DEVICE_OPENCL_C_FEATURES).expect("features");
    feats
        .chunks(std::mem::size_of::<cl_name_version>())
        .map(|c| {
            let v: cl_name_version = pod(c);
            let s: Vec<u8> = v
                .name
                .iter()
                .take_while(|c| **c != 0)
                .map(|c| c.to_ne_bytes()[0])
                .collect();
            String::from_utf8_lossy(&s).into_owned()
        })
        .collect()
}

/// Sub-groups are the OpenCL 3.0 feature `__opencl_c_subgroups`.
fn has_subgroups() -> bool {
    features().iter().any(|f| f == "__opencl_c_subgroups")
}

const SRC: &str = r#"
__kernel void k(__global uint *out) {
    size_t g = get_global_id(0);
    out[g * 3] = get_max_sub_group_size();
    out[g * 3 + 1] = get_num_sub_groups();
    out[g * 3 + 2] = sub_group_reduce_add(1u);
}
__attribute__((reqd_work_group_size(8, 2, 1)))
__kernel void fixed(__global uint *out) { out[get_global_id(0)] = get_sub_group_id(); }
"#;

/// `clGetKernelSubGroupInfo` with `input`; the value as `size_t`s, or the error.
fn sg_info(
    k: cl_kernel,
    param: cl_kernel_sub_group_info,
    input: &[usize],
    out_words: usize,
) -> Result<Vec<usize>, cl_int> {
    let mut out = vec![0usize; out_words];
    let mut ret = 0usize;
    // SAFETY: `input` and `out` are live arrays of the sizes passed.
    let rc = unsafe {
        clGetKernelSubGroupInfo(
            k,
            dev().device,
            param,
            std::mem::size_of_val(input),
            if input.is_empty() {
                ptr::null()
            } else {
                input.as_ptr().cast()
            },
            out_words * 8,
            out.as_mut_ptr().cast(),
            &mut ret,
        )
    };
    if rc != CL_SUCCESS {
        return Err(rc);
    }
    assert_eq!(ret % 8, 0, "size_ret {ret}");
    out.truncate(ret / 8);
    Ok(out)
}

#[test]
fn device_claims_sub_groups() {
    if !require(has_subgroups(), "__opencl_c_subgroups") {
        return;
    }
    let n: cl_uint = device_get(CL_DEVICE_MAX_NUM_SUB_GROUPS);
    let wg: usize = device_get(CL_DEVICE_MAX_WORK_GROUP_SIZE);
    assert!(
        n >= 1 && n as usize <= wg,
        "CL_DEVICE_MAX_NUM_SUB_GROUPS {n}"
    );
    // Work-items of a group run one after another: no independent forward progress.
    if is_ferrite() {
        let ifp: cl_bool = device_get(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS);
        assert_eq!(ifp, CL_FALSE);
    }
    // cl_khr_subgroups requires independent forward progress: not claimed without it.
    let ifp: cl_bool = device_get(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS);
    let ext = device_string(CL_DEVICE_EXTENSIONS);
    if ifp == CL_FALSE {
        assert!(
            !ext.split_whitespace().any(|e| e == "cl_khr_subgroups"),
            "cl_khr_subgroups without independent forward progress: {ext}"
        );
    }
}

#[test]
fn kernel_sub_group_info_answers_and_errors() {
    if !require(has_subgroups(), "__opencl_c_subgroups") {
        return;
    }
    let env = Env::new();
    let p = env.build(SRC, "-cl-std=CL3.0");
    let k = p.kernel("k");
    let fixed = p.kernel("fixed");
    let max = sg_info(k.raw(), CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[64], 1).unwrap();
    let sgs = max[0];
    assert!(sgs >= 1, "max sub-group size {sgs}");
    for local in [&[64usize][..], &[10, 3], &[3, 2, 2], &[1]] {
        let n: usize = local.iter().product();
        let m = sg_info(k.raw(), CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, local, 1).unwrap();
        assert!(
            m[0] >= n.min(sgs) && m[0] <= sgs,
            "max size {m:?} for {local:?}"
        );
        let c = sg_info(k.raw(), CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, local, 1).unwrap();
        assert_eq!(c, [n.div_ceil(sgs)], "count for {local:?}");
    }
    // A local size for a number of sub-groups, in as many dimensions as asked for.
    let l = sg_info(k.raw(), CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, &[3], 2).unwrap();
    assert_eq!(l.len(), 2);
    assert_eq!(l.iter().product::<usize>().div_ceil(sgs), 3, "{l:?}");
    let none = sg_info(
        k.raw(),
        CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
        &[1 << 40],
        3,
    );
    assert_eq!(
        none.unwrap(),
        [0, 0, 0],
        "no local size has 2^40 sub-groups"
    );
    // With reqd_work_group_size(8, 2, 1), only that size.
    let f = sg_info(
        fixed.raw(),
        CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
        &[16usize.div_ceil(sgs)],
        3,
    );
    assert_eq!(f.unwrap(), [8, 2, 1]);
    let wg: usize = pod(&kernel_wg_info(k.raw(), dev().device, CL_KERNEL_WORK_GROUP_SIZE).unwrap());
    let mx = sg_info(k.raw(), CL_KERNEL_MAX_NUM_SUB_GROUPS, &[], 1).unwrap();
    assert_eq!(mx, [wg.div_ceil(sgs)]);
    let fixed_mx = sg_info(fixed.raw(), CL_KERNEL_MAX_NUM_SUB_GROUPS, &[], 1).unwrap();
    assert_eq!(fixed_mx, [16usize.div_ceil(sgs)]);
    assert_eq!(
        sg_info(k.raw(), CL_KERNEL_COMPILE_NUM_SUB_GROUPS, &[], 1).unwrap(),
        [0]
    );

    // Errors.
    let code = |r: Result<Vec<usize>, cl_int>| r.err().unwrap_or(CL_SUCCESS);
    spec_code(
        code(sg_info(
            k.raw(),
            CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
            &[],
            1,
        )),
        CL_INVALID_VALUE,
        "CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE without a local size",
    );
    spec_code(
        code(sg_info(
            k.raw(),
            CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
            &[1, 1, 1, 1],
            1,
        )),
        CL_INVALID_VALUE,
        "a four-dimensional local size",
    );
    spec_code(
        code(sg_info(k.raw(), 0x7fff, &[1], 1)),
        CL_INVALID_VALUE,
        "an unknown param_name",
    );
    spec_code(
        code(sg_info(
            k.raw(),
            CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
            &[4],
            0,
        )),
        CL_INVALID_VALUE,
        "param_value_size too small",
    );
    spec_code(
        code(sg_info(
            ptr::null_mut(),
            CL_KERNEL_MAX_NUM_SUB_GROUPS,
            &[],
            1,
        )),
        CL_INVALID_KERNEL,
        "a NULL kernel",
    );
    // SAFETY: a live kernel, a wrong device handle (the context), valid out-pointers.
    let rc = unsafe {
        let mut v = 0usize;
        clGetKernelSubGroupInfo(
            k.raw(),
            wrong_handle(env.ctx.raw()),
            CL_KERNEL_MAX_NUM_SUB_GROUPS,
            0,
            ptr::null(),
            8,
            (&mut v as *mut usize).cast(),
            ptr::null_mut(),
        )
    };
    spec_code(rc, CL_INVALID_DEVICE, "a context as the device");

    // The extension's entry point answers like the core one.
    let name = CString::new("clGetKernelSubGroupInfoKHR").unwrap();
    // SAFETY: a live platform and a NUL-terminated name.
    let f = unsafe { clGetExtensionFunctionAddressForPlatform(dev().platform, name.as_ptr()) };
    assert!(!f.is_null(), "clGetKernelSubGroupInfoKHR has no address");
    type Fn = unsafe extern "C" fn(
        cl_kernel,
        cl_device_id,
        cl_kernel_sub_group_info,
        usize,
        *const c_void,
        usize,
        *mut c_void,
        *mut usize,
    ) -> cl_int;
    // SAFETY: the address of clGetKernelSubGroupInfoKHR, which has this signature.
    let f: Fn = unsafe { std::mem::transmute::<*mut c_void, Fn>(f) };
    let local = [10usize];
    let mut v = 0usize;
    // SAFETY: live kernel and device, arrays of the sizes passed.
    let rc = unsafe {
        f(
            k.raw(),
            dev().device,
            CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
            8,
            local.as_ptr().cast(),
            8,
            (&mut v as *mut usize).cast(),
            ptr::null_mut(),
        )
    };
    check(rc, "clGetKernelSubGroupInfoKHR");
    assert_eq!(v, 10usize.div_ceil(sgs));

    // The kernel sees the same geometry, with a partial last sub-group.
    let out = env.buffer_zeroed::<u32>(30 * 3);
    k.buf(0, &out);
    run_1d(&env.queue, &k, 30, Some(10));
    let o = out.read::<u32>(&env.queue, 30 * 3);
    for g in 0..30 {
        let lin = g % 10;
        let base = lin / sgs * sgs;
        assert_eq!(
            o[g * 3..g * 3 + 3],
            [
                sgs.min(10) as u32,
                10usize.div_ceil(sgs) as u32,
                (10 - base).min(sgs) as u32
            ],
            "work-item {g}"
        );
    }
}

/// `cl_intel_required_subgroup_size`: the device's one sub-group size, a kernel that asks
/// for it (reported back, and what the kernel sees), one that asks for another (a build
/// failure whose log says why), and the spill-memory query.
#[test]
fn required_sub_group_size() {
    let exts = device_string(CL_DEVICE_EXTENSIONS);
    if !require(
        exts.contains("cl_intel_required_subgroup_size"),
        "cl_intel_required_subgroup_size",
    ) {
        return;
    }
    let sizes: Vec<usize> =
        pod_vec(&device_info(dev().device, CL_DEVICE_SUB_GROUP_SIZES_INTEL).expect("sizes"));
    assert!(!sizes.is_empty());
    let env = Env::new();
    for &n in &sizes {
        let src = format!(
            "__attribute__((intel_reqd_sub_group_size({n})))
             kernel void k(global uint *out) {{ out[get_global_id(0)] = get_sub_group_size(); }}"
        );
        let p = env.build(&src, "-cl-std=CL3.0");
        let k = p.kernel("k");
        let compiled = sg_info(k.raw(), CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, &[], 1).unwrap();
        assert_eq!(compiled, [n], "CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL");
        let out = env.buffer_zeroed::<u32>(64);
        k.buf(0, &out);
        run_1d(&env.queue, &k, 64, Some(64));
        let got: Vec<u32> = out.read(&env.queue, 64);
        assert!(got.iter().all(|s| *s as usize == n), "{got:?}");
        let mut spill = u64::MAX;
        // SAFETY: a live kernel and device; 8 bytes out.
        let rc = unsafe {
            clGetKernelWorkGroupInfo(
                k.raw(),
                dev().device,
                CL_KERNEL_SPILL_MEM_SIZE_INTEL,
                8,
                (&mut spill as *mut u64).cast(),
                ptr::null_mut(),
            )
        };
        check(rc, "CL_KERNEL_SPILL_MEM_SIZE_INTEL");
        assert_eq!(spill, 0);
    }
    // A kernel without the attribute reports 0.
    let p = env.build(SRC, "-cl-std=CL3.0");
    let plain = sg_info(
        p.kernel("k").raw(),
        CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL,
        &[],
        1,
    );
    assert_eq!(plain.unwrap(), [0]);
    // A size the device does not have: the build fails and its log says why.
    let other = (1..=64)
        .find(|s| !sizes.contains(s))
        .expect("an unsupported size");
    let src = format!(
        "__attribute__((intel_reqd_sub_group_size({other})))
         kernel void k(global uint *out) {{ out[0] = 1; }}"
    );
    let err = build_source(&env.ctx, &src, "-cl-std=CL3.0").expect_err("the build fails");
    assert_eq!(err.0, CL_BUILD_PROGRAM_FAILURE);
    assert!(err.1.contains("sub-group size"), "log: {}", err.1);
}
