//! Hardware baselines, measured in the same run as clump's figures: a bare shared-memory
//! ping-pong of one cache line between the two ranks (what a short round trip costs with
//! no layer at all), and single-thread memcpy bandwidth (what one copy of a payload costs).

use super::wait::spin_until;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Rank 0's side: `rounds` round trips continuing from `*round`, each writing the round's
/// number to `ping` and spinning until `pong` echoes it. Returns the time they took.
pub fn ping(
    ping: &AtomicU64,
    pong: &AtomicU64,
    round: &mut u64,
    rounds: u64,
) -> Result<Duration, String> {
    let t0 = Instant::now();
    for _ in 0..rounds {
        *round += 1;
        let r = *round;
        ping.store(r, Ordering::Release);
        spin_until("the bare ping-pong's pong", || {
            pong.load(Ordering::Acquire) == r
        })?;
    }
    Ok(t0.elapsed())
}

/// Rank 1's side: spins (never sleeps) on `ping` and echoes `rounds` rounds to `pong`.
pub fn pong(
    ping: &AtomicU64,
    pong: &AtomicU64,
    round: &mut u64,
    rounds: u64,
) -> Result<(), String> {
    for _ in 0..rounds {
        *round += 1;
        let r = *round;
        spin_until("the bare ping-pong's ping", || {
            ping.load(Ordering::Acquire) == r
        })?;
        pong.store(r, Ordering::Release);
    }
    Ok(())
}

/// memcpy bandwidth in MB/s (10^6 B/s): copies `src` into `dst` (same length, both
/// touched before) with `copy_from_slice` for at least `time`.
pub fn memcpy_mb_s(src: &[u8], dst: &mut [u8], time: Duration) -> f64 {
    let chunk = ((1usize << 20) / src.len().max(1)).clamp(1, 4096) as u64;
    let t0 = Instant::now();
    let mut copies = 0u64;
    loop {
        for _ in 0..chunk {
            dst.copy_from_slice(black_box(src));
            black_box(&mut *dst);
        }
        copies += chunk;
        let dt = t0.elapsed();
        if dt >= time {
            return (src.len() as u64 * copies) as f64 / dt.as_secs_f64() / 1e6;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ping_pong_between_two_threads_completes_every_round() {
        let words = [AtomicU64::new(0), AtomicU64::new(0)];
        let dt = std::thread::scope(|s| {
            s.spawn(|| {
                let mut r = 0;
                pong(&words[0], &words[1], &mut r, 100).unwrap();
                pong(&words[0], &words[1], &mut r, 200).unwrap();
            });
            let mut r = 0;
            ping(&words[0], &words[1], &mut r, 100).unwrap();
            ping(&words[0], &words[1], &mut r, 200).unwrap()
        });
        assert!(dt > Duration::ZERO);
        assert_eq!(words[1].load(Ordering::Relaxed), 300);
    }

    #[test]
    fn memcpy_gives_a_positive_figure() {
        let src = vec![1u8; 4096];
        let mut dst = vec![0u8; 4096];
        assert!(memcpy_mb_s(&src, &mut dst, Duration::from_millis(1)) > 0.0);
        assert_eq!(dst, src);
    }
}
