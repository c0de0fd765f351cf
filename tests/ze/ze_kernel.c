/* Modules, kernels and launches through libze_loader: building SPIR-V (and failing to,
 * with a build log), kernel names and properties, argument errors, launches with several
 * group sizes on regular and immediate command lists. argv[1] is the kernels' .spv. */
#include "common.h"

static ze_command_queue_handle_t queue;

static void run_list(env_t *env, ze_command_list_handle_t list) {
    (void)env;
    EXPECT_OK(zeCommandListClose(list));
    EXPECT_OK(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    EXPECT_OK(zeCommandQueueSynchronize(queue, UINT64_MAX));
}

static ze_command_list_handle_t new_list(env_t *env) {
    ze_command_list_desc_t d = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t l = NULL;
    EXPECT_OK(zeCommandListCreate(env->context, env->device, &d, &l));
    return l;
}

static void test_module_errors(env_t *env) {
    uint32_t garbage[16] = {0x07230203, 0x00010400, 0, 100, 0, 0xdeadbeef};
    ze_module_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                             .format = ZE_MODULE_FORMAT_IL_SPIRV,
                             .inputSize = sizeof garbage,
                             .pInputModule = (const uint8_t *)garbage};
    ze_module_handle_t m = (ze_module_handle_t)1;
    ze_module_build_log_handle_t log = NULL;
    EXPECT_RESULT(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
                  zeModuleCreate(env->context, env->device, &desc, &m, &log));
    EXPECT(m == NULL);
    EXPECT(log != NULL);
    size_t n = 0;
    EXPECT_OK(zeModuleBuildLogGetString(log, &n, NULL));
    EXPECT(n > 1);
    char buf[512];
    n = sizeof buf;
    EXPECT_OK(zeModuleBuildLogGetString(log, &n, buf));
    EXPECT(strstr(buf, "error") != NULL);
    EXPECT_OK(zeModuleBuildLogDestroy(log));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeModuleBuildLogDestroy(log));

    desc.inputSize = 0;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_SIZE,
                  zeModuleCreate(env->context, env->device, &desc, &m, NULL));
    desc.inputSize = sizeof garbage;
    desc.format = ZE_MODULE_FORMAT_NATIVE;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY,
                  zeModuleCreate(env->context, env->device, &desc, &m, NULL));
    desc.format = 7;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                  zeModuleCreate(env->context, env->device, &desc, &m, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeModuleCreate(env->context, env->device, NULL, &m, NULL));
}

static void test_kernel_objects(env_t *env, ze_module_handle_t module) {
    uint32_t n = 0;
    EXPECT_OK(zeModuleGetKernelNames(module, &n, NULL));
    EXPECT(n == 10);
    const char *names[10] = {0};
    EXPECT_OK(zeModuleGetKernelNames(module, &n, names));
    int found = 0;
    for (uint32_t i = 0; i < n; i++) found += names[i] && strcmp(names[i], "vadd") == 0;
    EXPECT(found == 1);

    ze_kernel_handle_t k = NULL;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "nope"};
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_NAME, zeKernelCreate(module, &kd, &k));
    kd.pKernelName = "vadd";
    EXPECT_OK(zeKernelCreate(module, &kd, &k));

    ze_kernel_properties_t kp = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    EXPECT_OK(zeKernelGetProperties(k, &kp));
    EXPECT(kp.numKernelArgs == 4);
    EXPECT(kp.maxSubgroupSize == 4 && kp.maxNumSubgroups == 1024 && kp.requiredSubgroupSize == 0);
    /* ZE_extension_kernel_max_group_size_properties (API 1.5, newer than Debian's
       headers: the struct is spelled out). */
    struct {
        ze_structure_type_t stype;
        void *pNext;
        uint32_t maxGroupSize;
    } mg = {.stype = (ze_structure_type_t)0x10013};
    kp.pNext = &mg;
    EXPECT_OK(zeKernelGetProperties(k, &kp));
    ze_device_compute_properties_t cp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    EXPECT_OK(zeDeviceGetComputeProperties(env->device, &cp));
    EXPECT(mg.maxGroupSize == cp.maxTotalGroupSize);
    kp.pNext = NULL;
    size_t len = 0;
    EXPECT_OK(zeKernelGetName(k, &len, NULL));
    EXPECT(len == 5);
    char name[16];
    EXPECT_OK(zeKernelGetName(k, &len, name));
    EXPECT(strcmp(name, "vadd") == 0);

    uint32_t x, y, z;
    EXPECT_OK(zeKernelSuggestGroupSize(k, 1000, 1, 1, &x, &y, &z));
    EXPECT(x >= 1 && 1000 % x == 0 && y == 1 && z == 1);
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION,
                  zeKernelSuggestGroupSize(k, 0, 1, 1, &x, &y, &z));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION, zeKernelSetGroupSize(k, 0, 1, 1));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION,
                  zeKernelSetGroupSize(k, 4096, 2, 1));
    EXPECT_OK(zeKernelSetGroupSize(k, 64, 1, 1));

    float f = 1.0f;
    uint32_t u = 3;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX,
                  zeKernelSetArgumentValue(k, 4, sizeof u, &u));
    /* A longer by-value argument gives its first bytes (as Intel's driver does); an empty
       one is refused. */
    uint64_t wide = 3;
    EXPECT_OK(zeKernelSetArgumentValue(k, 3, sizeof wide, &wide));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE,
                  zeKernelSetArgumentValue(k, 3, 0, &u));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE,
                  zeKernelSetArgumentValue(k, 0, sizeof f, &f));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeKernelSetArgumentValue(k, 3, 4, NULL));
    EXPECT_OK(zeKernelSetIndirectAccess(k, ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE));
    ze_kernel_indirect_access_flags_t ia = 0;
    EXPECT_OK(zeKernelGetIndirectAccess(k, &ia));
    EXPECT(ia == ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE);

    /* Launching with arguments missing is refused. */
    ze_command_list_handle_t list = new_list(env);
    ze_group_count_t g = {1, 1, 1};
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeCommandListAppendLaunchKernel(list, k, &g, NULL, 0, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeCommandListAppendLaunchKernel(list, k, NULL, NULL, 0, NULL));
    EXPECT_OK(zeCommandListDestroy(list));
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeKernelSetGroupSize(k, 1, 1, 1));
}

