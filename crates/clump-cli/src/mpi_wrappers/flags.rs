//! clump's flags for a wrapper's compiler, as `clump config` prints them: one source for
//! the wrappers, pkg-config users and `clump config` readers alike.

use super::clump_exe;
use std::process::{Command, Stdio};

/// The compile flags (`-I...`) and the link flags of one kind of program.
pub struct Flags {
    pub compile: Vec<String>,
    pub link: Vec<String>,
}

impl Flags {
    /// `clump config --cflags`, and `clump config LINK_QUERY` for the link flags.
    pub fn get(link_query: &[&str]) -> Result<Flags, String> {
        Ok(Flags {
            compile: config(&["--cflags"])?,
            link: config(link_query)?,
        })
    }
}

/// `clump config QUERY`'s words; its warnings (no library built yet) reach the user.
pub fn config(query: &[&str]) -> Result<Vec<String>, String> {
    let out = Command::new(clump_exe())
        .arg("config")
        .args(query)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run clump config: {e}"))?;
    if !out.status.success() {
        return Err(format!("clump config {} failed", query.join(" ")));
    }
    let text = String::from_utf8(out.stdout).map_err(|_| "clump config printed non-UTF-8")?;
    Ok(text.split_whitespace().map(str::to_owned).collect())
}
