/* Level-Zero images and samplers through libze_loader: device limits, format queries,
 * creation and its errors, copies from and to memory (packed and pitched), region copies
 * and their overlap rule, image and sampler kernel arguments (a samplerless
 * read/write kernel and a linearly filtered read), and destroyed handles. */
#include "common.h"

static ze_command_queue_handle_t queue;

static ze_image_desc_t desc2d(ze_image_format_type_t type, uint32_t w, uint32_t h) {
    ze_image_desc_t d = {.stype = ZE_STRUCTURE_TYPE_IMAGE_DESC,
                         .type = ZE_IMAGE_TYPE_2D,
                         .format = {ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8, type,
                                    ZE_IMAGE_FORMAT_SWIZZLE_R, ZE_IMAGE_FORMAT_SWIZZLE_G,
                                    ZE_IMAGE_FORMAT_SWIZZLE_B, ZE_IMAGE_FORMAT_SWIZZLE_A},
                         .width = w,
                         .height = h,
                         .depth = 1};
    return d;
}

static ze_command_list_handle_t new_list(env_t *env) {
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t l = NULL;
    EXPECT_OK(zeCommandListCreate(env->context, env->device, &ld, &l));
    return l;
}

/* Close, execute and wait for a list, then destroy it. */
static void run_list(ze_command_list_handle_t l) {
    EXPECT_OK(zeCommandListClose(l));
    EXPECT_OK(zeCommandQueueExecuteCommandLists(queue, 1, &l, NULL));
    EXPECT_OK(zeCommandQueueSynchronize(queue, UINT64_MAX));
    EXPECT_OK(zeCommandListDestroy(l));
}

static void test_properties(env_t *env) {
    ze_device_image_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES};
    EXPECT_OK(zeDeviceGetImageProperties(env->device, &dp));
    EXPECT(dp.maxImageDims2D >= 16384 && dp.maxImageDims3D >= 2048);
    EXPECT(dp.maxImageArraySlices >= 2048 && dp.maxSamplers >= 16);
    EXPECT(dp.maxImageBufferSize >= 65536);
    EXPECT(dp.maxReadImageArgs >= 128 && dp.maxWriteImageArgs >= 64);

    ze_image_properties_t p = {.stype = ZE_STRUCTURE_TYPE_IMAGE_PROPERTIES};
    ze_image_desc_t d = desc2d(ZE_IMAGE_FORMAT_TYPE_UNORM, 16, 16);
    EXPECT_OK(zeImageGetProperties(env->device, &d, &p));
    EXPECT(p.samplerFilterFlags ==
           (ZE_IMAGE_SAMPLER_FILTER_FLAG_POINT | ZE_IMAGE_SAMPLER_FILTER_FLAG_LINEAR));
    d.format.type = ZE_IMAGE_FORMAT_TYPE_UINT;
    EXPECT_OK(zeImageGetProperties(env->device, &d, &p));
    EXPECT(p.samplerFilterFlags == ZE_IMAGE_SAMPLER_FILTER_FLAG_POINT);
    d.format.layout = ZE_IMAGE_FORMAT_LAYOUT_NV12;
    EXPECT_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT,
                  zeImageGetProperties(env->device, &d, &p));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeImageGetProperties(env->device, NULL, &p));
}

