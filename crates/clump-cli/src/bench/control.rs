//! The benchmark ranks' control channel: words in a shared region (rank 0 creates it,
//! rank 1 maps it), each on its own 128-byte line. Rank 0 posts commands; rank 1 polls
//! its endpoint (serving requests) until a command arrives, carries it out, and goes back
//! to polling. The bare ping-pong runs on two of these words, with no clump involved.

use super::baseline;
use super::udp_baseline::BareUdp;
use super::wait::{poll_until, spin_until};
use clump::{Bundle, SharedRegion};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Byte offsets of the control words.
const PING: usize = 0;
const PONG: usize = 128;
/// Rank 0's latest command: (sequence number << 8) | operation.
const CMD: usize = 256;
/// The command's argument, written before the command.
const ARG: usize = 384;
/// o_r rounds: rank 0 asks for burst N, rank 1 says burst N is queued.
const BURST_GO: usize = 512;
const BURST_SENT: usize = 640;
/// ... and burst N's answers all came back.
const BURST_DRAINED: usize = 1024;
/// The sequence number of the last bundle selection rank 1 carried out.
const SELECTED: usize = 1152;
/// The bare stream: the receiver's count, and the ring of one-line slots.
const STREAM_RECEIVED: usize = 1280;
const RING: usize = 2048;
/// Rank 1's answer to a command that has one (the bytes a bare UDP sink counted), and the
/// sequence number of the command it answers, written after it.
const RESULT: usize = 768;
const RESULT_SEQ: usize = 896;
pub const REGION_LEN: usize = 4096;
const _: () = assert!(STREAM_RECEIVED + 128 <= RING);
const _: () = assert!(RING + baseline::RING_SLOTS * baseline::RING_STRIDE <= REGION_LEN);

/// Answer ARG rounds of the bare ping-pong; send ARG bursts when asked; stop.
const OP_PONG: u64 = 1;
const OP_BURSTS: u64 = 2;
const OP_END: u64 = 3;
/// Answer ARG rounds of the bare UDP ping-pong; count a bare UDP stream until the next
/// command (which itself does nothing).
const OP_UDP_PONG: u64 = 4;
const OP_UDP_SINK: u64 = 5;
const OP_UDP_SINK_STOP: u64 = 6;
/// Poll bundle ARG of rank 1's list from now on.
const OP_SELECT: u64 = 7;
/// Take ARG messages of the bare stream.
const OP_STREAM: u64 = 8;

fn word(region: &SharedRegion, at: usize) -> &AtomicU64 {
    region
        .atomic_u64(at)
        .expect("control words lie in the region")
}

fn ring(region: &SharedRegion) -> Vec<&AtomicU64> {
    (0..baseline::RING_SLOTS)
        .map(|i| word(region, RING + i * baseline::RING_STRIDE))
        .collect()
}

/// Rank 0's side.
pub struct Control<'a> {
    region: &'a SharedRegion,
    seq: u64,
    pong_round: u64,
    udp_round: u64,
    burst_round: u64,
    streamed: u64,
}

impl<'a> Control<'a> {
    pub fn new(region: &'a SharedRegion) -> Self {
        Control {
            region,
            seq: 0,
            pong_round: 0,
            udp_round: 0,
            burst_round: 0,
            streamed: 0,
        }
    }

