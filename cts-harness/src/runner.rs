//! Running one suite binary: environment, time limit, crash recovery.
//!
//! The child runs in its own process group, in its binary's directory (both the CTS and
//! level-zero-tests load kernels and images by relative path), with stdout and stderr in one
//! file (so the order of the lines is the order they were written; the CTS flushes each
//! `NAME...` line and gtest each `[ RUN      ] NAME` line before the test runs, so a crash or
//! a kill still shows which test was running). On the time limit the whole group is killed:
//! the running test and every test not yet reported are `Timeout`. If the binary dies (a
//! signal, or an exit without its summary) the running test is `Crash`, and the suite is
//! started again with the tests it has not reported, so one crash does not hide the rest; a
//! test that outlives the per-test limit is killed the same way and is `Timeout`.
//!
//! Both kinds of suite go through one loop. What differs is in the `match suite.kind` arms:
//! how the tests are listed (`--list`, `--gtest_list_tests`), selected and named on the
//! command line (names and `prefix*`; `--gtest_filter`), which line starts a test, and how the
//! output reads (`output.rs`, `gtest.rs`). Each attempt runs a set of tests; whatever ends it,
//! every test of that set gets a result or stays for the next attempt, and each attempt
//! settles at least one test, so the loop ends.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::gtest;
use crate::output::{parse_output, parse_results_json};
use crate::status::Status;
use crate::suites::{pattern_matches, Kind, Suite};

/// Where one kind of suite lives and what its children see.
pub struct Setup {
    /// The CTS build directory, or the directory holding the level-zero-tests binaries.
    pub dir: PathBuf,
    /// Environment added to the child (`OCL_ICD_VENDORS`; `ZE_ENABLE_ALT_DRIVERS`, …).
    pub env: Vec<(OsString, OsString)>,
    /// Variables taken out of the child's environment (another ICD list, gtest flags).
    pub env_remove: Vec<OsString>,
}

/// Everything a suite run needs besides the suite.
pub struct Config {
    /// The CTS suites' setup; `None`: no CTS given.
    pub cts: Option<Setup>,
    /// The level-zero-tests suites' setup; `None`: no level-zero-tests given.
    pub ze: Option<Setup>,
    /// `--full`: no quick/wimpy arguments, the full test selection.
    pub full: bool,
    /// Overrides the suite's own time limit.
    pub timeout: Option<Duration>,
    /// The longest one test may run before it is killed (`Timeout`) and the rest run on.
    pub test_timeout: Duration,
    pub log_dir: PathBuf,
    /// Print the child's output while it runs (after each attempt).
    pub verbose: bool,
}

impl Config {
    pub fn setup(&self, kind: Kind) -> Option<&Setup> {
        match kind {
            Kind::Cts => self.cts.as_ref(),
            Kind::Ze => self.ze.as_ref(),
        }
    }
}

/// One test's final result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestResult {
    pub status: Status,
    pub detail: Option<String>,
}

/// The results of one suite.
pub struct SuiteRun {
    /// Every test the suite has (`--list`, `--gtest_list_tests`).
    pub all_tests: BTreeSet<String>,
    /// The tests that were asked for, with their results.
    pub results: BTreeMap<String, TestResult>,
    pub log: PathBuf,
    pub elapsed: Duration,
}

fn binary_path(setup: &Setup, suite: &Suite) -> PathBuf {
    match suite.kind {
        Kind::Cts => setup.dir.join("test_conformance").join(suite.binary),
        Kind::Ze => setup.dir.join(suite.binary),
    }
}

/// A command running `program` for the suite binary `bin`: in `bin`'s directory, with the
/// setup's environment, no input.
fn command(setup: &Setup, program: &Path, bin: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(bin.parent().unwrap_or(Path::new(".")));
    for var in &setup.env_remove {
        cmd.env_remove(var);
    }
    cmd.envs(setup.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null());
    cmd
}

/// `f` again while it fails with "text file busy" (for up to a second): a binary written
/// a moment ago can still be open for writing in a child another thread has just forked
/// and not yet exec'd (the harness's own tests write fake suites while others spawn).
fn retry_busy<T>(mut f: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    for _ in 0..100 {
        match f() {
            Err(e) if e.kind() == io::ErrorKind::ExecutableFileBusy => {
                thread::sleep(Duration::from_millis(10));
            }
            r => return r,
        }
    }
    f()
}

