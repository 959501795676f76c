//! The library without its default features: the classifier, labels, the
//! gate, profiles and hook protocols, and none of the command line's or
//! the action guard's dependencies.

use std::path::PathBuf;
use std::process::Command;

/// Crates only the command line or the action guard may bring in.
const HEAVY: &[&str] = &[
    "clap",
    "indicatif",
    "rusqlite",
    "libsqlite3-sys",
    "nix",
    "anyhow",
];

fn cargo(args: &[&str]) -> std::process::Output {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    Command::new(env!("CARGO"))
        .args(args)
        .current_dir(&root)
        // Its own target directory: the test's own build holds the lock on
        // the default one.
        .env("CARGO_TARGET_DIR", root.join("target/lean-core"))
        .output()
        .unwrap_or_else(|e| panic!("running cargo: {e}"))
}

#[test]
fn the_lean_core_needs_none_of_the_heavy_dependencies() {
    let o = cargo(&[
        "tree",
        "--locked",
        "--offline",
        "--no-default-features",
        "--edges",
        "normal",
        "--prefix",
        "none",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let tree = String::from_utf8_lossy(&o.stdout);
    let names: Vec<&str> = tree.lines().filter_map(|l| l.split(' ').next()).collect();
    for heavy in HEAVY {
        assert!(
            !names.contains(heavy),
            "the lean core pulls in {heavy}:\n{tree}"
        );
    }
    assert!(names.contains(&"regex-automata"), "{tree}");
    // With the defaults they are there: the test can fail.
    let o = cargo(&[
        "tree",
        "--locked",
        "--offline",
        "--edges",
        "normal",
        "--prefix",
        "none",
    ]);
    let full = String::from_utf8_lossy(&o.stdout);
    assert!(full.lines().any(|l| l.starts_with("clap ")), "{full}");
}

#[test]
fn the_lean_core_compiles_alone() {
    let o = cargo(&[
        "check",
        "--lib",
        "--locked",
        "--offline",
        "--no-default-features",
    ]);
    assert!(
        o.status.success(),
        "cargo check --lib --no-default-features failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
