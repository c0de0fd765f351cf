//! cts-harness: runs suites of a Khronos OpenCL-CTS, and of oneAPI's level-zero-tests, that
//! the user built by hand, outside this repository, against Ferrite, and compares the
//! per-test results with `cts-harness/expectations/<suite>.csv`. It never downloads or builds
//! either.
//!
//! Design:
//! - `suites.rs` is the table of suites (binary path in the build directory, arguments,
//!   quick/wimpy selection, time limit), with the level-zero-tests ones (`ze_*`) in
//!   `suites/ze.rs`; `runner.rs` runs one (own process group, one output file, time limits,
//!   restart after a crash or a hung test); `output.rs` turns the CTS's output into per-test
//!   results and `gtest.rs` googletest's; `expectations.rs` reads, compares and blesses
//!   expectation files, the same format for both kinds.
//! - The child sees only Ferrite. CTS: `OCL_ICD_VENDORS` names a fresh directory holding a
//!   copy of our `.icd` file, and `CL_DEVICE_TYPE=CL_DEVICE_TYPE_CPU` (unless the caller set
//!   one). level-zero-tests: `ZE_ENABLE_ALT_DRIVERS` names our driver, which the loader then
//!   loads instead of the system's drivers.
//! - An unexpected pass fails the run as loudly as an unexpected failure.
//! - A suite whose build directory is not given is not run, with a note; with neither
//!   directory it says so and exits 0, so CI can always call it.

mod expectations;
mod gtest;
mod output;
mod runner;
mod status;
mod suites;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use expectations::{compare, Expectations, Row};
use runner::{Config, Setup, SuiteRun};
use status::Status;
use suites::{Kind, Suite};

const USAGE: &str = "\
usage: cts-harness [OPTIONS] [SUITE[:TESTS]]…

Runs suites of a Khronos OpenCL-CTS build, or of a oneAPI level-zero-tests build (the ze_*
suites), against Ferrite and compares every test's result with
cts-harness/expectations/<suite>.csv. Exits 1 on any unexpected failure or pass.

  --cts DIR           CTS build directory (else $FERRITE_CTS_DIR)
  --icd FILE          the .icd file to test (default <target>/vendors/ferrite.icd, where
                      <target> is $CARGO_TARGET_DIR or <workspace>/target)
  --ze DIR            the directory holding the level-zero-tests binaries and their .spv
                      files, e.g. its build's out/ (else $FERRITE_ZE_TESTS_DIR)
  --ze-loader DIR     the directory of the libze_loader.so to use (put first in
                      LD_LIBRARY_PATH; default: the system's)
  --driver FILE       the Level-Zero driver to test, as ZE_ENABLE_ALT_DRIVERS (default
                      <target>/release/libferrite.so)
  --all               every suite that has an expectation file (of the kinds given)
  --timeout SECS      time limit per suite (default: the suite's own, see --list); tests
                      not reported by then are Timeout
  --test-timeout SECS time limit per test (default 600); the test is Timeout and the
                      suite goes on with the tests after it
  --full              no quick/wimpy arguments, the suites' full test selection
  --bless             rewrite the expectation files from the results
  --expectations DIR  expectation files (default <workspace>/cts-harness/expectations)
  --log-dir DIR       the suites' output (default <target>/cts-harness)
  -q, --quiet         print only rows that are not an expected pass
  -v, --verbose       print the suites' output too
  --list              print the suites the harness knows
  -h, --help          this text

Without --cts the CTS suites are not run, without --ze the ze_* suites; with neither it says
so and exits 0.

SUITE:TESTS runs only some tests: for a CTS suite, names (`prefix*` selects by prefix)
separated by `,`; for a ze_* suite, a gtest filter (`ze_event:zeEventSignalingTests.*-*Ipc*`;
`,` works as `:`).";

#[derive(Debug, Default, PartialEq)]
struct Args {
    cts: Option<PathBuf>,
    icd: Option<PathBuf>,
    ze: Option<PathBuf>,
    ze_loader: Option<PathBuf>,
    driver: Option<PathBuf>,
    all: bool,
    full: bool,
    bless: bool,
    quiet: bool,
    verbose: bool,
    list: bool,
    help: bool,
    timeout: Option<u64>,
    test_timeout: Option<u64>,
    expectations: Option<PathBuf>,
    log_dir: Option<PathBuf>,
    /// `(suite, selected tests)` in the order given.
    suites: Vec<(String, Option<Vec<String>>)>,
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut out = Args::default();
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_owned(), Some(v.to_owned())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "--cts" => out.cts = Some(value("--cts")?.into()),
            "--icd" => out.icd = Some(value("--icd")?.into()),
            "--ze" => out.ze = Some(value("--ze")?.into()),
            "--ze-loader" => out.ze_loader = Some(value("--ze-loader")?.into()),
            "--driver" => out.driver = Some(value("--driver")?.into()),
            "--expectations" => out.expectations = Some(value("--expectations")?.into()),
            "--log-dir" => out.log_dir = Some(value("--log-dir")?.into()),
            "--timeout" => out.timeout = Some(seconds("--timeout", &value("--timeout")?)?),
            "--test-timeout" => {
                out.test_timeout = Some(seconds("--test-timeout", &value("--test-timeout")?)?)
            }
            "--all" => out.all = true,
            "--full" => out.full = true,
            "--bless" => out.bless = true,
            "-q" | "--quiet" => out.quiet = true,
            "-v" | "--verbose" => out.verbose = true,
            "--list" => out.list = true,
            "-h" | "--help" => out.help = true,
            f if f.starts_with('-') => return Err(format!("unknown option `{f}`")),
            _ => {
                let (suite, tests) = match arg.split_once(':') {
                    Some((s, t)) => {
                        let tests: Vec<String> = t
                            .split(',')
                            .filter(|t| !t.is_empty())
                            .map(str::to_owned)
                            .collect();
                        if tests.is_empty() {
                            return Err(format!("`{arg}` names no test"));
                        }
                        (s.to_owned(), Some(tests))
                    }
                    None => (arg.clone(), None),
                };
                out.suites.push((suite, tests));
            }
        }
    }
    Ok(out)
}

