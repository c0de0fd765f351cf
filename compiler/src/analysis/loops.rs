//! Natural loops and a linear order of the blocks with every loop contiguous: what a
//! lowering that runs divergent code under lane masks emits, one block after another.
//!
//! A back edge goes to a block that dominates its source; its target is a loop header, and
//! the loop is every block that reaches one of the header's back edges without passing
//! through the header. A retreating edge to a block that does not dominate it makes the
//! graph irreducible, which is refused (OpenCL C from clang does not produce one).
//!
//! [`order`] lists the blocks topologically (every forward edge points later), a loop as
//! one [`Item::Loop`] holding its own blocks in the same kind of order, so its body can be
//! emitted as one straight run that repeats while a lane is still in the loop.

use super::cfg::Cfg;
use crate::codegen::Result;
use crate::ir::Inst;
use crate::spirv::{op_id, Function};
use crate::CompileError;
use rspirv::dr::Operand;
use rspirv::spirv::{Op, Word};
use std::collections::BTreeSet;

#[derive(Debug)]
pub struct Loop {
    pub header: usize,
    /// Every block of the loop, the header and inner loops' blocks included.
    pub blocks: BTreeSet<usize>,
    /// Blocks with an edge back to the header.
    pub latches: Vec<usize>,
    /// The loop directly containing this one.
    pub parent: Option<usize>,
}

#[derive(Debug)]
pub struct Loops {
    pub loops: Vec<Loop>,
    /// The innermost loop of each block.
    pub innermost: Vec<Option<usize>>,
}

impl Loops {
    pub fn new(cfg: &Cfg) -> Result<Loops> {
        let n = cfg.succs.len();
        let mut loops: Vec<Loop> = Vec::new();
        for &h in &cfg.rpo {
            let latches: Vec<usize> = cfg.preds[h]
                .iter()
                .copied()
                .filter(|&p| cfg.rpo_pos[p] >= cfg.rpo_pos[h])
                .collect();
            if latches.is_empty() {
                continue;
            }
            if let Some(&p) = latches.iter().find(|&&p| !cfg.dominates(h, p)) {
                return Err(CompileError::Unsupported(format!(
                    "irreducible control flow (an edge from block {p} into a loop it does \
                     not enter through its header)"
                )));
            }
            let mut blocks = BTreeSet::from([h]);
            let mut work = latches.clone();
            while let Some(b) = work.pop() {
                if blocks.insert(b) {
                    work.extend(cfg.preds[b].iter().copied());
                }
            }
            loops.push(Loop {
                header: h,
                blocks,
                latches,
                parent: None,
            });
        }
        // Headers come in reverse post-order, so an outer loop precedes its inner ones:
        // a loop's parent is the last earlier loop containing its header.
        let mut innermost = vec![None; n];
        for i in 0..loops.len() {
            let h = loops[i].header;
            loops[i].parent = (0..i).rev().find(|&j| loops[j].blocks.contains(&h));
            for &b in &loops[i].blocks {
                innermost[b] = Some(i);
            }
        }
        Ok(Loops { loops, innermost })
    }

    /// Whether loop `l` contains block `b`.
    pub fn contains(&self, l: usize, b: usize) -> bool {
        self.loops[l].blocks.contains(&b)
    }

    /// The loop directly inside `within` (or outermost, for `None`) that contains `b`,
    /// if `b` is in one.
    fn child_containing(&self, within: Option<usize>, b: usize) -> Option<usize> {
        let mut l = self.innermost[b]?;
        loop {
            if self.loops[l].parent == within {
                return Some(l);
            }
            l = self.loops[l].parent?;
        }
    }
}

