//! The shared-memory queue block of an endpoint (001, Figure 3): a header with the tag
//! senders check, and two receive queues, one for requests and one for replies, each a
//! packet queue plus a bulk queue for medium payloads.

use super::bulk::{BulkPool, BulkState};
use super::packet::Packet;
use super::region::Region;
use super::ring::{Ring, RingHeader, Slot};
use crate::sync::{AtomicU32, AtomicU64, Ordering};
use crossbeam_utils::CachePadded;
use std::cell::UnsafeCell;
use std::io;

pub use crate::message::MAX_MEDIUM;
/// Packets one request queue holds.
pub const REQUEST_SLOTS: usize = 256;
/// Packets one reply queue holds; also the most requests an endpoint has outstanding, so
/// that every reply finds a slot.
pub const REPLY_SLOTS: usize = 256;
/// Bulk blocks per queue. Shorter than the packet queue, as in 001: most messages are short.
pub const BULK_BLOCKS: usize = 16;
// A packet names its bulk block in one byte, `NO_BULK` apart.
const _: () = assert!(BULK_BLOCKS < super::packet::NO_BULK as usize);

const MAGIC: u64 = u64::from_le_bytes(*b"clumpQB1");
const VERSION: u32 = 5;
/// `wake_key` / `seg_fd` value meaning "none".
pub const NO_FD: u32 = u32::MAX;

/// Written once by the owner before the block's name is handed out, then read-mostly.
#[repr(C)]
pub struct BlockHeader {
    magic: u64,
    version: u32,
    pub owner_pid: u32,
    pub nonce: u64,
    /// The endpoint's tag: a sender whose translation names another tag gets its message
    /// back. Read on every send, written only by `set_tag`.
    pub tag: AtomicU64,
    /// 1 while the owner is freeing the endpoint or has freed it.
    pub closed: AtomicU32,
    /// The key of the owner's bundle wake socket (see `wake.rs`).
    pub wake_key: AtomicU32,
    /// The segment: descriptor, length and a generation bumped on every change, so a
    /// sender's cached mapping can tell it is stale (read as a seqlock: gen, fields, gen).
    /// A segment in the owner's program memory has no descriptor but its address there.
    pub seg_fd: AtomicU32,
    pub seg_len: AtomicU64,
    pub seg_addr: AtomicU64,
    pub seg_gen: AtomicU64,
    /// How many of the owner's threads sleep (counted up before, down after); a sender
    /// that sees it nonzero rings `wake_key`.
    /// On its own line: the owner writes it while senders read the header.
    pub sleeping: CachePadded<AtomicU32>,
    /// The CPU the owner's thread last went to sleep on (`cpu_mate::this_cpu`), which tells the
    /// sender that wakes it whether the two will likely share a CPU. On a line of its own
    /// (the padding before the queues).
    pub sleep_cpu: AtomicU32,
}

#[repr(C, align(4096))]
struct BulkData(UnsafeCell<[u8; MAX_MEDIUM]>);

/// One receive queue: packet ring, bulk bookkeeping and bulk data.
#[repr(C)]
pub struct Queue<const SLOTS: usize> {
    ring: RingHeader,
    slots: [Slot<Packet>; SLOTS],
    states: [BulkState; BULK_BLOCKS],
    data: [BulkData; BULK_BLOCKS],
}

#[repr(C)]
pub struct QueueBlock {
    pub header: BlockHeader,
    pub request: Queue<REQUEST_SLOTS>,
    pub reply: Queue<REPLY_SLOTS>,
}

impl<const SLOTS: usize> Queue<SLOTS> {
    pub fn ring(&self) -> Ring<'_, Packet> {
        Ring::new(&self.ring, &self.slots)
    }

    pub fn bulk(&self) -> BulkPool<'_> {
        BulkPool::new(&self.states)
    }

    /// Copies `bytes` into bulk block `block`, which the caller has claimed.
    pub fn write_bulk(&self, block: u32, bytes: &[u8]) {
        assert!(bytes.len() <= MAX_MEDIUM);
        // SAFETY: the caller owns `block` through a successful claim; nobody reads it until
        // the packet naming it is published. The length fits the block (checked above).
        unsafe {
            let dst = self.data[block as usize].0.get() as *mut u8;
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len());
        }
    }

    /// The first `len` bytes of bulk block `block`, which the consumer holds until it frees
    /// it. `None` if the packet that named it was malformed.
    pub fn read_bulk(&self, block: u32, len: u32) -> Option<&[u8]> {
        if block as usize >= BULK_BLOCKS || len as usize > MAX_MEDIUM {
            return None;
        }
        // SAFETY: the block was filled before its packet was published (Release/Acquire
        // through the slot sequence) and is not reused until the consumer frees it.
        Some(unsafe {
            std::slice::from_raw_parts(self.data[block as usize].0.get() as *const u8, len as usize)
        })
    }
}

