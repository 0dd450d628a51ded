//! The optional datagram MAC (`CLUMP_NET_AUTH=1`): every datagram ends in a 128-bit
//! SipHash-2-4 tag of all its bytes under the job's secret key, which start-up hands to
//! the ranks (`CLUMP_JOB_KEY` from `clump run`, or from rank 0 through the process
//! manager) and never puts on the wire. The job id travels in every datagram, so anyone
//! who sees the traffic knows it; without the key they still cannot make a datagram the
//! job accepts. Pure: it seals and opens byte slices, `port.rs` applies it.

use siphasher::sip128::{Hasher128, SipHasher24};
use std::hash::Hasher;

/// Bytes the tag adds to each datagram.
pub const TAG_LEN: usize = 16;

/// The job's datagram key.
#[derive(Clone, Copy)]
pub struct DatagramKey {
    k0: u64,
    k1: u64,
}

impl std::fmt::Debug for DatagramKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DatagramKey(..)") // a secret: never printed
    }
}

impl DatagramKey {
    pub fn new(key: u128) -> DatagramKey {
        DatagramKey {
            k0: key as u64,
            k1: (key >> 64) as u64,
        }
    }

    fn tag(&self, bytes: &[u8]) -> [u8; TAG_LEN] {
        let mut h = SipHasher24::new_with_keys(self.k0, self.k1);
        h.write(bytes);
        h.finish128().as_bytes()
    }

    /// Appends the tag of `buf[..len]` after it; returns the sealed length. `buf` must
    /// have room for [`TAG_LEN`] more bytes.
    pub fn seal(&self, buf: &mut [u8], len: usize) -> usize {
        let tag = self.tag(&buf[..len]);
        buf[len..len + TAG_LEN].copy_from_slice(&tag);
        len + TAG_LEN
    }

    /// The datagram without its tag, if the tag is right.
    pub fn open<'a>(&self, datagram: &'a [u8]) -> Option<&'a [u8]> {
        let body_len = datagram.len().checked_sub(TAG_LEN)?;
        let (body, tag) = datagram.split_at(body_len);
        // Compared in full, whatever the first difference, so that timing tells a
        // forger nothing about how much of a guess was right.
        let diff = self
            .tag(body)
            .iter()
            .zip(tag)
            .fold(0u8, |d, (a, b)| d | (a ^ b));
        (diff == 0).then_some(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_datagram_opens_under_its_key_only() {
        let key = DatagramKey::new(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
        let mut buf = vec![0u8; 64];
        buf[..5].copy_from_slice(b"hello");
        let len = key.seal(&mut buf, 5);
        assert_eq!(len, 5 + TAG_LEN);
        assert_eq!(key.open(&buf[..len]), Some(&b"hello"[..]));
        let other = DatagramKey::new(0x0123_4567_89ab_cdef_fedc_ba98_7654_3211);
        assert_eq!(other.open(&buf[..len]), None, "another job's key");
        for i in 0..len {
            let mut bad = buf[..len].to_vec();
            bad[i] ^= 0x40;
            assert_eq!(key.open(&bad), None, "byte {i} changed");
        }
        assert_eq!(key.open(&buf[..len - 1]), None, "truncated");
        assert_eq!(key.open(&buf[..3]), None, "shorter than a tag");
        assert!(!format!("{key:?}").contains("0123"));
    }
}
