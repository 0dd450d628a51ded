//! The bandwidth curve: one-way medium or long requests of one size streamed as fast as
//! the sender can issue them, timed until every request is answered.
//!
//! Every size's first and last message carry a pattern derived from (size, iteration) and
//! ask the receiver to check it; the messages between are timed. The first is sent and
//! answered before timing starts, the last after it ends, so that no later message can
//! overwrite a long payload before its check and no check (a read of the whole payload)
//! is counted as transfer time. The receiver counts checks and failures; rank 0 asks for
//! the counts at the end.

use super::wait::drain;
use clump::{Bundle, Endpoint, Kind};
use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Handler indices at the receiver (rank 1).
pub const H_MEDIUM: u8 = 4;
pub const H_LONG: u8 = 5;

/// One size of the curve: MB/s of each timed batch and the messages sent in all.
pub struct SizeResult {
    pub kind: Kind,
    pub bytes: usize,
    pub mb_s: Vec<f64>,
    pub messages: u64,
}

/// Payload checks the receiver made, and how many failed.
#[derive(Default)]
pub struct Checks {
    pub made: Cell<u32>,
    pub failed: Cell<u32>,
}

/// The pattern of message `iter` of a stream of `buf.len()`-byte messages.
pub fn fill(buf: &mut [u8], iter: u32) {
    let seed = seed(buf.len(), iter);
    for (w, chunk) in buf.chunks_mut(8).enumerate() {
        let word = mix(seed, w as u64).to_le_bytes();
        chunk.copy_from_slice(&word[..chunk.len()]);
    }
}

/// Whether `payload` is message `iter` of a stream of `len`-byte messages.
pub fn matches(payload: &[u8], len: usize, iter: u32) -> bool {
    let seed = seed(len, iter);
    payload.len() == len
        && payload
            .chunks(8)
            .enumerate()
            .all(|(w, chunk)| chunk == &mix(seed, w as u64).to_le_bytes()[..chunk.len()])
}

fn seed(len: usize, iter: u32) -> u64 {
    (len as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ (iter as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f)
}

fn mix(seed: u64, word: u64) -> u64 {
    let x = (seed ^ word).wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^ (x >> 29)
}

/// Installs the receiver's stream handlers (rank 1): they do nothing but check the
/// messages that ask for it (args: size, iteration, check). The layer acks each request.
pub fn install_receiver(ep: &Endpoint) -> clump::Result<Rc<Checks>> {
    let checks = Rc::new(Checks::default());
    for (index, kind) in [(H_MEDIUM, Kind::Medium), (H_LONG, Kind::Long)] {
        let c = checks.clone();
        ep.set_handler(index as usize, move |_, m| {
            if m.args.len() == 3 && m.args[2] != 0 {
                let ok = m.kind == kind
                    && (kind == Kind::Medium || m.offset == 0)
                    && matches(m.payload, m.args[0] as usize, m.args[1]);
                c.made.set(c.made.get() + 1);
                if !ok {
                    c.failed.set(c.failed.get() + 1);
                    eprintln!(
                        "loggp: payload check failed: {kind:?} message {} of {} bytes",
                        m.args[1], m.args[0]
                    );
                }
            }
        })?;
    }
    Ok(checks)
}

/// How a stream runs before and between its timed batches.
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    /// Untimed streaming after the first message; none if zero.
    pub warm: Duration,
    /// The most messages sent between two reads of the clock. Under loss a send may wait
    /// for credit a retransmission timeout, so one at a time keeps a batch near its time.
    pub per_check: u64,
    /// The most messages a batch sends (at least one `per_check`): under loss, waiting
    /// for the answers costs retransmission timeouts, the more the more messages.
    pub most: u64,
}

