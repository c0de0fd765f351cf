/* Copies, fills, events, fences, barriers and concurrent submission from several host
 * threads through libze_loader. */
#include "common.h"

#include <pthread.h>

static ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
static ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};

static ze_command_list_handle_t new_list(env_t *env) {
    ze_command_list_desc_t d = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t l = NULL;
    EXPECT_OK(zeCommandListCreate(env->context, env->device, &d, &l));
    return l;
}

static ze_command_queue_handle_t new_queue(env_t *env, ze_command_queue_mode_t mode) {
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, .mode = mode};
    ze_command_queue_handle_t q = NULL;
    EXPECT_OK(zeCommandQueueCreate(env->context, env->device, &qd, &q));
    return q;
}

static void test_copy_fill(env_t *env) {
    const size_t n = 1 << 20;
    uint8_t *d, *s;
    EXPECT_OK(zeMemAllocDevice(env->context, &dd, n, 0, env->device, (void **)&d));
    EXPECT_OK(zeMemAllocShared(env->context, &dd, &hd, n, 0, NULL, (void **)&s));
    uint8_t *host = malloc(n); /* plain host memory works as a copy source/target too */
    for (size_t i = 0; i < n; i++) host[i] = (uint8_t)(i * 7);

    ze_command_queue_handle_t q = new_queue(env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = new_list(env);
    uint32_t pattern = 0xA1B2C3D4;
    EXPECT_OK(zeCommandListAppendMemoryCopy(l, d, host, n, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendMemoryCopy(l, s, d, n / 2, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendMemoryFill(l, s + n / 2, &pattern, 4, n / 2 - 2, NULL, 0, NULL));
    uint8_t one = 0x5A;
    EXPECT_OK(zeCommandListAppendMemoryFill(l, s + n - 2, &one, 1, 2, NULL, 0, NULL));
    EXPECT_OK(zeCommandListClose(l));
    /* Closing it again changes nothing. */
    EXPECT_OK(zeCommandListClose(l));
    /* Appending to a closed list is refused. */
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeCommandListAppendMemoryCopy(l, s, d, 1, NULL, 0, NULL));
    EXPECT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
    EXPECT_OK(zeCommandQueueSynchronize(q, UINT64_MAX));
    int bad = 0;
    for (size_t i = 0; i < n / 2; i++) bad += s[i] != (uint8_t)(i * 7);
    for (size_t i = n / 2; i < n - 2; i++)
        bad += s[i] != ((const uint8_t *)&pattern)[(i - n / 2) % 4];
    bad += s[n - 2] != 0x5A || s[n - 1] != 0x5A;
    EXPECT(bad == 0);

    /* A closed list runs again; a reset list is empty and open. */
    memset(s, 0, n);
    EXPECT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
    EXPECT_OK(zeCommandQueueSynchronize(q, UINT64_MAX));
    EXPECT(s[1] == 7 && s[n - 1] == 0x5A);
    EXPECT_OK(zeCommandListReset(l));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));

    /* Error paths. */
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeCommandListAppendMemoryCopy(l, NULL, d, 1, NULL, 0, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_SIZE,
                  zeCommandListAppendMemoryCopy(l, d + 1, s, n, NULL, 0, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_SIZE,
                  zeCommandListAppendMemoryFill(l, d, &pattern, 3, 12, NULL, 0, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_SIZE,
                  zeCommandListAppendMemoryCopy(l, d, s, 1, NULL, 2, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_SIZE,
                  zeCommandQueueExecuteCommandLists(q, 0, &l, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                  zeCommandListAppendMemoryCopy(NULL, d, s, 1, NULL, 0, NULL));

    EXPECT_OK(zeCommandListDestroy(l));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeCommandListClose(l));
    EXPECT_OK(zeCommandQueueDestroy(q));
    free(host);
    EXPECT_OK(zeMemFree(env->context, d));
    EXPECT_OK(zeMemFree(env->context, s));
}

/* The copy queue group (ordinal 1): copies, fills, barriers and events on queues and
   immediate lists of their own, waited for by the compute group; lists of one group do
   not run on the other's queues. */
static void test_copy_group(env_t *env) {
    uint32_t ng = 0;
    EXPECT_OK(zeDeviceGetCommandQueueGroupProperties(env->device, &ng, NULL));
    EXPECT(ng == 2);
    ze_command_queue_group_properties_t qg[2] = {
        {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES},
        {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES}};
    EXPECT_OK(zeDeviceGetCommandQueueGroupProperties(env->device, &ng, qg));
    EXPECT(qg[1].flags == ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY);
    EXPECT(qg[1].numQueues >= 1 && qg[1].maxMemoryFillPatternSize >= 4);
    /* Asking for one group gives the first. */
    uint32_t one = 1;
    ze_command_queue_group_properties_t first = {
        .stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
    EXPECT_OK(zeDeviceGetCommandQueueGroupProperties(env->device, &one, &first));
    EXPECT(one == 1 && (first.flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE));

    const size_t n = 1 << 16;
    uint8_t *a, *b;
    EXPECT_OK(zeMemAllocHost(env->context, &hd, n, 0, (void **)&a));
    EXPECT_OK(zeMemAllocDevice(env->context, &dd, n, 0, env->device, (void **)&b));
    for (size_t i = 0; i < n; i++) a[i] = (uint8_t)(i * 13);

    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, .ordinal = 1,
                                  .index = qg[1].numQueues - 1,
                                  .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS};
    ze_command_queue_handle_t copy_q, compute_q = new_queue(env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    EXPECT_OK(zeCommandQueueCreate(env->context, env->device, &qd, &copy_q));
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC,
                                 .commandQueueGroupOrdinal = 1};
    ze_command_list_handle_t copy_l, compute_l = new_list(env);
    EXPECT_OK(zeCommandListCreate(env->context, env->device, &ld, &copy_l));

    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                               .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE, .count = 2};
    ze_event_pool_handle_t pool;
    EXPECT_OK(zeEventPoolCreate(env->context, &pd, 0, NULL, &pool));
    ze_event_handle_t copied, done;
    ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = 0};
    EXPECT_OK(zeEventCreate(pool, &ed, &copied));
    ed.index = 1;
    EXPECT_OK(zeEventCreate(pool, &ed, &done));

    /* The copy group copies a into b and fills b's tail; the compute group waits for it
       and copies b back into a's first half. */
    uint16_t pattern = 0xBEEF;
    EXPECT_OK(zeCommandListAppendMemoryCopy(copy_l, b, a, n, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendBarrier(copy_l, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendMemoryFill(copy_l, b + n / 2, &pattern, 2, n / 2, copied, 0,
                                            NULL));
    EXPECT_OK(zeCommandListClose(copy_l));
    EXPECT_OK(zeCommandListAppendMemoryCopy(compute_l, a, b + n / 4, n / 2, done, 1, &copied));
    EXPECT_OK(zeCommandListClose(compute_l));
    /* Each group's lists run only on its own queues. */
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE,
                  zeCommandQueueExecuteCommandLists(compute_q, 1, &copy_l, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE,
                  zeCommandQueueExecuteCommandLists(copy_q, 1, &compute_l, NULL));
    EXPECT_OK(zeCommandQueueExecuteCommandLists(compute_q, 1, &compute_l, NULL));
    EXPECT_OK(zeCommandQueueExecuteCommandLists(copy_q, 1, &copy_l, NULL));
    EXPECT_OK(zeEventHostSynchronize(done, UINT64_MAX));
    EXPECT_OK(zeCommandQueueSynchronize(copy_q, UINT64_MAX));
    int bad = 0;
    for (size_t i = 0; i < n / 4; i++) bad += a[i] != (uint8_t)((i + n / 4) * 13);
    for (size_t i = n / 4; i < n / 2; i++) bad += a[i] != ((const uint8_t *)&pattern)[i % 2];
    for (size_t i = n / 2; i < n; i++) bad += a[i] != (uint8_t)(i * 13);
    EXPECT(bad == 0);

    /* Queues of every priority run their work (a low one's thread yields the cores to
       the others; runtime/src/ze/cmdqueue.rs), past the last one an invalid enumeration. */
    ze_command_queue_priority_t prios[] = {ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_LOW,
                                           ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH};
    for (int p = 0; p < 2; p++) {
        ze_command_queue_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                      .mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
                                      .priority = prios[p]};
        ze_command_list_handle_t pl;
        EXPECT_OK(zeCommandListCreateImmediate(env->context, env->device, &pd, &pl));
        uint8_t v = (uint8_t)(0x30 + p);
        EXPECT_OK(zeCommandListAppendMemoryFill(pl, b, &v, 1, 64, NULL, 0, NULL));
        EXPECT_OK(zeCommandListAppendMemoryCopy(pl, a, b, 64, NULL, 0, NULL));
        EXPECT(a[0] == v && a[63] == v);
        EXPECT_OK(zeCommandListDestroy(pl));
        pd.priority = (ze_command_queue_priority_t)3;
        EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                      zeCommandListCreateImmediate(env->context, env->device, &pd, &pl));
    }

    /* An immediate list of the copy group. */
    ze_command_list_handle_t imm;
    qd.index = 0;
    qd.mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    EXPECT_OK(zeCommandListCreateImmediate(env->context, env->device, &qd, &imm));
    EXPECT_OK(zeCommandListAppendMemoryFill(imm, a, &pattern, 2, n, NULL, 0, NULL));
    bad = 0;
    for (size_t i = 0; i < n; i++) bad += a[i] != ((const uint8_t *)&pattern)[i % 2];
    EXPECT(bad == 0);
    /* A pattern larger than maxMemoryFillPatternSize (a power of two that fits the fill)
       works too; one larger than the fill does not. */
    uint8_t big[256];
    for (int i = 0; i < 256; i++) big[i] = (uint8_t)(255 - i);
    EXPECT(qg[1].maxMemoryFillPatternSize < sizeof big);
    EXPECT_OK(zeCommandListAppendMemoryFill(imm, a, big, sizeof big, 1024, NULL, 0, NULL));
    bad = 0;
    for (size_t i = 0; i < 1024; i++) bad += a[i] != (uint8_t)(255 - i % 256);
    EXPECT(bad == 0);
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_SIZE,
                  zeCommandListAppendMemoryFill(imm, a, big, sizeof big, 128, NULL, 0, NULL));
    EXPECT_OK(zeCommandListDestroy(imm));

    /* Past the groups, or past a group's queues: an invalid argument. */
    qd.ordinal = 2;
    ze_command_queue_handle_t q;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeCommandQueueCreate(env->context, env->device, &qd, &q));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeCommandListCreateImmediate(env->context, env->device, &qd, &imm));
    qd.ordinal = 1;
    qd.index = qg[1].numQueues;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeCommandQueueCreate(env->context, env->device, &qd, &q));
    ld.commandQueueGroupOrdinal = 2;
    ze_command_list_handle_t l;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeCommandListCreate(env->context, env->device, &ld, &l));

    EXPECT_OK(zeCommandListDestroy(copy_l));
    EXPECT_OK(zeCommandListDestroy(compute_l));
    EXPECT_OK(zeCommandQueueDestroy(copy_q));
    EXPECT_OK(zeCommandQueueDestroy(compute_q));
    EXPECT_OK(zeEventDestroy(copied));
    EXPECT_OK(zeEventDestroy(done));
    EXPECT_OK(zeEventPoolDestroy(pool));
    EXPECT_OK(zeMemFree(env->context, a));
    EXPECT_OK(zeMemFree(env->context, b));
}

