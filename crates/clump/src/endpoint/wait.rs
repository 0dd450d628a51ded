//! Waiting for credit or queue space, and what happens to messages whose destination is
//! lost. A send that must wait makes progress (through its bundle, so that this process
//! keeps serving its peers) and backs off, yielding the core; every few milliseconds it
//! checks that the destination still lives. What cannot go comes back to handler 0 at
//! the next poll: nothing is silently lost.

use super::handlers::in_handler;
use super::route::Route;
use super::EndpointCore;
use crate::error::{Error, Result, ReturnReason};
use crate::message::Outgoing;
use crate::transport::shm::wake::{readable, wait_readable};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long a send from inside a handler may wait for space before it reports congestion:
/// a handler's wait cannot serve requests, so two handlers waiting on each other would
/// otherwise hang.
const HANDLER_STALL_LIMIT: Duration = Duration::from_secs(10);
/// How often a waiting sender checks that its destination's process is still alive.
const LIVENESS_PERIOD: Duration = Duration::from_millis(10);
/// Local events (returned messages, finished gets) that may wait for a poll before
/// sends that bounce fail instead.
pub(crate) const MAX_PENDING_RETURNS: usize = 4096;
/// Every this many polls with requests in flight, check that their destinations live.
const LIVENESS_POLLS: u32 = 4096;
/// Rounds of a wait that spin before it yields or sleeps.
const SPIN_ROUNDS: u32 = 16;

/// State of one wait for credit or space. Making one reads no clock (a send that never
/// waits should not pay for one): the first round of waiting does.
pub struct Stall {
    rounds: u32,
    /// When the wait began, and when the destination's health is next checked.
    clock: Option<(Instant, Instant)>,
}

pub(crate) enum StallOutcome {
    Retry,
    /// The destination cannot be reached any more, for this reason.
    Gone(ReturnReason),
}

impl Default for Stall {
    fn default() -> Self {
        Stall::new()
    }
}

impl Stall {
    pub fn new() -> Stall {
        Stall {
            rounds: 0,
            clock: None,
        }
    }

    /// Spin a little, then yield, then sleep in growing steps: a waiting process must leave
    /// the core to the peers it waits for (16 processes may share 2 cores).
    pub fn back_off(&mut self) {
        match self.next_pause() {
            Pause::Spin(n) => (0..n).for_each(|_| std::hint::spin_loop()),
            Pause::Yield => std::thread::yield_now(),
            Pause::Sleep(d) => std::thread::sleep(d),
        }
    }

    fn next_pause(&mut self) -> Pause {
        self.rounds += 1;
        match self.rounds {
            0..=SPIN_ROUNDS => Pause::Spin(1 << self.rounds.min(6)),
            17..=200 => Pause::Yield,
            n => Pause::Sleep(Duration::from_micros(((n - 200) as u64 * 10).min(1000))),
        }
    }
}

/// One round of a wait.
enum Pause {
    Spin(u32),
    Yield,
    /// At most this long: a wait for shared memory is woken by the answer it waits for.
    Sleep(Duration),
}

impl EndpointCore {
    /// One round of waiting for `dest`: make progress, back off, watch the peer's health.
    /// `ready` says whether what the sender waits for has come: when progress brought it,
    /// the round ends without pausing (a sender whose credits came back in the datagrams
    /// this progress read must not then sleep on the socket for a millisecond).
    pub(crate) fn stall(
        self: &Rc<Self>,
        dest: u32,
        route: &Route,
        s: &mut Stall,
        ready: &dyn Fn() -> bool,
    ) -> Result<StallOutcome> {
        self.check_live()?;
        let network = matches!(route, Route::Net(_));
        let owner = self.owner();
        if let Some(owner) = &owner {
            owner.progress(self, network)?;
        }
        // Progress may have found the destination gone (the network gave up on it).
        if let Some(reason) = self.flow.with(|f| f.dead(dest)) {
            return Ok(StallOutcome::Gone(reason));
        }
        if ready() {
            s.rounds += 1;
        } else if network && s.rounds > SPIN_ROUNDS {
            // Credits come back in datagrams: sleep until one arrives (or a while passes
            // for the retransmission timers), not for a fixed time.
            s.rounds += 1;
            self.wait_for_datagram(Duration::from_millis(1));
        } else {
            match (s.next_pause(), owner) {
                // Over shared memory the credit or space comes back with an answer, which
                // rings this endpoint's bundle if it sleeps: a sender whose receiver was
                // off its core for a while goes on as soon as the receiver has caught up,
                // not at the end of a blind sleep of up to a millisecond.
                // Threads that share the process (AM_PAR) run their calls while this one
                // sleeps or yields: the process lock is let go meanwhile.
                (Pause::Sleep(d), Some(owner)) => owner.nap(self, d),
                (Pause::Sleep(d), None) => crate::serial::unlocked(|| std::thread::sleep(d)),
                (Pause::Spin(n), _) => (0..n).for_each(|_| std::hint::spin_loop()),
                (Pause::Yield, _) => crate::serial::unlocked(std::thread::yield_now),
            }
        }
        let now = Instant::now();
        let (since, next_check) = s
            .clock
            .get_or_insert_with(|| (now, now + LIVENESS_PERIOD));
        if now >= *next_check {
            *next_check = now + LIVENESS_PERIOD;
            if !route.alive() {
                self.peer_lost(dest, ReturnReason::PeerGone);
                // The message that waited never left.
                return Ok(StallOutcome::Gone(ReturnReason::Unreachable));
            }
            if in_handler() && now - *since > HANDLER_STALL_LIMIT {
                return Err(Error::Congestion(HANDLER_STALL_LIMIT.as_millis() as u64));
            }
        }
        Ok(StallOutcome::Retry)
    }

