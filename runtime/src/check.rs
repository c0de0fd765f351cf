//! Checked mode (`FERRITE_CHECK=bounds,races`), the runtime's half: for each launch, the
//! table of what its arguments reach ([`ferrite_compiler::check::CheckLaunch`]), handed to
//! the kernel in `GroupContext::check`; after the launch, its reports become the
//! launch's [`KernelFault`](crate::executor::KernelFault), which fails the command as a
//! fault does (stderr, the context's callback, a negative event status).

use crate::executor::Launch;
use ferrite_compiler::check::{ArgRange, CheckLaunch};
use ferrite_compiler::ArgKind;

/// The checked-mode state of `launch`, or `None` when its kernel was compiled without
/// checks.
pub fn launch_state(launch: &Launch<'_>) -> Option<CheckLaunch> {
    let kc = &launch.kernel.check;
    if !kc.mode.any() {
        return None;
    }
    let k = &launch.kernel.info;
    let mut args = Vec::new();
    let mut locals = Vec::new();
    let mut unknown = false;
    let mut table = vec![[0u64; 2]; k.args.len()];
    let slot = |off: usize| {
        launch
            .args
            .get(off..off + 8)
            .and_then(|s| s.try_into().ok())
            .map_or(0, u64::from_ne_bytes)
    };
    let name = |i: usize, n: &str| {
        if n.is_empty() {
            format!("argument #{i}")
        } else {
            format!("argument #{i} `{n}`")
        }
    };
    for (i, a) in k.args.iter().enumerate() {
        match a.kind {
            ArgKind::Buffer { .. } => {
                let p = slot(a.offset);
                if p == 0 {
                    continue;
                }
                let range = launch
                    .extents
                    .iter()
                    .find(|(b, s)| *b <= p && p < b + (*s).max(1))
                    .map(|&(b, s)| (b, b + s))
                    .or_else(|| {
                        crate::usm::find(p as usize)
                            .map(|u| (u.base as u64, (u.base + u.size) as u64))
                    });
                match range {
                    Some((lo, hi)) => {
                        table[i] = [lo, hi];
                        args.push(ArgRange {
                            lo,
                            hi,
                            what: name(i, &a.name),
                            origin: p,
                        })
                    }
                    // Fine-grain system SVM: any host memory.
                    None => unknown = true,
                }
            }
            ArgKind::Local => locals.push((slot(a.offset), i, a.name.clone())),
            _ => {}
        }
    }
    // Structs passed by value are read where the argument block holds them.
    let block = launch.args.as_ptr() as u64;
    args.push(ArgRange {
        lo: block,
        hi: block + launch.args.len() as u64,
        what: "the argument block".to_string(),
        origin: block,
    });
    locals.sort();
    let total = launch.local_mem_size as u64;
    let local_args = locals
        .iter()
        .enumerate()
        .map(|(j, (off, i, n))| {
            let end = locals.get(j + 1).map_or(total, |l| l.0);
            // Inline checks of a `__local` argument compare offsets in local memory.
            if let Some(t) = table.get_mut(*i) {
                *t = [*off, end.max(*off)];
            }
            (*off, end.saturating_sub(*off), name(*i, n))
        })
        .collect();
    let frame = launch.frame_size().unwrap_or(0) as u64;
    Some(CheckLaunch::new(
        &k.name,
        kc,
        table,
        args,
        local_args,
        frame,
        Some(Box::new(|addr| {
            crate::usm::find(addr as usize).map(|u| (u.base as u64, u.size as u64))
        })),
        unknown,
    ))
}
