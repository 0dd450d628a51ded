//! The matching engine: posted and unexpected queues, per-sender sequence order, and the
//! requests the protocols complete. Handlers only record what arrived here; everything that
//! sends runs from `progress` outside handlers (a handler may only reply).

use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;
use std::rc::Rc;

use crate::datatype::Datatype;
use crate::error::{Error, ErrorClass};
use crate::matching::{Envelope, Pattern};
use crate::requests::Requests;
use crate::sent_log::SentLog;
use crate::sequence::Sequences;
use crate::single_copy::Source;
use crate::status::Status;
use crate::unexpected::{Stored, UnexpectedStore};

/// The communicator rank of job rank `src` in `group`; `None` for a process outside it.
pub(crate) fn rank_in(group: &[u32], src: u32) -> Option<i32> {
    group.iter().position(|&r| r == src).map(|i| i as i32)
}

/// Whom a receive's status names as the sender of the message it took: a receive from
/// one rank names that rank (only that rank's messages match it: no group to search, and
/// no reference to the group to count per message); a wildcard one finds the sender in
/// its communicator's group.
#[derive(Clone, Debug)]
pub enum Senders {
    One(i32),
    Group(Rc<Vec<u32>>),
}

impl Senders {
    /// The senders of a receive posted with `pat` for messages from `source`, a rank of a
    /// communicator whose peers (job ranks by rank) are `peers`.
    #[inline]
    pub fn of(pat: &Pattern, source: i32, peers: &Rc<Vec<u32>>) -> Senders {
        match pat.src {
            Some(_) => Senders::One(source),
            None => Senders::Group(peers.clone()),
        }
    }

    /// The communicator rank of job rank `src`, whose message the receive matched; `None`
    /// for a process outside the group.
    #[inline]
    fn rank_of(&self, src: u32) -> Option<i32> {
        match self {
            Senders::One(rank) => Some(*rank),
            Senders::Group(group) => rank_in(group, src),
        }
    }
}

/// Receive `req` matched a message from job rank `src`, which is not a member of its
/// communicator. Only members may send in a communicator's context, so the message is no
/// member's: the receive fails (`MPI_ERR_RANK`) and takes nothing; the engine's fault says why.
fn refuse_outsider(req: &mut Req, src: u32) -> Error {
    req.status.error = Some(ErrorClass::Rank);
    req.status.count_bytes = 0;
    req.done = true;
    Error::new(
        ErrorClass::Rank,
        format!("a message from job rank {src}, not a member of the receiving communicator"),
    )
}

/// The error of a message to a job rank outside the job.
#[cold]
#[inline(never)]
fn not_in_job(dest: u32) -> Error {
    Error::new(
        ErrorClass::Rank,
        format!("job rank {dest} is not in the job"),
    )
}

/// The first posted receive `env` matches, taken off the queue.
#[inline(always)]
fn take_posted(posted: &mut VecDeque<(Pattern, u64)>, env: &Envelope) -> Option<u64> {
    // Most often the first posted receive is the one.
    if posted.front()?.0.matches(env) {
        return posted.pop_front().map(|(_, id)| id);
    }
    take_posted_further(posted, env)
}

/// [`take_posted`] past the first posted receive (out of line: the common case stays short).
#[inline(never)]
fn take_posted_further(posted: &mut VecDeque<(Pattern, u64)>, env: &Envelope) -> Option<u64> {
    let i = posted.iter().position(|(p, _)| p.matches(env))?;
    posted.remove(i).map(|(_, id)| id)
}

/// The posted receive an in-order message with `env` matches, taken off: the first of
/// the queue that matches, else the blocking receive (posted after all of them).
#[inline(always)]
fn take_match(
    posted: &mut VecDeque<(Pattern, u64)>,
    blocking: &mut Option<Pattern>,
    env: &Envelope,
) -> Option<u64> {
    if let Some(id) = take_posted(posted, env) {
        return Some(id);
    }
    blocking.take_if(|p| p.matches(env)).map(|_| BLOCKING)
}

/// A message as it arrives, before matching.
pub struct Incoming {
    pub env: Envelope,
    pub seq: u32,
    pub body: Body,
}

pub enum Body {
    /// The whole message (eager protocol), in the unexpected store.
    Eager(Stored),
    /// A request to send `len` bytes whose first bytes (`prefix`, the hybrid protocol of
    /// paper 004) came with it, answered by a clear to send naming `send_id`.
    Rts {
        len: usize,
        send_id: u64,
        prefix: Stored,
        /// Where the receiver may read the rest itself (a sender on this host).
        from: Option<Source>,
    },
}

