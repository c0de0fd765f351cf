//! The combine step of a work-group collective, run once between two regions: read every
//! work-item's operand from its frame slot (linear local id order), compute, and write each
//! work-item's result over its operand. Reductions and scans fold left to right in linear
//! local id order, so float results are the sequential sum/min/max (deterministic).
//!
//! Identities (exclusive scans give work-item 0 the identity, as OpenCL C requires): 0 for
//! add, the type's largest value (`+inf` for floats) for min, its smallest (`-inf`) for
//! max. Float min/max follow `fmin`/`fmax`: a NaN operand is ignored.

use crate::codegen::regions::{Collective, CollectiveOp, Combine, Scan};
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
        Combine::IAdd | Combine::UMax => int(b, 0),
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
    let n = {
        let a = b.ins().imul(ls[0], ls[1]);
        b.ins().imul(a, ls[2])
    };
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
        CollectiveOp::All | CollectiveOp::Any => {
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
                Scan::Inclusive | Scan::Exclusive => {
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
