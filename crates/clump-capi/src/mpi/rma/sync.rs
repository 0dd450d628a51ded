//! Synchronization: fence, passive-target locks (exclusive, shared, all), flushes and
//! `MPI_Win_sync`. Every RMA call completes at its target before it returns but for the
//! puts and accumulates posted to another host, which the calls that complete an epoch
//! (fence, unlocks, flushes) wait for ([`space::Space::settle`]); a lock is taken in the target's handler
//! (or here, when the target is this process) and held until the unlock. The calls that
//! end an access (flushes, unlocks, `MPI_Win_sync`) also serve the requests that have
//! reached this process: one looping on RMA calls to its own memory, which need no
//! message, must still answer the others (MPI's progress rule); a cheap look at the
//! shared-memory queue first, a full poll only on some of those calls.

use super::super::export::mpi_functions;
use super::super::handles::err;
use super::super::wired::Failure;
use super::abi::*;
use super::request::{Kind, Request};
use super::space;
use super::window::{self, on, Held};
use std::os::raw::c_int;
use std::sync::atomic::{fence, Ordering};

fn sync_error(why: impl Into<String>) -> Failure {
    (MPI_ERR_RMA_SYNC, why.into())
}

fn fence_call(assert: c_int, win: usize) -> Result<(), Failure> {
    let known = MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;
    if assert & !known != 0 {
        return Err((
            MPI_ERR_ASSERT,
            format!("assert {assert:#x} is not a fence's"),
        ));
    }
    let c = window::with(win, |w| {
        if w.epoch.all.is_some() || !w.epoch.locked.is_empty() {
            return Err(sync_error("a fence inside a passive-target epoch"));
        }
        Ok(w.comm.clone())
    })?;
    fence(Ordering::SeqCst);
    if let Some(space) = space::current() {
        space.settle(None)?;
    }
    // Every member's accesses of the closing epoch are complete once all arrive.
    clump_mpi::barrier(&c).map_err(err)?;
    fence(Ordering::SeqCst);
    window::with(win, |w| {
        w.epoch.fence = assert & MPI_MODE_NOSUCCEED == 0;
        Ok(())
    })
}

/// Takes or releases the lock of member `t` of `win`, waiting while it is held.
fn lock_member(win: usize, t: usize, kind: Kind, exclusive: bool) -> Result<(), Failure> {
    let space = space::current().ok_or_else(|| sync_error("no window exists"))?;
    let m = window::with(win, |w| Ok(w.members[t]))?;
    let req = Request {
        kind,
        id: m.id,
        offset: 0,
        args: [exclusive as u64, 0, 0],
        data: &[],
    };
    space.wait_until(|| {
        if m.rank == space.gas.rank() {
            return window::with(win, |w| {
                Ok(match kind {
                    Kind::Lock => w.served.try_lock(exclusive),
                    _ => {
                        w.served.unlock(exclusive);
                        true
                    }
                })
            });
        }
        let reply = space.send(m.rank, &req)?;
        Ok(kind != Kind::Lock || reply.first() == Some(&1))
    })
}

/// Counts a call on `win` that ends accesses, then serves the requests that have
/// reached this process as [`space::Space::serve`] says.
fn progress_on(win: usize) -> Result<(), Failure> {
    let (space, n) = window::with(win, |w| Ok((w.space.clone(), w.epoch.count_end())))?;
    space.serve(n)
}

fn member_index(win: usize, rank: c_int) -> Result<usize, Failure> {
    window::with(win, |w| w.index(rank))
}

fn lock(lock_type: c_int, rank: c_int, assert: c_int, win: usize) -> Result<(), Failure> {
    let exclusive = match lock_type {
        MPI_LOCK_EXCLUSIVE => true,
        MPI_LOCK_SHARED => false,
        _ => return Err((MPI_ERR_LOCKTYPE, format!("lock type {lock_type}"))),
    };
    if assert & !MPI_MODE_NOCHECK != 0 {
        return Err((
            MPI_ERR_ASSERT,
            format!("assert {assert:#x} is not a lock's"),
        ));
    }
    if rank == clump_mpi::PROC_NULL {
        return window::with(win, |_| Ok(())); // a target that is none: nothing to lock
    }
    let t = member_index(win, rank)?;
    window::with(win, |w| {
        if w.epoch.all.is_some() || w.epoch.locked.contains_key(&t) {
            return Err(sync_error(format!("rank {rank} is locked already")));
        }
        Ok(())
    })?;
    let taken = assert & MPI_MODE_NOCHECK == 0;
    if taken {
        lock_member(win, t, Kind::Lock, exclusive)?;
    }
    window::with(win, |w| {
        w.epoch.locked.insert(t, Held { exclusive, taken });
        Ok(())
    })
}