/// What `progress` must send once the handlers have returned.
pub enum Action {
    /// Tell `dest` that receive `recv_id` is ready for its send `send_id`.
    Cts {
        dest: u32,
        send_id: u64,
        recv_id: u64,
    },
    /// Send the data of send `send_id` to receive `recv_id`: the message bytes `range`,
    /// or all after those sent with the request to send.
    Data {
        send_id: u64,
        recv_id: u64,
        range: Option<(usize, usize)>,
    },
    /// Read the rest of `len` bytes at `from` into receive `recv_id`, then tell `dest`
    /// that its send `send_id` is done (or ask for the data as `Cts` does).
    Pull {
        dest: u32,
        send_id: u64,
        recv_id: u64,
        len: usize,
        from: Source,
    },
}

/// The id of a send that completed as it started (an eager send): no request is kept.
pub const SENT: u64 = u64::MAX - 1;
/// The id of the receive a blocking `recv` posted, which lives in the engine's own slot
/// rather than among the requests (the thread waits in that call, so there is one at most).
pub const BLOCKING: u64 = u64::MAX - 2;

pub enum ReqKind {
    Send {
        buf: *const u8,
        len: usize,
        dest: u32,
        /// The data when the send owns it (a non-contiguous type packed, a buffered send's
        /// copy); `buf` then points into it.
        owned: Vec<u8>,
        /// The first bytes, sent with the request to send (the hybrid protocol).
        ahead: usize,
        /// Parts of the transfer still to finish before the buffer is free: the receiver's
        /// answer (a clear to send, served, or the end of its read), and each part the
        /// sender is asked to write itself.
        parts: u32,
        /// The message's context and sequence number (what a cancel names).
        msg: (u32, u32),
        /// Whether the receiver was asked to withdraw the message (`MPI_Cancel`).
        cancel_asked: bool,
    },
    /// A receive and a send that complete together (`MPI_Isendrecv`): done when both
    /// parts are; its status is the receive's.
    Pair { recv: u64, send: u64 },
    Recv {
        buf: *mut u8,
        cap: usize,
        /// The sender's message length once matched.
        expected: Option<usize>,
        received: usize,
        senders: Senders,
        /// For a non-contiguous type: where the packed bytes `buf` receives go at the end.
        unpack: Option<Box<Unpack>>,
    },
    /// A non-blocking collective: its schedule runs in the runtime and completes this
    /// request with its outcome.
    Coll { error: Option<Error> },
    /// A generalized request: the program's functions, and whether the program freed it
    /// before completing it.
    Generalized {
        hooks: crate::grequest_hooks::SharedHooks,
        freed: bool,
    },
}

/// The user's buffer of a non-contiguous receive, and the staging bytes `buf` points into.
pub struct Unpack {
    pub dt: Datatype,
    pub count: usize,
    pub to: *mut u8,
    pub staging: Vec<u8>,
}

pub struct Req {
    pub kind: ReqKind,
    pub done: bool,
    pub status: Status,
}

impl Req {
    /// A completed request's last step: a non-contiguous receive's data goes from its
    /// staging bytes into the user's buffer, and a partitioned one reports the program's tag.
    #[inline]
    pub fn finish(self) -> Status {
        if let ReqKind::Recv {
            unpack: Some(u), ..
        } = &self.kind
        {
            let n = self.status.count_bytes.min(u.staging.len());
            // SAFETY: the receive's contract keeps the user's buffer valid for the type map
            // of `count` elements until it completes, which is now.
            unsafe { u.dt.unpack_raw(&u.staging[..n], u.to, u.count) };
        }
        self.status.shown()
    }
}

pub struct Engine {
    pub reqs: Requests<Req>,
    /// The receive of request id [`BLOCKING`], if one is posted or not yet taken back.
    blocking: Option<Req>,
    /// The blocking receive's pattern while it waits for a match. It is looked at after
    /// the posted queue, which holds only receives posted before it (the thread that
    /// posted it waits in that call), and before the queue in the common case that the
    /// queue is empty: an arriving message then meets it first.
    blocking_pat: Option<Pattern>,
    posted: VecDeque<(Pattern, u64)>,
    unexpected: VecDeque<Incoming>,
    store: UnexpectedStore,
    /// The next sequence number to each destination, and expected from each source.
    seq_out: Sequences,
    seq_in: Sequences,
    held: HashMap<(u32, u32, u32), Incoming>,
    pub actions: Vec<Action>,
    /// Requests nobody will wait for (freed or buffered): dropped once complete.
    detached: Vec<u64>,
    /// A failure found inside a handler, reported by the next call.
    pub fault: Option<Error>,
    /// The latest eager non-blocking sends, which a cancel may still withdraw.
    pub sent_log: SentLog,
}

impl Engine {
    /// An engine for a job of `ranks` processes.
    pub fn new(unexpected_limit: usize, ranks: usize) -> Engine {
        Engine {
            reqs: Requests::default(),
            blocking: None,
            blocking_pat: None,
            posted: VecDeque::new(),
            unexpected: VecDeque::new(),
            store: UnexpectedStore::new(unexpected_limit),
            seq_out: Sequences::new(ranks),
            seq_in: Sequences::new(ranks),
            held: HashMap::default(),
            actions: Vec::new(),
            detached: Vec::new(),
            fault: None,
            sent_log: SentLog::default(),
        }
    }

