//! The combine step of a collective, run between two rounds: read every work-item's
//! operand from its frame slot (linear local id order), compute, and write each work-item's
//! result. A work-group collective ([`emit`]) writes its result over the operand; a
//! sub-group collective ([`emit_sub`]) runs per sub-group of the kernel's size work-items,
//! over those that reached it this round (the active ones), and writes its results after
//! the operands, since a shuffle reads operands of work-items it writes. Reductions and
//! scans fold left to right in linear local id order, so float results are the sequential
//! sum/min/max (deterministic). [`emit_sub_schedule`] decides which work-items of a
//! sub-group wait a round (reconvergence, see `workgroup.rs`).
//!
//! Identities (exclusive scans give work-item 0 the identity, as OpenCL C requires): 0 for
//! add, the type's largest value (`+inf` for floats) for min, its smallest (`-inf`) for
//! max. Float min/max follow `fmin`/`fmax`: a NaN operand is ignored.

use crate::codegen::regions::{
    Collective, CollectiveOp, Combine, Scan, Shuffle, SUB_GROUP_STATE, SUB_GROUP_WAIT,
};
use crate::codegen::{trusted, Result};
use cranelift_codegen::ir::{
    condcodes::{FloatCC, IntCC},
    types, BlockArg, InstBuilder, Type, Value,
};
use cranelift_frontend::FunctionBuilder;

fn identity(b: &mut FunctionBuilder, combine: Combine, t: Type) -> Value {
    let bits = t.bits();
    let int = |b: &mut FunctionBuilder, v: u64| b.ins().iconst(t, v as i64);
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    match combine {
        Combine::IAdd | Combine::UMax | Combine::Or | Combine::Xor => int(b, 0),
        Combine::And => int(b, mask),
        Combine::IMul => int(b, 1),
        Combine::FMul => {
            if t == types::F64 {
                b.ins().f64const(1.0)
            } else {
                b.ins().f32const(1.0)
            }
        }
        Combine::UMin => int(b, mask),
        Combine::SMin => int(b, mask >> 1),
        Combine::SMax => int(b, (mask >> 1) + 1),
        Combine::FAdd => {
            if t == types::F64 {
                b.ins().f64const(0.0)
            } else {
                b.ins().f32const(0.0)
            }
        }
        Combine::FMin | Combine::FMax => {
            let v = if combine == Combine::FMin {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            };
            if t == types::F64 {
                b.ins().f64const(v)
            } else {
                b.ins().f32const(v as f32)
            }
        }
    }
}

fn apply(b: &mut FunctionBuilder, combine: Combine, acc: Value, x: Value) -> Value {
    match combine {
        Combine::IAdd => b.ins().iadd(acc, x),
        Combine::FAdd => b.ins().fadd(acc, x),
        Combine::SMin => b.ins().smin(acc, x),
        Combine::SMax => b.ins().smax(acc, x),
        Combine::UMin => b.ins().umin(acc, x),
        Combine::UMax => b.ins().umax(acc, x),
        Combine::IMul => b.ins().imul(acc, x),
        Combine::FMul => b.ins().fmul(acc, x),
        Combine::And => b.ins().band(acc, x),
        Combine::Or => b.ins().bor(acc, x),
        Combine::Xor => b.ins().bxor(acc, x),
        Combine::FMin | Combine::FMax => {
            let cc = if combine == Combine::FMin {
                FloatCC::LessThan
            } else {
                FloatCC::GreaterThan
            };
            let better = b.ins().fcmp(cc, x, acc);
            let acc_nan = b.ins().fcmp(FloatCC::Unordered, acc, acc);
            let take = b.ins().bor(better, acc_nan);
            b.ins().select(take, x, acc)
        }
    }
}

