//! The packet a slot of the packet queue carries: what 001 calls handler index, arguments,
//! packet type, inverse mapping and bulk index, plus what flow control and replies need.

use crate::message::Kind;
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
pub const NO_BULK: u32 = u32::MAX;

/// 120 bytes: with the slot's sequence word, exactly one 128-byte slot.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct Packet {
    pub kind: u8,
    pub handler: u8,
    pub nargs: u8,
    /// For `Returned`: the reason code.
    pub reason: u8,
    /// For `Returned`: the kind of the message that came back.
    pub orig_kind: u8,
    pub _pad: [u8; 3],
    /// Payload bytes (medium: in the bulk block; long: at `offset` in the segment).
    pub len: u32,
    pub bulk: u32,
    /// The requester's translation index, echoed back so its credit returns in O(1).
    pub credit_slot: u32,
    /// On the reply queue: how many credits of `credit_slot` this packet returns (an ack
    /// answers a run of requests whose handlers did not reply).
    pub credits: u32,
    pub offset: u64,
    /// The sending endpoint: where a reply goes (001's inverse mapping, by name).
    pub src: EndpointId,
    /// The tag a reply must carry to be accepted by `src`.
    pub src_tag: u64,
    pub args: [u32; 16],
}

const _: () = assert!(std::mem::size_of::<Packet>() == 120);

impl Packet {
    /// Copies the header and only the arguments in use, so that a packet with few
    /// arguments never touches its slot's second cache line.
    #[inline(always)]
    pub fn copy_used(&self) -> Packet {
        let mut p = Packet {
            kind: self.kind,
            handler: self.handler,
            nargs: self.nargs,
            reason: self.reason,
            orig_kind: self.orig_kind,
            _pad: [0; 3],
            len: self.len,
            bulk: self.bulk,
            credit_slot: self.credit_slot,
            credits: self.credits,
            offset: self.offset,
            src: self.src,
            src_tag: self.src_tag,
            args: [0; 16],
        };
        let n = (self.nargs as usize).min(16);
        p.args[..n].copy_from_slice(&self.args[..n]);
        p
    }

    /// Writes `from` into this (slot) packet, arguments in use only.
    #[inline(always)]
    pub fn store_used(&mut self, from: &Packet) {
        let n = (from.nargs as usize).min(16);
        self.kind = from.kind;
        self.handler = from.handler;
        self.nargs = from.nargs;
        self.reason = from.reason;
        self.orig_kind = from.orig_kind;
        self.len = from.len;
        self.bulk = from.bulk;
        self.credit_slot = from.credit_slot;
        self.credits = from.credits;
        self.offset = from.offset;
        self.src = from.src;
        self.src_tag = from.src_tag;
        self.args[..n].copy_from_slice(&from.args[..n]);
    }
}
