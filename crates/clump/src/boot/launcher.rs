//! Joining a job `clump run` started: hello and welcome over the launcher's Unix socket
//! (`CLUMP_BOOT_SOCKET`), then each collective as an `Enter` answered by a `Done`.

use super::conn::Conn;
use super::frame::{Msg, Op};
use super::BootError;
use std::time::Duration;

/// How long `abort` and `owe` try to hand their frame to the launcher.
const SEND_TIMEOUT: Duration = Duration::from_secs(1);

pub(super) struct Launcher {
    conn: Conn,
}

impl Launcher {
    /// Connects and says hello; waits for the welcome while the launcher is silent for
    /// less than `timeout` (a launcher starting a thousand ranks answers late, not never).
    pub fn join(
        path: &str,
        rank: u32,
        size: u32,
        job_id: u64,
        timeout: Duration,
    ) -> Result<Launcher, BootError> {
        let mut conn = Conn::connect(path, size).map_err(|source| BootError::Connect {
            path: path.to_owned(),
            source,
        })?;
        let hello = Msg::Hello {
            rank,
            job_id,
            pid: std::process::id(),
        };
        conn.send_within(&hello.encode(), timeout)?;
        match conn.recv_within(timeout)? {
            Msg::Welcome { size: s } if s == size => {
                super::watch::open(path, rank, job_id);
                Ok(Launcher { conn })
            }
            Msg::Welcome { size: s } => Err(BootError::Protocol(format!(
                "launcher runs a job of {s} processes but CLUMP_SIZE is {size}"
            ))),
            Msg::Aborted { status, reason } => Err(BootError::Aborted { status, reason }),
            other => Err(unexpected(&other, "a welcome")),
        }
    }

    pub fn abort(&mut self, rank: u32, status: i32, reason: &str) {
        let frame = Msg::Abort {
            status,
            reason: reason.to_owned(),
        }
        .encode();
        if let Err(e) = self.conn.send_within(&frame, SEND_TIMEOUT) {
            eprintln!("clump: rank {rank} could not ask the launcher to abort ({e}): {reason}");
        }
    }

    /// Tells the launcher this process must call `call` before it exits ("": nothing).
    pub fn owe(&mut self, call: &str) -> Result<(), BootError> {
        let frame = Msg::Owes {
            call: call.to_owned(),
        };
        self.conn.send_within(&frame.encode(), SEND_TIMEOUT)
    }

    pub fn exchange(
        &mut self,
        seq: u32,
        op: Op,
        mine: &[u8],
        size: u32,
        progress: &mut dyn FnMut(),
    ) -> Result<Vec<Vec<u8>>, BootError> {
        let conn = &mut self.conn;
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
}

fn unexpected(m: &Msg, wanted: &str) -> BootError {
    BootError::Protocol(format!(
        "expected {wanted} from the launcher, got a {} message",
        m.kind()
    ))
}
