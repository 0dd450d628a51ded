//! Busy waits for the benchmark ranks. Both ranks are pinned to their own CPU, so they
//! spin (never sleep: a wake-up would be measured); if they could not be, they yield. A wait that lasts far longer than any
//! measurement gives up with an error instead of hanging the job.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Set when the ranks could not each get a CPU of their own: waiting then yields, or a
/// spinning rank would hold the CPU its peer needs for a whole time slice per round.
static SHARED_CPU: AtomicBool = AtomicBool::new(false);

pub fn set_shared_cpu(shared: bool) {
    SHARED_CPU.store(shared, Ordering::Relaxed);
}

#[inline]
fn pause() {
    if SHARED_CPU.load(Ordering::Relaxed) {
        std::thread::yield_now();
    } else {
        std::hint::spin_loop();
    }
}

/// Longer than any phase of the benchmark.
const STUCK: Duration = Duration::from_secs(120);
/// Spins between clock reads: the clock stays out of the measured loops' fast path.
const CHECK_EVERY: u64 = 1 << 20;

/// Spins until `done()` holds.
#[inline]
pub fn spin_until(what: &str, mut done: impl FnMut() -> bool) -> Result<(), String> {
    let mut spins = 0u64;
    let mut since = None;
    while !done() {
        pause();
        spins += 1;
        if spins & (CHECK_EVERY - 1) == 0 {
            check(&mut since, what)?;
        }
    }
    Ok(())
}

/// Polls `bundle` until `done()` holds.
#[inline]
pub fn poll_until(
    bundle: &clump::Bundle,
    what: &str,
    mut done: impl FnMut() -> bool,
) -> Result<(), String> {
    let mut polls = 0u64;
    let mut since = None;
    while !done() {
        let ran = bundle
            .poll()
            .map_err(|e| format!("poll while waiting for {what}: {e}"))?;
        if ran == 0 && SHARED_CPU.load(Ordering::Relaxed) {
            std::thread::yield_now();
        }
        polls += 1;
        if polls & (CHECK_EVERY / 16 - 1) == 0 {
            check(&mut since, what)?;
        }
    }
    Ok(())
}

/// Polls until every request `ep` sent has been answered.
#[inline]
pub fn drain(bundle: &clump::Bundle, ep: &clump::Endpoint) -> Result<(), String> {
    poll_until(bundle, "outstanding requests", || ep.outstanding() == 0)
}

#[cold]
fn check(since: &mut Option<Instant>, what: &str) -> Result<(), String> {
    let start = *since.get_or_insert_with(Instant::now);
    if start.elapsed() > STUCK {
        return Err(format!(
            "gave up waiting for {what} after {} s",
            STUCK.as_secs()
        ));
    }
    Ok(())
}
