//! A small deterministic generator (SplitMix64): the same seed gives the same input on every
//! machine and in every process, which the checkers rely on.

#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The generator for one rank's part of an input. The start is hashed from both seed and
    /// rank: plain offsets would make rank r+1's stream rank r's shifted by one step.
    pub fn for_rank(seed: u64, rank: u32) -> Rng {
        let rank_hash = Rng(0x5851_f42d_4c95_7f2d ^ rank as u64).next_u64();
        Rng(Rng(seed).next_u64() ^ rank_hash)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), by multiply-shift (bias below 2^-32 for the sizes used here).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Rng::below(0)");
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_ranks_differ() {
        let a: Vec<u64> = (0..4).map(|_| Rng::for_rank(7, 1).next_u64()).collect();
        assert!(a.iter().all(|&x| x == a[0]));
        assert_ne!(
            Rng::for_rank(7, 0).next_u64(),
            Rng::for_rank(7, 1).next_u64()
        );
        assert_ne!(
            Rng::for_rank(7, 0).next_u64(),
            Rng::for_rank(8, 0).next_u64()
        );
    }

    #[test]
    fn below_and_unit_stay_in_range() {
        let mut r = Rng::new(3);
        let mut seen = [false; 5];
        for _ in 0..1000 {
            seen[r.below(5) as usize] = true;
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
        }
        assert!(seen.iter().all(|&s| s));
    }
}
