//! Bootstrap: how a process learns its rank, the job size and which peers share its
//! host, and exchanges data with the other processes of its job.
//!
//! Three services can start a job (`CLUMP_BOOT` forces one, otherwise the environment
//! tells): the `clump run` launcher ([`launcher`], a Unix socket speaking [`frame`]s),
//! Slurm's PMI-2 ([`pmi2`], `srun --mpi=pmi2`) and PMIx ([`pmix`], `srun --mpi=pmix`,
//! Open MPI's `mpirun`). Over a process manager, collectives are key-value exchanges
//! ([`kvs`]). A process started by none of them is a job of one.

mod conn;
pub mod frame;
mod kvs;
mod launcher;
mod mapping;
mod place;
mod pmi2;
mod pmix;
mod shared;
pub(crate) mod watch;

use crate::config::{BootMode, Config, ConfigError, JobConfig};
use frame::{Op, MAX_CONTRIBUTION};
use kvs::Manager;
use launcher::Launcher;
pub use place::source_toward;
pub use shared::Job;
use std::time::Duration;

/// Why joining the job or a collective failed.
#[derive(Debug, thiserror::Error)]
pub enum BootError {
    #[error("bad job configuration: {0}")]
    Config(String),
    #[error("cannot connect to the launcher at {path}: {source}")]
    Connect {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the launcher went away: {0}")]
    LauncherGone(String),
    #[error("job aborted by the launcher (status {status}): {reason}")]
    Aborted { status: i32, reason: String },
    #[error("bootstrap protocol error: {0}")]
    Protocol(String),
    #[error("allgather contribution of {len} bytes exceeds the limit of {max} bytes")]
    TooLarge { len: usize, max: usize },
    #[error("bootstrap connection unusable: {0}")]
    Unusable(String),
    #[error("{manager}: {what}")]
    Manager { manager: &'static str, what: String },
}

impl From<ConfigError> for BootError {
    fn from(e: ConfigError) -> BootError {
        BootError::Config(e.to_string())
    }
}

/// How this process reaches the rest of its job.
enum Service {
    /// A job of one: collectives are trivial.
    Alone,
    Launcher(Launcher),
    Manager(Box<dyn Manager>),
}

/// Which peers share this process's host, as the process manager says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Locality {
    /// This process's node, numbered by the process manager (0 under `clump run`,
    /// whose virtual hosts come from `CLUMP_HOST` instead).
    pub node: u32,
    /// How many nodes the job spans.
    pub nodes: u32,
}

/// One joining of a job: the connection to the launcher or manager and the collectives' order.
pub(crate) struct Member {
    rank: u32,
    size: u32,
    job_id: u64,
    job_key: u128,
    service: Service,
    /// `Some` when a process manager placed the job (its word on hosts and addresses).
    locality: Option<Locality>,
    /// Whether `CLUMP_NET` was set (a job on one node then keeps it as set).
    net_given: bool,
    /// The address endpoints bind to, when the job spans nodes of a process manager.
    bind_ip: Option<std::net::Ipv4Addr>,
    /// How long start-up waits while the launcher or manager says nothing.
    timeout: Duration,
    /// Sequence number of the last collective started (the first is 1).
    seq: u32,
    /// Set once a collective failed or the job was aborted: the stream is out of step.
    broken: Option<String>,
}

impl Member {
    /// Joins the job through the service `job.boot` names or the environment shows.
    pub fn from_config(job: &JobConfig) -> Result<Member, BootError> {
        let mode = match job.boot {
            BootMode::Auto => detect(job, &|name| std::env::var_os(name)),
            forced => forced,
        };
        let me = match mode {
            BootMode::Clump => Member::with_launcher(job),
            BootMode::Pmi2 => Member::with_manager(job, pmi2::Pmi2::init(job.boot_timeout)?),
            BootMode::Pmix => Member::with_manager(job, pmix::Pmix::init(job.boot_timeout)?),
            BootMode::Auto => Member::alone(job),
        }?;
        // `clump run` warns once for its whole job; without it, rank 0 does.
        if mode != BootMode::Clump && me.rank == 0 {
            crate::config::unknown::warn_unknown_env("clump");
        }
        Ok(me)
    }

