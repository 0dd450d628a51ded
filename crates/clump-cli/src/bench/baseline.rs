//! Hardware baselines, measured in the same run as clump's figures: a bare shared-memory
//! ping-pong of one cache line between the two ranks (what a short round trip costs with
//! no layer at all), a bare one-way stream through a ring of one-cache-line slots (what a
//! message costs when messages follow each other with no layer at all, beside `g`), and
//! single-thread memcpy bandwidth (what one copy of a payload costs).

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

/// Slots of the bare streaming ring; each slot is one 64-byte cache line whose first word
/// is the sequence number of the message in it.
pub const RING_SLOTS: usize = 16;
/// Bytes between slots: one cache line.
pub const RING_STRIDE: usize = 64;

/// The sending side of the bare stream: `messages` messages continuing from `*sent`, each
/// the store of its number (from 1) into the next slot, waiting while the receiver, whose
/// count `received` publishes every half ring, lags a whole ring behind. Returns the time
/// until the receiver has taken the last one.
pub fn stream_send(
    ring: &[&AtomicU64],
    received: &AtomicU64,
    sent: &mut u64,
    messages: u64,
) -> Result<Duration, String> {
    let slots = ring.len() as u64;
    let end = *sent + messages;
    let t0 = Instant::now();
    let mut room = received.load(Ordering::Acquire) + slots;
    while *sent < end {
        if *sent == room {
            spin_until("the bare stream's receiver", || {
                received.load(Ordering::Acquire) + slots > *sent
            })?;
            room = received.load(Ordering::Acquire) + slots;
        }
        *sent += 1;
        ring[(*sent % slots) as usize].store(*sent, Ordering::Release);
    }
    spin_until("the bare stream's last message", || {
        received.load(Ordering::Acquire) >= end
    })?;
    Ok(t0.elapsed())
}

/// The receiving side: takes `messages` messages continuing from `*taken`, publishing its
/// count every half ring and at the end.
pub fn stream_receive(
    ring: &[&AtomicU64],
    received: &AtomicU64,
    taken: &mut u64,
    messages: u64,
) -> Result<(), String> {
    let slots = ring.len() as u64;
    let end = *taken + messages;
    while *taken < end {
        let want = *taken + 1;
        let slot = ring[(want % slots) as usize];
        spin_until("the bare stream's next message", || {
            slot.load(Ordering::Acquire) == want
        })?;
        *taken = want;
        if want.is_multiple_of(slots / 2) || want == end {
            received.store(want, Ordering::Release);
        }
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
    fn the_bare_stream_delivers_every_message_in_order() {
        let words: Vec<AtomicU64> = (0..RING_SLOTS + 1).map(|_| AtomicU64::new(0)).collect();
        let ring: Vec<&AtomicU64> = words[..RING_SLOTS].iter().collect();
        let received = &words[RING_SLOTS];
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut taken = 0;
                stream_receive(&ring, received, &mut taken, 1000).unwrap();
                stream_receive(&ring, received, &mut taken, 37).unwrap();
                assert_eq!(taken, 1037);
            });
            let mut sent = 0;
            assert!(stream_send(&ring, received, &mut sent, 1000).unwrap() > Duration::ZERO);
            stream_send(&ring, received, &mut sent, 37).unwrap();
        });
        assert_eq!(received.load(Ordering::Relaxed), 1037);
    }

    #[test]
    fn memcpy_gives_a_positive_figure() {
        let src = vec![1u8; 4096];
        let mut dst = vec![0u8; 4096];
        assert!(memcpy_mb_s(&src, &mut dst, Duration::from_millis(1)) > 0.0);
        assert_eq!(dst, src);
    }
}
