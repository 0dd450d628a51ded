//! The collectives from C: each packs its C buffers (`MPI_IN_PLACE` where the standard
//! allows it), runs clump-mpi's collective on packed bytes, and unpacks the result.

use super::alltoall_views::views;
use super::buffers::{counts, is_in_place, pack, unpack};
use super::coll_args::*;
use super::export::mpi_functions;
use super::handles::*;
use super::nbcoll::*;
use super::wired::{count, on, Failure};
use clump_mpi::Datatype;
use std::os::raw::{c_int, c_void};

/// Gather and Gatherv: `rcounts` and `displs` (in elements of `rt`) matter at the root.
#[allow(clippy::too_many_arguments)] // MPI's own argument list
fn gather_into(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rcounts: Vec<usize>,
    displs: Vec<usize>,
    rt: Handle,
    root: c_int,
    comm: &clump_mpi::Comm,
) -> Result<(), Failure> {
    let g = gathered(sbuf, sn, st, rbuf, rcounts, displs, rt, Some(root), comm)?;
    let blocks = clump_mpi::gather(&g.mine, &g.lens, root, comm).map_err(err)?;
    g.out.map_or(Ok(()), |at| at.fill(&blocks))
}

/// Scatter and Scatterv: `scounts` and `displs` (in elements of `st`) matter at the root.
#[allow(clippy::too_many_arguments)] // MPI's own argument list
fn scatter_from(
    sbuf: *const c_void,
    scounts: &[usize],
    displs: &[usize],
    st: Handle,
    rbuf: *mut c_void,
    rn: c_int,
    rt: Handle,
    root: c_int,
    comm: &clump_mpi::Comm,
) -> Result<(), Failure> {
    let a = scattered(sbuf, scounts, displs, st, rbuf, rn, rt, root, comm)?;
    let mine = clump_mpi::scatter(&a.blocks, a.want, root, comm).map_err(err)?;
    a.out.map_or(Ok(()), |o| o.write(&mine))
}

/// Allgather and Allgatherv: rank `i`'s block is `rcounts[i]` elements at `displs[i]`.
#[allow(clippy::too_many_arguments)] // MPI's own argument list
fn allgather_into(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rcounts: Vec<usize>,
    displs: Vec<usize>,
    rt: Handle,
    comm: &clump_mpi::Comm,
) -> Result<(), Failure> {
    let g = gathered(sbuf, sn, st, rbuf, rcounts, displs, rt, None, comm)?;
    let blocks = clump_mpi::allgather(&g.mine, &g.lens, comm).map_err(err)?;
    g.out.map_or(Ok(()), |at| at.fill(&blocks))
}

/// Alltoall and Alltoallv: in the program's buffers where they allow it ([`views`]), else
/// packed; `MPI_IN_PLACE` sends from the receive buffer's layout.
#[allow(clippy::too_many_arguments)] // MPI's own argument list
fn alltoall_into(
    sbuf: *const c_void,
    scounts: &[usize],
    sdispls: &[usize],
    st: Handle,
    rbuf: *mut c_void,
    rcounts: Vec<usize>,
    rdispls: Vec<usize>,
    rt: Handle,
    comm: &clump_mpi::Comm,
) -> Result<(), Failure> {
    if let Some((blocks, mut places)) =
        views(sbuf, scounts, sdispls, st, rbuf, &rcounts, &rdispls, rt)?
    {
        return clump_mpi::alltoall_views(&blocks, &mut places, comm).map_err(err);
    }
    let x = exchanged(sbuf, scounts, sdispls, st, rbuf, &rcounts, &rdispls, rt)?;
    alltoall_blocks(x, comm)
}

/// Alltoall(v,w) of prepared blocks.
fn alltoall_blocks(x: Exchanged, comm: &clump_mpi::Comm) -> Result<(), Failure> {
    let refs: Vec<&[u8]> = x.blocks.iter().map(Vec::as_slice).collect();
    let got = clump_mpi::alltoall(&refs, &x.out.lens()?, comm).map_err(err)?;
    x.out.fill(&got)
}

