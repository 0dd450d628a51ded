//! A collective's C arguments as clump-mpi takes them: each rank's input packed
//! (`MPI_IN_PLACE` where the standard allows it), and where its result goes in the
//! program's buffers. The blocking collectives write the result at once, the non-blocking
//! and persistent ones when their request completes: both prepare their arguments here.

use super::buffers::{counts, element, handles, is_in_place, pack, unpack};
use super::handles::*;
use super::wired::{count, Failure};
use clump_mpi::{Comm, Datatype};
use std::os::raw::{c_int, c_void};

/// `n` blocks of `per` elements each, back to back: counts and displacements.
pub fn regular(n: usize, per: usize) -> (Vec<usize>, Vec<usize>) {
    (vec![per; n], (0..n).map(|i| i * per).collect())
}

/// Whether this rank is `root`: on an intercommunicator, the one that passes `MPI_ROOT`.
pub fn is_root(comm: &Comm, root: c_int) -> bool {
    if comm.is_inter() {
        root == clump_mpi::ROOT
    } else {
        comm.rank() == root
    }
}

/// Whether this rank takes part beside the root (`None`: an all-form): on an
/// intercommunicator the root's group-mates pass `MPI_PROC_NULL` and do not.
pub fn sends(comm: &Comm, root: Option<c_int>) -> bool {
    !comm.is_inter() || root.is_none_or(|r| r >= 0)
}

/// The blocks of a collective: one per rank, or per remote rank on an intercommunicator.
pub fn peers(comm: &Comm) -> usize {
    comm.remote_size().unwrap_or(comm.size()) as usize
}

/// The blocks of `per` elements each that only `root` reads (gather's receive side,
/// scatter's send side): elsewhere none, and `per` is not looked at (the standard says it
/// is ignored there).
pub fn at_root(comm: &Comm, root: c_int, per: c_int) -> Result<(Vec<usize>, Vec<usize>), Failure> {
    let here = is_root(comm, root);
    Ok(regular(
        at_root_len(comm, root),
        if here { count(per)? } else { 0 },
    ))
}

/// The counts and displacements of a v-form, `n` of each.
pub fn v_form(
    counts_ptr: *const c_int,
    displs_ptr: *const c_int,
    n: usize,
) -> Result<(Vec<usize>, Vec<usize>), Failure> {
    Ok((counts(counts_ptr, n)?, counts(displs_ptr, n)?))
}

