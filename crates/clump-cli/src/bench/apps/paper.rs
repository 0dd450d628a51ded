//! The papers' own figures for the runs of cases.rs, set beside clump's: paper 001's Tables
//! 3 to 6 (four 8-way Sun Enterprise 5000s on Myrinet, 1997) and paper 004's Table 5 (an
//! 8-node IBM SP, Split-C over SP AM, 1996). Counts do not depend on the machine; times do.

use super::runs::{Config, Run};
use super::traffic::Traffic;
use serde_json::{json, Value};
use Figure::*;

/// A figure both a paper and a run have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// Execution time, seconds.
    Time,
    /// Time in the communication phase, fastest and slowest processor, seconds (balance).
    CommMin,
    CommMax,
    /// Memory per processor, MB.
    Memory,
    /// Short messages per processor over the network and within the host, mean.
    NetShort,
    LocalShort,
    /// Local share of the messages to other processes, percent.
    LocalPercent,
}

impl Figure {
    pub fn name(self) -> &'static str {
        match self {
            Figure::Time => "time_s",
            Figure::CommMin => "comm_min_s",
            Figure::CommMax => "comm_max_s",
            Figure::Memory => "memory_mb",
            Figure::NetShort => "net_short_mean",
            Figure::LocalShort => "local_short_mean",
            Figure::LocalPercent => "local_percent",
        }
    }

    /// The run's own value of it.
    pub fn of(self, run: &Run) -> f64 {
        let t = Traffic::of(&run.ranks);
        match self {
            Figure::Time => run.time_s,
            Figure::CommMin => t.comm_s.min,
            Figure::CommMax => t.comm_s.max,
            Figure::Memory => t.mem_bytes.mean / 1e6,
            Figure::NetShort => t.net_short.mean,
            Figure::LocalShort => t.local_short.mean,
            Figure::LocalPercent => t.local_percent,
        }
    }
}

/// One figure of a paper: which run, version, configuration and process count it is of.
pub struct Reference {
    pub case: &'static str,
    /// `None`: the paper does not name one (it is set beside every version).
    pub version: Option<&'static str>,
    pub configs: &'static [Config],
    pub procs: u32,
    pub figure: Figure,
    pub value: f64,
    pub source: &'static str,
}

const SMP: &[Config] = &[Config::Smp];
const NOW: &[Config] = &[Config::Now];
/// Paper 001's Clump: 4 hosts of 8 processors.
const CLUMP4: &[Config] = &[Config::Clump(4)];
/// Paper 004's SP: 8 nodes, each on the switch; set beside an SMP and a NOW of 8 alike.
const SP: &[Config] = &[Config::Smp, Config::Now];

const T3: &str = "001 Table 3";
const T4: &str = "001 Table 4";
const T5: &str = "001 Table 5 (multi-protocol)";
const T5_SHM: &str = "001 Table 5 (single-protocol shm)";
const T5_MYRINET: &str = "001 Table 5 (Myrinet only)";
const T6: &str = "001 Table 6";
const SP_AM: &str = "004 Table 5 (SP AM)";
const SP_MPL: &str = "004 Table 5 (SP MPL)";

const fn r(
    case: &'static str,
    configs: &'static [Config],
    procs: u32,
    figure: Figure,
    value: f64,
    source: &'static str,
) -> Reference {
    Reference {
        case,
        version: None,
        configs,
        procs,
        figure,
        value,
        source,
    }
}

/// Paper 004's Table 5 time of a sort version on the SP.
const fn sort(
    case: &'static str,
    version: &'static str,
    value: f64,
    source: &'static str,
) -> Reference {
    Reference {
        version: Some(version),
        ..r(case, SP, 8, Figure::Time, value, source)
    }
}