static void test_create_errors(env_t *env) {
    ze_image_handle_t img = NULL;
    ze_image_desc_t d = desc2d(ZE_IMAGE_FORMAT_TYPE_UNORM, 16, 16);
    d.type = (ze_image_type_t)77;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                  zeImageCreate(env->context, env->device, &d, &img));
    d = desc2d(ZE_IMAGE_FORMAT_TYPE_UNORM, 0, 16);
    EXPECT_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_SIZE,
                  zeImageCreate(env->context, env->device, &d, &img));
    d = desc2d(ZE_IMAGE_FORMAT_TYPE_UNORM, 1u << 20, 16);
    EXPECT_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_SIZE,
                  zeImageCreate(env->context, env->device, &d, &img));
    d = desc2d(ZE_IMAGE_FORMAT_TYPE_FLOAT, 16, 16); /* 8-bit float */
    EXPECT_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT,
                  zeImageCreate(env->context, env->device, &d, &img));
    d = desc2d(ZE_IMAGE_FORMAT_TYPE_UNORM, 16, 16);
    d.miplevels = 4;
    EXPECT_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                  zeImageCreate(env->context, env->device, &d, &img));
    d.miplevels = 0;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeImageCreate(env->context, env->device, &d, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                  zeImageCreate(NULL, env->device, &d, &img));
    EXPECT(img == NULL);
    EXPECT_OK(zeImageCreate(env->context, env->device, &d, &img));
    EXPECT_OK(zeContextMakeImageResident(env->context, env->device, img));
    EXPECT_OK(zeImageDestroy(img));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeImageDestroy(img));

    /* A depth format (swizzle D = 7, API 1.5): its one component; past D an invalid
       enumeration. */
    ze_image_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_IMAGE_DESC,
                          .type = ZE_IMAGE_TYPE_2D,
                          .format = {ZE_IMAGE_FORMAT_LAYOUT_32, ZE_IMAGE_FORMAT_TYPE_FLOAT,
                                     (ze_image_format_swizzle_t)7, ZE_IMAGE_FORMAT_SWIZZLE_0,
                                     ZE_IMAGE_FORMAT_SWIZZLE_0, ZE_IMAGE_FORMAT_SWIZZLE_0},
                          .width = 8, .height = 4, .depth = 1};
    img = NULL;
    EXPECT_OK(zeImageCreate(env->context, env->device, &dd, &img));
    if (img) EXPECT_OK(zeImageDestroy(img));
    dd.format.x = (ze_image_format_swizzle_t)8;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                  zeImageCreate(env->context, env->device, &dd, &img));
}

