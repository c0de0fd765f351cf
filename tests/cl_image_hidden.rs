//! `FERRITE_IMAGES=0` hides images, as on a device without them: no image support, no
//! formats, image and sampler creators refused with `CL_INVALID_OPERATION`, no image
//! extensions. A test binary of its own: the switch is read once per process.

use ferrite_tests::*;
use std::ptr;
use std::sync::Once;

fn env() -> Env {
    static HIDE: Once = Once::new();
    HIDE.call_once(|| {
        // Edition 2021: `set_var` is safe; it runs inside the `Once`, before any OpenCL
        // call of this process.
        std::env::set_var("FERRITE_IMAGES", "0");
    });
    Env::new()
}

#[test]
fn hidden_images_are_absent_everywhere() {
    let e = env();
    let support: cl_bool = device_get(CL_DEVICE_IMAGE_SUPPORT);
    assert_eq!(support, CL_FALSE);
    let width: usize = device_get(CL_DEVICE_IMAGE2D_MAX_WIDTH);
    assert_eq!(width, 0);
    let ext = device_string(CL_DEVICE_EXTENSIONS);
    assert!(!ext.contains("image"), "image extensions claimed: {ext}");

    let mut n: cl_uint = 7;
    // SAFETY: a count-only query into `n`.
    let rc = unsafe {
        clGetSupportedImageFormats(
            e.ctx.raw(),
            CL_MEM_READ_WRITE,
            CL_MEM_OBJECT_IMAGE2D,
            0,
            ptr::null_mut(),
            &mut n,
        )
    };
    assert_eq!((rc, n), (CL_SUCCESS, 0));

    let format = cl_image_format {
        image_channel_order: CL_RGBA,
        image_channel_data_type: CL_UNORM_INT8,
    };
    let desc = cl_image_desc {
        image_type: CL_MEM_OBJECT_IMAGE2D,
        image_width: 4,
        image_height: 4,
        image_depth: 0,
        image_array_size: 0,
        image_row_pitch: 0,
        image_slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: ptr::null_mut(),
    };
    let mut rc = CL_SUCCESS;
    // SAFETY: a valid context, format and descriptor; no host memory.
    let m = unsafe {
        clCreateImage(
            e.ctx.raw(),
            CL_MEM_READ_WRITE,
            &format,
            &desc,
            ptr::null_mut(),
            &mut rc,
        )
    };
    assert!(m.is_null());
    assert_eq!(error_name(rc), error_name(CL_INVALID_OPERATION));

    let props: [cl_sampler_properties; 1] = [0];
    // SAFETY: a valid context and an empty, terminated property list.
    let s = unsafe { clCreateSamplerWithProperties(e.ctx.raw(), props.as_ptr(), &mut rc) };
    assert!(s.is_null());
    assert_eq!(error_name(rc), error_name(CL_INVALID_OPERATION));
}
