//! The upper layers' variables (`CLUMP_GAS_*`, `SHMEM_*`, `CLUMP_MPI_*`), read and checked
//! here against the table, so that each layer starts from typed settings and no crate
//! but this module reads the environment for its configuration.

use super::table::{choice_in, number_in};
use super::ConfigError;
use std::ffi::OsString;

/// The global address space's variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GasVars {
    /// `CLUMP_GAS_LOCAL=am`: ranks of this host are reached by Active Messages, not
    /// through their mapped segment.
    pub local_am: bool,
    /// `CLUMP_GAS_SEGMENT`, or its default.
    pub segment_bytes: usize,
    /// Whether `CLUMP_GAS_SEGMENT` was set (a layer with a larger default of its own
    /// keeps to what the user said).
    pub segment_given: bool,
}

/// OpenSHMEM's variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShmemVars {
    /// The symmetric heap's bytes per PE the user asked for: `SHMEM_SYMMETRIC_SIZE`, else
    /// `CLUMP_GAS_SEGMENT`; `None` when neither is set.
    pub heap_bytes: Option<usize>,
    /// `CLUMP_SHMEM_BIND=core` (not the default: see README, OpenSHMEM).
    pub bind: bool,
}

/// MPI's variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MpiVars {
    /// `CLUMP_MPI_EAGER_SHM`: largest message sent eagerly to a peer on this host.
    pub eager_shm: usize,
    /// `CLUMP_MPI_EAGER_NET`: largest message sent eagerly to a peer on another host.
    pub eager_net: usize,
    /// `CLUMP_MPI_UNEXPECTED_BYTES`: bound on the unexpected eager bytes held.
    pub unexpected_bytes: usize,
    /// `CLUMP_MPI_SHM_COLL`: size of the shared-memory collective slots (0: none).
    pub shm_coll: usize,
    /// `CLUMP_MPI_SPIN_US`; `None`: chosen at init by the cores.
    pub spin_us: Option<usize>,
    /// `CLUMP_MPI_BIND=core`.
    pub bind: bool,
    /// `CLUMP_MPI_SINGLE_COPY=1`.
    pub single_copy: bool,
}

type Lookup<'a> = &'a dyn Fn(&str) -> Option<OsString>;

fn env(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

/// A variable the table gives a default: its value.
fn given(lookup: Lookup, name: &'static str) -> Result<usize, ConfigError> {
    let v = number_in(&lookup, name)?;
    Ok(v.unwrap_or_else(|| panic!("the table gives {name} a default")) as usize)
}

impl GasVars {
    pub fn from_env() -> Result<GasVars, ConfigError> {
        GasVars::from_lookup(&env)
    }

    pub fn from_lookup(lookup: Lookup) -> Result<GasVars, ConfigError> {
        Ok(GasVars {
            local_am: choice_in(&lookup, "CLUMP_GAS_LOCAL")? == Some("am"),
            segment_bytes: given(lookup, "CLUMP_GAS_SEGMENT")?,
            segment_given: lookup("CLUMP_GAS_SEGMENT").is_some(),
        })
    }
}

impl ShmemVars {
    pub fn from_env() -> Result<ShmemVars, ConfigError> {
        ShmemVars::from_lookup(&env)
    }

    pub fn from_lookup(lookup: Lookup) -> Result<ShmemVars, ConfigError> {
        let gas = GasVars::from_lookup(lookup)?;
        let symmetric = number_in(&lookup, "SHMEM_SYMMETRIC_SIZE")?.map(|n| n as usize);
        Ok(ShmemVars {
            heap_bytes: symmetric.or(gas.segment_given.then_some(gas.segment_bytes)),
            bind: choice_in(&lookup, "CLUMP_SHMEM_BIND")? == Some("core"),
        })
    }
}

impl MpiVars {
    pub fn from_env() -> Result<MpiVars, ConfigError> {
        MpiVars::from_lookup(&env)
    }

    pub fn from_lookup(lookup: Lookup) -> Result<MpiVars, ConfigError> {
        Ok(MpiVars {
            eager_shm: given(lookup, "CLUMP_MPI_EAGER_SHM")?,
            eager_net: given(lookup, "CLUMP_MPI_EAGER_NET")?,
            unexpected_bytes: given(lookup, "CLUMP_MPI_UNEXPECTED_BYTES")?,
            shm_coll: given(lookup, "CLUMP_MPI_SHM_COLL")?,
            spin_us: number_in(&lookup, "CLUMP_MPI_SPIN_US")?.map(|n| n as usize),
            bind: choice_in(&lookup, "CLUMP_MPI_BIND")? != Some("none"),
            single_copy: given(lookup, "CLUMP_MPI_SINGLE_COPY")? != 0,
        })
    }
}

/// Whether this process was started by a launcher that names its rank (`CLUMP_RANK`
/// set), as AMUDP's workers are.
pub fn launched() -> bool {
    env("CLUMP_RANK").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn each_layer_gets_its_defaults_and_its_values() {
        let mpi = MpiVars::from_lookup(&with(&[])).unwrap();
        assert_eq!((mpi.eager_shm, mpi.spin_us, mpi.bind, mpi.single_copy), (16 << 10, None, true, true));
        let mpi = MpiVars::from_lookup(&with(&[
            ("CLUMP_MPI_BIND", "none"),
            ("CLUMP_MPI_SINGLE_COPY", "0"),
            ("CLUMP_MPI_SPIN_US", "7"),
        ]))
        .unwrap();
        assert_eq!((mpi.spin_us, mpi.bind, mpi.single_copy), (Some(7), false, false));
        let gas = GasVars::from_lookup(&with(&[])).unwrap();
        assert_eq!((gas.local_am, gas.segment_bytes, gas.segment_given), (false, 64 << 20, false));
        let default = ShmemVars::from_lookup(&with(&[])).unwrap();
        assert_eq!((default.heap_bytes, default.bind), (None, false));
        assert!(ShmemVars::from_lookup(&with(&[("CLUMP_SHMEM_BIND", "core")])).unwrap().bind);
        let shmem = ShmemVars::from_lookup(&with(&[("CLUMP_GAS_SEGMENT", "1M"), ("CLUMP_GAS_LOCAL", "am")]));
        assert_eq!(shmem.unwrap().heap_bytes, Some(1 << 20));
        let shmem = ShmemVars::from_lookup(&with(&[("CLUMP_GAS_SEGMENT", "1M"), ("SHMEM_SYMMETRIC_SIZE", "2M")]));
        assert_eq!(shmem.unwrap().heap_bytes, Some(2 << 20));
    }

    #[test]
    fn bad_values_are_errors_naming_the_variable() {
        for (name, value) in [
            ("CLUMP_MPI_BIND", "cores"),
            ("CLUMP_MPI_SINGLE_COPY", "2"),
            ("CLUMP_MPI_EAGER_SHM", "1G"),
        ] {
            let lookup = move |n: &str| (n == name).then(|| OsString::from(value));
            let e = MpiVars::from_lookup(&lookup).unwrap_err();
            assert_eq!(e.name, name);
        }
        let lookup = |n: &str| (n == "SHMEM_SYMMETRIC_SIZE").then(|| OsString::from("lots"));
        assert_eq!(ShmemVars::from_lookup(&lookup).unwrap_err().name, "SHMEM_SYMMETRIC_SIZE");
    }
}