/* Upload a pattern, invert it in a kernel, copy a region, read everything back. */
static void test_copies_and_kernel(env_t *env, ze_module_handle_t module) {
    enum { W = 16, H = 8 };
    ze_image_desc_t d = desc2d(ZE_IMAGE_FORMAT_TYPE_UINT, W, H);
    ze_image_handle_t src, dst;
    EXPECT_OK(zeImageCreate(env->context, env->device, &d, &src));
    EXPECT_OK(zeImageCreate(env->context, env->device, &d, &dst));
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    uint8_t *in, *out;
    EXPECT_OK(zeMemAllocHost(env->context, &hd, W * H * 4, 64, (void **)&in));
    EXPECT_OK(zeMemAllocHost(env->context, &hd, 2 * W * H * 4, 64, (void **)&out));
    for (int i = 0; i < W * H * 4; i++) in[i] = (uint8_t)(i * 7 + 3);

    /* The storage: its size and pitches, and an id per allocation. */
    ze_image_memory_properties_exp_t mp = {.stype = ZE_STRUCTURE_TYPE_IMAGE_MEMORY_EXP_PROPERTIES};
    EXPECT_OK(zeImageGetMemoryPropertiesExp(src, &mp));
    EXPECT(mp.rowPitch >= W * 4 && mp.size >= mp.rowPitch * H && mp.slicePitch >= mp.rowPitch * H);
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER, zeImageGetMemoryPropertiesExp(src, NULL));
    ze_image_allocation_ext_properties_t ap1 = {
        .stype = ZE_STRUCTURE_TYPE_IMAGE_ALLOCATION_EXT_PROPERTIES};
    ze_image_allocation_ext_properties_t ap2 = ap1;
    EXPECT_OK(zeImageGetAllocPropertiesExt(env->context, src, &ap1));
    EXPECT_OK(zeImageGetAllocPropertiesExt(env->context, dst, &ap2));
    EXPECT(ap1.id != 0 && ap1.id != ap2.id);
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                  zeImageGetAllocPropertiesExt(env->context, NULL, &ap1));

    ze_kernel_handle_t k;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "invert"};
    EXPECT_OK(zeKernelCreate(module, &kd, &k));
    EXPECT_OK(zeKernelSetGroupSize(k, 4, 2, 1));
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof src, &src));
    EXPECT_OK(zeKernelSetArgumentValue(k, 1, sizeof dst, &dst));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE,
                  zeKernelSetArgumentValue(k, 0, 4, &src));
    ze_image_handle_t none = NULL;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                  zeKernelSetArgumentValue(k, 0, sizeof none, &none));

    ze_command_list_handle_t l = new_list(env);
    EXPECT_OK(zeCommandListAppendImageCopyFromMemory(l, src, in, NULL, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    ze_group_count_t g = {W / 4, H / 2, 1};
    EXPECT_OK(zeCommandListAppendLaunchKernel(l, k, &g, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendImageCopyToMemory(l, out, dst, NULL, NULL, 0, NULL));
    run_list(l);
    int bad = 0;
    for (int i = 0; i < W * H * 4; i++) bad += out[i] + in[i] != 255;
    EXPECT(bad == 0);

    /* A 4x3 region of src at (5, 2) to dst at (1, 4); then dst read back with a row
     * pitch of twice the row. A 2-D image has no z: the destination's originZ and depth
     * are ignored (as Intel's driver does). */
    ze_image_region_t from = {5, 2, 0, 4, 3, 1}, to = {1, 4, 1, 4, 3, 0};
    l = new_list(env);
    EXPECT_OK(zeCommandListAppendImageCopyRegion(l, dst, src, &to, &from, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendImageCopyToMemoryExt(l, out, dst, NULL, 2 * W * 4, 0, NULL, 0,
                                                      NULL));
    run_list(l);
    bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++) {
                int inside = x >= 1 && x < 5 && y >= 4 && y < 7;
                uint8_t want = inside ? in[((y - 2) * W + (x + 4)) * 4 + c]
                                      : (uint8_t)(255 - in[(y * W + x) * 4 + c]);
                bad += out[y * 2 * W * 4 + x * 4 + c] != want;
            }
    EXPECT(bad == 0);

    /* An empty region copies nothing; its command still runs in order. */
    ze_image_region_t empty = {0, 0, 0, 0, 3, 1};
    memset(out, 0xAB, 8);
    l = new_list(env);
    EXPECT_OK(zeCommandListAppendImageCopyToMemory(l, out, dst, &empty, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendImageCopyRegion(l, dst, src, &empty, &empty, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendImageCopyFromMemory(l, dst, in, &empty, NULL, 0, NULL));
    run_list(l);
    EXPECT(out[0] == 0xAB && out[7] == 0xAB);

    /* Regions of one size only; no overlap within one image; regions inside the image. */
    ze_image_region_t small = {0, 0, 0, 2, 2, 1};
    l = new_list(env);
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_SIZE,
                  zeCommandListAppendImageCopyRegion(l, dst, src, &small, &from, NULL, 0, NULL));
    ze_image_region_t shifted = {6, 2, 0, 4, 3, 1};
    EXPECT_RESULT(ZE_RESULT_ERROR_OVERLAPPING_REGIONS,
                  zeCommandListAppendImageCopyRegion(l, src, src, &shifted, &from, NULL, 0,
                                                     NULL));
    ze_image_region_t outside = {14, 0, 0, 4, 1, 1};
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  zeCommandListAppendImageCopyToMemory(l, out, src, &outside, NULL, 0, NULL));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  zeCommandListAppendImageCopyToMemory(l, NULL, src, NULL, NULL, 0, NULL));
    EXPECT_OK(zeCommandListDestroy(l));

    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeImageDestroy(src));
    EXPECT_OK(zeImageDestroy(dst));
    EXPECT_OK(zeMemFree(env->context, in));
    EXPECT_OK(zeMemFree(env->context, out));
}

