//! How a translation reaches its destination: through shared memory when the destination
//! lives on this (virtual) host, over the network otherwise. Chosen once, when the
//! translation is mapped; the program never sees which.
//!
//! A destination on this host is mapped lazily, by the first message or segment access
//! through the translation, not by `map`: a job of n ranks that all map each other (SPMD
//! start-up) would otherwise hold n^2 mappings of queue blocks, each one an open, an mmap,
//! a pidfd and a munmap at exit, though most programs talk to a few neighbours only.
//! Messages from a peer need no mapping of it: every sender writes into the receiver's
//! one request queue, and replies map the requester when they first go back to it.

use super::{EndpointCore, Translation};
use crate::error::{Error, Result, ReturnReason};
use crate::net::NetPeer;
use crate::shm::remote::{Remote, RemoteRef};
use std::rc::Rc;

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

impl EndpointCore {
    /// Maps the destination of translation `dest` if it is on this host and not mapped
    /// yet (a translation without a route). `Ok(Err(reason))` says why a message through
    /// it comes back: the endpoint is gone (its process lives but the block is not there
    /// any more) or its process is. Running out of descriptors or memory is an error of
    /// the call, not of the peer.
    #[cold]
    pub(crate) fn connect(&self, dest: u32) -> Result<std::result::Result<(), ReturnReason>> {
        let mut table = self.tables.translations.borrow_mut();
        let Some(Translation {
            route: route @ None,
            name,
            ..
        }) = table.get_mut(dest as usize).and_then(|t| t.as_mut())
        else {
            return Ok(Ok(()));
        };
        match Remote::lookup(name.id) {
            Ok(remote) => {
                *route = Some(Route::Shm(Rc::new(remote)));
                Ok(Ok(()))
            }
            Err(e) if out_of_resources(&e) => {
                Err(Error::io(format!("cannot map endpoint {name}"), e))
            }
            Err(_) if process_exists(name.id.pid) => Ok(Err(ReturnReason::EndpointGone)),
            // Its process is gone: nothing sent there can leave.
            Err(_) => Ok(Err(ReturnReason::Unreachable)),
        }
    }
}

/// Whether mapping failed for want of descriptors or memory in this process or system.
fn out_of_resources(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOMEM)
    )
}

/// Whether process `pid` exists.
fn process_exists(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}
