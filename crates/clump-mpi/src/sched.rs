//! Schedules: a collective written as rounds of messages between members of a communicator,
//! each round followed by an optional local step (combine, copy, hand out the result). A
//! round's sends and receives all start together; the next round starts when they have all
//! completed and the local step has run. The runtime advances every active schedule each
//! time it makes progress (any MPI call that polls), in the order they were started, so
//! a non-blocking collective moves on while the program tests, waits or communicates.
//!
//! Each schedule of a communicator gets a tag of its own from a count that every member
//! keeps alike (MPI orders the collectives of a communicator the same on all of them), so
//! several may be in flight at once; within one, a sender's messages to a receiver match in
//! the order the receiver posts them (non-overtaking).

use std::collections::VecDeque;
use std::ops::Range;

use crate::coll::{cirecv, cisend, received_all};
use crate::comm::Comm;
use crate::error::Result;
use crate::p2p::{wait, Request};
use crate::runtime::{self, Advance, CollTag, Runtime};

/// What receives the result of a collective with one buffer of output.
pub type Done = Box<dyn FnOnce(Vec<u8>) -> Result<()>>;
/// What receives the result of a collective with a block per rank.
pub type DoneBlocks = Box<dyn FnOnce(Vec<Vec<u8>>) -> Result<()>>;

/// A local step: runs on the schedule's buffers between two rounds.
pub(crate) type Local = Box<dyn FnOnce(&mut Vec<Vec<u8>>) -> Result<()>>;

/// Tags of schedules start here, above the blocking collectives' phase tags.
const TAG_BASE: i32 = 1 << 16;
/// Schedules of one communicator cycle through this many tags (far more than can be in
/// flight at once).
const TAGS: u32 = 1 << 24;

/// A message of a round: a part of a buffer, or (`None`) all of it as it is when the
/// round starts (a local step may have changed its length).
enum Xfer {
    Send {
        to: i32,
        buf: usize,
        range: Option<Range<usize>>,
    },
    Recv {
        from: i32,
        buf: usize,
        range: Option<Range<usize>>,
    },
}

#[derive(Default)]
struct Round {
    xfers: Vec<Xfer>,
    then: Option<Local>,
}

/// A started message of the round in flight; a receive checks its length.
struct Pending {
    req: Request,
    recv: Option<(i32, usize)>,
}

pub(crate) struct Schedule {
    comm: Comm,
    tag: i32,
    bufs: Vec<Vec<u8>>,
    rounds: VecDeque<Round>,
    /// Whether the last round takes more messages (no local step closed it yet).
    open: bool,
    pending: Vec<Pending>,
    /// The local step of the round in flight.
    then: Option<Local>,
    /// The engine's request that completes with the schedule.
    id: u64,
}

/// Takes the next tag of `comm`'s collectives for a persistent collective.
pub fn reserve_tag(comm: &Comm) -> Result<CollTag> {
    let rt = runtime::get()?;
    Ok(CollTag {
        ctx: comm.coll_ctx(),
        tag: next_tag(&rt, comm.coll_ctx()),
    })
}

/// Runs `start` (which starts one collective) under `tag` instead of the next one.
pub fn with_tag<T>(tag: CollTag, start: impl FnOnce() -> T) -> Result<T> {
    let rt = runtime::get()?;
    rt.fixed_tag.set(Some(tag));
    let started = start();
    rt.fixed_tag.set(None);
    Ok(started)
}

fn next_tag(rt: &Runtime, ctx: u32) -> i32 {
    let mut calls = rt.nbc_calls.borrow_mut();
    let k = calls.entry(ctx).or_insert(0);
    *k = (*k + 1) % TAGS;
    TAG_BASE + *k as i32
}

impl Schedule {
    /// An empty schedule on `comm`, with the next tag of its collectives (or the tag
    /// [`with_tag`] gives it).
    pub fn new(comm: &Comm) -> Result<Schedule> {
        let rt = runtime::get()?;
        let ctx = comm.coll_ctx();
        let tag = match rt.fixed_tag.take() {
            Some(t) if t.ctx == ctx => t.tag,
            _ => next_tag(&rt, ctx),
        };
        Ok(Schedule {
            comm: comm.clone(),
            tag,
            bufs: Vec::new(),
            rounds: VecDeque::new(),
            open: false,
            pending: Vec::new(),
            then: None,
            id: 0,
        })
    }

    pub fn comm(&self) -> &Comm {
        &self.comm
    }

    /// Adds a buffer the schedule owns; returns its index.
    pub fn buf(&mut self, data: Vec<u8>) -> usize {
        self.bufs.push(data);
        self.bufs.len() - 1
    }

    /// Adds a buffer of `lens[i]` bytes for each rank `i`, `own` in place of rank `me`'s;
    /// returns the index of the first.
    pub fn bufs_from(&mut self, lens: &[usize], me: usize, own: Vec<u8>) -> usize {
        let first = self.bufs.len();
        let mut own = Some(own);
        for (i, &len) in lens.iter().enumerate() {
            let data = match own.take_if(|_| i == me) {
                Some(data) => data,
                None => vec![0u8; len],
            };
            self.bufs.push(data);
        }
        first
    }

