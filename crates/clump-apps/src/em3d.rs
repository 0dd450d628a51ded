//! EM3D (paper 001, section 4): electromagnetic wave propagation on a bipartite graph of E and H
//! nodes. Each step recomputes every E node from its H neighbours, then every H node from its E
//! neighbours: `value -= Σ weight · neighbour`. Each rank owns `nodes` E and `nodes` H nodes
//! in its block of the 3-D space ([`crate::layout`]); each node has `degree` edges, each with
//! probability `remote` to a node of a process whose block lies within `span` blocks of its
//! own, counting steps along the axes; one aimed outside the space stays local (the paper's runs: 2,500 nodes, degree 20, 40% remote, span 1).

use crate::layout::Grid;
use crate::rng::Rng;
use crate::Mismatch;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Em3dParams {
    pub nodes: usize,
    pub degree: usize,
    /// Fraction of edges that go to another rank (0..=1).
    pub remote: f64,
    /// How many blocks away a remote neighbour's process may be, counting steps along the axes.
    pub span: usize,
    pub steps: usize,
    pub seed: u64,
}

/// A node of the other kind, on some rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeRef {
    pub rank: u32,
    pub index: u32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Edge {
    pub to: NodeRef,
    pub weight: f64,
}

/// One rank's part: its E and H values and, per node, `degree` edges (node i's edges are
/// `edges[i * degree..(i + 1) * degree]`).
#[derive(Debug, Clone, PartialEq)]
pub struct Em3dPart {
    pub e: Vec<f64>,
    pub h: Vec<f64>,
    pub e_edges: Vec<Edge>,
    pub h_edges: Vec<Edge>,
}

impl Em3dParams {
    /// Generates `rank`'s part of the graph for processes placed as `grid` says.
    pub fn generate(&self, rank: u32, grid: &Grid) -> Em3dPart {
        let mut rng = Rng::for_rank(self.seed, rank);
        let e = (0..self.nodes).map(|_| rng.unit()).collect();
        let h = (0..self.nodes).map(|_| rng.unit()).collect();
        let near: Vec<Option<u32>> = grid
            .neighbours(rank as usize, self.span)
            .into_iter()
            .map(|r| r.map(|r| r as u32))
            .collect();
        let e_edges = self.edges(&mut rng, rank, &near);
        let h_edges = self.edges(&mut rng, rank, &near);
        Em3dPart {
            e,
            h,
            e_edges,
            h_edges,
        }
    }

    /// Edges of `nodes` nodes: a remote one aims at one of `near`'s blocks, and stays on
    /// `rank` when that block lies outside the space.
    fn edges(&self, rng: &mut Rng, rank: u32, near: &[Option<u32>]) -> Vec<Edge> {
        // Weights below 1/degree keep the values bounded over many steps.
        let scale = 0.5 / self.degree.max(1) as f64;
        (0..self.nodes * self.degree)
            .map(|_| {
                let to_rank = if !near.is_empty() && rng.unit() < self.remote {
                    near[rng.below(near.len() as u64) as usize].unwrap_or(rank)
                } else {
                    rank
                };
                let index = rng.below(self.nodes as u64) as u32;
                let weight = rng.unit() * scale;
                Edge {
                    to: NodeRef {
                        rank: to_rank,
                        index,
                    },
                    weight,
                }
            })
            .collect()
    }

    /// The sequential computation: every rank's part, `steps` steps, in one process.
    pub fn reference(&self, grid: &Grid) -> Vec<Em3dPart> {
        let ranks = grid.dims.iter().product::<usize>() as u32;
        let mut parts: Vec<Em3dPart> = (0..ranks).map(|r| self.generate(r, grid)).collect();
        for _ in 0..self.steps {
            let h: Vec<Vec<f64>> = parts.iter().map(|p| p.h.clone()).collect();
            for p in parts.iter_mut() {
                update(&mut p.e, &p.e_edges, self.degree, |n| {
                    h[n.rank as usize][n.index as usize]
                });
            }
            let e: Vec<Vec<f64>> = parts.iter().map(|p| p.e.clone()).collect();
            for p in parts.iter_mut() {
                update(&mut p.h, &p.h_edges, self.degree, |n| {
                    e[n.rank as usize][n.index as usize]
                });
            }
        }
        parts
    }
}

/// One half step: `values[i] -= Σ weight · neighbour` over node i's edges, in edge order (the
/// same order everywhere, so distributed runs match the reference exactly).
pub fn update(
    values: &mut [f64],
    edges: &[Edge],
    degree: usize,
    neighbour: impl Fn(NodeRef) -> f64,
) {
    for (i, v) in values.iter_mut().enumerate() {
        let sum: f64 = edges[i * degree..(i + 1) * degree]
            .iter()
            .map(|e| e.weight * neighbour(e.to))
            .sum();
        *v -= sum;
    }
}

/// Compares one rank's final E and H values with the reference's.
pub fn check(expected: &Em3dPart, e: &[f64], h: &[f64]) -> Result<(), Mismatch> {
    crate::compare_f64("E", &expected.e, e)?;
    crate::compare_f64("H", &expected.h, h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Layout;

    fn grid(ranks: usize) -> Grid {
        Grid::new(ranks, 1, Layout::Naive).unwrap()
    }

    fn params(remote: f64) -> Em3dParams {
        Em3dParams {
            nodes: 50,
            degree: 4,
            remote,
            span: 1,
            steps: 3,
            seed: 11,
        }
    }

    #[test]
    fn remote_fraction_is_respected() {
        let p = params(0.3).generate(1, &grid(4));
        let remote = p
            .e_edges
            .iter()
            .chain(&p.h_edges)
            .filter(|e| e.to.rank != 1)
            .count();
        // Rank 1 sits at (1, 0, 0) of a 2x2x1 grid: 2 of its 6 face directions lie inside,
        // so 0.3 x 2/6 of its edges leave it.
        let frac = remote as f64 / (2 * 50 * 4) as f64;
        assert!((0.05..0.15).contains(&frac), "remote fraction {frac}");
        assert!(p
            .e_edges
            .iter()
            .all(|e| e.to.rank < 4 && (e.to.index as usize) < 50));
        assert!(params(0.0)
            .generate(0, &grid(4))
            .e_edges
            .iter()
            .all(|e| e.to.rank == 0));
    }

    #[test]
    fn reference_on_one_rank_matches_a_direct_computation() {
        let prm = params(0.0);
        let mut p = prm.generate(0, &grid(1));
        for _ in 0..prm.steps {
            let h = p.h.clone();
            update(&mut p.e, &p.e_edges, 4, |n| h[n.index as usize]);
            let e = p.e.clone();
            update(&mut p.h, &p.h_edges, 4, |n| e[n.index as usize]);
        }
        let r = prm.reference(&grid(1));
        check(&r[0], &p.e, &p.h).unwrap();
        assert_ne!(
            r[0].e,
            prm.generate(0, &grid(1)).e,
            "steps changed the values"
        );
    }

    #[test]
    fn check_reports_a_wrong_value() {
        let r = params(0.5).reference(&grid(2));
        let mut e = r[1].e.clone();
        e[7] += 1e-3;
        let err = check(&r[1], &e, &r[1].h).unwrap_err();
        assert!(err.0.contains("E[7]"), "{err}");
    }
}
