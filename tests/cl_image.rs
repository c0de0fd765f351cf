//! Images and samplers through the loader: creation of every kind (own storage, host
//! pointers with pitches, from buffers), the format list, `clGetImageInfo`, reads and
//! writes with host pitches, fills with the format's conversions, copies between images and
//! with buffers, maps, samplers, and the error codes of each entry point.
//!
//! Ferrite offers images unless `FERRITE_IMAGES=0`; every test sets `1` (once, before the
//! first OpenCL call of the process) so that an environment hiding them cannot skip these.

use ferrite_tests::*;
use std::ffi::c_void;
use std::ptr;
use std::sync::Once;

/// The usual environment, with images turned on.
fn env() -> Env {
    static IMAGES: Once = Once::new();
    IMAGES.call_once(|| {
        // Edition 2021: `set_var` is safe; it runs inside the `Once`, which every test
        // passes before its first OpenCL call, so no thread reads the environment meanwhile.
        std::env::set_var("FERRITE_IMAGES", "1");
    });
    Env::new()
}

const RGBA8: cl_image_format = cl_image_format {
    image_channel_order: CL_RGBA,
    image_channel_data_type: CL_UNORM_INT8,
};

const RGBA_F: cl_image_format = cl_image_format {
    image_channel_order: CL_RGBA,
    image_channel_data_type: CL_FLOAT,
};

fn desc(ty: cl_mem_object_type, w: usize, h: usize, d: usize, layers: usize) -> cl_image_desc {
    cl_image_desc {
        image_type: ty,
        image_width: w,
        image_height: h,
        image_depth: d,
        image_array_size: layers,
        image_row_pitch: 0,
        image_slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: ptr::null_mut(),
    }
}

fn try_image(
    ctx: &Context,
    flags: cl_mem_flags,
    format: &cl_image_format,
    d: &cl_image_desc,
    host: *mut c_void,
) -> Result<Buffer, cl_int> {
    let mut rc = 0;
    // SAFETY: valid format and descriptor; host memory (if any) covers the image.
    let m = unsafe { clCreateImage(ctx.raw(), flags, format, d, host, &mut rc) };
    if rc != CL_SUCCESS {
        assert!(m.is_null(), "failed clCreateImage returned a handle");
        return Err(rc);
    }
    Ok(Buffer(m))
}

#[track_caller]
fn image(ctx: &Context, format: &cl_image_format, d: &cl_image_desc) -> Buffer {
    try_image(ctx, CL_MEM_READ_WRITE, format, d, ptr::null_mut()).expect("clCreateImage")
}

fn image_info(img: &Buffer, param: cl_image_info) -> Result<Vec<u8>, cl_int> {
    // SAFETY: the query helper passes valid out-pointers.
    query(|size, value, ret| unsafe { clGetImageInfo(img.raw(), param, size, value, ret) })
}

fn mem_query(m: cl_mem, param: cl_mem_info) -> Vec<u8> {
    // SAFETY: the query helper passes valid out-pointers.
    query(|size, value, ret| unsafe { clGetMemObjectInfo(m, param, size, value, ret) })
        .expect("clGetMemObjectInfo")
}

/// Blocking read of `region` at `origin` with the given host pitches into `out`.
fn read(
    q: &Queue,
    img: &Buffer,
    o: [usize; 3],
    r: [usize; 3],
    rp: usize,
    sp: usize,
    out: &mut [u8],
) -> cl_int {
    // SAFETY: `out` covers the host rectangle (the callers size it).
    unsafe {
        clEnqueueReadImage(
            q.raw(),
            img.raw(),
            CL_TRUE,
            o.as_ptr(),
            r.as_ptr(),
            rp,
            sp,
            out.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    }
}

fn write(
    q: &Queue,
    img: &Buffer,
    o: [usize; 3],
    r: [usize; 3],
    rp: usize,
    sp: usize,
    data: &[u8],
) -> cl_int {
    // SAFETY: `data` covers the host rectangle (the callers size it).
    unsafe {
        clEnqueueWriteImage(
            q.raw(),
            img.raw(),
            CL_TRUE,
            o.as_ptr(),
            r.as_ptr(),
            rp,
            sp,
            data.as_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    }
}

fn supported(ctx: &Context, flags: cl_mem_flags, ty: cl_mem_object_type) -> Vec<cl_image_format> {
    let mut n = 0;
    // SAFETY: count-only query.
    check(
        unsafe { clGetSupportedImageFormats(ctx.raw(), flags, ty, 0, ptr::null_mut(), &mut n) },
        "clGetSupportedImageFormats",
    );
    let mut list = vec![
        cl_image_format {
            image_channel_order: 0,
            image_channel_data_type: 0
        };
        n as usize
    ];
    // SAFETY: `list` has n entries.
    check(
        unsafe {
            clGetSupportedImageFormats(ctx.raw(), flags, ty, n, list.as_mut_ptr(), ptr::null_mut())
        },
        "clGetSupportedImageFormats",
    );
    list
}

fn has(list: &[cl_image_format], order: cl_channel_order, ty: cl_channel_type) -> bool {
    list.iter()
        .any(|f| f.image_channel_order == order && f.image_channel_data_type == ty)
}

#[test]
fn device_reports_image_support_and_limits() {
    let _env = env();
    let support: cl_bool = device_get(CL_DEVICE_IMAGE_SUPPORT);
    assert_eq!(support, CL_TRUE);
    let w2: usize = device_get(CL_DEVICE_IMAGE2D_MAX_WIDTH);
    let h2: usize = device_get(CL_DEVICE_IMAGE2D_MAX_HEIGHT);
    let w3: usize = device_get(CL_DEVICE_IMAGE3D_MAX_WIDTH);
    let layers: usize = device_get(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE);
    let pixels: usize = device_get(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE);
    // The full profile's minimums.
    assert!(w2 >= 16384 && h2 >= 16384 && w3 >= 2048 && layers >= 2048 && pixels >= 65536);
    let reads: cl_uint = device_get(CL_DEVICE_MAX_READ_IMAGE_ARGS);
    let writes: cl_uint = device_get(CL_DEVICE_MAX_WRITE_IMAGE_ARGS);
    let samplers: cl_uint = device_get(CL_DEVICE_MAX_SAMPLERS);
    assert!(reads >= 128 && writes >= 64 && samplers >= 16);
    let pitch: cl_uint = device_get(CL_DEVICE_IMAGE_PITCH_ALIGNMENT);
    let base: cl_uint = device_get(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT);
    assert!(pitch > 0 && base > 0);
    // What the device claims agrees with what it does (test_api's consistency checks).
    let ext = device_string(CL_DEVICE_EXTENSIONS);
    for e in [
        "cl_khr_image2d_from_buffer",
        "cl_khr_3d_image_writes",
        "cl_khr_depth_images",
    ] {
        assert!(ext.split(' ').any(|x| x == e), "{e} missing from {ext}");
    }
    let d = dev();
    // SAFETY: the query helper passes valid out-pointers.
    let feats = query(|size, value, ret| unsafe {
        clGetDeviceInfo(d.device, CL_DEVICE_OPENCL_C_FEATURES, size, value, ret)
    })
    .expect("CL_DEVICE_OPENCL_C_FEATURES");
    let names: Vec<String> = feats
        .chunks(4 + CL_NAME_VERSION_MAX_NAME_SIZE)
        .map(|c| {
            let name = &c[4..];
            let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            String::from_utf8_lossy(&name[..end]).into_owned()
        })
        .collect();
    for f in [
        "__opencl_c_images",
        "__opencl_c_read_write_images",
        "__opencl_c_3d_image_writes",
    ] {
        assert!(names.iter().any(|n| n == f), "{f} missing from {names:?}");
    }
}

#[test]
fn supported_formats() {
    let env = env();
    for ty in [
        CL_MEM_OBJECT_IMAGE1D,
        CL_MEM_OBJECT_IMAGE1D_BUFFER,
        CL_MEM_OBJECT_IMAGE1D_ARRAY,
        CL_MEM_OBJECT_IMAGE2D,
        CL_MEM_OBJECT_IMAGE2D_ARRAY,
        CL_MEM_OBJECT_IMAGE3D,
    ] {
        let rw = supported(&env.ctx, CL_MEM_READ_WRITE, ty);
        let ro = supported(&env.ctx, CL_MEM_READ_ONLY, ty);
        let krw = supported(&env.ctx, CL_MEM_KERNEL_READ_AND_WRITE, ty);
        // The minimum list of OpenCL 3.0 for reading and writing.
        for order in [CL_R, CL_RG, CL_RGBA] {
            for t in [
                CL_UNORM_INT8,
                CL_UNORM_INT16,
                CL_SNORM_INT8,
                CL_SNORM_INT16,
                CL_SIGNED_INT8,
                CL_SIGNED_INT16,
                CL_SIGNED_INT32,
                CL_UNSIGNED_INT8,
                CL_UNSIGNED_INT16,
                CL_UNSIGNED_INT32,
                CL_HALF_FLOAT,
                CL_FLOAT,
            ] {
                assert!(
                    has(&rw, order, t) && has(&krw, order, t),
                    "{ty:#x} {order:#x} {t:#x}"
                );
            }
        }
        assert!(has(&rw, CL_BGRA, CL_UNORM_INT8));
        // sRGB is read-only.
        assert!(has(&ro, CL_sRGBA, CL_UNORM_INT8));
        assert!(!has(&rw, CL_sRGBA, CL_UNORM_INT8) && !has(&krw, CL_sRGBA, CL_UNORM_INT8));
        // Depth images are 2D or 2D arrays.
        let depth = has(&ro, CL_DEPTH, CL_FLOAT);
        assert_eq!(
            depth,
            ty == CL_MEM_OBJECT_IMAGE2D || ty == CL_MEM_OBJECT_IMAGE2D_ARRAY
        );
    }
    // Errors: an unknown image type, flags, num_entries 0 with a list.
    let mut n = 0;
    let mut f = RGBA8;
    // SAFETY: valid out-pointers.
    unsafe {
        expect_code(
            clGetSupportedImageFormats(
                env.ctx.raw(),
                0,
                CL_MEM_OBJECT_BUFFER,
                0,
                ptr::null_mut(),
                &mut n,
            ),
            CL_INVALID_VALUE,
            "buffer image type",
        );
        expect_code(
            clGetSupportedImageFormats(
                env.ctx.raw(),
                1 << 40,
                CL_MEM_OBJECT_IMAGE2D,
                0,
                ptr::null_mut(),
                &mut n,
            ),
            CL_INVALID_VALUE,
            "unknown flags",
        );
        expect_code(
            clGetSupportedImageFormats(env.ctx.raw(), 0, CL_MEM_OBJECT_IMAGE2D, 0, &mut f, &mut n),
            CL_INVALID_VALUE,
            "num_entries 0 with a list",
        );
        expect_code(
            clGetSupportedImageFormats(
                ptr::null_mut(),
                0,
                CL_MEM_OBJECT_IMAGE2D,
                0,
                ptr::null_mut(),
                &mut n,
            ),
            CL_INVALID_CONTEXT,
            "NULL context",
        );
    }
}

#[test]
#[expect(deprecated, reason = "the OpenCL 1.x image creators must keep working")]
fn image_info_of_every_kind() {
    let env = env();
    let cases = [
        (desc(CL_MEM_OBJECT_IMAGE1D, 7, 0, 0, 0), [7, 0, 0, 0], 0),
        (
            desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, 7, 0, 0, 3),
            [7, 0, 0, 3],
            28,
        ),
        (desc(CL_MEM_OBJECT_IMAGE2D, 7, 5, 0, 0), [7, 5, 0, 0], 0),
        (
            desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 7, 5, 0, 3),
            [7, 5, 0, 3],
            140,
        ),
        (desc(CL_MEM_OBJECT_IMAGE3D, 7, 5, 2, 0), [7, 5, 2, 0], 140),
    ];
    for (d, [w, h, depth, layers], slice) in cases {
        let img = image(&env.ctx, &RGBA8, &d);
        let f: [cl_uint; 2] = pod(&image_info(&img, CL_IMAGE_FORMAT).unwrap());
        assert_eq!(f, [CL_RGBA, CL_UNORM_INT8]);
        let get = |p| pod::<usize>(&image_info(&img, p).unwrap());
        assert_eq!(get(CL_IMAGE_ELEMENT_SIZE), 4);
        assert_eq!(get(CL_IMAGE_ROW_PITCH), 28);
        assert_eq!(get(CL_IMAGE_SLICE_PITCH), slice);
        assert_eq!(
            [
                get(CL_IMAGE_WIDTH),
                get(CL_IMAGE_HEIGHT),
                get(CL_IMAGE_DEPTH),
                get(CL_IMAGE_ARRAY_SIZE)
            ],
            [w, h, depth, layers]
        );
        let buf: cl_mem = pod(&image_info(&img, CL_IMAGE_BUFFER).unwrap());
        assert!(buf.is_null());
        let mips: cl_uint = pod(&image_info(&img, CL_IMAGE_NUM_MIP_LEVELS).unwrap());
        assert_eq!(mips, 0);
        let ty: cl_mem_object_type = pod(&mem_query(img.raw(), CL_MEM_TYPE));
        assert_eq!(ty, d.image_type);
        let size: usize = pod(&mem_query(img.raw(), CL_MEM_SIZE));
        assert!(size >= 28 * h.max(1) * depth.max(1) * layers.max(1));
    }
    let img = image(&env.ctx, &RGBA8, &desc(CL_MEM_OBJECT_IMAGE2D, 2, 2, 0, 0));
    expect_code(
        image_info(&img, 0x7777).unwrap_err(),
        CL_INVALID_VALUE,
        "unknown param",
    );
    let b = env.buffer_zeroed::<u8>(64);
    expect_code(
        image_info(&b, CL_IMAGE_WIDTH).unwrap_err(),
        CL_INVALID_MEM_OBJECT,
        "clGetImageInfo on a buffer",
    );
    // The 1.x creators (their format parameter is `*mut` in opencl-sys).
    let mut rc = 0;
    let mut f = RGBA8;
    // SAFETY: valid format, no host memory.
    let m = unsafe {
        clCreateImage2D(
            env.ctx.raw(),
            CL_MEM_READ_WRITE,
            &mut f,
            3,
            2,
            0,
            ptr::null_mut(),
            &mut rc,
        )
    };
    check(rc, "clCreateImage2D");
    let m = Buffer(m);
    assert_eq!(pod::<usize>(&image_info(&m, CL_IMAGE_HEIGHT).unwrap()), 2);
    // SAFETY: as above.
    let m3 = unsafe {
        clCreateImage3D(
            env.ctx.raw(),
            CL_MEM_READ_WRITE,
            &mut f,
            3,
            2,
            2,
            0,
            0,
            ptr::null_mut(),
            &mut rc,
        )
    };
    check(rc, "clCreateImage3D");
    drop(Buffer(m3));
    // SAFETY: as above; depth 1 is not a 3D image.
    let bad = unsafe {
        clCreateImage3D(
            env.ctx.raw(),
            CL_MEM_READ_WRITE,
            &mut f,
            3,
            2,
            1,
            0,
            0,
            ptr::null_mut(),
            &mut rc,
        )
    };
    expect_create_err(bad, rc, CL_INVALID_IMAGE_SIZE, "clCreateImage3D depth 1");
}

