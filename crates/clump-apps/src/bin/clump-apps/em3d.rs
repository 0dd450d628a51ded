//! EM3D on the global address space, in the paper's four versions. Each half step first brings
//! the other kind's remote neighbour values into this rank's ghost area (communication), then
//! updates the rank's nodes (computation):
//! - `read`: a blocking read per remote neighbour;
//! - `get`: a split-phase get per remote neighbour, one sync;
//! - `bulk`: each owner packs the values a requester needs, the requester fetches them with
//!   one bulk get per owner;
//! - `store`: each owner stores every value a requester needs straight into its ghost area,
//!   one value a message, as Split-C's `:-` does;
//! - `store-packed`: the same values in one bulk store per requester.

use crate::run::{begin, finish, AppResult};
use crate::verify::Check;
use clump_apps::em3d::{update, Edge, Em3dParams, Em3dPart, NodeRef};
use clump_apps::layout::{Grid, Layout};
use clump_apps::phase::{Phase, PhaseTimes};
use clump_gas::{Gas, ReduceOp, Spread};
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Version {
    Read,
    Get,
    Bulk,
    Store,
    StorePacked,
}

/// One direction of the update: nodes of one kind reading neighbours of the other kind.
struct HalfStep {
    edges: Vec<Edge>,
    /// Per edge: its remote neighbour's slot in my ghost area (unused for local edges).
    slot: Vec<usize>,
    /// Per owner rank: the owner's node indices I need, and the slot where the first lands.
    wanted: Vec<(Vec<u32>, usize)>,
    /// Per requester rank: my node indices it needs, where they go in its ghost area, and
    /// where I pack them in my own pack area (bulk version).
    requested: Vec<(Vec<u32>, usize, usize)>,
    /// Per owner rank: where it packs my values in its pack area.
    packed_at: Vec<usize>,
}

impl HalfStep {
    fn new(gas: &mut Gas, edges: Vec<Edge>) -> AppResult<HalfStep> {
        let (me, size) = (gas.rank(), gas.size() as usize);
        let mut wanted: Vec<Vec<u32>> = vec![Vec::new(); size];
        let mut position = HashMap::new();
        for e in edges.iter().filter(|e| e.to.rank != me) {
            position.entry((e.to.rank, e.to.index)).or_insert_with(|| {
                let list = &mut wanted[e.to.rank as usize];
                list.push(e.to.index);
                list.len() - 1
            });
        }
        let mut first = Vec::with_capacity(size);
        let mut next = 0;
        for list in &wanted {
            first.push(next);
            next += list.len();
        }
        let slot = edges
            .iter()
            .map(|e| match position.get(&(e.to.rank, e.to.index)) {
                Some(&k) if e.to.rank != me => first[e.to.rank as usize] + k,
                _ => 0,
            })
            .collect();
        // Tell each owner which of its nodes I need, the last word saying where they land.
        let requests: Vec<Vec<u64>> = wanted
            .iter()
            .zip(&first)
            .map(|(list, &at)| list.iter().map(|&i| i as u64).chain([at as u64]).collect())
            .collect();
        let mut pack_offset = 0;
        let requested: Vec<(Vec<u32>, usize, usize)> = gas
            .all_to_allv(&requests)?
            .into_iter()
            .map(|mut v| {
                let at = v.pop().ok_or("EM3D: empty request")? as usize;
                let packed = pack_offset;
                pack_offset += v.len();
                Ok((v.into_iter().map(|i| i as u32).collect(), at, packed))
            })
            .collect::<Result<_, &str>>()?;
        let pack_offsets: Vec<u64> = requested.iter().map(|r| r.2 as u64).collect();
        let packed_at = gas
            .all_to_all(&pack_offsets, 1)?
            .into_iter()
            .map(|o| o as usize)
            .collect();
        Ok(HalfStep {
            edges,
            slot,
            wanted: wanted.into_iter().zip(first).collect(),
            requested,
            packed_at,
        })
    }

    fn ghost_len(&self) -> usize {
        self.wanted.iter().map(|w| w.0.len()).sum()
    }

    fn pack_len(&self) -> usize {
        self.requested.iter().map(|r| r.0.len()).sum()
    }

