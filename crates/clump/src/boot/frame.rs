//! Frames of the bootstrap protocol between a process and the `clump run` launcher.
//!
//! A frame is a little-endian `u32` body length followed by the body, whose first byte
//! is the message kind. A process sends `Hello` first and gets `Welcome` back; each
//! collective is an `Enter` answered by a `Done` carrying the same sequence number.
//! A second connection of a process, opened with `Watch`, carries liveness: the process
//! says `Beat` while it polls the network, asks `Ask` about a silent peer and is answered
//! `Status`; the launcher sends `Died` when a rank's process has exited. A process says
//! `Owes` when it must make a call before it exits (`MPI_Finalize` after `MPI_Init`) and
//! `Owes` with no call once it made it: an exit in between is a failure of the job.
//! Pure code: no I/O, so both ends and the tests share it. Every length is checked
//! against the limits below before anything is allocated, so a bad peer gets an error,
//! never a panic or a huge allocation.

use crate::config::MAX_JOB_SIZE;

/// First field of `Hello`: tells a clump peer from anything else that might connect.
pub const MAGIC: u32 = u32::from_le_bytes(*b"CLMP");
/// Bumped whenever the frame layout changes.
pub const VERSION: u16 = 2;
/// Largest contribution one rank may make to an allgather.
pub const MAX_CONTRIBUTION: usize = 1 << 20;
/// Largest sum of all contributions to one allgather.
pub const MAX_GATHER_TOTAL: usize = 64 << 20;
/// Longest abort reason carried (longer ones are cut by the encoder).
pub const MAX_REASON: usize = 4096;
/// Longest name of a call a process owes (`Owes`).
pub const MAX_CALL: usize = 64;
/// Largest frame body a process sends (an `Enter` with a full contribution).
pub const MAX_REQUEST_BODY: usize = 16 + MAX_CONTRIBUTION;
/// Largest frame body the launcher sends (a `Done` with every contribution).
pub const MAX_REPLY_BODY: usize = 16 + MAX_GATHER_TOTAL + 4 * MAX_JOB_SIZE as usize;

/// Which collective an `Enter` / `Done` belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Allgather = 1,
    Barrier = 2,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::Allgather => "allgather",
            Op::Barrier => "barrier",
        }
    }
}

/// One message of the bootstrap protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// Process -> launcher, first frame: who I am.
    Hello { rank: u32, job_id: u64, pid: u32 },
    /// Launcher -> process: accepted; the job has `size` ranks.
    Welcome { size: u32 },
    /// Process -> launcher: joins collective number `seq` (numbered from 1).
    Enter { seq: u32, op: Op, data: Vec<u8> },
    /// Launcher -> process: collective `seq` is complete; `parts` indexed by rank (empty for a barrier).
    Done {
        seq: u32,
        op: Op,
        parts: Vec<Vec<u8>>,
    },
    /// Process -> launcher: end the whole job.
    Abort { status: i32, reason: String },
    /// Launcher -> process: the job is over (or this connection was refused).
    Aborted { status: i32, reason: String },
    /// Process -> launcher, first frame of a liveness connection.
    Watch { rank: u32, job_id: u64 },
    /// Process -> launcher: it polls the network.
    Beat,
    /// Process -> launcher: is the process `pid` alive, and did it beat within `within_ms`?
    Ask { pid: u32, within_ms: u32 },
    /// Launcher -> process: the answer to `Ask`.
    Status { pid: u32, state: PeerState },
    /// Launcher -> process: the rank whose process was `pid` has exited.
    Died { pid: u32 },
    /// Process -> launcher: it must call `call` before it exits (empty: it owes nothing).
    Owes { call: String },
}

/// What the launcher knows of a process of its job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerState {
    /// Its process has exited.
    Gone = 0,
    /// It lives and beat recently: it polls (a silence is the network's).
    Polling = 1,
    /// It lives and did not beat recently: stopped, or computing without polling.
    Quiet = 2,
    /// Not a process of this job that the launcher knows.
    Unknown = 3,
}

