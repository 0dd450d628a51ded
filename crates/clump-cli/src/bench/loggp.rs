//! The two ranks of `clump bench loggp`, started by `clump run -n 2`: rank 0 measures and
//! prints one JSON line; rank 1 serves: it polls its endpoint and carries out rank 0's
//! commands, posted in a shared region (each control word on its own 128-byte line).
//!
//! Baselines are interleaved with the figures they are compared with, batch by batch (a
//! bare ping-pong batch, then an RTT batch per argument count; a memcpy batch, then a
//! medium and a long streaming batch of the same size), so that both see the same
//! machine: on a shared VM the cores' placement and the neighbours' load drift within a
//! run, and a ratio of figures taken seconds apart would measure the drift.

use super::baseline;
use super::control::{self, Control, REGION_LEN};
use super::rank::{self, barrier, err, gather_u64};
use super::report::{self, Results};
use super::stream::{self, SizeResult, Stream};
use super::wait::{drain, poll_until};
use clump::spmd::Spmd;
use clump::{Bundle, Endpoint, Kind, SharedRegion, MAX_MEDIUM};
use std::cell::Cell;
use std::process::ExitCode;
use std::rc::Rc;
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

/// Largest long message: the receiver's segment.
const MAX_LONG_SIZE: usize = 16 << 20;

/// Batches of `iters` repetitions, the first `warm` untimed.
#[derive(Clone, Copy, Debug)]
struct Batches {
    warm: u32,
    timed: u32,
    iters: u64,
}

impl Batches {
    fn all(&self) -> u32 {
        self.warm + self.timed
    }
}

/// How much of everything rank 0 does.
struct Plan {
    quick: bool,
    /// Bare ping-pong rounds per batch (after `raw_warm` untimed ones), interleaved with
    /// the RTT batches.
    raw_iters: u64,
    raw_warm: u64,
    rtt: Batches,
    /// Bursts per batch for o_s and o_r.
    bursts: Batches,
    /// One-way messages per batch for g.
    gap: Batches,
    /// Bandwidth: warm-up per size and kind, then batches of memcpy, medium and long.
    stream_warm: Duration,
    stream_batches: u32,
    stream_batch: Duration,
}

