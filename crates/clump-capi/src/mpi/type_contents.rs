//! How each user datatype was made, for `MPI_Type_get_envelope` and
//! `MPI_Type_get_contents` (and their `_c` forms): the combiner and the arguments of its
//! constructor, kept per handle. A constituent that is itself derived is kept by value, so
//! freeing it does not lose the answer; `get_contents` hands out a new handle for it.

#![allow(clippy::too_many_arguments)] // MPI's own argument lists

use super::abi::{MPI_ERR_ARG, MPI_ERR_TYPE};
use super::buffers::ints_out;
use super::export::mpi_functions;
use super::handles::*;
use super::wired::{on, Failure};
use clump_mpi::Datatype;
use std::cell::RefCell;
use std::collections::HashMap;
use std::os::raw::c_int;
use std::rc::Rc;

type Aint = isize;
type Count = i64;

/// `MPI_COMBINER_*` (mpi.h).
pub const NAMED: c_int = 101;
pub const DUP: c_int = 102;
pub const CONTIGUOUS: c_int = 103;
pub const VECTOR: c_int = 104;
pub const HVECTOR: c_int = 105;
pub const INDEXED: c_int = 106;
pub const HINDEXED: c_int = 107;
pub const INDEXED_BLOCK: c_int = 108;
pub const HINDEXED_BLOCK: c_int = 109;
pub const STRUCT: c_int = 110;
pub const SUBARRAY: c_int = 111;
pub const DARRAY: c_int = 112;
pub const RESIZED: c_int = 116;

/// A constructor's datatype argument.
#[derive(Clone)]
enum Part {
    /// A predefined type, returned as its own handle.
    Named(Handle),
    /// A derived one as it was, with how it was made.
    Derived(Datatype, Option<Rc<Contents>>),
}

/// A combiner and its constructor's arguments, in the order the standard lists them.
pub struct Contents {
    combiner: c_int,
    ints: Vec<c_int>,
    aints: Vec<Aint>,
    types: Vec<Part>,
}

am::process_local! {
    static CONTENTS: RefCell<HashMap<Handle, Rc<Contents>>> = RefCell::new(HashMap::new());
}

impl Contents {
    /// The contents of a constructor call on the datatypes `types` (which must exist).
    pub fn new(
        combiner: c_int,
        ints: Vec<c_int>,
        aints: Vec<Aint>,
        types: &[Handle],
    ) -> Result<Contents, Failure> {
        let types = types
            .iter()
            .map(|&h| {
                if is_predefined_datatype(h) {
                    return Ok(Part::Named(h));
                }
                let how = CONTENTS.with_borrow(|c| c.get(&h).cloned());
                Ok(Part::Derived(datatype(h)?, how))
            })
            .collect::<Result<_, Failure>>()?;
        Ok(Contents {
            combiner,
            ints,
            aints,
            types,
        })
    }
}

/// Records how user datatype `h` was made.
pub fn record(h: Handle, how: Contents) {
    CONTENTS.with_borrow_mut(|c| c.insert(h, Rc::new(how)));
}

/// Forgets a freed datatype's contents.
pub fn forget(h: Handle) {
    CONTENTS.with_borrow_mut(|c| c.remove(&h));
}

/// The contents of datatype `h`; `None` for a predefined one (`MPI_COMBINER_NAMED`).
fn contents(h: Handle) -> Result<Option<Rc<Contents>>, Failure> {
    datatype(h)?;
    if is_predefined_datatype(h) {
        return Ok(None);
    }
    let how = CONTENTS.with_borrow(|c| c.get(&h).cloned());
    how.map(Some).ok_or_else(|| {
        (
            MPI_ERR_TYPE,
            format!("datatype {h:#x} has no recorded constructor"),
        )
    })
}

/// The envelope: (integers, addresses, datatypes, combiner).
fn envelope(h: Handle) -> Result<(usize, usize, usize, c_int), Failure> {
    Ok(match contents(h)? {
        None => (0, 0, 0, NAMED),
        Some(c) => (c.ints.len(), c.aints.len(), c.types.len(), c.combiner),
    })
}

