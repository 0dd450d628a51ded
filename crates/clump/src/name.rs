//! Endpoint names: globally unique, printable, and small enough to hand to other processes.

use std::fmt;
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EndpointName {
    /// The host the endpoint lives on.
    pub host: u64,
    pub id: EndpointId,
}

/// Bytes in [`EndpointName::to_bytes`].
pub const NAME_BYTES: usize = 24;

impl EndpointName {
    pub fn to_bytes(&self) -> [u8; NAME_BYTES] {
        let mut b = [0u8; NAME_BYTES];
        b[0..8].copy_from_slice(&self.host.to_le_bytes());
        b[8..12].copy_from_slice(&self.id.pid.to_le_bytes());
        b[12..16].copy_from_slice(&self.id.fd.to_le_bytes());
        b[16..24].copy_from_slice(&self.id.nonce.to_le_bytes());
        b
    }

    pub fn from_bytes(b: &[u8]) -> Option<EndpointName> {
        if b.len() != NAME_BYTES {
            return None;
        }
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        Some(EndpointName {
            host: u64_at(0),
            id: EndpointId {
                pid: u32_at(8),
                fd: u32_at(12),
                nonce: u64_at(16),
            },
        })
    }
}

impl fmt::Display for EndpointName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:016x}:{}:{}:{:016x}",
            self.host, self.id.pid, self.id.fd, self.id.nonce
        )
    }
}

impl FromStr for EndpointName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("{s:?} is not an endpoint name (HOST:PID:FD:NONCE)");
        let parts: Vec<&str> = s.split(':').collect();
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
        })
    }
}

/// This host's identity: its kernel boot id, so that names from another machine (or an
/// earlier boot) are never mistaken for local ones.
pub fn this_host() -> u64 {
    static HOST: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *HOST.get_or_init(|| {
        let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
        fnv1a(boot.trim().as_bytes())
    })
}

pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
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
        };
        assert_eq!(EndpointName::from_bytes(&n.to_bytes()), Some(n));
        assert_eq!(n.to_string().parse::<EndpointName>(), Ok(n));
        assert!(EndpointName::from_bytes(&[0; 3]).is_none());
        assert!("1:2:3".parse::<EndpointName>().is_err());
        assert!("zz:1:2:3".parse::<EndpointName>().is_err());
    }
}
