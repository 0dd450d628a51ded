//! Errors a call reports at once, and the reasons a message comes back to its sender.

use std::fmt;

/// Why a call failed. A failed send sent nothing.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("bad argument: {0}")]
    BadArg(String),
    #[error("translation index {0} is not mapped")]
    NoTranslation(u32),
    #[error("handler index {0} is out of range or reserved")]
    BadHandlerIndex(usize),
    #[error("a reply handler may not send")]
    ReplyFromReplyHandler,
    #[error("a reply handler may not send requests (AM-II: it sends nothing)")]
    RequestFromReplyHandler,
    #[error("this request has already been replied to")]
    AlreadyReplied,
    #[error("the resource is in use: {0}")]
    InUse(String),
    #[error("the endpoint has been freed")]
    EndpointFreed,
    #[error("no space to send after {0} ms: the destination is not draining its queue")]
    Congestion(u64),
    #[error("the event mask is empty: wait would never return")]
    NoEvents,
    #[error(
        "{0} returned messages wait for a poll to run their handler: poll before sending more"
    )]
    ReturnsPending(usize),
    #[error("bootstrap: {0}")]
    Boot(String),
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io {
            context: context.into(),
            source,
        }
    }
}

/// Why a message came back to its sender's handler 0 (AM-II's status codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ReturnReason {
    /// The packet itself was malformed (`EBADARGS`).
    BadArgs = 1,
    /// The destination's tag differs from the translation's (`EBADTAG`).
    BadTag = 2,
    /// The destination has no handler at that index (`EBADHANDLER`).
    BadHandler = 3,
    /// A long message or get lies outside the destination's segment (`EBADSEGOFF`).
    BadSegmentOffset = 4,
    /// A payload longer than the limit reached the destination (`EBADLENGTH`).
    BadLength = 5,
    /// The destination endpoint was freed (`EBADENDPOINT`).
    EndpointGone = 6,
    /// The destination's process exited while the message was in flight: it may have
    /// run there before (`EOUTCOMEUNKNOWN`). A message for a process already gone never
    /// leaves: `Unreachable`.
    PeerGone = 7,
    /// The destination could not be reached: the message never left (`EUNREACHABLE`).
    Unreachable = 8,
    /// A reply could not be delivered to the requester (`EREPLYREJECTED`).
    ReplyRejected = 9,
    /// The destination stopped answering after the message was sent: it may have run
    /// there or not, and the sender cannot tell (`EOUTCOMEUNKNOWN`). `Unreachable`, by
    /// contrast, says the message never left.
    OutcomeUnknown = 10,
}

impl ReturnReason {
    pub fn from_u8(v: u8) -> Option<ReturnReason> {
        use ReturnReason::*;
        [
            BadArgs,
            BadTag,
            BadHandler,
            BadSegmentOffset,
            BadLength,
            EndpointGone,
            PeerGone,
            Unreachable,
            ReplyRejected,
            OutcomeUnknown,
        ]
        .into_iter()
        .find(|r| *r as u8 == v)
    }
}

impl fmt::Display for ReturnReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            ReturnReason::BadArgs => "malformed message",
            ReturnReason::BadTag => "tag does not match the destination endpoint",
            ReturnReason::BadHandler => "no such handler at the destination",
            ReturnReason::BadSegmentOffset => {
                "offset and length fall outside the destination segment"
            }
            ReturnReason::BadLength => "payload longer than the limit",
            ReturnReason::EndpointGone => "destination endpoint was freed",
            ReturnReason::PeerGone => {
                "destination process exited after the message was sent: it may have run"
            }
            ReturnReason::Unreachable => "destination unreachable",
            ReturnReason::ReplyRejected => "reply rejected by the requester",
            ReturnReason::OutcomeUnknown => {
                "destination stopped answering after the message was sent: it may have run"
            }
        };
        f.write_str(text)
    }
}