/* A 3-D region copy into a larger, padded box; timestamps queried into memory. */
static void test_region_and_timestamps(env_t *env) {
    /* Source: 4 x 3 x 2 bytes, tightly packed. Destination: pitch 10, slice pitch 50. */
    uint8_t *src, *dst;
    EXPECT_OK(zeMemAllocHost(env->context, &hd, 24, 0, (void **)&src));
    EXPECT_OK(zeMemAllocDevice(env->context, &dd, 200, 0, env->device, (void **)&dst));
    for (int i = 0; i < 24; i++) src[i] = (uint8_t)(i + 1);
    memset(dst, 0, 200);
    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                               .flags = ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, .count = 1};
    ze_event_pool_handle_t pool;
    EXPECT_OK(zeEventPoolCreate(env->context, &pd, 0, NULL, &pool));
    ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC};
    ze_event_handle_t ev;
    EXPECT_OK(zeEventCreate(pool, &ed, &ev));
    ze_kernel_timestamp_result_t *ts;
    EXPECT_OK(zeMemAllocHost(env->context, &hd, sizeof *ts, 0, (void **)&ts));
    memset(ts, 0, sizeof *ts);

    ze_command_queue_handle_t q = new_queue(env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = new_list(env);
    ze_copy_region_t dr = {.originX = 1, .originY = 2, .originZ = 1, .width = 4, .height = 3,
                           .depth = 2};
    ze_copy_region_t sr = {.width = 4, .height = 3, .depth = 2};
    EXPECT_OK(zeCommandListAppendMemoryCopyRegion(l, dst, &dr, 10, 50, src, &sr, 4, 12, ev, 0,
                                                  NULL));
    EXPECT_OK(zeCommandListAppendQueryKernelTimestamps(l, 1, &ev, ts, NULL, NULL, 0, NULL));
    /* The region would leave the allocation. */
    ze_copy_region_t far = dr;
    far.originZ = 3;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_SIZE,
                  zeCommandListAppendMemoryCopyRegion(l, dst, &far, 10, 50, src, &sr, 4, 12,
                                                      NULL, 0, NULL));
    ze_copy_region_t other = sr;
    other.width = 3;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_SIZE,
                  zeCommandListAppendMemoryCopyRegion(l, dst, &dr, 10, 50, src, &other, 4, 12,
                                                      NULL, 0, NULL));
    EXPECT_OK(zeCommandListClose(l));
    EXPECT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
    EXPECT_OK(zeCommandQueueSynchronize(q, UINT64_MAX));
    int bad = 0;
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 4; x++)
                bad += dst[(1 + z) * 50 + (2 + y) * 10 + 1 + x] != src[z * 12 + y * 4 + x];
    int nonzero = 0;
    for (int i = 0; i < 200; i++) nonzero += dst[i] != 0;
    EXPECT(bad == 0 && nonzero == 24);
    ze_kernel_timestamp_result_t direct;
    EXPECT_OK(zeEventQueryKernelTimestamp(ev, &direct));
    EXPECT(ts->global.kernelStart == direct.global.kernelStart);
    EXPECT(ts->context.kernelEnd == direct.context.kernelEnd);
    EXPECT(direct.global.kernelStart > 0 && direct.global.kernelStart <= direct.global.kernelEnd);
    uint32_t count = 0;
    EXPECT_OK(zeEventQueryTimestampsExp(ev, env->device, &count, NULL));
    EXPECT(count == 1);

    /* A depth of 0 is a 2-D region (as Intel's driver reads it): one slice. */
    EXPECT_OK(zeCommandListReset(l));
    memset(dst, 0, 200);
    ze_copy_region_t flat_d = {.originX = 2, .originY = 1, .width = 3, .height = 2};
    ze_copy_region_t flat_s = {.width = 3, .height = 2};
    EXPECT_OK(zeCommandListAppendMemoryCopyRegion(l, dst, &flat_d, 10, 0, src, &flat_s, 4, 0,
                                                  NULL, 0, NULL));
    EXPECT_OK(zeCommandListClose(l));
    EXPECT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
    EXPECT_OK(zeCommandQueueSynchronize(q, UINT64_MAX));
    bad = 0;
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++) bad += dst[(1 + y) * 10 + 2 + x] != src[y * 4 + x];
    nonzero = 0;
    for (int i = 0; i < 200; i++) nonzero += dst[i] != 0;
    EXPECT(bad == 0 && nonzero == 6);

    EXPECT_OK(zeCommandListDestroy(l));
    EXPECT_OK(zeCommandQueueDestroy(q));
    EXPECT_OK(zeEventDestroy(ev));
    EXPECT_OK(zeEventPoolDestroy(pool));
    EXPECT_OK(zeMemFree(env->context, src));
    EXPECT_OK(zeMemFree(env->context, dst));
    EXPECT_OK(zeMemFree(env->context, ts));
}