/* vadd over n elements with group size `gs`, on a regular list. */
static void test_vadd(env_t *env, ze_module_handle_t module, uint32_t n, uint32_t gs) {
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    float *a, *b, *c;
    uint32_t groups = (n + gs - 1) / gs;
    size_t bytes = (size_t)groups * gs * sizeof(float);
    EXPECT_OK(zeMemAllocShared(env->context, &dd, &hd, bytes, 0, env->device, (void **)&a));
    EXPECT_OK(zeMemAllocShared(env->context, &dd, &hd, bytes, 0, env->device, (void **)&b));
    EXPECT_OK(zeMemAllocDevice(env->context, &dd, bytes, 0, env->device, (void **)&c));
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
    }
    ze_kernel_handle_t k;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "vadd"};
    EXPECT_OK(zeKernelCreate(module, &kd, &k));
    EXPECT_OK(zeKernelSetGroupSize(k, gs, 1, 1));
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof a, &a));
    EXPECT_OK(zeKernelSetArgumentValue(k, 1, sizeof b, &b));
    EXPECT_OK(zeKernelSetArgumentValue(k, 2, sizeof c, &c));
    EXPECT_OK(zeKernelSetArgumentValue(k, 3, sizeof n, &n));
    ze_command_list_handle_t list = new_list(env);
    ze_group_count_t g = {groups, 1, 1};
    EXPECT_OK(zeCommandListAppendLaunchKernel(list, k, &g, NULL, 0, NULL));
    /* Arguments are captured at append: this change must not affect the launch. */
    uint32_t zero = 0;
    EXPECT_OK(zeKernelSetArgumentValue(k, 3, sizeof zero, &zero));
    run_list(env, list);
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) bad += c[i] != 1.5f * (float)i;
    EXPECT(bad == 0);
    if (bad) fprintf(stderr, "vadd n=%u gs=%u: %d wrong\n", n, gs, bad);
    EXPECT_OK(zeCommandListDestroy(list));
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeMemFree(env->context, a));
    EXPECT_OK(zeMemFree(env->context, b));
    EXPECT_OK(zeMemFree(env->context, c));
}

/* 2-D ids: group and local ids, sizes, group counts. */
static void test_ids(env_t *env, ze_module_handle_t module, uint32_t gx, uint32_t gy,
                     uint32_t cx, uint32_t cy) {
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    uint32_t w = gx * cx, h = gy * cy;
    uint32_t *out;
    EXPECT_OK(zeMemAllocDevice(env->context, &dd, (size_t)w * h * 16, 0, env->device,
                               (void **)&out));
    ze_kernel_handle_t k;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "ids"};
    EXPECT_OK(zeKernelCreate(module, &kd, &k));
    EXPECT_OK(zeKernelSetGroupSize(k, gx, gy, 1));
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof out, &out));
    ze_command_list_handle_t list = new_list(env);
    ze_group_count_t g = {cx, cy, 1};
    EXPECT_OK(zeCommandListAppendLaunchKernel(list, k, &g, NULL, 0, NULL));
    run_list(env, list);
    int bad = 0;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t *o = &out[4 * (y * w + x)];
            bad += o[0] != ((x / gx) | ((y / gy) << 16));
            bad += o[1] != ((x % gx) | ((y % gy) << 16));
            bad += o[2] != (gx | (gy << 16));
            bad += o[3] != (cx | (cy << 16));
        }
    EXPECT(bad == 0);
    if (bad) fprintf(stderr, "ids %ux%u groups of %ux%u: %d wrong\n", cx, cy, gx, gy, bad);
    EXPECT_OK(zeCommandListDestroy(list));
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeMemFree(env->context, out));
}

