/* Driver and device discovery, properties, contexts and USM memory through libze_loader:
 * success and error paths (NULL and destroyed handles, size 0, bad alignment). */
#include "common.h"

#include <time.h>

static void test_driver(env_t *env) {
    ze_api_version_t v = 0;
    EXPECT_OK(zeDriverGetApiVersion(env->driver, &v));
    EXPECT(ZE_MAJOR_VERSION(v) == 1 && ZE_MINOR_VERSION(v) >= 4);

    ze_driver_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES};
    EXPECT_OK(zeDriverGetProperties(env->driver, &dp));
    EXPECT(dp.stype == ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES);
    EXPECT(memcmp(dp.uuid.id, "ferrite", 7) == 0);

    ze_driver_ipc_properties_t ipc = {.stype = ZE_STRUCTURE_TYPE_DRIVER_IPC_PROPERTIES};
    EXPECT_OK(zeDriverGetIpcProperties(env->driver, &ipc));
    EXPECT(ipc.flags == (ZE_IPC_PROPERTY_FLAG_MEMORY | ZE_IPC_PROPERTY_FLAG_EVENT_POOL));

    uint32_t n = 0;
    EXPECT_OK(zeDriverGetExtensionProperties(env->driver, &n, NULL));
    EXPECT(n == 11);
    ze_driver_extension_properties_t ext[11];
    EXPECT_OK(zeDriverGetExtensionProperties(env->driver, &n, ext));
    EXPECT(n == 11 && strcmp(ext[0].name, ZE_GLOBAL_OFFSET_EXP_NAME) == 0);
    EXPECT(strcmp(ext[1].name, ZE_FLOAT_ATOMICS_EXT_NAME) == 0);
    EXPECT(strcmp(ext[2].name, ZE_LINKAGE_INSPECTION_EXT_NAME) == 0);
    EXPECT(strcmp(ext[3].name, ZE_EVENT_QUERY_TIMESTAMPS_EXP_NAME) == 0);
    /* APIs 1.5, 1.6 and 1.9: newer than Debian's headers, so spelled out. */
    EXPECT(strcmp(ext[4].name, "ZE_extension_kernel_max_group_size_properties") == 0);
    EXPECT(strcmp(ext[5].name, "ZE_extension_event_query_kernel_timestamps") == 0);
    EXPECT(strcmp(ext[6].name, "ZE_extension_virtual_mem_readonly_properties") == 0);
    EXPECT(strcmp(ext[7].name, ZE_IMAGE_MEMORY_PROPERTIES_EXP_NAME) == 0);
    EXPECT(strcmp(ext[8].name, ZE_IMAGE_QUERY_ALLOC_PROPERTIES_EXT_NAME) == 0);
    EXPECT(strcmp(ext[9].name, ZE_MEMORY_FREE_POLICIES_EXT_NAME) == 0);
    EXPECT(strcmp(ext[10].name, "ZE_experimental_immediate_command_list_append") == 0);
    ze_driver_memory_free_ext_properties_t fp = {
        .stype = ZE_STRUCTURE_TYPE_DRIVER_MEMORY_FREE_EXT_PROPERTIES};
    ze_driver_properties_t dp2 = {.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES, .pNext = &fp};
    EXPECT_OK(zeDriverGetProperties(env->driver, &dp2));
    EXPECT(fp.freePolicies == (ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE |
                               ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE));
    void *fn = NULL;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeDriverGetExtensionFunctionAddress(env->driver, "zexNothing", &fn));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeDriverGetExtensionFunctionAddress(env->driver, NULL, &fn));
    /* Each claimed extension's entry points are reachable by name. */
    EXPECT_OK(zeDriverGetExtensionFunctionAddress(env->driver, "zeKernelSetGlobalOffsetExp", &fn));
    EXPECT(fn != NULL);
    fn = NULL;
    EXPECT_OK(zeDriverGetExtensionFunctionAddress(env->driver, "zeModuleInspectLinkageExt", &fn));
    EXPECT(fn != NULL);
    fn = NULL;
    EXPECT_OK(zeDriverGetExtensionFunctionAddress(env->driver, "zeEventQueryTimestampsExp", &fn));
    EXPECT(fn != NULL);

    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeDriverGetApiVersion(NULL, &v));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeDriverGetApiVersion(env->driver, NULL));
}

