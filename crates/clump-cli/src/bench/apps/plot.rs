//! `--plot DIR`: one PNG per application, time against processes, one line per configuration.

use super::runs::{Config, Run};
use crate::bench::plot::{self, Axis, Chart, Scale, Series, Style};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Writes `DIR/<app>.png` for every application in `runs`; returns the files written.
/// `doc` is the run's JSON document, for the subtitle.
pub fn write(dir: &Path, runs: &[Run], doc: &Value) -> Result<Vec<PathBuf>, String> {
    plot::prepare(dir)?;
    apps(runs)
        .into_iter()
        .map(|app| plot::draw(dir, &chart(app, runs, doc)))
        .collect()
}

fn apps(runs: &[Run]) -> Vec<&'static str> {
    let mut apps: Vec<&str> = runs.iter().map(|r| r.app).collect();
    apps.dedup();
    apps
}

/// Time against processes for `app`: a log time axis where the times span decades (an SMP
/// of one process beside a NOW can differ a hundredfold).
fn chart(app: &'static str, runs: &[Run], doc: &Value) -> Chart<'static> {
    let mine: Vec<&Run> = runs.iter().filter(|r| r.app == app).collect();
    let series: Vec<Series> = Config::ALL
        .into_iter()
        .map(|config| Series {
            name: config.name().to_string(),
            points: mine
                .iter()
                .filter(|r| r.config == config)
                .map(|r| (r.procs as f64, r.time_s * 1e3))
                .collect(),
            style: Style::Line,
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    let times = series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    Chart {
        name: app,
        title: format!("{app}: time against processes"),
        subtitle: plot::subtitle(doc),
        x: Axis {
            desc: "processes",
            scale: Scale::Count,
        },
        y: Axis {
            desc: "time (ms)",
            scale: plot::scale_for(times),
        },
        series,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::apps::runs::sample as run;

    #[test]
    fn times_spanning_decades_are_drawn_on_a_log_axis() {
        let runs = [
            run("em3d", Config::Smp, 1, 0.0004),
            run("em3d", Config::Smp, 2, 0.125),
            run("em3d", Config::Now, 2, 0.003),
            run("fft", Config::Smp, 1, 0.010),
            run("fft", Config::Smp, 2, 0.012),
        ];
        let doc = serde_json::json!({"quick": true});
        let em3d = chart("em3d", &runs, &doc);
        assert_eq!((em3d.x.scale, em3d.y.scale), (Scale::Count, Scale::Log));
        assert_eq!(em3d.series.len(), 2);
        assert_eq!(chart("fft", &runs, &doc).y.scale, Scale::Linear);
    }
}
