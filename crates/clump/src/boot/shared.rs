//! The process's membership in its job, shared by every layer that uses it.
//!
//! The launcher admits each rank once, and a process manager expects one `finalize`, so a
//! process whose layers (AM-II SPMD, MPI, OpenSHMEM) each start the job must join it once:
//! [`Job::process`] joins on first use, later calls share that membership, and the last
//! handle dropped leaves the job. Every layer takes its own endpoints and exchanges their
//! names through the shared collectives, which all ranks call in the same order. While
//! one layer waits in a collective, every other layer's progress runs too (see
//! [`Job::poll_while_waiting`]): a peer may need an answer from any of them to get there.
//! Layers are per thread (endpoints are not `Send`), and so is the membership.

use super::{BootError, Locality, Member};
use crate::config::{Config, JobConfig};
use crate::thread_finder::{find_or, Finder};
use std::cell::RefCell;
use std::rc::{Rc, Weak};

thread_local! {
    /// Finds the membership [`Job::process`] hands out while some handle to it lives
    /// (the handles own it: see `thread_finder.rs`).
    static PROCESS: Finder<Shared> = const { Finder::new() };
}

/// What the handles on one membership share.
struct Shared {
    member: RefCell<Member>,
    /// The progress of every holder that asked to be polled, while it holds on.
    pollers: RefCell<Vec<Weak<dyn Fn()>>>,
}

/// A handle on a membership in a job; clones share it, the last one dropped leaves.
pub struct Job {
    shared: Rc<Shared>,
    /// This holder's progress, polled during any holder's collective while it lives.
    poller: Option<Rc<dyn Fn()>>,
}

impl Clone for Job {
    /// Another holder of the same membership, with no progress of its own yet.
    fn clone(&self) -> Job {
        Job {
            shared: self.shared.clone(),
            poller: None,
        }
    }
}

impl Job {
    /// Joins the job described by the environment, apart from any other membership.
    pub fn from_env() -> Result<Job, BootError> {
        Job::from_config(&Config::from_env()?.job)
    }

    /// Joins through the service `job.boot` names or the environment shows, apart from
    /// any other membership (a second one is refused by the launcher).
    pub fn from_config(job: &JobConfig) -> Result<Job, BootError> {
        let shared = Shared {
            member: RefCell::new(Member::from_config(job)?),
            pollers: RefCell::default(),
        };
        Ok(Job {
            shared: Rc::new(shared),
            poller: None,
        })
    }

    /// The process's membership, joined now from the environment unless a layer of this
    /// thread holds it already.
    pub fn process() -> Result<Job, BootError> {
        Job::process_with(&Config::from_env()?.job)
    }

    /// The process's membership, joined now with `job` unless a layer of this thread
    /// holds it already (whose join then stands, whatever `job` says).
    pub fn process_with(job: &JobConfig) -> Result<Job, BootError> {
        let shared = find_or(&PROCESS, || Job::from_config(job).map(|j| j.shared))?;
        Ok(Job {
            shared,
            poller: None,
        })
    }

    /// How many handles share this membership (layers that still use it).
    pub fn holders(&self) -> usize {
        Rc::strong_count(&self.shared)
    }

    pub fn rank(&self) -> u32 {
        self.shared.member.borrow().rank()
    }

    pub fn size(&self) -> u32 {
        self.shared.member.borrow().size()
    }

    /// The job's secret: the wire job field and the default endpoint tag.
    pub fn job_id(&self) -> u64 {
        self.shared.member.borrow().job_id()
    }

    /// What the process manager said about hosts; `None` under `clump run` or alone.
    pub fn locality(&self) -> Option<Locality> {
        self.shared.member.borrow().locality()
    }

    /// How many of the job's processes run on this machine: all of them under `clump run`
    /// (its virtual hosts share the machine), the job spread evenly over the nodes under a
    /// process manager.
    pub fn processes_here(&self) -> u32 {
        let size = self.size();
        self.locality()
            .map_or(size, |l| size.div_ceil(l.nodes.max(1)))
    }

    /// Fits an AM configuration to this job (see [`Member::adapt`]).
    pub fn adapt(&self, config: &mut Config) {
        self.shared.member.borrow().adapt(config)
    }

    /// Every rank contributes `mine` (at most 1 MiB); returns all contributions indexed
    /// by rank. Calls `progress()` repeatedly while it waits, backing off between calls
    /// so that waiting processes cost little.
    pub fn allgather(
        &mut self,
        mine: &[u8],
        progress: &mut dyn FnMut(),
    ) -> Result<Vec<Vec<u8>>, BootError> {
        let others = self.others();
        self.member()?.allgather(mine, &mut || {
            progress();
            others.iter().for_each(|p| p());
        })
    }

