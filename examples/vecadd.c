/*
 * vecadd.c - the smallest complete OpenCL program: add two vectors of 1M floats.
 *
 * Build and run against Ferrite (scripts/run does exactly this):
 *
 *     gcc -O2 -o vecadd examples/vecadd.c -lOpenCL
 *     OCL_ICD_VENDORS=target/vendors ./vecadd
 *
 * It lists every platform and device, picks the platform named "Ferrite" (or the one named by
 * the FERRITE_PLATFORM environment variable, or else the first), builds the kernel from
 * source, runs it and checks every element. Exit status 0 means the result was right.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1024 * 1024)

static const char *kernel_source =
    "__kernel void vecadd(__global const float *a,\n"
    "                     __global const float *b,\n"
    "                     __global float *c)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    c[i] = a[i] + b[i];\n"
    "}\n";

/* Stop with a message when an OpenCL call fails. */
static void check(cl_int err, const char *what)
{
    if (err != CL_SUCCESS) {
        fprintf(stderr, "vecadd: %s failed with error %d\n", what, err);
        exit(1);
    }
}

static void platform_name(cl_platform_id p, char *name, size_t size)
{
    check(clGetPlatformInfo(p, CL_PLATFORM_NAME, size, name, NULL), "clGetPlatformInfo");
}

int main(void)
{
    cl_int err;
    cl_uint num_platforms = 0;

    /* 1. Find the platforms and devices; choose one. */
    err = clGetPlatformIDs(0, NULL, &num_platforms);
    if (err != CL_SUCCESS || num_platforms == 0) {
        fprintf(stderr, "vecadd: no OpenCL platform found (error %d); is OCL_ICD_VENDORS set?\n", err);
        return 1;
    }
    cl_platform_id *platforms = malloc(num_platforms * sizeof *platforms);
    check(clGetPlatformIDs(num_platforms, platforms, NULL), "clGetPlatformIDs");

    const char *wanted = getenv("FERRITE_PLATFORM");
    if (wanted == NULL || wanted[0] == '\0')
        wanted = "Ferrite";
    cl_platform_id platform = platforms[0];
    for (cl_uint i = 0; i < num_platforms; i++) {
        char name[256];
        platform_name(platforms[i], name, sizeof name);
        printf("platform %u: %s\n", i, name);
        cl_uint num_devices = 0;
        if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 0, NULL, &num_devices) == CL_SUCCESS) {
            cl_device_id *devices = malloc(num_devices * sizeof *devices);
            check(clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, num_devices, devices, NULL), "clGetDeviceIDs");
            for (cl_uint j = 0; j < num_devices; j++) {
                char dev_name[256];
                check(clGetDeviceInfo(devices[j], CL_DEVICE_NAME, sizeof dev_name, dev_name, NULL), "clGetDeviceInfo");
                printf("  device %u: %s\n", j, dev_name);
            }
            free(devices);
        }
        if (strcmp(name, wanted) == 0)
            platform = platforms[i];
    }
    free(platforms);

    cl_device_id device;
    check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), "clGetDeviceIDs");
    char pname[256], dname[256];
    platform_name(platform, pname, sizeof pname);
    check(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof dname, dname, NULL), "clGetDeviceInfo");

    /* 2. A context and a command-queue on that device. */
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    check(err, "clCreateContext");
    cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
    check(err, "clCreateCommandQueueWithProperties");

    /* 3. Build the kernel from source; show the build log if it fails. */
    cl_program program = clCreateProgramWithSource(context, 1, &kernel_source, NULL, &err);
    check(err, "clCreateProgramWithSource");
    err = clBuildProgram(program, 1, &device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t log_size = 0;
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
        char *log = malloc(log_size + 1);
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, log_size, log, NULL);
        log[log_size] = '\0';
        fprintf(stderr, "vecadd: clBuildProgram failed with error %d; build log:\n%s\n", err, log);
        free(log);
        return 1;
    }
    cl_kernel kernel = clCreateKernel(program, "vecadd", &err);
    check(err, "clCreateKernel");

    /* 4. Input data and buffers. */
    float *a = malloc(N * sizeof(float));
    float *b = malloc(N * sizeof(float));
    float *c = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(N - i) * 0.5f;
    }
    cl_mem buf_a = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof(float), a, &err);
    check(err, "clCreateBuffer(a)");
    cl_mem buf_b = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof(float), b, &err);
    check(err, "clCreateBuffer(b)");
    cl_mem buf_c = clCreateBuffer(context, CL_MEM_WRITE_ONLY, N * sizeof(float), NULL, &err);
    check(err, "clCreateBuffer(c)");

    /* 5. Run the kernel over N work-items and read the result back. */
    check(clSetKernelArg(kernel, 0, sizeof(cl_mem), &buf_a), "clSetKernelArg(0)");
    check(clSetKernelArg(kernel, 1, sizeof(cl_mem), &buf_b), "clSetKernelArg(1)");
    check(clSetKernelArg(kernel, 2, sizeof(cl_mem), &buf_c), "clSetKernelArg(2)");
    size_t global = N;
    check(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL), "clEnqueueNDRangeKernel");
    check(clEnqueueReadBuffer(queue, buf_c, CL_TRUE, 0, N * sizeof(float), c, 0, NULL, NULL), "clEnqueueReadBuffer");

    /* 6. Check every element. */
    int errors = 0;
    for (int i = 0; i < N; i++) {
        if (c[i] != a[i] + b[i]) {
            if (errors < 5)
                fprintf(stderr, "vecadd: c[%d] = %f, expected %f\n", i, c[i], a[i] + b[i]);
            errors++;
        }
    }

    clReleaseMemObject(buf_a);
    clReleaseMemObject(buf_b);
    clReleaseMemObject(buf_c);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    free(a);
    free(b);
    free(c);

    if (errors) {
        fprintf(stderr, "vecadd: FAILED, %d wrong elements (platform %s, device %s)\n", errors, pname, dname);
        return 1;
    }
    printf("vecadd: OK (platform %s, device %s)\n", pname, dname);
    return 0;
}
