//! The global address space's tunables, `CLUMP_GAS_LOCAL` (how ranks of this host are
//! reached) and `CLUMP_GAS_SEGMENT` (bytes per rank), read through clump's one
//! configuration (`clump::config::layers`, after its table of defaults and ranges).

use crate::error::{Error, Result};
pub use clump::config::layers::GasVars;

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
        GasConfig::of(&GasVars::from_env().map_err(config_error)?)
    }

    /// The configuration `vars` (read by clump's configuration) describe.
    pub fn of(vars: &GasVars) -> Result<GasConfig> {
        GasConfig {
            segment_bytes: vars.segment_bytes,
            local: if vars.local_am {
                LocalMode::Am
            } else {
                LocalMode::Direct
            },
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
        let vars = GasVars::from_lookup(&|_| None).unwrap();
        assert_eq!(vars.segment_bytes, DEFAULT_SEGMENT_BYTES);
        assert_eq!(GasConfig::of(&vars).unwrap().local, LocalMode::Direct);
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
