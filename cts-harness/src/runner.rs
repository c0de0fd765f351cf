//! Running one suite binary: environment, time limit, crash recovery.
//!
//! The child runs in its own process group with stdout and stderr in one file (so the order
//! of the lines is the order they were written; the CTS flushes each `NAME...` line before the
//! test runs, so a crash or a kill still shows which test was running). On the time limit the
//! whole group is killed: the running test and every test not yet reported are `Timeout`. If
//! the binary dies (a signal, or an exit without its summary) the running test is `Crash`, and
//! the suite is started again with the names of the tests it has not reported, so one crash
//! does not hide the rest.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::output::{parse_output, parse_results_json};
use crate::status::Status;
use crate::suites::{pattern_matches, Suite};

/// Everything a suite run needs besides the suite.
pub struct Config {
    pub cts_dir: PathBuf,
    /// Environment added to the child (`OCL_ICD_VENDORS`, `CL_DEVICE_TYPE`).
    pub env: Vec<(OsString, OsString)>,
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

/// One test's final result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestResult {
    pub status: Status,
    pub detail: Option<String>,
}

/// The results of one suite.
pub struct SuiteRun {
    /// Every test the suite has (`--list`).
    pub all_tests: BTreeSet<String>,
    /// The tests that were asked for, with their results.
    pub results: BTreeMap<String, TestResult>,
    pub log: PathBuf,
    pub elapsed: Duration,
}

pub fn binary_path(cfg: &Config, suite: &Suite) -> PathBuf {
    cfg.cts_dir.join("test_conformance").join(suite.binary)
}

/// The suite's test names, from `BINARY --list`.
pub fn list_tests(cfg: &Config, suite: &Suite) -> Result<BTreeSet<String>, String> {
    let bin = binary_path(cfg, suite);
    let out = Command::new(&bin)
        .arg("--list")
        .current_dir(bin.parent().unwrap_or(Path::new(".")))
        .envs(cfg.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    let names: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix('\t'))
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect();
    if names.is_empty() {
        return Err(format!("{} --list printed no test names", bin.display()));
    }
    Ok(names)
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

/// Runs `suite`, restricted to `selection` (CTS patterns) if given.
pub fn run_suite(
    cfg: &Config,
    suite: &Suite,
    selection: Option<&[String]>,
) -> Result<SuiteRun, String> {
    let bin = binary_path(cfg, suite);
    if !bin.is_file() {
        return Err(format!(
            "{} not found: build that suite in the CTS first",
            bin.display()
        ));
    }
    let all_tests = list_tests(cfg, suite)?;
    let default_select = if cfg.full {
        suite.full_select
    } else {
        suite.quick_select
    };
    let patterns: Vec<String> = match selection {
        Some(sel) => sel.to_vec(),
        None => default_select.iter().map(|s| s.to_string()).collect(),
    };
    for p in &patterns {
        if !all_tests.iter().any(|t| pattern_matches(p, t)) {
            return Err(format!("suite {}: no test matches `{p}`", suite.name));
        }
    }
    let selected: BTreeSet<String> = all_tests
        .iter()
        .filter(|t| patterns.is_empty() || patterns.iter().any(|p| pattern_matches(p, t)))
        .cloned()
        .collect();

    fs::create_dir_all(&cfg.log_dir).map_err(|e| format!("{}: {e}", cfg.log_dir.display()))?;
    let log_path = cfg.log_dir.join(format!("{}.log", suite.name));
    let json_path = cfg.log_dir.join(format!("{}.results.json", suite.name));
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
        let tests: Vec<String> = if first {
            patterns.clone()
        } else {
            remaining.iter().cloned().collect()
        };
        first = false;
        let mut args: Vec<String> = fixed_args.iter().map(|s| s.to_string()).collect();
        args.extend(tests);

        let _ = fs::remove_file(&json_path);
        writeln!(log, "### cts-harness: {} {}", bin.display(), args.join(" "))
            .map_err(|e| e.to_string())?;
        let watch = Watch {
            known: &all_tests,
            test_limit: cfg.test_timeout,
            deadline,
        };
        let (text, ending) = run_attempt(cfg, &bin, &args, &json_path, &capture_path, &watch)
            .map_err(|e| format!("running {}: {e}", bin.display()))?;
        log.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
        if cfg.verbose {
            print!("{text}");
        }

        let attempt: BTreeSet<String> = remaining.clone();
        let parsed = parse_output(&text, &all_tests);
        let mut take = |test: &str, status: Status, detail: Option<String>| {
            if remaining.remove(test) {
                results.insert(test.to_owned(), TestResult { status, detail });
            }
        };
        for r in &parsed.results {
            take(&r.test, r.status, r.detail.clone());
        }
        // The results file is written on a normal finish and is authoritative.
        if let Ok(json) = fs::read_to_string(&json_path) {
            for (test, status) in parse_results_json(&json) {
                if !attempt.contains(&test) {
                    continue;
                }
                remaining.remove(&test);
                let detail = results.get(&test).and_then(|r| r.detail.clone());
                results.insert(test, TestResult { status, detail });
            }
        }
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
                None => {
                    let detail = "killed: no test finished in the per-test limit";
                    mark_all(&mut results, &remaining, Status::Timeout, detail);
                    break;
                }
            },
            Ending::Exited(status) => {
                if let Some(init) = parsed.init {
                    mark_all(&mut results, &remaining, init, "suite initialisation");
                    break;
                }
                if parsed.finished && status.signal().is_none() {
                    mark_all(&mut results, &remaining, Status::Fail, "no result reported");
                    break;
                }
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
                    None => {
                        let last = last_line(&text);
                        let st = if status.signal().is_some() {
                            Status::Crash
                        } else {
                            Status::Fail
                        };
                        mark_all(
                            &mut results,
                            &remaining,
                            st,
                            &format!("{how} outside any test: {last}"),
                        );
                        break;
                    }
                }
            }
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
    /// The suite's test names, to see `NAME...` start lines.
    known: &'a BTreeSet<String>,
    test_limit: Duration,
    deadline: Instant,
}