/// `for idx in 0..n { acc = body(idx, acc) }`; returns the final `acc`.
fn fold(
    b: &mut FunctionBuilder,
    n: Value,
    init: Value,
    body: &mut dyn FnMut(&mut FunctionBuilder, Value, Value) -> Value,
) -> Value {
    let t = b.func.dfg.value_type(init);
    let head = b.create_block();
    let blk = b.create_block();
    let out = b.create_block();
    let idx = b.append_block_param(head, types::I64);
    let acc = b.append_block_param(head, t);
    let res = b.append_block_param(out, t);
    let zero = b.ins().iconst(types::I64, 0);
    b.ins()
        .jump(head, &[BlockArg::Value(zero), BlockArg::Value(init)]);
    b.switch_to_block(head);
    let more = b.ins().icmp(IntCC::UnsignedLessThan, idx, n);
    b.ins().brif(more, blk, &[], out, &[BlockArg::Value(acc)]);
    b.switch_to_block(blk);
    let next_acc = body(b, idx, acc);
    let next = b.ins().iadd_imm_s(idx, 1);
    b.ins()
        .jump(head, &[BlockArg::Value(next), BlockArg::Value(next_acc)]);
    b.switch_to_block(out);
    res
}

/// Emit the combine step of `c` (the builder is left in an open block).
pub fn emit(
    b: &mut FunctionBuilder,
    c: &Collective,
    frame: Value,
    frame_size: i64,
    ls: &[Value],
) -> Result<()> {
    let t = c.ty;
    let slot = c.slot as i32;
    let n = group_items(b, ls);
    let item = |b: &mut FunctionBuilder, idx: Value| {
        let off = b.ins().imul_imm_s(idx, frame_size);
        b.ins().iadd(frame, off)
    };
    let write_all = |b: &mut FunctionBuilder, v: Value| {
        fold(b, n, v, &mut |b, idx, v| {
            let it = item(b, idx);
            b.ins().store(trusted(), v, it, slot);
            v
        });
    };
    match c.op {
        CollectiveOp::All | CollectiveOp::Any | CollectiveOp::AllEqual => {
            let all = c.op == CollectiveOp::All;
            let init = b.ins().iconst(types::I8, i64::from(all));
            let r = fold(b, n, init, &mut |b, idx, acc| {
                let it = item(b, idx);
                let x = b.ins().load(types::I8, trusted(), it, slot);
                let x = b.ins().icmp_imm_s(IntCC::NotEqual, x, 0);
                if all {
                    b.ins().band(acc, x)
                } else {
                    b.ins().bor(acc, x)
                }
            });
            write_all(b, r);
        }
        CollectiveOp::Broadcast { dims } => {
            let z0 = frame_zero(b);
            let it0 = item(b, z0);
            let l0 = b.ins().load(types::I64, trusted(), it0, slot + 8);
            let zero = b.ins().iconst(types::I64, 0);
            let l1 = if dims >= 2 {
                b.ins().load(types::I64, trusted(), it0, slot + 16)
            } else {
                zero
            };
            let l2 = if dims >= 3 {
                b.ins().load(types::I64, trusted(), it0, slot + 24)
            } else {
                zero
            };
            let zy = b.ins().imul(l2, ls[1]);
            let zy = b.ins().iadd(zy, l1);
            let zyx = b.ins().imul(zy, ls[0]);
            let lin = b.ins().iadd(zyx, l0);
            // An out-of-range id is undefined behaviour; read work-item 0 instead of
            // another group's memory.
            let ok = b.ins().icmp(IntCC::UnsignedLessThan, lin, n);
            let lin = b.ins().select(ok, lin, zero);
            let src = item(b, lin);
            let v = b.ins().load(t, trusted(), src, slot);
            write_all(b, v);
        }
        CollectiveOp::BroadcastFirst
        | CollectiveOp::Shuffle(_)
        | CollectiveOp::IntelShuffle { .. }
        | CollectiveOp::Ballot
        | CollectiveOp::Elect => {
            return Err(crate::CompileError::Codegen(format!(
                "{:?} is a sub-group collective",
                c.op
            )))
        }
        CollectiveOp::Arith { combine, scan } => {
            let init = identity(b, combine, t);
            match scan {
                Scan::Reduce => {
                    let r = fold(b, n, init, &mut |b, idx, acc| {
                        let it = item(b, idx);
                        let x = b.ins().load(t, trusted(), it, slot);
                        apply(b, combine, acc, x)
                    });
                    write_all(b, r);
                }
                Scan::Inclusive | Scan::Exclusive | Scan::Clustered => {
                    let inclusive = scan == Scan::Inclusive;
                    fold(b, n, init, &mut |b, idx, acc| {
                        let it = item(b, idx);
                        let x = b.ins().load(t, trusted(), it, slot);
                        let next = apply(b, combine, acc, x);
                        let out = if inclusive { next } else { acc };
                        b.ins().store(trusted(), out, it, slot);
                        next
                    });
                }
            }
        }
    }
    Ok(())
}

