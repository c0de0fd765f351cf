//! Sub-buffers (creation rules, flags inheritance, queries, aliasing with the parent,
//! copy-overlap errors), rectangular reads/writes/copies with their pitch rules, host
//! access flags on every host command, maps (counts, overlapping maps, bad unmaps),
//! migration and destructor callbacks.

use ferrite_tests::*;
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

fn align() -> usize {
    let bits: cl_uint = device_get(CL_DEVICE_MEM_BASE_ADDR_ALIGN);
    bits as usize / 8
}

fn sub_buffer(
    parent: &Buffer,
    flags: cl_mem_flags,
    origin: usize,
    size: usize,
) -> Result<Buffer, cl_int> {
    let region = cl_buffer_region { origin, size };
    let mut rc = 0;
    // SAFETY: a live buffer and a cl_buffer_region for CL_BUFFER_CREATE_TYPE_REGION.
    let m = unsafe {
        clCreateSubBuffer(
            parent.raw(),
            flags,
            CL_BUFFER_CREATE_TYPE_REGION,
            (&region as *const cl_buffer_region).cast(),
            &mut rc,
        )
    };
    if rc != CL_SUCCESS {
        assert!(m.is_null());
        return Err(rc);
    }
    Ok(Buffer(m))
}

#[test]
fn sub_buffers_alias_their_parent() {
    let env = Env::new();
    let a = align();
    let data: Vec<u8> = (0..(4 * a) as u32).map(|i| i as u8).collect();
    let parent = env.buffer_from(&data);
    let sub = sub_buffer(&parent, 0, a, 2 * a).expect("clCreateSubBuffer");
    assert_eq!(sub.read::<u8>(&env.queue, 2 * a), data[a..3 * a].to_vec());
    sub.write(&env.queue, 0, &[0xEEu8; 4]);
    let all: Vec<u8> = parent.read(&env.queue, 4 * a);
    assert_eq!(&all[a..a + 4], &[0xEE; 4]);
    // Queries.
    let assoc: cl_mem = pod(&mem_info(sub.raw(), CL_MEM_ASSOCIATED_MEMOBJECT).unwrap());
    assert_eq!(assoc, parent.raw());
    let off: usize = pod(&mem_info(sub.raw(), CL_MEM_OFFSET).unwrap());
    assert_eq!(off, a);
    let size: usize = pod(&mem_info(sub.raw(), CL_MEM_SIZE).unwrap());
    assert_eq!(size, 2 * a);
    let none: cl_mem = pod(&mem_info(parent.raw(), CL_MEM_ASSOCIATED_MEMOBJECT).unwrap());
    assert!(none.is_null());
    let flags: cl_mem_flags = pod(&mem_info(sub.raw(), CL_MEM_FLAGS).unwrap());
    assert_ne!(flags & CL_MEM_READ_WRITE, 0, "access is inherited");
    let svm: cl_bool = pod(&mem_info(sub.raw(), CL_MEM_USES_SVM_POINTER).unwrap());
    assert_eq!(svm, CL_FALSE);
    assert_eq!(mem_info(sub.raw(), CL_MEM_PROPERTIES).unwrap().len(), 0);
    // The sub-buffer holds its parent: the parent's count is the application's alone.
    assert_eq!(parent.ref_count(), 1);
    drop(parent);
    assert_eq!(sub.read::<u8>(&env.queue, 4), vec![0xEE; 4]);
}

