//! Program-scope variables (`__opencl_c_program_scope_global_variables`): `__global` and
//! function-scope `static` variables with initialisers, including initialisers that point
//! at other variables; one storage per module, shared by its kernels and kept from launch
//! to launch. And generic pointers (`__opencl_c_generic_address_space`) to every address
//! space, through helpers taking unqualified pointers.

#[path = "common/harness.rs"]
mod harness;

use ferrite_compiler::{CompileError, Module};
use harness::{cl_to_spirv, run1, spvasm, Args, TestModule};

fn kernel_file(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/kernels")
        .join(name);
    std::fs::read_to_string(p).expect("read kernel file")
}

/// Run kernel `name` of `m` once with one work-item and `out` as its first argument.
fn run_once(m: &TestModule, name: &str, out: &mut [i64]) {
    let k = m.kernel(name);
    let mut args = Args::new(&k.info);
    args.buf(0, out);
    run1(&k, &args, 1, 1);
}

const POINTER_INITS: &str = r#"
    global int a = 3;
    global int arr[4] = { 10, 20, 30, 40 };
    global int *p = &a;
    global int *q = &arr[2];
    constant int c = 5;
    struct S { global int *x; int y; global int *z; };
    global struct S s = { &a, 7, arr + 1 };
    global int *global pp[3] = { &a, 0, &arr[3] };
    global int *global *ppp = &pp[2];
    int *gen = &arr[0];
    global ulong uninit;
    kernel void read(global long *out) {
        out[0] = *p;
        out[1] = *q;
        out[2] = *s.x + s.y + *s.z;
        out[3] = *pp[0] + (pp[1] == 0) + *pp[2];
        out[4] = **ppp;
        out[5] = *gen + c;
        out[6] = uninit;
        out[7] = (long)(s.z - arr);
    }
"#;

#[test]
fn initialisers_point_at_other_variables() {
    let Some(spv) = cl_to_spirv(POINTER_INITS) else {
        return;
    };
    check_pointer_inits(&TestModule::new(&spv));
}

/// The same initialisers as clang-22's own SPIR-V target writes them: byte offsets as the
/// index of a `PtrAccessChain` typed `uchar*` on a `uint` array, a cast of a generic null
/// among `uint*` constituents (invalid SPIR-V, read as clang meant).
#[test]
fn clang22_initialisers_read_as_meant() {
    let Some(spv) = spvasm(&kernel_file("clang22_pointer_inits.spvasm")) else {
        return;
    };
    check_pointer_inits(&TestModule::new(&spv));
}

/// What [`POINTER_INITS`] must hold, however it was compiled.
fn check_pointer_inits(m: &TestModule) {
    // a, arr, p, q, s, pp, ppp, gen, uninit: the `__constant` c is not counted.
    assert_eq!(
        m.global_variable_bytes(),
        4 + 16 + 8 + 8 + 24 + 24 + 8 + 8 + 8
    );
    let mut out = [0i64; 8];
    run_once(m, "read", &mut out);
    assert_eq!(out, [3, 30, 3 + 7 + 20, 3 + 1 + 40, 40, 10 + 5, 0, 1]);
    let a = m.global_variable("a").expect("a is exported");
    assert_eq!(a.size, 4);
    // SAFETY: `a` holds the module's storage alive; the variable is 4 bytes at `addr`.
    assert_eq!(unsafe { *(a.addr as *const i32) }, 3);
    assert!(m.global_variable("no_such_variable").is_none());
}

const PERSISTENT: &str = r#"
    global int counter = 100;
    global long shared_data[4];
    kernel void bump(global long *out) {
        static int calls = 0;
        calls += 1;
        counter += 10;
        out[0] = calls;
        out[1] = counter;
    }
    kernel void write(global long *in) {
        for (int i = 0; i < 4; i++) shared_data[i] = in[i] * 2;
    }
    kernel void read(global long *out) {
        for (int i = 0; i < 4; i++) out[i] = shared_data[i];
        out[4] = counter;
    }
"#;