    #[inline]
    pub fn add_req(&mut self, kind: ReqKind) -> u64 {
        self.reqs.insert(Req {
            kind,
            done: false,
            status: Status::empty(),
        })
    }

    /// A request for a non-blocking collective, completed by [`Engine::finish_coll`].
    pub fn add_coll(&mut self) -> u64 {
        self.add_req(ReqKind::Coll { error: None })
    }

    /// Collective request `id` has finished, failed if `error` says so.
    pub fn finish_coll(&mut self, id: u64, error: Option<Error>) {
        if let Some(r) = self.reqs.get_mut(id) {
            r.kind = ReqKind::Coll { error };
            r.done = true;
        }
    }

    /// Request `id`, the blocking receive's slot included.
    #[inline]
    pub fn req(&self, id: u64) -> Option<&Req> {
        if id == BLOCKING {
            self.blocking.as_ref()
        } else {
            self.reqs.get(id)
        }
    }

    #[inline]
    fn req_mut(&mut self, id: u64) -> Option<&mut Req> {
        if id == BLOCKING {
            self.blocking.as_mut()
        } else {
            self.reqs.get_mut(id)
        }
    }

    /// Posts `recv` (a `ReqKind::Recv`) with `pat` as the blocking receive; false, posting
    /// nothing, when the slot is taken (a blocking receive still in progress).
    pub fn post_blocking(&mut self, recv: ReqKind, pat: Pattern) -> bool {
        if self.blocking.is_some() {
            return false;
        }
        self.blocking = Some(Req {
            kind: recv,
            done: false,
            status: Status::empty(),
        });
        self.post(BLOCKING, pat);
        true
    }

    /// Whether the blocking receive has completed.
    #[inline]
    pub fn blocking_done(&self) -> bool {
        self.blocking.as_ref().is_some_and(|r| r.done)
    }

    /// Takes the completed blocking receive back, freeing its slot.
    pub fn take_blocking(&mut self) -> Option<Req> {
        if self.blocking_done() {
            self.blocking.take()
        } else {
            None
        }
    }

    /// Withdraws the blocking receive after its wait failed, unless it matched and its data
    /// is on the way (then it keeps the slot until that completes, as a request would).
    pub fn abandon_blocking(&mut self) {
        if self.cancel_recv(BLOCKING) || self.blocking_done() {
            self.blocking = None;
        }
    }

    /// Gives send `id` the data it sends from, to hold until it completes.
    pub fn keep(&mut self, id: u64, data: Vec<u8>) {
        if let Some(Req {
            kind: ReqKind::Send { owned, .. },
            ..
        }) = self.reqs.get_mut(id)
        {
            *owned = data;
        }
    }

    /// Forgets request `id` once it completes (`MPI_Request_free`, buffered sends).
    pub fn detach(&mut self, id: u64) {
        self.detached.push(id);
        self.reap();
    }

    /// Whether a detached request is still pending.
    pub fn has_detached(&self) -> bool {
        !self.detached.is_empty()
    }

    /// Drops the detached requests that have completed.
    pub fn reap(&mut self) {
        let reqs = &mut self.reqs;
        self.detached.retain(|&id| match reqs.get(id) {
            Some(r) if r.done => {
                reqs.remove(id).map(Req::finish);
                false
            }
            Some(_) => true,
            None => false,
        });
    }

    /// The sequence number of the next message to job rank `dest` in `ctx`.
    #[inline]
    pub fn next_seq(&mut self, dest: u32, ctx: u32) -> Result<u32, Error> {
        let s = self
            .seq_out
            .get(ctx, dest)
            .ok_or_else(|| not_in_job(dest))?;
        let seq = *s;
        *s = s.wrapping_add(1);
        Ok(seq)
    }

    /// A message whose arguments hold none (`what` it claimed to be): a fault.
    pub fn malformed(&mut self, what: &str) {
        self.fault
            .get_or_insert(Error::new(ErrorClass::Intern, what.to_string()));
    }

    /// Whether a message with `env` comes from a rank of the job; a fault if not.
    fn sender_in_job(&mut self, env: &Envelope) -> bool {
        let known = self.seq_in.get(env.ctx, env.src).is_some();
        if !known {
            self.fault.get_or_insert(Error::new(
                ErrorClass::Intern,
                format!("a message from job rank {}, outside the job", env.src),
            ));
        }
        known
    }

    /// An eager message arrived: in order with a receive posted for it, its bytes go
    /// straight into the receive buffer; otherwise into the unexpected store.
    pub fn arrive_eager(&mut self, env: Envelope, seq: u32, data: &[u8]) {
        self.eager_in(env, Some(seq), data);
    }

    /// An eager message that came without its sequence number (it travelled in order):
    /// it is the one expected next from its sender.
    #[inline]
    pub fn arrive_eager_next(&mut self, env: Envelope, data: &[u8]) {
        self.eager_in(env, None, data);
    }