const K_HELLO: u8 = 1;
const K_WELCOME: u8 = 2;
const K_ENTER: u8 = 3;
const K_DONE: u8 = 4;
const K_ABORT: u8 = 5;
const K_ABORTED: u8 = 6;
const K_WATCH: u8 = 7;
const K_BEAT: u8 = 8;
const K_ASK: u8 = 9;
const K_STATUS: u8 = 10;
const K_DIED: u8 = 11;
const K_OWES: u8 = 12;

/// Why bytes from the peer are not a valid frame.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("frame of {len} bytes exceeds the limit of {max} bytes")]
    TooLong { len: usize, max: usize },
    #[error("empty frame")]
    Empty,
    #[error("unknown message kind {0}")]
    UnknownKind(u8),
    #[error("{0} message is truncated")]
    Truncated(&'static str),
    #[error("{extra} unexpected bytes after a {kind} message")]
    Trailing { kind: &'static str, extra: usize },
    #[error("peer is not a clump process (magic {0:#010x})")]
    BadMagic(u32),
    #[error("peer speaks bootstrap protocol version {0}, this is version {VERSION}")]
    Version(u16),
    #[error("{0}")]
    Invalid(String),
}

impl Msg {
    /// The message's name, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Msg::Hello { .. } => "hello",
            Msg::Welcome { .. } => "welcome",
            Msg::Enter { .. } => "enter",
            Msg::Done { .. } => "done",
            Msg::Abort { .. } => "abort",
            Msg::Aborted { .. } => "aborted",
            Msg::Watch { .. } => "watch",
            Msg::Beat => "beat",
            Msg::Ask { .. } => "ask",
            Msg::Status { .. } => "status",
            Msg::Died { .. } => "died",
            Msg::Owes { .. } => "owes",
        }
    }

    /// The whole frame: length prefix and body.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = vec![0u8; 4];
        match self {
            Msg::Hello { rank, job_id, pid } => {
                b.push(K_HELLO);
                b.extend_from_slice(&MAGIC.to_le_bytes());
                b.extend_from_slice(&VERSION.to_le_bytes());
                b.extend_from_slice(&rank.to_le_bytes());
                b.extend_from_slice(&job_id.to_le_bytes());
                b.extend_from_slice(&pid.to_le_bytes());
            }
            Msg::Welcome { size } => {
                b.push(K_WELCOME);
                b.extend_from_slice(&size.to_le_bytes());
            }
            Msg::Enter { seq, op, data } => {
                b.push(K_ENTER);
                b.extend_from_slice(&seq.to_le_bytes());
                b.push(*op as u8);
                b.extend_from_slice(data);
            }
            Msg::Done { seq, op, parts } => {
                b.push(K_DONE);
                b.extend_from_slice(&seq.to_le_bytes());
                b.push(*op as u8);
                b.extend_from_slice(&(parts.len() as u32).to_le_bytes());
                for p in parts {
                    b.extend_from_slice(&(p.len() as u32).to_le_bytes());
                    b.extend_from_slice(p);
                }
            }
            Msg::Abort { status, reason } | Msg::Aborted { status, reason } => {
                b.push(if matches!(self, Msg::Abort { .. }) {
                    K_ABORT
                } else {
                    K_ABORTED
                });
                b.extend_from_slice(&status.to_le_bytes());
                b.extend_from_slice(cut(reason, MAX_REASON).as_bytes());
            }
            Msg::Watch { rank, job_id } => {
                b.push(K_WATCH);
                b.extend_from_slice(&MAGIC.to_le_bytes());
                b.extend_from_slice(&rank.to_le_bytes());
                b.extend_from_slice(&job_id.to_le_bytes());
            }
            Msg::Beat => b.push(K_BEAT),
            Msg::Ask { pid, within_ms } => {
                b.push(K_ASK);
                b.extend_from_slice(&pid.to_le_bytes());
                b.extend_from_slice(&within_ms.to_le_bytes());
            }
            Msg::Status { pid, state } => {
                b.push(K_STATUS);
                b.extend_from_slice(&pid.to_le_bytes());
                b.push(*state as u8);
            }
            Msg::Died { pid } => {
                b.push(K_DIED);
                b.extend_from_slice(&pid.to_le_bytes());
            }
            Msg::Owes { call } => {
                b.push(K_OWES);
                b.extend_from_slice(cut(call, MAX_CALL).as_bytes());
            }
        }
        let len = (b.len() - 4) as u32;
        b[..4].copy_from_slice(&len.to_le_bytes());
        b
    }

    /// Decodes one frame body (without its length prefix).
    pub fn decode(body: &[u8]) -> Result<Msg, FrameError> {
        let (&kind, rest) = body.split_first().ok_or(FrameError::Empty)?;
        let mut r = Reader {
            buf: rest,
            what: kind_name(kind)?,
        };
        let msg = match kind {
            K_HELLO => hello(&mut r)?,
            K_WELCOME => Msg::Welcome { size: r.u32()? },
            K_ENTER => enter(&mut r)?,
            K_DONE => done(&mut r)?,
            K_ABORT | K_ABORTED => {
                let (status, reason) = abort(&mut r)?;
                if kind == K_ABORT {
                    Msg::Abort { status, reason }
                } else {
                    Msg::Aborted { status, reason }
                }
            }
            K_WATCH => {
                magic(&mut r)?;
                Msg::Watch {
                    rank: r.u32()?,
                    job_id: r.u64()?,
                }
            }
            K_BEAT => Msg::Beat,
            K_ASK => Msg::Ask {
                pid: r.u32()?,
                within_ms: r.u32()?,
            },
            K_STATUS => Msg::Status {
                pid: r.u32()?,
                state: peer_state(r.array::<1>()?[0])?,
            },
            K_DIED => Msg::Died { pid: r.u32()? },
            K_OWES => owes(&mut r)?,
            _ => unreachable!("kind_name accepted it"),
        };
        r.finish()?;
        Ok(msg)
    }
}

