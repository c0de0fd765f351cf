//! Expectation files: `cts-harness/expectations/<suite>.csv`.
//!
//! ```text
//! # Header: what the file is (a comment paragraph before the first entry).
//!
//! # images unsupported
//! image_foo,Skip
//! image_bar,Skip
//!
//! # out-of-order queues not implemented yet (host API issue)
//! queue_ooo,Fail
//! ```
//!
//! One `test,Status` line per test whose result is not `Pass`; tests not listed are expected
//! to pass. Every non-`Pass` entry needs a reason: the comment lines above it in its paragraph
//! (paragraphs are separated by blank lines; one reason may cover several entries below it).
//! [`Expectations::bless`] rewrites the entries from observed results, keeping the reasons
//! it has and marking new non-passes `# TODO: reason`.

use std::collections::{BTreeMap, BTreeSet};

use crate::status::Status;

/// The placeholder reason `--bless` gives a new non-pass.
pub const TODO_REASON: &str = "# TODO: reason";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub status: Status,
    /// The comment lines (with their `#`) that explain it.
    pub reason: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expectations {
    /// Comment paragraphs that belong to no entry, kept verbatim.
    pub header: Vec<String>,
    pub entries: BTreeMap<String, Entry>,
}

impl Expectations {
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut exp = Expectations::default();
        // Comment lines seen in this paragraph since the last entry.
        let mut comments: Vec<String> = Vec::new();
        // The reason that applies to entries of this paragraph.
        let mut reason: Vec<String> = Vec::new();
        let mut last_was_entry = false;

        let flush_header = |exp: &mut Expectations, comments: &mut Vec<String>| {
            if !comments.is_empty() {
                if !exp.header.is_empty() {
                    exp.header.push(String::new());
                }
                exp.header.append(comments);
            }
        };

        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            let at = |msg: String| format!("line {}: {msg}", i + 1);
            if line.is_empty() {
                if !last_was_entry {
                    flush_header(&mut exp, &mut comments);
                }
                comments.clear();
                reason.clear();
                last_was_entry = false;
            } else if line.starts_with('#') {
                if last_was_entry {
                    reason.clear();
                }
                comments.push(line.to_owned());
                last_was_entry = false;
            } else {
                if !comments.is_empty() {
                    reason = std::mem::take(&mut comments);
                }
                let (test, status) = line
                    .split_once(',')
                    .ok_or_else(|| at(format!("expected `test,Status`, got `{line}`")))?;
                let (test, status) = (test.trim(), status.trim());
                if test.is_empty() {
                    return Err(at("empty test name".into()));
                }
                let status = status.parse::<Status>().map_err(at)?;
                if status != Status::Pass && reason.is_empty() {
                    return Err(at(format!(
                        "`{test},{status}` has no `# reason` comment above it"
                    )));
                }
                let entry = Entry {
                    status,
                    reason: reason.clone(),
                };
                if exp.entries.insert(test.to_owned(), entry).is_some() {
                    return Err(at(format!("`{test}` is listed twice")));
                }
                last_was_entry = true;
            }
        }
        if !last_was_entry {
            flush_header(&mut exp, &mut comments);
        }
        Ok(exp)
    }

    /// What `test` is expected to do.
    pub fn expected(&self, test: &str) -> Status {
        self.entries
            .get(test)
            .map_or(Status::Pass, |entry| entry.status)
    }

    /// Entries naming tests the suite does not have.
    pub fn stale<'a>(&'a self, suite_tests: &'a BTreeSet<String>) -> Vec<&'a str> {
        self.entries
            .keys()
            .filter(|t| !suite_tests.contains(*t))
            .map(String::as_str)
            .collect()
    }

    /// Takes the observed results as the new expectations for the tests that ran; tests that
    /// did not run keep their entries. Existing reasons stay when the status stays non-pass.
    pub fn bless(&mut self, observed: &BTreeMap<String, Status>) {
        for (test, &status) in observed {
            let old = self.entries.get(test).map(|e| e.status);
            if old == Some(Status::Flaky) && Status::Flaky.admits(status) {
                continue; // one run does not settle a flaky test
            }
            if status == Status::Pass {
                self.entries.remove(test);
                continue;
            }
            let reason = match self.entries.get(test) {
                Some(old) if !old.reason.is_empty() => old.reason.clone(),
                _ => vec![TODO_REASON.to_owned()],
            };
            self.entries.insert(test.clone(), Entry { status, reason });
        }
    }

    /// The file text: the header, then one paragraph per reason (in the order of each
    /// reason's first test), entries sorted by test name.
    pub fn render(&self) -> String {
        // (reason, entries with it), in the order of each reason's first test.
        let mut groups: Vec<Group<'_>> = Vec::new();
        for (test, entry) in &self.entries {
            match groups
                .iter_mut()
                .find(|(r, _)| *r == entry.reason.as_slice())
            {
                Some((_, tests)) => tests.push((test, entry)),
                None => groups.push((&entry.reason, vec![(test, entry)])),
            }
        }
        let mut out = String::new();
        for line in &self.header {
            out.push_str(line);
            out.push('\n');
        }
        for (reason, tests) in groups {
            if !out.is_empty() {
                out.push('\n');
            }
            for line in reason {
                out.push_str(line);
                out.push('\n');
            }
            for (test, entry) in tests {
                out.push_str(&format!("{test},{}\n", entry.status));
            }
        }
        out
    }
}

