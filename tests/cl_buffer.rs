//! Buffers: every host-pointer flag, read/write/copy/fill, map/unmap, blocking and
//! non-blocking transfers, `clCreateBufferWithProperties`, memory object queries, reference
//! counts, destructor callbacks, and the error codes of bad sizes, flags and handles.

use ferrite_tests::*;
use std::ffi::c_void;
use std::ptr;
use std::sync::Mutex;

const SCALE_KERNEL: &str = r#"
__kernel void scale(__global uint *data, uint factor, uint add) {
    size_t i = get_global_id(0);
    data[i] = data[i] * factor + add;
}
"#;

/// Runs `scale` over `n` elements of `b`.
fn scale(env: &Env, b: &Buffer, n: usize, factor: u32, add: u32) {
    let p = env.build(SCALE_KERNEL, "");
    let k = p.kernel("scale");
    k.buf(0, b).arg(1, &factor).arg(2, &add);
    run_1d(&env.queue, &k, n, None);
}

fn map(q: &Queue, b: &Buffer, flags: cl_map_flags, offset: usize, size: usize) -> *mut c_void {
    let mut rc = 0;
    // SAFETY: blocking map of a live buffer; the region is checked by the driver.
    let p = unsafe {
        clEnqueueMapBuffer(
            q.raw(),
            b.raw(),
            CL_TRUE,
            flags,
            offset,
            size,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut rc,
        )
    };
    check(rc, "clEnqueueMapBuffer");
    assert!(!p.is_null(), "map returned NULL with CL_SUCCESS");
    p
}

fn unmap(q: &Queue, b: &Buffer, p: *mut c_void) {
    let mut ev = ptr::null_mut();
    // SAFETY: `p` came from mapping `b`.
    check(
        unsafe { clEnqueueUnmapMemObject(q.raw(), b.raw(), p, 0, ptr::null(), &mut ev) },
        "clEnqueueUnmapMemObject",
    );
    let ev = Event(ev);
    ev.wait();
    assert_eq!(ev.command_type(), CL_COMMAND_UNMAP_MEM_OBJECT);
}

#[test]
fn use_host_ptr_is_zero_copy() {
    let env = Env::new();
    let n = 4096;
    let mut host: Vec<u32> = (0..n as u32).collect();
    let b = Buffer::try_new(
        &env.ctx,
        CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
        n * 4,
        host.as_mut_ptr().cast(),
    )
    .unwrap_or_else(|e| panic!("clCreateBuffer(USE_HOST_PTR): {}", error_name(e)));
    let hp: *mut c_void = pod(&mem_info(b.raw(), CL_MEM_HOST_PTR).unwrap());
    assert_eq!(
        hp,
        host.as_mut_ptr().cast(),
        "CL_MEM_HOST_PTR is the pointer given at creation"
    );
    scale(&env, &b, n, 3, 1);
    // After a map for reading, the host array holds what the kernel wrote, and the mapped
    // pointer is derived from host_ptr.
    let p = map(&env.queue, &b, CL_MAP_READ, 0, n * 4);
    assert_eq!(
        p,
        host.as_mut_ptr().cast(),
        "map of a USE_HOST_PTR buffer returns host_ptr"
    );
    // SAFETY: the region is mapped for reading and `host` is not written meanwhile.
    let seen: Vec<u32> = unsafe { std::slice::from_raw_parts(p.cast::<u32>(), n) }.to_vec();
    let expected: Vec<u32> = (0..n as u32).map(|i| i * 3 + 1).collect();
    assert_eq!(seen, expected);
    unmap(&env.queue, &b, p);
    env.queue.finish();
    // Reading through the host array (after the unmap) sees the same values.
    assert_eq!(host, expected);
    // A map at an offset points into the host array at that offset.
    let p = map(&env.queue, &b, CL_MAP_WRITE, 64, 64);
    // SAFETY: `host` has n elements; byte offset 64 is inside.
    assert_eq!(p, unsafe { host.as_mut_ptr().cast::<u8>().add(64) }.cast());
    // SAFETY: 64 bytes are mapped for writing at `p`.
    unsafe { std::slice::from_raw_parts_mut(p.cast::<u32>(), 16) }.fill(7);
    unmap(&env.queue, &b, p);
    let back: Vec<u32> = b.read(&env.queue, n);
    assert!(
        back[16..32].iter().all(|&v| v == 7)
            && back[15] == expected[15]
            && back[32] == expected[32]
    );
}

#[test]
fn copy_host_ptr_copies_at_creation() {
    let env = Env::new();
    let mut host: Vec<u32> = (0..256).collect();
    let b = Buffer::try_new(
        &env.ctx,
        CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
        1024,
        host.as_mut_ptr().cast(),
    )
    .unwrap();
    host.fill(0xdead);
    let hp: *mut c_void = pod(&mem_info(b.raw(), CL_MEM_HOST_PTR).unwrap());
    assert!(hp.is_null(), "CL_MEM_HOST_PTR is NULL without USE_HOST_PTR");
    scale(&env, &b, 256, 2, 0);
    let got: Vec<u32> = b.read(&env.queue, 256);
    assert_eq!(got, (0..256).map(|i| i * 2).collect::<Vec<u32>>());
    assert!(
        host.iter().all(|&v| v == 0xdead),
        "a COPY_HOST_PTR buffer wrote back to host memory"
    );
}

