//! Reading googletest programs (the level-zero-tests suites): their test list, the output of
//! a run, and the `--gtest_filter` that restarts one.
//!
//! `--gtest_list_tests` prints two levels (gtest 1.12, `ListTestsMatchingFilter`): a test
//! suite's name with a dot, then its tests indented by two spaces; a typed suite carries
//! `  # TypeParam = …` and a value-parameterised test `  # GetParam() = …`, which are dropped.
//! A test's full name is `Suite.Test` (`Prefix/Suite.Test/3` when parameterised). Tests named
//! `DISABLED_*` are listed but never run, so they are left out.
//!
//! A run prints (`PrettyUnitTestResultPrinter`, stdout, flushed line by line; run without
//! `--gtest_brief`, so every test has its lines):
//!
//! | line                                                      | meaning                  |
//! |-----------------------------------------------------------|--------------------------|
//! | `[ RUN      ] S.T`                                        | `S.T` starts             |
//! | `[       OK ] S.T (3 ms)`                                 | Pass                     |
//! | `[  FAILED  ] S.T, where GetParam() = 4 (3 ms)`           | Fail                     |
//! | `[  SKIPPED ] S.T (0 ms)`                                 | Skip                     |
//! | `file.cpp:12: Failure` and the message lines below it     | why it fails (the first) |
//! | `file.cpp:12: Skipped` and the message below it           | why it skips             |
//! | `[==========] 8 tests from 4 test suites ran. (24 ms total)` | the run finished      |
//!
//! After the last line gtest lists the failed and skipped tests again; no test is running
//! then, so those lines are not results. A test that started when the output stops is the one
//! a crash or a kill interrupted; an output without the final `ran.` line means the binary
//! did not finish. The level-zero-tests log (`[…] [info] …`) goes to stderr, which the runner
//! interleaves with stdout in one file; only the lines above are read.
//!
//! Restarting after a crash or a per-test timeout uses a *positive* filter naming the tests
//! not yet reported ([`next_filter`]), not a negative one naming those that were: the list of
//! what is left shrinks as the run goes on while a negative one grows toward the whole suite;
//! it selects exactly the tests still wanted even when the first run had a user filter (a
//! negative list would have to be merged into it, `POS-NEG`); and gtest runs the tests in list
//! order, so what is left after a crash is the tail of the list, mostly whole test suites,
//! which one `Suite.*` pattern each covers. Linux takes at most 128 KiB per argument, and
//! `test_image` has 12,000 tests with names near 100 bytes: a longer filter is cut into
//! chunks of at most [`MAX_FILTER`] bytes, run one after the other.

use std::collections::BTreeMap;

use crate::output::{Parsed, TestOutcome};
use crate::status::Status;

/// The longest `--gtest_filter` value the harness passes (Linux: 128 KiB per argument).
pub const MAX_FILTER: usize = 64 * 1024;

const RUN: &str = "[ RUN      ] ";
const OK: &str = "[       OK ] ";
const FAILED: &str = "[  FAILED  ] ";
const SKIPPED: &str = "[  SKIPPED ] ";
const BANNER: &str = "[==========] ";

/// The full test names `--gtest_list_tests` printed, in run order, without disabled tests.
pub fn parse_list(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut suite: Option<&str> = None;
    for raw in text.lines() {
        // The parameter comment may hold anything (spaces, dots); the names hold neither.
        let code = raw.split("  # ").next().unwrap_or("").trim_end();
        if let Some(test) = code.strip_prefix("  ") {
            let Some(suite) = suite else { continue };
            let is_name = !test.is_empty() && !test.contains(char::is_whitespace);
            if is_name && !is_disabled(suite) && !is_disabled(test) {
                out.push(format!("{suite}.{test}"));
            }
        } else {
            // Anything else printed to stdout before the list ends the current suite.
            suite = code
                .strip_suffix('.')
                .filter(|s| !s.is_empty() && !s.contains(char::is_whitespace));
        }
    }
    out
}

/// Whether a suite or test name is one gtest does not run (`DISABLED_*`, `*/DISABLED_*`).
fn is_disabled(name: &str) -> bool {
    name.starts_with("DISABLED_") || name.contains("/DISABLED_")
}

/// The test a `[ RUN      ]` line starts.
pub fn started(line: &str) -> Option<&str> {
    line.trim_end()
        .strip_prefix(RUN)
        .map(str::trim)
        .filter(|n| !n.is_empty())
}

