//! The compiler wrappers (`mpicc`, `mpicxx`/`mpic++`, `mpifort`, `oshcc`, `oshc++`) and launchers
//! (`mpiexec`, `mpirun`, `oshrun`) through the real binary, as subcommands and as links
//! named like them: which compiler runs, the options users' scripts send them, and no
//! recursion however the variables are set. (Programs built by them and a configure
//! script run with `CC=mpicc`: crates/clump-capi/tests/wrapper_builds.rs.)

use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const CLUMP: &str = env!("CARGO_BIN_EXE_clump");
const COMPILERS: &[&str] = &["mpicc", "mpicxx", "mpic++", "oshcc", "oshc++"];
const LAUNCHERS: &[&str] = &["mpiexec", "mpirun", "oshrun"];
/// The Fortran wrapper's names (it builds modules, so the C wrappers' checks do not fit).
const FORTRAN: &[&str] = &["mpifort", "mpif90", "mpif77"];

/// A directory of this test's own: links to clump by every wrapper name, and `fakecc`, a
/// compiler that prints how it was called.
fn bin_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("wrappers-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for name in COMPILERS
        .iter()
        .chain(LAUNCHERS)
        .chain(FORTRAN)
        .chain(&["clump"])
    {
        symlink(CLUMP, dir.join(name)).unwrap();
    }
    script(&dir, "fakecc", "echo \"fakecc $*\"");
    dir
}

fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Runs `program args` with `env` and PATH starting at `dir`; a run longer than 300 s (a
/// wrapper running itself) fails the test. Not less: `mpifort`'s first run builds the
/// Fortran modules, which took 64 s on a loaded 2-core machine.
fn run(dir: &Path, program: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let path = format!("{}:{}", dir.display(), std::env::var("PATH").unwrap());
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env("PATH", path)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for var in [
        "CLUMP_CC",
        "CLUMP_CXX",
        "MPICH_CC",
        "MPICH_CXX",
        "OMPI_CC",
        "OMPI_CXX",
        "CLUMP_FC",
        "MPICH_FC",
        "OMPI_FC",
    ] {
        if !env.iter().any(|(k, _)| *k == var) {
            cmd.env_remove(var);
        }
    }
    let mut child = cmd.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(300);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{program} {args:?} with {env:?} did not end");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{o:?}");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `clump NAME ARGS` and the link `NAME ARGS`, both.
fn both_ways(dir: &Path, name: &str, args: &[&str], env: &[(&str, &str)]) -> [Output; 2] {
    let mut sub = vec![name];
    sub.extend(args);
    [run(dir, CLUMP, &sub, env), run(dir, name, args, env)]
}

#[test]
fn the_compiler_comes_from_the_wrappers_variables_never_from_cc() {
    let dir = bin_dir("variables");
    let fake = dir.join("fakecc");
    let fake = fake.to_str().unwrap();
    let c_vars = &["CLUMP_CC", "MPICH_CC", "OMPI_CC", "MPICC_CC", "OSHCC_CC"][..];
    let cxx_vars = &["CLUMP_CXX", "MPICH_CXX", "OMPI_CXX"][..];
    for name in COMPILERS {
        let (vars, default) = if name.contains("cc") && !name.contains("cxx") {
            (c_vars, "cc")
        } else {
            (cxx_vars, "c++")
        };
        for o in both_ways(
            &dir,
            name,
            &["-show", "a.c"],
            &[("CC", "mpicc"), ("CXX", "mpicxx")],
        ) {
            let shown = stdout(&o);
            assert!(
                shown.starts_with(&format!("{default} -I")),
                "{name}: {shown}"
            );
            // MPI programs need only the standard ABI's library; OpenSHMEM ones libclump.
            let library = if name.starts_with("mpi") {
                "-lmpi_abi"
            } else {
                "-lclump"
            };
            assert!(
                shown.contains(" a.c -L") && shown.trim_end().ends_with(library),
                "{shown}"
            );
        }
        for var in vars {
            let value = format!("{fake} -m64");
            for o in both_ways(&dir, name, &["-O2", "a.c"], &[(var, &value)]) {
                let ran = stdout(&o);
                assert!(ran.starts_with("fakecc -m64 -I"), "{name} {var}: {ran}");
                assert!(ran.contains(" -O2 a.c -L"), "{name} {var}: {ran}");
            }
        }
    }
}

#[test]
fn a_compiler_variable_leading_back_to_a_wrapper_is_an_error_not_a_recursion() {
    let dir = bin_dir("recursion");
    let again = script(&dir, "cc-again", "exec mpicc \"$@\"");
    let cases = [
        ("CLUMP_CC", "mpicc".to_owned(), "names a compiler wrapper"),
        (
            "OMPI_CC",
            "mpicc -O2".to_owned(),
            "names a compiler wrapper",
        ),
        ("MPICH_CC", CLUMP.to_owned(), "names a compiler wrapper"),
        (
            "CLUMP_CC",
            "clump mpicc".to_owned(),
            "names a compiler wrapper",
        ),
        (
            "CLUMP_CC",
            again.display().to_string(),
            "started by the compiler that mpicc runs",
        ),
    ];
    for (var, value, why) in cases {
        for o in both_ways(&dir, "mpicc", &["a.c"], &[(var, &value), ("CC", "mpicc")]) {
            assert!(!o.status.success(), "{var}={value}: {o:?}");
            assert!(stderr(&o).contains(why), "{var}={value}: {}", stderr(&o));
        }
    }
    let o = run(&dir, "mpicxx", &["a.cc"], &[("CLUMP_CXX", "mpic++")]);
    assert!(
        stderr(&o).contains("CLUMP_CXX=mpic++ names a compiler wrapper"),
        "{o:?}"
    );
}

#[test]
fn cc_set_to_the_wrapper_does_not_keep_version_from_ending() {
    let dir = bin_dir("version");
    for name in COMPILERS {
        for o in both_ways(&dir, name, &["--version"], &[("CC", name), ("CXX", name)]) {
            let out = stdout(&o);
            // The compiler's own answer comes first, the wrapper's line last.
            let last = out.lines().last().unwrap();
            assert!(last.contains("compiler wrapper of clump"), "{out}");
            assert!(
                out.lines().count() > 1,
                "the compiler's version is missing: {out}"
            );
        }
    }
}

#[test]
fn show_options_answer_as_open_mpis_and_mpichs_do() {
    let dir = bin_dir("show");
    let env = [("CLUMP_CC", "gcc -m64")];
    let show = |args: &[&str]| {
        stdout(&run(&dir, "mpicc", args, &env))
            .trim_end()
            .to_owned()
    };
    let whole = show(&["-show", "a.c", "-o", "a"]);
    assert!(
        whole.starts_with("gcc -m64 -I") && whole.ends_with("-lmpi_abi"),
        "{whole}"
    );
    assert_eq!(show(&["-showme", "a.c", "-o", "a"]), whole);
    assert_eq!(show(&["--showme", "a.c", "-o", "a"]), whole);
    assert_eq!(show(&["-link-info", "a.c", "-o", "a"]), whole);
    let compile = show(&["-showme:compile"]);
    assert!(
        compile.starts_with("-I") && !compile.contains(' '),
        "{compile}"
    );
    assert_eq!(show(&["--showme:compile"]), compile);
    let link = show(&["-showme:link"]);
    assert!(
        link.starts_with("-L") && link.ends_with("-lmpi_abi"),
        "{link}"
    );
    assert_eq!(
        show(&["-compile-info", "a.c"]),
        format!("gcc -m64 {compile} a.c")
    );
    assert_eq!(
        show(&["-show", "-c", "a.c"]),
        format!("gcc -m64 {compile} -c a.c")
    );
    assert_eq!(show(&["-show"]), format!("gcc -m64 {compile} {link}"));
    assert_eq!(show(&["-showme:command"]), "gcc -m64");
    assert_eq!(show(&["-showme:libs"]), "mpi_abi");
    assert!(show(&["-showme:version"]).starts_with("mpicc: clump "));
    let o = run(&dir, "mpicc", &["-showme:bogus"], &env);
    assert!(
        !o.status.success() && stderr(&o).contains("unknown -showme:bogus"),
        "{o:?}"
    );
}

#[test]
fn mpifort_runs_its_fortran_compiler_with_the_modules_it_built_for_it() {
    let dir = bin_dir("fortran");
    // A compiler that makes each `-o` file (the modules' objects) and says how it ran.
    let fake = script(
        &dir,
        "fakefc",
        "prev=; for a; do [ \"$prev\" = -o ] && : > \"$a\"; prev=$a; done; echo \"fakefc $*\"",
    );
    let cache = dir.join("cache");
    let cache_var = ("XDG_CACHE_HOME", cache.to_str().unwrap());
    let fake = fake.to_str().unwrap();
    for var in ["CLUMP_FC", "MPICH_FC", "OMPI_FC"] {
        for name in FORTRAN {
            for o in both_ways(&dir, name, &["-show", "a.f90"], &[(var, fake), cache_var]) {
                let shown = stdout(&o);
                let words: Vec<&str> = shown.split_whitespace().collect();
                assert_eq!(words[0], fake, "{name} {var}: {shown}");
                // mpif.h's directory, then the modules compiled for this compiler.
                assert!(
                    words[1].starts_with("-I") && words[1].ends_with("/fortran"),
                    "{shown}"
                );
                assert!(
                    words[2].starts_with(&format!("-I{}", cache.display())),
                    "{shown}"
                );
                let modules = &words[2][2..];
                let library = format!("{modules}/libclump_fortran.so");
                assert!(Path::new(&library).is_file(), "{library}");
                let link = format!(" a.f90 -L{modules} -lclump_fortran -Wl,-rpath,{modules} -L");
                assert!(shown.contains(&link), "{shown}");
                assert!(shown.trim_end().ends_with("-lmpi_abi"), "{shown}");
            }
        }
    }
    // gfortran, the default, also gets what mpif.h programs need from release 10 on.
    if Command::new("gfortran").arg("--version").output().is_ok() {
        let shown = stdout(&run(&dir, "mpifort", &["-show", "a.f"], &[cache_var]));
        assert!(
            shown.starts_with("gfortran -fallow-argument-mismatch -I"),
            "{shown}"
        );
    }
}

#[test]
fn help_is_the_wrappers_own_and_names_its_variables() {
    let dir = bin_dir("help");
    for (name, vars) in [
        ("mpicc", "CLUMP_CC, MPICH_CC, OMPI_CC"),
        ("mpicxx", "CLUMP_CXX, MPICH_CXX, OMPI_CXX"),
        ("oshc++", "CLUMP_CXX, MPICH_CXX, OMPI_CXX"),
        ("mpifort", "CLUMP_FC, MPICH_FC, OMPI_FC"),
    ] {
        for flag in ["--help", "-help", "-showme:help"] {
            for o in both_ways(&dir, name, &[flag], &[]) {
                let help = stdout(&o);
                assert!(help.starts_with(&format!("Usage: {name} ")), "{help}");
                assert!(
                    help.contains(vars) && help.contains("-showme:link"),
                    "{help}"
                );
            }
        }
    }
}

#[test]
fn launchers_answer_version_and_help_on_stdout() {
    let dir = bin_dir("launchers");
    for name in LAUNCHERS {
        for flag in ["--version", "-version", "-V"] {
            for o in both_ways(&dir, name, &[flag], &[]) {
                assert_eq!(
                    stdout(&o),
                    format!("{name} (clump) {}\n", env!("CARGO_PKG_VERSION"))
                );
            }
        }
        for flag in ["--help", "-help", "-h"] {
            for o in both_ways(&dir, name, &[flag], &[]) {
                let help = stdout(&o);
                assert!(help.starts_with(&format!("Usage: {name} -n N")), "{help}");
                assert!(help.contains("--transport"), "clump run's options: {help}");
            }
        }
    }
    // After the program, the same words are the program's.
    let o = run(
        &dir,
        "mpiexec",
        &["-n", "1", "sh", "-c", "echo \"$1\"", "x", "--version"],
        &[],
    );
    assert_eq!(stdout(&o), "--version\n");
}

#[test]
fn mpiexec_passes_environment_variables_with_x() {
    let dir = bin_dir("dash-x");
    for name in LAUNCHERS {
        let o = run(
            &dir,
            name,
            &[
                "-np",
                "2",
                "-x",
                "CLUMP_TEST_X=set",
                "sh",
                "-c",
                "echo $CLUMP_TEST_X",
            ],
            &[],
        );
        assert_eq!(stdout(&o), "set\nset\n", "{name}");
    }
}
