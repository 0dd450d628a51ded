//! Persistent requests: `MPI_*_init` records a send or a receive, `MPI_Start(all)` begins
//! it again; a completed one keeps its handle until `MPI_Request_free`.

use super::buffered::{bsend_now, buffered_request};
use super::export::{mpi_functions, out};
use super::handles::*;
use super::wired::{count, on, Failure};
use clump_mpi::{Request, SendMode};
use std::os::raw::{c_int, c_void};
use std::rc::Rc;

/// A send started in `mode`, or a buffered one (`None`). The datatype and communicator
/// are taken now: the program may free its handles before it starts the request.
#[allow(clippy::too_many_arguments)] // MPI's own argument list
fn send_init(
    buf: *const c_void,
    n: c_int,
    t: Handle,
    dest: c_int,
    tag: c_int,
    c: Handle,
    req: *mut Handle,
    mode: Option<SendMode>,
) -> Result<(), Failure> {
    let (dt, n, cm) = (datatype(t)?, count(n)?, comm(c)?);
    let addr = buf as usize;
    let start = move || -> Result<Request, Failure> {
        let buf = addr as *const c_void;
        match mode {
            Some(mode) => {
                // SAFETY: the program keeps the buffer of a started send valid and
                // unwritten until the request completes.
                unsafe { clump_mpi::isend_mode(buf.cast(), n, &dt, dest, tag, &cm, mode) }
                    .map_err(err)
            }
            None => bsend_now(buf, n, &dt, dest, tag, (c, &cm)).and_then(buffered_request),
        }
    };
    out(req, put_persistent(Rc::new(start))?).map_err(|e| (e, "NULL request".into()))
}

mpi_functions! {
    fn Send_init(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || send_init(buf, n, t, dest, tag, c, req, Some(SendMode::Standard)))
    }

    fn Ssend_init(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || send_init(buf, n, t, dest, tag, c, req, Some(SendMode::Synchronous)))
    }

    fn Rsend_init(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || send_init(buf, n, t, dest, tag, c, req, Some(SendMode::Standard)))
    }

    fn Bsend_init(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || send_init(buf, n, t, dest, tag, c, req, None))
    }

    fn Recv_init(buf: *mut c_void, n: c_int, t: Handle, src: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || {
            let (dt, n, cm) = (datatype(t)?, count(n)?, comm(c)?);
            let addr = buf as usize;
            // SAFETY: the program leaves the buffer of a started receive to MPI until the
            // request completes.
            let start = move || unsafe { clump_mpi::irecv(addr as *mut u8, n, &dt, src, tag, &cm) }.map_err(err);
            out(req, put_persistent(Rc::new(start))?).map_err(|e| (e, "NULL request".into()))
        })
    }

    fn Start(req: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            // SAFETY: a non-NULL request pointer from C points at an MPI_Request.
            let h = unsafe { req.as_ref() }.ok_or_else(|| (super::abi::MPI_ERR_ARG, "NULL request".to_string()))?;
            start_persistent(*h)
        })
    }

    fn Startall(n: c_int, reqs: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let n = super::wired::count(n)?;
            super::buffers::handles(reqs, n)?.into_iter().try_for_each(start_persistent)
        })
    }
}
