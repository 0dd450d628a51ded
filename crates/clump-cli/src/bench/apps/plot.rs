//! `--plot DIR`: one PNG per application, time against processes, one line per configuration.

use super::runs::{Config, Run};
use crate::bench::plot::{self, Axis, Series};
use std::path::{Path, PathBuf};

/// Writes `DIR/<app>.png` for every application in `runs`; returns the files written.
pub fn write(dir: &Path, runs: &[Run]) -> Result<Vec<PathBuf>, String> {
    plot::prepare(dir)?;
    let mut apps: Vec<&str> = runs.iter().map(|r| r.app).collect();
    apps.dedup();
    apps.into_iter()
        .map(|app| {
            let mine: Vec<&Run> = runs.iter().filter(|r| r.app == app).collect();
            let max_procs = mine.iter().map(|r| r.procs).max().unwrap_or(1);
            let series: Vec<Series> = Config::ALL
                .into_iter()
                .map(|config| Series {
                    name: config.name().to_string(),
                    points: mine
                        .iter()
                        .filter(|r| r.config == config)
                        .map(|r| (r.procs as f64, r.time_s * 1e3))
                        .collect(),
                    reference: false,
                })
                .filter(|s| !s.points.is_empty())
                .collect();
            let axes = (
                Axis {
                    desc: "processes",
                    ticks: max_procs as usize + 1,
                    log: false,
                },
                Axis {
                    desc: "time (ms)",
                    ticks: 10,
                    log: false,
                },
            );
            plot::line_chart(
                dir,
                app,
                &format!("{app}: time against processes"),
                axes,
                &series,
            )
        })
        .collect()
}
