//! Results of `clump bench loggp`: derived figures and the JSON object (built by rank 0),
//! and the readable table (printed by the parent from that JSON).

use super::stats::{half_power_point, linear_fit, max, median, min};
use super::stream::SizeResult;
use clump::Kind;
use serde_json::{json, Value};
use std::io::{self, Write};

/// The targets of the issues, as ratios to the hardware baseline or the reference run.
pub const RTT_VS_RAW_MAX: f64 = 1.5;
pub const LONG_1MIB_VS_MEMCPY_MIN: f64 = 0.8;
/// Medium 8 KiB against memcpy of 1 MiB (issue 10): a copy of 8 KiB between two buffers
/// that stay in the first-level cache is no payload's fate across cores.
pub const MEDIUM_8KIB_VS_MEMCPY_MIN: f64 = 0.8;
pub const G_VS_RING_MAX: f64 = 25.0;
pub const UDP_RTT_VS_RAW_MAX: f64 = 1.25;
pub const UDP_LONG_64KIB_VS_STREAM_MIN: f64 = 0.7;
pub const WITH_NETWORK_RTT_MAX: f64 = 1.15;
pub const GOODPUT_UNDER_LOSS_MIN: f64 = 0.6;
/// Long sizes fitted for G: the largest this many.
const G_FIT_SIZES: usize = 4;

/// A second endpoint pair measured beside the main one, batch by batch.
pub enum Reference {
    /// `--with-network`: the 0-argument round trip with the network off.
    WithoutNetwork { rtt_us: Vec<f64> },
    /// `--loss`: goodput of one long size with and without the injected loss.
    Lossless {
        loss: f64,
        bytes: usize,
        lossless_mb_s: Vec<f64>,
        lossy_mb_s: Vec<f64>,
    },
}

/// How one side's datagrams went out (clump's or the bare stream's).
#[derive(Clone, Copy, Debug)]
pub struct Datagrams {
    /// The largest datagram sent.
    pub bytes: usize,
    /// Whether the socket could send segmentation-offload super-datagrams.
    pub segmentation: bool,
    /// Super-datagrams it sent.
    pub super_datagrams: u64,
    /// Packets sent behind another in one datagram (clump's coalescing; 0 for the bare
    /// stream, one message per datagram), and datagrams sent.
    pub coalesced: u64,
    pub sent: u64,
}

impl Datagrams {
    fn to_json(self) -> Value {
        json!({
            "bytes": self.bytes,
            "segmentation": self.segmentation,
            "super_datagrams": self.super_datagrams,
            "coalesced": self.coalesced,
            "sent": self.sent,
        })
    }
}

/// "1472-B datagrams in GSO super-datagrams", from [`Datagrams::to_json`].
fn datagram_mode(v: &Value) -> String {
    let bytes = v["bytes"].as_u64().unwrap_or(0);
    let how = match (v["super_datagrams"].as_u64(), v["segmentation"].as_bool()) {
        (Some(n), _) if n > 0 => "in GSO super-datagrams",
        (_, Some(true)) => "one per send (GSO there, runs too short or datagrams too large for it)",
        _ => "one per send (no GSO: the kernel lacks it, or CLUMP_NET_OFFLOAD=0)",
    };
    let (coalesced, sent) = (
        v["coalesced"].as_u64().unwrap_or(0),
        v["sent"].as_u64().unwrap_or(0),
    );
    if coalesced == 0 {
        return format!("{bytes}-B datagrams {how}");
    }
    format!(
        "{bytes}-B datagrams {how}, {} packets in {sent} datagrams",
        sent + coalesced
    )
}

/// How many timed samples each figure rests on, summed over its timed batches: under
/// `--loss` a batch ends on time and may hold few.
#[derive(Clone, Copy, Debug, Default)]
pub struct Samples {
    /// Round trips of the headline RTT (0 arguments).
    pub rtt_rounds: u64,
    pub os_messages: u64,
    pub or_messages: u64,
    pub g_messages: u64,
}

