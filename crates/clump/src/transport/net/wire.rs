//! The packet format of the UDP transport: encoding, decoding and validation, pure.
//!
//! A packet is a fixed 104-byte header, `nargs` 32-bit arguments, then the payload. All
//! integers are little-endian. The CRC32C (Castagnoli) covers the whole packet, header
//! and payload, computed with its own four bytes taken as zero. A datagram carries one
//! packet, or several back to back: each but the last has the "more" flag, and ends
//! where its payload length says ([`decode_next`]).
//!
//! | offset   | size  | field                                                            |
//! |----------|-------|------------------------------------------------------------------|
//! | 0        | 2     | magic `b"CL"`                                                    |
//! | 2        | 1     | version, [`VERSION`] (3)                                         |
//! | 3        | 1     | kind: low nibble the [`PacketKind`] code (1..=8); high nibble, for `Returned` only, the [`DataKind`] code (1..=5) of the message that came back, else 0 |
//! | 4        | 1     | flags: bit 0 the [`Channel`] (0 request, 1 reply), bit 1 "ack valid", bit 2 "echo valid", bit 3 "more": another packet follows in the datagram; other bits 0 |
//! | 5        | 1     | handler index                                                    |
//! | 6        | 1     | nargs, at most [`MAX_ARGS`] (16)                                 |
//! | 7        | 1     | return reason ([`ReturnReason`], 1..=9) for `Returned`, else 0  |
//! | 8        | 4     | CRC32C of the datagram with these four bytes zeroed (0, unchecked, in a sealed datagram: [`Integrity`]) |
//! | 12       | 4     | sequence number                                                  |
//! | 16       | 4     | acknowledgement number (0 unless "ack valid")                    |
//! | 20       | 4     | payload length (bytes after the arguments)                       |
//! | 24       | 4     | fragment offset: where this payload lies in the whole message    |
//! | 28       | 4     | total length of the whole message (medium, long, get reply), or bytes requested (get) |
//! | 32       | 8     | job identifier                                                   |
//! | 40       | 16    | source endpoint: pid u32, fd u32, nonce u64                      |
//! | 56       | 16    | destination endpoint: pid u32, fd u32, nonce u64                 |
//! | 72       | 8     | tag of the destination, as the sender knows it                   |
//! | 80       | 8     | segment offset (long, get reply: where the message lands; get: where it is read) |
//! | 88       | 8     | reply offset (get only: where the data lands in the requester's segment) |
//! | 96       | 4     | timestamp: the sender's clock when it sent the packet, microseconds, wrapping |
//! | 100      | 4     | timestamp echo: the timestamp of the packet the acknowledgement answers (0 unless "echo valid") |
//! | 104      | 4 × nargs | arguments                                                    |
//! | 104+4×nargs | payload length | payload                                             |
//!
//! Choices worth knowing:
//!
//! - **Endpoints are [`EndpointId`]s**, the same `{pid, fd, nonce}` the shared-memory
//!   transport and the translation tables use (an [`crate::EndpointName`] is a host plus
//!   an `EndpointId`; over UDP the host is the socket address). A packet therefore names
//!   exactly what its sender mapped, a receiver finds its endpoint by the key it already
//!   has, and the nonce makes a packet for a freed endpoint whose pid and descriptor were
//!   reused detectable instead of misdelivered. A network-neutral `u64 + u32` would save
//!   8 bytes per packet, which is nothing beside a 1472-byte MTU, and would need a second
//!   naming scheme.
//! - **Get carries two offsets.** `segment_offset` is where the data is read in the
//!   destination's segment, `reply_offset` where it lands in the requester's; the
//!   responder echoes `reply_offset` as the get reply's `segment_offset`, so that every
//!   fragment of a get reply lands by itself, with no lookup at the requester.
//! - **Every field has one valid encoding** (unused fields, flag bits, the ack number
//!   without its flag, reasons on other kinds must be zero), so decoding then encoding
//!   gives back the same bytes, and the per-kind rules of [`validate`] hold on both sides.
//! - **Decode order**: the framing (length, magic, version, nargs, payload length) is
//!   checked first, then the CRC, then every other field. A corrupted byte is therefore
//!   reported as a CRC mismatch, except in the five framing fields (and the "more" flag
//!   of a packet that another follows), where it shows as the framing error it makes; a
//!   packet of another protocol or version is named as such.
//! - **Timestamps make every acknowledgement an unambiguous round-trip sample** (as TCP's
//!   timestamp option, RFC 7323): a retransmission carries its own timestamp, so under
//!   heavy loss, where nearly every acknowledgement covers a retransmitted datagram and
//!   Karn's rule would leave no sample, the retransmission timeout still follows the path
//!   instead of staying backed off at its cap.
//! - **Packets share a datagram** when they are small: the messages queued to one peer
//!   leave together (`reliable/coalesce.rs`), so that a stream of small messages costs a
//!   datagram per datagram's worth of them, and a credit-only answer travels in front of
//!   the next request, so that a ping-pong of requests whose handlers do not reply
//!   costs one datagram per message instead of two. Each packet
//!   keeps its own CRC, sequence number and ack, so the reliability layer sends it
//!   again alone if the datagram is lost.
//! - What the sequence and acknowledgement numbers mean (which channel an ack refers to)
//!   belongs to the reliability layer; the codec only carries them.

