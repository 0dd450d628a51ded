//! The memory of `MPI_Win_allocate_shared`: one region the host's members all map, its
//! guard word first, then each member's part in rank order. By default the parts follow
//! one another with no gap, so a program may index from one member's part into the next
//! (MPI's contiguous default); the hint `alloc_shared_noncontig` starts each part on a
//! page of its own instead. The lowest rank creates the region; the others map it.

use super::super::abi::MPI_ERR_NO_MEM;
use super::super::handles::err;
use super::super::info::hint;
use super::super::wired::Failure;
use super::abi::MPI_ERR_RMA_SHARED;
use super::guard::GUARD_BYTES;
use super::space::Space;
use am::SharedRegion;
use clump_mpi::Comm;

/// Where each part of a non-contiguous window starts: a page of its own.
const PAGE: usize = 4096;

/// The region and where each member's part lies in it.
pub struct Carved {
    pub region: SharedRegion,
    /// Byte offset of each member's part (by communicator rank).
    pub offsets: Vec<usize>,
}

impl Carved {
    /// The address here of member `i`'s part.
    pub fn part(&self, i: usize) -> usize {
        self.region.as_ptr() as usize + self.offsets[i]
    }

    /// The guard word every member's accumulates share.
    pub fn guard(&self) -> usize {
        self.region.as_ptr() as usize
    }
}

/// Whether `info` asks for parts that need not be contiguous.
pub fn noncontig(info: usize) -> Result<bool, Failure> {
    Ok(hint(info, "alloc_shared_noncontig")?.is_some_and(|v| v.eq_ignore_ascii_case("true")))
}

fn words(ws: &[u64]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn word(bytes: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().unwrap())
}

/// Each part's offset after the guard, from the sizes in rank order; and the total.
fn layout(sizes: &[usize], noncontig: bool) -> Option<(Vec<usize>, usize)> {
    let mut at = GUARD_BYTES;
    let mut offsets = Vec::with_capacity(sizes.len());
    for &s in sizes {
        if noncontig {
            at = at.checked_next_multiple_of(PAGE)?;
        }
        offsets.push(at);
        at = at.checked_add(s)?;
    }
    Some((offsets, at))
}

/// Collective over `c`: carves the region for parts of `size` bytes (`None`: this
/// member cannot take part, and every member fails). Every member calls it, also after a
/// failure of its own, so that none waits for another in vain.
pub fn carve(
    space: &Space,
    c: &Comm,
    size: Option<usize>,
    noncontig: bool,
) -> Result<Carved, Failure> {
    let n = c.size() as usize;
    let mine = words(&[
        size.is_some() as u64,
        space.gas.rank() as u64,
        size.unwrap_or(0) as u64,
    ]);
    let all = clump_mpi::allgather(&mine, &vec![mine.len(); n], c).map_err(err)?;
    let me = space.gas.rank();
    let shared = all.iter().all(|m| {
        let r = word(m, 1) as u32;
        r == me || space.gas.is_local(r)
    });
    let sizes: Vec<usize> = all.iter().map(|m| word(m, 2) as usize).collect();
    let planned = layout(&sizes, noncontig);
    let ok = all.iter().all(|m| word(m, 0) != 0) && shared && planned.is_some();
    // The lowest rank creates the region and says where the others find it.
    let made = match (c.rank(), &planned) {
        (0, Some((_, len))) if ok => SharedRegion::create("clump-mpi-shared-window", *len).ok(),
        _ => None,
    };
    let found = made
        .as_ref()
        .and_then(|r| r.fd())
        .map_or([0; 3], |fd| [1, std::process::id() as u64, fd as u64]);
    let at_root = clump_mpi::allgather(&words(&found), &vec![24; n], c).map_err(err)?;
    let region = match (made, word(&at_root[0], 0) != 0) {
        (Some(r), _) => Ok(r),
        (None, true) => {
            let len = planned.as_ref().map_or(0, |p| p.1);
            let (pid, fd) = (word(&at_root[0], 1) as u32, word(&at_root[0], 2) as u32);
            SharedRegion::open(pid, fd, len).map_err(|e| {
                (
                    MPI_ERR_RMA_SHARED,
                    format!("cannot map the shared window: {e}"),
                )
            })
        }
        (None, false) if !shared => Err((
            MPI_ERR_RMA_SHARED,
            "a member of the communicator shares no memory with this process".to_owned(),
        )),
        (None, false) => Err((MPI_ERR_NO_MEM, "no shared window could be made".to_owned())),
    }?;
    // The guard word starts at zero: a new region is zero-filled.
    let (offsets, _) = planned.expect("a region exists only for a layout");
    Ok(Carved { region, offsets })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_follow_each_other_unless_asked_otherwise() {
        let (offsets, len) = layout(&[12, 0, 4, 8], false).unwrap();
        assert_eq!(offsets, [64, 76, 76, 80]);
        assert_eq!(len, 88);
        let (offsets, len) = layout(&[12, 0, 4], true).unwrap();
        assert_eq!(offsets, [4096, 8192, 8192]);
        assert_eq!(len, 8196);
        assert!(layout(&[usize::MAX, 1], false).is_none());
    }
}
