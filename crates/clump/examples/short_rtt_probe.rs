//! Short AM round trips to self, for counting the instructions of one (two endpoints of
//! one bundle, shared memory, no network). Hardware counters may be out of reach (a
//! virtual machine) and valgrind cannot run a two-rank job, so the short path is profiled
//! here: the difference of two runs divided by the difference of their round trips.
//!
//! ```text
//! cargo build --release -p clump --example short_rtt_probe
//! valgrind --tool=callgrind --dump-instr=yes target/release/examples/short_rtt_probe 2000
//! valgrind --tool=callgrind --dump-instr=yes target/release/examples/short_rtt_probe 12000
//! ```
//! (instructions of the second run - those of the first) / 10000 = one round trip.

use clump::config::Config;
use clump::Bundle;
use std::cell::Cell;
use std::rc::Rc;

const TAG: u64 = 7;
const ECHO: u8 = 3;
const ECHOED: u8 = 4;

fn main() {
    let rounds: u64 = match std::env::args().nth(1).map(|s| s.parse()) {
        None => 10_000,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("usage: short_rtt_probe [ROUND_TRIPS]: {e}");
            std::process::exit(2);
        }
    };
    let mut config = Config::default();
    config.net.enabled = false;
    let bundle = Bundle::with_config(config).expect("bundle");
    let a = bundle.create_endpoint(TAG).expect("endpoint a");
    let b = bundle.create_endpoint(TAG).expect("endpoint b");
    a.map(1, b.name(), TAG).expect("map b");
    b.set_handler(ECHO as usize, |t, m| {
        t.reply(ECHOED, m.args).expect("reply")
    })
    .expect("echo handler");
    let replies = Rc::new(Cell::new(0u64));
    let r = replies.clone();
    a.set_handler(ECHOED as usize, move |_, _| r.set(r.get() + 1))
        .expect("reply handler");
    let start = std::time::Instant::now();
    for done in 0..rounds {
        a.request(1, ECHO, &[]).expect("request");
        while replies.get() == done {
            bundle.poll().expect("poll");
        }
    }
    let each = start.elapsed().as_secs_f64() * 1e6 / rounds.max(1) as f64;
    println!("{rounds} short round trips to self, {each:.3} us each");
}
