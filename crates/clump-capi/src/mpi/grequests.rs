//! Generalized requests from C (`MPI_Grequest_start`, `MPI_Grequest_complete`): the
//! program's query, free and cancel functions behind clump-mpi's hooks. Fortran's
//! functions (src/mpi/fortran/grequests.rs) start theirs through [`start`] too.

use super::abi::{MPI_ERR_ARG, MPI_SUCCESS};
use super::export::{mpi_functions, out};
use super::handles::*;
use super::wired::on;
use clump_mpi::{Error, ErrorClass, Hooks, SharedHooks, Status};
use std::cell::RefCell;
use std::os::raw::{c_int, c_void};
use std::rc::Rc;

type QueryFn = extern "C" fn(*mut c_void, *mut MpiStatus) -> c_int;
type FreeFn = extern "C" fn(*mut c_void) -> c_int;
type CancelFn = extern "C" fn(*mut c_void, c_int) -> c_int;

struct CHooks {
    query: QueryFn,
    free: FreeFn,
    cancel: CancelFn,
    extra: *mut c_void,
}

/// A nonzero code a program's function returned, as the error of the call that ran it.
pub(super) fn returned(what: &str, code: c_int) -> clump_mpi::Result<()> {
    if code == MPI_SUCCESS {
        return Ok(());
    }
    Err(Error::new(
        ErrorClass::Other,
        format!("the generalized request's {what} function returned error {code}"),
    ))
}

impl Hooks for CHooks {
    fn query(&mut self, status: &mut Status) -> clump_mpi::Result<()> {
        query_with(status, |c| (self.query)(self.extra, c))
    }

    fn free(&mut self) -> clump_mpi::Result<()> {
        returned("free", (self.free)(self.extra))
    }

    fn cancel(&mut self, complete: bool) -> clump_mpi::Result<()> {
        returned("cancel", (self.cancel)(self.extra, complete as c_int))
    }
}

/// Runs a program's query function `query` on an MPI status made from `status` (C's and
/// Fortran's are laid out alike), then takes back what it set.
pub(super) fn query_with(
    status: &mut Status,
    query: impl FnOnce(&mut MpiStatus) -> c_int,
) -> clump_mpi::Result<()> {
    let mut c = MpiStatus {
        source: status.source,
        tag: status.tag,
        error: MPI_SUCCESS,
        internal: [0; 5],
    };
    returned("query", query(&mut c))?;
    status.source = c.source;
    status.tag = c.tag;
    status.count_bytes = status_bytes(&c) as usize;
    status.cancelled = c.internal[2] != 0;
    Ok(())
}

/// Starts a generalized request over `hooks` and writes its handle to `req`.
pub(super) fn start(hooks: SharedHooks, req: *mut Handle) -> Result<(), (c_int, String)> {
    let r = clump_mpi::grequest_start(hooks).map_err(err)?;
    out(req, put_request(r)?).map_err(|e| (e, "NULL request".into()))
}

mpi_functions! {
    fn Grequest_start(query: Option<QueryFn>, free: Option<FreeFn>, cancel: Option<CancelFn>, extra: *mut c_void, req: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let (Some(query), Some(free), Some(cancel)) = (query, free, cancel) else {
                return Err((MPI_ERR_ARG, "NULL query, free or cancel function".into()));
            };
            start(Rc::new(RefCell::new(CHooks { query, free, cancel, extra })), req)
        })
    }

    fn Grequest_complete(req: Handle) -> c_int {
        on(COMM_WORLD, || {
            let mut h = req;
            with_requests(&mut h, 1, |r| clump_mpi::grequest_complete(&mut r[0]))
        })
    }
}
