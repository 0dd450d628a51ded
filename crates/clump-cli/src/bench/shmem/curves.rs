//! The curves of `clump bench shmem`: each figure of `shmembench.c` by size, over shared
//! memory beside UDP, with how many times faster shared memory is; and `--plot`'s charts.

use crate::bench::mpi::figures::parse_line;
use crate::bench::plot::{self, Axis, Chart, Scale, Series, Style};
use serde_json::Value;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// One figure at one size over one transport.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub transport: &'static str,
    pub bench: String,
    pub bytes: u64,
    pub value: f64,
    pub unit: String,
}

/// The points of the lines `shmembench.c` printed over `transport`.
pub fn parse(transport: &'static str, out: &str) -> Vec<Point> {
    out.lines()
        .filter_map(parse_line)
        .map(|(bench, bytes, value, unit)| Point {
            transport,
            bench,
            bytes,
            value,
            unit,
        })
        .collect()
}

pub fn to_json(points: &[Point]) -> Value {
    points
        .iter()
        .map(|p| {
            serde_json::json!({"transport": p.transport, "bench": p.bench, "bytes": p.bytes,
                "value": p.value, "unit": p.unit})
        })
        .collect()
}

/// How many times faster `shm` is than `udp`: times, UDP's over shared memory's; rates,
/// the other way round.
fn speedup(shm: &Point, udp: &Point) -> f64 {
    if shm.is_rate() {
        shm.value / udp.value
    } else {
        udp.value / shm.value
    }
}

impl Point {
    fn is_rate(&self) -> bool {
        self.unit.ends_with("/s")
    }

    fn same_figure(&self, other: &Point) -> bool {
        (self.transport, &self.bench, self.bytes) == (other.transport, &other.bench, other.bytes)
    }
}

/// Folds `more`, the points of another run, into `best`: each figure keeps its best value
/// (the least time, the highest rate), as each run keeps the best of its batches.
pub fn keep_best(best: &mut Vec<Point>, more: Vec<Point>) {
    for p in more {
        match best.iter_mut().find(|b| b.same_figure(&p)) {
            Some(b) if b.is_rate() == (p.value > b.value) => b.value = p.value,
            Some(_) => {}
            None => best.push(p),
        }
    }
}

/// One line per figure and size: shared memory, UDP, and shared memory's speedup.
pub fn print_table(points: &[Point], out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "\n{:<10} {:>9} {:>12} {:>12} {:>9}  unit",
        "curve", "bytes", "shm", "udp", "shm/udp"
    )?;
    for shm in points.iter().filter(|p| p.transport == "shm") {
        let udp = points
            .iter()
            .find(|p| p.transport == "udp" && p.bench == shm.bench && p.bytes == shm.bytes);
        let (udp_value, ratio) = match udp {
            Some(u) => (
                format!("{:.3}", u.value),
                format!("{:.2}x", speedup(shm, u)),
            ),
            None => ("-".into(), "-".into()),
        };
        writeln!(
            out,
            "{:<10} {:>9} {:>12.3} {:>12} {:>9}  {}",
            shm.bench, shm.bytes, shm.value, udp_value, ratio, shm.unit
        )?;
    }
    writeln!(
        out,
        "shm/udp: how many times faster shared memory is than UDP (times: UDP / shm; rates:\n  \
         shm / UDP). put+fence beside put+quiet: what each costs after a put."
    )
}

/// The curves of one chart: (bench, legend name).
type Curves = &'static [(&'static str, &'static str)];

/// (chart file, what it shows, the curves on it).
const CHARTS: [(&str, &str, Curves); 7] = [
    (
        "shmem-latency",
        "latency: put + quiet, blocking get",
        &[("put_lat", "put + quiet"), ("get_lat", "get")],
    ),
    (
        "shmem-bandwidth",
        "bandwidth: a stream of puts, of non-blocking gets",
        &[("put_bw", "put"), ("get_bw", "get")],
    ),
    (
        "shmem-fence",
        "a put followed by shmem_fence or shmem_quiet",
        &[("put+fence", "put + fence"), ("put+quiet", "put + quiet")],
    ),
    (
        "shmem-reduce",
        "sum reduce of longs, slower PE",
        &[("reduce", "reduce")],
    ),
    (
        "shmem-fcollect",
        "fcollect (bytes per PE), slower PE",
        &[("fcollect", "fcollect")],
    ),
    (
        "shmem-broadcast",
        "broadcast, slower PE",
        &[("broadcast", "broadcast")],
    ),
    (
        "shmem-alltoall",
        "alltoall (bytes per PE), slower PE",
        &[("alltoall", "alltoall")],
    ),
];

/// Writes one PNG per chart with points in `points`; `doc` is the run's JSON document.
pub fn write_plots(dir: &Path, points: &[Point], doc: &Value) -> Result<Vec<PathBuf>, String> {
    plot::prepare(dir)?;
    charts(points, doc)
        .iter()
        .map(|c| plot::draw(dir, c))
        .collect()
}

