//! CON on the global address space: label propagation. Every vertex starts labelled with its
//! own id; each round a rank fetches the labels of its edges' remote ends with split-phase
//! gets, lowers its vertices' labels (and, through local union-find groups, whole local
//! components at once), then lowers remote ends' labels with compare-and-swap. Rounds end when
//! no label changed anywhere; every vertex then holds its component's smallest id.

use crate::run::{begin, finish, AppResult};
use crate::verify::Check;
use clump_apps::con::{ConParams, UnionFind};
use clump_apps::phase::{Phase, PhaseTimes};
use clump_gas::{Gas, GlobalPtr, ReduceOp, Spread};

pub fn run(gas: &mut Gas, params: ConParams, check: Check) -> AppResult<()> {
    let (me, size) = (gas.rank(), gas.size());
    let n = params.vertices;
    let first = me as u64 * n as u64;
    let edges = params.generate(me, size);
    let labels = gas.alloc::<u64>(n)?;
    for (i, l) in gas.local(&labels).as_mut_slice().iter_mut().enumerate() {
        *l = first + i as u64;
    }
    // Local edges join local groups once; remote edges are what the rounds work on.
    let mut groups = UnionFind::new(n);
    let mut remote = Vec::new();
    for &(a, b) in &edges {
        if b / n as u64 == me as u64 {
            groups.union((a - first) as usize, (b - first) as usize);
        } else {
            remote.push(((a - first) as usize, b));
        }
    }
    let group_of: Vec<usize> = (0..n).map(|v| groups.find(v)).collect();
    let ghost = gas.alloc::<u64>(remote.len().max(1))?;
    let at = |b: u64| labels.at((b / n as u64) as u32, (b % n as u64) as usize);
    let begun = begin(gas)?;

    let mut times = PhaseTimes::default();
    loop {
        times.time(Phase::Comm, || -> AppResult<()> {
            for (k, &(_, b)) in remote.iter().enumerate() {
                gas.get(at(b), ghost.at(me, k))?;
            }
            gas.sync()?;
            Ok(gas.barrier()?)
        })?;
        let mut changed = times.time(Phase::Compute, || {
            lower_local(gas, &labels, &ghost, &remote, &group_of)
        });
        times.time(Phase::Comm, || -> AppResult<()> {
            gas.barrier()?;
            let mine = gas.local(&labels).to_vec();
            let seen = gas.local(&ghost).to_vec();
            for (k, &(a, b)) in remote.iter().enumerate() {
                if mine[a] < seen[k] && lower_remote(gas, at(b), mine[a])? {
                    changed += 1;
                }
            }
            let mut total = [changed];
            gas.all_reduce(&mut total, ReduceOp::Sum)?;
            changed = total[0];
            Ok(())
        })?;
        if changed == 0 {
            break;
        }
    }
    let counted = begun.end(gas);
    let mine = gas.local(&labels).to_vec();
    let verdict = if check.full(n * size as usize) {
        clump_apps::con::check(&params.reference(size), me, n, &mine)
    } else {
        crate::verify::labels_part(gas, n, &edges, &mine)?
    };
    finish(gas, "con", counted, &times, verdict)
}

/// Lowers each vertex to the smallest label among itself, its remote ends and its local group;
/// returns how many labels changed.
fn lower_local(
    gas: &Gas,
    labels: &Spread<u64>,
    ghost: &Spread<u64>,
    remote: &[(usize, u64)],
    group_of: &[usize],
) -> u64 {
    let seen = gas.local(ghost).to_vec();
    let mut view = gas.local(labels);
    let l = view.as_mut_slice();
    let before = l.to_vec();
    for (k, &(a, _)) in remote.iter().enumerate() {
        l[a] = l[a].min(seen[k]);
    }
    let mut group_min = vec![u64::MAX; l.len()];
    for (v, &g) in group_of.iter().enumerate() {
        group_min[g] = group_min[g].min(l[v]);
    }
    for (v, &g) in group_of.iter().enumerate() {
        l[v] = group_min[g];
    }
    l.iter().zip(&before).filter(|(a, b)| a != b).count() as u64
}

/// Atomically lowers a remote label to `label` (a compare-and-swap loop); true if it lowered it.
fn lower_remote(gas: &Gas, p: GlobalPtr<u64>, label: u64) -> AppResult<bool> {
    let mut current = gas.read(p)?;
    while label < current {
        let old = gas.compare_swap(p, current, label)?;
        if old == current {
            return Ok(true);
        }
        current = old;
    }
    Ok(false)
}
