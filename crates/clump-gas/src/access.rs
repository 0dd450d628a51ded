//! One-sided accesses: blocking reads and writes, split-phase gets and puts, one-way
//! stores, atomics. A rank on this host is reached through its mapped segment in direct
//! mode; every other access is an Active Message, split into chunks the layer can carry.

use crate::atomic::apply_at;
use crate::error::{Error, Result};
use crate::gas::Gas;
use crate::protocol::{H_ATOMIC, H_GET_DONE, H_PUT, H_STORE, STATUS_OK, STORED_COUNTER};
use crate::ptr::GlobalPtr;
use crate::rmw::Rmw;
use crate::shared::{split, OWN_LANE};
use bytemuck::Pod;

/// The largest piece one message carries.
const CHUNK: usize = clump::MAX_MEDIUM;

/// What the destination does once a put's bytes have landed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Landing {
    /// Acknowledge, for `sync`.
    Put,
    /// Count the bytes, for `store_sync`.
    Store,
}

impl Gas {
    pub fn read<T: Pod>(&self, p: GlobalPtr<T>) -> Result<T> {
        let mut v = [T::zeroed()];
        self.read_bulk(p, &mut v)?;
        Ok(v[0])
    }

    pub fn write<T: Pod>(&self, p: GlobalPtr<T>, v: T) -> Result<()> {
        self.write_bulk(p, &[v])
    }

    pub fn read_bulk<T: Pod>(&self, src: GlobalPtr<T>, dst: &mut [T]) -> Result<()> {
        let (offset, _) = self.check(src, dst.len())?;
        self.read_bytes(src.rank, offset, bytemuck::cast_slice_mut(dst))
    }

    /// Writes and waits until the bytes have landed (and every earlier put of this rank).
    pub fn write_bulk<T: Pod>(&self, dst: GlobalPtr<T>, src: &[T]) -> Result<()> {
        self.put_bulk(dst, src)?;
        self.sync()
    }

    /// Starts copying `*src` into `dst`, which must be on this rank; `sync` completes it.
    pub fn get<T: Pod>(&self, src: GlobalPtr<T>, dst: GlobalPtr<T>) -> Result<()> {
        self.get_bulk(src, dst, 1)
    }

    pub fn get_bulk<T: Pod>(&self, src: GlobalPtr<T>, dst: GlobalPtr<T>, n: usize) -> Result<()> {
        self.get_bulk_in(OWN_LANE, src, dst, n)
    }

    /// [`Gas::get_bulk`] for `lane`, whose sync completes it.
    pub(crate) fn get_bulk_in<T: Pod>(
        &self,
        lane: u32,
        src: GlobalPtr<T>,
        dst: GlobalPtr<T>,
        n: usize,
    ) -> Result<()> {
        let (from, len) = self.check(src, n)?;
        let (to, _) = self.check(dst, n)?;
        if dst.rank != self.rank() {
            return Err(Error::BadSize(format!(
                "a get's destination must be on this rank ({}), not rank {}",
                self.rank(),
                dst.rank
            )));
        }
        if let Some(seg) = self.direct_to(src.rank) {
            self.copy_direct(seg, from, to, len)?;
            self.count_direct(src.rank, len);
            return Ok(());
        }
        for at in (0..len).step_by(CHUNK) {
            let piece = CHUNK.min(len - at);
            self.track(lane, || {
                self.spmd
                    .ep
                    .get(src.rank, H_GET_DONE, &[lane], from + at, piece, to + at)
            })?;
            self.count_exchange(src.rank, 0, piece);
        }
        Ok(())
    }

    pub fn put<T: Pod>(&self, dst: GlobalPtr<T>, v: T) -> Result<()> {
        self.put_bulk(dst, &[v])
    }

    /// Starts writing `src` at `dst` (copied before return); `sync` completes it.
    pub fn put_bulk<T: Pod>(&self, dst: GlobalPtr<T>, src: &[T]) -> Result<()> {
        self.put_bulk_in(OWN_LANE, dst, src)
    }

