/* A CPU device CI can trust, through Level-Zero: a kernel that writes far out of bounds,
 * one that reaches __builtin_trap() and one that loops forever under
 * FERRITE_KERNEL_TIMEOUT_MS each fail their command — the queue's synchronize, the
 * signal event and the fence give ZE_RESULT_ERROR_DEVICE_LOST, an event waiting for the
 * failed one fails too — and the same queue then runs a correct kernel. A launch whose
 * group counts total more than 2^64 work-items is refused at append. argv[1] is
 * fault_kernels.spv. */
#include "common.h"

static ze_command_queue_handle_t queue;
static ze_event_pool_handle_t pool;

static ze_kernel_handle_t kernel(ze_module_handle_t m, const char *name, uint32_t gs) {
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = name};
    ze_kernel_handle_t k = NULL;
    EXPECT_OK(zeKernelCreate(m, &kd, &k));
    EXPECT_OK(zeKernelSetGroupSize(k, gs, 1, 1));
    return k;
}

static int32_t *alloc(env_t *env, size_t n) {
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    int32_t *p = NULL;
    EXPECT_OK(zeMemAllocShared(env->context, &dd, &hd, n * 4, 0, env->device, (void **)&p));
    if (p) memset(p, 0, n * 4);
    return p;
}

/* Launch `k` over `groups` groups with a signal event and a second command waiting for
 * it, under a fence; every way of waiting reports the failure. */
static void expect_failure(env_t *env, ze_kernel_handle_t k, uint32_t groups) {
    ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = 0};
    ze_event_handle_t done, after;
    EXPECT_OK(zeEventCreate(pool, &ed, &done));
    ed.index = 1;
    EXPECT_OK(zeEventCreate(pool, &ed, &after));
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t list;
    EXPECT_OK(zeCommandListCreate(env->context, env->device, &ld, &list));
    ze_group_count_t g = {groups, 1, 1};
    EXPECT_OK(zeCommandListAppendLaunchKernel(list, k, &g, done, 0, NULL));
    EXPECT_OK(zeCommandListAppendBarrier(list, after, 1, &done));
    EXPECT_OK(zeCommandListClose(list));
    ze_fence_desc_t fd = {.stype = ZE_STRUCTURE_TYPE_FENCE_DESC};
    ze_fence_handle_t fence;
    EXPECT_OK(zeFenceCreate(queue, &fd, &fence));
    EXPECT_OK(zeCommandQueueExecuteCommandLists(queue, 1, &list, fence));
    EXPECT_RESULT(ZE_RESULT_ERROR_DEVICE_LOST, zeCommandQueueSynchronize(queue, UINT64_MAX));
    EXPECT_RESULT(ZE_RESULT_ERROR_DEVICE_LOST, zeEventHostSynchronize(done, UINT64_MAX));
    EXPECT_RESULT(ZE_RESULT_ERROR_DEVICE_LOST, zeEventQueryStatus(done));
    EXPECT_RESULT(ZE_RESULT_ERROR_DEVICE_LOST, zeEventHostSynchronize(after, UINT64_MAX));
    EXPECT_RESULT(ZE_RESULT_ERROR_DEVICE_LOST, zeFenceHostSynchronize(fence, UINT64_MAX));
    /* Reported once: the queue is usable again. */
    EXPECT_OK(zeCommandQueueSynchronize(queue, UINT64_MAX));
    EXPECT_OK(zeEventHostReset(done));
    EXPECT_RESULT(ZE_RESULT_NOT_READY, zeEventQueryStatus(done));
    EXPECT_OK(zeFenceDestroy(fence));
    EXPECT_OK(zeCommandListDestroy(list));
    EXPECT_OK(zeEventDestroy(done));
    EXPECT_OK(zeEventDestroy(after));
}