#[test]
fn alloc_host_ptr_map_write_then_kernel() {
    let env = Env::new();
    let n = 1000;
    for flags in [
        CL_MEM_ALLOC_HOST_PTR,
        CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR,
    ] {
        let init: Vec<u32> = vec![5; n];
        let host = if flags & CL_MEM_COPY_HOST_PTR != 0 {
            init.as_ptr() as *mut c_void
        } else {
            ptr::null_mut()
        };
        let b = Buffer::try_new(&env.ctx, CL_MEM_READ_WRITE | flags, n * 4, host)
            .unwrap_or_else(|e| panic!("flags {flags:#x}: {}", error_name(e)));
        if flags & CL_MEM_COPY_HOST_PTR != 0 {
            assert_eq!(b.read::<u32>(&env.queue, n), init);
        }
        let p = map(&env.queue, &b, CL_MAP_WRITE_INVALIDATE_REGION, 0, n * 4);
        // SAFETY: the whole buffer is mapped for writing.
        let s = unsafe { std::slice::from_raw_parts_mut(p.cast::<u32>(), n) };
        for (i, v) in s.iter_mut().enumerate() {
            *v = i as u32;
        }
        unmap(&env.queue, &b, p);
        scale(&env, &b, n, 10, 3);
        let p = map(&env.queue, &b, CL_MAP_READ, 0, n * 4);
        // SAFETY: mapped for reading.
        let s = unsafe { std::slice::from_raw_parts(p.cast::<u32>(), n) };
        assert!(
            s.iter().enumerate().all(|(i, &v)| v == i as u32 * 10 + 3),
            "flags {flags:#x}"
        );
        unmap(&env.queue, &b, p);
    }
}

#[test]
fn read_write_with_offsets_blocking_and_not() {
    let env = Env::new();
    let b = env.buffer_zeroed::<u8>(1 << 20);
    let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 + 3) as u8).collect();
    b.write(&env.queue, 12345, &data);
    let mut out = vec![0u8; data.len()];
    let mut ev = ptr::null_mut();
    // SAFETY: `out` is valid until the event has been waited for below.
    let rc = unsafe {
        clEnqueueReadBuffer(
            env.queue.raw(),
            b.raw(),
            CL_FALSE,
            12345,
            out.len(),
            out.as_mut_ptr().cast(),
            0,
            ptr::null(),
            &mut ev,
        )
    };
    check(rc, "non-blocking clEnqueueReadBuffer");
    let ev = Event(ev);
    ev.wait();
    assert_eq!(ev.status(), CL_COMPLETE);
    assert_eq!(ev.command_type(), CL_COMMAND_READ_BUFFER);
    assert_eq!(out, data);
    // Non-blocking write from a host buffer that stays alive until the event completes.
    let data2: Vec<u8> = vec![0xAB; 4096];
    let mut ev = ptr::null_mut();
    // SAFETY: `data2` outlives the wait below.
    let rc = unsafe {
        clEnqueueWriteBuffer(
            env.queue.raw(),
            b.raw(),
            CL_FALSE,
            0,
            4096,
            data2.as_ptr().cast(),
            0,
            ptr::null(),
            &mut ev,
        )
    };
    check(rc, "non-blocking clEnqueueWriteBuffer");
    let ev = Event(ev);
    ev.wait();
    assert_eq!(ev.command_type(), CL_COMMAND_WRITE_BUFFER);
    let all: Vec<u8> = b.read(&env.queue, 1 << 20);
    assert!(all[..4096].iter().all(|&v| v == 0xAB));
    assert!(all[4096..12345].iter().all(|&v| v == 0));
    assert_eq!(&all[12345..12345 + data.len()], &data[..]);
    assert!(all[12345 + data.len()..].iter().all(|&v| v == 0));
}

