//! The collectives from C: each packs its C buffers (`MPI_IN_PLACE` where the standard
//! allows it), runs clump-mpi's collective on packed bytes, and unpacks the result.

use super::buffers::{counts, element, is_in_place, pack, unpack};
use super::export::mpi_functions;
use super::handles::*;
use super::wired::{count, on, Failure};
use clump_mpi::Datatype;
use std::os::raw::{c_int, c_void};

/// Block `i` of a v-form buffer: `counts[i]` elements at `displs[i]` elements.
fn block(buf: *const c_void, displs: &[usize], i: usize, dt: &Datatype) -> *const c_void {
    element(buf, displs[i], dt)
}

/// The lengths in bytes of `counts` elements of `dt`.
fn lens(counts: &[usize], dt: &Datatype) -> Result<Vec<usize>, Failure> {
    counts.iter().map(|&c| dt.bytes(c).map_err(err)).collect()
}

/// A receive buffer of blocks: block `i` is `counts[i]` elements of `dt` at `displs[i]`.
struct Blocks<'a> {
    buf: *mut c_void,
    counts: &'a [usize],
    displs: &'a [usize],
    dt: Datatype,
}

impl Blocks<'_> {
    /// This rank's contribution: its send buffer, or for `MPI_IN_PLACE` its own block.
    fn own(
        &self,
        sbuf: *const c_void,
        sn: c_int,
        st: Handle,
        me: usize,
    ) -> Result<Vec<u8>, Failure> {
        if is_in_place(sbuf) {
            pack(
                block(self.buf, self.displs, me, &self.dt),
                self.counts[me],
                &self.dt,
            )
        } else {
            pack(sbuf, count(sn)?, &datatype(st)?)
        }
    }

    /// Writes each packed block in its place, all but `skip` (a block already there).
    fn fill(&self, blocks: &[Vec<u8>], skip: Option<usize>) -> Result<(), Failure> {
        for (i, b) in blocks.iter().enumerate().filter(|&(i, _)| Some(i) != skip) {
            unpack(
                b,
                block(self.buf, self.displs, i, &self.dt).cast_mut(),
                self.counts[i],
                &self.dt,
            )?;
        }
        Ok(())
    }
}

/// Gather and Gatherv: `rcounts` and `displs` (in elements of `rt`) matter at the root.
#[allow(clippy::too_many_arguments)] // MPI's own argument list
fn gather_into(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rcounts: &[usize],
    displs: &[usize],
    rt: Handle,
    root: c_int,
    c: Handle,
) -> Result<(), Failure> {
    let comm = intracomm(c, "a collective")?;
    let me = comm.rank() as usize;
    if comm.rank() != root {
        let mine = pack(sbuf, count(sn)?, &datatype(st)?)?;
        return clump_mpi::gather(&mine, &[], root, &comm)
            .map(drop)
            .map_err(err);
    }
    let at = Blocks {
        buf: rbuf,
        counts: rcounts,
        displs,
        dt: datatype(rt)?,
    };
    let mine = at.own(sbuf, sn, st, me)?;
    let blocks = clump_mpi::gather(&mine, &lens(rcounts, &at.dt)?, root, &comm).map_err(err)?;
    at.fill(&blocks, is_in_place(sbuf).then_some(me))
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
    c: Handle,
) -> Result<(), Failure> {
    let comm = intracomm(c, "a collective")?;
    let at_root = comm.rank() == root;
    let in_place = at_root && is_in_place(rbuf);
    let blocks = if at_root {
        let sdt = datatype(st)?;
        (0..comm.size() as usize)
            .map(|i| pack(block(sbuf, displs, i, &sdt), scounts[i], &sdt))
            .collect::<Result<Vec<_>, _>>()?
    } else {
        Vec::new()
    };
    let (rdt, rn) = if in_place {
        (datatype(st)?, scounts[comm.rank() as usize])
    } else {
        (datatype(rt)?, count(rn)?)
    };
    let mine =
        clump_mpi::scatter(&blocks, rdt.bytes(rn).map_err(err)?, root, &comm).map_err(err)?;
    if !in_place {
        unpack(&mine, rbuf, rn, &rdt)?;
    }
    Ok(())
}

