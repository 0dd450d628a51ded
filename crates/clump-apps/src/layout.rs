//! Where each process sits in EM3D's 3-D coordinate space (paper 001): the space is cut into
//! one block per process, a grid as near a cube as the process count allows (4x4x2 for 32).
//! The naive layout numbers the blocks in row-major order, so a host's processes form a slab
//! (4x2x1 for 8 processes a host on 4x4x2); the good one gives each host a block of blocks as
//! near a cube as its process count allows (2x2x2), which keeps more neighbours on the host.

/// Grid positions, x fastest.
pub type Pos = [usize; 3];

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Layout {
    Naive,
    Good,
}

/// `n` as a product of three factors as near each other as possible, largest first.
pub fn dims3(n: usize) -> [usize; 3] {
    let mut best = [n, 1, 1];
    for c in 1..=n {
        if c * c * c > n {
            break;
        }
        if !n.is_multiple_of(c) {
            continue;
        }
        for b in c..=n / c {
            if b * b > n / c {
                break;
            }
            if (n / c).is_multiple_of(b) {
                let a = n / c / b;
                if a - c < best[0] - best[2] {
                    best = [a, b, c];
                }
            }
        }
    }
    best
}

fn row_major(i: usize, d: [usize; 3]) -> Pos {
    [i % d[0], i / d[0] % d[1], i / (d[0] * d[1])]
}

fn index(p: Pos, d: [usize; 3]) -> usize {
    p[0] + d[0] * (p[1] + d[1] * p[2])
}

/// The processes' places in the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    pub dims: [usize; 3],
    /// Per host: the block of grid positions its processes fill (1x1x1 when naive).
    host_block: [usize; 3],
    host_ranks: usize,
    layout: Layout,
}

impl Grid {
    /// The grid of `ranks` processes, `host_ranks` to a host (consecutive ranks share a host).
    pub fn new(ranks: usize, host_ranks: usize, layout: Layout) -> Result<Grid, String> {
        let dims = dims3(ranks);
        let host_block = match layout {
            Layout::Naive => [1, 1, 1],
            Layout::Good => {
                if host_ranks == 0 || !ranks.is_multiple_of(host_ranks) {
                    return Err(format!(
                        "the good layout needs {ranks} processes to be a multiple of the {host_ranks} on a host"
                    ));
                }
                let h = dims3(host_ranks);
                // The host's block must tile the grid: try its orientations.
                let orders = [
                    [0, 1, 2],
                    [0, 2, 1],
                    [1, 0, 2],
                    [1, 2, 0],
                    [2, 0, 1],
                    [2, 1, 0],
                ];
                orders
                    .iter()
                    .map(|o| [h[o[0]], h[o[1]], h[o[2]]])
                    .find(|b| (0..3).all(|k| dims[k].is_multiple_of(b[k])))
                    .ok_or_else(|| {
                        format!("no block of {host_ranks} processes tiles the {dims:?} grid")
                    })?
            }
        };
        Ok(Grid {
            dims,
            host_block,
            host_ranks: host_ranks.max(1),
            layout,
        })
    }

    pub fn position(&self, rank: usize) -> Pos {
        match self.layout {
            Layout::Naive => row_major(rank, self.dims),
            Layout::Good => {
                let b = self.host_block;
                let hosts = [0, 1, 2].map(|k| self.dims[k] / b[k]);
                let host = row_major(rank / self.host_ranks, hosts);
                let inner = row_major(rank % self.host_ranks, b);
                [0, 1, 2].map(|k| host[k] * b[k] + inner[k])
            }
        }
    }

    pub fn rank_at(&self, p: Pos) -> usize {
        match self.layout {
            Layout::Naive => index(p, self.dims),
            Layout::Good => {
                let b = self.host_block;
                let hosts = [0, 1, 2].map(|k| self.dims[k] / b[k]);
                let host = index([0, 1, 2].map(|k| p[k] / b[k]), hosts);
                host * self.host_ranks + index([0, 1, 2].map(|k| p[k] % b[k]), b)
            }
        }
    }

    /// The ranks whose blocks lie within `span` blocks of `rank`'s in every dimension.
    pub fn neighbours(&self, rank: usize, span: usize) -> Vec<usize> {
        let me = self.position(rank);
        let range = |k: usize| me[k].saturating_sub(span)..(me[k] + span + 1).min(self.dims[k]);
        let mut out = Vec::new();
        for z in range(2) {
            for y in range(1) {
                for x in range(0) {
                    if [x, y, z] != me {
                        out.push(self.rank_at([x, y, z]));
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_are_near_cubes() {
        assert_eq!(dims3(32), [4, 4, 2]);
        assert_eq!(dims3(8), [2, 2, 2]);
        assert_eq!(
            (dims3(1), dims3(2), dims3(4)),
            ([1, 1, 1], [2, 1, 1], [2, 2, 1])
        );
        assert_eq!(dims3(7), [7, 1, 1]);
    }

    #[test]
    fn naive_hosts_are_slabs_and_good_hosts_are_cubes() {
        for layout in [Layout::Naive, Layout::Good] {
            let g = Grid::new(32, 8, layout).unwrap();
            for r in 0..32 {
                assert_eq!(g.rank_at(g.position(r)), r, "{layout:?}");
            }
            let host0: Vec<Pos> = (0..8).map(|r| g.position(r)).collect();
            let extent = |k: usize| host0.iter().map(|p| p[k]).max().unwrap() + 1;
            let want = match layout {
                Layout::Naive => [4, 2, 1],
                Layout::Good => [2, 2, 2],
            };
            assert_eq!([extent(0), extent(1), extent(2)], want, "{layout:?}");
        }
        assert_eq!(
            Grid::new(4, 1, Layout::Naive).unwrap().neighbours(0, 1),
            [1, 2, 3]
        );
        assert!(Grid::new(6, 4, Layout::Good).is_err());
    }
}
