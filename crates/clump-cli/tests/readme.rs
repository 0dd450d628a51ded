//! README.md's Rust example is `examples/rust/hello.rs` word for word, and it runs; its
//! Fortran example is `examples/fortran/ring.f90` (which clump-capi's Fortran tests run).

use std::path::Path;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
const CLUMP: &str = env!("CARGO_BIN_EXE_clump");

/// The body of README's first fenced block in `lang` (cargo test builds examples, so
/// the program it shows is compiled with the tests).
fn readme_block(lang: &str) -> String {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let start = readme
        .find(&format!("```{lang}\n"))
        .unwrap_or_else(|| panic!("README has no {lang} block"))
        + lang.len()
        + 4;
    let len = readme[start..].find("```\n").unwrap();
    readme[start..start + len].to_owned()
}

#[test]
fn readme_rust_example_is_the_example_program() {
    let file = std::fs::read_to_string(Path::new(ROOT).join("examples/rust/hello.rs")).unwrap();
    assert_eq!(
        readme_block("rust"),
        file,
        "README.md and examples/rust/hello.rs differ"
    );
}

#[test]
fn readme_rust_example_runs_under_the_launcher() {
    let example = Path::new(CLUMP).parent().unwrap().join("examples/hello");
    let o = clump_testkit::run(Path::new(CLUMP), 3, &[], &example, &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let mut lines: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "rank 0: reply [2, 3, 4]",
            "rank 1: reply [2, 3, 4]",
            "rank 2: reply [2, 3, 4]"
        ]
    );
}

#[test]
fn readme_fortran_example_is_the_example_program() {
    let file = std::fs::read_to_string(Path::new(ROOT).join("examples/fortran/ring.f90")).unwrap();
    assert_eq!(
        readme_block("fortran"),
        file,
        "README.md and examples/fortran/ring.f90 differ"
    );
}