static void test_device(env_t *env) {
    uint32_t n = 0;
    EXPECT_OK(zeDeviceGet(env->driver, &n, NULL));
    EXPECT(n == 1);

    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    EXPECT_OK(zeDeviceGetProperties(env->device, &p));
    EXPECT(p.type == ZE_DEVICE_TYPE_CPU);
    EXPECT(strlen(p.name) > 0);
    EXPECT(p.maxMemAllocSize >= (128u << 20));
    EXPECT(p.numEUsPerSubslice * p.numSubslicesPerSlice * p.numSlices * p.numThreadsPerEU >= 1);
    EXPECT(p.timerResolution == 1);
    EXPECT(p.kernelTimestampValidBits == 64);
    printf("device: %s, %u threads\n", p.name,
           p.numEUsPerSubslice * p.numSubslicesPerSlice * p.numSlices * p.numThreadsPerEU);

    ze_device_properties_t p12 = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
    EXPECT_OK(zeDeviceGetProperties(env->device, &p12));
    EXPECT(p12.timerResolution == 1000000000ull);

    uint32_t nsub = 5;
    EXPECT_OK(zeDeviceGetSubDevices(env->device, &nsub, NULL));
    EXPECT(nsub == 0);

    ze_device_compute_properties_t cp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    EXPECT_OK(zeDeviceGetComputeProperties(env->device, &cp));
    EXPECT(cp.maxTotalGroupSize == 4096);
    EXPECT(cp.maxGroupSizeX == 4096 && cp.maxGroupSizeY == 4096 && cp.maxGroupSizeZ == 4096);
    EXPECT(cp.maxSharedLocalMemory >= 32768);
    /* Sub-groups of 4 work-items, or 8, 16 or 32 as a kernel requires. */
    EXPECT(cp.numSubGroupSizes == 4 && cp.subGroupSizes[0] == 4 && cp.subGroupSizes[1] == 8 &&
           cp.subGroupSizes[2] == 16 && cp.subGroupSizes[3] == 32);

    ze_device_module_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
    ze_float_atomic_ext_properties_t fa = {.stype = ZE_STRUCTURE_TYPE_FLOAT_ATOMIC_EXT_PROPERTIES};
    mp.pNext = &fa;
    EXPECT_OK(zeDeviceGetModuleProperties(env->device, &mp));
    EXPECT(mp.spirvVersionSupported == ZE_MAKE_VERSION(1, 6));
    const ze_device_fp_atomic_ext_flags_t all_fp_atomics =
        ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_LOAD_STORE | ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_ADD |
        ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_MIN_MAX | ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_LOAD_STORE |
        ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_ADD | ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_MIN_MAX;
    EXPECT(fa.fp32Flags == all_fp_atomics && fa.fp64Flags == all_fp_atomics);
    EXPECT(fa.fp16Flags == all_fp_atomics); /* SPIR-V modules have every half atomic */
    EXPECT(mp.flags & ZE_DEVICE_MODULE_FLAG_FP64);
    EXPECT(mp.flags & ZE_DEVICE_MODULE_FLAG_FP16);
    EXPECT(mp.fp16flags & ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST);
    EXPECT(mp.fp64flags & ZE_DEVICE_FP_FLAG_FMA);

    uint32_t ng = 0;
    EXPECT_OK(zeDeviceGetCommandQueueGroupProperties(env->device, &ng, NULL));
    EXPECT(ng == 2); /* compute and copy (tests/ze/ze_sync.c) */
    ng = 1;
    ze_command_queue_group_properties_t qg = {
        .stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
    EXPECT_OK(zeDeviceGetCommandQueueGroupProperties(env->device, &ng, &qg));
    EXPECT(qg.flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE);
    EXPECT(qg.flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS);
    EXPECT(qg.numQueues >= 1);

    uint32_t nm = 0;
    EXPECT_OK(zeDeviceGetMemoryProperties(env->device, &nm, NULL));
    EXPECT(nm == 1);
    ze_device_memory_properties_t memp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
    EXPECT_OK(zeDeviceGetMemoryProperties(env->device, &nm, &memp));
    EXPECT(memp.totalSize > 0);

    ze_device_memory_access_properties_t ap = {
        .stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES};
    EXPECT_OK(zeDeviceGetMemoryAccessProperties(env->device, &ap));
    EXPECT(ap.sharedSingleDeviceAllocCapabilities & ZE_MEMORY_ACCESS_CAP_FLAG_RW);

    uint32_t nc = 0;
    EXPECT_OK(zeDeviceGetCacheProperties(env->device, &nc, NULL));
    EXPECT(nc == 1);

    ze_device_image_properties_t ip = {.stype = ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES,
                                       .maxImageDims2D = 77};
    EXPECT_OK(zeDeviceGetImageProperties(env->device, &ip));
    const char *images = getenv("FERRITE_IMAGES");
    if (images && strcmp(images, "0") == 0) {
        /* Hidden: no limits, and no image can be made. */
        EXPECT(ip.maxImageDims2D == 0 && ip.maxSamplers == 0 && ip.maxReadImageArgs == 0);
        ze_image_desc_t d = {.stype = ZE_STRUCTURE_TYPE_IMAGE_DESC,
                             .type = ZE_IMAGE_TYPE_2D,
                             .format = {ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8,
                                        ZE_IMAGE_FORMAT_TYPE_UNORM, ZE_IMAGE_FORMAT_SWIZZLE_R,
                                        ZE_IMAGE_FORMAT_SWIZZLE_G, ZE_IMAGE_FORMAT_SWIZZLE_B,
                                        ZE_IMAGE_FORMAT_SWIZZLE_A},
                             .width = 4,
                             .height = 4,
                             .depth = 1};
        ze_image_handle_t img = NULL;
        EXPECT_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                      zeImageCreate(env->context, env->device, &d, &img));
    } else {
        EXPECT(ip.maxImageDims2D >= 16384 && ip.maxSamplers >= 16); /* details: ze_image.c */
    }

    ze_bool_t can = 0;
    EXPECT_OK(zeDeviceCanAccessPeer(env->device, env->device, &can));
    EXPECT(can);

    uint64_t host_ts = 0, dev_ts = 0;
    EXPECT_OK(zeDeviceGetGlobalTimestamps(env->device, &host_ts, &dev_ts));
    EXPECT(dev_ts > 0);

    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeDeviceGetProperties(NULL, &p));
    /* A pointer that is not a device handle is refused, not dereferenced. */
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                  zeDeviceGetProperties((ze_device_handle_t)&p, &p));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeDeviceGetProperties(env->device, NULL));
    ze_ipc_event_pool_handle_t pool_ipc;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeEventPoolGetIpcHandle(NULL, &pool_ipc));
}

