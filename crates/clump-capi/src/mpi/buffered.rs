//! Buffered mode: the program attaches a buffer; each buffered send takes its packed size
//! plus `MPI_BSEND_OVERHEAD` of it until the message has left, and a send that does not
//! fit is an `MPI_ERR_BUFFER`. The copy itself lives in clump-mpi's request.

use super::abi::{MPI_ERR_ARG, MPI_ERR_BUFFER};
use super::buffers::pack;
use super::export::{mpi_functions, out};
use super::handles::*;
use super::wired::{count, on, Failure};
use clump_mpi::Request;
use std::cell::RefCell;
use std::os::raw::{c_int, c_void};

/// `MPI_BSEND_OVERHEAD` (mpi.h).
const OVERHEAD: usize = 512;

#[derive(Default)]
struct Attached {
    /// The program's buffer and its size, while attached.
    buffer: Option<(usize, usize)>,
    /// Buffered sends not yet complete, with the bytes each holds of the buffer.
    pending: Vec<(Request, usize)>,
    /// The packed copies those sends read from (the same order).
    copies: Vec<Vec<u8>>,
}

am::process_local! {
    static ATTACHED: RefCell<Attached> = RefCell::new(Attached::default());
}

/// Forgets the buffered sends that have completed; the bytes they held are free again.
fn reap() -> Result<usize, Failure> {
    ATTACHED.with_borrow_mut(|a| {
        let mut i = 0;
        while i < a.pending.len() {
            if clump_mpi::test(&mut a.pending[i].0).map_err(err)?.is_some() {
                a.pending.swap_remove(i);
                a.copies.swap_remove(i);
            } else {
                i += 1;
            }
        }
        Ok(a.pending.iter().map(|p| p.1).sum())
    })
}

/// A buffered send: the data is copied now, and the call returns without waiting.
pub fn bsend_now(
    buf: *const c_void,
    n: usize,
    dt: &clump_mpi::Datatype,
    dest: c_int,
    tag: c_int,
    comm: &clump_mpi::Comm,
) -> Result<(), Failure> {
    let copy = pack(buf, n, dt)?;
    let used = reap()?;
    let need = copy.len() + OVERHEAD;
    let size = ATTACHED.with_borrow(|a| a.buffer.map_or(0, |b| b.1));
    if used + need > size {
        return Err((
            MPI_ERR_BUFFER,
            format!("a buffered send of {} bytes does not fit the attached buffer ({used} of {size} bytes in use, {OVERHEAD} per message)", copy.len()),
        ));
    }
    let byte = clump_mpi::Datatype::predefined(clump_mpi::Predef::Byte);
    // SAFETY: the copy's heap bytes stay in ATTACHED until the send completes.
    let r = unsafe { clump_mpi::isend(copy.as_ptr(), copy.len(), &byte, dest, tag, comm) }
        .map_err(err)?;
    ATTACHED.with_borrow_mut(|a| {
        a.pending.push((r, need));
        a.copies.push(copy);
    });
    Ok(())
}

/// [`bsend_now`] of `n` elements of type `t` in communicator `c`.
fn bsend(
    buf: *const c_void,
    n: c_int,
    t: Handle,
    dest: c_int,
    tag: c_int,
    c: Handle,
) -> Result<(), Failure> {
    bsend_now(buf, count(n)?, &datatype(t)?, dest, tag, &comm(c)?)
}

/// Completes every buffered send (detach and finalize wait for them).
pub fn flush() -> Result<(), Failure> {
    let pending = ATTACHED.with_borrow_mut(|a| std::mem::take(&mut a.pending));
    for (mut r, _) in pending {
        clump_mpi::wait(&mut r).map_err(err)?;
    }
    ATTACHED.with_borrow_mut(|a| a.copies.clear());
    Ok(())
}

mpi_functions! {
    fn Buffer_attach(buf: *mut c_void, size: c_int) -> c_int {
        on(COMM_WORLD, || {
            let size = count(size)?;
            if buf.is_null() && size > 0 {
                return Err((MPI_ERR_BUFFER, "NULL buffer".into()));
            }
            ATTACHED.with_borrow_mut(|a| match a.buffer {
                Some(_) => Err((MPI_ERR_BUFFER, "a buffer is already attached".into())),
                None => {
                    a.buffer = Some((buf as usize, size));
                    Ok(())
                }
            })
        })
    }

    fn Buffer_detach(buf: *mut c_void, size: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            flush()?;
            let (addr, len) = ATTACHED
                .with_borrow_mut(|a| a.buffer.take())
                .ok_or_else(|| (MPI_ERR_BUFFER, "no buffer is attached".to_string()))?;
            if buf.is_null() {
                return Err((MPI_ERR_ARG, "NULL buffer address".into()));
            }
            // SAFETY: MPI_Buffer_detach's first argument is the address of a pointer.
            unsafe { buf.cast::<*mut c_void>().write(addr as *mut c_void) };
            out(size, len as c_int).map_err(|e| (e, "NULL size".into()))
        })
    }

    fn Bsend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle) -> c_int {
        on(c, || bsend(buf, n, t, dest, tag, c))
    }

    fn Ibsend(buf: *const c_void, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle, req: *mut Handle) -> c_int {
        // The data is in the attached buffer when this returns: the request is complete.
        on(c, || {
            bsend(buf, n, t, dest, tag, c)?;
            out(req, put_request(Request::null())?).map_err(|e| (e, "NULL request".into()))
        })
    }
}
