//! The MPI functions served by the `clump-mpi` crate: start and end, point-to-point,
//! completion and collectives on the predefined communicators and datatypes. Each error
//! goes through the communicator's error handler ([`handles::handle_error`]).

use super::abi::*;
use super::export::{call, mpi_functions, out};
use super::handles::*;
use clump_mpi::SendMode;
use std::os::raw::{c_char, c_int, c_void};

pub type Failure = (c_int, String);

/// Runs `body`, passing its error through the handler of `comm`.
pub fn on(comm: Handle, body: impl FnOnce() -> Result<(), Failure>) -> c_int {
    call(|| body().map_err(|e| handle_error(comm, e)))
}

pub fn count(n: c_int) -> Result<usize, Failure> {
    usize::try_from(n).map_err(|_| (2, format!("negative count {n}")))
}

/// The C buffer of `n` elements of `dt` as bytes.
fn bytes<'a>(buf: *const c_void, n: usize, dt: &clump_mpi::Datatype) -> Result<&'a [u8], Failure> {
    let len = dt.bytes(n).map_err(err)?;
    if len == 0 {
        return Ok(&[]);
    }
    if buf.is_null() {
        return Err((1, "NULL buffer".into()));
    }
    // SAFETY: the caller's contract (mpi.h) is that `buf` holds `n` elements of `dt`.
    Ok(unsafe { std::slice::from_raw_parts(buf.cast(), len) })
}

fn bytes_mut<'a>(
    buf: *mut c_void,
    n: usize,
    dt: &clump_mpi::Datatype,
) -> Result<&'a mut [u8], Failure> {
    let len = dt.bytes(n).map_err(err)?;
    if len == 0 {
        return Ok(&mut []);
    }
    if buf.is_null() {
        return Err((1, "NULL buffer".into()));
    }
    // SAFETY: as in `bytes`; the caller does not touch the buffer during the call.
    Ok(unsafe { std::slice::from_raw_parts_mut(buf.cast(), len) })
}

fn init() -> Result<(), Failure> {
    clump_mpi::init().map_err(err)
}

