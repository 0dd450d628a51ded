//! How a run checks its result. The full check recomputes the whole problem sequentially on
//! every rank, P times the work; the checks that scale have each rank check its own part,
//! against a reference computed independently of the run's communication (distributed), or at
//! a stated sample. `auto` takes the full check while the problem is small.

use crate::run::AppResult;
use clump_apps::fft::Complex;
use clump_apps::rng::Rng;
use clump_apps::Mismatch;
use clump_gas::{Gas, ReduceOp};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Check {
    /// Full while the whole problem has at most [`FULL_LIMIT`] elements, else the one that
    /// scales.
    Auto,
    /// Every rank recomputes the whole problem sequentially.
    Full,
    /// Every rank checks its own part only.
    Part,
}

/// Elements (keys, edges, array values) up to which `auto` checks in full.
pub const FULL_LIMIT: usize = 1 << 20;

impl Check {
    pub fn full(self, elements: usize) -> bool {
        match self {
            Check::Auto => elements <= FULL_LIMIT,
            Check::Full => true,
            Check::Part => false,
        }
    }
}

/// Planes and points per plane a rank samples of its FFT output. A rank whose values are wrong
/// in a fraction f of each plane passes with probability (1 - f)^16 per plane (f = 10%: 19%,
/// both planes: 3.4%); wrong values anywhere in the job also show in the energy (Parseval),
/// which every rank checks over the whole output.
pub const FFT_PLANES: usize = 2;
pub const FFT_POINTS: usize = 16;

/// Checks rank `me`'s FFT output `got` (its lines y, `[y][x][z]`) against values computed from
/// the definition at a sample, and the whole output's energy against the input's.
pub fn fft_sampled(
    gas: &mut Gas,
    seed: u64,
    n: usize,
    got: &[Complex],
) -> AppResult<Result<(), Mismatch>> {
    let (me, size) = (gas.rank() as usize, gas.size() as usize);
    let planes = n / size;
    let x0 = me * planes;
    let mut sums = [
        clump_apps::fft::energy(got.iter().copied()),
        clump_apps::fft::energy(
            (0..planes * n * n)
                .map(|i| clump_apps::fft::input(seed, n, x0 + i / (n * n), (i / n) % n, i % n)),
        ),
    ];
    gas.all_reduce(&mut sums, ReduceOp::Sum)?;
    let volume = (n * n * n) as f64;
    if (sums[0] - volume * sums[1]).abs() > 1e-9 * volume * sums[1].max(1.0) {
        return Ok(Err(Mismatch(format!(
            "the output's energy {} is not n^3 times the input's {}",
            sums[0], sums[1]
        ))));
    }
    let mut rng = Rng::for_rank(seed ^ 0x5eed, me as u32);
    for _ in 0..FFT_PLANES {
        let kz = rng.below(n as u64) as usize;
        let at: Vec<(usize, usize)> = (0..FFT_POINTS)
            .map(|_| {
                (
                    rng.below(n as u64) as usize,
                    rng.below(planes as u64) as usize,
                )
            })
            .collect();
        let points: Vec<(usize, usize)> = at.iter().map(|&(kx, yl)| (kx, x0 + yl)).collect();
        let expected = clump_apps::fft::direct_points(seed, n, kz, &points);
        let sampled: Vec<Complex> = at
            .iter()
            .map(|&(kx, yl)| got[(yl * n + kx) * n + kz])
            .collect();
        // A direct sum of n³ terms rounds more than the FFT: allow for it.
        let tol = 1e-10 * volume;
        let far = expected
            .iter()
            .zip(&sampled)
            .position(|(e, g)| !((e.re - g.re).abs() <= tol && (e.im - g.im).abs() <= tol));
        if let Some(i) = far {
            let (kx, yl) = at[i];
            return Ok(Err(Mismatch(format!(
                "value at x = {kx}, y = {}, z = {kz} is {:?}, expected {:?}",
                x0 + yl,
                sampled[i],
                expected[i]
            ))));
        }
    }
    Ok(Ok(()))
}

/// The check that scales for the sorts: each rank checks its keys are in order; their first
/// and last keys, counts and fingerprints, gathered, say the parts follow each other and hold
/// the input's keys.
pub fn sorted_part(gas: &mut Gas, input: &[u64], part: &[u64]) -> AppResult<Result<(), Mismatch>> {
    let summaries = gas.all_gather(&clump_apps::sort::summary(input, part))?;
    Ok(clump_apps::sort::check_distributed(
        gas.rank() as usize,
        part,
        &summaries,
    ))
}

/// The check that scales for CON, on rank `me`'s `labels` (vertices `me * n ..`) and its
/// `edges`: both ends of every edge carry one label, no label exceeds its vertex, and the
/// vertex a label names carries that label itself. The labels of other ranks' vertices come
/// by two all-to-all exchanges, apart from the run's gets and compare-and-swaps. A correct
/// labelling passes; any other passes only if it labels two components with one vertex of
/// one of them, a fault this check does not see (the full check does).
pub fn labels_part(
    gas: &mut Gas,
    n: usize,
    edges: &[(u64, u64)],
    labels: &[u64],
) -> AppResult<Result<(), Mismatch>> {
    let (me, size) = (gas.rank() as u64, gas.size() as usize);
    let first = me * n as u64;
    let mut wanted: Vec<Vec<u64>> = vec![Vec::new(); size];
    let owner = |v: u64| (v / n as u64) as usize;
    for v in edges.iter().map(|e| e.1).chain(labels.iter().copied()) {
        if owner(v) != me as usize {
            wanted[owner(v)].push(v);
        }
    }
    for w in wanted.iter_mut() {
        w.sort_unstable();
        w.dedup();
    }
    let asked = gas.all_to_allv(&wanted)?;
    let answers: Vec<Vec<u64>> = asked
        .iter()
        .map(|vs| vs.iter().map(|&v| labels[(v - first) as usize]).collect())
        .collect();
    let got = gas.all_to_allv(&answers)?;
    let label = |v: u64| -> u64 {
        if owner(v) == me as usize {
            return labels[(v - first) as usize];
        }
        let (list, values) = (&wanted[owner(v)], &got[owner(v)]);
        list.binary_search(&v).map_or(u64::MAX, |i| values[i])
    };
    Ok(clump_apps::con::check_labels(first, edges, labels, label))
}
