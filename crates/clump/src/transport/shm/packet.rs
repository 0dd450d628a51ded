//! The packet a slot of the packet queue carries: what 001 calls handler index, arguments,
//! packet type, inverse mapping and bulk index, plus what flow control and replies need.

use crate::message::{copy_args, Kind};
use crate::name::EndpointId;

/// Packet types. Values are what travel in shared memory; decoding checks them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PacketKind {
    Short = 1,
    Medium = 2,
    Long = 3,
    /// Returns a credit for a request whose handler did not reply.
    Ack = 4,
    /// A request that could not be delivered, coming back to its sender.
    Returned = 5,
}

impl PacketKind {
    pub fn from_u8(v: u8) -> Option<PacketKind> {
        Some(match v {
            1 => PacketKind::Short,
            2 => PacketKind::Medium,
            3 => PacketKind::Long,
            4 => PacketKind::Ack,
            5 => PacketKind::Returned,
            _ => return None,
        })
    }

    /// The packet that carries a message of `kind`. A get never travels in a packet (its
    /// data is copied straight between the segments): it would be a short one.
    #[inline]
    pub fn carrying(kind: Kind) -> PacketKind {
        match kind {
            Kind::Short | Kind::Get => PacketKind::Short,
            Kind::Medium => PacketKind::Medium,
            Kind::Long => PacketKind::Long,
        }
    }

    /// The message kind a data packet carries; `None` for acks and returned requests.
    #[inline]
    pub fn message_kind(self) -> Option<Kind> {
        match self {
            PacketKind::Short => Some(Kind::Short),
            PacketKind::Medium => Some(Kind::Medium),
            PacketKind::Long => Some(Kind::Long),
            PacketKind::Ack | PacketKind::Returned => None,
        }
    }
}

/// No bulk block attached.
pub const NO_BULK: u8 = u8::MAX;

/// 120 bytes: with the slot's sequence word, exactly one 128-byte slot.
///
/// Laid out by use: what every packet needs (40 bytes) comes first, so that with the
/// slot's sequence word it and the first four arguments share the slot's first cache
/// line; a short message of up to four arguments moves one line between the cores, not
/// two. The long message's offset, read only for long messages, comes last.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Packet {
    pub kind: u8,
    pub handler: u8,
    pub nargs: u8,
    /// For `Returned`: the reason code.
    pub reason: u8,
    /// For `Returned`: the kind of the message that came back.
    pub orig_kind: u8,
    /// The bulk block of a medium payload, or [`NO_BULK`].
    pub bulk: u8,
    /// On the reply queue: how many credits of `credit_slot` this packet returns (an ack
    /// answers a run of requests whose handlers did not reply; a run never exceeds the
    /// reply queue's length, but an ack of more is split, see `MAX_ACK`).
    pub credits: u16,
    /// The requester's translation index, echoed back so its credit returns in O(1).
    pub credit_slot: u32,
    /// Payload bytes (medium: in the bulk block; long: at `offset` in the segment).
    pub len: u32,
    /// The sending endpoint: where a reply goes (001's inverse mapping, by name).
    pub src: EndpointId,
    /// The tag a reply must carry to be accepted by `src`.
    pub src_tag: u64,
    pub args: [u32; 16],
    /// Long messages (and requests returned to their sender) only: where the payload lies
    /// in the destination's segment. Other packets leave it unwritten and unread.
    pub offset: u64,
    pub _pad: u64,
}

const _: () = assert!(std::mem::size_of::<Packet>() == 120);
// The slot's sequence word (8 bytes), the common header and four arguments: one line.
const _: () = assert!(8 + std::mem::offset_of!(Packet, args) + 4 * 4 == 64);

/// The most credits one ack returns.
pub const MAX_ACK: u32 = u16::MAX as u32;

impl Default for Packet {
    fn default() -> Packet {
        Packet {
            kind: 0,
            handler: 0,
            nargs: 0,
            reason: 0,
            orig_kind: 0,
            bulk: NO_BULK,
            credits: 0,
            credit_slot: 0,
            len: 0,
            src: EndpointId::default(),
            src_tag: 0,
            args: [0; 16],
            offset: 0,
            _pad: 0,
        }
    }
}

