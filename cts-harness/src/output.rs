//! Reading a CTS suite's output into per-test results.
//!
//! The lines come from `test_common/harness/testHarness.cpp` (`callSingleTestFunction`,
//! `print_results`, `suite_did_not_pass_init`), all printed to stdout:
//!
//! | line                                                   | meaning                        |
//! |--------------------------------------------------------|--------------------------------|
//! | `NAME...` (flushed before the test runs)               | `NAME` starts                  |
//! | `NAME passed` / `NAME FAILED`                          | Pass / Fail                    |
//! | `NAME test not supported`                              | Skip (`TEST_SKIPPED_ITSELF`)   |
//! | `NAME test currently not implemented`                  | Skip                           |
//! | `NAME skipped (requires at least OpenCL version …`     | Skip                           |
//! | `Subtest NAME tests is not supported in offline …`     | Skip                           |
//! | `clFinish failed: …` after a result                    | that test becomes Fail         |
//! | `PASSED n of n tests.` / `FAILED k of n tests.` / `PASSED test.` | the run finished     |
//! | `Test failed while initialization` / `Test skipped while initialization` | every test Fail / Skip |
//!
//! A test that starts and is followed by another start or by the summary without a result line
//! failed before it ran (context or queue creation) and counts as Fail. A test that started
//! when the output stops is the one a crash or a timeout interrupted. Start lines are matched
//! only against the suite's own test names (`--list`), so a test's chatter ending in `...`
//! cannot start a test.
//!
//! On a normal finish the CTS also writes `CL_CONFORMANCE_RESULTS_FILENAME` (JSON); its
//! pass/fail/skip is authoritative and [`parse_results_json`] reads it.
//!
//! [`Parsed`] is also what `gtest.rs` reads a level-zero-tests (googletest) run into, so the
//! runner handles both kinds alike.

use std::collections::BTreeSet;

use crate::status::Status;

/// One test's result as read from the output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestOutcome {
    pub test: String,
    pub status: Status,
    /// The first line of the test's output that looks like an error, for the report.
    pub detail: Option<String>,
}

/// What one run of a suite binary printed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Results in the order the suite reported them.
    pub results: Vec<TestOutcome>,
    /// A test that started and has no result: the one running when the output stopped.
    pub running: Option<TestOutcome>,
    /// The final summary was printed: the suite ran to its end.
    pub finished: bool,
    /// The suite failed or skipped its initialisation (every test gets this status).
    pub init: Option<Status>,
}

/// Reads `text` (stdout and stderr of one run) given the suite's test names.
pub fn parse_output(text: &str, known: &BTreeSet<String>) -> Parsed {
    let mut p = Parsed::default();
    let mut running: Option<String> = None;
    let mut detail: Option<String> = None;
    // The last line the running test printed (a skip says why on it).
    let mut last: Option<String> = None;

    for raw in text.lines() {
        let line = raw.trim_end();

        if let Some(name) = line.strip_suffix("...") {
            if known.contains(name) {
                if let Some(prev) = running.take() {
                    p.results.push(no_result(prev, detail.take()));
                }
                running = Some(name.to_owned());
                detail = None;
                last = None;
                continue;
            }
        }

        if let Some(cur) = &running {
            if let Some(status) = result_line(line, cur) {
                p.results.push(TestOutcome {
                    test: cur.clone(),
                    status,
                    detail: match status {
                        Status::Pass => None,
                        Status::Skip => last.take().or(Some(line.to_owned())),
                        _ => detail.take().or(last.take()),
                    },
                });
                running = None;
                detail = None;
                last = None;
                continue;
            }
            if detail.is_none() && looks_like_error(line) {
                detail = Some(line.trim().to_owned());
            }
            if !line.trim().is_empty() {
                last = Some(line.trim().to_owned());
            }
        }

        if line.starts_with("clFinish failed:") && running.is_none() {
            if let Some(last) = p.results.last_mut() {
                last.status = Status::Fail;
                last.detail = Some(line.to_owned());
            }
        } else if is_summary(line) {
            if let Some(cur) = running.take() {
                p.results.push(no_result(cur, detail.take()));
            }
            p.finished = true;
        } else if line == "Test failed while initialization" {
            p.init = Some(Status::Fail);
        } else if line == "Test skipped while initialization" {
            p.init = Some(Status::Skip);
        }
    }

    p.running = running.map(|test| TestOutcome {
        test,
        status: Status::Crash,
        detail,
    });
    p
}