/// A send buffer to read and a receive buffer to write, apart.
type Separate<'a> = (&'a [u8], &'a mut [u8]);

/// The C buffers of an alltoall themselves, when no packing is needed: contiguous types
/// in two separate buffers (not `MPI_IN_PLACE`), each `n` blocks of its count.
fn contiguous_blocks<'a>(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rn: c_int,
    rt: Handle,
    n: usize,
) -> Result<Option<Separate<'a>>, Failure> {
    if is_in_place(sbuf) {
        return Ok(None);
    }
    let (sdt, rdt) = (datatype(st)?, datatype(rt)?);
    if !sdt.is_contiguous() || !rdt.is_contiguous() {
        return Ok(None);
    }
    // A count is at most `c_int::MAX` and `n` a communicator's size: no overflow.
    let slen = sdt.bytes(count(sn)? * n).map_err(err)?;
    let rlen = rdt.bytes(count(rn)? * n).map_err(err)?;
    Ok(separate_buffers(sbuf, slen, rbuf, rlen))
}

/// `clump_mpi::allreduce` or `scan`.
type ReductionFn = fn(
    &[u8],
    &mut [u8],
    usize,
    &Datatype,
    &clump_mpi::Op,
    &clump_mpi::Comm,
) -> clump_mpi::Result<()>;

/// What the prefix reductions and allreduce share: pack, run `f`, unpack.
fn reduction(
    sbuf: *const c_void,
    rbuf: *mut c_void,
    n: c_int,
    t: Handle,
    o: Handle,
    c: Handle,
    f: ReductionFn,
) -> Result<(), Failure> {
    let (dt, n) = (datatype(t)?, count(n)?);
    let op = op(o, t)?;
    let comm = intracomm(c, "a collective")?;
    if let Some((send, recv)) = unpacked_buffers(sbuf, rbuf, dt.bytes(n).map_err(err)?, &dt) {
        return f(send, recv, n, &dt, &op, &comm).map_err(err);
    }
    let send = reduction_input(sbuf, rbuf, n, &dt)?;
    let mut out = send.clone();
    f(&send, &mut out, n, &dt, &op, &comm).map_err(err)?;
    unpack(&out, rbuf, n, &dt)
}

/// The C buffers of a reduction themselves, when no packing or copy is needed: a
/// contiguous type in two separate buffers (not `MPI_IN_PLACE`, which shares one).
fn unpacked_buffers<'a>(
    sbuf: *const c_void,
    rbuf: *mut c_void,
    len: usize,
    dt: &Datatype,
) -> Option<Separate<'a>> {
    if !dt.is_contiguous() || is_in_place(sbuf) {
        return None;
    }
    separate_buffers(sbuf, len, rbuf, len)
}

/// `slen` bytes at `sbuf` to read and `rlen` at `rbuf` to write, when neither is empty or
/// null and they do not overlap.
fn separate_buffers<'a>(
    sbuf: *const c_void,
    slen: usize,
    rbuf: *mut c_void,
    rlen: usize,
) -> Option<Separate<'a>> {
    let (s, r) = (sbuf as usize, rbuf as usize);
    let apart = s.checked_add(slen)? <= r || r.checked_add(rlen)? <= s;
    if slen == 0 || rlen == 0 || s == 0 || r == 0 || !apart {
        return None;
    }
    // SAFETY: mpi.h's contract: `sbuf` holds `slen` bytes of elements of a contiguous type
    // to read and `rbuf` `rlen` bytes to write, valid for the call; the two ranges do not
    // overlap (checked above).
    unsafe {
        Some((
            std::slice::from_raw_parts(sbuf.cast::<u8>(), slen),
            std::slice::from_raw_parts_mut(rbuf.cast::<u8>(), rlen),
        ))
    }
}