#[test]
fn creation_errors() {
    let env = env();
    let ctx = &env.ctx;
    let d2 = desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0);
    let e = |flags, f: &cl_image_format, d: &cl_image_desc, host: *mut c_void| {
        try_image(ctx, flags, f, d, host).err()
    };
    let fmt = |o, t| cl_image_format {
        image_channel_order: o,
        image_channel_data_type: t,
    };
    let none = ptr::null_mut();
    assert_eq!(
        e(0, &fmt(CL_RGB, CL_UNORM_INT8), &d2, none),
        Some(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    );
    assert_eq!(
        e(0, &fmt(CL_RGBA, CL_UNORM_SHORT_565), &d2, none),
        Some(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    );
    assert_eq!(
        e(0, &fmt(0x5555, CL_FLOAT), &d2, none),
        Some(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    );
    assert_eq!(
        e(0, &fmt(CL_BGRA, CL_FLOAT), &d2, none),
        Some(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    );
    let d1 = desc(CL_MEM_OBJECT_IMAGE1D, 4, 0, 0, 0);
    assert_eq!(
        e(0, &fmt(CL_DEPTH, CL_FLOAT), &d1, none),
        Some(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    );
    let mut rc = 0;
    // SAFETY: NULL format and NULL descriptor are what is tested.
    unsafe {
        let m = clCreateImage(ctx.raw(), 0, ptr::null(), &d2, none, &mut rc);
        expect_create_err(m, rc, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "NULL format");
        let m = clCreateImage(ctx.raw(), 0, &RGBA8, ptr::null(), none, &mut rc);
        expect_create_err(m, rc, CL_INVALID_IMAGE_DESCRIPTOR, "NULL descriptor");
        let m = clCreateImage(ptr::null_mut(), 0, &RGBA8, &d2, none, &mut rc);
        expect_create_err(m, rc, CL_INVALID_CONTEXT, "NULL context");
        let props: [cl_mem_properties; 3] = [0x9999, 1, 0];
        let m =
            clCreateImageWithProperties(ctx.raw(), props.as_ptr(), 0, &RGBA8, &d2, none, &mut rc);
        expect_create_err(m, rc, CL_INVALID_PROPERTY, "unknown property");
        let empty: [cl_mem_properties; 1] = [0];
        let m =
            clCreateImageWithProperties(ctx.raw(), empty.as_ptr(), 0, &RGBA8, &d2, none, &mut rc);
        check(rc, "clCreateImageWithProperties");
        let m = Buffer(m);
        let p: Vec<cl_mem_properties> = pod_vec(&mem_query(m.raw(), CL_MEM_PROPERTIES));
        assert_eq!(p, [0]);
    }
    // Descriptors.
    let mut d = d2;
    d.image_type = CL_MEM_OBJECT_BUFFER;
    assert_eq!(e(0, &RGBA8, &d, none), Some(CL_INVALID_IMAGE_DESCRIPTOR));
    let mut d = d2;
    d.num_mip_levels = 2;
    assert_eq!(e(0, &RGBA8, &d, none), Some(CL_INVALID_IMAGE_DESCRIPTOR));
    let mut d = d2;
    d.image_row_pitch = 64;
    assert_eq!(
        e(0, &RGBA8, &d, none),
        Some(CL_INVALID_IMAGE_DESCRIPTOR),
        "pitch without host memory"
    );
    let d = desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 4, 0, 0, 0);
    assert_eq!(
        e(0, &RGBA8, &d, none),
        Some(CL_INVALID_IMAGE_DESCRIPTOR),
        "1D buffer without buffer"
    );
    // Sizes.
    let max: usize = device_get(CL_DEVICE_IMAGE2D_MAX_WIDTH);
    assert_eq!(
        e(0, &RGBA8, &desc(CL_MEM_OBJECT_IMAGE2D, 0, 4, 0, 0), none),
        Some(CL_INVALID_IMAGE_SIZE)
    );
    assert_eq!(
        e(
            0,
            &RGBA8,
            &desc(CL_MEM_OBJECT_IMAGE2D, max + 1, 4, 0, 0),
            none
        ),
        Some(CL_INVALID_IMAGE_SIZE)
    );
    assert_eq!(
        e(
            0,
            &RGBA8,
            &desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 4, 0, 0),
            none
        ),
        Some(CL_INVALID_IMAGE_SIZE)
    );
    // Flags and host pointers.
    let mut host = vec![0u8; 4096];
    let hp = host.as_mut_ptr().cast::<c_void>();
    assert_eq!(
        e(CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, &RGBA8, &d2, none),
        Some(CL_INVALID_VALUE)
    );
    assert_eq!(
        e(CL_MEM_KERNEL_READ_AND_WRITE, &RGBA8, &d2, none),
        Some(CL_INVALID_VALUE)
    );
    assert_eq!(
        e(CL_MEM_USE_HOST_PTR, &RGBA8, &d2, none),
        Some(CL_INVALID_HOST_PTR)
    );
    assert_eq!(e(0, &RGBA8, &d2, hp), Some(CL_INVALID_HOST_PTR));
    let mut d = d2;
    d.image_row_pitch = 15; // Less than a row.
    assert_eq!(
        e(CL_MEM_COPY_HOST_PTR, &RGBA8, &d, hp),
        Some(CL_INVALID_IMAGE_DESCRIPTOR)
    );
    d.image_row_pitch = 18; // Not a whole number of pixels.
    assert_eq!(
        e(CL_MEM_COPY_HOST_PTR, &RGBA8, &d, hp),
        Some(CL_INVALID_IMAGE_DESCRIPTOR)
    );
    let mut d = desc(CL_MEM_OBJECT_IMAGE3D, 4, 4, 2, 0);
    d.image_row_pitch = 16;
    d.image_slice_pitch = 40; // Less than a slice.
    assert_eq!(
        e(CL_MEM_USE_HOST_PTR, &RGBA8, &d, hp),
        Some(CL_INVALID_IMAGE_DESCRIPTOR)
    );
    drop(host);
}

#[test]
fn reads_and_writes_with_host_pitches() {
    let env = env();
    let q = &env.queue;
    // A 3×2 RGBA8 image from host rows 16 bytes apart (4 bytes of padding each).
    let mut host = [0xEEu8; 32];
    for y in 0..2 {
        for x in 0..12 {
            host[y * 16 + x] = (y * 20 + x) as u8;
        }
    }
    let mut d = desc(CL_MEM_OBJECT_IMAGE2D, 3, 2, 0, 0);
    d.image_row_pitch = 16;
    let img = try_image(
        &env.ctx,
        CL_MEM_COPY_HOST_PTR,
        &RGBA8,
        &d,
        host.as_mut_ptr().cast(),
    )
    .unwrap();
    let mut out = [0u8; 24];
    check(
        read(q, &img, [0; 3], [3, 2, 1], 0, 0, &mut out),
        "clEnqueueReadImage",
    );
    let want: Vec<u8> = (0..2)
        .flat_map(|y| (0..12).map(move |x| (y * 20 + x) as u8))
        .collect();
    assert_eq!(out.to_vec(), want);
    // Write pixel (1, 1) from host memory with a pitch, read one pixel back.
    check(
        write(q, &img, [1, 1, 0], [1, 1, 1], 8, 0, &[1, 2, 3, 4]),
        "clEnqueueWriteImage",
    );
    let mut px = [0u8; 4];
    check(
        read(q, &img, [1, 1, 0], [1, 1, 1], 0, 0, &mut px),
        "read a pixel",
    );
    assert_eq!(px, [1, 2, 3, 4]);
    // A 1D array: the slice pitch is the distance between layers in host memory.
    let arr = image(
        &env.ctx,
        &RGBA8,
        &desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, 2, 0, 0, 3),
    );
    let src: Vec<u8> = (0..36).collect();
    check(
        write(q, &arr, [0, 0, 0], [2, 3, 1], 0, 12, &src),
        "write 1D array",
    );
    let mut got = [0u8; 24];
    check(
        read(q, &arr, [0, 0, 0], [2, 3, 1], 0, 0, &mut got),
        "read 1D array",
    );
    let want: Vec<u8> = (0..3)
        .flat_map(|l| (0..8).map(move |i| (l * 12 + i) as u8))
        .collect();
    assert_eq!(got.to_vec(), want);
    // A 3D region with both host pitches.
    let vol = image(&env.ctx, &RGBA8, &desc(CL_MEM_OBJECT_IMAGE3D, 4, 4, 4, 0));
    let data: Vec<u8> = (0..=255).collect();
    check(write(q, &vol, [0; 3], [4, 4, 4], 0, 0, &data), "write 3D");
    let mut sub = [0u8; 2 * 8 * 2];
    check(
        read(q, &vol, [1, 2, 3], [2, 2, 1], 8, 16, &mut sub),
        "read 3D region",
    );
    let at = |x: usize, y: usize, z: usize| &data[z * 64 + y * 16 + x * 4..][..8];
    assert_eq!(&sub[..8], at(1, 2, 3));
    assert_eq!(&sub[8..16], at(1, 3, 3));
    // Errors.
    let o = [0usize; 3];
    let mut big = vec![0u8; 4096];
    expect_code(
        read(q, &img, [2, 0, 0], [2, 1, 1], 0, 0, &mut big),
        CL_INVALID_VALUE,
        "out of bounds",
    );
    expect_code(
        read(q, &img, o, [1, 1, 2], 0, 0, &mut big),
        CL_INVALID_VALUE,
        "a 2D image has one slice",
    );
    expect_code(
        read(q, &img, o, [0, 1, 1], 0, 0, &mut big),
        CL_INVALID_VALUE,
        "zero region",
    );
    expect_code(
        read(q, &img, o, [1, 1, 1], 0, 64, &mut big),
        CL_INVALID_VALUE,
        "slice pitch of a 2D image",
    );
    expect_code(
        read(q, &img, o, [2, 1, 1], 4, 0, &mut big),
        CL_INVALID_VALUE,
        "row pitch too small",
    );
    // SAFETY: NULL pointers are what is tested.
    unsafe {
        let rc = clEnqueueReadImage(
            q.raw(),
            img.raw(),
            CL_TRUE,
            o.as_ptr(),
            [1, 1, 1].as_ptr(),
            0,
            0,
            ptr::null_mut(),
            0,
            ptr::null(),
            ptr::null_mut(),
        );
        expect_code(rc, CL_INVALID_VALUE, "NULL ptr");
        let rc = clEnqueueReadImage(
            q.raw(),
            img.raw(),
            CL_TRUE,
            ptr::null(),
            [1, 1, 1].as_ptr(),
            0,
            0,
            big.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        );
        expect_code(rc, CL_INVALID_VALUE, "NULL origin");
    }
    // Buffer commands refuse images and image commands buffers.
    let b = env.buffer_zeroed::<u8>(64);
    expect_code(
        read(q, &b, o, [1, 1, 1], 0, 0, &mut big),
        CL_INVALID_MEM_OBJECT,
        "read image of a buffer",
    );
    // SAFETY: big holds 4 bytes.
    let rc = unsafe {
        clEnqueueReadBuffer(
            q.raw(),
            img.raw(),
            CL_TRUE,
            0,
            4,
            big.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_MEM_OBJECT, "read buffer of an image");
    // Host access flags.
    let no_host = try_image(
        &env.ctx,
        CL_MEM_HOST_NO_ACCESS,
        &RGBA8,
        &desc(CL_MEM_OBJECT_IMAGE2D, 2, 2, 0, 0),
        ptr::null_mut(),
    )
    .unwrap();
    expect_code(
        read(q, &no_host, o, [1, 1, 1], 0, 0, &mut big),
        CL_INVALID_OPERATION,
        "read HOST_NO_ACCESS",
    );
    expect_code(
        write(q, &no_host, o, [1, 1, 1], 0, 0, &big),
        CL_INVALID_OPERATION,
        "write HOST_NO_ACCESS",
    );
}

fn fill(q: &Queue, img: &Buffer, color: &[u8; 16], o: [usize; 3], r: [usize; 3]) -> cl_int {
    let mut ev = ptr::null_mut();
    // SAFETY: a 16-byte colour and valid arrays.
    let rc = unsafe {
        clEnqueueFillImage(
            q.raw(),
            img.raw(),
            color.as_ptr().cast(),
            o.as_ptr(),
            r.as_ptr(),
            0,
            ptr::null(),
            &mut ev,
        )
    };
    if rc == CL_SUCCESS {
        let ev = Event(ev);
        ev.wait();
        assert_eq!(ev.command_type(), CL_COMMAND_FILL_IMAGE);
    }
    rc
}

fn floats(v: [f32; 4]) -> [u8; 16] {
    let mut b = [0u8; 16];
    for (i, f) in v.iter().enumerate() {
        b[4 * i..4 * i + 4].copy_from_slice(&f.to_ne_bytes());
    }
    b
}

#[test]
fn fills_convert_the_colour() {
    let env = env();
    let q = &env.queue;
    let d = desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0);
    // Normalised: 0.5 * 255 = 127.5 rounds to even 128; out-of-range values saturate.
    let img = image(&env.ctx, &RGBA8, &d);
    check(
        fill(
            q,
            &img,
            &floats([0.5, 2.0, -1.0, 1.0]),
            [1, 1, 0],
            [2, 2, 1],
        ),
        "fill RGBA8",
    );
    let mut all = [0u8; 64];
    check(read(q, &img, [0; 3], [4, 4, 1], 0, 0, &mut all), "read");
    for y in 0..4 {
        for x in 0..4 {
            let px = &all[(y * 4 + x) * 4..][..4];
            if (1..3).contains(&x) && (1..3).contains(&y) {
                assert_eq!(px, [128, 255, 0, 255]);
            } else {
                assert_eq!(px, [0, 0, 0, 0]);
            }
        }
    }
    // Float, BGRA order, unsigned integers, half.
    let fimg = image(&env.ctx, &RGBA_F, &d);
    check(
        fill(q, &fimg, &floats([1.5, -2.0, 0.25, 8.0]), [0; 3], [4, 4, 1]),
        "fill float",
    );
    let mut px = [0u8; 16];
    check(read(q, &fimg, [3, 3, 0], [1, 1, 1], 0, 0, &mut px), "read");
    assert_eq!(px, floats([1.5, -2.0, 0.25, 8.0]));
    let bgra = image(
        &env.ctx,
        &cl_image_format {
            image_channel_order: CL_BGRA,
            image_channel_data_type: CL_UNORM_INT8,
        },
        &d,
    );
    check(
        fill(q, &bgra, &floats([1.0, 0.0, 0.2, 0.0]), [0; 3], [1, 1, 1]),
        "fill BGRA",
    );
    let mut p4 = [0u8; 4];
    check(read(q, &bgra, [0; 3], [1, 1, 1], 0, 0, &mut p4), "read");
    assert_eq!(p4, [51, 0, 255, 0]);
    let u16img = image(
        &env.ctx,
        &cl_image_format {
            image_channel_order: CL_RG,
            image_channel_data_type: CL_UNSIGNED_INT16,
        },
        &d,
    );
    let mut c = [0u8; 16];
    c[..4].copy_from_slice(&70000u32.to_ne_bytes());
    c[4..8].copy_from_slice(&7u32.to_ne_bytes());
    check(fill(q, &u16img, &c, [0; 3], [1, 1, 1]), "fill uint");
    check(read(q, &u16img, [0; 3], [1, 1, 1], 0, 0, &mut p4), "read");
    assert_eq!(p4, [0xff, 0xff, 7, 0]);
    let half = image(
        &env.ctx,
        &cl_image_format {
            image_channel_order: CL_R,
            image_channel_data_type: CL_HALF_FLOAT,
        },
        &d,
    );
    check(
        fill(q, &half, &floats([1.0, 0.0, 0.0, 0.0]), [0; 3], [1, 1, 1]),
        "fill half",
    );
    let mut p2 = [0u8; 2];
    check(read(q, &half, [0; 3], [1, 1, 1], 0, 0, &mut p2), "read");
    assert_eq!(u16::from_ne_bytes(p2), 0x3c00);
    // Errors.
    expect_code(
        fill(q, &img, &floats([0.0; 4]), [3, 0, 0], [2, 1, 1]),
        CL_INVALID_VALUE,
        "out of bounds",
    );
    // SAFETY: NULL colour is what is tested.
    let rc = unsafe {
        clEnqueueFillImage(
            q.raw(),
            img.raw(),
            ptr::null(),
            [0usize; 3].as_ptr(),
            [1usize, 1, 1].as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "NULL colour");
}

/// Fills, writes and reads of rectangles over 4 MiB (which the runtime splits over its
/// workers) touch every pixel of the rectangle and no other: a sub-rectangle of a
/// 1100×1000 RGBA8 image filled, then written from and read back to host memory with
/// pitches of its own.
#[test]
fn large_rectangles_fill_write_and_read_exactly() {
    let env = env();
    let q = &env.queue;
    let (w, h) = (1100usize, 1000usize);
    let img = image(&env.ctx, &RGBA8, &desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0));
    let (o, r) = ([3usize, 2, 0], [w - 5, h - 3, 1]);
    check(fill(q, &img, &floats([1.0, 0.0, 0.2, 0.0]), o, r), "fill");
    let mut all = vec![0u8; w * h * 4];
    check(read(q, &img, [0; 3], [w, h, 1], 0, 0, &mut all), "read");
    for y in 0..h {
        for x in 0..w {
            let inside = (3..w - 2).contains(&x) && (2..h - 1).contains(&y);
            let want: [u8; 4] = if inside { [255, 0, 51, 0] } else { [0; 4] };
            assert_eq!(all[(y * w + x) * 4..][..4], want, "fill at ({x}, {y})");
        }
    }
    // The rectangle written from rows 4 KiB + 12 bytes apart, read back 4 KiB + 4 apart.
    let (wp, rp) = (r[0] * 4 + 12, r[0] * 4 + 4);
    let src: Vec<u8> = (0..wp * r[1]).map(|i| (i * 131 % 251) as u8).collect();
    check(write(q, &img, o, r, wp, 0, &src), "write");
    let mut back = vec![0xEEu8; rp * r[1]];
    check(read(q, &img, o, r, rp, 0, &mut back), "read back");
    for y in 0..r[1] {
        assert_eq!(
            back[y * rp..][..r[0] * 4],
            src[y * wp..][..r[0] * 4],
            "row {y}"
        );
        assert_eq!(back[y * rp + r[0] * 4..][..4], [0xEE; 4], "past row {y}");
    }
    // A row longer than the runtime copies from a prepared one (64 KiB): a 1D image of
    // float pixels.
    let w = 5_000;
    let img = image(&env.ctx, &RGBA_F, &desc(CL_MEM_OBJECT_IMAGE1D, w, 0, 0, 0));
    let color = floats([1.5, -2.0, 0.25, 8.0]);
    check(fill(q, &img, &color, [1, 0, 0], [w - 2, 1, 1]), "fill 1D");
    let mut all = vec![0u8; w * 16];
    check(read(q, &img, [0; 3], [w, 1, 1], 0, 0, &mut all), "read 1D");
    for x in 0..w {
        let want = if (1..w - 1).contains(&x) {
            color
        } else {
            [0; 16]
        };
        assert_eq!(all[x * 16..][..16], want, "1D fill at {x}");
    }
}

#[test]
fn copies_between_images_and_buffers() {
    let env = env();
    let q = &env.queue;
    let data: Vec<u8> = (0..64).collect();
    let src = image(&env.ctx, &RGBA8, &desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0));
    check(write(q, &src, [0; 3], [4, 4, 1], 0, 0, &data), "write");
    // 2D → layer 1 of a 2D array.
    let arr = image(
        &env.ctx,
        &RGBA8,
        &desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 4, 0, 2),
    );
    // SAFETY: valid arrays.
    let rc = unsafe {
        clEnqueueCopyImage(
            q.raw(),
            src.raw(),
            arr.raw(),
            [1usize, 1, 0].as_ptr(),
            [0usize, 0, 1].as_ptr(),
            [2usize, 2, 1].as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(rc, "clEnqueueCopyImage");
    let mut out = [0u8; 16];
    check(read(q, &arr, [0, 0, 1], [2, 2, 1], 0, 0, &mut out), "read");
    assert_eq!(
        out,
        [20, 21, 22, 23, 24, 25, 26, 27, 36, 37, 38, 39, 40, 41, 42, 43]
    );
    // Image → buffer at an offset, buffer → image.
    let buf = env.buffer_zeroed::<u8>(64);
    // SAFETY: valid arrays.
    let rc = unsafe {
        clEnqueueCopyImageToBuffer(
            q.raw(),
            src.raw(),
            buf.raw(),
            [0usize, 2, 0].as_ptr(),
            [4usize, 2, 1].as_ptr(),
            8,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(rc, "clEnqueueCopyImageToBuffer");
    let b: Vec<u8> = buf.read(q, 64);
    assert_eq!(&b[8..40], &data[32..64]);
    assert!(b[..8].iter().all(|&x| x == 0));
    let dst = image(&env.ctx, &RGBA8, &desc(CL_MEM_OBJECT_IMAGE1D, 8, 0, 0, 0));
    // SAFETY: valid arrays.
    let rc = unsafe {
        clEnqueueCopyBufferToImage(
            q.raw(),
            buf.raw(),
            dst.raw(),
            8,
            [4usize, 0, 0].as_ptr(),
            [4usize, 1, 1].as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(rc, "clEnqueueCopyBufferToImage");
    let mut row = [0u8; 16];
    check(read(q, &dst, [4, 0, 0], [4, 1, 1], 0, 0, &mut row), "read");
    assert_eq!(&row, &data[32..48]);
    // Errors: formats differ, overlap, bounds, a buffer too small, wrong objects.
    let fimg = image(&env.ctx, &RGBA_F, &desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0));
    let o = [0usize; 3];
    // SAFETY: valid arrays throughout.
    unsafe {
        let rc = clEnqueueCopyImage(
            q.raw(),
            src.raw(),
            fimg.raw(),
            o.as_ptr(),
            o.as_ptr(),
            [1usize, 1, 1].as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut(),
        );
        expect_code(rc, CL_IMAGE_FORMAT_MISMATCH, "formats differ");
        let rc = clEnqueueCopyImage(
            q.raw(),
            src.raw(),
            src.raw(),
            o.as_ptr(),
            [1usize, 1, 0].as_ptr(),
            [2usize, 2, 1].as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut(),
        );
        expect_code(rc, CL_MEM_COPY_OVERLAP, "overlapping self copy");
        let rc = clEnqueueCopyImage(
            q.raw(),
            src.raw(),
            src.raw(),
            o.as_ptr(),
            [2usize, 2, 0].as_ptr(),
            [2usize, 2, 1].as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut(),
        );
        check(rc, "disjoint self copy");
        let rc = clEnqueueCopyImage(
            q.raw(),
            src.raw(),
            arr.raw(),
            o.as_ptr(),
            [0usize, 0, 2].as_ptr(),
            [1usize, 1, 1].as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut(),
        );
        expect_code(rc, CL_INVALID_VALUE, "layer out of bounds");
        let rc = clEnqueueCopyImageToBuffer(
            q.raw(),
            src.raw(),
            buf.raw(),
            o.as_ptr(),
            [4usize, 4, 1].as_ptr(),
            8,
            0,
            ptr::null(),
            ptr::null_mut(),
        );
        expect_code(rc, CL_INVALID_VALUE, "buffer too small");
        let rc = clEnqueueCopyImageToBuffer(
            q.raw(),
            src.raw(),
            arr.raw(),
            o.as_ptr(),
            [1usize, 1, 1].as_ptr(),
            0,
            0,
            ptr::null(),
            ptr::null_mut(),
        );
        expect_code(rc, CL_INVALID_MEM_OBJECT, "an image as the buffer");
        let rc = clEnqueueCopyBufferToImage(
            q.raw(),
            buf.raw(),
            buf.raw(),
            0,
            o.as_ptr(),
            [1usize, 1, 1].as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut(),
        );
        expect_code(rc, CL_INVALID_MEM_OBJECT, "a buffer as the image");
    }
    q.finish();
}

#[test]
fn maps_are_zero_copy_with_the_image_pitches() {
    let env = env();
    let q = &env.queue;
    let vol = image(&env.ctx, &RGBA8, &desc(CL_MEM_OBJECT_IMAGE3D, 4, 3, 2, 0));
    let (mut rp, mut sp) = (0usize, 0usize);
    let mut rc = 0;
    // SAFETY: valid arrays and out-pointers.
    let p = unsafe {
        clEnqueueMapImage(
            q.raw(),
            vol.raw(),
            CL_TRUE,
            CL_MAP_WRITE,
            [1usize, 1, 1].as_ptr(),
            [2usize, 2, 1].as_ptr(),
            &mut rp,
            &mut sp,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut rc,
        )
    };
    check(rc, "clEnqueueMapImage");
    assert_eq!((rp, sp), (16, 48));
    // Write pixel (1, 1, 1) and (2, 2, 1) through the map.
    // SAFETY: the mapped region covers 2×2 pixels with these pitches.
    unsafe {
        ptr::copy_nonoverlapping([9u8, 8, 7, 6].as_ptr(), p.cast::<u8>(), 4);
        ptr::copy_nonoverlapping([1u8, 2, 3, 4].as_ptr(), p.cast::<u8>().add(rp + 4), 4);
    }
    let count: cl_uint = pod(&mem_query(vol.raw(), CL_MEM_MAP_COUNT));
    assert_eq!(count, 1);
    // SAFETY: p was returned by the map.
    check(
        unsafe { clEnqueueUnmapMemObject(q.raw(), vol.raw(), p, 0, ptr::null(), ptr::null_mut()) },
        "unmap",
    );
    q.finish();
    let mut px = [0u8; 4];
    check(read(q, &vol, [1, 1, 1], [1, 1, 1], 0, 0, &mut px), "read");
    assert_eq!(px, [9, 8, 7, 6]);
    check(read(q, &vol, [2, 2, 1], [1, 1, 1], 0, 0, &mut px), "read");
    assert_eq!(px, [1, 2, 3, 4]);
    // Errors.
    // SAFETY: NULL pitches and a bad region are what is tested.
    unsafe {
        let m = clEnqueueMapImage(
            q.raw(),
            vol.raw(),
            CL_TRUE,
            CL_MAP_READ,
            [0usize; 3].as_ptr(),
            [1usize, 1, 1].as_ptr(),
            ptr::null_mut(),
            &mut sp,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut rc,
        );
        expect_create_err(m, rc, CL_INVALID_VALUE, "NULL row pitch");
        let m = clEnqueueMapImage(
            q.raw(),
            vol.raw(),
            CL_TRUE,
            CL_MAP_READ,
            [0usize; 3].as_ptr(),
            [1usize, 1, 1].as_ptr(),
            &mut rp,
            ptr::null_mut(),
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut rc,
        );
        expect_create_err(m, rc, CL_INVALID_VALUE, "NULL slice pitch of a 3D image");
        let m = clEnqueueMapImage(
            q.raw(),
            vol.raw(),
            CL_TRUE,
            CL_MAP_READ,
            [0usize, 0, 1].as_ptr(),
            [1usize, 1, 2].as_ptr(),
            &mut rp,
            &mut sp,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut rc,
        );
        expect_create_err(m, rc, CL_INVALID_VALUE, "region out of bounds");
        let ro = try_image(
            &env.ctx,
            CL_MEM_HOST_READ_ONLY,
            &RGBA8,
            &desc(CL_MEM_OBJECT_IMAGE2D, 2, 2, 0, 0),
            ptr::null_mut(),
        )
        .unwrap();
        let m = clEnqueueMapImage(
            q.raw(),
            ro.raw(),
            CL_TRUE,
            CL_MAP_WRITE,
            [0usize; 3].as_ptr(),
            [1usize, 1, 1].as_ptr(),
            &mut rp,
            ptr::null_mut(),
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut rc,
        );
        expect_create_err(
            m,
            rc,
            CL_INVALID_OPERATION,
            "map for writing a HOST_READ_ONLY image",
        );
        // A 2D image may leave the slice pitch NULL; a pointer gets 0.
        let m = clEnqueueMapImage(
            q.raw(),
            ro.raw(),
            CL_TRUE,
            CL_MAP_READ,
            [0usize; 3].as_ptr(),
            [1usize, 1, 1].as_ptr(),
            &mut rp,
            &mut sp,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut rc,
        );
        check(rc, "map a 2D image");
        assert_eq!((rp, sp), (8, 0));
        check(
            clEnqueueUnmapMemObject(q.raw(), ro.raw(), m, 0, ptr::null(), ptr::null_mut()),
            "unmap",
        );
        q.finish();
    }
}

#[test]
fn images_made_from_buffers_share_their_memory() {
    let env = env();
    let q = &env.queue;
    let data: Vec<u8> = (0..128).collect();
    let buf = env.buffer_from(&data);
    // A 1D image buffer of 32 RGBA8 pixels.
    let mut d = desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 32, 0, 0, 0);
    d.buffer = buf.raw();
    let img1 = image(&env.ctx, &RGBA8, &d);
    let mut px = [0u8; 4];
    check(
        read(q, &img1, [5, 0, 0], [1, 1, 1], 0, 0, &mut px),
        "read 1D buffer image",
    );
    assert_eq!(px, [20, 21, 22, 23]);
    let assoc: cl_mem = pod(&mem_query(img1.raw(), CL_MEM_ASSOCIATED_MEMOBJECT));
    assert_eq!(assoc, buf.raw());
    let b: cl_mem = pod(&image_info(&img1, CL_IMAGE_BUFFER).unwrap());
    assert_eq!(b, buf.raw());
    // A 2D image over the same buffer with rows 32 bytes apart; a write shows in the buffer.
    let mut d = desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0);
    d.buffer = buf.raw();
    d.image_row_pitch = 32;
    let img2 = image(&env.ctx, &RGBA8, &d);
    check(
        write(q, &img2, [1, 2, 0], [1, 1, 1], 0, 0, &[0xAB; 4]),
        "write",
    );
    let all: Vec<u8> = buf.read(q, 128);
    assert_eq!(&all[68..72], &[0xAB; 4]);
    assert_eq!(
        pod::<usize>(&image_info(&img2, CL_IMAGE_ROW_PITCH).unwrap()),
        32
    );
    // Errors: too big for the buffer, a host pointer, conflicting flags.
    let mut d = desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 33, 0, 0, 0);
    d.buffer = buf.raw();
    assert_eq!(
        try_image(&env.ctx, 0, &RGBA8, &d, ptr::null_mut()).err(),
        Some(CL_INVALID_IMAGE_SIZE)
    );
    d.image_width = 4;
    let mut host = [0u8; 16];
    assert_eq!(
        try_image(&env.ctx, 0, &RGBA8, &d, host.as_mut_ptr().cast()).err(),
        Some(CL_INVALID_HOST_PTR)
    );
    assert_eq!(
        try_image(&env.ctx, CL_MEM_COPY_HOST_PTR, &RGBA8, &d, ptr::null_mut()).err(),
        Some(CL_INVALID_VALUE)
    );
    let ro = Buffer::new(&env.ctx, CL_MEM_READ_ONLY, 64);
    d.buffer = ro.raw();
    assert_eq!(
        try_image(&env.ctx, CL_MEM_WRITE_ONLY, &RGBA8, &d, ptr::null_mut()).err(),
        Some(CL_INVALID_VALUE)
    );
    // An image is not a buffer to make an image from.
    d.buffer = img2.raw();
    assert_eq!(
        try_image(&env.ctx, 0, &RGBA8, &d, ptr::null_mut()).err(),
        Some(CL_INVALID_IMAGE_DESCRIPTOR)
    );
    // The buffer lives as long as its images.
    drop(buf);
    check(
        read(q, &img1, [5, 0, 0], [1, 1, 1], 0, 0, &mut px),
        "read after the buffer's release",
    );
    assert_eq!(px, [20, 21, 22, 23]);
}

#[test]
fn use_host_ptr_images_are_zero_copy() {
    let env = env();
    let q = &env.queue;
    let mut host = vec![0u8; 2 * 40];
    let mut d = desc(CL_MEM_OBJECT_IMAGE2D, 8, 2, 0, 0);
    d.image_row_pitch = 40;
    let img = try_image(
        &env.ctx,
        CL_MEM_USE_HOST_PTR,
        &RGBA8,
        &d,
        host.as_mut_ptr().cast(),
    )
    .unwrap();
    check(
        fill(q, &img, &floats([1.0, 1.0, 1.0, 1.0]), [7, 1, 0], [1, 1, 1]),
        "fill",
    );
    let hp: *mut c_void = pod(&mem_query(img.raw(), CL_MEM_HOST_PTR));
    assert_eq!(hp, host.as_mut_ptr().cast());
    drop(img);
    assert_eq!(&host[40 + 28..40 + 32], &[255; 4]);
    assert!(host[..68].iter().all(|&b| b == 0));
}

fn sampler_info(s: cl_sampler, param: cl_sampler_info) -> Result<Vec<u8>, cl_int> {
    // SAFETY: the query helper passes valid out-pointers.
    query(|size, value, ret| unsafe { clGetSamplerInfo(s, param, size, value, ret) })
}

#[test]
#[expect(deprecated, reason = "clCreateSampler (OpenCL 1.x) must keep working")]
fn samplers() {
    let env = env();
    let mut rc = 0;
    // SAFETY: a valid context.
    let s = unsafe {
        clCreateSampler(
            env.ctx.raw(),
            CL_TRUE,
            CL_ADDRESS_REPEAT,
            CL_FILTER_LINEAR,
            &mut rc,
        )
    };
    check(rc, "clCreateSampler");
    let get = |s, p| pod::<cl_uint>(&sampler_info(s, p).unwrap());
    assert_eq!(get(s, CL_SAMPLER_NORMALIZED_COORDS), CL_TRUE);
    assert_eq!(get(s, CL_SAMPLER_ADDRESSING_MODE), CL_ADDRESS_REPEAT);
    assert_eq!(get(s, CL_SAMPLER_FILTER_MODE), CL_FILTER_LINEAR);
    assert_eq!(get(s, CL_SAMPLER_REFERENCE_COUNT), 1);
    let ctx: cl_context = pod(&sampler_info(s, CL_SAMPLER_CONTEXT).unwrap());
    assert_eq!(ctx, env.ctx.raw());
    assert!(sampler_info(s, CL_SAMPLER_PROPERTIES).unwrap().is_empty());
    // SAFETY: s is a live sampler.
    unsafe {
        check(clRetainSampler(s), "retain");
        assert_eq!(get(s, CL_SAMPLER_REFERENCE_COUNT), 2);
        check(clReleaseSampler(s), "release");
        check(clReleaseSampler(s), "release");
    }
    // With properties: the defaults fill what is not given.
    let props: [cl_sampler_properties; 3] =
        [CL_SAMPLER_FILTER_MODE as u64, CL_FILTER_LINEAR as u64, 0];
    // SAFETY: a zero-terminated list.
    let s = unsafe { clCreateSamplerWithProperties(env.ctx.raw(), props.as_ptr(), &mut rc) };
    check(rc, "clCreateSamplerWithProperties");
    assert_eq!(get(s, CL_SAMPLER_NORMALIZED_COORDS), CL_TRUE);
    assert_eq!(get(s, CL_SAMPLER_ADDRESSING_MODE), CL_ADDRESS_CLAMP);
    assert_eq!(get(s, CL_SAMPLER_FILTER_MODE), CL_FILTER_LINEAR);
    let p: Vec<cl_sampler_properties> = pod_vec(&sampler_info(s, CL_SAMPLER_PROPERTIES).unwrap());
    assert_eq!(p, props);
    expect_code(
        sampler_info(s, 0x7777).unwrap_err(),
        CL_INVALID_VALUE,
        "unknown param",
    );
    // SAFETY: s is live.
    check(unsafe { clReleaseSampler(s) }, "release");
    // Errors.
    // SAFETY: bad values and handles are what is tested.
    unsafe {
        let s = clCreateSampler(env.ctx.raw(), CL_TRUE, 0x9999, CL_FILTER_LINEAR, &mut rc);
        expect_create_err(s, rc, CL_INVALID_VALUE, "bad addressing mode");
        let s = clCreateSampler(env.ctx.raw(), CL_TRUE, CL_ADDRESS_CLAMP, 0x9999, &mut rc);
        expect_create_err(s, rc, CL_INVALID_VALUE, "bad filter mode");
        let s = clCreateSampler(
            env.ctx.raw(),
            7,
            CL_ADDRESS_CLAMP,
            CL_FILTER_LINEAR,
            &mut rc,
        );
        expect_create_err(s, rc, CL_INVALID_VALUE, "bad normalized_coords");
        let s = clCreateSampler(
            ptr::null_mut(),
            CL_TRUE,
            CL_ADDRESS_CLAMP,
            CL_FILTER_LINEAR,
            &mut rc,
        );
        expect_create_err(s, rc, CL_INVALID_CONTEXT, "NULL context");
        let twice: [cl_sampler_properties; 5] = [
            CL_SAMPLER_FILTER_MODE as u64,
            CL_FILTER_LINEAR as u64,
            CL_SAMPLER_FILTER_MODE as u64,
            CL_FILTER_NEAREST as u64,
            0,
        ];
        let s = clCreateSamplerWithProperties(env.ctx.raw(), twice.as_ptr(), &mut rc);
        expect_create_err(s, rc, CL_INVALID_VALUE, "a property twice");
        let unknown: [cl_sampler_properties; 3] = [0x7777, 1, 0];
        let s = clCreateSamplerWithProperties(env.ctx.raw(), unknown.as_ptr(), &mut rc);
        expect_create_err(s, rc, CL_INVALID_VALUE, "unknown property");
        let q: cl_sampler = wrong_handle(env.queue.raw());
        expect_code(
            sampler_info(q, CL_SAMPLER_CONTEXT).unwrap_err(),
            CL_INVALID_SAMPLER,
            "a queue as sampler",
        );
        expect_code(
            clRetainSampler(ptr::null_mut()),
            CL_INVALID_SAMPLER,
            "retain NULL",
        );
    }
}

fn sampler(
    ctx: &Context,
    normalized: bool,
    addressing: cl_addressing_mode,
    filter: cl_filter_mode,
) -> cl_sampler {
    let props: [cl_sampler_properties; 7] = [
        CL_SAMPLER_NORMALIZED_COORDS as u64,
        u64::from(normalized),
        CL_SAMPLER_ADDRESSING_MODE as u64,
        u64::from(addressing),
        CL_SAMPLER_FILTER_MODE as u64,
        u64::from(filter),
        0,
    ];
    let mut rc = 0;
    // SAFETY: a zero-terminated list.
    let s = unsafe { clCreateSamplerWithProperties(ctx.raw(), props.as_ptr(), &mut rc) };
    check(rc, "clCreateSamplerWithProperties");
    s
}

const KERNELS: &str = r#"
__constant sampler_t edge_nearest =
    CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

kernel void copy(read_only image2d_t src, write_only image2d_t dst) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    float4 v = read_imagef(src, p);
    write_imagef(dst, p, (float4)(v.x, v.y * 0.5f, 1.0f - v.z, v.w));
}

