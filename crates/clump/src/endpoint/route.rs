//! The one routing point: how each message reaches its destination. A request or get
//! goes through its translation's [`Route`], decided when the translation is mapped
//! ([`EndpointCore::plan`]: shared memory when the destination lives on this (virtual)
//! host, the network otherwise), completed on first use ([`EndpointCore::connect`]),
//! moved to the network when the kernel refuses cross-memory attach (`fallback.rs`), and
//! consulted by every send, get and the short fast path ([`EndpointCore::route`],
//! [`EndpointCore::with_open_shm`]). An answer goes back by the [`Requester`] the
//! transport that brought its request recorded in the token. The transports
//! (`transport.rs`) never choose: each is handed its own kind of peer.
//!
//! A destination on this host is mapped lazily, by the first message or segment access
//! through the translation, not by `map`: a job of n ranks that all map each other (SPMD
//! start-up) would otherwise hold n^2 mappings of queue blocks, each one an open, an mmap,
//! a pidfd and a munmap at exit, though most programs talk to a few neighbours only.
//! Messages from a peer need no mapping of it: every sender writes into the receiver's
//! one request queue, and replies map the requester when they first go back to it.

use super::{EndpointCore, Translation};
use crate::error::{Error, Result, ReturnReason};
use crate::name::{EndpointId, EndpointName, NO_ADDR};
use crate::transport::net::NetPeer;
use crate::transport::shm::remote::{Remote, RemoteRef, SegMapping};
use std::rc::Rc;
use std::sync::Arc;

/// How a translation reaches its destination.
#[derive(Clone)]
pub(crate) enum Route {
    Shm(RemoteRef),
    Net(NetPeer),
}

/// How the answer to a request goes back: by the transport that brought it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Requester {
    Shm(ShmRequester),
    Net(NetRequester),
}

/// A requester through shared memory: its id, its tag, its credit slot.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ShmRequester {
    pub src: EndpointId,
    pub src_tag: u64,
    pub credit_slot: u32,
}

/// A requester over the network, whose request carried the destination tag `tag`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NetRequester {
    pub from: NetPeer,
    pub tag: u64,
}

impl Route {
    /// Whether the destination still lives, as far as this process can see without
    /// waiting: a shared-memory peer's process is checked; a network peer is alive until
    /// the launcher says its process exited (or its silence is judged, `net/poll.rs`).
    pub fn alive(&self) -> bool {
        match self {
            Route::Shm(r) => r.alive(),
            Route::Net(p) => !crate::boot::watch::is_gone(p.id.pid),
        }
    }
}

impl EndpointCore {
    /// The route of a new translation to `name`: shared memory on this host (mapped on
    /// first use, so `None` here), UDP to the peer returned for others.
    pub(crate) fn plan(&self, name: &EndpointName) -> Result<Option<NetPeer>> {
        if name.host == self.name.host {
            return Ok(None);
        }
        if name.addr == NO_ADDR {
            return Err(Error::BadArg(format!(
                "endpoint {name} lives on another host and has no network address"
            )));
        }
        if !self.net.has_port() {
            return Err(Error::BadArg(format!(
                "endpoint {name} lives on another host, and this endpoint has no network (CLUMP_NET=0)"
            )));
        }
        Ok(Some(NetPeer {
            addr: name.addr,
            id: name.id,
        }))
    }

    /// The route to translation `dest`, or the reason a message to it comes back. Over
    /// shared memory the tag is checked here, in the destination's block (001); over the
    /// network the destination checks it.
    #[inline(always)]
    pub(crate) fn route(&self, dest: u32) -> Result<std::result::Result<Route, ReturnReason>> {
        let dead = self.flow.with(|f| f.dead(dest));
        let found = self.tables.translations.with(|table| {
            // An error built only where there is one (an `ok_or` would build and drop it
            // on every send).
            let Some(t) = table.get(dest as usize).and_then(|t| t.as_ref()) else {
                return Err(Error::NoTranslation(dest));
            };
            if let Some(reason) = dead {
                return Ok(Some(Err(reason)));
            }
            Ok(match &t.route {
                Some(Route::Shm(remote)) if remote.closed() => Some(Err(ReturnReason::EndpointGone)),
                Some(Route::Shm(remote)) if remote.tag() != t.tag => Some(Err(ReturnReason::BadTag)),
                Some(route) => Some(Ok(route.clone())),
                None => None,
            })
        })?;
        match found {
            Some(routed) => Ok(routed),
            None => self.connect_and_route(dest),
        }
    }

    /// Maps translation `dest` on its first use, then routes it. Kept out of line so
    /// that `route` is not recursive and joins the send path.
    #[cold]
    #[inline(never)]
    fn connect_and_route(&self, dest: u32) -> Result<std::result::Result<Route, ReturnReason>> {
        match self.connect(dest)? {
            Ok(()) => self.route(dest),
            Err(reason) => Ok(Err(reason)),
        }
    }

