//! Graph and distributed graph topologies from C (`MPI_Graph_*`, `MPI_Dist_graph_*`).
//! Weights come as arrays, or as the ABI's `MPI_UNWEIGHTED` / `MPI_WEIGHTS_EMPTY`, which
//! are small sentinel addresses, never read.

use super::buffers::{ints, ints_out};
use super::export::{mpi_functions, out};
use super::handles::*;
use super::topology::{int_out, topology};
use super::wired::{count, on, Failure};
use clump_mpi::Topology;
use std::os::raw::c_int;

/// `MPI_UNWEIGHTED` and `MPI_WEIGHTS_EMPTY` (mpi.h).
const UNWEIGHTED: usize = 10;
const WEIGHTS_EMPTY: usize = 11;

/// `n` weights from a weight argument, and whether it gave weights.
fn weights(ptr: *const c_int, n: usize) -> Result<(Vec<c_int>, bool), Failure> {
    match ptr as usize {
        UNWEIGHTED => Ok((vec![1; n], false)),
        WEIGHTS_EMPTY if n == 0 => Ok((vec![], true)),
        WEIGHTS_EMPTY => Err((13, format!("MPI_WEIGHTS_EMPTY for {n} edges"))),
        _ => Ok((ints(ptr, n)?, true)),
    }
}

/// Writes weights unless the caller passed `MPI_UNWEIGHTED` (or NULL) for them.
fn weights_out(ptr: *mut c_int, values: &[c_int]) -> Result<(), Failure> {
    if ptr.is_null() || ptr as usize == UNWEIGHTED || ptr as usize == WEIGHTS_EMPTY {
        return Ok(());
    }
    ints_out(ptr, values)
}

fn graph(c: Handle) -> Result<(Vec<c_int>, Vec<c_int>), Failure> {
    match topology(c)? {
        Topology::Graph { index, edges } => Ok((index, edges)),
        _ => Err((11, format!("communicator {c:#x} has no graph topology"))),
    }
}

/// A distributed graph's (sources, source weights, destinations, destination weights,
/// weighted).
type Adjacency = (Vec<c_int>, Vec<c_int>, Vec<c_int>, Vec<c_int>, bool);

fn dist_graph(c: Handle) -> Result<Adjacency, Failure> {
    match topology(c)? {
        Topology::DistGraph {
            sources,
            source_weights,
            dests,
            dest_weights,
            weighted,
        } => Ok((sources, source_weights, dests, dest_weights, weighted)),
        _ => Err((
            11,
            format!("communicator {c:#x} has no distributed graph topology"),
        )),
    }
}

/// The `index` and `edges` arrays of a graph call's arguments.
fn graph_args(
    nnodes: c_int,
    index: *const c_int,
    edges: *const c_int,
) -> Result<(Vec<c_int>, Vec<c_int>), Failure> {
    let index = ints(index, count(nnodes)?)?;
    let nedges = index.last().copied().unwrap_or(0);
    Ok((index, ints(edges, count(nedges)?)?))
}

fn comm_out(ptr: *mut Handle, h: Handle) -> Result<(), Failure> {
    out(ptr, h).map_err(|e| (e, "NULL new communicator".into()))
}

