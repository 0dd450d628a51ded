//! The MPI and OpenSHMEM entry points: the compiler wrappers `clump mpicc`, `mpicxx`
//! (`mpic++`), `mpifort` (`mpif90`, `mpif77`), `oshcc` and `oshc++` (a compiler with
//! clump's flags; for Fortran also the `mpi` and `mpi_f08` modules) and the launchers
//! `clump mpiexec`, `mpirun` and `oshrun` (`clump run` with the usual `-n`/`-np`). The same
//! programs answer when `clump` is called through a link of one of those names, which is
//! how `scripts/install` provides the commands.

mod cc;
mod compiler;
mod flags;
mod fortran_modules;
mod launcher;

use compiler::Language;
use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

/// One compiler wrapper: its name, the language it compiles, the interface it is for and
/// the `clump config` query that prints its programs' link flags.
pub struct Wrapper {
    name: &'static str,
    language: Language,
    interface: &'static str,
    link_query: &'static [&'static str],
}

/// What MPI programs link: libmpi_abi.so.1, the standard ABI's library name (a link to
/// libclump), so that they run on any implementation of the ABI.
const MPI_LINK_QUERY: &[&str] = &["--mpi", "--libs"];
/// What OpenSHMEM programs link (libclump).
const SHMEM_LINK_QUERY: &[&str] = &["--libs"];

pub const MPICC: Wrapper = Wrapper {
    name: "mpicc",
    language: Language::C,
    interface: "MPI",
    link_query: MPI_LINK_QUERY,
};
pub const MPICXX: Wrapper = Wrapper {
    name: "mpicxx",
    language: Language::Cxx,
    interface: "MPI",
    link_query: MPI_LINK_QUERY,
};
pub const MPIFORT: Wrapper = Wrapper {
    name: "mpifort",
    language: Language::Fortran,
    interface: "MPI",
    link_query: MPI_LINK_QUERY,
};
pub const OSHCC: Wrapper = Wrapper {
    name: "oshcc",
    language: Language::C,
    interface: "OpenSHMEM",
    link_query: SHMEM_LINK_QUERY,
};
pub const OSHCXX: Wrapper = Wrapper {
    name: "oshc++",
    language: Language::Cxx,
    interface: "OpenSHMEM",
    link_query: SHMEM_LINK_QUERY,
};

/// `WRAPPER ARGS...`: the wrapper's compiler with clump's flags and ARGS, or the answer to
/// one of the wrapper's own options (`-show`, `--help`, ...).
pub fn compile(wrapper: &Wrapper, args: Vec<OsString>) -> ExitCode {
    cc::main(wrapper, args)
}

/// `mpiexec -n N PROGRAM ARGS...` under the name the user called it by.
pub fn launch(name: &str, args: Vec<OsString>) -> ExitCode {
    launcher::main(name, args)
}

/// The names of the compiler wrappers, ours and the other implementations' spellings of
/// them: a compiler variable naming one of these names a wrapper, not a compiler.
const WRAPPER_NAMES: &[&str] = &[
    "mpicc", "mpicxx", "mpic++", "mpiCC", "mpifort", "mpif90", "mpif77", "oshcc", "oshc++",
    "oshcxx", "oshCC",
];

/// What a link named `argv0` runs, if it is one of the names clump answers to.
pub fn by_link_name(argv0: &OsString, args: Vec<OsString>) -> Option<ExitCode> {
    let name = Path::new(argv0).file_name()?.to_str()?;
    let wrapper = match name {
        "mpicc" => &MPICC,
        "mpicxx" | "mpic++" => &MPICXX,
        "mpifort" | "mpif90" | "mpif77" => &MPIFORT,
        "oshcc" => &OSHCC,
        "oshc++" | "oshcxx" => &OSHCXX,
        "mpiexec" | "mpirun" | "oshrun" => return Some(launch(name, args)),
        _ => return None,
    };
    Some(compile(wrapper, args))
}

fn fail(who: &str, msg: &str) -> ExitCode {
    eprintln!("{who}: {msg}");
    ExitCode::FAILURE
}

/// The `clump` binary this process runs, for the `clump config` and `clump run` it calls.
fn clump_exe() -> std::path::PathBuf {
    std::env::current_exe().unwrap_or_else(|_| "clump".into())
}
