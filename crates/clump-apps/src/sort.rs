//! Sample sort and radix sort (paper 004): each rank holds `keys` random 64-bit keys; afterwards
//! every rank's keys are sorted and all of rank r's keys precede rank r+1's, with the same
//! multiset of keys as before. Here: the input, the local radix pass both sorts use, and the
//! checker.

use crate::rng::Rng;
use crate::Mismatch;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortParams {
    pub keys: usize,
    pub seed: u64,
}

impl SortParams {
    pub fn generate(&self, rank: u32) -> Vec<u64> {
        let mut rng = Rng::for_rank(self.seed, rank);
        (0..self.keys).map(|_| rng.next_u64()).collect()
    }

    /// The sequential result: all ranks' keys, sorted.
    pub fn reference(&self, ranks: u32) -> Vec<u64> {
        let mut all: Vec<u64> = (0..ranks).flat_map(|r| self.generate(r)).collect();
        all.sort_unstable();
        all
    }
}

/// The digit of `key` that pass `pass` sorts on, `bits` bits wide (least significant first).
pub fn digit(key: u64, pass: u32, bits: u32) -> usize {
    ((key >> (pass * bits)) & ((1u64 << bits) - 1)) as usize
}

/// Per-digit counts of `keys` for one pass.
pub fn histogram(keys: &[u64], pass: u32, bits: u32) -> Vec<usize> {
    let mut counts = vec![0; 1 << bits];
    for &k in keys {
        counts[digit(k, pass, bits)] += 1;
    }
    counts
}

/// Sequential LSD radix sort (the local step of radix sort, and a check of the digit helpers).
pub fn radix_sort(keys: &mut Vec<u64>, bits: u32) {
    let mut out = vec![0; keys.len()];
    for pass in 0..u64::BITS.div_ceil(bits) {
        let mut start = 0;
        let mut offsets: Vec<usize> = histogram(keys, pass, bits)
            .into_iter()
            .map(|c| {
                start += c;
                start - c
            })
            .collect();
        for &k in keys.iter() {
            let d = digit(k, pass, bits);
            out[offsets[d]] = k;
            offsets[d] += 1;
        }
        std::mem::swap(keys, &mut out);
    }
}

/// A fingerprint of a multiset of keys: the wrapping sum of a mix of each. Equal multisets
/// have equal fingerprints; a multiset with keys lost, added or changed has the same one only
/// by a collision of 64-bit mixes (about 2^-64 for a random change).
pub fn fingerprint(keys: &[u64]) -> u64 {
    keys.iter().fold(0u64, |acc, &k| {
        let mut z = k.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        acc.wrapping_add(z ^ (z >> 31))
    })
}

/// What a rank's sorted part tells the others: `[first, last, len, fingerprint of the part,
/// fingerprint of the rank's input]` (first and last are 0 for an empty part).
pub fn summary(input: &[u64], part: &[u64]) -> [u64; 5] {
    [
        part.first().copied().unwrap_or(0),
        part.last().copied().unwrap_or(0),
        part.len() as u64,
        fingerprint(part),
        fingerprint(input),
    ]
}

/// The check that scales: `part` (rank `rank`'s) is in order, and every rank's `summary`
/// (concatenated by rank) says the parts follow each other in order and hold, together, the
/// multiset of the inputs. Each rank's work is its own keys.
pub fn check_distributed(rank: usize, part: &[u64], summaries: &[u64]) -> Result<(), Mismatch> {
    if let Some(i) = part.windows(2).position(|w| w[0] > w[1]) {
        return Err(Mismatch(format!(
            "rank {rank}: key {} ({:#x}) after {:#x}",
            i + 1,
            part[i + 1],
            part[i]
        )));
    }
    let rows: Vec<&[u64]> = summaries.chunks(5).collect();
    let mut last: Option<u64> = None;
    for (r, row) in rows.iter().enumerate().filter(|(_, row)| row[2] > 0) {
        if let Some(prev) = last.filter(|&p| p > row[0]) {
            return Err(Mismatch(format!(
                "rank {r} starts at {:#x}, below an earlier rank's last key {prev:#x}",
                row[0]
            )));
        }
        last = Some(row[1]);
    }
    let sum = |k: usize| rows.iter().fold(0u64, |a, row| a.wrapping_add(row[k]));
    if sum(3) != sum(4) {
        return Err(Mismatch(
            "the sorted keys are not the input's: their fingerprints differ".into(),
        ));
    }
    Ok(())
}

