//! Short AM round trips to self, for counting the instructions of one (two endpoints of
//! one bundle, shared memory, no network; with `udp`, two bundles that claim different
//! hosts, so that the route between them is the network over loopback). Hardware counters may be out of reach (a
//! virtual machine) and valgrind cannot run a two-rank job, so the short path is profiled
//! here: the difference of two runs divided by the difference of their round trips.
//!
//! ```text
//! cargo build --release -p clump --example short_rtt_probe
//! valgrind --tool=callgrind --dump-instr=yes target/release/examples/short_rtt_probe 2000
//! valgrind --tool=callgrind --dump-instr=yes target/release/examples/short_rtt_probe 12000
//! valgrind --tool=callgrind target/release/examples/short_rtt_probe 2000 udp
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
    let mut args = std::env::args().skip(1);
    let rounds: u64 = match args.next().map(|s| s.parse()) {
        None => 10_000,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("usage: short_rtt_probe [ROUND_TRIPS] [udp]: {e}");
            std::process::exit(2);
        }
    };
    let udp = args.next().as_deref() == Some("udp");
    let mut config = Config::default();
    config.net.enabled = udp;
    let bundle = Bundle::with_config(config.clone()).expect("bundle");
    // Over UDP the peer is on "another host": a bundle of its own, polled in turn.
    let other = if udp {
        config.host = 1;
        Some(Bundle::with_config(config).expect("second bundle"))
    } else {
        None
    };
    let a = bundle.create_endpoint(TAG).expect("endpoint a");
    let b = other
        .as_ref()
        .unwrap_or(&bundle)
        .create_endpoint(TAG)
        .expect("endpoint b");
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
            if let Some(o) = &other {
                o.poll().expect("poll the peer");
            }
        }
    }
    let each = start.elapsed().as_secs_f64() * 1e6 / rounds.max(1) as f64;
    let over = if udp { "UDP" } else { "shared memory" };
    println!("{rounds} short round trips to self over {over}, {each:.3} us each");
}
