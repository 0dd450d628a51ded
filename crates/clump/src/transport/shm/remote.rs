//! Peers' queue blocks and segments as this process sees them. A process-wide registry
//! makes sure no block is mapped twice in one address space (001 keeps a hash table for
//! the same reason); the endpoint's own block is registered too, so a translation to an
//! endpoint of this process reuses the owner's mapping.

use super::block::{MappedBlock, BULK_BLOCKS, NO_FD};
use super::bulk::home_block;
use super::region::Region;
pub use super::segment::{SegMapping, SegMemory};
use super::liveness::Watch;
use super::cpu_mate::note_peer_on;
use super::wake::{Waker, NO_KEY};
use crate::name::EndpointId;
use crate::sync::Ordering;
use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU32};
use std::sync::{Arc, Mutex, Weak};

/// This thread's handle to a remote block: cloning it costs no atomic instruction, which
/// matters on the send path (an atomic there waits for the store to the peer's slot).
pub type RemoteRef = std::rc::Rc<Arc<Remote>>;

/// A queue block reachable from this process, with what senders need beside it.
pub struct Remote {
    pub id: EndpointId,
    pub block: MappedBlock,
    /// Tells when the owning process has exited; `None` for this process's own blocks.
    owner: Option<Watch>,
    /// The socket that wakes the owner, made on first need.
    waker: Mutex<Option<Waker>>,
    /// Whether a failed wake-up was reported already (once per peer is enough).
    wake_failed: AtomicBool,
    segment: Mutex<Option<Arc<SegMapping>>>,
    /// The request bulk block this process tries to claim first (see
    /// [`Remote::claim_request_block`]).
    next_block: AtomicU32,
}

/// The blocks this process has mapped, by id. Entries of dropped blocks are swept out
/// once the table has doubled since the last sweep, so that mapping n peers costs O(n)
/// in all rather than a sweep of the whole table per peer.
#[derive(Default)]
struct Registry {
    blocks: HashMap<EndpointId, Weak<Remote>>,
    sweep_at: usize,
}

impl Registry {
    fn insert(&mut self, id: EndpointId, remote: &Arc<Remote>) {
        if self.blocks.len() >= self.sweep_at {
            self.blocks.retain(|_, w| w.strong_count() > 0);
            self.sweep_at = (2 * self.blocks.len()).max(16);
        }
        self.blocks.insert(id, Arc::downgrade(remote));
    }
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);

fn with_registry<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    let mut guard = REGISTRY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    f(guard.get_or_insert_with(Registry::default))
}

impl Remote {
    /// Registers a block this process owns.
    pub fn register_own(id: EndpointId, block: MappedBlock) -> Arc<Remote> {
        let remote = Arc::new(Remote {
            id,
            block,
            owner: None,
            waker: Mutex::new(None),
            wake_failed: AtomicBool::new(false),
            segment: Mutex::new(None),
            next_block: AtomicU32::new(home_block(std::process::id(), id.fd, BULK_BLOCKS)),
        });
        with_registry(|r| r.insert(id, &remote));
        remote
    }

    /// The block of endpoint `id`, mapping it if this process has not yet.
    pub fn lookup(id: EndpointId) -> io::Result<Arc<Remote>> {
        with_registry(|r| {
            if let Some(live) = r.blocks.get(&id).and_then(Weak::upgrade) {
                return Ok(live);
            }
            let block = MappedBlock::open(id.pid, id.fd, id.nonce)?;
            let owner = Watch::of(id.pid)?;
            let remote = Arc::new(Remote {
                id,
                block,
                owner: Some(owner),
                waker: Mutex::new(None),
                wake_failed: AtomicBool::new(false),
                segment: Mutex::new(None),
                next_block: AtomicU32::new(home_block(std::process::id(), id.fd, BULK_BLOCKS)),
            });
            r.insert(id, &remote);
            Ok(remote)
        })
    }

