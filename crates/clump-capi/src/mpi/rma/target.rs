//! The target's side: the requests of [`super::request`] served (by the handler, one at a
//! time), and the memory accesses both the handler and an origin with direct access make
//! (accumulates element-wise atomic, [`atomic`]).

use super::super::abi::{MPI_ERR_OP, MPI_ERR_OTHER, MPI_ERR_TYPE};
use super::super::handles::{predef, predefined_op, Handle};
use super::super::wired::Failure;
use super::abi::MPI_ERR_WIN;
use super::atomic;
use super::elements;
use super::guard::guarded;
use super::request::{reply, Kind, Request, RUN_ENTRY};
use super::window;
use clump_mpi::{Datatype, Op};

/// Runs a request at its target (in the handler of the remote procedure call).
pub fn serve(source: u32, arg: &[u8]) -> Vec<u8> {
    let Some(req) = Request::decode(arg) else {
        return reply(Err((
            MPI_ERR_OTHER,
            format!("malformed request from rank {source}"),
        )));
    };
    reply(apply(&req))
}

/// Where a request lands, or its answer when it needs no memory.
enum Landing {
    /// The address, and the window's guard word if it has one.
    At(usize, Option<usize>),
    Answer(Vec<u8>),
}

fn apply(req: &Request) -> Result<Vec<u8>, Failure> {
    if matches!(
        req.kind,
        Kind::PutRuns | Kind::GetRuns | Kind::AccumulateRuns
    ) {
        return runs(req);
    }
    let len = match req.kind {
        Kind::Get => req.args[0] as usize,
        Kind::CompareSwap => req.data.len() / 2,
        Kind::Lock | Kind::Unlock | Kind::Post | Kind::Complete => 0,
        Kind::Put | Kind::Accumulate => req.data.len(),
        Kind::PutRuns | Kind::GetRuns | Kind::AccumulateRuns => unreachable!("served above"),
    };
    let exclusive = req.args[0] != 0;
    let landing = window::with_id(req.id, |w| match req.kind {
        Kind::Lock => Ok(Landing::Answer(vec![w.served.try_lock(exclusive) as u8])),
        Kind::Unlock => {
            w.served.unlock(exclusive);
            Ok(Landing::Answer(Vec::new()))
        }
        Kind::Post | Kind::Complete => {
            w.signal(req.kind, req.args[0] as usize);
            Ok(Landing::Answer(Vec::new()))
        }
        _ => Ok(Landing::At(
            w.locate(req.offset as usize, len)?,
            w.owned.guard(),
        )),
    })
    .ok_or_else(|| (MPI_ERR_WIN, format!("the target has no window {}", req.id)))??;
    let (addr, guard) = match landing {
        Landing::Answer(a) => return Ok(a),
        Landing::At(addr, guard) => (addr, guard),
    };
    // Every access below is to the `len` bytes `w.locate` checked lie in this process's
    // part of the window: memory that stays mapped until the collective MPI_Win_free,
    // which no request outlives.
    match req.kind {
        Kind::Put => {
            // SAFETY: `len` checked bytes at `addr`, and `len` is `req.data.len()`.
            unsafe { write_at(addr, req.data) };
            Ok(Vec::new())
        }
        // SAFETY: `len` checked bytes at `addr`.
        Kind::Get => Ok(unsafe { read_at(addr, len) }),
        Kind::Accumulate => {
            let [op_h, ty, fetch] = req.args;
            let (dt, op) = basic_op(op_h, ty)?;
            // SAFETY: `len` (`req.data.len()`) checked bytes at `addr`; every accumulate
            // on the window passes the same guard.
            unsafe { accumulate_at(addr, req.data, (&dt, &op), fetch != 0, guard) }
        }
        Kind::CompareSwap => {
            // SAFETY: as for an accumulate; `req.data` holds `expect` and `new`, `len` each.
            Ok(unsafe { compare_swap_at(addr, &req.data[..len], &req.data[len..2 * len], guard) })
        }
        Kind::Lock | Kind::Unlock | Kind::Post | Kind::Complete => {
            unreachable!("answered above")
        }
        Kind::PutRuns | Kind::GetRuns | Kind::AccumulateRuns => unreachable!("served above"),
    }
}

