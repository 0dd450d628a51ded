//! libclump as the MPI standard ABI's library, seen from programs built the way another
//! implementation's ABI wrapper builds them: a wrapper of the test's own that names only
//! `libmpi_abi.so.1`, never clump's. Every function the header declares is exported, a
//! program naming all of them loads with `LD_BIND_NOW=1`, and one that relies on the
//! standard's values runs under `clump mpiexec` over shared memory, UDP and two hosts.

#[allow(dead_code)] // the job runners of the other C tests
mod support;

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use support::{assert_ok, install, tree, wait_with_timeout};

fn include() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("include")
}

/// The functions `mpi.h` declares, each by its `MPI_` name without the prefix.
fn declared() -> BTreeSet<String> {
    std::fs::read_to_string(include().join("mpi.h"))
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("CLUMP_MPI_FN("))
        .map(|l| l.split(", ").nth(1).unwrap().to_owned())
        .collect()
}

/// `abicc`: a compiler wrapper as small as an ABI implementation's can be (written once:
/// the tests run in parallel, and a script being rewritten cannot be executed).
fn abicc() -> &'static Path {
    static ABICC: OnceLock<PathBuf> = OnceLock::new();
    ABICC.get_or_init(|| {
        let t = tree();
        let path = t.out.join("abicc");
        let lib = t.bin.display();
        let script = format!(
            "#!/bin/sh\nexec cc -I{} \"$@\" -L{lib} -Wl,-rpath,{lib} -lmpi_abi\n",
            include().display()
        );
        let tmp = t.out.join(format!("abicc.{}", std::process::id()));
        std::fs::write(&tmp, script).unwrap();
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        path
    })
}

/// Builds C source `src` into program `name` with `abicc` and `extra` arguments.
fn build(src: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let exe = tree().out.join(name);
    let out = Command::new(abicc())
        .args(["-std=c11", "-O1", "-Wall", "-Werror"])
        .arg(src)
        .arg("-o")
        .arg(&exe)
        .args(extra)
        .output()
        .expect("abicc runs");
    assert!(
        out.status.success(),
        "abicc {}:\n{}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

fn dynamic_section(exe: &Path) -> String {
    let out = Command::new("readelf")
        .arg("-d")
        .arg(exe)
        .output()
        .expect("readelf runs");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_library_exports_every_function_the_header_declares_by_both_names() {
    let lib = tree().bin.join("libmpi_abi.so.1");
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&lib)
        .output()
        .expect("nm runs");
    assert!(out.status.success(), "nm {}: {out:?}", lib.display());
    let text = String::from_utf8(out.stdout).unwrap();
    let exported: BTreeSet<&str> = text
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    let names = declared();
    assert_eq!(names.len(), 664, "the standard ABI declares 664 functions");
    let missing: Vec<String> = names
        .iter()
        .flat_map(|n| [format!("MPI_{n}"), format!("PMPI_{n}")])
        .filter(|s| !exported.contains(s.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "{} not exported: {missing:?}",
        missing.len()
    );
}

#[test]
fn a_program_naming_every_function_needs_libmpi_abi_and_loads_with_bind_now() {
    let mut src = String::from(
        "#include <mpi.h>\n#include <stdio.h>\n\nstatic void (*const all[])(void) = {\n",
    );
    for n in declared() {
        src += &format!("    (void (*)(void))MPI_{n},\n    (void (*)(void))PMPI_{n},\n");
    }
    src += "};\n\nint main(void) {\n    int major = 0, minor = -1;\n";
    src += "    MPI_Abi_get_version(&major, &minor);\n";
    src +=
        "    printf(\"%zu functions, ABI %d.%d\\n\", sizeof all / sizeof all[0], major, minor);\n";
    src += "    return 0;\n}\n";
    let c = tree().out.join("mpi_abi_all.c");
    std::fs::write(&c, src).unwrap();
    let exe = build(&c, "mpi_abi_all", &[]);

    let dynamic = dynamic_section(&exe);
    assert!(dynamic.contains("[libmpi_abi.so.1]"), "{dynamic}");
    assert!(!dynamic.contains("libclump"), "{dynamic}");

    let out = Command::new(&exe)
        .env("LD_BIND_NOW", "1")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1328 functions, ABI 1.0"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_program_built_for_the_standard_abi_runs_over_shared_memory_udp_and_two_hosts() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mpi_abi/semantics.c");
    let exe = build(&src, "mpi_abi_semantics", &[]);
    let placements: [&[&str]; 3] = [
        &["--transport", "shm"],
        &["--transport", "udp"],
        &["--hosts", "2"],
    ];
    for placement in placements {
        for n in [1, 2, 4] {
            if n == 1 && placement[0] == "--hosts" {
                continue; // two hosts need two processes
            }
            let mut cmd = Command::new(tree().bin.join("clump"));
            cmd.args(["mpiexec", "-n", &n.to_string()])
                .args(placement)
                .arg(&exe)
                .env("LD_BIND_NOW", "1");
            assert_ok(&wait_with_timeout(cmd), "abi ok", n);
        }
    }
}

#[test]
fn a_program_of_mpi_and_openshmem_holds_one_runtime() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mpi_abi/one_runtime.c");
    let exe = build(
        &src,
        "mpi_abi_one_runtime",
        &["-Wl,--no-as-needed", "-lclump", "-ldl"],
    );
    let dynamic = dynamic_section(&exe);
    assert!(
        dynamic.contains("[libmpi_abi.so.1]") && dynamic.contains("[libclump.so]"),
        "{dynamic}"
    );
    let out = Command::new(&exe).output().expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 clump objects, one runtime"),
        "{stdout}"
    );
}

/// What the MPI compiler wrappers link: `clump config --mpi --cflags --libs`.
#[test]
fn clump_config_mpi_links_the_abi_library() {
    let t = tree();
    let flags = Command::new(t.bin.join("clump"))
        .args(["config", "--mpi", "--cflags", "--libs"])
        .output()
        .expect("clump config runs");
    assert!(flags.status.success(), "{flags:?}");
    let flags = String::from_utf8(flags.stdout).unwrap();
    assert!(
        flags.contains("-lmpi_abi") && !flags.contains("-lclump"),
        "{flags}"
    );
    let exe = t.out.join("mpi_abi_config_local");
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mpi_abi/local.c");
    let built = Command::new("cc")
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .args(flags.split_whitespace())
        .output()
        .expect("cc runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let dynamic = dynamic_section(&exe);
    assert!(
        dynamic.contains("[libmpi_abi.so.1]") && !dynamic.contains("libclump"),
        "{dynamic}"
    );
    let out = Command::new(&exe)
        .env("LD_BIND_NOW", "1")
        .output()
        .expect("runs");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("local ok"),
        "{out:?}"
    );
}

/// `scripts/install` puts both names of the ABI library in `PREFIX/lib`, and a program
/// linked there with `-lmpi_abi` runs under the installed `mpiexec`.
#[test]
fn an_installed_prefix_serves_the_abi_library() {
    let t = tree();
    let prefix = install("abi-prefix");
    let lib = prefix.join("lib");
    let exe = t.out.join("mpi_abi_installed");
    let built = Command::new("cc")
        .arg(format!("-I{}", prefix.join("include").display()))
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mpi_abi/semantics.c"))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lmpi_abi")
        .output()
        .expect("cc runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    assert!(dynamic_section(&exe).contains("[libmpi_abi.so.1]"));
    let mut cmd = Command::new(prefix.join("bin/mpiexec"));
    cmd.args(["-n", "2"]).arg(&exe);
    assert_ok(&wait_with_timeout(cmd), "abi ok", 2);
}
