//! The global address space's tunables, `CLUMP_GAS_LOCAL` (how ranks of this host are
//! reached) and `CLUMP_GAS_SEGMENT` (bytes per rank), read through clump's one
//! configuration table (`clump::config::table`), where their defaults and ranges live.

use crate::error::{Error, Result};
use clump::config::table;

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
        let local = match table::choice("CLUMP_GAS_LOCAL").map_err(config_error)? {
            Some("am") => LocalMode::Am,
            _ => LocalMode::Direct,
        };
        let segment_bytes = table::number("CLUMP_GAS_SEGMENT")
            .map_err(config_error)?
            .map_or(DEFAULT_SEGMENT_BYTES, |n| n as usize);
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

fn config_error(e: clump::config::ConfigError) -> Error {
    Error::Config(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_segment_is_the_tables() {
        let d = table::number_in(&|_| None, "CLUMP_GAS_SEGMENT").unwrap();
        assert_eq!(d, Some(DEFAULT_SEGMENT_BYTES as u64));
        let min = table::var("CLUMP_GAS_SEGMENT")
            .check("4K".as_ref())
            .unwrap();
        assert_eq!(min, Some(MIN_SEGMENT_BYTES as u64));
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
