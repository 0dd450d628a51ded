//! A program for the multi-process tests: joins a job started by `clump run` and runs one
//! scenario, checking every byte it receives. Exits non-zero with a message on any
//! mismatch, so the launcher test sees failures.

#![forbid(unsafe_code)]

use std::process::ExitCode;

mod check;
mod errors;
mod flood;
mod forge;
mod kinds;
mod liveness;
mod neighbours;
mod numbered;
mod ping;
mod sleep;
mod spoof;
mod victim;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("kinds") => kinds::run(),
        Some("flood") => flood::run(
            args.get(1).and_then(|n| n.parse().ok()).unwrap_or(2000),
            std::time::Duration::from_millis(
                args.get(2).and_then(|n| n.parse().ok()).unwrap_or(20_000),
            ),
        ),
        Some("errors") => errors::run(),
        Some("forge") => forge::run(),
        Some("spoof") => spoof::run(),
        Some("neighbours") => neighbours::run(),
        Some("ping") => ping::run(),
        Some("sleep") => sleep::run(),
        Some("stream-until-killed") => victim::stream_until_killed(),
        Some("victim") => victim::serve_without_polling(),
        Some("cut-link") => victim::survive_cut_link(),
        Some("stop-resume") => match args.get(1).map(|k| k.parse()) {
            None => liveness::stop_resume(2),
            Some(Ok(k)) => liveness::stop_resume(k),
            Some(Err(e)) => Err(format!("stop-resume TIMEOUTS: {e}")),
        },
        Some("peer-gone") => liveness::peer_gone(),
        _ => Err(
            "usage: clump-test-am kinds|flood [N [FILL_WAIT_MS]]|errors|forge|spoof|neighbours|ping|sleep|stream-until-killed|victim|cut-link|stop-resume [TIMEOUTS]|peer-gone".into(),
        ),
    };
    match result {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("clump-test-am: {e}");
            ExitCode::FAILURE
        }
    }
}
