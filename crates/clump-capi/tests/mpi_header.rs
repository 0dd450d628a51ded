//! `include/mpi.h` on its own: it declares everything the MPI test programs use (each
//! compiles against it, as C11 with every warning an error, and the header as C++ too),
//! and it has the sizes, layouts and values the MPI standard ABI fixes.

use std::path::{Path, PathBuf};
use std::process::Command;

fn capi() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Compiles `src` (syntax and static assertions only) against the header with `compiler`.
fn check(compiler: &str, lang: &[&str], src: &Path) {
    let out = Command::new(compiler)
        .args(lang)
        .args(["-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only"])
        .arg(format!("-I{}", capi().join("include").display()))
        .arg(src)
        .output()
        .unwrap_or_else(|e| panic!("{compiler} runs: {e}"));
    assert!(
        out.status.success(),
        "{compiler} {}:\n{}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_mpi_test_program_compiles_against_the_header() {
    let mut programs: Vec<PathBuf> = std::fs::read_dir(capi().join("tests/mpi"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    programs.sort();
    assert!(
        programs.len() >= 4,
        "MPI test programs missing: {programs:?}"
    );
    for program in programs {
        check("cc", &["-std=c11"], &program);
    }
}

#[test]
fn the_header_has_the_standard_abis_layouts_and_values() {
    let src = capi().join("tests/mpi_abi/layout.c");
    check("cc", &["-std=c11"], &src);
    let exe = std::env::temp_dir().join(format!("clump-mpi-abi-{}", std::process::id()));
    let built = Command::new("cc")
        .args(["-std=c11", "-o"])
        .arg(&exe)
        .arg(format!("-I{}", capi().join("include").display()))
        .arg(&src)
        .status()
        .expect("cc runs");
    assert!(built.success(), "cc {}", src.display());
    let out = Command::new(&exe).output().expect("the check runs");
    std::fs::remove_file(&exe).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn the_header_compiles_as_cpp() {
    let dir = std::env::temp_dir().join(format!("clump-mpi-h-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("uses_mpi.cc");
    std::fs::write(
        &src,
        "#include <mpi.h>\nint main() { return MPI_COMM_WORLD == MPI_COMM_NULL; }\n",
    )
    .unwrap();
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let have_cxx = Command::new(&cxx).arg("--version").output().is_ok();
    if have_cxx {
        check(&cxx, &["-x", "c++"], &src);
    } else {
        clump_testkit::skip(&format!("no C++ compiler ({cxx})"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