static void test_events(env_t *env) {
    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                               .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE |
                                        ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP,
                               .count = 4};
    ze_event_pool_handle_t pool;
    EXPECT_OK(zeEventPoolCreate(env->context, &pd, 1, &env->device, &pool));
    ze_event_handle_t ev[4];
    for (uint32_t i = 0; i < 4; i++) {
        ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = i,
                              .signal = ZE_EVENT_SCOPE_FLAG_HOST,
                              .wait = ZE_EVENT_SCOPE_FLAG_HOST};
        EXPECT_OK(zeEventCreate(pool, &ed, &ev[i]));
    }
    ze_event_desc_t bad = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = 4};
    ze_event_handle_t e;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeEventCreate(pool, &bad, &e));
    pd.count = 0;
    ze_event_pool_handle_t p2;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_SIZE, zeEventPoolCreate(env->context, &pd, 0, NULL, &p2));
    /* KERNEL_MAPPED_TIMESTAMP (API 1.6: 0x8): a timestamp pool, on the host's clock; beyond
       it an invalid enumeration. */
    {
        ze_event_pool_desc_t md = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                                   .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE | 0x8, .count = 1};
        md.flags |= 0x10;
        EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                      zeEventPoolCreate(env->context, &md, 0, NULL, &p2));
        md.flags &= ~0x10u;
        EXPECT_OK(zeEventPoolCreate(env->context, &md, 0, NULL, &p2));
        ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = 0};
        ze_event_handle_t me;
        EXPECT_OK(zeEventCreate(p2, &ed, &me));
        ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                      .mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS};
        ze_command_list_handle_t imm;
        EXPECT_OK(zeCommandListCreateImmediate(env->context, env->device, &qd, &imm));
        EXPECT_OK(zeCommandListAppendBarrier(imm, me, 0, NULL));
        EXPECT_OK(zeEventHostSynchronize(me, UINT64_MAX));
        ze_kernel_timestamp_result_t mt;
        EXPECT_OK(zeEventQueryKernelTimestamp(me, &mt));
        EXPECT(mt.global.kernelStart > 0 && mt.global.kernelStart <= mt.global.kernelEnd);
        /* ZE_extension_event_query_kernel_timestamps (API 1.6), reached by name: one
           result, as kernel and as host-clock timestamps (the same on a CPU). */
        typedef struct {
            ze_structure_type_t stype;
            void *pNext;
            ze_kernel_timestamp_result_t *pKernelTimestampsBuffer;
            ze_kernel_timestamp_result_t *pSynchronizedTimestampsBuffer; /* same layout */
        } results_t;
        typedef ze_result_t (*query_fn)(ze_event_handle_t, ze_device_handle_t, uint32_t *,
                                        results_t *);
        query_fn query = NULL;
        EXPECT_OK(zeDriverGetExtensionFunctionAddress(
            env->driver, "zeEventQueryKernelTimestampsExt", (void **)&query));
        if (query) {
            uint32_t count = 0;
            EXPECT_OK(query(me, env->device, &count, NULL));
            EXPECT(count == 1);
            ze_kernel_timestamp_result_t k = {0}, h = {0};
            results_t r = {.stype = (ze_structure_type_t)0x10012,
                           .pKernelTimestampsBuffer = &k,
                           .pSynchronizedTimestampsBuffer = &h};
            EXPECT_OK(query(me, env->device, &count, &r));
            EXPECT(count == 1 && k.global.kernelStart == mt.global.kernelStart &&
                   k.global.kernelEnd == mt.global.kernelEnd &&
                   h.context.kernelEnd == mt.context.kernelEnd);
            EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                          query(me, env->device, NULL, &r));
        }
        /* The device says it has the extension's two kinds of timestamps. */
        struct {
            ze_structure_type_t stype;
            void *pNext;
            uint32_t flags;
        } tp = {.stype = (ze_structure_type_t)0x10011};
        /* ... and that read-only virtual memory is enforced (2). */
        struct {
            ze_structure_type_t stype;
            void *pNext;
            uint32_t readonlyCapability;
        } ro = {.stype = (ze_structure_type_t)0x10015, .pNext = &tp};
        ze_device_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, .pNext = &ro};
        EXPECT_OK(zeDeviceGetProperties(env->device, &dp));
        EXPECT(tp.flags == 3 && ro.readonlyCapability == 2);
        EXPECT_OK(zeCommandListDestroy(imm));
        EXPECT_OK(zeEventDestroy(me));
        EXPECT_OK(zeEventPoolDestroy(p2));
    }

    /* Host signal / query / reset. */
    EXPECT_RESULT(ZE_RESULT_NOT_READY, zeEventQueryStatus(ev[0]));
    EXPECT_RESULT(ZE_RESULT_NOT_READY, zeEventHostSynchronize(ev[0], 0));
    EXPECT_RESULT(ZE_RESULT_NOT_READY, zeEventHostSynchronize(ev[0], 1000000));
    EXPECT_OK(zeEventHostSignal(ev[0]));
    EXPECT_OK(zeEventQueryStatus(ev[0]));
    EXPECT_OK(zeEventHostReset(ev[0]));
    EXPECT_RESULT(ZE_RESULT_NOT_READY, zeEventQueryStatus(ev[0]));

    /* A queue that waits for a host-signalled event; a fence on it. */
    ze_command_queue_handle_t q = new_queue(env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_fence_desc_t fd = {.stype = ZE_STRUCTURE_TYPE_FENCE_DESC};
    ze_fence_handle_t fence;
    EXPECT_OK(zeFenceCreate(q, &fd, &fence));
    EXPECT_RESULT(ZE_RESULT_NOT_READY, zeFenceQueryStatus(fence));
    uint64_t *ts;
    EXPECT_OK(zeMemAllocHost(env->context, &hd, 16, 0, (void **)&ts));
    ze_command_list_handle_t l = new_list(env);
    EXPECT_OK(zeCommandListAppendWaitOnEvents(l, 1, &ev[0]));
    EXPECT_OK(zeCommandListAppendWriteGlobalTimestamp(l, ts, ev[1], 0, NULL));
    EXPECT_OK(zeCommandListAppendSignalEvent(l, ev[2]));
    EXPECT_OK(zeCommandListAppendEventReset(l, ev[3]));
    EXPECT_OK(zeCommandListClose(l));
    EXPECT_OK(zeEventHostSignal(ev[3]));
    EXPECT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, fence));
    EXPECT_RESULT(ZE_RESULT_NOT_READY, zeCommandQueueSynchronize(q, 0));
    EXPECT_RESULT(ZE_RESULT_NOT_READY, zeFenceHostSynchronize(fence, 2000000));
    EXPECT_RESULT(ZE_RESULT_NOT_READY, zeEventQueryStatus(ev[2]));
    EXPECT_OK(zeEventHostSignal(ev[0]));
    EXPECT_OK(zeFenceHostSynchronize(fence, UINT64_MAX));
    EXPECT_OK(zeFenceQueryStatus(fence));
    EXPECT_OK(zeEventQueryStatus(ev[1]));
    EXPECT_OK(zeEventQueryStatus(ev[2]));
    EXPECT_RESULT(ZE_RESULT_NOT_READY, zeEventQueryStatus(ev[3]));
    EXPECT(ts[0] > 0);
    ze_kernel_timestamp_result_t kt;
    EXPECT_OK(zeEventQueryKernelTimestamp(ev[1], &kt));
    EXPECT(kt.global.kernelStart <= kt.global.kernelEnd);
    EXPECT(kt.global.kernelStart <= ts[0] && ts[0] <= kt.global.kernelEnd);
    EXPECT_RESULT(ZE_RESULT_NOT_READY, zeEventQueryKernelTimestamp(ev[3], &kt));
    EXPECT_OK(zeFenceReset(fence));
    EXPECT_RESULT(ZE_RESULT_NOT_READY, zeFenceQueryStatus(fence));

    /* A fence of another queue is refused. */
    ze_command_queue_handle_t q2 = new_queue(env, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT,
                  zeCommandQueueExecuteCommandLists(q2, 1, &l, fence));
    /* A synchronous queue returns when done. */
    for (int i = 0; i < 4; i++) EXPECT_OK(zeEventHostReset(ev[i]));
    EXPECT_OK(zeEventHostSignal(ev[0]));
    EXPECT_OK(zeCommandQueueExecuteCommandLists(q2, 1, &l, NULL));
    EXPECT_OK(zeEventQueryStatus(ev[2]));
    EXPECT_OK(zeCommandQueueDestroy(q2));

    EXPECT_OK(zeCommandListDestroy(l));
    EXPECT_OK(zeFenceDestroy(fence));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeFenceQueryStatus(fence));
    EXPECT_OK(zeCommandQueueDestroy(q));
    for (int i = 0; i < 4; i++) EXPECT_OK(zeEventDestroy(ev[i]));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeEventHostSignal(ev[0]));
    EXPECT_OK(zeEventPoolDestroy(pool));
    EXPECT_OK(zeMemFree(env->context, ts));
}

