/* Level-Zero on Ferrite: add two vectors on the CPU.
 *
 * Build and run (from the repository root):
 *
 *   cargo build -p ferrite-icd
 *   cat > vadd.cl <<'CL'
 *   kernel void vadd(global const float *a, global const float *b, global float *c, uint n) {
 *       size_t i = get_global_id(0);
 *       if (i < n) c[i] = a[i] + b[i];
 *   }
 *   CL
 *   clang-15 -c -target spir64 -cl-std=CL3.0 -O2 -emit-llvm vadd.cl -o vadd.bc
 *   llvm-spirv-15 vadd.bc -o vadd.spv
 *   gcc examples/ze_vecadd.c -o ze_vecadd -lze_loader
 *   ZE_ENABLE_ALT_DRIVERS=$PWD/target/debug/libferrite.so ./ze_vecadd vadd.spv
 *
 * The steps are those of any Level-Zero program: initialise, find the CPU device, make a
 * context, allocate shared memory, build the SPIR-V module, set the kernel's arguments,
 * record the launch in a command list and execute it on a command queue.
 */
#include <level_zero/ze_api.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        ze_result_t r_ = (call);                                                         \
        if (r_ != ZE_RESULT_SUCCESS) {                                                   \
            fprintf(stderr, "%s failed: 0x%x\n", #call, (unsigned)r_);                   \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc(*size);
    if (data && fread(data, 1, *size, f) != *size) {
        free(data);
        data = NULL;
    }
    fclose(f);
    return data;
}

int main(int argc, char **argv) {
    const char *spv = argc > 1 ? argv[1] : "vadd.spv";
    const uint32_t n = 1 << 20;

    /* 1. Initialise and find a CPU device. */
    CHECK(zeInit(0));
    uint32_t count = 1;
    ze_driver_handle_t driver;
    CHECK(zeDriverGet(&count, &driver));
    count = 1;
    ze_device_handle_t device;
    CHECK(zeDeviceGet(driver, &count, &device));
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    CHECK(zeDeviceGetProperties(device, &props));
    printf("device: %s (%s)\n", props.name, props.type == ZE_DEVICE_TYPE_CPU ? "CPU" : "other");

    ze_context_desc_t context_desc = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_context_handle_t context;
    CHECK(zeContextCreate(driver, &context_desc, &context));

    /* 2. Shared memory: the host fills the inputs and reads the result directly. */
    ze_device_mem_alloc_desc_t device_desc = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t host_desc = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    float *a, *b, *c;
    CHECK(zeMemAllocShared(context, &device_desc, &host_desc, n * sizeof(float), 64, device,
                           (void **)&a));
    CHECK(zeMemAllocShared(context, &device_desc, &host_desc, n * sizeof(float), 64, device,
                           (void **)&b));
    CHECK(zeMemAllocShared(context, &device_desc, &host_desc, n * sizeof(float), 64, device,
                           (void **)&c));
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = 2.0f * (float)i;
    }

    /* 3. Build the module and create the kernel. */
    size_t size;
    unsigned char *il = read_file(spv, &size);
    if (!il) {
        fprintf(stderr, "cannot read %s\n", spv);
        return 1;
    }
    ze_module_desc_t module_desc = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                                    .format = ZE_MODULE_FORMAT_IL_SPIRV,
                                    .inputSize = size,
                                    .pInputModule = il};
    ze_module_handle_t module;
    ze_module_build_log_handle_t log;
    ze_result_t built = zeModuleCreate(context, device, &module_desc, &module, &log);
    if (built != ZE_RESULT_SUCCESS) {
        size_t log_size = 0;
        zeModuleBuildLogGetString(log, &log_size, NULL);
        char *text = malloc(log_size);
        zeModuleBuildLogGetString(log, &log_size, text);
        fprintf(stderr, "build failed:\n%s\n", text);
        return 1;
    }
    CHECK(zeModuleBuildLogDestroy(log));
    free(il);

    ze_kernel_desc_t kernel_desc = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "vadd"};
    ze_kernel_handle_t kernel;
    CHECK(zeKernelCreate(module, &kernel_desc, &kernel));

    /* 4. Group size and arguments: pointers are passed by value. */
    uint32_t gx, gy, gz;
    CHECK(zeKernelSuggestGroupSize(kernel, n, 1, 1, &gx, &gy, &gz));
    CHECK(zeKernelSetGroupSize(kernel, gx, gy, gz));
    CHECK(zeKernelSetArgumentValue(kernel, 0, sizeof a, &a));
    CHECK(zeKernelSetArgumentValue(kernel, 1, sizeof b, &b));
    CHECK(zeKernelSetArgumentValue(kernel, 2, sizeof c, &c));
    CHECK(zeKernelSetArgumentValue(kernel, 3, sizeof n, &n));

    /* 5. Record the launch, execute it, wait. */
    ze_command_queue_desc_t queue_desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                          .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS};
    ze_command_queue_handle_t queue;
    CHECK(zeCommandQueueCreate(context, device, &queue_desc, &queue));
    ze_command_list_desc_t list_desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t list;
    CHECK(zeCommandListCreate(context, device, &list_desc, &list));
    ze_group_count_t groups = {n / gx, 1, 1};
    CHECK(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    CHECK(zeCommandListClose(list));
    CHECK(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    CHECK(zeCommandQueueSynchronize(queue, UINT64_MAX));

    /* 6. Check and clean up. */
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < n; i++) wrong += c[i] != 3.0f * (float)i;
    printf("%u elements in groups of %u: %s\n", n, gx, wrong ? "WRONG" : "correct");

    CHECK(zeCommandListDestroy(list));
    CHECK(zeCommandQueueDestroy(queue));
    CHECK(zeKernelDestroy(kernel));
    CHECK(zeModuleDestroy(module));
    CHECK(zeMemFree(context, a));
    CHECK(zeMemFree(context, b));
    CHECK(zeMemFree(context, c));
    CHECK(zeContextDestroy(context));
    return wrong != 0;
}
