//! The datagram seal (`CLUMP_NET_AUTH`, on by default): every datagram starts with a
//! 32-byte tag, a MAC under the job's secret key (which start-up hands to the ranks,
//! `CLUMP_JOB_KEY` from `clump run` or from rank 0 through the process manager, and never
//! puts on the wire) over the rest of the datagram. One whose tag is not right under the
//! key is dropped before the protocol reads a byte of it, so that nobody without the key
//! (who sees the job id and the sequence numbers of the traffic) can make the job run a
//! handler. The packets travel in the clear. Pure: it tags and checks byte slices,
//! `port.rs` applies it.
//!
//! Why AEGIS used as a MAC (the `aegis` crate, RFC 10032's MAC mode): an AES-based MAC
//! that only reads the bytes, so a datagram is tagged where it lies, its header in the
//! send buffer and its payload in the message (no copy), and checked in the receive
//! buffer. On this CPU (AES and VAES), AEGIS-128X4 tags a 64 KiB datagram at about 90
//! GB/s, memcpy's speed, and AEGIS-128L a 64-byte one in about 30 ns, where AES-128-GCM
//! encrypted at 10 GB/s after a copy and took 60 ns (SipHash-2-4, the first seal, 3.7
//! GB/s and 27 ns). The tag is the 256-bit one the crate recommends for MACs; the key
//! serves the MAC only, with a fixed nonce per variant: RFC 10032's MAC is the one AEGIS
//! function that allows a (key, nonce) pair to be reused for different inputs, so no
//! datagram carries a nonce and none can repeat, where a Wegman-Carter MAC (GMAC, Poly1305)
//! would give its hash key away to two datagrams under one nonce. `clump info` measures
//! it on the machine at hand (`seal_speed.rs`).

use crate::transport::net::wire::{decode_next, Integrity};
use aegis::aegis128l::Aegis128LMac;
use aegis::aegis128x4::Aegis128X4Mac;

/// Bytes the seal adds to each datagram: the tag, in front.
pub const SEAL_LEN: usize = 32;

/// Datagrams of at least this many bytes (after the tag) are tagged with AEGIS-128X4,
/// which runs four AES lanes and wins from here on; shorter ones with AEGIS-128L, whose
/// smaller state starts faster.
const WIDE_FROM: usize = 512;

/// The job's datagram key: the two MACs' states after their key set-up, cloned per
/// datagram.
pub struct DatagramKey {
    narrow: Aegis128LMac<SEAL_LEN>,
    wide: Aegis128X4Mac<SEAL_LEN>,
}

impl std::fmt::Debug for DatagramKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DatagramKey(..)") // a secret: never printed
    }
}

impl DatagramKey {
    pub fn new(key: u128) -> DatagramKey {
        let key = key.to_le_bytes();
        DatagramKey {
            narrow: Aegis128LMac::new_with_nonce(&key, b"clump datagram 1"),
            wide: Aegis128X4Mac::new_with_nonce(&key, b"clump datagram 4"),
        }
    }

    /// The tag of the bytes `head` then `tail` (a datagram's buffer and the payload
    /// fragment sent after it).
    fn tag(&self, head: &[u8], tail: &[u8]) -> [u8; SEAL_LEN] {
        if head.len() + tail.len() < WIDE_FROM {
            let mut mac = self.narrow.clone();
            mac.update(head);
            mac.update(tail);
            mac.finalize()
        } else {
            let mut mac = self.wide.clone();
            mac.update(head);
            mac.update(tail);
            mac.finalize()
        }
    }

    /// Seals the datagram `buf[SEAL_LEN..] ++ tail` where it lies: writes its tag into
    /// `buf[..SEAL_LEN]`.
    pub fn seal(&self, buf: &mut [u8], tail: &[u8]) {
        let (tag, head) = buf.split_at_mut(SEAL_LEN);
        tag.copy_from_slice(&self.tag(head, tail));
    }

    /// The packets' bytes of a sealed datagram, if its tag is right (the comparison
    /// takes the same time whichever byte differs).
    pub fn open<'a>(&self, datagram: &'a [u8]) -> Option<&'a [u8]> {
        if datagram.len() < SEAL_LEN {
            return None;
        }
        let (tag, body) = datagram.split_at(SEAL_LEN);
        let tag: &[u8; SEAL_LEN] = tag.try_into().ok()?;
        let right = if body.len() < WIDE_FROM {
            let mut mac = self.narrow.clone();
            mac.update(body);
            mac.verify(tag)
        } else {
            let mut mac = self.wide.clone();
            mac.update(body);
            mac.verify(tag)
        };
        right.ok().map(|()| body)
    }
}

