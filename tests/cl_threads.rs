//! Concurrency: kernels launched from 4 host threads at once, on separate queues of one
//! context and on separate contexts, each checking its own results.

use ferrite_tests::*;
use std::sync::{Arc, Barrier};

const THREADS: usize = 4;
const ROUNDS: usize = 20;
const N: usize = 1 << 16;

const SRC: &str = r#"
__kernel void affine(__global const int *in, __global int *out, int mul, int add) {
    size_t i = get_global_id(0);
    out[i] = in[i] * mul + add;
}
"#;

/// One thread's work: `ROUNDS` launches with thread- and round-specific parameters, each
/// result checked. The kernel object is the thread's own (clSetKernelArg is not thread-safe on
/// a shared kernel).
fn work(ctx: &Context, program: &Program, t: usize) {
    let queue = Queue::new(ctx, 0);
    let k = program.kernel("affine");
    let input: Vec<i32> = (0..N as i32).map(|i| i ^ (t as i32 * 7919)).collect();
    let bin = Buffer::from_slice(ctx, CL_MEM_READ_ONLY, &input);
    let bout = Buffer::new(ctx, CL_MEM_WRITE_ONLY, N * 4);
    for round in 0..ROUNDS {
        let (mul, add) = (t as i32 + 2, round as i32 * 1000 + t as i32);
        k.buf(0, &bin).buf(1, &bout).arg(2, &mul).arg(3, &add);
        run_1d(&queue, &k, N, Some(64));
        let out: Vec<i32> = bout.read(&queue, N);
        for (i, (&o, &x)) in out.iter().zip(&input).enumerate() {
            assert_eq!(
                o,
                x.wrapping_mul(mul).wrapping_add(add),
                "thread {t} round {round} element {i}"
            );
        }
    }
}

#[test]
fn four_threads_separate_queues_one_context() {
    let ctx = Arc::new(Context::new());
    let program = Arc::new(build(&ctx, SRC, ""));
    let start = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (ctx, program, start) = (ctx.clone(), program.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                work(&ctx, &program, t);
            })
        })
        .collect();
    for h in handles {
        h.join().expect("a worker thread failed");
    }
}

#[test]
fn four_threads_separate_contexts() {
    let start = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let start = start.clone();
            std::thread::spawn(move || {
                // Contexts, builds and launches all race.
                start.wait();
                let ctx = Context::new();
                let program = build(&ctx, SRC, &format!("-D THREAD_{t}"));
                work(&ctx, &program, t);
            })
        })
        .collect();
    for h in handles {
        h.join().expect("a worker thread failed");
    }
}

#[test]
fn four_threads_share_one_queue() {
    // Enqueueing to one in-order queue from several threads is allowed; each thread's
    // blocking read sees its own kernel's result because the queue is in order.
    let env = Arc::new(Env::new());
    let program = Arc::new(env.build(SRC, ""));
    let start = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (env, program, start) = (env.clone(), program.clone(), start.clone());
            std::thread::spawn(move || {
                let k = program.kernel("affine");
                let input: Vec<i32> = (0..N as i32).collect();
                let bin = env.buffer_from(&input);
                let bout = env.buffer_zeroed::<i32>(N);
                k.buf(0, &bin)
                    .buf(1, &bout)
                    .arg(2, &(t as i32))
                    .arg(3, &1i32);
                start.wait();
                for _ in 0..ROUNDS {
                    enqueue_nd(&env.queue, &k, None, &[N], None).expect("enqueue");
                    let out: Vec<i32> = bout.read(&env.queue, N);
                    assert!(
                        out.iter().zip(&input).all(|(&o, &x)| o == x * t as i32 + 1),
                        "thread {t}"
                    );
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("a worker thread failed");
    }
}
