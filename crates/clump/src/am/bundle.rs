//! Bundles: endpoints polled and waited on together, with AM-II's event mask.

use super::endpoint::{free_together, Endpoint};
use super::poll::progress_while_waiting;
use crate::config::Config;
use crate::endpoint::transport::Transport;
use crate::endpoint::{EndpointCore, Owner};
use crate::transport::net::transport::Net;
use crate::transport::shm::transport::Shm;
use crate::error::{Error, Result};
use crate::transport::net;
use crate::transport::net::send::owed;
use crate::proto::held::Held;
use crate::poll::NetPollPolicy;
use crate::transport::shm::cpu_mate;
use crate::transport::shm::wake::{readable, wait_readable, WakeSocket};
use crate::sync::Ordering;
use std::cell::{Cell, RefCell};
use std::os::fd::AsRawFd;
use std::rc::{Rc, Weak};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// The shortest sleep of a wait (shorter ones sleep their whole timeout): a wait whose
/// network timers are already due sleeps this long rather than not at all.
const MIN_SLEEP: Duration = Duration::from_millis(1);

/// How a wait begins and ends: [`Bundle::wait_timeout`] spins first and sleeps to its
/// timeout, [`Bundle::wait_round`] spins first and sleeps once, [`Bundle::nap`] only sleeps.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wait {
    Whole,
    Round,
    Nap,
}

/// What makes `wait` return (AM-II's `AM_SetEventMask`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventMask {
    /// No event: `wait` refuses to block.
    None,
    /// A message arrived at any endpoint of the bundle.
    NotEmpty,
}

pub(crate) struct BundleCore {
    endpoints: RefCell<Vec<Rc<EndpointCore>>>,
    /// Senders that find an endpoint of this bundle asleep send here.
    wake: WakeSocket,
    mask: Cell<EventMask>,
    /// Handlers run on the bundle's endpoints by threads that share it (AM_PAR), as the
    /// face counts them ([`Bundle::note_handled`]), and that count when the mask was set:
    /// the event has fired once they differ, whichever thread's poll ran the handler.
    events: Cell<u64>,
    armed_at: Cell<u64>,
    /// The count when each thread that shares the bundle last set the mask itself: its
    /// wait ends on what ran since then, although another thread's wait may have reset
    /// the mask and set it again meanwhile (the bundle's one `armed_at` then moved past
    /// the handler this thread waits for, which slept on for good).
    thread_arms: RefCell<Vec<(ThreadId, u64)>>,
    /// Threads asleep in [`BundleCore::sleep`] (more than one only when threads share it).
    sleepers: Cell<u32>,
    /// When polls look at the network (001's adaptive policy).
    net_policy: Cell<NetPollPolicy>,
    /// The credits the thread's endpoints hold back (`net/send/owed.rs`), shared with
    /// them and with the thread's other bundles.
    held: Rc<Held<EndpointCore>>,
    config: Config,
}

/// A set of endpoints polled together (`eb_t`). Belongs to the thread that made it.
#[derive(Clone)]
pub struct Bundle {
    core: Rc<BundleCore>,
}

impl Bundle {
    /// A bundle configured from the `CLUMP_*` environment (see [`crate::config`]).
    pub fn new() -> Result<Bundle> {
        let config = Config::from_env().map_err(|e| Error::BadArg(e.to_string()))?;
        Bundle::with_config(config)
    }

    pub fn with_config(config: Config) -> Result<Bundle> {
        let wake =
            WakeSocket::bind().map_err(|e| Error::io("cannot bind the bundle's wake socket", e))?;
        Ok(Bundle {
            core: Rc::new(BundleCore {
                endpoints: RefCell::new(Vec::new()),
                wake,
                mask: Cell::new(EventMask::None),
                events: Cell::new(0),
                armed_at: Cell::new(0),
                thread_arms: RefCell::new(Vec::new()),
                sleepers: Cell::new(0),
                net_policy: Cell::new(NetPollPolicy::new(
                    config.net.poll_every_busy,
                    config.net.poll_every_idle,
                )),
                held: owed::of_this_thread(),
                config,
            }),
        })
    }