static void test_memory(env_t *env) {
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    void *d = NULL, *h = NULL, *s = NULL;
    EXPECT_OK(zeMemAllocDevice(env->context, &dd, 1000, 0, env->device, &d));
    EXPECT_OK(zeMemAllocHost(env->context, &hd, 4096, 4096, &h));
    EXPECT_OK(zeMemAllocShared(env->context, &dd, &hd, 64, 64, env->device, &s));
    EXPECT(d && h && s);
    EXPECT(((uintptr_t)h % 4096) == 0);
    EXPECT(((uintptr_t)s % 64) == 0);
    /* USM is host memory: the host can use every kind. */
    memset(d, 1, 1000);
    memset(h, 2, 4096);
    memset(s, 3, 64);
    /* Another memory ordinal: the one memory all the same (no error is specified; Intel's
       driver and level-zero-tests do so). */
    {
        ze_device_mem_alloc_desc_t dd1 = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC,
                                          .ordinal = 1};
        void *s1 = NULL;
        EXPECT_OK(zeMemAllocShared(env->context, &dd1, &hd, 64, 1, env->device, &s1));
        EXPECT(s1 != NULL);
        if (s1) memset(s1, 4, 64);
        EXPECT_OK(zeMemFree(env->context, s1));
    }

    /* Memory advice, including the two system-memory advices of newer headers (8, 9,
       which ze_peak passes): accepted, nothing to do; beyond them an invalid enumeration. */
    {
        ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
        ze_command_list_handle_t advise = NULL;
        EXPECT_OK(zeCommandListCreate(env->context, env->device, &ld, &advise));
        for (int a = ZE_MEMORY_ADVICE_SET_READ_MOSTLY; a <= 9; a++)
            EXPECT_OK(zeCommandListAppendMemAdvise(advise, env->device, s, 64,
                                                   (ze_memory_advice_t)a));
        EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                      zeCommandListAppendMemAdvise(advise, env->device, s, 64,
                                                   (ze_memory_advice_t)10));
        EXPECT_OK(zeCommandListDestroy(advise));
    }

    ze_memory_allocation_properties_t mp = {
        .stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    ze_device_handle_t dev = NULL;
    EXPECT_OK(zeMemGetAllocProperties(env->context, (char *)d + 10, &mp, &dev));
    EXPECT(mp.type == ZE_MEMORY_TYPE_DEVICE && dev == env->device);
    uint64_t id_d = mp.id;
    EXPECT_OK(zeMemGetAllocProperties(env->context, h, &mp, &dev));
    EXPECT(mp.type == ZE_MEMORY_TYPE_HOST && dev == NULL);
    EXPECT(mp.id != id_d);
    EXPECT_OK(zeMemGetAllocProperties(env->context, s, &mp, NULL));
    EXPECT(mp.type == ZE_MEMORY_TYPE_SHARED);
    int local = 0;
    EXPECT_OK(zeMemGetAllocProperties(env->context, &local, &mp, NULL));
    EXPECT(mp.type == ZE_MEMORY_TYPE_UNKNOWN);

    void *base = NULL;
    size_t size = 0;
    EXPECT_OK(zeMemGetAddressRange(env->context, (char *)d + 999, &base, &size));
    EXPECT(base == d && size == 1000);
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeMemGetAddressRange(env->context, &local, &base, &size));

    /* Error paths. */
    void *p = NULL;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                  zeMemAllocDevice(NULL, &dd, 16, 0, env->device, &p));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                  zeMemAllocDevice(env->context, &dd, 16, 0, NULL, &p));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeMemAllocDevice(env->context, NULL, 16, 0, env->device, &p));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeMemAllocDevice(env->context, &dd, 16, 0, env->device, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_SIZE,
                  zeMemAllocDevice(env->context, &dd, 0, 0, env->device, &p));
    EXPECT_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT,
                  zeMemAllocHost(env->context, &hd, 16, 24, &p));
    EXPECT_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_SIZE,
                  zeMemAllocShared(env->context, &dd, &hd, (size_t)1 << 62, 0, NULL, &p));
    ze_host_mem_alloc_desc_t bad = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC,
                                    .flags = 0x100};
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                  zeMemAllocHost(env->context, &bad, 16, 0, &p));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER, zeMemFree(env->context, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeMemFree(env->context, (char *)d + 1));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeMemFree(env->context, &local));

    /* Memory of one context is not freed through another, ... */
    ze_context_handle_t other;
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    EXPECT_OK(zeContextCreate(env->driver, &cd, &other));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeMemFree(other, d));
    void *orphan = NULL;
    EXPECT_OK(zeMemAllocHost(other, &hd, 64, 0, &orphan));
    EXPECT_OK(zeMemGetAllocProperties(other, orphan, &mp, NULL));
    EXPECT(mp.type == ZE_MEMORY_TYPE_HOST);
    /* ... but any context of the driver answers the queries (as Intel's driver does). */
    EXPECT_OK(zeMemGetAllocProperties(env->context, orphan, &mp, NULL));
    EXPECT(mp.type == ZE_MEMORY_TYPE_HOST);
    base = NULL;
    EXPECT_OK(zeMemGetAddressRange(other, (char *)d + 5, &base, &size));
    EXPECT(base == d && size == 1000);
    /* Destroying a context frees its allocations. */
    EXPECT_OK(zeContextDestroy(other));
    EXPECT_OK(zeMemGetAllocProperties(env->context, orphan, &mp, NULL));
    EXPECT(mp.type == ZE_MEMORY_TYPE_UNKNOWN);
    /* A destroyed handle is refused. */
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeContextGetStatus(other));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeContextDestroy(other));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                  zeMemAllocHost(other, &hd, 16, 0, &p));

    EXPECT_OK(zeMemFree(env->context, d));
    EXPECT_OK(zeMemFree(env->context, h));
    ze_memory_free_ext_desc_t fd = {.stype = ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC,
                                    .freePolicy = ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE};
    EXPECT_OK(zeMemFreeExt(env->context, &fd, s));
    /* Freed twice. */
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeMemFree(env->context, s));

    /* A deferred free while a command that writes the allocation waits for an event:
       the memory stays until the command ran, then goes. */
    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                               .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE, .count = 2};
    ze_event_pool_handle_t pool;
    EXPECT_OK(zeEventPoolCreate(env->context, &pd, 0, NULL, &pool));
    ze_event_handle_t gate, done;
    ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = 0};
    EXPECT_OK(zeEventCreate(pool, &ed, &gate));
    ed.index = 1;
    EXPECT_OK(zeEventCreate(pool, &ed, &done));
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                  .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS};
    ze_command_list_handle_t imm;
    EXPECT_OK(zeCommandListCreateImmediate(env->context, env->device, &qd, &imm));
    void *later = NULL;
    EXPECT_OK(zeMemAllocDevice(env->context, &dd, 4096, 0, env->device, &later));
    uint8_t pattern = 7;
    EXPECT_OK(zeCommandListAppendMemoryFill(imm, later, &pattern, 1, 4096, done, 1, &gate));
    fd.freePolicy = ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE;
    EXPECT_OK(zeMemFreeExt(env->context, &fd, later));
    EXPECT_OK(zeMemGetAllocProperties(env->context, later, &mp, NULL));
    EXPECT(mp.type == ZE_MEMORY_TYPE_DEVICE);
    EXPECT_OK(zeEventHostSignal(gate));
    EXPECT_OK(zeEventHostSynchronize(done, UINT64_MAX));
    int gone = 0;
    for (int i = 0; i < 2000 && !gone; i++) {
        EXPECT_OK(zeMemGetAllocProperties(env->context, later, &mp, NULL));
        gone = mp.type == ZE_MEMORY_TYPE_UNKNOWN;
        if (!gone) nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    }
    EXPECT(gone);
    fd.freePolicy = 4;
    EXPECT_OK(zeMemAllocHost(env->context, &hd, 16, 0, &later));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION, zeMemFreeExt(env->context, &fd, later));
    EXPECT_OK(zeMemFree(env->context, later));
    EXPECT_OK(zeCommandListDestroy(imm));
    EXPECT_OK(zeEventDestroy(gate));
    EXPECT_OK(zeEventDestroy(done));
    EXPECT_OK(zeEventPoolDestroy(pool));

    /* Many allocations, freed in another order. */
    void *many[64];
    for (int i = 0; i < 64; i++)
        EXPECT_OK(zeMemAllocShared(env->context, &dd, &hd, 100 + i, 0, NULL, &many[i]));
    for (int i = 63; i >= 0; i -= 2) EXPECT_OK(zeMemFree(env->context, many[i]));
    for (int i = 0; i < 64; i += 2) EXPECT_OK(zeMemFree(env->context, many[i]));
}