/* A linear, clamp-to-edge sampler halfway between texels: the mean of two neighbours. */
static void test_sampler(env_t *env, ze_module_handle_t module) {
    enum { W = 8, H = 4 };
    ze_sampler_handle_t s = NULL;
    ze_sampler_desc_t sd = {.stype = ZE_STRUCTURE_TYPE_SAMPLER_DESC,
                            .addressMode = ZE_SAMPLER_ADDRESS_MODE_REPEAT,
                            .filterMode = ZE_SAMPLER_FILTER_MODE_LINEAR,
                            .isNormalized = 0};
    /* Allowed in Level-Zero (OpenCL refuses it): reads clamp to the edge. */
    EXPECT_OK(zeSamplerCreate(env->context, env->device, &sd, &s));
    EXPECT_OK(zeSamplerDestroy(s));
    sd.addressMode = (ze_sampler_address_mode_t)9;
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                  zeSamplerCreate(env->context, env->device, &sd, &s));
    sd.addressMode = ZE_SAMPLER_ADDRESS_MODE_CLAMP;
    EXPECT_OK(zeSamplerCreate(env->context, env->device, &sd, &s));

    ze_image_desc_t d = desc2d(ZE_IMAGE_FORMAT_TYPE_UNORM, W, H);
    ze_image_handle_t img;
    EXPECT_OK(zeImageCreate(env->context, env->device, &d, &img));
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    uint8_t *px;
    float *out;
    EXPECT_OK(zeMemAllocHost(env->context, &hd, W * H * 4, 64, (void **)&px));
    EXPECT_OK(zeMemAllocHost(env->context, &hd, W * H * 16, 64, (void **)&out));
    for (int i = 0; i < W * H * 4; i++) px[i] = (uint8_t)(i * 37 + 11);

    ze_kernel_handle_t k;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC,
                           .pKernelName = "sample_between"};
    EXPECT_OK(zeKernelCreate(module, &kd, &k));
    int w = W;
    EXPECT_OK(zeKernelSetGroupSize(k, W, 1, 1));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                  zeKernelSetArgumentValue(k, 1, sizeof img, &img)); /* not a sampler */
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof img, &img));
    EXPECT_OK(zeKernelSetArgumentValue(k, 1, sizeof s, &s));
    EXPECT_OK(zeKernelSetArgumentValue(k, 2, sizeof out, &out));
    EXPECT_OK(zeKernelSetArgumentValue(k, 3, sizeof w, &w));
    ze_command_list_handle_t l = new_list(env);
    EXPECT_OK(zeCommandListAppendImageCopyFromMemory(l, img, px, NULL, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    ze_group_count_t g = {1, H, 1};
    EXPECT_OK(zeCommandListAppendLaunchKernel(l, k, &g, NULL, 0, NULL));
    /* The image handle may go once the launch is recorded: the launch holds the image. */
    EXPECT_OK(zeImageDestroy(img));
    run_list(l);
    int bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++) {
                int x1 = x + 1 < W ? x + 1 : W - 1;
                float want = (px[(y * W + x) * 4 + c] + px[(y * W + x1) * 4 + c]) / 510.0f;
                float got = out[(y * W + x) * 4 + c];
                bad += got < want - 1e-5f || got > want + 1e-5f;
            }
    EXPECT(bad == 0);
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeSamplerDestroy(s));
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeSamplerDestroy(s));
    EXPECT_OK(zeMemFree(env->context, px));
    EXPECT_OK(zeMemFree(env->context, out));
}

/* Memory laid out with Level-Zero's pitches: a 1D array's layers are rowPitch apart, a 2D
 * array's slicePitch apart (not a multiple of rowPitch here). Each is written with padded
 * pitches and read back packed. */