pub const PAPERS: &[Reference] = &[
    // Table 3's memory and Table 4's traffic, per processor of the Clump of 32.
    r("fft", CLUMP4, 32, Memory, 14.0, T3),
    r("fft", CLUMP4, 32, NetShort, 3270.0, T4),
    r("fft", CLUMP4, 32, LocalShort, 954.0, T4),
    r("fft", CLUMP4, 32, LocalPercent, 22.6, T4),
    r("con/comm", CLUMP4, 32, Memory, 32.0, T3),
    r("con/comm", CLUMP4, 32, NetShort, 67236.0, T4),
    r("con/comm", CLUMP4, 32, LocalShort, 50138.0, T4),
    r("con/comm", CLUMP4, 32, LocalPercent, 42.7, T4),
    r("con/comp", CLUMP4, 32, Memory, 40.0, T3),
    r("con/comp", CLUMP4, 32, NetShort, 5993.0, T4),
    r("con/comp", CLUMP4, 32, LocalShort, 5890.0, T4),
    r("con/comp", CLUMP4, 32, LocalPercent, 49.5, T4),
    r("em3d/naive", CLUMP4, 32, Memory, 8.3, T3),
    r("em3d/naive", CLUMP4, 32, NetShort, 608817.0, T4),
    r("em3d/naive", CLUMP4, 32, LocalShort, 1013094.0, T4),
    r("em3d/naive", CLUMP4, 32, LocalPercent, 62.5, T4),
    r("em3d/good", CLUMP4, 32, Memory, 8.3, T3),
    r("em3d/good", CLUMP4, 32, NetShort, 407369.0, T4),
    r("em3d/good", CLUMP4, 32, LocalShort, 1216549.0, T4),
    r("em3d/good", CLUMP4, 32, LocalPercent, 74.9, T4),
    // Table 5: 8 processors, one SMP or a NOW, multi-protocol and single-protocol. Its one
    // EM3D run is a 2x2x2 grid, where the two layouts agree.
    r("fft", SMP, 8, Time, 9.0, T5),
    r("fft", SMP, 8, Time, 8.7, T5_SHM),
    r("fft", NOW, 8, Time, 7.0, T5),
    r("fft", NOW, 8, Time, 6.76, T5_MYRINET),
    r("con/comm", SMP, 8, Time, 2.1, T5),
    r("con/comm", SMP, 8, Time, 1.96, T5_SHM),
    r("con/comm", NOW, 8, Time, 4.01, T5),
    r("con/comm", NOW, 8, Time, 4.01, T5_MYRINET),
    r("con/comp", SMP, 8, Time, 1.44, T5),
    r("con/comp", SMP, 8, Time, 1.40, T5_SHM),
    r("con/comp", NOW, 8, Time, 1.18, T5),
    r("con/comp", NOW, 8, Time, 1.19, T5_MYRINET),
    r("em3d/good", SMP, 8, Time, 8.6, T5),
    r("em3d/good", SMP, 8, Time, 7.7, T5_SHM),
    r("em3d/good", NOW, 8, Time, 33.9, T5),
    r("em3d/good", NOW, 8, Time, 33.8, T5_MYRINET),
    // Table 6: the Clump of 4 x 8 and a NOW of 32, with EM3D's communication balance.
    r("fft", CLUMP4, 32, Time, 6.8, T6),
    r("fft", NOW, 32, Time, 2.2, T6),
    r("con/comm", CLUMP4, 32, Time, 15.0, T6),
    r("con/comm", NOW, 32, Time, 7.7, T6),
    r("con/comp", CLUMP4, 32, Time, 2.7, T6),
    r("con/comp", NOW, 32, Time, 1.3, T6),
    r("em3d/naive", CLUMP4, 32, Time, 54.0, T6),
    r("em3d/naive", NOW, 32, Time, 48.0, T6),
    r("em3d/good", CLUMP4, 32, Time, 38.0, T6),
    r("em3d/good", NOW, 32, Time, 52.0, T6),
    r("em3d/naive", CLUMP4, 32, CommMin, 28.0, T6),
    r("em3d/naive", CLUMP4, 32, CommMax, 52.0, T6),
    r("em3d/naive", NOW, 32, CommMin, 25.0, T6),
    r("em3d/naive", NOW, 32, CommMax, 47.0, T6),
    r("em3d/good", CLUMP4, 32, CommMin, 5.5, T6),
    r("em3d/good", CLUMP4, 32, CommMax, 37.0, T6),
    r("em3d/good", NOW, 32, CommMin, 28.0, T6),
    r("em3d/good", NOW, 32, CommMax, 51.0, T6),
    // Paper 004's Table 5: 8 SP nodes, Split-C over SP AM and over IBM's MPL.
    r("matmul/128", SP, 8, Time, 1.094, SP_AM),
    r("matmul/128", SP, 8, Time, 1.180, SP_MPL),
    r("matmul/16", SP, 8, Time, 0.229, SP_AM),
    r("matmul/16", SP, 8, Time, 0.489, SP_MPL),
    sort("samplesort", "small", 4.393, SP_AM),
    sort("samplesort", "small", 18.570, SP_MPL),
    sort("samplesort", "bulk", 1.814, SP_AM),
    sort("samplesort", "bulk", 1.811, SP_MPL),
    sort("radixsort", "small", 9.894, SP_AM),
    sort("radixsort", "small", 54.652, SP_MPL),
    sort("radixsort", "bulk", 3.543, SP_AM),
    sort("radixsort", "bulk", 3.587, SP_MPL),
];

