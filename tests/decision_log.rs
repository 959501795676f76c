//! The decision log: one masked line per hook answer, private files,
//! rotation, a log that cannot be written leaving the answer alone, and
//! `toolgate log` reading it back.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};
use toolgate::client::by_name;
use toolgate::decision_log::Trace;
use toolgate::decision_log::{format_rfc3339, DecisionLog, Entry};
use toolgate::gate::Decision;

use crate::util;

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolgate-dlog-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

fn claude(command: &str) -> Vec<u8> {
    json!({
        "session_id": "sess-42", "transcript_path": "/t.jsonl", "cwd": "/home/dev/project",
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command}
    })
    .to_string()
    .into_bytes()
}

fn lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
        .collect()
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn a_hook_run_appends_one_masked_line() {
    let dir = scratch("one-line").join("state/toolgate");
    let state = dir.to_str().unwrap_or_default();
    let command = "curl -H 'Authorization: Bearer abc123' https://bob:hunter2@example.com \
                   -d token=xoxb-1234-5678-abcdef && AWS_SECRET_ACCESS_KEY=xyz aws s3 ls \
                   && echo ghp_abcdefghijklmnop0123 && mysql -u root -phunter3 db";
    let o = util::run(
        &["hook", "--mode", "balanced"],
        &claude(command),
        &[("TOOLGATE_LOG", "1"), ("TOOLGATE_STATE_DIR", state)],
    );
    assert_eq!(o.status.code(), Some(0));
    let logged = lines(&dir.join("decisions.jsonl"));
    assert_eq!(logged.len(), 1, "{logged:?}");
    let e = &logged[0];
    assert_eq!(
        e["command"],
        "curl -H 'Authorization: ***' https://bob:***@example.com \
         -d token=*** && AWS_SECRET_ACCESS_KEY=*** aws s3 ls \
         && echo ghp_*** && mysql -u root -p*** db"
    );
    let text = e.to_string();
    for secret in [
        "abc123",
        "hunter2",
        "hunter3",
        "xoxb-1234",
        "xyz",
        "abcdefghijklmnop",
    ] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    assert_eq!(e["client"], "claude");
    assert_eq!(e["session"], "sess-42");
    assert_eq!(e["cwd"], "/home/dev/project");
    assert_eq!(e["tool"], "Bash");
    assert_eq!(e["decision"], "ask");
    assert_eq!(e["source"], "mode_balanced");
    assert!(e["label"].is_string() && e["reason"].is_string(), "{e}");
    let time = e["time"].as_str().unwrap_or_default();
    assert!(
        time.len() == 24 && time.ends_with('Z') && &time[10..11] == "T",
        "{time}"
    );
    #[cfg(unix)]
    {
        assert_eq!(mode(&dir.join("decisions.jsonl")), 0o600);
        assert_eq!(mode(&dir), 0o700);
    }

    // The next answer is the next line.
    let o = util::run(
        &["hook", "--mode", "balanced"],
        &claude("git status"),
        &[("TOOLGATE_LOG", "1"), ("TOOLGATE_STATE_DIR", state)],
    );
    assert_eq!(o.status.code(), Some(0));
    let logged = lines(&dir.join("decisions.jsonl"));
    assert_eq!(logged.len(), 2);
    assert_eq!(
        (&logged[1]["command"], &logged[1]["decision"]),
        (&json!("git status"), &json!("allow"))
    );
}

#[test]
fn fail_closed_answers_are_logged_too() {
    let dir = scratch("fail-closed");
    let state = dir.to_str().unwrap_or_default();
    let o = util::run(
        &["hook", "--protocol", "codex"],
        b"not json",
        &[("TOOLGATE_LOG", "1"), ("TOOLGATE_STATE_DIR", state)],
    );
    assert_eq!(o.status.code(), Some(0));
    let logged = lines(&dir.join("decisions.jsonl"));
    assert_eq!(logged.len(), 1);
    assert_eq!(
        (
            &logged[0]["client"],
            &logged[0]["decision"],
            &logged[0]["source"]
        ),
        (&json!("codex"), &json!("deny"), &json!("fail_closed"))
    );
}

#[test]
fn the_log_can_be_turned_off() {
    let dir = scratch("off");
    let state = dir.to_str().unwrap_or_default();
    util::run(
        &["hook", "--mode", "balanced"],
        &claude("git status"),
        &[("TOOLGATE_LOG", "0"), ("TOOLGATE_STATE_DIR", state)],
    );
    let config = dir.join("config.toml");
    std::fs::write(&config, "log = false\n").unwrap_or_else(|e| panic!("{e}"));
    let o = util::run(
        &[
            "hook",
            "--mode",
            "balanced",
            "--config",
            config.to_str().unwrap_or_default(),
        ],
        &claude("git status"),
        &[("TOOLGATE_STATE_DIR", state)],
    );
    // Without TOOLGATE_LOG at all: the config file decides.
    assert_eq!(o.status.code(), Some(0));
    assert!(!dir.join("decisions.jsonl").exists());
}

#[test]
fn an_unwritable_state_dir_leaves_the_answer_unchanged() {
    let dir = scratch("unwritable");
    // A directory below a regular file cannot be created, even by root.
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap_or_else(|e| panic!("{e}"));
    let state = file.join("toolgate");
    for (protocol, command) in [
        ("claude", "rm -rf build"),
        ("codex", "git status"),
        ("windsurf", "rm -rf /"),
    ] {
        let payload = claude(command);
        let args = ["hook", "--mode", "balanced", "--protocol", protocol];
        let off = util::run(&args, &payload, &[("TOOLGATE_LOG", "0")]);
        let broken = util::run(
            &args,
            &payload,
            &[
                ("TOOLGATE_LOG", "1"),
                ("TOOLGATE_STATE_DIR", state.to_str().unwrap_or_default()),
            ],
        );
        assert_eq!(broken.status.code(), off.status.code(), "{protocol}");
        assert_eq!(broken.stdout, off.stdout, "{protocol}");
        assert_eq!(broken.stderr, off.stderr, "{protocol}");
    }
}

