//! `MPIEXEC_TIMEOUT`: the seconds a job may run, as hydra's and Open MPI's `mpiexec` take
//! it; past them the launcher ends the job (test harnesses, the MPICH suite's among them,
//! set it to bound a hung program).

use std::time::{Duration, Instant};

/// Exit status of a job ended by its time limit, as timeout(1) gives.
pub const TIMED_OUT: u8 = 124;

/// The job's time limit: when it ends and how long it was; `None` when unset, empty or 0.
pub fn from_env() -> Result<Option<(Instant, u64)>, String> {
    parse(std::env::var("MPIEXEC_TIMEOUT").ok().as_deref())
        .map(|secs| secs.map(|s| (Instant::now() + Duration::from_secs(s), s)))
}

/// The limit's seconds (a whole number; 0 is none).
fn parse(value: Option<&str>) -> Result<Option<u64>, String> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) => match v.parse::<u64>() {
            Ok(0) => Ok(None),
            Ok(s) => Ok(Some(s)),
            Err(_) => Err(format!(
                "MPIEXEC_TIMEOUT={v:?} is not a whole number of seconds"
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn whole_seconds_are_taken_and_anything_else_refused() {
        assert_eq!(parse(None), Ok(None));
        assert_eq!(parse(Some("")), Ok(None));
        assert_eq!(parse(Some("0")), Ok(None));
        assert_eq!(parse(Some(" 10 ")), Ok(Some(10)));
        assert!(parse(Some("1.5")).is_err());
        assert!(parse(Some("-3")).is_err());
        assert!(parse(Some("ten")).unwrap_err().contains("MPIEXEC_TIMEOUT"));
    }
}