impl Reference {
    fn matches(&self, run: &Run) -> bool {
        self.case == run.app
            && self.procs == run.procs
            && self.configs.contains(&run.config)
            && (self.version.is_none() || run.version == self.version)
    }
}

/// The papers' figures for `run`, each with the run's own value.
pub fn beside(run: &Run) -> Vec<(&'static Reference, f64)> {
    PAPERS
        .iter()
        .filter(|p| p.matches(run))
        .map(|p| (p, p.figure.of(run)))
        .collect()
}

pub fn json(run: &Run) -> Value {
    beside(run)
        .into_iter()
        .map(|(p, ours)| {
            json!({"figure": p.figure.name(), "source": p.source, "paper": p.value, "ours": ours})
        })
        .collect()
}

/// The rows of `runs` that a paper has figures for: ours beside the paper's.
pub fn print<'a>(runs: impl Iterator<Item = &'a Run>) {
    let rows: Vec<(&Run, Vec<(&Reference, f64)>)> = runs
        .map(|r| (r, beside(r)))
        .filter(|(_, b)| !b.is_empty())
        .collect();
    if rows.is_empty() {
        return;
    }
    println!("beside the papers (their machines of 1996-97; counts compare, times only in shape):");
    println!(
        "{:<8} {:<6} {:>5}  {:<17} {:>12} {:>12}  source",
        "version", "config", "procs", "figure", "clump", "paper"
    );
    for (r, refs) in rows {
        for (p, ours) in refs {
            println!(
                "{:<8} {:<6} {:>5}  {:<17} {:>12.3} {:>12.3}  {}",
                r.version.unwrap_or("-"),
                r.config.name(),
                r.procs,
                p.figure.name(),
                ours,
                p.value,
                p.source
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::runs::sample;
    use super::*;

    #[test]
    fn each_paper_figure_finds_its_run_and_no_other() {
        let mut clump = sample("con/comm", Config::Clump(4), 32, 12.0);
        let got: Vec<(&str, f64, f64)> = beside(&clump)
            .into_iter()
            .map(|(p, ours)| (p.figure.name(), p.value, ours))
            .collect();
        assert!(got.contains(&("time_s", 15.0, 12.0)), "{got:?}");
        assert!(got.contains(&("local_percent", 42.7, 0.0)), "{got:?}");
        assert!(got.iter().any(|g| g.0 == "memory_mb"));
        // The paper's Clump is 4 hosts; on 2 its figures do not apply.
        clump.config = Config::Clump(2);
        assert!(beside(&clump).is_empty());
        // Paper 004's times are per version: the small sort gets SP AM's and MPL's.
        let mut small = sample("radixsort", Config::Now, 8, 5.0);
        small.version = Some("small");
        let sources: Vec<&str> = beside(&small).iter().map(|(p, _)| p.source).collect();
        assert_eq!(sources, ["004 Table 5 (SP AM)", "004 Table 5 (SP MPL)"]);
        small.procs = 4;
        assert!(beside(&small).is_empty());
        // Every figure names a run of cases.rs.
        for p in PAPERS {
            assert!(
                super::super::cases::Case::find(p.case).is_some(),
                "{}",
                p.case
            );
            assert!(!p.source.is_empty());
        }
    }
}