#[test]
fn storage_persists_across_launches_and_kernels() {
    let Some(spv) = cl_to_spirv(PERSISTENT) else {
        return;
    };
    let m = TestModule::new(&spv);
    let mut out = [0i64; 5];
    run_once(&m, "bump", &mut out);
    assert_eq!(&out[..2], &[1, 110]);
    run_once(&m, "bump", &mut out);
    assert_eq!(&out[..2], &[2, 120]);
    let mut data = [1i64, 2, 3, 4, 0];
    run_once(&m, "write", &mut data);
    run_once(&m, "read", &mut out);
    assert_eq!(out, [2, 4, 6, 8, 120]);
    // A second module from the same SPIR-V has storage of its own, initialised afresh.
    let m2 = TestModule::new(&spv);
    run_once(&m2, "read", &mut out);
    assert_eq!(out, [0, 0, 0, 0, 100]);
}

#[test]
fn every_work_item_sees_the_same_storage() {
    let Some(spv) = cl_to_spirv(
        r#"
        global int hits;
        kernel void count(global int *out) {
            atomic_fetch_add((volatile global atomic_int *)&hits, 1);
            out[get_global_id(0)] = get_global_id(0);
        }
        kernel void total(global int *out) { out[0] = hits; }
        "#,
    ) else {
        return;
    };
    let m = TestModule::new(&spv);
    let k = m.kernel("count");
    let mut out = vec![0i32; 64];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut out);
    run1(&k, &args, 64, 16);
    let t = m.kernel("total");
    let mut args = Args::new(&t.info);
    args.buf(0, &mut out);
    run1(&t, &args, 1, 1);
    assert_eq!(out[0], 64);
}

#[test]
fn other_producers_address_initialisers() {
    let Some(spv) = spvasm(&kernel_file("global_inits.spvasm")) else {
        return;
    };
    let m = TestModule::new(&spv);
    let k = m.kernel("globals");
    let mut out = [0u32; 5];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut out);
    run1(&k, &args, 1, 1);
    assert_eq!(out, [7, 1, 6, 7, 0]);
}

const GENERIC: &str = r#"
    global int g = 1000;
    int load(int *p) { return *p; }
    void add(int *p, int v) { *p += v; }
    int which(int *p) {
        return (to_global(p) != 0) | ((to_local(p) != 0) << 1) | ((to_private(p) != 0) << 2);
    }
    kernel void k(global int *buf, local int *lbuf, global int *out) {
        int i = get_local_id(0);
        int priv = 3 * i;
        lbuf[i] = 2 * i;
        add(&buf[i], 1);
        add(&lbuf[i], 1);
        add(&priv, 1);
        barrier(CLK_LOCAL_MEM_FENCE);
        out[8 * i + 0] = load(&buf[i]);
        out[8 * i + 1] = load(&lbuf[i]);
        out[8 * i + 2] = load(&priv);
        out[8 * i + 3] = load(&g);
        out[8 * i + 4] = which(&buf[i]);
        out[8 * i + 5] = which(&lbuf[i]);
        out[8 * i + 6] = which(&priv);
        out[8 * i + 7] = get_fence(&lbuf[i]) == CLK_LOCAL_MEM_FENCE;
    }
"#;

#[test]
fn generic_pointers_to_every_address_space() {
    let Some(spv) = cl_to_spirv(GENERIC) else {
        return;
    };
    let m = TestModule::new(&spv);
    let k = m.kernel("k");
    let n = 8usize;
    let mut buf: Vec<i32> = (0..n as i32).map(|i| 10 * i).collect();
    let mut out = vec![0i32; 8 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut buf).local(1, 0).buf(2, &mut out);
    harness::run1_local(&k, &args, n as u64, n as u64, 4 * n);
    for i in 0..n {
        let i32_ = i as i32;
        assert_eq!(
            &out[8 * i..8 * i + 8],
            &[10 * i32_ + 1, 2 * i32_ + 1, 3 * i32_ + 1, 1000, 1, 2, 4, 1],
            "work-item {i}"
        );
    }
}

