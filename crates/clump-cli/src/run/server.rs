//! The bootstrap server: accepts the ranks' connections and serves their collectives.
//!
//! Poll-driven and single-threaded: it only acts when poll(2) reports a socket ready, so
//! waiting ranks cost it nothing. Sockets are nonblocking and every reply is queued per
//! connection, so one slow reader never stalls the others. A collective completes when
//! every rank has entered it; its result is encoded once and shared by all queues.
//!
//! A rank may open a second connection, its liveness watch (`Watch`): it beats while it
//! polls the network, asks about a silent peer (alive and polling, alive and quiet, or
//! gone), and hears at once when another rank's process has exited.

use clump::boot::frame::{FrameReader, Msg, Op, PeerState, MAX_GATHER_TOTAL, MAX_REQUEST_BODY};
use std::collections::VecDeque;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Something the launcher must act on.
#[derive(Debug)]
pub enum Event {
    /// A rank called `Job::abort`.
    Abort {
        rank: u32,
        status: i32,
        reason: String,
    },
    /// A rank broke the protocol; the job cannot go on.
    Fault { rank: u32, what: String },
}

/// A collective some ranks wait in while others have not entered it.
pub struct Stalled {
    pub op: Op,
    pub seq: u32,
    pub waiting: Vec<u32>,
    pub missing: Vec<u32>,
}

struct Conn {
    stream: UnixStream,
    reader: FrameReader,
    /// Frames to send and how much of the first one went out already.
    out: VecDeque<Rc<[u8]>>,
    sent: usize,
}

enum Slot {
    NotYet,
    Open(Conn),
    Closed(Instant),
}

/// What one polled descriptor is.
#[derive(Clone, Copy)]
pub enum Token {
    Listener,
    Fresh(usize),
    Rank(u32),
    Watch(usize),
}

/// What the launcher knows of each rank's liveness.
#[derive(Clone, Default)]
struct Life {
    /// Its process id, as its hello said.
    pid: Option<u32>,
    exited: bool,
    /// Its last beat.
    beat: Option<Instant>,
    /// The call it said it must make before it exits (`MPI_Finalize`), until it made it.
    owes: Option<String>,
}

struct Collective {
    seq: u32,
    op: Option<(Op, u32)>,
    parts: Vec<Option<Vec<u8>>>,
    arrived: u32,
    total: usize,
}

pub struct Server {
    listener: UnixListener,
    job_id: u64,
    /// Connections that have not said hello yet.
    fresh: Vec<Option<Conn>>,
    ranks: Vec<Slot>,
    coll: Collective,
    lives: Vec<Life>,
    /// Liveness connections, with the rank each watches for.
    watches: Vec<Option<(u32, Conn)>>,
}

impl Server {
    pub fn new(listener: UnixListener, size: u32, job_id: u64) -> std::io::Result<Server> {
        listener.set_nonblocking(true)?;
        Ok(Server {
            listener,
            job_id,
            fresh: Vec::new(),
            ranks: (0..size).map(|_| Slot::NotYet).collect(),
            coll: Collective {
                seq: 1,
                op: None,
                parts: vec![None; size as usize],
                arrived: 0,
                total: 0,
            },
            lives: vec![Life::default(); size as usize],
            watches: Vec::new(),
        })
    }

