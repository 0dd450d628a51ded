//! The transport's own seeded fault injector: loss, duplication, reordering and
//! corruption of the datagrams a process sends (`CLUMP_NET_LOSS`, `_DUP`, `_REORDER`,
//! `_CORRUPT`, `_SEED`), and replays of them as an attacker who captured them would
//! send them (`_REPLAY`). The kernel here has no `tc netem`; nftables can drop between
//! network namespaces, but only this injector duplicates, reorders and corrupts. Pure:
//! it decides, `udp.rs` acts.

use crate::config::Faults;

/// What happens to one outgoing datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fate {
    /// Copies that go out: 0 (lost), 1, or 2 (duplicated).
    pub copies: u8,
    /// Held back and sent after the datagrams that follow it (reordered).
    pub hold: bool,
    /// Flip these bits of the byte at this index (taken modulo the datagram's length).
    pub corrupt: Option<(usize, u8)>,
    /// Captured, to be sent again verbatim later (after corruption, if any): the first
    /// `CLUMP_NET_REPLAY` datagrams.
    pub replay: bool,
}

impl Fate {
    pub const CLEAN: Fate = Fate {
        copies: 1,
        hold: false,
        corrupt: None,
        replay: false,
    };
}

/// Draws each datagram's fate from a seeded generator, so a run with a seed repeats.
#[derive(Clone, Debug)]
pub struct FaultInjector {
    faults: Faults,
    state: u64,
    /// Datagrams captured for replay so far.
    captured: u64,
}

impl FaultInjector {
    pub fn new(faults: Faults) -> FaultInjector {
        FaultInjector {
            faults,
            state: faults.seed ^ 0x6a09_e667_f3bc_c909,
            captured: 0,
        }
    }

    pub fn decide(&mut self) -> Fate {
        if self.chance(self.faults.loss) {
            return Fate {
                copies: 0,
                ..Fate::CLEAN
            };
        }
        let copies = if self.chance(self.faults.duplicate) {
            2
        } else {
            1
        };
        let hold = self.chance(self.faults.reorder);
        let corrupt = self.chance(self.faults.corrupt).then(|| {
            let r = self.next();
            // A non-zero mask, so the byte really changes.
            (r as usize >> 8, (r as u8) | 1)
        });
        // Not drawn: the start of a stream is what a replay from a new port could make
        // a receiver that took it for a new peer run again.
        let replay = self.captured < self.faults.replay;
        self.captured += u64::from(replay);
        Fate {
            copies,
            hold,
            corrupt,
            replay,
        }
    }

    fn chance(&mut self, percent: f64) -> bool {
        percent > 0.0 && (self.next() >> 11) as f64 / (1u64 << 53) as f64 * 100.0 < percent
    }

    /// splitmix64.
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn injector(loss: f64, duplicate: f64, reorder: f64, corrupt: f64) -> FaultInjector {
        FaultInjector::new(Faults {
            loss,
            duplicate,
            reorder,
            corrupt,
            replay: 0,
            seed: 42,
        })
    }

    #[test]
    fn no_faults_means_every_datagram_goes_out_once_untouched() {
        let mut f = injector(0.0, 0.0, 0.0, 0.0);
        assert!((0..10_000).all(|_| f.decide() == Fate::CLEAN));
    }

    #[test]
    fn rates_come_out_near_what_was_asked() {
        let mut f = injector(5.0, 10.0, 20.0, 1.0);
        let n = 200_000;
        let fates: Vec<Fate> = (0..n).map(|_| f.decide()).collect();
        let pct = |count: usize| count as f64 * 100.0 / n as f64;
        let lost = pct(fates.iter().filter(|f| f.copies == 0).count());
        let sent: Vec<&Fate> = fates.iter().filter(|f| f.copies > 0).collect();
        let of_sent = |count: usize| count as f64 * 100.0 / sent.len() as f64;
        let dup = of_sent(sent.iter().filter(|f| f.copies == 2).count());
        let held = of_sent(sent.iter().filter(|f| f.hold).count());
        let bad = of_sent(sent.iter().filter(|f| f.corrupt.is_some()).count());
        assert!((4.7..5.3).contains(&lost), "loss {lost}");
        assert!((9.6..10.4).contains(&dup), "dup {dup}");
        assert!((19.4..20.6).contains(&held), "reorder {held}");
        assert!((0.85..1.15).contains(&bad), "corrupt {bad}");
        assert!(sent
            .iter()
            .all(|f| f.corrupt.is_none_or(|(_, mask)| mask != 0)));
    }

    #[test]
    fn a_seed_repeats_its_run_and_total_loss_drops_everything() {
        let a: Vec<Fate> = {
            let mut f = injector(30.0, 30.0, 30.0, 30.0);
            (0..1000).map(|_| f.decide()).collect()
        };
        let mut f = injector(30.0, 30.0, 30.0, 30.0);
        assert!(a.iter().all(|fate| *fate == f.decide()));
        let mut all = injector(100.0, 0.0, 0.0, 0.0);
        assert!((0..1000).all(|_| all.decide().copies == 0));
    }
}