static void test_context(env_t *env) {
    ze_context_handle_t c;
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeContextCreate(NULL, &cd, &c));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER, zeContextCreate(env->driver, NULL, &c));
    EXPECT_OK(zeContextGetStatus(env->context));
    EXPECT_OK(zeContextCreateEx(env->driver, &cd, 1, &env->device, &c));
    EXPECT_OK(zeContextSystemBarrier(c, env->device));
    EXPECT_OK(zeContextDestroy(c));
}

/* The child half of test_ipc: a fresh process (this program run again) opens the
 * handle given in hex, checks the parent's bytes, writes its own and closes it. */
static int ipc_child(const char *hex) {
    argv0 = "ze_basic (IPC child)";
    env_t env = {0};
    REQUIRE_OK(env_init(&env));
    ze_ipc_mem_handle_t h;
    for (int i = 0; i < ZE_MAX_IPC_HANDLE_SIZE; i++) {
        unsigned b = 0;
        if (sscanf(hex + 2 * i, "%2x", &b) != 1) return 2;
        h.data[i] = (char)b;
    }
    unsigned char *p = NULL;
    REQUIRE_OK(zeMemOpenIpcHandle(env.context, env.device, h, 0, (void **)&p));
    EXPECT(p && p[0] == 0x5a && p[9999] == 0xa5);
    p[1] = 0x11;
    p[9998] = 0x22;
    EXPECT_OK(zeMemCloseIpcHandle(env.context, p));
    EXPECT_OK(zeContextDestroy(env.context));
    return report(argv0);
}

