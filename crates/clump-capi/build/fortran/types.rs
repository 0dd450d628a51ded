//! mpi_types.f90: the module `mpi_handle_types`, which both modules use (the standard has
//! the `mpi` module define TYPE(MPI_Status) and the handle types of mpi_f08, for the
//! status conversions), and the library's external procedures for mpif.h and `use mpi`
//! (`MPI_Sizeof`'s specifics).

use super::sizeof;
use super::table::HANDLES;
use std::fmt::Write;

pub fn mpi_types() -> String {
    let mut s = String::from(
        "! The handle types and TYPE(MPI_Status) of clump's Fortran modules, and the\n\
         ! external procedures behind mpif.h's and the mpi module's MPI_SIZEOF. Generated\n\
         ! by build.rs; `clump mpifort` compiles it for the compiler in use.\n\
         module mpi_handle_types\n  implicit none\n",
    );
    for h in HANDLES {
        let _ = writeln!(
            s,
            "  type, bind(C) :: MPI_{h}\n    integer :: MPI_VAL\n  end type MPI_{h}"
        );
    }
    s.push_str(
        "  type, bind(C) :: MPI_Status\n    integer :: MPI_SOURCE, MPI_TAG, MPI_ERROR\n    \
         integer :: MPI_internal(5)\n  end type MPI_Status\n",
    );
    for op in ["==", "/="] {
        let _ = writeln!(s, "  interface operator({op})");
        for h in HANDLES {
            let _ = writeln!(
                s,
                "    module procedure clump_{}_{h}",
                if op == "==" { "eq" } else { "ne" }
            );
        }
        s.push_str("  end interface\n");
    }
    s.push_str("contains\n");
    for h in HANDLES {
        for (name, op) in [("eq", "=="), ("ne", "/=")] {
            let _ = writeln!(
                s,
                "  elemental logical function clump_{name}_{h}(a, b)\n    type(MPI_{h}), intent(in) :: a, b\n    \
                 clump_{name}_{h} = a%MPI_VAL {op} b%MPI_VAL\n  end function clump_{name}_{h}"
            );
        }
    }
    s.push_str("end module mpi_handle_types\n\n");
    sizeof::externals(&mut s);
    s
}

/// `MPI_Status_f2f08` and `MPI_Status_f082f` (the same eight integers either way), as
/// module procedures; `optional` is "optional, " where ierror is (mpi_f08).
pub fn status_conversions(s: &mut String, optional: &str) {
    let set = if optional.is_empty() {
        "ierror = MPI_SUCCESS"
    } else {
        "if (present(ierror)) ierror = MPI_SUCCESS"
    };
    let _ = write!(
        s,
        "  subroutine MPI_Status_f2f08(f_status, f08_status, ierror)
    integer, intent(in) :: f_status(MPI_STATUS_SIZE)
    type(MPI_Status), intent(out) :: f08_status
    integer, {optional}intent(out) :: ierror
    f08_status%MPI_SOURCE = f_status(1)
    f08_status%MPI_TAG = f_status(2)
    f08_status%MPI_ERROR = f_status(3)
    f08_status%MPI_internal = f_status(4:8)
    {set}
  end subroutine MPI_Status_f2f08
  subroutine MPI_Status_f082f(f08_status, f_status, ierror)
    type(MPI_Status), intent(in) :: f08_status
    integer, intent(out) :: f_status(MPI_STATUS_SIZE)
    integer, {optional}intent(out) :: ierror
    f_status = [f08_status%MPI_SOURCE, f08_status%MPI_TAG, f08_status%MPI_ERROR, &
                f08_status%MPI_internal]
    {set}
  end subroutine MPI_Status_f082f
"
    );
}
