//! A one-way stream of short requests (or long messages of BYTES, 8 by default, with
//! `long`) from rank 0 to rank 1, or with `rtt` short round trips (rank 1 replies, rank 0
//! waits for each reply; both spin in polls, as `clump bench loggp`'s ranks do), for
//! counting what one message costs over UDP. valgrind follows both ranks when the
//! launcher starts each under it:
//!
//! ```text
//! cargo build --release -p clump --example udp_stream_probe
//! P=target/release/examples/udp_stream_probe
//! clump run -n 2 --transport udp -- valgrind --tool=callgrind $P 20000
//! clump run -n 2 --transport udp -- valgrind --tool=callgrind $P 120000
//! clump run -n 2 --transport udp -- strace -c -f $P 100000
//! ```
//! (instructions of the second run - those of the first) / 100000 = one message, per rank.
//! A spinning rank's count includes its empty polls, as many as the wait lasted: compare
//! builds by the cost per poll and per call of the functions that run once per message.

use clump::spmd::Spmd;
use std::cell::Cell;
use std::rc::Rc;

const ONEWAY: u8 = 3;
const ECHO: u8 = 4;
const ECHOED: u8 = 5;

/// What rank 0 sends.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Short,
    Rtt,
    Long,
}

const USAGE: &str = "usage: udp_stream_probe [MESSAGES] [short|rtt|long [BYTES]]";

/// The number in `arg`, `default` when absent; a bad one ends the program with the usage.
fn number<T: std::str::FromStr>(arg: Option<String>, default: T) -> T
where
    T::Err: std::fmt::Display,
{
    match arg.map(|s| s.parse()) {
        None => default,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("{USAGE}: {e}");
            std::process::exit(2);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let count: u64 = number(args.next(), 100_000);
    let kind = match args.next().as_deref() {
        None | Some("short") => Kind::Short,
        Some("rtt") => Kind::Rtt,
        Some("long") => Kind::Long,
        Some(other) => {
            eprintln!("{USAGE}: not a kind: {other}");
            std::process::exit(2);
        }
    };
    let bytes: usize = number(args.next(), 8);
    let mut sp = Spmd::init().expect("join the job");
    assert_eq!(sp.size(), 2, "udp_stream_probe runs on 2 processes");
    let seen = Rc::new(Cell::new(0u64));
    let s = seen.clone();
    sp.ep
        .set_handler(ONEWAY as usize, move |_, _| s.set(s.get() + 1))
        .expect("handler");
    let s = seen.clone();
    sp.ep
        .set_handler(ECHO as usize, move |t, _| {
            s.set(s.get() + 1);
            t.reply(ECHOED, &[]).expect("reply")
        })
        .expect("handler");
    let s = seen.clone();
    sp.ep
        .set_handler(ECHOED as usize, move |_, _| s.set(s.get() + 1))
        .expect("handler");
    if kind == Kind::Long {
        sp.ep.set_segment(bytes.max(8)).expect("segment");
    }
    sp.barrier().expect("barrier");
    let payload: Vec<u8> = (0..bytes).map(|i| i as u8).collect();
    let start = std::time::Instant::now();
    if sp.rank() == 0 {
        for done in 0..count {
            match kind {
                Kind::Short => sp.ep.request(1, ONEWAY, &[]).expect("request"),
                Kind::Long => sp
                    .ep
                    .request_long(1, ONEWAY, &[], &payload, 0)
                    .expect("long"),
                Kind::Rtt => {
                    sp.ep.request(1, ECHO, &[]).expect("request");
                    while seen.get() == done {
                        sp.bundle.poll().expect("poll");
                    }
                }
            }
        }
        sp.drain().expect("drain");
    } else {
        // Rank 1 spins in polls as rank 0 does (the launcher's barrier would sleep).
        while seen.get() < count {
            sp.bundle.poll().expect("poll");
        }
    }
    let each = start.elapsed().as_secs_f64() * 1e6 / count.max(1) as f64;
    sp.barrier().expect("barrier");
    println!("rank {}: {count} messages, {each:.3} us each", sp.rank());
    // What the transport did, for telling a stalled window from a slow path.
    if let Some(s) = sp.ep.net_stats() {
        println!(
            "rank {}: {:?}\nrank {}: {:?}",
            sp.rank(),
            s.protocol,
            sp.rank(),
            s.socket
        );
    }
}
