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
use super::progress::Progress;
use super::rank::{self, barrier, err, gather_u64};
use super::report::{self, Reference, Results, Samples};
use super::stream::{self, Pace, SizeResult, Stream};
use super::udp_baseline::BareUdp;
use super::wait::{drain, poll_until};
use super::LoggpArgs;
use clump::config::{Config, Faults};
use clump::spmd::Spmd;
use clump::{Bundle, Endpoint, Kind, SharedRegion, MAX_MEDIUM};
use std::cell::Cell;
use std::net::{Ipv4Addr, SocketAddrV4};
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
/// The message size whose goodput under loss is compared with the lossless stream.
const GOODPUT_BYTES: usize = 64 << 10;

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
    stream: Pace,
    stream_batches: u32,
    stream_batch: Duration,
    /// Under `--loss`, the longest an RTT, o_s, g or o_r batch runs: a lost datagram costs a whole
    /// retransmission timeout, so at heavy loss a batch ends on time and its mean is taken
    /// over the rounds it finished.
    batch_budget: Option<Duration>,
}

/// Streamed messages between reads of the clock without loss (see [`Pace::per_check`]).
const PER_CHECK: u64 = 64;
/// The most messages of a quick run's streaming batch under no loss to speak of (see
/// [`Plan::under_loss`]).
const QUICK_LOSSY_STREAM: u64 = 16;

impl Plan {
    /// The plan of a run, `quick` or not, with `loss` percent of datagrams dropped each way.
    fn new(quick: bool, loss: Option<f64>) -> Plan {
        let mut plan = Plan::lossless(quick);
        if let Some(p) = loss.filter(|&p| p > 0.0) {
            plan.under_loss(p);
        }
        plan
    }

    /// Under loss each lost datagram costs a retransmission timeout (1 to 200 ms), so
    /// every batch of RTT, o_s, g and o_r ends on time and its mean is taken over the
    /// rounds it finished; a quick run also times fewer batches and streams one batch of
    /// each size, without warm-up, of fewer messages the heavier the loss (a message and
    /// its answer both pass with a chance of (1 - loss)^2). The samples each figure
    /// rests on are reported.
    fn under_loss(&mut self, percent: f64) {
        self.stream.per_check = 1;
        if self.quick {
            let through = (1.0 - percent / 100.0).powi(2);
            self.stream.most = (QUICK_LOSSY_STREAM as f64 * through).ceil() as u64;
            self.batch_budget = Some(Duration::from_millis(500));
            for b in [&mut self.rtt, &mut self.bursts, &mut self.gap] {
                b.warm = 1;
                b.timed = 3;
            }
            self.stream.warm = Duration::ZERO;
            self.stream_batches = 1;
        } else {
            self.batch_budget = Some(Duration::from_secs(10));
        }
    }

