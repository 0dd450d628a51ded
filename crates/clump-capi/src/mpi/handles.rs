//! ABI handles <-> clump-mpi objects: predefined communicators, datatypes and operations
//! have the values the standard ABI fixes; requests live in a per-thread registry keyed by
//! handle. Also the status layout and the error handlers of the two communicators.

use super::abi::*;
use clump_mpi::{Comm, Datatype, ErrorClass, Op, Predef, Request, Status};
use std::cell::RefCell;
use std::collections::HashMap;
use std::os::raw::c_int;

pub type Handle = usize;

pub const COMM_WORLD: Handle = 0x101;
pub const COMM_SELF: Handle = 0x102;
pub const REQUEST_NULL: Handle = 0x180;
pub const ERRORS_ARE_FATAL: Handle = 0x141;
pub const ERRORS_RETURN: Handle = 0x142;
pub const ERRORS_ABORT: Handle = 0x143;
/// `MPI_IN_PLACE`.
pub const IN_PLACE: usize = 1;
/// User request handles start here, far above every predefined handle value.
const FIRST_REQUEST: Handle = 0x10000;

/// The ABI's `MPI_Status`.
#[repr(C)]
pub struct MpiStatus {
    pub source: c_int,
    pub tag: c_int,
    pub error: c_int,
    /// Received bytes (low, high 32 bits), then the cancelled flag.
    pub internal: [c_int; 5],
}

#[derive(Default)]
struct Registry {
    requests: HashMap<Handle, Request>,
    datatypes: HashMap<Handle, Datatype>,
    next: Handle,
    /// Error handler of world and self (ERRORS_ARE_FATAL until set).
    handlers: HashMap<Handle, Handle>,
}

thread_local! {
    static REGISTRY: RefCell<Registry> = RefCell::new(Registry { next: FIRST_REQUEST, ..Default::default() });
}

/// The ABI code of a clump-mpi error class.
pub fn class_code(c: ErrorClass) -> c_int {
    match c {
        ErrorClass::Buffer => 1,
        ErrorClass::Count => 2,
        ErrorClass::Type => 3,
        ErrorClass::Tag => 4,
        ErrorClass::Comm => 5,
        ErrorClass::Rank => 6,
        ErrorClass::Request => 7,
        ErrorClass::Root => 8,
        ErrorClass::Op => 10,
        ErrorClass::Arg => MPI_ERR_ARG,
        ErrorClass::Truncate => 15,
        ErrorClass::Other => MPI_ERR_OTHER,
        ErrorClass::Intern => MPI_ERR_INTERN,
        ErrorClass::NoMem => MPI_ERR_NO_MEM,
        ErrorClass::Pending => 18,
        ErrorClass::InStatus => 19,
        ErrorClass::Unsupported => MPI_ERR_UNSUPPORTED_OPERATION,
    }
}

/// Converts a clump-mpi error to its code, keeping the message for the fatal handler.
pub fn err(e: clump_mpi::Error) -> (c_int, String) {
    (class_code(e.class), e.to_string())
}

pub fn comm(h: Handle) -> Result<Comm, (c_int, String)> {
    match h {
        COMM_WORLD => Comm::world().map_err(err),
        COMM_SELF => Comm::self_comm().map_err(err),
        _ => Err((MPI_ERR_COMM, format!("invalid communicator handle {h:#x}"))),
    }
}

pub fn predef(h: Handle) -> Option<Predef> {
    use Predef::*;
    Some(match h {
        0x208 => Short,
        0x209 => Int,
        0x20a => Long,
        0x20b => LongLong,
        0x20c => UnsignedShort,
        0x20d => Unsigned,
        0x20e => UnsignedLong,
        0x20f => UnsignedLongLong,
        0x210 => Float,
        0x214 => Double,
        0x238 => CBool,
        0x240 => Int8,
        0x241 => Uint8,
        0x243 => Char,
        0x244 => SignedChar,
        0x245 => UnsignedChar,
        0x247 => Byte,
        0x248 => Int16,
        0x249 => Uint16,
        0x250 => Int32,
        0x251 => Uint32,
        0x258 => Int64,
        0x259 => Uint64,
        _ => return None,
    })
}

pub const DATATYPE_NULL: Handle = 0x200;

pub fn datatype(h: Handle) -> Result<Datatype, (c_int, String)> {
    predef(h)
        .map(Datatype::predefined)
        .or_else(|| REGISTRY.with_borrow(|r| r.datatypes.get(&h).cloned()))
        .ok_or((MPI_ERR_TYPE, format!("unsupported datatype handle {h:#x}")))
}

/// Stores a user datatype and returns its handle.
pub fn put_datatype(dt: Datatype) -> Handle {
    REGISTRY.with_borrow_mut(|r| {
        let h = r.next;
        r.next += 1;
        r.datatypes.insert(h, dt);
        h
    })
}