fn frame_zero(b: &mut FunctionBuilder) -> Value {
    b.ins().iconst(types::I64, 0)
}

/// One lane of a sub-group in [`emit_sub`].
pub(crate) struct Lane {
    /// Did this work-item reach the boundary this round (and is it in the group)?
    pub active: Value,
    /// Operand components, of the first and (INTEL two-value shuffles) second value.
    pub x: Vec<Value>,
    pub y: Vec<Value>,
    /// The first extra operand (index, delta, local id, cluster size) and the second
    /// (`i64`).
    pub e: Value,
    pub e2: Value,
}

/// The group's work-item count (`ls` are the local sizes in x, y, z).
fn group_items(b: &mut FunctionBuilder, ls: &[Value]) -> Value {
    let a = b.ins().imul(ls[0], ls[1]);
    b.ins().imul(a, ls[2])
}

/// The group's work-item count and its number of sub-groups of `sgs` (the last may be
/// partial).
fn group_and_sub_group_counts(b: &mut FunctionBuilder, ls: &[Value], sgs: i64) -> (Value, Value) {
    let n = group_items(b, ls);
    let count = b.ins().iadd_imm_s(n, sgs - 1);
    let count = b.ins().ushr_imm_s(count, sgs.trailing_zeros() as i64);
    (n, count)
}

