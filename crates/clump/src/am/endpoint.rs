//! The endpoint as programs see it (AM-II's `ep_t`): name, tag, handler table,
//! translation table and segment. Its state lives in `endpoint/`, split by owner.

use crate::endpoint::handlers::Token;
use crate::endpoint::transport::Transport;
use crate::endpoint::route::Route;
use crate::endpoint::{EndpointCore, EndpointStats, Translation};
use crate::error::{Error, Result};
use crate::message::{Message, Returned, MAX_HANDLERS, MAX_SEGMENT, MAX_TRANSLATIONS};
use crate::name::EndpointName;
use crate::transport::shm::region::Region;
use crate::transport::shm::remote::SegMemory;
use crate::sync::Ordering;
use crate::transport::net;
use crate::transport::net::transport::Net;
use crate::transport::shm::transport::Shm;
use std::rc::Rc;

/// A communication endpoint. Cloning gives another handle to the same endpoint.
#[derive(Clone)]
pub struct Endpoint {
    pub(crate) core: Rc<EndpointCore>,
}

impl Endpoint {
    /// The name other endpoints map to reach this one.
    pub fn name(&self) -> EndpointName {
        self.core.name
    }

    pub fn tag(&self) -> u64 {
        self.core.tag()
    }

    /// Changes the tag; messages sent under the old one come back to their senders.
    pub fn set_tag(&self, tag: u64) -> Result<()> {
        self.core.check_live()?;
        self.core
            .shm
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
        self.core.set_handler_at(index, Some(Rc::new(handler)));
        Ok(())
    }

    pub fn clear_handler(&self, index: usize) -> Result<()> {
        if index == 0 || index >= MAX_HANDLERS {
            return Err(Error::BadHandlerIndex(index));
        }
        self.core.set_handler_at(index, None);
        Ok(())
    }