    /// Returns once every rank has entered the barrier; calls `progress()` while it waits.
    pub fn barrier(&mut self, progress: &mut dyn FnMut()) -> Result<(), BootError> {
        let others = self.others();
        self.member()?.barrier(&mut || {
            progress();
            others.iter().for_each(|p| p());
        })
    }

    /// Asks the launcher or process manager to end the whole job with `status`, printing
    /// `reason`; returns after the request is sent. Without either (a job of one) it
    /// prints the reason itself and the caller is expected to exit. From inside one of
    /// this job's collectives (a handler run while it waits) it can only print.
    pub fn abort(&mut self, status: i32, reason: &str) {
        match self.member() {
            Ok(mut m) => m.abort(status, reason),
            Err(_) => eprintln!("clump: the job ends with status {status}: {reason}"),
        }
    }

    /// Tells the launcher this process must call `call` before it exits ("": it owes
    /// nothing any more); see [`Member::owe`].
    pub fn owe(&self, call: &str) -> Result<(), BootError> {
        self.member()?.owe(call)
    }

    /// Has `progress` (this holder's layer polling its endpoints) run while any holder of
    /// the membership waits in a collective, until this handle is dropped.
    pub fn poll_while_waiting(&mut self, progress: impl Fn() + 'static) {
        let progress: Rc<dyn Fn()> = Rc::new(progress);
        let mut pollers = self.shared.pollers.borrow_mut();
        pollers.retain(|p| p.strong_count() > 0);
        pollers.push(Rc::downgrade(&progress));
        self.poller = Some(progress);
    }

    /// The progress of the other holders that asked for it (the caller passes its own).
    fn others(&self) -> Vec<Rc<dyn Fn()>> {
        let mine = self.poller.as_ref().map(Rc::as_ptr);
        self.shared
            .pollers
            .borrow()
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|p| Some(Rc::as_ptr(p)) != mine)
            .collect()
    }

    /// The membership, unless one of its collectives is running on this thread (a
    /// handler that called another: the stream would be out of step).
    fn member(&self) -> Result<std::cell::RefMut<'_, Member>, BootError> {
        self.shared.member.try_borrow_mut().map_err(|_| {
            BootError::Unusable("a collective of this job was called while another runs".into())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alone() -> JobConfig {
        let mut c = Config::default().job;
        (c.rank, c.size, c.boot_socket) = (0, 1, None);
        c
    }

    #[test]
    fn process_membership_is_shared_until_the_last_holder_leaves() {
        let first = Job::process_with(&alone()).unwrap();
        let second = Job::process_with(&alone()).unwrap();
        assert!(Rc::ptr_eq(&first.shared, &second.shared));
        assert_eq!(first.holders(), 2);
        drop(first);
        assert_eq!(second.holders(), 1);
        let weak = Rc::downgrade(&second.shared);
        drop(second);
        assert!(weak.upgrade().is_none(), "the last holder leaves the job");
        let again = Job::process_with(&alone()).unwrap();
        assert_eq!(again.holders(), 1);
    }

    #[test]
    fn a_separate_join_is_not_the_process_membership() {
        let own = Job::from_config(&alone()).unwrap();
        let process = Job::process_with(&alone()).unwrap();
        assert!(!Rc::ptr_eq(&own.shared, &process.shared));
    }

    #[test]
    fn a_collective_called_from_inside_another_is_refused() {
        let job = Job::process_with(&alone()).unwrap();
        let mut inner = job.clone();
        // What a handler run during one of the job's collectives sees.
        let _running = job.member().unwrap();
        let nested = inner.barrier(&mut || {});
        assert!(matches!(nested, Err(BootError::Unusable(_))));
    }

    #[test]
    fn a_collective_runs_the_other_holders_progress_but_not_the_dropped() {
        use std::cell::Cell;
        let counts = Rc::new([Cell::new(0), Cell::new(0), Cell::new(0)]);
        let mut own = Job::process_with(&alone()).unwrap();
        let mut other = own.clone();
        let mut gone = own.clone();
        for (i, job) in [&mut own, &mut other, &mut gone].into_iter().enumerate() {
            let c = counts.clone();
            job.poll_while_waiting(move || c[i].set(c[i].get() + 1));
        }
        drop(gone);
        assert_eq!(own.others().len(), 1, "only the other live holder");
        (own.others()[0])();
        assert_eq!(counts.iter().map(Cell::get).collect::<Vec<_>>(), [0, 1, 0]);
    }
}
