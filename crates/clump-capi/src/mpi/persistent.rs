//! Persistent requests: `MPI_*_init` records a send or a receive, `MPI_Start(all)` begins
//! it again; a completed one keeps its handle until `MPI_Request_free`.

use super::buffered::bsend_now;
use super::export::{mpi_functions, out};
use super::handles::*;
use super::wired::{irecv_raw, isend_raw, on, Failure};
use clump_mpi::{Request, SendMode};
use std::os::raw::{c_int, c_void};
use std::rc::Rc;

/// A send started in `mode`, or a buffered one (`None`).
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
    comm(c)?;
    datatype(t)?;
    let addr = buf as usize;
    let start = move || -> Result<Request, Failure> {
        let buf = addr as *const c_void;
        match mode {
            Some(mode) => isend_raw(buf, n, t, dest, tag, c, mode),
            None => bsend_now(buf, n, t, dest, tag, c).map(|_| Request::null()),
        }
    };
    out(req, put_persistent(Rc::new(start))).map_err(|e| (e, "NULL request".into()))
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
            comm(c)?;
            datatype(t)?;
            let addr = buf as usize;
            let start = move || irecv_raw(addr as *mut c_void, n, t, src, tag, c);
            out(req, put_persistent(Rc::new(start))).map_err(|e| (e, "NULL request".into()))
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
