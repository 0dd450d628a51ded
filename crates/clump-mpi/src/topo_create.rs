//! The topology constructors: communicators that carry a grid, a graph or a distributed
//! graph (`MPI_Cart_create`, `MPI_Cart_sub`, `MPI_Graph_create`, `MPI_Dist_graph_create`
//! and its adjacent form). Ranks are never reordered: clump's placement is already the
//! job's, so rank `i` of the new communicator is rank `i` of the old one.

use crate::coll_alltoall::alltoall;
use crate::comm::Comm;
use crate::error::{Error, ErrorClass, Result};
use crate::group::UNDEFINED;
use crate::topology::{kept, Topology};

/// One edge of `MPI_Dist_graph_create` on the wire: source, destination, weight.
const EDGE: usize = 12;

impl Comm {
    /// The first `nodes` ranks in a new communicator that carries `t`; `None` elsewhere.
    fn with_first(&self, nodes: i32, t: Topology) -> Result<Option<Comm>> {
        self.refuse_inter("a topology constructor")?;
        if nodes > self.size() {
            return Err(Error::new(
                ErrorClass::Arg,
                format!(
                    "the topology needs {nodes} processes, the communicator has {}",
                    self.size()
                ),
            ));
        }
        let color = if self.rank() < nodes { 0 } else { UNDEFINED };
        Ok(self.split(color, self.rank())?.map(|c| c.with_topology(t)))
    }

    /// `MPI_Cart_create`. Collective.
    pub fn cart_create(&self, dims: &[i32], periods: &[bool]) -> Result<Option<Comm>> {
        let t = Topology::cart(dims, periods)?;
        self.with_first(t.nodes().unwrap_or(0), t)
    }

    /// `MPI_Graph_create`. Collective.
    pub fn graph_create(&self, index: &[i32], edges: &[i32]) -> Result<Option<Comm>> {
        let t = Topology::graph(index, edges)?;
        self.with_first(t.nodes().unwrap_or(0), t)
    }

    /// `MPI_Cart_sub`: the sub-grids of the dimensions `keep` selects, one communicator
    /// each. Keeping none gives a zero-dimensional grid, which holds one process: rank 0
    /// (`None` elsewhere), as MPICH and its test suite have it. Collective.
    pub fn cart_sub(&self, keep: &[bool]) -> Result<Option<Comm>> {
        let t = self.topology().ok_or_else(|| {
            Error::new(
                ErrorClass::Topology,
                "MPI_Cart_sub needs a Cartesian communicator",
            )
        })?;
        let grid = t.sub(keep)?;
        if !keep.contains(&true) {
            return self.with_first(1, grid);
        }
        let coords = t.coords(self.rank())?;
        let drop: Vec<bool> = keep.iter().map(|k| !k).collect();
        let dropped = t.sub(&drop)?;
        let color = dropped.rank_of(&kept(&coords, &drop))?;
        Ok(self
            .split(color, self.rank())?
            .map(|c| c.with_topology(grid)))
    }

    /// `MPI_Dist_graph_create_adjacent`: this process's own edges. Collective.
    pub fn dist_graph_adjacent(
        &self,
        sources: (&[i32], &[i32]),
        dests: (&[i32], &[i32]),
        weighted: bool,
    ) -> Result<Comm> {
        self.refuse_inter("MPI_Dist_graph_create_adjacent")?;
        for &r in sources.0.iter().chain(dests.0) {
            self.job_rank(r)?;
        }
        let t = Topology::DistGraph {
            sources: sources.0.to_vec(),
            source_weights: sources.1.to_vec(),
            dests: dests.0.to_vec(),
            dest_weights: dests.1.to_vec(),
            weighted,
        };
        Ok(self.dup()?.with_topology(t))
    }

    /// `MPI_Dist_graph_create`: `edges` (source, destination, weight) given anywhere; each
    /// goes to its two ends, which keep them in the order of the ranks that gave them.
    /// Collective.
    pub fn dist_graph_create(&self, edges: &[(i32, i32, i32)], weighted: bool) -> Result<Comm> {
        self.refuse_inter("MPI_Dist_graph_create")?;
        let n = self.size() as usize;
        let mut out = vec![Vec::new(); n];
        for &(s, d, w) in edges {
            self.job_rank(s)?;
            self.job_rank(d)?;
            let rec: Vec<u8> = [s, d, w].iter().flat_map(|v| v.to_ne_bytes()).collect();
            out[s as usize].extend_from_slice(&rec);
            if d != s {
                out[d as usize].extend_from_slice(&rec);
            }
        }
        let lens: Vec<Vec<u8>> = out
            .iter()
            .map(|b| (b.len() as u64).to_ne_bytes().to_vec())
            .collect();
        let len_views: Vec<&[u8]> = lens.iter().map(Vec::as_slice).collect();
        let got_lens = alltoall(&len_views, &vec![8; n], self)?;
        let want: Vec<usize> = got_lens
            .iter()
            .map(|b| u64::from_ne_bytes(b[..8].try_into().expect("8 bytes")) as usize)
            .collect();
        let views: Vec<&[u8]> = out.iter().map(Vec::as_slice).collect();
        let got = alltoall(&views, &want, self)?;
        let me = self.rank();
        let (mut src, mut sw, mut dst, mut dw) = (vec![], vec![], vec![], vec![]);
        for rec in got.iter().flat_map(|b| b.chunks_exact(EDGE)) {
            let v =
                |i: usize| i32::from_ne_bytes(rec[4 * i..4 * i + 4].try_into().expect("4 bytes"));
            let (s, d, w) = (v(0), v(1), v(2));
            if s == me {
                dst.push(d);
                dw.push(w);
            }
            if d == me {
                src.push(s);
                sw.push(w);
            }
        }
        self.dist_graph_adjacent((&src, &sw), (&dst, &dw), weighted)
    }
}