fn unlock(rank: c_int, win: usize) -> Result<(), Failure> {
    if rank == clump_mpi::PROC_NULL {
        return window::with(win, |_| Ok(()));
    }
    let t = member_index(win, rank)?;
    // The epoch's count of calls that end accesses is taken in the same window lookup
    // (a second lookup cost lock/put/unlock at 8 B a tenth of its time).
    let (held, space, n, job_rank) = window::with(win, |w| {
        let held = w.epoch.locked.remove(&t);
        let held = held.ok_or_else(|| sync_error(format!("rank {rank} is not locked")))?;
        Ok((
            held,
            w.space.clone(),
            w.epoch.count_end(),
            w.members[t].rank,
        ))
    })?;
    fence(Ordering::SeqCst);
    // The unlock follows the posted accesses to the target, which runs them first: the
    // wait for their answers after it costs no extra round trip.
    if held.taken {
        lock_member(win, t, Kind::Unlock, held.exclusive)?;
    }
    space.settle(Some(job_rank))?;
    space.serve(n)
}

fn lock_all(assert: c_int, win: usize) -> Result<(), Failure> {
    if assert & !MPI_MODE_NOCHECK != 0 {
        return Err((
            MPI_ERR_ASSERT,
            format!("assert {assert:#x} is not a lock's"),
        ));
    }
    let n = window::with(win, |w| {
        if w.epoch.all.is_some() || !w.epoch.locked.is_empty() {
            return Err(sync_error("a lock_all inside a passive-target epoch"));
        }
        Ok(w.members.len())
    })?;
    if assert & MPI_MODE_NOCHECK == 0 {
        for t in 0..n {
            lock_member(win, t, Kind::Lock, false)?;
        }
    }
    window::with(win, |w| {
        w.epoch.all = Some(assert & MPI_MODE_NOCHECK == 0);
        Ok(())
    })
}

fn unlock_all(win: usize) -> Result<(), Failure> {
    let (members, taken, space, n) = window::with(win, |w| {
        let taken = w
            .epoch
            .all
            .take()
            .ok_or_else(|| sync_error("unlock_all without lock_all"))?;
        Ok((w.members.len(), taken, w.space.clone(), w.epoch.count_end()))
    })?;
    fence(Ordering::SeqCst);
    if taken {
        for t in 0..members {
            lock_member(win, t, Kind::Unlock, false)?;
        }
    }
    space.settle(None)?;
    space.serve(n)
}

/// A flush: checks that `rank` (every rank when `None`) is in an access epoch, waits for
/// the accesses posted to it (the others completed when their calls returned), and serves
/// the others ([`space::Space::serve`]).
fn flush(rank: Option<c_int>, win: usize) -> Result<(), Failure> {
    let rest = window::with(win, |w| {
        let (open, target) = match rank {
            Some(clump_mpi::PROC_NULL) => (true, Some(None)),
            Some(r) => {
                let t = w.index(r)?;
                (w.epoch.reaches(t), Some(Some(w.members[t].rank)))
            }
            None => (w.epoch.is_open(), None),
        };
        if !open {
            return Err(sync_error("a flush outside a passive-target epoch"));
        }
        let n = w.epoch.count_end();
        fence(Ordering::SeqCst);
        // The common flush, with nothing posted to wait for and nothing to serve, ends
        // here, in the window's one lookup.
        if !w.space.posts() && !w.space.serves(n) {
            return Ok(None);
        }
        Ok(Some((w.space.clone(), n, target)))
    })?;
    let Some((space, n, target)) = rest else {
        return Ok(());
    };
    match target {
        Some(None) => {} // MPI_PROC_NULL: nothing was posted to it
        Some(Some(rank)) => space.settle(Some(rank))?,
        None => space.settle(None)?,
    }
    space.serve(n)
}

mpi_functions! {
    fn Win_fence(assert: c_int, win: usize) -> c_int {
        on(win, || fence_call(assert, win))
    }

    fn Win_lock(lock_type: c_int, rank: c_int, assert: c_int, win: usize) -> c_int {
        on(win, || lock(lock_type, rank, assert, win))
    }

    fn Win_unlock(rank: c_int, win: usize) -> c_int {
        on(win, || unlock(rank, win))
    }

    fn Win_lock_all(assert: c_int, win: usize) -> c_int {
        on(win, || lock_all(assert, win))
    }

    fn Win_unlock_all(win: usize) -> c_int {
        on(win, || unlock_all(win))
    }

    fn Win_flush(rank: c_int, win: usize) -> c_int {
        on(win, || flush(Some(rank), win))
    }

    fn Win_flush_local(rank: c_int, win: usize) -> c_int {
        on(win, || flush(Some(rank), win))
    }

    fn Win_flush_all(win: usize) -> c_int {
        on(win, || flush(None, win))
    }

    fn Win_flush_local_all(win: usize) -> c_int {
        on(win, || flush(None, win))
    }

    fn Win_sync(win: usize) -> c_int {
        on(win, || {
            fence(Ordering::SeqCst);
            progress_on(win)
        })
    }
}
