//! The two transports, side by side with the same verbs (DESIGN.md): `shm/` carries Active
//! Messages between processes of one host through queue blocks in shared memory, `net/`
//! between hosts through a reliable protocol over UDP. Each has a send side and a poll side
//! over the endpoint's state; which one a message takes is decided once, at its route
//! (`endpoint/route.rs`), never by one transport calling the other.

pub(crate) mod shm;

crate::without_loom! {
    pub mod net;
}
