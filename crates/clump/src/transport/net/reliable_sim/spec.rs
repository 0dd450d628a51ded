//! What the n-th request from machine s to machine d is, and its reply: header and
//! payload bytes, derived from a hash so that the receiver can check everything it
//! gets without a copy of what was sent.

use super::rng::mix;
use crate::transport::net::wire::{Args, Channel, DataKind, Header, PacketKind};
use crate::{ReturnReason, MAX_MEDIUM};

/// Bytes of each machine's segment.
pub const SEGMENT: u64 = 1 << 20;

/// A message as the sender hands it to [`Reliable::send`](crate::transport::net::reliable::Reliable::send).
pub struct Spec {
    pub header: Header,
    /// Seed of the payload bytes ([`byte`]).
    pub seed: u64,
    /// Payload bytes (0 for short and get).
    pub len: usize,
    /// Long and get reply: the whole payload fits in the segment.
    pub in_bounds: bool,
}

impl Spec {
    pub fn payload(&self) -> Vec<u8> {
        (0..self.len).map(|i| byte(self.seed, i)).collect()
    }

    /// Lands in the segment rather than being handed over.
    pub fn lands(&self) -> bool {
        matches!(self.header.kind, PacketKind::Long | PacketKind::GetReply)
    }
}

/// Byte `i` of the payload with seed `seed`.
pub fn byte(seed: u64, i: usize) -> u8 {
    (mix(seed ^ (i as u64 >> 3)) >> (8 * (i & 7))) as u8
}

/// `data` is bytes `offset..` of the payload with seed `seed`.
pub fn matches(seed: u64, offset: usize, data: &[u8]) -> bool {
    data.iter()
        .enumerate()
        .all(|(i, &b)| b == byte(seed, offset + i))
}

/// Who sent a message, to whom, which one, and whether it is a reply; carried in the
/// first three arguments of every message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ids {
    pub from: u8,
    pub to: u8,
    pub n: u64,
    pub reply: bool,
}

pub fn ids(args: &[u32]) -> Option<Ids> {
    let [a, lo, hi, ..] = *args else { return None };
    Some(Ids {
        from: a as u8,
        to: (a >> 8) as u8,
        n: u64::from(lo) | u64::from(hi) << 32,
        reply: a >> 16 & 1 == 1,
    })
}

fn hash(salt: u64, ids: Ids) -> u64 {
    let who = u64::from(ids.from) | u64::from(ids.to) << 8 | u64::from(ids.reply) << 16;
    mix(salt ^ mix(who) ^ mix(ids.n.wrapping_mul(0x2545_f491_4f6c_dd1d)))
}

fn header(kind: PacketKind, channel: Channel, ids: Ids, r: u64) -> Header {
    let mut h = Header::new(kind, channel);
    h.handler = 1 + (r % 200) as u8;
    h.tag = mix(u64::from(ids.from) << 8 | u64::from(ids.to));
    let nargs = 4 + (r >> 8) as usize % 13;
    let mut args = [0u32; 16];
    args[0] = u32::from(ids.from) | u32::from(ids.to) << 8 | u32::from(ids.reply) << 16;
    args[1] = ids.n as u32;
    args[2] = (ids.n >> 32) as u32;
    for (i, a) in args.iter_mut().enumerate().skip(3) {
        *a = mix(r ^ i as u64) as u32;
    }
    h.args = Args::new(&args[..nargs]).unwrap_or(Args::EMPTY);
    h
}

/// Request number `n` from `from` to `to`.
pub fn request(salt: u64, from: u8, to: u8, n: u64) -> Spec {
    let ids = Ids {
        from,
        to,
        n,
        reply: false,
    };
    let r = hash(salt, ids);
    let seed = mix(r);
    let bits = |shift: u32, modulo: u64| (r >> shift) % modulo;
    let pick = r % 100;
    let mut in_bounds = true;
    let (kind, len) = match pick {
        0..=54 => (PacketKind::Short, 0),
        55..=79 => (PacketKind::Medium, bits(20, 1400) as usize),
        80..=87 if bits(40, 50) == 0 => (PacketKind::Medium, MAX_MEDIUM - bits(48, 100) as usize),
        80..=87 => (PacketKind::Medium, 1400 + bits(20, 7000) as usize),
        88..=94 => (PacketKind::Long, bits(20, 6000) as usize),
        _ => (PacketKind::Get, 0),
    };
    let mut h = header(kind, Channel::Request, ids, r);
    h.total_len = len as u32;
    match kind {
        PacketKind::Long => {
            let len = len as u64;
            h.segment_offset = match bits(40, 40) {
                0 => SEGMENT - len / 2,           // partly outside
                1 => SEGMENT + bits(44, 1 << 16), // wholly outside
                _ => bits(44, SEGMENT - len + 1),
            };
            in_bounds = h.segment_offset + len <= SEGMENT;
        }
        PacketKind::Get => {
            let want = bits(20, 5000);
            h.total_len = want as u32;
            h.segment_offset = bits(34, SEGMENT - want);
            h.reply_offset = bits(44, SEGMENT - want + 1);
        }
        _ => {}
    }
    Spec {
        header: h,
        seed,
        len,
        in_bounds,
    }
}

/// The reply of `to` to request number `n` from `from`.
pub fn reply(salt: u64, from: u8, to: u8, n: u64) -> Spec {
    let req = request(salt, from, to, n);
    let ids = Ids {
        from: to,
        to: from,
        n,
        reply: true,
    };
    let r = hash(salt, ids);
    let seed = mix(r);
    let (kind, len) = if req.header.kind == PacketKind::Get {
        (PacketKind::GetReply, req.header.total_len as usize)
    } else {
        match r % 100 {
            0..=54 => (PacketKind::Short, 0),
            55..=89 => (PacketKind::Medium, (r >> 20) as usize % 3000),
            _ => (
                PacketKind::Returned {
                    reason: ReturnReason::BadHandler,
                    of: DataKind::Medium,
                },
                (r >> 20) as usize % 3000,
            ),
        }
    };
    let mut h = header(kind, Channel::Reply, ids, r);
    h.total_len = len as u32;
    if kind == PacketKind::GetReply {
        h.segment_offset = req.header.reply_offset;
    }
    Spec {
        header: h,
        seed,
        len,
        in_bounds: true,
    }
}