/// The suite's test names in the order it runs them: `BINARY --list`, or
/// `BINARY --gtest_list_tests [--gtest_filter=FILTER]`.
fn list_tests(setup: &Setup, suite: &Suite, filter: Option<&str>) -> Result<Vec<String>, String> {
    let bin = binary_path(setup, suite);
    let mut cmd = command(setup, &bin, &bin);
    match suite.kind {
        Kind::Cts => cmd.arg("--list"),
        Kind::Ze => cmd
            .arg("--gtest_list_tests")
            .args(filter.map(|f| format!("--gtest_filter={f}"))),
    };
    let out = retry_busy(|| cmd.output()).map_err(|e| format!("{}: {e}", bin.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut names: Vec<String> = match suite.kind {
        Kind::Cts => stdout
            .lines()
            .filter_map(|l| l.strip_prefix('\t'))
            .map(|l| l.trim().to_owned())
            .filter(|l| !l.is_empty())
            .collect(),
        Kind::Ze => gtest::parse_list(&stdout),
    };
    let mut seen = BTreeSet::new();
    names.retain(|n| seen.insert(n.clone()));
    if names.is_empty() && filter.is_none() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "{} printed no test names when listing them ({}; last line: {})",
            bin.display(),
            out.status,
            last_line(&stderr)
        ));
    }
    Ok(names)
}

/// The tests `patterns` select from `order` (all of them when there is no pattern); a pattern
/// that selects nothing is an error.
fn select(
    setup: &Setup,
    suite: &Suite,
    patterns: &[String],
    order: &[String],
) -> Result<BTreeSet<String>, String> {
    if patterns.is_empty() {
        return Ok(order.iter().cloned().collect());
    }
    match suite.kind {
        Kind::Cts => {
            for p in patterns {
                if !order.iter().any(|t| pattern_matches(p, t)) {
                    return Err(format!("suite {}: no test matches `{p}`", suite.name));
                }
            }
            Ok(order
                .iter()
                .filter(|t| patterns.iter().any(|p| pattern_matches(p, t)))
                .cloned()
                .collect())
        }
        Kind::Ze => {
            // gtest's own matcher decides (`*`, `?`, `:`, `-`): list again with the filter.
            let filter = patterns.join(":");
            let tests = list_tests(setup, suite, Some(&filter))?;
            if tests.is_empty() {
                return Err(format!(
                    "suite {}: no test matches the filter `{filter}`",
                    suite.name
                ));
            }
            Ok(tests.into_iter().collect())
        }
    }
}

/// The arguments of the first attempt, which runs the selection as asked.
fn first_args(kind: Kind, patterns: &[String]) -> Vec<String> {
    match kind {
        Kind::Cts => patterns.to_vec(),
        Kind::Ze if patterns.is_empty() => Vec::new(),
        Kind::Ze => vec![format!("--gtest_filter={}", patterns.join(":"))],
    }
}

/// The tests the next attempt runs after a crash or a kill, and the arguments that select
/// them: the CTS gets their names; gtest a positive filter, in chunks if it is long (why
/// positive: `gtest.rs`).
fn restart_args(
    kind: Kind,
    order: &[String],
    remaining: &BTreeSet<String>,
) -> (BTreeSet<String>, Vec<String>) {
    match kind {
        Kind::Cts => (remaining.clone(), remaining.iter().cloned().collect()),
        Kind::Ze => {
            let want: Vec<String> = order
                .iter()
                .filter(|t| remaining.contains(*t))
                .cloned()
                .collect();
            let (filter, tests) = gtest::next_filter(&want, order, gtest::MAX_FILTER);
            (
                tests.into_iter().collect(),
                vec![format!("--gtest_filter={filter}")],
            )
        }
    }
}

/// How one run of the binary ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    Exited(ExitStatus),
    /// The suite's time limit ran out.
    TimedOut,
    /// One test ran longer than the per-test limit.
    TestTimedOut,
}