    /// Brings every remote neighbour's value of `other` into my part of `ghost`.
    fn fetch(
        &self,
        gas: &mut Gas,
        version: Version,
        other: &Spread<f64>,
        ghost: &Spread<f64>,
        pack: &Spread<f64>,
    ) -> AppResult<()> {
        let me = gas.rank();
        match version {
            Version::Read => {
                for (r, (list, first)) in self.wanted.iter().enumerate() {
                    for (k, &i) in list.iter().enumerate() {
                        let v = gas.read(other.at(r as u32, i as usize))?;
                        gas.local(ghost).set(first + k, v);
                    }
                }
            }
            Version::Get => {
                for (r, (list, first)) in self.wanted.iter().enumerate() {
                    for (k, &i) in list.iter().enumerate() {
                        gas.get(other.at(r as u32, i as usize), ghost.at(me, first + k))?;
                    }
                }
                gas.sync()?;
            }
            Version::Bulk => {
                let values = gas.local(other).to_vec();
                let mut packed = gas.local(pack);
                for (list, _, at) in &self.requested {
                    for (k, &i) in list.iter().enumerate() {
                        packed.set(at + k, values[i as usize]);
                    }
                }
                gas.barrier()?;
                for (r, (list, first)) in self
                    .wanted
                    .iter()
                    .enumerate()
                    .filter(|(_, w)| !w.0.is_empty())
                {
                    gas.get_bulk(
                        pack.at(r as u32, self.packed_at[r]),
                        ghost.at(me, *first),
                        list.len(),
                    )?;
                }
                gas.sync()?;
                // Nobody repacks while another rank may still be fetching.
                gas.barrier()?;
            }
            Version::Store => {
                let values = gas.local(other).to_vec();
                for (q, (list, at, _)) in self.requested.iter().enumerate() {
                    for (k, &i) in list.iter().enumerate() {
                        gas.store(ghost.at(q as u32, at + k), values[i as usize])?;
                    }
                }
                gas.all_store_sync()?;
            }
            Version::StorePacked => {
                let values = gas.local(other).to_vec();
                for (q, (list, at, _)) in self
                    .requested
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| !r.0.is_empty())
                {
                    let packed: Vec<f64> = list.iter().map(|&i| values[i as usize]).collect();
                    gas.store_bulk(ghost.at(q as u32, *at), &packed)?;
                }
                gas.all_store_sync()?;
            }
        }
        Ok(())
    }

    /// `mine[i] -= Σ weight · neighbour`, neighbours from `other` (local) or `ghost` (remote),
    /// in edge order like the reference.
    fn compute(
        &self,
        gas: &Gas,
        degree: usize,
        mine: &Spread<f64>,
        other: &Spread<f64>,
        ghost: &Spread<f64>,
    ) {
        let me = gas.rank();
        let local = gas.local(other).to_vec();
        let ghosts = gas.local(ghost).to_vec();
        let mut view = gas.local(mine);
        for (i, v) in view.as_mut_slice().iter_mut().enumerate() {
            let edges = i * degree..(i + 1) * degree;
            let sum: f64 = self.edges[edges.clone()]
                .iter()
                .zip(&self.slot[edges])
                .map(|(e, &s)| {
                    e.weight
                        * if e.to.rank == me {
                            local[e.to.index as usize]
                        } else {
                            ghosts[s]
                        }
                })
                .sum();
            *v -= sum;
        }
    }
}

/// The processes' grid: `host_ranks` to a host, or as many as share rank 0's host (every
/// rank agrees on the smallest count it sees).
fn grid(gas: &mut Gas, layout: Layout, host_ranks: Option<usize>) -> AppResult<Grid> {
    let host_ranks = match host_ranks {
        Some(h) => h,
        None => {
            let mut h = [(0..gas.size()).filter(|&r| gas.is_local(r)).count() as u64];
            gas.all_reduce(&mut h, ReduceOp::Min)?;
            h[0] as usize
        }
    };
    Ok(Grid::new(gas.size() as usize, host_ranks, layout)?)
}

pub fn run(
    gas: &mut Gas,
    params: Em3dParams,
    version: Version,
    layout: Layout,
    host_ranks: Option<usize>,
    check: Check,
) -> AppResult<()> {
    let me = gas.rank();
    let grid = grid(gas, layout, host_ranks)?;
    let part = params.generate(me, &grid);
    let e = gas.alloc::<f64>(params.nodes)?;
    let h = gas.alloc::<f64>(params.nodes)?;
    gas.local(&e).as_mut_slice().copy_from_slice(&part.e);
    gas.local(&h).as_mut_slice().copy_from_slice(&part.h);
    let e_step = HalfStep::new(gas, part.e_edges.clone())?;
    let h_step = HalfStep::new(gas, part.h_edges.clone())?;
    let mut lens = [
        e_step.ghost_len().max(h_step.ghost_len()) as u64,
        e_step.pack_len().max(h_step.pack_len()) as u64,
    ];
    gas.all_reduce(&mut lens, ReduceOp::Max)?;
    let ghost = gas.alloc::<f64>(lens[0].max(1) as usize)?;
    let pack = gas.alloc::<f64>(lens[1].max(1) as usize)?;
    let begun = begin(gas)?;

    let mut times = PhaseTimes::default();
    for _ in 0..params.steps {
        for (step, mine, other) in [(&e_step, &e, &h), (&h_step, &h, &e)] {
            times.time(Phase::Comm, || {
                step.fetch(gas, version, other, &ghost, &pack)
            })?;
            times.time(Phase::Compute, || {
                step.compute(gas, params.degree, mine, other, &ghost)
            });
            // The other kind is read next: every rank's update must be done first.
            times.time(Phase::Comm, || gas.barrier())?;
        }
    }
    let counted = begun.end(gas);
    let size = gas.size() as usize;
    let reference = if check.full(size * params.nodes * params.degree) {
        params.reference(&grid).swap_remove(me as usize)
    } else {
        own_reference(gas, &params, part)?
    };
    let verdict = clump_apps::em3d::check(
        &reference,
        gas.local(&e).as_slice(),
        gas.local(&h).as_slice(),
    );
    finish(gas, "em3d", counted, &times, verdict)
}

/// This rank's part after the steps, computed apart from the run: each half step gathers the
/// other kind's values of every rank with a collective and updates this rank's nodes as the
/// sequential reference does. Each rank's work is its own nodes.
fn own_reference(gas: &mut Gas, params: &Em3dParams, mut part: Em3dPart) -> AppResult<Em3dPart> {
    let n = params.nodes;
    let at = |all: &[f64], node: NodeRef| all[node.rank as usize * n + node.index as usize];
    for _ in 0..params.steps {
        let h = gas.all_gather(&part.h)?;
        update(&mut part.e, &part.e_edges, params.degree, |v| at(&h, v));
        let e = gas.all_gather(&part.e)?;
        update(&mut part.h, &part.h_edges, params.degree, |v| at(&e, v));
    }
    Ok(part)
}