use crate::name::EndpointId;
use crate::{ReturnReason, MAX_ARGS, MAX_LONG, MAX_MEDIUM};
use std::fmt;

/// The first two bytes of every packet.
pub const MAGIC: [u8; 2] = *b"CL";
/// The wire version this codec speaks.
pub const VERSION: u8 = 3;
/// Bytes of the header before the arguments.
pub const FIXED_HEADER_LEN: usize = 104;
/// Bytes of the largest header: fixed part and [`MAX_ARGS`] arguments.
pub const MAX_HEADER_LEN: usize = FIXED_HEADER_LEN + 4 * MAX_ARGS;
/// Largest UDP payload over IPv4 (65535 less the IP and UDP headers).
pub const MAX_DATAGRAM: usize = 65_507;
/// Largest payload one packet carries, whatever its number of arguments.
pub const MAX_DATAGRAM_PAYLOAD: usize = MAX_DATAGRAM - MAX_HEADER_LEN;

/// Where each field lies in a datagram (see the table in the module documentation).
pub mod offsets {
    pub const MAGIC: usize = 0;
    pub const VERSION: usize = 2;
    pub const KIND: usize = 3;
    pub const FLAGS: usize = 4;
    pub const HANDLER: usize = 5;
    pub const NARGS: usize = 6;
    pub const REASON: usize = 7;
    pub const CRC: usize = 8;
    pub const SEQ: usize = 12;
    pub const ACK: usize = 16;
    pub const PAYLOAD_LEN: usize = 20;
    pub const FRAG_OFFSET: usize = 24;
    pub const TOTAL_LEN: usize = 28;
    pub const JOB: usize = 32;
    pub const SRC: usize = 40;
    pub const DST: usize = 56;
    pub const TAG: usize = 72;
    pub const SEGMENT_OFFSET: usize = 80;
    pub const REPLY_OFFSET: usize = 88;
    pub const TIMESTAMP: usize = 96;
    pub const ECHO: usize = 100;
    pub const ARGS: usize = 104;
}

/// Flag bit: the packet travels on the reply channel.
const FLAG_REPLY: u8 = 1 << 0;
/// Flag bit: the acknowledgement number is valid.
const FLAG_ACK: u8 = 1 << 1;
/// Flag bit: the timestamp echo is valid.
const FLAG_ECHO: u8 = 1 << 2;
/// Flag bit: another packet follows this one in the datagram.
const FLAG_MORE: u8 = 1 << 3;
const KNOWN_FLAGS: u8 = FLAG_REPLY | FLAG_ACK | FLAG_ECHO | FLAG_MORE;

/// Why a datagram was not a valid packet, or a header could not be encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("datagram of {len} bytes is shorter than the {need} bytes its header needs")]
    Truncated { len: usize, need: usize },
    #[error("bad magic {0:02x?}: not a clump packet")]
    BadMagic([u8; 2]),
    #[error("wire version {0} is not supported (this is version {VERSION})")]
    BadVersion(u8),
    #[error("{0} arguments, at most {MAX_ARGS} allowed")]
    TooManyArgs(usize),
    #[error("header declares a {declared}-byte payload but {actual} bytes follow it")]
    LengthMismatch { declared: u32, actual: usize },
    #[error("payload of {len} bytes exceeds the per-datagram limit of {MAX_DATAGRAM_PAYLOAD}")]
    PayloadTooLarge { len: usize },
    #[error(
        "CRC32C mismatch: stored {stored:#010x}, computed {computed:#010x} (corrupted packet)"
    )]
    CrcMismatch { stored: u32, computed: u32 },
    #[error("packet of job {found:#x}, this is job {expected:#x} (stale packet of another run)")]
    WrongJob { expected: u64, found: u64 },
    #[error("unknown packet kind byte {0:#04x}")]
    BadKind(u8),
    #[error("returned packet names unknown message kind {0}")]
    BadReturnedKind(u8),
    #[error("return reason {0} is not a valid reason")]
    BadReason(u8),
    #[error("return reason {0} on a packet that is not a returned message")]
    UnexpectedReason(u8),
    #[error("unknown flag bits {0:#04x}")]
    UnknownFlags(u8),
    #[error("acknowledgement number {0} without the ack-valid flag")]
    AckWithoutFlag(u32),
    #[error("timestamp echo {0} without the echo-valid flag")]
    EchoWithoutFlag(u32),
    #[error("ack packet without a valid acknowledgement number")]
    MissingAck,
    #[error("{kind} packet must travel on the {expected} channel")]
    WrongChannel {
        kind: &'static str,
        expected: Channel,
    },
    #[error("{kind} packet cannot carry {field}")]
    FieldNotAllowed {
        kind: &'static str,
        field: &'static str,
    },
    #[error("{kind} message of {total} bytes exceeds the limit of {max}")]
    TotalTooLarge {
        kind: &'static str,
        total: u32,
        max: usize,
    },
    #[error("fragment of {len} bytes at offset {offset} overruns the message's {total} bytes")]
    FragmentOutOfBounds { offset: u32, len: usize, total: u32 },
    #[error("empty fragment at offset {offset} of a {total}-byte message")]
    EmptyFragment { offset: u32, total: u32 },
    #[error("offset {offset} plus length {len} overflows 64 bits")]
    OffsetOverflow { offset: u64, len: u32 },
    #[error("the \"more\" flag is set but no packet follows it")]
    NothingFollows,
    #[error("a packet of {len} bytes followed by another cannot be marked in place")]
    NotMarkable { len: usize },
    #[error("buffer of {len} bytes cannot hold the {need}-byte datagram")]
    BufferTooSmall { len: usize, need: usize },
}

