//! The array datatypes: `MPI_Type_create_subarray` and `MPI_Type_create_darray`. Each
//! picks, per dimension of a global array, the indices this process holds; the type is
//! those elements in the local array's order (row-major for C, column-major for Fortran),
//! each at its place in the global array, with the global array's extent.

use crate::datatype::Datatype;
use crate::error::{Error, ErrorClass, Result};

/// How a dimension of a `darray` is spread over the processes of that dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distrib {
    /// Whole on each process (`MPI_DISTRIBUTE_NONE`).
    None,
    /// Contiguous blocks of this many elements (`None`: as even as possible).
    Block(Option<usize>),
    /// Blocks of this many elements dealt round-robin (`None`: one).
    Cyclic(Option<usize>),
}

fn bad(why: String) -> Error {
    Error::new(ErrorClass::Arg, why)
}

/// Row-major (`MPI_ORDER_C`) or column-major (`MPI_ORDER_FORTRAN`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    C,
    Fortran,
}

/// The elements of `sizes` whose index along dimension `d` is in `picked[d]`, as a type.
fn from_grid(
    sizes: &[usize],
    picked: &[Vec<usize>],
    order: Order,
    old: &Datatype,
) -> Result<Datatype> {
    let n = sizes.len();
    // Dimensions from the slowest to the fastest varying.
    let dims: Vec<usize> = match order {
        Order::C => (0..n).collect(),
        Order::Fortran => (0..n).rev().collect(),
    };
    let ext = old.extent();
    // Elements between consecutive indices of each dimension.
    let mut step = vec![1isize; n];
    for w in (0..n.saturating_sub(1)).rev() {
        step[dims[w]] = step[dims[w + 1]] * sizes[dims[w + 1]] as isize;
    }
    let total = sizes
        .iter()
        .try_fold(1usize, |a, &s| a.checked_mul(s))
        .ok_or_else(|| bad("array too large".into()))?;
    let (mut lens, mut disps) = (Vec::new(), Vec::new());
    let fast = dims.last().copied();
    let mut at = vec![0usize; n];
    'combinations: while picked.iter().all(|p| !p.is_empty()) {
        let slow = &dims[..n.saturating_sub(1)];
        let base: isize = slow
            .iter()
            .map(|&d| picked[d][at[d]] as isize * step[d])
            .sum();
        match fast {
            Some(f) => runs(&picked[f], |start, len| {
                lens.push(len);
                disps.push((base + start as isize) * ext);
            }),
            None => {
                lens.push(1);
                disps.push(0);
            }
        }
        // The next combination of the slower dimensions, the fastest of them first.
        for &d in slow.iter().rev() {
            at[d] += 1;
            if at[d] < picked[d].len() {
                continue 'combinations;
            }
            at[d] = 0;
        }
        break;
    }
    let t = Datatype::hindexed(&lens, &disps, old)?;
    Datatype::resized(&t, 0, total as isize * ext)
}

/// Calls `f(start, len)` for each run of consecutive indices in ascending `idx`.
fn runs(idx: &[usize], mut f: impl FnMut(usize, usize)) {
    let mut i = 0;
    while i < idx.len() {
        let mut j = i + 1;
        while j < idx.len() && idx[j] == idx[j - 1] + 1 {
            j += 1;
        }
        f(idx[i], j - i);
        i = j;
    }
}

/// `MPI_Type_create_subarray`: the `subsizes` block at `starts` of an array of `sizes`.
pub fn subarray(
    sizes: &[usize],
    subsizes: &[usize],
    starts: &[usize],
    order: Order,
    old: &Datatype,
) -> Result<Datatype> {
    if sizes.is_empty() || subsizes.len() != sizes.len() || starts.len() != sizes.len() {
        return Err(bad(
            "subarray needs one size, subsize and start per dimension, at least one".into(),
        ));
    }
    let mut picked = Vec::with_capacity(sizes.len());
    for ((&size, &sub), &start) in sizes.iter().zip(subsizes).zip(starts) {
        if sub == 0 || start.checked_add(sub).is_none_or(|end| end > size) {
            return Err(bad(format!(
                "a subarray of {sub} from {start} does not fit a dimension of {size}"
            )));
        }
        picked.push((start..start + sub).collect());
    }
    from_grid(sizes, &picked, order, old)
}

