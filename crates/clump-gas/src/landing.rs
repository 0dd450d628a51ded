//! Blocking reads from a rank reached by messages. The bytes come as Active Message gets of
//! up to 1 MiB, which the transport carries as one message each and lands straight in this
//! rank's segment, in the landing area past the part `alloc` hands out; each piece is then
//! copied once into the caller's buffer. (Reads used to come back as 64 KiB medium replies:
//! per piece the target copied the bytes twice into fresh buffers and the reader twice more
//! before its own copy, and a 1 MiB read over UDP ran at 0.1-0.3x an AM long of 1 MiB.)

use crate::error::Result;
use crate::gas::Gas;
use crate::protocol::{H_LANDED, LANDING_PIECE as PIECE, LANDING_SLOTS as SLOTS};

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
        let slot_at = |piece: usize| self.segment_len + (piece % SLOTS) * PIECE;
        let mut pieces = dst.chunks_mut(PIECE).enumerate();
        // (request, piece, its bytes) of the gets in flight, oldest first.
        let mut flight = std::collections::VecDeque::with_capacity(SLOTS);
        loop {
            // A slot is free once the piece `SLOTS` before the next has been copied out.
            while flight.len() < SLOTS {
                let Some((i, piece)) = pieces.next() else {
                    break;
                };
                let req = self.fresh_request();
                let from = offset + i * PIECE;
                self.spmd
                    .ep
                    .get(rank, H_LANDED, &[req], from, piece.len(), slot_at(i))?;
                self.count_exchange(rank, 0, piece.len());
                flight.push_back((req, i, piece));
            }
            let Some((req, i, piece)) = flight.pop_front() else {
                return Ok(());
            };
            self.await_status(req)?;
            self.spmd.ep.read_segment(slot_at(i), piece)?;
        }
    }
}
