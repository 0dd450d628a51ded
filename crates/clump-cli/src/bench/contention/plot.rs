//! `clump bench contention --plot DIR`: DIR/contention-shares.png, each client's share of
//! the server's message rate in both phases, against the fair share, from the results' JSON.

use crate::bench::plot::{self, Axis, Series};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub fn write(dir: &Path, results: &Value) -> Result<PathBuf, String> {
    plot::prepare(dir)?;
    let clients = results["clients"].as_u64().unwrap_or(0);
    if clients == 0 {
        return Err("the results name no clients to plot".into());
    }
    let shares = |phase: &Value| -> Result<Vec<(f64, f64)>, String> {
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
            .map(|(c, r)| ((c + 1) as f64, r.as_f64().unwrap_or(0.0) / server))
            .collect())
    };
    let fair = 1.0 / clients as f64;
    let series = vec![
        Series {
            name: "one server endpoint".into(),
            points: shares(&results["one_vnet"])?,
            reference: false,
        },
        Series {
            name: "one server endpoint per client".into(),
            points: shares(&results["per_client_vnet"])?,
            reference: false,
        },
        Series {
            name: "fair share".into(),
            points: vec![(1.0, fair), (clients as f64, fair)],
            reference: true,
        },
    ];
    let transport = results["transport"].as_str().unwrap_or("?");
    plot::line_chart(
        dir,
        "contention-shares",
        &format!("contention ({transport}): each client's share of the server's rate"),
        (
            Axis {
                desc: "client",
                ticks: clients as usize + 1,
                log: false,
            },
            Axis {
                desc: "share of the server's messages",
                ticks: 10,
                log: false,
            },
        ),
        &series,
    )
}
