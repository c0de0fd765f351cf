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
use crate::spirv::{op_id, Function};
use crate::CompileError;
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
    use super::{order, Item, Loops};
    use crate::analysis::cfg::tests::cfg_of;

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

    /// Two entries into the cycle 1 ⇄ 2 (from 0 to both): irreducible, refused.
    #[test]
    fn irreducible_graphs_are_refused() {
        let cfg = cfg_of(vec![vec![1, 2], vec![2], vec![1, 3], vec![]]);
        assert!(Loops::new(&cfg).is_err());
    }
}
