//! Partitioned communication from C (MPI 4.0): `MPI_Psend_init` and `MPI_Precv_init` make
//! persistent requests whose partitions the program marks ready (`MPI_Pready`, `_range`,
//! `_list`) or asks about (`MPI_Parrived`). A send's start is a placeholder (a generalized
//! request nothing completes) until its last partition is ready; then its message starts
//! ([`clump_mpi::psend`]) and takes the placeholder's place, so waits and tests meet the
//! message. A receive's start posts the whole message; a partition has arrived once the
//! message has.

use super::abi::{MPI_ERR_ARG, MPI_ERR_REQUEST};
use super::export::{mpi_functions, out};
use super::handles::*;
use super::wired::{count, on, Failure};
use clump_mpi::{Hooks, Request, Status};
use std::cell::RefCell;
use std::os::raw::{c_int, c_void};
use std::rc::Rc;

/// The partitions of a partitioned request.
pub struct Parts {
    count: usize,
    /// The communicator whose error handler the partition calls report through.
    comm: Handle,
    side: Side,
}

enum Side {
    Send {
        /// Which partitions the current start has marked ready, and how many are not.
        ready: RefCell<(Vec<bool>, usize)>,
        /// Starts the message, once every partition is ready.
        message: Box<dyn Fn() -> Result<Request, Failure>>,
    },
    Recv,
}

/// What a send's start is until its partitions are ready: a request that stays pending.
struct Unready;

impl Hooks for Unready {
    fn query(&mut self, _: &mut Status) -> clump_mpi::Result<()> {
        Ok(())
    }
    fn free(&mut self) -> clump_mpi::Result<()> {
        Ok(())
    }
    fn cancel(&mut self, _: bool) -> clump_mpi::Result<()> {
        Ok(())
    }
}

/// The number of partitions and the elements of the whole message.
fn sizes(partitions: c_int, n: c_int) -> Result<(usize, usize), Failure> {
    let parts = match count(partitions)? {
        0 => {
            return Err((
                MPI_ERR_ARG,
                "a partitioned request needs a partition".into(),
            ))
        }
        p => p,
    };
    Ok((parts, parts * count(n)?))
}

/// Stores partitioned request `parts`, started by `start`, in `*req`.
fn store(
    req: *mut Handle,
    start: impl Fn() -> Result<Request, Failure> + 'static,
    parts: Rc<Parts>,
) -> Result<(), Failure> {
    out(req, put_partitioned(Rc::new(start), Some(parts))?).map_err(|e| (e, "NULL request".into()))
}

/// The index of `partition` among `count`.
fn index(partition: c_int, count: usize) -> Result<usize, Failure> {
    usize::try_from(partition)
        .ok()
        .filter(|&i| i < count)
        .ok_or_else(|| {
            (
                MPI_ERR_ARG,
                format!("partition {partition} is not one of 0..{count}"),
            )
        })
}

/// The partitions of request `h` and whether it is active; `None` if it is not a
/// partitioned request.
fn parts_of(h: Handle) -> Option<(Rc<Parts>, bool)> {
    let (parts, active) = partitions(h)?;
    Some((parts.downcast::<Parts>().ok()?, active))
}

/// The partitions of active request `h`.
fn active(h: Handle, call: &str) -> Result<Rc<Parts>, Failure> {
    match parts_of(h) {
        Some((parts, true)) => Ok(parts),
        Some(_) => Err((
            MPI_ERR_REQUEST,
            format!("{call} on a partitioned request not started"),
        )),
        None => Err((
            MPI_ERR_REQUEST,
            format!("{call} on {h:#x}, not a partitioned request"),
        )),
    }
}

/// The communicator whose handler an error of a call on request `h` goes to.
fn comm_of(h: Handle) -> Handle {
    parts_of(h).map_or(COMM_WORLD, |(p, _)| p.comm)
}