/* IPC memory handles: shared with this process and, through a handle passed as text,
 * with another process, both ways; bad handles and pointers are refused. */
static void test_ipc(env_t *env, const char *self) {
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    unsigned char *m = NULL;
    EXPECT_OK(zeMemAllocHost(env->context, &hd, 10000, 0, (void **)&m));
    if (!m) return;
    m[0] = 0x5a;
    m[9999] = 0xa5;
    ze_ipc_mem_handle_t h;
    EXPECT_OK(zeMemGetIpcHandle(env->context, m, &h));
    EXPECT(m[0] == 0x5a && m[9999] == 0xa5);

    /* The same process: a second mapping of the same pages. */
    unsigned char *q = NULL;
    EXPECT_OK(zeMemOpenIpcHandle(env->context, env->device, h, 0, (void **)&q));
    EXPECT(q && q != m && q[9999] == 0xa5);
    if (q) {
        q[5] = 0x33;
        EXPECT(m[5] == 0x33);
        EXPECT_OK(zeMemCloseIpcHandle(env->context, q));
    }

    /* Another process. */
    char cmd[4096], hex[2 * ZE_MAX_IPC_HANDLE_SIZE + 1];
    for (int i = 0; i < ZE_MAX_IPC_HANDLE_SIZE; i++)
        sprintf(hex + 2 * i, "%02x", (unsigned char)h.data[i]);
    snprintf(cmd, sizeof cmd, "'%s' --ipc-child %s", self, hex);
    EXPECT(system(cmd) == 0);
    EXPECT(m[1] == 0x11 && m[9998] == 0x22);

    /* Errors. */
    int local = 0;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeMemGetIpcHandle(env->context, NULL, &h));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeMemGetIpcHandle(env->context, m, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeMemGetIpcHandle(env->context, &local, &h));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeMemGetIpcHandle(NULL, m, &h));
    ze_ipc_mem_handle_t junk;
    memset(&junk, 0, sizeof junk);
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeMemOpenIpcHandle(env->context, env->device, junk, 0, (void **)&q));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                  zeMemOpenIpcHandle(env->context, env->device, h, 4, (void **)&q));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeMemOpenIpcHandle(env->context, env->device, h, 0, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeMemCloseIpcHandle(env->context, &local));
    EXPECT_OK(zeMemFree(env->context, m));
    /* The allocation is gone: its handle no longer opens in this process. */
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeMemOpenIpcHandle(env->context, env->device, h, 0, (void **)&q));
}

