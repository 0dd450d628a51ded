//! The blocking neighbourhood collectives from C: each names, per neighbour, a block of a
//! C buffer (address, count, datatype); the blocks to send are packed, clump-mpi exchanges
//! them along the communicator's topology, and what came is unpacked into its block.

use super::buffers::{counts, handles, ints, pack, unpack};
use super::export::mpi_functions;
use super::handles::*;
use super::wired::{count, on, Failure};
use clump_mpi::Datatype;
use std::os::raw::{c_int, c_void};

/// `MPI_Aint`.
pub(super) type Aint = isize;

/// One neighbour's block of a C buffer.
pub(super) struct Block {
    pub at: *const c_void,
    pub count: usize,
    pub dt: Datatype,
}

/// How many neighbours `comm` receives from and sends to.
pub(super) fn degrees(c: Handle) -> Result<(usize, usize), Failure> {
    let comm = intracomm(c, "a neighbourhood collective")?;
    let t = super::topology::topology(c)?;
    let (s, d) = t.neighbors(comm.rank()).map_err(err)?;
    Ok((s.len(), d.len()))
}

/// `n` blocks of `counts[i]` elements of `t` at `displs[i]` elements from `buf`.
pub(super) fn v_blocks(
    buf: *const c_void,
    counts: &[usize],
    displs: &[c_int],
    t: Handle,
) -> Result<Vec<Block>, Failure> {
    let dt = datatype(t)?;
    let ext = dt.extent();
    Ok(counts
        .iter()
        .zip(displs)
        .map(|(&count, &d)| Block {
            at: buf.wrapping_byte_offset(d as isize * ext),
            count,
            dt: dt.clone(),
        })
        .collect())
}

/// `n` equal blocks of `per` elements of `t`, back to back from `buf`.
pub(super) fn even_blocks(
    buf: *const c_void,
    per: c_int,
    t: Handle,
    n: usize,
) -> Result<Vec<Block>, Failure> {
    let per = count(per)?;
    let step = c_int::try_from(per).map_err(|_| (2, "count too large".to_string()))?;
    let displs: Vec<c_int> = (0..n as c_int).map(|i| i * step).collect();
    v_blocks(buf, &vec![per; n], &displs, t)
}

/// The same block (`sn` elements of `st` at `sbuf`) for each of `n` destinations.
pub(super) fn same_block(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    n: usize,
) -> Result<Vec<Block>, Failure> {
    let dt = datatype(st)?;
    let count = count(sn)?;
    Ok((0..n)
        .map(|_| Block {
            at: sbuf,
            count,
            dt: dt.clone(),
        })
        .collect())
}

/// `n` blocks of the w-form: each its own count, byte displacement and datatype.
pub(super) fn w_blocks(
    buf: *const c_void,
    counts_ptr: *const c_int,
    displs: *const Aint,
    types: *const Handle,
    n: usize,
) -> Result<Vec<Block>, Failure> {
    let counts = counts(counts_ptr, n)?;
    if n > 0 && displs.is_null() {
        return Err((13, "NULL displacement array".into()));
    }
    let types = handles(types, n)?;
    (0..n)
        .map(|i| {
            // SAFETY: a non-NULL displacement array from C holds `n` entries.
            let d = unsafe { *displs.add(i) };
            Ok(Block {
                at: buf.wrapping_byte_offset(d),
                count: counts[i],
                dt: datatype(types[i])?,
            })
        })
        .collect()
}

/// The packed send blocks and the byte length of each receive block.
pub(super) fn packed(
    send: &[Block],
    recv: &[Block],
) -> Result<(Vec<Vec<u8>>, Vec<usize>), Failure> {
    let packed = send
        .iter()
        .map(|b| pack(b.at, b.count, &b.dt))
        .collect::<Result<Vec<_>, _>>()?;
    let lens = recv
        .iter()
        .map(|b| b.dt.bytes(b.count).map_err(err))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((packed, lens))
}

/// Unpacks what came from each source into its receive block (none from `MPI_PROC_NULL`).
pub(super) fn deliver(recv: &[Block], got: Vec<Option<Vec<u8>>>) -> Result<(), Failure> {
    for (b, data) in recv.iter().zip(got) {
        if let Some(data) = data {
            unpack(&data, b.at.cast_mut(), b.count, &b.dt)?;
        }
    }
    Ok(())
}

