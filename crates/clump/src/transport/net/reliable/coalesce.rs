//! Many packets to one peer in one datagram: behind the packet the machine chose to send,
//! the next new packets of both channels (replies first, as always) that fit in the
//! peer's datagram size, each with its own CRC, sequence number, ack and timestamp, so
//! that each is acknowledged, timed and sent again alone if the datagram is lost. A
//! stream of small messages then costs one datagram (and one system call's share) per
//! datagram's worth of them instead of one each, and a credit-only answer rides in front
//! of the request that follows it.
//!
//! A packet leaves its payload where it lies when it is the datagram's last (the
//! caller's scatter-gather send); one that another follows has its payload copied behind
//! its header, which is why only payloads of at most [`COPY_AT_MOST`] bytes are.

use super::send::{AckOut, Encoded};
use super::timers::Timers;
use super::{ix, opposite, Micros, PeerState, Stats};
use crate::transport::net::fragment::Fragment;
use crate::transport::net::wire::{self, Channel};

/// The largest payload copied to let another packet follow it: beyond, a packet fills
/// enough of a datagram to go alone, sent from where it lies.
pub(crate) const COPY_AT_MOST: usize = 4096;

/// A datagram that coalescing may add packets to: `head` bytes at the front of the
/// caller's buffer, the last packet starting at `last`, then `tail` (the last packet's
/// payload, sent from where it lies).
pub(super) struct Packed {
    pub(super) head: usize,
    pub(super) last: usize,
    pub(super) tail: Option<Fragment>,
}

impl Packed {
    pub(super) fn new((head, tail): Encoded) -> Packed {
        Packed { head, last: 0, tail }
    }

    fn len(&self) -> usize {
        self.head + self.tail.as_ref().map_or(0, Fragment::len)
    }

    pub(super) fn into_encoded(self) -> Encoded {
        (self.head, self.tail)
    }
}

/// Which packets may follow the first in its datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Follow {
    /// Every new packet that fits (`ReliableConfig::coalesce`).
    All,
    /// One request, behind a new payload-less reply (a credit-only answer).
    OneRequest,
    Nothing,
}

/// Adds to `packed` (in `buf`, which holds the peer's datagram size) the new packets of
/// `st`'s channels that `follow` allows, the window lets go and fit, arming `timers` for
/// peer `p` with each one's retransmission deadline. Counts them in `stats.coalesced`.
/// Inline: its one caller is the transmit path, where it was inlined until the
/// codegen-unit split moved it out of line (+57 instructions per UDP round trip).
#[allow(clippy::too_many_arguments)]
#[inline]
pub(super) fn coalesce<A>(
    st: &mut PeerState<A>,
    now: Micros,
    follow: Follow,
    packed: &mut Packed,
    buf: &mut [u8],
    stats: &mut Stats,
    timers: &mut Timers,
    p: usize,
) {
    let room = st.datagram.min(buf.len());
    let (channels, mut left): (&[Channel], usize) = match follow {
        Follow::All => (&[Channel::Reply, Channel::Request], usize::MAX),
        Follow::OneRequest => (&[Channel::Request], 1),
        Follow::Nothing => return,
    };
    while left > 0 {
        left -= 1;
        if packed.tail.as_ref().is_some_and(|t| t.len() > COPY_AT_MOST) {
            return;
        }
        let used = packed.len();
        let Some(&channel) = channels.iter().find(|&&c| {
            st.tx[ix(c)]
                .next_new_len(st.window)
                .is_some_and(|len| used.saturating_add(len) <= room)
        }) else {
            return;
        };
        // The last packet becomes whole in the buffer; once the next one is written
        // behind it, it is marked as followed.
        if let Some(tail) = packed.tail.take() {
            buf[packed.head..used].copy_from_slice(tail.bytes());
        }
        packed.head = used;
        let back = ix(opposite(channel));
        let ack = AckOut {
            ack: st.rx[back].expected(),
            echo: st.rx[back].echo,
        };
        let (rto, window) = (st.rtt.rto(), st.window);
        let ((head, tail), deadline) =
            match st.tx[ix(channel)].send_new(now, rto, window, ack, &mut buf[used..]) {
                Some(Ok(sent)) => sent,
                // Checked by `next_new_len` and validated when queued: a bug if it
                // happens; the datagram leaves as it is.
                other => {
                    debug_assert!(other.is_none(), "encoding a queued message failed");
                    return;
                }
            };
        timers.arm(&mut st.timer, p, deadline);
        if let Err(e) = wire::mark_followed(&mut buf[packed.last..used], st.tx[ix(channel)].integrity) {
            // Encoded just now, so a bug: the new packet stays out of this datagram and
            // goes again when its timer fires.
            debug_assert!(false, "marking an encoded packet failed: {e}");
            return;
        }
        st.rx[back].ack_due = None;
        stats.coalesced += 1;
        packed.last = used;
        packed.head = used + head;
        packed.tail = tail;
    }
}
