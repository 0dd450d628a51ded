//! The global address space under MPI's windows: joined on the first window, with an
//! endpoint in the bundle MPI polls (so every MPI wait serves one-sided requests), its
//! segment handed out to allocated windows by a first-fit heap.

use super::super::handles::{comm, err, COMM_WORLD};
use super::super::wired::Failure;
use super::abi::MPI_ERR_WIN;
use super::guard::{reset, GUARD_BYTES};
use super::request::{unreply, Request};
use crate::shmem::heap::Heap;
use am::idle::Backoff;
use clump_gas::{Gas, GasConfig, RpcId};
use clump_mpi::Comm;
use std::cell::RefCell;
use std::rc::Rc;

pub struct Space {
    pub gas: Gas,
    /// The remote procedure every one-sided request runs at its target.
    pub rpc: RpcId,
    /// Where this process's segment is mapped, and the heap over its free part.
    seg_base: usize,
    heap_start: usize,
    heap: RefCell<Heap>,
    /// Whether some process of the job is reached over the network (on another host, or
    /// every one under `--transport udp`): its requests come by the network, which no
    /// cheap look sees.
    remote: bool,
}

am::process_local! {
    static SPACE: RefCell<Option<Rc<Space>>> = RefCell::new(None);
}

/// Calls that end accesses on a window between two full polls ([`Space::serve`]) when
/// some process is reached over the network: often enough that a process looping on RMA
/// calls to its own memory (which need no message) answers it within a few of its
/// iterations; seldom enough that the poll (about 270 instructions and clock reads, more
/// than a put's own work) stays out of the cost of a put and its flush.
const NET_EVERY: u32 = 16;
/// The same when every process is reached over shared memory, whose requests a look at
/// the queue sees at once: a backstop for the rest (local events, a message that came
/// another way).
const HOST_EVERY: u32 = 256;

/// Alignment of allocated windows: enough for any predefined type and a cache line.
const WINDOW_ALIGN: usize = 64;

pub fn gas_failure(e: clump_gas::Error) -> Failure {
    (super::super::abi::MPI_ERR_OTHER, e.to_string())
}

/// The space, joined first if this is the first window; `comm` is the communicator the
/// window is created over (every member calls together). `serve` answers the requests
/// other processes send to this one's windows (the caller names it: the target side
/// finds windows, which hold the space, so the space cannot name it itself).
pub fn joined(over: &Comm, serve: fn(u32, &[u8]) -> Vec<u8>) -> Result<Rc<Space>, Failure> {
    if let Some(s) = SPACE.with_borrow(|s| s.clone()) {
        return Ok(s);
    }
    let world = comm(COMM_WORLD)?;
    if over.size() != world.size() {
        return Err((
            MPI_ERR_WIN,
            "the first window of a job must be created over all processes (it joins the \
             global address space)"
                .into(),
        ));
    }
    let (bundle, tag) = clump_mpi::bundle_and_tag().map_err(err)?;
    let me = (world.rank() as u32, world.size() as u32);
    let mut exchange = |mine: &[u8]| {
        let lens = vec![mine.len(); world.size() as usize];
        clump_mpi::allgather(mine, &lens, &world)
            .map_err(|e| clump_gas::Error::Config(e.to_string()))
    };
    let config = GasConfig::from_env().map_err(gas_failure)?;
    let mut gas = Gas::init_joined(bundle, me, tag, &mut exchange, config).map_err(gas_failure)?;
    let rpc = gas
        .register_rpc(move |ctx, arg| serve(ctx.source, arg))
        .map_err(gas_failure)?;
    let region = gas.alloc::<u8>(gas.free_bytes()).map_err(gas_failure)?;
    let start = gas.local(&region).as_mut_slice().as_mut_ptr() as usize;
    let (seg_base, _) = gas.direct_segment(gas.rank()).ok_or_else(|| {
        (
            MPI_ERR_WIN,
            "this process's segment is not mapped".to_owned(),
        )
    })?;
    let remote = (0..gas.size()).any(|r| !gas.is_local(r));
    let space = Rc::new(Space {
        rpc,
        remote,
        seg_base: seg_base as usize,
        heap_start: start,
        heap: RefCell::new(Heap::new(start, region.len_per_rank())),
        gas,
    });
    SPACE.with_borrow_mut(|s| *s = Some(space.clone()));
    Ok(space)
}