/// Runs `suite`, restricted to `selection` (CTS patterns, or gtest filter patterns) if given.
pub fn run_suite(
    cfg: &Config,
    suite: &Suite,
    selection: Option<&[String]>,
) -> Result<SuiteRun, String> {
    let setup = cfg.setup(suite.kind).ok_or_else(|| {
        format!(
            "no {} directory given ({})",
            suite.kind.title(),
            suite.kind.dir_option()
        )
    })?;
    let bin = binary_path(setup, suite);
    if !bin.is_file() {
        return Err(format!(
            "{} not found: build that suite first",
            bin.display()
        ));
    }
    let order = list_tests(setup, suite, None)?;
    let all_tests: BTreeSet<String> = order.iter().cloned().collect();
    let default_select = if cfg.full {
        suite.full_select
    } else {
        suite.quick_select
    };
    let patterns: Vec<String> = match selection {
        Some(sel) => sel.to_vec(),
        None => default_select.iter().map(|s| s.to_string()).collect(),
    };
    let selected = select(setup, suite, &patterns, &order)?;

    fs::create_dir_all(&cfg.log_dir).map_err(|e| format!("{}: {e}", cfg.log_dir.display()))?;
    let log_path = cfg.log_dir.join(format!("{}.log", suite.name));
    let json_path = cfg.log_dir.join(format!("{}.results.json", suite.name));
    // Only the CTS writes a results file.
    let results_file = (suite.kind == Kind::Cts).then_some(json_path.as_path());
    let capture_path = cfg.log_dir.join(format!("{}.attempt", suite.name));
    let mut log = File::create(&log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;

    let limit = cfg
        .timeout
        .unwrap_or(Duration::from_secs(suite.timeout_secs));
    let start = Instant::now();
    let deadline = start + limit;
    let mut results: BTreeMap<String, TestResult> = BTreeMap::new();
    let mut remaining = selected.clone();
    let mut first = true;
    let fixed_args: Vec<&str> = suite
        .args
        .iter()
        .chain(if cfg.full { &[][..] } else { suite.quick_args })
        .copied()
        .collect();

    while !remaining.is_empty() {
        // The tests this attempt runs, and the arguments that select them.
        let (attempt, tests) = if first {
            (remaining.clone(), first_args(suite.kind, &patterns))
        } else {
            restart_args(suite.kind, &order, &remaining)
        };
        first = false;
        let mut args: Vec<String> = fixed_args.iter().map(|s| s.to_string()).collect();
        args.extend(tests);

        let _ = fs::remove_file(&json_path);
        writeln!(log, "### cts-harness: {} {}", bin.display(), args.join(" "))
            .map_err(|e| e.to_string())?;
        let watch = Watch {
            kind: suite.kind,
            known: &all_tests,
            test_limit: cfg.test_timeout,
            deadline,
        };
        let (text, ending) = run_attempt(setup, &bin, &args, results_file, &capture_path, &watch)
            .map_err(|e| format!("running {}: {e}", bin.display()))?;
        log.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
        if cfg.verbose {
            print!("{text}");
        }

        let left = remaining.len();
        let parsed = match suite.kind {
            Kind::Cts => parse_output(&text, &all_tests),
            Kind::Ze => gtest::parse_output(&text),
        };
        let mut take = |test: &str, status: Status, detail: Option<String>| {
            if remaining.remove(test) {
                results.insert(test.to_owned(), TestResult { status, detail });
            }
        };
        for r in &parsed.results {
            take(&r.test, r.status, r.detail.clone());
        }
        // The results file is written on a normal finish and is authoritative.
        if let Some(json) = results_file.and_then(|f| fs::read_to_string(f).ok()) {
            for (test, status) in parse_results_json(&json) {
                if !attempt.contains(&test) {
                    continue;
                }
                remaining.remove(&test);
                let detail = results.get(&test).and_then(|r| r.detail.clone());
                results.insert(test, TestResult { status, detail });
            }
        }
        // A crash or a hang between two tests after some results (a suite's set-up or
        // tear-down): the rest runs again, and settles them if it fails before any result.
        let progressed = remaining.len() < left;
        match ending {
            Ending::TimedOut => {
                let secs = limit.as_secs();
                if let Some(r) = &parsed.running {
                    results.insert(
                        r.test.clone(),
                        TestResult {
                            status: Status::Timeout,
                            detail: Some(format!("running when the suite's {secs} s ran out")),
                        },
                    );
                }
                mark_all(
                    &mut results,
                    &remaining,
                    Status::Timeout,
                    &format!("not reached in the suite's {secs} s"),
                );
                break;
            }
            Ending::TestTimedOut => match &parsed.running {
                Some(r) => {
                    remaining.remove(&r.test);
                    let secs = cfg.test_timeout.as_secs();
                    results.insert(
                        r.test.clone(),
                        TestResult {
                            status: Status::Timeout,
                            detail: Some(format!("killed after the per-test limit of {secs} s")),
                        },
                    );
                    // Loop: run the rest again.
                }
                None if progressed => {} // Loop: run the rest again.
                None => settle(
                    &mut results,
                    &mut remaining,
                    &attempt,
                    Status::Timeout,
                    "killed: no test finished in the per-test limit",
                ),
            },
            Ending::Exited(status) => {
                if let Some(init) = parsed.init {
                    settle(
                        &mut results,
                        &mut remaining,
                        &attempt,
                        init,
                        "suite initialisation",
                    );
                } else if parsed.finished && status.signal().is_none() {
                    let detail = "no result reported";
                    settle(&mut results, &mut remaining, &attempt, Status::Fail, detail);
                } else {
                    let how = describe(status);
                    match &parsed.running {
                        Some(r) => {
                            remaining.remove(&r.test);
                            let detail = match &r.detail {
                                Some(d) => format!("{how}; {d}"),
                                None => how,
                            };
                            results.insert(
                                r.test.clone(),
                                TestResult {
                                    status: Status::Crash,
                                    detail: Some(detail),
                                },
                            );
                            // Loop: run the rest again.
                        }
                        None if progressed => {} // Loop: run the rest again.
                        None => {
                            let last = last_line(&text);
                            let st = if status.signal().is_some() {
                                Status::Crash
                            } else {
                                Status::Fail
                            };
                            let detail = format!("{how} outside any test: {last}");
                            settle(&mut results, &mut remaining, &attempt, st, &detail);
                        }
                    }
                }
            }
        }
        if remaining.len() == left {
            // Nothing of this attempt was settled (the running test was not one asked for):
            // running it again would do the same.
            let how = match ending {
                Ending::Exited(status) => describe(status),
                _ => "killed".into(),
            };
            let detail = format!("no result reported ({how}, in a test not asked for)");
            settle(
                &mut results,
                &mut remaining,
                &attempt,
                Status::Fail,
                &detail,
            );
        }
        if Instant::now() >= deadline && !remaining.is_empty() {
            let secs = limit.as_secs();
            let detail = format!("not reached in the suite's {secs} s");
            mark_all(&mut results, &remaining, Status::Timeout, &detail);
            break;
        }
    }
    let _ = fs::remove_file(&capture_path);

    Ok(SuiteRun {
        all_tests,
        results,
        log: log_path,
        elapsed: start.elapsed(),
    })
}
/// Gives the tests of `attempt` not yet reported the same result: they are done.
fn settle(
    results: &mut BTreeMap<String, TestResult>,
    remaining: &mut BTreeSet<String>,
    attempt: &BTreeSet<String>,
    status: Status,
    detail: &str,
) {
    let done: BTreeSet<String> = attempt.intersection(remaining).cloned().collect();
    mark_all(results, &done, status, detail);
    remaining.retain(|t| !done.contains(t));
}

/// Gives every test in `tests` the same result.
fn mark_all(
    results: &mut BTreeMap<String, TestResult>,
    tests: &BTreeSet<String>,
    status: Status,
    detail: &str,
) {
    for test in tests {
        results.insert(
            test.clone(),
            TestResult {
                status,
                detail: Some(detail.to_owned()),
            },
        );
    }
}

fn describe(status: ExitStatus) -> String {
    match (status.signal(), status.code()) {
        (Some(sig), _) => format!("killed by signal {sig}{}", signal_name(sig)),
        (None, Some(code)) => format!("exited with code {code} before its summary"),
        (None, None) => "ended without a status".into(),
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        4 => " (SIGILL)",
        6 => " (SIGABRT)",
        7 => " (SIGBUS)",
        8 => " (SIGFPE)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        _ => "",
    }
}

fn last_line(text: &str) -> &str {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("(no output)")
}

/// When to stop a run early.
struct Watch<'a> {
    kind: Kind,
    /// The suite's test names, to see the CTS's `NAME...` start lines.
    known: &'a BTreeSet<String>,
    test_limit: Duration,
    deadline: Instant,
}