/// Allgather and Allgatherv: rank `i`'s block is `rcounts[i]` elements at `displs[i]`.
#[allow(clippy::too_many_arguments)] // MPI's own argument list
fn allgather_into(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rcounts: &[usize],
    displs: &[usize],
    rt: Handle,
    comm: &clump_mpi::Comm,
) -> Result<(), Failure> {
    let at = Blocks {
        buf: rbuf,
        counts: rcounts,
        displs,
        dt: datatype(rt)?,
    };
    let mine = at.own(sbuf, sn, st, comm.rank() as usize)?;
    let blocks = clump_mpi::allgather(&mine, &lens(rcounts, &at.dt)?, comm).map_err(err)?;
    at.fill(&blocks, None)
}

/// Alltoall and Alltoallv; `MPI_IN_PLACE` sends from the receive buffer's layout.
#[allow(clippy::too_many_arguments)] // MPI's own argument list
fn alltoall_into(
    sbuf: *const c_void,
    scounts: &[usize],
    sdispls: &[usize],
    st: Handle,
    rbuf: *mut c_void,
    rcounts: &[usize],
    rdispls: &[usize],
    rt: Handle,
    comm: &clump_mpi::Comm,
) -> Result<(), Failure> {
    let rdt = datatype(rt)?;
    let (sbuf, scounts, sdispls, sdt) = if is_in_place(sbuf) {
        (rbuf.cast_const(), rcounts, rdispls, rdt.clone())
    } else {
        (sbuf, scounts, sdispls, datatype(st)?)
    };
    let blocks = (0..comm.size() as usize)
        .map(|j| pack(block(sbuf, sdispls, j, &sdt), scounts[j], &sdt))
        .collect::<Result<Vec<_>, _>>()?;
    let refs: Vec<&[u8]> = blocks.iter().map(Vec::as_slice).collect();
    let got = clump_mpi::alltoall(&refs, &lens(rcounts, &rdt)?, comm).map_err(err)?;
    for (j, b) in got.iter().enumerate() {
        unpack(
            b,
            block(rbuf, rdispls, j, &rdt).cast_mut(),
            rcounts[j],
            &rdt,
        )?;
    }
    Ok(())
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

/// `n` blocks of `per` elements each, back to back: counts and displacements.
fn regular(n: usize, per: usize) -> (Vec<usize>, Vec<usize>) {
    (vec![per; n], (0..n).map(|i| i * per).collect())
}

/// The counts and displacements of a v-form, `n` of each.
fn v_form(
    counts_ptr: *const c_int,
    displs_ptr: *const c_int,
    n: usize,
) -> Result<(Vec<usize>, Vec<usize>), Failure> {
    Ok((counts(counts_ptr, n)?, counts(displs_ptr, n)?))
}

/// The size of `comm` where the arrays of a v-form are read (all ranks, or the root).
fn size_if(comm: &clump_mpi::Comm, read: bool) -> usize {
    if read {
        comm.size() as usize
    } else {
        0
    }
}

/// A reduction's send data: `sbuf`, or the receive buffer for `MPI_IN_PLACE`.
fn reduction_input(
    sbuf: *const c_void,
    rbuf: *const c_void,
    n: usize,
    dt: &Datatype,
) -> Result<Vec<u8>, Failure> {
    pack(if is_in_place(sbuf) { rbuf } else { sbuf }, n, dt)
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
            super::export::out(o, put_op(f, commute != 0)).map_err(|e| (e, "NULL op".into()))
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
        on(c, || clump_mpi::barrier(&intracomm(c, "a collective")?).map_err(err))
    }

    fn Bcast(buf: *mut c_void, n: c_int, t: Handle, root: c_int, c: Handle) -> c_int {
        on(c, || {
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
        on(c, || reduction(sbuf, rbuf, n, t, o, c, clump_mpi::allreduce))
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
            let (dt, comm) = (datatype(t)?, intracomm(c, "a collective")?);
            let rcounts = counts(rcounts, comm.size() as usize)?;
            reduce_scatter_into(sbuf, rbuf, &rcounts, &dt, o, t, &comm)
        })
    }

    fn Reduce_scatter_block(sbuf: *const c_void, rbuf: *mut c_void, n: c_int, t: Handle, o: Handle, c: Handle) -> c_int {
        on(c, || {
            let (dt, comm) = (datatype(t)?, intracomm(c, "a collective")?);
            let rcounts = vec![count(n)?; comm.size() as usize];
            reduce_scatter_into(sbuf, rbuf, &rcounts, &dt, o, t, &comm)
        })
    }

    fn Gather(sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle, root: c_int, c: Handle) -> c_int {
        on(c, || {
            // The receive arguments matter at the root only.
            let comm = intracomm(c, "a collective")?;
            let per = if comm.rank() == root { count(rn)? } else { 0 };
            let (rcounts, displs) = regular(comm.size() as usize, per);
            gather_into(sbuf, sn, st, rbuf, &rcounts, &displs, rt, root, c)
        })
    }

    fn Gatherv(sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rcounts: *const c_int, displs: *const c_int, rt: Handle, root: c_int, c: Handle) -> c_int {
        on(c, || {
            let comm = intracomm(c, "a collective")?;
            let (rcounts, displs) = v_form(rcounts, displs, size_if(&comm, comm.rank() == root))?;
            gather_into(sbuf, sn, st, rbuf, &rcounts, &displs, rt, root, c)
        })
    }

    fn Scatter(sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle, root: c_int, c: Handle) -> c_int {
        on(c, || {
            // The send arguments matter at the root only.
            let comm = intracomm(c, "a collective")?;
            let per = if comm.rank() == root { count(sn)? } else { 0 };
            let (scounts, displs) = regular(comm.size() as usize, per);
            scatter_from(sbuf, &scounts, &displs, st, rbuf, rn, rt, root, c)
        })
    }

    fn Scatterv(sbuf: *const c_void, scounts: *const c_int, displs: *const c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle, root: c_int, c: Handle) -> c_int {
        on(c, || {
            let comm = intracomm(c, "a collective")?;
            let (scounts, displs) = v_form(scounts, displs, size_if(&comm, comm.rank() == root))?;
            scatter_from(sbuf, &scounts, &displs, st, rbuf, rn, rt, root, c)
        })
    }

    fn Allgather(sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle, c: Handle) -> c_int {
        on(c, || {
            let comm = intracomm(c, "a collective")?;
            let (rcounts, displs) = regular(comm.size() as usize, count(rn)?);
            allgather_into(sbuf, sn, st, rbuf, &rcounts, &displs, rt, &comm)
        })
    }

    fn Allgatherv(sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rcounts: *const c_int, displs: *const c_int, rt: Handle, c: Handle) -> c_int {
        on(c, || {
            let comm = intracomm(c, "a collective")?;
            let (rcounts, displs) = v_form(rcounts, displs, comm.size() as usize)?;
            allgather_into(sbuf, sn, st, rbuf, &rcounts, &displs, rt, &comm)
        })
    }

    fn Alltoall(sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle, c: Handle) -> c_int {
        on(c, || {
            let comm = intracomm(c, "a collective")?;
            let n = comm.size() as usize;
            if let Some((send, recv)) = contiguous_blocks(sbuf, sn, st, rbuf, rn, rt, n)? {
                return clump_mpi::alltoall_contiguous(send, recv, &comm).map_err(err);
            }
            let (scounts, sdispls) = regular(n, if is_in_place(sbuf) { 0 } else { count(sn)? });
            let (rcounts, rdispls) = regular(n, count(rn)?);
            alltoall_into(sbuf, &scounts, &sdispls, st, rbuf, &rcounts, &rdispls, rt, &comm)
        })
    }

    fn Alltoallv(sbuf: *const c_void, scounts: *const c_int, sdispls: *const c_int, st: Handle, rbuf: *mut c_void, rcounts: *const c_int, rdispls: *const c_int, rt: Handle, c: Handle) -> c_int {
        on(c, || {
            let comm = intracomm(c, "a collective")?;
            let n = comm.size() as usize;
            let (scounts, sdispls) = v_form(scounts, sdispls, if is_in_place(sbuf) { 0 } else { n })?;
            let (rcounts, rdispls) = v_form(rcounts, rdispls, n)?;
            alltoall_into(sbuf, &scounts, &sdispls, st, rbuf, &rcounts, &rdispls, rt, &comm)
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
