//! Generalized requests (`MPI_Grequest_start`): requests whose operation the program runs
//! itself and completes with `MPI_Grequest_complete`. A wait or test of a completed one asks
//! the program's query function for its status and then frees it with the program's free
//! function; a cancel calls the program's cancel function. The functions run with no
//! borrow of the engine held, so they may call MPI.
//!
//! Completion is by the thread that runs MPI (clump's MPI state is per thread).

use std::cell::RefCell;
use std::rc::Rc;

use crate::engine::{Req, ReqKind};
use crate::error::{Error, ErrorClass, Result};
use crate::p2p::Request;
use crate::runtime;
use crate::status::Status;

/// The program's functions of a generalized request.
pub trait Hooks {
    /// Fills the status a wait, test or `MPI_Request_get_status` reports.
    fn query(&mut self, status: &mut Status) -> Result<()>;
    /// Releases the program's state once the request is freed.
    fn free(&mut self) -> Result<()>;
    /// The program is asked to cancel; `complete` says whether it completed already.
    fn cancel(&mut self, complete: bool) -> Result<()>;
}

pub type SharedHooks = Rc<RefCell<dyn Hooks>>;

/// `MPI_Grequest_start`: a pending request that [`grequest_complete`] completes.
pub fn grequest_start(hooks: SharedHooks) -> Result<Request> {
    let rt = runtime::get()?;
    let id = rt.engine.borrow_mut().add_req(ReqKind::Generalized {
        hooks,
        freed: false,
    });
    Ok(Request::from_id(id))
}

/// `MPI_Grequest_complete`: request `req` (which stays the program's to wait for) is
/// complete; one the program freed already is freed now, and `req` becomes null.
pub fn grequest_complete(req: &mut Request) -> Result<()> {
    let rt = runtime::get()?;
    let freed = {
        let mut e = rt.engine.borrow_mut();
        match e.reqs.get_mut(req.id()) {
            Some(Req {
                kind: ReqKind::Generalized { freed, .. },
                done,
                ..
            }) => {
                if *done {
                    return Err(not_pending());
                }
                *done = true;
                *freed
            }
            _ => return Err(not_pending()),
        }
    };
    if freed {
        let r = rt.engine.borrow_mut().reqs.remove(req.id());
        *req = Request::null();
        if let Some(h) = r.and_then(|r| hooks_of(&r)) {
            h.borrow_mut().free()?;
        }
    }
    Ok(())
}

fn not_pending() -> Error {
    Error::new(
        ErrorClass::Request,
        "not a pending generalized request (MPI_Grequest_complete is called once)",
    )
}

/// The program's functions of generalized request `r`.
pub(crate) fn hooks_of(r: &Req) -> Option<SharedHooks> {
    match &r.kind {
        ReqKind::Generalized { hooks, .. } => Some(hooks.clone()),
        _ => None,
    }
}

/// The status of completed generalized request `r` (its query function's).
pub(crate) fn query(hooks: &SharedHooks) -> Result<Status> {
    let mut status = Status::empty();
    hooks.borrow_mut().query(&mut status)?;
    Ok(status)
}

/// A wait or test collected completed generalized request `hooks`: its status, then its
/// free function (an error of either is the wait's).
pub(crate) fn collect(hooks: &SharedHooks) -> Result<Status> {
    let status = query(hooks);
    let freed = hooks.borrow_mut().free();
    let status = status?;
    freed.map(|()| status)
}

/// `MPI_Request_free` of generalized request `id`: freed now if complete (true), else
/// once [`grequest_complete`] is called (false: the request stays, for that call to
/// name). `None` when `id` is not a generalized request.
pub(crate) fn free(rt: &runtime::Runtime, id: u64) -> Result<Option<bool>> {
    let done = {
        let mut e = rt.engine.borrow_mut();
        match e.reqs.get_mut(id) {
            Some(Req {
                kind: ReqKind::Generalized { freed, .. },
                done,
                ..
            }) => {
                *freed = true;
                *done
            }
            _ => return Ok(None),
        }
    };
    if done {
        let r = rt.engine.borrow_mut().reqs.remove(id);
        if let Some(h) = r.and_then(|r| hooks_of(&r)) {
            h.borrow_mut().free()?;
        }
    }
    Ok(Some(done))
}

/// `MPI_Cancel` of generalized request `id`: its cancel function, told whether it has
/// completed. False when `id` is not a generalized request.
pub(crate) fn cancel(rt: &runtime::Runtime, id: u64) -> Result<bool> {
    let found = rt
        .engine
        .borrow()
        .reqs
        .get(id)
        .and_then(|r| hooks_of(r).map(|h| (h, r.done)));
    match found {
        Some((h, done)) => h.borrow_mut().cancel(done).map(|()| true),
        None => Ok(false),
    }
}