impl Packet {
    /// Whether this packet's `offset` means anything: a long message, or a returned
    /// request (which may have been long).
    #[inline(always)]
    fn has_offset(&self) -> bool {
        self.kind == PacketKind::Long as u8 || self.kind == PacketKind::Returned as u8
    }

    /// The offset where it means anything, 0 elsewhere: a short packet's offset lies in
    /// its slot's second cache line, which reading it would pull across the cores.
    #[inline(always)]
    pub fn used_offset(&self) -> u64 {
        if self.has_offset() {
            self.offset
        } else {
            0
        }
    }

    /// Copies the header and only the arguments in use (and the offset only where it
    /// means anything), so that a short packet with few arguments never touches its
    /// slot's second cache line.
    #[inline(always)]
    pub fn copy_used(&self) -> Packet {
        let mut p = Packet {
            kind: self.kind,
            handler: self.handler,
            nargs: self.nargs,
            reason: self.reason,
            orig_kind: self.orig_kind,
            bulk: self.bulk,
            credits: self.credits,
            credit_slot: self.credit_slot,
            len: self.len,
            src: self.src,
            src_tag: self.src_tag,
            args: [0; 16],
            offset: self.used_offset(),
            _pad: 0,
        };
        let n = (self.nargs as usize).min(16);
        copy_args(&mut p.args, &self.args[..n]);
        p
    }

    /// Writes `from` into this (slot) packet: arguments in use only, the offset only
    /// where it means anything.
    #[inline(always)]
    pub fn store_used(&mut self, from: &Packet) {
        let n = (from.nargs as usize).min(16);
        self.kind = from.kind;
        self.handler = from.handler;
        self.nargs = from.nargs;
        self.reason = from.reason;
        self.orig_kind = from.orig_kind;
        self.bulk = from.bulk;
        self.credits = from.credits;
        self.credit_slot = from.credit_slot;
        self.len = from.len;
        self.src = from.src;
        self.src_tag = from.src_tag;
        copy_args(&mut self.args, &from.args[..n]);
        if from.has_offset() {
            self.offset = from.offset;
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn packet(kind: PacketKind, nargs: u8) -> Packet {
        let mut p = Packet {
            kind: kind as u8,
            handler: 7,
            nargs,
            credits: 3,
            credit_slot: 9,
            len: 5,
            bulk: 2,
            src_tag: 0xfeed,
            offset: 4096,
            ..Packet::default()
        };
        for (i, a) in p.args.iter_mut().enumerate() {
            *a = 100 + i as u32;
        }
        p
    }

    #[test]
    fn the_header_and_four_arguments_share_the_slots_first_line() {
        // The slot's sequence word takes the first 8 bytes of the line.
        assert_eq!(8 + std::mem::offset_of!(Packet, args), 48);
        assert!(8 + std::mem::offset_of!(Packet, offset) >= 64);
    }

    #[test]
    fn a_copy_keeps_the_arguments_in_use_and_the_offset_of_long_packets_only() {
        let short = packet(PacketKind::Short, 2).copy_used();
        assert_eq!(short.args[..3], [100, 101, 0]);
        assert_eq!(short.offset, 0, "a short packet's offset is never read");
        assert_eq!((short.handler, short.credits, short.credit_slot), (7, 3, 9));
        assert_eq!((short.len, short.bulk, short.src_tag), (5, 2, 0xfeed));
        assert_eq!(packet(PacketKind::Long, 0).copy_used().offset, 4096);
        assert_eq!(packet(PacketKind::Returned, 16).copy_used().offset, 4096);
        assert_eq!(packet(PacketKind::Returned, 16).copy_used().args[15], 115);
    }

    #[test]
    fn a_store_writes_the_offset_of_long_packets_only() {
        let mut slot = Packet {
            offset: 1,
            ..Packet::default()
        };
        slot.store_used(&packet(PacketKind::Medium, 1));
        assert_eq!((slot.offset, slot.args[0], slot.args[1]), (1, 100, 0));
        assert_eq!((slot.kind, slot.bulk), (PacketKind::Medium as u8, 2));
        slot.store_used(&packet(PacketKind::Long, 0));
        assert_eq!(slot.offset, 4096);
    }
}
