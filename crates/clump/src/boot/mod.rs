//! Bootstrap: how a process learns its rank and the job size, and exchanges data with
//! the other processes of its job through the `clump run` launcher.
//!
//! The launcher listens on a Unix stream socket (`CLUMP_BOOT`); each process connects,
//! says hello with its rank and job id, and then runs collectives over it (see
//! [`frame`] for the wire format). A process started on its own is a job of one.

mod conn;
pub mod frame;

use crate::config::{Config, ConfigError, JobConfig};
use conn::Conn;
use frame::{Msg, Op, MAX_CONTRIBUTION};
use std::time::Duration;

/// How long joining waits for the launcher's welcome: it answers at once unless it is dying.
const WELCOME_TIMEOUT: Duration = Duration::from_secs(30);
/// How long `abort` tries to hand its request to the launcher.
const ABORT_SEND_TIMEOUT: Duration = Duration::from_secs(1);

/// Why joining the job or a collective failed.
#[derive(Debug, thiserror::Error)]
pub enum BootError {
    #[error("bad job configuration: {0}")]
    Config(String),
    #[error("cannot connect to the launcher at {path}: {source}")]
    Connect {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the launcher went away: {0}")]
    LauncherGone(String),
    #[error("job aborted by the launcher (status {status}): {reason}")]
    Aborted { status: i32, reason: String },
    #[error("bootstrap protocol error: {0}")]
    Protocol(String),
    #[error("allgather contribution of {len} bytes exceeds the limit of {max} bytes")]
    TooLarge { len: usize, max: usize },
    #[error("bootstrap connection unusable: {0}")]
    Unusable(String),
}

impl From<ConfigError> for BootError {
    fn from(e: ConfigError) -> BootError {
        BootError::Config(e.to_string())
    }
}

/// This process's membership in a job.
pub struct Job {
    rank: u32,
    size: u32,
    job_id: u64,
    /// `None` for a job of one started without a launcher.
    conn: Option<Conn>,
    /// Sequence number of the last collective started (the first is 1).
    seq: u32,
    /// Set once a collective failed or the job was aborted: the stream is out of step.
    broken: Option<String>,
}

impl Job {
    /// Joins the job described by the environment; a process started on its own is a
    /// job of one (rank 0, size 1, no socket, collectives are trivial).
    pub fn from_env() -> Result<Job, BootError> {
        Job::from_config(&Config::from_env()?.job)
    }

    pub fn from_config(job: &JobConfig) -> Result<Job, BootError> {
        if job.size == 0 || job.rank >= job.size {
            return Err(BootError::Config(format!(
                "rank {} is not in a job of {}",
                job.rank, job.size
            )));
        }
        let mut me = Job {
            rank: job.rank,
            size: job.size,
            job_id: job.job_id,
            conn: None,
            seq: 0,
            broken: None,
        };
        let Some(path) = &job.boot_socket else {
            if job.size > 1 {
                return Err(BootError::Config(format!(
                    "CLUMP_SIZE={} but CLUMP_BOOT is unset: start the job with `clump run`",
                    job.size
                )));
            }
            return Ok(me);
        };
        let mut conn = Conn::connect(path).map_err(|source| BootError::Connect {
            path: path.clone(),
            source,
        })?;
        let hello = Msg::Hello {
            rank: job.rank,
            job_id: job.job_id,
            pid: std::process::id(),
        };
        conn.send_within(&hello.encode(), WELCOME_TIMEOUT)?;
        match conn.recv_within(WELCOME_TIMEOUT)? {
            Msg::Welcome { size } if size == job.size => {}
            Msg::Welcome { size } => {
                return Err(BootError::Protocol(format!(
                    "launcher runs a job of {size} processes but CLUMP_SIZE is {}",
                    job.size
                )))
            }
            Msg::Aborted { status, reason } => return Err(BootError::Aborted { status, reason }),
            other => return Err(unexpected(&other, "a welcome")),
        }
        me.conn = Some(conn);
        Ok(me)
    }

    pub fn rank(&self) -> u32 {
        self.rank
    }

