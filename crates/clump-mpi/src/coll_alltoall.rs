//! `MPI_Alltoall(v)`: rank `i` sends its block `j` to rank `j` and gets block `i` of every
//! rank. On one host in one step through the shared-memory slots: each rank publishes the
//! lengths of its blocks, then the blocks (but the one it keeps), and copies its own block
//! out of every other member's slot. Else by messages, every receive posted first.

use crate::coll::check_lens;
use crate::coll::{cirecv, cisend, cwait, one_host, TAG_ALLTOALL};
use crate::coll_gather::wait_all;
use crate::coll_shm;
use crate::comm::Comm;
use crate::error::{Error, ErrorClass, Result};
use crate::runtime;

/// `MPI_Alltoall(v)` on packed blocks: rank `i` sends `blocks[j]` to rank `j` and gets
/// `recv_lens[j]` bytes from each.
pub fn alltoall(blocks: &[&[u8]], recv_lens: &[usize], comm: &Comm) -> Result<Vec<Vec<u8>>> {
    check_lens(recv_lens, comm)?;
    let mut out: Vec<Vec<u8>> = recv_lens.iter().map(|&l| vec![0u8; l]).collect();
    let mut views: Vec<&mut [u8]> = out.iter_mut().map(Vec::as_mut_slice).collect();
    alltoall_views(blocks, &mut views, comm)?;
    Ok(out)
}

/// `MPI_Alltoall` of contiguous data: block `j` of `send` (a `size`th of it) goes to rank
/// `j`, and block `i` of `recv` comes from rank `i`: no packing, no copy but the exchange.
pub fn alltoall_contiguous(send: &[u8], recv: &mut [u8], comm: &Comm) -> Result<()> {
    let n = comm.size() as usize;
    if !send.len().is_multiple_of(n) || !recv.len().is_multiple_of(n) {
        return Err(Error::new(
            ErrorClass::Count,
            format!(
                "alltoall buffers of {} and {} bytes are no whole number of blocks for {n} ranks",
                send.len(),
                recv.len()
            ),
        ));
    }
    let (sb, rb) = (send.len() / n, recv.len() / n);
    let blocks: Vec<&[u8]> = (0..n).map(|j| &send[j * sb..(j + 1) * sb]).collect();
    let mut views = Vec::with_capacity(n);
    let mut rest = recv;
    for _ in 0..n {
        let (block, tail) = rest.split_at_mut(rb);
        views.push(block);
        rest = tail;
    }
    alltoall_views(&blocks, &mut views, comm)
}

/// `MPI_Alltoall(v)` in place in the program's buffers: rank `i` sends `blocks[j]` to rank
/// `j` and receives into `out[j]` what rank `j` sends it, each exactly as long. Its own
/// block is one copy; nothing is packed or allocated per byte.
pub fn alltoall_views(blocks: &[&[u8]], out: &mut [&mut [u8]], comm: &Comm) -> Result<()> {
    let n = comm.size() as usize;
    if blocks.len() != n || out.len() != n {
        return Err(Error::new(
            ErrorClass::Count,
            format!(
                "{} blocks and {} places for {n} ranks",
                blocks.len(),
                out.len()
            ),
        ));
    }
    if !through_slots(|j| blocks[j], comm, |j, got| place(out[j], j, got))? {
        by_messages(blocks, out, comm)?;
    }
    Ok(())
}

/// Copies the block that came from rank `j` into its place, which must be as long.
fn place(to: &mut [u8], j: usize, block: &[u8]) -> Result<()> {
    if block.len() != to.len() {
        return Err(coll_shm::length_mismatch(j, block.len(), to.len()));
    }
    coll_shm::copy(to, block);
    Ok(())
}

