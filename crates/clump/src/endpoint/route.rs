//! How a translation reaches its destination: through shared memory when the destination
//! lives on this (virtual) host, over the network otherwise. Chosen once, when the
//! translation is mapped; the program never sees which.

use crate::net::NetPeer;
use crate::shm::remote::RemoteRef;

#[derive(Clone)]
pub(crate) enum Route {
    Shm(RemoteRef),
    Net(NetPeer),
}

impl Route {
    /// Whether the destination still lives, as far as this process can see without
    /// waiting: a shared-memory peer's process is checked; a network peer is alive until
    /// the launcher says its process exited (or its silence is judged, `net/poll.rs`).
    pub fn alive(&self) -> bool {
        match self {
            Route::Shm(r) => r.alive(),
            Route::Net(p) => !crate::boot::watch::is_gone(p.id.pid),
        }
    }
}