/// Everything rank 0 measured; per-batch figures, summarised here.
pub struct Results {
    pub transport: &'static str,
    pub with_network: bool,
    /// The receiver's segment is program memory, reached by cross-memory attach.
    pub program_segment: bool,
    /// How the measured endpoint's polls look at its socket: "doorbell" or "rationed"
    /// (001's policy alone); `None` with the network off.
    pub net_polls: Option<&'static str>,
    /// How clump's datagrams and the bare stream's went out; `None` over shared memory.
    pub datagrams: Option<[Datagrams; 2]>,
    pub reference: Option<Reference>,
    pub quick: bool,
    pub pinned: bool,
    pub cpus: Vec<Option<usize>>,
    pub raw_rtt_us: Vec<f64>,
    /// A short bare ping-pong after each size of the bandwidth curve (`base_sizes`).
    pub raw_probe_us: Vec<f64>,
    /// The bandwidth baseline's MB/s per batch at each size of `base_sizes`: memcpy
    /// (shared memory) or a bare UDP stream (network).
    pub base_sizes: Vec<usize>,
    pub base_mb_s: Vec<Vec<f64>>,
    pub rtt_by_args: Vec<(usize, Vec<f64>)>,
    pub os_us: Vec<f64>,
    pub or_us: Vec<f64>,
    pub g_us: Vec<f64>,
    pub samples: Samples,
    /// Shared memory: ns per message of the bare one-way stream, a batch before each of g.
    pub ring_ns: Vec<f64>,
    pub bandwidth: Vec<SizeResult>,
    pub checks: u32,
    pub check_failures: u32,
    pub seconds: f64,
}

impl Results {
    fn base_at(&self, bytes: usize) -> f64 {
        self.base_sizes
            .iter()
            .position(|&n| n == bytes)
            .map_or(f64::NAN, |i| median(&self.base_mb_s[i]))
    }

    fn network(&self) -> bool {
        self.transport != "shm"
    }

    /// Each target: its name, the ratio's key, the measured ratio, the bound, and
    /// whether the ratio must stay below it (true) or reach it (false).
    fn targets(&self, rtt_vs_raw: f64) -> Vec<(&'static str, &'static str, f64, f64, bool)> {
        let mut t = if self.network() {
            vec![
                (
                    "UDP short RTT vs bare UDP ping-pong",
                    "rtt_vs_raw",
                    rtt_vs_raw,
                    UDP_RTT_VS_RAW_MAX,
                    true,
                ),
                (
                    "UDP long 64 KiB vs bare UDP stream",
                    "long_64kib_vs_stream",
                    self.stream_at(Kind::Long, 64 << 10) / self.base_at(64 << 10),
                    UDP_LONG_64KIB_VS_STREAM_MIN,
                    false,
                ),
            ]
        } else {
            vec![
                (
                    "short RTT vs bare ping-pong",
                    "rtt_vs_raw",
                    rtt_vs_raw,
                    RTT_VS_RAW_MAX,
                    true,
                ),
                (
                    "long 1 MiB bandwidth vs memcpy",
                    "long_1mib_vs_memcpy",
                    self.stream_at(Kind::Long, 1 << 20) / self.base_at(1 << 20),
                    LONG_1MIB_VS_MEMCPY_MIN,
                    false,
                ),
                (
                    "medium 8 KiB vs memcpy of 1 MiB",
                    "medium_8kib_vs_memcpy",
                    self.stream_at(Kind::Medium, 8 << 10) / self.base_at(1 << 20),
                    MEDIUM_8KIB_VS_MEMCPY_MIN,
                    false,
                ),
                (
                    "g vs bare streaming ring",
                    "g_vs_ring",
                    self.g_vs_ring(),
                    G_VS_RING_MAX,
                    true,
                ),
            ]
        };
        match &self.reference {
            Some(Reference::WithoutNetwork { rtt_us }) => t.push((
                "shm RTT with the network on vs off",
                "rtt_with_network_vs_without",
                self.rtt0() / median(rtt_us),
                WITH_NETWORK_RTT_MAX,
                true,
            )),
            Some(Reference::Lossless {
                lossless_mb_s,
                lossy_mb_s,
                ..
            }) => t.push((
                "goodput under loss vs lossless",
                "goodput_vs_lossless",
                median(lossy_mb_s) / median(lossless_mb_s),
                GOODPUT_UNDER_LOSS_MIN,
                false,
            )),
            None => {}
        }
        t
    }

