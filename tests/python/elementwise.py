#!/usr/bin/env python3
"""pyopencl's ElementwiseKernel on Ferrite: z = a*x + y on 1M floats, checked with numpy.

Run with the platform to test in FERRITE_PLATFORM (default "Ferrite") and the vendors
directory in OCL_ICD_VENDORS (pyopencl's wheel bundles an ocl-icd that honours it):

    OCL_ICD_VENDORS=target/vendors python tests/python/elementwise.py

Exits non-zero on any mismatch or if the platform is missing.
"""

import os
import sys

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
from pyopencl.elementwise import ElementwiseKernel


def main() -> int:
    wanted = os.environ.get("FERRITE_PLATFORM", "Ferrite")
    platforms = cl.get_platforms()
    names = [p.name for p in platforms]
    matches = [p for p in platforms if p.name == wanted]
    if not matches:
        print(f"elementwise: no platform named {wanted!r} (found {names})", file=sys.stderr)
        return 1
    platform = matches[0]
    device = platform.get_devices()[0]
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx)

    n = 1 << 20
    rng = np.random.default_rng(1234)
    x = rng.uniform(-1000, 1000, n).astype(np.float32)
    y = rng.uniform(-1000, 1000, n).astype(np.float32)
    a = np.float32(2.5)

    saxpy = ElementwiseKernel(ctx, "float a, float *x, float *y, float *z", "z[i] = a*x[i] + y[i]", "saxpy")
    x_dev = cl_array.to_device(queue, x)
    y_dev = cl_array.to_device(queue, y)
    z_dev = cl_array.empty_like(x_dev)
    saxpy(a, x_dev, y_dev, z_dev)
    z = z_dev.get()

    # OpenCL C may contract a*x+y into one fma: accept exactly the separately rounded result or
    # the fused one. The float32 product is exact in float64, and so (for these magnitudes) is
    # its sum with y, so rounding that sum once to float32 gives the fma result.
    separate = a * x + y
    fused = (np.float64(a) * x.astype(np.float64) + y.astype(np.float64)).astype(np.float32)
    ok = (z == separate) | (z == fused)
    if not ok.all():
        bad = np.flatnonzero(~ok)[:5]
        print(f"elementwise: {np.count_nonzero(~ok)} mismatches, first at {bad.tolist()}: "
              f"got {z[bad].tolist()}, expected {separate[bad].tolist()}", file=sys.stderr)
        return 1

    # A second kernel with integer arithmetic and the array's own operators.
    ints = cl_array.arange(queue, n, dtype=np.int32)
    got = (ints * 3 + 7).get()
    expected = np.arange(n, dtype=np.int32) * 3 + 7
    if not np.array_equal(got, expected):
        print("elementwise: integer array expression mismatch", file=sys.stderr)
        return 1

    print(f"elementwise: OK (platform {platform.name}, device {device.name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
