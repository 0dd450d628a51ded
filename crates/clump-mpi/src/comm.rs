//! Communicators: a context and the job ranks of its members.

use std::rc::Rc;

use crate::error::{Error, ErrorClass, Result};
use crate::matching::PROC_NULL;
use crate::runtime;
use crate::topology::Topology;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comm {
    /// Point-to-point traffic uses context `2 * ctx`, collectives `2 * ctx + 1`.
    ctx: u32,
    /// Job rank of each member, by communicator rank (the local group of an
    /// intercommunicator).
    group: Rc<Vec<u32>>,
    rank: u32,
    /// An intercommunicator's remote group: its point-to-point ranks name these.
    remote: Option<Rc<Vec<u32>>>,
    /// The process topology it carries, if any (kept by `dup`).
    topo: Option<Rc<Topology>>,
}

impl Comm {
    /// `MPI_COMM_WORLD`.
    pub fn world() -> Result<Comm> {
        let rt = runtime::get()?;
        Ok(Comm {
            ctx: 0,
            group: Rc::new((0..rt.size()).collect()),
            rank: rt.rank(),
            remote: None,
            topo: None,
        })
    }

    /// `MPI_COMM_SELF`.
    pub fn self_comm() -> Result<Comm> {
        let rt = runtime::get()?;
        Ok(Comm {
            ctx: 1,
            group: Rc::new(vec![rt.rank()]),
            rank: 0,
            remote: None,
            topo: None,
        })
    }

    pub fn rank(&self) -> i32 {
        self.rank as i32
    }

    pub fn size(&self) -> i32 {
        self.group.len() as i32
    }

    pub(crate) fn from_parts(ctx: u32, group: Rc<Vec<u32>>, rank: u32) -> Comm {
        Comm {
            ctx,
            group,
            rank,
            remote: None,
            topo: None,
        }
    }

    pub(crate) fn inter_from_parts(
        ctx: u32,
        group: Rc<Vec<u32>>,
        rank: u32,
        remote: Rc<Vec<u32>>,
    ) -> Comm {
        Comm {
            ctx,
            group,
            rank,
            remote: Some(remote),
            topo: None,
        }
    }

    /// The process topology attached by a topology constructor (`MPI_Topo_test`).
    pub fn topology(&self) -> Option<&Topology> {
        self.topo.as_deref()
    }

    pub(crate) fn with_topology(mut self, t: Topology) -> Comm {
        self.topo = Some(Rc::new(t));
        self
    }

    /// The same members (and remote group) in context `ctx`.
    pub(crate) fn in_ctx(&self, ctx: u32) -> Comm {
        Comm {
            ctx,
            ..self.clone()
        }
    }

    /// `MPI_Comm_test_inter`.
    pub fn is_inter(&self) -> bool {
        self.remote.is_some()
    }

    /// Fails for an intercommunicator: `what` works on intracommunicators only here.
    pub fn refuse_inter(&self, what: &str) -> Result<()> {
        if self.is_inter() {
            return Err(Error::new(
                ErrorClass::Comm,
                format!("{what} on an intercommunicator is not supported by clump"),
            ));
        }
        Ok(())
    }

    /// The processes point-to-point ranks name: the remote group of an
    /// intercommunicator, the group itself otherwise.
    pub(crate) fn peers(&self) -> &Rc<Vec<u32>> {
        self.remote.as_ref().unwrap_or(&self.group)
    }

    pub(crate) fn remote(&self) -> Option<&Rc<Vec<u32>>> {
        self.remote.as_ref()
    }

    /// World or self, whose contexts are fixed.
    pub(crate) fn is_predefined(&self) -> bool {
        self.ctx < 2
    }

    /// The communicator's own context (the slots of its one-step collectives).
    pub(crate) fn ctx(&self) -> usize {
        self.ctx as usize
    }

    pub(crate) fn p2p_ctx(&self) -> u32 {
        2 * self.ctx
    }

    pub(crate) fn coll_ctx(&self) -> u32 {
        2 * self.ctx + 1
    }

    pub(crate) fn group(&self) -> &Rc<Vec<u32>> {
        &self.group
    }

    /// The job rank of peer rank `r` (in the remote group of an intercommunicator);
    /// `None` for `MPI_PROC_NULL`.
    #[inline]
    pub(crate) fn job_rank(&self, r: i32) -> Result<Option<u32>> {
        if r == PROC_NULL {
            return Ok(None);
        }
        usize::try_from(r)
            .ok()
            .and_then(|i| self.peers().get(i).copied())
            .map(Some)
            .ok_or_else(|| self.no_rank(r))
    }

    #[cold]
    #[inline(never)]
    fn no_rank(&self, r: i32) -> Error {
        Error::new(
            ErrorClass::Rank,
            format!("rank {r} is not in a group of {}", self.peers().len()),
        )
    }
}