/// The space if some window joined it.
pub fn current() -> Option<Rc<Space>> {
    SPACE.with_borrow(|s| s.clone())
}

impl Space {
    /// `bytes` of this process's segment for a window, after its guard word: (address,
    /// segment offset) of the memory.
    pub fn alloc(&self, bytes: usize) -> Option<(usize, usize)> {
        let total = bytes.checked_add(GUARD_BYTES)?;
        let off = self.heap.borrow_mut().alloc(total, WINDOW_ALIGN)?;
        let guard = self.heap_start + off;
        reset(guard);
        let addr = guard + GUARD_BYTES;
        Some((addr, addr - self.seg_base))
    }

    /// Returns the memory at `addr` that [`Space::alloc`] gave.
    pub fn free(&self, addr: usize) {
        self.heap
            .borrow_mut()
            .free(addr - GUARD_BYTES - self.heap_start);
    }

    /// Polls (serving other processes' requests) until `done` holds.
    pub fn wait_until(
        &self,
        mut done: impl FnMut() -> Result<bool, Failure>,
    ) -> Result<(), Failure> {
        // The one back-off of every wait: spin while this process has a core of its own
        // (yielding at once hands the core to any other load on the machine, a time
        // slice per handoff), then leave it to the process this one waits for; pauses
        // the lock where threads share the process.
        let mut idle = Backoff::for_host(self.gas.processes_here());
        while !done()? {
            self.gas.poll().map_err(gas_failure)?;
            idle.snooze();
        }
        Ok(())
    }

    /// Serves the requests that have reached this process, for the `n`th call on a window
    /// that ends accesses (MPI's progress rule: a process looping on RMA calls to its own
    /// memory must still answer the others): at once when one waits in this process's
    /// shared-memory queue, else on one such call in [`NET_EVERY`] ([`HOST_EVERY`] when
    /// every process is reached over shared memory).
    #[inline]
    pub fn serve(&self, n: u32) -> Result<(), Failure> {
        if self.serves(n) {
            return self.gas.poll().map_err(gas_failure);
        }
        Ok(())
    }

    /// Whether [`Space::serve`] polls for the `n`th call (a look, running no handler).
    #[inline]
    pub fn serves(&self, n: u32) -> bool {
        let every = if self.remote { NET_EVERY } else { HOST_EVERY };
        self.gas.request_waiting() || n & (every - 1) == 0
    }

    /// Runs `req` at job rank `rank` and returns the reply's data.
    pub fn send(&self, rank: u32, req: &Request) -> Result<Vec<u8>, Failure> {
        let reply = self
            .gas
            .rpc(rank, self.rpc, &req.encode())
            .map_err(gas_failure)?;
        unreply(reply)
    }

    /// Runs `req` (one that [`Request::answers_nothing`]) at job rank `rank` without
    /// waiting for it when that rank is reached over the network, where a round trip per
    /// access would cost the most; [`Space::settle`] completes it. Same-host targets (whose
    /// other accesses may go direct, outside the message order) wait for it here.
    pub fn post(&self, rank: u32, req: &Request) -> Result<(), Failure> {
        if !self.remote || self.gas.is_local(rank) {
            return self.send(rank, req).map(drop);
        }
        self.gas
            .rpc_post(rank, self.rpc, &req.encode())
            .map_err(gas_failure)
    }

    /// Waits until every request posted to `rank` (to any rank when `None`) is done at
    /// its target: what completes puts and accumulates to another host (flush, unlock,
    /// fence, complete). The first error any of them met is this call's.
    #[inline]
    pub fn settle(&self, rank: Option<u32>) -> Result<(), Failure> {
        if !self.posts() {
            return Ok(());
        }
        self.settle_posted(rank)
    }

    /// Whether requests may be posted ([`Space::post`]): some process is reached over
    /// the network.
    #[inline]
    pub fn posts(&self) -> bool {
        self.remote
    }

    #[inline(never)]
    fn settle_posted(&self, rank: Option<u32>) -> Result<(), Failure> {
        for answer in self.gas.rpc_settle(rank).map_err(gas_failure)? {
            unreply(answer)?;
        }
        Ok(())
    }

    /// Where segment offset `off` of job rank `rank` is mapped here, if it is.
    pub fn direct(&self, rank: u32, off: usize) -> Option<usize> {
        self.gas
            .direct_segment(rank)
            .map(|(base, _)| base as usize + off)
    }
}
