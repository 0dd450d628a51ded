//! The large-count (`_c`) forms whose counts and displacements come in arrays: the arrays
//! are narrowed to the `int`s their `int` form takes (`MPI_ERR_COUNT` for an entry that
//! does not fit), then that form runs. Only the entries the standard says are read are
//! looked at: none of a rooted form's root-side arrays elsewhere, none of the send side
//! of an `MPI_IN_PLACE` exchange. A persistent form's closure owns its narrowed arrays,
//! since each start reads them again.

#![allow(clippy::too_many_arguments)] // MPI's own argument lists

use super::buffers::is_in_place;
use super::coll_args::{at_root_len, peers};
use super::collectives::*;
use super::export::mpi_functions;
use super::handles::*;
use super::large_count::narrow;
use super::nbcoll::*;
use super::nbneighbor::{start as start_neighbor, *};
use super::neighbor::*;
use super::wired::{on, Failure};
use std::os::raw::{c_int, c_void};

type Count = i64;
/// `MPI_Aint`: 64 bits, as `MPI_Count`, on the targets clump supports.
type Aint = isize;

/// `n` entries of a C array of counts or displacements as `int`s.
fn ints(ptr: *const Count, n: usize) -> Result<Vec<c_int>, Failure> {
    if n > 0 && ptr.is_null() {
        return Err((super::abi::MPI_ERR_ARG, "NULL array".into()));
    }
    // SAFETY: a non-NULL array argument from C holds the `n` entries its call reads.
    (0..n).map(|i| narrow(unsafe { *ptr.add(i) })).collect()
}

/// A v-form's counts and displacements, `n` of each.
fn v(counts: *const Count, displs: *const Aint, n: usize) -> Result<[Vec<c_int>; 2], Failure> {
    Ok([ints(counts, n)?, ints(displs.cast(), n)?])
}

/// The blocks of an all-form: one per rank (remote rank on an intercommunicator).
fn all(c: Handle) -> Result<usize, Failure> {
    Ok(peers(&comm(c)?))
}

/// The send side of an exchange: none with `MPI_IN_PLACE`.
fn sent(sbuf: *const c_void, c: Handle) -> Result<usize, Failure> {
    if is_in_place(sbuf) {
        Ok(0)
    } else {
        all(c)
    }
}

/// The root-side arrays of a rooted form: read at the root only.
fn rooted(c: Handle, root: c_int) -> Result<usize, Failure> {
    Ok(at_root_len(&comm(c)?, root))
}

/// Defines each `NAME_c(args) on COMM { let a = narrowing; ... } => call`: a narrowing that
/// fails goes through COMM's error handler; otherwise `call` runs.
macro_rules! narrowed_arrays {
    ($(fn $name:ident($($arg:ident: $ty:ty),*) on $c:ident { $(let $v:pat = $how:expr;)* } => $call:expr;)*) => {
        mpi_functions! {
            $(
                fn $name($($arg: $ty),*) -> c_int {
                    $(let $v = match $how {
                        Ok(v) => v,
                        Err(e) => return on($c, || Err(e)),
                    };)*
                    $call
                }
            )*
        }
    };
}