mpi_functions! {
    fn Op_create(f: Option<UserFunction>, commute: c_int, o: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let f = f.ok_or_else(|| (super::abi::MPI_ERR_ARG, "NULL user function".to_string()))?;
            super::export::out(o, put_op(UserFn::Int(f), commute != 0)).map_err(|e| (e, "NULL op".into()))
        })
    }

    fn Op_create_c(f: Option<UserFunctionC>, commute: c_int, o: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let f = f.ok_or_else(|| (super::abi::MPI_ERR_ARG, "NULL user function".to_string()))?;
            super::export::out(o, put_op(UserFn::Large(f), commute != 0)).map_err(|e| (e, "NULL op".into()))
        })
    }

    fn Op_free(o: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            // SAFETY: a non-NULL op pointer from C points at an MPI_Op.
            let h = unsafe { o.as_mut() }.ok_or_else(|| (super::abi::MPI_ERR_ARG, "NULL op".to_string()))?;
            free_op(*h)?;
            *h = OP_NULL;
            Ok(())
        })
    }

    fn Barrier(c: Handle) -> c_int {
        on(c, || {
            if let Some(done) = on_inter(c, || ibarrier(c)) {
                return done;
            }
            clump_mpi::barrier(&intracomm(c, "a collective")?).map_err(err)
        })
    }

    fn Bcast(buf: *mut c_void, n: c_int, t: Handle, root: c_int, c: Handle) -> c_int {
        on(c, || {
            if let Some(done) = on_inter(c, || ibcast(buf, n, t, root, c)) {
                return done;
            }
            let (dt, n, comm) = (datatype(t)?, count(n)?, intracomm(c, "a collective")?);
            let mut data = if comm.rank() == root { pack(buf, n, &dt)? } else { vec![0u8; dt.bytes(n).map_err(err)?] };
            clump_mpi::bcast(&mut data, n, &dt, root, &comm).map_err(err)?;
            if comm.rank() != root {
                unpack(&data, buf, n, &dt)?;
            }
            Ok(())
        })
    }

    fn Reduce(sbuf: *const c_void, rbuf: *mut c_void, n: c_int, t: Handle, o: Handle, root: c_int, c: Handle) -> c_int {
        on(c, || {
            if let Some(done) = on_inter(c, || ireduce(sbuf, rbuf, n, t, o, root, c)) {
                return done;
            }
            let (dt, n, op, comm) = (datatype(t)?, count(n)?, op(o, t)?, intracomm(c, "a collective")?);
            let at_root = comm.rank() == root;
            let send = if at_root { reduction_input(sbuf, rbuf, n, &dt)? } else { pack(sbuf, n, &dt)? };
            let mut out = vec![0u8; send.len()];
            clump_mpi::reduce(&send, &mut out, n, &dt, &op, root, &comm).map_err(err)?;
            if at_root {
                unpack(&out, rbuf, n, &dt)?;
            }
            Ok(())
        })
    }

    fn Allreduce(sbuf: *const c_void, rbuf: *mut c_void, n: c_int, t: Handle, o: Handle, c: Handle) -> c_int {
        on(c, || {
            if let Some(done) = on_inter(c, || iallreduce(sbuf, rbuf, n, t, o, c)) {
                return done;
            }
            reduction(sbuf, rbuf, n, t, o, c, clump_mpi::allreduce)
        })
    }

    fn Scan(sbuf: *const c_void, rbuf: *mut c_void, n: c_int, t: Handle, o: Handle, c: Handle) -> c_int {
        on(c, || reduction(sbuf, rbuf, n, t, o, c, clump_mpi::scan))
    }

    fn Exscan(sbuf: *const c_void, rbuf: *mut c_void, n: c_int, t: Handle, o: Handle, c: Handle) -> c_int {
        on(c, || {
            let (dt, n, comm) = (datatype(t)?, count(n)?, intracomm(c, "a collective")?);
            let send = reduction_input(sbuf, rbuf, n, &dt)?;
            let mut out = send.clone();
            clump_mpi::exscan(&send, &mut out, n, &dt, &op(o, t)?, &comm).map_err(err)?;
            // Rank 0's result is undefined: its buffer keeps what it held.
            if comm.rank() != 0 {
                unpack(&out, rbuf, n, &dt)?;
            }
            Ok(())
        })
    }

    fn Reduce_scatter(sbuf: *const c_void, rbuf: *mut c_void, rcounts: *const c_int, t: Handle, o: Handle, c: Handle) -> c_int {
        on(c, || {
            if let Some(done) = on_inter(c, || ireduce_scatter(sbuf, rbuf, rcounts, t, o, c)) {
                return done;
            }
            let (dt, comm) = (datatype(t)?, intracomm(c, "a collective")?);
            let rcounts = counts(rcounts, comm.size() as usize)?;
            reduce_scatter_into(sbuf, rbuf, &rcounts, &dt, o, t, &comm)
        })
    }

    fn Reduce_scatter_block(sbuf: *const c_void, rbuf: *mut c_void, n: c_int, t: Handle, o: Handle, c: Handle) -> c_int {
        on(c, || {
            if let Some(done) = on_inter(c, || ireduce_scatter_block(sbuf, rbuf, n, t, o, c)) {
                return done;
            }
            let (dt, comm) = (datatype(t)?, intracomm(c, "a collective")?);
            let rcounts = vec![count(n)?; comm.size() as usize];
            reduce_scatter_into(sbuf, rbuf, &rcounts, &dt, o, t, &comm)
        })
    }

    fn Gather(sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle, root: c_int, c: Handle) -> c_int {
        on(c, || {
            if let Some(done) = on_inter(c, || igather(sbuf, sn, st, rbuf, rn, rt, root, c)) {
                return done;
            }
            let comm = intracomm(c, "a collective")?;
            let (rcounts, displs) = at_root(&comm, root, rn)?;
            gather_into(sbuf, sn, st, rbuf, rcounts, displs, rt, root, &comm)
        })
    }

    fn Gatherv(sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rcounts: *const c_int, displs: *const c_int, rt: Handle, root: c_int, c: Handle) -> c_int {
        on(c, || {
            if let Some(done) = on_inter(c, || igatherv_c(sbuf, sn, st, rbuf, rcounts, displs, rt, root, c)) {
                return done;
            }
            let comm = intracomm(c, "a collective")?;
            let (rcounts, displs) = v_form(rcounts, displs, at_root_len(&comm, root))?;
            gather_into(sbuf, sn, st, rbuf, rcounts, displs, rt, root, &comm)
        })
    }

    fn Scatter(sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle, root: c_int, c: Handle) -> c_int {
        on(c, || {
            if let Some(done) = on_inter(c, || iscatter(sbuf, sn, st, rbuf, rn, rt, root, c)) {
                return done;
            }
            let comm = intracomm(c, "a collective")?;
            let (scounts, displs) = at_root(&comm, root, sn)?;
            scatter_from(sbuf, &scounts, &displs, st, rbuf, rn, rt, root, &comm)
        })
    }

    fn Scatterv(sbuf: *const c_void, scounts: *const c_int, displs: *const c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle, root: c_int, c: Handle) -> c_int {
        on(c, || {
            if let Some(done) = on_inter(c, || iscatterv_c(sbuf, scounts, displs, st, rbuf, rn, rt, root, c)) {
                return done;
            }
            let comm = intracomm(c, "a collective")?;
            let (scounts, displs) = v_form(scounts, displs, at_root_len(&comm, root))?;
            scatter_from(sbuf, &scounts, &displs, st, rbuf, rn, rt, root, &comm)
        })
    }

    fn Allgather(sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle, c: Handle) -> c_int {
        on(c, || {
            if let Some(done) = on_inter(c, || iallgather(sbuf, sn, st, rbuf, rn, rt, c)) {
                return done;
            }
            let comm = intracomm(c, "a collective")?;
            let (rcounts, displs) = regular(comm.size() as usize, count(rn)?);
            allgather_into(sbuf, sn, st, rbuf, rcounts, displs, rt, &comm)
        })
    }

    fn Allgatherv(sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rcounts: *const c_int, displs: *const c_int, rt: Handle, c: Handle) -> c_int {
        on(c, || {
            if let Some(done) = on_inter(c, || iallgatherv_c(sbuf, sn, st, rbuf, rcounts, displs, rt, c)) {
                return done;
            }
            let comm = intracomm(c, "a collective")?;
            let (rcounts, displs) = v_form(rcounts, displs, comm.size() as usize)?;
            allgather_into(sbuf, sn, st, rbuf, rcounts, displs, rt, &comm)
        })
    }

    fn Alltoall(sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle, c: Handle) -> c_int {
        on(c, || {
            if let Some(done) = on_inter(c, || ialltoall(sbuf, sn, st, rbuf, rn, rt, c)) {
                return done;
            }
            let comm = intracomm(c, "a collective")?;
            let n = comm.size() as usize;
            if let Some((send, recv)) = contiguous_blocks(sbuf, sn, st, rbuf, rn, rt, n)? {
                return clump_mpi::alltoall_contiguous(send, recv, &comm).map_err(err);
            }
            let (scounts, sdispls) = regular(n, if is_in_place(sbuf) { 0 } else { count(sn)? });
            let (rcounts, rdispls) = regular(n, count(rn)?);
            alltoall_into(sbuf, &scounts, &sdispls, st, rbuf, rcounts, rdispls, rt, &comm)
        })
    }

    fn Alltoallw(sbuf: *const c_void, scounts: *const c_int, sdispls: *const c_int, stypes: *const Handle, rbuf: *mut c_void, rcounts: *const c_int, rdispls: *const c_int, rtypes: *const Handle, c: Handle) -> c_int {
        on(c, || {
            if let Some(done) = on_inter(c, || ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, c)) {
                return done;
            }
            let comm = intracomm(c, "a collective")?;
            let x = exchanged_w(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm.size() as usize)?;
            alltoall_blocks(x, &comm)
        })
    }

    fn Reduce_local(inbuf: *const c_void, inoutbuf: *mut c_void, n: c_int, t: Handle, o: Handle) -> c_int {
        on(COMM_WORLD, || {
            let (dt, n, op) = (datatype(t)?, count(n)?, op(o, t)?);
            let lower = pack(inbuf, n, &dt)?;
            let mut higher = pack(inoutbuf, n, &dt)?;
            op.combine(&dt, n, &lower, &mut higher).map_err(err)?;
            unpack(&higher, inoutbuf, n, &dt)
        })
    }

    fn Op_commutative(o: Handle, commute: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            let commutative = op(o, DATATYPE_NULL)?.is_commutative();
            super::export::out(commute, commutative as c_int).map_err(|e| (e, "NULL commute".into()))
        })
    }

    fn Alltoallv(sbuf: *const c_void, scounts: *const c_int, sdispls: *const c_int, st: Handle, rbuf: *mut c_void, rcounts: *const c_int, rdispls: *const c_int, rt: Handle, c: Handle) -> c_int {
        on(c, || {
            if let Some(done) = on_inter(c, || ialltoallv_c(sbuf, scounts, sdispls, st, rbuf, rcounts, rdispls, rt, c)) {
                return done;
            }
            let comm = intracomm(c, "a collective")?;
            let n = comm.size() as usize;
            let (scounts, sdispls) = v_form(scounts, sdispls, if is_in_place(sbuf) { 0 } else { n })?;
            let (rcounts, rdispls) = v_form(rcounts, rdispls, n)?;
            alltoall_into(sbuf, &scounts, &sdispls, st, rbuf, rcounts, rdispls, rt, &comm)
        })
    }
}

/// Reduce_scatter(_block): rank `i` gets `rcounts[i]` elements of the reduction.
fn reduce_scatter_into(
    sbuf: *const c_void,
    rbuf: *mut c_void,
    rcounts: &[usize],
    dt: &Datatype,
    o: Handle,
    t: Handle,
    comm: &clump_mpi::Comm,
) -> Result<(), Failure> {
    let total = rcounts.iter().sum();
    let send = reduction_input(sbuf, rbuf, total, dt)?;
    let mine = clump_mpi::reduce_scatter(&send, rcounts, dt, &op(o, t)?, comm).map_err(err)?;
    unpack(&mine, rbuf, rcounts[comm.rank() as usize], dt)
}