kernel void sample(read_only image2d_t src, sampler_t s, global float2 *coords,
                   global float4 *out) {
    int i = get_global_id(0);
    out[i] = read_imagef(src, s, coords[i]);
}

kernel void constant_sampler(read_only image2d_t src, global float4 *out) {
    int i = get_global_id(0);
    out[i] = read_imagef(src, edge_nearest, (int2)(i - 1, 0));
}

kernel void queries(read_only image3d_t a, write_only image2d_array_t b, global int *out) {
    out[0] = get_image_width(a);
    out[1] = get_image_height(a);
    out[2] = get_image_depth(a);
    out[3] = get_image_channel_data_type(a);
    out[4] = get_image_channel_order(a);
    out[5] = (int)get_image_array_size(b);
    int2 d = get_image_dim(b);
    out[6] = d.x;
    out[7] = d.y;
}

kernel void bump(read_write image3d_t im) {
    int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);
    uint4 v = read_imageui(im, p);
    write_imageui(im, p, v + (uint4)(1, 2, 3, 4));
}
"#;

fn set_mem(k: &Kernel, i: cl_uint, m: cl_mem) {
    check(
        k.set_arg_raw(
            i,
            std::mem::size_of::<cl_mem>(),
            (&m as *const cl_mem).cast(),
        ),
        "clSetKernelArg",
    );
}

