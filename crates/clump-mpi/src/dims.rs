//! `MPI_Dims_create`: the most balanced grid of a number of processes.

use crate::error::{Error, ErrorClass, Result};

/// Fills the zero entries of `dims` so that the product of all is `nnodes`, as close to
/// each other as possible (the smallest spread between the largest and the smallest,
/// then the largest smallest, the largest next smallest...), in non-increasing order.
pub fn dims_create(nnodes: i32, dims: &mut [i32]) -> Result<()> {
    let bad = |why: String| Err(Error::new(ErrorClass::Arg, why));
    if nnodes < 0 {
        return bad(format!("nnodes {nnodes} is negative"));
    }
    if let Some(d) = dims.iter().find(|&&d| d < 0) {
        return bad(format!("dimension {d} is negative"));
    }
    let fixed: i64 = dims.iter().filter(|&&d| d > 0).map(|&d| d as i64).product();
    let free = dims.iter().filter(|&&d| d == 0).count();
    if fixed == 0 || nnodes as i64 % fixed != 0 {
        return bad(format!(
            "the given dimensions (product {fixed}) do not divide {nnodes} processes"
        ));
    }
    let rest = (nnodes as i64 / fixed) as u64;
    if free == 0 {
        return if rest == 1 {
            Ok(())
        } else {
            bad(format!("the given dimensions do not multiply to {nnodes}"))
        };
    }
    let mut search = Search {
        divisors: divisors(rest),
        best: None,
        acc: Vec::with_capacity(free),
    };
    search.run(rest, free, rest);
    let best = search
        .best
        .expect("a product of ones is always a decomposition");
    let mut chosen = best.iter();
    for d in dims.iter_mut().filter(|d| **d == 0) {
        *d = *chosen.next().expect("one value per free dimension") as i32;
    }
    Ok(())
}

struct Search {
    /// The divisors of the number to decompose, ascending.
    divisors: Vec<u64>,
    best: Option<Vec<u64>>,
    acc: Vec<u64>,
}

impl Search {
    /// Extends `acc` with `k` non-increasing factors of `rem`, each at most `max`.
    fn run(&mut self, rem: u64, k: usize, max: u64) {
        if k == 1 {
            if rem <= max {
                self.acc.push(rem);
                if self.better() {
                    self.best = Some(self.acc.clone());
                }
                self.acc.pop();
            }
            return;
        }
        for i in 0..self.divisors.len() {
            let d = self.divisors[i];
            if d > max || d > rem {
                break;
            }
            // The other k - 1 factors are at most d: d^(k-1) must reach rem / d.
            if !rem.is_multiple_of(d) || !reaches(d, k - 1, rem / d) {
                continue;
            }
            if let (Some(best), Some(&first)) = (&self.best, self.acc.first()) {
                // The spread can only grow from first - d onwards.
                if first - d > best[0] - best[best.len() - 1] {
                    continue;
                }
            }
            self.acc.push(d);
            self.run(rem / d, k - 1, d);
            self.acc.pop();
        }
    }

    fn better(&self) -> bool {
        // The smallest spread, then the largest smallest dimension, the largest next
        // smallest, and so on.
        let key = |v: &[u64]| {
            let from_smallest: Vec<u64> = v.iter().rev().copied().collect();
            (v[0] - v[v.len() - 1], std::cmp::Reverse(from_smallest))
        };
        self.best.as_ref().is_none_or(|b| key(&self.acc) < key(b))
    }
}

/// The divisors of `n`, ascending.
fn divisors(n: u64) -> Vec<u64> {
    let small: Vec<u64> = (1..)
        .take_while(|d| d * d <= n)
        .filter(|d| n.is_multiple_of(*d))
        .collect();
    let large = small.iter().rev().map(|d| n / d).filter(|&q| q * q != n);
    small.iter().copied().chain(large).collect()
}

/// Whether `d` to the power `k` is at least `target`.
fn reaches(d: u64, k: usize, target: u64) -> bool {
    let mut p = 1u64;
    for _ in 0..k {
        p = p.saturating_mul(d);
        if p >= target {
            return true;
        }
    }
    p >= target
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dims(n: i32, given: &[i32]) -> Vec<i32> {
        let mut d = given.to_vec();
        dims_create(n, &mut d).unwrap();
        d
    }

    #[test]
    fn balanced_non_increasing_decompositions() {
        assert_eq!(dims(72, &[0, 0]), [9, 8]);
        assert_eq!(dims(12, &[0, 0, 0]), [3, 2, 2]);
        assert_eq!(dims(7, &[0, 0]), [7, 1]);
        assert_eq!(dims(24, &[0, 3, 0]), [4, 3, 2]);
        assert_eq!(dims(1, &[]), Vec::<i32>::new());
        assert_eq!(dims(999_999, &[0, 0, 0]), [111, 99, 91]);
    }

    #[test]
    fn equal_spreads_prefer_the_larger_small_dimensions() {
        assert_eq!(dims(5040, &[0, 0, 0]), [21, 16, 15]);
        assert_eq!(dims(98784, &[0, 0, 0, 0, 0]), [14, 14, 9, 8, 7]);
    }

    #[test]
    fn impossible_requests_are_errors() {
        assert!(dims_create(10, &mut [3, 0]).is_err());
        assert!(dims_create(-1, &mut [0]).is_err());
        assert!(dims_create(4, &mut [2, 3]).is_err());
    }
}
