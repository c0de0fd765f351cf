//! Native kernels: `clEnqueueNativeKernel` calls the application's function with a copy
//! of its argument block in which memory objects are replaced by their host addresses;
//! the event has `CL_COMMAND_NATIVE_KERNEL`; the argument errors.

use ferrite_tests::*;
use std::ffi::c_void;
use std::ptr;

#[repr(C)]
struct Args {
    n: u32,
    scale: i32,
    input: *const i32,
    output: *mut i32,
}

unsafe extern "C" fn scale_native(args: *mut c_void) {
    // SAFETY: the driver passes its copy of `Args` with the two buffer addresses filled in.
    unsafe {
        let a = &*(args as *const Args);
        for i in 0..a.n as usize {
            *a.output.add(i) = *a.input.add(i) * a.scale;
        }
    }
}

fn native_supported() -> bool {
    let exec: cl_device_exec_capabilities = device_get(CL_DEVICE_EXECUTION_CAPABILITIES);
    require(
        exec & CL_EXEC_NATIVE_KERNEL != 0,
        "device does not run native kernels",
    )
}

#[test]
fn native_kernel_sees_buffers_as_host_pointers() {
    if !native_supported() {
        return;
    }
    let env = Env::new();
    let input: Vec<i32> = (0..256).collect();
    let bin = env.buffer_from(&input);
    let bout = env.buffer_zeroed::<i32>(256);
    let mut args = Args {
        n: 256,
        scale: 3,
        input: ptr::null(),
        output: ptr::null_mut(),
    };
    let mems = [bin.raw(), bout.raw()];
    let locs: [*const c_void; 2] = [
        ptr::addr_of!(args.input).cast(),
        ptr::addr_of!(args.output).cast(),
    ];
    let mut ev = ptr::null_mut();
    // SAFETY: `args` is copied at enqueue; `locs` point into it.
    let rc = unsafe {
        clEnqueueNativeKernel(
            env.queue.raw(),
            Some(scale_native),
            ptr::addr_of_mut!(args).cast(),
            std::mem::size_of::<Args>(),
            2,
            mems.as_ptr(),
            locs.as_ptr() as *mut *const c_void,
            0,
            ptr::null(),
            &mut ev,
        )
    };
    check(rc, "clEnqueueNativeKernel");
    // The application's block is not modified (the driver works on a copy).
    args.scale = 1000;
    let ev = Event(ev);
    ev.wait();
    assert_eq!(ev.command_type(), CL_COMMAND_NATIVE_KERNEL);
    assert!(args.input.is_null());
    let out: Vec<i32> = bout.read(&env.queue, 256);
    assert_eq!(out, input.iter().map(|x| x * 3).collect::<Vec<_>>());
}

#[test]
fn native_kernel_argument_errors() {
    if !native_supported() {
        return;
    }
    let env = Env::new();
    let q = env.queue.raw();
    let b = env.buffer_zeroed::<i32>(4);
    let mut block = [0u64; 4];
    let mems = [b.raw()];
    let locs: [*const c_void; 1] = [block.as_ptr().cast()];
    let call = |f: Option<unsafe extern "C" fn(*mut c_void)>,
                args: *mut c_void,
                cb: usize,
                n: cl_uint,
                mem_list: *const cl_mem,
                loc: *const *const c_void| {
        // SAFETY: every call below is rejected before anything runs.
        unsafe {
            clEnqueueNativeKernel(
                q,
                f,
                args,
                cb,
                n,
                mem_list,
                loc as *mut _,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        }
    };
    let args = block.as_mut_ptr() as *mut c_void;
    let f = Some(scale_native as unsafe extern "C" fn(*mut c_void));
    expect_code(
        call(None, args, 32, 0, ptr::null(), ptr::null()),
        CL_INVALID_VALUE,
        "NULL user_func",
    );
    expect_code(
        call(f, ptr::null_mut(), 32, 0, ptr::null(), ptr::null()),
        CL_INVALID_VALUE,
        "NULL args, cb_args > 0",
    );
    expect_code(
        call(f, args, 0, 0, ptr::null(), ptr::null()),
        CL_INVALID_VALUE,
        "args with cb_args 0",
    );
    expect_code(
        call(f, args, 32, 1, ptr::null(), locs.as_ptr()),
        CL_INVALID_VALUE,
        "NULL mem_list",
    );
    expect_code(
        call(f, args, 32, 0, mems.as_ptr(), ptr::null()),
        CL_INVALID_VALUE,
        "mem_list without objects",
    );
    let bogus: [cl_mem; 1] = [wrong_handle(q)];
    expect_code(
        call(f, args, 32, 1, bogus.as_ptr(), locs.as_ptr()),
        CL_INVALID_MEM_OBJECT,
        "not a memory object",
    );
}