/* A __local argument and 64-bit values, on an immediate list (sync or async). */
static void test_local(env_t *env, ze_module_handle_t module, ze_command_queue_mode_t mode) {
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    const uint32_t gs = 32, groups = 8, n = gs * groups;
    int64_t *out;
    EXPECT_OK(zeMemAllocHost(env->context, &hd, n * sizeof(int64_t), 0, (void **)&out));
    ze_kernel_handle_t k;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC,
                           .pKernelName = "scale_local"};
    EXPECT_OK(zeKernelCreate(module, &kd, &k));
    EXPECT_OK(zeKernelSetGroupSize(k, gs, 1, 1));
    int64_t factor = 1ll << 33;
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof out, &out));
    EXPECT_OK(zeKernelSetArgumentValue(k, 1, gs * sizeof(int64_t), NULL));
    EXPECT_OK(zeKernelSetArgumentValue(k, 2, sizeof factor, &factor));
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, .mode = mode};
    ze_command_list_handle_t imm;
    EXPECT_OK(zeCommandListCreateImmediate(env->context, env->device, &qd, &imm));
    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                               .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE, .count = 1};
    ze_event_pool_handle_t pool;
    EXPECT_OK(zeEventPoolCreate(env->context, &pd, 0, NULL, &pool));
    ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = 0};
    ze_event_handle_t done;
    EXPECT_OK(zeEventCreate(pool, &ed, &done));
    ze_group_count_t g = {groups, 1, 1};
    EXPECT_OK(zeCommandListAppendLaunchKernel(imm, k, &g, done, 0, NULL));
    if (mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS) EXPECT_OK(zeEventQueryStatus(done));
    EXPECT_OK(zeEventHostSynchronize(done, UINT64_MAX));
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) bad += out[i] != (int64_t)i * factor + 1;
    EXPECT(bad == 0);
    /* A value shorter than its parameter is zero-extended, over the earlier value's high
       bytes (Intel's driver does so; level-zero-tests pass a uint32_t for a size_t). */
    uint32_t short_factor = 0x80000003u;
    EXPECT_OK(zeKernelSetArgumentValue(k, 2, sizeof short_factor, &short_factor));
    EXPECT_OK(zeEventHostReset(done));
    EXPECT_OK(zeCommandListAppendLaunchKernel(imm, k, &g, done, 0, NULL));
    EXPECT_OK(zeEventHostSynchronize(done, UINT64_MAX));
    bad = 0;
    for (uint32_t i = 0; i < n; i++) bad += out[i] != (int64_t)i * 0x80000003ll + 1;
    EXPECT(bad == 0);
    /* A longer one gives its first bytes: the parameter's 8 of these 16. */
    int64_t long_factor[2] = {5, -1};
    EXPECT_OK(zeKernelSetArgumentValue(k, 2, sizeof long_factor, long_factor));
    EXPECT_OK(zeEventHostReset(done));
    EXPECT_OK(zeCommandListAppendLaunchKernel(imm, k, &g, done, 0, NULL));
    EXPECT_OK(zeEventHostSynchronize(done, UINT64_MAX));
    bad = 0;
    for (uint32_t i = 0; i < n; i++) bad += out[i] != (int64_t)i * 5 + 1;
    EXPECT(bad == 0);
    /* An immediate list cannot be executed on a queue. */
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE,
                  zeCommandQueueExecuteCommandLists(queue, 1, &imm, NULL));
    EXPECT_OK(zeCommandListDestroy(imm));
    /* The copy queue group (ordinal 1) launches no kernel. */
    qd.ordinal = 1;
    EXPECT_OK(zeCommandListCreateImmediate(env->context, env->device, &qd, &imm));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE,
                  zeCommandListAppendLaunchKernel(imm, k, &g, done, 0, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE,
                  zeCommandListAppendLaunchCooperativeKernel(imm, k, &g, done, 0, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE,
                  zeCommandListAppendLaunchKernelIndirect(imm, k, &g, done, 0, NULL));
    EXPECT_OK(zeCommandListDestroy(imm));
    EXPECT_OK(zeEventDestroy(done));
    EXPECT_OK(zeEventPoolDestroy(pool));
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeMemFree(env->context, out));
}

