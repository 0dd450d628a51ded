//! What the compiler wrappers build: C++ programs with `clump mpicxx` and `clump oshc++`
//! (clump's headers in C++), run as jobs; and a package's autoconf-generated configure
//! run with `CC=mpicc CXX=mpicxx` (links on PATH) and with `CC="clump mpicc"`, as users
//! build MPI software. The wrappers' command lines: crates/clump-cli/tests/wrappers.rs.

#[allow(dead_code)] // the helpers building with cc directly are for the C tests
mod support;

use std::os::unix::fs::symlink;
use std::process::Command;
use support::{assert_ok, compile_with, install, run, tree, wait_with_timeout, HOSTS};

#[test]
fn a_cxx_mpi_program_builds_with_mpicxx_and_runs() {
    let exe = compile_with(
        "mpicxx",
        "crates/clump-capi/tests/cxx/mpi_ring.cpp",
        "cxx_mpi_ring",
    );
    // An MPI program needs the standard ABI's library only, and binds every symbol it
    // names at load time (LD_BIND_NOW) without a missing one.
    let dynamic = Command::new("readelf")
        .arg("-d")
        .arg(&exe)
        .output()
        .unwrap();
    let dynamic = String::from_utf8_lossy(&dynamic.stdout);
    assert!(
        dynamic.contains("[libmpi_abi.so.1]") && !dynamic.contains("libclump"),
        "{dynamic}"
    );
    for &hosts in HOSTS {
        for n in [1, 2, 4].into_iter().filter(|&n| n >= hosts) {
            let out = run(n, hosts, &exe, &[], &[("LD_BIND_NOW", "1")]);
            assert_ok(&out, "cxx ring ok", n as usize);
        }
    }
}

#[test]
fn a_cxx_shmem_program_builds_with_oshcxx_and_runs() {
    let exe = compile_with(
        "oshc++",
        "crates/clump-capi/tests/cxx/shmem_sum.cpp",
        "cxx_shmem_sum",
    );
    for &hosts in HOSTS {
        assert_ok(&run(4, hosts, &exe, &[], &[]), "cxx shmem ok", 4);
    }
}

/// Generates `configure` from tests/autoconf/configure.ac with the real autoconf and runs
/// it with `cc_cxx` (the CC= and CXX= arguments) and the wrapper links first on PATH.
fn configure(dir_name: &str, cc_cxx: [&str; 2]) {
    let t = tree();
    let dir = t.out.join(dir_name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    for file in ["configure.ac", "found.in"] {
        let src = t.repo.join("crates/clump-capi/tests/autoconf").join(file);
        std::fs::copy(src, dir.join(file)).unwrap();
    }
    for name in ["clump", "mpicc", "mpicxx"] {
        symlink(t.bin.join("clump"), dir.join("bin").join(name)).unwrap();
    }
    let autoconf = Command::new("autoconf").current_dir(&dir).output();
    match autoconf {
        Ok(o) => assert!(o.status.success(), "autoconf: {o:?}"),
        Err(e) => panic!("autoconf is needed (apt-get install autoconf; .ci/run does): {e}"),
    }
    let path = format!(
        "{}:{}",
        dir.join("bin").display(),
        std::env::var("PATH").unwrap()
    );
    let mut cmd = Command::new("./configure");
    cmd.current_dir(&dir)
        .arg(format!("CC={}", cc_cxx[0]))
        .arg(format!("CXX={}", cc_cxx[1]))
        .env("PATH", path);
    let out = wait_with_timeout(cmd);
    let log = std::fs::read_to_string(dir.join("config.log")).unwrap_or_default();
    assert!(
        out.status.success(),
        "configure {cc_cxx:?}:\n{}\n{}\nconfig.log:\n{log}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let found = std::fs::read_to_string(dir.join("found")).unwrap();
    for define in [
        "HAVE_MPI_H=1",
        "HAVE_SHMEM_H=1",
        "HAVE_MPI_INIT=1",
        "HAVE_SHMEM_INIT=1",
    ] {
        assert!(found.contains(define), "{define} missing:\n{found}");
    }
    assert!(found.contains(&format!("CPP={} -E", cc_cxx[0])), "{found}");
}

#[test]
fn configure_with_cc_mpicc_finds_mpi_and_shmem() {
    configure("configure-links", ["mpicc", "mpicxx"]);
}

#[test]
fn configure_with_cc_clump_mpicc_finds_mpi_and_shmem() {
    configure("configure-subcommands", ["clump mpicc", "clump mpicxx"]);
}

/// `scripts/install` puts every wrapper name in PREFIX/bin, and the installed wrappers
/// build against the prefix's headers and libraries.
#[test]
fn installed_wrappers_build_against_the_prefix() {
    let t = tree();
    let prefix = install("prefix-wrappers");
    let bin = prefix.join("bin");
    for name in [
        "mpicc", "mpicxx", "mpic++", "oshcc", "oshc++", "mpiexec", "mpirun", "oshrun",
    ] {
        let link = std::fs::read_link(bin.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(link, std::path::Path::new("clump"), "{name}");
    }
    let incdirs = Command::new(bin.join("mpicc"))
        .arg("-showme:incdirs")
        .output()
        .unwrap();
    let incdirs = String::from_utf8(incdirs.stdout).unwrap();
    assert_eq!(incdirs.trim_end(), prefix.join("include").to_str().unwrap());
    let exe = t.out.join("cxx_mpi_ring_installed");
    let src = t.repo.join("crates/clump-capi/tests/cxx/mpi_ring.cpp");
    let mut build = Command::new(bin.join("mpic++"));
    build.arg(src).arg("-o").arg(&exe);
    let out = wait_with_timeout(build);
    assert!(out.status.success(), "{out:?}");
    let mut job = Command::new(bin.join("mpirun"));
    job.args(["-np", "2"]).arg(&exe);
    assert_ok(&wait_with_timeout(job), "cxx ring ok", 2);
}