/* The child half of test_ipc_events: opens the pool, waits for the parent's host signal
 * of event 0, then signals event 1 from a command list. */
static int ipc_event_child(const char *hex) {
    argv0 = "ze_basic (IPC event child)";
    env_t env = {0};
    REQUIRE_OK(env_init(&env));
    ze_ipc_event_pool_handle_t h;
    for (int i = 0; i < ZE_MAX_IPC_HANDLE_SIZE; i++) {
        unsigned b = 0;
        if (sscanf(hex + 2 * i, "%2x", &b) != 1) return 2;
        h.data[i] = (char)b;
    }
    ze_event_pool_handle_t pool = NULL;
    REQUIRE_OK(zeEventPoolOpenIpcHandle(env.context, h, &pool));
    ze_event_handle_t ev[2];
    for (uint32_t i = 0; i < 2; i++) {
        ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = i};
        EXPECT_OK(zeEventCreate(pool, &ed, &ev[i]));
    }
    EXPECT_OK(zeEventHostSynchronize(ev[0], 10ull * 1000 * 1000 * 1000));
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                  .mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS};
    ze_command_list_handle_t imm;
    EXPECT_OK(zeCommandListCreateImmediate(env.context, env.device, &qd, &imm));
    EXPECT_OK(zeCommandListAppendSignalEvent(imm, ev[1]));
    EXPECT_OK(zeCommandListDestroy(imm));
    for (int i = 0; i < 2; i++) EXPECT_OK(zeEventDestroy(ev[i]));
    EXPECT_OK(zeEventPoolCloseIpcHandle(pool));
    EXPECT_OK(zeContextDestroy(env.context));
    return report(argv0);
}

