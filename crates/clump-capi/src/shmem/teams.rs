//! Teams: `SHMEM_TEAM_WORLD`, `SHMEM_TEAM_SHARED` (the PEs of this host) and the teams the
//! program splits off them. A team is a group of the global address space; its key, which
//! keeps its collectives apart from every other team's, is derived from its parent's key
//! and how many splits the parent had, which every member computes alike.

use super::abi::{TEAM_INVALID, TEAM_NUM_CONTEXTS, TEAM_SHARED, TEAM_WORLD};
use super::runtime::{dst_slice, gas_err, run, Res, State};
use super::team_set::{mix, Team, TeamConfig};
use clump_gas::Group;
use std::os::raw::{c_int, c_long};
use std::rc::Rc;

impl State {
    pub fn team(&self, h: usize) -> Res<Rc<Group>> {
        self.teams
            .borrow()
            .by_handle
            .get(&h)
            .map(|t| t.group.clone())
            .ok_or_else(|| format!("{h:#x} is not a team of this PE"))
    }

    /// The world PE of member `pe` of team `h`.
    pub fn team_pe(&self, h: usize, pe: c_int) -> Res<u32> {
        let g = self.team(h)?;
        usize::try_from(pe)
            .ok()
            .and_then(|i| g.ranks().get(i).copied())
            .ok_or_else(|| {
                let n = g.size();
                format!(
                    "PE {pe} is out of range (its team has {n} PE{})",
                    if n == 1 { "" } else { "s" }
                )
            })
    }

    pub fn team_members(&self, h: usize) -> Res<Vec<u32>> {
        Ok(self.team(h)?.ranks().to_vec())
    }

    /// The key of the next split of `parent` along `axis` (the same on every member).
    fn split_key(&self, parent: usize, axis: u64) -> Res<u64> {
        let teams = self.teams.borrow();
        let t = teams
            .by_handle
            .get(&parent)
            .ok_or_else(|| format!("{parent:#x} is not a team of this PE"))?;
        let n = t.splits.get();
        t.splits.set(n + 1);
        Ok(mix(&[t.group.key(), n, axis]))
    }

    /// Registers the group of `members` (world ranks) if this PE is one; its handle or 0.
    fn add_team(&self, members: Vec<u32>, key: u64, config: TeamConfig) -> Res<usize> {
        if !members.contains(&self.me()) {
            return Ok(TEAM_INVALID);
        }
        let group = self.gas.borrow().group(members, key).map_err(gas_err)?;
        let h = self.fresh_handle();
        self.teams
            .borrow_mut()
            .by_handle
            .insert(h, Team::new(group, config));
        Ok(h)
    }
}

fn give_team(slot: *mut usize, h: usize) -> Res<()> {
    // SAFETY: `slot` is the C caller's `shmem_team_t *`: one handle's room, or NULL.
    let slot = unsafe { dst_slice(slot.cast(), size_of::<usize>(), "new team")? };
    slot.copy_from_slice(&h.to_ne_bytes());
    Ok(())
}

#[pshmem::twin]
pub extern "C" fn shmem_team_my_pe(team: usize) -> c_int {
    run("shmem_team_my_pe", |s| {
        Ok(s.team(team).map_or(-1, |g| g.index() as c_int))
    })
}

#[pshmem::twin]
pub extern "C" fn shmem_team_n_pes(team: usize) -> c_int {
    run("shmem_team_n_pes", |s| {
        Ok(s.team(team).map_or(-1, |g| g.size() as c_int))
    })
}

impl TeamConfig {
    /// The fields of `config` that `mask` selects; the others keep their defaults.
    fn from_c(config: *const TeamConfig, mask: c_long) -> Res<TeamConfig> {
        if mask & TEAM_NUM_CONTEXTS == 0 {
            return Ok(TeamConfig::default());
        }
        if config.is_null() {
            return Err("config is NULL but config_mask selects fields of it".into());
        }
        // SAFETY: a non-NULL config points at a shmem_team_config_t (shmem.h).
        let given = unsafe { config.read() };
        if given.num_contexts < 0 {
            return Err(format!("num_contexts {} is negative", given.num_contexts));
        }
        Ok(given)
    }
}

#[pshmem::twin]
pub extern "C" fn shmem_team_get_config(
    team: usize,
    mask: c_long,
    config: *mut TeamConfig,
) -> c_int {
    run("shmem_team_get_config", |s| {
        let Some(given) = s.teams.borrow().by_handle.get(&team).map(|t| t.config) else {
            return Ok(-1);
        };
        if mask & TEAM_NUM_CONTEXTS != 0 {
            if config.is_null() {
                return Ok(-1);
            }
            // SAFETY: a non-NULL config points at a shmem_team_config_t (shmem.h).
            unsafe { (*config).num_contexts = given.num_contexts };
        }
        Ok(0)
    })
}

#[pshmem::twin]
pub extern "C" fn shmem_team_translate_pe(
    src_team: usize,
    src_pe: c_int,
    dest_team: usize,
) -> c_int {
    run("shmem_team_translate_pe", |s| {
        let (Ok(rank), Ok(to)) = (s.team_pe(src_team, src_pe), s.team(dest_team)) else {
            return Ok(-1);
        };
        Ok(to
            .ranks()
            .iter()
            .position(|&r| r == rank)
            .map_or(-1, |i| i as c_int))
    })
}

