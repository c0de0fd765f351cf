//! Memory-model litmus tests between work-groups running on different threads: message
//! passing, store buffering (seq_cst), load buffering, IRIW, read-read coherence, RMW
//! atomicity. Each kernel plays every role of the test (role = group id, one work-item per
//! group), iterating over fresh locations; the roles meet at a spin barrier every
//! `BATCH` iterations so they run the same iterations at the same time. A forbidden
//! outcome fails the test; the histogram of outcomes is printed (`--nocapture`).
//!
//! Every test runs twice: with the module as clang and llvm-spirv write it (OpenCL memory
//! model), and rewritten into the Vulkan memory model (SPIR-V 1.5, `MakeAvailable`/
//! `MakeVisible` semantics, `NonPrivatePointer` accesses; see `common/vulkan_model.rs`).

#[path = "common/harness.rs"]
mod harness;
#[path = "common/vulkan_model.rs"]
mod vulkan_model;

use ferrite_compiler::{CompiledKernel, Module};
use harness::{cl_to_spirv, run_groups_concurrently, Args};
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Litmus tests spin-wait for each other's roles: run them one at a time, so their threads
/// do not oversubscribe the cores (a descheduled role stalls all the others).
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Shared by every kernel: roles meet every BATCH iterations (bounded spin, so a broken
/// run fails instead of hanging).
const PRELUDE: &str = r#"
#define BATCH 64
void meet(volatile global atomic_int *c, int roles, int round) {
    atomic_fetch_add_explicit(c, 1, memory_order_seq_cst, memory_scope_device);
    for (long s = 0; s < 400000000L; s++)
        if (atomic_load_explicit(c, memory_order_acquire, memory_scope_device) >= roles * round)
            break;
}
#define LOOP(ROLES) \
    int role = get_group_id(0); \
    for (int i = 0; i < n; i++) { \
        if (i % BATCH == 0) meet(sync, ROLES, i / BATCH + 1);
#define END }
"#;

/// The memory models each test runs in.
#[derive(Clone, Copy, Debug)]
enum Model {
    OpenCl,
    Vulkan,
}

const MODELS: [Model; 2] = [Model::OpenCl, Model::Vulkan];

/// The kernel `name` of `src`, its module in `model`; `None` if the tools are missing.
fn kernel_in(src: &str, name: &str, model: Model) -> Option<CompiledKernel> {
    let mut spv = cl_to_spirv(src)?;
    if let Model::Vulkan = model {
        spv = vulkan_model::to_vulkan_memory_model(&spv);
    }
    let m = Module::from_spirv(&spv).unwrap_or_else(|e| panic!("{model:?} from_spirv: {e}"));
    Some(
        m.compile_kernel(name)
            .unwrap_or_else(|e| panic!("{model:?} compile_kernel({name}): {e}")),
    )
}

fn litmus(
    body: &str,
    name: &str,
    roles: u64,
    n: usize,
    results_per_iter: usize,
    model: Model,
) -> Option<Vec<Vec<i32>>> {
    let src = format!("{PRELUDE}\n{body}");
    let k = kernel_in(&src, name, model)?;
    let _one_at_a_time = serial();
    let mut x = vec![0i32; n];
    let mut y = vec![0i32; n];
    let mut r = vec![-1i32; n * results_per_iter];
    let mut sync = vec![0i32; 1];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut x)
        .buf(1, &mut y)
        .buf(2, &mut r)
        .buf(3, &mut sync)
        .val(4, n as i32);
    run_groups_concurrently(&k, &args, roles, 1);
    Some(r.chunks(results_per_iter).map(<[i32]>::to_vec).collect())
}

fn histogram(name: &str, outcomes: &[Vec<i32>]) -> BTreeMap<Vec<i32>, usize> {
    let mut h = BTreeMap::new();
    for o in outcomes {
        *h.entry(o.clone()).or_insert(0) += 1;
    }
    eprintln!("{name}: {} iterations, outcomes {h:?}", outcomes.len());
    h
}

const ARGS: &str = "global atomic_int *x, global atomic_int *y, global int *r, \
                    volatile global atomic_int *sync, int n";

#[test]
fn message_passing() {
    let body = format!(
        r#"kernel void mp({ARGS}) {{
            LOOP(2)
            if (role == 0) {{
                atomic_store_explicit(&x[i], 1, memory_order_relaxed, memory_scope_device);
                atomic_store_explicit(&y[i], 1, memory_order_release, memory_scope_device);
            }} else {{
                int a = atomic_load_explicit(&y[i], memory_order_acquire, memory_scope_device);
                int b = atomic_load_explicit(&x[i], memory_order_relaxed, memory_scope_device);
                r[2 * i] = a; r[2 * i + 1] = b;
            }}
            END
        }}"#
    );
    let n = 200_000;
    for model in MODELS {
        let Some(out) = litmus(&body, "mp", 2, n, 2, model) else {
            return;
        };
        let h = histogram(&format!("MP {model:?}"), &out);
        assert!(
            !h.contains_key(&vec![1, 0]),
            "MP: flag seen, data not: {h:?}"
        );
    }
}

