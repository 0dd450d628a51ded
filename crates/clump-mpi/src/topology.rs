//! Process topologies (MPI 4.1 chapter 8): the Cartesian grid, the general graph and the
//! distributed graph a communicator may carry, and the neighbour lists each defines (what
//! the neighbourhood collectives exchange with). Pure: no communication here.

use crate::error::{Error, ErrorClass, Result};
use crate::matching::PROC_NULL;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Topology {
    /// A grid, ranks in row-major order (the last dimension varies fastest).
    Cart { dims: Vec<i32>, periods: Vec<bool> },
    /// `MPI_Graph_create`'s arrays: node `i`'s neighbours are
    /// `edges[index[i-1]..index[i]]`.
    Graph { index: Vec<i32>, edges: Vec<i32> },
    /// This process's own in- and out-edges, with their weights (ones when unweighted).
    DistGraph {
        sources: Vec<i32>,
        source_weights: Vec<i32>,
        dests: Vec<i32>,
        dest_weights: Vec<i32>,
        weighted: bool,
    },
}

fn bad(class: ErrorClass, why: String) -> Error {
    Error::new(class, why)
}

/// The processes a grid of `dims` holds, checked: every dimension at least one.
pub fn grid_size(dims: &[i32]) -> Result<i32> {
    dims.iter().try_fold(1i32, |n, &d| {
        if d <= 0 {
            return Err(bad(
                ErrorClass::Dims,
                format!("dimension {d} is not positive"),
            ));
        }
        n.checked_mul(d)
            .ok_or_else(|| bad(ErrorClass::Dims, "the grid has too many processes".into()))
    })
}

impl Topology {
    /// A Cartesian topology, checked.
    pub fn cart(dims: &[i32], periods: &[bool]) -> Result<Topology> {
        grid_size(dims)?;
        Ok(Topology::Cart {
            dims: dims.to_vec(),
            periods: periods.to_vec(),
        })
    }

    /// A graph topology of `index.len()` nodes, checked: the index ascends and every edge
    /// names a node.
    pub fn graph(index: &[i32], edges: &[i32]) -> Result<Topology> {
        let nodes = index.len() as i32;
        let mut prev = 0;
        for &i in index {
            if i < prev || i as usize > edges.len() {
                return Err(bad(
                    ErrorClass::Arg,
                    format!(
                        "graph index {i} is out of order or beyond the {} edges",
                        edges.len()
                    ),
                ));
            }
            prev = i;
        }
        if let Some(e) = edges.iter().find(|&&e| e < 0 || e >= nodes) {
            return Err(bad(
                ErrorClass::Topology,
                format!("edge to {e} names no node of {nodes}"),
            ));
        }
        Ok(Topology::Graph {
            index: index.to_vec(),
            edges: edges[..prev as usize].to_vec(),
        })
    }

    /// The processes the topology spans.
    pub fn nodes(&self) -> Option<i32> {
        match self {
            Topology::Cart { dims, .. } => grid_size(dims).ok(),
            Topology::Graph { index, .. } => Some(index.len() as i32),
            Topology::DistGraph { .. } => None,
        }
    }

    fn grid(&self) -> Result<(&[i32], &[bool])> {
        match self {
            Topology::Cart { dims, periods } => Ok((dims, periods)),
            _ => Err(bad(
                ErrorClass::Topology,
                "the communicator has no Cartesian topology".into(),
            )),
        }
    }

    /// `MPI_Cart_coords`.
    pub fn coords(&self, rank: i32) -> Result<Vec<i32>> {
        let (dims, _) = self.grid()?;
        let n = grid_size(dims)?;
        if rank < 0 || rank >= n {
            return Err(bad(
                ErrorClass::Rank,
                format!("rank {rank} is not in a grid of {n}"),
            ));
        }
        let mut rest = rank;
        let mut c = vec![0; dims.len()];
        for (i, &d) in dims.iter().enumerate().rev() {
            c[i] = rest % d;
            rest /= d;
        }
        Ok(c)
    }

    /// `MPI_Cart_rank`: periodic coordinates wrap; others must lie in the grid.
    pub fn rank_of(&self, coords: &[i32]) -> Result<i32> {
        let (dims, periods) = self.grid()?;
        let mut r = 0;
        for ((&c, &d), &p) in coords.iter().zip(dims).zip(periods) {
            let c = if p {
                c.rem_euclid(d)
            } else if (0..d).contains(&c) {
                c
            } else {
                return Err(bad(
                    ErrorClass::Arg,
                    format!("coordinate {c} is outside a dimension of {d}"),
                ));
            };
            r = r * d + c;
        }
        Ok(r)
    }