    /// An eager message numbered `seq`, or the one expected next (`None`); one look at the
    /// sender's counter either way.
    #[inline(always)]
    fn eager_in(&mut self, env: Envelope, seq: Option<u32>, data: &[u8]) {
        let key = (env.src, env.ctx);
        let Some(next) = self.seq_in.get(env.ctx, env.src) else {
            self.sender_in_job(&env);
            return;
        };
        let seq = seq.unwrap_or(*next);
        if seq == *next {
            if let Some(id) = take_match(&mut self.posted, &mut self.blocking_pat, &env) {
                *next = seq.wrapping_add(1);
                self.copy_eager(id, &env, data);
                // Messages held back behind this one match now (none, most often).
                if !self.held.is_empty() {
                    self.advance(key, seq);
                }
                return;
            }
        }
        let (stored, over) = self.store.keep(data);
        if let Some(e) = over {
            self.fault.get_or_insert(e);
        }
        self.arrive(Incoming {
            env,
            seq,
            body: Body::Eager(stored),
        });
    }

    fn expected(&self, (src, ctx): (u32, u32)) -> u32 {
        self.seq_in.peek(ctx, src)
    }

    /// A request to send arrived with the first bytes of its message.
    pub fn arrive_rts(
        &mut self,
        env: Envelope,
        seq: u32,
        (len, send_id): (usize, u64),
        prefix: &[u8],
        from: Option<Source>,
    ) {
        if !self.sender_in_job(&env) {
            return;
        }
        let (prefix, over) = self.store.keep(prefix);
        if let Some(e) = over {
            self.fault.get_or_insert(e);
        }
        self.arrive(Incoming {
            env,
            seq,
            body: Body::Rts {
                len,
                send_id,
                prefix,
                from,
            },
        });
    }

    /// A message arrived: match it in sender order (holding early ones back).
    pub fn arrive(&mut self, m: Incoming) {
        let key = (m.env.src, m.env.ctx);
        let seq = m.seq;
        if seq != self.expected(key) {
            self.held.insert((key.0, key.1, seq), m);
            return;
        }
        self.deliver(m);
        self.advance(key, seq);
    }

    /// Message `seq` of `key` was delivered: so are the held ones that follow it.
    fn advance(&mut self, key: (u32, u32), mut seq: u32) {
        loop {
            seq = seq.wrapping_add(1);
            match self.held.remove(&(key.0, key.1, seq)) {
                Some(m) => self.deliver(m),
                None => break,
            }
        }
        if let Some(next) = self.seq_in.get(key.1, key.0) {
            *next = seq;
        }
    }

    /// Matches an in-order message against the posted receives, or keeps it unexpected.
    fn deliver(&mut self, m: Incoming) {
        match take_match(&mut self.posted, &mut self.blocking_pat, &m.env) {
            Some(id) => self.complete_match(id, m),
            None => self.unexpected.push_back(m),
        }
    }

    /// Posts receive `id` with `pat`: takes the first stored message it matches, if any.
    #[inline]
    pub fn post(&mut self, id: u64, pat: Pattern) {
        // Most often nothing waits: not even a search to start.
        if !self.unexpected.is_empty() && self.match_stored(id, &pat) {
            return;
        }
        if id == BLOCKING {
            self.blocking_pat = Some(pat);
        } else {
            self.posted.push_back((pat, id));
        }
    }

    /// Receive `id` takes the first stored message `pat` matches, if any (true).
    #[inline(never)]
    fn match_stored(&mut self, id: u64, pat: &Pattern) -> bool {
        let Some(i) = self.unexpected.iter().position(|m| pat.matches(&m.env)) else {
            return false;
        };
        let m = self.unexpected.remove(i).expect("position is in range");
        self.complete_match(id, m);
        true
    }

    /// The first stored message `pat` matches (for probe): its envelope and length.
    pub fn peek(&self, pat: &Pattern) -> Option<(Envelope, usize)> {
        self.unexpected
            .iter()
            .find(|m| pat.matches(&m.env))
            .map(|m| {
                let len = match &m.body {
                    Body::Eager(d) => d.len(),
                    Body::Rts { len, .. } => *len,
                };
                (m.env, len)
            })
    }

