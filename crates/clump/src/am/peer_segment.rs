//! Direct access to the segment of a peer on this host, for layers above the AM layer
//! (a global address space reads and writes a same-host peer's memory with one copy and
//! no message, as today's PGAS runtimes do). Over the network there is no such access:
//! those peers are reached by messages only.

use super::endpoint::Endpoint;
use crate::error::Result;
use crate::transport::shm::remote::SegMapping;
use std::sync::Arc;

/// A same-host peer's segment, mapped into this process. The mapping stays valid while
/// this handle lives; if the peer replaces its segment, the handle still names the old
/// memory (never freed memory), so take a new handle after a segment change.
#[derive(Clone)]
pub struct PeerSegment {
    map: Arc<SegMapping>,
}

impl PeerSegment {
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.len() == 0
    }

    /// The base address in this process. Loads and stores through it race with the peer
    /// and with messages exactly as any shared memory does: ordering them is the
    /// program's protocol (atomics, barriers, handlers).
    pub fn as_ptr(&self) -> *mut u8 {
        // Never null: `peer_segment` hands out only segments addressable here.
        self.map.local_ptr().unwrap_or(std::ptr::null_mut())
    }

    /// Copies `buf.len()` bytes at `offset` of the peer's segment into `buf`.
    pub fn read(&self, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.map.read_checked(offset, buf)
    }

    /// Copies `data` into the peer's segment at `offset`.
    pub fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        self.map.write_checked(offset, data)
    }
}

impl Endpoint {
    /// Whether translation `dest` reaches its endpoint through shared memory (a process
    /// on this host). False if `dest` is not mapped or goes over the network.
    pub fn is_local(&self, dest: u32) -> bool {
        self.core.routes_by_shm(dest)
    }

    /// The segment of the endpoint at translation `dest`, mapped into this process, when
    /// that endpoint lives on this host and has a segment; `None` otherwise (not mapped,
    /// over the network, no segment, its process is gone, or the segment lies in the
    /// peer's program memory, which this process cannot map).
    pub fn peer_segment(&self, dest: u32) -> Option<PeerSegment> {
        self.core.connect(dest).ok()?.ok()?;
        let map = self.core.route_segment(dest).ok()??;
        map.local_ptr()?;
        Some(PeerSegment { map })
    }
}