/* A barrier between local-memory writes and reads. */
static void test_barrier(env_t *env, ze_module_handle_t module, uint32_t gs, uint32_t groups) {
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    const uint32_t n = gs * groups;
    int32_t *in, *out;
    EXPECT_OK(zeMemAllocHost(env->context, &hd, n * 4, 0, (void **)&in));
    EXPECT_OK(zeMemAllocHost(env->context, &hd, n * 4, 0, (void **)&out));
    for (uint32_t i = 0; i < n; i++) in[i] = (int32_t)i;
    ze_kernel_handle_t k;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC,
                           .pKernelName = "reverse_groups"};
    EXPECT_OK(zeKernelCreate(module, &kd, &k));
    EXPECT_OK(zeKernelSetGroupSize(k, gs, 1, 1));
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof in, &in));
    EXPECT_OK(zeKernelSetArgumentValue(k, 1, sizeof out, &out));
    EXPECT_OK(zeKernelSetArgumentValue(k, 2, gs * 4, NULL));
    ze_command_list_handle_t list = new_list(env);
    ze_group_count_t g = {groups, 1, 1};
    EXPECT_OK(zeCommandListAppendLaunchKernel(list, k, &g, NULL, 0, NULL));
    run_list(env, list);
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) bad += out[i] != (int32_t)((i / gs) * gs + gs - 1 - i % gs);
    EXPECT(bad == 0);
    if (bad) fprintf(stderr, "reverse_groups gs=%u: %d wrong\n", gs, bad);
    EXPECT_OK(zeCommandListDestroy(list));
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeMemFree(env->context, in));
    EXPECT_OK(zeMemFree(env->context, out));
}

/* zeKernelSetGlobalOffsetExp, an indirect launch, source attributes, dynamic link. */
static void test_launch_variants(env_t *env, ze_module_handle_t module) {
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    const uint32_t n = 256;
    uint32_t *out;
    ze_group_count_t *counts;
    EXPECT_OK(zeMemAllocShared(env->context, &dd, &hd, n * 4, 0, NULL, (void **)&out));
    EXPECT_OK(zeMemAllocShared(env->context, &dd, &hd, sizeof *counts, 0, NULL,
                               (void **)&counts));
    ze_kernel_handle_t k;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "global_ids"};
    EXPECT_OK(zeKernelCreate(module, &kd, &k));
    EXPECT_OK(zeKernelSetGroupSize(k, 16, 1, 1));
    EXPECT_OK(zeKernelSetGlobalOffsetExp(k, 1000, 0, 0));
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof out, &out));
    ze_command_list_handle_t list = new_list(env);
    /* The group count is read when the command runs, not when it is appended. */
    *counts = (ze_group_count_t){1, 1, 1};
    EXPECT_OK(zeCommandListAppendLaunchKernelIndirect(list, k, counts, NULL, 0, NULL));
    *counts = (ze_group_count_t){n / 16, 1, 1};
    run_list(env, list);
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) bad += out[i] != 1000 + i;
    EXPECT(bad == 0);
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeCommandListAppendLaunchKernelIndirect(list, k, NULL, NULL, 0, NULL));

    /* Several kernels: how many run and their group counts are read when the command
       runs; the third is not run. */
    uint32_t *out2, *number;
    ze_group_count_t *multi;
    EXPECT_OK(zeMemAllocShared(env->context, &dd, &hd, n * 4, 0, NULL, (void **)&out2));
    EXPECT_OK(zeMemAllocShared(env->context, &dd, &hd, 4, 0, NULL, (void **)&number));
    EXPECT_OK(zeMemAllocShared(env->context, &dd, &hd, 3 * sizeof *multi, 0, NULL,
                               (void **)&multi));
    ze_kernel_handle_t k2;
    EXPECT_OK(zeKernelCreate(module, &kd, &k2));
    EXPECT_OK(zeKernelSetGroupSize(k2, 16, 1, 1));
    EXPECT_OK(zeKernelSetArgumentValue(k2, 0, sizeof out2, &out2));
    memset(out, 0, n * 4);
    memset(out2, 0, n * 4);
    *number = 0;
    for (int i = 0; i < 3; i++) multi[i] = (ze_group_count_t){1, 1, 1};
    ze_kernel_handle_t ks[3] = {k, k2, k2};
    ze_command_list_handle_t list2 = new_list(env);
    EXPECT_OK(zeCommandListAppendLaunchMultipleKernelsIndirect(list2, 3, ks, number, multi, NULL,
                                                               0, NULL));
    *number = 2;
    multi[0] = (ze_group_count_t){n / 16, 1, 1};
    multi[1] = (ze_group_count_t){n / 32, 1, 1};
    multi[2] = (ze_group_count_t){n / 16, 1, 1};
    run_list(env, list2);
    bad = 0;
    for (uint32_t i = 0; i < n; i++) bad += out[i] != 1000 + i;
    for (uint32_t i = 0; i < n; i++) bad += out2[i] != (i < n / 2 ? i : 0);
    EXPECT(bad == 0);
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeCommandListAppendLaunchMultipleKernelsIndirect(list2, 3, ks, NULL, multi, NULL,
                                                                   0, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeCommandListAppendLaunchMultipleKernelsIndirect(list2, 3, NULL, number, multi,
                                                                   NULL, 0, NULL));
    EXPECT_OK(zeCommandListDestroy(list2));
    EXPECT_OK(zeKernelDestroy(k2));
    EXPECT_OK(zeMemFree(env->context, out2));
    EXPECT_OK(zeMemFree(env->context, number));
    EXPECT_OK(zeMemFree(env->context, multi));

    uint32_t size = 0;
    EXPECT_OK(zeKernelGetSourceAttributes(k, &size, NULL));
    EXPECT(size >= 1);
    char attrs[256];
    char *p = attrs;
    size = sizeof attrs;
    EXPECT_OK(zeKernelGetSourceAttributes(k, &size, &p));
    EXPECT(size >= 1 && attrs[size - 1] == 0);

    ze_module_build_log_handle_t log = NULL;
    EXPECT_OK(zeModuleDynamicLink(1, &module, &log));
    EXPECT_OK(zeModuleBuildLogDestroy(log));

    /* Linkage inspection: the program-scope variable the module exports, and no
       built-in variable taken for an import. */
    ze_linkage_inspection_ext_desc_t insp = {
        .stype = ZE_STRUCTURE_TYPE_LINKAGE_INSPECTION_EXT_DESC,
        .flags = ZE_LINKAGE_INSPECTION_EXT_FLAG_IMPORTS |
                 ZE_LINKAGE_INSPECTION_EXT_FLAG_UNRESOLVABLE_IMPORTS |
                 ZE_LINKAGE_INSPECTION_EXT_FLAG_EXPORTS};
    log = NULL;
    EXPECT_OK(zeModuleInspectLinkageExt(&insp, 1, &module, &log));
    char linkage[2048] = {0};
    size_t linkage_size = sizeof linkage;
    EXPECT_OK(zeModuleBuildLogGetString(log, &linkage_size, linkage));
    EXPECT(strstr(linkage, "Import Symbol Names:\nUnresolvable Import Symbol Names:\n"
                           "Export Symbol Names:\n") != NULL);
    EXPECT(strstr(linkage, "\nze_counter\n") != NULL);
    EXPECT(strstr(linkage, "__spirv_BuiltIn") == NULL);
    EXPECT_OK(zeModuleBuildLogDestroy(log));
    insp.flags = 8;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                  zeModuleInspectLinkageExt(&insp, 1, &module, &log));
    insp.flags = ZE_LINKAGE_INSPECTION_EXT_FLAG_EXPORTS;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeModuleInspectLinkageExt(&insp, 1, &module, NULL));

    /* A native binary builds the same module again. */
    size_t bin_size = 0;
    EXPECT_OK(zeModuleGetNativeBinary(module, &bin_size, NULL));
    EXPECT(bin_size > 16);
    uint8_t *bin = malloc(bin_size);
    size_t small = 4;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_SIZE, zeModuleGetNativeBinary(module, &small, bin));
    EXPECT_OK(zeModuleGetNativeBinary(module, &bin_size, bin));
    ze_module_desc_t nd = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                           .format = ZE_MODULE_FORMAT_NATIVE,
                           .inputSize = bin_size,
                           .pInputModule = bin};
    ze_module_handle_t again = NULL;
    EXPECT_OK(zeModuleCreate(env->context, env->device, &nd, &again, NULL));
    uint32_t nk = 0;
    EXPECT_OK(zeModuleGetKernelNames(again, &nk, NULL));
    EXPECT(nk == 10);
    EXPECT_OK(zeModuleDestroy(again));
    free(bin);

    EXPECT_OK(zeCommandListDestroy(list));
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeMemFree(env->context, out));
    EXPECT_OK(zeMemFree(env->context, counts));
}