/// `MPI_Pready` of each of `partitions` of send `h`; the message starts with the last.
fn ready(h: Handle, partitions: impl IntoIterator<Item = c_int>) -> Result<(), Failure> {
    let parts = active(h, "MPI_Pready")?;
    let Side::Send { ready, message } = &parts.side else {
        return Err((
            MPI_ERR_REQUEST,
            "MPI_Pready on a partitioned receive".into(),
        ));
    };
    let chosen = partitions
        .into_iter()
        .map(|p| index(p, parts.count))
        .collect::<Result<Vec<usize>, Failure>>()?;
    let all = {
        let (marked, left) = &mut *ready.borrow_mut();
        for (k, &i) in chosen.iter().enumerate() {
            if std::mem::replace(&mut marked[i], true) {
                // A failed call marks nothing.
                chosen[..k].iter().for_each(|&j| marked[j] = false);
                *left += k;
                return Err((MPI_ERR_ARG, format!("partition {i} is already ready")));
            }
            *left -= 1;
        }
        *left == 0
    };
    if all {
        let mut placeholder = replace_active(h, message()?);
        clump_mpi::grequest_complete(&mut placeholder).map_err(err)?;
        clump_mpi::wait(&mut placeholder).map_err(err)?;
    }
    Ok(())
}

mpi_functions! {
    fn Psend_init(buf: *const c_void, partitions: c_int, n: c_int, t: Handle, dest: c_int, tag: c_int, c: Handle, _info: Handle, req: *mut Handle) -> c_int {
        on(c, || {
            let (parts, total) = sizes(partitions, n)?;
            let (dt, cm) = (datatype(t)?, comm(c)?);
            clump_mpi::check_partitioned(dest, tag, &cm).map_err(err)?;
            let addr = buf as usize;
            let message = move || {
                // SAFETY: the program keeps the buffer of a partitioned send valid and
                // unwritten from its last MPI_Pready until the request completes.
                unsafe { clump_mpi::psend(addr as *const u8, total, &dt, dest, tag, &cm) }.map_err(err)
            };
            let parts = Rc::new(Parts {
                count: parts,
                comm: c,
                side: Side::Send { ready: RefCell::new((Vec::new(), 0)), message: Box::new(message) },
            });
            let mine = parts.clone();
            let start = move || {
                if let Side::Send { ready, .. } = &mine.side {
                    *ready.borrow_mut() = (vec![false; mine.count], mine.count);
                }
                clump_mpi::grequest_start(Rc::new(RefCell::new(Unready))).map_err(err)
            };
            store(req, start, parts)
        })
    }

    fn Precv_init(buf: *mut c_void, partitions: c_int, n: c_int, t: Handle, src: c_int, tag: c_int, c: Handle, _info: Handle, req: *mut Handle) -> c_int {
        on(c, || {
            let (parts, total) = sizes(partitions, n)?;
            let (dt, cm) = (datatype(t)?, comm(c)?);
            clump_mpi::check_partitioned(src, tag, &cm).map_err(err)?;
            let addr = buf as usize;
            let start = move || {
                // SAFETY: the program leaves the buffer of a started partitioned receive to
                // MPI until the request completes.
                unsafe { clump_mpi::precv(addr as *mut u8, total, &dt, src, tag, &cm) }.map_err(err)
            };
            store(req, start, Rc::new(Parts { count: parts, comm: c, side: Side::Recv }))
        })
    }

    fn Pready(partition: c_int, req: Handle) -> c_int {
        on(comm_of(req), || ready(req, [partition]))
    }

    fn Pready_range(low: c_int, high: c_int, req: Handle) -> c_int {
        on(comm_of(req), || {
            if low > high {
                return Err((MPI_ERR_ARG, format!("partition range {low}..={high} is empty")));
            }
            ready(req, low..=high)
        })
    }

    fn Pready_list(n: c_int, list: *const c_int, req: Handle) -> c_int {
        on(comm_of(req), || {
            let n = count(n)?;
            if n > 0 && list.is_null() {
                return Err((MPI_ERR_ARG, "NULL partition list".into()));
            }
            // SAFETY: a non-NULL partition list from C holds `n` ints.
            ready(req, (0..n).map(|i| unsafe { *list.add(i) }))
        })
    }

    fn Parrived(req: Handle, partition: c_int, flag: *mut c_int) -> c_int {
        on(comm_of(req), || {
            let arrived = match parts_of(req) {
                // An inactive request has nothing left to arrive.
                Some((_, false)) => true,
                _ => {
                    let parts = active(req, "MPI_Parrived")?;
                    if !matches!(parts.side, Side::Recv) {
                        return Err((MPI_ERR_REQUEST, "MPI_Parrived on a partitioned send".into()));
                    }
                    index(partition, parts.count)?;
                    let mut slot = req;
                    with_requests(&mut slot, 1, |r| clump_mpi::get_status(&r[0]))?.is_some()
                }
            };
            out(flag, arrived as c_int).map_err(|e| (e, "NULL flag".into()))
        })
    }
}
