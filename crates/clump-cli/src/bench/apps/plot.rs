//! `--plot DIR`: one PNG per application, time against processes, one line per configuration.
//! Text is drawn with the DejaVu Sans font shipped in the crate (assets/, Bitstream Vera
//! license), so no system font library is needed.

use super::runs::{Config, Run};
use plotters::prelude::*;
use std::path::{Path, PathBuf};

static FONT: &[u8] = include_bytes!("../../../assets/DejaVuSans.ttf");

fn register_font() -> Result<(), String> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| "cannot load the plot font".to_string())
}

/// Writes `DIR/<app>.png` for every application in `runs`; returns the files written.
pub fn write(dir: &Path, runs: &[Run]) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    register_font()?;
    let mut apps: Vec<&str> = runs.iter().map(|r| r.app).collect();
    apps.dedup();
    apps.into_iter()
        .map(|app| {
            let file = dir.join(format!("{app}.png"));
            chart(&file, app, runs).map_err(|e| format!("cannot draw {}: {e}", file.display()))?;
            Ok(file)
        })
        .collect()
}

fn chart(file: &Path, app: &str, runs: &[Run]) -> Result<(), Box<dyn std::error::Error>> {
    let mine: Vec<&Run> = runs.iter().filter(|r| r.app == app).collect();
    let max_procs = mine.iter().map(|r| r.procs).max().unwrap_or(1);
    let max_ms = mine.iter().map(|r| r.time_s * 1e3).fold(0.0, f64::max) * 1.1;
    let root = BitMapBackend::new(file, (800, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{app}: time against processes"), ("sans-serif", 24))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(0.5f64..max_procs as f64 + 0.5, 0f64..max_ms.max(1e-3))?;
    chart
        .configure_mesh()
        .x_desc("processes")
        .y_desc("time (ms)")
        .x_labels(max_procs as usize + 1)
        .draw()?;
    for (config, color) in Config::ALL.into_iter().zip([BLUE, RED, GREEN]) {
        let points: Vec<(f64, f64)> = mine
            .iter()
            .filter(|r| r.config == config)
            .map(|r| (r.procs as f64, r.time_s * 1e3))
            .collect();
        if points.is_empty() {
            continue;
        }
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
            .label(config.name())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
        chart.draw_series(
            points
                .into_iter()
                .map(|p| Circle::new(p, 4, color.filled())),
        )?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