/// The two logical channels between a pair of endpoints: replies never wait behind
/// requests (paper 002).
/// What guards a packet against corruption.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Integrity {
    /// Its CRC32C, computed when it is encoded and checked when it is decoded.
    Crc,
    /// The seal of its datagram (`net/auth.rs`, an AEGIS MAC), whose tag covers every byte
    /// and is checked before the packet is decoded: the CRC would only repeat that
    /// check, so data packets leave their CRC field zero and decoding does not read it.
    Sealed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    Request,
    Reply,
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Channel::Request => "request",
            Channel::Reply => "reply",
        })
    }
}

/// The kind of a message that carries a handler call (what a returned packet returns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataKind {
    Short,
    Medium,
    Long,
    Get,
    GetReply,
}

/// What a packet is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// Arguments only.
    Short,
    /// Arguments and a payload of up to [`MAX_MEDIUM`] bytes, possibly in fragments.
    Medium,
    /// Arguments and a payload of up to [`MAX_LONG`] bytes that lands at `segment_offset`.
    Long,
    /// A request for `total_len` bytes at `segment_offset` of the destination's segment,
    /// to land at `reply_offset` of the requester's.
    Get,
    /// The data of a get, landing at `segment_offset` of the requester's segment.
    GetReply,
    /// An explicit acknowledgement (carries no message).
    Ack,
    /// The destination's receive queue was full: the packet `seq` was dropped, send again.
    Nack,
    /// A message that could not be delivered, sent back to its sender.
    Returned { reason: ReturnReason, of: DataKind },
}

impl DataKind {
    fn code(self) -> u8 {
        match self {
            DataKind::Short => 1,
            DataKind::Medium => 2,
            DataKind::Long => 3,
            DataKind::Get => 4,
            DataKind::GetReply => 5,
        }
    }

    fn from_code(code: u8) -> Option<DataKind> {
        Some(match code {
            1 => DataKind::Short,
            2 => DataKind::Medium,
            3 => DataKind::Long,
            4 => DataKind::Get,
            5 => DataKind::GetReply,
            _ => return None,
        })
    }

    fn shape(self) -> Shape {
        match self {
            DataKind::Short => Shape::Bare,
            DataKind::Medium => Shape::Medium,
            DataKind::Long | DataKind::GetReply => Shape::Bulk,
            DataKind::Get => Shape::GetRequest,
        }
    }
}

impl From<DataKind> for PacketKind {
    fn from(kind: DataKind) -> PacketKind {
        match kind {
            DataKind::Short => PacketKind::Short,
            DataKind::Medium => PacketKind::Medium,
            DataKind::Long => PacketKind::Long,
            DataKind::Get => PacketKind::Get,
            DataKind::GetReply => PacketKind::GetReply,
        }
    }
}

impl PacketKind {
    /// The kind's name in error messages.
    pub fn name(self) -> &'static str {
        match self {
            PacketKind::Short => "short",
            PacketKind::Medium => "medium",
            PacketKind::Long => "long",
            PacketKind::Get => "get",
            PacketKind::GetReply => "get reply",
            PacketKind::Ack => "ack",
            PacketKind::Nack => "nack",
            PacketKind::Returned { .. } => "returned",
        }
    }

    /// The kind and reason bytes.
    fn to_wire(self) -> (u8, u8) {
        match self {
            PacketKind::Short => (1, 0),
            PacketKind::Medium => (2, 0),
            PacketKind::Long => (3, 0),
            PacketKind::Get => (4, 0),
            PacketKind::GetReply => (5, 0),
            PacketKind::Ack => (6, 0),
            PacketKind::Nack => (7, 0),
            PacketKind::Returned { reason, of } => (8 | (of.code() << 4), reason as u8),
        }
    }

    fn from_wire(kind: u8, reason: u8) -> Result<PacketKind, WireError> {
        let of = kind >> 4;
        let plain = match kind & 0x0f {
            1 => PacketKind::Short,
            2 => PacketKind::Medium,
            3 => PacketKind::Long,
            4 => PacketKind::Get,
            5 => PacketKind::GetReply,
            6 => PacketKind::Ack,
            7 => PacketKind::Nack,
            8 => {
                let of = DataKind::from_code(of).ok_or(WireError::BadReturnedKind(of))?;
                // "Outcome unknown" is the sender's own judgement, never a peer's word.
                let reason = ReturnReason::from_u8(reason)
                    .filter(|r| *r != ReturnReason::OutcomeUnknown)
                    .ok_or(WireError::BadReason(reason))?;
                return Ok(PacketKind::Returned { reason, of });
            }
            _ => return Err(WireError::BadKind(kind)),
        };
        if of != 0 {
            return Err(WireError::BadKind(kind));
        }
        if reason != 0 {
            return Err(WireError::UnexpectedReason(reason));
        }
        Ok(plain)
    }

    fn shape(self) -> Shape {
        match self {
            PacketKind::Short | PacketKind::Nack => Shape::Bare,
            PacketKind::Ack => Shape::Sack,
            PacketKind::Medium => Shape::Medium,
            PacketKind::Long | PacketKind::GetReply => Shape::Bulk,
            PacketKind::Get => Shape::GetRequest,
            PacketKind::Returned { of, .. } => of.shape(),
        }
    }
}

