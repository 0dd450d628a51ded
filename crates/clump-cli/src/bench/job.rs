//! The parent side of every benchmark: it starts the ranks through the real launcher
//! (`clump run -n N [LAUNCHER ARGS] -- clump bench worker BENCH ...`), takes the one JSON
//! line rank 0 prints, and prints it as a table or as JSON.

use serde_json::Value;
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

/// Prints `results` on stdout, pretty JSON if `json`, else through `table`.
pub fn print(
    results: &Value,
    json: bool,
    table: impl FnOnce(&Value, &mut StdoutLock<'static>) -> io::Result<()>,
) -> Result<(), String> {
    let mut w = io::stdout().lock();
    let printed = if json {
        let mut results = results.clone();
        // What ran where and when, so that saved results can be told apart.
        results["run"] = crate::about::run_metadata();
        serde_json::to_string_pretty(&results)
            .map_err(io::Error::other)
            .and_then(|s| writeln!(w, "{s}"))
    } else {
        table(results, &mut w)
    };
    printed
        .and_then(|()| w.flush())
        .map_err(|e| format!("cannot write the results: {e}"))
}