fn seconds(flag: &str, v: &str) -> Result<u64, String> {
    v.parse::<u64>()
        .ok()
        .filter(|&s| s > 0)
        .ok_or_else(|| format!("{flag} wants a positive number of seconds, not `{v}`"))
}

fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_owned()
}

/// The cargo target directory: `$CARGO_TARGET_DIR` (relative to the workspace) or `target/`.
fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("cts-harness: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if args.help {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let root = workspace_root();
    let exp_dir = args
        .expectations
        .clone()
        .unwrap_or_else(|| root.join("cts-harness/expectations"));
    if args.list {
        print_suite_table(&exp_dir);
        return ExitCode::SUCCESS;
    }
    let dirs = Dirs {
        cts: args
            .cts
            .clone()
            .or_else(|| std::env::var_os("FERRITE_CTS_DIR").map(PathBuf::from)),
        ze: args
            .ze
            .clone()
            .or_else(|| std::env::var_os("FERRITE_ZE_TESTS_DIR").map(PathBuf::from)),
    };
    if dirs.cts.is_none() && dirs.ze.is_none() {
        println!(
            "cts-harness: no CTS given ({}) and no level-zero-tests ({}): nothing to run",
            Kind::Cts.dir_option(),
            Kind::Ze.dir_option()
        );
        return ExitCode::SUCCESS;
    }
    match run(&args, &root, &exp_dir, &dirs) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("cts-harness: {e}");
            ExitCode::from(2)
        }
    }
}

/// The build directories given: the CTS's and level-zero-tests'.
struct Dirs {
    cts: Option<PathBuf>,
    ze: Option<PathBuf>,
}

impl Dirs {
    fn get(&self, kind: Kind) -> Option<&Path> {
        match kind {
            Kind::Cts => self.cts.as_deref(),
            Kind::Ze => self.ze.as_deref(),
        }
    }
}