/// A test that started and ended without a result line: the harness returned `TEST_FAIL`
/// before running it (context or queue creation failed).
fn no_result(test: String, detail: Option<String>) -> TestOutcome {
    TestOutcome {
        test,
        status: Status::Fail,
        detail: detail.or_else(|| Some("no result line (context or queue creation?)".into())),
    }
}

/// The status a result line gives the running test `cur`, if it is one.
fn result_line(line: &str, cur: &str) -> Option<Status> {
    let ends = |suffix: &str| {
        line.strip_suffix(suffix)
            .and_then(|head| head.strip_suffix(cur))
            .is_some_and(|before| {
                !before
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            })
    };
    if ends(" passed") {
        Some(Status::Pass)
    } else if ends(" FAILED") {
        Some(Status::Fail)
    } else if ends(" test not supported")
        || ends(" test currently not implemented")
        || line.starts_with(&format!("{cur} skipped (requires at least"))
        || line.starts_with(&format!("Subtest {cur} tests is not supported"))
    {
        Some(Status::Skip)
    } else {
        None
    }
}

/// `PASSED 3 of 3 tests.`, `FAILED 1 of 3 tests.`, `PASSED test.`, `FAILED test.` (the
/// sub-test lines before them say `sub-tests`).
fn is_summary(line: &str) -> bool {
    let Some(rest) = line
        .strip_prefix("PASSED ")
        .or_else(|| line.strip_prefix("FAILED "))
    else {
        return false;
    };
    if rest == "test." {
        return true;
    }
    let Some(counts) = rest.strip_suffix(" tests.") else {
        return false;
    };
    let mut words = counts.split(' ');
    matches!(
        (words.next(), words.next(), words.next(), words.next()),
        (Some(a), Some("of"), Some(b), None)
            if a.bytes().all(|c| c.is_ascii_digit()) && b.bytes().all(|c| c.is_ascii_digit())
    )
}

fn looks_like_error(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    (l.contains("error") || l.contains("fail") || l.contains("mismatch")) && !l.contains("0 errors")
}

