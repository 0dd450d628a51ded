//! An endpoint's state (AM-II's `ep_t`), split by who owns each part:
//!
//! - [`Tables`]: what the program fills in: handlers, handler 0, translations.
//! - `flow`: credits, requests in flight and network flights, pure bookkeeping
//!   ([`crate::proto::flow`]), with the local events a poll delivers without a queue.
//! - [`ShmSide`]: the shared-memory transport's part: the endpoint's queue block, the
//!   heads of its queues, replies waiting for room, the requesters it answers.
//! - [`NetSide`]: the network transport's part: its port (socket and reliability
//!   machine) and the credits it owes.
//! - The thread's holders of delayed credits ([`crate::proto::held::Held`]): owned by
//!   `Rc` by the thread's bundles and endpoints, so that an endpoint closed after its
//!   thread's locals are gone still sends what it owes; a thread-local only finds the
//!   list when a bundle is made (`thread_finder.rs`, as for the job membership). The
//!   one other thread-local, the depth of handlers running on the thread (`handlers.rs`),
//!   is a const `Cell` with no destructor, so it is never gone when read; and it belongs
//!   to the thread, not to an endpoint: the rule "a reply handler sends nothing" holds on
//!   the thread that runs one, whichever endpoint it sends from, while other threads that
//!   share the endpoints (AM_PAR) still send.
//!
//! Each mutable part is a [`part::Part`]: reached only inside `with(|part: &mut T| ..)`,
//! whose closure must be `Send`, which no reference to a part, the endpoint or a handler
//! is. So no borrow of a part is held across a handler, and none is taken twice: the
//! compiler checks it (see `part.rs`). Every mutable part of the state is one: the
//! handler table and handler 0, the translation table, `flow`, the local events, the
//! segment, shared memory's deferred answers, requester map and owed credits, the
//! network's port and owed credits. None holds a handle back to an endpoint, a bundle or
//! a handler (a part's value is as inert as its closure). The network's receive, which
//! lands fragments in the segment as the flow allows while the port decodes them, takes
//! the three in one door ([`part::Part::with_others`]). The `Cell`s (counters, `freed`,
//! the bundle's weak reference) are moved in and out and never borrowed. What the
//! compiler cannot see is a global way back to an endpoint: the thread's list of
//! endpoints holding credits (`net/send/owed.rs`) is reached only by polls and waits,
//! never from inside a part's closure.
//!
//! Running handlers (`handlers.rs`), the one routing point (`route.rs`), the verbs each
//! transport implements (`transport.rs`), waiting for credit or space (`wait.rs`) and
//! what follows a refused cross-memory attach (`fallback.rs`) sit beside the state; each
//! transport works on it from `shm/` and `net/`, and the AM layer (`am/`) is above them.
//!
//! An endpoint and its bundle belong to the thread that created them (they are `!Send`):
//! a process with several threads gives each thread its own bundles and endpoints, which
//! keeps every fast path free of locks. Shared state crosses processes only through the
//! queue block. A concurrent endpoint (issue 31) can put each part behind a lock, or
//! make it per-thread, behind the same `with`.

pub(crate) mod fallback;
pub(crate) mod handlers;
pub(crate) mod part;
pub(crate) mod route;
pub(crate) mod transport;
pub(crate) mod wait;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::message::{ArgBuf, Message, Returned, ReturnedMessage, MAX_HANDLERS};
use crate::name::{host_id, EndpointId, EndpointName, IdMap, NO_ADDR};
use crate::transport::net::port::NetPort;
use crate::proto::held::Held;
use crate::transport::net::NetPeer;
use crate::proto::acks::AckRuns;
use crate::proto::flow::Flow;
use crate::transport::shm::block::{MappedBlock, REPLY_SLOTS};
use crate::transport::shm::packet::Packet;
use crate::transport::shm::remote::{Remote, RemoteRef, SegMapping};
use crate::transport::shm::ring::Cursor;
use handlers::Token;
use part::Part;
use route::Route;
use std::cell::Cell;
use std::collections::VecDeque;
use std::rc::{Rc, Weak};
use std::sync::Arc;

