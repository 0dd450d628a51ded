//! A segment in the program's own memory (AM-II's `AM_SetSeg` on memory the program
//! owns): the layer neither moves nor remaps it, and touches no byte outside it. Peers on
//! this host reach it by cross-memory attach, peers on other hosts through the network.

use super::endpoint::Endpoint;
use crate::error::{Error, Result};
use crate::message::MAX_SEGMENT;
use crate::transport::shm::remote::SegMemory;
use crate::transport::shm::{cma, owned};

impl Endpoint {
    /// Makes the `len` bytes at `addr` this endpoint's segment (`len` 0 removes the
    /// segment). The range must lie in readable and writable memory of this process;
    /// anything else is refused with [`Error::BadArg`], and nothing is changed.
    ///
    /// # Safety
    /// The memory must stay mapped, readable and writable for as long as it is the
    /// segment; peers' long messages and gets write and read it at any time the
    /// program's protocol allows, so no Rust reference may cover it meanwhile.
    pub unsafe fn set_program_segment(&self, addr: *mut u8, len: usize) -> Result<()> {
        self.core.check_live()?;
        if len > MAX_SEGMENT {
            return Err(Error::BadArg(format!(
                "segment of {len} bytes exceeds {MAX_SEGMENT}"
            )));
        }
        let segment = if len == 0 {
            None
        } else {
            owned::check(addr, len).map_err(|e| {
                Error::BadArg(format!(
                    "segment {addr:p}+{len} is not the program's writable memory: {e}"
                ))
            })?;
            cma::admit_peers();
            Some((SegMemory::Program(addr), len))
        };
        let segment = self.core.shm.own.publish_segment(segment);
        self.core.segment.with(|s| *s = segment);
        Ok(())
    }
}
