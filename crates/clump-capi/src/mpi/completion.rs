//! Completion of requests from C: wait and test, their any/some/all forms over request
//! arrays, cancel and free, and what a status says (`MPI_Test_cancelled`).

use super::abi::*;
use super::export::{mpi_functions, out};
use super::handles::*;
use super::wired::{count, on, Failure};
use clump_mpi::{Request, Status};
use std::os::raw::c_int;

/// Writes `s` into entry `i` of a C status array, unless it is `MPI_STATUSES_IGNORE`.
fn write_nth(statuses: *mut MpiStatus, i: usize, s: &Status) {
    if !statuses.is_null() {
        // SAFETY: a non-NULL status array from C has an entry for each request.
        write_status(unsafe { statuses.add(i) }, s);
    }
}

fn flag_out(flag: *mut c_int, v: bool) -> Result<(), Failure> {
    out(flag, v as c_int).map_err(|e| (e, "NULL flag".into()))
}

fn index_out(index: *mut c_int, i: Option<usize>) -> Result<(), Failure> {
    out(index, i.map_or(MPI_UNDEFINED, |i| i as c_int)).map_err(|e| (e, "NULL index".into()))
}

/// Writes the completed entries of a some-form.
fn some_out(
    done: &[(usize, Status)],
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut MpiStatus,
) -> Result<(), Failure> {
    out(outcount, done.len() as c_int).map_err(|e| (e, "NULL outcount".into()))?;
    if !done.is_empty() && indices.is_null() {
        return Err((MPI_ERR_ARG, "NULL index array".into()));
    }
    for (k, (i, s)) in done.iter().enumerate() {
        // SAFETY: the index array from C has an entry for each request.
        unsafe { *indices.add(k) = *i as c_int };
        write_nth(statuses, k, s);
    }
    Ok(())
}

/// `clump_mpi::wait_some` or `test_some`.
type SomeForm = fn(&mut [Request]) -> clump_mpi::Result<Vec<(usize, Status)>>;

/// Waitsome and Testsome: `complete` over the requests, then the completed entries out.
fn some_form(
    n: c_int,
    reqs: *mut Handle,
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut MpiStatus,
    complete: SomeForm,
) -> Result<(), Failure> {
    let n = count(n)?;
    if all_null(reqs, n) {
        return out(outcount, MPI_UNDEFINED).map_err(|e| (e, "NULL outcount".into()));
    }
    let done = with_requests(reqs, n, complete)?;
    some_out(&done, outcount, indices, statuses)
}

/// Whether all `n` handles at `slots` are `MPI_REQUEST_NULL` (the some-forms then say so).
fn all_null(slots: *const Handle, n: usize) -> bool {
    // SAFETY: the request array from C holds `n` handles (checked non-NULL by the caller).
    !slots.is_null() && (0..n).all(|i| unsafe { *slots.add(i) } == REQUEST_NULL)
}

mpi_functions! {
    fn Wait(req: *mut Handle, status: *mut MpiStatus) -> c_int {
        on(COMM_WORLD, || {
            let s = with_requests(req, 1, |r| clump_mpi::wait(&mut r[0]))?;
            write_status(status, &s);
            Ok(())
        })
    }

    fn Test(req: *mut Handle, flag: *mut c_int, status: *mut MpiStatus) -> c_int {
        on(COMM_WORLD, || {
            let s = with_requests(req, 1, |r| clump_mpi::test(&mut r[0]))?;
            if let Some(s) = &s {
                write_status(status, s);
            }
            flag_out(flag, s.is_some())
        })
    }

    fn Waitall(n: c_int, reqs: *mut Handle, statuses: *mut MpiStatus) -> c_int {
        on(COMM_WORLD, || {
            // Each status goes where the program wants it as its request completes.
            with_requests(reqs, count(n)?, |r| {
                clump_mpi::wait_all_with(r, |i, s| write_nth(statuses, i, &s))
            })
        })
    }

    fn Testall(n: c_int, reqs: *mut Handle, flag: *mut c_int, statuses: *mut MpiStatus) -> c_int {
        on(COMM_WORLD, || {
            let all = with_requests(reqs, count(n)?, clump_mpi::test_all)?;
            if let Some(all) = &all {
                all.iter().enumerate().for_each(|(i, s)| write_nth(statuses, i, s));
            }
            flag_out(flag, all.is_some())
        })
    }

    fn Waitany(n: c_int, reqs: *mut Handle, index: *mut c_int, status: *mut MpiStatus) -> c_int {
        on(COMM_WORLD, || {
            let (i, s) = with_requests(reqs, count(n)?, clump_mpi::wait_any)?;
            write_status(status, &s);
            index_out(index, i)
        })
    }

    fn Testany(n: c_int, reqs: *mut Handle, index: *mut c_int, flag: *mut c_int, status: *mut MpiStatus) -> c_int {
        on(COMM_WORLD, || {
            let found = with_requests(reqs, count(n)?, clump_mpi::test_any)?;
            let (i, s) = found.clone().unwrap_or((None, Status::empty()));
            write_status(status, &s);
            index_out(index, i)?;
            flag_out(flag, found.is_some())
        })
    }

    fn Waitsome(n: c_int, reqs: *mut Handle, outcount: *mut c_int, indices: *mut c_int, statuses: *mut MpiStatus) -> c_int {
        on(COMM_WORLD, || some_form(n, reqs, outcount, indices, statuses, clump_mpi::wait_some))
    }

    fn Testsome(n: c_int, reqs: *mut Handle, outcount: *mut c_int, indices: *mut c_int, statuses: *mut MpiStatus) -> c_int {
        on(COMM_WORLD, || some_form(n, reqs, outcount, indices, statuses, clump_mpi::test_some))
    }

    fn Cancel(req: *mut Handle) -> c_int {
        // The request stays; the program still completes it with a wait or a test.
        on(COMM_WORLD, || with_requests(req, 1, |r| clump_mpi::cancel(&mut r[0])).map(drop))
    }

    fn Request_free(req: *mut Handle) -> c_int {
        // The operation completes on its own; this does not wait for it.
        on(COMM_WORLD, || {
            // SAFETY: a non-NULL request pointer from C points at an MPI_Request.
            let h = unsafe { req.as_mut() }.ok_or_else(|| (MPI_ERR_ARG, "NULL request".to_string()))?;
            free_request(*h)?;
            *h = REQUEST_NULL;
            Ok(())
        })
    }

    fn Test_cancelled(status: *const MpiStatus, flag: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            // SAFETY: a non-NULL status pointer from C points at an MPI_Status.
            let s = unsafe { status.as_ref() }.ok_or_else(|| (MPI_ERR_ARG, "NULL status".to_string()))?;
            flag_out(flag, s.internal[2] != 0)
        })
    }
}