pub(crate) type HandlerFn = dyn Fn(&mut Token<'_>, &Message<'_>);
pub(crate) type ReturnFn = dyn Fn(&Returned<'_>);

/// One entry of the translation table.
pub(crate) struct Translation {
    pub name: EndpointName,
    pub tag: u64,
    /// `None` for a destination on this host that no message has gone to yet: it is
    /// mapped on first use (see `route.rs`).
    pub route: Option<Route>,
    /// The destination's segment, mapped, for long messages and gets (shared memory).
    pub segment: Option<Arc<SegMapping>>,
}

/// What the program fills in.
pub(crate) struct Tables {
    pub handlers: Part<Vec<Option<Rc<HandlerFn>>>>,
    pub on_return: Part<Option<Rc<ReturnFn>>>,
    pub translations: Part<Vec<Option<Translation>>>,
}

/// Work the next poll of this endpoint delivers without any queue: messages returned at
/// the sender, and completed gets.
pub(crate) enum LocalEvent {
    Returned(ReturnedMessage),
    GetDone {
        handler: u8,
        args: ArgBuf,
        offset: u64,
        len: usize,
    },
}

/// A reply (or ack, or returned request) that found the requester's queue full and is
/// retried by later polls, so that replying never blocks a handler.
pub(crate) struct Deferred {
    pub to: RemoteRef,
    pub packet: Packet,
    pub payload: Vec<u8>,
}

/// The shared-memory transport's part of an endpoint.
pub(crate) struct ShmSide {
    /// This endpoint's queue block, registered so that local translations reuse it.
    pub own: Arc<Remote>,
    /// Where the poll side reads each of its queues.
    pub requests: Cursor,
    pub replies: Cursor,
    pub deferred: Part<VecDeque<Deferred>>,
    /// Credits owed to requesters (by id and credit slot) whose handlers did not reply.
    pub acks: Part<AckRuns<(EndpointId, u32)>>,
    pub sources: Part<Sources>,
    /// Polls so far, for the occasional check that destinations still live.
    pub polls: Cell<u32>,
}

/// Requesters seen, for replies: 001's inverse mapping, found by name, with the last one
/// found kept aside (a burst of requests usually comes from one sender).
#[derive(Default)]
pub(crate) struct Sources {
    pub map: IdMap<RemoteRef>,
    pub last: Option<(EndpointId, RemoteRef)>,
}

/// The network transport's part of an endpoint.
pub(crate) struct NetSide {
    /// The UDP socket and reliability machine; `None` with the network disabled.
    pub port: Part<Option<NetPort>>,
    /// Credits owed to network requesters whose handlers did not reply.
    pub acks: Part<AckRuns<NetPeer>>,
    /// The thread's endpoints that hold such credits back, this one among them when it
    /// does (`net/send/owed.rs`): owned here too, so it outlives the endpoint's close.
    pub held: Rc<Held<EndpointCore>>,
}

/// What an endpoint needs of the bundle it belongs to, which lives on the AM floor above.
pub(crate) trait Owner {
    /// Progress for a sender of `ep` that waits for credit or space; `network` when what
    /// it waits for comes from the network.
    fn progress(&self, ep: &Rc<EndpointCore>, network: bool) -> Result<()>;
    /// Forgets `ep` (freed, or moved to another bundle).
    fn remove(&self, ep: &Rc<EndpointCore>);
    /// Takes in what the endpoints' sockets hold and fires their timers, running no
    /// handler (for a freed endpoint that waits for their acks).
    fn pump_network(&self);
    /// Sleeps until a packet reaches one of `ep`'s queues or `timeout` passes.
    fn nap(&self, ep: &EndpointCore, timeout: std::time::Duration);
}

/// The owner of an endpoint that has none (never the case while it is live).
struct NoOwner;

impl Owner for NoOwner {
    fn progress(&self, _: &Rc<EndpointCore>, _: bool) -> Result<()> {
        Ok(())
    }
    fn remove(&self, _: &Rc<EndpointCore>) {}
    fn pump_network(&self) {}
    fn nap(&self, _: &EndpointCore, timeout: std::time::Duration) {
        std::thread::sleep(timeout);
    }
}

pub(crate) fn no_owner() -> Weak<dyn Owner> {
    Weak::<NoOwner>::new()
}

impl NetSide {
    /// Runs `f` on the port; `None` with the network disabled (or the port closed).
    #[inline(always)]
    pub(crate) fn port<R>(&self, f: impl FnOnce(&mut NetPort) -> R + Send) -> Option<R> {
        self.port.with(|p| p.as_mut().map(f))
    }

    /// Whether this endpoint has a network port.
    #[inline(always)]
    pub(crate) fn has_port(&self) -> bool {
        self.port.with(|p| p.is_some())
    }
}

pub(crate) struct EndpointCore {
    pub name: EndpointName,
    /// The bundle, in a `Cell`: read by moving it out and back ([`EndpointCore::owner`]),
    /// so no borrow of it exists to be held.
    bundle: Cell<Weak<dyn Owner>>,
    pub freed: Cell<bool>,
    pub stats: Cell<EndpointStats>,
    pub tables: Tables,
    pub flow: Part<Flow<NetPeer>>,
    pub local: Part<VecDeque<LocalEvent>>,
    /// This endpoint's own segment, which both transports land long messages in.
    pub segment: Part<Option<Arc<SegMapping>>>,
    pub shm: ShmSide,
    pub net: NetSide,
}

/// Counters of an endpoint's traffic and of the waits flow control imposed on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EndpointStats {
    /// Requests enqueued at their destination.
    pub requests_sent: u64,
    /// Rounds a send waited because its credit window to the destination was full.
    pub credit_waits: u64,
    /// Rounds a send waited because the destination's packet or bulk queue was full.
    pub queue_full_waits: u64,
    /// Replies that found the requester's queue full and were finished by a later poll.
    pub deferred_replies: u64,
    /// Messages delivered to handler 0.
    pub returned: u64,
    /// Long messages, gets and long replies the kernel refused to copy by cross-memory
    /// attach (requests and gets then went over the network where they could, the others
    /// came back as unreachable); 0 where it is permitted.
    pub segment_attach_refused: u64,
}

