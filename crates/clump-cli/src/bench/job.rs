//! The parent side of every benchmark: it starts the ranks through the real launcher
//! (`clump run -n N [LAUNCHER ARGS] -- clump bench worker BENCH ...`), takes the one JSON
//! line rank 0 prints, and prints it as a table or as JSON.
//!
//! Every benchmark's `--json` has one shape: one object per invocation, with `benchmark`
//! (its name), `quick`, its figures, and `run` (what ran where and when) — see [`document`].

use serde_json::{json, Value};
use std::io::{self, StdoutLock, Write};
use std::process::{Command, Stdio};

/// Runs `np` ranks of `clump bench worker <worker>` under `clump run <launcher>`, with
/// `env` added to the launcher's environment (which the ranks inherit); returns rank 0's
/// results.
pub fn run(
    np: u32,
    launcher: &[&str],
    env: &[(&str, String)],
    worker: &[&str],
) -> Result<Value, String> {
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find the clump executable: {e}"))?;
    let mut cmd = Command::new(&exe);
    cmd.args(["run", "-n", &np.to_string()])
        .args(launcher)
        .arg("--")
        .arg(&exe)
        .args(["bench", "worker"])
        .args(worker)
        .envs(env.iter().map(|(k, v)| (k, v)));
    // Progress and errors of the ranks and the launcher go straight to our stderr.
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let out = cmd
        .output()
        .map_err(|e| format!("cannot start {} run: {e}", exe.display()))?;
    if !out.status.success() {
        return Err(format!(
            "the benchmark job failed ({}); see the messages above",
            out.status
        ));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .rev()
        .filter(|l| l.trim_start().starts_with('{'))
        .find_map(|l| serde_json::from_str::<Value>(l).ok())
        .ok_or_else(|| format!("the benchmark job printed no results; its output was:\n{stdout}"))
}

/// The results of one invocation of `benchmark` as its one JSON object: `fields` (an
/// object) with `benchmark`, `quick` and `run` added.
pub fn document(benchmark: &str, quick: bool, fields: Value) -> Value {
    let mut doc = json!({ "benchmark": benchmark, "quick": quick });
    if let (Some(doc), Value::Object(fields)) = (doc.as_object_mut(), fields) {
        doc.extend(fields);
    }
    stamped(doc)
}

/// `results` with `run` added: what ran where and when, so that saved results can be told
/// apart (and plots can say it).
pub fn stamped(mut results: Value) -> Value {
    results["run"] = crate::about::run_metadata();
    results
}

/// Prints `results` on stdout, pretty JSON if `json`, else through `table`.
pub fn print(
    results: &Value,
    json: bool,
    table: impl FnOnce(&Value, &mut StdoutLock<'static>) -> io::Result<()>,
) -> Result<(), String> {
    let mut w = io::stdout().lock();
    let printed = if json {
        serde_json::to_string_pretty(results)
            .map_err(io::Error::other)
            .and_then(|s| writeln!(w, "{s}"))
    } else {
        table(results, &mut w)
    };
    printed
        .and_then(|()| w.flush())
        .map_err(|e| format!("cannot write the results: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_document_names_its_benchmark_and_mode_and_says_where_it_ran() {
        let doc = document("mpi", true, json!({"figures": [1, 2]}));
        assert_eq!(doc["benchmark"], "mpi");
        assert_eq!(doc["quick"], true);
        assert_eq!(doc["figures"], json!([1, 2]));
        for key in ["version", "commit", "host", "cores", "load_average", "date"] {
            assert!(doc["run"].get(key).is_some(), "run.{key} in {doc}");
        }
        let rank0 = json!({"benchmark": "loggp", "quick": false, "rtt_us": 1.0});
        let doc = stamped(rank0);
        assert_eq!(
            (doc["benchmark"].as_str(), doc["rtt_us"].as_f64()),
            (Some("loggp"), Some(1.0))
        );
        assert!(doc["run"]["cores"].as_u64() >= Some(1));
    }
}
