//! Message kinds, limits, and what handlers see of a message.

use crate::error::{Error, Result, ReturnReason};

/// Largest medium payload: one bulk block of the shared-memory queues.
pub const MAX_MEDIUM: usize = 64 * 1024;

/// Most 32-bit arguments a message carries (`AM_MaxShort` in words).
pub const MAX_ARGS: usize = 16;
/// Largest long message or get, in bytes (bounded further by the destination's segment).
pub const MAX_LONG: usize = 1 << 30;
/// Largest segment, in bytes: the user address space of a 64-bit Linux process (4-level
/// page tables). A program's own memory or a shared region may be that large.
pub const MAX_SEGMENT: usize = 1 << 47;
/// Entries in a handler table; index 0 is the handler of returned messages.
pub const MAX_HANDLERS: usize = 256;
/// Entries in a translation table.
pub const MAX_TRANSLATIONS: usize = 65536;

/// The handler table index of a message.
pub type HandlerIndex = u8;

/// What a message carries besides its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Arguments only.
    Short,
    /// Arguments and a payload the handler reads in place in layer-owned storage.
    Medium,
    /// Arguments and a payload deposited in the destination's segment before the handler runs.
    Long,
    /// Data pulled from the remote segment into the local one; then a local handler runs.
    Get,
}

/// A message as its handler sees it. The slices borrow layer-owned (or segment) memory
/// and are valid only during the handler call.
#[derive(Debug)]
pub struct Message<'a> {
    pub kind: Kind,
    pub handler: HandlerIndex,
    pub args: &'a [u32],
    /// Medium: the payload. Long and get: the bytes at `offset` in this endpoint's segment.
    pub payload: &'a [u8],
    /// Long and get: where the payload lies in this endpoint's segment.
    pub offset: u64,
}

impl Returned<'_> {
    /// A copy that outlives the handler call.
    pub fn to_message(&self) -> ReturnedMessage {
        ReturnedMessage {
            reason: self.reason,
            request: self.request,
            kind: self.kind,
            handler: self.handler,
            args: ArgBuf::from_slice(self.args),
            payload: self.payload.to_vec(),
            offset: self.offset,
            translation: self.translation,
        }
    }
}

/// A message that came back to its sender, as handler 0 sees it.
#[derive(Debug)]
pub struct Returned<'a> {
    pub reason: ReturnReason,
    /// True for a returned request, false for a reply this endpoint could not deliver.
    pub request: bool,
    pub kind: Kind,
    pub handler: HandlerIndex,
    pub args: &'a [u32],
    /// A medium message's payload; empty for other kinds.
    pub payload: &'a [u8],
    /// Long messages and gets: the segment offset the message named.
    pub offset: u64,
    /// The translation index the request was sent through, if it was a request.
    pub translation: Option<u32>,
}

/// A returned message by value: what the layer keeps until a poll delivers it, and what a
/// handler 0 keeps when it must act on the message later ([`Returned::to_message`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReturnedMessage {
    pub reason: ReturnReason,
    pub request: bool,
    pub kind: Kind,
    pub handler: HandlerIndex,
    pub(crate) args: ArgBuf,
    pub payload: Vec<u8>,
    pub offset: u64,
    pub translation: Option<u32>,
}

impl ReturnedMessage {
    pub fn args(&self) -> &[u32] {
        self.args.as_slice()
    }

    pub fn view(&self) -> Returned<'_> {
        Returned {
            reason: self.reason,
            request: self.request,
            kind: self.kind,
            handler: self.handler,
            args: self.args.as_slice(),
            payload: &self.payload,
            offset: self.offset,
            translation: self.translation,
        }
    }
}

/// Copies `src` (at most [`MAX_ARGS`] words, the rest ignored) into the front of `dst`.
/// Up to four, the common case, by fixed-size moves: a copy of a length known only at run
/// time is a call to `memcpy`, which costs more than the words it moves.
#[inline(always)]
pub(crate) fn copy_args(dst: &mut [u32; MAX_ARGS], src: &[u32]) {
    let n = src.len().min(MAX_ARGS);
    match n {
        0 => {}
        1 => dst[..1].copy_from_slice(&src[..1]),
        2 => dst[..2].copy_from_slice(&src[..2]),
        3 => dst[..3].copy_from_slice(&src[..3]),
        4 => dst[..4].copy_from_slice(&src[..4]),
        _ => dst[..n].copy_from_slice(&src[..n]),
    }
}

