//! Sample sort on the global address space: sort locally, all-gather a regular sample of every
//! rank's keys, pick P-1 splitters, send each key range to its rank (all-to-all), merge-sort.

use crate::run::{begin, finish, AppResult};
use clump_apps::phase::{Phase, PhaseTimes};
use clump_apps::sort::SortParams;
use clump_gas::Gas;

/// Samples taken per rank: enough that the buckets come out near even.
const OVERSAMPLE: usize = 32;

pub fn run(gas: &mut Gas, params: SortParams) -> AppResult<()> {
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
    let received = times.time(Phase::Comm, || gas.all_to_allv(&buckets))?;
    let mut mine: Vec<u64> = received.concat();
    times.time(Phase::Compute, || mine.sort_unstable());

    let offset = gas.all_gather(&[mine.len() as u64])?[..me as usize]
        .iter()
        .sum::<u64>() as usize;
    let total = gas.all_gather(&[mine.len() as u64])?.iter().sum::<u64>() as usize;
    let reference = params.reference(size as u32);
    let check = if total != reference.len() {
        Err(clump_apps::Mismatch(format!(
            "{total} keys after sorting, {} before",
            reference.len()
        )))
    } else {
        clump_apps::sort::check_part(&reference, offset, &mine)
    };
    finish(gas, "samplesort", begun, &times, check)
}
