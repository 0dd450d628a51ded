//! Endpoint names: globally unique, printable, and small enough to hand to other processes.

use std::collections::HashMap;
use std::fmt;
use std::hash::BuildHasherDefault;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::str::FromStr;

/// Identifies an endpoint's queue block on its host: the owning process, the descriptor
/// of its shared region there, and a nonce that detects a reused process or descriptor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct EndpointId {
    pub pid: u32,
    pub fd: u32,
    pub nonce: u64,
}

/// The name other processes use to reach an endpoint (`AM_Map`'s `en_t`).
///
/// Peers on the same (virtual) host reach it through shared memory by `id`; peers on
/// other hosts through UDP at `addr`. Which one a translation uses follows from `host`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EndpointName {
    /// The host the endpoint lives on.
    pub host: u64,
    pub id: EndpointId,
    /// The endpoint's UDP address; `0.0.0.0:0` when it has none.
    pub addr: SocketAddrV4,
}

/// Bytes in [`EndpointName::to_bytes`].
pub const NAME_BYTES: usize = 32;

/// The address of an endpoint that cannot be reached over the network.
pub const NO_ADDR: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0);

impl EndpointName {
    pub fn to_bytes(&self) -> [u8; NAME_BYTES] {
        let mut b = [0u8; NAME_BYTES];
        b[0..8].copy_from_slice(&self.host.to_le_bytes());
        b[8..12].copy_from_slice(&self.id.pid.to_le_bytes());
        b[12..16].copy_from_slice(&self.id.fd.to_le_bytes());
        b[16..24].copy_from_slice(&self.id.nonce.to_le_bytes());
        b[24..28].copy_from_slice(&self.addr.ip().octets());
        b[28..30].copy_from_slice(&self.addr.port().to_le_bytes());
        b
    }

    pub fn from_bytes(b: &[u8]) -> Option<EndpointName> {
        if b.len() != NAME_BYTES {
            return None;
        }
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        if b[30..32] != [0, 0] {
            return None;
        }
        let ip = Ipv4Addr::new(b[24], b[25], b[26], b[27]);
        let port = u16::from_le_bytes([b[28], b[29]]);
        Some(EndpointName {
            host: u64_at(0),
            id: EndpointId {
                pid: u32_at(8),
                fd: u32_at(12),
                nonce: u64_at(16),
            },
            addr: SocketAddrV4::new(ip, port),
        })
    }
}

impl fmt::Display for EndpointName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:016x}:{}:{}:{:016x}@{}",
            self.host, self.id.pid, self.id.fd, self.id.nonce, self.addr
        )
    }
}

impl FromStr for EndpointName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("{s:?} is not an endpoint name (HOST:PID:FD:NONCE@IP:PORT)");
        let (local, addr) = s.split_once('@').ok_or_else(bad)?;
        let addr: SocketAddrV4 = addr.parse().map_err(|_| bad())?;
        let parts: Vec<&str> = local.split(':').collect();
        let [host, pid, fd, nonce] = parts[..] else {
            return Err(bad());
        };
        Ok(EndpointName {
            host: u64::from_str_radix(host, 16).map_err(|_| bad())?,
            id: EndpointId {
                pid: pid.parse().map_err(|_| bad())?,
                fd: fd.parse().map_err(|_| bad())?,
                nonce: u64::from_str_radix(nonce, 16).map_err(|_| bad())?,
            },
            addr,
        })
    }
}

/// The identity of virtual host `vhost` of this machine: the kernel boot id (so that
/// names from another machine, or an earlier boot, are never mistaken for local ones)
/// with the virtual host number `clump run --hosts` gives (`CLUMP_HOST`).
pub fn host_id(vhost: u32) -> u64 {
    static BOOT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let boot = *BOOT.get_or_init(|| {
        let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
        fnv1a(boot.trim().as_bytes())
    });
    fnv1a(&[boot.to_le_bytes(), (vhost as u64).to_le_bytes()].concat())
}

pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// A hash map keyed by endpoint id.
pub(crate) type IdMap<V> = HashMap<EndpointId, V, BuildHasherDefault<IdHasher>>;

/// Hashes endpoint ids (already unique and well mixed by their nonce) with one multiply,
/// instead of SipHash on the reply path.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = (self.0.rotate_left(32) ^ v as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_survive_bytes_and_text() {
        let n = EndpointName {
            host: 7,
            id: EndpointId {
                pid: 1234,
                fd: 9,
                nonce: 0xdead,
            },
            addr: "127.0.0.1:4000".parse().unwrap(),
        };
        assert_eq!(EndpointName::from_bytes(&n.to_bytes()), Some(n));
        assert_eq!(n.to_string().parse::<EndpointName>(), Ok(n));
        assert!(EndpointName::from_bytes(&[0; 3]).is_none());
        assert!("1:2:3".parse::<EndpointName>().is_err());
        assert!("zz:1:2:3@1.2.3.4:5".parse::<EndpointName>().is_err());
        assert!("1:2:3:4".parse::<EndpointName>().is_err());
        let mut bytes = n.to_bytes();
        bytes[31] = 1;
        assert!(EndpointName::from_bytes(&bytes).is_none());
    }
}

