//! A project's `.toolgate.toml` only tightens: found from the call's
//! directory up to the repository root, and a broken one fails closed.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::util;

/// root/ (no .git) holding repo/ (.git) holding repo/src/deep, fresh for one test.
fn tree(test: &str) -> (PathBuf, PathBuf, PathBuf) {
    let root = std::env::temp_dir().join(format!("toolgate-project-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let repo = root.join("repo");
    let deep = repo.join("src/deep");
    for d in [&deep, &repo.join(".git")] {
        std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    }
    (root, repo, deep)
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// The decision and reason Claude Code gets for `command` run in `cwd`,
/// under the user's balanced mode.
fn decide(cwd: &Path, command: &str) -> (String, String) {
    let payload = json!({
        "session_id": "s", "transcript_path": "/t", "cwd": cwd.to_str().unwrap_or_default(),
        "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command}
    });
    let o = util::run(
        &["hook", "--protocol", "claude", "--mode", "balanced"],
        payload.to_string().as_bytes(),
        &[],
    );
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)));
    let out = &v["hookSpecificOutput"];
    (
        out["permissionDecision"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        out["permissionDecisionReason"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    )
}

#[test]
fn a_strict_project_turns_a_balanced_allow_into_ask() {
    let (_, repo, deep) = tree("strict");
    assert_eq!(decide(&deep, "git status").0, "allow");
    write(&repo.join(".toolgate.toml"), "mode = \"strict\"\n");
    let (decision, reason) = decide(&deep, "git status");
    assert_eq!(decision, "ask");
    assert!(
        reason.contains("project policy") && reason.contains(".toolgate.toml"),
        "{reason}"
    );
}

#[test]
fn a_project_cannot_widen() {
    let (_, repo, deep) = tree("widen");
    assert_eq!(decide(&deep, "rm -rf build").0, "ask");
    write(
        &repo.join(".toolgate.toml"),
        "mode = \"autonomous\"\nprofile = \"full-auto\"\ncompound = \"every-part-safe\"\n\
         [rules]\nallow = [\"shell:cmd=rm *\", \"Bash\"]\n",
    );
    assert_eq!(decide(&deep, "rm -rf build").0, "ask");
    assert_eq!(decide(&deep, "ls && pwd").0, "ask");
    assert_eq!(decide(&deep, "git status").0, "allow");
    let ignored = toolgate::hook::policy::ignored_in(&repo.join(".toolgate.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let keys: Vec<&str> = ignored.iter().map(|s| s.key.as_str()).collect();
    assert_eq!(
        keys,
        ["mode", "profile", "compound", "rules.allow", "rules.allow"]
    );
}

#[test]
fn a_project_deny_rule_denies() {
    let (_, repo, deep) = tree("deny");
    write(
        &repo.join(".toolgate.toml"),
        "[rules]\ndeny = [\"shell:cmd=git push*\"]\nask = [\"shell:cmd=git status*\"]\n",
    );
    let (decision, reason) = decide(&deep, "git push origin main");
    assert_eq!(decision, "deny");
    assert!(reason.contains("git push*"), "{reason}");
    assert_eq!(decide(&deep, "git status").0, "ask");
    // Everything else is the user's call: no mode in the file, no opinion.
    assert_eq!(decide(&deep, "ls").0, "allow");
}

#[test]
fn a_broken_project_file_fails_closed_naming_file_and_line() {
    let (_, repo, deep) = tree("broken");
    let file = repo.join(".toolgate.toml");
    write(&file, "mode = \"strict\"\n[rules\ndeny = []\n");
    let (decision, reason) = decide(&deep, "git status");
    assert_eq!(decision, "ask");
    let at = format!("{}:2:", file.display());
    assert!(
        reason.contains("bad project policy") && reason.contains(&at),
        "{reason}"
    );
    write(&file, "[rules]\n\ndeny = [\"shell:cmd\"]\n");
    let (decision, reason) = decide(&deep, "git status");
    assert_eq!(decision, "ask");
    assert!(
        reason.contains(&format!("{}:3:", file.display())),
        "{reason}"
    );
}

#[test]
fn the_search_stops_at_the_repository_root() {
    let (root, _repo, deep) = tree("stops");
    // Above the repository: not this project's file.
    write(&root.join(".toolgate.toml"), "mode = \"strict\"\n");
    assert_eq!(decide(&deep, "git status").0, "allow");
    // Without a repository, the search goes up to the filesystem root.
    let loose = root.join("loose/dir");
    std::fs::create_dir_all(&loose).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(decide(&loose, "git status").0, "ask");
}
