/*
 * ferrite.h: what an application may want to know about Ferrite, the CPU OpenCL 3.0 ICD and
 * Level-Zero driver. Ferrite has no entry points of its own: applications use the standard
 * OpenCL (CL/cl.h, through the ICD loader) and Level-Zero (level_zero/ze_api.h, through
 * libze_loader) headers. This header names the values by which they can recognise Ferrite
 * and the environment variables that steer it.
 *
 * The values must match runtime/src/platform.rs and runtime/src/device.rs;
 * tests/ze/both_apis.c checks them through both APIs.
 */
#ifndef FERRITE_H
#define FERRITE_H

/* CL_PLATFORM_NAME of Ferrite's platform. */
#define FERRITE_PLATFORM_NAME "Ferrite"

/* CL_PLATFORM_ICD_SUFFIX_KHR (cl_khr_icd). */
#define FERRITE_ICD_SUFFIX "FERRITE"

/* CL_DEVICE_VENDOR_ID and ze_device_properties_t.vendorId: not a PCI vendor id (Ferrite is
 * not a PCI device) and outside the range Khronos assigns. */
#define FERRITE_VENDOR_ID 0x1A6E7u

/* Environment variables read by Ferrite (see README.md):
 *   FERRITE_THREADS       number of worker threads (default: one per core)
 *   FERRITE_CLANG         clang-15 program used for OpenCL C
 *   FERRITE_OPT           opt-15 program that optimises clang's output
 *   FERRITE_LLVM_SPIRV    llvm-spirv-15 program
 *   FERRITE_CACHE_DIR     where compiled OpenCL C is cached; FERRITE_CACHE=0 turns it off
 *   FERRITE_DUMP_CLIF     1: print every compiled function's Cranelift IR to stderr
 */

#endif /* FERRITE_H */
