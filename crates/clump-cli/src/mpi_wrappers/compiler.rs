//! Which compiler a wrapper runs. The variables, first set (and not empty) wins:
//!
//! | language | variables                          | default |
//! |----------|------------------------------------|---------|
//! | C        | `CLUMP_CC`, `MPICH_CC`, `OMPI_CC`, `MPICC_CC`, `OSHCC_CC` | `cc` |
//! | C++      | `CLUMP_CXX`, `MPICH_CXX`, `OMPI_CXX` | `c++`   |
//! | Fortran  | `CLUMP_FC`, `MPICH_FC`, `OMPI_FC`    | `gfortran` |
//!
//! Never `CC`/`CXX`: `./configure CC=mpicc` and Makefiles set `CC` to the wrapper itself,
//! which is why Open MPI and MPICH read variables of their own too. `MPICC_CC` and
//! `OSHCC_CC` are the names earlier clump releases read; they still work. A value may carry
//! words (`CLUMP_CC="gcc -m64"`, split at white space). A value naming a compiler wrapper
//! or the clump binary is an error, and so is a wrapper started by the compiler it runs
//! (a script that calls `mpicc` again): either would run forever.

use super::WRAPPER_NAMES;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Language {
    C,
    Cxx,
    Fortran,
}

impl Language {
    pub fn variables(self) -> &'static [&'static str] {
        match self {
            Language::C => &["CLUMP_CC", "MPICH_CC", "OMPI_CC", "MPICC_CC", "OSHCC_CC"],
            Language::Cxx => &["CLUMP_CXX", "MPICH_CXX", "OMPI_CXX"],
            Language::Fortran => &["CLUMP_FC", "MPICH_FC", "OMPI_FC"],
        }
    }

    pub fn default_compiler(self) -> &'static str {
        match self {
            Language::C => "cc",
            Language::Cxx => "c++",
            Language::Fortran => "gfortran",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Language::C => "C",
            Language::Cxx => "C++",
            Language::Fortran => "Fortran",
        }
    }
}

/// Set in the environment of the compiler a wrapper runs, to the wrapper's name: a wrapper
/// that finds it was started, directly or not, by the compiler another one ran.
pub const RUNNING: &str = "CLUMP_WRAPPER_RUNNING";

/// The compiler: its words (program first) and where they came from.
#[derive(Debug, PartialEq, Eq)]
pub struct Compiler {
    pub words: Vec<OsString>,
    /// The variable that named it, or `None` for the default.
    pub source: Option<&'static str>,
}

impl Compiler {
    pub fn describe(&self) -> String {
        let words: Vec<_> = self.words.iter().map(|w| w.to_string_lossy()).collect();
        match self.source {
            Some(var) => format!("{} (from {var})", words.join(" ")),
            None => format!("{} (the default)", words.join(" ")),
        }
    }
}

/// The compiler for `language`, from the variables `env` reads; `me` is the clump binary.
pub fn choose(
    language: Language,
    env: impl Fn(&str) -> Option<OsString>,
    me: &Path,
) -> Result<Compiler, String> {
    if let Some(wrapper) = env(RUNNING) {
        return Err(format!(
            "started by the compiler that {} runs: {} must name a compiler, not something \
             that runs a compiler wrapper again",
            wrapper.to_string_lossy(),
            language.variables().join(", ")
        ));
    }
    for &var in language.variables() {
        let Some(value) = env(var) else { continue };
        let words: Vec<OsString> = value
            .as_bytes()
            .split(u8::is_ascii_whitespace)
            .filter(|w| !w.is_empty())
            .map(|w| OsStr::from_bytes(w).to_owned())
            .collect();
        let Some(program) = words.first() else {
            continue;
        };
        if is_wrapper(program, me) {
            return Err(format!(
                "{var}={} names a compiler wrapper, not a compiler (it would run itself): \
                 set {var} to the compiler, such as {}",
                value.to_string_lossy(),
                language.default_compiler()
            ));
        }
        return Ok(Compiler {
            words,
            source: Some(var),
        });
    }
    Ok(Compiler {
        words: vec![language.default_compiler().into()],
        source: None,
    })
}

/// Whether `program` is a compiler wrapper by name, or resolves to the clump binary.
fn is_wrapper(program: &OsStr, me: &Path) -> bool {
    let path = Path::new(program);
    if path
        .file_name()
        .and_then(OsStr::to_str)
        .is_some_and(|n| WRAPPER_NAMES.contains(&n))
    {
        return true;
    }
    let me = me.canonicalize().unwrap_or_else(|_| me.to_path_buf());
    resolve(path).is_some_and(|p| p.canonicalize().is_ok_and(|p| p == me))
}

/// Where the shell would find `program`: itself if it has a slash, else the first
/// executable file of that name in a directory of `PATH`.
fn resolve(program: &Path) -> Option<PathBuf> {
    if program.as_os_str().as_bytes().contains(&b'/') {
        return Some(program.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choose_with(vars: &[(&str, &str)], language: Language) -> Result<Compiler, String> {
        let env = |name: &str| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        };
        choose(language, env, Path::new("/nonexistent/clump"))
    }

    fn words(c: &Compiler) -> Vec<&str> {
        c.words.iter().map(|w| w.to_str().unwrap()).collect()
    }

    #[test]
    fn the_first_variable_set_wins_and_cc_is_never_read() {
        let c = choose_with(&[("CC", "mpicc")], Language::C).unwrap();
        assert_eq!((words(&c), c.source), (vec!["cc"], None));
        let c = choose_with(&[("OMPI_CC", "icx"), ("MPICH_CC", "clang")], Language::C).unwrap();
        assert_eq!((words(&c), c.source), (vec!["clang"], Some("MPICH_CC")));
        let c = choose_with(&[("OMPI_CXX", "g++"), ("CLUMP_CC", "x")], Language::Cxx).unwrap();
        assert_eq!((words(&c), c.source), (vec!["g++"], Some("OMPI_CXX")));
        let c = choose_with(&[("CLUMP_CC", "  "), ("OMPI_CC", "gcc")], Language::C).unwrap();
        assert_eq!(c.source, Some("OMPI_CC"), "an empty value counts as unset");
    }

    #[test]
    fn a_value_with_words_keeps_them() {
        let c = choose_with(&[("CLUMP_CC", " ccache  gcc -m64 ")], Language::C).unwrap();
        assert_eq!(words(&c), ["ccache", "gcc", "-m64"]);
    }

    #[test]
    fn a_wrapper_is_refused() {
        for value in ["mpicc", "/usr/local/bin/mpic++ -O2", "oshcc"] {
            let err = choose_with(&[("CLUMP_CC", value)], Language::C).unwrap_err();
            assert!(err.contains("names a compiler wrapper"), "{value}: {err}");
        }
        let err = choose_with(&[(RUNNING, "mpicc")], Language::C).unwrap_err();
        assert!(
            err.contains("started by the compiler that mpicc runs"),
            "{err}"
        );
    }
}