/// Reads `text` (stdout and stderr of one run).
pub fn parse_output(text: &str) -> Parsed {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let mut p = Parsed::default();
    let mut running: Option<String> = None;
    // The first failure of the running test, or else the first line that looks like an error.
    let mut failure: Option<String> = None;
    let mut error: Option<String> = None;
    let mut skip: Option<String> = None;

    for (i, &line) in lines.iter().enumerate() {
        if let Some(name) = started(line) {
            if let Some(prev) = running.take() {
                p.results.push(TestOutcome {
                    test: prev,
                    status: Status::Fail,
                    detail: failure
                        .take()
                        .or(error.take())
                        .or(Some("no result line".into())),
                });
            }
            running = Some(name.to_owned());
            (failure, error, skip) = (None, None, None);
            continue;
        }
        if let Some(cur) = &running {
            if let Some(status) = result_line(line, cur) {
                let detail = match status {
                    Status::Pass => None,
                    Status::Skip => skip.take(),
                    _ => failure.take().or(error.take()),
                };
                p.results.push(TestOutcome {
                    test: cur.clone(),
                    status,
                    detail,
                });
                running = None;
                (failure, error, skip) = (None, None, None);
                continue;
            }
            if let Some((location, what)) = part_result(line) {
                let message = message(&lines[i + 1..]);
                if what == "Failure" && failure.is_none() {
                    failure = Some(if message.is_empty() {
                        format!("{location}: Failure")
                    } else {
                        format!("{location}: {message}")
                    });
                } else if what == "Skipped" && skip.is_none() {
                    skip = Some(if message.is_empty() {
                        format!("{location}: skipped")
                    } else {
                        message
                    });
                }
            } else if error.is_none() && looks_like_error(line) {
                error = Some(line.trim().to_owned());
            }
        }
        if line.starts_with(BANNER) && line.contains(" ran.") {
            p.finished = true;
        }
    }
    p.running = running.map(|test| TestOutcome {
        test,
        status: Status::Crash,
        detail: failure.or(error),
    });
    p
}

/// The status a result line gives the running test `cur`, if it is one: the name is followed
/// by nothing, by ` (N ms)`, or by `, where GetParam() = …` (a failed parameterised test).
fn result_line(line: &str, cur: &str) -> Option<Status> {
    let (status, rest) = [
        (Status::Pass, OK),
        (Status::Fail, FAILED),
        (Status::Skip, SKIPPED),
    ]
    .into_iter()
    .find_map(|(st, marker)| Some((st, line.strip_prefix(marker)?)))?;
    let after = rest.strip_prefix(cur)?;
    (after.is_empty() || after.starts_with(" (") || after.starts_with(", where ")).then_some(status)
}

/// `path/file.cpp:12: Failure` (or `Skipped`): the location, shortened to the file's name,
/// and the word. gtest also writes `unknown file: Failure` for an exception.
fn part_result(line: &str) -> Option<(&str, &str)> {
    let (location, what) = line.rsplit_once(": ")?;
    if what != "Failure" && what != "Skipped" {
        return None;
    }
    let file = location.rsplit('/').next().unwrap_or(location);
    Some((file, what))
}

