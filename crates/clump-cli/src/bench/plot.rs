//! `--plot DIR`: charts as PNG files, shared by the benchmarks that draw them. The title
//! has a subtitle saying how the figures were taken (quick or full, cores, load); the
//! legend sits beside the plot, never over its points; every tick of an axis is labelled
//! in one format. Text is drawn with the DejaVu Sans font shipped in the crate (assets/,
//! Bitstream Vera license), so no system font library is needed.

use super::report::size;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::Shift;
use plotters::prelude::*;
use serde_json::Value;
use std::ops::Range;
use std::path::{Path, PathBuf};

static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// How an axis maps values and where its ticks go.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// Linear, from zero, ticks at a round step, all with as many decimals.
    Linear,
    /// Whole numbers (processes, clients): a tick on each, or on a round step of them.
    Count,
    /// log10, ticks at decades (and 2x, 5x where few decades show), labels 1, 10, 1k, 1M.
    Log,
    /// Message sizes in bytes on a log2 scale, ticks at powers of two: 8 B, 1 KiB, 1 MiB.
    Bytes,
}

/// One axis: its label and scale.
pub struct Axis {
    pub desc: &'static str,
    pub scale: Scale,
}

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Points joined by a line: a curve over an ordered quantity (size, processes).
    Line,
    /// Points alone: values of separate things (clients), which a line would falsely join.
    Points,
    /// A thin unmarked line: a baseline or a fair share.
    Reference,
}

/// One named series.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub style: Style,
}

/// A chart: written to `DIR/name.png`.
pub struct Chart<'a> {
    pub name: &'a str,
    pub title: String,
    pub subtitle: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
}

/// Creates `dir` and gets the font ready.
pub fn prepare(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| "cannot load the plot font".to_string())
}

