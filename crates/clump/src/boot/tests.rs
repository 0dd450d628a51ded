//! Job against a scripted fake launcher on a real Unix socket.

use super::frame::{FrameReader, Msg, Op, MAX_CONTRIBUTION, MAX_REQUEST_BODY};
use super::{BootError, Job};
use crate::config::{BootMode, JobConfig};
use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

struct Fake {
    dir: PathBuf,
    path: String,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Fake {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            let panicked = t.join().is_err();
            let _ = std::fs::remove_dir_all(&self.dir);
            assert!(
                !panicked || std::thread::panicking(),
                "fake launcher panicked"
            );
        }
    }
}

/// A launcher that accepts one connection and runs `script` on it.
fn fake(script: impl FnOnce(&mut Peer) + Send + 'static) -> Fake {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "clump-boot-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("boot.sock");
    let listener = UnixListener::bind(&path).unwrap();
    let thread = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        script(&mut Peer {
            stream,
            reader: FrameReader::new(MAX_REQUEST_BODY),
        });
    });
    Fake {
        dir,
        path: path.to_str().unwrap().to_owned(),
        thread: Some(thread),
    }
}

struct Peer {
    stream: UnixStream,
    reader: FrameReader,
}

impl Peer {
    fn recv(&mut self) -> Msg {
        let mut buf = [0u8; 4096];
        loop {
            if let Some(m) = self.reader.next_msg().unwrap() {
                return m;
            }
            let n = self.stream.read(&mut buf).unwrap();
            assert!(n > 0, "client closed");
            self.reader.extend(&buf[..n]);
        }
    }
    fn send(&mut self, m: Msg) {
        self.stream.write_all(&m.encode()).unwrap();
    }
    /// Expects the hello and welcomes a job of `size`.
    fn welcome(&mut self, size: u32) {
        assert!(matches!(
            self.recv(),
            Msg::Hello {
                rank: 1,
                job_id: 77,
                ..
            }
        ));
        self.send(Msg::Welcome { size });
    }
}

fn job_config(rank: u32, size: u32, path: Option<&str>, job_id: u64) -> JobConfig {
    JobConfig {
        rank,
        size,
        boot_socket: path.map(str::to_owned),
        job_id,
        ..crate::config::Config::default().job
    }
}

fn config(path: Option<&str>) -> JobConfig {
    job_config(1, 2, path, 77)
}

#[test]
fn a_job_of_one_needs_no_launcher() {
    let mut job = Job::from_config(&job_config(0, 1, None, 5)).unwrap();
    assert_eq!((job.rank(), job.size(), job.job_id()), (0, 1, 5));
    assert_eq!(
        job.allgather(b"me", &mut || {}).unwrap(),
        vec![b"me".to_vec()]
    );
    job.barrier(&mut || {}).unwrap();
}

#[test]
fn bad_configurations_are_clear_errors() {
    let e = Job::from_config(&config(None)).err().unwrap();
    assert!(
        matches!(e, BootError::Config(_))
            && e.to_string()
                .contains("start the job with `clump run`, `srun"),
        "{e}"
    );
    // A forced service that is not there is named, not a hang or a job of one.
    let forced = |boot| {
        let mut c = config(None);
        c.boot = boot;
        Job::from_config(&c).err().unwrap().to_string()
    };
    assert!(forced(BootMode::Clump).contains("CLUMP_BOOT_SOCKET is unset"));
    if std::env::var_os("PMI_FD").is_none() {
        let e = forced(BootMode::Pmi2);
        assert!(
            e.contains("PMI-2") && e.contains("PMI_FD is not set"),
            "{e}"
        );
    }
    let e = Job::from_config(&config(Some("/nonexistent/clump.sock")))
        .err()
        .unwrap();
    assert!(matches!(e, BootError::Connect { .. }), "{e}");
    assert!(e.to_string().contains("/nonexistent/clump.sock"), "{e}");
}

#[test]
fn collectives_run_in_sequence_and_call_progress_while_waiting() {
    let f = fake(|p| {
        p.welcome(2);
        assert_eq!(
            p.recv(),
            Msg::Enter {
                seq: 1,
                op: Op::Allgather,
                data: b"one".to_vec()
            }
        );
        std::thread::sleep(Duration::from_millis(30));
        p.send(Msg::Done {
            seq: 1,
            op: Op::Allgather,
            parts: vec![b"zero".to_vec(), b"one".to_vec()],
        });
        assert_eq!(
            p.recv(),
            Msg::Enter {
                seq: 2,
                op: Op::Barrier,
                data: vec![]
            }
        );
        p.send(Msg::Done {
            seq: 2,
            op: Op::Barrier,
            parts: vec![],
        });
    });
    let mut job = Job::from_config(&config(Some(&f.path))).unwrap();
    let mut calls = 0u32;
    let all = job.allgather(b"one", &mut || calls += 1).unwrap();
    assert_eq!(all, vec![b"zero".to_vec(), b"one".to_vec()]);
    // 30 ms of waiting with naps of at most 1 ms: progress ran often, but not in a hot spin.
    assert!((10..5000).contains(&calls), "progress called {calls} times");
    job.barrier(&mut || {}).unwrap();
}

