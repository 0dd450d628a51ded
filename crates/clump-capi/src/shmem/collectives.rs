//! The collectives of OpenSHMEM 1.5 on teams: broadcast, collect, fcollect, alltoall,
//! alltoalls, each typed, by bytes (`...mem`). The bodies work on a group of the global
//! address space, so the older active-set forms ([`super::active_set`]) share them. Each
//! returns 0; bad use ends the job like every other call.

use super::runtime::{byte_len, dst_slice, gas_err, run, src_slice, strides, Res, State};
use clump_gas::Group;
use std::ffi::c_void;
use std::os::raw::{c_char, c_int, c_long};

/// Where the bytes of one collective live: `nelems` elements of `size` bytes.
#[derive(Clone, Copy)]
pub struct Bufs {
    pub dest: *mut c_void,
    pub src: *const c_void,
    pub nelems: usize,
    pub size: usize,
}

impl State {
    /// `root`'s source into every member's dest (the root's own too, unless `skip_root`);
    /// large ones between same-host PEs straight from the root's heap ([`super::direct`]).
    pub fn broadcast(&self, g: &Group, b: Bufs, root: c_int, skip_root: bool) -> Res<()> {
        let root = u32::try_from(root)
            .ok()
            .filter(|&r| r < g.size())
            .ok_or_else(|| format!("root {root} is not a member (the team has {})", g.size()))?;
        let len = byte_len(b.nelems, b.size)?;
        if self.direct(
            g,
            (len, Self::BROADCAST_FROM),
            &[(b.dest, len), (b.src, len)],
        ) {
            return self.broadcast_direct(g, root, (b.dest, b.src, len), skip_root);
        }
        let mut data = if g.index() == root {
            // SAFETY: `b.src` is the C caller's source of `nelems` elements (shmem.h).
            unsafe { src_slice(b.src, len, "source")? }.to_vec()
        } else {
            vec![0; len]
        };
        self.gas
            .borrow()
            .group_broadcast(g, root, &mut data)
            .map_err(gas_err)?;
        if !(skip_root && g.index() == root) {
            // SAFETY: `b.dest` is the C caller's destination of `nelems` elements (shmem.h).
            unsafe { dst_slice(b.dest, len, "dest")? }.copy_from_slice(&data);
        }
        Ok(())
    }

    /// Every member's source, in member order, into every dest; with `fixed` every member
    /// contributes the same count.
    pub fn collect(&self, g: &Group, b: Bufs, fixed: bool) -> Res<()> {
        // SAFETY: `b.src` is the C caller's source of `nelems` elements (shmem.h).
        let mine = unsafe { src_slice(b.src, byte_len(b.nelems, b.size)?, "source")? };
        let total = byte_len(mine.len(), g.size() as usize)?;
        if fixed && self.direct(g, (total, Self::EXCHANGE_FROM), &[(b.dest, total)]) {
            return self.fcollect_direct(g, b.dest, mine);
        }
        let gas = self.gas.borrow();
        let all = if fixed {
            gas.group_all_gather(g, mine).map_err(gas_err)?
        } else {
            let send = vec![mine.to_vec(); g.size() as usize];
            gas.group_all_to_allv(g, &send).map_err(gas_err)?.concat()
        };
        // SAFETY: `b.dest` is the C caller's destination, room for every member's part.
        unsafe { dst_slice(b.dest, all.len(), "dest")? }.copy_from_slice(&all);
        Ok(())
    }