fn trace(n: usize, decision: Decision) -> Trace {
    Trace {
        client: by_name("claude"),
        tool: Some("Bash".into()),
        command: Some(format!("echo entry-{n:03}")),
        decision: Some(decision),
        source: "mode_balanced".into(),
        reason: "x".repeat(100),
        ..Trace::default()
    }
}

#[test]
fn rotation_keeps_the_newest_entries() {
    let dir = scratch("rotate");
    let log = DecisionLog::new(&dir).max_bytes(1000);
    let now = SystemTime::now();
    for n in 0..40 {
        log.append(&Entry::new(now, &trace(n, Decision::Allow)))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let current = std::fs::metadata(log.path()).map_or(0, |m| m.len());
    assert!(current <= 1000, "{current}");
    assert!(dir.join("decisions.jsonl.1").exists());
    assert!(!dir.join("decisions.jsonl.2").exists());
    let (entries, skipped) = log.read().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(skipped, 0);
    let commands: Vec<&str> = entries
        .iter()
        .filter_map(|e| e.command.as_deref())
        .collect();
    // The newest entries, in order, ending with the last one written; the
    // oldest are gone.
    assert_eq!(commands.last(), Some(&"echo entry-039"));
    assert!(!commands.contains(&"echo entry-000"), "{commands:?}");
    let mut sorted = commands.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, commands);
    assert!(commands.len() >= 4, "{commands:?}");
}

#[test]
fn toolgate_log_filters_by_decision_and_since() {
    let dir = scratch("read");
    let log = DecisionLog::new(&dir);
    let old = SystemTime::now() - Duration::from_secs(3 * 86_400);
    let recent = SystemTime::now() - Duration::from_secs(60);
    for (n, (time, decision)) in [
        (old, Decision::Deny),
        (old, Decision::Allow),
        (recent, Decision::Deny),
        (recent, Decision::Ask),
        (recent, Decision::Allow),
        (recent, Decision::NoOpinion),
    ]
    .into_iter()
    .enumerate()
    {
        log.append(&Entry::new(time, &trace(n, decision)))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let state = dir.to_str().unwrap_or_default();
    let show = |args: &[&str]| {
        let mut full = vec!["log", "--format", "json"];
        full.extend_from_slice(args);
        let o = util::run(&full, b"", &[("TOOLGATE_STATE_DIR", state)]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
                v["command"].as_str().unwrap_or_default().to_string()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(show(&[]).len(), 6);
    // The log prints `no_opinion`; the filter takes that spelling as well
    // as its own `no-opinion`.
    for spelling in ["no-opinion", "no_opinion"] {
        assert_eq!(show(&["--decision", spelling]), ["echo entry-005"]);
    }
    assert_eq!(
        show(&["--decision", "deny"]),
        ["echo entry-000", "echo entry-002"]
    );
    assert_eq!(
        show(&["--since", "1h"]),
        [
            "echo entry-002",
            "echo entry-003",
            "echo entry-004",
            "echo entry-005"
        ]
    );
    assert_eq!(
        show(&["--since", "1h", "--decision", "deny"]),
        ["echo entry-002"]
    );
    let since = format_rfc3339(old - Duration::from_secs(1));
    assert_eq!(show(&["--since", &since, "--decision", "allow"]).len(), 2);

    // The table has a header and a row per entry, with what decided it
    // and why on the line under it.
    let o = util::run(
        &["log", "--decision", "ask"],
        b"",
        &[("TOOLGATE_STATE_DIR", state)],
    );
    let table = String::from_utf8_lossy(&o.stdout);
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 3, "{table}");
    assert!(rows[2].starts_with("    mode_balanced: "), "{table}");
    assert!(
        rows[0].starts_with("TIME") && rows[1].contains("echo entry-003"),
        "{table}"
    );

    // A bad --since is a usage error that says how to write one.
    let o = util::run(
        &["log", "--since", "lately"],
        b"",
        &[("TOOLGATE_STATE_DIR", state)],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--since `lately`"));
}

/// In the guard mode no unknown command is asked about, so `suggest` has
/// nothing to offer; it says why, and where those commands went, rather
/// than that nothing was asked.
#[test]
fn suggest_says_the_guard_mode_leaves_unknown_commands_to_the_client() {
    let dir = scratch("suggest-guard");
    let log = DecisionLog::new(&dir);
    let now = SystemTime::now();
    for n in 0..2 {
        let t = Trace {
            label: Some(toolgate::Class::Unknown),
            source: "mode_guard".into(),
            ..trace(n, Decision::NoOpinion)
        };
        log.append(&Entry::new(now, &t))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let state = dir.to_str().unwrap_or_default();
    let o = util::run(&["suggest"], b"", &[("TOOLGATE_STATE_DIR", state)]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "nothing to suggest: the hook runs in the guard mode, which never asks about an unknown \
         command; it left 2 to your client's own permissions, so allow those in the client \
         (`toolgate log --decision no-opinion` lists them)\n"
    );
    // A balanced log's ask is suggested as before.
    let t = Trace {
        label: Some(toolgate::Class::Unknown),
        ..trace(7, Decision::Ask)
    };
    log.append(&Entry::new(now, &t))
        .unwrap_or_else(|e| panic!("{e}"));
    let o = util::run(&["suggest"], b"", &[("TOOLGATE_STATE_DIR", state)]);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("toolgate allow 'shell:cmd=echo entry-007'"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}
