//! `MPI_Sendrecv`, `MPI_Isendrecv` and their `_replace` forms: a receive and a send, waited
//! for together or under one request that completes when both have (clump-mpi's request
//! pair). The replacing forms send a packed copy of the buffer, so that the receive may
//! overwrite it at once.

use super::buffers::pack;
use super::export::mpi_functions;
use super::handles::*;
use super::wired::{count, finish, irecv_raw, isend_raw, on, request_out, Failure};
use clump_mpi::{Request, SendMode};
use std::os::raw::{c_int, c_void};

/// Joins a posted receive and its send, or frees the receive when the send failed to start.
fn joined(recv: Request, send: Result<Request, Failure>) -> Result<Request, Failure> {
    match send {
        Ok(s) => clump_mpi::pair(recv, s).map_err(err),
        Err(e) => {
            let mut r = recv;
            // The failure to report is the send's; the receive is only abandoned.
            let _ = clump_mpi::cancel(&mut r).and_then(|_| clump_mpi::request_free(&mut r));
            Err(e)
        }
    }
}

mpi_functions! {
    fn Sendrecv(sbuf: *const c_void, sn: c_int, st: Handle, dest: c_int, stag: c_int,
                rbuf: *mut c_void, rn: c_int, rt: Handle, src: c_int, rtag: c_int,
                c: Handle, status: *mut MpiStatus) -> c_int {
        on(c, || {
            let r = irecv_raw(rbuf, rn, rt, src, rtag, c)?;
            let sent = isend_raw(sbuf, sn, st, dest, stag, c, SendMode::Standard)
                .and_then(|s| finish(s, std::ptr::null_mut()));
            let got = finish(r, status);
            sent.and(got)
        })
    }

    fn Sendrecv_replace(buf: *mut c_void, n: c_int, t: Handle, dest: c_int, stag: c_int,
                        src: c_int, rtag: c_int, c: Handle, status: *mut MpiStatus) -> c_int {
        on(c, || {
            // The outgoing data is copied first: the receive overwrites the buffer.
            let (dt, count) = (datatype(t)?, count(n)?);
            let copy = super::buffers::pack(buf, count, &dt)?;
            let byte = clump_mpi::Datatype::predefined(clump_mpi::Predef::Byte);
            let r = irecv_raw(buf, n, t, src, rtag, c)?;
            // SAFETY: `copy` lives until the send is waited for below.
            let sent = unsafe { clump_mpi::isend(copy.as_ptr(), copy.len(), &byte, dest, stag, &comm(c)?) }
                .map_err(err)
                .and_then(|s| finish(s, std::ptr::null_mut()));
            let got = finish(r, status);
            sent.and(got)
        })
    }

    fn Isendrecv(sbuf: *const c_void, sn: c_int, st: Handle, dest: c_int, stag: c_int,
                 rbuf: *mut c_void, rn: c_int, rt: Handle, src: c_int, rtag: c_int,
                 c: Handle, req: *mut Handle) -> c_int {
        on(c, || {
            let r = irecv_raw(rbuf, rn, rt, src, rtag, c)?;
            let s = isend_raw(sbuf, sn, st, dest, stag, c, SendMode::Standard);
            request_out(req, joined(r, s)?)
        })
    }

    fn Isendrecv_replace(buf: *mut c_void, n: c_int, t: Handle, dest: c_int, stag: c_int,
                         src: c_int, rtag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || {
            let copy = pack(buf, count(n)?, &datatype(t)?)?;
            let r = irecv_raw(buf, n, t, src, rtag, c)?;
            let s = clump_mpi::isend_owned(copy, dest, stag, &comm(c)?).map_err(err);
            request_out(req, joined(r, s)?)
        })
    }
}
