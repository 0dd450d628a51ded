//! Generalized requests (`MPI_Grequest_start`): requests whose operation the program runs
//! itself and completes with `MPI_Grequest_complete`; how waits, tests and cancels treat
//! them is [`crate::generalized`].
//!
//! Completion is by the thread that runs MPI (clump's MPI state is per thread).

use crate::engine::{Req, ReqKind};
use crate::error::{Error, ErrorClass, Result};
use crate::generalized::hooks_of;
use crate::grequest_hooks::SharedHooks;
use crate::p2p::Request;
use crate::runtime;

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