fn charts(points: &[Point], doc: &Value) -> Vec<Chart<'static>> {
    CHARTS
        .into_iter()
        .filter_map(|(name, what, curves)| {
            let mut series = Vec::new();
            for &(bench, legend) in curves {
                for (transport, over) in [("shm", "shared memory"), ("udp", "UDP")] {
                    series.push(Series {
                        name: format!("{legend}, {over}"),
                        points: points
                            .iter()
                            .filter(|p| p.bench == bench && p.transport == transport)
                            .map(|p| (p.bytes as f64, p.value))
                            .collect(),
                        style: Style::Line,
                    });
                }
            }
            series.retain(|s| !s.points.is_empty());
            let rate = points
                .iter()
                .find(|p| curves.iter().any(|c| c.0 == p.bench))?
                .unit
                .ends_with("/s");
            let values = series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
            Some(Chart {
                name,
                title: format!("OpenSHMEM {what}: shared memory and UDP"),
                subtitle: plot::subtitle(doc),
                x: Axis {
                    desc: "message size",
                    scale: Scale::Bytes,
                },
                y: Axis {
                    desc: if rate { "MB/s" } else { "microseconds" },
                    scale: plot::scale_for(values),
                },
                series,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(transport: &'static str, bench: &str, bytes: u64, value: f64, unit: &str) -> Point {
        Point {
            transport,
            bench: bench.into(),
            bytes,
            value,
            unit: unit.into(),
        }
    }

    #[test]
    fn lines_become_points_and_shared_memory_is_set_against_udp() {
        let shm = parse(
            "shm",
            "noise\n{\"bench\":\"put_lat\",\"bytes\":8,\"value\":0.5,\"unit\":\"us\"}\n\
             {\"bench\":\"put_bw\",\"bytes\":8,\"value\":400.0,\"unit\":\"MB/s\"}\n",
        );
        assert_eq!(
            shm,
            [
                point("shm", "put_lat", 8, 0.5, "us"),
                point("shm", "put_bw", 8, 400.0, "MB/s")
            ]
        );
        let udp = [
            point("udp", "put_lat", 8, 10.0, "us"),
            point("udp", "put_bw", 8, 100.0, "MB/s"),
        ];
        // Times: UDP's over shared memory's; rates: the other way round.
        assert_eq!(speedup(&shm[0], &udp[0]), 20.0);
        assert_eq!(speedup(&shm[1], &udp[1]), 4.0);
        let all: Vec<Point> = shm.into_iter().chain(udp).collect();
        let mut table = Vec::new();
        print_table(&all, &mut table).unwrap();
        let table = String::from_utf8(table).unwrap();
        assert!(
            table.contains("20.00x") && table.contains("4.00x"),
            "{table}"
        );
        assert_eq!(to_json(&all).as_array().unwrap().len(), 4);
    }

    #[test]
    fn runs_fold_into_the_best_of_each_figure() {
        let mut best = vec![
            point("shm", "put_lat", 8, 2.0, "us"),
            point("udp", "put_bw", 8, 100.0, "MB/s"),
        ];
        keep_best(
            &mut best,
            vec![
                point("shm", "put_lat", 8, 1.5, "us"),
                point("udp", "put_lat", 8, 9.0, "us"),
                point("udp", "put_bw", 8, 50.0, "MB/s"),
            ],
        );
        keep_best(
            &mut best,
            vec![
                point("shm", "put_lat", 8, 3.0, "us"),
                point("udp", "put_bw", 8, 150.0, "MB/s"),
            ],
        );
        assert_eq!(
            best,
            [
                point("shm", "put_lat", 8, 1.5, "us"),
                point("udp", "put_bw", 8, 150.0, "MB/s"),
                point("udp", "put_lat", 8, 9.0, "us"),
            ]
        );
    }

    #[test]
    fn one_chart_per_measured_group_sizes_on_a_size_axis() {
        let points = [
            point("shm", "put_lat", 8, 0.1, "us"),
            point("shm", "put_lat", 1 << 20, 90.0, "us"),
            point("udp", "put_lat", 8, 20.0, "us"),
            point("udp", "get_lat", 8, 25.0, "us"),
            point("shm", "reduce", 64, 1.0, "us"),
            point("udp", "reduce", 64, 1.5, "us"),
        ];
        let charts = charts(&points, &serde_json::json!({"quick": true}));
        let names: Vec<&str> = charts.iter().map(|c| c.name).collect();
        assert_eq!(names, ["shmem-latency", "shmem-reduce"]);
        let latency = &charts[0];
        assert_eq!(
            (latency.x.scale, latency.y.scale),
            (Scale::Bytes, Scale::Log)
        );
        // put over both transports, get over UDP only: empty series are left out.
        assert_eq!(latency.series.len(), 3);
        assert_eq!(latency.series[0].points, [(8.0, 0.1), (1048576.0, 90.0)]);
        assert_eq!(charts[1].y.scale, Scale::Linear);
        assert!(latency.subtitle.starts_with("quick run"));
    }
}
