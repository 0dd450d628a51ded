//! The network endpoints this process lets in: its own endpoints and every name one of
//! them mapped (the job's names, which start-up maps, and whatever `AM_Map` named). A
//! datagram from any other address and endpoint pair is refused before the reliability
//! machine keeps anything for it (`Reliable::set_admission`), so forged sources cannot
//! grow this process's memory, and a datagram replayed from another port is not a peer.
//!
//! One set for the whole process, because an endpoint answers requests from endpoints it
//! never mapped itself (AM-II replies through the token): those are in the job, so some
//! endpoint of this process, or the sender's own start-up, named them. The set only
//! grows: it holds the names the program gave, so its size is the program's to bound.

use crate::name::{EndpointName, NO_ADDR};
use crate::transport::net::NetPeer;
use std::collections::HashSet;
use std::sync::{PoisonError, RwLock};

static MEMBERS: RwLock<Option<HashSet<NetPeer>>> = RwLock::new(None);

/// Lets datagrams from the network endpoint behind `name` in (nothing for a name
/// without a network address).
pub(crate) fn admit(name: &EndpointName) {
    if name.addr == NO_ADDR {
        return;
    }
    let peer = NetPeer {
        addr: name.addr,
        id: name.id,
    };
    if is_member(&peer) {
        return;
    }
    MEMBERS
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashSet::new)
        .insert(peer);
}

/// Whether datagrams from `peer` may create protocol state.
pub(crate) fn is_member(peer: &NetPeer) -> bool {
    MEMBERS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .is_some_and(|m| m.contains(peer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::name::EndpointId;
    use std::net::{Ipv4Addr, SocketAddrV4};

    #[test]
    fn only_the_admitted_address_and_endpoint_pair_is_a_member() {
        let id = EndpointId {
            pid: 7,
            fd: 9,
            nonce: 0x6d65_6d62_6572_7301,
        };
        let addr = SocketAddrV4::new(Ipv4Addr::new(10, 9, 8, 7), 4000);
        let name = EndpointName { host: 1, id, addr };
        assert!(!is_member(&NetPeer { addr, id }));
        admit(&name);
        assert!(is_member(&NetPeer { addr, id }));
        let other_port = SocketAddrV4::new(*addr.ip(), 4001);
        assert!(!is_member(&NetPeer {
            addr: other_port,
            id
        }));
        let other_id = EndpointId { nonce: 3, ..id };
        assert!(!is_member(&NetPeer { addr, id: other_id }));
        admit(&EndpointName {
            addr: NO_ADDR,
            ..name
        });
        assert!(!is_member(&NetPeer { addr: NO_ADDR, id }));
    }
}
