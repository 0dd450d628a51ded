//! Datatypes from C: the type constructors (user types live in the handle registry), their
//! sizes, bounds and names, pack/unpack, and how many predefined elements a status holds
//! (`MPI_Get_elements`).

use super::abi::*;
use super::buffers::{counts, handles, ints, name_arg, MAX_OBJECT_NAME};
use super::export::{mpi_functions, out, string_out};
use super::handles::*;
use super::type_contents::*;
use super::wired::{count, on, Failure};
use clump_mpi::Datatype;
use std::os::raw::{c_char, c_int, c_void};

/// `MPI_Aint`.
type Aint = isize;

fn arg<T>(ptr: *mut T, v: T, what: &str) -> Result<(), Failure> {
    out(ptr, v).map_err(|e| (e, format!("NULL {what}")))
}

/// Stores a constructed type through `new`, with how it was made.
pub fn made(
    t: clump_mpi::Result<Datatype>,
    new: *mut Handle,
    how: Contents,
) -> Result<(), Failure> {
    let t = t.map_err(err)?;
    if new.is_null() {
        return Err((MPI_ERR_ARG, "NULL newtype".into()));
    }
    let h = put_datatype(t);
    record(h, how);
    arg(new, h, "newtype")
}

/// The leading ints followed by each C int array (its pointer and length): a
/// constructor's integer arguments as its contents list them.
fn with(lead: &[c_int], arrays: &[(*const c_int, usize)]) -> Result<Vec<c_int>, Failure> {
    let mut v = lead.to_vec();
    for &(p, n) in arrays {
        v.extend(ints(p, n)?);
    }
    Ok(v)
}

/// `n` displacements given as C ints.
fn displs(ptr: *const c_int, n: usize) -> Result<Vec<isize>, Failure> {
    Ok(ints(ptr, n)?.into_iter().map(|d| d as isize).collect())
}

/// `n` displacements given as `MPI_Aint`s.
fn aints(ptr: *const Aint, n: usize) -> Result<Vec<isize>, Failure> {
    if n > 0 && ptr.is_null() {
        return Err((MPI_ERR_ARG, "NULL displacement array".into()));
    }
    // SAFETY: a non-NULL array argument from C holds `n` entries.
    Ok((0..n).map(|i| unsafe { *ptr.add(i) }).collect())
}

/// The packing position argument: where in a buffer of `size` bytes the next data goes.
fn position(pos: *mut c_int, size: usize) -> Result<usize, Failure> {
    // SAFETY: a non-NULL position pointer from C points at an int.
    let p = unsafe { pos.as_ref() }
        .copied()
        .ok_or_else(|| (MPI_ERR_ARG, "NULL position".to_string()))?;
    usize::try_from(p)
        .ok()
        .filter(|&p| p <= size)
        .ok_or_else(|| {
            (
                MPI_ERR_ARG,
                format!("position {p} is outside the buffer of {size} bytes"),
            )
        })
}

/// How many predefined elements of `dt` a status records: whole elements count all their
/// parts, a partial one the predefined elements that came whole; `None` when the data
/// ends inside one (`MPI_UNDEFINED`).
pub fn elements(s: &MpiStatus, dt: &Datatype) -> Option<u64> {
    dt.elements_in(status_bytes(s))
}