#[pshmem::twin]
pub extern "C" fn shmem_team_split_strided(
    parent: usize,
    start: c_int,
    stride: c_int,
    size: c_int,
    config: *const TeamConfig,
    mask: c_long,
    new_team: *mut usize,
) -> c_int {
    run("shmem_team_split_strided", |s| {
        if parent == TEAM_INVALID {
            give_team(new_team, TEAM_INVALID)?;
            return Ok(-1);
        }
        let g = s.team(parent)?;
        let key = s.split_key(parent, 0)?;
        let config = TeamConfig::from_c(config, mask)?;
        let Some(members) = strided(g.ranks(), start, stride, size) else {
            give_team(new_team, TEAM_INVALID)?;
            return Ok(-1);
        };
        give_team(new_team, s.add_team(members, key, config)?)?;
        Ok(0)
    })
}

/// The members of `ranks` at `start`, `start + stride`, ... (`size` of them), if that is
/// a valid triplet of OpenSHMEM 1.5: every index inside the parent, none twice; the
/// stride may be negative, and zero only for a team of one.
fn strided(ranks: &[u32], start: c_int, stride: c_int, size: c_int) -> Option<Vec<u32>> {
    let (start, stride, size) = (i64::from(start), i64::from(stride), i64::from(size));
    let n = ranks.len() as i64;
    let last = start + stride * (size - 1);
    let inside = |i: i64| (0..n).contains(&i);
    if size < 1 || !inside(start) || !inside(last) || (stride == 0 && size > 1) {
        return None;
    }
    Some(
        (0..size)
            .map(|i| ranks[(start + i * stride) as usize])
            .collect(),
    )
}

#[pshmem::twin]
#[allow(clippy::too_many_arguments)] // OpenSHMEM's signature
pub extern "C" fn shmem_team_split_2d(
    parent: usize,
    xrange: c_int,
    xconfig: *const TeamConfig,
    xmask: c_long,
    xteam: *mut usize,
    yconfig: *const TeamConfig,
    ymask: c_long,
    yteam: *mut usize,
) -> c_int {
    run("shmem_team_split_2d", |s| {
        let x = u32::try_from(xrange).ok().filter(|&x| x > 0);
        let (Some(x), false) = (x, parent == TEAM_INVALID) else {
            give_team(xteam, TEAM_INVALID)?;
            give_team(yteam, TEAM_INVALID)?;
            return Ok(-1);
        };
        let g = s.team(parent)?;
        let (xkey, ykey) = (s.split_key(parent, 1)?, s.split_key(parent, 2)?);
        let (xconfig, yconfig) = (
            TeamConfig::from_c(xconfig, xmask)?,
            TeamConfig::from_c(yconfig, ymask)?,
        );
        let (me, n) = (g.index(), g.size());
        let row: Vec<u32> = (me / x * x..((me / x + 1) * x).min(n))
            .map(|i| g.ranks()[i as usize])
            .collect();
        let column: Vec<u32> = (0..n)
            .filter(|i| i % x == me % x)
            .map(|i| g.ranks()[i as usize])
            .collect();
        give_team(xteam, s.add_team(row, xkey, xconfig)?)?;
        give_team(yteam, s.add_team(column, ykey, yconfig)?)?;
        Ok(0)
    })
}

#[pshmem::twin]
pub extern "C" fn shmem_team_destroy(team: usize) {
    run("shmem_team_destroy", |s| {
        if team == TEAM_INVALID {
            return Ok(()); // the specification's no-op
        }
        if team == TEAM_WORLD || team == TEAM_SHARED {
            return Err("a predefined team cannot be destroyed".into());
        }
        s.team(team)?;
        s.teams.borrow_mut().by_handle.remove(&team);
        s.contexts.borrow_mut().retain(|_, t| *t != team);
        Ok(())
    })
}

#[pshmem::twin]
pub extern "C" fn shmem_team_sync(team: usize) -> c_int {
    run("shmem_team_sync", |s| {
        if team == TEAM_INVALID {
            return Ok(-1);
        }
        let g = s.team(team)?;
        s.gas.borrow().group_barrier(&g).map_err(gas_err)?;
        Ok(0)
    })
}

/// `shmem_sync(team)`, OpenSHMEM 1.5's name for `shmem_team_sync` (`shmem.h` maps the
/// one-argument `shmem_sync` here; the symbol serves programs that call it by address).
#[pshmem::twin]
pub extern "C" fn shmem_sync(team: usize) -> c_int {
    shmem_team_sync(team)
}

#[cfg(test)]
mod tests {
    use super::{mix, strided};

    #[test]
    fn valid_triplets_go_either_way_and_stay_inside() {
        let r = [10, 11, 12, 13];
        assert_eq!(strided(&r, 3, -1, 4), Some(vec![13, 12, 11, 10]));
        assert_eq!(strided(&r, 3, -2, 2), Some(vec![13, 11]));
        assert_eq!(strided(&r, 2, 0, 1), Some(vec![12]));
        assert_eq!(strided(&r, 0, 2, 2), Some(vec![10, 12]));
        assert_eq!(strided(&r, 3, -2, 3), None, "below index 0");
        assert_eq!(strided(&r, 0, 0, 2), None, "one PE twice");
        assert_eq!(strided(&r, 4, 1, 1), None);
        assert_eq!(strided(&r, 0, 1, 0), None);
    }

    #[test]
    fn keys_differ_by_every_word_and_are_never_zero() {
        assert_ne!(mix(&[1, 0, 0]), mix(&[1, 1, 0]));
        assert_ne!(mix(&[1, 0, 1]), mix(&[1, 0, 2]));
        assert_ne!(mix(&[1]), 0);
    }
}
