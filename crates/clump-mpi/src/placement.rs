//! Where the processes of the job run, learned once at `init`: which ranks share a host
//! in clump's sense (shared memory between them: what collectives combine first), and
//! which share a machine (one kernel and its cores: what binding to cores must count;
//! virtual hosts and the UDP transport put several clump hosts on one machine).

use clump::spmd::Spmd;

use crate::error::{Error, ErrorClass, Result};

pub struct Placement {
    /// The rank that leads each rank's host: the lowest one it reaches by shared memory.
    pub host_leaders: Vec<u32>,
    /// Processes of the job on this machine, and this one's place among them.
    pub on_machine: usize,
    pub machine_index: usize,
}

/// Every rank's host leader and machine, traded among all ranks.
pub fn learn(spmd: &mut Spmd) -> Result<Placement> {
    let me = spmd.rank();
    let leader = (0..me).find(|&r| spmd.ep.is_local(r)).unwrap_or(me);
    let mut mine = leader.to_ne_bytes().to_vec();
    mine.extend(clump::cpu::machine_id().to_ne_bytes());
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
    let machines: Vec<u64> = parsed.iter().map(|&(_, m)| m).collect();
    let (on_machine, machine_index) = clump::cpu::place_on_machine(&machines, me as usize);
    Ok(Placement {
        host_leaders: parsed.iter().map(|&(l, _)| l).collect(),
        on_machine,
        machine_index,
    })
}
