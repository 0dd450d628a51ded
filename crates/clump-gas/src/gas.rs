//! The per-process handle: joining the job, the segment, allocation, progress and statistics.

use crate::config::{GasConfig, LocalMode};
use crate::error::{Error, Result};
use crate::handlers;
use crate::local_view::LocalView;
use crate::protocol::{LANDING_BYTES, STORED_COUNTER};
use crate::ptr::{GlobalPtr, Spread};
use crate::shared::Shared;
use clump::boot::Job;
use clump::spmd::Spmd;
use clump::{Bundle, Endpoint, IdleWait, PeerSegment};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

/// Bytes at the start of every segment that the layer keeps for itself (counters).
pub(crate) const HEADER_BYTES: usize = 64;
/// Allocations start on cache-line boundaries.
const ALLOC_ALIGN: usize = 64;

/// Messages and bytes by the way they travelled, and accesses that needed no message. A
/// request and its reply (a read's or get's data, an atomic's old value, a put's
/// acknowledgement) both count at the rank that asked, so its figures are the traffic its
/// accesses cause. A message is bulk when it carries more than [`SHORT_BYTES`] bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GasStats {
    pub shm_messages: u64,
    pub shm_bytes: u64,
    pub net_messages: u64,
    pub net_bytes: u64,
    pub direct_accesses: u64,
    pub direct_bytes: u64,
    /// Of `shm_messages`/`shm_bytes`: the bulk messages and their bytes.
    pub shm_bulk_messages: u64,
    pub shm_bulk_bytes: u64,
    /// Of `net_messages`/`net_bytes`: the bulk messages and their bytes.
    pub net_bulk_messages: u64,
    pub net_bulk_bytes: u64,
    /// Of the shared-memory figures above: this rank's traffic to itself.
    pub self_messages: u64,
    pub self_bulk_messages: u64,
    pub self_bulk_bytes: u64,
    /// Of `direct_accesses`/`direct_bytes`: those of more than [`SHORT_BYTES`] bytes.
    pub direct_bulk_accesses: u64,
    pub direct_bulk_bytes: u64,
    /// Of `direct_accesses`: this rank's accesses to its own memory, and the bulk ones.
    pub self_direct: u64,
    pub self_direct_bulk: u64,
    pub self_direct_bulk_bytes: u64,
}

/// Payload bytes a short message carries at most (one word: a request, an acknowledgement,
/// a single value).
pub const SHORT_BYTES: usize = 8;

/// Where this rank stands: its bundle and endpoint (translation i reaches rank i), and the
/// job when it joined the launcher itself.
pub(crate) struct Place {
    pub job: Option<Job>,
    pub bundle: Bundle,
    pub ep: Endpoint,
    rank: u32,
    size: u32,
}

impl Place {
    /// The launcher's allgather, running handlers while it waits.
    fn allgather(&mut self, mine: &[u8]) -> Result<Vec<Vec<u8>>> {
        let Place { job, bundle, .. } = self;
        let job = job.as_mut().ok_or_else(|| {
            Error::Config("this rank joined the job through another layer".into())
        })?;
        job.allgather(mine, &mut || {
            let _ = bundle.poll();
        })
        .map_err(|e| Error::Am(clump::Error::Boot(e.to_string())))
    }

    pub fn rank(&self) -> u32 {
        self.rank
    }

    pub fn size(&self) -> u32 {
        self.size
    }
}

/// Every rank's contribution (all of the same length), indexed by rank: how ranks that
/// joined the job through another layer exchange what joining needs.
pub type Exchange<'a> = &'a mut dyn FnMut(&[u8]) -> Result<Vec<Vec<u8>>>;

