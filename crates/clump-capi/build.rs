//! Compiles the C half of libclump (arithmetic on C types that Rust lacks, long double and
//! complex, for the OpenSHMEM reductions), gives the library the MPI standard ABI's name
//! beside it in the target directory, and generates the Fortran bindings ([`fortran`]).

#[path = "build/fortran/mod.rs"]
mod fortran;

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=csrc/extended_arith.c");
    println!("cargo:rerun-if-changed=build.rs");
    cc::Build::new()
        .file("csrc/extended_arith.c")
        .warnings(true)
        .compile("clump_extended_arith");
    mpi_abi_names();
    for input in ["fortran/interface.txt", "include/mpi.h", "build/fortran"] {
        println!("cargo:rerun-if-changed={input}");
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    if let Err(e) = fortran::generate(&out, out.ancestors().nth(3)) {
        panic!("the Fortran bindings: {e}");
    }
}

/// Programs built for the MPI standard ABI need `libmpi_abi.so.1`: a symbolic link to
/// libclump.so (which cargo links after this script; it dangles until then). One file
/// under two names: the loader maps it once (it compares device and inode), so a program
/// that also needs libclump.so (OpenSHMEM, AM-II) still holds one runtime. The linker's
/// `-lmpi_abi` reads `libmpi_abi.so`, a script naming `libmpi_abi.so.1`, so that name is
/// the one programs record (libclump.so has no SONAME that would replace it).
fn mpi_abi_names() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    // OUT_DIR is <target>/<profile>/build/clump-capi-<hash>/out.
    let Some(profile) = out.ancestors().nth(3) else {
        println!("cargo:warning=no target directory above {}", out.display());
        return;
    };
    if let Err(e) = write_names(profile) {
        println!(
            "cargo:warning=cannot create libmpi_abi.so.1 in {}: {e}",
            profile.display()
        );
    }
}

fn write_names(profile: &Path) -> std::io::Result<()> {
    let link = profile.join("libmpi_abi.so.1");
    if std::fs::read_link(&link).ok().as_deref() != Some(Path::new("libclump.so")) {
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink("libclump.so", &link)?;
    }
    std::fs::write(
        profile.join("libmpi_abi.so"),
        "/* The MPI standard ABI's library: programs record libmpi_abi.so.1. */\nINPUT(-l:libmpi_abi.so.1)\n",
    )
}