/// In one step through the slots: publishes the lengths of this rank's blocks (`block(j)`
/// for rank `j`), then the blocks one after the other, all but its own (published as
/// empty: this rank takes it from `block` itself), and gives `place(j, block)` this rank's
/// block from each member `j`. False when the slots do not serve `comm` or some member's
/// blocks did not fit.
fn through_slots<'a>(
    block: impl Fn(usize) -> &'a [u8],
    comm: &Comm,
    mut place: impl FnMut(usize, &[u8]) -> Result<()>,
) -> Result<bool> {
    let rt = runtime::get()?;
    if !rt.slots.serve(comm, one_host(comm)?) {
        return Ok(false);
    }
    let (me, n) = (comm.rank() as usize, comm.size() as usize);
    let sent = |j: usize| if j == me { &[][..] } else { block(j) };
    let head: Vec<u8> = (0..n)
        .flat_map(|j| (sent(j).len() as u64).to_le_bytes())
        .collect();
    let mut pieces = Vec::with_capacity(1 + n);
    pieces.push(&head[..]);
    pieces.extend((0..n).map(sent));
    let whole = pieces.iter().map(|p| p.len()).sum();
    coll_shm::exchange(&rt, comm, whole, &pieces, |j, _, data| {
        if j == me {
            return place(j, block(me));
        }
        let got = block_of(data, n, me).ok_or_else(|| {
            Error::new(
                ErrorClass::Count,
                format!("rank {j} has no block for rank {me}: do all ranks pass the same counts?"),
            )
        })?;
        place(j, got)
    })
}

/// By messages: every receive (into `out`) is posted first; the sends go in a rotating
/// order so that no rank is everyone's first target.
fn by_messages(blocks: &[&[u8]], out: &mut [&mut [u8]], comm: &Comm) -> Result<()> {
    let (me, n) = (comm.rank() as usize, comm.size() as usize);
    let mut recvs = Vec::with_capacity(n);
    for (j, buf) in out.iter_mut().enumerate().filter(|&(j, _)| j != me) {
        let want = buf.len();
        // SAFETY: `out` is neither read nor moved until every receive is waited for below.
        recvs.push((j, want, unsafe {
            cirecv(comm, j as i32, TAG_ALLTOALL, buf)?
        }));
    }
    let mut sends = Vec::with_capacity(n);
    for k in 1..n {
        let j = (me + k) % n;
        // SAFETY: `blocks` stays borrowed until every send is waited for below.
        sends.push(unsafe { cisend(comm, j as i32, TAG_ALLTOALL, blocks[j])? });
    }
    wait_all(sends)?;
    for (j, want, mut r) in recvs {
        cwait(&mut r, j as i32, want)?;
    }
    if blocks[me].len() != out[me].len() {
        return Err(Error::new(
            ErrorClass::Count,
            "the block a rank sends itself differs from what it receives",
        ));
    }
    out[me].copy_from_slice(blocks[me]);
    Ok(())
}

/// Block `i` of a contribution laid out as `n` little-endian 64-bit lengths, then the blocks.
fn block_of(data: &[u8], n: usize, i: usize) -> Option<&[u8]> {
    let (lens, blocks) = data.split_at_checked(n.checked_mul(8)?)?;
    let len = |k: usize| -> Option<usize> {
        let word = lens.get(8 * k..8 * k + 8)?.try_into().ok()?;
        usize::try_from(u64::from_le_bytes(word)).ok()
    };
    let start = (0..i).try_fold(0usize, |at, k| at.checked_add(len(k)?))?;
    blocks.get(start..start.checked_add(len(i)?)?)
}

#[cfg(test)]
mod tests {
    use super::block_of;

    #[test]
    fn blocks_are_found_by_their_lengths_and_bad_layouts_refused() {
        let mut data = Vec::new();
        for len in [2u64, 0, 3] {
            data.extend_from_slice(&len.to_le_bytes());
        }
        data.extend_from_slice(b"abxyz");
        assert_eq!(block_of(&data, 3, 0), Some(&b"ab"[..]));
        assert_eq!(block_of(&data, 3, 1), Some(&b""[..]));
        assert_eq!(block_of(&data, 3, 2), Some(&b"xyz"[..]));
        assert_eq!(block_of(&data, 3, 3), None);
        assert_eq!(block_of(&data[..data.len() - 1], 3, 2), None);
        assert_eq!(block_of(&data[..10], 3, 0), None);
    }
}
