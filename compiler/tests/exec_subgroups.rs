//! Execution tests of sub-groups (`DEFAULT_SUB_GROUP_SIZE` = 4 consecutive linear local
//! ids, the last one of a group maybe shorter; 8, 16 or 32 when a kernel requires it): the
//! id/size built-ins in 1-, 2- and 3-D groups,
//! the `cl_khr_subgroups` collectives (all, any, broadcast, reductions, scans) and
//! `sub_group_barrier`, shuffles, relative shuffles, ballots and masks, clustered
//! reductions, divergent control flow (collectives over the work-items that reach them),
//! and the INTEL shuffles. Every result is checked against a host reference.

#[path = "common/harness.rs"]
mod harness;

use ferrite_compiler::DEFAULT_SUB_GROUP_SIZE;
use harness::{kernel, kernel_with, run, run1, Args};

const SGS: usize = DEFAULT_SUB_GROUP_SIZE as usize;

fn pseudo(n: usize, seed: u32) -> Vec<i32> {
    (0..n as u32)
        .map(|i| ((i ^ seed).wrapping_mul(2_654_435_761) >> 20) as i32 - 2048)
        .collect()
}

/// The sub-groups (ranges of linear ids) of a group of `n` work-items.
/// `o` with the values at `flags` (OpenCL C truth values: any non-zero) turned into 0/1.
fn as_flags<T: Copy + Default + PartialEq + From<bool>>(o: &[T], flags: &[usize]) -> Vec<T> {
    o.iter()
        .enumerate()
        .map(|(k, v)| {
            if flags.contains(&k) {
                T::from(*v != T::default())
            } else {
                *v
            }
        })
        .collect()
}

fn sub_groups(n: usize) -> Vec<std::ops::Range<usize>> {
    sub_groups_of(n, SGS)
}

/// The sub-groups of `size` work-items of a group of `n`.
fn sub_groups_of(n: usize, size: usize) -> Vec<std::ops::Range<usize>> {
    (0..n.div_ceil(size))
        .map(|s| s * size..(s * size + size).min(n))
        .collect()
}