/// Which of the length and offset fields a kind uses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// No payload, no lengths, no offsets (short, ack, nack).
    Bare,
    /// A payload in fragments, no segment offset.
    Medium,
    /// A payload in fragments landing at the segment offset (long, get reply).
    Bulk,
    /// No payload; a length to read at the segment offset and land at the reply offset.
    GetRequest,
    /// At most [`SACK_BYTES`] of selective-ack bitmap as payload, its length the total
    /// (ack).
    Sack,
}

/// Bytes of an ack's selective-ack bitmap at most: bit `i` (of byte `i / 8`, least
/// significant first) says that sequence number `ack + 1 + i` arrived.
pub const SACK_BYTES: usize = 32;

/// Up to [`MAX_ARGS`] arguments by value; dereferences to the slice of them.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Args {
    /// Words past `len` are always zero, so that the derived equality is the slices'.
    words: [u32; MAX_ARGS],
    len: u8,
}

impl Args {
    pub const EMPTY: Args = Args {
        words: [0; MAX_ARGS],
        len: 0,
    };

    pub fn new(args: &[u32]) -> Result<Args, WireError> {
        if args.len() > MAX_ARGS {
            return Err(WireError::TooManyArgs(args.len()));
        }
        let mut out = Args::EMPTY;
        for (slot, &arg) in out.words.iter_mut().zip(args) {
            *slot = arg;
        }
        out.len = args.len() as u8;
        Ok(out)
    }

    pub fn as_slice(&self) -> &[u32] {
        self.words
            .get(..usize::from(self.len))
            .unwrap_or(&self.words)
    }
}

impl std::ops::Deref for Args {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        self.as_slice()
    }
}

impl fmt::Debug for Args {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

/// A packet's header: everything but the payload, whose length is the payload's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub kind: PacketKind,
    pub channel: Channel,
    /// The job (run) the packet belongs to; packets of another job are rejected.
    pub job: u64,
    pub src: EndpointId,
    pub dst: EndpointId,
    /// The destination's tag as the sender's translation holds it.
    pub tag: u64,
    pub handler: u8,
    pub args: Args,
    pub seq: u32,
    /// The piggy-backed acknowledgement number, if valid.
    pub ack: Option<u32>,
    /// Long, get reply: where the whole message lands in the destination's segment.
    /// Get: where the requested bytes are read in the destination's segment.
    pub segment_offset: u64,
    /// Get: where the requested bytes land in the requester's segment.
    pub reply_offset: u64,
    /// Where this packet's payload lies within the whole message.
    pub frag_offset: u32,
    /// Medium, long, get reply: bytes in the whole message. Get: bytes requested.
    pub total_len: u32,
    /// The sender's clock when it sent this packet (microseconds, wrapping).
    pub timestamp: u32,
    /// The timestamp of the packet whose arrival the acknowledgement answers, if valid.
    pub echo: Option<u32>,
}

impl Header {
    /// A header of `kind` on `channel` with every other field zero or empty.
    pub fn new(kind: PacketKind, channel: Channel) -> Header {
        Header {
            kind,
            channel,
            job: 0,
            src: EndpointId::default(),
            dst: EndpointId::default(),
            tag: 0,
            handler: 0,
            args: Args::EMPTY,
            seq: 0,
            ack: None,
            segment_offset: 0,
            reply_offset: 0,
            frag_offset: 0,
            total_len: 0,
            timestamp: 0,
            echo: None,
        }
    }

    /// Bytes of this header on the wire (fixed part and arguments).
    pub fn wire_len(&self) -> usize {
        header_len(self.args.len())
    }

    /// Bytes of the datagram that carries this header and `payload_len` bytes.
    pub fn datagram_len(&self, payload_len: usize) -> usize {
        self.wire_len().saturating_add(payload_len)
    }
}

fn header_len(nargs: usize) -> usize {
    FIXED_HEADER_LEN + 4 * nargs
}

/// Checks the rules a header and payload length must meet to be sent or accepted
/// (those that the types of [`Header`] do not already enforce):
///
/// - the payload fits in a datagram ([`MAX_DATAGRAM_PAYLOAD`]);
/// - get travels on the request channel, get reply on the reply channel;
/// - ack and nack carry no handler and no arguments; an ack carries an ack number;
/// - an ack carries at most [`SACK_BYTES`] of payload (its selective-ack bitmap), whose
///   length is its total length, and no offsets;
/// - short and nack carry no payload, lengths or offsets; a get carries no payload
///   nor fragment offset; only long and get reply have a segment offset to land at,
///   and only get a reply offset;
/// - the total length is at most [`MAX_MEDIUM`] (medium) or [`MAX_LONG`] (long, get,
///   get reply); the fragment lies within it; a fragment of a non-empty message is not
///   empty (except in a returned packet, which may leave the payload out);
/// - offset plus length does not overflow.
///
/// A returned packet follows the rules of the kind it returns, on either channel.
pub fn validate(h: &Header, payload_len: usize) -> Result<(), WireError> {
    if payload_len > MAX_DATAGRAM_PAYLOAD {
        return Err(WireError::PayloadTooLarge { len: payload_len });
    }
    check_kind(h)?;
    let shape = h.kind.shape();
    check_fields(h, shape, payload_len)?;
    check_lengths(h, shape, payload_len)
}