    /// Claims a bulk block of the request queue for a medium payload, `None` when all
    /// are in use. Claims go round the pool from this process's home block: the block
    /// after the last one claimed is the one freed longest ago (a stream of requests within
    /// its credit window finds it free), and its state line is fetched now, while the
    /// caller copies this payload, rather than at the next claim.
    #[inline]
    pub fn claim_request_block(&self) -> Option<u32> {
        let bulk = self.block.get().request.bulk();
        let block = bulk.claim(self.next_block.load(Ordering::Relaxed))?;
        let next = (block + 1) % BULK_BLOCKS as u32;
        self.next_block.store(next, Ordering::Relaxed);
        bulk.prefetch(next);
        Some(block)
    }

    /// Whether a request could claim a bulk block now: one look at the block the next
    /// claim tries first, then at the others. Another sender may take it before this
    /// one claims, so the answer is a hint (a claim that then finds none waits briefly).
    #[inline]
    pub fn request_block_free(&self) -> bool {
        let bulk = self.block.get().request.bulk();
        bulk.any_free(self.next_block.load(Ordering::Relaxed))
    }

    /// Whether the owning process is still running.
    pub fn alive(&self) -> bool {
        self.owner.as_ref().is_none_or(Watch::alive)
    }

    /// The endpoint's tag, which senders check before they enqueue.
    #[inline]
    pub fn tag(&self) -> u64 {
        self.block.get().header.tag.load(Ordering::Acquire)
    }

    /// Whether the owner has freed the endpoint.
    #[inline]
    pub fn closed(&self) -> bool {
        self.block.get().header.closed.load(Ordering::Acquire) != 0
    }

    /// Whether the endpoint is open under tag `tag`: what a sender checks before it
    /// enqueues (001: the tag in the destination block, then the queue).
    #[inline(always)]
    pub fn open_under(&self, tag: u64) -> bool {
        !self.closed() && self.tag() == tag
    }

    /// Wakes the owner if it sleeps. Call after publishing a packet. SeqCst pairs with the
    /// owner's store of `sleeping` before its last look at the queues: either it sees the
    /// packet or we see it sleeping.
    #[inline]
    pub fn notify(&self) {
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        if self.block.get().header.sleeping.load(Ordering::Relaxed) != 0 {
            self.ring_doorbell();
        }
    }

    #[cold]
    fn ring_doorbell(&self) {
        let header = &self.block.get().header;
        let key = header.wake_key.load(Ordering::Acquire);
        if key == NO_KEY {
            return;
        }
        let mut waker = self.waker.lock().unwrap_or_else(|p| p.into_inner());
        let result = match waker.as_mut() {
            Some(w) => w.wake(self.id.pid, key),
            None => Waker::new()
                .and_then(|mut w| w.wake(self.id.pid, key).map(|()| w))
                .map(|w| {
                    *waker = Some(w);
                }),
        };
        // A peer that exited or freed the endpoint needs no wake-up, and one whose endpoint
        // moved to another bundle meanwhile was woken by whoever saw the new key.
        if result.is_ok() {
            note_peer_on(header.sleep_cpu.load(Ordering::Relaxed));
        }
        let moot = !self.alive() || self.closed() || header.wake_key.load(Ordering::Acquire) != key;
        if let Err(e) = result {
            if !moot && !self.wake_failed.swap(true, Ordering::Relaxed) {
                eprintln!(
                    "clump: cannot wake process {} sleeping in wait ({e}); \
                     it will see its messages only on its 100 ms timer",
                    self.id.pid
                );
            }
        }
    }

