//! PMI-2 over its wire protocol, as Slurm's `srun --mpi=pmi2` serves it on the
//! descriptor `PMI_FD`. Written here rather than linked: the protocol is a handful of
//! commands, and a build must not need Slurm's libpmi2.
//!
//! After a PMI-1 style `cmd=init` line, every command and answer is a 6-character
//! decimal length followed by `key=value;` pairs (a `;` inside a value is doubled).

use super::conn::{long_nap_for, wait_fd, NapCap};
use super::kvs::Manager;
use super::mapping::nodes_of_ranks;
use super::{BootError, Locality};
use std::fs::File;
use std::io::{Read, Write};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, RawFd};
use std::time::{Duration, Instant};

const NAME: &str = "PMI-2";
/// Longest answer accepted (Slurm's values are at most 1024 characters).
const MAX_ANSWER: usize = 64 * 1024;
pub(super) struct Pmi2 {
    fd: File,
    rank: u32,
    size: u32,
    /// Silence allowed while start-up waits for an answer.
    timeout: Duration,
}

impl Pmi2 {
    /// Takes over `PMI_FD` and runs the init and fullinit exchange.
    pub fn init(timeout: Duration) -> Result<Box<dyn Manager>, BootError> {
        let var = |name| std::env::var(name).unwrap_or_default();
        Pmi2::over(pmi_fd()?, &var("PMI_JOBID"), &var("PMI_RANK"), timeout)
    }

    /// Runs the init and fullinit exchange on `fd`, naming this process to the manager
    /// by the job id and rank it gave (Slurm refuses a fullinit without them).
    fn over(
        fd: File,
        pmi_jobid: &str,
        pmi_rank: &str,
        timeout: Duration,
    ) -> Result<Box<dyn Manager>, BootError> {
        let mut me = Pmi2 {
            fd,
            rank: 0,
            size: 0,
            timeout,
        };
        me.fd
            .write_all(b"cmd=init pmi_version=2 pmi_subversion=0\n")
            .map_err(|e| me.fail(format!("cannot write to PMI_FD: {e}")))?;
        let line = me.read_init_line()?;
        let fields = parse_line(&line);
        if field(&fields, "cmd") != Some("response_to_init") || field(&fields, "rc") != Some("0") {
            return Err(me.fail(format!("the process manager refused PMI-2: {line:?}")));
        }
        let answer = me.command(
            &format!(
                "cmd=fullinit;pmijobid={};pmirank={};threaded=FALSE;",
                escape(pmi_jobid),
                escape(pmi_rank)
            ),
            "fullinit-response",
            Some(timeout),
            &mut || {},
        )?;
        me.rank = me.number(&answer, "rank")?;
        me.size = me.number(&answer, "size")?;
        Ok(Box::new(me))
    }

    fn fail(&self, what: String) -> BootError {
        BootError::Manager {
            manager: NAME,
            what,
        }
    }