/* IPC event pools: another process waits for one event and signals another; the same
 * process can open its own handle; bad uses are refused. */
static void test_ipc_events(env_t *env, const char *self) {
    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                               .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_IPC,
                               .count = 2};
    ze_event_pool_handle_t pool = NULL, plain = NULL, mine = NULL;
    EXPECT_OK(zeEventPoolCreate(env->context, &pd, 0, NULL, &pool));
    if (!pool) return;
    ze_event_handle_t ev[2];
    for (uint32_t i = 0; i < 2; i++) {
        ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = i};
        EXPECT_OK(zeEventCreate(pool, &ed, &ev[i]));
    }
    ze_ipc_event_pool_handle_t h;
    EXPECT_OK(zeEventPoolGetIpcHandle(pool, &h));

    /* This process, through its own handle: the same events. */
    EXPECT_OK(zeEventPoolOpenIpcHandle(env->context, h, &mine));
    if (mine) {
        ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = 1};
        ze_event_handle_t e1;
        EXPECT_OK(zeEventCreate(mine, &ed, &e1));
        EXPECT_OK(zeEventHostSignal(e1));
        EXPECT_OK(zeEventQueryStatus(ev[1]));
        EXPECT_OK(zeEventHostReset(ev[1]));
        EXPECT_RESULT(ZE_RESULT_NOT_READY, zeEventQueryStatus(e1));
        EXPECT_OK(zeEventDestroy(e1));
        EXPECT_OK(zeEventPoolCloseIpcHandle(mine));
    }

    /* Another process: started first, it waits for event 0. */
    char cmd[4096], hex[2 * ZE_MAX_IPC_HANDLE_SIZE + 1];
    for (int i = 0; i < ZE_MAX_IPC_HANDLE_SIZE; i++)
        sprintf(hex + 2 * i, "%02x", (unsigned char)h.data[i]);
    snprintf(cmd, sizeof cmd, "'%s' --ipc-event-child %s", self, hex);
    FILE *child = popen(cmd, "w");
    EXPECT(child != NULL);
    EXPECT_OK(zeEventHostSignal(ev[0]));
    EXPECT_OK(zeEventHostSynchronize(ev[1], 20ull * 1000 * 1000 * 1000));
    if (child) EXPECT(pclose(child) == 0);

    /* Errors: a pool made without the flag has no handle; only an opened pool closes. */
    pd.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
    EXPECT_OK(zeEventPoolCreate(env->context, &pd, 0, NULL, &plain));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeEventPoolGetIpcHandle(plain, &h));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeEventPoolCloseIpcHandle(pool));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER, zeEventPoolGetIpcHandle(pool, NULL));
    ze_ipc_event_pool_handle_t junk;
    memset(&junk, 0, sizeof junk);
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeEventPoolOpenIpcHandle(env->context, junk, &mine));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeEventPoolOpenIpcHandle(env->context, h, NULL));
    for (int i = 0; i < 2; i++) EXPECT_OK(zeEventDestroy(ev[i]));
    EXPECT_OK(zeEventPoolDestroy(plain));
    EXPECT_OK(zeEventPoolDestroy(pool));
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--ipc-child") == 0) return ipc_child(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--ipc-event-child") == 0) return ipc_event_child(argv[2]);
    argv0 = "ze_basic";
    env_t env = {0};
    REQUIRE_OK(env_init(&env));
    test_driver(&env);
    test_device(&env);
    test_context(&env);
    test_memory(&env);
    test_ipc(&env, argv[0]);
    test_ipc_events(&env, argv[0]);
    EXPECT_OK(zeContextDestroy(env.context));
    return report(argv0);
}