/* zeCommandListImmediateAppendCommandListsExp (API 1.9), reached by name as an
 * application on an older loader does: closed regular lists run in order on an immediate
 * list, after its wait event, before its signal event. */
typedef ze_result_t (*append_lists_fn)(ze_command_list_handle_t, uint32_t,
                                       ze_command_list_handle_t *, ze_event_handle_t, uint32_t,
                                       ze_event_handle_t *);

static void test_immediate_append_lists(env_t *env) {
    append_lists_fn append = NULL;
    EXPECT_OK(zeDriverGetExtensionFunctionAddress(
        env->driver, "zeCommandListImmediateAppendCommandListsExp", (void **)&append));
    if (!append) return;
    /* Queue and list flags of later versions (IN_ORDER = 2 for queues, 8 for lists; up to
       0x7 and 0x3f) are accepted, beyond them an invalid enumeration. */
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                  .flags = 0x8, .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS};
    ze_command_list_handle_t imm;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                  zeCommandListCreateImmediate(env->context, env->device, &qd, &imm));
    ze_command_queue_handle_t q;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                  zeCommandQueueCreate(env->context, env->device, &qd, &q));
    qd.flags = 0x7;
    EXPECT_OK(zeCommandQueueCreate(env->context, env->device, &qd, &q));
    EXPECT_OK(zeCommandQueueDestroy(q));
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, .flags = 0x40};
    ze_command_list_handle_t l;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                  zeCommandListCreate(env->context, env->device, &ld, &l));
    ld.flags = 0x3f;
    EXPECT_OK(zeCommandListCreate(env->context, env->device, &ld, &l));
    EXPECT_OK(zeCommandListDestroy(l));
    qd.flags = 0x2;
    EXPECT_OK(zeCommandListCreateImmediate(env->context, env->device, &qd, &imm));
    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                               .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE, .count = 2};
    ze_event_pool_handle_t pool;
    EXPECT_OK(zeEventPoolCreate(env->context, &pd, 0, NULL, &pool));
    ze_event_handle_t ev[2];
    for (uint32_t i = 0; i < 2; i++) {
        ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = i};
        EXPECT_OK(zeEventCreate(pool, &ed, &ev[i]));
    }
    uint8_t *buf;
    EXPECT_OK(zeMemAllocHost(env->context, &hd, 256, 0, (void **)&buf));
    memset(buf, 0, 256);
    uint8_t one = 1, two = 2;
    ze_command_list_handle_t regs[2] = {new_list(env), new_list(env)};
    EXPECT_OK(zeCommandListAppendMemoryFill(regs[0], buf, &one, 1, 256, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendMemoryFill(regs[1], buf, &two, 1, 100, NULL, 0, NULL));
    /* An open list is refused. */
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT, append(imm, 2, regs, NULL, 0, NULL));
    for (int i = 0; i < 2; i++) EXPECT_OK(zeCommandListClose(regs[i]));
    EXPECT_OK(append(imm, 2, regs, ev[1], 1, &ev[0]));
    EXPECT_RESULT(ZE_RESULT_NOT_READY, zeEventHostSynchronize(ev[1], 2000000));
    EXPECT(buf[0] == 0);
    EXPECT_OK(zeEventHostSignal(ev[0]));
    EXPECT_OK(zeEventHostSynchronize(ev[1], UINT64_MAX));
    int bad = 0;
    for (int i = 0; i < 256; i++) bad += buf[i] != (i < 100 ? 2 : 1);
    EXPECT(bad == 0);
    /* Appended again: the lists stay executable. */
    memset(buf, 0, 256);
    EXPECT_OK(zeEventHostReset(ev[1]));
    EXPECT_OK(append(imm, 1, &regs[0], ev[1], 0, NULL));
    EXPECT_OK(zeEventHostSynchronize(ev[1], UINT64_MAX));
    EXPECT(buf[0] == 1 && buf[255] == 1);
    /* A regular list as the target, an immediate one among the lists. */
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT, append(regs[0], 1, &regs[1], NULL, 0, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE, append(imm, 1, &imm, NULL, 0, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER, append(imm, 1, NULL, NULL, 0, NULL));
    for (int i = 0; i < 2; i++) EXPECT_OK(zeCommandListDestroy(regs[i]));
    EXPECT_OK(zeCommandListDestroy(imm));
    for (int i = 0; i < 2; i++) EXPECT_OK(zeEventDestroy(ev[i]));
    EXPECT_OK(zeEventPoolDestroy(pool));
    EXPECT_OK(zeMemFree(env->context, buf));
}