/// Up to [`MAX_ARGS`] arguments by value.
#[derive(Clone, Copy, Default)]
pub(crate) struct ArgBuf {
    pub words: [u32; MAX_ARGS],
    pub len: u8,
}

/// Shows the arguments in use only.
impl std::fmt::Debug for ArgBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

/// Equal when the arguments in use are: the unused words carry no meaning.
impl PartialEq for ArgBuf {
    fn eq(&self, other: &ArgBuf) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for ArgBuf {}

impl ArgBuf {
    #[inline]
    pub fn from_slice(args: &[u32]) -> ArgBuf {
        let mut b = ArgBuf {
            words: [0; MAX_ARGS],
            len: args.len() as u8,
        };
        copy_args(&mut b.words, args);
        b
    }
    pub fn as_slice(&self) -> &[u32] {
        &self.words[..self.len as usize]
    }
}

/// A request in flight, kept until it is answered so that it can come back to handler 0
/// if its destination is lost.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SavedRequest {
    pub kind: Kind,
    pub handler: u8,
    pub args: ArgBuf,
    pub offset: u64,
}

/// A message about to be sent, by either transport.
pub(crate) struct Outgoing<'a> {
    pub kind: Kind,
    pub handler: HandlerIndex,
    pub args: &'a [u32],
    pub payload: &'a [u8],
    pub offset: u64,
}

impl Outgoing<'_> {
    /// Checks what the caller controls; a failure is an error of the call, nothing is sent.
    #[inline]
    pub fn validate(&self) -> Result<()> {
        let limit = match self.kind {
            Kind::Short => 0,
            Kind::Medium => MAX_MEDIUM,
            Kind::Long | Kind::Get => MAX_LONG,
        };
        if self.args.len() > MAX_ARGS || self.handler == 0 || self.payload.len() > limit {
            return Err(self.invalid(limit));
        }
        Ok(())
    }

    /// Why [`Outgoing::validate`] refused this message (kept off the send path).
    #[cold]
    fn invalid(&self, limit: usize) -> Error {
        if self.args.len() > MAX_ARGS {
            Error::BadArg(format!(
                "{} arguments exceed the limit of {MAX_ARGS}",
                self.args.len()
            ))
        } else if self.handler == 0 {
            Error::BadHandlerIndex(0)
        } else {
            Error::BadArg(format!(
                "{:?} payload of {} bytes exceeds the limit of {limit}",
                self.kind,
                self.payload.len()
            ))
        }
    }

    /// The message as handler 0 receives it when it comes back for `reason`.
    pub fn returned(
        &self,
        reason: ReturnReason,
        request: bool,
        translation: Option<u32>,
    ) -> ReturnedMessage {
        ReturnedMessage {
            reason,
            request,
            kind: self.kind,
            handler: self.handler,
            args: ArgBuf::from_slice(self.args),
            payload: if self.kind == Kind::Medium {
                self.payload.to_vec()
            } else {
                Vec::new()
            },
            offset: self.offset,
            translation,
        }
    }

    /// What is kept of it while it is in flight.
    #[inline]
    pub fn saved(&self) -> SavedRequest {
        SavedRequest {
            kind: self.kind,
            handler: self.handler,
            args: ArgBuf::from_slice(self.args),
            offset: self.offset,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_args_copies_exactly_the_words_given() {
        for n in 0..=MAX_ARGS {
            let src: Vec<u32> = (1..=n as u32).collect();
            let mut dst = [0u32; MAX_ARGS];
            copy_args(&mut dst, &src);
            assert_eq!(&dst[..n], &src[..]);
            assert!(dst[n..].iter().all(|&w| w == 0), "{n} words");
        }
    }
}