    /// Installs handler 0, which receives every message that could not be delivered.
    /// Without one, a returned message is reported on standard error.
    pub fn set_return_handler(&self, handler: impl Fn(&Returned<'_>) + 'static) -> Result<()> {
        self.core.check_live()?;
        let old = self.core.tables.on_return.replace(Some(Rc::new(handler)));
        drop(old); // outside the part: its captures may reach this endpoint
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
        let route = self.core.plan(&name)?;
        // A mapped endpoint is of the job: its datagrams get in (even over a shared-memory
        // route, since a refused cross-memory attach moves its traffic to the network).
        net::members::admit(&name);
        let busy = self.core.flow.with(|f| f.in_flight(index)) > 0;
        let placed = self.core.tables.translations.with(|table| {
            if table.len() <= i {
                table.resize_with(i + 1, || None);
            }
            if table[i].is_some() && busy {
                return false;
            }
            table[i] = Some(Translation {
                name,
                tag,
                route: route.map(Route::Net),
                segment: None,
            });
            true
        });
        if !placed {
            return Err(Error::InUse(format!(
                "translation {index} has requests in flight"
            )));
        }
        self.core.flow.with(|f| f.reset(index));
        Ok(())
    }

    /// Removes translation `index` (`AM_UnMap`); refused while requests through it are in flight.
    pub fn unmap(&self, index: u32) -> Result<()> {
        let busy = self.core.flow.with(|f| f.in_flight(index)) > 0;
        let removed = self.core.tables.translations.with(|table| {
            match table.get_mut(index as usize) {
                None | Some(None) => Err(Error::NoTranslation(index)),
                Some(Some(_)) if busy => Err(Error::InUse(format!(
                    "translation {index} has requests in flight"
                ))),
                Some(slot) => {
                    *slot = None;
                    Ok(())
                }
            }
        });
        removed?;
        self.core.flow.with(|f| f.reset(index));
        Ok(())
    }

    /// The name and tag at translation `index`, if mapped.
    pub fn translation(&self, index: u32) -> Option<(EndpointName, u64)> {
        self.core
            .tables
            .translations
            .with(|table| table.get(index as usize)?.as_ref().map(|t| (t.name, t.tag)))
    }

    /// Gives this endpoint a zero-filled segment of `len` bytes (0 removes it), which long
    /// messages write into and gets read from. Replaces any earlier segment. Processes of
    /// this host map it, so their long messages and gets copy directly.
    pub fn set_segment(&self, len: usize) -> Result<()> {
        self.core.check_live()?;
        if len > MAX_SEGMENT {
            return Err(Error::BadArg(format!(
                "segment of {len} bytes exceeds {MAX_SEGMENT}"
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
        let segment = self.core.shm.own.publish_segment(segment);
        self.core.segment.with(|s| *s = segment);
        Ok(())
    }

    pub fn segment_len(&self) -> usize {
        self.core.segment.with(|s| s.as_ref().map_or(0, |m| m.len()))
    }

    /// The segment's base address and length, for programs that access it in place.
    /// Peers may write into it at any time their messages allow; ordering those accesses
    /// is the program's protocol, as with any shared memory.
    pub fn segment_ptr(&self) -> Option<(*mut u8, usize)> {
        self.core
            .segment
            .with(|s| s.as_ref().and_then(|m| Some((m.local_ptr()?, m.len()))))
    }

    /// Copies segment bytes at `offset` into `buf`.
    pub fn read_segment(&self, offset: usize, buf: &mut [u8]) -> Result<()> {
        let seg = self
            .core
            .current_segment()
            .ok_or_else(|| Error::BadArg("no segment".into()))?;
        seg.read_checked(offset, buf)
    }

    /// Copies `data` into the segment at `offset`.
    pub fn write_segment(&self, offset: usize, data: &[u8]) -> Result<()> {
        let seg = self
            .core
            .current_segment()
            .ok_or_else(|| Error::BadArg("no segment".into()))?;
        seg.write_checked(offset, data)
    }

    /// Frees the endpoint (`AM_FreeEndpoint`): senders see it gone, requests still queued go
    /// back to their senders as `EndpointGone`, and the handle becomes unusable. What it
    /// sent over the network is acknowledged first, or after `CLUMP_NET_TIMEOUT_MS` comes
    /// back to handler 0 as `OutcomeUnknown` (`net/linger.rs`), with whatever else waits
    /// for handler 0, before this returns.
    pub fn free(&self) {
        free_endpoint(&self.core);
    }

    pub fn stats(&self) -> EndpointStats {
        self.core.stats.get()
    }

    /// What the network transport of this endpoint did; `None` without a network.
    pub fn net_stats(&self) -> Option<crate::transport::net::NetStats> {
        self.core.net.port(|p| p.stats())
    }

    /// Requests waiting in this endpoint's queue for a poll (those being enqueued included).
    pub fn pending_requests(&self) -> usize {
        let claimed = self.core.shm.own.block.get().request.ring().claimed();
        claimed.saturating_sub(self.core.shm.requests.head()) as usize
    }

    /// Requests in flight from this endpoint.
    pub fn outstanding(&self) -> usize {
        self.core.outstanding()
    }
}

/// Frees an endpoint: closes its queues and socket, returns the requests still queued to
/// their senders, and drops handlers and translations (which may hold handles to it).
pub(crate) fn free_endpoint(ep: &Rc<EndpointCore>) {
    let owner = ep.owner();
    let neighbours = || {
        if let Some(owner) = &owner {
            owner.pump_network();
        }
    };
    free_together(std::slice::from_ref(ep), &neighbours);
}

/// Frees endpoints together: their sockets linger as one until what each sent is
/// delivered or returned (`net/linger.rs`), so endpoints of one thread that talk to each
/// other settle without a poll; `neighbours` moves the datagrams of the thread's other
/// endpoints that may answer them. What would have come back to handler 0 at the next
/// poll (requests returned, the network's unacknowledged ones among them) is delivered
/// before the handlers go, since no poll comes.
pub(crate) fn free_together(eps: &[Rc<EndpointCore>], neighbours: &dyn Fn()) {
    let eps: Vec<Rc<EndpointCore>> = eps.iter().filter(|ep| !ep.freed.replace(true)).cloned().collect();
    Shm::close(&eps, neighbours);
    Net::close(&eps, neighbours);
    for ep in &eps {
        Shm::finish(ep);
        Net::finish(ep);
        loop {
            let event = ep.local.with(|l| l.pop_front());
            let Some(event) = event else { break };
            ep.handle_local(event);
        }
        // Dropped outside the parts: a handler's captures may reach this endpoint.
        let handlers = ep.tables.handlers.replace(vec![None; MAX_HANDLERS]);
        let on_return = ep.tables.on_return.replace(None);
        drop((handlers, on_return));
        ep.tables.translations.with(|t| t.clear());
        ep.flow.with(|f| f.clear());
        ep.shm.sources.with(|s| *s = Default::default());
        ep.local.with(|l| l.clear());
        let owner = ep.owner();
        if let Some(owner) = owner {
            owner.remove(ep);
        }
    }
}