static void test_array_pitches(env_t *env) {
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    uint8_t *in, *out;
    EXPECT_OK(zeMemAllocHost(env->context, &hd, 256, 64, (void **)&in));
    EXPECT_OK(zeMemAllocHost(env->context, &hd, 256, 64, (void **)&out));
    for (int i = 0; i < 256; i++) in[i] = (uint8_t)(i * 5 + 1);

    /* 1D array: 5 pixels, 3 layers; layers 32 bytes apart (20 packed). */
    ze_image_desc_t d = desc2d(ZE_IMAGE_FORMAT_TYPE_UINT, 5, 1);
    d.type = ZE_IMAGE_TYPE_1DARRAY;
    d.height = 0;
    d.arraylevels = 3;
    ze_image_handle_t a1;
    EXPECT_OK(zeImageCreate(env->context, env->device, &d, &a1));
    ze_image_region_t all1 = {0, 0, 0, 5, 3, 1};
    ze_command_list_handle_t l = new_list(env);
    EXPECT_OK(zeCommandListAppendImageCopyFromMemoryExt(l, a1, in, &all1, 32, 96, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendImageCopyToMemory(l, out, a1, NULL, NULL, 0, NULL));
    run_list(l);
    int bad = 0;
    for (int layer = 0; layer < 3; layer++)
        for (int b = 0; b < 20; b++) bad += out[layer * 20 + b] != in[layer * 32 + b];
    EXPECT(bad == 0);
    EXPECT_OK(zeImageDestroy(a1));

    /* 2D array: 3 x 2 pixels, 2 layers; rows 16 bytes apart (12 packed), layers 40. */
    d = desc2d(ZE_IMAGE_FORMAT_TYPE_UINT, 3, 2);
    d.type = ZE_IMAGE_TYPE_2DARRAY;
    d.arraylevels = 2;
    ze_image_handle_t a2;
    EXPECT_OK(zeImageCreate(env->context, env->device, &d, &a2));
    ze_image_region_t all2 = {0, 0, 0, 3, 2, 2};
    l = new_list(env);
    EXPECT_RESULT(ZE_RESULT_ERROR_INVALID_SIZE,
                  zeCommandListAppendImageCopyFromMemoryExt(l, a2, in, &all2, 16, 31, NULL, 0,
                                                            NULL));
    EXPECT_OK(zeCommandListAppendImageCopyFromMemoryExt(l, a2, in, &all2, 16, 40, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendImageCopyToMemory(l, out, a2, NULL, NULL, 0, NULL));
    run_list(l);
    bad = 0;
    for (int layer = 0; layer < 2; layer++)
        for (int y = 0; y < 2; y++)
            for (int b = 0; b < 12; b++)
                bad += out[layer * 24 + y * 12 + b] != in[layer * 40 + y * 16 + b];
    EXPECT(bad == 0);
    EXPECT_OK(zeImageDestroy(a2));

    /* A buffer image: 1D, 40 pixels, a round trip. */
    d = desc2d(ZE_IMAGE_FORMAT_TYPE_UINT, 40, 1);
    d.type = ZE_IMAGE_TYPE_BUFFER;
    ze_image_handle_t b1;
    EXPECT_OK(zeImageCreate(env->context, env->device, &d, &b1));
    l = new_list(env);
    EXPECT_OK(zeCommandListAppendImageCopyFromMemory(l, b1, in, NULL, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendImageCopyToMemory(l, out, b1, NULL, NULL, 0, NULL));
    run_list(l);
    EXPECT(memcmp(out, in, 160) == 0);
    EXPECT_OK(zeImageDestroy(b1));
    EXPECT_OK(zeMemFree(env->context, in));
    EXPECT_OK(zeMemFree(env->context, out));
}

/* A B, G, R, A swizzle is OpenCL's BGRA: a kernel reads red from the third byte. Swizzles
 * no OpenCL order expresses are refused. */
static void test_swizzle(env_t *env, ze_module_handle_t module) {
    enum { W = 4, H = 2 };
    ze_image_desc_t d = desc2d(ZE_IMAGE_FORMAT_TYPE_UINT, W, H);
    ze_image_handle_t src, dst;
    d.format.x = ZE_IMAGE_FORMAT_SWIZZLE_R;
    d.format.y = ZE_IMAGE_FORMAT_SWIZZLE_R;
    EXPECT_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT,
                  zeImageCreate(env->context, env->device, &d, &src));
    d.format.x = ZE_IMAGE_FORMAT_SWIZZLE_B;
    d.format.y = ZE_IMAGE_FORMAT_SWIZZLE_G;
    d.format.z = ZE_IMAGE_FORMAT_SWIZZLE_R;
    EXPECT_OK(zeImageCreate(env->context, env->device, &d, &src));
    ze_image_desc_t rgba = desc2d(ZE_IMAGE_FORMAT_TYPE_UINT, W, H);
    EXPECT_OK(zeImageCreate(env->context, env->device, &rgba, &dst));
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    uint8_t *in, *out;
    EXPECT_OK(zeMemAllocHost(env->context, &hd, W * H * 4, 64, (void **)&in));
    EXPECT_OK(zeMemAllocHost(env->context, &hd, W * H * 4, 64, (void **)&out));
    for (int i = 0; i < W * H * 4; i++) in[i] = (uint8_t)(i * 11 + 2);
    ze_kernel_handle_t k;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "invert"};
    EXPECT_OK(zeKernelCreate(module, &kd, &k));
    EXPECT_OK(zeKernelSetGroupSize(k, W, H, 1));
    EXPECT_OK(zeKernelSetArgumentValue(k, 0, sizeof src, &src));
    EXPECT_OK(zeKernelSetArgumentValue(k, 1, sizeof dst, &dst));
    ze_command_list_handle_t l = new_list(env);
    EXPECT_OK(zeCommandListAppendImageCopyFromMemory(l, src, in, NULL, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    ze_group_count_t g = {1, 1, 1};
    EXPECT_OK(zeCommandListAppendLaunchKernel(l, k, &g, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    EXPECT_OK(zeCommandListAppendImageCopyToMemory(l, out, dst, NULL, NULL, 0, NULL));
    run_list(l);
    static const int from[4] = {2, 1, 0, 3};
    int bad = 0;
    for (int p = 0; p < W * H; p++)
        for (int c = 0; c < 4; c++) bad += out[p * 4 + c] + in[p * 4 + from[c]] != 255;
    EXPECT(bad == 0);
    EXPECT_OK(zeKernelDestroy(k));
    EXPECT_OK(zeImageDestroy(src));
    EXPECT_OK(zeImageDestroy(dst));
    EXPECT_OK(zeMemFree(env->context, in));
    EXPECT_OK(zeMemFree(env->context, out));
}

int main(int argc, char **argv) {
    argv0 = "ze_image";
    if (argc < 2) {
        fprintf(stderr, "usage: %s image_kernels.spv\n", argv[0]);
        return 2;
    }
    env_t env = {0};
    REQUIRE_OK(env_init(&env));
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC};
    REQUIRE_OK(zeCommandQueueCreate(env.context, env.device, &qd, &queue));
    ze_module_handle_t module;
    REQUIRE_OK(build_module(&env, argv[1], &module));
    test_properties(&env);
    test_create_errors(&env);
    test_copies_and_kernel(&env, module);
    test_sampler(&env, module);
    test_array_pitches(&env);
    test_swizzle(&env, module);
    EXPECT_OK(zeModuleDestroy(module));
    EXPECT_OK(zeCommandQueueDestroy(queue));
    EXPECT_OK(zeContextDestroy(env.context));
    return report(argv0);
}
