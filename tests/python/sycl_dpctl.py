#!/usr/bin/env python3
"""SYCL on Ferrite: dpctl's tensor library (DPC++-compiled SPIR-V kernels, run by Intel's
SYCL runtime through its OpenCL backend) on the OpenCL CPU device, every result checked
with numpy.

    ONEAPI_DEVICE_SELECTOR=opencl:cpu OCL_ICD_VENDORS=target/vendors python tests/python/sycl_dpctl.py

The driver under test must be the only OpenCL CPU platform in OCL_ICD_VENDORS; the script
checks that its platform is named FERRITE_PLATFORM (default "Ferrite"). What it runs:
unified-shared-memory allocations and copies, element-wise functions (contiguous,
strided and broadcast, which use sub-group loads), reductions, scans, sorting, matrix
products, boolean indexing, top_k (sub-groups of 16), and OpenCL C kernels requiring
sub-groups of 16 and 32 submitted through SYCL interoperability. Exits non-zero on any
mismatch.
"""

import os
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore", DeprecationWarning)
import dpctl  # noqa: E402
import dpctl.program  # noqa: E402
import dpctl.tensor as dpt  # noqa: E402


def check(name, got, want, rtol=1e-5, atol=1e-6):
    got = dpt.asnumpy(got) if isinstance(got, dpt.usm_ndarray) else np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape or not np.allclose(got, want, rtol=rtol, atol=atol):
        print(f"sycl_dpctl: {name}: got\n{got}\nwant\n{want}", file=sys.stderr)
        return False
    return True


def main() -> int:
    wanted = os.environ.get("FERRITE_PLATFORM", "Ferrite")
    q = dpctl.SyclQueue("opencl:cpu")
    platform = q.sycl_device.sycl_platform.name
    if platform != wanted:
        print(f"sycl_dpctl: the OpenCL CPU platform is {platform!r}, not {wanted!r}", file=sys.stderr)
        return 1
    rng = np.random.default_rng(7)
    ok = True

    # USM: device, shared and host allocations, copies both ways.
    a_np = rng.standard_normal(10_000).astype(np.float32)
    for usm in ("device", "shared", "host"):
        a = dpt.asarray(a_np, usm_type=usm, sycl_queue=q)
        ok &= check(f"round trip through {usm} memory", a, a_np, rtol=0, atol=0)

    # Element-wise: contiguous, strided, broadcast (sub-group kernels), type promotion.
    a = dpt.asarray(a_np, sycl_queue=q)
    ok &= check("sin", dpt.sin(a), np.sin(a_np))
    ok &= check("exp", dpt.exp(a), np.exp(a_np), rtol=1e-5)
    ok &= check("strided abs", dpt.abs(a[::-3]), np.abs(a_np[::-3]))
    m_np = rng.integers(-50, 50, size=(37, 23)).astype(np.int32)
    v_np = np.arange(23, dtype=np.int32)
    m, v = dpt.asarray(m_np, sycl_queue=q), dpt.asarray(v_np, sycl_queue=q)
    ok &= check("matrix + row", dpt.add(m, v), m_np + v_np)
    ok &= check("row + matrix", dpt.add(v, m), v_np + m_np)
    ok &= check("transposed * 3", dpt.multiply(m.T, 3), m_np.T * 3)
    ok &= check("int / float", dpt.divide(m, 4.0), m_np / np.float32(4.0))
    ok &= check("arange", dpt.arange(1000, dtype="i8", sycl_queue=q), np.arange(1000))

    # Reductions and scans.
    big_np = rng.standard_normal((300, 200)).astype(np.float32)
    big = dpt.asarray(big_np, sycl_queue=q)
    ok &= check("sum", dpt.sum(big), big_np.sum(dtype=np.float64), rtol=1e-4, atol=1e-2)
    ok &= check("sum axis 0", dpt.sum(big, axis=0), big_np.sum(axis=0), rtol=1e-4, atol=1e-4)
    ok &= check("max axis 1", dpt.max(big, axis=1), big_np.max(axis=1))
    ok &= check("argmin", dpt.argmin(big, axis=1), big_np.argmin(axis=1), rtol=0, atol=0)
    ints = dpt.asarray(m_np.ravel(), sycl_queue=q)
    ok &= check("cumulative sum", dpt.cumulative_sum(ints), np.cumsum(m_np.ravel()), rtol=0, atol=0)

    # Sorting, searching, boolean indexing, matrix products.
    ok &= check("sort", dpt.sort(a), np.sort(a_np), rtol=0, atol=0)
    ok &= check("argsort", dpt.argsort(ints, stable=True), np.argsort(m_np.ravel(), kind="stable"), rtol=0, atol=0)
    ok &= check("mask", a[a > 1.0], a_np[a_np > 1.0], rtol=0, atol=0)
    x_np = rng.standard_normal((64, 48)).astype(np.float32)
    y_np = rng.standard_normal((48, 80)).astype(np.float32)
    x, y = dpt.asarray(x_np, sycl_queue=q), dpt.asarray(y_np, sycl_queue=q)
    ok &= check("matmul", dpt.matmul(x, y), x_np @ y_np, rtol=1e-4, atol=1e-4)
    # top_k's radix kernels require sub-groups of 16 where the device offers them.
    vals_np = rng.permutation(5000).astype(np.int32)
    top = dpt.top_k(dpt.asarray(vals_np, sycl_queue=q), 10)
    ok &= check("top_k", dpt.sort(top.values), np.sort(vals_np)[-10:], rtol=0, atol=0)

    # Kernels that require 16 and 32 work-items per sub-group, built from OpenCL C through
    # SYCL's interoperability and submitted on the SYCL queue.
    sizes = q.sycl_device.sub_group_sizes
    for n in (16, 32):
        if n not in sizes:
            print(f"sycl_dpctl: sub-group size {n} is not offered ({sizes})", file=sys.stderr)
            ok = False
            continue
        src = f"""
            __attribute__((intel_reqd_sub_group_size({n})))
            kernel void k(global const int *in, global int *out) {{
                size_t g = get_global_id(0);
                out[2 * g] = get_sub_group_size();
                out[2 * g + 1] = sub_group_reduce_add(in[g]);
            }}"""
        prog = dpctl.program.create_program_from_source(q, src, "-cl-std=CL3.0")
        kern = prog.get_sycl_kernel("k")
        ins_np = rng.integers(-100, 100, size=256).astype(np.int32)
        ins = dpt.asarray(ins_np, sycl_queue=q)
        outs = dpt.zeros(512, dtype="i4", sycl_queue=q)
        q.submit(kern, [ins.usm_data, outs.usm_data], [256], [64]).wait()
        want = np.empty(512, dtype=np.int32)
        want[0::2] = n
        want[1::2] = np.repeat(ins_np.reshape(-1, n).sum(axis=1), n)
        ok &= check(f"reqd_sub_group_size({n})", outs, want, rtol=0, atol=0)

    if not ok:
        return 1
    print(f"sycl_dpctl: OK (dpctl {dpctl.__version__} on {platform}, device {q.sycl_device.name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
