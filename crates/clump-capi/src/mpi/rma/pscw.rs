//! General active target synchronization: a target exposes its window to a group of
//! origins (`MPI_Win_post` ... `MPI_Win_wait`/`test`), an origin accesses a group of
//! targets (`MPI_Win_start` ... `MPI_Win_complete`). A post and a completion are each a
//! message counted in the receiver's window (a post under `MPI_MODE_NOCHECK`, which its
//! starts assert too, is none); every access completed before its call returned, so a
//! completion follows them all.

use super::super::abi::MPI_ERR_GROUP;
use super::super::export::{mpi_functions, out};
use super::super::handles::{err, group, Handle};
use super::super::wired::Failure;
use super::abi::*;
use super::request::{Kind, Request};
use super::space::{self, Space};
use super::window::{self, on};
use std::os::raw::c_int;
use std::rc::Rc;
use std::sync::atomic::{fence, Ordering};

fn current() -> Result<Rc<Space>, Failure> {
    space::current().ok_or_else(|| (MPI_ERR_WIN, "no window exists".to_owned()))
}

/// The window's communicator ranks of the members of group `g`.
fn ranks_of(win: usize, g: Handle) -> Result<Vec<usize>, Failure> {
    let g = group(g)?;
    let all = window::with(win, |w| Ok(w.comm.get_group()))?;
    let ranks: Vec<i32> = (0..g.size()).collect();
    g.translate_ranks(&ranks, &all)
        .map_err(err)?
        .into_iter()
        .map(|r| {
            usize::try_from(r).map_err(|_| {
                (
                    MPI_ERR_GROUP,
                    "a member of the group is not in the window".into(),
                )
            })
        })
        .collect()
}

/// Tells member `t` of `win` of this process's post or completion.
fn signal(space: &Space, win: usize, t: usize, kind: Kind) -> Result<(), Failure> {
    let (m, me) = window::with(win, |w| Ok((w.members[t], w.comm.rank() as usize)))?;
    if m.rank == space.gas.rank() {
        return window::with(win, |w| {
            w.signal(kind, me);
            Ok(())
        });
    }
    let req = Request {
        kind,
        id: m.id,
        offset: 0,
        args: [me as u64, 0, 0],
        data: &[],
    };
    space.send(m.rank, &req).map(drop)
}

fn post(g: Handle, assert: c_int, win: usize) -> Result<(), Failure> {
    if assert & !(MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT) != 0 {
        return Err((
            MPI_ERR_ASSERT,
            format!("assert {assert:#x} is not a post's"),
        ));
    }
    let origins = ranks_of(win, g)?;
    window::with(win, |w| {
        if !w.exposed.is_empty() {
            return Err((MPI_ERR_RMA_SYNC, "a post while another is open".into()));
        }
        w.exposed = origins.clone();
        Ok(())
    })?;
    fence(Ordering::SeqCst);
    // MPI_MODE_NOCHECK: no origin has started yet, and each says so in its start, which
    // then waits for no post; none is sent.
    if assert & MPI_MODE_NOCHECK != 0 {
        return Ok(());
    }
    let space = current()?;
    for &o in &origins {
        signal(&space, win, o, Kind::Post)?;
    }
    Ok(())
}

fn start(g: Handle, assert: c_int, win: usize) -> Result<(), Failure> {
    if assert & !MPI_MODE_NOCHECK != 0 {
        return Err((
            MPI_ERR_ASSERT,
            format!("assert {assert:#x} is not a start's"),
        ));
    }
    let targets = ranks_of(win, g)?;
    window::with(win, |w| {
        if !w.epoch.started.is_empty() || w.epoch.all.is_some() || !w.epoch.locked.is_empty() {
            return Err((
                MPI_ERR_RMA_SYNC,
                "a start inside another access epoch".into(),
            ));
        }
        Ok(())
    })?;
    // MPI_MODE_NOCHECK: every target has posted already, with the same assert (so it
    // sent no post to wait for).
    let check = assert & MPI_MODE_NOCHECK == 0;
    if check {
        // Each target's post is counted once it arrives; this start consumes one from each.
        current()?
            .wait_until(|| window::with(win, |w| Ok(targets.iter().all(|&t| w.posts[t] > 0))))?;
    }
    window::with(win, |w| {
        if check {
            for &t in &targets {
                w.posts[t] -= 1;
            }
        }
        w.epoch.started = targets.clone();
        Ok(())
    })
}

fn complete(win: usize) -> Result<(), Failure> {
    let targets = window::with(win, |w| {
        if w.epoch.started.is_empty() {
            return Err((MPI_ERR_RMA_SYNC, "a complete without a start".into()));
        }
        Ok(std::mem::take(&mut w.epoch.started))
    })?;
    fence(Ordering::SeqCst);
    let space = current()?;
    for t in targets {
        signal(&space, win, t, Kind::Complete)?;
    }
    // Each target ran the accesses posted to it before their completion: waiting for
    // their answers after the signals costs no extra round trip.
    space.settle(None)
}

/// Ends the exposure epoch if every origin has completed; whether it did.
fn finished(win: usize) -> Result<bool, Failure> {
    window::with(win, |w| {
        if w.exposed.is_empty() {
            return Err((MPI_ERR_RMA_SYNC, "a wait without a post".into()));
        }
        if w.completions < w.exposed.len() {
            return Ok(false);
        }
        w.completions -= w.exposed.len();
        w.exposed.clear();
        fence(Ordering::SeqCst);
        Ok(true)
    })
}

mpi_functions! {
    fn Win_post(g: Handle, assert: c_int, win: usize) -> c_int {
        on(win, || post(g, assert, win))
    }

    fn Win_start(g: Handle, assert: c_int, win: usize) -> c_int {
        on(win, || start(g, assert, win))
    }

    fn Win_complete(win: usize) -> c_int {
        on(win, || complete(win))
    }

    fn Win_wait(win: usize) -> c_int {
        on(win, || current()?.wait_until(|| finished(win)))
    }

    fn Win_test(win: usize, flag: *mut c_int) -> c_int {
        on(win, || {
            let space = current()?;
            space.gas.poll().map_err(|e| (super::super::abi::MPI_ERR_OTHER, e.to_string()))?;
            let done = finished(win)?;
            out(flag, done as c_int).map_err(|e| (e, "NULL flag".into()))
        })
    }
}