    /// [`Gas::put_bulk`] for `lane`, whose sync completes it.
    pub(crate) fn put_bulk_in<T: Pod>(
        &self,
        lane: u32,
        dst: GlobalPtr<T>,
        src: &[T],
    ) -> Result<()> {
        let (offset, _) = self.check(dst, src.len())?;
        let bytes = bytemuck::cast_slice(src);
        self.send_bytes(dst.rank, offset, bytes, Landing::Put, lane)
    }

    /// Waits until every get and put this rank started has completed.
    pub fn sync(&self) -> Result<()> {
        self.sync_lane(OWN_LANE)
    }

    /// Waits until every get and put `lane` started has completed (others may still run).
    pub(crate) fn sync_lane(&self, lane: u32) -> Result<()> {
        let shared = self.shared.clone();
        self.wait_until(|| shared.outstanding(lane) == 0)
    }

    /// Orders this rank's puts and atomics to each rank before its later ones without
    /// waiting for them: every path already delivers in the order sent (direct stores
    /// complete on return, Active Messages run in order), so it only sends at once what
    /// the network side holds back for coalescing (one poll), and does nothing when no
    /// message is outstanding.
    pub fn fence(&self) -> Result<()> {
        if self.shared.outstanding(OWN_LANE) == 0 {
            return Ok(());
        }
        self.poll()
    }

    /// A one-way store: the destination learns of it through `store_sync`.
    pub fn store<T: Pod>(&self, dst: GlobalPtr<T>, v: T) -> Result<()> {
        self.store_bulk(dst, &[v])
    }

    pub fn store_bulk<T: Pod>(&self, dst: GlobalPtr<T>, src: &[T]) -> Result<()> {
        let (offset, _) = self.check(dst, src.len())?;
        let bytes = bytemuck::cast_slice(src);
        self.send_bytes(dst.rank, offset, bytes, Landing::Store, OWN_LANE)?;
        self.stored_to.borrow_mut()[dst.rank as usize] += bytes.len() as u64;
        Ok(())
    }

    /// Waits until `bytes` more bytes have been stored into this rank, and consumes them.
    pub fn store_sync(&self, bytes: usize) -> Result<()> {
        let target = self.consumed_stores.get() + bytes as u64;
        self.wait_for_store(|| Ok(self.stored_here()? >= target))?;
        self.consumed_stores.set(target);
        Ok(())
    }

    pub fn fetch_add(&self, p: GlobalPtr<u64>, v: u64) -> Result<u64> {
        self.rmw(p, Rmw::Add(v))
    }

    /// Sets `*p` to `new` if it holds `expect`; returns the value it held.
    pub fn compare_swap(&self, p: GlobalPtr<u64>, expect: u64, new: u64) -> Result<u64> {
        self.rmw(p, Rmw::CompareSwap { expect, new })
    }

    /// Sets `*p` to `v`; returns the value it held.
    pub fn swap(&self, p: GlobalPtr<u64>, v: u64) -> Result<u64> {
        self.rmw(p, Rmw::Swap(v))
    }

    pub fn fetch_and(&self, p: GlobalPtr<u64>, v: u64) -> Result<u64> {
        self.rmw(p, Rmw::And(v))
    }

    pub fn fetch_or(&self, p: GlobalPtr<u64>, v: u64) -> Result<u64> {
        self.rmw(p, Rmw::Or(v))
    }

    pub fn fetch_xor(&self, p: GlobalPtr<u64>, v: u64) -> Result<u64> {
        self.rmw(p, Rmw::Xor(v))
    }

    /// Reads `*p` atomically (never torn by a concurrent atomic or direct access).
    pub fn atomic_load(&self, p: GlobalPtr<u64>) -> Result<u64> {
        self.rmw(p, Rmw::Load)
    }

