//! Generalized requests as waits, tests, frees and cancels meet them: a wait or test of a
//! completed one asks the program's query function for its status and then frees it with
//! the program's free function; a cancel calls the program's cancel function. The
//! functions run with no borrow of the engine held, so they may call MPI. Starting and
//! completing them is [`crate::grequest`].

use crate::engine::{Req, ReqKind};
use crate::error::Result;
use crate::grequest_hooks::SharedHooks;
use crate::runtime;
use crate::status::Status;

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
/// once [`crate::grequest::grequest_complete`] is called (false: the request stays, for that call to
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
