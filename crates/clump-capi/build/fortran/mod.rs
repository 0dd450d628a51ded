//! The Fortran bindings, generated from one table (`fortran/interface.txt`) and the
//! constants of include/mpi.h: the library's entry points (Rust, into OUT_DIR, included
//! by src/mpi/fortran) and the Fortran sources (mpif.h, mpi_types.f90, mpi.f90, mpi_f08.f90) that
//! `clump mpifort` finds in `<target>/<profile>/fortran` and `scripts/install` installs.

mod constants;
mod f08;
mod shims;
mod sizeof;
mod sources;
mod table;
mod types;

use std::path::Path;

pub fn generate(out_dir: &Path, profile: Option<&Path>) -> Result<(), String> {
    let text = std::fs::read_to_string("fortran/interface.txt").map_err(|e| e.to_string())?;
    let procs = table::parse(&text)?;
    let header = std::fs::read_to_string("include/mpi.h").map_err(|e| e.to_string())?;
    let constants = constants::read(&header);
    let write = |path: &Path, text: String| {
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    write(
        &out_dir.join("fortran_entry_points.rs"),
        shims::generate(&procs),
    )?;
    let dirs = [
        Some(out_dir.join("fortran")),
        profile.map(|p| p.join("fortran")),
    ];
    for dir in dirs.into_iter().flatten() {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        write(&dir.join("mpif.h"), sources::mpif_h(&constants, &procs))?;
        write(&dir.join("mpi_types.f90"), types::mpi_types())?;
        write(
            &dir.join("mpi.f90"),
            sources::mpi_module(&constants, &procs),
        )?;
        write(
            &dir.join("mpi_f08.f90"),
            f08::mpi_f08_module(&constants, &procs),
        )?;
    }
    Ok(())
}