impl Watch<'_> {
    /// Whether `line` says a test starts.
    fn starts_test(&self, line: &str) -> bool {
        match self.kind {
            Kind::Cts => line
                .trim_end()
                .strip_suffix("...")
                .is_some_and(|n| self.known.contains(n)),
            Kind::Ze => gtest::started(line).is_some(),
        }
    }
}

/// The program that makes the child die with the harness: `setpriv --pdeathsig KILL` (the
/// child has its own process group, so a Ctrl-C on the harness would not reach it).
const SETPRIV: &str = "/usr/bin/setpriv";

/// Runs the binary once; returns its output and how it ended. `results_file`: where the CTS
/// writes its JSON results.
fn run_attempt(
    setup: &Setup,
    bin: &Path,
    args: &[String],
    results_file: Option<&Path>,
    capture_path: &Path,
    watch: &Watch<'_>,
) -> io::Result<(String, Ending)> {
    let capture = File::create(capture_path)?;
    let capture_err = capture.try_clone()?;
    let mut cmd = if Path::new(SETPRIV).is_file() {
        let mut c = command(setup, Path::new(SETPRIV), bin);
        c.args(["--pdeathsig", "KILL", "--"]).arg(bin);
        c
    } else {
        command(setup, bin, bin)
    };
    if let Some(file) = results_file {
        cmd.env("CL_CONFORMANCE_RESULTS_FILENAME", file);
    }
    let mut child = cmd
        .args(args)
        .stdout(capture)
        .stderr(capture_err)
        .process_group(0)
        .spawn()?;

    // Follow the output to time each test from its start line.
    let mut reader = File::open(capture_path)?;
    let mut pending: Vec<u8> = Vec::new();
    let mut test_started = Instant::now();
    let mut last_look = Instant::now();
    let ending = loop {
        if let Some(status) = child.try_wait()? {
            break Ending::Exited(status);
        }
        let now = Instant::now();
        if now >= watch.deadline {
            kill_group(child.id());
            child.wait()?;
            break Ending::TimedOut;
        }
        if now.duration_since(last_look) >= Duration::from_millis(500) {
            last_look = now;
            reader.read_to_end(&mut pending)?;
            if let Some(end) = pending.iter().rposition(|&b| b == b'\n') {
                let lines = String::from_utf8_lossy(&pending[..end]).into_owned();
                if lines.lines().any(|l| watch.starts_test(l)) {
                    test_started = now;
                }
                pending.drain(..=end);
            }
            if now.duration_since(test_started) >= watch.test_limit {
                kill_group(child.id());
                child.wait()?;
                break Ending::TestTimedOut;
            }
        }
        thread::sleep(Duration::from_millis(50));
    };
    // The group may hold helpers the suite started; they go with it.
    if let Ending::Exited(_) = ending {
        kill_group(child.id());
    }
    let bytes = fs::read(capture_path)?;
    Ok((String::from_utf8_lossy(&bytes).into_owned(), ending))
}