/// Writes the contents of `h` into arrays of the given capacities.
fn get_contents(
    h: Handle,
    max: [usize; 3],
    ints: *mut c_int,
    aints: *mut Aint,
    types: *mut Handle,
) -> Result<(), Failure> {
    let c = contents(h)?.ok_or_else(|| {
        (
            MPI_ERR_ARG,
            "a predefined datatype has no contents".to_string(),
        )
    })?;
    let have = [c.ints.len(), c.aints.len(), c.types.len()];
    if have.iter().zip(max).any(|(&n, m)| n > m) {
        return Err((
            MPI_ERR_ARG,
            format!("contents of {have:?} entries do not fit arrays of {max:?}"),
        ));
    }
    ints_out(ints, &c.ints)?;
    if !c.aints.is_empty() && aints.is_null() || !c.types.is_empty() && types.is_null() {
        return Err((MPI_ERR_ARG, "NULL output array".into()));
    }
    for (i, &a) in c.aints.iter().enumerate() {
        // SAFETY: the caller's array holds `max[1]` entries, at least as many as these.
        unsafe { *aints.add(i) = a };
    }
    for (i, part) in c.types.iter().enumerate() {
        let handle = match part {
            Part::Named(h) => *h,
            Part::Derived(t, how) => {
                let h = put_datatype(t.clone());
                if let Some(how) = how {
                    CONTENTS.with_borrow_mut(|m| m.insert(h, how.clone()));
                }
                h
            }
        };
        // SAFETY: the caller's array holds `max[2]` entries, at least as many as these.
        unsafe { *types.add(i) = handle };
    }
    Ok(())
}

fn arg<T>(ptr: *mut T, v: T, what: &str) -> Result<(), Failure> {
    super::export::out(ptr, v).map_err(|e| (e, format!("NULL {what}")))
}

/// A capacity argument, negative ones refused.
fn capacity<T: TryInto<usize> + Copy + std::fmt::Display>(n: T) -> Result<usize, Failure> {
    n.try_into()
        .map_err(|_| (MPI_ERR_ARG, format!("negative array size {n}")))
}

mpi_functions! {
    fn Type_get_envelope(t: Handle, ni: *mut c_int, na: *mut c_int, nd: *mut c_int, combiner: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            let (i, a, d, c) = envelope(t)?;
            arg(ni, i as c_int, "num_integers")?;
            arg(na, a as c_int, "num_addresses")?;
            arg(nd, d as c_int, "num_datatypes")?;
            arg(combiner, c, "combiner")
        })
    }

    fn Type_get_envelope_c(t: Handle, ni: *mut Count, na: *mut Count, nc: *mut Count, nd: *mut Count, combiner: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            let (i, a, d, c) = envelope(t)?;
            arg(ni, i as Count, "num_integers")?;
            arg(na, a as Count, "num_addresses")?;
            arg(nc, 0, "num_large_counts")?;
            arg(nd, d as Count, "num_datatypes")?;
            arg(combiner, c, "combiner")
        })
    }

    fn Type_get_contents(t: Handle, mi: c_int, ma: c_int, md: c_int, ints: *mut c_int, aints: *mut Aint, types: *mut Handle) -> c_int {
        on(COMM_WORLD, || get_contents(t, [capacity(mi)?, capacity(ma)?, capacity(md)?], ints, aints, types))
    }

    fn Type_get_contents_c(t: Handle, mi: Count, ma: Count, _mc: Count, md: Count, ints: *mut c_int, aints: *mut Aint, _counts: *mut Count, types: *mut Handle) -> c_int {
        // clump records no large counts: every constructor's counts fit an int.
        on(COMM_WORLD, || get_contents(t, [capacity(mi)?, capacity(ma)?, capacity(md)?], ints, aints, types))
    }
}
