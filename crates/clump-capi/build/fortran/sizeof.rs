//! `MPI_Sizeof`, a generic procedure of mpif.h and both modules: one specific per numeric
//! type and kind. mpif.h and the `mpi` module name the library's external procedures
//! `MPI_Sizeof_<kind>` (their source is mpi_types.f90, compiled into the modules' library);
//! `mpi_f08` has its own, whose ierror is optional.

use std::fmt::Write;

/// The kinds `MPI_Sizeof` answers for (MPI 4.1, 19.1.9, numeric types): each type and kind
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
    // Beyond the standard's numeric types, as other implementations answer too.
    ("l1", "logical(kind=1)"),
    ("l2", "logical(kind=2)"),
    ("l4", "logical(kind=4)"),
    ("l8", "logical(kind=8)"),
    ("ch", "character(len=*)"),
];

fn kinds() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    let x86 = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a.starts_with("x86"));
    SIZEOF_KINDS
        .iter()
        .filter(move |(suffix, _)| x86 || !suffix.ends_with("10"))
}

/// mpi_f08's generic over its module procedures.
pub fn f08_interface(s: &mut String) {
    s.push_str("  interface MPI_Sizeof\n");
    for (suffix, _) in kinds() {
        let _ = writeln!(s, "    module procedure clump_sizeof_{suffix}");
    }
    s.push_str("  end interface\n");
}

/// The generic over the library's externals, as statements without indentation (each
/// short enough for mpif.h's fixed form).
pub fn external_interface() -> Vec<String> {
    let mut v = vec!["interface MPI_SIZEOF".to_string()];
    for (suffix, ty) in kinds() {
        v.push(format!("subroutine MPI_Sizeof_{suffix}(x, size, ierror)"));
        v.push(format!("{ty}, dimension(..) :: x"));
        v.push("integer size, ierror".into());
        v.push("end subroutine".into());
    }
    v.push("end interface".into());
    v
}

/// `MPI_Sizeof(x, size, ierror)`: the bytes of one element of `x`, whatever its rank.
/// `name` is the specific's name for a suffix; `optional` is "optional, " where ierror
/// is (mpi_f08).
fn procedures(s: &mut String, name: &dyn Fn(&str) -> String, optional: &str) {
    let set = if optional.is_empty() {
        "ierror = 0"
    } else {
        "if (present(ierror)) ierror = 0"
    };
    for (suffix, ty) in kinds() {
        let name = name(suffix);
        let _ = writeln!(
            s,
            "  subroutine {name}(x, size, ierror)\n    \
             {ty}, dimension(..), intent(in) :: x\n    integer, intent(out) :: size\n    \
             integer, {optional}intent(out) :: ierror\n    size = storage_size(x) / 8\n    \
             {set}\n  end subroutine {name}"
        );
    }
}

/// mpi_f08's module procedures.
pub fn f08_procedures(s: &mut String) {
    procedures(s, &|k| format!("clump_sizeof_{k}"), "optional, ");
}

/// The library's external procedures for mpif.h and the `mpi` module.
pub fn externals(s: &mut String) {
    procedures(s, &|k| format!("MPI_Sizeof_{k}"), "");
}
