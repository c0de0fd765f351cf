//! Compile SPIR-V modules the way a program build does (every kernel of each module) and
//! report what failed, grouped by error: a survey tool for modules from other compilers.
//!
//! `cargo run --release -p ferrite-compiler --example compile_spirv -- FILE_OR_DIR...`
//!
//! Prints one line per distinct error (with a count and the first file that showed it), then
//! totals; then how the built kernels run: how many got each vector width, and each reason a
//! kernel stayed scalar with its count. Exits 1 if any module failed. With `--slowest N`
//! first, also the N modules that took longest to build, with their times.

use ferrite_compiler::{Handler, Module};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn files(arg: &Path, out: &mut Vec<PathBuf>) {
    match std::fs::read_dir(arg) {
        Ok(dir) => {
            for e in dir.flatten() {
                files(&e.path(), out);
            }
        }
        Err(_) => out.push(arg.to_path_buf()),
    }
}

fn compile(bytes: &[u8]) -> Result<Vec<Handler>, String> {
    let m = Module::from_spirv(bytes).map_err(|e| e.to_string())?;
    let names: Vec<String> = m.kernels().iter().map(|k| k.name.clone()).collect();
    let mut handlers = Vec::new();
    for n in &names {
        let k = m
            .compile_kernel(n)
            .map_err(|e| format!("kernel {n}: {e}"))?;
        handlers.push(k.handler);
    }
    Ok(handlers)
}

/// The error without the parts that differ between modules (ids, names, numbers).
fn shape(e: &str) -> String {
    let e = e.split_once(": ").map_or(e, |(_, rest)| rest);
    e.chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .take(160)
        .collect()
}

fn main() {
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1).peekable();
    let mut slowest = 0;
    if args.peek().map(String::as_str) == Some("--slowest") {
        args.next();
        slowest = args.next().and_then(|n| n.parse().ok()).unwrap_or(20);
    }
    for a in args {
        files(Path::new(&a), &mut paths);
    }
    let mut times = Vec::new();
    paths.sort();
    let (mut ok, mut kernels) = (0usize, 0usize);
    let mut failures: BTreeMap<String, (usize, PathBuf, String)> = BTreeMap::new();
    let mut widths: BTreeMap<u32, usize> = BTreeMap::new();
    let mut scalar: BTreeMap<String, (usize, PathBuf)> = BTreeMap::new();
    for p in &paths {
        let Ok(bytes) = std::fs::read(p) else {
            continue;
        };
        let start = std::time::Instant::now();
        let built = compile(&bytes);
        times.push((start.elapsed(), p.clone()));
        match built {
            Ok(handlers) => {
                ok += 1;
                kernels += handlers.len();
                for h in handlers {
                    *widths.entry(h.lanes).or_default() += 1;
                    if h.lanes == 1 {
                        scalar.entry(shape(&h.note)).or_insert((0, p.clone())).0 += 1;
                    }
                }
            }
            Err(e) => {
                let entry = failures.entry(shape(&e)).or_insert((0, p.clone(), e));
                entry.0 += 1;
            }
        }
    }
    let mut by_count: Vec<_> = failures.values().collect();
    by_count.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (n, first, e) in &by_count {
        println!("{n:6}  {}  {e}", first.display());
    }
    let failed: usize = by_count.iter().map(|f| f.0).sum();
    println!(
        "{} modules: {ok} built ({kernels} kernels), {failed} failed",
        paths.len()
    );
    for (lanes, n) in &widths {
        println!("{n:6} kernels with {lanes} lane(s)");
    }
    let mut reasons: Vec<_> = scalar.into_iter().collect();
    reasons.sort_by_key(|r| std::cmp::Reverse(r.1 .0));
    for (why, (n, first)) in reasons.iter().take(25) {
        println!("{n:6}  {}  scalar: {why}", first.display());
    }
    times.sort_by_key(|t| std::cmp::Reverse(t.0));
    for (t, p) in times.iter().take(slowest) {
        println!("{:9.1} ms  {}", t.as_secs_f64() * 1e3, p.display());
    }
    if failed > 0 {
        std::process::exit(1);
    }
}
