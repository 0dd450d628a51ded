//! `clump bench mpi --plot DIR`: DIR/mpi-BENCH.png for each benchmark (latency, bandwidth,
//! allreduce, alltoall), its figure against message size, clump beside Open MPI over
//! shared memory and over the network.

use super::figures::{Figure, Side};
use crate::bench::plot::{self, Axis, Chart, Scale, Series, Style};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Writes one PNG per benchmark in `figures`; `doc` is the run's JSON document.
pub fn write(dir: &Path, figures: &[Figure], doc: &Value) -> Result<Vec<PathBuf>, String> {
    plot::prepare(dir)?;
    charts(figures, doc)
        .iter()
        .map(|c| plot::draw(dir, c))
        .collect()
}

const BENCHES: [(&str, &str); 4] = [
    ("latency", "ping-pong latency (half the round trip)"),
    ("bandwidth", "streaming bandwidth"),
    ("allreduce", "allreduce (sum of doubles), slowest rank"),
    ("alltoall", "alltoall (bytes per pair), slowest rank"),
];

fn charts(figures: &[Figure], doc: &Value) -> Vec<Chart<'static>> {
    BENCHES
        .into_iter()
        .filter_map(|(bench, what)| {
            let mine: Vec<&Figure> = figures.iter().filter(|f| f.bench == bench).collect();
            let unit = mine.first()?.unit.clone();
            let mut series = Vec::new();
            for (side, clump, openmpi) in [
                (Side::Shm, "clump, shared memory", "Open MPI, shared memory"),
                (Side::Network, "clump, UDP", "Open MPI, TCP"),
            ] {
                let points = |value: fn(&Figure) -> f64| -> Vec<(f64, f64)> {
                    mine.iter()
                        .filter(|f| f.side == side)
                        .map(|f| (f.bytes as f64, value(f)))
                        .collect()
                };
                series.push(Series {
                    name: clump.into(),
                    points: points(|f| f.clump),
                    style: Style::Line,
                });
                series.push(Series {
                    name: openmpi.into(),
                    points: points(|f| f.openmpi),
                    style: Style::Line,
                });
            }
            series.retain(|s| !s.points.is_empty());
            let values = series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
            let scale = plot::scale_for(values);
            Some(Chart {
                name: match bench {
                    "latency" => "mpi-latency",
                    "bandwidth" => "mpi-bandwidth",
                    "allreduce" => "mpi-allreduce",
                    _ => "mpi-alltoall",
                },
                title: format!("MPI {what}: clump and Open MPI"),
                subtitle: plot::subtitle(doc),
                x: Axis {
                    desc: "message size",
                    scale: Scale::Bytes,
                },
                y: Axis {
                    desc: if unit == "MB/s" {
                        "MB/s"
                    } else {
                        "microseconds"
                    },
                    scale,
                },
                series,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_chart_per_benchmark_measured_sizes_on_a_size_axis() {
        let fig = |side, bench: &str, bytes, unit: &str, clump| Figure {
            side,
            bench: bench.into(),
            bytes,
            unit: unit.into(),
            clump,
            openmpi: clump * 2.0,
        };
        let figures = [
            fig(Side::Shm, "latency", 8, "us", 0.3),
            fig(Side::Shm, "latency", 1 << 20, "us", 90.0),
            fig(Side::Network, "latency", 8, "us", 20.0),
            fig(Side::Shm, "bandwidth", 8, "MB/s", 100.0),
            fig(Side::Shm, "bandwidth", 1 << 20, "MB/s", 150.0),
        ];
        let charts = charts(&figures, &serde_json::json!({"quick": true}));
        let names: Vec<&str> = charts.iter().map(|c| c.name).collect();
        assert_eq!(names, ["mpi-latency", "mpi-bandwidth"]);
        let latency = &charts[0];
        assert_eq!(
            (latency.x.scale, latency.y.scale),
            (Scale::Bytes, Scale::Log)
        );
        assert_eq!(latency.series.len(), 4);
        assert_eq!(latency.series[1].points, [(8.0, 0.6), (1048576.0, 180.0)]);
        // Bandwidths within a factor of ten: linear.
        assert_eq!(charts[1].y.scale, Scale::Linear);
        assert_eq!(charts[1].series.len(), 2);
        assert!(latency.subtitle.starts_with("quick run"));
    }
}
