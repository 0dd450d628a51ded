//! Round-trip time estimate and retransmission timeout of one peer (RFC 6298, with
//! Karn's rule: the caller only feeds samples of datagrams sent exactly once).

use super::Micros;

/// RTO before the first sample. Loopback and LAN round trips are tens of microseconds,
/// so the RFC's one second would stall the first lost datagram for nothing; 10 ms is
/// still far above any round trip of a cluster, so the first datagrams are not resent
/// spuriously while the estimate is empty.
const INITIAL_RTO: Micros = 10_000;

#[derive(Clone, Debug)]
pub(super) struct Rtt {
    /// Smoothed RTT times 8, or `None` before the first sample.
    srtt8: Option<Micros>,
    /// RTT variation times 4.
    var4: Micros,
    /// RTO from the estimate, clamped.
    rto: Micros,
    /// Backed-off RTO of the latest timeout, kept for new datagrams until a valid sample
    /// (Karn's rule: without it a link slower than the RTO would never produce one).
    backoff: Micros,
    min: Micros,
    max: Micros,
}

impl Rtt {
    pub(super) fn new(min: Micros, max: Micros) -> Rtt {
        Rtt {
            srtt8: None,
            var4: 0,
            rto: INITIAL_RTO.clamp(min, max),
            backoff: 0,
            min,
            max,
        }
    }

    /// The RTO a newly sent datagram starts with.
    pub(super) fn rto(&self) -> Micros {
        self.rto.max(self.backoff)
    }

    /// The smoothed RTT, if there was a sample.
    pub(super) fn srtt(&self) -> Option<Micros> {
        self.srtt8.map(|s| s / 8)
    }

    /// Feeds the round trip of a datagram that was sent once and is now acknowledged.
    pub(super) fn sample(&mut self, rtt: Micros) {
        match self.srtt8 {
            None => {
                self.srtt8 = Some(rtt.saturating_mul(8));
                self.var4 = rtt.saturating_mul(2);
            }
            Some(srtt8) => {
                let srtt = srtt8 / 8;
                let delta = srtt.abs_diff(rtt);
                self.var4 = self.var4 - self.var4 / 4 + delta;
                self.srtt8 = Some(srtt8 - srtt + rtt);
            }
        }
        let srtt = self.srtt8.unwrap_or(0) / 8;
        self.rto = srtt
            .saturating_add(self.var4.max(1))
            .clamp(self.min, self.max);
        self.backoff = 0;
    }

    /// Records that a datagram timed out and now waits `rto` before its next attempt.
    pub(super) fn backed_off(&mut self, rto: Micros) {
        self.backoff = self.backoff.max(rto).min(self.max);
    }
}
