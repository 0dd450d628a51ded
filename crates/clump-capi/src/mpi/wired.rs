//! The MPI functions served by the `clump-mpi` crate: start and end, point-to-point in the
//! standard, synchronous and ready modes, and probes. Each error goes through the
//! communicator's error handler ([`handles::handle_error`]).

use super::abi::*;
use super::export::{call, mpi_functions, out};
use super::handles::*;
use clump_mpi::{Request, SendMode};
use std::os::raw::{c_char, c_int, c_void};

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
    let n = count(n)?;
    with_type_and_comm(t, c, |dt, comm| f(n, dt, comm).map_err(err))
}

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
    p2p(n, t, c, |n, dt, comm| {
        // SAFETY: the C caller keeps `buf` alive and untouched until the request completes.
        unsafe { clump_mpi::isend_mode(buf.cast(), n, dt, dest, tag, comm, mode) }
    })
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
    p2p(n, t, c, |n, dt, comm| {
        // SAFETY: the C caller keeps `buf` alive and untouched until the request completes.
        unsafe { clump_mpi::irecv(buf.cast(), n, dt, src, tag, comm) }
    })
}

/// Waits for `r`, writing its status unless ignored.
pub fn finish(mut r: Request, status: *mut MpiStatus) -> Result<(), Failure> {
    let s = clump_mpi::wait(&mut r).map_err(err)?;
    write_status(status, &s);
    Ok(())
}

fn request_out(req: *mut Handle, r: Request) -> Result<(), Failure> {
    out(req, put_request(r)).map_err(|e| (e, "NULL request".into()))
}

/// The thread level clump provides for `required`: funneled at most, since the MPI state
/// belongs to the thread that initialised it.
fn thread_level(required: c_int) -> c_int {
    if required >= MPI_THREAD_FUNNELED {
        MPI_THREAD_FUNNELED
    } else {
        MPI_THREAD_SINGLE
    }
}

fn init() -> Result<(), Failure> {
    clump_mpi::set_extended(super::extended_ops::combine);
    clump_mpi::init().map_err(err)
}

mpi_functions! {
    fn Init(_argc: *mut c_int, _argv: *mut *mut *mut c_char) -> c_int {
        on(COMM_WORLD, init)
    }

    fn Init_thread(_argc: *mut c_int, _argv: *mut *mut *mut c_char, required: c_int, provided: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            init()?;
            out(provided, thread_level(required)).map_err(|c| (c, "NULL provided".into()))
        })
    }

    fn Query_thread(provided: *mut c_int) -> c_int {
        call(|| out(provided, MPI_THREAD_FUNNELED))
    }

    fn Is_thread_main(flag: *mut c_int) -> c_int {
        // The MPI state belongs to the thread that initialised it.
        call(|| out(flag, clump_mpi::initialized() as c_int))
    }

    fn Initialized(flag: *mut c_int) -> c_int {
        call(|| out(flag, clump_mpi::initialized() as c_int))
    }

    fn Finalized(flag: *mut c_int) -> c_int {
        call(|| out(flag, clump_mpi::finalized() as c_int))
    }

    fn Finalize() -> c_int {
        on(COMM_WORLD, || {
            super::attrs::delete_all(COMM_SELF)?;
            super::buffered::flush()?;
            clump_mpi::finalize().map_err(err)
        })
    }

    fn Abort(_comm: Handle, errorcode: c_int) -> c_int {
        eprintln!("clump MPI: MPI_Abort with error code {errorcode}");
        std::process::exit(if errorcode == 0 { 1 } else { errorcode })
    }

    fn Comm_rank(c: Handle, rank: *mut c_int) -> c_int {
        on(c, || out(rank, comm(c)?.rank()).map_err(|e| (e, "NULL rank".into())))
    }

    fn Comm_size(c: Handle, size: *mut c_int) -> c_int {
        on(c, || out(size, comm(c)?.size()).map_err(|e| (e, "NULL size".into())))
    }

    fn Comm_set_errhandler(c: Handle, h: Handle) -> c_int {
        on(c, || {
            comm(c)?;
            if !super::errhandlers::fits(h, super::errhandlers::Kind::Comm) {
                return Err((MPI_ERR_ERRHANDLER, format!("{h:#x} is no communicator error handler")));
            }
            // Communicators keep the handlers set on them for the job.
            super::errhandlers::hold(h);
            set_errhandler(c, h);
            Ok(())
        })
    }

    fn Comm_get_errhandler(c: Handle, h: *mut Handle) -> c_int {
        on(c, || {
            comm(c)?;
            let handler = errhandler(c);
            out(h, handler).map_err(|e| (e, "NULL errhandler".into()))?;
            // The program's new handle is a reference it frees.
            super::errhandlers::hold(handler);
            Ok(())
        })
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
            let v = if size == 0 || !b.is_multiple_of(size) { -32766 } else { (b / size) as c_int };
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

    fn Isend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || request_out(req, isend_raw(buf, n, t, dest, tag, c, SendMode::Standard)?))
    }

    fn Irsend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || request_out(req, isend_raw(buf, n, t, dest, tag, c, SendMode::Standard)?))
    }

    fn Issend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || request_out(req, isend_raw(buf, n, t, dest, tag, c, SendMode::Synchronous)?))
    }

    fn Irecv(buf: *mut c_void, n: c_int, t: Handle, src: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || request_out(req, irecv_raw(buf, n, t, src, tag, c)?))
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