/// Log10 where positive values span a decade or more (a linear axis would flatten the
/// small ones to zero beside the large), linear otherwise.
pub fn scale_for(values: impl IntoIterator<Item = f64>) -> Scale {
    let (lo, hi) = values
        .into_iter()
        .fold((f64::INFINITY, 0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if lo > 0.0 && hi >= 10.0 * lo {
        Scale::Log
    } else {
        Scale::Linear
    }
}

/// The subtitle of a benchmark's chart, from its JSON document: the kind of run, the
/// machine's cores and load, where and when ("quick run, 2 cores, load 3.1, host, date").
pub fn subtitle(doc: &Value) -> String {
    let run = &doc["run"];
    let mut parts = vec![if doc["quick"] == true {
        "quick run (--quick)".to_string()
    } else {
        "full run".to_string()
    }];
    if let Some(c) = run["cores"].as_u64() {
        parts.push(format!("{c} core{}", if c == 1 { "" } else { "s" }));
    }
    if let Some(l) = run["load_average"][0].as_f64() {
        parts.push(format!("load {l:.1}"));
    }
    for key in ["host", "date"] {
        if let Some(s) = run[key].as_str() {
            parts.push(s.to_string());
        }
    }
    parts.join(", ")
}

/// Draws `chart` into `dir/NAME.png`; returns the file.
pub fn draw(dir: &Path, chart: &Chart<'_>) -> Result<PathBuf, String> {
    let file = dir.join(format!("{}.png", chart.name));
    render(&file, chart).map_err(|e| format!("cannot draw {}: {e}", file.display()))?;
    Ok(file)
}

/// `v` on `scale`'s drawing coordinate.
fn scaled(scale: Scale, v: f64) -> f64 {
    match scale {
        Scale::Linear | Scale::Count => v,
        Scale::Log => v.max(f64::MIN_POSITIVE).log10(),
        Scale::Bytes => v.max(1.0).log2(),
    }
}

/// The drawn range of scaled `values` on `scale`: the data's, with a margin (a linear
/// axis from zero), never further (no decade past the last point).
fn range(scale: Scale, values: impl Iterator<Item = f64>) -> Range<f64> {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !lo.is_finite() {
        return 0.0..1.0;
    }
    match scale {
        Scale::Linear => {
            let lo = lo.min(0.0);
            let span = (hi - lo).max(1e-9);
            lo..hi + span * 0.08
        }
        Scale::Count => lo - 0.5..hi + 0.5,
        Scale::Log | Scale::Bytes => {
            let pad = ((hi - lo) * 0.04).max(0.15);
            lo - pad..hi + pad
        }
    }
}

/// A round step (1, 2 or 5 times a power of ten) giving at most `most` ticks over `span`.
fn round_step(span: f64, most: usize) -> f64 {
    let raw = span / most as f64;
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * power)
}

/// Multiples of `step` within `r`.
fn multiples(r: &Range<f64>, step: f64) -> Vec<f64> {
    let first = (r.start / step).ceil() as i64;
    let last = (r.end / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// Where the ticks of `scale` go over the drawn range `r` (in drawing coordinates).
fn ticks(scale: Scale, r: &Range<f64>) -> Vec<f64> {
    let span = r.end - r.start;
    match scale {
        Scale::Linear => multiples(r, round_step(span, 8)),
        Scale::Count => multiples(r, round_step(span, 12).max(1.0)),
        Scale::Bytes => multiples(r, round_step(span, 12).max(1.0)),
        Scale::Log => {
            let decades = multiples(r, round_step(span, 10).max(1.0));
            if decades.len() >= 3 {
                return decades;
            }
            let mut t: Vec<f64> = multiples(&(r.start.floor()..r.end.ceil()), 1.0)
                .into_iter()
                .flat_map(|d| [d, d + 2f64.log10(), d + 5f64.log10()])
                .filter(|t| r.contains(t))
                .collect();
            t.sort_by(f64::total_cmp);
            t
        }
    }
}

/// The label of tick `t` (a drawing coordinate) on `scale`, whose ticks are `all`: one
/// format per axis (as many decimals on every tick of a linear axis).
fn label(scale: Scale, t: f64, all: &[f64]) -> String {
    match scale {
        Scale::Linear | Scale::Count => {
            let step = all
                .windows(2)
                .map(|w| w[1] - w[0])
                .fold(f64::INFINITY, f64::min);
            let decimals = if step.is_finite() && step < 1.0 {
                // (The step of multiples of 0.1 may come out as 0.0999...: round first.)
                (-(step.log10() + 1e-6).floor()) as usize
            } else {
                0
            };
            format!("{t:.decimals$}")
        }
        Scale::Log => si(10f64.powf(t)),
        Scale::Bytes => size(2f64.powf(t).round()),
    }
}

/// `v` with a k, M or G suffix and at most three significant digits: 5, 20, 1k, 2.5M.
fn si(v: f64) -> String {
    let (div, suffix) = match v.abs() {
        a if a >= 1e9 => (1e9, "G"),
        a if a >= 1e6 => (1e6, "M"),
        a if a >= 1e3 => (1e3, "k"),
        _ => (1.0, ""),
    };
    let x = v / div;
    let decimals = if x.abs() >= 100.0 || x == 0.0 {
        0
    } else {
        (2.0 - x.abs().log10().floor()).max(0.0) as usize
    };
    let text = format!("{x:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    format!("{text}{suffix}")
}

/// A linear coordinate (of drawing coordinates) with its ticks where [`ticks`] put them,
/// not where plotters' own rule would (which puts them at 10^0.5 on a log axis).
struct Ticked(Range<f64>, Vec<f64>);

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, (lo, hi): (i32, i32)) -> i32 {
        let at = (v - self.0.start) / (self.0.end - self.0.start);
        lo + (at * f64::from(hi - lo)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        // No minor grid lines: only the labelled ticks.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.1.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.0.clone()
    }
}

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(90, 90, 90),
];

const WIDTH: u32 = 960;
const HEIGHT: u32 = 540;

fn render(file: &Path, chart: &Chart<'_>) -> Result<(), Box<dyn std::error::Error>> {
    let (x, y) = (chart.x.scale, chart.y.scale);
    let scaled_points: Vec<Vec<(f64, f64)>> = chart
        .series
        .iter()
        .map(|s| {
            s.points
                .iter()
                .map(|&(a, b)| (scaled(x, a), scaled(y, b)))
                .collect()
        })
        .collect();
    let all = || scaled_points.iter().flatten();
    let x_range = range(x, all().map(|p| p.0));
    let y_range = range(y, all().map(|p| p.1));
    let (x_ticks, y_ticks) = (ticks(x, &x_range), ticks(y, &y_range));

    let root = BitMapBackend::new(file, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let (head, body) = root.split_vertically(62);
    draw_heading(&head, chart)?;

    let longest = chart.series.iter().map(|s| s.name.len()).max().unwrap_or(0) as u32;
    let legend_width = (longest * 8 + 50).clamp(140, 320);
    let (plot_area, legend) = body.split_horizontally(WIDTH - legend_width);
    let mut plot = ChartBuilder::on(&plot_area)
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(
            Ticked(x_range, x_ticks.clone()),
            Ticked(y_range, y_ticks.clone()),
        )?;
    plot.configure_mesh()
        .x_desc(chart.x.desc)
        .y_desc(chart.y.desc)
        .label_style(("sans-serif", 14))
        .x_label_formatter(&|v| label(x, *v, &x_ticks))
        .y_label_formatter(&|v| label(y, *v, &y_ticks))
        .draw()?;

    for (i, ((s, points), color)) in chart
        .series
        .iter()
        .zip(scaled_points)
        .zip(COLORS.iter().cycle())
        .enumerate()
    {
        let color = *color;
        let stroke = color.stroke_width(if s.style == Style::Reference { 1 } else { 2 });
        if s.style != Style::Points {
            plot.draw_series(LineSeries::new(points.clone(), stroke))?;
        }
        if s.style != Style::Reference {
            plot.draw_series(
                points
                    .into_iter()
                    .map(|p| Circle::new(p, 4, color.filled())),
            )?;
        }
        draw_legend_entry(&legend, i, s, color)?;
    }
    root.present()?;
    Ok(())
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// The chart's title and subtitle, centred above the plot.
fn draw_heading(head: &Area<'_>, chart: &Chart<'_>) -> Result<(), Box<dyn std::error::Error>> {
    let centre = |size| {
        ("sans-serif", size)
            .into_font()
            .color(&BLACK)
            .pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Center,
                plotters::style::text_anchor::VPos::Top,
            ))
    };
    let mid = (WIDTH / 2) as i32;
    head.draw_text(&chart.title, &centre(22), (mid, 8))?;
    head.draw_text(&chart.subtitle, &centre(14), (mid, 38))?;
    Ok(())
}

/// The `i`th series' entry in the legend beside the plot, drawn as the series is.
fn draw_legend_entry(
    legend: &Area<'_>,
    i: usize,
    s: &Series,
    color: RGBColor,
) -> Result<(), Box<dyn std::error::Error>> {
    let stroke = color.stroke_width(if s.style == Style::Reference { 1 } else { 2 });
    let (lx, ly) = (8, 40 + 24 * i as i32);
    match s.style {
        Style::Points => legend.draw(&Circle::new((lx + 10, ly), 4, color.filled()))?,
        _ => legend.draw(&PathElement::new([(lx, ly), (lx + 20, ly)], stroke))?,
    }
    if s.style == Style::Line {
        legend.draw(&Circle::new((lx + 10, ly), 4, color.filled()))?;
    }
    legend.draw_text(
        &s.name,
        &("sans-serif", 14).into_font().color(&BLACK),
        (lx + 28, ly - 8),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_spanning_decades_get_a_log_axis() {
        assert_eq!(scale_for([0.4, 3.0, 125.0]), Scale::Log);
        assert_eq!(scale_for([40.0, 90.0, 125.0]), Scale::Linear);
        assert_eq!(scale_for([0.0, 90.0]), Scale::Linear);
        assert_eq!(scale_for([]), Scale::Linear);
    }

    #[test]
    fn a_size_axis_ends_at_the_data_with_ticks_at_powers_of_two() {
        let r = range(
            Scale::Bytes,
            [8.0, 16.0 * 1048576.0]
                .map(|v| scaled(Scale::Bytes, v))
                .into_iter(),
        );
        // 16 MiB is 2^24: the axis stops just past it, nowhere near 1e8 (2^26.6).
        assert!(
            r.start > 2.0 && r.start < 3.0 && r.end > 24.0 && r.end < 25.0,
            "{r:?}"
        );
        let t = ticks(Scale::Bytes, &r);
        assert!(t.len() >= 4 && t.len() <= 12, "{t:?}");
        assert!(t.iter().all(|v| v.fract() == 0.0));
        let labels: Vec<String> = t.iter().map(|&v| label(Scale::Bytes, v, &t)).collect();
        assert!(
            labels.contains(&"1 KiB".to_string()) && labels.contains(&"1 MiB".to_string()),
            "{labels:?}"
        );
    }

    #[test]
    fn each_axis_labels_its_ticks_in_one_format() {
        let r = range(Scale::Log, [1.0, 250_000.0].map(f64::log10).into_iter());
        let t = ticks(Scale::Log, &r);
        let labels: Vec<String> = t.iter().map(|&v| label(Scale::Log, v, &t)).collect();
        assert_eq!(labels, ["1", "10", "100", "1k", "10k", "100k"]);
        // Fewer than three decades: 2x and 5x ticks too, in the same format.
        let r = range(Scale::Log, [30.0f64, 400.0].map(f64::log10).into_iter());
        let t = ticks(Scale::Log, &r);
        let labels: Vec<String> = t.iter().map(|&v| label(Scale::Log, v, &t)).collect();
        assert_eq!(labels, ["50", "100", "200", "500"]);
        let r = range(Scale::Linear, [0.1, 0.5].into_iter());
        let t = ticks(Scale::Linear, &r);
        let labels: Vec<String> = t.iter().map(|&v| label(Scale::Linear, v, &t)).collect();
        assert_eq!(labels, ["0.0", "0.1", "0.2", "0.3", "0.4", "0.5"]);
        let r = range(Scale::Linear, [0.0, 120.0].into_iter());
        let t = ticks(Scale::Linear, &r);
        let labels: Vec<String> = t.iter().map(|&v| label(Scale::Linear, v, &t)).collect();
        assert_eq!(labels, ["0", "20", "40", "60", "80", "100", "120"]);
        let t = ticks(Scale::Count, &range(Scale::Count, [1.0, 4.0].into_iter()));
        assert_eq!(t, [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(label(Scale::Count, 2.0, &t), "2");
    }

    #[test]
    fn the_subtitle_says_quick_mode_cores_and_load() {
        let doc = serde_json::json!({"quick": true, "run": {"cores": 2, "load_average": [3.12, 2.0, 1.0],
            "host": "h", "date": "2026-11-26T04:00:00Z"}});
        assert_eq!(
            subtitle(&doc),
            "quick run (--quick), 2 cores, load 3.1, h, 2026-11-26T04:00:00Z"
        );
        assert!(subtitle(&serde_json::json!({"quick": false})).starts_with("full run"));
    }
}