    /// Creates an endpoint with tag `tag` in this bundle (`AM_AllocateEndpoint`).
    pub fn create_endpoint(&self, tag: u64) -> Result<Endpoint> {
        let owner: Weak<dyn Owner> = Rc::downgrade(&self.core) as Weak<BundleCore>;
        let core = EndpointCore::new(tag, &self.core.config, owner, &self.core.held)?;
        self.core.adopt(&core);
        Ok(Endpoint { core })
    }

    /// Moves `ep` into this bundle (`AM_MoveEndpoint`).
    pub fn adopt(&self, ep: &Endpoint) -> Result<()> {
        ep.core.check_live()?;
        if let Some(old) = ep.core.owner() {
            old.remove(&ep.core);
        }
        ep.core.set_owner(Rc::downgrade(&self.core) as Weak<BundleCore>);
        self.core.adopt(&ep.core);
        Ok(())
    }

    /// Runs the handlers of waiting messages on every endpoint (`AM_Poll`); returns how many.
    /// Inline across crates: a program's wait loop is this call, over and over.
    #[inline]
    pub fn poll(&self) -> Result<usize> {
        self.core.poll_all()
    }

    pub fn event_mask(&self) -> EventMask {
        self.core.mask.get()
    }

    /// Sets the mask (`AM_SetEventMask`). Setting it while it is set does not move when
    /// it was set: threads that share the bundle share its mask, and one thread's setting
    /// must not hide from another's wait the handlers that ran since that one set it.
    pub fn set_event_mask(&self, mask: EventMask) {
        if self.core.mask.get() == EventMask::None {
            self.core.armed_at.set(self.core.events.get());
        }
        self.core.mask.set(mask);
        if crate::serial::is_shared() {
            self.core.arm_this_thread(mask == EventMask::NotEmpty);
        }
    }

    /// Counts a handler that ran on an endpoint of this bundle, for a face whose threads
    /// share it: the event fires ([`Bundle::event_fired`]) and the threads asleep in a wait
    /// wake to see it, since the message they woke for, or would, no longer waits.
    pub fn note_handled(&self) {
        self.core.events.set(self.core.events.get().wrapping_add(1));
        if self.core.sleepers.get() > 0 {
            self.core.wake.ring();
        }
    }

    /// Whether a handler counted by [`Bundle::note_handled`] ran since the calling thread
    /// set the mask (or since the mask was set, for a thread that did not set it).
    pub fn event_fired(&self) -> bool {
        self.core.event_fired()
    }

    /// Blocks until a message waits on some endpoint of the bundle (`AM_WaitSema`); the
    /// caller then polls. Polls briefly first (a wake-up costs far more than a short spin),
    /// then sleeps without spinning.
    pub fn wait(&self) -> Result<()> {
        while !self.wait_timeout(Duration::from_secs(3600))? {}
        Ok(())
    }

    /// Like [`Bundle::wait`] but gives up after `timeout`; returns whether a message waits.
    pub fn wait_timeout(&self, timeout: Duration) -> Result<bool> {
        self.wait_for(timeout, Wait::Whole)
    }

    /// One round of [`Bundle::wait_timeout`], for threads that share the bundle: it also
    /// ends, returning false, when another thread wakes this one (it ran a handler this
    /// one may wait for, or took the message this one woke for); the caller looks at what
    /// it waits for and comes back.
    pub fn wait_round(&self, timeout: Duration) -> Result<bool> {
        self.wait_for(timeout, Wait::Round)
    }

    /// How long a wait spins before it sleeps (`CLUMP_SPIN_US`).
    pub(crate) fn spin_before_sleep(&self) -> Duration {
        self.core.config.spin_before_sleep
    }

