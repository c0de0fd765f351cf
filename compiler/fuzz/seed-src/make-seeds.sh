#!/bin/sh
# Regenerate ../seeds/*.spv from the sources here (run from this directory).
set -e
PASSES='function(sroa,early-cse,simplifycfg),cgscc(inline),function(sroa,early-cse,gvn,loop-mssa(licm),sccp,adce,simplifycfg)'
tmp=$(mktemp -d)
EXTS=-cl-ext=+cl_khr_integer_dot_product,+__opencl_c_integer_dot_product_input_4x8bit,+__opencl_c_integer_dot_product_input_4x8bit_packed,+cl_khr_extended_bit_ops,+cl_ext_float_atomics,+__opencl_c_ext_fp32_global_atomic_add,+__opencl_c_ext_fp32_local_atomic_min_max
for f in *.cl; do
    b=${f%.cl}
    std=-cl-std=CL1.2
    [ "$b" = extensions ] && std="-cl-std=CL3.0 -Xclang $EXTS"
    clang-15 -c -target spir64 $std -O2 -Xclang -disable-llvm-passes \
        -cl-kernel-arg-info -emit-llvm "$f" -o "$tmp/$b.bc"
    opt-15 -passes="$PASSES" "$tmp/$b.bc" -o "$tmp/$b.opt.bc"
    llvm-spirv-15 --spirv-ext=+SPV_INTEL_arbitrary_precision_integers,+SPV_KHR_integer_dot_product,+SPV_KHR_bit_instructions,+SPV_EXT_shader_atomic_float_add,+SPV_EXT_shader_atomic_float_min_max \
        --preserve-ocl-kernel-arg-type-metadata-through-string "$tmp/$b.opt.bc" -o "../seeds/$b.spv"
done
spirv-as --target-env spv1.5 vulkan.spvasm -o ../seeds/vulkan.spv
spirv-as --target-env spv1.4 spec.spvasm -o ../seeds/spec.spv
spirv-as --target-env spv1.4 dpcpp.spvasm -o ../seeds/dpcpp.spv
spirv-as --target-env spv1.4 uniform_group.spvasm -o ../seeds/uniform_group.spv
spirv-as --target-env spv1.4 ../../tests/kernels/apint.spvasm -o ../seeds/apint.spv
rm -r "$tmp"