#[test]
fn ids_and_sizes_in_one_two_and_three_dimensions() {
    let src = r#"
        kernel void k(global uint *out) {
            size_t lin = (get_local_id(2) * get_local_size(1) + get_local_id(1))
                * get_local_size(0) + get_local_id(0);
            size_t g = get_group_id(0) + get_num_groups(0) * (get_group_id(1)
                + get_num_groups(1) * get_group_id(2));
            size_t n = get_local_size(0) * get_local_size(1) * get_local_size(2);
            size_t en = get_enqueued_local_size(0) * get_enqueued_local_size(1)
                * get_enqueued_local_size(2);
            global uint *o = out + (g * en + lin) * 6;
            o[0] = get_sub_group_size();
            o[1] = get_max_sub_group_size();
            o[2] = get_num_sub_groups();
            o[3] = get_enqueued_num_sub_groups();
            o[4] = get_sub_group_id();
            o[5] = get_sub_group_local_id();
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    // (dim, global, local): a partial last group in x, 2-D and 3-D groups.
    let cases: [(u64, [u64; 3], [u64; 3]); 4] = [
        (1, [23, 1, 1], [10, 1, 1]),
        (1, [3, 1, 1], [3, 1, 1]),
        (2, [6, 10, 1], [3, 5, 1]),
        (3, [4, 3, 6], [2, 3, 3]),
    ];
    for (dim, global, local) in cases {
        let groups: Vec<u64> = (0..3).map(|d| global[d].div_ceil(local[d])).collect();
        let en = (local[0] * local[1] * local[2]) as usize;
        let total = (groups[0] * groups[1] * groups[2]) as usize;
        let mut out = vec![u32::MAX; total * en * 6];
        let mut args = Args::new(&k.info);
        args.buf(0, &mut out);
        run(&k, &args, dim, global, local, [0; 3], 0);
        for g in 0..total {
            let gx = g as u64 % groups[0];
            let ls0 = local[0].min(global[0] - gx * local[0]);
            let n = (ls0 * local[1] * local[2]) as usize;
            for lin in 0..n {
                let o = &out[(g * en + lin) * 6..][..6];
                let base = lin / SGS * SGS;
                let want = [
                    (n - base).min(SGS) as u32,
                    SGS as u32,
                    n.div_ceil(SGS) as u32,
                    en.div_ceil(SGS) as u32,
                    (lin / SGS) as u32,
                    (lin % SGS) as u32,
                ];
                assert_eq!(o, want, "{global:?}/{local:?} group {g} item {lin}");
            }
        }
    }
}

/// The reference of one sub-group collective over `xs` (the active work-items' values,
/// in sub-group local id order).
fn scan_ref(xs: &[i32], op: &str) -> Vec<i32> {
    let f = |a: i32, b: i32| match op {
        "add" => a.wrapping_add(b),
        "min" => a.min(b),
        "max" => a.max(b),
        _ => unreachable!(),
    };
    let id = match op {
        "add" => 0,
        "min" => i32::MAX,
        _ => i32::MIN,
    };
    let mut acc = id;
    xs.iter()
        .map(|x| {
            let out = acc;
            acc = f(acc, *x);
            out
        })
        .collect::<Vec<_>>()
        .into_iter()
        .chain([acc])
        .collect()
}

#[test]
fn collectives_reduce_scan_broadcast_vote() {
    let src = r#"
        kernel void k(global const int *in, global int *out) {
            size_t g = get_global_id(0);
            int x = in[g];
            global int *o = out + g * 12;
            o[0] = sub_group_reduce_add(x);
            o[1] = sub_group_reduce_min(x);
            o[2] = sub_group_reduce_max(x);
            o[3] = sub_group_scan_inclusive_add(x);
            o[4] = sub_group_scan_inclusive_min(x);
            o[5] = sub_group_scan_exclusive_add(x);
            o[6] = sub_group_scan_exclusive_max(x);
            o[7] = sub_group_broadcast(x, get_sub_group_size() - 1);
            o[8] = sub_group_all(x > -1000);
            o[9] = sub_group_any(x > 1500);
            o[10] = (int)sub_group_reduce_add((float)x);
            o[11] = (int)sub_group_reduce_max((long)x * 3);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    for local in [1usize, 3, 4, 10, 16] {
        let global = local * 3 - local / 2;
        let input = pseudo(global, local as u32);
        let mut out = vec![0i32; global * 12];
        let mut inp = input.clone();
        let mut args = Args::new(&k.info);
        args.buf(0, &mut inp).buf(1, &mut out);
        run1(&k, &args, global as u64, local as u64);
        for g0 in (0..global).step_by(local) {
            let n = local.min(global - g0);
            for r in sub_groups(n) {
                let xs: Vec<i32> = r.clone().map(|i| input[g0 + i]).collect();
                let add = scan_ref(&xs, "add");
                let min = scan_ref(&xs, "min");
                let max = scan_ref(&xs, "max");
                let m = xs.len();
                for (j, i) in r.clone().enumerate() {
                    let o = &out[(g0 + i) * 12..][..12];
                    let want = [
                        add[m],
                        min[m],
                        max[m],
                        add[j + 1],
                        min[j + 1],
                        add[j],
                        max[j],
                        xs[m - 1],
                        i32::from(xs.iter().all(|x| *x > -1000)),
                        i32::from(xs.iter().any(|x| *x > 1500)),
                        xs.iter().map(|x| *x as f32).sum::<f32>() as i32,
                        xs.iter().map(|x| i64::from(*x) * 3).max().unwrap_or(0) as i32,
                    ];
                    let o = as_flags(o, &[8, 9]);
                    assert_eq!(o, want, "local {local} group at {g0} item {i}");
                }
            }
        }
    }
}

#[test]
fn sub_group_barrier_orders_local_memory_within_a_sub_group() {
    let src = r#"
        kernel void k(global const int *in, global int *out) {
            local int tmp[64];
            size_t l = get_local_id(0);
            tmp[l] = in[get_global_id(0)];
            sub_group_barrier(CLK_LOCAL_MEM_FENCE);
            uint s = get_sub_group_size(), j = get_sub_group_local_id();
            size_t base = l - j;
            out[get_global_id(0)] = tmp[base + (s - 1 - j)];
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let (global, local) = (30usize, 14usize);
    let input = pseudo(global, 3);
    let mut inp = input.clone();
    let mut out = vec![0i32; global];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut inp).buf(1, &mut out);
    run1(&k, &args, global as u64, local as u64);
    for g0 in (0..global).step_by(local) {
        let n = local.min(global - g0);
        for r in sub_groups(n) {
            for i in r.clone() {
                let j = i - r.start;
                assert_eq!(out[g0 + i], input[g0 + r.end - 1 - j], "item {}", g0 + i);
            }
        }
    }
}

#[test]
fn shuffles_and_relative_shuffles_with_vectors() {
    let src = r#"
        kernel void k(global const int *in, global int *out, global float2 *f) {
            size_t g = get_global_id(0);
            int x = in[g];
            uint j = get_sub_group_local_id(), s = get_sub_group_size();
            global int *o = out + g * 4;
            o[0] = sub_group_shuffle(x, (j + 1) % s);
            o[1] = sub_group_shuffle_xor(x, 1);
            o[2] = sub_group_shuffle_up(x, 1);
            o[3] = sub_group_shuffle_down(x, 1);
            f[g] = sub_group_broadcast((float2)(x, -x), 0);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let (global, local) = (22usize, 11usize);
    let input = pseudo(global, 9);
    let mut inp = input.clone();
    let mut out = vec![0i32; global * 4];
    let mut f = vec![[0f32; 2]; global];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut inp).buf(1, &mut out).buf(2, &mut f);
    run1(&k, &args, global as u64, local as u64);
    for g0 in (0..global).step_by(local) {
        for r in sub_groups(local.min(global - g0)) {
            let s = r.len();
            let at = |j: usize| input[g0 + r.start + j];
            for j in 0..s {
                let o = &out[(g0 + r.start + j) * 4..][..4];
                assert_eq!(o[0], at((j + 1) % s), "shuffle {j}");
                if (j ^ 1) < s {
                    assert_eq!(o[1], at(j ^ 1), "xor {j}");
                }
                if j >= 1 {
                    assert_eq!(o[2], at(j - 1), "up {j}");
                }
                if j + 1 < s {
                    assert_eq!(o[3], at(j + 1), "down {j}");
                }
                let b = at(0) as f32;
                assert_eq!(f[g0 + r.start + j], [b, -b], "broadcast float2 {j}");
            }
        }
    }
}

#[test]
fn ballots_masks_and_elect() {
    let src = r#"
        kernel void k(global const int *in, global uint *out) {
            size_t g = get_global_id(0);
            int x = in[g];
            uint4 b = sub_group_ballot(x > 0);
            global uint *o = out + g * 12;
            o[0] = b.x;
            o[1] = b.y | b.z | b.w;
            o[2] = sub_group_inverse_ballot(b);
            o[3] = sub_group_ballot_bit_extract(b, 2);
            o[4] = sub_group_ballot_bit_count(b);
            o[5] = sub_group_ballot_inclusive_scan(b);
            o[6] = sub_group_ballot_exclusive_scan(b);
            o[7] = b.x ? sub_group_ballot_find_lsb(b) : 99;
            o[8] = b.x ? sub_group_ballot_find_msb(b) : 99;
            o[9] = sub_group_elect();
            o[10] = get_sub_group_lt_mask().x | (get_sub_group_eq_mask().x << 8)
                | (get_sub_group_gt_mask().x << 16);
            o[11] = sub_group_broadcast_first(x);
            // Bits past the sub-group's lanes are ignored by the counts and searches.
            uint4 h = (uint4)(0xfff0u | b.x, ~0u, 0, 0);
            o[4] += 100 * (sub_group_ballot_bit_count(h) - sub_group_ballot_bit_count(b));
            o[7] = b.x ? sub_group_ballot_find_lsb(h) : 99;
            o[8] = b.x ? sub_group_ballot_find_msb(h) : 99;
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let (global, local) = (26usize, 13usize);
    let input = pseudo(global, 5);
    let mut inp = input.clone();
    let mut out = vec![0u32; global * 12];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut inp).buf(1, &mut out);
    run1(&k, &args, global as u64, local as u64);
    for g0 in (0..global).step_by(local) {
        for r in sub_groups(local.min(global - g0)) {
            let s = r.len();
            let mut ballot = 0u32;
            for j in 0..s {
                if input[g0 + r.start + j] > 0 {
                    ballot |= 1 << j;
                }
            }
            for j in 0..s {
                let o = &out[(g0 + r.start + j) * 12..][..12];
                let lanes = (1u32 << SGS) - 1;
                let lt = (1u32 << j) - 1;
                let want = [
                    ballot,
                    0,
                    (ballot >> j) & 1,
                    (ballot >> 2) & 1,
                    ballot.count_ones(),
                    (ballot & (lt | 1 << j)).count_ones(),
                    (ballot & lt).count_ones(),
                    if ballot != 0 {
                        ballot.trailing_zeros()
                    } else {
                        99
                    },
                    if ballot != 0 {
                        31 - ballot.leading_zeros()
                    } else {
                        99
                    },
                    u32::from(j == 0),
                    lt | (1 << j) << 8 | (lanes & !(lt | 1 << j)) << 16,
                    input[g0 + r.start] as u32,
                ];
                let o = as_flags(o, &[2, 3, 9]);
                assert_eq!(o, want, "group at {g0}, sub-group {r:?}, lane {j}");
            }
        }
    }
}

#[test]
fn clustered_reductions() {
    let src = r#"
        kernel void k(global const int *in, global int *out) {
            size_t g = get_global_id(0);
            int x = in[g];
            out[g * 3] = sub_group_clustered_reduce_add(x, 1);
            out[g * 3 + 1] = sub_group_clustered_reduce_max(x, 2);
            out[g * 3 + 2] = sub_group_clustered_reduce_mul(x & 7, 4);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let (global, local) = (24usize, 12usize);
    let input = pseudo(global, 11);
    let mut inp = input.clone();
    let mut out = vec![0i32; global * 3];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut inp).buf(1, &mut out);
    run1(&k, &args, global as u64, local as u64);
    for i in 0..global {
        let c2 = i / 2 * 2;
        let c4 = i / 4 * 4;
        assert_eq!(out[i * 3], input[i], "cluster 1 at {i}");
        assert_eq!(
            out[i * 3 + 1],
            input[c2].max(input[c2 + 1]),
            "cluster 2 at {i}"
        );
        let p = (c4..c4 + 4).fold(1i32, |a, j| a.wrapping_mul(input[j] & 7));
        assert_eq!(out[i * 3 + 2], p, "cluster 4 at {i}");
    }
}

#[test]
fn divergent_sub_groups_and_non_uniform_collectives() {
    // Sub-groups 1 and 2 take different collectives, odd lanes a non-uniform reduction
    // over the odd lanes only; a work-group barrier follows.
    let src = r#"
        kernel void k(global const int *in, global int *out) {
            local int tmp[64];
            size_t g = get_global_id(0), l = get_local_id(0);
            int x = in[g];
            int r = -1;
            uint s = get_sub_group_id();
            if (s == 1) {
                r = sub_group_reduce_add(x);
            } else if (s == 2) {
                r = sub_group_scan_inclusive_max(x);
            }
            int odd = -1;
            if (get_sub_group_local_id() & 1) {
                odd = sub_group_non_uniform_reduce_add(x);
            } else {
                odd = sub_group_non_uniform_broadcast(x, 0) + 1000000 * sub_group_elect();
            }
            tmp[l] = x;
            barrier(CLK_LOCAL_MEM_FENCE);
            out[g * 3] = r;
            out[g * 3 + 1] = odd;
            out[g * 3 + 2] = tmp[get_local_size(0) - 1 - l];
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let (global, local) = (28usize, 14usize);
    let input = pseudo(global, 13);
    let mut inp = input.clone();
    let mut out = vec![0i32; global * 3];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut inp).buf(1, &mut out);
    run1(&k, &args, global as u64, local as u64);
    for g0 in (0..global).step_by(local) {
        for (s, r) in sub_groups(local).into_iter().enumerate() {
            let at = |j: usize| input[g0 + r.start + j];
            let n = r.len();
            for j in 0..n {
                let i = g0 + r.start + j;
                let want = match s {
                    1 => (0..n).map(at).sum::<i32>(),
                    2 => (0..=j).map(at).max().unwrap_or(0),
                    _ => -1,
                };
                assert_eq!(out[i * 3], want, "uniform in sub-group {s}, item {i}");
                let odd = if j % 2 == 1 {
                    (0..n).filter(|k| k % 2 == 1).map(at).sum::<i32>()
                } else {
                    at(0) + if j == 0 { 1_000_000 } else { 0 }
                };
                assert_eq!(out[i * 3 + 1], odd, "non-uniform, item {i}");
                assert_eq!(out[i * 3 + 2], input[g0 + local - 1 - (r.start + j)]);
            }
        }
    }
}

#[test]
fn intel_shuffles() {
    let src = r#"
        kernel void k(global const int *in, global int *out) {
            size_t g = get_global_id(0);
            int x = in[g], y = -in[g];
            uint j = get_sub_group_local_id();
            global int *o = out + g * 4;
            o[0] = intel_sub_group_shuffle(x, 3 - j);
            o[1] = intel_sub_group_shuffle_xor(x, 2);
            o[2] = intel_sub_group_shuffle_down(x, y, 3);
            o[3] = intel_sub_group_shuffle_up(y, x, 1);
            uint2 v = intel_sub_group_block_read2((const global uint *)in + get_group_id(0) * 8);
            intel_sub_group_block_write((global uint *)out + 64 + g - j, v.y + v.x);
        }"#;
    let Some(k) = kernel_with(
        src,
        "k",
        // clang-15's built-in declarations lack the INTEL functions: the full header.
        &[
            "-Dcl_intel_subgroups",
            "-Xclang",
            "-include",
            "-Xclang",
            "opencl-c.h",
        ],
        ",+SPV_INTEL_subgroups",
    ) else {
        return;
    };
    let (global, local) = (16usize, 8usize);
    let input = pseudo(global, 17);
    let mut inp = input.clone();
    let mut out = vec![0i32; global * 4 + 64];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut inp).buf(1, &mut out);
    run1(&k, &args, global as u64, local as u64);
    for i in 0..global {
        // Block read of 2: (p[j], p[j + 4]) from the group's 8 elements; block write of
        // one element per work-item: p[j] of the sub-group's base (here `64 + g`).
        let (grp, l) = (i / local, i % local);
        let j = l % SGS;
        let v = input[grp * 8 + j].wrapping_add(input[grp * 8 + j + SGS]);
        let sg_base = i - j;
        assert_eq!(out[64 + sg_base + j], v, "block io {i}");
    }
    for i in 0..global {
        let base = i / SGS * SGS;
        let j = i - base;
        let x = |k: usize| input[base + k];
        let o = &out[i * 4..][..4];
        assert_eq!(o[0], x(3 - j), "shuffle {i}");
        assert_eq!(o[1], x(j ^ 2), "xor {i}");
        let d = j + 3;
        assert_eq!(o[2], if d < SGS { x(d) } else { -x(d - SGS) }, "down {i}");
        let u = j as isize - 1;
        assert_eq!(
            o[3],
            if u >= 0 { x(u as usize) } else { -x(SGS - 1) },
            "up {i}"
        );
    }
}

#[test]
fn diverged_work_items_reconverge_at_the_next_sub_group_collective() {
    // Odd lanes reduce first; every lane then reduces again, which must see the whole
    // sub-group (the even lanes wait for the odd ones), also inside a loop with a
    // lane-dependent trip count.
    let src = r#"
        kernel void k(global const int *in, global int *out) {
            size_t g = get_global_id(0);
            int x = in[g];
            uint j = get_sub_group_local_id();
            int a = 0;
            if (j & 1) {
                a = sub_group_non_uniform_reduce_add(x);
            }
            int b = sub_group_non_uniform_reduce_add(x);
            int c = 0;
            for (uint i = 0; i < j; i++) {
                c += sub_group_non_uniform_reduce_add(1);
            }
            int d = sub_group_non_uniform_reduce_max(x);
            out[g * 4] = a;
            out[g * 4 + 1] = b;
            out[g * 4 + 2] = c;
            out[g * 4 + 3] = d;
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let (global, local) = (22usize, 11usize);
    let input = pseudo(global, 19);
    let mut inp = input.clone();
    let mut out = vec![0i32; global * 4];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut inp).buf(1, &mut out);
    run1(&k, &args, global as u64, local as u64);
    for g0 in (0..global).step_by(local) {
        for r in sub_groups(local.min(global - g0)) {
            let n = r.len();
            let at = |j: usize| input[g0 + r.start + j];
            for j in 0..n {
                let o = &out[(g0 + r.start + j) * 4..][..4];
                let a = if j % 2 == 1 {
                    (0..n).filter(|k| k % 2 == 1).map(at).sum()
                } else {
                    0
                };
                let b: i32 = (0..n).map(at).sum();
                // Iteration i runs in the lanes with j > i.
                let c: i32 = (0..j)
                    .map(|i| (0..n).filter(|k| *k > i).count() as i32)
                    .sum();
                let d = (0..n).map(at).max().unwrap_or(0);
                assert_eq!(o, [a, b, c, d], "sub-group {r:?} lane {j}");
            }
        }
    }
}

#[test]
fn rotates_whole_and_clustered() {
    let src = r#"
        kernel void k(global const int *in, global int *out) {
            size_t g = get_global_id(0);
            int x = in[g];
            out[g * 3] = sub_group_rotate(x, 1);
            out[g * 3 + 1] = sub_group_clustered_rotate(x, 3, 2);
            out[g * 3 + 2] = sub_group_clustered_rotate(x, 1, 4);
        }"#;
    let Some(k) = kernel_with(src, "k", &[], ",+SPV_KHR_subgroup_rotate") else {
        return;
    };
    let (global, local) = (24usize, 12usize);
    let input = pseudo(global, 23);
    let mut inp = input.clone();
    let mut out = vec![0i32; global * 3];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut inp).buf(1, &mut out);
    run1(&k, &args, global as u64, local as u64);
    for i in 0..global {
        let base = i / SGS * SGS;
        let j = i - base;
        let x = |k: usize| input[base + k];
        assert_eq!(out[i * 3], x((j + 1) % SGS), "rotate {i}");
        assert_eq!(out[i * 3 + 1], x(j / 2 * 2 + (j + 3) % 2), "cluster 2 {i}");
        assert_eq!(out[i * 3 + 2], x((j + 1) % 4), "cluster 4 {i}");
    }
}

