//! Every message kind at and around every size limit, between neighbouring ranks, checked
//! byte for byte in both directions.

use crate::check::{pattern, poll_until, words, Failures};
use clump::spmd::Spmd;
use clump::{Kind, MAX_ARGS, MAX_MEDIUM};
use std::cell::Cell;
use std::rc::Rc;

/// Long replies land in the first 8 KiB of the segment, long requests after it, so the two
/// never overlap; the largest request exactly fills the rest.
const REPLY_AREA: usize = 8 << 10;
const SEGMENT: usize = REPLY_AREA + (16 << 20);
const SHORT: usize = 1;
const SHORT_REPLY: usize = 2;
const MEDIUM: usize = 3;
const MEDIUM_REPLY: usize = 4;
const LONG: usize = 5;
const LONG_REPLY: usize = 6;
const GOT: usize = 7;

pub fn run() -> Result<String, String> {
    let mut spmd = Spmd::init().map_err(|e| e.to_string())?;
    let (rank, size) = (spmd.rank(), spmd.size());
    let ep = spmd.ep.clone();
    ep.set_segment(SEGMENT).map_err(|e| e.to_string())?;
    let fails = Failures::default();
    let replies = Rc::new(Cell::new(0usize));
    install_handlers(&spmd, &fails, &replies)?;
    spmd.barrier().map_err(|e| e.to_string())?;
    let to = (rank + 1) % size;
    let mut sent = 0;
    let mut checks = 0;

    for n in 0..=MAX_ARGS {
        ep.request(to, SHORT as u8, &words(rank, n, 1))
            .map_err(|e| e.to_string())?;
        sent += 1;
    }
    for n in [
        0,
        1,
        2,
        63,
        64,
        65,
        4095,
        4096,
        4097,
        8192,
        MAX_MEDIUM - 1,
        MAX_MEDIUM,
    ] {
        ep.request_medium(to, MEDIUM as u8, &[n as u32, rank], &pattern(rank, n, 2))
            .map_err(|e| e.to_string())?;
        sent += 1;
    }
    // Long messages, one at a time since each lands where the next would.
    for n in [1, 63, 4096, 65536, 1 << 20, 16 << 20] {
        for offset in [REPLY_AREA, SEGMENT - n] {
            ep.request_long(
                to,
                LONG as u8,
                &[n as u32, rank, offset as u32],
                &pattern(rank, n, 3),
                offset,
            )
            .map_err(|e| e.to_string())?;
            sent += 1;
            poll_until(&spmd, || replies.get() == sent)?;
            let mut back = vec![0u8; n.min(4096)];
            ep.read_segment(0, &mut back).map_err(|e| e.to_string())?;
            fails.expect(back == pattern(to, n, 4)[..back.len()], || {
                format!("long reply of {n} bytes at {offset}")
            });
            checks += 1;
        }
    }
    poll_until(&spmd, || replies.get() == sent)?;
    checks += sent;

    // Gets: everyone publishes a pattern (once no long message can land on it any more),
    // then pulls the neighbour's.
    spmd.barrier().map_err(|e| e.to_string())?;
    ep.write_segment(1000, &pattern(rank, 1 << 20, 5))
        .map_err(|e| e.to_string())?;
    spmd.barrier().map_err(|e| e.to_string())?;
    let got = Rc::new(Cell::new(0));
    let (g, f) = (got.clone(), fails.clone());
    ep.set_handler(GOT, move |_, m| {
        let n = m.args[0] as usize;
        f.expect(
            m.kind == Kind::Get && m.payload == &pattern(to, 1 << 20, 5)[..n],
            || format!("get of {n} bytes"),
        );
        g.set(g.get() + 1);
    })
    .map_err(|e| e.to_string())?;
    for n in [1usize, 4096, 1 << 20] {
        ep.get(to, GOT as u8, &[n as u32], 1000, n, 2 << 20)
            .map_err(|e| e.to_string())?;
        poll_until(&spmd, || got.get() == checks_of(n))?;
    }
    checks += 3;
    // Over the limits: refused at once, never sent.
    let over_medium = ep.request_medium(to, MEDIUM as u8, &[], &vec![0; MAX_MEDIUM + 1]);
    let over_args = ep.request(to, SHORT as u8, &[0; MAX_ARGS + 1]);
    fails.expect(matches!(over_medium, Err(clump::Error::BadArg(_))), || {
        "medium over the limit was accepted".into()
    });
    fails.expect(matches!(over_args, Err(clump::Error::BadArg(_))), || {
        "17 arguments were accepted".into()
    });
    spmd.barrier().map_err(|e| e.to_string())?;
    fails.into_result(&format!("rank {rank}"))?;
    // How the network carried them, for the netns test to check.
    let net = ep.net_stats().map_or(String::new(), |s| {
        format!(
            ", datagrams of up to {} bytes, {} super-datagrams, {} coalesced",
            s.datagram, s.socket.super_datagrams, s.socket.coalesced
        )
    });
    Ok(format!("rank {rank}: kinds ok, {checks} checks{net}"))
}

