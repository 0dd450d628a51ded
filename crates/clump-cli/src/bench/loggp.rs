//! The two ranks of `clump bench loggp`, started by `clump run -n 2`: rank 0 measures and
//! prints one JSON line; rank 1 serves. The phases, in order:
//!
//! 1. bare ping-pong on a shared region (rank 1 spins on its word, no clump involved);
//! 2. memcpy on rank 0 alone;
//! 3. RTT, o_s and g: rank 0 sends, rank 1 polls until the STOP word says 1;
//! 4. o_r: rank 1 sends bursts to rank 0, which lets them accumulate, then times its polls;
//! 5. the medium and long bandwidth curves, and the receiver's payload-check counts:
//!    rank 1 polls until STOP says 2.
//!
//! Control words live in the shared region, each on its own 128-byte line.

use super::baseline::{self, PingPongPlan};
use super::report::{self, Results};
use super::stream::{self, StreamPlan};
use super::wait::{drain, poll_until, spin_until};
use clump::spmd::Spmd;
use clump::{Kind, SharedRegion, MAX_MEDIUM};
use std::cell::Cell;
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

// Handler indices. At rank 1: echo, one-way, the stream handlers (see stream.rs), report.
const H_ECHO: u8 = 1;
const H_ONEWAY: u8 = 3;
const H_REPORT: u8 = 6;
// At rank 0: the echo's reply, the report's reply, o_r's one-way requests.
const H_ECHO_REPLY: u8 = 2;
const H_REPORT_REPLY: u8 = 7;
const H_OR: u8 = 8;

/// Short requests per burst for o_s and o_r: fewer than the default credit window (16),
/// so that no burst ever waits for credit.
const BURST: u64 = 8;
/// Argument counts of the RTT measurements; the first is the headline.
const RTT_ARGS: [usize; 4] = [0, 4, 8, 16];

/// Byte offsets of the control words in the shared region.
const PING: usize = 0;
const PONG: usize = 128;
const STOP: usize = 256;
const OR_GO: usize = 384;
const OR_SENT: usize = 512;
const REGION_LEN: usize = 4096;
/// `OR_GO` value that ends the o_r phase.
const OR_END: u64 = u64::MAX;

/// Largest long message: the receiver's segment.
const MAX_LONG_SIZE: usize = 16 << 20;

/// How much of everything to do; both ranks derive the same plan from `--quick`.
struct Plan {
    quick: bool,
    raw: PingPongPlan,
    rtt: PingPongPlan,
    /// Bursts per batch for o_s and o_r.
    bursts: PingPongPlan,
    /// One-way messages per batch for g.
    gap: PingPongPlan,
    memcpy_batches: u32,
    memcpy_batch: Duration,
    stream: StreamPlan,
}

impl Plan {
    fn new(quick: bool) -> Plan {
        let ms = Duration::from_millis;
        if quick {
            Plan {
                quick,
                raw: PingPongPlan {
                    warm_batches: 1,
                    batches: 5,
                    iters: 2_000,
                },
                rtt: PingPongPlan {
                    warm_batches: 1,
                    batches: 5,
                    iters: 500,
                },
                bursts: PingPongPlan {
                    warm_batches: 1,
                    batches: 5,
                    iters: 100,
                },
                gap: PingPongPlan {
                    warm_batches: 1,
                    batches: 5,
                    iters: 4_000,
                },
                memcpy_batches: 3,
                memcpy_batch: ms(2),
                stream: StreamPlan {
                    warm: ms(1),
                    batches: 3,
                    batch: ms(3),
                },
            }
        } else {
            Plan {
                quick,
                raw: PingPongPlan {
                    warm_batches: 2,
                    batches: 20,
                    iters: 20_000,
                },
                rtt: PingPongPlan {
                    warm_batches: 2,
                    batches: 20,
                    iters: 5_000,
                },
                bursts: PingPongPlan {
                    warm_batches: 2,
                    batches: 20,
                    iters: 1_000,
                },
                gap: PingPongPlan {
                    warm_batches: 1,
                    batches: 8,
                    iters: 25_000,
                },
                memcpy_batches: 5,
                memcpy_batch: ms(20),
                stream: StreamPlan {
                    warm: ms(10),
                    batches: 5,
                    batch: ms(20),
                },
            }
        }
    }
}

