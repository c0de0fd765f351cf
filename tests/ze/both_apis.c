/* OpenCL and Level-Zero in one process: both loaders must reach one Ferrite runtime.
 *
 * Runs vadd through OpenCL (libOpenCL, OCL_ICD_VENDORS) and through Level-Zero
 * (libze_loader, ZE_ENABLE_ALT_DRIVERS) and checks each result, then that the process has
 * one runtime: libferrite.so mapped once (one file in /proc/self/maps), one pool of
 * `ferrite-worker-*` threads with as many threads as the device has compute units (not
 * twice that), and the same device name through both APIs.
 *
 * argv[1] is the kernels' .spv; argv[2] == "ze-first" starts with Level-Zero. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <dirent.h>
#include <time.h>

#include "common.h"
#include "ferrite.h"

#define CL_EXPECT_OK(expr)                                                         \
    do {                                                                           \
        cl_int e_ = (expr);                                                        \
        if (e_ == CL_SUCCESS) {                                                    \
            g_passed++;                                                            \
        } else {                                                                   \
            g_failed++;                                                            \
            fprintf(stderr, "FAIL %s:%d: %s = %d\n", __FILE__, __LINE__, #expr,    \
                    (int)e_);                                                      \
        }                                                                          \
    } while (0)

/* Elements of each vadd: several work-groups, so the launch runs on the worker pool. */
#define N 4096
#define GROUP 64

static char cl_name[256];
static cl_uint cl_units;

/* vadd through OpenCL on the first platform's CPU device; fills cl_name and cl_units. */
static void run_opencl(const uint8_t *spirv, size_t size) {
    cl_platform_id platform;
    cl_uint np = 0;
    CL_EXPECT_OK(clGetPlatformIDs(1, &platform, &np));
    if (np == 0) return;
    cl_device_id device;
    CL_EXPECT_OK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, NULL));
    /* The identifying values include/ferrite.h promises. */
    char text[64] = {0};
    CL_EXPECT_OK(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof text - 1, text, NULL));
    EXPECT(strcmp(text, FERRITE_PLATFORM_NAME) == 0);
    memset(text, 0, sizeof text);
    CL_EXPECT_OK(
        clGetPlatformInfo(platform, CL_PLATFORM_ICD_SUFFIX_KHR, sizeof text - 1, text, NULL));
    EXPECT(strcmp(text, FERRITE_ICD_SUFFIX) == 0);
    cl_uint vendor = 0;
    CL_EXPECT_OK(clGetDeviceInfo(device, CL_DEVICE_VENDOR_ID, sizeof vendor, &vendor, NULL));
    EXPECT(vendor == FERRITE_VENDOR_ID);
    CL_EXPECT_OK(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof cl_name, cl_name, NULL));
    CL_EXPECT_OK(
        clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cl_units, &cl_units, NULL));
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CL_EXPECT_OK(err);
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
    CL_EXPECT_OK(err);
    cl_program prog = clCreateProgramWithIL(ctx, spirv, size, &err);
    CL_EXPECT_OK(err);
    CL_EXPECT_OK(clBuildProgram(prog, 1, &device, "", NULL, NULL));
    cl_kernel k = clCreateKernel(prog, "vadd", &err);
    CL_EXPECT_OK(err);
    if (err != CL_SUCCESS) return;

    static float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 2.0f * (float)i;
        c[i] = -1.0f;
    }
    cl_mem ma = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
    CL_EXPECT_OK(err);
    cl_mem mb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof b, b, &err);
    CL_EXPECT_OK(err);
    cl_mem mc = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof c, NULL, &err);
    CL_EXPECT_OK(err);
    cl_uint n = N;
    CL_EXPECT_OK(clSetKernelArg(k, 0, sizeof ma, &ma));
    CL_EXPECT_OK(clSetKernelArg(k, 1, sizeof mb, &mb));
    CL_EXPECT_OK(clSetKernelArg(k, 2, sizeof mc, &mc));
    CL_EXPECT_OK(clSetKernelArg(k, 3, sizeof n, &n));
    size_t global = N, local = GROUP;
    CL_EXPECT_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
    CL_EXPECT_OK(clEnqueueReadBuffer(q, mc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL));
    int bad = 0;
    for (int i = 0; i < N; i++) bad += c[i] != 3.0f * (float)i;
    EXPECT(bad == 0);
    if (bad) fprintf(stderr, "OpenCL vadd: %d wrong\n", bad);
    CL_EXPECT_OK(clReleaseMemObject(ma));
    CL_EXPECT_OK(clReleaseMemObject(mb));
    CL_EXPECT_OK(clReleaseMemObject(mc));
    CL_EXPECT_OK(clReleaseKernel(k));
    CL_EXPECT_OK(clReleaseProgram(prog));
    CL_EXPECT_OK(clReleaseCommandQueue(q));
    CL_EXPECT_OK(clReleaseContext(ctx));
}

static char ze_name[ZE_MAX_DEVICE_NAME];
static uint32_t ze_threads;