#[test]
fn copy_buffer_with_offsets() {
    let env = Env::new();
    let src: Vec<u32> = (0..10_000).collect();
    let a = env.buffer_from(&src);
    let b = env.buffer_zeroed::<u32>(10_000);
    let mut ev = ptr::null_mut();
    // SAFETY: both regions are inside their buffers.
    let rc = unsafe {
        clEnqueueCopyBuffer(
            env.queue.raw(),
            a.raw(),
            b.raw(),
            400,
            800,
            4000,
            0,
            ptr::null(),
            &mut ev,
        )
    };
    check(rc, "clEnqueueCopyBuffer");
    let ev = Event(ev);
    ev.wait();
    assert_eq!(ev.command_type(), CL_COMMAND_COPY_BUFFER);
    let out: Vec<u32> = b.read(&env.queue, 10_000);
    for (i, &v) in out.iter().enumerate() {
        let expected = if (200..1200).contains(&i) {
            i as u32 - 100
        } else {
            0
        };
        assert_eq!(v, expected, "element {i}");
    }
    // Non-overlapping regions of the same buffer may be copied.
    // SAFETY: regions [0, 400) and [4000, 4400) of `a`.
    check(
        unsafe {
            clEnqueueCopyBuffer(
                env.queue.raw(),
                a.raw(),
                a.raw(),
                0,
                4000,
                400,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        },
        "copy within a buffer",
    );
    let out: Vec<u32> = a.read(&env.queue, 10_000);
    assert_eq!(&out[1000..1100], &src[0..100]);
    // CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer or sub-buffer object
    // and the source and destination regions overlap.
    // SAFETY: overlapping regions; the driver must refuse.
    let rc = unsafe {
        clEnqueueCopyBuffer(
            env.queue.raw(),
            a.raw(),
            a.raw(),
            0,
            100,
            400,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_MEM_COPY_OVERLAP, "overlapping copy");
    // CL_INVALID_VALUE if src_offset, dst_offset, size, src_offset + size or dst_offset + size
    // require accessing elements outside the src_buffer and dst_buffer buffer objects.
    // SAFETY: out-of-range region; the driver must refuse.
    let rc = unsafe {
        clEnqueueCopyBuffer(
            env.queue.raw(),
            a.raw(),
            b.raw(),
            39_000,
            0,
            2000,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "copy past the end");
}

#[test]
fn fill_with_every_pattern_size() {
    let env = Env::new();
    let size = 4096;
    for pattern_size in [1usize, 2, 4, 8, 16, 32, 64, 128] {
        let b = Buffer::from_slice(&env.ctx, CL_MEM_READ_WRITE, &vec![0xEEu8; size]);
        let pattern: Vec<u8> = (0..pattern_size)
            .map(|i| (i * 13 + pattern_size) as u8)
            .collect();
        let offset = pattern_size * 3;
        let len = pattern_size * 10;
        let mut ev = ptr::null_mut();
        // SAFETY: `pattern` is valid for `pattern_size` bytes (copied at enqueue time).
        let rc = unsafe {
            clEnqueueFillBuffer(
                env.queue.raw(),
                b.raw(),
                pattern.as_ptr().cast(),
                pattern_size,
                offset,
                len,
                0,
                ptr::null(),
                &mut ev,
            )
        };
        check(rc, &format!("clEnqueueFillBuffer(pattern {pattern_size})"));
        let ev = Event(ev);
        ev.wait();
        assert_eq!(ev.command_type(), CL_COMMAND_FILL_BUFFER);
        let out: Vec<u8> = b.read(&env.queue, size);
        for (i, &v) in out.iter().enumerate() {
            let expected = if (offset..offset + len).contains(&i) {
                pattern[(i - offset) % pattern_size]
            } else {
                0xEE
            };
            assert_eq!(v, expected, "pattern {pattern_size}, byte {i}");
        }
    }
    let b = env.buffer_zeroed::<u8>(size);
    let pattern = [0u8; 16];
    // CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or if pattern_size is not one
    // of {1, 2, 4, 8, 16, 32, 64, 128}.
    // SAFETY: `pattern` has 16 bytes; the sizes are rejected before use.
    let rc = unsafe {
        clEnqueueFillBuffer(
            env.queue.raw(),
            b.raw(),
            pattern.as_ptr().cast(),
            3,
            0,
            12,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "fill with a 3-byte pattern");
    // CL_INVALID_VALUE if offset and size are not a multiple of pattern_size.
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueFillBuffer(
            env.queue.raw(),
            b.raw(),
            pattern.as_ptr().cast(),
            8,
            4,
            16,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_INVALID_VALUE,
        "fill at an offset that is not a multiple of the pattern",
    );
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueFillBuffer(
            env.queue.raw(),
            b.raw(),
            pattern.as_ptr().cast(),
            4,
            4096,
            4,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "fill past the end");
    // SAFETY: NULL pattern is rejected.
    let rc = unsafe {
        clEnqueueFillBuffer(
            env.queue.raw(),
            b.raw(),
            ptr::null(),
            4,
            0,
            16,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "fill with a NULL pattern");
}

#[test]
fn map_non_blocking_and_map_info() {
    let env = Env::new();
    let data: Vec<u32> = (0..1024).map(|i| i * i).collect();
    let b = env.buffer_from(&data);
    let mut rc = 0;
    let mut ev = ptr::null_mut();
    // SAFETY: non-blocking map; the pointer is used only after the event completes.
    let p = unsafe {
        clEnqueueMapBuffer(
            env.queue.raw(),
            b.raw(),
            CL_FALSE,
            CL_MAP_READ | CL_MAP_WRITE,
            0,
            4096,
            0,
            ptr::null(),
            &mut ev,
            &mut rc,
        )
    };
    check(rc, "non-blocking clEnqueueMapBuffer");
    let ev = Event(ev);
    ev.wait();
    assert_eq!(ev.command_type(), CL_COMMAND_MAP_BUFFER);
    let count: cl_uint = pod(&mem_info(b.raw(), CL_MEM_MAP_COUNT).unwrap());
    assert_eq!(count, 1, "CL_MEM_MAP_COUNT after one map");
    // SAFETY: mapped for read and write, 1024 u32.
    let s = unsafe { std::slice::from_raw_parts_mut(p.cast::<u32>(), 1024) };
    assert_eq!(s, &data[..]);
    s[5] = 55;
    unmap(&env.queue, &b, p);
    let out: Vec<u32> = b.read(&env.queue, 1024);
    assert_eq!(out[5], 55);
    assert_eq!(out[6], 36);
    // CL_INVALID_VALUE if the region being mapped given by (offset, size) is out of bounds or if
    // size is 0.
    let mut rc = 0;
    // SAFETY: invalid region; the driver must refuse and return NULL.
    let p = unsafe {
        clEnqueueMapBuffer(
            env.queue.raw(),
            b.raw(),
            CL_TRUE,
            CL_MAP_READ,
            4000,
            200,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut rc,
        )
    };
    expect_create_err(p, rc, CL_INVALID_VALUE, "map past the end");
    // SAFETY: as above.
    let p = unsafe {
        clEnqueueMapBuffer(
            env.queue.raw(),
            b.raw(),
            CL_TRUE,
            CL_MAP_READ,
            0,
            0,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut rc,
        )
    };
    expect_create_err(p, rc, CL_INVALID_VALUE, "map of size 0");
    // "CL_INVALID_VALUE if values specified in map_flags are not valid"; the map flags table:
    // "CL_MAP_READ or CL_MAP_WRITE and CL_MAP_WRITE_INVALIDATE_REGION are mutually exclusive."
    // SAFETY: as above.
    let p = unsafe {
        clEnqueueMapBuffer(
            env.queue.raw(),
            b.raw(),
            CL_TRUE,
            CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION,
            0,
            16,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut rc,
        )
    };
    spec_code(
        rc,
        CL_INVALID_VALUE,
        "map with READ | WRITE_INVALIDATE_REGION",
    );
    if !p.is_null() {
        unmap(&env.queue, &b, p);
    }
}

#[test]
fn mem_object_info() {
    let env = Env::new();
    let b = Buffer::new(&env.ctx, CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY, 1000);
    let ty: cl_mem_object_type = pod(&mem_info(b.raw(), CL_MEM_TYPE).unwrap());
    assert_eq!(ty, CL_MEM_OBJECT_BUFFER);
    let flags: cl_mem_flags = pod(&mem_info(b.raw(), CL_MEM_FLAGS).unwrap());
    assert_eq!(flags, CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY);
    let size: usize = pod(&mem_info(b.raw(), CL_MEM_SIZE).unwrap());
    assert_eq!(size, 1000);
    let ctx: cl_context = pod(&mem_info(b.raw(), CL_MEM_CONTEXT).unwrap());
    assert_eq!(ctx, env.ctx.raw());
    let count: cl_uint = pod(&mem_info(b.raw(), CL_MEM_MAP_COUNT).unwrap());
    assert_eq!(count, 0);
    let assoc: cl_mem = pod(&mem_info(b.raw(), CL_MEM_ASSOCIATED_MEMOBJECT).unwrap());
    assert!(assoc.is_null());
    let offset: usize = pod(&mem_info(b.raw(), CL_MEM_OFFSET).unwrap());
    assert_eq!(offset, 0);
    let svm: cl_bool = pod(&mem_info(b.raw(), CL_MEM_USES_SVM_POINTER).unwrap());
    assert_eq!(svm, CL_FALSE);
    // Flags with no access qualifier default to CL_MEM_READ_WRITE.
    let d = Buffer::new(&env.ctx, 0, 16);
    let flags: cl_mem_flags = pod(&mem_info(d.raw(), CL_MEM_FLAGS).unwrap());
    assert_eq!(
        flags & CL_MEM_READ_WRITE,
        CL_MEM_READ_WRITE,
        "default flags {flags:#x}"
    );
    let mut v = [0u8; 8];
    // SAFETY: 8-byte buffer.
    let rc =
        unsafe { clGetMemObjectInfo(b.raw(), 0x7777, 8, v.as_mut_ptr().cast(), ptr::null_mut()) };
    expect_code(rc, CL_INVALID_VALUE, "clGetMemObjectInfo(bad param)");
}

#[test]
fn create_buffer_with_properties() {
    let env = Env::new();
    let data: Vec<u32> = (0..64).collect();
    let mut rc = 0;
    let empty: [cl_mem_properties; 1] = [0];
    // SAFETY: a 0-terminated (empty) property list, `data` valid for 256 bytes.
    let m = unsafe {
        clCreateBufferWithProperties(
            env.ctx.raw(),
            empty.as_ptr(),
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            256,
            data.as_ptr() as *mut c_void,
            &mut rc,
        )
    };
    check(rc, "clCreateBufferWithProperties(empty list)");
    let b = Buffer(m);
    assert_eq!(b.read::<u32>(&env.queue, 64), data);
    // "If the properties argument specified in clCreateBufferWithProperties ... was not NULL,
    // the implementation must return the values specified in the properties argument in the
    // same order and without including additional properties."
    let props: Vec<cl_mem_properties> = pod_vec(&mem_info(b.raw(), CL_MEM_PROPERTIES).unwrap());
    spec_check(
        props == vec![0],
        &format!("CL_MEM_PROPERTIES of an empty list is {props:?}, expected [0]"),
    );
    // SAFETY: NULL properties.
    let m = unsafe {
        clCreateBufferWithProperties(
            env.ctx.raw(),
            ptr::null(),
            CL_MEM_READ_WRITE,
            256,
            ptr::null_mut(),
            &mut rc,
        )
    };
    check(rc, "clCreateBufferWithProperties(NULL)");
    let b2 = Buffer(m);
    // "... or if the properties argument ... was NULL, the implementation must return
    // param_value_size_ret equal to 0".
    let props = mem_info(b2.raw(), CL_MEM_PROPERTIES).unwrap();
    assert!(
        props.is_empty(),
        "CL_MEM_PROPERTIES without properties has size {}",
        props.len()
    );
    let plain = env.buffer_zeroed::<u8>(8);
    assert!(
        mem_info(plain.raw(), CL_MEM_PROPERTIES).unwrap().is_empty(),
        "CL_MEM_PROPERTIES of a clCreateBuffer buffer"
    );
    // CL_INVALID_PROPERTY if a property name in properties is not a supported property name.
    let bad: [cl_mem_properties; 3] = [0x7777, 1, 0];
    // SAFETY: a 0-terminated property list.
    let m = unsafe {
        clCreateBufferWithProperties(
            env.ctx.raw(),
            bad.as_ptr(),
            CL_MEM_READ_WRITE,
            256,
            ptr::null_mut(),
            &mut rc,
        )
    };
    expect_create_err(
        m,
        rc,
        CL_INVALID_PROPERTY,
        "clCreateBufferWithProperties(unknown property)",
    );
}

#[test]
fn create_buffer_errors() {
    let env = Env::new();
    let mut host = vec![0u8; 64];
    let h = host.as_mut_ptr().cast::<c_void>();
    let cases: &[(cl_mem_flags, usize, *mut c_void, cl_int, &str)] = &[
        // CL_INVALID_BUFFER_SIZE if size is 0.
        (
            CL_MEM_READ_WRITE,
            0,
            ptr::null_mut(),
            CL_INVALID_BUFFER_SIZE,
            "size 0",
        ),
        // ... or if size is greater than CL_DEVICE_MAX_MEM_ALLOC_SIZE.
        (
            CL_MEM_READ_WRITE,
            usize::MAX / 2,
            ptr::null_mut(),
            CL_INVALID_BUFFER_SIZE,
            "size above the maximum allocation",
        ),
        // CL_INVALID_VALUE if values specified in flags are not valid as defined in the Memory
        // Flags table (mutually exclusive access flags, unknown bits).
        (
            CL_MEM_READ_WRITE | CL_MEM_READ_ONLY,
            64,
            ptr::null_mut(),
            CL_INVALID_VALUE,
            "READ_WRITE | READ_ONLY",
        ),
        (
            CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY,
            64,
            ptr::null_mut(),
            CL_INVALID_VALUE,
            "READ_WRITE | WRITE_ONLY",
        ),
        (
            CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
            64,
            ptr::null_mut(),
            CL_INVALID_VALUE,
            "READ_ONLY | WRITE_ONLY",
        ),
        (
            CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS,
            64,
            ptr::null_mut(),
            CL_INVALID_VALUE,
            "HOST_READ_ONLY | HOST_NO_ACCESS",
        ),
        (
            CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY,
            64,
            ptr::null_mut(),
            CL_INVALID_VALUE,
            "HOST_WRITE_ONLY | HOST_READ_ONLY",
        ),
        (
            CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR,
            64,
            h,
            CL_INVALID_VALUE,
            "USE_HOST_PTR | COPY_HOST_PTR",
        ),
        (
            CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR,
            64,
            h,
            CL_INVALID_VALUE,
            "USE_HOST_PTR | ALLOC_HOST_PTR",
        ),
        (
            1 << 40,
            64,
            ptr::null_mut(),
            CL_INVALID_VALUE,
            "unknown flag bit",
        ),
        // CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR
        // are set in flags or if host_ptr is not NULL but CL_MEM_COPY_HOST_PTR or
        // CL_MEM_USE_HOST_PTR are not set in flags.
        (
            CL_MEM_USE_HOST_PTR,
            64,
            ptr::null_mut(),
            CL_INVALID_HOST_PTR,
            "USE_HOST_PTR with NULL",
        ),
        (
            CL_MEM_COPY_HOST_PTR,
            64,
            ptr::null_mut(),
            CL_INVALID_HOST_PTR,
            "COPY_HOST_PTR with NULL",
        ),
        (
            CL_MEM_READ_WRITE,
            64,
            h,
            CL_INVALID_HOST_PTR,
            "host_ptr without USE/COPY",
        ),
    ];
    for &(flags, size, host_ptr, expected, what) in cases {
        let r = Buffer::try_new(&env.ctx, flags, size, host_ptr);
        expect_code(
            r.err().unwrap_or(CL_SUCCESS),
            expected,
            &format!("clCreateBuffer({what})"),
        );
    }
    drop(host);
}

#[test]
fn transfer_errors() {
    let env = Env::new();
    let b = env.buffer_zeroed::<u8>(1024);
    let mut out = vec![0u8; 2048];
    let q = env.queue.raw();
    // CL_INVALID_VALUE if the region being read or written specified by (offset, size) is out
    // of bounds or if ptr is a NULL value.
    // SAFETY: `out` has 2048 bytes; the region is rejected before use.
    let rc = unsafe {
        clEnqueueReadBuffer(
            q,
            b.raw(),
            CL_TRUE,
            0,
            1025,
            out.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "read past the end");
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueReadBuffer(
            q,
            b.raw(),
            CL_TRUE,
            1000,
            100,
            out.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "read crossing the end");
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueWriteBuffer(
            q,
            b.raw(),
            CL_TRUE,
            1024,
            1,
            out.as_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "write at the end");
    // SAFETY: NULL host pointer is rejected.
    let rc = unsafe {
        clEnqueueReadBuffer(
            q,
            b.raw(),
            CL_TRUE,
            0,
            16,
            ptr::null_mut(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "read into NULL");
    // CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object.
    // SAFETY: NULL buffer is rejected.
    let rc = unsafe {
        clEnqueueReadBuffer(
            q,
            ptr::null_mut(),
            CL_TRUE,
            0,
            16,
            out.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_MEM_OBJECT, "read from a NULL buffer");
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueWriteBuffer(
            q,
            ptr::null_mut(),
            CL_TRUE,
            0,
            16,
            out.as_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_MEM_OBJECT, "write to a NULL buffer");
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueCopyBuffer(
            q,
            b.raw(),
            ptr::null_mut(),
            0,
            0,
            16,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_MEM_OBJECT, "copy to a NULL buffer");
    // CL_INVALID_OPERATION if clEnqueueReadBuffer is called on buffer which has been created
    // with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS.
    let wo = Buffer::new(&env.ctx, CL_MEM_READ_WRITE | CL_MEM_HOST_WRITE_ONLY, 64);
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueReadBuffer(
            q,
            wo.raw(),
            CL_TRUE,
            0,
            16,
            out.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_INVALID_OPERATION,
        "read from a HOST_WRITE_ONLY buffer",
    );
    let na = Buffer::new(&env.ctx, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS, 64);
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueWriteBuffer(
            q,
            na.raw(),
            CL_TRUE,
            0,
            16,
            out.as_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_OPERATION, "write to a HOST_NO_ACCESS buffer");
    // SAFETY: NULL handle; the loader never sees it (first argument is the queue).
    expect_code(
        unsafe { clRetainMemObject(ptr::null_mut()) },
        CL_INVALID_MEM_OBJECT,
        "clRetainMemObject(NULL)",
    );
}

#[test]
fn wrong_type_mem_handles() {
    if !require_handle_validation() {
        return;
    }
    let env = Env::new();
    let bad: cl_mem = wrong_handle(env.ctx.raw());
    let mut out = [0u8; 16];
    // SAFETY: a live object of the wrong type as the buffer.
    let rc = unsafe {
        clEnqueueReadBuffer(
            env.queue.raw(),
            bad,
            CL_TRUE,
            0,
            16,
            out.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_MEM_OBJECT, "read from a context handle");
    // SAFETY: as above.
    expect_code(
        unsafe { clRetainMemObject(bad) },
        CL_INVALID_MEM_OBJECT,
        "clRetainMemObject(context handle)",
    );
    let mut v = [0u8; 8];
    // SAFETY: as above.
    let rc =
        unsafe { clGetMemObjectInfo(bad, CL_MEM_SIZE, 8, v.as_mut_ptr().cast(), ptr::null_mut()) };
    expect_code(
        rc,
        CL_INVALID_MEM_OBJECT,
        "clGetMemObjectInfo(context handle)",
    );
}

/// Records destructor calls: (tag, was the buffer's last reference gone).
static DESTRUCTOR_LOG: Mutex<Vec<usize>> = Mutex::new(Vec::new());

unsafe extern "C" fn mem_destructor(_m: cl_mem, user_data: *mut c_void) {
    DESTRUCTOR_LOG.lock().unwrap().push(user_data as usize);
}

#[test]
fn retain_release_and_destructor_callbacks() {
    let env = Env::new();
    let b = env.buffer_zeroed::<u32>(16);
    assert_eq!(b.ref_count(), 1);
    // SAFETY: a live buffer and a callback valid for the program's life; tags 1001/1002 are
    // unique to this test.
    unsafe {
        check(
            clSetMemObjectDestructorCallback(b.raw(), Some(mem_destructor), 1001 as *mut c_void),
            "clSetMemObjectDestructorCallback",
        );
        check(
            clSetMemObjectDestructorCallback(b.raw(), Some(mem_destructor), 1002 as *mut c_void),
            "clSetMemObjectDestructorCallback",
        );
        check(clRetainMemObject(b.raw()), "clRetainMemObject");
    }
    assert_eq!(b.ref_count(), 2);
    // SAFETY: drops the reference taken above.
    unsafe {
        check(clReleaseMemObject(b.raw()), "clReleaseMemObject");
    }
    assert_eq!(b.ref_count(), 1);
    // A kernel using the buffer, then the last release: callbacks come after, once each.
    scale(&env, &b, 16, 1, 1);
    let mine = |log: &Vec<usize>| {
        log.iter()
            .copied()
            .filter(|t| *t == 1001 || *t == 1002)
            .collect::<Vec<_>>()
    };
    assert!(
        mine(&DESTRUCTOR_LOG.lock().unwrap()).is_empty(),
        "destructor called while the buffer was alive"
    );
    drop(b);
    assert!(
        wait_until(5.0, || mine(&DESTRUCTOR_LOG.lock().unwrap()).len() == 2),
        "destructor callbacks were not called"
    );
    std::thread::sleep(std::time::Duration::from_millis(50));
    // "Each call to clSetMemObjectDestructorCallback registers the specified callback function
    // on a destructor callback stack associated with memobj. The registered callback functions
    // are called in the reverse order in which they were registered."
    assert_eq!(mine(&DESTRUCTOR_LOG.lock().unwrap()), vec![1002, 1001]);
    // CL_INVALID_VALUE if pfn_notify is NULL.
    let b = env.buffer_zeroed::<u32>(4);
    // SAFETY: a live buffer, NULL callback.
    let rc = unsafe { clSetMemObjectDestructorCallback(b.raw(), None, ptr::null_mut()) };
    expect_code(
        rc,
        CL_INVALID_VALUE,
        "clSetMemObjectDestructorCallback(NULL)",
    );
}

#[test]
fn use_host_ptr_destructor_frees_host_memory_safely() {
    // The usual pattern: free the host allocation in the destructor callback.
    let env = Env::new();
    let host = Box::into_raw(vec![1u32; 256].into_boxed_slice());
    let b = Buffer::try_new(
        &env.ctx,
        CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
        1024,
        host.cast(),
    )
    .unwrap();
    unsafe extern "C" fn free_host(_m: cl_mem, user_data: *mut c_void) {
        // SAFETY: `user_data` is the boxed slice leaked above, freed exactly once here.
        drop(unsafe {
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                user_data.cast::<u32>(),
                256,
            ))
        });
        DESTRUCTOR_LOG.lock().unwrap().push(2001);
    }
    // SAFETY: `host` stays valid until the callback frees it.
    check(
        unsafe { clSetMemObjectDestructorCallback(b.raw(), Some(free_host), host.cast()) },
        "clSetMemObjectDestructorCallback",
    );
    scale(&env, &b, 256, 2, 0);
    assert!(b.read::<u32>(&env.queue, 256).iter().all(|&v| v == 2));
    drop(b);
    assert!(wait_until(5.0, || DESTRUCTOR_LOG
        .lock()
        .unwrap()
        .contains(&2001)));
}

/// The process's resident memory in bytes (`/proc/self/statm`), if Linux says.
fn resident_bytes() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Blocking read of `n` bytes at `offset`.
fn read_at(q: &Queue, b: &Buffer, offset: usize, n: usize) -> Vec<u8> {
    let mut out = vec![0u8; n];
    // SAFETY: `out` has room for `n` bytes; the read is blocking.
    let rc = unsafe {
        clEnqueueReadBuffer(
            q.raw(),
            b.raw(),
            CL_TRUE,
            offset,
            n,
            out.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(rc, "clEnqueueReadBuffer");
    out
}

/// A 1 GiB buffer is not committed at creation (it took 1 to 4 s and the whole GiB when
/// Ferrite zeroed it eagerly; PoCL 0.1 ms): creating it leaves the resident memory of the
/// process far below a GiB larger. It reads as zeros, and writes, a sub-buffer near its
/// end, a kernel on that sub-buffer and a map all work; large `CL_MEM_COPY_HOST_PTR` and
/// `CL_MEM_USE_HOST_PTR` buffers keep their contents.
#[test]
fn large_buffers_are_committed_lazily() {
    let env = Env::new();
    let max: cl_ulong = device_get(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    let size = (1usize << 30).min(max as usize);
    let before = resident_bytes();
    let big = Buffer::new(&env.ctx, CL_MEM_READ_WRITE, size);
    let after = resident_bytes();
    if let (Some(before), Some(after)) = (before, after) {
        // Other tests of this binary run beside this one: allow them half a GiB.
        spec_check(
            after.saturating_sub(before) < size / 2,
            &format!(
                "creating a {size}-byte buffer made {} MiB resident",
                after.saturating_sub(before) >> 20
            ),
        );
    }
    // Untouched, it reads as zeros: at the start, in the middle and at the end.
    for offset in [0, size / 2, size - 4096] {
        assert!(
            read_at(&env.queue, &big, offset, 4096)
                .iter()
                .all(|&b| b == 0),
            "4 KiB at {offset} of a new buffer"
        );
    }
    big.write(&env.queue, size - 8, &[7u8; 8]);
    big.write(&env.queue, 0, &[9u8; 8]);
    assert_eq!(
        read_at(&env.queue, &big, size - 16, 16),
        [[0u8; 8], [7; 8]].concat()
    );
    assert_eq!(read_at(&env.queue, &big, 0, 8), [9u8; 8]);
    // A sub-buffer of the last MiB, scaled by a kernel.
    let mib = 1usize << 20;
    let region = cl_buffer_region {
        origin: size - mib,
        size: mib,
    };
    let mut rc = 0;
    // SAFETY: a live buffer and a cl_buffer_region for CL_BUFFER_CREATE_TYPE_REGION.
    let sub = Buffer(unsafe {
        clCreateSubBuffer(
            big.raw(),
            CL_MEM_READ_WRITE,
            CL_BUFFER_CREATE_TYPE_REGION,
            (&region as *const cl_buffer_region).cast(),
            &mut rc,
        )
    });
    check(rc, "clCreateSubBuffer of the last MiB");
    let words: Vec<u32> = (0..(mib / 4) as u32).collect();
    sub.write(&env.queue, 0, &words);
    scale(&env, &sub, mib / 4, 3, 1);
    let got: Vec<u32> = pod_vec(&read_at(&env.queue, &big, size - mib, mib));
    assert!(got.iter().enumerate().all(|(i, &v)| v == i as u32 * 3 + 1));
    // A map in the middle.
    let p = map(&env.queue, &big, CL_MAP_WRITE, size / 2, 4096);
    // SAFETY: the map covers 4096 writable bytes until the unmap.
    unsafe { std::ptr::write_bytes(p.cast::<u8>(), 5, 4096) };
    unmap(&env.queue, &big, p);
    assert_eq!(read_at(&env.queue, &big, size / 2, 4096), vec![5u8; 4096]);
    drop(sub);
    drop(big);

    // Large buffers from host memory keep their contents.
    let n = 4 * mib;
    let data: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
    let copied = Buffer::from_slice(&env.ctx, CL_MEM_READ_WRITE, &data);
    assert!(
        read_at(&env.queue, &copied, 0, n) == data,
        "CL_MEM_COPY_HOST_PTR"
    );
    let mut host = data.clone();
    let used = Buffer::try_new(
        &env.ctx,
        CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
        n,
        host.as_mut_ptr().cast(),
    )
    .expect("clCreateBuffer(USE_HOST_PTR)");
    assert!(
        read_at(&env.queue, &used, 0, n) == data,
        "CL_MEM_USE_HOST_PTR"
    );
    drop(used);
    drop(host);
}

/// `cl_ext_buffer_device_address`: a buffer created with `CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT`
/// has a device address (`CL_MEM_DEVICE_ADDRESS_EXT`) that `clSetKernelArgDevicePointerEXT`
/// passes to a kernel, offset included; other buffers have none; bad property values and
/// non-pointer arguments are refused.
#[test]
fn buffer_device_address() {
    const PRIVATE_ADDRESS: cl_mem_properties = 0x5000; // CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT
    const DEVICE_ADDRESS: cl_mem_info = 0x5001; // CL_MEM_DEVICE_ADDRESS_EXT
    type SetArgDevicePointer = unsafe extern "C" fn(cl_kernel, cl_uint, cl_ulong) -> cl_int;
    let env = Env::new();
    if !require(
        device_string(CL_DEVICE_EXTENSIONS).contains("cl_ext_buffer_device_address"),
        "cl_ext_buffer_device_address",
    ) {
        return;
    }
    let name = c"clSetKernelArgDevicePointerEXT";
    // SAFETY: a NUL-terminated name and a valid platform.
    let f = unsafe { clGetExtensionFunctionAddressForPlatform(dev().platform, name.as_ptr()) };
    assert!(!f.is_null(), "clSetKernelArgDevicePointerEXT not found");
    // SAFETY: the driver returned this function for this name; its type is the extension's.
    let set_arg: SetArgDevicePointer = unsafe { std::mem::transmute(f) };

    let create = |props: &[cl_mem_properties]| {
        let mut rc = 0;
        // SAFETY: a 0-terminated property list, no host pointer.
        let m = unsafe {
            clCreateBufferWithProperties(
                env.ctx.raw(),
                props.as_ptr(),
                CL_MEM_READ_WRITE,
                16,
                ptr::null_mut(),
                &mut rc,
            )
        };
        (m, rc)
    };
    let (m, rc) = create(&[PRIVATE_ADDRESS, CL_TRUE.into(), 0]);
    check(
        rc,
        "clCreateBufferWithProperties(CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT)",
    );
    let b = Buffer(m);
    let addr: cl_ulong = pod(&mem_info(b.raw(), DEVICE_ADDRESS).expect("device address"));
    assert_ne!(addr, 0);
    let props: Vec<cl_mem_properties> = pod_vec(&mem_info(b.raw(), CL_MEM_PROPERTIES).unwrap());
    assert_eq!(props, vec![PRIVATE_ADDRESS, CL_TRUE.into(), 0]);

    // CL_INVALID_OPERATION for a buffer created without the property (or with CL_FALSE).
    let plain = env.buffer_zeroed::<u8>(8);
    assert_eq!(
        mem_info(plain.raw(), DEVICE_ADDRESS).err(),
        Some(CL_INVALID_OPERATION)
    );
    let (m, rc) = create(&[PRIVATE_ADDRESS, CL_FALSE.into(), 0]);
    check(rc, "CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT = CL_FALSE");
    let off = Buffer(m);
    assert_eq!(
        mem_info(off.raw(), DEVICE_ADDRESS).err(),
        Some(CL_INVALID_OPERATION)
    );
    // CL_INVALID_PROPERTY for a value that is not a cl_bool, or the property twice.
    for bad in [
        vec![PRIVATE_ADDRESS, 2, 0],
        vec![PRIVATE_ADDRESS, 1, PRIVATE_ADDRESS, 1, 0],
    ] {
        let (m, rc) = create(&bad);
        expect_create_err(m, rc, CL_INVALID_PROPERTY, &format!("properties {bad:?}"));
    }

    // The address, 8 bytes in, as the kernel's pointer: it writes the buffer's second ulong.
    let p = env.build(
        "kernel void k(global ulong *p, ulong v, local ulong *l) { *p = v; }",
        "",
    );
    let k = p.kernel("k");
    let value: cl_ulong = 0xAABB_CCDD_EEFF_0011;
    // SAFETY: a live kernel; the address is inside the live buffer `b`.
    check(
        unsafe { set_arg(k.raw(), 0, addr + 8) },
        "clSetKernelArgDevicePointerEXT",
    );
    k.arg(1, &value);
    check(k.set_arg_raw(2, 8, ptr::null()), "local argument");
    run_1d(&env.queue, &k, 1, None);
    assert_eq!(b.read::<cl_ulong>(&env.queue, 2), vec![0, value]);
    // CL_INVALID_ARG_INDEX for an argument that is not a global pointer, or no argument.
    for index in [1, 2, 3] {
        // SAFETY: a live kernel; the driver checks the index before using the value.
        let rc = unsafe { set_arg(k.raw(), index, addr) };
        expect_code(rc, CL_INVALID_ARG_INDEX, &format!("argument {index}"));
    }
}