    fn word(&self, at: usize) -> &'a AtomicU64 {
        word(self.region, at)
    }

    fn command(&mut self, op: u64, arg: u64) {
        self.seq += 1;
        self.word(ARG).store(arg, Ordering::Relaxed);
        self.word(CMD).store(self.seq << 8 | op, Ordering::Release);
    }

    /// One batch of bare ping-pong: `warm` rounds, then `rounds` timed ones; mean µs.
    pub fn ping_batch(&mut self, warm: u64, rounds: u64) -> Result<f64, String> {
        self.command(OP_PONG, warm + rounds);
        let (ping, pong) = (self.word(PING), self.word(PONG));
        baseline::ping(ping, pong, &mut self.pong_round, warm)?;
        let dt = baseline::ping(ping, pong, &mut self.pong_round, rounds)?;
        Ok(dt.as_secs_f64() * 1e6 / rounds as f64)
    }

    /// One batch of the bare one-way stream: `messages` one-line messages; mean ns each.
    pub fn stream_batch(&mut self, messages: u64) -> Result<f64, String> {
        self.command(OP_STREAM, messages);
        let ring = ring(self.region);
        let received = self.word(STREAM_RECEIVED);
        let dt = baseline::stream_send(&ring, received, &mut self.streamed, messages)?;
        Ok(dt.as_secs_f64() * 1e9 / messages as f64)
    }

    /// One batch of the bare UDP ping-pong, as [`Control::ping_batch`].
    pub fn udp_ping_batch(
        &mut self,
        bare: &mut BareUdp,
        warm: u64,
        rounds: u64,
    ) -> Result<f64, String> {
        self.command(OP_UDP_PONG, warm + rounds);
        bare.ping(&mut self.udp_round, warm)?;
        let dt = bare.ping(&mut self.udp_round, rounds)?;
        Ok(dt.as_secs_f64() * 1e6 / rounds as f64)
    }

    /// A bare UDP stream of `bytes`-byte messages for `time`: MB/s of payload that
    /// reached rank 1.
    pub fn udp_stream_batch(
        &mut self,
        bare: &mut BareUdp,
        bytes: usize,
        time: Duration,
    ) -> Result<f64, String> {
        self.command(OP_UDP_SINK, 0);
        let sink = self.seq;
        // Rank 1 must be counting before the first datagram leaves.
        let started = self.word(RESULT_SEQ);
        spin_until("rank 1's bare UDP sink", || {
            started.load(Ordering::Acquire) == sink << 1
        })?;
        let dt = bare.stream(bytes, time);
        self.command(OP_UDP_SINK_STOP, 0);
        let done = self.word(RESULT_SEQ);
        spin_until("rank 1's bare UDP count", || {
            done.load(Ordering::Acquire) == sink << 1 | 1
        })?;
        let received = self.word(RESULT).load(Ordering::Acquire);
        Ok(received as f64 / dt.as_secs_f64() / 1e6)
    }

    /// Makes rank 1 poll its bundle `index` (0: the main one) from now on. Waits until
    /// it does: the next command would overwrite the argument.
    pub fn select(&mut self, index: u64) -> Result<(), String> {
        self.command(OP_SELECT, index);
        let (seq, done) = (self.seq, self.word(SELECTED));
        spin_until("rank 1's bundle selection", || {
            done.load(Ordering::Acquire) == seq
        })
    }

    /// Tells rank 1 that `bursts` burst requests follow.
    pub fn expect_bursts(&mut self, bursts: u64) {
        self.command(OP_BURSTS, bursts);
    }

    /// Asks rank 1 for its next burst and spins (without polling, so the burst waits in
    /// the queue) until rank 1 says it is queued. Returns the burst's number, from 1.
    /// First polls `bundle` until rank 1 has every answer to the previous burst: over a
    /// lossy network an answer may need sending again, which only polling does.
    pub fn burst(&mut self, bundle: &Bundle) -> Result<u64, String> {
        self.await_bursts_answered(bundle)?;
        self.burst_round += 1;
        let r = self.burst_round;
        self.word(BURST_GO).store(r, Ordering::Release);
        let sent = self.word(BURST_SENT);
        spin_until("rank 1's burst", || sent.load(Ordering::Acquire) == r)?;
        Ok(r)
    }

    /// Polls `bundle` until rank 1 has every answer to its bursts so far. Call it after
    /// the last burst too, before any command rank 0 waits on without polling: rank 1
    /// drains before it reads the next command, and an answer lost on the network goes
    /// out again only while rank 0 polls (else both ranks wait on each other).
    pub fn await_bursts_answered(&self, bundle: &Bundle) -> Result<(), String> {
        let drained = self.word(BURST_DRAINED);
        let last = self.burst_round;
        poll_until(bundle, "rank 1's answers to its bursts", || {
            drained.load(Ordering::Acquire) >= last
        })
    }

    pub fn end(&mut self) {
        self.command(OP_END, 0);
    }
}

/// Rank 1's side: polls `bundle` and carries out commands until told to stop. For each
/// burst asked for, calls `send_burst` (which sends and returns once the requests are
/// queued), says so, then `drain` (which collects the answers). The bare UDP commands
/// use `bare`; rank 0 selects which of `bundles` is polled.
pub fn obey(
    region: &SharedRegion,
    bundles: &[&Bundle],
    mut bare: Option<&mut BareUdp>,
    mut send_burst: impl FnMut() -> Result<(), String>,
    mut drain: impl FnMut() -> Result<(), String>,
) -> Result<(), String> {
    let word = |at| word(region, at);
    let (mut seen, mut pong_round, mut burst_round, mut udp_round) = (0u64, 0u64, 0u64, 0u64);
    let mut streamed = 0u64;
    let mut bundle = bundles[0];
    loop {
        poll_until(bundle, "rank 0's next command", || {
            word(CMD).load(Ordering::Acquire) != seen
        })?;
        seen = word(CMD).load(Ordering::Acquire);
        let arg = word(ARG).load(Ordering::Acquire);
        match seen & 0xff {
            OP_PONG => baseline::pong(word(PING), word(PONG), &mut pong_round, arg)?,
            OP_STREAM => {
                baseline::stream_receive(&ring(region), word(STREAM_RECEIVED), &mut streamed, arg)?
            }
            OP_BURSTS => {
                for _ in 0..arg {
                    burst_round += 1;
                    let r = burst_round;
                    spin_until("rank 0's next burst", || {
                        word(BURST_GO).load(Ordering::Acquire) == r
                    })?;
                    send_burst()?;
                    word(BURST_SENT).store(r, Ordering::Release);
                    drain()?;
                    word(BURST_DRAINED).store(r, Ordering::Release);
                }
            }
            OP_UDP_PONG => bare_udp(&mut bare)?.pong(&mut udp_round, arg)?,
            OP_UDP_SINK => {
                let sink = seen >> 8;
                word(RESULT_SEQ).store(sink << 1, Ordering::Release);
                let bytes = bare_udp(&mut bare)?.sink(|| word(CMD).load(Ordering::Acquire) != seen);
                word(RESULT).store(bytes, Ordering::Release);
                word(RESULT_SEQ).store(sink << 1 | 1, Ordering::Release);
            }
            OP_UDP_SINK_STOP => {}
            OP_SELECT => {
                bundle = bundles
                    .get(arg as usize)
                    .ok_or_else(|| format!("rank 1 has no bundle {arg}"))?;
                word(SELECTED).store(seen >> 8, Ordering::Release);
            }
            OP_END => return Ok(()),
            op => return Err(format!("unknown command {op} from rank 0")),
        }
    }
}

fn bare_udp<'a>(bare: &'a mut Option<&mut BareUdp>) -> Result<&'a mut BareUdp, String> {
    bare.as_deref_mut()
        .ok_or_else(|| "rank 0 asked for the bare UDP baseline, rank 1 has no socket".into())
}