    fn number(&self, fields: &[(String, String)], key: &str) -> Result<u32, BootError> {
        field(fields, key)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| self.fail(format!("fullinit answered without a valid {key}")))
    }

    /// Sends one command and returns its answer's fields, which must be `want` with
    /// rc=0. `timeout` bounds the manager's silence.
    fn command(
        &mut self,
        body: &str,
        want: &str,
        timeout: Option<Duration>,
        progress: &mut dyn FnMut(),
    ) -> Result<Vec<(String, String)>, BootError> {
        let frame = format!("{:<6}{body}", body.len());
        self.fd
            .write_all(frame.as_bytes())
            .map_err(|e| self.fail(format!("the process manager went away: {e}")))?;
        let mut head = [0u8; 6];
        self.read_exact_within(&mut head, timeout, progress)?;
        let len: usize = std::str::from_utf8(&head)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .filter(|&n| n <= MAX_ANSWER)
            .ok_or_else(|| self.fail(format!("bad answer length {head:?}")))?;
        let mut answer = vec![0u8; len];
        self.read_exact_within(&mut answer, timeout, progress)?;
        let text = String::from_utf8_lossy(&answer);
        let fields = parse_fields(&text);
        if field(&fields, "cmd") != Some(want) {
            return Err(self.fail(format!("expected {want}, got {text:?}")));
        }
        if field(&fields, "rc") != Some("0") {
            let why = field(&fields, "errmsg").unwrap_or("no reason given");
            return Err(self.fail(format!("{want}: {why}")));
        }
        Ok(fields)
    }

    fn read_init_line(&mut self) -> Result<String, BootError> {
        let mut line = Vec::new();
        let mut byte = [0u8; 1];
        while byte[0] != b'\n' {
            self.read_exact_within(&mut byte, Some(self.timeout), &mut || {})?;
            line.push(byte[0]);
            if line.len() > MAX_ANSWER {
                return Err(self.fail("init answer without an end of line".into()));
            }
        }
        Ok(String::from_utf8_lossy(&line).trim().to_owned())
    }

    /// Fills `buf`, giving up once the manager has been silent for `timeout`; calls
    /// `progress` between naps while nothing comes: at most 1 ms, longer in a long wait
    /// of a job with more processes than cores (as under the launcher).
    fn read_exact_within(
        &mut self,
        buf: &mut [u8],
        timeout: Option<Duration>,
        progress: &mut dyn FnMut(),
    ) -> Result<(), BootError> {
        let mut got = 0;
        let mut last = Instant::now();
        let long_nap = long_nap_for(self.size);
        while got < buf.len() {
            let naps = NapCap::new(long_nap);
            while !readable(&self.fd) {
                if let Some(t) = timeout.filter(|&t| last.elapsed() >= t) {
                    return Err(self.fail(format!(
                        "the process manager said nothing for {}s (CLUMP_BOOT_TIMEOUT): a rank \
                         of the job has not reached start-up",
                        t.as_secs()
                    )));
                }
                progress();
                wait_fd(self.fd.as_raw_fd(), libc::POLLIN, naps.cap());
            }
            match self.fd.read(&mut buf[got..]) {
                Ok(0) => return Err(self.fail("the process manager closed PMI_FD".into())),
                Ok(n) => {
                    got += n;
                    last = Instant::now();
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.fail(format!("cannot read PMI_FD: {e}"))),
            }
        }
        Ok(())
    }
}

impl Manager for Pmi2 {
    fn rank(&self) -> u32 {
        self.rank
    }

    fn size(&self) -> u32 {
        self.size
    }

    fn locality(&mut self) -> Result<Locality, BootError> {
        let answer = self.command(
            "cmd=info-getjobattr;key=PMI_process_mapping;",
            "info-getjobattr-response",
            Some(self.timeout),
            &mut || {},
        )?;
        if field(&answer, "found") != Some("TRUE") {
            return Err(self.fail("the process manager gives no PMI_process_mapping".into()));
        }
        let text = field(&answer, "value").unwrap_or("");
        let nodes = nodes_of_ranks(text, self.size)
            .ok_or_else(|| self.fail(format!("unreadable PMI_process_mapping {text:?}")))?;
        let mut distinct = nodes.clone();
        distinct.sort_unstable();
        distinct.dedup();
        Ok(Locality {
            node: nodes[self.rank as usize],
            nodes: distinct.len() as u32,
        })
    }

    fn put(&mut self, key: &str, value: &str) -> Result<(), BootError> {
        let body = format!("cmd=kvs-put;key={};value={};", escape(key), escape(value));
        self.command(&body, "kvs-put-response", None, &mut || {})
            .map(drop)
    }

    fn commit(&mut self) -> Result<(), BootError> {
        Ok(())
    }

    fn fence(
        &mut self,
        timeout: Option<Duration>,
        progress: &mut dyn FnMut(),
    ) -> Result<(), BootError> {
        self.command("cmd=kvs-fence;", "kvs-fence-response", timeout, progress)
            .map(drop)
    }

    fn gets_wait_for_keys(&self) -> bool {
        false
    }

    fn get(
        &mut self,
        rank: u32,
        key: &str,
        timeout: Option<Duration>,
        progress: &mut dyn FnMut(),
    ) -> Result<String, BootError> {
        let body = format!("cmd=kvs-get;jobid=;srcid={rank};key={};", escape(key));
        let answer = self.command(&body, "kvs-get-response", timeout, progress)?;
        match (field(&answer, "found"), field(&answer, "value")) {
            (Some("TRUE"), Some(v)) => Ok(v.to_owned()),
            _ => Err(self.fail(format!(
                "rank {rank} never published {key} (it has not reached start-up, or \
                 did not join through PMI-2)"
            ))),
        }
    }

    fn abort(&mut self, status: i32, reason: &str) {
        let body = format!(
            "cmd=abort;isworld=TRUE;msg={};",
            escape(&format!("rank {} (status {status}): {reason}", self.rank))
        );
        let frame = format!("{:<6}{body}", body.len());
        // No answer comes: the manager ends the job.
        let _ = self.fd.write_all(frame.as_bytes());
    }