    /// Block j of every member's source to member j; block i of dest from member i. The
    /// strides (in elements) pick every element of the blocks from `src` and into `dest`;
    /// large contiguous ones between same-host PEs go straight into the heaps.
    pub fn alltoall(&self, g: &Group, b: Bufs, dst: usize, sst: usize) -> Res<()> {
        let n = g.size() as usize;
        let count = byte_len(b.nelems, n)?;
        let total = byte_len(count, b.size)?;
        let bufs = [(b.dest.cast_const(), total), (b.src, total)];
        if (dst, sst) == (1, 1) && self.direct(g, (total, Self::EXCHANGE_FROM), &bufs) {
            return self.alltoall_direct(g, b.dest, b.src, total / n);
        }
        let extent = |stride: usize| -> Res<usize> {
            byte_len(
                count
                    .saturating_sub(1)
                    .checked_mul(stride)
                    .ok_or("stride overflows")?
                    + 1,
                b.size,
            )
        };
        let src_len = if count == 0 { 0 } else { extent(sst)? };
        // SAFETY: `b.src` is the C caller's source, `count` elements `sst` apart (shmem.h).
        let src = unsafe { src_slice(b.src, src_len, "source")? };
        let element = |k: usize, stride: usize| k * stride * b.size..(k * stride + 1) * b.size;
        // Contiguous blocks go whole: element by element, `alltoallmem`'s bytes cost a
        // loop turn each (4 µs for 1 KiB).
        let send: Vec<u8> = if sst == 1 {
            src.to_vec()
        } else {
            (0..count)
                .flat_map(|k| &src[element(k, sst)])
                .copied()
                .collect()
        };
        let got = self
            .gas
            .borrow()
            .group_all_to_all(g, &send, b.nelems * b.size)
            .map_err(gas_err)?;
        let dest_len = if count == 0 { 0 } else { extent(dst)? };
        // SAFETY: `b.dest` is the C caller's destination, `count` elements `dst` apart.
        let dest = unsafe { dst_slice(b.dest, dest_len, "dest")? };
        if dst == 1 {
            dest.copy_from_slice(&got);
            return Ok(());
        }
        for k in 0..count {
            dest[element(k, dst)].copy_from_slice(&got[k * b.size..(k + 1) * b.size]);
        }
        Ok(())
    }
}

/// A collective on a team handle, returning 0 (errors end the job).
pub fn on_team(what: &str, team: usize, body: impl FnOnce(&State, &Group) -> Res<()>) -> c_int {
    run(what, |s| {
        let g = s.team(team)?;
        body(s, &g)?;
        Ok(0)
    })
}

macro_rules! team_collectives {
    ($($name:tt: $size:expr),* $(,)?) => {
        paste::paste! {$(
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name broadcast>](team: usize, dest: *mut c_void, src: *const c_void, nelems: usize, root: c_int) -> c_int {
                let b = Bufs { dest, src, nelems, size: $size };
                on_team(stringify!([<shmem_ $name broadcast>]), team, |s, g| s.broadcast(g, b, root, false))
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name collect>](team: usize, dest: *mut c_void, src: *const c_void, nelems: usize) -> c_int {
                let b = Bufs { dest, src, nelems, size: $size };
                on_team(stringify!([<shmem_ $name collect>]), team, |s, g| s.collect(g, b, false))
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name fcollect>](team: usize, dest: *mut c_void, src: *const c_void, nelems: usize) -> c_int {
                let b = Bufs { dest, src, nelems, size: $size };
                on_team(stringify!([<shmem_ $name fcollect>]), team, |s, g| s.collect(g, b, true))
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name alltoall>](team: usize, dest: *mut c_void, src: *const c_void, nelems: usize) -> c_int {
                let b = Bufs { dest, src, nelems, size: $size };
                on_team(stringify!([<shmem_ $name alltoall>]), team, |s, g| s.alltoall(g, b, 1, 1))
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name alltoalls>](team: usize, dest: *mut c_void, src: *const c_void, dst: isize, sst: isize, nelems: usize) -> c_int {
                let b = Bufs { dest, src, nelems, size: $size };
                on_team(stringify!([<shmem_ $name alltoalls>]), team, |s, g| {
                    let (dst, sst) = strides(dst, sst)?;
                    s.alltoall(g, b, dst, sst)
                })
            }
        )*}
    };
}

/// The typed names: `shmem_int_broadcast`, ...
macro_rules! typed_collectives {
    ($($name:ident: $t:ty),* $(,)?) => {
        paste::paste! { team_collectives!($([<$name _>]: size_of::<$t>()),*); }
    };
}
super::rma::standard_types!(typed_collectives);
team_collectives!(longdouble_: 16);
// The byte forms: `shmem_broadcastmem`, ... put "mem" after the verb.
macro_rules! mem_collective {
    ($($verb:ident ($($p:ident: $t:ty),*)),*) => {
        paste::paste! {$(
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $verb mem>](team: usize, dest: *mut c_void, src: *const c_void, $($p: $t),*) -> c_int {
                [<shmem_uchar_ $verb>](team, dest, src, $($p),*)
            }
        )*}
    };
}
mem_collective!(
    broadcast(nelems: usize, root: c_int),
    collect(nelems: usize),
    fcollect(nelems: usize),
    alltoall(nelems: usize),
    alltoalls(dst: isize, sst: isize, nelems: usize)
);
