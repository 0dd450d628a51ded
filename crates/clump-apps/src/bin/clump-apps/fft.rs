//! 3D FFT on the global address space. Rank p holds planes x in its block, `[x][y][z]`; it
//! transforms along z and y, then one all-to-all transpose by bulk stores gives rank q the
//! lines y in q's block as `[y][x][z]`, where the transform along x finishes the job.

use crate::run::{begin, finish, AppResult};
use crate::verify::Check;
use clump_apps::fft::{fft_1d, input, Complex};
use clump_apps::phase::{Phase, PhaseTimes};
use clump_gas::Gas;

fn to_pair(c: Complex) -> [f64; 2] {
    [c.re, c.im]
}

fn from_pair(p: [f64; 2]) -> Complex {
    Complex { re: p[0], im: p[1] }
}

/// Transforms in place the lines of `n` elements that start at each of `starts`, their
/// elements `stride` apart.
fn transform_lines(
    data: &mut [[f64; 2]],
    n: usize,
    starts: impl Iterator<Item = usize>,
    stride: usize,
) {
    let mut line = vec![Complex::default(); n];
    for start in starts {
        for (k, v) in line.iter_mut().enumerate() {
            *v = from_pair(data[start + k * stride]);
        }
        fft_1d(&mut line);
        for (k, v) in line.iter().enumerate() {
            data[start + k * stride] = to_pair(*v);
        }
    }
}

pub fn run(gas: &mut Gas, n: usize, seed: u64, check: Check) -> AppResult<()> {
    let (me, size) = (gas.rank() as usize, gas.size() as usize);
    if !n.is_power_of_two() || !n.is_multiple_of(size) {
        return Err(
            format!("fft: n = {n} must be a power of two and a multiple of {size} ranks").into(),
        );
    }
    let planes = n / size;
    let x0 = me * planes;
    let slab = gas.alloc::<[f64; 2]>(planes * n * n)?;
    let turned = gas.alloc::<[f64; 2]>(planes * n * n)?;
    for (i, v) in gas.local(&slab).as_mut_slice().iter_mut().enumerate() {
        *v = to_pair(input(seed, n, x0 + i / (n * n), (i / n) % n, i % n));
    }
    let begun = begin(gas)?;

    let mut times = PhaseTimes::default();
    times.time(Phase::Compute, || {
        let mut view = gas.local(&slab);
        let data = view.as_mut_slice();
        transform_lines(data, n, (0..planes * n).map(|l| l * n), 1);
        transform_lines(data, n, (0..planes * n).map(|l| l / n * n * n + l % n), n);
    });
    times.time(Phase::Comm, || -> AppResult<()> {
        // For each of q's lines y, my planes [x][z] form one contiguous run at x0 in its [y][x][z].
        let mine = gas.local(&slab).to_vec();
        for q in 0..size {
            for yl in 0..planes {
                let y = q * planes + yl;
                let run: Vec<[f64; 2]> = (0..planes)
                    .flat_map(|xl| mine[(xl * n + y) * n..(xl * n + y + 1) * n].iter().copied())
                    .collect();
                gas.store_bulk(turned.at(q as u32, (yl * n + x0) * n), &run)?;
            }
        }
        Ok(gas.all_store_sync()?)
    })?;
    times.time(Phase::Compute, || {
        let mut view = gas.local(&turned);
        transform_lines(
            view.as_mut_slice(),
            n,
            (0..planes * n).map(|l| l / n * n * n + l % n),
            n,
        );
    });

    let counted = begun.end(gas);
    let got: Vec<Complex> = gas
        .local(&turned)
        .as_slice()
        .iter()
        .map(|&p| from_pair(p))
        .collect();
    let verdict = if check.full(n * n * n) {
        let reference = clump_apps::fft::reference(seed, n);
        let expected: Vec<Complex> = (0..planes * n * n)
            .map(|i| reference[((i / n) % n * n + me * planes + i / (n * n)) * n + i % n])
            .collect();
        clump_apps::fft::check(&expected, &got, "transformed [y][x][z]")
    } else {
        crate::verify::fft_sampled(gas, seed, n, &got)?
    };
    finish(gas, "fft", counted, &times, verdict)
}