/// One process's view of the global address space. Not `Send`, like clump's endpoints.
pub struct Gas {
    pub(crate) spmd: Place,
    pub(crate) shared: Rc<Shared>,
    pub(crate) config: GasConfig,
    pub(crate) segment_len: usize,
    /// Per rank: its segment mapped here, when accesses to it go direct.
    pub(crate) direct: Vec<Option<PeerSegment>>,
    pub(crate) next_alloc: usize,
    pub(crate) next_request: Cell<u32>,
    /// The sequence number of the last collective over all ranks.
    pub(crate) coll_seq: Cell<u32>,
    /// The split-phase barrier's sequence number while one is open.
    pub(crate) open_barrier: Cell<Option<u32>>,
    /// Bytes this rank stored into each rank since init.
    pub(crate) stored_to: RefCell<Vec<u64>>,
    /// Bytes stored into this rank that store syncs have accounted for, since init.
    pub(crate) consumed_stores: Cell<u64>,
    pub(crate) stats: Cell<GasStats>,
    /// A blocking read by messages is using the landing area (`landing.rs`).
    pub(crate) landing_busy: Cell<bool>,
}

impl Gas {
    /// Joins the job `clump run` started (a process on its own is a job of one), with the
    /// configuration from the environment.
    pub fn init() -> Result<Gas> {
        Gas::init_with(GasConfig::from_env()?)
    }

    pub fn init_with(config: GasConfig) -> Result<Gas> {
        let config = config.checked()?;
        let Spmd { job, bundle, ep } = Spmd::init()?;
        let place = Place {
            rank: job.rank(),
            size: job.size(),
            job: Some(job),
            bundle,
            ep,
        };
        Gas::start(place, None, config)
    }

    /// Joins through another layer of this process that joined the job already (MPI, whose
    /// world ranks are this layer's ranks): a new endpoint in `bundle` under the job's
    /// `tag`, its name exchanged with `exchange`, that layer's allgather. Every rank calls
    /// it together.
    pub fn init_joined(
        bundle: Bundle,
        (rank, size): (u32, u32),
        tag: u64,
        exchange: Exchange<'_>,
        config: GasConfig,
    ) -> Result<Gas> {
        let config = config.checked()?;
        let ep = bundle.create_endpoint(tag)?;
        let names = exchange(&ep.name().to_bytes())?;
        if names.len() != size as usize || rank >= size {
            return Err(Error::Config(format!(
                "rank {rank} of {size} got {} endpoint names",
                names.len()
            )));
        }
        for (r, bytes) in names.iter().enumerate() {
            let name = clump::EndpointName::from_bytes(bytes)
                .ok_or_else(|| Error::Config(format!("rank {r} sent a malformed endpoint name")))?;
            ep.map(r as u32, name, tag)?;
        }
        let place = Place {
            job: None,
            bundle,
            ep,
            rank,
            size,
        };
        Gas::start(place, Some(exchange), config)
    }

    /// Installs the handlers and the segment, and maps same-host segments; `exchange` is
    /// the allgather to use (the job's own when `None`).
    fn start(mut place: Place, exchange: Option<Exchange<'_>>, config: GasConfig) -> Result<Gas> {
        let shared = Rc::new(Shared::default());
        handlers::install(&place.ep, &shared)?;
        // The landing area lies past the bytes `alloc` hands out (`landing.rs`).
        place.ep.set_segment(config.segment_bytes + LANDING_BYTES)?;
        // The exchange is also the point after which every peer's segment exists.
        let mine = (config.segment_bytes as u64).to_le_bytes();
        let lens = match exchange {
            Some(x) => x(&mine)?,
            None => place.allgather(&mine)?,
        };
        if lens.iter().any(|l| l.as_slice() != mine) {
            return Err(Error::Config(
                "ranks asked for different segment sizes (CLUMP_GAS_SEGMENT must match)".into(),
            ));
        }
        let size = place.size();
        let direct = (0..size)
            .map(|r| match config.local {
                LocalMode::Direct => place.ep.peer_segment(r),
                LocalMode::Am => None,
            })
            .collect();
        Ok(Gas {
            spmd: place,
            shared,
            config,
            segment_len: config.segment_bytes,
            direct,
            next_alloc: HEADER_BYTES,
            next_request: Cell::new(0),
            coll_seq: Cell::new(0),
            open_barrier: Cell::new(None),
            stored_to: RefCell::new(vec![0; size as usize]),
            consumed_stores: Cell::new(0),
            stats: Cell::new(GasStats::default()),
            landing_busy: Cell::new(false),
        })
    }

    pub fn rank(&self) -> u32 {
        self.spmd.rank()
    }

