#!/bin/sh
# Regenerate ../seeds/*.spv from the sources here (run from this directory).
set -e
PASSES='function(sroa,early-cse,simplifycfg),cgscc(inline),function(sroa,early-cse,gvn,loop-mssa(licm),sccp,adce,simplifycfg)'
tmp=$(mktemp -d)
for f in *.cl; do
    b=${f%.cl}
    clang-15 -c -target spir64 -cl-std=CL1.2 -O2 -Xclang -disable-llvm-passes \
        -cl-kernel-arg-info -emit-llvm "$f" -o "$tmp/$b.bc"
    opt-15 -passes="$PASSES" "$tmp/$b.bc" -o "$tmp/$b.opt.bc"
    llvm-spirv-15 --spirv-ext=+SPV_INTEL_arbitrary_precision_integers \
        --preserve-ocl-kernel-arg-type-metadata-through-string "$tmp/$b.opt.bc" -o "../seeds/$b.spv"
done
spirv-as --target-env spv1.4 spec.spvasm -o ../seeds/spec.spv
spirv-as --target-env spv1.4 ../../tests/kernels/apint.spvasm -o ../seeds/apint.spv
rm -r "$tmp"