    fn lossless(quick: bool) -> Plan {
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
                stream: Pace {
                    warm: ms(1),
                    per_check: PER_CHECK,
                    most: u64::MAX,
                },
                stream_batches: 3,
                stream_batch: ms(2),
                batch_budget: None,
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
                stream: Pace {
                    warm: ms(10),
                    per_check: PER_CHECK,
                    most: u64::MAX,
                },
                stream_batches: 5,
                stream_batch: ms(20),
                batch_budget: None,
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

/// What rank 0 compares its figures with: the transport's bare baselines and, for
/// `--with-network` and `--loss`, a second endpoint pair (network off, or no loss).
struct Sides<'a> {
    bare: Option<&'a mut BareUdp>,
    reference: Option<(Bundle, Endpoint)>,
}

/// Entry point of `clump bench worker loggp`.
pub fn worker(args: &LoggpArgs) -> ExitCode {
    rank::main("loggp", 2, |sp| run(sp, args))
}

fn run(sp: &mut Spmd, args: &LoggpArgs) -> Result<(), String> {
    let started = Instant::now();
    let rank = sp.rank();
    let cpus = super::pin::place(sp, "loggp", Some(rank as usize))?;

    let region = control_region(sp)?;
    let config = Config::from_env().map_err(|e| e.to_string())?;
    let mut bare = if args.transport.is_network() {
        Some(bare_pair(sp, &config)?)
    } else {
        None
    };
    let sides = Sides {
        bare: bare.as_mut(),
        reference: reference_endpoint(sp, args, &config)?,
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
        let plan = Plan::new(args.quick, args.loss);
        let mut results = measure(sp, args, &plan, &region, cpus, sides)?;
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
        serve(sp, &region, &returned, sides, args.program_segment)?;
        barrier(sp)
    }
}

/// The control region: rank 0 creates it, rank 1 maps it.
fn control_region(sp: &mut Spmd) -> Result<SharedRegion, String> {
    let own = if sp.rank() == 0 {
        let r = SharedRegion::create("clump-bench", REGION_LEN)
            .map_err(|e| format!("shared region: {e}"))?;
        Some(r)
    } else {
        None
    };
    let fd = own.as_ref().and_then(|r| r.fd()).unwrap_or(0);
    let ids = gather_u64(sp, &[std::process::id() as u64, fd as u64])?;
    match own {
        Some(r) => Ok(r),
        None => SharedRegion::open(ids[0][0] as u32, ids[0][1] as u32, REGION_LEN)
            .map_err(|e| format!("cannot map rank 0's shared region: {e}")),
    }
}

/// The bare UDP baseline's socket, connected to the other rank's.
fn bare_pair(sp: &mut Spmd, config: &Config) -> Result<BareUdp, String> {
    let mut b = BareUdp::bind(config.net.bind_ip)?;
    let a = b.addr();
    let addrs = gather_u64(sp, &[u32::from(*a.ip()) as u64, a.port() as u64])?;
    let peer = &addrs[1 - sp.rank() as usize];
    b.connect(SocketAddrV4::new(
        Ipv4Addr::from(peer[0] as u32),
        peer[1] as u16,
    ))?;
    Ok(b)
}

/// The second endpoint measured beside the main one: with the network off
/// (`--with-network`) or without the injected loss (`--loss`).
fn reference_endpoint(
    sp: &mut Spmd,
    args: &LoggpArgs,
    config: &Config,
) -> Result<Option<(Bundle, Endpoint)>, String> {
    if !args.with_network && args.loss.is_none() {
        return Ok(None);
    }
    let mut c = config.clone();
    if args.with_network {
        c.net.enabled = false;
    } else {
        c.net.faults = Faults::default();
    }
    let pair = sp
        .join_again(c)
        .map_err(|e| format!("the reference endpoint: {e}"))?;
    Ok(Some(pair))
}

/// Rank 1's handlers on one of its endpoints: echo, one-way, the stream receiver; and
/// its segment, a shared region or (`program_segment`) memory of this process (through
/// clump's unsafe `set_program_segment`, as `AM_SetSeg` on `malloc`'d memory does).
#[allow(unsafe_code)]
fn install_server(ep: &Endpoint, program_segment: bool) -> Result<Rc<stream::Checks>, String> {
    ep.set_handler(H_ECHO as usize, |t, m| {
        if let Err(e) = t.reply(H_ECHO_REPLY, m.args) {
            eprintln!("loggp: echo reply failed: {e}");
        }
    })
    .map_err(err)?;
    ep.set_handler(H_ONEWAY as usize, |_, _| {}).map_err(err)?;
    if program_segment {
        // Lives until the process ends, as the segment must.
        let memory = Box::leak(vec![0u8; MAX_LONG_SIZE].into_boxed_slice());
        // SAFETY: the memory is this process's, readable and writable, never freed, and
        // no reference to it is used after this point.
        unsafe { ep.set_program_segment(memory.as_mut_ptr(), memory.len()) }.map_err(err)?;
    } else {
        ep.set_segment(MAX_LONG_SIZE).map_err(err)?;
    }
    stream::install_receiver(ep).map_err(err)
}

/// Rank 1: installs its handlers, then polls and carries out rank 0's commands.
fn serve(
    sp: &mut Spmd,
    region: &SharedRegion,
    returned: &Rc<Cell<u32>>,
    sides: Sides<'_>,
    program_segment: bool,
) -> Result<(), String> {
    let ep = sp.ep.clone();
    let checks = install_server(&ep, program_segment)?;
    let ref_checks = match &sides.reference {
        Some((_, r)) => Some(install_server(r, program_segment)?),
        None => None,
    };
    let returned = returned.clone();
    ep.set_handler(H_REPORT as usize, move |t, _| {
        let all = std::iter::once(&checks).chain(ref_checks.as_ref());
        let (made, failed) = all.fold((0, returned.get()), |(m, f), c| {
            (m + c.made.get(), f + c.failed.get())
        });
        if let Err(e) = t.reply(H_REPORT_REPLY, &[made, failed]) {
            eprintln!("loggp: report reply failed: {e}");
        }
    })
    .map_err(err)?;
    barrier(sp)?;

    let bundle = sp.bundle.clone();
    let mut bundles = vec![&bundle];
    bundles.extend(sides.reference.as_ref().map(|(b, _)| b));
    // o_r: a burst of one-way requests to rank 0 whenever it asks.
    let send_burst = || (0..BURST).try_for_each(|_| ep.request(0, H_OR, &[]).map_err(err));
    control::obey(region, &bundles, sides.bare, send_burst, || {
        drain(&bundle, &ep)
    })
}

/// Whether a batch begun at `start` goes on after `done` of its `iters` rounds: within a
/// budget it ends on time, after at least one round (so its mean is defined). Without
/// one the clock is not read.
fn goes_on(done: u64, iters: u64, start: Instant, budget: Option<Duration>) -> bool {
    done < iters && budget.is_none_or(|b| done == 0 || start.elapsed() < b)
}

/// One batch of `iters` short round trips on `ep` (translation 1) with `args`, or as
/// many as fit in `budget`; mean µs and the round trips made.
fn rtt_batch(
    bundle: &Bundle,
    ep: &Endpoint,
    replies: &Cell<u64>,
    args: &[u32],
    iters: u64,
    budget: Option<Duration>,
) -> Result<(f64, u64), String> {
    let t0 = Instant::now();
    let mut done = 0;
    while goes_on(done, iters, t0, budget) {
        let want = replies.get() + 1;
        ep.request(1, H_ECHO, args).map_err(err)?;
        poll_until(bundle, "an echo", || replies.get() >= want)?;
        done += 1;
    }
    Ok((t0.elapsed().as_secs_f64() * 1e6 / done as f64, done))
}

/// Rank 0.
fn measure(
    sp: &mut Spmd,
    args: &LoggpArgs,
    plan: &Plan,
    region: &SharedRegion,
    cpus: Vec<Option<usize>>,
    mut sides: Sides<'_>,
) -> Result<Results, String> {
    let ep = sp.ep.clone();
    let bundle = sp.bundle.clone();
    let counters = counters(&ep, sides.reference.as_ref().map(|(_, e)| e))?;
    let mut ctl = Control::new(region);
    barrier(sp)?;

    let net = args.transport.is_network();
    let small = small_messages(&bundle, &ep, &counters, &mut ctl, &mut sides, plan, args)?;

    eprintln!(
        "loggp: bandwidth 8 B..64 KiB medium, 8 B..16 MiB long, beside {}...",
        if net { "a bare UDP stream" } else { "memcpy" }
    );
    let sizes = doubling(MAX_LONG_SIZE);
    let (base_mb_s, medium, long, probes) =
        bandwidth(&bundle, &ep, &mut ctl, plan, &sizes, &mut sides)?;
    let (reference, goodput_streams) = match (args.loss, &sides.reference) {
        (Some(loss), Some((rb, re))) => {
            let lossy = loss_reference(&bundle, &ep, (rb, re), &mut ctl, plan, loss)?;
            (Some(lossy), 2)
        }
        _ => (
            (!small.ref_rtt_us.is_empty()).then_some(Reference::WithoutNetwork {
                rtt_us: small.ref_rtt_us,
            }),
            0,
        ),
    };

    let expected = 2 * (medium.len() + long.len() + goodput_streams) as u32;
    let (checks, check_failures) = rank1_checks(&bundle, &ep, &counters.report, expected)?;
    ctl.end();

    Ok(Results {
        transport: args.transport.name(),
        with_network: args.with_network,
        program_segment: args.program_segment,
        net_polls: ep
            .net_stats()
            .map(|s| if s.doorbell { "doorbell" } else { "rationed" }),
        datagrams: datagrams(&ep, sides.bare.as_deref_mut()),
        reference,
        quick: plan.quick,
        pinned: cpus.iter().all(Option::is_some),
        cpus,
        raw_rtt_us: small.raw_rtt_us,
        base_sizes: sizes,
        base_mb_s,
        raw_probe_us: probes,
        rtt_by_args: small.rtt_by_args,
        os_us: small.os_us,
        or_us: small.or_us,
        g_us: small.g_us,
        samples: small.samples,
        ring_ns: small.ring_ns,
        bandwidth: medium.into_iter().chain(long).collect(),
        checks,
        check_failures,
        seconds: 0.0,
    })
}

/// The small-message figures, in turn: RTT by arguments (beside the bare ping-pong and,
/// `--with-network`, the reference pair), o_s, g and o_r.
#[allow(clippy::too_many_arguments)]
fn small_messages(
    bundle: &Bundle,
    ep: &Endpoint,
    counters: &Counters,
    ctl: &mut Control,
    sides: &mut Sides<'_>,
    plan: &Plan,
    args: &LoggpArgs,
) -> Result<Small, String> {
    let net = args.transport.is_network();
    eprintln!(
        "loggp: rtt 0, 4, 8, 16 args beside a bare {} ping-pong...",
        if net { "UDP" } else { "shared-memory" }
    );
    let mut samples = Samples::default();
    let (raw_rtt_us, rtt_by_args, ref_rtt_us) = rtt_phase(
        bundle,
        ep,
        (&counters.replies, &counters.reply_args),
        ctl,
        sides,
        plan,
        args.with_network,
        &mut samples,
    )?;

    eprintln!("loggp: o_s...");
    let (os_us, os_bursts) = os_phase(bundle, ep, plan)?;

    eprintln!(
        "loggp: g{}...",
        if net {
            ""
        } else {
            " beside a bare streaming ring"
        }
    );
    let (g_us, ring_ns) = gap_phase(bundle, ep, ctl, plan, net, &mut samples)?;

    eprintln!("loggp: o_r...");
    let or_us = or_phase(bundle, ctl, plan, &counters.or_count, &mut samples)?;
    ctl.await_bursts_answered(bundle)?;
    Ok(Small {
        raw_rtt_us,
        rtt_by_args,
        ref_rtt_us,
        os_us,
        or_us,
        g_us,
        ring_ns,
        samples: Samples {
            os_messages: os_bursts * BURST,
            ..samples
        },
    })
}

/// What [`small_messages`] measured.
struct Small {
    raw_rtt_us: Vec<f64>,
    rtt_by_args: Vec<(usize, Vec<f64>)>,
    /// `--with-network`: the reference pair's 0-argument round trips.
    ref_rtt_us: Vec<f64>,
    os_us: Vec<f64>,
    or_us: Vec<f64>,
    g_us: Vec<f64>,
    ring_ns: Vec<f64>,
    samples: Samples,
}

/// o_s: the time to hand bursts of one-way requests to the layer, each burst drained
/// before the next; the batches' figures and the bursts timed.
fn os_phase(bundle: &Bundle, ep: &Endpoint, plan: &Plan) -> Result<(Vec<f64>, u64), String> {
    timed_batches(plan.bursts, plan.batch_budget, BURST, || {
        let t0 = Instant::now();
        for _ in 0..BURST {
            ep.request(1, H_ONEWAY, &[]).map_err(err)?;
        }
        let busy = t0.elapsed();
        drain(bundle, ep)?;
        Ok(busy)
    })
}

/// `--loss`: goodput of long messages under the injected loss, beside the reference pair
/// streaming without it.
fn loss_reference(
    bundle: &Bundle,
    ep: &Endpoint,
    (rb, re): (&Bundle, &Endpoint),
    ctl: &mut Control,
    plan: &Plan,
    loss: f64,
) -> Result<Reference, String> {
    eprintln!(
        "loggp: goodput of {GOODPUT_BYTES}-byte long messages at {loss}% loss, beside none..."
    );
    let (lossless, lossy) = goodput(bundle, ep, rb, re, ctl, plan)?;
    Ok(Reference::Lossless {
        loss,
        bytes: GOODPUT_BYTES,
        lossless_mb_s: lossless,
        lossy_mb_s: lossy,
    })
}

/// How clump's datagrams and the bare stream's went out (over the network only).
fn datagrams(ep: &Endpoint, bare: Option<&mut BareUdp>) -> Option<[report::Datagrams; 2]> {
    let (s, bare) = (ep.net_stats()?, bare?);
    Some([
        report::Datagrams {
            bytes: s.datagram,
            segmentation: s.offload.segmentation,
            super_datagrams: s.socket.super_datagrams,
            coalesced: s.protocol.coalesced,
            sent: s.protocol.datagrams_sent,
        },
        bare.datagrams(),
    ])
}

/// The round trips of 0, 4, 8 and 16 arguments, each batch beside the bare baseline's
/// ping-pong (and `with_network`, beside the round trip with the network off): the
/// baseline's, the round trips' by arguments, and the reference's, in microseconds.
#[allow(clippy::too_many_arguments)]
fn rtt_phase(
    bundle: &Bundle,
    ep: &Endpoint,
    (replies, reply_args): (&Cell<u64>, &Cell<usize>),
    ctl: &mut Control,
    sides: &mut Sides<'_>,
    plan: &Plan,
    with_network: bool,
    samples: &mut Samples,
) -> Result<RttFigures, String> {
    let mut raw_rtt_us = Vec::new();
    let mut rtt_by_args: Vec<(usize, Vec<f64>)> =
        RTT_ARGS.iter().map(|&n| (n, Vec::new())).collect();
    let mut ref_rtt_us = Vec::new();
    let progress = Progress::new("loggp: rtt", plan.rtt.all() as usize);
    for batch in 0..plan.rtt.all() {
        progress.step(batch as usize, "batch");
        let raw = ping_baseline(ctl, sides, plan.raw_warm, plan.raw_iters)?;
        for (n, out) in rtt_by_args.iter_mut() {
            let args: Vec<u32> = (0..*n as u32).collect();
            let (us, rounds) = rtt_batch(
                bundle,
                ep,
                replies,
                &args,
                plan.rtt.iters,
                plan.batch_budget,
            )?;
            if reply_args.get() != *n {
                return Err(format!(
                    "the echo of {n} arguments came back with {}",
                    reply_args.get()
                ));
            }
            if batch >= plan.rtt.warm {
                out.push(us);
                if *n == RTT_ARGS[0] {
                    samples.rtt_rounds += rounds;
                }
            }
        }
        // --with-network: the same round trip with the network off, beside it.
        if let (true, Some((rb, re))) = (with_network, &sides.reference) {
            ctl.select(1)?;
            let (us, _) = rtt_batch(rb, re, replies, &[], plan.rtt.iters, plan.batch_budget)?;
            ctl.select(0)?;
            if batch >= plan.rtt.warm {
                ref_rtt_us.push(us);
            }
        }
        if batch >= plan.rtt.warm {
            raw_rtt_us.push(raw);
        }
    }
    Ok((raw_rtt_us, rtt_by_args, ref_rtt_us))
}

/// The baseline's, the round trips' by arguments, and the reference's round trips.
type RttFigures = (Vec<f64>, Vec<(usize, Vec<f64>)>, Vec<f64>);

/// The gap g in microseconds per message, each batch (over shared memory) after a batch
/// of the bare streaming ring, whose nanoseconds per message come second.
fn gap_phase(
    bundle: &Bundle,
    ep: &Endpoint,
    ctl: &mut Control,
    plan: &Plan,
    net: bool,
    samples: &mut Samples,
) -> Result<(Vec<f64>, Vec<f64>), String> {
    // Shared memory: each batch of g follows a batch of the bare stream of as many
    // messages, so that both see the same machine.
    let mut ring_ns = Vec::new();
    let mut g_us = Vec::new();
    for batch in 0..plan.gap.all() {
        let ring = if net {
            None
        } else {
            Some(ctl.stream_batch(plan.gap.iters)?)
        };
        let t0 = Instant::now();
        let mut sent = 0;
        while goes_on(sent, plan.gap.iters, t0, plan.batch_budget) {
            ep.request(1, H_ONEWAY, &[]).map_err(err)?;
            sent += 1;
        }
        drain(bundle, ep)?;
        let us = t0.elapsed().as_secs_f64() * 1e6 / sent as f64;
        if batch >= plan.gap.warm {
            g_us.push(us);
            samples.g_messages += sent;
            ring_ns.extend(ring);
        }
    }
    Ok((g_us, ring_ns))
}

/// The receive overhead o_r in microseconds per message: rank 1 sends bursts, and this
/// rank times only the polls that run them.
fn or_phase(
    bundle: &Bundle,
    ctl: &mut Control,
    plan: &Plan,
    or_count: &Cell<u64>,
    samples: &mut Samples,
) -> Result<Vec<f64>, String> {
    let mut or_us = Vec::new();
    for batch in 0..plan.bursts.all() {
        // Within a budget, rank 1 is told of one burst at a time, so the batch can end early.
        if plan.batch_budget.is_none() {
            ctl.expect_bursts(plan.bursts.iters);
        }
        let start = Instant::now();
        let mut busy = Duration::ZERO;
        let mut done = 0;
        while goes_on(done, plan.bursts.iters, start, plan.batch_budget) {
            if plan.batch_budget.is_some() {
                ctl.expect_bursts(1);
            }
            let r = ctl.burst(bundle)?;
            let want = r * BURST;
            let t0 = Instant::now();
            poll_until(bundle, "o_r's burst", || or_count.get() >= want)?;
            busy += t0.elapsed();
            done += 1;
        }
        if batch >= plan.bursts.warm {
            or_us.push(busy.as_secs_f64() * 1e6 / (done * BURST) as f64);
            samples.or_messages += done * BURST;
        }
    }
    Ok(or_us)
}

/// What rank 0's handlers count: echo replies and their argument count, rank 1's
/// payload-check report, and the one-way messages of o_r.
struct Counters {
    replies: Rc<Cell<u64>>,
    reply_args: Rc<Cell<usize>>,
    report: Rc<Cell<Option<(u32, u32)>>>,
    or_count: Rc<Cell<u64>>,
}

/// Installs rank 0's handlers on `ep` (the echo reply also on the reference endpoint).
fn counters(ep: &Endpoint, reference: Option<&Endpoint>) -> Result<Counters, String> {
    let replies = Rc::new(Cell::new(0u64));
    let reply_args = Rc::new(Cell::new(usize::MAX));
    for e in std::iter::once(ep).chain(reference) {
        let (r, a) = (replies.clone(), reply_args.clone());
        e.set_handler(H_ECHO_REPLY as usize, move |_, m| {
            r.set(r.get() + 1);
            a.set(m.args.len());
        })
        .map_err(err)?;
    }
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
    Ok(Counters {
        replies,
        reply_args,
        report,
        or_count,
    })
}

/// Asks rank 1 for its payload checks and returns them (checks, failures), once they are
/// the `expected` number.
fn rank1_checks(
    bundle: &Bundle,
    ep: &Endpoint,
    report: &Cell<Option<(u32, u32)>>,
    expected: u32,
) -> Result<(u32, u32), String> {
    ep.request(1, H_REPORT, &[]).map_err(err)?;
    poll_until(bundle, "rank 1's payload-check report", || {
        report.get().is_some()
    })?;
    let (checks, check_failures) = report.get().expect("waited for it");
    if checks != expected {
        return Err(format!(
            "rank 1 made {checks} payload checks, expected {expected}"
        ));
    }
    Ok((checks, check_failures))
}

/// One batch of the transport's bare ping-pong: µs per round trip.
fn ping_baseline(
    ctl: &mut Control,
    sides: &mut Sides<'_>,
    warm: u64,
    rounds: u64,
) -> Result<f64, String> {
    match sides.bare.as_deref_mut() {
        Some(bare) => ctl.udp_ping_batch(bare, warm, rounds),
        None => ctl.ping_batch(warm, rounds),
    }
}

/// Lossless and lossy goodput (MB/s per batch) of long messages of [`GOODPUT_BYTES`],
/// batch by batch in turn: the reference pair (no loss) `rb`/`re`, then the main one.
fn goodput(
    bundle: &Bundle,
    ep: &Endpoint,
    rb: &Bundle,
    re: &Endpoint,
    ctl: &mut Control,
    plan: &Plan,
) -> Result<(Vec<f64>, Vec<f64>), String> {
    let mut buf = vec![0u8; GOODPUT_BYTES];
    ctl.select(1)?;
    let mut clean = Stream::start(rb, re, 1, Kind::Long, &mut buf, plan.stream)?;
    ctl.select(0)?;
    let mut lossy = Stream::start(bundle, ep, 1, Kind::Long, &mut buf, plan.stream)?;
    for _ in 0..plan.stream_batches {
        ctl.select(1)?;
        clean.batch(&buf, plan.stream_batch)?;
        ctl.select(0)?;
        lossy.batch(&buf, plan.stream_batch)?;
    }
    ctl.select(1)?;
    let clean = clean.finish(&mut buf)?;
    ctl.select(0)?;
    let lossy = lossy.finish(&mut buf)?;
    Ok((clean.mb_s, lossy.mb_s))
}

/// The baseline's batch figures per size, the medium and long curves, and the bare
/// ping-pong probe taken at each size.
type Curves = (Vec<Vec<f64>>, Vec<SizeResult>, Vec<SizeResult>, Vec<f64>);

/// At each size, batches of the bandwidth baseline (memcpy, or a bare UDP stream),
/// medium (up to [`MAX_MEDIUM`]) and long streaming, in turn, then a short bare
/// ping-pong: memcpy runs on one core and cannot see how far apart the two cores are at
/// the moment, the probe does.
fn bandwidth(
    bundle: &Bundle,
    ep: &Endpoint,
    ctl: &mut Control,
    plan: &Plan,
    sizes: &[usize],
    sides: &mut Sides<'_>,
) -> Result<Curves, String> {
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let src: Vec<u8> = (0..largest).map(|i| (i * 131 + 7) as u8).collect();
    let mut dst = vec![0xa5u8; largest];
    let mut buf = vec![0u8; largest];
    let (mut base, mut medium, mut long, mut probes) = (vec![], vec![], vec![], vec![]);
    let progress = Progress::new("loggp: bandwidth", sizes.len());
    for (i, &n) in sizes.iter().enumerate() {
        progress.step(i, report::size(n as f64));
        let (s, d, b) = (&src[..n], &mut dst[..n], &mut buf[..n]);
        let mut base_batch = |ctl: &mut Control, time| match sides.bare.as_deref_mut() {
            Some(bare) => ctl.udp_stream_batch(bare, n, time),
            None => Ok(baseline::memcpy_mb_s(s, d, time)),
        };
        base_batch(ctl, plan.stream.warm)?;
        let mut med = if n <= MAX_MEDIUM {
            Some(Stream::start(bundle, ep, 1, Kind::Medium, b, plan.stream)?)
        } else {
            None
        };
        let mut lng = Stream::start(bundle, ep, 1, Kind::Long, b, plan.stream)?;
        let mut copies = Vec::new();
        for _ in 0..plan.stream_batches {
            copies.push(base_batch(ctl, plan.stream_batch)?);
            if let Some(m) = med.as_mut() {
                m.batch(b, plan.stream_batch)?;
            }
            lng.batch(b, plan.stream_batch)?;
        }
        base.push(copies);
        if let Some(m) = med {
            medium.push(m.finish(b)?);
        }
        long.push(lng.finish(b)?);
        probes.push(ping_baseline(ctl, sides, plan.raw_warm, plan.raw_warm * 5)?);
    }
    Ok((base, medium, long, probes))
}

/// Runs `once` (which returns the time to count) `plan.iters` times per batch; returns
/// each timed batch's microseconds per message, `once` standing for `per_call` messages,
/// and how many times it ran in the timed batches.
fn timed_batches(
    plan: Batches,
    budget: Option<Duration>,
    per_call: u64,
    mut once: impl FnMut() -> Result<Duration, String>,
) -> Result<(Vec<f64>, u64), String> {
    let mut out = Vec::new();
    let mut calls = 0;
    for batch in 0..plan.all() {
        let t0 = Instant::now();
        let mut busy = Duration::ZERO;
        let mut done = 0;
        while goes_on(done, plan.iters, t0, budget) {
            busy += once()?;
            done += 1;
        }
        if batch >= plan.warm {
            out.push(busy.as_secs_f64() * 1e6 / (done * per_call) as f64);
            calls += done;
        }
    }
    Ok((out, calls))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_budgeted_batch_ends_on_time_after_one_round_at_least() {
        use std::time::{Duration, Instant};
        let long_ago = Instant::now() - Duration::from_secs(5);
        assert!(super::goes_on(
            0,
            10,
            long_ago,
            Some(Duration::from_secs(1))
        ));
        assert!(!super::goes_on(
            1,
            10,
            long_ago,
            Some(Duration::from_secs(1))
        ));
        assert!(super::goes_on(9, 10, long_ago, None));
        assert!(!super::goes_on(
            10,
            10,
            Instant::now(),
            Some(Duration::from_secs(60))
        ));
    }

    #[test]
    fn a_quick_run_under_loss_times_fewer_shorter_batches_and_one_stream_batch() {
        use super::Plan;
        use std::time::Duration;
        let clean = Plan::new(true, None);
        assert!(clean.batch_budget.is_none() && clean.stream.per_check > 1);
        assert_eq!(Plan::new(true, Some(0.0)).batch_budget, None);
        let lossy = Plan::new(true, Some(50.0));
        assert_eq!(lossy.batch_budget, Some(Duration::from_millis(500)));
        for (b, was) in [
            (lossy.rtt, clean.rtt),
            (lossy.bursts, clean.bursts),
            (lossy.gap, clean.gap),
        ] {
            assert!(b.all() < was.all() && b.timed >= 3, "{b:?}");
        }
        assert_eq!((lossy.stream_batches, lossy.stream.per_check), (1, 1));
        // Fewer streamed messages the heavier the loss.
        assert_eq!(lossy.stream.most, 4);
        assert_eq!(Plan::new(true, Some(1.0)).stream.most, 16);
        assert_eq!(clean.stream.most, u64::MAX);
        assert!(lossy.stream.warm.is_zero());
        // A full run keeps its batches, each within its budget.
        let full = Plan::new(false, Some(50.0));
        assert_eq!(full.batch_budget, Some(Duration::from_secs(10)));
        assert_eq!(full.rtt.timed, Plan::new(false, None).rtt.timed);
    }

    #[test]
    fn doubling_sizes_cover_the_range() {
        let s = super::doubling(64 << 10);
        assert_eq!((s[0], *s.last().unwrap(), s.len()), (8, 64 << 10, 14));
        assert_eq!(super::doubling(16 << 20).len(), 22);
    }
}
