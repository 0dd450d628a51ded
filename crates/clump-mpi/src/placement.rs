//! Where the processes of the job run, learned once at `init`: which ranks share a host
//! in clump's sense (shared memory between them: what collectives combine first), and
//! which share a machine (one kernel and its cores: what binding to cores must count;
//! virtual hosts and the UDP transport put several clump hosts on one machine).

use std::hash::{Hash, Hasher};

use clump::spmd::Spmd;

use crate::error::{Error, ErrorClass, Result};

pub struct Placement {
    /// The rank that leads each rank's host: the lowest one it reaches by shared memory.
    pub host_leaders: Vec<u32>,
    /// Processes of the job on this machine, and this one's place among them.
    pub on_machine: usize,
    pub machine_index: usize,
}

/// This machine's identity: its kernel's boot id (the same in every container of one
/// kernel, which share its cores), else its host name.
fn machine_id() -> u64 {
    let text = std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .or_else(|_| std::fs::read_to_string("/proc/sys/kernel/hostname"))
        .unwrap_or_default();
    // A fixed-key hash: every process computes the same value for the same text.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.trim().hash(&mut h);
    h.finish()
}

/// Every rank's host leader and machine, traded among all ranks.
pub fn learn(spmd: &mut Spmd) -> Result<Placement> {
    let me = spmd.rank();
    let leader = (0..me).find(|&r| spmd.ep.is_local(r)).unwrap_or(me);
    let mut mine = leader.to_ne_bytes().to_vec();
    mine.extend(machine_id().to_ne_bytes());
    let all = spmd.allgather(&mine)?;
    let parsed: Vec<(u32, u64)> = all
        .iter()
        .map(|b| match b.as_slice() {
            [l @ .., m0, m1, m2, m3, m4, m5, m6, m7] if l.len() == 4 => Ok((
                u32::from_ne_bytes(l.try_into().expect("4 bytes")),
                u64::from_ne_bytes([*m0, *m1, *m2, *m3, *m4, *m5, *m6, *m7]),
            )),
            _ => Err(Error::new(
                ErrorClass::Intern,
                "a placement record of the wrong length",
            )),
        })
        .collect::<Result<_>>()?;
    let machine = parsed[me as usize].1;
    let same = |&&(_, m): &&(u32, u64)| m == machine;
    Ok(Placement {
        host_leaders: parsed.iter().map(|&(l, _)| l).collect(),
        on_machine: parsed.iter().filter(same).count(),
        machine_index: parsed[..me as usize].iter().filter(same).count(),
    })
}
