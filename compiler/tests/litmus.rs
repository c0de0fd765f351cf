//! Memory-model litmus tests between work-groups running on different threads: message
//! passing, store buffering (seq_cst), load buffering, IRIW, read-read coherence, RMW
//! atomicity. Each kernel plays every role of the test (role = group id, one work-item per
//! group), iterating over fresh locations; the roles meet at a spin barrier every
//! `BATCH` iterations so they run the same iterations at the same time. A forbidden
//! outcome fails the test; the histogram of outcomes is printed (`--nocapture`).

#[path = "common/harness.rs"]
mod harness;

use harness::{kernel, run_groups_concurrently, Args};
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

fn litmus(
    body: &str,
    name: &str,
    roles: u64,
    n: usize,
    results_per_iter: usize,
) -> Option<Vec<Vec<i32>>> {
    let src = format!("{PRELUDE}\n{body}");
    let k = kernel(&src, name)?;
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
    let Some(out) = litmus(&body, "mp", 2, n, 2) else {
        return;
    };
    let h = histogram("MP", &out);
    assert!(
        !h.contains_key(&vec![1, 0]),
        "MP: flag seen, data not: {h:?}"
    );
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
    let Some(out) = litmus(&body, "sb", 2, n, 2) else {
        return;
    };
    let h = histogram("SB", &out);
    assert!(!h.contains_key(&vec![0, 0]), "SB: both loads missed: {h:?}");
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
    let Some(out) = litmus(&body, "lb", 2, n, 2) else {
        return;
    };
    let h = histogram("LB", &out);
    assert!(
        !h.contains_key(&vec![1, 1]),
        "LB: both loads saw the future: {h:?}"
    );
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
    let Some(out) = litmus(&body, "iriw", 4, n, 4) else {
        return;
    };
    let h = histogram("IRIW", &out);
    assert!(
        !h.contains_key(&vec![1, 0, 1, 0]),
        "IRIW: readers disagree on the order of independent writes: {h:?}"
    );
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
    let Some(out) = litmus(&body, "corr", 2, n, 2) else {
        return;
    };
    let h = histogram("CoRR", &out);
    assert!(
        !h.contains_key(&vec![1, 0]),
        "CoRR: a later read saw an older value: {h:?}"
    );
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
    let Some(k) = kernel(&src, "rmw") else { return };
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
    eprintln!("RMW: 2 groups x {n} iterations: x = {x:?}, y = {y:?}");
    assert_eq!(x[0], 2 * n, "atomic_add lost updates");
    assert_eq!(y[0], 4 * n, "atomic_fetch_add lost updates");
    assert_eq!(&x[1..], &[n, n]);
}
