//! The Active Message reference of `clump bench shmem`, measured in the same run: a short
//! request answered by a short reply (the round trip every blocking one-sided access
//! needs at least), and 1 MiB long requests each acknowledged (what a 1 MiB put followed
//! by a quiet needs). Rank 0 measures, waiting as the global address space waits; rank 1
//! serves until told to stop.

use super::super::rank::{self, err};
use super::{BATCHES, BIG};
use std::cell::Cell;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Duration, Instant};

const H_PING: u8 = 1;
const H_PONG: u8 = 2;
const H_BULK: u8 = 3;
const H_ACK: u8 = 4;
const H_DONE: u8 = 5;

/// Polls until `done` holds, yielding the core after 32 polls that ran nothing: the way
/// the global address space (and so OpenSHMEM) waits, so that the figures differ by the
/// layer and not by the waiting. Gives up after `limit`.
fn wait_like_gas(
    bundle: &clump::Bundle,
    limit: Duration,
    mut done: impl FnMut() -> bool,
) -> Result<(), String> {
    let start = Instant::now();
    let mut idle = 0u32;
    while !done() {
        if bundle.poll().map_err(err)? == 0 {
            idle += 1;
            if idle > 32 {
                std::thread::yield_now();
                if start.elapsed() > limit {
                    return Err(format!("nothing came for {} s", limit.as_secs()));
                }
            }
        } else {
            idle = 0;
        }
    }
    Ok(())
}

/// Longer than any answer takes, and than the whole benchmark.
const STUCK: Duration = Duration::from_secs(120);
const WHOLE_RUN: Duration = Duration::from_secs(1200);

pub fn worker(quick: bool) -> ExitCode {
    rank::main("bench shmem", 2, |sp| {
        let answers = Rc::new(Cell::new(0u64));
        let done = Rc::new(Cell::new(false));
        sp.ep.set_segment(BIG).map_err(err)?;
        sp.ep
            .set_handler(H_PING.into(), |t, _| {
                let _ = t.reply(H_PONG, &[]);
            })
            .map_err(err)?;
        sp.ep
            .set_handler(H_BULK.into(), |t, _| {
                let _ = t.reply(H_ACK, &[]);
            })
            .map_err(err)?;
        for h in [H_PONG, H_ACK] {
            let a = answers.clone();
            sp.ep
                .set_handler(h.into(), move |_, _| a.set(a.get() + 1))
                .map_err(err)?;
        }
        let d = done.clone();
        sp.ep
            .set_handler(H_DONE.into(), move |_, _| d.set(true))
            .map_err(err)?;
        // Every rank's segment and handlers exist from here on.
        rank::barrier(sp)?;
        if sp.rank() == 1 {
            return wait_like_gas(&sp.bundle, WHOLE_RUN, || done.get());
        }
        let (rounds, bulk) = if quick { (200, 8) } else { (2000, 32) };
        let mut rtt = f64::MAX;
        let mut long_bw = 0f64;
        let buf = vec![7u8; BIG];
        for _ in 0..BATCHES {
            let t = Instant::now();
            for _ in 0..rounds {
                let want = answers.get() + 1;
                sp.ep.request(1, H_PING, &[]).map_err(err)?;
                wait_like_gas(&sp.bundle, STUCK, || answers.get() == want)?;
            }
            rtt = rtt.min(t.elapsed().as_secs_f64() / rounds as f64);
            let t = Instant::now();
            for _ in 0..bulk {
                let want = answers.get() + 1;
                sp.ep.request_long(1, H_BULK, &[], &buf, 0).map_err(err)?;
                wait_like_gas(&sp.bundle, STUCK, || answers.get() == want)?;
            }
            long_bw = long_bw.max((bulk * BIG) as f64 / t.elapsed().as_secs_f64());
        }
        sp.ep.request(1, H_DONE, &[]).map_err(err)?;
        super::super::wait::drain(&sp.bundle, &sp.ep)?;
        println!(
            "{}",
            serde_json::json!({ "rtt_us": rtt * 1e6, "long_mb_s": long_bw / 1e6 })
        );
        Ok(())
    })
}
