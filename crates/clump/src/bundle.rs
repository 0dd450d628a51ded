//! Bundles: endpoints polled and waited on together, with AM-II's event mask.

use crate::config::Config;
use crate::endpoint::{Endpoint, EndpointCore};
use crate::error::{Error, Result};
use crate::sync::Ordering;
use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd};
use std::rc::Rc;
use std::time::{Duration, Instant};

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
    /// Senders that find an endpoint of this bundle asleep write here.
    wake: File,
    mask: Cell<EventMask>,
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
        // SAFETY: plain syscall; a non-negative result is a descriptor we now own.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if fd < 0 {
            return Err(Error::io(
                "cannot create the bundle's eventfd",
                std::io::Error::last_os_error(),
            ));
        }
        // SAFETY: fd is fresh and owned by nothing else.
        let wake = unsafe { File::from_raw_fd(fd) };
        Ok(Bundle {
            core: Rc::new(BundleCore {
                endpoints: RefCell::new(Vec::new()),
                wake,
                mask: Cell::new(EventMask::None),
                config,
            }),
        })
    }

    /// Creates an endpoint with tag `tag` in this bundle (`AM_AllocateEndpoint`).
    pub fn create_endpoint(&self, tag: u64) -> Result<Endpoint> {
        let core = EndpointCore::new(
            tag,
            self.core.config.credits as usize,
            Rc::downgrade(&self.core),
        )?;
        self.core.adopt(&core);
        Ok(Endpoint { core })
    }

    /// Moves `ep` into this bundle (`AM_MoveEndpoint`).
    pub fn adopt(&self, ep: &Endpoint) -> Result<()> {
        ep.core.check_live()?;
        if let Some(old) = ep.core.bundle.borrow().upgrade() {
            old.remove(&ep.core);
        }
        *ep.core.bundle.borrow_mut() = Rc::downgrade(&self.core);
        self.core.adopt(&ep.core);
        Ok(())
    }

    /// Runs the handlers of waiting messages on every endpoint (`AM_Poll`); returns how many.
    pub fn poll(&self) -> Result<usize> {
        self.core.poll_all()
    }

    pub fn event_mask(&self) -> EventMask {
        self.core.mask.get()
    }

    pub fn set_event_mask(&self, mask: EventMask) {
        self.core.mask.set(mask);
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
        if self.core.mask.get() == EventMask::None {
            return Err(Error::NoEvents);
        }
        let start = Instant::now();
        let spin_until = start + self.core.config.spin_before_sleep.min(timeout);
        while Instant::now() < spin_until {
            if self.core.has_work() {
                return Ok(true);
            }
            std::hint::spin_loop();
        }
        loop {
            if self.core.sleep(start + timeout) {
                return Ok(true);
            }
            if Instant::now() >= start + timeout {
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
        ep.own
            .block
            .get()
            .header
            .wake_fd
            .store(self.wake.as_raw_fd() as u32, Ordering::Release);
        self.endpoints.borrow_mut().push(ep.clone());
    }

    pub(crate) fn remove(&self, ep: &Rc<EndpointCore>) {
        self.endpoints.borrow_mut().retain(|e| !Rc::ptr_eq(e, ep));
    }

    pub(crate) fn poll_all(&self) -> Result<usize> {
        // By index, holding no borrow while handlers run: they may create, move or free
        // endpoints. (No copy of the list either: this is the hottest path there is.)
        let mut handled = 0;
        let mut i = 0;
        loop {
            let Some(ep) = self.endpoints.borrow().get(i).cloned() else {
                break;
            };
            handled += ep.poll_endpoint();
            i += 1;
        }
        Ok(handled)
    }

    fn has_work(&self) -> bool {
        self.endpoints
            .borrow()
            .iter()
            .any(|ep| ep.has_work() || !ep.deferred.borrow().is_empty())
    }

    /// Sleeps on the eventfd until a sender rings it or `deadline`; true if work waits.
    fn sleep(&self, deadline: Instant) -> bool {
        let endpoints = self.endpoints.borrow().clone();
        let set_sleeping = |v: u32| {
            for ep in &endpoints {
                ep.own
                    .block
                    .get()
                    .header
                    .sleeping
                    .store(v, Ordering::SeqCst);
            }
        };
        set_sleeping(1);
        // Pairs with the sender's fence after publishing: it sees us asleep or we see it.
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        let ready = self.has_work();
        if !ready {
            // Wake up now and then to notice peers that died with requests in flight.
            let left = deadline
                .saturating_duration_since(Instant::now())
                .min(Duration::from_millis(100));
            let mut p = libc::pollfd {
                fd: self.wake.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd for the duration of the call.
            unsafe { libc::poll(&mut p, 1, left.as_millis().max(1) as i32) };
            let mut buf = [0u8; 8];
            let _ = (&self.wake).read(&mut buf);
        }
        set_sleeping(0);
        for ep in &endpoints {
            ep.poll_liveness_now();
        }
        ready || self.has_work()
    }
}

impl Drop for BundleCore {
    fn drop(&mut self) {
        for ep in self.endpoints.take() {
            *ep.bundle.borrow_mut() = std::rc::Weak::new();
            crate::dispatch::free_endpoint(&ep);
        }
    }
}