    pub fn size(&self) -> u32 {
        self.spmd.size()
    }

    /// Whether `rank` runs on this host (reached through shared memory).
    pub fn is_local(&self, rank: u32) -> bool {
        self.spmd.ep.is_local(rank)
    }

    pub fn config(&self) -> GasConfig {
        self.config
    }

    /// Collective: every rank calls with the same count, in the same order, and gets the
    /// same offset. The memory starts zeroed (allocations are never reused).
    pub fn alloc<T: bytemuck::Pod>(&mut self, count_per_rank: usize) -> Result<Spread<T>> {
        let align = ALLOC_ALIGN.max(align_of::<T>());
        let base = self.next_alloc.next_multiple_of(align);
        let bytes = count_per_rank
            .checked_mul(size_of::<T>())
            .ok_or_else(|| Error::BadSize(format!("{count_per_rank} elements overflow")))?;
        let free = self.segment_len.saturating_sub(base);
        if bytes > free {
            return Err(Error::SegmentFull {
                requested: bytes,
                free,
            });
        }
        self.next_alloc = base + bytes;
        Ok(Spread::new(base, count_per_rank))
    }

    /// Bytes per rank that `alloc` can still hand out (before alignment).
    pub fn free_bytes(&self) -> usize {
        self.segment_len.saturating_sub(self.next_alloc)
    }

    /// Where `rank`'s segment is mapped in this process, and its length, when accesses to
    /// it go direct (a same-host rank in direct mode; this rank itself).
    pub fn direct_segment(&self, rank: u32) -> Option<(*mut u8, usize)> {
        self.direct_to(rank).map(|s| (s.as_ptr(), s.len()))
    }

    /// Asks the launcher to end the whole job with `status`, printing `reason` (a job of
    /// one, or a rank that joined through another layer, prints it here); the caller exits
    /// next.
    pub fn abort(&mut self, status: i32, reason: &str) {
        match &mut self.spmd.job {
            Some(job) => job.abort(status, reason),
            // Joined through another layer: the launcher learns of the end from the exit.
            None => eprintln!("clump: rank {} ends the job: {reason}", self.rank()),
        }
    }

    /// This rank's part of `a`, for plain loads and stores.
    pub fn local<T: bytemuck::Pod>(&self, a: &Spread<T>) -> LocalView<T> {
        LocalView::new(self.spmd.ep.clone(), a.base, a.count)
    }

    /// Runs the handlers of messages that have arrived.
    pub fn poll(&self) -> Result<()> {
        self.spmd.bundle.poll()?;
        self.check_failure()
    }

    /// Whether a request waits in this rank's shared-memory queue (one look at its next
    /// slot, no handler run): what a caller that polls only now and then checks first, so
    /// that a same-host peer waiting for it is served at once.
    #[inline]
    pub fn request_waiting(&self) -> bool {
        self.spmd.ep.shm_request_waiting()
    }

    pub fn stats(&self) -> GasStats {
        self.stats.get()
    }

    fn check_failure(&self) -> Result<()> {
        match self.shared.failure.borrow_mut().take() {
            Some(why) => Err(Error::Undeliverable(why)),
            None => Ok(()),
        }
    }

    /// Polls until `done` holds; an undelivered message ends the wait with its error.
    pub(crate) fn wait_until(&self, mut done: impl FnMut() -> bool) -> Result<()> {
        self.wait_for(|| Ok(done()))
    }

    /// [`Gas::wait_until`] for a condition that may fail to be read: its error ends the wait.
    /// What it waits for comes as a message (a reply, a collective's part), which wakes it:
    /// it polls briefly, then sleeps in the bundle, so that on a loaded machine the peer it
    /// waits for gets the core it may share with this rank.
    pub(crate) fn wait_for(&self, done: impl FnMut() -> Result<bool>) -> Result<()> {
        self.wait_with(IdleWait::new(Duration::ZERO), done)
    }

    /// [`Gas::wait_for`] for a condition a same-host peer's direct store makes true, which
    /// no message announces: it looks a while, then sleeps a short time at a go.
    pub fn wait_for_store(&self, done: impl FnMut() -> Result<bool>) -> Result<()> {
        self.wait_with(IdleWait::for_store(&self.spmd.bundle), done)
    }