#[test]
fn kernels_read_and_write_images() {
    let env = env();
    let q = &env.queue;
    let p = env.build(KERNELS, "-cl-std=CL3.0");
    // copy: samplerless read, conversion, write.
    let d = desc(CL_MEM_OBJECT_IMAGE2D, 5, 3, 0, 0);
    let src = image(&env.ctx, &RGBA8, &d);
    let dst = image(&env.ctx, &RGBA8, &d);
    let data: Vec<u8> = (0..60).map(|i| (i * 4) as u8).collect();
    check(write(q, &src, [0; 3], [5, 3, 1], 0, 0, &data), "write");
    let k = p.kernel("copy");
    set_mem(&k, 0, src.raw());
    set_mem(&k, 1, dst.raw());
    run_2d(q, &k, None, [5, 3], None);
    let mut out = [0u8; 60];
    check(read(q, &dst, [0; 3], [5, 3, 1], 0, 0, &mut out), "read");
    for (i, px) in data.chunks(4).enumerate() {
        let g = (f32::from(px[1]) / 255.0 * 0.5 * 255.0).round_ties_even() as u8;
        assert_eq!(
            &out[i * 4..i * 4 + 4],
            &[px[0], g, 255 - px[2], px[3]],
            "pixel {i}"
        );
    }
    // A buffer where an image belongs, and a NULL image.
    let b = env.buffer_zeroed::<u8>(16);
    let m = b.raw();
    expect_code(
        k.set_arg_raw(0, 8, (&m as *const cl_mem).cast()),
        CL_INVALID_MEM_OBJECT,
        "buffer as image",
    );
    expect_code(
        k.set_arg_raw(0, 8, ptr::null()),
        CL_INVALID_ARG_VALUE,
        "NULL image",
    );
    // Access: a CL_MEM_READ_ONLY image cannot be a write_only argument.
    let ro = try_image(&env.ctx, CL_MEM_READ_ONLY, &RGBA8, &d, ptr::null_mut()).unwrap();
    let m = ro.raw();
    expect_code(
        k.set_arg_raw(1, 8, (&m as *const cl_mem).cast()),
        CL_INVALID_ARG_VALUE,
        "read-only image as write_only argument",
    );
    check(
        k.set_arg_raw(0, 8, (&m as *const cl_mem).cast()),
        "read-only image as read_only argument",
    );
    // The access qualifiers (arg info needs -cl-kernel-arg-info).
    let pi = env.build(KERNELS, "-cl-std=CL3.0 -cl-kernel-arg-info");
    let access = |name: &str, i: cl_uint| -> cl_kernel_arg_access_qualifier {
        let k = pi.kernel(name);
        // SAFETY: the query helper passes valid out-pointers.
        pod(&query(|size, value, ret| unsafe {
            clGetKernelArgInfo(k.raw(), i, CL_KERNEL_ARG_ACCESS_QUALIFIER, size, value, ret)
        })
        .unwrap())
    };
    assert_eq!(access("copy", 0), CL_KERNEL_ARG_ACCESS_READ_ONLY);
    assert_eq!(access("copy", 1), CL_KERNEL_ARG_ACCESS_WRITE_ONLY);
    assert_eq!(access("bump", 0), CL_KERNEL_ARG_ACCESS_READ_WRITE);
    assert_eq!(access("sample", 1), CL_KERNEL_ARG_ACCESS_NONE);

    // read_write 3D image.
    let vol = image(
        &env.ctx,
        &cl_image_format {
            image_channel_order: CL_RGBA,
            image_channel_data_type: CL_UNSIGNED_INT16,
        },
        &desc(CL_MEM_OBJECT_IMAGE3D, 2, 2, 2, 0),
    );
    let start: Vec<u8> = (0..64).collect();
    check(write(q, &vol, [0; 3], [2, 2, 2], 0, 0, &start), "write 3D");
    let k = p.kernel("bump");
    set_mem(&k, 0, vol.raw());
    run_nd(q, &k, None, &[2, 2, 2], None);
    let mut got = [0u8; 64];
    check(read(q, &vol, [0; 3], [2, 2, 2], 0, 0, &mut got), "read 3D");
    for (i, (a, b)) in start.chunks(2).zip(got.chunks(2)).enumerate() {
        let before = u16::from_ne_bytes([a[0], a[1]]);
        let after = u16::from_ne_bytes([b[0], b[1]]);
        assert_eq!(after, before + (i % 4) as u16 + 1, "channel {i}");
    }

    // Queries.
    let arr = image(
        &env.ctx,
        &RGBA_F,
        &desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 6, 5, 0, 4),
    );
    let vol2 = image(&env.ctx, &RGBA8, &desc(CL_MEM_OBJECT_IMAGE3D, 7, 3, 2, 0));
    let outb = env.buffer_zeroed::<i32>(8);
    let k = p.kernel("queries");
    set_mem(&k, 0, vol2.raw());
    set_mem(&k, 1, arr.raw());
    k.buf(2, &outb);
    run_1d(q, &k, 1, None);
    let v: Vec<i32> = outb.read(q, 8);
    assert_eq!(v, [7, 3, 2, CL_UNORM_INT8 as i32, CL_RGBA as i32, 4, 6, 5]);
}

