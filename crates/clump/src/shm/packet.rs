//! The packet a slot of the packet queue carries: what 001 calls handler index, arguments,
//! packet type, inverse mapping and bulk index, plus what flow control and replies need.

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
    pub _pad2: u32,
    pub offset: u64,
    /// The sending endpoint: where a reply goes (001's inverse mapping, by name).
    pub src: EndpointId,
    /// The tag a reply must carry to be accepted by `src`.
    pub src_tag: u64,
    pub args: [u32; 16],
}

const _: () = assert!(std::mem::size_of::<Packet>() == 120);
