//! A Split-C-style program on clump's global address space: a spread array, global pointers,
//! split-phase gets completed by `sync`, one-way stores completed by `all_store_sync`, and
//! barriers between phases. It relaxes a ring of values (each becomes the mean of itself and
//! its two neighbours) and then histograms them with a store per value, as Split-C's `:-`
//! would. Run it with `clump run -n 4 -- target/release/examples/splitc`.

use clump_gas::{Gas, ReduceOp};

/// Values per rank, relaxation steps, histogram buckets.
const N: usize = 1000;
const STEPS: usize = 20;
const BUCKETS: usize = 10;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut gas = Gas::init()?; // joins the job `clump run` started
    let (me, p) = (gas.rank(), gas.size());
    // Spread arrays: every rank holds N values, the same offsets everywhere.
    let value = gas.alloc::<f64>(N)?;
    let ghost = gas.alloc::<f64>(2)?; // the neighbours' edge values
    let counts = gas.alloc::<u64>(BUCKETS * p as usize)?; // rank 0's part receives them
    for (i, v) in gas.local(&value).as_mut_slice().iter_mut().enumerate() {
        *v = ((me as usize * N + i) % 7) as f64; // any start; the sum is kept
    }
    gas.barrier()?;

    let (left, right) = ((me + p - 1) % p, (me + 1) % p);
    for _ in 0..STEPS {
        // Split-phase: start both gets, then wait for them together.
        gas.get(value.at(left, N - 1), ghost.at(me, 0))?;
        gas.get(value.at(right, 0), ghost.at(me, 1))?;
        gas.sync()?;
        gas.barrier()?; // everyone has read the old edges before anyone writes
        let g = gas.local(&ghost).to_vec();
        let mut view = gas.local(&value);
        let old = view.to_vec();
        for (i, v) in view.as_mut_slice().iter_mut().enumerate() {
            let l = if i == 0 { g[0] } else { old[i - 1] };
            let r = if i == N - 1 { g[1] } else { old[i + 1] };
            *v = (l + old[i] + r) / 3.0;
        }
        gas.barrier()?;
    }

    // One store per value into rank 0's histogram row for this rank: no reply is awaited.
    let mut mine = [0u64; BUCKETS];
    for v in gas.local(&value).to_vec() {
        mine[((v / 7.0 * BUCKETS as f64) as usize).min(BUCKETS - 1)] += 1;
    }
    for (b, &c) in mine.iter().enumerate() {
        gas.store(counts.at(0, me as usize * BUCKETS + b), c)?;
    }
    gas.all_store_sync()?; // every store has landed

    let mut total = [gas.local(&value).to_vec().iter().sum::<f64>()];
    gas.all_reduce(&mut total, ReduceOp::Sum)?;
    if me == 0 {
        let rows = gas.local(&counts).to_vec();
        let hist: Vec<u64> = (0..BUCKETS)
            .map(|b| (0..p as usize).map(|r| rows[r * BUCKETS + b]).sum())
            .collect();
        println!("sum {:.3} histogram {hist:?}", total[0]);
        let s = gas.stats();
        println!(
            "messages: {} shared memory, {} network",
            s.shm_messages, s.net_messages
        );
    }
    gas.barrier()?;
    Ok(())
}
