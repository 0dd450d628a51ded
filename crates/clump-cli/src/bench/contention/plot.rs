//! `clump bench contention --plot DIR`: DIR/contention-shares.png, each client's share of
//! the server's message rate in both phases, against the fair share, from the results' JSON.

use crate::bench::plot::{self, Axis, Chart, Scale, Series, Style};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub fn write(dir: &Path, results: &Value) -> Result<PathBuf, String> {
    let chart = chart(results)?;
    plot::prepare(dir)?;
    plot::draw(dir, &chart)
}

/// The chart of `results` (the benchmark's JSON document).
fn chart(results: &Value) -> Result<Chart<'static>, String> {
    let clients = results["clients"].as_u64().unwrap_or(0);
    if clients == 0 {
        return Err("the results name no clients to plot".into());
    }
    // Each client's two points side by side, not on top of each other.
    let shares = |phase: &Value, offset: f64| -> Result<Vec<(f64, f64)>, String> {
        let server = phase["server_rate_msgs_per_s"].as_f64().unwrap_or(0.0);
        let rates = phase["client_rates"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        if server <= 0.0 || rates.len() != clients as usize {
            return Err("the results hold no per-client rates to plot".into());
        }
        Ok(rates
            .iter()
            .enumerate()
            .map(|(c, r)| ((c + 1) as f64 + offset, r.as_f64().unwrap_or(0.0) / server))
            .collect())
    };
    let fair = 1.0 / clients as f64;
    let series = vec![
        Series {
            name: "one server endpoint".into(),
            points: shares(&results["one_vnet"], -0.1)?,
            style: Style::Points,
        },
        Series {
            name: "one server endpoint per client".into(),
            points: shares(&results["per_client_vnet"], 0.1)?,
            style: Style::Points,
        },
        Series {
            name: "fair share (1/clients)".into(),
            points: vec![(0.6, fair), (clients as f64 + 0.4, fair)],
            style: Style::Reference,
        },
    ];
    let transport = results["transport"].as_str().unwrap_or("?");
    Ok(Chart {
        name: "contention-shares",
        title: format!("contention ({transport}): each client's share of the server's rate"),
        subtitle: plot::subtitle(results),
        x: Axis {
            desc: "client",
            scale: Scale::Count,
        },
        y: Axis {
            desc: "share of the server's messages",
            scale: Scale::Linear,
        },
        series,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn clients_are_separate_points_on_whole_numbers_beside_a_fair_share_line() {
        let phase = json!({"server_rate_msgs_per_s": 100.0, "client_rates": [50.0, 30.0, 20.0]});
        let doc = json!({"clients": 3, "transport": "shm", "quick": true,
            "one_vnet": phase, "per_client_vnet": phase});
        let c = chart(&doc).unwrap();
        assert_eq!((c.x.scale, c.y.scale), (Scale::Count, Scale::Linear));
        let styles: Vec<Style> = c.series.iter().map(|s| s.style).collect();
        assert_eq!(styles, [Style::Points, Style::Points, Style::Reference]);
        // Client 1's two phases side by side around x = 1, its share of the server's rate.
        assert_eq!(c.series[0].points[0], (0.9, 0.5));
        assert_eq!(c.series[1].points[0], (1.1, 0.5));
        assert!(c.subtitle.starts_with("quick run"));
        assert!(chart(&json!({"clients": 0})).is_err());
    }
}