/// Sizes from 8 B doubling up to `max`.
fn doubling(max: usize) -> Vec<usize> {
    std::iter::successors(Some(8usize), |&n| Some(n * 2))
        .take_while(|&n| n <= max)
        .collect()
}

/// Entry point of `clump bench worker loggp`.
pub fn worker(quick: bool) -> ExitCode {
    let mut spmd = match Spmd::init() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("loggp: cannot join the job: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = if spmd.size() != 2 {
        Err(format!(
            "needs exactly 2 processes, the job has {}",
            spmd.size()
        ))
    } else {
        run(&mut spmd, &Plan::new(quick))
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let msg = format!("loggp: rank {}: {e}", spmd.rank());
            eprintln!("{msg}");
            spmd.job.abort(1, &msg);
            ExitCode::FAILURE
        }
    }
}

fn run(sp: &mut Spmd, plan: &Plan) -> Result<(), String> {
    let started = Instant::now();
    let rank = sp.rank();
    let cpu = super::pin::pin_to_nth_allowed_cpu(rank as usize);
    if let Err(e) = &cpu {
        eprintln!("loggp: rank {rank} not pinned: {e}");
    }
    let cpu_word = cpu.as_ref().map_or(u64::MAX, |&c| c as u64);
    let cpus: Vec<Option<usize>> = gather_u64(sp, &[cpu_word])?
        .iter()
        .map(|v| (v[0] != u64::MAX).then_some(v[0] as usize))
        .collect();

    // The control region: rank 0 creates it, rank 1 maps it.
    let own = if rank == 0 {
        Some(
            SharedRegion::create("clump-bench", REGION_LEN)
                .map_err(|e| format!("shared region: {e}"))?,
        )
    } else {
        None
    };
    let ids = gather_u64(
        sp,
        &[
            std::process::id() as u64,
            own.as_ref().and_then(|r| r.fd()).unwrap_or(0) as u64,
        ],
    )?;
    let region = match own {
        Some(r) => r,
        None => SharedRegion::open(ids[0][0] as u32, ids[0][1] as u32, REGION_LEN)
            .map_err(|e| format!("cannot map rank 0's shared region: {e}"))?,
    };
    let failures = Rc::new(Cell::new(0u32));
    let f = failures.clone();
    sp.ep
        .set_return_handler(move |r| {
            eprintln!(
                "loggp: a message came back: {:?} to handler {} ({})",
                r.kind, r.handler, r.reason
            );
            f.set(f.get() + 1);
        })
        .map_err(|e| e.to_string())?;

    if rank == 0 {
        let mut results = measure(sp, plan, &region, cpus)?;
        results.check_failures += failures.get();
        results.seconds = started.elapsed().as_secs_f64();
        barrier(sp)?;
        if results.check_failures > 0 {
            return Err(format!(
                "{} of {} payload checks failed or messages came back: the figures are not valid",
                results.check_failures, results.checks
            ));
        }
        println!("{}", report::to_json(&results));
        Ok(())
    } else {
        serve(sp, plan, &region, &failures)?;
        barrier(sp)
    }
}

/// The control word at byte `at` of the shared region.
fn word(region: &SharedRegion, at: usize) -> &AtomicU64 {
    region
        .atomic_u64(at)
        .expect("control words lie in the region")
}

fn gather_u64(sp: &mut Spmd, words: &[u64]) -> Result<Vec<Vec<u64>>, String> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let all = sp
        .allgather(&bytes)
        .map_err(|e| format!("allgather: {e}"))?;
    all.iter()
        .map(|b| {
            (b.len() == bytes.len())
                .then(|| {
                    b.chunks(8)
                        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                        .collect()
                })
                .ok_or_else(|| {
                    "allgather: a rank sent a contribution of the wrong size".to_string()
                })
        })
        .collect()
}

fn barrier(sp: &mut Spmd) -> Result<(), String> {
    sp.barrier().map_err(|e| format!("barrier: {e}"))
}