    pub fn size(&self) -> u32 {
        self.size
    }

    pub fn job_id(&self) -> u64 {
        self.job_id
    }

    /// Every rank contributes `mine` (at most 1 MiB); returns all contributions indexed
    /// by rank. Calls `progress()` repeatedly while it waits, backing off between calls
    /// (spin, yield, then naps of at most 1 ms) so that waiting processes cost little.
    pub fn allgather(
        &mut self,
        mine: &[u8],
        progress: &mut dyn FnMut(),
    ) -> Result<Vec<Vec<u8>>, BootError> {
        if mine.len() > MAX_CONTRIBUTION {
            return Err(BootError::TooLarge {
                len: mine.len(),
                max: MAX_CONTRIBUTION,
            });
        }
        self.collective(Op::Allgather, mine, progress)
    }

    /// Returns once every rank has entered the barrier; calls `progress()` while it waits.
    pub fn barrier(&mut self, progress: &mut dyn FnMut()) -> Result<(), BootError> {
        self.collective(Op::Barrier, &[], progress).map(drop)
    }

    /// Asks the launcher to end the whole job with `status`, printing `reason`; returns
    /// after the request is sent. Without a launcher (a job of one) it prints the reason
    /// itself and the caller is expected to exit.
    pub fn abort(&mut self, status: i32, reason: &str) {
        self.broken = Some("this process aborted the job".into());
        match &mut self.conn {
            Some(conn) => {
                let frame = Msg::Abort {
                    status,
                    reason: reason.to_owned(),
                }
                .encode();
                if let Err(e) = conn.send_within(&frame, ABORT_SEND_TIMEOUT) {
                    eprintln!(
                        "clump: rank {} could not ask the launcher to abort ({e}): {reason}",
                        self.rank
                    );
                }
            }
            None => eprintln!(
                "clump: rank {} aborted the job with status {status}: {reason}",
                self.rank
            ),
        }
    }

    fn collective(
        &mut self,
        op: Op,
        mine: &[u8],
        progress: &mut dyn FnMut(),
    ) -> Result<Vec<Vec<u8>>, BootError> {
        if let Some(why) = &self.broken {
            return Err(BootError::Unusable(why.clone()));
        }
        let Some(conn) = &mut self.conn else {
            return Ok(vec![mine.to_vec()]);
        };
        self.seq = self.seq.wrapping_add(1);
        let seq = self.seq;
        let result = exchange(conn, seq, op, mine, self.size, progress);
        if let Err(e) = &result {
            self.broken = Some(format!("{} #{seq} failed: {e}", op.name()));
        }
        result
    }
}

fn exchange(
    conn: &mut Conn,
    seq: u32,
    op: Op,
    mine: &[u8],
    size: u32,
    progress: &mut dyn FnMut(),
) -> Result<Vec<Vec<u8>>, BootError> {
    conn.send(
        &Msg::Enter {
            seq,
            op,
            data: mine.to_vec(),
        }
        .encode(),
        progress,
    )?;
    match conn.recv(progress)? {
        Msg::Done {
            seq: s,
            op: o,
            parts,
        } if s == seq && o == op => {
            let want = if op == Op::Barrier { 0 } else { size as usize };
            if parts.len() != want {
                return Err(BootError::Protocol(format!(
                    "{} #{seq} returned {} contributions, expected {want}",
                    op.name(),
                    parts.len()
                )));
            }
            Ok(parts)
        }
        Msg::Done { seq: s, op: o, .. } => Err(BootError::Protocol(format!(
            "waiting for {} #{seq}, the launcher answered {} #{s}",
            op.name(),
            o.name()
        ))),
        Msg::Aborted { status, reason } => Err(BootError::Aborted { status, reason }),
        other => Err(unexpected(&other, "a collective result")),
    }
}

fn unexpected(m: &Msg, wanted: &str) -> BootError {
    BootError::Protocol(format!(
        "expected {wanted} from the launcher, got a {} message",
        m.kind()
    ))
}

#[cfg(test)]
mod tests;