    /// Like [`Bundle::wait_timeout`] without its spin first: for a waiter that spun
    /// already, watching what no message signals (a peer's direct store).
    pub fn nap(&self, timeout: Duration) -> Result<bool> {
        self.wait_for(timeout, Wait::Nap)
    }

    fn wait_for(&self, timeout: Duration, how: Wait) -> Result<bool> {
        if self.core.mask.get() == EventMask::None {
            return Err(Error::NoEvents);
        }
        // Polls send owed credits once the queue is empty; no poll runs while this waits.
        for ep in self.core.endpoints.borrow().iter() {
            Shm::send_owed(ep);
            Net::send_owed(ep);
        }
        owed::send_all(&self.core.held);
        let start = Instant::now();
        let spin = match how {
            Wait::Nap => Duration::ZERO,
            // A process this thread just woke, or was woken by, shares its CPU: spinning
            // would only keep it (most likely the one this wait is for) off the CPU.
            _ if cpu_mate::take_shared_cpu() => Duration::ZERO,
            Wait::Whole | Wait::Round => self.core.config.spin_before_sleep.min(timeout),
        };
        let spin_until = start + spin;
        let mut spins = 0u32;
        while Instant::now() < spin_until {
            if self.core.has_work() {
                return Ok(true);
            }
            if self.event_fired() {
                return Ok(false);
            }
            // The sockets cost a system call to look at: one look in 64 spins.
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(64) && self.core.net_readable() {
                return Ok(true);
            }
            // Threads that share the bundle (AM_PAR) and wait for the lock get it
            // between looks.
            if !crate::serial::pause() {
                std::hint::spin_loop();
            }
        }
        loop {
            if self.core.sleep(start + timeout, timeout.min(MIN_SLEEP)) {
                return Ok(true);
            }
            if how == Wait::Round || Instant::now() >= start + timeout {
                return Ok(false);
            }
        }
    }

    pub fn endpoints(&self) -> Vec<Endpoint> {
        self.core
            .endpoints
            .borrow()
            .iter()
            .map(|core| Endpoint { core: core.clone() })
            .collect()
    }
}

impl BundleCore {
    fn adopt(&self, ep: &Rc<EndpointCore>) {
        ep.shm
            .own
            .block
            .get()
            .header
            .wake_key
            .store(self.wake.key(), Ordering::Release);
        self.endpoints.borrow_mut().push(ep.clone());
    }

    pub(crate) fn remove(&self, ep: &Rc<EndpointCore>) {
        self.endpoints.borrow_mut().retain(|e| !Rc::ptr_eq(e, ep));
    }

    #[inline]
    pub(crate) fn poll_all(&self) -> Result<usize> {
        if self.config.net.enabled {
            return Ok(self.poll_all_with_network());
        }
        // Without the network the hot path is as short as shared memory alone needs.
        // By index, holding no borrow while handlers run: they may create, move or free
        // endpoints. (No copy of the list either: this is the hottest path there is.)
        // An endpoint is looked at under the list's borrow (the look runs no handler)
        // and held only when something waits on it: an empty poll takes no reference.
        let mut handled = 0;
        let mut i = 0;
        loop {
            let (ep, waiting) = {
                let endpoints = self.endpoints.borrow();
                let Some(ep) = endpoints.get(i) else { break };
                i += 1;
                match ep.look() {
                    Some(waiting) => (ep.clone(), waiting),
                    None => continue,
                }
            };
            handled += ep.poll_waiting(waiting);
        }
        Ok(handled)
    }

    /// The `i`th endpoint, if there are so many.
    #[inline]
    fn endpoint(&self, i: usize) -> Option<Rc<EndpointCore>> {
        self.endpoints.borrow().get(i).cloned()
    }

