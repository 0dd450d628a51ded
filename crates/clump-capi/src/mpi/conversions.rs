//! Conversions the standard ABI defines on its own types: each handle to a C `int` and
//! back (`MPI_<Kind>_toint` / `_fromint`, which replace the `c2f`/`f2c` functions and
//! `MPI_Fint` of implementation-specific headers), and address arithmetic.
//!
//! clump's handles are small integers already (predefined ones below 0x300, the program's
//! counted up from 0x10000, requests between 2^30 and 2^31), so a handle's int is its
//! value, and every int is some handle (one naming nothing fails where it is used, as an
//! invalid handle does).

use super::abi::MpiAint as Aint;
use super::export::mpi_functions;
use super::handles::Handle;
use std::os::raw::c_int;

fn toint(h: Handle) -> c_int {
    // A value beyond int is no handle clump made: -1 is none either.
    c_int::try_from(h).unwrap_or(-1)
}

fn fromint(i: c_int) -> Handle {
    // Negative ints become values far above every handle, so they stay invalid.
    i as Handle
}

macro_rules! conversions {
    ($($kind:ident)*) => {
        paste::paste! {
            mpi_functions! {
                $(
                    fn [<$kind _toint>](h: Handle) -> c_int { toint(h) }
                    fn [<$kind _fromint>](i: c_int) -> Handle { fromint(i) }
                )*
            }
        }
    };
}

conversions! { Comm Errhandler File Group Info Message Op Request Session Type Win }

mpi_functions! {
    fn Aint_add(base: Aint, disp: Aint) -> Aint {
        base.wrapping_add(disp)
    }

    fn Aint_diff(addr1: Aint, addr2: Aint) -> Aint {
        addr1.wrapping_sub(addr2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::handles::{COMM_WORLD, DATATYPE_NULL};

    #[test]
    fn a_handle_and_its_int_convert_both_ways() {
        assert_eq!(MPI_Comm_toint(COMM_WORLD), 0x101);
        assert_eq!(MPI_Comm_fromint(0x101), COMM_WORLD);
        assert_eq!(
            PMPI_Type_fromint(PMPI_Type_toint(DATATYPE_NULL)),
            DATATYPE_NULL
        );
        assert_eq!(MPI_Request_fromint(MPI_Request_toint(0x10005)), 0x10005);
        assert_eq!(MPI_Win_toint(usize::MAX), -1);
    }

    #[test]
    fn addresses_add_and_subtract() {
        assert_eq!(MPI_Aint_add(100, -4), 96);
        assert_eq!(MPI_Aint_diff(100, 4), 96);
    }
}