static void test_double(env_t *env, ze_module_handle_t module) {
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    const uint32_t n = 1024;
    double *x, *y;
    EXPECT_OK(zeMemAllocShared(env->context, &dd, &hd, n * 8, 0, NULL, (void **)&x));
    EXPECT_OK(zeMemAllocShared(env->context, &dd, &hd, n * 8, 0, NULL, (void **)&y));
    for (uint32_t i = 0; i < n; i++) {
        x[i] = i;
        y[i] = 1.0;
    }
    ze_kernel_handle_t k;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC,
                           .pKernelName = "saxpy_double"};
    EXPECT_OK(zeKernelCreate(module, &kd, &k));
    uint32_t gx, gy, gz;
    EXPECT_OK(zeKernelSuggestGroupSize(k, n, 1, 1, &gx, &gy, &gz));
    EXPECT_OK(zeKernelSetGroupSize(k, gx, gy, gz));
    double a = 0.25;
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof y, &y));
    EXPECT_OK(zeKernelSetArgumentValue(k, 1, sizeof x, &x));
    EXPECT_OK(zeKernelSetArgumentValue(k, 2, sizeof a, &a));
    ze_command_list_handle_t list = new_list(env);
    ze_group_count_t g = {n / gx, 1, 1};
    EXPECT_OK(zeCommandListAppendLaunchKernel(list, k, &g, NULL, 0, NULL));
    run_list(env, list);
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) bad += y[i] != 1.0 + 0.25 * i;
    EXPECT(bad == 0);
    EXPECT_OK(zeCommandListDestroy(list));
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeMemFree(env->context, x));
    EXPECT_OK(zeMemFree(env->context, y));
}

