//! What a program may ask about the ABI itself: its version, and the values Fortran's
//! LOGICAL true and false have (set by a Fortran binding layer, per LOGICAL size, so that
//! logical reductions read them right).

use super::abi::*;
use super::export::{call, mpi_functions, out};
use std::collections::HashMap;
use std::os::raw::{c_int, c_void};
use std::sync::Mutex;

/// The LOGICAL sizes a Fortran compiler may have.
const LOGICAL_SIZES: [c_int; 5] = [1, 2, 4, 8, 16];

/// A LOGICAL's true and false bit patterns.
type Booleans = (Vec<u8>, Vec<u8>);

/// The booleans set for each LOGICAL size.
static BOOLEANS: Mutex<Option<HashMap<c_int, Booleans>>> = Mutex::new(None);

fn checked_size(size: c_int) -> Result<usize, c_int> {
    if LOGICAL_SIZES.contains(&size) {
        Ok(size as usize)
    } else {
        Err(MPI_ERR_ARG)
    }
}

/// The `n` bytes at `p`, or `MPI_ERR_ARG` for NULL.
fn bytes_at(p: *const c_void, n: usize) -> Result<Vec<u8>, c_int> {
    if p.is_null() {
        return Err(MPI_ERR_ARG);
    }
    // SAFETY: the caller's contract (mpi.h) is that a logical value of `n` bytes is there.
    Ok(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), n) }.to_vec())
}

fn write_bytes(p: *mut c_void, v: &[u8]) -> Result<(), c_int> {
    if p.is_null() {
        return Err(MPI_ERR_ARG);
    }
    // SAFETY: as in `bytes_at`, `p` holds room for a logical value of `v.len()` bytes.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p.cast::<u8>(), v.len()) };
    Ok(())
}

mpi_functions! {
    fn Abi_get_version(abi_major: *mut c_int, abi_minor: *mut c_int) -> c_int {
        call(|| {
            out(abi_major, MPI_ABI_VERSION)?;
            out(abi_minor, MPI_ABI_SUBVERSION)
        })
    }

    fn Abi_set_fortran_booleans(logical_size: c_int, logical_true: *mut c_void, logical_false: *mut c_void) -> c_int {
        call(|| {
            let n = checked_size(logical_size)?;
            let values = (bytes_at(logical_true, n)?, bytes_at(logical_false, n)?);
            let mut set = BOOLEANS.lock().map_err(|_| MPI_ERR_INTERN)?;
            set.get_or_insert_with(HashMap::new).insert(logical_size, values);
            Ok(())
        })
    }

    fn Abi_get_fortran_booleans(logical_size: c_int, logical_true: *mut c_void, logical_false: *mut c_void, is_set: *mut c_int) -> c_int {
        call(|| {
            checked_size(logical_size)?;
            let set = BOOLEANS.lock().map_err(|_| MPI_ERR_INTERN)?;
            match set.as_ref().and_then(|s| s.get(&logical_size)) {
                Some((t, f)) => {
                    write_bytes(logical_true, t)?;
                    write_bytes(logical_false, f)?;
                    out(is_set, 1)
                }
                None => out(is_set, 0),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_abi_version_is_one_zero() {
        let (mut major, mut minor) = (0, -1);
        assert_eq!(MPI_Abi_get_version(&mut major, &mut minor), MPI_SUCCESS);
        assert_eq!((major, minor), (1, 0));
        assert_eq!(
            PMPI_Abi_get_version(std::ptr::null_mut(), &mut minor),
            MPI_ERR_ARG
        );
    }

    #[test]
    fn fortran_booleans_read_back_as_set_per_size() {
        let (mut t, mut f, mut is_set) = (0u16, 0u16, -1);
        let (tp, fp) = ((&raw mut t).cast(), (&raw mut f).cast());
        assert_eq!(
            MPI_Abi_get_fortran_booleans(2, tp, fp, &mut is_set),
            MPI_SUCCESS
        );
        assert_eq!(is_set, 0);
        let (mut one, mut zero) = (1u16, 0u16);
        let (onep, zerop) = ((&raw mut one).cast(), (&raw mut zero).cast());
        assert_eq!(MPI_Abi_set_fortran_booleans(2, onep, zerop), MPI_SUCCESS);
        assert_eq!(
            MPI_Abi_get_fortran_booleans(2, tp, fp, &mut is_set),
            MPI_SUCCESS
        );
        assert_eq!((t, f, is_set), (1, 0, 1));
        assert_eq!(MPI_Abi_set_fortran_booleans(3, onep, zerop), MPI_ERR_ARG);
    }
}
