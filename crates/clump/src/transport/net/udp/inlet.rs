//! A socket datagrams are read from, with its doorbell: whether a poll reads it at all
//! (the doorbell rang, or the period to read a silent one anyway ran out), and how much.

use super::rx::RxBatch;
use super::READ_ANYWAY_EVERY_US;
use crate::transport::net::doorbell::Doorbell;
use std::io;
use std::net::UdpSocket;
use std::os::fd::AsRawFd;

/// What one [`Inlet::receive`] did.
pub(super) enum Read {
    /// The doorbell was silent: no system call.
    Skipped,
    /// Buffers the kernel filled (0: nothing waited).
    Got(usize),
    Failed(io::Error),
}

pub(super) struct Inlet {
    pub(super) socket: UdpSocket,
    pub(super) doorbell: Option<Doorbell>,
    /// With a doorbell, when (caller's clock) a silent one is read anyway.
    read_anyway_at: u64,
}

impl Inlet {
    pub(super) fn new(socket: UdpSocket) -> Inlet {
        Inlet {
            socket,
            doorbell: None,
            read_anyway_at: 0,
        }
    }

    /// Whether the doorbell says datagrams wait (false without a doorbell).
    pub(super) fn rang(&self) -> bool {
        self.doorbell.as_ref().is_some_and(Doorbell::rang)
    }

    /// Reads up to `max` buffers into `rx` from entry `first` on (one system call), unless
    /// the doorbell is silent and `now` (the caller's clock, microseconds) is before the
    /// time to read anyway. One read of the counter decides whether and how much.
    pub(super) fn receive(&mut self, rx: &mut RxBatch, first: usize, max: usize, now: u64) -> Read {
        let mut max = max;
        let counted = match &self.doorbell {
            Some(bell) => {
                let counted = bell.snapshot();
                match bell.unread(counted) {
                    0 if now < self.read_anyway_at => return Read::Skipped,
                    0 => {}
                    unread => max = max.min(unread as usize),
                }
                self.read_anyway_at = now + READ_ANYWAY_EVERY_US;
                counted
            }
            None => 0,
        };
        let got = rx.receive(self.socket.as_raw_fd(), first, max);
        if let Some(bell) = &mut self.doorbell {
            bell.read(counted, *got.as_ref().unwrap_or(&0));
        }
        match got {
            Ok(n) => Read::Got(n),
            Err(e) => Read::Failed(e),
        }
    }
}
