//! The matching engine: posted and unexpected queues, per-sender sequence order, and the
//! requests the protocols complete. Handlers only record what arrived here; everything that
//! sends runs from `progress` outside handlers (a handler may only reply).

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use crate::datatype::Datatype;
use crate::error::{Error, ErrorClass};
use crate::matching::{Envelope, Pattern};
use crate::status::Status;

/// A message as it arrives, before matching.
pub struct Incoming {
    pub env: Envelope,
    pub seq: u32,
    pub body: Body,
}

pub enum Body {
    /// The whole message (eager protocol).
    Eager(Vec<u8>),
    /// A request to send `len` bytes, answered by a clear to send naming `send_id`.
    Rts { len: usize, send_id: u64 },
}

/// What `progress` must send once the handlers have returned.
pub enum Action {
    /// Tell `dest` that receive `recv_id` is ready for its send `send_id`.
    Cts {
        dest: u32,
        send_id: u64,
        recv_id: u64,
    },
    /// Send the data of send `send_id` to receive `recv_id`.
    Data { send_id: u64, recv_id: u64 },
}

pub enum ReqKind {
    Send {
        buf: *const u8,
        len: usize,
        dest: u32,
        /// The data when the send owns it (a non-contiguous type packed, a buffered send's
        /// copy); `buf` then points into it.
        owned: Vec<u8>,
    },
    Recv {
        buf: *mut u8,
        cap: usize,
        /// The sender's message length once matched.
        expected: Option<usize>,
        received: usize,
        group: Rc<Vec<u32>>,
        /// For a non-contiguous type: where the packed bytes `buf` receives go at the end.
        unpack: Option<Unpack>,
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
    /// staging bytes into the user's buffer.
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
        self.status
    }
}

#[derive(Default)]
pub struct Engine {
    pub reqs: HashMap<u64, Req>,
    next_req: u64,
    posted: VecDeque<(Pattern, u64)>,
    unexpected: VecDeque<Incoming>,
    unexpected_bytes: usize,
    pub unexpected_limit: usize,
    next_seq_out: HashMap<(u32, u32), u32>,
    expected_in: HashMap<(u32, u32), u32>,
    held: HashMap<(u32, u32, u32), Incoming>,
    pub actions: Vec<Action>,
    /// Requests nobody will wait for (freed or buffered): dropped once complete.
    detached: Vec<u64>,
    /// A failure found inside a handler, reported by the next call.
    pub fault: Option<Error>,
}

impl Engine {
    pub fn new(unexpected_limit: usize) -> Engine {
        Engine {
            next_req: 1,
            unexpected_limit,
            ..Engine::default()
        }
    }

    pub fn add_req(&mut self, kind: ReqKind) -> u64 {
        let id = self.next_req;
        self.next_req += 1;
        self.reqs.insert(
            id,
            Req {
                kind,
                done: false,
                status: Status::empty(),
            },
        );
        id
    }

    /// Gives send `id` the data it sends from, to hold until it completes.
    pub fn keep(&mut self, id: u64, data: Vec<u8>) {
        if let Some(Req {
            kind: ReqKind::Send { owned, .. },
            ..
        }) = self.reqs.get_mut(&id)
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
        self.detached.retain(|id| match reqs.get(id) {
            Some(r) if r.done => {
                reqs.remove(id).map(Req::finish);
                false
            }
            Some(_) => true,
            None => false,
        });
    }

    /// The sequence number of the next message to `dest` in `ctx`.
    pub fn next_seq(&mut self, dest: u32, ctx: u32) -> u32 {
        let s = self.next_seq_out.entry((dest, ctx)).or_insert(0);
        let seq = *s;
        *s = s.wrapping_add(1);
        seq
    }

    /// A message arrived: match it in sender order (holding early ones back).
    pub fn arrive(&mut self, m: Incoming) {
        let key = (m.env.src, m.env.ctx);
        let expected = *self.expected_in.get(&key).unwrap_or(&0);
        if m.seq != expected {
            self.held.insert((key.0, key.1, m.seq), m);
            return;
        }
        let mut next = Some(m);
        let mut seq = expected;
        while let Some(m) = next {
            self.deliver(m);
            seq = seq.wrapping_add(1);
            next = self.held.remove(&(key.0, key.1, seq));
        }
        self.expected_in.insert(key, seq);
    }

    /// Matches an in-order message against the posted receives, or stores it.
    fn deliver(&mut self, m: Incoming) {
        let pos = self.posted.iter().position(|(p, _)| p.matches(&m.env));
        match pos {
            Some(i) => {
                let (_, id) = self.posted.remove(i).expect("position is in range");
                self.complete_match(id, m);
            }
            None => {
                if let Body::Eager(data) = &m.body {
                    self.unexpected_bytes += data.len();
                    if self.unexpected_bytes > self.unexpected_limit {
                        self.fault.get_or_insert(Error::new(
                            ErrorClass::NoMem,
                            format!(
                                "unexpected messages exceed CLUMP_MPI_UNEXPECTED_BYTES ({} bytes)",
                                self.unexpected_limit
                            ),
                        ));
                    }
                }
                self.unexpected.push_back(m);
            }
        }
    }