    fn wait_with(&self, mut idle: IdleWait, mut done: impl FnMut() -> Result<bool>) -> Result<()> {
        while !done()? {
            self.check_failure()?;
            if self.spmd.bundle.poll()? == 0 {
                idle.round(&self.spmd.bundle)?;
            } else {
                idle.reset();
            }
        }
        Ok(())
    }

    /// Processes of the job on this machine (all of them, when it joined through another
    /// layer and does not know): how long a wait that must not sleep may spin
    /// (`Backoff::for_host`).
    pub fn processes_here(&self) -> u32 {
        self.spmd
            .job
            .as_ref()
            .map_or(self.size(), |job| job.processes_here())
    }

    /// Waits for the reply to request `req`: its status and bytes.
    pub(crate) fn await_status(&self, req: u32) -> Result<(u32, Vec<u8>)> {
        let replies = &self.shared.replies;
        self.wait_until(|| replies.borrow().contains_key(&req))?;
        Ok(replies.borrow_mut().remove(&req).unwrap_or_default())
    }

    pub(crate) fn check_rank(&self, rank: u32) -> Result<()> {
        if rank >= self.size() {
            return Err(Error::BadRank {
                rank,
                size: self.size(),
            });
        }
        Ok(())
    }

    /// Checks `n` elements at `p` and returns (offset, bytes).
    pub(crate) fn check<T>(&self, p: GlobalPtr<T>, n: usize) -> Result<(usize, usize)> {
        self.check_rank(p.rank)?;
        p.span(n)
    }

    /// The mapped segment of `rank` when accesses to it go direct.
    pub(crate) fn direct_to(&self, rank: u32) -> Option<&PeerSegment> {
        self.direct.get(rank as usize)?.as_ref()
    }

    pub(crate) fn fresh_request(&self) -> u32 {
        let r = self.next_request.get();
        self.next_request.set(r.wrapping_add(1));
        r
    }

    /// Counts one message of `bytes` to or from `rank` (a request, or the reply to one this
    /// rank made), by the protocol that carries it.
    pub(crate) fn count_message(&self, rank: u32, bytes: usize) {
        let mut s = self.stats.get();
        let bulk = u64::from(bytes > SHORT_BYTES);
        let bulk_bytes = bulk * bytes as u64;
        if self.is_local(rank) {
            s.shm_messages += 1;
            s.shm_bytes += bytes as u64;
            s.shm_bulk_messages += bulk;
            s.shm_bulk_bytes += bulk_bytes;
        } else {
            s.net_messages += 1;
            s.net_bytes += bytes as u64;
            s.net_bulk_messages += bulk;
            s.net_bulk_bytes += bulk_bytes;
        }
        if rank == self.rank() {
            s.self_messages += 1;
            s.self_bulk_messages += bulk;
            s.self_bulk_bytes += bulk_bytes;
        }
        self.stats.set(s);
    }

    /// Counts a request and its reply: `sent` bytes out, `returned` bytes back.
    pub(crate) fn count_exchange(&self, rank: u32, sent: usize, returned: usize) {
        self.count_message(rank, sent);
        self.count_message(rank, returned);
    }

    pub(crate) fn count_direct(&self, rank: u32, bytes: usize) {
        let mut s = self.stats.get();
        let bulk = u64::from(bytes > SHORT_BYTES);
        s.direct_accesses += 1;
        s.direct_bytes += bytes as u64;
        s.direct_bulk_accesses += bulk;
        s.direct_bulk_bytes += bulk * bytes as u64;
        if rank == self.rank() {
            s.self_direct += 1;
            s.self_direct_bulk += bulk;
            s.self_direct_bulk_bytes += bulk * bytes as u64;
        }
        self.stats.set(s);
    }

    /// Bytes stored into this rank since init (the segment header's counter).
    pub(crate) fn stored_here(&self) -> Result<u64> {
        crate::atomic::apply(&self.spmd.ep, STORED_COUNTER, crate::rmw::Rmw::Load)
    }
}