/// A queue block in a mapped region. Holds the mapping alive.
pub struct MappedBlock {
    region: Region,
}

// SAFETY: every field of the block other processes or threads write is an atomic or sits
// behind the ring/bulk protocols; the plain header fields are written once before sharing.
unsafe impl Send for MappedBlock {}
// SAFETY: as for `Send`: shared access goes through atomics and the queue protocols.
unsafe impl Sync for MappedBlock {}

impl MappedBlock {
    pub const SIZE: usize = std::mem::size_of::<QueueBlock>();

    /// Creates and initialises the queue block of a new endpoint.
    pub fn create(tag: u64, nonce: u64) -> io::Result<MappedBlock> {
        let region = Region::create("clump-endpoint", Self::SIZE)?;
        let block = MappedBlock { region };
        let fd = block.region.fd().expect("created regions are owned");
        // SAFETY: the region is fresh, zero-filled, large enough, page-aligned, and not yet
        // visible to anyone else, so these plain writes race with nothing.
        unsafe {
            let h = block.region.as_ptr() as *mut BlockHeader;
            (*h).magic = MAGIC;
            (*h).version = VERSION;
            (*h).owner_pid = std::process::id();
            (*h).nonce = nonce;
        }
        let b = block.get();
        b.header.tag.store(tag, Ordering::Relaxed);
        b.header.wake_key.store(NO_FD, Ordering::Relaxed);
        b.header.seg_fd.store(NO_FD, Ordering::Relaxed);
        b.request.ring().init();
        b.reply.ring().init();
        debug_assert_eq!(fd, block.fd());
        std::sync::atomic::fence(std::sync::atomic::Ordering::Release);
        Ok(block)
    }

    /// Maps the block another process created, checking that it is what the name says.
    pub fn open(pid: u32, fd: u32, nonce: u64) -> io::Result<MappedBlock> {
        let region = Region::open(pid, fd, Self::SIZE)?;
        let block = MappedBlock { region };
        let h = &block.get().header;
        if h.magic != MAGIC || h.version != VERSION || h.nonce != nonce || h.owner_pid != pid {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "descriptor no longer holds that endpoint's queue block",
            ));
        }
        Ok(block)
    }

    #[inline(always)]
    pub fn get(&self) -> &QueueBlock {
        // SAFETY: the region is at least SIZE bytes, page-aligned (mmap), initialised by
        // its owner before its name was published, and lives as long as `self`. All
        // shared mutation goes through atomics or UnsafeCell.
        unsafe { &*(self.region.as_ptr() as *const QueueBlock) }
    }

    /// The owner's descriptor for the block.
    pub fn fd(&self) -> u32 {
        self.region.fd().unwrap_or(NO_FD)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn layout_keeps_slots_on_their_own_lines() {
        assert_eq!(std::mem::size_of::<Slot<Packet>>(), 128);
        assert_eq!(std::mem::offset_of!(QueueBlock, request) % 128, 0);
        const _: () = assert!(MappedBlock::SIZE < 4 << 20, "a queue block stays small");
    }

    #[test]
    fn a_peer_mapping_sees_the_tag_and_rejects_a_wrong_nonce() {
        let owner = MappedBlock::create(0xabc, 77).unwrap();
        let pid = std::process::id();
        let peer = MappedBlock::open(pid, owner.fd(), 77).unwrap();
        assert_eq!(peer.get().header.tag.load(Ordering::Relaxed), 0xabc);
        assert!(MappedBlock::open(pid, owner.fd(), 78).is_err());
    }
}