/// Kills the process group `pgid` (the child is its leader). Through `kill(1)`: the harness
/// has no libc binding and needs no unsafe code.
fn kill_group(pgid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a shell script standing in for a suite binary of `kind`.
    fn fake_suite(dir: &Path, kind: Kind, script: &str) -> (Config, Suite) {
        let (setup_dir, bin_dir) = match kind {
            Kind::Cts => (dir.to_owned(), dir.join("test_conformance/fake")),
            Kind::Ze => (dir.join("ze"), dir.join("ze")),
        };
        fs::create_dir_all(&bin_dir).unwrap();
        let bin = bin_dir.join("test_fake");
        fs::write(&bin, format!("#!/bin/sh\n{script}")).unwrap();
        let mut perm = fs::metadata(&bin).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
        fs::set_permissions(&bin, perm).unwrap();
        let setup = Setup {
            dir: setup_dir,
            env: Vec::new(),
            env_remove: Vec::new(),
        };
        let (cts, ze) = match kind {
            Kind::Cts => (Some(setup), None),
            Kind::Ze => (None, Some(setup)),
        };
        let cfg = Config {
            cts,
            ze,
            full: false,
            timeout: Some(Duration::from_secs(3)),
            test_timeout: Duration::from_secs(3),
            log_dir: dir.join("logs"),
            verbose: false,
        };
        let suite = Suite {
            name: "fake",
            kind,
            binary: match kind {
                Kind::Cts => "fake/test_fake",
                Kind::Ze => "test_fake",
            },
            args: &[],
            quick_args: &[],
            quick_select: &[],
            full_select: &[],
            timeout_secs: 3,
        };
        (cfg, suite)
    }

    fn temp_dir(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("cts-harness-test-{}-{tag}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    // A fake suite: `--list` prints a, b, c; a run walks its arguments (or all three),
    // crashing in `b` with SIGSEGV and hanging in `h`.
    const SCRIPT: &str = r#"
if [ "$1" = "--list" ]; then printf '\ta\n\tb\n\tc\n\th\n'; exit 0; fi
tests="$*"; [ -z "$tests" ] && tests="a b c"
for t in $tests; do
  echo "$t..."
  case $t in
    b) echo "ERROR: about to crash"; kill -SEGV $$ ;;
    h) sleep 30 ;;
    *) echo "$t passed" ;;
  esac