/// Checks the ranks' outputs, concatenated by rank, against the sorted input.
pub fn check(reference: &[u64], parts: &[Vec<u64>]) -> Result<(), Mismatch> {
    let total: usize = parts.iter().map(Vec::len).sum();
    if total != reference.len() {
        return Err(Mismatch(format!(
            "{total} keys after sorting, {} before",
            reference.len()
        )));
    }
    let mut offset = 0;
    for (rank, part) in parts.iter().enumerate() {
        check_part(reference, offset, part).map_err(|m| Mismatch(format!("rank {rank}: {m}")))?;
        offset += part.len();
    }
    Ok(())
}

/// Checks one rank's output: the slice of the sorted input starting at `offset` (the number of
/// keys on lower ranks).
pub fn check_part(reference: &[u64], offset: usize, part: &[u64]) -> Result<(), Mismatch> {
    let Some(expected) = reference.get(offset..offset + part.len()) else {
        return Err(Mismatch(format!(
            "keys {offset}..{} past the {} keys",
            offset + part.len(),
            reference.len()
        )));
    };
    match expected.iter().zip(part).position(|(e, g)| e != g) {
        None => Ok(()),
        Some(i) => Err(Mismatch(format!(
            "key {} is {:#x}, expected {:#x}",
            offset + i,
            part[i],
            expected[i]
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_distributed_check_finds_disorder_lost_keys_and_overlaps() {
        let inputs = [vec![5u64, 1, 9], vec![3, 7, 2]];
        let parts = [vec![1u64, 2, 3], vec![5, 7, 9]];
        let rows = |parts: &[Vec<u64>]| -> Vec<u64> {
            inputs
                .iter()
                .zip(parts)
                .flat_map(|(i, p)| summary(i, p))
                .collect()
        };
        let good = rows(&parts);
        check_distributed(0, &parts[0], &good).unwrap();
        check_distributed(1, &parts[1], &good).unwrap();
        assert!(check_distributed(0, &[2, 1, 3], &good).is_err());
        let changed = rows(&[vec![1, 2, 3], vec![5, 7, 8]]);
        assert!(check_distributed(1, &[5, 7, 8], &changed)
            .unwrap_err()
            .0
            .contains("fingerprints"));
        let overlap = rows(&[vec![1, 2, 5], vec![3, 7, 9]]);
        assert!(check_distributed(1, &[3, 7, 9], &overlap)
            .unwrap_err()
            .0
            .contains("rank 1 starts"));
    }

    #[test]
    fn radix_sort_sorts() {
        let p = SortParams {
            keys: 1000,
            seed: 8,
        };
        let mut keys = p.generate(0);
        keys.extend([0, u64::MAX, 5, 5]);
        let mut want = keys.clone();
        want.sort_unstable();
        for bits in [8, 11, 16] {
            let mut k = keys.clone();
            radix_sort(&mut k, bits);
            assert_eq!(k, want, "bits {bits}");
        }
    }

    #[test]
    fn check_needs_every_key_in_rank_order() {
        let p = SortParams { keys: 10, seed: 1 };
        let r = p.reference(2);
        check(&r, &[r[..7].to_vec(), r[7..].to_vec()]).unwrap();
        assert!(check(&r, &[r[7..].to_vec(), r[..7].to_vec()]).is_err());
        assert!(check(&r, &[r[..19].to_vec()])
            .unwrap_err()
            .0
            .contains("19 keys"));
        let mut dup = r.clone();
        dup[3] = dup[2];
        assert!(check(&r, &[dup]).is_err());
    }
}
