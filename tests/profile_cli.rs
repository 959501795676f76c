//! `toolgate profile list|show|add|remove` as a user runs them, and the
//! hook deciding with a custom profile.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::run;

/// A fresh, empty store directory for one test.
fn store(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolgate-store-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs `toolgate profile ARGS --dir STORE`: (status, stdout, stderr).
fn profile(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let d = dir.display().to_string();
    let mut all = vec!["profile"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--dir", &d]);
    let out = run(&all, b"", &[]);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn builtin_file(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap_or_default()
}

const BUILTINS: [&str; 17] = [
    "guard",
    "strict",
    "balanced",
    "restricted",
    "autonomous",
    "manual",
    "review",
    "supervised",
    "cautious",
    "trusted",
    "auto",
    "ci",
    "full-auto",
    "safe-default",
    "coding-agent",
    "finance-operations",
    "customer-support",
];

#[test]
fn list_shows_the_seventeen_builtins_in_every_format() {
    let dir = store("list");
    let (code, out, _) = profile(&dir, &["list", "--format", "plain"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().collect::<Vec<_>>(), BUILTINS);

    let (_, out, _) = profile(&dir, &["list", "--format", "json"]);
    let rows: Value = serde_json::from_str(&out).unwrap_or_default();
    let kinds: Vec<(&str, &str)> = rows
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| {
                    (
                        r["name"].as_str().unwrap_or(""),
                        r["kind"].as_str().unwrap_or(""),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(kinds.len(), 17);
    assert_eq!(kinds[0], ("guard", "safety_mode"));
    assert_eq!(kinds[1], ("strict", "safety_mode"));
    assert_eq!(kinds[8], ("cautious", "automation"));
    assert_eq!(kinds[16], ("customer-support", "action_class"));

    let (_, out, _) = profile(&dir, &["list", "--format", "yaml"]);
    assert!(out.starts_with("- name: guard\n  namespace: builtin\n  kind: safety_mode\n"));

    let (_, out, _) = profile(&dir, &["list", "--format", "table"]);
    // A header, a row each, and what toolgate does not enforce.
    assert_eq!(out.lines().count(), 20);
    assert!(out.ends_with(
        "\ntoolgate enforces each profile's decisions on calls; it does not enforce require_sandbox, \
         require_checkpoints, max_cost_per_plan, max_total_cost, max_retries_per_step \
         (`toolgate profile show NAME` says how a caller can, and which destructive categories \
         the profile lets run unasked)\n"
    ));
    assert!(out.starts_with("NAME                KIND          VERSION  NAMESPACE  DESCRIPTION\n"));
    assert!(out.contains("\ncoding-agent        action_class  1.0.0    builtin    "));

    let (_, out, _) = profile(&dir, &["list", "--format", "rich"]);
    assert!(out.starts_with("\x1b[1mNAME "));
}

#[test]
fn list_filters_by_regex_and_namespace() {
    let dir = store("filter");
    let (_, out, _) = profile(&dir, &["list", "^c", "--format", "plain"]);
    assert_eq!(out, "cautious\nci\ncoding-agent\ncustomer-support\n");
    let (_, out, _) = profile(&dir, &["list", "--namespace", "acme", "--format", "plain"]);
    assert_eq!(out, "");
    let (code, _, err) = profile(&dir, &["list", "a("]);
    assert_eq!(code, 2);
    assert!(err.starts_with("toolgate: invalid REGEX `a(`"), "{err}");
}

#[test]
fn show_prints_a_profile_in_full() {
    let dir = store("show");
    let (code, out, _) = profile(&dir, &["show", "coding-agent", "--format", "json"]);
    assert_eq!(code, 0);
    let p: Value = serde_json::from_str(&out).unwrap_or_default();
    assert_eq!(p["rules"][0]["rule"], "remote_push");
    assert_eq!(
        p["rules"][0]["approved_remote_hosts"],
        serde_json::json!(["github.com", "gitlab.com"])
    );
    assert_eq!(p["classes"]["credential_access"], "ask");

    let (_, out, _) = profile(&dir, &["show", "full_auto", "--format", "plain"]);
    assert!(out.starts_with(
        "name: full-auto\nkind: automation\nversion: 1\nnamespace: builtin\nbuiltin: true\n"
    ));
    // What the profile lets run unasked, and what toolgate cannot enforce.
    assert!(
        out.contains("\ndestructive, run unasked:\n  ") && out.contains("\n  fs-delete (high"),
        "{out}"
    );
    assert!(
        out.contains(
            "\nnot enforced by toolgate:\n  require_sandbox: toolgate runs no sandbox: run the agent inside one"
        ),
        "{out}"
    );
    let (_, out, _) = profile(&dir, &["show", "manual", "--format", "plain"]);
    assert!(
        out.contains(
            "\ndestructive, run unasked: none (every destructive call asks or is denied)\n"
        ),
        "{out}"
    );
    let (_, out, _) = profile(&dir, &["show", "guard", "--format", "plain"]);
    assert!(
        out.contains(
            "\ndestructive, run unasked: none (every destructive call asks or is denied)\n"
        ) && !out.contains("not enforced"),
        "{out}"
    );
    let (_, out, _) = profile(&dir, &["show", "balanced", "--format", "yaml"]);
    assert_eq!(
        out,
        "name: balanced\ndescription: Allow calls labelled safe, ask for the rest.\n"
    );
    let (code, _, err) = profile(&dir, &["show", "nope"]);
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "toolgate: no profile `nope` (see `toolgate profile list`)\n"
        )
    );
}

#[test]
fn add_update_remove_a_custom_profile() {
    let dir = store("crud");
    let file = dir.with_extension("acme.yaml");
    let text = builtin_file("taxonomy/profiles/action/coding-agent.yaml")
        .replace("name: coding-agent", "name: acme/strict-code")
        .replace("\"gitlab.com\"", "\"git.acme.dev\"");
    std::fs::write(&file, &text).unwrap_or_else(|e| panic!("{e}"));
    let f = file.display().to_string();

    let (code, out, _) = profile(&dir, &["add", "--config", &f, "--format", "plain"]);
    assert_eq!((code, out.as_str()), (0, "acme/strict-code\n"));
    let (code, _, err) = profile(&dir, &["add", "--config", &f]);
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "toolgate: profile `acme/strict-code` already exists; pass --update to replace it\n"
        )
    );
    let (code, _, _) = profile(&dir, &["add", "--config", &f, "--update"]);
    assert_eq!(code, 0);
    let (_, out, _) = profile(&dir, &["list", "--namespace", "acme", "--format", "plain"]);
    assert_eq!(out, "acme/strict-code\n");
    let (_, out, _) = profile(&dir, &["list", "--format", "plain"]);
    assert_eq!(out.lines().count(), 18);

    // The hook decides with it.
    let d = dir.display().to_string();
    let hook = |cmd: &str| {
        let payload = serde_json::json!({
            "session_id": "s", "hook_event_name": "PreToolUse",
            "tool_name": "Read", "tool_input": {"file_path": cmd}
        });
        let out = run(
            &["hook", "--profile", "acme/strict-code"],
            payload.to_string().as_bytes(),
            &[("TOOLGATE_PROFILE_DIR", &d)],
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        v["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    assert_eq!(hook("/repo/.env.local"), "deny");

    let (code, _, err) = profile(&dir, &["remove", "acme/strict-code"]);
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "toolgate: pass --yes to remove profile `acme/strict-code`\n"
        )
    );
    let (code, out, _) = profile(&dir, &["remove", "acme/strict-code", "--yes"]);
    assert_eq!((code, out.as_str()), (0, "removed acme/strict-code\n"));
    let (code, _, err) = profile(&dir, &["remove", "acme/strict-code", "--yes"]);
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "toolgate: no custom profile `acme/strict-code` (see `toolgate profile list`)\n"
        )
    );
    // Gone, the hook's unknown profile is strict: ask, never allow.
    assert_eq!(hook("/repo/src/main.rs"), "ask");
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn builtins_cannot_be_removed_or_overwritten_and_bad_files_say_where() {
    let dir = store("bad");
    let (code, _, err) = profile(&dir, &["remove", "cautious", "--yes"]);
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "toolgate: `cautious` is a built-in profile; built-ins cannot be removed or overwritten\n"
        )
    );
    let write = |name: &str, text: String| {
        let f = dir.with_extension(name);
        std::fs::write(&f, text).unwrap_or_else(|e| panic!("{e}"));
        f.display().to_string()
    };
    let auto = builtin_file("taxonomy/profiles/automation/cautious.yaml");
    let f = write("same.yaml", auto.clone());
    let (code, _, err) = profile(&dir, &["add", "--config", &f, "--update"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!("toolgate: {f}: field `name`: `cautious` is a built-in profile; built-ins cannot be overwritten (use a name such as `acme/cautious`)\n")
    );
    let f = write(
        "range.yaml",
        auto.replace("name: cautious", "name: acme/night")
            .replace("edit_code: 0.6", "edit_code: 1.5"),
    );
    let (_, _, err) = profile(&dir, &["add", "--config", &f]);
    assert_eq!(
        err,
        format!("toolgate: {f}: field `thresholds.edit_code`: 1.5 is not between 0 and 1\n")
    );
    let f = write(
        "key.yaml",
        auto.replace("name: cautious", "name: acme/night")
            .replace("edit_code:", "edit_kode:"),
    );
    let (_, _, err) = profile(&dir, &["add", "--config", &f]);
    assert!(
        err.starts_with(&format!(
            "toolgate: {f}: thresholds: unknown field `edit_kode`"
        )) && err.contains("line"),
        "{err}"
    );
    let f = write("kind.yaml", "name: acme/x\nversion: 1\n".into());
    let (_, _, err) = profile(&dir, &["add", "--config", &f]);
    assert_eq!(
        err,
        format!("toolgate: {f}: a profile needs `thresholds` (automation) or `classes` (action-class)\n")
    );
    let f = write(
        "name.yaml",
        auto.replace("name: cautious", "name: Acme Night"),
    );
    let (_, _, err) = profile(&dir, &["add", "--config", &f]);
    assert_eq!(
        err,
        format!("toolgate: {f}: field `name`: `Acme Night` is not `namespace/name` (lower-case letters, digits, `-`, `_`)\n")
    );
    // Nothing was stored.
    let (_, out, _) = profile(&dir, &["list", "--format", "plain"]);
    assert_eq!(out.lines().count(), 17);
    for ext in [
        "same.yaml",
        "range.yaml",
        "key.yaml",
        "kind.yaml",
        "name.yaml",
    ] {
        let _ = std::fs::remove_file(dir.with_extension(ext));
    }
}
