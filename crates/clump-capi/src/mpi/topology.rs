//! Process topologies from C: the balanced grid of `MPI_Dims_create`, Cartesian
//! communicators (`MPI_Cart_*`) and `MPI_Topo_test`. Graphs are in [`super::graphs`].

use super::buffers::{ints, ints_out};
use super::export::{mpi_functions, out};
use super::handles::*;
use super::wired::{count, on, Failure};
use clump_mpi::Topology;
use std::os::raw::c_int;

/// `MPI_GRAPH`, `MPI_CART`, `MPI_DIST_GRAPH` (mpi.h).
const MPI_CART: c_int = 211;
const MPI_GRAPH: c_int = 212;
const MPI_DIST_GRAPH: c_int = 213;

/// The topology communicator `c` carries; `MPI_ERR_TOPOLOGY` if none.
pub fn topology(c: Handle) -> Result<Topology, Failure> {
    comm(c)?
        .topology()
        .cloned()
        .ok_or_else(|| (11, format!("communicator {c:#x} has no process topology")))
}

/// Writes one int result through an out-pointer argument.
pub fn int_out(ptr: *mut c_int, v: c_int, what: &str) -> Result<(), Failure> {
    out(ptr, v).map_err(|e| (e, format!("NULL {what}")))
}

/// The grid of `comm` (its dimensions and periods).
fn grid(c: Handle) -> Result<(Vec<c_int>, Vec<bool>), Failure> {
    match topology(c)? {
        Topology::Cart { dims, periods } => Ok((dims, periods)),
        _ => Err((11, format!("communicator {c:#x} has no Cartesian topology"))),
    }
}

/// `n` C logicals (ints) as flags.
fn flags(ptr: *const c_int, n: usize) -> Result<Vec<bool>, Failure> {
    Ok(ints(ptr, n)?.into_iter().map(|f| f != 0).collect())
}

/// The first `max` of `values` into the C array `ptr`.
fn some_out(ptr: *mut c_int, values: &[c_int], max: c_int) -> Result<(), Failure> {
    ints_out(ptr, &values[..values.len().min(count(max)?)])
}

/// The dimensions and periods of a Cartesian call's arguments.
fn grid_args(
    ndims: c_int,
    dims: *const c_int,
    periods: *const c_int,
) -> Result<(Vec<c_int>, Vec<bool>), Failure> {
    let n = count(ndims).map_err(|(_, m)| (12, m))?;
    Ok((ints(dims, n)?, flags(periods, n)?))
}

mpi_functions! {
    fn Dims_create(nnodes: c_int, ndims: c_int, dims: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            let mut d = ints(dims, count(ndims)?)?;
            clump_mpi::dims_create(nnodes, &mut d).map_err(err)?;
            ints_out(dims, &d)
        })
    }

    fn Cart_create(c: Handle, ndims: c_int, dims: *const c_int, periods: *const c_int, _reorder: c_int, newcomm: *mut Handle) -> c_int {
        on(c, || {
            let (d, p) = grid_args(ndims, dims, periods)?;
            let made = intracomm(c, "MPI_Cart_create")?.cart_create(&d, &p).map_err(err)?;
            out(newcomm, put_comm(made, c)?).map_err(|e| (e, "NULL comm_cart".into()))
        })
    }

    fn Cart_sub(c: Handle, remain: *const c_int, newcomm: *mut Handle) -> c_int {
        on(c, || {
            let keep = flags(remain, grid(c)?.0.len())?;
            let sub = comm(c)?.cart_sub(&keep).map_err(err)?;
            out(newcomm, put_comm(sub, c)?).map_err(|e| (e, "NULL newcomm".into()))
        })
    }

    fn Cart_map(c: Handle, ndims: c_int, dims: *const c_int, periods: *const c_int, newrank: *mut c_int) -> c_int {
        on(c, || {
            let (d, _) = grid_args(ndims, dims, periods)?;
            let (n, me) = (clump_mpi::grid_size(&d).map_err(err)?, comm(c)?.rank());
            int_out(newrank, if me < n { me } else { clump_mpi::UNDEFINED }, "newrank")
        })
    }

    fn Cartdim_get(c: Handle, ndims: *mut c_int) -> c_int {
        on(c, || int_out(ndims, grid(c)?.0.len() as c_int, "ndims"))
    }

    fn Cart_get(c: Handle, maxdims: c_int, dims: *mut c_int, periods: *mut c_int, coords: *mut c_int) -> c_int {
        on(c, || {
            let (d, p) = grid(c)?;
            let me = topology(c)?.coords(comm(c)?.rank()).map_err(err)?;
            some_out(dims, &d, maxdims)?;
            some_out(periods, &p.iter().map(|&x| x as c_int).collect::<Vec<_>>(), maxdims)?;
            some_out(coords, &me, maxdims)
        })
    }

    fn Cart_rank(c: Handle, coords: *const c_int, rank: *mut c_int) -> c_int {
        on(c, || {
            let t = topology(c)?;
            let at = ints(coords, grid(c)?.0.len())?;
            int_out(rank, t.rank_of(&at).map_err(err)?, "rank")
        })
    }

    fn Cart_coords(c: Handle, rank: c_int, maxdims: c_int, coords: *mut c_int) -> c_int {
        on(c, || some_out(coords, &topology(c)?.coords(rank).map_err(err)?, maxdims))
    }

    fn Cart_shift(c: Handle, direction: c_int, disp: c_int, source: *mut c_int, dest: *mut c_int) -> c_int {
        on(c, || {
            let (s, d) = topology(c)?.shift(comm(c)?.rank(), direction, disp).map_err(err)?;
            int_out(source, s, "rank_source")?;
            int_out(dest, d, "rank_dest")
        })
    }

    fn Topo_test(c: Handle, status: *mut c_int) -> c_int {
        on(c, || {
            let kind = match comm(c)?.topology() {
                Some(Topology::Cart { .. }) => MPI_CART,
                Some(Topology::Graph { .. }) => MPI_GRAPH,
                Some(Topology::DistGraph { .. }) => MPI_DIST_GRAPH,
                None => clump_mpi::UNDEFINED,
            };
            int_out(status, kind, "status")
        })
    }
}
