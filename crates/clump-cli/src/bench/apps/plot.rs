//! `--plot DIR`: per run of the papers, three PNGs against processes, meant to be read beside
//! each other: time (`<run>-time.png`), speedup (`<run>-speedup.png`) and the local share of
//! the traffic to other processes (`<run>-local.png`); one line per configuration and version.

use super::runs::Run;
use super::traffic::Traffic;
use crate::bench::plot::{self, Axis, Chart, Scale, Series, Style};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What a chart shows of a run, and how.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Figure {
    Time,
    Speedup,
    Local,
}

impl Figure {
    const ALL: [Figure; 3] = [Figure::Time, Figure::Speedup, Figure::Local];

    fn file(self) -> &'static str {
        match self {
            Figure::Time => "time",
            Figure::Speedup => "speedup",
            Figure::Local => "local",
        }
    }

    fn desc(self) -> &'static str {
        match self {
            Figure::Time => "time (ms)",
            Figure::Speedup => "speedup against 1 process",
            Figure::Local => "local share of messages (%)",
        }
    }

    fn value(self, runs: &[Run], r: &Run) -> Option<f64> {
        match self {
            Figure::Time => Some(r.time_s * 1e3),
            Figure::Speedup => super::report::speedup(runs, r),
            Figure::Local => Some(Traffic::of(&r.ranks).local_percent),
        }
    }
}

/// Writes the three charts of every run in `runs`; returns the files written. `doc` is the
/// run's JSON document, for the subtitle.
pub fn write(dir: &Path, runs: &[Run], doc: &Value) -> Result<Vec<PathBuf>, String> {
    plot::prepare(dir)?;
    let mut cases: Vec<&'static str> = runs.iter().map(|r| r.app).collect();
    cases.dedup();
    let mut files = Vec::new();
    for case in cases {
        for figure in Figure::ALL {
            let name = format!("{}-{}", case.replace('/', "-"), figure.file());
            files.push(plot::draw(dir, &chart(&name, case, figure, runs, doc))?);
        }
    }
    Ok(files)
}

/// `figure` of `case` against processes: a log axis where times span decades (an SMP of one
/// process beside a NOW can differ a hundredfold).
fn chart<'a>(name: &'a str, case: &str, figure: Figure, runs: &[Run], doc: &Value) -> Chart<'a> {
    let mine: Vec<&Run> = runs.iter().filter(|r| r.app == case).collect();
    let mut lines: Vec<(&str, Option<&str>)> =
        mine.iter().map(|r| (r.config.name(), r.version)).collect();
    lines.sort();
    lines.dedup();
    let series: Vec<Series> = lines
        .into_iter()
        .map(|(config, version)| Series {
            name: match version {
                Some(v) => format!("{config} {v}"),
                None => config.to_string(),
            },
            points: mine
                .iter()
                .filter(|r| r.config.name() == config && r.version == version)
                .filter_map(|r| Some((r.procs as f64, figure.value(runs, r)?)))
                .collect(),
            style: Style::Line,
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    let values = series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let scale = match figure {
        Figure::Time => plot::scale_for(values),
        Figure::Speedup | Figure::Local => Scale::Linear,
    };
    Chart {
        name,
        title: format!("{case}: {} against processes", figure.desc()),
        subtitle: plot::subtitle(doc),
        x: Axis {
            desc: "processes",
            scale: Scale::Count,
        },
        y: Axis {
            desc: figure.desc(),
            scale,
        },
        series,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::apps::runs::{sample as run, Config};

    #[test]
    fn times_spanning_decades_are_drawn_on_a_log_axis_and_speedup_beside_them() {
        let runs = [
            run("em3d", Config::Smp, 1, 0.0004),
            run("em3d", Config::Smp, 2, 0.125),
            run("em3d", Config::Now, 2, 0.003),
            run("fft", Config::Smp, 1, 0.010),
            run("fft", Config::Smp, 2, 0.012),
        ];
        let doc = serde_json::json!({"quick": true});
        let em3d = chart("t", "em3d", Figure::Time, &runs, &doc);
        assert_eq!((em3d.x.scale, em3d.y.scale), (Scale::Count, Scale::Log));
        assert_eq!(em3d.series.len(), 2);
        assert_eq!(
            chart("t", "fft", Figure::Time, &runs, &doc).y.scale,
            Scale::Linear
        );
        let speedup = chart("s", "fft", Figure::Speedup, &runs, &doc);
        assert_eq!(speedup.series[0].points, [(1.0, 1.0), (2.0, 0.010 / 0.012)]);
        let local = chart("l", "fft", Figure::Local, &runs, &doc);
        assert_eq!(local.series[0].points, [(1.0, 0.0), (2.0, 0.0)]);
    }
}
