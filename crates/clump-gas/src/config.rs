//! Every tunable of the global address space, read from the environment in this one place.
//!
//! - `CLUMP_GAS_LOCAL` = `direct` (default) | `am`: same-host accesses go straight through
//!   the peer's mapped segment (one copy, no message), or as Active Messages (Split-C's way).
//! - `CLUMP_GAS_SEGMENT` = bytes per rank of the global segment (suffix K, M or G allowed;
//!   default 64M, at least 4K, at most 1G).

use crate::error::{Error, Result};

/// How accesses to a rank on this host travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalMode {
    Direct,
    Am,
}

#[derive(Clone, Copy, Debug)]
pub struct GasConfig {
    pub segment_bytes: usize,
    pub local: LocalMode,
}

pub const DEFAULT_SEGMENT_BYTES: usize = 64 << 20;
const MIN_SEGMENT_BYTES: usize = 4 << 10;
const MAX_SEGMENT_BYTES: usize = 1 << 30;

impl GasConfig {
    pub fn from_env() -> Result<GasConfig> {
        let local = match std::env::var("CLUMP_GAS_LOCAL").ok().as_deref() {
            None | Some("direct") => LocalMode::Direct,
            Some("am") => LocalMode::Am,
            Some(other) => {
                return Err(Error::Config(format!(
                    "CLUMP_GAS_LOCAL={other}: expected direct or am"
                )))
            }
        };
        let segment_bytes = match std::env::var("CLUMP_GAS_SEGMENT").ok() {
            None => DEFAULT_SEGMENT_BYTES,
            Some(v) => parse_bytes(&v)
                .ok_or_else(|| Error::Config(format!("CLUMP_GAS_SEGMENT={v}: not a size")))?,
        };
        GasConfig {
            segment_bytes,
            local,
        }
        .checked()
    }

    pub(crate) fn checked(self) -> Result<GasConfig> {
        if !(MIN_SEGMENT_BYTES..=MAX_SEGMENT_BYTES).contains(&self.segment_bytes) {
            return Err(Error::Config(format!(
                "segment of {} bytes: must lie in {MIN_SEGMENT_BYTES}..={MAX_SEGMENT_BYTES}",
                self.segment_bytes
            )));
        }
        Ok(self)
    }
}

/// A byte count with an optional K, M or G suffix (`64M`), as the segment size is given.
pub fn parse_bytes(v: &str) -> Option<usize> {
    let (digits, shift) = match v.as_bytes().last()? {
        b'K' | b'k' => (&v[..v.len() - 1], 10),
        b'M' | b'm' => (&v[..v.len() - 1], 20),
        b'G' | b'g' => (&v[..v.len() - 1], 30),
        _ => (v, 0),
    };
    digits.parse::<usize>().ok()?.checked_mul(1 << shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_suffixes() {
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("8K"), Some(8192));
        assert_eq!(parse_bytes("2M"), Some(2 << 20));
        assert_eq!(parse_bytes("1G"), Some(1 << 30));
        assert_eq!(parse_bytes("x"), None);
        assert_eq!(parse_bytes(""), None);
    }

    #[test]
    fn out_of_range_segment_is_refused() {
        let tiny = GasConfig {
            segment_bytes: 16,
            local: LocalMode::Direct,
        };
        assert!(tiny.checked().is_err());
    }
}
