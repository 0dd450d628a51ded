//! CON (paper 001, section 4): connected components of a graph. Each rank owns `vertices`
//! vertices (global id `rank * vertices + i`) and generates the edges from its vertices. The
//! paper's graphs are lattices: each rank owns a square (2-D) or cube (3-D) block of sites,
//! the blocks tiling a grid as near a square or cube as the rank count allows, and each edge
//! between neighbouring sites is present with probability `present`; the edges that cross a
//! block's face are the remote ones. A random graph (`edges` edges a rank, each to another
//! rank's vertex with probability `remote`) is kept beside them. The answer labels every
//! vertex with the smallest vertex id of its component.

use crate::layout::dims3;
use crate::rng::Rng;
use crate::Mismatch;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Graph {
    Random { edges: usize, remote: f64 },
    Lattice { dims: u32, present: f64 },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConParams {
    pub vertices: usize,
    pub graph: Graph,
    pub seed: u64,
}

/// `n` as a product of two factors as near each other as possible, largest first.
fn dims2(n: usize) -> [usize; 2] {
    let b = (1..=n)
        .take_while(|b| b * b <= n)
        .filter(|b| n.is_multiple_of(*b))
        .last();
    let b = b.unwrap_or(1);
    [n / b, b]
}

impl ConParams {
    /// The side of a rank's block of a lattice; an error unless `vertices` is its power.
    pub fn side(&self) -> Result<usize, String> {
        let Graph::Lattice { dims, .. } = self.graph else {
            return Err("not a lattice".into());
        };
        if !(2..=3).contains(&dims) {
            return Err(format!("a lattice has 2 or 3 dimensions, not {dims}"));
        }
        let side = (self.vertices as f64).powf(1.0 / dims as f64).round() as usize;
        if side.pow(dims) != self.vertices {
            return Err(format!(
                "{} vertices a rank is not a {dims}-D block (the nearest is {side}^{dims})",
                self.vertices
            ));
        }
        Ok(side)
    }

    /// `rank`'s edges, as global vertex ids (the first end is always one of the rank's own).
    pub fn generate(&self, rank: u32, ranks: u32) -> Vec<(u64, u64)> {
        match self.graph {
            Graph::Random { edges, remote } => self.random(rank, ranks, edges, remote),
            Graph::Lattice { dims, present } => self.lattice(rank, ranks, dims, present),
        }
    }

    /// Each site's edges towards +x, +y (and +z) that lie inside the lattice, each present
    /// with probability `present`.
    fn lattice(&self, rank: u32, ranks: u32, dims: u32, present: f64) -> Vec<(u64, u64)> {
        let side = self.side().unwrap_or(1);
        let grid = match dims {
            2 => {
                let [a, b] = dims2(ranks as usize);
                [a, b, 1]
            }
            _ => dims3(ranks as usize),
        };
        let blocks = [grid[0] as u64, grid[1] as u64, grid[2] as u64];
        let s = side as u64;
        let sides = [s, s, if dims == 2 { 1 } else { s }];
        let r = rank as u64;
        let me = [
            r % blocks[0],
            r / blocks[0] % blocks[1],
            r / (blocks[0] * blocks[1]),
        ];
        let id = |g: [u64; 3]| -> u64 {
            let b = [0, 1, 2].map(|k| g[k] / sides[k]);
            let l = [0, 1, 2].map(|k| g[k] % sides[k]);
            let owner = b[0] + blocks[0] * (b[1] + blocks[1] * b[2]);
            owner * self.vertices as u64 + l[0] + sides[0] * (l[1] + sides[1] * l[2])
        };
        let mut rng = Rng::for_rank(self.seed, rank);
        let mut out = Vec::new();
        for i in 0..self.vertices as u64 {
            let local = [
                i % sides[0],
                i / sides[0] % sides[1],
                i / (sides[0] * sides[1]),
            ];
            let g = [0, 1, 2].map(|k| me[k] * sides[k] + local[k]);
            for d in 0..dims as usize {
                let mut n = g;
                n[d] += 1;
                let inside = n[d] < blocks[d] * sides[d];
                if rng.unit() < present && inside {
                    out.push((id(g), id(n)));
                }
            }
        }
        out
    }

    fn random(&self, rank: u32, ranks: u32, edges: usize, remote: f64) -> Vec<(u64, u64)> {
        let mut rng = Rng::for_rank(self.seed, rank);
        let n = self.vertices as u64;
        (0..edges)
            .map(|_| {
                let from = rank as u64 * n + rng.below(n);
                let to_rank = if ranks > 1 && rng.unit() < remote {
                    let other = rng.below(ranks as u64 - 1);
                    if other >= rank as u64 {
                        other + 1
                    } else {
                        other
                    }
                } else {
                    rank as u64
                };
                (from, to_rank * n + rng.below(n))
            })
            .collect()
    }

    /// The sequential computation: the label of every vertex of the whole job, by union-find.
    pub fn reference(&self, ranks: u32) -> Vec<u64> {
        let total = self.vertices * ranks as usize;
        let mut uf = UnionFind::new(total);
        for r in 0..ranks {
            for (a, b) in self.generate(r, ranks) {
                uf.union(a as usize, b as usize);
            }
        }
        uf.min_labels()
    }
}

/// Union-find whose roots are always the smallest member, so a root is its component's label.
#[derive(Debug, Clone)]
pub struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    pub fn new(n: usize) -> UnionFind {
        UnionFind {
            parent: (0..n).collect(),
        }
    }

    pub fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    pub fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.parent[hi] = lo;
    }

    pub fn min_labels(&mut self) -> Vec<u64> {
        (0..self.parent.len())
            .map(|v| self.find(v) as u64)
            .collect()
    }
}

