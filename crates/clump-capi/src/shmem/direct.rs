//! Large collectives among the PEs of one host, copied straight between their mapped heaps:
//! fcollect, broadcast, alltoall and reductions. Each member copies its share into or out
//! of the others' heaps between two barriers of the team: the first so that no member's
//! buffers are read or written before it entered the call, the second so that every copy
//! is done when any member returns. The global address space's collectives instead pass
//! each block as messages through the bounded shared-memory queues, hop by hop of a tree,
//! which costs copies but no barrier: in a broadcast or a reduction only the members below
//! the root wait.

use super::reduce::Reducer;
use super::runtime::{dst_slice, gas_err, src_slice, Res, State};
use super::symmetric::Place;
use bytemuck::Pod;
use clump_gas::Group;
use std::ffi::c_void;

/// Bytes of a reduction's part combined at a time (see [`State::reduce_direct`]).
const PIECE: usize = 16384;

/// The members from this one round to the one before it, as (index, rank): every member
/// starts on a different heap, so the writers spread over the heaps.
fn rotated(g: &Group) -> impl Iterator<Item = (usize, u32)> + '_ {
    let ranks = g.ranks();
    let me = g.index() as usize;
    (me..ranks.len()).chain(0..me).map(move |i| (i, ranks[i]))
}

impl State {
    /// Bytes from which a collective goes straight between same-host heaps. The two barriers
    /// cost every member a wait each, and on a loaded machine a wait is a wake-up (15-70 µs);
    /// messages cost copies through the queues instead. Measured at 2 and 4 PEs on 2 cores
    /// at load 10-12, direct against messages: an fcollect or alltoall (messages from every
    /// member to every member) is as fast or faster direct from 8 KiB; a reduction ties at
    /// 64 KiB (4 PEs: 160-593 µs against 131-489) and is faster direct from 128 KiB; a
    /// broadcast (whose root never waits for a message) is slower direct up to 64 KiB (4
    /// PEs: 158-419 µs against 68-74) and faster from 128 KiB (4 PEs, 1 MiB: 0.24-0.88 ms
    /// against 8.1-9.8).
    pub const EXCHANGE_FROM: usize = 8 << 10;
    pub const REDUCE_FROM: usize = 64 << 10;
    pub const BROADCAST_FROM: usize = 128 << 10;

    /// Whether a collective over `g` that moves `total` bytes goes straight between heaps:
    /// `total` no smaller than `from` (its kind's threshold above), every member on this
    /// host (its heap is mapped here) and each of `bufs` (address, bytes) on the symmetric
    /// heap. Every member decides alike: the buffers are symmetric, so they lie at the same
    /// heap offsets.
    pub fn direct(
        &self,
        g: &Group,
        (total, from): (usize, usize),
        bufs: &[(*const c_void, usize)],
    ) -> bool {
        if total < from {
            return false;
        }
        let on_heap = |&(addr, len): &(*const c_void, usize)| {
            matches!(self.locate(addr, len), Ok(Place::Heap(_)))
        };
        let gas = self.gas.borrow();
        bufs.iter().all(on_heap) && g.ranks().iter().all(|&r| gas.is_local(r))
    }

    /// Runs `copies` between two barriers of `g`.
    fn between_barriers(&self, g: &Group, copies: impl FnOnce() -> Res<()>) -> Res<()> {
        let barrier = || self.gas.borrow().group_barrier(g).map_err(gas_err);
        barrier()?;
        copies()?;
        barrier()
    }

    /// fcollect: this member's block `mine` into its place of every member's `dest`.
    pub fn fcollect_direct(&self, g: &Group, dest: *mut c_void, mine: &[u8]) -> Res<()> {
        let at = dest.wrapping_byte_add(g.index() as usize * mine.len());
        self.between_barriers(g, || {
            rotated(g).try_for_each(|(_, r)| self.put(at, mine, r))
        })
    }

    /// broadcast: each member reads `len` bytes of the root's `src` into its own `dest`
    /// (the root too, unless `skip_root` or the two are one buffer).
    pub fn broadcast_direct(
        &self,
        g: &Group,
        root: u32,
        (dest, src, len): (*mut c_void, *const c_void, usize),
        skip_root: bool,
    ) -> Res<()> {
        let reads = g.index() != root || !(skip_root || dest.cast_const() == src);
        self.between_barriers(g, || {
            if !reads {
                return Ok(());
            }
            // SAFETY: `dest` is the C caller's destination of `len` bytes (shmem.h), and
            // nothing else in this process touches it during the call.
            let dst = unsafe { dst_slice(dest, len, "dest")? };
            self.get(dst, src, g.ranks()[root as usize])
        })
    }

    /// alltoall: block j (`block` bytes) of this member's `src` into block `index` of
    /// member j's `dest`.
    pub fn alltoall_direct(
        &self,
        g: &Group,
        dest: *mut c_void,
        src: *const c_void,
        block: usize,
    ) -> Res<()> {
        let at = dest.wrapping_byte_add(g.index() as usize * block);
        // SAFETY: `src` is the C caller's source of one block per member (shmem.h).
        let src = unsafe { src_slice(src, block * g.size() as usize, "source")? };
        self.between_barriers(g, || {
            rotated(g).try_for_each(|(j, r)| self.put(at, &src[j * block..(j + 1) * block], r))
        })
    }

    /// Reduction of `n` elements: member i combines its share of the elements (the i-th
    /// of `size` nearly equal parts) from every member's `src`, in member order, and writes
    /// the result into that part of every member's `dest`. Parts are disjoint, so `src`
    /// and `dest` may be one buffer. The part goes in pieces of [`PIECE`] bytes through two
    /// small buffers that stay in cache, each piece written out while it is still there.
    pub fn reduce_direct<T: Pod>(
        &self,
        g: &Group,
        dest: *mut T,
        src: *const T,
        n: usize,
        op: impl Reducer<T>,
    ) -> Res<()> {
        let part = |i: usize| (n as u128 * i as u128 / g.size() as u128) as usize;
        let me = g.index() as usize;
        let (lo, hi) = (part(me), part(me + 1));
        let step = (PIECE / size_of::<T>().max(1)).max(1);
        let mut acc = vec![T::zeroed(); step.min(hi - lo)];
        let mut next = acc.clone();
        self.between_barriers(g, || {
            for at in (lo..hi).step_by(step) {
                let len = step.min(hi - at);
                for (i, &r) in g.ranks().iter().enumerate() {
                    let into = if i == 0 {
                        &mut acc[..len]
                    } else {
                        &mut next[..len]
                    };
                    self.get(
                        bytemuck::cast_slice_mut(into),
                        src.wrapping_add(at).cast(),
                        r,
                    )?;
                    if i > 0 {
                        op.combine(&acc[..len], &mut next[..len])?;
                        std::mem::swap(&mut acc, &mut next);
                    }
                }
                let to = dest.wrapping_add(at).cast::<c_void>();
                let piece = bytemuck::cast_slice(&acc[..len]);
                rotated(g).try_for_each(|(_, r)| self.put(to, piece, r))?;
            }
            Ok(())
        })
    }
}