impl EndpointCore {
    pub(crate) fn new(
        tag: u64,
        config: &Config,
        bundle: Weak<dyn Owner>,
        held: &Rc<Held<EndpointCore>>,
    ) -> Result<Rc<Self>> {
        let nonce = fresh_nonce();
        let block = MappedBlock::create(tag, nonce)
            .map_err(|e| Error::io("cannot create the endpoint's shared queue block", e))?;
        let id = EndpointId {
            pid: std::process::id(),
            fd: block.fd(),
            nonce,
        };
        let own = Remote::register_own(id, block);
        let port = if config.net.enabled {
            Some(
                NetPort::open(id, &config.job, config.net.credits, &config.net).map_err(|e| {
                    Error::io(
                        format!("cannot open a UDP socket on {}", config.net.bind_ip),
                        e,
                    )
                })?,
            )
        } else {
            None
        };
        let name = EndpointName {
            host: host_id(config.host),
            id,
            addr: port.as_ref().map_or(NO_ADDR, |n| n.addr()),
        };
        // The process's own endpoints talk to each other without mapping both ways.
        crate::transport::net::members::admit(&name);
        Ok(Rc::new(EndpointCore {
            name,
            bundle: Cell::new(bundle),
            freed: Cell::new(false),
            stats: Cell::new(EndpointStats::default()),
            tables: Tables {
                handlers: Part::new(vec![None; MAX_HANDLERS]),
                on_return: Part::default(),
                translations: Part::default(),
            },
            flow: Part::new(Flow::new(
                config.credits as usize,
                config.net.credits as usize,
                REPLY_SLOTS,
            )),
            local: Part::default(),
            segment: Part::default(),
            shm: ShmSide {
                own,
                requests: Cursor::default(),
                replies: Cursor::default(),
                deferred: Part::default(),
                acks: Part::default(),
                sources: Part::default(),
                polls: Cell::new(0),
            },
            net: NetSide {
                port: Part::new(port),
                acks: Part::default(),
                held: held.clone(),
            },
        }))
    }

    /// The bundle this endpoint belongs to, while both live.
    pub(crate) fn owner(&self) -> Option<Rc<dyn Owner>> {
        let weak = self.bundle.replace(no_owner());
        let owner = weak.upgrade();
        self.bundle.set(weak);
        owner
    }

    /// Makes `owner` this endpoint's bundle (`no_owner()`: none).
    pub(crate) fn set_owner(&self, owner: Weak<dyn Owner>) {
        self.bundle.set(owner);
    }

    #[inline]
    pub(crate) fn check_live(&self) -> Result<()> {
        if self.freed.get() {
            Err(Error::EndpointFreed)
        } else {
            Ok(())
        }
    }

    #[inline]
    pub(crate) fn count(&self, f: impl FnOnce(&mut EndpointStats)) {
        let mut s = self.stats.get();
        f(&mut s);
        self.stats.set(s);
    }

    pub(crate) fn return_locally(&self, r: ReturnedMessage) {
        self.local.with(|l| l.push_back(LocalEvent::Returned(r)));
    }

    /// This endpoint's tag, as senders check it.
    #[inline]
    pub(crate) fn tag(&self) -> u64 {
        self.shm.own.tag()
    }

    /// A handle on the current segment mapping. Handlers read long payloads and gets
    /// through it, so the mapping outlives the call even if the handler replaces the
    /// endpoint's segment.
    #[inline]
    pub(crate) fn current_segment(&self) -> Option<Arc<SegMapping>> {
        self.segment.with(|s| s.clone())
    }

    /// Whether a request may go through `dest`, a shared-memory route, now.
    #[inline]
    pub(crate) fn has_credit(&self, dest: u32) -> bool {
        self.flow.with(|f| f.has_credit(dest))
    }

    /// Whether a request may go through `dest`, a network route, now.
    #[inline]
    pub(crate) fn has_net_credit(&self, dest: u32) -> bool {
        self.flow.with(|f| f.has_net_credit(dest))
    }

    /// Requests in flight from this endpoint.
    #[inline]
    pub(crate) fn outstanding(&self) -> usize {
        self.flow.with(|f| f.total())
    }
}

fn fresh_nonce() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    crate::name::fnv1a(
        &[
            t.to_le_bytes(),
            COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes(),
        ]
        .concat(),
    ) | 1
}
