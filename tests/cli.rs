//! The `toolgate` binary as a user runs it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn toolgate(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawning toolgate: {e}"));
    if let Some(text) = stdin {
        if let Some(mut pipe) = child.stdin.take() {
            let _ = pipe.write_all(text.as_bytes());
        }
    }
    drop(child.stdin.take());
    child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("waiting for toolgate: {e}"))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn classify_json() {
    let o = toolgate(&["classify", "rm -rf /tmp/build"], None);
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        "{\"blast_radius\":\"high\",\"category\":\"fs-delete\",\"origin\":\"classifier\",\
\"reason\":\"recursive delete: whole directory trees are removed with no undo\",\
\"safety_label\":\"destructive\"}\n"
    );
    let o = toolgate(&["classify", "npm", "run", "dev"], None);
    assert_eq!(
        stdout(&o),
        "{\"blast_radius\":\"unknown\",\"origin\":\"classifier\",\"safety_label\":\"unknown\"}\n"
    );
}

#[test]
fn classify_text_and_stdin() {
    let o = toolgate(
        &["classify", "--format", "text", "--", "git", "status"],
        None,
    );
    assert_eq!(
        stdout(&o),
        "safe (safe) git-read: shows the working tree status\n"
    );
    let o = toolgate(
        &["classify", "--format", "text", "-"],
        Some("bash <<EOF\ngit reset --hard\nEOF\n"),
    );
    assert_eq!(
        stdout(&o),
        "destructive (high) git-discard: git reset --hard discards uncommitted changes for good\n"
    );
}

#[test]
fn bad_taxonomy_names_file_line_and_field() {
    let dir = std::env::temp_dir().join(format!("toolgate-cli-tax-{}", std::process::id()));
    let rules = dir.join("rules");
    std::fs::create_dir_all(&rules).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.join("commands.toml"), "").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        rules.join("mine.toml"),
        "[[destructive]]\nid = \"x\"\ncategory = \"c\"\nblast_radius = \"huge\"\nreason = \"r\"\ncommand = [\"x\"]\nexamples = [\"x\"]\nnear_misses = [\"y\"]\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let o = toolgate(
        &[
            "--taxonomy",
            dir.to_str().unwrap_or_default(),
            "classify",
            "x",
        ],
        None,
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("rules/mine.toml:2: entry `x`: field `blast_radius`: `huge` is not one of"),
        "{err}"
    );
}