/// The message under a `Failure`/`Skipped` line, on one line: up to six lines, ending at a
/// blank line, a gtest or log line (`[…`) or the next failure.
fn message(after: &[&str]) -> String {
    after
        .iter()
        .take_while(|l| !l.trim().is_empty() && !l.starts_with('[') && part_result(l).is_none())
        .take(6)
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A line worth showing when a test has no gtest failure (a crash, a log error, an abort).
fn looks_like_error(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    ["error", "fail", "what():", "panicked", "abort", "assert"]
        .iter()
        .any(|w| l.contains(w))
}

/// The suite part of a full test name (`Prefix/Suite` of `Prefix/Suite.Test/3`); suite names
/// hold no dot.
fn suite_of(test: &str) -> &str {
    test.split_once('.').map_or(test, |(suite, _)| suite)
}

/// A `--gtest_filter` value of at most `max` bytes (unless one name is longer) that selects a
/// first part of `want`, and the tests it selects. `want` are full names in run order; `all`
/// is the suite's whole list. A test suite whose every test is wanted is written `Suite.*`.
pub fn next_filter(want: &[String], all: &[String], max: usize) -> (String, Vec<String>) {
    let mut sizes: BTreeMap<&str, usize> = BTreeMap::new();
    for test in all {
        *sizes.entry(suite_of(test)).or_default() += 1;
    }
    let mut filter = String::new();
    let mut covered: Vec<String> = Vec::new();
    let mut rest = want;
    while let Some(first) = rest.first() {
        let suite = suite_of(first);
        let len = rest.iter().take_while(|t| suite_of(t) == suite).count();
        let (group, tail) = rest.split_at(len);
        rest = tail;
        let whole = sizes.get(suite) == Some(&len);
        let patterns: Vec<(String, &[String])> = if whole {
            vec![(format!("{suite}.*"), group)]
        } else {
            group
                .iter()
                .map(|t| (t.clone(), std::slice::from_ref(t)))
                .collect()
        };
        for (pattern, tests) in patterns {
            if !filter.is_empty() {
                if filter.len() + 1 + pattern.len() > max {
                    return (filter, covered);
                }
                filter.push(':');
            }
            filter.push_str(&pattern);
            covered.extend(tests.iter().cloned());
        }
    }
    (filter, covered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn statuses(p: &Parsed) -> Vec<(&str, Status)> {
        p.results
            .iter()
            .map(|r| (r.test.as_str(), r.status))
            .collect()
    }

    #[test]
    fn reads_the_two_level_list() {
        let text = "\
zeFenceTests.
  GivenFenceWhenQueryingThenSuccess
  DISABLED_GivenNothingThenNothing
FenceSyncParameterizedTest/zeFenceSynchronizeTests.
  GivenSignaledFenceWhenSynchronizingThenSuccessIsReturned/0  # GetParam() = 4294967294
  GivenSignaledFenceWhenSynchronizingThenSuccessIsReturned/1  # GetParam() = (0, ZE_X, \"a. b\")
TypedTests/0.  # TypeParam = int
  Works
DISABLED_Broken.
  Anything
Prefix/DISABLED_Later.
  Anything
";
        assert_eq!(
            parse_list(text),
            names(&[
                "zeFenceTests.GivenFenceWhenQueryingThenSuccess",
                "FenceSyncParameterizedTest/zeFenceSynchronizeTests.GivenSignaledFenceWhenSynchronizingThenSuccessIsReturned/0",
                "FenceSyncParameterizedTest/zeFenceSynchronizeTests.GivenSignaledFenceWhenSynchronizingThenSuccessIsReturned/1",
                "TypedTests/0.Works",
            ])
        );
    }

    #[test]
    fn chatter_before_the_list_is_not_a_suite() {
        let text = "Driver found.\nSome banner line\n  indented chatter here\nS.\n  t\n";
        assert_eq!(parse_list(text), names(&["S.t"]));
    }

    #[test]
    fn reads_a_complete_run() {
        let text = "\
[2026-11-28 12:43:48] [info] Platform overview
[==========] Running 4 tests from 2 test suites.
[----------] Global test environment set-up.
[----------] 2 tests from zeInitDrivers
[ RUN      ] zeInitDrivers.Works
[2026-11-28 12:43:48] [info] Default Driver retrieved at index 0
[       OK ] zeInitDrivers.Works (0 ms)
[ RUN      ] zeInitDrivers.Counts
/work/l0/lzt-src/conformance_tests/core/test_driver/src/test_driver.cpp:102: Failure
Expected: (pCount) > (0), actual: 0 vs 0
/work/l0/lzt-src/conformance_tests/core/test_driver/src/test_driver.cpp:110: Failure
Value of: later
[  FAILED  ] zeInitDrivers.Counts (0 ms)
[----------] 2 tests from zeInitDrivers (0 ms total)

[ RUN      ] P/zeEventTests.Signal/1
/src/test_event.cpp:55: Failure
Expected equality of these values:
  ZE_RESULT_SUCCESS
    Which is: 0
  zeEventHostSignal(ev)
    Which is: 2013265924
[  FAILED  ] P/zeEventTests.Signal/1, where GetParam() = (1, true) (3 ms)
[ RUN      ] ContextExCreateTests.GivenTwoDevices
/src/test_context.cpp:78: Skipped
Less than two devices, skipping test
[  SKIPPED ] ContextExCreateTests.GivenTwoDevices (0 ms)
[----------] Global test environment tear-down
[==========] 4 tests from 3 test suites ran. (1 ms total)
[  PASSED  ] 1 test.
[  SKIPPED ] 1 test, listed below:
[  SKIPPED ] ContextExCreateTests.GivenTwoDevices
[  FAILED  ] 2 tests, listed below:
[  FAILED  ] zeInitDrivers.Counts
[  FAILED  ] P/zeEventTests.Signal/1, where GetParam() = (1, true)
";
        let p = parse_output(text);
        assert_eq!(
            statuses(&p),
            vec![
                ("zeInitDrivers.Works", Status::Pass),
                ("zeInitDrivers.Counts", Status::Fail),
                ("P/zeEventTests.Signal/1", Status::Fail),
                ("ContextExCreateTests.GivenTwoDevices", Status::Skip),
            ]
        );
        let details: Vec<Option<&str>> = p.results.iter().map(|r| r.detail.as_deref()).collect();
        assert_eq!(
            details,
            vec![
                None,
                Some("test_driver.cpp:102: Expected: (pCount) > (0), actual: 0 vs 0"),
                Some(
                    "test_event.cpp:55: Expected equality of these values: ZE_RESULT_SUCCESS \
                     Which is: 0 zeEventHostSignal(ev) Which is: 2013265924"
                ),
                Some("Less than two devices, skipping test"),
            ]
        );
        assert!(p.finished);
        assert_eq!(p.running, None);
    }

    #[test]
    fn a_crash_leaves_the_test_running_and_the_run_unfinished() {
        let text = "\
[==========] Running 3 tests from 1 test suite.
[ RUN      ] S.a
[       OK ] S.a (0 ms)
[ RUN      ] S.b
[2026-11-28 12:43:48] [error] zeModuleCreate failed
thread '<unnamed>' panicked at runtime/src/queue.rs:10:5
";
        let p = parse_output(text);
        assert_eq!(statuses(&p), vec![("S.a", Status::Pass)]);
        let running = p.running.unwrap();
        assert_eq!(running.test, "S.b");
        assert_eq!(
            running.detail.as_deref(),
            Some("[2026-11-28 12:43:48] [error] zeModuleCreate failed")
        );
        assert!(!p.finished);
        // The opening banner is not the final line.
        assert!(!parse_output("[==========] Running 3 tests from 1 test suite.\n").finished);
    }

    #[test]
    fn a_result_names_the_running_test_whole() {
        // `S.a2` does not end `S.a`; results with no test running are the final lists.
        let text = "[  FAILED  ] S.a\n[ RUN      ] S.a\n[       OK ] S.a2 (1 ms)\n";
        let p = parse_output(text);
        assert!(p.results.is_empty());
        assert_eq!(p.running.map(|r| r.test).as_deref(), Some("S.a"));
        assert_eq!(started("[ RUN      ] P/S.t/3"), Some("P/S.t/3"));
        assert_eq!(started("[       OK ] S.t (0 ms)"), None);
        assert_eq!(result_line("[       OK ] S.t", "S.t"), Some(Status::Pass));
    }

    #[test]
    fn a_restart_filter_names_what_is_left_and_whole_suites_by_star() {
        let all = names(&["A.x", "A.y", "P/B.t/0", "P/B.t/1", "C.u", "C.v"]);
        // After a crash in `A.x`: the rest of A by name, B and C whole.
        let want = names(&["A.y", "P/B.t/0", "P/B.t/1", "C.u", "C.v"]);
        let (filter, tests) = next_filter(&want, &all, MAX_FILTER);
        assert_eq!(filter, "A.y:P/B.*:C.*");
        assert_eq!(tests, want);
        // A short limit cuts it; the chunks together are the whole.
        let (first, tests) = next_filter(&want, &all, 10);
        assert_eq!((first.as_str(), tests), ("A.y:P/B.*", want[..3].to_vec()));
        let (second, tests) = next_filter(&want[3..], &all, 10);
        assert_eq!((second.as_str(), tests), ("C.*", want[3..].to_vec()));
        // One pattern longer than the limit still goes alone.
        let (one, tests) = next_filter(&want[..1], &all, 1);
        assert_eq!((one.as_str(), tests.len()), ("A.y", 1));
    }
}
