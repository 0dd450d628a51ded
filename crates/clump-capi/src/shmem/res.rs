//! What every OpenSHMEM call's Rust side returns: a result whose error is the message
//! printed before the job ends.

/// What a call returns inside the library: a value, or why it cannot be done.
pub type Res<T> = Result<T, String>;

/// A clump-gas error as the text of a failed call.
pub fn gas_err(e: clump_gas::Error) -> String {
    e.to_string()
}