    /// Sleeps until a datagram reaches this endpoint's socket, or `timeout`, with the
    /// process lock let go (other threads' calls run meanwhile).
    pub(crate) fn wait_for_datagram(&self, timeout: Duration) {
        let Some(fds) = self.net.port(|p| p.fds()) else {
            return;
        };
        let mut fds: Vec<_> = fds.into_iter().map(readable).collect();
        crate::serial::unlocked(|| wait_readable(&mut fds, timeout));
    }

    /// Queues `o` for handler 0 with `reason`; the send itself succeeded in reporting it.
    ///
    /// Returned messages wait in the local event queue for a poll to run handler 0; a
    /// program that keeps sending messages that bounce, and never polls, gets an error
    /// once [`MAX_PENDING_RETURNS`] local events wait, so that the queue stays bounded
    /// and the message stays with its sender.
    pub(crate) fn bounce(&self, o: &Outgoing<'_>, dest: u32, reason: ReturnReason) -> Result<()> {
        let pending = self.local.with(|l| l.len());
        if pending >= MAX_PENDING_RETURNS {
            return Err(Error::ReturnsPending(pending));
        }
        self.return_locally(o.returned(reason, true, Some(dest)));
        Ok(())
    }

    /// The destination of translation `dest` cannot be reached any more (its process
    /// exited, or the network gave up on it): its unanswered requests come back.
    pub(crate) fn peer_lost(&self, dest: u32, reason: ReturnReason) {
        let lost = self.flow.with(|f| f.lose(dest, reason));
        for r in lost {
            self.return_locally(r);
        }
    }

    /// Every translation whose route `gone` says is lost, with requests in flight or
    /// (`all`) without: the one scan for lost peers, over either transport.
    pub(crate) fn lose_where(
        &self,
        all: bool,
        gone: impl Fn(&Route) -> bool + Sync,
        reason: ReturnReason,
    ) {
        let busy: Option<Vec<u32>> = (!all).then(|| self.flow.with(|f| f.busy().collect()));
        let lost: Vec<u32> = self.tables.translations.with(|table| {
            let candidates = busy.unwrap_or_else(|| (0..table.len() as u32).collect());
            candidates
                .into_iter()
                .filter(|&i| {
                    table
                        .get(i as usize)
                        .and_then(|t| t.as_ref())
                        .and_then(|t| t.route.as_ref())
                        .is_some_and(&gone)
                })
                .collect()
        });
        for dest in lost {
            self.peer_lost(dest, reason);
        }
    }

    /// Now and then, with requests in flight, check that their destinations still live.
    /// Inline: every look at an endpoint counts a poll.
    #[inline(always)]
    pub(crate) fn watch_peers(&self) {
        let polls = self.shm.polls.get().wrapping_add(1);
        self.shm.polls.set(polls);
        if polls.is_multiple_of(LIVENESS_POLLS) {
            self.poll_liveness_now();
        }
    }

    /// Whether a request or reply waits in this endpoint's shared-memory queues (one look
    /// at each queue's head, as a poll's first look).
    #[inline]
    pub(crate) fn message_queued(&self) -> bool {
        let block = self.shm.own.block.get();
        self.shm.requests.ready(&block.request.ring()) || self.shm.replies.ready(&block.reply.ring())
    }

    /// Returns the requests in flight to destinations whose process has exited.
    #[cold]
    #[inline(never)]
    pub(crate) fn poll_liveness_now(&self) {
        if self.outstanding() == 0 {
            return;
        }
        // A peer may answer (its credits, a reply) and then exit: its answer can wait in
        // this endpoint's queue while the process is gone. So a death is seen first, then
        // the queue: what the peer pushed before it exited is visible by then, and the
        // poll that reads it settles the requests. Only with nothing waiting are they lost.
        let dead = AtomicBool::new(false);
        self.lose_where(
            false,
            |r| {
                dead.fetch_or(!r.alive(), Ordering::Relaxed);
                false
            },
            ReturnReason::PeerGone,
        );
        if dead.into_inner() && !self.message_queued() {
            self.lose_where(false, |r| !r.alive(), ReturnReason::PeerGone);
        }
    }
}