fn print_suite_table(exp_dir: &Path) {
    println!(
        "{:<28} {:<56} {:>7}  {:<5} args",
        "suite", "binary", "limit", "exp."
    );
    for s in suites::all() {
        let has = exp_dir.join(format!("{}.csv", s.name)).is_file();
        let mut args: Vec<&str> = s.args.to_vec();
        args.extend(s.quick_args);
        args.extend(s.quick_select);
        let binary = match s.kind {
            Kind::Cts => format!("test_conformance/{}", s.binary),
            Kind::Ze => format!("<ze>/{}", s.binary),
        };
        println!(
            "{:<28} {:<56} {:>6}s  {:<5} {}",
            s.name,
            binary,
            s.timeout_secs,
            if has { "yes" } else { "-" },
            args.join(" ")
        );
    }
}

/// A suite and the tests asked of it (`None`: its default selection).
type Chosen = (&'static Suite, Option<Vec<String>>);

/// The suites to run: `--all` (every expectation file of a kind in `kinds`) and the
/// positional ones.
fn chosen_suites(args: &Args, exp_dir: &Path, kinds: &[Kind]) -> Result<Vec<Chosen>, String> {
    let mut out: Vec<Chosen> = Vec::new();
    let mut add = |name: &str, tests: Option<Vec<String>>| -> Result<(), String> {
        let suite =
            suites::find(name).ok_or_else(|| format!("unknown suite `{name}` (see --list)"))?;
        if out.iter().any(|(s, _)| s.name == suite.name) {
            if tests.is_some() {
                return Err(format!("suite `{name}` named twice"));
            }
            return Ok(());
        }
        out.push((suite, tests));
        Ok(())
    };
    for (name, tests) in &args.suites {
        add(name, tests.clone())?;
    }
    if args.all {
        let mut names: Vec<String> = fs::read_dir(exp_dir)
            .map_err(|e| format!("{}: {e}", exp_dir.display()))?
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                name.strip_suffix(".csv").map(str::to_owned)
            })
            .collect();
        names.sort_by_key(|n| suites::all().position(|s| s.name == n));
        for name in names {
            if suites::find(&name).is_some_and(|s| kinds.contains(&s.kind)) {
                add(&name, None)?;
            }
        }
    }
    if out.is_empty() {
        return Err("name the suites to run, or --all (see --list)".into());
    }
    Ok(out)
}

/// A fresh directory holding only a copy of `icd`, for `OCL_ICD_VENDORS`.
struct VendorDir(PathBuf);

