//! Sample sort on the global address space: sort locally, all-gather a regular sample of every
//! rank's keys, pick P-1 splitters, send each key range to its rank, sort what arrived. Paper
//! 004's two versions: `bulk` ("lg") sends each range in bulk (one all-to-all); `small`
//! ("sm") stores every key on its own into its place at its rank, after one exchange of the
//! ranges' lengths.

use crate::run::{begin, finish, AppResult};
use crate::verify::Check;
use crate::Grain;
use clump_apps::phase::{Phase, PhaseTimes};
use clump_apps::sort::SortParams;
use clump_apps::Mismatch;
use clump_gas::{Gas, ReduceOp};

/// Samples taken per rank: enough that the buckets come out near even.
const OVERSAMPLE: usize = 32;

pub fn run(gas: &mut Gas, params: SortParams, grain: Grain, check: Check) -> AppResult<()> {
    let (me, size) = (gas.rank(), gas.size() as usize);
    let mut keys = params.generate(me);
    let begun = begin(gas)?;

    let mut times = PhaseTimes::default();
    times.time(Phase::Compute, || keys.sort_unstable());
    let sample: Vec<u64> = (0..OVERSAMPLE)
        .filter_map(|i| keys.get(i * keys.len() / OVERSAMPLE).copied())
        .collect();
    let mut samples = times.time(Phase::Comm, || gas.all_gather(&sample))?;
    let buckets = times.time(Phase::Compute, || {
        samples.sort_unstable();
        let splitters: Vec<u64> = (1..size)
            .map(|r| samples[r * samples.len() / size])
            .collect();
        let mut buckets = vec![Vec::new(); size];
        let mut start = 0;
        for (r, bucket) in buckets.iter_mut().enumerate() {
            let end = match splitters.get(r) {
                Some(&s) => start + keys[start..].partition_point(|&k| k < s),
                None => keys.len(),
            };
            bucket.extend_from_slice(&keys[start..end]);
            start = end;
        }
        buckets
    });
    let mut mine = match grain {
        Grain::Bulk => times
            .time(Phase::Comm, || gas.all_to_allv(&buckets))?
            .concat(),
        Grain::Small => times.time(Phase::Comm, || key_by_key(gas, &buckets))?,
    };
    times.time(Phase::Compute, || mine.sort_unstable());

    let counted = begun.end(gas);
    let verdict = if check.full(params.keys * size) {
        full_check(gas, &params, &mine)?
    } else {
        crate::verify::sorted_part(gas, &keys, &mine)?
    };
    finish(gas, "samplesort", counted, &times, verdict)
}

/// Rank `me`'s keys are the sorted input's from the count of keys on lower ranks on.
fn full_check(gas: &mut Gas, params: &SortParams, mine: &[u64]) -> AppResult<Result<(), Mismatch>> {
    let lens = gas.all_gather(&[mine.len() as u64])?;
    let offset = lens[..gas.rank() as usize].iter().sum::<u64>() as usize;
    let total = lens.iter().sum::<u64>() as usize;
    let reference = params.reference(gas.size());
    if total != reference.len() {
        return Ok(Err(Mismatch(format!(
            "{total} keys after sorting, {} before",
            reference.len()
        ))));
    }
    Ok(clump_apps::sort::check_part(&reference, offset, mine))
}

/// Sends every key of `buckets[q]` to rank `q` with a store of its own; returns the keys
/// this rank received.
fn key_by_key(gas: &mut Gas, buckets: &[Vec<u64>]) -> AppResult<Vec<u64>> {
    let (me, size) = (gas.rank() as usize, gas.size() as usize);
    let lens: Vec<u64> = buckets.iter().map(|b| b.len() as u64).collect();
    // All ranks' lengths, row r holding what r sends to each rank.
    let all = gas.all_gather(&lens)?;
    let incoming: u64 = (0..size).map(|r| all[r * size + me]).sum();
    let mut most = [incoming];
    gas.all_reduce(&mut most, ReduceOp::Max)?;
    let inbox = gas.alloc::<u64>(most[0].max(1) as usize)?;
    for (q, bucket) in buckets.iter().enumerate() {
        let at: u64 = (0..me).map(|r| all[r * size + q]).sum();
        for (k, &key) in bucket.iter().enumerate() {
            gas.store(inbox.at(q as u32, at as usize + k), key)?;
        }
    }
    gas.all_store_sync()?;
    Ok(gas.local(&inbox).as_slice()[..incoming as usize].to_vec())
}