    /// The descriptors to poll, each with whether to wait for it to be writable, and what
    /// each is; [`Server::handle`] takes the tokens back with what poll found ready.
    pub fn interests(&self) -> (Vec<(BorrowedFd<'_>, bool)>, Vec<Token>) {
        let mut wanted = vec![(self.listener.as_fd(), false)];
        let mut tokens = vec![Token::Listener];
        let conns = (self.fresh.iter().enumerate())
            .filter_map(|(i, c)| Some((c.as_ref()?, Token::Fresh(i))))
            .chain(self.ranks.iter().enumerate().filter_map(|(r, s)| match s {
                Slot::Open(c) => Some((c, Token::Rank(r as u32))),
                _ => None,
            }))
            .chain(self.watches.iter().enumerate().filter_map(|(i, w)| {
                let (_, c) = w.as_ref()?;
                Some((c, Token::Watch(i)))
            }));
        for (c, t) in conns {
            wanted.push((c.stream.as_fd(), c.wants_to_write()));
            tokens.push(t);
        }
        (wanted, tokens)
    }

    /// Serves whatever poll(2) reported ready in `fds` (as filled by `fill_fds`).
    pub fn handle(&mut self, tokens: &[Token], ready: &[bool]) -> Vec<Event> {
        let mut events = Vec::new();
        for (&t, _) in tokens.iter().zip(ready).filter(|(_, r)| **r) {
            match t {
                Token::Listener => self.accept(),
                Token::Fresh(i) => self.serve_fresh(i, &mut events),
                Token::Rank(r) => self.serve_rank(r, &mut events),
                Token::Watch(i) => self.serve_watch(i),
            }
        }
        self.fresh.retain(Option::is_some);
        self.watches.retain(Option::is_some);
        events
    }

    /// `rank`'s process has exited: every watching rank hears it now.
    pub fn rank_exited(&mut self, rank: u32) {
        let life = &mut self.lives[rank as usize];
        if life.exited {
            return;
        }
        life.exited = true;
        let Some(pid) = life.pid else {
            return;
        };
        let frame: Rc<[u8]> = Msg::Died { pid }.encode().into();
        for (_, conn) in self.watches.iter_mut().flatten() {
            conn.queue(frame.clone());
            let _ = conn.flush(); // the rest goes when poll(2) says the socket has room
        }
    }

    /// Beats and questions of a liveness connection.
    fn serve_watch(&mut self, i: usize) {
        loop {
            let Some((rank, conn)) = self.watches[i].as_mut() else {
                return;
            };
            let rank = *rank;
            if conn.flush().is_err() {
                self.watches[i] = None;
                return;
            }
            match conn.read() {
                Ok(None) => return,
                Ok(Some(Msg::Beat)) => self.lives[rank as usize].beat = Some(Instant::now()),
                Ok(Some(Msg::Ask { pid, within_ms })) => {
                    let state = self.state_of(pid, Duration::from_millis(within_ms.into()));
                    let answer = Msg::Status { pid, state }.encode().into();
                    if let Some((_, conn)) = self.watches[i].as_mut() {
                        conn.queue(answer);
                    }
                }
                // Anything else, or a closed or broken connection: the watch ends; the
                // rank's own connection says whether it is still in the job.
                _ => {
                    self.watches[i] = None;
                    return;
                }
            }
        }
    }

    /// What the launcher knows of the process `pid` of this job.
    fn state_of(&self, pid: u32, within: Duration) -> PeerState {
        let Some(life) = self.lives.iter().find(|l| l.pid == Some(pid)) else {
            return PeerState::Unknown;
        };
        if life.exited {
            PeerState::Gone
        } else if life.beat.is_some_and(|t| t.elapsed() <= within) {
            PeerState::Polling
        } else {
            PeerState::Quiet
        }
    }

    /// Serves whatever is ready now, without waiting.
    pub fn serve_now(&mut self) -> Vec<Event> {
        let (wanted, tokens) = self.interests();
        match super::sys::poll(&wanted, std::time::Duration::ZERO) {
            Ok(ready) => self.handle(&tokens, &ready),
            Err(_) => Vec::new(), // the supervisor's own poll reports a lasting failure
        }
    }

    /// Reads what `rank` sent before it exited (an abort request, say).
    pub fn drain_rank(&mut self, rank: u32) -> Vec<Event> {
        let mut events = Vec::new();
        if matches!(self.ranks[rank as usize], Slot::Open(_)) {
            self.serve_rank(rank, &mut events);
        }
        events
    }

    /// The collective in progress, if some rank waits in it.
    pub fn stalled(&self) -> Option<Stalled> {
        let (op, _) = self.coll.op?;
        let (waiting, missing) =
            (0..self.ranks.len() as u32).partition(|&r| self.coll.parts[r as usize].is_some());
        Some(Stalled {
            op,
            seq: self.coll.seq,
            waiting,
            missing,
        })
    }

    /// The call `rank` said it must make before it exits and has not made yet.
    pub fn owed(&self, rank: u32) -> Option<&str> {
        self.lives[rank as usize].owes.as_deref()
    }

    /// Whether `rank` has said hello (it may have left since).
    pub fn joined(&self, rank: u32) -> bool {
        !matches!(self.ranks[rank as usize], Slot::NotYet)
    }

    /// When `rank` closed its connection, if it did.
    pub fn closed_since(&self, rank: u32) -> Option<Instant> {
        match self.ranks[rank as usize] {
            Slot::Closed(t) => Some(t),
            _ => None,
        }
    }

    fn accept(&mut self) {
        loop {
            match self.listener.accept() {
                Ok((stream, _)) => {
                    if stream.set_nonblocking(true).is_ok() {
                        let reader = FrameReader::new(MAX_REQUEST_BODY);
                        self.fresh.push(Some(Conn {
                            stream,
                            reader,
                            out: VecDeque::new(),
                            sent: 0,
                        }));
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return, // WouldBlock, or a transient failure such as EMFILE
            }
        }
    }

    /// A connection's first frame must be a valid hello for a rank not yet connected.
    fn serve_fresh(&mut self, i: usize, events: &mut Vec<Event>) {
        let Some(conn) = self.fresh[i].as_mut() else {
            return;
        };
        let msg = match conn.read() {
            Ok(None) => return,
            Ok(Some(m)) => m,
            Err(Some(why)) => return self.refuse(i, &why),
            Err(None) => return self.fresh[i] = None,
        };
        let size = self.ranks.len() as u32;
        let why = match msg {
            Msg::Hello { job_id, .. } if job_id != self.job_id => {
                format!(
                    "job id {job_id:016x} is not this job's ({:016x})",
                    self.job_id
                )
            }
            Msg::Hello { rank, .. } if rank >= size => {
                format!("rank {rank} is not in a job of {size}")
            }
            Msg::Hello { rank, .. } if !matches!(self.ranks[rank as usize], Slot::NotYet) => {
                format!("rank {rank} has connected before")
            }
            Msg::Watch { job_id, rank } if job_id == self.job_id && rank < size => {
                let conn = self.fresh[i].take().expect("checked above");
                self.watches.push(Some((rank, conn)));
                let w = self.watches.len() - 1;
                // Frames sent right behind it are already buffered: serve them now.
                return self.serve_watch(w);
            }
            Msg::Hello { rank, pid, .. } => {
                self.lives[rank as usize].pid = Some(pid);
                let mut conn = self.fresh[i].take().expect("checked above");
                conn.queue(Msg::Welcome { size }.encode().into());
                self.ranks[rank as usize] = Slot::Open(conn);
                // Frames sent right behind the hello are already buffered: serve them now.
                return self.serve_rank(rank, events);
            }
            other => format!("expected a hello, got a {} message", other.kind()),
        };
        self.refuse(i, &why)
    }

    fn refuse(&mut self, i: usize, why: &str) {
        if let Some(mut conn) = self.fresh[i].take() {
            let reason = format!("the launcher refused this connection: {why}");
            conn.queue(Msg::Aborted { status: 1, reason }.encode().into());
            let _ = conn.flush(); // best effort: a small frame fits the socket buffer
        }
    }

    fn serve_rank(&mut self, rank: u32, events: &mut Vec<Event>) {
        loop {
            let Slot::Open(conn) = &mut self.ranks[rank as usize] else {
                return;
            };
            if conn.flush().is_err() {
                return self.close(rank);
            }
            match conn.read() {
                Ok(None) => return,
                Ok(Some(Msg::Enter { seq, op, data })) => {
                    if let Err(what) = self.enter(rank, seq, op, data) {
                        events.push(Event::Fault { rank, what });
                        return self.close(rank);
                    }
                }
                Ok(Some(Msg::Abort { status, reason })) => events.push(Event::Abort {
                    rank,
                    status,
                    reason,
                }),
                Ok(Some(Msg::Owes { call })) => {
                    self.lives[rank as usize].owes = (!call.is_empty()).then_some(call);
                }
                Ok(Some(other)) => {
                    events.push(Event::Fault {
                        rank,
                        what: format!("unexpected {} message", other.kind()),
                    });
                    return self.close(rank);
                }
                Err(Some(what)) => {
                    events.push(Event::Fault { rank, what });
                    return self.close(rank);
                }
                Err(None) => return self.close(rank),
            }
        }
    }

    fn close(&mut self, rank: u32) {
        self.ranks[rank as usize] = Slot::Closed(Instant::now());
    }

    /// Records `rank`'s entry into collective `seq`; completes it when everyone is in.
    fn enter(&mut self, rank: u32, seq: u32, op: Op, data: Vec<u8>) -> Result<(), String> {
        let c = &mut self.coll;
        if seq != c.seq {
            return Err(format!(
                "it entered {} #{seq} while the job is at collective #{}",
                op.name(),
                c.seq
            ));
        }
        if let Some((first_op, first)) = c.op {
            if first_op != op {
                return Err(format!(
                    "it entered {} #{seq} while rank {first} entered {} #{seq}",
                    op.name(),
                    first_op.name()
                ));
            }
        }
        if c.parts[rank as usize].is_some() {
            return Err(format!("it entered {} #{seq} twice", op.name()));
        }
        c.total += data.len();
        if c.total > MAX_GATHER_TOTAL {
            return Err(format!(
                "{} #{seq} exceeds the total limit of {MAX_GATHER_TOTAL} bytes",
                op.name()
            ));
        }
        c.op.get_or_insert((op, rank));
        c.parts[rank as usize] = Some(data);
        c.arrived += 1;
        if c.arrived as usize == c.parts.len() {
            self.complete();
        }
        Ok(())
    }

    fn complete(&mut self) {
        let c = &mut self.coll;
        let (op, _) = c.op.take().expect("a collective is in progress");
        let parts = c.parts.iter_mut().map(|p| p.take().unwrap_or_default());
        let parts = if op == Op::Barrier {
            Vec::new()
        } else {
            parts.collect()
        };
        let frame: Rc<[u8]> = Msg::Done {
            seq: c.seq,
            op,
            parts,
        }
        .encode()
        .into();
        c.parts.iter_mut().for_each(|p| *p = None);
        c.seq = c.seq.wrapping_add(1);
        c.arrived = 0;
        c.total = 0;
        for r in 0..self.ranks.len() {
            if let Slot::Open(conn) = &mut self.ranks[r] {
                conn.queue(frame.clone());
                if conn.flush().is_err() {
                    self.close(r as u32);
                }
            }
        }
    }
}

impl Conn {
    /// Whether poll should also wait for room to write: there is output queued.
    fn wants_to_write(&self) -> bool {
        !self.out.is_empty()
    }

    fn queue(&mut self, frame: Rc<[u8]>) {
        self.out.push_back(frame);
    }

    /// Writes queued frames until done or the socket is full.
    fn flush(&mut self) -> std::io::Result<()> {
        while let Some(f) = self.out.front() {
            match (&self.stream).write(&f[self.sent..]) {
                Ok(n) => {
                    self.sent += n;
                    if self.sent == f.len() {
                        self.out.pop_front();
                        self.sent = 0;
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The next message: `Ok(None)` if none is complete yet, `Err(None)` at a clean end of
    /// stream, `Err(Some(why))` on bad input or a broken connection.
    fn read(&mut self) -> Result<Option<Msg>, Option<String>> {
        let mut chunk = [0u8; 64 * 1024];
        loop {
            if let Some(m) = self.reader.next_msg().map_err(|e| Some(e.to_string()))? {
                return Ok(Some(m));
            }
            match (&self.stream).read(&mut chunk) {
                // Closed, even inside a frame: how a killed rank looks, not a protocol fault.
                Ok(0) => return Err(None),
                Ok(n) => self.reader.extend(&chunk[..n]),
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(None),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                // A reset connection is how a killed rank may look: not a protocol fault.
                Err(_) => return Err(None),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixStream;
    use std::time::Duration;

    const JOB: u64 = 0xabc;

    fn server(size: u32) -> (Server, tempdir::Dir) {
        let dir = tempdir::Dir::new();
        let listener = UnixListener::bind(dir.0.join("s")).unwrap();
        (Server::new(listener, size, JOB).unwrap(), dir)
    }

    mod tempdir {
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Dir {
                use std::sync::atomic::{AtomicU32, Ordering};
                static N: AtomicU32 = AtomicU32::new(0);
                let n = N.fetch_add(1, Ordering::Relaxed);
                let d = std::env::temp_dir()
                    .join(format!("clump-server-test-{}-{n}", std::process::id()));
                std::fs::create_dir_all(&d).unwrap();
                Dir(d)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    /// Connects as `rank` and sends `frames` after the hello.
    fn client(dir: &tempdir::Dir, rank: u32, job_id: u64, frames: &[Msg]) -> UnixStream {
        let mut s = UnixStream::connect(dir.0.join("s")).unwrap();
        s.write_all(
            &Msg::Hello {
                rank,
                job_id,
                pid: 1,
            }
            .encode(),
        )
        .unwrap();
        for f in frames {
            s.write_all(&f.encode()).unwrap();
        }
        s
    }

    /// Serves for a while; returns the events.
    fn pump(s: &mut Server) -> Vec<Event> {
        let mut events = Vec::new();
        for _ in 0..20 {
            let (wanted, tokens) = s.interests();
            let ready = crate::run::sys::poll(&wanted, Duration::from_millis(10)).unwrap();
            drop(wanted);
            events.extend(s.handle(&tokens, &ready));
        }
        events
    }

    fn replies(s: &mut UnixStream) -> Vec<Msg> {
        s.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let mut r = FrameReader::new(clump::boot::frame::MAX_REPLY_BODY);
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = s.read(&mut buf) {
            r.extend(&buf[..n]);
        }
        std::iter::from_fn(|| r.next_msg().unwrap()).collect()
    }

    fn enter(seq: u32, op: Op, data: &[u8]) -> Msg {
        Msg::Enter {
            seq,
            op,
            data: data.to_vec(),
        }
    }

    #[test]
    fn an_allgather_completes_when_every_rank_is_in() {
        let (mut s, dir) = server(2);
        let mut a = client(&dir, 0, JOB, &[enter(1, Op::Allgather, b"a")]);
        assert!(pump(&mut s).is_empty());
        assert!(s
            .stalled()
            .is_some_and(|st| st.waiting == [0] && st.missing == [1]));
        let mut b = client(&dir, 1, JOB, &[enter(1, Op::Allgather, b"bb")]);
        assert!(pump(&mut s).is_empty());
        assert!(s.stalled().is_none());
        let done = Msg::Done {
            seq: 1,
            op: Op::Allgather,
            parts: vec![b"a".to_vec(), b"bb".to_vec()],
        };
        assert_eq!(replies(&mut a), [Msg::Welcome { size: 2 }, done.clone()]);
        assert_eq!(replies(&mut b), [Msg::Welcome { size: 2 }, done]);
    }

    #[test]
    fn mismatched_collectives_are_faults() {
        let (mut s, dir) = server(2);
        let _a = client(&dir, 0, JOB, &[enter(1, Op::Barrier, b"")]);
        pump(&mut s);
        let _b = client(&dir, 1, JOB, &[enter(1, Op::Allgather, b"x")]);
        let ev = pump(&mut s);
        assert!(
            matches!(&ev[..], [Event::Fault { rank: 1, what }] if what.contains("while rank 0 entered barrier #1")),
            "{ev:?}"
        );
    }

    #[test]
    fn a_wrong_sequence_number_is_a_fault() {
        let (mut s, dir) = server(2);
        let _a = client(&dir, 0, JOB, &[enter(2, Op::Barrier, b"")]);
        let ev = pump(&mut s);
        assert!(
            matches!(&ev[..], [Event::Fault { rank: 0, what }] if what.contains("#2")),
            "{ev:?}"
        );
    }

    #[test]
    fn strangers_are_refused_with_a_reason() {
        let (mut s, dir) = server(2);
        let mut wrong_job = client(&dir, 0, JOB + 1, &[]);
        let mut wrong_rank = client(&dir, 5, JOB, &[]);
        assert!(pump(&mut s).is_empty());
        for (c, why) in [(&mut wrong_job, "job id"), (&mut wrong_rank, "rank 5")] {
            let r = replies(c);
            assert!(
                matches!(&r[..], [Msg::Aborted { reason, .. }] if reason.contains(why)),
                "{r:?}"
            );
        }
        // The genuine rank 0 can still join.
        let mut a = client(&dir, 0, JOB, &[]);
        pump(&mut s);
        assert_eq!(replies(&mut a), [Msg::Welcome { size: 2 }]);
    }

    #[test]
    fn a_call_owed_is_kept_until_the_rank_says_it_made_it() {
        let (mut s, dir) = server(2);
        let owes = |call: &str| Msg::Owes { call: call.into() };
        let _a = client(&dir, 0, JOB, &[owes("MPI_Finalize")]);
        let mut b = client(&dir, 1, JOB, &[owes("MPI_Finalize")]);
        assert!(pump(&mut s).is_empty());
        assert_eq!(s.owed(0), Some("MPI_Finalize"));
        assert_eq!(s.owed(1), Some("MPI_Finalize"));
        b.write_all(&owes("").encode()).unwrap();
        drop(b);
        assert!(pump(&mut s).is_empty());
        assert_eq!(s.owed(0), Some("MPI_Finalize"));
        assert_eq!(s.owed(1), None, "made, then the connection closed");
    }

    #[test]
    fn abort_requests_are_events() {
        let (mut s, dir) = server(1);
        let _a = client(
            &dir,
            0,
            JOB,
            &[Msg::Abort {
                status: 3,
                reason: "why".into(),
            }],
        );
        let ev = pump(&mut s);
        assert!(
            matches!(&ev[..], [Event::Abort { rank: 0, status: 3, reason }] if reason == "why"),
            "{ev:?}"
        );
    }
}