/// Compares one rank's labels (for its own vertices) with the reference's.
pub fn check(
    reference: &[u64],
    rank: u32,
    vertices: usize,
    labels: &[u64],
) -> Result<(), Mismatch> {
    let expected = &reference[rank as usize * vertices..(rank as usize + 1) * vertices];
    if labels.len() != expected.len() {
        return Err(Mismatch(format!(
            "rank {rank}: {} labels, expected {}",
            labels.len(),
            expected.len()
        )));
    }
    match expected.iter().zip(labels).position(|(e, g)| e != g) {
        None => Ok(()),
        Some(i) => Err(Mismatch(format!(
            "rank {rank}: vertex {} labelled {}, expected {}",
            rank as usize * vertices + i,
            labels[i],
            expected[i]
        ))),
    }
}

/// The part of a labelling one rank checks: its `labels` (of vertices `first..`) and its
/// `edges`, with `label` giving any vertex's label. Both ends of every edge carry one label,
/// no label exceeds its vertex, and the vertex a label names carries that label itself.
pub fn check_labels(
    first: u64,
    edges: &[(u64, u64)],
    labels: &[u64],
    label: impl Fn(u64) -> u64,
) -> Result<(), Mismatch> {
    for &(a, b) in edges {
        if label(a) != label(b) {
            return Err(Mismatch(format!(
                "edge {a}-{b} joins labels {} and {}",
                label(a),
                label(b)
            )));
        }
    }
    for (i, &l) in labels.iter().enumerate() {
        let v = first + i as u64;
        if l > v || label(l) != l {
            return Err(Mismatch(format!(
                "vertex {v} labelled {l}, which is above it or labelled {}",
                label(l)
            )));
        }
    }
    Ok(())
}

/// Number of components in a labelling (each label is its component's smallest vertex).
pub fn components(labels: &[u64]) -> usize {
    labels
        .iter()
        .enumerate()
        .filter(|&(v, &l)| v as u64 == l)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_find_labels_by_smallest_member() {
        let mut uf = UnionFind::new(6);
        uf.union(4, 2);
        uf.union(5, 4);
        uf.union(3, 1);
        assert_eq!(uf.min_labels(), vec![0, 1, 2, 1, 2, 2]);
        assert_eq!(components(&uf.min_labels()), 3);
    }

    #[test]
    fn edges_start_at_own_vertices_and_reach_others() {
        let p = ConParams {
            vertices: 100,
            graph: Graph::Random {
                edges: 200,
                remote: 0.5,
            },
            seed: 5,
        };
        let edges = p.generate(2, 4);
        assert!(edges
            .iter()
            .all(|&(a, b)| (200..300).contains(&a) && b < 400));
        assert!(edges.iter().any(|&(_, b)| !(200..300).contains(&b)));
        assert_eq!(edges, p.generate(2, 4));
    }

    #[test]
    fn check_finds_a_wrong_label() {
        let p = ConParams {
            vertices: 50,
            graph: Graph::Random {
                edges: 40,
                remote: 0.2,
            },
            seed: 1,
        };
        let r = p.reference(2);
        check(&r, 1, 50, &r[50..]).unwrap();
        let mut bad = r[50..].to_vec();
        bad[3] = 99;
        assert!(check(&r, 1, 50, &bad).unwrap_err().0.contains("vertex 53"));
    }

    #[test]
    fn the_part_check_finds_split_raised_and_dangling_labels() {
        // 0-1-2 and 3-4: labels 0 0 0 3 3, checked as the rank holding 2..5.
        let all = [0u64, 0, 0, 3, 3];
        let edges = [(2, 1), (3, 4)];
        let ok = |labels: &[u64]| {
            let full: Vec<u64> = all[..2].iter().chain(labels).copied().collect();
            check_labels(2, &edges, labels, |v| full[v as usize])
        };
        ok(&[0, 3, 3]).unwrap();
        assert!(ok(&[2, 3, 3]).unwrap_err().0.contains("edge 2-1"));
        assert!(ok(&[0, 4, 4])
            .unwrap_err()
            .0
            .contains("vertex 3 labelled 4"));
        assert!(ok(&[0, 2, 2]).unwrap_err().0.contains("labelled 0"));
    }

    #[test]
    fn lattice_edges_join_neighbouring_sites_and_cross_block_faces() {
        // 4 ranks of 3x3 sites on a 2x2 grid of blocks: a 6x6 lattice, every edge present.
        let p = ConParams {
            vertices: 9,
            graph: Graph::Lattice {
                dims: 2,
                present: 1.0,
            },
            seed: 3,
        };
        assert_eq!(p.side(), Ok(3));
        let all: Vec<(u64, u64)> = (0..4).flat_map(|r| p.generate(r, 4)).collect();
        // 6 rows of 5 edges, both ways.
        assert_eq!(all.len(), 60);
        // Rank 0's site (2, 0) and rank 1's site (0, 0) are neighbours across a face.
        assert!(p.generate(0, 4).contains(&(2, 9)));
        assert_eq!(components(&p.reference(4)), 1);
        let cube = ConParams {
            vertices: 8,
            graph: Graph::Lattice {
                dims: 3,
                present: 0.0,
            },
            seed: 3,
        };
        assert_eq!((cube.side(), cube.generate(0, 2).len()), (Ok(2), 0));
        let bad = ConParams {
            vertices: 10,
            ..cube
        };
        assert!(bad.side().unwrap_err().contains("10 vertices"));
    }
}
