//! The control-flow graph of a function: successors from each block's terminator,
//! predecessors, immediate dominators (Cooper, Harvey & Kennedy's iterative algorithm over
//! the reverse post-order) and a reverse post-order of the blocks reachable from the entry (a block
//! comes after every block that dominates it, so a translator visiting blocks in this
//! order meets every definition before its uses).

use crate::codegen::{control_successors, Result};
use crate::spirv::Function;
use crate::CompileError;
use rspirv::spirv::Word;
use std::collections::HashMap;

pub struct Cfg {
    /// Successor block indices of each block.
    pub succs: Vec<Vec<usize>>,
    /// Predecessor block indices of each block (reachable predecessors only).
    pub preds: Vec<Vec<usize>>,
    /// Each reachable block's position in `rpo`.
    pub rpo_pos: Vec<Option<usize>>,
    /// Immediate dominator of each reachable block (the entry's is itself).
    pub idom: Vec<Option<usize>>,
    /// Reachable blocks in reverse post-order, the entry first.
    pub rpo: Vec<usize>,
}

impl Cfg {
    pub fn new(f: &Function) -> Result<Cfg> {
        let index: HashMap<Word, usize> = f
            .blocks
            .iter()
            .enumerate()
            .map(|(i, b)| (b.label, i))
            .collect();
        let mut succs = Vec::with_capacity(f.blocks.len());
        for b in &f.blocks {
            let mut s = Vec::new();
            for l in control_successors(b)? {
                let i = *index.get(&l).ok_or(CompileError::InvalidId {
                    id: l,
                    expected: "block label",
                })?;
                s.push(i);
            }
            succs.push(s);
        }
        let n = f.blocks.len();
        let mut rpo = Vec::with_capacity(n);
        if n > 0 {
            // Iterative depth-first search: (block, next successor to visit).
            let mut seen = vec![false; n];
            let mut stack = vec![(0usize, 0usize)];
            seen[0] = true;
            while let Some(top) = stack.last_mut() {
                let (b, k) = *top;
                if let Some(&s) = succs[b].get(k) {
                    top.1 += 1;
                    if !seen[s] {
                        seen[s] = true;
                        stack.push((s, 0));
                    }
                } else {
                    rpo.push(b);
                    stack.pop();
                }
            }
            rpo.reverse();
        }
        let mut preds = vec![Vec::new(); n];
        let mut rpo_pos = vec![None; n];
        for (i, &b) in rpo.iter().enumerate() {
            rpo_pos[b] = Some(i);
        }
        for &b in &rpo {
            for &s in &succs[b] {
                if !preds[s].contains(&b) {
                    preds[s].push(b);
                }
            }
        }
        let idom = dominators(&rpo, &rpo_pos, &preds);
        Ok(Cfg {
            succs,
            preds,
            rpo_pos,
            idom,
            rpo,
        })
    }

    /// Whether block `a` dominates block `b` (both reachable).
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        let mut x = b;
        loop {
            if x == a {
                return true;
            }
            match self.idom[x] {
                Some(d) if d != x => x = d,
                _ => return false,
            }
        }
    }
}

impl Cfg {
    /// Immediate post-dominators of the reachable blocks, on the graph with a virtual exit
    /// (index `succs.len()`) after every block without successors; `None` for a block
    /// that reaches no exit (an infinite loop).
    pub fn post_dominators(&self) -> Vec<Option<usize>> {
        let n = self.succs.len();
        let exit = n;
        // Reverse graph: the predecessors of a node are its successors in the CFG.
        let mut rsuccs: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        let mut rpreds: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        for &b in &self.rpo {
            if self.succs[b].is_empty() {
                rsuccs[exit].push(b);
                rpreds[b].push(exit);
            }
            for &s in &self.succs[b] {
                rsuccs[s].push(b);
                rpreds[b].push(s);
            }
        }
        let mut rpo = Vec::with_capacity(n + 1);
        let mut seen = vec![false; n + 1];
        let mut stack = vec![(exit, 0usize)];
        seen[exit] = true;
        while let Some(top) = stack.last_mut() {
            let (b, k) = *top;
            if let Some(&s) = rsuccs[b].get(k) {
                top.1 += 1;
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                rpo.push(b);
                stack.pop();
            }
        }
        rpo.reverse();
        let mut pos = vec![None; n + 1];
        for (i, &b) in rpo.iter().enumerate() {
            pos[b] = Some(i);
        }
        dominators(&rpo, &pos, &rpreds)
    }
}