/// Sends `send[k]` to destination `k` and unpacks source `k`'s block into `recv[k]`.
fn exchange(c: Handle, send: &[Block], recv: &[Block]) -> Result<(), Failure> {
    let comm = comm(c)?;
    let (packed, lens) = packed(send, recv)?;
    let views: Vec<&[u8]> = packed.iter().map(Vec::as_slice).collect();
    let got = clump_mpi::neighbor_alltoall(&views, &lens, &comm).map_err(err)?;
    deliver(recv, got)
}

/// The send and receive blocks of a neighbourhood collective, one per destination and
/// one per source.
pub(super) type Exchange = (Vec<Block>, Vec<Block>);

pub(super) fn allgather_blocks(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rn: c_int,
    rt: Handle,
    c: Handle,
) -> Result<Exchange, Failure> {
    let (ins, outs) = degrees(c)?;
    Ok((
        same_block(sbuf, sn, st, outs)?,
        even_blocks(rbuf, rn, rt, ins)?,
    ))
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub(super) fn allgatherv_blocks(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rcounts: *const c_int,
    displs: *const c_int,
    rt: Handle,
    c: Handle,
) -> Result<Exchange, Failure> {
    let (ins, outs) = degrees(c)?;
    let recv = v_blocks(rbuf, &counts(rcounts, ins)?, &ints(displs, ins)?, rt)?;
    Ok((same_block(sbuf, sn, st, outs)?, recv))
}

pub(super) fn alltoall_blocks(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rn: c_int,
    rt: Handle,
    c: Handle,
) -> Result<Exchange, Failure> {
    let (ins, outs) = degrees(c)?;
    Ok((
        even_blocks(sbuf, sn, st, outs)?,
        even_blocks(rbuf, rn, rt, ins)?,
    ))
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub(super) fn alltoallv_blocks(
    sbuf: *const c_void,
    scounts: *const c_int,
    sdispls: *const c_int,
    st: Handle,
    rbuf: *mut c_void,
    rcounts: *const c_int,
    rdispls: *const c_int,
    rt: Handle,
    c: Handle,
) -> Result<Exchange, Failure> {
    let (ins, outs) = degrees(c)?;
    let send = v_blocks(sbuf, &counts(scounts, outs)?, &ints(sdispls, outs)?, st)?;
    let recv = v_blocks(rbuf, &counts(rcounts, ins)?, &ints(rdispls, ins)?, rt)?;
    Ok((send, recv))
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub(super) fn alltoallw_blocks(
    sbuf: *const c_void,
    scounts: *const c_int,
    sdispls: *const Aint,
    st: *const Handle,
    rbuf: *mut c_void,
    rcounts: *const c_int,
    rdispls: *const Aint,
    rt: *const Handle,
    c: Handle,
) -> Result<Exchange, Failure> {
    let (ins, outs) = degrees(c)?;
    let send = w_blocks(sbuf, scounts, sdispls, st, outs)?;
    Ok((send, w_blocks(rbuf, rcounts, rdispls, rt, ins)?))
}

/// Defines each blocking neighbourhood collective over the function giving its blocks.
macro_rules! blocking {
    ($($name:ident ($($a:ident: $t:ty),*) => $blocks:ident;)*) => {
        mpi_functions! {
            $(
                fn $name($($a: $t,)* c: Handle) -> c_int {
                    on(c, || {
                        let (send, recv) = $blocks($($a,)* c)?;
                        exchange(c, &send, &recv)
                    })
                }
            )*
        }
    };
}

/// Each neighbourhood collective's name, arguments before the communicator, and blocks
/// (the non-blocking forms in [`super::nbneighbor`] take the same).
macro_rules! neighbourhood_collectives {
    ($m:ident) => {
        $m! {
            Neighbor_allgather (sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle) => allgather_blocks;
            Neighbor_allgatherv (sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rcounts: *const c_int, displs: *const c_int, rt: Handle) => allgatherv_blocks;
            Neighbor_alltoall (sbuf: *const c_void, sn: c_int, st: Handle, rbuf: *mut c_void, rn: c_int, rt: Handle) => alltoall_blocks;
            Neighbor_alltoallv (sbuf: *const c_void, scounts: *const c_int, sdispls: *const c_int, st: Handle, rbuf: *mut c_void, rcounts: *const c_int, rdispls: *const c_int, rt: Handle) => alltoallv_blocks;
            Neighbor_alltoallw (sbuf: *const c_void, scounts: *const c_int, sdispls: *const Aint, st: *const Handle, rbuf: *mut c_void, rcounts: *const c_int, rdispls: *const Aint, rt: *const Handle) => alltoallw_blocks;
        }
    };
}
pub(super) use neighbourhood_collectives;

neighbourhood_collectives!(blocking);