narrowed_arrays! {
    fn Gatherv_c(sbuf: *const c_void, sn: Count, st: Handle, rbuf: *mut c_void, rcounts: *const Count, displs: *const Aint, rt: Handle, root: c_int, c: Handle) on c {
        let sn = narrow(sn); let [rc, rd] = rooted(c, root).and_then(|n| v(rcounts, displs, n));
    } => PMPI_Gatherv(sbuf, sn, st, rbuf, rc.as_ptr(), rd.as_ptr(), rt, root, c);
    fn Igatherv_c(sbuf: *const c_void, sn: Count, st: Handle, rbuf: *mut c_void, rcounts: *const Count, displs: *const Aint, rt: Handle, root: c_int, c: Handle, req: *mut Handle) on c {
        let sn = narrow(sn); let [rc, rd] = rooted(c, root).and_then(|n| v(rcounts, displs, n));
    } => PMPI_Igatherv(sbuf, sn, st, rbuf, rc.as_ptr(), rd.as_ptr(), rt, root, c, req);
    fn Gatherv_init_c(sbuf: *const c_void, sn: Count, st: Handle, rbuf: *mut c_void, rcounts: *const Count, displs: *const Aint, rt: Handle, root: c_int, c: Handle, _info: Handle, req: *mut Handle) on c {
        let sn = narrow(sn); let [rc, rd] = rooted(c, root).and_then(|n| v(rcounts, displs, n));
    } => on(c, || persistent_out(c, req, move || igatherv_c(sbuf, sn, st, rbuf, rc.as_ptr(), rd.as_ptr(), rt, root, c)));

    fn Scatterv_c(sbuf: *const c_void, scounts: *const Count, displs: *const Aint, st: Handle, rbuf: *mut c_void, rn: Count, rt: Handle, root: c_int, c: Handle) on c {
        let rn = narrow(rn); let [sc, sd] = rooted(c, root).and_then(|n| v(scounts, displs, n));
    } => PMPI_Scatterv(sbuf, sc.as_ptr(), sd.as_ptr(), st, rbuf, rn, rt, root, c);
    fn Iscatterv_c(sbuf: *const c_void, scounts: *const Count, displs: *const Aint, st: Handle, rbuf: *mut c_void, rn: Count, rt: Handle, root: c_int, c: Handle, req: *mut Handle) on c {
        let rn = narrow(rn); let [sc, sd] = rooted(c, root).and_then(|n| v(scounts, displs, n));
    } => PMPI_Iscatterv(sbuf, sc.as_ptr(), sd.as_ptr(), st, rbuf, rn, rt, root, c, req);
    fn Scatterv_init_c(sbuf: *const c_void, scounts: *const Count, displs: *const Aint, st: Handle, rbuf: *mut c_void, rn: Count, rt: Handle, root: c_int, c: Handle, _info: Handle, req: *mut Handle) on c {
        let rn = narrow(rn); let [sc, sd] = rooted(c, root).and_then(|n| v(scounts, displs, n));
    } => on(c, || persistent_out(c, req, move || iscatterv_c(sbuf, sc.as_ptr(), sd.as_ptr(), st, rbuf, rn, rt, root, c)));

    fn Allgatherv_c(sbuf: *const c_void, sn: Count, st: Handle, rbuf: *mut c_void, rcounts: *const Count, displs: *const Aint, rt: Handle, c: Handle) on c {
        let sn = narrow(sn); let [rc, rd] = all(c).and_then(|n| v(rcounts, displs, n));
    } => PMPI_Allgatherv(sbuf, sn, st, rbuf, rc.as_ptr(), rd.as_ptr(), rt, c);
    fn Iallgatherv_c(sbuf: *const c_void, sn: Count, st: Handle, rbuf: *mut c_void, rcounts: *const Count, displs: *const Aint, rt: Handle, c: Handle, req: *mut Handle) on c {
        let sn = narrow(sn); let [rc, rd] = all(c).and_then(|n| v(rcounts, displs, n));
    } => PMPI_Iallgatherv(sbuf, sn, st, rbuf, rc.as_ptr(), rd.as_ptr(), rt, c, req);
    fn Allgatherv_init_c(sbuf: *const c_void, sn: Count, st: Handle, rbuf: *mut c_void, rcounts: *const Count, displs: *const Aint, rt: Handle, c: Handle, _info: Handle, req: *mut Handle) on c {
        let sn = narrow(sn); let [rc, rd] = all(c).and_then(|n| v(rcounts, displs, n));
    } => on(c, || persistent_out(c, req, move || iallgatherv_c(sbuf, sn, st, rbuf, rc.as_ptr(), rd.as_ptr(), rt, c)));

    fn Alltoallv_c(sbuf: *const c_void, scounts: *const Count, sdispls: *const Aint, st: Handle, rbuf: *mut c_void, rcounts: *const Count, rdispls: *const Aint, rt: Handle, c: Handle) on c {
        let [sc, sd] = sent(sbuf, c).and_then(|n| v(scounts, sdispls, n)); let [rc, rd] = all(c).and_then(|n| v(rcounts, rdispls, n));
    } => PMPI_Alltoallv(sbuf, sc.as_ptr(), sd.as_ptr(), st, rbuf, rc.as_ptr(), rd.as_ptr(), rt, c);
    fn Ialltoallv_c(sbuf: *const c_void, scounts: *const Count, sdispls: *const Aint, st: Handle, rbuf: *mut c_void, rcounts: *const Count, rdispls: *const Aint, rt: Handle, c: Handle, req: *mut Handle) on c {
        let [sc, sd] = sent(sbuf, c).and_then(|n| v(scounts, sdispls, n)); let [rc, rd] = all(c).and_then(|n| v(rcounts, rdispls, n));
    } => PMPI_Ialltoallv(sbuf, sc.as_ptr(), sd.as_ptr(), st, rbuf, rc.as_ptr(), rd.as_ptr(), rt, c, req);
    fn Alltoallv_init_c(sbuf: *const c_void, scounts: *const Count, sdispls: *const Aint, st: Handle, rbuf: *mut c_void, rcounts: *const Count, rdispls: *const Aint, rt: Handle, c: Handle, _info: Handle, req: *mut Handle) on c {
        let [sc, sd] = sent(sbuf, c).and_then(|n| v(scounts, sdispls, n)); let [rc, rd] = all(c).and_then(|n| v(rcounts, rdispls, n));
    } => on(c, || persistent_out(c, req, move || ialltoallv_c(sbuf, sc.as_ptr(), sd.as_ptr(), st, rbuf, rc.as_ptr(), rd.as_ptr(), rt, c)));

    fn Alltoallw_c(sbuf: *const c_void, scounts: *const Count, sdispls: *const Aint, stypes: *const Handle, rbuf: *mut c_void, rcounts: *const Count, rdispls: *const Aint, rtypes: *const Handle, c: Handle) on c {
        let [sc, sd] = sent(sbuf, c).and_then(|n| v(scounts, sdispls, n)); let [rc, rd] = all(c).and_then(|n| v(rcounts, rdispls, n));
    } => PMPI_Alltoallw(sbuf, sc.as_ptr(), sd.as_ptr(), stypes, rbuf, rc.as_ptr(), rd.as_ptr(), rtypes, c);
    fn Ialltoallw_c(sbuf: *const c_void, scounts: *const Count, sdispls: *const Aint, stypes: *const Handle, rbuf: *mut c_void, rcounts: *const Count, rdispls: *const Aint, rtypes: *const Handle, c: Handle, req: *mut Handle) on c {
        let [sc, sd] = sent(sbuf, c).and_then(|n| v(scounts, sdispls, n)); let [rc, rd] = all(c).and_then(|n| v(rcounts, rdispls, n));
    } => PMPI_Ialltoallw(sbuf, sc.as_ptr(), sd.as_ptr(), stypes, rbuf, rc.as_ptr(), rd.as_ptr(), rtypes, c, req);
    fn Alltoallw_init_c(sbuf: *const c_void, scounts: *const Count, sdispls: *const Aint, stypes: *const Handle, rbuf: *mut c_void, rcounts: *const Count, rdispls: *const Aint, rtypes: *const Handle, c: Handle, _info: Handle, req: *mut Handle) on c {
        let [sc, sd] = sent(sbuf, c).and_then(|n| v(scounts, sdispls, n)); let [rc, rd] = all(c).and_then(|n| v(rcounts, rdispls, n));
    } => on(c, || persistent_out(c, req, move || ialltoallw(sbuf, sc.as_ptr(), sd.as_ptr(), stypes, rbuf, rc.as_ptr(), rd.as_ptr(), rtypes, c)));

    fn Reduce_scatter_c(sbuf: *const c_void, rbuf: *mut c_void, rcounts: *const Count, t: Handle, o: Handle, c: Handle) on c {
        let rc = comm(c).and_then(|m| ints(rcounts, m.size() as usize));
    } => PMPI_Reduce_scatter(sbuf, rbuf, rc.as_ptr(), t, o, c);
    fn Ireduce_scatter_c(sbuf: *const c_void, rbuf: *mut c_void, rcounts: *const Count, t: Handle, o: Handle, c: Handle, req: *mut Handle) on c {
        let rc = comm(c).and_then(|m| ints(rcounts, m.size() as usize));
    } => PMPI_Ireduce_scatter(sbuf, rbuf, rc.as_ptr(), t, o, c, req);
    fn Reduce_scatter_init_c(sbuf: *const c_void, rbuf: *mut c_void, rcounts: *const Count, t: Handle, o: Handle, c: Handle, _info: Handle, req: *mut Handle) on c {
        let rc = comm(c).and_then(|m| ints(rcounts, m.size() as usize));
    } => on(c, || persistent_out(c, req, move || ireduce_scatter(sbuf, rbuf, rc.as_ptr(), t, o, c)));

    fn Neighbor_allgatherv_c(sbuf: *const c_void, sn: Count, st: Handle, rbuf: *mut c_void, rcounts: *const Count, displs: *const Aint, rt: Handle, c: Handle) on c {
        let sn = narrow(sn); let [rc, rd] = degrees(c).and_then(|(ins, _)| v(rcounts, displs, ins));
    } => PMPI_Neighbor_allgatherv(sbuf, sn, st, rbuf, rc.as_ptr(), rd.as_ptr(), rt, c);
    fn Ineighbor_allgatherv_c(sbuf: *const c_void, sn: Count, st: Handle, rbuf: *mut c_void, rcounts: *const Count, displs: *const Aint, rt: Handle, c: Handle, req: *mut Handle) on c {
        let sn = narrow(sn); let [rc, rd] = degrees(c).and_then(|(ins, _)| v(rcounts, displs, ins));
    } => PMPI_Ineighbor_allgatherv(sbuf, sn, st, rbuf, rc.as_ptr(), rd.as_ptr(), rt, c, req);
    fn Neighbor_allgatherv_init_c(sbuf: *const c_void, sn: Count, st: Handle, rbuf: *mut c_void, rcounts: *const Count, displs: *const Aint, rt: Handle, c: Handle, _info: Handle, req: *mut Handle) on c {
        let sn = narrow(sn); let [rc, rd] = degrees(c).and_then(|(ins, _)| v(rcounts, displs, ins));
    } => on(c, || persistent_out(c, req, move || {
        let (send, recv) = allgatherv_blocks(sbuf, sn, st, rbuf, rc.as_ptr(), rd.as_ptr(), rt, c)?;
        start_neighbor(c, &send, recv)
    }));

    fn Neighbor_alltoallv_c(sbuf: *const c_void, scounts: *const Count, sdispls: *const Aint, st: Handle, rbuf: *mut c_void, rcounts: *const Count, rdispls: *const Aint, rt: Handle, c: Handle) on c {
        let (ins, outs) = degrees(c); let [sc, sd] = v(scounts, sdispls, outs); let [rc, rd] = v(rcounts, rdispls, ins);
    } => PMPI_Neighbor_alltoallv(sbuf, sc.as_ptr(), sd.as_ptr(), st, rbuf, rc.as_ptr(), rd.as_ptr(), rt, c);
    fn Ineighbor_alltoallv_c(sbuf: *const c_void, scounts: *const Count, sdispls: *const Aint, st: Handle, rbuf: *mut c_void, rcounts: *const Count, rdispls: *const Aint, rt: Handle, c: Handle, req: *mut Handle) on c {
        let (ins, outs) = degrees(c); let [sc, sd] = v(scounts, sdispls, outs); let [rc, rd] = v(rcounts, rdispls, ins);
    } => PMPI_Ineighbor_alltoallv(sbuf, sc.as_ptr(), sd.as_ptr(), st, rbuf, rc.as_ptr(), rd.as_ptr(), rt, c, req);
    fn Neighbor_alltoallv_init_c(sbuf: *const c_void, scounts: *const Count, sdispls: *const Aint, st: Handle, rbuf: *mut c_void, rcounts: *const Count, rdispls: *const Aint, rt: Handle, c: Handle, _info: Handle, req: *mut Handle) on c {
        let (ins, outs) = degrees(c); let [sc, sd] = v(scounts, sdispls, outs); let [rc, rd] = v(rcounts, rdispls, ins);
    } => on(c, || persistent_out(c, req, move || {
        let (send, recv) = alltoallv_blocks(sbuf, sc.as_ptr(), sd.as_ptr(), st, rbuf, rc.as_ptr(), rd.as_ptr(), rt, c)?;
        start_neighbor(c, &send, recv)
    }));

    // The `int` form of the w-form takes its displacements as MPI_Aint already.
    fn Neighbor_alltoallw_c(sbuf: *const c_void, scounts: *const Count, sdispls: *const Aint, stypes: *const Handle, rbuf: *mut c_void, rcounts: *const Count, rdispls: *const Aint, rtypes: *const Handle, c: Handle) on c {
        let (ins, outs) = degrees(c); let sc = ints(scounts, outs); let rc = ints(rcounts, ins);
    } => PMPI_Neighbor_alltoallw(sbuf, sc.as_ptr(), sdispls, stypes, rbuf, rc.as_ptr(), rdispls, rtypes, c);
    fn Ineighbor_alltoallw_c(sbuf: *const c_void, scounts: *const Count, sdispls: *const Aint, stypes: *const Handle, rbuf: *mut c_void, rcounts: *const Count, rdispls: *const Aint, rtypes: *const Handle, c: Handle, req: *mut Handle) on c {
        let (ins, outs) = degrees(c); let sc = ints(scounts, outs); let rc = ints(rcounts, ins);
    } => PMPI_Ineighbor_alltoallw(sbuf, sc.as_ptr(), sdispls, stypes, rbuf, rc.as_ptr(), rdispls, rtypes, c, req);
    fn Neighbor_alltoallw_init_c(sbuf: *const c_void, scounts: *const Count, sdispls: *const Aint, stypes: *const Handle, rbuf: *mut c_void, rcounts: *const Count, rdispls: *const Aint, rtypes: *const Handle, c: Handle, _info: Handle, req: *mut Handle) on c {
        let (ins, outs) = degrees(c); let sc = ints(scounts, outs); let rc = ints(rcounts, ins);
    } => on(c, || persistent_out(c, req, move || {
        let (send, recv) = alltoallw_blocks(sbuf, sc.as_ptr(), sdispls, stypes, rbuf, rc.as_ptr(), rdispls, rtypes, c)?;
        start_neighbor(c, &send, recv)
    }));
}