    /// [`BundleCore::poll_all`] with the network on: its sockets too, after the policy.
    #[inline(never)]
    fn poll_all_with_network(&self) -> usize {
        // Credits held back on any endpoint of the thread go once due (`net/send/owed.rs`).
        owed::send_due(&self.held);
        let mut policy = self.net_policy.get();
        let tick = policy.tick();
        self.net_policy.set(policy);
        let mut handled = 0;
        let mut from_net = 0;
        let mut i = 0;
        while let Some(ep) = self.endpoint(i) {
            handled += ep.poll_endpoint();
            // A socket with a doorbell is looked at whenever it rings, as cheaply as a
            // shared-memory queue; on the policy's turns every socket is (its timers,
            // and the sockets without a doorbell).
            if tick || net::poll::rang(&ep) {
                from_net += Net::poll(&ep, policy.batch(), true);
            } else {
                net::poll::send_held(&ep);
            }
            i += 1;
        }
        if tick {
            // Handlers may have changed the policy (a wait inside one); record on top.
            let mut policy = self.net_policy.get();
            policy.record(from_net > 0);
            self.net_policy.set(policy);
        }
        handled + from_net
    }

    fn has_work(&self) -> bool {
        self.endpoints.borrow().iter().any(|ep| ep.has_work())
    }

    /// Whether a datagram waits on some endpoint's socket (one `poll` system call, no
    /// wait); the next poll then looks at the network.
    fn net_readable(&self) -> bool {
        let mut fds = self.socket_fds();
        if fds.is_empty() {
            return false;
        }
        wait_readable(&mut fds, Duration::ZERO) > 0 && self.pump_network()
    }

    /// Takes in what the sockets hold and fires due timers, running no handler; whether
    /// a whole message (or a message returned to its sender) now waits.
    fn pump_network(&self) -> bool {
        let endpoints = self.endpoints.borrow().clone();
        for ep in &endpoints {
            net::poll::pump(ep);
        }
        let ready = self.has_work();
        if ready {
            self.poll_network_next();
        }
        ready
    }

    pub(crate) fn poll_network_next(&self) {
        let mut policy = self.net_policy.get();
        policy.poll_next();
        self.net_policy.set(policy);
    }

    fn socket_fds(&self) -> Vec<libc::pollfd> {
        self.endpoints
            .borrow()
            .iter()
            .filter_map(|ep| ep.net.port(|p| p.fds()))
            .flatten()
            .map(readable)
            .collect()
    }

    /// The earliest retransmission timer of the bundle's endpoints.
    fn next_net_timer(&self) -> Option<Duration> {
        self.endpoints
            .borrow()
            .iter()
            .filter_map(|ep| ep.net.port(|p| p.next_timer()).flatten())
            .min()
    }

    /// Most threads whose own arm point a bundle keeps: a program that starts threads
    /// without end must not grow it without end (a thread dropped from it waits on the
    /// bundle's arm point, as before).
    const MAX_THREAD_ARMS: usize = 256;

    /// Notes (`armed`) or forgets the calling thread's own arm point: the event count now.
    fn arm_this_thread(&self, armed: bool) {
        let me = std::thread::current().id();
        let mut arms = self.thread_arms.borrow_mut();
        arms.retain(|(t, _)| *t != me);
        if armed {
            if arms.len() >= Self::MAX_THREAD_ARMS {
                arms.remove(0);
            }
            arms.push((me, self.events.get()));
        }
    }

    /// Whether a counted handler ran since the calling thread armed the mask (since the
    /// bundle's arm point for a thread that did not).
    fn event_fired(&self) -> bool {
        let since = match crate::serial::is_shared() {
            true => {
                let me = std::thread::current().id();
                let arms = self.thread_arms.borrow();
                arms.iter().find(|(t, _)| *t == me).map(|&(_, at)| at)
            }
            false => None,
        };
        self.events.get() != since.unwrap_or(self.armed_at.get())
    }