done
echo "PASSED 2 of 2 tests."
"#;

    fn statuses(run: &SuiteRun) -> Vec<(String, Status)> {
        run.results
            .iter()
            .map(|(t, r)| (t.clone(), r.status))
            .collect()
    }

    #[test]
    fn a_crash_marks_one_test_and_the_rest_still_runs() {
        let dir = temp_dir("crash");
        let (cfg, suite) = fake_suite(&dir, Kind::Cts, SCRIPT);
        let run = run_suite(&cfg, &suite, Some(&["a".into(), "b".into(), "c".into()])).unwrap();
        assert_eq!(
            statuses(&run),
            vec![
                ("a".into(), Status::Pass),
                ("b".into(), Status::Crash),
                ("c".into(), Status::Pass)
            ]
        );
        let detail = run.results["b"].detail.clone().unwrap();
        assert!(
            detail.contains("SIGSEGV") && detail.contains("about to crash"),
            "{detail}"
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_timeout_marks_the_running_test_and_the_rest() {
        let dir = temp_dir("timeout");
        let (mut cfg, suite) = fake_suite(&dir, Kind::Cts, SCRIPT);
        cfg.timeout = Some(Duration::from_millis(1500));
        cfg.test_timeout = Duration::from_secs(60);
        let t0 = Instant::now();
        let run = run_suite(&cfg, &suite, Some(&["a".into(), "h".into(), "c".into()])).unwrap();
        assert!(t0.elapsed() < Duration::from_secs(10));
        assert_eq!(
            statuses(&run),
            vec![
                ("a".into(), Status::Pass),
                ("c".into(), Status::Timeout),
                ("h".into(), Status::Timeout)
            ]
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_hanging_test_times_out_alone() {
        let dir = temp_dir("hang");
        let (mut cfg, suite) = fake_suite(&dir, Kind::Cts, SCRIPT);
        cfg.timeout = Some(Duration::from_secs(20));
        cfg.test_timeout = Duration::from_millis(1500);
        let t0 = Instant::now();
        let run = run_suite(&cfg, &suite, Some(&["a".into(), "h".into(), "c".into()])).unwrap();
        assert!(t0.elapsed() < Duration::from_secs(10));
        assert_eq!(
            statuses(&run),
            vec![
                ("a".into(), Status::Pass),
                ("c".into(), Status::Pass),
                ("h".into(), Status::Timeout)
            ]
        );
        let _ = fs::remove_dir_all(&dir);
    }

    // A fake googletest binary: lists its tests in two levels (with chatter and parameter
    // comments), honours a `--gtest_filter` of `:`-separated patterns, passes `S.pass` only
    // when run in its own directory (where `kernel.spv` is), crashes after `S.pass` (between
    // two tests) when run without a filter, crashes in `S.crash` and hangs in `U.hang`.
    const GTEST: &str = r#"
set -f
listing=; filter='*'
for arg in "$@"; do
  case $arg in
    --gtest_list_tests) listing=1 ;;
    --gtest_filter=*) filter=${arg#--gtest_filter=} ;;
  esac
done
matches() {
  IFS=:
  for p in $filter; do
    case $1 in $p) IFS=' '; return 0 ;; esac
  done
  IFS=' '
  return 1
}
tests="S.pass S.crash S.skip P/T.fail/0 P/T.fail/1 U.hang U.after"
if [ -n "$listing" ]; then
  echo "Chatter before the list."
  prev=
  for t in $tests; do
    matches "$t" || continue
    s=${t%%.*}
    [ "$s" = "$prev" ] || echo "$s."
    prev=$s
    echo "  ${t#*.}  # GetParam() = 1"
  done
  exit 0
fi
echo "[==========] Running tests."
for t in $tests; do
  matches "$t" || continue
  echo "[ RUN      ] $t"
  case $t in
    *.pass) if [ -f kernel.spv ]; then r=OK; else r=FAILED; fi; echo "[       $r ] $t (0 ms)"
      [ "$filter" = '*' ] && kill -SEGV $$ ;;
    *.crash) echo "t.cpp:1: Failure"; echo "Expected: ok"; kill -SEGV $$ ;;
    *.skip) echo "t.cpp:2: Skipped"; echo "no images"; echo "[  SKIPPED ] $t (0 ms)" ;;
    *fail*) echo "t.cpp:3: Failure"; echo "Value of: x"; echo "[  FAILED  ] $t, where GetParam() = 1 (0 ms)" ;;
    *.hang) sleep 30 ;;
    *) echo "[       OK ] $t (0 ms)" ;;
  esac