/// Rank 1.
fn serve(
    sp: &mut Spmd,
    plan: &Plan,
    region: &SharedRegion,
    failures: &Rc<Cell<u32>>,
) -> Result<(), String> {
    let word = |at| word(region, at);
    let ep = sp.ep.clone();
    let err = |e: clump::Error| e.to_string();
    ep.set_handler(H_ECHO as usize, |t, m| {
        if let Err(e) = t.reply(H_ECHO_REPLY, m.args) {
            eprintln!("loggp: echo reply failed: {e}");
        }
    })
    .map_err(err)?;
    ep.set_handler(H_ONEWAY as usize, |_, _| {}).map_err(err)?;
    let checks = stream::install_receiver(&ep).map_err(err)?;
    let (c, f) = (checks.clone(), failures.clone());
    ep.set_handler(H_REPORT as usize, move |t, _| {
        let failed = c.failed.get() + f.get();
        if let Err(e) = t.reply(H_REPORT_REPLY, &[c.made.get(), failed]) {
            eprintln!("loggp: report reply failed: {e}");
        }
    })
    .map_err(err)?;
    ep.set_segment(MAX_LONG_SIZE).map_err(err)?;
    barrier(sp)?;

    baseline::pong(word(PING), word(PONG), plan.raw)?;
    barrier(sp)?;
    barrier(sp)?; // rank 0 measures memcpy meanwhile

    let bundle = sp.bundle.clone();
    poll_until(&bundle, "the end of the RTT, o_s and g phases", || {
        word(STOP).load(Ordering::Acquire) >= 1
    })?;
    // o_r: send a burst whenever rank 0 asks, tell it the burst is queued, collect the acks.
    let mut round = 0;
    loop {
        spin_until("rank 0's next o_r round", || {
            word(OR_GO).load(Ordering::Acquire) != round
        })?;
        round = word(OR_GO).load(Ordering::Acquire);
        if round == OR_END {
            break;
        }
        for _ in 0..BURST {
            ep.request(0, H_OR, &[]).map_err(err)?;
        }
        word(OR_SENT).store(round, Ordering::Release);
        drain(&bundle, &ep)?;
    }
    poll_until(&bundle, "the end of the bandwidth phase", || {
        word(STOP).load(Ordering::Acquire) >= 2
    })
}