#[test]
fn kernels_sample_images() {
    let env = env();
    let q = &env.queue;
    let p = env.build(KERNELS, "-cl-std=CL3.0");
    // A 4×2 float image: red = x + 10 y, alpha 1.
    let mut px = Vec::new();
    for y in 0..2 {
        for x in 0..4 {
            px.extend_from_slice(&floats([(x + 10 * y) as f32, 0.0, 0.0, 1.0]));
        }
    }
    let img = image(&env.ctx, &RGBA_F, &desc(CL_MEM_OBJECT_IMAGE2D, 4, 2, 0, 0));
    check(write(q, &img, [0; 3], [4, 2, 1], 0, 0, &px), "write");
    let run = |s: cl_sampler, coords: &[[f32; 2]]| -> Vec<[f32; 4]> {
        let c = env.buffer_from(coords);
        let out = env.buffer_zeroed::<[f32; 4]>(coords.len());
        let k = p.kernel("sample");
        set_mem(&k, 0, img.raw());
        check(
            k.set_arg_raw(
                1,
                std::mem::size_of::<cl_sampler>(),
                (&s as *const cl_sampler).cast(),
            ),
            "sampler arg",
        );
        k.buf(2, &c).buf(3, &out);
        run_1d(q, &k, coords.len(), None);
        // SAFETY: s is a live sampler.
        check(unsafe { clReleaseSampler(s) }, "release");
        out.read(q, coords.len())
    };
    // Nearest, unnormalised, clamp to edge.
    let r = run(
        sampler(&env.ctx, false, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST),
        &[[2.7, 1.2], [-3.0, 9.0], [0.5, 0.5]],
    );
    assert_eq!([r[0][0], r[1][0], r[2][0]], [12.0, 10.0, 0.0]);
    // Linear, unnormalised: halfway between pixels 1 and 2, and 3/4 down to the next row.
    let r = run(
        sampler(&env.ctx, false, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR),
        &[[2.0, 0.5], [1.5, 1.25]],
    );
    assert_eq!(r[0][0], 1.5);
    assert!((r[1][0] - 8.5).abs() < 1e-5, "{}", r[1][0]);
    // Normalised with repeat, and clamp's transparent border.
    let r = run(
        sampler(&env.ctx, true, CL_ADDRESS_REPEAT, CL_FILTER_NEAREST),
        &[[1.3, 0.25], [0.6, 0.75]],
    );
    assert_eq!([r[0][0], r[1][0]], [1.0, 12.0]);
    let r = run(
        sampler(&env.ctx, false, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST),
        &[[4.5, 0.5]],
    );
    assert_eq!(r[0], [0.0; 4]);
    // The program's constant sampler (clamp to edge, integer coordinates -1, 0, 1, …).
    let out = env.buffer_zeroed::<[f32; 4]>(6);
    let k = p.kernel("constant_sampler");
    set_mem(&k, 0, img.raw());
    k.buf(1, &out);
    run_1d(q, &k, 6, None);
    let r: Vec<[f32; 4]> = out.read(q, 6);
    let reds: Vec<f32> = r.iter().map(|c| c[0]).collect();
    assert_eq!(reds, [0.0, 0.0, 1.0, 2.0, 3.0, 3.0]);
    // A sampler argument that is not a sampler.
    let k = p.kernel("sample");
    let not = env.queue.raw();
    expect_code(
        k.set_arg_raw(
            1,
            std::mem::size_of::<cl_sampler>(),
            (&not as *const cl_command_queue).cast(),
        ),
        CL_INVALID_SAMPLER,
        "a queue as sampler",
    );
    expect_code(
        k.set_arg_raw(1, std::mem::size_of::<cl_sampler>(), ptr::null()),
        CL_INVALID_SAMPLER,
        "NULL sampler",
    );
}

