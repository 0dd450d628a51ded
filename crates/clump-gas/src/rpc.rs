//! Remote procedure calls: a function registered on every rank runs at the target in a
//! message handler; its result comes back as the reply.

use crate::error::{Error, Result};
use crate::gas::Gas;
use crate::protocol::RpcContext;
use crate::protocol::{RpcId, H_RPC, STATUS_NO_SUCH_RPC, STATUS_OK, STATUS_RESULT_TOO_LARGE};
use std::rc::Rc;

impl Gas {
    /// Collective: every rank registers the same functions in the same order. A function
    /// runs inside a handler, so it must not block on the network itself. Argument and
    /// result are at most `clump::MAX_MEDIUM` bytes.
    pub fn register_rpc(
        &mut self,
        f: impl Fn(&RpcContext, &[u8]) -> Vec<u8> + 'static,
    ) -> Result<RpcId> {
        let id = {
            let mut rpcs = self.shared.rpcs.borrow_mut();
            rpcs.push(Rc::new(f));
            RpcId(rpcs.len() as u32 - 1)
        };
        // No rank calls the function before every rank has it.
        self.barrier()?;
        Ok(id)
    }

    /// Runs function `id` on `rank` with `arg`; returns its result.
    pub fn rpc(&self, rank: u32, id: RpcId, arg: &[u8]) -> Result<Vec<u8>> {
        self.check_rpc(rank, arg)?;
        let req = self.fresh_request();
        self.spmd
            .ep
            .request_medium(rank, H_RPC, &[req, id.0, self.rank()], arg)?;
        self.count_message(rank, arg.len());
        let (status, bytes) = self.await_status(req)?;
        self.count_message(rank, bytes.len());
        match status {
            STATUS_OK => Ok(bytes),
            STATUS_NO_SUCH_RPC => Err(Error::Rpc(format!("rank {rank} has no function {}", id.0))),
            STATUS_RESULT_TOO_LARGE => Err(Error::Rpc(format!(
                "the result exceeds {} bytes",
                clump::MAX_MEDIUM
            ))),
            s => Err(Error::Rpc(format!("status {s}"))),
        }
    }

    /// Checks a call's target rank and argument size (for [`Gas::rpc`] and `rpc_post`).
    pub(crate) fn check_rpc(&self, rank: u32, arg: &[u8]) -> Result<()> {
        self.check_rank(rank)?;
        if arg.len() > clump::MAX_MEDIUM {
            return Err(Error::BadSize(format!(
                "rpc argument of {} bytes exceeds {}",
                arg.len(),
                clump::MAX_MEDIUM
            )));
        }
        Ok(())
    }
}
