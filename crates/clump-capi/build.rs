//! Compiles the C half of libclump: arithmetic on C types that Rust lacks (long double,
//! complex) for the OpenSHMEM reductions.

fn main() {
    println!("cargo:rerun-if-changed=csrc/extended_arith.c");
    cc::Build::new()
        .file("csrc/extended_arith.c")
        .warnings(true)
        .compile("clump_extended_arith");
}