/// Rows wider than a vector of work-items, so that the vectorised loop runs (the small
/// images above stay in the scalar rest of a row): sampled and samplerless reads at
/// varying coordinates, writes under a divergent branch (only the active lanes write),
/// a read_write 3D image, and halves rounded lane by lane.
#[test]
fn kernels_on_wide_images_run_vectorised() {
    let env = env();
    let q = &env.queue;
    let p = env.build(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void stripes(read_only image2d_t src, sampler_t s, write_only image2d_t dst) {
    int x = get_global_id(0), y = get_global_id(1);
    float4 v = read_imagef(src, s, (float2)(x, y) + 0.5f);
    if ((x ^ y) & 1)
        write_imagef(dst, (int2)(x, y), v * 2.0f);
    else if (x % 5 == 0)
        write_imagef(dst, (int2)(x, y), read_imagef(src, (int2)(x, 0)));
}
kernel void bump(read_write image3d_t im) {
    int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);
    uint4 v = read_imageui(im, p);
    write_imageui(im, p, v + (uint4)(1, 2, 3, 4));
}
kernel void halves(read_only image2d_t src, global half4 *out) {
    int x = get_global_id(0);
    out[x] = read_imageh(src, (int2)(x, 0));
}",
        "-cl-std=CL3.0",
    );
    let f32s = |b: &[u8]| -> Vec<f32> {
        b.chunks(4)
            .map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    // stripes: a 70×9 float image of (x, y, x·y, 1); dst starts at -1.
    let (w, h) = (70usize, 9usize);
    let d = desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0);
    let src = image(&env.ctx, &RGBA_F, &d);
    let dst = image(&env.ctx, &RGBA_F, &d);
    let px = |x: usize, y: usize| [x as f32, y as f32, (x * y) as f32, 1.0];
    let colours: Vec<u8> = (0..h)
        .flat_map(|y| (0..w).flat_map(move |x| floats(px(x, y))))
        .collect();
    check(
        write(q, &src, [0; 3], [w, h, 1], 0, 0, &colours),
        "write src",
    );
    let minus: Vec<u8> = (0..w * h).flat_map(|_| floats([-1.0; 4])).collect();
    check(write(q, &dst, [0; 3], [w, h, 1], 0, 0, &minus), "write dst");
    let s = sampler(&env.ctx, false, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST);
    let k = p.kernel("stripes");
    set_mem(&k, 0, src.raw());
    check(
        k.set_arg_raw(
            1,
            std::mem::size_of::<cl_sampler>(),
            (&s as *const cl_sampler).cast(),
        ),
        "sampler arg",
    );
    set_mem(&k, 2, dst.raw());
    run_2d(q, &k, None, [w, h], None);
    let mut got = vec![0u8; w * h * 16];
    check(read(q, &dst, [0; 3], [w, h, 1], 0, 0, &mut got), "read dst");
    let got = f32s(&got);
    for y in 0..h {
        for x in 0..w {
            let want = if (x ^ y) & 1 == 1 {
                px(x, y).map(|c| 2.0 * c)
            } else if x % 5 == 0 {
                px(x, 0)
            } else {
                [-1.0; 4]
            };
            let i = 4 * (y * w + x);
            assert_eq!(&got[i..i + 4], &want, "stripes pixel ({x}, {y})");
        }
    }
    // SAFETY: s is a live sampler.
    check(unsafe { clReleaseSampler(s) }, "release");

    // bump: a 37×3×2 read_write image of 32-bit unsigned channels.
    let (w3, h3, d3) = (37usize, 3usize, 2usize);
    let vol = image(
        &env.ctx,
        &cl_image_format {
            image_channel_order: CL_RGBA,
            image_channel_data_type: CL_UNSIGNED_INT32,
        },
        &desc(CL_MEM_OBJECT_IMAGE3D, w3, h3, d3, 0),
    );
    let n = w3 * h3 * d3 * 4;
    let start: Vec<u32> = (0..n as u32).map(|i| i * 7).collect();
    let bytes: Vec<u8> = start.iter().flat_map(|v| v.to_ne_bytes()).collect();
    check(
        write(q, &vol, [0; 3], [w3, h3, d3], 0, 0, &bytes),
        "write 3D",
    );
    let k = p.kernel("bump");
    set_mem(&k, 0, vol.raw());
    run_3d(q, &k, None, [w3, h3, d3], None);
    let mut got = vec![0u8; n * 4];
    check(
        read(q, &vol, [0; 3], [w3, h3, d3], 0, 0, &mut got),
        "read 3D",
    );
    for (i, b) in got.chunks(4).enumerate() {
        let after = u32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
        assert_eq!(after, start[i] + (i % 4) as u32 + 1, "channel {i}");
    }

    // halves: 40 pixels whose channels round differently to half.
    let wh = 40usize;
    let hs = image(&env.ctx, &RGBA_F, &desc(CL_MEM_OBJECT_IMAGE2D, wh, 1, 0, 0));
    let vals: Vec<f32> = (0..wh * 4)
        .map(|i| 1.0 / (i as f32 + 3.0) + i as f32)
        .collect();
    let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_ne_bytes()).collect();
    check(
        write(q, &hs, [0; 3], [wh, 1, 1], 0, 0, &bytes),
        "write halves",
    );
    let outb = env.buffer_zeroed::<u16>(wh * 4);
    let k = p.kernel("halves");
    set_mem(&k, 0, hs.raw());
    k.buf(1, &outb);
    run_1d(q, &k, wh, None);
    let got: Vec<u16> = outb.read(q, wh * 4);
    for (i, (&v, &g)) in vals.iter().zip(&got).enumerate() {
        assert_eq!(g, half_bits(v), "half {i} of {v}");
    }
}