    /// Receive `id` got message `m`: copy eager data now, or ask for rendezvous data.
    fn complete_match(&mut self, id: u64, m: Incoming) {
        match m.body {
            Body::Eager(stored) => {
                self.copy_eager(id, &m.env, stored.bytes());
                self.store.release(stored);
            }
            Body::Rts {
                len,
                send_id,
                prefix,
                from,
            } => {
                let mut outsider = None;
                let done = self.req_mut(id).and_then(|req| {
                    let ReqKind::Recv {
                        cap,
                        expected,
                        senders,
                        ..
                    } = &mut req.kind
                    else {
                        return None;
                    };
                    let Some(source) = senders.rank_of(m.env.src) else {
                        outsider = Some(refuse_outsider(req, m.env.src));
                        return None;
                    };
                    req.status.source = source;
                    req.status.tag = m.env.tag;
                    *expected = Some(len);
                    if len > *cap {
                        req.status.error = Some(ErrorClass::Truncate);
                    }
                    req.status.count_bytes = len.min(*cap);
                    Some(())
                });
                if done.is_none() {
                    if let Some(e) = outsider {
                        self.fault.get_or_insert(e);
                    }
                    self.store.release(prefix);
                    return;
                }
                // The prefix lands like rendezvous data at offset 0; an empty message is
                // complete at once. The clear to send goes out in any case: the sender's
                // request completes on it (a synchronous send's matching).
                self.data(id, 0, prefix.bytes());
                self.store.release(prefix);
                let (dest, recv_id) = (m.env.src, id);
                self.actions.push(match from {
                    Some(from) if !self.is_done(id) => Action::Pull {
                        dest,
                        send_id,
                        recv_id,
                        len,
                        from,
                    },
                    _ => Action::Cts {
                        dest,
                        send_id,
                        recv_id,
                    },
                });
            }
        }
    }

    /// Receive `id` takes the eager message `data` sent with `env`.
    #[inline]
    fn copy_eager(&mut self, id: u64, env: &Envelope, data: &[u8]) {
        let Some(req) = self.req_mut(id) else {
            return;
        };
        let ReqKind::Recv {
            buf, cap, senders, ..
        } = &req.kind
        else {
            return;
        };
        let Some(source) = senders.rank_of(env.src) else {
            let e = refuse_outsider(req, env.src);
            self.fault.get_or_insert(e);
            return;
        };
        req.status.source = source;
        req.status.tag = env.tag;
        let n = data.len().min(*cap);
        // SAFETY: the receive's contract keeps `buf` valid for `cap` bytes until it
        // completes, and `n <= cap`.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), *buf, n) };
        req.status.count_bytes = n;
        if data.len() > *cap {
            req.status.error = Some(ErrorClass::Truncate);
        }
        req.done = true;
    }

    /// Rendezvous data for receive `id` at `offset` of the message.
    pub fn data(&mut self, id: u64, offset: usize, bytes: &[u8]) {
        let Some(req) = self.req_mut(id) else {
            self.fault.get_or_insert(Error::new(
                ErrorClass::Intern,
                format!("rendezvous data for unknown receive {id}"),
            ));
            return;
        };
        if let ReqKind::Recv {
            buf,
            cap,
            expected,
            received,
            ..
        } = &mut req.kind
        {
            if offset < *cap {
                let n = bytes.len().min(*cap - offset);
                // SAFETY: `buf` is valid for `cap` bytes until the receive completes (its
                // contract) and `offset + n <= cap`.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf.add(offset), n) };
            }
            *received += bytes.len();
            if expected.is_some_and(|e| *received >= e) {
                req.done = true;
            }
        }
    }

    fn is_done(&self, id: u64) -> bool {
        self.req(id).is_some_and(|r| r.done)
    }

    /// A part of send `id`'s transfer is finished: the send completes with its last part.
    pub fn complete(&mut self, id: u64) {
        if let Some(r) = self.reqs.get_mut(id) {
            if let ReqKind::Send { parts, .. } = &mut r.kind {
                *parts = parts.saturating_sub(1);
                r.done = *parts == 0;
            } else {
                r.done = true;
            }
        }
    }

    /// Request `id` can never finish (a message of it could not be sent): it completes
    /// now with `class`, its remaining parts or not, so no wait on it hangs.
    pub fn fail(&mut self, id: u64, class: ErrorClass) {
        if let Some(r) = self.reqs.get_mut(id) {
            r.status.error.get_or_insert(class);
            r.done = true;
        }
    }

    /// Send `id` is asked to write a part of its message itself; false (a fault) when no
    /// such send waits.
    pub fn expect_part(&mut self, id: u64) -> bool {
        match self.reqs.get_mut(id) {
            Some(Req {
                kind: ReqKind::Send { parts, .. },
                done: false,
                ..
            }) => {
                *parts += 1;
                true
            }
            _ => {
                self.fault.get_or_insert(Error::new(
                    ErrorClass::Intern,
                    format!("a request to write for unknown send {id}"),
                ));
                false
            }
        }
    }

    /// `n` bytes of matched receive `id` landed without passing through this process (read
    /// or written by cross-memory attach, or cut off by truncation); it completes once all
    /// have.
    pub fn landed(&mut self, id: u64, n: usize) {
        match self.req_mut(id) {
            Some(Req {
                kind:
                    ReqKind::Recv {
                        expected: Some(len),
                        received,
                        ..
                    },
                done,
                ..
            }) => {
                *received += n;
                *done = *received >= *len;
            }
            _ => {
                self.fault.get_or_insert(Error::new(
                    ErrorClass::Intern,
                    format!("message bytes written for unknown receive {id}"),
                ));
            }
        }
    }

