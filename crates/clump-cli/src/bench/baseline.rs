//! Hardware baselines, measured in the same run as clump's figures: a bare shared-memory
//! ping-pong of one cache line between the two ranks (what a short round trip costs with
//! no layer at all), and single-thread memcpy bandwidth (what one copy of a payload costs).

use super::wait::spin_until;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Batches of round trips; both ranks must use the same plan.
#[derive(Clone, Copy, Debug)]
pub struct PingPongPlan {
    pub warm_batches: u32,
    pub batches: u32,
    pub iters: u64,
}

impl PingPongPlan {
    fn total(&self) -> u64 {
        (self.warm_batches + self.batches) as u64 * self.iters
    }
}

/// Rank 0's side: writes round number `i` to `ping` and spins until `pong` echoes it.
/// Returns the mean round trip of each timed batch, in microseconds.
pub fn ping(ping: &AtomicU64, pong: &AtomicU64, plan: PingPongPlan) -> Result<Vec<f64>, String> {
    let mut round = 0u64;
    let mut out = Vec::new();
    for batch in 0..plan.warm_batches + plan.batches {
        let t0 = Instant::now();
        for _ in 0..plan.iters {
            round += 1;
            ping.store(round, Ordering::Release);
            spin_until("the bare ping-pong's pong", || {
                pong.load(Ordering::Acquire) == round
            })?;
        }
        let dt = t0.elapsed();
        if batch >= plan.warm_batches {
            out.push(dt.as_secs_f64() * 1e6 / plan.iters as f64);
        }
    }
    Ok(out)
}

/// Rank 1's side: spins (never sleeps) on `ping` and echoes every round to `pong`.
pub fn pong(ping: &AtomicU64, pong: &AtomicU64, plan: PingPongPlan) -> Result<(), String> {
    for round in 1..=plan.total() {
        spin_until("the bare ping-pong's ping", || {
            ping.load(Ordering::Acquire) == round
        })?;
        pong.store(round, Ordering::Release);
    }
    Ok(())
}

/// memcpy bandwidth in MB/s (10^6 B/s) at each size: `batches` timed batches of about
/// `batch_time` each after a warm-up, copying between two pre-touched buffers with
/// `copy_from_slice`. Returns each size's batch figures.
pub fn memcpy_curve(sizes: &[usize], batches: u32, batch_time: Duration) -> Vec<Vec<f64>> {
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let src: Vec<u8> = (0..largest).map(|i| (i * 131 + 7) as u8).collect();
    let mut dst = vec![0xa5u8; largest];
    sizes
        .iter()
        .map(|&n| {
            let (s, d) = (&src[..n], &mut dst[..n]);
            copy_for(s, d, batch_time / 2);
            (0..batches)
                .map(|_| {
                    let (copies, dt) = copy_for(s, d, batch_time);
                    (n as u64 * copies) as f64 / dt.as_secs_f64() / 1e6
                })
                .collect()
        })
        .collect()
}

/// Copies `src` into `dst` repeatedly for at least `time`; returns copies and time taken.
fn copy_for(src: &[u8], dst: &mut [u8], time: Duration) -> (u64, Duration) {
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
            return (copies, dt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ping_pong_between_two_threads_completes_every_round() {
        let words = [AtomicU64::new(0), AtomicU64::new(0)];
        let plan = PingPongPlan {
            warm_batches: 1,
            batches: 2,
            iters: 100,
        };
        let out = std::thread::scope(|s| {
            s.spawn(|| pong(&words[0], &words[1], plan).unwrap());
            ping(&words[0], &words[1], plan).unwrap()
        });
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|&us| us > 0.0));
        assert_eq!(words[1].load(Ordering::Relaxed), 300);
    }

    #[test]
    fn memcpy_curve_gives_positive_figures_per_size() {
        let curve = memcpy_curve(&[8, 4096], 2, Duration::from_millis(1));
        assert_eq!(curve.len(), 2);
        assert!(curve
            .iter()
            .all(|b| b.len() == 2 && b.iter().all(|&x| x > 0.0)));
    }
}