#[test]
fn bad_address_initialisers_are_errors() {
    // An initialiser taking the address of a `Workgroup` variable.
    let local_addr = kernel_file("global_inits.spvasm").replace(
        "          %s = OpVariable %ptr_S CrossWorkgroup %s_init",
        "          %s = OpVariable %ptr_S CrossWorkgroup %s_init\n\
             %ptr_wg = OpTypePointer Workgroup %uint\n\
             %wg = OpVariable %ptr_wg Workgroup\n\
             %ptr_ptr_wg = OpTypePointer CrossWorkgroup %ptr_wg\n\
             %bad = OpVariable %ptr_ptr_wg CrossWorkgroup %wg",
    );
    // Arithmetic an address cannot take part in.
    let mul = kernel_file("global_inits.spvasm").replace(
        "%plus8 = OpSpecConstantOp %ulong IAdd %sbits %ulong_8",
        "%plus8 = OpSpecConstantOp %ulong IMul %sbits %ulong_8",
    );
    // An address narrowed to 32 bits.
    let narrow = kernel_file("global_inits.spvasm").replace(
        "%sbits = OpSpecConstantOp %ulong ConvertPtrToU %s",
        "%sbits32 = OpSpecConstantOp %uint ConvertPtrToU %s\n\
         %sbits = OpSpecConstantOp %ulong UConvert %sbits32",
    );
    for (what, src) in [("local", local_addr), ("mul", mul), ("narrow", narrow)] {
        let Some(spv) = spvasm(&src) else { return };
        match Module::from_spirv(&spv) {
            Err(CompileError::Unsupported(msg)) => assert!(!msg.is_empty(), "{what}"),
            Err(e) => panic!("{what}: unexpected error kind {e}"),
            Ok(_) => panic!("{what}: accepted"),
        }
    }
}

#[test]
fn casts_know_other_work_items_memory() {
    // A private or local address another work-item (another group, another thread) made:
    // not in this work-item's stack or this group's local memory, but registered by the
    // executor (here: by the test) as such.
    let Some(spv) = cl_to_spirv(
        r#"
        kernel void k(global const ulong *addrs, global int *out) {
            for (int i = 0; i < 3; i++) {
                int *p = (int *)addrs[i];
                out[3 * i + 0] = to_global(p) != 0;
                out[3 * i + 1] = to_local(p) != 0;
                out[3 * i + 2] = to_private(p) != 0;
            }
        }
        "#,
    ) else {
        return;
    };
    let m = TestModule::new(&spv);
    let k = m.kernel("k");
    let private = vec![0u64; 16];
    let local = vec![0u64; 16];
    let global = vec![0u64; 16];
    let lo = |v: &Vec<u64>| v.as_ptr() as u64;
    let _p = ferrite_compiler::spaces::register(
        lo(&private),
        lo(&private) + 128,
        ferrite_compiler::spaces::Space::Private,
    );
    let _l = ferrite_compiler::spaces::register(
        lo(&local),
        lo(&local) + 128,
        ferrite_compiler::spaces::Space::Local,
    );
    let mut addrs = [lo(&global) + 8, lo(&local) + 8, lo(&private) + 8];
    let mut out = [0i32; 9];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut addrs).buf(1, &mut out);
    run1(&k, &args, 1, 1);
    assert_eq!(out, [1, 0, 0, 0, 1, 0, 0, 0, 1]);
}

/// Mutated modules with address initialisers build or fail with an error; nothing panics
/// (`Module` turns a panic into `CompileError::Codegen("compiler panicked: …")`).
#[test]
fn mutated_initialisers_never_panic() {
    let mut inputs = Vec::new();
    if let Some(spv) = spvasm(&kernel_file("global_inits.spvasm")) {
        inputs.push(spv);
    }
    if let Some(spv) = cl_to_spirv(POINTER_INITS) {
        inputs.push(spv);
    }
    let mut seed = 0x9e37_79b9u32;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    let check = |e: CompileError| {
        if let CompileError::Codegen(m) = &e {
            assert!(!m.starts_with("compiler panicked"), "{m}");
        }
    };
    for spv in &inputs {
        let base: Vec<u32> = spv
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        for _ in 0..400 {
            let mut words = base.clone();
            for _ in 0..2 {
                let i = 5 + (rnd() as usize) % (words.len() - 5);
                words[i] = match rnd() % 3 {
                    0 => rnd(),
                    1 => words[i] ^ (1 << (rnd() % 32)),
                    _ => rnd() % 64,
                };
            }
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            match Module::from_spirv(&bytes) {
                Ok(m) => {
                    for k in m.kernels().to_vec() {
                        if let Err(e) = m.compile_kernel(&k.name) {
                            check(e);
                        }
                    }
                }
                Err(e) => check(e),
            }
        }
    }
}