/// The loops of `f` (`cfg` its graph) whose header's conditional branch stays in the loop
/// when true and leaves it when false: each loop's index and its header's label. A
/// translator emits such a branch with its targets swapped, exit first, because of how
/// Cranelift's egraph pass hoists loop-invariant values: only while it walks the loop's
/// blocks, forgetting the loop at the first block outside it, and it walks a block's
/// dominator-tree children with a branch's second target first, so for
/// `brif c, body, exit` it meets the exit, forgets the loop, and elaborates the body's
/// values in place, every iteration. (n-body: 1.5x.)
pub fn exit_first_headers(f: &Function, cfg: &Cfg) -> (Option<Loops>, Vec<(usize, Word)>) {
    let Ok(loops) = Loops::new(cfg) else {
        return (None, Vec::new());
    };
    let index = |label: Word| f.blocks.iter().position(|b| b.label == label);
    let mut out = Vec::new();
    for (l, lp) in loops.loops.iter().enumerate() {
        let blk = &f.blocks[lp.header];
        let Some(term) = blk.insts.last() else {
            continue;
        };
        if term.class.opcode != Op::BranchConditional {
            continue;
        }
        let (Ok(t), Ok(e)) = (op_id(term, 1), op_id(term, 2)) else {
            continue;
        };
        if let (Some(t), Some(e)) = (index(t), index(e)) {
            if loops.contains(l, t) && !loops.contains(l, e) {
                out.push((l, blk.label));
            }
        }
    }
    (Some(loops), out)
}

/// [`dedicate`], and then [`close`]: the form the uniformity analysis keeps loop values'
/// shapes in. Returns the graph of the changed function. A graph with irreducible control
/// flow is left as it is.
pub fn closed_form(f: &mut Function, next: &mut Word) -> Result<Cfg> {
    let (_, cfg, loops) = dedicate(f, next)?;
    if let Some(loops) = loops {
        // Phis do not change the graph: `cfg` stays right.
        close(f, &cfg, &loops, next);
    }
    Ok(cfg)
}

/// [`dedicate`]'s change alone: whether anything changed.
#[cfg(test)]
pub fn dedicate_exits(f: &mut Function, next: &mut Word) -> Result<bool> {
    Ok(dedicate(f, next)?.0)
}

/// Give every loop exit block of `f` only predecessors in the loop, as LLVM's loop-simplify
/// does (clang's output merges a loop's exit with the path that skips it): for an exit
/// `e` entered from loop blocks and from elsewhere, a new block between the loop's edges
/// and `e`, its phis taking what `e`'s phis took from the loop. [`close`] needs the
/// exits so. `next` is the first unused id. Returns whether anything changed, and the
/// final graph and its loops (none if irreducible: then nothing changes).
fn dedicate(f: &mut Function, next: &mut Word) -> Result<(bool, Cfg, Option<Loops>)> {
    let mut changed = false;
    // Each round splits one exit and starts again on the changed graph (bounded: a
    // kernel has few loops; past the bound the rest stays as it is).
    let mut round = 0;
    loop {
        let cfg = Cfg::new(f)?;
        let Ok(loops) = Loops::new(&cfg) else {
            return Ok((changed, cfg, None));
        };
        let found = loops.loops.iter().find_map(|lp| {
            let inside = |b: usize| lp.blocks.contains(&b);
            exits(&cfg, lp)
                .into_iter()
                .find(|&e| cfg.preds[e].iter().any(|&p| !inside(p)))
                .map(|e| {
                    let from: Vec<usize> = cfg.preds[e]
                        .iter()
                        .copied()
                        .filter(|&p| inside(p))
                        .collect();
                    (e, from)
                })
        });
        let Some((e, from)) = found.filter(|_| round < 64) else {
            return Ok((changed, cfg, Some(loops)));
        };
        round += 1;
        let nphis = f.blocks[e]
            .insts
            .iter()
            .filter(|i| i.class.opcode == Op::Phi)
            .count();
        let Some(end) = next.checked_add(1 + nphis as Word) else {
            return Ok((changed, cfg, Some(loops)));
        };
        let x = *next;
        let mut fresh = x + 1..end;
        *next = end;
        let (e_label, from_labels): (Word, Vec<Word>) = (
            f.blocks[e].label,
            from.iter().map(|&p| f.blocks[p].label).collect(),
        );
        for &p in &from {
            if let Some(term) = f.blocks[p].insts.last_mut() {
                for o in term.operands.iter_mut() {
                    if *o == Operand::IdRef(e_label) {
                        *o = Operand::IdRef(x);
                    }
                }
            }
        }
        let mut moved = Vec::new();
        for phi in f.blocks[e]
            .insts
            .iter_mut()
            .filter(|i| i.class.opcode == Op::Phi)
        {
            let (mut keep, mut take) = (Vec::new(), Vec::new());
            for pair in phi.operands.chunks(2) {
                match pair {
                    [v, Operand::IdRef(l)] if from_labels.contains(l) => {
                        take.extend([v.clone(), Operand::IdRef(*l)])
                    }
                    _ => keep.extend(pair.iter().cloned()),
                }
            }
            let r = fresh.next().unwrap_or(x);
            keep.extend([Operand::IdRef(r), Operand::IdRef(x)]);
            phi.operands = keep;
            moved.push(Inst::new(Op::Phi, phi.result_type, Some(r), take));
        }
        moved.push(Inst::new(
            Op::Branch,
            None,
            None,
            vec![Operand::IdRef(e_label)],
        ));
        f.blocks.insert(
            e,
            crate::spirv::Block {
                label: x,
                insts: moved,
            },
        );
        changed = true;
    }
}