    /// Where the rest of matched receive `id` goes: its buffer, its capacity and the bytes
    /// it has (the prefix).
    pub fn pull_target(&self, id: u64) -> Option<(*mut u8, usize, usize)> {
        match &self.req(id)?.kind {
            ReqKind::Recv {
                buf, cap, received, ..
            } => Some((*buf, *cap, *received)),
            _ => None,
        }
    }

    /// Cancels receive `id` if it has not matched yet; true when it was cancelled.
    pub fn cancel_recv(&mut self, id: u64) -> bool {
        let posted = if id == BLOCKING {
            self.blocking_pat.take().is_some()
        } else {
            let at = self.posted.iter().position(|(_, r)| *r == id);
            at.and_then(|i| self.posted.remove(i)).is_some()
        };
        if posted {
            if let Some(req) = self.req_mut(id) {
                req.status.cancelled = true;
                req.done = true;
            }
        }
        posted
    }

    /// Withdraws message `seq` of job rank `src` in `ctx` if it waits unmatched among the
    /// unexpected ones (its send is cancelled); true when it did. A message held back for
    /// order is not withdrawn: the messages after it wait for its number.
    pub fn withdraw(&mut self, src: u32, ctx: u32, seq: u32) -> bool {
        let Some(i) = self
            .unexpected
            .iter()
            .position(|m| m.env.src == src && m.env.ctx == ctx && m.seq == seq)
        else {
            return false;
        };
        match self.unexpected.remove(i).map(|m| m.body) {
            Some(Body::Eager(stored)) | Some(Body::Rts { prefix: stored, .. }) => {
                self.store.release(stored)
            }
            None => {}
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(src: u32, tag: i32) -> Envelope {
        Envelope { src, ctx: 0, tag }
    }

    fn eager(e: &mut Engine, src: u32, tag: i32, seq: u32, data: &[u8]) {
        e.arrive_eager(envelope(src, tag), seq, data);
    }

    /// A receive into `buf` in a communicator of job ranks 0, 1 and 2.
    fn recv_into(buf: &mut [u8]) -> ReqKind {
        ReqKind::Recv {
            buf: buf.as_mut_ptr(),
            cap: buf.len(),
            expected: None,
            received: 0,
            senders: Senders::Group(Rc::new(vec![0, 1, 2])),
            unpack: None,
        }
    }

    fn recv(e: &mut Engine, buf: &mut [u8]) -> u64 {
        e.add_req(recv_into(buf))
    }

    /// Posts receive `id` for any source and tag.
    fn post_any(e: &mut Engine, id: u64) {
        e.post(
            id,
            Pattern {
                src: None,
                ctx: 0,
                tag: None,
            },
        );
    }

    fn blocking(e: &mut Engine, buf: &mut [u8], src: Option<u32>) -> bool {
        e.post_blocking(
            recv_into(buf),
            Pattern {
                src,
                ctx: 0,
                tag: None,
            },
        )
    }

    #[test]
    fn a_message_from_outside_the_communicator_is_never_received_as_rank_0() {
        // A job of 4; the receives' communicator holds job ranks 0, 1 and 2.
        let mut e = Engine::new(1 << 20, 4);
        let (mut a, mut b) = ([0u8; 5], [0u8; 5]);
        let ra = recv(&mut e, &mut a);
        post_any(&mut e, ra);
        eager(&mut e, 3, 5, 0, b"rogue");
        let refused = |r: &Req| r.done && r.status.error == Some(ErrorClass::Rank);
        let r = &e.reqs[&ra];
        assert!(refused(r), "{:?}", r.status);
        assert_ne!(r.status.source, 0);
        assert_eq!((&a, r.status.count_bytes), (&[0u8; 5], 0));
        assert!(e
            .fault
            .take()
            .is_some_and(|f| f.to_string().contains("job rank 3")));
        // A request to send from outside: refused the same way, and no clear to send.
        let rb = recv(&mut e, &mut b);
        post_any(&mut e, rb);
        e.arrive_rts(envelope(3, 6), 1, (10, 77), b"hello", None);
        let r = &e.reqs[&rb];
        assert!(refused(r), "{:?}", r.status);
        assert!(e.actions.is_empty() && e.fault.is_some());
    }

    #[test]
    fn the_blocking_receive_matches_in_order_with_requests_and_takes_rendezvous_data() {
        let mut e = Engine::new(1 << 20, 3);
        // A request posted first matches first; the blocking slot takes the next.
        let (mut a, mut b) = ([0u8; 5], [0u8; 5]);
        let ra = recv(&mut e, &mut a);
        post_any(&mut e, ra);
        assert!(blocking(&mut e, &mut b, Some(1)));
        let mut c = [0u8; 5];
        assert!(
            !blocking(&mut e, &mut c, None),
            "one blocking receive at a time"
        );
        eager(&mut e, 1, 5, 0, b"first");
        assert!(e.reqs[&ra].done && !e.blocking_done());
        eager(&mut e, 1, 6, 1, b"later");
        let got = e.take_blocking().expect("complete");
        assert_eq!((&b, got.status.source, got.status.tag), (b"later", 1, 6));
        assert!(e.take_blocking().is_none(), "taken back once");
        // A message stored before the receive is found at once.
        eager(&mut e, 2, 7, 0, b"early");
        assert!(blocking(&mut e, &mut c, Some(2)));
        assert_eq!(e.take_blocking().expect("complete").finish().count_bytes, 5);
        assert_eq!(&c, b"early");
        // Rendezvous data names the blocking slot like any receive.
        let mut d = [0u8; 10];
        assert!(blocking(&mut e, &mut d, None));
        e.arrive_rts(envelope(0, 3), 0, (10, 77), b"hello", None);
        let [Action::Cts { recv_id, .. }] = e.actions[..] else {
            panic!("a clear to send")
        };
        assert!(!e.blocking_done());
        e.data(recv_id, 5, b"world");
        assert_eq!((&d, e.take_blocking().is_some()), (b"helloworld", true));
    }

    #[test]
    fn an_abandoned_blocking_receive_is_withdrawn_unless_its_data_is_on_the_way() {
        let mut e = Engine::new(1 << 20, 3);
        let mut a = [0u8; 4];
        assert!(blocking(&mut e, &mut a, None));
        e.abandon_blocking();
        eager(&mut e, 1, 5, 0, b"kept");
        assert_eq!(a, [0; 4], "no longer posted: the message waits unexpected");
        assert!(blocking(&mut e, &mut a, None), "the slot is free again");
        assert_eq!(&a, b"kept");
        e.take_blocking();
        let mut b = [0u8; 8];
        assert!(blocking(&mut e, &mut b, None));
        e.arrive_rts(envelope(2, 3), 0, (8, 9), b"", None);
        e.abandon_blocking();
        let mut c = [0u8; 1];
        assert!(
            !blocking(&mut e, &mut c, None),
            "matched: kept until its data lands"
        );
    }

    #[test]
    fn out_of_order_arrivals_match_in_sender_order() {
        let mut e = Engine::new(1 << 20, 3);
        eager(&mut e, 1, 5, 1, b"second");
        eager(&mut e, 1, 5, 0, b"first!");
        let mut a = [0u8; 6];
        let id = recv(&mut e, &mut a);
        post_any(&mut e, id);
        assert!(e.reqs[&id].done);
        assert_eq!(&a, b"first!");
        assert_eq!(e.reqs[&id].status.source, 1);
    }

    #[test]
    fn a_message_held_back_matches_once_the_one_before_it_lands_in_a_posted_receive() {
        let mut e = Engine::new(1 << 20, 3);
        let (mut a, mut b) = ([0u8; 5], [0u8; 5]);
        let (ra, rb) = (recv(&mut e, &mut a), recv(&mut e, &mut b));
        post_any(&mut e, ra);
        post_any(&mut e, rb);
        eager(&mut e, 1, 5, 1, b"later");
        assert!(!e.reqs[&ra].done && !e.reqs[&rb].done, "held back");
        eager(&mut e, 1, 5, 0, b"first");
        assert!(e.reqs[&ra].done && e.reqs[&rb].done);
        assert_eq!((&a, &b), (b"first", b"later"));
        // The next in order goes straight to a new receive.
        let mut c = [0u8; 4];
        let rc = recv(&mut e, &mut c);
        post_any(&mut e, rc);
        eager(&mut e, 1, 5, 2, b"next");
        assert_eq!(&c, b"next");
    }

    #[test]
    fn posted_receives_match_first_fit_and_truncate() {
        let mut e = Engine::new(1 << 20, 3);
        let mut a = [0u8; 2];
        let mut b = [0u8; 8];
        let ra = recv(&mut e, &mut a);
        let rb = recv(&mut e, &mut b);
        e.post(
            ra,
            Pattern {
                src: Some(2),
                ctx: 0,
                tag: Some(9),
            },
        );
        e.post(
            rb,
            Pattern {
                src: None,
                ctx: 0,
                tag: None,
            },
        );
        eager(&mut e, 2, 9, 0, b"xyz");
        assert!(e.reqs[&ra].done);
        assert_eq!(e.reqs[&ra].status.error, Some(ErrorClass::Truncate));
        assert!(!e.reqs[&rb].done);
        assert!(e.cancel_recv(rb));
        assert!(e.reqs[&rb].status.cancelled);
    }

    #[test]
    fn a_message_from_outside_the_job_is_a_fault_and_matches_nothing() {
        let mut e = Engine::new(1 << 20, 3);
        let mut a = [0u8; 2];
        let id = recv(&mut e, &mut a);
        post_any(&mut e, id);
        eager(&mut e, 3, 5, 0, b"no");
        assert!(!e.reqs[&id].done);
        assert_eq!(e.fault.take().map(|f| f.class), Some(ErrorClass::Intern));
        e.arrive_rts(envelope(9, 0), 0, (4, 1), b"", None);
        assert!(e.fault.is_some() && e.actions.is_empty());
        assert_eq!(e.next_seq(3, 0).map_err(|f| f.class), Err(ErrorClass::Rank));
    }

    #[test]
    fn unexpected_bound_is_reported() {
        let mut e = Engine::new(4, 3);
        eager(&mut e, 0, 1, 0, b"12345");
        assert_eq!(e.fault.as_ref().unwrap().class, ErrorClass::NoMem);
    }

    #[test]
    fn rendezvous_asks_for_data_and_completes() {
        let mut e = Engine::new(16, 3);
        let mut buf = [0u8; 10];
        let id = recv(&mut e, &mut buf);
        e.post(
            id,
            Pattern {
                src: Some(0),
                ctx: 0,
                tag: None,
            },
        );
        let env = Envelope {
            src: 0,
            ctx: 0,
            tag: 3,
        };
        e.arrive_rts(env, 0, (13, 77), b"hel", None);
        assert!(matches!(
            e.actions[..],
            [Action::Cts {
                dest: 0,
                send_id: 77,
                ..
            }]
        ));
        assert!(!e.reqs[&id].done);
        e.data(id, 3, b"lo");
        assert!(!e.reqs[&id].done);
        e.data(id, 5, b"world!!!");
        assert!(e.reqs[&id].done);
        assert_eq!(&buf, b"helloworld");
        assert_eq!(e.reqs[&id].status.error, Some(ErrorClass::Truncate));
    }

    #[test]
    fn a_split_send_completes_with_its_last_part_and_a_split_receive_with_its_last_byte() {
        let mut e = Engine::new(16, 3);
        let data = [3u8; 8];
        let send = e.add_req(ReqKind::Send {
            buf: data.as_ptr(),
            len: 8,
            dest: 1,
            owned: Vec::new(),
            ahead: 0,
            parts: 1,
            msg: (0, 0),
            cancel_asked: false,
        });
        // Asked to write a part it could not (its chunks go later), then the receiver's
        // read ends: the send waits for the chunks.
        assert!(e.expect_part(send));
        e.complete(send);
        assert!(!e.reqs[&send].done);
        e.complete(send);
        assert!(e.reqs[&send].done);
        // A send whose message could not leave completes at once, in error.
        let failed = e.add_req(ReqKind::Send {
            buf: data.as_ptr(),
            len: 8,
            dest: 1,
            owned: Vec::new(),
            ahead: 0,
            parts: 2,
            msg: (0, 0),
            cancel_asked: false,
        });
        e.fail(failed, ErrorClass::Other);
        assert!(e.reqs[&failed].done);
        assert_eq!(e.reqs[&failed].status.error, Some(ErrorClass::Other));
        assert!(
            !e.expect_part(send),
            "a request to write for a finished send"
        );
        assert!(e.fault.take().is_some());
        // The receiver: the tail past its capacity, its own part, the sender's part.
        let mut buf = [0u8; 6];
        let id = recv(&mut e, &mut buf);
        post_any(&mut e, id);
        let from = Source { pid: 7, addr: 64 };
        e.arrive_rts(envelope(1, 0), 0, (10, send), b"", Some(from));
        for n in [4, 3] {
            e.landed(id, n);
            assert!(!e.reqs[&id].done);
        }
        e.landed(id, 3);
        assert!(e.reqs[&id].done);
        assert_eq!(e.reqs[&id].status.error, Some(ErrorClass::Truncate));
        e.landed(12345, 1);
        assert!(e.fault.is_some(), "bytes for no receive are a fault");
    }

    #[test]
    fn a_sender_of_this_host_is_read_from_after_the_prefix() {
        let mut e = Engine::new(16, 3);
        let mut buf = [0u8; 4];
        let id = recv(&mut e, &mut buf);
        let env = Envelope {
            src: 1,
            ctx: 0,
            tag: 0,
        };
        let from = Source { pid: 7, addr: 64 };
        e.arrive_rts(env, 0, (6, 9), b"ab", Some(from));
        post_any(&mut e, id);
        assert!(matches!(
            e.actions[..],
            [Action::Pull {
                dest: 1,
                send_id: 9,
                len: 6,
                from: Source { pid: 7, addr: 64 },
                ..
            }]
        ));
        // The read starts after the prefix and stops at the capacity.
        let (_, cap, have) = e.pull_target(id).unwrap();
        assert_eq!((cap, have), (4, 2));
        assert!(!e.reqs[&id].done);
        e.landed(id, 2);
        assert!(
            !e.reqs[&id].done,
            "the bytes past the capacity are still to land"
        );
        e.landed(id, 2);
        assert!(e.reqs[&id].done);
        assert_eq!(e.reqs[&id].status.error, Some(ErrorClass::Truncate));
        assert_eq!(&buf[..2], b"ab");
    }
}
