//! No release build has clump's `testing` feature (the internals it makes public are for
//! tests and the fuzzer). Cargo turns a feature on in every crate of one build, so a
//! default member that asks for it in any dependency table, dev-dependencies included
//! (`cargo build --examples` builds those), would put it into the libclump built beside.

use std::process::Command;

#[test]
fn no_default_member_asks_for_clumps_testing_feature() {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        // From the top directory: the default members are what `cargo build` builds there.
        .args([
            "--manifest-path",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml"),
        ])
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let defaults: Vec<&str> = meta["workspace_default_members"]
        .as_array()
        .expect("workspace_default_members (cargo 1.71 or later)")
        .iter()
        .filter_map(|m| m.as_str())
        .collect();
    assert!(defaults.len() > 1, "default members: {defaults:?}");
    let mut askers = Vec::new();
    for package in meta["packages"].as_array().expect("packages") {
        if !defaults.contains(&package["id"].as_str().unwrap_or_default()) {
            continue;
        }
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            let testing = dep["features"]
                .as_array()
                .is_some_and(|f| f.iter().any(|f| f == "testing"));
            if dep["name"] == "clump" && testing {
                askers.push(format!("{} ({} dependency)", package["name"], dep["kind"]));
            }
        }
    }
    assert!(
        askers.is_empty(),
        "default members asking for clump's `testing`: {askers:?}"
    );
}