/// Emit the combine step of sub-group collective `c` at state `state`: for every
/// sub-group (consecutive runs of `sgs` linear local ids, the last one maybe shorter), over
/// the work-items that reached `state` this round (the active ones; the others keep their
/// frames untouched). Lanes are unrolled.
/// Reductions and scans fold in sub-group local id order. Undefined cases (an index of
/// an inactive or missing work-item) read the work-item's own value, never memory
/// outside the group's frames.
#[allow(clippy::too_many_arguments)]
pub fn emit_sub(
    b: &mut FunctionBuilder,
    c: &Collective,
    state: i64,
    frame: Value,
    frame_size: i64,
    ls: &[Value],
    state_off: u32,
    sgs: i64,
) -> Result<()> {
    let (n, count) = group_and_sub_group_counts(b, ls, sgs);
    let unit = b.ins().iconst(types::I8, 0);
    fold(b, count, unit, &mut |b, s, unit| {
        let base = b.ins().imul_imm_s(s, sgs);
        let left = b.ins().isub(n, base);
        let max = b.ins().iconst(types::I64, sgs);
        let size = b.ins().umin(left, max);
        let lanes: Vec<(Lane, Value)> = (0..sgs)
            .map(|k| {
                let idx = b.ins().iadd_imm_s(base, k);
                let inside = b.ins().icmp(IntCC::UnsignedLessThan, idx, n);
                let idx = b.ins().select(inside, idx, base);
                let off = b.ins().imul_imm_s(idx, frame_size);
                let addr = b.ins().iadd(frame, off);
                let st = b.ins().load(types::I32, trusted(), addr, state_off as i32);
                let here = b.ins().icmp_imm_s(IntCC::Equal, st, state);
                let active = b.ins().band(inside, here);
                let load = |b: &mut FunctionBuilder, v: u32| -> Vec<Value> {
                    (0..c.n)
                        .map(|j| b.ins().load(c.ty, trusted(), addr, c.operand(v, j)))
                        .collect()
                };
                let x = load(b, 0);
                let y = if matches!(c.op, CollectiveOp::IntelShuffle { .. }) {
                    load(b, 1)
                } else {
                    Vec::new()
                };
                let e = b.ins().load(types::I64, trusted(), addr, c.extra(0));
                let e2 = b.ins().load(types::I64, trusted(), addr, c.extra(1));
                (
                    Lane {
                        active,
                        x,
                        y,
                        e,
                        e2,
                    },
                    addr,
                )
            })
            .collect();
        let (lanes, addrs): (Vec<Lane>, Vec<Value>) = lanes.into_iter().unzip();
        let out = sub_group(b, c, &lanes, size);
        // Every active lane's result, into its frame.
        for ((l, o), addr) in lanes.iter().zip(out).zip(addrs) {
            let store = b.create_block();
            let next = b.create_block();
            b.ins().brif(l.active, store, &[], next, &[]);
            b.switch_to_block(store);
            for (k, v) in o.into_iter().enumerate() {
                b.ins().store(trusted(), v, addr, c.out(k as u32));
            }
            b.ins().jump(next, &[]);
            b.switch_to_block(next);
        }
        unit
    });
    Ok(())
}

/// Select `vals[j]` where `sel == j` (`j` in `0..vals.len()`), else `dflt`.
fn pick(b: &mut FunctionBuilder, sel: Value, vals: &[Value], dflt: Value) -> Value {
    let mut r = dflt;
    for (j, v) in vals.iter().enumerate() {
        let is = b.ins().icmp_imm_s(IntCC::Equal, sel, j as i64);
        r = b.ins().select(is, *v, r);
    }
    r
}