/// The blocks loop `lp` exits to.
fn exits(cfg: &Cfg, lp: &Loop) -> BTreeSet<usize> {
    lp.blocks
        .iter()
        .flat_map(|&b| cfg.succs[b].iter().copied())
        .filter(|s| !lp.blocks.contains(s))
        .collect()
}

/// The blocks loop `lp` exits to, if each is entered from the loop alone.
fn dedicated_exits(cfg: &Cfg, lp: &Loop) -> Option<BTreeSet<usize>> {
    let exits = exits(cfg, lp);
    let dedicated = exits
        .iter()
        .all(|&e| cfg.preds[e].iter().all(|p| lp.blocks.contains(p)));
    dedicated.then_some(exits)
}

/// Each block's index by its label.
fn label_index(f: &Function) -> std::collections::HashMap<Word, usize> {
    f.blocks
        .iter()
        .enumerate()
        .map(|(k, b)| (b.label, k))
        .collect()
}

/// Put `f` in loop-closed form where that is simple: every value a loop defines and a block
/// after it uses reaches that use through an `OpPhi` in the loop's exit block (one phi per
/// value and exit), as LLVM's LCSSA. Lanes leave a loop with a divergent exit in different
/// iterations, so such a value differs between lanes after the loop even where it is the
/// same in every lane still inside: the phi is the name of its value after the loop, and
/// the uniformity analysis can keep the one inside uniform (`uniformity.rs`). A loop is
/// closed only when every exit block is entered from the loop alone and each use after
/// the loop is dominated by one exit; others are left as they are. Inner loops first, so
/// a value leaving two loops passes through a phi at each exit. `next` is the first
/// unused id; returns whether anything changed.
pub fn close(f: &mut Function, cfg: &Cfg, loops: &Loops, next: &mut Word) -> bool {
    let mut changed = false;
    for lp in loops.loops.iter().rev() {
        changed |= close_loop(f, cfg, lp, next);
    }
    changed
}