/// Why a dropped datagram is a packet of job `job` all the same, which is what a sender
/// whose `CLUMP_NET_AUTH` differs from this port's (`sealed`) sends, or a forger: one
/// without a seal that a port which seals found untagged, or a sealed one that a port which
/// does not seal could not decode.
pub fn misfit(datagram: &[u8], job: u64, sealed: bool) -> Option<&'static str> {
    if sealed {
        decode_next(datagram, job, Integrity::Crc)
            .is_ok()
            .then_some("carry no seal")
    } else {
        let body = datagram.get(SEAL_LEN..)?;
        decode_next(body, job, Integrity::Sealed)
            .is_ok()
            .then_some("are sealed")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealed(key: &DatagramKey, head: &[u8], tail: &[u8]) -> Vec<u8> {
        let mut buf = vec![0u8; SEAL_LEN + head.len()];
        buf[SEAL_LEN..].copy_from_slice(head);
        key.seal(&mut buf, tail);
        buf.extend_from_slice(tail);
        buf
    }

    #[test]
    fn a_sealed_datagram_opens_under_its_key_only() {
        let key = DatagramKey::new(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
        let other = DatagramKey::new(0x0123_4567_89ab_cdef_fedc_ba98_7654_3211);
        // Both MACs: below and above the width threshold, and at it.
        for len in [0, 5, WIDE_FROM - 1, WIDE_FROM, 3000] {
            let body: Vec<u8> = (0..len).map(|i| (i * 7 + 1) as u8).collect();
            let split = len / 3;
            let d = sealed(&key, &body[..split], &body[split..]);
            assert_eq!(d.len(), len + SEAL_LEN);
            assert_eq!(key.open(&d), Some(&body[..]), "{len} bytes");
            assert_eq!(other.open(&d), None, "another job's key, {len} bytes");
            for i in (0..d.len()).step_by(1 + d.len() / 97) {
                let mut bad = d.clone();
                bad[i] ^= 0x40;
                assert_eq!(key.open(&bad), None, "byte {i} of {len} changed");
            }
            if len > 0 {
                assert_eq!(key.open(&d[..d.len() - 1]), None, "truncated, {len} bytes");
            }
        }
        assert_eq!(key.open(&[0u8; SEAL_LEN - 1]), None, "shorter than a seal");
        assert!(!format!("{key:?}").contains("0123"));
    }

    /// The tag is part of the wire format: a host without AES instructions (libaegis's
    /// portable code, which `qemu-x86_64 -cpu qemu64` runs this test on) must make the
    /// same tags as one with them, under either MAC.
    #[test]
    fn the_tags_are_the_wires_own_whatever_the_cpu() {
        let key = DatagramKey::new(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
        for (len, want) in [
            (64, "57e4c88ab9c842cbdce3a888556fe7456946bf3a75efde73e6f4342bee0c6479"),
            (3000, "e8a0e7a961ddff84e0d1def26fd29717d40cdedd2ddb24f269606c5372c13eb6"),
        ] {
            let body: Vec<u8> = (0..len).map(|i| (i * 7 + 1) as u8).collect();
            let d = sealed(&key, &body, &[]);
            let hex: String = d[..SEAL_LEN].iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(hex, want, "{len} bytes");
        }
    }

    #[test]
    fn a_packet_of_the_job_dropped_for_its_seal_is_told_apart() {
        use crate::transport::net::wire::{encode_header_into, encode_into, Args, Channel, Header, PacketKind};
        let job = 0x5eed;
        let mut h = Header::new(PacketKind::Short, Channel::Request);
        h.job = job;
        h.seq = 1;
        h.args = Args::new(&[7]).unwrap();
        let mut plain = vec![0u8; 256];
        let len = encode_into(&h, &[], &mut plain).unwrap();
        plain.truncate(len);
        let mut sealed = vec![0u8; 256];
        let len = encode_header_into(&h, &[], &mut sealed[SEAL_LEN..], Integrity::Sealed).unwrap();
        sealed.truncate(SEAL_LEN + len);
        DatagramKey::new(3).seal(&mut sealed, &[]);
        // What a peer whose CLUMP_NET_AUTH differs sends.
        assert_eq!(misfit(&plain, job, true), Some("carry no seal"));
        assert_eq!(misfit(&sealed, job, false), Some("are sealed"));
        // Another job's, and what is no packet at all, are not.
        assert_eq!(misfit(&plain, job + 1, true), None);
        assert_eq!(misfit(&sealed, job + 1, false), None);
        assert_eq!(misfit(&sealed, job, true), None, "a sealed one under another key");
        assert_eq!(misfit(&plain, job, false), None);
        assert_eq!(misfit(&[0u8; 40], job, false), None);
        assert_eq!(misfit(&[0u8; 4], job, false), None);
    }

    #[test]
    fn the_tag_covers_the_buffer_and_the_fragment_as_one_datagram() {
        let key = DatagramKey::new(7);
        let body = [9u8; 40];
        // Where the buffer ends and the fragment starts does not change the tag.
        assert_eq!(sealed(&key, &body[..10], &body[10..]), sealed(&key, &body, &[]));
        // A tag made for a narrow datagram does not open a wide one's bytes.
        let wide = [1u8; WIDE_FROM];
        let mut d = sealed(&key, &wide[..WIDE_FROM - 1], &[]);
        d.push(1);
        assert_eq!(key.open(&d), None);
    }
}
