//! Collectives over a process manager's key-value store (PMI-2, PMIx): every rank puts
//! its contribution under keys of this collective, the manager makes them visible to
//! all, and every rank reads everyone's.
//!
//! Values travel as hex text in chunks small enough for any PMI (PMI-2 allows values of
//! 1024 characters), with the chunk count under its own key. Keys name the rank too:
//! PMI-2's store is one namespace for the whole job.

use super::{BootError, Locality};
use std::time::Duration;

/// Bytes of contribution per value (twice as many hex characters).
const CHUNK: usize = 400;

/// A process manager as the collectives see it.
pub(super) trait Manager {
    fn rank(&self) -> u32;
    fn size(&self) -> u32;
    /// This process's node and the job's node count, from the manager.
    fn locality(&mut self) -> Result<Locality, BootError>;
    fn put(&mut self, key: &str, value: &str) -> Result<(), BootError>;
    /// Hands this process's puts to the manager (PMIx); a no-op where the fence does it.
    fn commit(&mut self) -> Result<(), BootError>;
    /// Makes every rank's puts so far visible to all; `timeout` bounds the manager's
    /// silence (`None`: wait as long as the slowest rank takes). Calls `progress` while
    /// it waits: a rank in a barrier must still answer the requests of the others.
    fn fence(
        &mut self,
        timeout: Option<Duration>,
        progress: &mut dyn FnMut(),
    ) -> Result<(), BootError>;
    /// Whether the store is readable right after `put` (PMIx: the get waits for the
    /// key); otherwise a fence must come between the puts and the gets (PMI-2).
    fn gets_wait_for_keys(&self) -> bool;
    /// `rank`'s value of `key`; an error naming the rank when it never put it. Calls
    /// `progress` while it waits.
    fn get(
        &mut self,
        rank: u32,
        key: &str,
        timeout: Option<Duration>,
        progress: &mut dyn FnMut(),
    ) -> Result<String, BootError>;
    /// Asks the manager to end the whole job.
    fn abort(&mut self, status: i32, reason: &str);
    fn finalize(&mut self);
}

/// Every rank's `mine`, indexed by rank: collective number `seq` over the store.
pub(super) fn allgather(
    m: &mut dyn Manager,
    seq: u32,
    size: u32,
    mine: &[u8],
    timeout: Option<Duration>,
    progress: &mut dyn FnMut(),
) -> Result<Vec<Vec<u8>>, BootError> {
    let me = m.rank();
    let chunks: Vec<&[u8]> = mine.chunks(CHUNK).collect();
    for (i, c) in chunks.iter().enumerate() {
        m.put(&chunk_key(seq, me, i), &to_hex(c))?;
    }
    m.put(&count_key(seq, me), &chunks.len().to_string())?;
    m.commit()?;
    if !m.gets_wait_for_keys() {
        m.fence(timeout, progress)?;
    }
    let mut all = Vec::with_capacity(size as usize);
    for rank in 0..size {
        let count = m.get(rank, &count_key(seq, rank), timeout, progress)?;
        let bad = |what: &str| {
            BootError::Protocol(format!(
                "rank {rank} published a malformed {what} for collective #{seq}"
            ))
        };
        let count: usize = count.parse().map_err(|_| bad("chunk count"))?;
        if count > super::frame::MAX_CONTRIBUTION.div_ceil(CHUNK) {
            return Err(bad("chunk count"));
        }
        let mut bytes = Vec::with_capacity(count * CHUNK);
        for i in 0..count {
            let text = m.get(rank, &chunk_key(seq, rank, i), timeout, progress)?;
            from_hex(&text, &mut bytes).ok_or_else(|| bad("chunk"))?;
        }
        all.push(bytes);
    }
    Ok(all)
}

fn count_key(seq: u32, rank: u32) -> String {
    format!("clump.{seq}.{rank}.n")
}

fn chunk_key(seq: u32, rank: u32, i: usize) -> String {
    format!("clump.{seq}.{rank}.{i}")
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Appends the bytes `text` spells in hex; `None` for anything else.
fn from_hex(text: &str, out: &mut Vec<u8>) -> Option<()> {
    if text.len() & 1 != 0 {
        return None;
    }
    for pair in text.as_bytes().chunks(2) {
        let s = std::str::from_utf8(pair).ok()?;
        out.push(u8::from_str_radix(s, 16).ok()?);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A store shared by `size` simulated ranks, driven one rank at a time.
    struct Fake {
        rank: u32,
        size: u32,
        store: std::rc::Rc<std::cell::RefCell<HashMap<(u32, String), String>>>,
    }

    impl Manager for Fake {
        fn rank(&self) -> u32 {
            self.rank
        }
        fn size(&self) -> u32 {
            self.size
        }
        fn locality(&mut self) -> Result<Locality, BootError> {
            Ok(Locality { node: 0, nodes: 1 })
        }
        fn put(&mut self, key: &str, value: &str) -> Result<(), BootError> {
            let k = (self.rank, key.to_owned());
            self.store.borrow_mut().insert(k, value.to_owned());
            Ok(())
        }
        fn commit(&mut self) -> Result<(), BootError> {
            Ok(())
        }
        fn fence(&mut self, _: Option<Duration>, _: &mut dyn FnMut()) -> Result<(), BootError> {
            Ok(())
        }
        fn gets_wait_for_keys(&self) -> bool {
            true
        }
        fn get(
            &mut self,
            rank: u32,
            key: &str,
            _: Option<Duration>,
            _: &mut dyn FnMut(),
        ) -> Result<String, BootError> {
            let found = self.store.borrow().get(&(rank, key.to_owned())).cloned();
            found.ok_or_else(|| BootError::Manager {
                manager: "fake",
                what: format!("rank {rank} never published {key}"),
            })
        }
        fn abort(&mut self, _: i32, _: &str) {}
        fn finalize(&mut self) {}
    }

    #[test]
    fn contributions_of_every_size_come_back_whole() {
        let store = std::rc::Rc::default();
        let mine = |r: u32| vec![r as u8; r as usize * 333];
        let mut ranks: Vec<Fake> = (0..4)
            .map(|rank| Fake {
                rank,
                size: 4,
                store: std::rc::Rc::clone(&store),
            })
            .collect();
        // Everyone puts first (a real store would block the gets until then).
        for f in &mut ranks[1..] {
            for (i, c) in mine(f.rank).chunks(CHUNK).enumerate() {
                f.put(&chunk_key(7, f.rank, i), &to_hex(c)).unwrap();
            }
            let n = mine(f.rank).chunks(CHUNK).count();
            f.put(&count_key(7, f.rank), &n.to_string()).unwrap();
        }
        let all = allgather(&mut ranks[0], 7, 4, &mine(0), None, &mut || {}).unwrap();
        assert_eq!(all, (0..4).map(mine).collect::<Vec<_>>());
    }

    #[test]
    fn a_rank_that_never_published_is_named() {
        let mut f = Fake {
            rank: 0,
            size: 3,
            store: std::rc::Rc::default(),
        };
        let e = allgather(&mut f, 1, 3, b"x", None, &mut || {}).unwrap_err();
        assert!(e.to_string().contains("rank 1 never published"), "{e}");
    }

    #[test]
    fn hex_is_checked() {
        let mut out = Vec::new();
        assert_eq!(from_hex("00ff7a", &mut out), Some(()));
        assert_eq!(out, [0, 255, 0x7a]);
        assert_eq!(from_hex("0", &mut out), None);
        assert_eq!(from_hex("zz", &mut out), None);
        assert_eq!(to_hex(&[1, 0xab]), "01ab");
    }
}
