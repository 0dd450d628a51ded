//! The OpenSHMEM profiling interface's names: libclump.so exports `pshmem_X` for every
//! `shmem_X` routine it exports, and pshmem.h is shmem.h's routines under those names.

#[allow(dead_code)] // not every helper serves these tests
mod support;

use std::collections::BTreeSet;
use std::process::Command;
use support::{exported_functions, tree};

#[test]
fn every_shmem_routine_has_its_pshmem_twin() {
    let exported = exported_functions();
    let shmem: Vec<_> = exported
        .iter()
        .filter(|n| n.starts_with("shmem_"))
        .collect();
    assert!(shmem.len() > 1000, "only {} shmem_ routines", shmem.len());
    let missing: Vec<_> = shmem
        .iter()
        .filter(|n| !exported.contains(&format!("p{n}")))
        .collect();
    assert!(missing.is_empty(), "no pshmem_ twin: {missing:?}");
    let orphans: Vec<_> = exported
        .iter()
        .filter(|n| n.starts_with("pshmem_") && !exported.contains(&n[1..]))
        .collect();
    assert!(orphans.is_empty(), "pshmem_ without shmem_: {orphans:?}");
}

/// pshmem.h is what scripts/pshmem-h makes of shmem.h.
#[test]
fn pshmem_header_is_generated_from_shmem_h() {
    let out = Command::new(tree().repo.join("scripts/pshmem-h"))
        .arg("--check")
        .output()
        .expect("scripts/pshmem-h runs");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every pshmem_ name pshmem.h declares is exported, or is one of its inline functions.
#[test]
fn pshmem_header_declares_only_exported_routines() {
    let include = tree().repo.join("crates/clump-capi/include");
    let out = Command::new("cc")
        .args(["-E", "-P", "-std=c11", "-x", "c", "-"])
        .arg(format!("-I{}", include.display()))
        .stdin(std::fs::File::open(include.join("pshmem.h")).unwrap())
        .output()
        .expect("cc runs");
    assert!(out.status.success(), "cc -E pshmem.h: {out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let exported = exported_functions();
    let inline: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("static inline"))
        .collect();
    let declared: BTreeSet<&str> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("pshmem_"))
        .collect();
    assert!(
        declared.len() > 1000,
        "only {} pshmem_ names",
        declared.len()
    );
    let unknown: Vec<_> = declared
        .iter()
        .filter(|n| !exported.contains(**n))
        .filter(|n| !inline.iter().any(|l| l.contains(&format!(" {n}("))))
        .collect();
    assert!(unknown.is_empty(), "declared, not exported: {unknown:?}");
}