    fn blank(rank: u32, size: u32, job_id: u64, job: &JobConfig) -> Member {
        Member {
            rank,
            size,
            job_id,
            job_key: job.job_key,
            service: Service::Alone,
            locality: None,
            net_given: job.net_given,
            bind_ip: None,
            timeout: job.boot_timeout,
            seq: 0,
            broken: None,
        }
    }

    fn alone(job: &JobConfig) -> Result<Member, BootError> {
        check_rank(job.rank, job.size)?;
        if job.size > 1 {
            return Err(BootError::Config(format!(
                "CLUMP_SIZE={} but no launcher or process manager started this process: \
                 start the job with `clump run`, `srun --mpi=pmi2|pmix` or `mpirun`",
                job.size
            )));
        }
        Ok(Member::blank(job.rank, job.size, job.job_id, job))
    }

    fn with_launcher(job: &JobConfig) -> Result<Member, BootError> {
        check_rank(job.rank, job.size)?;
        let Some(path) = &job.boot_socket else {
            return Err(BootError::Config(
                "CLUMP_BOOT=clump but CLUMP_BOOT_SOCKET is unset: start the job with `clump run`"
                    .into(),
            ));
        };
        let launcher = Launcher::join(path, job.rank, job.size, job.job_id, job.boot_timeout)?;
        let mut me = Member::blank(job.rank, job.size, job.job_id, job);
        me.service = Service::Launcher(launcher);
        Ok(me)
    }

