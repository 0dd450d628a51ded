//! The buffers buffered sends use (MPI 4.1): one a communicator has attached, else the one
//! of the session it was made in, else the process's. Each buffered send takes its packed
//! size plus `MPI_BSEND_OVERHEAD` of its buffer until its message has left; a buffer
//! attached as `MPI_BUFFER_AUTOMATIC` has no limit. Detaching or flushing a buffer waits
//! for the sends that use it; an `iflush` gives a request that completes once they have.

use super::abi::{MPI_ERR_ARG, MPI_ERR_BUFFER};
use super::export::{mpi_functions, out};
use super::handles::*;
use super::nbcoll::request_out;
use super::session_table::{known, on_session, session_of};
use super::wired::{count, on, Failure};
use clump_mpi::Request;
use std::cell::RefCell;
use std::collections::HashMap;
use std::os::raw::{c_int, c_void};

/// `MPI_BSEND_OVERHEAD` (mpi.h).
pub const OVERHEAD: usize = 512;
/// `MPI_BUFFER_AUTOMATIC` (mpi.h): the buffer grows as the sends need.
const AUTOMATIC: usize = 2;

/// Whose buffer a buffered send uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    Process,
    Session(Handle),
    Comm(Handle),
}

/// A buffered send not yet complete.
pub struct Pending {
    owner: Owner,
    pub req: Request,
    /// The bytes it holds of its buffer.
    bytes: usize,
    /// The packed copy the send reads from, kept until it completes.
    _copy: Vec<u8>,
}

#[derive(Default)]
struct Attached {
    /// Each owner's buffer (address and size) while attached.
    buffers: HashMap<Owner, (usize, usize)>,
    /// Pending sends by the key [`track`] gave them.
    pending: HashMap<u64, Pending>,
    next_key: u64,
}

am::process_local! {
    static ATTACHED: RefCell<Attached> = RefCell::new(Attached::default());
}

/// The owner whose buffer a buffered send in communicator `c` uses.
pub fn owner_of(c: Handle) -> Owner {
    let session = session_of(c).map(Owner::Session);
    ATTACHED.with_borrow(|a| {
        [Some(Owner::Comm(c)), session]
            .into_iter()
            .flatten()
            .find(|o| a.buffers.contains_key(o))
            .unwrap_or(Owner::Process)
    })
}

/// Forgets the buffered sends that have completed; the bytes they held are free again.
fn reap() -> Result<(), Failure> {
    let keys: Vec<u64> = ATTACHED.with_borrow(|a| a.pending.keys().copied().collect());
    for k in keys {
        let done = ATTACHED.with_borrow_mut(|a| match a.pending.get_mut(&k) {
            Some(p) => clump_mpi::test(&mut p.req).map(|s| s.is_some()),
            None => Ok(false),
        });
        if done.map_err(err)? {
            ATTACHED.with_borrow_mut(|a| a.pending.remove(&k));
        }
    }
    Ok(())
}

/// Checks that a send of `len` packed bytes fits `owner`'s buffer; the bytes it will hold.
pub fn reserve(owner: Owner, len: usize) -> Result<usize, Failure> {
    reap()?;
    let need = len + OVERHEAD;
    ATTACHED.with_borrow(|a| {
        let size = match a.buffers.get(&owner) {
            Some(&(AUTOMATIC, _)) => return Ok(need),
            Some(&(_, size)) => size,
            None => 0,
        };
        let used: usize = a
            .pending
            .values()
            .filter(|p| p.owner == owner)
            .map(|p| p.bytes)
            .sum();
        match used + need <= size {
            true => Ok(need),
            false => Err((
                MPI_ERR_BUFFER,
                format!("a buffered send of {len} bytes does not fit the attached buffer ({used} of {size} bytes in use, {OVERHEAD} per message)"),
            )),
        }
    })
}

/// Keeps send `req` of `copy` (holding `bytes` of `owner`'s buffer) until it completes;
/// the key [`withdraw`] takes it back by.
pub fn track(owner: Owner, req: Request, bytes: usize, copy: Vec<u8>) -> u64 {
    ATTACHED.with_borrow_mut(|a| {
        let key = a.next_key;
        a.next_key += 1;
        let p = Pending {
            owner,
            req,
            bytes,
            _copy: copy,
        };
        a.pending.insert(key, p);
        key
    })
}

/// Takes pending send `key` out of its buffer (`None` once it has completed and gone).
pub fn withdraw(key: u64) -> Option<Pending> {
    ATTACHED.with_borrow_mut(|a| a.pending.remove(&key))
}

/// Completes the buffered sends of `owner` (of every owner for `None`: finalize).
pub fn flush(owner: Option<Owner>) -> Result<(), Failure> {
    let mine: Vec<u64> = ATTACHED.with_borrow(|a| {
        a.pending
            .iter()
            .filter(|(_, p)| owner.is_none_or(|o| p.owner == o))
            .map(|(k, _)| *k)
            .collect()
    });
    for k in mine {
        if let Some(mut p) = withdraw(k) {
            clump_mpi::wait(&mut p.req).map_err(err)?;
        }
    }
    Ok(())
}

/// Gives in `req` a request that completes once the buffered sends of `owner` pending now
/// have; they stay in the buffer, which frees their space as each completes.
fn iflush(owner: Owner, req: *mut Handle) -> Result<(), Failure> {
    let all = ATTACHED.with_borrow(|a| {
        let mine = a.pending.values().filter(|p| p.owner == owner);
        clump_mpi::all_done(mine.map(|p| &p.req))
    });
    request_out(req, all.map_err(err)?)
}