#[test]
fn a_wrong_sequence_number_is_a_protocol_error_and_the_job_stays_unusable() {
    let f = fake(|p| {
        p.welcome(2);
        p.recv();
        p.send(Msg::Done {
            seq: 9,
            op: Op::Barrier,
            parts: vec![],
        });
    });
    let mut job = Job::from_config(&config(Some(&f.path))).unwrap();
    let e = job.barrier(&mut || {}).unwrap_err();
    assert!(
        matches!(e, BootError::Protocol(_)) && e.to_string().contains("#9"),
        "{e}"
    );
    assert!(matches!(
        job.barrier(&mut || {}),
        Err(BootError::Unusable(_))
    ));
}

#[test]
fn a_wrong_number_of_contributions_is_a_protocol_error() {
    let f = fake(|p| {
        p.welcome(2);
        p.recv();
        p.send(Msg::Done {
            seq: 1,
            op: Op::Allgather,
            parts: vec![vec![1]],
        });
    });
    let mut job = Job::from_config(&config(Some(&f.path))).unwrap();
    assert!(matches!(
        job.allgather(&[1], &mut || {}),
        Err(BootError::Protocol(_))
    ));
}

#[test]
fn an_oversized_frame_from_the_launcher_is_a_protocol_error() {
    let f = fake(|p| {
        p.welcome(2);
        p.recv();
        p.stream.write_all(&u32::MAX.to_le_bytes()).unwrap();
    });
    let mut job = Job::from_config(&config(Some(&f.path))).unwrap();
    let e = job.barrier(&mut || {}).unwrap_err();
    assert!(
        matches!(e, BootError::Protocol(_)) && e.to_string().contains("exceeds"),
        "{e}"
    );
}

#[test]
fn a_truncated_frame_then_close_is_a_protocol_error() {
    let f = fake(|p| {
        p.welcome(2);
        p.recv();
        let done = Msg::Done {
            seq: 1,
            op: Op::Barrier,
            parts: vec![],
        }
        .encode();
        p.stream.write_all(&done[..done.len() - 1]).unwrap();
    });
    let mut job = Job::from_config(&config(Some(&f.path))).unwrap();
    let e = job.barrier(&mut || {}).unwrap_err();
    assert!(matches!(e, BootError::Protocol(_)), "{e}");
}

#[test]
fn a_launcher_that_goes_away_is_reported() {
    let f = fake(|p| {
        p.welcome(2);
        p.recv();
    });
    let mut job = Job::from_config(&config(Some(&f.path))).unwrap();
    let e = job.barrier(&mut || {}).unwrap_err();
    assert!(matches!(e, BootError::LauncherGone(_)), "{e}");
}

#[test]
fn an_abort_from_the_launcher_carries_its_reason() {
    let f = fake(|p| {
        p.welcome(2);
        p.recv();
        p.send(Msg::Aborted {
            status: 4,
            reason: "rank 0 failed".into(),
        });
    });
    let mut job = Job::from_config(&config(Some(&f.path))).unwrap();
    let e = job.barrier(&mut || {}).unwrap_err();
    assert!(matches!(e, BootError::Aborted { status: 4, .. }), "{e}");
    assert!(e.to_string().contains("rank 0 failed"), "{e}");
}

#[test]
fn joining_checks_the_job_size() {
    let f = fake(|p| p.welcome(3));
    let e = Job::from_config(&config(Some(&f.path))).err().unwrap();
    assert!(
        matches!(e, BootError::Protocol(_)) && e.to_string().contains('3'),
        "{e}"
    );
}

#[test]
fn abort_sends_status_and_reason() {
    let f = fake(|p| {
        p.welcome(2);
        assert_eq!(
            p.recv(),
            Msg::Abort {
                status: 6,
                reason: "out of cheese".into()
            }
        );
    });
    let mut job = Job::from_config(&config(Some(&f.path))).unwrap();
    job.abort(6, "out of cheese");
    assert!(matches!(
        job.barrier(&mut || {}),
        Err(BootError::Unusable(_))
    ));
}

#[test]
fn an_oversized_contribution_is_refused_locally() {
    let mut job = Job::from_config(&job_config(0, 1, None, 1)).unwrap();
    let big = vec![0u8; MAX_CONTRIBUTION + 1];
    assert!(matches!(
        job.allgather(&big, &mut || {}),
        Err(BootError::TooLarge { .. })
    ));
}

#[test]
fn a_slow_launcher_is_waited_for_and_a_silent_one_is_not() {
    // The welcome trickles in over longer than the timeout, each byte well within it.
    let f = fake(|p| {
        p.recv();
        for b in (Msg::Welcome { size: 2 }).encode() {
            std::thread::sleep(Duration::from_millis(150));
            p.stream.write_all(&[b]).unwrap();
        }
        let mut b = [0u8; 1];
        let _ = p.stream.read(&mut b); // holds the connection until the process closes it
    });
    let mut c = config(Some(&f.path));
    c.boot_timeout = Duration::from_millis(500);
    drop(Job::from_config(&c).unwrap());
    // A launcher that accepts and then says nothing.
    let f = fake(|p| {
        p.recv();
        let mut b = [0u8; 1];
        let _ = p.stream.read(&mut b); // until the process gives up and closes
    });
    let mut c = config(Some(&f.path));
    c.boot_timeout = Duration::from_secs(1);
    let e = Job::from_config(&c).err().unwrap();
    assert!(
        matches!(e, BootError::LauncherGone(_)) && e.to_string().contains("said nothing for 1s"),
        "{e}"
    );
}
