//! The datagram seal (`CLUMP_NET_AUTH`, on by default): every datagram is sealed with
//! AES-128-GCM under the job's secret key, which start-up hands to the ranks
//! (`CLUMP_JOB_KEY` from `clump run`, or from rank 0 through the process manager) and
//! never puts on the wire. A sealed datagram is the packets' bytes encrypted in place,
//! then the 12-byte nonce, then the 16-byte tag; one whose tag is not right under the
//! key is dropped before the protocol reads a byte of it, so that nobody without the key
//! (who sees the job id and the sequence numbers of plain traffic) can make the job run a
//! handler. Pure: it seals and opens byte slices, `port.rs` applies it.
//!
//! Why AES-GCM, as ring implements it: its GHASH (a carry-less multiply universal hash)
//! and AES run together over the bytes it encrypts at several GB/s with the CPU's AES and
//! CLMUL instructions, where authenticating the same bytes as associated data only
//! (GMAC) runs a one-block loop, slower here than SipHash; encrypting costs
//! nothing more, so the packets travel encrypted.
//!
//! The nonce is unique per key as GCM needs: 64 random bits drawn per sealing port, and
//! a 32-bit count of its datagrams; the random half is drawn again when the count wraps.

use ring::aead::{Aad, LessSafeKey, Nonce, Tag, UnboundKey, AES_128_GCM, NONCE_LEN};

/// Bytes of the tag.
const TAG_BYTES: usize = 16;
/// Bytes the seal adds to each datagram: the nonce and the tag.
pub const SEAL_LEN: usize = NONCE_LEN + TAG_BYTES;

/// The job's datagram key, with the nonces of one sealing port.
pub struct DatagramKey {
    key: LessSafeKey,
    salt: u64,
    count: u32,
}

impl std::fmt::Debug for DatagramKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DatagramKey(..)") // a secret: never printed
    }
}

fn random_salt() -> u64 {
    crate::config::random_job_id()
}

impl DatagramKey {
    pub fn new(key: u128) -> DatagramKey {
        // A 16-byte key is what AES-128 takes: this cannot fail.
        let unbound = UnboundKey::new(&AES_128_GCM, &key.to_le_bytes())
            .unwrap_or_else(|_| unreachable!("AES-128 takes a 16-byte key"));
        DatagramKey {
            key: LessSafeKey::new(unbound),
            salt: random_salt(),
            count: 0,
        }
    }

    fn next_nonce(&mut self) -> [u8; NONCE_LEN] {
        self.count = self.count.wrapping_add(1);
        if self.count == 0 {
            self.salt = random_salt();
        }
        let mut nonce = [0u8; NONCE_LEN];
        nonce[..8].copy_from_slice(&self.salt.to_le_bytes());
        nonce[8..].copy_from_slice(&self.count.to_le_bytes());
        nonce
    }

    /// Seals `buf[..len]` in place and appends its nonce and tag; returns the sealed
    /// length. `buf` must have room for [`SEAL_LEN`] more bytes.
    pub fn seal(&mut self, buf: &mut [u8], len: usize) -> usize {
        let nonce = self.next_nonce();
        let (body, rest) = buf.split_at_mut(len);
        let tag = self
            .key
            .seal_in_place_separate_tag(Nonce::assume_unique_for_key(nonce), Aad::empty(), body)
            // ring refuses only messages beyond GCM's 64 GiB, never a datagram.
            .unwrap_or_else(|_| unreachable!("a datagram is far below GCM's limit"));
        rest[..NONCE_LEN].copy_from_slice(&nonce);
        rest[NONCE_LEN..SEAL_LEN].copy_from_slice(tag.as_ref());
        len + SEAL_LEN
    }

    /// Opens a sealed datagram in place: its packets' bytes, if the tag is right (ring
    /// compares it in constant time). A datagram that does not open is left garbled.
    pub fn open<'a>(&self, datagram: &'a mut [u8]) -> Option<&'a [u8]> {
        let body_len = datagram.len().checked_sub(SEAL_LEN)?;
        let (body, seal) = datagram.split_at_mut(body_len);
        let nonce: [u8; NONCE_LEN] = seal[..NONCE_LEN].try_into().ok()?;
        let tag: [u8; TAG_BYTES] = seal[NONCE_LEN..].try_into().ok()?;
        self.key
            .open_in_place_separate_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::empty(),
                Tag::from(tag),
                body,
                0..,
            )
            .ok()
            .map(|plain| &*plain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_datagram_opens_under_its_key_only() {
        let mut key = DatagramKey::new(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
        let mut buf = vec![0u8; 64];
        buf[..5].copy_from_slice(b"hello");
        let len = key.seal(&mut buf, 5);
        assert_eq!(len, 5 + SEAL_LEN);
        assert_ne!(&buf[..5], b"hello", "the packets travel encrypted");
        let sealed = buf[..len].to_vec();
        assert_eq!(key.open(&mut buf[..len]), Some(&b"hello"[..]));
        let other = DatagramKey::new(0x0123_4567_89ab_cdef_fedc_ba98_7654_3211);
        assert_eq!(other.open(&mut sealed.clone()), None, "another job's key");
        for i in 0..len {
            let mut bad = sealed.clone();
            bad[i] ^= 0x40;
            assert_eq!(key.open(&mut bad), None, "byte {i} changed");
        }
        assert_eq!(key.open(&mut sealed[..len - 1].to_vec()), None, "truncated");
        assert_eq!(key.open(&mut sealed[..3].to_vec()), None, "shorter than a seal");
        assert!(!format!("{key:?}").contains("0123"));
    }

    #[test]
    fn every_datagram_gets_a_nonce_of_its_own() {
        let mut key = DatagramKey::new(7);
        let mut a = [0u8; 8 + SEAL_LEN];
        let mut b = a;
        key.seal(&mut a, 8);
        key.seal(&mut b, 8);
        assert_ne!(a[8..8 + NONCE_LEN], b[8..8 + NONCE_LEN]);
        assert_ne!(a[..8], b[..8], "the same bytes seal differently");
        // At the count's wrap, the random half is drawn again.
        key.count = u32::MAX;
        let salt = key.salt;
        let nonce = key.next_nonce();
        assert_eq!(u32::from_le_bytes(nonce[8..].try_into().unwrap()), 0);
        assert_ne!(key.salt, salt);
    }
}