/// Rank 0.
fn measure(
    sp: &mut Spmd,
    plan: &Plan,
    region: &SharedRegion,
    cpus: Vec<Option<usize>>,
) -> Result<Results, String> {
    let word = |at| word(region, at);
    let ep = sp.ep.clone();
    let bundle = sp.bundle.clone();
    let err = |e: clump::Error| e.to_string();
    let replies = Rc::new(Cell::new(0u64));
    let reply_args = Rc::new(Cell::new(usize::MAX));
    let (r, a) = (replies.clone(), reply_args.clone());
    ep.set_handler(H_ECHO_REPLY as usize, move |_, m| {
        r.set(r.get() + 1);
        a.set(m.args.len());
    })
    .map_err(err)?;
    let report = Rc::new(Cell::new(None));
    let rep = report.clone();
    ep.set_handler(H_REPORT_REPLY as usize, move |_, m| {
        rep.set(Some((m.args[0], m.args[1])))
    })
    .map_err(err)?;
    let or_count = Rc::new(Cell::new(0u64));
    let c = or_count.clone();
    ep.set_handler(H_OR as usize, move |_, _| c.set(c.get() + 1))
        .map_err(err)?;
    barrier(sp)?;

    eprintln!("loggp: bare shared-memory ping-pong...");
    let raw_rtt_us = baseline::ping(word(PING), word(PONG), plan.raw)?;
    barrier(sp)?;
    eprintln!("loggp: memcpy...");
    let memcpy_sizes = doubling(MAX_LONG_SIZE);
    let memcpy_mb_s = baseline::memcpy_curve(&memcpy_sizes, plan.memcpy_batches, plan.memcpy_batch);
    barrier(sp)?;

    let mut rtt_by_args = Vec::new();
    for n in RTT_ARGS {
        eprintln!("loggp: rtt {n} args...");
        let args: Vec<u32> = (0..n as u32).collect();
        let batches = batches(plan.rtt, || {
            let want = replies.get() + 1;
            ep.request(1, H_ECHO, &args).map_err(err)?;
            poll_until(&bundle, "an echo", || replies.get() >= want)
        })?;
        if reply_args.get() != n {
            return Err(format!(
                "the echo of {n} arguments came back with {}",
                reply_args.get()
            ));
        }
        rtt_by_args.push((n, batches));
    }

    eprintln!("loggp: o_s...");
    let mut os_us = Vec::new();
    for batch in 0..plan.bursts.warm_batches + plan.bursts.batches {
        let mut busy = Duration::ZERO;
        for _ in 0..plan.bursts.iters {
            let t0 = Instant::now();
            for _ in 0..BURST {
                ep.request(1, H_ONEWAY, &[]).map_err(err)?;
            }
            busy += t0.elapsed();
            drain(&bundle, &ep)?;
        }
        if batch >= plan.bursts.warm_batches {
            os_us.push(busy.as_secs_f64() * 1e6 / (plan.bursts.iters * BURST) as f64);
        }
    }

    eprintln!("loggp: g...");
    let mut g_us = Vec::new();
    for batch in 0..plan.gap.warm_batches + plan.gap.batches {
        let t0 = Instant::now();
        for _ in 0..plan.gap.iters {
            ep.request(1, H_ONEWAY, &[]).map_err(err)?;
        }
        drain(&bundle, &ep)?;
        if batch >= plan.gap.warm_batches {
            g_us.push(t0.elapsed().as_secs_f64() * 1e6 / plan.gap.iters as f64);
        }
    }
    word(STOP).store(1, Ordering::Release);

    eprintln!("loggp: o_r...");
    let mut or_us = Vec::new();
    let mut round = 0u64;
    for batch in 0..plan.bursts.warm_batches + plan.bursts.batches {
        let mut busy = Duration::ZERO;
        for _ in 0..plan.bursts.iters {
            round += 1;
            word(OR_GO).store(round, Ordering::Release);
            spin_until("rank 1's o_r burst", || {
                word(OR_SENT).load(Ordering::Acquire) == round
            })?;
            let want = round * BURST;
            let t0 = Instant::now();
            poll_until(&bundle, "o_r's burst", || or_count.get() >= want)?;
            busy += t0.elapsed();
        }
        if batch >= plan.bursts.warm_batches {
            or_us.push(busy.as_secs_f64() * 1e6 / (plan.bursts.iters * BURST) as f64);
        }
    }
    word(OR_GO).store(OR_END, Ordering::Release);

    let mut buf = vec![0u8; MAX_LONG_SIZE];
    eprintln!("loggp: medium bandwidth, 8 B..64 KiB...");
    let mut bandwidth = stream::curve(
        &bundle,
        &ep,
        1,
        Kind::Medium,
        &doubling(MAX_MEDIUM),
        plan.stream,
        &mut buf,
    )?;
    eprintln!("loggp: long bandwidth, 8 B..16 MiB...");
    bandwidth.extend(stream::curve(
        &bundle,
        &ep,
        1,
        Kind::Long,
        &memcpy_sizes,
        plan.stream,
        &mut buf,
    )?);

    ep.request(1, H_REPORT, &[]).map_err(err)?;
    poll_until(&bundle, "rank 1's payload-check report", || {
        report.get().is_some()
    })?;
    let (checks, check_failures) = report.get().expect("waited for it");
    let expected = 2 * bandwidth.len() as u32;
    if checks != expected {
        return Err(format!(
            "rank 1 made {checks} payload checks, expected {expected}"
        ));
    }
    word(STOP).store(2, Ordering::Release);

    Ok(Results {
        quick: plan.quick,
        pinned: cpus.iter().all(Option::is_some),
        cpus,
        raw_rtt_us,
        memcpy_sizes,
        memcpy_mb_s,
        rtt_by_args,
        os_us,
        or_us,
        g_us,
        g_messages: plan.gap.iters * plan.gap.batches as u64,
        bandwidth,
        checks,
        check_failures,
        seconds: 0.0,
    })
}

/// Runs `once` in batches as `plan` says; returns the mean microseconds per call of each
/// timed batch.
fn batches(
    plan: PingPongPlan,
    mut once: impl FnMut() -> Result<(), String>,
) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for batch in 0..plan.warm_batches + plan.batches {
        let t0 = Instant::now();
        for _ in 0..plan.iters {
            once()?;
        }
        if batch >= plan.warm_batches {
            out.push(t0.elapsed().as_secs_f64() * 1e6 / plan.iters as f64);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn doubling_sizes_cover_the_range() {
        let s = super::doubling(64 << 10);
        assert_eq!((s[0], *s.last().unwrap(), s.len()), (8, 64 << 10, 14));
        assert_eq!(super::doubling(16 << 20).len(), 22);
    }
}
