//! The `any`, `some` and `all` forms of wait and test over arrays of requests.

use crate::error::Result;
use crate::p2p::{test, wait_in, Request};
use crate::runtime;
use crate::status::Status;

/// `MPI_Testany`: the index and status of one completed request (null requests are skipped);
/// `Ok(None)` when none has completed. All null gives `Some((None, empty))` as MPI does.
pub fn test_any(reqs: &mut [Request]) -> Result<Option<(Option<usize>, Status)>> {
    if reqs.iter().all(Request::is_null) {
        return Ok(Some((None, Status::empty())));
    }
    for (i, r) in reqs.iter_mut().enumerate() {
        if r.is_null() {
            continue;
        }
        if let Some(st) = test(r)? {
            return Ok(Some((Some(i), st)));
        }
    }
    Ok(None)
}

/// `MPI_Waitany`: polls until one request completes; `None` index when all are null.
pub fn wait_any(reqs: &mut [Request]) -> Result<(Option<usize>, Status)> {
    let rt = runtime::get()?;
    let mut idle = clump::IdleWait::new(rt.spin);
    loop {
        if let Some(found) = test_any(reqs)? {
            return Ok(found);
        }
        idle.round(&rt.spmd.borrow().bundle)?;
    }
}

/// `MPI_Testsome`: every request that has completed now, with its index.
pub fn test_some(reqs: &mut [Request]) -> Result<Vec<(usize, Status)>> {
    let mut done = Vec::new();
    for (i, r) in reqs.iter_mut().enumerate() {
        if !r.is_null() {
            if let Some(st) = test(r)? {
                done.push((i, st));
            }
        }
    }
    Ok(done)
}

/// `MPI_Waitsome`: polls until at least one completes (empty when all are null).
pub fn wait_some(reqs: &mut [Request]) -> Result<Vec<(usize, Status)>> {
    let rt = runtime::get()?;
    let mut idle = clump::IdleWait::new(rt.spin);
    loop {
        let done = test_some(reqs)?;
        if !done.is_empty() || reqs.iter().all(Request::is_null) {
            return Ok(done);
        }
        idle.round(&rt.spmd.borrow().bundle)?;
    }
}

/// `MPI_Waitall`: waits for each; the first error is returned after all completed.
pub fn wait_all(reqs: &mut [Request]) -> Result<Vec<Status>> {
    let mut all = Vec::with_capacity(reqs.len());
    wait_all_with(reqs, |_, s| all.push(s))?;
    Ok(all)
}

/// `MPI_Waitall` giving `each` the index and status of every request that completed
/// without error, as it does (no list of outcomes is built: the C face writes each
/// status where the program wants it); the first error is returned after all completed.
pub fn wait_all_with(reqs: &mut [Request], mut each: impl FnMut(usize, Status)) -> Result<()> {
    let mut rt = None;
    let mut failed = None;
    for (i, r) in reqs.iter_mut().enumerate() {
        match wait_in(&mut rt, r) {
            Ok(s) => each(i, s),
            Err(e) => {
                failed.get_or_insert(e);
            }
        }
    }
    failed.map_or(Ok(()), Err)
}

/// `MPI_Testall`: every status when all have completed, else `None` (and none is freed).
pub fn test_all(reqs: &mut [Request]) -> Result<Option<Vec<Status>>> {
    let rt = runtime::get()?;
    rt.progress()?;
    if reqs.iter().all(|r| r.is_complete(&rt)) {
        wait_all(reqs).map(Some)
    } else {
        Ok(None)
    }
}
