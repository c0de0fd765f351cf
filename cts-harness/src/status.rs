//! The outcome of one CTS test, as observed and as expected.

use std::fmt;
use std::str::FromStr;

/// What happened to one test of a suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// The CTS printed `NAME passed`.
    Pass,
    /// The CTS printed `NAME FAILED`, or the test ended without a result line
    /// (context creation, `clFinish` after the test, suite initialisation).
    Fail,
    /// The test said it is not supported, or needs a newer OpenCL version.
    Skip,
    /// The suite ran out of time while this test ran or before it was reached.
    Timeout,
    /// The suite binary died (signal, or exit without its summary) during this test.
    Crash,
    /// Only in an expectations file: the test passes in some runs and fails in others
    /// (a race in the CTS itself), so either result is as expected.
    Flaky,
}

impl Status {
    /// What a run can observe.
    pub const OBSERVED: [Status; 5] = [
        Status::Pass,
        Status::Fail,
        Status::Skip,
        Status::Timeout,
        Status::Crash,
    ];
    /// What an expectations file can say.
    pub const ALL: [Status; 6] = [
        Status::Pass,
        Status::Fail,
        Status::Skip,
        Status::Timeout,
        Status::Crash,
        Status::Flaky,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "Pass",
            Status::Fail => "Fail",
            Status::Skip => "Skip",
            Status::Timeout => "Timeout",
            Status::Crash => "Crash",
            Status::Flaky => "Flaky",
        }
    }

    /// Whether `got`, observed, is what this expectation allows.
    pub fn admits(self, got: Status) -> bool {
        match self {
            Status::Flaky => matches!(got, Status::Pass | Status::Fail),
            expected => expected == got,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for Status {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Status::ALL
            .into_iter()
            .find(|st| st.name() == s)
            .ok_or_else(|| {
                format!("unknown status `{s}` (one of Pass, Fail, Skip, Timeout, Crash, Flaky)")
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_its_name() {
        for st in Status::ALL {
            assert_eq!(st.name().parse::<Status>(), Ok(st));
        }
        assert!("pass".parse::<Status>().is_err());
    }

    #[test]
    fn flaky_admits_a_pass_or_a_failure_only() {
        assert!(Status::Flaky.admits(Status::Pass));
        assert!(Status::Flaky.admits(Status::Fail));
        for got in [Status::Skip, Status::Timeout, Status::Crash] {
            assert!(!Status::Flaky.admits(got));
        }
        assert!(Status::Fail.admits(Status::Fail));
        assert!(!Status::Fail.admits(Status::Pass));
    }
}