/* The half bits of q / 4 (q < 2^15, with at most 11 significant bits: exact). */
static uint16_t half_of_quarters(uint32_t q) {
    if (q == 0) return 0;
    uint32_t e = 0;
    while (q >> (e + 1)) e++;
    uint32_t m = e <= 10 ? q << (10 - e) : q >> (e - 10);
    return (uint16_t)(((e + 13) << 10) | (m & 0x3ff));
}

/* A kernel on halves (cl_khr_fp16 / the FP16 module flag): y = a * x + y, exact here. */
static void test_half(env_t *env, ze_module_handle_t module) {
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    const uint32_t n = 1024;
    uint16_t *x, *y;
    EXPECT_OK(zeMemAllocShared(env->context, &dd, &hd, n * 2, 0, NULL, (void **)&x));
    EXPECT_OK(zeMemAllocShared(env->context, &dd, &hd, n * 2, 0, NULL, (void **)&y));
    for (uint32_t i = 0; i < n; i++) {
        x[i] = half_of_quarters(4 * i);
        y[i] = half_of_quarters(4);
    }
    ze_kernel_handle_t k;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "saxpy_half"};
    EXPECT_OK(zeKernelCreate(module, &kd, &k));
    EXPECT_OK(zeKernelSetGroupSize(k, 64, 1, 1));
    uint16_t a = half_of_quarters(1);
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof y, &y));
    EXPECT_OK(zeKernelSetArgumentValue(k, 1, sizeof x, &x));
    EXPECT_OK(zeKernelSetArgumentValue(k, 2, sizeof a, &a));
    ze_command_list_handle_t list = new_list(env);
    ze_group_count_t g = {n / 64, 1, 1};
    EXPECT_OK(zeCommandListAppendLaunchKernel(list, k, &g, NULL, 0, NULL));
    run_list(env, list);
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) bad += y[i] != half_of_quarters(4 + i);
    EXPECT(bad == 0);
    EXPECT_OK(zeCommandListDestroy(list));
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeMemFree(env->context, x));
    EXPECT_OK(zeMemFree(env->context, y));
}

/* zeModuleGetGlobalPointer: the storage the module's kernels use, readable and writable
 * by the host (device memory is host memory). */
static void test_global_pointer(env_t *env, ze_module_handle_t module) {
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    size_t size = 0;
    int *counter = NULL;
    EXPECT_OK(zeModuleGetGlobalPointer(module, "ze_counter", &size, (void **)&counter));
    EXPECT(size == sizeof(int));
    EXPECT(counter != NULL && *counter == 41);
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME,
                  zeModuleGetGlobalPointer(module, "no_such_variable", &size, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeModuleGetGlobalPointer(module, NULL, &size, NULL));
    if (!counter) return;
    *counter = 100;
    int *out;
    EXPECT_OK(zeMemAllocHost(env->context, &hd, sizeof(int), 0, (void **)&out));
    ze_kernel_handle_t k;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC,
                           .pKernelName = "bump_counter"};
    EXPECT_OK(zeKernelCreate(module, &kd, &k));
    EXPECT_OK(zeKernelSetGroupSize(k, 1, 1, 1));
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof out, &out));
    ze_command_list_handle_t list = new_list(env);
    ze_group_count_t g = {1, 1, 1};
    EXPECT_OK(zeCommandListAppendLaunchKernel(list, k, &g, NULL, 0, NULL));
    run_list(env, list);
    EXPECT(*out == 101 && *counter == 101);
    EXPECT_OK(zeCommandListDestroy(list));
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeMemFree(env->context, out));
}