/// Immediate dominators by iteration over the reverse post-order.
fn dominators(rpo: &[usize], pos: &[Option<usize>], preds: &[Vec<usize>]) -> Vec<Option<usize>> {
    let mut idom: Vec<Option<usize>> = vec![None; pos.len()];
    let Some(&entry) = rpo.first() else {
        return idom;
    };
    idom[entry] = Some(entry);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while pos[a] > pos[b] {
                a = idom[a].unwrap_or(entry);
            }
            while pos[b] > pos[a] {
                b = idom[b].unwrap_or(entry);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().skip(1) {
            let mut new: Option<usize> = None;
            for &p in &preds[b] {
                if idom[p].is_some() {
                    new = Some(match new {
                        None => p,
                        Some(x) => intersect(&idom, p, x),
                    });
                }
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{dominators, Cfg};

    /// A `Cfg` from successor lists (block 0 the entry), as `Cfg::new` builds it.
    pub(crate) fn cfg_of(succs: Vec<Vec<usize>>) -> Cfg {
        let n = succs.len();
        let mut rpo = Vec::new();
        let mut seen = vec![false; n];
        fn dfs(b: usize, succs: &[Vec<usize>], seen: &mut [bool], out: &mut Vec<usize>) {
            seen[b] = true;
            for &s in &succs[b] {
                if !seen[s] {
                    dfs(s, succs, seen, out);
                }
            }
            out.push(b);
        }
        dfs(0, &succs, &mut seen, &mut rpo);
        rpo.reverse();
        let mut rpo_pos = vec![None; n];
        for (i, &b) in rpo.iter().enumerate() {
            rpo_pos[b] = Some(i);
        }
        let mut preds = vec![Vec::new(); n];
        for &b in &rpo {
            for &s in &succs[b] {
                preds[s].push(b);
            }
        }
        let idom = dominators(&rpo, &rpo_pos, &preds);
        Cfg {
            succs,
            preds,
            rpo_pos,
            idom,
            rpo,
        }
    }

    /// An if/else whose sides join at 3, inside a loop 1..=4 that exits to 5; a `return` in
    /// 2 makes the virtual exit the join of the branch in 1.
    #[test]
    fn post_dominators_of_a_diamond_in_a_loop() {
        let cfg = cfg_of(vec![
            vec![1],
            vec![2, 3],
            vec![3],
            vec![4],
            vec![1, 5],
            vec![],
        ]);
        let pd = cfg.post_dominators();
        assert_eq!(pd[1], Some(3), "the if/else joins at 3");
        assert_eq!(pd[4], Some(5));
        assert_eq!(pd[5], Some(6), "the virtual exit");
        let cfg = cfg_of(vec![
            vec![1],
            vec![2, 3],
            vec![],
            vec![4],
            vec![1, 5],
            vec![],
        ]);
        let pd = cfg.post_dominators();
        assert_eq!(pd[1], Some(6), "with a return in 2, only the exit joins");
    }

    /// entry 0 → 1 → {2, 3} → 4 → 1 (a loop with a diamond inside), 4 → 5.
    #[test]
    fn dominators_of_a_loop_with_a_diamond() {
        let succs: Vec<Vec<usize>> =
            vec![vec![1], vec![2, 3], vec![4], vec![4], vec![1, 5], vec![]];
        let rpo = vec![0, 1, 3, 2, 4, 5];
        let mut pos = vec![None; 6];
        for (i, b) in rpo.iter().enumerate() {
            pos[*b] = Some(i);
        }
        let mut preds = vec![Vec::new(); 6];
        for (b, ss) in succs.iter().enumerate() {
            for s in ss {
                preds[*s].push(b);
            }
        }
        let idom = dominators(&rpo, &pos, &preds);
        assert_eq!(
            idom,
            vec![Some(0), Some(0), Some(1), Some(1), Some(1), Some(4)]
        );
    }
}
