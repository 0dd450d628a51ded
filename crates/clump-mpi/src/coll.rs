//! What the collectives build on: point-to-point messages in the communicator's collective
//! context, on packed bytes, and where the members sit. The collectives know the clump:
//! processes of one host combine through shared memory first, and only one per host (its
//! leader) crosses the network (clump-coll's two-level tiers).
//!
//! Every rank calls the collectives of a communicator in the same order, and messages of
//! one sender never overtake each other, so a tag per phase keeps the phases apart.

use crate::comm::Comm;
use crate::engine::{ReqKind, Senders};
use crate::error::{Error, ErrorClass, Result};
use crate::matching::Pattern;
use crate::p2p::{wait, Request};
use crate::runtime::{self, SendMode};
pub(crate) use clump_coll::pattern::Tiers;

pub(crate) const TAG_BCAST: i32 = 2;
pub(crate) const TAG_REDUCE: i32 = 3;
pub(crate) const TAG_GATHER: i32 = 4;
pub(crate) const TAG_SCATTER: i32 = 5;
pub(crate) const TAG_ALLTOALL: i32 = 6;
pub(crate) const TAG_SCAN: i32 = 7;
pub(crate) const TAG_DOUBLING: i32 = 8;

/// Starts sending `data` to communicator rank `to` in the collective context.
///
/// # Safety
/// `data` must stay valid and unchanged until the request completes.
pub(crate) unsafe fn cisend(comm: &Comm, to: i32, tag: i32, data: &[u8]) -> Result<Request> {
    let rt = runtime::get()?;
    let dest = comm.job_rank(to)?.expect("collective peers are real ranks");
    // SAFETY: the caller keeps `data` valid until the request completes.
    let (id, _) = unsafe {
        rt.start_send(
            data.as_ptr(),
            data.len(),
            dest,
            comm.coll_ctx(),
            tag,
            SendMode::Standard,
        )?
    };
    Ok(Request::from_id(id))
}

/// Sends `data` to communicator rank `to` in the collective context and waits.
pub(crate) fn csend(comm: &Comm, to: i32, tag: i32, data: &[u8]) -> Result<()> {
    // SAFETY: `data` stays borrowed until `wait` completes the send.
    let mut r = unsafe { cisend(comm, to, tag, data)? };
    wait(&mut r).map(drop)
}

/// Posts a receive of up to `buf.len()` bytes from communicator rank `from`.
///
/// # Safety
/// `buf` must stay valid and untouched until the request completes.
pub(crate) unsafe fn cirecv(comm: &Comm, from: i32, tag: i32, buf: &mut [u8]) -> Result<Request> {
    let rt = runtime::get()?;
    let pat = pattern(comm, comm.job_rank(from)?, tag);
    let recv = ReqKind::Recv {
        buf: buf.as_mut_ptr(),
        cap: buf.len(),
        expected: None,
        received: 0,
        senders: Senders::of(&pat, from, comm.peers()),
        unpack: None,
    };
    let id = rt.post(recv, pat)?;
    Ok(Request::from_id(id))
}

fn pattern(comm: &Comm, src: Option<u32>, tag: i32) -> Pattern {
    Pattern {
        src,
        ctx: comm.coll_ctx(),
        tag: Some(tag),
    }
}

/// Waits for a collective receive of `want` bytes and checks that they all came.
pub(crate) fn cwait(r: &mut Request, from: i32, want: usize) -> Result<()> {
    received_all(&wait(r)?, from, want)
}

/// Checks that a collective receive from rank `from` brought the `want` bytes every rank
/// agreed on (blocking collectives and non-blocking schedules alike).
pub(crate) fn received_all(st: &crate::status::Status, from: i32, want: usize) -> Result<()> {
    if st.count_bytes != want {
        return Err(Error::new(
            ErrorClass::Count,
            format!(
                "collective got {} bytes from rank {from}, expected {want}: do all ranks pass the same counts?",
                st.count_bytes
            ),
        ));
    }
    Ok(())
}

/// Receives exactly `buf.len()` bytes from communicator rank `from`.
pub(crate) fn crecv(comm: &Comm, from: i32, tag: i32, buf: &mut [u8]) -> Result<()> {
    let want = buf.len();
    // SAFETY: `buf` stays borrowed until `cwait` completes the receive.
    let mut r = unsafe { cirecv(comm, from, tag, buf)? };
    cwait(&mut r, from, want)
}

/// Receives a message of a length only the sender knows: waits until it is there, then
/// takes it whole.
pub(crate) fn crecv_vec(comm: &Comm, from: i32, tag: i32) -> Result<Vec<u8>> {
    let rt = runtime::get()?;
    let pat = pattern(comm, comm.job_rank(from)?, tag);
    rt.wait_until(|e| e.peek(&pat).is_some())?;
    let len = rt.engine.borrow().peek(&pat).map_or(0, |(_, len)| len);
    let mut buf = vec![0u8; len];
    crecv(comm, from, tag, &mut buf)?;
    Ok(buf)
}

/// How the members of `comm` sit on hosts, for a two-level collective rooted at `root`.
pub(crate) fn tiers(comm: &Comm, root: i32) -> Result<Tiers> {
    let rt = runtime::get()?;
    let leader = |job: u32| rt.host_leaders.get(job as usize).copied().unwrap_or(job);
    let group = comm.group();
    let host = |m: usize| leader(group[m]);
    Ok(Tiers::new(
        group.len(),
        host,
        root as usize,
        comm.rank() as usize,
    ))
}

/// Whether every member of `comm` is on one host (found without building its tiers).
pub(crate) fn one_host(comm: &Comm) -> Result<bool> {
    let rt = runtime::get()?;
    let leader = |job: u32| rt.host_leaders.get(job as usize).copied().unwrap_or(job);
    let mut leaders = comm.group().iter().map(|&job| leader(job));
    let first = leaders.next();
    Ok(leaders.all(|l| Some(l) == first))
}

/// My index in `list` (of communicator ranks), if I am in it.
pub(crate) fn index_in(list: &[usize], me: i32) -> Option<usize> {
    list.iter().position(|&r| r as i32 == me)
}

pub(crate) fn check_root(comm: &Comm, root: i32) -> Result<()> {
    if (0..comm.size()).contains(&root) {
        Ok(())
    } else {
        Err(Error::new(
            ErrorClass::Root,
            format!("root {root} is not a rank of the communicator"),
        ))
    }
}

/// Checks that `lens` has one count per rank of `comm`.
pub(crate) fn check_lens(lens: &[usize], comm: &Comm) -> Result<()> {
    if lens.len() == comm.size() as usize {
        Ok(())
    } else {
        Err(Error::new(
            ErrorClass::Count,
            format!("{} counts for {} ranks", lens.len(), comm.size()),
        ))
    }
}