#[test]
fn store_buffering_seq_cst() {
    let body = format!(
        r#"kernel void sb({ARGS}) {{
            LOOP(2)
            if (role == 0) {{
                atomic_store(&x[i], 1);
                r[2 * i] = atomic_load(&y[i]);
            }} else {{
                atomic_store(&y[i], 1);
                r[2 * i + 1] = atomic_load(&x[i]);
            }}
            END
        }}"#
    );
    let n = 200_000;
    for model in MODELS {
        let Some(out) = litmus(&body, "sb", 2, n, 2, model) else {
            return;
        };
        let h = histogram(&format!("SB {model:?}"), &out);
        assert!(!h.contains_key(&vec![0, 0]), "SB: both loads missed: {h:?}");
    }
}

#[test]
fn load_buffering() {
    let body = format!(
        r#"kernel void lb({ARGS}) {{
            LOOP(2)
            if (role == 0) {{
                r[2 * i] = atomic_load_explicit(&x[i], memory_order_acquire, memory_scope_device);
                atomic_store_explicit(&y[i], 1, memory_order_release, memory_scope_device);
            }} else {{
                r[2 * i + 1] = atomic_load_explicit(&y[i], memory_order_acquire, memory_scope_device);
                atomic_store_explicit(&x[i], 1, memory_order_release, memory_scope_device);
            }}
            END
        }}"#
    );
    let n = 200_000;
    for model in MODELS {
        let Some(out) = litmus(&body, "lb", 2, n, 2, model) else {
            return;
        };
        let h = histogram(&format!("LB {model:?}"), &out);
        assert!(
            !h.contains_key(&vec![1, 1]),
            "LB: both loads saw the future: {h:?}"
        );
    }
}

#[test]
fn iriw_seq_cst() {
    let body = format!(
        r#"kernel void iriw({ARGS}) {{
            LOOP(4)
            if (role == 0) atomic_store(&x[i], 1);
            else if (role == 1) atomic_store(&y[i], 1);
            else if (role == 2) {{ r[4 * i] = atomic_load(&x[i]); r[4 * i + 1] = atomic_load(&y[i]); }}
            else {{ r[4 * i + 2] = atomic_load(&y[i]); r[4 * i + 3] = atomic_load(&x[i]); }}
            END
        }}"#
    );
    // Four roles on two cores: fewer iterations keep the run short.
    let n = 8_000;
    for model in MODELS {
        let Some(out) = litmus(&body, "iriw", 4, n, 4, model) else {
            return;
        };
        let h = histogram(&format!("IRIW {model:?}"), &out);
        assert!(
            !h.contains_key(&vec![1, 0, 1, 0]),
            "IRIW: readers disagree on the order of independent writes: {h:?}"
        );
    }
}

#[test]
fn read_read_coherence() {
    let body = format!(
        r#"kernel void corr({ARGS}) {{
            LOOP(2)
            if (role == 0) {{
                atomic_store_explicit(&x[i], 1, memory_order_relaxed, memory_scope_device);
            }} else {{
                int a = atomic_load_explicit(&x[i], memory_order_relaxed, memory_scope_device);
                int b = atomic_load_explicit(&x[i], memory_order_relaxed, memory_scope_device);
                r[2 * i] = a; r[2 * i + 1] = b;
            }}
            END
        }}"#
    );
    let n = 200_000;
    for model in MODELS {
        let Some(out) = litmus(&body, "corr", 2, n, 2, model) else {
            return;
        };
        let h = histogram(&format!("CoRR {model:?}"), &out);
        assert!(
            !h.contains_key(&vec![1, 0]),
            "CoRR: a later read saw an older value: {h:?}"
        );
    }
}

