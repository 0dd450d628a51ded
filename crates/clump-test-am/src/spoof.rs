//! Forged requests from the real peer's own port, in sequence: what someone who sees the
//! job's traffic can send (the job id, the endpoints and the sequence numbers travel in
//! the clear). Rank 1 streams real requests to rank 0 and, ahead of each few, sends from
//! its own endpoint's socket requests that claim the sequence numbers its next real
//! ones will take: some as plain packets with a valid CRC, some behind a made-up seal.
//! With the datagram seal (`CLUMP_NET_AUTH`, on by default) rank 0 must drop and count
//! every one of them, run each real request once, in order, and finish; without it the
//! forged requests run in the real ones' place.

use crate::check::{pattern, poll_until, Failures};
use crate::numbered::Numbered;
use clump::spmd::Spmd;
use clump::transport::net::wire::{self, Args, Channel, Header, Integrity, PacketKind};
use nix::sys::socket::{getsockname, sendto, MsgFlags, SockaddrIn};
use std::os::fd::RawFd;

/// Real requests from rank 1, and their payload size.
const REQUESTS: u32 = 1000;
const PAYLOAD: usize = 256;
/// Ahead of every `EVERY`th real request, forged ones for the next `AHEAD` sequence
/// numbers.
const EVERY: u32 = 4;
const AHEAD: u32 = 8;
/// Forged requests carry this first argument, which no real request does.
const FORGED: u32 = 0xf0f0_f0f0;
/// Bytes of the seal in front of a sealed datagram (`net/auth.rs`).
const SEAL_LEN: usize = 32;

pub fn run() -> Result<String, String> {
    let mut spmd = Spmd::init().map_err(|e| e.to_string())?;
    if spmd.size() != 2 {
        return Err("the spoof scenario runs on 2 ranks".into());
    }
    let fails = Failures::default();
    let stream = Numbered::handlers(&spmd, &fails, PAYLOAD)?;
    spmd.barrier().map_err(|e| e.to_string())?;
    // A forged request that ran explains a stall better than the stall does.
    let failed = |waited: Result<(), String>| {
        fails
            .clone()
            .into_result(&format!("rank {}", spmd.rank()))?;
        waited
    };
    let summary = if spmd.rank() == 1 {
        let mut spoofer = Spoofer::new(&spmd)?;
        for k in 0..REQUESTS {
            if k % EVERY == 0 {
                // Rank 1 sends rank 0 nothing else on the request channel: its real
                // request k takes sequence number 1 + k.
                spoofer.ahead_of(1 + k)?;
            }
            stream.send(&spmd, 0, k)?;
        }
        failed(poll_until(&spmd, || stream.answered.get() == REQUESTS))?;
        format!("spoof ok: rank 1 forged={}", spoofer.sent)
    } else {
        failed(poll_until(&spmd, || stream.ran.get() == REQUESTS))?;
        let net = spmd.ep.net_stats().ok_or("no network")?;
        format!(
            "spoof ok: rank 0 auth={} unauthenticated={} delivered={}",
            net.auth, net.unauthenticated, net.protocol.messages_delivered
        )
    };
    // Rank 0 keeps polling until rank 1 has all its replies.
    spmd.barrier().map_err(|e| e.to_string())?;
    fails.into_result(&format!("rank {}", spmd.rank()))?;
    Ok(summary)
}

/// Sends forged datagrams to rank 0 through rank 1's own endpoint socket, so that they
/// come from the very address rank 0 knows rank 1 by.
struct Spoofer {
    fd: RawFd,
    to: SockaddrIn,
    header: Header,
    buf: Vec<u8>,
    sent: u64,
}

impl Spoofer {
    fn new(spmd: &Spmd) -> Result<Spoofer, String> {
        let (target, tag) = spmd.ep.translation(0).ok_or("rank 0 is not mapped")?;
        let mut header = Header::new(PacketKind::Medium, Channel::Request);
        header.job = spmd.job.job_id();
        header.src = spmd.ep.name().id;
        header.dst = target.id;
        header.tag = tag;
        header.handler = 1;
        header.total_len = PAYLOAD as u32;
        Ok(Spoofer {
            fd: socket_bound_to(spmd.ep.name().addr)?,
            to: SockaddrIn::from(target.addr),
            header,
            buf: vec![0; wire::MAX_DATAGRAM],
            sent: 0,
        })
    }

    /// Forged requests for sequence numbers `first..first + AHEAD`: even ones as plain
    /// packets with their CRC, odd ones behind a tag that is not the job's.
    fn ahead_of(&mut self, first: u32) -> Result<(), String> {
        let payload = pattern(9, PAYLOAD, first);
        for seq in first..first + AHEAD {
            let mut h = self.header;
            h.seq = seq;
            h.args = Args::new(&[FORGED, seq]).map_err(|e| e.to_string())?;
            let len = if seq % 2 == 0 {
                wire::encode_into(&h, &payload, &mut self.buf).map_err(|e| e.to_string())?
            } else {
                let (tag, rest) = self.buf.split_at_mut(SEAL_LEN);
                tag.fill(seq as u8);
                let head = wire::encode_header_into(&h, &payload, rest, Integrity::Sealed)
                    .map_err(|e| e.to_string())?;
                rest[head..head + PAYLOAD].copy_from_slice(&payload);
                SEAL_LEN + head + PAYLOAD
            };
            // A full socket buffer drops some, as a wire would: it is traffic all the same.
            if sendto(self.fd, &self.buf[..len], &self.to, MsgFlags::empty()).is_ok() {
                self.sent += 1;
            }
        }
        Ok(())
    }
}

/// The descriptor of this process's socket bound to `addr` (the endpoint's own).
fn socket_bound_to(addr: std::net::SocketAddrV4) -> Result<RawFd, String> {
    let want = SockaddrIn::from(addr);
    std::fs::read_dir("/proc/self/fd")
        .map_err(|e| format!("/proc/self/fd: {e}"))?
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<RawFd>().ok())
        .find(|&fd| getsockname::<SockaddrIn>(fd).is_ok_and(|a| a == want))
        .ok_or_else(|| format!("no socket of this process is bound to {addr}"))
}