    /// g over the bare stream's time per message, batch by batch (each pair ran side by
    /// side); the median of those ratios.
    fn g_vs_ring(&self) -> f64 {
        let ratios: Vec<f64> = self
            .g_us
            .iter()
            .zip(&self.ring_ns)
            .map(|(g, ring)| g * 1000.0 / ring)
            .collect();
        median(&ratios)
    }

    fn rtt0(&self) -> f64 {
        self.rtt_by_args
            .first()
            .map_or(f64::NAN, |(_, b)| median(b))
    }

    fn stream_at(&self, kind: Kind, bytes: usize) -> f64 {
        self.bandwidth
            .iter()
            .find(|r| r.kind == kind && r.bytes == bytes)
            .map_or(f64::NAN, |r| median(&r.mb_s))
    }
}

/// The JSON object rank 0 prints. Headline figures are medians across batches; `min`
/// holds the best batch of each.
pub fn to_json(r: &Results) -> Value {
    let rtt = r.rtt0();
    let rtt_min = r.rtt_by_args.first().map_or(f64::NAN, |(_, b)| min(b));
    let (os, or, g, raw) = (
        median(&r.os_us),
        median(&r.or_us),
        median(&r.g_us),
        median(&r.raw_rtt_us),
    );
    let latency = rtt / 2.0 - os - or;
    let latency_min = rtt_min / 2.0 - min(&r.os_us) - min(&r.or_us);
    let fit = LongFit::of(r);
    let (ratios, targets) = targets_json(r, rtt / raw);
    json!({
        "benchmark": "loggp",
        "transport": r.transport,
        "with_network": r.with_network,
        "segment": if r.program_segment { "program memory" } else { "shared region" },
        "net_polls": r.net_polls,
        "datagrams": r.datagrams.map(|[c, b]| json!({"clump": c.to_json(), "bare": b.to_json()})),
        "quick": r.quick,
        "pinned": r.pinned,
        "cpus": r.cpus,
        "rtt_us": rtt,
        "os_us": os,
        "or_us": or,
        "g_us": g,
        "L_us": latency,
        "G_ns_per_byte": fit.g_ns_per_byte,
        "inv_G_mb_s": 1000.0 / fit.g_ns_per_byte,
        "peak_mb_s": fit.peak,
        "peak_bytes": fit.peak_bytes,
        "peak_vs_baseline": fit.peak / r.base_at(fit.peak_bytes),
        "half_power_bytes": fit.half_power,
        "rtt_by_args": rtt_by_args_json(r),
        "bandwidth": bandwidth_json(r),
        "baseline": baseline_json(r, raw),
        "ratios": ratios,
        "targets": targets,
        "reference": reference_json(&r.reference),
        "min": {
            "rtt_us": rtt_min,
            "os_us": min(&r.os_us),
            "or_us": min(&r.or_us),
            "g_us": min(&r.g_us),
            "L_us": latency_min,
            "raw_rtt_us": min(&r.raw_rtt_us),
        },
        "batches": batches_json(r),
        "verified": {"checks": r.checks, "failures": r.check_failures},
        "seconds": r.seconds,
    })
}

/// The long messages' curve read as LogGP: G, the peak and where half of it is reached.
struct LongFit {
    g_ns_per_byte: f64,
    peak: f64,
    peak_bytes: usize,
    half_power: f64,
}

impl LongFit {
    fn of(r: &Results) -> LongFit {
        let long: Vec<(usize, f64)> = r
            .bandwidth
            .iter()
            .filter(|s| s.kind == Kind::Long)
            .map(|s| (s.bytes, median(&s.mb_s)))
            .collect();
        // Time per message in ns is bytes * 1000 / MB/s; its slope over the largest sizes
        // is G. The fit takes each size's best batch: other load only ever adds time, and
        // medians of a disturbed run can make the slope meaningless (even negative).
        let best_long: Vec<(usize, f64)> = r
            .bandwidth
            .iter()
            .filter(|s| s.kind == Kind::Long)
            .map(|s| (s.bytes, max(&s.mb_s)))
            .collect();
        let top = &best_long[best_long.len().saturating_sub(G_FIT_SIZES)..];
        let points: Vec<(f64, f64)> = top
            .iter()
            .map(|&(n, mb)| (n as f64, n as f64 * 1000.0 / mb))
            .collect();
        let peak = max(&long.iter().map(|l| l.1).collect::<Vec<_>>());
        LongFit {
            g_ns_per_byte: linear_fit(&points).map_or(f64::NAN, |(_, slope)| slope),
            peak,
            peak_bytes: long.iter().find(|l| l.1 == peak).map_or(0, |l| l.0),
            half_power: half_power_point(&long, peak).unwrap_or(f64::NAN),
        }
    }
}

