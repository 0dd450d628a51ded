//! The job's private scratch directory (which holds the bootstrap socket), removed on
//! drop whatever way the launcher ends.

use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// sun_path holds 108 bytes including the terminating NUL.
const MAX_SOCKET_PATH: usize = 107;

pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// Creates `$TMPDIR/clump-<launcher pid>-XXXX` (mode 0700, so other users can
    /// neither list it nor reach the socket), or the same under /tmp when $TMPDIR is too
    /// deep for a socket path. The name holds no secret (the job id is one: it tags
    /// every endpoint), and the launcher's pid lets a later launcher remove the
    /// directory of one that was killed before it could.
    pub fn create() -> io::Result<Scratch> {
        let mut last = None;
        let pid = std::process::id();
        for base in [std::env::temp_dir(), PathBuf::from("/tmp")] {
            sweep_dead_launchers(&base);
            for _ in 0..16 {
                let dir = base.join(format!(
                    "clump-{pid}-{:04x}",
                    clump::config::random_job_id() as u16
                ));
                if dir.join("boot.sock").as_os_str().len() > MAX_SOCKET_PATH {
                    last = Some(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!("{} is too long a path for a Unix socket", dir.display()),
                    ));
                    break;
                }
                match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                    Ok(()) => return Ok(Scratch { dir }),
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                    Err(e) => {
                        last = Some(io::Error::new(
                            e.kind(),
                            format!("cannot create {}: {e}", dir.display()),
                        ));
                        break;
                    }
                }
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no scratch directory")))
    }

    pub fn socket_path(&self) -> PathBuf {
        self.dir.join("boot.sock")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Removes the scratch directories (`clump-<pid>-XXXX`) of launchers that no longer
/// run, such as one killed by SIGKILL. Only directories of this user can go: the others'
/// are private (mode 0700) and removing them fails quietly.
fn sweep_dead_launchers(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(launcher_pid) else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// The launcher pid in a scratch directory's name `clump-<pid>-XXXX`.
fn launcher_pid(name: &str) -> Option<u32> {
    let (pid, suffix) = name.strip_prefix("clump-")?.split_once('-')?;
    let hex4 = suffix.len() == 4 && suffix.bytes().all(|b| b.is_ascii_hexdigit());
    hex4.then(|| pid.parse().ok()).flatten()
}

/// Safety net: removes `/dev/shm/clump-<launcher pid>-*` a crashed job may have left
/// (named by the launcher's pid, not by the job's secret id).
pub fn sweep_shm() {
    sweep_dir(
        Path::new("/dev/shm"),
        &format!("clump-{}-", std::process::id()),
    );
}

fn sweep_dir(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if e.file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(prefix))
        {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_scratch_names_give_a_pid() {
        assert_eq!(super::launcher_pid("clump-123-0a9f"), Some(123));
        assert_eq!(super::launcher_pid("clump-123-0a9"), None);
        assert_eq!(super::launcher_pid("clump-00000000000000ff-0a9f-x"), None);
        assert_eq!(super::launcher_pid("clump-x-0a9f"), None);
        assert_eq!(super::launcher_pid("other-123-0a9f"), None);
    }
}
