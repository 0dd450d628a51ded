//! Which host each rank runs on (`--map-by slot|node`, `--oversubscribe`).

use super::hostfile::Host;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapBy {
    /// Fill each host's slots before the next host (ranks of a host are consecutive).
    Slot,
    /// One rank per host in turn (round robin), skipping hosts whose slots are full.
    Node,
}

/// The host index of every rank. Ranks beyond the slots need `oversubscribe`; they go
/// round robin over the hosts whose `max_slots` leaves room.
pub fn map(hosts: &[Host], np: u32, by: MapBy, oversubscribe: bool) -> Result<Vec<u32>, String> {
    let slots: u64 = hosts.iter().map(|h| h.slots as u64).sum();
    if np as u64 > slots && !oversubscribe {
        return Err(format!(
            "{np} processes but only {slots} slots on {} host{}: add slots, or pass \
             --oversubscribe to place more processes than slots",
            hosts.len(),
            if hosts.len() == 1 { "" } else { "s" }
        ));
    }
    let mut placed = vec![0u32; hosts.len()];
    let mut out = Vec::with_capacity(np as usize);
    match by {
        MapBy::Slot => {
            for (i, h) in hosts.iter().enumerate() {
                while placed[i] < h.slots && out.len() < np as usize {
                    placed[i] += 1;
                    out.push(i as u32);
                }
            }
        }
        MapBy::Node => round_robin(&mut out, np, &mut placed, |i| hosts[i].slots),
    }
    round_robin(&mut out, np, &mut placed, |i| {
        hosts[i].max_slots.unwrap_or(u32::MAX)
    });
    if out.len() < np as usize {
        let most: u64 = hosts
            .iter()
            .map(|h| h.max_slots.unwrap_or(h.slots) as u64)
            .sum();
        return Err(format!(
            "{np} processes but the hosts' max_slots allow only {most}"
        ));
    }
    Ok(out)
}

/// Adds ranks one per host in turn while some host has fewer than `limit(host)`.
fn round_robin(out: &mut Vec<u32>, np: u32, placed: &mut [u32], limit: impl Fn(usize) -> u32) {
    while out.len() < np as usize {
        let before = out.len();
        for (i, n) in placed.iter_mut().enumerate() {
            if out.len() < np as usize && *n < limit(i) {
                *n += 1;
                out.push(i as u32);
            }
        }
        if out.len() == before {
            return;
        }
    }
}

/// Each rank's index among the ranks started on the same machine, in rank order: the
/// core `--bind-to core` gives it (modulo the machine's cores). `machine_of` is the
/// machine of each rank (virtual hosts of this machine are one machine).
pub fn local_indices(machine_of: &[u32]) -> Vec<u32> {
    let mut seen = std::collections::HashMap::new();
    machine_of
        .iter()
        .map(|m| {
            let n = seen.entry(*m).or_insert(0u32);
            *n += 1;
            *n - 1
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(slots: &[(u32, Option<u32>)]) -> Vec<Host> {
        slots
            .iter()
            .enumerate()
            .map(|(i, &(slots, max_slots))| Host {
                name: format!("h{i}"),
                slots,
                max_slots,
            })
            .collect()
    }

    #[test]
    fn by_slot_fills_each_host_in_turn() {
        let h = hosts(&[(2, None), (3, None), (1, None)]);
        assert_eq!(map(&h, 6, MapBy::Slot, false).unwrap(), [0, 0, 1, 1, 1, 2]);
        assert_eq!(map(&h, 3, MapBy::Slot, false).unwrap(), [0, 0, 1]);
    }

    #[test]
    fn by_node_goes_round_robin_over_free_slots() {
        let h = hosts(&[(2, None), (3, None), (1, None)]);
        assert_eq!(map(&h, 6, MapBy::Node, false).unwrap(), [0, 1, 2, 0, 1, 1]);
        assert_eq!(map(&h, 2, MapBy::Node, false).unwrap(), [0, 1]);
    }

    #[test]
    fn more_ranks_than_slots_need_oversubscribe_within_max_slots() {
        let h = hosts(&[(1, Some(2)), (1, None)]);
        let e = map(&h, 3, MapBy::Slot, false).unwrap_err();
        assert!(e.contains("3 processes but only 2 slots on 2 hosts"), "{e}");
        assert!(e.contains("--oversubscribe"), "{e}");
        assert_eq!(map(&h, 5, MapBy::Slot, true).unwrap(), [0, 1, 0, 1, 1]);
        let capped = hosts(&[(1, Some(1)), (1, Some(2))]);
        assert_eq!(map(&capped, 3, MapBy::Node, true).unwrap(), [0, 1, 1]);
        let e = map(&capped, 4, MapBy::Node, true).unwrap_err();
        assert!(e.contains("max_slots allow only 3"), "{e}");
    }

    #[test]
    fn local_indices_count_per_machine() {
        assert_eq!(local_indices(&[0, 1, 0, 2, 1, 0]), [0, 0, 1, 0, 1, 2]);
    }
}
