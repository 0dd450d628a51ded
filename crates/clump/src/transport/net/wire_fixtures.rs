//! Datagrams both codec test files build: valid headers, their encoding, and the
//! multi-packet datagrams that are also fuzz seeds.

use crate::transport::net::wire::*;

pub(in crate::transport::net::wire) const JOB: u64 = 0x0123_4567_89ab_cdef;

pub(in crate::transport::net::wire) fn ep(pid: u32, fd: u32, nonce: u64) -> EndpointId {
    EndpointId { pid, fd, nonce }
}

/// A valid header of `kind` with `nargs` arguments, for a payload of `payload_len` bytes
/// that is the whole message.
pub(in crate::transport::net::wire) fn header(kind: PacketKind, nargs: usize, payload_len: usize) -> Header {
    let channel = match kind {
        PacketKind::GetReply => Channel::Reply,
        _ => Channel::Request,
    };
    let mut h = Header::new(kind, channel);
    h.job = JOB;
    h.src = ep(101, 7, 0xfeed_f00d_dead_beef);
    h.dst = ep(202, 9, 0x1234_5678_9abc_def0);
    h.tag = 0x5eed;
    h.seq = 77;
    h.ack = Some(76);
    if !matches!(kind, PacketKind::Ack | PacketKind::Nack) {
        h.handler = 3;
        let args: Vec<u32> = (0..nargs as u32)
            .map(|i| 0x1000_0001u32.wrapping_mul(i + 1))
            .collect();
        h.args = Args::new(&args).unwrap();
    }
    match kind.shape() {
        Shape::Bare => {}
        Shape::Medium | Shape::Sack => h.total_len = payload_len as u32,
        Shape::Bulk => {
            h.total_len = payload_len as u32;
            h.segment_offset = 4096;
        }
        Shape::GetRequest => {
            h.total_len = 65536;
            h.segment_offset = 8192;
            h.reply_offset = 128;
        }
    }
    h
}

pub(in crate::transport::net::wire) fn enc(h: &Header, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    encode(h, payload, &mut out).unwrap();
    out
}

/// A credit-only answer (a short reply to handler 0) with the "more" flag.
pub(in crate::transport::net::wire) fn credit_answer() -> Vec<u8> {
    let mut h = header(PacketKind::Short, 1, 0);
    h.channel = Channel::Reply;
    h.handler = 0;
    let mut d = enc(&h, &[]);
    mark_followed(&mut d, Integrity::Crc).unwrap();
    d
}

pub(in crate::transport::net::wire) fn request() -> (Header, Vec<u8>) {
    let payload = b"eight by".to_vec();
    (header(PacketKind::Medium, 4, payload.len()), payload)
}

/// A credit-only answer and the request that carries it, in one datagram (also a fuzz seed).
pub(in crate::transport::net::wire) fn credit_then_request() -> Vec<u8> {
    let (h, payload) = request();
    let mut d = credit_answer();
    d.extend(enc(&h, &payload));
    d
}

/// What a coalescing sender puts in one datagram (also a fuzz seed): a reply, then
/// requests of each kind that carries data, the last one with a payload of its own.
pub(in crate::transport::net::wire) fn coalesced() -> Vec<u8> {
    let mut reply = header(PacketKind::Short, 2, 0);
    reply.channel = Channel::Reply;
    let packets = [
        (reply, &b""[..]),
        (header(PacketKind::Short, 16, 0), b""),
        (header(PacketKind::Medium, 3, 8), b"8 bytes!"),
        (header(PacketKind::Medium, 0, 1), b"1"),
        (header(PacketKind::Long, 1, 8), b"long 8 b"),
    ];
    let mut d = Vec::new();
    for (i, (h, payload)) in packets.iter().enumerate() {
        let mut packet = enc(h, payload);
        if i + 1 < packets.len() {
            mark_followed(&mut packet, Integrity::Crc).unwrap();
        }
        d.extend(packet);
    }
    d
}
