//! `MPI_Sizeof`, a generic procedure of the `mpi` and `mpi_f08` modules (none in mpif.h:
//! it needs a generic interface): one specific per numeric type and kind.

use std::fmt::Write;

/// The numeric kinds `MPI_Sizeof` answers for (MPI 4.1, 19.1.9): each type and kind
/// gfortran has, named for the procedure that serves it (kind 10, x87's extended
/// precision, on x86 only).
const SIZEOF_KINDS: &[(&str, &str)] = &[
    ("i1", "integer(kind=1)"),
    ("i2", "integer(kind=2)"),
    ("i4", "integer(kind=4)"),
    ("i8", "integer(kind=8)"),
    ("i16", "integer(kind=16)"),
    ("r4", "real(kind=4)"),
    ("r8", "real(kind=8)"),
    ("r10", "real(kind=10)"),
    ("r16", "real(kind=16)"),
    ("c4", "complex(kind=4)"),
    ("c8", "complex(kind=8)"),
    ("c10", "complex(kind=10)"),
    ("c16", "complex(kind=16)"),
];

fn kinds() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    let x86 = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a.starts_with("x86"));
    SIZEOF_KINDS
        .iter()
        .filter(move |(suffix, _)| x86 || !suffix.ends_with("10"))
}

pub fn interface(s: &mut String) {
    s.push_str("  interface MPI_Sizeof\n");
    for (suffix, _) in kinds() {
        let _ = writeln!(s, "    module procedure clump_sizeof_{suffix}");
    }
    s.push_str("  end interface\n");
}

/// `MPI_Sizeof(x, size, ierror)`: the bytes of one element of `x`, whatever its rank;
/// `optional` is "optional, " where ierror is (mpi_f08).
pub fn procedures(s: &mut String, optional: &str) {
    let set = if optional.is_empty() {
        "ierror = MPI_SUCCESS"
    } else {
        "if (present(ierror)) ierror = MPI_SUCCESS"
    };
    for (suffix, ty) in kinds() {
        let _ = writeln!(
            s,
            "  subroutine clump_sizeof_{suffix}(x, size, ierror)\n    \
             {ty}, dimension(..), intent(in) :: x\n    integer, intent(out) :: size\n    \
             integer, {optional}intent(out) :: ierror\n    size = storage_size(x) / 8\n    \
             {set}\n  end subroutine clump_sizeof_{suffix}"
        );
    }
}
