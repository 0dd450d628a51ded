//! The `mpi` and `mpi_f08` modules for `clump mpifort`. A module file is the compiler's
//! own format (gfortran's changes between releases; other compilers cannot read it), so
//! the library ships their sources (generated with mpif.h by its build; `clump config
//! --fortran-dir` says where) and the wrapper compiles them with the compiler it runs, on
//! first use, into a cache directory named by a hash of that compiler's words, its
//! `--version` and the sources: `$XDG_CACHE_HOME/clump/fortran/KEY` (else
//! `~/.cache/...`, else the temporary directory). Programs then get `-I` of the cache
//! and of mpif.h's directory, and link the modules' procedures from the cache's
//! `libclump_fortran.so` (found at run time by its rpath). A shared library, so that a
//! profiling tool's `MPI_X_f08` (in the program or a library before it) takes the place of
//! mpi_f08's, as the standard's profiling interface requires; from an archive the two
//! definitions would clash. A cache is built aside and renamed into place, so wrappers
//! running at once (make -j) never see half of one.
//!
//! gfortran from release 10 on refuses what every mpif.h program does: one external
//! procedure (MPI_SEND) called with buffers of different types in one file. Like MPICH's
//! wrapper, `mpifort` then adds `-fallow-argument-mismatch`, which makes that a warning.

use super::compiler::{Compiler, RUNNING};
use super::flags::{config, Flags};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The module sources, in the order they are compiled (both modules use mpi_types.f90's;
/// mpi_f08.f90 holds four modules that use one another in order).
const SOURCES: &[&str] = &["mpi_types.f90", "mpi.f90", "mpi_f08.f90"];
const LIBRARY: &str = "libclump_fortran.so";

/// `flags` with the Fortran directories and the modules' library.
pub fn add(mut flags: Flags, compiler: &Compiler) -> Result<Flags, String> {
    let dir = PathBuf::from(config(&["--fortran-dir"])?.concat());
    let (cache, gnu) = modules(&dir, compiler)?;
    flags.compile.insert(0, format!("-I{}", dir.display()));
    flags.compile.insert(1, format!("-I{}", cache.display()));
    if gnu {
        flags.compile.insert(0, "-fallow-argument-mismatch".into());
    }
    flags.link.splice(
        0..0,
        [
            format!("-L{}", cache.display()),
            "-lclump_fortran".into(),
            format!("-Wl,-rpath,{}", cache.display()),
        ],
    );
    Ok(flags)
}

fn cache_root() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("clump/fortran")
}

/// Whether `--version` said gfortran 10 or later.
fn gfortran_10(version: &[u8]) -> bool {
    let text = String::from_utf8_lossy(version);
    let Some(line) = text.lines().next().filter(|l| l.starts_with("GNU Fortran")) else {
        return false;
    };
    let major = line
        .split_whitespace()
        .find_map(|w| w.split('.').next()?.parse::<u32>().ok());
    major.is_some_and(|m| m >= 10)
}

/// The cache of `compiler`'s modules, compiled now if it is not there yet, and whether
/// the compiler is gfortran 10 or later.
fn modules(sources: &Path, compiler: &Compiler) -> Result<(PathBuf, bool), String> {
    let run = |args: &[&std::ffi::OsStr], what: &str| -> Result<Vec<u8>, String> {
        let out = Command::new(&compiler.words[0])
            .args(&compiler.words[1..])
            .args(args)
            .env_remove(RUNNING)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", compiler.describe()))?;
        if !out.status.success() {
            return Err(format!(
                "{} failed {what}:\n{}",
                compiler.describe(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(out.stdout)
    };
    let mut hash = DefaultHasher::new();
    compiler.words.hash(&mut hash);
    let version = run(&["--version".as_ref()], "to say its version")?;
    let gnu = gfortran_10(&version);
    version.hash(&mut hash);
    for name in SOURCES {
        let path = sources.join(name);
        std::fs::read(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .hash(&mut hash);
    }
    let root = cache_root();
    let done = root.join(format!("{:016x}", hash.finish()));
    if done.join(LIBRARY).is_file() {
        return Ok((done, gnu));
    }
    let work = root.join(format!(".build-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let mut objects = Vec::new();
    for name in SOURCES {
        let object = work.join(name.replace(".f90", ".o"));
        let (src, obj) = (sources.join(name), object.clone());
        // -J: where gfortran writes module files (and reads them: mpi_f08 uses its parts).
        let args = [
            "-c".as_ref(),
            "-fPIC".as_ref(),
            "-O2".as_ref(),
            "-J".as_ref(),
            work.as_os_str(),
            src.as_os_str(),
            "-o".as_ref(),
            obj.as_os_str(),
        ];
        run(&args, &format!("to compile {}", src.display()))?;
        objects.push(object);
    }
    let library = work.join(LIBRARY);
    let mut args: Vec<&std::ffi::OsStr> =
        vec!["-shared".as_ref(), "-o".as_ref(), library.as_os_str()];
    args.extend(objects.iter().map(|o| o.as_os_str()));
    run(&args, "to link the modules' library")?;
    // Another wrapper may have finished the same cache meanwhile: then keep its copy.
    if std::fs::rename(&work, &done).is_err() {
        let _ = std::fs::remove_dir_all(&work);
        if !done.join(LIBRARY).is_file() {
            return Err(format!(
                "cannot place the Fortran modules in {}",
                done.display()
            ));
        }
    }
    Ok((done, gnu))
}

#[cfg(test)]
mod tests {
    #[test]
    fn gfortran_10_and_later_is_recognised() {
        let v = |s: &str| super::gfortran_10(s.as_bytes());
        assert!(v("GNU Fortran (Debian 12.2.0-14) 12.2.0\nCopyright"));
        assert!(!v("GNU Fortran (GCC) 9.4.0\n"));
        assert!(!v("flang version 17.0.6\n"));
    }
}