#[test]
fn rmw_atomicity_opencl12_and_c11() {
    // OpenCL 1.2 atomic_add arrives as Workgroup scope / Relaxed: it must still be atomic
    // across groups. The loop makes both roles hammer the same two counters.
    let body = format!(
        r#"kernel void rmw({ARGS}) {{
            int role = get_group_id(0);
            meet(sync, 2, 1);
            for (int i = 0; i < n; i++) {{
                atomic_add((volatile global int *)&x[0], 1);
                atomic_fetch_add_explicit(&y[0], 2, memory_order_relaxed, memory_scope_device);
                atomic_inc((volatile global int *)&x[1 + role]);
            }}
        }}"#
    );
    let n = 500_000;
    let src = format!("{PRELUDE}\n{body}");
    for model in MODELS {
        let Some(k) = kernel_in(&src, "rmw", model) else {
            return;
        };
        let _one_at_a_time = serial();
        let mut x = vec![0i32; 3];
        let mut y = vec![0i32; 1];
        let mut r = vec![0i32; 1];
        let mut sync = vec![0i32; 1];
        let mut args = Args::new(&k.info);
        args.buf(0, &mut x)
            .buf(1, &mut y)
            .buf(2, &mut r)
            .buf(3, &mut sync)
            .val(4, n);
        run_groups_concurrently(&k, &args, 2, 1);
        eprintln!("RMW {model:?}: 2 groups x {n} iterations: x = {x:?}, y = {y:?}");
        assert_eq!(x[0], 2 * n, "atomic_add lost updates");
        assert_eq!(y[0], 4 * n, "atomic_fetch_add lost updates");
        assert_eq!(&x[1..], &[n, n]);
    }
}

#[test]
fn the_vulkan_rewrite_says_what_it_claims() {
    let src = format!(
        "{PRELUDE}\nkernel void mp({ARGS}) {{ LOOP(2) if (role == 0) {{ *(global int *)&x[i] = 1; \
         atomic_store_explicit(&y[i], 1, memory_order_release, memory_scope_device); }} \
         else r[i] = atomic_load_explicit(&y[i], memory_order_acquire, memory_scope_device) \
         + *(global int *)&x[i]; END }}"
    );
    let Some(spv) = cl_to_spirv(&src) else { return };
    let v = vulkan_model::to_vulkan_memory_model(&spv);
    let words: Vec<u32> = v
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(words[1], 0x0001_0500, "version 1.5");
    let m = rspirv::dr::load_words(&words).expect("reloads");
    use rspirv::dr::Operand;
    use rspirv::spirv::{MemoryAccess, MemoryModel, MemorySemantics, Op};
    assert_eq!(
        m.memory_model.as_ref().unwrap().operands[1],
        Operand::MemoryModel(MemoryModel::Vulkan)
    );
    let insts: Vec<_> = m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| b.instructions.iter()))
        .collect();
    let non_private = insts.iter().any(|i| {
        i.operands.iter().any(
            |o| matches!(o, Operand::MemoryAccess(a) if a.contains(MemoryAccess::NON_PRIVATE_POINTER)),
        )
    });
    assert!(non_private, "some load or store became NonPrivatePointer");
    let sem = |i: &rspirv::dr::Instruction| match i.operands[2] {
        Operand::IdMemorySemantics(id) => m
            .types_global_values
            .iter()
            .find(|c| c.result_id == Some(id))
            .and_then(|c| match c.operands[0] {
                Operand::LiteralBit32(v) => Some(v),
                _ => None,
            }),
        _ => None,
    };
    let has = |op: Op, bit: MemorySemantics| {
        insts
            .iter()
            .filter(|i| i.class.opcode == op)
            .any(|i| sem(i).is_some_and(|s| s & bit.bits() != 0))
    };
    assert!(has(Op::AtomicStore, MemorySemantics::MAKE_AVAILABLE));
    assert!(has(Op::AtomicLoad, MemorySemantics::MAKE_VISIBLE));
    // And Ferrite builds and runs it: the message-passing test above in the Vulkan model.
    let m = Module::from_spirv(&v).expect("from_spirv");
    m.compile_kernel("mp").expect("compile");
}
