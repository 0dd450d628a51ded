//! The MPI functions served by the `clump-mpi` crate: point-to-point in the standard,
//! synchronous and ready modes, and probes; and the failure path every MPI call shares
//! ([`on`]: each error goes through the communicator's error handler).

use super::abi::*;
use super::errhandlers::handle_error;
use super::export::{call, mpi_functions, out};
use super::handles::*;
use clump_mpi::{Request, SendMode};
use std::os::raw::{c_int, c_void};

pub type Failure = (c_int, String);

/// Runs `body`, passing its error through the handler of `comm`.
pub fn on(comm: Handle, body: impl FnOnce() -> Result<(), Failure>) -> c_int {
    call(|| body().map_err(|e| handle_error(comm, e)))
}

pub fn count(n: c_int) -> Result<usize, Failure> {
    usize::try_from(n).map_err(|_| (2, format!("negative count {n}")))
}

/// Runs `f` on the element count `n` and on datatype `t` and communicator `c` where they
/// are stored: one registry access for a point-to-point call (clump-mpi checks the
/// buffer against them).
fn p2p<T>(
    n: c_int,
    t: Handle,
    c: Handle,
    f: impl FnOnce(usize, &clump_mpi::Datatype, &clump_mpi::Comm) -> clump_mpi::Result<T>,
) -> Result<T, Failure> {
    let (n, t) = p2p_args(n, t)?;
    with_type_and_comm(t, c, |dt, comm| f(n, dt, comm).map_err(err))
}

/// [`p2p`] for a non-blocking call: stores the request `f` starts (in the same registry
/// access) and writes its handle to `req`, checked before anything starts.
fn p2p_request(
    n: c_int,
    t: Handle,
    c: Handle,
    req: *mut Handle,
    f: impl FnOnce(usize, &clump_mpi::Datatype, &clump_mpi::Comm) -> clump_mpi::Result<Request>,
) -> Result<(), Failure> {
    if req.is_null() {
        return Err((MPI_ERR_ARG, "NULL request".into()));
    }
    let (n, t) = p2p_args(n, t)?;
    let h = request_with_type_and_comm(t, c, |dt, comm| f(n, dt, comm).map_err(err))?;
    out(req, h).map_err(|e| (e, "NULL request".into()))
}

/// The element count and the datatype a point-to-point call names.
fn p2p_args(n: c_int, t: Handle) -> Result<(usize, Handle), Failure> {
    let n = count(n)?;
    // No data: MPI_DATATYPE_NULL is taken for a byte type, as MPICH takes it.
    let t = if n == 0 && t == DATATYPE_NULL {
        PACKED
    } else {
        t
    };
    Ok((n, t))
}

/// `MPI_PACKED`.
const PACKED: Handle = 0x207;

/// Starts a non-blocking send of `n` elements of type `t` at `buf`.
#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub fn isend_raw(
    buf: *const c_void,
    n: c_int,
    t: Handle,
    dest: c_int,
    tag: c_int,
    c: Handle,
    mode: SendMode,
) -> Result<Request, Failure> {
    p2p(n, t, c, isend_at(buf, dest, tag, mode))
}

/// The start of a non-blocking send of the elements at `buf`, given their count, type
/// and communicator.
fn isend_at(
    buf: *const c_void,
    dest: c_int,
    tag: c_int,
    mode: SendMode,
) -> impl FnOnce(usize, &clump_mpi::Datatype, &clump_mpi::Comm) -> clump_mpi::Result<Request> {
    move |n, dt, comm| {
        // SAFETY: the C caller keeps `buf` alive and untouched until the request completes.
        unsafe { clump_mpi::isend_mode(buf.cast(), n, dt, dest, tag, comm, mode) }
    }
}

/// A blocking send of `n` elements of type `t` at `buf`: no request handle.
fn send_raw(
    buf: *const c_void,
    n: c_int,
    t: Handle,
    dest: c_int,
    tag: c_int,
    c: Handle,
    mode: SendMode,
) -> Result<(), Failure> {
    p2p(n, t, c, |n, dt, comm| {
        // SAFETY: the C caller's buffer holds `n` elements of `t` for the call.
        unsafe { clump_mpi::send_raw(buf.cast(), n, dt, dest, tag, comm, mode) }
    })
}

/// Posts a receive of `n` elements of type `t` into `buf`.
pub fn irecv_raw(
    buf: *mut c_void,
    n: c_int,
    t: Handle,
    src: c_int,
    tag: c_int,
    c: Handle,
) -> Result<Request, Failure> {
    p2p(n, t, c, irecv_at(buf, src, tag))
}

