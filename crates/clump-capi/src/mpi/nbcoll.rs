//! Non-blocking collectives from C (`MPI_Ibcast` ...) and their persistent forms
//! (`MPI_Bcast_init` ..., begun by `MPI_Start`): the arguments are prepared as for the
//! blocking ones ([`super::coll_args`]), clump-mpi's schedule runs as the program makes
//! progress, and the result is unpacked into the program's buffer when it completes.

use super::buffers::{counts, is_in_place, pack};
use super::coll_args::*;
use super::export::{mpi_functions, out};
use super::handles::*;
use super::wired::{count, on, Failure};
use clump_mpi::{Comm, Done, DoneBlocks, ErrorClass, Request};
use std::os::raw::{c_int, c_void};
use std::rc::Rc;

fn coll(c: Handle) -> Result<Comm, Failure> {
    comm(c)
}

/// On an intercommunicator a blocking collective runs its non-blocking form's schedule to
/// completion (`None` on an intracommunicator, whose blocking forms have their own paths).
pub fn on_inter(
    c: Handle,
    start: impl FnOnce() -> Result<Request, Failure>,
) -> Option<Result<(), Failure>> {
    match comm(c) {
        Ok(comm) if !comm.is_inter() => None,
        Ok(_) => Some(start().and_then(|mut r| clump_mpi::wait(&mut r).map(drop).map_err(err))),
        Err(e) => Some(Err(e)),
    }
}

/// A failure to write the result, as the request's error.
fn failed((_, message): Failure) -> clump_mpi::Error {
    clump_mpi::Error::new(ErrorClass::Buffer, message)
}

/// Writes a single result into `out` (nothing without one).
fn write_to(out: Option<Out>) -> Done {
    Box::new(move |data| out.map_or(Ok(()), |o| o.write(&data).map_err(failed)))
}

/// Writes the blocks of a result into `out` (nothing without one).
fn fill(out: Option<Blocks>) -> DoneBlocks {
    Box::new(move |blocks| out.map_or(Ok(()), |at| at.fill(&blocks).map_err(failed)))
}

pub(super) fn ibarrier(c: Handle) -> Result<Request, Failure> {
    clump_mpi::ibarrier(&coll(c)?).map_err(err)
}