    /// `MPI_Cart_shift`: the source and destination of a shift by `disp` along `dir`.
    pub fn shift(&self, rank: i32, dir: i32, disp: i32) -> Result<(i32, i32)> {
        let (dims, periods) = self.grid()?;
        let d = usize::try_from(dir)
            .ok()
            .filter(|&d| d < dims.len())
            .ok_or_else(|| {
                bad(
                    ErrorClass::Arg,
                    format!("direction {dir} is not one of {} dimensions", dims.len()),
                )
            })?;
        let me = self.coords(rank)?;
        let to = |step: i32| {
            let mut c = me.clone();
            let at = c[d] as i64 + step as i64;
            if !periods[d] && !(0..dims[d] as i64).contains(&at) {
                return Ok(PROC_NULL);
            }
            c[d] = at.rem_euclid(dims[d] as i64) as i32;
            self.rank_of(&c)
        };
        Ok((to(-disp)?, to(disp)?))
    }

    /// `MPI_Graph_neighbors` of `rank`.
    pub fn graph_neighbors(&self, rank: i32) -> Result<&[i32]> {
        let Topology::Graph { index, edges } = self else {
            return Err(bad(
                ErrorClass::Topology,
                "the communicator has no graph topology".into(),
            ));
        };
        let r = usize::try_from(rank)
            .ok()
            .filter(|&r| r < index.len())
            .ok_or_else(|| {
                bad(
                    ErrorClass::Rank,
                    format!("rank {rank} is not a node of {}", index.len()),
                )
            })?;
        let start = if r == 0 { 0 } else { index[r - 1] as usize };
        Ok(&edges[start..index[r] as usize])
    }

    /// Whom a neighbourhood collective at `rank` receives from and sends to, in block
    /// order. A grid gives each dimension's lower then upper neighbour (`MPI_PROC_NULL`
    /// off the edge of a non-periodic one), a graph its neighbours both ways.
    pub fn neighbors(&self, rank: i32) -> Result<(Vec<i32>, Vec<i32>)> {
        Ok(match self {
            Topology::Cart { dims, .. } => {
                let mut both = Vec::with_capacity(2 * dims.len());
                for d in 0..dims.len() as i32 {
                    let (lo, hi) = self.shift(rank, d, 1)?;
                    both.extend([lo, hi]);
                }
                (both.clone(), both)
            }
            Topology::Graph { .. } => {
                let n = self.graph_neighbors(rank)?.to_vec();
                (n.clone(), n)
            }
            Topology::DistGraph { sources, dests, .. } => (sources.clone(), dests.clone()),
        })
    }

    /// The Cartesian topology of the dimensions `keep` selects.
    pub fn sub(&self, keep: &[bool]) -> Result<Topology> {
        let (dims, periods) = self.grid()?;
        if keep.len() != dims.len() {
            return Err(bad(
                ErrorClass::Arg,
                format!("{} flags for {} dimensions", keep.len(), dims.len()),
            ));
        }
        Topology::cart(&kept(dims, keep), &kept(periods, keep))
    }
}

/// The entries of `v` whose flag in `keep` is set.
pub fn kept<T: Copy>(v: &[T], keep: &[bool]) -> Vec<T> {
    v.iter()
        .zip(keep)
        .filter(|(_, &k)| k)
        .map(|(&x, _)| x)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_coordinates_ranks_and_shifts() {
        let t = Topology::cart(&[2, 3], &[false, true]).unwrap();
        assert_eq!(t.nodes(), Some(6));
        assert_eq!(t.coords(5).unwrap(), [1, 2]);
        assert_eq!(t.rank_of(&[1, 4]).unwrap(), 4); // periodic second dimension wraps
        assert!(t.rank_of(&[2, 0]).is_err());
        assert_eq!(t.shift(0, 0, 1).unwrap(), (PROC_NULL, 3));
        assert_eq!(t.shift(0, 1, 1).unwrap(), (2, 1));
        assert_eq!(t.neighbors(4).unwrap().0, [1, PROC_NULL, 3, 5]);
        assert!(t.shift(0, 2, 1).is_err());
        assert!(Topology::cart(&[2, 0], &[false, false]).is_err());
    }

    #[test]
    fn zero_dimensional_grids_and_sub_grids() {
        let t = Topology::cart(&[], &[]).unwrap();
        assert_eq!((t.nodes(), t.coords(0).unwrap()), (Some(1), vec![]));
        assert_eq!(t.rank_of(&[]).unwrap(), 0);
        let g = Topology::cart(&[2, 3, 4], &[true, false, true]).unwrap();
        assert_eq!(
            g.sub(&[true, false, true]).unwrap(),
            Topology::cart(&[2, 4], &[true, true]).unwrap()
        );
    }

    #[test]
    fn graph_neighbours_and_checks() {
        let t = Topology::graph(&[2, 3, 4], &[1, 2, 0, 0]).unwrap();
        assert_eq!(t.graph_neighbors(0).unwrap(), [1, 2]);
        assert_eq!(t.graph_neighbors(2).unwrap(), [0]);
        assert!(t.graph_neighbors(3).is_err());
        assert!(Topology::graph(&[1], &[3]).is_err());
        assert!(Topology::graph(&[2, 1], &[0, 0]).is_err());
    }
}
