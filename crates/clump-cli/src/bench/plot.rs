//! `--plot DIR`: line charts as PNG files, shared by the benchmarks that draw them.
//! Text is drawn with the DejaVu Sans font shipped in the crate (assets/, Bitstream Vera
//! license), so no system font library is needed.

use plotters::prelude::*;
use std::path::{Path, PathBuf};

static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// One axis: its label, how many tick labels, and whether values are drawn on a log10
/// scale (bandwidths and sizes span several orders of magnitude).
pub struct Axis {
    pub desc: &'static str,
    pub ticks: usize,
    pub log: bool,
}

/// One named line; a `reference` line (a baseline, a fair share) is drawn thin, unmarked.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub reference: bool,
}

/// Creates `dir` and gets the font ready.
pub fn prepare(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| "cannot load the plot font".to_string())
}

/// Draws `series` into `dir/name.png`; returns the file.
pub fn line_chart(
    dir: &Path,
    name: &str,
    title: &str,
    (x, y): (Axis, Axis),
    series: &[Series],
) -> Result<PathBuf, String> {
    let file = dir.join(format!("{name}.png"));
    draw(&file, title, &x, &y, series)
        .map_err(|e| format!("cannot draw {}: {e}", file.display()))?;
    Ok(file)
}

fn scaled(axis: &Axis, v: f64) -> f64 {
    if axis.log {
        v.max(f64::MIN_POSITIVE).log10()
    } else {
        v
    }
}

/// The range of `values` on `axis`, with a margin; a linear axis includes 0 if `from_zero`.
fn range(axis: &Axis, values: impl Iterator<Item = f64>, from_zero: bool) -> std::ops::Range<f64> {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !lo.is_finite() {
        return 0.0..1.0;
    }
    if axis.log {
        lo.floor()..hi.ceil().max(lo.floor() + 1.0)
    } else {
        let lo = if from_zero { lo.min(0.0) } else { lo };
        let span = (hi - lo).max(1e-9);
        lo - span * 0.05..hi + span * 0.1
    }
}

fn label(axis: &Axis, v: f64) -> String {
    let v = if axis.log { 10f64.powf(v) } else { v };
    if v.abs() >= 1e5 {
        format!("{v:.0e}")
    } else if v == v.round() {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

const COLORS: [RGBColor; 6] = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];

fn draw(
    file: &Path,
    title: &str,
    x: &Axis,
    y: &Axis,
    series: &[Series],
) -> Result<(), Box<dyn std::error::Error>> {
    let scaled_points: Vec<Vec<(f64, f64)>> = series
        .iter()
        .map(|s| {
            s.points
                .iter()
                .map(|&(a, b)| (scaled(x, a), scaled(y, b)))
                .collect()
        })
        .collect();
    let all = || scaled_points.iter().flatten();
    let x_range = range(x, all().map(|p| p.0), false);
    let y_range = range(y, all().map(|p| p.1), true);
    let root = BitMapBackend::new(file, (800, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x_range, y_range)?;
    chart
        .configure_mesh()
        .x_desc(x.desc)
        .y_desc(y.desc)
        .x_labels(x.ticks)
        .y_labels(y.ticks)
        .x_label_formatter(&|v| label(x, *v))
        .y_label_formatter(&|v| label(y, *v))
        .draw()?;
    for ((s, points), color) in series.iter().zip(scaled_points).zip(COLORS.iter().cycle()) {
        let color = *color;
        let style = color.stroke_width(if s.reference { 1 } else { 2 });
        chart
            .draw_series(LineSeries::new(points.clone(), style))?
            .label(s.name.as_str())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], style));
        if !s.reference {
            chart.draw_series(
                points
                    .into_iter()
                    .map(|p| Circle::new(p, 3, color.filled())),
            )?;
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
