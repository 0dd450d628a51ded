//! Busy waits for the benchmark ranks. Both ranks are pinned to their own CPU, so they
//! spin (never sleep: a wake-up would be measured). A wait that lasts far longer than any
//! measurement gives up with an error instead of hanging the job.

use std::time::{Duration, Instant};

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
        std::hint::spin_loop();
        spins += 1;
        if spins % CHECK_EVERY == 0 {
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
        bundle
            .poll()
            .map_err(|e| format!("poll while waiting for {what}: {e}"))?;
        polls += 1;
        if polls % (CHECK_EVERY / 16) == 0 {
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
