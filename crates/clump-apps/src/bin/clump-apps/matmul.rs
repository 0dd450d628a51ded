//! Blocked matrix multiply on the global address space. Block k (row-major over the block grid)
//! of A, B and C lives on rank k mod P at slot k div P. Each rank computes its C blocks: for
//! every k it fetches A(i,k) and B(k,j) with bulk gets (communication) and multiplies them into
//! C(i,j) (computation).

use crate::run::{begin, finish, AppResult};
use clump_apps::matmul::{multiply_add, MatmulParams, Matrix};
use clump_apps::phase::{Phase, PhaseTimes};
use clump_apps::Mismatch;
use clump_gas::Gas;

pub fn run(gas: &mut Gas, params: MatmulParams) -> AppResult<()> {
    let (me, size) = (gas.rank() as usize, gas.size() as usize);
    let (blocks, side) = (params.blocks, params.block);
    if blocks == 0 || side == 0 {
        return Err("matmul: needs blocks > 0 and block > 0".into());
    }
    let area = side * side;
    let slots = (blocks * blocks).div_ceil(size);
    let a = gas.alloc::<f64>(slots * area)?;
    let b = gas.alloc::<f64>(slots * area)?;
    let fetched = gas.alloc::<f64>(2 * area)?;
    let mine: Vec<usize> = (me..blocks * blocks).step_by(size).collect();
    for (slot, &k) in mine.iter().enumerate() {
        let range = slot * area..(slot + 1) * area;
        gas.local(&a).as_mut_slice()[range.clone()].copy_from_slice(&params.input_block(
            Matrix::A,
            k / blocks,
            k % blocks,
        ));
        gas.local(&b).as_mut_slice()[range].copy_from_slice(&params.input_block(
            Matrix::B,
            k / blocks,
            k % blocks,
        ));
    }
    let begun = begin(gas)?;

    let block_at = |k: usize| ((k % size) as u32, k / size * area);
    let mut times = PhaseTimes::default();
    let mut results = Vec::with_capacity(mine.len());
    for &k in &mine {
        let (bi, bj) = (k / blocks, k % blocks);
        let mut c = vec![0.0; area];
        for bk in 0..blocks {
            times.time(Phase::Comm, || -> AppResult<()> {
                let (ra, oa) = block_at(bi * blocks + bk);
                let (rb, ob) = block_at(bk * blocks + bj);
                gas.get_bulk(a.at(ra, oa), fetched.at(me as u32, 0), area)?;
                gas.get_bulk(b.at(rb, ob), fetched.at(me as u32, area), area)?;
                Ok(gas.sync()?)
            })?;
            times.time(Phase::Compute, || {
                let got = gas.local(&fetched);
                let (ablk, bblk) = got.as_slice().split_at(area);
                multiply_add(&mut c, ablk, bblk, side);
            });
        }
        results.push((bi, bj, c));
    }
    times.time(Phase::Comm, || gas.barrier())?;
    let counted = begun.end(gas);
    let check = results
        .iter()
        .try_for_each(|(bi, bj, c)| clump_apps::matmul::check(&params, *bi, *bj, c))
        .map_err(|m| Mismatch(format!("rank {me}: {m}")));
    finish(gas, "matmul", counted, &times, check)
}