/// The refusal of `field` in a packet of `h`'s kind.
fn refuse(h: &Header, field: &'static str) -> Result<(), WireError> {
    Err(WireError::FieldNotAllowed {
        kind: h.kind.name(),
        field,
    })
}

/// [`validate`]'s rules of the kind: ack and nack carry no handler nor arguments, an ack
/// an ack number; get and get reply travel on their channels.
fn check_kind(h: &Header) -> Result<(), WireError> {
    let wrong_channel = |expected| {
        Err(WireError::WrongChannel {
            kind: h.kind.name(),
            expected,
        })
    };
    match h.kind {
        PacketKind::Ack | PacketKind::Nack => {
            if h.handler != 0 {
                return refuse(h, "a handler");
            }
            if !h.args.is_empty() {
                return refuse(h, "arguments");
            }
        }
        PacketKind::Get if h.channel != Channel::Request => return wrong_channel(Channel::Request),
        PacketKind::GetReply if h.channel != Channel::Reply => return wrong_channel(Channel::Reply),
        _ => {}
    }
    if h.kind == PacketKind::Ack && h.ack.is_none() {
        return Err(WireError::MissingAck);
    }
    Ok(())
}

/// [`validate`]'s rules of the shape: which of payload, fragment offset, segment offset
/// and reply offset a packet may carry, and an ack's bitmap length.
fn check_fields(h: &Header, shape: Shape, payload_len: usize) -> Result<(), WireError> {
    let no_payload = matches!(shape, Shape::Bare | Shape::GetRequest);
    if no_payload && payload_len != 0 {
        return refuse(h, "a payload");
    }
    if (no_payload || shape == Shape::Sack) && h.frag_offset != 0 {
        return refuse(h, "a fragment offset");
    }
    if shape == Shape::Sack && h.total_len as usize != payload_len {
        return Err(WireError::LengthMismatch {
            declared: h.total_len,
            actual: payload_len,
        });
    }
    if matches!(shape, Shape::Bare | Shape::Medium | Shape::Sack) && h.segment_offset != 0 {
        return refuse(h, "a segment offset");
    }
    if shape != Shape::GetRequest && h.reply_offset != 0 {
        return refuse(h, "a reply offset");
    }
    Ok(())
}

/// [`validate`]'s rules of lengths: the total within its kind's limit, the fragment
/// within the total and not empty, offsets plus length without overflow.
fn check_lengths(h: &Header, shape: Shape, payload_len: usize) -> Result<(), WireError> {
    let max_total = match shape {
        Shape::Bare => 0,
        Shape::Sack => SACK_BYTES,
        Shape::Medium => MAX_MEDIUM,
        Shape::Bulk | Shape::GetRequest => MAX_LONG,
    };
    if h.total_len as usize > max_total {
        if max_total == 0 {
            return refuse(h, "a message length");
        }
        return Err(WireError::TotalTooLarge {
            kind: h.kind.name(),
            total: h.total_len,
            max: max_total,
        });
    }
    if u64::from(h.frag_offset) + payload_len as u64 > u64::from(h.total_len) {
        return Err(WireError::FragmentOutOfBounds {
            offset: h.frag_offset,
            len: payload_len,
            total: h.total_len,
        });
    }
    let returned = matches!(h.kind, PacketKind::Returned { .. });
    if matches!(shape, Shape::Medium | Shape::Bulk)
        && !returned
        && payload_len == 0
        && h.total_len != 0
    {
        return Err(WireError::EmptyFragment {
            offset: h.frag_offset,
            total: h.total_len,
        });
    }
    let overflow = |offset: u64| {
        offset
            .checked_add(u64::from(h.total_len))
            .map(|_| ())
            .ok_or(WireError::OffsetOverflow {
                offset,
                len: h.total_len,
            })
    };
    if matches!(shape, Shape::Bulk | Shape::GetRequest) {
        overflow(h.segment_offset)?;
    }
    if shape == Shape::GetRequest {
        overflow(h.reply_offset)?;
    }
    Ok(())
}

/// Encodes a packet into the front of `buf`; returns the datagram's length.
pub fn encode_into(header: &Header, payload: &[u8], buf: &mut [u8]) -> Result<usize, WireError> {
    validate(header, payload.len())?;
    let need = header.datagram_len(payload.len());
    let len = buf.len();
    let out = buf
        .get_mut(..need)
        .ok_or(WireError::BufferTooSmall { len, need })?;
    write_header(header, payload.len(), out)?;
    put(out, header.wire_len(), payload)?;
    let crc = checksum(out);
    put(out, offsets::CRC, &crc.to_le_bytes())?;
    Ok(need)
}

