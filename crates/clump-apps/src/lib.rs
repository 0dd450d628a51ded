//! The applications of the Split-C evaluations (EM3D, CON and 3D FFT from the multi-protocol
//! paper; matrix multiply, sample sort and radix sort from the Split-C paper): for each, a
//! deterministic input generator (size and seed), the sequential computation on the same input
//! and a checker that says what differs, plus phase timing (computation and communication apart).
//!
//! Inputs are generated per rank from `(seed, rank)`, so a distributed run and the sequential
//! reference (which generates every rank's part) see the same data.

#![forbid(unsafe_code)]

pub mod con;
pub mod em3d;
pub mod fft;
pub mod layout;
pub mod matmul;
pub mod memory;
pub mod phase;
pub mod rng;
pub mod sort;

/// A result that differs from the reference: says where and how.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch(pub String);

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Mismatch {}

/// Compares floating-point results with a relative tolerance (sums may be taken in another
/// order than the reference's); names the first element that differs.
pub fn compare_f64(what: &str, expected: &[f64], got: &[f64]) -> Result<(), Mismatch> {
    if expected.len() != got.len() {
        return Err(Mismatch(format!(
            "{what}: {} values, expected {}",
            got.len(),
            expected.len()
        )));
    }
    for (i, (&e, &g)) in expected.iter().zip(got).enumerate() {
        if (e - g).abs() > 1e-9 * e.abs().max(1.0) || g.is_nan() {
            return Err(Mismatch(format!("{what}[{i}] = {g}, expected {e}")));
        }
    }
    Ok(())
}
