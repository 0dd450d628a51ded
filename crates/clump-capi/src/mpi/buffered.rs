//! Buffered mode: the data is packed into the buffer the communicator's send uses
//! ([`super::bsend_buffers`]) and the call returns without waiting. The request of
//! `MPI_Ibsend` (and of a started `MPI_Bsend_init`) is complete from the start, yet a
//! cancel still withdraws its message while no receive has matched it.

use super::bsend_buffers::{owner_of, reserve, track, withdraw};
use super::buffers::pack;
use super::export::{mpi_functions, out};
use super::handles::*;
use super::wired::{count, on, Failure};
use clump_mpi::{Hooks, Request, Status};
use std::cell::RefCell;
use std::os::raw::{c_int, c_void};
use std::rc::Rc;

/// A buffered send of `n` elements of `dt` in communicator `c` (`cm`): the data is copied
/// now; the key of the pending send.
pub fn bsend_now(
    buf: *const c_void,
    n: usize,
    dt: &clump_mpi::Datatype,
    dest: c_int,
    tag: c_int,
    (c, cm): (Handle, &clump_mpi::Comm),
) -> Result<u64, Failure> {
    let copy = pack(buf, n, dt)?;
    let owner = owner_of(c);
    let bytes = reserve(owner, copy.len())?;
    let byte = clump_mpi::Datatype::predefined(clump_mpi::Predef::Byte);
    // SAFETY: the copy's heap bytes stay with the pending send until it completes.
    let r = unsafe { clump_mpi::isend(copy.as_ptr(), copy.len(), &byte, dest, tag, cm) }
        .map_err(err)?;
    Ok(track(owner, r, bytes, copy))
}

/// What the request of a buffered send does when the program cancels it.
struct Buffered {
    key: u64,
    cancelled: bool,
}

impl Hooks for Buffered {
    fn query(&mut self, status: &mut Status) -> clump_mpi::Result<()> {
        status.cancelled = self.cancelled;
        Ok(())
    }

    fn free(&mut self) -> clump_mpi::Result<()> {
        Ok(())
    }

    fn cancel(&mut self, _complete: bool) -> clump_mpi::Result<()> {
        // The receiver's answer is awaited here, since the request is already complete; a
        // send it did not withdraw has matched a receive and is waited for as a flush
        // would. Either way its bytes of the buffer are free again.
        if let Some(mut p) = withdraw(self.key) {
            clump_mpi::cancel(&mut p.req)?;
            self.cancelled = clump_mpi::wait(&mut p.req)?.cancelled;
        }
        Ok(())
    }
}

/// The (complete) request of pending buffered send `key`.
pub fn buffered_request(key: u64) -> Result<Request, Failure> {
    let hooks = Rc::new(RefCell::new(Buffered {
        key,
        cancelled: false,
    }));
    let mut r = clump_mpi::grequest_start(hooks).map_err(err)?;
    clump_mpi::grequest_complete(&mut r).map_err(err)?;
    Ok(r)
}

/// [`bsend_now`] of `n` elements of type `t` in communicator `c`.
fn bsend(
    buf: *const c_void,
    n: c_int,
    t: Handle,
    dest: c_int,
    tag: c_int,
    c: Handle,
) -> Result<u64, Failure> {
    bsend_now(buf, count(n)?, &datatype(t)?, dest, tag, (c, &comm(c)?))
}

mpi_functions! {
    fn Bsend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle) -> c_int {
        on(c, || bsend(buf, n, t, dest, tag, c).map(drop))
    }

    fn Ibsend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || {
            let r = buffered_request(bsend(buf, n, t, dest, tag, c)?)?;
            out(req, put_request(r)?).map_err(|e| (e, "NULL request".into()))
        })
    }
}
