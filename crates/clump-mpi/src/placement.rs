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
    /// This process's host among the clump hosts of its machine, when the machine holds
    /// more than one (virtual hosts, the UDP transport).
    pub host_on_machine: Option<usize>,
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
    let host_leaders: Vec<u32> = parsed.iter().map(|&(l, _)| l).collect();
    Ok(Placement {
        host_on_machine: host_on_machine(&host_leaders, &machines, me as usize),
        host_leaders,
        on_machine,
        machine_index,
    })
}

/// Which of its machine's clump hosts rank `me`'s is (counted in the order of their
/// leaders), or `None` when its machine holds only that host.
fn host_on_machine(leaders: &[u32], machines: &[u64], me: usize) -> Option<usize> {
    let mut hosts: Vec<u32> = (0..leaders.len())
        .filter(|&r| machines[r] == machines[me])
        .map(|r| leaders[r])
        .collect();
    hosts.sort_unstable();
    hosts.dedup();
    if hosts.len() < 2 {
        return None;
    }
    hosts.binary_search(&leaders[me]).ok()
}

/// `MPI_Get_processor_name`: the machine's name, and, where the machine holds several
/// clump hosts, which one, so that programs grouping processes by name find the hosts
/// `MPI_COMM_TYPE_SHARED` finds.
pub fn processor_name(host_on_machine: Option<usize>) -> String {
    let machine = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "localhost".to_string());
    match host_on_machine {
        Some(h) => format!("{machine}.host{h}"),
        None => machine,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_numbered_on_their_machine_only_where_it_holds_several() {
        // One machine, one host: no number.
        assert_eq!(host_on_machine(&[0, 0, 0], &[7, 7, 7], 2), None);
        // Two virtual hosts of ranks 0-1 and 2-3 on one machine.
        let leaders = [0, 0, 2, 2];
        assert_eq!(host_on_machine(&leaders, &[7; 4], 1), Some(0));
        assert_eq!(host_on_machine(&leaders, &[7; 4], 3), Some(1));
        // Two machines of one host each: no number.
        assert_eq!(host_on_machine(&leaders, &[7, 7, 8, 8], 3), None);
        // Every process its own host (the UDP transport).
        assert_eq!(host_on_machine(&[0, 1, 2], &[7; 3], 2), Some(2));
        assert!(processor_name(Some(1)).ends_with(".host1"));
        assert!(!processor_name(None).contains(".host"));
    }
}
