//! The control-flow graph of a function: successors from each block's terminator and a reverse post-order of the blocks reachable from the entry (a block
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
        Ok(Cfg { succs, rpo })
    }
}