/* The same queue runs a correct kernel after a failed one. */
static void still_usable(env_t *env, ze_module_handle_t m) {
    const uint32_t n = 4096;
    int32_t *a = alloc(env, n);
    ze_kernel_handle_t k = kernel(m, "twice", 64);
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof a, &a));
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t list;
    EXPECT_OK(zeCommandListCreate(env->context, env->device, &ld, &list));
    ze_group_count_t g = {n / 64, 1, 1};
    EXPECT_OK(zeCommandListAppendLaunchKernel(list, k, &g, NULL, 0, NULL));
    EXPECT_OK(zeCommandListClose(list));
    EXPECT_OK(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    EXPECT_OK(zeCommandQueueSynchronize(queue, UINT64_MAX));
    int bad = 0;
    for (uint32_t i = 0; a && i < n; i++) bad += a[i] != 2 * (int32_t)i;
    EXPECT(a && bad == 0);
    EXPECT_OK(zeCommandListDestroy(list));
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeMemFree(env->context, a));
}

static void test_oob(env_t *env, ze_module_handle_t m) {
    int32_t *out = alloc(env, 1024);
    uint64_t far = 1ull << 34; /* 64 GiB past the allocation */
    ze_kernel_handle_t k = kernel(m, "oob", 64);
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof out, &out));
    EXPECT_OK(zeKernelSetArgumentValue(k, 1, sizeof far, &far));
    expect_failure(env, k, 16);
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeMemFree(env->context, out));
    still_usable(env, m);
}

static void test_trap(env_t *env, ze_module_handle_t m) {
    int32_t *out = alloc(env, 256);
    if (out) out[77] = 5;
    ze_kernel_handle_t k = kernel(m, "trapper", 16);
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof out, &out));
    expect_failure(env, k, 16);
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeMemFree(env->context, out));
    still_usable(env, m);
}

static void test_timeout(env_t *env, ze_module_handle_t m) {
    int32_t *flag = alloc(env, 1), *out = alloc(env, 64);
    ze_kernel_handle_t k = kernel(m, "spin", 8);
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof flag, &flag));
    EXPECT_OK(zeKernelSetArgumentValue(k, 1, sizeof out, &out));
    expect_failure(env, k, 8);
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeMemFree(env->context, flag));
    EXPECT_OK(zeMemFree(env->context, out));
    still_usable(env, m);
}

/* 2^32-1 groups in each of three dimensions: more than 2^64 work-items. */
static void test_group_count_overflow(env_t *env, ze_module_handle_t m) {
    int32_t *a = alloc(env, 64);
    ze_kernel_handle_t k = kernel(m, "twice", 1);
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof a, &a));
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t list;
    EXPECT_OK(zeCommandListCreate(env->context, env->device, &ld, &list));
    ze_group_count_t g = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeCommandListAppendLaunchKernel(list, k, &g, NULL, 0, NULL));
    EXPECT_OK(zeCommandListDestroy(list));
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeMemFree(env->context, a));
}

int main(int argc, char **argv) {
    argv0 = "ze_fault";
    if (argc < 2) {
        fprintf(stderr, "usage: %s fault_kernels.spv\n", argv[0]);
        return 2;
    }
    /* Read by Ferrite at its first launch. */
    setenv("FERRITE_KERNEL_TIMEOUT_MS", "1000", 1);
    env_t env = {0};
    REQUIRE_OK(env_init(&env));
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC};
    REQUIRE_OK(zeCommandQueueCreate(env.context, env.device, &qd, &queue));
    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                               .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE, .count = 2};
    REQUIRE_OK(zeEventPoolCreate(env.context, &pd, 0, NULL, &pool));
    ze_module_handle_t module;
    REQUIRE_OK(build_module(&env, argv[1], &module));
    test_oob(&env, module);
    test_trap(&env, module);
    test_timeout(&env, module);
    test_group_count_overflow(&env, module);
    EXPECT_OK(zeModuleDestroy(module));
    EXPECT_OK(zeEventPoolDestroy(pool));
    EXPECT_OK(zeCommandQueueDestroy(queue));
    EXPECT_OK(zeContextDestroy(env.context));
    return report(argv0);
}