/* zeModuleGetFunctionPointer: a kernel calls whichever function it is given. */
static void test_function_pointer(env_t *env, ze_module_handle_t module) {
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    void *fns[2] = {NULL, NULL}, *again = NULL, *none = NULL;
    EXPECT_OK(zeModuleGetFunctionPointer(module, "scale_add", &fns[0]));
    EXPECT_OK(zeModuleGetFunctionPointer(module, "negate", &fns[1]));
    EXPECT_OK(zeModuleGetFunctionPointer(module, "scale_add", &again));
    EXPECT(fns[0] && fns[1] && fns[0] != fns[1] && again == fns[0]);
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME,
                  zeModuleGetFunctionPointer(module, "no_such_function", &none));
    EXPECT_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                  zeModuleGetFunctionPointer(module, "with_barrier", &none));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeModuleGetFunctionPointer(module, NULL, &none));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeModuleGetFunctionPointer(module, "negate", NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                  zeModuleGetFunctionPointer(NULL, "negate", &none));
    if (!fns[0] || !fns[1]) return;
    enum { N = 48 };
    int *out;
    EXPECT_OK(zeMemAllocHost(env->context, &hd, N * sizeof(int), 0, (void **)&out));
    ze_kernel_handle_t k;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "call_fn"};
    EXPECT_OK(zeKernelCreate(module, &kd, &k));
    EXPECT_OK(zeKernelSetGroupSize(k, 16, 1, 1));
    EXPECT_OK(zeKernelSetArgumentValue(k, 1, sizeof out, &out));
    for (int f = 0; f < 2; f++) {
        uint64_t fn = (uint64_t)(uintptr_t)fns[f];
        EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof fn, &fn));
        ze_command_list_handle_t list = new_list(env);
        ze_group_count_t g = {N / 16, 1, 1};
        EXPECT_OK(zeCommandListAppendLaunchKernel(list, k, &g, NULL, 0, NULL));
        run_list(env, list);
        int bad = 0;
        for (int i = 0; i < N; i++) bad += out[i] != (f == 0 ? (int)(i * 2.5f) + i : -i);
        EXPECT(bad == 0);
        EXPECT_OK(zeCommandListDestroy(list));
    }
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeMemFree(env->context, out));
}

/* Virtual memory: two views of one physical page, written by a kernel through one view
 * and read through the other; access attributes; the errors of each entry point. */
static void test_virtual_memory(env_t *env, ze_module_handle_t module) {
    size_t page = 0;
    EXPECT_OK(zeVirtualMemQueryPageSize(env->context, env->device, 1, &page));
    EXPECT(page >= 4096 && (page & (page - 1)) == 0);
    if (page == 0) return;
    ze_physical_mem_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, .size = 2 * page};
    ze_physical_mem_handle_t phys = NULL;
    pd.size = page + 1;
    EXPECT_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT,
                  zePhysicalMemCreate(env->context, env->device, &pd, &phys));
    pd.size = 2 * page;
    /* Host physical memory (ALLOCATE_ON_HOST = 2, newer than Debian's headers) needs no
       device; device memory does; flags beyond 0x3 are refused. */
    {
        ze_physical_mem_desc_t hpd = {.stype = ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC,
                                      .flags = 0x2, .size = page};
        ze_physical_mem_handle_t host_phys = NULL;
        EXPECT_OK(zePhysicalMemCreate(env->context, NULL, &hpd, &host_phys));
        EXPECT_OK(zePhysicalMemDestroy(env->context, host_phys));
        hpd.flags = 0x1;
        EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                      zePhysicalMemCreate(env->context, NULL, &hpd, &host_phys));
        hpd.flags = 0x4;
        EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                      zePhysicalMemCreate(env->context, env->device, &hpd, &host_phys));
    }
    EXPECT_OK(zePhysicalMemCreate(env->context, env->device, &pd, &phys));
    void *va = NULL;
    EXPECT_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT,
                  zeVirtualMemReserve(env->context, NULL, page / 2, &va));
    EXPECT_OK(zeVirtualMemReserve(env->context, NULL, 4 * page, &va));
    if (!va || !phys) return;
    char *a = va, *b = (char *)va + 2 * page;
    EXPECT_OK(zeVirtualMemMap(env->context, a, page, phys, page,
                              ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));
    EXPECT_OK(zeVirtualMemMap(env->context, b, page, phys, page,
                              ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeVirtualMemMap(env->context, a, page, phys, 0,
                                  ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE)); /* mapped twice */
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeVirtualMemMap(env->context, a + page, page, phys, 2 * page,
                                  ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE)); /* past the end */
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                  zeVirtualMemMap(env->context, a + page, page, phys, 0,
                                  (ze_memory_access_attribute_t)7));

    ze_kernel_handle_t k;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "global_ids"};
    EXPECT_OK(zeKernelCreate(module, &kd, &k));
    EXPECT_OK(zeKernelSetGroupSize(k, 64, 1, 1));
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof a, &a));
    ze_command_list_handle_t list = new_list(env);
    ze_group_count_t g = {(uint32_t)(page / 4 / 64), 1, 1};
    EXPECT_OK(zeCommandListAppendLaunchKernel(list, k, &g, NULL, 0, NULL));
    run_list(env, list);
    EXPECT_OK(zeCommandListDestroy(list));
    EXPECT_OK(zeKernelDestroy(k));
    const uint32_t *seen = (const uint32_t *)b;
    int bad = 0;
    for (size_t i = 0; i < page / 4; i++) bad += seen[i] != i;
    EXPECT(bad == 0);

    ze_memory_access_attribute_t acc = 99;
    size_t same = 0;
    EXPECT_OK(zeVirtualMemGetAccessAttribute(env->context, a, 4 * page, &acc, &same));
    EXPECT(acc == ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE && same == page);
    EXPECT_OK(zeVirtualMemGetAccessAttribute(env->context, a + page, 2 * page, &acc, &same));
    EXPECT(acc == ZE_MEMORY_ACCESS_ATTRIBUTE_NONE && same == page);
    EXPECT_OK(zeVirtualMemSetAccessAttribute(env->context, b, page,
                                             ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY));
    EXPECT_OK(zeVirtualMemGetAccessAttribute(env->context, b, page, &acc, &same));
    EXPECT(acc == ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY && same == page);
    EXPECT(seen[7] == 7); /* still readable */
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeVirtualMemSetAccessAttribute(env->context, a + page, page,
                                                 ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY));
    EXPECT_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT,
                  zeVirtualMemUnmap(env->context, a + 1, page));
    EXPECT_OK(zeVirtualMemUnmap(env->context, a, page));
    EXPECT_OK(zeVirtualMemUnmap(env->context, b, page));
    EXPECT_OK(zeVirtualMemGetAccessAttribute(env->context, a, 4 * page, &acc, &same));
    EXPECT(acc == ZE_MEMORY_ACCESS_ATTRIBUTE_NONE && same == 4 * page);
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeVirtualMemFree(env->context, va, page));
    EXPECT_OK(zeVirtualMemFree(env->context, va, 4 * page));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeVirtualMemFree(env->context, va, 4 * page));
    EXPECT_OK(zePhysicalMemDestroy(env->context, phys));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zePhysicalMemDestroy(env->context, phys));
}