impl Plan {
    fn new(quick: bool) -> Plan {
        let ms = Duration::from_millis;
        if quick {
            Plan {
                quick,
                raw_iters: 1_000,
                raw_warm: 200,
                rtt: Batches {
                    warm: 1,
                    timed: 5,
                    iters: 500,
                },
                bursts: Batches {
                    warm: 1,
                    timed: 5,
                    iters: 100,
                },
                gap: Batches {
                    warm: 1,
                    timed: 5,
                    iters: 4_000,
                },
                stream_warm: ms(1),
                stream_batches: 3,
                stream_batch: ms(2),
            }
        } else {
            Plan {
                quick,
                raw_iters: 10_000,
                raw_warm: 1_000,
                rtt: Batches {
                    warm: 2,
                    timed: 20,
                    iters: 5_000,
                },
                bursts: Batches {
                    warm: 2,
                    timed: 20,
                    iters: 1_000,
                },
                gap: Batches {
                    warm: 1,
                    timed: 8,
                    iters: 25_000,
                },
                stream_warm: ms(10),
                stream_batches: 5,
                stream_batch: ms(20),
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
    rank::main("loggp", 2, |sp| run(sp, quick))
}

fn run(sp: &mut Spmd, quick: bool) -> Result<(), String> {
    let started = Instant::now();
    let rank = sp.rank();
    let cpus = super::pin::place(sp, "loggp", Some(rank as usize))?;

    // The control region: rank 0 creates it, rank 1 maps it.
    let own = if rank == 0 {
        let r = SharedRegion::create("clump-bench", REGION_LEN)
            .map_err(|e| format!("shared region: {e}"))?;
        Some(r)
    } else {
        None
    };
    let fd = own.as_ref().and_then(|r| r.fd()).unwrap_or(0);
    let ids = gather_u64(sp, &[std::process::id() as u64, fd as u64])?;
    let region = match own {
        Some(r) => r,
        None => SharedRegion::open(ids[0][0] as u32, ids[0][1] as u32, REGION_LEN)
            .map_err(|e| format!("cannot map rank 0's shared region: {e}"))?,
    };

    let returned = Rc::new(Cell::new(0u32));
    let r = returned.clone();
    sp.ep
        .set_return_handler(move |m| {
            eprintln!(
                "loggp: a message came back: {:?} to handler {} ({})",
                m.kind, m.handler, m.reason
            );
            r.set(r.get() + 1);
        })
        .map_err(|e| e.to_string())?;

    if rank == 0 {
        let mut results = measure(sp, &Plan::new(quick), &region, cpus)?;
        results.check_failures += returned.get();
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
        serve(sp, &region, &returned)?;
        barrier(sp)
    }
}

/// Rank 1: installs its handlers, then polls and carries out rank 0's commands.
fn serve(sp: &mut Spmd, region: &SharedRegion, returned: &Rc<Cell<u32>>) -> Result<(), String> {
    let ep = sp.ep.clone();
    ep.set_handler(H_ECHO as usize, |t, m| {
        if let Err(e) = t.reply(H_ECHO_REPLY, m.args) {
            eprintln!("loggp: echo reply failed: {e}");
        }
    })
    .map_err(err)?;
    ep.set_handler(H_ONEWAY as usize, |_, _| {}).map_err(err)?;
    let checks = stream::install_receiver(&ep).map_err(err)?;
    let returned = returned.clone();
    ep.set_handler(H_REPORT as usize, move |t, _| {
        let failed = checks.failed.get() + returned.get();
        if let Err(e) = t.reply(H_REPORT_REPLY, &[checks.made.get(), failed]) {
            eprintln!("loggp: report reply failed: {e}");
        }
    })
    .map_err(err)?;
    ep.set_segment(MAX_LONG_SIZE).map_err(err)?;
    barrier(sp)?;

    let bundle = sp.bundle.clone();
    // o_r: a burst of one-way requests to rank 0 whenever it asks.
    let send_burst = || (0..BURST).try_for_each(|_| ep.request(0, H_OR, &[]).map_err(err));
    control::obey(region, &bundle, send_burst, || drain(&bundle, &ep))
}

/// Rank 0.
fn measure(
    sp: &mut Spmd,
    plan: &Plan,
    region: &SharedRegion,
    cpus: Vec<Option<usize>>,
) -> Result<Results, String> {
    let ep = sp.ep.clone();
    let bundle = sp.bundle.clone();
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
    let mut ctl = Control::new(region);
    barrier(sp)?;

    eprintln!("loggp: rtt 0, 4, 8, 16 args beside a bare shared-memory ping-pong...");
    let mut raw_rtt_us = Vec::new();
    let mut rtt_by_args: Vec<(usize, Vec<f64>)> =
        RTT_ARGS.iter().map(|&n| (n, Vec::new())).collect();
    for batch in 0..plan.rtt.all() {
        let raw = ctl.ping_batch(plan.raw_warm, plan.raw_iters)?;
        for (n, out) in rtt_by_args.iter_mut() {
            let args: Vec<u32> = (0..*n as u32).collect();
            let t0 = Instant::now();
            for _ in 0..plan.rtt.iters {
                let want = replies.get() + 1;
                ep.request(1, H_ECHO, &args).map_err(err)?;
                poll_until(&bundle, "an echo", || replies.get() >= want)?;
            }
            let us = t0.elapsed().as_secs_f64() * 1e6 / plan.rtt.iters as f64;
            if reply_args.get() != *n {
                return Err(format!(
                    "the echo of {n} arguments came back with {}",
                    reply_args.get()
                ));
            }
            if batch >= plan.rtt.warm {
                out.push(us);
            }
        }
        if batch >= plan.rtt.warm {
            raw_rtt_us.push(raw);
        }
    }

    eprintln!("loggp: o_s...");
    let os_us = timed_batches(plan.bursts, BURST, || {
        let t0 = Instant::now();
        for _ in 0..BURST {
            ep.request(1, H_ONEWAY, &[]).map_err(err)?;
        }
        let busy = t0.elapsed();
        drain(&bundle, &ep)?;
        Ok(busy)
    })?;

    eprintln!("loggp: g...");
    let g_us = timed_batches(
        Batches {
            iters: 1,
            ..plan.gap
        },
        plan.gap.iters,
        || {
            let t0 = Instant::now();
            for _ in 0..plan.gap.iters {
                ep.request(1, H_ONEWAY, &[]).map_err(err)?;
            }
            drain(&bundle, &ep)?;
            Ok(t0.elapsed())
        },
    )?;

    eprintln!("loggp: o_r...");
    let mut or_us = Vec::new();
    for batch in 0..plan.bursts.all() {
        ctl.expect_bursts(plan.bursts.iters);
        let mut busy = Duration::ZERO;
        for _ in 0..plan.bursts.iters {
            let r = ctl.burst()?;
            let want = r * BURST;
            let t0 = Instant::now();
            poll_until(&bundle, "o_r's burst", || or_count.get() >= want)?;
            busy += t0.elapsed();
        }
        if batch >= plan.bursts.warm {
            or_us.push(busy.as_secs_f64() * 1e6 / (plan.bursts.iters * BURST) as f64);
        }
    }

    eprintln!("loggp: bandwidth 8 B..64 KiB medium, 8 B..16 MiB long, beside memcpy...");
    let sizes = doubling(MAX_LONG_SIZE);
    let (memcpy_mb_s, medium, long, probes) = bandwidth(&bundle, &ep, &mut ctl, plan, &sizes)?;

    ep.request(1, H_REPORT, &[]).map_err(err)?;
    poll_until(&bundle, "rank 1's payload-check report", || {
        report.get().is_some()
    })?;
    let (checks, check_failures) = report.get().expect("waited for it");
    ctl.end();
    let expected = 2 * (medium.len() + long.len()) as u32;
    if checks != expected {
        return Err(format!(
            "rank 1 made {checks} payload checks, expected {expected}"
        ));
    }

    Ok(Results {
        quick: plan.quick,
        pinned: cpus.iter().all(Option::is_some),
        cpus,
        raw_rtt_us,
        memcpy_sizes: sizes,
        memcpy_mb_s,
        raw_probe_us: probes,
        rtt_by_args,
        os_us,
        or_us,
        g_us,
        g_messages: plan.gap.iters * plan.gap.timed as u64,
        bandwidth: medium.into_iter().chain(long).collect(),
        checks,
        check_failures,
        seconds: 0.0,
    })
}

/// memcpy's batch figures per size, the medium and long curves, and the bare ping-pong
/// probe taken at each size.
type Curves = (Vec<Vec<f64>>, Vec<SizeResult>, Vec<SizeResult>, Vec<f64>);

/// At each size, batches of memcpy, medium (up to [`MAX_MEDIUM`]) and long streaming, in
/// turn, then a short bare ping-pong: memcpy runs on one core and cannot see how far
/// apart the two cores are at the moment, the probe does.
fn bandwidth(
    bundle: &Bundle,
    ep: &Endpoint,
    ctl: &mut Control,
    plan: &Plan,
    sizes: &[usize],
) -> Result<Curves, String> {
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let src: Vec<u8> = (0..largest).map(|i| (i * 131 + 7) as u8).collect();
    let mut dst = vec![0xa5u8; largest];
    let mut buf = vec![0u8; largest];
    let (mut memcpy, mut medium, mut long, mut probes) = (vec![], vec![], vec![], vec![]);
    for &n in sizes {
        let (s, d, b) = (&src[..n], &mut dst[..n], &mut buf[..n]);
        baseline::memcpy_mb_s(s, d, plan.stream_warm);
        let mut med = if n <= MAX_MEDIUM {
            Some(Stream::start(
                bundle,
                ep,
                1,
                Kind::Medium,
                b,
                plan.stream_warm,
            )?)
        } else {
            None
        };
        let mut lng = Stream::start(bundle, ep, 1, Kind::Long, b, plan.stream_warm)?;
        let mut copies = Vec::new();
        for _ in 0..plan.stream_batches {
            copies.push(baseline::memcpy_mb_s(s, d, plan.stream_batch));
            if let Some(m) = med.as_mut() {
                m.batch(b, plan.stream_batch)?;
            }
            lng.batch(b, plan.stream_batch)?;
        }
        memcpy.push(copies);
        if let Some(m) = med {
            medium.push(m.finish(b)?);
        }
        long.push(lng.finish(b)?);
        probes.push(ctl.ping_batch(plan.raw_warm, plan.raw_warm * 5)?);
    }
    Ok((memcpy, medium, long, probes))
}

/// Runs `once` (which returns the time to count) `plan.iters` times per batch; returns
/// each timed batch's microseconds per message, `once` standing for `per_call` messages.
fn timed_batches(
    plan: Batches,
    per_call: u64,
    mut once: impl FnMut() -> Result<Duration, String>,
) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for batch in 0..plan.all() {
        let mut busy = Duration::ZERO;
        for _ in 0..plan.iters {
            busy += once()?;
        }
        if batch >= plan.warm {
            out.push(busy.as_secs_f64() * 1e6 / (plan.iters * per_call) as f64);
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
