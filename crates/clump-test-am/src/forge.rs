//! Forged traffic while a job runs: rank 1 streams real requests to rank 0 and, between
//! them, sends rank 0 datagrams with the job's id and a valid CRC from many source ports:
//! invented endpoints with sequence numbers ahead of the window (which a receiver that
//! kept state for them would buffer), its own endpoint replayed from new ports (which
//! would run handlers twice), and long messages far outside the segment. Rank 0 must run
//! each real request once, in order, and keep no state for any of the forgers.

use crate::check::{pattern, poll_until, Failures};
use crate::numbered::Numbered;
use clump::spmd::Spmd;
use clump::transport::net::wire::{self, Args, Channel, Header, PacketKind};
use clump::EndpointId;
use std::net::{SocketAddrV4, UdpSocket};

/// Real requests from rank 1, and their payload size.
const REQUESTS: u32 = 1000;
const PAYLOAD: usize = 512;
/// Source ports of the forgers, forged datagrams each sends per round, and real
/// requests per round.
const PORTS: usize = 40;
const PER_ROUND: u32 = 4;
const EVERY: u32 = 5;
/// Forged requests carry this first argument, which no real request does.
const FORGED: u32 = 0xf0f0_f0f0;

pub fn run() -> Result<String, String> {
    let mut spmd = Spmd::init().map_err(|e| e.to_string())?;
    if spmd.size() != 2 {
        return Err("the forge scenario runs on 2 ranks".into());
    }
    let fails = Failures::default();
    let stream = Numbered::handlers(&spmd, &fails, PAYLOAD)?;
    spmd.barrier().map_err(|e| e.to_string())?;
    if spmd.rank() == 1 {
        let mut forger = Forger::new(&spmd)?;
        for seq in 0..REQUESTS {
            stream.send(&spmd, 0, seq)?;
            if seq % EVERY == 0 {
                forger.round(seq)?;
            }
        }
        poll_until(&spmd, || stream.answered.get() == REQUESTS)?;
        println!("rank 1: forged {} datagrams", forger.sent);
    } else {
        poll_until(&spmd, || stream.ran.get() == REQUESTS)?;
    }
    // Rank 0 keeps polling until rank 1 has all its replies.
    spmd.barrier().map_err(|e| e.to_string())?;
    fails.into_result(&format!("rank {}", spmd.rank()))?;
    let net = spmd.ep.net_stats().ok_or("no network")?;
    let stats = net.protocol;
    Ok(format!(
        "forge ok: rank {} peers={} refused={} unauthenticated={} reorder_peak={} delivered={}",
        spmd.rank(),
        stats.peers,
        stats.refused_sources,
        net.unauthenticated,
        stats.reorder_bytes_peak,
        stats.messages_delivered
    ))
}

/// Sends forged datagrams to rank 0 from sockets of its own.
struct Forger {
    sockets: Vec<UdpSocket>,
    to: SocketAddrV4,
    job: u64,
    tag: u64,
    dst: EndpointId,
    /// Rank 1's own endpoint, which replays claim to come from.
    me: EndpointId,
    buf: Vec<u8>,
    sent: u64,
}

impl Forger {
    fn new(spmd: &Spmd) -> Result<Forger, String> {
        let (target, tag) = spmd.ep.translation(0).ok_or("rank 0 is not mapped")?;
        let sockets = (0..PORTS)
            .map(|_| UdpSocket::bind(SocketAddrV4::new(*target.addr.ip(), 0)))
            .collect::<Result<_, _>>()
            .map_err(|e| format!("forger socket: {e}"))?;
        Ok(Forger {
            sockets,
            to: target.addr,
            job: spmd.job.job_id(),
            tag,
            dst: target.id,
            me: spmd.ep.name().id,
            buf: vec![0; wire::MAX_DATAGRAM],
            sent: 0,
        })
    }

    /// One round: from each port a few datagrams of the three kinds, the invented
    /// endpoints' sequence numbers moving through the receiver's window.
    fn round(&mut self, round: u32) -> Result<(), String> {
        let payload = pattern(9, PAYLOAD, round);
        for (port, socket) in self.sockets.iter().enumerate() {
            for k in 0..PER_ROUND {
                let mut h = Header::new(PacketKind::Medium, Channel::Request);
                h.job = self.job;
                h.dst = self.dst;
                h.tag = self.tag;
                h.handler = 1;
                h.args = Args::new(&[FORGED, round]).map_err(|e| e.to_string())?;
                h.total_len = PAYLOAD as u32;
                h.seq = 2 + (round * PER_ROUND + k) % 250;
                h.src = EndpointId {
                    pid: 4_000_000 + port as u32,
                    fd: 3,
                    nonce: 0x0f0f_0000 + port as u64,
                };
                let mut data = &payload[..];
                match k % 4 {
                    // Rank 1's endpoint from a new port: a replay, at the sequence numbers
                    // the real stream is using.
                    1 => {
                        h.src = self.me;
                        h.seq = 1 + round;
                    }
                    // A long message far outside any segment.
                    2 => {
                        h.kind = PacketKind::Long;
                        h.segment_offset = 1 << 40;
                        h.seq = 1 + round;
                    }
                    // A short one, the first its invented endpoint would expect.
                    3 => {
                        h.kind = PacketKind::Short;
                        h.total_len = 0;
                        h.seq = 1;
                        data = &[];
                    }
                    _ => {}
                }
                let len = wire::encode_into(&h, data, &mut self.buf).map_err(|e| e.to_string())?;
                // A full socket buffer drops some, as a wire would: it is traffic all the
                // same.
                if socket.send_to(&self.buf[..len], self.to).is_ok() {
                    self.sent += 1;
                }
            }
        }
        Ok(())
    }
}
