//! Blocking reads from a rank reached by messages. The bytes come as Active Message gets,
//! which the transport carries as one message of any size and lands straight in this
//! rank's segment, in the landing area past the part `alloc` hands out; each piece is then
//! copied once into the caller's buffer. (Reads used to come back as 64 KiB medium replies:
//! per piece the target copied the bytes twice into fresh buffers and the reader twice more
//! before its own copy, and a 1 MiB read over UDP ran at 0.1-0.3x an AM long of 1 MiB.)

use crate::error::Result;
use crate::gas::Gas;
use crate::protocol::H_LANDED;

/// Bytes of the landing area, at the end of every rank's segment: the largest piece one
/// get brings. A read of more comes in pieces of this size, one after the other.
pub(crate) const LANDING_BYTES: usize = 1 << 20;

impl Gas {
    /// Copies `dst.len()` bytes at `offset` of `rank`'s segment into `dst`.
    pub(crate) fn read_by_messages(&self, rank: u32, offset: usize, dst: &mut [u8]) -> Result<()> {
        // One reader at a time owns the landing area: a thread of a process whose calls are
        // shared waits here while another's read is in flight (its wait lets the lock go).
        let busy = &self.landing_busy;
        self.wait_until(|| !busy.get())?;
        busy.set(true);
        let read = self.read_pieces(rank, offset, dst);
        busy.set(false);
        read
    }

    fn read_pieces(&self, rank: u32, offset: usize, dst: &mut [u8]) -> Result<()> {
        let landing = self.segment_len;
        for (i, piece) in dst.chunks_mut(LANDING_BYTES).enumerate() {
            let req = self.fresh_request();
            let from = offset + i * LANDING_BYTES;
            self.spmd
                .ep
                .get(rank, H_LANDED, &[req], from, piece.len(), landing)?;
            self.count_exchange(rank, 0, piece.len());
            self.await_status(req)?;
            self.spmd.ep.read_segment(landing, piece)?;
        }
        Ok(())
    }
}
