/* Shared helpers of the Level-Zero API tests: checks that count passes and failures,
 * discovery of Ferrite's driver and device through libze_loader, file loading. */
#ifndef FERRITE_ZE_TEST_COMMON_H
#define FERRITE_ZE_TEST_COMMON_H

#include <level_zero/ze_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_passed, g_failed;

/* Check that `expr` (a ze_result_t) equals `expected`. */
#define EXPECT_RESULT(expected, expr)                                              \
    do {                                                                           \
        ze_result_t r_ = (expr);                                                   \
        if (r_ == (ze_result_t)(expected)) {                                       \
            g_passed++;                                                            \
        } else {                                                                   \
            g_failed++;                                                            \
            fprintf(stderr, "FAIL %s:%d: %s = 0x%x, expected 0x%x\n", __FILE__,    \
                    __LINE__, #expr, (unsigned)r_, (unsigned)(expected));          \
        }                                                                          \
    } while (0)

#define EXPECT_OK(expr) EXPECT_RESULT(ZE_RESULT_SUCCESS, expr)

/* Check a condition. */
#define EXPECT(cond)                                                               \
    do {                                                                           \
        if (cond) {                                                                \
            g_passed++;                                                            \
        } else {                                                                   \
            g_failed++;                                                            \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);        \
        }                                                                          \
    } while (0)

/* A check the rest of the test depends on: stop the program if it fails. */
#define REQUIRE_OK(expr)                                                           \
    do {                                                                           \
        ze_result_t r_ = (expr);                                                   \
        if (r_ != ZE_RESULT_SUCCESS) {                                             \
            fprintf(stderr, "FATAL %s:%d: %s = 0x%x\n", __FILE__, __LINE__, #expr, \
                    (unsigned)r_);                                                 \
            g_failed++;                                                            \
            return report(argv0);                                                  \
        }                                                                          \
    } while (0)

static const char *argv0 = "test";

/* Print the summary line and return the exit status. */
static inline int report(const char *name) {
    printf("%s: %d passed, %d failed\n", name, g_passed, g_failed);
    return g_failed ? 1 : 0;
}

/* The driver and device under test: zeInit, then the driver with a CPU device. */
typedef struct {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    ze_context_handle_t context;
} env_t;

static inline ze_result_t env_init(env_t *env) {
    ze_result_t r = zeInit(0);
    if (r != ZE_RESULT_SUCCESS) return r;
    uint32_t n = 0;
    r = zeDriverGet(&n, NULL);
    if (r != ZE_RESULT_SUCCESS) return r;
    if (n == 0) return ZE_RESULT_ERROR_UNINITIALIZED;
    ze_driver_handle_t drivers[8];
    if (n > 8) n = 8;
    r = zeDriverGet(&n, drivers);
    if (r != ZE_RESULT_SUCCESS) return r;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t nd = 1;
        ze_device_handle_t dev;
        if (zeDeviceGet(drivers[i], &nd, &dev) != ZE_RESULT_SUCCESS || nd == 0) continue;
        ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
        if (zeDeviceGetProperties(dev, &p) != ZE_RESULT_SUCCESS) continue;
        if (p.type != ZE_DEVICE_TYPE_CPU) continue;
        env->driver = drivers[i];
        env->device = dev;
        ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
        return zeContextCreate(env->driver, &cd, &env->context);
    }
    return ZE_RESULT_ERROR_DEVICE_LOST;
}

/* Read a whole file; NULL on failure. */
static inline uint8_t *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = n > 0 ? malloc((size_t)n) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = buf ? (size_t)n : 0;
    return buf;
}

/* Build a module from a SPIR-V file; prints the build log on failure. */
static inline ze_result_t build_module(env_t *env, const char *path, ze_module_handle_t *module) {
    size_t size;
    uint8_t *spirv = read_file(path, &size);
    if (!spirv) {
        fprintf(stderr, "cannot read %s\n", path);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    ze_module_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                             .format = ZE_MODULE_FORMAT_IL_SPIRV,
                             .inputSize = size,
                             .pInputModule = spirv};
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = zeModuleCreate(env->context, env->device, &desc, module, &log);
    if (r != ZE_RESULT_SUCCESS && log) {
        size_t n = 0;
        zeModuleBuildLogGetString(log, &n, NULL);
        char *s = malloc(n);
        if (s && zeModuleBuildLogGetString(log, &n, s) == ZE_RESULT_SUCCESS)
            fprintf(stderr, "build log of %s:\n%s\n", path, s);
        free(s);
    }
    if (log) zeModuleBuildLogDestroy(log);
    free(spirv);
    return r;
}

#endif
