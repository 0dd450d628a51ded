//! What happens when the kernel refuses cross-memory attach to a peer whose segment is
//! its program memory (Yama, a container's seccomp policy): a request or get to it moves
//! to the network, through UDP on this host (copies, but delivered); where that is not
//! possible (no network, requests still in flight through shared memory, or a reply,
//! which goes back the way its request came), the message comes back as unreachable.
//! Either way the refusal is counted in the endpoint's statistics and explained once on
//! standard error: never a silent failure. A routing decision, taken above the transports
//! (`am/send.rs`): the shared-memory transport only reports the refusal.

use super::EndpointCore;
use crate::error::ReturnReason;
use crate::transport::net::NetPeer;
use crate::transport::shm::cma;
use crate::transport::shm::segment::return_reason;
use std::io;
use std::sync::Once;

/// How a long message or get whose copy into or out of the destination's segment failed
/// goes on.
pub(crate) enum Fallback {
    /// Send it over the network to this peer instead (the translation now goes there).
    Network(NetPeer),
    /// It comes back to its sender for this reason.
    Return(ReturnReason),
}

impl EndpointCore {
    /// For a request or get through translation `dest` whose segment copy failed with `e`.
    pub(crate) fn segment_fallback(&self, dest: u32, e: &io::Error) -> Fallback {
        if cma::refused(e) {
            if let Some(peer) = self.move_to_network(dest) {
                self.count(|s| s.segment_attach_refused += 1);
                explain(e, "they go over the network (UDP on this host) instead");
                return Fallback::Network(peer);
            }
        }
        Fallback::Return(self.segment_failure(e))
    }

    /// Why a long message or reply whose segment copy failed with `e` comes back.
    pub(crate) fn segment_failure(&self, e: &io::Error) -> ReturnReason {
        if cma::refused(e) {
            self.count(|s| s.segment_attach_refused += 1);
            explain(
                e,
                "those that cannot use the network come back as unreachable",
            );
        }
        return_reason(e)
    }
}

/// Says once per process why long messages and gets to peers' program memory do not
/// travel by cross-memory attach: a setting of the machine, not of one message.
fn explain(e: &io::Error, outcome: &str) {
    static EXPLAINED: Once = Once::new();
    EXPLAINED.call_once(|| {
        eprintln!(
            "clump: the kernel refuses cross-memory attach ({e}; {}): long messages and gets \
             to a peer's segment in program memory cannot copy directly, {outcome}; allow \
             ptrace between the job's processes, or let the layer place the segment \
             (AM_SetSeg with a NULL address)",
            cma::rule()
        );
    });
}