/// Frees a user datatype; predefined ones cannot be freed.
pub fn free_datatype(h: Handle) -> Result<(), (c_int, String)> {
    REGISTRY
        .with_borrow_mut(|r| r.datatypes.remove(&h))
        .map(drop)
        .ok_or((MPI_ERR_TYPE, format!("{h:#x} is not a user datatype")))
}

pub fn op(h: Handle) -> Result<Op, (c_int, String)> {
    Ok(match h {
        0x21 => Op::Sum,
        0x22 => Op::Min,
        0x23 => Op::Max,
        0x24 => Op::Prod,
        0x28 => Op::Band,
        0x29 => Op::Bor,
        0x2a => Op::Bxor,
        0x30 => Op::Land,
        0x31 => Op::Lor,
        0x32 => Op::Lxor,
        0x3c => Op::Replace,
        0x3d => Op::NoOp,
        _ => return Err((MPI_ERR_OP, format!("unsupported operation handle {h:#x}"))),
    })
}

/// Stores `req` and returns its handle (`MPI_REQUEST_NULL` for a null request).
pub fn put_request(req: Request) -> Handle {
    if req.is_null() {
        return REQUEST_NULL;
    }
    REGISTRY.with_borrow_mut(|r| {
        let h = r.next;
        r.next += 1;
        r.requests.insert(h, req);
        h
    })
}

/// Takes the request of `h` out of the registry (null for `MPI_REQUEST_NULL`).
pub fn take_request(h: Handle) -> Result<Request, (c_int, String)> {
    if h == REQUEST_NULL {
        return Ok(Request::null());
    }
    REGISTRY
        .with_borrow_mut(|r| r.requests.remove(&h))
        .ok_or((MPI_ERR_REQUEST, format!("invalid request handle {h:#x}")))
}

/// Runs `f` on the requests of the C array `slots` (`n` handles), then stores each one
/// back: `MPI_REQUEST_NULL` for those `f` completed, the same handle for the others.
pub fn with_requests<T>(
    slots: *mut Handle,
    n: usize,
    f: impl FnOnce(&mut [Request]) -> clump_mpi::Result<T>,
) -> Result<T, (c_int, String)> {
    if n > 0 && slots.is_null() {
        return Err((MPI_ERR_ARG, "NULL request array".into()));
    }
    let handles: Vec<Handle> = (0..n)
        // SAFETY: a non-NULL request array from C holds `n` handles.
        .map(|i| unsafe { *slots.add(i) })
        .collect();
    let mut reqs = Vec::with_capacity(n);
    for &h in &handles {
        match take_request(h) {
            Ok(r) => reqs.push(r),
            Err(e) => {
                handles.iter().zip(reqs).for_each(|(&h, r)| restore(h, r));
                return Err(e);
            }
        }
    }
    let result = f(&mut reqs);
    for (i, (h, r)) in handles.into_iter().zip(reqs).enumerate() {
        let now = if r.is_null() { REQUEST_NULL } else { h };
        restore(h, r);
        // SAFETY: as above.
        unsafe { *slots.add(i) = now };
    }
    result.map_err(err)
}

/// Puts a request that is still pending back under its handle.
fn restore(h: Handle, req: Request) {
    if !req.is_null() {
        REGISTRY.with_borrow_mut(|r| r.requests.insert(h, req));
    }
}

/// Writes `s` into a C status unless it is `MPI_STATUS_IGNORE`.
pub fn write_status(dst: *mut MpiStatus, s: &Status) {
    if dst.is_null() {
        return;
    }
    let bytes = s.count_bytes as u64;
    let v = MpiStatus {
        source: s.source,
        tag: s.tag,
        error: s.error.map_or(MPI_SUCCESS, class_code),
        internal: [
            bytes as u32 as c_int,
            (bytes >> 32) as c_int,
            s.cancelled as c_int,
            0,
            0,
        ],
    };
    // SAFETY: a non-NULL status pointer from C points at an MPI_Status (mpi.h's layout).
    unsafe { dst.write(v) };
}

/// The received byte count a status records.
pub fn status_bytes(s: &MpiStatus) -> u64 {
    (s.internal[0] as u32 as u64) | ((s.internal[1] as u32 as u64) << 32)
}

/// The error handler of `comm`; an invalid communicator has none of its own, so its
/// errors go to the handler of `MPI_COMM_WORLD`.
pub fn errhandler(comm: Handle) -> Handle {
    let owner = if comm == COMM_SELF {
        COMM_SELF
    } else {
        COMM_WORLD
    };
    REGISTRY.with_borrow(|r| r.handlers.get(&owner).copied().unwrap_or(ERRORS_ARE_FATAL))
}

pub fn set_errhandler(comm: Handle, h: Handle) {
    REGISTRY.with_borrow_mut(|r| r.handlers.insert(comm, h));
}

/// Passes an error through `comm`'s handler: returns its code, or ends the job.
pub fn handle_error(comm: Handle, (code, message): (c_int, String)) -> c_int {
    if errhandler(comm) == ERRORS_RETURN {
        return code;
    }
    eprintln!("clump MPI: fatal error (class {code}): {message}");
    std::process::exit(code.max(1));
}
