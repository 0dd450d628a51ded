//! Matched probes (`MPI_Mprobe`, `MPI_Improbe`) and the receives of what they matched
//! (`MPI_Mrecv`, `MPI_Imrecv`). A matched probe takes the message at once: it posts a
//! receive of exactly that message (its sender and tag, whole, as bytes) into storage of
//! its own, so no later receive can match it; the message receive then waits for those
//! bytes and unpacks them into the program's buffer.
//!
//! `MPI_Imrecv` of a message still in flight (a rendezvous-sized one) waits for its data
//! before returning; a message that has arrived is placed at once.

use super::abi::*;
use super::buffers::unpack;
use super::export::{mpi_functions, out};
use super::handles::*;
use super::wired::{count, on, Failure};
use clump_mpi::{Datatype, Predef, Request, Status};
use std::cell::RefCell;
use std::collections::HashMap;
use std::os::raw::{c_int, c_void};

/// `MPI_MESSAGE_NULL`, `MPI_MESSAGE_NO_PROC` (mpi.h).
const MESSAGE_NULL: Handle = 0x128;
const MESSAGE_NO_PROC: Handle = 0x129;

/// A matched message: the receive that takes it, and the bytes it lands in.
struct Matched {
    req: Request,
    data: Vec<u8>,
}

am::process_local! {
    static MESSAGES: RefCell<HashMap<Handle, Matched>> = RefCell::new(HashMap::new());
}

/// Takes the message `status` describes (the first from its sender with its tag in `c`).
fn claim(c: Handle, status: &Status) -> Result<Handle, Failure> {
    let mut data = vec![0u8; status.count_bytes];
    let byte = Datatype::predefined(Predef::Byte);
    // SAFETY: `data`'s heap buffer does not move when the Vec is stored below, and it is
    // neither read nor freed until the receive completes in `finish`.
    let req = unsafe {
        clump_mpi::irecv(
            data.as_mut_ptr(),
            data.len(),
            &byte,
            status.source,
            status.tag,
            &comm(c)?,
        )
    }
    .map_err(err)?;
    let h = fresh_handle();
    MESSAGES.with_borrow_mut(|m| m.insert(h, Matched { req, data }));
    Ok(h)
}

/// The message of a probe's result, its status written.
fn probed(c: Handle, found: &Status, status: *mut MpiStatus) -> Result<Handle, Failure> {
    write_status(status, found);
    if found.source == clump_mpi::PROC_NULL {
        return Ok(MESSAGE_NO_PROC);
    }
    claim(c, found)
}

/// Receives message `*msg` into `count` elements of `t` at `buf`; the status it had.
fn finish(buf: *mut c_void, n: c_int, t: Handle, msg: *mut Handle) -> Result<Status, Failure> {
    // SAFETY: a non-NULL message pointer from C points at an MPI_Message.
    let h = unsafe { msg.as_mut() }.ok_or_else(|| (MPI_ERR_ARG, "NULL message".to_string()))?;
    if *h == MESSAGE_NO_PROC {
        *h = MESSAGE_NULL;
        return Ok(Status {
            source: clump_mpi::PROC_NULL,
            tag: clump_mpi::ANY_TAG,
            ..Status::empty()
        });
    }
    let Matched { mut req, data } = MESSAGES
        .with_borrow_mut(|m| m.remove(h))
        .ok_or_else(|| (MPI_ERR_REQUEST, format!("invalid message handle {:#x}", *h)))?;
    *h = MESSAGE_NULL;
    let st = clump_mpi::wait(&mut req).map_err(err)?;
    let (dt, n) = (datatype(t)?, count(n)?);
    let room = dt.bytes(n).map_err(err)?;
    unpack(&data[..data.len().min(room)], buf, n, &dt)?;
    if data.len() > room {
        return Err((
            15,
            format!("a message of {} bytes does not fit {room}", data.len()),
        ));
    }
    Ok(st)
}

mpi_functions! {
    fn Mprobe(src: c_int, tag: c_int, c: Handle, msg: *mut Handle, status: *mut MpiStatus) -> c_int {
        on(c, || {
            let found = clump_mpi::probe(src, tag, &comm(c)?).map_err(err)?;
            let h = probed(c, &found, status)?;
            out(msg, h).map_err(|e| (e, "NULL message".into()))
        })
    }

    fn Improbe(src: c_int, tag: c_int, c: Handle, flag: *mut c_int, msg: *mut Handle, status: *mut MpiStatus) -> c_int {
        on(c, || {
            let found = clump_mpi::iprobe(src, tag, &comm(c)?).map_err(err)?;
            if let Some(s) = &found {
                let h = probed(c, s, status)?;
                out(msg, h).map_err(|e| (e, "NULL message".to_string()))?;
            }
            out(flag, found.is_some() as c_int).map_err(|e| (e, "NULL flag".into()))
        })
    }

    fn Mrecv(buf: *mut c_void, n: c_int, t: Handle, msg: *mut Handle, status: *mut MpiStatus) -> c_int {
        on(COMM_WORLD, || {
            let st = finish(buf, n, t, msg)?;
            write_status(status, &st);
            Ok(())
        })
    }

    fn Imrecv(buf: *mut c_void, n: c_int, t: Handle, msg: *mut Handle, req: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let st = finish(buf, n, t, msg)?;
            let r = Request::completed_with(st).map_err(err)?;
            out(req, put_request(r)?).map_err(|e| (e, "NULL request".into()))
        })
    }
}
