//! `MPI_Request_get_status` and its MPI 4.1 array forms (`_all`, `_any`, `_some`): whether
//! requests have completed, and their statuses, without freeing them.

use super::abi::{MPI_ERR_ARG, MPI_UNDEFINED};
use super::export::{mpi_functions, out};
use super::handles::*;
use super::wired::{count, on, Failure};
use clump_mpi::Status;
use std::os::raw::c_int;

/// Where each of the `n` requests at `reqs` stands: `None` for a null or inactive one, else
/// its status once complete. The program's array is only read.
fn statuses(n: c_int, reqs: *const Handle) -> Result<Vec<Option<Option<Status>>>, Failure> {
    let n = count(n)?;
    if n > 0 && reqs.is_null() {
        return Err((MPI_ERR_ARG, "NULL request array".into()));
    }
    // SAFETY: a non-NULL request array from C holds `n` handles.
    let mut handles: Vec<Handle> = (0..n).map(|i| unsafe { *reqs.add(i) }).collect();
    with_requests(handles.as_mut_ptr(), n, |rs| {
        rs.iter()
            .map(|r| match r.is_null() {
                true => Ok(None),
                false => clump_mpi::get_status(r).map(Some),
            })
            .collect()
    })
}

fn int_out(ptr: *mut c_int, v: c_int, what: &str) -> Result<(), Failure> {
    out(ptr, v).map_err(|e| (e, format!("NULL {what}")))
}

/// Writes `s` into entry `i` of a C status array, unless it is `MPI_STATUSES_IGNORE`.
fn write_nth(statuses: *mut MpiStatus, i: usize, s: &Status) {
    if !statuses.is_null() {
        // SAFETY: a non-NULL status array from C has an entry for each request.
        write_status(unsafe { statuses.add(i) }, s);
    }
}

mpi_functions! {
    fn Request_get_status(req: Handle, flag: *mut c_int, status: *mut MpiStatus) -> c_int {
        on(COMM_WORLD, || {
            let found = statuses(1, &req)?.pop().flatten();
            // A null or inactive request is complete, with an empty status.
            let done = found.as_ref().is_none_or(|s| s.is_some());
            write_status(status, &found.flatten().unwrap_or_else(Status::empty));
            int_out(flag, done as c_int, "flag")
        })
    }

    fn Request_get_status_all(n: c_int, reqs: *const Handle, flag: *mut c_int, sts: *mut MpiStatus) -> c_int {
        on(COMM_WORLD, || {
            let all = statuses(n, reqs)?;
            let done = all.iter().all(|s| s.as_ref().is_none_or(|s| s.is_some()));
            if done {
                for (i, s) in all.into_iter().enumerate() {
                    write_nth(sts, i, &s.flatten().unwrap_or_else(Status::empty));
                }
            }
            int_out(flag, done as c_int, "flag")
        })
    }

    fn Request_get_status_any(n: c_int, reqs: *const Handle, index: *mut c_int, flag: *mut c_int, status: *mut MpiStatus) -> c_int {
        on(COMM_WORLD, || {
            let all = statuses(n, reqs)?;
            let first = all.iter().enumerate().find_map(|(i, s)| s.clone().flatten().map(|s| (i, s)));
            let none_active = all.iter().all(Option::is_none);
            let flag_v = first.is_some() || none_active;
            match first {
                Some((i, s)) => {
                    write_status(status, &s);
                    int_out(index, i as c_int, "index")?;
                }
                None => {
                    if none_active {
                        write_status(status, &Status::empty());
                    }
                    int_out(index, MPI_UNDEFINED, "index")?;
                }
            }
            int_out(flag, flag_v as c_int, "flag")
        })
    }

    fn Request_get_status_some(n: c_int, reqs: *const Handle, outcount: *mut c_int, indices: *mut c_int, sts: *mut MpiStatus) -> c_int {
        on(COMM_WORLD, || {
            let all = statuses(n, reqs)?;
            if all.iter().all(Option::is_none) {
                return int_out(outcount, MPI_UNDEFINED, "outcount");
            }
            let done: Vec<(usize, Status)> =
                all.into_iter().enumerate().filter_map(|(i, s)| s.flatten().map(|s| (i, s))).collect();
            if !done.is_empty() && indices.is_null() {
                return Err((MPI_ERR_ARG, "NULL index array".into()));
            }
            for (k, (i, s)) in done.iter().enumerate() {
                // SAFETY: the index array from C has an entry for each request.
                unsafe { *indices.add(k) = *i as c_int };
                write_nth(sts, k, s);
            }
            int_out(outcount, done.len() as c_int, "outcount")
        })
    }
}