/* Several host threads, each with its own queue and lists, plus one queue shared by all,
 * submitting copies chained by events. */
#define THREADS 4
#define ROUNDS 50
typedef struct {
    env_t *env;
    ze_command_queue_handle_t shared;
    int id;
    int bad;
} worker_t;

static void *worker(void *arg) {
    worker_t *w = arg;
    env_t *env = w->env;
    const size_t n = 4096;
    uint32_t *a, *b;
    if (zeMemAllocShared(env->context, &dd, &hd, n * 4, 0, NULL, (void **)&a) ||
        zeMemAllocShared(env->context, &dd, &hd, n * 4, 0, NULL, (void **)&b)) {
        w->bad++;
        return NULL;
    }
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC};
    ze_command_queue_handle_t own;
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t l;
    if (zeCommandQueueCreate(env->context, env->device, &qd, &own) ||
        zeCommandListCreate(env->context, env->device, &ld, &l)) {
        w->bad++;
        return NULL;
    }
    for (int r = 0; r < ROUNDS; r++) {
        uint32_t value = (uint32_t)(w->id * 1000 + r);
        w->bad += zeCommandListAppendMemoryFill(l, a, &value, 4, n * 4, NULL, 0, NULL) != 0;
        w->bad += zeCommandListAppendBarrier(l, NULL, 0, NULL) != 0;
        w->bad += zeCommandListAppendMemoryCopy(l, b, a, n * 4, NULL, 0, NULL) != 0;
        w->bad += zeCommandListClose(l) != 0;
        ze_command_queue_handle_t q = (r & 1) ? own : w->shared;
        w->bad += zeCommandQueueExecuteCommandLists(q, 1, &l, NULL) != 0;
        w->bad += zeCommandQueueSynchronize(q, UINT64_MAX) != 0;
        for (size_t i = 0; i < n; i++) w->bad += b[i] != value;
        w->bad += zeCommandListReset(l) != 0;
    }
    zeCommandListDestroy(l);
    zeCommandQueueDestroy(own);
    zeMemFree(env->context, a);
    zeMemFree(env->context, b);
    return NULL;
}

static void test_threads(env_t *env) {
    ze_command_queue_handle_t shared = new_queue(env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    pthread_t t[THREADS];
    worker_t w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker_t){.env = env, .shared = shared, .id = i};
        pthread_create(&t[i], NULL, worker, &w[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        EXPECT(w[i].bad == 0);
    }
    EXPECT_OK(zeCommandQueueDestroy(shared));
}

int main(void) {
    argv0 = "ze_sync";
    env_t env = {0};
    REQUIRE_OK(env_init(&env));
    test_copy_fill(&env);
    test_copy_group(&env);
    test_events(&env);
    test_immediate_append_lists(&env);
    test_region_and_timestamps(&env);
    test_threads(&env);
    EXPECT_OK(zeContextDestroy(env.context));
    return report(argv0);
}