mpi_functions! {
    fn Type_contiguous(n: c_int, old: Handle, new: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let t = Datatype::contiguous(count(n)?, &datatype(old)?);
            made(t, new, Contents::new(CONTIGUOUS, vec![n], vec![], &[old])?)
        })
    }

    fn Type_vector(n: c_int, len: c_int, stride: c_int, old: Handle, new: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let t = Datatype::vector(count(n)?, count(len)?, stride as isize, &datatype(old)?);
            made(t, new, Contents::new(VECTOR, vec![n, len, stride], vec![], &[old])?)
        })
    }

    fn Type_create_hvector(n: c_int, len: c_int, stride: Aint, old: Handle, new: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let t = Datatype::hvector(count(n)?, count(len)?, stride, &datatype(old)?);
            made(t, new, Contents::new(HVECTOR, vec![n, len], vec![stride], &[old])?)
        })
    }

    fn Type_indexed(n: c_int, lens: *const c_int, disps: *const c_int, old: Handle, new: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let k = count(n)?;
            let t = Datatype::indexed(&counts(lens, k)?, &displs(disps, k)?, &datatype(old)?);
            made(t, new, Contents::new(INDEXED, with(&[n], &[(lens, k), (disps, k)])?, vec![], &[old])?)
        })
    }

    fn Type_create_hindexed(n: c_int, lens: *const c_int, disps: *const Aint, old: Handle, new: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let k = count(n)?;
            let d = aints(disps, k)?;
            let t = Datatype::hindexed(&counts(lens, k)?, &d, &datatype(old)?);
            made(t, new, Contents::new(HINDEXED, with(&[n], &[(lens, k)])?, d, &[old])?)
        })
    }

    fn Type_create_indexed_block(n: c_int, len: c_int, disps: *const c_int, old: Handle, new: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let k = count(n)?;
            let t = Datatype::indexed_block(count(len)?, &displs(disps, k)?, &datatype(old)?);
            made(t, new, Contents::new(INDEXED_BLOCK, with(&[n, len], &[(disps, k)])?, vec![], &[old])?)
        })
    }

    fn Type_create_hindexed_block(n: c_int, len: c_int, disps: *const Aint, old: Handle, new: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let k = count(n)?;
            let d = aints(disps, k)?;
            let t = Datatype::hindexed(&vec![count(len)?; k], &d, &datatype(old)?);
            made(t, new, Contents::new(HINDEXED_BLOCK, vec![n, len], d, &[old])?)
        })
    }

    fn Type_create_struct(n: c_int, lens: *const c_int, disps: *const Aint, types: *const Handle, new: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let k = count(n)?;
            let (hs, d) = (handles(types, k)?, aints(disps, k)?);
            let dts = hs.iter().map(|&h| datatype(h)).collect::<Result<Vec<_>, _>>()?;
            let t = Datatype::structure(&counts(lens, k)?, &d, &dts);
            made(t, new, Contents::new(STRUCT, with(&[n], &[(lens, k)])?, d, &hs)?)
        })
    }

    fn Type_create_resized(old: Handle, lb: Aint, extent: Aint, new: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let t = Datatype::resized(&datatype(old)?, lb, extent);
            made(t, new, Contents::new(RESIZED, vec![], vec![lb, extent], &[old])?)
        })
    }

    fn Type_get_name(t: Handle, name: *mut c_char, len: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            let dt = datatype(t)?;
            string_out(dt.name(), name, MAX_OBJECT_NAME, len).map_err(|e| (e, "NULL name".into()))
        })
    }

    fn Type_set_name(t: Handle, name: *const c_char) -> c_int {
        on(COMM_WORLD, || {
            let cut = name_arg(name)?;
            rename_datatype(t, &cut)
        })
    }

    fn Pack(inbuf: *const c_void, n: c_int, t: Handle, outbuf: *mut c_void, size: c_int, pos: *mut c_int, _c: Handle) -> c_int {
        on(COMM_WORLD, || {
            let size = count(size)?;
            let at = position(pos, size)?;
            let data = super::buffers::pack(inbuf, count(n)?, &datatype(t)?)?;
            if data.len() > size - at {
                return Err((1, format!("{} packed bytes do not fit {} left of the buffer", data.len(), size - at)));
            }
            // SAFETY: `outbuf` holds `size` bytes (the caller's contract) and the data fits
            // from `at`.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), outbuf.cast::<u8>().add(at), data.len()) };
            arg(pos, (at + data.len()) as c_int, "position")
        })
    }

    fn Unpack(inbuf: *const c_void, size: c_int, pos: *mut c_int, outbuf: *mut c_void, n: c_int, t: Handle, _c: Handle) -> c_int {
        on(COMM_WORLD, || {
            let size = count(size)?;
            let at = position(pos, size)?;
            let (dt, n) = (datatype(t)?, count(n)?);
            let len = dt.bytes(n).map_err(err)?;
            if len > size - at {
                return Err((15, format!("unpacking {len} bytes from {} left of the buffer", size - at)));
            }
            if len > 0 && inbuf.is_null() {
                return Err((1, "NULL inbuf".into()));
            }
            // SAFETY: `inbuf` holds `size` bytes (the caller's contract), `at + len <= size`.
            let data = unsafe { std::slice::from_raw_parts(inbuf.cast::<u8>().add(at), len) };
            super::buffers::unpack(data, outbuf, n, &dt)?;
            arg(pos, (at + len) as c_int, "position")
        })
    }

    fn Pack_size(n: c_int, t: Handle, _c: Handle, size: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            let len = datatype(t)?.bytes(count(n)?).map_err(err)?;
            arg(size, c_int::try_from(len).map_err(|_| (2, "pack size overflows an int".to_string()))?, "size")
        })
    }

    fn Get_address(location: *const c_void, address: *mut Aint) -> c_int {
        on(COMM_WORLD, || arg(address, location as Aint, "address"))
    }

    fn Type_commit(t: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            // SAFETY: a non-NULL datatype pointer from C points at an MPI_Datatype.
            let h = unsafe { t.as_ref() }.ok_or_else(|| (MPI_ERR_ARG, "NULL datatype".to_string()))?;
            datatype(*h).map(drop)
        })
    }

    fn Type_free(t: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            // SAFETY: as in Type_commit.
            let h = unsafe { t.as_mut() }.ok_or_else(|| (MPI_ERR_ARG, "NULL datatype".to_string()))?;
            if super::f90_types::is_f90(*h) {
                return Err((MPI_ERR_TYPE, "a type of MPI_Type_create_f90_* cannot be freed".into()));
            }
            free_datatype(*h)?;
            forget(*h);
            super::attrs::delete_all(*h)?;
            *h = DATATYPE_NULL;
            Ok(())
        })
    }

    fn Type_get_extent(t: Handle, lb: *mut Aint, extent: *mut Aint) -> c_int {
        on(COMM_WORLD, || {
            let dt = datatype(t)?;
            arg(lb, dt.lb(), "lb")?;
            arg(extent, dt.extent(), "extent")
        })
    }

    fn Get_elements(status: *const MpiStatus, t: Handle, n: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            let dt = datatype(t)?;
            // SAFETY: a non-NULL status pointer from C points at an MPI_Status.
            let s = unsafe { status.as_ref() }.ok_or_else(|| (MPI_ERR_ARG, "NULL status".to_string()))?;
            let v = elements(s, &dt).and_then(|v| c_int::try_from(v).ok());
            arg(n, v.unwrap_or(MPI_UNDEFINED), "count")
        })
    }
}