fn attach(owner: Owner, buf: *mut c_void, size: usize) -> Result<(), Failure> {
    if buf.is_null() && size > 0 {
        return Err((MPI_ERR_BUFFER, "NULL buffer".into()));
    }
    ATTACHED.with_borrow_mut(|a| match a.buffers.contains_key(&owner) {
        true => Err((MPI_ERR_BUFFER, "a buffer is already attached".into())),
        false => {
            a.buffers.insert(owner, (buf as usize, size));
            Ok(())
        }
    })
}

/// Detaches `owner`'s buffer once its sends are complete: its address and size.
fn detach(owner: Owner, buf: *mut c_void) -> Result<(usize, usize), Failure> {
    if buf.is_null() {
        return Err((MPI_ERR_ARG, "NULL buffer address".into()));
    }
    flush(Some(owner))?;
    let (addr, len) = ATTACHED
        .with_borrow_mut(|a| a.buffers.remove(&owner))
        .ok_or_else(|| (MPI_ERR_BUFFER, "no buffer is attached".to_string()))?;
    // SAFETY: a detach's buffer argument is the address of a pointer (checked non-NULL).
    unsafe { buf.cast::<*mut c_void>().write(addr as *mut c_void) };
    Ok((addr, len))
}

/// [`detach`], the size written to `size` as an `int` or (`_c`) an `MPI_Count`.
fn detach_to<T: TryFrom<usize>>(
    owner: Owner,
    buf: *mut c_void,
    size: *mut T,
) -> Result<(), Failure> {
    if size.is_null() {
        return Err((MPI_ERR_ARG, "NULL size".into()));
    }
    let (_, len) = detach(owner, buf)?;
    let len = T::try_from(len).map_err(|_| (MPI_ERR_ARG, format!("size {len} does not fit")))?;
    out(size, len).map_err(|e| (e, "NULL size".into()))
}

/// A large-count size as bytes.
fn bytes(n: i64) -> Result<usize, Failure> {
    usize::try_from(n).map_err(|_| (MPI_ERR_ARG, format!("negative size {n}")))
}

mpi_functions! {
    fn Buffer_attach(buf: *mut c_void, size: c_int) -> c_int {
        on(COMM_WORLD, || attach(Owner::Process, buf, count(size)?))
    }

    fn Buffer_detach(buf: *mut c_void, size: *mut c_int) -> c_int {
        on(COMM_WORLD, || detach_to(Owner::Process, buf, size))
    }

    fn Buffer_flush() -> c_int {
        on(COMM_WORLD, || flush(Some(Owner::Process)))
    }

    fn Buffer_iflush(req: *mut Handle) -> c_int {
        on(COMM_WORLD, || iflush(Owner::Process, req))
    }

    fn Comm_attach_buffer(c: Handle, buf: *mut c_void, size: c_int) -> c_int {
        on(c, || {
            comm(c)?;
            attach(Owner::Comm(c), buf, count(size)?)
        })
    }

    fn Comm_attach_buffer_c(c: Handle, buf: *mut c_void, size: i64) -> c_int {
        on(c, || {
            comm(c)?;
            attach(Owner::Comm(c), buf, bytes(size)?)
        })
    }

    fn Comm_detach_buffer(c: Handle, buf: *mut c_void, size: *mut c_int) -> c_int {
        on(c, || detach_to(Owner::Comm(c), buf, size))
    }

    fn Comm_detach_buffer_c(c: Handle, buf: *mut c_void, size: *mut i64) -> c_int {
        on(c, || detach_to(Owner::Comm(c), buf, size))
    }

    fn Comm_flush_buffer(c: Handle) -> c_int {
        on(c, || {
            comm(c)?;
            flush(Some(Owner::Comm(c)))
        })
    }

    fn Comm_iflush_buffer(c: Handle, req: *mut Handle) -> c_int {
        on(c, || {
            comm(c)?;
            iflush(Owner::Comm(c), req)
        })
    }

    fn Session_attach_buffer(s: Handle, buf: *mut c_void, size: c_int) -> c_int {
        on_session(s, || {
            known(s)?;
            attach(Owner::Session(s), buf, count(size)?)
        })
    }

    fn Session_attach_buffer_c(s: Handle, buf: *mut c_void, size: i64) -> c_int {
        on_session(s, || {
            known(s)?;
            attach(Owner::Session(s), buf, bytes(size)?)
        })
    }

    fn Session_detach_buffer(s: Handle, buf: *mut c_void, size: *mut c_int) -> c_int {
        on_session(s, || detach_to(Owner::Session(s), buf, size))
    }

    fn Session_detach_buffer_c(s: Handle, buf: *mut c_void, size: *mut i64) -> c_int {
        on_session(s, || detach_to(Owner::Session(s), buf, size))
    }

    fn Session_flush_buffer(s: Handle) -> c_int {
        on_session(s, || {
            known(s)?;
            flush(Some(Owner::Session(s)))
        })
    }

    fn Session_iflush_buffer(s: Handle, req: *mut Handle) -> c_int {
        on_session(s, || {
            known(s)?;
            iflush(Owner::Session(s), req)
        })
    }
}