/// Encodes only the header of a packet into the front of `buf`, its CRC (under
/// [`Integrity::Crc`]) covering `payload` too, which the caller sends after it from where
/// it lies (scatter-gather: the payload is read once, by the checksum, and never copied);
/// returns the header's length.
pub fn encode_header_into(
    header: &Header,
    payload: &[u8],
    buf: &mut [u8],
    integrity: Integrity,
) -> Result<usize, WireError> {
    validate(header, payload.len())?;
    let need = header.wire_len();
    let len = buf.len();
    let out = buf
        .get_mut(..need)
        .ok_or(WireError::BufferTooSmall { len, need })?;
    write_header(header, payload.len(), out)?;
    if integrity == Integrity::Crc {
        let crc = crc_append(checksum(out), payload);
        put(out, offsets::CRC, &crc.to_le_bytes())?;
    }
    Ok(need)
}

/// Writes the header of a packet carrying `payload_len` bytes into `out` (exactly its
/// length), with the CRC field zero. The caller validated it.
fn write_header(header: &Header, payload_len: usize, out: &mut [u8]) -> Result<(), WireError> {
    use offsets as at;
    let (kind, reason) = header.kind.to_wire();
    let mut flags = 0;
    if header.channel == Channel::Reply {
        flags |= FLAG_REPLY;
    }
    if header.ack.is_some() {
        flags |= FLAG_ACK;
    }
    if header.echo.is_some() {
        flags |= FLAG_ECHO;
    }
    // `validate` bounded the payload, so its length fits in 32 bits.
    let payload_len = payload_len as u32;
    put(out, at::MAGIC, &MAGIC)?;
    put(out, at::VERSION, &[VERSION])?;
    put(out, at::KIND, &[kind])?;
    put(out, at::FLAGS, &[flags])?;
    put(out, at::HANDLER, &[header.handler])?;
    put(out, at::NARGS, &[header.args.len() as u8])?;
    put(out, at::REASON, &[reason])?;
    put(out, at::CRC, &[0; 4])?;
    put(out, at::SEQ, &header.seq.to_le_bytes())?;
    put(out, at::ACK, &header.ack.unwrap_or(0).to_le_bytes())?;
    put(out, at::PAYLOAD_LEN, &payload_len.to_le_bytes())?;
    put(out, at::FRAG_OFFSET, &header.frag_offset.to_le_bytes())?;
    put(out, at::TOTAL_LEN, &header.total_len.to_le_bytes())?;
    put(out, at::JOB, &header.job.to_le_bytes())?;
    put_endpoint(out, at::SRC, header.src)?;
    put_endpoint(out, at::DST, header.dst)?;
    put(out, at::TAG, &header.tag.to_le_bytes())?;
    put(
        out,
        at::SEGMENT_OFFSET,
        &header.segment_offset.to_le_bytes(),
    )?;
    put(out, at::REPLY_OFFSET, &header.reply_offset.to_le_bytes())?;
    put(out, at::TIMESTAMP, &header.timestamp.to_le_bytes())?;
    put(out, at::ECHO, &header.echo.unwrap_or(0).to_le_bytes())?;
    for (i, arg) in header.args.iter().enumerate() {
        put(out, at::ARGS + 4 * i, &arg.to_le_bytes())?;
    }
    Ok(())
}

/// Appends the datagram of a packet to `out` (left as it was on error).
pub fn encode(header: &Header, payload: &[u8], out: &mut Vec<u8>) -> Result<(), WireError> {
    validate(header, payload.len())?;
    let need = header.datagram_len(payload.len());
    let start = out.len();
    out.resize(start + need, 0);
    let written = match out.get_mut(start..) {
        Some(buf) => encode_into(header, payload, buf),
        None => Err(WireError::BufferTooSmall { len: 0, need }),
    };
    if written.is_err() {
        out.truncate(start);
    }
    written.map(|_| ())
}

/// Decodes and validates a datagram of one packet, of job `expected_job`: its header and
/// its payload, which borrows from `datagram`. A datagram of several packets is refused
/// here (its first has the "more" flag): [`decode_next`] takes them one at a time.
/// Allocates nothing; never panics.
pub fn decode(datagram: &[u8], expected_job: u64) -> Result<(Header, &[u8]), WireError> {
    match decode_next(datagram, expected_job, Integrity::Crc)? {
        (header, payload, []) => Ok((header, payload)),
        (_, _, rest) => Err(WireError::LengthMismatch {
            declared: (datagram.len() - rest.len()) as u32,
            actual: datagram.len(),
        }),
    }
}

/// Decodes and validates the first packet of a datagram (or of what is left of one) of
/// job `expected_job`: its header, its payload, and the bytes of the packets that follow
/// it (empty unless it has the "more" flag, non-empty if it has). Its CRC is checked
/// under [`Integrity::Crc`] only. Allocates nothing; never panics.
pub fn decode_next(
    datagram: &[u8],
    expected_job: u64,
    integrity: Integrity,
) -> Result<(Header, &[u8], &[u8]), WireError> {
    let Frame {
        nargs,
        header_len,
        payload_len,
        more,
    } = frame(datagram)?;
    let (d, rest) = datagram.split_at(header_len + payload_len);
    let payload = &d[header_len..];

    if integrity == Integrity::Crc {
        let stored = get_u32(d, offsets::CRC)?;
        let computed = checksum(d);
        if stored != computed {
            return Err(WireError::CrcMismatch { stored, computed });
        }
    }
    if more && rest.is_empty() {
        return Err(WireError::NothingFollows);
    }
    let header = read_header(d, nargs, expected_job)?;
    validate(&header, payload.len())?;
    Ok((header, payload, rest))
}