/// Serves a [`Kind::PutRuns`], [`Kind::GetRuns`] or [`Kind::AccumulateRuns`] request,
/// each run checked against the window on its own.
fn runs(req: &Request) -> Result<Vec<u8>, Failure> {
    let malformed = || (MPI_ERR_OTHER, "a malformed runs request".to_owned());
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let (count, rest) = req.data.split_at_checked(8).ok_or_else(malformed)?;
    let table = usize::try_from(word(count))
        .ok()
        .and_then(|k| k.checked_mul(RUN_ENTRY))
        .filter(|&t| t <= rest.len())
        .ok_or_else(malformed)?;
    let (table, mut bytes) = rest.split_at(table);
    let combine = match req.kind {
        Kind::AccumulateRuns => Some(basic_op(req.args[0], req.args[1])?),
        _ => None,
    };
    let mut out = Vec::new();
    for entry in table.chunks_exact(RUN_ENTRY) {
        let (off, len) = (word(&entry[..8]), word(&entry[8..]));
        let at = req
            .offset
            .checked_add(off)
            .and_then(|a| usize::try_from(a).ok());
        let (Some(at), Ok(len)) = (at, usize::try_from(len)) else {
            return Err(malformed());
        };
        let (addr, guard) = window::with_id(req.id, |w| {
            Ok::<_, Failure>((w.locate(at, len)?, w.owned.guard()))
        })
        .ok_or_else(|| (MPI_ERR_WIN, format!("the target has no window {}", req.id)))??;
        if req.kind == Kind::GetRuns {
            // SAFETY: `w.locate` checked that the `len` bytes at `addr` lie in this
            // process's part of the window, mapped until the collective MPI_Win_free.
            out.extend(unsafe { read_at(addr, len) });
            continue;
        }
        let (now, rest) = bytes.split_at_checked(len).ok_or_else(malformed)?;
        bytes = rest;
        match &combine {
            Some((dt, op)) => {
                // SAFETY: as for a get; every accumulate on the window passes the same guard.
                out.extend(unsafe { accumulate_at(addr, now, (dt, op), req.args[2] != 0, guard) }?)
            }
            // SAFETY: as for a get, and `now` has `len` bytes.
            None => unsafe { write_at(addr, now) },
        }
    }
    Ok(out)
}

/// An accumulate's predefined element type and operation, found without the handle
/// registry: the handler may run inside a blocking call that holds it.
fn basic_op(op_h: u64, ty: u64) -> Result<(Datatype, Op), Failure> {
    let dt = predef(ty as Handle)
        .map(Datatype::predefined)
        .ok_or_else(|| (MPI_ERR_TYPE, format!("{ty:#x} is no predefined datatype")))?;
    let op = predefined_op(op_h as Handle).ok_or_else(|| {
        (
            MPI_ERR_OP,
            format!("{op_h:#x} is no predefined operation (one-sided calls take no others)"),
        )
    })?;
    Ok((dt, op))
}

/// Copies `len` bytes from `from` to `to`.
///
/// # Safety
/// `from` must be readable and `to` writable for `len` bytes: window memory checked
/// against the window's bounds (the owner's own memory, or a same-host segment mapped
/// here, valid until the collective MPI_Win_free, which no access outlives) or a
/// caller's buffer of `len` bytes.
#[inline]
pub unsafe fn copy(from: usize, to: usize, len: usize) {
    let (from, to) = (from as *const u8, to as *mut u8);
    // SAFETY (each arm): the caller's contract; `std::ptr::copy` allows the two to
    // overlap. One element of 8 or 4 bytes, the usual single access, is a load and a
    // store: a call into memmove costs more than the copy.
    match len {
        8 => unsafe { std::ptr::copy(from, to, 8) },
        4 => unsafe { std::ptr::copy(from, to, 4) },
        _ => unsafe { std::ptr::copy(from, to, len) },
    }
}

