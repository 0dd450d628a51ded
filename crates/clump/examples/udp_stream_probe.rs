//! A one-way stream of short requests (or 8-byte long messages with `long`) from rank 0 to
//! rank 1, for counting what one message costs over UDP. valgrind follows both ranks when
//! the launcher starts each under it:
//!
//! ```text
//! cargo build --release -p clump --example udp_stream_probe
//! P=target/release/examples/udp_stream_probe
//! clump run -n 2 --transport udp -- valgrind --tool=callgrind $P 20000
//! clump run -n 2 --transport udp -- valgrind --tool=callgrind $P 120000
//! clump run -n 2 --transport udp -- strace -c -f $P 100000
//! ```
//! (instructions of the second run - those of the first) / 100000 = one message, per rank.

use clump::spmd::Spmd;
use std::cell::Cell;
use std::rc::Rc;

const ONEWAY: u8 = 3;

fn main() {
    let mut args = std::env::args().skip(1);
    let count: u64 = match args.next().map(|s| s.parse()) {
        None => 100_000,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("usage: udp_stream_probe [MESSAGES] [short|long]: {e}");
            std::process::exit(2);
        }
    };
    let long = match args.next().as_deref() {
        None | Some("short") => false,
        Some("long") => true,
        Some(other) => {
            eprintln!("usage: udp_stream_probe [MESSAGES] [short|long]: not a kind: {other}");
            std::process::exit(2);
        }
    };
    let mut sp = Spmd::init().expect("join the job");
    assert_eq!(sp.size(), 2, "udp_stream_probe runs on 2 processes");
    let seen = Rc::new(Cell::new(0u64));
    let s = seen.clone();
    sp.ep
        .set_handler(ONEWAY as usize, move |_, _| s.set(s.get() + 1))
        .expect("handler");
    if long {
        sp.ep.set_segment(4096).expect("segment");
    }
    sp.barrier().expect("barrier");
    let start = std::time::Instant::now();
    if sp.rank() == 0 {
        let payload = 7u64.to_le_bytes();
        for _ in 0..count {
            if long {
                sp.ep
                    .request_long(1, ONEWAY, &[], &payload, 0)
                    .expect("long");
            } else {
                sp.ep.request(1, ONEWAY, &[]).expect("request");
            }
        }
        sp.drain().expect("drain");
    } else {
        while seen.get() < count {
            sp.bundle.poll().expect("poll");
        }
    }
    let each = start.elapsed().as_secs_f64() * 1e6 / count.max(1) as f64;
    sp.barrier().expect("barrier");
    println!("rank {}: {count} messages, {each:.3} us each", sp.rank());
}