/// Where a packet's parts lie in its datagram: what the CRC's extent and the payload's
/// position depend on.
struct Frame {
    nargs: usize,
    header_len: usize,
    payload_len: usize,
    /// Another packet follows this one in the datagram.
    more: bool,
}

/// Reads and checks the framing of the first packet of `datagram` (magic, version,
/// argument count, lengths), before its CRC is checked.
#[inline]
fn frame(datagram: &[u8]) -> Result<Frame, WireError> {
    use offsets as at;
    let len = datagram.len();
    if len < FIXED_HEADER_LEN {
        return Err(WireError::Truncated {
            len,
            need: FIXED_HEADER_LEN,
        });
    }
    let magic = get::<2>(datagram, at::MAGIC)?;
    if magic != MAGIC {
        return Err(WireError::BadMagic(magic));
    }
    let version = get_u8(datagram, at::VERSION)?;
    if version != VERSION {
        return Err(WireError::BadVersion(version));
    }
    let nargs = usize::from(get_u8(datagram, at::NARGS)?);
    if nargs > MAX_ARGS {
        return Err(WireError::TooManyArgs(nargs));
    }
    let header_len = header_len(nargs);
    let after_header = datagram.get(header_len..).ok_or(WireError::Truncated {
        len,
        need: header_len,
    })?;
    let declared = get_u32(datagram, at::PAYLOAD_LEN)?;
    let more = get_u8(datagram, at::FLAGS)? & FLAG_MORE != 0;
    // A packet followed by another ends where its length says; the last fills the rest.
    let payload_len = if more {
        (declared as usize).min(after_header.len())
    } else {
        after_header.len()
    };
    if declared as usize != payload_len {
        return Err(WireError::LengthMismatch {
            declared,
            actual: payload_len,
        });
    }
    if payload_len > MAX_DATAGRAM_PAYLOAD {
        return Err(WireError::PayloadTooLarge { len: payload_len });
    }
    Ok(Frame {
        nargs,
        header_len,
        payload_len,
        more,
    })
}

/// A field present only with its flag: `value` if `set`, else it must be 0 (`stray`
/// says what it is otherwise).
#[inline]
fn flagged(
    value: u32,
    set: bool,
    stray: fn(u32) -> WireError,
) -> Result<Option<u32>, WireError> {
    match (set, value) {
        (true, v) => Ok(Some(v)),
        (false, 0) => Ok(None),
        (false, v) => Err(stray(v)),
    }
}

/// Reads the header fields of packet `d` (of `nargs` arguments, its CRC checked) of job
/// `expected_job`, checking the job, kind and flags.
#[inline]
fn read_header(d: &[u8], nargs: usize, expected_job: u64) -> Result<Header, WireError> {
    use offsets as at;
    let job = get_u64(d, at::JOB)?;
    if job != expected_job {
        return Err(WireError::WrongJob {
            expected: expected_job,
            found: job,
        });
    }
    let kind = PacketKind::from_wire(get_u8(d, at::KIND)?, get_u8(d, at::REASON)?)?;
    let flags = get_u8(d, at::FLAGS)?;
    if flags & !KNOWN_FLAGS != 0 {
        return Err(WireError::UnknownFlags(flags & !KNOWN_FLAGS));
    }
    let ack = flagged(get_u32(d, at::ACK)?, flags & FLAG_ACK != 0, WireError::AckWithoutFlag)?;
    let echo = flagged(
        get_u32(d, at::ECHO)?,
        flags & FLAG_ECHO != 0,
        WireError::EchoWithoutFlag,
    )?;
    let mut args = Args::EMPTY;
    for (i, slot) in args.words.iter_mut().take(nargs).enumerate() {
        *slot = get_u32(d, at::ARGS + 4 * i)?;
    }
    args.len = nargs as u8;
    Ok(Header {
        kind,
        channel: if flags & FLAG_REPLY != 0 {
            Channel::Reply
        } else {
            Channel::Request
        },
        job,
        src: get_endpoint(d, at::SRC)?,
        dst: get_endpoint(d, at::DST)?,
        tag: get_u64(d, at::TAG)?,
        handler: get_u8(d, at::HANDLER)?,
        args,
        seq: get_u32(d, at::SEQ)?,
        ack,
        segment_offset: get_u64(d, at::SEGMENT_OFFSET)?,
        reply_offset: get_u64(d, at::REPLY_OFFSET)?,
        frag_offset: get_u32(d, at::FRAG_OFFSET)?,
        total_len: get_u32(d, at::TOTAL_LEN)?,
        timestamp: get_u32(d, at::TIMESTAMP)?,
        echo,
    })
}

/// Gives the whole packet `packet` (header and payload, as encoded) the "more" flag: another
/// packet will follow it in its datagram. Its CRC is made anew under [`Integrity::Crc`].
pub fn mark_followed(packet: &mut [u8], integrity: Integrity) -> Result<(), WireError> {
    let len = packet.len();
    let nargs = usize::from(get_u8(packet, offsets::NARGS)?);
    let declared = get_u32(packet, offsets::PAYLOAD_LEN)? as usize;
    if len < FIXED_HEADER_LEN || header_len(nargs).saturating_add(declared) != len {
        return Err(WireError::NotMarkable { len });
    }
    let flags = get_u8(packet, offsets::FLAGS)? | FLAG_MORE;
    put(packet, offsets::FLAGS, &[flags])?;
    if integrity == Integrity::Sealed {
        return Ok(());
    }
    let crc = checksum(packet);
    put(packet, offsets::CRC, &crc.to_le_bytes())
}