    /// Applies `op` to `*p` atomically ([`crate::rmw`]): in place when `p`'s rank is
    /// reached directly, else in its handler; returns the value it held.
    pub fn rmw(&self, p: GlobalPtr<u64>, op: Rmw) -> Result<u64> {
        let (offset, _) = self.check(p, 1)?;
        if offset % 8 != 0 {
            return Err(Error::Misaligned(offset));
        }
        if let Some(seg) = self.direct_to(p.rank) {
            self.count_direct(p.rank, 8);
            return apply_at(seg.as_ptr(), seg.len(), offset, op);
        }
        let (code, a, b) = op.encode();
        let req = self.fresh_request();
        let [o_lo, o_hi] = split(offset as u64);
        let [a_lo, a_hi] = split(a);
        let [b_lo, b_hi] = split(b);
        self.spmd.ep.request(
            p.rank,
            H_ATOMIC,
            &[req, code.into(), o_lo, o_hi, a_lo, a_hi, b_lo, b_hi],
        )?;
        self.count_exchange(p.rank, 0, 8);
        let bytes = self.await_reply(req)?;
        let word: [u8; 8] = bytes
            .try_into()
            .map_err(|_| Error::Undeliverable("malformed atomic reply".into()))?;
        Ok(u64::from_le_bytes(word))
    }

    /// Waits for the reply to request `req`; returns its bytes if it succeeded.
    fn await_reply(&self, req: u32) -> Result<Vec<u8>> {
        let (status, bytes) = self.await_status(req)?;
        if status != STATUS_OK {
            return Err(Error::Undeliverable(format!(
                "the target refused the access (status {status})"
            )));
        }
        Ok(bytes)
    }

    fn read_bytes(&self, rank: u32, offset: usize, dst: &mut [u8]) -> Result<()> {
        if let Some(seg) = self.direct_to(rank) {
            seg.read(offset, dst)?;
            self.count_direct(rank, dst.len());
            return Ok(());
        }
        self.read_by_messages(rank, offset, dst)
    }

    fn send_bytes(
        &self,
        rank: u32,
        offset: usize,
        src: &[u8],
        landing: Landing,
        lane: u32,
    ) -> Result<()> {
        if let Some(seg) = self.direct_to(rank) {
            seg.write(offset, src)?;
            self.count_direct(rank, src.len());
            if landing == Landing::Store {
                apply_at(
                    seg.as_ptr(),
                    seg.len(),
                    STORED_COUNTER,
                    Rmw::Add(src.len() as u64),
                )?;
            }
            return Ok(());
        }
        let handler = match landing {
            Landing::Put => H_PUT,
            Landing::Store => H_STORE,
        };
        for at in (0..src.len()).step_by(CHUNK) {
            let piece = &src[at..src.len().min(at + CHUNK)];
            let send = || {
                self.spmd
                    .ep
                    .request_long(rank, handler, &[lane], piece, offset + at)
            };
            // A put is acknowledged; a store is not.
            match landing {
                Landing::Put => {
                    self.track(lane, send)?;
                    self.count_exchange(rank, piece.len(), 0);
                }
                Landing::Store => {
                    send()?;
                    self.count_message(rank, piece.len());
                }
            }
        }
        Ok(())
    }

    /// Sends a message whose completion `sync` waits for; one that never left is not awaited.
    fn track(&self, lane: u32, send: impl FnOnce() -> clump::Result<()>) -> Result<()> {
        self.shared.started(lane);
        send().inspect_err(|_| self.shared.completed(lane))?;
        Ok(())
    }

    /// Copies `len` bytes at `from` of a same-host segment to `to` of this rank's segment,
    /// in one copy.
    fn copy_direct(
        &self,
        seg: &clump::PeerSegment,
        from: usize,
        to: usize,
        len: usize,
    ) -> Result<()> {
        let (base, seg_len) = self
            .spmd
            .ep
            .segment_ptr()
            .ok_or_else(|| Error::BadSize("this rank has no segment".into()))?;
        if to.checked_add(len).is_none_or(|end| end > seg_len)
            || from.checked_add(len).is_none_or(|end| end > seg.len())
        {
            return Err(Error::BadSize(format!(
                "{len} bytes do not fit the segment"
            )));
        }
        // SAFETY: both ranges lie inside mappings that outlive the call (checked above);
        // `copy` allows the overlap of a get from this rank's own segment into itself.
        unsafe { std::ptr::copy(seg.as_ptr().add(from), base.add(to), len) };
        Ok(())
    }
}
