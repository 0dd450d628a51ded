//! Blocked matrix multiply (paper 004): C = A·B for n×n matrices cut into b×b blocks, each rank
//! computing its blocks of C from blocks of A and B fetched with bulk gets. Elements are small
//! integers held in f64, so every order of summation gives the exact same result.

use crate::Mismatch;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatmulParams {
    /// Blocks per side: the matrices are (blocks·block)².
    pub blocks: usize,
    /// Block side.
    pub block: usize,
    pub seed: u64,
}

/// Which matrix an element belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matrix {
    A,
    B,
}

impl MatmulParams {
    pub fn n(&self) -> usize {
        self.blocks * self.block
    }

    /// Element (i, j) of A or B: an integer in -4..=4, from the seed alone.
    pub fn element(&self, m: Matrix, i: usize, j: usize) -> f64 {
        let salt = match m {
            Matrix::A => 0x0a,
            Matrix::B => 0x0b,
        };
        let key = ((salt * self.n() + i) * self.n() + j) as u64;
        let mut rng = crate::rng::Rng::new(self.seed ^ key.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        rng.below(9) as f64 - 4.0
    }

    /// Block (bi, bj) of A or B, row-major b×b.
    pub fn input_block(&self, m: Matrix, bi: usize, bj: usize) -> Vec<f64> {
        let b = self.block;
        (0..b * b)
            .map(|k| self.element(m, bi * b + k / b, bj * b + k % b))
            .collect()
    }

    /// The sequential result: block (bi, bj) of C.
    pub fn reference_block(&self, bi: usize, bj: usize) -> Vec<f64> {
        let mut c = vec![0.0; self.block * self.block];
        for bk in 0..self.blocks {
            multiply_add(
                &mut c,
                &self.input_block(Matrix::A, bi, bk),
                &self.input_block(Matrix::B, bk, bj),
                self.block,
            );
        }
        c
    }
}

/// c += a·b for b×b row-major blocks (i-k-j order: unit stride inner loop).
pub fn multiply_add(c: &mut [f64], a: &[f64], b: &[f64], side: usize) {
    for i in 0..side {
        for k in 0..side {
            let aik = a[i * side + k];
            for j in 0..side {
                c[i * side + j] += aik * b[k * side + j];
            }
        }
    }
}

/// Compares block (bi, bj) of C exactly.
pub fn check(p: &MatmulParams, bi: usize, bj: usize, got: &[f64]) -> Result<(), Mismatch> {
    let expected = p.reference_block(bi, bj);
    match expected.iter().zip(got).position(|(e, g)| e != g) {
        _ if expected.len() != got.len() => Err(Mismatch(format!(
            "C block ({bi},{bj}): {} values",
            got.len()
        ))),
        None => Ok(()),
        Some(k) => Err(Mismatch(format!(
            "C[{}][{}] = {}, expected {}",
            bi * p.block + k / p.block,
            bj * p.block + k % p.block,
            got[k],
            expected[k]
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocked_reference_matches_a_plain_multiply() {
        let p = MatmulParams {
            blocks: 3,
            block: 4,
            seed: 2,
        };
        let n = p.n();
        for (bi, bj) in [(0, 0), (1, 2), (2, 1)] {
            let got = p.reference_block(bi, bj);
            for (k, &value) in got.iter().enumerate() {
                let (i, j) = (bi * 4 + k / 4, bj * 4 + k % 4);
                let want: f64 = (0..n)
                    .map(|m| p.element(Matrix::A, i, m) * p.element(Matrix::B, m, j))
                    .sum();
                assert_eq!(value, want);
            }
            check(&p, bi, bj, &got).unwrap();
        }
        let mut bad = p.reference_block(1, 1);
        bad[5] += 1.0;
        assert!(check(&p, 1, 1, &bad).unwrap_err().0.contains("C[5][5]"));
    }

    #[test]
    fn elements_are_small_integers_and_not_constant() {
        let p = MatmulParams {
            blocks: 2,
            block: 8,
            seed: 4,
        };
        let a = p.input_block(Matrix::A, 1, 0);
        assert!(a
            .iter()
            .all(|v| v.fract() == 0.0 && (-4.0..=4.0).contains(v)));
        assert_ne!(a, p.input_block(Matrix::B, 1, 0));
    }
}
