//! What every application shares: joining the job, the lines rank 0 prints (the bench
//! harness parses them), and turning a wrong answer on any rank into a failed run.

use clump_apps::memory;
use clump_apps::phase::PhaseTimes;
use clump_apps::Mismatch;
use clump_gas::{Gas, GasStats, ReduceOp};

pub type AppResult<T> = Result<T, Box<dyn std::error::Error>>;

/// The per-rank counts rank 0 prints, by name: the traffic in the order of [`counts`], then
/// the peak of memory held (paper 001's Table 3; 0 where the kernel does not say).
const COUNT_NAMES: [&str; N] = [
    "shm_messages",
    "shm_bytes",
    "net_messages",
    "net_bytes",
    "direct_accesses",
    "direct_bytes",
    "shm_bulk_messages",
    "shm_bulk_bytes",
    "net_bulk_messages",
    "net_bulk_bytes",
    "self_messages",
    "self_bulk_messages",
    "self_bulk_bytes",
    "direct_bulk_accesses",
    "direct_bulk_bytes",
    "self_direct",
    "self_direct_bulk",
    "self_direct_bulk_bytes",
    "mem_bytes",
];
/// Traffic counts, and all the figures with the memory.
const TRAFFIC: usize = 18;
const N: usize = TRAFFIC + 1;

fn counts(s: GasStats) -> [u64; TRAFFIC] {
    [
        s.shm_messages,
        s.shm_bytes,
        s.net_messages,
        s.net_bytes,
        s.direct_accesses,
        s.direct_bytes,
        s.shm_bulk_messages,
        s.shm_bulk_bytes,
        s.net_bulk_messages,
        s.net_bulk_bytes,
        s.self_messages,
        s.self_bulk_messages,
        s.self_bulk_bytes,
        s.direct_bulk_accesses,
        s.direct_bulk_bytes,
        s.self_direct,
        s.self_direct_bulk,
        s.self_direct_bulk_bytes,
    ]
}

/// The counts at the start of the application's own part.
pub struct Begun(GasStats);

/// The application's own traffic and the memory it held, per figure of [`COUNT_NAMES`].
pub struct Counted([u64; N]);

/// Ends the set-up: every rank has its input and its allocations. The set-up's collectives
/// are not the application's traffic, nor are the check's: count from here to [`Begun::end`].
pub fn begin(gas: &mut Gas) -> AppResult<Begun> {
    gas.barrier()?;
    Ok(Begun(gas.stats()))
}

impl Begun {
    /// Ends the application's own part (before any collective its check needs, and before
    /// the check's own memory).
    pub fn end(self, gas: &Gas) -> Counted {
        let (now, before) = (counts(gas.stats()), counts(self.0));
        let mut figures = [0; N];
        for (f, (n, b)) in figures.iter_mut().zip(now.iter().zip(before)) {
            *f = n - b;
        }
        figures[TRAFFIC] = memory::peak_resident_bytes().unwrap_or(0);
        Counted(figures)
    }
}

/// Reports the run on rank 0 and fails every rank when any rank's check failed. Rank 0 prints one `RANK` line per rank (its counts and phase
/// times) and a `RESULT` line (counts and memory summed, times of the slowest rank, the check's verdict).
pub fn finish(
    gas: &mut Gas,
    app: &str,
    counted: Counted,
    times: &PhaseTimes,
    check: Result<(), Mismatch>,
) -> AppResult<()> {
    let all = gas.all_gather(&counted.0)?;
    let secs = [
        times.total().as_secs_f64(),
        times.comm.as_secs_f64(),
        times.compute.as_secs_f64(),
    ];
    let all_secs = gas.all_gather(&secs)?;
    let mut failed = [u32::from(check.is_err())];
    if let Err(m) = &check {
        eprintln!("{app}: rank {}: wrong result: {m}", gas.rank());
    }
    gas.all_reduce(&mut failed, ReduceOp::Sum)?;
    if gas.rank() == 0 {
        let mut sums = [0u64; N];
        let mut slowest = [0f64; 3];
        for (rank, (c, t)) in all.chunks(N).zip(all_secs.chunks(3)).enumerate() {
            println!("RANK rank={rank} {}", line(c, t));
            for (s, v) in sums.iter_mut().zip(c) {
                *s += v;
            }
            for (s, v) in slowest.iter_mut().zip(t) {
                *s = s.max(*v);
            }
        }
        println!(
            "RESULT app={app} ranks={} {} check={}",
            gas.size(),
            line(&sums, &slowest),
            if failed[0] == 0 { "ok" } else { "FAILED" }
        );
    }
    gas.barrier()?;
    if failed[0] != 0 {
        return Err(format!("{app}: {} rank(s) computed a wrong result", failed[0]).into());
    }
    Ok(())
}

/// `time_s=.. comm_s=.. compute_s=.. <count>=..` for one rank or the whole run.
fn line(counts: &[u64], secs: &[f64]) -> String {
    let mut out = format!(
        "time_s={:.6} comm_s={:.6} compute_s={:.6}",
        secs[0], secs[1], secs[2]
    );
    for (name, v) in COUNT_NAMES.iter().zip(counts) {
        out += &format!(" {name}={v}");
    }
    out
}
