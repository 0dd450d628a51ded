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
