//! Program-scope global variables (`__opencl_c_program_scope_global_variables`) and the
//! generic address space (`__opencl_c_generic_address_space`): the device queries, the
//! build query `CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE`, storage shared by the kernels
//! of a program and kept between launches, initialisers pointing at other variables, and
//! built-ins on generic pointers. Linked programs and binaries: `cl_program_link.rs`.

use ferrite_tests::*;

fn has_feature(name: &str) -> bool {
    let bytes = device_info(dev().device, CL_DEVICE_OPENCL_C_FEATURES).unwrap_or_default();
    let n = bytes.len() / std::mem::size_of::<cl_name_version>();
    let feats: Vec<cl_name_version> = pod_vec(&bytes[..n * std::mem::size_of::<cl_name_version>()]);
    feats.iter().any(|f| {
        let raw: Vec<u8> = f.name.iter().copied().take_while(|c| *c != 0).collect();
        raw == name.as_bytes()
    })
}

fn global_total(p: &Program) -> usize {
    pod(&build_info(
        p.raw(),
        dev().device,
        CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
    )
    .unwrap())
}

#[test]
fn device_queries_agree_with_the_features() {
    let globals = has_feature("__opencl_c_program_scope_global_variables");
    let max: usize = device_get(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE);
    let pref: usize = device_get(CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE);
    // OpenCL 3.0: at least 64 KiB with the feature, 0 without.
    spec_check(
        if globals { max >= 64 << 10 } else { max == 0 },
        "CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE",
    );
    spec_check(pref <= max || !globals, "preferred total size");
    let generic: cl_bool = device_get(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT);
    spec_check(
        (generic == CL_TRUE) == has_feature("__opencl_c_generic_address_space"),
        "CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT",
    );
    if is_ferrite() {
        assert!(globals && generic == CL_TRUE);
        // The compiler's bound (MAX_PROGRAM_SCOPE_BYTES, 64 MiB).
        assert_eq!(max, 64 << 20);
    }
}

const PROGRAM: &str = r#"
global int counter = 100;
global long data[4];
global int target = 7;
global int *pointer = &target;
constant int table[2] = { 1, 2 };
kernel void bump(global int *out) {
    static int calls;
    calls++;
    counter += 10;
    out[0] = calls;
    out[1] = counter;
    out[2] = *pointer + table[1];
}
kernel void write(global const long *in) {
    data[get_global_id(0)] = in[get_global_id(0)] * 3;
}
kernel void read(global long *out) {
    out[get_global_id(0)] = data[get_global_id(0)] + counter;
}
"#;

#[test]
fn globals_persist_across_launches_and_kernels() {
    if !require(
        has_feature("__opencl_c_program_scope_global_variables"),
        "program-scope global variables",
    ) {
        return;
    }
    let env = Env::new();
    let unbuilt = Program::from_source(&env.ctx, PROGRAM);
    assert_eq!(global_total(&unbuilt), 0, "no build, no storage");
    let p = env.build(PROGRAM, "-cl-std=CL3.0");
    // counter, data, target, pointer and the static: 4 + 32 + 4 + 8 + 4 bytes at least.
    let total = global_total(&p);
    assert!(
        total >= 52,
        "CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE = {total}"
    );
    let out = env.buffer_zeroed::<i32>(3);
    let bump = p.kernel("bump");
    bump.buf(0, &out);
    run_1d(&env.queue, &bump, 1, None);
    assert_eq!(out.read::<i32>(&env.queue, 3), [1, 110, 9]);
    run_1d(&env.queue, &bump, 1, None);
    assert_eq!(out.read::<i32>(&env.queue, 3), [2, 120, 9]);

    let input = env.buffer_from(&[1i64, 2, 3, 4]);
    let result = env.buffer_zeroed::<i64>(4);
    let (write, read) = (p.kernel("write"), p.kernel("read"));
    write.buf(0, &input);
    read.buf(0, &result);
    run_1d(&env.queue, &write, 4, None);
    run_1d(&env.queue, &read, 4, None);
    assert_eq!(result.read::<i64>(&env.queue, 4), [123, 126, 129, 132]);

    // Another program from the same source has storage of its own.
    let p2 = env.build(PROGRAM, "-cl-std=CL3.0");
    let read2 = p2.kernel("read");
    read2.buf(0, &result);
    run_1d(&env.queue, &read2, 4, None);
    assert_eq!(result.read::<i64>(&env.queue, 4), [100; 4]);
}

#[test]
fn builtins_take_generic_pointers() {
    if !require(
        has_feature("__opencl_c_generic_address_space"),
        "the generic address space",
    ) {
        return;
    }
    let env = Env::new();
    let src = r#"
float use(float x, float *p) {
    float whole;
    float f = fract(x, &whole);
    *p = whole;
    return f + vload2(0, p).y;
}
kernel void k(global float *g, local float *l, global float *out) {
    int i = get_global_id(0);
    float priv[2] = { 0.0f, 5.0f };
    l[2 * i] = 0.0f;
    l[2 * i + 1] = 6.0f;
    out[3 * i + 0] = use(2.25f, &g[2 * i]);
    out[3 * i + 1] = use(3.5f, &l[2 * i]);
    out[3 * i + 2] = use(4.75f, priv);
    atomic_int *counter = (atomic_int *)&g[16];
    atomic_fetch_add(counter, 1);
}
"#;
    let p = env.build(src, "-cl-std=CL3.0");
    let mut init = vec![0f32; 17];
    for i in 0..8 {
        init[2 * i + 1] = 4.0;
    }
    let g = env.buffer_from(&init);
    let out = env.buffer_zeroed::<f32>(24);
    let k = p.kernel("k");
    k.buf(0, &g).local(1, 16 * 4).buf(2, &out);
    run_1d(&env.queue, &k, 8, Some(8));
    let o: Vec<f32> = out.read(&env.queue, 24);
    for i in 0..8 {
        assert_eq!(&o[3 * i..3 * i + 3], &[4.25, 6.5, 5.75], "work-item {i}");
    }
    let gv: Vec<f32> = g.read(&env.queue, 17);
    assert_eq!(gv[0], 2.0);
    assert_eq!(
        gv[16].to_bits(),
        8,
        "atomic_fetch_add through a generic pointer"
    );
}