/// `x` rounded to the nearest binary16 (ties to even), for finite normal results.
fn half_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    assert!((1..31).contains(&e), "{x} is not a normal half");
    let m = b & 0x7f_ffff;
    let (mut r, rest) = (((e as u32) << 10) | (m >> 13), m & 0x1fff);
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

/// `read_imageh` rounds the colour to half; `write_imageh` stores halves.
#[test]
fn kernels_read_and_write_halves() {
    let env = env();
    let q = &env.queue;
    let p = env.build(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void halves(read_only image2d_t src, write_only image2d_t dst, global half4 *out) {
    int2 p = (int2)(get_global_id(0), 0);
    half4 h = read_imageh(src, p);
    out[p.x] = h;
    write_imageh(dst, p, h * (half)2);
}",
        "-cl-std=CL3.0",
    );
    let d = desc(CL_MEM_OBJECT_IMAGE2D, 2, 1, 0, 0);
    let src = image(&env.ctx, &RGBA_F, &d);
    let dst = image(&env.ctx, &RGBA_F, &d);
    let colours: [f32; 8] = [1.0 / 3.0, -2.5, 70000.0, 1e-6, 0.1, 1.0, -0.0, 65504.0];
    let bytes: Vec<u8> = colours.iter().flat_map(|f| f.to_ne_bytes()).collect();
    check(write(q, &src, [0; 3], [2, 1, 1], 0, 0, &bytes), "write");
    let outb = env.buffer_zeroed::<u16>(8);
    let k = p.kernel("halves");
    set_mem(&k, 0, src.raw());
    set_mem(&k, 1, dst.raw());
    k.buf(2, &outb);
    run_1d(q, &k, 2, None);
    // Each colour rounded to the nearest half (even on ties); beyond 65504 + 16, infinity.
    let want: [u16; 8] = [
        0x3555, 0xc100, 0x7c00, 0x0011, 0x2e66, 0x3c00, 0x8000, 0x7bff,
    ];
    assert_eq!(outb.read::<u16>(q, 8), want);
    let mut got = vec![0u8; 32];
    check(read(q, &dst, [0; 3], [2, 1, 1], 0, 0, &mut got), "read");
    let twice: Vec<f32> = got
        .chunks(4)
        .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    // 2 * the half, rounded to half again (65504 * 2 overflows to infinity).
    let f = |bits: u16| -> f32 {
        let s = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
        let e = i32::from((bits >> 10) & 0x1f);
        let m = f32::from(bits & 0x3ff);
        s * match e {
            0 => m * 2f32.powi(-24),
            31 => f32::INFINITY,
            _ => (1.0 + m / 1024.0) * 2f32.powi(e - 15),
        }
    };
    let expect: Vec<f32> = want
        .iter()
        .map(|&b| {
            let x = 2.0 * f(b);
            if x.abs() > 65504.0 {
                x.signum() * f32::INFINITY
            } else {
                x
            }
        })
        .collect();
    assert_eq!(twice, expect);
}

/// Images migrate like buffers (a command that only orders, on one memory).
#[test]
fn images_migrate() {
    let env = env();
    let img = image(&env.ctx, &RGBA8, &desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0));
    let m = img.raw();
    // SAFETY: one valid image handle; no events.
    let rc = unsafe {
        clEnqueueMigrateMemObjects(
            env.queue.raw(),
            1,
            &m,
            CL_MIGRATE_MEM_OBJECT_HOST,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(rc, "clEnqueueMigrateMemObjects(image)");
    env.queue.finish();
}