fn close_loop(f: &mut Function, cfg: &Cfg, lp: &Loop, next: &mut Word) -> bool {
    let inside = |b: usize| lp.blocks.contains(&b);
    let Some(exits) = dedicated_exits(cfg, lp) else {
        return false;
    };
    let mut defined: std::collections::HashMap<Word, Word> = Default::default();
    for &b in &lp.blocks {
        for i in &f.blocks[b].insts {
            if let (Some(r), Some(t)) = (i.result_id, i.result_type) {
                defined.insert(r, t);
            }
        }
    }
    let index = label_index(f);
    // Each use after the loop: (block, instruction, operand) and the exit dominating it.
    let mut uses = Vec::new();
    for (bi, blk) in f.blocks.iter().enumerate() {
        if inside(bi) || cfg.rpo_pos[bi].is_none() {
            continue;
        }
        for (ii, inst) in blk.insts.iter().enumerate() {
            let phi = inst.class.opcode == Op::Phi;
            for (k, o) in inst.operands.iter().enumerate() {
                let Operand::IdRef(id) = o else { continue };
                if !defined.contains_key(id) {
                    continue;
                }
                // A phi's operand is used at the end of the predecessor it names.
                let at = match phi {
                    true => match inst.operands.get(k + 1) {
                        Some(Operand::IdRef(from)) => match index.get(from) {
                            Some(&p) => p,
                            None => return false,
                        },
                        _ => return false,
                    },
                    false => bi,
                };
                if phi && exits.contains(&bi) && inside(at) {
                    continue; // already an exit phi
                }
                match exits.iter().find(|&&e| cfg.dominates(e, at)) {
                    Some(&e) => uses.push((bi, ii, k, *id, e)),
                    None => return false,
                }
            }
        }
    }
    let mut phis: std::collections::BTreeMap<(usize, Word), Word> = Default::default();
    for &(_, _, _, id, e) in &uses {
        if let std::collections::btree_map::Entry::Vacant(v) = phis.entry((e, id)) {
            v.insert(*next);
            match next.checked_add(1) {
                Some(n) => *next = n,
                None => return false, // out of ids: nothing changed yet
            }
        }
    }
    for &(bi, ii, k, id, e) in &uses {
        f.blocks[bi].insts[ii].operands[k] = Operand::IdRef(phis[&(e, id)]);
    }
    for (&(e, id), &r) in phis.iter().rev() {
        let mut ops = Vec::new();
        for &p in &cfg.preds[e] {
            ops.push(Operand::IdRef(id));
            ops.push(Operand::IdRef(f.blocks[p].label));
        }
        let phi = Inst::new(Op::Phi, Some(defined[&id]), Some(r), ops);
        f.blocks[e].insts.insert(0, phi);
    }
    !uses.is_empty()
}

/// Whether loop `lp` of `f` is in the form [`close`] gives: its exit blocks are entered from
/// the loop alone, and every value it defines is used after it only by phis of those exit
/// blocks, on edges from the loop.
pub fn is_closed(f: &Function, cfg: &Cfg, lp: &Loop) -> bool {
    let inside = |b: usize| lp.blocks.contains(&b);
    let Some(exits) = dedicated_exits(cfg, lp) else {
        return false;
    };
    let defined: std::collections::HashSet<Word> = lp
        .blocks
        .iter()
        .flat_map(|&b| f.blocks[b].insts.iter().filter_map(|i| i.result_id))
        .collect();
    let index = label_index(f);
    let label_inside = |l: Word| index.get(&l).is_some_and(|&k| inside(k));
    f.blocks.iter().enumerate().all(|(bi, blk)| {
        inside(bi)
            || blk.insts.iter().all(|i| {
                let exit_phi = i.class.opcode == Op::Phi && exits.contains(&bi);
                i.operands.iter().enumerate().all(|(k, o)| match o {
                    Operand::IdRef(id) if defined.contains(id) => {
                        exit_phi
                            && matches!(i.operands.get(k + 1), Some(Operand::IdRef(from)) if label_inside(*from))
                    }
                    _ => true,
                })
            })
    })
}

/// One element of a linear order.
#[derive(Debug, PartialEq, Eq)]
pub enum Item {
    Block(usize),
    /// A loop (index into [`Loops::loops`]) and its blocks in order, its header first.
    Loop(usize, Vec<Item>),
}

/// The reachable blocks in an order where every edge that is not a back edge points
/// later, and every loop is contiguous.
pub fn order(cfg: &Cfg, loops: &Loops) -> Vec<Item> {
    let all: Vec<usize> = cfg.rpo.clone();
    order_region(cfg, loops, None, &all)
}