pub(super) fn ibcast(
    buf: *mut c_void,
    n: c_int,
    t: Handle,
    root: c_int,
    c: Handle,
) -> Result<Request, Failure> {
    let (dt, n, comm) = (datatype(t)?, count(n)?, coll(c)?);
    let at_root = is_root(&comm, root);
    // Off the root, those that take part receive (on an intercommunicator, the other group).
    let takes = !at_root && sends(&comm, Some(root));
    let data = if at_root {
        pack(buf, n, &dt)?
    } else if takes {
        vec![0u8; dt.bytes(n).map_err(err)?]
    } else {
        Vec::new()
    };
    let out = takes.then_some(Out { buf, n, dt });
    clump_mpi::ibcast(data, root, &comm, write_to(out)).map_err(err)
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
fn igatherv(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rcounts: Vec<usize>,
    displs: Vec<usize>,
    rt: Handle,
    root: c_int,
    comm: &Comm,
) -> Result<Request, Failure> {
    let g = gathered(sbuf, sn, st, rbuf, rcounts, displs, rt, Some(root), comm)?;
    clump_mpi::igather(g.mine, &g.lens, root, comm, fill(g.out)).map_err(err)
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub(super) fn igather(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rn: c_int,
    rt: Handle,
    root: c_int,
    c: Handle,
) -> Result<Request, Failure> {
    let comm = coll(c)?;
    let (rcounts, displs) = at_root(&comm, root, rn)?;
    igatherv(sbuf, sn, st, rbuf, rcounts, displs, rt, root, &comm)
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub(super) fn igatherv_c(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rcounts: *const c_int,
    displs: *const c_int,
    rt: Handle,
    root: c_int,
    c: Handle,
) -> Result<Request, Failure> {
    let comm = coll(c)?;
    let (rcounts, displs) = v_form(rcounts, displs, at_root_len(&comm, root))?;
    igatherv(sbuf, sn, st, rbuf, rcounts, displs, rt, root, &comm)
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
fn iscatterv(
    sbuf: *const c_void,
    scounts: &[usize],
    displs: &[usize],
    st: Handle,
    rbuf: *mut c_void,
    rn: c_int,
    rt: Handle,
    root: c_int,
    comm: &Comm,
) -> Result<Request, Failure> {
    let a = scattered(sbuf, scounts, displs, st, rbuf, rn, rt, root, comm)?;
    clump_mpi::iscatter(a.blocks, a.want, root, comm, write_to(a.out)).map_err(err)
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub(super) fn iscatter(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rn: c_int,
    rt: Handle,
    root: c_int,
    c: Handle,
) -> Result<Request, Failure> {
    let comm = coll(c)?;
    let (scounts, displs) = at_root(&comm, root, sn)?;
    iscatterv(sbuf, &scounts, &displs, st, rbuf, rn, rt, root, &comm)
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub(super) fn iscatterv_c(
    sbuf: *const c_void,
    scounts: *const c_int,
    displs: *const c_int,
    st: Handle,
    rbuf: *mut c_void,
    rn: c_int,
    rt: Handle,
    root: c_int,
    c: Handle,
) -> Result<Request, Failure> {
    let comm = coll(c)?;
    let (scounts, displs) = v_form(scounts, displs, at_root_len(&comm, root))?;
    iscatterv(sbuf, &scounts, &displs, st, rbuf, rn, rt, root, &comm)
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
fn iallgatherv(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rcounts: Vec<usize>,
    displs: Vec<usize>,
    rt: Handle,
    comm: &Comm,
) -> Result<Request, Failure> {
    let g = gathered(sbuf, sn, st, rbuf, rcounts, displs, rt, None, comm)?;
    clump_mpi::iallgather(g.mine, &g.lens, comm, fill(g.out)).map_err(err)
}

pub(super) fn iallgather(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rn: c_int,
    rt: Handle,
    c: Handle,
) -> Result<Request, Failure> {
    let comm = coll(c)?;
    let (rcounts, displs) = regular(peers(&comm), count(rn)?);
    iallgatherv(sbuf, sn, st, rbuf, rcounts, displs, rt, &comm)
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub(super) fn iallgatherv_c(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rcounts: *const c_int,
    displs: *const c_int,
    rt: Handle,
    c: Handle,
) -> Result<Request, Failure> {
    let comm = coll(c)?;
    let (rcounts, displs) = v_form(rcounts, displs, peers(&comm))?;
    iallgatherv(sbuf, sn, st, rbuf, rcounts, displs, rt, &comm)
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
fn ialltoallv(
    sbuf: *const c_void,
    scounts: &[usize],
    sdispls: &[usize],
    st: Handle,
    rbuf: *mut c_void,
    rcounts: Vec<usize>,
    rdispls: Vec<usize>,
    rt: Handle,
    comm: &Comm,
) -> Result<Request, Failure> {
    let x = exchanged(sbuf, scounts, sdispls, st, rbuf, &rcounts, &rdispls, rt)?;
    ialltoall_blocks(x, comm)
}

/// Ialltoall(v,w) of prepared blocks.
fn ialltoall_blocks(x: Exchanged, comm: &Comm) -> Result<Request, Failure> {
    let lens = x.out.lens()?;
    clump_mpi::ialltoall(x.blocks, &lens, comm, fill(Some(x.out))).map_err(err)
}

pub(super) fn ialltoall(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rn: c_int,
    rt: Handle,
    c: Handle,
) -> Result<Request, Failure> {
    let comm = coll(c)?;
    let n = peers(&comm);
    let (scounts, sdispls) = regular(n, if is_in_place(sbuf) { 0 } else { count(sn)? });
    let (rcounts, rdispls) = regular(n, count(rn)?);
    ialltoallv(
        sbuf, &scounts, &sdispls, st, rbuf, rcounts, rdispls, rt, &comm,
    )
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub(super) fn ialltoallv_c(
    sbuf: *const c_void,
    scounts: *const c_int,
    sdispls: *const c_int,
    st: Handle,
    rbuf: *mut c_void,
    rcounts: *const c_int,
    rdispls: *const c_int,
    rt: Handle,
    c: Handle,
) -> Result<Request, Failure> {
    let comm = coll(c)?;
    let n = peers(&comm);
    let (scounts, sdispls) = v_form(scounts, sdispls, if is_in_place(sbuf) { 0 } else { n })?;
    let (rcounts, rdispls) = v_form(rcounts, rdispls, n)?;
    ialltoallv(
        sbuf, &scounts, &sdispls, st, rbuf, rcounts, rdispls, rt, &comm,
    )
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub(super) fn ialltoallw(
    sbuf: *const c_void,
    scounts: *const c_int,
    sdispls: *const c_int,
    stypes: *const Handle,
    rbuf: *mut c_void,
    rcounts: *const c_int,
    rdispls: *const c_int,
    rtypes: *const Handle,
    c: Handle,
) -> Result<Request, Failure> {
    let comm = coll(c)?;
    let x = exchanged_w(
        sbuf,
        scounts,
        sdispls,
        stypes,
        rbuf,
        rcounts,
        rdispls,
        rtypes,
        peers(&comm),
    )?;
    ialltoall_blocks(x, &comm)
}

/// A reduction's input (`MPI_IN_PLACE`: the receive buffer) and where its result goes.
fn reduction_args(
    sbuf: *const c_void,
    rbuf: *mut c_void,
    n: c_int,
    t: Handle,
) -> Result<(Vec<u8>, Out), Failure> {
    let (dt, n) = (datatype(t)?, count(n)?);
    let send = reduction_input(sbuf, rbuf, n, &dt)?;
    Ok((send, Out { buf: rbuf, n, dt }))
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub(super) fn ireduce(
    sbuf: *const c_void,
    rbuf: *mut c_void,
    n: c_int,
    t: Handle,
    o: Handle,
    root: c_int,
    c: Handle,
) -> Result<Request, Failure> {
    let (comm, op) = (coll(c)?, op(o, t)?);
    // Only the root reads the receive buffer (`MPI_IN_PLACE`) and writes it; an
    // intercommunicator's root contributes nothing, nor do its group-mates.
    let (send, out) = if is_root(&comm, root) && comm.is_inter() {
        let (n, dt) = (count(n)?, datatype(t)?);
        (Vec::new(), Some(Out { buf: rbuf, n, dt }))
    } else if is_root(&comm, root) {
        let (send, out) = reduction_args(sbuf, rbuf, n, t)?;
        (send, Some(out))
    } else if sends(&comm, Some(root)) {
        (pack(sbuf, count(n)?, &datatype(t)?)?, None)
    } else {
        (Vec::new(), None)
    };
    let dt = datatype(t)?;
    clump_mpi::ireduce(send, count(n)?, &dt, &op, root, &comm, write_to(out)).map_err(err)
}

pub(super) fn iallreduce(
    sbuf: *const c_void,
    rbuf: *mut c_void,
    n: c_int,
    t: Handle,
    o: Handle,
    c: Handle,
) -> Result<Request, Failure> {
    let (comm, op) = (coll(c)?, op(o, t)?);
    let (send, out) = reduction_args(sbuf, rbuf, n, t)?;
    let dt = out.dt.clone();
    clump_mpi::iallreduce(send, out.n, &dt, &op, &comm, write_to(Some(out))).map_err(err)
}

/// Iscan (`inclusive`) and Iexscan (rank 0's buffer keeps what it held).
fn iscan_form(
    sbuf: *const c_void,
    rbuf: *mut c_void,
    n: c_int,
    t: Handle,
    o: Handle,
    c: Handle,
    inclusive: bool,
) -> Result<Request, Failure> {
    let (comm, op) = (coll(c)?, op(o, t)?);
    let (send, out) = reduction_args(sbuf, rbuf, n, t)?;
    let dt = out.dt.clone();
    let out = (inclusive || comm.rank() != 0).then_some(out);
    clump_mpi::iscan(send, count(n)?, &dt, &op, &comm, inclusive, write_to(out)).map_err(err)
}

fn iscan(
    sbuf: *const c_void,
    rbuf: *mut c_void,
    n: c_int,
    t: Handle,
    o: Handle,
    c: Handle,
) -> Result<Request, Failure> {
    iscan_form(sbuf, rbuf, n, t, o, c, true)
}

fn iexscan(
    sbuf: *const c_void,
    rbuf: *mut c_void,
    n: c_int,
    t: Handle,
    o: Handle,
    c: Handle,
) -> Result<Request, Failure> {
    iscan_form(sbuf, rbuf, n, t, o, c, false)
}

/// Ireduce_scatter(_block): rank `i` gets `rcounts[i]` elements of the reduction.
fn ireduce_scatter_counts(
    sbuf: *const c_void,
    rbuf: *mut c_void,
    rcounts: Vec<usize>,
    t: Handle,
    o: Handle,
    comm: &Comm,
) -> Result<Request, Failure> {
    let (dt, op) = (datatype(t)?, op(o, t)?);
    let send = reduction_input(sbuf, rbuf, rcounts.iter().sum(), &dt)?;
    let out = Out {
        buf: rbuf,
        n: rcounts[comm.rank() as usize],
        dt: dt.clone(),
    };
    clump_mpi::ireduce_scatter(send, &rcounts, &dt, &op, comm, write_to(Some(out))).map_err(err)
}

pub(super) fn ireduce_scatter(
    sbuf: *const c_void,
    rbuf: *mut c_void,
    rcounts: *const c_int,
    t: Handle,
    o: Handle,
    c: Handle,
) -> Result<Request, Failure> {
    let comm = coll(c)?;
    let rcounts = counts(rcounts, comm.size() as usize)?;
    ireduce_scatter_counts(sbuf, rbuf, rcounts, t, o, &comm)
}

pub(super) fn ireduce_scatter_block(
    sbuf: *const c_void,
    rbuf: *mut c_void,
    n: c_int,
    t: Handle,
    o: Handle,
    c: Handle,
) -> Result<Request, Failure> {
    let comm = coll(c)?;
    let rcounts = vec![count(n)?; comm.size() as usize];
    ireduce_scatter_counts(sbuf, rbuf, rcounts, t, o, &comm)
}

pub(super) fn request_out(req: *mut Handle, r: Request) -> Result<(), Failure> {
    out(req, put_request(r)?).map_err(|e| (e, "NULL request".into()))
}

/// A persistent collective on `c`: each `MPI_Start` begins `start` anew, under the tag
/// taken now (persistent collectives are ordered by their init calls).
pub(super) fn persistent_out(
    c: Handle,
    req: *mut Handle,
    start: impl Fn() -> Result<Request, Failure> + 'static,
) -> Result<(), Failure> {
    let tag = clump_mpi::reserve_tag(&coll(c)?).map_err(err)?;
    let start = move || clump_mpi::with_tag(tag, &start).map_err(err)?;
    out(req, put_persistent(Rc::new(start))?).map_err(|e| (e, "NULL request".into()))
}

/// Exports each collective's non-blocking form (`I...`, with a request) and its persistent
/// form (`..._init`, with an info and a request) over the function that starts it.
macro_rules! nonblocking {
    ($($i:ident $init:ident ($($a:ident: $t:ty),*) => $f:ident;)*) => {
        mpi_functions! {
            $(
                fn $i($($a: $t,)* c: Handle, req: *mut Handle) -> c_int {
                    on(c, || request_out(req, $f($($a,)* c)?))
                }

                fn $init($($a: $t,)* c: Handle, _info: Handle, req: *mut Handle) -> c_int {
                    on(c, || persistent_out(c, req, move || $f($($a,)* c)))
                }
            )*
        }
    };
}

nonblocking! {
    Ibarrier Barrier_init () => ibarrier;
    Ibcast Bcast_init (buf: *mut c_void, n: c_int, t: Handle, root: c_int) => ibcast;
    Igather Gather_init (sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle, root: c_int) => igather;
    Igatherv Gatherv_init (sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rcounts: *const c_int, displs: *const c_int, rt: Handle, root: c_int) => igatherv_c;
    Iscatter Scatter_init (sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle, root: c_int) => iscatter;
    Iscatterv Scatterv_init (sbuf: *const c_void, scounts: *const c_int, displs: *const c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle, root: c_int) => iscatterv_c;
    Iallgather Allgather_init (sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle) => iallgather;
    Iallgatherv Allgatherv_init (sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rcounts: *const c_int, displs: *const c_int, rt: Handle) => iallgatherv_c;
    Ialltoall Alltoall_init (sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle) => ialltoall;
    Ialltoallv Alltoallv_init (sbuf: *const c_void, scounts: *const c_int, sdispls: *const c_int, st: Handle, rbuf: *mut c_void, rcounts: *const c_int, rdispls: *const c_int, rt: Handle) => ialltoallv_c;
    Ialltoallw Alltoallw_init (sbuf: *const c_void, scounts: *const c_int, sdispls: *const c_int, stypes: *const Handle, rbuf: *mut c_void, rcounts: *const c_int, rdispls: *const c_int, rtypes: *const Handle) => ialltoallw;
    Ireduce Reduce_init (sbuf: *const c_void, rbuf: *mut c_void, n: c_int, t: Handle, o: Handle, root: c_int) => ireduce;
    Iallreduce Allreduce_init (sbuf: *const c_void, rbuf: *mut c_void, n: c_int, t: Handle, o: Handle) => iallreduce;
    Iscan Scan_init (sbuf: *const c_void, rbuf: *mut c_void, n: c_int, t: Handle, o: Handle) => iscan;
    Iexscan Exscan_init (sbuf: *const c_void, rbuf: *mut c_void, n: c_int, t: Handle, o: Handle) => iexscan;
    Ireduce_scatter Reduce_scatter_init (sbuf: *const c_void, rbuf: *mut c_void, rcounts: *const c_int, t: Handle, o: Handle) => ireduce_scatter;
    Ireduce_scatter_block Reduce_scatter_block_init (sbuf: *const c_void, rbuf: *mut c_void, n: c_int, t: Handle, o: Handle) => ireduce_scatter_block;
}
