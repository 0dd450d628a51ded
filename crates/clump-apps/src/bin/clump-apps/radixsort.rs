//! Radix sort on the global address space, 8 bits a pass from the least significant: each pass
//! counts the rank's digits, all-gathers the counts, and stores each run of equal digits straight
//! to its global place (split at rank boundaries) with bulk stores into the other buffer, in the
//! `bulk` version ("lg" in paper 004); the `small` version ("sm") stores each key on its own.

use crate::run::{begin, finish, AppResult};
use crate::verify::Check;
use crate::Grain;
use clump_apps::phase::{Phase, PhaseTimes};
use clump_apps::sort::{digit, histogram, SortParams};
use clump_gas::Gas;

const BITS: u32 = 8;

pub fn run(gas: &mut Gas, params: SortParams, grain: Grain, check: Check) -> AppResult<()> {
    let (me, size) = (gas.rank() as usize, gas.size() as usize);
    let n = params.keys;
    if n == 0 {
        return Err("radixsort: needs keys > 0".into());
    }
    let buffers = [gas.alloc::<u64>(n)?, gas.alloc::<u64>(n)?];
    gas.local(&buffers[0])
        .as_mut_slice()
        .copy_from_slice(&params.generate(me as u32));
    let begun = begin(gas)?;

    let radix = 1usize << BITS;
    let mut times = PhaseTimes::default();
    for pass in 0..u64::BITS / BITS {
        let (from, to) = (
            &buffers[pass as usize % 2],
            &buffers[(pass as usize + 1) % 2],
        );
        let (keys, counts) = times.time(Phase::Compute, || {
            // Stable by digit, so each digit's keys form one run in rank order.
            let mut keys = gas.local(from).to_vec();
            keys.sort_by_key(|&k| digit(k, pass, BITS));
            let counts: Vec<u64> = histogram(&keys, pass, BITS)
                .into_iter()
                .map(|c| c as u64)
                .collect();
            (keys, counts)
        });
        let all = times.time(Phase::Comm, || gas.all_gather(&counts))?;
        times.time(Phase::Comm, || -> AppResult<()> {
            let mut run_start = 0;
            let mut below = 0u64;
            for d in 0..radix {
                let total_d: u64 = (0..size).map(|r| all[r * radix + d]).sum();
                let before_me: u64 = (0..me).map(|r| all[r * radix + d]).sum();
                let mut place = (below + before_me) as usize;
                let mut run = &keys[run_start..run_start + counts[d] as usize];
                run_start += run.len();
                while !run.is_empty() {
                    let chunk = match grain {
                        Grain::Bulk => run.len().min(n - place % n),
                        Grain::Small => 1,
                    };
                    gas.store_bulk(to.at((place / n) as u32, place % n), &run[..chunk])?;
                    place += chunk;
                    run = &run[chunk..];
                }
                below += total_d;
            }
            Ok(gas.all_store_sync()?)
        })?;
    }
    let sorted = &buffers[(u64::BITS / BITS) as usize % 2];
    let counted = begun.end(gas);
    let mine = gas.local(sorted).to_vec();
    let verdict = if check.full(n * size) {
        let reference = params.reference(size as u32);
        clump_apps::sort::check_part(&reference, me * n, &mine)
    } else {
        crate::verify::sorted_part(gas, &params.generate(me as u32), &mine)?
    };
    finish(gas, "radixsort", counted, &times, verdict)
}
