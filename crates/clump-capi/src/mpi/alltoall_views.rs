//! An Alltoall(v) in the program's own buffers: when both types are contiguous and the
//! blocks lie apart, each block is a slice of the C buffer, so clump-mpi sends from and
//! receives into them directly, with no packed copy of either side.

use super::buffers::is_in_place;
use super::handles::{datatype, Handle};
use super::wired::Failure;
use clump_mpi::Datatype;
use std::os::raw::c_void;

/// The send blocks to read and the receive blocks to write.
pub type Views<'a> = (Vec<&'a [u8]>, Vec<&'a mut [u8]>);

/// The blocks of an Alltoall(v) (counts and displacements in elements) as slices of the
/// program's buffers; `None` where packing must serve: `MPI_IN_PLACE`, a non-contiguous
/// type, receive blocks that overlap one another or the send blocks (which the standard
/// forbids, but a slice must not assume), or addresses that overflow.
#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub fn views<'a>(
    sbuf: *const c_void,
    scounts: &[usize],
    sdispls: &[usize],
    st: Handle,
    rbuf: *mut c_void,
    rcounts: &[usize],
    rdispls: &[usize],
    rt: Handle,
) -> Result<Option<Views<'a>>, Failure> {
    if is_in_place(sbuf) {
        return Ok(None);
    }
    let (sdt, rdt) = (datatype(st)?, datatype(rt)?);
    if !sdt.is_contiguous() || !rdt.is_contiguous() {
        return Ok(None);
    }
    let (Some(sent), Some(got)) = (
        ranges(sbuf, scounts, sdispls, &sdt),
        ranges(rbuf, rcounts, rdispls, &rdt),
    ) else {
        return Ok(None);
    };
    if !apart(&sent, &got) {
        return Ok(None);
    }
    let blocks = sent
        .iter()
        .map(|&(at, len)| match len {
            0 => &[][..],
            // SAFETY: mpi.h's contract: block j of the send buffer is scounts[j] elements
            // of a contiguous type at displacement sdispls[j], readable for the call; no
            // receive block overlaps it (checked above). An empty block is no slice of
            // the program's memory.
            _ => unsafe { std::slice::from_raw_parts(at as *const u8, len) },
        })
        .collect();
    let places = got
        .iter()
        .map(|&(at, len)| match len {
            0 => &mut [][..],
            // SAFETY: likewise each receive block is writable for the call, and none
            // overlaps another or any send block (checked above): these slices alias
            // nothing.
            _ => unsafe { std::slice::from_raw_parts_mut(at as *mut u8, len) },
        })
        .collect();
    Ok(Some((blocks, places)))
}

/// Each block's (address, bytes); `None` when one overflows or lies at NULL.
fn ranges(
    buf: *const c_void,
    counts: &[usize],
    displs: &[usize],
    dt: &Datatype,
) -> Option<Vec<(usize, usize)>> {
    let extent = usize::try_from(dt.extent()).ok()?;
    counts
        .iter()
        .zip(displs)
        .map(|(&n, &d)| {
            let len = n.checked_mul(dt.size())?;
            if len == 0 {
                return Some((0, 0));
            }
            let at = (buf as usize).checked_add(d.checked_mul(extent)?)?;
            (!buf.is_null() && at.checked_add(len).is_some()).then_some((at, len))
        })
        .collect()
}

/// Whether no receive block overlaps another receive block or the span of the send
/// blocks (the span, not each block: linear, and separate buffers always pass).
fn apart(sent: &[(usize, usize)], got: &[(usize, usize)]) -> bool {
    let mut got: Vec<(usize, usize)> = got.iter().copied().filter(|&(_, l)| l > 0).collect();
    got.sort_unstable();
    let disjoint = got.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0);
    let nonempty = sent.iter().filter(|&&(_, l)| l > 0);
    let lo = nonempty
        .clone()
        .map(|&(a, _)| a)
        .min()
        .unwrap_or(usize::MAX);
    let hi = nonempty.map(|&(a, l)| a + l).max().unwrap_or(0);
    disjoint && got.iter().all(|&(a, l)| a + l <= lo || hi <= a)
}

#[cfg(test)]
mod tests {
    use super::apart;

    #[test]
    fn overlapping_receive_blocks_or_a_send_block_inside_one_are_not_apart() {
        let sent = [(100, 10), (100, 10), (0, 0)];
        assert!(apart(&sent, &[(200, 8), (208, 8), (0, 0)]));
        assert!(!apart(&sent, &[(200, 8), (204, 8)]));
        assert!(!apart(&sent, &[(105, 2)]));
        assert!(!apart(&sent, &[(90, 11)]));
        assert!(apart(&sent, &[(90, 10), (110, 1)]));
    }
}
