//! `clump config`: the compiler and linker flags for C programs that use libclump, for
//! the tree this `clump` was built in or the prefix it was installed under (like
//! `pkg-config --cflags --libs clump`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct ConfigArgs {
    /// Print the compiler flags (-I...).
    #[arg(long)]
    cflags: bool,
    /// Print the linker flags (-L... -lclump, with an rpath to the library).
    #[arg(long)]
    libs: bool,
    /// Link the MPI standard ABI's library (-lmpi_abi: programs need libmpi_abi.so.1 and
    /// run on any implementation of the ABI) instead of -lclump.
    #[arg(long)]
    mpi: bool,
}

/// Where the headers and the libraries are.
struct Layout {
    include: PathBuf,
    lib: PathBuf,
}

impl Layout {
    /// An installed `clump` sits in PREFIX/bin beside PREFIX/include and PREFIX/lib; one in
    /// a build tree sits beside libclump in the target directory, and the headers are in
    /// the source tree it was built from.
    fn find() -> Result<Layout, String> {
        let exe = std::env::current_exe().map_err(|e| format!("cannot locate clump: {e}"))?;
        let exe = exe.canonicalize().unwrap_or(exe);
        let dir = exe.parent().ok_or("clump has no directory")?;
        if let Some(prefix) = dir.parent() {
            if prefix.join("include/clump/amii.h").is_file() {
                return Ok(Layout {
                    include: prefix.join("include"),
                    lib: prefix.join("lib"),
                });
            }
        }
        let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("../clump-capi/include");
        Ok(Layout {
            include: tree.canonicalize().unwrap_or(tree),
            lib: dir.to_path_buf(),
        })
    }
}

pub fn main(args: ConfigArgs) -> ExitCode {
    let layout = match Layout::find() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("clump config: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (cflags, libs) = if args.cflags || args.libs {
        (args.cflags, args.libs)
    } else {
        (true, true)
    };
    let (library, flag) = if args.mpi {
        ("libmpi_abi.so.1", "-lmpi_abi")
    } else {
        ("libclump.so", "-lclump")
    };
    if libs && !layout.lib.join(library).is_file() {
        eprintln!(
            "clump config: warning: no {library} in {} (build it: cargo build --release)",
            layout.lib.display()
        );
    }
    let mut flags = Vec::new();
    if cflags {
        flags.push(format!("-I{}", layout.include.display()));
    }
    if libs {
        let lib = layout.lib.display();
        flags.push(format!("-L{lib} -Wl,-rpath,{lib} {flag}"));
    }
    println!("{}", flags.join(" "));
    ExitCode::SUCCESS
}