impl VendorDir {
    fn new(icd: &Path) -> Result<Self, String> {
        let text = fs::read_to_string(icd).map_err(|e| {
            format!(
                "{}: {e} (build it with `cargo build -p ferrite-icd`, or pass --icd)",
                icd.display()
            )
        })?;
        let dir = std::env::temp_dir().join(format!("cts-harness-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let name = icd
            .file_name()
            .map_or_else(|| OsString::from("ferrite.icd"), |n| n.to_owned());
        fs::write(dir.join(name), text).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(VendorDir(dir))
    }
}

impl Drop for VendorDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[derive(Default)]
struct Tally {
    counts: BTreeMap<Status, usize>,
    unexpected_fail: usize,
    unexpected_pass: usize,
}

impl Tally {
    fn add(&mut self, rows: &[Row]) {
        for r in rows {
            *self.counts.entry(r.got).or_default() += 1;
            if !r.ok() {
                if r.got == Status::Pass {
                    self.unexpected_pass += 1;
                } else {
                    self.unexpected_fail += 1;
                }
            }
        }
    }

    fn line(&self) -> String {
        let counts: Vec<String> = Status::OBSERVED
            .iter()
            .map(|s| format!("{} {}", self.counts.get(s).copied().unwrap_or(0), s))
            .collect();
        let total: usize = self.counts.values().sum();
        let verdict = if self.unexpected_fail + self.unexpected_pass == 0 {
            "all as expected".to_owned()
        } else {
            format!(
                "{} UNEXPECTED ({} failures, {} passes)",
                self.unexpected_fail + self.unexpected_pass,
                self.unexpected_fail,
                self.unexpected_pass
            )
        };
        format!("{total} tests: {}; {verdict}", counts.join(", "))
    }
}

/// The setup of the CTS suites: the build directory, and the environment that shows them only
/// Ferrite (the vendor directory must live as long as the run).
fn cts_setup(args: &Args, root: &Path, dir: &Path) -> Result<(Setup, VendorDir), String> {
    let dir = fs::canonicalize(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if !dir.join("test_conformance").is_dir() {
        return Err(format!(
            "{} is not a CTS build directory (no test_conformance/ in it)",
            dir.display()
        ));
    }
    let icd = args
        .icd
        .clone()
        .unwrap_or_else(|| target_dir(root).join("vendors/ferrite.icd"));
    let vendors = VendorDir::new(&icd)?;
    let mut env = vec![(OsString::from("OCL_ICD_VENDORS"), vendors.0.clone().into())];
    if std::env::var_os("CL_DEVICE_TYPE").is_none() {
        env.push(("CL_DEVICE_TYPE".into(), "CL_DEVICE_TYPE_CPU".into()));
    }
    println!(
        "cts-harness: CTS {} with {} ({} mode)",
        dir.display(),
        icd.display(),
        if args.full { "full" } else { "quick" }
    );
    let env_remove = vec!["OCL_ICD_FILENAMES".into(), "OPENCL_LAYERS".into()];
    Ok((
        Setup {
            dir,
            env,
            env_remove,
        },
        vendors,
    ))
}

/// The setup of the level-zero-tests suites: the directory of the binaries (and of the files
/// they load), and the environment that makes the loader load only our driver.
fn ze_setup(args: &Args, root: &Path, dir: &Path) -> Result<Setup, String> {
    let dir = fs::canonicalize(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let driver = args
        .driver
        .clone()
        .unwrap_or_else(|| target_dir(root).join("release/libferrite.so"));
    // Absolute: the suites run in their own directory.
    let driver = fs::canonicalize(&driver).map_err(|e| {
        format!(
            "{}: {e} (build it with `cargo build --release -p ferrite-icd`, or pass --driver)",
            driver.display()
        )
    })?;
    let mut env = vec![(
        OsString::from("ZE_ENABLE_ALT_DRIVERS"),
        driver.clone().into_os_string(),
    )];
    let loader = match &args.ze_loader {
        Some(loader) => {
            let loader =
                fs::canonicalize(loader).map_err(|e| format!("{}: {e}", loader.display()))?;
            if !["libze_loader.so.1", "libze_loader.so"]
                .iter()
                .any(|lib| loader.join(lib).is_file())
            {
                return Err(format!("{}: no libze_loader.so in it", loader.display()));
            }
            let mut path = loader.clone().into_os_string();
            if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|p| !p.is_empty()) {
                path.push(":");
                path.push(old);
            }
            env.push(("LD_LIBRARY_PATH".into(), path));
            loader.display().to_string()
        }
        None => "the system's".into(),
    };
    println!(
        "cts-harness: level-zero-tests {} with {} (loader: {loader})",
        dir.display(),
        driver.display()
    );
    // googletest takes its flags from GTEST_* variables too: a GTEST_FILTER, GTEST_BRIEF or
    // GTEST_SHUFFLE of the caller's would change what runs and what the output says.
    let env_remove = std::env::vars_os()
        .map(|(name, _)| name)
        .filter(|name| name.to_str().is_some_and(|n| n.starts_with("GTEST_")))
        .collect();
    Ok(Setup {
        dir,
        env,
        env_remove,
    })
}

fn run(args: &Args, root: &Path, exp_dir: &Path, dirs: &Dirs) -> Result<ExitCode, String> {
    let given: Vec<Kind> = [Kind::Cts, Kind::Ze]
        .into_iter()
        .filter(|&kind| dirs.get(kind).is_some())
        .collect();
    let (chosen, missing): (Vec<Chosen>, Vec<Chosen>) = chosen_suites(args, exp_dir, &given)?
        .into_iter()
        .partition(|(suite, _)| given.contains(&suite.kind));
    for kind in [Kind::Cts, Kind::Ze] {
        let names: Vec<&str> = missing
            .iter()
            .filter(|(suite, _)| suite.kind == kind)
            .map(|(suite, _)| suite.name)
            .collect();
        if !names.is_empty() {
            println!(
                "cts-harness: no {} given ({}): not running {}",
                kind.title(),
                kind.dir_option(),
                names.join(", ")
            );
        }
    }
    if chosen.is_empty() {
        println!("cts-harness: nothing to run");
        return Ok(ExitCode::SUCCESS);
    }
    let uses = |kind: Kind| chosen.iter().any(|(suite, _)| suite.kind == kind);
    // `_vendors` holds the CTS's vendor directory until the run ends.
    let (cts, _vendors) = match dirs.cts.as_deref().filter(|_| uses(Kind::Cts)) {
        Some(dir) => {
            let (setup, vendors) = cts_setup(args, root, dir)?;
            (Some(setup), Some(vendors))
        }
        None => (None, None),
    };
    let ze = match dirs.ze.as_deref().filter(|_| uses(Kind::Ze)) {
        Some(dir) => Some(ze_setup(args, root, dir)?),
        None => None,
    };
    let cfg = Config {
        cts,
        ze,
        full: args.full,
        timeout: args.timeout.map(Duration::from_secs),
        test_timeout: Duration::from_secs(args.test_timeout.unwrap_or(600)),
        log_dir: args
            .log_dir
            .clone()
            .unwrap_or_else(|| target_dir(root).join("cts-harness")),
        verbose: args.verbose,
    };

    let mut total = Tally::default();
    let mut summaries: Vec<String> = Vec::new();
    let mut errors = 0;
    for (suite, selection) in &chosen {
        let exp_path = exp_dir.join(format!("{}.csv", suite.name));
        let mut exp = match fs::read_to_string(&exp_path) {
            Ok(text) => {
                Expectations::parse(&text).map_err(|e| format!("{}: {e}", exp_path.display()))?
            }
            Err(_) => Expectations::default(),
        };
        println!("\n== {} ({})", suite.name, suite.binary);
        let run = match runner::run_suite(&cfg, suite, selection.as_deref()) {
            Ok(run) => run,
            Err(e) => {
                println!("   ERROR: {e}");
                summaries.push(format!("{:<28} ERROR: {e}", suite.name));
                errors += 1;
                continue;
            }
        };
        let observed: BTreeMap<String, Status> = run
            .results
            .iter()
            .map(|(t, r)| (t.clone(), r.status))
            .collect();
        let rows = compare(&exp, &observed);
        print_rows(suite.name, &rows, &run, args.quiet);
        for stale in exp.stale(&run.all_tests) {
            println!(
                "   warning: {} lists `{stale}`, which the suite does not have",
                exp_path.display()
            );
        }
        let mut tally = Tally::default();
        tally.add(&rows);
        summaries.push(format!(
            "{:<28} {} [{:.0} s, log {}]",
            suite.name,
            tally.line(),
            run.elapsed.as_secs_f64(),
            run.log.display()
        ));
        total.add(&rows);
        if args.bless {
            exp.bless(&observed);
            if exp.header.is_empty() {
                let what = match suite.kind {
                    Kind::Cts => format!("suite `{}`", suite.name),
                    Kind::Ze => format!("suite `{}` (`{}`)", suite.name, suite.binary),
                };
                exp.header = vec![
                    format!("# {} {what} on Ferrite.", suite.kind.title()),
                    "# Tests not listed are expected to pass.".into(),
                ];
            }
            fs::create_dir_all(exp_dir).map_err(|e| format!("{}: {e}", exp_dir.display()))?;
            fs::write(&exp_path, exp.render())
                .map_err(|e| format!("{}: {e}", exp_path.display()))?;
            println!("   blessed {}", exp_path.display());
        }
    }

    println!("\n== summary");
    for s in &summaries {
        println!("{s}");
    }
    println!("{:<28} {}", "total", total.line());
    let bad = total.unexpected_fail + total.unexpected_pass;
    if errors > 0 {
        Ok(ExitCode::from(2))
    } else if bad > 0 && !args.bless {
        Ok(ExitCode::FAILURE)
    } else {
        Ok(ExitCode::SUCCESS)
    }
}

fn print_rows(suite: &str, rows: &[Row], run: &SuiteRun, quiet: bool) {
    let width = rows.iter().map(|r| r.test.len()).max().unwrap_or(4).max(4);
    let sw = suite.len().max(5);
    println!(
        "   {:<sw$} {:<width$}  {:<8} {:<8} ",
        "suite", "test", "expected", "got"
    );
    for r in rows {
        if quiet && r.ok() && r.got == Status::Pass {
            continue;
        }
        let mark = if r.ok() { "✓" } else { "✗" };
        let detail = match run.results.get(&r.test).and_then(|t| t.detail.as_deref()) {
            Some(d) if r.got != Status::Pass => shorten(d, 110),
            _ => String::new(),
        };
        println!(
            "   {:<sw$} {:<width$}  {:<8} {:<8} {mark}  {detail}",
            suite, r.test, r.expected, r.got
        );
    }
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let cut: String = s.chars().take(max).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(list: &[&str]) -> Result<Args, String> {
        parse_args(list.iter().map(|s| s.to_string()))
    }

    #[test]
    fn parses_options_and_suites() {
        let a = parse(&[
            "--cts",
            "/cts",
            "--timeout=60",
            "--bless",
            "api",
            "basic:arraycopy,astype*",
            "-q",
        ])
        .unwrap();
        assert_eq!(a.cts.as_deref(), Some(Path::new("/cts")));
        assert_eq!(a.timeout, Some(60));
        assert!(a.bless && a.quiet && !a.all);
        assert_eq!(
            a.suites,
            vec![
                ("api".to_owned(), None),
                (
                    "basic".to_owned(),
                    Some(vec!["arraycopy".to_owned(), "astype*".to_owned()])
                )
            ]
        );
    }

    #[test]
    fn parses_the_ze_options() {
        let a = parse(&[
            "--ze=/lzt/out",
            "--ze-loader",
            "/loader/lib",
            "--driver",
            "/f/libferrite.so",
            "ze_fence",
            "ze_event:zeEventPoolTests.*-*Ipc*,Other.*",
        ])
        .unwrap();
        assert_eq!(a.ze.as_deref(), Some(Path::new("/lzt/out")));
        assert_eq!(a.ze_loader.as_deref(), Some(Path::new("/loader/lib")));
        assert_eq!(a.driver.as_deref(), Some(Path::new("/f/libferrite.so")));
        assert_eq!(a.cts, None);
        assert_eq!(
            a.suites,
            vec![
                ("ze_fence".to_owned(), None),
                (
                    "ze_event".to_owned(),
                    Some(vec![
                        "zeEventPoolTests.*-*Ipc*".to_owned(),
                        "Other.*".to_owned()
                    ])
                )
            ]
        );
    }

    #[test]
    fn all_takes_the_expectation_files_of_the_kinds_given() {
        let dir = std::env::temp_dir().join(format!("cts-harness-all-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        for name in ["api", "ze_fence", "ze_driver"] {
            fs::write(dir.join(format!("{name}.csv")), "").unwrap();
        }
        let args = parse(&["--all"]).unwrap();
        let names = |kinds: &[Kind]| -> Vec<&str> {
            chosen_suites(&args, &dir, kinds)
                .unwrap()
                .iter()
                .map(|(s, _)| s.name)
                .collect()
        };
        assert_eq!(names(&[Kind::Ze]), vec!["ze_driver", "ze_fence"]);
        assert_eq!(
            names(&[Kind::Cts, Kind::Ze]),
            vec!["api", "ze_driver", "ze_fence"]
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn rejects_bad_arguments() {
        assert!(parse(&["--timeout", "soon"]).is_err());
        assert!(parse(&["--timeout", "0"]).is_err());
        assert_eq!(
            parse(&["--test-timeout", "9"]).unwrap().test_timeout,
            Some(9)
        );
        assert!(parse(&["--cts"]).is_err());
        assert!(parse(&["--frobnicate"]).is_err());
        assert!(parse(&["basic:"]).is_err());
    }

    #[test]
    fn tally_counts_unexpected_both_ways() {
        let rows = vec![
            Row {
                test: "a".into(),
                expected: Status::Pass,
                got: Status::Pass,
            },
            Row {
                test: "b".into(),
                expected: Status::Fail,
                got: Status::Pass,
            },
            Row {
                test: "c".into(),
                expected: Status::Pass,
                got: Status::Crash,
            },
        ];
        let mut t = Tally::default();
        t.add(&rows);
        assert_eq!((t.unexpected_fail, t.unexpected_pass), (1, 1));
        assert!(t.line().contains("2 UNEXPECTED"));
    }
}