mpi_functions! {
    fn Init(_argc: *mut c_int, _argv: *mut *mut *mut c_char) -> c_int {
        on(COMM_WORLD, init)
    }

    fn Init_thread(_argc: *mut c_int, _argv: *mut *mut *mut c_char, required: c_int, provided: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            init()?;
            out(provided, required.clamp(0, MPI_THREAD_FUNNELED)).map_err(|c| (c, "NULL provided".into()))
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
        on(COMM_WORLD, || clump_mpi::finalize().map_err(err))
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
            if ![ERRORS_ARE_FATAL, ERRORS_RETURN, ERRORS_ABORT].contains(&h) {
                return Err((61, format!("unknown error handler {h:#x}")));
            }
            set_errhandler(c, h);
            Ok(())
        })
    }

    fn Comm_get_errhandler(c: Handle, h: *mut Handle) -> c_int {
        on(c, || {
            comm(c)?;
            out(h, errhandler(c)).map_err(|e| (e, "NULL errhandler".into()))
        })
    }

    fn Type_size(t: Handle, size: *mut c_int) -> c_int {
        on(COMM_WORLD, || out(size, datatype(t)?.size() as c_int).map_err(|e| (e, "NULL size".into())))
    }

    fn Get_count(status: *const MpiStatus, t: Handle, n: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            let size = datatype(t)?.size() as u64;
            // SAFETY: a non-NULL status pointer from C points at an MPI_Status.
            let s = unsafe { status.as_ref() }.ok_or((MPI_ERR_ARG, "NULL status".into()))?;
            let b = status_bytes(s);
            let v = if size == 0 || !b.is_multiple_of(size) { -32766 } else { (b / size) as c_int };
            out(n, v).map_err(|e| (e, "NULL count".into()))
        })
    }

    fn Send(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle) -> c_int {
        on(c, || {
            let (dt, n) = (datatype(t)?, count(n)?);
            clump_mpi::send(bytes(buf, n, &dt)?, n, &dt, dest, tag, &comm(c)?).map_err(err)
        })
    }

    fn Rsend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle) -> c_int {
        MPI_Send(buf, n, t, dest, tag, c)
    }

    fn Ssend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle) -> c_int {
        on(c, || {
            let (dt, n) = (datatype(t)?, count(n)?);
            clump_mpi::ssend(bytes(buf, n, &dt)?, n, &dt, dest, tag, &comm(c)?).map_err(err)
        })
    }

    fn Recv(buf: *mut c_void, n: c_int, t: Handle, src: c_int, tag: c_int, c: Handle, status: *mut MpiStatus) -> c_int {
        on(c, || {
            let (dt, n) = (datatype(t)?, count(n)?);
            let s = clump_mpi::recv(bytes_mut(buf, n, &dt)?, n, &dt, src, tag, &comm(c)?).map_err(err)?;
            write_status(status, &s);
            Ok(())
        })
    }

    fn Sendrecv(sbuf: *const c_void, sn: c_int, st: Handle, dest: c_int, stag: c_int,
                rbuf: *mut c_void, rn: c_int, rt: Handle, src: c_int, rtag: c_int,
                c: Handle, status: *mut MpiStatus) -> c_int {
        on(c, || {
            let (sdt, sn, rdt, rn) = (datatype(st)?, count(sn)?, datatype(rt)?, count(rn)?);
            let s = clump_mpi::sendrecv(bytes(sbuf, sn, &sdt)?, sn, &sdt, dest, stag,
                bytes_mut(rbuf, rn, &rdt)?, rn, &rdt, src, rtag, &comm(c)?).map_err(err)?;
            write_status(status, &s);
            Ok(())
        })
    }

    fn Isend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || start_send(buf, n, t, dest, tag, c, req, SendMode::Standard))
    }

    fn Irsend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || start_send(buf, n, t, dest, tag, c, req, SendMode::Standard))
    }

    fn Issend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || start_send(buf, n, t, dest, tag, c, req, SendMode::Synchronous))
    }

    fn Irecv(buf: *mut c_void, n: c_int, t: Handle, src: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        on(c, || {
            let (dt, n) = (datatype(t)?, count(n)?);
            let b = bytes_mut(buf, n, &dt)?;
            // SAFETY: the C caller keeps `buf` alive and untouched until the request completes.
            let r = unsafe { clump_mpi::irecv(b.as_mut_ptr(), n, &dt, src, tag, &comm(c)?) }.map_err(err)?;
            out(req, put_request(r)).map_err(|e| (e, "NULL request".into()))
        })
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
            let comm = comm(c)?;
            loop {
                // iprobe polls clump once per call, so this loop makes progress.
                if let Some(s) = clump_mpi::iprobe(src, tag, &comm).map_err(err)? {
                    write_status(status, &s);
                    return Ok(());
                }
                std::thread::yield_now();
            }
        })
    }

    fn Barrier(c: Handle) -> c_int {
        on(c, || clump_mpi::barrier(&comm(c)?).map_err(err))
    }

    fn Bcast(buf: *mut c_void, n: c_int, t: Handle, root: c_int, c: Handle) -> c_int {
        on(c, || {
            let (dt, n) = (datatype(t)?, count(n)?);
            clump_mpi::bcast(bytes_mut(buf, n, &dt)?, n, &dt, root, &comm(c)?).map_err(err)
        })
    }

    fn Reduce(sbuf: *const c_void, rbuf: *mut c_void, n: c_int, t: Handle, o: Handle, root: c_int, c: Handle) -> c_int {
        on(c, || {
            let (dt, n, op, comm) = (datatype(t)?, count(n)?, op(o)?, comm(c)?);
            let at_root = comm.rank() == root;
            let send = in_place(sbuf, rbuf, n, &dt)?;
            let mut none = [];
            let recv = if at_root { bytes_mut(rbuf, n, &dt)? } else { &mut none[..] };
            clump_mpi::reduce(&send, recv, n, &dt, op, root, &comm).map_err(err)
        })
    }

    fn Allreduce(sbuf: *const c_void, rbuf: *mut c_void, n: c_int, t: Handle, o: Handle, c: Handle) -> c_int {
        on(c, || {
            let (dt, n, op) = (datatype(t)?, count(n)?, op(o)?);
            let send = in_place(sbuf, rbuf, n, &dt)?;
            clump_mpi::allreduce(&send, bytes_mut(rbuf, n, &dt)?, n, &dt, op, &comm(c)?).map_err(err)
        })
    }
}

/// Starts a non-blocking send of the C buffer and stores its request handle in `req`.
#[allow(clippy::too_many_arguments)] // MPI's own argument list
fn start_send(
    buf: *const c_void,
    n: c_int,
    t: Handle,
    dest: c_int,
    tag: c_int,
    c: Handle,
    req: *mut Handle,
    mode: SendMode,
) -> Result<(), Failure> {
    let (dt, n) = (datatype(t)?, count(n)?);
    let b = bytes(buf, n, &dt)?;
    // SAFETY: the C caller keeps `buf` alive and untouched until the request completes.
    let r = unsafe { clump_mpi::isend_mode(b.as_ptr(), n, &dt, dest, tag, &comm(c)?, mode) }
        .map_err(err)?;
    out(req, put_request(r)).map_err(|e| (e, "NULL request".into()))
}

/// The send data of a reduction: `sbuf`, or `rbuf` itself for `MPI_IN_PLACE`.
fn in_place(
    sbuf: *const c_void,
    rbuf: *mut c_void,
    n: usize,
    dt: &clump_mpi::Datatype,
) -> Result<Vec<u8>, Failure> {
    let src = if sbuf as usize == IN_PLACE {
        rbuf.cast_const()
    } else {
        sbuf
    };
    Ok(bytes(src, n, dt)?.to_vec())
}