/// The launcher's magic number, which a hello and a watch start with.
fn magic(r: &mut Reader) -> Result<(), FrameError> {
    match r.u32()? {
        MAGIC => Ok(()),
        other => Err(FrameError::BadMagic(other)),
    }
}

/// A hello's body: the magic, this protocol's version, then who says hello.
fn hello(r: &mut Reader) -> Result<Msg, FrameError> {
    magic(r)?;
    let version = r.u16()?;
    if version != VERSION {
        return Err(FrameError::Version(version));
    }
    Ok(Msg::Hello {
        rank: r.u32()?,
        job_id: r.u64()?,
        pid: r.u32()?,
    })
}

/// A rank's contribution to a collective: bounded, and none for a barrier.
fn enter(r: &mut Reader) -> Result<Msg, FrameError> {
    let seq = r.u32()?;
    let op = r.op()?;
    let data = r.rest();
    if data.len() > MAX_CONTRIBUTION {
        return Err(invalid(format!(
            "contribution of {} bytes exceeds the limit of {MAX_CONTRIBUTION}",
            data.len()
        )));
    }
    if op == Op::Barrier && !data.is_empty() {
        return Err(invalid("barrier carries data".into()));
    }
    Ok(Msg::Enter {
        seq,
        op,
        data: data.to_vec(),
    })
}

/// A collective's result: at most one part per rank, each bounded; none for a barrier.
fn done(r: &mut Reader) -> Result<Msg, FrameError> {
    let seq = r.u32()?;
    let op = r.op()?;
    let count = r.u32()?;
    if count > MAX_JOB_SIZE || (op == Op::Barrier && count != 0) {
        return Err(invalid(format!("{} result with {count} parts", op.name())));
    }
    let mut parts = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let len = r.u32()? as usize;
        if len > MAX_CONTRIBUTION {
            return Err(invalid(format!("result part of {len} bytes")));
        }
        parts.push(r.bytes(len)?.to_vec());
    }
    Ok(Msg::Done { seq, op, parts })
}