    fn finalize(&mut self) {
        let _ = self.command(
            "cmd=finalize;",
            "finalize-response",
            Some(self.timeout),
            &mut || {},
        );
    }
}

/// The descriptor `PMI_FD` names, checked to be open before it is owned.
fn pmi_fd() -> Result<File, BootError> {
    let fail = |what: String| BootError::Manager {
        manager: NAME,
        what,
    };
    let text = std::env::var("PMI_FD")
        .map_err(|_| fail("PMI_FD is not set: start the job with `srun --mpi=pmi2`".into()))?;
    let fd: RawFd = text
        .trim()
        .parse()
        .ok()
        .filter(|&fd| fd >= 0)
        .ok_or_else(|| fail(format!("PMI_FD={text:?} is not a descriptor number")))?;
    if std::fs::symlink_metadata(format!("/proc/self/fd/{fd}")).is_err() {
        return Err(fail(format!(
            "PMI_FD={fd} is not an open descriptor: the process manager is missing"
        )));
    }
    // SAFETY: the process manager hands descriptor `fd` to this process for PMI alone;
    // it is open (checked above) and nothing else in the process uses it.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Whether a read on `fd` would not block now.
fn readable(fd: &File) -> bool {
    let mut pfd = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
    poll(&mut pfd, PollTimeout::ZERO).is_ok_and(|n| n > 0)
}

fn escape(s: &str) -> String {
    s.replace(';', ";;")
}

/// `key=value;` pairs, with `;;` standing for a `;` inside a value.
fn parse_fields(text: &str) -> Vec<(String, String)> {
    let mut fields = Vec::new();
    let mut chars = text.chars().peekable();
    let (mut key, mut value, mut in_value) = (String::new(), String::new(), false);
    while let Some(c) = chars.next() {
        match c {
            ';' if chars.peek() == Some(&';') => {
                chars.next();
                if in_value { &mut value } else { &mut key }.push(';');
            }
            ';' => {
                fields.push((std::mem::take(&mut key), std::mem::take(&mut value)));
                in_value = false;
            }
            '=' if !in_value => in_value = true,
            c => if in_value { &mut value } else { &mut key }.push(c),
        }
    }
    if !key.is_empty() {
        fields.push((key, value));
    }
    fields
}

/// The PMI-1 style `key=value key=value` line of the init answer.
fn parse_line(line: &str) -> Vec<(String, String)> {
    line.split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

fn field<'a>(fields: &'a [(String, String)], key: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boot::Member;
    use std::collections::HashMap;
    use std::os::unix::net::UnixStream;
    use std::sync::{Arc, Barrier, Mutex};

    /// The manager's side of one process's PMI_FD: a scripted PMI-2 server sharing its
    /// store and fence with the other processes' servers, as slurmstepd does.
    fn serve(
        mut s: UnixStream,
        rank: u32,
        size: u32,
        store: Arc<Mutex<HashMap<String, String>>>,
        fence: Arc<Barrier>,
        answer_fences: bool,
    ) {
        let mut line = Vec::new();
        let mut b = [0u8; 1];
        while b[0] != b'\n' {
            s.read_exact(&mut b).unwrap();
            line.push(b[0]);
        }
        assert!(String::from_utf8_lossy(&line).starts_with("cmd=init pmi_version=2"));
        s.write_all(b"cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n")
            .unwrap();
        loop {
            let mut head = [0u8; 6];
            if s.read_exact(&mut head).is_err() {
                return; // the process is gone
            }
            let len: usize = std::str::from_utf8(&head).unwrap().trim().parse().unwrap();
            let mut body = vec![0u8; len];
            s.read_exact(&mut body).unwrap();
            let f = parse_fields(&String::from_utf8(body).unwrap());
            let answer = match field(&f, "cmd").unwrap() {
                "fullinit" => {
                    assert_eq!(field(&f, "pmijobid"), Some("7.0"));
                    assert_eq!(field(&f, "pmirank"), Some(rank.to_string().as_str()));
                    format!("cmd=fullinit-response;rc=0;rank={rank};size={size};appnum=0;")
                }
                "info-getjobattr" => format!(
                    "cmd=info-getjobattr-response;rc=0;found=TRUE;value=(vector,(0,1,{size}));"
                ),
                "kvs-put" => {
                    let (k, v) = (field(&f, "key").unwrap(), field(&f, "value").unwrap());
                    store.lock().unwrap().insert(k.into(), v.into());
                    "cmd=kvs-put-response;rc=0;".into()
                }
                "kvs-fence" if !answer_fences => continue,
                "kvs-fence" => {
                    fence.wait();
                    "cmd=kvs-fence-response;rc=0;".into()
                }
                "kvs-get" => match store.lock().unwrap().get(field(&f, "key").unwrap()) {
                    Some(v) => format!("cmd=kvs-get-response;rc=0;found=TRUE;value={};", escape(v)),
                    None => "cmd=kvs-get-response;rc=0;found=FALSE;".into(),
                },
                "finalize" => "cmd=finalize-response;rc=0;".into(),
                other => panic!("unexpected command {other}"),
            };
            s.write_all(format!("{:<6}{answer}", answer.len()).as_bytes())
                .unwrap();
        }
    }

    /// Runs `body` as every rank of a job of `size` under the scripted server.
    fn job_of<T: Send + 'static>(
        size: u32,
        answer_fences: bool,
        timeout: Duration,
        body: impl Fn(Result<Member, BootError>) -> T + Send + Sync + 'static,
    ) -> Vec<T> {
        let store = Arc::default();
        let fence = Arc::new(Barrier::new(size as usize));
        let body = Arc::new(body);
        let ranks: Vec<_> = (0..size)
            .map(|rank| {
                let (mine, theirs) = UnixStream::pair().unwrap();
                let (store, fence) = (Arc::clone(&store), Arc::clone(&fence));
                std::thread::spawn(move || serve(theirs, rank, size, store, fence, answer_fences));
                let body = Arc::clone(&body);
                std::thread::spawn(move || {
                    let config = crate::config::JobConfig {
                        boot_timeout: timeout,
                        ..crate::config::Config::default().job
                    };
                    let joined = Pmi2::over(
                        File::from(std::os::fd::OwnedFd::from(mine)),
                        "7.0",
                        &rank.to_string(),
                        timeout,
                    )
                    .and_then(|m| Member::with_manager(&config, m));
                    body(joined)
                })
            })
            .collect();
        ranks.into_iter().map(|t| t.join().unwrap()).collect()
    }

    #[test]
    fn ranks_join_agree_on_a_job_id_and_allgather() {
        let results = job_of(3, true, Duration::from_secs(30), |joined| {
            let mut job = joined.unwrap();
            let rank = job.rank();
            let mine = vec![rank as u8; 500 * rank as usize]; // 0, 1 and 3 chunks
            let all = job.allgather(&mine, &mut || {}).unwrap();
            job.barrier(&mut || {}).unwrap();
            let loc = job.locality().unwrap();
            // Endpoints get the job's id and, on one node, no network.
            let mut c = crate::config::Config::default();
            job.adapt(&mut c);
            assert_eq!(
                (c.job.job_id, c.host, c.net.enabled),
                (job.job_id(), 0, false)
            );
            (rank, job.size(), job.job_id(), all, (loc.node, loc.nodes))
        });
        let job_id = results[0].2;
        for (rank, size, id, all, loc) in results {
            assert_eq!((size, id, loc), (3, job_id, (0, 1)), "rank {rank}");
            for (r, part) in all.iter().enumerate() {
                assert_eq!(*part, vec![r as u8; 500 * r], "rank {rank} got rank {r}'s");
            }
        }
    }

    #[test]
    fn a_fence_the_manager_never_answers_times_out_clearly() {
        let results = job_of(2, false, Duration::from_secs(1), |joined| {
            joined.err().map(|e| e.to_string())
        });
        for e in results {
            let e = e.expect("joining must fail");
            assert!(
                e.contains("PMI-2") && e.contains("CLUMP_BOOT_TIMEOUT"),
                "{e}"
            );
        }
    }

    #[test]
    fn fields_and_escapes_are_read() {
        let f = parse_fields("cmd=kvs-get-response;rc=0;found=TRUE;value=a;;b=c;");
        assert_eq!(field(&f, "cmd"), Some("kvs-get-response"));
        assert_eq!(field(&f, "value"), Some("a;b=c"));
        assert_eq!(field(&f, "found"), Some("TRUE"));
        assert_eq!(field(&f, "missing"), None);
        assert_eq!(escape("x;y"), "x;;y");
        let l = parse_line("cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0");
        assert_eq!(field(&l, "rc"), Some("0"));
    }
}
