//! Remote procedure calls that do not wait for their answer: each is sent and counted, its
//! answer counted off when it comes, and [`Gas::rpc_settle`] waits until every call to a
//! rank (or to all) has been answered. A caller that makes many calls whose answers it
//! does not need one by one (MPI's puts and accumulates to another host, completed by a
//! flush) pays one round trip for all of them instead of one each. Calls from one rank to
//! another run at the target in the order they were posted (each transport delivers a
//! sender's requests in order), so a call made after posted ones sees their effects.

use crate::error::{Error, Result};
use crate::gas::Gas;
use crate::protocol::{RpcId, H_RPC_POSTED, STATUS_OK};
use crate::shared::Answer;

impl Gas {
    /// Runs function `id` on `rank` with `arg`, without waiting for it (counted in the
    /// statistics with an empty answer when it leaves). An empty result is only counted
    /// off; any other (or a failure) is kept for [`Gas::rpc_settle`]. A call that comes
    /// back undelivered is counted off and ends the next wait with its error.
    pub fn rpc_post(&self, rank: u32, id: RpcId, arg: &[u8]) -> Result<()> {
        self.check_rpc(rank, arg)?;
        // Counted before it leaves: the answer may come within the send (it polls).
        self.shared.posted_to(rank, 1);
        let sent = self
            .spmd
            .ep
            .request_medium(rank, H_RPC_POSTED, &[id.0, self.rank(), rank], arg);
        if let Err(e) = sent {
            self.shared.posted_to(rank, -1);
            return Err(e.into());
        }
        self.count_exchange(rank, arg.len(), 0);
        Ok(())
    }

    /// Waits until every call posted to `rank` (to any rank when `None`) has been
    /// answered; the non-empty results of those calls, in the order they came. A call
    /// that failed at its target ends the settle with its error.
    pub fn rpc_settle(&self, rank: Option<u32>) -> Result<Vec<Vec<u8>>> {
        let s = &self.shared;
        self.wait_until(|| s.posted_outstanding(rank) == 0)?;
        let mut kept = s.posted_answers.borrow_mut();
        if kept.is_empty() {
            return Ok(Vec::new());
        }
        let (mine, others): (Vec<Answer>, Vec<Answer>) = std::mem::take(&mut *kept)
            .into_iter()
            .partition(|a| rank.is_none_or(|r| r == a.0));
        *kept = others;
        drop(kept);
        let mut out = Vec::with_capacity(mine.len());
        for (from, status, bytes) in mine {
            if status != STATUS_OK {
                return Err(Error::Rpc(format!(
                    "a call posted to rank {from} failed (status {status})"
                )));
            }
            out.push(bytes);
        }
        Ok(out)
    }
}