    /// The fast path's look at the same route: runs `f` with the destination's queue
    /// block if translation `dest` goes through shared memory, is mapped, and its block is
    /// open under the translation's tag; `false` otherwise (the general path decides).
    #[inline(always)]
    pub(crate) fn with_open_shm(
        &self,
        dest: u32,
        f: impl FnOnce(&Remote) -> bool + Send,
    ) -> bool {
        self.tables.translations.with(|table| {
            let Some(Some(t)) = table.get(dest as usize) else {
                return false;
            };
            let Some(Route::Shm(remote)) = &t.route else {
                return false;
            };
            remote.open_under(t.tag) && f(remote)
        })
    }

    /// Whether translation `dest` goes (or will go, once mapped) through shared memory.
    pub(crate) fn routes_by_shm(&self, dest: u32) -> bool {
        self.tables.translations.with(|table| {
            matches!(
                table
                    .get(dest as usize)
                    .and_then(|t| t.as_ref())
                    .map(|t| &t.route),
                Some(Some(Route::Shm(_)) | None)
            )
        })
    }

    /// The segment of translation `dest`'s shared-memory destination, mapped and kept
    /// with the translation (`None`: it has none), or why it cannot be reached.
    pub(crate) fn route_segment(
        &self,
        dest: u32,
    ) -> std::result::Result<Option<Arc<SegMapping>>, ReturnReason> {
        self.tables.translations.with(|table| {
            // Routed just before, with no poll in between; a missing entry is still no
            // panic.
            let Some(t) = table.get_mut(dest as usize).and_then(|t| t.as_mut()) else {
                return Err(ReturnReason::EndpointGone);
            };
            let Some(Route::Shm(remote)) = &t.route else {
                return Err(ReturnReason::Unreachable);
            };
            match remote.segment(t.segment.as_ref()) {
                Ok(Some(seg)) => {
                    t.segment = Some(seg.clone());
                    Ok(Some(seg))
                }
                Ok(None) => Ok(None),
                // Alive or gone, the peer's segment cannot be reached: the message never
                // leaves.
                Err(_) => Err(ReturnReason::Unreachable),
            }
        })
    }

    /// The destination's segment if `offset..offset+len` lies inside it, or why a long
    /// message or get to it comes back.
    pub(crate) fn dest_segment(
        &self,
        dest: u32,
        offset: usize,
        len: usize,
    ) -> std::result::Result<Arc<SegMapping>, ReturnReason> {
        match self.route_segment(dest)? {
            Some(seg) if seg.fits(offset as u64, len as u64) => Ok(seg),
            _ => Err(ReturnReason::BadSegmentOffset),
        }
    }

    /// Maps the destination of translation `dest` if it is on this host and not mapped
    /// yet (a translation without a route). `Ok(Err(reason))` says why a message through
    /// it comes back: the endpoint is gone (its process lives but the block is not there
    /// any more) or its process is. Running out of descriptors or memory is an error of
    /// the call, not of the peer.
    #[cold]
    pub(crate) fn connect(&self, dest: u32) -> Result<std::result::Result<(), ReturnReason>> {
        self.tables.translations.with(|table| {
            let Some(Translation {
                route: route @ None,
                name,
                ..
            }) = table.get_mut(dest as usize).and_then(|t| t.as_mut())
            else {
                return Ok(Ok(()));
            };
            match Remote::lookup(name.id) {
                Ok(remote) => {
                    *route = Some(Route::Shm(Rc::new(remote)));
                    Ok(Ok(()))
                }
                Err(e) if out_of_resources(&e) => {
                    Err(Error::io(format!("cannot map endpoint {name}"), e))
                }
                Err(_) if process_exists(name.id.pid) => Ok(Err(ReturnReason::EndpointGone)),
                // Its process is gone: nothing sent there can leave.
                Err(_) => Ok(Err(ReturnReason::Unreachable)),
            }
        })
    }

    /// Moves translation `dest` to the network, if this endpoint and its destination have
    /// one and nothing sent through shared memory is still unanswered (so that no answer
    /// is lost and order is kept).
    pub(crate) fn move_to_network(&self, dest: u32) -> Option<NetPeer> {
        if !self.net.has_port() || self.flow.with(|f| f.in_flight(dest)) > 0 {
            return None;
        }
        self.tables.translations.with(|table| {
            let t = table.get_mut(dest as usize)?.as_mut()?;
            if t.name.addr == NO_ADDR {
                return None;
            }
            let peer = NetPeer {
                addr: t.name.addr,
                id: t.name.id,
            };
            t.route = Some(Route::Net(peer));
            t.segment = None;
            Some(peer)
        })
    }
}

/// Whether mapping failed for want of descriptors or memory in this process or system.
fn out_of_resources(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOMEM)
    )
}

/// Whether process `pid` exists.
fn process_exists(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}