/// The program that makes the child die with the harness: `setpriv --pdeathsig KILL` (the
/// child has its own process group, so a Ctrl-C on the harness would not reach it).
const SETPRIV: &str = "/usr/bin/setpriv";

/// Runs the binary once; returns its output and how it ended.
fn run_attempt(
    cfg: &Config,
    bin: &Path,
    args: &[String],
    json_path: &Path,
    capture_path: &Path,
    watch: &Watch<'_>,
) -> io::Result<(String, Ending)> {
    let capture = File::create(capture_path)?;
    let capture_err = capture.try_clone()?;
    let mut cmd = if Path::new(SETPRIV).is_file() {
        let mut c = Command::new(SETPRIV);
        c.args(["--pdeathsig", "KILL", "--"]).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    let mut child = cmd
        .args(args)
        .current_dir(bin.parent().unwrap_or(Path::new(".")))
        .env_remove("OCL_ICD_FILENAMES")
        .env_remove("OPENCL_LAYERS")
        .envs(cfg.env.iter().map(|(k, v)| (k, v)))
        .env("CL_CONFORMANCE_RESULTS_FILENAME", json_path)
        .stdin(Stdio::null())
        .stdout(capture)
        .stderr(capture_err)
        .process_group(0)
        .spawn()?;

    // Follow the output to time each test from its `NAME...` line.
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
                if lines.lines().any(|l| {
                    l.trim_end()
                        .strip_suffix("...")
                        .is_some_and(|n| watch.known.contains(n))
                }) {
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

    /// Runs a shell script standing in for a suite binary.
    fn fake_suite(dir: &Path, script: &str) -> (Config, Suite) {
        let bin_dir = dir.join("test_conformance/fake");
        fs::create_dir_all(&bin_dir).unwrap();
        let bin = bin_dir.join("test_fake");
        fs::write(&bin, format!("#!/bin/sh\n{script}")).unwrap();
        let mut perm = fs::metadata(&bin).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
        fs::set_permissions(&bin, perm).unwrap();
        let cfg = Config {
            cts_dir: dir.to_owned(),
            env: Vec::new(),
            full: false,
            timeout: Some(Duration::from_secs(3)),
            test_timeout: Duration::from_secs(3),
            log_dir: dir.join("logs"),
            verbose: false,
        };
        let suite = Suite {
            name: "fake",
            binary: "fake/test_fake",
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
        let (cfg, suite) = fake_suite(&dir, SCRIPT);
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
        let (mut cfg, suite) = fake_suite(&dir, SCRIPT);
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
        let (mut cfg, suite) = fake_suite(&dir, SCRIPT);
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
}
