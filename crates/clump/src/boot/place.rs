//! Where a job under a process manager lives: the first exchange (job id and key, node,
//! host name) and the address this process's endpoints bind to when peers sit on other nodes
//! (that of the interface the route to them takes, or of `CLUMP_NET_IFACE`).

use super::BootError;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, ToSocketAddrs, UdpSocket};

/// Every rank's contribution to the first exchange.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intro {
    /// Rank 0's draw becomes the job's secret id; the others' are ignored.
    pub job_id: u64,
    /// Rank 0's draw becomes the key of the datagram MAC (`CLUMP_NET_AUTH`).
    pub job_key: u128,
    pub node: u32,
    pub host: String,
}

impl Intro {
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(28 + self.host.len());
        b.extend_from_slice(&self.job_id.to_le_bytes());
        b.extend_from_slice(&self.job_key.to_le_bytes());
        b.extend_from_slice(&self.node.to_le_bytes());
        b.extend_from_slice(self.host.as_bytes());
        b
    }

    pub fn decode(b: &[u8]) -> Option<Intro> {
        if b.len() < 28 {
            return None;
        }
        Some(Intro {
            job_id: u64::from_le_bytes(b[0..8].try_into().ok()?),
            job_key: u128::from_le_bytes(b[8..24].try_into().ok()?),
            node: u32::from_le_bytes(b[24..28].try_into().ok()?),
            host: String::from_utf8(b[28..].to_vec()).ok()?,
        })
    }
}

/// This machine's host name, as peers on other nodes resolve it.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_default()
}

/// The address to bind to in a job across nodes: the source address of the route to
/// the first rank on another node (or `iface`'s address when one is named).
pub fn bind_ip(rank: u32, intros: &[Intro], iface: Option<&str>) -> Result<Ipv4Addr, BootError> {
    let mine = &intros[rank as usize];
    let (peer_rank, peer) = intros
        .iter()
        .enumerate()
        .find(|(_, i)| i.node != mine.node)
        .ok_or_else(|| {
            net_error(
                "the process manager reports several nodes, but every rank is on this one".into(),
            )
        })?;
    source_toward(&peer.host, iface).map_err(|e| match e {
        BootError::Config(why) => net_error(format!("toward rank {peer_rank}: {why}")),
        other => other,
    })
}

/// The address this machine reaches `host` from: that of `iface` when one is named,
/// else the source of the route to `host`. Used by `clump run` across hosts, which has no
/// process manager to say where the others are.
pub fn source_toward(host: &str, iface: Option<&str>) -> Result<Ipv4Addr, BootError> {
    let addr = resolve(host).map_err(|why| {
        net_error(format!(
            "cannot find the address of host {host:?}: {why}; set CLUMP_NET_IP or CLUMP_NET_IFACE"
        ))
    })?;
    match iface {
        Some(name) => iface_ip(name, Some(addr)),
        None => route_source(addr, None).map_err(|e| {
            net_error(format!(
                "no route to host {host} at {addr}: {e}; set CLUMP_NET_IP or CLUMP_NET_IFACE"
            ))
        }),
    }
}

/// The IPv4 address of interface `name`: the source of a route through it, to `toward`
/// or (with no peer known) to any address.
pub fn iface_ip(name: &str, toward: Option<Ipv4Addr>) -> Result<Ipv4Addr, BootError> {
    let target = toward.unwrap_or(Ipv4Addr::new(192, 0, 2, 1));
    route_source(target, Some(name)).map_err(|e| {
        net_error(format!(
            "CLUMP_NET_IFACE={name}: no IPv4 address to use on it ({e})"
        ))
    })
}

/// The local address the kernel picks for datagrams to `to` (through `device` if
/// given). Connecting a UDP socket sends nothing; it only consults the routing table.
fn route_source(to: Ipv4Addr, device: Option<&str>) -> std::io::Result<Ipv4Addr> {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::DGRAM, None)?;
    if let Some(dev) = device {
        socket.bind_device(Some(dev.as_bytes()))?;
    }
    socket.connect(&SocketAddrV4::new(to, 9).into())?;
    let socket: UdpSocket = socket.into();
    match socket.local_addr()? {
        SocketAddr::V4(a) if !a.ip().is_unspecified() => Ok(*a.ip()),
        other => Err(std::io::Error::other(format!("the route gives {other}"))),
    }
}

/// The first IPv4 address `host` resolves to.
fn resolve(host: &str) -> std::io::Result<Ipv4Addr> {
    (host, 0)
        .to_socket_addrs()?
        .find_map(|a| match a {
            SocketAddr::V4(v4) => Some(*v4.ip()),
            SocketAddr::V6(_) => None,
        })
        .ok_or_else(|| std::io::Error::other("no IPv4 address"))
}

fn net_error(what: String) -> BootError {
    BootError::Config(what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intros_roundtrip_and_short_ones_are_refused() {
        let i = Intro {
            job_id: 0x0123_4567_89ab_cdef,
            job_key: 0x00ff_0000_1111_2222_3333_4444_5555_6666,
            node: 3,
            host: "node-7".into(),
        };
        assert_eq!(Intro::decode(&i.encode()), Some(i));
        assert_eq!(Intro::decode(&[0; 27]), None);
    }

    #[test]
    fn the_route_to_a_peer_on_loopback_starts_on_loopback() {
        let intros = [
            Intro {
                job_id: 1,
                job_key: 1,
                node: 0,
                host: "irrelevant".into(),
            },
            Intro {
                job_id: 2,
                job_key: 2,
                node: 1,
                host: "localhost".into(),
            },
        ];
        assert_eq!(bind_ip(0, &intros, None).unwrap(), Ipv4Addr::LOCALHOST);
        assert_eq!(
            bind_ip(0, &intros, Some("lo")).unwrap(),
            Ipv4Addr::LOCALHOST
        );
        let e = iface_ip("no-such-iface0", None).unwrap_err();
        assert!(
            e.to_string().contains("CLUMP_NET_IFACE=no-such-iface0"),
            "{e}"
        );
        // Every rank on one node contradicts a job across nodes.
        let one_node = [intros[0].clone(), intros[0].clone()];
        assert!(bind_ip(0, &one_node, None).is_err());
    }
}