/* A cooperative launch: every group waits for all the others, which only works if they
 * all run at once; more groups than can run at once are refused. */
static void test_cooperative(env_t *env, ze_module_handle_t module) {
    ze_kernel_handle_t k;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC,
                           .pKernelName = "coop_wait_all"};
    EXPECT_OK(zeKernelCreate(module, &kd, &k));
    uint32_t max = 0;
    EXPECT_OK(zeKernelSuggestMaxCooperativeGroupCount(k, &max));
    EXPECT(max >= 1);
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    int *arrived, *out;
    EXPECT_OK(zeMemAllocHost(env->context, &hd, sizeof(int), 0, (void **)&arrived));
    EXPECT_OK(zeMemAllocHost(env->context, &hd, max * sizeof(int), 0, (void **)&out));
    *arrived = 0;
    EXPECT_OK(zeKernelSetGroupSize(k, 8, 1, 1));
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof arrived, &arrived));
    EXPECT_OK(zeKernelSetArgumentValue(k, 1, sizeof out, &out));
    ze_command_list_handle_t list = new_list(env);
    ze_group_count_t too_many = {max + 1, 1, 1};
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeCommandListAppendLaunchCooperativeKernel(list, k, &too_many, NULL, 0, NULL));
    ze_group_count_t g = {max, 1, 1};
    EXPECT_OK(zeCommandListAppendLaunchCooperativeKernel(list, k, &g, NULL, 0, NULL));
    run_list(env, list);
    EXPECT(*arrived == (int)max);
    int bad = 0;
    for (uint32_t i = 0; i < max; i++) bad += out[i] != (int)max;
    EXPECT(bad == 0);
    EXPECT_OK(zeCommandListDestroy(list));
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeMemFree(env->context, arrived));
    EXPECT_OK(zeMemFree(env->context, out));
}

int main(int argc, char **argv) {
    argv0 = "ze_kernel";
    if (argc < 2) {
        fprintf(stderr, "usage: %s kernels.spv\n", argv[0]);
        return 2;
    }
    env_t env = {0};
    REQUIRE_OK(env_init(&env));
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC};
    REQUIRE_OK(zeCommandQueueCreate(env.context, env.device, &qd, &queue));
    ze_module_handle_t module;
    REQUIRE_OK(build_module(&env, argv[1], &module));
    test_module_errors(&env);
    test_kernel_objects(&env, module);
    const uint32_t sizes[][2] = {{1, 1}, {1000, 1}, {1000, 8}, {1000, 250}, {4096, 4096},
                                 {100000, 128}, {12345, 7}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        test_vadd(&env, module, sizes[i][0], sizes[i][1]);
    test_ids(&env, module, 1, 1, 3, 5);
    test_ids(&env, module, 8, 4, 5, 3);
    test_ids(&env, module, 16, 16, 2, 2);
    test_local(&env, module, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    test_local(&env, module, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    test_double(&env, module);
    test_half(&env, module);
    test_barrier(&env, module, 1, 3);
    test_barrier(&env, module, 64, 16);
    test_barrier(&env, module, 250, 4);
    test_launch_variants(&env, module);
    test_global_pointer(&env, module);
    test_function_pointer(&env, module);
    test_virtual_memory(&env, module);
    test_cooperative(&env, module);
    EXPECT_OK(zeModuleDestroy(module));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeModuleDestroy(module));
    EXPECT_OK(zeCommandQueueDestroy(queue));
    EXPECT_OK(zeContextDestroy(env.context));
    return report(argv0);
}
