//! The teams of this PE by handle: `SHMEM_TEAM_WORLD`, `SHMEM_TEAM_SHARED` and those split
//! off them (the calls on them are teams.rs's).

use super::abi::{TEAM_SHARED, TEAM_WORLD};
use super::res::{gas_err, Res};
use clump_gas::{Gas, Group};
use std::cell::Cell;
use std::collections::HashMap;
use std::os::raw::c_int;
use std::rc::Rc;

/// `shmem_team_config_t`: the one field of OpenSHMEM 1.5.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct TeamConfig {
    pub num_contexts: c_int,
}

pub struct Team {
    pub group: Rc<Group>,
    pub(super) splits: Cell<u64>,
    /// What the team was created with, as `shmem_team_get_config` returns it.
    pub(super) config: TeamConfig,
}

pub struct Teams {
    pub(super) by_handle: HashMap<usize, Team>,
}

/// Mixes words into a group key (splitmix64 steps); never 0, the world's own key.
pub fn mix(words: &[u64]) -> u64 {
    let k = words.iter().fold(0x5348_4d45_4d00_0000u64, |h, &w| {
        let mut z = (h ^ w).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    });
    k.max(1)
}

impl Team {
    pub(super) fn new(group: Group, config: TeamConfig) -> Team {
        Team {
            group: Rc::new(group),
            splits: Cell::new(0),
            config,
        }
    }
}

impl Teams {
    pub fn new(gas: &Gas) -> Res<Teams> {
        let n = gas.size();
        let world = gas.group((0..n).collect(), mix(&[1])).map_err(gas_err)?;
        let here = (0..n)
            .filter(|&r| gas.is_local(r) || r == gas.rank())
            .collect();
        let shared = gas.group(here, mix(&[2])).map_err(gas_err)?;
        Ok(Teams {
            by_handle: HashMap::from([
                (TEAM_WORLD, Team::new(world, TeamConfig::default())),
                (TEAM_SHARED, Team::new(shared, TeamConfig::default())),
            ]),
        })
    }
}