/* vadd through Level-Zero on USM; fills ze_name and ze_threads. */
static int run_level_zero(const char *spv) {
    env_t env = {0};
    REQUIRE_OK(env_init(&env));
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    EXPECT_OK(zeDeviceGetProperties(env.device, &p));
    memcpy(ze_name, p.name, sizeof ze_name);
    EXPECT(p.vendorId == FERRITE_VENDOR_ID);
    ze_threads = p.numThreadsPerEU * p.numEUsPerSubslice * p.numSubslicesPerSlice * p.numSlices;

    ze_command_queue_handle_t queue;
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC};
    REQUIRE_OK(zeCommandQueueCreate(env.context, env.device, &qd, &queue));
    ze_module_handle_t module;
    REQUIRE_OK(build_module(&env, spv, &module));
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    float *a = NULL, *b = NULL, *c = NULL;
    const size_t bytes = N * sizeof(float);
    REQUIRE_OK(zeMemAllocShared(env.context, &dd, &hd, bytes, 0, env.device, (void **)&a));
    REQUIRE_OK(zeMemAllocShared(env.context, &dd, &hd, bytes, 0, env.device, (void **)&b));
    REQUIRE_OK(zeMemAllocShared(env.context, &dd, &hd, bytes, 0, env.device, (void **)&c));
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
        c[i] = -1.0f;
    }
    ze_kernel_handle_t k;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "vadd"};
    REQUIRE_OK(zeKernelCreate(module, &kd, &k));
    uint32_t n = N;
    EXPECT_OK(zeKernelSetGroupSize(k, GROUP, 1, 1));
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof a, &a));
    EXPECT_OK(zeKernelSetArgumentValue(k, 1, sizeof b, &b));
    EXPECT_OK(zeKernelSetArgumentValue(k, 2, sizeof c, &c));
    EXPECT_OK(zeKernelSetArgumentValue(k, 3, sizeof n, &n));
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t list;
    REQUIRE_OK(zeCommandListCreate(env.context, env.device, &ld, &list));
    ze_group_count_t g = {N / GROUP, 1, 1};
    EXPECT_OK(zeCommandListAppendLaunchKernel(list, k, &g, NULL, 0, NULL));
    EXPECT_OK(zeCommandListClose(list));
    EXPECT_OK(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    EXPECT_OK(zeCommandQueueSynchronize(queue, UINT64_MAX));
    int bad = 0;
    for (int i = 0; i < N; i++) bad += c[i] != 1.5f * (float)i;
    EXPECT(bad == 0);
    if (bad) fprintf(stderr, "Level-Zero vadd: %d wrong\n", bad);
    EXPECT_OK(zeCommandListDestroy(list));
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeMemFree(env.context, a));
    EXPECT_OK(zeMemFree(env.context, b));
    EXPECT_OK(zeMemFree(env.context, c));
    EXPECT_OK(zeModuleDestroy(module));
    EXPECT_OK(zeCommandQueueDestroy(queue));
    EXPECT_OK(zeContextDestroy(env.context));
    return 0;
}

/* Threads of this process whose name starts with "ferrite-worker-" (the executor's pool;
 * the kernel truncates names to 15 characters, which is exactly that prefix). */
static int count_workers(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[300], comm[64] = {0};
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fgets(comm, sizeof comm, f) && strncmp(comm, "ferrite-worker-", 15) == 0) n++;
        fclose(f);
    }
    closedir(d);
    return n;
}

/* Distinct files named libferrite.so mapped into this process (by device and inode). */
static int count_library_files(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    char line[4096];
    char seen[8][64];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char *path = strchr(line, '/');
        if (!path || !strstr(path, "libferrite.so")) continue;
        /* address perms offset dev inode path */
        char dev[32], ino[32], id[64];
        if (sscanf(line, "%*s %*s %*s %31s %31s", dev, ino) != 2) continue;
        snprintf(id, sizeof id, "%s:%s", dev, ino);
        int known = 0;
        for (int i = 0; i < n; i++) known |= strcmp(seen[i], id) == 0;
        if (!known && n < 8) {
            strcpy(seen[n++], id);
            printf("libferrite.so mapped from %s", path);
        }
    }
    fclose(f);
    return n;
}

int main(int argc, char **argv) {
    argv0 = "both_apis";
    if (argc < 2) {
        fprintf(stderr, "usage: %s kernels.spv [ze-first]\n", argv[0]);
        return 2;
    }
    size_t size;
    uint8_t *spirv = read_file(argv[1], &size);
    if (!spirv) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    if (argc > 2 && strcmp(argv[2], "ze-first") == 0) {
        if (run_level_zero(argv[1])) return report(argv0);
        run_opencl(spirv, size);
    } else {
        run_opencl(spirv, size);
        if (run_level_zero(argv[1])) return report(argv0);
    }
    free(spirv);

    EXPECT(count_library_files() == 1);
    EXPECT(cl_units > 0);
    EXPECT(ze_threads == cl_units);
    EXPECT(strcmp(cl_name, ze_name) == 0);
    if (strcmp(cl_name, ze_name) != 0)
        fprintf(stderr, "device names differ: OpenCL \"%s\", Level-Zero \"%s\"\n", cl_name,
                ze_name);
    /* Workers name themselves once they start: give them a moment to do so. */
    int workers = count_workers();
    for (int i = 0; i < 200 && workers < (int)cl_units; i++) {
        nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
        workers = count_workers();
    }
    EXPECT(workers == (int)cl_units);
    printf("compute units %u (OpenCL), threads %u (Level-Zero), ferrite-worker threads %d\n",
           cl_units, ze_threads, workers);
    return report(argv0);
}