mpi_functions! {
    fn Graph_create(c: Handle, nnodes: c_int, index: *const c_int, edges: *const c_int, _reorder: c_int, newcomm: *mut Handle) -> c_int {
        on(c, || {
            let (index, edges) = graph_args(nnodes, index, edges)?;
            let made = intracomm(c, "MPI_Graph_create")?.graph_create(&index, &edges).map_err(err)?;
            comm_out(newcomm, put_comm(made, c)?)
        })
    }

    fn Graph_map(c: Handle, nnodes: c_int, index: *const c_int, edges: *const c_int, newrank: *mut c_int) -> c_int {
        on(c, || {
            let (index, edges) = graph_args(nnodes, index, edges)?;
            Topology::graph(&index, &edges).map_err(err)?;
            let me = comm(c)?.rank();
            int_out(newrank, if me < nnodes { me } else { clump_mpi::UNDEFINED }, "newrank")
        })
    }

    fn Graphdims_get(c: Handle, nnodes: *mut c_int, nedges: *mut c_int) -> c_int {
        on(c, || {
            let (index, edges) = graph(c)?;
            int_out(nnodes, index.len() as c_int, "nnodes")?;
            int_out(nedges, edges.len() as c_int, "nedges")
        })
    }

    fn Graph_get(c: Handle, maxindex: c_int, maxedges: c_int, index: *mut c_int, edges: *mut c_int) -> c_int {
        on(c, || {
            let (i, e) = graph(c)?;
            ints_out(index, &i[..i.len().min(count(maxindex)?)])?;
            ints_out(edges, &e[..e.len().min(count(maxedges)?)])
        })
    }

    fn Graph_neighbors_count(c: Handle, rank: c_int, n: *mut c_int) -> c_int {
        on(c, || {
            let k = topology(c)?.graph_neighbors(rank).map_err(err)?.len();
            int_out(n, k as c_int, "nneighbors")
        })
    }

    fn Graph_neighbors(c: Handle, rank: c_int, max: c_int, neighbors: *mut c_int) -> c_int {
        on(c, || {
            let t = topology(c)?;
            let all = t.graph_neighbors(rank).map_err(err)?;
            ints_out(neighbors, &all[..all.len().min(count(max)?)])
        })
    }

    fn Dist_graph_create_adjacent(c: Handle, indegree: c_int, sources: *const c_int, sweights: *const c_int,
                                  outdegree: c_int, dests: *const c_int, dweights: *const c_int,
                                  _info: Handle, _reorder: c_int, newcomm: *mut Handle) -> c_int {
        on(c, || {
            let (nin, nout) = (count(indegree)?, count(outdegree)?);
            let (src, dst) = (ints(sources, nin)?, ints(dests, nout)?);
            let ((sw, ws), (dw, wd)) = (weights(sweights, nin)?, weights(dweights, nout)?);
            let made = comm(c)?
                .dist_graph_adjacent((&src, &sw), (&dst, &dw), ws && wd)
                .map_err(err)?;
            comm_out(newcomm, put_comm(Some(made), c)?)
        })
    }

    fn Dist_graph_create(c: Handle, n: c_int, sources: *const c_int, degrees: *const c_int,
                         dests: *const c_int, w: *const c_int, _info: Handle, _reorder: c_int,
                         newcomm: *mut Handle) -> c_int {
        on(c, || {
            let n = count(n)?;
            let (src, deg) = (ints(sources, n)?, super::buffers::counts(degrees, n)?);
            let total = deg.iter().sum();
            let (dst, (wts, weighted)) = (ints(dests, total)?, weights(w, total)?);
            let mut edges = Vec::with_capacity(total);
            let mut at = 0;
            for (&s, &k) in src.iter().zip(&deg) {
                edges.extend((at..at + k).map(|i| (s, dst[i], wts[i])));
                at += k;
            }
            let made = comm(c)?.dist_graph_create(&edges, weighted).map_err(err)?;
            comm_out(newcomm, put_comm(Some(made), c)?)
        })
    }

    fn Dist_graph_neighbors_count(c: Handle, indegree: *mut c_int, outdegree: *mut c_int, weighted: *mut c_int) -> c_int {
        on(c, || {
            let (src, _, dst, _, w) = dist_graph(c)?;
            int_out(indegree, src.len() as c_int, "indegree")?;
            int_out(outdegree, dst.len() as c_int, "outdegree")?;
            int_out(weighted, w as c_int, "weighted")
        })
    }

    fn Dist_graph_neighbors(c: Handle, maxin: c_int, sources: *mut c_int, sweights: *mut c_int,
                            maxout: c_int, dests: *mut c_int, dweights: *mut c_int) -> c_int {
        on(c, || {
            let (src, sw, dst, dw, _) = dist_graph(c)?;
            let (i, o) = (src.len().min(count(maxin)?), dst.len().min(count(maxout)?));
            ints_out(sources, &src[..i])?;
            weights_out(sweights, &sw[..i])?;
            ints_out(dests, &dst[..o])?;
            weights_out(dweights, &dw[..o])
        })
    }
}