/// Order the blocks of `region` (the blocks of loop `within`, or of the whole function):
/// nodes are the blocks not in an inner loop and one node per inner loop (its header),
/// sorted topologically (Kahn), ties broken by reverse post-order.
fn order_region(cfg: &Cfg, loops: &Loops, within: Option<usize>, region: &[usize]) -> Vec<Item> {
    // The node standing for block `b`: itself, or the header of its loop at this level.
    let node = |b: usize| match loops.child_containing(within, b) {
        Some(l) => loops.loops[l].header,
        None => b,
    };
    let in_region: BTreeSet<usize> = region.iter().copied().collect();
    let nodes: BTreeSet<usize> = region.iter().map(|&b| node(b)).collect();
    let header = within.map(|l| loops.loops[l].header);
    // Edges between distinct nodes of the region, back edges to this loop's header left out.
    let mut indeg: std::collections::BTreeMap<usize, usize> =
        nodes.iter().map(|&x| (x, 0)).collect();
    let mut out: std::collections::BTreeMap<usize, BTreeSet<usize>> = Default::default();
    for &b in region {
        for &s in &cfg.succs[b] {
            if !in_region.contains(&s) || Some(s) == header {
                continue;
            }
            let (x, y) = (node(b), node(s));
            if x != y && out.entry(x).or_default().insert(y) {
                *indeg.entry(y).or_default() += 1;
            }
        }
    }
    let mut ready: BTreeSet<(usize, usize)> = indeg
        .iter()
        .filter(|(_, d)| **d == 0)
        .map(|(&x, _)| (cfg.rpo_pos[x].unwrap_or(usize::MAX), x))
        .collect();
    let mut items = Vec::new();
    while let Some(first) = ready.iter().next().copied() {
        ready.remove(&first);
        let x = first.1;
        match loops.child_containing(within, x) {
            Some(l) => {
                let inner: Vec<usize> = region
                    .iter()
                    .copied()
                    .filter(|b| loops.contains(l, *b))
                    .collect();
                items.push(Item::Loop(l, order_region(cfg, loops, Some(l), &inner)));
            }
            None => items.push(Item::Block(x)),
        }
        for &y in out.get(&x).into_iter().flatten() {
            if let Some(d) = indeg.get_mut(&y) {
                *d -= 1;
                if *d == 0 {
                    ready.insert((cfg.rpo_pos[y].unwrap_or(usize::MAX), y));
                }
            }
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::{close, dedicate_exits, is_closed, order, Item, Loops};
    use crate::analysis::cfg::tests::cfg_of;
    use crate::analysis::cfg::Cfg;
    use crate::ir::Inst;
    use crate::spirv::{Block, Function};
    use rspirv::dr::Operand;
    use rspirv::spirv::{Op, Word};

    /// 0 → 1 (outer header) → 2 (inner header) ⇄ 3, 2 → 4 → {1, 5}: the order keeps each
    /// loop contiguous, its header first, and exits after the loop.
    #[test]
    fn nested_loops_are_contiguous_in_the_order() {
        let cfg = cfg_of(vec![
            vec![1],
            vec![2],
            vec![3, 4],
            vec![2],
            vec![1, 5],
            vec![],
        ]);
        let loops = Loops::new(&cfg).expect("reducible");
        assert_eq!(loops.loops.len(), 2);
        let outer = loops
            .loops
            .iter()
            .position(|l| l.header == 1)
            .expect("outer");
        let inner = loops
            .loops
            .iter()
            .position(|l| l.header == 2)
            .expect("inner");
        assert_eq!(loops.loops[inner].parent, Some(outer));
        assert_eq!(
            order(&cfg, &loops),
            vec![
                Item::Block(0),
                Item::Loop(
                    outer,
                    vec![
                        Item::Block(1),
                        Item::Loop(inner, vec![Item::Block(2), Item::Block(3)]),
                        Item::Block(4),
                    ]
                ),
                Item::Block(5),
            ]
        );
    }

    /// A function of blocks `(label, instructions)`, block 0 the entry.
    fn function(blocks: Vec<(Word, Vec<Inst>)>) -> Function {
        Function {
            id: 1,
            name: "f".into(),
            ret: 2,
            params: Vec::new(),
            blocks: blocks
                .into_iter()
                .map(|(label, insts)| Block { label, insts })
                .collect(),
        }
    }

    fn inst(op: Op, rt: Option<Word>, r: Option<Word>, ops: &[Word]) -> Inst {
        Inst::new(op, rt, r, ops.iter().map(|i| Operand::IdRef(*i)).collect())
    }

    /// `n = 0; do { n++; } while (c);` and after it `n + 1` read directly (`direct`), or
    /// through a phi of an exit shared with a path that skips the loop. The shared exit
    /// gets a block of its own for the loop's edges, which takes the phi's entries from
    /// the loop; a direct use gets a phi in the exit and reads that.
    #[test]
    fn loops_are_closed_through_dedicated_exits() {
        const INT: Word = 100;
        const ZERO: Word = 101;
        let (s, c, n, n1, user_id): (Word, Word, Word, Word, Word) = (102, 103, 10, 11, 12);
        let body = |entry: Inst, after: Inst| {
            function(vec![
                (20, vec![entry]),
                (21, vec![inst(Op::Branch, None, None, &[22])]),
                (
                    22,
                    vec![
                        inst(Op::Phi, Some(INT), Some(n), &[ZERO, 21, n1, 22]),
                        inst(Op::IAdd, Some(INT), Some(n1), &[n, ZERO]),
                        inst(Op::BranchConditional, None, None, &[c, 22, 23]),
                    ],
                ),
                (23, vec![after, inst(Op::Return, None, None, &[])]),
            ])
        };
        // The shared exit.
        let mut f = body(
            inst(Op::BranchConditional, None, None, &[s, 23, 21]),
            inst(Op::Phi, Some(INT), Some(user_id), &[ZERO, 20, n1, 22]),
        );
        let mut next = 200;
        let cfg = Cfg::new(&f).expect("cfg");
        let loops = Loops::new(&cfg).expect("loops");
        assert!(!is_closed(&f, &cfg, &loops.loops[0]), "the exit is shared");
        assert!(dedicate_exits(&mut f, &mut next).expect("reducible"));
        let cfg = Cfg::new(&f).expect("cfg");
        let loops = Loops::new(&cfg).expect("loops");
        let x = f
            .blocks
            .iter()
            .position(|b| b.label == 200)
            .expect("new exit");
        assert_eq!(
            cfg.preds[x], loops.loops[0].latches,
            "entered from the loop alone"
        );
        assert!(is_closed(&f, &cfg, &loops.loops[0]));
        let moved = &f.blocks[x].insts[0];
        assert_eq!(moved.operands, vec![Operand::IdRef(n1), Operand::IdRef(22)]);
        let r = moved.result_id.expect("phi result");
        let phi = f
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .find(|i| i.result_id == Some(user_id))
            .expect("use");
        assert_eq!(
            phi.operands,
            [ZERO, 20, r, 200].map(Operand::IdRef).to_vec(),
            "the skip's entry stays, the loop's comes from the new block"
        );
        // The direct use.
        let mut f = body(
            inst(Op::Branch, None, None, &[21]),
            inst(Op::IAdd, Some(INT), Some(user_id), &[n1, n1]),
        );
        let cfg = Cfg::new(&f).expect("cfg");
        let loops = Loops::new(&cfg).expect("loops");
        assert!(!is_closed(&f, &cfg, &loops.loops[0]));
        assert!(!dedicate_exits(&mut f, &mut next).expect("reducible"));
        assert!(close(&mut f, &cfg, &loops, &mut next));
        assert!(is_closed(&f, &cfg, &loops.loops[0]));
        let phi = &f.blocks[3].insts[0];
        assert_eq!(phi.class.opcode, Op::Phi);
        assert_eq!(phi.operands, vec![Operand::IdRef(n1), Operand::IdRef(22)]);
        let r = phi.result_id.expect("phi result");
        assert_eq!(
            f.blocks[3].insts[1].operands,
            vec![Operand::IdRef(r), Operand::IdRef(r)]
        );
    }

    /// Two entries into the cycle 1 ⇄ 2 (from 0 to both): irreducible, refused.
    #[test]
    fn irreducible_graphs_are_refused() {
        let cfg = cfg_of(vec![vec![1, 2], vec![2], vec![1, 3], vec![]]);
        assert!(Loops::new(&cfg).is_err());
    }
}
