//! PMIx (`srun --mpi=pmix`, Open MPI's `mpirun`) as the job's process manager, through
//! the system's libpmix (`ffi`, the one place that calls it).

mod ffi;

use super::conn::{long_nap_for, NapCap};
use super::kvs::Manager;
use super::{BootError, Locality};
use ffi::{Api, Proc, Status, Value, PMIX_ERR_NOT_FOUND, PMIX_RANK_WILDCARD};
use std::ffi::{CStr, CString};
use std::time::{Duration, Instant};

const NAME: &str = "PMIx";

pub(super) struct Pmix {
    api: &'static Api,
    me: Proc,
    size: u32,
}

fn fail(what: String) -> BootError {
    BootError::Manager {
        manager: NAME,
        what,
    }
}

impl Pmix {
    pub fn init(timeout: Duration) -> Result<Box<dyn Manager>, BootError> {
        let api = Api::load().map_err(|e| {
            fail(format!(
                "cannot load the system's libpmix ({e}); install it (Debian: libpmix2) or \
                 start the job with `srun --mpi=pmi2`"
            ))
        })?;
        let me = api.init().map_err(|rc| {
            fail(format!(
                "PMIx_Init failed: {} (is the process manager's PMIx server running?)",
                api.describe(rc)
            ))
        })?;
        let mut pmix = Pmix { api, me, size: 0 };
        let wildcard = me.with_rank(PMIX_RANK_WILDCARD);
        pmix.size = pmix.get_with(&wildcard, c"pmix.job.size", Some(timeout), Value::as_u32)?;
        Ok(Box::new(pmix))
    }

    /// PMIx_Get with failures as errors that name the rank and key.
    fn get_with<T>(
        &self,
        proc_: &Proc,
        key: &CStr,
        timeout: Option<Duration>,
        read: impl FnOnce(&Value) -> Option<T>,
    ) -> Result<T, BootError> {
        let key_text = key.to_string_lossy();
        match self.api.get(proc_, key, timeout, read) {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(fail(format!("{key_text} has an unexpected type"))),
            Err(rc) => {
                let who = if proc_.rank == PMIX_RANK_WILDCARD {
                    "the job".to_owned()
                } else {
                    format!("rank {}", proc_.rank)
                };
                Err(fail(format!(
                    "{who} did not publish {key_text}: {}",
                    self.api.describe(rc)
                )))
            }
        }
    }

    /// A PMIx status as an error of the call `what`.
    fn failed(&self, what: &str, rc: Status) -> BootError {
        fail(format!("{what}: {}", self.api.describe(rc)))
    }
}

impl Manager for Pmix {
    fn rank(&self) -> u32 {
        self.me.rank
    }

    fn size(&self) -> u32 {
        self.size
    }

    fn locality(&mut self) -> Result<Locality, BootError> {
        let me = self.me;
        let wildcard = me.with_rank(PMIX_RANK_WILDCARD);
        let nodes = self
            .get_with(&wildcard, c"pmix.num.nodes", None, Value::as_u32)
            .unwrap_or(1);
        // The node id where the manager gives one; else the lowest rank on this node
        // (from the local peer list) names the node.
        let node = match self.get_with(&me, c"pmix.nodeid", None, Value::as_u32) {
            Ok(n) => n,
            Err(_) => {
                let peers = self.get_with(&wildcard, c"pmix.lpeers", None, Value::as_string)?;
                peers
                    .split(',')
                    .filter_map(|r| r.trim().parse::<u32>().ok())
                    .min()
                    .ok_or_else(|| fail(format!("unreadable local peer list {peers:?}")))?
            }
        };
        Ok(Locality { node, nodes })
    }

    fn put(&mut self, key: &str, value: &str) -> Result<(), BootError> {
        let key_c = CString::new(key).map_err(|_| fail(format!("key {key:?} holds a NUL")))?;
        let value_c =
            CString::new(value).map_err(|_| fail(format!("value for {key} holds a NUL")))?;
        self.api
            .put(&key_c, &value_c)
            .map_err(|rc| self.failed(&format!("PMIx_Put {key}"), rc))
    }

    fn commit(&mut self) -> Result<(), BootError> {
        self.api
            .commit()
            .map_err(|rc| self.failed("PMIx_Commit", rc))
    }

    /// The non-blocking fence, so that this process keeps polling (and answering its
    /// peers' requests) until PMIx's thread reports the fence complete.
    fn fence(
        &mut self,
        timeout: Option<Duration>,
        progress: &mut dyn FnMut(),
    ) -> Result<(), BootError> {
        let fenced = |rc| self.failed("PMIx_Fence", rc);
        let fence = self.api.fence(timeout).map_err(fenced)?;
        // Naps of at most 1 ms, longer in a long wait of a crowded job (as under the
        // launcher).
        let naps = NapCap::new(long_nap_for(self.size));
        let mut nap = Duration::from_micros(20);
        let outcome = loop {
            if let Some(outcome) = fence.done() {
                break outcome;
            }
            progress();
            std::thread::sleep(nap);
            nap = (nap * 2).min(naps.cap());
        };
        outcome.map_err(|rc| {
            fail(format!(
                "PMIx_Fence: {} (a rank of the job has not reached it?)",
                self.api.describe(rc)
            ))
        })
    }

    fn gets_wait_for_keys(&self) -> bool {
        true
    }

    /// A key a peer has not committed yet is "not found" (Slurm's PMIx server does not
    /// hold the request): asks again, with naps, until the peer publishes it or has been
    /// silent for `timeout`, then names the rank.
    fn get(
        &mut self,
        rank: u32,
        key: &str,
        timeout: Option<Duration>,
        progress: &mut dyn FnMut(),
    ) -> Result<String, BootError> {
        let key_c = CString::new(key).map_err(|_| fail(format!("key {key:?} holds a NUL")))?;
        let peer = self.me.with_rank(rank);
        let started = Instant::now();
        let naps = NapCap::new(long_nap_for(self.size));
        let mut nap = Duration::from_micros(50);
        loop {
            match self.api.get(&peer, &key_c, timeout, Value::as_string) {
                Ok(Some(v)) => return Ok(v),
                Ok(None) => return Err(fail(format!("{key} has an unexpected type"))),
                Err(PMIX_ERR_NOT_FOUND) if timeout.is_none_or(|t| started.elapsed() < t) => {
                    progress();
                    std::thread::sleep(nap);
                    nap = (nap * 2).min(naps.cap().max(Duration::from_millis(10)));
                }
                Err(rc) => {
                    let waited = timeout.map_or(String::new(), |t| {
                        format!(" within {}s (CLUMP_BOOT_TIMEOUT)", t.as_secs())
                    });
                    return Err(fail(format!(
                        "rank {rank} did not publish {key}{waited}: {}",
                        self.api.describe(rc)
                    )));
                }
            }
        }
    }

    fn abort(&mut self, status: i32, reason: &str) {
        let msg = CString::new(reason.replace('\0', " ")).unwrap_or_default();
        self.api.abort(status, &msg);
    }

    fn finalize(&mut self) {
        self.api.finalize();
    }
}
