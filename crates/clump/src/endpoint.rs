//! Endpoints: name, tag, handler table, translation table and segment (AM-II's `ep_t`).
//!
//! An endpoint and its bundle belong to the thread that created them (they are `!Send`):
//! a process with several threads gives each thread its own bundles and endpoints, which
//! keeps every fast path free of locks. Shared state crosses processes only through the
//! queue block.

use crate::bundle::BundleCore;
use crate::config::Config;
use crate::error::ReturnReason;
use crate::error::{Error, Result};
use crate::message::{
    ArgBuf, Kind, Message, Returned, ReturnedMessage, MAX_HANDLERS, MAX_TRANSLATIONS,
};
use crate::name::{host_id, EndpointId, EndpointName, NO_ADDR};
use crate::net::port::NetPort;
use crate::route::{NetPeer, Route};
use crate::shm::block::MappedBlock;
use crate::shm::packet::Packet;
use crate::shm::region::Region;
use crate::shm::remote::{Remote, RemoteRef, SegMapping, SegMemory};
use crate::sync::Ordering;
use crate::token::Token;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasherDefault;
use std::rc::{Rc, Weak};
use std::sync::Arc;

pub(crate) type HandlerFn = dyn Fn(&mut Token<'_>, &Message<'_>);
pub(crate) type ReturnFn = dyn Fn(&Returned<'_>);

/// One entry of the translation table, with the flow-control state of that destination.
pub(crate) struct Translation {
    pub name: EndpointName,
    pub tag: u64,
    pub route: Route,
    /// Requests sent and not yet answered, oldest first. Replies from one destination come
    /// back in request order (its handlers run in queue order, over either transport), so
    /// the front is the one a reply answers; if the destination dies these come back.
    pub outstanding: VecDeque<SavedRequest>,
    /// The destination's segment, mapped, for long messages and gets (shared memory).
    pub segment: Option<Arc<SegMapping>>,
    /// Why the destination can no longer be reached (its process is gone, or the network
    /// gave up on it): further sends return at once for this reason.
    pub dead: Option<ReturnReason>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct SavedRequest {
    pub kind: Kind,
    pub handler: u8,
    pub args: ArgBuf,
    pub offset: u64,
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

/// Credits owed to one requester for requests whose handlers did not reply.
pub(crate) struct PendingAck {
    pub src: EndpointId,
    pub credit_slot: u32,
    pub count: u32,
}

/// A reply (or ack, or returned request) that found the requester's queue full and is
/// retried by later polls, so that replying never blocks a handler.
pub(crate) struct Deferred {
    pub to: RemoteRef,
    pub packet: Packet,
    pub payload: Vec<u8>,
}

pub(crate) struct EndpointCore {
    pub name: EndpointName,
    pub own: Arc<Remote>,
    pub bundle: RefCell<Weak<BundleCore>>,
    pub credits: usize,
    pub req_head: Cell<u64>,
    pub rep_head: Cell<u64>,
    pub handlers: RefCell<Vec<Option<Rc<HandlerFn>>>>,
    pub on_return: RefCell<Option<Rc<ReturnFn>>>,
    pub translations: RefCell<Vec<Option<Translation>>>,
    pub outstanding_total: Cell<usize>,
    pub local: RefCell<VecDeque<LocalEvent>>,
    pub deferred: RefCell<VecDeque<Deferred>>,
    pub pending_acks: RefCell<Vec<PendingAck>>,
    pub segment: RefCell<Option<Arc<SegMapping>>>,
    /// Requesters seen, for replies: 001's inverse mapping, found by name, with the last
    /// one found kept aside (a burst of requests usually comes from one sender).
    pub sources: RefCell<HashMap<EndpointId, RemoteRef, BuildHasherDefault<IdHasher>>>,
    pub last_source: RefCell<Option<(EndpointId, RemoteRef)>>,
    pub freed: Cell<bool>,
    pub polls: Cell<u32>,
    pub stats: Cell<EndpointStats>,
    /// The UDP socket and reliability machine; `None` with the network disabled.
    pub net: RefCell<Option<NetPort>>,
    /// Requests in flight to each network peer, oldest first, by translation index: the
    /// peer answers each with exactly one reply-channel message, in order, so the front
    /// names the translation whose credit the next answer returns.
    pub net_flights: RefCell<HashMap<EndpointId, VecDeque<u32>, BuildHasherDefault<IdHasher>>>,
    /// Credits owed to network requesters whose handlers did not reply, coalesced.
    pub net_acks: RefCell<Vec<(NetPeer, u32)>>,
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

/// A communication endpoint. Cloning gives another handle to the same endpoint.
#[derive(Clone)]
pub struct Endpoint {
    pub(crate) core: Rc<EndpointCore>,
}

impl EndpointCore {
    pub(crate) fn new(tag: u64, config: &Config, bundle: Weak<BundleCore>) -> Result<Rc<Self>> {
        let nonce = fresh_nonce();
        let block = MappedBlock::create(tag, nonce)
            .map_err(|e| Error::io("cannot create the endpoint's shared queue block", e))?;
        let id = EndpointId {
            pid: std::process::id(),
            fd: block.fd(),
            nonce,
        };
        let own = Remote::register_own(id, block);
        let net = if config.net.enabled {
            Some(
                NetPort::open(id, config.job.job_id, config.credits, &config.net).map_err(|e| {
                    Error::io(
                        format!("cannot open a UDP socket on {}", config.net.bind_ip),
                        e,
                    )
                })?,
            )
        } else {
            None
        };
        Ok(Rc::new(EndpointCore {
            name: EndpointName {
                host: host_id(config.host),
                id,
                addr: net.as_ref().map_or(NO_ADDR, |n| n.addr()),
            },
            own,
            bundle: RefCell::new(bundle),
            credits: config.credits as usize,
            req_head: Cell::new(0),
            rep_head: Cell::new(0),
            handlers: RefCell::new(vec![None; MAX_HANDLERS]),
            on_return: RefCell::new(None),
            translations: RefCell::new(Vec::new()),
            outstanding_total: Cell::new(0),
            local: RefCell::new(VecDeque::new()),
            deferred: RefCell::new(VecDeque::new()),
            pending_acks: RefCell::new(Vec::new()),
            segment: RefCell::new(None),
            sources: RefCell::new(HashMap::default()),
            last_source: RefCell::new(None),
            freed: Cell::new(false),
            polls: Cell::new(0),
            stats: Cell::new(EndpointStats::default()),
            net: RefCell::new(net),
            net_flights: RefCell::new(HashMap::default()),
            net_acks: RefCell::new(Vec::new()),
        }))
    }

    pub(crate) fn check_live(&self) -> Result<()> {
        if self.freed.get() {
            Err(Error::EndpointFreed)
        } else {
            Ok(())
        }
    }

    pub(crate) fn count(&self, f: impl FnOnce(&mut EndpointStats)) {
        let mut s = self.stats.get();
        f(&mut s);
        self.stats.set(s);
    }

    pub(crate) fn return_locally(&self, r: ReturnedMessage) {
        self.local.borrow_mut().push_back(LocalEvent::Returned(r));
    }

    /// How translations to `name` travel: shared memory on this host, UDP to others.
    fn route_to(&self, name: &EndpointName) -> Result<Route> {
        if name.host == self.name.host {
            let remote = Remote::lookup(name.id)
                .map_err(|e| Error::io(format!("cannot map endpoint {name}"), e))?;
            return Ok(Route::Shm(Rc::new(remote)));
        }
        if name.addr == NO_ADDR {
            return Err(Error::BadArg(format!(
                "endpoint {name} lives on another host and has no network address"
            )));
        }
        if self.net.borrow().is_none() {
            return Err(Error::BadArg(format!(
                "endpoint {name} lives on another host, and this endpoint has no network (CLUMP_NET=0)"
            )));
        }
        Ok(Route::Net(NetPeer {
            addr: name.addr,
            id: name.id,
        }))
    }

    /// The remote block of a requester, for replying to it.
    pub(crate) fn source(&self, id: EndpointId) -> std::io::Result<RemoteRef> {
        if let Some((last, r)) = self.last_source.borrow().as_ref() {
            if *last == id {
                return Ok(r.clone());
            }
        }
        let found = self.sources.borrow().get(&id).cloned();
        let r = match found {
            Some(r) => r,
            None => {
                let r = Rc::new(Remote::lookup(id)?);
                self.sources.borrow_mut().insert(id, r.clone());
                r
            }
        };
        *self.last_source.borrow_mut() = Some((id, r.clone()));
        Ok(r)
    }
}

impl Endpoint {
    /// The name other endpoints map to reach this one.
    pub fn name(&self) -> EndpointName {
        self.core.name
    }

    pub fn tag(&self) -> u64 {
        self.core.own.block.get().header.tag.load(Ordering::Relaxed)
    }

    /// Changes the tag; messages sent under the old one come back to their senders.
    pub fn set_tag(&self, tag: u64) -> Result<()> {
        self.core.check_live()?;
        self.core
            .own
            .block
            .get()
            .header
            .tag
            .store(tag, Ordering::Release);
        Ok(())
    }

    /// Installs the handler for index `index` (1..=255; 0 is [`Endpoint::set_return_handler`]).
    pub fn set_handler(
        &self,
        index: usize,
        handler: impl Fn(&mut Token<'_>, &Message<'_>) + 'static,
    ) -> Result<()> {
        self.core.check_live()?;
        if index == 0 || index >= MAX_HANDLERS {
            return Err(Error::BadHandlerIndex(index));
        }
        self.core.handlers.borrow_mut()[index] = Some(Rc::new(handler));
        Ok(())
    }

    pub fn clear_handler(&self, index: usize) -> Result<()> {
        if index == 0 || index >= MAX_HANDLERS {
            return Err(Error::BadHandlerIndex(index));
        }
        self.core.handlers.borrow_mut()[index] = None;
        Ok(())
    }

    /// Installs handler 0, which receives every message that could not be delivered.
    /// Without one, a returned message is reported on standard error.
    pub fn set_return_handler(&self, handler: impl Fn(&Returned<'_>) + 'static) -> Result<()> {
        self.core.check_live()?;
        *self.core.on_return.borrow_mut() = Some(Rc::new(handler));
        Ok(())
    }

    /// Makes translation `index` name endpoint `name` with tag `tag` (`AM_Map`).
    pub fn map(&self, index: u32, name: EndpointName, tag: u64) -> Result<()> {
        self.core.check_live()?;
        let i = index as usize;
        if i >= MAX_TRANSLATIONS {
            return Err(Error::BadArg(format!(
                "translation index {index} exceeds {MAX_TRANSLATIONS}"
            )));
        }
        let route = self.core.route_to(&name)?;
        let mut table = self.core.translations.borrow_mut();
        if table.len() <= i {
            table.resize_with(i + 1, || None);
        }
        if table[i].as_ref().is_some_and(|t| !t.outstanding.is_empty()) {
            return Err(Error::InUse(format!(
                "translation {index} has requests in flight"
            )));
        }
        table[i] = Some(Translation {
            name,
            tag,
            route,
            outstanding: VecDeque::new(),
            segment: None,
            dead: None,
        });
        Ok(())
    }

    /// Removes translation `index` (`AM_UnMap`); refused while requests through it are in flight.
    pub fn unmap(&self, index: u32) -> Result<()> {
        let mut table = self.core.translations.borrow_mut();
        let slot = table
            .get_mut(index as usize)
            .ok_or(Error::NoTranslation(index))?;
        match slot {
            None => Err(Error::NoTranslation(index)),
            Some(t) if !t.outstanding.is_empty() => Err(Error::InUse(format!(
                "translation {index} has requests in flight"
            ))),
            Some(_) => {
                *slot = None;
                Ok(())
            }
        }
    }

    /// The name and tag at translation `index`, if mapped.
    pub fn translation(&self, index: u32) -> Option<(EndpointName, u64)> {
        let table = self.core.translations.borrow();
        table.get(index as usize)?.as_ref().map(|t| (t.name, t.tag))
    }

    /// Gives this endpoint a zero-filled segment of `len` bytes (0 removes it), which long
    /// messages write into and gets read from. Replaces any earlier segment. Processes of
    /// this host map it, so their long messages and gets copy directly.
    pub fn set_segment(&self, len: usize) -> Result<()> {
        self.core.check_live()?;
        if len > crate::message::MAX_SEGMENT {
            return Err(Error::BadArg(format!(
                "segment of {len} bytes exceeds {}",
                crate::message::MAX_SEGMENT
            )));
        }
        let region = if len == 0 {
            None
        } else {
            Some(
                Region::create("clump-segment", len)
                    .map_err(|e| Error::io("cannot create segment", e))?,
            )
        };
        let segment = region.map(|r| (SegMemory::Shared(r), len));
        *self.core.segment.borrow_mut() = self.core.own.publish_segment(segment);
        Ok(())
    }

    pub fn segment_len(&self) -> usize {
        self.core.segment.borrow().as_ref().map_or(0, |m| m.len)
    }

    /// The segment's base address and length, for programs that access it in place.
    /// Peers may write into it at any time their messages allow; ordering those accesses
    /// is the program's protocol, as with any shared memory.
    pub fn segment_ptr(&self) -> Option<(*mut u8, usize)> {
        self.core
            .segment
            .borrow()
            .as_ref()
            .and_then(|m| Some((m.local_ptr()?, m.len)))
    }

    /// Copies segment bytes at `offset` into `buf`.
    pub fn read_segment(&self, offset: usize, buf: &mut [u8]) -> Result<()> {
        let (base, len) = self
            .segment_ptr()
            .ok_or_else(|| Error::BadArg("no segment".into()))?;
        check_range(offset, buf.len(), len)?;
        // SAFETY: the range lies inside the mapped segment (checked above).
        unsafe { std::ptr::copy_nonoverlapping(base.add(offset), buf.as_mut_ptr(), buf.len()) };
        Ok(())
    }

    /// Copies `data` into the segment at `offset`.
    pub fn write_segment(&self, offset: usize, data: &[u8]) -> Result<()> {
        let (base, len) = self
            .segment_ptr()
            .ok_or_else(|| Error::BadArg("no segment".into()))?;
        check_range(offset, data.len(), len)?;
        // SAFETY: the range lies inside the mapped segment (checked above).
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), base.add(offset), data.len()) };
        Ok(())
    }

    /// Frees the endpoint (`AM_FreeEndpoint`): senders see it gone, requests still queued go
    /// back to their senders as `EndpointGone`, and the handle becomes unusable.
    pub fn free(&self) {
        crate::dispatch::free_endpoint(&self.core);
    }

    pub fn stats(&self) -> EndpointStats {
        self.core.stats.get()
    }

    /// What the network transport of this endpoint did; `None` without a network.
    pub fn net_stats(&self) -> Option<crate::net::NetStats> {
        self.core.net.borrow().as_ref().map(|p| p.stats())
    }

    /// Requests waiting in this endpoint's queue for a poll (those being enqueued included).
    pub fn pending_requests(&self) -> usize {
        let claimed = self.core.own.block.get().request.ring().claimed();
        claimed.saturating_sub(self.core.req_head.get()) as usize
    }

    /// Requests in flight from this endpoint.
    pub fn outstanding(&self) -> usize {
        self.core.outstanding_total.get()
    }
}

pub(crate) fn check_range(offset: usize, len: usize, limit: usize) -> Result<()> {
    match offset.checked_add(len) {
        Some(end) if end <= limit => Ok(()),
        _ => Err(Error::BadArg(format!(
            "range {offset}+{len} exceeds the segment's {limit} bytes"
        ))),
    }
}

/// Hashes endpoint ids (already unique and well mixed by their nonce) with one multiply,
/// instead of SipHash on the reply path.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = (self.0.rotate_left(32) ^ v as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
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