/// The CRC32C of a datagram with its CRC field taken as zero.
fn checksum(d: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if (16..=SHORT_DATAGRAM).contains(&d.len()) && std::is_x86_feature_detected!("sse4.2") {
        // SAFETY: the CPU has SSE 4.2, checked just above.
        return unsafe { short_checksum_sse42(d) };
    }
    portable_checksum(d)
}

/// [`checksum`] by the crc32c crate, fastest for long datagrams.
fn portable_checksum(d: &[u8]) -> u32 {
    let crc_end = offsets::CRC + 4;
    let head = d.get(..offsets::CRC).unwrap_or(d);
    let tail = d.get(crc_end..).unwrap_or(&[]);
    let crc = crc32c::crc32c(head);
    let crc = crc32c::crc32c_append(crc, &[0; 4]);
    crc_append(crc, tail)
}

/// Data from this length on is checksummed by crc-fast, below it by the crc32c crate.
const LONG_DATA: usize = 1024;

/// CRC32C `crc` (of some bytes) continued over `data`. Long data goes through crc-fast's
/// carry-less-multiply kernels (AVX-512 where the CPU has them), about twice the crc32c
/// crate's speed on a 64 KiB payload, where the checksum costs as much as a copy; short
/// data through the crc32c crate, whose setup is cheaper.
fn crc_append(crc: u32, data: &[u8]) -> u32 {
    if data.len() < LONG_DATA {
        return crc32c::crc32c_append(crc, data);
    }
    use crc_fast::{CrcAlgorithm, Digest};
    // The running state of the reflected CRC is the finished value inverted.
    let mut digest = Digest::new_with_init_state(CrcAlgorithm::Crc32Iscsi, u64::from(!crc));
    digest.update(data);
    digest.finalize() as u32
}

/// Datagrams up to this size are checksummed a word at a time in one pass: the crate's
/// three calls, each set up for long buffers, cost a short message five times as much,
/// and crc-fast is no better there (measured on AMD EPYC, best of 5 x 2 million: 16, 64
/// and 128 bytes take 60, 75 and 105 ns through crc-fast, with the CRC field zeroed on
/// the stack or as three updates, against 8, 15 and 30 ns here; the two meet at 512).
const SHORT_DATAGRAM: usize = 512;

/// [`checksum`] of a short datagram (of two words at least, so that the CRC field is
/// whole in the second), eight bytes per CRC32 instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.2")]
fn short_checksum_sse42(d: &[u8]) -> u32 {
    use std::arch::x86_64::{_mm_crc32_u64, _mm_crc32_u8};
    // The CRC field is the low half of the second word (little-endian).
    const _: () = assert!(offsets::CRC == 8);
    let mut crc = u64::from(u32::MAX);
    let mut words = d.chunks_exact(8);
    for (i, w) in words.by_ref().enumerate() {
        let mut w = u64::from_le_bytes(w.try_into().unwrap_or_default());
        if i == 1 {
            w &= !u64::from(u32::MAX);
        }
        crc = _mm_crc32_u64(crc, w);
    }
    let mut crc = crc as u32;
    for &b in words.remainder() {
        crc = _mm_crc32_u8(crc, b);
    }
    !crc
}

fn get<const N: usize>(d: &[u8], at: usize) -> Result<[u8; N], WireError> {
    d.get(at..)
        .and_then(<[u8]>::first_chunk::<N>)
        .copied()
        .ok_or(WireError::Truncated {
            len: d.len(),
            need: at.saturating_add(N),
        })
}

fn get_u8(d: &[u8], at: usize) -> Result<u8, WireError> {
    get::<1>(d, at).map(|[b]| b)
}

fn get_u32(d: &[u8], at: usize) -> Result<u32, WireError> {
    get(d, at).map(u32::from_le_bytes)
}

fn get_u64(d: &[u8], at: usize) -> Result<u64, WireError> {
    get(d, at).map(u64::from_le_bytes)
}

fn get_endpoint(d: &[u8], at: usize) -> Result<EndpointId, WireError> {
    Ok(EndpointId {
        pid: get_u32(d, at)?,
        fd: get_u32(d, at + 4)?,
        nonce: get_u64(d, at + 8)?,
    })
}

fn put(out: &mut [u8], at: usize, bytes: &[u8]) -> Result<(), WireError> {
    let len = out.len();
    let need = at.saturating_add(bytes.len());
    out.get_mut(at..need)
        .ok_or(WireError::BufferTooSmall { len, need })?
        .copy_from_slice(bytes);
    Ok(())
}

fn put_endpoint(out: &mut [u8], at: usize, id: EndpointId) -> Result<(), WireError> {
    put(out, at, &id.pid.to_le_bytes())?;
    put(out, at + 4, &id.fd.to_le_bytes())?;
    put(out, at + 8, &id.nonce.to_le_bytes())
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
#[cfg(test)]
#[path = "wire_bundle_tests.rs"]
mod bundle_tests;