/// The post of a receive into `buf`, given its element count, type and communicator.
fn irecv_at(
    buf: *mut c_void,
    src: c_int,
    tag: c_int,
) -> impl FnOnce(usize, &clump_mpi::Datatype, &clump_mpi::Comm) -> clump_mpi::Result<Request> {
    move |n, dt, comm| {
        // SAFETY: the C caller keeps `buf` alive and untouched until the request completes.
        unsafe { clump_mpi::irecv(buf.cast(), n, dt, src, tag, comm) }
    }
}

/// Waits for `r`, writing its status unless ignored.
pub fn finish(mut r: Request, status: *mut MpiStatus) -> Result<(), Failure> {
    let s = clump_mpi::wait(&mut r).map_err(err)?;
    write_status(status, &s);
    Ok(())
}

pub fn request_out(req: *mut Handle, r: Request) -> Result<(), Failure> {
    out(req, put_request(r)?).map_err(|e| (e, "NULL request".into()))
}

mpi_functions! {
    fn Comm_rank(c: Handle, rank: *mut c_int) -> c_int {
        on(c, || out(rank, comm(c)?.rank()).map_err(|e| (e, "NULL rank".into())))
    }

    fn Comm_size(c: Handle, size: *mut c_int) -> c_int {
        on(c, || out(size, comm(c)?.size()).map_err(|e| (e, "NULL size".into())))
    }

    fn Type_size(t: Handle, size: *mut c_int) -> c_int {
        on(COMM_WORLD, || out(size, datatype(t)?.size() as c_int).map_err(|e| (e, "NULL size".into())))
    }

    fn Get_count(status: *const MpiStatus, t: Handle, n: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            let size = datatype(t)?.size() as u64;
            // SAFETY: a non-NULL status pointer from C points at an MPI_Status.
            let s = unsafe { status.as_ref() }.ok_or_else(|| (MPI_ERR_ARG, "NULL status".into()))?;
            let b = status_bytes(s);
            // A type of no data counts zero elements (MPI 4.1 §3.2.5).
            let v = match size {
                0 => 0,
                _ if !b.is_multiple_of(size) => -32766,
                _ => (b / size) as c_int,
            };
            out(n, v).map_err(|e| (e, "NULL count".into()))
        })
    }

    fn Send(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle) -> c_int {
        on(c, || send_raw(buf, n, t, dest, tag, c, SendMode::Standard))
    }

    fn Rsend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle) -> c_int {
        // A ready send's receive is posted, so the standard protocol serves it.
        on(c, || send_raw(buf, n, t, dest, tag, c, SendMode::Standard))
    }

    fn Ssend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle) -> c_int {
        on(c, || send_raw(buf, n, t, dest, tag, c, SendMode::Synchronous))
    }

    fn Recv(buf: *mut c_void, n: c_int, t: Handle, src: c_int, tag: c_int, c: Handle, status: *mut MpiStatus) -> c_int {
        on(c, || {
            let s = p2p(n, t, c, |n, dt, comm| {
                // SAFETY: the C caller's buffer holds `n` elements of `t` for the call.
                unsafe { clump_mpi::recv_raw(buf.cast(), n, dt, src, tag, comm) }
            })?;
            write_status(status, &s);
            Ok(())
        })
    }

    fn Isend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || p2p_request(n, t, c, req, isend_at(buf, dest, tag, SendMode::Standard)))
    }

    fn Irsend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || p2p_request(n, t, c, req, isend_at(buf, dest, tag, SendMode::Standard)))
    }

    fn Issend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || p2p_request(n, t, c, req, isend_at(buf, dest, tag, SendMode::Synchronous)))
    }

    fn Irecv(buf: *mut c_void, n: c_int, t: Handle, src: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || p2p_request(n, t, c, req, irecv_at(buf, src, tag)))
    }

    fn Iprobe(src: c_int, tag: c_int, c: Handle, flag: *mut c_int, status: *mut MpiStatus) -> c_int {
        on(c, || {
            let found = clump_mpi::iprobe(src, tag, &comm(c)?).map_err(err)?;
            if let Some(s) = &found {
                write_status(status, s);
            }
            out(flag, found.is_some() as c_int).map_err(|e| (e, "NULL flag".into()))
        })
    }

    fn Probe(src: c_int, tag: c_int, c: Handle, status: *mut MpiStatus) -> c_int {
        on(c, || {
            let s = clump_mpi::probe(src, tag, &comm(c)?).map_err(err)?;
            write_status(status, &s);
            Ok(())
        })
    }
}