/// A reason and the entries (test, entry) it covers.
type Group<'a> = (&'a [String], Vec<(&'a String, &'a Entry)>);

/// One line of the result table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub test: String,
    pub expected: Status,
    pub got: Status,
}

impl Row {
    pub fn ok(&self) -> bool {
        self.expected.admits(self.got)
    }
}

/// Pairs every observed result with its expectation.
pub fn compare(exp: &Expectations, observed: &BTreeMap<String, Status>) -> Vec<Row> {
    observed
        .iter()
        .map(|(test, &got)| Row {
            test: test.clone(),
            expected: exp.expected(test),
            got,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "\
# test_api on Ferrite.
# Tests not listed are expected to pass.

# out-of-order queues not implemented yet
queue_ooo,Fail
queue_ooo_2,Fail
# images unsupported
image_a,Skip

# crashes in the compiler
#   (second reason line)
kernel_x,Crash
passing_one,Pass
";

    fn observed(list: &[(&str, Status)]) -> BTreeMap<String, Status> {
        list.iter().map(|(t, s)| (t.to_string(), *s)).collect()
    }

    #[test]
    fn parses_reasons_by_paragraph() {
        let exp = Expectations::parse(FILE).unwrap();
        assert_eq!(exp.header.len(), 2);
        assert_eq!(exp.expected("queue_ooo"), Status::Fail);
        assert_eq!(
            exp.entries["queue_ooo_2"].reason,
            vec!["# out-of-order queues not implemented yet"]
        );
        assert_eq!(exp.entries["image_a"].reason, vec!["# images unsupported"]);
        assert_eq!(exp.entries["kernel_x"].reason.len(), 2);
        assert_eq!(exp.expected("passing_one"), Status::Pass);
        assert_eq!(exp.expected("not_listed"), Status::Pass);
    }

    #[test]
    fn rejects_bad_files() {
        let err = Expectations::parse("# header\n\nfoo,Fail\n").unwrap_err();
        assert!(err.contains("line 3") && err.contains("reason"), "{err}");
        assert!(Expectations::parse("# r\nfoo,Failed\n").is_err());
        assert!(Expectations::parse("# r\nfoo Fail\n").is_err());
        assert!(Expectations::parse("# r\nfoo,Fail\nfoo,Skip\n").is_err());
        // A Pass needs no reason.
        assert!(Expectations::parse("foo,Pass\n").is_ok());
    }

    #[test]
    fn compares_both_ways() {
        let exp = Expectations::parse(FILE).unwrap();
        let rows = compare(
            &exp,
            &observed(&[
                ("queue_ooo", Status::Fail),   // expected failure
                ("queue_ooo_2", Status::Pass), // unexpected pass
                ("image_a", Status::Skip),
                ("new_test", Status::Timeout), // unexpected timeout
                ("other", Status::Pass),
            ]),
        );
        let bad: Vec<_> = rows
            .iter()
            .filter(|r| !r.ok())
            .map(|r| r.test.as_str())
            .collect();
        assert_eq!(bad, vec!["new_test", "queue_ooo_2"]);
    }

    #[test]
    fn a_flaky_test_may_pass_or_fail_and_blessing_keeps_it() {
        let text = "# races in the CTS's host threads\nrace_a,Flaky\nrace_b,Flaky\nrace_c,Flaky\n";
        let mut exp = Expectations::parse(text).unwrap();
        let got = observed(&[
            ("race_a", Status::Pass),
            ("race_b", Status::Fail),
            ("race_c", Status::Crash), // a crash is never a flake
        ]);
        let bad: Vec<_> = compare(&exp, &got)
            .into_iter()
            .filter(|r| !r.ok())
            .map(|r| r.test)
            .collect();
        assert_eq!(bad, vec!["race_c"]);
        exp.bless(&got);
        assert_eq!(exp.expected("race_a"), Status::Flaky);
        assert_eq!(exp.expected("race_b"), Status::Flaky);
        assert_eq!(exp.expected("race_c"), Status::Crash);
    }

    #[test]
    fn stale_entries_are_found() {
        let exp = Expectations::parse(FILE).unwrap();
        let suite: BTreeSet<String> = ["queue_ooo", "queue_ooo_2", "image_a", "kernel_x"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(exp.stale(&suite), vec!["passing_one"]);
    }

    #[test]
    fn bless_keeps_reasons_and_marks_new_ones() {
        let mut exp = Expectations::parse(FILE).unwrap();
        exp.bless(&observed(&[
            ("queue_ooo", Status::Timeout), // changed status, same reason
            ("queue_ooo_2", Status::Pass),  // now passes: dropped
            ("brand_new", Status::Fail),    // new: TODO
        ]));
        let text = exp.render();
        assert_eq!(
            text,
            "\
# test_api on Ferrite.
# Tests not listed are expected to pass.

# TODO: reason
brand_new,Fail

# images unsupported
image_a,Skip

# crashes in the compiler
#   (second reason line)
kernel_x,Crash
passing_one,Pass

# out-of-order queues not implemented yet
queue_ooo,Timeout
"
        );
        // The rendering reads back to the same expectations.
        assert_eq!(Expectations::parse(&text).unwrap(), exp);
    }
}