    /// Sleeps on the wake socket until a sender rings it or `deadline` (a sleep lasts
    /// `at_least` even past it, so a wait whose timers are due does not spin); true if
    /// work waits.
    fn sleep(&self, deadline: Instant, at_least: Duration) -> bool {
        let endpoints = self.endpoints.borrow().clone();
        // A count, not a flag: threads that share the bundle sleep and wake on their own,
        // and the first to wake must not tell senders that no one sleeps.
        let cpu = cpu_mate::this_cpu();
        let set_sleeping = |asleep: bool| {
            for ep in &endpoints {
                let header = &ep.shm.own.block.get().header;
                match asleep {
                    true => {
                        header.sleep_cpu.store(cpu, Ordering::Relaxed);
                        header.sleeping.fetch_add(1, Ordering::SeqCst)
                    }
                    false => header.sleeping.fetch_sub(1, Ordering::SeqCst),
                };
            }
        };
        set_sleeping(true);
        self.sleepers.set(self.sleepers.get() + 1);
        // Pairs with the sender's fence after publishing: it sees us asleep or we see it.
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        let ready = self.has_work();
        let mut from_net = false;
        // A handler another thread ran since the mask was set ends the wait too.
        let fired = self.event_fired();
        if !ready && !fired {
            // Wake up now and then to notice peers that died with requests in flight, and
            // in time for the network's retransmission timers.
            let mut left = deadline
                .saturating_duration_since(Instant::now())
                .min(Duration::from_millis(100));
            if let Some(timer) = self.next_net_timer() {
                left = left.min(timer);
            }
            // Both protocols at once: the doorbell of shared memory and every socket.
            let mut fds = vec![readable(self.wake.as_raw_fd())];
            fds.extend(self.socket_fds());
            // Threads that share the bundle (AM_PAR) run their calls meanwhile.
            crate::serial::unlocked(|| wait_readable(&mut fds, left.max(at_least)));
            self.wake.drain();
            from_net = fds[1..].iter().any(|p| p.revents != 0);
            // The drain took the wake-up of the threads still asleep on the socket too.
            if fds[0].revents != 0 && self.sleepers.get() > 1 {
                self.wake.ring();
            }
        }
        self.sleepers.set(self.sleepers.get() - 1);
        set_sleeping(false);
        for ep in &endpoints {
            ep.poll_liveness_now();
        }
        if from_net || self.next_net_timer().is_some_and(|t| t.is_zero()) {
            // A datagram or a due timer: it may complete a message, or be only an ack.
            return self.pump_network() || ready;
        }
        ready || self.has_work()
    }
}

impl Drop for BundleCore {
    fn drop(&mut self) {
        let endpoints = self.endpoints.take();
        for ep in &endpoints {
            ep.set_owner(crate::endpoint::no_owner());
        }
        free_together(&endpoints, &|| {});
    }
}

impl Owner for BundleCore {
    fn progress(&self, ep: &Rc<EndpointCore>, network: bool) -> Result<()> {
        progress_while_waiting(ep, || {
            if network {
                self.poll_network_next();
            }
            self.poll_all()
        })
    }

    fn remove(&self, ep: &Rc<EndpointCore>) {
        BundleCore::remove(self, ep)
    }

    fn pump_network(&self) {
        BundleCore::pump_network(self);
    }

    fn nap(&self, ep: &EndpointCore, timeout: Duration) {
        let header = &ep.shm.own.block.get().header;
        let sleeping = &header.sleeping;
        // A count, as in `sleep`.
        header.sleep_cpu.store(cpu_mate::this_cpu(), Ordering::Relaxed);
        sleeping.fetch_add(1, Ordering::SeqCst);
        // Pairs with the sender's fence after publishing: it sees us asleep or we see it.
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        if !Shm::has_work(ep) {
            let mut fds = [readable(self.wake.as_raw_fd())];
            // Threads that share the bundle (AM_PAR) run their calls while this one sleeps.
            crate::serial::unlocked(|| wait_readable(&mut fds, timeout));
            self.wake.drain();
            // Threads that share the bundle may sleep on the socket too (in `sleep`).
            if fds[0].revents != 0 && self.sleepers.get() > 0 {
                self.wake.ring();
            }
        }
        sleeping.fetch_sub(1, Ordering::SeqCst);
    }
}
