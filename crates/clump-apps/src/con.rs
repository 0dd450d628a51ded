//! CON (paper 001, section 4): connected components of a random graph. Each rank owns `vertices`
//! vertices (global id `rank * vertices + i`) and generates `edges` edges from its vertices, each
//! to another rank's vertex with probability `remote`. The answer labels every vertex with the
//! smallest vertex id of its component.

use crate::rng::Rng;
use crate::Mismatch;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConParams {
    pub vertices: usize,
    pub edges: usize,
    pub remote: f64,
    pub seed: u64,
}

impl ConParams {
    /// `rank`'s edges, as global vertex ids (the first end is always one of the rank's own).
    pub fn generate(&self, rank: u32, ranks: u32) -> Vec<(u64, u64)> {
        let mut rng = Rng::for_rank(self.seed, rank);
        let n = self.vertices as u64;
        (0..self.edges)
            .map(|_| {
                let from = rank as u64 * n + rng.below(n);
                let to_rank = if ranks > 1 && rng.unit() < self.remote {
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
            edges: 200,
            remote: 0.5,
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
            edges: 40,
            remote: 0.2,
            seed: 1,
        };
        let r = p.reference(2);
        check(&r, 1, 50, &r[50..]).unwrap();
        let mut bad = r[50..].to_vec();
        bad[3] = 99;
        assert!(check(&r, 1, 50, &bad).unwrap_err().0.contains("vertex 53"));
    }
}