/// Each size of the bandwidth curve beside its baseline and the bare round trip after it.
fn bandwidth_json(r: &Results) -> Vec<Value> {
    let probe_at = |bytes| {
        let i = r.base_sizes.iter().position(|&n| n == bytes);
        i.and_then(|i| r.raw_probe_us.get(i).copied())
            .unwrap_or(f64::NAN)
    };
    r.bandwidth
        .iter()
        .map(|s| {
            let mb = median(&s.mb_s);
            let base = r.base_at(s.bytes);
            json!({
                "kind": if s.kind == Kind::Medium { "medium" } else { "long" },
                "bytes": s.bytes,
                "mb_s": mb,
                "mb_s_best": max(&s.mb_s),
                "baseline_mb_s": base,
                "ratio": mb / base,
                "messages": s.messages,
                "raw_rtt_us": probe_at(s.bytes),
            })
        })
        .collect()
}

fn rtt_by_args_json(r: &Results) -> Vec<Value> {
    r.rtt_by_args
        .iter()
        .map(|(a, b)| json!({"args": a, "rtt_us": median(b), "rtt_us_min": min(b)}))
        .collect()
}

/// The bare baselines: their names, the round trip (`raw`, its median), the bandwidth
/// curve, and the ring stream beside g.
fn baseline_json(r: &Results, raw: f64) -> Value {
    let headline_bytes = if r.network() { 64 << 10 } else { 1 << 20 };
    let base_curve: Vec<Value> = r
        .base_sizes
        .iter()
        .zip(&r.base_mb_s)
        .map(|(n, b)| json!({"bytes": n, "mb_s": median(b), "mb_s_best": max(b)}))
        .collect();
    let all_raw: Vec<f64> = r
        .raw_rtt_us
        .iter()
        .chain(&r.raw_probe_us)
        .copied()
        .collect();
    json!({
        "rtt_name": if r.network() { "bare UDP ping-pong" } else { "bare ping-pong" },
        "bandwidth_name": if r.network() { "bare UDP stream" } else { "memcpy" },
        "raw_rtt_us": raw,
        "raw_rtt_us_min": min(&r.raw_rtt_us),
        "bandwidth_bytes": headline_bytes,
        "bandwidth_mb_s": r.base_at(headline_bytes),
        "curve": base_curve,
        // Every bare ping-pong batch of the run (RTT phase and bandwidth probes): how
        // far apart the two cores were, and whether that changed during the run.
        "raw_rtt_us_range": [min(&all_raw), max(&all_raw)],
        // Shared memory: the bare one-way stream measured beside g (ns per message).
        "ring_ns_per_msg": if r.ring_ns.is_empty() { Value::Null } else { json!(median(&r.ring_ns)) },
        "ring_ns_per_msg_min": if r.ring_ns.is_empty() { Value::Null } else { json!(min(&r.ring_ns)) },
    })
}

/// The targets' ratios by key, and each target with its bound and whether it was met.
fn targets_json(r: &Results, rtt_vs_raw: f64) -> (serde_json::Map<String, Value>, Vec<Value>) {
    let targets = r.targets(rtt_vs_raw);
    let ratios = targets
        .iter()
        .map(|&(_, key, ratio, _, _)| (key.to_string(), json!(ratio)))
        .collect();
    let list = targets
        .iter()
        .map(|&(name, key, ratio, bound, below)| {
            json!({
                "name": name,
                "ratio": key,
                "measured": ratio,
                "bound": bound,
                "at_most": below,
                "met": if below { ratio <= bound } else { ratio >= bound },
            })
        })
        .collect();
    (ratios, list)
}