    pub fn len(&self, buf: usize) -> usize {
        self.bufs[buf].len()
    }

    fn round(&mut self) -> &mut Round {
        if !self.open {
            self.rounds.push_back(Round::default());
            self.open = true;
        }
        self.rounds.back_mut().expect("a round was just opened")
    }

    /// Sends buffer `buf` (as it is when the round starts) to rank `to` in this round.
    pub fn send(&mut self, to: i32, buf: usize) {
        self.round().xfers.push(Xfer::Send {
            to,
            buf,
            range: None,
        });
    }

    pub fn send_part(&mut self, to: i32, buf: usize, range: Range<usize>) {
        let range = Some(range);
        self.round().xfers.push(Xfer::Send { to, buf, range });
    }

    /// Receives exactly the length of buffer `buf` (when the round starts) from rank
    /// `from` in this round.
    pub fn recv(&mut self, from: i32, buf: usize) {
        self.round().xfers.push(Xfer::Recv {
            from,
            buf,
            range: None,
        });
    }

    /// Ends this round with local step `f`; later messages go in the next round.
    pub fn then(&mut self, f: impl FnOnce(&mut Vec<Vec<u8>>) -> Result<()> + 'static) {
        self.round().then = Some(Box::new(f));
        self.open = false;
    }

    /// Ends this round: later messages wait for its messages to complete.
    pub fn fence(&mut self) {
        self.open = false;
    }

    /// Starts the schedule: its first round goes out now, the rest as the runtime makes
    /// progress. The request completes when the last local step has run.
    pub fn start(mut self) -> Result<Request> {
        let rt = runtime::get()?;
        self.id = rt.engine.borrow_mut().add_coll();
        let id = self.id;
        if !self.advance(&rt) {
            rt.colls.borrow_mut().push(Box::new(self));
        }
        Ok(Request::from_id(id))
    }

    fn step(&mut self, rt: &Runtime) -> Result<bool> {
        loop {
            if !self.pending.iter().all(|p| p.req.is_complete(rt)) {
                return Ok(false);
            }
            for mut p in std::mem::take(&mut self.pending) {
                let st = wait(&mut p.req)?;
                if let Some((from, want)) = p.recv {
                    received_all(&st, from, want)?;
                }
            }
            if let Some(f) = self.then.take() {
                f(&mut self.bufs)?;
            }
            let Some(round) = self.rounds.pop_front() else {
                return Ok(true);
            };
            self.then = round.then;
            for x in round.xfers {
                let p = self.start_xfer(x)?;
                self.pending.push(p);
            }
        }
    }

    fn start_xfer(&mut self, x: Xfer) -> Result<Pending> {
        let (comm, tag) = (&self.comm, self.tag);
        Ok(match x {
            Xfer::Send { to, buf, range } => {
                let data = &self.bufs[buf];
                let data = &data[range.unwrap_or(0..data.len())];
                // SAFETY: the schedule owns its buffers and neither resizes nor frees them
                // while a message of the round is in flight: local steps run between
                // rounds, and a schedule that fails with messages in flight leaks them.
                let req = unsafe { cisend(comm, to, tag, data)? };
                Pending { req, recv: None }
            }
            Xfer::Recv { from, buf, range } => {
                let data = &mut self.bufs[buf];
                let range = range.unwrap_or(0..data.len());
                let data = &mut data[range];
                let want = data.len();
                // SAFETY: as above.
                let req = unsafe { cirecv(comm, from, tag, data)? };
                Pending {
                    req,
                    recv: Some((from, want)),
                }
            }
        })
    }

    /// After a failure: the messages in flight may still read or write the buffers, so
    /// those are given up (leaked) rather than freed under them; their requests are
    /// forgotten once complete.
    fn abandon(&mut self, rt: &Runtime) {
        if self.pending.is_empty() {
            return;
        }
        std::mem::forget(std::mem::take(&mut self.bufs));
        let mut e = rt.engine.borrow_mut();
        for p in self.pending.drain(..) {
            e.detach(p.req.into_id());
        }
    }
}

/// Ends `s` with handing buffer `buf` to `done`, and starts it.
pub(crate) fn finish(mut s: Schedule, buf: usize, done: Done) -> Result<Request> {
    s.then(move |bufs| done(std::mem::take(&mut bufs[buf])));
    s.start()
}

/// Ends `s` with handing its `n` buffers from `first` to `done`, and starts it.
pub(crate) fn finish_blocks(
    mut s: Schedule,
    first: usize,
    n: usize,
    done: DoneBlocks,
) -> Result<Request> {
    s.then(move |bufs| done(bufs.drain(first..first + n).collect()));
    s.start()
}

impl Advance for Schedule {
    /// Moves on as far as completed messages allow; true once finished (its request then
    /// carries the outcome).
    fn advance(&mut self, rt: &Runtime) -> bool {
        match self.step(rt) {
            Ok(false) => false,
            Ok(true) => {
                rt.engine.borrow_mut().finish_coll(self.id, None);
                true
            }
            Err(e) => {
                self.abandon(rt);
                rt.engine.borrow_mut().finish_coll(self.id, Some(e));
                true
            }
        }
    }
}
