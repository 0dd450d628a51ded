//! 3D FFT (paper 001, section 4): an n×n×n complex array, distributed by planes; local 1-D FFTs
//! along the axes a rank holds whole, and all-to-all transposes between them. Here: the input,
//! the 1-D FFT both versions use, and the sequential 3-D transform.

use crate::Mismatch;

/// A complex number as two f64 (plain data, so it can travel in bulk stores).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[repr(C)]
pub struct Complex {
    pub re: f64,
    pub im: f64,
}

impl Complex {
    fn mul(self, o: Complex) -> Complex {
        Complex {
            re: self.re * o.re - self.im * o.im,
            im: self.re * o.im + self.im * o.re,
        }
    }
    fn add(self, o: Complex) -> Complex {
        Complex {
            re: self.re + o.re,
            im: self.im + o.im,
        }
    }
    fn sub(self, o: Complex) -> Complex {
        Complex {
            re: self.re - o.re,
            im: self.im - o.im,
        }
    }
}

/// The input element at `(x, y, z)` (row-major index `(x * n + y) * n + z`), from the seed
/// alone, so any rank can generate any part of the array.
pub fn input(seed: u64, n: usize, x: usize, y: usize, z: usize) -> Complex {
    let mut rng = crate::rng::Rng::new(
        seed ^ (((x * n + y) * n + z) as u64).wrapping_mul(0x2545_f491_4f6c_dd1d),
    );
    Complex {
        re: rng.unit() - 0.5,
        im: rng.unit() - 0.5,
    }
}

/// In-place radix-2 decimation-in-time FFT (forward, unscaled); `data.len()` a power of two.
pub fn fft_1d(data: &mut [Complex]) {
    let n = data.len();
    assert!(n.is_power_of_two(), "FFT length {n} is not a power of two");
    let bits = n.trailing_zeros();
    for i in 0..n {
        let j = if bits == 0 {
            0
        } else {
            i.reverse_bits() >> (usize::BITS - bits)
        };
        if i < j {
            data.swap(i, j);
        }
    }
    let mut len = 2;
    while len <= n {
        let angle = -2.0 * std::f64::consts::PI / len as f64;
        for start in (0..n).step_by(len) {
            for k in 0..len / 2 {
                let w = Complex {
                    re: (angle * k as f64).cos(),
                    im: (angle * k as f64).sin(),
                };
                let a = data[start + k];
                let b = data[start + k + len / 2].mul(w);
                data[start + k] = a.add(b);
                data[start + k + len / 2] = a.sub(b);
            }
        }
        len *= 2;
    }
}

/// The sequential 3-D FFT of the whole input, row-major `[x][y][z]`.
pub fn reference(seed: u64, n: usize) -> Vec<Complex> {
    let mut a: Vec<Complex> = (0..n * n * n)
        .map(|i| input(seed, n, i / (n * n), (i / n) % n, i % n))
        .collect();
    let mut line = vec![Complex::default(); n];
    for stride in [1, n, n * n] {
        for base in (0..n * n * n).filter(|i| (i / stride) % n == 0) {
            for (k, v) in line.iter_mut().enumerate() {
                *v = a[base + k * stride];
            }
            fft_1d(&mut line);
            for (k, v) in line.iter().enumerate() {
                a[base + k * stride] = *v;
            }
        }
    }
    a
}

/// The transform at `points` `(kx, ky)` of plane `kz`, from the definition rather than an FFT:
/// the plane's inner sums over z cost n³, each point n² more. A rank checks a sample of its
/// own values this way without holding or transforming the whole array.
pub fn direct_points(seed: u64, n: usize, kz: usize, points: &[(usize, usize)]) -> Vec<Complex> {
    let twiddle: Vec<Complex> = (0..n)
        .map(|k| {
            let a = -2.0 * std::f64::consts::PI * k as f64 / n as f64;
            Complex {
                re: a.cos(),
                im: a.sin(),
            }
        })
        .collect();
    let inner: Vec<Complex> = (0..n * n)
        .map(|xy| {
            (0..n).fold(Complex::default(), |acc, z| {
                acc.add(input(seed, n, xy / n, xy % n, z).mul(twiddle[kz * z % n]))
            })
        })
        .collect();
    points
        .iter()
        .map(|&(kx, ky)| {
            inner
                .iter()
                .enumerate()
                .fold(Complex::default(), |acc, (xy, v)| {
                    acc.add(v.mul(twiddle[(kx * (xy / n) + ky * (xy % n)) % n]))
                })
        })
        .collect()
}

/// Sum of |v|² over `values`: by Parseval, the transform's is n³ times the input's.
pub fn energy(values: impl Iterator<Item = Complex>) -> f64 {
    values.map(|v| v.re * v.re + v.im * v.im).sum()
}

/// Compares values with a tolerance scaled to the transform's size (rounding grows as log n).
pub fn check(expected: &[Complex], got: &[Complex], what: &str) -> Result<(), Mismatch> {
    if expected.len() != got.len() {
        return Err(Mismatch(format!(
            "{what}: {} values, expected {}",
            got.len(),
            expected.len()
        )));
    }
    let tol = 1e-9 * (expected.len() as f64).max(1.0);
    for (i, (e, g)) in expected.iter().zip(got).enumerate() {
        if (e.re - g.re).abs() > tol || (e.im - g.im).abs() > tol || g.re.is_nan() || g.im.is_nan()
        {
            return Err(Mismatch(format!("{what}[{i}] = {g:?}, expected {e:?}")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direct_points_and_energy_agree_with_the_fft() {
        let n = 8;
        let full = reference(4, n);
        let at = |kx: usize, ky: usize, kz: usize| full[(kx * n + ky) * n + kz];
        let points = [(0, 0), (3, 5), (7, 1)];
        let direct = direct_points(4, n, 6, &points);
        let expected: Vec<Complex> = points.iter().map(|&(x, y)| at(x, y, 6)).collect();
        check(&expected, &direct, "direct").unwrap();
        let input_energy = energy((0..n * n * n).map(|i| input(4, n, i / 64, i / 8 % 8, i % 8)));
        let ratio = energy(full.iter().copied()) / input_energy;
        assert!((ratio - (n * n * n) as f64).abs() < 1e-6, "{ratio}");
    }

    fn dft(x: &[Complex]) -> Vec<Complex> {
        let n = x.len();
        (0..n)
            .map(|k| {
                x.iter()
                    .enumerate()
                    .fold(Complex::default(), |acc, (j, v)| {
                        let a = -2.0 * std::f64::consts::PI * (j * k) as f64 / n as f64;
                        acc.add(v.mul(Complex {
                            re: a.cos(),
                            im: a.sin(),
                        }))
                    })
            })
            .collect()
    }

    #[test]
    fn fft_matches_the_definition() {
        for n in [1, 2, 8, 32] {
            let x: Vec<Complex> = (0..n).map(|i| input(3, n, 0, 0, i)).collect();
            let mut y = x.clone();
            fft_1d(&mut y);
            check(&dft(&x), &y, "fft").unwrap();
        }
    }

    #[test]
    fn three_d_transform_of_an_impulse_is_flat_and_its_sum_is_the_dc_term() {
        let n = 4;
        let a = reference(9, n);
        let sum = (0..n * n * n).fold(Complex::default(), |s, i| {
            s.add(input(9, n, i / 16, (i / 4) % 4, i % 4))
        });
        check(&[sum], &a[..1], "dc").unwrap();
        assert!(check(
            &[Complex {
                re: sum.re + 1.0,
                im: sum.im
            }],
            &a[..1],
            "dc"
        )
        .is_err());
    }
}