done
echo "[==========] 7 tests from 3 test suites ran. (1 ms total)"
"#;

    #[test]
    fn a_gtest_crash_and_a_hang_restart_with_a_filter_of_the_rest() {
        let dir = temp_dir("gtest");
        let (mut cfg, suite) = fake_suite(&dir, Kind::Ze, GTEST);
        fs::write(dir.join("ze/kernel.spv"), "").unwrap();
        cfg.timeout = Some(Duration::from_secs(20));
        cfg.test_timeout = Duration::from_millis(1500);
        let t0 = Instant::now();
        let run = run_suite(&cfg, &suite, None).unwrap();
        assert!(t0.elapsed() < Duration::from_secs(10));
        assert_eq!(run.all_tests.len(), 7);
        assert_eq!(
            statuses(&run),
            vec![
                ("P/T.fail/0".into(), Status::Fail),
                ("P/T.fail/1".into(), Status::Fail),
                ("S.crash".into(), Status::Crash),
                ("S.pass".into(), Status::Pass),
                ("S.skip".into(), Status::Skip),
                ("U.after".into(), Status::Pass),
                ("U.hang".into(), Status::Timeout),
            ]
        );
        let crash = run.results["S.crash"].detail.clone().unwrap();
        assert_eq!(
            crash,
            "killed by signal 11 (SIGSEGV); t.cpp:1: Expected: ok"
        );
        assert_eq!(run.results["S.skip"].detail.as_deref(), Some("no images"));
        // Restarted after each crash with what was left (whole suites by `*`), after the hang
        // with the one test after it.
        let log = fs::read_to_string(&run.log).unwrap();
        let runs: Vec<&str> = log
            .lines()
            .filter_map(|l| l.strip_prefix("### cts-harness: "))
            .map(|l| l.split_once("/ze/").unwrap().1)
            .collect();
        assert_eq!(
            runs,
            vec![
                "test_fake ",
                "test_fake --gtest_filter=S.crash:S.skip:P/T.*:U.*",
                "test_fake --gtest_filter=S.skip:P/T.*:U.*",
                "test_fake --gtest_filter=U.after",
            ]
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_gtest_filter_selects_through_the_binary() {
        let dir = temp_dir("gtest-filter");
        let (cfg, suite) = fake_suite(&dir, Kind::Ze, GTEST);
        let run = run_suite(&cfg, &suite, Some(&["P/T.*".into(), "S.pass".into()])).unwrap();
        assert_eq!(
            statuses(&run),
            vec![
                ("P/T.fail/0".into(), Status::Fail),
                ("P/T.fail/1".into(), Status::Fail),
                ("S.pass".into(), Status::Fail), // no kernel.spv beside it
            ]
        );
        let err = run_suite(&cfg, &suite, Some(&["Nope.*".into()]))
            .err()
            .unwrap();
        assert!(err.contains("no test matches the filter `Nope.*`"), "{err}");
        let _ = fs::remove_dir_all(&dir);
    }
}