fn checks_of(n: usize) -> usize {
    match n {
        1 => 1,
        4096 => 2,
        _ => 3,
    }
}

fn install_handlers(
    spmd: &Spmd,
    fails: &Failures,
    replies: &Rc<Cell<usize>>,
) -> Result<(), String> {
    let ep = &spmd.ep;
    let rank = spmd.rank();
    let size = spmd.size();
    let from = (rank + size - 1) % size;
    let e = |r: clump::Result<()>| r.map_err(|e| e.to_string());
    let f = fails.clone();
    e(ep.set_handler(SHORT, move |t, m| {
        f.expect(m.args == words(from, m.args.len(), 1).as_slice(), || {
            format!("short with {} args", m.args.len())
        });
        let back: Vec<u32> = m.args.iter().rev().copied().collect();
        t.reply(SHORT_REPLY as u8, &back).unwrap();
    }))?;
    let (f, r) = (fails.clone(), replies.clone());
    let to = (rank + 1) % size;
    e(ep.set_handler(SHORT_REPLY, move |_, m| {
        let want: Vec<u32> = words(rank, m.args.len(), 1).into_iter().rev().collect();
        f.expect(m.args == want.as_slice(), || {
            format!("short reply with {} args", m.args.len())
        });
        r.set(r.get() + 1);
    }))?;
    let f = fails.clone();
    e(ep.set_handler(MEDIUM, move |t, m| {
        let n = m.args[0] as usize;
        f.expect(
            m.kind == Kind::Medium && m.payload == pattern(from, n, 2).as_slice(),
            || format!("medium of {n} bytes"),
        );
        t.reply_medium(MEDIUM_REPLY as u8, &[n as u32], m.payload)
            .unwrap();
    }))?;
    let (f, r) = (fails.clone(), replies.clone());
    e(ep.set_handler(MEDIUM_REPLY, move |_, m| {
        let n = m.args[0] as usize;
        f.expect(m.payload == pattern(rank, n, 2).as_slice(), || {
            format!("medium reply of {n} bytes")
        });
        r.set(r.get() + 1);
    }))?;
    let f = fails.clone();
    e(ep.set_handler(LONG, move |t, m| {
        let (n, offset) = (m.args[0] as usize, m.args[2] as u64);
        f.expect(
            m.kind == Kind::Long
                && m.offset == offset
                && m.payload == pattern(from, n, 3).as_slice(),
            || format!("long of {n} bytes at {offset}"),
        );
        let back = pattern(rank, n, 4);
        t.reply_long(LONG_REPLY as u8, &[n as u32], &back[..n.min(4096)], 0)
            .unwrap();
    }))?;
    let (f, r) = (fails.clone(), replies.clone());
    e(ep.set_handler(LONG_REPLY, move |_, m| {
        let n = m.args[0] as usize;
        f.expect(m.payload == &pattern(to, n, 4)[..n.min(4096)], || {
            format!("long reply of {n} bytes")
        });
        r.set(r.get() + 1);
    }))?;
    Ok(())
}