#[test]
fn block_io_and_ballot_bits_without_boundaries() {
    // No collective: the kernel is one loop nest (no rounds), the sub-group operations
    // are plain code.
    let src = r#"
        kernel void k(global const uint *in, global uint *out) {
            size_t g = get_global_id(0);
            uint j = get_sub_group_local_id();
            const global uint *p = in + (g - j);
            uint v = intel_sub_group_block_read(p);
            intel_sub_group_block_write(out + (g - j), v * 2);
            uint4 b = (uint4)(in[g], 0, 0, 0);
            out[64 + g] = sub_group_inverse_ballot(b) + 2 * sub_group_ballot_bit_count(b);
        }"#;
    let Some(k) = kernel_with(
        src,
        "k",
        &[
            "-Dcl_intel_subgroups",
            "-Xclang",
            "-include",
            "-Xclang",
            "opencl-c.h",
        ],
        ",+SPV_INTEL_subgroups",
    ) else {
        return;
    };
    assert_eq!(k.frame_size_per_item, 0, "no boundaries, no frame");
    let (global, local) = (20usize, 10usize);
    let input: Vec<u32> = (0..global as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 27)
        .collect();
    let mut inp = input.clone();
    let mut out = vec![0u32; 64 + global];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut inp).buf(1, &mut out);
    run1(&k, &args, global as u64, local as u64);
    for i in 0..global {
        let j = (i % local) % SGS;
        assert_eq!(out[i], input[i] * 2, "block io {i}");
        let b = input[i];
        let want = ((b >> j) & 1) + 2 * (b & ((1 << SGS) - 1)).count_ones();
        assert_eq!(out[64 + i], want, "ballot bits {i}");
    }
}