/// `MPI_Type_create_darray`: process `rank`'s part of an array of `gsizes` spread over a
/// grid of `psizes` processes (numbered row-major) as `distribs` say.
pub fn darray(
    size: usize,
    rank: usize,
    gsizes: &[usize],
    distribs: &[Distrib],
    psizes: &[usize],
    order: Order,
    old: &Datatype,
) -> Result<Datatype> {
    let n = gsizes.len();
    if n == 0 || distribs.len() != n || psizes.len() != n {
        return Err(bad(
            "darray needs one size, distribution and grid size per dimension".into(),
        ));
    }
    if psizes.iter().product::<usize>() != size || rank >= size {
        return Err(bad(format!(
            "a process grid of {psizes:?} does not hold rank {rank} of {size}"
        )));
    }
    let mut coords = vec![0; n];
    let mut rest = rank;
    for d in (0..n).rev() {
        coords[d] = rest % psizes[d];
        rest /= psizes[d];
    }
    let mut picked = Vec::with_capacity(n);
    for d in 0..n {
        let (g, p, c) = (gsizes[d], psizes[d], coords[d]);
        let idx: Vec<usize> = match distribs[d] {
            Distrib::None if p == 1 => (0..g).collect(),
            Distrib::None => {
                return Err(bad(format!(
                    "dimension {d} is not distributed but has {p} processes"
                )))
            }
            Distrib::Block(b) => {
                let b = b.unwrap_or(g.div_ceil(p));
                if b == 0 || b.checked_mul(p).is_none_or(|all| all < g) {
                    return Err(bad(format!(
                        "blocks of {b} on {p} processes do not cover {g}"
                    )));
                }
                (c * b..((c + 1) * b).min(g)).collect()
            }
            Distrib::Cyclic(b) => {
                let b = b.unwrap_or(1);
                if b == 0 {
                    return Err(bad("a cyclic block of 0".into()));
                }
                (0..g).filter(|j| (j / b) % p == c).collect()
            }
        };
        picked.push(idx);
    }
    from_grid(gsizes, &picked, order, old)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datatype::Predef;

    fn ints(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    #[test]
    fn subarrays_pick_their_block_in_either_order() {
        let int = Datatype::predefined(Predef::Int);
        let m: Vec<i32> = (0..12).collect(); // 3 x 4
        let t = subarray(&[3, 4], &[2, 2], &[1, 1], Order::C, &int).unwrap();
        assert_eq!((t.size(), t.lb(), t.extent()), (16, 0, 48));
        assert_eq!(t.pack(&ints(&m), 1).unwrap(), ints(&[5, 6, 9, 10]));
        let f = subarray(&[3, 4], &[2, 2], &[1, 1], Order::Fortran, &int).unwrap();
        assert_eq!(f.pack(&ints(&m), 1).unwrap(), ints(&[4, 5, 7, 8]));
        assert!(subarray(&[3], &[2], &[2], Order::C, &int).is_err());
    }

    #[test]
    fn darrays_deal_blocks_and_cycles() {
        let int = Datatype::predefined(Predef::Int);
        let v: Vec<i32> = (0..10).collect();
        let block = darray(3, 2, &[10], &[Distrib::Block(None)], &[3], Order::C, &int).unwrap();
        assert_eq!(block.pack(&ints(&v), 1).unwrap(), ints(&[8, 9]));
        let cyc = darray(
            3,
            1,
            &[10],
            &[Distrib::Cyclic(Some(2))],
            &[3],
            Order::C,
            &int,
        )
        .unwrap();
        assert_eq!(cyc.pack(&ints(&v), 1).unwrap(), ints(&[2, 3, 8, 9]));
        assert_eq!(cyc.extent(), 40);
        // A 2 x 2 grid over a 4 x 4 array: rank 3 holds the lower right quarter.
        let m: Vec<i32> = (0..16).collect();
        let q = darray(
            4,
            3,
            &[4, 4],
            &[Distrib::Block(None); 2],
            &[2, 2],
            Order::C,
            &int,
        )
        .unwrap();
        assert_eq!(q.pack(&ints(&m), 1).unwrap(), ints(&[10, 11, 14, 15]));
        assert!(darray(4, 0, &[4], &[Distrib::Block(Some(1))], &[4], Order::C, &int).is_ok());
        assert!(darray(4, 0, &[5], &[Distrib::Block(Some(1))], &[4], Order::C, &int).is_err());
    }
}