fn reference_json(reference: &Option<Reference>) -> Value {
    match reference {
        None => Value::Null,
        Some(Reference::WithoutNetwork { rtt_us }) => json!({
            "kind": "network off",
            "rtt_us": median(rtt_us),
            "rtt_us_min": min(rtt_us),
        }),
        Some(Reference::Lossless {
            loss,
            bytes,
            lossless_mb_s,
            lossy_mb_s,
        }) => json!({
            "kind": "no loss",
            "loss_percent": loss,
            "bytes": bytes,
            "lossless_mb_s": median(lossless_mb_s),
            "lossy_mb_s": median(lossy_mb_s),
        }),
    }
}

/// How many batches and samples each figure rests on.
fn batches_json(r: &Results) -> Value {
    json!({
        "raw_rtt": r.raw_rtt_us.len(),
        "rtt": r.rtt_by_args.first().map_or(0, |(_, b)| b.len()),
        "os": r.os_us.len(),
        "or": r.or_us.len(),
        "g": r.g_us.len(),
        "rtt_rounds": r.samples.rtt_rounds,
        "os_messages": r.samples.os_messages,
        "or_messages": r.samples.or_messages,
        "g_messages": r.samples.g_messages,
    })
}

fn f(v: &Value, path: &[&str]) -> f64 {
    let mut v = v;
    for key in path {
        v = &v[*key];
    }
    v.as_f64().unwrap_or(f64::NAN)
}

fn met(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "missed"
    }
}

/// `bytes` in its natural unit: "512 B", "16 KiB", "4 MiB".
pub(super) fn size(bytes: f64) -> String {
    let b = bytes as u64;
    if b >= 1 << 20 && b & ((1 << 20) - 1) == 0 {
        format!("{} MiB", b >> 20)
    } else if b >= 1 << 10 && b & ((1 << 10) - 1) == 0 {
        format!("{} KiB", b >> 10)
    } else {
        format!("{b} B")
    }
}

/// One line per figure: what it is and which way is good; what a missed target means.
const LOGGP_LEGEND: &str = "
What the figures mean (times: lower is better; bandwidth: higher is better):
  clump/base clump's figure divided by the bare baseline's measured beside it, 1.00x being
             the hardware: for times (RTT, g) above 1x is clump slower, for bandwidth below
             1x is; each target says which way it bounds its ratio (<= or >=).
  RTT        a short request and its reply, there and back: the latency a program waits.
  o_s, o_r   processor time to send, to receive one message: time the program cannot compute.
  g          the shortest interval between messages sent back to back: 1/g is the message rate
             (shared memory: beside a bare one-way stream through a ring of one-line slots).
  L          what is left of RTT/2 after both overheads: time in the queue or on the wire.
  G, 1/G     time per extra byte of long messages at large sizes: 1/G is the bandwidth a
             stream of large messages tends to.
  peak, n1/2 the best bandwidth measured, and the size that reaches half of it (smaller is better).
  missed     this run fell short of the project's target: rerun on an idle machine (other
             load skews it, see the note below); missed again, it is a performance bug to report.";

/// The readable table: each figure beside its baseline and ratio, then the targets.
pub fn print_table(v: &Value, out: &mut impl Write) -> io::Result<()> {
    print_heading(v, out)?;
    print_loggp(v, out)?;
    writeln!(out)?;
    print_bandwidth(v, out)?;
    print_reference(&v["reference"], out)?;
    writeln!(out)?;
    print_targets(v, out)?;
    writeln!(out, "{LOGGP_LEGEND}")?;
    print_notes(v, out)
}