/// An abort's status and its bounded reason.
fn abort(r: &mut Reader) -> Result<(i32, String), FrameError> {
    let status = r.i32()?;
    let reason = r.rest();
    if reason.len() > MAX_REASON {
        return Err(invalid(format!("abort reason of {} bytes", reason.len())));
    }
    Ok((status, String::from_utf8_lossy(reason).into_owned()))
}

/// The name of the call a process owes: bounded, and printable as it stands.
fn owes(r: &mut Reader) -> Result<Msg, FrameError> {
    let call = r.rest();
    if call.len() > MAX_CALL {
        return Err(invalid(format!("owed call name of {} bytes", call.len())));
    }
    let call = std::str::from_utf8(call)
        .ok()
        .filter(|c| c.chars().all(|ch| ch.is_ascii_graphic()))
        .ok_or_else(|| invalid("owed call name is not a plain name".into()))?;
    Ok(Msg::Owes {
        call: call.to_owned(),
    })
}

fn peer_state(s: u8) -> Result<PeerState, FrameError> {
    Ok(match s {
        0 => PeerState::Gone,
        1 => PeerState::Polling,
        2 => PeerState::Quiet,
        3 => PeerState::Unknown,
        s => return Err(invalid(format!("unknown peer state {s}"))),
    })
}

fn kind_name(kind: u8) -> Result<&'static str, FrameError> {
    Ok(match kind {
        K_HELLO => "hello",
        K_WELCOME => "welcome",
        K_ENTER => "enter",
        K_DONE => "done",
        K_ABORT => "abort",
        K_ABORTED => "aborted",
        K_WATCH => "watch",
        K_BEAT => "beat",
        K_ASK => "ask",
        K_STATUS => "status",
        K_DIED => "died",
        K_OWES => "owes",
        k => return Err(FrameError::UnknownKind(k)),
    })
}

fn invalid(why: String) -> FrameError {
    FrameError::Invalid(why)
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
fn cut(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Bounds-checked field reader over one frame body.
struct Reader<'a> {
    buf: &'a [u8],
    what: &'static str,
}

impl<'a> Reader<'a> {
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], FrameError> {
        if self.buf.len() < n {
            return Err(FrameError::Truncated(self.what));
        }
        let (head, tail) = self.buf.split_at(n);
        self.buf = tail;
        Ok(head)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], FrameError> {
        Ok(self.bytes(N)?.try_into().expect("length checked"))
    }
    fn u16(&mut self) -> Result<u16, FrameError> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    fn u32(&mut self) -> Result<u32, FrameError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn i32(&mut self) -> Result<i32, FrameError> {
        Ok(i32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, FrameError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn op(&mut self) -> Result<Op, FrameError> {
        match self.array::<1>()?[0] {
            1 => Ok(Op::Allgather),
            2 => Ok(Op::Barrier),
            o => Err(invalid(format!("unknown collective {o}"))),
        }
    }
    fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.buf)
    }
    fn finish(self) -> Result<(), FrameError> {
        match self.buf.len() {
            0 => Ok(()),
            extra => Err(FrameError::Trailing {
                kind: self.what,
                extra,
            }),
        }
    }
}

/// Reassembles frames from a byte stream that arrives in arbitrary pieces.
#[derive(Debug)]
pub struct FrameReader {
    buf: Vec<u8>,
    max_body: usize,
}

impl FrameReader {
    /// `max_body` bounds the frames accepted from this peer.
    pub fn new(max_body: usize) -> FrameReader {
        FrameReader {
            buf: Vec::new(),
            max_body,
        }
    }