/// Every lane's result components (an inactive lane's are to be ignored), computed in
/// lane order: the frame-based combine above and the vector loops whose iteration is one
/// sub-group (`vector/subgroup.rs`) get the same values.
pub(crate) fn sub_group(
    b: &mut FunctionBuilder,
    c: &Collective,
    lanes: &[Lane],
    size: Value,
) -> Vec<Vec<Value>> {
    let w = lanes.len();
    // The first active lane (0 when none is: then nothing is stored anyway).
    let mut first = b.ins().iconst(types::I64, 0);
    for k in (0..w).rev() {
        let kk = b.ins().iconst(types::I64, k as i64);
        first = b.ins().select(lanes[k].active, kk, first);
    }
    let first_of = |b: &mut FunctionBuilder, f: &dyn Fn(&Lane) -> Value| -> Value {
        let vals: Vec<Value> = lanes.iter().map(f).collect();
        pick(b, first, &vals, vals[0])
    };
    let comp = |l: &Lane, j: usize| l.x[j];
    // Results: `out[k]` for lane `k`, components.
    let out: Vec<Vec<Value>> = match c.op {
        CollectiveOp::All | CollectiveOp::Any | CollectiveOp::AllEqual => {
            let all = c.op != CollectiveOp::Any;
            let f = first_of(b, &|l| l.x[0]);
            let mut acc = b.ins().iconst(types::I8, i64::from(all));
            for l in lanes {
                let x = if c.op == CollectiveOp::AllEqual {
                    if c.ty.is_float() {
                        b.ins().fcmp(FloatCC::Equal, l.x[0], f)
                    } else {
                        b.ins().icmp(IntCC::Equal, l.x[0], f)
                    }
                } else {
                    b.ins().icmp_imm_s(IntCC::NotEqual, l.x[0], 0)
                };
                let r = if all {
                    b.ins().band(acc, x)
                } else {
                    b.ins().bor(acc, x)
                };
                acc = b.ins().select(l.active, r, acc);
            }
            vec![vec![acc]; w]
        }
        CollectiveOp::Broadcast { .. } | CollectiveOp::BroadcastFirst => {
            let src = if c.op == CollectiveOp::BroadcastFirst {
                first
            } else {
                first_of(b, &|l| l.e)
            };
            let v: Vec<Value> = (0..c.n as usize)
                .map(|j| {
                    let vals: Vec<Value> = lanes.iter().map(|l| comp(l, j)).collect();
                    let dflt = pick(b, first, &vals, vals[0]);
                    pick(b, src, &vals, dflt)
                })
                .collect();
            vec![v; w]
        }
        CollectiveOp::Arith { combine, scan } => {
            let cluster = first_of(b, &|l| l.e);
            let cmask = b.ins().ineg(cluster);
            (0..w)
                .map(|k| {
                    let mut acc = identity(b, combine, c.ty);
                    for (j, l) in lanes.iter().enumerate() {
                        let take = match scan {
                            Scan::Reduce => Some(l.active),
                            Scan::Inclusive if j <= k => Some(l.active),
                            Scan::Exclusive if j < k => Some(l.active),
                            Scan::Inclusive | Scan::Exclusive => None,
                            Scan::Clustered => {
                                let kj = b.ins().iconst(types::I64, (j ^ k) as i64);
                                let diff = b.ins().band(kj, cmask);
                                let same = b.ins().icmp_imm_s(IntCC::Equal, diff, 0);
                                Some(b.ins().band(same, l.active))
                            }
                        };
                        if let Some(t) = take {
                            let r = apply(b, combine, acc, l.x[0]);
                            acc = b.ins().select(t, r, acc);
                        }
                    }
                    vec![acc]
                })
                .collect()
        }
        CollectiveOp::Shuffle(kind) => (0..w)
            .map(|k| {
                let e = lanes[k].e;
                let sel = match kind {
                    Shuffle::Index => e,
                    Shuffle::Xor => b.ins().bxor_imm_s(e, k as i64),
                    Shuffle::Up => {
                        let kk = b.ins().iconst(types::I64, k as i64);
                        b.ins().isub(kk, e)
                    }
                    Shuffle::Down => b.ins().iadd_imm_s(e, k as i64),
                    Shuffle::Rotate { clustered } => {
                        // base + (k + delta) mod cluster (a power of two).
                        let cs = if clustered {
                            lanes[k].e2
                        } else {
                            b.ins().iconst(types::I64, w as i64)
                        };
                        let m = b.ins().iadd_imm_s(cs, -1);
                        let kk = b.ins().iconst(types::I64, k as i64);
                        let base = b.ins().band_not(kk, m);
                        let t = b.ins().iadd_imm_s(e, k as i64);
                        let t = b.ins().band(t, m);
                        b.ins().iadd(base, t)
                    }
                };
                (0..c.n as usize)
                    .map(|j| {
                        let vals: Vec<Value> = lanes.iter().map(|l| comp(l, j)).collect();
                        pick(b, sel, &vals, vals[k])
                    })
                    .collect()
            })
            .collect(),
        CollectiveOp::IntelShuffle { up } => (0..w)
            .map(|k| {
                // Down: (current ++ next)[k + delta]; Up: (previous ++ current)[k - delta +
                // size], where `x` is the first value and `y` the second.
                let e = lanes[k].e;
                let t = if up {
                    let kk = b.ins().iadd_imm_s(size, k as i64);
                    b.ins().isub(kk, e)
                } else {
                    b.ins().iadd_imm_s(e, k as i64)
                };
                let t2 = b.ins().isub(t, size);
                let in_first = b.ins().icmp(IntCC::UnsignedLessThan, t, size);
                (0..c.n as usize)
                    .map(|j| {
                        let xs: Vec<Value> = lanes.iter().map(|l| l.x[j]).collect();
                        let ys: Vec<Value> = lanes.iter().map(|l| l.y[j]).collect();
                        let own = if up { ys[k] } else { xs[k] };
                        let a = pick(b, t, &xs, own);
                        let bb = pick(b, t2, &ys, own);
                        b.ins().select(in_first, a, bb)
                    })
                    .collect()
            })
            .collect(),
        CollectiveOp::Ballot => {
            let mut mask = b.ins().iconst(types::I32, 0);
            for (j, l) in lanes.iter().enumerate() {
                let p = b.ins().icmp_imm_s(IntCC::NotEqual, l.x[0], 0);
                let p = b.ins().band(p, l.active);
                let p = b.ins().uextend(types::I32, p);
                let bit = b.ins().ishl_imm_s(p, j as i64);
                mask = b.ins().bor(mask, bit);
            }
            let z = b.ins().iconst(types::I32, 0);
            vec![vec![mask, z, z, z]; w]
        }
        CollectiveOp::Elect => (0..w)
            .map(|k| {
                let is = b.ins().icmp_imm_s(IntCC::Equal, first, k as i64);
                vec![is]
            })
            .collect(),
    };
    out
}

