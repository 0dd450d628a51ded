//! The job's identity and its private scratch directory (which holds the bootstrap
//! socket), removed on drop whatever way the launcher ends.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// sun_path holds 108 bytes including the terminating NUL.
const MAX_SOCKET_PATH: usize = 107;

/// 64 random bits. std's RandomState is seeded from the OS's random source, which is
/// all a job id needs (distinct per job); no crate is worth adding for it.
pub fn random_u64() -> u64 {
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    h.finish()
}

pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// Creates `$TMPDIR/clump-<jobid>-XXXX` (mode 0700), or the same under /tmp when
    /// $TMPDIR is too deep for a socket path.
    pub fn create(job_id: u64) -> io::Result<Scratch> {
        let mut last = None;
        for base in [std::env::temp_dir(), PathBuf::from("/tmp")] {
            for _ in 0..16 {
                let dir = base.join(format!("clump-{job_id:016x}-{:04x}", random_u64() as u16));
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

/// Safety net: removes `/dev/shm/clump-<jobid>-*` a crashed job may have left.
pub fn sweep_shm(job_id: u64) {
    sweep_dir(Path::new("/dev/shm"), &format!("clump-{job_id:016x}-"));
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
