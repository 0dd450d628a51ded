//! `clump bench mpi --plot DIR`: DIR/mpi-BENCH.png for each benchmark with a curve (latency,
//! bandwidth, message rate, allreduce, alltoall, and one-sided put and get latency and bandwidth), its
//! figure against message size, clump beside Open MPI over shared memory and over the
//! network.

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

/// (bench, chart file name, what it shows).
const BENCHES: [(&str, &str, &str); 9] = [
    (
        "latency",
        "mpi-latency",
        "ping-pong latency (half the round trip)",
    ),
    ("bandwidth", "mpi-bandwidth", "streaming bandwidth"),
    (
        "msg_rate",
        "mpi-message-rate",
        "message rate (windows of 64 non-blocking sends)",
    ),
    (
        "allreduce",
        "mpi-allreduce",
        "allreduce (sum of doubles), slowest rank",
    ),
    (
        "alltoall",
        "mpi-alltoall",
        "alltoall (bytes per pair), slowest rank",
    ),
    (
        "put_lat/lock",
        "mpi-put-latency",
        "put latency, each flushed (passive target)",
    ),
    (
        "get_lat/lock",
        "mpi-get-latency",
        "get latency, each flushed (passive target)",
    ),
    (
        "put_bw/lock",
        "mpi-put-bandwidth",
        "put bandwidth, 64 per flush (passive target)",
    ),
    (
        "get_bw/lock",
        "mpi-get-bandwidth",
        "get bandwidth, 64 per flush (passive target)",
    ),
];

fn charts(figures: &[Figure], doc: &Value) -> Vec<Chart<'static>> {
    BENCHES
        .into_iter()
        .filter_map(|(bench, name, what)| {
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
                name,
                title: format!("MPI {what}: clump and Open MPI"),
                subtitle: plot::subtitle(doc),
                x: Axis {
                    desc: "message size",
                    scale: Scale::Bytes,
                },
                y: Axis {
                    desc: match unit.as_str() {
                        "MB/s" => "MB/s",
                        "Mmsg/s" => "million messages/s",
                        _ => "microseconds",
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