    /// Posts receive `id` with `pat`: takes the first stored message it matches, if any.
    pub fn post(&mut self, id: u64, pat: Pattern) {
        match self.unexpected.iter().position(|m| pat.matches(&m.env)) {
            Some(i) => {
                let m = self.unexpected.remove(i).expect("position is in range");
                if let Body::Eager(d) = &m.body {
                    self.unexpected_bytes -= d.len();
                }
                self.complete_match(id, m);
            }
            None => self.posted.push_back((pat, id)),
        }
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
        let Some(req) = self.reqs.get_mut(&id) else {
            return;
        };
        let ReqKind::Recv {
            buf,
            cap,
            expected,
            group,
            ..
        } = &mut req.kind
        else {
            return;
        };
        req.status.source = group.iter().position(|&r| r == m.env.src).unwrap_or(0) as i32;
        req.status.tag = m.env.tag;
        match m.body {
            Body::Eager(data) => {
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
            Body::Rts { len, send_id } => {
                *expected = Some(len);
                if len > *cap {
                    req.status.error = Some(ErrorClass::Truncate);
                }
                req.status.count_bytes = len.min(*cap);
                // An empty message has no data to wait for.
                req.done = len == 0;
                self.actions.push(Action::Cts {
                    dest: m.env.src,
                    send_id,
                    recv_id: id,
                });
            }
        }
    }

    /// Rendezvous data for receive `id` at `offset` of the message.
    pub fn data(&mut self, id: u64, offset: usize, bytes: &[u8]) {
        let Some(req) = self.reqs.get_mut(&id) else {
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

    /// Cancels receive `id` if it has not matched yet; true when it was cancelled.
    pub fn cancel_recv(&mut self, id: u64) -> bool {
        match self.posted.iter().position(|(_, r)| *r == id) {
            Some(i) => {
                self.posted.remove(i);
                if let Some(req) = self.reqs.get_mut(&id) {
                    req.status.cancelled = true;
                    req.done = true;
                }
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eager(src: u32, tag: i32, seq: u32, data: &[u8]) -> Incoming {
        Incoming {
            env: Envelope { src, ctx: 0, tag },
            seq,
            body: Body::Eager(data.to_vec()),
        }
    }

    fn recv(e: &mut Engine, buf: &mut [u8]) -> u64 {
        e.add_req(ReqKind::Recv {
            buf: buf.as_mut_ptr(),
            cap: buf.len(),
            expected: None,
            received: 0,
            group: Rc::new(vec![0, 1, 2]),
            unpack: None,
        })
    }

    #[test]
    fn out_of_order_arrivals_match_in_sender_order() {
        let mut e = Engine::new(1 << 20);
        e.arrive(eager(1, 5, 1, b"second"));
        e.arrive(eager(1, 5, 0, b"first!"));
        let mut a = [0u8; 6];
        let id = recv(&mut e, &mut a);
        e.post(
            id,
            Pattern {
                src: None,
                ctx: 0,
                tag: None,
            },
        );
        assert!(e.reqs[&id].done);
        assert_eq!(&a, b"first!");
        assert_eq!(e.reqs[&id].status.source, 1);
    }

    #[test]
    fn posted_receives_match_first_fit_and_truncate() {
        let mut e = Engine::new(1 << 20);
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
        e.arrive(eager(2, 9, 0, b"xyz"));
        assert!(e.reqs[&ra].done);
        assert_eq!(e.reqs[&ra].status.error, Some(ErrorClass::Truncate));
        assert!(!e.reqs[&rb].done);
        assert!(e.cancel_recv(rb));
        assert!(e.reqs[&rb].status.cancelled);
    }

    #[test]
    fn unexpected_bound_is_reported() {
        let mut e = Engine::new(4);
        e.arrive(eager(0, 1, 0, b"12345"));
        assert_eq!(e.fault.as_ref().unwrap().class, ErrorClass::NoMem);
    }

    #[test]
    fn rendezvous_asks_for_data_and_completes() {
        let mut e = Engine::new(16);
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
        e.arrive(Incoming {
            env: Envelope {
                src: 0,
                ctx: 0,
                tag: 3,
            },
            seq: 0,
            body: Body::Rts {
                len: 10,
                send_id: 77,
            },
        });
        assert!(matches!(
            e.actions[..],
            [Action::Cts {
                dest: 0,
                send_id: 77,
                ..
            }]
        ));
        e.data(id, 0, b"hello");
        assert!(!e.reqs[&id].done);
        e.data(id, 5, b"world");
        assert!(e.reqs[&id].done);
        assert_eq!(&buf, b"helloworld");
    }
}