    /// Joins through a process manager: its rank and size win; rank 0 draws the job's
    /// secret id and hands it over the manager's key-value store; nodes come from it.
    fn with_manager(job: &JobConfig, mut m: Box<dyn Manager>) -> Result<Member, BootError> {
        let (rank, size) = (m.rank(), m.size());
        check_rank(rank, size)?;
        let locality = m.locality()?;
        let mut me = Member::blank(rank, size, job.job_id, job);
        me.locality = Some(locality);
        me.service = Service::Manager(m);
        // The first exchange: the job id (from rank 0) and every rank's host name, from
        // which a job across nodes finds the interface that reaches the others.
        let mine = place::Intro {
            job_id: crate::config::random_job_id(),
            job_key: crate::config::random_job_key(),
            node: locality.node,
            host: place::host_name(),
        };
        let all = me.allgather(&mine.encode(), &mut || {})?;
        let intros = all
            .iter()
            .enumerate()
            .map(|(r, bytes)| {
                place::Intro::decode(bytes).ok_or_else(|| {
                    BootError::Protocol(format!("rank {r} sent a malformed introduction"))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        me.job_id = intros[0].job_id;
        me.job_key = intros[0].job_key;
        if locality.nodes > 1 && !job.net_ip_given {
            me.bind_ip = Some(place::bind_ip(rank, &intros, job.net_iface.as_deref())?);
        } else if let Some(iface) = &job.net_iface {
            me.bind_ip = Some(place::iface_ip(iface, None)?);
        }
        Ok(me)
    }

    pub fn rank(&self) -> u32 {
        self.rank
    }

    pub fn size(&self) -> u32 {
        self.size
    }

    /// The job's secret: the wire job field and the default endpoint tag.
    pub fn job_id(&self) -> u64 {
        self.job_id
    }

    /// What the process manager said about hosts; `None` under `clump run` or alone.
    pub fn locality(&self) -> Option<Locality> {
        self.locality
    }

    /// Fits an AM configuration to this job: its id on the wire, the host the process
    /// manager put this process on (peers of one node use shared memory, the others the
    /// network), and the address endpoints bind to when the job spans nodes. A job on
    /// one node goes without the network unless `CLUMP_NET` says otherwise, as under
    /// `clump run` (polling an idle socket would cost every poll).
    pub fn adapt(&self, config: &mut Config) {
        config.job.job_id = self.job_id;
        config.job.job_key = self.job_key;
        if let Some(loc) = self.locality {
            config.host = loc.node;
            if loc.nodes > 1 {
                config.net.enabled = true;
            } else if !self.net_given {
                config.net.enabled = false;
            }
        }
        if let Some(ip) = self.bind_ip {
            config.net.bind_ip = ip;
        }
    }

    /// Every rank contributes `mine` (at most 1 MiB); returns all contributions indexed
    /// by rank. Calls `progress()` repeatedly while it waits, backing off between calls
    /// (spin, yield, then naps of at most 1 ms) so that waiting processes cost little.
    pub fn allgather(
        &mut self,
        mine: &[u8],
        progress: &mut dyn FnMut(),
    ) -> Result<Vec<Vec<u8>>, BootError> {
        if mine.len() > MAX_CONTRIBUTION {
            return Err(BootError::TooLarge {
                len: mine.len(),
                max: MAX_CONTRIBUTION,
            });
        }
        self.collective(Op::Allgather, mine, progress)
    }

    /// Returns once every rank has entered the barrier; calls `progress()` while it waits.
    pub fn barrier(&mut self, progress: &mut dyn FnMut()) -> Result<(), BootError> {
        self.collective(Op::Barrier, &[], progress).map(drop)
    }

    /// Asks the launcher or process manager to end the whole job with `status`, printing
    /// `reason`; returns after the request is sent. Without either (a job of one) it
    /// prints the reason itself and the caller is expected to exit.
    pub fn abort(&mut self, status: i32, reason: &str) {
        self.broken = Some("this process aborted the job".into());
        let rank = self.rank;
        match &mut self.service {
            Service::Launcher(l) => l.abort(rank, status, reason),
            Service::Manager(m) => {
                eprintln!("clump: rank {rank} aborts the job with status {status}: {reason}");
                m.abort(status, reason);
            }
            Service::Alone => {
                eprintln!("clump: rank {rank} aborted the job with status {status}: {reason}")
            }
        }
    }

    /// Tells the launcher this process must call `call` before it exits, so that an exit
    /// without it ends the job with a message ("": it owes nothing any more). Process
    /// managers and a job of one keep no such account: nothing to tell.
    pub fn owe(&mut self, call: &str) -> Result<(), BootError> {
        match &mut self.service {
            Service::Launcher(l) => l.owe(call),
            Service::Manager(_) | Service::Alone => Ok(()),
        }
    }

    fn collective(
        &mut self,
        op: Op,
        mine: &[u8],
        progress: &mut dyn FnMut(),
    ) -> Result<Vec<Vec<u8>>, BootError> {
        if let Some(why) = &self.broken {
            return Err(BootError::Unusable(why.clone()));
        }
        self.seq = self.seq.wrapping_add(1);
        let seq = self.seq;
        // Only the start-up exchange is bounded: later collectives wait for ranks that
        // compute, however long they take, as the launcher's do.
        let timeout = (seq == 1).then_some(self.timeout);
        let result = match &mut self.service {
            Service::Alone => return Ok(vec![mine.to_vec()]),
            Service::Launcher(l) => l.exchange(seq, op, mine, self.size, progress),
            Service::Manager(m) => match op {
                Op::Allgather => {
                    kvs::allgather(m.as_mut(), seq, self.size, mine, timeout, progress)
                }
                Op::Barrier => m.fence(timeout, progress).map(|()| Vec::new()),
            },
        };
        if let Err(e) = &result {
            self.broken = Some(format!("{} #{seq} failed: {e}", op.name()));
        }
        result
    }
}

impl Drop for Member {
    fn drop(&mut self) {
        if let Service::Manager(m) = &mut self.service {
            if self.broken.is_none() {
                m.finalize();
            }
        }
    }
}

fn check_rank(rank: u32, size: u32) -> Result<(), BootError> {
    if size == 0 || rank >= size {
        return Err(BootError::Config(format!(
            "rank {rank} is not in a job of {size}"
        )));
    }
    if size > crate::config::MAX_JOB_SIZE {
        return Err(BootError::Config(format!(
            "a job of {size} processes exceeds the limit of {}",
            crate::config::MAX_JOB_SIZE
        )));
    }
    Ok(())
}

/// The service the environment shows: the launcher's socket first (a `clump run` inside
/// a Slurm allocation is still `clump run`'s job), then PMIx, then PMI-2; `Auto` when
/// none (a job of one).
fn detect(job: &JobConfig, var: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> BootMode {
    if job.boot_socket.is_some() {
        BootMode::Clump
    } else if var("PMIX_NAMESPACE").is_some() && var("PMIX_RANK").is_some() {
        BootMode::Pmix
    } else if var("PMI_FD").is_some() {
        BootMode::Pmi2
    } else {
        BootMode::Auto
    }
}

#[cfg(test)]
mod tests;
