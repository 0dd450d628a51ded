//! A collective's C arguments as clump-mpi takes them: each rank's input packed
//! (`MPI_IN_PLACE` where the standard allows it), and where its result goes in the
//! program's buffers. The blocking collectives write the result at once, the non-blocking
//! and persistent ones when their request completes: both prepare their arguments here.

use super::buffers::{counts, element, is_in_place, pack, unpack};
use super::handles::*;
use super::wired::{count, Failure};
use clump_mpi::{Comm, Datatype};
use std::os::raw::{c_int, c_void};

/// Block `i` of a v-form buffer: `counts[i]` elements at `displs[i]` elements.
fn block(buf: *const c_void, displs: &[usize], i: usize, dt: &Datatype) -> *const c_void {
    element(buf, displs[i], dt)
}

/// The lengths in bytes of `counts` elements of `dt`.
pub fn lens(counts: &[usize], dt: &Datatype) -> Result<Vec<usize>, Failure> {
    counts.iter().map(|&c| dt.bytes(c).map_err(err)).collect()
}

/// `n` blocks of `per` elements each, back to back: counts and displacements.
pub fn regular(n: usize, per: usize) -> (Vec<usize>, Vec<usize>) {
    (vec![per; n], (0..n).map(|i| i * per).collect())
}

/// The counts and displacements of a v-form, `n` of each.
pub fn v_form(
    counts_ptr: *const c_int,
    displs_ptr: *const c_int,
    n: usize,
) -> Result<(Vec<usize>, Vec<usize>), Failure> {
    Ok((counts(counts_ptr, n)?, counts(displs_ptr, n)?))
}

/// The size of `comm` where the arrays of a v-form are read (all ranks, or the root).
pub fn size_if(comm: &Comm, read: bool) -> usize {
    if read {
        comm.size() as usize
    } else {
        0
    }
}

/// One result: `n` elements of `dt` at the program's `buf`.
pub struct Out {
    pub buf: *mut c_void,
    pub n: usize,
    pub dt: Datatype,
}

impl Out {
    pub fn write(&self, data: &[u8]) -> Result<(), Failure> {
        unpack(data, self.buf, self.n, &self.dt)
    }
}

/// A receive buffer of blocks: block `i` is `counts[i]` elements of `dt` at `displs[i]`;
/// block `skip` is left as it is (already in place).
pub struct Blocks {
    pub buf: *mut c_void,
    pub counts: Vec<usize>,
    pub displs: Vec<usize>,
    pub dt: Datatype,
    pub skip: Option<usize>,
}

impl Blocks {
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
                block(self.buf, &self.displs, me, &self.dt),
                self.counts[me],
                &self.dt,
            )
        } else {
            pack(sbuf, count(sn)?, &datatype(st)?)
        }
    }

    pub fn lens(&self) -> Result<Vec<usize>, Failure> {
        lens(&self.counts, &self.dt)
    }

    /// Writes each packed block in its place.
    pub fn fill(&self, blocks: &[Vec<u8>]) -> Result<(), Failure> {
        for (i, b) in blocks
            .iter()
            .enumerate()
            .filter(|&(i, _)| Some(i) != self.skip)
        {
            unpack(
                b,
                block(self.buf, &self.displs, i, &self.dt).cast_mut(),
                self.counts[i],
                &self.dt,
            )?;
        }
        Ok(())
    }
}

/// A gather's or allgather's arguments: this rank's block, every rank's length (where
/// known) and where the blocks go (at the root, or everywhere).
pub struct Gathered {
    pub mine: Vec<u8>,
    pub lens: Vec<usize>,
    pub out: Option<Blocks>,
}

/// Gather(v) at `root` (`None`: allgather(v)); `rcounts` and `displs` (elements of `rt`)
/// matter where the blocks go.
#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub fn gathered(
    sbuf: *const c_void,
    sn: c_int,
    st: Handle,
    rbuf: *mut c_void,
    rcounts: Vec<usize>,
    displs: Vec<usize>,
    rt: Handle,
    root: Option<c_int>,
    comm: &Comm,
) -> Result<Gathered, Failure> {
    let me = comm.rank();
    if root.is_some_and(|r| r != me) {
        let mine = pack(sbuf, count(sn)?, &datatype(st)?)?;
        return Ok(Gathered {
            mine,
            lens: Vec::new(),
            out: None,
        });
    }
    let in_place = root.is_some() && is_in_place(sbuf);
    let at = Blocks {
        buf: rbuf,
        counts: rcounts,
        displs,
        dt: datatype(rt)?,
        skip: in_place.then_some(me as usize),
    };
    let mine = at.own(sbuf, sn, st, me as usize)?;
    Ok(Gathered {
        mine,
        lens: at.lens()?,
        out: Some(at),
    })
}

/// A scatter's arguments: the root's blocks, the length this rank receives, and where it
/// goes (`None` for the root's `MPI_IN_PLACE`).
pub struct Scattered {
    pub blocks: Vec<Vec<u8>>,
    pub want: usize,
    pub out: Option<Out>,
}

/// Scatter(v): `scounts` and `displs` (in elements of `st`) matter at the root.
#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub fn scattered(
    sbuf: *const c_void,
    scounts: &[usize],
    displs: &[usize],
    st: Handle,
    rbuf: *mut c_void,
    rn: c_int,
    rt: Handle,
    root: c_int,
    comm: &Comm,
) -> Result<Scattered, Failure> {
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
    let (dt, n) = if in_place {
        (datatype(st)?, scounts[comm.rank() as usize])
    } else {
        (datatype(rt)?, count(rn)?)
    };
    let want = dt.bytes(n).map_err(err)?;
    let out = (!in_place).then_some(Out { buf: rbuf, n, dt });
    Ok(Scattered { blocks, want, out })
}

/// An alltoall's arguments: a packed block for each rank, and where each rank's goes.
pub struct Exchanged {
    pub blocks: Vec<Vec<u8>>,
    pub out: Blocks,
}

/// Alltoall(v); `MPI_IN_PLACE` sends from the receive buffer's layout.
#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub fn exchanged(
    sbuf: *const c_void,
    scounts: &[usize],
    sdispls: &[usize],
    st: Handle,
    rbuf: *mut c_void,
    rcounts: Vec<usize>,
    rdispls: Vec<usize>,
    rt: Handle,
    comm: &Comm,
) -> Result<Exchanged, Failure> {
    let rdt = datatype(rt)?;
    let (sbuf, scounts, sdispls, sdt) = if is_in_place(sbuf) {
        (rbuf.cast_const(), &rcounts[..], &rdispls[..], rdt.clone())
    } else {
        (sbuf, scounts, sdispls, datatype(st)?)
    };
    let blocks = (0..comm.size() as usize)
        .map(|j| pack(block(sbuf, sdispls, j, &sdt), scounts[j], &sdt))
        .collect::<Result<Vec<_>, _>>()?;
    let out = Blocks {
        buf: rbuf,
        counts: rcounts,
        displs: rdispls,
        dt: rdt,
        skip: None,
    };
    Ok(Exchanged { blocks, out })
}

/// A reduction's send data: `sbuf`, or the receive buffer for `MPI_IN_PLACE`.
pub fn reduction_input(
    sbuf: *const c_void,
    rbuf: *const c_void,
    n: usize,
    dt: &Datatype,
) -> Result<Vec<u8>, Failure> {
    pack(if is_in_place(sbuf) { rbuf } else { sbuf }, n, dt)
}