    pub fn extend(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Bytes received and not yet taken as messages.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// True while part of a frame is buffered: end of stream now means a truncated frame.
    pub fn has_partial(&self) -> bool {
        !self.buf.is_empty()
    }

    /// The next complete message, if one is buffered. An oversized length is refused as
    /// soon as its 4 bytes arrive, before any of the body is buffered.
    pub fn next_msg(&mut self) -> Result<Option<Msg>, FrameError> {
        let Some(head) = self.buf.get(..4) else {
            return Ok(None);
        };
        let len = u32::from_le_bytes(head.try_into().expect("4 bytes")) as usize;
        if len > self.max_body {
            return Err(FrameError::TooLong {
                len,
                max: self.max_body,
            });
        }
        if self.buf.len() < 4 + len {
            return Ok(None);
        }
        let msg = Msg::decode(&self.buf[4..4 + len]);
        self.buf.drain(..4 + len);
        msg.map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(m: Msg) {
        let bytes = m.encode();
        let mut r = FrameReader::new(MAX_REPLY_BODY);
        // Byte by byte: a frame split anywhere must reassemble.
        for (i, b) in bytes.iter().enumerate() {
            assert_eq!(
                r.next_msg().unwrap(),
                None,
                "complete too early at byte {i}"
            );
            r.extend(&[*b]);
        }
        assert_eq!(r.next_msg().unwrap(), Some(m));
        assert!(!r.has_partial());
    }

    #[test]
    fn every_message_roundtrips() {
        roundtrip(Msg::Hello {
            rank: 7,
            job_id: 0xdead_beef_0123_4567,
            pid: 4242,
        });
        roundtrip(Msg::Welcome { size: 16 });
        roundtrip(Msg::Watch {
            rank: 3,
            job_id: 0x1234_5678_9abc_def0,
        });
        roundtrip(Msg::Beat);
        roundtrip(Msg::Ask {
            pid: 77,
            within_ms: 250,
        });
        for state in [
            PeerState::Gone,
            PeerState::Polling,
            PeerState::Quiet,
            PeerState::Unknown,
        ] {
            roundtrip(Msg::Status { pid: 77, state });
        }
        roundtrip(Msg::Died { pid: 78 });
        roundtrip(Msg::Owes {
            call: "MPI_Finalize".into(),
        });
        roundtrip(Msg::Owes {
            call: String::new(),
        });
        roundtrip(Msg::Enter {
            seq: 1,
            op: Op::Allgather,
            data: vec![1, 2, 3],
        });
        roundtrip(Msg::Enter {
            seq: 2,
            op: Op::Barrier,
            data: vec![],
        });
        roundtrip(Msg::Done {
            seq: 1,
            op: Op::Allgather,
            parts: vec![vec![], vec![9; 300]],
        });
        roundtrip(Msg::Done {
            seq: 2,
            op: Op::Barrier,
            parts: vec![],
        });
        roundtrip(Msg::Abort {
            status: 3,
            reason: "bad input é".into(),
        });
        roundtrip(Msg::Aborted {
            status: -1,
            reason: String::new(),
        });
    }

    #[test]
    fn two_frames_in_one_read() {
        let mut bytes = Msg::Welcome { size: 2 }.encode();
        bytes.extend(
            Msg::Done {
                seq: 1,
                op: Op::Barrier,
                parts: vec![],
            }
            .encode(),
        );
        let mut r = FrameReader::new(MAX_REPLY_BODY);
        r.extend(&bytes);
        assert_eq!(r.next_msg().unwrap(), Some(Msg::Welcome { size: 2 }));
        assert!(matches!(
            r.next_msg().unwrap(),
            Some(Msg::Done { seq: 1, .. })
        ));
        assert_eq!(r.next_msg().unwrap(), None);
    }

    #[test]
    fn oversized_length_is_refused_before_the_body_arrives() {
        let mut r = FrameReader::new(MAX_REQUEST_BODY);
        r.extend(&u32::MAX.to_le_bytes());
        assert_eq!(
            r.next_msg(),
            Err(FrameError::TooLong {
                len: u32::MAX as usize,
                max: MAX_REQUEST_BODY
            })
        );
        // A contribution just over the limit is refused by the decoder too.
        let big = Msg::Enter {
            seq: 1,
            op: Op::Allgather,
            data: vec![0; MAX_CONTRIBUTION + 1],
        };
        let mut r = FrameReader::new(usize::MAX);
        r.extend(&big.encode());
        assert!(matches!(r.next_msg(), Err(FrameError::Invalid(_))));
    }

    #[test]
    fn truncated_bodies_are_errors() {
        let full = Msg::Hello {
            rank: 1,
            job_id: 2,
            pid: 3,
        }
        .encode();
        let body = &full[4..];
        for cut in 1..body.len() {
            assert_eq!(
                Msg::decode(&body[..cut]),
                Err(FrameError::Truncated("hello")),
                "cut {cut}"
            );
        }
        // A part length pointing past the end of a Done.
        let mut done = Msg::Done {
            seq: 1,
            op: Op::Allgather,
            parts: vec![vec![1; 8]],
        }
        .encode();
        done.truncate(done.len() - 1);
        assert_eq!(Msg::decode(&done[4..]), Err(FrameError::Truncated("done")));
    }

    #[test]
    fn malformed_bodies_are_errors() {
        assert_eq!(Msg::decode(&[]), Err(FrameError::Empty));
        assert_eq!(Msg::decode(&[99]), Err(FrameError::UnknownKind(99)));
        let mut w = Msg::Welcome { size: 1 }.encode();
        w.push(0);
        assert_eq!(
            Msg::decode(&w[4..]),
            Err(FrameError::Trailing {
                kind: "welcome",
                extra: 1
            })
        );
        let mut h = Msg::Hello {
            rank: 0,
            job_id: 0,
            pid: 0,
        }
        .encode();
        h[5] ^= 0xff;
        assert!(matches!(Msg::decode(&h[4..]), Err(FrameError::BadMagic(_))));
        let mut h = Msg::Hello {
            rank: 0,
            job_id: 0,
            pid: 0,
        }
        .encode();
        h[9] = 9;
        assert_eq!(Msg::decode(&h[4..]), Err(FrameError::Version(9)));
        let mut e = Msg::Enter {
            seq: 1,
            op: Op::Barrier,
            data: vec![],
        }
        .encode();
        e[9] = 7;
        assert!(matches!(Msg::decode(&e[4..]), Err(FrameError::Invalid(_))));
        let e = Msg::Enter {
            seq: 1,
            op: Op::Barrier,
            data: vec![1],
        }
        .encode();
        assert!(matches!(Msg::decode(&e[4..]), Err(FrameError::Invalid(_))));
        // A Done claiming more parts than any job has.
        let mut d = vec![K_DONE];
        d.extend(1u32.to_le_bytes());
        d.push(Op::Allgather as u8);
        d.extend((MAX_JOB_SIZE + 1).to_le_bytes());
        assert!(matches!(Msg::decode(&d), Err(FrameError::Invalid(_))));
    }

    #[test]
    fn owed_call_names_are_short_plain_names() {
        let frame = |name: &[u8]| {
            let mut b = vec![K_OWES];
            b.extend_from_slice(name);
            b
        };
        assert!(matches!(
            Msg::decode(&frame(&[b'x'; MAX_CALL + 1])),
            Err(FrameError::Invalid(_))
        ));
        for bad in [&b"MPI Finalize"[..], b"\x1b[2J", b"\xff"] {
            assert!(matches!(
                Msg::decode(&frame(bad)),
                Err(FrameError::Invalid(_))
            ));
        }
    }

    #[test]
    fn long_reasons_are_cut_on_a_character_boundary() {
        let reason = "é".repeat(MAX_REASON);
        let bytes = Msg::Abort { status: 1, reason }.encode();
        let Msg::Abort { reason, .. } = Msg::decode(&bytes[4..]).unwrap() else {
            panic!()
        };
        assert!(reason.len() <= MAX_REASON && reason.chars().all(|c| c == 'é'));
    }
}
