//! `clump bench loggp --plot DIR`: DIR/loggp-bandwidth.png, medium and long bandwidth
//! against message size beside the baseline's curve, from the results' JSON.

use super::plot::{self, Axis, Chart, Scale, Series, Style};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub fn write(dir: &Path, results: &Value) -> Result<PathBuf, String> {
    let chart = chart(results)?;
    plot::prepare(dir)?;
    plot::draw(dir, &chart)
}

/// The chart of `results` (the benchmark's JSON document).
fn chart(results: &Value) -> Result<Chart<'static>, String> {
    let curve = |list: Option<&Vec<Value>>, kind: Option<&str>| -> Vec<(f64, f64)> {
        list.into_iter()
            .flatten()
            .filter(|p| kind.is_none_or(|k| p["kind"] == k))
            .filter_map(|p| Some((p["bytes"].as_f64()?, p["mb_s"].as_f64()?)))
            .collect()
    };
    let measured = results["bandwidth"].as_array();
    let baseline = results["baseline"]["bandwidth_name"]
        .as_str()
        .unwrap_or("baseline");
    let series = vec![
        Series {
            name: "medium".into(),
            points: curve(measured, Some("medium")),
            style: Style::Line,
        },
        Series {
            name: "long".into(),
            points: curve(measured, Some("long")),
            style: Style::Line,
        },
        Series {
            name: baseline.to_string(),
            points: curve(results["baseline"]["curve"].as_array(), None),
            style: Style::Reference,
        },
    ];
    if series.iter().any(|s| s.points.is_empty()) {
        return Err("the results hold no bandwidth curve to plot".into());
    }
    let transport = results["transport"].as_str().unwrap_or("?");
    Ok(Chart {
        name: "loggp-bandwidth",
        title: format!("loggp ({transport}): bandwidth against message size"),
        subtitle: plot::subtitle(results),
        x: Axis {
            desc: "message size",
            scale: Scale::Bytes,
        },
        y: Axis {
            desc: "MB/s",
            scale: Scale::Log,
        },
        series,
    })
}