/// What ran where, how the datagrams went out, and what the figures rest on.
fn print_heading(v: &Value, out: &mut impl Write) -> io::Result<()> {
    let cpus: Vec<String> = v["cpus"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| c.as_u64().map_or("-".into(), |c| c.to_string()))
                .collect()
        })
        .unwrap_or_default();
    writeln!(
        out,
        "clump bench loggp: transport {}{}, segment in {}, 2 processes, {} (CPUs {}), {} run, {:.1} s",
        v["transport"].as_str().unwrap_or("?"),
        v["net_polls"]
            .as_str()
            .map_or(String::new(), |p| format!(" (network polls: {p})")),
        v["segment"].as_str().unwrap_or("?"),
        if v["pinned"].as_bool() == Some(true) {
            "pinned"
        } else {
            "NOT pinned"
        },
        cpus.join(","),
        if v["quick"].as_bool() == Some(true) {
            "quick"
        } else {
            "full"
        },
        f(v, &["seconds"]),
    )?;
    if v["datagrams"].is_object() {
        writeln!(
            out,
            "Network mode: clump sent {}; the bare stream {}.",
            datagram_mode(&v["datagrams"]["clump"]),
            datagram_mode(&v["datagrams"]["bare"]),
        )?;
    }
    writeln!(
        out,
        "Figures are medians across batches [best batch]; times in microseconds."
    )?;
    writeln!(out, "{}", samples_line(&v["batches"]))?;
    writeln!(out)
}

/// The LogGP figures: RTT by arguments, the overheads and gap, L, G, peak, n1/2.
fn print_loggp(v: &Value, out: &mut impl Write) -> io::Result<()> {
    let raw = f(v, &["baseline", "raw_rtt_us"]);
    let raw_name = v["baseline"]["rtt_name"].as_str().unwrap_or("baseline");
    let bw_name = v["baseline"]["bandwidth_name"]
        .as_str()
        .unwrap_or("baseline");
    writeln!(
        out,
        "LogGP                      clump            baseline                  clump/base"
    )?;
    for a in v["rtt_by_args"].as_array().into_iter().flatten() {
        let rtt = f(a, &["rtt_us"]);
        writeln!(
            out,
            "  RTT, {:>2} args        {:>8.3} [{:.3}]   {raw_name:<18} {:>8.3}   {:>6.2}x",
            a["args"].as_u64().unwrap_or(0),
            rtt,
            f(a, &["rtt_us_min"]),
            raw,
            rtt / raw
        )?;
    }
    print_overheads(v, out)?;
    writeln!(
        out,
        "  L = RTT/2-o_s-o_r   {:>8.3} [{:.3}]",
        f(v, &["L_us"]),
        f(v, &["min", "L_us"])
    )?;
    writeln!(
        out,
        "  G gap per byte      {:>8.5} ns/B  (1/G {:.0} MB/s; slope of the best time per message over the {G_FIT_SIZES} largest long sizes)",
        f(v, &["G_ns_per_byte"]),
        f(v, &["inv_G_mb_s"]),
    )?;
    writeln!(
        out,
        "  peak long bandwidth {:>8.0} MB/s at {}, {:.2}x {bw_name} of that size",
        f(v, &["peak_mb_s"]),
        size(f(v, &["peak_bytes"])),
        f(v, &["peak_vs_baseline"])
    )?;
    writeln!(
        out,
        "  half-power point    {:>8.0} B",
        f(v, &["half_power_bytes"])
    )
}