/// Copies `data` to `addr`.
///
/// # Safety
/// `addr` must be writable for `data.len()` bytes (as for [`copy`]).
pub unsafe fn write_at(addr: usize, data: &[u8]) {
    // SAFETY: `data` is a live slice; the caller vouches for `addr`.
    unsafe { copy(data.as_ptr() as usize, addr, data.len()) }
}

/// The `len` bytes at `addr`.
///
/// # Safety
/// `addr` must be readable for `len` bytes (as for [`copy`]).
pub unsafe fn read_at(addr: usize, len: usize) -> Vec<u8> {
    let mut out = vec![0; len];
    // SAFETY: `out` holds `len` bytes; the caller vouches for `addr`.
    unsafe { copy(addr, out.as_mut_ptr() as usize, len) };
    out
}

/// `target = target op data` for the elements of predefined type `dt` at `addr`, `data`
/// in their memory layout ([`elements`]); the old contents, packed, when `fetch`. Elements
/// the host has an atomic instruction for go one by one ([`atomic`]); the others hold
/// `guard`, the window's guard word (none: the window's accumulates all run in its owner's
/// process, one at a time).
///
/// # Safety
/// `addr` must be readable and writable for `data.len()` bytes (as for [`copy`]), and
/// every other accumulate on them must come through here with the same `guard`.
pub unsafe fn accumulate_at(
    addr: usize,
    data: &[u8],
    (dt, op): (&Datatype, &Op),
    fetch: bool,
    guard: Option<usize>,
) -> Result<Vec<u8>, Failure> {
    let mut old = vec![0; if fetch { data.len() } else { 0 }];
    let into = fetch.then_some(&mut old[..]);
    // SAFETY: the caller's contract.
    if let Some(done) = unsafe { atomic::accumulate(addr, data, (dt, op), into) } {
        return done.map(|()| old);
    }
    let count = elements::count(dt, data.len()).ok_or_else(|| {
        (
            MPI_ERR_OTHER,
            format!("{} bytes are no whole {} elements", data.len(), dt.name()),
        )
    })?;
    guarded(guard, || {
        // SAFETY: the caller's contract covers the `data.len()` bytes at `addr`; the guard
        // keeps other accumulates off them.
        let old = elements::gather(dt, &unsafe { read_at(addr, data.len()) });
        let mut new = elements::gather(dt, data);
        op.combine(dt, count, &old, &mut new)
            .map_err(super::super::handles::err)?;
        for (off, at, len) in dt.runs(count) {
            // SAFETY: as above; each run lies within the `data.len()` bytes (`count`
            // elements in memory layout), so only data bytes are written, never a hole.
            unsafe { write_at(addr + off as usize, &new[at..at + len]) };
        }
        Ok(if fetch { old } else { Vec::new() })
    })
}

/// Writes `new` at `addr` if it holds `expect`; the old contents. One atomic instruction
/// where the host has one for the width, else under `guard` (as for [`accumulate_at`]).
///
/// # Safety
/// As for [`accumulate_at`], for `expect.len()` bytes (`new` is as long).
pub unsafe fn compare_swap_at(
    addr: usize,
    expect: &[u8],
    new: &[u8],
    guard: Option<usize>,
) -> Vec<u8> {
    // SAFETY: the caller's contract.
    if let Some(old) = unsafe { atomic::compare_swap(addr, expect, new) } {
        return old;
    }
    guarded(guard, || {
        // SAFETY: the caller's contract covers the `expect.len()` bytes at `addr`; the
        // guard keeps other accumulates off them.
        let old = unsafe { read_at(addr, expect.len()) };
        if old == expect {
            // SAFETY: as above; `new` has as many bytes as `expect`.
            unsafe { write_at(addr, new) };
        }
        old
    })
}
