//! The AM-II constants of `clump/amii.h`, and how clump's errors and return reasons map
//! onto them.

use am::{Error, Kind, ReturnReason};
use std::os::raw::c_int;

pub const AM_OK: c_int = 0;
pub const AM_ERR_NOT_INIT: c_int = 1;
pub const AM_ERR_BAD_ARG: c_int = 2;
pub const AM_ERR_RESOURCE: c_int = 3;
pub const AM_ERR_NOT_SENT: c_int = 4;
pub const AM_ERR_IN_USE: c_int = 5;
pub const AM_ERR_IN_REPLY_HANDLER: c_int = 6;

pub const EBADARGS: c_int = 1;
pub const EBADTAG: c_int = 3;
pub const EBADHANDLER: c_int = 4;
pub const EBADSEGOFF: c_int = 5;
pub const EBADLENGTH: c_int = 6;
pub const EBADENDPOINT: c_int = 7;
pub const EUNREACHABLE: c_int = 9;
pub const EREPLYREJECTED: c_int = 10;
pub const EOUTCOMEUNKNOWN: c_int = 11;

pub const AM_REQUEST_M: c_int = 1;
pub const AM_REQUEST_IM: c_int = 2;
pub const AM_REQUEST_XFER_M: c_int = 3;
pub const AM_REPLY_M: c_int = 4;
pub const AM_REPLY_IM: c_int = 5;
pub const AM_REPLY_XFER_M: c_int = 6;
pub const AM_GET_XFER_M: c_int = 7;

pub const AM_SEQ: c_int = 0;
pub const AM_PAR: c_int = 1;
pub const AM_NOEVENTS: c_int = 0;
pub const AM_NOTEMPTY: c_int = 1;

/// `en_t`'s size in the header; the build fails if clump's names change size.
pub const EN_T_BYTES: usize = 32;
const _: () = assert!(am::name::NAME_BYTES == EN_T_BYTES);

/// `en_t`: an endpoint name, passed by value as C passes that struct.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct EnT {
    pub bytes: [u8; EN_T_BYTES],
}

impl From<am::EndpointName> for EnT {
    fn from(n: am::EndpointName) -> EnT {
        EnT {
            bytes: n.to_bytes(),
        }
    }
}

/// A call's failure: one of the `AM_ERR_*` codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Code(pub c_int);

pub const BAD_ARG: Code = Code(AM_ERR_BAD_ARG);
pub const RESOURCE: Code = Code(AM_ERR_RESOURCE);
pub const IN_USE: Code = Code(AM_ERR_IN_USE);

pub type AmResult<T = ()> = Result<T, Code>;

impl From<Error> for Code {
    fn from(e: Error) -> Code {
        Code(match e {
            Error::BadArg(_)
            | Error::NoTranslation(_)
            | Error::BadHandlerIndex(_)
            | Error::ReplyFromReplyHandler
            | Error::AlreadyReplied
            | Error::EndpointFreed
            | Error::NoEvents => AM_ERR_BAD_ARG,
            Error::InUse(_) => AM_ERR_IN_USE,
            Error::RequestFromReplyHandler => AM_ERR_IN_REPLY_HANDLER,
            Error::Congestion(_) | Error::ReturnsPending(_) => AM_ERR_NOT_SENT,
            Error::Boot(_) | Error::Io { .. } => AM_ERR_RESOURCE,
        })
    }
}

/// The status handler 0 receives for a message returned for `reason`.
pub fn status_of(reason: ReturnReason) -> c_int {
    match reason {
        ReturnReason::BadArgs => EBADARGS,
        ReturnReason::BadTag => EBADTAG,
        ReturnReason::BadHandler => EBADHANDLER,
        ReturnReason::BadSegmentOffset => EBADSEGOFF,
        ReturnReason::BadLength => EBADLENGTH,
        ReturnReason::EndpointGone => EBADENDPOINT,
        ReturnReason::Unreachable => EUNREACHABLE,
        ReturnReason::ReplyRejected => EREPLYREJECTED,
        // EUNREACHABLE promises the message never left; these left and may have run.
        ReturnReason::PeerGone | ReturnReason::OutcomeUnknown => EOUTCOMEUNKNOWN,
    }
}

/// The opcode handler 0 receives for a returned message of `kind`.
pub fn opcode_of(kind: Kind, request: bool) -> c_int {
    match (kind, request) {
        (Kind::Short, true) => AM_REQUEST_M,
        (Kind::Medium, true) => AM_REQUEST_IM,
        (Kind::Long, true) => AM_REQUEST_XFER_M,
        (Kind::Short, false) => AM_REPLY_M,
        (Kind::Medium, false) => AM_REPLY_IM,
        (Kind::Long, false) => AM_REPLY_XFER_M,
        (Kind::Get, _) => AM_GET_XFER_M,
    }
}

/// A table size from C: 1..=`max`; 0 or less is a bad argument, more than `max` beyond
/// what clump has.
pub fn table_size(n: c_int, max: usize) -> AmResult<usize> {
    match usize::try_from(n) {
        Ok(0) | Err(_) => Err(BAD_ARG),
        Ok(n) if n > max => Err(RESOURCE),
        Ok(n) => Ok(n),
    }
}