/// o_s, o_r and g, g beside the bare ring stream where there is one.
fn print_overheads(v: &Value, out: &mut impl Write) -> io::Result<()> {
    for (name, key) in [
        ("o_s send overhead", "os_us"),
        ("o_r recv overhead", "or_us"),
        ("g gap", "g_us"),
    ] {
        write!(
            out,
            "  {name:<19} {:>8.3} [{:.3}]",
            f(v, &[key]),
            f(v, &["min", key])
        )?;
        let ring = f(v, &["baseline", "ring_ns_per_msg"]);
        if key == "g_us" && !ring.is_nan() {
            write!(
                out,
                "   bare ring stream   {:>8.4}   {:>6.2}x",
                ring / 1000.0,
                f(v, &["ratios", "g_vs_ring"])
            )?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// One line per size of the bandwidth curve.
fn print_bandwidth(v: &Value, out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "Bandwidth (MB/s = 10^6 B/s)  clump MB/s   [best]   baseline MB/s  clump/base  bare RTT us  messages"
    )?;
    for b in v["bandwidth"].as_array().into_iter().flatten() {
        writeln!(
            out,
            "  {:<6} {:>8}        {:>10.0} {:>9.0} {:>14.0} {:>10.2}x {:>12.3} {:>9}",
            b["kind"].as_str().unwrap_or("?"),
            size(f(b, &["bytes"])),
            f(b, &["mb_s"]),
            f(b, &["mb_s_best"]),
            f(b, &["baseline_mb_s"]),
            f(b, &["ratio"]),
            f(b, &["raw_rtt_us"]),
            b["messages"].as_u64().unwrap_or(0)
        )?;
    }
    Ok(())
}

/// The reference run measured beside the main one, if any.
fn print_reference(reference: &Value, out: &mut impl Write) -> io::Result<()> {
    match reference["kind"].as_str() {
        Some("network off") => writeln!(
            out,
            "\nRTT, 0 args, with the network off beside it: {:.3} [{:.3}] us",
            f(reference, &["rtt_us"]),
            f(reference, &["rtt_us_min"])
        ),
        Some("no loss") => writeln!(
            out,
            "\nGoodput of {} long messages: {:.0} MB/s at {}% loss, {:.0} MB/s without",
            size(f(reference, &["bytes"])),
            f(reference, &["lossy_mb_s"]),
            f(reference, &["loss_percent"]),
            f(reference, &["lossless_mb_s"])
        ),
        _ => Ok(()),
    }
}

fn print_targets(v: &Value, out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "Targets                                       measured   target   result"
    )?;
    for t in v["targets"].as_array().into_iter().flatten() {
        let cmp = if t["at_most"].as_bool() == Some(true) {
            "<="
        } else {
            ">="
        };
        writeln!(
            out,
            "  {:<42} {:>7.2}x   {cmp} {:.2}x   {}",
            t["name"].as_str().unwrap_or("?"),
            f(t, &["measured"]),
            f(t, &["bound"]),
            met(t["met"].as_bool() == Some(true))
        )?;
    }
    Ok(())
}

/// A warning when the bare round trip moved during the run, and the payload checks.
fn print_notes(v: &Value, out: &mut impl Write) -> io::Result<()> {
    let range = &v["baseline"]["raw_rtt_us_range"];
    let (lo, hi) = (
        range[0].as_f64().unwrap_or(0.0),
        range[1].as_f64().unwrap_or(0.0),
    );
    if hi > 1.5 * lo {
        writeln!(
            out,
            "\nNote: the bare ping-pong between the two cores ranged from {lo:.3} to {hi:.3} us \
             during the run (the cores' placement changed); compare figures with the baseline \
             taken beside them, not across the run."
        )?;
    }
    let checks = &v["verified"];
    writeln!(
        out,
        "\nData verified: {} payload checks, {} failed.",
        checks["checks"].as_u64().unwrap_or(0),
        checks["failures"].as_u64().unwrap_or(0)
    )
}

/// What the figures rest on, from the JSON's `batches`: "Timed samples: RTT 2500 round
/// trips in 5 batches, o_s 4000 messages, ...".
fn samples_line(b: &Value) -> String {
    let n = |k: &str| b[k].as_u64().unwrap_or(0);
    format!(
        "Timed samples: RTT {} round trips in {} batches, o_s {} messages, g {}, o_r {}; \
         bandwidth: messages per size in its last column.",
        n("rtt_rounds"),
        n("rtt"),
        n("os_messages"),
        n("g_messages"),
        n("or_messages"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Under loss a batch ends on time: the table says how many samples each figure has.
    #[test]
    fn the_table_says_how_many_samples_the_figures_rest_on() {
        let b = json!({"rtt": 3, "rtt_rounds": 7, "os_messages": 16, "g_messages": 40,
            "or_messages": 24});
        assert_eq!(
            samples_line(&b),
            "Timed samples: RTT 7 round trips in 3 batches, o_s 16 messages, g 40, o_r 24; \
             bandwidth: messages per size in its last column."
        );
    }

    #[test]
    fn sizes_print_in_their_natural_unit() {
        assert_eq!(size(8.0), "8 B");
        assert_eq!(size(8192.0), "8 KiB");
        assert_eq!(size(16.0 * 1048576.0), "16 MiB");
        assert_eq!(size(1536.0), "1536 B");
    }
}
