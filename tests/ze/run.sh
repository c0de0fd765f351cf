#!/bin/sh
# Level-Zero API tests: C programs linked against the system's libze_loader, run with
# Ferrite as the loader's driver (ZE_ENABLE_ALT_DRIVERS).
#
#   tests/ze/run.sh            build libferrite.so (debug), the kernels and the tests, run
#   SKIP_CARGO=1 tests/ze/run.sh   use the library already built
#   PROFILE=release ...        use target/release
#
# Each program prints "<name>: N passed, M failed"; the script exits non-zero if any
# program fails. The kernels' SPIR-V is generated into the target directory (never
# checked in) with clang-15 + llvm-spirv-15.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PROFILE=${PROFILE:-debug}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
OUT=$TARGET/ze-tests
LIB=$TARGET/$PROFILE/libferrite.so
CLANG=${FERRITE_CLANG:-clang-15}
LLVM_SPIRV=${FERRITE_LLVM_SPIRV:-llvm-spirv-15}
mkdir -p "$OUT"

if [ -z "${SKIP_CARGO:-}" ]; then
    if [ "$PROFILE" = release ]; then
        (cd "$ROOT" && cargo build -p ferrite-icd --release)
    else
        (cd "$ROOT" && cargo build -p ferrite-icd)
    fi
fi
[ -f "$LIB" ] || { echo "missing $LIB" >&2; exit 2; }

# OpenCL C -> SPIR-V.
"$CLANG" -c -target spir64 -cl-std=CL3.0 -O2 -emit-llvm \
    -Xclang -cl-ext=+__cl_clang_function_pointers \
    "$ROOT/tests/ze/kernels.cl" -o "$OUT/kernels.bc"
"$LLVM_SPIRV" --spirv-ext=+SPV_INTEL_arbitrary_precision_integers,+SPV_INTEL_function_pointers \
    "$OUT/kernels.bc" -o "$OUT/kernels.spv"
"$CLANG" -c -target spir64 -cl-std=CL3.0 -O2 -emit-llvm \
    "$ROOT/tests/ze/fault_kernels.cl" -o "$OUT/fault_kernels.bc"
"$LLVM_SPIRV" "$OUT/fault_kernels.bc" -o "$OUT/fault_kernels.spv"
"$CLANG" -c -target spir64 -cl-std=CL1.2 -O2 -emit-llvm \
    "$ROOT/tests/ze/image_kernels.cl" -o "$OUT/image_kernels.bc"
"$LLVM_SPIRV" "$OUT/image_kernels.bc" -o "$OUT/image_kernels.spv"

CFLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g -Wall -Wextra -Werror"
for t in ze_basic ze_kernel ze_sync ze_fault ze_image; do
    gcc $CFLAGS -I"$ROOT/tests/ze" "$ROOT/tests/ze/$t.c" -o "$OUT/$t" -lze_loader -pthread
done
gcc $CFLAGS "$ROOT/examples/ze_vecadd.c" -o "$OUT/ze_vecadd" -lze_loader
# Both APIs in one process: the OpenCL loader finds the same library through a vendors
# directory of its own.
gcc $CFLAGS -I"$ROOT/tests/ze" -I"$ROOT/include" "$ROOT/tests/ze/both_apis.c" -o "$OUT/both_apis" \
    -lOpenCL -lze_loader
mkdir -p "$OUT/vendors" "$OUT/vendors-link"
echo "$LIB" > "$OUT/vendors/ferrite.icd"
# The same file under another name: the dynamic linker must still load it once.
ln -sf "$LIB" "$OUT/libferrite-link.so"
echo "$OUT/libferrite-link.so" > "$OUT/vendors-link/ferrite.icd"

export ZE_ENABLE_ALT_DRIVERS="$LIB"
status=0
run() {
    echo "== $*"
    if ! timeout "${TEST_TIMEOUT:-300}" "$@"; then
        echo "FAILED: $*"
        status=1
    fi
}
run "$OUT/ze_basic"
run env FERRITE_IMAGES=0 "$OUT/ze_basic"
run "$OUT/ze_kernel" "$OUT/kernels.spv"
run "$OUT/ze_sync"
run "$OUT/ze_fault" "$OUT/fault_kernels.spv"
run "$OUT/ze_image" "$OUT/image_kernels.spv"
run "$OUT/ze_vecadd" "$OUT/kernels.spv"
run env OCL_ICD_VENDORS="$OUT/vendors" "$OUT/both_apis" "$OUT/kernels.spv"
run env OCL_ICD_VENDORS="$OUT/vendors" "$OUT/both_apis" "$OUT/kernels.spv" ze-first
run env OCL_ICD_VENDORS="$OUT/vendors-link" "$OUT/both_apis" "$OUT/kernels.spv"
# Again through the loader's validation layer, which checks every call's arguments first.
run env ZE_ENABLE_VALIDATION_LAYER=1 "$OUT/ze_basic"
run env ZE_ENABLE_VALIDATION_LAYER=1 "$OUT/ze_kernel" "$OUT/kernels.spv"
run env ZE_ENABLE_VALIDATION_LAYER=1 "$OUT/ze_sync"
run env ZE_ENABLE_VALIDATION_LAYER=1 "$OUT/ze_fault" "$OUT/fault_kernels.spv"
run env ZE_ENABLE_VALIDATION_LAYER=1 "$OUT/ze_image" "$OUT/image_kernels.spv"
exit $status
