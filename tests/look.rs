//! The look before allowing, through the hook, over the fixture trees of
//! `corpus/look/`: secrets in ordinary-named files, links, nested `.env`
//! files, `cd` into secret folders, git history with a committed secret,
//! and clean twins. Every call the hook allows is then run in its tree,
//! and none may print a planted secret (the oracle for the look).
//!
//! The look's I/O is tested on Linux (and any Unix); its path logic on
//! every platform by the core crate's unit tests.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::util;

/// Where the fixtures are copied: a folder standing in for a home, so that
/// a sibling of a project is a private place, as it is on a real machine.
fn home(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("look-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// Copies a tree, links kept as links.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    let entries = std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    for entry in entries.flatten() {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            let target = std::fs::read_link(&src).unwrap_or_else(|e| panic!("{e}"));
            std::os::unix::fs::symlink(target, &dst).unwrap_or_else(|e| panic!("{e}"));
        } else if kind.is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
        }
    }
}

fn git(dir: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The `history` tree: the clean tree as a git repository whose history
/// holds a committed (and later removed) secret. `false` without git.
fn history_tree(look: &Path, home: &Path) -> bool {
    let dir = home.join("history");
    copy_tree(&look.join("trees/clean"), &dir);
    let settings = std::fs::read(look.join("trees/ordinary-names/app/settings.py"))
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(dir.join("app")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.join("app/settings.py"), settings).unwrap_or_else(|e| panic!("{e}"));
    git(&dir, &["init", "-q"])
        && git(&dir, &["add", "-A"])
        && git(&dir, &["commit", "-q", "-m", "add settings"])
        && git(&dir, &["rm", "-q", "app/settings.py"])
        && git(&dir, &["commit", "-q", "-m", "drop settings"])
}

fn payload(cwd: &Path, command: &str) -> Vec<u8> {
    json!({
        "session_id": "s", "transcript_path": "/t.jsonl", "cwd": cwd, "prompt_id": "p",
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command, "description": "d"}, "tool_use_id": "toolu_1"
    })
    .to_string()
    .into_bytes()
}

/// The decision and reason of a Claude Code answer.
fn decision(stdout: &str) -> (String, String) {
    let v: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout:?}"));
    let h = &v["hookSpecificOutput"];
    (
        h["permissionDecision"].as_str().unwrap_or("").to_string(),
        h["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .to_string(),
    )
}

/// The values planted in the fixture trees: no allowed call may print one.
fn planted(look: &Path) -> Vec<String> {
    std::fs::read_to_string(look.join("planted.txt"))
        .unwrap_or_else(|e| panic!("planted.txt: {e}"))
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_hook_looks_before_it_allows_and_no_allowed_call_prints_a_secret() {
    let look = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus/look");
    let home = home("cases");
    for tree in [
        "clean",
        "ordinary-names",
        "links",
        "nested-env",
        "deploy-tree",
    ] {
        copy_tree(&look.join("trees").join(tree), &home.join(tree));
        // Each its own project, as a checkout is (the fixtures themselves
        // sit inside toolgate's work tree).
        std::fs::create_dir_all(home.join(tree).join(".git")).unwrap_or_else(|e| panic!("{e}"));
    }
    let has_history = history_tree(&look, &home);
    let secrets = planted(&look);
    let cases = std::fs::read_to_string(look.join("cases.jsonl")).unwrap_or_else(|e| panic!("{e}"));
    let home_text = home.to_string_lossy().into_owned();
    let env = [("HOME", home_text.as_str())];
    let mut failures = Vec::new();
    let (mut allowed, mut ran) = (0, 0);
    for line in cases.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        let tree = case["tree"].as_str().unwrap_or_default();
        let command = case["command"].as_str().unwrap_or_default();
        let expect = case["expect"].as_str().unwrap_or_default();
        if tree == "history" && !has_history {
            continue;
        }
        let cwd = home.join(tree);
        let o = util::run(
            &[
                "hook",
                "--mode",
                "balanced",
                "--compound",
                "every-part-safe",
            ],
            &payload(&cwd, command),
            &env,
        );
        let (got, reason) = decision(&String::from_utf8_lossy(&o.stdout));
        let ok = match expect {
            "allow" => got == "allow",
            "secret" => got == "ask" && reason.contains("would"),
            "unsettled" => got == "ask" && reason.contains("a look could not clear"),
            "not_allowed" => got != "allow" && !got.is_empty(),
            other => panic!("{line}: unknown expectation {other}"),
        };
        let named = case["reason"]
            .as_str()
            .is_none_or(|want| reason.contains(want));
        if !ok || !named {
            failures.push(format!(
                "{tree}: `{command}`: expected {expect}, got {got}: {reason}"
            ));
        }
        for secret in &secrets {
            if reason.contains(secret.as_str()) {
                failures.push(format!("{tree}: `{command}`: the reason shows a secret"));
            }
        }
        if got != "allow" {
            continue;
        }
        allowed += 1;
        // The oracle: an allowed call, run where it was asked to run,
        // prints no planted secret.
        let out = Command::new("bash")
            .args(["-c", command])
            .current_dir(&cwd)
            .env("HOME", &home)
            .output()
            .unwrap_or_else(|e| panic!("bash: {e}"));
        ran += 1;
        let printed = [out.stdout, out.stderr].concat();
        let printed = String::from_utf8_lossy(&printed);
        for secret in &secrets {
            if printed.contains(secret.as_str()) {
                failures.push(format!(
                    "{tree}: `{command}` was allowed and printed a secret"
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&home);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        allowed >= 10 && ran == allowed,
        "{allowed} allowed, {ran} run"
    );
}

#[test]
fn without_the_look_a_read_only_a_look_can_clear_is_not_allowed() {
    let look = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus/look");
    let home = home("off");
    copy_tree(&look.join("trees/clean"), &home.join("clean"));
    std::fs::create_dir_all(home.join("clean/.git")).unwrap_or_else(|e| panic!("{e}"));
    let home_text = home.to_string_lossy().into_owned();
    let cwd = home.join("clean");
    for (command, on, off) in [
        ("grep -r PORT .", "allow", "ask"),
        ("cat src/app.py", "allow", "allow"),
    ] {
        for (look, want) in [("on", on), ("off", off)] {
            let o = util::run(
                &["hook", "--mode", "balanced"],
                &payload(&cwd, command),
                &[("HOME", home_text.as_str()), ("TOOLGATE_LOOK", look)],
            );
            let (got, reason) = decision(&String::from_utf8_lossy(&o.stdout));
            assert_eq!(got, want, "{command} with the look {look}: {reason}");
        }
    }
    let _ = std::fs::remove_dir_all(&home);
}