/// After a round in which work-items stopped at sub-group boundaries: in every sub-group,
/// the work-items at its lowest sub-group state (earliest boundary) stay there; those at
/// later ones are marked waiting ([`SUB_GROUP_WAIT`]) for the coming round, and last
/// round's waiting marks are cleared. Work-items at work-group boundaries or exited are
/// left alone.
pub fn emit_sub_schedule(
    b: &mut FunctionBuilder,
    frame: Value,
    frame_size: i64,
    ls: &[Value],
    state_off: u32,
    sgs: i64,
) {
    let (n, count) = group_and_sub_group_counts(b, ls, sgs);
    let unit = b.ins().iconst(types::I8, 0);
    let off = state_off as i32;
    fold(b, count, unit, &mut |b, s, unit| {
        let base = b.ins().imul_imm_s(s, sgs);
        let mut lanes = Vec::new();
        let mut min = b.ins().iconst(types::I32, SUB_GROUP_WAIT);
        for k in 0..sgs {
            let idx = b.ins().iadd_imm_s(base, k);
            let inside = b.ins().icmp(IntCC::UnsignedLessThan, idx, n);
            let idx = b.ins().select(inside, idx, base);
            let o = b.ins().imul_imm_s(idx, frame_size);
            let addr = b.ins().iadd(frame, o);
            let st = b.ins().load(types::I32, trusted(), addr, off);
            let waiting = b
                .ins()
                .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, st, SUB_GROUP_WAIT);
            let cleared = b.ins().iadd_imm_s(st, -SUB_GROUP_WAIT);
            let st = b.ins().select(waiting, cleared, st);
            let sub = b
                .ins()
                .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, st, SUB_GROUP_STATE);
            let sub = b.ins().band(sub, inside);
            let m = b.ins().smin(min, st);
            min = b.ins().select(sub, m, min);
            lanes.push((inside, sub, addr, st));
        }
        for (inside, sub, addr, st) in lanes {
            // Only lanes of this group store (a clamped lane is lane 0's frame).
            let later = b.ins().icmp(IntCC::NotEqual, st, min);
            let wait = b.ins().band(sub, later);
            let marked = b.ins().iadd_imm_s(st, SUB_GROUP_WAIT);
            let v = b.ins().select(wait, marked, st);
            let store = b.create_block();
            let next = b.create_block();
            b.ins().brif(inside, store, &[], next, &[]);
            b.switch_to_block(store);
            b.ins().store(trusted(), v, addr, off);
            b.ins().jump(next, &[]);
            b.switch_to_block(next);
        }
        unit
    });
}