/// How many entries the arrays of a rooted v-form have here: one per peer at the root,
/// none elsewhere (they are not read).
pub fn at_root_len(comm: &Comm, root: c_int) -> usize {
    if is_root(comm, root) {
        peers(comm)
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

/// A receive buffer of blocks: where each rank's block goes; block `skip` is left as it
/// is (already in place).
pub struct Blocks {
    pub places: Vec<Out>,
    pub skip: Option<usize>,
}

impl Blocks {
    /// Block `i` is `counts[i]` elements of `dt` at `displs[i]` elements from `buf`.
    pub fn v_form(buf: *mut c_void, counts: &[usize], displs: &[usize], dt: &Datatype) -> Blocks {
        let places = counts
            .iter()
            .zip(displs)
            .map(|(&n, &d)| Out {
                buf: element(buf, d, dt).cast_mut(),
                n,
                dt: dt.clone(),
            })
            .collect();
        Blocks { places, skip: None }
    }

    /// The packed data of block `i`.
    fn pack(&self, i: usize) -> Result<Vec<u8>, Failure> {
        let at = &self.places[i];
        pack(at.buf, at.n, &at.dt)
    }

    /// This rank's contribution: its send buffer, or for `MPI_IN_PLACE` its own block.
    fn own(
        &self,
        sbuf: *const c_void,
        sn: c_int,
        st: Handle,
        me: usize,
    ) -> Result<Vec<u8>, Failure> {
        if is_in_place(sbuf) {
            self.pack(me)
        } else {
            pack(sbuf, count(sn)?, &datatype(st)?)
        }
    }

    pub fn lens(&self) -> Result<Vec<usize>, Failure> {
        self.places
            .iter()
            .map(|o| o.dt.bytes(o.n).map_err(err))
            .collect()
    }

    /// Writes each packed block in its place.
    pub fn fill(&self, blocks: &[Vec<u8>]) -> Result<(), Failure> {
        let each = self.places.iter().zip(blocks).enumerate();
        for (_, (at, b)) in each.filter(|&(i, _)| Some(i) != self.skip) {
            at.write(b)?;
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
    if root.is_some_and(|r| !is_root(comm, r)) {
        let mine = if sends(comm, root) {
            pack(sbuf, count(sn)?, &datatype(st)?)?
        } else {
            Vec::new()
        };
        return Ok(Gathered {
            mine,
            lens: Vec::new(),
            out: None,
        });
    }
    // An intercommunicator's root contributes nothing.
    if comm.is_inter() && root.is_some() {
        let at = Blocks::v_form(rbuf, &rcounts, &displs, &datatype(rt)?);
        return Ok(Gathered {
            mine: Vec::new(),
            lens: at.lens()?,
            out: Some(at),
        });
    }
    let in_place = root.is_some() && is_in_place(sbuf);
    let mut at = Blocks::v_form(rbuf, &rcounts, &displs, &datatype(rt)?);
    at.skip = in_place.then_some(me as usize);
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
    let at_root = is_root(comm, root);
    let in_place = at_root && is_in_place(rbuf);
    let blocks = if at_root {
        let from = Blocks::v_form(sbuf.cast_mut(), scounts, displs, &datatype(st)?);
        (0..peers(comm))
            .map(|i| from.pack(i))
            .collect::<Result<Vec<_>, _>>()?
    } else {
        Vec::new()
    };
    // On an intercommunicator only the other group receives.
    if comm.is_inter() && !sends(comm, Some(root)) {
        return Ok(Scattered {
            blocks,
            want: 0,
            out: None,
        });
    }
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

/// Alltoall(v): each side's blocks as v-forms of one type.
#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub fn exchanged(
    sbuf: *const c_void,
    scounts: &[usize],
    sdispls: &[usize],
    st: Handle,
    rbuf: *mut c_void,
    rcounts: &[usize],
    rdispls: &[usize],
    rt: Handle,
) -> Result<Exchanged, Failure> {
    let out = Blocks::v_form(rbuf, rcounts, rdispls, &datatype(rt)?);
    let sent = if is_in_place(sbuf) {
        None
    } else {
        Some(Blocks::v_form(
            sbuf.cast_mut(),
            scounts,
            sdispls,
            &datatype(st)?,
        ))
    };
    exchanged_blocks(sent, out)
}

/// Sends the blocks of `sent` (`None`: `MPI_IN_PLACE`, the receive buffer's blocks).
pub fn exchanged_blocks(sent: Option<Blocks>, out: Blocks) -> Result<Exchanged, Failure> {
    let from = sent.as_ref().unwrap_or(&out);
    let blocks = (0..from.places.len())
        .map(|j| from.pack(j))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Exchanged { blocks, out })
}

/// Alltoallw's arguments over `n` ranks: per-rank counts, byte displacements and types
/// on each side (`MPI_IN_PLACE`: sent from the receive side's blocks).
#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub fn exchanged_w(
    sbuf: *const c_void,
    scounts: *const c_int,
    sdispls: *const c_int,
    stypes: *const Handle,
    rbuf: *mut c_void,
    rcounts: *const c_int,
    rdispls: *const c_int,
    rtypes: *const Handle,
    n: usize,
) -> Result<Exchanged, Failure> {
    let out = typed_blocks(rbuf, rcounts, rdispls, rtypes, n)?;
    let sent = if is_in_place(sbuf) {
        None
    } else {
        Some(typed_blocks(sbuf, scounts, sdispls, stypes, n)?)
    };
    exchanged_blocks(sent, out)
}

/// Block `i` is `counts[i]` elements of `types[i]` at `displs[i]` bytes from `buf`.
fn typed_blocks(
    buf: *const c_void,
    counts_ptr: *const c_int,
    displs_ptr: *const c_int,
    types_ptr: *const Handle,
    n: usize,
) -> Result<Blocks, Failure> {
    let (counts, displs) = v_form(counts_ptr, displs_ptr, n)?;
    let types = handles(types_ptr, n)?;
    let places = (0..n)
        .map(|i| {
            Ok(Out {
                buf: buf.wrapping_byte_add(displs[i]).cast_mut(),
                n: counts[i],
                dt: datatype(types[i])?,
            })
        })
        .collect::<Result<Vec<_>, Failure>>()?;
    Ok(Blocks { places, skip: None })
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
