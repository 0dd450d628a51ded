//! SPMD start-up for programs run by `clump run`, `srun` or `mpirun`: join the job,
//! create an endpoint, and map every rank's endpoint so that translation `i` reaches
//! rank `i`.

use crate::boot::{BootError, Job};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::{Bundle, Endpoint, EndpointName};

/// This process's place in the job and its ready-to-use endpoint.
pub struct Spmd {
    pub job: Job,
    pub bundle: Bundle,
    pub ep: Endpoint,
}

impl Spmd {
    /// Joins the job from the environment `clump run` or a process manager sets (a
    /// process started on its own is a job of one), or shares the membership another
    /// layer of this process holds ([`Job::process`]): each caller gets its own bundle
    /// and endpoint. Every endpoint carries the job's secret tag, so two jobs never mix.
    pub fn init() -> Result<Spmd> {
        let config = Config::from_env().map_err(|e| Error::BadArg(e.to_string()))?;
        let mut job = Job::process_with(&config.job).map_err(|e| Error::Boot(e.to_string()))?;
        let (bundle, ep) = join(&mut job, config)?;
        let polled = bundle.clone();
        job.poll_while_waiting(move || {
            let _ = polled.poll();
        });
        Ok(Spmd { job, bundle, ep })
    }

    /// Another bundle with its own configuration and an endpoint mapped as the first one
    /// is (translation i reaches rank i's endpoint of this call). Every rank calls it
    /// together: it exchanges the new names. The job's id, hosts and address override
    /// those of `config`.
    pub fn join_again(&mut self, config: Config) -> Result<(Bundle, Endpoint)> {
        join(&mut self.job, config)
    }

    pub fn rank(&self) -> u32 {
        self.job.rank()
    }

    pub fn size(&self) -> u32 {
        self.job.size()
    }

    /// Tells the launcher the call this process must make before it exits ("": none),
    /// so that an exit without it ends the job rather than leaving its peers waiting.
    pub fn owe(&self, call: &str) -> Result<()> {
        self.job.owe(call).map_err(|e| Error::Boot(e.to_string()))
    }

    /// Waits until every rank arrives, running handlers meanwhile.
    pub fn barrier(&mut self) -> Result<()> {
        polling(&self.bundle, |progress| self.job.barrier(progress))
    }

    /// Every rank's `mine`, indexed by rank, running handlers meanwhile.
    pub fn allgather(&mut self, mine: &[u8]) -> Result<Vec<Vec<u8>>> {
        polling(&self.bundle, |progress| self.job.allgather(mine, progress))
    }

    /// Polls until every request this endpoint sent has been answered.
    pub fn drain(&self) -> Result<()> {
        let mut stall = crate::endpoint::wait::Stall::new();
        while self.ep.outstanding() > 0 {
            if self.bundle.poll()? == 0 {
                stall.back_off();
            }
        }
        Ok(())
    }
}

/// Runs the collective `wait` with `bundle`'s polls as its progress. The first error a
/// poll returns is the call's, once the collective is over (the other ranks need this
/// one to get there).
fn polling<T>(
    bundle: &Bundle,
    wait: impl FnOnce(&mut dyn FnMut()) -> std::result::Result<T, BootError>,
) -> Result<T> {
    let mut failed = None;
    let out = wait(&mut || {
        if let Err(e) = bundle.poll() {
            failed.get_or_insert(e);
        }
    })
    .map_err(|e| Error::Boot(e.to_string()))?;
    match failed {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Creates a bundle and an endpoint under the job's tag, and maps every rank's.
fn join(job: &mut Job, mut config: Config) -> Result<(Bundle, Endpoint)> {
    job.adapt(&mut config);
    let bundle = Bundle::with_config(config)?;
    let tag = job.job_id();
    let ep = bundle.create_endpoint(tag)?;
    let names = polling(&bundle, |progress| job.allgather(&ep.name().to_bytes(), progress))?;
    for (rank, bytes) in names.iter().enumerate() {
        let name = EndpointName::from_bytes(bytes)
            .ok_or_else(|| Error::Boot(format!("rank {rank} sent a malformed endpoint name")))?;
        ep.map(rank as u32, name, tag)?;
    }
    Ok((bundle, ep))
}
