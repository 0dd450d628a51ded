//! MPI error classes (the C layer maps them to the ABI's `MPI_ERR_*` values) with messages.

use std::fmt;

/// The MPI error classes this layer reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorClass {
    Buffer,
    Count,
    Type,
    Tag,
    Comm,
    Rank,
    Request,
    Root,
    Op,
    Arg,
    Truncate,
    Other,
    Intern,
    NoMem,
    Pending,
    InStatus,
    Unsupported,
    Topology,
    Dims,
}

impl ErrorClass {
    /// The standard's description of the class (`MPI_Error_string` of a class).
    pub fn description(self) -> &'static str {
        match self {
            ErrorClass::Buffer => "invalid buffer pointer",
            ErrorClass::Count => "invalid count argument",
            ErrorClass::Type => "invalid datatype",
            ErrorClass::Tag => "invalid tag",
            ErrorClass::Comm => "invalid communicator",
            ErrorClass::Rank => "invalid rank",
            ErrorClass::Request => "invalid request",
            ErrorClass::Root => "invalid root",
            ErrorClass::Op => "invalid reduction operation",
            ErrorClass::Arg => "invalid argument",
            ErrorClass::Truncate => "message truncated",
            ErrorClass::Other => "known error not in this list",
            ErrorClass::Intern => "internal error",
            ErrorClass::NoMem => "out of memory",
            ErrorClass::Pending => "pending request",
            ErrorClass::InStatus => "error code is in status",
            ErrorClass::Unsupported => "unsupported operation",
            ErrorClass::Topology => "invalid topology",
            ErrorClass::Dims => "invalid dimension argument",
        }
    }
}

/// An MPI error: its class and what went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub class: ErrorClass,
    pub message: String,
}

impl Error {
    pub fn new(class: ErrorClass, message: impl Into<String>) -> Error {
        Error {
            class,
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.class.description(), self.message)
    }
}

impl std::error::Error for Error {}

impl From<clump::Error> for Error {
    fn from(e: clump::Error) -> Error {
        Error::new(ErrorClass::Other, format!("communication layer: {e}"))
    }
}

pub type Result<T> = std::result::Result<T, Error>;