#[test]
fn sub_buffer_errors() {
    let env = Env::new();
    let a = align();
    let parent = Buffer::new(&env.ctx, CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY, 4 * a);
    // CL_MISALIGNED_SUB_BUFFER_OFFSET: origin not aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN.
    expect_code(
        sub_buffer(&parent, 0, 1, 16).err().unwrap_or(0),
        CL_MISALIGNED_SUB_BUFFER_OFFSET,
        "misaligned origin",
    );
    // CL_INVALID_BUFFER_SIZE: size 0.
    expect_code(
        sub_buffer(&parent, 0, 0, 0).err().unwrap_or(0),
        CL_INVALID_BUFFER_SIZE,
        "size 0",
    );
    // CL_INVALID_VALUE: out of bounds.
    expect_code(
        sub_buffer(&parent, 0, 2 * a, 3 * a).err().unwrap_or(0),
        CL_INVALID_VALUE,
        "region out of bounds",
    );
    // CL_INVALID_VALUE: access that contradicts the parent's.
    for bad in [
        CL_MEM_READ_WRITE,
        CL_MEM_WRITE_ONLY,
        CL_MEM_HOST_WRITE_ONLY,
        CL_MEM_USE_HOST_PTR,
    ] {
        expect_code(
            sub_buffer(&parent, bad, 0, a).err().unwrap_or(0),
            CL_INVALID_VALUE,
            &format!("flags {bad:#x}"),
        );
    }
    // Inherited flags: read-only for the device, read-only for the host.
    let sub = sub_buffer(&parent, 0, 0, a).unwrap();
    let flags: cl_mem_flags = pod(&mem_info(sub.raw(), CL_MEM_FLAGS).unwrap());
    assert_eq!(
        flags & (CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY),
        CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY
    );
    // CL_INVALID_MEM_OBJECT: a sub-buffer of a sub-buffer.
    expect_code(
        sub_buffer(&sub, 0, 0, 16).err().unwrap_or(0),
        CL_INVALID_MEM_OBJECT,
        "sub-buffer of a sub-buffer",
    );
    // CL_INVALID_VALUE: unknown create type; NULL info.
    let mut rc = 0;
    let region = cl_buffer_region {
        origin: 0,
        size: 16,
    };
    // SAFETY: invalid arguments are rejected before anything is created.
    let m = unsafe {
        clCreateSubBuffer(
            parent.raw(),
            0,
            0x7777,
            (&region as *const cl_buffer_region).cast(),
            &mut rc,
        )
    };
    expect_create_err(m, rc, CL_INVALID_VALUE, "unknown buffer_create_type");
    // SAFETY: as above.
    let m = unsafe {
        clCreateSubBuffer(
            parent.raw(),
            0,
            CL_BUFFER_CREATE_TYPE_REGION,
            ptr::null(),
            &mut rc,
        )
    };
    expect_create_err(m, rc, CL_INVALID_VALUE, "NULL buffer_create_info");
    // The host-access flags inherited by the sub-buffer are enforced.
    let mut word = 0u32;
    // SAFETY: `word` is 4 writable bytes; the call fails before using it.
    let rc = unsafe {
        clEnqueueWriteBuffer(
            env.queue.raw(),
            sub.raw(),
            CL_TRUE,
            0,
            4,
            (&word as *const u32).cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_INVALID_OPERATION,
        "write to a HOST_READ_ONLY sub-buffer",
    );
    // SAFETY: `word` is 4 writable bytes.
    let rc = unsafe {
        clEnqueueReadBuffer(
            env.queue.raw(),
            sub.raw(),
            CL_TRUE,
            0,
            4,
            (&mut word as *mut u32).cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(rc, "read from a HOST_READ_ONLY sub-buffer");
}

fn copy(q: &Queue, src: &Buffer, dst: &Buffer, so: usize, d: usize, size: usize) -> cl_int {
    // SAFETY: live handles; the driver checks the ranges.
    let rc = unsafe {
        clEnqueueCopyBuffer(
            q.raw(),
            src.raw(),
            dst.raw(),
            so,
            d,
            size,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    if rc == CL_SUCCESS {
        q.finish();
    }
    rc
}

#[test]
fn copy_overlap_is_detected_through_sub_buffers() {
    let env = Env::new();
    let a = align();
    let parent = env.buffer_zeroed::<u8>(4 * a);
    let s1 = sub_buffer(&parent, 0, 0, 2 * a).unwrap();
    let s2 = sub_buffer(&parent, 0, a, 2 * a).unwrap();
    let s3 = sub_buffer(&parent, 0, 2 * a, 2 * a).unwrap();
    let q = &env.queue;
    expect_code(
        copy(q, &parent, &parent, 0, 8, 16),
        CL_MEM_COPY_OVERLAP,
        "same buffer, overlapping",
    );
    check(
        copy(q, &parent, &parent, 0, 16, 16),
        "same buffer, disjoint",
    );
    // s1[a..2a] is parent[a..2a] = s2[0..a].
    expect_code(
        copy(q, &s1, &s2, a, 0, 16),
        CL_MEM_COPY_OVERLAP,
        "sibling sub-buffers overlapping",
    );
    check(copy(q, &s1, &s3, 0, 0, a), "sibling sub-buffers, disjoint");
    expect_code(
        copy(q, &parent, &s2, a, 0, 16),
        CL_MEM_COPY_OVERLAP,
        "parent and its sub-buffer",
    );
    check(
        copy(q, &parent, &s2, 0, 0, 16),
        "parent and its sub-buffer, disjoint",
    );
}

#[allow(clippy::too_many_arguments)]
fn read_rect(
    q: &Queue,
    b: &Buffer,
    bo: [usize; 3],
    ho: [usize; 3],
    region: [usize; 3],
    bp: (usize, usize),
    hp: (usize, usize),
    out: &mut [u8],
) -> cl_int {
    // SAFETY: `out` covers the host rectangle in the calls that succeed; the read is
    // blocking.
    unsafe {
        clEnqueueReadBufferRect(
            q.raw(),
            b.raw(),
            CL_TRUE,
            bo.as_ptr(),
            ho.as_ptr(),
            region.as_ptr(),
            bp.0,
            bp.1,
            hp.0,
            hp.1,
            out.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    }
}

#[test]
fn rect_transfers_move_the_right_bytes() {
    let env = Env::new();
    // A 16×8×2 byte volume.
    let data: Vec<u8> = (0..256u32).map(|i| i as u8).collect();
    let b = env.buffer_from(&data);
    let q = &env.queue;
    let mut out = vec![0u8; 64];
    // 4×3×2 bytes at (2, 1, 0) with pitches 16 / 128, packed on the host.
    check(
        read_rect(
            q,
            &b,
            [2, 1, 0],
            [0, 0, 0],
            [4, 3, 2],
            (16, 128),
            (0, 0),
            &mut out,
        ),
        "clEnqueueReadBufferRect",
    );
    let mut expect = Vec::new();
    for z in 0..2 {
        for y in 1..4 {
            for x in 2..6 {
                expect.push((z * 128 + y * 16 + x) as u8);
            }
        }
    }
    assert_eq!(&out[..24], &expect[..]);
    // Write a 2×2 block back at (8, 4, 1) from a host block with row pitch 5.
    let host: Vec<u8> = vec![1, 2, 0, 0, 0, 3, 4, 0, 0, 0];
    let (bo, ho, region) = ([8usize, 4, 1], [0usize, 0, 0], [2usize, 2, 1]);
    // SAFETY: `host` covers the host rectangle; blocking.
    let rc = unsafe {
        clEnqueueWriteBufferRect(
            q.raw(),
            b.raw(),
            CL_TRUE,
            bo.as_ptr(),
            ho.as_ptr(),
            region.as_ptr(),
            16,
            128,
            5,
            0,
            host.as_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(rc, "clEnqueueWriteBufferRect");
    let all: Vec<u8> = b.read(q, 256);
    assert_eq!(&all[128 + 64 + 8..128 + 64 + 10], &[1, 2]);
    assert_eq!(&all[128 + 80 + 8..128 + 80 + 10], &[3, 4]);
    // Copy a 4×2 block inside the same buffer (same pitches, disjoint), and check the event.
    let dst = env.buffer_zeroed::<u8>(256);
    let (so, dso, region) = ([0usize, 0, 0], [4usize, 2, 0], [4usize, 2, 1]);
    let mut ev = ptr::null_mut();
    // SAFETY: live buffers; the driver checks the rectangles.
    let rc = unsafe {
        clEnqueueCopyBufferRect(
            q.raw(),
            b.raw(),
            dst.raw(),
            so.as_ptr(),
            dso.as_ptr(),
            region.as_ptr(),
            16,
            0,
            16,
            0,
            0,
            ptr::null(),
            &mut ev,
        )
    };
    check(rc, "clEnqueueCopyBufferRect");
    let ev = Event(ev);
    ev.wait();
    assert_eq!(ev.command_type(), CL_COMMAND_COPY_BUFFER_RECT);
    let got: Vec<u8> = dst.read(q, 256);
    assert_eq!(&got[36..40], &[0, 1, 2, 3]);
    assert_eq!(&got[52..56], &[16, 17, 18, 19]);
    // Overlap inside one buffer: same pitches, shifted by one byte.
    let (so, dso) = ([0usize, 0, 0], [1usize, 0, 0]);
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueCopyBufferRect(
            q.raw(),
            b.raw(),
            b.raw(),
            so.as_ptr(),
            dso.as_ptr(),
            region.as_ptr(),
            16,
            0,
            16,
            0,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_MEM_COPY_OVERLAP, "overlapping rect copy");
    // Interleaved columns of one buffer do not overlap.
    let (so, dso, region) = ([0usize, 0, 0], [8usize, 0, 0], [8usize, 4, 1]);
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueCopyBufferRect(
            q.raw(),
            b.raw(),
            b.raw(),
            so.as_ptr(),
            dso.as_ptr(),
            region.as_ptr(),
            16,
            0,
            16,
            0,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(rc, "side-by-side rect copy in one buffer");
    q.finish();
}

#[test]
fn rect_pitch_rules_and_host_flags() {
    let env = Env::new();
    let b = env.buffer_zeroed::<u8>(256);
    let q = &env.queue;
    let mut out = vec![0u8; 256];
    let z = [0usize; 3];
    type Case = (
        [usize; 3],
        [usize; 3],
        (usize, usize),
        (usize, usize),
        &'static str,
    );
    let cases: [Case; 6] = [
        (z, [0, 1, 1], (0, 0), (0, 0), "a region element is 0"),
        (z, [8, 2, 1], (4, 0), (0, 0), "buffer_row_pitch < region[0]"),
        (z, [8, 2, 1], (0, 0), (4, 0), "host_row_pitch < region[0]"),
        (
            z,
            [8, 2, 2],
            (8, 8),
            (0, 0),
            "buffer_slice_pitch < region[1] * row pitch",
        ),
        (
            z,
            [8, 2, 2],
            (0, 0),
            (8, 20),
            "host_slice_pitch not a multiple of the row pitch",
        ),
        ([0, 0, 1], [16, 16, 1], (16, 256), (0, 0), "out of bounds"),
    ];
    for (bo, region, bp, hp, what) in cases {
        expect_code(
            read_rect(q, &b, bo, z, region, bp, hp, &mut out),
            CL_INVALID_VALUE,
            what,
        );
    }
    // NULL origin, NULL ptr.
    let region = [4usize, 1, 1];
    // SAFETY: invalid arguments are rejected before memory is touched.
    let rc = unsafe {
        clEnqueueReadBufferRect(
            q.raw(),
            b.raw(),
            CL_TRUE,
            ptr::null(),
            z.as_ptr(),
            region.as_ptr(),
            0,
            0,
            0,
            0,
            out.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "NULL buffer_origin");
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueReadBufferRect(
            q.raw(),
            b.raw(),
            CL_TRUE,
            z.as_ptr(),
            z.as_ptr(),
            region.as_ptr(),
            0,
            0,
            0,
            0,
            ptr::null_mut(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "NULL ptr");
    // Host access flags.
    let no_host = Buffer::new(&env.ctx, CL_MEM_HOST_NO_ACCESS, 256);
    expect_code(
        read_rect(q, &no_host, z, z, region, (0, 0), (0, 0), &mut out),
        CL_INVALID_OPERATION,
        "rect read of a HOST_NO_ACCESS buffer",
    );
    let read_only = Buffer::new(&env.ctx, CL_MEM_HOST_READ_ONLY, 256);
    // SAFETY: `out` covers the rectangle; blocking.
    let rc = unsafe {
        clEnqueueWriteBufferRect(
            q.raw(),
            read_only.raw(),
            CL_TRUE,
            z.as_ptr(),
            z.as_ptr(),
            region.as_ptr(),
            0,
            0,
            0,
            0,
            out.as_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(
        rc,
        CL_INVALID_OPERATION,
        "rect write of a HOST_READ_ONLY buffer",
    );
    let mut rc = 0;
    // SAFETY: a map that must fail.
    let p = unsafe {
        clEnqueueMapBuffer(
            q.raw(),
            read_only.raw(),
            CL_TRUE,
            CL_MAP_WRITE,
            0,
            16,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut rc,
        )
    };
    expect_create_err(
        p,
        rc,
        CL_INVALID_OPERATION,
        "map for writing of a HOST_READ_ONLY buffer",
    );
}

fn map(q: &Queue, b: &Buffer, flags: cl_map_flags, offset: usize, size: usize) -> *mut c_void {
    let mut rc = 0;
    // SAFETY: a blocking map of a live buffer.
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
    p
}

fn unmap(q: &Queue, b: &Buffer, p: *mut c_void) -> cl_int {
    // SAFETY: the driver checks the pointer.
    let rc =
        unsafe { clEnqueueUnmapMemObject(q.raw(), b.raw(), p, 0, ptr::null(), ptr::null_mut()) };
    q.finish();
    rc
}

#[test]
fn map_counts_overlapping_maps_and_bad_unmaps() {
    let env = Env::new();
    let b = env.buffer_from(&[5u32; 64]);
    let q = &env.queue;
    let count = || -> cl_uint { pod(&mem_info(b.raw(), CL_MEM_MAP_COUNT).unwrap()) };
    let p1 = map(q, &b, CL_MAP_READ, 0, 64);
    let p2 = map(q, &b, CL_MAP_READ, 0, 64);
    let p3 = map(q, &b, CL_MAP_READ, 32, 64);
    assert_eq!(count(), 3);
    // SAFETY: p3 maps 64 readable bytes.
    assert_eq!(unsafe { *(p3 as *const u32) }, 5);
    expect_code(
        unmap(q, &b, (p3 as usize + 4) as *mut c_void),
        CL_INVALID_VALUE,
        "unmap of a pointer that is not mapped",
    );
    for p in [p1, p2, p3] {
        check(unmap(q, &b, p), "clEnqueueUnmapMemObject");
    }
    assert_eq!(count(), 0);
    expect_code(
        unmap(q, &b, p1),
        CL_INVALID_VALUE,
        "unmap after the last unmap",
    );
}

#[test]
fn migrate_is_a_command() {
    let env = Env::new();
    let b = env.buffer_zeroed::<u32>(16);
    let mut ev = ptr::null_mut();
    let mems = [b.raw()];
    // SAFETY: one live buffer.
    let rc = unsafe {
        clEnqueueMigrateMemObjects(
            env.queue.raw(),
            1,
            mems.as_ptr(),
            CL_MIGRATE_MEM_OBJECT_HOST,
            0,
            ptr::null(),
            &mut ev,
        )
    };
    check(rc, "clEnqueueMigrateMemObjects");
    let ev = Event(ev);
    ev.wait();
    assert_eq!(ev.command_type(), CL_COMMAND_MIGRATE_MEM_OBJECTS);
    // SAFETY: invalid arguments are rejected first.
    let rc = unsafe {
        clEnqueueMigrateMemObjects(
            env.queue.raw(),
            0,
            mems.as_ptr(),
            0,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "no memory objects");
    // SAFETY: as above.
    let rc = unsafe {
        clEnqueueMigrateMemObjects(
            env.queue.raw(),
            1,
            mems.as_ptr(),
            1 << 10,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_code(rc, CL_INVALID_VALUE, "unknown migration flags");
}

static DESTROYED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn on_destroy(_m: cl_mem, user_data: *mut c_void) {
    // Sub-buffer callbacks (tag 1) must run before the parent's (tag 2).
    let tag = user_data as usize;
    let prev = DESTROYED.swap(tag, Ordering::SeqCst);
    assert!(
        tag == 1 && prev == 0 || tag == 2 && prev == 1,
        "order {prev} -> {tag}"
    );
}

#[test]
fn destructor_callbacks_run_sub_buffer_first() {
    let env = Env::new();
    let a = align();
    let parent = env.buffer_zeroed::<u8>(2 * a);
    let sub = sub_buffer(&parent, 0, a, a).unwrap();
    // SAFETY: live objects, a valid callback.
    unsafe {
        check(
            clSetMemObjectDestructorCallback(
                parent.raw(),
                Some(on_destroy),
                ptr::without_provenance_mut(2),
            ),
            "callback",
        );
        check(
            clSetMemObjectDestructorCallback(
                sub.raw(),
                Some(on_destroy),
                ptr::without_provenance_mut(1),
            ),
            "callback",
        );
    }
    drop(parent);
    assert_eq!(
        DESTROYED.load(Ordering::SeqCst),
        0,
        "the parent is alive through its sub-buffer"
    );
    drop(sub);
    assert_eq!(DESTROYED.load(Ordering::SeqCst), 2);
}