#[test]
fn a_required_sub_group_size_other_than_ours_is_refused() {
    let src = r#"
        __attribute__((intel_reqd_sub_group_size(SIZE)))
        kernel void k(global int *out) { out[get_global_id(0)] = get_sub_group_size(); }"#;
    for (size, ok) in [(4, true), (16, true), (12, false)] {
        let Some(spv) = harness::cl_to_spirv_with(
            &src.replace("SIZE", &size.to_string()),
            "-O2",
            &["-Dcl_intel_required_subgroup_size"],
            ",+SPV_INTEL_subgroups",
        ) else {
            return;
        };
        let r = ferrite_compiler::Module::from_spirv(&spv)
            .and_then(|m| m.compile_kernel("k").map(|k| k.info.sub_group_size));
        match (r, ok) {
            (Ok(n), true) => assert_eq!(n, size, "the kernel's sub-group size"),
            (Err(ferrite_compiler::CompileError::Unsupported(msg)), false) => {
                assert!(msg.contains("sub-group size of 12"), "{msg}")
            }
            (r, _) => panic!("size {size}: {r:?}"),
        }
    }
}

/// A kernel requiring 8, 16 or 32 work-items per sub-group gets them: ids and sizes,
/// reductions, scans, broadcasts, shuffles and ballots over every lane, in groups that
/// hold whole, partial and single sub-groups.
#[test]
fn required_sizes_8_16_and_32() {
    let src = r#"
        __attribute__((intel_reqd_sub_group_size(SIZE)))
        kernel void k(global const int *in, global int *out) {
            size_t g = get_global_id(0);
            int x = in[g];
            uint j = get_sub_group_local_id(), s = get_sub_group_size();
            global int *o = out + g * 12;
            o[0] = get_sub_group_id() * 1000 + j * 10 + (get_max_sub_group_size() == SIZE);
            o[1] = s + 100 * get_num_sub_groups();
            o[2] = sub_group_reduce_add(x);
            o[3] = sub_group_scan_inclusive_max(x);
            o[4] = sub_group_scan_exclusive_add(x);
            o[5] = sub_group_broadcast(x, s - 1);
            o[6] = sub_group_shuffle(x, (j + 3) % s);
            o[7] = sub_group_shuffle_xor(x, SIZE / 2);
            o[8] = sub_group_shuffle_down(x, 1);
            uint4 b = sub_group_ballot(x > 0);
            o[9] = b.x;
            o[10] = sub_group_ballot_bit_count(b) + 100 * sub_group_ballot_inclusive_scan(b);
            o[11] = sub_group_non_uniform_reduce_min(x);
        }"#;
    for size in [8usize, 16, 32] {
        let Some(k) = kernel_with(
            &src.replace("SIZE", &size.to_string()),
            "k",
            &["-Dcl_intel_required_subgroup_size"],
            ",+SPV_INTEL_subgroups",
        ) else {
            return;
        };
        assert_eq!(k.info.sub_group_size as usize, size);
        for local in [5usize, size, 40, 64] {
            let global = local * 2 + local / 2;
            let input = pseudo(global, (size * 7 + local) as u32);
            let mut out = vec![0i32; global * 12];
            let mut inp = input.clone();
            let mut args = Args::new(&k.info);
            args.buf(0, &mut inp).buf(1, &mut out);
            run1(&k, &args, global as u64, local as u64);
            for g0 in (0..global).step_by(local) {
                let n = local.min(global - g0);
                let groups = sub_groups_of(n, size);
                for (sg, r) in groups.iter().enumerate() {
                    let xs: Vec<i32> = r.clone().map(|i| input[g0 + i]).collect();
                    let m = xs.len();
                    let add = scan_ref(&xs, "add");
                    let max = scan_ref(&xs, "max");
                    let mut ballot = 0u32;
                    for (j, x) in xs.iter().enumerate() {
                        if *x > 0 {
                            ballot |= 1 << j;
                        }
                    }
                    for j in 0..m {
                        let o = &out[(g0 + r.start + j) * 12..][..12];
                        let incl = (ballot & (((1u64 << (j + 1)) - 1) as u32)).count_ones();
                        let want = [
                            (sg * 1000 + j * 10 + 1) as i32,
                            (m + 100 * groups.len()) as i32,
                            add[m],
                            max[j + 1],
                            add[j],
                            xs[m - 1],
                            xs[(j + 3) % m],
                            if (j ^ (size / 2)) < m {
                                xs[j ^ (size / 2)]
                            } else {
                                o[7]
                            },
                            if j + 1 < m { xs[j + 1] } else { o[8] },
                            ballot as i32,
                            (ballot.count_ones() + 100 * incl) as i32,
                            *xs.iter().min().expect("a lane"),
                        ];
                        assert_eq!(o, want, "size {size} local {local} group {g0} lane {j}");
                    }
                }
            }
        }
    }
}

#[test]
fn work_items_left_waiting_alone_are_released() {
    // Lane 0 of each sub-group goes to an early collective then exits; the others wait
    // for it at a later one and must still be combined (without lane 0) afterwards.
    let src = r#"
        kernel void k(global const int *in, global int *out) {
            size_t g = get_global_id(0);
            int x = in[g];
            uint j = get_sub_group_local_id();
            if (j == 0) {
                out[g] = sub_group_non_uniform_reduce_add(x) + 1000;
                return;
            }
            out[g] = sub_group_non_uniform_reduce_max(x);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let (global, local) = (16usize, 8usize);
    let input = pseudo(global, 29);
    let mut inp = input.clone();
    let mut out = vec![0i32; global];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut inp).buf(1, &mut out);
    run1(&k, &args, global as u64, local as u64);
    for i in 0..global {
        let base = i / SGS * SGS;
        let want = if i == base {
            input[i] + 1000
        } else {
            (base + 1..base + SGS).map(|k| input[k]).max().unwrap_or(0)
        };
        assert_eq!(out[i], want, "item {i}");
    }
}