/// The sender's side (rank 0) of a stream of `kind` messages of one size to translation
/// `dest`: [`Stream::start`], timed [`Stream::batch`]es, [`Stream::finish`].
pub struct Stream<'a> {
    bundle: &'a Bundle,
    ep: &'a Endpoint,
    dest: u32,
    kind: Kind,
    iter: u32,
    per_check: u64,
    most: u64,
    mb_s: Vec<f64>,
}

impl<'a> Stream<'a> {
    /// Sends the first message (checked) and waits for its answer, then warms up as
    /// `pace` says. The size is `buf.len()`; `buf` is overwritten.
    pub fn start(
        bundle: &'a Bundle,
        ep: &'a Endpoint,
        dest: u32,
        kind: Kind,
        buf: &mut [u8],
        pace: Pace,
    ) -> Result<Stream<'a>, String> {
        let mut s = Stream {
            bundle,
            ep,
            dest,
            kind,
            iter: 0,
            per_check: pace.per_check.max(1),
            most: pace.most,
            mb_s: Vec::new(),
        };
        fill(buf, 0);
        s.send(buf, true)?;
        drain(bundle, ep)?;
        if !pace.warm.is_zero() {
            s.run_for(buf, pace.warm)?;
        }
        Ok(s)
    }

    /// One timed batch of at least `time`; `buf` holds the size's payload (any bytes).
    pub fn batch(&mut self, buf: &[u8], time: Duration) -> Result<(), String> {
        let (sent, dt) = self.run_for(buf, time)?;
        self.mb_s
            .push((buf.len() as u64 * sent) as f64 / dt.as_secs_f64() / 1e6);
        Ok(())
    }

    /// Sends the last message (checked) and waits for its answer. `buf` is overwritten.
    pub fn finish(mut self, buf: &mut [u8]) -> Result<SizeResult, String> {
        fill(buf, self.iter);
        self.send(buf, true)?;
        drain(self.bundle, self.ep)?;
        Ok(SizeResult {
            kind: self.kind,
            bytes: buf.len(),
            mb_s: self.mb_s,
            messages: self.iter as u64,
        })
    }

    #[inline]
    fn send(&mut self, payload: &[u8], check: bool) -> Result<(), String> {
        let args = [payload.len() as u32, self.iter, check as u32];
        let sent = match self.kind {
            Kind::Medium => self.ep.request_medium(self.dest, H_MEDIUM, &args, payload),
            _ => self.ep.request_long(self.dest, H_LONG, &args, payload, 0),
        };
        self.iter += 1;
        sent.map_err(|e| format!("{:?} request of {} bytes: {e}", self.kind, payload.len()))
    }

    /// Streams unchecked messages for at least `time`, then waits for every answer.
    /// Returns the messages sent and the time from the first send to the last answer.
    fn run_for(&mut self, payload: &[u8], time: Duration) -> Result<(u64, Duration), String> {
        let chunk =
            (((256usize << 10) / payload.len().max(1)).clamp(1, 64) as u64).min(self.per_check);
        let t0 = Instant::now();
        let mut sent = 0u64;
        loop {
            for _ in 0..chunk {
                self.send(payload, false)?;
            }
            sent += chunk;
            if sent >= self.most || t0.elapsed() >= time {
                break;
            }
        }
        drain(self.bundle, self.ep)?;
        Ok((sent, t0.elapsed()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_differ_by_size_and_iteration_and_check_their_length() {
        for n in [0, 1, 7, 8, 9, 4096, 65537] {
            let mut a = vec![0u8; n];
            fill(&mut a, 3);
            assert!(matches(&a, n, 3));
            if n > 0 {
                assert!(!matches(&a, n, 4));
                let mut b = a.clone();
                b[n - 1] ^= 1;
                assert!(!matches(&b, n, 3), "last byte of {n}");
            }
            assert!(!matches(&a, n + 1, 3));
        }
        let (mut a, mut b) = (vec![0u8; 64], vec![0u8; 32]);
        fill(&mut a, 0);
        fill(&mut b, 0);
        assert_ne!(&a[..32], &b[..]);
    }
}