/// Reads the results file the CTS writes on a normal finish (`"name": "pass"` lines inside
/// `"results": { … }`).
pub fn parse_results_json(text: &str) -> Vec<(String, Status)> {
    let mut out = Vec::new();
    let mut in_results = false;
    for line in text.lines() {
        let line = line.trim().trim_end_matches(',');
        if !in_results {
            in_results = line.starts_with("\"results\"");
            continue;
        }
        if line.starts_with('}') {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let name = name.trim().trim_matches('"');
        let status = match value.trim().trim_matches('"') {
            "pass" => Status::Pass,
            "fail" => Status::Fail,
            "skip" => Status::Skip,
            _ => continue,
        };
        out.push((name.to_owned(), status));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn outcome(test: &str, status: Status) -> (String, Status) {
        (test.to_owned(), status)
    }

    fn statuses(p: &Parsed) -> Vec<(String, Status)> {
        p.results
            .iter()
            .map(|r| (r.test.clone(), r.status))
            .collect()
    }

    const HEADER: &str = " Initializing random seed to 0.\n\
        Requesting CPU device based on environment variable for platform index 0 and device index 0\n\
        Compute Device Name = AMD EPYC, Compute Device Vendor = AuthenticAMD, Compute Device Version = OpenCL 3.0 Ferrite\n\
        Supports single precision denormals: YES\n\
        sizeof( void*) = 8  (host)\n";

    #[test]
    fn reads_a_complete_run() {
        let known = names(&["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]);
        let text = format!(
            "{HEADER}alpha...\nalpha passed\nbeta...\nERROR: clFoo returned CL_INVALID_VALUE (-30)\n\
             beta FAILED\ngamma...\nDevice does not support images\ngamma test not supported\ndelta...\n\
             delta skipped (requires at least OpenCL version 3.1, but the device reports OpenCL version 3.0)\n\
             epsilon...\nSubtest epsilon tests is not supported in offline compiler execution path!\n\
             zeta...\nsome chatter...\nzeta passed\nFAILED 1 of 12 sub-tests.\nFAILED 1 of 3 tests.\n"
        );
        let p = parse_output(&text, &known);
        assert_eq!(
            statuses(&p),
            vec![
                outcome("alpha", Status::Pass),
                outcome("beta", Status::Fail),
                outcome("gamma", Status::Skip),
                outcome("delta", Status::Skip),
                outcome("epsilon", Status::Skip),
                outcome("zeta", Status::Pass),
            ]
        );
        assert_eq!(
            p.results[1].detail.as_deref(),
            Some("ERROR: clFoo returned CL_INVALID_VALUE (-30)")
        );
        assert_eq!(
            p.results[2].detail.as_deref(),
            Some("Device does not support images")
        );
        assert_eq!(p.results[0].detail, None);
        assert!(p.finished);
        assert_eq!(p.running, None);
        assert_eq!(p.init, None);
    }

    #[test]
    fn a_test_without_result_line_failed() {
        let known = names(&["a", "b"]);
        let text =
            "a...\nERROR: Unable to create testing context! (CL_OUT_OF_HOST_MEMORY)\nb...\nb passed\n\
                    a...\nPASSED 1 of 2 tests.\n";
        let p = parse_output(text, &known);
        assert_eq!(p.results[0].status, Status::Fail);
        assert!(p.results[0].detail.as_deref().unwrap().contains("Unable"));
        assert_eq!(p.results[1].status, Status::Pass);
        assert_eq!(p.results[2].status, Status::Fail);
        assert!(p.finished);
    }

    #[test]
    fn clfinish_failure_after_pass_is_a_fail() {
        let known = names(&["a", "b"]);
        let text =
            "a...\na passed\nclFinish failed: CL_OUT_OF_RESOURCES\nb...\nb passed\nFAILED test.\n";
        let p = parse_output(text, &known);
        assert_eq!(
            statuses(&p),
            vec![outcome("a", Status::Fail), outcome("b", Status::Pass)]
        );
        assert!(p.finished);
    }

    #[test]
    fn output_that_stops_mid_test_leaves_it_running() {
        let known = names(&["a", "b", "c"]);
        let text = "a...\na passed\nb...\nCreating kernel\nerror: bad things\n";
        let p = parse_output(text, &known);
        assert_eq!(statuses(&p), vec![outcome("a", Status::Pass)]);
        let running = p.running.unwrap();
        assert_eq!(running.test, "b");
        assert_eq!(running.detail.as_deref(), Some("error: bad things"));
        assert!(!p.finished);
    }

    #[test]
    fn names_match_whole_words_and_known_tests_only() {
        let known = names(&["fill", "buffer_fill"]);
        // `buffer_fill passed` must not end `fill`; `Testing fill...` with a prefix is chatter.
        let text = "fill...\nbuffer_fill passed\nTesting fill...\nsubfill...\nfill passed\n";
        let p = parse_output(text, &known);
        assert_eq!(statuses(&p), vec![outcome("fill", Status::Pass)]);
        assert!(!p.finished);
        assert!(!is_summary("PASSED 12 of 12 sub-tests."));
        assert!(is_summary("PASSED 12 of 12 tests."));
        assert!(is_summary("FAILED test."));
        assert!(!is_summary("FAILED norm_offsets: 0.1 , 0.2:"));
    }

    #[test]
    fn initialisation_failure_and_skip() {
        let known = names(&["a"]);
        let p = parse_output(
            "Test failed while initialization\nFAILED 3 of 3 tests.\n",
            &known,
        );
        assert_eq!(p.init, Some(Status::Fail));
        let p = parse_output(
            "Test skipped while initialization\nSKIPPED 3 of 3 tests.\n",
            &known,
        );
        assert_eq!(p.init, Some(Status::Skip));
        assert!(p.results.is_empty());
    }

    #[test]
    fn reads_the_results_json() {
        let json = "{\n\t\"cmd\": \"./test_api\",\n\t\"args\": \"--wimpy\",\n\t\"results\": {\n\
                    \t\t\"a\": \"pass\",\n\t\t\"b\": \"fail\",\n\t\t\"c\": \"skip\"\n\t}\n}\n";
        assert_eq!(
            parse_results_json(json),
            vec![
                outcome("a", Status::Pass),
                outcome("b", Status::Fail),
                outcome("c", Status::Skip)
            ]
        );
    }
}
