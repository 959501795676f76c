//! What a CI gate built on toolgate must not get wrong silently: a
//! `--taxonomy` directory that holds no taxonomy, and expectations that pin
//! the gate's decisions (`check`, from standard input too).

use std::path::{Path, PathBuf};
use std::process::Output;

use super::util;

fn toolgate(args: &[&str], stdin: Option<&str>) -> Output {
    util::run(args, stdin.unwrap_or_default().as_bytes(), &[])
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolgate-ci-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_taxonomy_directory_without_a_taxonomy_is_an_error_naming_what_is_missing() {
    let dir = scratch("emptytax");
    let o = toolgate(
        &["--taxonomy", &dir.display().to_string(), "scan"],
        Some("ls\n"),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no commands.toml, no rules/*.toml, no specs/*.toml"),
        "{}",
        stderr(&o)
    );
    write(&dir, "commands.toml", "");
    write(&dir, "rules/x.toml", "");
    let o = toolgate(
        &["--taxonomy", &dir.display().to_string(), "scan"],
        Some("ls\n"),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("it has no specs/*.toml"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_reads_stdin_and_pins_decisions() {
    let lines = "{\"command\": \"ls\", \"expect\": \"safe\", \"expect_decision\": \"allow\", \"mode\": \"balanced\"}\n\
                 {\"command\": \"rm -rf /tmp/x\", \"expect_decision\": \"deny\", \"mode\": \"restricted\"}\n\
                 {\"command\": \"rm -rf /tmp/x\", \"expect_decision\": \"allow\", \"mode\": \"strict\"}\n\
                 {\"command\": \"ls\", \"expect_decision\": \"allow\"}\n\
                 {\"command\": \"ls\", \"expect_decision\": \"allow\", \"mode\": \"lenient\"}\n";
    let o = toolgate(&["check", "-"], Some(lines));
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("FAIL line 3: rm -rf /tmp/x\n"), "{out}");
    assert!(
        out.contains("  expected decision allow under strict, got ask"),
        "{out}"
    );
    assert!(
        out.contains("FAIL line 4: `expect_decision` needs a string field `mode`"),
        "{out}"
    );
    assert!(out.contains("FAIL line 5: `mode` \"lenient\""), "{out}");
    assert!(out.ends_with("2 passed, 3 failed\n"), "{out}");
}