    /// The owner's current segment, mapped; `None` if it has none.
    pub fn segment(&self, cached: Option<&Arc<SegMapping>>) -> io::Result<Option<Arc<SegMapping>>> {
        let header = &self.block.get().header;
        loop {
            let gen = header.seg_gen.load(Ordering::Acquire);
            if gen % 2 == 1 {
                std::hint::spin_loop();
                continue;
            }
            if let Some(c) = cached.filter(|c| c.gen == gen) {
                return Ok(Some(c.clone()));
            }
            let fd = header.seg_fd.load(Ordering::Acquire);
            let len = header.seg_len.load(Ordering::Acquire) as usize;
            let addr = header.seg_addr.load(Ordering::Acquire);
            if header.seg_gen.load(Ordering::Acquire) != gen {
                continue;
            }
            if fd == NO_FD && len == 0 {
                return Ok(None);
            }
            let mut slot = self.segment.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(m) = slot.as_ref().filter(|m| m.gen == gen) {
                return Ok(Some(m.clone()));
            }
            let mem = if fd == NO_FD {
                SegMemory::Attached {
                    pid: self.id.pid,
                    addr,
                }
            } else {
                SegMemory::Shared(Region::open(self.id.pid, fd, len)?)
            };
            if header.seg_gen.load(Ordering::Acquire) != gen {
                continue; // replaced while we opened it
            }
            let m = Arc::new(SegMapping::new(mem, gen, len));
            *slot = Some(m.clone());
            return Ok(Some(m));
        }
    }

    /// Installs the owner's new segment of `len` bytes (owner only): the seqlock's write
    /// side. Returns the owner's own view of it.
    pub fn publish_segment(&self, segment: Option<(SegMemory, usize)>) -> Option<Arc<SegMapping>> {
        let header = &self.block.get().header;
        let gen = header.seg_gen.load(Ordering::Relaxed);
        header.seg_gen.store(gen + 1, Ordering::Release);
        let mapping = segment.map(|(mem, len)| Arc::new(SegMapping::new(mem, gen + 2, len)));
        let (fd, len, addr) = match mapping.as_deref() {
            Some(m) => match m.memory() {
                SegMemory::Shared(region) => (region.fd().unwrap_or(NO_FD), m.len() as u64, 0),
                SegMemory::Program(ptr) => (NO_FD, m.len() as u64, *ptr as u64),
                SegMemory::Attached { .. } => (NO_FD, 0, 0),
            },
            None => (NO_FD, 0, 0),
        };
        header.seg_fd.store(fd, Ordering::Release);
        header.seg_len.store(len, Ordering::Release);
        header.seg_addr.store(addr, Ordering::Release);
        *self.segment.lock().unwrap_or_else(|p| p.into_inner()) = mapping.clone();
        header.seg_gen.store(gen + 2, Ordering::Release);
        mapping
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new queue block of this process, registered as its own.
    fn own_block(nonce: u64) -> Arc<Remote> {
        let block = MappedBlock::create(1, nonce).unwrap();
        let id = EndpointId {
            pid: std::process::id(),
            fd: block.fd(),
            nonce,
        };
        Remote::register_own(id, block)
    }

    #[test]
    fn a_block_is_mapped_once_per_process() {
        let own = own_block(99);
        let id = own.id;
        let again = Remote::lookup(id).unwrap();
        assert!(
            Arc::ptr_eq(&own, &again),
            "looking up an endpoint of this process reuses its mapping"
        );
        assert!(own.alive() && !own.closed());
        let wrong = EndpointId { nonce: 98, ..id };
        assert!(Remote::lookup(wrong).is_err(), "a stale name is refused");
    }

    #[test]
    fn request_blocks_are_claimed_round_the_pool() {
        let remote = own_block(7);
        let bulk = remote.block.get().request.bulk();
        let first = remote.claim_request_block().unwrap();
        bulk.free(first);
        let second = remote.claim_request_block().unwrap();
        assert_eq!(
            second,
            (first + 1) % BULK_BLOCKS as u32,
            "the next claim goes on past a freed block"
        );
        let rest: Vec<u32> = (2..BULK_BLOCKS)
            .map(|_| remote.claim_request_block().unwrap())
            .collect();
        assert_eq!(
            rest,
            (2..BULK_BLOCKS as u32)
                .map(|i| (first + i) % BULK_BLOCKS as u32)
                .collect::<Vec<_>>()
        );
        // The first block alone is free: the claim wraps round to it.
        assert_eq!(remote.claim_request_block(), Some(first));
        assert_eq!(remote.claim_request_block(), None, "every block is in use");
        bulk.free(second);
        assert_eq!(remote.claim_request_block(), Some(second));
    }
}
